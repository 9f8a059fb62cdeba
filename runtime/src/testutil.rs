//! Test helpers: skipping when a tool is missing (failing instead under `CI=true`), running GNU
//! Octave, and a sample CUDA kernel.

use std::path::Path;

/// True when the tool is usable. Otherwise prints why the test is skipped and returns false —
/// or panics when `CI=true`, where every tool the tests use must be installed.
pub fn tool_available(test: &str, probe: Result<(), String>) -> bool {
    match probe {
        Ok(()) => true,
        Err(reason) if std::env::var("CI").as_deref() == Ok("true") => {
            panic!("{test}: required under CI=true, but {reason}")
        }
        Err(reason) => {
            eprintln!("skipping {test}: {reason}");
            false
        }
    }
}

/// Whether `octave-cli` runs.
pub fn octave_probe() -> Result<(), String> {
    crate::octave::available().map(drop)
}

/// Runs `script` with `octave-cli` in `dir` and returns its standard output; panics with
/// Octave's output when it fails.
pub fn octave(dir: &Path, script: &str) -> String {
    crate::octave::eval(dir, script).unwrap_or_else(|e| panic!("{e}\nscript:\n{script}"))
}

/// A warp-shuffle reduction finished with `atomicAdd(double*, double)` (sm_60+).
pub const SUM_KERNEL: &str = r#"
extern "C" __global__ void sum_kernel(const double *x, long long n, double *out) {
    double acc = 0.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        acc += x[i];
    }
    for (int offset = 16; offset > 0; offset /= 2) {
        acc += __shfl_down_sync(0xffffffffu, acc, offset);
    }
    if ((threadIdx.x & 31) == 0) {
        atomicAdd(out, acc);
    }
}
"#;
