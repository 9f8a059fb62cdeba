//! Many calls of MATLAB functions in one Octave session (Octave takes about half a second to
//! start), each with its own inputs, each answered separately.
//!
//! Invariants: [`answer_calls`] returns one [`Answer`] per call, in the order of the calls; a
//! call that raises an error is answered with its message and does not disturb the calls after
//! it; a call that has not finished `per_call` after the previous one (a loop that never ends on
//! these inputs) is answered [`Answer::Timeout`], its Octave process is killed and a fresh one
//! goes on with the next call. Inputs and outputs travel through MAT-files in a private
//! temporary directory, which also holds copies of the functions' files and the `coder.gpu` and
//! `gpucoder.reduce` stubs (so functions of the same name elsewhere cannot shadow them).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::time::Duration;

use m2cu::Value;

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

/// Answers every call; `files` are the `.m` files the calls need.
pub fn answer_calls(
    files: &[PathBuf],
    calls: &[Call],
    per_call: Duration,
) -> Result<Vec<Answer>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    for file in files {
        let name = file.file_name().ok_or("a file name")?;
        std::fs::copy(file, dir.path().join(name))
            .map_err(|e| format!("{}: {e}", file.display()))?;
    }
    super::runnable::coder_stubs(dir.path())?;
    for (k, call) in calls.iter().enumerate() {
        m2cu_runtime::write_mat(dir.path().join(format!("c{k}.in.mat")), &call.inputs)
            .map_err(|e| format!("call {k}: {e}"))?;
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
                return Err(format!("Octave stopped before answering call {start}"));
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

/// The Octave text of call `k`: load its inputs, call, save the outputs or the error message.
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
         printf('m2cu-done {k}\\n'); fflush(stdout);\n",
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
    match m2cu_runtime::read_mat(dir.join(format!("c{k}.out.mat"))) {
        Ok(mut values) => {
            let ordered = call
                .outputs
                .iter()
                .filter_map(|o| {
                    let at = values.iter().position(|(n, _)| n == o)?;
                    Some(values.swap_remove(at))
                })
                .collect();
            Answer::Outputs(ordered)
        }
        Err(e) => Answer::Error(format!("cannot read Octave's outputs: {e}")),
    }
}
