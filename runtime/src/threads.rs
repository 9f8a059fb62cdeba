//! How many OpenMP threads the C program's parallel loops use, chosen before each call.
//!
//! [`Threads::Exactly`] is the caller's choice (`--threads N`). [`Threads::Auto`] takes the
//! OpenMP default (`OMP_NUM_THREADS`, else the cores this process may run on) and lowers it to
//! the cores that are free: on a machine where another process keeps a core busy, a thread of
//! ours that waits for that core holds up every other thread of the loop at its end, and the
//! loop runs many times slower than on one thread.
//!
//! Invariants: the team has at least one thread and never more than the OpenMP default (or the
//! caller's number). Free cores are the online cores less the threads of *other* processes
//! that are running or waiting to run (`/proc/loadavg`'s running count, less this process's own
//! running threads from `/proc/self/task`, so our own OpenMP workers spinning after a loop do
//! not count); read at most every [`RECHECK`], so a call costs no more than a cached number.
//! Where `/proc` cannot be read, the OpenMP default stands.

use std::num::NonZeroUsize;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The team size of a call's parallel loops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Threads {
    /// The OpenMP default, lowered to the cores other processes leave free.
    #[default]
    Auto,
    /// This many threads, whatever the machine's load.
    Exactly(NonZeroUsize),
}

/// How long a reading of the free cores stands.
const RECHECK: Duration = Duration::from_millis(10);

impl Threads {
    /// The number of threads for the next call.
    pub fn team(self) -> usize {
        match self {
            Threads::Exactly(n) => n.get(),
            Threads::Auto => {
                let default = openmp_default();
                free_cores().map_or(default, |free| free.clamp(1, default))
            }
        }
    }
}

/// `OMP_NUM_THREADS` (its first number), else the cores this process may run on.
fn openmp_default() -> usize {
    std::env::var("OMP_NUM_THREADS")
        .ok()
        .and_then(|v| v.split(',').next()?.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(available)
}

fn available() -> usize {
    std::thread::available_parallelism().map_or(1, NonZeroUsize::get)
}

/// The cores not taken by other processes' runnable threads, read at most every [`RECHECK`].
fn free_cores() -> Option<usize> {
    static LAST: Mutex<Option<(Instant, Option<usize>)>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((at, free)) = *last {
        if at.elapsed() < RECHECK {
            return free;
        }
    }
    let free = read_free_cores();
    *last = Some((Instant::now(), free));
    free
}

fn read_free_cores() -> Option<usize> {
    let loadavg = std::fs::read_to_string("/proc/loadavg").ok()?;
    let running = running_count(&loadavg)?;
    let own = own_running_threads()?;
    let others = running.saturating_sub(own);
    Some(available().saturating_sub(others))
}

/// The running count of `/proc/loadavg` (`0.50 0.40 0.30 3/96 27037`: 3).
fn running_count(loadavg: &str) -> Option<usize> {
    loadavg
        .split_whitespace()
        .nth(3)?
        .split('/')
        .next()?
        .parse()
        .ok()
}

/// This process's threads in state `R` (running or runnable), the caller among them.
fn own_running_threads() -> Option<usize> {
    let mut running = 0;
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let Ok(stat) = std::fs::read_to_string(task.path().join("stat")) else {
            continue;
        };
        running += usize::from(task_state(&stat) == Some('R'));
    }
    Some(running)
}

/// The state letter of a `/proc/<pid>/task/<tid>/stat` line: after the command name in
/// parentheses, which may itself hold spaces and parentheses.
fn task_state(stat: &str) -> Option<char> {
    let (_, after) = stat.rsplit_once(')')?;
    after.trim_start().chars().next()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_proc_lines() {
        assert_eq!(running_count("4.93 5.79 5.16 3/96 27037\n"), Some(3));
        assert_eq!(running_count("garbage"), None);
        assert_eq!(task_state("1234 (a (b) c) R 1 2 3"), Some('R'));
        assert_eq!(task_state("1234 (m2cu) S 1 2 3"), Some('S'));
    }

    #[test]
    fn a_team_has_one_thread_at_least_and_the_chosen_number_exactly() {
        assert!(Threads::Auto.team() >= 1);
        let three = Threads::Exactly(NonZeroUsize::new(3).unwrap());
        assert_eq!(three.team(), 3);
        if cfg!(target_os = "linux") {
            // This test's own thread is running: the reading never fails on Linux.
            assert!(read_free_cores().is_some());
        }
    }
}
