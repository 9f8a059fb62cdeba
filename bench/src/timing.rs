//! Timing protocol: [`WARMUP_RUNS`] untimed runs, then the requested number of timed runs, and
//! the median of those (robust against the odd slow run from another process on the machine).
//!
//! Invariants: every run is timed alone with a monotonic clock (`Instant`); the first error of
//! any run, warm-up or timed, ends the measurement and is returned.

use std::time::Instant;

/// Untimed runs before the timed ones (caches, page faults, OpenMP's thread start-up).
pub const WARMUP_RUNS: usize = 2;

/// Runs `f` [`WARMUP_RUNS`] times untimed, then `runs` times timed; returns the median time of
/// the timed runs in milliseconds. `runs` must be at least 1.
pub fn median_ms<E>(runs: usize, mut f: impl FnMut() -> Result<(), E>) -> Result<f64, E> {
    for _ in 0..WARMUP_RUNS {
        f()?;
    }
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let start = Instant::now();
        f()?;
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    Ok(median(times))
}

/// The median of `times` (the mean of the middle two for an even count); NaN when empty.
pub fn median(mut times: Vec<f64>) -> f64 {
    times.sort_by(f64::total_cmp);
    let n = times.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => times[n / 2],
        _ => (times[n / 2 - 1] + times[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 3.0, 2.0]), 2.5);
        assert!(median(Vec::new()).is_nan());
    }

    #[test]
    fn warm_up_runs_are_not_timed() {
        let mut calls = 0;
        median_ms::<()>(3, || {
            calls += 1;
            Ok(())
        })
        .unwrap();
        assert_eq!(calls, WARMUP_RUNS + 3);
    }
}
