//! Whole-array reductions (`sum prod max min any all mean`, and `[m, k] = max(v)`), lowered to
//! loops with an accumulator in exactly the forms that the analysis recognizes as reductions, so
//! that a vectorized reduction becomes a reduction kernel like a hand-written loop.
//!
//! Semantics follow MATLAB and Octave where they agree: NaN is skipped by `max`/`min` and by
//! `any`, ties give the first index, the default dimension is the first that is not 1. Integer
//! `sum`/`prod` are rejected because MATLAB returns the integer class and Octave double.

use super::array::{ArrayVal, Operand, Pos, Val};
use super::complex_array::is_complex_val;
use super::handles::Arg;
use super::mean_empty::MeanDim;
use super::reduce_flags::Flags;
use super::select::Selected;
use super::*;
use crate::operator::{Identity, Operator, Update, Written};

/// The dimension argument of a reduction.
pub(super) enum Dimension<'e> {
    /// A positive integer literal; any past the third is 4, since all of them reduce alike.
    Fixed(u8),
    /// Any other expression, checked when the program runs.
    AtRunTime(&'e ast::Expr),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Reduction {
    Sum,
    Prod,
    Max,
    Min,
    Any,
    All,
    Mean,
}

impl Reduction {
    pub(super) const ALL: [Reduction; 7] = [
        Reduction::Sum,
        Reduction::Prod,
        Reduction::Max,
        Reduction::Min,
        Reduction::Any,
        Reduction::All,
        Reduction::Mean,
    ];

    pub(super) fn from_name(name: &str) -> Option<Reduction> {
        Reduction::ALL.into_iter().find(|r| r.name() == name)
    }

    /// The operator the accumulation loop combines with (`mean` sums, then divides).
    fn operator(self) -> Operator {
        match self {
            Reduction::Sum | Reduction::Mean => Operator::Sum,
            Reduction::Prod => Operator::Prod,
            Reduction::Max => Operator::Max,
            Reduction::Min => Operator::Min,
            Reduction::Any => Operator::Or,
            Reduction::All => Operator::And,
        }
    }

    pub(super) fn name(self) -> &'static str {
        match self {
            Reduction::Sum => "sum",
            Reduction::Prod => "prod",
            Reduction::Max => "max",
            Reduction::Min => "min",
            Reduction::Any => "any",
            Reduction::All => "all",
            Reduction::Mean => "mean",
        }
    }
}

impl Lowerer<'_> {
    pub(super) fn reduction(
        &mut self,
        kind: Reduction,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        let (x, dim, flags) = self.reduction_args(kind, args, span)?;
        if flags.omit_nan {
            return self.omitnan_reduction(kind, x, dim, flags.all, span);
        }
        let converted;
        let x = if flags.in_double {
            converted = super::reduce_flags::in_double(x);
            &converted
        } else {
            x
        };
        if flags.all {
            return self.all_elements_reduction(kind, x, span);
        }
        let dim = match dim {
            Some(Dimension::AtRunTime(d)) => {
                let x = self.value(x);
                let d = self.scalar_expr(d, "a dimension");
                return self.run_time_dim_reduction(kind, x?, d?, span);
            }
            Some(Dimension::Fixed(d)) => Some(d),
            None => None,
        };
        let dim_given = dim;
        let value = match self.selection(x)? {
            Selected::Masked { array, mask } if dim.is_none() => {
                let e = self.masked_reduction(kind, array, mask, span)?;
                return Some(Val::Scalar(e));
            }
            Selected::Masked { array, mask } => self.masked_value(array, mask, x.span)?,
            Selected::Value(v) => v,
        };
        match value {
            Val::Scalar(e) => self.scalar_reduction(kind, e, span).map(Val::Scalar),
            Val::Array(a) if self.element_type(&a).complex => {
                self.complex_reduction(kind, &a, dim, span)
            }
            Val::Array(a) => {
                let class = self.accumulator_class(kind, a.class, span)?;
                if dim.is_none() && first_nonunit_dim(a.shape).is_none() && !a.shape.is_3d() {
                    return self.default_dim_reduction(kind, a, class, span);
                }
                let dim = self.reduction_dim(kind, &a, dim, span)?;
                if kind == Reduction::Mean {
                    let given = dim_given.map_or(MeanDim::Default, MeanDim::Fixed);
                    self.mean_of_empty_check(&a, given, span);
                }
                if dim > 2 || a.shape.is_3d() {
                    return self.page_reduction(kind, a, class, dim, span);
                }
                if matches!(kind, Reduction::Max | Reduction::Min) {
                    let along = match dim {
                        1 => self.copy_expr(a.rows),
                        _ => self.copy_expr(a.cols),
                    };
                    self.nonempty_check(along, span);
                }
                if self.reduces_to_scalar(&a, dim) {
                    Some(Val::Scalar(self.vector_reduction(kind, &a, class, span)))
                } else {
                    let along = Along {
                        dim,
                        empty_gives_one: dim_given.is_none()
                            && !matches!(kind, Reduction::Max | Reduction::Min),
                    };
                    self.matrix_reduction(kind, &a, class, along, span)
                }
            }
        }
    }

    /// Splits `f(x)`, `f(x, dim)` and `max(x, [], dim)`, each with options (`'all'`,
    /// `'omitnan'`, ...), into the operand, the dimension and the options.
    fn reduction_args<'e>(
        &mut self,
        kind: Reduction,
        args: &'e [ast::Expr],
        span: Span,
    ) -> Option<(&'e ast::Expr, Option<Dimension<'e>>, Flags)> {
        let is_empty = super::grow::is_empty_matrix;
        let minmax = matches!(kind, Reduction::Max | Reduction::Min);
        let (args, flags) = self.reduction_flags(kind, args)?;
        let (x, d) = match args {
            [x] => return Some((x, None, flags)),
            [x, empty] if minmax && is_empty(empty) => return Some((x, None, flags)),
            [_, ..] if flags.all => {
                let f = kind.name();
                self.error(
                    "E0105",
                    span,
                    format!("`{f}` with both a dimension and 'all'"),
                    format!("write `{f}(A, 'all')` for every element, or give the dimension alone"),
                );
                return None;
            }
            [x, empty, d] if minmax && is_empty(empty) => (x, d),
            [x, d] if !minmax => (x, d),
            _ => {
                let form = if minmax {
                    format!("{0}(v), {0}(a, b) or {0}(A, [], dim)", kind.name())
                } else {
                    format!("{0}(v) or {0}(A, dim)", kind.name())
                };
                self.error(
                    "E0105",
                    span,
                    format!("unsupported arguments to `{}`", kind.name()),
                    format!("write {form}"),
                );
                return None;
            }
        };
        match d.kind {
            AstExpr::Number { value, .. } if value >= 1.0 && value.fract() == 0.0 => {
                Some((x, Some(Dimension::Fixed(value.min(4.0) as u8)), flags))
            }
            AstExpr::Number { .. } => {
                let f = kind.name();
                let a = if minmax { "A, []" } else { "A" };
                self.error(
                    "E0105",
                    d.span,
                    "the dimension must be a positive integer".into(),
                    format!("write {f}({a}, 1) for columns, {f}({a}, 2) for rows or {f}({a}, 3) for pages"),
                );
                None
            }
            _ => Some((x, Some(Dimension::AtRunTime(d)), flags)),
        }
    }

    /// The class the accumulator has, which is also the class of the result.
    pub(super) fn accumulator_class(
        &mut self,
        kind: Reduction,
        class: Class,
        span: Span,
    ) -> Option<Class> {
        match kind {
            Reduction::Sum | Reduction::Prod if class.is_integer() => {
                self.error(
                    "E0106",
                    span,
                    format!("`{}` of an integer array", kind.name()),
                    format!(
                        "MATLAB returns {class} and Octave double here; write `{}(double(x))` or accumulate in a loop",
                        kind.name()
                    ),
                );
                None
            }
            Reduction::Any | Reduction::All => Some(Class::Logical),
            Reduction::Max | Reduction::Min if class == Class::Logical => Some(Class::Double),
            Reduction::Mean if class.is_integer() => Some(Class::Double),
            _ => Some(arithmetic_class(class)),
        }
    }

    pub(super) fn reduction_dim(
        &mut self,
        kind: Reduction,
        a: &ArrayVal,
        dim: Option<u8>,
        span: Span,
    ) -> Option<u8> {
        if let Some(d) = dim {
            return Some(d);
        }
        if let Some(d) = first_nonunit_dim(a.shape) {
            return Some(d);
        }
        self.error(
            "E0105",
            span,
            format!(
                "cannot tell which dimension `{}` reduces: the value is {}",
                kind.name(),
                Type::array(a.class, a.shape)
            ),
            format!(
                "pass the dimension, `{0}(A, 1)`, `{0}(A, 2)` or `{0}(A, 3)`, or declare the input as a row (1,:) or column (:,1)",
                kind.name()
            ),
        );
        None
    }

    pub(super) fn reduces_to_scalar(&self, a: &ArrayVal, dim: u8) -> bool {
        (dim == 2 && a.shape.rows == Dim::Known(1)) || (dim == 1 && a.shape.cols == Dim::Known(1))
    }

    pub(super) fn scalar_reduction(
        &mut self,
        kind: Reduction,
        e: ExprId,
        span: Span,
    ) -> Option<ExprId> {
        let class = self.exprs[e].ty.class;
        let class = self.accumulator_class(kind, class, span)?;
        Some(match kind {
            Reduction::Any | Reduction::All => self.truth(kind, e, span),
            _ => self.convert_to(e, class),
        })
    }

    /// Whether one element counts as true: nonzero, and for `any` not NaN.
    fn truth(&mut self, kind: Reduction, e: ExprId, span: Span) -> ExprId {
        let zero = self.constant_expr(0.0, Class::Double, span);
        let e2 = self.copy_expr(e);
        let nonzero = self.binary_expr(BinOp::Ne, e, zero, Class::Logical, span);
        if kind == Reduction::All || !self.exprs[e2].ty.class.is_float() {
            return nonzero;
        }
        let e3 = self.copy_expr(e2);
        let not_nan = self.binary_expr(BinOp::Eq, e2, e3, Class::Logical, span);
        self.binary_expr(BinOp::And, nonzero, not_nan, Class::Logical, span)
    }

    fn identity(&mut self, kind: Reduction, class: Class, span: Span) -> ExprId {
        let Identity::Value(value) = kind.operator().identity(class, Written::Function) else {
            unreachable!("the library's reductions have numeric identities")
        };
        self.constant_expr(value, class, span)
    }

    /// `acc = acc op element`, in the form the reduction recognizer expects.
    pub(super) fn accumulate(
        &mut self,
        kind: Reduction,
        acc: LocalId,
        element: ExprId,
        span: Span,
    ) {
        let class = self.locals[acc].ty.class;
        let acc_expr = self.new_expr(ExprKind::Local(acc), Type::scalar(class), span);
        let value = match (kind, kind.operator().row().updates[0]) {
            (Reduction::Any | Reduction::All, Update::Binary(op)) => {
                let t = self.truth(kind, element, span);
                self.binary_expr(op, acc_expr, t, Class::Logical, span)
            }
            (_, Update::Binary(op)) => {
                let element = self.convert_to(element, class);
                self.binary_expr(op, acc_expr, element, class, span)
            }
            (_, Update::Call(b)) => {
                // `max(element, acc)`: of equal values (-0 and +0) the scalar `max` returns
                // its second operand, so the earliest element stays, as in Octave's `max(v)`.
                let element = self.convert_to(element, class);
                self.new_expr(
                    ExprKind::Call(b, vec![element, acc_expr]),
                    Type::scalar(class),
                    span,
                )
            }
            (_, update) => unreachable!("the library's reductions are not written as {update:?}"),
        };
        self.push(StmtKind::Assign { target: acc, value }, span);
    }

    /// Reduces every element of `a`, in column-major order, to one logical (`any`/`all`).
    pub(super) fn all_elements(&mut self, kind: Reduction, a: &ArrayVal, span: Span) -> ExprId {
        self.vector_reduction(kind, a, Class::Logical, span)
    }

    /// A new accumulator temporary set to the reduction's identity.
    pub(super) fn accumulator(&mut self, kind: Reduction, class: Class, span: Span) -> LocalId {
        let acc = self.temp(kind.name(), Type::scalar(class), span);
        let init = self.identity(kind, class, span);
        self.push(
            StmtKind::Assign {
                target: acc,
                value: init,
            },
            span,
        );
        acc
    }

    /// `nnz(x)`: the number of elements of `x` that are not zero (NaN counts), a double: the
    /// sum of `x ~= 0` over every element.
    pub(super) fn nnz(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [x] = args else {
            self.error(
                "E0105",
                span,
                "wrong number of arguments to `nnz`".into(),
                "write `nnz(x)`: the number of nonzero elements of x".into(),
            );
            return None;
        };
        let zero = self.constant_expr(0.0, Class::Double, span);
        let nonzero = match self.value(x)? {
            Val::Scalar(e) => {
                let ne = self.binary_expr(BinOp::Ne, e, zero, Class::Logical, span);
                return Some(Val::Scalar(self.convert_to(ne, Class::Double)));
            }
            Val::Array(a) => self.elementwise(
                BinOp::Ne,
                Operand::Array(Box::new(a)),
                Operand::Scalar(zero),
                Class::Logical,
                span,
            )?,
        };
        let count = self.vector_reduction(Reduction::Sum, &nonzero, Class::Double, span);
        Some(Val::Scalar(count))
    }

    /// Reduces a vector to a scalar temporary; returns its value.
    pub(super) fn vector_reduction(
        &mut self,
        kind: Reduction,
        a: &ArrayVal,
        class: Class,
        span: Span,
    ) -> ExprId {
        let acc = self.accumulator(kind, class, span);
        let n = self.numel_expr(a, span);
        self.counted_loop("k", n, span, |me, k| {
            let element = me.element(a, Pos::linear(k));
            me.accumulate(kind, acc, element, span);
        });
        let result = self.new_expr(ExprKind::Local(acc), Type::scalar(class), span);
        self.finish_reduction(kind, result, a, 0, span)
    }

    /// The result from the accumulator: `mean` divides by the count along `dim` (0: all).
    fn finish_reduction(
        &mut self,
        kind: Reduction,
        acc: ExprId,
        a: &ArrayVal,
        dim: u8,
        span: Span,
    ) -> ExprId {
        if kind != Reduction::Mean {
            return acc;
        }
        let n = match dim {
            1 => self.copy_expr(a.rows),
            2 => self.copy_expr(a.cols),
            _ => self.numel_expr(a, span),
        };
        let class = self.exprs[acc].ty.class;
        self.binary_expr(BinOp::Div, acc, n, class, span)
    }

    /// Reduces along `along.dim` into a row (dim 1) or column (dim 2) temporary.
    fn matrix_reduction(
        &mut self,
        kind: Reduction,
        a: &ArrayVal,
        class: Class,
        Along {
            dim,
            empty_gives_one,
        }: Along,
        span: Span,
    ) -> Option<Val> {
        let (mut out_shape, kept, along) = if dim == 1 {
            (Shape::new(Dim::Known(1), a.shape.cols), a.cols, a.rows)
        } else {
            (Shape::new(a.shape.rows, Dim::Known(1)), a.rows, a.cols)
        };
        let may_be_0x0 = |d: Dim| matches!(d, Dim::Known(0) | Dim::Var);
        let zero_by_zero = empty_gives_one && may_be_0x0(a.shape.rows) && may_be_0x0(a.shape.cols);
        if zero_by_zero && a.shape.rows == Dim::Known(0) && a.shape.cols == Dim::Known(0) {
            // `sum(zeros(0, 0))`: one result, the reduction of no elements.
            let none = self.identity(kind, class, span);
            return Some(Val::Scalar(self.finish_reduction(kind, none, a, dim, span)));
        }
        let kept = match zero_by_zero {
            true => {
                out_shape.cols = Dim::Var;
                self.outputs_of_0x0(a, span)
            }
            false => kept,
        };
        let out = self.temp("t", Type::array(class, out_shape), span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let kept_n = self.copy_expr(kept);
        let (rows, cols) = if dim == 1 {
            (one, kept_n)
        } else {
            (kept_n, one)
        };
        self.alloc_zeros(out, rows, cols, None, span);
        let (o, i) = (
            self.counting_loop_var("o", span),
            self.counting_loop_var("i", span),
        );
        let acc = self.temp(kind.name(), Type::scalar(class), span);
        self.open_block();
        let init = self.identity(kind, class, span);
        self.push(
            StmtKind::Assign {
                target: acc,
                value: init,
            },
            span,
        );
        self.open_block();
        let pos = if dim == 1 {
            Pos::grid(i, o)
        } else {
            Pos::grid(o, i)
        };
        let element = self.element(a, pos);
        self.accumulate(kind, acc, element, span);
        let inner = self.close_block();
        let along_n = self.copy_expr(along);
        self.emit_for(i, along_n, inner, span);
        let result = self.new_expr(ExprKind::Local(acc), Type::scalar(class), span);
        let value = self.finish_reduction(kind, result, a, dim, span);
        let at = self.new_expr(ExprKind::Local(o), Type::scalar(Class::Double), span);
        self.push(
            StmtKind::Store {
                array: out,
                indices: vec![at],
                value,
            },
            span,
        );
        let body = self.close_block();
        let kept_n = self.copy_expr(kept);
        self.emit_for(o, kept_n, body, span);
        Some(Val::Array(self.whole(out, span)))
    }

    /// The count of results of a reduction along the default dimension (1) of a value that may
    /// be 0-by-0: its columns, or 1 for a 0-by-0 value (`sum([])` is `0`, `prod([])` `1`,
    /// `any([])` false, `all([])` true, `mean([])` NaN in MATLAB and Octave, where `sum(zeros(0,
    /// 3))` is 1-by-3).
    fn outputs_of_0x0(&mut self, a: &ArrayVal, span: Span) -> ExprId {
        let cols = self.copy_expr(a.cols);
        self.plus_one_if_0x0(a, cols, span)
    }

    /// `n + (a is 0-by-0)`.
    pub(super) fn plus_one_if_0x0(&mut self, a: &ArrayVal, n: ExprId, span: Span) -> ExprId {
        let zero = |me: &mut Self| me.constant_expr(0.0, Class::Double, span);
        let (rows, cols) = (self.copy_expr(a.rows), self.copy_expr(a.cols));
        let (z1, z2) = (zero(self), zero(self));
        let no_rows = self.binary_expr(BinOp::Eq, rows, z1, Class::Logical, span);
        let no_cols = self.binary_expr(BinOp::Eq, cols, z2, Class::Logical, span);
        let both = self.binary_expr(BinOp::And, no_rows, no_cols, Class::Logical, span);
        let extra = self.convert_to(both, Class::Double);
        self.binary_expr(BinOp::Add, n, extra, Class::Double, span)
    }

    /// `[m, k] = max(x)`, `max(x, [], dim)` and the same of `min`: a real numeric vector
    /// without a dimension is one located reduction (`located_extreme`); anything else inlines
    /// m2cu's own `m2cu_located.m` (a search per column or row).
    pub(super) fn located_outputs(
        &mut self,
        kind: Reduction,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Vec<Val>> {
        let name = kind.name();
        let (args, flags) = self.reduction_flags(kind, args)?;
        if flags.all {
            self.error(
                "E0167",
                span,
                format!("`[m, k] = {name}(A, [], 'all')` is not supported by m2cu yet"),
                format!("search the elements as one column, `[m, k] = {name}(A(:))`: k is then the linear index, as with 'all'"),
            );
            return None;
        }
        let (x, dim) = match args {
            [x] => (x, None),
            [x, empty] if super::grow::is_empty_matrix(empty) => (x, None),
            [x, empty, dim] if super::grow::is_empty_matrix(empty) => (x, Some(dim)),
            _ => {
                self.error(
                    "E0105",
                    span,
                    format!("`[m, k] = {name}(...)` takes an array, and `[]` and a dimension"),
                    format!("write `[m, k] = {name}(A)` or `[m, k] = {name}(A, [], dim)`: MATLAB gives no index when comparing two arrays"),
                );
                return None;
            }
        };
        let x = self.value(x)?;
        if let (None, Val::Array(a)) = (dim, &x) {
            let real_vector = a.is_vector() && !is_complex_val(self, a);
            if real_vector && !matches!(a.class, Class::Logical | Class::Char) {
                let (m, k) = self.located_extreme(kind, a.clone(), span);
                return Some(vec![Val::Scalar(m), Val::Scalar(k)]);
            }
        }
        let largest = f64::from(u8::from(kind == Reduction::Max));
        let largest = self.constant_expr(largest, Class::Double, span);
        let mut vals = vec![Arg::Value(x), Arg::Value(Val::Scalar(largest))];
        if let Some(dim) = dim {
            vals.push(Arg::Value(self.value(dim)?));
        }
        self.inline_bundled_helper("m2cu_located", vals, 2, span)
    }

    /// `[m, k] = max(v)` / `min(v)` of a real numeric vector: the extreme value and the first
    /// index where it occurs, skipping NaN.
    fn located_extreme(&mut self, kind: Reduction, a: ArrayVal, span: Span) -> (ExprId, ExprId) {
        let class = a.class;
        let n = self.numel_expr(&a, span);
        self.nonempty_check(n, span);
        let m = self.temp("m", Type::scalar(class), span);
        let k = self.temp("k", Type::scalar(Class::Double), span);
        let (lo, hi) = class
            .int_range()
            .unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
        let (start, op) = if kind == Reduction::Max {
            (lo, BinOp::Gt)
        } else {
            (hi, BinOp::Lt)
        };
        let init = self.constant_expr(start, class, span);
        self.push(
            StmtKind::Assign {
                target: m,
                value: init,
            },
            span,
        );
        let zero = self.constant_expr(0.0, Class::Double, span);
        self.push(
            StmtKind::Assign {
                target: k,
                value: zero,
            },
            span,
        );
        self.location_loop(&a, m, k, op, span);
        self.location_fixup(&a, m, k, start, span);
        let mv = self.new_expr(ExprKind::Local(m), Type::scalar(class), span);
        let kv = self.new_expr(ExprKind::Local(k), Type::scalar(Class::Double), span);
        (mv, kv)
    }

    /// `for i: if v(i) op m, m = v(i); k = i; end`: strict comparison keeps the first index.
    fn location_loop(&mut self, a: &ArrayVal, m: LocalId, k: LocalId, op: BinOp, span: Span) {
        let class = a.class;
        let n = self.numel_expr(a, span);
        self.counted_loop("i", n, span, |me, i| {
            let e = me.element(a, Pos::linear(i));
            let mv = me.new_expr(ExprKind::Local(m), Type::scalar(class), span);
            let cond = me.binary_expr(op, e, mv, Class::Logical, span);
            me.emit_if(cond, span, |me| me.record_location(a, m, k, i, span));
        });
    }

    /// `m = v(i); k = i`.
    fn record_location(&mut self, a: &ArrayVal, m: LocalId, k: LocalId, i: LocalId, span: Span) {
        let e = self.element(a, Pos::linear(i));
        self.push(
            StmtKind::Assign {
                target: m,
                value: e,
            },
            span,
        );
        let iv = self.new_expr(ExprKind::Local(i), Type::scalar(Class::Double), span);
        self.push(
            StmtKind::Assign {
                target: k,
                value: iv,
            },
            span,
        );
    }

    /// When no element beat the starting value, every element is NaN or equals it: the answer
    /// is the first element equal to the starting value, else NaN at index 1.
    fn location_fixup(&mut self, a: &ArrayVal, m: LocalId, k: LocalId, start: f64, span: Span) {
        let kv = self.new_expr(ExprKind::Local(k), Type::scalar(Class::Double), span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let none = self.binary_expr(BinOp::Eq, kv, zero, Class::Logical, span);
        self.emit_if(none, span, |me| me.first_edge(a, m, k, start, span));
    }

    /// `m = NaN (or start); k = 1`, then the first element equal to `start`, if any.
    fn first_edge(&mut self, a: &ArrayVal, m: LocalId, k: LocalId, start: f64, span: Span) {
        let class = a.class;
        let nan = if class.is_float() { f64::NAN } else { start };
        let nan = self.constant_expr(nan, class, span);
        self.push(
            StmtKind::Assign {
                target: m,
                value: nan,
            },
            span,
        );
        let one = self.constant_expr(1.0, Class::Double, span);
        self.push(
            StmtKind::Assign {
                target: k,
                value: one,
            },
            span,
        );
        let n = self.numel_expr(a, span);
        self.counted_loop("i", n, span, |me, i| {
            let e = me.element(a, Pos::linear(i));
            let edge = me.constant_expr(start, class, span);
            let cond = me.binary_expr(BinOp::Eq, e, edge, Class::Logical, span);
            me.emit_if(cond, span, |me| {
                me.record_location(a, m, k, i, span);
                me.push(StmtKind::Break, span);
            });
        });
    }
}

/// The dimension a matrix reduction runs along, and whether it is MATLAB's default there (which
/// gives one result for a 0-by-0 value: see [`Lowerer::outputs_of_0x0`]).
#[derive(Clone, Copy)]
struct Along {
    dim: u8,
    empty_gives_one: bool,
}

/// MATLAB's default dimension, the first whose extent is not 1, when the static extents decide
/// it: an extent unknown when translating decides only when every later one is known to be 1
/// (if it is 1 too, the value is one element, which every dimension reduces alike).
pub(super) fn first_nonunit_dim(shape: Shape) -> Option<u8> {
    let extents = [shape.rows, shape.cols, shape.pages];
    for (d, extent) in (1u8..).zip(extents) {
        let later_unit = extents[usize::from(d)..]
            .iter()
            .all(|e| *e == Dim::Known(1));
        match extent {
            Dim::Known(1) => continue,
            Dim::Known(_) => return Some(d),
            Dim::Var if later_unit => return Some(d),
            Dim::Var => return None,
        }
    }
    Some(1)
}
