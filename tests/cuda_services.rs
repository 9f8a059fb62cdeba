//! The GPU path of MEX functions outside Octave: the services over the CUDA driver API and
//! NVRTC that a MEX function includes (`m2cu_cuda.c`, both libraries loaded at run time, the
//! kernels compiled on the first call and cached as a CUBIN), with a fixture's GPU program,
//! built into a library whose entry calls `m2cu_cuda_call` as the gateway does, called through
//! the C ABI and compared with Octave's stored outputs. A kernel's index error keeps the same
//! message as on the runtime's GPU path, its bound from the failing thread.
//!
//! On a GPU machine the real driver runs them. Elsewhere a stand-in driver
//! (`tests/cuda_services/driver.c`, through `$M2CU_CUDA_DRIVER`) keeps device memory in host
//! memory and runs the kernels on the emulator, after checking that the module is NVRTC's
//! CUBIN: the same services code, the same NVRTC compile and cache, the same argument arrays.
//! A sample of the fixtures runs (`M2CU_CUDA_SERVICES_ALL=1`: all).
//! Needs libnvrtc, a C and a C++ compiler; skips without libnvrtc, fails under `CI=true`.

mod common;

use std::path::{Path, PathBuf};

use m2cu::{Translation, Value};
use m2cu_runtime::{BuildOptions, CpuLibrary, OutputSpec};

/// The entry the test library exports: the gateway's GPU call with no fallback.
const ENTRY: &str = "m2cu_services_call";

/// The library of `t`'s GPU program with the services and its kernels; its entry returns the
/// status, M2CU_E_GPU with a service's failure, or 99 with why the GPU path cannot run.
fn services_library(t: &Translation) -> CpuLibrary {
    let g = &t.generated;
    let source = format!(
        "{}\n{}\n{}\nint {ENTRY}(const m2cu_array *in, m2cu_array *out, char *err, size_t len)\n{{\n    int status = m2cu_cuda_call({}_gpu, m2cu_mex_kernels, in, out, err, len);\n    return status == -1 ? 99 : status;\n}}\n",
        g.gpu_host_c,
        m2cu_codegen::mex::CUDA_SERVICES,
        m2cu_codegen::mex::kernels_source(&g.kernels_cu),
        g.entry
    );
    CpuLibrary::build(&source, ENTRY, &BuildOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", t.entry))
}

/// Where the driver comes from: the machine's, or the stand-in built into `dir`.
enum Driver {
    Real,
    StandIn,
}

impl Driver {
    fn choose(dir: &Path) -> Driver {
        if let m2cu_runtime::GpuStatus::Available { name, .. } = m2cu_runtime::gpu_status() {
            eprintln!("the CUDA driver of {name}");
            return Driver::Real;
        }
        std::env::set_var("M2CU_CUDA_DRIVER", common::stand_in_driver(dir));
        Driver::StandIn
    }

    /// Before a call of `t`'s library: the stand-in runs `t`'s kernels on the emulator.
    fn prepare(&self, t: &Translation) {
        if let Driver::StandIn = self {
            let g = &t.generated;
            let kernels = m2cu_runtime::emu::kernel_library(
                &g.kernels_cu,
                &g.kernel_names,
                &g.entry,
                &BuildOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{}: {e}", t.entry));
            std::env::set_var("M2CU_EMU_KERNELS", kernels);
        }
    }
}

/// Fixture `name`'s stored inputs in the order of the entry's parameters.
fn in_parameter_order(name: &str, t: &Translation) -> Vec<Value> {
    let stored = common::inputs(name);
    t.params
        .iter()
        .map(|p| {
            let (_, v) = stored.iter().find(|(n, _)| n == p).expect("a stored input");
            v.clone()
        })
        .collect()
}

fn specs(t: &Translation) -> Vec<OutputSpec> {
    t.outputs
        .iter()
        .map(|(name, class)| OutputSpec::new(name.clone(), *class))
        .collect()
}

/// The e2e fixtures whose programs have kernels and real outputs (the gateway's complex
/// outputs are the MEX tests' part): every seventh, unless all are asked for.
fn fixtures() -> Vec<(String, Translation)> {
    let all = std::env::var_os("M2CU_CUDA_SERVICES_ALL").is_some();
    common::e2e_fixtures()
        .into_iter()
        .map(|name| {
            let t = common::translate_fixture(&name);
            (name, t)
        })
        .filter(|(_, t)| !t.generated.kernel_names.is_empty() && t.complex_outputs.is_empty())
        .enumerate()
        .filter(|(k, _)| all || k % 7 == 0)
        .map(|(_, f)| f)
        .collect()
}

#[test]
fn the_mex_gpu_path_runs_every_fixture_as_octave() {
    if !common::require(m2cu_runtime::nvrtc_available(), "libnvrtc") {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let cache = dir.path().join("cache");
    std::env::set_var("M2CU_CACHE_DIR", &cache);
    let driver = Driver::choose(dir.path());
    let fixtures = fixtures();
    assert!(fixtures.len() >= 8, "{} fixtures", fixtures.len());
    let mut failures = Vec::new();
    for (name, t) in &fixtures {
        driver.prepare(t);
        let lib = services_library(t);
        match lib.call(&in_parameter_order(name, t), &specs(t)) {
            Ok(values) => {
                let actual: Vec<(String, Value)> = t
                    .outputs
                    .iter()
                    .map(|(n, _)| n.clone())
                    .zip(values)
                    .collect();
                failures.extend(common::mismatches_in(
                    name,
                    &actual,
                    common::gpu_comparison(name),
                ));
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // Each program's kernels were compiled once, into the cache.
    let cubins: Vec<PathBuf> = std::fs::read_dir(&cache)
        .expect("the cache folder")
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cubin"))
        .collect();
    assert_eq!(cubins.len(), fixtures.len(), "{cubins:?}");
    a_kernel_index_error_keeps_its_message(&driver);
}

/// A subscript past the end in a kernel, through the services: MATLAB's message with the
/// bound the failing thread kept, as the runtime's GPU path gives it.
fn a_kernel_index_error_keeps_its_message(driver: &Driver) {
    const SOURCE: &str = "function y = kernelsites(x, s)
y = zeros(size(x));
for i = 1:numel(x)
  y(i) = 2 * x(i + s);
end
end
";
    let options = m2cu::Options {
        file_name: "kernelsites.m".into(),
        args: vec!["x=double(1,:)".into(), "s=double".into()],
        ..Default::default()
    };
    let t = m2cu::translate(SOURCE, &options).expect("translates");
    driver.prepare(&t);
    let lib = services_library(&t);
    let inputs = [Value::row(vec![1.0; 3000]), Value::scalar(1.0)];
    match lib.call(&inputs, &specs(&t)) {
        Err(m2cu_runtime::Error::Call(e)) => {
            assert_eq!(
                e.message,
                "Index exceeds the number of array elements. Index must not exceed 3000. (`x(i + s)` at kernelsites.m:4:14)"
            );
            let subscript = e
                .location
                .and_then(|at| at.subscript)
                .expect("the subscript");
            assert_eq!(
                (subscript.value, subscript.bound, subscript.in_order),
                (Some(3001.0), Some(3000), false)
            );
        }
        other => panic!("not the index error: {other:?}"),
    }
}
