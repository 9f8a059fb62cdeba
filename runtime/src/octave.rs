//! GNU Octave as the oracle: many calls of MATLAB functions in one `octave-cli` session
//! (Octave takes about half a second to start), each with its own inputs, each answered
//! separately ([`answer_calls`]); and a script run once ([`eval`]).
//!
//! Invariants: [`answer_calls`] returns one [`Answer`] per call, in the order of the calls; a
//! call that raises an error is answered with its message and does not disturb the calls after
//! it; a call that has not finished `per_call` after the previous one (a loop that never ends on
//! these inputs) is answered [`Answer::Timeout`], its Octave process is killed and a fresh one
//! goes on with the next call. The functions' files, inputs and outputs live in a private
//! temporary directory, so functions of the same name elsewhere cannot shadow them.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Duration;

use crate::Value;

/// A file the calls need: its path relative to the session's directory (`f.m`,
/// `+gpucoder/reduce.m`) and its text.
pub type SourceFile = (PathBuf, String);

/// One call: `[outputs...] = function(inputs...)`, inputs in the order given.
pub struct Call {
    pub function: String,
    pub inputs: Vec<(String, Value)>,
    pub outputs: Vec<String>,
}

/// What Octave made of a call.
#[derive(Debug)]
pub enum Answer {
    /// The outputs by name, in the order of [`Call::outputs`].
    Outputs(Vec<(String, Value)>),
    /// Octave raised an error, with this message.
    Error(String),
    /// The call did not finish in time.
    Timeout,
}

/// How long Octave may take to start (until it prints `m2cu-ready`).
const STARTUP: Duration = Duration::from_secs(30);

/// `octave-cli --version`'s first line, or why Octave cannot run.
pub fn available() -> Result<String, String> {
    match Command::new("octave-cli").arg("--version").output() {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout)
            .lines()
            .next()
            .unwrap_or("octave-cli")
            .to_string()),
        Ok(o) => Err(format!(
            "octave-cli --version failed: {}",
            String::from_utf8_lossy(&o.stderr)
        )),
        Err(e) => Err(format!(
            "octave-cli not found ({e}); install it with `apt-get install octave`"
        )),
    }
}

/// Runs `script` with `octave-cli` in `dir` and returns its standard output; when Octave
/// fails (an error, or the script's `exit(1)`), the error holds its standard output and error.
/// The script is written to a temporary file and `source`d, so its length is not bounded by
/// the kernel's limit on one command-line argument (128 KiB: the e2e check of every fixture
/// is longer).
pub fn eval(dir: &Path, script: &str) -> Result<String, String> {
    let file = tempfile::Builder::new()
        .prefix("m2cu_eval_")
        .suffix(".m")
        .tempfile()
        .and_then(|mut f| std::io::Write::write_all(&mut f, script.as_bytes()).map(|()| f))
        .map_err(|e| format!("cannot write the Octave script: {e}"))?;
    let source = format!(
        "source('{}')",
        file.path().display().to_string().replace('\'', "''")
    );
    let out = Command::new("octave-cli")
        .args([
            "--no-gui",
            "--quiet",
            "--norc",
            "--no-history",
            "--eval",
            &source,
        ])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run octave-cli: {e}"))?;
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    if out.status.success() {
        Ok(stdout)
    } else {
        Err(format!(
            "octave-cli failed ({}):\n{stdout}{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Octave has no MATLAB Coder: the `coder.gpu.*` directives become functions that do nothing,
/// `gpucoder.reduce` a sequential fold, and the atomic functions their operations.
pub fn coder_stubs() -> Vec<SourceFile> {
    let mut files: Vec<SourceFile> = GPUCODER_FUNCTIONS
        .iter()
        .map(|(name, text)| {
            (
                PathBuf::from(format!("+gpucoder/{name}.m")),
                text.to_string(),
            )
        })
        .collect();
    for (name, params) in [
        ("kernel", ""),
        ("nokernel", ""),
        ("kernelfun", ""),
        ("constantMemory", "~"),
        ("iterations", "~"),
    ] {
        files.push((
            PathBuf::from(format!("+coder/+gpu/{name}.m")),
            format!("function {name}({params})\nend\n"),
        ));
    }
    files
}

/// GPU Coder's functions for Octave, by name: `gpucoder.reduce` folds `A(:)` with every
/// function (each element preprocessed with `'preprocess'`) from left to right, seeded with the
/// first element, the results forming a row; `[A, oldA] = gpucoder.atomicAdd(A, B)` and its kin
/// compute their operation (`A + B`); `gpucoder.sort` is `sort`; `gpucoder.stencilKernel` calls
/// the function on every window of the (zero-padded for `'same'`) matrix. The same files compute
/// the e2e fixtures' expected outputs.
const GPUCODER_FUNCTIONS: [(&str, &str); 11] = [
    (
        "reduce",
        include_str!("../../fixtures/e2e/+gpucoder/reduce.m"),
    ),
    ("sort", include_str!("../../fixtures/e2e/+gpucoder/sort.m")),
    (
        "stencilKernel",
        include_str!("../../fixtures/e2e/+gpucoder/stencilKernel.m"),
    ),
    (
        "atomicAdd",
        include_str!("../../fixtures/e2e/+gpucoder/atomicAdd.m"),
    ),
    (
        "atomicSub",
        include_str!("../../fixtures/e2e/+gpucoder/atomicSub.m"),
    ),
    (
        "atomicMin",
        include_str!("../../fixtures/e2e/+gpucoder/atomicMin.m"),
    ),
    (
        "atomicMax",
        include_str!("../../fixtures/e2e/+gpucoder/atomicMax.m"),
    ),
    (
        "atomicAnd",
        include_str!("../../fixtures/e2e/+gpucoder/atomicAnd.m"),
    ),
    (
        "atomicOr",
        include_str!("../../fixtures/e2e/+gpucoder/atomicOr.m"),
    ),
    (
        "atomicXor",
        include_str!("../../fixtures/e2e/+gpucoder/atomicXor.m"),
    ),
    (
        "atomicExch",
        include_str!("../../fixtures/e2e/+gpucoder/atomicExch.m"),
    ),
];

/// Answers every call; `files` are the `.m` files the calls need.
pub fn answer_calls(
    files: &[SourceFile],
    calls: &[Call],
    per_call: Duration,
) -> Result<Vec<Answer>, String> {
    let dir = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
    for (path, text) in files {
        let at = dir.path().join(path);
        if let Some(parent) = at.parent() {
            std::fs::create_dir_all(parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        }
        std::fs::write(&at, text).map_err(|e| format!("{}: {e}", at.display()))?;
    }
    for (k, call) in calls.iter().enumerate() {
        crate::write_mat(dir.path().join(format!("c{k}.in.mat")), &call.inputs)
            .map_err(|e| format!("inputs of call {k} ({}): {e}", call.function))?;
    }
    let mut answers = Vec::with_capacity(calls.len());
    while answers.len() < calls.len() {
        let start = answers.len();
        let finished = run_session(dir.path(), calls, start, per_call)?;
        answers.extend((start..finished).map(|k| read_answer(dir.path(), k, &calls[k])));
        if finished < calls.len() {
            answers.push(Answer::Timeout);
        }
    }
    Ok(answers)
}

/// Runs calls `start..` in one Octave process; returns the index of the first call that did not
/// finish (`calls.len()` when all did).
fn run_session(
    dir: &Path,
    calls: &[Call],
    start: usize,
    per_call: Duration,
) -> Result<usize, String> {
    let script = (start..calls.len())
        .map(|k| call_text(k, &calls[k]))
        .collect::<String>();
    let script_path = dir.join("m2cu_batch.m");
    std::fs::write(
        &script_path,
        format!("warning('off', 'all');\nprintf('m2cu-ready\\n'); fflush(stdout);\n{script}"),
    )
    .map_err(|e| e.to_string())?;
    let mut child = Command::new("octave-cli")
        .args(["--no-gui", "--quiet", "--no-init-file", "m2cu_batch.m"])
        .current_dir(dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("octave-cli: {e}"))?;
    let lines = line_channel(&mut child);

    let mut next = start;
    let mut limit = STARTUP;
    while next < calls.len() {
        match lines.recv_timeout(limit) {
            Ok(line) if line == "m2cu-ready" => limit = per_call,
            Ok(line) if line == format!("m2cu-done {next}") => next += 1,
            Ok(_) => {}
            Err(RecvTimeoutError::Disconnected) if next == start => {
                let _ = child.wait();
                return Err(format!(
                    "Octave stopped before answering call {start} ({})",
                    calls[start].function
                ));
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => break,
        }
    }
    // Only this process, started above, by its handle.
    let _ = child.kill();
    let _ = child.wait();
    Ok(next)
}

/// The child's standard output, line by line, through a channel (so that waiting can time out).
fn line_channel(child: &mut Child) -> Receiver<String> {
    let stdout = child.stdout.take().expect("piped stdout");
    let (send, receive) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// The Octave text of call `k`: load its inputs, call, save the outputs or the error message,
/// then say `m2cu-done k` on a line of its own (after a newline, since the function may have
/// printed part of a line: `fprintf('first pairs:')` before an error).
fn call_text(k: usize, call: &Call) -> String {
    let args: Vec<String> = call
        .inputs
        .iter()
        .map(|(n, _)| format!("m2cu_I.{n}"))
        .collect();
    let names: Vec<String> = call.outputs.iter().map(|o| format!("'{o}'")).collect();
    format!(
        "try\n  m2cu_I = load('c{k}.in.mat');\n  m2cu_O = cell(1, {n});\n  [m2cu_O{{:}}] = {f}({args});\n  \
         m2cu_S = cell2struct(m2cu_O(:), {{{names}}}(:), 1);\n  save('-v7', 'c{k}.out.mat', '-struct', 'm2cu_S');\n\
         catch m2cu_e\n  m2cu_f = fopen('c{k}.err', 'w'); fputs(m2cu_f, m2cu_e.message); fclose(m2cu_f);\nend\n\
         printf('\\nm2cu-done {k}\\n'); fflush(stdout);\n",
        n = call.outputs.len(),
        f = call.function,
        args = args.join(", "),
        names = names.join(", "),
    )
}

fn read_answer(dir: &Path, k: usize, call: &Call) -> Answer {
    if let Ok(message) = std::fs::read_to_string(dir.join(format!("c{k}.err"))) {
        return Answer::Error(message);
    }
    let mut values = match crate::read_mat(dir.join(format!("c{k}.out.mat"))) {
        Ok(values) => values,
        Err(e) => return Answer::Error(format!("cannot read Octave's outputs: {e}")),
    };
    let mut ordered = Vec::with_capacity(call.outputs.len());
    for name in &call.outputs {
        match values.iter().position(|(n, _)| n == name) {
            Some(at) => ordered.push(values.swap_remove(at)),
            None => return Answer::Error(format!("Octave saved no `{name}`")),
        }
    }
    Answer::Outputs(ordered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::tool_available;

    /// An error and a timeout each answer their own call; the calls after them still run.
    #[test]
    fn errors_and_timeouts_answer_only_their_call() {
        if !tool_available("octave::errors_and_timeouts", available().map(drop)) {
            return;
        }
        let files = vec![(
            PathBuf::from("f.m"),
            "function [s, n] = f(x)\n  if any(x < 0), error('negative'); end\n  \
             while any(x > 100), end\n  s = sum(x); n = numel(x);\nend\n"
                .to_string(),
        )];
        let call = |x: &[f64]| Call {
            function: "f".into(),
            inputs: vec![("x".into(), Value::row(x.to_vec()))],
            outputs: vec!["s".into(), "n".into()],
        };
        let calls = [
            call(&[1.0, 2.0]),
            call(&[-1.0]),
            call(&[200.0]),
            call(&[4.0]),
        ];
        let answers = answer_calls(&files, &calls, Duration::from_secs(3)).expect("answers");
        let scalars = |a: &Answer| match a {
            Answer::Outputs(v) => v
                .iter()
                .map(|(n, v)| format!("{n}={:?}", v.data))
                .collect::<Vec<_>>()
                .join(" "),
            other => format!("{other:?}"),
        };
        let got: Vec<String> = answers.iter().map(scalars).collect();
        assert_eq!(
            got,
            [
                "s=Double([3.0]) n=Double([2.0])",
                "Error(\"negative\")",
                "Timeout",
                "s=Double([4.0]) n=Double([1.0])"
            ]
        );
    }

    /// A call whose function prints part of a line is still answered, first in its session too.
    #[test]
    fn output_without_a_newline_does_not_hide_the_answer() {
        if !tool_available("octave::output_without_a_newline", available().map(drop)) {
            return;
        }
        let files = vec![(
            PathBuf::from("g.m"),
            "function y = g(x)\n  fprintf('partial:');\n  y = 2 * x;\nend\n".to_string(),
        )];
        let call = |x: f64| Call {
            function: "g".into(),
            inputs: vec![("x".into(), Value::row(vec![x]))],
            outputs: vec!["y".into()],
        };
        let answers =
            answer_calls(&files, &[call(1.0), call(2.0)], Duration::from_secs(3)).expect("answers");
        assert!(
            answers.iter().all(|a| matches!(a, Answer::Outputs(_))),
            "{answers:?}"
        );
    }
}
