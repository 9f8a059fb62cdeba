//! The seeded differential run of CI: a fixed set of random loop programs must give Octave's
//! outputs bit for bit on the C path and on the emulated GPU (see `m2cu-difftest --help` for
//! longer runs by hand). Needs octave-cli and C/C++ compilers: skips with a printed reason when
//! Octave is missing, and fails instead under `CI=true`.

use m2cu_difftest::{campaign, oracle, Config};

/// Changing the seed or count changes which programs CI checks; a longer run belongs on the
/// command line.
const SEED: u64 = 20261121;
const COUNT: u64 = 150;

#[test]
fn random_programs_match_octave() {
    if let Err(why) = oracle::available() {
        if std::env::var("CI").is_ok_and(|v| v == "true") {
            panic!("octave-cli is required under CI=true: {why}");
        }
        eprintln!("skipping: octave-cli is not available: {why}");
        return;
    }
    let config = Config {
        seed: SEED,
        count: COUNT,
        batch: 25,
        minimize: false,
        ..Config::default()
    };
    let summary = campaign::run(&config, &mut |line| eprintln!("differential: {line}"))
        .expect("the campaign runs");
    let rejected: u64 = summary.rejected.values().map(|(n, _)| n).sum();
    eprintln!(
        "differential: seed {SEED}: {} programs, {} agree on C and emulated GPU, {rejected} rejected at translate time",
        summary.generated, summary.compared
    );
    let findings: Vec<String> = summary
        .findings
        .iter()
        .map(|f| format!("{:?}: {}\n{}", f.backend, f.detail, f.case.standalone()))
        .collect();
    assert!(
        summary.octave_errors.is_empty(),
        "generated programs Octave cannot run: {:?}",
        summary.octave_errors
    );
    assert!(summary.batch_only.is_empty(), "{}", summary.batch_only.join("\n"));
    assert!(findings.is_empty(), "differences from Octave:\n{}", findings.join("\n"));
    // Most programs must be within the subset, or the run proves little.
    assert!(
        summary.compared * 10 >= summary.generated * 7,
        "only {} of {} programs were compared",
        summary.compared,
        summary.generated
    );
}
