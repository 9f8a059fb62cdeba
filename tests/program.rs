//! `m2cu::Program`: translated and built once, then called many times with new inputs of the
//! same types, on the C path and on the emulated GPU (the GPU path is the same handle around
//! `GpuProgram`); a call with inputs of another type is refused with the input's name.

mod common;

use m2cu::{Backend, Program, Value};

/// `v` of length `n` whose elements are quarters, so that every order of summation is exact.
fn quarters(n: usize) -> Vec<(String, Value)> {
    let v: Vec<f64> = (0..n).map(|k| (k % 7) as f64 * 0.25 - 0.5).collect();
    vec![("v".to_string(), Value::row(v))]
}

fn exact_sum(n: usize) -> f64 {
    (0..n).map(|k| (k % 7) as f64 * 0.25 - 0.5).sum()
}

fn prepare(backend: Backend) -> Program {
    let path = common::e2e_path("vecsum", ".m");
    let options = m2cu::Options {
        file_name: "vecsum.m".into(),
        ..Default::default()
    };
    Program::prepare(
        &common::source(&path),
        &quarters(2),
        &options,
        &common::on(backend),
    )
    .expect("vecsum prepares")
}

#[test]
fn a_prepared_program_answers_many_calls() {
    for backend in [Backend::Cpu, Backend::Emu] {
        let program = prepare(backend);
        let stored = common::inputs("vecsum");
        let outputs = program.call(&stored).expect("the fixture's inputs");
        let wrong = common::output_differences(&common::expected("vecsum"), &outputs);
        assert!(wrong.is_empty(), "{backend:?}: {}", wrong.join("; "));
        for n in [0, 1, 31, 33, 1025, 5000, 3] {
            let outputs = program.call(&quarters(n)).expect("a row of doubles");
            assert_eq!(
                outputs[0].1.as_slice::<f64>(),
                Some(&[exact_sum(n)][..]),
                "{backend:?}, n = {n}"
            );
        }
    }
}

#[test]
fn a_call_with_inputs_of_another_type_is_refused() {
    let program = prepare(Backend::Cpu);
    let column = vec![("v".to_string(), Value::column(vec![1.0, 2.0]))];
    let ints = vec![("v".to_string(), Value::row(vec![1i32, 2]))];
    for (inputs, actual) in [(column, "double(:,1)"), (ints, "int32(1,:)")] {
        let message = program.call(&inputs).expect_err("another type").to_string();
        assert!(
            message.starts_with(&format!(
                "input `v` is {actual}, but the program was prepared for double(1,:)"
            )),
            "{message}"
        );
    }
    let missing = program.call(&[]).expect_err("no input").to_string();
    assert!(missing.starts_with("input `v` has no value"), "{missing}");
}
