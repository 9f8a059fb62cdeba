//! m2cu's side of the benchmark: a workload translated and built once per backend with
//! [`m2cu::Program::prepare`], then called on each size's inputs.
//!
//! What is timed is `Program::call`, the library API a user calls, not the generated code
//! alone: on the C path that includes the call's ABI work (the inputs are put in parameter
//! order, copying them; the outputs are copied back into Rust values); on the GPU it also
//! includes the uploads, the kernels and the downloads, hence the column's name "GPU call incl.
//! transfers". [`kernel_ms`] is the GPU's other column: `Program::call_timed`'s kernel time, the
//! sum of every launch of the call (kernels and their merges) measured with CUDA events, the
//! transfers left out; `bench/gpu/cupy_bench.py` times CuPy the same way on the device.
//!
//! Invariants: programs are prepared from length-2 specimens, so they take rows of any length;
//! the GPU program exists exactly when the machine has a usable GPU.

use m2cu::{Backend, Options, Program, RunOptions, Value};

use crate::workloads::Workload;

/// A workload's programs.
pub struct Translated {
    pub cpu: Program,
    pub gpu: Option<Program>,
}

impl Translated {
    /// Translates and builds `workload` for the C path, and for the GPU when `gpu` is set.
    pub fn prepare(workload: Workload, gpu: bool) -> Result<Translated, String> {
        let prepare = |backend: Backend| {
            let options = Options {
                file_name: format!("bench/workloads/{}.m", workload.function()),
                ..Options::default()
            };
            let run_options = RunOptions {
                backend,
                ..RunOptions::default()
            };
            Program::prepare(
                workload.source(),
                &workload.inputs(2),
                &options,
                &run_options,
            )
            .map_err(|e| format!("{} ({backend:?} backend): {e}", workload.name()))
        };
        Ok(Translated {
            cpu: prepare(Backend::Cpu)?,
            gpu: if gpu {
                Some(prepare(Backend::Gpu)?)
            } else {
                None
            },
        })
    }

    /// The entry's parameters, in order.
    pub fn params(&self) -> &[String] {
        &self.cpu.translation().params
    }

    /// How many outputs the entry has.
    pub fn output_count(&self) -> usize {
        self.cpu.translation().outputs.len()
    }
}

/// One call of `program`, its error as a message naming `what`.
pub fn call(
    program: &Program,
    what: &str,
    inputs: &[(String, Value)],
) -> Result<Vec<(String, Value)>, String> {
    program.call(inputs).map_err(|e| format!("{what}: {e}"))
}

/// One timed call of the GPU `program`: its kernels' time on the device in milliseconds.
pub fn kernel_ms(program: &Program, what: &str, inputs: &[(String, Value)]) -> Result<f64, String> {
    let (_, timing) = program
        .call_timed(inputs)
        .map_err(|e| format!("{what}: {e}"))?;
    timing
        .kernels
        .map(|time| time.as_secs_f64() * 1e3)
        .ok_or_else(|| format!("{what}: the {} backend times no kernels", program.backend()))
}
