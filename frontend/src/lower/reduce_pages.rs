//! Reductions along a dimension of 3-D values (`sum(A, 3)`, `max(A, [], 3)`, `mean(img, 3)`,
//! `sum(A)` of a 3-D `A`), along a dimension past a value's last one (`sum(M, 3)` of a
//! matrix is `M` in the reduction's class), along a dimension known only at run time, and
//! along the default dimension of a matrix whose type does not tell whether it is a row.
//!
//! Invariants:
//! - the result has MATLAB's extents: those of the operand with the reduced one set to 1, and no
//!   squeezing (`sum(A, 3)` is m-by-n, `sum(A, 2)` m-by-1-by-p, `sum(A)` 1-by-n-by-p);
//! - every element of the result is one accumulator loop in the forms of `lower::reduce`
//!   (the same identities, order and NaN rules): result element `o` (counted in column-major
//!   order) reduces the operand's elements `base(o) + (i-1)*below` for `i = 1:along`, where
//!   `below` is the product of the extents before the reduced one and `base(o) = mod(o-1,
//!   below) + fix((o-1)/below)*below*along + 1`; the operand's elements are read by linear
//!   position, which every 3-D value supports;
//! - a reduction past the last dimension reduces each element alone: the element converted to
//!   the accumulator's class, or for `any`/`all` whether it counts as true.

use super::array::{ArrayVal, Node, Operand, Pos, Val};
use super::mean_empty::MeanDim;
use super::reduce::Reduction;
use super::*;
use crate::ir::RuntimeError;

impl Lowerer<'_> {
    /// `f(a, dim)` where `dim` is 3 or more, or `a` is 3-D; `class` is the accumulator's.
    pub(super) fn page_reduction(
        &mut self,
        kind: Reduction,
        a: ArrayVal,
        class: Class,
        dim: u8,
        span: Span,
    ) -> Option<Val> {
        if dim > 3 || !a.shape.is_3d() {
            return Some(Val::Array(self.each_element_reduced(kind, a, class, span)));
        }
        let (rows, cols, pages) = self.extents_of(&a);
        let mut extents = [rows, cols, pages?];
        let mut dims = [a.shape.rows, a.shape.cols, a.shape.pages];
        let d = usize::from(dim - 1);
        let along = extents[d];
        let below = self.product(&extents[..d], span);
        extents[d] = self.constant_expr(1.0, Class::Double, span);
        dims[d] = Dim::Known(1);
        let strides = Strides { below, along };
        self.reduce_runs(kind, &a, class, strides, (extents, dims), span)
    }

    /// `f(a, dim)` with `dim` known only when the program runs: checked to be a positive
    /// integer, then the strides and extents are chosen from it (`1 + (dim == d)*(n - 1)` is
    /// `n` when `dim` is `d`, else 1).
    pub(super) fn run_time_dim_reduction(
        &mut self,
        kind: Reduction,
        value: Val,
        dim: ExprId,
        span: Span,
    ) -> Option<Val> {
        let dim = self.checked_dimension(dim, span);
        let a = match value {
            Val::Scalar(e) => return self.scalar_reduction(kind, e, span).map(Val::Scalar),
            Val::Array(a) => a,
        };
        let class = self.accumulator_class(kind, a.class, span)?;
        if kind == Reduction::Mean {
            self.mean_of_empty_check(&a, MeanDim::AtRunTime(dim), span);
        }
        let (strides, out, dims) = self.strides_along(&a, dim, span);
        self.reduce_runs(kind, &a, class, strides, (out, dims), span)
    }

    /// `f(a)` of a 2-D `a` whose type does not tell whether it is a row (`double(:,:)`): MATLAB
    /// reduces a row along 2 and anything else along 1, so the result is a row either way, and
    /// a 0-by-0 `a` gives one result (`sum([])` is 0) except for `max`/`min`. The dimension is
    /// chosen when the program runs; the result's type is a row, so `A - mean(A)` expands.
    pub(super) fn default_dim_reduction(
        &mut self,
        kind: Reduction,
        a: ArrayVal,
        class: Class,
        span: Span,
    ) -> Option<Val> {
        let (rows, cols, _) = self.extents_of(&a);
        let one = |me: &mut Self| me.constant_expr(1.0, Class::Double, span);
        let (o1, o2, o3) = (one(self), one(self), one(self));
        let is_row = self.binary_expr(BinOp::Eq, rows, o1, Class::Logical, span);
        let wide = self.binary_expr(BinOp::Ne, cols, o2, Class::Logical, span);
        let row = self.binary_expr(BinOp::And, is_row, wide, Class::Logical, span);
        let row = self.convert_to(row, Class::Double);
        let dim = self.binary_expr(BinOp::Add, o3, row, Class::Double, span);
        let dim = self.dimension_local(dim, span);
        if kind == Reduction::Mean {
            self.mean_of_empty_check(&a, MeanDim::Default, span);
        }
        let (strides, mut out, mut dims) = self.strides_along(&a, dim, span);
        if !matches!(kind, Reduction::Max | Reduction::Min) {
            out[1] = self.plus_one_if_0x0(&a, out[1], span);
        }
        dims[0] = Dim::Known(1);
        self.reduce_runs(kind, &a, class, strides, (out, dims), span)
    }

    /// The strides of `a` along the dimension held in `dim` (checked), and the result's extents
    /// and their static form.
    fn strides_along(
        &mut self,
        a: &ArrayVal,
        dim: LocalId,
        span: Span,
    ) -> (Strides, [ExprId; 3], [Dim; 3]) {
        let (rows, cols, pages) = self.extents_of(a);
        let pages = pages.unwrap_or_else(|| self.constant_expr(1.0, Class::Double, span));
        let extents = [rows, cols, pages];
        let picked = |me: &mut Self, op: BinOp, d: f64, n: ExprId| {
            let at = me.new_expr(ExprKind::Local(dim), Type::scalar(Class::Double), span);
            let d = me.constant_expr(d, Class::Double, span);
            let cond = me.binary_expr(op, at, d, Class::Logical, span);
            let n = me.copy_expr(n);
            me.pick_extent(cond, n, span)
        };
        let mut along = Vec::new();
        let mut below = Vec::new();
        let mut out = extents;
        for (d, &n) in (1u8..).zip(&extents) {
            along.push(picked(self, BinOp::Eq, f64::from(d), n));
            below.push(picked(self, BinOp::Gt, f64::from(d), n));
            out[usize::from(d - 1)] = picked(self, BinOp::Ne, f64::from(d), n);
        }
        let strides = Strides {
            along: self.product(&along, span),
            below: self.product(&below, span),
        };
        let unit_or_var = |d: Dim| if d == Dim::Known(1) { d } else { Dim::Var };
        let s = a.shape;
        let dims = [s.rows, s.cols, s.pages].map(unit_or_var);
        (strides, out, dims)
    }

    /// Every result element: one accumulator loop over its run of `a`'s elements.
    fn reduce_runs(
        &mut self,
        kind: Reduction,
        a: &ArrayVal,
        class: Class,
        strides: Strides,
        (extents, dims): ([ExprId; 3], [Dim; 3]),
        span: Span,
    ) -> Option<Val> {
        if matches!(kind, Reduction::Max | Reduction::Min) {
            let n = self.copy_expr(strides.along);
            self.nonempty_check(n, span);
        }
        let out = self.reduced_array(class, extents, dims, span);
        let count = self.product(&extents, span);
        self.counted_loop("o", count, span, |me, o| {
            let value = me.reduce_run(kind, a, class, o, strides, span);
            let at = me.new_expr(ExprKind::Local(o), Type::scalar(Class::Double), span);
            me.push(
                StmtKind::Store {
                    array: out,
                    indices: vec![at],
                    value,
                },
                span,
            );
        });
        Some(Val::Array(self.whole(out, span)))
    }

    /// `dim` in a new local, after a check that it is a positive integer.
    fn checked_dimension(&mut self, dim: ExprId, span: Span) -> LocalId {
        let local = self.dimension_local(dim, span);
        let at = self.new_expr(ExprKind::Local(local), Type::scalar(Class::Double), span);
        let cond = self.positive_integer(at, span);
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::ReductionDimension,
            },
            span,
        );
        local
    }

    /// `dim`, as a double, in a new local.
    fn dimension_local(&mut self, dim: ExprId, span: Span) -> LocalId {
        let local = self.temp("dim", Type::scalar(Class::Double), span);
        let value = self.convert_to(dim, Class::Double);
        self.push(
            StmtKind::Assign {
                target: local,
                value,
            },
            span,
        );
        local
    }

    /// A zero-filled temporary with the given extents: 2-D when its pages are known to be 1.
    fn reduced_array(
        &mut self,
        class: Class,
        [rows, cols, pages]: [ExprId; 3],
        [rd, cd, pd]: [Dim; 3],
        span: Span,
    ) -> LocalId {
        let shape = Shape::new3(rd, cd, pd);
        let out = self.temp("t", Type::array(class, shape), span);
        let pages = shape.is_3d().then(|| self.copy_expr(pages));
        let (rows, cols) = (self.copy_expr(rows), self.copy_expr(cols));
        self.alloc_zeros(out, rows, cols, pages, span);
        out
    }

    /// The reduction of the elements of `a` that result element `o` gathers (module docs).
    fn reduce_run(
        &mut self,
        kind: Reduction,
        a: &ArrayVal,
        class: Class,
        o: LocalId,
        strides: Strides,
        span: Span,
    ) -> ExprId {
        let base = self.run_base(o, strides, span);
        let acc = self.accumulator(kind, class, span);
        let along = self.copy_expr(strides.along);
        self.counted_loop("i", along, span, |me, i| {
            let k = me.counting_loop_var("k", span);
            let at = me.run_position(base, i, strides.below, span);
            me.push(
                StmtKind::Assign {
                    target: k,
                    value: at,
                },
                span,
            );
            let element = me.element(a, Pos::linear(k));
            me.accumulate(kind, acc, element, span);
        });
        let result = self.new_expr(ExprKind::Local(acc), Type::scalar(class), span);
        if kind != Reduction::Mean {
            return result;
        }
        let n = self.copy_expr(strides.along);
        self.binary_expr(BinOp::Div, result, n, class, span)
    }

    /// `base = mod(o-1, below) + fix((o-1)/below)*below*along + 1`, in a new local.
    fn run_base(&mut self, o: LocalId, strides: Strides, span: Span) -> LocalId {
        let o = self.new_expr(ExprKind::Local(o), Type::scalar(Class::Double), span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let o0 = self.binary_expr(BinOp::Sub, o, one, Class::Double, span);
        let (first, beyond) = self.split_position(o0, strides.below, span);
        let block = self.product(&[strides.below, strides.along], span);
        let skipped = self.binary_expr(BinOp::Mul, beyond, block, Class::Double, span);
        let value = self.binary_expr(BinOp::Add, first, skipped, Class::Double, span);
        let base = self.counting_loop_var("b", span);
        self.push(
            StmtKind::Assign {
                target: base,
                value,
            },
            span,
        );
        base
    }

    /// `base + (i-1)*below`.
    fn run_position(&mut self, base: LocalId, i: LocalId, below: ExprId, span: Span) -> ExprId {
        let double = Type::scalar(Class::Double);
        let i = self.new_expr(ExprKind::Local(i), double, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let i0 = self.binary_expr(BinOp::Sub, i, one, Class::Double, span);
        let below = self.copy_expr(below);
        let offset = self.binary_expr(BinOp::Mul, i0, below, Class::Double, span);
        let base = self.new_expr(ExprKind::Local(base), double, span);
        self.binary_expr(BinOp::Add, base, offset, Class::Double, span)
    }

    /// Each element of `a` reduced alone: a reduction along a dimension whose extent is 1.
    fn each_element_reduced(
        &mut self,
        kind: Reduction,
        a: ArrayVal,
        class: Class,
        span: Span,
    ) -> ArrayVal {
        match kind {
            Reduction::Any | Reduction::All => {
                let zero = self.constant_expr(0.0, Class::Double, span);
                let nonzero = logical(&a, BinOp::Ne, array(&a), Operand::Scalar(zero), span);
                if kind == Reduction::All || !a.class.is_float() {
                    return nonzero;
                }
                let not_nan = logical(&a, BinOp::Eq, array(&a), array(&a), span);
                logical(&a, BinOp::And, array(&nonzero), array(&not_nan), span)
            }
            _ if class == a.class => a,
            _ => a.wrap(class, span, Node::Convert),
        }
    }
}

/// The extents that place a result element's run of operand elements (module docs).
#[derive(Clone, Copy)]
struct Strides {
    below: ExprId,
    along: ExprId,
}

fn array(a: &ArrayVal) -> Operand {
    Operand::Array(Box::new(a.clone()))
}

/// The logical `lhs op rhs`, with the extents of `like`.
fn logical(like: &ArrayVal, op: BinOp, lhs: Operand, rhs: Operand, span: Span) -> ArrayVal {
    ArrayVal {
        class: Class::Logical,
        shape: like.shape,
        rows: like.rows,
        cols: like.cols,
        node: Node::Binary(op, lhs, rhs),
        span,
    }
}
