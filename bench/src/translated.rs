//! m2cu's side of the benchmark: a workload translated and built once per backend with
//! [`m2cu::Program::prepare`], then called on each size's inputs.
//!
//! What is timed is `Program::call`, the library API a user calls, not the generated code
//! alone: on the C path that includes the call's ABI work (the inputs are put in parameter
//! order; the outputs are copied back into Rust values unless computed in an input's memory,
//! see [`Translated::time_cpu`]); on the GPU it also
//! includes the uploads, the kernels and the downloads, hence the column's name "GPU call incl.
//! transfers". [`kernel_ms`] is the GPU's other column: `Program::call_timed`'s kernel time, the
//! sum of every launch of the call (kernels and their merges) measured with CUDA events, the
//! transfers left out; `bench/gpu/cupy_bench.py` times CuPy the same way on the device.
//!
//! Invariants: the loop workloads' programs are prepared from specimens (rows of length 2, a
//! 1024-row matrix) that make them take inputs of any size (a matrix input's type fixes its row
//! count, so the stencil's grid and the matrix products are prepared per size, see
//! `crate::matmul`); the GPU program exists exactly when the machine has
//! a usable GPU; [`Translated::check`] compares both programs' results with the baseline's.

use std::time::Instant;

use m2cu::{Backend, Options, Program, RunOptions, Value};

use crate::guard::{self, Tolerance};
use crate::report::Cell;
use crate::timing::{median_ms, median_reported_ms};
use crate::workloads::Workload;

/// A workload's programs.
pub struct Translated {
    pub cpu: Program,
    pub gpu: Option<Program>,
}

impl Translated {
    /// Translates and builds `workload` for the C path, and for the GPU when `gpu` is set.
    /// Translates and builds `workload` for inputs of `n` elements (any `n` for the
    /// workloads whose [`Workload::specimen_elements`] is fixed).
    pub fn prepare(workload: Workload, n: usize, gpu: bool) -> Result<Translated, String> {
        let specimen = workload.inputs(workload.specimen_elements().unwrap_or(n));
        Translated::prepare_source(&workload.function(), workload.source(), &specimen, gpu)
    }

    /// Translates and builds the MATLAB function `function` (the file
    /// `bench/workloads/FUNCTION.m`, whose text is `source`) for inputs like `specimen`, for the
    /// C path, and for the GPU when `gpu` is set.
    pub fn prepare_source(
        function: &str,
        source: &str,
        specimen: &[(String, Value)],
        gpu: bool,
    ) -> Result<Translated, String> {
        let prepare = |backend: Backend| {
            let options = Options {
                file_name: format!("bench/workloads/{function}.m"),
                ..Options::default()
            };
            let run_options = RunOptions {
                backend,
                ..RunOptions::default()
            };
            Program::prepare(source, specimen, &options, &run_options)
                .map_err(|e| format!("{function} ({backend:?} backend): {e}"))
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

    /// The correctness guard on `inputs`: the C path's outputs, and the GPU's when there is a
    /// GPU program, must equal `want` (the outputs of `baseline`, e.g. "the hand-written C")
    /// within `tolerance`. Returns the C path's largest relative difference; `what` names a path
    /// (`m2cu C`, `m2cu GPU`) with the workload and size for the messages.
    pub fn check(
        &self,
        what: impl Fn(&str) -> String,
        inputs: &[(String, Value)],
        baseline: &str,
        want: &[Value],
        tolerance: Tolerance,
    ) -> Result<f64, String> {
        let cpu_what = what("m2cu C");
        let got = call(&self.cpu, &cpu_what, inputs)?;
        let difference = guard::compare_to(&cpu_what, baseline, &got, want, tolerance)?;
        if let Some(gpu) = &self.gpu {
            let gpu_what = what("m2cu GPU");
            let got = call(gpu, &gpu_what, inputs)?;
            guard::compare_to(&gpu_what, baseline, &got, want, tolerance)?;
        }
        Ok(difference)
    }

    /// The C path's median `Program::call` time over `runs` timed runs, in milliseconds. A
    /// workload whose output is also an input (`y = saxpy(a, x, y)`) gives each call a copy of
    /// `inputs` made before the clock starts, so `y` is updated in place as the hand-written
    /// loop does; the others lend `inputs` (a fresh copy per run would also move the data in
    /// memory from run to run, which makes some loops' times jump). Outputs are dropped after
    /// the clock stops.
    pub fn time_cpu(
        &self,
        what: &str,
        inputs: &[(String, Value)],
        runs: usize,
    ) -> Result<f64, String> {
        let in_place = self.cpu.has_in_place_outputs();
        median_reported_ms(runs, || {
            let mut given = match in_place {
                true => inputs.to_vec(),
                false => Vec::new(),
            };
            let start = Instant::now();
            let outputs = match in_place {
                true => self.cpu.call(&mut given),
                false => self.cpu.call(inputs),
            };
            let outputs = outputs.map_err(|e| format!("{what}: {e}"))?;
            let ms = start.elapsed().as_secs_f64() * 1e3;
            drop(outputs);
            Ok(ms)
        })
    }

    /// The GPU columns over `runs` timed runs: the median `Program::call` (transfers included)
    /// and the median kernel time ([`kernel_ms`]); both `no device` without a GPU program.
    pub fn time_gpu(
        &self,
        what: &str,
        inputs: &[(String, Value)],
        runs: usize,
    ) -> Result<(Cell, Cell), String> {
        let Some(gpu) = &self.gpu else {
            return Ok((Cell::NoDevice, Cell::NoDevice));
        };
        let call_ms = median_ms(runs, || call(gpu, what, inputs).map(drop))?;
        let kernels = median_reported_ms(runs, || kernel_ms(gpu, what, inputs))?;
        Ok((Cell::Ms(call_ms), Cell::Ms(kernels)))
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
