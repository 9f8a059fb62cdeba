//! Complex double arrays inside a function (issue 15 item 14): `z = zeros(1, n)` then
//! `z(k) = <complex>`, element reads `z(k)`, and whole-array expressions with complex operands.
//!
//! A double array local assigned a complex element or a complex array value anywhere becomes
//! complex from its first assignment (lowering starts again, as for scalars: see `complex`); it
//! is held as an array of the prelude's `m2cu_cdouble`, zeros as `0 + 0i`. A real value stored
//! into it is converted (`complex(x, 0)` is not made: the stored value is Octave's narrowed one).
//!
//! Narrowing, as Octave 7.3 does it (experiments in `fixtures/complex/arrays.m`,
//! `tests/complex.rs`):
//! - a complex ARRAY is narrowed to a real array only when every imaginary part is zero;
//! - an element read `z(k)` is a complex scalar, narrowed to real when its imaginary part is
//!   zero, so in a loop `w(k) = z(k) * y` works on the narrowed element. m2cu reads elements so
//!   (`codegen::complex`: a read's zero imaginary part is `+0` and the value is not fresh),
//!   which makes every element-by-element loop exact;
//! - in a whole-array expression (`z .* y`, `exp(1i * x)`) Octave computes each operation on
//!   whole arrays, and narrows each complex result array only when all its imaginary parts
//!   are zero: an element with a zero imaginary part is complex when another element is not
//!   real, and real when none is. The values differ with Inf and NaN (`[1+2i, 3] / 0` has
//!   `Inf - NaNi` where `3 / 0` is `Inf`), and which case holds is known only at run time:
//!   `.*` and `./` of a complex array value find out at run time whether Octave holds it
//!   complex (some imaginary part is not zero) and compute its elements as complex values
//!   then, as Octave's narrowed scalars otherwise (`Lowerer::settled`; GPU Coder's Mandelbrot
//!   example, `z = z .* z + z0`, runs so); a variable that may come straight from
//!   `complex(a, b)`, which Octave keeps complex however its parts are, stops with
//!   `M2CU_E_COMPLEX_ALL_REAL` when all real. `z * y`, `y * z` and `z / y` with a real scalar
//!   `y` differ only for a `y` that is not finite (or is 0 for `/`), so there `y` is checked
//!   instead (`M2CU_E_COMPLEX_FACTOR`). `exp` does not depend on it. `.^`, `sqrt`, `log` and
//!   `angle` of any complex array value are E0143 (the help gives the loop, which m2cu
//!   computes as MATLAB's loop): their values depend on the sign of a zero imaginary part
//!   too, which Octave keeps in a complex array and m2cu does not (below);
//! - `+`, `-`, `==`, `~=`, unary minus, `real`, `imag`, `abs`, `conj`, `.'` and `'` and `sum`
//!   give the same values either way, except the sign of a zero imaginary part: Octave keeps
//!   a -0 in a complex array (`-z`, `z'` of an element with a +0 one) and drops it when it
//!   narrows; m2cu narrows every element it computes, so such parts are +0 (observable only
//!   through `1 ./ imag(w)`; an element read narrows either way).
//!
//! Invariant: a complex array local has class double. A real input array stays real (a complex
//! store into it is E0141); a complex input or output array crosses the boundary as
//! `complex_io` says.

use super::array::{ArrayVal, Node, Operand, Pos, Val};
use super::mean_empty::MeanDim;
use super::reduce::Reduction;
use super::*;

/// Whether the elements of `v` are complex.
pub(super) fn is_complex_val(l: &Lowerer<'_>, v: &ArrayVal) -> bool {
    let operand = |o: &Operand| match o {
        Operand::Scalar(e) => l.exprs[*e].ty.complex,
        Operand::Array(a) => is_complex_val(l, a),
    };
    match &v.node {
        Node::Whole(a) | Node::Slice(a, _) => l.locals[*a].ty.complex,
        Node::Range { .. } | Node::Convert(_) => false,
        Node::Unary(UnOp::Neg, a) | Node::Transpose(a) => is_complex_val(l, a),
        Node::Unary(..) => false,
        Node::Broadcast { inner, .. } => is_complex_val(l, inner),
        Node::Binary(op, a, b) => is_arithmetic(*op) && (operand(a) || operand(b)),
        Node::Call(b, args) => match b {
            Builtin::Complex => true,
            Builtin::Conj | Builtin::Exp | Builtin::Sqrt => args.iter().any(operand),
            _ => false,
        },
    }
}

fn is_arithmetic(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Pow
    )
}

/// Whether the operation `op` (or the call of `builtin`) on the elements of a complex array
/// value gives values that depend on whether Octave holds that value narrowed to real (see
/// the module docs): `.*`, `./`, `.^`, `sqrt`, `log` and `angle`. Not `exp`: the `cexp` of
/// `x ± 0i` is `exp(x) ± 0i`, Inf and NaN included, as the prelude's `m2cu_cexp` computes it.
fn depends_on_narrowing(op: Option<BinOp>, builtin: Option<Builtin>) -> bool {
    matches!(op, Some(BinOp::Mul | BinOp::Div | BinOp::Pow))
        || matches!(builtin, Some(Builtin::Sqrt | Builtin::Angle | Builtin::Log))
}

/// Whether `op` depends on the narrowing only where an element with a zero imaginary part
/// meets Inf or NaN, and not on the sign of a zero imaginary part: `.*` and `./` (their
/// results' zeros may differ in sign, which only `sqrt`, `log`, `angle` and `.^` then tell
/// apart). Their complex array operands are settled at run time (`Lowerer::settled`).
fn settles_at_run_time(op: BinOp) -> bool {
    matches!(op, BinOp::Mul | BinOp::Div)
}

impl Lowerer<'_> {
    /// The type of an array value `v`'s elements.
    pub(super) fn element_type(&self, v: &ArrayVal) -> Type {
        Type {
            complex: is_complex_val(self, v),
            ..Type::scalar(v.class)
        }
    }

    /// The type of one element of the array local `array`.
    pub(super) fn element_of(&self, array: LocalId) -> Type {
        let ty = self.locals[array].ty;
        Type {
            complex: ty.complex,
            ..Type::scalar(ty.class)
        }
    }

    /// The type of a local holding the array value `v`.
    pub(super) fn array_type(&self, v: &ArrayVal) -> Type {
        Type {
            complex: is_complex_val(self, v),
            ..Type::array(v.class, v.shape)
        }
    }

    /// The type of the concatenation of `items` with class `class`: complex when one is.
    pub(super) fn concat_type<'v>(
        &self,
        mut items: impl Iterator<Item = &'v Val>,
        class: Class,
        shape: Shape,
    ) -> Type {
        let complex = items.any(|v| match v {
            Val::Scalar(e) => self.exprs[*e].ty.complex,
            Val::Array(a) => is_complex_val(self, a),
        });
        Type {
            complex,
            ..Type::array(class, shape)
        }
    }

    /// `src` when `name = src` may copy the array (the target has `src`'s complexness); a real
    /// array assigned to a complex one is written element by element instead.
    pub(super) fn copyable_into(&self, name: &ast::Ident, src: LocalId) -> Option<LocalId> {
        let ty = self.locals[src].ty;
        let target = match self.scope.names.get(&name.name) {
            Some(&id) => self.locals[id].ty,
            None => self.complex_if_widened(&name.name, ty),
        };
        (target.complex == ty.complex || target.is_scalar()).then_some(src)
    }

    /// `value` as an element stored into `array`: converted to its class, and to complex for
    /// a complex array. A complex value stored into a real double array makes the array
    /// complex from its first assignment (another lowering attempt); into any other array,
    /// `check_uses` reports it.
    pub(super) fn stored_value(&mut self, array: LocalId, value: ExprId) -> ExprId {
        let ty = self.locals[array].ty;
        if self.exprs[value].ty.complex && !ty.complex {
            if ty.class == Class::Double && !self.params.contains(&array) {
                self.widen(array);
            }
            return value;
        }
        let value = self.convert_to(value, ty.class);
        self.as_local_value(array, value)
    }

    /// Reports E0143 when `builtin` has a complex array argument and its values depend on
    /// Octave's narrowing of it; `None` after the diagnostic.
    pub(super) fn check_call_narrowing(
        &mut self,
        builtin: Builtin,
        args: &[&ArrayVal],
        span: Span,
    ) -> Option<()> {
        let complex = args.iter().any(|a| is_complex_val(self, a));
        if complex && depends_on_narrowing(None, Some(builtin)) {
            self.narrowing_unknown(span, &format!("`{}`", builtin.name()));
            return None;
        }
        Some(())
    }

    /// The operands of the elementwise `a op b` with a complex array among them settled where
    /// its values depend on Octave's narrowing of it: `.*` and `./` check at run time that
    /// each complex array operand is not all real ([`Self::settled`]); `z * y`, `y * z` and
    /// `z / y` with a real scalar `y` depend on it only when `y` is not finite (or is 0 for
    /// `/`), so they check `y` instead (`M2CU_E_COMPLEX_FACTOR`); `.^` is E0143, `None` after
    /// the diagnostic.
    pub(super) fn settle_elementwise_narrowing(
        &mut self,
        op: BinOp,
        a: Operand,
        b: Operand,
        span: Span,
    ) -> Option<(Operand, Operand)> {
        let complex_array = |o: &Operand| matches!(o, Operand::Array(x) if is_complex_val(self, x));
        if !(complex_array(&a) || complex_array(&b)) || !depends_on_narrowing(Some(op), None) {
            return Some((a, b));
        }
        let real = |e: &ExprId| !self.exprs[*e].ty.complex;
        match (op, &a, &b) {
            (BinOp::Mul, Operand::Array(_), Operand::Scalar(y))
            | (BinOp::Mul, Operand::Scalar(y), Operand::Array(_))
            | (BinOp::Div, Operand::Array(_), Operand::Scalar(y))
                if real(y) =>
            {
                self.check_real_factor(op, *y, span);
                Some((a, b))
            }
            _ if settles_at_run_time(op) => {
                let same_local = match (&a, &b) {
                    (Operand::Array(x), Operand::Array(y)) => {
                        matches!((&x.node, &y.node), (Node::Whole(p), Node::Whole(q)) if p == q)
                    }
                    _ => false,
                };
                let mut settle = |o: Operand| match o {
                    Operand::Array(x) if is_complex_val(self, &x) => {
                        Operand::Array(Box::new(self.settled(&x, span)))
                    }
                    other => other,
                };
                let a = settle(a);
                // `z .* z` checks `z` once.
                let b = if same_local { a.clone() } else { settle(b) };
                Some((a, b))
            }
            _ => {
                self.narrowing_unknown(span, &format!("`{}`", elementwise_symbol(op)));
                None
            }
        }
    }

    /// The complex array value `v` as the operand of an operation whose values depend on
    /// Octave's narrowing of it. Octave holds an array complex, every element complex even
    /// with a zero imaginary part, when some imaginary part is not zero, or when the value
    /// comes straight from `complex(a, b)` (an input, a copy or a function's output of one:
    /// indexing, transposing, any operation and an indexed store narrow). So the elements
    /// come as `complex(real(v), imag(v), held)`, `held` being whether some imaginary part is
    /// not zero (an `any` over `v`): the prelude computes with them as complex values where
    /// `held` is true and as Octave's narrowed scalars where it is not. `complex(a, b)` itself
    /// is complex always; a variable that may hold such a value ([`fresh_names`]) and is all
    /// real stops with `M2CU_E_COMPLEX_ALL_REAL`, since whether Octave narrowed it is not known
    /// (the names of the function being lowered, whose body the inlined calls do not share).
    fn settled(&mut self, v: &ArrayVal, span: Span) -> ArrayVal {
        if matches!(v.node, Node::Call(Builtin::Complex, _)) {
            return v.clone();
        }
        let function = self.inlining.last().copied().unwrap_or(self.entry.function);
        let may_be_fresh = match v.node {
            Node::Whole(l) => self
                .matlab_names
                .get(&l)
                .is_some_and(|name| fresh_names(function).contains(name)),
            _ => false,
        };
        let local = self.whole_local(v);
        let part = |me: &mut Self, builtin: Builtin| {
            let whole = Val::Array(me.whole(local, span));
            match me.elementwise_call(builtin, vec![whole], Class::Double, span) {
                Some(Val::Array(part)) => Some(part),
                _ => None,
            }
        };
        let (Some(re), Some(im)) = (part(self, Builtin::Real), part(self, Builtin::Imag)) else {
            return self.whole(local, span);
        };
        let zero = self.constant_expr(0.0, Class::Double, span);
        let nonzero = Operand::Array(Box::new(im.clone()));
        let Some(nonzero) = self.elementwise(
            BinOp::Ne,
            nonzero,
            Operand::Scalar(zero),
            Class::Logical,
            span,
        ) else {
            return self.whole(local, span);
        };
        let any = self.all_elements(Reduction::Any, &nonzero, span);
        let held = self.temp("held", Type::scalar(Class::Logical), span);
        self.push(
            StmtKind::Assign {
                target: held,
                value: any,
            },
            span,
        );
        let read_held =
            |me: &mut Self| me.new_expr(ExprKind::Local(held), Type::scalar(Class::Logical), span);
        if may_be_fresh {
            let all = self.whole(local, span);
            let n = self.numel_expr(&all, span);
            let none = self.constant_expr(0.0, Class::Double, span);
            let empty = self.binary_expr(BinOp::Eq, n, none, Class::Logical, span);
            let held = read_held(self);
            let cond = self.binary_expr(BinOp::OrOr, held, empty, Class::Logical, span);
            let error = crate::ir::RuntimeError::ComplexAllReal;
            self.push(StmtKind::Check { cond, error }, span);
        }
        let parts = vec![Val::Array(re), Val::Array(im), Val::Scalar(read_held(self))];
        match self.elementwise_call(Builtin::Complex, parts, Class::Double, span) {
            Some(Val::Array(held_complex)) => held_complex,
            _ => self.whole(local, span),
        }
    }

    /// The run-time check of [`Self::settle_elementwise_narrowing`]: `isfinite(y)`, and
    /// `y ~= 0` for a division.
    fn check_real_factor(&mut self, op: BinOp, y: ExprId, span: Span) {
        let y = self.copy_expr(y);
        let logical = Type::scalar(Class::Logical);
        let finite = self.new_expr(ExprKind::Call(Builtin::IsFinite, vec![y]), logical, span);
        let cond = if op == BinOp::Div {
            let y = self.copy_expr(y);
            let zero = self.constant_expr(0.0, Class::Double, span);
            let nonzero = self.binary_expr(BinOp::Ne, y, zero, Class::Logical, span);
            self.binary_expr(BinOp::AndAnd, finite, nonzero, Class::Logical, span)
        } else {
            finite
        };
        let error = crate::ir::RuntimeError::ComplexFactor;
        self.push(StmtKind::Check { cond, error }, span);
    }

    /// The element `a op b` of a whole-array expression with a complex operand; a constant
    /// after a diagnostic.
    pub(super) fn complex_element_binary(
        &mut self,
        op: BinOp,
        a: ExprId,
        b: ExprId,
        span: Span,
    ) -> ExprId {
        self.complex_binary(op, a, b, span)
            .unwrap_or_else(|| self.constant_expr(0.0, Class::Double, span))
    }

    /// The element `builtin(args)` of a whole-array expression with a complex argument; a
    /// constant after a diagnostic.
    pub(super) fn complex_element_call(
        &mut self,
        builtin: Builtin,
        args: Vec<ExprId>,
        span: Span,
    ) -> ExprId {
        self.complex_call(builtin, args, span)
            .unwrap_or_else(|| self.constant_expr(0.0, Class::Double, span))
    }

    /// `sum(a)` or `mean(a)` of a complex vector value: `acc = acc + a(k)` in order, as
    /// Octave's sum of complex values (a sum's parts do not depend on narrowing). `prod` is
    /// E0144 (Octave multiplies its elements as complex values, narrowed or not), other
    /// reductions E0142, and a reduction of a matrix along a dimension E0144.
    pub(super) fn complex_reduction(
        &mut self,
        kind: Reduction,
        a: &ArrayVal,
        dim: Option<u8>,
        span: Span,
    ) -> Option<Val> {
        match kind {
            Reduction::Sum | Reduction::Mean => {}
            Reduction::Prod => {
                self.complex_reduction_unsupported(span, "`prod` of complex values", "write the loop `p = 1; for k = 1:numel(z), p = p * z(k); end`, which m2cu computes as MATLAB does (MATLAB's `prod` differs from it only when an element with a zero imaginary part meets Inf or NaN)");
                return None;
            }
            _ => {
                self.complex_unsupported(span, &format!("`{}`", kind.name()));
                return None;
            }
        }
        let given = dim.map_or(MeanDim::Default, MeanDim::Fixed);
        let dim = self.reduction_dim(kind, a, dim, span)?;
        if kind == Reduction::Mean {
            self.mean_of_empty_check(a, given, span);
        }
        if a.shape.is_3d() || !self.reduces_to_scalar(a, dim) {
            self.complex_reduction_unsupported(span, "a reduction of a complex matrix along a dimension", "reduce each column or row in a loop, `for j = 1:size(Z, 2), s(j) = sum(Z(:, j)); end`, which gives MATLAB's values");
            return None;
        }
        let acc = self.temp("sum", Type::complex_scalar(Class::Double), span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let init = self.as_local_value(acc, zero);
        self.push(
            StmtKind::Assign {
                target: acc,
                value: init,
            },
            span,
        );
        let n = self.numel_expr(a, span);
        self.counted_loop("k", n, span, |me, k| {
            let element = me.element(a, Pos::linear(k));
            let total = me.new_expr(ExprKind::Local(acc), me.locals[acc].ty, span);
            let value = me.complex_element_binary(BinOp::Add, total, element, span);
            me.push(StmtKind::Assign { target: acc, value }, span);
        });
        let total = self.new_expr(ExprKind::Local(acc), self.locals[acc].ty, span);
        if kind == Reduction::Sum {
            return Some(Val::Scalar(total));
        }
        let n = self.numel_expr(a, span);
        Some(Val::Scalar(self.complex_element_binary(
            BinOp::Div,
            total,
            n,
            span,
        )))
    }

    /// E0144: a reduction of complex values that m2cu does not lower.
    fn complex_reduction_unsupported(&mut self, span: Span, what: &str, help: &str) {
        self.error(
            "E0144",
            span,
            format!("{what} is not supported"),
            help.to_string(),
        );
    }

    /// E0143: `what` of a whole complex array, whose result depends on whether Octave holds
    /// the array narrowed (see the module docs).
    fn narrowing_unknown(&mut self, span: Span, what: &str) {
        self.error(
            "E0143",
            span,
            format!("{what} of a whole complex array is not supported"),
            "in a complex array Octave keeps the sign of a zero imaginary part, which decides this result on the negative real axis, and narrows the array to real when all its imaginary parts are zero; compute the elements in a loop (for example `for k = 1:numel(z), w(k) = sqrt(z(k)); end`), whose MATLAB result m2cu reproduces (it equals the whole-array result except for such elements)".into(),
        );
    }
}

fn elementwise_symbol(op: BinOp) -> &'static str {
    match op {
        BinOp::Mul => ".*",
        BinOp::Div => "./",
        BinOp::Pow => ".^",
        o => o.symbol(),
    }
}

/// The names of `function` that may hold a value Octave keeps complex with all imaginary
/// parts zero: its parameters, and names assigned a `complex(...)` call, a bare name (a copy
/// keeps the value as it is), a call of anything but a builtin (a function returns its
/// variable as it is) or several outputs at once. Indexing, transposing, operations and
/// indexed stores give a value Octave narrows, so a name assigned only those never holds one.
fn fresh_names(function: &ast::Function) -> HashSet<String> {
    let mut names: HashSet<String> = function.params.iter().map(|p| p.name.clone()).collect();
    super::walk_stmts(&function.body, &mut |s| {
        let ast::StmtKind::Assign { targets, value } = &s.kind else {
            return;
        };
        if targets.len() == 1 && !keeps_freshness(value) {
            return;
        }
        names.extend(targets.iter().filter_map(|t| match t {
            ast::LValue::Var(name) => Some(name.name.clone()),
            _ => None,
        }));
    });
    names
}

/// Whether the value of `e` may be a value Octave holds complex with all imaginary parts zero.
fn keeps_freshness(e: &ast::Expr) -> bool {
    match &e.kind {
        AstExpr::Paren(inner) => keeps_freshness(inner),
        AstExpr::Ident(_) => true,
        AstExpr::Call { callee, .. } => {
            callee.name == "complex" || Builtin::from_name(&callee.name).is_none()
        }
        _ => false,
    }
}
