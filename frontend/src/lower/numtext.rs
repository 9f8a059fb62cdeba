//! Char text that is built only to be printed: `num2str(x)` and `int2str(x)` of a scalar, and a
//! row `[...]` of char literals, char values, `num2str`/`int2str`/`sprintf` calls, as the value
//! of `disp`, of a one-argument `error`/`warning`, or of a `%s` conversion
//! (`disp(['iteration ' num2str(k)])`, `error(['bad size ' int2str(n)])`). m2cu has no char
//! result for these functions, so they become print pieces of the text the host builds.
//!
//! Invariants (Octave 7.3's output, checked by tests/text_output.rs):
//! - `num2str` of a double scalar is `%.16g` for an integer value, else `%.<d>g` with
//!   `d = max(floor(log10(|x|)) + 5, 5)`, at most 16 (`m2cu_put_num2str`); NaN and Inf are the
//!   words; integer classes and logicals print their value; `int2str(x)` is `%.0f` of
//!   `round(x)` (every digit: `int2str(1e16)` is `10000000000000000`, `num2str` gives `1e+16`);
//!   `num2str(x, p)` of a scalar with a literal precision is `%.<p>g` (`%d` of an integer
//!   class or logical), Octave's `%<p+7>.<p>g` with its leading blanks trimmed;
//! - `num2str` of a real double row is Octave's column layout (`PrintPiece::NumberRow`,
//!   `m2cu_put_num2str_row`): one `%w.0f` or `%w.pg` for every element from the largest finite
//!   magnitude, the elements side by side, leading and trailing blanks trimmed;
//! - single and 64-bit integer values, other arrays (E0150), and items of a row that are not
//!   text of one row are refused, never another text;
//! - a one-argument `error`/`warning` whose row holds `num2str`/`int2str` or non-empty literal
//!   text is never empty, so Octave's no-op for an empty message cannot apply.

use crate::ir::{PrintPiece, RuntimeError};

use super::array::Val;
use super::*;

/// The functions whose char result is printed without being held.
const NUMBER_TEXT: &[&str] = &["num2str", "int2str"];

impl Lowerer<'_> {
    /// Whether `e` is text that only print pieces can hold: a `num2str`/`int2str` call, or a
    /// one-row `[...]` that holds one (or a `sprintf`).
    pub(super) fn is_printed_text(&self, e: &ast::Expr) -> bool {
        match &strip_parens(e).kind {
            AstExpr::Matrix(rows) if rows.len() == 1 => rows[0]
                .iter()
                .any(|item| self.number_text_call(item) || is_call(item, "sprintf")),
            _ => self.number_text_call(e),
        }
    }

    /// Whether `e` calls MATLAB's `num2str` or `int2str` (not a function of the program).
    fn number_text_call(&self, e: &ast::Expr) -> bool {
        matches!(&strip_parens(e).kind, AstExpr::Call { callee, .. }
            if NUMBER_TEXT.contains(&callee.name.as_str()) && !self.is_function(&callee.name))
    }

    /// The pieces of printed text `e` (see [`Lowerer::is_printed_text`]); `None` when reported.
    pub(super) fn printed_text(&mut self, e: &ast::Expr) -> Option<Vec<PrintPiece>> {
        match &strip_parens(e).kind {
            AstExpr::Matrix(rows) if rows.len() == 1 => {
                let mut pieces = Vec::new();
                for item in &rows[0] {
                    pieces.extend(self.text_item(item)?);
                }
                Some(pieces)
            }
            _ => self.text_item(e),
        }
    }

    /// `%s` of `num2str(x)`/`int2str(x)`, padded to the width of `modifiers`.
    pub(super) fn number_text_piece(
        &mut self,
        e: &ast::Expr,
        modifiers: String,
    ) -> Option<Option<PrintPiece>> {
        if !self.number_text_call(e) {
            return Some(None);
        }
        let AstExpr::Call { callee, args } = &strip_parens(e).kind else {
            unreachable!("number_text_call matched a call")
        };
        self.number_text(&callee.name, args, modifiers, e.span)
            .map(Some)
    }

    /// One item of a printed row: literal text, a call that makes text, or a char value.
    fn text_item(&mut self, item: &ast::Expr) -> Option<Vec<PrintPiece>> {
        if let Some(text) = super::text::text_literal(item) {
            return Some(vec![PrintPiece::Text(text.into())]);
        }
        match &strip_parens(item).kind {
            AstExpr::Call { callee, args } if self.number_text_call(item) => {
                Some(vec![self.number_text(
                    &callee.name,
                    args,
                    String::new(),
                    item.span,
                )?])
            }
            AstExpr::Call { callee, args } if callee.name == "sprintf" => {
                self.sprintf_pieces(args, item.span)
            }
            _ => {
                let v = self.text_value(item)?;
                self.char_item(v, item.span).map(|piece| vec![piece])
            }
        }
    }

    /// A char value as an item of a printed row: one character, or a char array of one row
    /// (or 0-by-0, which a row concatenation drops).
    fn char_item(&mut self, v: Val, span: Span) -> Option<PrintPiece> {
        let class = super::expr::val_class(self, &v);
        match v {
            Val::Scalar(arg) if class == Class::Char => Some(PrintPiece::Value {
                modifiers: String::new(),
                conversion: 'c',
                arg,
            }),
            Val::Array(a)
                if class == Class::Char
                    && !a.shape.is_3d()
                    && (a.shape.rows == Dim::Known(1)
                        || (a.shape.rows == Dim::Known(0) && a.shape.cols == Dim::Known(0))) =>
            {
                let arg = self.whole_array_expr(&a, span);
                Some(PrintPiece::Chars {
                    modifiers: String::new(),
                    arg,
                })
            }
            _ => {
                self.text_error(
                    span,
                    "an item of a printed text must be char text of one row, num2str(x), int2str(x) or sprintf(...)",
                );
                None
            }
        }
    }

    /// `num2str(x)` / `int2str(x)` of a scalar, or `num2str` of a real double row, as one
    /// piece.
    pub(super) fn number_text(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        modifiers: String,
        span: Span,
    ) -> Option<PrintPiece> {
        let lines = std::mem::take(&mut self.num2str_lines);
        let (x, precision) = match args {
            [x] => (x, None),
            [x, format] if name == "num2str" && super::text::text_literal(format).is_some() => {
                return self.formatted_number(x, format, modifiers, lines, span);
            }
            [x, p] if name == "num2str" => match p.kind {
                AstExpr::Number { value, .. }
                    if value >= 0.0 && value.fract() == 0.0 && value <= 64.0 =>
                {
                    (x, Some(value as u32))
                }
                _ => {
                    self.text_error(
                        p.span,
                        "the precision of `num2str` must be a whole number written in the call here (a format text or a computed precision is not supported)",
                    );
                    return None;
                }
            },
            _ => {
                self.text_error(
                    span,
                    &format!("`{name}` takes one value here (no format or precision)"),
                );
                return None;
            }
        };
        let arg = match self.value(x)? {
            Val::Scalar(arg) => arg,
            Val::Array(a)
                if name == "num2str"
                    && (self.is_real_double_row(&a) || lines && self.is_real_double_matrix(&a)) =>
            {
                if self.cut_by_precision(name, &modifiers, span) {
                    return None;
                }
                let arg = self.whole_array_expr(&a, span);
                if a.shape.rows != Dim::Known(1) && !lines {
                    let ExprKind::Local(array) = self.exprs[arg].kind else {
                        unreachable!("whole_array_expr reads a local")
                    };
                    self.check_one_row(array, span);
                }
                return Some(PrintPiece::NumberRow {
                    modifiers,
                    arg,
                    precision,
                    lines,
                });
            }
            Val::Array(_) => {
                self.error(
                    "E0150",
                    x.span,
                    format!("`{name}` of this array is not supported yet (m2cu writes `num2str` of a real double row, in Octave's columns)"),
                    format!("print the elements with a format, `fprintf(' %g', x)`, or give `{name}` one element, `{name}(x(k))`"),
                );
                return None;
            }
        };
        let class = self.exprs[arg].ty.class;
        if matches!(
            class,
            Class::Single | Class::Int64 | Class::Uint64 | Class::Char
        ) {
            self.text_error(
                x.span,
                &format!("`{name}` of a {class} value is not supported (its digits differ from a double's)"),
            );
            return None;
        }
        if self.cut_by_precision(name, &modifiers, span) {
            return None;
        }
        match (name, precision) {
            // Octave's `%{p+7}.{p}g` (`%{p}d` of an integer), leading blanks trimmed.
            ("num2str", Some(p)) if class == Class::Double => {
                return Some(PrintPiece::Value {
                    modifiers: format!("{modifiers}.{p}"),
                    conversion: 'g',
                    arg,
                })
            }
            ("num2str", Some(_)) => {
                return Some(PrintPiece::Value {
                    modifiers,
                    conversion: 'd',
                    arg,
                })
            }
            ("num2str", None) => {
                return Some(PrintPiece::Value {
                    modifiers,
                    conversion: 'n',
                    arg,
                })
            }
            _ => {}
        }
        let rounded = if class == Class::Double {
            self.new_expr(
                ExprKind::Call(Builtin::Round, vec![arg]),
                Type::scalar(class),
                span,
            )
        } else {
            arg
        };
        Some(PrintPiece::Value {
            modifiers: format!("{modifiers}.0"),
            conversion: 'f',
            arg: rounded,
        })
    }

    /// Reports a precision in `modifiers` (`%.3s`), which would cut the text of `name`.
    fn cut_by_precision(&mut self, name: &str, modifiers: &str, span: Span) -> bool {
        let cut = modifiers.contains('.');
        if cut {
            self.text_error(span, &format!("a precision cuts the text of `{name}`"));
        }
        cut
    }

    /// Whether `a` is a real double array that may be a row (its rows 1 or unknown; a check
    /// stops the run where it has more).
    fn is_real_double_row(&self, a: &super::array::ArrayVal) -> bool {
        self.is_real_double_matrix(a) && matches!(a.shape.rows, Dim::Known(1) | Dim::Var)
    }

    /// Whether `a` is a real double 2-D array.
    fn is_real_double_matrix(&self, a: &super::array::ArrayVal) -> bool {
        a.class == Class::Double
            && !super::complex_array::is_complex_val(self, a)
            && !a.shape.is_3d()
    }

    /// `num2str(x, format)` of a scalar or a row `x`: Octave's `strtrim(sprintf(format, x))`
    /// (the format applied to each element in turn, leading and trailing whitespace trimmed),
    /// made into a char row on the host, as one `Chars` piece. Shown by `disp` (`lines`), a
    /// matrix is Octave's rows of text (m2cu's own `m2cu_num2str_rows.m`); elsewhere a matrix
    /// `x` is E0150, or stops when its rows are known only at run time; a format that writes
    /// a newline (several rows in Octave) is E0115.
    fn formatted_number(
        &mut self,
        x: &ast::Expr,
        format: &ast::Expr,
        modifiers: String,
        lines: bool,
        span: Span,
    ) -> Option<PrintPiece> {
        if super::text::text_literal(format).is_some_and(|f| f.contains("\\n") || f.contains('\n'))
        {
            self.text_error(
                format.span,
                "a `num2str` format that writes a newline makes several rows of text in Octave, which m2cu does not write",
            );
            return None;
        }
        let v = self.value(x)?;
        if let (Val::Array(a), true) = (&v, lines) {
            if a.shape.rows != Dim::Known(1) && self.is_real_double_matrix(a) {
                let held = self.hidden_variable("num", v, x.span, span)?;
                let rows =
                    super::ast_build::call("m2cu_num2str_rows", vec![held, format.clone()], span);
                return Some(match self.value(&rows)? {
                    Val::Array(text) => PrintPiece::DisplayArray {
                        arg: self.whole_array_expr(&text, span),
                        name: None,
                    },
                    Val::Scalar(one) => self.displayed_scalar(one),
                });
            }
        }
        if let Val::Array(a) = &v {
            match a.shape.rows {
                Dim::Known(1) => {}
                Dim::Known(_) => {
                    self.error(
                        "E0150",
                        x.span,
                        "`num2str(x, format)` of a matrix is rows of text in Octave, which m2cu does not write yet".into(),
                        "give it one row at a time, num2str(A(k, :), format)".into(),
                    );
                    return None;
                }
                Dim::Var => {
                    let local = self.whole_local(a);
                    self.check_one_row(local, span);
                }
            }
        }
        let piece = self.host_format_of(format, v, span)?;
        let row = self.appended_text(vec![piece, PrintPiece::TrimWhitespace], span);
        let arg = self.whole_array_expr(&row, span);
        Some(PrintPiece::Chars { modifiers, arg })
    }

    /// Stops the program unless `array` has at most one row (`num2str` of a matrix is rows of
    /// text in Octave).
    fn check_one_row(&mut self, array: LocalId, span: Span) {
        let a_row = self.size_compared(array, SizeQuery::Dim(1), BinOp::Le, 1.0, span);
        self.push(
            StmtKind::Check {
                cond: a_row,
                error: RuntimeError::Num2strRows,
            },
            span,
        );
    }

    fn text_error(&mut self, span: Span, message: &str) {
        self.error(
            "E0115",
            span,
            message.into(),
            "print the parts one by one, e.g. fprintf('%s %d\\n', label, n), or give num2str/int2str one scalar".into(),
        );
    }
}

fn is_call(e: &ast::Expr, name: &str) -> bool {
    matches!(&strip_parens(e).kind, AstExpr::Call { callee, .. } if callee.name == name)
}
