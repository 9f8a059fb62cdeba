//! The `m2cu` binary as a user meets it: exit statuses, messages, files written.

mod common;

use std::process::Output;

use common::m2cu;
use m2cu::{Backend, Value};
use serde_json::json;

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn check_prints_the_report() {
    let o = m2cu(&["check", "fixtures/e2e/runsum.m", "--args", "v=double(1,:)"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        out.contains("sequential: `c` is written in one iteration and read in another"),
        "{out}"
    );
    // Compiler-style notes: the loop header and the two accesses, marked in the source.
    assert!(
        out.contains("note[sequential]") && out.contains("runsum.m:5:1"),
        "{out}"
    );
    assert!(
        out.contains("`c` written here") && out.contains("read here"),
        "{out}"
    );
}

#[test]
fn check_json_prints_one_object_per_function() {
    let o = m2cu(&[
        "check",
        "fixtures/e2e/runsum.m",
        "--args",
        "v=double(1,:)",
        "--format",
        "json",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("valid JSON");
    let lp = &v["functions"][0]["loops"][0];
    assert_eq!(v["functions"][0]["name"], "runsum");
    assert_eq!(lp["verdict"], "sequential");
    assert_eq!(lp["line"], 5);
    assert_eq!(lp["witness"]["var"], "c");
    assert_eq!(lp["witness"]["write"], "6:3");
    assert_eq!(lp["witness"]["read"], "6:10");
    assert_eq!(lp["witness"]["distance"], "1");
    assert_eq!(lp["kernel"], serde_json::Value::Null);
    assert_eq!(lp["reason_code"], "S08");
    assert_eq!(lp["overridden_code"], serde_json::Value::Null);
}

#[test]
fn check_reports_source_errors_with_location_and_help() {
    let o = m2cu(&["check", "fixtures/check/err/E0135_vector_made_matrix.m"]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("error[E0135]"), "{err}");
    assert!(err.contains("E0135_vector_made_matrix.m:8:3"), "{err}");
    assert!(
        err.contains("help: create `y` as a matrix from the start"),
        "{err}"
    );
}

/// `check`/`translate` translate for one call shape, as `run` does for its inputs: `--nargin 1`
/// leaves `level` to the function's `if nargin < 2` default.
#[test]
fn check_and_translate_take_the_call_shape_from_nargin() {
    let check = |extra: &[&str]| {
        let mut args = vec![
            "check",
            "fixtures/e2e/rgbgray.m",
            "--args",
            "img=uint8(:,:,:)",
        ];
        args.extend_from_slice(extra);
        m2cu(&args)
    };
    let (_, err) = text(&check(&[]));
    assert!(
        err.contains("error[E0101]") && err.contains("`--nargin 1`"),
        "{err}"
    );
    let o = check(&["--nargin", "1", "--emit", "ir"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("level = 0.9"), "{out}");
    let (_, err) = text(&check(&["--nargin", "3"]));
    assert!(err.contains("Too many input arguments"), "{err}");
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    let o = m2cu(&[
        "translate",
        "fixtures/e2e/rgbgray.m",
        "--args",
        "img=uint8(:,:,:)",
        "--nargin",
        "1",
        "-o",
        out_dir,
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
}

#[test]
fn translate_writes_four_files() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().to_str().unwrap();
    let mut args = vec!["translate", "fixtures/e2e/saxpy.m"];
    args.extend(common::SAXPY_ARGS);
    args.extend(["-o", out_dir]);
    let o = m2cu(&args);
    assert!(o.status.success(), "{:?}", text(&o));
    for ext in ["kernels.cu", "c", "h", "cu"] {
        let path = dir.path().join(format!("saxpy.{ext}"));
        let body =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(body.contains("saxpy"), "{}", path.display());
    }
    let kernels = std::fs::read_to_string(dir.path().join("saxpy.kernels.cu")).unwrap();
    assert!(kernels.contains("extern \"C\" __global__") && !kernels.contains("#include"));
}

#[test]
fn no_bounds_check_removes_the_index_checks() {
    // `v(i)` for `i = 1:n`: nothing ties `n` to `v`'s length, so the index is checked.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("firstn.m");
    std::fs::write(
        &file,
        "function s = firstn(v, n)\ns = 0;\nfor i = 1:n\n  s = s + v(i);\nend\nend\n",
    )
    .unwrap();
    let translate = |file: &std::path::Path, extra: &[&str]| {
        let out = tempfile::tempdir().unwrap();
        let mut args = vec![
            "translate",
            file.to_str().unwrap(),
            "--args",
            "v=double(1,:)",
            "-o",
            out.path().to_str().unwrap(),
        ];
        if file.ends_with("firstn.m") {
            args.extend(["--args", "n=double"]);
        }
        args.extend_from_slice(extra);
        let o = m2cu(&args);
        assert!(o.status.success(), "{:?}", text(&o));
        let stem = file.file_stem().unwrap().to_str().unwrap();
        let read = |ext: &str| std::fs::read_to_string(out.path().join(format!("{stem}.{ext}")));
        (read("c").unwrap(), read("kernels.cu").unwrap())
    };
    // The lines that read `v`.
    let reads = |code: &str| -> Vec<String> {
        code.lines()
            .filter(|l| l.contains("v["))
            .map(str::to_string)
            .collect()
    };
    let all = |code: &[&String], want: &str| {
        for code in code {
            let lines = reads(code);
            assert!(
                !lines.is_empty() && lines.iter().all(|l| l.contains(want)),
                "{want}: {lines:?}"
            );
        }
    };
    let (c, cu) = translate(&file, &[]);
    all(&[&cu], "m2cu_idx");
    // The C program checks `v(i)` once before the loop and runs a copy without the check when
    // that passes, keeping the loop with every check for when it fails.
    let c_reads = reads(&c);
    assert!(
        c.contains("checked once")
            && c_reads.iter().any(|l| l.contains("m2cu_idx"))
            && c_reads.iter().any(|l| l.contains("v[((i) - 1)]")),
        "{c_reads:?}"
    );
    let (c, cu) = translate(&file, &["--no-bounds-check"]);
    assert!(!c.contains("checked once"), "no versions without checks");
    all(&[&c, &cu], "v[((i) - 1)]");
    // `v(i)` for `i = 1:length(v)` with `v` a row is always in range: no check to remove.
    let (c, cu) = translate(std::path::Path::new("fixtures/e2e/vecsum.m"), &[]);
    all(&[&c, &cu], "v[((i) - 1)]");
}

#[test]
fn run_verbose_says_where_the_time_went_and_threads_are_a_setting() {
    for threads in ["1", "2"] {
        let o = m2cu(&[
            "run",
            "fixtures/e2e/vecsum.m",
            "--backend",
            "cpu",
            "--set",
            "v=mod(1:100000, 7)",
            "--threads",
            threads,
            "--verbose",
        ]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        assert_eq!(
            out.trim(),
            "s = 300000",
            "{threads} threads (Octave: the same)"
        );
        for phase in [
            "reading the file and inputs",
            "translating",
            "building or loading from the cache",
            "the call",
            "printing the outputs",
        ] {
            assert!(err.contains(phase), "{phase}: {err}");
        }
    }
    let o = m2cu(&["run", "fixtures/e2e/vecsum.m", "--threads", "0"]);
    assert!(!o.status.success());
}

#[test]
fn run_with_set_prints_outputs_like_matlab() {
    let o = m2cu(&[
        "run",
        "fixtures/e2e/vecsum.m",
        "--backend",
        "cpu",
        "--set",
        "v=[1 2 3.5]",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(out.trim(), "s = 6.5000");
}

#[test]
fn run_writes_a_mat_file_with_classes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.mat");
    let o = m2cu(&[
        "run",
        "fixtures/e2e/bitops.m",
        "--backend",
        "cpu",
        "--set",
        "u=uint32([12 10 255])",
        "--output",
        path.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{:?}", text(&o));
    let values = m2cu::read_mat_file(&path).unwrap();
    assert_eq!(values[0].0, "ba");
    assert_eq!(values[0].1.as_slice::<u32>(), Some(&[8u32][..]));
    assert_eq!(values[1].1.as_slice::<u32>(), Some(&[255u32][..]));
}

/// A char input from `--set` (a one-character text is a row, so `s(2:end)` works) and char
/// outputs written to a MAT-file with class char, on the C path and the emulated GPU.
#[test]
fn run_takes_char_inputs_and_writes_char_outputs() {
    for backend in ["cpu", "emu"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.mat");
        let o = m2cu(&[
            "run",
            "fixtures/e2e/caesar.m",
            "--backend",
            backend,
            "--set",
            "msg='Abz'",
            "--set",
            "shift=1",
            "--output",
            path.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{backend}: {:?}", text(&o));
        let values = m2cu::read_mat_file(&path).unwrap();
        assert_eq!(values[0].1, m2cu::Value::char_row("Bca"), "{backend}");
        assert_eq!(values[1].1, m2cu::Value::char_row("Abz"), "{backend}");
    }
    let o = m2cu(&[
        "run",
        "fixtures/e2e/digitparse.m",
        "--backend",
        "cpu",
        "--set",
        "s='7'",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        out.contains("value = 7") && out.contains("'00000007'"),
        "{out}"
    );
}

#[test]
fn gpu_backend_without_gpu_is_a_clear_error() {
    if let m2cu_runtime::GpuStatus::Available { .. } = m2cu_runtime::gpu_status() {
        eprintln!("skipping: this machine has a GPU");
        return;
    }
    let o = m2cu(&[
        "run",
        "fixtures/e2e/vecsum.m",
        "--backend",
        "gpu",
        "--set",
        "v=[1 2]",
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("--backend gpu: no usable GPU"), "{err}");
    assert!(err.contains("help: use --backend cpu"), "{err}");
}

#[test]
fn auto_backend_falls_back_with_a_notice() {
    if let m2cu_runtime::GpuStatus::Available { .. } = m2cu_runtime::gpu_status() {
        eprintln!("skipping: this machine has a GPU");
        return;
    }
    let o = m2cu(&["run", "fixtures/e2e/vecsum.m", "--set", "v=ones(1,10)"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert_eq!(
        err.lines()
            .filter(|l| l.contains("running on the CPU"))
            .count(),
        1,
        "{err}"
    );
    assert_eq!(out.trim(), "s = 10");
}

#[test]
fn runtime_errors_use_matlab_wording() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("oob.m");
    std::fs::write(
        &file,
        "function s = oob(v)\n  s = 0;\n  for i = 1:numel(v) + 1\n    s = s + v(i);\n  end\nend\n",
    )
    .unwrap();
    let o = m2cu(&[
        "run",
        file.to_str().unwrap(),
        "--backend",
        "cpu",
        "--set",
        "v=[1 2 3]",
    ]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("Index exceeds the number of array elements."),
        "{err}"
    );
}

#[test]
fn bad_user_input_never_panics() {
    let cases: &[&[&str]] = &[
        &["run", "fixtures/e2e/vecsum.m", "--set", "v=rand(1,"],
        &["run", "fixtures/e2e/vecsum.m", "--set", "v"],
        &["run", "fixtures/e2e/vecsum.m", "--set", "v=foo(3)"],
        &["run", "fixtures/e2e/vecsum.m"],
        &["check", "fixtures/e2e/vecsum.m", "--args", "v=double(1,"],
        &["check", "fixtures/e2e/vecsum.m", "--args", "v=cmplx(1,:)"],
        &[
            "check",
            "fixtures/e2e/vecsum.m",
            "--args",
            "v=complex(1,:,:,:)",
        ],
        &["check", "no/such/file.m"],
        &[
            "run",
            "fixtures/e2e/vecsum.m",
            "--inputs",
            "no/such/file.mat",
        ],
        &["parse", "fixtures/parse/err/E0021_missing_end.m"],
    ];
    for args in cases {
        let o = m2cu(args);
        let (_, err) = text(&o);
        assert!(
            matches!(o.status.code(), Some(1) | Some(2)),
            "{args:?}: {:?}\n{err}",
            o.status.code()
        );
        assert!(err.contains("error"), "{args:?}: {err}");
    }
}

#[test]
fn emu_options_choose_the_emulated_device() {
    let o = m2cu(&[
        "run",
        "fixtures/analysis/plan_colmax.m",
        "--backend",
        "emu",
        "--emu-sms",
        "1",
        "--emu-schedule",
        "reverse",
        "--emu-lanes",
        "warp",
        "--set",
        "A=ones(2100,3)",
        "--set",
        "w=[1 2 3]",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let words: Vec<&str> = out.split_whitespace().collect();
    assert!(
        words.ends_with(&["total", "=", "2100", "2100", "2100"]),
        "{out}"
    );
    assert!(err.contains("emu backend"), "{err}");
}

#[test]
fn emu_options_need_the_emu_backend() {
    let base = ["run", "fixtures/e2e/vecsum.m", "--set", "v=[1 2]"];
    let cases: &[(&[&str], &str)] = &[
        (
            &["--backend", "cpu", "--emu-lanes", "block"],
            "need --backend emu",
        ),
        (&["--emu-schedule", "in-order"], "need --backend emu"),
        (&["--backend", "emu", "--emu-sms", "0"], "--emu-sms"),
        (&["--backend", "emu", "--emu-lanes", "3"], "--emu-lanes"),
    ];
    for (extra, message) in cases {
        let o = m2cu(&[&base[..], extra].concat());
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(2), "{extra:?}: {err}");
        assert!(err.contains(message), "{extra:?}: {err}");
    }
}

#[test]
fn parse_prints_the_tree() {
    let o = m2cu(&["parse", "fixtures/e2e/vecsum.m"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("vecsum"), "{out}");
}

#[test]
fn dialect_octave_accepts_octave_spellings() {
    let file = "fixtures/parse/ok/octave_end_keywords.m";
    let o = m2cu(&["parse", file]);
    let (_, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("E0024") && err.contains("help:"), "{err}");
    let o = m2cu(&["parse", "--dialect", "octave", file]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("For i"), "{out}");
    let o = m2cu(&[
        "run",
        file,
        "--dialect",
        "octave",
        "--backend",
        "cpu",
        "--set",
        "v=[1 -2 3 -4 5]",
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(out.contains("s = 9"), "{out}");
    let o = m2cu(&["parse", "--dialect", "fortran", file]);
    assert_eq!(o.status.code(), Some(2));
}

/// `fprintf` in a loop prints what Octave prints for the same call, NaN and Inf included.
#[test]
fn fprintf_prints_like_octave() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let values = "[1 -2.5 0 3 NaN 7]";
    let o = m2cu(&[
        "run",
        "fixtures/analysis/seq_call.m",
        "--backend",
        "cpu",
        "--set",
        &format!("v={values}"),
    ]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let printed: String = out
        .lines()
        .take_while(|l| !l.starts_with("s ="))
        .map(|l| format!("{l}\n"))
        .collect();
    let expected = m2cu_runtime::octave::eval(
        &common::root(),
        &format!("addpath('fixtures/analysis'); seq_call({values});"),
    )
    .expect("Octave runs seq_call");
    assert_eq!(printed.lines().count(), 6, "{out}");
    assert_eq!(
        printed, expected,
        "m2cu printed:\n{printed}\nOctave printed:\n{expected}"
    );
}

/// Runs the MATLAB function `source` (named `name`) with `--set` values on `backend`.
fn run_source(name: &str, source: &str, backend: &str, sets: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(format!("{name}.m"));
    std::fs::write(&file, source).unwrap();
    let mut args = vec!["run", file.to_str().unwrap(), "--backend", backend];
    for set in sets {
        args.extend(["--set", set]);
    }
    m2cu(&args)
}

/// Sizes and trip counts that overflow are MATLAB's and Octave's errors on both paths, never a
/// wrapped count (a negative `numel`, zero elements, a loop that runs zero times).
#[test]
fn huge_sizes_and_ranges_are_errors() {
    let zeros = "function s = big(n)\n  A = zeros(n, n);\n  s = numel(A);\nend\n";
    let range = "function i = rng(n)\n  for i = 1:n\n    break;\n  end\nend\n";
    let cases = [
        (
            zeros,
            "n=3037000500",
            "Requested array exceeds the maximum possible variable size",
        ),
        (
            zeros,
            "n=2^32",
            "Requested array exceeds the maximum possible variable size",
        ),
        (
            zeros,
            "n=Inf",
            "Requested array exceeds the maximum possible variable size",
        ),
        (range, "n=9.3e18", "Invalid range"),
    ];
    for backend in ["cpu", "emu"] {
        for (source, set, message) in cases {
            let name = if source == zeros { "big" } else { "rng" };
            let o = run_source(name, source, backend, &[set]);
            let (_, err) = text(&o);
            assert_eq!(o.status.code(), Some(1), "{backend} {set}: {err}");
            assert!(err.contains(message), "{backend} {set}: {err}");
        }
    }
}

/// `for i = 1:Inf` runs until `break`, as in Octave (which stops after 2^63 - 1 steps).
#[test]
fn a_range_to_infinity_runs_until_break() {
    let source = "function [i, s] = upto(n)\n  s = 0;\n  for i = 1:n\n    s = s + i;\n    if i >= 4\n      break;\n    end\n  end\nend\n";
    for backend in ["cpu", "emu"] {
        let o = run_source("upto", source, backend, &["n=Inf"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(0), "{backend}: {err}");
        assert!(
            out.contains("i = 4") && out.contains("s = 10"),
            "{backend}: {out}"
        );
    }
}

/// A `for` variable after its loop: the last value when the loop ran, MATLAB's empty (1-by-0)
/// when it ran zero times, which m2cu refuses to return (the `zt` and `sorflag` fixtures cover
/// the empty variable in a condition).
#[test]
fn an_empty_loop_variable_is_never_its_old_value() {
    let zt = std::fs::read_to_string(common::root().join("fixtures/e2e/zt.m")).unwrap();
    let out = "function k = ztout(n)\n  k = 7;\n  for k = 1:n\n  end\nend\n";
    for backend in ["cpu", "emu"] {
        let o = run_source("zt", &zt, backend, &["n=3"]);
        let (text_out, err) = text(&o);
        assert!(text_out.contains("f = 1"), "{backend}: {text_out}{err}");
        let o = run_source("ztout", out, backend, &["n=3"]);
        assert!(text(&o).0.contains("k = 3"), "{backend}: {:?}", text(&o));
        let o = run_source("ztout", out, backend, &["n=0"]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{backend}: {err}");
        assert!(err.contains("ran zero times"), "{backend}: {err}");
    }
}

/// An array defined on some paths only: before its definition it has no elements (a store is
/// m2cu's grow error, not a store through NULL), and returning it undefined is an error.
#[test]
fn an_array_defined_on_some_paths_is_never_dereferenced_undefined() {
    let store = "function y = seg(n)\n  if n > 0\n    y = zeros(1, n);\n  end\n  y(1) = 7;\nend\n";
    let output = "function y = und(n)\n  if n > 0\n    y = zeros(1, n);\n  end\nend\n";
    for backend in ["cpu", "emu"] {
        let o = run_source("seg", store, backend, &["n=0"]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{backend}: {err}");
        assert!(err.contains("would grow it"), "{backend}: {err}");
        let o = run_source("und", output, backend, &["n=0"]);
        let (_, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{backend}: {err}");
        assert!(
            err.contains("before it was assigned a value"),
            "{backend}: {err}"
        );
    }
}

/// `size`, `numel` and `length` of an array that is still undefined on the path taken are
/// MATLAB's error for an undefined variable (Octave: "'y' undefined"), not the placeholder's
/// extents (-1 rows, 0 elements), which would be a silent wrong value.
#[test]
fn sizes_of_an_undefined_array_are_errors() {
    let cases = [
        ("function n = und(k)\n  if k > 0\n    y = zeros(1, k);\n  end\n  n = numel(y);\nend\n", "und"),
        ("function n = und(k)\n  if k > 0\n    y = zeros(1, k);\n  end\n  n = size(y, 1);\nend\n", "und"),
        ("function s = und(k)\n  if k > 0\n    y = zeros(1, k);\n  end\n  s = 0;\n  for i = 1:length(y)\n    s = s + i;\n  end\nend\n", "und"),
    ];
    for (source, name) in cases {
        for backend in ["cpu", "emu"] {
            let o = run_source(name, source, backend, &["k=0"]);
            let (out, err) = text(&o);
            assert_eq!(o.status.code(), Some(1), "{backend}: {out}{err}\n{source}");
            assert!(err.contains("before it was assigned"), "{backend}: {err}");
            let o = run_source(name, source, backend, &["k=2"]);
            assert!(o.status.success(), "{backend}: {}", text(&o).1);
        }
    }
}

/// `for v = M` over a matrix with no columns, or a row with no elements, leaves `v` empty in
/// MATLAB (3-by-0, 1-by-0): reading it afterwards is refused at run time, never its old value
/// (which m2cu returned before: `n = 3` where Octave gives 0).
#[test]
fn an_empty_column_loop_never_leaves_the_old_value() {
    let columns = "function [f, n] = zcol(M)\n  f = 0;\n  v = zeros(3, 1);\n  for v = M\n    f = f + 1;\n  end\n  n = numel(v);\nend\n";
    let elements = "function [f, n] = zrow(r)\n  f = 0;\n  v = 7;\n  for v = r\n    f = f + v;\n  end\n  n = v + 1;\n  if v == 7\n    n = -1;\n  end\nend\n";
    for backend in ["cpu", "emu"] {
        for (name, source, empty, full, want) in [
            ("zcol", columns, "M=zeros(3,0)", "M=ones(3,2)", "n = 3"),
            ("zrow", elements, "r=zeros(1,0)", "r=[1 2]", "n = 3"),
        ] {
            let o = run_source(name, source, backend, &[empty]);
            let (out, err) = text(&o);
            assert_eq!(o.status.code(), Some(1), "{name} {backend}: {out}{err}");
            assert!(err.contains("ran zero times"), "{name} {backend}: {err}");
            let o = run_source(name, source, backend, &[full]);
            let (out, err) = text(&o);
            assert!(o.status.success(), "{name} {backend}: {err}");
            assert!(out.contains(want), "{name} {backend}: {out}");
        }
    }
}

/// A 1-by-1 input that the function indexes is a row of run-time length (`bubble(5)` is legal
/// MATLAB; Octave: `a = 5`, `s = 8`), on both paths; one it never indexes stays a scalar, so
/// `zeros(1, n)` still takes it as a size.
#[test]
fn one_by_one_inputs_indexed_as_vectors_run() {
    let bubble = "function a = bubble(a)\n  n = numel(a);\n  for i = 1:n-1\n    for j = 1:n-i\n      if a(j) > a(j+1)\n        t = a(j); a(j) = a(j+1); a(j+1) = t;\n      end\n    end\n  end\nend\n";
    let tail = "function s = tailn(x)\n  s = x(end) + numel(x);\nend\n";
    let sized = "function y = sized(n)\n  y = zeros(1, n);\nend\n";
    for backend in ["cpu", "emu"] {
        let cases = [
            ("bubble", bubble, "a=5", "a = 5"),
            ("bubble", bubble, "a=[3 1 2]", "1     2     3"),
            ("tailn", tail, "x=7", "s = 8"),
            ("sized", sized, "n=3", "0     0     0"),
        ];
        for (name, source, set, expected) in cases {
            let o = run_source(name, source, backend, &[set]);
            let (stdout, stderr) = text(&o);
            assert!(o.status.success(), "{name} {set} on {backend}: {stderr}");
            assert!(
                stdout.contains(expected),
                "{name} {set} on {backend}: {stdout}"
            );
        }
    }
}

/// A 1-by-1 input that only helpers index, a local function and a function file beside the
/// entry, is a row of run-time length too (Octave 7.3: `runavg(7, 3)` gives y = 7, total = 7).
/// The fixtures cannot hold this case: their harness types inputs as `--args` would.
#[test]
fn one_by_one_inputs_indexed_by_helpers_run() {
    let entry = "function [y, total] = runavg(x, w)\nif nargin < 2\n  w = 2;\nend\ny = movingavg(x, w);\ntotal = sumloop(x);\nend\n\nfunction y = movingavg(x, w)\nn = numel(x);\ny = zeros(1, n);\nfor i = 1:n\n  lo = max(1, i - w + 1);\n  s = 0;\n  for j = lo:i\n    s = s + x(j);\n  end\n  y(i) = s / (i - lo + 1);\nend\nend\n";
    let helper =
        "function s = sumloop(v)\ns = 0;\nfor k = 1:length(v)\n  s = s + v(k);\nend\nend\n";
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("runavg.m");
    std::fs::write(&file, entry).unwrap();
    std::fs::write(dir.path().join("sumloop.m"), helper).unwrap();
    for backend in ["cpu", "emu"] {
        let o = m2cu(&[
            "run",
            file.to_str().unwrap(),
            "--backend",
            backend,
            "--set",
            "x=7",
            "--set",
            "w=3",
        ]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{backend}: {err}");
        assert!(
            out.contains("y = 7") && out.contains("total = 7"),
            "{backend}: {out}"
        );
    }
}

/// A range subscript whose start is computed at run time (`v(k:end)` with an input `k`) is
/// checked where each element is used: a fractional or zero index is MATLAB's error, an empty
/// range reads nothing. A second subscript of a 3-D array spans its pages, and a third
/// subscript of a matrix must be 1 (values from Octave 7.3).
#[test]
fn run_time_slice_starts_and_trailing_subscripts_are_checked() {
    let tail = "function s = tailsum(v, k)\n  s = sum(v(k:end)) + sum(v(k:k-1));\nend\n";
    let trailing = "function y = trailing(A, M, j, p)\n  y = A(1, j) + M(1, 2, p);\nend\n";
    let page = "A=reshape(1:24, 2, 3, 4)";
    let cases: [(&str, &str, &[&str], &str); 7] = [
        ("tailsum", tail, &["v=[1 2 3 4]", "k=2"], "s = 9"),
        ("tailsum", tail, &["v=[1 2 3 4]", "k=5"], "s = 0"),
        (
            "tailsum",
            tail,
            &["v=[1 2 3 4]", "k=1.5"],
            "Array indices must be positive integers",
        ),
        (
            "tailsum",
            tail,
            &["v=[1 2 3 4]", "k=0"],
            "Array indices must be positive integers",
        ),
        (
            "trailing",
            trailing,
            &[page, "M=[1 2; 3 4]", "j=12", "p=1"],
            "y = 25",
        ),
        (
            "trailing",
            trailing,
            &[page, "M=[1 2; 3 4]", "j=13", "p=1"],
            "Index in position 2 exceeds array bounds.",
        ),
        (
            "trailing",
            trailing,
            &[page, "M=[1 2; 3 4]", "j=1", "p=2"],
            "Index in position 3 exceeds array bounds.",
        ),
    ];
    for backend in ["cpu", "emu"] {
        for (name, source, sets, expected) in cases {
            let (out, err) = text(&run_source(name, source, backend, sets));
            assert!(
                out.contains(expected) || err.contains(expected),
                "{backend} {sets:?}: {out}{err}"
            );
        }
    }
}

/// Issue 15 item 8: a loop that builds `y` by index from nothing gets `y` allocated before it
/// (and stays parallel); an array created by index or `[]` grows as in MATLAB, and the two ways
/// it cannot (a matrix grown by one subscript, a column joined to a row) are MATLAB's errors.
#[test]
fn arrays_built_by_index_grow_as_in_matlab() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("build.m");
    let source = "function y = build(n)\n  for i = 1:n\n    y(i) = i^2;\n  end\n  for k = 1:numel(y)\n    y(k) = y(k) + 1;\n  end\nend\n";
    std::fs::write(&file, source).unwrap();
    let o = m2cu(&["check", file.to_str().unwrap(), "--args", "n=double"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    let report = format!("{out}{err}");
    assert!(
        report.contains("y: allocated 1-by-n before the loop (grown by index in MATLAB)"),
        "{report}"
    );
    assert_eq!(report.matches("parallel ->").count(), 2, "{report}");
    let seven =
        "function [y, z] = seven(m)\n  y(1) = 7;\n  z = [];\n  z(2, 2) = 1;\n  z(m, 3) = 5;\nend\n";
    let idiom = "function z = idiom(m, n)\n  z = zeros(2);\n  z(1, 2) = 3;\n  z(2, 1) = 4;\n  z(m, n) = 0;\nend\n";
    let ahead = "function y = ahead(n)\n  for i = 1:n\n    y(i) = i;\n    if i > 1\n      y(i) = y(i) + y(i + 1);\n    end\n  end\nend\n";
    let ambiguous = "function z = amb(k)\n  z = [];\n  z(2, 2) = 1;\n  z(k) = 3;\nend\n";
    let joined = "function c = joined(k)\n  c = [];\n  for i = 1:k\n    c = [c; i];\n  end\n  c = [c, 9];\nend\n";
    for backend in ["cpu", "emu"] {
        let o = run_source("seven", seven, backend, &["m=3"]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{backend}: {err}");
        assert!(out.contains("y = 7"), "{backend}: {out}");
        assert!(
            out.contains("0     0     0\n     0     1     0\n     0     0     5"),
            "{backend}: {out}"
        );
        let o = run_source("idiom", idiom, backend, &["m=3", "n=4"]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{backend}: {err}");
        let grown = "     0     3     0     0\n     4     0     0     0\n     0     0     0     0";
        assert!(out.contains(grown), "{backend}: {out}");
        // A read of an element not written yet, while `y` grows: MATLAB's error, not a 0.
        let o = run_source("ahead", ahead, backend, &["n=3"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{backend}: {out}{err}");
        assert!(err.contains("Index exceeds"), "{backend}: {err}");
        let o = run_source("amb", ambiguous, backend, &["k=7"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{backend}: {out}{err}");
        assert!(
            err.contains("Attempt to grow array along ambiguous dimension."),
            "{backend}: {err}"
        );
        let o = run_source("amb", ambiguous, backend, &["k=4"]);
        assert!(o.status.success(), "{backend}: {:?}", text(&o));
        let o = run_source("joined", joined, backend, &["k=2"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{backend}: {out}{err}");
        assert!(
            err.contains("Dimensions of arrays being concatenated are not consistent."),
            "{backend}: {err}"
        );
        let o = run_source("joined", joined, backend, &["k=0"]);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{backend}: {err}");
        assert!(out.contains("c = 9"), "{backend}: {out}");
    }
}

/// Index vectors and masks stop with MATLAB's errors on both paths: an index past the end, 0
/// or a fraction, a mask with a true element past the end (also in `numel(x(m))`, a count); `mean` of an empty row selection is
/// Octave's 1-by-0 (m2cu's message), of an empty column selection NaN; `x(mask)` with a false
/// 1-by-1 mask is MATLAB's 0-by-0 (m2cu's message).
#[test]
fn index_vectors_and_masks_stop_with_matlab_errors() {
    let gather = "function y = g(x, p)\n  y = x(p);\nend\n";
    let masked = "function y = h(x, m)\n  y = x(m);\nend\n";
    let count = "function n = c(x, m)\n  n = numel(x(m));\nend\n";
    let mean = "function s = mn(x)\n  s = mean(x(x > 5));\nend\n";
    let scalar_mask =
        "function y = sel(x)\n  arguments\n    x (1,:) double\n  end\n  y = x(x > 5);\nend\n";
    let past_end = "Index exceeds the number of array elements.";
    let invalid = "Array indices must be positive integers or logical values.";
    for backend in ["cpu", "emu"] {
        for (name, source, sets, want) in [
            ("g", gather, &["x=[1 2 3 4]", "p=[1 5]"][..], past_end),
            ("g", gather, &["x=[1 2 3 4]", "p=[0 1]"], invalid),
            ("g", gather, &["x=[1 2 3 4]", "p=[1.5 2]"], invalid),
            (
                "h",
                masked,
                &["x=[1 2 3 4]", "m=logical([0 0 0 0 1])"],
                past_end,
            ),
            (
                "c",
                count,
                &["x=[1 2 3 4]", "m=logical([0 0 0 0 1])"],
                past_end,
            ),
            ("mn", mean, &["x=[1 2 3]"], "1-by-0"),
            ("sel", scalar_mask, &["x=1"], "0-by-0"),
        ] {
            let o = run_source(name, source, backend, sets);
            let (out, err) = text(&o);
            assert_eq!(o.status.code(), Some(1), "{name} {backend}: {out}{err}");
            assert!(err.contains(want), "{name} {backend}: {err}");
        }
        for (name, source, sets, want) in [
            (
                "h",
                masked,
                &["x=[1 2 3 4]", "m=logical([0 1 0 0 0])"][..],
                "y = 2",
            ),
            (
                "c",
                count,
                &["x=[1 2 3 4]", "m=logical([1 0 1 0 0])"],
                "n = 2",
            ),
            ("mn", mean, &["x=[1; 2; 3]"], "NaN"),
        ] {
            let o = run_source(name, source, backend, sets);
            let (out, err) = text(&o);
            assert!(o.status.success(), "{name} {backend}: {out}{err}");
            assert!(out.contains(want), "{name} {backend}: {out}");
        }
    }
}

/// A scalar read on a path that never assigned it is MATLAB's undefined-variable error, not the
/// 0 the generated C starts it with (Octave 7.3: `'t' undefined`, the variable named, and a
/// function that returns without its output fails): after an `if` that skipped the assignment, after a loop that ran
/// zero times, and as an unassigned output. Where it is assigned the values are Octave's, and a
/// reduction loop that also assigns such a scalar stays a kernel.
#[test]
fn a_scalar_read_before_it_is_assigned_stops() {
    let branch = "function y = branch(x)\n  if x > 0\n    t = 5;\n  end\n  y = t + 1;\nend\n";
    let last =
        "function y = lastof(x)\n  for k = 1:numel(x)\n    v = x(k);\n  end\n  y = v;\nend\n";
    let output = "function y = outonly(x)\n  if x > 0\n    y = 1;\n  end\nend\n";
    let cases: [(&str, &str, &str, Option<&str>); 6] = [
        ("branch", branch, "x=-1", None),
        ("branch", branch, "x=1", Some("y = 6")),
        ("lastof", last, "x=zeros(1,0)", None),
        ("lastof", last, "x=[4 5]", Some("y = 5")),
        ("outonly", output, "x=-1", None),
        ("outonly", output, "x=2", Some("y = 1")),
    ];
    for backend in ["cpu", "emu"] {
        for (name, source, set, want) in cases {
            let o = run_source(name, source, backend, &[set]);
            let (out, err) = text(&o);
            match want {
                Some(want) => {
                    assert!(o.status.success(), "{name} {set} {backend}: {err}");
                    assert!(out.contains(want), "{name} {set} {backend}: {out}");
                }
                None => {
                    assert_eq!(
                        o.status.code(),
                        Some(1),
                        "{name} {set} {backend}: {out}{err}"
                    );
                    let variable = match name {
                        "branch" => "t",
                        "lastof" => "v",
                        _ => "y",
                    };
                    assert!(
                        err.contains(&format!("error: '{variable}' undefined\n")),
                        "{name} {set} {backend}: {err}"
                    );
                }
            }
        }
    }
}

/// Issue 15 item 16: `= []` deletes as Octave 7.3 does: a row stays a row and a column a
/// column, repeated indices delete once, nothing deleted changes nothing, a range with step 1
/// leaves a matrix a row; rows go by a mask or an index vector; an index past the end is the
/// deletion error, 0 the usual index error; an index vector on a matrix, where MATLAB (a row)
/// and Octave (a column) differ, stops.
#[test]
fn deletion_keeps_octaves_shapes_and_errors() {
    let linear = "function [r, c, f, l] = lin(A, idx)\n  A(idx) = [];\n  r = size(A, 1);\n  c = size(A, 2);\n  f = A(1);\n  l = A(end);\nend\n";
    let range = "function [r, c, f, l] = span(A, a, b)\n  A(a:b) = [];\n  r = size(A, 1);\n  c = size(A, 2);\n  f = A(1);\n  l = A(end);\nend\n";
    let rows = "function [r, c, f, l] = droprows(A, m)\n  A(m, :) = [];\n  r = size(A, 1);\n  c = size(A, 2);\n  f = A(1);\n  l = A(end);\nend\n";
    let differ = "Octave a column, so m2cu stops here";
    let cases: &[(&str, &str, &[&str], &[&str])] = &[
        (
            "lin",
            linear,
            &["A=[1 2 3 4]", "idx=[1 4 1]"],
            &["r = 1", "c = 2", "f = 2", "l = 3"],
        ),
        (
            "lin",
            linear,
            &["A=[1; 2; 3]", "idx=[2 2]"],
            &["r = 2", "c = 1", "f = 1", "l = 3"],
        ),
        (
            "lin",
            linear,
            &["A=[1 2; 3 4]", "idx=zeros(1,0)"],
            &["r = 2", "c = 2", "f = 1", "l = 4"],
        ),
        ("lin", linear, &["A=[1 2; 3 4]", "idx=[1 4]"], &[differ]),
        (
            "lin",
            linear,
            &["A=[1 2 3]", "idx=4"],
            &["Matrix index is out of range for deletion."],
        ),
        (
            "lin",
            linear,
            &["A=[1 2 3]", "idx=0"],
            &["Array indices must be positive integers"],
        ),
        (
            "span",
            range,
            &["A=[1 2; 3 4]", "a=2", "b=3"],
            &["r = 1", "c = 2", "f = 1", "l = 4"],
        ),
        (
            "droprows",
            rows,
            &["A=[1 2; 3 4; 5 6]", "m=logical([1 0 1])"],
            &["r = 1", "c = 2", "f = 3", "l = 4"],
        ),
        (
            "droprows",
            rows,
            &["A=[1 2; 3 4; 5 6]", "m=[3 3 1]"],
            &["r = 1", "c = 2", "f = 3", "l = 4"],
        ),
    ];
    for backend in ["cpu", "emu"] {
        for (name, source, sets, expected) in cases {
            let (out, err) = text(&run_source(name, source, backend, sets));
            for want in *expected {
                assert!(
                    out.lines().any(|l| l.trim() == *want) || err.contains(want),
                    "{backend} {sets:?}: {want}: {out}{err}"
                );
            }
        }
    }
}

/// `arrayfun` of an empty array is an empty double in MATLAB and Octave 7.3 whatever class the
/// function returns: where m2cu's result would have the function's class (logical here) the
/// program stops with m2cu's own message; a double result is the empty double, and a non-empty
/// array gives the function's class, as in Octave.
#[test]
fn arrayfun_of_an_empty_array_never_changes_the_class() {
    let logical = "function p = af(v)\n  p = arrayfun(@(t) t > 1, v);\nend\n";
    let double = "function q = ad(v)\n  q = arrayfun(@(t) t + 1, v);\nend\n";
    for backend in ["cpu", "emu"] {
        let o = run_source("af", logical, backend, &["v=zeros(1,0)"]);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{backend}: {out}{err}");
        assert!(
            err.contains("arrayfun of an empty array"),
            "{backend}: {err}"
        );
        for (name, source, want) in [
            ("af", logical, "1×2 logical array"),
            ("ad", double, "1×0 empty double"),
        ] {
            let set = if name == "af" {
                "v=[1 2]"
            } else {
                "v=zeros(1,0)"
            };
            let o = run_source(name, source, backend, &[set]);
            let (out, err) = text(&o);
            assert!(o.status.success(), "{name} {backend}: {err}");
            assert!(out.contains(want), "{name} {backend}: {out}");
        }
    }
}

/// `P(end+1, :) = v` with `v` not a vector of the row's length stops with Octave 7.3's message
/// (taken from octave-cli), on both paths; a 0-by-0 `P` names `v`'s columns as the row's length.
/// `P(:, end+1) = v` alike, with rows and columns exchanged.
#[test]
fn a_row_of_another_length_is_octaves_nonconformant_error() {
    let short = "function P = shortrow(n)\n  P = zeros(0, 3);\n  for k = 1:n\n    P(end+1, :) = [k, k];\n  end\nend\n";
    let block = "function P = blockrow(n)\n  P = [];\n  if n > 1\n    P(end+1, :) = [1 2 3 4];\n  end\n  P(end+1, :) = [1 2; 3 4];\nend\n";
    let shortcol = "function P = shortcol(n)\n  P = zeros(3, 0);\n  for k = 1:n\n    P(:, end+1) = [k, k];\n  end\nend\n";
    let blockcol = "function P = blockcol(n)\n  P = [];\n  if n > 1\n    P(:, end+1) = [1 2 3];\n  end\n  P(:, end+1) = ones(2, 2);\nend\n";
    let cases = [
        ("shortrow", short, "n=2", "op1 is 1x3, op2 is 1x2"),
        ("blockrow", block, "n=2", "op1 is 1x4, op2 is 2x2"),
        ("blockrow", block, "n=1", "op1 is 1x2, op2 is 2x2"),
        ("shortcol", shortcol, "n=2", "op1 is 3x1, op2 is 1x2"),
        ("blockcol", blockcol, "n=2", "op1 is 3x1, op2 is 2x2"),
        ("blockcol", blockcol, "n=1", "op1 is 2x1, op2 is 2x2"),
    ];
    for backend in ["cpu", "emu"] {
        for (name, source, set, sizes) in cases {
            let o = run_source(name, source, backend, &[set]);
            let (_, err) = text(&o);
            assert_eq!(o.status.code(), Some(1), "{backend} {name} {set}: {err}");
            let message = format!("error: =: nonconformant arguments ({sizes})");
            assert!(err.contains(&message), "{backend} {name} {set}: {err}");
        }
    }
}

/// `num2str`/`int2str` as a char value, and `num2str(x, 4)`: the text Octave writes (compared
/// with `octave-cli` now) for integers, fractions, large and small magnitudes, `-0`, NaN and
/// Inf, on cpu and emu.
#[test]
fn num2str_values_are_octaves_text() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let label = "['n=', num2str(x), ';', int2str(x), ';', num2str(x, 4)]";
    let source = format!("function s = label(x)\n  s = {label};\nend\n");
    let values = [
        "-0",
        "0.5",
        "-2.5",
        "1e15",
        "1e16",
        "123.456",
        "0.0000314159",
        "9007199254740993",
        "NaN",
        "-Inf",
    ];
    let script: String = values
        .iter()
        .map(|v| format!("x = {v}; printf('%s\\n', {label});\n"))
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let expected = m2cu_runtime::octave::eval(dir.path(), &script).expect("octave runs");
    let expected: Vec<&str> = expected.lines().filter(|l| l.starts_with("n=")).collect();
    assert_eq!(expected.len(), values.len(), "{expected:?}");
    for backend in ["cpu", "emu"] {
        for (v, want) in values.iter().zip(&expected) {
            let o = run_source("label", &source, backend, &[&format!("x={v}")]);
            let (out, err) = text(&o);
            assert_eq!(o.status.code(), Some(0), "{backend} {v}: {err}");
            assert!(
                out.contains(&format!("'{want}'")),
                "{backend} {v}: {out} (Octave: {want})"
            );
        }
    }
}

/// `mean` of empty values: where MATLAB and Octave 7.3 agree, m2cu's result is Octave's (the
/// same class, size and values, compared with `octave-cli` now); where they differ
/// (`lower::mean_empty`: no dimension on 1-by-0 and 0-by-N, N > 1; dimension 1 on 0-by-0),
/// the program stops with m2cu's own message, on cpu and emu, and nowhere else.
#[test]
fn mean_of_empty_values_is_octaves_or_stops() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let forms = [
        ("nodim", "a = mean(x);"),
        ("dim1", "a = mean(x, 1);"),
        ("dim2", "a = mean(x, 2);"),
        ("rtdim", "d = 1 + (numel(x) < 0); a = mean(x, d);"),
    ];
    let sizes = [(1, 0), (0, 1), (0, 0), (0, 3), (3, 0), (0, 2), (2, 3)];
    let stops = |form: &str, (r, c): (usize, usize)| match form {
        "nodim" => (r == 1 && c == 0) || (r == 0 && c > 1),
        "dim1" | "rtdim" => r == 0 && c == 0,
        _ => false,
    };
    let dir = tempfile::tempdir().unwrap();
    let mut script = String::new();
    for (form, body) in forms {
        let source = format!("function a = {form}(x)\n  {body}\nend\n");
        std::fs::write(dir.path().join(format!("{form}.m")), source).unwrap();
        for (r, c) in sizes {
            script +=
                &format!("a = {form}(zeros({r}, {c})); save('-v7', '{form}_{r}_{c}.mat', 'a');\n");
        }
    }
    m2cu_runtime::octave::eval(dir.path(), &script).expect("octave runs");
    let message = "mean of an empty value of this size: MATLAB and Octave differ here";
    for (form, _) in forms {
        let source = std::fs::read_to_string(dir.path().join(format!("{form}.m"))).unwrap();
        for (r, c) in sizes {
            let x = vec![("x".to_string(), Value::zeros(m2cu::ClassId::Double, r, c))];
            for backend in [Backend::Cpu, Backend::Emu] {
                let run = m2cu::run(&source, &x, &m2cu::Options::default(), &common::on(backend));
                let case = format!("{form} of {r}x{c} on {backend:?}");
                match (stops(form, (r, c)), run) {
                    (true, Err(e)) => assert!(e.to_string().contains(message), "{case}: {e}"),
                    (false, Ok(run)) => {
                        let path = dir.path().join(format!("{form}_{r}_{c}.mat"));
                        let expected = m2cu_runtime::read_mat(path).unwrap().remove(0).1;
                        let d = common::difference(&expected, &run.outputs[0].1);
                        assert!(d.is_none(), "{case}: {d:?}");
                    }
                    (true, Ok(run)) => panic!("{case}: no stop, {:?}", run.outputs),
                    (false, Err(e)) => panic!("{case}: {e}"),
                }
            }
        }
    }
}

/// A NaN converted to logical — by `if`, `while`, `~`, `&&`, `||`, `&`, `|`, `logical`, an array
/// condition, or a logical reduction in a kernel — stops with MATLAB's error, as Octave 7.3 stops
/// (its message: "invalid conversion from NaN to logical"); short circuits that never read the
/// NaN, `any` and `all` do not stop, and other values give Octave's results (octave-cli, now).
#[test]
fn nan_to_logical_stops_as_in_octave() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let bodies = [
        "if a, y = 1; else, y = 0; end",
        "y = ~a;",
        "y = a && true;",
        "y = false || a;",
        "y = logical(a);",
        "y = a | false;",
        "y = 0; while a, y = y + 1; a = 0; end",
        "v = [a 1]; y = v & 1;",
        "y = ~[a 2];",
        "y = 0; if [a 1], y = 1; end",
        "y = 0; while [1 a], y = y + 1; a = 0; end",
        "v = [1 a 3]; y = true; for i = 1:3, y = y && v(i); end",
        "v = [0 a 0]; y = false; for i = 1:3, y = y | v(i); end",
        "s = single(a); y = ~s;",
        "y = (a > 5) && a;",
        "y = true || a;",
        "y = [any(a), all(a)];",
        "y = xor(a, 0);",
        "y = xor([1 0], a);",
    ];
    let values = [f64::NAN, 2.0, 0.0];
    let dir = tempfile::tempdir().unwrap();
    let mut script = String::new();
    for (n, body) in bodies.iter().enumerate() {
        let source = format!("function y = truth{n}(a)\n  {body}\nend\n");
        std::fs::write(dir.path().join(format!("truth{n}.m")), source).unwrap();
        for (k, a) in ["NaN", "2", "0"].iter().enumerate() {
            script += &format!(
                "try, y = truth{n}({a}); save('-v7', 't{n}_{k}.mat', 'y'); catch e, fid = fopen('t{n}_{k}.err', 'w'); fputs(fid, e.message); fclose(fid); end\n"
            );
        }
    }
    m2cu_runtime::octave::eval(dir.path(), &script).expect("octave runs");
    for (n, body) in bodies.iter().enumerate() {
        let source = std::fs::read_to_string(dir.path().join(format!("truth{n}.m"))).unwrap();
        for (k, &a) in values.iter().enumerate() {
            let octave_error =
                std::fs::read_to_string(dir.path().join(format!("t{n}_{k}.err"))).ok();
            let x = vec![("a".to_string(), Value::scalar(a))];
            for backend in [Backend::Cpu, Backend::Emu] {
                let run = m2cu::run(&source, &x, &m2cu::Options::default(), &common::on(backend));
                let case = format!("`{body}` with a = {a} on {backend:?}");
                match (&octave_error, run) {
                    (Some(message), Err(e)) => {
                        assert!(
                            message.contains("NaN to logical"),
                            "{case}: Octave: {message}"
                        );
                        let text = e.to_string();
                        assert!(
                            text.contains("NaN's cannot be converted to logicals."),
                            "{case}: {text}"
                        );
                    }
                    (None, Ok(run)) => {
                        let path = dir.path().join(format!("t{n}_{k}.mat"));
                        let expected = m2cu_runtime::read_mat(path).unwrap().remove(0).1;
                        let d = common::difference(&expected, &run.outputs[0].1);
                        assert!(d.is_none(), "{case}: {d:?}");
                    }
                    (Some(message), Ok(run)) => {
                        panic!(
                            "{case}: Octave stops ({message}), m2cu gives {:?}",
                            run.outputs
                        )
                    }
                    (None, Err(e)) => panic!("{case}: m2cu stops, Octave does not: {e}"),
                }
            }
        }
    }
}

/// `check` ends with a one-line summary; `-q` prints nothing on success.
#[test]
fn check_summarizes_and_quiet_is_quiet() {
    let o = m2cu(&["check", "fixtures/e2e/runsum.m", "--args", "v=double(1,:)"]);
    let (out, err) = text(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        out.ends_with("\nfixtures/e2e/runsum.m: runsum checked: 1 loop: 0 kernels, 1 sequential\n"),
        "{out}"
    );
    for command in ["check", "translate"] {
        let dir = tempfile::tempdir().unwrap();
        let out_dir = dir.path().display().to_string();
        let mut args = vec![
            command,
            "fixtures/e2e/minloc.m",
            "--args",
            "v=double(1,:)",
            "-q",
        ];
        if command == "translate" {
            args.extend(["-o", &out_dir]);
        }
        let o = m2cu(&args);
        let (out, err) = text(&o);
        assert!(o.status.success(), "{err}");
        assert_eq!((out.as_str(), err.as_str()), ("", ""), "{command} -q");
    }
}

/// Source errors of any command as JSON on standard output (`--format json`), with their
/// stable code and place; colours only when asked for (or on a terminal without `NO_COLOR`).
#[test]
fn source_errors_as_json_and_in_colour() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bad.m");
    std::fs::write(&file, "function y = bad(x)\n  y = x + nosuchname;\nend\n").unwrap();
    let path = file.to_str().unwrap();
    for command in ["check", "translate", "run"] {
        let mut args = vec![command, path, "--args", "x=double", "--format", "json"];
        if command == "run" {
            args = vec![command, path, "--set", "x=1", "--format", "json"];
        }
        let o = m2cu(&args);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(1), "{command}: {err}");
        let v: serde_json::Value =
            serde_json::from_str(&out).unwrap_or_else(|e| panic!("{command}: {e}: {out}"));
        let d = &v["diagnostics"][0];
        assert_eq!(d["severity"], "error", "{command}");
        assert_eq!(d["code"], "E0102", "{command}: {d}");
        assert_eq!(
            (d["line"].as_u64(), d["column"].as_u64()),
            (Some(2), Some(11)),
            "{command}"
        );
        assert_eq!(d["file"], path, "{command}");
    }
    let colored = m2cu(&["check", path, "--args", "x=double", "--color", "always"]);
    assert!(text(&colored).1.contains("\u{1b}["), "no ANSI colour");
    let plain = m2cu(&["check", path, "--args", "x=double", "--color", "never"]);
    let (_, err) = text(&plain);
    assert!(
        !err.contains('\u{1b}') && err.contains("error[E0102]"),
        "{err}"
    );
}

/// Every other failure as JSON too: a run-time error with its identifier and place (the
/// subscript's text, value and bound as data), the program's own `error` with its identifier,
/// a file that cannot be read, a wrong `--set`.
#[test]
fn run_time_and_other_failures_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("shift.m");
    std::fs::write(
        &file,
        "function y = shift(x, k)\n  if k > 5\n    error('shift:big', 'k is %d', k);\n  end\n  y = zeros(1, 3);\n  for i = 1:3\n    y(i) = x(i + k);\n  end\nend\n",
    )
    .unwrap();
    let path = file.to_str().unwrap();
    let json = |args: &[&str], status: i32| {
        let o = m2cu(args);
        let (out, err) = text(&o);
        assert_eq!(o.status.code(), Some(status), "{args:?}: {err}");
        assert!(err.is_empty(), "{args:?}: standard error has {err}");
        serde_json::from_str::<serde_json::Value>(&out)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {out}"))["error"]
            .clone()
    };
    let run = |k: &str| {
        let k = format!("k={k}");
        let args = [
            "run",
            path,
            "--set",
            "x=[1 2 3]",
            "--set",
            &k,
            "--backend",
            "cpu",
        ];
        json(&[&args[..], &["--format", "json"]].concat(), 1)
    };
    let e = run("1");
    assert_eq!(
        (&e["kind"], &e["identifier"]),
        (&json!("run-time"), &json!("m2cu:indexRange"))
    );
    assert_eq!(
        e["message"],
        format!("Index exceeds the number of array elements. Index must not exceed 3. (`x(i + k)` at {path}:7:12, i + k = 4)")
    );
    let at = &e["location"];
    assert_eq!(
        (&at["file"], &at["line"], &at["column"]),
        (&json!(path), &json!(7), &json!(12))
    );
    assert_eq!(at["source"], "x(i + k)");
    assert_eq!(
        at["subscript"],
        json!({ "position": null, "source": "i + k", "value": 4.0, "in_order": true, "bound": 3 })
    );
    let e = run("-1.5");
    assert_eq!(
        (&e["kind"], &e["identifier"]),
        (&json!("run-time"), &json!("m2cu:indexInvalid"))
    );
    assert_eq!(e["location"]["subscript"]["value"], -0.5);
    let e = run("6");
    assert_eq!(
        e,
        json!({ "kind": "raised", "identifier": "shift:big", "message": "k is 6" })
    );
    let missing = dir.path().join("missing.m");
    let e = json(&["check", missing.to_str().unwrap(), "--format", "json"], 1);
    assert_eq!(e["kind"], "file");
    let e = json(&["run", path, "--set", "x", "--format", "json"], 1);
    assert_eq!(e["kind"], "usage", "{e}");
}
