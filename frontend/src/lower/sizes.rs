//! Size queries and shape predicates: `size(A)` as a row value, `size(A, dim)` (a literal or a
//! run-time `dim`), `[m, n, p] = size(A)`, `numel`, `length`, `ndims`, `isempty`, `isrow`,
//! `iscolumn`, `isvector` and `isscalar`.
//!
//! Invariants:
//! - every answer is computed from the value's three extents (rows, columns, pages; pages is 1
//!   for a 2-D type), each a constant where the static shape knows it, else a fresh double
//!   expression (`ExprKind::Size` of a whole local, so that the analysis sees the symbol);
//!   MATLAB drops trailing unit extents, so a value typed 3-D whose pages are 1 at run time
//!   has two dimensions;
//! - predicates are logical scalars and fold to constants when the static shape decides them;
//! - `size(A)` is a 1-by-2 row (1-by-`ndims` for a 3-D type: its length is known at run time),
//!   written into a temporary; `[d1, ..., dn] = size(A)` gives the last output the product of
//!   the remaining extents, as MATLAB does;
//! - `dim` must be a positive integer below 2^63 (Octave's index type): a literal otherwise is
//!   E0105, a run-time one stops with `RuntimeError::SizeDimension`; `size(A, dim)` is 1 for
//!   every `dim` past the third.

use super::array::{ArrayVal, Node, Val};
use super::select::Selected;
use super::*;
use crate::ir::RuntimeError;

/// The three extents of a value, each a constant or a fresh double expression.
#[derive(Clone, Copy)]
struct Extents {
    rows: ExprId,
    cols: ExprId,
    pages: ExprId,
}

/// The size functions this module lowers.
pub(super) const SIZE_FUNCTIONS: &[&str] = &[
    "size", "numel", "length", "ndims", "isempty", "isrow", "iscolumn", "isvector", "isscalar",
];

const SIZE_FORMS: &str = "write size(A), size(A, dim) or `[m, n] = size(A)`";

impl Lowerer<'_> {
    /// A call of one of [`SIZE_FUNCTIONS`].
    pub(super) fn size_function(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        match (name, args) {
            ("size", [a]) => self.size_row(a, span),
            ("size", [a, d]) => self.size_dim(a, d, span).map(Val::Scalar),
            ("size", _) => {
                self.error(
                    "E0105",
                    span,
                    "unsupported arguments to `size`".into(),
                    SIZE_FORMS.into(),
                );
                None
            }
            (_, [a]) => self.shape_query(name, a, span).map(Val::Scalar),
            _ => {
                self.error(
                    "E0105",
                    span,
                    format!("`{name}` takes one argument"),
                    format!("write {name}(A)"),
                );
                None
            }
        }
    }

    /// `numel`, `length`, `ndims` and the shape predicates of one value. The count of a masked
    /// selection `x(mask)` is one guarded loop over the mask (`select`), without the gather.
    fn shape_query(&mut self, name: &str, arg: &ast::Expr, span: Span) -> Option<ExprId> {
        let value = match (name, self.selection(arg)?) {
            ("numel" | "length", Selected::Masked { array, mask }) => {
                return Some(self.masked_count(array, mask, span))
            }
            (_, Selected::Masked { array, mask }) => self.masked_value(array, mask, span)?,
            (_, Selected::Value(v)) => v,
        };
        if let (Val::Array(a), Some(query)) = (&value, whole_query(name)) {
            if let Node::Whole(array) = a.node {
                return Some(self.new_expr(
                    ExprKind::Size(array, query),
                    Type::scalar(Class::Double),
                    span,
                ));
            }
        }
        let e = self.value_extents(&value, span);
        Some(match name {
            "numel" => self.extent_count(e, span),
            "length" => self.extent_longest(e, span),
            "ndims" => self.extent_ndims(e, span),
            "isempty" => {
                let n = self.extent_count(e, span);
                self.extent_is(n, 0.0, span)
            }
            "isscalar" => {
                let r = self.extent_is(e.rows, 1.0, span);
                let c = self.extent_is(e.cols, 1.0, span);
                let p = self.extent_is(e.pages, 1.0, span);
                let rc = self.shape_and(r, c, span);
                self.shape_and(rc, p, span)
            }
            "isrow" | "iscolumn" => {
                let unit = if name == "isrow" { e.rows } else { e.cols };
                let u = self.extent_is(unit, 1.0, span);
                let p = self.extent_is(e.pages, 1.0, span);
                self.shape_and(u, p, span)
            }
            _ => {
                let r = self.extent_is(e.rows, 1.0, span);
                let c = self.extent_is(e.cols, 1.0, span);
                let either = self.shape_or(r, c, span);
                let p = self.extent_is(e.pages, 1.0, span);
                self.shape_and(either, p, span)
            }
        })
    }

    /// `size(A, dim)`: a literal `dim` picks the extent; a run-time one is checked and selects it.
    fn size_dim(&mut self, arg: &ast::Expr, dim: &ast::Expr, span: Span) -> Option<ExprId> {
        let literal = match dim.kind {
            AstExpr::Number { value, .. } => Some(value),
            _ => None,
        };
        if literal.is_some_and(|v| !(v >= 1.0 && v.fract() == 0.0 && v < 2f64.powi(63))) {
            self.error(
                "E0105",
                dim.span,
                "the dimension of `size(A, dim)` must be a positive integer".into(),
                "write size(A, 1) for rows, size(A, 2) for columns, size(A, 3) for pages".into(),
            );
            return None;
        }
        let value = self.value(arg)?;
        if let Some(k) = literal {
            return Some(self.literal_size_dim(&value, k, span));
        }
        let d = self.scalar_expr(dim, "the dimension of `size(A, dim)`")?;
        let d = self.checked_size_dim(d, span);
        let e = self.value_extents(&value, span);
        let mut sum = self.past_third_dim(d, span);
        for (k, extent) in [(1.0, e.rows), (2.0, e.cols), (3.0, e.pages)] {
            let d = self.copy_expr(d);
            let is_k = self.extent_is(d, k, span);
            let term = self.binary_expr(BinOp::Mul, is_k, extent, Class::Double, span);
            sum = self.binary_expr(BinOp::Add, sum, term, Class::Double, span);
        }
        Some(sum)
    }

    /// `size(A, k)` for a literal `k`: a `Size` query of a whole local, else the extent.
    fn literal_size_dim(&mut self, value: &Val, k: f64, span: Span) -> ExprId {
        if k > 3.0 {
            return one_of(self, span);
        }
        if let Val::Array(ArrayVal {
            node: Node::Whole(array),
            ..
        }) = value
        {
            let query = SizeQuery::Dim(k as u8);
            return self.new_expr(
                ExprKind::Size(*array, query),
                Type::scalar(Class::Double),
                span,
            );
        }
        let e = self.value_extents(value, span);
        match k as u64 {
            1 => e.rows,
            2 => e.cols,
            _ => e.pages,
        }
    }

    /// Stops with MATLAB's error unless `d` is a positive integer below 2^63 (Octave's index
    /// type); returns `d` in a temporary.
    fn checked_size_dim(&mut self, d: ExprId, span: Span) -> ExprId {
        let ty = Type::scalar(self.exprs[d].ty.class);
        let temp = self.temp("d", ty, span);
        self.push(
            StmtKind::Assign {
                target: temp,
                value: d,
            },
            span,
        );
        let read = |me: &mut Self| me.new_expr(ExprKind::Local(temp), ty, span);
        let (a, b) = (read(self), read(self));
        let one = self.constant_expr(1.0, Class::Double, span);
        let positive = self.binary_expr(BinOp::Ge, a, one, Class::Logical, span);
        let floor = self.new_expr(ExprKind::Call(Builtin::Floor, vec![b]), ty, span);
        let c = read(self);
        let integral = self.binary_expr(BinOp::Eq, c, floor, Class::Logical, span);
        let (c, limit) = (
            read(self),
            self.constant_expr(2f64.powi(63), Class::Double, span),
        );
        let in_range = self.binary_expr(BinOp::Lt, c, limit, Class::Logical, span);
        let cond = self.binary_expr(BinOp::And, positive, integral, Class::Logical, span);
        let cond = self.binary_expr(BinOp::And, cond, in_range, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::SizeDimension,
            },
            span,
        );
        read(self)
    }

    /// `d > 3` as a double: the extent of every dimension past the third.
    fn past_third_dim(&mut self, d: ExprId, span: Span) -> ExprId {
        let d = self.copy_expr(d);
        let three = self.constant_expr(3.0, Class::Double, span);
        let past = self.binary_expr(BinOp::Gt, d, three, Class::Logical, span);
        self.new_expr(ExprKind::Convert(past), Type::scalar(Class::Double), span)
    }

    /// `size(A)`: a row of the extents, written into a temporary.
    fn size_row(&mut self, arg: &ast::Expr, span: Span) -> Option<Val> {
        let value = self.value(arg)?;
        let three_d = matches!(&value, Val::Array(a) if a.shape.is_3d());
        let e = self.value_extents(&value, span);
        let length = match three_d {
            true => Dim::Var,
            false => Dim::Known(2),
        };
        let ty = Type::array(Class::Double, Shape::new(Dim::Known(1), length));
        let row = self.temp("s", ty, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let count = self.extent_ndims(e, span);
        self.alloc_zeros(row, one, count, None, span);
        self.store_size_at(row, 1.0, e.rows, span);
        self.store_size_at(row, 2.0, e.cols, span);
        if three_d {
            let pages = self.copy_expr(e.pages);
            let one = one_of(self, span);
            let several = self.binary_expr(BinOp::Ne, pages, one, Class::Logical, span);
            self.emit_if(several, span, |me| {
                me.store_size_at(row, 3.0, e.pages, span)
            });
        }
        Some(Val::Array(self.whole(row, span)))
    }

    fn store_size_at(&mut self, array: LocalId, k: f64, value: ExprId, span: Span) {
        let at = self.constant_expr(k, Class::Double, span);
        let value = self.copy_expr(value);
        self.push(
            StmtKind::Store {
                array,
                indices: vec![at],
                value,
            },
            span,
        );
    }

    /// `[d1, ..., dn] = size(A)`: the first extents, and the product of the rest in the last.
    pub(super) fn size_outputs(
        &mut self,
        arg: &ast::Expr,
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Val>> {
        let value = self.value(arg)?;
        let e = self.value_extents(&value, span);
        let extents = [e.rows, e.cols, e.pages];
        let mut outs = Vec::with_capacity(nargout);
        for k in 0..nargout {
            let rest = extents.get(k..).unwrap_or_default();
            let out = match rest {
                [] => self.constant_expr(1.0, Class::Double, span),
                [only] => self.copy_expr(*only),
                _ if k + 1 < nargout => self.copy_expr(rest[0]),
                _ => self.extent_product(rest, span),
            };
            outs.push(Val::Scalar(out));
        }
        Some(outs)
    }

    /// The three extents of a value (1, 1, 1 for a scalar).
    fn value_extents(&mut self, value: &Val, span: Span) -> Extents {
        let Val::Array(a) = value else {
            return Extents {
                rows: one_of(self, span),
                cols: one_of(self, span),
                pages: one_of(self, span),
            };
        };
        let (rows, cols, pages) = self.extents_of(a);
        let pages = pages.unwrap_or_else(|| one_of(self, span));
        // A variable that an enclosing loop assigns may have other extents on a later pass.
        let unsettled = matches!(a.node, Node::Whole(l) if self.assigned_in_loop(l));
        let known = |me: &mut Self, e: ExprId, d: Dim| match d {
            Dim::Known(n) if !unsettled => me.constant_expr(n as f64, Class::Double, span),
            _ => e,
        };
        Extents {
            rows: known(self, rows, a.shape.rows),
            cols: known(self, cols, a.shape.cols),
            pages: known(self, pages, a.shape.pages),
        }
    }

    fn extent_product(&mut self, factors: &[ExprId], span: Span) -> ExprId {
        let mut product = one_of(self, span);
        for &f in factors {
            let f = self.copy_expr(f);
            product = self.folded(BinOp::Mul, product, f, span);
        }
        product
    }

    fn extent_count(&mut self, e: Extents, span: Span) -> ExprId {
        self.extent_product(&[e.rows, e.cols, e.pages], span)
    }

    /// `length`: 0 for an empty value, else its largest extent.
    fn extent_longest(&mut self, e: Extents, span: Span) -> ExprId {
        let n = self.extent_count(e, span);
        if self.const_of(n) == Some(0.0) {
            return self.constant_expr(0.0, Class::Double, span);
        }
        let (r, c) = (self.copy_expr(e.rows), self.copy_expr(e.cols));
        let mut longest = self.folded_max(r, c, span);
        if self.const_of(e.pages) != Some(1.0) {
            let p = self.copy_expr(e.pages);
            longest = self.folded_max(longest, p, span);
        }
        let zero = self.constant_expr(0.0, Class::Double, span);
        let nonempty = self.binary_expr(BinOp::Ne, n, zero, Class::Logical, span);
        self.binary_expr(BinOp::Mul, nonempty, longest, Class::Double, span)
    }

    /// `ndims`: 2, or 3 when the pages are not 1.
    fn extent_ndims(&mut self, e: Extents, span: Span) -> ExprId {
        if let Some(pages) = self.const_of(e.pages) {
            let n = if pages == 1.0 { 2.0 } else { 3.0 };
            return self.constant_expr(n, Class::Double, span);
        }
        let pages = self.copy_expr(e.pages);
        let unit = self.extent_is(pages, 1.0, span);
        let several = self.shape_not(unit, span);
        let several = self.new_expr(
            ExprKind::Convert(several),
            Type::scalar(Class::Double),
            span,
        );
        let two = self.constant_expr(2.0, Class::Double, span);
        self.folded(BinOp::Add, two, several, span)
    }

    // ----- folding ------------------------------------------------------------------------

    /// `e == k` as a logical, folded when `e` is a constant.
    fn extent_is(&mut self, e: ExprId, k: f64, span: Span) -> ExprId {
        self.extent_cmp(e, BinOp::Eq, k, span)
    }

    /// `e op k` (`==`, `>`) for a copy of the extent `e`, folded when `e` is a constant.
    pub(super) fn extent_cmp(&mut self, e: ExprId, op: BinOp, k: f64, span: Span) -> ExprId {
        let e = self.copy_expr(e);
        if let Some(v) = self.const_of(e) {
            let holds = match op {
                BinOp::Gt => v > k,
                _ => v == k,
            };
            return self.constant_expr(f64::from(u8::from(holds)), Class::Logical, span);
        }
        let k = self.constant_expr(k, Class::Double, span);
        self.binary_expr(op, e, k, Class::Logical, span)
    }

    pub(super) fn shape_not(&mut self, e: ExprId, span: Span) -> ExprId {
        if let Some(v) = self.const_of(e) {
            return self.constant_expr(f64::from(u8::from(v == 0.0)), Class::Logical, span);
        }
        self.new_expr(
            ExprKind::Unary(UnOp::Not, e),
            Type::scalar(Class::Logical),
            span,
        )
    }

    fn shape_and(&mut self, a: ExprId, b: ExprId, span: Span) -> ExprId {
        match (self.const_of(a), self.const_of(b)) {
            (Some(0.0), _) => a,
            (_, Some(0.0)) => b,
            (Some(_), _) => b,
            (_, Some(_)) => a,
            _ => self.binary_expr(BinOp::And, a, b, Class::Logical, span),
        }
    }

    fn shape_or(&mut self, a: ExprId, b: ExprId, span: Span) -> ExprId {
        match (self.const_of(a), self.const_of(b)) {
            (Some(x), _) if x != 0.0 => a,
            (_, Some(y)) if y != 0.0 => b,
            (Some(_), _) => b,
            (_, Some(_)) => a,
            _ => self.binary_expr(BinOp::Or, a, b, Class::Logical, span),
        }
    }

    /// A double `a op b`, folded when both are constants.
    fn folded(&mut self, op: BinOp, a: ExprId, b: ExprId, span: Span) -> ExprId {
        let value = match (self.const_of(a), self.const_of(b), op) {
            (Some(x), Some(y), BinOp::Mul) => Some(x * y),
            (Some(x), Some(y), BinOp::Add) => Some(x + y),
            _ => None,
        };
        match value {
            Some(v) => self.constant_expr(v, Class::Double, span),
            None => self.binary_expr(op, a, b, Class::Double, span),
        }
    }

    fn folded_max(&mut self, a: ExprId, b: ExprId, span: Span) -> ExprId {
        match (self.const_of(a), self.const_of(b)) {
            (Some(x), Some(y)) => self.constant_expr(x.max(y), Class::Double, span),
            _ => self.new_expr(
                ExprKind::Call(Builtin::Max, vec![a, b]),
                Type::scalar(Class::Double),
                span,
            ),
        }
    }
}

/// The `Size` query that answers `name` for a whole local, where one exists.
fn whole_query(name: &str) -> Option<SizeQuery> {
    match name {
        "numel" => Some(SizeQuery::Numel),
        "length" => Some(SizeQuery::Length),
        _ => None,
    }
}

fn one_of(l: &mut Lowerer<'_>, span: Span) -> ExprId {
    l.constant_expr(1.0, Class::Double, span)
}
