//! Running work that calls generated code in a child process, so that a crash in that code (an
//! out-of-range index under `--no-bounds-check`, a bug) is reported as an error instead of
//! killing the caller.
//!
//! The `m2cu run` command line uses this; the library's `run` calls generated code in-process
//! (no fork, no copying of outputs) and leaves isolation to its caller.
//!
//! Invariant: [`in_child`] forks, so it must be called while the process has one thread (before
//! any OpenMP region, CUDA context or spawned thread): the child gets only the calling thread.

/// How the child ended, when it did not exit normally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crash {
    /// The signal's name (`SIGSEGV`) or number.
    pub signal: String,
}

/// Runs `work` in a forked child and returns the exit code it returned (a panic in it is exit
/// code 101, as for a Rust program), or the signal that killed it. The child's output goes to
/// the caller's stdout and stderr (flushed before it exits).
#[cfg(unix)]
pub fn in_child(work: impl FnOnce() -> u8) -> std::io::Result<Result<u8, Crash>> {
    use std::io::Write;
    // SAFETY: the caller has a single thread (module invariant), so the child's copy of the
    // address space is consistent; the child leaves only through `_exit`.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        let code = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work)).unwrap_or(101);
        let _ = std::io::stdout().flush();
        let _ = std::io::stderr().flush();
        // SAFETY: ends the child without running the parent's exit handlers twice.
        unsafe { libc::_exit(i32::from(code)) }
    }
    let status = wait(pid)?;
    Ok(if libc::WIFSIGNALED(status) {
        Err(Crash {
            signal: signal_name(libc::WTERMSIG(status)),
        })
    } else {
        Ok(u8::try_from(libc::WEXITSTATUS(status)).unwrap_or(1))
    })
}

/// Without `fork`, the work runs in this process.
#[cfg(not(unix))]
pub fn in_child(work: impl FnOnce() -> u8) -> std::io::Result<Result<u8, Crash>> {
    Ok(Ok(work()))
}

#[cfg(unix)]
fn wait(pid: libc::pid_t) -> std::io::Result<i32> {
    let mut status = 0;
    loop {
        // SAFETY: `pid` is our child and `status` a valid out-pointer.
        if unsafe { libc::waitpid(pid, &mut status, 0) } == pid {
            return Ok(status);
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

#[cfg(unix)]
fn signal_name(signal: i32) -> String {
    let name = match signal {
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGILL => "SIGILL",
        libc::SIGABRT => "SIGABRT",
        libc::SIGKILL => "SIGKILL (out of memory?)",
        _ => return format!("signal {signal}"),
    };
    name.to_string()
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_and_signals_come_back() {
        assert_eq!(in_child(|| 3).unwrap(), Ok(3));
        // The child dies of a signal, as with a crash in generated code.
        let crash = in_child(|| std::process::abort()).unwrap();
        assert_eq!(
            crash,
            Err(Crash {
                signal: "SIGABRT".into()
            })
        );
    }
}
