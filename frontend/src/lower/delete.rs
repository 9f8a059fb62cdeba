//! Deleting elements with `= []`: `x(k) = []`, `x(idx) = []`, `x(a:b) = []`, `x(mask) = []`,
//! `A(rows, :) = []`, `A(:, cols) = []` and, for a 3-D `A`, `A(:, :, pages) = []` (`pages`).
//!
//! Octave 7.3's results: a row stays a row and a column a column; a linear deletion that
//! deletes nothing changes nothing, and one that deletes something from a matrix (or a 1-by-1
//! value) by a scalar or a range with step 1 leaves a row; whole rows or columns go with a `:`
//! in the other subscript; repeated indices delete once; an index past the end stops with
//! MATLAB's "Matrix index is out of range for deletion." (`RuntimeError::DeleteRange`); two
//! non-colon subscripts are MATLAB's error, reported at translation time (E0160). Octave and
//! MATLAB differ on a matrix (or a 1-by-1 value) deleted from by an index vector or a mask
//! (Octave: mostly a column, depending on how it stores the index; MATLAB: a row): that stops
//! with `RuntimeError::DeleteOrientation` when it deletes something.
//!
//! Lowering: the positions to delete along the affected extent (linear, rows or columns) are
//! marked in a logical temporary, the kept elements are moved forward in column-major order
//! (in place: the write position never passes the read position) and a `Resize` sets the new
//! extents, which only shrinks. `x(k) = []` with a scalar `k` shifts the tail down by one (in
//! linear order) instead. Every deletion target has run-time extents (a name the file deletes
//! from is opened like a grown one, see `assign::grown_names`), and a loop that deletes stays
//! sequential on the host, since `Resize` statements make it so; the report says it.
//!
//! Invariants: a deletion reads its subscripts completely before it moves any element, so
//! `x(x < 0) = []` sees the old `x`; a name the file deletes rows or columns from has both
//! extents `Dim::Var` (`cut_names`), so a row may lose its only row.

use std::collections::HashSet;

use super::array::{Pos, Sub};
use super::grow::is_empty_matrix;
use super::select::Subscript;
use super::*;
use crate::ir::RuntimeError;

mod pages;

/// The extent a deletion removes positions along.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Along {
    /// One subscript: element positions in column-major order.
    Linear,
    /// `A(rows, :) = []`.
    Rows,
    /// `A(:, cols) = []`.
    Cols,
    /// `A(:, :, pages) = []` of a 3-D `A` (`pages`).
    Pages,
}

impl Along {
    /// The position of the deleting subscript among the subscripts.
    fn position(self) -> usize {
        match self {
            Along::Linear | Along::Rows => 0,
            Along::Cols => 1,
            Along::Pages => 2,
        }
    }

    /// The dimension that `sub_extent` and `size_of` take for it.
    fn dim(self) -> u8 {
        match self {
            Along::Linear => 0,
            Along::Rows => 1,
            Along::Cols => 2,
            Along::Pages => 3,
        }
    }
}

impl Lowerer<'_> {
    /// `x(...) = []` for an existing `x`.
    pub(super) fn delete(
        &mut self,
        array: LocalId,
        args: &[ast::Expr],
        target_span: Span,
        span: Span,
    ) -> Option<StmtId> {
        let along = self.deletion_axis(array, args, target_span)?;
        let sub = self
            .subscripts_with_masks(array, args)?
            .into_iter()
            .nth(along.position())?;
        if self.scope.loop_depth > 0 {
            self.note_deleted(array, target_span);
        }
        if let (Along::Linear, Subscript::Plain(Sub::Scalar(k))) = (along, &sub) {
            return self.delete_one(array, *k, span);
        }
        let step = match &sub {
            Subscript::Plain(Sub::Range { step, .. }) => Some(self.copy_expr(*step)),
            _ => None,
        };
        let marks = self.mark_deleted(array, along, sub, span);
        let kept = self.count_kept(marks, span);
        if along == Along::Pages {
            return self.keep_pages(array, marks, kept, span);
        }
        let contiguous = step.is_some_and(|step| self.const_of(step) == Some(1.0));
        if along == Along::Linear && !contiguous {
            self.orientation_check(array, kept, step, span);
        }
        self.compact(array, marks, along, span);
        self.shrink(array, along, kept, span)
    }

    /// `x(...) = []` where `x` has no value: MATLAB's undefined-variable error.
    pub(super) fn delete_undefined(&mut self, name: &ast::Ident, span: Span) -> Option<StmtId> {
        self.error(
            "E0102",
            span,
            format!("undefined variable `{}`", name.name),
            format!(
                "`{}(...) = []` deletes elements of an existing array: assign `{}` first",
                name.name, name.name
            ),
        );
        None
    }

    /// Which extent `x(args) = []` deletes along, or a diagnostic for the forms m2cu (or
    /// MATLAB) rejects.
    fn deletion_axis(
        &mut self,
        array: LocalId,
        args: &[ast::Expr],
        target_span: Span,
    ) -> Option<Along> {
        let name = self.locals[array].seen_name().to_string();
        let ty = self.locals[array].ty;
        let colon = |a: &ast::Expr| matches!(strip_parens(a).kind, AstExpr::Colon);
        if let [a, b, c] = args {
            if ty.shape.is_3d() && colon(a) && colon(b) && !colon(c) {
                return Some(Along::Pages);
            }
        }
        let fixed = |d: Dim| matches!(d, Dim::Known(k) if k != 1);
        let single = ty.shape.rows == Dim::Known(1) && ty.shape.cols == Dim::Known(1);
        if ty.is_scalar()
            || ty.shape.is_3d()
            || fixed(ty.shape.rows)
            || fixed(ty.shape.cols)
            || single
        {
            let what = if ty.is_scalar() {
                "a scalar".to_string()
            } else {
                format!("of type {ty}")
            };
            self.error(
                "E0161",
                target_span,
                format!("deleting elements of `{name}`, {what}, is not supported"),
                "m2cu deletes from vectors and matrices whose extents it knows only at run time: copy the elements to keep into a new variable instead (for a vector, `x(k) = []` keeps `x([1:k-1, k+1:end])`)".into(),
            );
            return None;
        }
        match args {
            [a] if !colon(a) => Some(Along::Linear),
            [a, b] if colon(a) != colon(b) => {
                Some(if colon(a) { Along::Cols } else { Along::Rows })
            }
            [_, _] if !args.iter().any(colon) => {
                self.error(
                    "E0160",
                    target_span,
                    "a null assignment can only have one non-colon index".into(),
                    format!("MATLAB stops here too: delete whole rows, `{name}(i, :) = []`, whole columns, `{name}(:, j) = []`, or elements by one subscript, `{name}(k) = []`"),
                );
                None
            }
            [_] | [_, _] => {
                self.error(
                    "E0162",
                    target_span,
                    format!("deleting every element of `{name}` with `:` is not supported"),
                    format!("MATLAB leaves `{name}` 0-by-0 here: assign `{name} = zeros(0, 0, 'like', {name})` instead"),
                );
                None
            }
            _ => {
                self.error(
                    "E0161",
                    target_span,
                    format!(
                        "deleting from `{name}` with {} subscripts is not supported",
                        args.len()
                    ),
                    "delete with one subscript, `x(k) = []`, or two with one `:`, `A(i, :) = []`"
                        .into(),
                );
                None
            }
        }
    }

    /// The name the user wrote for a local (without an inlined function's prefix).
    fn note_deleted(&mut self, array: LocalId, span: Span) {
        let name = self.locals[array].seen_name().to_string();
        let note = (
            span,
            format!(
                "{name}: elements deleted inside the loop, on the host; the loop stays sequential"
            ),
        );
        if !self.growth.notes.contains(&note) {
            self.growth.notes.push(note);
        }
    }

    /// `x(k) = []`: after the checks, `x(k:end-1) = x(k+1:end)` in linear order and one element
    /// fewer.
    fn delete_one(&mut self, array: LocalId, k: ExprId, span: Span) -> Option<StmtId> {
        let double = Type::scalar(Class::Double);
        let at = self.temp("d", double, span);
        self.checked_position(at, k, array, span);
        // Reading `x(k)` gives MATLAB's error for an index that is not a positive integer.
        let probe = self.temp("d", Type::scalar(self.locals[array].ty.class), span);
        let read = self.read_local(at, span);
        let element = self.new_expr(
            ExprKind::Index(array, vec![read]),
            self.locals[probe].ty,
            span,
        );
        self.push(
            StmtKind::Assign {
                target: probe,
                value: element,
            },
            span,
        );
        let n = self.numel_of(array, span);
        let from = self.read_local(at, span);
        let tail = self.binary_expr(BinOp::Sub, n, from, Class::Double, span);
        self.counted_loop("p", tail, span, |me, p| {
            let to = me.offset_from(at, p, -1.0, span);
            let from = me.offset_from(at, p, 0.0, span);
            let ty = Type::scalar(me.locals[array].ty.class);
            let value = me.new_expr(ExprKind::Index(array, vec![from]), ty, span);
            me.push(
                StmtKind::Store {
                    array,
                    indices: vec![to],
                    value,
                },
                span,
            );
        });
        let kept = self.temp("n", double, span);
        let n = self.numel_of(array, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let left = self.binary_expr(BinOp::Sub, n, one, Class::Double, span);
        self.push(
            StmtKind::Assign {
                target: kept,
                value: left,
            },
            span,
        );
        self.shrink(array, Along::Linear, kept, span)
    }

    /// `base + p + delta` for locals `base` and `p`.
    fn offset_from(&mut self, base: LocalId, p: LocalId, delta: f64, span: Span) -> ExprId {
        let base = self.read_local(base, span);
        let p = self.read_local(p, span);
        let sum = self.binary_expr(BinOp::Add, base, p, Class::Double, span);
        let delta = self.constant_expr(delta, Class::Double, span);
        self.binary_expr(BinOp::Add, sum, delta, Class::Double, span)
    }

    /// The extent that `along` counts positions of.
    fn extent_along(&mut self, array: LocalId, along: Along, span: Span) -> ExprId {
        match along {
            Along::Linear => self.numel_of(array, span),
            Along::Rows | Along::Cols | Along::Pages => self.size_of(array, along.dim(), span),
        }
    }

    /// A logical column, one element per position along `along`, true where `sub` selects (a
    /// mask is read in one loop, without its positions).
    fn mark_deleted(
        &mut self,
        array: LocalId,
        along: Along,
        sub: Subscript,
        span: Span,
    ) -> LocalId {
        let shape = Shape::new(Dim::Var, Dim::Known(1));
        let marks = self.temp("del", Type::array(Class::Logical, shape), span);
        let n = self.extent_along(array, along, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        self.alloc_zeros(marks, n, one, None, span);
        let double = Type::scalar(Class::Double);
        let at = self.temp("d", double, span);
        let sub = match sub {
            Subscript::Mask(mask) => {
                let mask = self.linear_readable(mask);
                self.masked_loop(&mask, span, |me, k| {
                    let k = me.read_local(k, span);
                    me.mark_one(marks, at, k, span);
                });
                return marks;
            }
            Subscript::Plain(sub) => sub,
        };
        match sub {
            Sub::Scalar(k) => self.mark_one(marks, at, k, span),
            Sub::Index(idx) => {
                let count = self.numel_of(idx, span);
                self.counted_loop("p", count, span, |me, p| {
                    let p = me.read_local(p, span);
                    let ty = Type::scalar(me.locals[idx].ty.class);
                    let k = me.new_expr(ExprKind::Index(idx, vec![p]), ty, span);
                    me.mark_one(marks, at, k, span);
                });
            }
            Sub::Range { start, step, .. } => {
                let (count, _) = self.sub_extent(array, &sub, along.dim(), span);
                self.counted_loop("p", count, span, |me, p| {
                    let start = me.copy_expr(start);
                    let step = me.copy_expr(step);
                    let p = me.read_local(p, span);
                    let one = me.constant_expr(1.0, Class::Double, span);
                    let before = me.binary_expr(BinOp::Sub, p, one, Class::Double, span);
                    let offset = me.binary_expr(BinOp::Mul, before, step, Class::Double, span);
                    let k = me.binary_expr(BinOp::Add, start, offset, Class::Double, span);
                    me.mark_one(marks, at, k, span);
                });
            }
            Sub::All => {}
        }
        marks
    }

    /// `at = k`, the range check, `marks(at) = true` (whose index check gives MATLAB's error for
    /// an index that is not a positive integer).
    fn mark_one(&mut self, marks: LocalId, at: LocalId, k: ExprId, span: Span) {
        self.checked_position(at, k, marks, span);
        let index = self.read_local(at, span);
        let yes = self.constant_expr(1.0, Class::Logical, span);
        self.push(
            StmtKind::Store {
                array: marks,
                indices: vec![index],
                value: yes,
            },
            span,
        );
    }

    /// `at = k` as a double, then MATLAB's deletion error unless it is at most `numel(of)`.
    fn checked_position(&mut self, at: LocalId, k: ExprId, of: LocalId, span: Span) {
        let k = self.convert_to(k, Class::Double);
        self.push(
            StmtKind::Assign {
                target: at,
                value: k,
            },
            span,
        );
        let at = self.read_local(at, span);
        let n = self.numel_of(of, span);
        let cond = self.binary_expr(BinOp::Le, at, n, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::DeleteRange,
            },
            span,
        );
    }

    /// How many positions are not marked.
    fn count_kept(&mut self, marks: LocalId, span: Span) -> LocalId {
        let kept = self.counter(span);
        let n = self.numel_of(marks, span);
        self.counted_loop("k", n, span, |me, k| {
            let keep = me.not_marked(marks, k, span);
            me.emit_if(keep, span, |me| me.increment(kept, span));
        });
        kept
    }

    /// `~marks(k)`.
    fn not_marked(&mut self, marks: LocalId, k: LocalId, span: Span) -> ExprId {
        let k = self.read_local(k, span);
        let logical = Type::scalar(Class::Logical);
        let marked = self.new_expr(ExprKind::Index(marks, vec![k]), logical, span);
        self.new_expr(ExprKind::Unary(UnOp::Not, marked), logical, span)
    }

    /// Moves the kept elements to the front in column-major order: `w = w + 1; x(w) = x(k)`
    /// for each kept `k` (or `(i, j)` for rows and columns).
    fn compact(&mut self, array: LocalId, marks: LocalId, along: Along, span: Span) {
        let to = self.counter(span);
        let ty = Type::scalar(self.locals[array].ty.class);
        if along == Along::Linear {
            let n = self.extent_along(array, along, span);
            self.counted_loop("k", n, span, |me, k| {
                let keep = me.not_marked(marks, k, span);
                me.emit_if(keep, span, |me| {
                    let from = me.read_local(k, span);
                    let value = me.new_expr(ExprKind::Index(array, vec![from]), ty, span);
                    me.move_to(array, to, value, span);
                });
            });
            return;
        }
        let cols = self.size_of(array, 2, span);
        self.counted_loop("c", cols, span, |me, c| {
            let rows = me.size_of(array, 1, span);
            me.counted_loop("r", rows, span, |me, r| {
                let along_var = if along == Along::Rows { r } else { c };
                let keep = me.not_marked(marks, along_var, span);
                me.emit_if(keep, span, |me| {
                    let whole = me.whole(array, span);
                    let value = me.element(&whole, Pos::grid(r, c));
                    me.move_to(array, to, value, span);
                });
            });
        });
    }

    /// `to = to + 1; x(to) = value`.
    fn move_to(&mut self, array: LocalId, to: LocalId, value: ExprId, span: Span) {
        self.increment(to, span);
        let index = self.read_local(to, span);
        self.push(
            StmtKind::Store {
                array,
                indices: vec![index],
                value,
            },
            span,
        );
    }

    /// The `Resize` to MATLAB's extents after the deletion, `kept` positions left along `along`.
    fn shrink(
        &mut self,
        array: LocalId,
        along: Along,
        kept: LocalId,
        span: Span,
    ) -> Option<StmtId> {
        let (rows, cols) = match along {
            Along::Rows => (self.read_local(kept, span), self.size_of(array, 2, span)),
            Along::Cols => (self.size_of(array, 1, span), self.read_local(kept, span)),
            Along::Linear => return self.shrink_linear(array, kept, span),
            Along::Pages => unreachable!("keep_pages deletes pages"),
        };
        self.push(StmtKind::Resize { array, rows, cols }, span)
    }

    /// Octave 7.3 gives `x(idx) = []` on a matrix or a 1-by-1 `x` a row when `idx` is a range
    /// with step 1 and otherwise (mostly) a column, where MATLAB always gives a row: unless `x`
    /// is a row or a column, the subscript such a range or nothing is deleted, stop with
    /// `RuntimeError::DeleteOrientation`.
    fn orientation_check(
        &mut self,
        array: LocalId,
        kept: LocalId,
        step: Option<ExprId>,
        span: Span,
    ) {
        let kept = self.read_local(kept, span);
        let n = self.numel_of(array, span);
        let nothing = self.binary_expr(BinOp::Eq, kept, n, Class::Logical, span);
        let row = self.is_wide_row_at_run_time(array, span);
        let column = self.is_column_at_run_time(array, span);
        let vector = self.binary_expr(BinOp::Or, row, column, Class::Logical, span);
        let mut cond = self.binary_expr(BinOp::Or, nothing, vector, Class::Logical, span);
        if let Some(step) = step {
            let one = self.constant_expr(1.0, Class::Double, span);
            let contiguous = self.binary_expr(BinOp::Eq, step, one, Class::Logical, span);
            cond = self.binary_expr(BinOp::Or, cond, contiguous, Class::Logical, span);
        }
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::DeleteOrientation,
            },
            span,
        );
    }

    /// Whether `array` is one row of more or fewer than one column (a wide row, not 1-by-1).
    fn is_wide_row_at_run_time(&mut self, array: LocalId, span: Span) -> ExprId {
        let rows = self.size_of(array, 1, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let one_row = self.binary_expr(BinOp::Eq, rows, one, Class::Logical, span);
        let cols = self.size_of(array, 2, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let many_cols = self.binary_expr(BinOp::Ne, cols, one, Class::Logical, span);
        self.binary_expr(BinOp::And, one_row, many_cols, Class::Logical, span)
    }

    /// After `x(idx) = []`, when something was deleted: a column (more than one row, one
    /// column) stays a column, anything else becomes a row. Decided by the run-time extents
    /// even when the type says row or column: a later assignment may widen the type, and a
    /// loop then runs this with any shape.
    fn shrink_linear(&mut self, array: LocalId, kept: LocalId, span: Span) -> Option<StmtId> {
        let left = self.read_local(kept, span);
        let n = self.numel_of(array, span);
        let deleted = self.binary_expr(BinOp::Lt, left, n, Class::Logical, span);
        self.emit_if(deleted, span, |me| {
            let column = me.is_column_at_run_time(array, span);
            let not_column = me.copy_expr(column);
            let logical = Type::scalar(Class::Logical);
            let row = me.new_expr(ExprKind::Unary(UnOp::Not, not_column), logical, span);
            let left = me.read_local(kept, span);
            let rows = me.pick_extent(column, left, span);
            let left = me.read_local(kept, span);
            let cols = me.pick_extent(row, left, span);
            me.push(StmtKind::Resize { array, rows, cols }, span);
        });
        self.emitted.last().and_then(|block| block.last().copied())
    }
}

/// The names that one of `functions` deletes elements from, `x(...) = []`: their
/// extents are known only at run time.
pub(super) fn deleted_names(functions: &[ast::Function]) -> HashSet<String> {
    deletions(functions, |_| true)
}

/// The names that one of `functions` deletes rows, columns or pages from, `A(i, :) =
/// []`, `A(:, :, k) = []`: a row's (column's) extent 1 may become 0 too, and a 3-D array's
/// pages vary.
pub(super) fn cut_names(functions: &[ast::Function]) -> HashSet<String> {
    deletions(functions, |args| args.len() >= 2)
}

fn deletions(functions: &[ast::Function], keep: impl Fn(&[ast::Expr]) -> bool) -> HashSet<String> {
    let mut out = HashSet::new();
    for_each_function(functions, &mut |f| {
        walk_stmts(&f.body, &mut |s| {
            if let AstStmt::Assign { targets, value } = &s.kind {
                if let [ast::LValue::Index { base, args, .. }] = targets.as_slice() {
                    if is_empty_matrix(value) && keep(args) {
                        out.insert(base.name.clone());
                    }
                }
            }
        })
    });
    out
}
