//! A named value printed like MATLAB's command window in `format short` (R2023 style, simplified).
//!
//! - double scalars print inline: `s = 12.5000`, `s = 12`, `s = NaN`, `s = 1.0000e+10`;
//! - other scalars print the class on its own line: `k =\n\n  uint32\n\n   7\n`;
//! - arrays up to [`MAX_SHOWN`] elements print row by row in right-aligned columns, preceded by
//!   a `  1×3 int8 row vector` line for every class but double;
//! - larger arrays print a summary line, the first [`SUMMARY_COUNT`] elements and a note;
//! - char rows print quoted; empty arrays print `[]` (double 0×0), `0×3 empty int8 matrix` or
//!   `2×0×3 empty double array`;
//! - 3-D arrays print page by page, like Octave, after the `name =` line (and the
//!   `  2×2×2 int16 array` line for every class but double): each page is labelled
//!   `name(:,:,k) =` — Octave writes `ans(:,:,k) =` there — and pages are separated by a blank
//!   line. All pages share one column width.
//!
//! Number format: integer-valued doubles below 1e9 print as integers; other finite values print
//! with four decimals when every nonzero magnitude is in [0.001, 1000), else as `1.2345e+03`.
//! MATLAB's common scale factor (`1.0e+03 *`) and column paging are not reproduced.
//!
//! Complex values print as Octave prints them (`z =  1 + 2i`, see [`complex`]).

mod complex;

use crate::value::{dims_text, ClassId, Data, Value};

/// Arrays with more elements than this are summarized.
pub const MAX_SHOWN: usize = 100;
/// How many leading elements a summary shows.
pub const SUMMARY_COUNT: usize = 10;

/// The command-window text for `name = value`, ending in a newline.
pub fn display(name: &str, value: &Value) -> String {
    let class = value.class();
    if value.is_empty() {
        return display_empty(name, value);
    }
    if class == ClassId::Char && value.numel() <= MAX_SHOWN {
        return display_char(name, value);
    }
    if let Data::ComplexDouble(z) = &value.data {
        if value.numel() <= MAX_SHOWN {
            return complex::display_complex(name, value, z);
        }
    }
    let cells = format_elements(&value.data);
    if value.numel() > MAX_SHOWN {
        return display_summary(name, value, &cells);
    }
    if value.is_scalar() && class == ClassId::Double {
        return format!("{name} = {}\n", cells[0]);
    }
    let width = column_width(&value.data, &cells);
    let intro = if class == ClassId::Double {
        String::new()
    } else {
        format!("  {}\n\n", header(value))
    };
    with_pages(name, value, &intro, |page| {
        let mut out = String::new();
        for i in 0..value.rows() {
            for j in 0..value.cols() {
                out += &format!("{:>width$}", cells[element(value, i, j, page)]);
            }
            out.push('\n');
        }
        out
    })
}

/// `name =`, a blank line and `intro`, then the text of each page as `page(k)` (0-based) writes
/// it: the only page of a 2-D value as is, the pages of a 3-D value each under a
/// `name(:,:,k) =` label (1-based) and separated by blank lines.
fn with_pages(name: &str, value: &Value, intro: &str, page: impl Fn(usize) -> String) -> String {
    let head = format!("{name} =\n\n{intro}");
    if value.dims.len() == 2 {
        return head + &page(0);
    }
    let pages: Vec<String> = (0..value.pages())
        .map(|k| format!("{name}(:,:,{}) =\n\n{}", k + 1, page(k)))
        .collect();
    head + &pages.join("\n")
}

/// The column-major index of element `(i, j, page)`, all 0-based.
fn element(value: &Value, i: usize, j: usize, page: usize) -> usize {
    i + value.rows() * (j + value.cols() * page)
}

fn display_empty(name: &str, value: &Value) -> String {
    if value.class() == ClassId::Double && value.dims == [0, 0] {
        return format!("{name} =\n\n     []\n");
    }
    let kind = if value.class() == ClassId::Char || value.dims.len() == 3 {
        "array"
    } else {
        "matrix"
    };
    format!(
        "{name} =\n\n  {} empty {} {kind}\n",
        dims_text(&value.dims),
        value.class()
    )
}

fn display_char(name: &str, value: &Value) -> String {
    let Data::Char(units) = &value.data else {
        unreachable!("display_char is only called for char values")
    };
    with_pages(name, value, "", |page| {
        let mut out = String::new();
        for i in 0..value.rows() {
            let row: Vec<u16> = (0..value.cols())
                .map(|j| units[element(value, i, j, page)])
                .collect();
            out += &format!("    '{}'\n", String::from_utf16_lossy(&row));
        }
        out
    })
}

fn display_summary(name: &str, value: &Value, cells: &[String]) -> String {
    let shown: Vec<&str> = cells.iter().take(SUMMARY_COUNT).map(|s| s.trim()).collect();
    let complex = if value.is_complex() { "complex " } else { "" };
    format!(
        "{name} = {} {complex}{}\n\n  first {} of {} elements (column-major): {}\n",
        dims_text(&value.dims),
        value.class(),
        shown.len(),
        value.numel(),
        shown.join("  ")
    )
}

/// `1×3 int8 row vector`, `3×1 single column vector`, `2×2 uint8 matrix`, `1×1 logical`,
/// `2×2×2 int16 array` ...
fn header(value: &Value) -> String {
    if value.is_scalar() {
        return value.class().name().to_string();
    }
    let shape = if value.class() == ClassId::Logical || value.dims.len() == 3 {
        "array"
    } else if value.rows() == 1 {
        "row vector"
    } else if value.cols() == 1 {
        "column vector"
    } else {
        "matrix"
    };
    format!("{} {} {shape}", dims_text(&value.dims), value.class())
}

/// Width of every column: the widest element plus a gap. Floating-point columns keep a slot for
/// the minus sign (MATLAB prints `[1.5 2]` and `[-1.5 2]` in the same 10-character columns).
fn column_width(data: &Data, cells: &[String]) -> usize {
    let widest = |f: fn(&String) -> usize| cells.iter().map(f).max().unwrap_or(0);
    match data {
        Data::Double(_) | Data::Single(_) => {
            let unsigned = widest(|c| c.trim_start_matches('-').len());
            let integers = cells.iter().all(|c| !c.contains(['.', 'e']));
            unsigned + if integers { 5 } else { 4 }
        }
        _ => widest(String::len) + 3,
    }
}

/// Each element as MATLAB would print it, unpadded.
fn format_elements(data: &Data) -> Vec<String> {
    fn ints<T: ToString>(v: &[T]) -> Vec<String> {
        v.iter().map(ToString::to_string).collect()
    }
    match data {
        Data::Double(v) => format_floats(v),
        Data::Single(v) => format_floats(&v.iter().map(|&x| f64::from(x)).collect::<Vec<_>>()),
        Data::Int8(v) => ints(v),
        Data::Int16(v) => ints(v),
        Data::Int32(v) => ints(v),
        Data::Int64(v) => ints(v),
        Data::Uint8(v) => ints(v),
        Data::Uint16(v) => ints(v),
        Data::Uint32(v) => ints(v),
        Data::Uint64(v) => ints(v),
        Data::Char(v) => ints(v),
        Data::Logical(v) => v.iter().map(|&b| u8::from(b).to_string()).collect(),
        Data::ComplexDouble(v) => complex::summary_cells(v),
    }
}

/// True when every finite element is an integer below 1e9 in magnitude.
fn all_integers(v: impl Iterator<Item = f64>) -> bool {
    v.filter(|x| x.is_finite())
        .all(|x| x.fract() == 0.0 && x.abs() < 1e9)
}

fn format_floats(v: &[f64]) -> Vec<String> {
    let fixed = v
        .iter()
        .filter(|x| x.is_finite() && **x != 0.0)
        .all(|x| (0.001..1000.0).contains(&x.abs()));
    let integers = all_integers(v.iter().copied());
    v.iter()
        .map(|&x| match x {
            x if x.is_nan() => "NaN".to_string(),
            x if x.is_infinite() => if x > 0.0 { "Inf" } else { "-Inf" }.to_string(),
            x if integers => format!("{}", x as i64),
            // MATLAB prints an exact zero among fractions as a bare 0.
            0.0 => "0".to_string(),
            x if fixed => format!("{x:.4}"),
            x => scientific(x),
        })
        .collect()
}

/// `1.2345e+03`: four decimals, signed exponent of at least two digits.
fn scientific(x: f64) -> String {
    let text = format!("{x:.4e}");
    let (mantissa, exponent) = text.split_once('e').expect("{:e} output has an exponent");
    let exponent: i32 = exponent.parse().expect("{:e} exponent is an integer");
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_scalars_print_inline() {
        assert_eq!(display("s", &Value::scalar(12.5)), "s = 12.5000\n");
        assert_eq!(display("s", &Value::scalar(12.0)), "s = 12\n");
        assert_eq!(display("s", &Value::scalar(-3.0)), "s = -3\n");
        assert_eq!(
            display("p", &Value::scalar(std::f64::consts::PI)),
            "p = 3.1416\n"
        );
        assert_eq!(display("n", &Value::scalar(f64::NAN)), "n = NaN\n");
        assert_eq!(display("i", &Value::scalar(f64::INFINITY)), "i = Inf\n");
        assert_eq!(
            display("i", &Value::scalar(f64::NEG_INFINITY)),
            "i = -Inf\n"
        );
        assert_eq!(display("b", &Value::scalar(1e10)), "b = 1.0000e+10\n");
        assert_eq!(display("b", &Value::scalar(1234.5)), "b = 1.2345e+03\n");
        assert_eq!(display("t", &Value::scalar(0.00012)), "t = 1.2000e-04\n");
    }

    #[test]
    fn other_scalars_name_their_class() {
        assert_eq!(
            display("k", &Value::scalar(7u32)),
            "k =\n\n  uint32\n\n   7\n"
        );
        assert_eq!(
            display("n", &Value::scalar(-5i32)),
            "n =\n\n  int32\n\n   -5\n"
        );
        assert_eq!(
            display("t", &Value::scalar(true)),
            "t =\n\n  logical\n\n   1\n"
        );
        assert_eq!(
            display("f", &Value::scalar(2.5f32)),
            "f =\n\n  single\n\n    2.5000\n"
        );
    }

    #[test]
    fn exact_zeros_among_fractions_print_as_0() {
        let v = Value::row(vec![0.5, 0.0, -0.0, 1.25]);
        let text = display("v", &v);
        assert!(
            text.contains("0.5000         0         0    1.2500"),
            "{text}"
        );
    }

    #[test]
    fn matrices_print_in_columns() {
        let m = Value::matrix(2, 2, vec![1.0, 3.0, 2.0, 4.0]).unwrap();
        assert_eq!(display("A", &m), "A =\n\n     1     2\n     3     4\n");
        let m = Value::matrix(2, 2, vec![1.5, 3.0, f64::NAN, -4.0]).unwrap();
        assert_eq!(
            display("A", &m),
            "A =\n\n    1.5000       NaN\n    3.0000   -4.0000\n"
        );
        let r = Value::row(vec![1i8, -2, 3]);
        assert_eq!(
            display("x", &r),
            "x =\n\n  1×3 int8 row vector\n\n    1   -2    3\n"
        );
        let c = Value::column(vec![true, false]);
        assert_eq!(
            display("c", &c),
            "c =\n\n  2×1 logical array\n\n   1\n   0\n"
        );
        let big = Value::row(vec![1.0, 12345.5]);
        assert_eq!(display("y", &big), "y =\n\n    1.0000e+00    1.2346e+04\n");
    }

    #[test]
    fn chars_and_empties() {
        assert_eq!(display("c", &Value::char_row("abc")), "c =\n\n    'abc'\n");
        let m = Value::new(vec![2, 2], Data::Char("acbd".encode_utf16().collect())).unwrap();
        assert_eq!(display("c", &m), "c =\n\n    'ab'\n    'cd'\n");
        assert_eq!(
            display("e", &Value::zeros(ClassId::Double, 0, 0)),
            "e =\n\n     []\n"
        );
        assert_eq!(
            display("e", &Value::zeros(ClassId::Int8, 0, 3)),
            "e =\n\n  0×3 empty int8 matrix\n"
        );
    }

    #[test]
    fn three_d_arrays_print_page_by_page() {
        let a = Value::new(
            vec![2, 2, 2],
            Data::Double((1..=8).map(f64::from).collect()),
        )
        .unwrap();
        assert_eq!(
            display("A", &a),
            "A =\n\nA(:,:,1) =\n\n     1     3\n     2     4\n\n\
             A(:,:,2) =\n\n     5     7\n     6     8\n"
        );
        let b = Value::new(vec![1, 2, 3], Data::Int16(vec![1, -2, 3, 40, 5, 6])).unwrap();
        assert_eq!(
            display("B", &b),
            "B =\n\n  1×2×3 int16 array\n\nB(:,:,1) =\n\n    1   -2\n\n\
             B(:,:,2) =\n\n    3   40\n\nB(:,:,3) =\n\n    5    6\n"
        );
        let l = Value::new(vec![2, 1, 2], Data::Logical(vec![true, false, false, true])).unwrap();
        assert_eq!(
            display("L", &l),
            "L =\n\n  2×1×2 logical array\n\nL(:,:,1) =\n\n   1\n   0\n\n\
             L(:,:,2) =\n\n   0\n   1\n"
        );
        let c = Value::new(vec![1, 2, 2], Data::Char("abcd".encode_utf16().collect())).unwrap();
        assert_eq!(
            display("c", &c),
            "c =\n\nc(:,:,1) =\n\n    'ab'\n\nc(:,:,2) =\n\n    'cd'\n"
        );
        let e = Value::new(vec![2, 0, 3], Data::Double(vec![])).unwrap();
        assert_eq!(display("e", &e), "e =\n\n  2×0×3 empty double array\n");
        let big = Value::new(vec![10, 10, 2], Data::Uint8(vec![7; 200])).unwrap();
        assert!(display("g", &big).starts_with("g = 10×10×2 uint8\n\n  first 10 of 200"));
    }

    #[test]
    fn large_arrays_are_summarized() {
        let y = Value::row((1..=1_000_000).map(f64::from).collect());
        assert_eq!(
            display("y", &y),
            "y = 1×1000000 double\n\n  first 10 of 1000000 elements (column-major): \
             1  2  3  4  5  6  7  8  9  10\n"
        );
        let h = Value::column(vec![0.5f64; 101]);
        assert!(display("h", &h).starts_with("h = 101×1 double\n\n  first 10 of 101"));
    }
}
