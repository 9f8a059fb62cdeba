//! Command syntax for the housekeeping commands that scripts and functions start with:
//! `close all`, `clear all`, `clear x y`, `clearvars`, `more off`.
//!
//! MATLAB reads `name word1 word2` as the call `name('word1', 'word2')`; these commands are
//! parsed as exactly that call, and lowering decides what each means in a translated function.
//! Any other command (`hold on`, `format long`) stays `E0035` with the call spelled out in its
//! help. Only names and numbers are words here, up to the end of the statement.

use super::*;

/// The commands accepted in command syntax.
const HOUSEKEEPING: &[&str] = &["close", "clear", "clearvars", "clc", "more"];

/// `name word ...` as the call `name('word', ...)`, when `name` is a housekeeping command
/// and every word is a name or a number; `None` otherwise.
pub(super) fn command_call(i: Input) -> Option<(Input, StmtKind)> {
    let TokKind::Ident(name) = i.kind() else {
        return None;
    };
    if !HOUSEKEEPING.contains(&name.as_str()) {
        return None;
    }
    let callee = Ident {
        name: name.clone(),
        span: i.tok().span,
    };
    let (mut rest, mut args) = (i.bump(), Vec::new());
    while !is_terminator(rest.kind()) {
        let (TokKind::Ident(word) | TokKind::Number(word)) = rest.kind() else {
            return None;
        };
        let span = rest.tok().span;
        args.push(Expr {
            kind: ExprKind::Str(word.clone()),
            span,
        });
        rest = rest.bump();
    }
    let span = rest.span_since(&i);
    let call = Expr {
        kind: ExprKind::Call { callee, args },
        span,
    };
    Some((rest, StmtKind::Expr(call)))
}
