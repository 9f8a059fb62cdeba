//! Selections by logical masks and index vectors: `x(idx)`, `A(rows, :)`, `x(mask)`,
//! `x(mask) = v`, `x(m) = y(m)` and reductions of masked reads, `sum(x(x > t))`.
//!
//! Invariants:
//! - an index vector is held in an array local ([`Sub::Index`]): a variable used as the index,
//!   or a temporary the index expression was written into, so that element `p` of the
//!   selection reads `idx(p)` (a gather; the generated index check gives MATLAB's errors for
//!   indices that are not positive integers or lie past the end);
//! - a mask is kept as an array value where it can be read element by element along the
//!   selected array (a masked assignment, a masked reduction: one loop with an `if`, elements
//!   independent); anywhere else it becomes the vector of its true positions (`find(mask)`,
//!   written by a count pass and a sequential compaction), so `x(mask)` is `x(find(mask))` as in
//!   MATLAB, with MATLAB's shape;
//! - `x(idx) = v` writes in index order in one sequential loop of the scatter, so of repeated
//!   indices the last assignment wins; the right side is evaluated first (through a temporary
//!   when it reads `x`), so `h(idx) = h(idx) + 1` adds 1 once per distinct index, as in MATLAB.

use super::array::{ArrayVal, Node, Operand, Pos, Sub, Val};
use super::reduce::Reduction;
use super::*;
use crate::ir::RuntimeError;

/// One lowered subscript: a plain one, or a logical mask not yet turned into positions.
pub(super) enum Subscript {
    Plain(Sub),
    Mask(ArrayVal),
}

/// An operand that may be a masked read `x(mask)` of an array local.
pub(super) enum Selected {
    Masked { array: LocalId, mask: ArrayVal },
    Value(Val),
}

/// Which way a vector result points when translation can tell.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Orientation {
    Row,
    Column,
    AtRunTime,
}

impl Lowerer<'_> {
    /// A subscript that is an array: a logical mask, or a vector of indices.
    pub(super) fn array_subscript(&mut self, a: ArrayVal) -> Option<Subscript> {
        if a.class == Class::Logical {
            return Some(Subscript::Mask(a));
        }
        if a.class != Class::Char && self.may_be_vector(&a) {
            let index = self.whole_local(&a);
            self.vector_index_check(index, a.span);
            return Some(Subscript::Plain(Sub::Index(index)));
        }
        if a.class == Class::Char || !a.is_vector() {
            let what = if a.class == Class::Char {
                "indexing with a char array".to_string()
            } else {
                format!(
                    "indexing with a matrix of indices ({})",
                    Type::array(a.class, a.shape)
                )
            };
            self.error(
                "E0138",
                a.span,
                format!("{what} is not supported"),
                "index with a numeric vector of positions, or a logical mask; for a matrix of indices loop over its elements".into(),
            );
            return None;
        }
        Some(Subscript::Plain(Sub::Index(self.whole_local(&a))))
    }

    /// Whether `a` is a 2-D value with no extent known: a vector or an empty array when the
    /// program runs, in the programs that index with it (`[~, i] = max(x)` of a vector grown
    /// from `[]`), which a run-time check confirms ([`Self::vector_index_check`]).
    fn may_be_vector(&self, a: &ArrayVal) -> bool {
        !a.is_vector() && a.shape.rows == Dim::Var && a.shape.cols == Dim::Var && !a.shape.is_3d()
    }

    /// Stops with [`RuntimeError::IndexMatrix`] unless the index `idx` is a vector or empty.
    fn vector_index_check(&mut self, idx: LocalId, span: Span) {
        let one_row = self.size_compared(idx, SizeQuery::Dim(1), BinOp::Eq, 1.0, span);
        let one_col = self.size_compared(idx, SizeQuery::Dim(2), BinOp::Eq, 1.0, span);
        let vector = self.binary_expr(BinOp::Or, one_row, one_col, Class::Logical, span);
        let empty = self.size_compared(idx, SizeQuery::Numel, BinOp::Eq, 0.0, span);
        let cond = self.binary_expr(BinOp::Or, vector, empty, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::IndexMatrix,
            },
            span,
        );
    }

    /// The subscripts of `array(...)` with every mask replaced by the positions of its true
    /// elements.
    pub(super) fn masks_to_indices(&mut self, array: LocalId, subs: Vec<Subscript>) -> Vec<Sub> {
        let linear = subs.len() == 1;
        subs.into_iter()
            .map(|s| match s {
                Subscript::Plain(sub) => sub,
                Subscript::Mask(mask) => {
                    let positions = self.find_positions(&mask);
                    if linear && !self.holds_empty_selection(array, &mask) {
                        self.empty_scalar_mask_check(&mask, positions);
                    }
                    Sub::Index(positions)
                }
            })
            .collect()
    }

    /// Whether `array(mask)` can be MATLAB's 0-by-0 result of a 1-by-1 `array` and a false
    /// 1-by-1 mask: both are 2-D with no extent known, so the positions take `find`'s 0-by-0
    /// ([`Self::find_positions`]) and the gather takes their extents
    /// ([`Self::gather_extent`]), and a variable of `array`'s type holds it (`x = x(x > t)`).
    fn holds_empty_selection(&self, array: LocalId, mask: &ArrayVal) -> bool {
        let open = |s: Shape| s.rows == Dim::Var && s.cols == Dim::Var && !s.is_3d();
        open(self.locals[array].ty.shape) && open(mask.shape)
    }

    /// MATLAB's `x(mask)` with a 1-by-1 mask that is false is 0-by-0, which the selection's
    /// vector type cannot hold: stop with [`RuntimeError::EmptyScalarMask`] there (only a mask
    /// that may be 1-by-1 needs the check).
    fn empty_scalar_mask_check(&mut self, mask: &ArrayVal, positions: LocalId) {
        let many = |d: Dim| matches!(d, Dim::Known(k) if k != 1);
        if many(mask.shape.rows) || many(mask.shape.cols) {
            return;
        }
        let span = mask.span;
        let n = self.numel_expr(mask, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let not_single = self.binary_expr(BinOp::Ne, n, one, Class::Logical, span);
        let (found, _) = self.index_count(positions, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let some = self.binary_expr(BinOp::Gt, found, zero, Class::Logical, span);
        let cond = self.binary_expr(BinOp::Or, not_single, some, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::EmptyScalarMask,
            },
            span,
        );
    }

    /// `find(mask)` into a new double temporary: a row for a row mask, else a column.
    fn find_positions(&mut self, mask: &ArrayVal) -> LocalId {
        let span = mask.span;
        let mask = self.linear_readable(mask.clone());
        let count = self.count_true(&mask, span);
        let many_pages = matches!(mask.shape.pages, Dim::Known(p) if p != 1);
        let orientation = match (mask.shape.rows, mask.shape.cols) {
            _ if many_pages => Orientation::Column,
            _ if mask.shape.is_3d() => Orientation::AtRunTime,
            (Dim::Known(1), _) => Orientation::Row,
            (Dim::Known(_), _) | (_, Dim::Known(1)) => Orientation::Column,
            _ => Orientation::AtRunTime,
        };
        let is_row = self.is_row_at_run_time(&mask, span);
        let is_column = self.new_expr(ExprKind::Unary(UnOp::Not, is_row), logical(), span);
        let (shape, mut rows, cols) = self.oriented(orientation, is_column, count, Dim::Var, span);
        if orientation == Orientation::AtRunTime {
            rows = self.no_rows_for_one_false(&mask, count, rows, span);
        }
        let positions = self.temp("f", Type::array(Class::Double, shape), span);
        self.alloc_zeros(positions, rows, cols, None, span);
        let at = self.counter(span);
        self.masked_loop(&mask, span, |me, k| {
            me.increment(at, span);
            let value = me.new_expr(ExprKind::Local(k), double(), span);
            let index = me.new_expr(ExprKind::Local(at), double(), span);
            me.push(
                StmtKind::Store {
                    array: positions,
                    indices: vec![index],
                    value,
                },
                span,
            );
        });
        positions
    }

    /// The rows of `find(mask)` of a mask whose orientation is known at run time: `rows`, or 0
    /// for a 1-by-1 mask that is false (MATLAB's `find(false)` is 0-by-0; its columns are the
    /// count, 0, already).
    fn no_rows_for_one_false(
        &mut self,
        mask: &ArrayVal,
        count: ExprId,
        rows: ExprId,
        span: Span,
    ) -> ExprId {
        let n = self.numel_expr(mask, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let not_single = self.binary_expr(BinOp::Ne, n, one, Class::Logical, span);
        let count = self.copy_expr(count);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let found = self.binary_expr(BinOp::Gt, count, zero, Class::Logical, span);
        let keep = self.binary_expr(BinOp::Or, not_single, found, Class::Logical, span);
        let keep = self.new_expr(ExprKind::Convert(keep), double(), span);
        self.binary_expr(BinOp::Mul, rows, keep, Class::Double, span)
    }

    /// Whether `mask` is a row when the program runs: one row, and one page if it is 3-D.
    fn is_row_at_run_time(&mut self, mask: &ArrayVal, span: Span) -> ExprId {
        let rows = self.copy_expr(mask.rows);
        let one = self.constant_expr(1.0, Class::Double, span);
        let one_row = self.binary_expr(BinOp::Eq, rows, one, Class::Logical, span);
        let Some((_, pages)) = self.page_extents(mask).filter(|_| mask.shape.is_3d()) else {
            return one_row;
        };
        let one = self.constant_expr(1.0, Class::Double, span);
        let one_page = self.binary_expr(BinOp::Eq, pages, one, Class::Logical, span);
        self.binary_expr(BinOp::And, one_row, one_page, Class::Logical, span)
    }

    /// How many elements of the mask are true, counted by a loop into a temporary.
    fn count_true(&mut self, mask: &ArrayVal, span: Span) -> ExprId {
        let n = self.counter(span);
        self.masked_loop(mask, span, |me, _| me.increment(n, span));
        self.new_expr(ExprKind::Local(n), double(), span)
    }

    /// A new double temporary set to 0.
    pub(super) fn counter(&mut self, span: Span) -> LocalId {
        let n = self.temp("n", double(), span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        self.push(
            StmtKind::Assign {
                target: n,
                value: zero,
            },
            span,
        );
        n
    }

    /// `n = n + 1`.
    pub(super) fn increment(&mut self, n: LocalId, span: Span) {
        let value = self.new_expr(ExprKind::Local(n), double(), span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let value = self.binary_expr(BinOp::Add, value, one, Class::Double, span);
        self.push(StmtKind::Assign { target: n, value }, span);
    }

    /// `for k = 1:numel(mask), if mask(k), body(k), end, end`.
    pub(super) fn masked_loop(
        &mut self,
        mask: &ArrayVal,
        span: Span,
        body: impl FnOnce(&mut Self, LocalId),
    ) -> Option<StmtId> {
        let n = self.numel_expr(mask, span);
        self.counted_loop("k", n, span, |me, k| {
            let cond = me.element(mask, Pos::linear(k));
            me.emit_if(cond, span, |me| body(me, k));
        })
    }

    /// The value itself when its elements can be read at linear positions, else a temporary
    /// holding it (a transposed or stretched matrix, or a matrix slice, reads elsewhere).
    pub(super) fn linear_readable(&mut self, val: ArrayVal) -> ArrayVal {
        if val.is_vector() || linear_safe(&val) {
            return val;
        }
        let temp = self.materialize(&val);
        self.whole(temp, val.span)
    }

    /// The extents of `x(idx)`: MATLAB gives a vector `x` that is not 1-by-1 its own
    /// orientation, and otherwise the result takes the shape of `idx`.
    pub(super) fn gather_extent(
        &mut self,
        array: LocalId,
        idx: LocalId,
        span: Span,
    ) -> (Shape, ExprId, ExprId) {
        let (n, known) = self.index_count(idx, span);
        let (x, i) = (self.locals[array].ty.shape, self.locals[idx].ty.shape);
        let one = Dim::Known(1);
        let many = |d: Dim| matches!(d, Dim::Known(k) if k != 1);
        let orientation = if x.is_3d() && !many(x.pages) {
            Orientation::AtRunTime
        } else if many(x.pages) && i.rows == one {
            Orientation::Row
        } else if many(x.pages) && i.cols == one {
            Orientation::Column
        } else if x.is_3d() {
            Orientation::AtRunTime
        } else if x.rows == one && (many(x.cols) || i.rows == one) {
            Orientation::Row
        } else if x.cols == one && (many(x.rows) || i.cols == one) {
            Orientation::Column
        } else if many(x.rows) && many(x.cols) && i.rows == one {
            Orientation::Row
        } else if many(x.rows) && many(x.cols) && i.cols == one {
            Orientation::Column
        } else {
            Orientation::AtRunTime
        };
        let is_column = self.gathers_column(array, idx, span);
        let (shape, rows, cols) = self.oriented(orientation, is_column, n, known, span);
        if orientation != Orientation::AtRunTime || i.rows != Dim::Var || i.cols != Dim::Var {
            return (shape, rows, cols);
        }
        // A 0-by-0 `idx` (`find` of a false 1-by-1 mask) gives a 0-by-0 result when `x` is no
        // vector; the count, 0, is the columns already.
        let not_vector = self.not_vector_at_run_time(array, span);
        let idx_rows = self.size_of(idx, 1, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let no_rows = self.binary_expr(BinOp::Eq, idx_rows, zero, Class::Logical, span);
        let empty = self.binary_expr(BinOp::And, not_vector, no_rows, Class::Logical, span);
        let keep = self.new_expr(ExprKind::Unary(UnOp::Not, empty), logical(), span);
        let keep = self.new_expr(ExprKind::Convert(keep), double(), span);
        let rows = self.binary_expr(BinOp::Mul, rows, keep, Class::Double, span);
        (shape, rows, cols)
    }

    /// At run time: whether `x(idx)` is a column (see [`Self::gather_extent`]).
    fn gathers_column(&mut self, array: LocalId, idx: LocalId, span: Span) -> ExprId {
        let x_column = self.is_column_at_run_time(array, span);
        let not_vector = self.not_vector_at_run_time(array, span);
        let idx_column = self.is_column_at_run_time(idx, span);
        let by_idx = self.binary_expr(BinOp::And, not_vector, idx_column, Class::Logical, span);
        self.binary_expr(BinOp::Or, x_column, by_idx, Class::Logical, span)
    }

    /// At run time: whether `array` is no vector (1-by-1 counts as none, as in MATLAB's rule
    /// for the shape of `x(idx)`).
    fn not_vector_at_run_time(&mut self, array: LocalId, span: Span) -> ExprId {
        let one_extent = |me: &mut Self, dim: u8| {
            let e = me.size_of(array, dim, span);
            let one = me.constant_expr(1.0, Class::Double, span);
            me.binary_expr(BinOp::Eq, e, one, Class::Logical, span)
        };
        let (unit_rows, unit_cols) = (one_extent(self, 1), one_extent(self, 2));
        let mut not_vector =
            self.binary_expr(BinOp::Eq, unit_rows, unit_cols, Class::Logical, span);
        if self.locals[array].ty.shape.is_3d() {
            let unit_pages = one_extent(self, 3);
            let many_pages = self.new_expr(ExprKind::Unary(UnOp::Not, unit_pages), logical(), span);
            not_vector = self.binary_expr(BinOp::Or, not_vector, many_pages, Class::Logical, span);
        }
        not_vector
    }

    /// A vector of `n` elements pointing as `orientation` says, or as `is_column` says at run
    /// time.
    fn oriented(
        &mut self,
        orientation: Orientation,
        is_column: ExprId,
        n: ExprId,
        known: Dim,
        span: Span,
    ) -> (Shape, ExprId, ExprId) {
        let one = self.constant_expr(1.0, Class::Double, span);
        match orientation {
            Orientation::Row => (Shape::new(Dim::Known(1), known), one, n),
            Orientation::Column => (Shape::new(known, Dim::Known(1)), n, one),
            Orientation::AtRunTime => {
                let n2 = self.copy_expr(n);
                let rows = self.pick_extent(is_column, n, span);
                let is_column2 = self.copy_expr(is_column);
                let not_column =
                    self.new_expr(ExprKind::Unary(UnOp::Not, is_column2), logical(), span);
                let cols = self.pick_extent(not_column, n2, span);
                (Shape::new(Dim::Var, Dim::Var), rows, cols)
            }
        }
    }

    /// How many indices an index vector holds.
    pub(super) fn index_count(&mut self, idx: LocalId, span: Span) -> (ExprId, Dim) {
        let shape = self.locals[idx].ty.shape;
        let known = match (shape.rows, shape.cols) {
            (Dim::Known(r), Dim::Known(c)) => Dim::Known(r * c),
            _ => Dim::Var,
        };
        let n = self.new_expr(ExprKind::Size(idx, SizeQuery::Numel), double(), span);
        (n, known)
    }

    // ----- masked reads --------------------------------------------------------------------

    /// The value of `e`, except that a masked read `x(mask)` of an array local is kept apart.
    pub(super) fn selection(&mut self, e: &ast::Expr) -> Option<Selected> {
        let AstExpr::Call { callee, args } = &strip_parens(e).kind else {
            return self.value(e).map(Selected::Value);
        };
        let array = match self.scope.names.get(&callee.name) {
            Some(&a) if args.len() == 1 && !self.locals[a].ty.is_scalar() => a,
            _ => return self.value(e).map(Selected::Value),
        };
        let mut subs = self.subscripts_with_masks(array, args)?;
        if let [Subscript::Mask(_)] = subs.as_slice() {
            let Some(Subscript::Mask(mask)) = subs.pop() else {
                return None;
            };
            return Some(Selected::Masked { array, mask });
        }
        let subs = self.masks_to_indices(array, subs);
        let v = self.index_with(array, subs, e.span)?;
        Some(Selected::Value(self.scalarized(v)))
    }

    /// `x(mask)` as a value: the gather `x(find(mask))`.
    pub(super) fn masked_value(
        &mut self,
        array: LocalId,
        mask: ArrayVal,
        span: Span,
    ) -> Option<Val> {
        let subs = self.masks_to_indices(array, vec![Subscript::Mask(mask)]);
        let v = self.index_with(array, subs, span)?;
        Some(self.scalarized(v))
    }

    /// `numel(x(mask))` without a gather: the count of true elements, after a check that the
    /// last of them lies within `x` (else MATLAB's index error, as the gather would give).
    pub(super) fn masked_count(&mut self, array: LocalId, mask: ArrayVal, span: Span) -> ExprId {
        let mask = self.linear_readable(mask);
        let count = self.counter(span);
        let last = self.counter(span);
        self.masked_loop(&mask, span, |me, k| {
            me.increment(count, span);
            let at = me.new_expr(ExprKind::Local(k), double(), span);
            let before = me.new_expr(ExprKind::Local(last), double(), span);
            let value = me.new_expr(
                ExprKind::Call(Builtin::Max, vec![at, before]),
                double(),
                span,
            );
            me.push(
                StmtKind::Assign {
                    target: last,
                    value,
                },
                span,
            );
        });
        let last = self.new_expr(ExprKind::Local(last), double(), span);
        let numel = self.new_expr(ExprKind::Size(array, SizeQuery::Numel), double(), span);
        let cond = self.binary_expr(BinOp::Le, last, numel, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::IndexPastEnd,
            },
            span,
        );
        self.new_expr(ExprKind::Local(count), double(), span)
    }

    /// A reduction of `x(mask)` without a gather: one loop over the mask that accumulates the
    /// selected elements (and counts them for `mean`, `max` and `min`).
    pub(super) fn masked_reduction(
        &mut self,
        kind: Reduction,
        array: LocalId,
        mask: ArrayVal,
        span: Span,
    ) -> Option<ExprId> {
        let class = self.accumulator_class(kind, self.locals[array].ty.class, span)?;
        let mask = self.linear_readable(mask);
        let acc = self.accumulator(kind, class, span);
        let counted = matches!(kind, Reduction::Mean | Reduction::Max | Reduction::Min);
        let count = counted.then(|| self.counter(span));
        self.masked_loop(&mask, span, |me, k| {
            let ty = Type::scalar(me.locals[array].ty.class);
            let at = me.new_expr(ExprKind::Local(k), double(), span);
            let element = me.new_expr(ExprKind::Index(array, vec![at]), ty, span);
            me.accumulate(kind, acc, element, span);
            if let Some(count) = count {
                me.increment(count, span);
            }
        });
        let result = self.new_expr(ExprKind::Local(acc), Type::scalar(class), span);
        let Some(count) = count else {
            return Some(result);
        };
        let n = self.new_expr(ExprKind::Local(count), double(), span);
        if kind == Reduction::Mean {
            self.empty_mean_check(array, &mask, count, span);
            return Some(self.binary_expr(BinOp::Div, result, n, class, span));
        }
        self.nonempty_check(n, span);
        Some(result)
    }

    /// Octave's `mean` of a 1-by-0 selection is 1-by-0 (of 0-by-1 and 0-by-0, NaN): stop
    /// with [`RuntimeError::EmptyMean`] when nothing is selected and the selection is a row
    /// (`x` a row that is not 1-by-1, or a matrix and the mask a row).
    fn empty_mean_check(&mut self, array: LocalId, mask: &ArrayVal, count: LocalId, span: Span) {
        let count = self.new_expr(ExprKind::Local(count), double(), span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let some = self.binary_expr(BinOp::Gt, count, zero, Class::Logical, span);
        let extent_is = |me: &mut Self, e: ExprId, one: bool| {
            let k = me.constant_expr(1.0, Class::Double, span);
            let op = if one { BinOp::Eq } else { BinOp::Ne };
            me.binary_expr(op, e, k, Class::Logical, span)
        };
        let (rows, cols) = (self.size_of(array, 1, span), self.size_of(array, 2, span));
        let (x_row1, x_cols_many) = (extent_is(self, rows, true), extent_is(self, cols, false));
        let mut x_row = self.binary_expr(BinOp::And, x_row1, x_cols_many, Class::Logical, span);
        if self.locals[array].ty.shape.is_3d() {
            let pages = self.size_of(array, 3, span);
            let one_page = extent_is(self, pages, true);
            x_row = self.binary_expr(BinOp::And, x_row, one_page, Class::Logical, span);
        }
        let (rows, cols) = (self.size_of(array, 1, span), self.size_of(array, 2, span));
        let (many_rows, many_cols) = (extent_is(self, rows, false), extent_is(self, cols, false));
        let matrix = self.binary_expr(BinOp::And, many_rows, many_cols, Class::Logical, span);
        let mask_row = self.is_row_at_run_time(mask, span);
        let by_mask = self.binary_expr(BinOp::And, matrix, mask_row, Class::Logical, span);
        let row = self.binary_expr(BinOp::Or, x_row, by_mask, Class::Logical, span);
        let not_row = self.new_expr(ExprKind::Unary(UnOp::Not, row), logical(), span);
        let cond = self.binary_expr(BinOp::Or, some, not_row, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::EmptyMean,
            },
            span,
        );
    }

    // ----- masked assignment ---------------------------------------------------------------

    /// `x(mask) = v`: the k-th true element of the mask gets `v` when it is a scalar, `y(k)`
    /// for `x(mask) = y(mask)` (the same mask), else the k-th element of `v`.
    pub(super) fn masked_store(
        &mut self,
        array: LocalId,
        mask: ArrayVal,
        (mask_ast, value): (&ast::Expr, &ast::Expr),
        span: Span,
    ) -> Option<StmtId> {
        let mask = if self.reads_elsewhere(&mask, array) {
            let temp = self.materialize(&mask);
            self.whole(temp, mask.span)
        } else {
            self.linear_readable(mask)
        };
        if let Some(source) = self.same_mask_source(mask_ast, value) {
            return self.masked_loop(&mask, span, |me, k| {
                let ty = Type::scalar(me.locals[source].ty.class);
                let at = me.new_expr(ExprKind::Local(k), double(), span);
                let element = me.new_expr(ExprKind::Index(source, vec![at]), ty, span);
                me.store_at(array, k, element, span);
            });
        }
        match self.value(value)? {
            Val::Scalar(e) => {
                let v = self.temp("t", self.exprs[e].ty, span);
                self.push(
                    StmtKind::Assign {
                        target: v,
                        value: e,
                    },
                    span,
                );
                self.masked_loop(&mask, span, |me, k| {
                    let e = me.new_expr(ExprKind::Local(v), me.locals[v].ty, span);
                    me.store_at(array, k, e, span);
                })
            }
            Val::Array(a) => self.masked_store_array(array, &mask, a, span),
        }
    }

    /// `x(mask) = v` with an array `v` of as many elements as the mask has true ones, stored
    /// in order by one sequential loop.
    fn masked_store_array(
        &mut self,
        array: LocalId,
        mask: &ArrayVal,
        v: ArrayVal,
        span: Span,
    ) -> Option<StmtId> {
        let v = if self.reads_whole(&v, array) || self.reads_elsewhere(&v, array) {
            let temp = self.materialize(&v);
            self.whole(temp, span)
        } else {
            self.linear_readable(v)
        };
        let count = self.count_true(mask, span);
        let values = self.numel_expr(&v, span);
        let count2 = self.copy_expr(count);
        let equal = self.binary_expr(BinOp::Eq, count, values, Class::Logical, span);
        let values = self.numel_expr(&v, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let many = self.binary_expr(BinOp::Ne, values, one, Class::Logical, span);
        let expand = self.binary_expr(BinOp::Or, equal, many, Class::Logical, span);
        self.expansion_check(expand, span);
        let values = self.numel_expr(&v, span);
        let equal = self.binary_expr(BinOp::Eq, count2, values, Class::Logical, span);
        self.size_check(equal, span);
        let at = self.counter(span);
        self.masked_loop(mask, span, |me, k| {
            me.increment(at, span);
            let element = me.element(&v, Pos::linear(at));
            me.store_at(array, k, element, span);
        })
    }

    /// The array `y` of a right side `y(m)` whose mask is written as the target's.
    fn same_mask_source(&self, mask_ast: &ast::Expr, value: &ast::Expr) -> Option<LocalId> {
        let AstExpr::Call { callee, args } = &strip_parens(value).kind else {
            return None;
        };
        let source = *self.scope.names.get(&callee.name)?;
        let [arg] = args.as_slice() else {
            return None;
        };
        let text = crate::ast_source::print_expr_source(mask_ast);
        let same = text == crate::ast_source::print_expr_source(arg) && !text.contains("rand");
        (same && !self.locals[source].ty.is_scalar()).then_some(source)
    }

    /// `x(k) = value`, converted to `x`'s class.
    fn store_at(&mut self, array: LocalId, k: LocalId, value: ExprId, span: Span) {
        let value = self.stored_value(array, value);
        let at = self.new_expr(ExprKind::Local(k), double(), span);
        self.push(
            StmtKind::Store {
                array,
                indices: vec![at],
                value,
            },
            span,
        );
    }

    /// Index vectors that are the assigned array itself (`p(p) = v`) read a copy, taken
    /// before the scatter changes it.
    pub(super) fn unaliased(&mut self, array: LocalId, subs: Vec<Sub>, span: Span) -> Vec<Sub> {
        subs.into_iter()
            .map(|s| match s {
                Sub::Index(idx) if idx == array => {
                    let whole = self.whole(idx, span);
                    Sub::Index(self.materialize(&whole))
                }
                s => s,
            })
            .collect()
    }
}

/// Whether the element at a linear position of `val` reads its operands at that same linear
/// position (elementwise operations on whole arrays and scalars).
fn linear_safe(val: &ArrayVal) -> bool {
    let operand = |o: &Operand| match o {
        Operand::Scalar(_) => true,
        Operand::Array(a) => linear_safe(a),
    };
    match &val.node {
        Node::Whole(_) => true,
        Node::Unary(_, a) | Node::Convert(a) => linear_safe(a),
        Node::Binary(_, a, b) => operand(a) && operand(b),
        Node::Call(_, args) => args.iter().all(operand),
        Node::Slice(..) | Node::Range { .. } | Node::Transpose(_) | Node::Broadcast { .. } => false,
    }
}

fn double() -> Type {
    Type::scalar(Class::Double)
}

fn logical() -> Type {
    Type::scalar(Class::Logical)
}
