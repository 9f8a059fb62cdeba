//! NumPy files as MATLAB values: `.npy` (one array) and `.npz` (named arrays, as a `.mat` file
//! holds named variables), through the `npyz` crate.
//!
//! Mapping (both ways): `f8` double, `f4` single, `i1`..`i8` int8..int64, `u1`..`u8`
//! uint8..uint64, `b1` logical, `c16` complex double; a char array is written as `u2` (its
//! UTF-16 code units: NumPy has no char class) and read back as uint16. Shapes: a 0-d array is
//! 1-by-1, a 1-d array of n elements is a 1-by-n row (as `scipy.io.savemat` stores it), 2-d and
//! 3-d arrays keep their extents; more dimensions, other dtypes (strings, objects, records,
//! `f2`, `c8`) and big-endian data of a class m2cu reads are refused by name. C-order data is
//! reordered into MATLAB's column-major order; files are written in Fortran order, so their
//! bytes are the value's own.

use std::io::{Cursor, Read, Seek, Write};
use std::path::Path;

use npyz::{DType, NpyFile, Order, TypeChar, WriterBuilder};

use crate::value::{Data, Value};
use crate::{Error, Result};

/// Reads the array of a `.npy` file.
pub fn read_npy(path: &Path) -> Result<Value> {
    let bytes =
        std::fs::read(path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
    read_npy_bytes(&bytes).map_err(|e| Error::Value(format!("{}: {e}", path.display())))
}

/// Writes `value` as a `.npy` file.
pub fn write_npy(path: &Path, value: &Value) -> Result<()> {
    let bytes = write_npy_bytes(value)?;
    std::fs::write(path, bytes)
        .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

/// The arrays of a `.npz` file by name, in the archive's order.
pub fn read_npz(path: &Path) -> Result<Vec<(String, Value)>> {
    let file = std::fs::File::open(path)
        .map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
    read_npz_from(file).map_err(|e| Error::Value(format!("{}: {e}", path.display())))
}

/// Writes named values as a `.npz` file (uncompressed, as `numpy.savez`).
pub fn write_npz(path: &Path, values: &[(String, Value)]) -> Result<()> {
    use npyz::zip::write::FileOptions;
    let failed =
        |e: &dyn std::fmt::Display| Error::Value(format!("cannot write {}: {e}", path.display()));
    let mut cursor = Cursor::new(Vec::new());
    let mut zip = npyz::zip::ZipWriter::new(&mut cursor);
    let options = FileOptions::default().compression_method(npyz::zip::CompressionMethod::Stored);
    for (name, value) in values {
        let bytes = write_npy_bytes(value)?;
        zip.start_file(npyz::npz::file_name_from_array_name(name), options)
            .map_err(|e| failed(&e))?;
        zip.write_all(&bytes).map_err(|e| failed(&e))?;
    }
    zip.finish().map_err(|e| failed(&e))?;
    drop(zip);
    std::fs::write(path, cursor.into_inner())
        .map_err(|e| Error::io(format!("cannot write {}", path.display()), e))
}

fn read_npz_from(file: impl Read + Seek) -> std::result::Result<Vec<(String, Value)>, String> {
    let mut npz = npyz::npz::NpzArchive::new(file).map_err(|e| e.to_string())?;
    let names: Vec<String> = npz.array_names().map(str::to_string).collect();
    names
        .into_iter()
        .map(|name| {
            let npy = npz
                .by_name(&name)
                .map_err(|e| e.to_string())?
                .ok_or_else(|| format!("no array {name}"))?;
            let value = value_of(npy).map_err(|e| format!("{name}: {e}"))?;
            Ok((name, value))
        })
        .collect()
}

/// The value of a `.npy` file's bytes.
pub fn read_npy_bytes(bytes: &[u8]) -> std::result::Result<Value, String> {
    value_of(NpyFile::new(bytes).map_err(|e| e.to_string())?)
}

fn value_of<R: Read>(npy: NpyFile<R>) -> std::result::Result<Value, String> {
    let dims = matlab_dims(npy.shape())?;
    let order = npy.order();
    let DType::Plain(ts) = npy.dtype() else {
        return Err("a record (structured) array, which m2cu does not read".into());
    };
    let io = |e: std::io::Error| e.to_string();
    let reorder = |len: usize| column_major(&dims, order, len);
    macro_rules! read {
        ($t:ty, $variant:ident) => {{
            let v: Vec<$t> = npy.into_vec().map_err(io)?;
            Data::$variant(permute(v, &reorder))
        }};
    }
    let data = match (ts.type_char(), ts.size_field()) {
        (TypeChar::Float, 8) => read!(f64, Double),
        (TypeChar::Float, 4) => read!(f32, Single),
        (TypeChar::Int, 1) => read!(i8, Int8),
        (TypeChar::Int, 2) => read!(i16, Int16),
        (TypeChar::Int, 4) => read!(i32, Int32),
        (TypeChar::Int, 8) => read!(i64, Int64),
        (TypeChar::Uint, 1) => read!(u8, Uint8),
        (TypeChar::Uint, 2) => read!(u16, Uint16),
        (TypeChar::Uint, 4) => read!(u32, Uint32),
        (TypeChar::Uint, 8) => read!(u64, Uint64),
        (TypeChar::Bool, 1) => read!(bool, Logical),
        (TypeChar::Complex, 16) => {
            let v: Vec<npyz::num_complex::Complex<f64>> = npy.into_vec().map_err(io)?;
            Data::ComplexDouble(permute(
                v.into_iter().map(|z| [z.re, z.im]).collect(),
                &reorder,
            ))
        }
        _ => {
            return Err(format!(
                "dtype `{ts}`, which has no MATLAB class m2cu reads"
            ))
        }
    };
    Value::new(dims, data).map_err(|e| e.to_string())
}

/// MATLAB's extents of a NumPy shape: `()` 1-by-1, `(n,)` 1-by-n, 2-d and 3-d as they are.
fn matlab_dims(shape: &[u64]) -> std::result::Result<Vec<usize>, String> {
    let extent = |d: u64| usize::try_from(d).map_err(|_| format!("extent {d} is too large"));
    match shape {
        [] => Ok(vec![1, 1]),
        [n] => Ok(vec![1, extent(*n)?]),
        [r, c] => Ok(vec![extent(*r)?, extent(*c)?]),
        [r, c, p] => Ok(vec![extent(*r)?, extent(*c)?, extent(*p)?]),
        _ => Err(format!(
            "{} dimensions; m2cu's values have at most 3",
            shape.len()
        )),
    }
}

/// For each column-major position, the position in the file's order of `len` elements.
fn column_major(dims: &[usize], order: Order, len: usize) -> Vec<usize> {
    if order == Order::Fortran || dims.iter().filter(|&&d| d > 1).count() <= 1 {
        return (0..len).collect();
    }
    let (r, c) = (dims[0], dims[1]);
    let p = dims.get(2).copied().unwrap_or(1);
    let mut from = Vec::with_capacity(len);
    for k in 0..p {
        for j in 0..c {
            for i in 0..r {
                from.push((i * c + j) * p + k);
            }
        }
    }
    from
}

fn permute<T: Copy>(v: Vec<T>, reorder: &impl Fn(usize) -> Vec<usize>) -> Vec<T> {
    reorder(v.len()).into_iter().map(|k| v[k]).collect()
}

/// The bytes of `value` as a `.npy` file (Fortran order, little-endian).
pub fn write_npy_bytes(value: &Value) -> Result<Vec<u8>> {
    let shape: Vec<u64> = value.dims.iter().map(|&d| d as u64).collect();
    let mut out = Vec::new();
    macro_rules! write {
        ($v:expr) => {{
            let mut w = npyz::WriteOptions::new()
                .default_dtype()
                .shape(&shape)
                .order(Order::Fortran)
                .writer(&mut out)
                .begin_nd()
                .map_err(|e| Error::io("cannot write a .npy array", e))?;
            w.extend($v)
                .map_err(|e| Error::io("cannot write a .npy array", e))?;
            w.finish()
                .map_err(|e| Error::io("cannot write a .npy array", e))?;
        }};
    }
    match &value.data {
        Data::Double(v) => write!(v.iter().copied()),
        Data::Single(v) => write!(v.iter().copied()),
        Data::Int8(v) => write!(v.iter().copied()),
        Data::Int16(v) => write!(v.iter().copied()),
        Data::Int32(v) => write!(v.iter().copied()),
        Data::Int64(v) => write!(v.iter().copied()),
        Data::Uint8(v) => write!(v.iter().copied()),
        Data::Uint16(v) | Data::Char(v) => write!(v.iter().copied()),
        Data::Uint32(v) => write!(v.iter().copied()),
        Data::Uint64(v) => write!(v.iter().copied()),
        Data::Logical(v) => write!(v.iter().copied()),
        Data::ComplexDouble(v) => {
            write!(v
                .iter()
                .map(|&[re, im]| npyz::num_complex::Complex::new(re, im)))
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip_in_fortran_order() {
        let values = [
            Value::matrix(2, 3, vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap(),
            Value::row(vec![1i8, -2, 3]),
            Value::scalar(true),
            Value::new(vec![2, 1, 2], Data::Uint16(vec![1, 2, 3, 4])).unwrap(),
            Value::new(
                vec![1, 2],
                Data::ComplexDouble(vec![[1.0, 2.0], [3.0, -4.0]]),
            )
            .unwrap(),
            Value::zeros(crate::ClassId::Single, 0, 3),
        ];
        for v in values {
            let back = read_npy_bytes(&write_npy_bytes(&v).unwrap()).unwrap();
            assert_eq!(back, v);
        }
    }

    #[test]
    fn c_order_is_read_column_major() {
        // numpy.save of np.arange(6.).reshape(2, 3): rows [0 1 2] and [3 4 5].
        let mut bytes = Vec::new();
        {
            let mut w = npyz::WriteOptions::new()
                .default_dtype()
                .shape(&[2, 3])
                .writer(&mut bytes)
                .begin_nd()
                .unwrap();
            w.extend([0.0f64, 1.0, 2.0, 3.0, 4.0, 5.0]).unwrap();
            w.finish().unwrap();
        }
        let v = read_npy_bytes(&bytes).unwrap();
        assert_eq!(v.dims, vec![2, 3]);
        assert_eq!(
            v.as_slice::<f64>().unwrap(),
            &[0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
        );
    }
}
