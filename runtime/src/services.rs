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

/// The copies of one call of a GPU host program, as its callbacks made them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transfers {
    /// From the host to the device (`upload`).
    pub to_device: Copies,
    /// From the device to the host (`download`).
    pub to_host: Copies,
    /// Within device memory (`copy`: an array copy `b = a` of a value that lives there).
    pub on_device: Copies,
}

/// A number of copies and the bytes they moved.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Copies {
    pub count: u64,
    pub bytes: u64,
}

impl Copies {
    fn add(&mut self, bytes: u64) {
        self.count += 1;
        self.bytes += bytes;
    }
}

impl std::fmt::Display for Transfers {
    /// `3 copies to the device (1.5 MB), 1 back (0.5 MB), 2 on the device (1.0 MB)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let part = |c: &Copies| format!("{} ({})", c.count, bytes_text(c.bytes));
        write!(
            f,
            "{} to the device, {} back, {} on the device",
            part(&self.to_device),
            part(&self.to_host),
            part(&self.on_device)
        )
    }
}

/// `312 B`, `2.4 kB`, `1.5 MB`.
fn bytes_text(bytes: u64) -> String {
    match bytes {
        b if b < 1000 => format!("{b} B"),
        b if b < 1_000_000 => format!("{:.1} kB", b as f64 / 1e3),
        b => format!("{:.1} MB", b as f64 / 1e6),
    }
}

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
    /// Copies `bytes` bytes of device memory from `src` to `dst`.
    fn copy(&mut self, dst: u64, src: u64, bytes: u64) -> Result<(), String>;
    /// The copies of the current call so far, which the callbacks count.
    fn transfers(&mut self) -> &mut Transfers;
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
        copy: copy::<D>,
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
    with_device::<D>(ctx, |d| {
        d.transfers().to_device.add(bytes);
        d.upload(dst, src, bytes)
    })
}

unsafe extern "C" fn download<D: DeviceServices>(
    ctx: *mut c_void,
    dst: *mut c_void,
    src: u64,
    bytes: u64,
) -> c_int {
    with_device::<D>(ctx, |d| {
        d.transfers().to_host.add(bytes);
        d.download(dst, src, bytes)
    })
}

unsafe extern "C" fn copy<D: DeviceServices>(
    ctx: *mut c_void,
    dst: u64,
    src: u64,
    bytes: u64,
) -> c_int {
    with_device::<D>(ctx, |d| {
        d.transfers().on_device.add(bytes);
        d.copy(dst, src, bytes)
    })
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
