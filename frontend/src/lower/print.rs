//! `fprintf(format, values...)` (and `fprintf(1, format, ...)`) as a statement, and the formats of
//! `error`, `warning`, `assert` and `sprintf` (`raise`). A char literal (or a `"string"`) whose
//! conversions are `%d %i %u %f %e %g %E %G %c %s` (with flags, width and precision), whose
//! escapes are `\n \t \\ \r \a \b \f \v`, and which has one value per conversion, is read
//! here, so the IR holds its text: its numeric conversions take one scalar value each, in
//! order, and its `%c`/`%s` a char literal (which becomes text here) or a char value: `%s` of a
//! char array prints its text (`PrintPiece::Chars`, with width and precision), `%c` takes one
//! character. Any other format is one `PrintPiece::Format` that the host parses and applies
//! when the statement runs (`codegen/src/format.c`), as Octave does: a char value made when the
//! program runs, a literal with other conversions or escapes, with fewer or more values than
//! conversions, or whose conversions take an array's elements one at a time (MATLAB's
//! recycling) or a number as text.

use crate::ast::{self, ExprKind as AstExpr};
use crate::diag::Span;
use crate::ir::{ExprId, ExprKind, LocalId, PrintPiece, PrintTo};
use crate::types::{Class, Dim, Shape, Type};

use super::array::{ArrayVal, Val};
use super::Lowerer;

/// A format piece before its value is lowered: text, or a conversion (modifiers, letter).
#[derive(Clone)]
enum FormatPiece {
    Text(String),
    Conversion(String, char),
}

/// What one conversion of a literal format takes.
enum Converted {
    /// The piece that prints it: a scalar with the conversion, a char array's text.
    Piece(PrintPiece),
    /// Text made here (a literal, `num2str(x)`): a piece, which a host format takes as the
    /// char row that the piece appends to.
    Text(PrintPiece),
    /// A value that only the host's format prints: an array whose elements the format takes in
    /// turn, a number as `%c`/`%s`.
    Host(Val),
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
        if let Some(cell) = self.all_texts_of(format, values) {
            return self.each_text(cell, format, PrintTo::Stdout, span);
        }
        if let Some(pieces) = self.format_pieces(format, values, span) {
            self.push_print(pieces, PrintTo::Stdout, span);
        }
    }

    /// The text cell `c` of `fprintf(format, c{:})` or `sprintf(format, c{:})` with a literal
    /// format of one conversion, which prints once per text (`each_text`).
    fn all_texts_of<'e>(
        &self,
        format: &ast::Expr,
        values: &'e [ast::Expr],
    ) -> Option<&'e ast::Ident> {
        let [value] = values else {
            return None;
        };
        let AstExpr::CellIndex { callee, args } = &value.kind else {
            return None;
        };
        let (AstExpr::Str(text), [colon]) = (&format.kind, args.as_slice()) else {
            return None;
        };
        let every = matches!(colon.kind, AstExpr::Colon) && self.is_text_cell(&callee.name);
        (every && conversion_count(text) == 1).then_some(callee)
    }

    /// The format printed `to` once per text of the cell `cell`, as MATLAB recycles a format of
    /// one conversion over `c{:}`; for an empty cell, the format with no values (Octave prints
    /// its text up to the conversion).
    fn each_text(&mut self, cell: &ast::Ident, format: &ast::Expr, to: PrintTo, span: Span) {
        let lens = self.scope.names[&format!("{}{}", super::cells::LEN, cell.name)];
        let count = self.numel_of(lens, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let again = self.copy_expr(count);
        let none = self.binary_expr(crate::ir::BinOp::Eq, again, zero, Class::Logical, span);
        let each = |me: &mut Self| {
            me.texts_in_turn(cell, format, count, to.clone(), span);
        };
        self.emit_if_else(
            none,
            span,
            |me| {
                if let Some(pieces) = me.format_pieces(format, &[], span) {
                    me.push_print(pieces, to.clone(), span);
                }
            },
            each,
        );
    }

    /// `for k = 1:count`, the format printed `to` with `cell{k}`.
    fn texts_in_turn(
        &mut self,
        cell: &ast::Ident,
        format: &ast::Expr,
        count: ExprId,
        to: PrintTo,
        span: Span,
    ) {
        self.counted_loop("each", count, span, |me, var| {
            let content = me.content_at(&cell.name, var, cell.span);
            if let Some(pieces) = me.format_pieces(format, &[content], span) {
                me.push_print(pieces, to, span);
            }
        });
    }

    /// `sprintf(format, values...)` as a char value: a 1-by-n row that starts empty and takes
    /// the text of the format, formatted on the host as `fprintf` prints it.
    pub(super) fn sprintf_value(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        if let Some((format, values)) = args.split_first() {
            if let Some(cell) = self.all_texts_of(format, values) {
                let row = self.empty_text_row(span);
                self.each_text(cell, format, PrintTo::Append { row }, span);
                return Some(Val::Array(self.whole(row, span)));
            }
        }
        let pieces = match args.split_first() {
            Some((format, values)) => self.format_pieces(format, values, span)?,
            None => {
                self.print_error(span, "`sprintf` needs a format".into());
                return None;
            }
        };
        Some(Val::Array(self.appended_text(pieces, span)))
    }

    /// `num2str(x)` or `int2str(x)` as a char value: the text that printing it makes
    /// (`number_text`: Octave's digits for a scalar, its columns for a real double row),
    /// appended on the host to a new empty row.
    pub(super) fn number_chars(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        let piece = self.number_text(name, args, String::new(), span)?;
        Some(Val::Array(self.appended_text(vec![piece], span)))
    }

    /// A new char row holding the text of `pieces` (a 1-by-0 row that the host appends to).
    pub(super) fn appended_text(&mut self, pieces: Vec<PrintPiece>, span: Span) -> ArrayVal {
        let row = self.empty_text_row(span);
        self.push_print(pieces, PrintTo::Append { row }, span);
        self.whole(row, span)
    }

    /// A new 1-by-0 char row, which appending prints fill.
    fn empty_text_row(&mut self, span: Span) -> LocalId {
        let row = self.temp(
            "text",
            Type::array(Class::Char, Shape::new(Dim::Known(1), Dim::Var)),
            span,
        );
        let (rows, cols) = (
            self.constant_expr(1.0, Class::Double, span),
            self.constant_expr(0.0, Class::Double, span),
        );
        self.alloc_zeros(row, rows, cols, None, span);
        row
    }

    /// The pieces of `format` with `values` (`fprintf`, `sprintf` and the messages of `error`,
    /// `warning` and `assert`), one text. A char literal whose conversions and escapes the
    /// pieces here print (`parse_format`), with one value per conversion, is read here: `%c`/
    /// `%s` of a literal becomes text, of a char value a `%c` piece, `%s` of a char array a
    /// `Chars` piece, a scalar a `Value`. Any other format is the host's (`PrintPiece::Format`):
    /// a format made at run time, a literal with other conversions or escapes, without values
    /// for its conversions or with more values than conversions, or whose values include an
    /// array that its conversions take element by element (MATLAB's recycling) or a number as
    /// text.
    pub(super) fn format_pieces(
        &mut self,
        format: &ast::Expr,
        values: &[ast::Expr],
        span: Span,
    ) -> Option<Vec<PrintPiece>> {
        let literal = super::text::text_literal(format).and_then(parse_format);
        let conversions: Vec<(String, char)> = literal
            .iter()
            .flatten()
            .filter_map(|p| match p {
                FormatPiece::Conversion(modifiers, c) => Some((modifiers.clone(), *c)),
                FormatPiece::Text(_) => None,
            })
            .collect();
        let pieces = match literal {
            Some(pieces) if conversions.len() == values.len() => pieces,
            _ => return self.run_time_format(format, values).map(|p| vec![p]),
        };
        let mut converted = Vec::with_capacity(values.len());
        for (value, (modifiers, conversion)) in values.iter().zip(conversions) {
            converted.push(self.converted(value, modifiers, conversion, span)?);
        }
        if !converted.iter().any(|c| matches!(c, Converted::Host(_))) {
            return Some(one_text(pieces, converted));
        }
        let mut args = vec![self.format_operand(format)?];
        for (c, value) in converted.into_iter().zip(values) {
            args.push(self.host_operand(c, value.span)?);
        }
        Some(vec![PrintPiece::Format { args }])
    }

    /// A format that the host parses when the program runs and applies to the values as
    /// Octave does (`PrintPiece::Format`).
    fn run_time_format(&mut self, format: &ast::Expr, values: &[ast::Expr]) -> Option<PrintPiece> {
        let mut args = vec![self.format_operand(format)?];
        for value in values {
            let v = self.text_value(value)?;
            args.push(self.value_operand(v, value.span)?);
        }
        Some(PrintPiece::Format { args })
    }

    /// The host format of `format` with the one lowered value `v`.
    pub(super) fn host_format_of(
        &mut self,
        format: &ast::Expr,
        v: Val,
        span: Span,
    ) -> Option<PrintPiece> {
        let args = vec![self.format_operand(format)?, self.value_operand(v, span)?];
        Some(PrintPiece::Format { args })
    }

    /// The format of a host format: a char value.
    fn format_operand(&mut self, format: &ast::Expr) -> Option<ExprId> {
        let text = self.text_value(format)?;
        if super::expr::val_class(self, &text) != Class::Char {
            self.print_error(
                format.span,
                format!(
                    "the format is {}, not text: write a char literal or a char value",
                    super::expr::val_kind(self, &text)
                ),
            );
            return None;
        }
        Some(self.operand(text, format.span))
    }

    /// A value of a host format: any real value.
    fn value_operand(&mut self, v: Val, span: Span) -> Option<ExprId> {
        if super::expr::val_is_complex(self, &v) {
            self.error(
                "E0115",
                span,
                "a format that takes the elements of its values in turn takes real values here, and this one is complex".into(),
                "print the real and imaginary parts, e.g. fprintf('%g%+gi\\n', [real(z); imag(z)])"
                    .into(),
            );
            return None;
        }
        Some(self.operand(v, span))
    }

    /// A value of a host format from what its conversion took: a piece's value, the char row
    /// of text made here, or the value itself.
    fn host_operand(&mut self, c: Converted, span: Span) -> Option<ExprId> {
        match c {
            Converted::Piece(piece) => Some(piece.args()[0]),
            Converted::Text(piece) => {
                let row = self.appended_text(vec![piece], span);
                Some(self.whole_array_expr(&row, span))
            }
            Converted::Host(v) => self.value_operand(v, span),
        }
    }

    /// A scalar, or a whole array as one local.
    fn operand(&mut self, v: Val, span: Span) -> ExprId {
        match v {
            Val::Scalar(e) => e,
            Val::Array(a) => self.whole_array_expr(&a, span),
        }
    }

    /// The value of one conversion of a literal format.
    fn converted(
        &mut self,
        value: &ast::Expr,
        modifiers: String,
        conversion: char,
        span: Span,
    ) -> Option<Converted> {
        let text_conversion = conversion == 'c' || conversion == 's';
        if conversion == 's' {
            if let Some(piece) = self.number_text_piece(value, modifiers.clone())? {
                return Some(Converted::Text(piece));
            }
            if let Some(text) = super::text::text_literal(value) {
                let text = self.padded(&modifiers, text, value.span)?;
                return Some(Converted::Text(PrintPiece::Text(text)));
            }
        }
        let v = if text_conversion {
            self.text_value(value)?
        } else {
            self.value(value)?
        };
        let char_value = super::expr::val_class(self, &v) == Class::Char;
        Some(match v {
            Val::Scalar(arg) if char_value || !text_conversion => {
                let conversion = if text_conversion { 'c' } else { conversion };
                Converted::Piece(PrintPiece::Value {
                    modifiers,
                    conversion,
                    arg,
                })
            }
            Val::Array(a) if char_value && conversion == 's' => {
                let arg = self.whole_array_expr(&a, span);
                Converted::Piece(PrintPiece::Chars { modifiers, arg })
            }
            v => Converted::Host(v),
        })
    }

    /// A char array as one `ExprKind::Local` of the whole array (a temporary unless it is one).
    pub(super) fn whole_array_expr(&mut self, a: &ArrayVal, span: Span) -> ExprId {
        let local = self.whole_local(a);
        let ty = self.locals[local].ty;
        self.new_expr(ExprKind::Local(local), ty, span)
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

/// The format's text with each conversion replaced by the piece of its value, in order (one
/// value per conversion, each a piece).
fn one_text(format: Vec<FormatPiece>, converted: Vec<Converted>) -> Vec<PrintPiece> {
    let mut values = converted.into_iter();
    format
        .into_iter()
        .map(|piece| match piece {
            FormatPiece::Text(t) => PrintPiece::Text(t),
            FormatPiece::Conversion(..) => match values.next() {
                Some(Converted::Piece(p) | Converted::Text(p)) => p,
                _ => unreachable!("a piece per conversion"),
            },
        })
        .collect()
}

/// The pieces of a literal format that `format_pieces` reads, with MATLAB's escapes processed;
/// `None` for a format with another conversion or escape (the host applies those).
fn parse_format(text: &str) -> Option<Vec<FormatPiece>> {
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
                let conversion = chars.next().filter(|c| "diufegEGcs".contains(*c))?;
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
    Some(pieces)
}

fn escape(c: Option<char>) -> Option<char> {
    Some(match c? {
        'n' => '\n',
        't' => '\t',
        '\\' => '\\',
        'r' => '\r',
        'a' => '\u{7}',
        'b' => '\u{8}',
        'f' => '\u{c}',
        'v' => '\u{b}',
        _ => return None,
    })
}

/// The number of conversions in a format's text (`%%` is none).
fn conversion_count(format: &str) -> usize {
    let mut count = 0;
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c == '%' {
            match chars.next() {
                Some('%') => {}
                _ => count += 1,
            }
        }
    }
    count
}
