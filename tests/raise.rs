//! `error`, `warning`, `assert`, `disp` and optional inputs as a user meets them: the run stops
//! with Octave's message and exit status 1 on the C path and on the emulated GPU alike, prints
//! what Octave prints, and the library returns the message and identifier in its error type.

mod common;

use std::path::Path;
use std::process::Output;

use common::m2cu;
use m2cu::{Backend, Value};

/// Writes `source` as `dir/name.m` and runs it with `--set` values on `backend`.
fn run_file(dir: &Path, name: &str, source: &str, backend: &str, sets: &[&str]) -> Output {
    let file = dir.join(format!("{name}.m"));
    std::fs::write(&file, source).unwrap();
    let mut args = vec!["run", file.to_str().unwrap(), "--backend", backend];
    for set in sets {
        args.extend(["--set", set]);
    }
    m2cu(&args)
}

/// What Octave prints for `script` run in `dir`, or `None` without Octave.
fn octave(dir: &Path, script: &str) -> Option<String> {
    if !common::require(common::octave_available(), "octave-cli") {
        return None;
    }
    Some(m2cu_runtime::octave::eval(dir, script).expect("Octave runs the script"))
}

const FIRSTNEG: &str = "function y = firstneg(x, scale)
% errors raised in a loop that would otherwise be a kernel
if nargin < 2
  scale = 1;
end
y = zeros(size(x));
for i = 1:numel(x)
  if x(i) < 0
    error('firstneg:negative', 'x(%d) = %g is negative (%d%%)', i, x(i), x(i));
  end
  y(i) = sqrt(x(i)) * scale;
end
end
";

/// An error raised inside a loop stops the run with Octave's text and exit status 1, the same
/// on cpu and emu; the first failing iteration is the one reported, as in MATLAB, though the
/// loop is a kernel (see tests/kernel_raise.rs).
#[test]
fn an_error_in_a_loop_stops_the_run_with_octaves_message_on_both_paths() {
    let dir = tempfile::tempdir().unwrap();
    let x = "x=[4 1 -2.5 9 -7]";
    let mut messages = Vec::new();
    for backend in ["cpu", "emu"] {
        let o = run_file(dir.path(), "firstneg", FIRSTNEG, backend, &[x]);
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert_eq!(o.status.code(), Some(1), "{backend}: {err}");
        assert!(o.stdout.is_empty(), "{backend}: no outputs after an error");
        let line = err.lines().find(|l| l.starts_with("error:")).unwrap_or("");
        messages.push(line.to_string());
    }
    assert_eq!(messages[0], "error: x(3) = -2.5 is negative (-2.5%)");
    assert_eq!(messages[0], messages[1], "cpu and emu differ");
    let file = dir.path().join("firstneg.m");
    let o = m2cu(&[
        "check",
        file.to_str().unwrap(),
        "--args",
        "x=double(1,:)",
        "--args",
        "scale=double",
    ]);
    let report = String::from_utf8_lossy(&o.stdout);
    assert!(
        report.contains("parallel -> kernel firstneg_kernel1"),
        "{report}"
    );
    if let Some(expected) = octave(
        dir.path(),
        "try, firstneg([4 1 -2.5 9 -7]); catch e, printf('error: %s\\n', e.message); end",
    ) {
        assert_eq!(format!("{}\n", messages[0]), expected);
    }
}

const PRINTS: &str = "function y = prints(x)
% disp of scalars of every magnitude, fprintf of non-integers with %d, warning, and assert
assert(x(1) > 0);
for i = 1:numel(x)
  disp(x(i));
  fprintf('[%d|%5.1d|%i]\\n', x(i), x(i), -x(i));
end
disp(int32(-7)); disp(true); disp('text with 50% and \\n kept');
disp(sprintf('%s: %-6s|%d', 'key', 'val', 3));
warning('prints:w', 'sum is %g', sum(x));
warning('single %d argument stays as written');
y = x(end);
end
";

/// `disp`, `fprintf` and `warning` print what Octave prints (stdout and stderr), and a failed
/// `assert(cond)` has Octave's message.
#[test]
fn disp_fprintf_and_warning_print_like_octave() {
    let dir = tempfile::tempdir().unwrap();
    let values = "[5 1.5 -0.5 3.14159 1e10 123456.7 0.001234 0.0123456 99999 -12345678 12345.6 0 NaN -Inf 2.5e-7 1e5]";
    let o = run_file(
        dir.path(),
        "prints",
        PRINTS,
        "cpu",
        &[&format!("x={values}")],
    );
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{err}");
    let printed: String = out
        .lines()
        .take_while(|l| !l.starts_with("y ="))
        .map(|l| format!("{l}\n"))
        .collect();
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning:")).collect();
    assert_eq!(
        warnings,
        [
            "warning: sum is NaN",
            "warning: single %d argument stays as written"
        ]
    );
    let emu = run_file(
        dir.path(),
        "prints",
        PRINTS,
        "emu",
        &[&format!("x={values}")],
    );
    assert_eq!(
        String::from_utf8_lossy(&emu.stdout),
        out,
        "cpu and emu print alike"
    );
    let failed = run_file(dir.path(), "prints", PRINTS, "cpu", &["x=[-1 2]"]);
    let failed_err = String::from_utf8_lossy(&failed.stderr);
    assert!(
        failed_err.contains("error: assert (x (1) > 0) failed"),
        "{failed_err}"
    );
    if let Some(expected) = octave(dir.path(), &format!("prints({values});")) {
        assert_eq!(
            printed, expected,
            "m2cu printed:\n{printed}\nOctave printed:\n{expected}"
        );
    }
    if let Some(expected) = octave(
        dir.path(),
        "try, prints([-1 2]); catch e, printf('error: %s\\n', e.message); end",
    ) {
        assert!(failed_err.contains(&expected), "{failed_err} vs {expected}");
    }
}

/// The library returns a raised error as `Error::Raised` with Octave's message and the
/// identifier; `run` with fewer inputs than parameters is a call with that `nargin`.
#[test]
fn the_library_returns_the_message_and_identifier() {
    for backend in [Backend::Cpu, Backend::Emu] {
        let x = vec![("x".to_string(), Value::row(vec![1.0, -4.0]))];
        let options = m2cu::Options {
            file_name: "firstneg.m".into(),
            ..Default::default()
        };
        let e =
            m2cu::run(FIRSTNEG, &x, &options, &common::on(backend)).expect_err("x(2) is negative");
        match e {
            m2cu::Error::Runtime(m2cu_runtime::Error::Raised {
                identifier,
                message,
            }) => {
                assert_eq!(identifier, "firstneg:negative");
                assert_eq!(message, "x(2) = -4 is negative (-4%)");
            }
            other => panic!("{backend:?}: not a raised error: {other}"),
        }
        let ok = vec![("x".to_string(), Value::row(vec![1.0, 4.0]))];
        let result = m2cu::run(FIRSTNEG, &ok, &options, &common::on(backend)).expect("runs");
        assert_eq!(result.outputs[0].1.as_slice::<f64>(), Some(&[1.0, 2.0][..]));
        let scaled = vec![ok[0].clone(), ("scale".to_string(), Value::scalar(3.0))];
        let result = m2cu::run(FIRSTNEG, &scaled, &options, &common::on(backend)).expect("runs");
        assert_eq!(result.outputs[0].1.as_slice::<f64>(), Some(&[3.0, 6.0][..]));
        // A program prepared with nargin 1 does not silently ignore a `scale` given later.
        let program = m2cu::Program::prepare(FIRSTNEG, &ok, &options, &common::on(backend))
            .expect("prepares");
        let refused = program
            .call(&scaled)
            .expect_err("scale was not prepared for");
        assert!(
            refused.to_string().starts_with(
                "input `scale` was not passed when the program was prepared (nargin 1)"
            ),
            "{refused}"
        );
    }
}

/// Inputs are positional: a value for a later input without one for an earlier one is a usage
/// error naming both, not a call with a hole.
#[test]
fn inputs_after_a_missing_one_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let source = "function y = three(a, b, c)\nif nargin < 3, c = 0; end\nif nargin < 2, b = 0; end\ny = a + b + c;\nend\n";
    let o = run_file(dir.path(), "three", source, "cpu", &["a=1", "c=2"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("input `c` has a value but `b` before it has none"),
        "{err}"
    );
    let o = run_file(dir.path(), "three", source, "emu", &["a=1"]);
    assert!(o.status.success());
    assert!(String::from_utf8_lossy(&o.stdout).contains("y = 1"));
}

const DEFAULTS: &str = "function y = defaults(x, p, q)
narginchk(1, 3);
if nargin < 2 || p <= 0
  p = 2;
end
if ~exist('q', 'var') || q == 0
  q = 10;
end
y = x * p + q;
end
";

/// `narginchk` and defaults whose condition reads the input only when it was passed
/// (`nargin < 2 || p <= 0`): the left side decides at translation time, as `||` does at run
/// time. The values are Octave's.
#[test]
fn defaults_read_an_input_only_when_it_was_passed() {
    let dir = tempfile::tempdir().unwrap();
    let calls: [(&[&str], &str); 4] = [
        (&["x=1"], "1"),
        (&["x=1", "p=-1"], "1, -1"),
        (&["x=1", "p=3", "q=0"], "1, 3, 0"),
        (&["x=1", "p=3", "q=5"], "1, 3, 5"),
    ];
    let mut printed = String::new();
    for (sets, _) in calls {
        for backend in ["cpu", "emu"] {
            let o = run_file(dir.path(), "defaults", DEFAULTS, backend, sets);
            let out = String::from_utf8_lossy(&o.stdout).into_owned();
            assert!(o.status.success(), "{sets:?} on {backend}");
            if backend == "cpu" {
                printed.push_str(&out);
            }
        }
    }
    assert_eq!(printed, "y = 12\ny = 12\ny = 13\ny = 8\n");
    let script: String = calls
        .iter()
        .map(|(_, args)| format!("y = defaults({args})\n"))
        .collect();
    if let Some(expected) = octave(dir.path(), &script) {
        assert_eq!(printed, expected);
    }
}

/// The standard output of a run that must succeed.
fn succeeded(o: &Output, what: &str) -> String {
    assert!(
        o.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The standard error of a run that must stop with a run-time error (exit status 1) whose text
/// contains each of `expected`.
fn stopped_with(o: &Output, what: &str, expected: &[&str]) {
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{what}: {err}");
    for text in expected {
        assert!(err.contains(text), "{what}: expected `{text}` in {err}");
    }
}

/// Runs `source` (as `name.m`) on both paths with each case's `--set` values; each run must
/// stop with a run-time error whose text contains the case's message.
fn stops_on_both_paths(name: &str, source: &str, cases: &[(&[&str], &str)]) {
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        for (sets, message) in cases {
            let run = run_file(dir.path(), name, source, backend, sets);
            stopped_with(&run, backend, &[message]);
        }
    }
}

/// The whitespace-separated words of a run's output (`y = 1 2` is `["y", "=", "1", "2"]`).
fn words(out: &str) -> Vec<&str> {
    out.split_whitespace().collect()
}

const DIAGSUM: &str = "function [s, d] = diagsum(A)
arguments
  A (:,:) double
end
d = diag(A);
s = sum(d);
end
";

/// `diag` of an input declared `(:,:)` extracts a diagonal, as MATLAB Coder takes it; when the
/// input is a vector at run time, where MATLAB builds a matrix instead, the run stops with a
/// message that says how to declare it, on both paths, rather than return a column.
#[test]
fn diag_of_a_matrix_input_that_is_a_vector_stops() {
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let run = |sets: &[&str]| run_file(dir.path(), "diagsum", DIAGSUM, backend, sets);
        let out = succeeded(&run(&["A=[1 2; 3 4; 5 6]"]), backend);
        assert!(out.contains("s = 5"), "{backend}: {out}");
        for vector in ["A=[1 2 3]", "A=[1; 2]", "A=zeros(0, 0)"] {
            let what = format!("{backend} {vector}");
            let expected = ["diag of an array that m2cu took for a matrix", "diag(x(:))"];
            stopped_with(&run(&[vector]), &what, &expected);
        }
        succeeded(&run(&["A=7"]), "a 1-by-1 A is its own diagonal");
    }
}

const NORMS: &str = "function [one, two] = norms(A)
arguments
  A (:,:) double
end
one = norm(A, 1);
two = norm(A);
end
";

/// `norm` of an input declared `(:,:)` is a vector norm or a matrix norm by what the input is
/// when the program runs, as in MATLAB; the matrix 2-norm, which m2cu does not compute, stops
/// the run with a message naming the norms it does.
#[test]
fn norm_of_a_matrix_input_follows_its_run_time_shape() {
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let run = |sets: &[&str]| run_file(dir.path(), "norms", NORMS, backend, sets);
        let out = succeeded(&run(&["A=[3 -4]"]), backend);
        assert!(
            out.contains("one = 7") && out.contains("two = 5"),
            "{backend}: {out}"
        );
        let expected = ["not its 2-norm", "norm(A, 1)"];
        stopped_with(&run(&["A=[1 2; 3 4]"]), backend, &expected);
    }
}

const FINDER: &str = "function [i, j] = finder(A, n)
arguments
  A (:,:) double
  n (1,1) double
end
i = find(A);
j = find(A(:)', n, 'last');
end
";

/// `find` gives Octave's indices on both paths, in Octave's shape for an argument with no
/// extent known (`A (:,:)`: a row for a row, 0-by-0 for a 0-by-0 `A`); where Octave's result is
/// 0-by-0 and m2cu's row (of the row-typed `A(:)'`) cannot hold it, or `n` is not a count, the
/// run stops with the reason.
#[test]
fn find_stops_where_its_result_has_another_shape() {
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let run = |sets: &[&str]| run_file(dir.path(), "finder", FINDER, backend, sets);
        let out = succeeded(&run(&["A=[0 2; 3 0; 0 5]", "n=2"]), backend);
        assert_eq!(
            words(&out),
            ["i", "=", "2", "4", "6", "j", "=", "4", "6"],
            "{backend}"
        );
        let row = succeeded(&run(&["A=[0 1 1]", "n=1"]), backend);
        assert_eq!(
            words(&row),
            ["i", "=", "2", "3", "j", "=", "3"],
            "{backend}"
        );
        let empty = succeeded(&run(&["A=zeros(0, 0)", "n=1"]), backend);
        assert_eq!(
            words(&empty),
            ["i", "=", "[]", "j", "=", "1×0", "empty", "double", "matrix"],
            "{backend}"
        );
        for (a, n, message) in [
            ("A=0", "n=1", "find: Octave's result here is a row"),
            (
                "A=[1; 1]",
                "n=1.5",
                "find: N must be a non-negative integer",
            ),
        ] {
            stopped_with(&run(&[a, n]), &format!("{backend} {a} {n}"), &[message]);
        }
    }
}

const MTIMES: &str = "function y = apply(A, x)
arguments
  A (:,:) double
  x (:,1) double
end
y = A * x;
end
";

/// `A * x` multiplies on both paths; with inner extents that differ when the program runs, it
/// stops with MATLAB's message.
#[test]
fn a_matrix_product_checks_its_inner_extents() {
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let run = |sets: &[&str]| run_file(dir.path(), "apply", MTIMES, backend, sets);
        let out = succeeded(&run(&["A=[1 2; 3 4; 5 6]", "x=[1; -1]"]), backend);
        assert_eq!(words(&out), ["y", "=", "-1", "-1", "-1"], "{backend}");
        let expected = ["error: Incorrect dimensions for matrix multiplication."];
        stopped_with(
            &run(&["A=[1 2; 3 4; 5 6]", "x=[1; 2; 3]"]),
            backend,
            &expected,
        );
    }
}

const DOTTED: &str = "function d = dotted(x, y)
arguments
  x (1,:) double
  y (:,1) double
end
d = dot(x, y);
end
";

/// `dot` of vectors of different lengths stops with Octave's message on both paths.
#[test]
fn dot_of_vectors_of_different_lengths_stops() {
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let run = |sets: &[&str]| run_file(dir.path(), "dotted", DOTTED, backend, sets);
        let out = succeeded(&run(&["x=[1 2 3]", "y=[4; 5; 6]"]), backend);
        assert!(out.contains("d = 32"), "{backend}: {out}");
        let expected = ["error: dot: sizes of X and Y must match"];
        stopped_with(&run(&["x=[1 2 3]", "y=[4; 5]"]), backend, &expected);
    }
}

const SHIFTED: &str = "function [y, s] = shifted(x, k)
arguments
  x (1,:) double
  k (1,1) double
end
y = bitshift(x, k);
s = sort(x, 'sideways');
end
";

/// A shift count that is no integer stops `bitshift` with Octave's message, in a kernel too;
/// so does a sort direction that is neither 'ascend' nor 'descend' (m2cu's own `sort.m`).
#[test]
fn bitshift_and_sort_check_their_arguments() {
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let run = |sets: &[&str]| run_file(dir.path(), "shifted", SHIFTED, backend, sets);
        let expected = ["error: bitshift: K must be a scalar or array of integers"];
        stopped_with(&run(&["x=[1 2 3]", "k=0.5"]), backend, &expected);
        let expected = ["error: sort: MODE must be either \"ascend\" or \"descend\""];
        stopped_with(&run(&["x=[1 2 3]", "k=1"]), backend, &expected);
    }
}

const RUNNING: &str = "function w = running(x, d)
arguments
  x (1,:) double
  d (1,1) double
end
w = cummax(x, d);
end
";

/// A dimension that is not a positive integer stops `cummax` (m2cu's own
/// `m2cu_cumextreme.m`) with Octave's message, on both paths.
#[test]
fn cummax_checks_its_dimension() {
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        for d in ["d=0", "d=-1", "d=1.5"] {
            let run = run_file(dir.path(), "running", RUNNING, backend, &["x=[1 2 3]", d]);
            stopped_with(
                &run,
                backend,
                &["error: cummax: DIM must be a valid dimension"],
            );
        }
    }
}

const LOCATED: &str = "function [m, k] = located(A, d)
arguments
  A (:,:) double
  d (1,1) double
end
[m, k] = min(A, [], d);
end
";

/// `[m, k] = min(A, [], d)` (m2cu's own `m2cu_located.m`) stops with Octave's message for a
/// dimension that is not a positive integer, and with m2cu's reason for an empty line, where
/// MATLAB and Octave 7 give results of different sizes; on both paths.
#[test]
fn located_min_checks_its_dimension_and_empty_lines() {
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        for d in ["d=0", "d=1.5"] {
            let run = run_file(
                dir.path(),
                "located",
                LOCATED,
                backend,
                &["A=[1 2; 3 4]", d],
            );
            stopped_with(
                &run,
                backend,
                &["error: min: DIM must be a valid dimension"],
            );
        }
        let run = run_file(
            dir.path(),
            "located",
            LOCATED,
            backend,
            &["A=zeros(0, 3)", "d=1"],
        );
        stopped_with(
            &run,
            backend,
            &["error: m2cu: [m, k] = max(...) or min(...) along an empty dimension"],
        );
    }
}

const TURNED: &str = "function [r, p] = turned(A, k, order)
arguments
  A (:,:) double
  k (1,1) double
  order (1,3) double
end
r = rot90(A, k);
p = permute(A, order);
end
";

/// `rot90` and `permute` (m2cu's own `rot90.m`, `permute.m`) stop with Octave's messages for a
/// turn that is not a whole number and an order that is not a permutation, on both paths.
#[test]
fn rot90_and_permute_check_their_arguments() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "k=1.5",
            "order=[1 2 3]",
            "error: rot90: K must be a single real integer",
        ),
        (
            "k=1",
            "order=[1 1 2]",
            "error: permute: permutation vector cannot contain identical elements",
        ),
        (
            "k=1",
            "order=[1 2 4]",
            "error: permute: invalid permutation vector",
        ),
    ];
    for backend in ["cpu", "emu"] {
        for (k, order, message) in cases {
            let run = run_file(
                dir.path(),
                "turned",
                TURNED,
                backend,
                &["A=[1 2; 3 4]", k, order],
            );
            stopped_with(&run, backend, &[message]);
        }
    }
}

const DIVIDED: &str = "function q = divided(a, b)
arguments
  a (1,:) int32
  b (1,:) int32
end
q = idivide(a, b);
end
";

/// `idivide` (m2cu's own `idivide.m`) stops where Octave 7 and MATLAB differ, with m2cu's
/// reason: a 'fix' of a negative dividend whose quotient is not whole (whatever the divisor's
/// sign), a nonzero value divided by zero.
#[test]
fn idivide_stops_where_octave_and_matlab_differ() {
    let a = "a=int32([4 -7])";
    stops_on_both_paths(
        "divided",
        DIVIDED,
        &[
            (
                &[a, "b=int32([2 2])"],
                "error: m2cu: idivide 'fix' of a negative dividend",
            ),
            (
                &[a, "b=int32([2 -2])"],
                "error: m2cu: idivide 'fix' of a negative dividend",
            ),
            (
                &[a, "b=int32([1 0])"],
                "error: m2cu: idivide of a nonzero value by zero",
            ),
        ],
    );
}

const BINNED: &str = "function c = binned(x, edges)
arguments
  x (1,:) double
  edges (1,:) double
end
c = histcounts(x, edges);
end
";

/// `histcounts` (m2cu's own `histcounts.m`) stops with m2cu's reason for one edge known only
/// at run time (MATLAB reads it as a count of bins) and for unsorted edges, on both paths.
#[test]
fn histcounts_checks_its_edges() {
    let x = "x=[1 2 3]";
    stops_on_both_paths(
        "binned",
        BINNED,
        &[
            (
                &[x, "edges=5"],
                "error: m2cu: histcounts with fewer than two edges",
            ),
            (
                &[x, "edges=[1 3 2]"],
                "error: m2cu: histcounts: EDGES must be sorted",
            ),
        ],
    );
}

const WRAPPED: &str = "function y = wrapped(x, k)
arguments
  x (1,:) double
  k (1,1) double
end
y = circshift(x, k);
end
";

/// A shift that is not a whole number stops `circshift` (m2cu's own `circshift.m`) with
/// Octave's message, on both paths.
#[test]
fn circshift_checks_its_shift() {
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let run = run_file(
            dir.path(),
            "wrapped",
            WRAPPED,
            backend,
            &["x=[1 2 3]", "k=1.5"],
        );
        stopped_with(
            &run,
            backend,
            &["error: circshift: all values of N must be integers"],
        );
        let run = run_file(
            dir.path(),
            "wrapped",
            WRAPPED,
            backend,
            &["x=[1 2 3]", "k=-4"],
        );
        let out = succeeded(&run, backend);
        assert!(words(&out).ends_with(&["2", "3", "1"]), "{backend}: {out}");
    }
}

const SUMS: &str = "function [s, p] = sums(A)
arguments
  A (:,:) double
end
s = sum(A);
p = prod(A);
end
";

/// `sum(A)` of a matrix whose type does not tell whether it is a row reduces along the
/// dimension MATLAB picks when the program runs: a row along 2, anything else along 1, a
/// 0-by-0 value to one result.
#[test]
fn a_default_dimension_is_chosen_at_run_time() {
    let dir = tempfile::tempdir().unwrap();
    let cases: [(&str, &[&str]); 4] = [
        ("A=[1 2 3]", &["s", "=", "6", "p", "=", "6"]),
        ("A=[1 2;3 4]", &["s", "=", "4", "6", "p", "=", "3", "8"]),
        ("A=zeros(0,0)", &["s", "=", "0", "p", "=", "1"]),
        (
            "A=zeros(0,3)",
            &["s", "=", "0", "0", "0", "p", "=", "1", "1", "1"],
        ),
    ];
    for backend in ["cpu", "emu"] {
        for (set, expected) in cases {
            let out = succeeded(
                &run_file(dir.path(), "sums", SUMS, backend, &[set]),
                backend,
            );
            assert_eq!(words(&out), expected, "{backend} {set}");
        }
    }
}

const SCALAR_INDEXED: &str = "function s = f(x, n)
arguments
  x (1,1) double
  n (1,1) double
end
s = 0;
for i = 1:n
  s = s + x(i) + x(1, i) + x(:);
end
end
";

/// `x(i)` of a scalar `x` is `x` while `i` is 1, and stops with MATLAB's index error after,
/// as MATLAB runs it.
#[test]
fn a_scalar_indexed_by_a_variable_checks_the_index() {
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let run = |n: &str| run_file(dir.path(), "f", SCALAR_INDEXED, backend, &["x=5", n]);
        let out = succeeded(&run("n=1"), backend);
        assert_eq!(words(&out), ["s", "=", "15"], "{backend}");
        let expected = ["error: Index exceeds the number of array elements."];
        stopped_with(&run("n=3"), backend, &expected);
    }
}

const LOCATE: &str = "function k = locate(r, c)
arguments
  r (1,1) double
  c (1,1) double
end
k = sub2ind([3 4], r, c);
end
";

/// A subscript past its extent or not a positive integer stops `sub2ind` (m2cu's own
/// `sub2ind.m`) with Octave's message, the row's before the column's, on both paths.
#[test]
fn sub2ind_checks_its_subscripts() {
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let run = |sets: &[&str]| run_file(dir.path(), "locate", LOCATE, backend, sets);
        let expected = ["error: index (4,_): out of bound 3 (dimensions are 3x4)"];
        stopped_with(&run(&["r=4", "c=9"]), backend, &expected);
        let expected = [
            "error: index (_,1.5): subscripts must be either integers 1 to (2^63)-1 or logicals",
        ];
        stopped_with(&run(&["r=2", "c=1.5"]), backend, &expected);
        let out = succeeded(&run(&["r=2", "c=3"]), backend);
        assert_eq!(words(&out), ["k", "=", "8"], "{backend}");
    }
}

const SOLVED: &str = "function [x, y, d] = solved(A, b)
arguments
  A (:,:) double
  b (:,:) double
end
x = A \\ b;
y = b.' / A;
d = det(A);
end
";

/// `A \ b`, `b / A` and `det` (m2cu's own `mldivide.m`, `mrdivide.m`, `det.m`) stop where
/// MATLAB's result is not Octave's or m2cu does not solve: a matrix that is not square (a
/// least-squares solve), a singular one, one with NaN; sizes that do not agree stop with
/// MATLAB's message; a 1-by-1 `A` divides each element, as MATLAB does.
#[test]
fn linear_solves_stop_where_they_cannot_give_matlabs_result() {
    let b = "b=[1; 2]";
    stops_on_both_paths(
        "solved",
        SOLVED,
        &[
            (&["A=ones(2, 3)", b], "error: m2cu: A \\ b with a 2-by-3 A has fewer equations than unknowns"),
            (&["A=[1 2; 2 4; 3 6]", "b=[1; 2; 3]"], "error: m2cu: A \\ b of a 3-by-2 A of deficient rank"),
            (&["A=[1 2; 2 4]", b], "error: m2cu: the matrix is singular: MATLAB warns and returns Inf or NaN, Octave returns a least-squares solution"),
            (&["A=eye(3)", b], "error: Matrix dimensions must agree."),
            (&["A=[1 NaN; 0 1]", b], "error: m2cu: the matrix holds Inf or NaN"),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let run = run_file(dir.path(), "solved", SOLVED, backend, &["A=4", "b=[2 6]"]);
        let out = succeeded(&run, backend);
        let words = words(&out);
        for expected in [
            ["x", "=", "0.5000", "1.5000"],
            ["y", "=", "0.5000", "1.5000"],
        ] {
            assert!(words.windows(4).any(|w| w == expected), "{backend}: {out}");
        }
        assert!(words.ends_with(&["d", "=", "4"]), "{backend}: {out}");
    }
}

const POWERED: &str = "function [y, P] = powered(x, j, A, p)
arguments
  x (1,:) double
  j (1,:) double
  A (:,:) double
  p (1,1) double
end
y = zeros(1, 2);
y(1) = x(j);
P = A ^ p;
end
";

/// `y(k) = x(j)` with an index array `j` takes the one element MATLAB assigns, and stops with
/// MATLAB's message when `j` selects another number of elements; `A ^ p` (m2cu's own
/// `mpower.m`) stops where MATLAB's result needs what m2cu does not compute (eigenvalues for a
/// fractional power) and with MATLAB's message for a matrix that is not square.
#[test]
fn one_element_assignments_and_matrix_powers_check_their_operands() {
    let (x, a) = ("x=[5 6 7]", "A=[2 0; 1 3]");
    stops_on_both_paths(
        "powered",
        POWERED,
        &[
            (&[x, "j=[1 2]", a, "p=2"], "error: Unable to perform assignment because the left and right sides have a different number of elements."),
            (&[x, "j=[2]", a, "p=0.5"], "error: m2cu: a matrix to a power that is not a whole number needs its eigenvalues"),
            (&[x, "j=[2]", "A=ones(2, 3)", "p=2"], "error: Incorrect dimensions for raising a matrix to a power."),
        ],
    );
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let run = run_file(
            dir.path(),
            "powered",
            POWERED,
            backend,
            &[x, "j=[3]", a, "p=-1"],
        );
        let out = succeeded(&run, backend);
        let words = words(&out);
        assert!(
            words.windows(4).any(|w| w == ["y", "=", "7", "0"]),
            "{backend}: {out}"
        );
        assert!(
            words.ends_with(&["P", "=", "0.5000", "0", "-0.1667", "0.3333"]),
            "{backend}: {out}"
        );
    }
}

const REALPOWER: &str = "function c = realpower(a, b)
arguments
  a (1,:) double
  b (1,:) double
end
c = realpow(a, b);
end
";

/// `realpow` (m2cu's own `realpow.m`) stops with Octave's message where a result would be
/// complex: a negative base to a power that is not whole, NaN included, and -Inf to a half.
#[test]
fn realpow_stops_where_a_result_would_be_complex() {
    let message = "error: realpow: produced complex result";
    stops_on_both_paths(
        "realpower",
        REALPOWER,
        &[
            (&["a=[4 -8]", "b=[0.5 1/3]"], message),
            (&["a=[2 -2]", "b=[1 NaN]"], message),
            (&["a=[1 -Inf]", "b=[2 0.5]"], message),
        ],
    );
}

const COEFFS: &str = "function r = coeffs(M)
arguments
  M (:,:) double
end
fprintf('[%s]\\n', num2str(M));
r = 1;
end
";

/// `num2str` of an array whose rows are unknown at translation time prints Octave's columns
/// for a row and stops with m2cu's reason for a matrix (Octave's text would be rows of text).
#[test]
fn num2str_of_a_matrix_in_printed_text_stops() {
    stops_on_both_paths(
        "coeffs",
        COEFFS,
        &[(
            &["M=[1 2; 3 4]"],
            "error: m2cu: num2str of a matrix in printed text is not supported yet",
        )],
    );
}

const SCALED: &str = "function y = scaled(w, C)
arguments
  w (:,1) double
  C (:,:) double
end
y = w' * C;
end
";

/// `w' * C` with a `w` that is 1-by-1 only when the program runs: MATLAB scales `C`, a result
/// the translated 1-by-n shape cannot hold, so the run stops with m2cu's reason (not MATLAB's
/// "Incorrect dimensions", which MATLAB would not say); inner extents that differ otherwise
/// give MATLAB's message. Found by the adversarial test (fixture tiledprod, len=1).
#[test]
fn a_product_with_a_scalar_known_only_at_run_time_stops_with_m2cus_reason() {
    stops_on_both_paths(
        "scaled",
        SCALED,
        &[
            (
                &["w=2", "C=[1 2; 3 4]"],
                "error: m2cu: an operand of `*` is 1-by-1 only when the program runs",
            ),
            (
                &["w=[2; 1; 1]", "C=[1 2; 3 4]"],
                "error: Incorrect dimensions for matrix multiplication.",
            ),
        ],
    );
}

const FIRST_ABOVE: &str = "function first = first_above(x, t)
arguments
  x (1,:) double
  t (1,1) double
end
first = 0;
k = find(x > t);
if ~isempty(k)
  first = k;
end
end
";

/// A scalar assigned a vector inside a branch (`first = k` with `k = find(...)`) takes its one
/// element, MATLAB's value, when it holds one, and stops with m2cu's reason when it holds
/// more (MATLAB would make `first` an array, which one type per variable cannot hold).
#[test]
fn a_scalar_assigned_a_vector_in_a_branch_takes_its_one_element() {
    stops_on_both_paths(
        "first_above",
        FIRST_ABOVE,
        &[(&["x=[1 5 7]", "t=4"], "error: m2cu: a variable that was a scalar is assigned an array here that does not hold exactly one element")],
    );
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        for (x, expected) in [("x=[1 5 2]", "2"), ("x=[1 2 3]", "0")] {
            let run = run_file(dir.path(), "first_above", FIRST_ABOVE, backend, &[x, "t=4"]);
            let out = succeeded(&run, backend);
            assert!(
                words(&out).ends_with(&["first", "=", expected]),
                "{backend}: {out}"
            );
        }
    }
}

const CPRODUCT: &str = "function [C, S] = cproduct(A, B, M)
arguments
  A (:,:) double
  B (:,:) double
  M (:,:) double
end
C = complex(A, 1) * B;
S = gpucoder.reduce(M, @plus, 'dim', 2);
end
";

/// Found by the adversarial test: a complex matrix product of an Inf or NaN stops with m2cu's
/// reason (BLAS spreads them through steps of its own, and Octave's result follows BLAS), and
/// `gpucoder.reduce` along the rows of a matrix with one row gives its one sum.
#[test]
fn complex_products_of_non_finite_values_stop_and_one_line_reduces() {
    stops_on_both_paths(
        "cproduct",
        CPRODUCT,
        &[(
            &["A=[1 Inf; 2 3]", "B=[1 0; 0 1]", "M=[1 2]"],
            "error: m2cu: a complex matrix product of Inf or NaN values",
        )],
    );
    let dir = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let run = run_file(
            dir.path(),
            "cproduct",
            CPRODUCT,
            backend,
            &["A=[1 2]", "B=[3; 4]", "M=[1 2 4]"],
        );
        let out = succeeded(&run, backend);
        assert!(words(&out).ends_with(&["S", "=", "7"]), "{backend}: {out}");
        assert!(
            words(&out)
                .windows(5)
                .any(|w| w == ["C", "=", "11", "+", "7i"]),
            "{backend}: {out}"
        );
    }
}

const WALK: &str = "function y = walk(x, y)
% y(i) cannot be proven in range (i runs over x): checked once before the loop
for i = 1:numel(x)
  fprintf('%d\\n', i);
  y(i) = y(i) + x(i);
end
end
";

const OFFSET: &str = "function z = offset(x, y)
% a parallel loop reading y(i + 1), and a loop running down over y(i - 1)
z = zeros(size(x));
for i = 1:numel(x)
  z(i) = x(i) * y(i + 1);
end
for i = numel(x):-1:2
  z(i) = z(i) - y(i - 1);
end
end
";

const CORNER: &str = "function s = corner(A, m, n)
% A(i, j) over ranges given by inputs
s = 0;
for j = 1:n
  for i = 1:m
    s = s + A(i, j);
  end
end
end
";

/// Index checks that cannot be proven are checked once before their loop (loop versioning,
/// `m2cu_analysis::guards`): when that check fails, the loop runs with every check, so it
/// fails at the same iteration with the same message as MATLAB, after the same output (the
/// prints of the iterations before); when it passes, the results are the loop's.
#[test]
fn hoisted_index_checks_fail_at_the_same_iteration() {
    let options = |args: &[&str]| m2cu::Options {
        args: args.iter().map(|a| a.to_string()).collect(),
        ..Default::default()
    };
    for (source, args) in [
        (WALK, &["x=double(1,:)", "y=double(1,:)"][..]),
        (OFFSET, &["x=double(1,:)", "y=double(1,:)"]),
        (CORNER, &["A=double(:,:)", "m=double", "n=double"]),
    ] {
        let c = m2cu::translate(source, &options(args)).expect("translates");
        assert!(
            c.generated.c_source.contains("checked once"),
            "a guarded loop in {source}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let past_end = "Index exceeds the number of array elements.";
    for backend in ["cpu", "emu"] {
        let short = run_file(
            dir.path(),
            "walk",
            WALK,
            backend,
            &["x=[1 2 3 4]", "y=[10 20]"],
        );
        stopped_with(&short, backend, &[past_end]);
        assert_eq!(
            String::from_utf8_lossy(&short.stdout),
            "1\n2\n3\n",
            "{backend}"
        );
        let fits = run_file(
            dir.path(),
            "walk",
            WALK,
            backend,
            &["x=[1 2]", "y=[10 20 30]"],
        );
        let out = succeeded(&fits, backend);
        assert_eq!(words(&out)[..2], ["1", "2"], "{backend}: {out}");
        assert_eq!(
            words(&out)[2..],
            ["y", "=", "11", "22", "30"],
            "{backend}: {out}"
        );
        let offset = |y: &str| run_file(dir.path(), "offset", OFFSET, backend, &["x=[1 2 3]", y]);
        stopped_with(&offset("y=[1 2 3]"), backend, &[past_end]);
        let out = succeeded(&offset("y=[1 2 3 4]"), backend);
        assert_eq!(words(&out), ["z", "=", "2", "5", "10"], "{backend}: {out}");
        let corner = |m: &str, n: &str| {
            let sets = ["A=[1 2 3; 4 5 6]", m, n];
            run_file(dir.path(), "corner", CORNER, backend, &sets)
        };
        // A subscript of two: MATLAB names its position (and, on the host, the bound).
        let first = "Index in position 1 exceeds array bounds.";
        let second = "Index in position 2 exceeds array bounds.";
        stopped_with(&corner("m=3", "n=1"), backend, &[first]);
        stopped_with(&corner("m=2", "n=4"), backend, &[second]);
        let out = succeeded(&corner("m=2", "n=2"), backend);
        assert_eq!(words(&out), ["s", "=", "12"], "{backend}: {out}");
        let none = succeeded(&corner("m=0", "n=5"), backend);
        assert_eq!(
            words(&none),
            ["s", "=", "0"],
            "{backend}: no iteration, no error"
        );
    }
    if let Some(printed) = octave(
        dir.path(),
        "try, walk([1 2 3 4], [10 20]); catch e, printf('error\\n'); end",
    ) {
        assert_eq!(
            printed, "1\n2\n3\nerror\n",
            "Octave stops at the same iteration"
        );
    }
}

/// A size too large to allocate stops the run at once, also where the program goes on to a
/// loop over that size: `magic(realmax)` allocates `zeros(n, n)` (too large), and the parallel
/// loop `for k = 1:n*n` after it (which does not test the status at each iteration) once ran on
/// the failed sizes instead of ending the call with the error.
#[test]
fn a_size_too_large_stops_before_the_loops_over_it() {
    let source = "function y = big(n)\nA = magic(n);\ny = numel(A);\nend\n";
    for backend in [Backend::Cpu, Backend::Emu] {
        let options = m2cu::Options {
            file_name: "big.m".into(),
            ..Default::default()
        };
        let run_options = m2cu::RunOptions {
            backend,
            ..Default::default()
        };
        let inputs = vec![("n".to_string(), Value::scalar(f64::MAX))];
        let limit = std::time::Duration::from_secs(120);
        let ran = common::run_within(source.into(), inputs, options, run_options, limit)
            .unwrap_or_else(|| panic!("{backend:?}: still running after 120 s"));
        let e = ran.expect_err("magic(realmax) stops");
        assert!(
            e.to_string().contains("maximum possible variable size"),
            "{backend:?}: {e}"
        );
    }
}
