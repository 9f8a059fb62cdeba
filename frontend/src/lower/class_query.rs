//! `isa(x, name)`, the class tests `islogical isinteger isfloat isnumeric isreal`,
//! `class(x)` and `cast(x, name)`, which real programs use in input checks and conversions
//! (`if ~isa(img, 'uint8'), error(..., class(img)), end`): all are known at translation time
//! from `x`'s class, which m2cu fixes for the whole function.
//!
//! Invariants: `isa` and the tests are logical constants (the categories `'numeric'`,
//! `'float'` and `'integer'` as MATLAB defines them: a logical or char value is not numeric; a
//! name that is no class of a value m2cu holds, such as `'cell'`, is false); `class` is a char
//! row, the class's MATLAB name (a complex double is `'double'`); `x` is lowered once, for its
//! errors. [`Lowerer::static_class_test`] answers the same tests of a variable without lowering
//! anything, so that an `if` on them lowers only the branch taken (a function written for
//! several classes, such as m2cu's own `sort.m`).

use super::array::Val;
use super::expr::{val_class, val_is_complex};
use super::text::text_literal;
use super::Lowerer;
use crate::ast;
use crate::diag::Span;
use crate::types::Class;

/// The class tests that take one value.
pub(super) const CLASS_TESTS: &[&str] =
    &["islogical", "isinteger", "isfloat", "isnumeric", "isreal"];

/// Whether a value of `class` (complex or not) is of the class or category `name`, as `isa`.
fn is_a(class: Class, name: &str) -> bool {
    match name {
        "numeric" => class.is_integer() || class.is_float(),
        "float" => class.is_float(),
        "integer" => class.is_integer(),
        other => Class::from_name(other) == Some(class),
    }
}

/// The answer of the class test `test` (one of [`CLASS_TESTS`] or `ischar`) for a value of
/// `class`, complex or not.
fn passes(test: &str, class: Class, complex: bool) -> bool {
    match test {
        "isreal" => !complex,
        "ischar" => class == Class::Char,
        other => is_a(class, other.trim_start_matches("is")),
    }
}

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
        let holds = is_a(val_class(self, &value), name);
        Some(self.logical_constant(holds, span))
    }

    /// `islogical(x)`, `isinteger(x)`, `isfloat(x)`, `isnumeric(x)` or `isreal(x)`.
    pub(super) fn class_test(&mut self, test: &str, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [x] = args else {
            self.error(
                "E0105",
                span,
                format!("wrong number of arguments to `{test}`"),
                format!("write `{test}(x)`"),
            );
            return None;
        };
        let value = self.value(x)?;
        let holds = passes(test, val_class(self, &value), val_is_complex(self, &value));
        Some(self.logical_constant(holds, span))
    }

    fn logical_constant(&mut self, holds: bool, span: Span) -> Val {
        let truth = if holds { 1.0 } else { 0.0 };
        Val::Scalar(self.constant_expr(truth, Class::Logical, span))
    }

    /// The answer of `callee(args)`, a class test (`isa` with a literal name, `ischar` or one of
    /// [`CLASS_TESTS`]) of a variable, from its type; `None` for anything else. The caller
    /// (`Lowerer::static_call`) has checked that no variable shadows `callee`.
    pub(super) fn static_class_test(&self, callee: &str, args: &[ast::Expr]) -> Option<bool> {
        let (x, name) = match args {
            [x] if callee == "ischar" || CLASS_TESTS.contains(&callee) => (x, None),
            [x, name] if callee == "isa" => (x, Some(text_literal(name)?)),
            _ => return None,
        };
        let ty = self.variable_type(x)?;
        Some(match name {
            Some(name) => is_a(ty.class, name),
            None => passes(callee, ty.class, ty.complex),
        })
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

    /// `cast(x, name)`, `cast(x, class(y))` and `cast(x, 'like', p)`: `x` converted to a class
    /// known at translation time, exactly as that class's conversion function (`int8(x)`,
    /// `logical(x)`, ...) converts it. A complex prototype is refused: MATLAB's result would
    /// then be complex.
    pub(super) fn cast(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let (x, class) = match args {
            [x, like, prototype] if text_literal(like) == Some("like") => {
                let value = self.value(prototype)?;
                if val_is_complex(self, &value) {
                    self.error(
                        "E0105",
                        prototype.span,
                        "`cast` like a complex value".into(),
                        "cast like a real value, then make it complex: `complex(cast(x, 'like', real(p)))`".into(),
                    );
                    return None;
                }
                (x, val_class(self, &value))
            }
            [x, name] => (x, self.class_named(name)?),
            _ => {
                self.error(
                    "E0105",
                    span,
                    "wrong number of arguments to `cast`".into(),
                    "write `cast(x, 'int32')`, `cast(x, class(y))` or `cast(x, 'like', y)`".into(),
                );
                return None;
            }
        };
        self.conversion(class, std::slice::from_ref(x), span)
    }

    /// The class a name argument names: a class name written out, or `class(y)`.
    fn class_named(&mut self, name: &ast::Expr) -> Option<Class> {
        let class = match (&name.kind, text_literal(name)) {
            (_, Some(text)) => Class::from_name(text),
            (ast::ExprKind::Call { callee, args }, None)
                if callee.name == "class" && !self.scope.names.contains_key("class") =>
            {
                match args.as_slice() {
                    [y] => {
                        let value = self.value(y)?;
                        Some(val_class(self, &value))
                    }
                    _ => None,
                }
            }
            _ => None,
        };
        if class.is_none() {
            self.error(
                "E0105",
                name.span,
                "`cast` needs a class name m2cu knows when it translates".into(),
                "write the name (`'single'`, `'uint8'`, ...), `class(y)`, or `'like', y`".into(),
            );
        }
        class
    }
}
