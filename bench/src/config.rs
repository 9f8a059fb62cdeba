//! What one benchmark run measures.
//!
//! Invariants, checked by [`Config::validate`] before anything runs: `min_log2 <= max_log2 <=`
//! [`MAX_LOG2`], at least one timed run, at least one workload and none twice.

use std::ops::RangeInclusive;

use crate::workloads::Workload;

/// The largest size accepted, 2^30 elements (8 GiB per double row).
pub const MAX_LOG2: u32 = 30;

/// The benchmark's settings (the command line's options).
#[derive(Clone, Debug)]
pub struct Config {
    /// The smallest rows have 2^`min_log2` elements.
    pub min_log2: u32,
    /// The largest rows have 2^`max_log2` elements.
    pub max_log2: u32,
    /// Timed runs per cell (after the warm-up runs); the median is reported.
    pub runs: usize,
    /// Time Octave's interpreter for sizes up to 2^this; `None` leaves the column out.
    pub octave_max_log2: Option<u32>,
    /// Time the C columns (m2cu's C path, the hand-written C) for sizes up to 2^this; `None`
    /// times them at every size. Larger sizes still check every result against the
    /// hand-written C's; a GPU run uses this to spend its time on the GPU columns.
    pub cpu_max_log2: Option<u32>,
    /// The workloads, in table order.
    pub workloads: Vec<Workload>,
    /// The command line as typed, for the report's header.
    pub command: String,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            min_log2: 10,
            max_log2: 24,
            runs: 20,
            octave_max_log2: Some(16),
            cpu_max_log2: None,
            workloads: Workload::ALL.to_vec(),
            command: "m2cu-bench".to_string(),
        }
    }
}

impl Config {
    /// Checks the invariants in the module doc.
    pub fn validate(&self) -> Result<(), String> {
        if self.min_log2 > self.max_log2 {
            return Err(format!(
                "--min-log2 {} is larger than --max-log2 {}",
                self.min_log2, self.max_log2
            ));
        }
        if self.max_log2 > MAX_LOG2 {
            return Err(format!(
                "--max-log2 {} is too large: at most {MAX_LOG2} (2^{MAX_LOG2} elements per row)",
                self.max_log2
            ));
        }
        if self.runs == 0 {
            return Err("--runs must be at least 1".to_string());
        }
        if self.workloads.is_empty() {
            return Err("no workload to run".to_string());
        }
        if let Some(w) = self
            .workloads
            .iter()
            .enumerate()
            .find_map(|(k, w)| self.workloads[..k].contains(w).then_some(w))
        {
            return Err(format!("workload `{}` is named twice", w.name()));
        }
        Ok(())
    }

    /// The exponents of the sizes, smallest first.
    pub fn sizes(&self) -> RangeInclusive<u32> {
        self.min_log2..=self.max_log2
    }

    /// Whether the C columns are timed at size 2^`log2`.
    pub fn times_cpu(&self, log2: u32) -> bool {
        self.cpu_max_log2.is_none_or(|max| log2 <= max)
    }

    /// Whether Octave is timed at size 2^`log2`.
    pub fn times_octave(&self, log2: u32) -> bool {
        self.octave_max_log2.is_some_and(|max| log2 <= max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_names_the_offending_option() {
        assert!(Config::default().validate().is_ok());
        let swapped = Config {
            min_log2: 12,
            max_log2: 11,
            ..Config::default()
        };
        assert!(swapped.validate().unwrap_err().contains("--min-log2 12"));
        let huge = Config {
            max_log2: 40,
            ..Config::default()
        };
        assert!(huge.validate().unwrap_err().contains("--max-log2 40"));
        let twice = Config {
            workloads: vec![Workload::Sum, Workload::Max, Workload::Sum],
            ..Config::default()
        };
        assert!(twice
            .validate()
            .unwrap_err()
            .contains("`sum` is named twice"));
    }
}
