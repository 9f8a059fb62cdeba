//! What a statement without `;` displays, as Octave displays it: `x = 1` shows `x = 1`,
//! `A(2) = 7` shows all of `A`, `[p, q] = f()` shows `p` then `q`, a variable alone (`x`) shows
//! it, and any other expression statement that has a value (`x + 1`, `numel(v)`, a call of a
//! function of the program that returns something) shows it as `ans = ...`.
//!
//! Invariants:
//! - the text is one `Print` to the console after the statement: a scalar as `disp` shows it
//!   after `name = `, an array as [`PrintPiece::DisplayArray`] with the name (Octave decides
//!   from the extents when the program runs whether the value fits on the `name = ` line);
//! - a value m2cu cannot show as Octave does (complex, 3-D, a cell, a function handle, a struct) is
//!   E0115 with a help line that keeps the result: end the statement with `;`;
//! - `ans` is only shown, never assigned: a later read of `ans` is an undefined variable.

use super::array::Val;
use super::*;
use crate::ir::{PrintPiece, PrintTo};

impl Lowerer<'_> {
    /// Shows each variable that the assignment `targets` wrote, in order.
    pub(super) fn show_targets(&mut self, targets: &[ast::LValue], span: Span) {
        for target in targets {
            let Some(name) = target.assigned_name() else {
                continue;
            };
            self.show_variable(name, span);
        }
    }

    /// Shows the variable `name` as `name = ...`.
    pub(super) fn show_variable(&mut self, name: &ast::Ident, span: Span) {
        if name.name.contains('.') || self.is_struct(&name.name) {
            let root = name.name.split('.').next().unwrap_or(&name.name);
            self.not_shown(root, "a struct", span);
            return;
        }
        if self.is_text_cell(&name.name) || self.scope.handles.contains_key(&name.name) {
            self.not_shown(&name.name, "a cell or a function handle", span);
            return;
        }
        if !self.scope.names.contains_key(&name.name) {
            return;
        }
        let ident = ast::Expr {
            kind: AstExpr::Ident(name.name.clone()),
            span: name.span,
        };
        if let Some(value) = self.value(&ident) {
            self.show_value(&name.name, value, span);
        }
    }

    /// Shows `value` as the variable `label` (`ans` for an expression statement).
    pub(super) fn show_value(&mut self, label: &str, value: Val, span: Span) {
        let mut pieces = match value {
            Val::Scalar(e) if self.exprs[e].ty.complex => {
                return self.not_shown(label, "a complex value", span)
            }
            Val::Scalar(e) => vec![
                PrintPiece::Text(format!("{label} = ")),
                self.displayed_scalar(e),
            ],
            Val::Array(a) => {
                if let Some(what) = self.undisplayable(&a) {
                    return self.not_shown(label, what, span);
                }
                vec![PrintPiece::DisplayArray {
                    arg: self.whole_array_expr(&a, span),
                    name: Some(label.to_string()),
                }]
            }
        };
        pieces.push(PrintPiece::Text("\n".into()));
        self.push_print(pieces, PrintTo::Display, span);
    }

    fn not_shown(&mut self, label: &str, what: &str, span: Span) {
        self.error(
            "E0115",
            span,
            format!("this statement has no `;`, so MATLAB displays `{label}`, which is {what}: m2cu does not show such values yet"),
            "end the statement with `;` (the computed values stay the same), and print what you need with fprintf".into(),
        );
    }
}
