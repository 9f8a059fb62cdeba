//! m2cu runtime: runs the text m2cu generates, and moves MATLAB values in and out.
//!
//! The runtime takes generated artifacts (C source, CUDA source, kernel names), never the IR
//! (of the frontend it uses only the table of run-time error codes):
//!
//! - [`value`]: MATLAB values — [`ClassId`], column-major [`Data`], 2-D or 3-D [`Value`].
//! - [`mat`]: MAT-file version 5 read and write (`save -v6` / `save -v7` files).
//! - [`mod@display`]: a value printed like MATLAB's command window (`format short`).
//! - [`cpu`]: the CPU path — generated C built into a shared object ([`CpuLibrary`]), with the
//!   compile cache shared by the GPU host library.
//! - [`nvrtc`]: CUDA source → CUBIN or PTX with NVRTC, no GPU needed.
//! - [`emu`]: the GPU path on CPU threads ([`EmuProgram`]): the kernels as C++ behind a shim of
//!   the CUDA execution model, driven by the same host program; for testing without a GPU.
//! - [`octave`]: GNU Octave as the oracle, many calls answered in one session.
//! - [`limits`]: caps on what inputs may allocate and on file reads, with errors naming them.
//! - [`CallError`]: a run-time error of generated code, with its [`ErrorCode`] and its place.
//! - [`isolate`]: running work that calls generated code in a forked child.
//! - [`gpu`]: device probe ([`gpu_status`]) and the GPU path ([`GpuProgram`]): CUBIN loaded with
//!   the CUDA driver, generated host C driving it through the `m2cu_gpu` callback table.
//!
//! Invariants:
//! - A [`Value`] has two extents, or three with a third that is not 1, whose product is its
//!   element count.
//! - Values cross into generated code as `m2cu_array` (see `codegen/src/c/m2cu_abi.h`): a
//!   pointer to column-major elements in the class's C type, and `int64_t dims[3]` (rows,
//!   columns, pages; pages is 1 for a 2-D value) — ABI version 3. Output
//!   memory allocated by generated code is copied into Rust and handed back to `m2cu_release`
//!   (every non-NULL `outputs[k].data`, after a failed call too), except an output computed in
//!   the memory of an input the caller offered ([`CpuLibrary::call_given`]), which becomes that
//!   input's value with no copy.
//! - Builds (shared objects, CUBINs) live in a cache directory under a SHA-256 of everything
//!   that determines them, and appear there by atomic rename. Loaded shared objects are never
//!   unloaded (closing an OpenMP library can unload libgomp under its worker threads).
//! - Nothing here panics on a missing tool: the CUDA driver and libnvrtc are probed before any
//!   other call (cudarc panics when a library is absent), and a missing compiler, libnvrtc or
//!   GPU is reported as an [`Error`].

pub mod cpu;
pub mod display;
pub mod emu;
pub mod gpu;
pub mod isolate;
pub mod limits;
pub mod mat;
pub mod nvrtc;
pub mod octave;
pub mod value;

mod abi;
mod cache;
mod call_error;
mod native;
mod npy;
mod probe;
mod services;
#[cfg(test)]
mod testutil;
mod threads;

pub use call_error::{CallError, ErrorCode, Location, Subscript};
pub use cpu::{BuildOptions, Complexity, CpuLibrary, Offer, OutputSpec, Threads};
pub use display::display;
pub use emu::{EmuOptions, EmuProgram, Lanes, Schedule};
pub use gpu::{gpu_status, GpuProgram, GpuStatus};
pub use mat::{read_mat, read_mat_bytes, write_mat, write_mat_bytes, MatFormat};
pub use native::Optimization;
pub use npy::{read_npy, read_npy_bytes, read_npz, write_npy, write_npy_bytes, write_npz};
pub use nvrtc::{compile_cubin, compile_ptx, nvrtc_available, nvrtc_version};
pub use services::{Copies, Transfers};
pub use value::{ClassId, Data, Element, Value};

/// Everything that can go wrong in the runtime.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A value's class, shape or element count does not fit what was asked.
    #[error("{0}")]
    Value(String),
    /// A MAT-file is malformed or holds something m2cu does not read.
    #[error("{0}")]
    Mat(String),
    /// A file-system or process operation failed.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
    /// The C compiler rejected generated code; `stderr` is what it printed.
    #[error("C compilation failed: {command}\n{stderr}")]
    Compile { command: String, stderr: String },
    /// A built library could not be loaded, or lacks a symbol it must export.
    #[error("{0}")]
    Load(String),
    /// Generated code stopped with a run-time error: MATLAB's message where MATLAB has one,
    /// with the place in the source that raised it.
    #[error("{0}")]
    Call(Box<CallError>),
    /// Generated code returned an output m2cu cannot read (negative extents, a size past
    /// memory, a NULL buffer): a bug to report.
    #[error("{0}")]
    Output(String),
    /// The program called `error` (or an `assert` failed): its message, formatted as MATLAB
    /// formats it, and its identifier (`error('pkg:id', ...)`), empty when it has none.
    #[error("{message}")]
    Raised { identifier: String, message: String },
    /// NVRTC rejected the CUDA source; `log` is the program log.
    #[error("NVRTC compilation of {name} for {arch} failed: {message}\n{log}")]
    Nvrtc {
        name: String,
        arch: String,
        message: String,
        log: String,
    },
    /// A CUDA driver call failed.
    #[error("{0}")]
    Cuda(String),
    /// A tool the operation needs is not installed here (libnvrtc, the CUDA driver, a GPU).
    #[error("{0}")]
    Unavailable(String),
    /// An option is outside what it can be (e.g. an emulated device without multiprocessors).
    #[error("{0}")]
    Options(String),
}

/// The runtime's result type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    pub(crate) fn io(context: impl Into<String>, source: std::io::Error) -> Error {
        Error::Io {
            context: context.into(),
            source,
        }
    }
}
