//! `fprintf(format, values...)` (and `fprintf(1, format, ...)`) as a statement, and the formats of
//! `error`, `warning`, `assert` and `sprintf` (`raise`): the format must be a char literal whose
//! conversions (`%d %i %u %f %e %g %E %G`, with flags, width and precision) take one scalar value
//! each, in order, and whose `%s` takes a char literal (which becomes text here); `%%` and MATLAB's escapes (`\n \t \\ \r \a \b \f \v`) are
//! processed here, so the IR holds the literal text. MATLAB's recycling of a format over extra
//! values is not supported (E0115).

use crate::ast::{self, ExprKind as AstExpr};
use crate::diag::Span;
use crate::ir::{PrintPiece, PrintTo, StmtKind};

use super::Lowerer;

/// A format piece before its value is lowered: text, or a conversion (modifiers, letter).
enum FormatPiece {
    Text(String),
    Conversion(String, char),
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
        if let Some(pieces) = self.format_pieces(format, values, span) {
            self.push(
                StmtKind::Print {
                    pieces,
                    to: PrintTo::Stdout,
                },
                span,
            );
        }
    }

    /// The pieces of `format` (a char literal, MATLAB's escapes processed) with `values`
    /// lowered, one per conversion; `%s` takes a char literal, which becomes text.
    pub(super) fn format_pieces(
        &mut self,
        format: &ast::Expr,
        values: &[ast::Expr],
        span: Span,
    ) -> Option<Vec<PrintPiece>> {
        let AstExpr::Str(text) = &format.kind else {
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
            lowered.push(match piece {
                FormatPiece::Text(t) => PrintPiece::Text(t),
                FormatPiece::Conversion(modifiers, 's') => {
                    let value = values.next().expect("counted above");
                    PrintPiece::Text(self.string_conversion(&modifiers, value)?)
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
            });
        }
        Some(lowered)
    }

    /// `%s` of a char literal, padded to the conversion's width (`-` pads on the right).
    fn string_conversion(&mut self, modifiers: &str, value: &ast::Expr) -> Option<String> {
        let AstExpr::Str(text) = &value.kind else {
            self.print_error(
                value.span,
                "`%s` prints a char literal here; a char variable or a number is not supported"
                    .into(),
            );
            return None;
        };
        let width: usize = modifiers
            .trim_start_matches(['-', '+', ' ', '0', '#'])
            .split('.')
            .next()
            .and_then(|w| w.parse().ok())
            .unwrap_or(0);
        Some(if modifiers.starts_with('-') {
            format!("{text:<width$}")
        } else {
            format!("{text:>width$}")
        })
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
                let conversion = chars.next().filter(|c| "diufegEGs".contains(*c)).ok_or_else(|| {
                    format!("`%{modifiers}` is not a supported conversion: use %d, %i, %u, %f, %e, %g, %E, %G or %s")
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
