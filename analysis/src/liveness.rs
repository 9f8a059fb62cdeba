//! Whether an array's value may be read again after a statement: the fact that lets an array
//! copy `x = y` become a move (the two arrays swap their storage) when `y`'s value is dead.
//!
//! Conservative by construction: a path that leaves a block by `break`, `continue` or `return`,
//! a partial write (which keeps the other elements), or anything it does not understand counts
//! as a read. A definition inside a loop or in one branch of an `if` does not end the value's
//! life (the loop may run no iteration; the other branch may be taken); one in both branches
//! does.

use std::collections::BTreeSet;

use m2cu_frontend::ir::PrintTo;
use m2cu_frontend::ir::{Block, ExprKind, Function, LocalId, StmtId, StmtKind};
use m2cu_frontend::types::Dim;

use crate::KernelPlan;

/// What a run of statements does first with a local's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Touch {
    /// It may read it (or leave the block early).
    Read,
    /// It assigns it whole before any read, on every path.
    Defined,
    /// Neither, on some path.
    Neither,
}

/// Whether the array copy `x = y` (statement `s`) may swap the two arrays' storage instead:
/// both 2-D of one class and complexity, `y` owns its storage (not a parameter, whose storage
/// may be the caller's; `x` owns its own, being assigned), and `y`'s value is dead after `s`.
pub fn movable(f: &Function, x: LocalId, y: LocalId, s: StmtId) -> bool {
    let (tx, ty) = (f.locals[x].ty, f.locals[y].ty);
    let flat = |pages: Dim| pages == Dim::Known(1);
    tx.class == ty.class
        && tx.complex == ty.complex
        && flat(tx.shape.pages)
        && flat(ty.shape.pages)
        && !f.is_param(y)
        && !live_after(f, y, s)
}

/// The array copies `x = y` that run on the host (outside every kernel) and may swap storage
/// ([`movable`]): a time loop's `u = unew` costs nothing.
pub fn host_moves(f: &Function, plan: &KernelPlan) -> BTreeSet<StmtId> {
    let mut moves = BTreeSet::new();
    collect_moves(f, plan, &f.body, &mut moves);
    moves
}

fn collect_moves(f: &Function, plan: &KernelPlan, block: &Block, moves: &mut BTreeSet<StmtId>) {
    for &s in &block.0 {
        match &f.stmts[s].kind {
            StmtKind::Assign { target, value } if !f.locals[*target].ty.is_scalar() => {
                if let ExprKind::Local(y) = f.exprs[*value].kind {
                    if movable(f, *target, y, s) {
                        moves.insert(s);
                    }
                }
            }
            StmtKind::For { body, .. }
                if plan.kernel_of(s).is_none() && plan.fused_into(s).is_none() =>
            {
                collect_moves(f, plan, body, moves)
            }
            StmtKind::While { body, .. } => collect_moves(f, plan, body, moves),
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                collect_moves(f, plan, then_body, moves);
                collect_moves(f, plan, else_body, moves);
            }
            _ => {}
        }
    }
}

/// Whether the value `x` holds after statement `s` may still be read: on some path from the
/// end of `s`, something reads it before a statement assigns it whole, or the call returns it.
pub fn live_after(f: &Function, x: LocalId, s: StmtId) -> bool {
    let Some(path) = path_from(f, &f.body, None, s) else {
        return true;
    };
    // Innermost block first: (the block, the position of the statement in it).
    for (block, at, owner) in path.into_iter().rev() {
        match first_touch(f, &block.0[at + 1..], x) {
            Touch::Read => return true,
            Touch::Defined => return false,
            Touch::Neither => {}
        }
        // The end of a loop's body goes back to its start (and, if it stops, on after it);
        // a `while` loop tests its condition first.
        let back = match owner.map(|o| &f.stmts[o].kind) {
            Some(StmtKind::While { cond, .. }) => f.mentions(*cond, x),
            Some(StmtKind::For { .. }) => false,
            _ => continue,
        };
        if back || first_touch(f, &block.0, x) == Touch::Read {
            return true;
        }
    }
    f.read_at_end().any(|l| l == x)
}

/// The blocks from `block` (owned by `owner`) down to the one holding `s`, each with the
/// position of the statement that leads on (the last: `s` itself) and the statement that owns
/// the block.
fn path_from<'f>(
    f: &'f Function,
    block: &'f Block,
    owner: Option<StmtId>,
    s: StmtId,
) -> Option<Vec<(&'f Block, usize, Option<StmtId>)>> {
    for (at, &t) in block.0.iter().enumerate() {
        if t == s {
            return Some(vec![(block, at, owner)]);
        }
        let inner: Vec<&Block> = match &f.stmts[t].kind {
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => vec![body],
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => vec![then_body, else_body],
            _ => Vec::new(),
        };
        for b in inner {
            if let Some(mut rest) = path_from(f, b, Some(t), s) {
                rest.insert(0, (block, at, owner));
                return Some(rest);
            }
        }
    }
    None
}

/// What `stmts`, run in order, do first with `x`'s value.
fn first_touch(f: &Function, stmts: &[StmtId], x: LocalId) -> Touch {
    for &s in stmts {
        match touch(f, s, x) {
            Touch::Neither => {}
            other => return other,
        }
    }
    Touch::Neither
}

/// What statement `s` does first with `x`'s value.
fn touch(f: &Function, s: StmtId, x: LocalId) -> Touch {
    if f.stmt_exprs(s).iter().any(|&e| f.mentions(e, x)) {
        return Touch::Read;
    }
    match &f.stmts[s].kind {
        StmtKind::Assign { target, .. } | StmtKind::Alloc { target, .. } if *target == x => {
            Touch::Defined
        }
        StmtKind::Store { array, .. }
        | StmtKind::Resize { array, .. }
        | StmtKind::Print {
            to: PrintTo::Append { row: array },
            ..
        } if *array == x => Touch::Read,
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
            match leaves_early(f, body) || first_touch(f, &body.0, x) == Touch::Read {
                true => Touch::Read,
                false => Touch::Neither,
            }
        }
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => {
            if leaves_early(f, then_body) || leaves_early(f, else_body) {
                return Touch::Read;
            }
            match (
                first_touch(f, &then_body.0, x),
                first_touch(f, &else_body.0, x),
            ) {
                (Touch::Read, _) | (_, Touch::Read) => Touch::Read,
                (Touch::Defined, Touch::Defined) => Touch::Defined,
                _ => Touch::Neither,
            }
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Return => Touch::Read,
        _ => Touch::Neither,
    }
}

/// Whether `block` holds a `break`, `continue` or `return`.
fn leaves_early(f: &Function, block: &Block) -> bool {
    let mut found = false;
    f.walk_stmts(block, &mut |s| {
        found |= matches!(
            f.stmts[s].kind,
            StmtKind::Break | StmtKind::Continue | StmtKind::Return
        )
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::function;

    /// Whether the value the array copy `copy_target = ...` (the first assignment to that name
    /// that reads `source` whole) leaves in `source` may be read after it.
    fn live(body: &str, source: &str) -> bool {
        let f = function(body);
        let x = f.local_named(source).expect("the source");
        let mut copy = None;
        f.walk_stmts(&f.body, &mut |s| {
            if let StmtKind::Assign { value, .. } = &f.stmts[s].kind {
                if copy.is_none() && f.exprs[*value].kind == m2cu_frontend::ir::ExprKind::Local(x) {
                    copy = Some(s);
                }
            }
        });
        live_after(&f, x, copy.expect("a copy"))
    }

    #[test]
    fn a_time_loop_s_new_values_die_at_the_swap() {
        let jacobi = "y = 0; u = rand(5, 1); for s = 1:3, unew = u; for i = 2:4, unew(i) = u(i-1) + u(i+1); end; u = unew; end; y = u;";
        assert!(
            !live(jacobi, "unew"),
            "unew is copied again before any read"
        );
        assert!(live(jacobi, "u"), "u is read by the sweep after `unew = u`");
    }

    #[test]
    fn reads_after_the_loop_or_in_one_branch_keep_the_value() {
        let after = "y = 0; u = rand(5, 1); for s = 1:3, unew = u + 1; u = unew; end; y = unew;";
        assert!(live(after, "unew"));
        let branch =
            "y = 0; u = rand(5, 1); v = u + 1; u = v; if u(1) > 0, v = u; else, y = v(2); end";
        assert!(live(branch, "v"));
        let both = "y = 0; u = rand(5, 1); v = u + 1; u = v; if u(1) > 0, v = u; else, v = 2 * u; end; y = v;";
        assert!(!live(both, "v"));
    }

    #[test]
    fn partial_writes_loops_that_may_not_run_and_early_exits_keep_it() {
        let partial = "y = 0; u = rand(5, 1); v = u + 1; u = v; v(2) = 0; y = v;";
        assert!(live(partial, "v"));
        let maybe = "y = 0; u = rand(5, 1); v = u + 1; u = v; for k = 1:0, v = u; end; y = v;";
        assert!(live(maybe, "v"));
        let early = "y = 0; u = rand(5, 1); for s = 1:3, v = u + 1; u = v; if u(1) > 9, break; end; v = u; end";
        assert!(live(early, "v"));
    }
}
