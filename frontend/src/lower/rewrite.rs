//! Editing the finished IR, for the passes that run on it after lowering (`complex_sum`,
//! `complex_io`, `accumulators`, `small_vectors`): the blocks nested in a statement, and new
//! locals, expressions and statements.
//!
//! Invariant: a new local never takes the name of an existing one (it is numbered instead), so
//! the printed IR and the generated code name every local once.

use crate::diag::Span;
use crate::ir::{Block, Expr, ExprId, ExprKind, Function, Local, LocalId, Stmt, StmtId, StmtKind};
use crate::types::Type;

/// Replaces each block directly nested in statement `s` (a loop's body, an `if`'s branches) by
/// what `rewrite` makes of it; `loops` says whether `for` bodies are rewritten too. While
/// `rewrite` runs, `s` still holds its old blocks, so a walk of the whole function sees them.
pub(super) fn nested_blocks(
    f: &mut Function,
    s: StmtId,
    loops: bool,
    mut rewrite: impl FnMut(&mut Function, Block) -> Block,
) {
    let mut kind = f.stmts[s].kind.clone();
    match &mut kind {
        StmtKind::For { body, .. } if loops => *body = rewrite(f, std::mem::take(body)),
        StmtKind::While { body, .. } => *body = rewrite(f, std::mem::take(body)),
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => {
            *then_body = rewrite(f, std::mem::take(then_body));
            *else_body = rewrite(f, std::mem::take(else_body));
        }
        _ => {}
    }
    f.stmts[s].kind = kind;
}

/// A new local named `name`, numbered when the name is taken, which users see as `shown`.
pub(super) fn new_local(
    f: &mut Function,
    name: &str,
    ty: Type,
    span: Span,
    shown: crate::ir::Shown,
) -> LocalId {
    let mut name = name.to_string();
    if f.local_named(&name).is_some() {
        name = format!("{name}_{}", f.locals.len());
    }
    f.locals.alloc(Local {
        name,
        ty,
        span,
        integral: false,
        loop_integral: false,
        shown,
    })
}

/// How users see a new local made from `x` (its copy of a column, its real part): `text` of the
/// name they see `x` by, or the source `x` stands for.
pub(super) fn derived(f: &Function, x: LocalId, text: impl Fn(&str) -> String) -> crate::ir::Shown {
    use crate::ir::Shown;
    match &f.locals[x].shown {
        Shown::Source(span) => Shown::Source(*span),
        _ => Shown::As(text(f.locals[x].seen_name())),
    }
}

pub(super) fn expr(f: &mut Function, kind: ExprKind, ty: Type, span: Span) -> ExprId {
    f.exprs.alloc(Expr { kind, ty, span })
}

/// The value of local `l`.
pub(super) fn local(f: &mut Function, l: LocalId, span: Span) -> ExprId {
    let ty = f.locals[l].ty;
    expr(f, ExprKind::Local(l), ty, span)
}

pub(super) fn stmt(f: &mut Function, kind: StmtKind, span: Span) -> StmtId {
    f.stmts.alloc(Stmt { kind, span })
}
