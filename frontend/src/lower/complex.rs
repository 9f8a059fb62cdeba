//! Complex numbers: complex double scalars inside a function (issue 15 item 14).
//!
//! What is exact:
//! - literals `2i`, `3.5e2j` and the names `i`/`j` as the imaginary unit where the function
//!   being lowered never assigns them (a `for i = ...` makes `i` a variable);
//! - `+ - * /` and unary `-` with a complex scalar operand give a complex double; with a real
//!   operand Octave works part by part (`complex(1,0)/0` is `Inf - NaNi`), so does m2cu;
//!   `z^b` and `z.^b` with a real exponent `b` (Octave's `xpow`: squarings for an integer);
//! - `==`/`~=` compare both parts; `< <= > >=` are E0142: Octave orders complex values by
//!   `abs`, then `angle` (not by real parts as MATLAB), and a value narrowed to real by the
//!   real order, which m2cu cannot tell apart at translation time;
//! - `complex(a, b)`, `real`, `imag`, `conj`, `abs` (hypot), `angle` (atan2), `exp`, `sqrt`
//!   of a complex value, and `z'` (the conjugate) / `z.'` of a scalar;
//! - a variable first assigned a real double scalar and later a complex one (`z = 0; ...
//!   z = z*z + c`): lowering starts again with that variable complex from its first
//!   assignment ([`Lowerer::complex_reassigned`], `lower::lower`); a real value assigned to a
//!   complex variable is a `Convert` to complex, which stays a real value for Octave's
//!   narrowing (`codegen::complex`), unlike `complex(a, b)`.
//!
//! Invariant (checked by [`check_uses`] after lowering): a complex expression is a scalar of
//! class double, and is only an operand of the operations above, or the value assigned to a
//! complex local, stored into a complex array (`complex_array`), or a complex scalar input or
//! output (`complex_io`). Everything else (printing, conditions, indices, other builtins, a
//! complex exponent) is a diagnostic:
//!
//! - E0140: a complex value of a class other than double (complex integers, single, char);
//! - E0141: a complex value where m2cu keeps real values only (named in the message);
//! - E0142: an operation that m2cu does not define on complex values (named in the message).
//!
//! Octave narrows a complex result whose imaginary part is zero to a real value
//! (`(1+2i)*(1-2i)` is the real `5`; `complex(1,0)` stays complex; `0i` is real), and a later
//! operation then works with a real operand. Whether a value is narrowed shows in its parts
//! only with Inf, NaN or -0 operands (`complex(1,0)/0` is `Inf - NaNi`, `(1+0i)/0` is `Inf`),
//! and in `isreal`/`iscomplex`, which are not offered: `codegen::complex` makes the parts
//! exact at run time (experiments in `fixtures/complex/narrowing.m`, `tests/complex.rs`).
//! `sqrt` of a real value stays real (M2CU_E_COMPLEX for a negative one): MATLAB's class would
//! depend on the value; `sqrt(complex(d))` gives the complex root.

use std::collections::HashSet;

use super::array::Val;
use super::*;

/// The IR names of the locals that are complex from their first assignment (see the module
/// docs), found by earlier lowering attempts.
pub type ComplexLocals = HashSet<String>;

/// The builtins that take or make complex values.
pub(super) fn is_complex_builtin(b: Builtin) -> bool {
    matches!(
        b,
        Builtin::Complex | Builtin::Real | Builtin::Imag | Builtin::Conj | Builtin::Angle
    )
}

/// The builtins defined on a complex argument, and whether their result is complex.
fn complex_result(b: Builtin) -> Option<bool> {
    match b {
        Builtin::Conj | Builtin::Exp | Builtin::Sqrt => Some(true),
        Builtin::Real | Builtin::Imag | Builtin::Abs | Builtin::Angle => Some(false),
        _ => None,
    }
}

impl Lowerer<'_> {
    fn is_complex(&self, e: ExprId) -> bool {
        self.exprs[e].ty.complex
    }

    /// `re + im*i` as a complex double expression of two real double parts.
    fn complex_of(&mut self, re: ExprId, im: ExprId, span: Span) -> ExprId {
        let ty = Type::complex_scalar(Class::Double);
        self.new_expr(ExprKind::Call(Builtin::Complex, vec![re, im]), ty, span)
    }

    /// `2i`: the complex double `0 + 2i`; `0i` is Octave's real 0 (narrowed), held complex.
    pub(super) fn imaginary_literal(&mut self, value: f64, span: Span) -> ExprId {
        let re = self.constant_expr(0.0, Class::Double, span);
        if value == 0.0 {
            let ty = Type::complex_scalar(Class::Double);
            return self.new_expr(ExprKind::Convert(re), ty, span);
        }
        let im = self.constant_expr(value, Class::Double, span);
        self.complex_of(re, im, span)
    }

    /// `i` or `j` read where no variable of that name exists: the imaginary unit, unless the
    /// function being lowered assigns the name somewhere (then MATLAB's meaning depends on
    /// the order at run time, and the name stays undefined here).
    pub(super) fn imaginary_unit(&mut self, name: &str, span: Span) -> Option<ExprId> {
        if !matches!(name, "i" | "j") {
            return None;
        }
        let function = self.inlining.last().copied().unwrap_or(self.entry.function);
        let assigned = grow::assigned_names(&function.body).contains(name)
            || function.outputs.iter().any(|o| o.name == name);
        (!assigned).then(|| self.imaginary_literal(1.0, span))
    }

    /// What names the variable `name` of the scope being lowered in `complex_locals`: its
    /// name with the calls that lead to this scope, so that a function inlined at two calls,
    /// one with a real argument and one with a complex one, widens only the second's locals.
    pub(super) fn widening_key(&self, name: &str) -> String {
        format!("{}{}{name}", self.scope.call_path, self.scope.prefix)
    }

    /// Records that the real double `id` becomes complex: the next attempt makes it complex
    /// from the start.
    pub(super) fn widen(&mut self, id: LocalId) {
        let key = self.widening_keys.get(&id).cloned();
        self.widened
            .insert(key.unwrap_or_else(|| self.locals[id].name.clone()));
    }

    /// `e` as the value of the complex local `target`: a real double becomes `complex(e, 0)`.
    pub(super) fn as_local_value(&mut self, target: LocalId, e: ExprId) -> ExprId {
        if !self.locals[target].ty.complex || self.is_complex(e) {
            return e;
        }
        let span = self.exprs[e].span;
        let e = self.convert_to(e, Class::Double);
        let ty = Type::complex_scalar(Class::Double);
        self.new_expr(ExprKind::Convert(e), ty, span)
    }

    /// A new double local (scalar or array) that an earlier attempt found complex is made
    /// complex.
    pub(super) fn complex_if_widened(&self, name: &str, ty: Type) -> Type {
        let complex =
            self.complex_locals.contains(&self.widening_key(name)) && ty.class == Class::Double;
        Type {
            complex: complex || ty.complex,
            ..ty
        }
    }

    /// `name` (the local `id`) is assigned `ty`, which differs from the local's type in being
    /// complex or not: the local to assign, or `None`, with the name recorded for another
    /// attempt (a real double scalar that becomes complex) or a diagnostic.
    pub(super) fn complex_reassigned(
        &mut self,
        name: &ast::Ident,
        id: LocalId,
        ty: Type,
    ) -> Option<LocalId> {
        let old = self.locals[id].ty;
        let same_kind = old.is_scalar() == ty.is_scalar() && ty.class == Class::Double;
        if old.complex && same_kind {
            return Some(id);
        }
        if old.class == Class::Double && same_kind && !self.params.contains(&id) {
            self.widen(id);
            return None;
        }
        self.error(
            "E0141",
            name.span,
            format!("`{}` was {old} and is assigned a {ty} value here", name.name),
            "m2cu holds complex values in double variables and arrays created inside the function; keep real and imaginary parts in two real variables or arrays (`real(z)`, `imag(z)`)".into(),
        );
        None
    }

    /// `a op b` of two scalars, one of them complex.
    pub(super) fn complex_binary(
        &mut self,
        op: BinOp,
        a: ExprId,
        b: ExprId,
        span: Span,
    ) -> Option<ExprId> {
        for e in [a, b] {
            self.complex_class(e)?;
        }
        let ty = match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                Type::complex_scalar(Class::Double)
            }
            BinOp::Pow if !self.is_complex(b) => Type::complex_scalar(Class::Double),
            BinOp::Eq | BinOp::Ne => Type::scalar(Class::Logical),
            o if o.is_comparison() => {
                // Octave orders by abs, then angle, on values it may have narrowed to real at
                // run time: the order of a value m2cu holds as complex is not known here.
                self.complex_unsupported(span, &format!("the order `{}`", o.symbol()));
                return None;
            }
            BinOp::Pow => {
                self.complex_unsupported(span, "a complex exponent `^`");
                return None;
            }
            o => {
                self.complex_unsupported(span, &format!("`{}`", o.symbol()));
                return None;
            }
        };
        Some(self.new_expr(ExprKind::Binary(op, a, b), ty, span))
    }

    /// Reports E0140 unless `e` is real or a complex double.
    fn complex_class(&mut self, e: ExprId) -> Option<()> {
        let class = self.exprs[e].ty.class;
        if class == Class::Double
            || (!self.is_complex(e) && matches!(class, Class::Logical | Class::Char))
        {
            return Some(());
        }
        let span = self.exprs[e].span;
        self.error(
            "E0140",
            span,
            format!("complex values with {class} operands are not supported"),
            format!("m2cu computes complex values in double: convert first, `double(x)`, and convert the real and imaginary parts back with `{class}(real(z))` where MATLAB's result is {class}"),
        );
        None
    }

    /// E0142: `what` is not defined on complex values in m2cu.
    pub(super) fn complex_unsupported(&mut self, span: Span, what: &str) {
        self.error(
            "E0142",
            span,
            format!("{what} of a complex value is not supported"),
            "m2cu offers + - * / ^ == ~=, abs, angle, real, imag, conj, exp and sqrt on complex values; write the operation on `real(z)` and `imag(z)` (MATLAB's `max`/`min` compare `abs(z)`, then `angle(z)`)".into(),
        );
    }

    /// `complex(a)`: `complex(a, 0)`, elementwise for an array `a`.
    pub(super) fn complex_of_real(&mut self, re: &ast::Expr, span: Span) -> Option<Val> {
        let zero = self.constant_expr(0.0, Class::Double, span);
        match self.value(re)? {
            Val::Scalar(re) => self
                .complex_call(Builtin::Complex, vec![re, zero], span)
                .map(Val::Scalar),
            array => {
                let vals = vec![array, Val::Scalar(zero)];
                self.elementwise_call(Builtin::Complex, vals, Class::Double, span)
            }
        }
    }

    /// `-z` of a complex scalar `z`.
    pub(super) fn complex_negation(&mut self, z: ExprId, span: Span) -> ExprId {
        let ty = Type::complex_scalar(Class::Double);
        self.new_expr(ExprKind::Unary(UnOp::Neg, z), ty, span)
    }

    /// `z'` of a scalar: its conjugate (`z.'` is `z` itself).
    pub(super) fn conjugate_transpose(&mut self, z: ExprId, span: Span) -> ExprId {
        let ty = Type::complex_scalar(Class::Double);
        self.new_expr(ExprKind::Call(Builtin::Conj, vec![z]), ty, span)
    }

    /// A builtin call with scalar arguments `args` where one is complex or the builtin is one
    /// of [`is_complex_builtin`]; `None` after a diagnostic.
    pub(super) fn complex_call(
        &mut self,
        builtin: Builtin,
        args: Vec<ExprId>,
        span: Span,
    ) -> Option<ExprId> {
        for &e in &args {
            self.complex_class(e)?;
        }
        if builtin == Builtin::Complex {
            if args.iter().any(|&e| self.is_complex(e)) {
                self.error(
                    "E0105",
                    span,
                    "`complex` takes real arguments".into(),
                    "write `complex(a, b)` with real `a` and `b`".into(),
                );
                return None;
            }
            let [re, im] = [args[0], args[1]].map(|e| self.convert_to(e, Class::Double));
            if let [_, _, held] = args[..] {
                let ty = Type::complex_scalar(Class::Double);
                let call = ExprKind::Call(Builtin::Complex, vec![re, im, held]);
                return Some(self.new_expr(call, ty, span));
            }
            return Some(self.complex_of(re, im, span));
        }
        let arg = args[0];
        if !self.is_complex(arg) {
            return Some(self.real_part_call(builtin, arg, span));
        }
        let Some(complex) = complex_result(builtin) else {
            self.complex_unsupported(span, &format!("`{}`", builtin.name()));
            return None;
        };
        let ty = match complex {
            true => Type::complex_scalar(Class::Double),
            false => Type::scalar(Class::Double),
        };
        Some(self.new_expr(ExprKind::Call(builtin, args), ty, span))
    }

    /// `real`, `imag`, `conj`, `angle` of a real scalar: itself (in double for a logical or a
    /// char, as Octave's), a zero of its class that still evaluates `x`, or `atan2(0, x)`.
    fn real_part_call(&mut self, builtin: Builtin, x: ExprId, span: Span) -> ExprId {
        let class = match builtin {
            Builtin::Angle => Class::Double,
            _ => arithmetic_class(self.exprs[x].ty.class),
        };
        let x = self.convert_to(x, class);
        match builtin {
            Builtin::Real | Builtin::Conj => x,
            _ => self.new_expr(ExprKind::Call(builtin, vec![x]), Type::scalar(class), span),
        }
    }
}

/// Reports the first complex expression that is not used as the module docs allow (E0141).
/// Run on the finished function.
pub(super) fn check_uses(f: &Function, diags: &mut Diagnostics) {
    let mut used = Vec::new();
    f.walk_stmts(&f.body, &mut |s| {
        for e in f.stmt_exprs(s) {
            f.walk_expr(e, &mut |x| used.push(x));
        }
    });
    let mut allowed: HashSet<ExprId> = HashSet::new();
    for &id in &used {
        allowed.extend(complex_operands(f, id));
    }
    // A real value assigned to a complex local by a path that does not convert it (not
    // `Lowerer::as_local_value`) is reported at the value.
    let mut unconverted = None;
    f.walk_stmts(&f.body, &mut |s| {
        let written = match &f.stmts[s].kind {
            StmtKind::Assign { target, value } => Some((*target, *value)),
            StmtKind::Store { array, value, .. } => Some((*array, *value)),
            _ => None,
        };
        if let Some((target, value)) = written {
            if f.locals[target].ty.complex {
                allowed.insert(value);
                if !f.exprs[value].ty.complex {
                    unconverted = unconverted.or(Some(value));
                }
            }
        }
    });
    let misused = used
        .iter()
        .copied()
        .find(|&e| f.exprs[e].ty.complex && !allowed.contains(&e))
        .or(unconverted);
    if let Some(e) = misused {
        let message = "a complex value is used where m2cu keeps real values only (an array, an index, a condition, a printed value, a conversion)";
        let help = match stored_into_real_input(f, e) {
            Some(input) => format!("`{input}` is a real input, which m2cu keeps real; copy it into a variable of its own first (`w = {input};`) and store into that, which becomes complex as in MATLAB"),
            None => "use `real(z)`, `imag(z)`, `abs(z)` or `angle(z)` there, which keep MATLAB's values; m2cu computes complex values in double variables and arrays created inside the function".to_string(),
        };
        diags.push(Diagnostic::error("E0141", f.exprs[e].span, message).with_help(help));
    }
}

/// The name of the real input array that the complex value `e` is stored into, if it is.
fn stored_into_real_input(f: &Function, e: ExprId) -> Option<&str> {
    f.stmts.iter().find_map(|(_, s)| match s.kind {
        StmtKind::Store { array, value, .. } if value == e && f.is_param(array) => {
            Some(f.locals[array].name.as_str())
        }
        _ => None,
    })
}

/// The operands of `e` that may be complex: those of `+ - * /` and `-` with a complex
/// result, of a comparison, and of a builtin whose result is complex exactly as
/// [`complex_result`] says (or `complex` itself, which checks its real arguments).
fn complex_operands(f: &Function, e: ExprId) -> Vec<ExprId> {
    let expr = &f.exprs[e];
    let complex = expr.ty.complex;
    match &expr.kind {
        ExprKind::Binary(BinOp::Eq | BinOp::Ne, a, b) => vec![*a, *b],
        ExprKind::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div, a, b) if complex => {
            vec![*a, *b]
        }
        ExprKind::Binary(BinOp::Pow, a, _) if complex => vec![*a],
        ExprKind::Unary(UnOp::Neg, a) if complex => vec![*a],
        ExprKind::Call(b, args) if complex_result(*b) == Some(complex) => args.clone(),
        ExprKind::Convert(a) if complex => vec![*a],
        _ => vec![],
    }
}
