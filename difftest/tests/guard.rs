//! The standing guard of issue 14: the generator's new features appear and keep old programs,
//! `m2cu-mutate` classifies crashes, and bounded samples of both tools run against the `m2cu`
//! binary. Needs octave-cli and a C compiler for the samples: they skip with a printed reason
//! when Octave is missing, and fail instead under `CI=true`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use m2cu_difftest::gen::{case, case_with, Features};
use m2cu_difftest::mutate::{self, Bug, Config, Outcome};
use m2cu_difftest::{oracle, setcheck};

const SEED: u64 = 20261123;

fn octave_or_skip() -> bool {
    match oracle::available() {
        Ok(_) => true,
        Err(why) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("octave-cli is required under CI=true: {why}")
        }
        Err(why) => {
            eprintln!("skipping: octave-cli is not available: {why}");
            false
        }
    }
}

/// The debug `m2cu` binary of this workspace, built (or brought up to date) by cargo.
fn m2cu_binary() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = std::process::Command::new(cargo)
        .args(["build", "--quiet", "-p", "m2cu", "--bin", "m2cu"])
        .current_dir(&root)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build --bin m2cu failed");
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    target.join("debug/m2cu")
}

#[test]
fn features_appear_and_keep_the_old_body() {
    let (mut zero_trip, mut exprs, mut alone) = (0, 0, 0);
    for k in 0..300 {
        let old = case(SEED, k).standalone();
        let new = case_with(SEED, k, Features::ALL);
        let text = new.standalone();
        zero_trip += usize::from(text.contains("for z"));
        exprs += usize::from(text.lines().any(|l| l.trim_start().starts_with('e')));
        alone += usize::from(new.alone);
        if !new.alone {
            // Without renaming, every line of the old program is still there, in order.
            let mut rest = text.as_str();
            for line in old.lines().skip(1) {
                let at = rest
                    .find(line)
                    .unwrap_or_else(|| panic!("case {k} lost `{line}`"));
                rest = &rest[at + line.len()..];
            }
        }
    }
    assert!(
        zero_trip > 60 && exprs > 40 && alone > 40,
        "{zero_trip} {exprs} {alone}"
    );
}

fn fake_m2cu(dir: &Path, body: &str) -> PathBuf {
    let path = dir.join("fake-m2cu");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write");
    std::process::Command::new("chmod")
        .args(["+x", path.to_str().expect("utf-8")])
        .status()
        .expect("chmod");
    path
}

/// A panic, a signal and a hang of the child are bugs of the kind they are.
#[test]
fn mutate_classifies_crashes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let seeds = vec![mutate::Seed {
        name: "f".into(),
        source: "function y = f(x)\n  y = x + 1;\nend\n".into(),
        args: vec!["x=double".into()],
        inputs: None,
    }];
    let cases = [
        (
            "echo \"thread 'main' panicked at src/a.rs:3:5:\" >&2; exit 101",
            "panic",
        ),
        ("kill -SEGV $$", "signal"),
        ("sleep 30", "hang"),
        // Ignoring TERM (Octave catches it to save its workspace) ends in timeout's KILL: still
        // a hang, not a crash.
        ("trap '' TERM; sleep 30", "hang"),
        (
            "echo 'internal error (please report): x' >&2; exit 1",
            "internal",
        ),
        // What `timeout` answers when it cannot run the binary: the harness is broken, and
        // counting every mutant as rejected would hide that.
        ("exit 127", "harness"),
    ];
    for (script, kind) in cases {
        let config = Config {
            seed: 1,
            first: 0,
            count: Some(1),
            seconds: None,
            jobs: 1,
            m2cu: fake_m2cu(dir.path(), script),
            fixtures: dir.path().into(),
            save: None,
            // Long enough for a one-line script on a loaded 2-core machine (CI saw `echo; exit 1`
            // take over a second while the other guard tests ran m2cu and Octave), short
            // enough for the two hangs.
            step_limit: Duration::from_secs(5),
        };
        let m = mutate::mutant(&seeds, 1, 0);
        let (outcome, _) = mutate::pipeline(&config, &seeds[0], &m);
        assert!(
            matches!(&outcome, Outcome::Bug(Bug { kind: k, step: "check", .. }) if *k == kind),
            "{script}: {outcome:?}"
        );
    }
}

/// A bounded sample of the mutation fuzzer against the real binary: the harness runs every
/// mutant to an outcome. Bugs found are printed (issue 14 lists the known ones).
#[test]
fn mutate_sample_runs() {
    if !octave_or_skip() {
        return;
    }
    let config = Config {
        seed: SEED,
        first: 0,
        count: Some(30),
        seconds: Some(40),
        jobs: 2,
        m2cu: m2cu_binary(),
        fixtures: Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures"),
        save: None,
        step_limit: Duration::from_secs(5),
    };
    // The harness itself: an unmutated e2e seed goes through every step and runs.
    let seeds = mutate::seeds(&config.fixtures.join("e2e")).expect("seeds");
    let seed = seeds.iter().find(|s| s.name == "allany").expect("allany.m");
    let itself = mutate::Mutant {
        seed: 0,
        source: seed.source.clone(),
        path: PathBuf::from("allany.m"),
        mutations: Vec::new(),
    };
    let (outcome, log) = mutate::pipeline(&config, seed, &itself);
    assert_eq!(outcome, Outcome::Ran, "{log:?}");
    let summary = mutate::run(&config, &|l| eprintln!("mutate: {l}")).expect("the fuzzer runs");
    eprintln!("mutate: {summary:?}");
    assert!(summary.tried > 0);
    assert!(
        !summary.bugs.keys().any(|b| b.kind == "harness"),
        "{:?}",
        summary.bugs
    );
}

/// `m2cu run --set` of integer arithmetic against Octave, through the binary.
#[test]
fn set_expressions_match_octave() {
    if !octave_or_skip() {
        return;
    }
    let report = setcheck::run(&m2cu_binary(), SEED, 25).expect("the check runs");
    eprintln!("set: {report:?}");
    assert_eq!(
        report.octave_errors, 0,
        "the expression generator writes invalid MATLAB"
    );
    assert!(report.differences.is_empty(), "{:?}", report.differences);
    // A refusal is allowed, but most of these plain expressions must be evaluated.
    assert!(report.agreed * 4 >= report.tried, "{:?}", report.refused);
}

/// Issue 15's control flow: optional inputs not passed (the case runs alone), input checks that
/// may raise, while loops; each in a fair share of the cases.
#[test]
fn flow_features_appear() {
    let features = Features::parse("nargin,errors,while").expect("known features");
    let (mut optional, mut raises, mut whiles) = (0, 0, 0);
    for k in 0..300 {
        let c = case_with(SEED, k, features);
        let text = c.standalone();
        if !c.optional.is_empty() {
            optional += 1;
            assert!(
                c.alone,
                "case {k}: optional inputs change nargin in a batch"
            );
            let header = text.lines().next().expect("header");
            assert!(
                header.ends_with(&format!("{})", c.optional.join(", "))),
                "{header}"
            );
        }
        raises += usize::from(c.raises);
        whiles += usize::from(text.contains("  while "));
    }
    assert!(
        optional > 20 && raises > 40 && whiles > 60,
        "{optional} {raises} {whiles}"
    );
}
