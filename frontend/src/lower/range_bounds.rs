//! Range bounds that are arrays: `pair(1:eq-1)` after `eq = find(pair == '=', 1)`, the way
//! programs use a search that may find nothing. MATLAB and Octave take the first element of a
//! bound that holds several (Octave with a warning), and a range with an empty bound is empty
//! (`1:[]` is 1-by-0).
//!
//! Invariants:
//! - a bound whose type admits one element (its extents unknown or 1) takes its first element,
//!   read only when it has one, into a temporary; other arrays are E0103 as before;
//! - when a bound is empty at run time, the range's stop becomes `start - step`, so the range
//!   is empty whatever its step (`1:0`, `5:-1:6`, and a zero step, empty already);
//! - the flags and values are locals computed once, before the range, so every expression
//!   the range holds is its own (no expression is shared between statements).

use super::array::Val;
use super::*;

/// One bound of a range: its value, and for an array bound the logical local that is true
/// when the array is empty.
struct Bound {
    value: ExprId,
    empty: Option<LocalId>,
}

impl Lowerer<'_> {
    /// The operands of `start:step:stop`, evaluated in that order: scalars, the first element
    /// of an array bound, and a stop that makes the range empty when a bound is.
    pub(super) fn range_operands(
        &mut self,
        start: &ast::Expr,
        step: Option<&ast::Expr>,
        stop: &ast::Expr,
        span: Span,
    ) -> Option<(ExprId, Option<ExprId>, ExprId)> {
        let first = self.range_bound(start, "a range bound");
        let step = step.map(|s| self.scalar_expr(s, "a range step"));
        let last = self.range_bound(stop, "a range bound");
        let (first, last) = (first?, last?);
        let step = match step {
            Some(s) => Some(s?),
            None => None,
        };
        let stop = self.range_stop(first.value, step, last.value, &[&first, &last], span);
        Some((first.value, step, stop))
    }

    /// The bound `e` of a range: a scalar, or the first element of an array that may hold
    /// one (with its emptiness flag).
    fn range_bound(&mut self, e: &ast::Expr, what: &str) -> Option<Bound> {
        let a = match self.value(e)? {
            Val::Scalar(value) => return Some(Bound { value, empty: None }),
            Val::Array(a) if a.shape.admits_one_element() && !a.shape.is_3d() => a,
            v => {
                self.require_scalar(v, what);
                return None;
            }
        };
        let span = a.span;
        let ty = self.element_type(&a);
        let local = self.whole_local(&a);
        let count = self.numel_of(local, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let is_empty = self.binary_expr(BinOp::Eq, count, zero, Class::Logical, span);
        let empty = self.temp("empty", Type::scalar(Class::Logical), span);
        self.push(
            StmtKind::Assign {
                target: empty,
                value: is_empty,
            },
            span,
        );
        let bound = self.temp("bound", ty, span);
        let nothing = self.constant_expr(0.0, ty.class, span);
        self.push(
            StmtKind::Assign {
                target: bound,
                value: nothing,
            },
            span,
        );
        let flag = self.new_expr(ExprKind::Local(empty), Type::scalar(Class::Logical), span);
        let has_one = self.new_expr(
            ExprKind::Unary(UnOp::Not, flag),
            Type::scalar(Class::Logical),
            span,
        );
        self.emit_if(has_one, span, |me| {
            let first = me.constant_expr(1.0, Class::Double, span);
            let element = me.new_expr(ExprKind::Index(local, vec![first]), ty, span);
            me.push(
                StmtKind::Assign {
                    target: bound,
                    value: element,
                },
                span,
            );
        });
        let value = self.new_expr(ExprKind::Local(bound), ty, span);
        Some(Bound {
            value,
            empty: Some(empty),
        })
    }

    /// The stop of the range `start:step:stop` (step 1 when `None`) whose bounds `bounds` may
    /// be empty arrays: `stop` itself when none may be, else a local that is `start - step`
    /// when one is empty at run time (an empty range).
    fn range_stop(
        &mut self,
        start: ExprId,
        step: Option<ExprId>,
        stop: ExprId,
        bounds: &[&Bound],
        span: Span,
    ) -> ExprId {
        let flags: Vec<LocalId> = bounds.iter().filter_map(|b| b.empty).collect();
        if flags.is_empty() {
            return stop;
        }
        let ty = self.exprs[stop].ty;
        let last = self.temp("stop", ty, span);
        self.push(
            StmtKind::Assign {
                target: last,
                value: stop,
            },
            span,
        );
        let logical = Type::scalar(Class::Logical);
        let mut any_empty = self.new_expr(ExprKind::Local(flags[0]), logical, span);
        for &f in &flags[1..] {
            let flag = self.new_expr(ExprKind::Local(f), logical, span);
            any_empty = self.binary_expr(BinOp::OrOr, any_empty, flag, Class::Logical, span);
        }
        self.emit_if(any_empty, span, |me| {
            let first = me.copy_expr(start);
            let by = match step {
                Some(s) => me.copy_expr(s),
                None => me.constant_expr(1.0, Class::Double, span),
            };
            let before = me.binary_expr(BinOp::Sub, first, by, ty.class, span);
            me.push(
                StmtKind::Assign {
                    target: last,
                    value: before,
                },
                span,
            );
        });
        self.new_expr(ExprKind::Local(last), ty, span)
    }
}
