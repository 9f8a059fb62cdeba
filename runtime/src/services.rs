//! The `m2cu_gpu` callback table over any device: the CUDA driver ([`crate::gpu`]) or the CPU
//! emulation ([`crate::emu`]), and the call of a GPU host entry with it.
//!
//! Every callback returns 0 on success; on failure it returns 1 and the device keeps the first
//! error message ([`DeviceServices::record`]), which [`call_entry`] turns into the call's error.
//! Callbacks never unwind into C: a panic becomes an error too.

use std::borrow::Borrow;
use std::ffi::{c_char, c_int, c_void};
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::abi::{self, GpuEntry, M2cuGpu, OutputSpec, ReleaseFn};
use crate::value::Value;
use crate::{Error, Result};

/// What a device does for the generated host program, one method per `m2cu_gpu` callback.
pub(crate) trait DeviceServices {
    /// Multiprocessors, which the host program sizes its grids by.
    fn sm_count(&self) -> i32;
    /// Threads per output forced on the per-output kernels (`m2cu_gpu.lanes`; negative: tiles
    /// of a matrix product's outputs); 0, the default, lets the host program choose, as it
    /// always does on a real GPU.
    fn lanes(&self) -> i32 {
        0
    }
    fn alloc(&mut self, dptr: *mut u64, bytes: u64) -> Result<(), String>;
    fn release(&mut self, dptr: u64) -> Result<(), String>;
    fn upload(&mut self, dst: u64, src: *const c_void, bytes: u64) -> Result<(), String>;
    fn download(&mut self, dst: *mut c_void, src: u64, bytes: u64) -> Result<(), String>;
    /// Launches kernel `kernel` with a `cuLaunchKernel`-style argument array.
    fn launch(
        &mut self,
        kernel: *const c_char,
        grid: u32,
        block: u32,
        shared: u32,
        args: *mut *mut c_void,
    ) -> Result<(), String>;
    /// Copies `bytes` bytes from `src` into the `__constant__` variable `symbol`.
    fn copy_to_constant(
        &mut self,
        symbol: *const c_char,
        src: *const c_void,
        bytes: u64,
    ) -> Result<(), String>;
    /// Keeps `message` unless an earlier error of the call is kept already.
    fn record(&mut self, message: String);
}

/// Runs `<entry>_gpu` on `inputs` with a callback table over `device`; `finish` then ends the
/// call on the device and returns its first error, which takes precedence over the host code's.
pub(crate) fn call_entry<D: DeviceServices, V: Borrow<Value>>(
    entry: GpuEntry,
    release: ReleaseFn,
    device: &mut D,
    inputs: &[V],
    outputs: &[OutputSpec],
    finish: impl FnOnce(&mut D) -> Option<String>,
) -> Result<Vec<Value>> {
    let table = table(device);
    let result = abi::invoke(inputs, outputs, release, |ins, outs, err, len| {
        // SAFETY: pointers come from `invoke`; `table.ctx` points at `device`, which is
        // borrowed for this whole call and only used through that pointer meanwhile.
        unsafe { entry(ins, outs, &table, err, len) }
    });
    match (finish(device), result) {
        (Some(device), Err(Error::Call(host))) => Err(Error::Cuda(format!(
            "{device}\n(the host code then reported: {host})"
        ))),
        (Some(device), _) => Err(Error::Cuda(device)),
        (None, result) => result,
    }
}

/// The callback table, pointing at `device`; valid while `device` is neither moved nor
/// otherwise used.
fn table<D: DeviceServices>(device: &mut D) -> M2cuGpu {
    M2cuGpu {
        ctx: (device as *mut D).cast(),
        sm_count: device.sm_count(),
        lanes: device.lanes(),
        alloc: alloc::<D>,
        release: release::<D>,
        upload: upload::<D>,
        download: download::<D>,
        launch: launch::<D>,
        to_constant: to_constant::<D>,
    }
}

/// Runs `f` on the device behind `ctx`, turning an error or a panic into status 1.
///
/// # Safety
/// `ctx` must be the `ctx` of a table made by [`table`] for a `D` during the current call.
unsafe fn with_device<D: DeviceServices>(
    ctx: *mut c_void,
    f: impl FnOnce(&mut D) -> Result<(), String>,
) -> c_int {
    if ctx.is_null() {
        return 1;
    }
    let device = &mut *ctx.cast::<D>();
    let outcome = catch_unwind(AssertUnwindSafe(|| f(device)))
        .unwrap_or_else(|_| Err("internal error: a device callback panicked".to_string()));
    match outcome {
        Ok(()) => 0,
        Err(message) => {
            device.record(message);
            1
        }
    }
}

unsafe extern "C" fn alloc<D: DeviceServices>(
    ctx: *mut c_void,
    dptr: *mut u64,
    bytes: u64,
) -> c_int {
    with_device::<D>(ctx, |d| d.alloc(dptr, bytes))
}

unsafe extern "C" fn release<D: DeviceServices>(ctx: *mut c_void, dptr: u64) -> c_int {
    with_device::<D>(ctx, |d| d.release(dptr))
}

unsafe extern "C" fn upload<D: DeviceServices>(
    ctx: *mut c_void,
    dst: u64,
    src: *const c_void,
    bytes: u64,
) -> c_int {
    with_device::<D>(ctx, |d| d.upload(dst, src, bytes))
}

unsafe extern "C" fn download<D: DeviceServices>(
    ctx: *mut c_void,
    dst: *mut c_void,
    src: u64,
    bytes: u64,
) -> c_int {
    with_device::<D>(ctx, |d| d.download(dst, src, bytes))
}

unsafe extern "C" fn launch<D: DeviceServices>(
    ctx: *mut c_void,
    kernel: *const c_char,
    grid: u32,
    block: u32,
    shared: u32,
    args: *mut *mut c_void,
) -> c_int {
    with_device::<D>(ctx, |d| d.launch(kernel, grid, block, shared, args))
}

unsafe extern "C" fn to_constant<D: DeviceServices>(
    ctx: *mut c_void,
    symbol: *const c_char,
    src: *const c_void,
    bytes: u64,
) -> c_int {
    with_device::<D>(ctx, |d| d.copy_to_constant(symbol, src, bytes))
}
