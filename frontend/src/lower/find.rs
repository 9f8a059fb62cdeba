//! `find(x)`, `find(x, n)` and `find(x, n, 'first' | 'last')`: the linear indices (doubles,
//! ascending) of the nonzero elements of `x` (NaN counts), at most `n` of them, the first or the
//! last ones.
//!
//! Two passes: the count, a sum of `x(k) ~= 0` (a reduction, so a kernel), then the compaction,
//! a loop that counts every nonzero and stores the index of each one the result keeps (with
//! `n`, the first `n`, or with `'last'` those after the first `found - n`, at the count less
//! that): a count scan whose stores the analysis proves distinct, a parallel stream compaction
//! on the GPU.
//!
//! The result's shape follows Octave's rules: a row for a row `x`, a column otherwise, and
//! 0-by-0 for a 0-by-0 `x` or a 1-by-1 `x` that is zero. Its static type comes from `x`'s: a row
//! for a row, a column for a column or a matrix with an extent known, `(:,:)` for a scalar and
//! for an `x` with no extent known before the program runs (its extents are then chosen when
//! it runs, exactly). Where Octave's result has another shape than the static type allows (a
//! 1-by-1 row or column that is zero, an array taken for a matrix that is a row or 0-by-0 when
//! the program runs), the run stops with `M2CU_E_FIND_SHAPE` rather than return it in the
//! wrong shape.
//!
//! `issorted(x)` of a vector, a reduction over the pairs of neighbours, lives here too.
//!
//! Invariants: `n` is a scalar checked at run time to be a nonnegative integer (Octave's "N must
//! be a non-negative integer"); the direction is a literal; a complex or 3-D `x` is E0106.

use super::array::Val;
use super::reduce::Reduction;
use super::text::text_literal;
use super::Lowerer;
use crate::ast;
use crate::diag::Span;
use crate::ir::{
    BinOp, Builtin, ExprId, ExprKind, LocalId, RuntimeError, SizeQuery, StmtKind, UnOp,
};
use crate::types::{Class, Dim, Shape, Type};

const FORMS: &str = "write find(x), find(x, n), find(x, n, 'first') or find(x, n, 'last')";

/// The static shape of the argument, which fixes the result's.
#[derive(Clone, Copy, PartialEq)]
enum Form {
    /// 1-by-1: the result is `1` or 0-by-0.
    Scalar,
    /// One row: a row of indices.
    Row,
    /// One column: a column of indices.
    Column,
    /// Anything else with an extent known: a column of indices.
    Matrix,
    /// No extent known when translating: Octave's shape, chosen when the program runs.
    Open,
}

/// Which nonzeros' indices the result keeps.
#[derive(Clone, Copy)]
enum Window {
    /// Every one.
    All,
    /// The first `count` (a local).
    First(LocalId),
    /// The last ones, after passing over the first `skip` (a local).
    Last(LocalId),
}

fn form_of(shape: Shape) -> Form {
    match (shape.rows, shape.cols) {
        (Dim::Known(1), Dim::Known(1)) => Form::Scalar,
        (Dim::Known(1), _) => Form::Row,
        (_, Dim::Known(1)) => Form::Column,
        (Dim::Var, Dim::Var) => Form::Open,
        _ => Form::Matrix,
    }
}

impl Lowerer<'_> {
    pub(super) fn find(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let (x, limit, last) = match args {
            [x] => (x, None, false),
            [x, n] => (x, Some(n), false),
            [x, n, direction] => match text_literal(direction) {
                Some("first") => (x, Some(n), false),
                Some("last") => (x, Some(n), true),
                _ => {
                    self.error(
                        "E0105",
                        direction.span,
                        "find: DIRECTION must be \"first\" or \"last\"".into(),
                        FORMS.into(),
                    );
                    return None;
                }
            },
            _ => {
                self.error(
                    "E0105",
                    span,
                    "wrong number of arguments to `find`".into(),
                    FORMS.into(),
                );
                return None;
            }
        };
        let value = self.value(x)?;
        let limit = match limit {
            Some(n) => Some(self.scalar_expr(n, "the count `n` of `find(x, n)`")?),
            None => None,
        };
        let scalar = matches!(value, Val::Scalar(_));
        let source = match value {
            Val::Scalar(e) => self.scalar_row_local(e, span),
            Val::Array(a) => {
                let complex = self.element_type(&a).complex;
                if complex || a.shape.is_3d() {
                    let what = if complex {
                        "a complex array"
                    } else {
                        "a 3-D array"
                    };
                    self.error(
                        "E0106",
                        x.span,
                        format!("`find` of {what} is not supported yet"),
                        "find the nonzeros of a real 2-D array: `find(real(z) ~= 0 | imag(z) ~= 0)`, `find(A(:, :, k))`".into(),
                    );
                    return None;
                }
                self.whole_local(&a)
            }
        };
        let form = match scalar {
            true => Form::Scalar,
            false => form_of(self.locals[source].ty.shape),
        };
        let found = self.count_nonzeros(source, span);
        let count = match limit {
            Some(n) => self.limited_count(found, n, span),
            None => found,
        };
        if !matches!(form, Form::Scalar | Form::Open) {
            self.find_shape_check(source, form, count, span);
        }
        let result = self.find_result(source, form, count, span);
        let window = match (last, limit.is_some()) {
            (false, true) => Window::First(count),
            (false, false) => Window::All,
            (true, _) => Window::Last(self.skipped(found, count, span)),
        };
        self.compact_nonzeros(source, result, window, span);
        Some(Val::Array(self.whole(result, span)))
    }

    /// The number of nonzero elements of `source`, in a new double temporary.
    fn count_nonzeros(&mut self, source: LocalId, span: Span) -> LocalId {
        let acc = self.accumulator(Reduction::Sum, Class::Double, span);
        let n = self.new_expr(
            ExprKind::Size(source, SizeQuery::Numel),
            Type::scalar(Class::Double),
            span,
        );
        self.counted_loop("k", n, span, |me, k| {
            let nonzero = me.nonzero_at(source, k, span);
            me.accumulate(Reduction::Sum, acc, nonzero, span);
        });
        acc
    }

    /// `source(k) ~= 0`.
    fn nonzero_at(&mut self, source: LocalId, k: LocalId, span: Span) -> ExprId {
        let class = self.locals[source].ty.class;
        let at = self.read_local(k, span);
        let element = self.new_expr(ExprKind::Index(source, vec![at]), Type::scalar(class), span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        self.binary_expr(BinOp::Ne, element, zero, Class::Logical, span)
    }

    /// `min(found, n)`, after checking that `n` is a nonnegative integer.
    fn limited_count(&mut self, found: LocalId, n: ExprId, span: Span) -> LocalId {
        let n = self.held_scalar("n", n, span);
        let read = |me: &mut Self| me.read_local(n, span);
        let (a, b) = (read(self), read(self));
        let floor = self.new_expr(
            ExprKind::Call(Builtin::Floor, vec![b]),
            Type::scalar(Class::Double),
            span,
        );
        let integer = self.binary_expr(BinOp::Eq, a, floor, Class::Logical, span);
        let (c, zero) = (read(self), self.constant_expr(0.0, Class::Double, span));
        let nonnegative = self.binary_expr(BinOp::Ge, c, zero, Class::Logical, span);
        let valid = self.binary_expr(BinOp::And, integer, nonnegative, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond: valid,
                error: RuntimeError::FindCount,
            },
            span,
        );
        let (found, n) = (self.read_local(found, span), read(self));
        let fewer = self.new_expr(
            ExprKind::Call(Builtin::Min, vec![found, n]),
            Type::scalar(Class::Double),
            span,
        );
        self.held_scalar("n", fewer, span)
    }

    /// Stops where Octave's result has a shape the static type of the result cannot hold (see
    /// the module docs).
    fn find_shape_check(&mut self, source: LocalId, form: Form, count: LocalId, span: Span) {
        let mut failed = self.one_zero(source, count, span);
        if form == Form::Matrix {
            let row = self.size_compared(source, SizeQuery::Dim(1), BinOp::Eq, 1.0, span);
            let not_one = self.size_compared(source, SizeQuery::Numel, BinOp::Ne, 1.0, span);
            let long_row = self.binary_expr(BinOp::And, row, not_one, Class::Logical, span);
            let empty = self.local_is_zero_by_zero(source, span);
            let other = self.binary_expr(BinOp::Or, long_row, empty, Class::Logical, span);
            failed = self.binary_expr(BinOp::Or, failed, other, Class::Logical, span);
        }
        self.stop_if(failed, RuntimeError::FindShape, span);
    }

    /// Whether `source` is one element and `count` (of its nonzeros) is 0.
    fn one_zero(&mut self, source: LocalId, count: LocalId, span: Span) -> ExprId {
        let single = self.size_compared(source, SizeQuery::Numel, BinOp::Eq, 1.0, span);
        let (n, zero) = (
            self.read_local(count, span),
            self.constant_expr(0.0, Class::Double, span),
        );
        let none = self.binary_expr(BinOp::Eq, n, zero, Class::Logical, span);
        self.binary_expr(BinOp::And, single, none, Class::Logical, span)
    }

    /// Whether `source` is 0-by-0.
    fn local_is_zero_by_zero(&mut self, source: LocalId, span: Span) -> ExprId {
        let no_rows = self.size_compared(source, SizeQuery::Dim(1), BinOp::Eq, 0.0, span);
        let no_cols = self.size_compared(source, SizeQuery::Dim(2), BinOp::Eq, 0.0, span);
        self.binary_expr(BinOp::And, no_rows, no_cols, Class::Logical, span)
    }

    /// The result temporary, allocated for `count` indices in the form's shape.
    fn find_result(&mut self, source: LocalId, form: Form, count: LocalId, span: Span) -> LocalId {
        let shape = match form {
            Form::Scalar => Shape::new(Dim::Var, Dim::Var),
            Form::Row => Shape::new(Dim::Known(1), Dim::Var),
            Form::Column | Form::Matrix => Shape::new(Dim::Var, Dim::Known(1)),
            Form::Open => Shape::new(Dim::Var, Dim::Var),
        };
        let result = self.temp("f", Type::array(Class::Double, shape), span);
        let n = |me: &mut Self| me.read_local(count, span);
        let one = |me: &mut Self| me.constant_expr(1.0, Class::Double, span);
        let (rows, cols) = match form {
            Form::Scalar => (n(self), n(self)),
            Form::Row => (one(self), n(self)),
            Form::Column | Form::Matrix => (n(self), one(self)),
            Form::Open => self.open_extents(source, count, span),
        };
        self.alloc_zeros(result, rows, cols, None, span);
        result
    }

    /// The extents of `find(x)` with `count` indices of an `x` whose extents were unknown when
    /// translating, as Octave shapes it: a row for a row `x` (0-by-0 for a 1-by-1 zero), a
    /// column otherwise (0-by-0 for a 0-by-0 `x`).
    fn open_extents(&mut self, source: LocalId, count: LocalId, span: Span) -> (ExprId, ExprId) {
        let row = self.size_compared(source, SizeQuery::Dim(1), BinOp::Eq, 1.0, span);
        let one_zero = self.one_zero(source, count, span);
        let empty = self.local_is_zero_by_zero(source, span);
        // Rows: the count, or a row's 1; columns: a row's count, or 1; either 0 where Octave's
        // result is 0-by-0 (one zero, or a 0-by-0 `x`, neither of which is counted otherwise).
        let (double, logical) = (Type::scalar(Class::Double), Type::scalar(Class::Logical));
        let not_row = self.new_expr(ExprKind::Unary(UnOp::Not, row), logical, span);
        let (n1, n2) = (self.read_local(count, span), self.read_local(count, span));
        let rows = self.pick_extent(not_row, n1, span);
        let row = self.copy_expr(row);
        let cols = self.pick_extent(row, n2, span);
        let zero_by_zero = self.binary_expr(BinOp::Or, one_zero, empty, Class::Logical, span);
        let kept = self.new_expr(ExprKind::Unary(UnOp::Not, zero_by_zero), logical, span);
        let kept = self.new_expr(ExprKind::Convert(kept), double, span);
        let rows = self.binary_expr(BinOp::Mul, rows, kept, Class::Double, span);
        let kept = self.copy_expr(kept);
        let cols = self.binary_expr(BinOp::Mul, cols, kept, Class::Double, span);
        (rows, cols)
    }

    /// Appends the indices of the nonzeros to `result`, counting every nonzero in `j` and
    /// storing those that `keep` accepts at the position `at` gives: `j = j + 1; result(j) = k`
    /// under `x(k) ~= 0` (a stream compaction the analysis makes a scan, also when the store
    /// sits in an `if` after the count or its subscript is `j` shifted by a constant).
    fn compact_nonzeros(&mut self, source: LocalId, result: LocalId, window: Window, span: Span) {
        let filled = self.temp("j", Type::scalar(Class::Double), span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        self.set_local(filled, zero, span);
        let n = self.new_expr(
            ExprKind::Size(source, SizeQuery::Numel),
            Type::scalar(Class::Double),
            span,
        );
        self.counted_loop("k", n, span, |me, k| {
            let nonzero = me.nonzero_at(source, k, span);
            me.emit_if(nonzero, span, |me| {
                let (j, one) = (
                    me.read_local(filled, span),
                    me.constant_expr(1.0, Class::Double, span),
                );
                let next = me.binary_expr(BinOp::Add, j, one, Class::Double, span);
                me.set_local(filled, next, span);
                match window {
                    Window::All => me.store_index(result, filled, k, span),
                    Window::First(count) => {
                        let (j, n) = (me.read_local(filled, span), me.read_local(count, span));
                        let room = me.binary_expr(BinOp::Le, j, n, Class::Logical, span);
                        me.emit_if(room, span, |me| me.store_index(result, filled, k, span));
                    }
                    Window::Last(skip) => {
                        let (j, skipped) = (me.read_local(filled, span), me.read_local(skip, span));
                        let past = me.binary_expr(BinOp::Gt, j, skipped, Class::Logical, span);
                        me.emit_if(past, span, |me| {
                            let (j, skipped) =
                                (me.read_local(filled, span), me.read_local(skip, span));
                            let at = me.binary_expr(BinOp::Sub, j, skipped, Class::Double, span);
                            me.store_index_at(result, at, k, span);
                        });
                    }
                }
            });
        });
    }

    /// `found - count`: how many of the first nonzeros `find(x, n, 'last')` passes over.
    fn skipped(&mut self, found: LocalId, count: LocalId, span: Span) -> LocalId {
        let skip = self.temp("skip", Type::scalar(Class::Double), span);
        let (all, kept) = (self.read_local(found, span), self.read_local(count, span));
        let value = self.binary_expr(BinOp::Sub, all, kept, Class::Double, span);
        self.set_local(skip, value, span);
        skip
    }

    /// `result(at) = k`.
    pub(super) fn store_index(&mut self, result: LocalId, at: LocalId, k: LocalId, span: Span) {
        let at = self.read_local(at, span);
        self.store_index_at(result, at, k, span);
    }

    /// `result(at) = k` for the position expression `at`.
    fn store_index_at(&mut self, result: LocalId, at: ExprId, k: LocalId, span: Span) {
        let value = self.read_local(k, span);
        self.push(
            StmtKind::Store {
                array: result,
                indices: vec![at],
                value,
            },
            span,
        );
    }
}

impl Lowerer<'_> {
    /// `issorted(x)` of a vector, as Octave's: every element is at most the next, NaN sorting
    /// last (`[1 NaN]` is sorted, `[NaN 1]` is not); an `all` over the pairs, so a kernel.
    pub(super) fn issorted(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [x] = args else {
            self.error(
                "E0105",
                span,
                "wrong number of arguments to `issorted`".into(),
                "write `issorted(x)` of a vector".into(),
            );
            return None;
        };
        let source = match self.value(x)? {
            Val::Scalar(_) => {
                return Some(Val::Scalar(self.constant_expr(1.0, Class::Logical, span)))
            }
            Val::Array(a) if !a.shape.is_vector() || self.element_type(&a).complex => {
                self.error(
                    "E0106",
                    x.span,
                    "issorted: needs a vector (of real values), and this value is not known to be one".into(),
                    "pass a row or a column (declare an input as (1,:) or (:,1)), or `x(:)`".into(),
                );
                return None;
            }
            Val::Array(a) => self.whole_local(&a),
        };
        let class = self.locals[source].ty.class;
        let acc = self.accumulator(Reduction::All, Class::Logical, span);
        let n = self.new_expr(
            ExprKind::Size(source, SizeQuery::Numel),
            Type::scalar(Class::Double),
            span,
        );
        let one = self.constant_expr(1.0, Class::Double, span);
        let pairs = self.binary_expr(BinOp::Sub, n, one, Class::Double, span);
        self.counted_loop("k", pairs, span, |me, k| {
            let element = |me: &mut Self, next: bool| {
                let mut at = me.read_local(k, span);
                if next {
                    let one = me.constant_expr(1.0, Class::Double, span);
                    at = me.binary_expr(BinOp::Add, at, one, Class::Double, span);
                }
                me.new_expr(ExprKind::Index(source, vec![at]), Type::scalar(class), span)
            };
            let (this, next) = (element(me, false), element(me, true));
            let in_order = me.binary_expr(BinOp::Le, this, next, Class::Logical, span);
            let next = element(me, true);
            let nan = me.new_expr(
                ExprKind::Call(Builtin::IsNan, vec![next]),
                Type::scalar(Class::Logical),
                span,
            );
            let ok = me.binary_expr(BinOp::Or, nan, in_order, Class::Logical, span);
            me.accumulate(Reduction::All, acc, ok, span);
        });
        Some(Val::Scalar(self.read_local(acc, span)))
    }
}
