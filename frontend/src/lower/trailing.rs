//! Subscripts past the third, as MATLAB allows: `A(1, 1, 1, 1) = 7`, `M(i, j, 1, 1)`. Every
//! array has extent 1 along each dimension past its third, so such a subscript selects nothing
//! new: it must be `:` or a scalar index that is 1.
//!
//! Invariants:
//! - `A(s1, s2, s3, t...)` is lowered as `A(s1, s2, s3)` after checks, before the statement,
//!   that each scalar `t` is a valid index (MATLAB's "Array indices must be positive integers
//!   or logical values.") and at most 1 (MATLAB's index-out-of-range error), in that order
//!   (none for the constant 1);
//! - `end` in one of these positions is 1, and the third subscript's `end` is the third extent
//!   (the dimensions after it have extent 1, so it spans only its own);
//! - a range, mask or index vector there is E0103: its result shape would depend on how many
//!   elements it selects, which can only be 1; the help says to write 1.

use super::array::Sub;
use super::select::Subscript;
use super::*;
use crate::ir::RuntimeError;

impl Lowerer<'_> {
    /// Checks the subscripts of `A(args)` past the third (module docs); `args` has more than
    /// three. `None` after an error.
    pub(super) fn trailing_subscripts(&mut self, array: LocalId, args: &[ast::Expr]) -> Option<()> {
        for (position, arg) in args.iter().enumerate().skip(3) {
            self.scope.index_context.push(IndexContext {
                array,
                position,
                count: args.len(),
            });
            let sub = self.subscript(arg);
            self.scope.index_context.pop();
            match sub? {
                Subscript::Plain(Sub::All) => {}
                Subscript::Plain(Sub::Scalar(e)) => self.unit_index_checks(e, arg.span),
                _ => {
                    self.unsupported(
                        arg.span,
                        &format!(
                            "a range, mask or index vector as subscript {}",
                            position + 1
                        ),
                        "every dimension past the third has extent 1: write 1 or `:` there",
                    );
                    return None;
                }
            }
        }
        Some(())
    }

    /// `e >= 1 && e == floor(e)`, the condition that `e` is a positive integer (a valid index
    /// or dimension).
    pub(super) fn positive_integer(&mut self, e: ExprId, span: Span) -> ExprId {
        let class = self.exprs[e].ty.class;
        let (e2, e3) = (self.copy_expr(e), self.copy_expr(e));
        let one = self.constant_expr(1.0, Class::Double, span);
        let positive = self.binary_expr(BinOp::Ge, e, one, Class::Logical, span);
        let floor = self.new_expr(
            ExprKind::Call(Builtin::Floor, vec![e2]),
            Type::scalar(class),
            span,
        );
        let integral = self.binary_expr(BinOp::Eq, e3, floor, Class::Logical, span);
        self.binary_expr(BinOp::And, positive, integral, Class::Logical, span)
    }

    /// Stops unless `e` is a valid index (a positive integer) and at most 1 (nothing to check
    /// for the constant 1, `end` included).
    pub(super) fn unit_index_checks(&mut self, e: ExprId, span: Span) {
        if matches!(self.exprs[e].kind, ExprKind::Const(v) if v == 1.0) {
            return;
        }
        let e4 = self.copy_expr(e);
        let valid = self.positive_integer(e, span);
        self.push(
            StmtKind::Check {
                cond: valid,
                error: RuntimeError::IndexInvalid,
            },
            span,
        );
        let one = self.constant_expr(1.0, Class::Double, span);
        let within = self.binary_expr(BinOp::Le, e4, one, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond: within,
                error: RuntimeError::IndexPastEnd,
            },
            span,
        );
    }
}
