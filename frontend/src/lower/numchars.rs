//! `num2str(x)` and `int2str(x)` as char values (`code = [code, num2str(k), c]`), for a real
//! scalar whose text is its integer digits: Octave writes an integer-valued `x` with `%N.Ng`
//! (N its digit count), which for `|x| < 1e15` is exactly the decimal digits, with `-` for a
//! negative value and for `-0`; `int2str` rounds first (half away from zero).
//!
//! Invariants:
//! - the value is a char row (1-by-n, n known at run time) written into a temporary: the digit
//!   count first (a `while` dividing by 10), then the digits from the last one;
//! - a value that is not an integer (NaN, Inf, a fraction for `num2str`) or whose magnitude
//!   is 1e15 or more stops with `RuntimeError::NumberText`: Octave's text then has `%g`
//!   digits that m2cu does not write as a value (printing it, `disp(num2str(x))` or
//!   `fprintf`, is exact: `lower::numtext`);
//! - char, complex and array arguments are E0150 at translation.

use super::array::Val;
use super::*;
use crate::ir::RuntimeError;

/// Magnitudes from which `num2str`/`int2str` are refused as values.
const LARGEST_DIGITS: f64 = 1e15;

impl Lowerer<'_> {
    /// `name(args)` for `num2str` or `int2str` as a value.
    pub(super) fn number_chars(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        let value = match args {
            [x] => self.value(x)?,
            _ => return self.number_chars_refused(name, "one argument", span),
        };
        let Val::Scalar(x) = value else {
            return self.number_chars_refused(name, "a scalar", span);
        };
        let ty = self.exprs[x].ty;
        if ty.complex || ty.class == Class::Char {
            return self.number_chars_refused(name, "a real number", span);
        }
        let double = Type::scalar(Class::Double);
        let x = self.convert_to(x, Class::Double);
        let x = if name == "int2str" {
            self.new_expr(ExprKind::Call(Builtin::Round, vec![x]), double, span)
        } else {
            x
        };
        let v = self.held_scalar("g", x, span);
        self.digits_check(v, span);
        Some(Val::Array(self.digits_of(v, span)))
    }

    fn number_chars_refused(&mut self, name: &str, what: &str, span: Span) -> Option<Val> {
        self.error(
            "E0150",
            span,
            format!("`{name}` as a char value needs {what}"),
            format!("print the text instead (disp({name}(x)) prints Octave's text), or build it from {name} of one element at a time in a loop"),
        );
        None
    }

    /// Stops unless `v` is an integer below 1e15 in magnitude.
    fn digits_check(&mut self, v: LocalId, span: Span) {
        let double = Type::scalar(Class::Double);
        let x = self.read_local(v, span);
        let floor = self.new_expr(ExprKind::Call(Builtin::Floor, vec![x]), double, span);
        let x = self.read_local(v, span);
        let integral = self.binary_expr(BinOp::Eq, x, floor, Class::Logical, span);
        let x = self.read_local(v, span);
        let magnitude = self.new_expr(ExprKind::Call(Builtin::Abs, vec![x]), double, span);
        let limit = self.constant_expr(LARGEST_DIGITS, Class::Double, span);
        let small = self.binary_expr(BinOp::Lt, magnitude, limit, Class::Logical, span);
        let cond = self.binary_expr(BinOp::AndAnd, integral, small, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::NumberText,
            },
            span,
        );
    }

    /// The char row of `v`'s digits, after a `-` when `v` is negative or `-0`.
    fn digits_of(&mut self, v: LocalId, span: Span) -> super::array::ArrayVal {
        let double = Type::scalar(Class::Double);
        // A minus sign: 1/v < 0 holds for negative values and for -0.
        let one = self.constant_expr(1.0, Class::Double, span);
        let x = self.read_local(v, span);
        let inverse = self.binary_expr(BinOp::Div, one, x, Class::Double, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let negative = self.binary_expr(BinOp::Lt, inverse, zero, Class::Logical, span);
        let minus = self.held_scalar("g", negative, span);
        let x = self.read_local(v, span);
        let magnitude = self.new_expr(ExprKind::Call(Builtin::Abs, vec![x]), double, span);
        let m = self.held_scalar("g", magnitude, span);
        let digits = self.digit_count(m, span);
        let (d, s) = (self.read_local(digits, span), self.read_local(minus, span));
        let s = self.convert_to(s, Class::Double);
        let length = self.binary_expr(BinOp::Add, d, s, Class::Double, span);
        let length = self.held_scalar("g", length, span);
        let text = self.temp(
            "s",
            Type::array(Class::Char, Shape::new(Dim::Known(1), Dim::Var)),
            span,
        );
        let (rows, cols) = (
            self.constant_expr(1.0, Class::Double, span),
            self.read_local(length, span),
        );
        self.alloc_zeros(text, rows, cols, None, span);
        let s = self.read_local(minus, span);
        self.emit_if(s, span, |me| {
            let first = me.constant_expr(1.0, Class::Double, span);
            let dash = me.constant_expr(f64::from(b'-'), Class::Char, span);
            me.push(
                StmtKind::Store {
                    array: text,
                    indices: vec![first],
                    value: dash,
                },
                span,
            );
        });
        self.write_digits(text, (m, length, digits), span);
        self.whole(text, span)
    }

    /// The number of decimal digits of the integer `m >= 0` (1 for 0).
    fn digit_count(&mut self, m: LocalId, span: Span) -> LocalId {
        let one = self.constant_expr(1.0, Class::Double, span);
        let count = self.held_scalar("g", one, span);
        let x = self.read_local(m, span);
        let rest = self.tenth(x, span);
        let rest = self.held_scalar("g", rest, span);
        self.open_block();
        let c = self.read_local(count, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let more = self.binary_expr(BinOp::Add, c, one, Class::Double, span);
        self.push(
            StmtKind::Assign {
                target: count,
                value: more,
            },
            span,
        );
        let r = self.read_local(rest, span);
        let value = self.tenth(r, span);
        self.push(
            StmtKind::Assign {
                target: rest,
                value,
            },
            span,
        );
        let body = self.close_block();
        let r = self.read_local(rest, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let cond = self.binary_expr(BinOp::Gt, r, zero, Class::Logical, span);
        self.push(StmtKind::While { cond, body }, span);
        count
    }

    /// `for k = 1:digits, text(length + 1 - k) = char('0' + mod(m, 10)); m = floor(m / 10); end`.
    fn write_digits(
        &mut self,
        text: LocalId,
        (m, length, digits): (LocalId, LocalId, LocalId),
        span: Span,
    ) {
        let double = Type::scalar(Class::Double);
        let k = self.temp("k", double, span);
        self.open_block();
        let (l, kv) = (self.read_local(length, span), self.read_local(k, span));
        let one = self.constant_expr(1.0, Class::Double, span);
        let past = self.binary_expr(BinOp::Add, l, one, Class::Double, span);
        let at = self.binary_expr(BinOp::Sub, past, kv, Class::Double, span);
        let x = self.read_local(m, span);
        let ten = self.constant_expr(10.0, Class::Double, span);
        let digit = self.new_expr(ExprKind::Call(Builtin::Mod, vec![x, ten]), double, span);
        let zero_char = self.constant_expr(f64::from(b'0'), Class::Double, span);
        let code = self.binary_expr(BinOp::Add, zero_char, digit, Class::Double, span);
        let value = self.convert_to(code, Class::Char);
        self.push(
            StmtKind::Store {
                array: text,
                indices: vec![at],
                value,
            },
            span,
        );
        let x = self.read_local(m, span);
        let value = self.tenth(x, span);
        self.push(StmtKind::Assign { target: m, value }, span);
        let body = self.close_block();
        let n = self.read_local(digits, span);
        self.emit_for(k, n, body, span);
    }

    /// `floor(x / 10)`.
    fn tenth(&mut self, x: ExprId, span: Span) -> ExprId {
        let ten = self.constant_expr(10.0, Class::Double, span);
        let q = self.binary_expr(BinOp::Div, x, ten, Class::Double, span);
        let double = Type::scalar(Class::Double);
        self.new_expr(ExprKind::Call(Builtin::Floor, vec![q]), double, span)
    }
}
