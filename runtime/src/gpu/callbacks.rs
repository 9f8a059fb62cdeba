//! The `m2cu_gpu` services over the CUDA driver API, and the state they share.
//!
//! All work goes to one non-blocking stream on device 0's primary context. `upload` copies
//! asynchronously (pageable host memory is staged before the call returns, so the caller may
//! reuse it at once); `download` synchronizes the stream so the bytes are there on return;
//! `release` synchronizes before freeing, so no queued kernel still uses the memory. The state
//! keeps the first error message of a call (driver call, CUDA error name, and the last kernel
//! launched); the table and its error handling are [`crate::services`]. A timed call also
//! brackets each launch with CUDA events ([`KernelTimer`]); an untimed one records none.

use std::collections::{HashMap, HashSet};
use std::ffi::{c_char, c_void, CStr};
use std::time::Duration;

use cudarc::driver::result::{self as cu, stream::StreamKind};
use cudarc::driver::sys;

use super::timer::KernelTimer;
use super::{c_name, cuda_error};
use crate::services::{DeviceServices, Transfers};
use crate::{Error, Result};

/// Dynamic shared memory a kernel may use without opting in.
const DEFAULT_SHARED_LIMIT: u32 = 48 * 1024;

/// The driver objects of one loaded program, and what the callbacks record during a call.
pub(crate) struct GpuState {
    device: sys::CUdevice,
    context: sys::CUcontext,
    stream: sys::CUstream,
    pub(super) module: sys::CUmodule,
    sm_count: i32,
    functions: HashMap<String, sys::CUfunction>,
    allocations: HashSet<u64>,
    last_launch: Option<String>,
    first_error: Option<String>,
    /// Present during a timed call only.
    timer: Option<KernelTimer>,
    /// The kernel time of the last timed call that succeeded.
    kernel_time: Option<Duration>,
    /// The copies of the current (or last) call.
    pub(super) transfers: Transfers,
}

impl GpuState {
    /// Retains the device's primary context, makes it current, and creates the stream.
    pub(super) fn open(device: sys::CUdevice, sm_count: i32) -> Result<GpuState> {
        // SAFETY: `device` came from cuDeviceGet after cuInit.
        let context = unsafe { cu::primary_ctx::retain(device) }
            .map_err(|e| Error::Cuda(cuda_error("cuDevicePrimaryCtxRetain", e)))?;
        let mut state = GpuState {
            device,
            context,
            stream: std::ptr::null_mut(),
            module: std::ptr::null_mut(),
            sm_count,
            functions: HashMap::new(),
            allocations: HashSet::new(),
            last_launch: None,
            first_error: None,
            timer: None,
            kernel_time: None,
            transfers: Transfers::default(),
        };
        state.make_current()?;
        state.stream = cu::stream::create(StreamKind::NonBlocking)
            .map_err(|e| Error::Cuda(cuda_error("cuStreamCreate", e)))?;
        Ok(state)
    }

    fn make_current(&self) -> Result<()> {
        // SAFETY: `context` is a retained primary context.
        unsafe { cu::ctx::set_current(self.context) }
            .map_err(|e| Error::Cuda(cuda_error("cuCtxSetCurrent", e)))
    }

    /// Looks up kernel `name` in the loaded module.
    pub(super) fn resolve(&mut self, name: &str) -> Result<()> {
        // SAFETY: `module` was loaded in this context and is still loaded.
        let function =
            unsafe { cu::module::get_function(self.module, c_name(name)?) }.map_err(|e| {
                Error::Cuda(format!(
                    "kernel `{name}` is not in the compiled module (is it extern \"C\"?): {}",
                    cuda_error("cuModuleGetFunction", e)
                ))
            })?;
        self.functions.insert(name.to_string(), function);
        Ok(())
    }

    /// Prepares for a call from this thread; `timer` is the timed call's kernel timer.
    pub(super) fn begin_call(&mut self, timer: Option<KernelTimer>) -> Result<()> {
        self.first_error = None;
        self.last_launch = None;
        self.timer = timer;
        self.kernel_time = None;
        self.transfers = Transfers::default();
        self.make_current()
    }

    /// Waits for the stream, frees what the host code left allocated, reads the kernel timer
    /// of a timed call, and returns the first error of the call.
    pub(super) fn end_call(&mut self) -> Option<String> {
        if let Err(e) = self.synchronize() {
            self.record(e);
        }
        self.free_leftovers();
        if let Some(timer) = self.timer.take() {
            match timer.finish() {
                Ok(time) => self.kernel_time = Some(time),
                Err(e) => self.record(e),
            }
        }
        self.first_error.take()
    }

    /// The summed kernel time of the last call, when it was timed and succeeded.
    pub(super) fn kernel_time(&self) -> Option<Duration> {
        self.kernel_time
    }

    fn synchronize(&self) -> Result<(), String> {
        // SAFETY: `stream` belongs to the current context.
        unsafe { cu::stream::synchronize(self.stream) }.map_err(|e| {
            let mut message = cuda_error("cuStreamSynchronize", e);
            if let Some(kernel) = &self.last_launch {
                message += &format!(" (last kernel launched: {kernel})");
            }
            message
        })
    }

    fn free_leftovers(&mut self) {
        for dptr in std::mem::take(&mut self.allocations) {
            // SAFETY: `dptr` came from cuMemAlloc and was not freed (it is still tracked).
            if let Err(e) = unsafe { cu::free_sync(dptr) } {
                self.record(cuda_error("cuMemFree", e));
            }
        }
    }
}

impl DeviceServices for GpuState {
    fn sm_count(&self) -> i32 {
        self.sm_count
    }

    fn record(&mut self, message: String) {
        self.first_error.get_or_insert(message);
    }

    fn alloc(&mut self, dptr: *mut u64, bytes: u64) -> Result<(), String> {
        if dptr.is_null() {
            return Err("alloc: NULL result pointer".into());
        }
        let address = if bytes == 0 {
            0
        } else {
            // SAFETY: the context is current; the memory is only handed out as an address.
            let address = unsafe { cu::malloc_sync(bytes as usize) }
                .map_err(|e| cuda_error(&format!("cuMemAlloc({bytes} bytes)"), e))?;
            self.allocations.insert(address);
            address
        };
        // SAFETY: non-null out-pointer from the host code.
        unsafe { *dptr = address };
        Ok(())
    }

    fn release(&mut self, dptr: u64) -> Result<(), String> {
        if dptr == 0 {
            return Ok(());
        }
        if !self.allocations.remove(&dptr) {
            return Err(format!("release: {dptr:#x} was not allocated by alloc"));
        }
        self.synchronize()?;
        // SAFETY: `dptr` came from cuMemAlloc, is freed once, and no queued work remains.
        unsafe { cu::free_sync(dptr) }.map_err(|e| cuda_error("cuMemFree", e))
    }

    fn upload(&mut self, dst: u64, src: *const c_void, bytes: u64) -> Result<(), String> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: the host code passes `bytes` readable bytes at `src` and device memory at
        // `dst`; pageable sources are staged before the call returns.
        unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src, bytes as usize, self.stream) }
            .result()
            .map_err(|e| cuda_error(&format!("cuMemcpyHtoDAsync({bytes} bytes)"), e))
    }

    fn copy(&mut self, dst: u64, src: u64, bytes: u64) -> Result<(), String> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: the host code passes device memory of `bytes` bytes at both addresses.
        unsafe { sys::cuMemcpyDtoDAsync_v2(dst, src, bytes as usize, self.stream) }
            .result()
            .map_err(|e| cuda_error(&format!("cuMemcpyDtoDAsync({bytes} bytes)"), e))
    }

    fn transfers(&mut self) -> &mut Transfers {
        &mut self.transfers
    }

    fn download(&mut self, dst: *mut c_void, src: u64, bytes: u64) -> Result<(), String> {
        if bytes == 0 {
            return Ok(());
        }
        // SAFETY: the host code passes `bytes` writable bytes at `dst`; the stream is
        // synchronized before returning, so the copy is complete when the caller reads.
        unsafe { sys::cuMemcpyDtoHAsync_v2(dst, src, bytes as usize, self.stream) }
            .result()
            .map_err(|e| cuda_error(&format!("cuMemcpyDtoHAsync({bytes} bytes)"), e))?;
        self.synchronize()
    }

    fn copy_to_constant(
        &mut self,
        symbol: *const c_char,
        src: *const c_void,
        bytes: u64,
    ) -> Result<(), String> {
        if symbol.is_null() {
            return Err("to_constant: NULL symbol name".into());
        }
        // SAFETY: the host code passes a NUL-terminated symbol name.
        let name = unsafe { CStr::from_ptr(symbol) }.to_string_lossy();
        let (mut dptr, mut size) = (0u64, 0usize);
        // SAFETY: `module` is loaded in the current context; the out-pointers are valid.
        unsafe { sys::cuModuleGetGlobal_v2(&mut dptr, &mut size, self.module, symbol) }
            .result()
            .map_err(|e| cuda_error(&format!("cuModuleGetGlobal({name})"), e))?;
        if bytes > size as u64 {
            return Err(format!(
                "to_constant: {bytes} bytes do not fit `{name}` ({size} bytes)"
            ));
        }
        self.upload(dptr, src, bytes)
    }

    fn launch(
        &mut self,
        kernel: *const c_char,
        grid: u32,
        block: u32,
        shared: u32,
        args: *mut *mut c_void,
    ) -> Result<(), String> {
        if kernel.is_null() {
            return Err("launch: NULL kernel name".into());
        }
        // SAFETY: the host code passes a NUL-terminated kernel name.
        let name = unsafe { CStr::from_ptr(kernel) }
            .to_string_lossy()
            .into_owned();
        let &function = self
            .functions
            .get(&name)
            .ok_or_else(|| format!("launch: kernel `{name}` was not loaded"))?;
        let call = format!("cuLaunchKernel({name}, grid {grid}, block {block}, shared {shared})");
        if shared > DEFAULT_SHARED_LIMIT {
            use sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES as MAX;
            // SAFETY: `function` belongs to the loaded module.
            unsafe { cu::function::set_function_attribute(function, MAX, shared as i32) }
                .map_err(|e| cuda_error(&call, e))?;
        }
        self.last_launch = Some(name);
        if let Some(timer) = &mut self.timer {
            timer.start(self.stream)?;
        }
        // SAFETY: `args` is a kernelParams array matching the kernel's parameters (host code's
        // contract); the launch is queued on our stream in the current context.
        unsafe {
            sys::cuLaunchKernel(
                function,
                grid,
                1,
                1,
                block,
                1,
                1,
                shared,
                self.stream,
                args,
                std::ptr::null_mut(),
            )
        }
        .result()
        .map_err(|e| cuda_error(&call, e))?;
        match &mut self.timer {
            Some(timer) => timer.stop(self.stream),
            None => Ok(()),
        }
    }
}

impl Drop for GpuState {
    fn drop(&mut self) {
        // Errors are ignored: there is no one to report them to, and each step is independent.
        // SAFETY: every handle below was created in `context` and is released once.
        unsafe {
            let _ = cu::ctx::set_current(self.context);
            if !self.stream.is_null() {
                let _ = cu::stream::synchronize(self.stream);
            }
            self.free_leftovers();
            if !self.module.is_null() {
                let _ = cu::module::unload(self.module);
            }
            if !self.stream.is_null() {
                let _ = cu::stream::destroy(self.stream);
            }
            let _ = cu::primary_ctx::release(self.device);
        }
    }
}
