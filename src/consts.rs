//! MATLAB constant expressions for `--set NAME=EXPR`: numbers, `[1 2; 3 4]`, `a:b`, `a:s:b`,
//! `zeros/ones/rand/randn(m, n)` and `(m, n, p)`, `reshape(x, m, n)` and `(x, m, n, p)` (one
//! size may be `[]`), class conversions such as `int8([1 2])`, `pi`, `inf`, `nan`, `true`,
//! `false`, unary minus and the arithmetic operators on scalars and arrays.
//!
//! Values are 2-D or 3-D, like [`Value`]s; a third extent of 1 is dropped when the value is
//! made. Concatenation and transposition take 2-D operands only. Values are computed in double
//! and converted at the end by class conversions, with MATLAB's rounding and saturation.
//! `rand`/`randn` draw from a generator seeded by the caller, so a run is repeatable.

use m2cu_frontend::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use m2cu_runtime::{ClassId, Data, Value};
use rand::rngs::StdRng;
use rand::Rng;
use rand_distr::StandardNormal;

/// An array under evaluation: extents, column-major doubles, and the class they will have.
/// `data.len()` is `rows * cols * pages`.
#[derive(Clone, Debug)]
struct Mat {
    rows: usize,
    cols: usize,
    pages: usize,
    data: Vec<f64>,
    class: ClassId,
}

impl Mat {
    fn scalar(v: f64) -> Mat {
        Mat::double(1, 1, vec![v])
    }

    /// A 2-D double matrix.
    fn double(rows: usize, cols: usize, data: Vec<f64>) -> Mat {
        Mat {
            rows,
            cols,
            pages: 1,
            data,
            class: ClassId::Double,
        }
    }

    fn is_scalar(&self) -> bool {
        self.data.len() == 1
    }

    fn is_2d(&self) -> bool {
        self.pages == 1
    }

    /// `2x3` or `2x3x4`, as MATLAB writes sizes in error messages.
    fn size_text(&self) -> String {
        let mut text = format!("{}x{}", self.rows, self.cols);
        if !self.is_2d() {
            text += &format!("x{}", self.pages);
        }
        text
    }
}

/// Evaluates a constant expression with `rng` for `rand`/`randn`.
pub fn evaluate(expr: &Expr, rng: &mut StdRng) -> Result<Value, String> {
    let m = eval(expr, rng)?;
    to_value(m)
}

/// The most elements a `--set` value may have.
const MAX_ELEMENTS: usize = 1 << 31;

fn eval(expr: &Expr, rng: &mut StdRng) -> Result<Mat, String> {
    match &expr.kind {
        ExprKind::Number { value, .. } => Ok(Mat::scalar(*value)),
        ExprKind::Paren(inner) => eval(inner, rng),
        ExprKind::Ident(name) => constant(name)
            .map(Mat::scalar)
            .ok_or_else(|| format!("unknown name `{name}`")),
        ExprKind::Unary { op, operand } => {
            let mut m = eval(operand, rng)?;
            match op {
                UnaryOp::Neg => m.data.iter_mut().for_each(|x| *x = -*x),
                UnaryOp::Plus => {}
                UnaryOp::Not => m.data.iter_mut().for_each(|x| *x = f64::from(*x == 0.0)),
            }
            Ok(m)
        }
        ExprKind::Binary { op, lhs, rhs } => binary(*op, eval(lhs, rng)?, eval(rhs, rng)?),
        ExprKind::Range { start, step, stop } => {
            let step = match step {
                Some(s) => scalar(s, rng)?,
                None => 1.0,
            };
            range(scalar(start, rng)?, step, scalar(stop, rng)?)
        }
        ExprKind::Matrix(rows) => matrix(rows, rng),
        ExprKind::Call { callee, args } => call(&callee.name, args, rng),
        ExprKind::Postfix { operand, .. } => {
            let m = eval(operand, rng)?;
            if !m.is_2d() {
                return Err("Transpose on ND array is not defined. Use PERMUTE instead.".into());
            }
            let mut data = vec![0.0; m.data.len()];
            for i in 0..m.rows {
                for j in 0..m.cols {
                    data[j + i * m.cols] = m.data[i + j * m.rows];
                }
            }
            Ok(Mat {
                rows: m.cols,
                cols: m.rows,
                pages: 1,
                data,
                class: m.class,
            })
        }
        ExprKind::Str(_)
        | ExprKind::Colon
        | ExprKind::End
        | ExprKind::FuncHandle(_)
        | ExprKind::HandleCell(_)
        | ExprKind::AnonFn { .. } => Err("not a constant value".into()),
    }
}

fn constant(name: &str) -> Option<f64> {
    Some(match name {
        "pi" => std::f64::consts::PI,
        "inf" | "Inf" => f64::INFINITY,
        "nan" | "NaN" => f64::NAN,
        "eps" => f64::EPSILON,
        "true" => 1.0,
        "false" => 0.0,
        _ => return None,
    })
}

fn scalar(e: &Expr, rng: &mut StdRng) -> Result<f64, String> {
    let m = eval(e, rng)?;
    if m.is_scalar() {
        Ok(m.data[0])
    } else {
        Err("expected a scalar".into())
    }
}

fn range(start: f64, step: f64, stop: f64) -> Result<Mat, String> {
    let n = if step == 0.0 || (step > 0.0 && start > stop) || (step < 0.0 && start < stop) {
        0
    } else {
        ((stop - start) / step * (1.0 + 4.0 * f64::EPSILON)).floor() as usize + 1
    };
    check_size(n)?;
    let data = (0..n).map(|k| start + k as f64 * step).collect();
    Ok(Mat::double(1, n, data))
}

fn check_size(n: usize) -> Result<(), String> {
    if n > MAX_ELEMENTS {
        return Err(format!(
            "{n} elements is more than m2cu accepts in --set ({MAX_ELEMENTS})"
        ));
    }
    Ok(())
}

fn binary(op: BinaryOp, a: Mat, b: Mat) -> Result<Mat, String> {
    let f: fn(f64, f64) -> f64 = match op {
        BinaryOp::Add => |x, y| x + y,
        BinaryOp::Sub => |x, y| x - y,
        BinaryOp::ElemMul => |x, y| x * y,
        BinaryOp::Mul if a.is_scalar() || b.is_scalar() => |x, y| x * y,
        BinaryOp::ElemDiv => |x, y| x / y,
        BinaryOp::Div if b.is_scalar() => |x, y| x / y,
        BinaryOp::ElemPow => f64::powf,
        BinaryOp::Pow if a.is_scalar() && b.is_scalar() => f64::powf,
        _ => {
            return Err(format!(
                "operator `{}` is not supported in --set values",
                op.symbol()
            ))
        }
    };
    let shape = |m: &Mat| (m.rows, m.cols, m.pages);
    let (rows, cols, pages) = match (a.is_scalar(), b.is_scalar()) {
        (true, _) => shape(&b),
        (_, true) => shape(&a),
        _ if shape(&a) == shape(&b) => shape(&a),
        _ => {
            return Err(format!(
                "sizes {} and {} do not match",
                a.size_text(),
                b.size_text()
            ))
        }
    };
    let get = |m: &Mat, k: usize| if m.is_scalar() { m.data[0] } else { m.data[k] };
    let data = (0..rows * cols * pages)
        .map(|k| f(get(&a, k), get(&b, k)))
        .collect();
    Ok(Mat {
        rows,
        cols,
        pages,
        data,
        class: ClassId::Double,
    })
}

fn matrix(rows: &[Vec<Expr>], rng: &mut StdRng) -> Result<Mat, String> {
    let mut blocks: Vec<Mat> = Vec::new();
    for row in rows {
        let parts: Vec<Mat> = row.iter().map(|e| eval(e, rng)).collect::<Result<_, _>>()?;
        let parts: Vec<Mat> = parts.into_iter().filter(|m| !m.data.is_empty()).collect();
        if parts.iter().any(|m| !m.is_2d()) {
            return Err("concatenation of 3-D arrays is not supported in --set values".into());
        }
        if parts.is_empty() {
            continue;
        }
        let height = parts[0].rows;
        if parts.iter().any(|m| m.rows != height) {
            return Err("dimensions of concatenated arrays are not consistent".into());
        }
        let mut data = Vec::new();
        for p in &parts {
            data.extend_from_slice(&p.data);
        }
        let cols = parts.iter().map(|m| m.cols).sum();
        blocks.push(Mat::double(height, cols, data));
    }
    let Some(first) = blocks.first() else {
        return Ok(Mat::double(0, 0, vec![]));
    };
    let cols = first.cols;
    if blocks.iter().any(|b| b.cols != cols) {
        return Err("dimensions of concatenated arrays are not consistent".into());
    }
    let rows: usize = blocks.iter().map(|b| b.rows).sum();
    let mut data = vec![0.0; rows * cols];
    let mut r0 = 0;
    for b in &blocks {
        for j in 0..cols {
            for i in 0..b.rows {
                data[(r0 + i) + j * rows] = b.data[i + j * b.rows];
            }
        }
        r0 += b.rows;
    }
    Ok(Mat::double(rows, cols, data))
}

fn call(name: &str, args: &[Expr], rng: &mut StdRng) -> Result<Mat, String> {
    if let Some(class) = ClassId::from_name(name).filter(|c| *c != ClassId::Char) {
        let [arg] = args else {
            return Err(format!("`{name}` takes one argument"));
        };
        let mut m = eval(arg, rng)?;
        m.class = class;
        return Ok(m);
    }
    if let Some(v) = constant(name).filter(|_| args.is_empty()) {
        return Ok(Mat::scalar(v));
    }
    if name == "reshape" {
        return reshape(args, rng);
    }
    let fill: Box<dyn FnMut(&mut StdRng) -> f64> = match name {
        "zeros" => Box::new(|_| 0.0),
        "ones" => Box::new(|_| 1.0),
        "rand" => Box::new(|r: &mut StdRng| r.gen::<f64>()),
        "randn" => Box::new(|r: &mut StdRng| r.sample(StandardNormal)),
        _ => return Err(format!("`{name}` is not available in --set values (use zeros, ones, rand, randn, reshape, a class conversion, ranges or [..])")),
    };
    let sizes: Vec<usize> = args
        .iter()
        .map(|a| extent(scalar(a, rng)?))
        .collect::<Result<_, _>>()?;
    let (rows, cols, pages) = match *sizes.as_slice() {
        [] => (1, 1, 1),
        [n] => (n, n, 1),
        [r, c] => (r, c, 1),
        [r, c, p] => (r, c, p),
        _ => {
            return Err(format!(
                "`{name}` takes at most three sizes here (m2cu values are 2-D or 3-D)"
            ))
        }
    };
    let n = product(&[rows, cols, pages]);
    check_size(n)?;
    let mut fill = fill;
    let data = (0..n).map(|_| fill(rng)).collect();
    Ok(Mat {
        rows,
        cols,
        pages,
        data,
        class: ClassId::Double,
    })
}

/// A size argument: a nonnegative integer.
fn extent(x: f64) -> Result<usize, String> {
    if x.fract() == 0.0 && x >= 0.0 {
        Ok(x as usize)
    } else {
        Err(format!("size {x} is not a nonnegative integer"))
    }
}

/// The product of extents, saturating at `usize::MAX` (which no real element count reaches).
fn product(extents: &[usize]) -> usize {
    extents.iter().fold(1, |n, &d| n.saturating_mul(d))
}

/// `reshape(x, m, n)` and `reshape(x, m, n, p)`: the same elements and class under new extents;
/// one size may be `[]`, computed from the others. Errors use MATLAB's wording.
fn reshape(args: &[Expr], rng: &mut StdRng) -> Result<Mat, String> {
    let usage = || "`reshape` takes an array and two or three sizes".to_string();
    let [x, size_args @ ..] = args else {
        return Err(usage());
    };
    if !(2..=3).contains(&size_args.len()) {
        return Err(usage());
    }
    let m = eval(x, rng)?;
    // `[]` (any 0×0 value) stands for the size that makes the element count right.
    let mut sizes: Vec<Option<usize>> = Vec::new();
    for e in size_args {
        let size = eval(e, rng)?;
        sizes.push(match (size.rows, size.cols, size.pages) {
            (0, 0, 1) => None,
            _ if size.is_scalar() => Some(extent(size.data[0])?),
            _ => return Err("size arguments must be integer scalars or []".into()),
        });
    }
    let known: Vec<usize> = sizes.iter().flatten().copied().collect();
    let numel = m.data.len();
    let sizes: Vec<usize> = match sizes.len() - known.len() {
        0 => known,
        1 => {
            let partial = product(&known);
            if partial == 0 || numel % partial != 0 {
                return Err(format!("Product of known dimensions, {partial}, not divisible into total number of elements, {numel}."));
            }
            sizes.iter().map(|s| s.unwrap_or(numel / partial)).collect()
        }
        _ => return Err("Size can only have one unknown dimension.".into()),
    };
    if product(&sizes) != numel {
        return Err("Number of elements must not change. Use [] as one of the size inputs to automatically calculate the appropriate size for that dimension.".into());
    }
    Ok(Mat {
        rows: sizes[0],
        cols: sizes[1],
        pages: sizes.get(2).copied().unwrap_or(1),
        ..m
    })
}

fn to_value(m: Mat) -> Result<Value, String> {
    let d = &m.data;
    let data = match m.class {
        ClassId::Double => Data::Double(d.clone()),
        ClassId::Single => Data::Single(d.iter().map(|&x| x as f32).collect()),
        ClassId::Logical => Data::Logical(d.iter().map(|&x| x != 0.0).collect()),
        ClassId::Int8 => Data::Int8(d.iter().map(|&x| saturate(x) as i8).collect()),
        ClassId::Int16 => Data::Int16(d.iter().map(|&x| saturate(x) as i16).collect()),
        ClassId::Int32 => Data::Int32(d.iter().map(|&x| saturate(x) as i32).collect()),
        ClassId::Int64 => Data::Int64(d.iter().map(|&x| saturate(x) as i64).collect()),
        ClassId::Uint8 => Data::Uint8(d.iter().map(|&x| saturate(x) as u8).collect()),
        ClassId::Uint16 => Data::Uint16(d.iter().map(|&x| saturate(x) as u16).collect()),
        ClassId::Uint32 => Data::Uint32(d.iter().map(|&x| saturate(x) as u32).collect()),
        ClassId::Uint64 => Data::Uint64(d.iter().map(|&x| saturate(x) as u64).collect()),
        ClassId::Char => return Err("char values are not supported".into()),
    };
    Value::new(vec![m.rows, m.cols, m.pages], data).map_err(|e| e.to_string())
}

/// MATLAB's conversion to an integer class: NaN to 0, halves away from zero. Rust's `as`
/// saturates at the target's limits, which finishes the job.
fn saturate(x: f64) -> f64 {
    if x.is_nan() {
        0.0
    } else {
        x.round()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn value(text: &str) -> Result<Value, String> {
        let expr = m2cu_frontend::parser::parse_expr(text).expect("parses");
        evaluate(&expr, &mut StdRng::seed_from_u64(7))
    }

    #[test]
    fn fills_make_2d_and_3d_values() {
        let z = value("zeros(2, 3, 4)").unwrap();
        assert_eq!(
            (z.dims.clone(), z.class()),
            (vec![2, 3, 4], ClassId::Double)
        );
        assert_eq!(z.as_slice::<f64>().unwrap(), &[0.0; 24]);
        assert_eq!(
            value("ones(2, 3, 1)").unwrap(),
            value("ones(2, 3)").unwrap()
        );
        assert_eq!(value("ones(2)").unwrap().dims, vec![2, 2]);
        assert_eq!(value("zeros()").unwrap(), Value::scalar(0.0));
        let r = value("rand(2, 2, 3)").unwrap();
        assert_eq!(r.dims, vec![2, 2, 3]);
        assert!(r
            .as_slice::<f64>()
            .unwrap()
            .iter()
            .all(|x| (0.0..1.0).contains(x)));
        assert_eq!(value("randn(1, 2, 5)").unwrap().dims, vec![1, 2, 5]);
        assert_eq!(value("zeros(2, 0, 3)").unwrap().dims, vec![2, 0, 3]);
        let saturated = Value::new(vec![1, 1, 2], Data::Int8(vec![127, 127])).unwrap();
        assert_eq!(value("int8(ones(1, 1, 2) * 300)").unwrap(), saturated);
        let err = value("zeros(1, 2, 3, 4)").unwrap_err();
        assert!(err.contains("at most three sizes"), "{err}");
        let err = value("zeros(2, 1.5, 2)").unwrap_err();
        assert!(
            err.contains("size 1.5 is not a nonnegative integer"),
            "{err}"
        );
        let err = value("zeros(65536, 65536, 2)").unwrap_err();
        assert!(err.contains("more than m2cu accepts"), "{err}");
    }

    #[test]
    fn reshape_is_column_major_and_checks_counts() {
        let a = value("reshape(int16(1:24), 2, 3, 4)").unwrap();
        let want = Value::new(vec![2, 3, 4], Data::Int16((1..=24).collect())).unwrap();
        assert_eq!(a, want);
        let m = value("reshape([1 2 3; 4 5 6], 3, 2)").unwrap();
        assert_eq!(
            m,
            Value::matrix(3, 2, vec![1.0, 4.0, 2.0, 5.0, 3.0, 6.0]).unwrap()
        );
        assert_eq!(value("reshape(1:6, 2, [], 3)").unwrap().dims, vec![2, 1, 3]);
        assert_eq!(value("reshape(1:6, [], 2)").unwrap().dims, vec![3, 2]);
        assert_eq!(value("reshape(1:6, 6, 1, 1)").unwrap().dims, vec![6, 1]);
        assert_eq!(
            value("reshape(1:6, 4, 2)").unwrap_err(),
            "Number of elements must not change. Use [] as one of the size inputs to \
             automatically calculate the appropriate size for that dimension."
        );
        assert_eq!(
            value("reshape(1:6, 4, [])").unwrap_err(),
            "Product of known dimensions, 4, not divisible into total number of elements, 6."
        );
        assert_eq!(
            value("reshape(1:6, [], [], 1)").unwrap_err(),
            "Size can only have one unknown dimension."
        );
        assert!(value("reshape(1:6, 6)")
            .unwrap_err()
            .contains("two or three sizes"));
        assert!(value("reshape(1:6, [1 2], 3)")
            .unwrap_err()
            .contains("integer scalars or []"));
    }

    #[test]
    fn three_d_operands() {
        let doubled = value("2 * reshape(1:8, 2, 2, 2) + 1").unwrap();
        let want: Vec<f64> = (1..=8).map(|k| f64::from(2 * k + 1)).collect();
        assert_eq!(
            doubled,
            Value::new(vec![2, 2, 2], Data::Double(want)).unwrap()
        );
        let err = value("zeros(2, 2, 2) + zeros(2, 2)").unwrap_err();
        assert_eq!(err, "sizes 2x2x2 and 2x2 do not match");
        let err = value("zeros(2, 2, 2)'").unwrap_err();
        assert!(
            err.starts_with("Transpose on ND array is not defined"),
            "{err}"
        );
        let err = value("[zeros(1, 1, 2), 1]").unwrap_err();
        assert!(err.contains("concatenation of 3-D arrays"), "{err}");
        assert_eq!(
            value("[1 2; 3 4]'").unwrap(),
            Value::matrix(2, 2, vec![1.0, 2.0, 3.0, 4.0]).unwrap()
        );
    }
}
