//! MAT v5 reader: header, data elements (regular, small, compressed), matrix elements.

use super::*;
use crate::limits::{self, Limit};
use crate::value::{dims_text, Data};

/// Reads every variable from the bytes of a MAT-file, in file order; a name that appears twice
/// has the last value stored under it, as Octave's `load`. Each value may occupy at most
/// [`limits::max_input_bytes`].
pub fn read_mat_bytes(bytes: &[u8]) -> Result<Vec<(String, Value)>> {
    let limit = limits::max_input_bytes();
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
            MI_MATRIX => read_matrix(element.data, big_endian, limit)?,
            MI_COMPRESSED => read_compressed(element.data, big_endian, limit)?,
            other => {
                return Err(mat_err(format!(
                    "unexpected top-level element type {other}"
                )))
            }
        };
        // MATLAB's subsystem data (for objects) is an unnamed uint8 matrix: not a variable.
        if !name.is_empty() {
            vars.retain(|(earlier, _)| *earlier != name);
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

impl<'a> Cursor<'a> {
    /// The element of an inflated stream. Octave 7.3 declares some char matrices 4 bytes longer
    /// than it writes them (`['B'; 'C'; 'A']`, whose data is one small element, claims 52 bytes
    /// and holds 48): a matrix that the stream ends at most 4 bytes short of ends there.
    fn stream_matrix(&mut self) -> Result<Element<'a>> {
        let start = self.pos;
        let (ty, n) = (self.u32()?, self.u32()? as usize);
        let short = n.saturating_sub(self.remaining());
        if ty == MI_MATRIX && (1..=4).contains(&short) {
            let data = self.take(self.remaining())?;
            return Ok(Element { ty, data });
        }
        self.pos = start;
        self.element()
    }
}

/// Inflates a compressed element, stopping at `limit` bytes (a few kilobytes of zlib can claim
/// gigabytes), and reads the matrix inside.
fn read_compressed(data: &[u8], big_endian: bool, limit: Limit) -> Result<(String, Value)> {
    let decoder = flate2::read::ZlibDecoder::new(data);
    let inflated = limits::read_capped(decoder, limit, "a compressed variable, inflated,")
        .map_err(|e| match e {
            Error::Io { source, .. } => mat_err(format!("corrupt compressed element: {source}")),
            other => mat_err(other.to_string()),
        })?;
    let mut cursor = Cursor {
        buf: &inflated,
        pos: 0,
        big_endian,
    };
    let element = cursor.stream_matrix()?;
    if element.ty != MI_MATRIX {
        return Err(mat_err(format!(
            "compressed element holds type {}, expected a matrix",
            element.ty
        )));
    }
    read_matrix(element.data, big_endian, limit)
}

/// Parses the contents of an `miMATRIX` element into a named value.
/// Values larger than `limit` (each part of a complex one) are refused before their elements
/// are allocated.
fn read_matrix(data: &[u8], big_endian: bool, limit: Limit) -> Result<(String, Value)> {
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
    let (class, complex) = value_class(&name, word)?;
    let dims = value_dims(&name, &dims)?;
    limits::check_value_size(&format!("variable '{name}'"), class, &dims, limit)
        .map_err(|e| mat_err(e.to_string()))?;
    let in_variable = |e: Error| mat_err(format!("variable '{name}': {e}"));
    let real = decode_data(&cursor.element()?, big_endian, class, &dims).map_err(in_variable)?;
    let data = if complex {
        let imag = cursor.element().map_err(in_variable)?;
        let imag = decode_data(&imag, big_endian, class, &dims).map_err(in_variable)?;
        interleave(real, imag)
    } else {
        real
    };
    let value = Value::new(dims, data).map_err(in_variable)?;
    Ok((name, value))
}

/// The complex doubles whose real parts are `real` and imaginary parts `imag` (both
/// [`Data::Double`], of the same length, as [`value_class`] and [`decode_data`] make them).
fn interleave(real: Data, imag: Data) -> Data {
    let (Data::Double(re), Data::Double(im)) = (real, imag) else {
        unreachable!("value_class reads complex doubles only")
    };
    Data::ComplexDouble(re.into_iter().zip(im).map(|(r, i)| [r, i]).collect())
}

/// The class and complexity from the array-flags word, refusing complex values of classes
/// other than double, and non-array classes.
fn value_class(name: &str, word: u32) -> Result<(ClassId, bool)> {
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
    let complex = flags & FLAG_COMPLEX != 0;
    if complex && class != ClassId::Double {
        return Err(mat_err(format!(
            "variable '{name}' is complex {class}; m2cu's complex values are double (convert with `double(z)` before saving)"
        )));
    }
    let class = if flags & FLAG_LOGICAL != 0 {
        ClassId::Logical
    } else {
        class
    };
    Ok((class, complex))
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

/// The bytes one stored element of data type `ty` occupies.
fn stored_width(ty: u32) -> Result<usize> {
    Ok(match ty {
        MI_INT8 | MI_UINT8 | MI_UTF8 => 1,
        MI_INT16 | MI_UINT16 | MI_UTF16 => 2,
        MI_INT32 | MI_UINT32 | MI_SINGLE => 4,
        MI_INT64 | MI_UINT64 | MI_DOUBLE => 8,
        other => return Err(mat_err(format!("unsupported element data type {other}"))),
    })
}

/// Splits `bytes` into `W`-byte chunks, decodes each in the file's byte order and converts it
/// with `convert`: straight into the target type, with no wider carrier in between (an int8
/// input takes its own size, not eight times it).
fn chunks<const W: usize, S, T>(
    bytes: &[u8],
    big_endian: bool,
    decode: fn([u8; W]) -> S,
    convert: impl Fn(S) -> T,
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
            convert(decode(b))
        })
        .collect())
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

/// The stored elements of `element`, each converted to `T`.
fn convert<T: FromStored>(element: &Element, big_endian: bool) -> Result<Vec<T>> {
    let (b, be) = (element.data, big_endian);
    match element.ty {
        MI_INT8 => chunks(b, be, i8::from_le_bytes, |x| T::from_i64(x.into())),
        MI_UINT8 | MI_UTF8 => chunks(b, be, u8::from_le_bytes, |x| T::from_u64(x.into())),
        MI_INT16 => chunks(b, be, i16::from_le_bytes, |x| T::from_i64(x.into())),
        MI_UINT16 | MI_UTF16 => chunks(b, be, u16::from_le_bytes, |x| T::from_u64(x.into())),
        MI_INT32 => chunks(b, be, i32::from_le_bytes, |x| T::from_i64(x.into())),
        MI_UINT32 => chunks(b, be, u32::from_le_bytes, |x| T::from_u64(x.into())),
        MI_INT64 => chunks(b, be, i64::from_le_bytes, T::from_i64),
        MI_UINT64 => chunks(b, be, u64::from_le_bytes, T::from_u64),
        MI_SINGLE => chunks(b, be, f32::from_le_bytes, |x| T::from_f64(x.into())),
        MI_DOUBLE => chunks(b, be, f64::from_le_bytes, T::from_f64),
        other => Err(mat_err(format!("unsupported element data type {other}"))),
    }
}

/// Integer flag words, dimensions: any integer element type.
fn decode_ints(element: &Element, big_endian: bool) -> Result<Vec<i64>> {
    if matches!(element.ty, MI_SINGLE | MI_DOUBLE) {
        return Err(mat_err("expected integers, found floating-point data"));
    }
    convert(element, big_endian)
}

/// The real part of a matrix with extents `dims`, converted to the elements of `class`. The
/// element count is checked against `dims` before anything is allocated.
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
    let stored = element.data.len() / stored_width(element.ty)?;
    if dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d)) != Some(stored) {
        return Err(count_mismatch(dims, stored));
    }
    let be = big_endian;
    let data = match class {
        ClassId::Double => Data::Double(convert(element, be)?),
        ClassId::Single => Data::Single(convert(element, be)?),
        ClassId::Int8 => Data::Int8(convert(element, be)?),
        ClassId::Int16 => Data::Int16(convert(element, be)?),
        ClassId::Int32 => Data::Int32(convert(element, be)?),
        ClassId::Int64 => Data::Int64(convert(element, be)?),
        ClassId::Uint8 => Data::Uint8(convert(element, be)?),
        ClassId::Uint16 => Data::Uint16(convert(element, be)?),
        ClassId::Uint32 => Data::Uint32(convert(element, be)?),
        ClassId::Uint64 => Data::Uint64(convert(element, be)?),
        ClassId::Logical => Data::Logical(convert(element, be)?),
        ClassId::Char => Data::Char(convert(element, be)?),
    };
    check_len(data, dims)
}

fn count_mismatch(dims: &[usize], count: usize) -> Error {
    mat_err(format!(
        "dimensions {} do not match the {count} elements the data holds",
        dims_text(dims),
    ))
}

fn check_len(data: Data, dims: &[usize]) -> Result<Data> {
    let numel = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
    if numel != Some(data.len()) {
        return Err(count_mismatch(dims, data.len()));
    }
    Ok(data)
}
