//! GNU Octave as the oracle: many cases run in one `octave-cli` session (starting Octave costs
//! about half a second), each as its own function file with its inputs in a MAT-file; a case
//! that errors in Octave gets its message back instead of outputs.
//!
//! Invariant: a case's outputs come back by name, in the case's output order.

use std::fmt::Write;
use std::path::Path;
use std::process::Command;

use m2cu::Value;

use crate::program::Case;

/// Named values: a program's outputs, in its output order.
pub type Outputs = Vec<(String, Value)>;

/// What Octave computed for one case: outputs by name, or its error message.
pub type Outcome = Result<Outputs, String>;

/// `octave-cli --version`'s first line, or why it cannot run.
pub fn available() -> Result<String, String> {
    match Command::new("octave-cli").arg("--version").output() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .unwrap_or("octave-cli")
            .to_string()),
        Ok(o) => Err(format!(
            "octave-cli --version failed: {}",
            String::from_utf8_lossy(&o.stderr)
        )),
        Err(e) => Err(format!(
            "octave-cli not found ({e}); install it with `apt-get install octave`"
        )),
    }
}

/// Runs every case in one Octave session; one outcome per case, in order.
pub fn run(cases: &[&Case]) -> Result<Vec<Outcome>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    let mut script = String::from("warning('off', 'all');\n");
    for case in cases {
        write_case(dir.path(), case)?;
        let _ = writeln!(script, "{}", call_line(case));
    }
    std::fs::write(dir.path().join("m2cu_fail.m"), FAIL).map_err(|e| e.to_string())?;
    std::fs::write(dir.path().join("m2cu_driver.m"), script).map_err(|e| e.to_string())?;
    let out = Command::new("octave-cli")
        .args(["--no-gui", "--norc", "--no-history", "m2cu_driver.m"])
        .current_dir(dir.path())
        .output()
        .map_err(|e| format!("octave-cli: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "octave-cli failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(cases.iter().map(|c| outcome(dir.path(), c)).collect())
}

const FAIL: &str = "function m2cu_fail(name, err)\n  fid = fopen([name '_err.txt'], 'w');\n  fprintf(fid, '%s', err.message);\n  fclose(fid);\nend\n";

fn write_case(dir: &Path, case: &Case) -> Result<(), String> {
    std::fs::write(dir.join(format!("{}.m", case.name)), case.standalone())
        .map_err(|e| e.to_string())?;
    m2cu_runtime::write_mat(dir.join(format!("{}_in.mat", case.name)), &case.inputs)
        .map_err(|e| format!("{}: inputs: {e}", case.name))
}

fn call_line(case: &Case) -> String {
    let name = &case.name;
    let args: Vec<String> = case.inputs.iter().map(|(n, _)| format!("I.{n}")).collect();
    let quoted: Vec<String> = case.outputs.iter().map(|o| format!("'{o}'")).collect();
    format!(
        "try; I = load('{name}_in.mat'); [{outs}] = {name}({args}); save('-v7', '{name}_out.mat', {quoted}); catch err; m2cu_fail('{name}', err); end; clear -x m2cu_fail;",
        outs = case.outputs.join(", "),
        args = args.join(", "),
        quoted = quoted.join(", "),
    )
}

fn outcome(dir: &Path, case: &Case) -> Outcome {
    let err = dir.join(format!("{}_err.txt", case.name));
    if let Ok(message) = std::fs::read_to_string(&err) {
        return Err(message);
    }
    let saved = m2cu_runtime::read_mat(dir.join(format!("{}_out.mat", case.name)))
        .map_err(|e| format!("reading Octave's outputs: {e}"))?;
    case.outputs
        .iter()
        .map(|o| {
            saved
                .iter()
                .find(|(n, _)| n == o)
                .cloned()
                .ok_or_else(|| format!("Octave saved no `{o}`"))
        })
        .collect()
}
