//! `fliplr(A)`, `flipud(A)` and `repmat(A, m, n)` (also `repmat(A, n)` and `repmat(A, [m n])`)
//! of 2-D values.
//!
//! A flip is the slice `A(:, end:-1:1)` or `A(end:-1:1, :)`, so it is read in place by whatever
//! uses it. `repmat` writes `B(i, j) = A(rem(i - 1, r) + 1, rem(j - 1, c) + 1)` for every
//! element of the `r*m`-by-`c*n` result, a loop nest with no dependence (a 2-D kernel).
//!
//! Invariants: the result has `A`'s class; a 3-D `A` is E0106; the counts of `repmat` are
//! scalars, a negative one giving an empty result as in MATLAB.

use super::array::{Sub, Val};
use super::Lowerer;
use crate::ast;
use crate::diag::Span;
use crate::ir::{BinOp, Builtin, ExprId, ExprKind, LocalId, StmtKind};
use crate::types::{Class, Dim, Shape, Type};

impl Lowerer<'_> {
    /// `fliplr(A)` (`rows == false`) or `flipud(A)` (`rows == true`).
    pub(super) fn flip(&mut self, args: &[ast::Expr], rows: bool, span: Span) -> Option<Val> {
        let name = if rows { "flipud" } else { "fliplr" };
        let [a] = args else {
            self.error(
                "E0105",
                span,
                format!("wrong number of arguments to `{name}`"),
                format!("write `{name}(A)`"),
            );
            return None;
        };
        let source = match self.value(a)? {
            Val::Scalar(e) => return Some(Val::Scalar(e)),
            Val::Array(v) => {
                self.reject_3d(&v, &format!("`{name}`"))?;
                self.whole_local(&v)
            }
        };
        let dim = if rows { 1 } else { 2 };
        let start = self.size_of(source, dim, span);
        let step = self.constant_expr(-1.0, Class::Double, span);
        let stop = self.constant_expr(1.0, Class::Double, span);
        let reversed = Sub::Range { start, step, stop };
        let subs = if rows {
            vec![reversed, Sub::All]
        } else {
            vec![Sub::All, reversed]
        };
        let mut flipped = self.slice(source, subs, span);
        flipped.shape = self.locals[source].ty.shape;
        Some(Val::Array(flipped))
    }

    pub(super) fn repmat(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        const FORMS: &str =
            "write repmat(A, n), repmat(A, m, n), repmat(A, [m n]) or repmat(A, size(B))";
        if let [a, size] = args {
            if let Some(counts) = self.size_argument(size, "repmat") {
                let (m, n, shape) = counts?;
                let counts = [(m, shape.rows), (n, shape.cols)];
                return self.repeated(a, counts, span);
            }
        }
        let (a, counts): (&ast::Expr, Vec<&ast::Expr>) = match args {
            [a, ast::Expr {
                kind: ast::ExprKind::Matrix(rows),
                ..
            }] if matches!(rows.as_slice(), [row] if row.len() == 2) => {
                (a, rows[0].iter().collect())
            }
            [a, n] => (a, vec![n, n]),
            [a, m, n] => (a, vec![m, n]),
            _ => {
                self.error(
                    "E0105",
                    span,
                    "unsupported arguments to `repmat`".into(),
                    FORMS.into(),
                );
                return None;
            }
        };
        let m = self.scalar_expr(counts[0], "a count of `repmat`");
        let n = self.scalar_expr(counts[1], "a count of `repmat`");
        let (m, n) = (m?, n?);
        let dim = |c: &ast::Expr| constant_count(c).map_or(Dim::Var, Dim::Known);
        self.repeated(a, [(m, dim(counts[0])), (n, dim(counts[1]))], span)
    }

    /// `a` repeated `m` times down and `n` times across (`counts`: each count with its static
    /// value, if known).
    fn repeated(&mut self, a: &ast::Expr, counts: [(ExprId, Dim); 2], span: Span) -> Option<Val> {
        let [(m, mc), (n, nc)] = counts;
        let value = self.value(a)?;
        let source = match value {
            Val::Scalar(e) => self.scalar_row_local(e, span),
            Val::Array(v) => {
                self.reject_3d(&v, "`repmat`")?;
                self.whole_local(&v)
            }
        };
        let [m, n] = [m, n].map(|c| {
            let floor = ExprKind::Call(Builtin::Fix, vec![c]);
            let c = self.new_expr(floor, Type::scalar(Class::Double), span);
            let zero = self.constant_expr(0.0, Class::Double, span);
            let count = ExprKind::Call(Builtin::Max, vec![c, zero]);
            let count = self.new_expr(count, Type::scalar(Class::Double), span);
            self.held_scalar("n", count, span)
        });
        let source_shape = self.locals[source].ty.shape;
        let times = |d: Dim, c: Dim| match (d, c) {
            (Dim::Known(d), Dim::Known(c)) => Dim::Known(d * c),
            _ => Dim::Var,
        };
        let mut shape = Shape::new(times(source_shape.rows, mc), times(source_shape.cols, nc));
        if shape.is_scalar() {
            shape = Shape::new(Dim::Known(1), Dim::Var);
        }
        let class = self.locals[source].ty.class;
        let target = self.temp("r", Type::array(class, shape), span);
        let rows = self.scaled_extent(source, 1, m, span);
        let cols = self.scaled_extent(source, 2, n, span);
        self.alloc_zeros(target, rows, cols, None, span);
        let cols = self.size_of(target, 2, span);
        self.counted_loop("j", cols, span, |me, j| {
            let rows = me.size_of(target, 1, span);
            me.counted_loop("i", rows, span, |me, i| {
                let r = me.wrapped(i, source, 1, span);
                let c = me.wrapped(j, source, 2, span);
                let value = me.new_expr(
                    ExprKind::Index(source, vec![r, c]),
                    Type::scalar(class),
                    span,
                );
                let (i, j) = (me.read_local(i, span), me.read_local(j, span));
                me.push(
                    StmtKind::Store {
                        array: target,
                        indices: vec![i, j],
                        value,
                    },
                    span,
                );
            });
        });
        Some(Val::Array(self.whole(target, span)))
    }

    /// `size(a, dim) * count`.
    fn scaled_extent(&mut self, a: LocalId, dim: u8, count: LocalId, span: Span) -> ExprId {
        let (extent, count) = (self.size_of(a, dim, span), self.read_local(count, span));
        self.binary_expr(BinOp::Mul, extent, count, Class::Double, span)
    }

    /// `rem(k - 1, size(a, dim)) + 1` for the loop variable `k`.
    fn wrapped(&mut self, k: LocalId, a: LocalId, dim: u8, span: Span) -> ExprId {
        let double = Type::scalar(Class::Double);
        let (k, one) = (
            self.read_local(k, span),
            self.constant_expr(1.0, Class::Double, span),
        );
        let before = self.binary_expr(BinOp::Sub, k, one, Class::Double, span);
        let extent = self.size_of(a, dim, span);
        let rem = self.new_expr(
            ExprKind::Call(Builtin::Rem, vec![before, extent]),
            double,
            span,
        );
        let one = self.constant_expr(1.0, Class::Double, span);
        self.binary_expr(BinOp::Add, rem, one, Class::Double, span)
    }
}

/// The count a `repmat` argument gives when it is a nonnegative integer literal.
fn constant_count(e: &ast::Expr) -> Option<u64> {
    match &e.kind {
        ast::ExprKind::Number { value, .. } if *value >= 0.0 && value.fract() == 0.0 => {
            Some(*value as u64)
        }
        _ => None,
    }
}
