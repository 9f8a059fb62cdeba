//! Complex scalars crossing the entry function's boundary (`lower::complex_io`, the runtime's
//! `Data::ComplexDouble`): `--set` values, the CLI's display, `.mat` inputs and outputs, the
//! library's `Value`, and the e2e fixtures with complex inputs or outputs, on the C path and
//! on the emulated GPU, each against GNU Octave 7.3.

mod common;

use m2cu::{Backend, Value};
use m2cu_runtime::Data;

/// The e2e fixtures of complex values at the boundary (`fixtures/e2e/README.md`).
const FIXTURES: [&str; 9] = [
    "cnewton",
    "cquadroots",
    "cimpedance",
    "crotate",
    "cpolar",
    "clast_sample",
    "cspectrum",
    "croots_list",
    "croots_table",
];

/// The non-blank lines of a display, without the backend's timing line, exactly as printed.
fn lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("m2cu:"))
        .collect()
}

/// `m2cu run file --set ...` on `backend`: its standard output.
fn run_cli(file: &str, sets: &[&str], backend: &str) -> String {
    let mut args = vec!["run", file, "--backend", backend];
    for s in sets {
        args.extend(["--set", s]);
    }
    let o = common::m2cu(&args);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{file} {backend} {sets:?}: {out}{err}");
    out
}

#[test]
fn complex_fixtures_match_octave_on_cpu_and_emu() {
    let names: Vec<String> = FIXTURES.iter().map(|n| n.to_string()).collect();
    for backend in [Backend::Cpu, Backend::Emu] {
        let failures = common::mismatches_with_octave_on(&names, &common::on(backend));
        assert!(failures.is_empty(), "{backend:?}:\n{}", failures.join("\n"));
    }
}

/// `--set 'z=1+2i'`, `complex(1, 0)` and `-1.5+0.25i`: the outputs print what Octave prints for
/// the same call, computed, kept (`complex(x, 0)`), narrowed (`x + 0i`) and passed through.
#[test]
fn complex_scalars_cross_the_cli_as_octave_prints_them() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let dir = common::root().join("fixtures/complex");
    let cases = [
        ("1+2i", "3"),
        ("complex(1,0)", "-1"),
        ("-1.5+0.25i", "0"),
        ("complex(Inf,NaN)", "2"),
        ("3-4j", "1e10"),
    ];
    for (z, x) in cases {
        let call = format!("[w, m, r, s, z] = crossing({z}, {x})");
        let octave = m2cu_runtime::octave::eval(&dir, &call).expect("octave runs");
        for backend in ["cpu", "emu"] {
            let (zs, xs) = (format!("z={z}"), format!("x={x}"));
            let out = run_cli("fixtures/complex/crossing.m", &[&zs, &xs], backend);
            let (ours, theirs) = (lines(&out), lines(&octave));
            assert_eq!(ours.len(), 5, "{out}");
            // `m` and `s` are real: m2cu prints them in MATLAB's format, Octave in its own.
            for k in [0, 2, 4] {
                assert_eq!(ours[k], theirs[k], "{backend} z={z} x={x}");
            }
        }
    }
}

/// A `.mat` input with a complex scalar and the `.mat` output m2cu writes: Octave's values,
/// complex kept and narrowed as Octave returns them.
#[test]
fn complex_values_cross_mat_files() {
    let out = tempfile::tempdir().unwrap();
    for backend in ["cpu", "emu"] {
        let written = out.path().join(format!("crotate_{backend}.mat"));
        let o = common::m2cu(&[
            "run",
            "fixtures/e2e/crotate.m",
            "--backend",
            backend,
            "--inputs",
            "fixtures/e2e/crotate.in.mat",
            "--output",
            written.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let ours = m2cu_runtime::read_mat(&written).unwrap();
        let expected = common::expected("crotate");
        let why = common::output_differences(&expected, &ours);
        assert!(why.is_empty(), "{backend}: {why:?}");
        let onaxis = &ours.iter().find(|(n, _)| n == "onaxis").unwrap().1;
        assert_eq!(onaxis, &Value::scalar([3.0, 0.0]));
    }
}

/// The library's values: a complex input, a kept and a narrowed complex output; a program
/// prepared for a complex input refuses a real one (a real value is simply real in MATLAB,
/// and the program is specialized for complex).
#[test]
fn library_values_carry_complex_scalars() {
    let source = "function [w, r, n] = f(z)\n  w = z * 2;\n  r = complex(real(z), 0);\n  n = z - 1i * imag(z);\nend\n";
    let z = vec![("z".to_string(), Value::scalar([1.5, -2.0]))];
    let run_options = common::on(Backend::Cpu);
    let program =
        m2cu::Program::prepare(source, &z, &m2cu::Options::default(), &run_options).unwrap();
    let outputs = program.call(&z).unwrap();
    assert_eq!(outputs[0].1, Value::scalar([3.0, -4.0]));
    assert_eq!(outputs[1].1, Value::scalar([1.5, 0.0]));
    assert_eq!(outputs[2].1, Value::scalar(1.5));
    let real = vec![("z".to_string(), Value::scalar(1.5))];
    let err = program.call(&real).unwrap_err().to_string();
    assert!(
        err.contains("input `z` is double, but the program was prepared for complex double"),
        "{err}"
    );
}

/// `--args z=complex` types an input as a complex double scalar, `z=complex(1,:)` a complex
/// row.
#[test]
fn args_name_complex_inputs() {
    let source = "function w = f(z)\n  w = z * z;\nend\n";
    let options = |spec: &str| m2cu::Options {
        args: vec![spec.to_string()],
        ..Default::default()
    };
    let t = m2cu::translate(source, &options("z=complex")).unwrap();
    assert_eq!(t.complex_outputs, vec![0]);
    assert!(t.ir.contains("complex double"), "{}", t.ir);
    let row = "function w = f(z)\n  w = z;\n  w(2) = 1i;\nend\n";
    let t = m2cu::translate(row, &options("z=complex(1,:)")).unwrap();
    assert_eq!(t.complex_outputs, vec![0]);
    assert!(t.ir.contains("complex double(1,:)"), "{}", t.ir);
}

/// What a complex array output is on return, for a complex row input with zero imaginary
/// parts: Octave keeps it complex through whole copies and `complex(A, B)`, and narrows it to
/// real after an indexed store (even of `complex(7, 0)`), growth, or any computed value
/// (`-z`, `z.'`, `z(1:2)`, `[z, 1]`, `z(:)`); when that depends on a loop that may run zero
/// times, a flag set by the loop (which runs as a kernel) says which. Each case is run by Octave
/// and by m2cu on cpu and emu, with `n` = 0 and 2, and the values compared with their
/// complexity.
#[test]
fn complex_arrays_are_kept_or_narrowed_on_return_as_octave_does() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let cases = [
        "r = z;",
        "z(2) = 5; r = z;",
        "r = z(1:2);",
        "r = -z;",
        "r = z; r(1) = complex(7, 0);",
        "r = z.';",
        "r = [z, 1];",
        "r = z(:);",
        "r = complex([1 2], [0 0]);",
        "r = complex([1 2], [0 0]); r(1) = 3;",
        "r = z; r(end+1) = 4;",
        "r = complex(real(z), imag(z));",
        "r = z; for k = 1:n, r(k) = 1; end",
        "r = complex(real(z), 0 * real(z)); if n > 1, r = -z; end",
        "r = z; for k = 1:n, r(k) = 2; end",
    ];
    let dir = tempfile::tempdir().unwrap();
    let mut script = String::from("z = complex([1 2 3], [0 0 0]);\n");
    for (k, body) in cases.iter().enumerate() {
        let source = format!("function r = case{k}(z, n)\n  {body}\nend\n");
        std::fs::write(dir.path().join(format!("case{k}.m")), source).unwrap();
        for n in [0, 2] {
            script += &format!("r = case{k}(z, {n}); save('-v7', 'case{k}_{n}.mat', 'r');\n");
        }
    }
    m2cu_runtime::octave::eval(dir.path(), &script).expect("octave runs");
    let z = Value::new(
        vec![1, 3],
        Data::ComplexDouble(vec![[1.0, 0.0], [2.0, 0.0], [3.0, 0.0]]),
    )
    .unwrap();
    let mut failures = Vec::new();
    for (k, body) in cases.iter().enumerate() {
        let source = std::fs::read_to_string(dir.path().join(format!("case{k}.m"))).unwrap();
        for n in [0, 2] {
            let expected = m2cu_runtime::read_mat(dir.path().join(format!("case{k}_{n}.mat")))
                .unwrap()
                .remove(0)
                .1;
            let inputs = vec![
                ("z".to_string(), z.clone()),
                ("n".to_string(), Value::scalar(f64::from(n))),
            ];
            for backend in [Backend::Cpu, Backend::Emu] {
                let run = m2cu::run(
                    &source,
                    &inputs,
                    &m2cu::Options::default(),
                    &common::on(backend),
                )
                .unwrap_or_else(|e| panic!("{body}: {e}"));
                if let Some(d) = common::difference(&expected, &run.outputs[0].1) {
                    failures.push(format!("{body} (n = {n}, {backend:?}): {d}"));
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// An input that an `arguments` block declares `double` takes a complex value (MATLAB's
/// validation accepts it): the program is prepared for a complex input; a program prepared for
/// a real value refuses a complex one instead of reading its real part.
#[test]
fn declared_double_inputs_take_complex_values() {
    let source = "function w = f(z)\n  arguments\n    z (1,1) double\n  end\n  w = z * 2;\nend\n";
    let options = m2cu::Options::default();
    let run_options = common::on(Backend::Cpu);
    let z = vec![("z".to_string(), Value::scalar([1.0, -2.0]))];
    let result = m2cu::run(source, &z, &options, &run_options).unwrap();
    assert_eq!(result.outputs[0].1, Value::scalar([2.0, -4.0]));
    let real = vec![("z".to_string(), Value::scalar(1.0))];
    let program = m2cu::Program::prepare(source, &real, &options, &run_options).unwrap();
    let err = program.call(&z).unwrap_err().to_string();
    assert!(
        err.contains("input `z` is complex, but the program was prepared for a real value"),
        "{err}"
    );
}
