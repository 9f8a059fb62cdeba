//! GNU Octave as the oracle for generated programs: every case is a function file of its own,
//! and one Octave session (`m2cu_runtime::octave`) answers many cases.
//!
//! Invariant: a case's outputs come back by name, in the case's output order.

use std::path::PathBuf;
use std::time::Duration;

use m2cu::Value;
use m2cu_runtime::octave::{self, Answer, Call};

use crate::program::Case;

pub use m2cu_runtime::octave::available;

/// Named values: a program's outputs, in its output order.
pub type Outputs = Vec<(String, Value)>;

/// What Octave computed for one case: outputs by name, or its error message.
pub type Outcome = Result<Outputs, String>;

/// How long one generated program may run in Octave (the generator bounds every loop, so only a
/// generator bug reaches it).
const LIMIT: Duration = Duration::from_secs(120);

/// Runs every case in one Octave session; one outcome per case, in order.
pub fn run(cases: &[&Case]) -> Result<Vec<Outcome>, String> {
    let files: Vec<(PathBuf, String)> = cases
        .iter()
        .map(|c| (PathBuf::from(format!("{}.m", c.name)), c.standalone()))
        .collect();
    let calls: Vec<Call> = cases
        .iter()
        .map(|c| Call {
            function: c.name.clone(),
            inputs: c.inputs.clone(),
            outputs: c.outputs.clone(),
        })
        .collect();
    let answers = octave::answer_calls(&files, &calls, LIMIT)?;
    Ok(answers.into_iter().map(outcome).collect())
}

fn outcome(answer: Answer) -> Outcome {
    match answer {
        Answer::Outputs(values) => Ok(values),
        Answer::Error(message) => Err(message),
        Answer::Timeout => Err(format!("Octave did not finish in {} s", LIMIT.as_secs())),
    }
}
