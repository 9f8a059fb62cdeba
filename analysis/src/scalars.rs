//! Scalar roles inside one loop body: read-only, private, live-out, or carried.
//!
//! A scalar written in the body is *private* when no read in an iteration can see a value from
//! an earlier iteration: every read is preceded, on every path through the iteration, by a write
//! (the classic "upward-exposed read" test). A private scalar that is read after the loop (or is
//! an output) is *live-out*; its last value is correct only if every iteration assigns it, which
//! [`Exposure::assigned`] tells.

use std::collections::{BTreeMap, BTreeSet};

use m2cu_frontend::ir::PrintTo;
use m2cu_frontend::ir::{Block, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind};
use m2cu_frontend::Span;

/// What one iteration of a loop body reads and writes, for all its locals at once (one walk
/// of the body, so that asking about each scalar is not quadratic in the body's length).
pub struct Exposure {
    /// The first read of each local that may see a value from before the body (an
    /// upward-exposed read), with its span.
    pub reads: BTreeMap<LocalId, Span>,
    /// The locals that every path through the body assigns (ignoring early exits).
    pub assigned: BTreeSet<LocalId>,
}

/// The [`Exposure`] of `block`.
pub fn exposure(f: &Function, block: &Block) -> Exposure {
    let mut exposure = Exposure {
        reads: BTreeMap::new(),
        assigned: BTreeSet::new(),
    };
    let mut defined = BTreeSet::new();
    exposed_in_block(f, block, &mut defined, &mut exposure.reads);
    exposure.assigned = defined;
    exposure
}

/// Walks `block` in program order with `defined` the locals assigned on every path so far,
/// recording in `reads` the first read of each local that is not.
fn exposed_in_block(
    f: &Function,
    block: &Block,
    defined: &mut BTreeSet<LocalId>,
    reads: &mut BTreeMap<LocalId, Span>,
) {
    for &s in &block.0 {
        exposed_in_stmt(f, s, defined, reads);
    }
}

fn exposed_in_stmt(
    f: &Function,
    s: StmtId,
    defined: &mut BTreeSet<LocalId>,
    reads: &mut BTreeMap<LocalId, Span>,
) {
    for e in f.stmt_exprs(s) {
        f.walk_expr(e, &mut |x| {
            if let ExprKind::Local(l) = f.exprs[x].kind {
                if !defined.contains(&l) {
                    reads.entry(l).or_insert(f.exprs[x].span);
                }
            }
        });
    }
    match &f.stmts[s].kind {
        StmtKind::Assign { target, .. } => {
            defined.insert(*target);
        }
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => {
            let mut in_then = defined.clone();
            exposed_in_block(f, then_body, &mut in_then, reads);
            let mut in_else = defined.clone();
            exposed_in_block(f, else_body, &mut in_else, reads);
            *defined = in_then.intersection(&in_else).copied().collect();
        }
        StmtKind::For { body, var, .. } => {
            // The body may run zero times: what it defines does not count afterwards. A `for`
            // defines its own variable for the body.
            let mut inside = defined.clone();
            inside.insert(*var);
            exposed_in_block(f, body, &mut inside, reads);
        }
        StmtKind::While { body, .. } => exposed_in_block(f, body, &mut defined.clone(), reads),
        _ => {}
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
            | StmtKind::Resize { array, .. }
            | StmtKind::Print {
                to: PrintTo::Append { row: array },
                ..
            } => {
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

/// The locals whose value after the loop with body `body` may be read: those read at the end
/// of the call (`Function::read_at_end`), and the
/// locals read somewhere outside the body, except inside a `for` loop that redefines the local
/// as its own variable (that read sees the new loop's value). One walk of the function, so that
/// asking about every scalar of a loop is linear, not quadratic.
pub fn live_after(f: &Function, body: &Block) -> BTreeSet<LocalId> {
    let mut live: BTreeSet<LocalId> = f.read_at_end().collect();
    let mut redefined = Vec::new();
    reads_outside(f, &f.body, body, &mut redefined, &mut live);
    live
}

/// Adds to `live` the locals that the statements of `block` read, leaving out `body` and the
/// locals in `redefined` (the variables of the enclosing `for` loops).
fn reads_outside(
    f: &Function,
    block: &Block,
    body: &Block,
    redefined: &mut Vec<LocalId>,
    live: &mut BTreeSet<LocalId>,
) {
    if std::ptr::eq(block, body) {
        return;
    }
    for &s in &block.0 {
        for e in f.stmt_exprs(s) {
            f.walk_expr(e, &mut |x| {
                if let ExprKind::Local(l) = f.exprs[x].kind {
                    if !redefined.contains(&l) {
                        live.insert(l);
                    }
                }
            });
        }
        match &f.stmts[s].kind {
            StmtKind::For {
                var, body: inner, ..
            } => {
                redefined.push(*var);
                reads_outside(f, inner, body, redefined, live);
                redefined.pop();
            }
            StmtKind::While { body: inner, .. } => reads_outside(f, inner, body, redefined, live),
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                reads_outside(f, then_body, body, redefined, live);
                reads_outside(f, else_body, body, redefined, live);
            }
            _ => {}
        }
    }
}
