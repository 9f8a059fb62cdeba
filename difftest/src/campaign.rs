//! A differential campaign: generate cases, get Octave's outputs for all of them, translate and
//! run them in batches on each m2cu backend, and compare bit for bit.
//!
//! A batch is several cases concatenated into one function (see `program::batch_source`), so
//! one C and one C++ build serve many programs. When a batch fails to translate, each case is
//! translated alone: the ones m2cu rejects with a diagnostic are counted by code and left out
//! (rejecting is allowed; answering differently is not). A difference is confirmed on the case
//! alone before it is reported, and then minimized.
//!
//! A case that m2cu refuses at run time with an error message (a run-time refusal, e.g. a value
//! it cannot represent) while Octave ran it is counted apart from the differences, with its
//! first message: refusing is allowed, answering differently is not. Cases marked
//! [`Case::alone`] (colliding names, optional inputs) are never batched. A case on which
//! Octave stops with an intended error ([`Case::raises`]) runs alone on each backend, which
//! must stop with the same message and identifier (`Summary::raised` counts those).
//!
//! Invariant: every case counted in `Summary::compared` had each of its outputs compared on
//! every backend of the run, and agreed.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use m2cu::Value;

use crate::target::Target;

use crate::compare::difference;
use crate::gen::{self, Features};
use crate::minimize;
use crate::oracle::{self, Outputs, Stop};
use crate::program::{batch_prefix, batch_source, Case};

/// What to run.
#[derive(Clone, Debug)]
pub struct Config {
    pub seed: u64,
    /// Index of the first case (to resume or split a long run).
    pub first: u64,
    pub count: u64,
    /// Cases per translation unit.
    pub batch: usize,
    /// Batches built and run at the same time.
    pub jobs: usize,
    /// Cases given to one Octave session.
    pub round: usize,
    pub backends: Vec<Target>,
    /// Shrink each confirmed difference before reporting it.
    pub minimize: bool,
    /// The generator's guard features (none: the programs of earlier versions).
    pub features: Features,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            seed: 1,
            first: 0,
            count: 100,
            batch: 20,
            jobs: 2,
            round: 400,
            backends: vec![
                Target::Cpu,
                Target::Emu(m2cu::Schedule::InOrder),
                Target::Emu(m2cu::Schedule::Reverse),
            ],
            minimize: true,
            features: Features::default(),
        }
    }
}

/// A program on which m2cu and Octave disagree.
#[derive(Clone, Debug)]
pub struct Finding {
    /// The case as generated.
    pub case: Case,
    /// The smallest variant found that still disagrees (the case itself when not minimized).
    pub minimized: Case,
    pub backend: Target,
    /// What differs, on `minimized`.
    pub detail: String,
    /// Octave's outputs for `minimized`.
    pub expected: Outputs,
}

/// What a campaign saw.
#[derive(Debug, Default)]
pub struct Summary {
    pub generated: u64,
    /// Cases whose every output equals Octave's on every backend, or which stop with Octave's
    /// error on every backend.
    pub compared: u64,
    /// Of `compared`, the cases that stop with Octave's error.
    pub raised: u64,
    /// Cases m2cu rejected at translate time, by diagnostic code: how many, and the first
    /// one's rendered diagnostic.
    pub rejected: BTreeMap<String, (u64, String)>,
    /// Cases m2cu refused at run time, by the message's first line: how many, and the first
    /// one's case name and program.
    pub refused: BTreeMap<String, (u64, String)>,
    /// Cases Octave itself could not run (a generator bug): name and message.
    pub octave_errors: Vec<(String, String)>,
    pub findings: Vec<Finding>,
    /// Batches that disagree or fail although each of their cases alone is fine.
    pub batch_only: Vec<String>,
}

/// Runs the campaign; `progress` gets one line per round.
pub fn run(config: &Config, progress: &mut dyn FnMut(&str)) -> Result<Summary, String> {
    let mut summary = Summary::default();
    let start = Instant::now();
    let end = config.first + config.count;
    let mut next = config.first;
    while next < end {
        let upto = (next + config.round as u64).min(end);
        let cases: Vec<Case> = (next..upto)
            .map(|k| gen::case_with(config.seed, k, config.features))
            .collect();
        round(config, &cases, &mut summary)?;
        next = upto;
        progress(&format!(
            "{} of {} programs: {} agree ({} stop with the same error), {} rejected, {} refused at run time, {} Octave errors, {} differences, {} batch-only ({:.0} s)",
            next - config.first,
            config.count,
            summary.compared,
            summary.raised,
            summary.rejected.values().map(|(n, _)| n).sum::<u64>(),
            summary.refused.values().map(|(n, _)| n).sum::<u64>(),
            summary.octave_errors.len(),
            summary.findings.len(),
            summary.batch_only.len(),
            start.elapsed().as_secs_f64()
        ));
    }
    Ok(summary)
}

/// A case with Octave's outputs for it.
type Oracled = (Case, Outputs);

fn round(config: &Config, cases: &[Case], summary: &mut Summary) -> Result<(), String> {
    summary.generated += cases.len() as u64;
    let refs: Vec<&Case> = cases.iter().collect();
    let outcomes = oracle::run(&refs)?;
    let mut runnable: Vec<Oracled> = Vec::new();
    let mut raising: Vec<(&Case, Stop)> = Vec::new();
    for (case, outcome) in cases.iter().zip(outcomes) {
        match outcome {
            Ok(outputs) => runnable.push((case.clone(), outputs)),
            Err(raised @ Stop::Raised { .. }) => raising.push((case, raised)),
            Err(Stop::Failed(message)) => summary.octave_errors.push((case.name.clone(), message)),
        }
    }
    let batches: Vec<&[Oracled]> = runnable.chunks(config.batch.max(1)).collect();
    let results = Mutex::new(Vec::new());
    let next = AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..config.jobs.max(1) {
            s.spawn(|| loop {
                let k = next.fetch_add(1, Ordering::SeqCst);
                let Some(batch) = batches.get(k) else { break };
                let result = check_batch(config, batch);
                results.lock().expect("results lock").push(result);
            });
        }
    });
    let mut results = results.into_inner().expect("results lock");
    for (case, raised) in raising {
        let result = check_raising(config, case, &raised);
        summary.raised += result.agreed;
        results.push(result);
    }
    for result in results {
        summary.compared += result.agreed;
        for (code, rendered) in result.rejected {
            let entry = summary.rejected.entry(code).or_insert((0, rendered));
            entry.0 += 1;
        }
        for (message, first) in result.refused {
            let entry = summary.refused.entry(message).or_insert((0, first));
            entry.0 += 1;
        }
        summary.batch_only.extend(result.batch_only);
        for (case, expected, backend, detail) in result.differences {
            summary
                .findings
                .push(finding(config, case, expected, backend, detail));
        }
    }
    Ok(())
}

fn finding(
    config: &Config,
    case: Case,
    expected: Outputs,
    backend: Target,
    detail: String,
) -> Finding {
    let shrunk = config
        .minimize
        .then(|| minimize::minimize(&case, backend))
        .flatten();
    match shrunk {
        Some((minimized, expected, detail)) => Finding {
            case,
            minimized,
            backend,
            detail,
            expected,
        },
        None => Finding {
            minimized: case.clone(),
            case,
            backend,
            detail,
            expected,
        },
    }
}

#[derive(Default)]
struct BatchResult {
    agreed: u64,
    rejected: Vec<(String, String)>,
    /// Run-time refusals: the message's first line, and the case's name and program.
    refused: Vec<(String, String)>,
    differences: Vec<(Case, Outputs, Target, String)>,
    batch_only: Vec<String>,
}

impl BatchResult {
    /// Records what `detail` says about `case` alone on `backend`: a run-time refusal or a
    /// difference.
    fn record(
        &mut self,
        case: &Case,
        expected: &[(String, Value)],
        backend: Target,
        detail: String,
    ) {
        match detail.strip_prefix(REFUSED) {
            Some(message) => {
                let first_line = message.lines().next().unwrap_or("").trim().to_string();
                if !self.refused.iter().any(|(_, c)| c.starts_with(&case.name)) {
                    self.refused
                        .push((first_line, format!("{}\n{}", case.name, case.standalone())));
                }
            }
            None => self
                .differences
                .push((case.clone(), expected.to_vec(), backend, detail)),
        }
    }
}

/// How `alone` reports a run-time refusal: m2cu's error message follows.
const REFUSED: &str = "refused at run time: ";

fn check_batch(config: &Config, batch: &[Oracled]) -> BatchResult {
    let mut result = BatchResult::default();
    let (solo, batched): (Vec<&Oracled>, Vec<&Oracled>) = batch
        .iter()
        .filter(|(case, _)| match verdict_alone(case) {
            Ok(()) => true,
            Err(rejection) => {
                result.rejected.push(rejection);
                false
            }
        })
        .partition(|(case, _)| case.alone);
    for (case, expected) in solo {
        let before = (result.differences.len(), result.refused.len());
        for &backend in &config.backends {
            if let Some(detail) = alone(case, expected, backend) {
                result.record(case, expected, backend, detail);
            }
        }
        if before == (result.differences.len(), result.refused.len()) {
            result.agreed += 1;
        }
    }
    let accepted = batched;
    if accepted.is_empty() {
        return result;
    }
    let cases: Vec<&Case> = accepted.iter().map(|(c, _)| c).collect();
    let name = format!("{}_batch", cases[0].name);
    let source = batch_source(&name, &cases);
    let inputs = batch_inputs(&cases);
    let args: Vec<String> = cases
        .iter()
        .enumerate()
        .flat_map(|(k, c)| c.arg_specs(&batch_prefix(k)))
        .collect();
    let mut wrong = vec![false; cases.len()];
    for &backend in &config.backends {
        match run_on(&source, &options(&name, args.clone()), &inputs, backend) {
            Ok(outputs) => {
                for (k, (case, expected)) in accepted.iter().enumerate() {
                    let got = rename(&outputs, &batch_prefix(k), case);
                    if let Some(detail) = first_difference(expected, &got) {
                        wrong[k] = true;
                        confirm(&mut result, case, expected, backend, detail, &source);
                    }
                }
            }
            Err(e) => {
                // Find the cases that fail alone; if none does, the batch is the finding. (A
                // refusal is recorded once per case, so count the cases, not the records.)
                let mut found = false;
                for (k, (case, expected)) in accepted.iter().enumerate() {
                    if let Some(detail) = alone(case, expected, backend) {
                        wrong[k] = true;
                        found = true;
                        result.record(case, expected, backend, detail);
                    }
                }
                if !found {
                    result
                        .batch_only
                        .push(format!("{name} on {backend}: {e}\n{source}"));
                    wrong.iter_mut().for_each(|w| *w = true);
                }
            }
        }
    }
    result.agreed += wrong.iter().filter(|w| !**w).count() as u64;
    result
}

/// A difference seen in a batch: reported for the case when the case alone reproduces it.
fn confirm(
    result: &mut BatchResult,
    case: &Case,
    expected: &[(String, Value)],
    backend: Target,
    detail: String,
    source: &str,
) {
    if result
        .differences
        .iter()
        .any(|(c, _, b, _)| c.name == case.name && *b == backend)
    {
        return;
    }
    match alone(case, expected, backend) {
        Some(detail) => result.record(case, expected, backend, detail),
        None => result.batch_only.push(format!(
            "{} on {backend} differs only inside its batch: {detail}\n{source}",
            case.name
        )),
    }
}

/// How `case` alone differs from Octave's `expected` on `backend`, if it does.
pub fn alone(case: &Case, expected: &[(String, Value)], backend: Target) -> Option<String> {
    match run_alone(case, backend) {
        Ok(outputs) => first_difference(expected, &outputs),
        Err(e) => Some(failure(e)),
    }
}

fn run_alone(case: &Case, backend: Target) -> Result<Outputs, m2cu::Error> {
    m2cu::run(
        &case.standalone(),
        &case.inputs,
        &case_options(case),
        &backend.run_options(),
    )
    .map(|r| r.outputs)
}

/// What m2cu failing with `e` is: a run-time refusal ([`REFUSED`]) or a failure.
fn failure(e: m2cu::Error) -> String {
    match e {
        m2cu::Error::Runtime(m2cu_runtime::Error::Call(message)) => format!("{REFUSED}{message}"),
        e => format!("{}: {e}", crate::minimize::FAILED),
    }
}

/// A case on which Octave stopped with `raised`, alone on every backend: each must stop with
/// the same message and identifier.
fn check_raising(config: &Config, case: &Case, raised: &Stop) -> BatchResult {
    let mut result = BatchResult::default();
    if let Err(rejection) = verdict_alone(case) {
        result.rejected.push(rejection);
        return result;
    }
    let mut agreed = true;
    for &backend in &config.backends {
        let detail = match run_alone(case, backend) {
            Err(m2cu::Error::Runtime(m2cu_runtime::Error::Raised {
                identifier,
                message,
            })) => {
                let got = Stop::Raised {
                    identifier,
                    message,
                };
                (got != *raised).then(|| format!("stops with {got}; Octave with {raised}"))
            }
            Ok(_) => Some(format!("returns its outputs; Octave stops with {raised}")),
            Err(e) => Some(failure(e)),
        };
        if let Some(detail) = detail {
            agreed = false;
            result.record(case, &[], backend, detail);
        }
    }
    result.agreed = u64::from(agreed);
    result
}

/// `Ok` when m2cu translates the case alone, else the code of its first diagnostic and the
/// rendered diagnostics (`Err`).
fn verdict_alone(case: &Case) -> Result<(), (String, String)> {
    match m2cu::translate_for(&case.standalone(), &case.inputs, &case_options(case)) {
        Ok(_) => Ok(()),
        Err(m2cu::Error::Source {
            diagnostics,
            rendered,
            ..
        }) => Err((
            diagnostics
                .iter()
                .next()
                .map_or("source".to_string(), |d| d.code.to_string()),
            rendered,
        )),
        Err(other) => Err(("other".into(), other.to_string())),
    }
}

fn options(name: &str, args: Vec<String>) -> m2cu::Options {
    m2cu::Options {
        file_name: format!("{name}.m"),
        args,
        ..Default::default()
    }
}

/// How m2cu translates `case` alone.
pub fn case_options(case: &Case) -> m2cu::Options {
    options(&case.name, case.arg_specs(""))
}

/// Runs `source` on `backend` with `inputs`.
pub fn run_on(
    source: &str,
    options: &m2cu::Options,
    inputs: &[(String, Value)],
    backend: Target,
) -> Result<Outputs, String> {
    m2cu::run(source, inputs, options, &backend.run_options())
        .map(|r| r.outputs)
        .map_err(|e| e.to_string())
}

/// The first output of `got` that differs from `expected`, named.
pub fn first_difference(expected: &[(String, Value)], got: &[(String, Value)]) -> Option<String> {
    expected
        .iter()
        .find_map(|(name, want)| match got.iter().find(|(n, _)| n == name) {
            None => Some(format!("`{name}` is missing")),
            Some((_, value)) => difference(want, value).map(|d| format!("`{name}`: {d}")),
        })
}

fn batch_inputs(cases: &[&Case]) -> Vec<(String, Value)> {
    cases
        .iter()
        .enumerate()
        .flat_map(|(k, c)| {
            let prefix = batch_prefix(k);
            c.inputs
                .iter()
                .map(move |(n, v)| (format!("{prefix}{n}"), v.clone()))
        })
        .collect()
}

/// The outputs of case `case` among a batch's outputs, under their own names.
fn rename(outputs: &[(String, Value)], prefix: &str, case: &Case) -> Outputs {
    case.outputs
        .iter()
        .filter_map(|o| {
            let batched = format!("{prefix}{o}");
            outputs
                .iter()
                .find(|(n, _)| *n == batched)
                .map(|(_, v)| (o.clone(), v.clone()))
        })
        .collect()
}
