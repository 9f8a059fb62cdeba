//! `fprintf(format, values...)` (and `fprintf(1, format, ...)`) as a statement, and the formats of
//! `error`, `warning`, `assert` and `sprintf` (`raise`). A char literal (or a `"string"`) whose
//! conversions are `%d %i %u %f %e %g %E %G %c %s` (with flags, width and precision) and whose
//! escapes are `\n \t \\ \r \a \b \f \v` is read here, so the IR holds its text: its numeric
//! conversions take one scalar value each, in order, and its `%c`/`%s` a char literal (which
//! becomes text here) or a char value: `%s` of a char array prints its text
//! (`PrintPiece::Chars`, with width and precision), `%c` takes one character. A format of one
//! conversion takes an array's elements (or `%c` a text's characters) one at a time; MATLAB's
//! recycling of a format of several conversions over all its values' elements is `recycle`'s
//! (numeric conversions only, in `fprintf` only: a message is one text, E0115). Any other
//! format (a char value made when the program runs, a literal with other conversions or
//! escapes, or without values for its conversions) is one `PrintPiece::Format` that the host
//! parses and applies when the statement runs (`codegen/src/format.c`).

use crate::ast::{self, ExprKind as AstExpr};
use crate::diag::Span;
use crate::ir::{BinOp, ExprId, ExprKind, LocalId, PrintPiece, PrintTo};
use crate::types::{Class, Dim, Shape, Type};

use super::array::{ArrayVal, Val};
use super::Lowerer;

mod recycle;

/// A format piece before its value is lowered: text, or a conversion (modifiers, letter).
#[derive(Clone)]
enum FormatPiece {
    Text(String),
    Conversion(String, char),
}

/// A format with its values lowered.
enum Formatted {
    /// One text.
    Once(Vec<PrintPiece>),
    /// The format applied to each element of an array in turn.
    Each(EachElement),
    /// The format cycled over the elements of all the values, in order.
    Recycled(recycle::Recycled),
}

/// A format of one conversion that takes the elements of `array` one at a time.
struct EachElement {
    before: Vec<PrintPiece>,
    array: ArrayVal,
    modifiers: String,
    conversion: char,
    after: Vec<PrintPiece>,
}

/// What one conversion takes.
enum Converted {
    Piece(PrintPiece),
    /// Each element of the array in turn, with the conversion's modifiers.
    Elements(ArrayVal, String),
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
        if let Some(formatted) = self.formatted(format, values, span) {
            self.print_formatted(formatted, PrintTo::Stdout, span);
        }
    }

    /// `sprintf(format, values...)` as a char value: a 1-by-n row that starts empty and takes
    /// the text of each format the values make (one, or one per element when the format is
    /// recycled), formatted on the host as `fprintf` prints it.
    pub(super) fn sprintf_value(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let formatted = match args.split_first() {
            Some((format, values)) => self.formatted(format, values, span)?,
            None => {
                self.print_error(span, "`sprintf` needs a format".into());
                return None;
            }
        };
        let row = self.empty_text_row(span);
        self.print_formatted(formatted, PrintTo::Append { row }, span);
        Some(Val::Array(self.whole(row, span)))
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
        let row = self.empty_text_row(span);
        self.push_print(vec![piece], PrintTo::Append { row }, span);
        Some(Val::Array(self.whole(row, span)))
    }

    /// A new 1-by-0 char row for text to be appended to.
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

    /// The statements that print `formatted` where `to` says.
    fn print_formatted(&mut self, formatted: Formatted, to: PrintTo, span: Span) {
        match formatted {
            Formatted::Once(pieces) => self.push_print(pieces, to, span),
            Formatted::Each(each) => self.print_each(each, &to, span),
            Formatted::Recycled(recycled) => self.print_recycled(recycled, &to, span),
        }
    }

    /// The pieces of a message's format (`error`, `warning`, `assert`, `sprintf`), which is one
    /// text: a format recycled over an array's elements is E0115 there.
    pub(super) fn format_pieces(
        &mut self,
        format: &ast::Expr,
        values: &[ast::Expr],
        span: Span,
    ) -> Option<Vec<PrintPiece>> {
        match self.formatted(format, values, span)? {
            Formatted::Once(pieces) => Some(pieces),
            Formatted::Each(EachElement { array, .. }) => {
                self.recycled_in_message(array.span);
                None
            }
            Formatted::Recycled(_) => {
                self.recycled_in_message(span);
                None
            }
        }
    }

    /// `format` (a char literal or `"string"`, MATLAB's escapes processed) with `values`
    /// lowered, the i-th with the conversion that takes it when the format is recycled (the
    /// `i % conversions`-th); `%c`/`%s` of a literal becomes text, of a char value a `%c`
    /// piece, `%s` of a char array a `Chars` piece. One value per conversion, each scalar, is
    /// one text; a format whose one conversion takes an array's elements (or `%c` a text's
    /// characters) is applied to each in turn; anything else is recycled over all the values'
    /// elements (`recycle`).
    fn formatted(
        &mut self,
        format: &ast::Expr,
        values: &[ast::Expr],
        span: Span,
    ) -> Option<Formatted> {
        // A format read at translation time, else the host's: a format made at run time, and
        // a literal that the pieces here do not print (`%x`, `*`, `\x41`, no values for its
        // conversions, values without conversions, and formats Octave rejects when they run).
        let literal = super::text::text_literal(format).and_then(parse_format);
        let conversions: Vec<(String, char)> = literal
            .iter()
            .flatten()
            .filter_map(|p| match p {
                FormatPiece::Conversion(modifiers, c) => Some((modifiers.clone(), *c)),
                FormatPiece::Text(_) => None,
            })
            .collect();
        let wanted = conversions.len();
        let pieces = match literal {
            Some(pieces) if (wanted == 0) == values.is_empty() => pieces,
            _ => {
                return self
                    .run_time_format(format, values)
                    .map(|piece| Formatted::Once(vec![piece]))
            }
        };
        let mut converted = Vec::with_capacity(values.len());
        for (i, value) in values.iter().enumerate() {
            let (modifiers, conversion) = conversions[i % wanted].clone();
            converted.push(self.converted(value, modifiers, conversion, span)?);
        }
        let arrays = converted
            .iter()
            .filter(|c| matches!(c, Converted::Elements(..)))
            .count();
        match (values.len() == wanted, arrays) {
            (true, 0) => Some(Formatted::Once(one_text(pieces, converted))),
            (true, 1) if wanted == 1 => Some(Formatted::Each(each_element(pieces, converted))),
            _ => self
                .recycled_format(pieces, converted, span)
                .map(Formatted::Recycled),
        }
    }

    /// A format that is no literal (`fmt`, `[repmat('%8.3f ', 1, n) '\n']`): a char value that
    /// the host parses when the program runs and applies to the values as Octave does
    /// (`PrintPiece::Format`). The values may be of any class but 64-bit integers (whose digits
    /// a double would round), and not complex.
    fn run_time_format(&mut self, format: &ast::Expr, values: &[ast::Expr]) -> Option<PrintPiece> {
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
        let mut args = vec![self.format_operand(text, format.span)];
        for value in values {
            let v = self.text_value(value)?;
            let class = super::expr::val_class(self, &v);
            if super::expr::val_is_complex(self, &v)
                || matches!(class, Class::Int64 | Class::Uint64)
            {
                self.print_error(
                    value.span,
                    format!(
                        "a format made when the program runs takes values that a double holds, and this one is {}",
                        super::expr::val_kind(self, &v)
                    ),
                );
                return None;
            }
            args.push(self.format_operand(v, value.span));
        }
        Some(PrintPiece::Format { args })
    }

    /// A value of a run-time format as the host reads it: a scalar, or a whole array.
    fn format_operand(&mut self, v: Val, span: Span) -> ExprId {
        match v {
            Val::Scalar(e) => e,
            Val::Array(a) => self.whole_array_expr(&a, span),
        }
    }

    /// The value of one conversion: a piece, or an array whose elements the format takes one
    /// at a time.
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
                return Some(Converted::Piece(piece));
            }
            if let Some(text) = super::text::text_literal(value) {
                let text = self.padded(&modifiers, text, value.span)?;
                return Some(Converted::Piece(PrintPiece::Text(text)));
            }
        }
        let v = if text_conversion {
            self.text_value(value)?
        } else {
            self.value(value)?
        };
        let char_value = super::expr::val_class(self, &v) == Class::Char;
        match v {
            Val::Scalar(arg) if char_value || !text_conversion => {
                let conversion = if text_conversion { 'c' } else { conversion };
                Some(Converted::Piece(PrintPiece::Value {
                    modifiers,
                    conversion,
                    arg,
                }))
            }
            Val::Array(a) if char_value && conversion == 's' => {
                let arg = self.whole_array_expr(&a, span);
                Some(Converted::Piece(PrintPiece::Chars { modifiers, arg }))
            }
            Val::Array(a) if char_value || !text_conversion => {
                Some(Converted::Elements(a, modifiers))
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

    /// A format with one conversion over each element of an array, printed where `to` says:
    /// the format once per element, in column-major order, or once with nothing converted when
    /// the array is empty (Octave's output).
    fn print_each(&mut self, each: EachElement, to: &PrintTo, span: Span) {
        let EachElement {
            before,
            array,
            modifiers,
            conversion,
            after,
        } = each;
        let local = self.whole_local(&array);
        let element = Type::scalar(array.class);
        let n = self.numel_of(local, span);
        self.counted_loop("k", n, span, |me, k| {
            let index = me.new_expr(ExprKind::Local(k), Type::scalar(Class::Double), span);
            let arg = me.new_expr(ExprKind::Index(local, vec![index]), element, span);
            let value = PrintPiece::Value {
                modifiers: modifiers.clone(),
                conversion: if conversion == 's' { 'c' } else { conversion },
                arg,
            };
            let pieces = before
                .iter()
                .cloned()
                .chain([value])
                .chain(after.iter().cloned());
            me.push_print(pieces.collect(), to.clone(), span);
        });
        let n = self.numel_of(local, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let empty = self.binary_expr(BinOp::Eq, n, zero, Class::Logical, span);
        self.emit_if(empty, span, |me| {
            me.push_print(before.into_iter().chain(after).collect(), to.clone(), span);
        });
    }

    /// A format recycled over several elements in a message, which is one text here.
    fn recycled_in_message(&mut self, span: Span) {
        self.error(
            "E0115",
            span,
            "the elements of these values would each take the format in turn (MATLAB recycles the format), which m2cu does in `fprintf` but not in a message".into(),
            "give the message one value per conversion, e.g. error('bad value %d at %d', v(k), k)".into(),
        );
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
                Some(Converted::Piece(p)) => p,
                _ => unreachable!("one scalar value per conversion"),
            },
        })
        .collect()
}

/// The format of one conversion split around it, for the elements of its one array value.
fn each_element(format: Vec<FormatPiece>, converted: Vec<Converted>) -> EachElement {
    let Some(Converted::Elements(array, modifiers)) = converted.into_iter().next() else {
        unreachable!("one array value")
    };
    let (mut before, mut after, mut conversion) = (Vec::new(), Vec::new(), None);
    for piece in format {
        match piece {
            FormatPiece::Conversion(_, c) => conversion = Some(c),
            FormatPiece::Text(t) if conversion.is_some() => after.push(PrintPiece::Text(t)),
            FormatPiece::Text(t) => before.push(PrintPiece::Text(t)),
        }
    }
    EachElement {
        before,
        array,
        modifiers,
        conversion: conversion.expect("one conversion"),
        after,
    }
}

/// The pieces of a literal format that `Formatted` prints, with MATLAB's escapes processed;
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
