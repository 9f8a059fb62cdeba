//! Runnable fixtures: a fixture whose first function declares every input in an `arguments`
//! block with a class and a fixed size can be run with deterministic inputs on the CPU path and
//! in Octave, and the two results compared.

use std::path::Path;

use m2cu::{Options, RunOptions, Value};
use m2cu_frontend::ast::{ArgDecl, DimSpec, File};

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

/// Runs the fixture in Octave on `inputs` (through a MAT-file) and reads its outputs back.
fn octave_outputs(
    name: &str,
    path: &Path,
    inputs: &[(String, Value)],
    outputs: &[String],
) -> Result<Vec<(String, Value)>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::copy(path, dir.path().join(format!("{name}.m"))).map_err(|e| e.to_string())?;
    coder_stubs(dir.path())?;
    m2cu_runtime::write_mat(dir.path().join("in.mat"), inputs).map_err(|e| e.to_string())?;
    let args: Vec<String> = inputs.iter().map(|(n, _)| format!("I.{n}")).collect();
    let script = format!(
        "warning('off', 'all'); I = load('in.mat'); [{outs}] = {name}({args}); save('-v7', 'out.mat', {quoted});",
        outs = outputs.join(", "),
        args = args.join(", "),
        quoted = outputs
            .iter()
            .map(|o| format!("'{o}'"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    let out = std::process::Command::new("octave-cli")
        .args(["--no-gui", "--eval", &script])
        .current_dir(dir.path())
        .output()
        .map_err(|e| format!("octave-cli: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "Octave failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    m2cu_runtime::read_mat(dir.path().join("out.mat")).map_err(|e| e.to_string())
}

/// GPU Coder's `gpucoder.reduce` for Octave: every function folds `A(:)` from left to right,
/// seeded with the first element; the results form a row.
const GPUCODER_REDUCE: &str = "function r = reduce(A, fs)
if ~iscell(fs)
  fs = {fs};
end
r = zeros(1, numel(fs), class(A));
for q = 1:numel(fs)
  acc = A(1);
  for k = 2:numel(A)
    acc = fs{q}(acc, A(k));
  end
  r(q) = acc;
end
end
";

/// Octave has no MATLAB Coder: the `coder.gpu.*` directives become functions that do nothing,
/// and `gpucoder.reduce` a sequential fold.
pub fn coder_stubs(dir: &Path) -> Result<(), String> {
    let gpucoder = dir.join("+gpucoder");
    std::fs::create_dir_all(&gpucoder).map_err(|e| e.to_string())?;
    std::fs::write(gpucoder.join("reduce.m"), GPUCODER_REDUCE).map_err(|e| e.to_string())?;
    let package = dir.join("+coder").join("+gpu");
    std::fs::create_dir_all(&package).map_err(|e| e.to_string())?;
    for (name, params) in [
        ("kernel", ""),
        ("nokernel", ""),
        ("kernelfun", ""),
        ("constantMemory", "~"),
    ] {
        let text = format!("function {name}({params})\nend\n");
        std::fs::write(package.join(format!("{name}.m")), text).map_err(|e| e.to_string())?;
    }
    Ok(())
}
