//! `fprintf(format, values...)` (and `fprintf(1, format, ...)`) as a statement, and the formats of
//! `error`, `warning`, `assert` and `sprintf` (`raise`): the format must be a char literal (or a
//! `"string"`) whose conversions (`%d %i %u %f %e %g %E %G`, with flags, width and precision)
//! take one scalar value each, in order, and whose `%c`/`%s` take a char literal (which becomes
//! text here) or a char value; in `fprintf`, a char array without a width or precision prints its
//! code units one by one, in a loop. `%%` and MATLAB's escapes (`\n \t \\ \r \a \b \f \v`) are
//! processed here, so the IR holds the literal text. MATLAB's recycling of a format over extra
//! values is not supported (E0115).

use crate::ast::{self, ExprKind as AstExpr};
use crate::diag::Span;
use crate::ir::{ExprKind, PrintPiece, PrintTo, SizeQuery, StmtKind};
use crate::types::{Class, Type};

use super::array::{Node, Val};
use super::Lowerer;

/// A format piece before its value is lowered: text, or a conversion (modifiers, letter).
enum FormatPiece {
    Text(String),
    Conversion(String, char),
}

/// What a `%s` of a char array may become.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum CharArrays {
    /// `fprintf`: the pieces before it are printed, then its code units one by one in a loop.
    Loop,
    /// A message of `error`, `warning`, `assert` or `disp`, which is one text: refused (E0115).
    Refuse,
}

impl Lowerer<'_> {
    pub(super) fn fprintf(&mut self, args: &[ast::Expr], span: Span) {
        let args = match args {
            [fid, rest @ ..] if matches!(fid.kind, AstExpr::Number { value, .. } if value == 1.0) => {
                rest
            }
            _ => args,
        };
        let Some((format, values)) = args.split_first() else {
            return self.print_error(span, "`fprintf` needs a format".into());
        };
        if let Some(pieces) = self.format_pieces(format, values, CharArrays::Loop, span) {
            self.push(
                StmtKind::Print {
                    pieces,
                    to: PrintTo::Stdout,
                },
                span,
            );
        }
    }

    /// The pieces of `format` (a char literal or `"string"`, MATLAB's escapes processed) with
    /// `values` lowered, one per conversion; `%c`/`%s` of a literal becomes text, of a char
    /// value a `%c` piece, of a char array what `arrays` says.
    pub(super) fn format_pieces(
        &mut self,
        format: &ast::Expr,
        values: &[ast::Expr],
        arrays: CharArrays,
        span: Span,
    ) -> Option<Vec<PrintPiece>> {
        let Some(text) = super::text::text_literal(format) else {
            self.print_error(format.span, "the format must be a char literal".into());
            return None;
        };
        let pieces = match parse_format(text) {
            Ok(p) => p,
            Err(why) => {
                self.print_error(format.span, why);
                return None;
            }
        };
        let wanted = pieces
            .iter()
            .filter(|p| matches!(p, FormatPiece::Conversion(..)))
            .count();
        if wanted != values.len() {
            self.print_error(
                span,
                format!(
                    "the format has {wanted} conversion(s) but {} value(s) follow it",
                    values.len()
                ),
            );
            return None;
        }
        let mut values = values.iter();
        let mut lowered = Vec::new();
        for piece in pieces {
            let piece = match piece {
                FormatPiece::Text(t) => PrintPiece::Text(t),
                FormatPiece::Conversion(modifiers, conversion) if "cs".contains(conversion) => {
                    let value = values.next().expect("counted above");
                    if let Some(text) = super::text::text_literal(value) {
                        PrintPiece::Text(padded(&modifiers, text))
                    } else {
                        match self.text_piece(value, modifiers, arrays, &mut lowered, span)? {
                            Some(piece) => piece,
                            None => continue,
                        }
                    }
                }
                FormatPiece::Conversion(modifiers, conversion) => {
                    let value = values.next().expect("counted above");
                    let arg = self.scalar_expr(value, "a value printed by a format")?;
                    PrintPiece::Value {
                        modifiers,
                        conversion,
                        arg,
                    }
                }
            };
            lowered.push(piece);
        }
        Some(lowered)
    }

    /// `%c`/`%s` of a char value: a char scalar is one piece; a char array (no width or
    /// precision, `CharArrays::Loop`) prints its code units in a loop, after the pieces before
    /// it (`done`, which is emptied). `None` when it was reported.
    fn text_piece(
        &mut self,
        value: &ast::Expr,
        modifiers: String,
        arrays: CharArrays,
        done: &mut Vec<PrintPiece>,
        span: Span,
    ) -> Option<Option<PrintPiece>> {
        let v = self.text_value(value)?;
        let class = super::expr::val_class(self, &v);
        let array = match v {
            Val::Scalar(arg) if class == Class::Char => {
                return Some(Some(PrintPiece::Value {
                    modifiers,
                    conversion: 'c',
                    arg,
                }))
            }
            Val::Array(a)
                if class == Class::Char && modifiers.is_empty() && arrays == CharArrays::Loop =>
            {
                a
            }
            Val::Array(_) if class == Class::Char && arrays == CharArrays::Refuse => {
                self.print_error(
                    value.span,
                    "`%s` of a char variable in a message is not supported yet".into(),
                );
                return None;
            }
            _ => {
                self.print_error(
                    value.span,
                    "`%c`/`%s` print char values here, with a width only for one character".into(),
                );
                return None;
            }
        };
        let before = std::mem::take(done);
        self.push(
            StmtKind::Print {
                pieces: before,
                to: PrintTo::Stdout,
            },
            span,
        );
        let local = match array.node {
            Node::Whole(local) => local,
            _ => self.materialize(&array),
        };
        let count = self.new_expr(
            ExprKind::Size(local, SizeQuery::Numel),
            Type::scalar(Class::Double),
            span,
        );
        self.counted_loop("k", count, span, |me, k| {
            let index = me.new_expr(ExprKind::Local(k), Type::scalar(Class::Double), span);
            let arg = me.new_expr(
                ExprKind::Index(local, vec![index]),
                Type::scalar(Class::Char),
                span,
            );
            let piece = PrintPiece::Value {
                modifiers: String::new(),
                conversion: 'c',
                arg,
            };
            me.push(
                StmtKind::Print {
                    pieces: vec![piece],
                    to: PrintTo::Stdout,
                },
                span,
            );
        });
        Some(None)
    }

    fn print_error(&mut self, span: Span, message: String) {
        self.error(
            "E0115",
            span,
            message,
            "write one conversion (%d, %f, %g, %s of a char literal, ...) per scalar value, e.g. fprintf('%d: %.3f\\n', i, x(i))"
                .into(),
        );
    }
}

/// `text` padded to the width of `modifiers` (`-` pads on the right), as `%s` prints it.
fn padded(modifiers: &str, text: &str) -> String {
    let width: usize = modifiers
        .trim_start_matches(['-', '+', ' ', '0', '#'])
        .split('.')
        .next()
        .and_then(|w| w.parse().ok())
        .unwrap_or(0);
    if modifiers.starts_with('-') {
        format!("{text:<width$}")
    } else {
        format!("{text:>width$}")
    }
}

fn parse_format(text: &str) -> Result<Vec<FormatPiece>, String> {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => literal.push(escape(chars.next())?),
            '%' if chars.peek() == Some(&'%') => {
                chars.next();
                literal.push('%');
            }
            '%' => {
                let mut modifiers = String::new();
                while let Some(&m) = chars
                    .peek()
                    .filter(|m| "-+ 0#.".contains(**m) || m.is_ascii_digit())
                {
                    modifiers.push(m);
                    chars.next();
                }
                let conversion = chars.next().filter(|c| "diufegEGcs".contains(*c)).ok_or_else(|| {
                    format!("`%{modifiers}` is not a supported conversion: use %d, %i, %u, %f, %e, %g, %E, %G, %c or %s")
                })?;
                if !literal.is_empty() {
                    pieces.push(FormatPiece::Text(std::mem::take(&mut literal)));
                }
                pieces.push(FormatPiece::Conversion(modifiers, conversion));
            }
            c => literal.push(c),
        }
    }
    if !literal.is_empty() {
        pieces.push(FormatPiece::Text(literal));
    }
    Ok(pieces)
}

fn escape(c: Option<char>) -> Result<char, String> {
    Ok(match c {
        Some('n') => '\n',
        Some('t') => '\t',
        Some('\\') => '\\',
        Some('r') => '\r',
        Some('a') => '\u{7}',
        Some('b') => '\u{8}',
        Some('f') => '\u{c}',
        Some('v') => '\u{b}',
        Some(other) => {
            return Err(format!(
                "the escape `\\{other}` is not supported in a format"
            ))
        }
        None => return Err("a format cannot end with `\\`".into()),
    })
}
