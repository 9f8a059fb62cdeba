//! `reshape` with a `[]` extent against Octave: the extent is the element count over the other
//! extents' product (Octave's 0-by-0 for no elements and a product of 0), and a product that
//! does not divide the count stops with MATLAB's "Product of known dimensions not divisible
//! into total number of elements." where Octave stops too (m2cu once said "Size inputs must be
//! integers.", from the extent 6 / 4 it went on to allocate).

mod common;

use m2cu::{Backend, Value};

const SOURCE: &str = "function b = frames(x, m)\n  a = reshape(x, m, []);\n  b = size(a);\nend\n";

/// `(rows, cols, m)`: `x` is a rows-by-cols array of 1, 2, ...
const CASES: [(usize, usize, f64); 6] = [
    (0, 3, 0.0),
    (0, 3, 2.0),
    (3, 0, 0.0),
    (2, 3, 3.0),
    (2, 3, 4.0),
    (1, 6, 0.0),
];

const NOT_DIVISIBLE: &str = "Product of known dimensions not divisible into total number of elements. (`reshape(x, m, [])` at frames.m:2:7)";

/// What m2cu's C path gives for a case: the size of the result, or its error message.
fn m2cu_result(rows: usize, cols: usize, m: f64) -> Result<Vec<f64>, String> {
    let x =
        Value::matrix(rows, cols, (1..=rows * cols).map(|k| k as f64).collect()).expect("a matrix");
    let inputs = vec![("x".to_string(), x), ("m".to_string(), Value::scalar(m))];
    let options = m2cu::Options {
        file_name: "frames.m".into(),
        ..Default::default()
    };
    match m2cu::run(SOURCE, &inputs, &options, &common::on(Backend::Cpu)) {
        Ok(run) => Ok(run.outputs[0]
            .1
            .as_slice::<f64>()
            .expect("doubles")
            .to_vec()),
        Err(m2cu::Error::Runtime(e)) => Err(e.to_string()),
        Err(other) => panic!("{rows}x{cols}, m = {m}: {other}"),
    }
}

#[test]
fn reshape_with_an_empty_extent_matches_octave() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::write(dir.path().join("frames.m"), SOURCE).expect("writes frames.m");
    let script: String = CASES
        .iter()
        .map(|(rows, cols, m)| {
            format!(
                "try, b = frames(reshape(1:{n}, {rows}, {cols}), {m}); printf('%d %d\\n', b); catch, printf('error\\n'); end\n",
                n = rows * cols
            )
        })
        .collect();
    let octave = m2cu_runtime::octave::eval(dir.path(), &script).expect("Octave runs");
    let lines: Vec<&str> = octave.lines().collect();
    assert_eq!(lines.len(), CASES.len(), "Octave printed:\n{octave}");
    for ((rows, cols, m), line) in CASES.iter().zip(lines) {
        let case = format!("{rows}x{cols}, m = {m}");
        match (m2cu_result(*rows, *cols, *m), line) {
            (Err(message), "error") => assert_eq!(message, NOT_DIVISIBLE, "{case}"),
            (Ok(size), line) => {
                let want: Vec<f64> = line.split(' ').map(|w| w.parse().unwrap()).collect();
                assert_eq!(size, want, "{case}");
            }
            (Err(message), line) => panic!("{case}: m2cu says {message}, Octave gives {line}"),
        }
    }
}
