//! Every `fixtures/parse/ok` fixture that is a runnable function — its first function declares
//! every input in an `arguments` block with a class and a fixed size — is translated, run on the
//! CPU path with deterministic inputs, and compared with what GNU Octave computes from the same
//! inputs now. Fixtures that m2cu rejects by design are listed in [`REJECTED`] with the
//! diagnostic code they must produce; any other translation failure fails the test.

mod common;

use std::path::{Path, PathBuf};

use m2cu::{Backend, Dialect, Options, RunOptions, Value};
use m2cu_frontend::ast::{ArgDecl, DimSpec, File};
use m2cu_frontend::parser::{parse_file_with, ParseOptions};

/// Runnable fixtures m2cu rejects on purpose, with the code of the diagnostic.
const REJECTED: &[(&str, &str)] = &[
    ("anonymous_functions", "E0103"),
    ("dotted_names", "E0103"),
    ("function_handles", "E0103"),
    ("nested_functions", "E0103"),
    ("octave_strings", "E0103"),
];

fn ok_fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/parse/ok");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/parse/ok")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "m"))
        .collect();
    files.sort();
    files
}

fn dialect_of(name: &str) -> Dialect {
    if name.starts_with("octave_") {
        Dialect::Octave
    } else {
        Dialect::Matlab
    }
}

/// The declared inputs of the entry function, when every one has a class and a fixed size.
fn runnable_inputs(file: &File) -> Option<Vec<ArgDecl>> {
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
fn input_value(decl: &ArgDecl, salt: usize) -> Value {
    let (rows, cols) = match decl.dims.as_deref() {
        Some([DimSpec::Fixed(r), DimSpec::Fixed(c)]) => (*r as usize, *c as usize),
        _ => (1, 1),
    };
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
    built.expect("input value")
}

struct Outcome {
    name: String,
    problem: Option<String>,
}

fn check_fixture(path: &Path) -> Option<Outcome> {
    let name = path.file_stem()?.to_string_lossy().into_owned();
    let source = common::source(path);
    let dialect = dialect_of(&name);
    let file = parse_file_with(&source, &ParseOptions { dialect }).ok()?;
    let decls = runnable_inputs(&file)?;
    let options = Options {
        file_name: format!("{name}.m"),
        dialect,
        ..Default::default()
    };
    let rejected = REJECTED.iter().find(|(n, _)| *n == name);
    let problem = match (m2cu::translate(&source, &options), rejected) {
        (Err(e), Some((_, code))) if e.to_string().contains(code) => None,
        (Err(e), _) => Some(format!("translation failed:\n{e}")),
        (Ok(_), Some((_, code))) => Some(format!("expected {code}, but it translated")),
        (Ok(t), None) => compare_with_octave(&name, path, &source, &options, &decls, &t),
    };
    Some(Outcome { name, problem })
}

fn compare_with_octave(
    name: &str,
    path: &Path,
    source: &str,
    options: &Options,
    decls: &[ArgDecl],
    t: &m2cu::Translation,
) -> Option<String> {
    let inputs: Vec<(String, Value)> = decls
        .iter()
        .enumerate()
        .map(|(k, d)| (d.name.name.clone(), input_value(d, k)))
        .collect();
    let run_options = RunOptions {
        backend: Backend::Cpu,
        ..Default::default()
    };
    let actual = match m2cu::run(source, &inputs, options, &run_options) {
        Ok(r) => r.outputs,
        Err(e) => return Some(format!("m2cu run failed: {e}")),
    };
    let outputs: Vec<String> = t.outputs.iter().map(|(n, _)| n.clone()).collect();
    let expected = match octave_outputs(name, path, &inputs, &outputs) {
        Ok(v) => v,
        Err(e) => return Some(e),
    };
    let problems: Vec<String> = outputs
        .iter()
        .filter_map(|o| {
            let want = expected.iter().find(|(n, _)| n == o).map(|(_, v)| v)?;
            let got = actual.iter().find(|(n, _)| n == o).map(|(_, v)| v)?;
            common::difference(want, got).map(|d| format!("{o}: {d}"))
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

#[test]
fn runnable_ok_fixtures_match_octave() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let outcomes: Vec<Outcome> = ok_fixtures()
        .iter()
        .filter_map(|p| check_fixture(p))
        .collect();
    assert!(
        outcomes.len() >= 15,
        "only {} runnable ok fixtures",
        outcomes.len()
    );
    let names: Vec<&str> = outcomes.iter().map(|o| o.name.as_str()).collect();
    eprintln!("runnable ok fixtures: {}", names.join(", "));
    let failures: Vec<String> = outcomes
        .iter()
        .filter_map(|o| o.problem.as_ref().map(|p| format!("{}: {p}", o.name)))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
