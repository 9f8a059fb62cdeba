//! Parser: [`lexer`](crate::lexer) tokens → [`ast`](crate::ast), written with nom over a token slice.
//!
//! Invariants:
//! - no input panics: every token access goes through `Input::tok`, which yields the final
//!   `Eof` token past the end, and the `Eof` token is never consumed;
//! - recursion is bounded: each nested bracket, index, block, nested function or anonymous
//!   function body goes through `deeper`, which turns more than [`MAX_DEPTH`] levels into error
//!   `E0029`; chains of prefix operators and of binary operators are parsed with loops;
//! - chains are bounded: an `elseif` or `case` arm nests in the previous arm once lowered, so no
//!   point lies after more than [`MAX_ARMS`] arms (`E0029`);
//! - trees are bounded: no expression taller than [`MAX_HEIGHT`] is built (`E0029` again), so
//!   later phases may walk (and drop) the AST recursively on an ordinary stack;
//! - errors are collected, not thrown: a statement that fails is reported and skipped (to the
//!   end of its line, or its `;`/`,`), and parsing goes on, so one run reports several errors;
//! - an error found at a [`TokKind::Error`] token is not reported again (the lexer already did);
//! - every statement's span covers its tokens, from the first to the last (terminator excluded);
//! - the dialect changes what is accepted, never the tree: Octave-only forms are desugared into
//!   the MATLAB tree they stand for (see [`parse_file_with`]), and are errors under MATLAB;
//! - whether functions end with `end` is decided for the whole file before parsing (see
//!   `functions_end_with_end`); in a file where they do, a `function` inside a function body
//!   is a nested function ([`Function::nested`]), in any other it starts the next function.
//!
//! Operator precedence, lowest first: `||`, `&&`, `|`, `&`, comparisons, `:`, `+ -`,
//! `* / \ .* ./ .\`, prefix `+ - ~`, then `^ .^` and the postfix transposes (left to right at one
//! level; the exponent may carry prefix operators, so `2^-1` is `2^(-1)` and `-2^2` is `-(2^2)`).
//! An anonymous function's body `@(x) ...` extends as far as an expression can.
//!
//! Error codes (lexer and parser). "Octave-only" codes are reported under [`Dialect::Matlab`]
//! only; the help line gives the MATLAB spelling.
//!
//! | code  | meaning |
//! |-------|---------|
//! | E0001 | unterminated char literal or double-quoted string |
//! | E0002 | unexpected character (`$`, a `.` that is not inside a dotted name: `s.(name)`, `a(1).x`) |
//! | E0003 | unterminated block comment `%{` |
//! | E0004 | malformed number (`1e`, `2x`, complex `3i`) |
//! | E0005 | Octave-only `#` comment or `#{` block comment |
//! | E0006 | Octave-only operator with a MATLAB spelling (`!=`, `!x`, `**`, `.**`) |
//! | E0007 | Octave-only compound assignment or increment (`+=`, `-=`, `*=`, `/=`, `^=`, `x++`, `x--`) |
//! | E0010 | cell array braces `{}` (accepted as `case {1, 2}` labels, a row or column of text literals, handles) |
//! | E0020 | unexpected token: expected something else (also a misplaced `else`/`case`, a statement before a `switch`'s first `case`, a `case` after `otherwise`) |
//! | E0021 | `for`/`while`/`if`/`switch`/`arguments` without a matching `end` |
//! | E0022 | function without `end` in a file whose functions end with `end` |
//! | E0023 | `=` in a condition where `==` is meant |
//! | E0024 | Octave-only block terminator (`endfor`, `endif`, `endwhile`, `endfunction`, `endswitch`) |
//! | E0025 | code outside any function (script files are not supported) |
//! | E0026 | the file has no function |
//! | E0027 | invalid assignment target |
//! | E0028 | `end` outside an index |
//! | E0029 | nesting too deep (brackets/blocks beyond `MAX_DEPTH`, expression beyond `MAX_HEIGHT`, `elseif`/`case` arms beyond `MAX_ARMS`) |
//! | E0030 | unsupported statement keyword without a code of its own (`spmd`) |
//! | E0031 | invalid line in an `arguments` block |
//! | E0032 | trailing input after an expression ([`parse_expr`] only, so no file fixture: the unit test `parse_expr_for_cli_values` covers it) |
//! | E0033 | `end` with no block to close |
//! | E0034 | unclosed `(`, `[` or `{` |
//! | E0035 | command syntax (`hold on`, `format long`): a name followed by a word or number |
//! | E0038 | `classdef` files |
//! | E0039 | `try`/`catch` |

mod command;
mod parfor;

use std::cell::RefCell;

use nom::branch::alt;
use nom::combinator::{cut, map, opt};
use nom::error::{ErrorKind, ParseError};
use nom::multi::{many0, separated_list1};
use nom::sequence::{delimited, preceded, separated_pair, terminated};
use nom::{IResult, InputLength};

use crate::ast::{
    ArgDecl, BinaryOp, CaseLabels, Declared, DimSpec, Expr, ExprKind, File, Function, Ident,
    LValue, PostfixOp, Stmt, StmtKind, SwitchCase, UnaryOp,
};
use crate::diag::{Diagnostic, Diagnostics, Span};
pub use crate::lexer::Dialect;
use crate::lexer::{lex_with, Keyword, TokKind, Token};

/// Deepest nesting of brackets, indexes and blocks accepted.
pub const MAX_DEPTH: u16 = 200;

/// Most `elseif`/`case` arms enclosing a point (summed over the enclosing `if`s and `switch`es).
pub const MAX_ARMS: u32 = 2000;

/// Tallest expression tree accepted (each operator application, call, bracket is a level).
pub const MAX_HEIGHT: u32 = 500;

/// How to parse.
#[derive(Clone, Debug, Default)]
pub struct ParseOptions {
    pub dialect: Dialect,
}

/// Parses a whole MATLAB function file.
pub fn parse_file(source: &str) -> Result<File, Diagnostics> {
    parse_file_with(source, &ParseOptions::default())
}

/// Parses a whole function file written in `options.dialect`. Octave-only forms are desugared
/// into the MATLAB tree they stand for: `x += e` is `x = x + (e)` (the `Paren` only where the
/// tree needs it to print back), `x++` is `x = x + 1`, `!x` is `~x`, `"a\n"` is a char literal.
pub fn parse_file_with(source: &str, options: &ParseOptions) -> Result<File, Diagnostics> {
    parse_file_at(source, options, 0)
}

/// [`parse_file_with`] for a file that starts at byte `base` of a
/// [`SourceMap`](crate::sources::SourceMap): every span of the tree and of its diagnostics is
/// shifted by `base`.
pub fn parse_file_at(source: &str, options: &ParseOptions, base: u32) -> Result<File, Diagnostics> {
    with_parser_stack(|| parse_file_here(source, options.dialect, base))
}

/// Parses one MATLAB expression (used for `--set NAME=EXPR` values); anything after it is an
/// error.
pub fn parse_expr(source: &str) -> Result<Expr, Diagnostics> {
    with_parser_stack(|| parse_expr_here(source))
}

/// Stack for the parser thread: enough for [`MAX_DEPTH`] levels in an unoptimized build
/// (about 10 KiB a level), whatever the caller's own stack (test threads get 2 MiB).
const PARSER_STACK_BYTES: usize = 64 << 20;

fn with_parser_stack<T: Send>(f: impl Fn() -> T + Sync) -> T {
    crate::stack::with_stack("m2cu-parser", PARSER_STACK_BYTES, f)
}

fn parse_file_here(source: &str, dialect: Dialect, base: u32) -> Result<File, Diagnostics> {
    let mut lexed = lex_with(source, dialect);
    shift_spans(&mut lexed, base);
    let shared = Shared {
        sink: RefCell::new(Vec::new()),
        dialect,
        end_style: functions_end_with_end(&lexed.tokens),
    };
    let functions = file(Input::new(&lexed.tokens, &shared));
    let diags = merge(lexed.diagnostics, shared);
    if diags.has_errors() {
        return Err(diags);
    }
    Ok(File {
        functions,
        codegen_directive: lexed.codegen_directive,
    })
}

fn parse_expr_here(source: &str) -> Result<Expr, Diagnostics> {
    let lexed = lex_with(source, Dialect::Matlab);
    let shared = Shared {
        sink: RefCell::new(Vec::new()),
        dialect: Dialect::Matlab,
        end_style: false,
    };
    let input = Input::new(&lexed.tokens, &shared);
    let parsed = expr(skip_newlines(input));
    let result = match parsed {
        Ok((rest, e)) => trailing_input(skip_newlines(rest)).map(|()| e),
        Err(err) => Err(into_error(err)),
    };
    if let Err(e) = &result {
        input.report(e.clone());
    }
    let diags = merge(lexed.diagnostics, shared);
    match result {
        Ok(e) if !diags.has_errors() => Ok(e),
        _ => Err(diags),
    }
}

/// Moves the tokens and the lexer's diagnostics `base` bytes on.
fn shift_spans(lexed: &mut crate::lexer::Lexed, base: u32) {
    let shift = |s: &mut Span| {
        s.start += base;
        s.end += base;
    };
    lexed.tokens.iter_mut().for_each(|t| shift(&mut t.span));
    for d in &mut lexed.diagnostics.0 {
        shift(&mut d.span);
        d.secondary.iter_mut().for_each(|(s, _)| shift(s));
    }
}

fn merge(mut diags: Diagnostics, shared: Shared) -> Diagnostics {
    diags.0.extend(shared.sink.into_inner());
    diags.0.sort_by_key(|d| d.span.start);
    diags
}

fn trailing_input(i: Input) -> Result<(), PError> {
    if *i.kind() == TokKind::Eof {
        return Ok(());
    }
    Err(PError::at(
        &i,
        Diagnostic::error(
            "E0032",
            i.tok().span,
            format!("unexpected {} after the expression", i.kind().describe()),
        )
        .with_label("the expression ended before this")
        .with_help("give exactly one expression, such as `rand(1,1e6)` or `int8([1 2; 3 4])`"),
    ))
}

// ---------------------------------------------------------------------------------------------
// Input and errors
// ---------------------------------------------------------------------------------------------

static EOF_TOKEN: Token = Token {
    kind: TokKind::Eof,
    span: Span { start: 0, end: 0 },
    space_before: false,
};

/// What the surrounding brackets make of the tokens.
#[derive(Clone, Copy, Debug, Default)]
struct Ctx {
    /// Nesting level (brackets, indexes, blocks).
    depth: u16,
    /// `elseif` and `case` arms before this point in the enclosing `if`s and `switch`es (each
    /// arm nests inside the previous one's `else` in the IR).
    arms: u32,
    /// Directly inside `[]`: whitespace separates elements.
    matrix: bool,
    /// Inside an index's parentheses: `end` and a bare `:` are expressions.
    index: bool,
}

/// What every part of one parse shares: where reported diagnostics go, and facts about the file.
struct Shared {
    sink: RefCell<Vec<Diagnostic>>,
    dialect: Dialect,
    /// The file's functions end with `end`, so a `function` inside a body is a nested one.
    end_style: bool,
}

/// The parser's input: the remaining tokens (always ending with `Eof`), the bracket context,
/// and what the whole parse shares.
#[derive(Clone, Copy)]
struct Input<'a> {
    toks: &'a [Token],
    ctx: Ctx,
    shared: &'a Shared,
}

impl InputLength for Input<'_> {
    fn input_len(&self) -> usize {
        self.toks.len()
    }
}

impl<'a> Input<'a> {
    fn new(toks: &'a [Token], shared: &'a Shared) -> Input<'a> {
        Input {
            toks,
            ctx: Ctx::default(),
            shared,
        }
    }

    fn octave(&self) -> bool {
        self.shared.dialect == Dialect::Octave
    }

    fn tok(&self) -> &'a Token {
        self.toks.first().unwrap_or(&EOF_TOKEN)
    }

    fn kind(&self) -> &'a TokKind {
        &self.tok().kind
    }

    fn nth(&self, n: usize) -> &'a Token {
        self.toks.get(n).or(self.toks.last()).unwrap_or(&EOF_TOKEN)
    }

    /// The input after the current token; `Eof` is never consumed.
    fn bump(self) -> Input<'a> {
        match self.toks.split_first() {
            Some((t, rest)) if t.kind != TokKind::Eof => Input { toks: rest, ..self },
            _ => self,
        }
    }

    fn with_ctx(self, ctx: Ctx) -> Input<'a> {
        Input { ctx, ..self }
    }

    /// The same token list seen from `remaining` tokens before its end.
    fn at_remaining(self, remaining: usize) -> Input<'a> {
        let skip = self.toks.len().saturating_sub(remaining);
        Input {
            toks: self.toks.get(skip..).unwrap_or(&[]),
            ..self
        }
    }

    /// The span of the tokens consumed between `start` and `self`.
    fn span_since(&self, start: &Input) -> Span {
        let consumed = start.toks.len().saturating_sub(self.toks.len());
        let first = start.tok().span;
        match consumed
            .checked_sub(1)
            .and_then(|last| start.toks.get(last))
        {
            Some(last) => first.to(last.span),
            None => Span::new(first.start as usize, first.start as usize),
        }
    }

    fn report(&self, e: PError) {
        let Some(d) = e.diag.map(|d| *d) else { return };
        let mut sink = self.shared.sink.borrow_mut();
        let repeated_depth = d.code == "E0029" && sink.iter().any(|old| old.code == "E0029");
        if !repeated_depth {
            sink.push(d);
        }
    }
}

/// A parse error: the diagnostic (`None` when already reported) and where it happened.
#[derive(Clone, Debug)]
struct PError {
    /// Boxed so that parser results stay small.
    diag: Option<Box<Diagnostic>>,
    /// Tokens left at the error; fewer means further into the file.
    remaining: usize,
}

impl PError {
    fn at(i: &Input, diag: Diagnostic) -> PError {
        let diag = (*i.kind() != TokKind::Error).then(|| Box::new(diag));
        PError {
            diag,
            remaining: i.toks.len(),
        }
    }

    fn silent(i: &Input) -> PError {
        PError {
            diag: None,
            remaining: i.toks.len(),
        }
    }
}

impl<'a> ParseError<Input<'a>> for PError {
    fn from_error_kind(input: Input<'a>, _: ErrorKind) -> Self {
        expected(&input, "something else", "check the syntax here")
    }

    fn append(_: Input<'a>, _: ErrorKind, other: Self) -> Self {
        other
    }

    /// `alt` keeps the error that got furthest.
    fn or(self, other: Self) -> Self {
        if other.remaining <= self.remaining {
            other
        } else {
            self
        }
    }
}

type PResult<'a, T> = IResult<Input<'a>, T, PError>;

fn into_error(e: nom::Err<PError>) -> PError {
    match e {
        nom::Err::Error(e) | nom::Err::Failure(e) => e,
        nom::Err::Incomplete(_) => PError {
            diag: None,
            remaining: 0,
        },
    }
}

fn error<T>(e: PError) -> Result<T, nom::Err<PError>> {
    Err(nom::Err::Error(e))
}

fn failure<T>(e: PError) -> Result<T, nom::Err<PError>> {
    Err(nom::Err::Failure(e))
}

/// `E0020`: "expected `what`, found ...".
fn expected(i: &Input, what: &str, help: &str) -> PError {
    let found = i.kind().describe();
    PError::at(
        i,
        Diagnostic::error(
            "E0020",
            i.tok().span,
            format!("expected {what}, found {found}"),
        )
        .with_label(format!("expected {what}"))
        .with_help(help.to_string()),
    )
}

/// Enters the next `elseif` or `case` arm (see [`Ctx::arms`]).
fn next_arm(i: Input) -> Result<Input, nom::Err<PError>> {
    if i.ctx.arms >= MAX_ARMS {
        let diag = Diagnostic::error("E0029", i.tok().span, "too many `elseif` or `case` arms")
            .with_label(format!("more than {MAX_ARMS} arms before this one"))
            .with_help("look the value up in an array, or split the chain into several `if`s or `switch`es");
        return failure(PError::at(&i, diag));
    }
    Ok(i.with_ctx(Ctx {
        arms: i.ctx.arms + 1,
        ..i.ctx
    }))
}

/// Enters one nesting level with context `ctx` (its depth is set here).
fn deeper<'a>(i: Input<'a>, ctx: Ctx) -> Result<Input<'a>, nom::Err<PError>> {
    if i.ctx.depth >= MAX_DEPTH {
        let diag = Diagnostic::error("E0029", i.tok().span, "nesting too deep")
            .with_label(format!("more than {MAX_DEPTH} nested brackets or blocks"))
            .with_help("split the expression or the nested blocks into smaller pieces with temporary variables");
        return failure(PError::at(&i, diag));
    }
    Ok(i.with_ctx(Ctx {
        depth: i.ctx.depth + 1,
        ..ctx
    }))
}

// ---------------------------------------------------------------------------------------------
// Token primitives
// ---------------------------------------------------------------------------------------------

/// Matches one token of kind `want`, giving its span.
fn token<'a>(want: TokKind) -> impl Fn(Input<'a>) -> PResult<'a, Span> {
    move |i| {
        if *i.kind() == want {
            Ok((i.bump(), i.tok().span))
        } else {
            let what = want.describe();
            error(expected(&i, &what, &format!("write {what} here")))
        }
    }
}

fn keyword<'a>(kw: Keyword) -> impl Fn(Input<'a>) -> PResult<'a, Span> {
    token(TokKind::Kw(kw))
}

fn ident(i: Input) -> PResult<Ident> {
    match i.kind() {
        TokKind::Ident(name) => Ok((
            i.bump(),
            Ident {
                name: name.clone(),
                span: i.tok().span,
            },
        )),
        _ => error(expected(
            &i,
            "a name",
            "write a name that starts with a letter",
        )),
    }
}

/// A name without dots: function names, parameters, outputs, loop variables.
fn plain_ident(i: Input) -> PResult<Ident> {
    let (rest, id) = ident(i)?;
    if id.name.contains('.') {
        return error(expected(
            &i,
            "a name without `.`",
            "function names, parameters, outputs and loop variables cannot be struct fields",
        ));
    }
    Ok((rest, id))
}

fn is_terminator(kind: &TokKind) -> bool {
    matches!(
        kind,
        TokKind::Newline | TokKind::Semi | TokKind::Comma | TokKind::Eof
    )
}

/// The end of a statement: a newline, `;` or `,` (consumed), or the end of the file.
fn terminator(i: Input) -> PResult<()> {
    match i.kind() {
        TokKind::Eof => Ok((i, ())),
        kind if is_terminator(kind) => Ok((i.bump(), ())),
        _ => error(expected(
            &i,
            "the end of the statement",
            "end the statement with a newline, `;` or `,`; to put two statements on one line write `a = 1; b = 2`",
        )),
    }
}

fn skip_terminators(mut i: Input) -> Input {
    while matches!(i.kind(), TokKind::Newline | TokKind::Semi | TokKind::Comma) {
        i = i.bump();
    }
    i
}

fn skip_newlines(mut i: Input) -> Input {
    while *i.kind() == TokKind::Newline {
        i = i.bump();
    }
    i
}

/// Runs `p`, returning its result and the span of the tokens it consumed.
fn spanned<'a, T>(
    mut p: impl FnMut(Input<'a>) -> PResult<'a, T>,
) -> impl FnMut(Input<'a>) -> PResult<'a, (T, Span)> {
    move |i| {
        let (rest, value) = p(i)?;
        Ok((rest, (value, rest.span_since(&i))))
    }
}

// ---------------------------------------------------------------------------------------------
// Error recovery
// ---------------------------------------------------------------------------------------------

/// Where to go on after `e` happened in the statement starting at `start`: the next newline,
/// or the next `;`/`,` outside brackets, or a block keyword that can close an enclosing block.
/// Always moves past `start`.
fn recover<'a>(start: Input<'a>, e: &PError) -> Input<'a> {
    let mut i = start.at_remaining(e.remaining.min(start.toks.len()));
    let consumed = start.toks.len().saturating_sub(i.toks.len());
    let mut depth: i64 = start
        .toks
        .get(..consumed)
        .unwrap_or(&[])
        .iter()
        .map(|t| bracket_delta(&t.kind))
        .sum();
    loop {
        let kind = i.kind();
        let at_start = i.toks.len() == start.toks.len();
        let stop = match kind {
            TokKind::Eof | TokKind::Newline => true,
            TokKind::Semi | TokKind::Comma => depth <= 0,
            _ => depth <= 0 && !at_start && closes_block(&i),
        };
        if stop {
            break;
        }
        depth += bracket_delta(kind);
        i = i.bump();
    }
    if i.toks.len() == start.toks.len() {
        i = i.bump();
    }
    i
}

fn bracket_delta(kind: &TokKind) -> i64 {
    match kind {
        TokKind::LParen | TokKind::LBracket | TokKind::LBrace => 1,
        TokKind::RParen | TokKind::RBracket | TokKind::RBrace => -1,
        _ => 0,
    }
}

/// A token that ends a statement list: `end`, `else`, `elseif`, `case`, `otherwise`,
/// `function`, or an Octave block terminator.
fn closes_block(i: &Input) -> bool {
    matches!(
        i.kind(),
        TokKind::Kw(
            Keyword::End
                | Keyword::Else
                | Keyword::Elseif
                | Keyword::Case
                | Keyword::Otherwise
                | Keyword::Function
        )
    ) || octave_end(i).is_some()
}

const OCTAVE_ENDS: [&str; 6] = [
    "endfor",
    "endif",
    "endwhile",
    "endfunction",
    "endswitch",
    "end_try_catch",
];

/// `endfor`, `endif`, ... standing alone as a statement.
fn octave_end(i: &Input) -> Option<&'static str> {
    octave_end_word(i.tok(), i.nth(1))
}

fn octave_end_word(tok: &Token, next: &Token) -> Option<&'static str> {
    let TokKind::Ident(name) = &tok.kind else {
        return None;
    };
    let found = OCTAVE_ENDS.iter().find(|w| *w == name)?;
    is_terminator(&next.kind).then_some(*found)
}

/// Skips a whole unsupported block (`try ... end`), counting nested blocks.
fn skip_block(start: Input) -> Input {
    let mut i = start;
    let mut open = 0usize;
    let mut brackets: i64 = 0;
    loop {
        match i.kind() {
            TokKind::Eof => return i,
            TokKind::Kw(Keyword::End) if brackets <= 0 => {
                open = open.saturating_sub(1);
                if open == 0 {
                    return i.bump();
                }
            }
            TokKind::Kw(kw) if opens_block(*kw) => open += 1,
            kind => brackets += bracket_delta(kind),
        }
        i = i.bump();
    }
}

/// A keyword whose block `end` closes (functions aside).
fn opens_block(kw: Keyword) -> bool {
    match kw {
        Keyword::For | Keyword::While | Keyword::If | Keyword::Switch => true,
        Keyword::Unsupported(word) => matches!(word, "try" | "parfor" | "spmd"),
        _ => false,
    }
}

/// Whether the file's functions end with `end`: it has more `end`s (outside brackets; Octave's
/// `endfor`-style words count too) than blocks other than functions. Decided before parsing,
/// because a `function` inside a body is a nested function in such a file, and where the
/// previous function ends in any other.
fn functions_end_with_end(toks: &[Token]) -> bool {
    let mut open: Vec<&TokKind> = Vec::new();
    let (mut blocks, mut ends) = (0usize, 0usize);
    for (n, t) in toks.iter().enumerate() {
        match &t.kind {
            kind @ (TokKind::LParen | TokKind::LBracket | TokKind::LBrace) => open.push(kind),
            TokKind::RParen | TokKind::RBracket | TokKind::RBrace => {
                open.pop();
            }
            TokKind::Newline => {
                while open.last() == Some(&&TokKind::LParen) {
                    open.pop();
                }
            }
            TokKind::Kw(Keyword::End) if open.is_empty() => ends += 1,
            TokKind::Kw(kw) if opens_block(*kw) => blocks += 1,
            _ => {
                let next = toks.get(n + 1).unwrap_or(&EOF_TOKEN);
                ends += usize::from(octave_end_word(t, next).is_some());
            }
        }
    }
    ends > blocks
}

// ---------------------------------------------------------------------------------------------
// Files and functions
// ---------------------------------------------------------------------------------------------

fn file(mut i: Input) -> Vec<Function> {
    let mut functions = Vec::new();
    let (mut saw_function, mut saw_code) = (false, false);
    loop {
        i = skip_terminators(i);
        match i.kind() {
            TokKind::Eof => break,
            TokKind::Kw(Keyword::Function) => {
                saw_function = true;
                i = match function(i) {
                    Ok((rest, f)) => {
                        functions.push(f);
                        rest
                    }
                    Err(e) => report_and_recover(i, into_error(e)),
                };
            }
            TokKind::Kw(Keyword::End) => {
                i.report(stray_end(&i));
                i = i.bump();
            }
            TokKind::Kw(Keyword::Unsupported("classdef")) => {
                i.report(unsupported(&i, "classdef"));
                return functions;
            }
            TokKind::Number(_) if !saw_function && !saw_code && i.nth(1).kind == TokKind::Semi => {
                // `1;` before the first function: Octave's mark of a file of functions
                // that is not a function file; it does nothing.
                i = i.bump().bump();
            }
            _ => {
                saw_code = true;
                i.report(outside_function(&i, !saw_function));
                i = skip_to_function(i);
            }
        }
    }
    if !saw_function && !saw_code {
        i.report(PError::at(&i, no_function(&i)));
    }
    functions
}

/// Skips code outside functions, up to the next `function` keyword.
fn skip_to_function(mut i: Input) -> Input {
    while !matches!(i.kind(), TokKind::Eof | TokKind::Kw(Keyword::Function)) {
        i = i.bump();
    }
    i
}

fn report_and_recover<'a>(start: Input<'a>, e: PError) -> Input<'a> {
    let next = recover(start, &e);
    start.report(e);
    next
}

fn stray_end(i: &Input) -> PError {
    PError::at(
        i,
        Diagnostic::error("E0033", i.tok().span, "`end` without a block to close")
            .with_label("nothing is open here")
            .with_help(
                "remove this `end`, or add the `function`, `for`, `while` or `if` it should close",
            ),
    )
}

fn outside_function(i: &Input, before_first: bool) -> PError {
    let message = if before_first {
        "code before the first function"
    } else {
        "code after the end of a function"
    };
    PError::at(
        i,
        Diagnostic::error("E0025", i.tok().span, message)
            .with_label("statement outside any function")
            .with_help(
                "script files are not supported: wrap the code in `function name()` ... `end`",
            ),
    )
}

fn no_function(i: &Input) -> Diagnostic {
    Diagnostic::error("E0026", i.tok().span, "the file defines no function")
        .with_label("end of file")
        .with_help("write a function, e.g. `function y = f(x)` ... `end`")
}

fn function(i: Input) -> PResult<Function> {
    let start = i;
    let (i, keyword_span) = keyword(Keyword::Function)(i)?;
    let (i, head) = header(start, i, terminated(spanned(function_header), terminator))?;
    let (i, arguments) = arguments_block(i)?;
    let (i, (body, nested)) = function_body(i)?;
    let (i, closed) = function_end(i);
    let Some(((outputs, name, params), head_span)) = head else {
        return error(PError::silent(&i));
    };
    if i.shared.end_style && !closed {
        i.report(unclosed_function(&i, keyword_span, &name.name));
    }
    let function = Function {
        name,
        params,
        outputs,
        arguments,
        body,
        nested,
        span: keyword_span.to(head_span),
    };
    Ok((i, function))
}

/// The statements of a function and, in a file whose functions end with `end`, the functions
/// nested among them (each one level deeper).
fn function_body(mut i: Input) -> PResult<(Vec<Stmt>, Vec<Function>)> {
    let (mut body, mut nested) = (Vec::new(), Vec::new());
    loop {
        let (rest, stmts) = stmt_list(i, Arms::None);
        body.extend(stmts);
        i = rest;
        if !(i.shared.end_style && *i.kind() == TokKind::Kw(Keyword::Function)) {
            return Ok((i, (body, nested)));
        }
        let inner = deeper(i, i.ctx)?;
        let rest = match function(inner) {
            Ok((rest, f)) => {
                nested.push(f);
                rest
            }
            Err(e) => report_and_recover(inner, into_error(e)),
        };
        i = rest.with_ctx(i.ctx);
    }
}

/// `E0022`: in a file whose functions end with `end`, this one has none.
fn unclosed_function(i: &Input, keyword: Span, name: &str) -> PError {
    let diag = Diagnostic::error("E0022", keyword, format!("function `{name}` has no `end`"))
        .with_label("this function is not closed")
        .with_help("other functions in this file end with `end`: close this one with `end` too");
    PError {
        diag: Some(Box::new(diag)),
        remaining: i.toks.len(),
    }
}

/// Consumes the function's `end` (or Octave `endfunction`) if there is one.
fn function_end(i: Input) -> (Input, bool) {
    if *i.kind() == TokKind::Kw(Keyword::End) {
        return (i.bump(), true);
    }
    if let Some(word) = octave_end(&i) {
        report_octave_end(&i, word);
        return (i.bump(), true);
    }
    (i, false)
}

type Header = (Vec<Ident>, Ident, Vec<Ident>);

/// `name`, `name(a, b)`, `y = name(...)`, `[a, b] = name(...)`.
fn function_header(i: Input) -> PResult<Header> {
    let (i, outputs, name) = if *i.kind() == TokKind::LBracket {
        let (i, outputs) = output_list(i)?;
        let (i, _) = token(TokKind::Assign)(i)?;
        let (i, name) = function_name(i)?;
        (i, outputs, name)
    } else {
        let (i, first) = function_name(i)?;
        match token(TokKind::Assign)(i) {
            Ok((i, _)) => {
                let (i, name) = function_name(i)?;
                (i, vec![first], name)
            }
            Err(_) => (i, Vec::new(), first),
        }
    };
    let (i, params) = opt(delimited(
        token(TokKind::LParen),
        param_list,
        token(TokKind::RParen),
    ))(i)?;
    Ok((i, (outputs, name, params.unwrap_or_default())))
}

fn function_name(i: Input) -> PResult<Ident> {
    plain_ident(i).map_err(|_| {
        nom::Err::Error(expected(
            &i,
            "a function name",
            "write `function name(...)` or `function y = name(...)`",
        ))
    })
}

fn output_list(i: Input) -> PResult<Vec<Ident>> {
    delimited(
        token(TokKind::LBracket),
        many0(terminated(plain_ident, opt(token(TokKind::Comma)))),
        token(TokKind::RBracket),
    )(i)
}

fn param_list(i: Input) -> PResult<Vec<Ident>> {
    if *i.kind() == TokKind::RParen {
        return Ok((i, Vec::new()));
    }
    separated_list1(token(TokKind::Comma), cut(param))(i)
}

/// A parameter name, or `~` for an ignored input (kept as the name `~`).
fn param(i: Input) -> PResult<Ident> {
    match i.kind() {
        TokKind::Not => Ok((
            i.bump(),
            Ident {
                name: "~".to_string(),
                span: i.tok().span,
            },
        )),
        _ => plain_ident(i),
    }
}

// ---------------------------------------------------------------------------------------------
// arguments blocks
// ---------------------------------------------------------------------------------------------

/// An optional `arguments ... end` block right after the function header.
fn arguments_block(i: Input) -> PResult<Vec<ArgDecl>> {
    let i = skip_terminators(i);
    let is_block = matches!(i.kind(), TokKind::Ident(w) if w == "arguments")
        && matches!(
            i.nth(1).kind,
            TokKind::Newline | TokKind::Semi | TokKind::Comma | TokKind::LParen | TokKind::Eof
        );
    if !is_block {
        return Ok((i, Vec::new()));
    }
    let start = i;
    let block_span = i.tok().span;
    let (mut i, _) = header(start, i.bump(), terminated(no_attributes, terminator))?;
    let mut decls = Vec::new();
    loop {
        i = skip_terminators(i);
        match i.kind() {
            TokKind::Kw(Keyword::End) => return Ok((i.bump(), decls)),
            TokKind::Eof | TokKind::Kw(Keyword::Function) => {
                return failure(missing_end(&i, block_span, "arguments"))
            }
            _ => match terminated(arg_decl, terminator)(i) {
                Ok((rest, d)) => {
                    decls.push(d);
                    i = rest;
                }
                Err(e) => i = report_and_recover(i, into_error(e)),
            },
        }
    }
}

fn no_attributes(i: Input) -> PResult<()> {
    if *i.kind() != TokKind::LParen {
        return Ok((i, ()));
    }
    error(PError::at(
        &i,
        arg_error(
            i.tok().span,
            "`arguments` block attributes are not supported",
            "write a plain `arguments` line",
        ),
    ))
}

fn arg_error(span: Span, message: &str, help: &str) -> Diagnostic {
    Diagnostic::error("E0031", span, message.to_string())
        .with_label("in this argument declaration")
        .with_help(help.to_string())
}

/// `name (d1,d2) class`, where the size and the class are optional.
fn arg_decl(i: Input) -> PResult<ArgDecl> {
    let start = i;
    let (i, name) = ident(i)?;
    let (i, dims) = opt(delimited(
        token(TokKind::LParen),
        separated_list1(token(TokKind::Comma), cut(dim)),
        cut(token(TokKind::RParen)),
    ))(i)?;
    let (i, class) = opt(ident)(i)?;
    let span = i.span_since(&start);
    match i.kind() {
        TokKind::Assign => error(PError::at(
            &i,
            arg_error(
                i.tok().span,
                "default values are not supported",
                "remove the `= value`; every input must be passed",
            ),
        )),
        TokKind::LBrace => error(PError::at(
            &i,
            arg_error(
                i.tok().span,
                "validation functions are not supported",
                "remove the `{...}` validators",
            ),
        )),
        _ => Ok((
            i,
            ArgDecl {
                name,
                dims,
                class,
                span,
            },
        )),
    }
}

/// One size entry: a non-negative integer or `:`.
fn dim(i: Input) -> PResult<DimSpec> {
    match i.kind() {
        TokKind::Colon => Ok((i.bump(), DimSpec::Any)),
        TokKind::Number(text) => match text.parse::<f64>() {
            Ok(v) if v >= 0.0 && v.fract() == 0.0 && v <= u64::MAX as f64 => {
                Ok((i.bump(), DimSpec::Fixed(v as u64)))
            }
            _ => error(PError::at(&i, bad_dim(&i))),
        },
        _ => error(PError::at(&i, bad_dim(&i))),
    }
}

fn bad_dim(i: &Input) -> Diagnostic {
    arg_error(
        i.tok().span,
        "a size entry must be a whole number or `:`",
        "write sizes like `(1,:)` or `(3,3)`",
    )
}

// ---------------------------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------------------------

/// Which keywords besides `end` and `function` end a statement list: the next arm's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Arms {
    None,
    /// `else` and `elseif`
    If,
    /// `case` and `otherwise`
    Switch,
}

impl Arms {
    fn ends_at(self, i: &Input) -> bool {
        match i.kind() {
            TokKind::Kw(Keyword::Else | Keyword::Elseif) => self == Arms::If,
            TokKind::Kw(Keyword::Case | Keyword::Otherwise) => self == Arms::Switch,
            _ => closes_block(i),
        }
    }
}

/// Statements up to (not including) a block-closing keyword or the end of the file. An arm
/// keyword (`else`, `case`, ...) ends the list only where `arms` allows it; elsewhere it is an
/// error.
fn stmt_list(mut i: Input, arms: Arms) -> (Input, Vec<Stmt>) {
    let mut stmts = Vec::new();
    loop {
        i = skip_terminators(i);
        if *i.kind() == TokKind::Eof || arms.ends_at(&i) {
            return (i, stmts);
        }
        let parsed = if parfor::is_parfor(&i) {
            parfor::parfor_stmts(i)
        } else {
            statement(i).map(|(rest, s)| (rest, vec![s]))
        };
        match parsed {
            Ok((rest, s)) => {
                stmts.extend(s);
                i = rest;
            }
            Err(e) => i = report_and_recover(i, into_error(e)),
        }
    }
}

/// A nested block body: one level deeper, then back to the outer context.
fn block_body(i: Input, arms: Arms) -> PResult<Vec<Stmt>> {
    let inner = deeper(i, i.ctx)?;
    let (rest, body) = stmt_list(inner, arms);
    Ok((rest.with_ctx(i.ctx), body))
}

/// A header (`for` binding, condition, function signature) parsed by `p`, which includes its
/// end of line. On an error it reports, skips the rest of the header, and gives `None` so
/// that the body is still parsed (and its `end` still matched).
fn header<'a, T>(
    start: Input<'a>,
    i: Input<'a>,
    mut p: impl FnMut(Input<'a>) -> PResult<'a, T>,
) -> PResult<'a, Option<T>> {
    match p(i) {
        Ok((rest, value)) => Ok((rest, Some(value))),
        Err(e) => Ok((report_and_recover(start, into_error(e)), None)),
    }
}

/// The header of a `for`, `while`, `if` or `elseif`: the statement end after it is optional,
/// as in `if (x > 0) y = 1; end`.
fn block_header<'a, T>(
    p: impl FnMut(Input<'a>) -> PResult<'a, T>,
) -> impl FnMut(Input<'a>) -> PResult<'a, T> {
    terminated(p, opt(terminator))
}

/// The `end` of a block opened by the keyword at `opener`.
fn close_block<'a>(i: Input<'a>, opener: Span, name: &str) -> PResult<'a, Span> {
    if *i.kind() == TokKind::Kw(Keyword::End) {
        return Ok((i.bump(), i.tok().span));
    }
    if let Some(word) = octave_end(&i) {
        report_octave_end(&i, word);
        return Ok((i.bump(), i.tok().span));
    }
    failure(missing_end(&i, opener, name))
}

fn missing_end(i: &Input, opener: Span, name: &str) -> PError {
    let diag = Diagnostic::error(
        "E0021",
        opener,
        format!("`{name}` without a matching `end`"),
    )
    .with_label(format!("this `{name}` is never closed"))
    .with_help(format!("add `end` after the body of this `{name}`"));
    PError {
        diag: Some(Box::new(diag)),
        remaining: i.toks.len(),
    }
}

/// `E0024`, unless the dialect is Octave.
fn report_octave_end(i: &Input, word: &str) {
    if i.octave() {
        return;
    }
    i.report(PError::at(
        i,
        Diagnostic::error("E0024", i.tok().span, format!("`{word}` is Octave-only"))
            .with_label("Octave block terminator")
            .with_help("MATLAB closes every block with plain `end`"),
    ));
}

fn statement(i: Input) -> PResult<Stmt> {
    let start = i;
    let (i, kind) = match i.kind() {
        TokKind::Kw(Keyword::For) => for_stmt(i)?,
        TokKind::Kw(Keyword::While) => while_stmt(i)?,
        TokKind::Kw(Keyword::If) => if_stmt(i)?,
        TokKind::Kw(Keyword::Switch) => switch_stmt(i)?,
        TokKind::Kw(Keyword::Break) => (i.bump(), StmtKind::Break),
        TokKind::Kw(Keyword::Continue) => (i.bump(), StmtKind::Continue),
        TokKind::Kw(Keyword::Return) => (i.bump(), StmtKind::Return),
        TokKind::Kw(Keyword::Unsupported("global")) => declaration(i, Declared::Global)?,
        TokKind::Kw(Keyword::Unsupported("persistent")) => declaration(i, Declared::Persistent)?,
        TokKind::Kw(Keyword::Unsupported(word)) => return unsupported_stmt(i, word),
        TokKind::Kw(kw) => return error(misplaced_keyword(&i, *kw)),
        TokKind::LBracket if is_multi_assign(&i) => multi_assign(i)?,
        TokKind::Ident(_) if is_command_syntax(&i) => match command::command_call(i) {
            Some(call) => call,
            None => return error(command_syntax(&i)),
        },
        _ => expr_statement(i)?,
    };
    let span = i.span_since(&start);
    let shown =
        matches!(kind, StmtKind::Assign { .. } | StmtKind::Expr(_)) && *i.kind() != TokKind::Semi;
    let (i, ()) = terminator(i)?;
    Ok((i, Stmt { kind, span, shown }))
}

/// `global a b` / `persistent n`: the keyword and one or more names.
fn declaration(i: Input, kind: Declared) -> PResult<StmtKind> {
    let (mut i, first) = plain_ident(i.bump())?;
    let mut names = vec![first];
    while let TokKind::Ident(_) = i.kind() {
        let (rest, name) = plain_ident(i)?;
        names.push(name);
        i = rest;
    }
    Ok((i, StmtKind::Declare { kind, names }))
}

fn misplaced_keyword(i: &Input, kw: Keyword) -> PError {
    let word = kw.spelling();
    let help = match kw {
        Keyword::Case | Keyword::Otherwise => {
            format!("`{word}` must be inside a `switch` block; check the `switch` and its `end`s")
        }
        _ => format!("`{word}` must follow an `if` block's body; check the `if` and its `end`s"),
    };
    PError::at(
        i,
        Diagnostic::error("E0020", i.tok().span, format!("unexpected `{word}`"))
            .with_label(format!("`{word}` does not belong here"))
            .with_help(help),
    )
}

/// An unsupported construct's diagnostic: its code, what it is, and what to do instead.
fn unsupported(i: &Input, word: &str) -> PError {
    let (code, message, help) = match word {
        "classdef" => (
            "E0038",
            "classdef files are not supported",
            "write the computation as plain functions, passing properties as arguments",
        ),
        "try" | "catch" => (
            "E0039",
            "`try`/`catch` is not supported",
            "remove the `try`/`catch` and keep the code of the `try` part; errors cannot be caught",
        ),
        _ => ("E0030", "", "write the code with ordinary statements"),
    };
    let message = match message {
        "" => format!("`{word}` is not supported"),
        _ => message.to_string(),
    };
    PError::at(
        i,
        Diagnostic::error(code, i.tok().span, message)
            .with_label("unsupported construct")
            .with_help(help),
    )
}

/// `try`, `parfor`, `global`, ...: reported, and the whole block (or the line) skipped.
fn unsupported_stmt<'a>(i: Input<'a>, word: &str) -> PResult<'a, Stmt> {
    i.report(unsupported(&i, word));
    let rest = match i.kind() {
        TokKind::Kw(kw) if opens_block(*kw) => skip_block(i),
        _ => recover(i, &PError::silent(&i)),
    };
    error(PError::silent(&rest))
}

fn for_stmt(i: Input) -> PResult<StmtKind> {
    let start = i;
    let (i, for_span) = keyword(Keyword::For)(i)?;
    let binding_in_parens = delimited(token(TokKind::LParen), loop_binding, token(TokKind::RParen));
    let (i, binding) = header(
        start,
        i,
        block_header(alt((binding_in_parens, loop_binding))),
    )?;
    let (i, body) = block_body(i, Arms::None)?;
    let (i, _) = close_block(i, for_span, "for")?;
    match binding {
        Some((var, range)) => Ok((i, StmtKind::For { var, range, body })),
        None => error(PError::silent(&i)),
    }
}

fn loop_binding(i: Input) -> PResult<(Ident, Expr)> {
    separated_pair(plain_ident, token(TokKind::Assign), cut(expr))(i)
}

fn while_stmt(i: Input) -> PResult<StmtKind> {
    let start = i;
    let (i, while_span) = keyword(Keyword::While)(i)?;
    let (i, cond) = header(start, i, block_header(condition))?;
    let (i, body) = block_body(i, Arms::None)?;
    let (i, _) = close_block(i, while_span, "while")?;
    match cond {
        Some(cond) => Ok((i, StmtKind::While { cond, body })),
        None => error(PError::silent(&i)),
    }
}

fn if_stmt(i: Input) -> PResult<StmtKind> {
    let outer = i.ctx;
    let (mut i, if_span) = keyword(Keyword::If)(i)?;
    let mut clauses = Vec::new();
    let mut ok = true;
    loop {
        let (rest, clause) = if_clause(i)?;
        ok &= clause.is_some();
        clauses.extend(clause);
        i = rest;
        match keyword(Keyword::Elseif)(i) {
            Ok((rest, _)) => i = next_arm(rest)?,
            Err(_) => break,
        }
    }
    let (i, else_body) = opt(preceded(keyword(Keyword::Else), |i| {
        block_body(i, Arms::None)
    }))(i)?;
    let (i, _) = close_block(i.with_ctx(outer), if_span, "if")?;
    if !ok {
        return error(PError::silent(&i));
    }
    Ok((i, StmtKind::If { clauses, else_body }))
}

/// A condition and its body; the condition is `None` when it failed (and was reported).
fn if_clause(i: Input) -> PResult<Option<(Expr, Vec<Stmt>)>> {
    let (i, cond) = header(i, i, block_header(condition))?;
    let (i, body) = block_body(i, Arms::If)?;
    Ok((i, cond.map(|c| (c, body))))
}

fn switch_stmt(i: Input) -> PResult<StmtKind> {
    let start = i;
    let (i, switch_span) = keyword(Keyword::Switch)(i)?;
    let (i, subject) = header(start, i, block_header(expr))?;
    let (mut i, before_cases) = block_body(i, Arms::Switch)?;
    if let Some(first) = before_cases.first() {
        i.report(code_before_case(&i, first.span));
    }
    let (mut cases, mut otherwise) = (Vec::new(), None);
    loop {
        let at_arm = matches!(i.kind(), TokKind::Kw(Keyword::Case | Keyword::Otherwise));
        if !at_arm {
            break;
        }
        if otherwise.is_some() {
            i.report(after_otherwise(&i));
        }
        if *i.kind() == TokKind::Kw(Keyword::Otherwise) {
            let (rest, body) = block_body(i.bump(), Arms::Switch)?;
            otherwise = Some(body);
            i = rest;
        } else {
            let (rest, case) = case_arm(i)?;
            cases.extend(case);
            i = next_arm(rest)?;
        }
    }
    let (i, _) = close_block(i.with_ctx(start.ctx), switch_span, "switch")?;
    match subject {
        Some(subject) => Ok((
            i,
            StmtKind::Switch {
                subject,
                cases,
                otherwise,
            },
        )),
        None => error(PError::silent(&i)),
    }
}

fn code_before_case(i: &Input, span: Span) -> PError {
    let diag = Diagnostic::error("E0020", span, "statement before the first `case`")
        .with_label("not inside any `case`")
        .with_help("start each part of a `switch` with `case VALUE` or `otherwise`");
    PError {
        diag: Some(Box::new(diag)),
        remaining: i.toks.len(),
    }
}

fn after_otherwise(i: &Input) -> PError {
    let word = i.kind().describe();
    PError::at(
        i,
        Diagnostic::error("E0020", i.tok().span, format!("{word} after `otherwise`"))
            .with_label("`otherwise` must be the last part of a `switch`")
            .with_help("move the `otherwise` part after the last `case`"),
    )
}

/// `case LABELS` and its body; `None` when the labels failed (and were reported).
fn case_arm(i: Input) -> PResult<Option<SwitchCase>> {
    let start = i;
    let (i, case_span) = keyword(Keyword::Case)(i)?;
    let (i, labels) = header(start, i, block_header(spanned(case_labels)))?;
    let (i, body) = block_body(i, Arms::Switch)?;
    let case = labels.map(|(labels, span)| SwitchCase {
        labels,
        body,
        span: case_span.to(span),
    });
    Ok((i, case))
}

/// One value, or a cell list of values `{1, 2}` (the only braces accepted).
fn case_labels(i: Input) -> PResult<CaseLabels> {
    if *i.kind() != TokKind::LBrace {
        return map(expr, CaseLabels::Single)(i);
    }
    let open = i.tok().span;
    let (rest, rows) = bracketed(i, TokKind::RBrace)?;
    if *rest.kind() != TokKind::RBrace {
        return failure(unclosed(&rest, open, "{", "add `}` after the last value"));
    }
    let labels = rows.into_iter().flatten().map(|n| n.expr).collect();
    Ok((rest.bump().with_ctx(i.ctx), CaseLabels::Cell(labels)))
}

/// An `if`/`elseif`/`while` condition; `=` right after it is the `==` typo.
fn condition(i: Input) -> PResult<Expr> {
    let (i, cond) = expr(i)?;
    if *i.kind() != TokKind::Assign {
        return Ok((i, cond));
    }
    let diag = Diagnostic::error("E0023", i.tok().span, "assignment `=` in a condition")
        .with_label("`=` assigns; it does not compare")
        .with_help("use `==` to compare, e.g. `if x == 1`");
    failure(PError::at(&i, diag))
}

/// `[` ... `]` followed by `=` (not `==`) starts a multiple assignment.
fn is_multi_assign(i: &Input) -> bool {
    let mut depth = 0i64;
    for (n, t) in i.toks.iter().enumerate() {
        match t.kind {
            TokKind::Newline | TokKind::Eof => return false,
            TokKind::RBracket if depth == 1 => return i.nth(n + 1).kind == TokKind::Assign,
            ref kind => depth += bracket_delta(kind),
        }
    }
    false
}

fn multi_assign(i: Input) -> PResult<StmtKind> {
    let (i, targets) = delimited(
        token(TokKind::LBracket),
        lvalue_list,
        token(TokKind::RBracket),
    )(i)?;
    let (i, _) = token(TokKind::Assign)(i)?;
    let (i, value) = cut(expr)(i)?;
    Ok((i, StmtKind::Assign { targets, value }))
}

fn lvalue_list(i: Input) -> PResult<Vec<LValue>> {
    let (i, first) = lvalue(i)?;
    let (i, more) = many0(alt((preceded(token(TokKind::Comma), cut(lvalue)), lvalue)))(i)?;
    Ok((i, std::iter::once(first).chain(more).collect()))
}

/// One target of a multiple assignment: `x`, `A(i, j)` or `~`.
fn lvalue(i: Input) -> PResult<LValue> {
    if *i.kind() == TokKind::Not {
        return Ok((i.bump(), LValue::Ignore(i.tok().span)));
    }
    let (rest, base) = ident(i).map_err(|_| {
        nom::Err::Error(expected(
            &i,
            "a variable or `~`",
            "assign to names, indexed names or `~`: `[a, B(i), ~] = f(x)`",
        ))
    })?;
    if *rest.kind() != TokKind::LParen {
        return Ok((rest, LValue::Var(base)));
    }
    let (rest, (args, close)) = call_args(rest)?;
    let span = base.span.to(close);
    let (args, _) = unzip(args);
    Ok((rest, LValue::Index { base, args, span }))
}

/// An expression statement, or a single assignment `x = e` / `A(i) = e`, or (Octave) a
/// compound assignment `x += e` or increment `x++`.
fn expr_statement(i: Input) -> PResult<StmtKind> {
    let (i, current) = tree(i)?;
    let at = i;
    let (i, value) = match i.kind() {
        TokKind::Assign => cut(expr)(i.bump())?,
        TokKind::OpAssign(op) => {
            let (rest, rhs) = cut(tree)(i.bump())?;
            (rest, compound(&rest, *op, &current, rhs)?)
        }
        TokKind::Incr | TokKind::Decr => {
            let op = if *i.kind() == TokKind::Incr {
                BinaryOp::Add
            } else {
                BinaryOp::Sub
            };
            let one = ExprKind::Number {
                value: 1.0,
                text: "1".to_string(),
            };
            let rhs = Node::leaf(one, i.tok().span);
            (i.bump(), compound(&i, op, &current, rhs)?)
        }
        _ => return Ok((i, StmtKind::Expr(current.expr))),
    };
    let target = assign_target(&at, current.expr)?;
    Ok((
        i,
        StmtKind::Assign {
            targets: vec![target],
            value,
        },
    ))
}

/// The value `x op rhs` assigned by `x op= rhs`, with `rhs` in parentheses where the tree needs
/// them to mean the same when printed (`x *= a + b` is `x * (a + b)`).
fn compound(i: &Input, op: BinaryOp, current: &Node, rhs: Node) -> Result<Expr, nom::Err<PError>> {
    let rhs = if rhs_needs_parens(op, &rhs.expr) {
        let (span, below) = (rhs.expr.span, rhs.height);
        Node::grow(i, ExprKind::Paren(rhs.boxed()), span, below)?
    } else {
        rhs
    };
    let lhs = Node {
        expr: current.expr.clone(),
        height: current.height,
    };
    Ok(binary_node(i, op, lhs, rhs)?.expr)
}

/// Whether `lhs op rhs` needs `rhs` in parentheses to keep this tree when printed as source.
fn rhs_needs_parens(op: BinaryOp, rhs: &Expr) -> bool {
    let primary = matches!(
        rhs.kind,
        ExprKind::Number { .. }
            | ExprKind::Imaginary { .. }
            | ExprKind::Str(_)
            | ExprKind::StringScalar(_)
            | ExprKind::Ident(_)
            | ExprKind::Call { .. }
            | ExprKind::Paren(_)
            | ExprKind::Matrix(_)
            | ExprKind::FuncHandle(_)
            | ExprKind::HandleCell(_)
    );
    match &rhs.kind {
        _ if primary => false,
        _ if matches!(op, BinaryOp::Pow | BinaryOp::ElemPow) => true,
        ExprKind::Binary { op: inner, .. } => precedence(*inner) <= precedence(op),
        ExprKind::Unary { .. } | ExprKind::Postfix { .. } => false,
        _ => true,
    }
}

/// `hold on`: a name followed on its line by another name or a number is MATLAB command syntax.
fn is_command_syntax(i: &Input) -> bool {
    let next = i.nth(1);
    next.space_before && matches!(next.kind, TokKind::Ident(_) | TokKind::Number(_))
}

fn command_syntax(i: &Input) -> PError {
    let words: Vec<String> = i
        .toks
        .iter()
        .skip(1)
        .map_while(|t| match &t.kind {
            TokKind::Ident(w) | TokKind::Number(w) => Some(format!("'{w}'")),
            _ => None,
        })
        .collect();
    let TokKind::Ident(name) = i.kind() else {
        return expected(i, "a statement", "write a statement here");
    };
    let diag = Diagnostic::error("E0035", i.tok().span, "command syntax is not supported")
        .with_label(format!("`{name}` used as a command"))
        .with_help(format!(
            "call it as a function instead, `{name}({})`, or remove it if it only changes the display",
            words.join(", ")
        ));
    PError::at(i, diag)
}

fn assign_target(at: &Input, e: Expr) -> Result<LValue, nom::Err<PError>> {
    match e.kind {
        ExprKind::Ident(name) => Ok(LValue::Var(Ident { name, span: e.span })),
        ExprKind::Call { callee, args } => Ok(LValue::Index {
            base: callee,
            args,
            span: e.span,
        }),
        ExprKind::CellIndex { callee, args } => Ok(LValue::Content {
            base: callee,
            args,
            span: e.span,
        }),
        ExprKind::ElementField {
            callee,
            args,
            field,
        } => Ok(LValue::ElementField {
            base: callee,
            args,
            field,
            span: e.span,
        }),
        _ => {
            let diag = Diagnostic::error("E0027", e.span, "cannot assign to this expression")
                .with_label("not a variable or an indexed variable")
                .with_help("assign to a variable `x = ...`, an element `A(i) = ...` or a cell's content `c{k} = ...`; to compare, use `==`");
            failure(PError {
                diag: Some(Box::new(diag)),
                remaining: at.toks.len(),
            })
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Expressions
// ---------------------------------------------------------------------------------------------

const PREC_RANGE: u8 = 6;
const PREC_ADD: u8 = 7;

/// The binary operator a token spells (`^` and `.^` aside: they bind tighter than prefix
/// operators and are parsed by [`power`]).
fn binary_op(kind: &TokKind) -> Option<BinaryOp> {
    use BinaryOp::*;
    let op = match kind {
        TokKind::OrOr => OrOr,
        TokKind::AndAnd => AndAnd,
        TokKind::Or => Or,
        TokKind::And => And,
        TokKind::EqEq => Eq,
        TokKind::Ne => Ne,
        TokKind::Lt => Lt,
        TokKind::Le => Le,
        TokKind::Gt => Gt,
        TokKind::Ge => Ge,
        TokKind::Plus => Add,
        TokKind::Minus => Sub,
        TokKind::Star => Mul,
        TokKind::Slash => Div,
        TokKind::Backslash => LeftDiv,
        TokKind::DotStar => ElemMul,
        TokKind::DotSlash => ElemDiv,
        TokKind::DotBackslash => ElemLeftDiv,
        _ => return None,
    };
    Some(op)
}

/// How tightly `op` binds (higher binds tighter); `:` sits at [`PREC_RANGE`], prefix operators
/// between `*` and `^`.
fn precedence(op: BinaryOp) -> u8 {
    use BinaryOp::*;
    match op {
        OrOr => 1,
        AndAnd => 2,
        Or => 3,
        And => 4,
        Eq | Ne | Lt | Le | Gt | Ge => 5,
        Add | Sub => PREC_ADD,
        Mul | Div | LeftDiv | ElemMul | ElemDiv | ElemLeftDiv => 8,
        Pow | ElemPow => 10,
    }
}

/// An expression being built, with its height (a leaf is 1). Every node is built through
/// [`Node::grow`], which refuses to exceed [`MAX_HEIGHT`]; so no tree is ever deep enough to
/// overflow the stack of code that walks or drops it recursively.
struct Node {
    expr: Expr,
    height: u32,
}

impl Node {
    fn leaf(kind: ExprKind, span: Span) -> Node {
        Node {
            expr: Expr { kind, span },
            height: 1,
        }
    }

    /// A node over children at most `below` tall; `E0029` if it would be too tall.
    fn grow(i: &Input, kind: ExprKind, span: Span, below: u32) -> Result<Node, nom::Err<PError>> {
        if below >= MAX_HEIGHT {
            let diag = Diagnostic::error("E0029", span, "expression nested too deeply")
                .with_label(format!(
                    "more than {MAX_HEIGHT} levels of operators and brackets"
                ))
                .with_help("split the expression into smaller pieces with temporary variables");
            return failure(PError {
                diag: Some(Box::new(diag)),
                remaining: i.toks.len(),
            });
        }
        Ok(Node {
            expr: Expr { kind, span },
            height: below + 1,
        })
    }

    fn boxed(self) -> Box<Expr> {
        Box::new(self.expr)
    }
}

/// The expressions of `nodes` and the height of the tallest.
fn unzip(nodes: Vec<Node>) -> (Vec<Expr>, u32) {
    let height = nodes.iter().map(|n| n.height).max().unwrap_or(0);
    (nodes.into_iter().map(|n| n.expr).collect(), height)
}

fn expr(i: Input) -> PResult<Expr> {
    map(tree, |n| n.expr)(i)
}

fn tree(i: Input) -> PResult<Node> {
    binary(i, 1)
}

/// Precedence climbing over the binary levels; all of them are left-associative.
fn binary(i: Input, min_prec: u8) -> PResult<Node> {
    let (mut i, mut lhs) = unary(i)?;
    loop {
        if *i.kind() == TokKind::Colon && min_prec <= PREC_RANGE {
            (i, lhs) = range_rest(i, lhs)?;
            continue;
        }
        let Some(op) = binary_op(i.kind()) else {
            break;
        };
        let prec = precedence(op);
        if prec < min_prec || matrix_element_boundary(&i) {
            break;
        }
        let (rest, rhs) = binary(i.bump(), prec + 1)?;
        lhs = binary_node(&rest, op, lhs, rhs)?;
        i = rest;
    }
    Ok((i, lhs))
}

fn binary_node(i: &Input, op: BinaryOp, lhs: Node, rhs: Node) -> Result<Node, nom::Err<PError>> {
    let span = lhs.expr.span.to(rhs.expr.span);
    let below = lhs.height.max(rhs.height);
    let kind = ExprKind::Binary {
        op,
        lhs: lhs.boxed(),
        rhs: rhs.boxed(),
    };
    Node::grow(i, kind, span, below)
}

/// Inside `[]`, ` -b` (space before the sign, none after) starts a new element: `[a -b]`.
fn matrix_element_boundary(i: &Input) -> bool {
    i.ctx.matrix
        && matches!(i.kind(), TokKind::Plus | TokKind::Minus)
        && i.tok().space_before
        && !i.nth(1).space_before
}

/// After `start`, at a `:`: `start:stop` or `start:step:stop`.
fn range_rest<'a>(i: Input<'a>, start: Node) -> PResult<'a, Node> {
    let (i, second) = binary(i.bump(), PREC_ADD)?;
    let (i, step, stop) = match token(TokKind::Colon)(i) {
        Ok((i, _)) => {
            let (i, third) = binary(i, PREC_ADD)?;
            (i, Some(second), third)
        }
        Err(_) => (i, None, second),
    };
    let span = start.expr.span.to(stop.expr.span);
    let below = start
        .height
        .max(stop.height)
        .max(step.as_ref().map_or(0, |s| s.height));
    let kind = ExprKind::Range {
        start: start.boxed(),
        step: step.map(Node::boxed),
        stop: stop.boxed(),
    };
    Ok((i, Node::grow(&i, kind, span, below)?))
}

fn prefix_op(i: Input) -> PResult<(UnaryOp, Span)> {
    let op = match i.kind() {
        TokKind::Minus => UnaryOp::Neg,
        TokKind::Plus => UnaryOp::Plus,
        TokKind::Not => UnaryOp::Not,
        _ => return error(expected(&i, "a prefix operator", "write `-`, `+` or `~`")),
    };
    Ok((i.bump(), (op, i.tok().span)))
}

/// Applies prefix operators, innermost (rightmost) first.
fn with_prefixes(
    i: &Input,
    ops: Vec<(UnaryOp, Span)>,
    operand: Node,
) -> Result<Node, nom::Err<PError>> {
    ops.into_iter().rev().try_fold(operand, |e, (op, span)| {
        let span = span.to(e.expr.span);
        let below = e.height;
        Node::grow(
            i,
            ExprKind::Unary {
                op,
                operand: e.boxed(),
            },
            span,
            below,
        )
    })
}

/// Prefix `+ - ~` (looser than `^`, tighter than `*`).
fn unary(i: Input) -> PResult<Node> {
    let (i, ops) = many0(prefix_op)(i)?;
    let (i, operand) = power(i)?;
    Ok((i, with_prefixes(&i, ops, operand)?))
}

/// A primary followed by `^`/`.^` operands and postfix transposes, left to right.
fn power(i: Input) -> PResult<Node> {
    let (mut i, mut e) = primary(i)?;
    loop {
        let op = match i.kind() {
            TokKind::Quote => PostfixOp::CTranspose,
            TokKind::DotQuote => PostfixOp::Transpose,
            TokKind::Caret | TokKind::DotCaret => {
                (i, e) = power_rhs(i, e)?;
                continue;
            }
            _ => break,
        };
        let span = e.expr.span.to(i.tok().span);
        let below = e.height;
        e = Node::grow(
            &i,
            ExprKind::Postfix {
                op,
                operand: e.boxed(),
            },
            span,
            below,
        )?;
        i = i.bump();
    }
    Ok((i, e))
}

/// At `^`/`.^`: the exponent is a primary with optional prefix operators (`2^-1`).
fn power_rhs<'a>(i: Input<'a>, base: Node) -> PResult<'a, Node> {
    let op = if *i.kind() == TokKind::Caret {
        BinaryOp::Pow
    } else {
        BinaryOp::ElemPow
    };
    let (i, ops) = many0(prefix_op)(i.bump())?;
    let (i, exponent) = primary(i)?;
    let exponent = with_prefixes(&i, ops, exponent)?;
    Ok((i, binary_node(&i, op, base, exponent)?))
}

fn primary(i: Input) -> PResult<Node> {
    let span = i.tok().span;
    let leaf = |kind| -> PResult<Node> { Ok((i.bump(), Node::leaf(kind, span))) };
    match i.kind() {
        TokKind::Number(text) => number(i, text),
        TokKind::Str(s) => leaf(ExprKind::Str(s.clone())),
        TokKind::StringScalar(s) => leaf(ExprKind::StringScalar(s.clone())),
        TokKind::Ident(name) => ident_or_call(i, name),
        TokKind::LParen => paren(i),
        TokKind::LBracket => matrix(i),
        TokKind::At => handle(i),
        TokKind::Kw(Keyword::End) if i.ctx.index => leaf(ExprKind::End),
        TokKind::Kw(Keyword::End) => error(end_outside_index(&i)),
        TokKind::LBrace => handle_cell(i),
        TokKind::RBrace => error(cell_array(&i)),
        _ => error(expected(
            &i,
            "an expression",
            "write a value, a name, or a parenthesized expression here",
        )),
    }
}

fn number<'a>(i: Input<'a>, text: &str) -> PResult<'a, Node> {
    let span = i.tok().span;
    let imaginary = text.strip_suffix(['i', 'j', 'I', 'J']);
    match imaginary.unwrap_or(text).parse::<f64>() {
        Ok(value) => {
            let text = text.to_string();
            let kind = match imaginary {
                Some(_) => ExprKind::Imaginary { value, text },
                None => ExprKind::Number { value, text },
            };
            Ok((i.bump(), Node::leaf(kind, span)))
        }
        Err(_) => error(PError::at(
            &i,
            Diagnostic::error("E0004", span, "malformed number")
                .with_label("not a valid number")
                .with_help("write numbers like `1`, `2.5`, `.5` or `1e-3`"),
        )),
    }
}

/// `@name` or `@(params) body`.
fn handle(i: Input) -> PResult<Node> {
    let at = i.tok().span;
    let after = i.bump();
    match after.kind() {
        TokKind::Ident(name) => {
            let name = Ident {
                name: name.clone(),
                span: after.tok().span,
            };
            let span = at.to(name.span);
            Ok((after.bump(), Node::leaf(ExprKind::FuncHandle(name), span)))
        }
        TokKind::LParen => anon_fn(after, at),
        _ => error(expected(
            &after,
            "a function name or `(` after `@`",
            "write a function handle `@name` or an anonymous function `@(x) x + 1`",
        )),
    }
}

/// `(params) body` of an anonymous function whose `@` is at `at`; the body extends as far as
/// an expression can.
fn anon_fn<'a>(i: Input<'a>, at: Span) -> PResult<'a, Node> {
    let (i, params) = delimited(token(TokKind::LParen), param_list, token(TokKind::RParen))(i)?;
    let inner = deeper(
        i,
        Ctx {
            index: false,
            ..i.ctx
        },
    )?;
    let (rest, body) = tree(inner)?;
    let span = at.to(body.expr.span);
    let below = body.height;
    let kind = ExprKind::AnonFn {
        params,
        body: body.boxed(),
    };
    Ok((rest.with_ctx(i.ctx), Node::grow(&rest, kind, span, below)?))
}

/// `E0028`; recovery resumes after this `end`, which belongs to the broken expression.
fn end_outside_index(i: &Input) -> PError {
    let diag = Diagnostic::error("E0028", i.tok().span, "`end` outside an index")
        .with_label("`end` here closes a block, not an index")
        .with_help("`end` means the last index only inside `A(...)`, e.g. `A(end)`; elsewhere use `numel(A)` or `size(A, k)`");
    PError {
        diag: Some(Box::new(diag)),
        remaining: i.bump().toks.len(),
    }
}

fn cell_array(i: &Input) -> PError {
    PError::at(
        i,
        Diagnostic::error("E0010", i.tok().span, "cell arrays are not supported")
            .with_label("cell array brace")
            .with_help("m2cu reads cells of texts in one row or column ({'a', 'bc'}, taken with c{k}) and of function handles; use numeric or char arrays with `[...]` for the rest"),
    )
}

/// `x`, or `f(args)` when `(` follows (inside `[]` only without a space: `[f (1)]` is two
/// elements).
fn ident_or_call<'a>(i: Input<'a>, name: &str) -> PResult<'a, Node> {
    let callee = Ident {
        name: name.to_string(),
        span: i.tok().span,
    };
    let after = i.bump();
    if *after.kind() == TokKind::LBrace && !after.tok().space_before {
        return cell_index(after, callee);
    }
    let call = *after.kind() == TokKind::LParen && !(i.ctx.matrix && after.tok().space_before);
    if !call {
        return Ok((after, Node::leaf(ExprKind::Ident(callee.name), callee.span)));
    }
    let (rest, (args, close)) = call_args(after)?;
    let span = callee.span.to(close);
    let (args, below) = unzip(args);
    if let TokKind::Field(_) = rest.kind() {
        return element_field(rest, callee, args, span, below);
    }
    Ok((
        rest,
        Node::grow(&rest, ExprKind::Call { callee, args }, span, below)?,
    ))
}

/// `s(args).name` (`i` is at the field): a field of an element of a struct array. Indexing
/// the field further (`s(k).x(j)`) is E0002.
fn element_field<'a>(
    i: Input<'a>,
    callee: Ident,
    args: Vec<Expr>,
    span: Span,
    below: u32,
) -> PResult<'a, Node> {
    let TokKind::Field(name) = i.kind() else {
        unreachable!("called at a field")
    };
    let field = Ident {
        name: name.clone(),
        span: i.tok().span,
    };
    let rest = i.bump();
    if matches!(rest.kind(), TokKind::LParen | TokKind::LBrace) && !rest.tok().space_before {
        let diag = Diagnostic::error(
            "E0002",
            rest.tok().span,
            "indexing a field of a struct array's element (`s(k).x(j)`) is not supported",
        )
        .with_label("index of the field")
        .with_help("copy the field first, `x = s(k).x;`, then index `x(j)`");
        return failure(PError::at(&rest, diag));
    }
    let span = span.to(field.span);
    let kind = ExprKind::ElementField {
        callee,
        args,
        field,
    };
    Ok((rest, Node::grow(&rest, kind, span, below)?))
}

/// The input after the opening `(` or `{` at `i` of an index, one level deeper, where `end`
/// is an index and whitespace does not separate elements.
fn index_inside(i: Input) -> Result<Input, nom::Err<PError>> {
    deeper(
        i.bump(),
        Ctx {
            index: true,
            matrix: false,
            ..i.ctx
        },
    )
}

/// `(args)` of a call or an index: the arguments and the span of `)`.
fn call_args(i: Input) -> PResult<(Vec<Node>, Span)> {
    let inner = index_inside(i)?;
    let (rest, args) = if *inner.kind() == TokKind::RParen {
        (inner, Vec::new())
    } else {
        separated_list1(token(TokKind::Comma), cut(index_arg))(inner)?
    };
    let (rest, close) = close_paren(rest, i.tok().span, "`,` or `)`")?;
    Ok((rest.with_ctx(i.ctx), (args, close)))
}

/// `c{k}`: the content of a cell (`after` is at the `{`).
fn cell_index<'a>(i: Input<'a>, callee: Ident) -> PResult<'a, Node> {
    let open = i.tok().span;
    let inner = index_inside(i)?;
    let (rest, args) = separated_list1(token(TokKind::Comma), cut(index_arg))(inner)?;
    if *rest.kind() != TokKind::RBrace {
        return failure(unclosed(&rest, open, "{", "add `}` after the last index"));
    }
    let span = callee.span.to(rest.tok().span);
    let (args, below) = unzip(args);
    let rest = rest.bump().with_ctx(i.ctx);
    Ok((
        rest,
        Node::grow(&rest, ExprKind::CellIndex { callee, args }, span, below)?,
    ))
}

/// An index argument: a bare `:` or an expression.
fn index_arg(i: Input) -> PResult<Node> {
    let bare_colon = *i.kind() == TokKind::Colon
        && matches!(
            i.nth(1).kind,
            TokKind::Comma | TokKind::RParen | TokKind::RBrace
        );
    if bare_colon {
        return Ok((i.bump(), Node::leaf(ExprKind::Colon, i.tok().span)));
    }
    tree(i)
}

fn paren(i: Input) -> PResult<Node> {
    let inner = deeper(
        i.bump(),
        Ctx {
            matrix: false,
            ..i.ctx
        },
    )?;
    let (rest, e) = tree(inner)?;
    let (rest, close) = close_paren(rest, i.tok().span, "`)`")?;
    let span = i.tok().span.to(close);
    let below = e.height;
    Ok((
        rest.with_ctx(i.ctx),
        Node::grow(&rest, ExprKind::Paren(e.boxed()), span, below)?,
    ))
}

/// The `)` matching the `(` at `open`; `what` names what was expected, for the error.
fn close_paren<'a>(i: Input<'a>, open: Span, what: &str) -> PResult<'a, Span> {
    if matches!(i.kind(), TokKind::Newline | TokKind::Semi | TokKind::Eof) {
        let help = "add `)` before the end of the statement (continue a long line with `...`)";
        return failure(unclosed(&i, open, "(", help));
    }
    token(TokKind::RParen)(i).map_err(|_| {
        nom::Err::Error(expected(
            &i,
            what,
            "check the operators and commas before this; close the parenthesis with `)`",
        ))
    })
}

/// `E0034` for the `opener` at `open`; `help` says where its closer goes.
fn unclosed(i: &Input, open: Span, opener: &str, help: &str) -> PError {
    let diag = Diagnostic::error("E0034", open, format!("unclosed `{opener}`"))
        .with_label(format!("this `{opener}` is never closed"))
        .with_help(help.to_string());
    PError {
        diag: Some(Box::new(diag)),
        remaining: i.toks.len(),
    }
}

/// `{@f, @g}`: a cell of function handles (`@name`, anonymous functions, and names, taken for
/// variables holding handles, beside at least one of those); `{'M', 'CM'}` (one row or one
/// column of text literals, or none: `{}`): a cell of texts; any other cell array is E0010.
fn handle_cell(i: Input) -> PResult<Node> {
    let open = i.tok().span;
    let unsupported = || error(cell_array(&i));
    let Ok((rest, rows)) = bracketed(i, TokKind::RBrace) else {
        return unsupported();
    };
    if *rest.kind() != TokKind::RBrace {
        return unsupported();
    }
    let rows: Vec<Vec<Node>> = rows.into_iter().filter(|r| !r.is_empty()).collect();
    let column = rows.len() > 1 && rows.iter().all(|r| r.len() == 1);
    let one_row_or_column = column || rows.len() == 1;
    let items: Vec<Node> = rows.into_iter().flatten().collect();
    let is_handle = |n: &Node| {
        matches!(
            n.expr.kind,
            ExprKind::FuncHandle(_) | ExprKind::AnonFn { .. }
        )
    };
    // A name among handles is taken for a variable holding one (`{fh, @max}`).
    let handles = items.iter().any(is_handle)
        && items
            .iter()
            .all(|n| is_handle(n) || matches!(n.expr.kind, ExprKind::Ident(_)));
    // `{}` is an empty cell of texts, which `c{end+1} = 'text'` fills.
    let texts = items
        .iter()
        .all(|n| matches!(n.expr.kind, ExprKind::Str(_) | ExprKind::StringScalar(_)));
    if !(handles || texts && (one_row_or_column || items.is_empty())) {
        return unsupported();
    }
    let span = open.to(rest.tok().span);
    let (items, below) = unzip(items);
    let kind = match handles {
        true => ExprKind::HandleCell(items),
        false => ExprKind::TextCell { items, column },
    };
    Ok((
        rest.bump().with_ctx(i.ctx),
        Node::grow(&rest, kind, span, below)?,
    ))
}

/// `[a, b; c d]`, `[]`.
fn matrix(i: Input) -> PResult<Node> {
    let open = i.tok().span;
    let (rest, rows) = bracketed(i, TokKind::RBracket)?;
    if *rest.kind() != TokKind::RBracket {
        return failure(unclosed(&rest, open, "[", "add `]` after the last element"));
    }
    let span = open.to(rest.tok().span);
    let (rows, heights): (Vec<Vec<Expr>>, Vec<u32>) = rows.into_iter().map(unzip).unzip();
    let below = heights.into_iter().max().unwrap_or(0);
    Ok((
        rest.bump().with_ctx(i.ctx),
        Node::grow(&rest, ExprKind::Matrix(rows), span, below)?,
    ))
}

/// The rows after the opening bracket at `i`, up to (not consuming) `close`, parsed one level
/// deeper with whitespace separating elements; the input stays in the inner context.
fn bracketed(i: Input, close: TokKind) -> PResult<Vec<Vec<Node>>> {
    let inner = deeper(
        i.bump(),
        Ctx {
            matrix: true,
            ..i.ctx
        },
    )?;
    matrix_rows(inner, &close)
}

/// Rows separated by `;` or newlines; elements by `,` or whitespace. Empty rows are dropped.
fn matrix_rows<'a>(mut i: Input<'a>, close: &TokKind) -> PResult<'a, Vec<Vec<Node>>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    loop {
        match i.kind() {
            TokKind::Semi | TokKind::Newline => {
                if !row.is_empty() {
                    rows.push(std::mem::take(&mut row));
                }
                i = i.bump();
            }
            TokKind::Eof => break,
            kind if kind == close => break,
            _ => {
                let (rest, e) = tree(i)?;
                row.push(e);
                i = element_separator(rest, close)?;
            }
        }
    }
    if !row.is_empty() {
        rows.push(row);
    }
    Ok((i, rows))
}

/// After a matrix element: `,` (consumed), a row end, `]`, or whitespace before the next element.
fn element_separator<'a>(i: Input<'a>, close: &TokKind) -> Result<Input<'a>, nom::Err<PError>> {
    match i.kind() {
        TokKind::Comma => Ok(i.bump()),
        TokKind::Semi | TokKind::Newline | TokKind::Eof => Ok(i),
        kind if kind == close => Ok(i),
        kind if i.tok().space_before && starts_expr(kind) => Ok(i),
        _ => error(expected(
            &i,
            "`,`, `;` or `]`",
            "separate elements with `,` or a space, rows with `;`, and close with `]`",
        )),
    }
}

fn starts_expr(kind: &TokKind) -> bool {
    matches!(
        kind,
        TokKind::Number(_)
            | TokKind::Str(_)
            | TokKind::StringScalar(_)
            | TokKind::Ident(_)
            | TokKind::LParen
            | TokKind::LBracket
            | TokKind::LBrace
            | TokKind::Plus
            | TokKind::Minus
            | TokKind::Not
            | TokKind::At
            | TokKind::Error
            | TokKind::Kw(Keyword::End)
    )
}
