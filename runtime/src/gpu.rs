//! The GPU path: device probe, kernels compiled by NVRTC and loaded with the CUDA driver, and
//! the generated host C driving them through the `m2cu_gpu` callback table.
//!
//! [`gpu_status`] never panics: before any driver call it checks that the driver library loads
//! and exports every driver function m2cu calls (cudarc panics otherwise), then runs `cuInit`
//! and looks at device 0.
//!
//! [`GpuProgram::load`] takes the generated artifacts:
//! 1. retains device 0's primary context and creates one stream;
//! 2. compiles the kernels with NVRTC to a CUBIN for the device (`sm_{major}{minor}`), cached on
//!    disk by source, architecture and NVRTC version, and loads it with `cuModuleLoadData`; if
//!    that fails it compiles PTX for `compute_{major}{minor}` and lets the driver JIT it;
//! 3. resolves every kernel by name (kernels must be `extern "C"`);
//! 4. builds the host C with the CPU path's compiler and cache, and resolves `<entry>_gpu`.
//!
//! [`GpuProgram::call`] runs `<entry>_gpu` with a callback table over that context and stream
//! (see `gpu/callbacks.rs`), synchronizes the stream, frees any device memory the host code left
//! allocated, and reports the first failed driver call by its CUDA error name.
//! [`GpuProgram::call_timed`] does the same and also returns the summed time of the call's
//! kernels, measured with CUDA events around each launch (see `gpu/timer.rs`).

use std::borrow::Borrow;
mod callbacks;
mod timer;

use std::cell::RefCell;
use std::ffi::CString;
use std::time::Duration;

use cudarc::driver::result::{self as cu, DriverError};
use cudarc::driver::sys;

use crate::abi::{GpuEntry, OutputSpec};
use crate::native::{BuildOptions, SharedObject};
use crate::value::Value;
use crate::{cache, nvrtc, services, Error, Result};
use callbacks::GpuState;
use timer::KernelTimer;

/// Whether a CUDA GPU can be used here.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuStatus {
    /// Device 0 is usable.
    Available {
        name: String,
        /// (major, minor), e.g. (9, 0) for an H100.
        compute_capability: (i32, i32),
        sm_count: i32,
        /// The driver's CUDA version, e.g. (13, 0).
        driver_version: (i32, i32),
    },
    /// Why not (no driver library, no device, cuInit failed).
    Unavailable(String),
}

/// Probes the CUDA driver and device 0 without panicking.
pub fn gpu_status() -> GpuStatus {
    match Device::open() {
        Ok(d) => GpuStatus::Available {
            name: d.name,
            compute_capability: d.compute_capability,
            sm_count: d.sm_count,
            driver_version: d.driver_version,
        },
        Err(e) => GpuStatus::Unavailable(e.to_string()),
    }
}

/// `"cuCall: CUDA_ERROR_NAME (description)"`.
pub(crate) fn cuda_error(call: &str, e: DriverError) -> String {
    let name = e
        .error_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("CUDA error {}", e.0 as i32));
    match e.error_string() {
        Ok(text) => format!("{call}: {name} ({})", text.to_string_lossy()),
        Err(_) => format!("{call}: {name}"),
    }
}

/// Device 0 after `cuInit`.
struct Device {
    handle: sys::CUdevice,
    name: String,
    compute_capability: (i32, i32),
    sm_count: i32,
    driver_version: (i32, i32),
}

/// The driver functions m2cu calls (cudarc resolves each on its first call, and panics if the
/// library lacks it).
const DRIVER_FUNCTIONS: [&str; 24] = [
    "cuInit",
    "cuDriverGetVersion",
    "cuGetErrorName",
    "cuGetErrorString",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxSetCurrent",
    "cuStreamCreate",
    "cuStreamDestroy_v2",
    "cuStreamSynchronize",
    "cuModuleLoadData",
    "cuModuleUnload",
    "cuModuleGetFunction",
    "cuModuleGetGlobal_v2",
    "cuFuncSetAttribute",
    "cuLaunchKernel",
    "cuMemAlloc_v2",
    "cuMemFree_v2",
    "cuMemcpyHtoDAsync_v2",
    "cuMemcpyDtoHAsync_v2",
];

/// Checks that the driver library cudarc will load (the first of its candidate names that
/// opens) exists and exports every function in [`DRIVER_FUNCTIONS`]; a stub or foreign
/// `libcuda.so` is reported as unavailable instead of panicking inside cudarc.
fn probe_driver_library() -> Result<()> {
    let opened = ["cuda", "nvcuda"]
        .into_iter()
        .flat_map(cudarc::get_lib_name_candidates)
        .find_map(|name| {
            // SAFETY: only dlopens the library, as cudarc would.
            let library = unsafe { libloading::Library::new(&name) }.ok()?;
            Some((name, library))
        });
    let Some((name, library)) = opened else {
        return Err(Error::Unavailable(
            "no CUDA driver (libcuda.so) on this machine".into(),
        ));
    };
    let missing: Vec<&str> = DRIVER_FUNCTIONS
        .into_iter()
        // SAFETY: only looks the symbol up; nothing is called.
        .filter(|f| unsafe { library.get::<*const ()>(f.as_bytes()) }.is_err())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    let more = match missing.len() {
        1 => String::new(),
        n => format!(" and {} other driver functions m2cu calls", n - 1),
    };
    Err(Error::Unavailable(format!(
        "the CUDA driver library {name} is not usable: it lacks {}{more}",
        missing[0]
    )))
}

impl Device {
    fn open() -> Result<Device> {
        probe_driver_library()?;
        let fail = |call: &str, e| Error::Unavailable(cuda_error(call, e));
        cu::init().map_err(|e| fail("cuInit", e))?;
        let count = cu::device::get_count().map_err(|e| fail("cuDeviceGetCount", e))?;
        if count == 0 {
            return Err(Error::Unavailable("the CUDA driver sees no device".into()));
        }
        let handle = cu::device::get(0).map_err(|e| fail("cuDeviceGet", e))?;
        let name = cu::device::get_name(handle).map_err(|e| fail("cuDeviceGetName", e))?;
        let attribute = |a| {
            // SAFETY: `handle` came from cuDeviceGet.
            unsafe { cu::device::get_attribute(handle, a) }
                .map_err(|e| fail("cuDeviceGetAttribute", e))
        };
        use sys::CUdevice_attribute::*;
        let major = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
        let minor = attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
        let sm_count = attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
        let mut version = 0;
        // SAFETY: the driver is initialized; the out-pointer is valid.
        unsafe { sys::cuDriverGetVersion(&mut version) }
            .result()
            .map_err(|e| fail("cuDriverGetVersion", e))?;
        Ok(Device {
            handle,
            name,
            compute_capability: (major, minor),
            sm_count,
            driver_version: (version / 1000, version % 1000 / 10),
        })
    }
}

/// Generated kernels and host code, loaded on device 0 and ready to call.
pub struct GpuProgram {
    entry_name: String,
    entry: GpuEntry,
    host: SharedObject,
    // Its address is `m2cu_gpu.ctx` during a call; `&self` keeps it in place meanwhile.
    state: RefCell<GpuState>,
}

impl GpuProgram {
    /// Compiles and loads `kernels_cu` (whose `extern "C"` kernels are `kernel_names`), builds
    /// `host_c` (which exports `<entry>_gpu` and `m2cu_release`), and binds them together.
    pub fn load(
        kernels_cu: &str,
        kernel_names: &[String],
        host_c: &str,
        entry: &str,
        opts: &BuildOptions,
    ) -> Result<GpuProgram> {
        let device = Device::open()?;
        let mut state = GpuState::open(device.handle, device.sm_count)?;
        let (major, minor) = device.compute_capability;
        state.module = load_module(kernels_cu, major, minor, opts, &device)?;
        for name in kernel_names {
            state.resolve(name)?;
        }
        let host = SharedObject::build(host_c, entry, opts, opts.optimization)?;
        let symbol = format!("{entry}_gpu");
        // SAFETY: the ABI declares the GPU entry with exactly this signature.
        let entry_fn = unsafe { host.function::<GpuEntry>(&symbol) }?;
        Ok(GpuProgram {
            entry_name: entry.to_string(),
            entry: entry_fn,
            host,
            state: RefCell::new(state),
        })
    }

    /// Runs `<entry>_gpu` on `inputs` and returns its outputs, one per spec. A failed driver
    /// call inside is [`Error::Cuda`] naming the call and the CUDA error; an error reported by
    /// the host code itself is [`Error::Call`].
    pub fn call<V: Borrow<Value>>(
        &self,
        inputs: &[V],
        outputs: &[OutputSpec],
    ) -> Result<Vec<Value>> {
        self.call_with(inputs, outputs, None)
    }

    /// [`GpuProgram::call`], also returning the summed time of the call's kernels on the device
    /// (CUDA events around each launch: the kernels and their merges, not the transfers).
    pub fn call_timed<V: Borrow<Value>>(
        &self,
        inputs: &[V],
        outputs: &[OutputSpec],
    ) -> Result<(Vec<Value>, Duration)> {
        let values = self.call_with(inputs, outputs, Some(KernelTimer::default()))?;
        let time = self.state.borrow().kernel_time().unwrap_or_default();
        Ok((values, time))
    }

    /// The copies between host and device memory of the last call.
    pub fn last_transfers(&self) -> crate::Transfers {
        self.state.borrow().transfers
    }

    fn call_with<V: Borrow<Value>>(
        &self,
        inputs: &[V],
        outputs: &[OutputSpec],
        timer: Option<KernelTimer>,
    ) -> Result<Vec<Value>> {
        let mut state = self.state.borrow_mut();
        state.begin_call(timer)?;
        services::call_entry(
            self.entry,
            self.host.release_fn(),
            &mut *state,
            inputs,
            outputs,
            GpuState::end_call,
        )
    }

    /// The entry's name (without the `_gpu` suffix).
    pub fn entry(&self) -> &str {
        &self.entry_name
    }
}

/// Loads the kernels as a CUBIN for `sm_XY`, falling back to PTX for `compute_XY`.
fn load_module(
    source: &str,
    major: i32,
    minor: i32,
    opts: &BuildOptions,
    device: &Device,
) -> Result<sys::CUmodule> {
    let cubin = cached_cubin(source, &format!("sm_{major}{minor}"), opts);
    let cubin_error = match cubin.and_then(|image| load_image(&image)) {
        Ok(module) => return Ok(module),
        Err(e) => e,
    };
    let ptx = nvrtc::compile_ptx(source, &format!("compute_{major}{minor}"), "kernels")?;
    let mut image = ptx.into_bytes();
    image.push(0);
    load_image(&image).map_err(|ptx_error| {
        let (dmaj, dmin) = device.driver_version;
        Error::Cuda(format!(
            "cannot load the kernels on {} (sm_{major}{minor}, driver CUDA {dmaj}.{dmin}): \
             as CUBIN: {cubin_error}; as PTX: {ptx_error}",
            device.name
        ))
    })
}

/// The CUBIN for `arch`, from the cache or freshly compiled.
fn cached_cubin(source: &str, arch: &str, opts: &BuildOptions) -> Result<Vec<u8>> {
    let (major, minor) = nvrtc::nvrtc_version()?;
    let dir = cache::cache_dir(opts.cache_dir.as_deref())?;
    let version = format!("nvrtc {major}.{minor}");
    let options = nvrtc::OPTIONS.join(" ");
    let key = cache::key(&[
        source.as_bytes(),
        arch.as_bytes(),
        version.as_bytes(),
        options.as_bytes(),
    ]);
    let path = cache::cached(&dir, &format!("{key}.cubin"), |scratch| {
        let out = scratch.join("kernels.cubin");
        let cubin = nvrtc::compile_cubin(source, arch, "kernels")?;
        std::fs::write(&out, cubin)
            .map_err(|e| Error::io(format!("cannot write {}", out.display()), e))?;
        Ok(out)
    })?;
    std::fs::read(&path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))
}

/// `cuModuleLoadData` on a CUBIN or NUL-terminated PTX image (the context must be current).
fn load_image(image: &[u8]) -> Result<sys::CUmodule> {
    // SAFETY: `image` is a whole CUBIN or NUL-terminated PTX and outlives the call.
    unsafe { cu::module::load_data(image.as_ptr().cast()) }
        .map_err(|e| Error::Cuda(cuda_error("cuModuleLoadData", e)))
}

/// A kernel name as a C string.
fn c_name(name: &str) -> Result<CString> {
    CString::new(name).map_err(|_| Error::Value(format!("kernel name {name:?} contains NUL")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::native::Optimization;
    use crate::testutil::SUM_KERNEL;
    use crate::value::ClassId;

    /// Host code for `gsum`: sums a double array on the GPU with `sum_kernel`, or launches
    /// `kernel` when it is not `sum_kernel`.
    fn host_source(kernel: &str) -> String {
        format!(
            r#"
#include <stdio.h>
#include <stdlib.h>
#include "m2cu_abi.h"
void m2cu_release(void *data) {{ free(data); }}
int gsum_gpu(const m2cu_array *in, m2cu_array *out, const m2cu_gpu *gpu, char *err,
             size_t err_len) {{
    long long n = in[0].dims[0] * in[0].dims[1] * in[0].dims[2];
    uint64_t dx = 0, dsum = 0;
    double zero = 0, s = 0;
    void *args[] = {{&dx, &n, &dsum}};
    if (gpu->alloc(gpu->ctx, &dx, n * sizeof(double))
        || gpu->alloc(gpu->ctx, &dsum, sizeof(double))
        || gpu->upload(gpu->ctx, dx, in[0].data, n * sizeof(double))
        || gpu->upload(gpu->ctx, dsum, &zero, sizeof zero)
        || gpu->launch(gpu->ctx, "{kernel}", 2 * gpu->sm_count, 256, 0, args)
        || gpu->download(gpu->ctx, &s, dsum, sizeof s)
        || gpu->release(gpu->ctx, dx)
        || gpu->release(gpu->ctx, dsum)) {{
        snprintf(err, err_len, "a GPU service failed");
        return 1;
    }}
    out[0].dims[0] = 1;
    out[0].dims[1] = 1;
    out[0].dims[2] = 1;
    out[0].data = malloc(sizeof(double));
    *(double *)out[0].data = s;
    return 0;
}}
"#
        )
    }

    fn load(kernel: &str, cache: &std::path::Path) -> Result<GpuProgram> {
        let opts = BuildOptions {
            cache_dir: Some(cache.to_path_buf()),
            ..BuildOptions::default()
        };
        let names = ["sum_kernel".to_string()];
        GpuProgram::load(SUM_KERNEL, &names, &host_source(kernel), "gsum", &opts)
    }

    #[test]
    fn status_never_panics() {
        match gpu_status() {
            GpuStatus::Available {
                compute_capability,
                sm_count,
                ..
            } => assert!(compute_capability.0 >= 5 && sm_count > 0),
            GpuStatus::Unavailable(reason) => {
                eprintln!("no GPU here: {reason}");
                assert!(!reason.is_empty());
            }
        }
    }

    /// Runs only where a GPU is present (never required, not even under CI=true).
    #[test]
    fn sums_on_the_gpu_and_reports_callback_errors() {
        let cache = tempfile::tempdir().unwrap();
        if let GpuStatus::Unavailable(reason) = gpu_status() {
            eprintln!("skipping gpu::sums_on_the_gpu: {reason}");
            let err = load("sum_kernel", cache.path()).err().unwrap();
            assert!(matches!(err, Error::Unavailable(_)), "{err}");
            // The host side still builds and exports its entry.
            let opts = BuildOptions {
                cache_dir: Some(cache.path().to_path_buf()),
                ..BuildOptions::default()
            };
            let host = SharedObject::build(
                &host_source("sum_kernel"),
                "gsum",
                &opts,
                Optimization::Speed,
            )
            .unwrap();
            // SAFETY: only resolved, never called.
            unsafe { host.function::<GpuEntry>("gsum_gpu") }.unwrap();
            return;
        }
        let program = load("sum_kernel", cache.path()).unwrap();
        let x = Value::row((1..=100_000).map(f64::from).collect());
        let spec = [OutputSpec::new("s", ClassId::Double)];
        let out = program.call(std::slice::from_ref(&x), &spec).unwrap();
        assert_eq!(out, vec![Value::scalar(5_000_050_000.0)]);
        let (timed, kernels) = program.call_timed(std::slice::from_ref(&x), &spec).unwrap();
        assert_eq!(timed, out);
        assert!(kernels > Duration::ZERO, "{kernels:?}");
        let wrong = load("no_such_kernel", cache.path()).unwrap();
        let err = wrong.call(&[x], &spec).unwrap_err();
        assert!(
            err.to_string().contains("`no_such_kernel` was not loaded"),
            "{err}"
        );
        assert!(err.to_string().contains("a GPU service failed"), "{err}");
    }
}
