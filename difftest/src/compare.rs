//! Bit-exact comparison with Octave's outputs: same class, same size, same elements, where NaN
//! equals NaN and −0 equals +0 (MATLAB's `isequaln`). No tolerance: the generator only builds
//! floating reductions that are exact in any order.

use m2cu::Value;
use m2cu_runtime::Data;

/// Why `got` differs from Octave's `want`, or `None`.
pub fn difference(want: &Value, got: &Value) -> Option<String> {
    if want.class() != got.class() {
        return Some(format!("class {} instead of {}", got.class(), want.class()));
    }
    if want.dims != got.dims {
        return Some(format!("size {:?} instead of {:?}", got.dims, want.dims));
    }
    let first_float = |w: Vec<f64>, g: Vec<f64>| {
        w.iter()
            .zip(&g)
            .position(|(w, g)| !(w == g || (w.is_nan() && g.is_nan())))
            .map(|k| format!("element {} is {}, Octave has {}", k + 1, g[k], w[k]))
    };
    match (&want.data, &got.data) {
        (Data::Double(w), Data::Double(g)) => first_float(w.clone(), g.clone()),
        (Data::Single(w), Data::Single(g)) => first_float(
            w.iter().map(|&x| x.into()).collect(),
            g.iter().map(|&x| x.into()).collect(),
        ),
        (w, g) => (w != g).then(|| first_listed(&format!("{w:?}"), &format!("{g:?}"))),
    }
}

/// The first differing element of two equally long element lists in their `Debug` form.
fn first_listed(want: &str, got: &str) -> String {
    let items = |s: &str| -> Vec<String> {
        let inner = s
            .split_once('[')
            .map_or(s, |(_, rest)| rest.trim_end_matches([']', ')']));
        inner.split(", ").map(str::to_string).collect()
    };
    let (w, g) = (items(want), items(got));
    match w.iter().zip(&g).position(|(a, b)| a != b) {
        Some(k) => format!("element {} is {}, Octave has {}", k + 1, g[k], w[k]),
        None => format!("{got} instead of {want}"),
    }
}
