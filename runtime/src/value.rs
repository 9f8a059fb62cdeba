//! MATLAB values: a class, two or three extents and column-major elements.
//!
//! A [`Value`] is what a MATLAB variable holds for the classes m2cu supports: real numeric arrays,
//! complex double arrays, logical arrays and char arrays, 2-D or 3-D. Invariants kept by every
//! constructor:
//! - `dims` has two entries `[rows, cols]`, or three `[rows, cols, pages]` with `pages != 1`
//!   (MATLAB drops trailing singleton dimensions, so a 2×3×1 value is the 2×3 value);
//! - `data.len()` is the product of `dims`.
//!
//! Elements are stored column-major, as MATLAB stores them, so `A(i, j, k)` is
//! `data[(i-1) + (j-1) * rows + (k-1) * rows * cols]`.
//! Logical elements are Rust `bool`s (one byte, 0 or 1, like C's `bool`); char elements are
//! UTF-16 code units, as in MATLAB.
//!
//! Complexity is not a class: MATLAB's `class(1+2i)` is `'double'`. A complex double value is
//! [`Data::ComplexDouble`], whose [`class`](Data::class) is [`ClassId::Double`] and for which
//! [`Value::is_complex`] is true; its elements are `[re, im]` pairs, the layout of the
//! generated code's `m2cu_cdouble` (16 bytes, interleaved). A complex value may have zero
//! imaginary parts (`complex(1, 0)`): it stays complex, as in MATLAB.

use crate::{Error, Result};

/// The MATLAB class of a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClassId {
    Double,
    Single,
    Int8,
    Int16,
    Int32,
    Int64,
    Uint8,
    Uint16,
    Uint32,
    Uint64,
    Logical,
    Char,
}

impl ClassId {
    /// Every class, in a fixed order.
    pub const ALL: [ClassId; 12] = [
        ClassId::Double,
        ClassId::Single,
        ClassId::Int8,
        ClassId::Int16,
        ClassId::Int32,
        ClassId::Int64,
        ClassId::Uint8,
        ClassId::Uint16,
        ClassId::Uint32,
        ClassId::Uint64,
        ClassId::Logical,
        ClassId::Char,
    ];

    /// The name MATLAB's `class()` returns: `"double"`, `"uint8"`, `"logical"`, ...
    pub fn name(self) -> &'static str {
        match self {
            ClassId::Double => "double",
            ClassId::Single => "single",
            ClassId::Int8 => "int8",
            ClassId::Int16 => "int16",
            ClassId::Int32 => "int32",
            ClassId::Int64 => "int64",
            ClassId::Uint8 => "uint8",
            ClassId::Uint16 => "uint16",
            ClassId::Uint32 => "uint32",
            ClassId::Uint64 => "uint64",
            ClassId::Logical => "logical",
            ClassId::Char => "char",
        }
    }

    /// The class whose [`name`](Self::name) is `name`.
    pub fn from_name(name: &str) -> Option<ClassId> {
        ClassId::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Size of one element in bytes, as stored in [`Data`] and across the C ABI.
    pub fn element_size(self) -> usize {
        match self {
            ClassId::Int8 | ClassId::Uint8 | ClassId::Logical => 1,
            ClassId::Int16 | ClassId::Uint16 | ClassId::Char => 2,
            ClassId::Single | ClassId::Int32 | ClassId::Uint32 => 4,
            ClassId::Double | ClassId::Int64 | ClassId::Uint64 => 8,
        }
    }
}

impl std::fmt::Display for ClassId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The elements of a value, column-major, in the Rust type matching its class.
#[derive(Debug, Clone, PartialEq)]
pub enum Data {
    Double(Vec<f64>),
    Single(Vec<f32>),
    Int8(Vec<i8>),
    Int16(Vec<i16>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Uint8(Vec<u8>),
    Uint16(Vec<u16>),
    Uint32(Vec<u32>),
    Uint64(Vec<u64>),
    Logical(Vec<bool>),
    /// UTF-16 code units.
    Char(Vec<u16>),
    /// Complex doubles as `[re, im]` (class double).
    ComplexDouble(Vec<[f64; 2]>),
}

/// Evaluates `$body` with `$v` bound to the element vector of a [`Data`], whatever its class.
macro_rules! with_data {
    ($data:expr, $v:ident => $body:expr) => {
        match $data {
            $crate::value::Data::Double($v) => $body,
            $crate::value::Data::Single($v) => $body,
            $crate::value::Data::Int8($v) => $body,
            $crate::value::Data::Int16($v) => $body,
            $crate::value::Data::Int32($v) => $body,
            $crate::value::Data::Int64($v) => $body,
            $crate::value::Data::Uint8($v) => $body,
            $crate::value::Data::Uint16($v) => $body,
            $crate::value::Data::Uint32($v) => $body,
            $crate::value::Data::Uint64($v) => $body,
            $crate::value::Data::Logical($v) => $body,
            $crate::value::Data::Char($v) => $body,
            $crate::value::Data::ComplexDouble($v) => $body,
        }
    };
}
pub(crate) use with_data;

impl Data {
    /// The class these elements belong to.
    pub fn class(&self) -> ClassId {
        match self {
            Data::Double(_) | Data::ComplexDouble(_) => ClassId::Double,
            Data::Single(_) => ClassId::Single,
            Data::Int8(_) => ClassId::Int8,
            Data::Int16(_) => ClassId::Int16,
            Data::Int32(_) => ClassId::Int32,
            Data::Int64(_) => ClassId::Int64,
            Data::Uint8(_) => ClassId::Uint8,
            Data::Uint16(_) => ClassId::Uint16,
            Data::Uint32(_) => ClassId::Uint32,
            Data::Uint64(_) => ClassId::Uint64,
            Data::Logical(_) => ClassId::Logical,
            Data::Char(_) => ClassId::Char,
        }
    }

    /// True for complex elements.
    pub fn is_complex(&self) -> bool {
        matches!(self, Data::ComplexDouble(_))
    }

    /// Size of one element in bytes, as stored here and across the C ABI (16 for a complex
    /// double).
    pub fn element_size(&self) -> usize {
        match self {
            Data::ComplexDouble(_) => std::mem::size_of::<[f64; 2]>(),
            _ => self.class().element_size(),
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        with_data!(self, v => v.len())
    }

    /// True when there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// `n` zero elements (`false` for logical) of class `class`.
    pub fn zeros(class: ClassId, n: usize) -> Data {
        match class {
            ClassId::Double => Data::Double(vec![0.0; n]),
            ClassId::Single => Data::Single(vec![0.0; n]),
            ClassId::Int8 => Data::Int8(vec![0; n]),
            ClassId::Int16 => Data::Int16(vec![0; n]),
            ClassId::Int32 => Data::Int32(vec![0; n]),
            ClassId::Int64 => Data::Int64(vec![0; n]),
            ClassId::Uint8 => Data::Uint8(vec![0; n]),
            ClassId::Uint16 => Data::Uint16(vec![0; n]),
            ClassId::Uint32 => Data::Uint32(vec![0; n]),
            ClassId::Uint64 => Data::Uint64(vec![0; n]),
            ClassId::Logical => Data::Logical(vec![false; n]),
            ClassId::Char => Data::Char(vec![0; n]),
        }
    }

    /// Appends `n` elements copied from `src`, without writing them twice (no zeros first).
    ///
    /// # Safety
    /// `src` must point to `n` valid elements of this data's element type; for logical data,
    /// bytes that are 0 or 1.
    pub(crate) unsafe fn extend_from_raw(&mut self, src: *const u8, n: usize) {
        with_data!(self, v => {
            v.reserve_exact(n);
            let len = v.len();
            std::ptr::copy_nonoverlapping(src.cast(), v.as_mut_ptr().add(len), n);
            v.set_len(len + n);
        })
    }

    /// Pointer to the first element (dangling but non-null when empty).
    pub(crate) fn as_ptr(&self) -> *const u8 {
        with_data!(self, v => v.as_ptr().cast())
    }

    /// Pointer to the first element, for writing (dangling but non-null when empty).
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        with_data!(self, v => v.as_mut_ptr().cast())
    }
}

/// A Rust element type that is the storage of one MATLAB class.
pub trait Element: Copy {
    /// The class whose elements have this type.
    const CLASS: ClassId;
    /// Wraps a vector of elements.
    fn into_data(v: Vec<Self>) -> Data;
    /// The elements, when `data` is of this type.
    fn slice(data: &Data) -> Option<&[Self]>;
}

macro_rules! element {
    ($t:ty, $variant:ident) => {
        impl Element for $t {
            const CLASS: ClassId = ClassId::$variant;
            fn into_data(v: Vec<Self>) -> Data {
                Data::$variant(v)
            }
            fn slice(data: &Data) -> Option<&[Self]> {
                match data {
                    Data::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}
element!(f64, Double);
element!(f32, Single);
element!(i8, Int8);
element!(i16, Int16);
element!(i32, Int32);
element!(i64, Int64);
element!(u8, Uint8);
element!(u16, Uint16);
element!(u32, Uint32);
element!(u64, Uint64);
element!(bool, Logical);

/// `[re, im]`: a complex double element.
impl Element for [f64; 2] {
    const CLASS: ClassId = ClassId::Double;
    fn into_data(v: Vec<Self>) -> Data {
        Data::ComplexDouble(v)
    }
    fn slice(data: &Data) -> Option<&[Self]> {
        match data {
            Data::ComplexDouble(v) => Some(v),
            _ => None,
        }
    }
}

/// A MATLAB value: extents plus column-major elements.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// Extents: `[rows, cols]`, or `[rows, cols, pages]` with `pages != 1`.
    pub dims: Vec<usize>,
    /// Elements, column-major; `data.len()` is the product of `dims`.
    pub data: Data,
}

impl Value {
    /// A value with the given extents, checking that there are two or three and that they match
    /// the number of elements. A third extent of 1 is dropped, as MATLAB drops it.
    pub fn new(mut dims: Vec<usize>, data: Data) -> Result<Value> {
        if !(2..=3).contains(&dims.len()) {
            return Err(Error::Value(format!(
                "m2cu values are 2-D or 3-D; got {} dimensions ({})",
                dims.len(),
                dims_text(&dims)
            )));
        }
        if dims.len() == 3 && dims[2] == 1 {
            dims.pop();
        }
        let numel = dims.iter().try_fold(1usize, |n, &d| n.checked_mul(d));
        if numel != Some(data.len()) {
            let needs = numel.map_or_else(|| "more than usize::MAX".to_string(), |n| n.to_string());
            return Err(Error::Value(format!(
                "a {} {} value needs {needs} elements, got {}",
                dims_text(&dims),
                data.class(),
                data.len()
            )));
        }
        Ok(Value { dims, data })
    }

    /// A 1×1 value.
    pub fn scalar<T: Element>(x: T) -> Value {
        Value {
            dims: vec![1, 1],
            data: T::into_data(vec![x]),
        }
    }

    /// A 1×n row vector.
    pub fn row<T: Element>(v: Vec<T>) -> Value {
        Value {
            dims: vec![1, v.len()],
            data: T::into_data(v),
        }
    }

    /// An n×1 column vector.
    pub fn column<T: Element>(v: Vec<T>) -> Value {
        Value {
            dims: vec![v.len(), 1],
            data: T::into_data(v),
        }
    }

    /// A rows×cols matrix from column-major elements.
    pub fn matrix<T: Element>(rows: usize, cols: usize, column_major: Vec<T>) -> Result<Value> {
        Value::new(vec![rows, cols], T::into_data(column_major))
    }

    /// A 1×n row vector of a slice's elements (copied).
    ///
    /// ```
    /// let v = m2cu_runtime::Value::from_slice(&[1u8, 2, 3]);
    /// assert_eq!((v.rows(), v.cols(), v.class().name()), (1, 3, "uint8"));
    /// ```
    pub fn from_slice<T: Element>(elements: &[T]) -> Value {
        Value::row(elements.to_vec())
    }

    /// What a call leaves in place of an input it took for an output: a 0-by-0 double.
    pub fn taken() -> Value {
        Value::zeros(ClassId::Double, 0, 0)
    }

    /// A rows×cols value of zeros (or `false`) of the given class.
    pub fn zeros(class: ClassId, rows: usize, cols: usize) -> Value {
        Value {
            dims: vec![rows, cols],
            data: Data::zeros(class, rows * cols),
        }
    }

    /// A 1×n char row vector holding `text` as UTF-16.
    pub fn char_row(text: &str) -> Value {
        let units: Vec<u16> = text.encode_utf16().collect();
        Value {
            dims: vec![1, units.len()],
            data: Data::Char(units),
        }
    }

    /// The MATLAB class.
    pub fn class(&self) -> ClassId {
        self.data.class()
    }

    /// True for a complex value (MATLAB's `iscomplex`), zero imaginary parts included.
    pub fn is_complex(&self) -> bool {
        self.data.is_complex()
    }

    /// The value Octave keeps of a complex value whose imaginary parts are all zero: its real
    /// part (Octave narrows such a value when it loads it, or when an operation computes it).
    /// Other values are returned unchanged.
    pub fn narrowed(self) -> Value {
        match &self.data {
            Data::ComplexDouble(v) if v.iter().all(|z| z[1] == 0.0) => Value {
                data: Data::Double(v.iter().map(|z| z[0]).collect()),
                dims: self.dims,
            },
            _ => self,
        }
    }

    /// Number of elements (`numel`).
    pub fn numel(&self) -> usize {
        self.data.len()
    }

    /// True for a 1×1 value.
    pub fn is_scalar(&self) -> bool {
        self.dims.iter().all(|&d| d == 1)
    }

    /// True when there are no elements (`isempty`).
    pub fn is_empty(&self) -> bool {
        self.numel() == 0
    }

    /// Number of rows.
    pub fn rows(&self) -> usize {
        self.dims[0]
    }

    /// Number of columns.
    pub fn cols(&self) -> usize {
        self.dims[1]
    }

    /// Number of pages (the third extent; 1 for a 2-D value).
    pub fn pages(&self) -> usize {
        self.dims.get(2).copied().unwrap_or(1)
    }

    /// The elements as a slice of `T`, when `T` is this value's element type.
    pub fn as_slice<T: Element>(&self) -> Option<&[T]> {
        T::slice(&self.data)
    }
}

/// `"3×4"`: extents as MATLAB prints them.
pub fn dims_text(dims: &[usize]) -> String {
    let parts: Vec<String> = dims.iter().map(|d| d.to_string()).collect();
    parts.join("×")
}

/// A vector is a 1×n row, as MATLAB's `[1 2 3]`.
impl<T: Element> From<Vec<T>> for Value {
    fn from(v: Vec<T>) -> Value {
        Value::row(v)
    }
}

/// A slice is a 1×n row of its elements.
impl<T: Element> From<&[T]> for Value {
    fn from(v: &[T]) -> Value {
        Value::from_slice(v)
    }
}

/// Values from and to `ndarray` arrays (feature `ndarray`): any memory order in, column-major
/// (Fortran order) out; 0-d is 1-by-1, 1-d a row, more than 3 dimensions refused.
#[cfg(feature = "ndarray")]
impl Value {
    /// The value of an array of up to 3 dimensions, its elements in MATLAB's column-major order.
    ///
    /// ```
    /// let a = ndarray::array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    /// let v = m2cu_runtime::Value::from_ndarray(a.view()).unwrap();
    /// assert_eq!(v.dims, vec![2, 3]);
    /// assert_eq!(v.as_slice::<f64>(), Some(&[1.0, 4.0, 2.0, 5.0, 3.0, 6.0][..]));
    /// ```
    pub fn from_ndarray<T: Element, D: ndarray::Dimension>(
        array: ndarray::ArrayView<'_, T, D>,
    ) -> Result<Value> {
        let dims = match array.shape() {
            [] => vec![1, 1],
            [n] => vec![1, *n],
            [r, c] => vec![*r, *c],
            [r, c, p] => vec![*r, *c, *p],
            more => {
                return Err(Error::Value(format!(
                    "an array of {} dimensions: m2cu's values have at most 3",
                    more.len()
                )))
            }
        };
        // Reversing the axes makes the logical order MATLAB's: the first index fastest.
        let elements: Vec<T> = array.reversed_axes().iter().copied().collect();
        Value::new(dims, T::into_data(elements))
    }

    /// The elements as an array of the value's extents in Fortran order, when they are `T`s.
    ///
    /// ```
    /// let v = m2cu_runtime::Value::matrix(2, 2, vec![1i32, 2, 3, 4]).unwrap();
    /// let a = v.to_ndarray::<i32>().unwrap();
    /// assert_eq!(a[[1, 0]], 2);
    /// assert_eq!(a[[0, 1]], 3);
    /// ```
    pub fn to_ndarray<T: Element>(&self) -> Option<ndarray::ArrayD<T>> {
        use ndarray::ShapeBuilder;
        let shape = ndarray::IxDyn(&self.dims).f();
        ndarray::ArrayD::from_shape_vec(shape, self.as_slice::<T>()?.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_round_trip() {
        for c in ClassId::ALL {
            assert_eq!(ClassId::from_name(c.name()), Some(c));
            assert_eq!(Data::zeros(c, 3).class(), c);
            assert_eq!(Data::zeros(c, 3).len(), 3);
        }
        assert_eq!(ClassId::from_name("cell"), None);
        assert_eq!(ClassId::Uint16.name(), "uint16");
    }

    #[test]
    fn complex_values_are_doubles_with_a_flag() {
        let z = Value::row(vec![[1.0, 2.0], [3.0, 0.0]]);
        assert_eq!(
            (z.class(), z.is_complex(), z.numel()),
            (ClassId::Double, true, 2)
        );
        assert_eq!(z.data.element_size(), 16);
        assert_eq!(z.as_slice::<[f64; 2]>().unwrap()[1], [3.0, 0.0]);
        assert!(z.as_slice::<f64>().is_none());
        assert!(!Value::scalar(1.0).is_complex());
        assert_eq!(z.clone().narrowed(), z);
        let zero_imag = Value::column(vec![[1.0, 0.0], [-2.0, -0.0]]);
        assert_eq!(zero_imag.narrowed(), Value::column(vec![1.0, -2.0]));
    }

    #[test]
    fn constructors_set_dims() {
        let s = Value::scalar(2.5f64);
        assert!(s.is_scalar());
        assert_eq!(s.class(), ClassId::Double);
        let r = Value::row(vec![1i8, -2, 3]);
        assert_eq!((r.rows(), r.cols(), r.numel()), (1, 3, 3));
        let c = Value::column(vec![true, false]);
        assert_eq!(c.dims, vec![2, 1]);
        assert_eq!(c.class(), ClassId::Logical);
        let m = Value::matrix(2, 3, vec![1u32, 2, 3, 4, 5, 6]).unwrap();
        assert_eq!(m.as_slice::<u32>().unwrap()[3], 4);
        assert!(m.as_slice::<i32>().is_none());
        let z = Value::zeros(ClassId::Single, 0, 3);
        assert!(z.is_empty() && !z.is_scalar());
        assert_eq!(Value::char_row("hé").data, Data::Char(vec![104, 233]));
    }

    #[test]
    fn new_rejects_mismatches() {
        let err = Value::matrix(2, 2, vec![1.0f64; 3]).unwrap_err();
        assert!(err.to_string().contains("needs 4 elements, got 3"), "{err}");
        let err = Value::new(vec![1, 2, 2, 2], Data::Double(vec![0.0; 8])).unwrap_err();
        assert!(
            err.to_string().contains("got 4 dimensions (1×2×2×2)"),
            "{err}"
        );
        let err = Value::new(vec![1], Data::Double(vec![0.0])).unwrap_err();
        assert!(err.to_string().contains("got 1 dimensions (1)"), "{err}");
        let err = Value::new(vec![usize::MAX, 2, 2], Data::Double(vec![])).unwrap_err();
        assert!(err.to_string().contains("more than usize::MAX"), "{err}");
    }

    #[test]
    fn three_d_values_keep_pages_and_drop_a_trailing_one() {
        let v = Value::new(vec![2, 3, 4], Data::Int16((1..=24).collect())).unwrap();
        assert_eq!((v.rows(), v.cols(), v.pages(), v.numel()), (2, 3, 4, 24));
        assert!(!v.is_scalar());
        let flat = Value::new(vec![2, 3, 1], Data::Double(vec![0.0; 6])).unwrap();
        assert_eq!(flat.dims, vec![2, 3]);
        assert_eq!(flat.pages(), 1);
        assert_eq!(
            Value::new(vec![1, 1, 1], Data::Double(vec![5.0])).unwrap(),
            Value::scalar(5.0)
        );
        let empty = Value::new(vec![2, 3, 0], Data::Logical(vec![])).unwrap();
        assert_eq!((empty.dims.clone(), empty.pages()), (vec![2, 3, 0], 0));
        assert!(empty.is_empty());
    }
}
