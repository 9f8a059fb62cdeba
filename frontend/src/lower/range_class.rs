//! The class of a range `a:b` or `a:s:b`, as MATLAB gives it: an integer class when an operand
//! has one (`int8(2):3:int8(11)` is int8), else char when an operand is char (`'a':'e'` is
//! `'abcde'`), else single when an operand is single, else double (logical operands count as
//! double).
//!
//! m2cu computes a range's values in double and converts them to its class, which equals
//! MATLAB's and Octave's values when they are whole numbers (below 2^24 for single). So a
//! range of another class than double must have whole operands known at translation time:
//! constants, integer-class values, loop counters, sizes, `floor(x)` (E0106 otherwise, with
//! Octave's reason: it stops for a fractional step or bound of an integer range, and computes
//! single ranges in single arithmetic). Integer operands of two classes, or an integer beside a
//! single, are MATLAB's error (E0106).

use super::Lowerer;
use crate::diag::Span;
use crate::ir::{ExprId, ExprKind};
use crate::types::Class;

impl Lowerer<'_> {
    /// The class of the range over the scalars `operands` (start, step if written, stop);
    /// `None` after a diagnostic.
    pub(super) fn range_class(&mut self, operands: &[ExprId], span: Span) -> Option<Class> {
        let classes: Vec<Class> = operands.iter().map(|&e| self.exprs[e].ty.class).collect();
        let mut integers: Vec<Class> = classes.iter().copied().filter(|c| c.is_integer()).collect();
        integers.dedup();
        let class = match integers[..] {
            [] if classes.contains(&Class::Char) => Class::Char,
            [] if classes.contains(&Class::Single) => Class::Single,
            [] => return Some(Class::Double),
            [int] if !classes.contains(&Class::Single) && !classes.contains(&Class::Char) => int,
            _ => {
                let listed: Vec<&str> = classes.iter().map(|c| c.name()).collect();
                self.error(
                    "E0106",
                    span,
                    format!(
                        "Colon operands must be all the same type, or mixed with real double scalars (here {}).",
                        listed.join(", ")
                    ),
                    "convert the operands to one class first".into(),
                );
                return None;
            }
        };
        if operands.iter().all(|&e| self.is_whole(e)) {
            return Some(class);
        }
        self.error(
            "E0106",
            span,
            format!("a range of {class} values whose operands may not be whole numbers"),
            format!("Octave stops for a fractional step or bound of an integer range and computes single ranges in single arithmetic, which m2cu does not follow; write whole operands (`{class}(a):{class}(b)`), or `{class}(a:s:b)` for the double range converted"),
        );
        None
    }

    /// Whether the scalar `e` is known at translation time to hold a whole number.
    fn is_whole(&self, e: ExprId) -> bool {
        let ty = self.exprs[e].ty;
        self.is_integral(e)
            || (ty.class.is_integer() && !ty.complex)
            || matches!(ty.class, Class::Logical | Class::Char)
            || matches!(self.exprs[e].kind, ExprKind::Convert(a) if self.is_whole(a))
    }
}
