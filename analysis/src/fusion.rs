//! Loop fusion: a kernel whose loop statement directly follows another kernel's loop in the same
//! block, over the same iteration space, joins that kernel, so both bodies run in one launch and
//! one pass (typical of vectorized code: `y = a*x + b; z = y .* y` lowers to two adjacent loops).
//!
//! Fusion is legal when nothing the first loop computes is needed by the second in another
//! iteration:
//! - the ranges are the same expressions, and the second's range reads nothing the first writes;
//! - scalars written by one loop are not mentioned by the other (a shared loop variable at the
//!   same level is fine: it has the same value in both);
//! - every array written by one loop and touched by the other is accessed with one and the same
//!   affine subscript everywhere in both, which names a distinct element in every iteration: then
//!   iteration `t` of the second loop only sees what iteration `t` of the first produced;
//! - neither loop updates histograms (their atomics are left alone) or has induction variables
//!   (their closed forms count the iterations of one loop).
//!
//! Invariant: a fused kernel's `fused` loops have the same number of levels, level ranges and
//! level order as its own loop.

use std::collections::BTreeSet;

use m2cu_frontend::ir::{Block, Function, LocalId, StmtId, StmtKind};

use crate::access::{self, Access};
use crate::plan::{ArrayUse, Kernel};
use crate::reduction::{same_expr, Reduction};
use crate::scalars;

/// Fuses each kernel into the one before it where legal.
pub fn fuse(f: &Function, kernels: Vec<Kernel>) -> Vec<Kernel> {
    let mut out: Vec<Kernel> = Vec::new();
    for k in kernels {
        match out.last_mut() {
            Some(last) if follows(f, &f.body, last.last_stmt(), k.stmt) && fusable(f, last, &k) => {
                absorb(last, k)
            }
            _ => out.push(k),
        }
    }
    out
}

/// Whether `second` is the statement right after `first` in some block.
fn follows(f: &Function, block: &Block, first: StmtId, second: StmtId) -> bool {
    if block.0.windows(2).any(|w| w[0] == first && w[1] == second) {
        return true;
    }
    block.0.iter().any(|&s| match &f.stmts[s].kind {
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
            follows(f, body, first, second)
        }
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => follows(f, then_body, first, second) || follows(f, else_body, first, second),
        _ => false,
    })
}

fn fusable(f: &Function, a: &Kernel, b: &Kernel) -> bool {
    a.levels.len() == b.levels.len()
        && a.order == b.order
        && a.atomic_updates.is_empty()
        && b.atomic_updates.is_empty()
        && a.inductions.is_empty()
        && b.inductions.is_empty()
        && same_ranges(f, a, b)
        && scalars_apart(f, a, b)
        && arrays_aligned(f, a, b)
}

fn range_of(
    f: &Function,
    s: StmtId,
) -> Option<(
    m2cu_frontend::ir::ExprId,
    Option<m2cu_frontend::ir::ExprId>,
    m2cu_frontend::ir::ExprId,
)> {
    match &f.stmts[s].kind {
        StmtKind::For {
            start, step, stop, ..
        } => Some((*start, *step, *stop)),
        _ => None,
    }
}

/// Same range expressions level by level, and `b`'s ranges read nothing `a` writes.
fn same_ranges(f: &Function, a: &Kernel, b: &Kernel) -> bool {
    let (written_scalars, written_arrays) = writes(f, a);
    a.levels.iter().zip(&b.levels).all(|(x, y)| {
        let (Some((s1, st1, e1)), Some((s2, st2, e2))) = (range_of(f, x.stmt), range_of(f, y.stmt))
        else {
            return false;
        };
        let steps = match (st1, st2) {
            (None, None) => true,
            (Some(p), Some(q)) => same_expr(f, p, q),
            _ => false,
        };
        let untouched = f.stmt_exprs(y.stmt).into_iter().all(|e| {
            let mut ok = true;
            f.walk_expr(e, &mut |x| {
                if let Some(l) = mentioned_local(f, x) {
                    ok &= !written_scalars.contains(&l) && !written_arrays.contains(&l);
                }
            });
            ok
        });
        steps && same_expr(f, s1, s2) && same_expr(f, e1, e2) && untouched
    })
}

fn mentioned_local(f: &Function, e: m2cu_frontend::ir::ExprId) -> Option<LocalId> {
    use m2cu_frontend::ir::ExprKind;
    match &f.exprs[e].kind {
        ExprKind::Local(l) | ExprKind::Index(l, _) | ExprKind::Size(l, _) => Some(*l),
        _ => None,
    }
}

/// The scalars (level variables and reduction variables included) and arrays a kernel writes.
fn writes(f: &Function, k: &Kernel) -> (BTreeSet<LocalId>, BTreeSet<LocalId>) {
    let mut scalars_written: BTreeSet<LocalId> = k.all_levels().map(|l| l.var).collect();
    let mut arrays_written = BTreeSet::new();
    for body in k.outer_bodies(f) {
        scalars_written.extend(access::assigned_scalars(f, body));
        arrays_written.extend(scalars::arrays_used(f, body).1);
    }
    (scalars_written, arrays_written)
}

/// The scalars a kernel reads or writes.
fn scalars_mentioned(f: &Function, k: &Kernel) -> BTreeSet<LocalId> {
    let mut out = writes(f, k).0;
    for body in k.outer_bodies(f) {
        out.extend(scalars::scalars_read(f, body));
    }
    out
}

fn scalars_apart(f: &Function, a: &Kernel, b: &Kernel) -> bool {
    let shared: BTreeSet<LocalId> = a
        .levels
        .iter()
        .zip(&b.levels)
        .filter(|(x, y)| x.var == y.var)
        .map(|(x, _)| x.var)
        .collect();
    let apart = |x: &Kernel, y: &Kernel| {
        writes(f, x)
            .0
            .intersection(&scalars_mentioned(f, y))
            .all(|l| shared.contains(l))
    };
    apart(a, b) && apart(b, a)
}

/// Every array written by one kernel and touched by the other is accessed through one
/// subscript that is the same in both (after renaming `b`'s level variables to `a`'s) and
/// names a distinct element per iteration.
fn arrays_aligned(f: &Function, a: &Kernel, b: &Kernel) -> bool {
    let (ra, wa) = arrays_of(f, a);
    let (rb, wb) = arrays_of(f, b);
    let conflicting: BTreeSet<LocalId> = wa
        .intersection(&rb.union(&wb).copied().collect())
        .chain(wb.intersection(&ra))
        .copied()
        .collect();
    if conflicting.is_empty() {
        return true;
    }
    let renamed: Vec<(LocalId, LocalId)> = b
        .levels
        .iter()
        .zip(&a.levels)
        .map(|(y, x)| (y.var, x.var))
        .collect();
    let mut accesses = accesses_of(f, a);
    accesses.extend(accesses_of(f, b).into_iter().map(|mut acc| {
        for s in acc.subscripts.iter_mut().flatten() {
            for &(from, to) in &renamed {
                if let Some(c) = s.vars.remove(&from) {
                    s.vars.insert(to, c);
                }
            }
        }
        acc
    }));
    let vars: Vec<LocalId> = a.levels.iter().map(|l| l.var).collect();
    conflicting.iter().all(|&array| {
        let mut of_array = accesses.iter().filter(|x| x.array == array);
        let Some(first) = of_array.next() else {
            return true;
        };
        one_element_per_iteration(first, &vars)
            && of_array.all(|x| x.subscripts == first.subscripts)
    })
}

fn arrays_of(f: &Function, k: &Kernel) -> (BTreeSet<LocalId>, BTreeSet<LocalId>) {
    let (mut read, mut written) = (BTreeSet::new(), BTreeSet::new());
    for body in k.outer_bodies(f) {
        let (r, w) = scalars::arrays_used(f, body);
        read.extend(r);
        written.extend(w);
    }
    (read, written)
}

/// The accesses of every loop of `k`, with affine subscripts in its level variables.
fn accesses_of(f: &Function, k: &Kernel) -> Vec<Access> {
    let vars: BTreeSet<LocalId> = k.all_levels().map(|l| l.var).collect();
    k.outer_bodies(f)
        .into_iter()
        .flat_map(|body| access::collect(f, body, &vars, &[]))
        .collect()
}

/// Every subscript is affine in at most one level variable, and every level variable appears:
/// distinct iterations touch distinct elements.
fn one_element_per_iteration(x: &Access, vars: &[LocalId]) -> bool {
    let Some(subs) = x
        .subscripts
        .iter()
        .map(Option::as_ref)
        .collect::<Option<Vec<_>>>()
    else {
        return false;
    };
    let each_single = subs
        .iter()
        .all(|s| vars.iter().filter(|v| s.coeff(**v) != 0).count() <= 1);
    let all_present = vars.iter().all(|v| subs.iter().any(|s| s.coeff(*v) != 0));
    each_single && all_present && subs.iter().all(|s| s.vars.keys().all(|v| vars.contains(v)))
}

/// `b` joins `a`.
fn absorb(a: &mut Kernel, b: Kernel) {
    let mut arrays: Vec<ArrayUse> = a.arrays.clone();
    for u in &b.arrays {
        match arrays.iter_mut().find(|x| x.local == u.local) {
            Some(x) => {
                x.read |= u.read;
                x.written |= u.written;
            }
            None => arrays.push(*u),
        }
    }
    arrays.sort_by_key(|x| x.local);
    a.arrays = arrays;
    let claimed: BTreeSet<LocalId> = a
        .all_levels()
        .chain(b.all_levels())
        .map(|l| l.var)
        .chain(a.privates.iter().chain(&b.privates).copied())
        .chain(
            a.reductions
                .iter()
                .chain(&b.reductions)
                .flat_map(Reduction::locals),
        )
        .collect();
    let inputs: BTreeSet<LocalId> = a.inputs.iter().chain(&b.inputs).copied().collect();
    a.inputs = inputs.difference(&claimed).copied().collect();
    for p in b.privates {
        if !a.privates.contains(&p) {
            a.privates.push(p);
        }
    }
    a.live_out.extend(b.live_out);
    a.reductions.extend(b.reductions);
    a.fused.push(b.levels);
}
