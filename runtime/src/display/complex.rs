//! Complex double values printed as GNU Octave 7.3 prints them in `format short` (its
//! `pr-output.cc`, reproduced from its output): `z =  1 + 2i`, `z =  1.5000 - 2.0000i`,
//! `z =  1.0000e+10 + 1.0000e+00i`, and matrices in columns of `re + imi` cells.
//!
//! One format serves every element of a value: a real width, an imaginary width and a style.
//! - *Integer* when every finite part is an integer: the imaginary width is the number of
//!   digits of the largest part (at least 1; 3 with an Inf or NaN), the real width one more
//!   for the sign. A scalar with an Inf or NaN part prints this way too, its finite parts
//!   rounded (`complex(1.5, NaN)` prints `2 + NaNi`, as Octave does).
//! - *Fixed*: `ld` digits before the point and `rd` after, from the digit counts of the largest
//!   and the smallest magnitudes with Octave's precision of 5 significant digits
//!   ([`fixed_digits`]); the imaginary width is `ld + 1 + rd`.
//! - *Exponent* (`1.0000e+10`) when the fixed width would exceed 8, or an integer would have
//!   more than 7 digits (6 in a matrix), as Octave switches.
//!
//! A zero part prints as `0`, NaN and Inf as `NaN`, `Inf`, `-Inf`; the sign between the parts
//! is the sign bit of the imaginary part (`1 - 0i` for `complex(1, -0)`, `1 - NaNi`). Octave
//! splits a matrix wider than its 80-column terminal into chunks of columns headed
//! ` Columns 1 through 3:`, ` Columns 4 and 5:` or ` Column 6:`; so does this module.
//! Octave's trailing blank line after a matrix is left out, as for real values.

use super::{element, scientific, with_pages};
use crate::value::Value;

/// Octave's `output_precision` in `format short`.
const PRECISION: i32 = 5;
/// The width of Octave's terminal when it prints to a pipe.
const TERMINAL_WIDTH: usize = 80;

/// How every part of one value is written.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Style {
    Integer,
    Fixed { decimals: usize },
    Exponent,
}

/// The style and widths of one value's cells.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Format {
    style: Style,
    real_width: usize,
    imag_width: usize,
}

/// The command-window text of `name = z` for the complex value `value` with elements `z`.
pub(super) fn display_complex(name: &str, value: &Value, z: &[[f64; 2]]) -> String {
    let format = choose_format(z, value.is_scalar());
    if value.is_scalar() {
        return format!("{name} = {}\n", cell(z[0], format));
    }
    let width = 2 + format.real_width + 3 + format.imag_width + 1;
    let per_chunk = if value.cols() * width > TERMINAL_WIDTH {
        (TERMINAL_WIDTH / width).max(1)
    } else {
        value.cols()
    };
    with_pages(name, value, "", |page| {
        let chunks: Vec<String> = (0..value.cols())
            .step_by(per_chunk)
            .map(|first| {
                let last = (first + per_chunk).min(value.cols());
                let rows: String = (0..value.rows())
                    .map(|i| {
                        let cells: String = (first..last)
                            .map(|j| format!("  {}", cell(z[element(value, i, j, page)], format)))
                            .collect();
                        cells + "\n"
                    })
                    .collect();
                if per_chunk == value.cols() {
                    rows
                } else {
                    format!("{}\n\n{rows}", columns_header(first + 1, last))
                }
            })
            .collect();
        chunks.join("\n")
    })
}

/// The elements of a value too large to print whole, each in its own format (`1 + 2i`), for
/// the summary of [`super::display`].
pub(super) fn summary_cells(z: &[[f64; 2]]) -> Vec<String> {
    z.iter()
        .map(|&z| {
            let format = choose_format(&[z], true);
            cell(z, format).replace(' ', "")
        })
        .collect()
}

/// ` Columns 1 through 3:`, ` Columns 4 and 5:`, ` Column 6:` (1-based, inclusive).
fn columns_header(first: usize, last: usize) -> String {
    match last - first {
        0 => format!(" Column {first}:"),
        1 => format!(" Columns {first} and {last}:"),
        _ => format!(" Columns {first} through {last}:"),
    }
}

/// `re + imi` in `format`'s widths.
fn cell(z: [f64; 2], format: Format) -> String {
    let [re, im] = z;
    let sign = if im.is_sign_negative() { '-' } else { '+' };
    format!(
        "{:>rw$} {sign} {:>iw$}i",
        part(re, format.style),
        part(im.abs(), format.style),
        rw = format.real_width,
        iw = format.imag_width
    )
}

/// One part, unpadded.
fn part(x: f64, style: Style) -> String {
    match x {
        x if x.is_nan() => "NaN".to_string(),
        x if x.is_infinite() => if x > 0.0 { "Inf" } else { "-Inf" }.to_string(),
        0.0 => "0".to_string(),
        x => match style {
            Style::Integer => format!("{x:.0}"),
            Style::Fixed { decimals } => format!("{x:.decimals$}"),
            Style::Exponent => scientific(x),
        },
    }
}

/// Octave's digit count of a positive finite magnitude: `floor(log10(x)) + 1`; 0 for zero
/// (and for Inf and NaN, which no format takes its widths from).
fn digits(x: f64) -> i32 {
    if x == 0.0 || !x.is_finite() {
        0
    } else {
        x.log10().floor() as i32 + 1
    }
}

/// The largest and smallest digit counts Octave bases the format on: for a scalar, those of
/// its two parts; for a matrix, the larger of the real and the imaginary parts' counts for the
/// largest finite magnitudes, and likewise for the smallest.
fn digit_range(z: &[[f64; 2]], scalar: bool) -> (i32, i32) {
    if scalar {
        let [re, im] = z[0].map(|p| digits(p.abs()));
        return (re.max(im), re.min(im));
    }
    let extremes = |k: usize| {
        let finite = z.iter().map(|p| p[k].abs()).filter(|x| x.is_finite());
        let max = finite
            .clone()
            .fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.max(x))));
        let min = finite.fold(None, |m: Option<f64>, x| Some(m.map_or(x, |m| m.min(x))));
        (digits(max.unwrap_or(0.0)), digits(min.unwrap_or(0.0)))
    };
    let ((re_max, re_min), (im_max, im_min)) = (extremes(0), extremes(1));
    (re_max.max(im_max), re_min.max(im_min))
}

/// Octave's digits before and after the point for a fixed format, from the digit counts.
fn fixed_digits(x_max: i32, x_min: i32) -> (usize, usize) {
    let one = |x: i32| -> (i32, i32) {
        match x {
            x if x > 0 => (
                x,
                if PRECISION > x {
                    PRECISION - x
                } else {
                    PRECISION
                },
            ),
            x if x < 0 => (1, PRECISION - x),
            _ => (1, PRECISION - 1),
        }
    };
    let ((ld_max, rd_max), (ld_min, rd_min)) = (one(x_max), one(x_min));
    (ld_max.max(ld_min) as usize, rd_max.max(rd_min) as usize)
}

/// The format Octave chooses for the elements `z` (a scalar when `scalar`).
fn choose_format(z: &[[f64; 2]], scalar: bool) -> Format {
    let parts = || z.iter().flatten().copied();
    let non_finite = parts().any(|x| !x.is_finite());
    let integers = parts().filter(|x| x.is_finite()).all(|x| x.fract() == 0.0);
    let (x_max, x_min) = digit_range(z, scalar);
    let (style, imag_width) = if integers || (scalar && non_finite) {
        let digits = x_max.max(x_min).max(1) as usize;
        let most = if scalar { 7 } else { 6 };
        if digits > most {
            (Style::Exponent, 0)
        } else if non_finite {
            (Style::Integer, digits.max(3))
        } else {
            (Style::Integer, digits)
        }
    } else {
        let (ld, rd) = fixed_digits(x_max, x_min);
        if ld + 1 + rd > 8 {
            (Style::Exponent, 0)
        } else {
            (Style::Fixed { decimals: rd }, ld + 1 + rd)
        }
    };
    let imag_width = match style {
        Style::Exponent => parts()
            .map(|x| part(x.abs(), style).len())
            .max()
            .unwrap_or(0),
        _ => imag_width,
    };
    Format {
        style,
        real_width: imag_width + 1,
        imag_width,
    }
}

#[cfg(test)]
mod tests {
    use super::super::display;
    use crate::value::Value;

    /// Octave 7.3's text for `name = value` (`octave-cli --eval`), its trailing blank line
    /// after a matrix left out.
    fn check(value: Value, octave: &str) {
        assert_eq!(display("z", &value), octave);
    }

    #[test]
    fn scalars_print_inline() {
        check(Value::scalar([1.0, 2.0]), "z =  1 + 2i\n");
        check(Value::scalar([-1.0, -2.0]), "z = -1 - 2i\n");
        check(Value::scalar([3.0, 0.0]), "z =  3 + 0i\n");
        check(Value::scalar([-0.0, -0.0]), "z =  0 - 0i\n");
        check(Value::scalar([1.5, 2.0]), "z =  1.5000 + 2.0000i\n");
        check(Value::scalar([0.5, 0.25]), "z =  0.5000 + 0.2500i\n");
        check(Value::scalar([100.5, 2.0]), "z =  100.5000 +   2.0000i\n");
        check(Value::scalar([1234.5, 1234.5]), "z =  1234.5 + 1234.5i\n");
        check(Value::scalar([0.01, 1.0]), "z =  0.010000 + 1.000000i\n");
        check(Value::scalar([123456.0, 1.0]), "z =  123456 +      1i\n");
        check(Value::scalar([1234567.0, 1.0]), "z =  1234567 +       1i\n");
    }

    #[test]
    fn wide_scalars_switch_to_exponents() {
        check(
            Value::scalar([1e10, 1.0]),
            "z =  1.0000e+10 + 1.0000e+00i\n",
        );
        check(
            Value::scalar([12345678.0, 1.0]),
            "z =  1.2346e+07 + 1.0000e+00i\n",
        );
        check(
            Value::scalar([1234.5, 1.0]),
            "z =  1.2345e+03 + 1.0000e+00i\n",
        );
        check(
            Value::scalar([0.001, 0.5]),
            "z =  1.0000e-03 + 5.0000e-01i\n",
        );
        check(
            Value::scalar([10.5, 0.01]),
            "z =  1.0500e+01 + 1.0000e-02i\n",
        );
    }

    #[test]
    fn inf_and_nan_parts() {
        check(
            Value::scalar([f64::INFINITY, f64::NAN]),
            "z =  Inf + NaNi\n",
        );
        check(Value::scalar([f64::NAN, f64::NAN]), "z =  NaN + NaNi\n");
        check(Value::scalar([1.0, f64::NAN]), "z =    1 + NaNi\n");
        check(Value::scalar([1.0, -f64::NAN]), "z =    1 - NaNi\n");
        check(Value::scalar([1.5, f64::NAN]), "z =    2 + NaNi\n");
        check(Value::scalar([f64::INFINITY, 1.5]), "z =  Inf +   2i\n");
        check(Value::scalar([-1.5, f64::INFINITY]), "z =   -2 + Infi\n");
        check(
            Value::row(vec![[1.0, f64::INFINITY], [f64::NAN, 2.0]]),
            "z =\n\n     1 + Infi   NaN +   2i\n",
        );
        check(
            Value::column(vec![[f64::INFINITY, -2.5], [1.0, 0.0]]),
            "z =\n\n      Inf - 2.5000i\n   1.0000 +      0i\n",
        );
        check(
            Value::row(vec![[f64::NAN, f64::NAN], [1.5, 0.0]]),
            "z =\n\n      NaN +    NaNi   1.5000 +      0i\n",
        );
    }

    #[test]
    fn matrices_print_in_columns() {
        check(
            Value::row(vec![[1.0, 2.0], [3.0, 0.0]]),
            "z =\n\n   1 + 2i   3 + 0i\n",
        );
        check(
            Value::column(vec![[1.5, -2.0], [-3.0, 0.25]]),
            "z =\n\n   1.5000 - 2.0000i\n  -3.0000 + 0.2500i\n",
        );
        let m = vec![
            [1.0, 2.0],
            [4.0, 0.0],
            [0.0, 7.0],
            [3.0, 0.0],
            [5.0, -6.0],
            [8.0, 0.0],
        ];
        check(
            Value::matrix(3, 2, m).unwrap(),
            "z =\n\n   1 + 2i   3 + 0i\n   4 + 0i   5 - 6i\n   0 + 7i   8 + 0i\n",
        );
        check(
            Value::row(vec![[100.5, 2.0], [1.0, 0.0]]),
            "z =\n\n   100.5000 +   2.0000i     1.0000 +        0i\n",
        );
        check(
            Value::row(vec![[-1.0, 2.0], [999999.0, 0.0]]),
            "z =\n\n       -1 +      2i   999999 +      0i\n",
        );
    }

    #[test]
    fn wide_matrices_switch_to_exponents() {
        check(
            Value::row(vec![[1.0, 2.0], [1e6, 0.0]]),
            "z =\n\n   1.0000e+00 + 2.0000e+00i   1.0000e+06 +          0i\n",
        );
        check(
            Value::column(vec![[1e10, 1.0], [-2.0, -3.0]]),
            "z =\n\n   1.0000e+10 + 1.0000e+00i\n  -2.0000e+00 - 3.0000e+00i\n",
        );
        check(
            Value::row(vec![[0.5, 1.0], [1234.5, -2.0]]),
            "z =\n\n   5.0000e-01 + 1.0000e+00i   1.2345e+03 - 2.0000e+00i\n",
        );
    }

    #[test]
    fn wide_rows_split_into_column_chunks() {
        let row = |n: usize, z: [f64; 2]| {
            Value::row(
                (1..=n)
                    .map(|k| [k as f64 * z[0], k as f64 * z[1]])
                    .collect(),
            )
        };
        check(
            row(4, [1.0, 2.5]),
            "z =\n\n Columns 1 through 3:\n\n    1.0000 +  2.5000i    2.0000 +  5.0000i    3.0000 +  7.5000i\n\n Column 4:\n\n    4.0000 + 10.0000i\n",
        );
        check(
            row(5, [1.0, 2.5]),
            "z =\n\n Columns 1 through 3:\n\n    1.0000 +  2.5000i    2.0000 +  5.0000i    3.0000 +  7.5000i\n\n Columns 4 and 5:\n\n    4.0000 + 10.0000i    5.0000 + 12.5000i\n",
        );
        check(
            row(5, [100.0, 2.5]),
            "z =\n\n Columns 1 through 4:\n\n   100.00 +   2.50i   200.00 +   5.00i   300.00 +   7.50i   400.00 +  10.00i\n\n Column 5:\n\n   500.00 +  12.50i\n",
        );
    }
}
