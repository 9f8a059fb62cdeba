//! GNU Octave as the oracle for generated programs: every case is a function file of its own,
//! and one Octave session (`m2cu_runtime::octave`) answers many cases.
//!
//! A case that may raise ([`Case::raises`]) is called through a wrapper function that catches
//! the error and raises it again with its identifier in front of its message, so the oracle
//! sees both (`m2cu_runtime::octave` keeps only the message).
//!
//! Invariant: a case's outputs come back by name, in the case's output order; an intended error
//! of a raising case comes back as [`Stop::Raised`], every other failure as [`Stop::Failed`].

use std::path::PathBuf;
use std::time::Duration;

use m2cu::Value;
use m2cu_runtime::octave::{self, Answer, Call};

use crate::program::Case;

pub use m2cu_runtime::octave::available;

/// Named values: a program's outputs, in its output order.
pub type Outputs = Vec<(String, Value)>;

/// Why Octave gave no outputs for a case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    /// A raising case stopped with an error: its identifier (empty when it has none) and
    /// message.
    Raised { identifier: String, message: String },
    /// Any other failure (an error of a case that does not raise, a time-out).
    Failed(String),
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stop::Raised {
                identifier,
                message,
            } => write!(f, "error `{message}` (identifier `{identifier}`)"),
            Stop::Failed(message) => f.write_str(message),
        }
    }
}

/// What Octave computed for one case: outputs by name, or why it stopped.
pub type Outcome = Result<Outputs, Stop>;

/// How long one generated program may run in Octave (the generator bounds every loop, so only a
/// generator bug reaches it).
const LIMIT: Duration = Duration::from_secs(120);

/// What the wrapper puts before the identifier; the identifier ends at the first newline.
const RAISED: &str = "m2cu-difftest-raised:";

/// Runs every case in one Octave session; one outcome per case, in order.
pub fn run(cases: &[&Case]) -> Result<Vec<Outcome>, String> {
    let mut files: Vec<(PathBuf, String)> = Vec::new();
    for c in cases {
        files.push((PathBuf::from(format!("{}.m", c.name)), c.standalone()));
        if c.raises {
            files.push((
                PathBuf::from(format!("{}.m", wrapper(c))),
                wrapper_source(c),
            ));
        }
    }
    let calls: Vec<Call> = cases
        .iter()
        .map(|c| Call {
            function: if c.raises { wrapper(c) } else { c.name.clone() },
            inputs: c.inputs.clone(),
            outputs: c.outputs.clone(),
        })
        .collect();
    let answers = octave::answer_calls(&files, &calls, LIMIT)?;
    Ok(answers.into_iter().map(outcome).collect())
}

fn wrapper(case: &Case) -> String {
    format!("{}_raises", case.name)
}

/// A function that calls the case with the same inputs and outputs (so the same `nargin` and
/// `nargout`) and raises its error again as `RAISED<identifier>\n<message>`.
fn wrapper_source(case: &Case) -> String {
    format!(
        "function varargout = {w}(varargin)\ntry\n  [varargout{{1:nargout}}] = {f}(varargin{{:}});\n\
         catch err\n  error('%s', ['{RAISED}' err.identifier char(10) err.message]);\nend\nend\n",
        w = wrapper(case),
        f = case.name
    )
}

fn outcome(answer: Answer) -> Outcome {
    match answer {
        Answer::Outputs(values) => Ok(values),
        Answer::Error(message) => Err(stop(&message)),
        Answer::Timeout => Err(Stop::Failed(format!(
            "Octave did not finish in {} s",
            LIMIT.as_secs()
        ))),
    }
}

/// The stop a wrapped error message reports; Octave's own errors (identifiers `Octave:...`)
/// are failures even in a raising case: the generator never writes those.
fn stop(message: &str) -> Stop {
    match message
        .strip_prefix(RAISED)
        .and_then(|rest| rest.split_once('\n'))
    {
        Some((identifier, message)) if !identifier.starts_with("Octave:") => Stop::Raised {
            identifier: identifier.to_string(),
            message: message.to_string(),
        },
        _ => Stop::Failed(message.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapped_error_keeps_its_identifier() {
        assert_eq!(
            stop(&format!("{RAISED}a:b\nx is 3\nmore")),
            Stop::Raised {
                identifier: "a:b".into(),
                message: "x is 3\nmore".into()
            }
        );
        assert_eq!(
            stop("index out of bound"),
            Stop::Failed("index out of bound".into())
        );
        let octave = format!("{RAISED}Octave:index-out-of-bounds\nindex (4,_): out of bound 3");
        assert!(matches!(stop(&octave), Stop::Failed(_)));
    }
}
