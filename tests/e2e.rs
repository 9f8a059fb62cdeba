//! Every end-to-end fixture, run on the CPU path through `m2cu::run`, must equal what GNU Octave
//! computed (`fixtures/e2e/NAME.out.mat`): same names, classes and sizes; integers, logicals and
//! every array element exactly; floating-point scalars (which may be reductions m2cu reorders)
//! within a relative 1e-12 (1e-5 for single).
//! With Octave installed, Octave also re-runs each fixture now (its Octave twin, `NAME_octave.m`,
//! where it has one: `common::octave_twin`) and must agree with the stored result, and must load
//! the outputs m2cu writes.

mod common;

use m2cu::{Backend, Value};

fn run_cpu(name: &str) -> Vec<(String, Value)> {
    common::run_fixture(name, Backend::Cpu)
}

#[test]
fn cpu_path_matches_octave() {
    let failures = common::mismatches_with_octave(Backend::Cpu);
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
    let mut script = String::from("m2cu_failures = 0;\n");
    for name in common::e2e_fixtures() {
        let written = dir.path().join(format!("{name}.m2cu.mat"));
        m2cu_runtime::write_mat(&written, &run_cpu(&name)).expect("write outputs");
        script.push_str(&octave_check(&name, &written.display().to_string()));
    }
    script.push_str("if m2cu_failures > 0, exit(1); end\n");
    let text = m2cu_runtime::octave::eval(&common::root().join("fixtures/e2e"), &script)
        .unwrap_or_else(|e| panic!("Octave disagrees:\n{e}"));
    assert_eq!(
        text.matches("ok ").count(),
        common::e2e_fixtures().len(),
        "{text}"
    );
}

fn octave_check(name: &str, written: &str) -> String {
    let t = common::translate_fixture(name);
    let function = match common::octave_twin(&common::e2e_path(name, ".m")) {
        Some(_) => format!("{name}_octave"),
        None => name.to_string(),
    };
    let outs: Vec<&str> = t.outputs.iter().map(|(n, _)| n.as_str()).collect();
    let params = t.params.join(", ");
    let list = outs.join(", ");
    let compare: String = outs
        .iter()
        .map(|o| {
            format!(
                "  if ~strcmp(class(m2cu_E.{o}), class(m2cu_M.{o})) || ~isequal(size(m2cu_E.{o}), size(m2cu_M.{o})) || ~isequal(class(m2cu_L.{o}), class(m2cu_E.{o})) || ~isequaln(m2cu_L.{o}, m2cu_E.{o}) || iscomplex(m2cu_M.{o}) ~= iscomplex(m2cu_E.{o}), m2cu_bad = 1; printf('{name}.{o} differs\\n'); end\n  if isfloat(m2cu_E.{o}) && any(abs(double(m2cu_M.{o}(:)) - double(m2cu_E.{o}(:))) > 1e-5 * max(1, abs(double(m2cu_E.{o}(:))))), m2cu_bad = 1; printf('{name}.{o} m2cu value differs\\n'); end\n  if ~isfloat(m2cu_E.{o}) && ~isequal(m2cu_M.{o}, m2cu_E.{o}), m2cu_bad = 1; printf('{name}.{o} m2cu value differs\\n'); end\n"
            )
        })
        .collect();
    format!(
        "m2cu_bad = 0;\nm2cu_I = load('{name}.in.mat'); m2cu_E = load('{name}.out.mat'); m2cu_M = load('{written}');\n{params_assign}[{list}] = {function}({params});\nm2cu_L = struct();\n{store}{compare}if m2cu_bad, m2cu_failures = m2cu_failures + 1; else printf('ok {name}\\n'); end\n",
        params_assign = t.params.iter().map(|p| format!("{p} = m2cu_I.{p}; ")).collect::<String>(),
        store = outs.iter().map(|o| format!("m2cu_L.{o} = {o}; ")).collect::<String>() + "\n",
    )
}

/// The outputs of `source` run on `backend` with `inputs`; a failure panics, naming the backend.
fn run_source(
    source: &str,
    inputs: &[(String, Value)],
    options: &m2cu::Options,
    backend: Backend,
) -> Vec<(String, Value)> {
    m2cu::run(source, inputs, options, &common::on(backend))
        .unwrap_or_else(|e| panic!("{backend:?}: {e}"))
        .outputs
}

/// `mod` and `rem` of int64 by -1 are 0 (MATLAB's answer) on both paths; in C,
/// `INT64_MIN % -1` traps, and Octave 7.3 itself loops on floating-point exceptions there, so
/// this has no stored Octave result.
#[test]
fn int64_mod_and_rem_by_minus_one_do_not_trap() {
    let source = "function [m, r] = f(x, y)\n  m = mod(x, y);\n  r = rem(x, y);\nend\n";
    let inputs = vec![
        ("x".to_string(), Value::row(vec![i64::MIN, -7, 7, i64::MAX])),
        ("y".to_string(), Value::scalar(-1i64)),
    ];
    for backend in [Backend::Cpu, Backend::Emu] {
        let outputs = run_source(source, &inputs, &m2cu::Options::default(), backend);
        for (name, value) in &outputs {
            assert_eq!(
                value.as_slice::<i64>(),
                Some(&[0i64, 0, 0, 0][..]),
                "{backend:?}: {name}"
            );
        }
    }
}

/// `rand`, `randn` and `randi` draw the same values on the C path and in kernels for a seed
/// (one counter-based stream per call), and another seed draws others.
#[test]
fn random_draws_are_the_same_on_every_path() {
    let source = "function [u, z, k] = draws(n)\n  u = rand(1, n);\n  z = randn(n, 2);\n  k = randi([-3 3], 1, n);\nend\n";
    let inputs = vec![("n".to_string(), Value::scalar(1000.0))];
    let draw = |backend, seed| {
        let options = m2cu::Options {
            seed,
            ..Default::default()
        };
        run_source(source, &inputs, &options, backend)
    };
    let cpu = draw(Backend::Cpu, 11);
    assert_eq!(cpu, draw(Backend::Emu, 11));
    assert_ne!(cpu, draw(Backend::Cpu, 12));
}

/// `'omitnan'` of a scalar is MATLAB's: the reduction of nothing for NaN (a sum 0, a product 1,
/// a mean NaN), the value itself otherwise, on both paths. (Octave 7 has no 'omitnan', and
/// fixture `rainlog` covers arrays against its Octave twin.)
#[test]
fn omitnan_of_a_scalar_is_the_reduction_of_nothing() {
    let source = "function [s, p, m, t] = f(x, y)\n  s = sum(x, 'omitnan');\n  p = prod(x, 'omitnan');\n  m = mean(x, 'omitnan');\n  t = sum(y, 'omitnan');\nend\n";
    let inputs = vec![
        ("x".to_string(), Value::scalar(f64::NAN)),
        ("y".to_string(), Value::scalar(5.0)),
    ];
    for backend in [Backend::Cpu, Backend::Emu] {
        let outputs = run_source(source, &inputs, &m2cu::Options::default(), backend);
        let got: Vec<f64> = outputs
            .iter()
            .map(|(_, v)| v.as_slice::<f64>().expect("double")[0])
            .collect();
        assert_eq!(got[0], 0.0, "{backend:?}: sum");
        assert_eq!(got[1], 1.0, "{backend:?}: prod");
        assert!(got[2].is_nan(), "{backend:?}: mean {}", got[2]);
        assert_eq!(got[3], 5.0, "{backend:?}: sum of 5");
    }
}
