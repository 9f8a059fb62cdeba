//! MATLAB constant expressions for `--set NAME=EXPR`: numbers, `[1 2; 3 4]`, `a:b`, `a:s:b`,
//! `zeros/ones/rand/randn(m, n)`, class conversions such as `int8([1 2])`, `pi`, `inf`, `nan`,
//! `true`, `false`, unary minus and the arithmetic operators on scalars and arrays.
//!
//! Values are computed in double and converted at the end by class conversions, with MATLAB's
//! rounding and saturation. `rand`/`randn` draw from a generator seeded by the caller, so a run
//! is repeatable.

use m2cu_frontend::ast::{BinaryOp, Expr, ExprKind, UnaryOp};
use m2cu_runtime::{ClassId, Data, Value};
use rand::rngs::StdRng;
use rand::Rng;
use rand_distr::StandardNormal;

/// A matrix under evaluation: doubles plus the class they will have.
#[derive(Clone, Debug)]
struct Mat {
    rows: usize,
    cols: usize,
    data: Vec<f64>,
    class: ClassId,
}

impl Mat {
    fn scalar(v: f64) -> Mat {
        Mat {
            rows: 1,
            cols: 1,
            data: vec![v],
            class: ClassId::Double,
        }
    }

    fn is_scalar(&self) -> bool {
        self.rows == 1 && self.cols == 1
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
            let mut data = vec![0.0; m.data.len()];
            for i in 0..m.rows {
                for j in 0..m.cols {
                    data[j + i * m.cols] = m.data[i + j * m.rows];
                }
            }
            Ok(Mat {
                rows: m.cols,
                cols: m.rows,
                data,
                class: m.class,
            })
        }
        ExprKind::Str(_)
        | ExprKind::Colon
        | ExprKind::End
        | ExprKind::FuncHandle(_)
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
    Ok(Mat {
        rows: 1,
        cols: n,
        data,
        class: ClassId::Double,
    })
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
    let (rows, cols) = match (a.is_scalar(), b.is_scalar()) {
        (true, _) => (b.rows, b.cols),
        (_, true) => (a.rows, a.cols),
        _ if a.rows == b.rows && a.cols == b.cols => (a.rows, a.cols),
        _ => {
            return Err(format!(
                "sizes {}x{} and {}x{} do not match",
                a.rows, a.cols, b.rows, b.cols
            ))
        }
    };
    let get = |m: &Mat, k: usize| if m.is_scalar() { m.data[0] } else { m.data[k] };
    let data = (0..rows * cols)
        .map(|k| f(get(&a, k), get(&b, k)))
        .collect();
    Ok(Mat {
        rows,
        cols,
        data,
        class: ClassId::Double,
    })
}

fn matrix(rows: &[Vec<Expr>], rng: &mut StdRng) -> Result<Mat, String> {
    let mut blocks: Vec<Mat> = Vec::new();
    for row in rows {
        let parts: Vec<Mat> = row.iter().map(|e| eval(e, rng)).collect::<Result<_, _>>()?;
        let parts: Vec<Mat> = parts.into_iter().filter(|m| !m.data.is_empty()).collect();
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
        blocks.push(Mat {
            rows: height,
            cols,
            data,
            class: ClassId::Double,
        });
    }
    let Some(first) = blocks.first() else {
        return Ok(Mat {
            rows: 0,
            cols: 0,
            data: vec![],
            class: ClassId::Double,
        });
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
    Ok(Mat {
        rows,
        cols,
        data,
        class: ClassId::Double,
    })
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
    let fill: Box<dyn FnMut(&mut StdRng) -> f64> = match name {
        "zeros" => Box::new(|_| 0.0),
        "ones" => Box::new(|_| 1.0),
        "rand" => Box::new(|r: &mut StdRng| r.gen::<f64>()),
        "randn" => Box::new(|r: &mut StdRng| r.sample(StandardNormal)),
        _ => return Err(format!("`{name}` is not available in --set values (use zeros, ones, rand, randn, a class conversion, ranges or [..])")),
    };
    let dims: Vec<f64> = args
        .iter()
        .map(|a| scalar(a, rng))
        .collect::<Result<_, _>>()?;
    let (rows, cols) = match dims.as_slice() {
        [] => (1.0, 1.0),
        [n] => (*n, *n),
        [r, c] => (*r, *c),
        _ => return Err(format!("`{name}` takes at most two sizes here")),
    };
    let size = |x: f64| {
        if x.fract() == 0.0 && x >= 0.0 {
            Ok(x as usize)
        } else {
            Err(format!("size {x} is not a nonnegative integer"))
        }
    };
    let (rows, cols) = (size(rows)?, size(cols)?);
    check_size(rows.saturating_mul(cols))?;
    let mut fill = fill;
    let data = (0..rows * cols).map(|_| fill(rng)).collect();
    Ok(Mat {
        rows,
        cols,
        data,
        class: ClassId::Double,
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
    Value::new(vec![m.rows, m.cols], data).map_err(|e| e.to_string())
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
