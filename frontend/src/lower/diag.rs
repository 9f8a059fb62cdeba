//! `diag(v)`, `diag(v, k)`, `diag(A)` and `diag(A, k)` as Octave's `Array<T>::diag`:
//!
//! - of a vector (one extent 1) of `n` elements: the `(n + |k|)`-square matrix of zeros with
//!   `v` on diagonal `k` (above the main one for `k > 0`);
//! - of a matrix (neither extent 1): the column of diagonal `k`, `A(i, i + k)` (or
//!   `A(i - k, i)` for `k < 0`), of `max(0, min(m - max(-k, 0), n - max(k, 0)))` elements;
//!   a 0-by-0 matrix gives 0-by-0 and an offset past the matrix gives 0-by-1.
//!
//! Which one is decided by the static shape, as MATLAB Coder decides it: an array whose extents
//! are both unknown before the program runs (an input declared `(:,:)`) is taken for a matrix,
//! so `sum(diag(A))` sums a column. Where MATLAB Coder then silently extracts from a vector,
//! m2cu stops with `M2CU_E_DIAG_VECTOR` when the array is a vector (or 0-by-0) at run time.
//!
//! Invariants: the result has the argument's class; the offset `k` is an integer constant
//! (a literal, possibly negated); a 3-D, char or complex argument is E0106.

use super::array::{ArrayVal, Val};
use super::Lowerer;
use crate::ast;
use crate::diag::Span;
use crate::ir::{BinOp, Builtin, ExprId, ExprKind, LocalId, RuntimeError, SizeQuery, StmtKind};
use crate::types::{Class, Dim, Shape, Type};

const FORMS: &str =
    "write diag(v) or diag(A), or diag(v, k) / diag(A, k) with an integer constant k";

/// The form of `diag` the argument's static shape selects.
#[derive(Clone, Copy, PartialEq)]
enum Form {
    /// One extent is 1: build the matrix.
    Build,
    /// Neither extent is 1: extract the diagonal.
    Extract,
    /// Not known before the program runs.
    AtRunTime,
}

/// The static shape of `diag(x, k)` for `x` of `shape`.
fn diag_shape(shape: Shape, form: Form, k: i64) -> Shape {
    match (form, shape.rows, shape.cols) {
        (Form::Build, Dim::Known(1), n) | (Form::Build, n, Dim::Known(1)) => match n {
            Dim::Known(n) => {
                let side = Dim::Known(n + k.unsigned_abs());
                Shape::new(side, side)
            }
            Dim::Var => Shape::new(Dim::Var, Dim::Var),
        },
        (Form::Extract, Dim::Known(m), Dim::Known(n)) => {
            let cols = u64::from(m + n > 0);
            let (m, n) = (m as i64 - (-k).max(0), n as i64 - k.max(0));
            let length = m.min(n).max(0) as u64;
            Shape::new(Dim::Known(length), Dim::Known(cols))
        }
        _ => Shape::new(Dim::Var, Dim::Known(1)),
    }
}

fn form_of(shape: Shape) -> Form {
    match (shape.rows, shape.cols) {
        (Dim::Known(1), _) | (_, Dim::Known(1)) => Form::Build,
        (Dim::Known(_), Dim::Known(_)) => Form::Extract,
        _ => Form::AtRunTime,
    }
}

impl Lowerer<'_> {
    pub(super) fn diag(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let (x, k) = match args {
            [x] => (x, 0),
            [x, k] => (x, self.diag_offset(k)?),
            _ => {
                self.error(
                    "E0105",
                    span,
                    "wrong number of arguments to `diag`".into(),
                    FORMS.into(),
                );
                return None;
            }
        };
        let a = match self.value(x)? {
            Val::Scalar(e) if k == 0 => return Some(Val::Scalar(e)),
            Val::Scalar(e) => {
                let ty = Type::array(self.exprs[e].ty.class, Shape::new(Dim::Known(1), Dim::Var));
                let Val::Array(a) = self.row_temp("v", ty, vec![e], span) else {
                    unreachable!("row_temp makes an array")
                };
                a
            }
            Val::Array(a) => a,
        };
        self.diag_argument_check(&a, x.span)?;
        let source = self.whole_local(&a);
        let shape = self.locals[source].ty.shape;
        let form = form_of(shape);
        let class = self.locals[source].ty.class;
        let mut result_shape = diag_shape(shape, form, k);
        if result_shape.is_scalar() {
            result_shape = Shape::new(Dim::Known(1), Dim::Var);
        }
        let target = self.temp("d", Type::array(class, result_shape), span);
        match form {
            Form::Build => self.diag_build(source, target, k, span),
            Form::Extract => self.diag_extract(source, target, k, span),
            Form::AtRunTime => {
                self.matrix_at_run_time_check(source, k, span);
                self.diag_extract(source, target, k, span);
            }
        }
        Some(Val::Array(self.whole(target, span)))
    }

    /// The offset `k` of `diag(x, k)`: an integer constant.
    fn diag_offset(&mut self, k: &ast::Expr) -> Option<i64> {
        let e = self.scalar_expr(k, "the diagonal of `diag`")?;
        match self.const_of(e) {
            Some(v) if v.fract() == 0.0 && v.abs() < 1e9 => Some(v as i64),
            _ => {
                self.error(
                    "E0105",
                    k.span,
                    "the diagonal `k` of `diag(x, k)` must be an integer constant here".into(),
                    FORMS.into(),
                );
                None
            }
        }
    }

    fn diag_argument_check(&mut self, a: &ArrayVal, span: Span) -> Option<()> {
        let complex = self.element_type(a).complex;
        let what = if a.shape.is_3d() {
            "a 3-D array: `diag` takes vectors and matrices"
        } else if a.class == Class::Char {
            "a char array is not supported: convert it first, `diag(double(s))`"
        } else if complex {
            "a complex array is not supported yet: take the real and imaginary parts apart"
        } else {
            return Some(());
        };
        self.error("E0106", span, format!("`diag` of {what}"), FORMS.into());
        None
    }

    /// Stops unless `source`, of extents unknown before the program runs, is a matrix whose
    /// diagonal MATLAB extracts into a column: not a vector (whose matrix MATLAB builds; a
    /// 1-by-1 `x` with `k = 0` is the same either way) and not 0-by-0 (whose result is 0-by-0).
    fn matrix_at_run_time_check(&mut self, source: LocalId, k: i64, span: Span) {
        let extent_is = |me: &mut Self, query: SizeQuery, op: BinOp, value: f64| {
            me.size_compared(source, query, op, value, span)
        };
        let row = extent_is(self, SizeQuery::Dim(1), BinOp::Eq, 1.0);
        let column = extent_is(self, SizeQuery::Dim(2), BinOp::Eq, 1.0);
        let mut vector = self.binary_expr(BinOp::Or, row, column, Class::Logical, span);
        if k == 0 {
            let more = extent_is(self, SizeQuery::Numel, BinOp::Ne, 1.0);
            vector = self.binary_expr(BinOp::And, vector, more, Class::Logical, span);
        }
        let no_rows = extent_is(self, SizeQuery::Dim(1), BinOp::Eq, 0.0);
        let no_cols = extent_is(self, SizeQuery::Dim(2), BinOp::Eq, 0.0);
        let empty = self.binary_expr(BinOp::And, no_rows, no_cols, Class::Logical, span);
        let failed = self.binary_expr(BinOp::Or, vector, empty, Class::Logical, span);
        self.stop_if(failed, RuntimeError::DiagOfVector, span);
    }

    fn double_const(&mut self, v: f64, span: Span) -> ExprId {
        self.constant_expr(v, Class::Double, span)
    }

    /// `target = zeros(n + |k|)` with `source(i)` at `(i + max(-k, 0), i + max(k, 0))`.
    fn diag_build(&mut self, source: LocalId, target: LocalId, k: i64, span: Span) {
        let double = Type::scalar(Class::Double);
        let n = self.new_expr(ExprKind::Size(source, SizeQuery::Numel), double, span);
        let offset = self.double_const(k.unsigned_abs() as f64, span);
        let side = self.binary_expr(BinOp::Add, n, offset, Class::Double, span);
        let side2 = self.copy_expr(side);
        self.alloc_zeros(target, side, side2, None, span);
        let count = self.new_expr(ExprKind::Size(source, SizeQuery::Numel), double, span);
        let class = self.locals[source].ty.class;
        let (row_shift, col_shift) = ((-k).max(0) as f64, k.max(0) as f64);
        self.counted_loop("k", count, span, |me, i| {
            let at = me.read_local(i, span);
            let value = me.new_expr(ExprKind::Index(source, vec![at]), Type::scalar(class), span);
            let r = me.local_plus(i, row_shift, span);
            let c = me.local_plus(i, col_shift, span);
            me.push(
                StmtKind::Store {
                    array: target,
                    indices: vec![r, c],
                    value,
                },
                span,
            );
        });
    }

    /// `target` = the column `source(i + max(-k, 0), i + max(k, 0))`, 0-by-0 for a 0-by-0
    /// source.
    fn diag_extract(&mut self, source: LocalId, target: LocalId, k: i64, span: Span) {
        let (row_shift, col_shift) = ((-k).max(0) as f64, k.max(0) as f64);
        let rows_left = self.extent_less(source, 1, row_shift, span);
        let cols_left = self.extent_less(source, 2, col_shift, span);
        let double = Type::scalar(Class::Double);
        let shorter = self.new_expr(
            ExprKind::Call(Builtin::Min, vec![rows_left, cols_left]),
            double,
            span,
        );
        let zero = self.double_const(0.0, span);
        let length = self.new_expr(
            ExprKind::Call(Builtin::Max, vec![shorter, zero]),
            double,
            span,
        );
        let length = self.held_scalar("n", length, span);
        // One column, none for a 0-by-0 source: min(m + n, 1).
        let (m, n) = (self.size_of(source, 1, span), self.size_of(source, 2, span));
        let total = self.binary_expr(BinOp::Add, m, n, Class::Double, span);
        let one = self.double_const(1.0, span);
        let cols = self.new_expr(ExprKind::Call(Builtin::Min, vec![total, one]), double, span);
        let rows = self.read_local(length, span);
        self.alloc_zeros(target, rows, cols, None, span);
        let count = self.read_local(length, span);
        let class = self.locals[source].ty.class;
        self.counted_loop("k", count, span, |me, i| {
            let r = me.local_plus(i, row_shift, span);
            let c = me.local_plus(i, col_shift, span);
            let value = me.new_expr(
                ExprKind::Index(source, vec![r, c]),
                Type::scalar(class),
                span,
            );
            let at = me.read_local(i, span);
            me.push(
                StmtKind::Store {
                    array: target,
                    indices: vec![at],
                    value,
                },
                span,
            );
        });
    }

    /// `size(array, dim) - shift`.
    fn extent_less(&mut self, array: LocalId, dim: u8, shift: f64, span: Span) -> ExprId {
        let extent = self.size_of(array, dim, span);
        let shift = self.double_const(shift, span);
        self.binary_expr(BinOp::Sub, extent, shift, Class::Double, span)
    }
}
