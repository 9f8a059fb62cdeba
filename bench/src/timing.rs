//! Timing protocol: [`WARMUP_RUNS`] untimed runs, then the requested number of timed runs, and
//! the median of those (robust against the odd slow run from another process on the machine).
//!
//! Invariants: every run is timed alone, with a monotonic clock (`Instant`) or by the time the
//! run reports itself (the GPU's kernel time, from CUDA events); the first error of any run,
//! warm-up or timed, ends the measurement and is returned.

use std::time::Instant;

/// Untimed runs before the timed ones (caches, page faults, OpenMP's thread start-up).
pub const WARMUP_RUNS: usize = 2;

/// Runs `f` [`WARMUP_RUNS`] times untimed, then `runs` times timed; returns the median time of
/// the timed runs in milliseconds. `runs` must be at least 1.
pub fn median_ms<E>(runs: usize, mut f: impl FnMut() -> Result<(), E>) -> Result<f64, E> {
    median_reported_ms(runs, || {
        let start = Instant::now();
        f()?;
        Ok(start.elapsed().as_secs_f64() * 1e3)
    })
}

/// Like [`median_ms`], but each run returns its own time in milliseconds (e.g. the kernel time
/// CUDA events measured), which is what the median is taken of.
pub fn median_reported_ms<E>(runs: usize, mut f: impl FnMut() -> Result<f64, E>) -> Result<f64, E> {
    for _ in 0..WARMUP_RUNS {
        f()?;
    }
    let times = (0..runs).map(|_| f()).collect::<Result<Vec<f64>, E>>()?;
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

    #[test]
    fn reported_times_are_the_median_of_the_timed_runs() {
        let mut reported = [100.0, 100.0, 3.0, 1.0, 2.0].into_iter();
        let ms = median_reported_ms::<()>(3, || Ok(reported.next().unwrap())).unwrap();
        assert_eq!(ms, 2.0);
        assert_eq!(reported.next(), None);
    }
}
