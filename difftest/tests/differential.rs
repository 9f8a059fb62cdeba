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
        .map(|f| format!("{}: {}\n{}", f.backend, f.detail, f.case.standalone()))
        .collect();
    assert!(
        summary.octave_errors.is_empty(),
        "generated programs Octave cannot run: {:?}",
        summary.octave_errors
    );
    assert!(
        summary.batch_only.is_empty(),
        "{}",
        summary.batch_only.join("\n")
    );
    assert!(
        findings.is_empty(),
        "differences from Octave:\n{}",
        findings.join("\n")
    );
    // Most programs must be within the subset, or the run proves little.
    assert!(
        summary.compared * 10 >= summary.generated * 7,
        "only {} of {} programs were compared",
        summary.compared,
        summary.generated
    );
}

/// The comparison has teeth: a generated program checked against Octave's outputs with one
/// element changed (by one unit, or NaN for a float) is reported as a difference.
#[test]
fn a_changed_expected_value_is_reported() {
    if oracle::available().is_err() {
        eprintln!("skipping: octave-cli is not available");
        return;
    }
    let case = (0..)
        .map(|k| m2cu_difftest::gen::case(SEED, k))
        .take(50)
        .find(|c| {
            c.inputs.iter().all(|(_, v)| v.rows() * v.cols() > 1)
                && m2cu::translate_for(&c.standalone(), &c.inputs, &campaign::case_options(c))
                    .is_ok()
        })
        .expect("one of the first programs has non-empty inputs and translates");
    let mut expected = oracle::run(&[&case])
        .expect("Octave runs")
        .pop()
        .expect("one outcome")
        .expect("Octave runs the program");
    assert_eq!(
        campaign::alone(&case, &expected, m2cu_difftest::Target::Cpu),
        None,
        "{}",
        case.standalone()
    );
    let name = expected[0].0.clone();
    perturb(&mut expected[0].1);
    let reported = campaign::alone(&case, &expected, m2cu_difftest::Target::Cpu)
        .unwrap_or_else(|| panic!("a changed `{name}` went unnoticed"));
    assert!(reported.contains(name.as_str()), "{reported}");
}

/// Changes the first element of `value` (or its class, when it has no elements).
fn perturb(value: &mut m2cu::Value) {
    use m2cu_runtime::Data;
    match &mut value.data {
        Data::Double(v) if !v.is_empty() => v[0] = if v[0].is_nan() { 0.0 } else { f64::NAN },
        Data::Single(v) if !v.is_empty() => v[0] = if v[0].is_nan() { 0.0 } else { f32::NAN },
        Data::Logical(v) if !v.is_empty() => v[0] = !v[0],
        Data::Int8(v) if !v.is_empty() => v[0] = v[0].wrapping_add(1),
        Data::Int16(v) if !v.is_empty() => v[0] = v[0].wrapping_add(1),
        Data::Int32(v) if !v.is_empty() => v[0] = v[0].wrapping_add(1),
        Data::Int64(v) if !v.is_empty() => v[0] = v[0].wrapping_add(1),
        Data::Uint8(v) if !v.is_empty() => v[0] = v[0].wrapping_add(1),
        Data::Uint16(v) if !v.is_empty() => v[0] = v[0].wrapping_add(1),
        Data::Uint32(v) if !v.is_empty() => v[0] = v[0].wrapping_add(1),
        Data::Uint64(v) if !v.is_empty() => v[0] = v[0].wrapping_add(1),
        _ => value.data = Data::Char(vec![]),
    }
}

/// Programs with input checks: where Octave stops with the intended error, m2cu must stop with
/// the same message and identifier; where it does not, the outputs must agree.
#[test]
fn raising_programs_stop_with_octaves_error() {
    if oracle::available().is_err() {
        eprintln!("skipping: octave-cli is not available");
        return;
    }
    let config = Config {
        seed: 16,
        count: 60,
        batch: 25,
        minimize: false,
        backends: vec![m2cu_difftest::Target::Cpu],
        features: m2cu_difftest::gen::Features::parse("errors").expect("known feature"),
        ..Config::default()
    };
    let summary = campaign::run(&config, &mut |line| eprintln!("differential: {line}"))
        .expect("the campaign runs");
    let findings: Vec<String> = summary
        .findings
        .iter()
        .map(|f| format!("{}: {}\n{}", f.backend, f.detail, f.case.standalone()))
        .collect();
    assert!(findings.is_empty(), "{}", findings.join("\n"));
    assert!(
        summary.octave_errors.is_empty(),
        "{:?}",
        summary.octave_errors
    );
    // 7 of them stop in Octave (on b4775f4, cpu and emu-in-order stopped with the same error).
    assert!(
        summary.raised >= 5,
        "only {} programs raised",
        summary.raised
    );
}
