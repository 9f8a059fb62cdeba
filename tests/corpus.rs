//! The corpus of real-style MATLAB programs (`fixtures/corpus`): how many m2cu accepts, and that
//! every one it accepts computes what Octave computes.
//!
//! Each `fixtures/corpus/NAME.m` with `% set: NAME=EXPR` lines is a program; an `.m` without
//! them is a helper in a sibling file. The `set` lines are its inputs, in order: m2cu gets them as
//! `--set` arguments of `m2cu run` (the binary, as a user runs it), Octave evaluates them as
//! statements and calls the function with the parameters that were set, in the signature's order
//! (fewer than declared is how `nargin` defaults are exercised), with Octave stand-ins for MATLAB
//! Coder's directives and `gpucoder.reduce` on its path. Each program ends as one
//! [`Outcome`]: equal to Octave (its outputs, and the text it printed, on the C path and on the
//! emulated GPU), refused by a diagnostic,
//! stopped by a run-time error, or different. A difference fails the test (never a silent wrong
//! result); so does accepting fewer programs than [`ACCEPTED_AT_LEAST`], the count measured when
//! the corpus last grew, so that a regression in the language m2cu takes shows here.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use m2cu::Value;

/// Programs m2cu accepted (equal to Octave on every backend) when the corpus was last measured.
const ACCEPTED_AT_LEAST: usize = 252;

/// One corpus program.
struct Program {
    name: String,
    path: PathBuf,
    sets: Vec<String>,
    params: Vec<String>,
    outputs: Vec<String>,
    /// The relative norm-wise tolerance of a program whose outputs amplify the rounding of its
    /// sums (a `% tolerance: REL because WHY` line; 1e-12 without one).
    tolerance: f64,
}

/// What became of one program.
#[derive(Debug)]
enum Outcome {
    /// Octave's outputs, on every backend tried.
    Equal,
    /// m2cu refused it at translation: the diagnostic codes, in order.
    Refused(Vec<String>),
    /// m2cu stopped with a run-time error where Octave answered.
    Stopped(String),
    /// Both stopped with an error (the program's own input check).
    BothStopped,
    /// A result that is not Octave's: the backend and why.
    Different(String),
}

impl Outcome {
    fn label(&self) -> String {
        match self {
            Outcome::Equal => "equal".into(),
            Outcome::Refused(codes) => format!("refused {}", codes.join(" ")),
            Outcome::Stopped(why) => format!("stopped: {why}"),
            Outcome::BothStopped => "both stopped".into(),
            Outcome::Different(why) => format!("DIFFERENT: {why}"),
        }
    }
}

fn corpus_dir() -> PathBuf {
    common::root().join("fixtures/corpus")
}

fn programs() -> Vec<Program> {
    common::fixture_files("corpus")
        .into_iter()
        .filter_map(|path| parse_program(&path))
        .collect()
}

/// The program in `path`, or `None` for a helper file (no `% set:` lines).
fn parse_program(path: &Path) -> Option<Program> {
    let text = common::source(path);
    let sets: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("% set: "))
        .map(|s| s.trim().to_string())
        .collect();
    if sets.is_empty() {
        return None;
    }
    let name = path.file_stem()?.to_str()?.to_string();
    let header = text
        .lines()
        .find(|l| l.trim_start().starts_with("function"))?;
    let (outputs, params) = signature(header);
    Some(Program {
        name,
        tolerance: tolerance_line(&text, path),
        path: path.to_path_buf(),
        sets,
        params,
        outputs,
    })
}

/// The tolerance of a `% tolerance: REL because WHY` line (which must say why), or 1e-12.
fn tolerance_line(text: &str, path: &Path) -> f64 {
    let Some(line) = text.lines().find_map(|l| l.strip_prefix("% tolerance: ")) else {
        return common::Tolerance::REASSOCIATED.double;
    };
    let (value, why) = line
        .split_once(" because ")
        .unwrap_or_else(|| panic!("{}: a tolerance line says why", path.display()));
    assert!(
        !why.trim().is_empty(),
        "{}: the tolerance's reason",
        path.display()
    );
    value
        .trim()
        .parse()
        .unwrap_or_else(|_| panic!("{}: a tolerance", path.display()))
}

/// The output and parameter names of `function [a, b] = f(x, y)` (or `function a = f(x)`).
fn signature(header: &str) -> (Vec<String>, Vec<String>) {
    let names = |s: &str| -> Vec<String> {
        s.split(|c: char| c == ',' || c.is_whitespace())
            .map(|n| n.trim_matches(|c| c == '[' || c == ']'))
            .filter(|n| !n.is_empty())
            .map(str::to_string)
            .collect()
    };
    let rest = header.trim_start().trim_start_matches("function");
    let (outs, call) = rest.split_once('=').unwrap_or(("", rest));
    let params = call
        .split_once('(')
        .map(|(_, p)| p.trim_end().trim_end_matches(')'))
        .unwrap_or("");
    (names(outs), names(params))
}

/// The name a `set` line assigns.
fn set_name(set: &str) -> &str {
    set.split('=').next().unwrap_or("").trim()
}

/// What a run gave: the outputs by name, and the text the program printed.
struct Ran {
    outputs: Vec<(String, Value)>,
    printed: String,
}

/// Octave's outputs for `p` and what it printed, or its error message.
fn octave_outputs(p: &Program, scratch: &Path) -> Result<Ran, String> {
    let given: Vec<&str> = p
        .params
        .iter()
        .map(String::as_str)
        .filter(|param| p.sets.iter().any(|s| set_name(s) == *param))
        .collect();
    let file = scratch.join("octave.mat");
    let stubs = scratch.join("stubs");
    for (path, text) in m2cu_runtime::octave::coder_stubs() {
        let path = stubs.join(path);
        std::fs::create_dir_all(path.parent().expect("a stub's folder"))
            .and_then(|()| std::fs::write(&path, text))
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    let quoted = |s: &str| format!("'{}'", s.replace('\'', "''"));
    let outs: Vec<String> = p.outputs.iter().map(|o| quoted(o)).collect();
    // The script's own names start with `m2cu_`, which no program's input takes.
    let script = format!(
        "warning('off', 'all'); addpath({stubs}); cd({dir});\n{sets};\n\
         try\n  m2cu_r = cell(1, {n}); [m2cu_r{{:}}] = {name}({args});\n\
         m2cu_s = cell2struct(m2cu_r, {{{outs}}}, 2); save('-v7', {file}, '-struct', 'm2cu_s');\n\
         catch m2cu_e\n  printf('m2cu-octave-error: %s\\n', m2cu_e.message);\nend\n",
        stubs = quoted(&stubs.display().to_string()),
        dir = quoted(&corpus_dir().display().to_string()),
        sets = p.sets.join(";\n"),
        n = p.outputs.len(),
        name = p.name,
        args = given.join(", "),
        outs = outs.join(", "),
        file = quoted(&file.display().to_string()),
    );
    let stdout = m2cu_runtime::octave::eval(scratch, &script)?;
    if let Some(msg) = stdout
        .lines()
        .find_map(|l| l.strip_prefix("m2cu-octave-error: "))
    {
        return Err(msg.to_string());
    }
    let outputs =
        m2cu::read_mat_file(&file).map_err(|e| format!("cannot read Octave's outputs: {e}"))?;
    Ok(Ran {
        outputs,
        printed: stdout,
    })
}

/// Why `m2cu run` gave no outputs.
enum NoOutputs {
    /// It refused the program with these diagnostic codes.
    Refused(Vec<String>),
    /// It stopped at run time with this message.
    Stopped(String),
}

/// What `m2cu run` on `backend` gave: the outputs and what the program printed (standard
/// output without the outputs that `m2cu run` shows after the call), or why there are none.
/// Built with `--quick-build`: the corpus checks results, which are the same bits at `-O0`,
/// and `-O3` builds of its inlined programs took most of the test's time (the e2e fixtures
/// keep the C path at `-O3`).
fn m2cu_outputs(p: &Program, backend: &str, scratch: &Path) -> Result<Ran, NoOutputs> {
    let file = scratch.join(format!("m2cu-{backend}.mat"));
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_m2cu"));
    cmd.arg("run")
        .arg(&p.path)
        .args(["--backend", backend, "--quick-build"]);
    for set in &p.sets {
        cmd.arg("--set").arg(set);
    }
    let out = cmd.arg("--output").arg(&file).output().expect("m2cu runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        let codes: Vec<String> = stderr
            .lines()
            .filter_map(|l| l.strip_prefix("error["))
            .filter_map(|l| l.split(']').next())
            .map(str::to_string)
            .collect();
        return Err(if codes.is_empty() {
            NoOutputs::Stopped(stderr.lines().next().unwrap_or("").to_string())
        } else {
            NoOutputs::Refused(codes)
        });
    }
    let outputs = m2cu::read_mat_file(&file)
        .map_err(|e| NoOutputs::Stopped(format!("cannot read m2cu's outputs: {e}")))?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let shown: String = outputs
        .iter()
        .map(|(name, value)| {
            let text = m2cu_runtime::display(name, value);
            match text.ends_with('\n') {
                true => text,
                false => text + "\n",
            }
        })
        .collect();
    let printed = stdout.strip_suffix(shown.as_str()).ok_or_else(|| {
        NoOutputs::Stopped("m2cu's shown outputs are not at the end of its standard output".into())
    })?;
    Ok(Ran {
        outputs,
        printed: printed.to_string(),
    })
}

/// The first line where two printed texts differ, quoted, or `None` when they are equal. A
/// number may differ in its last printed digit by one ([`same_print`]): a sum that m2cu
/// reassociates (see [`differences`]) can round the other way there.
fn printed_difference(expected: &str, actual: &str) -> Option<String> {
    if expected == actual {
        return None;
    }
    let (mut e, mut a) = (expected.lines(), actual.lines());
    for line in 1.. {
        match (e.next(), a.next()) {
            (Some(x), Some(y)) if same_print(x, y) => continue,
            (None, None) => return None,
            (x, y) => {
                return Some(format!(
                    "printed line {line} is {:?} where Octave printed {:?}",
                    y.unwrap_or("(nothing)"),
                    x.unwrap_or("(nothing)")
                ))
            }
        }
    }
    unreachable!("the loop returns at the first line that differs or where both end")
}

/// Whether two printed lines are the same text around their numbers, and each pair of numbers
/// is equal or, both written with a point or an exponent (not counts), one unit apart in the
/// finer last printed digit of the two.
fn same_print(expected: &str, actual: &str) -> bool {
    let (e, a) = (pieces(expected), pieces(actual));
    e.len() == a.len()
        && e.iter().zip(&a).all(|(x, y)| match (x, y) {
            (Piece::Text(p), Piece::Text(q)) => p == q,
            (Piece::Number(p), Piece::Number(q)) => {
                let (vp, vq) = (number_value(p), number_value(q));
                let unit = last_digit_unit(p).min(last_digit_unit(q));
                let whole = |n: &str| !n.contains(['.', 'e', 'E']);
                p == q || (!whole(p) && !whole(q) && (vp - vq).abs() <= unit * (1.0 + 1e-9))
            }
            _ => false,
        })
}

/// A run of text, or a number as printed (`12`, `-0.5`, `1.25e-10`; the sign is text).
#[derive(Debug, PartialEq)]
enum Piece<'a> {
    Text(&'a str),
    Number(&'a str),
}

/// `line` cut into text and unsigned numbers.
fn pieces(line: &str) -> Vec<Piece<'_>> {
    let b = line.as_bytes();
    let digits = |mut k: usize| {
        while k < b.len() && b[k].is_ascii_digit() {
            k += 1;
        }
        k
    };
    let mut out = Vec::new();
    let (mut k, mut text) = (0, 0);
    while k < b.len() {
        let starts =
            b[k].is_ascii_digit() || (b[k] == b'.' && k + 1 < b.len() && b[k + 1].is_ascii_digit());
        if !starts {
            k += 1;
            continue;
        }
        if text < k {
            out.push(Piece::Text(&line[text..k]));
        }
        let start = k;
        k = digits(k);
        if k < b.len() && b[k] == b'.' {
            k = digits(k + 1);
        }
        if k + 1 < b.len() && (b[k] == b'e' || b[k] == b'E') {
            let sign = usize::from(b[k + 1] == b'+' || b[k + 1] == b'-');
            if k + 1 + sign < b.len() && b[k + 1 + sign].is_ascii_digit() {
                k = digits(k + 1 + sign);
            }
        }
        out.push(Piece::Number(&line[start..k]));
        text = k;
    }
    if text < b.len() {
        out.push(Piece::Text(&line[text..]));
    }
    out
}

fn number_value(number: &str) -> f64 {
    number.parse().unwrap_or(f64::NAN)
}

/// The value of one unit in the last digit of a printed number: 0.01 for `3.25`, 1e-15 for
/// `1.25704e-10`, 1 for `12`.
fn last_digit_unit(number: &str) -> f64 {
    let (mantissa, exponent) = match number.find(['e', 'E']) {
        Some(at) => (&number[..at], number[at + 1..].parse::<i32>().unwrap_or(0)),
        None => (number, 0),
    };
    let decimals = mantissa.split_once('.').map_or(0, |(_, f)| f.len()) as i32;
    10f64.powi(exponent - decimals)
}

/// How each output differs from Octave's, if one does. The programs' floating-point sums may
/// be reduced in another order on every backend (`s = s - A(i, j) * x(j)` of a back
/// substitution is a reduction), and their results flow into arrays, so every element is
/// compared within the reassociation tolerance, norm-wise: a reassociated sum is off by about
/// eps times the magnitudes of its terms, not of its result, so a result that cancels to near
/// zero (the mean of a window of a zero-mean signal, `abs(S - exact)` of a converged rule) is
/// compared within a relative 1e-12 of the largest magnitude among the program's outputs, or
/// within the program's own tolerance where it says why its outputs amplify that rounding.
fn differences(
    p: &Program,
    expected: &[(String, Value)],
    actual: &[(String, Value)],
) -> Option<String> {
    let scale = expected
        .iter()
        .map(|(_, v)| common::largest_finite_magnitude(&v.data))
        .fold(0.0, f64::max);
    let tolerance = common::Tolerance {
        double: p.tolerance,
        ..common::Tolerance::norm_wise(scale)
    };
    let within = |e: &Value, a: &Value| common::difference_within(e, a, tolerance);
    let diffs = common::output_differences_by(expected, actual, within);
    (!diffs.is_empty()).then(|| diffs.join("; "))
}

fn outcome(p: &Program, backends: &[&str]) -> Outcome {
    let scratch = tempfile::tempdir().expect("scratch dir");
    let expected = octave_outputs(p, scratch.path());
    for &backend in backends {
        match (m2cu_outputs(p, backend, scratch.path()), &expected) {
            (Err(NoOutputs::Refused(codes)), _) => return Outcome::Refused(codes),
            (Err(NoOutputs::Stopped(_)), Err(_)) => return Outcome::BothStopped,
            (Err(NoOutputs::Stopped(why)), Ok(_)) => return Outcome::Stopped(why),
            (Ok(_), Err(why)) => {
                return Outcome::Different(format!("{backend}: answered where Octave says {why}"))
            }
            (Ok(actual), Ok(expected)) => {
                if let Some(why) = differences(p, &expected.outputs, &actual.outputs) {
                    return Outcome::Different(format!("{backend}: {why}"));
                }
                if let Some(why) = printed_difference(&expected.printed, &actual.printed) {
                    return Outcome::Different(format!("{backend}: {why}"));
                }
            }
        }
    }
    Outcome::Equal
}

/// The variable that names the programs to run (`M2CU_CORPUS_ONLY=a,b`), for a measurement of a
/// few; a run that sets it checks no count.
const ONLY: &str = "M2CU_CORPUS_ONLY";

/// The names in [`ONLY`], when it is set.
fn chosen_programs() -> Option<Vec<String>> {
    let names = std::env::var(ONLY).ok()?;
    Some(names.split(',').map(|n| n.trim().to_string()).collect())
}

#[test]
fn the_corpus_runs_as_in_octave() {
    if !common::require(common::octave_available(), "GNU Octave") {
        return;
    }
    let only = chosen_programs();
    let programs: Vec<Program> = programs()
        .into_iter()
        .filter(|p| only.as_ref().is_none_or(|names| names.contains(&p.name)))
        .collect();
    assert!(
        only.is_some() || programs.len() >= 30,
        "expected the corpus, found {}",
        programs.len()
    );
    let mut by_label: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut accepted = 0;
    let mut different = Vec::new();
    for p in &programs {
        let outcome = outcome(p, &["cpu", "emu"]);
        println!("{:<18} {}", p.name, outcome.label());
        match &outcome {
            Outcome::Equal => accepted += 1,
            Outcome::Different(why) => different.push(format!("{}: {why}", p.name)),
            _ => {}
        }
        let key = match &outcome {
            Outcome::Refused(codes) => format!("refused {}", codes[0]),
            Outcome::Stopped(_) => "stopped".into(),
            other => other.label(),
        };
        by_label.entry(key).or_default().push(p.name.clone());
    }
    println!(
        "\n{accepted} of {} programs equal Octave's results",
        programs.len()
    );
    for (label, names) in &by_label {
        println!("{label:<22} {:>3}  {}", names.len(), names.join(" "));
    }
    assert!(
        different.is_empty(),
        "results that are not Octave's:\n{}",
        different.join("\n")
    );
    if only.is_some() {
        println!("{ONLY} chose the programs: the count is not checked");
        return;
    }
    assert!(
        accepted >= ACCEPTED_AT_LEAST,
        "only {accepted} programs accepted; the corpus had {ACCEPTED_AT_LEAST}"
    );
}

/// Printed numbers may differ by one unit in their last digit, nothing else may.
#[test]
fn printed_numbers_may_differ_in_their_last_digit_only() {
    assert!(same_print("change 1.25704e-10", "change 1.25703e-10"));
    assert!(same_print("x = 0.1", "x = 0.0999999"));
    assert!(same_print("  -0.5000   2.0000", "  -0.5000   2.0000"));
    assert!(!same_print("change 1.25704e-10", "change 1.25702e-10"));
    assert!(!same_print("n = 3", "n = 4"));
    assert!(!same_print("x = 1.5", "y = 1.5"));
    assert!(!same_print("1 2", "1 2 3"));
    assert_eq!(printed_difference("a\nb\n", "a\nb\n"), None);
    assert!(printed_difference("a\n", "a\nb\n").is_some());
}
