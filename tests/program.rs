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

/// The C path (with or without `--deterministic`) folds a floating sum's thread partials in thread
/// order, so with a given team size the result is one fixed expression of the inputs: each of
/// the four threads sums its contiguous share (OpenMP's static schedule: `n / 4` each, the
/// first `n % 4` threads one more), then `((0 + part0) + part1) + ...`, added to `s`'s value
/// before the loop. The elements are not dyadic, so another order of the partials (which
/// `omp critical` gives, in whatever order threads finish) gives other bits.
#[test]
fn deterministic_sums_on_the_c_path_fold_thread_partials_in_order() {
    let n: usize = 20_001;
    let v: Vec<f64> = (0..n).map(|k| 1.0 / (k as f64 + 3.0)).collect();
    let path = common::e2e_path("vecsum", ".m");
    let options = m2cu::Options {
        file_name: "vecsum.m".into(),
        deterministic: true,
        ..Default::default()
    };
    let inputs = vec![("v".to_string(), Value::row(v.clone()))];
    let program = Program::prepare(&common::source(&path), &inputs, &options, &four_threads())
        .expect("vecsum prepares");
    let partials = static_shares(&v, 4)
        .into_iter()
        .fold(0.0, |sum, share| sum + share.iter().fold(0.0, |s, x| s + x));
    calls_give_bits(&program, &inputs, 0.0 + partials, 3);
}

/// The C path on a team of four threads.
fn four_threads() -> m2cu::RunOptions {
    m2cu::RunOptions {
        threads: m2cu::Threads::Exactly(std::num::NonZeroUsize::new(4).unwrap()),
        ..common::on(Backend::Cpu)
    }
}

/// Each thread's contiguous share of `v` under OpenMP's static schedule on `threads` threads:
/// `len / threads` each, the first `len % threads` one more.
fn static_shares<T>(v: &[T], threads: usize) -> Vec<&[T]> {
    let (share, longer) = (v.len() / threads, v.len() % threads);
    let mut start = 0;
    (0..threads)
        .map(|thread| {
            let len = share + usize::from(thread < longer);
            start += len;
            &v[start - len..start]
        })
        .collect()
}

/// `calls` calls of `program` each give `want` as its first output, bit for bit.
fn calls_give_bits(program: &Program, inputs: &[(String, Value)], want: f64, calls: usize) {
    for _ in 0..calls {
        let got = program.call(inputs).expect("the call");
        assert_eq!(
            got[0].1.as_slice::<f64>().map(|s| s[0].to_bits()),
            Some(want.to_bits()),
            "{got:?} != {want}"
        );
    }
}

/// A custom reduction through a function that rounds (`gpucoder.reduce(x, @hypot)`, lowered
/// to `len = x(1)` and a loop over `x(2:n)`) is folded in thread order on the C path too, so
/// four threads give one fixed expression: each thread folds its contiguous share of `x(2:n)`
/// seeded by its first element, then `hypot(...hypot(x(1), part0), part1)...)`. Merged in the
/// order threads finish (`omp critical`, as before), `hypot` gave other bits from run to run:
/// the GPU's `--deterministic` run of the `reducecaptures` fixture on an H200 did, the same way.
#[test]
fn custom_reductions_on_the_c_path_fold_thread_partials_in_order() {
    let n: usize = 40_001;
    let x: Vec<f64> = (0..n).map(|k| 1.0 / (k as f64 + 3.0).sqrt()).collect();
    let source = "function len = veclen(x)\n  len = gpucoder.reduce(x, @hypot);\nend\n";
    let inputs = vec![("x".to_string(), Value::row(x.clone()))];
    let program = Program::prepare(source, &inputs, &m2cu::Options::default(), &four_threads())
        .expect("veclen prepares");
    let want = static_shares(&x[1..], 4)
        .into_iter()
        .fold(x[0], |len, share| {
            len.hypot(share[1..].iter().fold(share[0], |a, b| a.hypot(*b)))
        });
    calls_give_bits(&program, &inputs, want, 5);
}

/// A min or max over -0 and +0 alternating, on two and on four threads: the threads' partials
/// are folded in thread order with the loop's own combine, so the result has the sign the
/// sequential loop gives (`mn` keeps the first minimum, -0; `mx = max(mx, v(i))` takes the
/// last of equal values, -0 here), whichever thread finishes first. (A merge in the order
/// threads finish gave +0 on one CI run: the adversarial `maxmin [zeros]` case.)
#[test]
fn min_and_max_ties_between_zeros_keep_the_sequential_sign_on_any_team() {
    let n = 3333;
    let v: Vec<f64> = (0..n)
        .map(|k| if k % 2 == 0 { -0.0 } else { 0.0 })
        .collect();
    let inputs = vec![("v".to_string(), Value::row(v))];
    let path = common::e2e_path("maxmin", ".m");
    let options = m2cu::Options {
        file_name: "maxmin.m".into(),
        ..Default::default()
    };
    for threads in [2, 4] {
        let run_options = m2cu::RunOptions {
            threads: m2cu::Threads::Exactly(std::num::NonZeroUsize::new(threads).unwrap()),
            ..common::on(Backend::Cpu)
        };
        let program = Program::prepare(&common::source(&path), &inputs, &options, &run_options)
            .expect("maxmin prepares");
        for _ in 0..5 {
            let got = program.call(&inputs).expect("the call");
            for (name, value) in &got {
                let x = value.as_slice::<f64>().expect("a double")[0];
                assert!(
                    x == 0.0 && x.is_sign_negative(),
                    "{name} = {x:?} on {threads} threads"
                );
            }
        }
    }
}

/// Prepares `source` on the C path for `specimen`.
fn prepare_source(source: &str, specimen: &[(String, Value)]) -> Program {
    Program::prepare(
        source,
        specimen,
        &m2cu::Options::default(),
        &common::on(Backend::Cpu),
    )
    .expect("prepares")
}

/// Where a double value's elements are.
fn elements(value: &Value) -> *const f64 {
    value.as_slice::<f64>().expect("doubles").as_ptr()
}

fn named(pairs: &[(&str, Value)]) -> Vec<(String, Value)> {
    pairs
        .iter()
        .map(|(n, v)| (n.to_string(), v.clone()))
        .collect()
}

#[test]
fn a_given_input_that_is_also_an_output_is_updated_in_its_own_memory() {
    let saxpy = "function y = saxpy(a, x, y)\n  for i = 1:numel(x)\n    y(i) = a * x(i) + y(i);\n  end\nend\n";
    let inputs = named(&[
        ("a", Value::scalar(2.0)),
        ("x", Value::row(vec![1.0, 2.0, 3.0])),
        ("y", Value::row(vec![0.5, 0.25, 0.0])),
    ]);
    let program = prepare_source(saxpy, &inputs);
    assert!(program.has_in_place_outputs());
    assert!(
        !prepare(Backend::Cpu).has_in_place_outputs(),
        "vecsum returns no input"
    );
    let want = Value::row(vec![2.5, 4.25, 6.0]);
    // Lent: the inputs stay as they were.
    let outputs = program.call(&inputs).expect("runs");
    assert_eq!(outputs[0].1, want);
    assert_eq!(inputs[2].1, Value::row(vec![0.5, 0.25, 0.0]));
    // Given: `y`'s memory becomes the output, and `taken` is left in its place.
    let mut given = inputs.clone();
    let y_memory = elements(&given[2].1);
    let outputs = program.call(&mut given).expect("runs");
    assert_eq!(outputs[0].1, want);
    assert_eq!(elements(&outputs[0].1), y_memory, "computed in y's memory");
    assert_eq!(given[2].1, Value::taken());
    assert_eq!(
        given[..2],
        inputs[..2],
        "the other inputs come back unchanged"
    );
    // Given in another order than the parameters': the same.
    let mut shuffled = vec![given[1].clone(), inputs[2].clone(), given[0].clone()];
    let outputs = program.call(&mut shuffled).expect("runs");
    assert_eq!(outputs[0].1, want);
    assert_eq!(shuffled[1].1, Value::taken());
    // An input returned as it is: no copy either.
    let same = prepare_source("function x = same(x)\nend\n", &inputs[1..2]);
    let mut x = inputs[1..2].to_vec();
    let x_memory = elements(&x[0].1);
    let outputs = same.call(&mut x).expect("runs");
    assert_eq!(outputs[0].1, inputs[1].1);
    assert_eq!(elements(&outputs[0].1), x_memory);
}

#[test]
fn a_given_input_whose_storage_changes_is_copied_and_an_error_frees_nothing_of_the_caller() {
    // Growing `y` reallocates it: the generated code keeps to its own copy.
    let grow = "function y = grow(y)\n  y(end + 1) = 7;\nend\n";
    let inputs = named(&[("y", Value::row(vec![1.0, 2.0]))]);
    let program = prepare_source(grow, &inputs);
    let mut given = inputs.clone();
    let outputs = program.call(&mut given).expect("runs");
    assert_eq!(outputs[0].1, Value::row(vec![1.0, 2.0, 7.0]));
    assert_eq!(given, inputs, "not taken: the input comes back");
    // An error after some stores: the call fails, the caller's memory is neither freed nor
    // returned, and the program answers the next call.
    let negate = "function y = negate(y)\n  for i = 1:numel(y)\n    y(i) = -y(i);\n    if y(i) > 0\n      error('neg:pos', 'y(%d) was negative', i);\n    end\n  end\nend\n";
    let program = prepare_source(negate, &inputs);
    let mut bad = named(&[("y", Value::row(vec![1.0, -2.0, 3.0]))]);
    let message = program.call(&mut bad).expect_err("y(2) < 0").to_string();
    assert!(message.contains("y(2) was negative"), "{message}");
    assert_eq!(
        bad[0].1.numel(),
        3,
        "the caller keeps its input, changed or not"
    );
    let mut good = inputs.clone();
    let outputs = program.call(&mut good).expect("runs");
    assert_eq!(outputs[0].1, Value::row(vec![-1.0, -2.0]));
}

/// Inputs from `ndarray` arrays and outputs back to them (feature `ndarray`): a C-order array
/// is the MATLAB matrix it shows, whatever its memory order.
#[test]
fn inputs_from_ndarray_and_outputs_to_ndarray() {
    let source = "function B = twice(A)\nB = 2 * A;\nend\n";
    let a = ndarray::array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    let inputs = vec![(
        "A".to_string(),
        m2cu::Value::from_ndarray(a.view()).unwrap(),
    )];
    let r = m2cu::run(
        source,
        &inputs,
        &m2cu::Options::default(),
        &common::on(m2cu::Backend::Cpu),
    )
    .unwrap();
    let b = r.outputs[0].1.to_ndarray::<f64>().unwrap();
    assert_eq!(b, (&a * 2.0).into_dyn());
}
