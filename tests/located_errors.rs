//! Run-time errors name what raised them and where, one case per kind of check: an index past
//! the end, an index that is not a positive integer, an assignment past the end (which MATLAB
//! would grow), operands of different sizes, the program's own `error` (which keeps its
//! message and identifier, with no place added), a subscript of a 2-D access past its
//! dimension, a function whose real result would be complex, and a size that is not an integer. A failed index check says the bound in MATLAB's words and the subscript's value
//! (not a literal subscript's, which says it already).
//! The same message on the C path, with `--backend emu` (the loop stays on the host: it writes
//! `y(i + k)`) and through a MEX function in Octave. (Inside a kernel, the message has the
//! place but not the value: `tests/kernel_raise.rs`.)

mod common;

use m2cu::{Backend, Value};

const SOURCE: &str = "function y = located(x, k, mode)
% one run-time error per mode, in a loop that is a kernel
y = zeros(1, 4);
for i = 1:numel(y)
  if mode == 1
    y(i) = x(i + k);
  elseif mode == 2
    y(i) = x(k);
  elseif mode == 3
    y(i + k) = x(i);
  else
    y(i) = x(i);
  end
end
if mode == 4
  y = y + x;
end
if mode == 5
  error('located:mode', 'mode %d is not allowed', mode);
end
if mode == 6
  M = reshape(x(1:4), 2, 2);
  y(1) = M(k, 1);
end
if mode == 7
  y(5) = k;
end
if mode == 8
  y(2) = sqrt(x(1) - k);
end
if mode == 9
  z = zeros(k, 2);
  y(1) = numel(z);
end
end
";

/// `(mode, k, message)`: the error each mode raises for `x = [1 2 3 4 5]`.
fn cases() -> Vec<(f64, f64, &'static str)> {
    vec![
        (
            1.0,
            2.0,
            "Index exceeds the number of array elements. Index must not exceed 5. (`x(i + k)` at located.m:6:12, i + k = 6)",
        ),
        (
            2.0,
            0.5,
            "Array indices must be positive integers or logical values. (`x(k)` at located.m:8:12, k = 0.5)",
        ),
        (
            3.0,
            1.0,
            "An assignment past the end of an array would grow it, which m2cu does not do: preallocate the array at its final size. Index must not exceed 4. (`y(i + k)` at located.m:10:5, i + k = 5)",
        ),
        (
            4.0,
            0.0,
            "Arrays have incompatible sizes for this operation. (`y + x` at located.m:16:7)",
        ),
        (5.0, 0.0, "mode 5 is not allowed"),
        (
            6.0,
            3.0,
            "Index in position 1 exceeds array bounds. Index must not exceed 2. (`M(k, 1)` at located.m:23:10, k = 3)",
        ),
        // A literal subscript says its value already: no ", 5 = 5".
        (
            7.0,
            1.0,
            "An assignment past the end of an array would grow it, which m2cu does not do: preallocate the array at its final size. Index must not exceed 4. (`y(5)` at located.m:26:3)",
        ),
        // A function whose real result would be complex names its call.
        (
            8.0,
            3.0,
            "The result would be complex: m2cu keeps sqrt, log, log2, log10, log1p, asin, acos, acosh, atanh and ^ of real values real (write sqrt(complex(x)) for the complex root). (`sqrt(x(1) - k)` at located.m:29:10)",
        ),
        // A size that is not an integer names the statement that makes the array.
        (
            9.0,
            1.5,
            "Size inputs must be integers. (`z = zeros(k, 2)` at located.m:32:3)",
        ),
    ]
}

fn inputs(k: f64, mode: f64) -> Vec<(String, Value)> {
    vec![
        ("x".to_string(), Value::row(vec![1.0, 2.0, 3.0, 4.0, 5.0])),
        ("k".to_string(), Value::scalar(k)),
        ("mode".to_string(), Value::scalar(mode)),
    ]
}

fn options() -> m2cu::Options {
    m2cu::Options {
        file_name: "located.m".into(),
        ..Default::default()
    }
}

#[test]
fn each_kind_of_run_time_error_names_its_place_on_cpu_and_emu() {
    for backend in [Backend::Cpu, Backend::Emu] {
        for (mode, k, expected) in cases() {
            let result = m2cu::run(SOURCE, &inputs(k, mode), &options(), &common::on(backend));
            let message = match result {
                Err(m2cu::Error::Runtime(e)) => e.to_string(),
                Err(other) => panic!("{backend:?} mode {mode}: {other}"),
                Ok(_) => panic!("{backend:?} mode {mode}: no error"),
            };
            assert_eq!(message, expected, "{backend:?} mode {mode}");
        }
    }
}

#[test]
fn a_mex_function_raises_the_same_located_messages() {
    if !common::require(common::octave_available(), "octave-cli")
        || !common::require(common::mkoctfile_available(), "mkoctfile")
    {
        return;
    }
    let options = m2cu::Options {
        args: vec![
            "x=double(1,:)".into(),
            "k=double".into(),
            "mode=double".into(),
        ],
        ..options()
    };
    let t = m2cu::translate(SOURCE, &options).expect("translates");
    let dir = tempfile::tempdir().expect("temp dir");
    m2cu::build_mex(&t, dir.path(), &m2cu::MexOptions::default()).expect("the MEX builds");
    let calls: Vec<String> = cases()
        .iter()
        .map(|(mode, k, _)| format!("located_mex([1 2 3 4 5], {k}, {mode});"))
        .collect();
    let text = common::octave_errors(dir.path(), &calls);
    let identifiers = [
        "m2cu:indexRange",
        "m2cu:indexInvalid",
        "m2cu:grow",
        "m2cu:sizes",
        "located:mode",
        "m2cu:indexRange",
        "m2cu:grow",
        "m2cu:complex",
        "m2cu:size",
    ];
    for ((_, _, message), id) in cases().iter().zip(identifiers) {
        let line = format!("{id} | located_mex: {message}");
        assert!(text.contains(&line), "missing {line:?} in:\n{text}");
    }
}
