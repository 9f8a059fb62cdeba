//! Lexer: MATLAB source text → [`Token`]s.
//!
//! Invariants of [`lex`]'s output:
//! - the token list always ends with exactly one [`TokKind::Eof`] token, whose span is the empty
//!   span at the end of the source; no other token is `Eof`;
//! - spans are byte offsets into the source, in increasing order, and always on char boundaries;
//! - comments, block comments and `...` continuations produce no tokens; a continuation also
//!   swallows its newline (so the next line continues the statement);
//! - every problem found is reported in the returned [`Diagnostics`]; where a token could not be
//!   formed the lexer emits [`TokKind::Error`] so that the parser stays silent about it (the
//!   lexer already spoke);
//! - the token list depends on the [`Dialect`] only inside block comments (where `#{`/`#}`
//!   lines nest under Octave only); otherwise only the diagnostics do: Octave-only
//!   spellings (`#` comments, `!=`, `**`, `.**`, `+=`, `x++`, `"strings"`) always lex to their tokens
//!   (`!=` to [`TokKind::Ne`], `"a\n"` to a [`TokKind::Str`] with its escapes processed), and
//!   under [`Dialect::Matlab`] each is also reported with its MATLAB spelling;
//! - a dotted name `s.field` or `gpucoder.reduce` is one [`TokKind::Ident`] holding the dots
//!   (a `.` directly between two words); `a.*b`, `a.'`, `1.5` and `1./b` are unaffected;
//! - [`Token::space_before`] records whether whitespace (or a continuation) separated the token
//!   from the previous one: inside `[]` it decides `[a -b]` (two elements) versus `[a - b]`.
//!
//! Whether `'` is a transpose or starts a char literal is decided here: it is a transpose right
//! after a value (identifier, number, closing bracket, transpose, char literal, or `end` inside
//! brackets), unless whitespace separates the two inside `[]` or `{}`, or the closing bracket
//! ends an anonymous function's parameters (`@(x) 'text'`).
//!
//! Error codes produced here are listed in the table at the top of [`crate::parser`].

use crate::ast::BinaryOp;
use crate::diag::{Diagnostic, Diagnostics, Span};

/// Which language the source is written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// MATLAB: Octave-only spellings are errors (`E0005`–`E0007`, `E0024`).
    #[default]
    Matlab,
    /// GNU Octave: also accepts `#` comments, `!=`, `!x`, `**`, `x += e`, `x++`,
    /// double-quoted strings and `endfor`-style block terminators.
    Octave,
}

/// One lexical token.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub kind: TokKind,
    pub span: Span,
    /// Whitespace or a `...` continuation came right before this token.
    pub space_before: bool,
}

/// Reserved words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keyword {
    Function,
    End,
    If,
    Elseif,
    Else,
    For,
    While,
    Break,
    Continue,
    Return,
    Switch,
    Case,
    Otherwise,
    /// A MATLAB keyword whose construct m2cu does not support (`try`, `parfor`, ...).
    Unsupported(&'static str),
}

/// The kinds of token.
#[derive(Clone, Debug, PartialEq)]
pub enum TokKind {
    Ident(String),
    /// `.name` (or `.a.b`) directly after the `)` of an index: a field of an element of a
    /// struct array, `s(k).name`; the text is the name without its first dot.
    Field(String),
    /// A numeric literal; the source spelling.
    Number(String),
    /// A char literal's contents, with `''` already turned into `'`; also Octave's `"text"`.
    Str(String),
    /// MATLAB's `"text"` (a string scalar), with `""` already turned into `"`.
    StringScalar(String),
    Kw(Keyword),
    Plus,
    Minus,
    Star,
    Slash,
    Backslash,
    Caret,
    DotStar,
    DotSlash,
    DotBackslash,
    DotCaret,
    /// `'` as complex-conjugate transpose.
    Quote,
    /// `.'`
    DotQuote,
    /// `==`
    EqEq,
    /// `~=`
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    AndAnd,
    OrOr,
    /// `~`
    Not,
    /// `=`
    Assign,
    /// Octave's `+=`, `-=`, `*=`, `/=`, `^=`: the operator applied before assigning.
    OpAssign(BinaryOp),
    /// Octave's `++` ending a statement.
    Incr,
    /// Octave's `--` ending a statement.
    Decr,
    /// `@`
    At,
    Colon,
    Comma,
    Semi,
    Newline,
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    /// Something the lexer rejected and already reported.
    Error,
    Eof,
}

impl TokKind {
    /// A short description for error messages: "`)`", "identifier `x`", "end of file".
    pub fn describe(&self) -> String {
        match self {
            TokKind::Ident(name) => format!("identifier `{name}`"),
            TokKind::Field(name) => format!("field `.{name}`"),
            TokKind::Number(text) => format!("number `{text}`"),
            TokKind::Str(_) => "char literal".to_string(),
            TokKind::StringScalar(_) => "string literal".to_string(),
            TokKind::Kw(kw) => format!("keyword `{}`", kw.spelling()),
            TokKind::Newline => "end of line".to_string(),
            TokKind::Eof => "end of file".to_string(),
            TokKind::Error => "invalid token".to_string(),
            other => format!("`{}`", other.symbol()),
        }
    }

    /// The spelling of punctuation and operator tokens (empty for the others).
    pub fn symbol(&self) -> &'static str {
        use TokKind::*;
        match self {
            Plus => "+",
            Minus => "-",
            Star => "*",
            Slash => "/",
            Backslash => "\\",
            Caret => "^",
            DotStar => ".*",
            DotSlash => "./",
            DotBackslash => ".\\",
            DotCaret => ".^",
            Quote => "'",
            DotQuote => ".'",
            EqEq => "==",
            Ne => "~=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&",
            Or => "|",
            AndAnd => "&&",
            OrOr => "||",
            Not => "~",
            Assign => "=",
            OpAssign(op) => compound_spelling(*op),
            Incr => "++",
            Decr => "--",
            At => "@",
            Colon => ":",
            Comma => ",",
            Semi => ";",
            LParen => "(",
            RParen => ")",
            LBracket => "[",
            RBracket => "]",
            LBrace => "{",
            RBrace => "}",
            Ident(_) | Field(_) | Number(_) | Str(_) | StringScalar(_) | Kw(_) | Newline
            | Error | Eof => "",
        }
    }
}

impl Keyword {
    pub fn spelling(self) -> &'static str {
        match self {
            Keyword::Function => "function",
            Keyword::End => "end",
            Keyword::If => "if",
            Keyword::Elseif => "elseif",
            Keyword::Else => "else",
            Keyword::For => "for",
            Keyword::While => "while",
            Keyword::Break => "break",
            Keyword::Continue => "continue",
            Keyword::Return => "return",
            Keyword::Switch => "switch",
            Keyword::Case => "case",
            Keyword::Otherwise => "otherwise",
            Keyword::Unsupported(word) => word,
        }
    }

    fn from_word(word: &str) -> Option<Keyword> {
        const UNSUPPORTED: [&str; 7] = [
            "try",
            "catch",
            "parfor",
            "global",
            "persistent",
            "spmd",
            "classdef",
        ];
        let kw = match word {
            "function" => Keyword::Function,
            "end" => Keyword::End,
            "if" => Keyword::If,
            "elseif" => Keyword::Elseif,
            "else" => Keyword::Else,
            "for" => Keyword::For,
            "while" => Keyword::While,
            "break" => Keyword::Break,
            "continue" => Keyword::Continue,
            "return" => Keyword::Return,
            "switch" => Keyword::Switch,
            "case" => Keyword::Case,
            "otherwise" => Keyword::Otherwise,
            _ => {
                return UNSUPPORTED
                    .iter()
                    .find(|w| **w == word)
                    .copied()
                    .map(Keyword::Unsupported)
            }
        };
        Some(kw)
    }
}

/// The lexer's result.
#[derive(Clone, Debug, Default)]
pub struct Lexed {
    /// The tokens, ending with [`TokKind::Eof`].
    pub tokens: Vec<Token>,
    /// The file contains a `%#codegen` comment.
    pub codegen_directive: bool,
    pub diagnostics: Diagnostics,
}

/// Splits MATLAB `source` into tokens. Never fails: problems go into [`Lexed::diagnostics`].
pub fn lex(source: &str) -> Lexed {
    lex_with(source, Dialect::Matlab)
}

/// Splits `source` into tokens, reporting what `dialect` does not accept.
pub fn lex_with(source: &str, dialect: Dialect) -> Lexed {
    let mut lexer = Lexer {
        src: source,
        dialect,
        pos: 0,
        space: false,
        brackets: Vec::new(),
        anon_params_end: None,
        out: Lexed::default(),
    };
    lexer.run();
    lexer.out
}

struct Lexer<'s> {
    src: &'s str,
    dialect: Dialect,
    /// Byte offset of the next unread char; always a char boundary.
    pos: usize,
    /// Whitespace was skipped since the last token.
    space: bool,
    /// Open brackets: `(`, `[` or `{`, and `@` for the `(` of an anonymous function's parameters.
    brackets: Vec<u8>,
    /// The index of the last `)` token that closed an anonymous function's parameters: a `'`
    /// right after it starts the body's char literal (`@(x) 'text'`), not a transpose.
    anon_params_end: Option<usize>,
    out: Lexed,
}

impl Lexer<'_> {
    fn run(&mut self) {
        while let Some(c) = self.peek() {
            self.step(c);
        }
        let end = self.src.len();
        self.out.tokens.push(Token {
            kind: TokKind::Eof,
            span: Span::new(end, end),
            space_before: self.space,
        });
    }

    fn peek(&self) -> Option<char> {
        self.src[self.pos..].chars().next()
    }

    fn peek_at(&self, ahead: usize) -> Option<char> {
        self.src
            .get(self.pos + ahead..)
            .and_then(|s| s.chars().next())
    }

    fn rest(&self) -> &str {
        &self.src[self.pos..]
    }

    fn step(&mut self, c: char) {
        match c {
            ' ' | '\t' | '\r' | '\x0c' => {
                self.pos += 1;
                self.space = true;
            }
            '\n' => self.newline(),
            '%' => self.percent(),
            '#' => self.hash(),
            '.' if self.rest().starts_with("...") => self.continuation(),
            '.' if self.peek_at(1).is_some_and(|d| d.is_ascii_digit()) => self.number(),
            '0'..='9' => self.number(),
            'a'..='z' | 'A'..='Z' => self.word(),
            '\'' if self.quote_is_transpose() => self.push(TokKind::Quote, 1),
            '\'' => self.char_literal(),
            '"' => self.double_quoted(),
            '@' => self.push(TokKind::At, 1),
            _ => self.operator(c),
        }
    }

    fn push(&mut self, kind: TokKind, len: usize) {
        let span = Span::new(self.pos, self.pos + len);
        self.push_span(kind, span);
        self.pos += len;
    }

    fn push_span(&mut self, kind: TokKind, span: Span) {
        self.out.tokens.push(Token {
            kind,
            span,
            space_before: self.space,
        });
        self.space = false;
    }

    fn error(&mut self, diag: Diagnostic) {
        self.out.diagnostics.push(diag);
    }

    /// Reports `diag` about an Octave-only spelling, unless the dialect is Octave.
    fn octave_only(&mut self, diag: Diagnostic) {
        if self.dialect == Dialect::Matlab {
            self.error(diag);
        }
    }

    fn in_brackets(&self) -> bool {
        matches!(self.brackets.last(), Some(b'[' | b'{'))
    }

    /// A newline ends the statement; unclosed `(` cannot span lines, so they are dropped here.
    fn newline(&mut self) {
        while matches!(self.brackets.last(), Some(b'(' | b'@')) {
            self.brackets.pop();
        }
        self.push(TokKind::Newline, 1);
    }

    fn line_end(&self) -> usize {
        self.rest()
            .find('\n')
            .map_or(self.src.len(), |n| self.pos + n)
    }

    fn continuation(&mut self) {
        let end = self.line_end();
        self.pos = (end + 1).min(self.src.len());
        self.space = true;
    }

    fn percent(&mut self) {
        if block_comment_marker(self.dialect, self.current_line(), false) == Some(true) {
            self.block_comment();
            return;
        }
        let end = self.line_end();
        let text = &self.src[self.pos..end];
        if text.trim_end() == "%#codegen" {
            self.out.codegen_directive = true;
        }
        self.pos = end;
    }

    /// The whole line the next char is on.
    fn current_line(&self) -> &str {
        let line_start = self.src[..self.pos].rfind('\n').map_or(0, |n| n + 1);
        &self.src[line_start..self.line_end()]
    }

    /// Skips a (nestable) block comment; the newline after the closing `%}` is lexed normally.
    fn block_comment(&mut self) {
        let open = Span::new(self.pos, self.pos + 2);
        let mut depth = 0usize;
        loop {
            let end = self.line_end();
            match block_comment_marker(self.dialect, &self.src[self.pos..end], depth > 0) {
                Some(true) => depth += 1,
                Some(false) => depth -= 1,
                None => {}
            }
            if depth == 0 {
                self.pos = end;
                return;
            }
            if end >= self.src.len() {
                self.pos = end;
                self.error(
                    Diagnostic::error("E0003", open, "unterminated block comment")
                        .with_label("this `%{` is never closed")
                        .with_help("close the block comment with `%}` on a line by itself"),
                );
                return;
            }
            self.pos = end + 1;
        }
    }

    /// An Octave `#` comment or `#{` block comment.
    fn hash(&mut self) {
        let span = Span::new(self.pos, self.pos + 1);
        let block = block_comment_marker(self.dialect, self.current_line(), false) == Some(true);
        let help = if block {
            "MATLAB block comments are `%{` and `%}`, each on a line by itself"
        } else {
            "MATLAB comments start with `%`: write `% ...`"
        };
        self.octave_only(
            Diagnostic::error("E0005", span, "`#` comments are Octave-only")
                .with_label("Octave comment")
                .with_help(help),
        );
        if block {
            self.block_comment();
        } else {
            self.pos = self.line_end();
        }
    }

    /// `1`, `1e-3`, `.5`, `3.`, `1E+4`; in `1./b` the number ends before the dot.
    fn number(&mut self) {
        let start = self.pos;
        self.skip_digits();
        if self.peek() == Some('.') && self.dot_belongs_to_number() {
            self.pos += 1;
            self.skip_digits();
        }
        self.exponent();
        let span = Span::new(start, self.pos);
        self.push_span(TokKind::Number(self.src[start..self.pos].to_string()), span);
        self.number_suffix(start);
    }

    fn skip_digits(&mut self) {
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
    }

    fn dot_belongs_to_number(&self) -> bool {
        let after = &self.src[self.pos + 1..];
        !(after.starts_with(['*', '/', '\\', '^', '\'']) || after.starts_with(".."))
    }

    fn exponent(&mut self) {
        let bytes = self.rest().as_bytes();
        if !matches!(bytes.first(), Some(b'e' | b'E')) {
            return;
        }
        let sign = usize::from(matches!(bytes.get(1), Some(b'+' | b'-')));
        if bytes.get(1 + sign).is_some_and(u8::is_ascii_digit) {
            self.pos += 1 + sign;
            self.skip_digits();
        }
    }

    /// A number glued to letters (`2x`, `1e`, `3i`) is malformed.
    fn number_suffix(&mut self, start: usize) {
        let suffix_start = self.pos;
        self.skip_word_chars();
        if self.pos == suffix_start {
            return;
        }
        let suffix = &self.src[suffix_start..self.pos];
        if matches!(suffix, "i" | "j" | "I" | "J") {
            // An imaginary literal (`2i`, `3.5e2j`): one number token, suffix included.
            if let Some(last) = self.out.tokens.last_mut() {
                last.kind = TokKind::Number(self.src[start..self.pos].to_string());
                last.span = Span::new(start, self.pos);
            }
            return;
        }
        let help = if &self.src[start..suffix_start] == "0"
            && suffix.starts_with(['x', 'X', 'b', 'B'])
        {
            "hexadecimal and binary literals are not supported; write the decimal value".to_string()
        } else {
            format!("put an operator or a space between the number and `{suffix}`, e.g. `2*x`")
        };
        let span = Span::new(start, self.pos);
        self.error(
            Diagnostic::error("E0004", span, "malformed number")
                .with_label("not a valid number")
                .with_help(help),
        );
        if let Some(last) = self.out.tokens.last_mut() {
            last.kind = TokKind::Error;
            last.span = span;
        }
    }

    /// A keyword, a name, or a dotted name (`s.field`, `gpucoder.reduce`): the dots must sit
    /// directly between two words.
    fn word(&mut self) {
        let start = self.pos;
        self.skip_word_chars();
        if let Some(kw) = Keyword::from_word(&self.src[start..self.pos]) {
            self.push_span(TokKind::Kw(kw), Span::new(start, self.pos));
            return;
        }
        while self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_alphabetic()) {
            self.pos += 1;
            self.skip_word_chars();
        }
        let name = self.src[start..self.pos].to_string();
        self.push_span(TokKind::Ident(name), Span::new(start, self.pos));
    }

    /// `.name` or `.a.b` after the `)` of an index (the current character is the `.`).
    fn element_field(&mut self) {
        let start = self.pos;
        self.pos += 1;
        self.skip_word_chars();
        while self.peek() == Some('.') && self.peek_at(1).is_some_and(|c| c.is_ascii_alphabetic()) {
            self.pos += 1;
            self.skip_word_chars();
        }
        let name = self.src[start + 1..self.pos].to_string();
        self.push_span(TokKind::Field(name), Span::new(start, self.pos));
    }

    fn skip_word_chars(&mut self) {
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        {
            self.pos += 1;
        }
    }

    fn quote_is_transpose(&self) -> bool {
        let Some(prev) = self.out.tokens.last() else {
            return false;
        };
        if self.space && self.in_brackets() {
            return false;
        }
        match prev.kind {
            TokKind::Ident(_)
            | TokKind::Field(_)
            | TokKind::Number(_)
            | TokKind::Str(_)
            | TokKind::StringScalar(_)
            | TokKind::RBracket
            | TokKind::RBrace
            | TokKind::Quote
            | TokKind::DotQuote => true,
            TokKind::RParen => self.anon_params_end != Some(self.out.tokens.len() - 1),
            TokKind::Kw(Keyword::End) => !self.brackets.is_empty(),
            _ => false,
        }
    }

    /// `'text'`, with `''` standing for one quote; must close on the same line.
    fn char_literal(&mut self) {
        let start = self.pos;
        let mut value = String::new();
        let mut i = start + 1;
        loop {
            match self.src[i..].chars().next() {
                Some('\'') if self.src[i + 1..].starts_with('\'') => {
                    value.push('\'');
                    i += 2;
                }
                Some('\'') => {
                    self.pos = i + 1;
                    self.push_span(TokKind::Str(value), Span::new(start, i + 1));
                    return;
                }
                Some('\n') | None => break,
                Some(c) => {
                    value.push(c);
                    i += c.len_utf8();
                }
            }
        }
        self.pos = i;
        self.error(
            Diagnostic::error("E0001", Span::new(start, start + 1), "unterminated char literal")
                .with_label("this quote opens a char literal that is never closed")
                .with_help("close it with `'` on the same line (write `''` for a quote inside it); for a transpose, put `'` right after the value"),
        );
        self.push_span(TokKind::Error, Span::new(start, i));
    }

    /// `"text"`: under MATLAB a string scalar ([`TokKind::StringScalar`], no backslash escapes),
    /// under Octave its char string ([`TokKind::Str`], escapes processed); like a char literal it
    /// must close on the same line.
    fn double_quoted(&mut self) {
        let start = self.pos;
        match double_quoted_value(&self.src[start + 1..], self.dialect) {
            Ok((value, len)) => {
                let span = Span::new(start, start + 1 + len);
                self.pos = span.end as usize;
                let kind = match self.dialect {
                    Dialect::Matlab => TokKind::StringScalar(value),
                    Dialect::Octave => TokKind::Str(value),
                };
                self.push_span(kind, span);
            }
            Err(len) => {
                let span = Span::new(start, start + 1 + len);
                self.error(
                    Diagnostic::error("E0001", Span::new(start, start + 1), "unterminated string")
                        .with_label("this quote opens a string that is never closed")
                        .with_help("close it with `\"` on the same line"),
                );
                self.pos = span.end as usize;
                self.push_span(TokKind::Error, span);
            }
        }
    }

    fn operator(&mut self, c: char) {
        let rest = self.rest();
        if let Some(op) = octave_operator(rest) {
            self.octave_operator(op);
            return;
        }
        if let Some((kind, len)) = punctuation(rest) {
            self.track_bracket(&kind);
            self.push(kind, len);
            return;
        }
        self.unexpected_char(c);
    }

    /// Called before `kind` is pushed.
    fn track_bracket(&mut self, kind: &TokKind) {
        let after_at = self.out.tokens.last().map(|t| &t.kind) == Some(&TokKind::At);
        match kind {
            TokKind::LParen if after_at => self.brackets.push(b'@'),
            TokKind::LParen => self.brackets.push(b'('),
            TokKind::LBracket => self.brackets.push(b'['),
            TokKind::LBrace => self.brackets.push(b'{'),
            TokKind::RParen => self.close_paren(),
            TokKind::RBracket => {
                self.close_bracket(b"[");
            }
            TokKind::RBrace => {
                self.close_bracket(b"{");
            }
            _ => {}
        }
    }

    /// A `)`, which may end an anonymous function's parameters.
    fn close_paren(&mut self) {
        if self.close_bracket(b"(@") == Some(b'@') {
            self.anon_params_end = Some(self.out.tokens.len());
        }
    }

    /// Pops up to and including the innermost opener among `openers`, if there is one, and
    /// says which it was.
    fn close_bracket(&mut self, openers: &[u8]) -> Option<u8> {
        let at = self.brackets.iter().rposition(|b| openers.contains(b))?;
        let open = self.brackets.get(at).copied();
        self.brackets.truncate(at);
        open
    }

    fn octave_operator(&mut self, op: OctaveOp) {
        let span = Span::new(self.pos, self.pos + op.spelling.len());
        self.octave_only(
            Diagnostic::error(
                op.code,
                span,
                format!("`{}` is Octave-only syntax", op.spelling),
            )
            .with_label("not MATLAB")
            .with_help(op.help),
        );
        self.push(op.replacement, op.spelling.len());
    }

    fn unexpected_char(&mut self, c: char) {
        let span = Span::new(self.pos, self.pos + c.len_utf8());
        let after_index = c == '.'
            && self.out.tokens.last().is_some_and(|t| {
                matches!(t.kind, TokKind::RParen | TokKind::RBrace)
                    && t.span.end as usize == self.pos
            })
            && self.peek_at(1).is_some_and(|n| n.is_ascii_alphabetic());
        let after_paren = after_index
            && self
                .out
                .tokens
                .last()
                .is_some_and(|t| t.kind == TokKind::RParen);
        if after_paren {
            self.element_field();
            return;
        }
        if after_index {
            // `c{k}.name`: a struct in a cell.
            self.error(
                Diagnostic::error(
                    "E0002",
                    span,
                    "a field of a cell's content (`c{k}.name`) is not supported",
                )
                .with_label("field of a cell's content")
                .with_help("keep each field in an array of its own, indexed the same way: `score(k) = v` for numbers, `name{k} = 'text'` in a cell of texts"),
            );
            self.push(TokKind::Error, 1);
            return;
        }
        let help = match c {
            '.' => "only dotted names `s.field` and fields of a struct array's elements `s(k).field` are understood; dynamic fields `s.(name)` are not supported",
            '_' => "identifiers must start with a letter",
            _ => "remove this character; m2cu accepts MATLAB operators, names, numbers and 'char literals'",
        };
        let message = match c {
            '.' => "unexpected `.`: not a field name".to_string(),
            _ => format!("unexpected character `{}`", c.escape_default()),
        };
        self.error(
            Diagnostic::error("E0002", span, message)
                .with_label("unexpected here")
                .with_help(help),
        );
        self.push(TokKind::Error, c.len_utf8());
    }
}

/// The value of the double-quoted string whose text follows the opening `"` at the start of
/// `text`, and the bytes it takes up to and including its closing `"`; `Err(bytes)` when the line
/// ends first. `""` stands for `"`; under Octave the escapes `\n \t \r \\ \" \'` are processed
/// (any other backslash is kept as written), under MATLAB a backslash is an ordinary character.
fn double_quoted_value(text: &str, dialect: Dialect) -> Result<(String, usize), usize> {
    let mut value = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let next = chars.peek().map(|&(_, n)| n);
        match c {
            '"' if next == Some('"') => {
                chars.next();
                value.push('"');
            }
            '"' => return Ok((value, at + 1)),
            '\n' => return Err(at),
            '\\' if dialect == Dialect::Octave => match next.and_then(escaped) {
                Some(e) => {
                    chars.next();
                    value.push(e);
                }
                None => value.push('\\'),
            },
            c => value.push(c),
        }
    }
    Err(text.len())
}

/// The char that `\c` stands for in a double-quoted string.
fn escaped(c: char) -> Option<char> {
    match c {
        'n' => Some('\n'),
        't' => Some('\t'),
        'r' => Some('\r'),
        '\\' | '"' | '\'' => Some(c),
        _ => None,
    }
}

/// `Some(true)` for a line that opens a block comment (`%{` alone on it, surrounding whitespace
/// allowed), `Some(false)` for one that closes it (`%}`). `#{` and `#}` count too, but `inside`
/// a block only under Octave (MATLAB sees them as comment text; a `#{` block is an error there).
fn block_comment_marker(dialect: Dialect, line: &str, inside: bool) -> Option<bool> {
    let hash_counts = dialect == Dialect::Octave || !inside;
    match line.trim() {
        "%{" => Some(true),
        "%}" => Some(false),
        "#{" if hash_counts => Some(true),
        "#}" if hash_counts => Some(false),
        _ => None,
    }
}

/// An Octave-only operator spelling, lexed as `replacement` (and reported under MATLAB).
struct OctaveOp {
    spelling: &'static str,
    code: &'static str,
    help: String,
    replacement: TokKind,
}

/// The Octave compound assignments and the operator each applies.
const COMPOUND: [(&str, BinaryOp); 5] = [
    ("+=", BinaryOp::Add),
    ("-=", BinaryOp::Sub),
    ("*=", BinaryOp::Mul),
    ("/=", BinaryOp::Div),
    ("^=", BinaryOp::Pow),
];

fn compound_spelling(op: BinaryOp) -> &'static str {
    COMPOUND
        .iter()
        .find(|(_, o)| *o == op)
        .map_or("=", |(spelling, _)| spelling)
}

fn octave_operator(rest: &str) -> Option<OctaveOp> {
    let op = |spelling, code, help: &str, replacement| {
        Some(OctaveOp {
            spelling,
            code,
            help: help.to_string(),
            replacement,
        })
    };
    if rest.starts_with("!=") {
        return op(
            "!=",
            "E0006",
            "MATLAB writes not-equal as `~=`",
            TokKind::Ne,
        );
    }
    if rest.starts_with('!') {
        return op(
            "!",
            "E0006",
            "MATLAB writes logical not as `~`, e.g. `~x`",
            TokKind::Not,
        );
    }
    if rest.starts_with(".**") {
        return op(
            ".**",
            "E0006",
            "MATLAB writes elementwise powers as `.^`",
            TokKind::DotCaret,
        );
    }
    if rest.starts_with("**") {
        return op(
            "**",
            "E0006",
            "MATLAB writes powers as `^` (or `.^` elementwise)",
            TokKind::Caret,
        );
    }
    if let Some((spelling, bin)) = COMPOUND.iter().find(|(s, _)| rest.starts_with(s)) {
        let help = format!(
            "MATLAB has no compound assignment: write `x = x {} (e)` for `x {spelling} e`",
            bin.symbol()
        );
        return op(spelling, "E0007", &help, TokKind::OpAssign(*bin));
    }
    for (spelling, kind, sign) in [("++", TokKind::Incr, "+"), ("--", TokKind::Decr, "-")] {
        if rest.starts_with(spelling) && ends_statement(&rest[2..]) {
            let help = format!("MATLAB has no increment operators: write `x = x {sign} 1`");
            return op(spelling, "E0007", &help, kind);
        }
    }
    None
}

/// Only blanks, then a statement end (newline, `;`, `,`, comment or end of file).
fn ends_statement(rest: &str) -> bool {
    let rest = rest.trim_start_matches([' ', '\t', '\r']);
    rest.is_empty() || rest.starts_with(['\n', ';', ',', '%', '#'])
}

fn punctuation(rest: &str) -> Option<(TokKind, usize)> {
    use TokKind::*;
    const TWO: [(&str, TokKind); 11] = [
        (".*", DotStar),
        ("./", DotSlash),
        (".\\", DotBackslash),
        (".^", DotCaret),
        (".'", DotQuote),
        ("==", EqEq),
        ("~=", Ne),
        ("<=", Le),
        (">=", Ge),
        ("&&", AndAnd),
        ("||", OrOr),
    ];
    if let Some((_, kind)) = TWO.iter().find(|(s, _)| rest.starts_with(s)) {
        return Some((kind.clone(), 2));
    }
    let kind = match rest.chars().next()? {
        '+' => Plus,
        '-' => Minus,
        '*' => Star,
        '/' => Slash,
        '\\' => Backslash,
        '^' => Caret,
        '<' => Lt,
        '>' => Gt,
        '&' => And,
        '|' => Or,
        '~' => Not,
        '=' => Assign,
        ':' => Colon,
        ',' => Comma,
        ';' => Semi,
        '(' => LParen,
        ')' => RParen,
        '[' => LBracket,
        ']' => RBracket,
        '{' => LBrace,
        '}' => RBrace,
        _ => return None,
    };
    Some((kind, 1))
}
