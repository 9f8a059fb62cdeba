//! The correctness guard: before anything is timed, m2cu's outputs must equal a baseline's
//! outputs on the same inputs (the hand-written C's, or the BLAS's for the matrix products).
//!
//! Invariants: outputs are compared in order, class, extents and elements; [`Tolerance::Exact`]
//! accepts only equal elements (`-0 == +0`); [`Tolerance::Relative`] accepts doubles whose
//! difference is at most that fraction of the larger magnitude of the two;
//! [`Tolerance::OfLargest`] accepts doubles whose difference is at most that fraction of the
//! largest magnitude among all elements of the output (both sides). A result that fails is an
//! error naming the workload, the size, the output and the first differing element: timing a
//! wrong answer is worthless, so the benchmark stops there.

use m2cu::Value;

/// How closely two results must agree.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tolerance {
    Exact,
    /// The largest accepted `|a - b| / max(|a|, |b|)` between two double elements.
    Relative(f64),
    /// The largest accepted `|a - b| / M` between two double elements, `M` the largest magnitude
    /// among the elements of both outputs (for sums of many terms added in another order).
    OfLargest(f64),
}

/// [`compare_to`] with the hand-written C as the baseline.
pub fn compare(
    what: &str,
    got: &[(String, Value)],
    want: &[Value],
    tolerance: Tolerance,
) -> Result<f64, String> {
    compare_to(what, "the hand-written C", got, want, tolerance)
}

/// Compares `got` (named outputs of m2cu, described as `what` in errors) with `want` (the
/// outputs of `baseline`, e.g. "the hand-written C", same order); returns the largest relative
/// difference seen (0 when every element is equal).
pub fn compare_to(
    what: &str,
    baseline: &str,
    got: &[(String, Value)],
    want: &[Value],
    tolerance: Tolerance,
) -> Result<f64, String> {
    if got.len() != want.len() {
        return Err(format!(
            "{what}: {} outputs, {baseline} has {}",
            got.len(),
            want.len()
        ));
    }
    let mut largest: f64 = 0.0;
    for ((name, g), w) in got.iter().zip(want) {
        if g.class() != w.class() || g.dims != w.dims {
            return Err(format!(
                "{what}: output `{name}` is {} {:?}, {baseline}'s is {} {:?}",
                g.class(),
                g.dims,
                w.class(),
                w.dims
            ));
        }
        let difference = match (g.as_slice::<f64>(), w.as_slice::<f64>()) {
            (Some(g), Some(w)) => compare_doubles(g, w, tolerance),
            _ => (g.data == w.data).then_some(0.0).ok_or(0),
        };
        match difference {
            Ok(d) => largest = largest.max(d),
            Err(k) => {
                return Err(format!(
                    "{what}: output `{name}` differs from {baseline}'s at element {} ({})",
                    k + 1,
                    describe(g, w, k, baseline, tolerance)
                ))
            }
        }
    }
    Ok(largest)
}

/// The largest relative difference, or the index of the first element outside `tolerance`.
fn compare_doubles(got: &[f64], want: &[f64], tolerance: Tolerance) -> Result<f64, usize> {
    let magnitude = got.iter().chain(want).fold(0.0, |m: f64, x| m.max(x.abs()));
    let mut largest: f64 = 0.0;
    for (k, (&g, &w)) in got.iter().zip(want).enumerate() {
        if g == w {
            continue;
        }
        let (relative, limit) = match tolerance {
            Tolerance::Exact => return Err(k),
            Tolerance::Relative(limit) => ((g - w).abs() / g.abs().max(w.abs()), limit),
            Tolerance::OfLargest(limit) => ((g - w).abs() / magnitude, limit),
        };
        if relative.is_nan() || relative > limit {
            return Err(k);
        }
        largest = largest.max(relative);
    }
    Ok(largest)
}

fn describe(got: &Value, want: &Value, k: usize, baseline: &str, tolerance: Tolerance) -> String {
    match (got.as_slice::<f64>(), want.as_slice::<f64>()) {
        (Some(g), Some(w)) => format!(
            "m2cu {:e}, {baseline} {:e}, allowed: {}",
            g[k],
            w[k],
            match tolerance {
                Tolerance::Exact => "exact".to_string(),
                Tolerance::Relative(r) => format!("relative {r:e}"),
                Tolerance::OfLargest(r) => format!("{r:e} of the largest magnitude"),
            }
        ),
        _ => "elements of a non-double class must be equal".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(v: Vec<f64>) -> Vec<(String, Value)> {
        vec![("s".to_string(), Value::row(v))]
    }

    #[test]
    fn exact_accepts_equal_and_signed_zeros_only() {
        let want = [Value::row(vec![1.0, 0.0])];
        assert_eq!(
            compare("t", &named(vec![1.0, -0.0]), &want, Tolerance::Exact),
            Ok(0.0)
        );
        let e = compare("t", &named(vec![1.0, 1e-300]), &want, Tolerance::Exact).unwrap_err();
        assert!(e.contains("at element 2"), "{e}");
    }

    #[test]
    fn relative_reports_the_largest_difference_and_rejects_beyond_it() {
        let want = [Value::scalar(1.0)];
        let close = compare(
            "t",
            &named(vec![1.0 + 1e-14]),
            &want,
            Tolerance::Relative(1e-12),
        )
        .unwrap();
        assert!(close > 0.0 && close < 1e-13);
        let far = compare(
            "t",
            &named(vec![1.0 + 1e-9]),
            &want,
            Tolerance::Relative(1e-12),
        );
        assert!(far.unwrap_err().contains("relative 1e-12"));
    }

    #[test]
    fn of_largest_scales_by_the_largest_magnitude_of_the_output() {
        let want = [Value::row(vec![1e3, 1.0])];
        // 1e-10 relative to the element, but 1e-13 of the largest magnitude: accepted.
        let close = named(vec![1e3, 1.0 + 1e-10]);
        let d = compare_to("t", "the BLAS", &close, &want, Tolerance::OfLargest(1e-12)).unwrap();
        assert!(d > 0.0 && d < 1e-12, "{d}");
        let far = named(vec![1e3 + 1e-6, 1.0]);
        let e = compare_to("t", "the BLAS", &far, &want, Tolerance::OfLargest(1e-12)).unwrap_err();
        assert!(
            e.contains("the BLAS's at element 1") && e.contains("largest magnitude"),
            "{e}"
        );
        let nan = named(vec![f64::NAN, 1.0]);
        assert!(compare_to("t", "b", &nan, &want, Tolerance::OfLargest(1e-12)).is_err());
    }

    #[test]
    fn shapes_and_classes_must_match() {
        let want = [Value::row(vec![1.0, 2.0])];
        let e = compare("t", &named(vec![1.0]), &want, Tolerance::Exact).unwrap_err();
        assert!(e.contains("output `s`"), "{e}");
        let bytes = [("b".to_string(), Value::row(vec![1u8, 2]))];
        assert!(compare("t", &bytes, &[Value::row(vec![1u8, 3])], Tolerance::Exact).is_err());
    }
}
