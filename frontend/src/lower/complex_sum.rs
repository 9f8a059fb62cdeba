//! Complex sums as two real sums, so that a loop summing complex values is a reduction like
//! any other (kernels, OpenMP, `--deterministic`), run on the finished IR.
//!
//! A complex scalar local `s` of a `for` loop whose body mentions it only in updates
//! `s = s + e`, `s = e + s` or `s = s - e` (`e` not mentioning `s`) becomes
//!
//! ```text
//! _re_s = real(s); _im_s = imag(s);
//! for ...  _re_s = _re_s + real(e); _im_s = _im_s + imag(e);  end   (`-` for `s - e`)
//! s = _re_s + complex(0, _im_s);
//! ```
//!
//! The values are Octave's: a narrowed (real) term adds nothing to the imaginary part, as
//! adding its +0 does not change a sum; Octave narrows `s` after every step, which changes
//! only a zero imaginary part's sign, and the last line narrows the result the same way (a
//! zero imaginary part is +0, the value real). A parallel sum is reordered, as real sums are
//! (DESIGN.md, "Reductions"). A real `e` updates `_re_s` only; a complex one is computed once
//! into a private complex temporary whose parts update `_re_s` and `_im_s`.
//!
//! Only loops not nested in another `for` loop are split (a sum in an inner loop may still be
//! split with the loop around it): a sum inside a kernel's iteration would become a per-output
//! reduction, reordered against Octave's left-to-right order on values such as a DFT's, whose
//! fixtures (`dftloop`) hold Octave's bits; there it stays sequential in its thread, the
//! analysis saying so.
//!
//! Invariant: every new expression is used once.

use super::rewrite::{self, local, stmt};
use crate::diag::Span;
use crate::ir::{BinOp, Block, Builtin, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind};
use crate::types::{Class, Type};

/// Splits the complex sums of the `for` loops of `f` not nested in another `for` loop (see
/// the module docs).
pub fn split(f: &mut Function) {
    let body = std::mem::take(&mut f.body);
    f.body = split_block(f, body);
}

fn split_block(f: &mut Function, block: Block) -> Block {
    let mut out = Vec::with_capacity(block.0.len());
    for s in block.0 {
        // Not inside a `for` loop: see the module docs.
        rewrite::nested_blocks(f, s, false, split_block);
        if !matches!(f.stmts[s].kind, StmtKind::For { .. }) {
            out.push(s);
            continue;
        }
        let mut after = Vec::new();
        for sum in complex_sums(f, s) {
            let (pre, post) = split_sum(f, s, sum);
            out.extend(pre);
            after.push(post);
        }
        out.push(s);
        out.extend(after);
    }
    Block(out)
}

/// One update `s = s ± e` of a complex sum.
struct Update {
    stmt: StmtId,
    op: BinOp,
    term: ExprId,
}

/// The complex scalars that the loop `for_stmt` only sums, with their updates.
fn complex_sums(f: &Function, for_stmt: StmtId) -> Vec<(LocalId, Vec<Update>)> {
    let StmtKind::For { var, body, .. } = &f.stmts[for_stmt].kind else {
        return Vec::new();
    };
    let mut candidates: Vec<LocalId> = Vec::new();
    f.walk_stmts(body, &mut |st| {
        if let StmtKind::Assign { target, .. } = f.stmts[st].kind {
            let ty = f.locals[target].ty;
            if ty.complex && ty.is_scalar() && target != *var && !candidates.contains(&target) {
                candidates.push(target);
            }
        }
    });
    candidates
        .into_iter()
        .filter_map(|s| Some((s, sum_updates(f, body, s)?)))
        .collect()
}

/// The updates of `s` in `body` when every statement mentioning `s` is one.
fn sum_updates(f: &Function, body: &Block, s: LocalId) -> Option<Vec<Update>> {
    let mut updates = Vec::new();
    let mut other_use = false;
    f.walk_stmts(body, &mut |st| {
        let mentions = f.stmt_exprs(st).into_iter().any(|e| f.mentions(e, s));
        match (as_update(f, st, s), &f.stmts[st].kind) {
            (Some(u), _) => updates.push(u),
            (None, StmtKind::Assign { target, .. }) if *target == s => other_use = true,
            (None, _) if mentions => other_use = true,
            _ => {}
        }
    });
    (!other_use && !updates.is_empty()).then_some(updates)
}

fn as_update(f: &Function, st: StmtId, s: LocalId) -> Option<Update> {
    let StmtKind::Assign { target, value } = f.stmts[st].kind else {
        return None;
    };
    let ExprKind::Binary(op, a, b) = f.exprs[value].kind else {
        return None;
    };
    let is_s = |e: ExprId| matches!(f.exprs[e].kind, ExprKind::Local(l) if l == s);
    let term = match op {
        BinOp::Add | BinOp::Sub if is_s(a) => b,
        BinOp::Add if is_s(b) => a,
        _ => return None,
    };
    let double = f.exprs[term].ty.class == Class::Double;
    (target == s && double && !f.mentions(term, s)).then_some(Update { stmt: st, op, term })
}

/// Rewrites one sum: the statements before the loop, and the one after it.
fn split_sum(
    f: &mut Function,
    for_stmt: StmtId,
    (s, updates): (LocalId, Vec<Update>),
) -> (Vec<StmtId>, StmtId) {
    let span = f.stmts[for_stmt].span;
    let double = Type::scalar(Class::Double);
    let of = f.locals[s].name.clone();
    let (re, im) = (
        new_local(
            f,
            &of,
            "re",
            double,
            span,
            rewrite::derived(f, s, |v| format!("real({v})")),
        ),
        new_local(
            f,
            &of,
            "im",
            double,
            span,
            rewrite::derived(f, s, |v| format!("imag({v})")),
        ),
    );
    let pre = [(re, Builtin::Real), (im, Builtin::Imag)].map(|(p, b)| {
        let whole = local(f, s, span);
        let value = call(f, b, whole, span);
        stmt(f, StmtKind::Assign { target: p, value }, span)
    });
    for u in updates {
        rewrite_update(f, for_stmt, u, [re, im]);
    }
    let zero = f.exprs.alloc(crate::ir::Expr {
        kind: ExprKind::Const(0.0),
        ty: Type::scalar(Class::Double),
        span,
    });
    let im_value = local(f, im, span);
    let imaginary = f.exprs.alloc(crate::ir::Expr {
        kind: ExprKind::Call(Builtin::Complex, vec![zero, im_value]),
        ty: Type::complex_scalar(Class::Double),
        span,
    });
    let re_value = local(f, re, span);
    let value = f.exprs.alloc(crate::ir::Expr {
        kind: ExprKind::Binary(BinOp::Add, re_value, imaginary),
        ty: Type::complex_scalar(Class::Double),
        span,
    });
    let post = stmt(f, StmtKind::Assign { target: s, value }, span);
    (pre.to_vec(), post)
}

/// `s = s ± e` becomes `re = re ± e` for a real `e`; for a complex `e` it becomes `t = e`
/// followed by `re = re ± real(t)` and `im = im ± imag(t)` (`t` a new complex scalar, private
/// to each iteration, so that `e` is computed once).
fn rewrite_update(f: &mut Function, for_stmt: StmtId, u: Update, [re, im]: [LocalId; 2]) {
    let span = f.stmts[u.stmt].span;
    if !f.exprs[u.term].ty.complex {
        let value = accumulate(f, u.op, re, u.term, span);
        f.stmts[u.stmt].kind = StmtKind::Assign { target: re, value };
        return;
    }
    let of = f.locals[re].name.trim_end_matches("_re").to_string();
    let term_span = f.exprs[u.term].span;
    let term = new_local(
        f,
        &of,
        "term",
        Type::complex_scalar(Class::Double),
        span,
        crate::ir::Shown::Source(term_span),
    );
    f.stmts[u.stmt].kind = StmtKind::Assign {
        target: term,
        value: u.term,
    };
    let mut last = u.stmt;
    for (part, b) in [(re, Builtin::Real), (im, Builtin::Imag)] {
        let t = local(f, term, span);
        let t = call(f, b, t, span);
        let value = accumulate(f, u.op, part, t, span);
        let next = stmt(
            f,
            StmtKind::Assign {
                target: part,
                value,
            },
            span,
        );
        insert_after(f, for_stmt, last, next);
        last = next;
    }
}

/// A new local `_<of>_<stem>`, numbered when the name is taken, which users see as `shown`.
fn new_local(
    f: &mut Function,
    of: &str,
    stem: &str,
    ty: Type,
    span: Span,
    shown: crate::ir::Shown,
) -> LocalId {
    let name = format!("_{}_{stem}", of.trim_start_matches('_'));
    rewrite::new_local(f, &name, ty, span, shown)
}

/// `acc op term` of doubles.
fn accumulate(f: &mut Function, op: BinOp, acc: LocalId, term: ExprId, span: Span) -> ExprId {
    let acc = local(f, acc, span);
    f.exprs.alloc(crate::ir::Expr {
        kind: ExprKind::Binary(op, acc, term),
        ty: Type::scalar(Class::Double),
        span,
    })
}

/// Puts `new` right after `after` in the block of the statement `root` (a loop, or an `if`
/// in it) that holds `after`; whether it was found.
fn insert_after(f: &mut Function, root: StmtId, after: StmtId, new: StmtId) -> bool {
    let mut kind = std::mem::replace(&mut f.stmts[root].kind, StmtKind::Break);
    let visit = |f: &mut Function, block: &mut Block| match block.0.iter().position(|&s| s == after)
    {
        Some(i) => {
            block.0.insert(i + 1, new);
            true
        }
        None => block.0.iter().any(|&s| insert_after(f, s, after, new)),
    };
    let found = match &mut kind {
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => visit(f, body),
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => visit(f, then_body) || visit(f, else_body),
        _ => false,
    };
    f.stmts[root].kind = kind;
    found
}

/// `real(z)` or `imag(z)` of a complex `z`: a double.
fn call(f: &mut Function, b: Builtin, z: ExprId, span: Span) -> ExprId {
    f.exprs.alloc(crate::ir::Expr {
        kind: ExprKind::Call(b, vec![z]),
        ty: Type::scalar(Class::Double),
        span,
    })
}
