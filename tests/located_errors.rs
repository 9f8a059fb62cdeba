//! Run-time errors name what raised them and where, one case per kind of check: an index past
//! the end, an index that is not a positive integer, an assignment past the end (which MATLAB
//! would grow), operands of different sizes, the program's own `error` (which keeps its
//! message and identifier, with no place added), a subscript of a 2-D access past its
//! dimension, a function whose real result would be complex, a size that is not an integer,
//! a number that is no character, `upper` of a character above 127, a NaN whose truth is
//! taken, `nthroot` of a negative number with an even order, `bitshift` by a fraction, and a
//! range that starts at an infinity, and a check inside a function m2cu bundles (which names
//! the user's call). A failed index check says the bound in MATLAB's words and
//! the subscript's value (not a literal subscript's, which says it already).
//! The same message on the C path, with `--backend emu` (the loop stays on the host: it writes
//! `y(i + k)`) and through a MEX function in Octave, and the same code and place as data
//! ([`m2cu::CallError`]). (Inside a kernel, the message has the place but not the value.)

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
if mode == 10
  c = char(k);
  y(1) = double(c);
end
if mode == 11
  u = upper(['ab' char(k)]);
  y(1) = double(u(1));
end
if mode == 12
  if x(1) * k
    y(1) = 1;
  end
end
if mode == 13
  y(1) = nthroot(-8, k);
end
if mode == 14
  y(1) = bitshift(8, k);
end
if mode == 15
  for j = k:1
    y(1) = j;
  end
end
if mode == 16
  y(1) = acosd(k);
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
            "The result would be complex: m2cu keeps sqrt, log, log2, log10, log1p, asin, acos, acosh, atanh, gammaln and ^ of real values real (write sqrt(complex(x)) for the complex root). (`sqrt(x(1) - k)` at located.m:29:10)",
        ),
        // A size that is not an integer names the statement that makes the array.
        (
            9.0,
            1.5,
            "Size inputs must be integers. (`z = zeros(k, 2)` at located.m:32:3)",
        ),
        // The prelude's other checked helpers name their calls, conversions and ranges.
        (
            10.0,
            -1.0,
            "Conversion to char: NaN, negative values and values above 65535 are not character codes. (`char(k)` at located.m:36:7)",
        ),
        (
            11.0,
            200.0,
            "upper, lower and strcmpi change the case of ASCII letters only in m2cu, and this text has a character above 127 (MATLAB would change the case of non-ASCII letters too). (`upper(['ab' char(k)])` at located.m:40:7)",
        ),
        (
            12.0,
            f64::NAN,
            "NaN's cannot be converted to logicals. (`x(1) * k` at located.m:44:6)",
        ),
        (
            13.0,
            2.0,
            "If X is negative, N must be an odd integer. (`nthroot(-8, k)` at located.m:49:10)",
        ),
        (
            14.0,
            0.5,
            "bitshift: K must be a scalar or array of integers (`bitshift(8, k)` at located.m:52:10)",
        ),
        (
            15.0,
            f64::NEG_INFINITY,
            "Invalid range: a for loop's range must start at a finite value and have fewer than 2^63 elements. (`k:1` at located.m:55:11)",
        ),
        // A check inside a function m2cu bundles (acosd.m) names the user's call.
        (
            16.0,
            2.0,
            "The result would be complex: m2cu keeps sqrt, log, log2, log10, log1p, asin, acos, acosh, atanh, gammaln and ^ of real values real (write sqrt(complex(x)) for the complex root). (`acosd(k)` at located.m:60:10)",
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

/// What a case's [`m2cu::CallError`] holds as data: the code, the line, column and source of
/// its place, and for a failed index its subscript's position, text, value and bound.
struct Expected {
    code: m2cu::ErrorCode,
    line: u32,
    column: u32,
    source: &'static str,
    subscript: Option<SubscriptData>,
}

/// A failed subscript's position, text, value and bound.
type SubscriptData = (Option<usize>, &'static str, Option<f64>, Option<i64>);

fn data_cases() -> Vec<(f64, f64, Expected)> {
    use m2cu::ErrorCode as C;
    let at = |code, line, column, source| Expected {
        code,
        line,
        column,
        source,
        subscript: None,
    };
    let index = |code, line, column, source, subscript| Expected {
        subscript: Some(subscript),
        ..at(code, line, column, source)
    };
    vec![
        (
            1.0,
            2.0,
            index(
                C::IndexRange,
                6,
                12,
                "x(i + k)",
                (None, "i + k", Some(6.0), Some(5)),
            ),
        ),
        (
            2.0,
            0.5,
            index(
                C::IndexInvalid,
                8,
                12,
                "x(k)",
                (None, "k", Some(0.5), Some(5)),
            ),
        ),
        (
            3.0,
            1.0,
            index(
                C::Grow,
                10,
                5,
                "y(i + k)",
                (None, "i + k", Some(5.0), Some(4)),
            ),
        ),
        (4.0, 0.0, at(C::Sizes, 16, 7, "y + x")),
        (
            6.0,
            3.0,
            index(
                C::IndexRange,
                23,
                10,
                "M(k, 1)",
                (Some(1), "k", Some(3.0), Some(2)),
            ),
        ),
        (
            7.0,
            1.0,
            index(C::Grow, 26, 3, "y(5)", (None, "5", Some(5.0), Some(4))),
        ),
        (8.0, 3.0, at(C::Complex, 29, 10, "sqrt(x(1) - k)")),
        (9.0, 1.5, at(C::Size, 32, 3, "z = zeros(k, 2)")),
        (10.0, -1.0, at(C::Char, 36, 7, "char(k)")),
        (11.0, 200.0, at(C::Case, 40, 7, "upper(['ab' char(k)])")),
        (12.0, f64::NAN, at(C::NanToLogical, 44, 6, "x(1) * k")),
        (13.0, 2.0, at(C::NthrootNegative, 49, 10, "nthroot(-8, k)")),
        (14.0, 0.5, at(C::BitshiftK, 52, 10, "bitshift(8, k)")),
        (15.0, f64::NEG_INFINITY, at(C::Range, 55, 11, "k:1")),
        (16.0, 2.0, at(C::Complex, 60, 10, "acosd(k)")),
    ]
}

#[test]
fn each_error_carries_its_code_and_place_as_data() {
    for backend in [Backend::Cpu, Backend::Emu] {
        for (mode, k, want) in data_cases() {
            let what = format!("{backend:?} mode {mode}");
            let result = m2cu::run(SOURCE, &inputs(k, mode), &options(), &common::on(backend));
            let Err(m2cu::Error::Runtime(m2cu::RuntimeError::Call(e))) = result else {
                panic!("{what}: not a run-time error of m2cu: {result:?}");
            };
            assert_eq!(e.code, Some(want.code), "{what}");
            assert_eq!(e.identifier(), want.code.identifier(), "{what}");
            let at = e.location.unwrap_or_else(|| panic!("{what}: no place"));
            assert_eq!(
                (at.file.as_str(), at.line, at.column, at.source.as_deref()),
                ("located.m", want.line, want.column, Some(want.source)),
                "{what}"
            );
            // Every check here runs on the host in the program's order.
            assert!(at.subscript.as_ref().is_none_or(|s| s.in_order), "{what}");
            let subscript = at
                .subscript
                .map(|s| (s.position, s.source.unwrap_or_default(), s.value, s.bound));
            let want_subscript = want
                .subscript
                .map(|(p, text, value, bound)| (p, text.to_string(), value, bound));
            assert_eq!(subscript, want_subscript, "{what}");
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
        "m2cu:char",
        "m2cu:case",
        "m2cu:nanToLogical",
        "m2cu:nthrootNegative",
        "m2cu:bitshiftK",
        "m2cu:range",
        "m2cu:complex",
    ];
    for ((_, _, message), id) in cases().iter().zip(identifiers) {
        let line = format!("{id} | located_mex: {message}");
        assert!(text.contains(&line), "missing {line:?} in:\n{text}");
    }
}

/// Checks inside a kernel name their place too: a NaN whose truth is taken, a helper call that
/// fails, and a subscript past the end, whose bound the message says and whose value (the
/// first failing thread's) the error keeps as data, not as MATLAB's first. The same loop on the
/// C path with one thread runs in order: its value is MATLAB's and the message says it.
#[test]
fn checks_inside_kernels_name_their_place() {
    const KERNEL: &str = "function y = kernelsites(x, k, s)
y = zeros(size(x));
for i = 1:numel(x)
  if x(i)
    y(i) = bitshift(8, k) + x(i + s);
  end
end
end
";
    let options = m2cu::Options {
        file_name: "kernelsites.m".into(),
        args: vec!["x=double(1,:)".into(), "k=double".into(), "s=double".into()],
        ..Default::default()
    };
    let t = m2cu::translate(KERNEL, &options).expect("translates");
    assert!(
        t.report.contains("for i (depth 1): parallel -> kernel"),
        "{}",
        t.report
    );
    let x = |nan_at: Option<usize>| {
        let mut v = vec![1.0; 3000];
        if let Some(k) = nan_at {
            v[k] = f64::NAN;
        }
        Value::row(v)
    };
    let past_end = "Index exceeds the number of array elements. Index must not exceed 3000. (`x(i + s)` at kernelsites.m:5:29";
    let cases = [
        (x(Some(2500)), 1.0, 0.0, "NaN's cannot be converted to logicals. (`x(i)` at kernelsites.m:4:6)".to_string(), None),
        (
            x(None),
            0.5,
            0.0,
            "bitshift: K must be a scalar or array of integers (`bitshift(8, k)` at kernelsites.m:5:12)".to_string(),
            None,
        ),
        (x(None), 1.0, 1.0, format!("{past_end})"), Some((3001.0, 3000))),
    ];
    let one_thread = m2cu::RunOptions {
        threads: m2cu::Threads::Exactly(std::num::NonZeroUsize::MIN),
        ..common::on(Backend::Cpu)
    };
    for run in [common::on(Backend::Emu), one_thread] {
        let in_order = run.backend == Backend::Cpu;
        for (x, k, s, expected, detail) in &cases {
            let inputs = [
                ("x".to_string(), x.clone()),
                ("k".to_string(), Value::scalar(*k)),
                ("s".to_string(), Value::scalar(*s)),
            ];
            let options = m2cu::Options {
                args: Vec::new(),
                ..options.clone()
            };
            let backend = run.backend;
            let expected = match detail {
                Some(_) if in_order => format!("{past_end}, i + s = 3001)"),
                _ => expected.clone(),
            };
            match m2cu::run(KERNEL, &inputs, &options, &run) {
                Err(m2cu::Error::Runtime(m2cu::RuntimeError::Call(e))) => {
                    assert_eq!(e.message, expected, "{backend:?}");
                    let at = e
                        .location
                        .unwrap_or_else(|| panic!("{backend:?}: no place"));
                    let kept = at.subscript.map(|s| (s.value, s.bound, s.in_order));
                    let want = detail.map(|(value, bound)| (Some(value), Some(bound), in_order));
                    assert_eq!(kept, want, "{backend:?}");
                }
                other => panic!("{backend:?}: {other:?}"),
            }
        }
    }
}
