//! `isa(x, name)` and `class(x)`, which real programs use in input checks
//! (`if ~isa(img, 'uint8'), error(..., class(img)), end`): both are known at translation time
//! from `x`'s class, which m2cu fixes for the whole function.
//!
//! Invariants: `isa` is a logical constant (the categories `'numeric'`, `'float'` and
//! `'integer'` as MATLAB defines them; a name that is no class of a value m2cu holds, such as
//! `'cell'`, is false); `class` is a char row, the class's MATLAB name (a complex double is
//! `'double'`); `x` is lowered once, for its errors.

use super::array::Val;
use super::expr::val_class;
use super::text::text_literal;
use super::Lowerer;
use crate::ast;
use crate::diag::Span;
use crate::types::Class;

impl Lowerer<'_> {
    pub(super) fn isa(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [x, name] = args else {
            self.error(
                "E0105",
                span,
                "wrong number of arguments to `isa`".into(),
                "write `isa(x, 'single')` with a class or category name".into(),
            );
            return None;
        };
        let Some(name) = text_literal(name) else {
            self.error(
                "E0105",
                name.span,
                "the class name of `isa(x, name)` must be a literal here".into(),
                "write `isa(x, 'double')`, `isa(x, 'numeric')`, `isa(x, 'float')` or `isa(x, 'integer')`".into(),
            );
            return None;
        };
        let value = self.value(x)?;
        let class = val_class(self, &value);
        let holds = match name {
            "numeric" => class.is_integer() || class.is_float(),
            "float" => class.is_float(),
            "integer" => class.is_integer(),
            other => Class::from_name(other) == Some(class),
        };
        let truth = if holds { 1.0 } else { 0.0 };
        Some(Val::Scalar(self.constant_expr(truth, Class::Logical, span)))
    }

    pub(super) fn class_name(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [x] = args else {
            self.error(
                "E0105",
                span,
                "wrong number of arguments to `class`".into(),
                "write `class(x)`".into(),
            );
            return None;
        };
        let value = self.value(x)?;
        let class = val_class(self, &value);
        let text = ast::Expr {
            kind: ast::ExprKind::Str(class.name().to_string()),
            span,
        };
        self.value(&text)
    }
}
