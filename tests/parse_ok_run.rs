//! Every `fixtures/parse/ok` fixture that is a runnable function — its first function declares
//! every input in an `arguments` block with a class and a fixed size — is translated, run on the
//! CPU path with deterministic inputs, and compared with what GNU Octave computes from the same
//! inputs now. Fixtures that m2cu rejects by design are listed in [`REJECTED`] with the
//! diagnostic code they must produce; any other translation failure fails the test.

mod common;

use std::path::Path;

use m2cu::{Dialect, Options};
use m2cu_frontend::parser::{parse_file_with, ParseOptions};

/// Runnable fixtures m2cu rejects on purpose, with the code of the diagnostic.
const REJECTED: &[(&str, &str)] = &[("nested_functions", "E0103")];

fn dialect_of(name: &str) -> Dialect {
    if name.starts_with("octave_") {
        Dialect::Octave
    } else {
        Dialect::Matlab
    }
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
    let decls = common::runnable::runnable_inputs(&file)?;
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
        (Ok(t), None) => common::runnable::compare_with_octave(
            &name,
            path,
            &source,
            &options,
            &decls,
            &t,
            &[common::on(m2cu::Backend::Cpu)],
        ),
    };
    Some(Outcome { name, problem })
}

#[test]
fn runnable_ok_fixtures_match_octave() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let outcomes: Vec<Outcome> = common::fixture_files("parse/ok")
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
