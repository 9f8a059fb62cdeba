//! The benchmark's result and its markdown form: header lines (machine facts, command,
//! protocol), one table row per workload and size, then notes. [`markdown`] and [`Cell`] also
//! render the matrix-product mode's report (`crate::matmul`).
//!
//! Invariants: rows are in the order measured (workloads in the configured order, sizes
//! ascending); every row passed the correctness guard (a failing one ends the run instead);
//! a cell that was not measured says why (`—` for sizes beyond Octave's limit or without
//! Octave, `no device` without a GPU, `no BLAS` without a BLAS library) and never holds an
//! invented number.

use crate::workloads::Workload;

/// A timing that may be absent.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Cell {
    /// The median in milliseconds.
    Ms(f64),
    /// Not measured at this size, or the tool is missing (the notes say which).
    NotRun,
    /// A GPU cell on a machine without a usable GPU.
    NoDevice,
    /// A BLAS cell when no BLAS library loads.
    NoBlas,
}

impl Cell {
    /// The milliseconds with three significant digits, or why there are none.
    pub fn text(self) -> String {
        match self {
            Cell::Ms(ms) => format_ms(ms),
            Cell::NotRun => "—".to_string(),
            Cell::NoDevice => "no device".to_string(),
            Cell::NoBlas => "no BLAS".to_string(),
        }
    }

    /// `count` (bytes moved, floating-point operations) per second in this time, in units of
    /// 10^9 (GB/s, GFLOP/s), or the cell's text when not measured.
    pub fn giga_per_s(self, count: u64) -> String {
        match self {
            Cell::Ms(ms) => format!("{:.2}", count as f64 / (ms * 1e-3) / 1e9),
            other => other.text(),
        }
    }

    /// `self / other` with two decimals, or the text of whichever cell was not measured.
    pub fn ratio(self, other: Cell) -> String {
        match (self, other) {
            (Cell::Ms(a), Cell::Ms(b)) => format!("{:.2}", a / b),
            (Cell::Ms(_), cell) | (cell, _) => cell.text(),
        }
    }
}

/// One workload at one size.
#[derive(Clone, Debug)]
pub struct Row {
    pub workload: Workload,
    /// The rows have 2^`log2` elements.
    pub log2: u32,
    /// Bytes read and written by one call ([`Workload::bytes`]).
    pub bytes: u64,
    /// m2cu's C path (`Program::call`), median milliseconds.
    pub m2cu_ms: Cell,
    /// The hand-written C at `-O2`, median milliseconds.
    pub hand_ms: Cell,
    /// The hand-written C at `-O3 -march=native`, median milliseconds.
    pub hand_tuned_ms: Cell,
    /// The largest relative difference between m2cu's C results and the hand-written C's
    /// (0 when equal), within the workload's tolerance.
    pub difference: f64,
    /// The `.m` function in Octave's interpreter.
    pub octave: Cell,
    /// Octave's builtin for the same work (`crate::workloads::Workload::builtin_source`).
    pub octave_builtin: Cell,
    /// `Program::call` on the GPU, transfers included.
    pub gpu: Cell,
    /// The GPU call's kernels alone (CUDA events), median milliseconds.
    pub gpu_kernels: Cell,
}

/// Everything one benchmark run found.
#[derive(Clone, Debug)]
pub struct Report {
    /// Lines above the table (machine, command, protocol).
    pub header: Vec<String>,
    pub rows: Vec<Row>,
    /// Lines below the table (what the columns mean, what was skipped and why).
    pub notes: Vec<String>,
}

const COLUMNS: [&str; 15] = [
    "workload",
    "N",
    "m2cu C ms",
    "m2cu C GB/s",
    "hand C ms",
    "hand/m2cu",
    "hand -O3 native ms",
    "hand -O3 native/m2cu",
    "max rel. diff",
    "Octave loop ms",
    "Octave builtin ms",
    "builtin/m2cu",
    "GPU call incl. transfers ms",
    "GPU kernels ms",
    "GPU kernels GB/s",
];

impl Report {
    /// The report as markdown (see [`markdown`]).
    pub fn markdown(&self) -> String {
        markdown(
            &self.header,
            &COLUMNS,
            self.rows.iter().map(Row::cells),
            &self.notes,
        )
    }
}

/// A report as markdown: `header` lines as a list, a table of `columns` (the first
/// left-aligned, the others right-aligned) with one line per row of cells, `notes` as a list.
pub fn markdown(
    header: &[String],
    columns: &[&str],
    rows: impl Iterator<Item = Vec<String>>,
    notes: &[String],
) -> String {
    let mut text = String::new();
    for line in header {
        text.push_str(&format!("- {line}\n"));
    }
    text.push('\n');
    text.push_str(&format!("| {} |\n", columns.join(" | ")));
    let rule: Vec<&str> = columns
        .iter()
        .enumerate()
        .map(|(k, _)| if k == 0 { "---" } else { "---:" })
        .collect();
    text.push_str(&format!("|{}|\n", rule.join("|")));
    for row in rows {
        text.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    text.push('\n');
    for line in notes {
        text.push_str(&format!("- {line}\n"));
    }
    text
}

impl Row {
    fn cells(&self) -> Vec<String> {
        vec![
            self.workload.name().to_string(),
            format!("2^{}", self.log2),
            self.m2cu_ms.text(),
            self.m2cu_ms.giga_per_s(self.bytes),
            self.hand_ms.text(),
            self.hand_ms.ratio(self.m2cu_ms),
            self.hand_tuned_ms.text(),
            self.hand_tuned_ms.ratio(self.m2cu_ms),
            difference_text(self.difference),
            self.octave.text(),
            self.octave_builtin.text(),
            self.octave_builtin.ratio(self.m2cu_ms),
            self.gpu.text(),
            self.gpu_kernels.text(),
            self.gpu_kernels.giga_per_s(self.bytes),
        ]
    }
}

/// A guard's largest relative difference: `0`, or two significant digits.
pub fn difference_text(difference: f64) -> String {
    if difference == 0.0 {
        "0".to_string()
    } else {
        format!("{difference:.1e}")
    }
}

/// Milliseconds with three significant digits (no more than six decimals).
fn format_ms(ms: f64) -> String {
    let magnitude = if ms > 0.0 { ms.log10().floor() } else { 0.0 };
    let decimals = (2.0 - magnitude).clamp(0.0, 6.0) as usize;
    format!("{ms:.decimals$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_renders_every_column() {
        let row = Row {
            workload: Workload::Sum,
            log2: 20,
            bytes: 8 << 20,
            m2cu_ms: Cell::Ms(2.0),
            hand_ms: Cell::Ms(4.0),
            hand_tuned_ms: Cell::Ms(3.0),
            difference: 0.0,
            octave: Cell::NotRun,
            octave_builtin: Cell::Ms(8.0),
            gpu: Cell::NoDevice,
            gpu_kernels: Cell::NoDevice,
        };
        let report = Report {
            header: vec!["date: today".into()],
            rows: vec![row],
            notes: vec!["a note".into()],
        };
        let text = report.markdown();
        assert!(
            text.contains(
                "| sum | 2^20 | 2.00 | 4.19 | 4.00 | 2.00 | 3.00 | 1.50 | 0 | — | 8.00 | 4.00 \
                 | no device | no device | no device |"
            ),
            "{text}"
        );
        let on_a_gpu = Row {
            gpu: Cell::Ms(3.0),
            gpu_kernels: Cell::Ms(0.5),
            ..report.rows[0].clone()
        };
        assert!(on_a_gpu
            .cells()
            .ends_with(&["3.00".into(), "0.500".into(), "16.78".into()]));
        assert!(text.starts_with("- date: today\n\n| workload |"));
        assert!(text.ends_with("- a note\n"));
    }

    #[test]
    fn milliseconds_keep_three_significant_digits() {
        assert_eq!(format_ms(123.4), "123");
        assert_eq!(format_ms(2.0), "2.00");
        assert_eq!(format_ms(0.01234), "0.0123");
        assert_eq!(format_ms(0.0), "0.00");
    }

    #[test]
    fn ratios_need_both_cells() {
        assert_eq!(Cell::Ms(3.0).ratio(Cell::Ms(2.0)), "1.50");
        assert_eq!(Cell::Ms(3.0).ratio(Cell::NoBlas), "no BLAS");
        assert_eq!(Cell::NotRun.ratio(Cell::Ms(2.0)), "—");
        assert_eq!(Cell::NoBlas.giga_per_s(1), "no BLAS");
    }
}
