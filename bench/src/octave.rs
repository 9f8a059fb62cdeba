//! The Octave columns: the workload's `.m` function run by GNU Octave's interpreter, and the
//! builtin a MATLAB user would call instead (`sum(x)`, `cumsum(x)`, ...), each timed with
//! `tic`/`toc` inside Octave, so Octave's start-up and the file transfers are not counted.
//!
//! Invariants: one `octave-cli` session per workload and function times every size added to an
//! [`OctaveTimer`], with the same protocol as the other columns ([`WARMUP_RUNS`] untimed calls,
//! then the timed ones, the median reported); the inputs are the ones the other columns use,
//! written to a MAT-file per size; the function file lives in a private temporary directory
//! that is Octave's working directory, so nothing else on Octave's path is shadowed by it or
//! shadows it. Octave prints one `m2cu-bench LOG2 SECONDS` line per timed call; a session that
//! fails or prints fewer lines than asked is an error with Octave's messages.

use std::collections::BTreeMap;
use std::process::Command;

use m2cu::Value;

use crate::timing::{median, WARMUP_RUNS};
use crate::workloads::Workload;

/// The prefix of the lines the timing script prints.
const TAG: &str = "m2cu-bench";

/// `octave-cli --version`'s first line, or why Octave cannot run.
pub fn available() -> Result<String, String> {
    m2cu_runtime::octave::available()
}

/// Collects a workload's inputs per size, then times them all in one Octave session.
pub struct OctaveTimer {
    dir: tempfile::TempDir,
    function: String,
    sizes: Vec<u32>,
}

impl OctaveTimer {
    /// Writes the function file `function.m` (its text `source`) into a fresh temporary
    /// directory: a workload's loop ([`Workload::function`]) or its builtin
    /// ([`Workload::builtin_function`]).
    pub fn new(function: &str, source: &str) -> Result<OctaveTimer, String> {
        let dir = tempfile::tempdir().map_err(|e| format!("temporary directory: {e}"))?;
        let file = dir.path().join(format!("{function}.m"));
        std::fs::write(&file, source).map_err(|e| format!("{}: {e}", file.display()))?;
        Ok(OctaveTimer {
            dir,
            function: function.to_string(),
            sizes: Vec::new(),
        })
    }

    /// The timer of `workload`'s loop.
    pub fn of_loop(workload: Workload) -> Result<OctaveTimer, String> {
        OctaveTimer::new(&workload.function(), workload.source())
    }

    /// The timer of the builtin that does `workload`'s work.
    pub fn of_builtin(workload: Workload) -> Result<OctaveTimer, String> {
        OctaveTimer::new(&workload.builtin_function(), workload.builtin_source())
    }

    /// Adds the size 2^`log2` with its inputs (by parameter name).
    pub fn add(&mut self, log2: u32, inputs: &[(String, Value)]) -> Result<(), String> {
        let file = self.dir.path().join(format!("in_{log2}.mat"));
        m2cu_runtime::write_mat(&file, inputs).map_err(|e| format!("{}: {e}", file.display()))?;
        self.sizes.push(log2);
        Ok(())
    }

    /// Whether no size was added.
    pub fn is_empty(&self) -> bool {
        self.sizes.is_empty()
    }

    /// Times `runs` calls per size; `params` are the function's parameters in order and
    /// `outputs` how many outputs to ask for. Returns the median milliseconds per size.
    pub fn run(
        &self,
        params: &[String],
        outputs: usize,
        runs: usize,
    ) -> Result<BTreeMap<u32, f64>, String> {
        let script = self.script(params, outputs, runs);
        let output = Command::new("octave-cli")
            .args(["--norc", "--quiet", "--no-history", "--eval", &script])
            .current_dir(self.dir.path())
            .output()
            .map_err(|e| format!("cannot run octave-cli: {e}"))?;
        let stdout = String::from_utf8_lossy(&output.stdout);
        let failure = |what: &str| {
            format!(
                "Octave {what} timing {}:\n{}",
                self.function,
                String::from_utf8_lossy(&output.stderr).trim_end()
            )
        };
        if !output.status.success() {
            return Err(failure(&format!("failed ({})", output.status)));
        }
        let mut times: BTreeMap<u32, Vec<f64>> = BTreeMap::new();
        for line in stdout.lines() {
            if let Some((log2, seconds)) = parse_line(line) {
                times.entry(log2).or_default().push(seconds * 1e3);
            }
        }
        if self
            .sizes
            .iter()
            .any(|k| times.get(k).map_or(0, Vec::len) != runs)
        {
            return Err(failure("printed too few times"));
        }
        Ok(times.into_iter().map(|(k, t)| (k, median(t))).collect())
    }

    fn script(&self, params: &[String], outputs: usize, runs: usize) -> String {
        let sizes: Vec<String> = self.sizes.iter().map(u32::to_string).collect();
        let args: Vec<String> = params.iter().map(|p| format!("S.{p}")).collect();
        let outs: Vec<String> = (1..=outputs).map(|k| format!("o{k}")).collect();
        format!(
            "for k = [{sizes}]\n\
             S = load(sprintf('in_%d.mat', k));\n\
             args = {{{args}}};\n\
             for r = 1:{total}\n\
             t0 = tic;\n\
             [{outs}] = {function}(args{{:}});\n\
             t = toc(t0);\n\
             if r > {WARMUP_RUNS}\n\
             printf('{TAG} %d %.9e\\n', k, t);\n\
             end\n\
             end\n\
             end\n",
            sizes = sizes.join(" "),
            args = args.join(", "),
            total = WARMUP_RUNS + runs,
            outs = outs.join(", "),
            function = self.function,
        )
    }
}

/// `(log2, seconds)` from a line `m2cu-bench LOG2 SECONDS`.
fn parse_line(line: &str) -> Option<(u32, f64)> {
    let mut words = line.split_whitespace();
    if words.next()? != TAG {
        return None;
    }
    let log2 = words.next()?.parse().ok()?;
    let seconds = words.next()?.parse().ok()?;
    Some((log2, seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_only_tagged_lines() {
        assert_eq!(parse_line("m2cu-bench 12 1.5e-03"), Some((12, 1.5e-3)));
        assert_eq!(parse_line("warning: m2cu-bench 12 1"), None);
        assert_eq!(parse_line("m2cu-bench twelve 1"), None);
    }
}
