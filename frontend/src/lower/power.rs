//! `a .^ b` of an array by a scalar, as Octave computes it. liboctave's `elem_xpow` does not
//! call `pow` for every exponent: for an array base and an integer exponent of 2, 3 or -1 it
//! writes `a.*a`, `a.*a.*a` or `1./a`, whose last bit can differ from `pow`'s (`x.^3` of
//! `(0:40)*(3.5/40)` differs at 4 elements). A 1-by-1 base is a scalar to Octave and uses `pow`.
//!
//! Invariants:
//! - the result class is double or single (integer powers keep their own rule, `pow` then
//!   round and saturate); a single's power is `powf` except an array's by an integer, which
//!   Octave computes in double and rounds (`m2cu_elem_powf`);
//! - whether the base has other than one element is a logical scalar operand of
//!   [`Builtin::Power`]: a constant when the base's shape says so, else computed from its
//!   run-time extents, so a variable-size array that is 1-by-1 at run time still uses `pow`.

use super::array::{ArrayVal, Node, Operand};
use super::Lowerer;
use crate::diag::Span;
use crate::ir::{BinOp, Builtin, ExprId};
use crate::types::{Class, Dim};

/// The exponents for which Octave's array power multiplies or divides instead of calling `pow`.
const PRODUCT_EXPONENTS: [f64; 3] = [2.0, 3.0, -1.0];

/// Whether an array's power by the constant `b` differs from the scalar power in `class`: for
/// the product exponents, and for singles at every integer (Octave computes an array's single
/// power by an integer in double, and a scalar's with `powf`).
fn array_rule_applies(b: f64, class: Class) -> bool {
    PRODUCT_EXPONENTS.contains(&b) || (class == Class::Single && b == b.floor())
}

impl Lowerer<'_> {
    /// `base .^ exponent` with an array base and a scalar exponent; `None` when Octave's rule
    /// is `pow` for every element (an integer class, a 1-by-1 base, or a constant exponent
    /// other than 2, 3 and -1), which the caller lowers as any elementwise operation.
    pub(super) fn array_power(
        &mut self,
        base: &ArrayVal,
        exponent: ExprId,
        class: Class,
        span: Span,
    ) -> Option<ArrayVal> {
        let plain_pow = !class.is_float()
            || static_numel(base) == Some(1)
            || self
                .const_of(exponent)
                .is_some_and(|b| !array_rule_applies(b, class));
        if plain_pow {
            return None;
        }
        let array_base = self.has_other_than_one_element(base, span);
        let (rows, cols) = (self.copy_expr(base.rows), self.copy_expr(base.cols));
        Some(ArrayVal {
            class,
            shape: base.shape,
            rows,
            cols,
            node: Node::Call(
                Builtin::Power,
                vec![
                    Operand::Array(Box::new(base.clone())),
                    Operand::Scalar(exponent),
                    Operand::Scalar(array_base),
                ],
            ),
            span,
        })
    }

    /// A logical scalar: whether `val` has other than one element.
    pub(super) fn has_other_than_one_element(&mut self, val: &ArrayVal, span: Span) -> ExprId {
        let s = val.shape;
        let some_extent_not_one = [s.rows, s.cols, s.pages]
            .into_iter()
            .any(|d| matches!(d, Dim::Known(n) if n != 1));
        if some_extent_not_one {
            return self.constant_expr(1.0, Class::Logical, span);
        }
        let (rows, cols) = (self.copy_expr(val.rows), self.copy_expr(val.cols));
        let numel = self.binary_expr(BinOp::Mul, rows, cols, Class::Double, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        self.binary_expr(BinOp::Ne, numel, one, Class::Logical, span)
    }
}

/// The number of elements of `val` when its shape fixes it.
fn static_numel(val: &ArrayVal) -> Option<u64> {
    let s = val.shape;
    [s.rows, s.cols, s.pages]
        .into_iter()
        .try_fold(1, |n, d| match d {
            Dim::Known(k) => Some(n * k),
            Dim::Var => None,
        })
}
