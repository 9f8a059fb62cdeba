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

use super::array::{Node, Val};
use super::reduce::Reduction;
use super::Lowerer;
use crate::ast;
use crate::diag::Span;
use crate::ir::{BinOp, ExprKind, LocalId, RuntimeError, SizeQuery, StmtKind};
use crate::types::{Class, Shape, Type};

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
                match v.node {
                    Node::Whole(local) => local,
                    _ => self.materialize(&v),
                }
            }
        };
        let result = self.temp("trace", Type::scalar(class), span);
        let zero = self.constant_expr(0.0, class, span);
        self.push(
            StmtKind::Assign {
                target: result,
                value: zero,
            },
            span,
        );
        let size_is = |me: &mut Self, query: SizeQuery, value: f64, op: BinOp| {
            let size = me.new_expr(
                ExprKind::Size(source, query),
                Type::scalar(Class::Double),
                span,
            );
            let value = me.constant_expr(value, Class::Double, span);
            me.binary_expr(op, size, value, Class::Logical, span)
        };
        let nonempty = size_is(self, SizeQuery::Numel, 0.0, BinOp::Gt);
        self.emit_if(nonempty, span, |me| {
            let row = size_is(me, SizeQuery::Dim(1), 1.0, BinOp::Eq);
            let column = size_is(me, SizeQuery::Dim(2), 1.0, BinOp::Eq);
            let vector = me.binary_expr(BinOp::Or, row, column, Class::Logical, span);
            me.open_block();
            let one = me.constant_expr(1.0, Class::Double, span);
            let own = me.locals[source].ty.class;
            let first = me.new_expr(ExprKind::Index(source, vec![one]), Type::scalar(own), span);
            let first = me.convert_to(first, class);
            me.push(
                StmtKind::Assign {
                    target: result,
                    value: first,
                },
                span,
            );
            let then_body = me.close_block();
            me.open_block();
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
            me.push(
                StmtKind::Assign {
                    target: result,
                    value: sum,
                },
                span,
            );
            let else_body = me.close_block();
            me.push(
                StmtKind::If {
                    cond: vector,
                    then_body,
                    else_body,
                },
                span,
            );
        });
        Some(Val::Scalar(self.read_local(result, span)))
    }

    /// The class of `name`'s result from its real floating (or logical/char, read as double)
    /// operands; reports integer and complex ones.
    fn real_floating_operands(&mut self, name: &str, values: &[&Val], span: Span) -> Option<Class> {
        let mut single = false;
        for v in values {
            let (class, complex) = match v {
                Val::Scalar(e) => (self.exprs[*e].ty.class, self.exprs[*e].ty.complex),
                Val::Array(a) => (a.class, self.element_type(a).complex),
            };
            if class.is_integer() || complex {
                let what = if complex {
                    "complex".to_string()
                } else {
                    class.to_string()
                };
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
            Val::Scalar(e) => {
                let ty = Type::array(
                    self.exprs[e].ty.class,
                    Shape::new(crate::types::Dim::Known(1), crate::types::Dim::Var),
                );
                match self.row_temp("v", ty, vec![e], span) {
                    Val::Array(a) => a,
                    Val::Scalar(_) => unreachable!("row_temp makes an array"),
                }
            }
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
        Some(match a.node {
            Node::Whole(local) => local,
            _ => self.materialize(&a),
        })
    }
}
