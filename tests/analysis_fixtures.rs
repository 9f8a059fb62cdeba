//! `fixtures/analysis/*.m`: one fixture per reduction kind, planning case and reason a loop stays
//! sequential. For each, the loop report is snapshotted as compiler notes and as JSON; the
//! verdicts must fit the fixture's family (`red_*` has a reduction loop that becomes a kernel,
//! `plan_*` has a kernel, `seq_*` has a loop that stays on the host); and the CPU-path result
//! must equal what Octave computes from the same inputs, on the CPU path and on the emulated GPU.

mod common;

use m2cu::{Backend, EmuOptions, Options, RunOptions};
use m2cu_frontend::parser::parse_file;
use m2cu_runtime::{Lanes, Schedule};

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
    let (_, failures) =
        compare_fixtures(|_| vec![common::on(Backend::Cpu), common::on(Backend::Emu)]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every fixture with a per-output kernel (it has a `_lanes` variant) equals Octave on the
/// emulated GPU with each threads-per-output forced on it: a thread, a warp and a block.
#[test]
fn per_output_kernels_match_octave_in_every_mode() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let (compared, failures) = compare_fixtures(|t| {
        let per_output = t
            .generated
            .kernel_names
            .iter()
            .any(|k| k.ends_with("_lanes"));
        let forced = |lanes| RunOptions {
            backend: Backend::Emu,
            emu: EmuOptions {
                lanes: Some(lanes),
                ..Default::default()
            },
            ..Default::default()
        };
        match per_output {
            true => Lanes::ALL.map(forced).to_vec(),
            false => Vec::new(),
        }
    });
    for name in ["plan_colmax", "plan_matmul"] {
        assert!(
            compared.iter().any(|c| c == name),
            "{name} has no per-output kernel any more; compared {compared:?}"
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every fixture with a scan (it has a `_partials` kernel) equals Octave on the emulated GPU
/// with the scan in one thread and in parallel, on one multiprocessor (fewer blocks than
/// tiles: a block scans several tiles in turn) and on two, with the threads taking turns in
/// both orders. The fixtures' values are exact in any order of the sums.
#[test]
fn scan_kernels_match_octave_in_every_mode() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let (compared, failures) = compare_fixtures(|t| {
        let scans = t
            .generated
            .kernel_names
            .iter()
            .any(|k| k.ends_with("_partials"));
        let mut runs = Vec::new();
        for lanes in [Lanes::Thread, Lanes::Warp] {
            for (sm_count, schedule) in [(1, Schedule::Reverse), (2, Schedule::InOrder)] {
                runs.push(RunOptions {
                    backend: Backend::Emu,
                    emu: EmuOptions {
                        lanes: Some(lanes),
                        sm_count,
                        schedule,
                    },
                    ..Default::default()
                });
            }
        }
        if scans {
            runs
        } else {
            Vec::new()
        }
    });
    assert!(
        compared.iter().any(|c| c == "plan_scan"),
        "plan_scan has no scan kernel any more; compared {compared:?}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Compares every analysis fixture with Octave, running its translation with each of
/// `runs(translation)` (none: the fixture is skipped); returns the fixtures compared and the
/// problems found.
fn compare_fixtures(
    runs: impl Fn(&m2cu::Translation) -> Vec<RunOptions>,
) -> (Vec<String>, Vec<String>) {
    let (mut compared, mut failures) = (Vec::new(), Vec::new());
    for path in common::analysis_fixtures() {
        let name = name_of(&path);
        let source = common::source(&path);
        let options = options(&name);
        let t = m2cu::translate(&source, &options).expect("translates");
        let runs = runs(&t);
        if runs.is_empty() {
            continue;
        }
        let file = parse_file(&source).expect("parses");
        let decls = common::runnable::runnable_inputs(&file)
            .unwrap_or_else(|| panic!("{name}: declare every input with a class and a fixed size"));
        let problem = common::runnable::compare_with_octave(
            &name, &path, &source, &options, &decls, &t, &runs,
        );
        failures.extend(problem.map(|p| format!("{name}: {p}")));
        compared.push(name);
    }
    (compared, failures)
}
