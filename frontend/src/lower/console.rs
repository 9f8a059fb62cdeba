//! Statements that only touch the console or the workspace: a variable on its own with `;`
//! (`x;`), `clc`, `close all`, `more off`, and `clear`.
//!
//! Invariants:
//! - a statement that is a variable's name and `;` does nothing (without `;` it shows the
//!   value, `lower::show`);
//! - `clc`, `close(...)` and `more(...)` change only the command window and figures, which a
//!   translated function has none of: they do nothing;
//! - `clear`/`clearvars` inside a function delete its variables, its inputs included, so MATLAB
//!   stops at their next use: `E0127`, never ignored.

use super::*;

/// Commands that only change the console or figures.
const CONSOLE_ONLY: &[&str] = &["clc", "close", "more"];

/// Commands that delete variables.
const CLEARING: &[&str] = &["clear", "clearvars"];

/// Whether `name` is a command of this module (`clc`, `close`, `more`, `clear`, `clearvars`).
pub(super) fn is_console_command(name: &str) -> bool {
    CONSOLE_ONLY.contains(&name) || CLEARING.contains(&name)
}

impl Lowerer<'_> {
    /// Lowers `e` as a statement if it is one of this module's; `false` for any other.
    pub(super) fn console_statement(&mut self, e: &ast::Expr) -> bool {
        let name = match &e.kind {
            AstExpr::Ident(n) => n,
            AstExpr::Call { callee, .. } => &callee.name,
            _ => return false,
        };
        let defined = self.scope.names.contains_key(name) || self.is_function(name);
        match &e.kind {
            AstExpr::Ident(_) if self.scope.names.contains_key(name) => true,
            _ if defined => false,
            _ if CONSOLE_ONLY.contains(&name.as_str()) => true,
            _ if CLEARING.contains(&name.as_str()) => {
                self.clear_statement(name, e.span);
                true
            }
            _ => false,
        }
    }

    fn clear_statement(&mut self, name: &str, span: Span) {
        self.error(
            "E0127",
            span,
            format!("`{name}` inside a function deletes its variables, its inputs too"),
            format!("remove the `{name}`: a function starts with only its inputs defined, and after `{name}` MATLAB stops at the next use of any of them"),
        );
    }
}
