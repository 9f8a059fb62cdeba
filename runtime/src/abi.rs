//! The m2cu C ABI (`codegen/src/c/m2cu_abi.h`, version 3) seen from Rust: `#[repr(C)]` mirrors
//! of its structs, the entry-point signatures, and the marshaling of [`Value`]s in and out.
//!
//! Every value crosses with three extents `[rows, cols, pages]`; a 2-D value has `pages == 1`.
//! Inputs are passed as pointers into the values' own storage. Lent inputs ([`invoke`]) are
//! never written. Outputs start zeroed (NULL data, all three extents 0), except that a caller
//! giving its inputs up ([`invoke_given`]) starts each [`Offer`]'s output as its input's array:
//! the entry may then compute that output in the input's memory and return the same pointer,
//! and the input's value becomes the output with no copy. Every other output is copied into a
//! [`Value`] of the declared class, 2-D when its third extent is 1 and 3-D otherwise, and its
//! non-NULL `data` is handed to `m2cu_release`, on success and on error alike, so generated
//! code must leave `data` NULL (or valid) in outputs it did not fill.
//!
//! A complex double crosses as interleaved `(re, im)` pairs (the prelude's `m2cu_cdouble`, 16
//! bytes), in the same `m2cu_array`; the value's [`Data::ComplexDouble`] says so for an input,
//! the output's [`Complexity`] for an output.
//!
//! Narrowing on return: Octave narrows a complex value whose imaginary parts are all zero to
//! a real one when an operation computes it, but keeps what `complex(a, b)` made, and what an
//! input held, complex. The entry says which after its outputs: one logical scalar per complex
//! output, in output order, true when the output is kept complex (`m2cu_frontend::lower::
//! complex_io`); the caller narrows the others ([`Value::narrowed`], `m2cu::Program`).

use std::borrow::Borrow;
use std::ffi::{c_char, c_int, c_void};

use crate::value::{dims_text, ClassId, Data, Value};
use crate::{CallError, Error, ErrorCode, Result};

/// The ABI header, made available to generated C that `#include`s it.
pub(crate) const HEADER: &str = include_str!("../../codegen/src/c/m2cu_abi.h");
/// The file name generated C includes.
pub(crate) const HEADER_NAME: &str = "m2cu_abi.h";

/// `m2cu_array`: column-major elements and three extents (rows, columns, pages).
#[repr(C)]
#[derive(Debug)]
pub(crate) struct M2cuArray {
    pub data: *mut c_void,
    pub dims: [i64; 3],
}

/// `m2cu_gpu`: the services a GPU host entry calls.
#[repr(C)]
pub(crate) struct M2cuGpu {
    pub ctx: *mut c_void,
    pub sm_count: i32,
    /// Forced threads per output of the per-output kernels, 0 to let the host program choose.
    pub lanes: i32,
    pub alloc: unsafe extern "C" fn(*mut c_void, *mut u64, u64) -> c_int,
    pub release: unsafe extern "C" fn(*mut c_void, u64) -> c_int,
    pub upload: unsafe extern "C" fn(*mut c_void, u64, *const c_void, u64) -> c_int,
    pub download: unsafe extern "C" fn(*mut c_void, *mut c_void, u64, u64) -> c_int,
    pub launch:
        unsafe extern "C" fn(*mut c_void, *const c_char, u32, u32, u32, *mut *mut c_void) -> c_int,
    pub to_constant: unsafe extern "C" fn(*mut c_void, *const c_char, *const c_void, u64) -> c_int,
    pub copy: unsafe extern "C" fn(*mut c_void, u64, u64, u64) -> c_int,
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

/// Whether an output's elements are real or complex doubles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Complexity {
    /// Real elements of the output's class.
    #[default]
    Real,
    /// Complex doubles (`m2cu_cdouble`), whatever their imaginary parts.
    Complex,
}

/// What an entry returns: its name in the program, its MATLAB class and its complexity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputSpec {
    pub name: String,
    pub class: ClassId,
    pub complexity: Complexity,
}

impl OutputSpec {
    /// A real output.
    pub fn new(name: impl Into<String>, class: ClassId) -> OutputSpec {
        OutputSpec {
            name: name.into(),
            class,
            complexity: Complexity::Real,
        }
    }

    /// A complex double output.
    pub fn complex(name: impl Into<String>) -> OutputSpec {
        OutputSpec {
            complexity: Complexity::Complex,
            ..OutputSpec::new(name, ClassId::Double)
        }
    }

    /// `n` zero elements of this output's type.
    fn zeros(&self, n: usize) -> Data {
        match self.complexity {
            Complexity::Real => Data::zeros(self.class, n),
            Complexity::Complex => Data::ComplexDouble(vec![[0.0; 2]; n]),
        }
    }
}

/// Room for the entry's error message.
const ERR_LEN: usize = 1024;

/// The entry call of [`invoke`]: `call(inputs, outputs, err, err_len)`.
pub(crate) trait EntryCall:
    FnOnce(*const M2cuArray, *mut M2cuArray, *mut c_char, usize) -> c_int
{
}
impl<F: FnOnce(*const M2cuArray, *mut M2cuArray, *mut c_char, usize) -> c_int> EntryCall for F {}

/// An output that the caller offers to compute in an input's memory (ABI version 3): the
/// caller gives the input up, and the entry may update it in place and return it as the output
/// (`function y = f(a, x, y)`). The entry decides; an offer it declines costs nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Offer {
    pub output: usize,
    pub input: usize,
}

/// Calls an entry through `call(inputs, outputs, err, err_len)` on lent inputs (read in place,
/// never written), marshaling values both ways and releasing the output memory with `release`.
pub(crate) fn invoke<V: Borrow<Value>>(
    inputs: &[V],
    outputs: &[OutputSpec],
    release: ReleaseFn,
    call: impl EntryCall,
) -> Result<Vec<Value>> {
    let ins = inputs
        .iter()
        .map(|v| input_array(v.borrow()))
        .collect::<Vec<_>>();
    let (status, outs, err) = exchange(&ins, zeroed(outputs.len()), call);
    // SAFETY: the entry filled `outs` per the ABI; each data pointer is released exactly once.
    let values = unsafe { take_outputs(&outs, outputs, release, |_, _| None) };
    finish(status, &err, values)
}

/// [`invoke`] on inputs the caller offers for outputs: each offer's output starts as its
/// input's array (the ABI's offer), and an output the entry returns in that memory is taken
/// from `inputs` with no copy, leaving an empty value there; the entry may have changed the
/// elements of every offered input.
pub(crate) fn invoke_given(
    inputs: &mut [Value],
    offers: &[Offer],
    outputs: &[OutputSpec],
    release: ReleaseFn,
    call: impl EntryCall,
) -> Result<Vec<Value>> {
    let ins = inputs
        .iter_mut()
        .map(|v| M2cuArray {
            data: v.data.as_mut_ptr().cast(),
            dims: dims_of(v),
        })
        .collect::<Vec<_>>();
    let mut outs = zeroed(outputs.len());
    for offer in offers.iter().filter(|o| inputs[o.input].numel() > 0) {
        outs[offer.output] = M2cuArray {
            data: ins[offer.input].data,
            dims: ins[offer.input].dims,
        };
    }
    let (status, outs, err) = exchange(&ins, outs, call);
    let mut adopt = |j: usize, array: &M2cuArray| {
        let offer = offers.iter().find(|o| o.output == j)?;
        (!array.data.is_null() && array.data == ins[offer.input].data).then(|| {
            let value = std::mem::replace(&mut inputs[offer.input], Value::taken());
            in_place_output(array, value, &outputs[j])
        })
    };
    // SAFETY: as in `invoke`; an output in a given input's memory is that input's value, which
    // is never released.
    let values = unsafe { take_outputs(&outs, outputs, release, &mut adopt) };
    finish(status, &err, values)
}

/// Outputs as the caller passes them when it offers none: NULL data, all extents 0.
fn zeroed(n: usize) -> Vec<M2cuArray> {
    (0..n)
        .map(|_| M2cuArray {
            data: std::ptr::null_mut(),
            dims: [0; 3],
        })
        .collect()
}

/// Runs `call` with room for its message: the status, the outputs and the message.
fn exchange(
    ins: &[M2cuArray],
    mut outs: Vec<M2cuArray>,
    call: impl EntryCall,
) -> (c_int, Vec<M2cuArray>, [c_char; ERR_LEN]) {
    let mut err = [0 as c_char; ERR_LEN];
    let status = call(ins.as_ptr(), outs.as_mut_ptr(), err.as_mut_ptr(), ERR_LEN);
    (status, outs, err)
}

fn finish(
    status: c_int,
    err: &[c_char; ERR_LEN],
    values: Result<Vec<Value>>,
) -> Result<Vec<Value>> {
    if status != 0 {
        return Err(call_error(err, status));
    }
    values
}

/// The output the entry computed in the memory of the given input `value`: the input's
/// elements with the output's extents, which must hold as many.
fn in_place_output(array: &M2cuArray, value: Value, spec: &OutputSpec) -> Result<Value> {
    let dims = output_dims(array, spec)?;
    let complex = spec.complexity == Complexity::Complex;
    if dims.iter().product::<usize>() != value.numel()
        || value.class() != spec.class
        || value.is_complex() != complex
    {
        return Err(Error::Output(format!(
            "output '{}': {} result in the memory of a {} {} input",
            spec.name,
            dims_text(&dims),
            dims_text(&value.dims),
            value.class().name()
        )));
    }
    Value::new(dims, value.data)
}

/// The error of a failed call: the program's own (`<identifier>\x1f<message>` in `err`, see
/// `m2cu_raise`), or m2cu's message for the status with the record after it ([`CallError`]).
fn call_error(err: &[c_char; ERR_LEN], status: c_int) -> Error {
    let mut bytes: Vec<u8> = err.iter().map(|&c| c as u8).collect();
    bytes[ERR_LEN - 1] = 0;
    let error = CallError::from_buffer(status, &bytes);
    match error.message.split_once('\u{1f}') {
        Some((identifier, message)) if status == ErrorCode::User.code() => Error::Raised {
            identifier: identifier.to_string(),
            message: message.to_string(),
        },
        _ => Error::Call(Box::new(error)),
    }
}

fn input_array(value: &Value) -> M2cuArray {
    M2cuArray {
        data: value.data.as_ptr() as *mut c_void,
        dims: dims_of(value),
    }
}

fn dims_of(value: &Value) -> [i64; 3] {
    [value.rows(), value.cols(), value.pages()].map(|d| d as i64)
}

/// Turns every output into a value: `adopt(k, array)` where it returns one (an output in a
/// given input's memory, not released), else a copy, releasing every other non-NULL data
/// pointer; the first malformed output is the error.
///
/// # Safety
/// Each non-NULL `data` that `adopt` declines must point to at least
/// `dims[0] * dims[1] * dims[2]` elements of the declared class's C type, allocated so that
/// `release` frees it.
unsafe fn take_outputs(
    arrays: &[M2cuArray],
    specs: &[OutputSpec],
    release: ReleaseFn,
    mut adopt: impl FnMut(usize, &M2cuArray) -> Option<Result<Value>>,
) -> Result<Vec<Value>> {
    let mut values = Vec::with_capacity(arrays.len());
    for (k, (a, spec)) in arrays.iter().zip(specs).enumerate() {
        if let Some(value) = adopt(k, a) {
            values.push(value);
            continue;
        }
        values.push(copy_output(a, spec));
        if !a.data.is_null() {
            release(a.data);
        }
    }
    values.into_iter().collect()
}

/// The extents of an output, as `usize`s.
fn output_dims(array: &M2cuArray, spec: &OutputSpec) -> Result<Vec<usize>> {
    array
        .dims
        .iter()
        .map(|&d| usize::try_from(d))
        .collect::<std::result::Result<Vec<usize>, _>>()
        .map_err(|_| {
            let raw = format!("{}×{}×{}", array.dims[0], array.dims[1], array.dims[2]);
            Error::Output(format!("output '{}': negative extents {raw}", spec.name))
        })
}

/// # Safety
/// As for [`take_outputs`].
unsafe fn copy_output(array: &M2cuArray, spec: &OutputSpec) -> Result<Value> {
    let bad = |why: String| Error::Output(format!("output '{}': {why}", spec.name));
    let raw = || format!("{}×{}×{}", array.dims[0], array.dims[1], array.dims[2]);
    let dims = output_dims(array, spec)?;
    let numel = dims
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d))
        .filter(|&n| {
            // A Rust allocation holds at most isize::MAX bytes.
            n.checked_mul(spec.zeros(0).element_size())
                .is_some_and(|bytes| isize::try_from(bytes).is_ok())
        })
        .ok_or_else(|| bad(format!("extents {} overflow", raw())))?;
    if numel > 0 && array.data.is_null() {
        return Err(bad(format!("{} result has NULL data", dims_text(&dims))));
    }
    let data = if numel == 0 {
        spec.zeros(0)
    } else if spec.class == ClassId::Logical {
        let bytes = std::slice::from_raw_parts(array.data as *const u8, numel);
        Data::Logical(bytes.iter().map(|&b| b != 0).collect())
    } else {
        let mut data = spec.zeros(0);
        data.extend_from_raw(array.data as *const u8, numel);
        data
    };
    Value::new(dims, data)
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" fn keep(_: *mut c_void) {}

    /// Reads an output whose `data` points at `elements`, with extents `dims`.
    fn output(dims: [i64; 3], elements: &mut [i16]) -> Result<Value> {
        let array = M2cuArray {
            data: elements.as_mut_ptr().cast(),
            dims,
        };
        let spec = OutputSpec::new("y", ClassId::Int16);
        // SAFETY: `elements` holds every element the extents that the tests pass describe.
        unsafe { take_outputs(std::slice::from_ref(&array), &[spec], keep, |_, _| None) }
            .map(|mut v| v.remove(0))
    }

    #[test]
    fn outputs_are_2d_or_3d_by_their_pages() {
        let mut elements: Vec<i16> = (1..=24).collect();
        let cube = output([2, 3, 4], &mut elements).unwrap();
        assert_eq!(
            cube,
            Value::new(vec![2, 3, 4], Data::Int16(elements.clone())).unwrap()
        );
        let matrix = output([4, 6, 1], &mut elements).unwrap();
        assert_eq!(matrix.dims, vec![4, 6]);
        let empty = output([2, 0, 3], &mut []).unwrap();
        assert_eq!(empty.dims, vec![2, 0, 3]);
    }

    #[test]
    fn complex_outputs_are_read_as_pairs() {
        let mut pairs = [[1.0, 2.0], [3.0, 0.0], [4.0, -0.0]];
        let all = Value::row(pairs.to_vec());
        let mut read = |dims| {
            let array = M2cuArray {
                data: pairs.as_mut_ptr().cast(),
                dims,
            };
            // SAFETY: `pairs` holds the three elements the extents describe.
            unsafe { take_outputs(&[array], &[OutputSpec::complex("z")], keep, |_, _| None) }
                .map(|mut v| v.remove(0))
        };
        assert_eq!(read([1, 3, 1]).unwrap(), all);
        assert_eq!(read([0, 3, 1]).unwrap().data, Data::ComplexDouble(vec![]));
    }

    #[test]
    fn bad_output_extents_are_errors() {
        let err = output([2, -1, 3], &mut []).unwrap_err().to_string();
        assert_eq!(err, "output 'y': negative extents 2×-1×3");
        let err = output([1 << 40, 1 << 40, 2], &mut [])
            .unwrap_err()
            .to_string();
        assert!(err.ends_with("overflow"), "{err}");
        let err = output([i64::MAX, 1, 1], &mut []).unwrap_err().to_string();
        assert!(err.ends_with("overflow"), "{err}");
        let null = M2cuArray {
            data: std::ptr::null_mut(),
            dims: [1, 2, 2],
        };
        // SAFETY: NULL data is never read.
        let err = unsafe {
            take_outputs(
                &[null],
                &[OutputSpec::new("z", ClassId::Double)],
                keep,
                |_, _| None,
            )
        }
        .unwrap_err();
        assert_eq!(err.to_string(), "output 'z': 1×2×2 result has NULL data");
    }

    #[test]
    fn inputs_carry_three_extents() {
        let v = Value::new(vec![2, 1, 3], Data::Double(vec![0.0; 6])).unwrap();
        assert_eq!(input_array(&v).dims, [2, 1, 3]);
        assert_eq!(input_array(&Value::row(vec![1u8, 2])).dims, [1, 2, 1]);
        assert_eq!(input_array(&Value::char_row("ab")).dims, [1, 2, 1]);
        let z = Value::scalar([1.5, -2.0]);
        // SAFETY: a complex input points at its (re, im) pair.
        let parts = unsafe { *(input_array(&z).data as *const [f64; 2]) };
        assert_eq!(parts, [1.5, -2.0]);
    }
}
