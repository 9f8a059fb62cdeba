//! Shared helpers of the integration tests: the fixtures, their inputs, and tool probes that
//! skip with a printed reason (or fail under `CI=true`).

#![allow(dead_code)]

pub mod adversarial;
pub mod runnable;

use std::path::{Path, PathBuf};

use m2cu::{Backend, RunOptions, Value};
use m2cu_runtime::Data;

/// The repository root: `$M2CU_REPO_ROOT` when set (a test binary copied to another machine,
/// e.g. by `bench/gpu/pack.sh`, finds the fixtures there), else where the tests were built.
pub fn root() -> PathBuf {
    std::env::var_os("M2CU_REPO_ROOT")
        .filter(|dir| !dir.is_empty())
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from)
}

/// The analysis fixtures, `fixtures/analysis/*.m`, sorted.
pub fn analysis_fixtures() -> Vec<PathBuf> {
    fixture_files("analysis")
}

/// The `.m` files of `fixtures/<subdir>`, sorted.
pub fn fixture_files(subdir: &str) -> Vec<PathBuf> {
    let dir = root().join("fixtures").join(subdir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "m"))
        .collect();
    files.sort();
    files
}

/// The end-to-end fixtures: every `fixtures/e2e/NAME.m` that has a `NAME.in.mat`.
pub fn e2e_fixtures() -> Vec<String> {
    let dir = root().join("fixtures/e2e");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("fixtures/e2e exists")
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?.strip_suffix(".m")?.to_string();
            dir.join(format!("{name}.in.mat")).exists().then_some(name)
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 12,
        "expected the e2e fixtures, found {names:?}"
    );
    names
}

pub fn e2e_path(name: &str, ext: &str) -> PathBuf {
    root().join("fixtures/e2e").join(format!("{name}{ext}"))
}

/// The Octave twin of the fixture at `path`, `NAME_octave.m` beside `NAME.m`: the same function
/// in the forms Octave 7 has, for a fixture written with MATLAB's forms that Octave lacks
/// (`'omitnan'`, `'all'`). Octave computes a fixture's expected outputs with its twin.
pub fn octave_twin(path: &Path) -> Option<PathBuf> {
    let stem = path.file_stem()?.to_str()?;
    let twin = path.with_file_name(format!("{stem}_octave.m"));
    twin.exists().then_some(twin)
}

/// The text Octave runs for the fixture at `path`: its twin's, renamed to the fixture's name,
/// when it has one, else its own.
pub fn octave_source(path: &Path) -> String {
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    match octave_twin(path) {
        Some(twin) => source(&twin).replacen(&format!("{stem}_octave("), &format!("{stem}("), 1),
        None => source(path),
    }
}

pub fn source(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

pub fn inputs(name: &str) -> Vec<(String, Value)> {
    m2cu::read_mat_file(&e2e_path(name, ".in.mat")).expect("fixture inputs load")
}

/// The outputs Octave saved, as stored: a complex output whose imaginary parts are zero stays
/// complex (Octave's `load`, and `m2cu::read_mat_file`, would narrow it).
pub fn expected(name: &str) -> Vec<(String, Value)> {
    m2cu_runtime::read_mat(e2e_path(name, ".out.mat")).expect("fixture outputs load")
}

/// `true` when running under CI, where missing tools are failures.
pub fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Skips (returns `false`) with a printed reason, or panics under CI.
pub fn require(available: Result<(), String>, what: &str) -> bool {
    match available {
        Ok(()) => true,
        Err(why) if ci() => panic!("{what} is required under CI=true: {why}"),
        Err(why) => {
            eprintln!("skipping: {what} is not available: {why}");
            false
        }
    }
}

/// Whether `nvcc` (CUDA's compiler, which `.ci/run` puts on the `PATH` from NVIDIA's wheels)
/// runs here.
pub fn nvcc_available() -> Result<(), String> {
    match std::process::Command::new("nvcc").arg("--version").output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(format!(
            "`nvcc --version` failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )),
        Err(e) => Err(format!("no `nvcc` on the PATH ({e})")),
    }
}

pub fn octave_available() -> Result<(), String> {
    m2cu_runtime::octave::available().map(drop)
}

/// `--args` of `fixtures/e2e/saxpy.m` (`y = saxpy(a, x, y)`), as the README types them.
pub const SAXPY_ARGS: [&str; 6] = [
    "--args",
    "a=double",
    "--args",
    "x=double(1,:)",
    "--args",
    "y=double(1,:)",
];

/// What Octave prints for each of `calls` (statements) run in `dir`, each in `try`: the
/// statement's own output, or `identifier | message` of the error it raises.
pub fn octave_errors(dir: &Path, calls: &[String]) -> String {
    let script: String = calls
        .iter()
        .map(|c| {
            format!("try\n  {c}\ncatch e\n  printf('%s | %s\\n', e.identifier, e.message);\nend\n")
        })
        .collect();
    m2cu_runtime::octave::eval(dir, &script).unwrap_or_else(|e| panic!("Octave failed:\n{e}"))
}

/// Whether GNU Octave's `mkoctfile` (Debian: liboctave-dev) runs, which builds MEX functions.
pub fn mkoctfile_available() -> Result<(), String> {
    match std::process::Command::new("mkoctfile")
        .arg("--version")
        .output()
    {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "mkoctfile --version failed: {}",
            String::from_utf8_lossy(&o.stderr)
        )),
        Err(e) => Err(format!(
            "mkoctfile not found ({e}); install it with `apt-get install liboctave-dev`"
        )),
    }
}

/// Translates a fixture with the types of its inputs.
pub fn translate_fixture(name: &str) -> m2cu::Translation {
    let path = e2e_path(name, ".m");
    m2cu::translate(&source(&path), &fixture_options(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The options that translate a fixture with the types of its inputs.
pub fn fixture_options(name: &str) -> m2cu::Options {
    m2cu::Options {
        file_name: format!("{name}.m"),
        args: inputs(name).iter().map(|(n, v)| arg_spec(n, v)).collect(),
        search_path: e2e_search_path(),
        dialect: dialect_of(&source(&e2e_path(name, ".m"))),
        nargin: Some(inputs(name).len()),
        ..Default::default()
    }
}

/// The language a fixture is written in: Octave's when a line says `% m2cu-dialect: octave`
/// (as `--dialect octave` would be given), MATLAB otherwise.
pub fn dialect_of(source: &str) -> m2cu::Dialect {
    if source.lines().any(|l| l.trim() == "% m2cu-dialect: octave") {
        m2cu::Dialect::Octave
    } else {
        m2cu::Dialect::Matlab
    }
}

/// Where the e2e fixtures' calls find functions in other files: their own folder.
pub fn e2e_search_path() -> Vec<PathBuf> {
    vec![root().join("fixtures/e2e")]
}

/// The `--args` spec `run` would derive from an actual input.
pub fn arg_spec(name: &str, v: &Value) -> String {
    let class = if v.is_complex() {
        "complex"
    } else {
        v.class().name()
    };
    if v.dims.len() == 3 {
        return format!("{name}={class}({},:,:)", v.rows());
    }
    let dims = match (v.rows(), v.cols()) {
        (1, 1) => String::new(),
        (1, _) => "(1,:)".into(),
        (_, 1) => "(:,1)".into(),
        (rows, _) => format!("({rows},:)"),
    };
    format!("{name}={class}{dims}")
}

/// Options that run on `backend`, the rest default.
pub fn on(backend: Backend) -> RunOptions {
    RunOptions {
        backend,
        ..Default::default()
    }
}

/// A run's backend and, on the emulator, its device: for failure messages.
pub fn describe(run: &RunOptions) -> String {
    match run.backend {
        Backend::Emu => format!("Emu({:?})", run.emu),
        backend => format!("{backend:?}"),
    }
}

/// Runs a fixture on `backend` with its stored inputs.
pub fn run_fixture(name: &str, backend: Backend) -> Vec<(String, Value)> {
    run_fixture_with(name, &on(backend))
}

/// Runs a fixture with its stored inputs.
pub fn run_fixture_with(name: &str, run_options: &RunOptions) -> Vec<(String, Value)> {
    run_fixture_translated(name, &m2cu::Options::default(), run_options)
}

/// Runs a fixture with its stored inputs, translated with `base` (its file name set). The
/// inputs are given (`&mut`), so an output that is also an input is computed in its memory
/// where the generated code can (`function y = f(a, x, y)` on the C path).
pub fn run_fixture_translated(
    name: &str,
    base: &m2cu::Options,
    run_options: &RunOptions,
) -> Vec<(String, Value)> {
    let text = source(&e2e_path(name, ".m"));
    let options = m2cu::Options {
        file_name: format!("{name}.m"),
        search_path: e2e_search_path(),
        dialect: dialect_of(&text),
        ..base.clone()
    };
    m2cu::run(&text, &mut inputs(name), &options, run_options)
        .unwrap_or_else(|e| panic!("{name} on {}: {e}", describe(run_options)))
        .outputs
}

/// Every difference between the fixtures' outputs on `backend` and Octave's stored outputs.
pub fn mismatches_with_octave(backend: Backend) -> Vec<String> {
    mismatches_with_octave_on(&e2e_fixtures(), &on(backend))
}

/// Every difference between the outputs of the e2e fixtures `names` run with `run_options` and
/// Octave's stored outputs.
pub fn mismatches_with_octave_on(names: &[String], run_options: &RunOptions) -> Vec<String> {
    mismatches_with_octave_translated(names, &m2cu::Options::default(), run_options)
}

/// [`mismatches_with_octave_on`], the fixtures translated with `base`.
pub fn mismatches_with_octave_translated(
    names: &[String],
    base: &m2cu::Options,
    run_options: &RunOptions,
) -> Vec<String> {
    mismatches_with_octave_compared(names, base, run_options, |_| difference)
}

/// [`mismatches_with_octave_translated`], each fixture's outputs compared by the function that
/// `differ_for` gives for its name.
pub fn mismatches_with_octave_compared<D: Fn(&Value, &Value) -> Option<String>>(
    names: &[String],
    base: &m2cu::Options,
    run_options: &RunOptions,
    differ_for: impl Fn(&str) -> D,
) -> Vec<String> {
    names
        .iter()
        .flat_map(|name| mismatches_of(name, base, run_options, differ_for(name)))
        .collect()
}

/// How fixture `name`'s outputs, translated with `base` and run with `run_options`, differ
/// from Octave's stored ones by `differ`, each difference prefixed with the name.
pub fn mismatches_of(
    name: &str,
    base: &m2cu::Options,
    run_options: &RunOptions,
    differ: impl Fn(&Value, &Value) -> Option<String>,
) -> Vec<String> {
    let actual = run_fixture_translated(name, base, run_options);
    mismatches_in(name, &actual, differ)
}

/// How `actual`, fixture `name`'s outputs, differ from Octave's stored ones by `differ`, each
/// difference prefixed with the name; the outputs' names must be Octave's, in order.
pub fn mismatches_in(
    name: &str,
    actual: &[(String, Value)],
    differ: impl Fn(&Value, &Value) -> Option<String>,
) -> Vec<String> {
    let expected = expected(name);
    let names: Vec<&String> = actual.iter().map(|(n, _)| n).collect();
    assert_eq!(
        names,
        expected.iter().map(|(n, _)| n).collect::<Vec<_>>(),
        "{name}: output names"
    );
    output_differences_by(&expected, actual, differ)
        .into_iter()
        .map(|why| format!("{name}: {why}"))
        .collect()
}

/// The failures `check` finds in each of `items`, in their order, checked on as many threads
/// as there are cores; a check that panics fails with the panic's message.
pub fn failures_in_parallel<T: Sync>(
    items: &[T],
    describe: impl Fn(&T) -> String + Sync,
    check: impl Fn(&T) -> Vec<String> + Sync,
) -> Vec<String> {
    let workers = std::thread::available_parallelism().map_or(2, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found = std::sync::Mutex::new(vec![Vec::new(); items.len()]);
    std::thread::scope(|scope| {
        for _ in 0..workers.min(items.len()) {
            scope.spawn(|| loop {
                let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(item) = items.get(k) else {
                    break;
                };
                let failures =
                    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(item)))
                        .unwrap_or_else(|panic| {
                            let why = panic
                                .downcast_ref::<String>()
                                .map(String::as_str)
                                .or_else(|| panic.downcast_ref::<&str>().copied())
                                .unwrap_or("(no message)");
                            vec![format!("{}: panicked: {why}", describe(item))]
                        });
                found.lock().unwrap()[k] = failures;
            });
        }
    });
    found.into_inner().unwrap().concat()
}

/// Each output of `expected` that `actual` lacks or has with another value.
pub fn output_differences(expected: &[(String, Value)], actual: &[(String, Value)]) -> Vec<String> {
    output_differences_by(expected, actual, difference)
}

/// Each output of `expected` that `actual` lacks or that `differ` finds different.
pub fn output_differences_by(
    expected: &[(String, Value)],
    actual: &[(String, Value)],
    differ: impl Fn(&Value, &Value) -> Option<String>,
) -> Vec<String> {
    expected
        .iter()
        .filter_map(|(out, e)| {
            let why = match actual.iter().find(|(n, _)| n == out) {
                Some((_, a)) => differ(e, a)?,
                None => "missing".to_string(),
            };
            Some(format!("output `{out}`: {why}"))
        })
        .collect()
}

/// Why `actual` differs from `expected`, or `None` when they agree.
///
/// Scalars may be reductions, whose order m2cu changes, and agree within a relative 1e-12
/// (double) or 1e-5 (single); array elements come from maps and in-thread loops, which keep
/// MATLAB's order, so they must agree exactly.
pub fn difference(expected: &Value, actual: &Value) -> Option<String> {
    let tolerance = if expected.is_scalar() {
        Tolerance::REASSOCIATED
    } else {
        Tolerance::EXACT
    };
    difference_within(expected, actual, tolerance)
}

/// The relative difference allowed between floating-point elements.
#[derive(Clone, Copy, Debug)]
pub struct Tolerance {
    pub double: f64,
    pub single: f64,
    /// The smallest magnitude a difference is relative to: an element's own magnitude when it
    /// is larger, else this. A value that cancels to near zero keeps the absolute error of the
    /// terms it came from, whose magnitude this gives (0: every element is its own scale).
    pub floor: f64,
}

impl Tolerance {
    pub const EXACT: Tolerance = Tolerance {
        double: 0.0,
        single: 0.0,
        floor: 0.0,
    };
    /// Values computed through a floating-point reduction that m2cu may reassociate.
    pub const REASSOCIATED: Tolerance = Tolerance {
        double: 1e-12,
        single: 1e-5,
        floor: 0.0,
    };

    /// Norm-wise: relative 1e-12 (double) or 1e-5 (single) of `scale`, the magnitude of the
    /// values the program computes (see [`largest_finite_magnitude`]), or of the element where
    /// larger. For values computed through elementary functions (`exp`, `log`, `^`, ...) of a
    /// math library that is not correctly rounded, such as CUDA's (a few ulps), where Octave
    /// uses glibc's, and for reassociated sums whose results cancel.
    pub fn norm_wise(scale: f64) -> Tolerance {
        Tolerance {
            floor: scale,
            ..Tolerance::REASSOCIATED
        }
    }
}

/// Why `actual` differs from `expected` by more than `tolerance`, or `None` when they agree.
pub fn difference_within(expected: &Value, actual: &Value, tolerance: Tolerance) -> Option<String> {
    if expected.class() != actual.class() {
        return Some(format!(
            "class {} instead of {}",
            actual.class().name(),
            expected.class().name()
        ));
    }
    if expected.is_complex() != actual.is_complex() {
        let kind = |v: &Value| if v.is_complex() { "complex" } else { "real" };
        return Some(format!("{} instead of {}", kind(actual), kind(expected)));
    }
    if expected.dims != actual.dims {
        return Some(format!(
            "size {:?} instead of {:?}",
            actual.dims, expected.dims
        ));
    }
    let (tol_double, tol_single) = (tolerance.double, tolerance.single);
    let close = |tol: f64| {
        move |(k, (e, a)): (usize, (f64, f64))| {
            // An infinity matches only itself (the relative tolerance of one would be infinite).
            let scale = e.abs().max(a.abs()).max(tolerance.floor);
            let close = e.is_finite() && a.is_finite() && (e - a).abs() <= tol * scale;
            let same = (e.is_nan() && a.is_nan()) || e == a || close;
            (!same).then(|| format!("element {} is {a:e}, Octave has {e:e}", k + 1))
        }
    };
    match (&expected.data, &actual.data) {
        (Data::Double(e), Data::Double(a)) => e
            .iter()
            .copied()
            .zip(a.iter().copied())
            .enumerate()
            .find_map(close(tol_double)),
        (Data::Single(e), Data::Single(a)) => e
            .iter()
            .map(|&x| x as f64)
            .zip(a.iter().map(|&x| x as f64))
            .enumerate()
            .find_map(close(tol_single)),
        // Element k's real part is part 2k, its imaginary part 2k + 1 (counted from 0).
        (Data::ComplexDouble(e), Data::ComplexDouble(a)) => e
            .iter()
            .flatten()
            .copied()
            .zip(a.iter().flatten().copied())
            .enumerate()
            .find_map(close(tol_double))
            .map(|why| format!("part (real, imaginary) {why}")),
        (e, a) => (e != a).then(|| format!("{a:?} instead of {e:?}")),
    }
}

/// The largest finite magnitude among floating-point `data` (0 for other classes).
pub fn largest_finite_magnitude(data: &Data) -> f64 {
    let parts: Vec<f64> = match data {
        Data::Double(v) => v.clone(),
        Data::Single(v) => v.iter().map(|&x| x as f64).collect(),
        Data::ComplexDouble(v) => v.iter().flatten().copied().collect(),
        _ => Vec::new(),
    };
    parts
        .into_iter()
        .filter(|x| x.is_finite())
        .fold(0.0, |m, x| m.max(x.abs()))
}

/// `m2cu::run` in a thread of its own, or `None` when it has not finished within `limit` (the
/// thread is left to run: the generated program cannot be stopped from outside), so that a
/// program that hangs fails its test instead of stopping it.
pub fn run_within(
    source: String,
    inputs: Vec<(String, Value)>,
    options: m2cu::Options,
    run_options: RunOptions,
    limit: std::time::Duration,
) -> Option<Result<m2cu::RunResult, m2cu::Error>> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(m2cu::run(&source, &inputs, &options, &run_options));
    });
    receive.recv_timeout(limit).ok()
}

/// Runs the `m2cu` binary with `args` in the repository root.
pub fn m2cu(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("m2cu runs")
}

/// The functions whose results CUDA's math library gives within a few ulps of the correctly
/// rounded value that glibc (and so Octave) gives: `abs` and `angle` of a complex value call
/// `hypot` and `atan2`, a power calls `pow`. CUDA's `sqrt`, `+`, `*` and `/` round correctly.
const ELEMENTARY: [&str; 20] = [
    "exp", "expm1", "log", "log2", "log10", "log1p", "sin", "cos", "tan", "asin", "acos", "atan",
    "atan2", "sinh", "cosh", "tanh", "abs", "angle", "hypot", "power",
];

/// Why an expected value and an actual one differ, or `None` when they agree.
pub type Comparison = Box<dyn Fn(&Value, &Value) -> Option<String>>;

/// How fixture `name`'s outputs are compared with Octave's on the GPU: exactly (reductions
/// within a relative 1e-12, as everywhere), or, where its source calls an elementary function
/// or writes a power, within [`Tolerance::norm_wise`] of the largest magnitude among
/// its outputs (a residual such as `abs(h) - abs(p)` cancels terms of that magnitude).
pub fn gpu_comparison(name: &str) -> Comparison {
    let source = source(&e2e_path(name, ".m"));
    let calls_elementary = source.lines().any(|line| {
        let code = line.split('%').next().unwrap_or("");
        code.contains('^')
            || code
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .any(|word| ELEMENTARY.contains(&word))
    });
    if !calls_elementary {
        return Box::new(difference);
    }
    let scale = expected(name)
        .iter()
        .map(|(_, v)| largest_finite_magnitude(&v.data))
        .fold(0.0, f64::max);
    Box::new(move |e, a| difference_within(e, a, Tolerance::norm_wise(scale)))
}

/// The stand-in CUDA driver (`tests/cuda_services/driver.c`) built into `dir`: device memory in
/// host memory, kernels on the emulator library `$M2CU_EMU_KERNELS` names.
pub fn stand_in_driver(dir: &Path) -> PathBuf {
    let library = dir.join("libcuda-stand-in.so");
    let source = root().join("tests/cuda_services/driver.c");
    let built = std::process::Command::new(std::env::var("CC").unwrap_or("cc".into()))
        .args(["-shared", "-fPIC", "-O1", "-o"])
        .arg(&library)
        .arg(&source)
        .arg("-ldl")
        .output()
        .expect("the C compiler runs");
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    library
}
