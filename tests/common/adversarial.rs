//! Adversarial input variants derived from a fixture's stored inputs, for any fixture.
//!
//! Invariants of what [`variants`] returns:
//! - every variant has the same input names, in the same order, and the same classes as the
//!   stored inputs;
//! - scalars are never changed (they often bound loops or select bins), and 3-D arrays keep
//!   their extents except in the shape variants;
//! - a value variant changes elements but no extents; a length variant changes the extents of
//!   every vector input (one dimension 1, at least two elements) together, to the same length,
//!   filling it cyclically from the stored elements; a shape variant takes the first slice along
//!   one dimension of every input that has more than one element along it;
//! - no variant equals the stored inputs or an earlier variant.
//!
//! Which variants exist: `nan` (NaN first, middle and last), `allnan`, `extremes` (the class's
//! largest value first and last, its smallest in the middle and at a third: ±Inf for floats,
//! intmax/intmin for integers, false for logicals), `ties` (the largest stored value first,
//! middle and last, the smallest second, just after the middle and second to last), `mixed`
//! (signed integers: every other element negated, saturating), `zeros` (alternating -0 and +0),
//! `allmax` and `allmin` (every element the class's largest or smallest value); `len=N` for
//! N in [`LENGTHS`]; `dimD=1` for each dimension D along which some input has several elements.

use m2cu::Value;
use m2cu_runtime::Data;

/// The lengths every vector input is resized to.
pub const LENGTHS: [usize; 7] = [0, 1, 31, 32, 33, 1023, 1025];

/// One set of inputs for a fixture, with a short label saying how it was derived.
#[derive(Clone, Debug)]
pub struct Variant {
    pub label: String,
    pub inputs: Vec<(String, Value)>,
}

/// The adversarial variants of `base`. Length and shape variants only when `resizable` (a fixture
/// whose `arguments` block fixes the sizes cannot take them).
pub fn variants(base: &[(String, Value)], resizable: bool) -> Vec<Variant> {
    let mut out: Vec<Variant> = Vec::new();
    let mut push = |label: String, inputs: Vec<(String, Value)>| {
        let fresh = fingerprint(&inputs) != fingerprint(base)
            && out
                .iter()
                .all(|v| fingerprint(&v.inputs) != fingerprint(&inputs));
        if fresh {
            out.push(Variant { label, inputs });
        }
    };
    for kind in ValueKind::ALL {
        push(
            kind.label().to_string(),
            map_arrays(base, |v| with_elements(v, kind)),
        );
    }
    if resizable {
        for n in LENGTHS {
            push(format!("len={n}"), map_vectors(base, |v| resized(v, n)));
        }
        for dim in 0..3 {
            push(
                format!("dim{}=1", dim + 1),
                map_arrays(base, |v| first_slice(v, dim)),
            );
        }
    }
    out
}

/// A text that tells inputs apart bit for bit (NaN equals NaN, -0 differs from 0).
fn fingerprint(inputs: &[(String, Value)]) -> String {
    format!("{inputs:?}")
}

fn is_vector(v: &Value) -> bool {
    v.dims.len() == 2 && (v.rows() == 1 || v.cols() == 1) && v.numel() >= 2
}

/// The inputs with `f` applied to every non-scalar one.
fn map_arrays(base: &[(String, Value)], f: impl Fn(&Value) -> Value) -> Vec<(String, Value)> {
    base.iter()
        .map(|(n, v)| (n.clone(), if v.numel() >= 2 { f(v) } else { v.clone() }))
        .collect()
}

/// The inputs with `f` applied to every vector.
fn map_vectors(base: &[(String, Value)], f: impl Fn(&Value) -> Value) -> Vec<(String, Value)> {
    base.iter()
        .map(|(n, v)| (n.clone(), if is_vector(v) { f(v) } else { v.clone() }))
        .collect()
}

/// A vector of `n` elements with `v`'s orientation, its elements repeated cyclically.
fn resized(v: &Value, n: usize) -> Value {
    let dims = if v.rows() == 1 {
        vec![1, n]
    } else {
        vec![n, 1]
    };
    let data = gather(&v.data, &(0..n).map(|k| k % v.numel()).collect::<Vec<_>>());
    Value::new(dims, data).expect("resized vector")
}

/// The first slice of `v` along `dim` (0-based), or `v` when it has one element along it.
fn first_slice(v: &Value, dim: usize) -> Value {
    let mut dims = v.dims.clone();
    if dims.get(dim).is_none_or(|&d| d == 1) {
        return v.clone();
    }
    dims[dim] = 1;
    let old = &v.dims;
    let indices: Vec<usize> = (0..dims.iter().product())
        .map(|k| {
            // Subscripts of `k` in the new extents equal those in the old ones (the kept slice is
            // the first), so only the strides change.
            let (mut rest, mut at, mut stride) = (k, 0, 1);
            for (d, &extent) in dims.iter().enumerate() {
                at += (rest % extent) * stride;
                rest /= extent;
                stride *= old[d];
            }
            at
        })
        .collect();
    Value::new(dims, gather(&v.data, &indices)).expect("slice")
}

/// The elements of `data` at `indices`.
fn gather(data: &Data, indices: &[usize]) -> Data {
    macro_rules! pick {
        ($($variant:ident),*) => {
            match data {
                $(Data::$variant(x) => Data::$variant(indices.iter().map(|&k| x[k]).collect()),)*
                Data::ComplexDouble(z) => Data::ComplexDouble(indices.iter().map(|&k| z[k]).collect()),
            }
        };
    }
    pick!(Double, Single, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, Logical, Char)
}

/// The value variants.
#[derive(Clone, Copy, Debug)]
enum ValueKind {
    Nan,
    AllNan,
    Extremes,
    Ties,
    Mixed,
    Zeros,
    AllMax,
    AllMin,
}

impl ValueKind {
    const ALL: [ValueKind; 8] = [
        ValueKind::Nan,
        ValueKind::AllNan,
        ValueKind::Extremes,
        ValueKind::Ties,
        ValueKind::Mixed,
        ValueKind::Zeros,
        ValueKind::AllMax,
        ValueKind::AllMin,
    ];

    fn label(self) -> &'static str {
        match self {
            ValueKind::Nan => "nan",
            ValueKind::AllNan => "allnan",
            ValueKind::Extremes => "extremes",
            ValueKind::Ties => "ties",
            ValueKind::Mixed => "mixed",
            ValueKind::Zeros => "zeros",
            ValueKind::AllMax => "allmax",
            ValueKind::AllMin => "allmin",
        }
    }
}

/// What the value variants need of an element type.
trait Element: Copy + PartialOrd {
    /// The largest and smallest values of the class (±Inf for floats).
    const MAX: Self;
    const MIN: Self;
    /// NaN, for floating-point classes.
    const NAN: Option<Self>;
    /// What `zeros` writes at even and odd positions.
    const ZEROS: (Self, Self);
    /// `-x`, saturating, for the signed integer classes (`None` for the others).
    fn negated(self) -> Option<Self>;
}

macro_rules! float_element {
    ($t:ty) => {
        impl Element for $t {
            const MAX: Self = <$t>::INFINITY;
            const MIN: Self = <$t>::NEG_INFINITY;
            const NAN: Option<Self> = Some(<$t>::NAN);
            const ZEROS: (Self, Self) = (-0.0, 0.0);
            /// Stored float inputs have mixed signs already.
            fn negated(self) -> Option<Self> {
                None
            }
        }
    };
}
float_element!(f64);
float_element!(f32);

macro_rules! int_element {
    ($t:ty, $negated:expr) => {
        impl Element for $t {
            const MAX: Self = <$t>::MAX;
            const MIN: Self = <$t>::MIN;
            const NAN: Option<Self> = None;
            const ZEROS: (Self, Self) = (0, 0);
            fn negated(self) -> Option<Self> {
                $negated(self)
            }
        }
    };
}
int_element!(i8, |x: i8| Some(x.saturating_neg()));
int_element!(i16, |x: i16| Some(x.saturating_neg()));
int_element!(i32, |x: i32| Some(x.saturating_neg()));
int_element!(i64, |x: i64| Some(x.saturating_neg()));
int_element!(u8, |_| None);
int_element!(u16, |_| None);
int_element!(u32, |_| None);
int_element!(u64, |_| None);

impl Element for bool {
    const MAX: Self = true;
    const MIN: Self = false;
    const NAN: Option<Self> = None;
    const ZEROS: (Self, Self) = (false, false);
    fn negated(self) -> Option<Self> {
        None
    }
}

/// `v` with its elements changed as `kind` says (unchanged when `kind` does not apply).
fn with_elements(v: &Value, kind: ValueKind) -> Value {
    let mut out = v.clone();
    macro_rules! apply {
        ($($variant:ident),*) => {
            match &mut out.data {
                $(Data::$variant(x) => change(x, kind),)*
                Data::ComplexDouble(z) => change_parts(z, kind),
                Data::Char(_) => {}
            }
        };
    }
    apply!(Double, Single, Int8, Int16, Int32, Int64, Uint8, Uint16, Uint32, Uint64, Logical);
    out
}

/// Changes the real and the imaginary parts of `z` each as `kind` says.
fn change_parts(z: &mut [[f64; 2]], kind: ValueKind) {
    for k in 0..2 {
        let mut part: Vec<f64> = z.iter().map(|p| p[k]).collect();
        change(&mut part, kind);
        z.iter_mut().zip(part).for_each(|(p, x)| p[k] = x);
    }
}

/// Changes `x` (at least two elements) in place as `kind` says.
fn change<T: Element>(x: &mut [T], kind: ValueKind) {
    let n = x.len();
    let (first, middle, last) = (0, n / 2, n - 1);
    match kind {
        ValueKind::Nan => {
            if let Some(nan) = T::NAN {
                set(x, &[first, middle, last], nan);
            }
        }
        ValueKind::AllNan => {
            if let Some(nan) = T::NAN {
                x.iter_mut().for_each(|y| *y = nan);
            }
        }
        ValueKind::Extremes => {
            set(x, &[first, last], T::MAX);
            set(x, &[middle, n / 3], T::MIN);
        }
        ValueKind::Ties => {
            let ordered = |a: &&T, b: &&T| a.partial_cmp(b).unwrap_or(std::cmp::Ordering::Equal);
            let finite = |y: &&T| y.partial_cmp(y).is_some();
            let (Some(&hi), Some(&lo)) = (
                x.iter().filter(finite).max_by(ordered),
                x.iter().filter(finite).min_by(ordered),
            ) else {
                return;
            };
            set(x, &[1, (middle + 1).min(last), last - 1], lo);
            set(x, &[first, middle, last], hi);
        }
        ValueKind::Mixed => {
            for y in x.iter_mut().step_by(2) {
                if let Some(negated) = y.negated() {
                    *y = negated;
                }
            }
        }
        ValueKind::Zeros => {
            for (k, y) in x.iter_mut().enumerate() {
                *y = if k % 2 == 0 { T::ZEROS.0 } else { T::ZEROS.1 };
            }
        }
        ValueKind::AllMax => x.iter_mut().for_each(|y| *y = T::MAX),
        ValueKind::AllMin => x.iter_mut().for_each(|y| *y = T::MIN),
    }
}

fn set<T: Copy>(x: &mut [T], positions: &[usize], value: T) {
    positions.iter().for_each(|&k| x[k] = value);
}
