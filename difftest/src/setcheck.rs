//! `m2cu run --set NAME=EXPR` against Octave: random integer-arithmetic expressions
//! ([`crate::gen::int_expr`]) must give Octave's class, size and values; random-number
//! expressions ([`crate::gen::random_expr`]) Octave's class and size. Each expression goes
//! through the `m2cu` binary (a subprocess, so a crash is a finding) into an identity function
//! and back out of its `--out` MAT-file.
//!
//! Invariant: expression K of seed S depends only on (S, K).

use std::path::{Path, PathBuf};
use std::time::Duration;

use m2cu_runtime::octave::{self, Answer, Call};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::compare::difference;
use crate::gen::{int_expr, random_expr};
use crate::process::run_limited;

/// What the check saw.
#[derive(Debug, Default)]
pub struct Report {
    pub tried: u64,
    pub agreed: u64,
    /// m2cu refused the expression with a message: (expression, message's first line).
    pub refused: Vec<(String, String)>,
    /// Octave itself errs (the expression is invalid MATLAB): skipped; the first message.
    pub octave_errors: u64,
    pub first_octave_error: Option<String>,
    /// Disagreements and crashes: (expression, what differs).
    pub differences: Vec<(String, String)>,
}

/// Expression `k` of `seed`, and whether its values are comparable (not random).
pub fn expression(seed: u64, k: u64) -> (String, bool) {
    let mut rng = StdRng::seed_from_u64(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) ^ k);
    if rng.gen_bool(0.15) {
        (random_expr(&mut rng), false)
    } else {
        (int_expr(&mut rng), true)
    }
}

const IDENTITY: &str = "function y = setcheck(x)\n  y = x;\nend\n";

/// Runs `count` expressions of `seed` through `m2cu` and Octave.
pub fn run(m2cu: &Path, seed: u64, count: u64) -> Result<Report, String> {
    let exprs: Vec<(String, bool)> = (0..count).map(|k| expression(seed, k)).collect();
    let files: Vec<(PathBuf, String)> = exprs
        .iter()
        .enumerate()
        .map(|(k, (e, _))| {
            // One unused input: Octave's session loads every call's inputs from a MAT-file.
            let f = format!("function x = setexpr{k}(unused)\n  x = {e};\nend\n");
            (PathBuf::from(format!("setexpr{k}.m")), f)
        })
        .collect();
    let calls: Vec<Call> = (0..exprs.len())
        .map(|k| Call {
            function: format!("setexpr{k}"),
            inputs: vec![("unused".into(), m2cu::Value::scalar(0.0))],
            outputs: vec!["x".into()],
        })
        .collect();
    let answers = octave::answer_calls(&files, &calls, Duration::from_secs(30))?;
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::write(dir.path().join("setcheck.m"), IDENTITY).map_err(|e| e.to_string())?;
    let mut report = Report::default();
    for ((expr, comparable), answer) in exprs.into_iter().zip(answers) {
        report.tried += 1;
        let want = match answer {
            Answer::Outputs(mut v) if !v.is_empty() => v.remove(0).1,
            other => {
                report.octave_errors += 1;
                report
                    .first_octave_error
                    .get_or_insert(format!("{expr}: {other:?}"));
                continue;
            }
        };
        let argv: Vec<String> = [
            "run",
            "setcheck.m",
            "--backend",
            "cpu",
            "--output",
            "out.mat",
            "--set",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("x={expr}")])
        .collect();
        let _ = std::fs::remove_file(dir.path().join("out.mat"));
        let f = run_limited(m2cu, &argv, dir.path(), Duration::from_secs(60));
        if f.code != Some(0) {
            let crashed = f.timed_out() || f.killed_by().is_some() || f.stderr.contains("panicked");
            let first = f
                .stderr
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("")
                .to_string();
            if crashed {
                report
                    .differences
                    .push((expr, format!("m2cu crashed: {:?} {first}", f.code)));
            } else {
                report.refused.push((expr, first));
            }
            continue;
        }
        let got = match m2cu::read_mat_file(&dir.path().join("out.mat")) {
            Ok(mut v) if !v.is_empty() => v.remove(0).1,
            other => {
                report
                    .differences
                    .push((expr, format!("no output: {other:?}")));
                continue;
            }
        };
        let detail = if comparable {
            difference(&want, &got)
        } else {
            (want.class() != got.class() || want.rows() != got.rows() || want.cols() != got.cols())
                .then(|| {
                    format!(
                        "class/size {} {}x{}, Octave {} {}x{}",
                        got.class().name(),
                        got.rows(),
                        got.cols(),
                        want.class().name(),
                        want.rows(),
                        want.cols()
                    )
                })
        };
        match detail {
            Some(d) => report.differences.push((expr, d)),
            None => report.agreed += 1,
        }
    }
    Ok(report)
}
