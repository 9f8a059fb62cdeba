//! The expression writer: one IR expression → one C expression, valid in C99 and CUDA C++.
//!
//! Invariant: [`ExprWriter::expr`] yields a value of the C type of the expression's class
//! (`Class::c_type`), with MATLAB's semantics as Octave implements them: integer results are
//! computed in double and then rounded and saturated, except int64 and uint64 `+ - * /`, which
//! call the prelude's exact (between integers) or Octave-identical (with a double) helpers;
//! single results in float; every index is checked. An integral loop
//! variable is held in an `int64_t` and converted where a double is needed.

pub(crate) mod complex;

use std::collections::{BTreeSet, HashMap, HashSet};

use m2cu_frontend::ir::{
    combiner_number, BinOp, Builtin, CombinerId, Elementary, ExprId, ExprKind, Function, LocalId,
    SizeQuery, UnOp,
};
use m2cu_frontend::ir_print::format_number;
use m2cu_frontend::types::Class;

use m2cu_analysis::bounds::InRange;

use crate::names::Names;

/// Writes expressions of one function.
pub struct ExprWriter<'a> {
    pub f: &'a Function,
    pub names: &'a Names,
    /// Expressions whose values these C names hold already (`Context::held`).
    pub held: &'a HashMap<ExprId, String>,
    /// The C expression of the `int *` error status: `&m2cu_status` on the host, `m2cu_err` in
    /// kernels.
    pub err: &'a str,
    /// See `CodegenOptions::bounds_checks`.
    pub bounds_checks: bool,
    /// Size queries whose array may not be assigned yet (`crate::defined`).
    pub undefined_sizes: &'a HashSet<ExprId>,
    /// The subscripts proven within their extents, which need no check
    /// (`m2cu_analysis::bounds`).
    pub in_range: &'a InRange,
    /// The subscripts a guard before an enclosing loop found in range (`Context::guarded`).
    pub guarded: &'a BTreeSet<(LocalId, usize, ExprId)>,
}

/// The C type that holds a local: its class's type, or `int64_t` for an integral one (a loop
/// variable, a counter, a scalar that only holds small integers: `Local::integral`).
pub fn local_c_type(f: &Function, local: LocalId) -> &'static str {
    let l = &f.locals[local];
    if l.integral {
        "int64_t"
    } else {
        complex::c_type(l.ty)
    }
}

/// A C literal of class `class` for the double value `v`.
pub fn literal(v: f64, class: Class) -> String {
    match class {
        Class::Double => double_literal(v),
        Class::Single => format!("((float){})", double_literal(v)),
        Class::Logical => (if v != 0.0 { "true" } else { "false" }).to_string(),
        c => format!("(({}){})", c.c_type(), format_number(v)),
    }
}

fn double_literal(v: f64) -> String {
    if v.is_nan() {
        "M2CU_NAN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "M2CU_INF" } else { "(-M2CU_INF)" }.into()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}.0", v as i64)
    } else {
        format!("{v:?}")
    }
}

impl ExprWriter<'_> {
    fn class(&self, e: ExprId) -> Class {
        self.f.exprs[e].ty.class
    }

    /// The value of `e` in the C type of its class.
    pub fn expr(&self, e: ExprId) -> String {
        if let Some(name) = self.held.get(&e) {
            return name.clone();
        }
        let expr = &self.f.exprs[e];
        let class = expr.ty.class;
        if expr.ty.complex {
            return self.complex_value(e);
        }
        match &expr.kind {
            ExprKind::Const(v) => literal(*v, class),
            ExprKind::Local(l) if self.f.locals[*l].integral => {
                format!("((double){})", self.names.get(*l))
            }
            ExprKind::Local(l) => self.names.get(*l).to_string(),
            ExprKind::Unary(UnOp::Not, a) => format!("(!{})", self.cond(*a)),
            ExprKind::Unary(UnOp::Neg, a) if is_wide_int(class) => {
                format!("m2cu_sub_{}(0, {})", class.name(), self.to_class(*a, class))
            }
            ExprKind::Unary(UnOp::Neg, a) => self.arith(class, &format!("(-{})", self.double(*a))),
            ExprKind::Binary(op, a, b) => self.binary(*op, *a, *b, class, crate::sites::of_expr(e)),
            ExprKind::Index(array, indices) => format!(
                "{}[{}]",
                self.names.get(*array),
                self.offset(*array, indices)
            ),
            ExprKind::Call(builtin, args) => {
                self.builtin(*builtin, args, class, crate::sites::of_expr(e))
            }
            ExprKind::Convert(a) => self.convert(*a, class, crate::sites::of_expr(e)),
            ExprKind::Combine(c, args) => {
                let operands: Vec<String> = args.iter().map(|&a| self.expr(a)).collect();
                combine_call(*c, &operands, self.err)
            }
            ExprKind::Size(array, query) => {
                format!("((double){})", self.asked_size(e, *array, *query))
            }
            ExprKind::RangeCount(first, step, last) => format!(
                "((double)m2cu_count({}, {}, {}))",
                self.double(*first),
                self.double(*step),
                self.double(*last)
            ),
        }
    }

    /// The value of `e` as a double.
    pub fn double(&self, e: ExprId) -> String {
        match self.class(e) {
            Class::Double => self.expr(e),
            _ => format!("((double){})", self.expr(e)),
        }
    }

    /// The value of `e` as a C truth value; a floating NaN stops (MATLAB has no truth for it)
    /// at `e`'s site ([`crate::sites::truth_operands`]).
    pub fn cond(&self, e: ExprId) -> String {
        let site = crate::sites::of_expr(e);
        match self.class(e) {
            Class::Logical => self.expr(e),
            Class::Double => format!("m2cu_truth({}, {site}, {})", self.expr(e), self.err),
            Class::Single => format!("m2cu_truthf({}, {site}, {})", self.expr(e), self.err),
            _ => format!("({} != 0)", self.expr(e)),
        }
    }

    /// The value of `e` converted to `class` with MATLAB's rules.
    pub fn to_class(&self, e: ExprId, class: Class) -> String {
        if self.class(e) == class {
            self.expr(e)
        } else {
            self.convert(e, class, 0)
        }
    }

    /// `e` converted to `class`; `site` names the conversion where it can fail (to char: a
    /// `Convert` expression's site, 0 for the conversions of stores and operands).
    fn convert(&self, e: ExprId, class: Class, site: u32) -> String {
        let from = self.class(e);
        match class {
            Class::Double => self.double(e),
            Class::Single => format!("((float){})", self.expr(e)),
            Class::Logical => self.cond(e),
            Class::Char => format!("m2cu_to_char({}, {site}, {})", self.double(e), self.err),
            c if c.is_integer() && from == Class::Logical => {
                format!("(({}){})", c.c_type(), self.expr(e))
            }
            Class::Int64 if from == Class::Uint64 => {
                format!("m2cu_uint64_to_int64({})", self.expr(e))
            }
            Class::Uint64 if from.is_signed_integer() => {
                format!("m2cu_int64_to_uint64((int64_t){})", self.expr(e))
            }
            c if is_wide_int(c) && from.is_integer() => {
                format!("(({}){})", c.c_type(), self.expr(e))
            }
            c => format!("m2cu_to_{}({})", c.name(), self.double(e)),
        }
    }

    /// Wraps a double-valued C expression so that it has the C type of `class`.
    fn arith(&self, class: Class, double_expr: &str) -> String {
        match class {
            Class::Double => double_expr.to_string(),
            Class::Single => format!("((float){double_expr})"),
            c if c.is_integer() => format!("m2cu_to_{}({double_expr})", c.name()),
            c => format!("(({}){double_expr})", c.c_type()),
        }
    }

    /// `site` names this expression in a failure ([`crate::sites::raises`]).
    fn binary(&self, op: BinOp, a: ExprId, b: ExprId, class: Class, site: u32) -> String {
        if let Some(compared) = self.complex_comparison(op, a, b) {
            return compared;
        }
        let wide_operands = is_wide_int(self.class(a)) || is_wide_int(self.class(b));
        if is_wide_int(class) && matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div) {
            return self.wide_int_arith(op, a, b, class);
        }
        if op.is_comparison() && wide_operands {
            return self.wide_int_compare(op, a, b);
        }
        let (x, y) = (self.double(a), self.double(b));
        match op {
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div if class == Class::Single => {
                let (x, y) = (
                    self.to_class(a, Class::Single),
                    self.to_class(b, Class::Single),
                );
                format!("({x} {} {y})", op.symbol())
            }
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => {
                self.arith(class, &format!("({x} {} {y})", op.symbol()))
            }
            BinOp::Pow if class == Class::Single => format!(
                "m2cu_powf({}, {}, {site}, {})",
                self.to_class(a, Class::Single),
                self.to_class(b, Class::Single),
                self.err
            ),
            BinOp::Pow => self.arith(class, &format!("m2cu_pow({x}, {y}, {site}, {})", self.err)),
            BinOp::Eq => format!("({x} == {y})"),
            BinOp::Ne => format!("({x} != {y})"),
            BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => format!("({x} {} {y})", op.symbol()),
            BinOp::And => format!("({} & {})", self.cond(a), self.cond(b)),
            BinOp::Or => format!("({} | {})", self.cond(a), self.cond(b)),
            BinOp::AndAnd => format!("({} && {})", self.cond(a), self.cond(b)),
            BinOp::OrOr => format!("({} || {})", self.cond(a), self.cond(b)),
        }
    }

    /// `+ - * /` with an int64 or uint64 result: exact and saturating between integers, as Octave
    /// computes it with a double operand (see the prelude's `INT64_MIXED`).
    fn wide_int_arith(&self, op: BinOp, a: ExprId, b: ExprId, class: Class) -> String {
        let func = match op {
            BinOp::Add => "add",
            BinOp::Sub => "sub",
            BinOp::Mul => "mul",
            _ => "div",
        };
        let name = class.name();
        let exact = |e: ExprId| !self.class(e).is_float();
        match (exact(a), exact(b)) {
            (true, true) => format!(
                "m2cu_{func}_{name}({}, {})",
                self.to_class(a, class),
                self.to_class(b, class)
            ),
            (true, false) => format!(
                "m2cu_{func}_{name}_id({}, {})",
                self.to_class(a, class),
                self.double(b)
            ),
            _ => format!(
                "m2cu_{func}_{name}_di({}, {})",
                self.double(a),
                self.to_class(b, class)
            ),
        }
    }

    /// A comparison involving int64 or uint64: in the class itself when both operands have it,
    /// else through the prelude's `m2cu_order_*` (exact, and Octave's against a double), with
    /// the mask of the bits of the orders for which `op` holds (0 less, 1 equal, 2 greater,
    /// 3 unordered).
    fn wide_int_compare(&self, op: BinOp, a: ExprId, b: ExprId) -> String {
        let sym = if op == BinOp::Ne { "!=" } else { op.symbol() };
        let (ca, cb) = (self.class(a), self.class(b));
        if ca == cb {
            return format!("({} {sym} {})", self.expr(a), self.expr(b));
        }
        // The wide integer (uint64 before int64) goes on the left, the other operand is either
        // a double or converted to int64.
        let wide_left = cb != Class::Uint64 && (is_wide_int(ca) || !is_wide_int(cb));
        let (x, y, op) = if wide_left {
            (a, b, op)
        } else {
            (b, a, mirrored(op))
        };
        let (cx, cy) = (self.class(x), self.class(y));
        let call = if cy.is_float() {
            format!(
                "m2cu_order_{}_d({}, {})",
                cx.name(),
                self.expr(x),
                self.double(y)
            )
        } else if cx == Class::Uint64 {
            format!("m2cu_order_uint64_i({}, {})", self.expr(x), self.int64(y))
        } else {
            return format!("({} {sym} {})", self.expr(x), self.int64(y));
        };
        format!("(({} >> {call}) & 1)", order_mask(op))
    }

    /// A non-float value that fits int64 (any integer class but uint64, logical, char), as one.
    fn int64(&self, e: ExprId) -> String {
        format!("((int64_t){})", self.expr(e))
    }

    /// `site` names this call in a failure ([`crate::sites::raises`]).
    fn builtin(&self, builtin: Builtin, args: &[ExprId], class: Class, site: u32) -> String {
        let d = |k: usize| self.double(args[k]);
        let err = self.err;
        let raise = format!("{site}, {err}");
        let integer = class.is_integer();
        if let Some(part) = self.complex_part(builtin, args) {
            return part;
        }
        match builtin {
            Builtin::Floor | Builtin::Ceil | Builtin::Round | Builtin::Fix if integer => {
                self.to_class(args[0], class)
            }
            Builtin::Abs if class == Class::Int64 => {
                format!("m2cu_abs_int64({})", self.to_class(args[0], class))
            }
            Builtin::Abs if class == Class::Uint64 => self.to_class(args[0], class),
            Builtin::Abs => self.arith(class, &format!("fabs({})", d(0))),
            Builtin::Sqrt => self.arith(class, &format!("m2cu_sqrt({}, {raise})", d(0))),
            Builtin::Exp if class == Class::Single => {
                format!("m2cu_expf({})", self.floating(args[0], class))
            }
            Builtin::Log if class == Class::Single => {
                format!("m2cu_logf({}, {raise})", self.floating(args[0], class))
            }
            Builtin::Exp => self.arith(class, &format!("m2cu_exp({})", d(0))),
            Builtin::Log => self.arith(class, &format!("m2cu_log({}, {raise})", d(0))),
            Builtin::Floor => self.arith(class, &format!("floor({})", d(0))),
            Builtin::Ceil => self.arith(class, &format!("ceil({})", d(0))),
            Builtin::Round => self.arith(class, &format!("round({})", d(0))),
            Builtin::Fix => self.arith(class, &format!("trunc({})", d(0))),
            Builtin::Sign => self.arith(class, &format!("m2cu_sign({})", d(0))),
            Builtin::Upper | Builtin::Lower if class != Class::Char => self.expr(args[0]),
            Builtin::Upper => self.arith(class, &format!("m2cu_upper({}, {raise})", d(0))),
            Builtin::Lower => self.arith(class, &format!("m2cu_lower({}, {raise})", d(0))),
            Builtin::Mod | Builtin::Rem if integer => {
                let (func, wide) = match (builtin, class) {
                    (Builtin::Mod, Class::Uint64) => ("m2cu_umod", "uint64_t"),
                    (Builtin::Rem, Class::Uint64) => ("m2cu_urem", "uint64_t"),
                    (Builtin::Mod, _) => ("m2cu_imod", "int64_t"),
                    _ => ("m2cu_irem", "int64_t"),
                };
                let (x, y) = (self.to_class(args[0], class), self.to_class(args[1], class));
                format!("(({}){func}(({wide}){x}, ({wide}){y}))", class.c_type())
            }
            Builtin::Mod | Builtin::Rem if class == Class::Single => {
                let (x, y) = (self.to_class(args[0], class), self.to_class(args[1], class));
                let func = if builtin == Builtin::Mod {
                    "m2cu_modf"
                } else {
                    "m2cu_remf"
                };
                format!("{func}({x}, {y})")
            }
            Builtin::Mod => self.arith(class, &format!("m2cu_mod({}, {})", d(0), d(1))),
            Builtin::Rem => self.arith(class, &format!("m2cu_rem({}, {})", d(0), d(1))),
            Builtin::Min | Builtin::Max if integer => {
                let (x, y) = (self.to_class(args[0], class), self.to_class(args[1], class));
                let (func, wide) = match (builtin, class) {
                    (Builtin::Min, Class::Uint64) => ("m2cu_umin", "uint64_t"),
                    (Builtin::Max, Class::Uint64) => ("m2cu_umax", "uint64_t"),
                    (Builtin::Min, _) => ("m2cu_imin", "int64_t"),
                    _ => ("m2cu_imax", "int64_t"),
                };
                format!("(({}){func}(({wide}){x}, ({wide}){y}))", class.c_type())
            }
            Builtin::Min => self.arith(class, &format!("m2cu_fmin({}, {})", d(0), d(1))),
            Builtin::Max => self.arith(class, &format!("m2cu_fmax({}, {})", d(0), d(1))),
            Builtin::BitAnd | Builtin::BitOr | Builtin::BitXor => {
                self.bitwise(builtin, args, class)
            }
            Builtin::BitShift => self.bitshift(args, class, &raise),
            Builtin::Xor => format!("({} != {})", self.cond(args[0]), self.cond(args[1])),
            Builtin::IsNan | Builtin::IsInf | Builtin::IsFinite => {
                self.float_test(builtin, args[0])
            }
            Builtin::Complex | Builtin::Real | Builtin::Imag | Builtin::Conj | Builtin::Angle => {
                unreachable!("complex_part writes these")
            }
            Builtin::Power => self.array_power(args, class, &raise),
            Builtin::Elementary(e) => self.elementary(e, args, class, &raise),
            Builtin::NthRoot => {
                let (x, n) = (self.floating(args[0], class), self.floating(args[1], class));
                let suffix = float_suffix(class);
                format!(
                    "m2cu_nthroot{suffix}({x}, {n}, {}, {raise})",
                    self.cond(args[2])
                )
            }
            Builtin::LinspaceAt => format!(
                "m2cu_linspace{}({}, {}, {}, {})",
                float_suffix(class),
                self.floating(args[0], class),
                self.floating(args[1], class),
                self.double(args[2]),
                self.double(args[3])
            ),
        }
    }

    /// An argument of a floating function whose result has `class` (double or single), in
    /// that class.
    fn floating(&self, arg: ExprId, class: Class) -> String {
        match class {
            Class::Single => self.to_class(arg, Class::Single),
            _ => self.double(arg),
        }
    }

    /// A real elementary function (see [`Elementary`]) in the result's class: the prelude's
    /// `m2cu_sin` for double, `m2cu_sinf` for single (Octave's single functions are the float
    /// ones, which differ from rounding the double result), which call the C library's with
    /// arguments it cannot fold at compile time, check the domain, or follow an Octave M-file.
    /// `raise`: the site and error arguments of a function that can fail.
    fn elementary(&self, e: Elementary, args: &[ExprId], class: Class, raise: &str) -> String {
        let x = |k: usize| self.floating(args[k], class);
        let (s, t) = (float_suffix(class), class.c_type());
        match e {
            Elementary::Sec | Elementary::Csc | Elementary::Cot => {
                let f = match e {
                    Elementary::Sec => "cos",
                    Elementary::Csc => "sin",
                    _ => "tan",
                };
                format!("(({t})1 / m2cu_{f}{s}({}))", x(0))
            }
            e if crate::sites::complex_outside_domain(e) => {
                format!("m2cu_{}{s}({}, {raise})", e.name(), x(0))
            }
            Elementary::Atan2 | Elementary::Hypot => {
                format!("m2cu_{}{s}({}, {})", e.name(), x(0), x(1))
            }
            _ => format!("m2cu_{}{s}({})", e.name(), x(0)),
        }
    }

    /// Octave's `a .^ b` of an array (see [`Builtin::Power`]): the prelude's `m2cu_elem_pow`,
    /// or `m2cu_elem_powf`, whose products are rounded to single at each step as Octave's are.
    fn array_power(&self, args: &[ExprId], class: Class, raise: &str) -> String {
        let (exponent, array_base) = (self.double(args[1]), self.cond(args[2]));
        match class {
            Class::Single => format!(
                "m2cu_elem_powf({}, {exponent}, {array_base}, {raise})",
                self.to_class(args[0], Class::Single)
            ),
            _ => self.arith(
                class,
                &format!(
                    "m2cu_elem_pow({}, {exponent}, {array_base}, {raise})",
                    self.double(args[0])
                ),
            ),
        }
    }

    /// `isnan`/`isinf`/`isfinite`; a value that is not floating is evaluated for its errors and
    /// is never NaN or infinite.
    fn float_test(&self, builtin: Builtin, arg: ExprId) -> String {
        let func = builtin.name();
        if self.class(arg).is_float() {
            format!("((bool){func}({}))", self.double(arg))
        } else {
            let finite = builtin == Builtin::IsFinite;
            format!("((void)({}), {finite})", self.expr(arg))
        }
    }

    fn bitwise(&self, builtin: Builtin, args: &[ExprId], class: Class) -> String {
        let op = match builtin {
            Builtin::BitAnd => "&",
            Builtin::BitOr => "|",
            _ => "^",
        };
        if class.is_integer() {
            let (x, y) = (self.to_class(args[0], class), self.to_class(args[1], class));
            format!("(({})({x} {op} {y}))", class.c_type())
        } else {
            // Octave converts a double operand as `uint64(x)` does: rounded, saturated, NaN 0.
            let x = self.to_class(args[0], Class::Uint64);
            let y = self.to_class(args[1], Class::Uint64);
            format!("((double)({x} {op} {y}))")
        }
    }

    /// `bitshift(a, k)` (see [`Builtin::BitShift`]): the prelude's shift in 64 bits, then a
    /// plain C cast to an integer class, which keeps the low bits as Octave does (no
    /// saturation).
    /// `raise` is the call's site and the error status.
    fn bitshift(&self, args: &[ExprId], class: Class, raise: &str) -> String {
        let k = self.double(args[1]);
        match class {
            Class::Double => format!("m2cu_bitshift({}, {k}, {raise})", self.double(args[0])),
            Class::Single => format!(
                "m2cu_bitshiftf({}, {k}, {raise})",
                self.to_class(args[0], Class::Single)
            ),
            Class::Uint64 => format!(
                "m2cu_ubitshift({}, {k}, {raise})",
                self.to_class(args[0], Class::Uint64)
            ),
            _ => format!(
                "(({})m2cu_ibitshift((int64_t){}, {k}, {raise}))",
                class.c_type(),
                self.to_class(args[0], class)
            ),
        }
    }

    /// The C `int64_t` expression of an array extent.
    pub fn size(&self, array: LocalId, query: SizeQuery) -> String {
        let (d0, d1) = (self.names.dim(array, 0), self.names.dim(array, 1));
        match query {
            SizeQuery::Numel => self.names.numel(array),
            SizeQuery::Dim(1) => d0,
            SizeQuery::Dim(2) => d1,
            SizeQuery::Dim(3) => self.names.dim(array, 2),
            SizeQuery::Dim(_) => "1".into(),
            SizeQuery::Length if self.names.is_3d(array) => {
                let (d2, n) = (self.names.dim(array, 2), self.names.numel(array));
                format!("({n} == 0 ? 0 : m2cu_max3({d0}, {d1}, {d2}))")
            }
            SizeQuery::Length => {
                format!("(({d0} == 0 || {d1} == 0) ? 0 : ({d0} > {d1} ? {d0} : {d1}))")
            }
        }
    }

    /// The size query `e` (`size`, `numel`, `length`). An array that is not an input may
    /// still be undefined on the path taken (row extent -1, see `host::declarations`): asking
    /// its size is then MATLAB's error for an undefined variable.
    fn asked_size(&self, e: ExprId, array: LocalId, query: SizeQuery) -> String {
        let size = self.size(array, query);
        if !self.bounds_checks || !self.undefined_sizes.contains(&e) {
            return size;
        }
        let rows = self.names.dim(array, 0);
        format!("m2cu_defined({rows}, {size}, {})", self.err)
    }

    /// The 0-based, bounds-checked offset of the element `array(indices)` that is read.
    pub fn offset(&self, array: LocalId, indices: &[ExprId]) -> String {
        self.place(array, indices, Access::Read)
    }

    /// The offset of the element `array(indices)` that is assigned: an index past the end is
    /// the error that says m2cu does not grow arrays (MATLAB would).
    pub fn store_offset(&self, array: LocalId, indices: &[ExprId]) -> String {
        self.place(array, indices, Access::Write)
    }

    fn place(&self, array: LocalId, indices: &[ExprId], access: Access) -> String {
        let count = indices.len();
        let checked = |position: usize| {
            let index = indices[position];
            let known = self.in_range.contains(array, position, index)
                || self.guarded.contains(&(array, position, index));
            match known {
                true => self.unchecked(index),
                false => self.checked(index, &self.extent(array, count, position), access),
            }
        };
        match count {
            1 => checked(0),
            2 => {
                let d0 = self.names.dim(array, 0);
                format!("({} + {d0} * {})", checked(0), checked(1))
            }
            3 => {
                let d0 = self.names.dim(array, 0);
                let d1 = self.names.dim(array, 1);
                format!(
                    "({} + {d0} * ({} + {d1} * {}))",
                    checked(0),
                    checked(1),
                    checked(2)
                )
            }
            _ => unreachable!("the validator allows one to three subscripts"),
        }
    }

    /// The extent that subscript `position` of `count` subscripts of `array` is checked
    /// against: the element count for one subscript, else the extent of its dimension (a 3-D
    /// array's second of two subscripts spans the columns of all pages).
    pub fn extent(&self, array: LocalId, count: usize, position: usize) -> String {
        match (count, position) {
            (1, _) => self.size(array, SizeQuery::Numel),
            (2, 1) if self.names.is_3d(array) => format!(
                "({} * {})",
                self.names.dim(array, 1),
                self.names.dim(array, 2)
            ),
            _ => self.names.dim(array, position),
        }
    }

    /// The 0-based offset of subscript `index`, unchecked: the index is in range, or the
    /// program turned checks off.
    fn unchecked(&self, index: ExprId) -> String {
        match self.int_expr(index) {
            Some(i) => format!("(({i}) - 1)"),
            None => format!("((int64_t)({}) - 1)", self.double(index)),
        }
    }

    fn checked(&self, index: ExprId, extent: &str, access: Access) -> String {
        if !self.bounds_checks {
            return self.unchecked(index);
        }
        let func = match access {
            Access::Read => "m2cu_idx",
            Access::Write => "m2cu_sidx",
        };
        let site = crate::sites::of_expr(index);
        match self.int_expr(index) {
            Some(i) => format!("{func}i({i}, {extent}, {site}, {})", self.err),
            None => format!(
                "{func}({}, {extent}, {site}, {})",
                self.double(index),
                self.err
            ),
        }
    }

    /// An exact `int64_t` expression for `e` when it is built from integer constants, integral
    /// locals, sizes, and logical, char or integer values of at most 32 bits converted to
    /// double, with `+ - *`.
    pub fn int_expr(&self, e: ExprId) -> Option<String> {
        match &self.f.exprs[e].kind {
            ExprKind::Convert(a) if narrow_integer(self.f.exprs[*a].ty) => {
                Some(format!("((int64_t){})", self.expr(*a)))
            }
            ExprKind::Const(v) if v.fract() == 0.0 && v.abs() < 1e15 => {
                Some(format!("{}", *v as i64))
            }
            ExprKind::Local(l) if self.f.locals[*l].integral => {
                Some(self.names.get(*l).to_string())
            }
            ExprKind::Size(a, q) => Some(self.asked_size(e, *a, *q)),
            ExprKind::Unary(UnOp::Neg, a) => Some(format!("(-{})", self.int_expr(*a)?)),
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b) => Some(format!(
                "({} {} {})",
                self.int_expr(*a)?,
                op.symbol(),
                self.int_expr(*b)?
            )),
            _ => None,
        }
    }
}

/// Whether values of type `ty` are integers of at most 32 bits (logical and char included).
fn narrow_integer(ty: m2cu_frontend::types::Type) -> bool {
    !ty.complex
        && matches!(
            ty.class,
            Class::Logical
                | Class::Char
                | Class::Int8
                | Class::Uint8
                | Class::Int16
                | Class::Uint16
                | Class::Int32
                | Class::Uint32
        )
}

/// The integer classes whose values a double cannot hold exactly.
/// The comparison that holds for `b op' a` exactly when `a op b` does.
fn mirrored(op: BinOp) -> BinOp {
    match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        other => other,
    }
}

/// The orders (bit 0 less, 1 equal, 2 greater, 3 unordered) for which comparison `op` holds.
fn order_mask(op: BinOp) -> u8 {
    match op {
        BinOp::Lt => 0b0001,
        BinOp::Le => 0b0011,
        BinOp::Eq => 0b0010,
        BinOp::Ne => 0b1101,
        BinOp::Gt => 0b0100,
        _ => 0b0110,
    }
}

/// The C library's suffix for a floating class's functions: `f` for single (`sinf`), none for
/// double.
fn float_suffix(class: Class) -> &'static str {
    if class == Class::Single {
        "f"
    } else {
        ""
    }
}

fn is_wide_int(class: Class) -> bool {
    matches!(class, Class::Int64 | Class::Uint64)
}

/// Whether an element is read or assigned: they differ in the error for an index past the end.
#[derive(Clone, Copy)]
enum Access {
    Read,
    Write,
}

/// A call of the C function of combiner `c` (see [`crate::combine`]) on `operands` (the two
/// values, then the captured ones); `err` is the `int *` error status.
pub fn combine_call<S: AsRef<str>>(c: CombinerId, operands: &[S], err: &str) -> String {
    let operands: Vec<&str> = operands.iter().map(AsRef::as_ref).collect();
    format!(
        "m2cu_combine{}({}, {err})",
        combiner_number(c),
        operands.join(", ")
    )
}
