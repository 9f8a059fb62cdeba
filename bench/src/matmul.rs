//! `m2cu-bench --matmul`: the matrix products `C = A * B` (n-by-n times n-by-n,
//! `bench/workloads/bench_mtimes.m`) and `y = A * x` (n-by-n times n-by-1, `bench_mtimesv.m`)
//! on m2cu's C path, the system BLAS (`dgemm_`, `dgemv_`: [`crate::blas`]) and, when there is
//! one, the GPU, as a markdown table of median times, GFLOP/s and the ratio m2cu / BLAS.
//!
//! Invariants:
//! - The inputs of a product at a given `n` are the same on every run and machine (a seeded
//!   generator, uniform doubles in [0, 1)) and for every column.
//! - m2cu's programs are prepared per product and size from that size's inputs (a matrix
//!   input's type fixes its row count, so a program prepared on small specimens refuses large
//!   matrices); preparing is not timed.
//! - Nothing is timed before m2cu's results (the C path's, and the GPU's when there is one)
//!   equal the baseline's within [`TOLERANCE`]: the BLAS's results, or, when no BLAS loads,
//!   the reference BLAS's order computed in Rust ([`blas::in_order_product`]), so the guard
//!   always runs; a mismatch ends the run with the guard's message.
//! - Every timed cell is [`median_ms`] of the configured runs; a column that cannot be measured
//!   says why (`no BLAS`, `no device`) and never holds a number.

use std::time::Instant;

use m2cu::Value;
use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::blas::{self, Blas};
use crate::guard::Tolerance;
use crate::machine::Machine;
use crate::report::{self, difference_text, Cell};
use crate::timing::{median_ms, WARMUP_RUNS};
use crate::translated::Translated;
use crate::workloads::random_matrix;

/// How closely m2cu's results must match the baseline's: the BLAS adds the products of an
/// output in another order (OpenBLAS in blocks, with fused multiply-adds).
pub const TOLERANCE: Tolerance = Tolerance::OfLargest(1e-12);

/// The largest `n` accepted: 2 GiB per n-by-n double matrix, extents within the BLAS's 32-bit
/// integers.
pub const MAX_N: usize = 16384;

/// One matrix product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Product {
    /// `C = A * B`, both n-by-n: `dgemm_`.
    Matrix,
    /// `y = A * x`, n-by-n times n-by-1: `dgemv_`.
    Vector,
}

impl Product {
    /// Both products, in the order of the table.
    pub const ALL: [Product; 2] = [Product::Matrix, Product::Vector];

    /// The name in the table.
    pub fn name(self) -> &'static str {
        match self {
            Product::Matrix => "A * B",
            Product::Vector => "A * x",
        }
    }

    /// The MATLAB function's name, which is also its file's stem.
    pub fn function(self) -> &'static str {
        match self {
            Product::Matrix => "bench_mtimes",
            Product::Vector => "bench_mtimesv",
        }
    }

    /// The MATLAB source.
    pub fn source(self) -> &'static str {
        match self {
            Product::Matrix => include_str!("../workloads/bench_mtimes.m"),
            Product::Vector => include_str!("../workloads/bench_mtimesv.m"),
        }
    }

    /// The inputs by parameter name at size `n`: `A` n-by-n, then `B` n-by-n or `x` n-by-1.
    pub fn inputs(self, n: usize) -> Vec<(String, Value)> {
        let mut rng = StdRng::seed_from_u64(n as u64);
        let a = random_matrix::<f64>(&mut rng, n, n);
        let (name, cols) = match self {
            Product::Matrix => ("B", n),
            Product::Vector => ("x", 1),
        };
        let second = random_matrix::<f64>(&mut rng, n, cols);
        vec![("A".to_string(), a), (name.to_string(), second)]
    }

    /// Floating-point operations of one product at size `n`: a multiply and an add per term.
    pub fn flops(self, n: usize) -> u64 {
        let n = n as u64;
        match self {
            Product::Matrix => 2 * n * n * n,
            Product::Vector => 2 * n * n,
        }
    }
}

/// What one matrix-product run measures.
#[derive(Clone, Debug)]
pub struct Config {
    /// The `n` of the n-by-n matrices, in table order.
    pub sizes: Vec<usize>,
    /// Timed runs per cell (after the warm-up runs); the median is reported.
    pub runs: usize,
    /// The BLAS library to load (a path, or a name the dynamic loader searches for) instead of
    /// the first of [`blas::CANDIDATES`] that loads; one that does not load leaves the BLAS
    /// column `no BLAS` as when none does.
    pub blas: Option<String>,
    /// The command line as typed, for the report's header.
    pub command: String,
}

impl Default for Config {
    fn default() -> Config {
        Config {
            sizes: vec![512, 1024, 2048],
            runs: 3,
            blas: None,
            command: "m2cu-bench --matmul".to_string(),
        }
    }
}

impl Config {
    /// Checks that there is a size, every size is in `1..=`[`MAX_N`], and a timed run.
    pub fn validate(&self) -> Result<(), String> {
        if self.sizes.is_empty() {
            return Err("--matmul-sizes names no size".to_string());
        }
        if let Some(n) = self.sizes.iter().find(|&&n| n == 0 || n > MAX_N) {
            return Err(format!(
                "--matmul-sizes {n}: a size must be between 1 and {MAX_N}"
            ));
        }
        if self.runs == 0 {
            return Err("--runs must be at least 1".to_string());
        }
        Ok(())
    }
}

/// One product at one size.
#[derive(Clone, Debug)]
pub struct Row {
    pub product: Product,
    pub n: usize,
    /// m2cu's C path (`Program::call`), median milliseconds.
    pub m2cu_ms: Cell,
    /// The BLAS routine, median milliseconds; [`Cell::NoBlas`] when no BLAS loads.
    pub blas_ms: Cell,
    /// The C path's largest difference from the baseline, as a fraction of the largest
    /// magnitude among the output's elements (0 when equal), within [`TOLERANCE`].
    pub difference: f64,
    /// `Program::call` on the GPU, transfers included.
    pub gpu: Cell,
    /// The GPU call's kernels alone (CUDA events), median milliseconds.
    pub gpu_kernels: Cell,
}

const COLUMNS: [&str; 11] = [
    "product",
    "n",
    "m2cu C ms",
    "m2cu C GFLOP/s",
    "BLAS ms",
    "BLAS GFLOP/s",
    "m2cu/BLAS",
    "max rel. diff",
    "GPU call incl. transfers ms",
    "GPU kernels ms",
    "GPU kernels GFLOP/s",
];

impl Row {
    fn cells(&self) -> Vec<String> {
        let flops = self.product.flops(self.n);
        vec![
            format!("`{}`", self.product.name()),
            self.n.to_string(),
            self.m2cu_ms.text(),
            self.m2cu_ms.giga_per_s(flops),
            self.blas_ms.text(),
            self.blas_ms.giga_per_s(flops),
            self.m2cu_ms.ratio(self.blas_ms),
            difference_text(self.difference),
            self.gpu.text(),
            self.gpu_kernels.text(),
            self.gpu_kernels.giga_per_s(flops),
        ]
    }
}

/// Everything one matrix-product run found.
#[derive(Clone, Debug)]
pub struct Report {
    /// Lines above the table (machine, BLAS, command, protocol).
    pub header: Vec<String>,
    /// Products in [`Product::ALL`]'s order, each at the configured sizes.
    pub rows: Vec<Row>,
    /// Lines below the table (what the columns mean).
    pub notes: Vec<String>,
}

impl Report {
    /// The report as markdown (see [`report::markdown`]).
    pub fn markdown(&self) -> String {
        report::markdown(
            &self.header,
            &COLUMNS,
            self.rows.iter().map(Row::cells),
            &self.notes,
        )
    }
}

/// Runs the matrix products `config` describes and returns their report; progress on stderr.
pub fn run(config: &Config) -> Result<Report, String> {
    config.validate()?;
    let machine = Machine::probe();
    let blas = match &config.blas {
        Some(name) => Blas::load_from(name),
        None => Blas::load(),
    };
    match &blas {
        Ok(blas) => eprintln!("m2cu-bench: BLAS {}", blas.describe()),
        Err(why) => eprintln!("m2cu-bench: no BLAS loads: {why}"),
    }
    let mut rows = Vec::new();
    for product in Product::ALL {
        for &n in &config.sizes {
            let start = Instant::now();
            rows.push(measure(
                config,
                blas.as_ref().ok(),
                machine.has_gpu(),
                product,
                n,
            )?);
            eprintln!(
                "m2cu-bench: {} at n = {n} in {:.1} s",
                product.name(),
                start.elapsed().as_secs_f64()
            );
        }
    }
    Ok(Report {
        header: header(config, &machine, &blas),
        rows,
        notes: notes(),
    })
}

/// Prepares, checks and times one product at size `n`.
fn measure(
    config: &Config,
    blas: Option<&Blas>,
    gpu: bool,
    product: Product,
    n: usize,
) -> Result<Row, String> {
    let inputs = product.inputs(n);
    let (a, b) = (&inputs[0].1, &inputs[1].1);
    let translated =
        Translated::prepare_source(product.function(), product.source(), &inputs, gpu)?;
    let what = |path: &str| format!("{} at n = {n} ({path})", product.name());
    let (baseline, want) = match blas {
        Some(blas) => ("the BLAS", blas.product(a, b)?),
        None => ("the in-order product", blas::in_order_product(a, b)?),
    };
    let difference = translated.check(what, &inputs, baseline, &[want], TOLERANCE)?;
    let m2cu_ms = translated.time_cpu(&what("m2cu C"), &inputs, config.runs)?;
    let blas_ms = match blas {
        Some(blas) => Cell::Ms(median_ms(config.runs, || blas.product(a, b).map(drop))?),
        None => Cell::NoBlas,
    };
    let (gpu, gpu_kernels) = translated.time_gpu(&what("m2cu GPU"), &inputs, config.runs)?;
    Ok(Row {
        product,
        n,
        m2cu_ms: Cell::Ms(m2cu_ms),
        blas_ms,
        difference,
        gpu,
        gpu_kernels,
    })
}

fn header(config: &Config, machine: &Machine, blas: &Result<Blas, String>) -> Vec<String> {
    let mut lines = machine.header(&config.command);
    lines.push(match blas {
        Ok(blas) => format!("BLAS: {} (dgemm_, dgemv_)", blas.describe()),
        Err(why) => format!(
            "BLAS: none loads ({why}); the guard compares with the reference BLAS's order \
             computed in Rust"
        ),
    });
    lines.push(format!(
        "protocol: median of {} timed runs after {WARMUP_RUNS} warm-up runs per cell; inputs: \
         uniform doubles in [0, 1), the same for every column; m2cu's programs prepared per \
         size (not timed)",
        config.runs
    ));
    lines
}

/// What the columns mean.
fn notes() -> Vec<String> {
    vec![
        "GFLOP/s: 2n^3 (`A * B`) or 2n^2 (`A * x`) floating-point operations over the median \
         time."
            .to_string(),
        "m2cu C: `m2cu::Program::call` on the C path (the generated C/OpenMP), including the \
         call's own work (inputs put in parameter order, the output copied back into a value). \
         BLAS: `dgemm_` / `dgemv_` with alpha 1 and beta 0 into a fresh output, called from the \
         same process. m2cu/BLAS above 1: the BLAS is faster."
            .to_string(),
        "max rel. diff: the largest difference of m2cu's C results from the BLAS's (or the \
         in-order product's when no BLAS loads), as a fraction of the largest magnitude among \
         the output's elements; at most 1e-12. GPU results pass the same check."
            .to_string(),
        "GPU call incl. transfers: `Program::call` with the GPU backend (uploads, kernels, \
         downloads). GPU kernels: `Program::call_timed`'s kernel time (CUDA events around each \
         launch of the call), summed per call."
            .to_string(),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inputs_are_seeded_and_shaped() {
        let inputs = Product::Vector.inputs(5);
        assert_eq!(inputs, Product::Vector.inputs(5));
        let dims: Vec<(&str, &[usize])> = inputs
            .iter()
            .map(|(n, v)| (n.as_str(), v.dims.as_slice()))
            .collect();
        assert_eq!(dims, [("A", &[5, 5][..]), ("x", &[5, 1][..])]);
        assert_eq!(Product::Matrix.inputs(3)[1].1.dims, [3, 3]);
        assert_eq!(Product::Matrix.flops(10), 2000);
        assert_eq!(Product::Vector.flops(10), 200);
    }

    #[test]
    fn validate_names_the_offending_option() {
        assert!(Config::default().validate().is_ok());
        let sizes = |sizes: Vec<usize>| Config {
            sizes,
            ..Config::default()
        };
        assert!(sizes(vec![]).validate().unwrap_err().contains("no size"));
        let e = sizes(vec![512, 0]).validate().unwrap_err();
        assert!(e.contains("--matmul-sizes 0"), "{e}");
        let runs = Config {
            runs: 0,
            ..Config::default()
        };
        assert_eq!(runs.validate().unwrap_err(), "--runs must be at least 1");
    }

    #[test]
    fn a_row_without_blas_or_gpu_says_so() {
        let row = Row {
            product: Product::Matrix,
            n: 1000,
            m2cu_ms: Cell::Ms(1000.0),
            blas_ms: Cell::NoBlas,
            difference: 0.0,
            gpu: Cell::NoDevice,
            gpu_kernels: Cell::NoDevice,
        };
        assert_eq!(
            row.cells().join(" | "),
            "`A * B` | 1000 | 1000 | 2.00 | no BLAS | no BLAS | no BLAS | 0 | no device \
             | no device | no device"
        );
    }
}
