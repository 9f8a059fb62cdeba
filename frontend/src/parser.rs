//! Parser: [`lexer`](crate::lexer) tokens → [`ast`](crate::ast), written with nom over a token slice.
//!
//! Invariants:
//! - no input panics: every token access goes through `Input::tok`, which yields the final
//!   `Eof` token past the end, and the `Eof` token is never consumed;
//! - recursion is bounded: each nested bracket, index or block goes through `deeper`, which
//!   turns more than [`MAX_DEPTH`] levels into error `E0029`; chains of prefix operators and of
//!   binary operators are parsed with loops;
//! - trees are bounded: no expression taller than [`MAX_HEIGHT`] is built (`E0029` again), so
//!   later phases may walk (and drop) the AST recursively on an ordinary stack;
//! - errors are collected, not thrown: a statement that fails is reported and skipped (to the
//!   end of its line, or its `;`/`,`), and parsing goes on, so one run reports several errors;
//! - an error found at a [`TokKind::Error`] token is not reported again (the lexer already did);
//! - every statement's span covers its tokens, from the first to the last (terminator excluded).
//!
//! Operator precedence, lowest first: `||`, `&&`, `|`, `&`, comparisons, `:`, `+ -`,
//! `* / \ .* ./ .\`, prefix `+ - ~`, then `^ .^` and the postfix transposes (left to right at one
//! level; the exponent may carry prefix operators, so `2^-1` is `2^(-1)` and `-2^2` is `-(2^2)`).
//!
//! Error codes (lexer and parser):
//!
//! | code  | meaning |
//! |-------|---------|
//! | E0001 | unterminated char literal |
//! | E0002 | unexpected character (`$`, `@`, a lone `.` for struct fields, ...) |
//! | E0003 | unterminated block comment `%{` |
//! | E0004 | malformed number (`1e`, `2x`, complex `3i`) |
//! | E0005 | Octave `#` comment |
//! | E0006 | Octave-only operator with a MATLAB spelling (`!=`, `!x`, `**`) |
//! | E0007 | Octave compound assignment or increment (`+=`, `-=`, `*=`, `/=`, `^=`, `x++`, `x--`) |
//! | E0008 | double-quoted string |
//! | E0010 | cell array braces `{}` (not supported) |
//! | E0020 | unexpected token: expected something else |
//! | E0021 | `for`/`while`/`if`/`arguments` without a matching `end` |
//! | E0022 | function without `end` in a file whose other functions have one |
//! | E0023 | `=` in a condition where `==` is meant |
//! | E0024 | Octave block terminator (`endfor`, `endif`, `endwhile`, `endfunction`) |
//! | E0025 | code outside any function (script files are not supported) |
//! | E0026 | the file has no function |
//! | E0027 | invalid assignment target |
//! | E0028 | `end` outside an index |
//! | E0029 | nesting too deep (brackets/blocks beyond `MAX_DEPTH`, expression beyond `MAX_HEIGHT`) |
//! | E0030 | unsupported statement keyword (`switch`, `try`, `parfor`, `global`, ...) |
//! | E0031 | invalid line in an `arguments` block |
//! | E0032 | trailing input after an expression ([`parse_expr`]) |
//! | E0033 | `end` with no block to close |
//! | E0034 | unclosed `(` or `[` |

use std::cell::RefCell;

use nom::branch::alt;
use nom::combinator::{cut, map, opt};
use nom::error::{ErrorKind, ParseError};
use nom::multi::{many0, separated_list1};
use nom::sequence::{delimited, preceded, separated_pair, terminated};
use nom::{IResult, InputLength};

use crate::ast::{
    ArgDecl, BinaryOp, DimSpec, Expr, ExprKind, File, Function, Ident, LValue, PostfixOp, Stmt,
    StmtKind, UnaryOp,
};
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::lexer::{lex, Keyword, TokKind, Token};

/// Deepest nesting of brackets, indexes and blocks accepted.
pub const MAX_DEPTH: u16 = 200;

/// Tallest expression tree accepted (each operator application, call, bracket is a level).
pub const MAX_HEIGHT: u32 = 500;

/// Parses a whole function file.
pub fn parse_file(source: &str) -> Result<File, Diagnostics> {
    with_parser_stack(|| parse_file_here(source))
}

/// Parses one expression (used for `--set NAME=EXPR` values); anything after it is an error.
pub fn parse_expr(source: &str) -> Result<Expr, Diagnostics> {
    with_parser_stack(|| parse_expr_here(source))
}

/// Stack for the parser thread: enough for [`MAX_DEPTH`] levels in an unoptimized build
/// (about 10 KiB a level), whatever the caller's own stack (test threads get 2 MiB).
const PARSER_STACK_BYTES: usize = 64 << 20;

/// Runs `f` on a scoped thread with [`PARSER_STACK_BYTES`] of stack (only the pages used are
/// committed), or on the caller's thread if no thread can be started.
fn with_parser_stack<T: Send>(f: impl Fn() -> T + Sync) -> T {
    std::thread::scope(|scope| {
        let builder = std::thread::Builder::new()
            .name("m2cu-parser".into())
            .stack_size(PARSER_STACK_BYTES);
        match builder.spawn_scoped(scope, &f) {
            Ok(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => f(),
        }
    })
}

fn parse_file_here(source: &str) -> Result<File, Diagnostics> {
    let lexed = lex(source);
    let sink = RefCell::new(Vec::new());
    let functions = file(Input::new(&lexed.tokens, &sink));
    let diags = merge(lexed.diagnostics, sink);
    if diags.has_errors() {
        return Err(diags);
    }
    Ok(File {
        functions,
        codegen_directive: lexed.codegen_directive,
    })
}

fn parse_expr_here(source: &str) -> Result<Expr, Diagnostics> {
    let lexed = lex(source);
    let sink = RefCell::new(Vec::new());
    let input = Input::new(&lexed.tokens, &sink);
    let parsed = expr(skip_newlines(input));
    let result = match parsed {
        Ok((rest, e)) => trailing_input(skip_newlines(rest)).map(|()| e),
        Err(err) => Err(into_error(err)),
    };
    if let Err(e) = &result {
        input.report(e.clone());
    }
    let diags = merge(lexed.diagnostics, sink);
    match result {
        Ok(e) if !diags.has_errors() => Ok(e),
        _ => Err(diags),
    }
}

fn merge(mut diags: Diagnostics, sink: RefCell<Vec<Diagnostic>>) -> Diagnostics {
    diags.0.extend(sink.into_inner());
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
    /// Directly inside `[]`: whitespace separates elements.
    matrix: bool,
    /// Inside an index's parentheses: `end` and a bare `:` are expressions.
    index: bool,
}

/// The parser's input: the remaining tokens (always ending with `Eof`), the bracket context,
/// and where reported diagnostics go.
#[derive(Clone, Copy)]
struct Input<'a> {
    toks: &'a [Token],
    ctx: Ctx,
    sink: &'a RefCell<Vec<Diagnostic>>,
}

impl InputLength for Input<'_> {
    fn input_len(&self) -> usize {
        self.toks.len()
    }
}

impl<'a> Input<'a> {
    fn new(toks: &'a [Token], sink: &'a RefCell<Vec<Diagnostic>>) -> Input<'a> {
        Input {
            toks,
            ctx: Ctx::default(),
            sink,
        }
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
        let Some(d) = e.diag else { return };
        let mut sink = self.sink.borrow_mut();
        let repeated_depth = d.code == "E0029" && sink.iter().any(|old| old.code == "E0029");
        if !repeated_depth {
            sink.push(d);
        }
    }
}

/// A parse error: the diagnostic (`None` when already reported) and where it happened.
#[derive(Clone, Debug)]
struct PError {
    diag: Option<Diagnostic>,
    /// Tokens left at the error; fewer means further into the file.
    remaining: usize,
}

impl PError {
    fn at(i: &Input, diag: Diagnostic) -> PError {
        let diag = (*i.kind() != TokKind::Error).then_some(diag);
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

/// A token that ends a statement list: `end`, `else`, `elseif`, `function`, or an Octave
/// block terminator.
fn closes_block(i: &Input) -> bool {
    matches!(
        i.kind(),
        TokKind::Kw(Keyword::End | Keyword::Else | Keyword::Elseif | Keyword::Function)
    ) || octave_end(i).is_some()
}

/// `endfor`, `endif`, ... standing alone as a statement.
fn octave_end(i: &Input) -> Option<&'static str> {
    const OCTAVE_ENDS: [&str; 6] = [
        "endfor",
        "endif",
        "endwhile",
        "endfunction",
        "endswitch",
        "end_try_catch",
    ];
    let TokKind::Ident(name) = i.kind() else {
        return None;
    };
    let found = OCTAVE_ENDS.iter().find(|w| *w == name)?;
    is_terminator(&i.nth(1).kind).then_some(*found)
}

/// Skips a whole unsupported block (`switch ... end`), counting nested blocks.
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

fn opens_block(kw: Keyword) -> bool {
    match kw {
        Keyword::For | Keyword::While | Keyword::If => true,
        Keyword::Unsupported(word) => matches!(word, "switch" | "try" | "parfor" | "spmd"),
        _ => false,
    }
}

// ---------------------------------------------------------------------------------------------
// Files and functions
// ---------------------------------------------------------------------------------------------

/// A parsed function and whether an `end` closed it.
struct Parsed {
    function: Function,
    keyword: Span,
    closed: bool,
}

fn file(mut i: Input) -> Vec<Function> {
    let mut parsed: Vec<Parsed> = Vec::new();
    let (mut saw_function, mut saw_code) = (false, false);
    loop {
        i = skip_terminators(i);
        match i.kind() {
            TokKind::Eof => break,
            TokKind::Kw(Keyword::Function) => {
                saw_function = true;
                i = match function(i) {
                    Ok((rest, p)) => {
                        parsed.push(p);
                        rest
                    }
                    Err(e) => report_and_recover(i, into_error(e)),
                };
            }
            TokKind::Kw(Keyword::End) => {
                i.report(stray_end(&i));
                i = i.bump();
            }
            _ => {
                saw_code = true;
                i.report(outside_function(&i, !saw_function));
                i = skip_to_function(i);
            }
        }
    }
    check_end_style(&i, &parsed);
    if !saw_function && !saw_code {
        i.report(PError::at(&i, no_function(&i)));
    }
    parsed.into_iter().map(|p| p.function).collect()
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

/// Either every function is closed by `end` or none is.
fn check_end_style(i: &Input, parsed: &[Parsed]) {
    if !parsed.iter().any(|p| p.closed) {
        return;
    }
    for p in parsed.iter().filter(|p| !p.closed) {
        let name = &p.function.name.name;
        let diag = Diagnostic::error(
            "E0022",
            p.keyword,
            format!("function `{name}` has no `end`"),
        )
        .with_label("this function is not closed")
        .with_help("other functions in this file end with `end`: close this one with `end` too");
        i.report(PError {
            diag: Some(diag),
            remaining: 0,
        });
    }
}

fn function(i: Input) -> PResult<Parsed> {
    let start = i;
    let (i, keyword_span) = keyword(Keyword::Function)(i)?;
    let (i, head) = header(start, i, terminated(spanned(function_header), terminator))?;
    let (i, arguments) = arguments_block(i)?;
    let (i, body) = stmt_list(i, false);
    let (i, closed) = function_end(i);
    let Some(((outputs, name, params), head_span)) = head else {
        return error(PError::silent(&i));
    };
    let span = keyword_span.to(head_span);
    let function = Function {
        name,
        params,
        outputs,
        arguments,
        body,
        nested: Vec::new(),
        span,
    };
    Ok((
        i,
        Parsed {
            function,
            keyword: keyword_span,
            closed,
        },
    ))
}

/// Consumes the function's `end` (or Octave `endfunction`) if there is one.
fn function_end(i: Input) -> (Input, bool) {
    if *i.kind() == TokKind::Kw(Keyword::End) {
        return (i.bump(), true);
    }
    if let Some(word) = octave_end(&i) {
        i.report(octave_end_error(&i, word));
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
    ident(i).map_err(|_| {
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
        many0(terminated(ident, opt(token(TokKind::Comma)))),
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
        _ => ident(i),
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
            TokKind::Newline | TokKind::Semi | TokKind::Comma | TokKind::LParen
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

/// Statements up to (not including) a block-closing keyword or the end of the file. `else`
/// and `elseif` end the list only when `allow_else`; elsewhere they are errors.
fn stmt_list(mut i: Input, allow_else: bool) -> (Input, Vec<Stmt>) {
    let mut stmts = Vec::new();
    loop {
        i = skip_terminators(i);
        let at_else = matches!(i.kind(), TokKind::Kw(Keyword::Else | Keyword::Elseif));
        if *i.kind() == TokKind::Eof || (closes_block(&i) && (allow_else || !at_else)) {
            return (i, stmts);
        }
        match statement(i) {
            Ok((rest, s)) => {
                stmts.push(s);
                i = rest;
            }
            Err(e) => i = report_and_recover(i, into_error(e)),
        }
    }
}

/// A nested block body: one level deeper, then back to the outer context.
fn block_body(i: Input, allow_else: bool) -> PResult<Vec<Stmt>> {
    let inner = deeper(i, i.ctx)?;
    let (rest, body) = stmt_list(inner, allow_else);
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
        i.report(octave_end_error(&i, word));
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
        diag: Some(diag),
        remaining: i.toks.len(),
    }
}

fn octave_end_error(i: &Input, word: &str) -> PError {
    PError::at(
        i,
        Diagnostic::error("E0024", i.tok().span, format!("`{word}` is Octave-only"))
            .with_label("Octave block terminator")
            .with_help("MATLAB closes every block with plain `end`"),
    )
}

fn statement(i: Input) -> PResult<Stmt> {
    let start = i;
    let (i, kind) = match i.kind() {
        TokKind::Kw(Keyword::For) => for_stmt(i)?,
        TokKind::Kw(Keyword::While) => while_stmt(i)?,
        TokKind::Kw(Keyword::If) => if_stmt(i)?,
        TokKind::Kw(Keyword::Break) => (i.bump(), StmtKind::Break),
        TokKind::Kw(Keyword::Continue) => (i.bump(), StmtKind::Continue),
        TokKind::Kw(Keyword::Return) => (i.bump(), StmtKind::Return),
        TokKind::Kw(Keyword::Unsupported(word)) => return unsupported_stmt(i, word),
        TokKind::Kw(kw) => return error(misplaced_keyword(&i, *kw)),
        TokKind::LBracket if is_multi_assign(&i) => multi_assign(i)?,
        _ => expr_statement(i)?,
    };
    let span = i.span_since(&start);
    let (i, ()) = terminator(i)?;
    Ok((i, Stmt { kind, span }))
}

fn misplaced_keyword(i: &Input, kw: Keyword) -> PError {
    let word = kw.spelling();
    PError::at(
        i,
        Diagnostic::error("E0020", i.tok().span, format!("unexpected `{word}`"))
            .with_label(format!("`{word}` does not belong here"))
            .with_help(format!(
                "`{word}` must follow an `if` block's body; check the `if` and its `end`s"
            )),
    )
}

/// `switch`, `try`, `parfor`, ...: reported, and the whole block skipped.
fn unsupported_stmt<'a>(i: Input<'a>, word: &str) -> PResult<'a, Stmt> {
    let help = match word {
        "switch" | "case" | "otherwise" => "rewrite the `switch` as `if`/`elseif`/`else`",
        "try" | "catch" => "remove the `try`/`catch`; error handling is not supported",
        "parfor" => "write a plain `for`; m2cu finds the loops that can run in parallel",
        "global" | "persistent" => "pass the value in as an argument and return it as an output",
        _ => "rewrite this without that construct",
    };
    let diag = Diagnostic::error("E0030", i.tok().span, format!("`{word}` is not supported"))
        .with_label("unsupported construct")
        .with_help(help);
    i.report(PError::at(&i, diag));
    let opens = matches!(word, "switch" | "try" | "parfor" | "spmd");
    let rest = if opens {
        skip_block(i)
    } else {
        recover(i, &PError::silent(&i))
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
    let (i, body) = block_body(i, false)?;
    let (i, _) = close_block(i, for_span, "for")?;
    match binding {
        Some((var, range)) => Ok((i, StmtKind::For { var, range, body })),
        None => error(PError::silent(&i)),
    }
}

fn loop_binding(i: Input) -> PResult<(Ident, Expr)> {
    separated_pair(ident, token(TokKind::Assign), cut(expr))(i)
}

fn while_stmt(i: Input) -> PResult<StmtKind> {
    let start = i;
    let (i, while_span) = keyword(Keyword::While)(i)?;
    let (i, cond) = header(start, i, block_header(condition))?;
    let (i, body) = block_body(i, false)?;
    let (i, _) = close_block(i, while_span, "while")?;
    match cond {
        Some(cond) => Ok((i, StmtKind::While { cond, body })),
        None => error(PError::silent(&i)),
    }
}

fn if_stmt(i: Input) -> PResult<StmtKind> {
    let (mut i, if_span) = keyword(Keyword::If)(i)?;
    let mut clauses = Vec::new();
    let mut ok = true;
    loop {
        let (rest, clause) = if_clause(i)?;
        ok &= clause.is_some();
        clauses.extend(clause);
        i = rest;
        match keyword(Keyword::Elseif)(i) {
            Ok((rest, _)) => i = rest,
            Err(_) => break,
        }
    }
    let (i, else_body) = opt(preceded(keyword(Keyword::Else), |i| block_body(i, false)))(i)?;
    let (i, _) = close_block(i, if_span, "if")?;
    if !ok {
        return error(PError::silent(&i));
    }
    Ok((i, StmtKind::If { clauses, else_body }))
}

/// A condition and its body; the condition is `None` when it failed (and was reported).
fn if_clause(i: Input) -> PResult<Option<(Expr, Vec<Stmt>)>> {
    let (i, cond) = header(i, i, block_header(condition))?;
    let (i, body) = block_body(i, true)?;
    Ok((i, cond.map(|c| (c, body))))
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

/// An expression statement, or a single assignment `x = e` / `A(i) = e`.
fn expr_statement(i: Input) -> PResult<StmtKind> {
    let (i, e) = expr(i)?;
    if *i.kind() != TokKind::Assign {
        command_syntax(&i, &e)?;
        return Ok((i, StmtKind::Expr(e)));
    }
    let target = assign_target(&i, e)?;
    let (i, value) = cut(expr)(i.bump())?;
    Ok((
        i,
        StmtKind::Assign {
            targets: vec![target],
            value,
        },
    ))
}

/// `hold on`: a name followed by a word is MATLAB command syntax, which is not supported.
fn command_syntax(i: &Input, e: &Expr) -> Result<(), nom::Err<PError>> {
    let (ExprKind::Ident(name), TokKind::Ident(word)) = (&e.kind, i.kind()) else {
        return Ok(());
    };
    let diag = Diagnostic::error(
        "E0020",
        i.tok().span,
        "expected the end of the statement, found a word",
    )
    .with_label("command syntax is not supported")
    .with_help(format!("call it as a function instead: `{name}('{word}')`"));
    error(PError::at(i, diag))
}

fn assign_target(at: &Input, e: Expr) -> Result<LValue, nom::Err<PError>> {
    match e.kind {
        ExprKind::Ident(name) => Ok(LValue::Var(Ident { name, span: e.span })),
        ExprKind::Call { callee, args } => Ok(LValue::Index {
            base: callee,
            args,
            span: e.span,
        }),
        _ => {
            let diag = Diagnostic::error("E0027", e.span, "cannot assign to this expression")
                .with_label("not a variable or an indexed variable")
                .with_help("assign to a variable `x = ...` or an element `A(i) = ...`; to compare, use `==`");
            failure(PError {
                diag: Some(diag),
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

/// A binary operator token and its precedence (higher binds tighter).
fn binary_op(kind: &TokKind) -> Option<(BinaryOp, u8)> {
    use BinaryOp::*;
    let op = match kind {
        TokKind::OrOr => (OrOr, 1),
        TokKind::AndAnd => (AndAnd, 2),
        TokKind::Or => (Or, 3),
        TokKind::And => (And, 4),
        TokKind::EqEq => (Eq, 5),
        TokKind::Ne => (Ne, 5),
        TokKind::Lt => (Lt, 5),
        TokKind::Le => (Le, 5),
        TokKind::Gt => (Gt, 5),
        TokKind::Ge => (Ge, 5),
        TokKind::Plus => (Add, PREC_ADD),
        TokKind::Minus => (Sub, PREC_ADD),
        TokKind::Star => (Mul, 8),
        TokKind::Slash => (Div, 8),
        TokKind::Backslash => (LeftDiv, 8),
        TokKind::DotStar => (ElemMul, 8),
        TokKind::DotSlash => (ElemDiv, 8),
        TokKind::DotBackslash => (ElemLeftDiv, 8),
        _ => return None,
    };
    Some(op)
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
                diag: Some(diag),
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
        let Some((op, prec)) = binary_op(i.kind()) else {
            break;
        };
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
        TokKind::Ident(name) => ident_or_call(i, name),
        TokKind::LParen => paren(i),
        TokKind::LBracket => matrix(i),
        TokKind::Kw(Keyword::End) if i.ctx.index => leaf(ExprKind::End),
        TokKind::Kw(Keyword::End) => error(end_outside_index(&i)),
        TokKind::LBrace | TokKind::RBrace => error(cell_array(&i)),
        _ => error(expected(
            &i,
            "an expression",
            "write a value, a name, or a parenthesized expression here",
        )),
    }
}

fn number<'a>(i: Input<'a>, text: &str) -> PResult<'a, Node> {
    let span = i.tok().span;
    match text.parse::<f64>() {
        Ok(value) => Ok((
            i.bump(),
            Node::leaf(
                ExprKind::Number {
                    value,
                    text: text.to_string(),
                },
                span,
            ),
        )),
        Err(_) => error(PError::at(
            &i,
            Diagnostic::error("E0004", span, "malformed number")
                .with_label("not a valid number")
                .with_help("write numbers like `1`, `2.5`, `.5` or `1e-3`"),
        )),
    }
}

/// `E0028`; recovery resumes after this `end`, which belongs to the broken expression.
fn end_outside_index(i: &Input) -> PError {
    let diag = Diagnostic::error("E0028", i.tok().span, "`end` outside an index")
        .with_label("`end` here closes a block, not an index")
        .with_help("`end` means the last index only inside `A(...)`, e.g. `A(end)`; elsewhere use `numel(A)` or `size(A, k)`");
    PError {
        diag: Some(diag),
        remaining: i.bump().toks.len(),
    }
}

fn cell_array(i: &Input) -> PError {
    PError::at(
        i,
        Diagnostic::error("E0010", i.tok().span, "cell arrays are not supported")
            .with_label("cell array brace")
            .with_help("use numeric or char arrays with `[...]`, and index with `(...)`"),
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
        return error(cell_array(&after));
    }
    let call = *after.kind() == TokKind::LParen && !(i.ctx.matrix && after.tok().space_before);
    if !call {
        return Ok((after, Node::leaf(ExprKind::Ident(callee.name), callee.span)));
    }
    let (rest, (args, close)) = call_args(after)?;
    let span = callee.span.to(close);
    let (args, below) = unzip(args);
    Ok((
        rest,
        Node::grow(&rest, ExprKind::Call { callee, args }, span, below)?,
    ))
}

/// `(args)` of a call or an index: the arguments and the span of `)`.
fn call_args(i: Input) -> PResult<(Vec<Node>, Span)> {
    let inner = deeper(
        i.bump(),
        Ctx {
            index: true,
            matrix: false,
            ..i.ctx
        },
    )?;
    let (rest, args) = if *inner.kind() == TokKind::RParen {
        (inner, Vec::new())
    } else {
        separated_list1(token(TokKind::Comma), cut(index_arg))(inner)?
    };
    let (rest, close) = close_paren(rest, i.tok().span, "`,` or `)`")?;
    Ok((rest.with_ctx(i.ctx), (args, close)))
}

/// An index argument: a bare `:` or an expression.
fn index_arg(i: Input) -> PResult<Node> {
    let bare_colon =
        *i.kind() == TokKind::Colon && matches!(i.nth(1).kind, TokKind::Comma | TokKind::RParen);
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
        diag: Some(diag),
        remaining: i.toks.len(),
    }
}

/// `[a, b; c d]`, `[]`.
fn matrix(i: Input) -> PResult<Node> {
    let open = i.tok().span;
    let inner = deeper(
        i.bump(),
        Ctx {
            matrix: true,
            ..i.ctx
        },
    )?;
    let (rest, rows) = matrix_rows(inner)?;
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

/// Rows separated by `;` or newlines; elements by `,` or whitespace. Empty rows are dropped.
fn matrix_rows(mut i: Input) -> PResult<Vec<Vec<Node>>> {
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
            TokKind::RBracket | TokKind::Eof => break,
            _ => {
                let (rest, e) = tree(i)?;
                row.push(e);
                i = element_separator(rest)?;
            }
        }
    }
    if !row.is_empty() {
        rows.push(row);
    }
    Ok((i, rows))
}

/// After a matrix element: `,` (consumed), a row end, `]`, or whitespace before the next element.
fn element_separator(i: Input) -> Result<Input, nom::Err<PError>> {
    match i.kind() {
        TokKind::Comma => Ok(i.bump()),
        TokKind::Semi | TokKind::Newline | TokKind::RBracket | TokKind::Eof => Ok(i),
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
            | TokKind::Ident(_)
            | TokKind::LParen
            | TokKind::LBracket
            | TokKind::LBrace
            | TokKind::Plus
            | TokKind::Minus
            | TokKind::Not
            | TokKind::Error
            | TokKind::Kw(Keyword::End)
    )
}
