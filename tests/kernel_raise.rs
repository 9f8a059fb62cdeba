//! `error` and `assert` inside loops that run in parallel (issue 15 item 4, the GPU part): the
//! loop is a kernel on the GPU and an OpenMP loop on the CPU, and a failing run stops with the
//! message of the smallest failing iteration, as MATLAB's loop does, whichever thread fails
//! first. Each case fails in several iterations (some early in the second OpenMP thread's half,
//! some in other GPU threads) and must print Octave's message with exit status 1, on the C path
//! with two OpenMP threads and on the emulated GPU alike.

mod common;

use std::process::Output;

/// One failing call of a fixture function: its inputs as `--set` expressions (which Octave
/// evaluates too), its input types for `m2cu check`, and the message Octave gives.
struct Case {
    name: &'static str,
    sets: &'static [&'static str],
    types: &'static [&'static str],
    message: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "checkedroot",
        sets: &[
            "x=[ones(1,1999) -1.5 ones(1,500) -3 ones(1,2497) NaN 1]",
            "shift=0.25",
        ],
        types: &["x=double(1,:)", "shift=double"],
        message: "element 2000: -1.5 + 0.25 = -1.25 has no real root",
    },
    Case {
        name: "checkedroot",
        sets: &["x=[ones(1,4999) -2]"],
        types: &["x=double(1,:)", "shift=double"],
        message: "element 5000: -2 + 0 = -2 has no real root",
    },
    Case {
        name: "probentropy",
        sets: &["p=[1e-4*ones(1,2999) 1.5 zeros(1,1399) -0.1 zeros(1,100)]"],
        types: &["p=double(1,:)"],
        message: "p(3000) = 1.5 is not a probability",
    },
    Case {
        name: "colscale",
        sets: &[
            "A=[ones(70,1) [ones(6,1); Inf; ones(63,1)] [1; NaN; ones(68,1)] ones(70,77)]",
            "w=[ones(1,4) 0 ones(1,75)]",
        ],
        types: &["A=double(:,:)", "w=double(1,:)"],
        message: "A(7,2) is not finite",
    },
    Case {
        name: "safelogs",
        sets: &["x=[ones(1,99) 0 ones(1,3900) -2 ones(1,1000)]", "base=10"],
        types: &["x=double(1,:)", "base=double"],
        message: "log of 0 is not real",
    },
];

/// `m2cu run` of the fixture `case.name` on `backend`, with two OpenMP threads.
fn run(case: &Case, backend: &str) -> Output {
    let file = common::root().join(format!("fixtures/e2e/{}.m", case.name));
    run_file(file.to_str().unwrap(), backend, case.sets)
}

/// `m2cu run FILE --backend backend --set ...`, with two OpenMP threads.
fn run_file(file: &str, backend: &str, sets: &[&str]) -> Output {
    let mut args = vec!["run", file, "--backend", backend];
    // Two OpenMP threads on the C path, however busy the machine.
    if backend == "cpu" {
        args.extend(["--threads", "2"]);
    }
    for set in sets {
        args.extend(["--set", set]);
    }
    std::process::Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .args(&args)
        .env("OMP_NUM_THREADS", "2")
        .output()
        .expect("m2cu runs")
}

/// The `error:` line of a run's standard error, or "".
fn error_line(stderr: &str) -> &str {
    stderr
        .lines()
        .find(|l| l.starts_with("error:"))
        .unwrap_or("")
}

#[test]
fn the_smallest_failing_iteration_is_reported_on_both_paths() {
    for case in CASES {
        for backend in ["cpu", "emu"] {
            let o = run(case, backend);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{} {backend}: {err}", case.name);
            assert!(o.stdout.is_empty(), "{} {backend}: no outputs", case.name);
            assert_eq!(
                error_line(&err),
                format!("error: {}", case.message),
                "{} {backend}",
                case.name
            );
        }
    }
}

/// The expected messages are Octave's.
#[test]
fn the_expected_messages_are_octaves() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    for case in CASES {
        let inputs: Vec<&str> = case
            .sets
            .iter()
            .map(|s| s.split('=').next().unwrap())
            .collect();
        let script = format!(
            "{}; try, {}({}); catch e, printf('%s\\n', e.message); end",
            case.sets.join("; "),
            case.name,
            inputs.join(", ")
        );
        let dir = common::root().join("fixtures/e2e");
        let text = m2cu_runtime::octave::eval(&dir, &script).expect("Octave runs the call");
        assert!(
            text.lines().any(|l| l == case.message),
            "{}: Octave says {text}",
            case.name
        );
    }
}

/// Each loop that raises is parallel: a kernel, not a loop kept on the host.
#[test]
fn loops_that_raise_become_kernels() {
    for case in CASES {
        let file = format!("fixtures/e2e/{}.m", case.name);
        let mut args = vec!["check", file.as_str()];
        for t in case.types {
            args.extend(["--args", t]);
        }
        let o = common::m2cu(&args);
        let report = String::from_utf8_lossy(&o.stdout);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(report.contains("-> kernel"), "{}: {report}{err}", case.name);
        assert!(!report.contains("sequential"), "{}: {report}", case.name);
    }
}

const PICKROOT: &str = "function y = pickroot(x, idx)
% an index error and error() in one parallel loop: the smaller iteration's error is reported
y = zeros(size(idx));
for i = 1:numel(idx)
  if x(idx(i)) < 0
    error('pickroot:neg', 'x(%d) = %g is negative', idx(i), x(idx(i)));
  end
  y(i) = sqrt(x(idx(i)));
end
end
";

/// A run-time error of the generated code (an index past the end) and `error` in one parallel
/// loop: whichever fails in the smaller iteration is reported, as Octave does (whose index
/// message has its own wording: m2cu prints MATLAB's, with the access and its place).
#[test]
fn an_index_error_and_a_raised_error_keep_loop_order() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("pickroot.m");
    std::fs::write(&file, PICKROOT).unwrap();
    let index_first = "idx=[ones(1,2999) 9 ones(1,999) 3 ones(1,1000)]";
    let raise_first = "idx=[ones(1,2999) 3 ones(1,999) 9 ones(1,1000)]";
    // On the host the message also has the bound (and the subscript's value where the checks
    // run in order: not in this loop's two OpenMP threads, where another may fail first at a
    // later iteration); inside a kernel only the place.
    let index_error = |backend: &str| {
        match backend {
        "cpu" => format!(
            "error: Index exceeds the number of array elements. Index must not exceed 5. (`x(idx(i))` at {}:5:6)",
            file.display()
        ),
        _ => format!(
            "error: Index exceeds the number of array elements. (`x(idx(i))` at {}:5:6)",
            file.display()
        ),
    }
    };
    for (idx, raised) in [(index_first, false), (raise_first, true)] {
        for backend in ["cpu", "emu"] {
            let expected = match raised {
                true => "error: x(3) = -3 is negative".to_string(),
                false => index_error(backend),
            };
            let o = run_file(file.to_str().unwrap(), backend, &["x=[1 2 -3 4 5]", idx]);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{backend}: {err}");
            assert_eq!(error_line(&err), expected, "{backend} {idx}");
        }
    }
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let script = format!(
        "x = [1 2 -3 4 5]; {index_first}; try, pickroot(x, idx); catch e, printf('%s\\n', e.message); end"
    );
    let text = m2cu_runtime::octave::eval(dir.path(), &script).expect("Octave runs the call");
    assert!(text.contains("x(9): out of bound 5"), "Octave says {text}");
}

const LABELLED: &str = "function y = labelled(x, label)
% error() with %s of a char input inside a loop that is otherwise parallel
y = zeros(size(x));
for i = 1:numel(x)
  if x(i) < 0
    error('labelled:neg', '%s(%d) = %g is negative', label, i, x(i));
  end
  y(i) = 2 * x(i);
end
end
";

/// A message with `%s` of a char array keeps its loop on the host (a failure record holds
/// scalars only), so the emulated GPU gives Octave's text instead of failing to compile.
#[test]
fn a_char_array_in_the_message_keeps_the_loop_on_the_host() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("labelled.m");
    std::fs::write(&file, LABELLED).unwrap();
    let file = file.to_str().unwrap();
    for backend in ["cpu", "emu"] {
        let o = run_file(file, backend, &["x=[1 2 -3 4 -5]", "label='data'"]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{backend}: {err}");
        assert_eq!(
            error_line(&err),
            "error: data(3) = -3 is negative",
            "{backend}: {err}"
        );
    }
    let o = common::m2cu(&[
        "check",
        file,
        "--args",
        "x=double(1,:)",
        "--args",
        "label=char(1,:)",
    ]);
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        report.contains("formats a char array into its message"),
        "{report}"
    );
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let script = "try, labelled([1 2 -3 4 -5], 'data'); catch e, printf('%s\\n', e.message); end";
    let text = m2cu_runtime::octave::eval(dir.path(), script).expect("Octave runs the call");
    assert!(
        text.lines().any(|l| l == "data(3) = -3 is negative"),
        "Octave says {text}"
    );
}
