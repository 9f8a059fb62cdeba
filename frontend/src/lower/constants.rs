//! MATLAB's named constants and the identity matrix.
//!
//! - `pi`, `Inf`/`inf`, `NaN`/`nan`, `eps`, `realmax`, `realmin`, `flintmax`, `true`, `false` as
//!   bare names ([`constant`]);
//! - `eps`, `realmax`, `realmin` and `flintmax` with a class: `eps('single')`,
//!   `realmax('double')`, `flintmax('like', x)` (`pi`, `Inf` and `NaN` with a class or sizes are
//!   fills, `lower::fill`);
//! - `eps(x)`: the spacing of the floating numbers at each element of `x`
//!   ([`crate::ir::Elementary::Eps`]);
//! - `eye(n)`, `eye(m, n)`, `eye([m n])`, `eye(size(A))`, each optionally with a class:
//!   `zeros` of those extents with ones on the diagonal.
//!
//! Invariants: these constants are double or single (an integer class is E0105, as MATLAB's
//! "invalid class name"); a single constant is single's own (`eps('single')` is 2^-23) and
//! `pi('single')` is `single(pi)`; `eps` of an integer, logical, char or complex value is E0106
//! (Octave: "X must be of a floating point type").

use super::array::Val;
use super::expr::{val_class, val_is_complex, val_kind};
use super::fill::{Filler, FORMS};
use super::text::text_literal;
use super::Lowerer;
use crate::ast;
use crate::diag::Span;
use crate::ir::{Builtin, Elementary, ExprKind, Fill, SizeQuery, StmtKind};
use crate::types::{Class, Type};

/// The names that read as constants when no variable or function of the program defines them,
/// with their double value and class.
pub(super) fn constant(name: &str) -> Option<(f64, Class)> {
    match name {
        "true" => Some((1.0, Class::Logical)),
        "false" => Some((0.0, Class::Logical)),
        _ => float_constant(name, Class::Double).map(|v| (v, Class::Double)),
    }
}

/// The value of the constant `name` in the floating class `class`.
fn float_constant(name: &str, class: Class) -> Option<f64> {
    let single = class == Class::Single;
    Some(match name {
        "inf" | "Inf" => f64::INFINITY,
        "nan" | "NaN" => f64::NAN,
        "pi" => std::f64::consts::PI,
        "eps" if single => f64::from(f32::EPSILON),
        "eps" => f64::EPSILON,
        "realmax" if single => f64::from(f32::MAX),
        "realmax" => f64::MAX,
        "realmin" if single => f64::from(f32::MIN_POSITIVE),
        "realmin" => f64::MIN_POSITIVE,
        "flintmax" if single => 16_777_216.0,
        "flintmax" => 9_007_199_254_740_992.0,
        _ => return None,
    })
}

/// The constants that take a class but no sizes.
pub(super) const CLASS_CONSTANTS: [&str; 4] = ["eps", "realmax", "realmin", "flintmax"];

impl Lowerer<'_> {
    /// `eps(...)`, `realmax(...)`, `realmin(...)` or `flintmax(...)` called with arguments, when
    /// `name` is one of them.
    pub(super) fn class_constant(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Option<Val>> {
        if !CLASS_CONSTANTS.contains(&name) {
            return None;
        }
        let class = match args {
            [] => Some(Class::Double),
            [text] if text_literal(text).is_some() => {
                Class::from_name(text_literal(text).unwrap_or_default()).filter(|c| c.is_float())
            }
            [like, prototype] if text_literal(like) == Some("like") => {
                let value = self.value(prototype);
                value.map(|v| val_class(self, &v)).filter(|c| c.is_float())
            }
            [x] if name == "eps" => return Some(self.eps_of(x, span)),
            _ => None,
        };
        let Some(class) = class else {
            let x_form = if name == "eps" { ", eps(x)" } else { "" };
            self.error(
                "E0105",
                span,
                format!("unsupported arguments to `{name}`"),
                format!("write {name}, {name}('double'), {name}('single') or {name}('like', x) with a double or single x{x_form}"),
            );
            return Some(None);
        };
        let value = float_constant(name, class)?;
        Some(Some(Val::Scalar(self.constant_expr(value, class, span))))
    }

    /// `eps(x)`, elementwise.
    fn eps_of(&mut self, x: &ast::Expr, span: Span) -> Option<Val> {
        let value = self.value(x)?;
        let (class, complex) = (val_class(self, &value), val_is_complex(self, &value));
        if !class.is_float() || complex {
            let what = val_kind(self, &value);
            self.error(
                "E0106",
                x.span,
                format!(
                    "`eps` of {what} values: MATLAB and Octave take double or single values only"
                ),
                "convert first, `eps(double(x))`, or use `eps` for double's 2^-52".into(),
            );
            return None;
        }
        let builtin = Builtin::Elementary(Elementary::Eps);
        match value {
            Val::Scalar(e) => Some(Val::Scalar(self.new_expr(
                ExprKind::Call(builtin, vec![e]),
                Type::scalar(class),
                span,
            ))),
            array => self.elementwise_call(builtin, vec![array], class, span),
        }
    }

    /// `eye(sizes...[, class])`: zeros of those extents (two of them; MATLAB's `eye` is 2-D)
    /// with a one at each `(k, k)`.
    pub(super) fn eye(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let zeros = Filler {
            fill: Fill::Zeros,
            class: None,
        };
        let alloc = self.allocation_args(zeros, args, span)?;
        if alloc.pages.is_some() {
            self.error(
                "E0105",
                span,
                "`eye` makes a 2-D matrix: it takes at most two sizes".into(),
                format!("write eye(n), eye(m, n) or eye([m n]), optionally with a class (the sizes as for zeros: {FORMS})"),
            );
            return None;
        }
        let class = alloc.class;
        if alloc.shape.is_scalar() {
            return Some(Val::Scalar(self.constant_expr(1.0, class, span)));
        }
        let Some(Val::Array(eye)) = self.allocated_temp(alloc, span) else {
            unreachable!("an allocation that is not 1-by-1 is an array")
        };
        let super::array::Node::Whole(target) = eye.node else {
            unreachable!("an allocated temporary is whole")
        };
        let double = Type::scalar(Class::Double);
        let rows = self.new_expr(ExprKind::Size(target, SizeQuery::Dim(1)), double, span);
        let cols = self.new_expr(ExprKind::Size(target, SizeQuery::Dim(2)), double, span);
        let diagonal = self.new_expr(ExprKind::Call(Builtin::Min, vec![rows, cols]), double, span);
        self.counted_loop("k", diagonal, span, |me, k| {
            let (i, j) = (me.read_local(k, span), me.read_local(k, span));
            let one = me.constant_expr(1.0, class, span);
            me.push(
                StmtKind::Store {
                    array: target,
                    indices: vec![i, j],
                    value: one,
                },
                span,
            );
        });
        Some(Val::Array(eye))
    }
}
