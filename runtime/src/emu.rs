//! The emulated GPU path: generated CUDA kernels run on CPU threads, driven by the same generated
//! GPU host program and the same `m2cu_gpu` callback table as on a real GPU. Slow; meant for
//! testing the CUDA side without a GPU.
//!
//! [`EmuProgram::load`] compiles the `.kernels.cu` as C++20 behind `emu/shim.h` (the CUDA
//! execution model on OS threads: see the header) together with a launcher that maps kernel
//! names to their functions, and builds the GPU host program exactly as [`crate::GpuProgram`]
//! does. "Device memory" is host memory the emulator allocates and tracks: uploads, downloads
//! and frees of addresses it did not hand out (or past an allocation's end) are errors, as are
//! barriers that some thread never reaches and shuffles whose mask leaves out lanes of the
//! warp. `__constant__` arrays are globals of the kernel library, found by name.
//!
//! The [`Schedule`] decides how the threads of a block interleave. [`Schedule::Concurrent`]
//! runs them all at once, so races show up by chance; the serialized schedules
//! ([`Schedule::InOrder`], [`Schedule::Reverse`]) run one thread at a time, each until its next
//! synchronization point (barrier, shuffle, exit), then the first thread in a fixed order that
//! can go on, so a missing barrier gives the same stale read on every run and a deadlock is
//! reported at once. Every block starts with its shared memory filled with 0xff bytes, so under
//! a serialized schedule the outputs depend only on the inputs.
//!
//! `__shared__` and `__constant__` variables are globals of the kernel library, which is loaded
//! once per process and shared by every [`EmuProgram`] built from the same source, so calls of
//! one library run one at a time (a lock per library), whatever thread they come from.
//!
//! Invariants: the host program sees the same launch configuration logic as on a GPU; only the
//! multiprocessor count is chosen ([`EmuOptions::sm_count`], at least 1), which bounds the grid
//! at `8 × sm_count` blocks of 256 threads, and, for tests, the threads per output of the
//! per-output kernels, the tiles of matrix products, or a scan in one thread or in parallel
//! can be forced ([`EmuOptions::lanes`],
//! passed as `m2cu_gpu.lanes`; a real GPU always passes 0 and lets the host program choose).

use std::borrow::Borrow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

use crate::abi::{GpuEntry, OutputSpec};
use crate::native::{self, BuildOptions, Optimization, SharedObject};
use crate::services::{self, DeviceServices, Transfers};
use crate::value::Value;
use crate::{Error, Result};

/// The CUDA execution model on CPU threads, put in front of the kernels.
const SHIM: &str = include_str!("emu/shim.h");
/// The shim's file name beside the kernels' source, which includes it first.
const SHIM_NAME: &str = "m2cu_emu.h";

/// How the threads of an emulated block take turns.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Schedule {
    /// Every thread of the block runs at once (an OS thread each): races show up by chance.
    #[default]
    Concurrent,
    /// One thread at a time (the block's threads are fibers of the launching thread), each
    /// running to its next synchronization point, where the turn goes to the lowest
    /// `threadIdx` that can go on: deterministic, with the first warps running as far ahead as
    /// the barriers let them, and much faster than [`Schedule::Concurrent`].
    InOrder,
    /// As [`Schedule::InOrder`], with the highest `threadIdx` first.
    Reverse,
}

impl Schedule {
    /// Every schedule, the default first.
    pub const ALL: [Schedule; 3] = [Schedule::Concurrent, Schedule::InOrder, Schedule::Reverse];

    /// The shim's `m2cu_emu::Schedule`.
    fn code(self) -> c_int {
        match self {
            Schedule::Concurrent => 0,
            Schedule::InOrder => 1,
            Schedule::Reverse => 2,
        }
    }
}

/// How many threads share one output in the per-output kernels (see `codegen::per_output`),
/// and whether a scan runs in parallel (see `codegen::cuda::scan`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lanes {
    /// One thread per output: the plain thread kernel; a scan in one thread, in order.
    Thread,
    /// A warp (32 threads) per output.
    Warp,
    /// A whole block per output.
    Block,
    /// A block per tile of outputs, for the matrix products that have a tiled variant
    /// (`codegen::cuda::tiles`); other per-output kernels choose as on a GPU.
    Tile,
}

impl Lanes {
    /// Every choice.
    pub const ALL: [Lanes; 4] = [Lanes::Thread, Lanes::Warp, Lanes::Block, Lanes::Tile];

    /// The value of `m2cu_gpu.lanes`, which the host program rounds down to 1, 32 or its block
    /// (negative: tiles).
    fn abi_value(self) -> i32 {
        match self {
            Lanes::Thread => 1,
            Lanes::Warp => 32,
            Lanes::Block => i32::MAX,
            Lanes::Tile => -1,
        }
    }
}

/// How the emulated device looks to the host program.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmuOptions {
    /// Multiprocessors reported to the host program (at least 1): grids have at most
    /// `8 × sm_count` blocks.
    pub sm_count: i32,
    /// How the threads of a block take turns.
    pub schedule: Schedule,
    /// Threads per output forced on every per-output kernel; `None` lets the host program
    /// choose, as on a GPU.
    pub lanes: Option<Lanes>,
}

impl Default for EmuOptions {
    fn default() -> Self {
        EmuOptions {
            sm_count: 2,
            schedule: Schedule::Concurrent,
            lanes: None,
        }
    }
}

impl EmuOptions {
    /// An error unless the options describe a device the host program can use.
    fn check(&self) -> Result<()> {
        if self.sm_count < 1 {
            return Err(Error::Options(format!(
                "the emulated GPU needs at least 1 multiprocessor, not {}",
                self.sm_count
            )));
        }
        Ok(())
    }
}

/// `int m2cu_emu_launch(name, grid, block, args, schedule, err, err_len)` of the kernel library.
type LaunchFn = unsafe extern "C" fn(
    *const c_char,
    u32,
    u32,
    *mut *mut c_void,
    c_int,
    *mut c_char,
    usize,
) -> c_int;

/// Generated kernels and host code, built for the emulator and ready to call.
pub struct EmuProgram {
    entry_name: String,
    entry: GpuEntry,
    host: SharedObject,
    state: RefCell<EmuState>,
    /// Held for a whole call: the kernel library's globals serve one call at a time.
    library_lock: &'static Mutex<()>,
}

impl EmuProgram {
    /// Builds the kernels (as C++ behind the shim) and the host program, and binds them.
    pub fn load(
        kernels_cu: &str,
        kernel_names: &[String],
        host_c: &str,
        entry: &str,
        opts: &BuildOptions,
        emu: &EmuOptions,
    ) -> Result<EmuProgram> {
        emu.check()?;
        let (path, library) = build_kernels(kernels_cu, kernel_names, entry, opts)?;
        // SAFETY: `launcher` defines `m2cu_emu_launch` with exactly this signature.
        let launch = unsafe { native::function::<LaunchFn>(library, &path, "m2cu_emu_launch") }?;
        let host = SharedObject::build(host_c, entry, opts, Optimization::BuildTime)?;
        // SAFETY: the ABI declares the GPU entry with exactly this signature.
        let entry_fn = unsafe { host.function::<GpuEntry>(&format!("{entry}_gpu")) }?;
        Ok(EmuProgram {
            library_lock: library_lock(&path),
            entry_name: entry.to_string(),
            entry: entry_fn,
            host,
            state: RefCell::new(EmuState {
                library,
                path,
                launch,
                options: *emu,
                allocations: BTreeMap::new(),
                first_error: None,
                transfers: Transfers::default(),
            }),
        })
    }

    /// Runs `<entry>_gpu` on `inputs` with the emulated device and returns its outputs.
    pub fn call<V: Borrow<Value>>(
        &self,
        inputs: &[V],
        outputs: &[OutputSpec],
    ) -> Result<Vec<Value>> {
        // A panic while the lock was held left nothing half-done that a later call relies on.
        let _one_call = self
            .library_lock
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut state = self.state.borrow_mut();
        state.first_error = None;
        state.transfers = Transfers::default();
        services::call_entry(
            self.entry,
            self.host.release_fn(),
            &mut *state,
            inputs,
            outputs,
            |state| {
                state.allocations.clear();
                state.first_error.take()
            },
        )
    }

    /// The entry's name (without the `_gpu` suffix).
    pub fn entry(&self) -> &str {
        &self.entry_name
    }

    /// The copies between host and emulated device memory of the last call.
    pub fn last_transfers(&self) -> Transfers {
        self.state.borrow().transfers
    }
}

/// The lock of the kernel library at `path` (one per library, for the life of the process, as
/// the library itself).
fn library_lock(path: &Path) -> &'static Mutex<()> {
    static LOCKS: OnceLock<Mutex<HashMap<PathBuf, &'static Mutex<()>>>> = OnceLock::new();
    let mut locks = LOCKS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    locks
        .entry(path.to_path_buf())
        .or_insert_with(|| Box::leak(Box::new(Mutex::new(()))))
}

/// Builds the kernels of `kernels_cu` as C++ behind the shim (cached) into a shared object that
/// exports `int m2cu_emu_launch(name, grid, block, args, schedule, err, err_len)` (schedule:
/// 0 concurrent, 1 in order, 2 reverse), and returns its path. For stand-ins of the CUDA driver
/// in tests, which run a program's kernels through it.
pub fn kernel_library(
    kernels_cu: &str,
    kernel_names: &[String],
    entry: &str,
    opts: &BuildOptions,
) -> Result<PathBuf> {
    build_kernels(kernels_cu, kernel_names, entry, opts).map(|(path, _)| path)
}

fn build_kernels(
    kernels_cu: &str,
    kernel_names: &[String],
    entry: &str,
    opts: &BuildOptions,
) -> Result<(PathBuf, &'static libloading::Library)> {
    let source = format!(
        "#include \"{SHIM_NAME}\"\n{kernels_cu}\n{}",
        launcher(kernel_names)
    );
    native::build_cxx((SHIM_NAME, SHIM), &source, &format!("{entry}_emu"), opts)
}

/// `m2cu_emu_launch`: finds the kernel by name, binds the argument array to its parameters, and
/// runs the grid with the given schedule; an emulation failure (a deadlock, a wrong shuffle
/// mask) becomes status 1 and a message.
fn launcher(kernel_names: &[String]) -> String {
    let mut out = String::from(
        "extern \"C\" int m2cu_emu_launch(const char *name, unsigned grid, unsigned block, void **args, int schedule, char *err, size_t err_len)\n{\n    try {\n        std::function<void()> run;\n",
    );
    for (k, name) in kernel_names.iter().enumerate() {
        let keyword = if k == 0 { "if" } else { "else if" };
        let _ = writeln!(
            out,
            "        {keyword} (!strcmp(name, \"{name}\")) run = m2cu_emu::bind({name}, args);"
        );
    }
    out.push_str(
        "        if (!run) { snprintf(err, err_len, \"no kernel named %s\", name); return 1; }\n        m2cu_emu::run_grid(run, grid, block, (m2cu_emu::Schedule)schedule);\n        return 0;\n    } catch (const std::exception &e) {\n        snprintf(err, err_len, \"%s\", e.what());\n        return 1;\n    }\n}\n",
    );
    out
}

/// The emulated device: its allocations, and the first error of the current call.
struct EmuState {
    library: &'static libloading::Library,
    path: PathBuf,
    launch: LaunchFn,
    options: EmuOptions,
    /// Base address → the allocation (8-byte words, so any element type is aligned).
    allocations: BTreeMap<u64, Box<[u64]>>,
    first_error: Option<String>,
    /// The copies of the current (or last) call.
    transfers: Transfers,
}

impl EmuState {
    /// Checks that `bytes` bytes from `address` lie inside one allocation.
    fn check_range(&self, what: &str, address: u64, bytes: u64) -> Result<(), String> {
        let inside = self
            .allocations
            .range(..=address)
            .next_back()
            .is_some_and(|(&base, block)| address + bytes <= base + 8 * block.len() as u64);
        match inside {
            true => Ok(()),
            false => Err(format!(
                "{what}: {bytes} bytes at {address:#x} are not inside one device allocation"
            )),
        }
    }
}

impl DeviceServices for EmuState {
    fn sm_count(&self) -> i32 {
        self.options.sm_count
    }

    fn lanes(&self) -> i32 {
        self.options.lanes.map_or(0, Lanes::abi_value)
    }

    fn record(&mut self, message: String) {
        self.first_error.get_or_insert(message);
    }

    fn alloc(&mut self, dptr: *mut u64, bytes: u64) -> Result<(), String> {
        if dptr.is_null() {
            return Err("alloc: NULL result pointer".into());
        }
        let words = (bytes as usize).div_ceil(8).max(1);
        let block = vec![0u64; words].into_boxed_slice();
        let address = block.as_ptr() as u64;
        self.allocations.insert(address, block);
        // SAFETY: non-null out-pointer from the host code.
        unsafe { *dptr = address };
        Ok(())
    }

    fn release(&mut self, dptr: u64) -> Result<(), String> {
        if dptr != 0 && self.allocations.remove(&dptr).is_none() {
            return Err(format!("release: {dptr:#x} was not allocated by alloc"));
        }
        Ok(())
    }

    fn upload(&mut self, dst: u64, src: *const c_void, bytes: u64) -> Result<(), String> {
        if bytes == 0 {
            return Ok(());
        }
        self.check_range("upload", dst, bytes)?;
        // SAFETY: `dst` lies in one of our allocations (checked); the host code passes `bytes`
        // readable bytes at `src`.
        unsafe { std::ptr::copy(src.cast::<u8>(), dst as *mut u8, bytes as usize) };
        Ok(())
    }

    fn copy(&mut self, dst: u64, src: u64, bytes: u64) -> Result<(), String> {
        if bytes == 0 {
            return Ok(());
        }
        self.check_range("copy from", src, bytes)?;
        self.check_range("copy to", dst, bytes)?;
        // SAFETY: both ranges lie in our allocations (checked).
        unsafe { std::ptr::copy(src as *const u8, dst as *mut u8, bytes as usize) };
        Ok(())
    }

    fn transfers(&mut self) -> &mut Transfers {
        &mut self.transfers
    }

    fn download(&mut self, dst: *mut c_void, src: u64, bytes: u64) -> Result<(), String> {
        if bytes == 0 {
            return Ok(());
        }
        self.check_range("download", src, bytes)?;
        // SAFETY: `src` lies in one of our allocations (checked); the host code passes `bytes`
        // writable bytes at `dst`.
        unsafe { std::ptr::copy(src as *const u8, dst.cast::<u8>(), bytes as usize) };
        Ok(())
    }

    fn launch(
        &mut self,
        kernel: *const c_char,
        grid: u32,
        block: u32,
        _shared: u32,
        args: *mut *mut c_void,
    ) -> Result<(), String> {
        let mut message = [0 as c_char; 512];
        // SAFETY: the launcher reads the kernel name and the argument array the host code
        // passes (its contract, as for cuLaunchKernel) and writes at most `message.len()` bytes.
        let status = unsafe {
            (self.launch)(
                kernel,
                grid,
                block,
                args,
                self.options.schedule.code(),
                message.as_mut_ptr(),
                message.len(),
            )
        };
        if status == 0 {
            return Ok(());
        }
        // SAFETY: the launcher NUL-terminates its message (snprintf).
        let text = unsafe { CStr::from_ptr(message.as_ptr()) }.to_string_lossy();
        // SAFETY: as above, the host code passes a NUL-terminated kernel name.
        let name = unsafe { CStr::from_ptr(kernel) }.to_string_lossy();
        Err(format!(
            "emulated launch of {name} (grid {grid}, block {block}): {text}"
        ))
    }

    fn copy_to_constant(
        &mut self,
        symbol: *const c_char,
        src: *const c_void,
        bytes: u64,
    ) -> Result<(), String> {
        // SAFETY: the host code passes a NUL-terminated symbol name.
        let name = unsafe { CStr::from_ptr(symbol) }
            .to_string_lossy()
            .into_owned();
        // SAFETY: `__constant__` arrays are plain globals of the kernel library; the host code
        // copies exactly the array's bytes.
        unsafe {
            let target = native::function::<*mut u8>(self.library, &self.path, &name)
                .map_err(|e| e.to_string())?;
            std::ptr::copy(src.cast::<u8>(), target, bytes as usize);
        }
        Ok(())
    }
}
