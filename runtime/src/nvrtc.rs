//! CUDA C++ → CUBIN or PTX with NVRTC. Needs libnvrtc only, no GPU and no driver.
//!
//! Every compile names its architecture explicitly (`--gpu-architecture=sm_80` for CUBIN,
//! `compute_80` for PTX) and uses [`OPTIONS`]: `-default-device --std=c++17`, so generated
//! kernels need no `__device__` on helpers, and `--fmad=false`, so that `a*b + c` is rounded
//! twice as MATLAB and Octave round it instead of being fused into one FMA. libnvrtc is probed before the first NVRTC call (cudarc panics when the
//! library is missing); the `nvidia-cuda-nvrtc` Python wheel provides it on any Linux machine.

use std::ffi::{c_char, CStr, CString};
use std::sync::OnceLock;

use cudarc::nvrtc::sys;

/// NVRTC options of every compile besides the architecture; part of the CUBIN cache key.
pub const OPTIONS: [&str; 3] = ["-default-device", "--std=c++17", "--fmad=false"];

use crate::{Error, Result};

/// Ok when libnvrtc can be loaded; otherwise why not and how to fix it. Probed once.
pub fn nvrtc_available() -> Result<(), String> {
    static PROBE: OnceLock<Result<(), String>> = OnceLock::new();
    PROBE
        .get_or_init(|| {
            // SAFETY: only tries to dlopen the candidate library names.
            if unsafe { sys::is_culib_present() } {
                Ok(())
            } else {
                Err(
                    "libnvrtc not found: set LD_LIBRARY_PATH to the directory holding \
                     libnvrtc.so.13, or run .ci/run which installs the nvidia-cuda-nvrtc wheel"
                        .to_string(),
                )
            }
        })
        .clone()
}

/// NVRTC's (major, minor) version.
pub fn nvrtc_version() -> Result<(i32, i32)> {
    nvrtc_available().map_err(Error::Unavailable)?;
    let (mut major, mut minor) = (0, 0);
    // SAFETY: libnvrtc is present; both out-pointers are valid.
    check(
        unsafe { sys::nvrtcVersion(&mut major, &mut minor) },
        "nvrtcVersion",
    )?;
    Ok((major, minor))
}

/// Compiles `source` to a CUBIN for a real architecture such as `"sm_80"`; `name` labels the
/// program in messages. Compile errors carry NVRTC's program log.
pub fn compile_cubin(source: &str, arch: &str, name: &str) -> Result<Vec<u8>> {
    let program = Program::compile(source, arch, "sm_", name)?;
    let mut size = 0;
    // SAFETY: `program` compiled successfully; the buffer has the size NVRTC reports.
    unsafe {
        check(
            sys::nvrtcGetCUBINSize(program.0, &mut size),
            "nvrtcGetCUBINSize",
        )?;
        let mut cubin = vec![0u8; size];
        check(
            sys::nvrtcGetCUBIN(program.0, cubin.as_mut_ptr().cast()),
            "nvrtcGetCUBIN",
        )?;
        Ok(cubin)
    }
}

/// Compiles `source` to PTX for a virtual architecture such as `"compute_80"`.
pub fn compile_ptx(source: &str, arch: &str, name: &str) -> Result<String> {
    let program = Program::compile(source, arch, "compute_", name)?;
    let mut size = 0;
    // SAFETY: as in `compile_cubin`.
    unsafe {
        check(
            sys::nvrtcGetPTXSize(program.0, &mut size),
            "nvrtcGetPTXSize",
        )?;
        let mut ptx = vec![0u8; size];
        check(
            sys::nvrtcGetPTX(program.0, ptx.as_mut_ptr().cast()),
            "nvrtcGetPTX",
        )?;
        Ok(nul_terminated(&ptx))
    }
}

/// An NVRTC program, destroyed on drop.
struct Program(sys::nvrtcProgram);

impl Program {
    /// Creates and compiles a program for `arch`, which must start with `prefix`.
    fn compile(source: &str, arch: &str, prefix: &str, name: &str) -> Result<Program> {
        nvrtc_available().map_err(Error::Unavailable)?;
        let failure = |message: String, log: String| Error::Nvrtc {
            name: name.to_string(),
            arch: arch.to_string(),
            message,
            log,
        };
        if !arch.starts_with(prefix) {
            return Err(failure(
                format!("architecture must look like {prefix}80"),
                String::new(),
            ));
        }
        let c_source = CString::new(source)
            .map_err(|_| failure("source contains a NUL byte".into(), String::new()))?;
        let c_name = CString::new(format!("{name}.cu"))
            .map_err(|_| failure("name contains a NUL byte".into(), String::new()))?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: libnvrtc is present; strings are NUL-terminated and outlive the call (NVRTC
        // copies them).
        let created = unsafe {
            sys::nvrtcCreateProgram(
                &mut raw,
                c_source.as_ptr(),
                c_name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        check(created, "nvrtcCreateProgram")?;
        let program = Program(raw);
        let architecture = format!("--gpu-architecture={arch}");
        let options: Vec<CString> = std::iter::once(architecture.as_str())
            .chain(OPTIONS)
            .map(|o| CString::new(o).expect("options have no NUL"))
            .collect();
        let pointers: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: `program` is live; `pointers` holds `len` valid C strings.
        let status = unsafe {
            sys::nvrtcCompileProgram(program.0, pointers.len() as i32, pointers.as_ptr())
        };
        if status != sys::nvrtcResult::NVRTC_SUCCESS {
            return Err(failure(error_string(status), program.log()));
        }
        Ok(program)
    }

    /// The compile log (warnings and errors), or a note when it cannot be read.
    fn log(&self) -> String {
        let mut size = 0;
        // SAFETY: `self.0` is a live program; the buffer has the size NVRTC reports.
        unsafe {
            if sys::nvrtcGetProgramLogSize(self.0, &mut size) != sys::nvrtcResult::NVRTC_SUCCESS {
                return "(program log unavailable)".to_string();
            }
            let mut log = vec![0u8; size];
            if sys::nvrtcGetProgramLog(self.0, log.as_mut_ptr().cast())
                != sys::nvrtcResult::NVRTC_SUCCESS
            {
                return "(program log unavailable)".to_string();
            }
            nul_terminated(&log)
        }
    }
}

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: the program was created by nvrtcCreateProgram and is destroyed once.
        unsafe {
            sys::nvrtcDestroyProgram(&mut self.0);
        }
    }
}

fn nul_terminated(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    String::from_utf8_lossy(&bytes[..end]).into_owned()
}

fn error_string(status: sys::nvrtcResult) -> String {
    // SAFETY: nvrtcGetErrorString returns a static string for every status.
    let text = unsafe { sys::nvrtcGetErrorString(status) };
    if text.is_null() {
        return format!("{status:?}");
    }
    // SAFETY: non-null, NUL-terminated, static.
    unsafe { CStr::from_ptr(text) }
        .to_string_lossy()
        .into_owned()
}

fn check(status: sys::nvrtcResult, call: &str) -> Result<()> {
    if status == sys::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(Error::Unavailable(format!(
            "{call} failed: {}",
            error_string(status)
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{tool_available, SUM_KERNEL};

    #[test]
    fn compiles_cubins_for_ampere_and_hopper() {
        if !tool_available("nvrtc::cubin", nvrtc_available()) {
            return;
        }
        let (major, _) = nvrtc_version().unwrap();
        assert!(major >= 11, "NVRTC {major}");
        for arch in ["sm_80", "sm_90"] {
            let cubin = compile_cubin(SUM_KERNEL, arch, "sum").unwrap();
            assert!(cubin.len() > 64, "{arch}: {} bytes", cubin.len());
            assert_eq!(&cubin[..4], b"\x7fELF", "{arch}");
        }
        let ptx = compile_ptx(SUM_KERNEL, "compute_80", "sum").unwrap();
        assert!(ptx.contains(".entry sum_kernel"), "{ptx}");
    }

    #[test]
    fn compile_errors_carry_the_log() {
        if !tool_available("nvrtc::errors", nvrtc_available()) {
            return;
        }
        let err =
            compile_cubin("__global__ void k() { undefined_thing; }", "sm_80", "bad").unwrap_err();
        match &err {
            Error::Nvrtc { log, name, .. } => {
                assert!(log.contains("undefined_thing"), "{log}");
                assert_eq!(name, "bad");
            }
            other => panic!("expected an NVRTC error, got {other}"),
        }
        let err = compile_cubin(SUM_KERNEL, "compute_80", "sum").unwrap_err();
        assert!(err.to_string().contains("must look like sm_80"), "{err}");
    }
}
