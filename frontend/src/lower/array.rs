//! Array values: whole arrays, slices, integral ranges and elementwise operations on them (with
//! scalar and implicit expansion), held as a tree ([`ArrayVal`]) until an assignment writes them
//! out as a loop over their elements.
//!
//! Invariants:
//! - an array value is pure: its element at a position is computed from scalar expressions and
//!   element reads only, so the elements may be computed in any order (which is what lets the
//!   analysis turn the loop into a kernel);
//! - its extents (`rows`, `cols`) are double scalar expressions valid before the loop; operands
//!   whose sizes are not known statically are checked by a `Check` statement emitted before the
//!   loop, with MATLAB's message;
//! - an assignment whose value reads the array being assigned anywhere but at the element being
//!   written goes through a temporary, because MATLAB evaluates the right side first;
//! - expressions are never shared between statements: every element expression is built afresh
//!   (scalar operands are deep-copied with [`Lowerer::copy_expr`]).

use super::Lowerer;
use crate::diag::Span;
use crate::ir::{
    BinOp, Builtin, ExprId, ExprKind, Fill, LocalId, RuntimeError, SizeQuery, StmtId, StmtKind,
    UnOp,
};
use crate::types::{Class, Dim, Shape, Type};

/// A value that is either one scalar expression or an array still to be written out.
#[derive(Clone)]
pub(super) enum Val {
    Scalar(ExprId),
    Array(ArrayVal),
}

#[derive(Clone)]
pub(super) struct ArrayVal {
    pub class: Class,
    pub shape: Shape,
    pub rows: ExprId,
    pub cols: ExprId,
    pub node: Node,
    pub span: Span,
}

#[derive(Clone)]
pub(super) enum Node {
    /// Every element of an array local.
    Whole(LocalId),
    /// `A(s)` or `A(s1, s2)` with at least one subscript that selects several elements.
    Slice(LocalId, Vec<Sub>),
    /// `start:step:stop` with integral start and step: element `p` is `start + (p-1)*step`.
    Range {
        start: ExprId,
        step: ExprId,
    },
    Unary(UnOp, Box<ArrayVal>),
    Binary(BinOp, Operand, Operand),
    Call(Builtin, Vec<Operand>),
    Convert(Box<ArrayVal>),
    Transpose(Box<ArrayVal>),
    /// An operand of implicit expansion, stretched along the extents marked `true` (which are 1)
    /// to the expansion's result, which has `outer_rows` rows (statically `outer_shape`).
    Broadcast {
        inner: Box<ArrayVal>,
        rows: bool,
        cols: bool,
        outer_rows: ExprId,
        outer_shape: Shape,
    },
}

#[derive(Clone)]
pub(super) enum Operand {
    Scalar(ExprId),
    Array(Box<ArrayVal>),
}

/// One subscript of a slice.
#[derive(Clone)]
pub(super) enum Sub {
    Scalar(ExprId),
    /// `:`
    All,
    /// An integral range `start:step:stop`.
    Range {
        start: ExprId,
        step: ExprId,
        stop: ExprId,
    },
    /// A vector of indices held in an array local (`x(idx)`, `A(rows, :)`, or the positions
    /// of a mask's true elements); see `select`.
    Index(LocalId),
}

/// Where in an array an element is: the loop variables of the loop that writes it.
#[derive(Clone, Copy)]
pub(super) enum Pos {
    /// Element `k` of a vector, counted in column-major order.
    Linear(Coord),
    /// Element `(r, c)` of a matrix.
    Grid(Coord, Coord),
}

/// One coordinate of a position: a loop variable, the constant 1 (a broadcast extent), or an
/// expression of loop variables (copied at each use).
#[derive(Clone, Copy)]
pub(super) enum Coord {
    Var(LocalId),
    One,
    At(ExprId),
}

impl Pos {
    pub fn linear(k: LocalId) -> Pos {
        Pos::Linear(Coord::Var(k))
    }

    pub fn grid(r: LocalId, c: LocalId) -> Pos {
        Pos::Grid(Coord::Var(r), Coord::Var(c))
    }

    fn transposed(self) -> Pos {
        match self {
            Pos::Linear(k) => Pos::Linear(k),
            Pos::Grid(r, c) => Pos::Grid(c, r),
        }
    }

    /// The position in an operand that implicit expansion stretches along its unit extents.
    fn broadcast(self, rows: bool, cols: bool) -> Pos {
        match self {
            Pos::Linear(_) if rows && cols => Pos::Linear(Coord::One),
            Pos::Linear(k) => Pos::Linear(k),
            Pos::Grid(r, c) => Pos::Grid(
                if rows { Coord::One } else { r },
                if cols { Coord::One } else { c },
            ),
        }
    }
}

/// The array an assignment writes, and the subscripts of the slice it writes (`None`: all of it).
struct Target<'s> {
    array: LocalId,
    written: Option<&'s [Sub]>,
}

/// Where an assignment writes: every element of a local, or a slice of it.
pub(super) struct Place {
    pub array: LocalId,
    pub subs: Option<Vec<Sub>>,
    pub shape: Shape,
    pub rows: ExprId,
    pub cols: ExprId,
}

/// `val` stretched along the marked extents (unchanged when none is marked) to a result of
/// `outer_rows` rows (statically `outer_shape`).
fn broadcast(
    val: ArrayVal,
    (rows, cols): (bool, bool),
    outer_rows: ExprId,
    outer_shape: Shape,
) -> ArrayVal {
    if !(rows || cols) {
        return val;
    }
    ArrayVal {
        class: val.class,
        shape: val.shape,
        rows: val.rows,
        cols: val.cols,
        span: val.span,
        node: Node::Broadcast {
            inner: Box::new(val),
            rows,
            cols,
            outer_rows,
            outer_shape,
        },
    }
}

/// The index expressions of subscripts that are all scalars.
pub(super) fn scalar_subs(subs: Vec<Sub>) -> Vec<ExprId> {
    subs.into_iter()
        .filter_map(|s| match s {
            Sub::Scalar(e) => Some(e),
            _ => None,
        })
        .collect()
}

impl ArrayVal {
    /// The same extents with another class and node built around this value.
    pub fn wrap(
        self,
        class: Class,
        span: Span,
        node: impl FnOnce(Box<ArrayVal>) -> Node,
    ) -> ArrayVal {
        ArrayVal {
            class,
            shape: self.shape,
            rows: self.rows,
            cols: self.cols,
            span,
            node: node(Box::new(self)),
        }
    }

    pub fn is_vector(&self) -> bool {
        self.shape.is_vector()
    }

    /// Calls `f` on every value of the tree, this one first.
    pub(super) fn visit(&self, f: &mut impl FnMut(&ArrayVal)) {
        f(self);
        let mut operand = |o: &Operand| {
            if let Operand::Array(a) = o {
                a.visit(f)
            }
        };
        match &self.node {
            Node::Unary(_, a) | Node::Convert(a) | Node::Transpose(a) => a.visit(f),
            Node::Broadcast { inner, .. } => inner.visit(f),
            Node::Binary(_, a, b) => {
                operand(a);
                operand(b);
            }
            Node::Call(_, args) => args.iter().for_each(operand),
            Node::Whole(_) | Node::Slice(..) | Node::Range { .. } => {}
        }
    }
}

impl Lowerer<'_> {
    // ----- building values ----------------------------------------------------------------

    /// Every element of an array local. A 3-D array's `cols` extent counts its columns of all
    /// pages together, as MATLAB's two-subscript view does.
    pub(super) fn whole(&mut self, array: LocalId, span: Span) -> ArrayVal {
        let ty = self.locals[array].ty;
        let cols = self.trailing_cols(array, span);
        ArrayVal {
            class: ty.class,
            shape: ty.shape,
            rows: self.size_of(array, 1, span),
            cols,
            node: Node::Whole(array),
            span,
        }
    }

    /// Reports `what` on a 3-D value; 3-D arrays support element access, slices, elementwise
    /// operations, `squeeze` and `zeros`/`ones` only.
    pub(super) fn reject_3d(&mut self, a: &ArrayVal, what: &str) -> Option<()> {
        if !a.shape.is_3d() {
            return Some(());
        }
        self.unsupported(
            a.span,
            &format!("{what} of a 3-D array"),
            "3-D arrays support A(i, j, k), A(k), A(:), slices such as A(:, :, k), elementwise operations, reductions such as sum(A, 3), squeeze and zeros/ones(m, n, p); loop over the pages for the rest",
        );
        None
    }

    fn pages_of(&mut self, val: &ArrayVal, span: Span) -> ExprId {
        match self.page_extents(val) {
            Some((_, pages)) => pages,
            None => self.constant_expr(1.0, Class::Double, span),
        }
    }

    pub(super) fn size_of(&mut self, array: LocalId, dim: u8, span: Span) -> ExprId {
        self.new_expr(
            ExprKind::Size(array, SizeQuery::Dim(dim)),
            Type::scalar(Class::Double),
            span,
        )
    }

    /// An integral range as a row vector; `None` when start or step may be fractional (the
    /// caller then materializes it with a `for` loop, which follows the colon rule exactly).
    pub(super) fn integral_range(
        &mut self,
        start: ExprId,
        step: ExprId,
        stop: ExprId,
        span: Span,
    ) -> Option<ArrayVal> {
        if !(self.is_integral(start) && self.is_integral(step)) {
            return None;
        }
        let count = self.new_expr(
            ExprKind::RangeCount(start, step, stop),
            Type::scalar(Class::Double),
            span,
        );
        let (start, step) = (self.copy_expr(start), self.copy_expr(step));
        Some(ArrayVal {
            class: Class::Double,
            shape: Shape::new(Dim::Known(1), self.static_count(count)),
            rows: self.constant_expr(1.0, Class::Double, span),
            cols: count,
            node: Node::Range { start, step },
            span,
        })
    }

    fn static_count(&self, count: ExprId) -> Dim {
        let ExprKind::RangeCount(a, s, b) = self.exprs[count].kind else {
            return Dim::Var;
        };
        match (self.const_of(a), self.const_of(s), self.const_of(b)) {
            (Some(a), Some(s), Some(b)) if s != 0.0 => {
                let n = ((b - a) / s).floor() + 1.0;
                Dim::Known(if n > 0.0 { n as u64 } else { 0 })
            }
            _ => Dim::Var,
        }
    }

    /// The static extent of a range subscript: as [`Self::static_count`], and also when both
    /// bounds are one expression plus constants (`j-1:j+1` has 3 elements). A subscript holds
    /// whole numbers or the program stops, and below 2^53 their difference is exactly the
    /// constants'.
    fn subscript_count(&self, count: ExprId) -> Dim {
        let ExprKind::RangeCount(a, s, b) = self.exprs[count].kind else {
            return Dim::Var;
        };
        if let known @ Dim::Known(_) = self.static_count(count) {
            return known;
        }
        let Some(step) = self.const_of(s).filter(|&s| s != 0.0) else {
            return Dim::Var;
        };
        let ((x, from), (y, to)) = (self.base_and_offset(a), self.base_and_offset(b));
        if !crate::ir::same_expr(&self.exprs, x, y) {
            return Dim::Var;
        }
        let n = ((to - from) / step).floor() + 1.0;
        Dim::Known(if n > 0.0 { n as u64 } else { 0 })
    }

    /// `e` as `base + offset` with a constant offset (`j - 1` is `j` and -1; anything else is
    /// itself and 0).
    fn base_and_offset(&self, e: ExprId) -> (ExprId, f64) {
        match self.exprs[e].kind {
            ExprKind::Binary(BinOp::Add, x, c) if self.const_of(c).is_some() => {
                (x, self.const_of(c).unwrap_or_default())
            }
            ExprKind::Binary(BinOp::Add, c, x) if self.const_of(c).is_some() => {
                (x, self.const_of(c).unwrap_or_default())
            }
            ExprKind::Binary(BinOp::Sub, x, c) if self.const_of(c).is_some() => {
                (x, -self.const_of(c).unwrap_or_default())
            }
            _ => (e, 0.0),
        }
    }

    /// `A(subs)` where at least one subscript selects several elements.
    pub(super) fn slice(&mut self, array: LocalId, subs: Vec<Sub>, span: Span) -> ArrayVal {
        let ty = self.locals[array].ty;
        let (shape, rows, cols) = match subs.as_slice() {
            [only] => self.linear_slice_extent(array, only, span),
            [_, _, _] => self.page_slice_extent(array, &subs, span),
            _ => {
                let (r, rd) = self.sub_extent(array, &subs[0], 1, span);
                let (c, cd) = match (&subs[1], subs.len()) {
                    (Sub::All, 2) => (
                        self.trailing_cols(array, span),
                        self.trailing_cols_dim(array),
                    ),
                    (sub, _) => self.sub_extent(array, sub, 2, span),
                };
                (Shape::new(rd, cd), r, c)
            }
        };
        ArrayVal {
            class: ty.class,
            shape,
            rows,
            cols,
            node: Node::Slice(array, subs),
            span,
        }
    }

    /// The extents of `A(s)`: a vector with `A`'s orientation, a column for `A(:)`, a row when
    /// `A` is a matrix.
    fn linear_slice_extent(
        &mut self,
        array: LocalId,
        sub: &Sub,
        span: Span,
    ) -> (Shape, ExprId, ExprId) {
        if let Sub::Index(idx) = sub {
            return self.gather_extent(array, *idx, span);
        }
        let shape = self.locals[array].ty.shape;
        let (n, nd) = self.sub_extent(array, sub, 0, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let column =
            matches!(sub, Sub::All) || (shape.cols == Dim::Known(1) && shape.rows != Dim::Known(1));
        if column {
            return (Shape::new(nd, Dim::Known(1)), n, one);
        }
        if shape.rows == Dim::Known(1)
            || matches!((shape.rows, shape.cols), (Dim::Known(_), Dim::Known(_)))
        {
            return (Shape::new(Dim::Known(1), nd), one, n);
        }
        // A vector or a matrix only the running program knows: a column exactly when `A` is
        // a column vector.
        let is_column = self.is_column_at_run_time(array, span);
        let n2 = self.copy_expr(n);
        let rows = self.pick_extent(is_column, n, span);
        let is_column2 = self.copy_expr(is_column);
        let not_column = self.new_expr(
            ExprKind::Unary(UnOp::Not, is_column2),
            Type::scalar(Class::Logical),
            span,
        );
        let cols = self.pick_extent(not_column, n2, span);
        (Shape::new(Dim::Var, Dim::Var), rows, cols)
    }

    pub(super) fn is_column_at_run_time(&mut self, array: LocalId, span: Span) -> ExprId {
        let one = self.constant_expr(1.0, Class::Double, span);
        let cols = self.size_of(array, 2, span);
        let one_col = self.binary_expr(BinOp::Eq, cols, one, Class::Logical, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let rows = self.size_of(array, 1, span);
        let many_rows = self.binary_expr(BinOp::Ne, rows, one, Class::Logical, span);
        let column = self.binary_expr(BinOp::And, one_col, many_rows, Class::Logical, span);
        if !self.locals[array].ty.shape.is_3d() {
            return column;
        }
        let one = self.constant_expr(1.0, Class::Double, span);
        let pages = self.size_of(array, 3, span);
        let one_page = self.binary_expr(BinOp::Eq, pages, one, Class::Logical, span);
        self.binary_expr(BinOp::And, column, one_page, Class::Logical, span)
    }

    /// `1 + cond*(n - 1)`: `n` when `cond` holds, else 1.
    pub(super) fn pick_extent(&mut self, cond: ExprId, n: ExprId, span: Span) -> ExprId {
        let one = self.constant_expr(1.0, Class::Double, span);
        let n_less = self.binary_expr(BinOp::Sub, n, one, Class::Double, span);
        let scaled = self.binary_expr(BinOp::Mul, cond, n_less, Class::Double, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        self.binary_expr(BinOp::Add, one, scaled, Class::Double, span)
    }

    /// How many elements a subscript selects; `dim` is 1, 2 or 3 for a row, column or page
    /// subscript, 0 for a linear one.
    pub(super) fn sub_extent(
        &mut self,
        array: LocalId,
        sub: &Sub,
        dim: u8,
        span: Span,
    ) -> (ExprId, Dim) {
        let shape = self.locals[array].ty.shape;
        match sub {
            Sub::Scalar(_) => (self.constant_expr(1.0, Class::Double, span), Dim::Known(1)),
            Sub::All if dim == 0 => {
                let n = self.new_expr(
                    ExprKind::Size(array, SizeQuery::Numel),
                    Type::scalar(Class::Double),
                    span,
                );
                let known = match (shape.rows, self.trailing_cols_dim(array)) {
                    (Dim::Known(r), Dim::Known(c)) => Dim::Known(r * c),
                    _ => Dim::Var,
                };
                (n, known)
            }
            Sub::All => {
                let known = match dim {
                    1 => shape.rows,
                    2 => shape.cols,
                    _ => shape.pages,
                };
                (self.size_of(array, dim, span), known)
            }
            Sub::Range { start, step, stop } => {
                let (a, s, b) = (
                    self.copy_expr(*start),
                    self.copy_expr(*step),
                    self.copy_expr(*stop),
                );
                let count = self.new_expr(
                    ExprKind::RangeCount(a, s, b),
                    Type::scalar(Class::Double),
                    span,
                );
                (count, self.subscript_count(count))
            }
            Sub::Index(idx) => self.index_count(*idx, span),
        }
    }

    /// Combines two operands of an elementwise operation, checking that their sizes agree.
    pub(super) fn elementwise(
        &mut self,
        op: BinOp,
        a: Operand,
        b: Operand,
        class: Class,
        span: Span,
    ) -> Option<ArrayVal> {
        let (a, b) = self.settle_elementwise_narrowing(op, a, b, span)?;
        let (a, b) = (
            self.settle_element_read(a, span),
            self.settle_element_read(b, span),
        );
        if let (Operand::Array(x), Operand::Array(y)) = (&a, &b) {
            if let Some(expanded) = self.implicit_expansion(op, x, y, class, span) {
                return expanded;
            }
        }
        let (rows, cols, shape) = match (&a, &b) {
            (Operand::Array(x), Operand::Array(y)) => {
                self.check_same_size(x, y, span)?;
                (x.rows, x.cols, x.shape)
            }
            (Operand::Array(x), Operand::Scalar(_)) | (Operand::Scalar(_), Operand::Array(x)) => {
                (x.rows, x.cols, x.shape)
            }
            (Operand::Scalar(_), Operand::Scalar(_)) => return None,
        };
        let (rows, cols) = (self.copy_expr(rows), self.copy_expr(cols));
        Some(ArrayVal {
            class,
            shape,
            rows,
            cols,
            node: Node::Binary(op, a, b),
            span,
        })
    }

    /// A scalar operand that reads an array element (`dd(1)` in `dd .* 2 + dd(1)`), held in a
    /// temporary now: MATLAB evaluates it once, before the elements, so a bad index fails even
    /// when the array operand has no elements (written into the element loop, it was never
    /// evaluated then).
    fn settle_element_read(&mut self, o: Operand, span: Span) -> Operand {
        let Operand::Scalar(e) = o else {
            return o;
        };
        let mut reads = false;
        self.tree().walk_expr(e, &mut |x| {
            reads |= matches!(self.exprs[x].kind, ExprKind::Index(..))
        });
        if !reads {
            return Operand::Scalar(e);
        }
        let held = self.held_scalar("s", e, span);
        Operand::Scalar(self.read_local(held, span))
    }

    /// MATLAB's implicit expansion of two 2-D operands: an extent known to be 1 on one side
    /// stretches to the other side's extent (`A - mean(A)`, `col + row`). `None` when neither
    /// operand stretches; extents that are not 1 statically must still agree.
    fn implicit_expansion(
        &mut self,
        op: BinOp,
        x: &ArrayVal,
        y: &ArrayVal,
        class: Class,
        span: Span,
    ) -> Option<Option<ArrayVal>> {
        let unit = |d: Dim| d == Dim::Known(1);
        let stretch = |p: Dim, q: Dim| (unit(p) && !unit(q), unit(q) && !unit(p));
        let (x_rows, y_rows) = stretch(x.shape.rows, y.shape.rows);
        let (x_cols, y_cols) = stretch(x.shape.cols, y.shape.cols);
        if x.shape.is_3d() || y.shape.is_3d() || !(x_rows || y_rows || x_cols || y_cols) {
            return None;
        }
        let rows_from = if x_rows { y } else { x };
        let cols_from = if x_cols { y } else { x };
        let checked = (x_rows
            || y_rows
            || self.check_extent(x.shape.rows, y.shape.rows, (x.rows, y.rows), span))
            && (x_cols
                || y_cols
                || self.check_extent(x.shape.cols, y.shape.cols, (x.cols, y.cols), span));
        if !checked {
            return Some(None);
        }
        let shape = Shape::new(rows_from.shape.rows, cols_from.shape.cols);
        let (rows, cols) = (
            self.copy_expr(rows_from.rows),
            self.copy_expr(cols_from.cols),
        );
        let a = Operand::Array(Box::new(broadcast(
            x.clone(),
            (x_rows, x_cols),
            rows,
            shape,
        )));
        let b = Operand::Array(Box::new(broadcast(
            y.clone(),
            (y_rows, y_cols),
            rows,
            shape,
        )));
        Some(Some(ArrayVal {
            class,
            shape,
            rows,
            cols,
            node: Node::Binary(op, a, b),
            span,
        }))
    }

    /// One extent that must agree: an error when it differs statically, a run-time check when
    /// it may. Returns whether it may agree.
    fn check_extent(&mut self, p: Dim, q: Dim, (e, f): (ExprId, ExprId), span: Span) -> bool {
        match (p, q) {
            (Dim::Known(a), Dim::Known(b)) if a != b => {
                self.error(
                    "E0110",
                    span,
                    format!(
                        "arrays have incompatible sizes for this operation: extents {a} and {b}"
                    ),
                    "make the extents equal, or 1 on one side (implicit expansion)".into(),
                );
                false
            }
            (Dim::Known(_), Dim::Known(_)) => true,
            _ => {
                let cond = self.extents_agree((e, p), (f, q), span);
                self.size_check(cond, span);
                true
            }
        }
    }

    /// Reports sizes that differ statically, and emits a run-time check for sizes that may.
    pub(super) fn check_same_size(&mut self, x: &ArrayVal, y: &ArrayVal, span: Span) -> Option<()> {
        let differ = |p: Dim, q: Dim| matches!((p, q), (Dim::Known(a), Dim::Known(b)) if a != b);
        if differ(x.shape.rows, y.shape.rows)
            || differ(x.shape.cols, y.shape.cols)
            || differ(x.shape.pages, y.shape.pages)
        {
            self.error(
                "E0110",
                span,
                format!(
                    "arrays have incompatible sizes for this operation: {} and {}",
                    x.shape, y.shape
                ),
                "make the operands the same size; implicit expansion (row with column) is not supported"
                    .into(),
            );
            return None;
        }
        let known = |s: Shape| matches!((s.rows, s.cols), (Dim::Known(_), Dim::Known(_)));
        if known(x.shape) && x.shape == y.shape {
            return Some(());
        }
        let rows_equal = self.extents_agree((x.rows, x.shape.rows), (y.rows, y.shape.rows), span);
        let cols_equal = self.extents_agree((x.cols, x.shape.cols), (y.cols, y.shape.cols), span);
        let mut cond = self.binary_expr(BinOp::And, rows_equal, cols_equal, Class::Logical, span);
        if x.shape.is_3d() || y.shape.is_3d() {
            let (px, py) = (self.pages_of(x, span), self.pages_of(y, span));
            let pages_equal = self.binary_expr(BinOp::Eq, px, py, Class::Logical, span);
            cond = self.binary_expr(BinOp::And, cond, pages_equal, Class::Logical, span);
        }
        self.size_check(cond, span);
        Some(())
    }

    /// Emits a run-time check that stops with MATLAB's size error unless `cond` holds.
    pub(super) fn size_check(&mut self, cond: ExprId, span: Span) {
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::SizeMismatch,
            },
            span,
        );
    }

    /// Emits a run-time check that `n` (a count) is positive, for `max`/`min`.
    pub(super) fn nonempty_check(&mut self, n: ExprId, span: Span) {
        let zero = self.constant_expr(0.0, Class::Double, span);
        let cond = self.binary_expr(BinOp::Gt, n, zero, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::EmptyExtreme,
            },
            span,
        );
    }

    /// The condition that extents `a` and `b` (statically `p` and `q`) are equal, after a
    /// run-time check that stops with [`RuntimeError::RunTimeExpansion`] when they differ and
    /// one of them is 1 (MATLAB would expand that operand; the size check would call the sizes
    /// incompatible). Two extents known when translating need no check.
    fn extents_agree(
        &mut self,
        (a, p): (ExprId, Dim),
        (b, q): (ExprId, Dim),
        span: Span,
    ) -> ExprId {
        if matches!((p, q), (Dim::Known(_), Dim::Known(_))) {
            return self.equal_extents(a, b, span);
        }
        let unit = |me: &mut Self, e: ExprId| {
            let e = me.copy_expr(e);
            let one = me.constant_expr(1.0, Class::Double, span);
            me.binary_expr(BinOp::Ne, e, one, Class::Logical, span)
        };
        let (a_not_one, b_not_one) = (unit(self, a), unit(self, b));
        let neither = self.binary_expr(BinOp::And, a_not_one, b_not_one, Class::Logical, span);
        let equal = self.equal_extents(a, b, span);
        let cond = self.binary_expr(BinOp::Or, equal, neither, Class::Logical, span);
        self.expansion_check(cond, span);
        self.equal_extents(a, b, span)
    }

    /// Emits a run-time check that stops with [`RuntimeError::RunTimeExpansion`] unless `cond`
    /// holds.
    pub(super) fn expansion_check(&mut self, cond: ExprId, span: Span) {
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::RunTimeExpansion,
            },
            span,
        );
    }

    fn equal_extents(&mut self, a: ExprId, b: ExprId, span: Span) -> ExprId {
        let (a, b) = (self.copy_expr(a), self.copy_expr(b));
        self.binary_expr(BinOp::Eq, a, b, Class::Logical, span)
    }

    // ----- elements -----------------------------------------------------------------------

    /// The element of `val` at `pos`, as a fresh scalar expression.
    pub(super) fn element(&mut self, val: &ArrayVal, pos: Pos) -> ExprId {
        let span = val.span;
        let scalar = self.element_type(val);
        match &val.node {
            Node::Whole(array) => {
                let indices = self.pos_indices(pos, span);
                self.new_expr(ExprKind::Index(*array, indices), scalar, span)
            }
            Node::Slice(array, subs) => {
                let indices = self.slice_indices(*array, subs, pos, val, span);
                self.new_expr(ExprKind::Index(*array, indices), scalar, span)
            }
            Node::Range { start, step } => {
                let p = self.linear_pos(pos, span);
                self.range_element(*start, *step, p, span)
            }
            Node::Unary(UnOp::Neg, a) if scalar.complex => {
                let a = self.element(a, pos);
                self.complex_negation(a, span)
            }
            Node::Unary(op, a) => {
                let a = self.element(a, pos);
                self.new_expr(ExprKind::Unary(*op, a), scalar, span)
            }
            Node::Binary(op, a, b) => {
                let a = self.operand_element(a, pos);
                let b = self.operand_element(b, pos);
                if self.exprs[a].ty.complex || self.exprs[b].ty.complex {
                    return self.complex_element_binary(*op, a, b, span);
                }
                self.new_expr(ExprKind::Binary(*op, a, b), scalar, span)
            }
            Node::Call(builtin, args) => {
                let args: Vec<ExprId> = args.iter().map(|a| self.operand_element(a, pos)).collect();
                if *builtin == Builtin::Complex || args.iter().any(|&a| self.exprs[a].ty.complex) {
                    return self.complex_element_call(*builtin, args, span);
                }
                self.new_expr(ExprKind::Call(*builtin, args), scalar, span)
            }
            Node::Convert(a) => {
                let a = self.element(a, pos);
                self.new_expr(ExprKind::Convert(a), scalar, span)
            }
            Node::Transpose(a) => self.element(a, pos.transposed()),
            Node::Broadcast {
                inner,
                rows,
                cols,
                outer_rows,
                outer_shape,
            } => {
                let pos = match pos {
                    Pos::Linear(k) if rows != cols => {
                        self.stretched_linear(k, *rows, (*outer_rows, *outer_shape), span)
                    }
                    pos => pos.broadcast(*rows, *cols),
                };
                self.element(inner, pos)
            }
        }
    }

    fn operand_element(&mut self, o: &Operand, pos: Pos) -> ExprId {
        match o {
            Operand::Scalar(e) => self.copy_expr(*e),
            Operand::Array(a) => self.element(a, pos),
        }
    }

    fn local_expr(&mut self, coord: Coord, span: Span) -> ExprId {
        match coord {
            Coord::Var(local) => {
                let ty = self.locals[local].ty;
                self.new_expr(ExprKind::Local(local), ty, span)
            }
            Coord::One => self.constant_expr(1.0, Class::Double, span),
            Coord::At(e) => self.copy_expr(e),
        }
    }

    /// The position in an operand stretched along one extent (its rows when `rows`, else its
    /// columns) of element `k`, counted column-major, of an expansion's result with
    /// `outer_rows` rows: a row stretched down the result is read at `k`'s column, a column
    /// stretched across it at `k`'s row. Along a result extent known to be 1 the stretch is
    /// none, and the operand is read at `k`.
    fn stretched_linear(
        &mut self,
        k: Coord,
        rows: bool,
        (outer_rows, outer_shape): (ExprId, Shape),
        span: Span,
    ) -> Pos {
        let unit = |d: Dim| d == Dim::Known(1);
        if (rows && unit(outer_shape.rows)) || (!rows && unit(outer_shape.cols)) {
            return Pos::Linear(k);
        }
        let k0 = {
            let k = self.local_expr(k, span);
            let one = self.constant_expr(1.0, Class::Double, span);
            self.binary_expr(BinOp::Sub, k, one, Class::Double, span)
        };
        let outer_rows = self.copy_expr(outer_rows);
        let double = Type::scalar(Class::Double);
        let zero_based = match rows {
            true => {
                let q = self.binary_expr(BinOp::Div, k0, outer_rows, Class::Double, span);
                self.new_expr(ExprKind::Call(Builtin::Fix, vec![q]), double, span)
            }
            false => self.new_expr(
                ExprKind::Call(Builtin::Mod, vec![k0, outer_rows]),
                double,
                span,
            ),
        };
        let one = self.constant_expr(1.0, Class::Double, span);
        let p = self.binary_expr(BinOp::Add, zero_based, one, Class::Double, span);
        Pos::Linear(Coord::At(p))
    }

    /// Indices of element `pos` of a whole array: `A(k)` or `A(r, c)`.
    fn pos_indices(&mut self, pos: Pos, span: Span) -> Vec<ExprId> {
        match pos {
            Pos::Linear(k) => vec![self.local_expr(k, span)],
            Pos::Grid(r, c) => vec![self.local_expr(r, span), self.local_expr(c, span)],
        }
    }

    /// The position counted along a vector: `k`, or `r + c - 1` in a grid (one of them is 1).
    fn linear_pos(&mut self, pos: Pos, span: Span) -> ExprId {
        match pos {
            Pos::Linear(k) => self.local_expr(k, span),
            Pos::Grid(r, c) => {
                let (r, c) = (self.local_expr(r, span), self.local_expr(c, span));
                let sum = self.binary_expr(BinOp::Add, r, c, Class::Double, span);
                let one = self.constant_expr(1.0, Class::Double, span);
                self.binary_expr(BinOp::Sub, sum, one, Class::Double, span)
            }
        }
    }

    fn range_element(&mut self, start: ExprId, step: ExprId, p: ExprId, span: Span) -> ExprId {
        let one = self.constant_expr(1.0, Class::Double, span);
        let offset = self.binary_expr(BinOp::Sub, p, one, Class::Double, span);
        let step = self.copy_expr(step);
        let scaled = self.binary_expr(BinOp::Mul, offset, step, Class::Double, span);
        let start = self.copy_expr(start);
        self.binary_expr(BinOp::Add, start, scaled, Class::Double, span)
    }

    pub(super) fn sub_at(&mut self, sub: &Sub, p: ExprId, span: Span) -> ExprId {
        match sub {
            Sub::Scalar(e) => self.copy_expr(*e),
            Sub::All => p,
            Sub::Range { start, step, .. } => self.range_element(*start, *step, p, span),
            Sub::Index(idx) => {
                let ty = Type::scalar(self.locals[*idx].ty.class);
                self.new_expr(ExprKind::Index(*idx, vec![p]), ty, span)
            }
        }
    }

    fn slice_indices(
        &mut self,
        array: LocalId,
        subs: &[Sub],
        pos: Pos,
        val: &ArrayVal,
        span: Span,
    ) -> Vec<ExprId> {
        if let [only] = subs {
            let p = self.linear_pos(pos, span);
            return vec![self.sub_at(only, p, span)];
        }
        if let (Pos::Linear(Coord::Var(k)), true) = (pos, val.shape.is_3d()) {
            let [r, c, p] = self.page_slice_position(array, subs, k, val.rows, span);
            return vec![
                self.sub_at(&subs[0], r, span),
                self.sub_at(&subs[1], c, span),
                self.sub_at(&subs[2], p, span),
            ];
        }
        let (r, c) = self.row_col(pos, &subs[0], val, span);
        let mut indices = vec![
            self.sub_at(&subs[0], r, span),
            self.sub_at(&subs[1], c, span),
        ];
        if let Some(page) = subs.get(2) {
            let first = self.constant_expr(1.0, Class::Double, span);
            indices.push(self.sub_at(page, first, span));
        }
        indices
    }

    /// The row and column within a two-subscript slice of element `pos`.
    fn row_col(&mut self, pos: Pos, first: &Sub, val: &ArrayVal, span: Span) -> (ExprId, ExprId) {
        let k = match pos {
            Pos::Grid(r, c) => return (self.local_expr(r, span), self.local_expr(c, span)),
            Pos::Linear(k) => k,
        };
        let one = || Dim::Known(1);
        if matches!(first, Sub::Scalar(_)) || val.shape.rows == one() {
            let one = self.constant_expr(1.0, Class::Double, span);
            return (one, self.local_expr(k, span));
        }
        if val.shape.cols == one() {
            let one = self.constant_expr(1.0, Class::Double, span);
            return (self.local_expr(k, span), one);
        }
        // A vector slice of unknown orientation: r = mod(k-1, rows) + 1, c = fix((k-1)/rows) + 1.
        let k0 = |me: &mut Self| {
            let k = me.local_expr(k, span);
            let one = me.constant_expr(1.0, Class::Double, span);
            me.binary_expr(BinOp::Sub, k, one, Class::Double, span)
        };
        let (a, rows) = (k0(self), self.copy_expr(val.rows));
        let m = self.new_expr(
            ExprKind::Call(Builtin::Mod, vec![a, rows]),
            Type::scalar(Class::Double),
            span,
        );
        let one = self.constant_expr(1.0, Class::Double, span);
        let r = self.binary_expr(BinOp::Add, m, one, Class::Double, span);
        let (a, rows) = (k0(self), self.copy_expr(val.rows));
        let q = self.binary_expr(BinOp::Div, a, rows, Class::Double, span);
        let q = self.new_expr(
            ExprKind::Call(Builtin::Fix, vec![q]),
            Type::scalar(Class::Double),
            span,
        );
        let one = self.constant_expr(1.0, Class::Double, span);
        let c = self.binary_expr(BinOp::Add, q, one, Class::Double, span);
        (r, c)
    }

    // ----- writing values -----------------------------------------------------------------

    /// `numel(array)`, a fresh expression.
    pub(super) fn numel_of(&mut self, array: LocalId, span: Span) -> ExprId {
        let double = Type::scalar(Class::Double);
        self.new_expr(ExprKind::Size(array, SizeQuery::Numel), double, span)
    }

    /// Whether `val` reads `array` other than as the same element of the whole array.
    pub(super) fn reads_elsewhere(&self, val: &ArrayVal, array: LocalId) -> bool {
        let mut found = false;
        let target = Target {
            array,
            written: None,
        };
        self.scan_reads(val, &target, false, &mut found);
        found
    }

    /// Whether `val`, written into `array(written)`, reads `array` other than at the element
    /// being written: `A(:, :, k) = A(:, :, k) * 2` reads each element where it writes it.
    pub(super) fn reads_other_than(&self, val: &ArrayVal, array: LocalId, written: &[Sub]) -> bool {
        let mut found = false;
        let target = Target {
            array,
            written: Some(written),
        };
        self.scan_reads(val, &target, false, &mut found);
        found
    }

    fn scan_reads(&self, val: &ArrayVal, target: &Target, transposed: bool, found: &mut bool) {
        let array = target.array;
        let scalar_mentions = |e: ExprId| self.mentions(e, array);
        match &val.node {
            Node::Whole(a) => *found |= *a == array && (transposed || target.written.is_some()),
            Node::Slice(a, subs) => {
                let same_place =
                    !transposed && target.written.is_some_and(|w| self.same_subs(w, subs));
                *found |= (*a == array && !same_place)
                    || subs.iter().any(|s| match s {
                        Sub::Scalar(e) => scalar_mentions(*e),
                        Sub::All => false,
                        Sub::Index(idx) => *idx == array,
                        Sub::Range { start, step, .. } => {
                            scalar_mentions(*start) || scalar_mentions(*step)
                        }
                    })
            }
            Node::Range { start, step } => {
                *found |= scalar_mentions(*start) || scalar_mentions(*step)
            }
            Node::Unary(_, a) | Node::Convert(a) => self.scan_reads(a, target, transposed, found),
            // Transposed or stretched, a read of the target meets other elements than the write.
            Node::Transpose(a) | Node::Broadcast { inner: a, .. } => {
                self.scan_reads(a, target, true, found)
            }
            Node::Binary(_, a, b) => {
                for o in [a, b] {
                    self.scan_operand(o, target, transposed, found);
                }
            }
            Node::Call(_, args) => {
                for o in args {
                    self.scan_operand(o, target, transposed, found);
                }
            }
        }
    }

    fn scan_operand(&self, o: &Operand, target: &Target, transposed: bool, found: &mut bool) {
        match o {
            Operand::Scalar(e) => *found |= self.mentions(*e, target.array),
            Operand::Array(a) => self.scan_reads(a, target, transposed, found),
        }
    }

    /// Whether two subscript lists select the same elements in the same order.
    fn same_subs(&self, p: &[Sub], q: &[Sub]) -> bool {
        let same = |a: ExprId, b: ExprId| crate::ir::same_expr(&self.exprs, a, b);
        p.len() == q.len()
            && p.iter().zip(q).all(|pair| match pair {
                (Sub::All, Sub::All) => true,
                (Sub::Scalar(a), Sub::Scalar(b)) => same(*a, *b),
                (
                    Sub::Range { start, step, stop },
                    Sub::Range {
                        start: s2,
                        step: t2,
                        stop: e2,
                    },
                ) => same(*start, *s2) && same(*step, *t2) && same(*stop, *e2),
                _ => false,
            })
    }

    /// Whether a scalar expression reads elements of `array` (its size does not count).
    pub(super) fn mentions(&self, e: ExprId, array: LocalId) -> bool {
        match &self.exprs[e].kind {
            ExprKind::Index(a, args) => {
                *a == array || args.iter().any(|&x| self.mentions(x, array))
            }
            ExprKind::Local(l) => *l == array,
            ExprKind::Unary(_, a) | ExprKind::Convert(a) => self.mentions(*a, array),
            ExprKind::Binary(_, a, b) => self.mentions(*a, array) || self.mentions(*b, array),
            ExprKind::Call(_, args) | ExprKind::Combine(_, args) => {
                args.iter().any(|&x| self.mentions(x, array))
            }
            ExprKind::RangeCount(a, s, b) => [a, s, b].iter().any(|&&x| self.mentions(x, array)),
            ExprKind::Const(_) | ExprKind::Size(..) => false,
        }
    }

    /// Whether the value reads the whole array `array` at all (used for in-place writes).
    pub(super) fn reads_whole(&self, val: &ArrayVal, array: LocalId) -> bool {
        let mut found = false;
        val.visit(&mut |v| found |= matches!(v.node, Node::Whole(a) if a == array));
        found
    }

    /// The local that holds `a`: its own when `a` is a whole array, else a new temporary
    /// written from it.
    pub(super) fn whole_local(&mut self, a: &ArrayVal) -> LocalId {
        match a.node {
            Node::Whole(local) => local,
            _ => self.materialize(a),
        }
    }

    /// A new one-element row temporary holding the scalar `e`, for functions that read their
    /// argument as an array.
    pub(super) fn scalar_row_local(&mut self, e: ExprId, span: Span) -> LocalId {
        let ty = Type::array(self.exprs[e].ty.class, Shape::new(Dim::Known(1), Dim::Var));
        match self.row_temp("v", ty, vec![e], span) {
            Val::Array(a) => self.whole_local(&a),
            Val::Scalar(_) => unreachable!("row_temp makes an array"),
        }
    }

    /// `size(array, query) op value`, a logical.
    pub(super) fn size_compared(
        &mut self,
        array: LocalId,
        query: SizeQuery,
        op: BinOp,
        value: f64,
        span: Span,
    ) -> ExprId {
        let double = Type::scalar(Class::Double);
        let size = self.new_expr(ExprKind::Size(array, query), double, span);
        let value = self.constant_expr(value, Class::Double, span);
        self.binary_expr(op, size, value, Class::Logical, span)
    }

    /// Writes `val` into a new temporary array and returns it.
    pub(super) fn materialize(&mut self, val: &ArrayVal) -> LocalId {
        let ty = self.array_type(val);
        let temp = self.temp("t", ty, val.span);
        self.alloc_for(temp, val);
        let place = self.whole_place(temp, val.span);
        self.write_loop(&place, &Val::Array(val.clone()), val.span);
        temp
    }

    /// Emits `array = zeros(rows, cols)` with the extents of `val`.
    /// `target = zeros(rows, cols[, pages])`.
    pub(super) fn alloc_zeros(
        &mut self,
        target: LocalId,
        rows: ExprId,
        cols: ExprId,
        pages: Option<ExprId>,
        span: Span,
    ) {
        self.push(
            StmtKind::Alloc {
                target,
                fill: Fill::Zeros,
                rows,
                cols,
                pages,
            },
            span,
        );
    }

    /// A new temporary `stem` of type `ty` (a row) holding `values` (scalar expressions) in
    /// order: `zeros(1, n)`, then one store per element.
    pub(super) fn row_temp(
        &mut self,
        stem: &str,
        ty: Type,
        values: Vec<ExprId>,
        span: Span,
    ) -> Val {
        let row = self.temp(stem, ty, span);
        let rows = self.constant_expr(1.0, Class::Double, span);
        let cols = self.constant_expr(values.len() as f64, Class::Double, span);
        self.alloc_zeros(row, rows, cols, None, span);
        for (q, value) in values.into_iter().enumerate() {
            let at = self.constant_expr((q + 1) as f64, Class::Double, span);
            self.push(
                StmtKind::Store {
                    array: row,
                    indices: vec![at],
                    value,
                },
                span,
            );
        }
        Val::Array(self.whole(row, span))
    }

    pub(super) fn alloc_for(&mut self, array: LocalId, val: &ArrayVal) {
        let (rows, cols, pages) = self.extents_of(val);
        self.alloc_zeros(array, rows, cols, pages, val.span);
    }

    pub(super) fn whole_place(&mut self, array: LocalId, span: Span) -> Place {
        let whole = self.whole(array, span);
        Place {
            array,
            subs: None,
            shape: whole.shape,
            rows: whole.rows,
            cols: whole.cols,
        }
    }

    /// Emits the loop `place(p) = value(p)` over every position of `place`.
    pub(super) fn write_loop(&mut self, place: &Place, value: &Val, span: Span) -> Option<StmtId> {
        // Vectors and 3-D arrays are written in one linear loop; matrices row by column.
        let vector = place.shape.is_vector()
            || place.shape.is_3d()
            || matches!(value, Val::Array(v) if v.is_vector() || v.shape.is_3d());
        if vector {
            let rows = self.copy_expr(place.rows);
            let cols = self.copy_expr(place.cols);
            let n = self.binary_expr(BinOp::Mul, rows, cols, Class::Double, span);
            self.counted_loop("k", n, span, |me, k| {
                me.store_element(place, value, Pos::linear(k), span)
            })
        } else {
            let (r, c) = (
                self.counting_loop_var("r", span),
                self.counting_loop_var("c", span),
            );
            let rows = self.copy_expr(place.rows);
            self.open_block();
            self.store_element(place, value, Pos::grid(r, c), span);
            let inner = self.close_block();
            self.open_block();
            self.emit_for(r, rows, inner, span);
            let outer = self.close_block();
            let cols = self.copy_expr(place.cols);
            self.emit_for(c, cols, outer, span)
        }
    }

    fn store_element(&mut self, place: &Place, value: &Val, pos: Pos, span: Span) {
        let value = match value {
            Val::Scalar(e) => self.copy_expr(*e),
            Val::Array(v) => self.element(v, pos),
        };
        let class = self.locals[place.array].ty.class;
        let value = self.stored_value(place.array, value);
        let shape_val = ArrayVal {
            class,
            shape: place.shape,
            rows: place.rows,
            cols: place.cols,
            node: Node::Whole(place.array),
            span,
        };
        let indices = match &place.subs {
            None => self.pos_indices(pos, span),
            Some(subs) => self.slice_indices(place.array, subs, pos, &shape_val, span),
        };
        self.push(
            StmtKind::Store {
                array: place.array,
                indices,
                value,
            },
            span,
        );
    }
}
