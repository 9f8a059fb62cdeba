//! `fixtures/analysis/*.m`: one fixture per reduction kind, planning case and reason a loop stays
//! sequential. For each, the loop report is snapshotted as compiler notes and as JSON; the
//! verdicts must fit the fixture's family (`red_*` has a reduction loop that becomes a kernel,
//! `plan_*` has a kernel, `seq_*` has a loop that stays on the host); and the CPU-path result
//! must equal what Octave computes from the same inputs, on the CPU path and on the emulated GPU.

mod common;

use m2cu::{Backend, Options};
use m2cu_frontend::parser::parse_file;

fn name_of(path: &std::path::Path) -> String {
    path.file_stem()
        .expect("stem")
        .to_string_lossy()
        .into_owned()
}

fn options(name: &str) -> Options {
    Options {
        file_name: format!("{name}.m"),
        ..Default::default()
    }
}

/// Whether the loops' verdicts fit the fixture's family.
fn fits_family(name: &str, loops: &[serde_json::Value]) -> bool {
    let any = |f: &dyn Fn(&serde_json::Value) -> bool| loops.iter().any(f);
    match name.split('_').next() {
        Some("red") => any(&|l| l["verdict"] == "reduction" && l["placement"] == "kernel"),
        Some("plan") => any(&|l| l["placement"] == "kernel"),
        Some("seq") => any(&|l| l["verdict"] == "sequential" && l["placement"] == "host"),
        _ => false,
    }
}

#[test]
fn reports_match_snapshots_and_families() {
    let files = common::analysis_fixtures();
    assert!(files.len() >= 18, "expected at least 18 analysis fixtures");
    for path in files {
        let name = name_of(&path);
        let source = common::source(&path);
        let t = m2cu::translate(&source, &options(&name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let json = serde_json::json!({ "functions": [t.report_json] });
        let loops = json["functions"][0]["loops"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(fits_family(&name, &loops), "{name}:\n{}", t.report);
        insta::with_settings!({ description => source.clone(), omit_expression => true }, {
            insta::assert_snapshot!(format!("{name}.notes"), t.report_notes);
            insta::assert_snapshot!(format!("{name}.json"), format!("{json:#}"));
        });
    }
}

#[test]
fn results_match_octave() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let mut failures = Vec::new();
    for path in common::analysis_fixtures() {
        let name = name_of(&path);
        let source = common::source(&path);
        let file = parse_file(&source).expect("parses");
        let decls = common::runnable::runnable_inputs(&file)
            .unwrap_or_else(|| panic!("{name}: declare every input with a class and a fixed size"));
        let options = options(&name);
        let t = m2cu::translate(&source, &options).expect("translates");
        if let Some(problem) = common::runnable::compare_with_octave(
            &name,
            &path,
            &source,
            &options,
            &decls,
            &t,
            &[Backend::Cpu, Backend::Emu],
        ) {
            failures.push(format!("{name}: {problem}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
