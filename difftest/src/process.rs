//! The `m2cu` command line as a subprocess with a time limit, for the tools that must survive
//! its crashes (`m2cu-mutate`, the `--set` check): a panic, a signal or a hang of the child is
//! a finding, not the end of the run.
//!
//! Invariant: every child runs under coreutils `timeout`, which signals the child's whole
//! process group (the C compiler included) when the limit passes, so no child outlives its
//! step by more than the kill grace.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// How one `m2cu` invocation ended.
#[derive(Clone, Debug)]
pub struct Finished {
    /// The command as a shell line, to replay it.
    pub command: String,
    /// The exit code (`timeout`'s 124/137 for a hang, 128+N for signal N).
    pub code: Option<i32>,
    /// A signal that ended `timeout` itself.
    pub signal: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Finished {
    /// The child ran past its limit: `timeout` exits 124 (137 when it had to send KILL), or, when
    /// the child ignored TERM and `-k` sent KILL, dies of SIGKILL itself (as Octave does when it
    /// catches TERM to save its workspace).
    pub fn timed_out(&self) -> bool {
        matches!(self.code, Some(124) | Some(137)) || self.signal == Some(9)
    }

    /// The signal that ended the child, if one did (other than the time limit's).
    pub fn killed_by(&self) -> Option<i32> {
        match (self.code, self.signal) {
            (_, Some(9)) => None,
            (_, Some(s)) => Some(s),
            (Some(c), None) if c > 128 && c != 137 => Some(c - 128),
            _ => None,
        }
    }
}

/// Runs `program args...` in `dir` under a time limit of `limit`.
pub fn run_limited(program: &Path, args: &[String], dir: &Path, limit: Duration) -> Finished {
    let secs = limit.as_secs().max(1).to_string();
    let output = Command::new("timeout")
        .args(["-k", "2", &secs])
        .arg(program)
        .args(args)
        .current_dir(dir)
        .output();
    let command = format!(
        "{} {}",
        program.display(),
        args.iter().map(|a| quote(a)).collect::<Vec<_>>().join(" ")
    );
    match output {
        Ok(out) => Finished {
            command,
            code: out.status.code(),
            signal: out.status.signal(),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        },
        Err(e) => Finished {
            command,
            code: Some(127),
            signal: None,
            stdout: String::new(),
            stderr: format!("could not start `timeout`: {e}"),
        },
    }
}

/// `text` quoted for a POSIX shell.
pub fn quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,".contains(c))
    {
        text.to_string()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

/// The `m2cu` binary to drive: `explicit` when given, else the workspace's release build, else
/// its debug build; `Err` names what to build.
pub fn locate_m2cu(explicit: Option<PathBuf>) -> Result<PathBuf, String> {
    if let Some(p) = explicit {
        // Absolute, since each step runs in a mutant's own directory.
        return match p.canonicalize() {
            Ok(absolute) if absolute.is_file() => Ok(absolute),
            _ => Err(format!("{} does not exist", p.display())),
        };
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    ["release", "debug"]
        .iter()
        .map(|profile| target.join(profile).join("m2cu"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            format!(
                "no m2cu binary under {}: run `cargo build --release --bin m2cu` or pass --m2cu",
                target.display()
            )
        })
}
