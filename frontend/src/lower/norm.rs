//! `norm(x)` and `norm(x, p)` of double and single values, as Octave's `xnorm`:
//!
//! - of a vector (one extent 1, or no elements): `p = 2` (the default) and `'fro'` the
//!   Euclidean norm, `1` the sum of magnitudes, `Inf`/`'inf'` the largest and `-Inf` the
//!   smallest magnitude, any other `p > 0` the p-norm; NaN anywhere gives NaN, no elements 0;
//! - of a matrix: `1` the largest column sum of magnitudes, `Inf` the largest row sum (taken as
//!   Octave takes it: the first sum, then any strictly greater one, so a NaN first sum is the
//!   result and a later one is skipped), `'fro'` the Euclidean norm of all elements; the
//!   2-norm (the largest singular value) and other `p` are E0167 (not supported yet).
//!
//! The Euclidean and p-norms are scaled, as Octave's accumulators are, so that no square
//! overflows or underflows: with `m = max(abs(x))`, `m * sum((abs(x) / m) .^ p) ^ (1 / p)`
//! when `0 < m < Inf`, else `sum(abs(x))` (0, Inf or NaN). Both sums are reductions, so they
//! may be reassociated as any `sum` is: the result is within a few ulps of Octave's, which
//! scales by the largest magnitude seen so far, element by element.
//!
//! An array whose extents are unknown before the program runs is a vector or a matrix when
//! it runs: both forms are written, under an `if` on its extents (a matrix 2-norm there stops
//! with `M2CU_E_NORM_MATRIX`).
//!
//! Invariants: the result is a scalar of the argument's class; `p` is a constant; integer,
//! logical, char and complex arguments are E0106 (Octave: "wrong type argument").

use super::array::Val;
use super::expr::{val_class, val_is_complex, val_kind};
use super::reduce::Reduction;
use super::text::text_literal;
use super::Lowerer;
use crate::ast;
use crate::diag::Span;
use crate::ir::{BinOp, Builtin, ExprId, ExprKind, LocalId, RuntimeError, SizeQuery, StmtKind};
use crate::types::{Class, Dim, Shape, Type};

const FORMS: &str = "write norm(x), norm(x, 1), norm(x, Inf), norm(x, -Inf), norm(x, p) with a constant p > 0, or norm(x, 'fro')";

/// Which norm `p` asks for.
#[derive(Clone, Copy, PartialEq)]
enum Norm {
    /// `p = 2`, the default.
    Two,
    One,
    Inf,
    NegInf,
    /// `'fro'`.
    Frobenius,
    /// Another constant `p > 0`.
    Power(f64),
}

impl Lowerer<'_> {
    pub(super) fn norm(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let (x, p) = match args {
            [x] => (x, Norm::Two),
            [x, p] => (x, self.norm_kind(p)?),
            _ => {
                self.error(
                    "E0105",
                    span,
                    "wrong number of arguments to `norm`".into(),
                    FORMS.into(),
                );
                return None;
            }
        };
        let value = self.value(x)?;
        let (class, complex) = (val_class(self, &value), val_is_complex(self, &value));
        if !class.is_float() || complex {
            let what = val_kind(self, &value);
            self.error(
                "E0106",
                x.span,
                format!("`norm` of {what} values: Octave takes double and single values only"),
                "convert first: `norm(double(x))`".into(),
            );
            return None;
        }
        let source = match value {
            Val::Scalar(e) => {
                let abs = ExprKind::Call(Builtin::Abs, vec![e]);
                return Some(Val::Scalar(self.new_expr(abs, Type::scalar(class), span)));
            }
            Val::Array(a) if a.shape.is_3d() => {
                self.error(
                    "E0106",
                    x.span,
                    "`norm` of a 3-D array: MATLAB takes vectors and matrices".into(),
                    "take the norm of a page, `norm(A(:, :, k))`, or of every element, `norm(A(:))`".into(),
                );
                return None;
            }
            Val::Array(a) => self.whole_local(&a),
        };
        let result = self.temp("norm", Type::scalar(class), span);
        match vector_or_matrix(self.locals[source].ty.shape) {
            Some(true) => self.vector_norm(source, p, result, span),
            Some(false) => {
                if !self.matrix_norm_supported(p, x.span) {
                    return None;
                }
                self.matrix_norm(source, p, result, span);
            }
            None => {
                let cond = self.vector_or_empty_at_run_time(source, span);
                self.emit_if_else(
                    cond,
                    span,
                    |me| me.vector_norm(source, p, result, span),
                    |me| match p {
                        Norm::One | Norm::Inf | Norm::Frobenius => {
                            me.matrix_norm(source, p, result, span)
                        }
                        _ => {
                            let fail = me.constant_expr(1.0, Class::Logical, span);
                            me.stop_if(fail, RuntimeError::NormOfMatrix, span);
                        }
                    },
                );
            }
        }
        Some(Val::Scalar(self.read_local(result, span)))
    }

    fn norm_kind(&mut self, p: &ast::Expr) -> Option<Norm> {
        if let Some(text) = text_literal(p) {
            return match text {
                "fro" => Some(Norm::Frobenius),
                "inf" | "Inf" => Some(Norm::Inf),
                "-inf" | "-Inf" => Some(Norm::NegInf),
                _ => {
                    self.error(
                        "E0105",
                        p.span,
                        format!("`norm` has no option '{text}'"),
                        FORMS.into(),
                    );
                    None
                }
            };
        }
        let e = self.scalar_expr(p, "the `p` of `norm(x, p)`")?;
        match self.const_of(e) {
            Some(1.0) => Some(Norm::One),
            Some(2.0) => Some(Norm::Two),
            Some(v) if v == f64::INFINITY => Some(Norm::Inf),
            Some(v) if v == f64::NEG_INFINITY => Some(Norm::NegInf),
            Some(v) if v > 0.0 && v.is_finite() => Some(Norm::Power(v)),
            _ => {
                self.error(
                    "E0105",
                    p.span,
                    "`norm(x, p)` needs a constant p > 0, Inf or -Inf here".into(),
                    format!("{FORMS} (Octave's p = 0 counts nonzeros: use nnz(x))"),
                );
                None
            }
        }
    }

    /// Whether m2cu computes the norm `p` of a matrix; reports it when not.
    fn matrix_norm_supported(&mut self, p: Norm, span: Span) -> bool {
        if matches!(p, Norm::One | Norm::Inf | Norm::Frobenius) {
            return true;
        }
        self.error(
            "E0167",
            span,
            "the 2-norm (and other p-norms) of a matrix is not supported by m2cu yet: it needs the singular values".into(),
            "m2cu computes norm(A, 1), norm(A, Inf) and norm(A, 'fro') of a matrix, and every norm of a vector (`norm(A(:))` is the Frobenius norm)".into(),
        );
        false
    }

    /// `size(a, 1) == 1 | size(a, 2) == 1 | numel(a) == 0`.
    fn vector_or_empty_at_run_time(&mut self, a: LocalId, span: Span) -> ExprId {
        let row = self.size_compared(a, SizeQuery::Dim(1), BinOp::Eq, 1.0, span);
        let column = self.size_compared(a, SizeQuery::Dim(2), BinOp::Eq, 1.0, span);
        let empty = self.size_compared(a, SizeQuery::Numel, BinOp::Eq, 0.0, span);
        let vector = self.binary_expr(BinOp::Or, row, column, Class::Logical, span);
        self.binary_expr(BinOp::Or, vector, empty, Class::Logical, span)
    }

    /// `abs(a(k))`, or `abs(a(i, j))` for two subscripts.
    fn magnitude(&mut self, a: LocalId, at: Vec<ExprId>, span: Span) -> ExprId {
        let class = self.locals[a].ty.class;
        let element = self.new_expr(ExprKind::Index(a, at), Type::scalar(class), span);
        self.new_expr(
            ExprKind::Call(Builtin::Abs, vec![element]),
            Type::scalar(class),
            span,
        )
    }

    /// Reduces `term(k)` over every element `k` of `a` with `kind`; returns the accumulator.
    fn reduce_elements(
        &mut self,
        kind: Reduction,
        a: LocalId,
        span: Span,
        term: impl Fn(&mut Self, ExprId) -> ExprId,
    ) -> LocalId {
        let class = match kind {
            Reduction::Any => Class::Logical,
            _ => self.locals[a].ty.class,
        };
        let acc = self.accumulator(kind, class, span);
        let n = self.new_expr(
            ExprKind::Size(a, SizeQuery::Numel),
            Type::scalar(Class::Double),
            span,
        );
        self.counted_loop("k", n, span, |me, k| {
            let at = me.read_local(k, span);
            let element = term(me, at);
            me.accumulate(kind, acc, element, span);
        });
        acc
    }

    /// `result = norm(a, p)` of the elements of `a` as a vector.
    fn vector_norm(&mut self, a: LocalId, p: Norm, result: LocalId, span: Span) {
        let class = self.locals[a].ty.class;
        let magnitude = |me: &mut Self, at: ExprId| me.magnitude(a, vec![at], span);
        match p {
            Norm::One => {
                let sum = self.reduce_elements(Reduction::Sum, a, span, magnitude);
                let sum = self.read_local(sum, span);
                self.set_local(result, sum, span);
            }
            Norm::Inf | Norm::NegInf => {
                let kind = if p == Norm::Inf {
                    Reduction::Max
                } else {
                    Reduction::Min
                };
                let extreme = self.reduce_elements(kind, a, span, magnitude);
                let extreme = self.read_local(extreme, span);
                self.set_local(result, extreme, span);
                // No elements: 0 (the reductions' identities are -Inf and Inf).
                let empty = self.size_compared(a, SizeQuery::Numel, BinOp::Eq, 0.0, span);
                self.emit_if(empty, span, |me| {
                    let zero = me.constant_expr(0.0, class, span);
                    me.set_local(result, zero, span);
                });
                self.nan_gives_nan(a, result, span);
            }
            Norm::Two | Norm::Frobenius | Norm::Power(_) => self.scaled_norm(a, p, result, span),
        }
    }

    /// `result = NaN` when an element of `a` is NaN (`max`/`min` skip NaN, the norms do not).
    fn nan_gives_nan(&mut self, a: LocalId, result: LocalId, span: Span) {
        let class = self.locals[a].ty.class;
        let nans = self.reduce_elements(Reduction::Any, a, span, |me, at| {
            let element = me.new_expr(ExprKind::Index(a, vec![at]), Type::scalar(class), span);
            let is_nan = ExprKind::Call(Builtin::IsNan, vec![element]);
            me.new_expr(is_nan, Type::scalar(Class::Logical), span)
        });
        let any = self.read_local(nans, span);
        self.emit_if(any, span, |me| {
            let nan = me.constant_expr(f64::NAN, class, span);
            me.set_local(result, nan, span);
        });
    }

    /// The Euclidean or p-norm, scaled by the largest magnitude (see the module docs).
    fn scaled_norm(&mut self, a: LocalId, p: Norm, result: LocalId, span: Span) {
        let class = self.locals[a].ty.class;
        let magnitude = |me: &mut Self, at: ExprId| me.magnitude(a, vec![at], span);
        let largest = self.reduce_elements(Reduction::Max, a, span, magnitude);
        let scale = |me: &mut Self| me.read_local(largest, span);
        let (m, zero) = (scale(self), self.constant_expr(0.0, class, span));
        let positive = self.binary_expr(BinOp::Gt, m, zero, Class::Logical, span);
        let (m, inf) = (scale(self), self.constant_expr(f64::INFINITY, class, span));
        let finite = self.binary_expr(BinOp::Lt, m, inf, Class::Logical, span);
        let cond = self.binary_expr(BinOp::AndAnd, positive, finite, Class::Logical, span);
        let scaled = |me: &mut Self| {
            let sum = me.reduce_elements(Reduction::Sum, a, span, |me, at| {
                let t = |me: &mut Self, at: ExprId| {
                    let mag = me.magnitude(a, vec![at], span);
                    let m = scale(me);
                    me.binary_expr(BinOp::Div, mag, m, class, span)
                };
                match p {
                    Norm::Power(p) => {
                        let (t, p) = (t(me, at), me.constant_expr(p, Class::Double, span));
                        me.binary_expr(BinOp::Pow, t, p, class, span)
                    }
                    _ => {
                        let again = me.copy_expr(at);
                        let (t1, t2) = (t(me, at), t(me, again));
                        me.binary_expr(BinOp::Mul, t1, t2, class, span)
                    }
                }
            });
            let sum = me.read_local(sum, span);
            let root = match p {
                Norm::Power(p) => {
                    let inverse = me.constant_expr(1.0 / p, Class::Double, span);
                    me.binary_expr(BinOp::Pow, sum, inverse, class, span)
                }
                _ => me.new_expr(
                    ExprKind::Call(Builtin::Sqrt, vec![sum]),
                    Type::scalar(class),
                    span,
                ),
            };
            let m = scale(me);
            let norm = me.binary_expr(BinOp::Mul, m, root, class, span);
            me.set_local(result, norm, span);
        };
        // 0 (every element 0, or none), Inf, or NaN: the plain sum of magnitudes says which.
        let plain = |me: &mut Self| me.vector_norm(a, Norm::One, result, span);
        self.emit_if_else(cond, span, scaled, plain);
    }

    /// `result = norm(a, p)` of a matrix, `p` one of 1, Inf and 'fro'.
    fn matrix_norm(&mut self, a: LocalId, p: Norm, result: LocalId, span: Span) {
        let by_columns = match p {
            Norm::One => true,
            Norm::Inf => false,
            _ => return self.vector_norm(a, Norm::Two, result, span),
        };
        let class = self.locals[a].ty.class;
        let double = Type::scalar(Class::Double);
        let (outer_dim, inner_dim) = if by_columns { (2, 1) } else { (1, 2) };
        let outer = self.size_of(a, outer_dim, span);
        let sums = self.temp(
            "t",
            Type::array(class, Shape::new(Dim::Known(1), Dim::Var)),
            span,
        );
        let one = self.constant_expr(1.0, Class::Double, span);
        self.alloc_zeros(sums, one, outer, None, span);
        let outer = self.size_of(a, outer_dim, span);
        self.counted_loop("o", outer, span, |me, o| {
            let acc = me.accumulator(Reduction::Sum, class, span);
            let inner = me.size_of(a, inner_dim, span);
            me.counted_loop("i", inner, span, |me, i| {
                let (o, i) = (me.read_local(o, span), me.read_local(i, span));
                let at = if by_columns { vec![i, o] } else { vec![o, i] };
                let mag = me.magnitude(a, at, span);
                me.accumulate(Reduction::Sum, acc, mag, span);
            });
            let (at, sum) = (me.read_local(o, span), me.read_local(acc, span));
            me.push(
                StmtKind::Store {
                    array: sums,
                    indices: vec![at],
                    value: sum,
                },
                span,
            );
        });
        // Octave's RowVector::max: the first sum, then each strictly greater one (none: 0).
        let zero = self.constant_expr(0.0, class, span);
        self.set_local(result, zero, span);
        let count = self.new_expr(ExprKind::Size(sums, SizeQuery::Numel), double, span);
        let none = self.constant_expr(0.0, Class::Double, span);
        let any = self.binary_expr(BinOp::Gt, count, none, Class::Logical, span);
        self.emit_if(any, span, |me| {
            let first = me.constant_expr(1.0, Class::Double, span);
            let value = me.new_expr(
                ExprKind::Index(sums, vec![first]),
                Type::scalar(class),
                span,
            );
            me.set_local(result, value, span);
            let count = me.new_expr(ExprKind::Size(sums, SizeQuery::Numel), double, span);
            me.counted_loop("j", count, span, |me, j| {
                let read = |me: &mut Self| {
                    let at = me.read_local(j, span);
                    me.new_expr(ExprKind::Index(sums, vec![at]), Type::scalar(class), span)
                };
                let (s, r) = (read(me), me.read_local(result, span));
                let greater = me.binary_expr(BinOp::Gt, s, r, Class::Logical, span);
                me.emit_if(greater, span, |me| {
                    let s = read(me);
                    me.set_local(result, s, span);
                });
            });
        });
    }
}

/// `Some(true)` for a vector (or an array known to have no elements), `Some(false)` for a
/// matrix, `None` when only the run time tells.
fn vector_or_matrix(shape: Shape) -> Option<bool> {
    match (shape.rows, shape.cols) {
        (Dim::Known(1), _) | (_, Dim::Known(1)) | (Dim::Known(0), _) | (_, Dim::Known(0)) => {
            Some(true)
        }
        (Dim::Known(_), Dim::Known(_)) => Some(false),
        _ => None,
    }
}
