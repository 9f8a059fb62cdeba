//! Indexing with as many subscripts as MATLAB allows, whatever the array's dimensions:
//! `A(i, j)` of a 3-D `A` (the second subscript spans columns and pages together, as in
//! MATLAB's two-subscript view), `A(i, j, 1)` of a matrix (a third subscript of a 2-D array
//! indexes an extent of 1), and slices with three subscripts: `A(:, :, k)`, `A(i, :, k)`,
//! `A(:, j, k)` (one page: a 2-D value), `A(:, :, 2:end)`, `A(i, j, :)` (several pages).
//!
//! Invariants:
//! - a slice with three subscripts has the extents of its subscripts; when the third selects
//!   one element the slice is 2-D, otherwise it is 3-D and, like every 3-D value, its `cols`
//!   counts the columns of all its pages and its elements are visited in one linear loop;
//! - the pages of a 3-D value come from one of its 3-D leaves, a whole array or a slice
//!   ([`Lowerer::page_extents`]); operands of one elementwise operation have equal extents
//!   (checked), so any leaf gives the same pages;
//! - `squeeze(X)` of a 3-D value drops the extents known to be 1 when translating (the tube
//!   `A(i, j, :)` becomes a column); when an extent may or may not be 1, the result's extents
//!   are decided at run time (`squeeze`);
//! - an index past the trailing extent is checked where the element is read or written, with
//!   MATLAB's message (the generated code checks a second subscript of a 3-D array against the
//!   columns of all pages, a third subscript of a 2-D array against 1).

use super::array::{ArrayVal, Node, Sub, Val};
use super::*;

mod squeeze;

impl Lowerer<'_> {
    /// The columns of `array` seen with two subscripts: columns times pages for a 3-D array.
    pub(super) fn trailing_cols(&mut self, array: LocalId, span: Span) -> ExprId {
        let cols = self.size_of(array, 2, span);
        if !self.locals[array].ty.shape.is_3d() {
            return cols;
        }
        let pages = self.size_of(array, 3, span);
        self.binary_expr(BinOp::Mul, cols, pages, Class::Double, span)
    }

    /// The statically known columns of `array` seen with two subscripts.
    pub(super) fn trailing_cols_dim(&self, array: LocalId) -> Dim {
        let shape = self.locals[array].ty.shape;
        match (shape.cols, shape.pages) {
            (Dim::Known(c), Dim::Known(p)) => Dim::Known(c * p),
            _ => Dim::Var,
        }
    }

    /// The shape and extents (rows, columns of all pages) of `A(r, c, p)`.
    pub(super) fn page_slice_extent(
        &mut self,
        array: LocalId,
        subs: &[Sub],
        span: Span,
    ) -> (Shape, ExprId, ExprId) {
        let (rows, rd) = self.sub_extent(array, &subs[0], 1, span);
        let (cols, cd) = self.sub_extent(array, &subs[1], 2, span);
        let (pages, pd) = self.sub_extent(array, &subs[2], 3, span);
        if pd == Dim::Known(1) {
            return (Shape::new(rd, cd), rows, cols);
        }
        let all_cols = self.binary_expr(BinOp::Mul, cols, pages, Class::Double, span);
        (Shape::new3(rd, cd, pd), rows, all_cols)
    }

    /// The columns of one page and the pages of a 3-D value, as fresh expressions; `None` for
    /// a value without 3-D leaves.
    pub(super) fn page_extents(&mut self, val: &ArrayVal) -> Option<(ExprId, ExprId)> {
        let mut leaf = None;
        val.visit(&mut |v| {
            let whole_or_slice = matches!(v.node, Node::Whole(_) | Node::Slice(..));
            if leaf.is_none() && whole_or_slice && v.shape.is_3d() {
                leaf = Some(v.node.clone());
            }
        });
        let span = val.span;
        match leaf? {
            Node::Whole(a) => Some((self.size_of(a, 2, span), self.size_of(a, 3, span))),
            Node::Slice(a, subs) => Some((
                self.sub_extent(a, &subs[1], 2, span).0,
                self.sub_extent(a, &subs[2], 3, span).0,
            )),
            _ => None,
        }
    }

    /// Row, column and page within the 3-D slice `A(subs)` of its element `k` (counted in
    /// column-major order): `r = mod(k-1, rows) + 1`, `q = fix((k-1) / rows)`,
    /// `c = mod(q, cols) + 1`, `p = fix(q / cols) + 1`.
    pub(super) fn page_slice_position(
        &mut self,
        array: LocalId,
        subs: &[Sub],
        k: LocalId,
        rows: ExprId,
        span: Span,
    ) -> [ExprId; 3] {
        let ty = self.locals[k].ty;
        let k = self.new_expr(ExprKind::Local(k), ty, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let k0 = self.binary_expr(BinOp::Sub, k, one, Class::Double, span);
        let (r, q) = self.split_position(k0, rows, span);
        let cols = self.sub_extent(array, &subs[1], 2, span).0;
        let (c, p) = self.split_position(q, cols, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let p = self.binary_expr(BinOp::Add, p, one, Class::Double, span);
        [r, c, p]
    }

    /// For a 0-based position `t` along extent `n`: the 1-based index `mod(t, n) + 1` and the
    /// 0-based position beyond it, `fix(t / n)`.
    pub(super) fn split_position(&mut self, t: ExprId, n: ExprId, span: Span) -> (ExprId, ExprId) {
        let double = Type::scalar(Class::Double);
        let (t2, n2) = (self.copy_expr(t), self.copy_expr(n));
        let n = self.copy_expr(n);
        let m = self.new_expr(ExprKind::Call(Builtin::Mod, vec![t, n]), double, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let index = self.binary_expr(BinOp::Add, m, one, Class::Double, span);
        let q = self.binary_expr(BinOp::Div, t2, n2, Class::Double, span);
        let beyond = self.new_expr(ExprKind::Call(Builtin::Fix, vec![q]), double, span);
        (index, beyond)
    }

    /// `squeeze(X)`: a 2-D value or a scalar is itself; a 3-D value is copied, in column-major
    /// order, into an array without its extents that are known to be 1 (a column when only
    /// one extent is left, as in MATLAB).
    pub(super) fn squeeze(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [arg] = args else {
            self.error(
                "E0105",
                span,
                "wrong number of arguments to `squeeze`".into(),
                "`squeeze` takes one argument".into(),
            );
            return None;
        };
        let val = match self.value(arg)? {
            Val::Array(val) if val.shape.is_3d() => val,
            other => return Some(other),
        };
        let shape = val.shape;
        let unit = |d: Dim| d == Dim::Known(1);
        if [shape.rows, shape.cols, shape.pages].contains(&Dim::Var)
            && !(unit(shape.rows) && unit(shape.cols))
        {
            return self.squeeze_at_run_time(val, span);
        }
        let (rows, cols, pages) = self.extents_of(&val);
        let pages = pages?;
        let kept: Vec<(ExprId, Dim)> =
            [(rows, shape.rows), (cols, shape.cols), (pages, shape.pages)]
                .into_iter()
                .filter(|(_, d)| !unit(*d))
                .collect();
        let one = (self.constant_expr(1.0, Class::Double, span), Dim::Known(1));
        let (r, c) = match kept.as_slice() {
            [only] => (*only, one),
            [r, c] => (*r, *c),
            _ => return Some(Val::Array(val)),
        };
        let target = self.temp("t", Type::array(val.class, Shape::new(r.1, c.1)), span);
        self.alloc_zeros(target, r.0, c.0, None, span);
        let place = self.whole_place(target, span);
        self.write_loop(&place, &Val::Array(val), span);
        Some(Val::Array(self.whole(target, span)))
    }
}
