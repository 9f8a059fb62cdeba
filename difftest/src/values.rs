//! Random input values that hunt for MATLAB corner cases: NaN, ±Inf and −0 among floats, many
//! ties (min/max with location must return the first), integer extremes and mixed signs.
//!
//! Invariant: floats of the `General` profile are multiples of 1/4 of magnitude at most 16, and
//! those of the `Factors` profile are ±1, ±2, ±1/2 or 0, so that sums and products the generator
//! builds from them are exact in any order (see `gen::Bits`), and a reassociating reduction
//! must then match Octave's sequential loop bit for bit.

use m2cu::{ClassId, Value};
use rand::seq::SliceRandom;
use rand::Rng;

/// What kind of numbers an input holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Profile {
    /// Small numbers with mixed signs (quarters for floats).
    General,
    /// Few distinct values: ties everywhere.
    Ties,
    /// Multiplicative factors: products stay exact and in range.
    Factors,
    /// Integer class extremes and the full range.
    Extremes,
}

/// Knobs of one input.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    pub rows: usize,
    pub cols: usize,
    pub profile: Profile,
    /// Sprinkle NaN, ±Inf and −0 (floats only).
    pub specials: bool,
}

/// A random value of `class` with the given shape.
pub fn sample(rng: &mut impl Rng, class: ClassId, shape: Shape) -> Value {
    let n = shape.rows * shape.cols;
    let reals: Vec<f64> = (0..n).map(|_| float(rng, shape.profile)).collect();
    let value = match class {
        ClassId::Double => Value::matrix(shape.rows, shape.cols, with_specials(rng, reals, shape)),
        ClassId::Single => {
            let v = with_specials(rng, reals, shape);
            Value::matrix(
                shape.rows,
                shape.cols,
                v.iter().map(|&x| x as f32).collect(),
            )
        }
        ClassId::Logical => {
            let p = [0.0, 0.1, 0.5, 0.9, 1.0]
                .choose(rng)
                .copied()
                .unwrap_or(0.5);
            Value::matrix(
                shape.rows,
                shape.cols,
                (0..n).map(|_| rng.gen_bool(p)).collect(),
            )
        }
        int => return integers(rng, int, shape),
    };
    value.expect("a generated value has consistent extents")
}

fn float(rng: &mut impl Rng, profile: Profile) -> f64 {
    match profile {
        Profile::General | Profile::Extremes => rng.gen_range(-64i32..=64) as f64 / 4.0,
        Profile::Ties => *[-1.0, 0.0, 2.0, 2.5].choose(rng).expect("non-empty"),
        Profile::Factors if rng.gen_bool(0.02) => 0.0,
        Profile::Factors => {
            let f = *[1.0, 1.0, 1.0, 2.0, 0.5].choose(rng).expect("non-empty");
            if rng.gen_bool(0.5) {
                -f
            } else {
                f
            }
        }
    }
}

fn with_specials(rng: &mut impl Rng, mut v: Vec<f64>, shape: Shape) -> Vec<f64> {
    if !shape.specials || v.is_empty() {
        return v;
    }
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0];
    for x in v.iter_mut() {
        if rng.gen_bool(0.04) {
            *x = *specials.choose(rng).expect("non-empty");
        }
    }
    // Corners: the first or the last element is special.
    let at = if rng.gen_bool(0.5) { 0 } else { v.len() - 1 };
    if rng.gen_bool(0.3) {
        v[at] = *specials.choose(rng).expect("non-empty");
    }
    v
}

/// The class's range as `i128`.
pub fn int_range(class: ClassId) -> (i128, i128) {
    match class {
        ClassId::Int8 => (i8::MIN.into(), i8::MAX.into()),
        ClassId::Int16 => (i16::MIN.into(), i16::MAX.into()),
        ClassId::Int32 => (i32::MIN.into(), i32::MAX.into()),
        ClassId::Int64 => (i64::MIN.into(), i64::MAX.into()),
        ClassId::Uint8 => (0, u8::MAX.into()),
        ClassId::Uint16 => (0, u16::MAX.into()),
        ClassId::Uint32 => (0, u32::MAX.into()),
        ClassId::Uint64 => (0, u64::MAX.into()),
        other => panic!("{other} is not an integer class"),
    }
}

fn integer(rng: &mut impl Rng, class: ClassId, profile: Profile) -> i128 {
    let (lo, hi) = int_range(class);
    let pick = |rng: &mut _, choices: &[i128]| *choices.choose(rng).expect("non-empty");
    let v = match profile {
        Profile::General => rng.gen_range(-20..=20),
        Profile::Ties => pick(rng, &[lo, hi, 0, 1]),
        Profile::Factors => pick(rng, &[1, 1, -1, 2, -2, 3]),
        Profile::Extremes if rng.gen_bool(0.5) => pick(rng, &[lo, hi, lo + 1, hi - 1, 0, -1]),
        Profile::Extremes => rng.gen_range(lo..=hi),
    };
    v.clamp(lo, hi)
}

fn integers(rng: &mut impl Rng, class: ClassId, shape: Shape) -> Value {
    let n = shape.rows * shape.cols;
    let v: Vec<i128> = (0..n).map(|_| integer(rng, class, shape.profile)).collect();
    let (r, c) = (shape.rows, shape.cols);
    // `integer` clamps to the class's range, so every conversion below is exact.
    let value = match class {
        ClassId::Int8 => Value::matrix(r, c, v.iter().map(|&x| x as i8).collect()),
        ClassId::Int16 => Value::matrix(r, c, v.iter().map(|&x| x as i16).collect()),
        ClassId::Int32 => Value::matrix(r, c, v.iter().map(|&x| x as i32).collect()),
        ClassId::Int64 => Value::matrix(r, c, v.iter().map(|&x| x as i64).collect()),
        ClassId::Uint8 => Value::matrix(r, c, v.iter().map(|&x| x as u8).collect()),
        ClassId::Uint16 => Value::matrix(r, c, v.iter().map(|&x| x as u16).collect()),
        ClassId::Uint32 => Value::matrix(r, c, v.iter().map(|&x| x as u32).collect()),
        ClassId::Uint64 => Value::matrix(r, c, v.iter().map(|&x| x as u64).collect()),
        other => panic!("{other} is not an integer class"),
    };
    value.expect("a generated value has consistent extents")
}
