//! MATLAB classes and shapes, as inferred for every IR local and expression.
//!
//! Invariant: a [`Type`] describes one value completely enough to generate C for it: its class
//! fixes the element representation, its shape says whether it is a scalar (held in a C scalar)
//! or an array (held as a pointer plus its extents).

use std::fmt;

/// A MATLAB class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Class {
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

impl Class {
    pub const ALL: [Class; 12] = [
        Class::Double,
        Class::Single,
        Class::Int8,
        Class::Int16,
        Class::Int32,
        Class::Int64,
        Class::Uint8,
        Class::Uint16,
        Class::Uint32,
        Class::Uint64,
        Class::Logical,
        Class::Char,
    ];

    /// The MATLAB name, as `class(x)` returns it.
    pub fn name(self) -> &'static str {
        match self {
            Class::Double => "double",
            Class::Single => "single",
            Class::Int8 => "int8",
            Class::Int16 => "int16",
            Class::Int32 => "int32",
            Class::Int64 => "int64",
            Class::Uint8 => "uint8",
            Class::Uint16 => "uint16",
            Class::Uint32 => "uint32",
            Class::Uint64 => "uint64",
            Class::Logical => "logical",
            Class::Char => "char",
        }
    }

    pub fn from_name(name: &str) -> Option<Class> {
        Class::ALL.into_iter().find(|c| c.name() == name)
    }

    pub fn is_integer(self) -> bool {
        matches!(
            self,
            Class::Int8
                | Class::Int16
                | Class::Int32
                | Class::Int64
                | Class::Uint8
                | Class::Uint16
                | Class::Uint32
                | Class::Uint64
        )
    }

    pub fn is_signed_integer(self) -> bool {
        matches!(
            self,
            Class::Int8 | Class::Int16 | Class::Int32 | Class::Int64
        )
    }

    pub fn is_float(self) -> bool {
        matches!(self, Class::Double | Class::Single)
    }

    /// The C type that holds one element.
    pub fn c_type(self) -> &'static str {
        match self {
            Class::Double => "double",
            Class::Single => "float",
            Class::Int8 => "int8_t",
            Class::Int16 => "int16_t",
            Class::Int32 => "int32_t",
            Class::Int64 => "int64_t",
            Class::Uint8 => "uint8_t",
            Class::Uint16 => "uint16_t",
            Class::Uint32 => "uint32_t",
            Class::Uint64 => "uint64_t",
            Class::Logical => "bool",
            // MATLAB's char is one UTF-16 code unit.
            Class::Char => "uint16_t",
        }
    }

    /// Size in bytes of one element.
    pub fn size_bytes(self) -> usize {
        match self {
            Class::Double | Class::Int64 | Class::Uint64 => 8,
            Class::Single | Class::Int32 | Class::Uint32 => 4,
            Class::Int16 | Class::Uint16 => 2,
            Class::Int8 | Class::Uint8 | Class::Logical => 1,
            Class::Char => 2,
        }
    }

    /// The smallest and largest value of an integer class, as doubles.
    pub fn int_range(self) -> Option<(f64, f64)> {
        Some(match self {
            Class::Int8 => (i8::MIN as f64, i8::MAX as f64),
            Class::Int16 => (i16::MIN as f64, i16::MAX as f64),
            Class::Int32 => (i32::MIN as f64, i32::MAX as f64),
            Class::Int64 => (i64::MIN as f64, i64::MAX as f64),
            Class::Uint8 => (0.0, u8::MAX as f64),
            Class::Uint16 => (0.0, u16::MAX as f64),
            Class::Uint32 => (0.0, u32::MAX as f64),
            Class::Uint64 => (0.0, u64::MAX as f64),
            _ => return None,
        })
    }
}

impl fmt::Display for Class {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One extent of a shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    Known(u64),
    /// Known only at run time.
    Var,
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Known(n) => write!(f, "{n}"),
            Dim::Var => f.write_str(":"),
        }
    }
}

/// A 2-D shape, rows × columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shape {
    pub rows: Dim,
    pub cols: Dim,
    /// The third extent; `Known(1)` for every 2-D value.
    pub pages: Dim,
}

impl Shape {
    /// This shape with each extent known to be 0 made unknown.
    pub fn zero_extents_unknown(self) -> Shape {
        let open = |d: Dim| match d {
            Dim::Known(0) => Dim::Var,
            d => d,
        };
        Shape::new3(open(self.rows), open(self.cols), open(self.pages))
    }

    pub const SCALAR: Shape = Shape {
        rows: Dim::Known(1),
        cols: Dim::Known(1),
        pages: Dim::Known(1),
    };

    /// A 2-D shape.
    pub fn new(rows: Dim, cols: Dim) -> Shape {
        Shape {
            rows,
            cols,
            pages: Dim::Known(1),
        }
    }

    /// A 3-D shape.
    pub fn new3(rows: Dim, cols: Dim, pages: Dim) -> Shape {
        Shape { rows, cols, pages }
    }

    pub fn is_scalar(self) -> bool {
        self == Shape::SCALAR
    }

    fn extents(self) -> [Dim; 3] {
        [self.rows, self.cols, self.pages]
    }

    /// Whether an extent known at translation time is 0: every value of this shape is empty.
    pub fn known_empty(self) -> bool {
        self.extents().contains(&Dim::Known(0))
    }

    /// Whether extents known at translation time make every value of this shape non-empty.
    pub fn known_nonempty(self) -> bool {
        self.extents()
            .iter()
            .all(|d| matches!(d, Dim::Known(n) if *n > 0))
    }

    /// Whether a value of this shape may be 1-by-1(-by-1): no extent is known to be other
    /// than 1.
    pub fn admits_one_element(self) -> bool {
        self.extents()
            .iter()
            .all(|d| matches!(d, Dim::Known(1) | Dim::Var))
    }

    /// Whether the value may have a third extent other than 1.
    pub fn is_3d(self) -> bool {
        self.pages != Dim::Known(1)
    }

    /// Whether the value is 2-D with one of its extents known to be 1.
    pub fn is_vector(self) -> bool {
        !self.is_3d() && (self.rows == Dim::Known(1) || self.cols == Dim::Known(1))
    }
}

impl fmt::Display for Shape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_3d() {
            write!(f, "({},{},{})", self.rows, self.cols, self.pages)
        } else {
            write!(f, "({},{})", self.rows, self.cols)
        }
    }
}

/// Class and shape of a value, and whether it has an imaginary part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Type {
    pub class: Class,
    pub shape: Shape,
    /// A complex value (`1 + 2i`): its class is the class of both parts, double for now
    /// (`lower::complex` states what is supported).
    pub complex: bool,
}

impl Type {
    pub fn scalar(class: Class) -> Type {
        Type::array(class, Shape::SCALAR)
    }

    pub fn array(class: Class, shape: Shape) -> Type {
        Type {
            class,
            shape,
            complex: false,
        }
    }

    /// A complex scalar of `class`.
    pub fn complex_scalar(class: Class) -> Type {
        Type {
            complex: true,
            ..Type::scalar(class)
        }
    }

    pub fn is_scalar(self) -> bool {
        self.shape.is_scalar()
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.complex {
            f.write_str("complex ")?;
        }
        if self.is_scalar() {
            write!(f, "{}", self.class)
        } else {
            write!(f, "{}{}", self.class, self.shape)
        }
    }
}
