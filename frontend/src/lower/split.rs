//! `words = strsplit(text, delimiters)` and `strjoin(words, delimiter)`: cells of texts made
//! when the program runs, as the text cells of `lower::cells` hold them (the text, and each
//! piece's offset and length).
//!
//! `strsplit` keeps the text whole and finds the pieces with m2cu's own `m2cu_strsplit.m`, as
//! Octave 7.3 splits: at each place the delimiters are tried in the order given and the first
//! that matches wins; with `'CollapseDelimiters'` true (the default) a run of delimiters is one;
//! a delimiter at the start or the end leaves an empty piece there. Without delimiters it splits
//! at whitespace (`' ' \f \n \r \t \v`). `strjoin` joins the pieces of a text cell (a literal one
//! too) with `m2cu_strjoin.m`, and `str2double` of a text cell reads each piece with m2cu's own
//! `str2double.m` (`m2cu_str2double_cell.m`); `str2double(strsplit(...))` splits into a
//! temporary cell that only that call reads.
//!
//! Invariants:
//! - delimiters written as literals have their escape sequences translated here, as Octave's
//!   `do_string_escapes` does (`'\t'` is a tab); an escape m2cu does not translate (octal, hex,
//!   an unknown letter) is E0167; a delimiter given when the program runs is checked there to
//!   hold no backslash (m2cu's error otherwise), since MATLAB would translate its escapes;
//! - an empty delimiter among others is E0167 (Octave's regular expression then matches the
//!   empty text everywhere); an empty delimiter alone matches nowhere, as in Octave;
//! - `'DelimiterType', 'RegularExpression'` and other options are E0167.

use super::array::Val;
use super::ast_build::{call, ident, number};
use super::cells::{cell_parts, hidden, LEN, START, TEXT};
use super::*;

/// The functions this module translates.
pub(super) const SPLIT_FUNCTIONS: [&str; 2] = ["strsplit", "strjoin"];

/// Octave's default delimiters: whitespace.
const WHITESPACE: [&str; 6] = [" ", "\u{c}", "\n", "\r", "\t", "\u{b}"];

/// The delimiters of one `strsplit` or `strjoin` call.
enum Delimiters {
    /// Literal texts, escapes translated, in the order given.
    Literal(Vec<String>),
    /// One char value made when the program runs.
    RunTime(ast::Expr),
}

impl Lowerer<'_> {
    /// `name = strsplit(text, ...)`: the new text cell `name`.
    pub(super) fn assign_split_cell(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<StmtId> {
        self.new_cell_allowed(name)?;
        self.split_cell(name, args, span)?;
        None
    }

    /// The parts of the text cell `name` from `strsplit(args)` (a new cell, or a temporary
    /// that a call reads at once).
    pub(super) fn split_cell(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<()> {
        let [text, rest @ ..] = args else {
            self.split_refused(
                span,
                "`strsplit` without a text",
                "write strsplit(text) or strsplit(text, delimiter)",
            );
            return None;
        };
        let (delimiters, options) = match rest {
            [] => (
                Delimiters::Literal(WHITESPACE.map(String::from).to_vec()),
                rest,
            ),
            [d, options @ ..] if super::text::text_literal(d).is_none_or(|t| !is_option(t)) => {
                (self.delimiters(d)?, options)
            }
            options => (
                Delimiters::Literal(WHITESPACE.map(String::from).to_vec()),
                options,
            ),
        };
        let collapse = self.collapse_option(options, span)?;
        let (dtext, dlens, raw) = delimiter_operands(&delimiters, span);
        let targets = [TEXT, START, LEN].map(|p| ast::LValue::Var(hidden(p, name)));
        let call = call(
            "m2cu_strsplit",
            vec![text.clone(), dtext, dlens, collapse, raw],
            span,
        );
        self.assign(&targets, &call, span)?;
        self.name_cell_parts(name);
        Some(())
    }

    /// `str2double(c)` of a text cell `c` (or of `strsplit(...)` written in the call): the
    /// number each text writes, in an array of the cell's shape; `None` for any other call.
    pub(super) fn numbers_of_cell(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Option<Val>> {
        let [cell] = args else {
            return None;
        };
        if callee.name != "str2double" || !self.runs_bundled("str2double") {
            return None;
        }
        let Some(name) = self.cell_operand(cell)? else {
            return Some(None);
        };
        let parts = cell_parts(&name, span);
        Some(self.value(&call("m2cu_str2double_cell", parts, span)))
    }

    /// `strjoin(c)` or `strjoin(c, delimiter)` of the text cell `c`; `None` for any other call.
    pub(super) fn joined_cell(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Option<Val>> {
        if callee.name != "strjoin" || self.is_function("strjoin") {
            return None;
        }
        let (cell, delimiter) = match args {
            [c] => (c, None),
            [c, d] => (c, Some(d)),
            _ => {
                self.split_refused(
                    span,
                    "`strjoin` with these arguments",
                    "write strjoin(c) or strjoin(c, delimiter)",
                );
                return Some(None);
            }
        };
        let name = match self.cell_operand(cell) {
            Some(Some(name)) => name,
            Some(None) => return Some(None),
            None => {
                self.split_refused(
                    cell.span,
                    "`strjoin` of a value that is not a cell of texts",
                    "join a cell of texts: c = {'a', 'b'}; strjoin(c, ', ')",
                );
                return Some(None);
            }
        };
        let delimiters = match delimiter {
            None => Delimiters::Literal(vec![" ".into()]),
            Some(d) => match self.delimiters(d) {
                Some(Delimiters::Literal(texts)) if texts.len() != 1 => {
                    self.split_refused(
                        d.span,
                        "`strjoin` with a cell of delimiters",
                        "join with one delimiter text",
                    );
                    return Some(None);
                }
                Some(d) => d,
                None => return Some(None),
            },
        };
        let (dtext, _, raw) = delimiter_operands(&delimiters, span);
        let mut call_args = cell_parts(&name, span);
        call_args.extend([dtext, raw]);
        Some(self.value(&call("m2cu_strjoin", call_args, span)))
    }

    /// The delimiters `d` of `strsplit` or `strjoin`: literal texts (a char literal or a cell of
    /// them), escapes translated, or a char value made when the program runs.
    fn delimiters(&mut self, d: &ast::Expr) -> Option<Delimiters> {
        let texts: Vec<&str> = match &d.kind {
            AstExpr::TextCell { items, .. } => {
                let literal: Option<Vec<&str>> =
                    items.iter().map(super::text::text_literal).collect();
                match literal {
                    Some(texts) => texts,
                    None => {
                        self.split_refused(
                            d.span,
                            "a cell of delimiters that are not all text literals",
                            "write the delimiters as literals: {',', ';'}",
                        );
                        return None;
                    }
                }
            }
            _ => match super::text::text_literal(d) {
                Some(text) => vec![text],
                None => return Some(Delimiters::RunTime(d.clone())),
            },
        };
        let mut translated = Vec::new();
        for text in texts {
            let Some(t) = string_escapes(text) else {
                self.split_refused(
                    d.span,
                    "a delimiter with an octal, hex or unknown escape sequence",
                    "write the character itself, or one of \\n \\t \\r \\f \\v \\a \\b \\\\ \\0",
                );
                return None;
            };
            translated.push(t);
        }
        if translated.len() > 1 && translated.iter().any(String::is_empty) {
            self.split_refused(
                d.span,
                "an empty delimiter among others",
                "remove the empty delimiter ''",
            );
            return None;
        }
        Some(Delimiters::Literal(translated))
    }

    /// The value of `'CollapseDelimiters'` among the name-value `options` (true when absent).
    fn collapse_option(&mut self, options: &[ast::Expr], span: Span) -> Option<ast::Expr> {
        let mut collapse = ident("true", span);
        for pair in options.chunks(2) {
            let name = super::text::text_literal(&pair[0]).map(str::to_ascii_lowercase);
            match (name.as_deref(), pair) {
                (Some("collapsedelimiters"), [_, value]) => collapse = value.clone(),
                (Some("delimitertype"), [_, value])
                    if super::text::text_literal(value)
                        .is_some_and(|v| v.eq_ignore_ascii_case("simple")) => {}
                _ => {
                    self.split_refused(
                        pair[0].span,
                        "this `strsplit` option",
                        "m2cu takes 'CollapseDelimiters', true or false (and 'DelimiterType', 'Simple')",
                    );
                    return None;
                }
            }
        }
        Some(collapse)
    }

    fn split_refused(&mut self, span: Span, what: &str, help: &str) {
        self.error(
            "E0167",
            span,
            format!("{what} is not supported"),
            help.into(),
        );
    }
}

/// Whether `text` is the name of a `strsplit` option.
fn is_option(text: &str) -> bool {
    ["collapsedelimiters", "delimitertype"].contains(&text.to_ascii_lowercase().as_str())
}

/// The operands of the helpers for `delimiters`: the delimiters' texts one after another, the
/// row of their lengths, and whether the text came at run time (1: the helper checks it).
fn delimiter_operands(delimiters: &Delimiters, span: Span) -> (ast::Expr, ast::Expr, ast::Expr) {
    let expr = |kind| ast::Expr { kind, span };
    match delimiters {
        Delimiters::Literal(texts) => {
            let lens = texts
                .iter()
                .map(|t| number(t.encode_utf16().count() as f64, span));
            (
                expr(AstExpr::Str(texts.concat())),
                expr(AstExpr::Matrix(vec![lens.collect()])),
                number(0.0, span),
            )
        }
        Delimiters::RunTime(d) => (
            d.clone(),
            call("numel", vec![d.clone()], span),
            number(1.0, span),
        ),
    }
}

/// `text` with the escape sequences that Octave's `do_string_escapes` translates and m2cu
/// takes; `None` for an octal or hex escape, an unknown one, or a `\` at the end.
fn string_escapes(text: &str) -> Option<String> {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        out.push(match chars.next()? {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            'f' => '\u{c}',
            'v' => '\u{b}',
            'a' => '\u{7}',
            'b' => '\u{8}',
            '0' if !chars
                .clone()
                .next()
                .is_some_and(|n| ('0'..='7').contains(&n)) =>
            {
                '\0'
            }
            c @ ('\\' | '"' | '\'') => c,
            _ => return None,
        });
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::string_escapes;

    #[test]
    fn escapes_translate_as_octave_does() {
        assert_eq!(string_escapes(r"a\tb\\c\n").as_deref(), Some("a\tb\\c\n"));
        assert_eq!(string_escapes(r"\0").as_deref(), Some("\0"));
        assert_eq!(string_escapes(r"\012"), None);
        assert_eq!(string_escapes(r"\x41"), None);
        assert_eq!(string_escapes(r"\q"), None);
        assert_eq!(string_escapes("a\\"), None);
    }
}
