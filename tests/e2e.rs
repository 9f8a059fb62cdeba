//! Every end-to-end fixture, run on the CPU path through `m2cu::run`, must equal what GNU Octave
//! computed (`fixtures/e2e/NAME.out.mat`): same names, classes and sizes; integers and logicals
//! exactly; floating point within a relative 1e-12 (1e-5 for single, whose sums m2cu reorders).
//! With Octave installed, Octave also re-runs each fixture now and must agree with the stored
//! result, and must load the outputs m2cu writes.

mod common;

use m2cu::{Backend, RunOptions, Value};
use m2cu_runtime::Data;

fn run_cpu(name: &str) -> Vec<(String, Value)> {
    let path = common::e2e_path(name, ".m");
    let options = m2cu::Options {
        file_name: format!("{name}.m"),
        ..Default::default()
    };
    let run_options = RunOptions {
        backend: Backend::Cpu,
        ..Default::default()
    };
    m2cu::run(
        &common::source(&path),
        &common::inputs(name),
        &options,
        &run_options,
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
    .outputs
}

/// Why `actual` differs from `expected`, or `None` when they agree.
fn difference(expected: &Value, actual: &Value) -> Option<String> {
    if expected.class() != actual.class() {
        return Some(format!(
            "class {} instead of {}",
            actual.class().name(),
            expected.class().name()
        ));
    }
    if expected.dims != actual.dims {
        return Some(format!(
            "size {:?} instead of {:?}",
            actual.dims, expected.dims
        ));
    }
    let close = |tol: f64| {
        move |(k, (e, a)): (usize, (f64, f64))| {
            let same =
                (e.is_nan() && a.is_nan()) || e == a || (e - a).abs() <= tol * e.abs().max(a.abs());
            (!same).then(|| format!("element {} is {a:e}, Octave has {e:e}", k + 1))
        }
    };
    match (&expected.data, &actual.data) {
        (Data::Double(e), Data::Double(a)) => e
            .iter()
            .copied()
            .zip(a.iter().copied())
            .enumerate()
            .find_map(close(1e-12)),
        (Data::Single(e), Data::Single(a)) => e
            .iter()
            .map(|&x| x as f64)
            .zip(a.iter().map(|&x| x as f64))
            .enumerate()
            .find_map(close(1e-5)),
        (e, a) => (e != a).then(|| format!("{a:?} instead of {e:?}")),
    }
}

#[test]
fn cpu_path_matches_octave() {
    let mut failures = Vec::new();
    for name in common::e2e_fixtures() {
        let expected = common::expected(&name);
        let actual = run_cpu(&name);
        let names: Vec<&String> = actual.iter().map(|(n, _)| n).collect();
        assert_eq!(
            names,
            expected.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            "{name}: output names"
        );
        for ((out, e), (_, a)) in expected.iter().zip(&actual) {
            if let Some(why) = difference(e, a) {
                failures.push(format!("{name}: output `{out}`: {why}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "mismatches with Octave:\n{}",
        failures.join("\n")
    );
}

/// Octave runs each fixture now, compares with the stored expected outputs, and loads the file
/// m2cu wrote with its own `save`-compatible writer.
#[test]
fn octave_agrees_and_reads_m2cu_output() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let mut script = String::from("failures = 0;\n");
    for name in common::e2e_fixtures() {
        let written = dir.path().join(format!("{name}.m2cu.mat"));
        m2cu_runtime::write_mat(&written, &run_cpu(&name)).expect("write outputs");
        script.push_str(&octave_check(&name, &written.display().to_string()));
    }
    script.push_str("if failures > 0, exit(1); end\n");
    let out = std::process::Command::new("octave-cli")
        .args(["--no-gui", "--quiet", "--no-init-file", "--eval", &script])
        .current_dir(common::root().join("fixtures/e2e"))
        .output()
        .expect("octave-cli runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "Octave disagrees:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        text.matches("ok ").count(),
        common::e2e_fixtures().len(),
        "{text}"
    );
}

fn octave_check(name: &str, written: &str) -> String {
    let t = common::translate_fixture(name);
    let outs: Vec<&str> = t.outputs.iter().map(|(n, _)| n.as_str()).collect();
    let params = t.params.join(", ");
    let list = outs.join(", ");
    let compare: String = outs
        .iter()
        .map(|o| {
            format!(
                "  if ~strcmp(class(E.{o}), class(M.{o})) || ~isequal(size(E.{o}), size(M.{o})) || ~isequal(class(L.{o}), class(E.{o})) || ~isequaln(L.{o}, E.{o}), bad = 1; printf('{name}.{o} differs\\n'); end\n  if isfloat(E.{o}) && any(abs(double(M.{o}(:)) - double(E.{o}(:))) > 1e-5 * max(1, abs(double(E.{o}(:))))), bad = 1; printf('{name}.{o} m2cu value differs\\n'); end\n  if ~isfloat(E.{o}) && ~isequal(M.{o}, E.{o}), bad = 1; printf('{name}.{o} m2cu value differs\\n'); end\n"
            )
        })
        .collect();
    format!(
        "bad = 0;\nI = load('{name}.in.mat'); E = load('{name}.out.mat'); M = load('{written}');\n{params_assign}[{list}] = {name}({params});\nL = struct();\n{store}{compare}if bad, failures = failures + 1; else printf('ok {name}\\n'); end\n",
        params_assign = t.params.iter().map(|p| format!("{p} = I.{p}; ")).collect::<String>(),
        store = outs.iter().map(|o| format!("L.{o} = {o}; ")).collect::<String>() + "\n",
    )
}
