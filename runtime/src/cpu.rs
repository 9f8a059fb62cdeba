//! The CPU path: generated C built with the system compiler (OpenMP when available) into a
//! cached shared object, loaded, and called through the m2cu ABI.
//!
//! [`CpuLibrary::call`] trusts the generated entry as the ABI describes it: the inputs must be
//! as many, and of the classes, that the entry was generated for (the ABI carries extents but no
//! counts or classes), and outputs are interpreted in the classes the caller declares.

use std::borrow::Borrow;
use std::path::Path;

use crate::abi::{self, CpuEntry};
pub use crate::abi::{Complexity, Offer, OutputSpec};
pub use crate::native::BuildOptions;
use crate::native::SharedObject;
pub use crate::threads::Threads;
use crate::value::Value;
use crate::Result;

/// `void m2cu_set_threads(int)`.
type SetThreads = unsafe extern "C" fn(std::ffi::c_int);

/// A generated C program, built and loaded, exporting `int <entry>(...)`, `m2cu_release` and
/// (generated programs; not hand-written ones) `m2cu_set_threads`.
pub struct CpuLibrary {
    entry_name: String,
    entry: CpuEntry,
    object: SharedObject,
    set_threads: Option<SetThreads>,
    threads: Threads,
}

impl CpuLibrary {
    /// Builds `source` (or reuses the cached build) and resolves `entry` and `m2cu_release`.
    /// Compiler errors come back as [`Error::Compile`](crate::Error::Compile) with the
    /// compiler's messages.
    pub fn build(source: &str, entry: &str, opts: &BuildOptions) -> Result<CpuLibrary> {
        let object = SharedObject::build(source, entry, opts, opts.optimization)?;
        // SAFETY: the ABI declares the CPU entry with exactly this signature.
        let entry_fn = unsafe { object.function::<CpuEntry>(entry) }?;
        // SAFETY: the ABI declares `void m2cu_set_threads(int)`.
        let set_threads = unsafe { object.function::<SetThreads>("m2cu_set_threads") }.ok();
        Ok(CpuLibrary {
            entry_name: entry.to_string(),
            entry: entry_fn,
            object,
            set_threads,
            threads: Threads::Auto,
        })
    }

    /// The same library, its parallel loops run by `threads` ([`Threads::Auto`] unless set).
    pub fn with_threads(self, threads: Threads) -> CpuLibrary {
        CpuLibrary { threads, ..self }
    }

    /// Runs the entry on `inputs` (in parameter order) and returns its outputs, one per spec.
    /// An error reported by the generated code is [`Error::Call`](crate::Error::Call) with its
    /// message.
    pub fn call<V: Borrow<Value>>(
        &self,
        inputs: &[V],
        outputs: &[OutputSpec],
    ) -> Result<Vec<Value>> {
        self.set_team();
        abi::invoke(
            inputs,
            outputs,
            self.object.release_fn(),
            |ins, outs, err, len| {
                // SAFETY: pointers come from `invoke`, sized for the inputs and outputs given.
                unsafe { (self.entry)(ins, outs, err, len) }
            },
        )
    }

    /// [`CpuLibrary::call`] on inputs the caller offers: each [`Offer`]ed output may be
    /// computed in its input's memory (`function y = f(a, x, y)` updates `y` in place), which
    /// then comes back as that output with no copy, leaving [`Value::taken`] in `inputs`; an
    /// offered input the entry did not take may have changed.
    pub fn call_given(
        &self,
        inputs: &mut [Value],
        offers: &[Offer],
        outputs: &[OutputSpec],
    ) -> Result<Vec<Value>> {
        self.set_team();
        let release = self.object.release_fn();
        abi::invoke_given(inputs, offers, outputs, release, |ins, outs, err, len| {
            // SAFETY: pointers come from `invoke_given`, sized for the inputs and outputs given.
            unsafe { (self.entry)(ins, outs, err, len) }
        })
    }

    /// Sets the team size of the calling thread's next calls from `self.threads`.
    fn set_team(&self) {
        if let Some(set_threads) = self.set_threads {
            let team =
                std::ffi::c_int::try_from(self.threads.team()).unwrap_or(std::ffi::c_int::MAX);
            // SAFETY: the generated prelude defines it with this signature; it only sets
            // OpenMP's team size for the calling thread.
            unsafe { set_threads(team) };
        }
    }

    /// The entry function's name.
    pub fn entry(&self) -> &str {
        &self.entry_name
    }

    /// The shared object in the cache.
    pub fn path(&self) -> &Path {
        self.object.path()
    }
}

#[cfg(test)]
mod tests;
