//! MAT v5 writer: little-endian, one `miMATRIX` per variable, optionally zlib-compressed.

use std::io::Write;

use super::*;
use crate::value::{dims_text, with_data, Data};

/// The bytes of a MAT-file holding `vars`, in order.
pub fn write_mat_bytes(vars: &[(String, Value)], format: MatFormat) -> Result<Vec<u8>> {
    let mut out = header();
    for (i, (name, value)) in vars.iter().enumerate() {
        check_name(name)?;
        if vars[..i].iter().any(|(n, _)| n == name) {
            return Err(Error::Mat(format!("variable '{name}' is given twice")));
        }
        let matrix = matrix_element(name, value)?;
        match format {
            MatFormat::V6 => out.extend_from_slice(&matrix),
            MatFormat::V7 => put_element(&mut out, MI_COMPRESSED, &zlib(&matrix)?, false),
        }
    }
    Ok(out)
}

fn header() -> Vec<u8> {
    let mut h = b"MATLAB 5.0 MAT-file, written by m2cu".to_vec();
    h.resize(116, b' ');
    h.extend_from_slice(&[0; 8]); // no subsystem data
    h.extend_from_slice(&0x0100u16.to_le_bytes());
    h.extend_from_slice(b"IM");
    h
}

/// MATLAB variable names: a letter, then letters, digits and underscores; at most 63 chars.
fn check_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 63;
    if valid {
        Ok(())
    } else {
        Err(Error::Mat(format!(
            "'{name}' is not a valid MATLAB variable name"
        )))
    }
}

/// Appends a data element: tag, payload, and (unless `pad` is false) zeros to 8 bytes.
fn put_element(out: &mut Vec<u8>, ty: u32, payload: &[u8], pad: bool) {
    out.extend_from_slice(&ty.to_le_bytes());
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    if pad {
        out.resize(out.len() + (8 - payload.len() % 8) % 8, 0);
    }
}

/// The most bytes an element's 32-bit length field can state.
const MAX_ELEMENT_BYTES: u64 = u32::MAX as u64;
/// An upper bound on what a matrix element holds besides the data: flags, dimensions, a name of
/// at most 63 bytes, the data element's tag, padding.
const MATRIX_OVERHEAD: u64 = 128;

/// Refuses a variable whose `data_bytes` of elements would not fit a MAT v5/v7 element, whose
/// length field has 32 bits; called with the size computed from the dims before anything is
/// written, so the refusal costs no allocation.
fn check_fits_element(name: &str, class: ClassId, dims: &[usize], data_bytes: u64) -> Result<()> {
    if data_bytes.saturating_add(MATRIX_OVERHEAD) <= MAX_ELEMENT_BYTES {
        return Ok(());
    }
    Err(Error::Mat(format!(
        "variable '{name}' ({} {class}) needs {data_bytes} bytes, more than the 4 GiB a \
         MAT-file version 5 or 7 element can hold (its length field has 32 bits), and m2cu \
         does not write version 7.3; return smaller outputs (split it into parts) or leave out \
         --output and use the printed value",
        dims_text(dims)
    )))
}

fn matrix_element(name: &str, value: &Value) -> Result<Vec<u8>> {
    let class = value.class();
    let numel_bytes = (value.data.len() as u64).saturating_mul(value.data.element_size() as u64);
    check_fits_element(name, class, &value.dims, numel_bytes)?;
    let flag = match &value.data {
        Data::Logical(_) => FLAG_LOGICAL << 8,
        Data::ComplexDouble(_) => FLAG_COMPLEX << 8,
        _ => 0,
    };
    let mut flags = (mx_class(class) | flag).to_le_bytes().to_vec();
    flags.extend_from_slice(&[0; 4]);
    let mut dims = Vec::new();
    for &d in &value.dims {
        let d = i32::try_from(d)
            .map_err(|_| Error::Mat(format!("variable '{name}': extent {d} is too large")))?;
        dims.extend_from_slice(&d.to_le_bytes());
    }
    let mut body = Vec::new();
    put_element(&mut body, MI_UINT32, &flags, true);
    put_element(&mut body, MI_INT32, &dims, true);
    put_element(&mut body, MI_INT8, name.as_bytes(), true);
    for part in parts(&value.data) {
        let data = data_bytes(&part);
        check_fits_element(name, class, &value.dims, data.len() as u64)?;
        put_element(&mut body, data_type(class), &data, true);
    }
    let mut element = Vec::with_capacity(body.len() + 8);
    put_element(&mut element, MI_MATRIX, &body, true);
    Ok(element)
}

/// The parts written as data elements: the elements themselves, or the real then the imaginary
/// parts of complex ones (each a [`Data::Double`]).
fn parts(data: &Data) -> Vec<std::borrow::Cow<'_, Data>> {
    use std::borrow::Cow;
    match data {
        Data::ComplexDouble(v) => [0, 1]
            .map(|k| Cow::Owned(Data::Double(v.iter().map(|z| z[k]).collect())))
            .into(),
        _ => vec![Cow::Borrowed(data)],
    }
}

/// The element type a class's data is written as.
fn data_type(class: ClassId) -> u32 {
    match class {
        ClassId::Double => MI_DOUBLE,
        ClassId::Single => MI_SINGLE,
        ClassId::Int8 => MI_INT8,
        ClassId::Int16 => MI_INT16,
        ClassId::Int32 => MI_INT32,
        ClassId::Int64 => MI_INT64,
        ClassId::Uint8 | ClassId::Logical => MI_UINT8,
        ClassId::Uint16 => MI_UINT16,
        ClassId::Char => MI_UTF8,
        ClassId::Uint32 => MI_UINT32,
        ClassId::Uint64 => MI_UINT64,
    }
}

/// Little-endian bytes of the elements (logical: one byte each, 0 or 1; char: UTF-8, as MATLAB
/// and Octave write it — Octave reads `miUINT16` char data back as a row).
fn data_bytes(data: &Data) -> Vec<u8> {
    if let Data::Char(units) = data {
        return String::from_utf16_lossy(units).into_bytes();
    }
    trait LeBytes {
        fn put(&self, out: &mut Vec<u8>);
    }
    macro_rules! le_bytes {
        ($($t:ty),*) => {$(
            impl LeBytes for $t {
                fn put(&self, out: &mut Vec<u8>) {
                    out.extend_from_slice(&self.to_le_bytes());
                }
            }
        )*};
    }
    le_bytes!(f64, f32, i8, i16, i32, i64, u8, u16, u32, u64);
    impl LeBytes for [f64; 2] {
        fn put(&self, out: &mut Vec<u8>) {
            self.iter().for_each(|part| part.put(out));
        }
    }
    impl LeBytes for bool {
        fn put(&self, out: &mut Vec<u8>) {
            out.push(u8::from(*self));
        }
    }
    let mut out = Vec::with_capacity(data.len() * data.element_size());
    with_data!(data, v => v.iter().for_each(|x| x.put(&mut out)));
    out
}

fn zlib(bytes: &[u8]) -> Result<Vec<u8>> {
    let mut encoder = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    encoder
        .write_all(bytes)
        .and_then(|()| encoder.finish())
        .map_err(|e| Error::io("zlib compression", e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_over_4_gib_are_refused_by_size() {
        let fits = 4_000_000_000u64;
        check_fits_element("y", ClassId::Uint8, &[1, fits as usize], fits).unwrap();
        let over = 1u64 << 32;
        let e = check_fits_element("y", ClassId::Double, &[1, 1 << 29], over).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("variable 'y' (1×536870912 double)"), "{text}");
        assert!(text.contains("needs 4294967296 bytes"), "{text}");
        assert!(text.contains("4 GiB"), "{text}");
    }
}
