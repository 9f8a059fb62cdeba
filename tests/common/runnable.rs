//! Runnable fixtures: a fixture whose first function declares every input in an `arguments`
//! block with a class and a fixed size can be run with deterministic inputs on the CPU path and
//! in Octave, and the two results compared.

use std::path::{Path, PathBuf};
use std::time::Duration;

use m2cu::{Options, RunOptions, Value};
use m2cu_frontend::ast::{ArgDecl, DimSpec, File};
use m2cu_runtime::octave::{self, Answer, Call};

/// The declared inputs of the entry function, when every one has a class and a fixed size.
pub fn runnable_inputs(file: &File) -> Option<Vec<ArgDecl>> {
    let entry = file.functions.first()?;
    if entry.outputs.is_empty() {
        return None;
    }
    entry
        .params
        .iter()
        .map(|p| {
            let decl = entry.arguments.iter().find(|a| a.name.name == p.name)?;
            let fixed = match &decl.dims {
                None => true,
                Some(dims) => dims.iter().all(|d| matches!(d, DimSpec::Fixed(_))),
            };
            (fixed && decl.class.is_some()).then(|| decl.clone())
        })
        .collect()
}

/// A deterministic input: small positive integers for scalars (they often bound loops), mixed
/// signs and fractions for arrays.
pub fn input_value(decl: &ArgDecl, salt: usize) -> Value {
    let dims: Vec<usize> = match decl.dims.as_deref() {
        Some(dims) => dims
            .iter()
            .map(|d| match d {
                DimSpec::Fixed(n) => *n as usize,
                _ => 1,
            })
            .collect(),
        None => vec![1, 1],
    };
    // A 3-D input is built as rows × (cols·pages) and then given its pages.
    let (rows, cols) = (dims[0], dims[1..].iter().product::<usize>());
    let n = rows * cols;
    let scalar = n == 1;
    let number = |k: usize| -> f64 {
        if scalar {
            (2 + (salt * 3 + k) % 4) as f64
        } else {
            (((k + 1) * 7919 + salt * 131) % 23) as f64 / 2.0 - 5.0
        }
    };
    let values: Vec<f64> = (0..n).map(number).collect();
    let class = decl.class.as_ref().map_or("double", |c| c.name.as_str());
    let built = match class {
        "double" => Value::matrix(rows, cols, values),
        "single" => Value::matrix(rows, cols, values.iter().map(|&x| x as f32).collect()),
        "int32" => Value::matrix(
            rows,
            cols,
            values.iter().map(|&x| x.round() as i32).collect(),
        ),
        "logical" => Value::matrix(rows, cols, values.iter().map(|&x| x > 0.0).collect()),
        other => panic!(
            "{}: add inputs of class {other} to this test",
            decl.name.name
        ),
    };
    let mut value = built.expect("input value");
    if dims.len() == 3 {
        value.dims = dims;
    }
    value
}

/// A runnable fixture's deterministic inputs and what Octave computes from them.
pub struct Reference {
    pub inputs: Vec<(String, Value)>,
    pub expected: Vec<(String, Value)>,
}

/// Runs the fixture at `path` in Octave on the inputs [`input_value`] makes for `decls`.
pub fn octave_reference(
    name: &str,
    path: &Path,
    decls: &[ArgDecl],
    outputs: &[String],
) -> Result<Reference, String> {
    let inputs: Vec<(String, Value)> = decls
        .iter()
        .enumerate()
        .map(|(k, d)| (d.name.name.clone(), input_value(d, k)))
        .collect();
    let expected = octave_outputs(name, path, &inputs, outputs)?;
    Ok(Reference { inputs, expected })
}

/// Runs the translation `t` of the fixture with each of `runs` and compares every output with
/// what Octave computes; `None` when all agree.
pub fn compare_with_octave(
    name: &str,
    path: &Path,
    source: &str,
    options: &Options,
    decls: &[ArgDecl],
    t: &m2cu::Translation,
    runs: &[RunOptions],
) -> Option<String> {
    let outputs: Vec<String> = t.outputs.iter().map(|(n, _)| n.clone()).collect();
    let reference = match octave_reference(name, path, decls, &outputs) {
        Ok(r) => r,
        Err(e) => return Some(e),
    };
    let problems: Vec<String> = runs
        .iter()
        .filter_map(|run_options| {
            let label = super::describe(run_options);
            let actual = match m2cu::run(source, &reference.inputs, options, run_options) {
                Ok(r) => r.outputs,
                Err(e) => return Some(format!("{label}: m2cu run failed: {e}")),
            };
            let wrong = super::output_differences(&reference.expected, &actual);
            (!wrong.is_empty()).then(|| format!("{label}: {}", wrong.join("; ")))
        })
        .collect();
    (!problems.is_empty()).then(|| problems.join("; "))
}

/// How long Octave may take for one fixture.
const OCTAVE_LIMIT: Duration = Duration::from_secs(120);

/// Runs the fixture in Octave on `inputs` (through a MAT-file) and reads its outputs back.
fn octave_outputs(
    name: &str,
    path: &Path,
    inputs: &[(String, Value)],
    outputs: &[String],
) -> Result<Vec<(String, Value)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut files = octave::coder_stubs();
    files.push((PathBuf::from(format!("{name}.m")), text));
    let call = Call {
        function: name.to_string(),
        inputs: inputs.to_vec(),
        outputs: outputs.to_vec(),
    };
    match octave::answer_calls(&files, &[call], OCTAVE_LIMIT)?.pop() {
        Some(Answer::Outputs(values)) => Ok(values),
        Some(Answer::Error(message)) => Err(format!("Octave failed: {message}")),
        Some(Answer::Timeout) | None => Err(format!(
            "Octave did not finish `{name}` in {} s",
            OCTAVE_LIMIT.as_secs()
        )),
    }
}
