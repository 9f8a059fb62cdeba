//! The matrix products' baseline: the system BLAS's `dgemm_` (`A * B`) and `dgemv_` (`A * x`),
//! loaded at run time with libloading from the first of [`CANDIDATES`] that has both: OpenBLAS by
//! its own path (so that the `libblas.so.3` alternative, which Octave and the project's tests
//! use, can stay the reference BLAS), then the reference BLAS. [`in_order_product`] is the
//! reference BLAS's order of additions in Rust, the guard's baseline when no BLAS loads.
//!
//! Invariants: the Fortran ABI of a 32-bit-integer (LP64) BLAS: column-major operands, every
//! argument by pointer, the hidden lengths of the character arguments last; the function
//! pointers are valid while [`Blas`] lives (it owns the library); [`Blas::path`] is the file the
//! dynamic loader mapped (from `/proc/self/maps`), not the name asked for, so a name that is a
//! link reads as the library behind it; every call checks that the extents agree and fit in
//! 32-bit integers before a pointer is passed.

use std::ffi::{c_char, c_int, CStr};

use libloading::Library;
use m2cu::Value;

/// The libraries tried, in order: OpenBLAS (Debian's pthread build by its path, then any by its
/// soname), then the reference BLAS (by its path, then whatever `libblas.so.3` is).
pub const CANDIDATES: [&str; 4] = [
    "/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0",
    "libopenblas.so.0",
    "/usr/lib/x86_64-linux-gnu/blas/libblas.so.3",
    "libblas.so.3",
];

/// `dgemm_(transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, len(transa),
/// len(transb))`: `C = alpha * op(A) * op(B) + beta * C`.
type DgemmFn = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const i32,
    *const i32,
    *const i32,
    *const f64,
    *const f64,
    *const i32,
    *const f64,
    *const i32,
    *const f64,
    *mut f64,
    *const i32,
    usize,
    usize,
);

/// `dgemv_(trans, m, n, alpha, a, lda, x, incx, beta, y, incy, len(trans))`:
/// `y = alpha * op(A) * x + beta * y`.
type DgemvFn = unsafe extern "C" fn(
    *const c_char,
    *const i32,
    *const i32,
    *const f64,
    *const f64,
    *const i32,
    *const f64,
    *const i32,
    *const f64,
    *mut f64,
    *const i32,
    usize,
);

/// A loaded BLAS library.
pub struct Blas {
    dgemm: DgemmFn,
    dgemv: DgemvFn,
    path: String,
    config: Option<String>,
    _library: Library,
}

impl Blas {
    /// The first of [`CANDIDATES`] that loads with both routines; the error says why each failed.
    pub fn load() -> Result<Blas, String> {
        let mut failures = Vec::new();
        for name in CANDIDATES {
            match Blas::load_from(name) {
                Ok(blas) => return Ok(blas),
                Err(why) => failures.push(why),
            }
        }
        Err(failures.join("; "))
    }

    /// Loads the library `name` (a path, or a name the dynamic loader searches for).
    pub fn load_from(name: &str) -> Result<Blas, String> {
        // SAFETY: a BLAS library's initialisers only set up its own state (threads, CPU type).
        let library = unsafe { Library::new(name) }.map_err(|e| format!("{name}: {e}"))?;
        // SAFETY: the types are the LP64 Fortran ABI of the routines (module doc).
        let (dgemm, dgemv) = unsafe {
            (
                symbol::<DgemmFn>(&library, name, "dgemm_")?,
                symbol::<DgemvFn>(&library, name, "dgemv_")?,
            )
        };
        Ok(Blas {
            dgemm,
            dgemv,
            path: mapped_file(dgemm as usize).unwrap_or_else(|| name.to_string()),
            config: openblas_config(&library),
            _library: library,
        })
    }

    /// The library's file.
    pub fn path(&self) -> &str {
        &self.path
    }

    /// The file, with OpenBLAS's build configuration and thread count when it is OpenBLAS.
    pub fn describe(&self) -> String {
        match &self.config {
            Some(config) => format!("{} ({config})", self.path),
            None => self.path.clone(),
        }
    }

    /// `a * b` by `dgemv_` when `b` is one column, else by `dgemm_`; both must be double
    /// matrices whose inner extents agree.
    pub fn product(&self, a: &Value, b: &Value) -> Result<Value, String> {
        let (a_data, b_data, [m, k, n]) = operands(a, b)?;
        let [m32, k32, n32] = [m, k, n].map(|d| i32::try_from(d.max(1)));
        let (Ok(m32), Ok(k32), Ok(n32)) = (m32, k32, n32) else {
            return Err(format!(
                "a {m}-by-{k} times {k}-by-{n} product is too large for the BLAS's 32-bit integers"
            ));
        };
        let mut c = vec![0.0; m * n];
        if m * n * k == 0 {
            return Value::matrix(m, n, c).map_err(|e| e.to_string());
        }
        let (one, zero, no, step) = (1.0f64, 0.0f64, b'N' as c_char, 1i32);
        if n == 1 {
            // SAFETY: A is m-by-k with lda = m, x has k elements, y has m (checked by operands).
            unsafe {
                (self.dgemv)(
                    &no,
                    &m32,
                    &k32,
                    &one,
                    a_data.as_ptr(),
                    &m32,
                    b_data.as_ptr(),
                    &step,
                    &zero,
                    c.as_mut_ptr(),
                    &step,
                    1,
                )
            }
        } else {
            // SAFETY: A is m-by-k (lda = m), B k-by-n (ldb = k), C m-by-n (ldc = m).
            unsafe {
                (self.dgemm)(
                    &no,
                    &no,
                    &m32,
                    &n32,
                    &k32,
                    &one,
                    a_data.as_ptr(),
                    &m32,
                    b_data.as_ptr(),
                    &k32,
                    &zero,
                    c.as_mut_ptr(),
                    &m32,
                    1,
                    1,
                )
            }
        }
        Value::matrix(m, n, c).map_err(|e| e.to_string())
    }
}

/// `a * b` in the reference BLAS's order: each output starts at zero and adds its products
/// `a(i,l) * b(l,j)` in ascending `l`, one at a time (no fused multiply-add).
pub fn in_order_product(a: &Value, b: &Value) -> Result<Value, String> {
    let (a_data, b_data, [m, k, n]) = operands(a, b)?;
    let mut c = vec![0.0; m * n];
    for (c_col, b_col) in c
        .chunks_exact_mut(m.max(1))
        .zip(b_data.chunks_exact(k.max(1)))
    {
        for (a_col, &t) in a_data.chunks_exact(m.max(1)).zip(b_col) {
            for (c_il, &a_il) in c_col.iter_mut().zip(a_col) {
                *c_il += t * a_il;
            }
        }
    }
    Value::matrix(m, n, c).map_err(|e| e.to_string())
}

/// The elements of `a` (m-by-k) and `b` (k-by-n), and `[m, k, n]`.
type Operands<'a> = (&'a [f64], &'a [f64], [usize; 3]);

/// The operands of the double matrix product `a * b`.
fn operands<'a>(a: &'a Value, b: &'a Value) -> Result<Operands<'a>, String> {
    let (Some(a_data), Some(b_data)) = (a.as_slice::<f64>(), b.as_slice::<f64>()) else {
        return Err("the product's operands must be double".to_string());
    };
    if a.pages() != 1 || b.pages() != 1 || a.cols() != b.rows() {
        return Err(format!(
            "a {:?} value times a {:?} value is no matrix product",
            a.dims, b.dims
        ));
    }
    Ok((a_data, b_data, [a.rows(), a.cols(), b.cols()]))
}

/// # Safety
/// `T` must be the routine's type.
unsafe fn symbol<T: Copy>(library: &Library, name: &str, routine: &str) -> Result<T, String> {
    library
        .get::<T>(routine.as_bytes())
        .map(|s| *s)
        .map_err(|e| format!("{name}: {e}"))
}

/// OpenBLAS's `openblas_get_config()` and `openblas_get_num_threads()`, when the library has
/// them.
fn openblas_config(library: &Library) -> Option<String> {
    type ConfigFn = unsafe extern "C" fn() -> *const c_char;
    type ThreadsFn = unsafe extern "C" fn() -> c_int;
    // SAFETY: OpenBLAS's declarations (cblas.h); the string is static and NUL-terminated.
    unsafe {
        let config = *library.get::<ConfigFn>(b"openblas_get_config").ok()?;
        let threads = *library.get::<ThreadsFn>(b"openblas_get_num_threads").ok()?;
        let text = CStr::from_ptr(config())
            .to_string_lossy()
            .trim()
            .to_string();
        Some(format!("{text}, {} threads", threads()))
    }
}

/// The file mapped at `address` in this process, from `/proc/self/maps`.
fn mapped_file(address: usize) -> Option<String> {
    let maps = std::fs::read_to_string("/proc/self/maps").ok()?;
    maps.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        let (start, end) = fields.next()?.split_once('-')?;
        let range = usize::from_str_radix(start, 16).ok()?..usize::from_str_radix(end, 16).ok()?;
        let path = fields.nth(4)?;
        (range.contains(&address) && path.starts_with('/')).then(|| path.to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matrix(rows: usize, cols: usize, v: &[f64]) -> Value {
        Value::matrix(rows, cols, v.to_vec()).unwrap()
    }

    #[test]
    fn the_in_order_product_is_column_major() {
        // [1 3; 2 4] * [5; 6] = [23; 34], and times [5 7; 6 8] = [23 31; 34 46].
        let a = matrix(2, 2, &[1.0, 2.0, 3.0, 4.0]);
        let y = in_order_product(&a, &matrix(2, 1, &[5.0, 6.0])).unwrap();
        assert_eq!(y, matrix(2, 1, &[23.0, 34.0]));
        let c = in_order_product(&a, &matrix(2, 2, &[5.0, 6.0, 7.0, 8.0])).unwrap();
        assert_eq!(c, matrix(2, 2, &[23.0, 34.0, 31.0, 46.0]));
        assert!(in_order_product(&a, &matrix(3, 1, &[1.0; 3])).is_err());
    }

    #[test]
    fn a_loaded_blas_agrees_with_the_in_order_product() {
        let Ok(blas) = Blas::load() else {
            eprintln!("skipping: no BLAS loads ({})", Blas::load().err().unwrap());
            return;
        };
        assert!(blas.path().starts_with('/'), "{}", blas.describe());
        let a = matrix(2, 3, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        for b in [
            matrix(3, 1, &[1.0, 0.5, 2.0]),
            matrix(3, 2, &[1.0, 0.5, 2.0, -1.0, 3.0, 0.25]),
        ] {
            assert_eq!(blas.product(&a, &b), in_order_product(&a, &b));
        }
        let empty = blas
            .product(&matrix(2, 0, &[]), &matrix(0, 2, &[]))
            .unwrap();
        assert_eq!(empty, matrix(2, 2, &[0.0; 4]));
    }

    #[test]
    fn a_missing_library_is_a_message() {
        let e = Blas::load_from("/nonexistent/libblas.so.3").err().unwrap();
        assert!(e.starts_with("/nonexistent/libblas.so.3: "), "{e}");
    }
}
