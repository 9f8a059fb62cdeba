//! `dot(x, y)` of two real vectors and `trace(A)`, as Octave computes them:
//!
//! - `dot(x, y)`: the sum of `x(k) * y(k)` (a reduction, so a kernel) over vectors of the same
//!   number of elements, a row and a column alike; other sizes stop with Octave's "dot: sizes of
//!   X and Y must match" (`M2CU_E_DOT_SIZES`);
//! - `trace(A)`: Octave's `trace.m`: 0 for an empty `A`, `A(1)` for a vector, the sum of the
//!   diagonal `sum(diag(A))` otherwise, a matrix that is not square included (where MATLAB
//!   stops: Octave is the reference).
//!
//! Invariants: both are double or single (single when an operand is); integer and complex
//! operands are E0106, and so are matrices given to `dot` (MATLAB's column-wise form is not
//! supported yet).

use super::array::Val;
use super::expr::{val_class, val_is_complex, val_kind};
use super::reduce::Reduction;
use super::Lowerer;
use crate::ast;
use crate::diag::Span;
use crate::ir::{BinOp, ExprKind, LocalId, RuntimeError, SizeQuery, StmtKind};
use crate::types::{Class, Type};

impl Lowerer<'_> {
    pub(super) fn dot(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [x, y] = args else {
            self.error(
                "E0105",
                span,
                "wrong number of arguments to `dot`".into(),
                "write `dot(x, y)` of two vectors".into(),
            );
            return None;
        };
        let (x, y) = (self.value(x), self.value(y));
        let (x, y) = (x?, y?);
        if [&x, &y]
            .iter()
            .any(|v| matches!(val_class(self, v), Class::Logical | Class::Char))
        {
            self.error(
                "E0106",
                span,
                "`dot` of logical or char values: Octave stops (X and Y must be numeric)".into(),
                "convert first for MATLAB's result, `dot(double(a), double(b))`".into(),
            );
            return None;
        }
        let class = self.real_floating_operands("dot", &[&x, &y], span)?;
        let [x, y] = [x, y].map(|v| self.vector_local(v, span));
        let (x, y) = (x?, y?);
        let numel = |me: &mut Self, a: LocalId| {
            me.new_expr(
                ExprKind::Size(a, SizeQuery::Numel),
                Type::scalar(Class::Double),
                span,
            )
        };
        let (nx, ny) = (numel(self, x), numel(self, y));
        let same = self.binary_expr(BinOp::Eq, nx, ny, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond: same,
                error: RuntimeError::DotSizes,
            },
            span,
        );
        let acc = self.accumulator(Reduction::Sum, class, span);
        let n = numel(self, x);
        self.counted_loop("k", n, span, |me, k| {
            let element = |me: &mut Self, a: LocalId| {
                let at = me.read_local(k, span);
                let own = me.locals[a].ty.class;
                let e = me.new_expr(ExprKind::Index(a, vec![at]), Type::scalar(own), span);
                me.convert_to(e, class)
            };
            let (ex, ey) = (element(me, x), element(me, y));
            let product = me.binary_expr(BinOp::Mul, ex, ey, class, span);
            me.accumulate(Reduction::Sum, acc, product, span);
        });
        Some(Val::Scalar(self.read_local(acc, span)))
    }

    pub(super) fn trace(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [a] = args else {
            self.error(
                "E0105",
                span,
                "wrong number of arguments to `trace`".into(),
                "write `trace(A)` of a square matrix".into(),
            );
            return None;
        };
        let value = self.value(a)?;
        let class = self.real_floating_operands("trace", &[&value], span)?;
        let source = match value {
            Val::Scalar(e) => return Some(Val::Scalar(self.convert_to(e, class))),
            Val::Array(v) => {
                self.reject_3d(&v, "`trace`")?;
                self.whole_local(&v)
            }
        };
        let own = self.locals[source].ty.class;
        let result = self.temp("trace", Type::scalar(class), span);
        let zero = self.constant_expr(0.0, class, span);
        self.set_local(result, zero, span);
        let size_is = |me: &mut Self, query: SizeQuery, op: BinOp, value: f64| {
            me.size_compared(source, query, op, value, span)
        };
        let first = |me: &mut Self| {
            let one = me.constant_expr(1.0, Class::Double, span);
            let first = me.new_expr(ExprKind::Index(source, vec![one]), Type::scalar(own), span);
            let first = me.convert_to(first, class);
            me.set_local(result, first, span);
        };
        let diagonal_sum = |me: &mut Self| {
            let acc = me.accumulator(Reduction::Sum, class, span);
            let (rows, cols) = (me.size_of(source, 1, span), me.size_of(source, 2, span));
            let n = me.new_expr(
                ExprKind::Call(crate::ir::Builtin::Min, vec![rows, cols]),
                Type::scalar(Class::Double),
                span,
            );
            me.counted_loop("k", n, span, |me, k| {
                let (i, j) = (me.read_local(k, span), me.read_local(k, span));
                let e = me.new_expr(ExprKind::Index(source, vec![i, j]), Type::scalar(own), span);
                let e = me.convert_to(e, class);
                me.accumulate(Reduction::Sum, acc, e, span);
            });
            let sum = me.read_local(acc, span);
            me.set_local(result, sum, span);
        };
        let nonempty = size_is(self, SizeQuery::Numel, BinOp::Gt, 0.0);
        self.emit_if(nonempty, span, |me| {
            let row = size_is(me, SizeQuery::Dim(1), BinOp::Eq, 1.0);
            let column = size_is(me, SizeQuery::Dim(2), BinOp::Eq, 1.0);
            let vector = me.binary_expr(BinOp::Or, row, column, Class::Logical, span);
            me.emit_if_else(vector, span, first, diagonal_sum);
        });
        Some(Val::Scalar(self.read_local(result, span)))
    }

    /// The class of `name`'s result from its real floating (or logical/char, read as double)
    /// operands; reports integer and complex ones.
    fn real_floating_operands(&mut self, name: &str, values: &[&Val], span: Span) -> Option<Class> {
        let mut single = false;
        for v in values {
            let (class, complex) = (val_class(self, v), val_is_complex(self, v));
            if class.is_integer() || complex {
                let what = val_kind(self, v);
                self.error(
                    "E0106",
                    span,
                    format!("`{name}` of {what} values is not supported"),
                    format!("convert first: `{name}(double(...))`"),
                );
                return None;
            }
            single |= class == Class::Single;
        }
        Some(if single { Class::Single } else { Class::Double })
    }

    /// A vector operand of `dot` as an array local (a scalar as a one-element row); a matrix
    /// is reported.
    fn vector_local(&mut self, v: Val, span: Span) -> Option<LocalId> {
        let a = match v {
            Val::Scalar(e) => return Some(self.scalar_row_local(e, span)),
            Val::Array(a) => a,
        };
        if !a.shape.is_vector() {
            self.error(
                "E0106",
                a.span,
                "`dot` of matrices (column by column) is not supported yet, and this operand is not known to be a vector".into(),
                "write `sum(A .* B, 1)` for the column-wise dot products, or declare a vector input as (1,:) or (:,1)".into(),
            );
            return None;
        }
        Some(self.whole_local(&a))
    }
}
