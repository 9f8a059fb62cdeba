//! MAT-file version 5 (Level 5) read and write: what `save -v6` (uncompressed) and `save -v7`
//! (zlib-compressed `miCOMPRESSED` elements) write in MATLAB and GNU Octave.
//!
//! A file is a 128-byte header (text, subsystem offset, version `0x0100`, endian mark `IM`)
//! followed by data elements, one `miMATRIX` per variable, each possibly wrapped in an
//! `miCOMPRESSED` zlib stream. A matrix element holds array flags (class and the logical and
//! complex bits), dimensions, the name, and the real part, whose stored type may be narrower than
//! the class (MATLAB stores integer-valued doubles as `miUINT8` when they fit).
//!
//! Read: the numeric classes, logical and char, 2-D and 3-D, real, and complex double (the
//! complex flag, then a real and an imaginary data element, each possibly stored narrower),
//! both byte orders, regular and small element formats; the values satisfy [`Value`]'s
//! invariants (a third extent of 1 is dropped). A complex value is read as stored, zero
//! imaginary parts included (Octave's `load` narrows such a value to real: `m2cu::read_mat_file`
//! does so for inputs). Complex integers and singles, sparse, cell, struct and object variables,
//! and arrays of more than three dimensions, are reported as errors naming the variable. v7.3 (HDF5) and Octave's text format are recognized and refused
//! with a hint. Write: little-endian, `-v6` or `-v7` style, every class and both shapes exactly
//! (the dimensions element holds the value's two or three extents; logicals as `uint8` with the
//! logical flag, chars as `miUTF8`, complex doubles with the complex flag and two `miDOUBLE`
//! parts).

mod read;
mod write;

use std::path::Path;

use crate::value::{ClassId, Value};
use crate::{Error, Result};

pub use read::read_mat_bytes;
pub use write::write_mat_bytes;

/// How [`write_mat_bytes`] stores variables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum MatFormat {
    /// Uncompressed elements, as `save -v6`.
    V6,
    /// Each variable zlib-compressed, as `save -v7` (the default).
    #[default]
    V7,
}

/// Reads every variable of a MAT-file, in file order (see [`read_mat_bytes`]); the file must be a
/// regular file no larger than [`crate::limits::max_input_bytes`].
pub fn read_mat(path: impl AsRef<Path>) -> Result<Vec<(String, Value)>> {
    let path = path.as_ref();
    let bytes = crate::limits::read_file_capped(path, crate::limits::max_input_bytes())?;
    read_mat_bytes(&bytes).map_err(|e| match e {
        Error::Mat(m) => Error::Mat(format!("{}: {m}", path.display())),
        other => other,
    })
}

/// Writes variables to a MAT-file in `-v7` style (compressed), replacing the file.
pub fn write_mat(path: impl AsRef<Path>, vars: &[(String, Value)]) -> Result<()> {
    let path = path.as_ref();
    let bytes = write_mat_bytes(vars, MatFormat::V7)?;
    std::fs::write(path, bytes)
        .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

// Data element types (miXXX).
const MI_INT8: u32 = 1;
const MI_UINT8: u32 = 2;
const MI_INT16: u32 = 3;
const MI_UINT16: u32 = 4;
const MI_INT32: u32 = 5;
const MI_UINT32: u32 = 6;
const MI_SINGLE: u32 = 7;
const MI_DOUBLE: u32 = 9;
const MI_INT64: u32 = 12;
const MI_UINT64: u32 = 13;
const MI_MATRIX: u32 = 14;
const MI_COMPRESSED: u32 = 15;
const MI_UTF8: u32 = 16;
const MI_UTF16: u32 = 17;

// Array flag bits (in the byte above the class byte).
const FLAG_COMPLEX: u32 = 0x08;
const FLAG_LOGICAL: u32 = 0x02;

/// The mxCLASS code a class is written with (logical: `mxUINT8_CLASS` plus the logical flag).
fn mx_class(class: ClassId) -> u32 {
    match class {
        ClassId::Char => 4,
        ClassId::Double => 6,
        ClassId::Single => 7,
        ClassId::Int8 => 8,
        ClassId::Uint8 | ClassId::Logical => 9,
        ClassId::Int16 => 10,
        ClassId::Uint16 => 11,
        ClassId::Int32 => 12,
        ClassId::Uint32 => 13,
        ClassId::Int64 => 14,
        ClassId::Uint64 => 15,
    }
}

/// What an mxCLASS code that m2cu does not read is called, for error messages.
fn unsupported_mx_class(code: u32) -> &'static str {
    match code {
        1 => "a cell array",
        2 => "a struct",
        3 => "an object",
        5 => "a sparse matrix",
        16 => "a function handle",
        17 => "an opaque object",
        _ => "of an unknown class",
    }
}

#[cfg(test)]
mod tests;
