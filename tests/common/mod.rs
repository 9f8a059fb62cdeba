//! Shared helpers of the integration tests: the fixtures, their inputs, and tool probes that
//! skip with a printed reason (or fail under `CI=true`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use m2cu::Value;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The end-to-end fixtures: every `fixtures/e2e/NAME.m` that has a `NAME.in.mat`.
pub fn e2e_fixtures() -> Vec<String> {
    let dir = root().join("fixtures/e2e");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("fixtures/e2e exists")
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_str()?.strip_suffix(".m")?.to_string();
            dir.join(format!("{name}.in.mat")).exists().then_some(name)
        })
        .collect();
    names.sort();
    assert!(
        names.len() >= 12,
        "expected the e2e fixtures, found {names:?}"
    );
    names
}

pub fn e2e_path(name: &str, ext: &str) -> PathBuf {
    root().join("fixtures/e2e").join(format!("{name}{ext}"))
}

pub fn source(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

pub fn inputs(name: &str) -> Vec<(String, Value)> {
    m2cu::read_mat_file(&e2e_path(name, ".in.mat")).expect("fixture inputs load")
}

pub fn expected(name: &str) -> Vec<(String, Value)> {
    m2cu::read_mat_file(&e2e_path(name, ".out.mat")).expect("fixture outputs load")
}

/// `true` when running under CI, where missing tools are failures.
pub fn ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Skips (returns `false`) with a printed reason, or panics under CI.
pub fn require(available: Result<(), String>, what: &str) -> bool {
    match available {
        Ok(()) => true,
        Err(why) if ci() => panic!("{what} is required under CI=true: {why}"),
        Err(why) => {
            eprintln!("skipping: {what} is not available: {why}");
            false
        }
    }
}

pub fn octave_available() -> Result<(), String> {
    match std::process::Command::new("octave-cli")
        .arg("--version")
        .output()
    {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "octave-cli --version failed: {}",
            String::from_utf8_lossy(&o.stderr)
        )),
        Err(e) => Err(format!(
            "octave-cli not found ({e}); install it with `apt-get install octave`"
        )),
    }
}

/// Translates a fixture with the types of its inputs.
pub fn translate_fixture(name: &str) -> m2cu::Translation {
    let path = e2e_path(name, ".m");
    let args = inputs(name).iter().map(|(n, v)| arg_spec(n, v)).collect();
    let options = m2cu::Options {
        file_name: format!("{name}.m"),
        entry: None,
        args,
    };
    m2cu::translate(&source(&path), &options).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The `--args` spec `run` would derive from an actual input.
pub fn arg_spec(name: &str, v: &Value) -> String {
    let dims = match (v.rows(), v.cols()) {
        (1, 1) => String::new(),
        (1, _) => "(1,:)".into(),
        (_, 1) => "(:,1)".into(),
        _ => "(:,:)".into(),
    };
    format!("{name}={}{dims}", v.class().name())
}
