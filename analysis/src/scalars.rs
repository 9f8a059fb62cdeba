//! Scalar roles inside one loop body: read-only, private, live-out, or carried.
//!
//! A scalar written in the body is *private* when no read in an iteration can see a value from
//! an earlier iteration: every read is preceded, on every path through the iteration, by a write
//! (the classic "upward-exposed read" test). A private scalar that is read after the loop (or is
//! an output) is *live-out*; its last value is correct only if every iteration assigns it, which
//! [`definitely_assigned`] checks.

use std::collections::BTreeSet;

use m2cu_frontend::ir::{Block, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind};
use m2cu_frontend::Span;

/// The first read of `local` in `block` that may see a value from before the block (an
/// upward-exposed read), with its span.
pub fn exposed_read(f: &Function, block: &Block, local: LocalId) -> Option<Span> {
    let mut defined = false;
    exposed_in_block(f, block, local, &mut defined)
}

fn exposed_in_block(
    f: &Function,
    block: &Block,
    local: LocalId,
    defined: &mut bool,
) -> Option<Span> {
    for &s in &block.0 {
        if let Some(span) = exposed_in_stmt(f, s, local, defined) {
            return Some(span);
        }
    }
    None
}

fn exposed_in_stmt(f: &Function, s: StmtId, local: LocalId, defined: &mut bool) -> Option<Span> {
    let read_here = |defined: bool| {
        if defined {
            return None;
        }
        f.stmt_exprs(s)
            .into_iter()
            .find_map(|e| read_span(f, e, local))
    };
    match &f.stmts[s].kind {
        StmtKind::Assign { target, .. } => {
            let span = read_here(*defined);
            if *target == local {
                *defined = true;
            }
            span
        }
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => {
            if let Some(span) = read_here(*defined) {
                return Some(span);
            }
            let (mut in_then, mut in_else) = (*defined, *defined);
            let span = exposed_in_block(f, then_body, local, &mut in_then)
                .or_else(|| exposed_in_block(f, else_body, local, &mut in_else));
            *defined = in_then && in_else;
            span
        }
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
            if let Some(span) = read_here(*defined) {
                return Some(span);
            }
            // The body may run zero times: what it defines does not count afterwards. A `for`
            // defines its own variable for the body.
            let own_var = matches!(f.stmts[s].kind, StmtKind::For { var, .. } if var == local);
            let mut inside = *defined || own_var;
            exposed_in_block(f, body, local, &mut inside)
        }
        _ => read_here(*defined),
    }
}

/// The span of the first read of `local` inside expression `e`.
pub fn read_span(f: &Function, e: ExprId, local: LocalId) -> Option<Span> {
    let mut found = None;
    f.walk_expr(e, &mut |x| {
        if found.is_none() && matches!(f.exprs[x].kind, ExprKind::Local(l) if l == local) {
            found = Some(f.exprs[x].span);
        }
    });
    found
}

/// Whether every path through `block` assigns `local` (ignoring early exits).
pub fn definitely_assigned(f: &Function, block: &Block, local: LocalId) -> bool {
    block.0.iter().any(|&s| match &f.stmts[s].kind {
        StmtKind::Assign { target, .. } => *target == local,
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => definitely_assigned(f, then_body, local) && definitely_assigned(f, else_body, local),
        _ => false,
    })
}

/// The scalars (not arrays) that are read anywhere in `block`.
pub fn scalars_read(f: &Function, block: &Block) -> BTreeSet<LocalId> {
    let mut set = BTreeSet::new();
    f.walk_stmts(block, &mut |s| {
        for e in f.stmt_exprs(s) {
            f.walk_expr(e, &mut |x| {
                if let ExprKind::Local(l) = f.exprs[x].kind {
                    if f.locals[l].ty.is_scalar() {
                        set.insert(l);
                    }
                }
            });
        }
    });
    set
}

/// The arrays read (by index, size query or copy) and written (by store) in `block`.
pub fn arrays_used(f: &Function, block: &Block) -> (BTreeSet<LocalId>, BTreeSet<LocalId>) {
    let (mut read, mut written) = (BTreeSet::new(), BTreeSet::new());
    f.walk_stmts(block, &mut |s| {
        match &f.stmts[s].kind {
            StmtKind::Store { array, .. }
            | StmtKind::Alloc { target: array, .. }
            | StmtKind::Resize { array, .. } => {
                written.insert(*array);
            }
            StmtKind::Assign { target, .. } if !f.locals[*target].ty.is_scalar() => {
                written.insert(*target);
            }
            _ => {}
        }
        for e in f.stmt_exprs(s) {
            f.walk_expr(e, &mut |x| match f.exprs[x].kind {
                ExprKind::Index(a, _) | ExprKind::Size(a, _) => {
                    read.insert(a);
                }
                ExprKind::Local(l) if !f.locals[l].ty.is_scalar() => {
                    read.insert(l);
                }
                _ => {}
            });
        }
    });
    (read, written)
}

/// Whether the value `local` has after the loop with body `body` may be read: it is an output,
/// or it is read somewhere outside the body, except inside a `for` loop that redefines it as its
/// own variable (that read sees the new loop's value).
pub fn used_after(f: &Function, body: &Block, local: LocalId) -> bool {
    if f.is_output(local) {
        return true;
    }
    let mut ignored = BTreeSet::new();
    let mut redefining = vec![body];
    f.walk_stmts(&f.body, &mut |s| match &f.stmts[s].kind {
        StmtKind::For { var, body, .. } if *var == local => redefining.push(body),
        _ => {}
    });
    for block in redefining {
        f.walk_stmts(block, &mut |s| {
            ignored.insert(s);
        });
    }
    let mut used = false;
    f.walk_stmts(&f.body, &mut |s| {
        let reads = || {
            f.stmt_exprs(s)
                .into_iter()
                .any(|e| read_span(f, e, local).is_some())
        };
        if !ignored.contains(&s) && reads() {
            used = true;
        }
    });
    used
}
