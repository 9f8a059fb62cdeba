//! `--set` values are evaluated by m2cu's pipeline with MATLAB's semantics: classes, sizes and
//! values equal Octave's, one random stream serves all the values of one call, and `rand` and
//! `randn` have the right distributions and are repeatable by seed.

use std::process::Command;

use m2cu::{set_values, ClassId, SetOptions, Value};

fn values(assignments: &[&str], seed: u64) -> Vec<(String, Value)> {
    let args: Vec<String> = assignments.iter().map(|a| a.to_string()).collect();
    let options = SetOptions {
        seed,
        ..Default::default()
    };
    set_values(&args, &options).unwrap_or_else(|e| panic!("{assignments:?}: {e}"))
}

fn doubles(v: &Value) -> Vec<f64> {
    v.as_slice::<f64>().expect("a double value").to_vec()
}

/// Each expression's value equals Octave's: class, size and elements (NaN equal to NaN).
#[test]
fn values_equal_octave() {
    let table = [
        "uint8(200)+1",
        "int8([100 100])*2",
        "0:0.5:10",
        "10:-3:1",
        "1:0",
        "[1 2; 3 4]",
        "[1 2; 3 4]'",
        "zeros(2, 3, 2)",
        "ones(2, 2, 3, 'int16')",
        "true(2)",
        "false(1, 3)",
        "int16(-7.5)",
        "single(pi)",
        "intmax('int8')+1",
        "uint8(3) - 5",
        "int32([7 8 9]) / 2",
        "[1 nan inf] * -1",
        "-[1 2]",
        "2^10 - 1e3",
        "[1:3; 4:6]",
        "zeros(0, 3)",
        "reshape(1:6, 2, 3)",
        "reshape(1:6, [], 2)",
        "reshape(int8(1:12), 2, [], 2)",
        "reshape([1 2; 3 4], [1 4])",
        "reshape(single([1 2; 3 4])', 4, 1)",
    ];
    let assignments: Vec<String> = table
        .iter()
        .enumerate()
        .map(|(k, e)| format!("v{k}={e}"))
        .collect();
    let refs: Vec<&str> = assignments.iter().map(String::as_str).collect();
    let ours = values(&refs, 0);
    let dir = tempfile::tempdir().unwrap();
    let mat = dir.path().join("ours.mat");
    m2cu_runtime::write_mat(&mat, &ours).unwrap();
    let mut script = String::from("s = load('ours.mat');\n");
    for (k, e) in table.iter().enumerate() {
        script += &format!(
            "e = {e}; o = s.v{k}; if ~(strcmp(class(o), class(e)) && isequal(size(o), size(e)) && isequaln(o, e)), printf('MISMATCH v{k}: %s gives %s %s, Octave %s %s\\n', '{}', class(o), mat2str(size(o)), class(e), mat2str(size(e))); end\n",
            e.replace('\'', "''")
        );
    }
    script += "printf('done\\n');\n";
    let out = m2cu_runtime::octave::eval(dir.path(), &script).unwrap();
    assert_eq!(out.trim(), "done", "{out}");
}

/// The class rules of issue 14: integer arithmetic stays integer and saturates.
#[test]
fn integer_class_rules() {
    let v = values(&["x=uint8(200)+1", "y=int8([100 100])*2"], 0);
    assert_eq!(v[0].1.class(), ClassId::Uint8);
    assert_eq!(v[0].1.as_slice::<u8>(), Some(&[201u8][..]));
    assert_eq!(v[1].1.class(), ClassId::Int8);
    assert_eq!(v[1].1.as_slice::<i8>(), Some(&[127i8, 127][..]));
}

/// Two `rand` values of one call are different draws: a Monte Carlo estimate of pi is right.
#[test]
fn one_stream_across_values() {
    let v = values(&["x=rand(1,1e6)", "y=rand(1,1e6)"], 0);
    let (x, y) = (doubles(&v[0].1), doubles(&v[1].1));
    assert_ne!(x, y);
    let inside = x
        .iter()
        .zip(&y)
        .filter(|(a, b)| *a * *a + *b * *b <= 1.0)
        .count();
    let pi = 4.0 * inside as f64 / x.len() as f64;
    assert!((pi - std::f64::consts::PI).abs() < 0.01, "pi = {pi}");
}

/// A later value may use an earlier one, as in MATLAB's workspace; a name set twice keeps the
/// last value.
#[test]
fn later_values_see_earlier_ones() {
    let v = values(&["n=4", "x=zeros(1, n) + n", "n=n*2"], 0);
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].0, "n");
    assert_eq!(doubles(&v[0].1), vec![8.0]);
    assert_eq!(doubles(&v[1].1), vec![4.0; 4]);
}

/// The same seed gives the same bits; another seed gives other values.
#[test]
fn rand_is_repeatable_by_seed() {
    let draw = |seed| doubles(&values(&["x=randn(3, 4, 2)"], seed)[0].1);
    assert_eq!(draw(7), draw(7));
    assert_ne!(draw(7), draw(8));
    let v = values(&["x=randn(3, 4, 2)"], 7);
    assert_eq!(v[0].1.dims, vec![3, 4, 2]);
}

fn moments(x: &[f64]) -> (f64, f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let central = |k: i32| x.iter().map(|v| (v - mean).powi(k)).sum::<f64>() / n;
    let var = central(2);
    (mean, var, central(4) / (var * var))
}

/// `rand` is uniform on the open interval (0, 1): mean 1/2, variance 1/12 (bounds of about
/// seven standard errors for 1e6 samples).
#[test]
fn rand_is_uniform_on_the_open_interval() {
    let x = doubles(&values(&["x=rand(1000, 1000)"], 1)[0].1);
    assert!(x.iter().all(|&v| v > 0.0 && v < 1.0));
    let (mean, var, _) = moments(&x);
    assert!((mean - 0.5).abs() < 0.002, "mean {mean}");
    assert!((var - 1.0 / 12.0).abs() < 0.001, "variance {var}");
    let below = x.iter().filter(|&&v| v < 0.1).count() as f64 / x.len() as f64;
    assert!((below - 0.1).abs() < 0.002, "P(x < 0.1) = {below}");
    let s = &values(&["s=rand(1, 1e5, 'single')"], 1)[0].1;
    assert_eq!(s.class(), ClassId::Single);
    assert!(s
        .as_slice::<f32>()
        .unwrap()
        .iter()
        .all(|&v| v > 0.0 && v < 1.0));
}

/// `randn` is standard normal: mean 0, variance 1, kurtosis 3.
#[test]
fn randn_is_standard_normal() {
    let x = doubles(&values(&["x=randn(1, 1e6)"], 2)[0].1);
    let (mean, var, kurtosis) = moments(&x);
    assert!(mean.abs() < 0.007, "mean {mean}");
    assert!((var - 1.0).abs() < 0.01, "variance {var}");
    assert!((kurtosis - 3.0).abs() < 0.05, "kurtosis {kurtosis}");
    let within = x.iter().filter(|v| v.abs() < 1.0).count() as f64 / x.len() as f64;
    assert!((within - 0.682_689).abs() < 0.004, "P(|x| < 1) = {within}");
}

/// `randi` (m2cu's own `randi.m`) draws each integer of its range equally often (a chi-square
/// test of 1e6 draws over six values, far beyond its 1e-5 level only by chance), never one
/// outside, as doubles, repeatably by seed, in each of its forms.
#[test]
fn randi_is_uniform_on_its_integers() {
    let x = doubles(&values(&["x=randi([3 8], 1000, 1000)"], 3)[0].1);
    let mut counts = [0usize; 6];
    for v in &x {
        assert!(
            v.fract() == 0.0 && (3.0..=8.0).contains(v),
            "{v} outside 3..8"
        );
        counts[*v as usize - 3] += 1;
    }
    let expected = x.len() as f64 / 6.0;
    let chi2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - expected).powi(2) / expected)
        .sum();
    assert!(
        chi2 < 30.0,
        "chi-square {chi2} over 5 degrees of freedom: {counts:?}"
    );
    let draw = |seed| doubles(&values(&["x=randi(10, 1, 50)"], seed)[0].1);
    assert_eq!(draw(5), draw(5));
    assert_ne!(draw(5), draw(6));
    let v = values(&["a=randi(6)", "b=randi(6, 3)", "c=randi(6, [2 4])"], 1);
    let dims: Vec<Vec<usize>> = v.iter().map(|(_, v)| v.dims.clone()).collect();
    assert_eq!(dims, vec![vec![1, 1], vec![3, 3], vec![2, 4]]);
}

/// `randi` stops with Octave's messages for bounds it cannot draw from.
#[test]
fn randi_checks_its_bounds() {
    for (set, message) in [
        ("v=randi(0, 1, 3)", "randi: require IMAX >= 1"),
        ("v=randi([5 3], 1, 3)", "randi: require IMIN <= IMAX"),
        (
            "v=randi(2.5, 1, 3)",
            "randi: IMIN and IMAX must be integer bounds",
        ),
    ] {
        let (ok, _, err) = run_cpu("fixtures/e2e/vecsum.m", &["--set", set]);
        assert!(!ok, "{set}");
        assert!(err.contains(message), "{set}: {err}");
    }
}

fn m2cu(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `m2cu run FILE --backend cpu ARGS...`.
fn run_cpu(file: &str, args: &[&str]) -> (bool, String, String) {
    let mut all = vec!["run", file, "--backend", "cpu"];
    all.extend_from_slice(args);
    m2cu(&all)
}

/// What the pipeline cannot evaluate is an error located in the user's `--set` argument, with
/// the help line.
#[test]
fn errors_point_into_the_argument() {
    let (ok, _, err) = run_cpu("fixtures/e2e/vecsum.m", &["--set", "v=rand(1, 3, 'int8')"]);
    assert!(!ok);
    assert!(err.contains("--set:1:3"), "{err}");
    assert!(err.contains("v=rand(1, 3, 'int8')"), "{err}");
    assert!(err.contains("help: write rand(rows, cols)"), "{err}");
    let (ok, _, err) = run_cpu(
        "fixtures/e2e/vecsum.m",
        &["--set", "w=1", "--set", "v=[1 2] + undefined_thing"],
    );
    assert!(!ok);
    assert!(err.contains("--set:1:11"), "{err}");
    assert!(err.contains("help:"), "{err}");
}

/// The README's main command, and `--seed`: the values and the program share one seed.
#[test]
fn seed_option_selects_the_stream() {
    let run = |seed: &str| {
        let (ok, out, err) = run_cpu(
            "fixtures/e2e/vecsum.m",
            &["--set", "v=rand(1,1e6)", "--seed", seed],
        );
        assert!(ok, "{err}");
        let s: f64 = out.trim().trim_start_matches("s =").trim().parse().unwrap();
        assert!((s - 5e5).abs() < 2e3, "sum {s}");
        s
    };
    assert_eq!(run("5"), run("5"));
    assert_ne!(run("5"), run("6"));
}

/// Through the command line (issue 14): `--set 'x=rand(1,1e6)' --set 'y=rand(1,1e6)'` are two
/// draws, so the Monte Carlo estimate of pi is right, and `uint8(200)+1` reaches the program as
/// uint8 201.
#[test]
fn command_line_values_keep_streams_and_classes() {
    let dir = tempfile::tempdir().unwrap();
    let pi_file = dir.path().join("mcpi.m");
    std::fs::write(
        &pi_file,
        "function p = mcpi(x, y)\n  c = 0;\n  for i = 1:numel(x)\n    if x(i)^2 + y(i)^2 <= 1\n      c = c + 1;\n    end\n  end\n  p = 4 * c / numel(x);\nend\n",
    )
    .unwrap();
    let (ok, out, err) = run_cpu(
        pi_file.to_str().unwrap(),
        &["--set", "x=rand(1,1e6)", "--set", "y=rand(1,1e6)"],
    );
    assert!(ok, "{err}");
    let p: f64 = out.trim().trim_start_matches("p =").trim().parse().unwrap();
    assert!((p - std::f64::consts::PI).abs() < 0.01, "pi = {p}");

    let same_file = dir.path().join("same.m");
    std::fs::write(&same_file, "function y = same(x)\n  y = x;\nend\n").unwrap();
    let mat = dir.path().join("y.mat");
    let (ok, _, err) = run_cpu(
        same_file.to_str().unwrap(),
        &[
            "--set",
            "x=int8([100 100])*2",
            "--output",
            mat.to_str().unwrap(),
        ],
    );
    assert!(ok, "{err}");
    let y = &m2cu_runtime::read_mat(&mat).unwrap()[0].1;
    assert_eq!(y.class(), ClassId::Int8);
    assert_eq!(y.as_slice::<i8>(), Some(&[127i8, 127][..]));
}

/// `reshape` to another element count stops with MATLAB's error, naming `--set`.
#[test]
fn reshape_keeps_the_element_count() {
    let args = vec!["x=reshape(1:6, 4, 2)".to_string()];
    let err = set_values(&args, &SetOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("--set: Number of elements must not change."),
        "{err}"
    );
}

/// A program that draws: the fill before a loop leaves it parallel, a loop that draws stays
/// sequential, the kernels compile with NVRTC, and the CPU path and the emulated GPU draw the
/// same stream (the parallel sum may round differently).
#[test]
fn programs_that_draw_build_and_agree_across_backends() {
    let source = "function [s, w] = draws(v)\n  x = rand(size(v));\n  s = 0;\n  for i = 1:numel(v)\n    s = s + v(i) * x(i);\n  end\n  w = zeros(1, 10, 'single');\n  for k = 1:10\n    w(k) = randn(1, 'single') + rand;\n  end\nend\n";
    let inputs = vec![("v".to_string(), Value::row(vec![1.0; 100]))];
    let options = m2cu::Options {
        seed: 11,
        ..Default::default()
    };
    let t = m2cu::translate_for(source, &inputs, &options).unwrap();
    assert!(t.report.contains("reduction [s: sum]"), "{}", t.report);
    assert!(
        t.report
            .contains("the loop calls `randn`, whose random stream is drawn in order"),
        "{}",
        t.report
    );
    if m2cu_runtime::nvrtc_available().is_ok() {
        m2cu_runtime::compile_cubin(&t.generated.kernels_cu, "sm_80", "draws.kernels.cu").unwrap();
    }
    let run = |backend| {
        let run_options = m2cu::RunOptions {
            backend,
            ..Default::default()
        };
        m2cu::run(source, &inputs, &options, &run_options)
            .unwrap()
            .outputs
    };
    let (cpu, emu) = (run(m2cu::Backend::Cpu), run(m2cu::Backend::Emu));
    assert_eq!(cpu[1], emu[1], "the draws in the sequential loop");
    let s = cpu[0].1.as_slice::<f64>().unwrap()[0];
    let s_emu = emu[0].1.as_slice::<f64>().unwrap()[0];
    assert!(
        (s - s_emu).abs() < 1e-9,
        "{s} vs {s_emu} (the sum's order differs)"
    );
    assert!(s > 30.0 && s < 70.0, "sum of 100 uniforms: {s}");
    assert_eq!(cpu[1].1.class(), ClassId::Single);
}
