//! `fprintf`, `disp`, `warning`, `error` and a kept `sprintf` on the host
//! ([`StmtKind::Print`](m2cu_frontend::ir::StmtKind::Print)): each piece is one call of the
//! host helpers (`codegen/src/format.c` and the prelude), which append its text to the
//! statement's buffer `m2cu_t`; the statement then prints it, raises it or appends it to a char
//! row.
//!
//! Every number goes through `m2cu_put_conv` (Octave's rules for `%d` of a fraction or of a
//! value past 2^63, NaN and Inf as words), whether the format was read at translation time (one
//! call per conversion, its flags, width and precision written here) or is made at run time
//! (`m2cu_put_format` parses it and calls the same functions).

use m2cu_frontend::ir::{ExprId, ExprKind, PrintPiece, PrintTo};
use m2cu_frontend::types::Class;

use crate::c_text::string_literal;
use crate::code::Code;
use crate::stmt::Context;

/// A conversion's flags, width and precision (`-08.3` in `%-08.3f`) as Octave applies them: a
/// width or precision beyond `INT_MAX` is ignored (`%99999999999d` prints `7`), where C's
/// printf would fail with `EOVERFLOW` and print nothing. -1 is none; `%.f` has precision 0.
#[derive(Debug, PartialEq)]
struct Field {
    flags: String,
    width: i64,
    precision: i64,
}

impl Field {
    fn of(modifiers: &str) -> Field {
        let fits = |digits: &str| digits.parse::<i32>().map_or(-1, i64::from);
        let (before, precision) = match modifiers.split_once('.') {
            Some((before, "")) => (before, 0),
            Some((before, precision)) => (before, fits(precision)),
            None => (modifiers, -1),
        };
        let flags_end = before
            .find(|c: char| c.is_ascii_digit() && c != '0')
            .unwrap_or(before.len());
        let (flags, width) = before.split_at(flags_end);
        Field {
            flags: flags.to_string(),
            width: if width.is_empty() { -1 } else { fits(width) },
            precision,
        }
    }

    fn left(&self) -> bool {
        self.flags.contains('-')
    }

    /// The C format of the field that a word or one character takes: `%-8s` (no precision).
    fn text_word(&self) -> String {
        let left = if self.left() { "-" } else { "" };
        let width = if self.width >= 0 {
            self.width.to_string()
        } else {
            String::new()
        };
        string_literal(&format!("%{left}{width}s"))
    }

    /// `"flags", width, precision`, as `m2cu_put_conv` takes them.
    fn c_args(&self) -> String {
        format!(
            "{}, {}, {}",
            string_literal(&self.flags),
            self.width,
            self.precision
        )
    }
}

/// The `kind` letter of `m2cu_fmt_arg` (`format.c`) for a value of `class`.
fn format_kind(class: Class) -> char {
    match class {
        Class::Double => 'd',
        Class::Single => 'f',
        Class::Int8 => 'b',
        Class::Uint8 => 'B',
        Class::Int16 => 'h',
        Class::Uint16 => 'H',
        Class::Int32 => 'i',
        Class::Uint32 => 'I',
        Class::Int64 => 'q',
        Class::Uint64 => 'Q',
        Class::Logical => 'l',
        Class::Char => 'c',
    }
}

impl Context<'_> {
    /// The statement: the pieces make one text, which is printed, becomes the call's error
    /// message (`M2CU_E_USER`), or is appended to a char row. Nothing prints once an error is
    /// pending; a run-time format that fails stops the call with its error.
    pub(crate) fn print(&self, code: &mut Code, pieces: &[PrintPiece], to: &PrintTo) {
        code.open(format!("if (!{}) {{", self.status));
        code.line("m2cu_text m2cu_t = M2CU_TEXT_INIT;");
        for piece in pieces {
            match piece {
                PrintPiece::Format { args } => self.run_time_format(code, args, to),
                PrintPiece::DisplayArray { arg, name } => {
                    self.display_array(code, *arg, name.as_deref())
                }
                _ => code.line(self.put_piece(piece)),
            }
        }
        let done = match to {
            PrintTo::Stdout | PrintTo::Display => "m2cu_say(&m2cu_t);".to_string(),
            PrintTo::Warning => "m2cu_warn(&m2cu_t);".to_string(),
            PrintTo::Error { id } => format!(
                "m2cu_raise(&m2cu_t, {}, m2cu_msg, m2cu_msg_len);",
                string_literal(id.as_deref().unwrap_or(""))
            ),
            PrintTo::Append { row } => format!(
                "if (!m2cu_append_text(&{t}, &{d0}, &{d1}, &m2cu_t)) {} = M2CU_E_NOMEM;",
                self.status,
                t = self.name(*row),
                d0 = self.names.dim(*row, 0),
                d1 = self.names.dim(*row, 1),
            ),
        };
        code.line(done);
        code.line("free(m2cu_t.s);");
        match to {
            PrintTo::Error { .. } => {
                code.line(format!("M2CU_FAIL({}, M2CU_E_USER);", self.err));
                code.line("goto m2cu_done;");
            }
            PrintTo::Append { .. } => code.line(format!("if ({}) goto m2cu_done;", self.status)),
            PrintTo::Stdout | PrintTo::Display | PrintTo::Warning => {}
        }
        code.close("}");
    }

    /// `m2cu_put_format` of the format and values `args` (each a pointer, its element count and
    /// its class); its error stops the call.
    fn run_time_format(&self, code: &mut Code, args: &[ExprId], to: &PrintTo) {
        let ew = self.exprs();
        let operands: Vec<String> = args
            .iter()
            .map(|&arg| {
                let ty = self.f.exprs[arg].ty;
                let kind = format_kind(ty.class);
                match self.f.exprs[arg].kind {
                    ExprKind::Local(array) if !ty.is_scalar() => format!(
                        "{{{}, {}, '{kind}'}}",
                        self.name(array),
                        self.names.numel(array)
                    ),
                    _ => format!(
                        "{{(const {c}[]){{{}}}, 1, '{kind}'}}",
                        ew.expr(arg),
                        c = ty.class.c_type()
                    ),
                }
            })
            .collect();
        code.open("{");
        code.line(format!(
            "const m2cu_fmt_arg m2cu_a[] = {{{}}};",
            operands.join(", ")
        ));
        code.line(format!(
            "int m2cu_f = m2cu_put_format(&m2cu_t, m2cu_a, {}, {}, m2cu_msg, m2cu_msg_len);",
            args.len(),
            string_literal(to.function())
        ));
        Self::stop_on_failure(code, self.err);
        code.close("}");
    }

    /// `m2cu_put_disp_array` of the whole array `arg` (a pointer, its element count and class,
    /// and its extents), shown as the variable `name` or as `disp` shows it; its error stops
    /// the call.
    fn display_array(&self, code: &mut Code, arg: ExprId, name: Option<&str>) {
        let array = self.whole_local(arg);
        code.open("{");
        code.line(format!(
            "int m2cu_f = m2cu_put_disp_array(&m2cu_t, (m2cu_fmt_arg){{{}, {}, '{}'}}, {}, {}, {});",
            self.name(array),
            self.names.numel(array),
            format_kind(self.f.class_of(arg)),
            self.names.dim(array, 0),
            self.names.dim(array, 1),
            name.map_or("NULL".to_string(), string_literal),
        ));
        Self::stop_on_failure(code, self.err);
        code.close("}");
    }

    /// Stops the call with the status `m2cu_f` of a host helper when it is not 0.
    fn stop_on_failure(code: &mut Code, err: &str) {
        code.open("if (m2cu_f != 0) {");
        code.line("free(m2cu_t.s);");
        code.line(format!("M2CU_FAIL({err}, m2cu_f);"));
        code.line("goto m2cu_done;");
        code.close("}");
    }

    /// The call that appends one piece to the text `m2cu_t`.
    fn put_piece(&self, piece: &PrintPiece) -> String {
        let arg = piece
            .args()
            .first()
            .map_or(String::new(), |&a| self.exprs().expr(a));
        self.put_piece_with(piece, &arg)
    }

    /// The call that appends one piece to the text `m2cu_t`, its value (if any) the C
    /// expression `arg` of the piece's class.
    pub(crate) fn put_piece_with(&self, piece: &PrintPiece, arg: &str) -> String {
        match piece {
            PrintPiece::Text(text) => format!("m2cu_put(&m2cu_t, {});", string_literal(text)),
            PrintPiece::TrimWhitespace => "m2cu_trim_text(&m2cu_t);".into(),
            PrintPiece::DropFinalNewline => {
                "if (m2cu_t.n > 0 && m2cu_t.s[m2cu_t.n - 1] == '\\n') m2cu_t.s[--m2cu_t.n] = 0;"
                    .into()
            }
            PrintPiece::Display(value) => {
                let helper = match self.f.class_of(*value) {
                    Class::Double | Class::Single => "m2cu_put_display(&m2cu_t, (double)",
                    Class::Uint64 => "m2cu_put_uint(&m2cu_t, (unsigned long long)",
                    _ => "m2cu_put_int(&m2cu_t, (long long)",
                };
                format!("{helper}({arg}));")
            }
            PrintPiece::Chars { modifiers, arg } => {
                let array = self.whole_local(*arg);
                let field = Field::of(modifiers);
                format!(
                    "m2cu_put_units(&m2cu_t, {}, {}, {}, {}, {});",
                    self.name(array),
                    self.names.numel(array),
                    field.width.max(0),
                    field.left() as u8,
                    field.precision
                )
            }
            PrintPiece::NumberRow {
                modifiers,
                arg,
                precision,
                lines,
            } => {
                let array = self.whole_local(*arg);
                let (rows, cols) = match lines {
                    true => (self.names.dim(array, 0), self.names.dim(array, 1)),
                    false => ("1".to_string(), self.names.numel(array)),
                };
                format!(
                    "m2cu_put_num2str_rows(&m2cu_t, {}, {rows}, {cols}, {}, {});",
                    self.name(array),
                    precision.map_or(-1, i64::from),
                    Field::of(modifiers).text_word()
                )
            }
            PrintPiece::Value {
                modifiers,
                conversion,
                arg: value,
            } => self.put_value(&Field::of(modifiers), *conversion, *value, arg),
            PrintPiece::Format { .. } | PrintPiece::DisplayArray { .. } => {
                unreachable!("a message that reads whole arrays keeps its loop sequential, so no failure record holds it")
            }
        }
    }

    /// One value with its conversion: `n` num2str's text, `c` one character, a 64-bit integer
    /// with every digit, any other number through `m2cu_put_conv`.
    fn put_value(&self, field: &Field, conversion: char, value: ExprId, arg: &str) -> String {
        let class = self.f.class_of(value);
        match conversion {
            'n' => format!(
                "m2cu_put_num2str(&m2cu_t, (double)({arg}), {});",
                field.text_word()
            ),
            'c' => format!(
                "m2cu_put_char(&m2cu_t, (double)({arg}), {});",
                field.text_word()
            ),
            _ if matches!(class, Class::Int64 | Class::Uint64) => {
                let unsigned = class == Class::Uint64;
                let (s, u) = match unsigned {
                    true => ("0".to_string(), format!("(unsigned long long)({arg})")),
                    false => (format!("(long long)({arg})"), "0".to_string()),
                };
                format!(
                    "m2cu_put_wide(&m2cu_t, {s}, {u}, {}, {}, '{conversion}');",
                    unsigned as u8,
                    field.c_args()
                )
            }
            _ => format!(
                "m2cu_put_conv(&m2cu_t, (double)({arg}), {}, '{conversion}');",
                field.c_args()
            ),
        }
    }

    /// The local of a piece that prints a whole array.
    fn whole_local(&self, arg: ExprId) -> m2cu_frontend::ir::LocalId {
        let ExprKind::Local(array) = self.f.exprs[arg].kind else {
            unreachable!("lowering holds a printed array in a local")
        };
        array
    }
}

#[cfg(test)]
mod tests {
    use super::Field;

    #[test]
    fn widths_and_precisions_beyond_int_max_are_dropped() {
        for (written, flags, width, precision) in [
            ("-08.3", "-0", 8, 3),
            ("99999999999", "", -1, -1),
            ("-99999999999", "-", -1, -1),
            ("099999999999", "0", -1, -1),
            (".99999999999", "", -1, -1),
            ("5.99999999999", "", 5, -1),
            ("99999999999.2", "", -1, 2),
            ("2147483647", "", 2147483647, -1),
            ("2147483648", "", -1, -1),
            (".", "", -1, 0),
        ] {
            let expected = Field {
                flags: flags.into(),
                width,
                precision,
            };
            assert_eq!(Field::of(written), expected, "{written}");
        }
    }
}
