//! `A * B` of two arrays (MATLAB's `mtimes`): `C(i, j) = sum(A(i, k) * B(k, j))` over the inner
//! extent, written as a loop nest whose two outer loops are independent and whose inner loop is
//! a sum, so the analysis makes the outer loops a kernel with a reduction per output (a thread,
//! a warp or a block per element of `C`). `x' * y` of two vectors (1-by-n times n-by-1) is one
//! sum, a scalar.
//!
//! The products are summed in order on the C path, and reassociated in kernels; Octave calls
//! BLAS, whose order (and use of fused multiply-adds) is its own, so results agree with Octave's
//! to rounding, not bit for bit, as `sum` does.
//!
//! A complex operand (double) is m2cu's own `m2cu_cmtimes.m`, the same nest in complex
//! arithmetic.
//!
//! Invariants: both operands are real double or single (logical and char read as double); an
//! integer operand is E0106, as in MATLAB ("At least one argument must be scalar"); the inner
//! extents must agree, at translation when both are known (E0110), else when the program runs
//! (`M2CU_E_MTIMES`, MATLAB's message), before which an operand whose type admits 1-by-1 and
//! is 1-by-1 at run time stops with m2cu's reason (`M2CU_E_MTIMES_SCALAR`: MATLAB scales the
//! other operand, a result the translated shape cannot hold); an empty inner extent gives
//! zeros.

use super::array::{ArrayVal, Val};
use super::handles::Arg;
use super::reduce::Reduction;
use super::Lowerer;
use crate::diag::Span;
use crate::ir::{BinOp, ExprId, ExprKind, LocalId, RuntimeError, SizeQuery, StmtKind};
use crate::types::{Class, Dim, Shape, Type};

impl Lowerer<'_> {
    /// `a * b` of two arrays, `class` the class MATLAB gives the product.
    pub(super) fn matrix_product(
        &mut self,
        a: ArrayVal,
        b: ArrayVal,
        class: Class,
        span: Span,
    ) -> Option<Val> {
        if self.element_type(&a).complex || self.element_type(&b).complex {
            return self.complex_matrix_product(a, b, class, span);
        }
        if a.class.is_integer() || b.class.is_integer() {
            self.error(
                "E0106",
                span,
                format!("MTIMES (*) is not fully supported for integer classes ({} * {}). At least one argument must be scalar.", a.class, b.class),
                "convert to double first, `double(A) * double(B)`, or use `.*` for the elementwise product".into(),
            );
            return None;
        }
        self.reject_3d(&a, "matrix multiplication")?;
        self.reject_3d(&b, "matrix multiplication")?;
        if let (Dim::Known(p), Dim::Known(q)) = (a.shape.cols, b.shape.rows) {
            if p != q {
                self.error(
                    "E0110",
                    span,
                    format!("Incorrect dimensions for matrix multiplication: the first operand has {p} columns and the second {q} rows"),
                    "the number of columns of the first matrix must equal the number of rows of the second; to operate on each element, use `.*`".into(),
                );
                return None;
            }
        }
        let (rows, cols) = (a.shape.rows, b.shape.cols);
        let scalars = [&a, &b].map(|v| v.shape.admits_one_element());
        let [a, b] = [a, b].map(|v| self.whole_local(&v));
        if scalars.contains(&true) {
            self.scalar_operand_check(a, b, span);
        }
        self.inner_extents_check(a, b, span);
        if (rows, cols) == (Dim::Known(1), Dim::Known(1)) {
            let acc = self.product_sum(a, b, None, class, span);
            return Some(Val::Scalar(self.read_local(acc, span)));
        }
        let mut shape = Shape::new(rows, cols);
        if shape.is_scalar() {
            shape = Shape::new(Dim::Known(1), Dim::Var);
        }
        let c = self.temp("p", Type::array(class, shape), span);
        let (m, n) = (self.size_of(a, 1, span), self.size_of(b, 2, span));
        self.alloc_zeros(c, m, n, None, span);
        let n = self.size_of(b, 2, span);
        self.counted_loop("j", n, span, |me, j| {
            let m = me.size_of(a, 1, span);
            me.counted_loop("i", m, span, |me, i| {
                let acc = me.product_sum(a, b, Some((i, j)), class, span);
                let (ri, rj, value) = (
                    me.read_local(i, span),
                    me.read_local(j, span),
                    me.read_local(acc, span),
                );
                me.push(
                    StmtKind::Store {
                        array: c,
                        indices: vec![ri, rj],
                        value,
                    },
                    span,
                );
            });
        });
        Some(Val::Array(self.whole(c, span)))
    }

    /// `a * b` where either is complex: m2cu's own `m2cu_cmtimes.m` (complex sums in order of
    /// the inner index, a thread per element of the product); double only.
    fn complex_matrix_product(
        &mut self,
        a: ArrayVal,
        b: ArrayVal,
        class: Class,
        span: Span,
    ) -> Option<Val> {
        if class != Class::Double {
            self.unsupported(
                span,
                "matrix multiplication `*` of complex single arrays",
                "convert to double first, `double(A) * double(B)`, or write `.*` for the elementwise product",
            );
            return None;
        }
        let args = vec![Arg::Value(Val::Array(a)), Arg::Value(Val::Array(b))];
        self.inline_bundled_helper("m2cu_cmtimes", args, 1, span)?
            .pop()
    }

    /// Stops with m2cu's reason where the inner extents differ and an operand is 1-by-1 (an
    /// operand whose type admits one element): MATLAB scales the other operand there.
    fn scalar_operand_check(&mut self, a: LocalId, b: LocalId, span: Span) {
        let (p, q) = (self.size_of(a, 2, span), self.size_of(b, 1, span));
        let agree = self.binary_expr(BinOp::Eq, p, q, Class::Logical, span);
        let [many_a, many_b] =
            [a, b].map(|x| self.size_compared(x, SizeQuery::Numel, BinOp::Ne, 1.0, span));
        let neither = self.binary_expr(BinOp::And, many_a, many_b, Class::Logical, span);
        let cond = self.binary_expr(BinOp::Or, agree, neither, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::MatrixProductScalar,
            },
            span,
        );
    }

    /// Stops unless `size(a, 2) == size(b, 1)`.
    fn inner_extents_check(&mut self, a: LocalId, b: LocalId, span: Span) {
        let (p, q) = (self.size_of(a, 2, span), self.size_of(b, 1, span));
        let agree = self.binary_expr(BinOp::Eq, p, q, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond: agree,
                error: RuntimeError::MatrixProductSizes,
            },
            span,
        );
    }

    /// `acc = sum over k of a(i, k) * b(k, j)`, in a new accumulator of `class`, for the loop
    /// variables `(i, j)` (`None`: the one element of a 1-by-1 product).
    fn product_sum(
        &mut self,
        a: LocalId,
        b: LocalId,
        at: Option<(LocalId, LocalId)>,
        class: Class,
        span: Span,
    ) -> LocalId {
        let acc = self.accumulator(Reduction::Sum, class, span);
        let inner = self.size_of(a, 2, span);
        self.counted_loop("k", inner, span, |me, k| {
            let (k1, k2) = (me.read_local(k, span), me.read_local(k, span));
            let (i, j) = match at {
                Some((i, j)) => (me.read_local(i, span), me.read_local(j, span)),
                None => {
                    let one = |me: &mut Self| me.constant_expr(1.0, Class::Double, span);
                    (one(me), one(me))
                }
            };
            let x = me.element_in(a, vec![i, k1], class, span);
            let y = me.element_in(b, vec![k2, j], class, span);
            let product = me.binary_expr(BinOp::Mul, x, y, class, span);
            me.accumulate(Reduction::Sum, acc, product, span);
        });
        acc
    }

    /// `array(at...)` in `class`.
    fn element_in(&mut self, array: LocalId, at: Vec<ExprId>, class: Class, span: Span) -> ExprId {
        let own = self.locals[array].ty.class;
        let element = self.new_expr(ExprKind::Index(array, at), Type::scalar(own), span);
        self.convert_to(element, class)
    }
}
