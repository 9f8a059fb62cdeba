//! `error`, `warning`, `assert` and `disp` as statements: each becomes one
//! [`StmtKind::Print`] whose text the host builds, then prints (`disp`), prints as
//! `warning: <text>` on standard error (`warning`), or makes the call's error message
//! (`error`, a failed `assert`).
//!
//! Invariants (Octave 7.3's behaviour, which the e2e fixtures check):
//! - one argument is the message as written: no escapes, no conversions (`error('a\n%d')`),
//!   also when it is a char variable, which raises nothing while its text is empty;
//!   with more arguments the first is a format (`print::format_pieces`), after an identifier
//!   when the first looks like one (contains `:` not at either end, and no whitespace or `%`);
//! - a message `sprintf(format, values...)` is the same format;
//! - one trailing newline of a formatted message is dropped, as Octave does;
//! - `error('')` does nothing;
//! - `assert(cond)` fails with Octave's text `assert (<cond as Octave prints it>) failed`; a
//!   condition that [`octave_text`] cannot print needs a message (E0120).

use crate::ast::{self, ExprKind as AstExpr, UnaryOp};
use crate::diag::Span;
use crate::ir::{BinOp, ExprId, ExprKind, PrintPiece, PrintTo, SizeQuery, StmtKind};
use crate::types::{Class, Dim, Shape, Type};

use super::array::{ArrayVal, Val};
use super::Lowerer;

/// Statement calls that print or raise on the host.
pub(super) const HOST_STATEMENTS: &[&str] =
    &["fprintf", "error", "warning", "assert", "disp", "narginchk"];

/// A message: its identifier (`error(id, ...)`) and its pieces.
struct Message {
    id: Option<String>,
    pieces: Vec<PrintPiece>,
    /// For a message that is a char variable: the condition that its text is not empty (an
    /// empty message raises nothing, as `error('')`).
    when: Option<ExprId>,
}

impl Lowerer<'_> {
    /// One of [`HOST_STATEMENTS`] as a statement.
    pub(super) fn host_statement(&mut self, name: &str, args: &[ast::Expr], span: Span) {
        match name {
            "fprintf" => self.fprintf(args, span),
            "error" => self.raise(args, span),
            "warning" => self.warning(args, span),
            "assert" => self.assert(args, span),
            "narginchk" => self.narginchk(args, span),
            _ => self.disp(args, span),
        }
    }

    fn raise(&mut self, args: &[ast::Expr], span: Span) {
        if let Some(message) = self.message("error", args, span) {
            let to = PrintTo::Error {
                id: message.id.clone(),
            };
            self.push_message(message, to, span);
        }
    }

    /// Raises or prints `message`, only when its `when` holds.
    fn push_message(&mut self, message: Message, to: PrintTo, span: Span) {
        match message.when {
            None => self.push_print(message.pieces, to, span),
            Some(cond) => self.emit_if(cond, span, |me| me.push_print(message.pieces, to, span)),
        }
    }

    fn warning(&mut self, args: &[ast::Expr], span: Span) {
        if let Some(state) = args.first().and_then(super::text::text_literal) {
            if matches!(state, "on" | "off" | "query" | "error") {
                return self.raise_help(
                    span,
                    format!("`warning('{state}', ...)` (warning states)"),
                    "remove it: m2cu prints every warning as Octave does by default".into(),
                );
            }
        }
        if let Some(message) = self.message("warning", args, span) {
            self.push_message(message, PrintTo::Warning, span);
        }
    }

    /// `assert(cond)` and `assert(cond, message...)`: `if ~cond, error(...), end`.
    fn assert(&mut self, args: &[ast::Expr], span: Span) {
        let Some((cond, message)) = args.split_first() else {
            return self.raise_help(
                span,
                "`assert` needs a condition".into(),
                "write assert(cond) or assert(cond, 'message')".into(),
            );
        };
        let message = if message.is_empty() {
            let Some(text) = octave_text(cond) else {
                return self.raise_help(
                    cond.span,
                    "Octave's message for this `assert` quotes its condition in a form m2cu cannot reproduce".into(),
                    "give the message: assert(cond, 'what must hold')".into(),
                );
            };
            Message {
                id: None,
                pieces: vec![PrintPiece::Text(format!("assert ({text}) failed"))],
                when: None,
            }
        } else if super::text::text_literal(&message[0]).is_some()
            || matches!(message[0].kind, AstExpr::Call { .. })
        {
            let Some(m) = self.message("assert", message, span) else {
                return;
            };
            m
        } else {
            return self.raise_help(
                message[0].span,
                "`assert(observed, expected)` (comparing values)".into(),
                "compare explicitly: assert(isequal(observed, expected)) is not supported either; write assert(observed == expected, 'message') for scalars".into(),
            );
        };
        let Some(holds) = self.condition(cond) else {
            return;
        };
        self.open_block();
        let to = PrintTo::Error {
            id: message.id.clone(),
        };
        self.push_message(message, to, span);
        let then_body = self.close_block();
        let fails = self.new_expr(
            crate::ir::ExprKind::Unary(crate::ir::UnOp::Not, holds),
            crate::types::Type::scalar(crate::types::Class::Logical),
            cond.span,
        );
        self.push(
            StmtKind::If {
                cond: fails,
                then_body,
                else_body: crate::ir::Block::default(),
            },
            span,
        );
    }

    /// `disp(x)` of a scalar, of char text, or of `sprintf(...)`.
    fn disp(&mut self, args: &[ast::Expr], span: Span) {
        let [value] = args else {
            return self.raise_help(
                span,
                "`disp` takes one value".into(),
                "write disp(x)".into(),
            );
        };
        let mut pieces = match (super::text::text_literal(value), &value.kind) {
            (Some(text), _) => vec![PrintPiece::Text(text.into())],
            _ if self.is_printed_text(value) => {
                // `disp(num2str(A))` shows a matrix's rows, one line each.
                self.num2str_lines = !matches!(super::strip_parens(value).kind, AstExpr::Matrix(_));
                let pieces = self.printed_text(value);
                self.num2str_lines = false;
                match pieces {
                    Some(p) => p,
                    None => return,
                }
            }
            (None, AstExpr::Call { callee, args }) if callee.name == "sprintf" => {
                match self.sprintf_pieces(args, span) {
                    Some(p) => p,
                    None => return,
                }
            }
            _ => match self.displayed(value) {
                Some(piece) => vec![piece],
                None => return,
            },
        };
        pieces.push(PrintPiece::Text("\n".into()));
        self.push_print(pieces, PrintTo::Display, span);
    }

    /// What `disp(value)` shows before its newline: a number as `format short` does, a char as
    /// its text (one character, or a row or an empty char array), any other real 2-D array as
    /// Octave lays it out (a char matrix one line per row); a complex array and a 3-D one are
    /// E0115.
    fn displayed(&mut self, value: &ast::Expr) -> Option<PrintPiece> {
        match self.value(value)? {
            Val::Scalar(arg) => Some(self.displayed_scalar(arg)),
            Val::Array(a) if a.class == Class::Char && one_line(a.shape) => {
                let arg = self.whole_array_expr(&a, value.span);
                Some(PrintPiece::Chars {
                    modifiers: String::new(),
                    arg,
                })
            }
            Val::Array(a) => {
                if let Some(refused) = self.undisplayable(&a) {
                    self.error(
                        "E0115",
                        value.span,
                        format!("`disp` of {refused} is not supported yet"),
                        "show it a column or a page at a time, e.g. disp(real(z)) and disp(imag(z)), or disp(A(:, :, k)) for each k".into(),
                    );
                    return None;
                }
                Some(PrintPiece::DisplayArray {
                    arg: self.whole_array_expr(&a, value.span),
                    name: None,
                })
            }
        }
    }

    /// How `disp` shows the scalar `e`: a char as its character, a number in `format short`.
    pub(super) fn displayed_scalar(&self, e: ExprId) -> PrintPiece {
        match self.exprs[e].ty.class {
            Class::Char => PrintPiece::Value {
                modifiers: String::new(),
                conversion: 'c',
                arg: e,
            },
            _ => PrintPiece::Display(e),
        }
    }

    /// What the array `a` is when m2cu cannot show it as Octave does (`disp`, or a statement
    /// without `;`): complex, or possibly 3-D.
    pub(super) fn undisplayable(&self, a: &ArrayVal) -> Option<&'static str> {
        match () {
            _ if super::complex_array::is_complex_val(self, a) => Some("a complex array"),
            _ if a.shape.is_3d() => Some("an array that may have more than two dimensions"),
            _ => None,
        }
    }

    pub(super) fn push_print(&mut self, pieces: Vec<PrintPiece>, to: PrintTo, span: Span) {
        self.push(StmtKind::Print { pieces, to }, span);
    }

    /// The message of `error`/`warning`/`assert` from the arguments after the condition;
    /// `None` (with a diagnostic) when it cannot be made exact, and for Octave's no-op `error('')`.
    fn message(&mut self, function: &str, args: &[ast::Expr], span: Span) -> Option<Message> {
        match args {
            [] => {
                self.raise_help(
                    span,
                    format!("`{function}` needs a message"),
                    format!("write {function}('what went wrong')"),
                );
                None
            }
            [only] => {
                let pieces = match (super::text::text_literal(only), &only.kind) {
                    (Some(""), _) => return None,
                    (Some(text), _) => vec![PrintPiece::Text(text.into())],
                    (None, AstExpr::Call { callee, args }) if callee.name == "sprintf" => {
                        drop_final_newline(self.sprintf_pieces(args, span)?)
                    }
                    _ if self.is_printed_text(only) => self.printed_text(only)?,
                    _ => return self.char_message(function, only),
                };
                Some(Message {
                    id: None,
                    pieces,
                    when: None,
                })
            }
            [first, rest @ ..] => {
                let (id, format, values) = match super::text::text_literal(first) {
                    Some(text) if is_identifier(text) => {
                        (Some(text.to_string()), &rest[0], &rest[1..])
                    }
                    _ => (None, first, rest),
                };
                let pieces = self.format_pieces(format, values, span)?;
                Some(Message {
                    id,
                    pieces: drop_final_newline(pieces),
                    when: None,
                })
            }
        }
    }

    /// A message that is a char value (`error(msg)`): its text as written, raised only when it
    /// is not empty.
    fn char_message(&mut self, function: &str, only: &ast::Expr) -> Option<Message> {
        let unassigned =
            matches!(&only.kind, AstExpr::Ident(name) if !self.scope.names.contains_key(name));
        let v = if unassigned {
            None
        } else {
            self.text_value(only)
        };
        let Some(v) = v else {
            self.message_help(function, only.span);
            return None;
        };
        let (piece, when) = match v {
            Val::Scalar(arg) if self.exprs[arg].ty.class == Class::Char => {
                let piece = PrintPiece::Value {
                    modifiers: String::new(),
                    conversion: 'c',
                    arg,
                };
                (piece, None)
            }
            Val::Array(a) if a.class == Class::Char && one_line(a.shape) => {
                let arg = self.whole_array_expr(&a, only.span);
                let ExprKind::Local(text) = self.exprs[arg].kind else {
                    unreachable!("whole_array_expr is a local")
                };
                let double = Type::scalar(Class::Double);
                let count =
                    self.new_expr(ExprKind::Size(text, SizeQuery::Numel), double, only.span);
                let zero = self.constant_expr(0.0, Class::Double, only.span);
                let nonempty = self.binary_expr(BinOp::Gt, count, zero, Class::Logical, only.span);
                let piece = PrintPiece::Chars {
                    modifiers: String::new(),
                    arg,
                };
                (piece, Some(nonempty))
            }
            _ => {
                self.message_help(function, only.span);
                return None;
            }
        };
        Some(Message {
            id: None,
            pieces: vec![piece],
            when,
        })
    }

    fn message_help(&mut self, function: &str, span: Span) {
        self.raise_help(
            span,
            format!("the message of `{function}` must be text: a char literal or variable of one row, sprintf(...), or a row such as ['n = ' num2str(n)]"),
            format!("write {function}('text') or {function}('value %d is out of range', x)"),
        );
    }

    /// `sprintf(format, values...)` whose text is printed or raised at once.
    pub(super) fn sprintf_pieces(
        &mut self,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Vec<PrintPiece>> {
        let Some((format, values)) = args.split_first() else {
            self.raise_help(
                span,
                "`sprintf` needs a format".into(),
                "write sprintf('%d', x)".into(),
            );
            return None;
        };
        self.format_pieces(format, values, span)
    }

    fn raise_help(&mut self, span: Span, message: String, help: String) {
        self.error("E0120", span, message, help);
    }
}

/// Whether `disp` shows a 2-D char array of this shape on one line: a row, or no rows (Octave
/// prints an empty line for those; a 3-by-0 char is three empty lines).
fn one_line(shape: Shape) -> bool {
    !shape.is_3d() && matches!(shape.rows, Dim::Known(0 | 1))
}

/// Whether the first argument of `error`/`warning` is a message identifier (Octave's rule).
fn is_identifier(text: &str) -> bool {
    !text.contains(|c: char| c == '%' || c.is_whitespace())
        && text.contains(':')
        && !text.starts_with(':')
        && !text.ends_with(':')
}

/// Octave drops one newline at the end of a formatted message.
fn drop_final_newline(mut pieces: Vec<PrintPiece>) -> Vec<PrintPiece> {
    match pieces.last_mut() {
        Some(PrintPiece::Text(last)) if last.ends_with('\n') => {
            last.pop();
        }
        Some(PrintPiece::Format { .. }) => pieces.push(PrintPiece::DropFinalNewline),
        _ => {}
    }
    pieces
}

/// An expression as Octave prints it in `assert`'s message (`f (a, b)`, `!x`, spaces around
/// binary operators); `None` for forms whose printing is not reproduced.
fn octave_text(e: &ast::Expr) -> Option<String> {
    Some(match &e.kind {
        AstExpr::Ident(name) => name.clone(),
        AstExpr::Number { value, text }
            if value.fract() == 0.0 && text.chars().all(|c| c.is_ascii_digit()) =>
        {
            text.clone()
        }
        AstExpr::Unary { op, operand } => {
            let op = if *op == UnaryOp::Not {
                "!"
            } else {
                op.symbol()
            };
            format!("{op}{}", octave_text(operand)?)
        }
        AstExpr::Binary { op, lhs, rhs } => {
            let symbol = match op {
                ast::BinaryOp::Ne => "!=",
                other => other.symbol(),
            };
            format!("{} {symbol} {}", octave_text(lhs)?, octave_text(rhs)?)
        }
        AstExpr::Call { callee, args } => {
            let args: Option<Vec<String>> = args.iter().map(octave_text).collect();
            format!("{} ({})", callee.name, args?.join(", "))
        }
        AstExpr::Paren(inner) => format!("({})", octave_text(inner)?),
        AstExpr::Colon => ":".into(),
        AstExpr::End => "end".into(),
        _ => return None,
    })
}
