//! `fprintf(format, values...)` (and `fprintf(1, format, ...)`) as a statement, and the formats of
//! `error`, `warning`, `assert` and `sprintf` (`raise`): the format must be a char literal (or a
//! `"string"`) whose conversions (`%d %i %u %f %e %g %E %G`, with flags, width and precision)
//! take one scalar value each, in order, and whose `%c`/`%s` take a char literal (which becomes
//! text here) or a char value: `%s` of a char array prints its text (`PrintPiece::Chars`, with
//! width and precision), `%c` takes one character. `%%` and MATLAB's escapes (`\n \t \\ \r \a
//! \b \f \v`) are processed here, so the IR holds the literal text. MATLAB's recycling of a
//! format over extra values (or over the characters of `%c`) is not supported (E0115).

use crate::ast::{self, ExprKind as AstExpr};
use crate::diag::Span;
use crate::ir::{ExprId, ExprKind, PrintPiece, PrintTo, StmtKind};
use crate::types::Class;

use super::array::{ArrayVal, Node, Val};
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

    /// The pieces of `format` (a char literal or `"string"`, MATLAB's escapes processed) with
    /// `values` lowered, one per conversion; `%c`/`%s` of a literal becomes text, of a char
    /// value a `%c` piece, `%s` of a char array a `Chars` piece.
    pub(super) fn format_pieces(
        &mut self,
        format: &ast::Expr,
        values: &[ast::Expr],
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
                    match super::text::text_literal(value) {
                        Some(text) if conversion == 'c' && text.chars().count() > 1 => {
                            self.recycled_characters(value.span);
                            return None;
                        }
                        Some(text) => PrintPiece::Text(self.padded(&modifiers, text, value.span)?),
                        None => self.text_piece(value, modifiers, conversion, span)?,
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

    /// `%c`/`%s` of a char value: a char scalar is one character; `%s` of a char array is its
    /// text (`PrintPiece::Chars`, its code units in column-major order, as Octave prints a char
    /// matrix). `%c` of a char array would recycle the format once per character (E0115).
    /// `None` when it was reported.
    fn text_piece(
        &mut self,
        value: &ast::Expr,
        modifiers: String,
        conversion: char,
        span: Span,
    ) -> Option<PrintPiece> {
        let v = self.text_value(value)?;
        let class = super::expr::val_class(self, &v);
        match v {
            Val::Scalar(arg) if class == Class::Char => Some(PrintPiece::Value {
                modifiers,
                conversion: 'c',
                arg,
            }),
            Val::Array(a) if class == Class::Char && conversion == 's' => {
                let arg = self.whole_array_expr(&a, span);
                Some(PrintPiece::Chars { modifiers, arg })
            }
            Val::Array(_) if class == Class::Char => {
                self.recycled_characters(value.span);
                None
            }
            _ => {
                self.print_error(
                    value.span,
                    "`%c`/`%s` print char values here; print a number with %d or %g".into(),
                );
                None
            }
        }
    }

    /// A char array as one `ExprKind::Local` of the whole array (a temporary unless it is one).
    pub(super) fn whole_array_expr(&mut self, a: &ArrayVal, span: Span) -> ExprId {
        let local = match a.node {
            Node::Whole(local) => local,
            _ => self.materialize(a),
        };
        let ty = self.locals[local].ty;
        self.new_expr(ExprKind::Local(local), ty, span)
    }

    /// `%c` of several characters: MATLAB applies the format once per character.
    fn recycled_characters(&mut self, span: Span) {
        self.error(
            "E0115",
            span,
            "`%c` of several characters repeats the format once per character in MATLAB, which m2cu does not do".into(),
            "print one character per call, which is what MATLAB does here when the format has this one conversion: for k = 1:numel(c), fprintf('%c', c(k)); end; or print the whole text with %s".into(),
        );
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

impl Lowerer<'_> {
    /// `text` as `%s` with `modifiers` prints it: cut to the precision (bytes, as Octave's chars
    /// are), padded to the width (`-` pads on the right). A cut inside a non-ASCII character is
    /// E0115.
    fn padded(&mut self, modifiers: &str, text: &str, span: Span) -> Option<String> {
        let (before, precision) = match modifiers.split_once('.') {
            Some((before, p)) => (before, Some(p.parse::<usize>().unwrap_or(0))),
            None => (modifiers, None),
        };
        let text = match precision {
            Some(p) if p < text.len() => {
                let Some(cut) = text.get(..p) else {
                    self.print_error(
                        span,
                        "this precision cuts a non-ASCII character of the text".into(),
                    );
                    return None;
                };
                cut
            }
            _ => text,
        };
        let width: usize = before
            .trim_start_matches(['-', '+', ' ', '0', '#'])
            .parse()
            .unwrap_or(0);
        Some(if before.starts_with('-') {
            format!("{text:<width$}")
        } else {
            format!("{text:>width$}")
        })
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
