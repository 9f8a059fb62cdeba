//! MAT v5 reader: header, data elements (regular, small, compressed), matrix elements.

use std::io::Read;

use super::*;
use crate::value::{dims_text, Data};

/// Reads every variable from the bytes of a MAT-file, in file order.
pub fn read_mat_bytes(bytes: &[u8]) -> Result<Vec<(String, Value)>> {
    let big_endian = read_header(bytes)?;
    let mut cursor = Cursor {
        buf: bytes,
        pos: 128,
        big_endian,
    };
    let mut vars = Vec::new();
    while cursor.remaining() >= 8 {
        let element = cursor.element()?;
        let (name, value) = match element.ty {
            MI_MATRIX => read_matrix(element.data, big_endian)?,
            MI_COMPRESSED => read_compressed(element.data, big_endian)?,
            other => {
                return Err(mat_err(format!(
                    "unexpected top-level element type {other}"
                )))
            }
        };
        // MATLAB's subsystem data (for objects) is an unnamed uint8 matrix: not a variable.
        if !name.is_empty() {
            vars.push((name, value));
        }
    }
    Ok(vars)
}

fn mat_err(message: impl Into<String>) -> Error {
    Error::Mat(message.into())
}

/// Checks the 128-byte header; returns true for a big-endian file.
fn read_header(bytes: &[u8]) -> Result<bool> {
    if bytes.starts_with(b"# Created by Octave") {
        return Err(mat_err(
            "this is an Octave text file, not a MAT-file; save with `save -v7 file.mat x`",
        ));
    }
    if bytes.len() < 128 {
        return Err(mat_err("too short to be a MAT-file (no 128-byte header)"));
    }
    if bytes.starts_with(b"MATLAB 7.3") {
        return Err(mat_err(
            "MAT-file version 7.3 (HDF5) is not supported; save with `save -v7`",
        ));
    }
    match &bytes[126..128] {
        b"IM" => Ok(false),
        b"MI" => Ok(true),
        _ => Err(mat_err(
            "not a MAT-file version 5 (no endian mark in the header); save with `save -v7`",
        )),
    }
}

/// One data element: its type and payload (padding excluded).
struct Element<'a> {
    ty: u32,
    data: &'a [u8],
}

struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    big_endian: bool,
}

impl<'a> Cursor<'a> {
    fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(mat_err(format!(
                "truncated: an element needs {n} bytes at offset {}, {} remain",
                self.pos,
                self.remaining()
            )));
        }
        let slice = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(slice)
    }

    fn u32(&mut self) -> Result<u32> {
        let b: [u8; 4] = self.take(4)?.try_into().expect("4 bytes");
        Ok(if self.big_endian {
            u32::from_be_bytes(b)
        } else {
            u32::from_le_bytes(b)
        })
    }

    /// The next element, in regular or small format; skips the padding to 8 bytes.
    fn element(&mut self) -> Result<Element<'a>> {
        let first = self.u32()?;
        if first >> 16 != 0 {
            let (ty, n) = (first & 0xffff, (first >> 16) as usize);
            if n > 4 {
                return Err(mat_err(format!(
                    "small element claims {n} bytes (at most 4)"
                )));
            }
            return Ok(Element {
                ty,
                data: &self.take(4)?[..n],
            });
        }
        let n = self.u32()? as usize;
        let data = self.take(n)?;
        if first != MI_COMPRESSED {
            let pad = (8 - n % 8) % 8;
            self.pos += pad.min(self.remaining());
        }
        Ok(Element { ty: first, data })
    }
}

fn read_compressed(data: &[u8], big_endian: bool) -> Result<(String, Value)> {
    let mut inflated = Vec::new();
    flate2::read::ZlibDecoder::new(data)
        .read_to_end(&mut inflated)
        .map_err(|e| mat_err(format!("corrupt compressed element: {e}")))?;
    let mut cursor = Cursor {
        buf: &inflated,
        pos: 0,
        big_endian,
    };
    let element = cursor.element()?;
    if element.ty != MI_MATRIX {
        return Err(mat_err(format!(
            "compressed element holds type {}, expected a matrix",
            element.ty
        )));
    }
    read_matrix(element.data, big_endian)
}

/// Parses the contents of an `miMATRIX` element into a named value.
fn read_matrix(data: &[u8], big_endian: bool) -> Result<(String, Value)> {
    let mut cursor = Cursor {
        buf: data,
        pos: 0,
        big_endian,
    };
    let flags = cursor.element()?;
    let flags = decode_ints(&flags, big_endian)?;
    let word = *flags
        .first()
        .ok_or_else(|| mat_err("matrix without array flags"))? as u32;
    let dims = decode_ints(&cursor.element()?, big_endian)?;
    let name = String::from_utf8_lossy(cursor.element()?.data).into_owned();
    let class = value_class(&name, word)?;
    let dims = value_dims(&name, &dims)?;
    let real = cursor.element()?;
    let in_variable = |e: Error| mat_err(format!("variable '{name}': {e}"));
    let data = decode_data(&real, big_endian, class, &dims).map_err(in_variable)?;
    let value = Value::new(dims, data).map_err(in_variable)?;
    Ok((name, value))
}

/// The class from the array-flags word, refusing complex and non-array classes.
fn value_class(name: &str, word: u32) -> Result<ClassId> {
    let code = word & 0xff;
    let flags = (word >> 8) & 0xff;
    let class = ClassId::ALL
        .into_iter()
        .filter(|&c| c != ClassId::Logical)
        .find(|&c| mx_class(c) == code)
        .ok_or_else(|| {
            mat_err(format!(
                "variable '{name}' is {}; m2cu reads numeric, logical and char arrays",
                unsupported_mx_class(code)
            ))
        })?;
    if flags & FLAG_COMPLEX != 0 {
        return Err(mat_err(format!(
            "variable '{name}' is complex; m2cu supports real values only"
        )));
    }
    Ok(if flags & FLAG_LOGICAL != 0 {
        ClassId::Logical
    } else {
        class
    })
}

/// The extents of a 2-D or 3-D array; other dimension counts and negative extents are errors.
fn value_dims(name: &str, dims: &[i64]) -> Result<Vec<usize>> {
    if !(2..=3).contains(&dims.len()) {
        let text: Vec<String> = dims.iter().map(i64::to_string).collect();
        return Err(mat_err(format!(
            "variable '{name}' has {} dimensions ({}); m2cu supports 2-D and 3-D values only",
            dims.len(),
            text.join("×")
        )));
    }
    dims.iter()
        .map(|&d| {
            usize::try_from(d).map_err(|_| mat_err(format!("variable '{name}': dimension {d}")))
        })
        .collect()
}

/// Stored elements widened to one of three carrier types.
enum Stored {
    Signed(Vec<i64>),
    Unsigned(Vec<u64>),
    Float(Vec<f64>),
}

/// Splits `bytes` into `W`-byte chunks and decodes each in the file's byte order.
fn chunks<const W: usize, T>(
    bytes: &[u8],
    big_endian: bool,
    decode: fn([u8; W]) -> T,
) -> Result<Vec<T>> {
    if !bytes.len().is_multiple_of(W) {
        return Err(mat_err(format!(
            "{} bytes is not a whole number of {W}-byte elements",
            bytes.len()
        )));
    }
    Ok(bytes
        .chunks_exact(W)
        .map(|c| {
            let mut b: [u8; W] = c.try_into().expect("chunk of W bytes");
            if big_endian {
                b.reverse();
            }
            decode(b)
        })
        .collect())
}

fn widen<T: Copy, U>(v: Vec<T>, f: fn(T) -> U) -> Vec<U> {
    v.into_iter().map(f).collect()
}

fn decode_stored(element: &Element, big_endian: bool) -> Result<Stored> {
    let (b, be) = (element.data, big_endian);
    Ok(match element.ty {
        MI_INT8 => Stored::Signed(widen(chunks(b, be, i8::from_le_bytes)?, i64::from)),
        MI_UINT8 | MI_UTF8 => Stored::Unsigned(widen(chunks(b, be, u8::from_le_bytes)?, u64::from)),
        MI_INT16 => Stored::Signed(widen(chunks(b, be, i16::from_le_bytes)?, i64::from)),
        MI_UINT16 | MI_UTF16 => {
            Stored::Unsigned(widen(chunks(b, be, u16::from_le_bytes)?, u64::from))
        }
        MI_INT32 => Stored::Signed(widen(chunks(b, be, i32::from_le_bytes)?, i64::from)),
        MI_UINT32 => Stored::Unsigned(widen(chunks(b, be, u32::from_le_bytes)?, u64::from)),
        MI_INT64 => Stored::Signed(chunks(b, be, i64::from_le_bytes)?),
        MI_UINT64 => Stored::Unsigned(chunks(b, be, u64::from_le_bytes)?),
        MI_SINGLE => Stored::Float(widen(chunks(b, be, f32::from_le_bytes)?, f64::from)),
        MI_DOUBLE => Stored::Float(chunks(b, be, f64::from_le_bytes)?),
        other => return Err(mat_err(format!("unsupported element data type {other}"))),
    })
}

/// Integer flag words, dimensions: any integer element type.
fn decode_ints(element: &Element, big_endian: bool) -> Result<Vec<i64>> {
    match decode_stored(element, big_endian)? {
        Stored::Signed(v) => Ok(v),
        Stored::Unsigned(v) => Ok(widen(v, |x| x as i64)),
        Stored::Float(_) => Err(mat_err("expected integers, found floating-point data")),
    }
}

/// A type stored elements are converted into. Stored values always fit the class they were
/// written for, so the `as` conversions below are exact.
trait FromStored: Sized {
    fn from_i64(x: i64) -> Self;
    fn from_u64(x: u64) -> Self;
    fn from_f64(x: f64) -> Self;
}

macro_rules! from_stored {
    ($($t:ty),*) => {$(
        impl FromStored for $t {
            fn from_i64(x: i64) -> Self { x as $t }
            fn from_u64(x: u64) -> Self { x as $t }
            fn from_f64(x: f64) -> Self { x as $t }
        }
    )*};
}
from_stored!(f64, f32, i8, i16, i32, i64, u8, u16, u32, u64);

impl FromStored for bool {
    fn from_i64(x: i64) -> Self {
        x != 0
    }
    fn from_u64(x: u64) -> Self {
        x != 0
    }
    fn from_f64(x: f64) -> Self {
        x != 0.0
    }
}

fn convert<T: FromStored>(stored: Stored) -> Vec<T> {
    match stored {
        Stored::Signed(v) => widen(v, T::from_i64),
        Stored::Unsigned(v) => widen(v, T::from_u64),
        Stored::Float(v) => widen(v, T::from_f64),
    }
}

/// The real part of a matrix with extents `dims`, converted to the elements of `class`.
fn decode_data(
    element: &Element,
    big_endian: bool,
    class: ClassId,
    dims: &[usize],
) -> Result<Data> {
    if class == ClassId::Char && element.ty == MI_UTF8 {
        let text = std::str::from_utf8(element.data)
            .map_err(|e| mat_err(format!("char data is not UTF-8: {e}")))?;
        return check_len(Data::Char(text.encode_utf16().collect()), dims);
    }
    let stored = decode_stored(element, big_endian)?;
    let data = match class {
        ClassId::Double => Data::Double(convert(stored)),
        ClassId::Single => Data::Single(convert(stored)),
        ClassId::Int8 => Data::Int8(convert(stored)),
        ClassId::Int16 => Data::Int16(convert(stored)),
        ClassId::Int32 => Data::Int32(convert(stored)),
        ClassId::Int64 => Data::Int64(convert(stored)),
        ClassId::Uint8 => Data::Uint8(convert(stored)),
        ClassId::Uint16 => Data::Uint16(convert(stored)),
        ClassId::Uint32 => Data::Uint32(convert(stored)),
        ClassId::Uint64 => Data::Uint64(convert(stored)),
        ClassId::Logical => Data::Logical(convert(stored)),
        ClassId::Char => Data::Char(convert(stored)),
    };
    check_len(data, dims)
}

fn check_len(data: Data, dims: &[usize]) -> Result<Data> {
    let numel = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if numel != Some(data.len()) {
        return Err(mat_err(format!(
            "dimensions {} do not match the {} elements the data holds",
            dims_text(dims),
            data.len()
        )));
    }
    Ok(data)
}
