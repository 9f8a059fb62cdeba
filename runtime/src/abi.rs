//! The m2cu C ABI (`codegen/src/c/m2cu_abi.h`, version 1) seen from Rust: `#[repr(C)]` mirrors
//! of its structs, the entry-point signatures, and the marshaling of [`Value`]s in and out.
//!
//! Inputs are passed as pointers into the values' own storage (the C side never writes them).
//! Outputs start zeroed; after the call each is copied into a [`Value`] of the declared class
//! and every non-NULL `data` is handed to `m2cu_release`, on success and on error alike, so
//! generated code must leave `data` NULL (or valid) in outputs it did not fill.

use std::ffi::{c_char, c_int, c_void, CStr};

use crate::value::{dims_text, ClassId, Data, Value};
use crate::{Error, Result};

/// The ABI header, made available to generated C that `#include`s it.
pub(crate) const HEADER: &str = include_str!("../../codegen/src/c/m2cu_abi.h");
/// The file name generated C includes.
pub(crate) const HEADER_NAME: &str = "m2cu_abi.h";

/// `m2cu_array`: column-major elements and two extents.
#[repr(C)]
#[derive(Debug)]
pub(crate) struct M2cuArray {
    pub data: *mut c_void,
    pub dims: [i64; 2],
}

/// `m2cu_gpu`: the services a GPU host entry calls.
#[repr(C)]
pub(crate) struct M2cuGpu {
    pub ctx: *mut c_void,
    pub sm_count: i32,
    pub reserved: i32,
    pub alloc: unsafe extern "C" fn(*mut c_void, *mut u64, u64) -> c_int,
    pub release: unsafe extern "C" fn(*mut c_void, u64) -> c_int,
    pub upload: unsafe extern "C" fn(*mut c_void, u64, *const c_void, u64) -> c_int,
    pub download: unsafe extern "C" fn(*mut c_void, *mut c_void, u64, u64) -> c_int,
    pub launch:
        unsafe extern "C" fn(*mut c_void, *const c_char, u32, u32, u32, *mut *mut c_void) -> c_int,
}

/// `int <entry>(const m2cu_array *, m2cu_array *, char *err, size_t err_len)`.
pub(crate) type CpuEntry =
    unsafe extern "C" fn(*const M2cuArray, *mut M2cuArray, *mut c_char, usize) -> c_int;
/// `int <entry>_gpu(const m2cu_array *, m2cu_array *, const m2cu_gpu *, char *, size_t)`.
pub(crate) type GpuEntry = unsafe extern "C" fn(
    *const M2cuArray,
    *mut M2cuArray,
    *const M2cuGpu,
    *mut c_char,
    usize,
) -> c_int;
/// `void m2cu_release(void *data)`.
pub(crate) type ReleaseFn = unsafe extern "C" fn(*mut c_void);

/// What an entry returns: its name in the program and its MATLAB class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputSpec {
    pub name: String,
    pub class: ClassId,
}

impl OutputSpec {
    pub fn new(name: impl Into<String>, class: ClassId) -> OutputSpec {
        OutputSpec {
            name: name.into(),
            class,
        }
    }
}

/// Room for the entry's error message.
const ERR_LEN: usize = 1024;

/// Calls an entry through `call(inputs, outputs, err, err_len)`, marshaling values both ways
/// and releasing the output memory with `release`.
pub(crate) fn invoke(
    inputs: &[Value],
    outputs: &[OutputSpec],
    release: ReleaseFn,
    call: impl FnOnce(*const M2cuArray, *mut M2cuArray, *mut c_char, usize) -> c_int,
) -> Result<Vec<Value>> {
    let ins = inputs
        .iter()
        .enumerate()
        .map(|(k, v)| input_array(k, v))
        .collect::<Result<Vec<_>>>()?;
    for spec in outputs {
        check_class(spec.class, &format!("output '{}'", spec.name))?;
    }
    let mut outs: Vec<M2cuArray> = outputs
        .iter()
        .map(|_| M2cuArray {
            data: std::ptr::null_mut(),
            dims: [0, 0],
        })
        .collect();
    let mut err = [0 as c_char; ERR_LEN];
    let status = call(ins.as_ptr(), outs.as_mut_ptr(), err.as_mut_ptr(), ERR_LEN);
    // SAFETY: the entry filled `outs` per the ABI; each data pointer is released exactly once.
    let values = unsafe { take_outputs(&outs, outputs, release) };
    if status != 0 {
        return Err(Error::Call(error_message(&err, status)));
    }
    values
}

fn error_message(err: &[c_char; ERR_LEN], status: c_int) -> String {
    let mut bytes: Vec<u8> = err.iter().map(|&c| c as u8).collect();
    bytes[ERR_LEN - 1] = 0;
    let text = CStr::from_bytes_until_nul(&bytes).map(|s| s.to_string_lossy().into_owned());
    match text {
        Ok(t) if !t.is_empty() => t,
        _ => format!("generated code failed with status {status} and no message"),
    }
}

/// Char has no C type in ABI version 1.
fn check_class(class: ClassId, what: &str) -> Result<()> {
    if class == ClassId::Char {
        return Err(Error::Value(format!(
            "{what} is char, which cannot cross the m2cu C ABI (version 1)"
        )));
    }
    Ok(())
}

fn input_array(k: usize, value: &Value) -> Result<M2cuArray> {
    check_class(value.class(), &format!("input {}", k + 1))?;
    Ok(M2cuArray {
        data: value.data.as_ptr() as *mut c_void,
        dims: [value.rows() as i64, value.cols() as i64],
    })
}

/// Copies every output into a value and releases every non-NULL data pointer; the first
/// malformed output is the error.
///
/// # Safety
/// Each non-NULL `data` must point to at least `dims[0] * dims[1]` elements of the declared
/// class's C type, allocated so that `release` frees it.
unsafe fn take_outputs(
    arrays: &[M2cuArray],
    specs: &[OutputSpec],
    release: ReleaseFn,
) -> Result<Vec<Value>> {
    let values: Vec<Result<Value>> = arrays
        .iter()
        .zip(specs)
        .map(|(a, spec)| copy_output(a, spec))
        .collect();
    for a in arrays.iter().filter(|a| !a.data.is_null()) {
        release(a.data);
    }
    values.into_iter().collect()
}

/// # Safety
/// As for [`take_outputs`].
unsafe fn copy_output(array: &M2cuArray, spec: &OutputSpec) -> Result<Value> {
    let bad = |why: String| Error::Call(format!("output '{}': {why}", spec.name));
    let [rows, cols] = array.dims;
    let (Ok(r), Ok(c)) = (usize::try_from(rows), usize::try_from(cols)) else {
        return Err(bad(format!("negative extents {rows}×{cols}")));
    };
    let numel = r
        .checked_mul(c)
        .ok_or_else(|| bad(format!("extents {rows}×{cols} overflow")))?;
    if numel > 0 && array.data.is_null() {
        return Err(bad(format!("{} result has NULL data", dims_text(&[r, c]))));
    }
    let data = if numel == 0 {
        Data::zeros(spec.class, 0)
    } else if spec.class == ClassId::Logical {
        let bytes = std::slice::from_raw_parts(array.data as *const u8, numel);
        Data::Logical(bytes.iter().map(|&b| b != 0).collect())
    } else {
        let mut data = Data::zeros(spec.class, numel);
        let bytes = numel * spec.class.element_size();
        std::ptr::copy_nonoverlapping(array.data as *const u8, data.as_mut_ptr(), bytes);
        data
    };
    Ok(Value {
        dims: vec![r, c],
        data,
    })
}
