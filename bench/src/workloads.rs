//! The workloads: their MATLAB sources (`bench/workloads/bench_<name>.m`), the builtin a MATLAB
//! user would call instead (`bench/workloads/builtin_<name>.m`, timed in Octave), their inputs
//! and the bytes they must move.
//!
//! Invariants:
//! - The inputs of a workload at a given `n` are the same on every run and machine (a seeded
//!   generator); every vector input is a 1-by-`n` row, `a` of saxpy is a scalar; a matrix has
//!   `n` elements: [`rowsum_shape`] and [`grid_shape`].
//! - [`Workload::bytes`] counts every input element read once and every output element written
//!   once, the least traffic any implementation causes; GB/s figures are that over the time.
//! - The MATLAB functions are named `bench_<name>`, not `sum` or `max`: a file `sum.m` on
//!   Octave's path shadows the builtin for everything else in the session (Octave's own
//!   `accumarray` gave wrong answers with `max.m` next to it).

use m2cu::Value;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::guard::Tolerance;

/// One benchmark workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    Sum,
    Max,
    MinLoc,
    Count,
    Histogram,
    Saxpy,
    /// `sum(A, 2)` as loops: a sum per row of a matrix.
    RowSum,
    /// `cumsum(x)` as a loop: a running sum, sequential.
    Prefix,
    /// Ten Jacobi steps of the 5-point stencil on a grid (a time loop around a 2-D sweep).
    Stencil,
}

/// How many Jacobi steps [`Workload::Stencil`] makes.
pub const STENCIL_STEPS: u64 = 10;

/// The rows and columns of the matrix of [`Workload::RowSum`] with `n` elements: 1024 rows (or
/// `n`, when fewer).
pub fn rowsum_shape(n: usize) -> (usize, usize) {
    let rows = n.clamp(1, 1024);
    (rows, n / rows)
}

/// The rows and columns of [`Workload::Stencil`]'s grid with `n` (a power of two) elements:
/// square, or twice as many rows as columns.
pub fn grid_shape(n: usize) -> (usize, usize) {
    let log2 = n.max(1).ilog2();
    let cols = 1 << (log2 / 2);
    (n.max(1) / cols, cols)
}

/// The scalar `a` of saxpy.
const SAXPY_A: f64 = 2.5;

impl Workload {
    /// Every workload, in the order of the table.
    pub const ALL: [Workload; 9] = [
        Workload::Sum,
        Workload::Max,
        Workload::MinLoc,
        Workload::Count,
        Workload::Histogram,
        Workload::Saxpy,
        Workload::RowSum,
        Workload::Prefix,
        Workload::Stencil,
    ];

    /// The name on the command line and in the table.
    pub fn name(self) -> &'static str {
        match self {
            Workload::Sum => "sum",
            Workload::Max => "max",
            Workload::MinLoc => "minloc",
            Workload::Count => "count",
            Workload::Histogram => "histogram",
            Workload::Saxpy => "saxpy",
            Workload::RowSum => "rowsum",
            Workload::Prefix => "prefix",
            Workload::Stencil => "stencil",
        }
    }

    /// The workload called `name`; the error lists the names.
    pub fn from_name(name: &str) -> Result<Workload, String> {
        Workload::ALL
            .into_iter()
            .find(|w| w.name() == name)
            .ok_or_else(|| {
                let names: Vec<&str> = Workload::ALL.iter().map(|w| w.name()).collect();
                format!(
                    "unknown workload `{name}`; the workloads are {}",
                    names.join(", ")
                )
            })
    }

    /// The MATLAB function's name, which is also its file's stem.
    pub fn function(self) -> String {
        format!("bench_{}", self.name())
    }

    /// The MATLAB source.
    pub fn source(self) -> &'static str {
        match self {
            Workload::Sum => include_str!("../workloads/bench_sum.m"),
            Workload::Max => include_str!("../workloads/bench_max.m"),
            Workload::MinLoc => include_str!("../workloads/bench_minloc.m"),
            Workload::Count => include_str!("../workloads/bench_count.m"),
            Workload::Histogram => include_str!("../workloads/bench_histogram.m"),
            Workload::Saxpy => include_str!("../workloads/bench_saxpy.m"),
            Workload::RowSum => include_str!("../workloads/bench_rowsum.m"),
            Workload::Prefix => include_str!("../workloads/bench_prefix.m"),
            Workload::Stencil => include_str!("../workloads/bench_stencil.m"),
        }
    }

    /// The builtin function's name (its file's stem): what a MATLAB user would call instead of
    /// writing the loop.
    pub fn builtin_function(self) -> String {
        format!("builtin_{}", self.name())
    }

    /// The builtin function's MATLAB source: the same parameters and outputs, the work done
    /// by Octave's vectorized builtins (`sum`, `max`, `min`, `nnz`, `accumarray`, `a * x + y`,
    /// `cumsum`, a vectorized stencil step).
    pub fn builtin_source(self) -> &'static str {
        match self {
            Workload::Sum => include_str!("../workloads/builtin_sum.m"),
            Workload::Max => include_str!("../workloads/builtin_max.m"),
            Workload::MinLoc => include_str!("../workloads/builtin_minloc.m"),
            Workload::Count => include_str!("../workloads/builtin_count.m"),
            Workload::Histogram => include_str!("../workloads/builtin_histogram.m"),
            Workload::Saxpy => include_str!("../workloads/builtin_saxpy.m"),
            Workload::RowSum => include_str!("../workloads/builtin_rowsum.m"),
            Workload::Prefix => include_str!("../workloads/builtin_prefix.m"),
            Workload::Stencil => include_str!("../workloads/builtin_stencil.m"),
        }
    }

    /// The element count of the inputs a program prepared once takes inputs of every size
    /// like: a row of 2 (a row of any length), a row sum's 1024 rows; `None` where the program
    /// is prepared per size (the stencil's grid, whose row count changes).
    pub fn specimen_elements(self) -> Option<usize> {
        match self {
            Workload::Stencil => None,
            Workload::RowSum => Some(4096),
            _ => Some(2),
        }
    }

    /// The inputs by parameter name for rows of `n` elements.
    pub fn inputs(self, n: usize) -> Vec<(String, Value)> {
        let mut rng = StdRng::seed_from_u64(n as u64);
        let named = |name: &str, v: Value| (name.to_string(), v);
        match self {
            Workload::Sum
            | Workload::Max
            | Workload::MinLoc
            | Workload::Count
            | Workload::Prefix => {
                vec![named("x", random_row::<f64>(&mut rng, n))]
            }
            Workload::RowSum => {
                let (rows, cols) = rowsum_shape(n);
                vec![named("A", random_matrix::<f64>(&mut rng, rows, cols))]
            }
            Workload::Stencil => {
                let (rows, cols) = grid_shape(n);
                vec![named("u", random_matrix::<f64>(&mut rng, rows, cols))]
            }
            Workload::Histogram => vec![named("b", random_row::<u8>(&mut rng, n))],
            Workload::Saxpy => vec![
                named("a", Value::scalar(SAXPY_A)),
                named("x", random_row::<f64>(&mut rng, n)),
                named("y", random_row::<f64>(&mut rng, n)),
            ],
        }
    }

    /// Bytes read and written by one call on rows of `n` elements (see the module doc).
    pub fn bytes(self, n: usize) -> u64 {
        let n = n as u64;
        match self {
            Workload::Sum | Workload::Max | Workload::Count => 8 * n + 8,
            Workload::MinLoc => 8 * n + 16,
            Workload::Histogram => n + 256 * 8,
            Workload::Saxpy => 24 * n + 8,
            Workload::RowSum => 8 * n + 8 * rowsum_shape(n as usize).0 as u64,
            Workload::Prefix => 16 * n,
            // Each step reads the grid and writes it.
            Workload::Stencil => STENCIL_STEPS * 16 * n,
        }
    }

    /// How closely m2cu's results must match the hand-written C: exactly, except the sums,
    /// which OpenMP and the GPU add in another order (a row sum's threads each sum some
    /// columns).
    pub fn tolerance(self) -> Tolerance {
        match self {
            Workload::Sum | Workload::RowSum => Tolerance::Relative(1e-12),
            _ => Tolerance::Exact,
        }
    }
}

/// A 1-by-`n` row of uniform values: doubles in [0, 1), or every value of a small integer class.
fn random_row<T>(rng: &mut StdRng, n: usize) -> Value
where
    T: m2cu_runtime::Element,
    rand::distributions::Standard: rand::distributions::Distribution<T>,
{
    random_matrix::<T>(rng, 1, n)
}

/// A `rows`-by-`cols` matrix of uniform values, drawn in column-major order (see
/// [`random_row`]).
pub fn random_matrix<T>(rng: &mut StdRng, rows: usize, cols: usize) -> Value
where
    T: m2cu_runtime::Element,
    rand::distributions::Standard: rand::distributions::Distribution<T>,
{
    let elements = (0..rows * cols).map(|_| rng.gen::<T>()).collect();
    Value::matrix(rows, cols, elements).expect("rows * cols elements make a rows-by-cols value")
}
