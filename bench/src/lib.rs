//! m2cu-bench: times m2cu's generated C (and its GPU path when there is a GPU) against
//! hand-written C and GNU Octave's interpreter on six loop workloads (sum, max, minloc, count,
//! a 256-bin histogram, saxpy) over rows of 2^k elements, and reports a markdown table.
//!
//! [`run`] takes a [`Config`] and returns a [`Report`]; the `m2cu-bench` binary is a command
//! line around them. Modules, one concern each: [`workloads`] (sources, inputs, bytes moved),
//! [`handwritten`] (the C baseline), [`translated`] (m2cu's programs), [`guard`] (results must
//! agree before anything is timed), [`timing`] (warm-up and median), [`octave`] (the
//! interpreter's column), [`machine`] (header facts), [`report`] (the table), [`runner`] (the
//! order of it all). Separately, [`translate`] measures translation throughput (MB/s of MATLAB),
//! and [`matmul`] (`m2cu-bench --matmul`) times the matrix products `A * B` and `A * x` on
//! m2cu's C path (and GPU) against the system BLAS ([`blas`]: `dgemm_`, `dgemv_`).

pub mod blas;
pub mod config;
pub mod guard;
pub mod handwritten;
pub mod machine;
pub mod matmul;
pub mod octave;
pub mod report;
pub mod runner;
pub mod timing;
pub mod translate;
pub mod translated;
pub mod workloads;

pub use config::Config;
pub use report::{Cell, Report, Row};
pub use runner::run;
pub use workloads::Workload;
