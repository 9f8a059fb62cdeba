//! Character classes of char text: `isspace(s)`, `isletter(s)` and `isstrprop(s, class)` for
//! `'alpha'`, `'digit'`, `'wspace'`, `'upper'`, `'lower'`, `'alphanum'` and `'punct'`: a
//! logical array of `s`'s size, true where the character is of the class (Octave 7.3's ASCII
//! classes: whitespace is `\t \n \v \f \r` and space, letters `A-Z a-z`, punctuation the
//! printable characters that are neither letters, digits nor space).
//!
//! Invariants:
//! - the text is read once (a scalar into a temporary, an array as a whole local) and bound to
//!   a hidden name; the class is the elementwise expression `(c >= lo & c <= hi) | ...` over
//!   it, lowered like the user's own code, so scalars, arrays and 3-D values all work;
//! - only ASCII is classified: a character above 127 stops with
//!   `RuntimeError::NonAsciiClass` (Octave's answer there depends on how it reads the bytes
//!   as UTF-8), checked before the classes are computed;
//! - a value that is not char is E0164: MATLAB answers false for every number, and Octave
//!   classifies the codes.

use super::array::Val;
use super::ast_build::{binary, call, ident};
use super::*;
use crate::ir::RuntimeError;

/// The functions of this module.
pub(super) const CHAR_CLASS_FUNCTIONS: &[&str] = &["isspace", "isletter", "isstrprop"];

/// Inclusive ranges of character codes.
type Codes = &'static [(u8, u8)];

const WHITESPACE: Codes = &[(9, 13), (32, 32)];
const LETTERS: Codes = &[(65, 90), (97, 122)];
const DIGITS: Codes = &[(48, 57)];
const UPPER: Codes = &[(65, 90)];
const LOWER: Codes = &[(97, 122)];
const ALPHANUMERIC: Codes = &[(48, 57), (65, 90), (97, 122)];
const PUNCTUATION: Codes = &[(33, 47), (58, 64), (91, 96), (123, 126)];

/// `isstrprop`'s class names m2cu knows, with their classes.
const PROPERTIES: &[(&str, Codes)] = &[
    ("alpha", LETTERS),
    ("digit", DIGITS),
    ("wspace", WHITESPACE),
    ("upper", UPPER),
    ("lower", LOWER),
    ("alphanum", ALPHANUMERIC),
    ("punct", PUNCTUATION),
];

impl Lowerer<'_> {
    /// `name(args)` for a name of [`CHAR_CLASS_FUNCTIONS`].
    pub(super) fn char_class_call(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        let class = match (name, args) {
            ("isspace", [_]) => WHITESPACE,
            ("isletter", [_]) => LETTERS,
            ("isstrprop", [_, property]) => self.property(property)?,
            _ => {
                let wanted = if name == "isstrprop" { "two" } else { "one" };
                self.error(
                    "E0105",
                    span,
                    format!("wrong number of arguments to `{name}`"),
                    format!("`{name}` takes {wanted} argument(s)"),
                );
                return None;
            }
        };
        self.classified(name, &args[0], class, span)
    }

    /// The class `isstrprop` names: a char literal of [`PROPERTIES`].
    fn property(&mut self, property: &ast::Expr) -> Option<Codes> {
        let text = super::text::text_literal(property);
        if let Some(&(_, class)) = PROPERTIES.iter().find(|(n, _)| Some(*n) == text) {
            return Some(class);
        }
        let names: Vec<&str> = PROPERTIES.iter().map(|(n, _)| *n).collect();
        self.error(
            "E0164",
            property.span,
            "this `isstrprop` class is not one m2cu knows".into(),
            format!(
                "write the class as a char literal, one of '{}'",
                names.join("', '")
            ),
        );
        None
    }

    /// `class` of each character of `text`, after the ASCII check.
    fn classified(
        &mut self,
        name: &str,
        text: &ast::Expr,
        class: Codes,
        span: Span,
    ) -> Option<Val> {
        let value = self.text_value(text)?;
        if super::expr::val_class(self, &value) != Class::Char {
            self.error(
                "E0164",
                text.span,
                format!("`{name}` of a value that is not char"),
                format!("MATLAB's `{name}` is false for every number (Octave's tests the codes): give it char text, or write the test on the codes, e.g. x == 32 for a space"),
            );
            return None;
        }
        self.temps += 1;
        let hidden = format!("_text{}", self.temps);
        let local = match value {
            Val::Scalar(e) => self.held_scalar("c", e, span),
            Val::Array(a) => self.whole_local(&a),
        };
        self.scope.names.insert(hidden.clone(), local);
        let read = || ident(&hidden, span);
        let ascii = if self.locals[local].ty.is_scalar() {
            compare(BinaryOp::Le, read(), 127.0)
        } else {
            call(
                "all",
                vec![compare(BinaryOp::Le, column(read()), 127.0)],
                span,
            )
        };
        let checked = self.scalar_expr(&ascii, "the ASCII check").map(|cond| {
            let error = RuntimeError::NonAsciiClass;
            self.push(StmtKind::Check { cond, error }, span);
        });
        let value = checked.and_then(|()| self.value(&in_class(read, class, span)));
        self.scope.names.remove(&hidden);
        value
    }
}

/// `(c >= lo & c <= hi) | ...` over the ranges of `class`.
fn in_class(read: impl Fn() -> ast::Expr, class: Codes, span: Span) -> ast::Expr {
    class
        .iter()
        .map(|&(lo, hi)| {
            if lo == hi {
                return compare(BinaryOp::Eq, read(), f64::from(lo));
            }
            let above = compare(BinaryOp::Ge, read(), f64::from(lo));
            let below = compare(BinaryOp::Le, read(), f64::from(hi));
            binary(BinaryOp::And, above, below, span)
        })
        .reduce(|a, b| binary(BinaryOp::Or, a, b, span))
        .expect("a class has a range")
}

/// `e(:)`.
fn column(e: ast::Expr) -> ast::Expr {
    let span = e.span;
    let AstExpr::Ident(name) = e.kind else {
        unreachable!("a hidden name")
    };
    let colon = ast::Expr {
        kind: AstExpr::Colon,
        span,
    };
    call(&name, vec![colon], span)
}

/// `e op code`.
fn compare(op: BinaryOp, e: ast::Expr, code: f64) -> ast::Expr {
    let span = e.span;
    let number = ast::Expr {
        kind: AstExpr::Number {
            value: code,
            text: code.to_string(),
        },
        span,
    };
    binary(op, e, number, span)
}
