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
//!   (their closed forms count the iterations of one loop);
//! - neither loop raises `error` (fused, the second loop's iteration `t` would run before the
//!   first loop's later iterations, and its error could be reported instead of theirs);
//! - neither loop has scratch arrays (each kernel declares its own threads' copies).
//!
//! Invariant: a fused kernel's `fused` loops have the same number of levels, level ranges and
//! level order as its own loop.

use std::collections::BTreeSet;

use m2cu_frontend::ir::{Block, ExprId, Function, LocalId, StmtId, StmtKind};

use crate::access::{self, Access};
use crate::plan::{self, ArrayUse, Kernel};
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
    if a.levels.len() != b.levels.len()
        || a.order != b.order
        || !a.atomic_updates.is_empty()
        || !b.atomic_updates.is_empty()
        || !a.inductions.is_empty()
        || !b.inductions.is_empty()
        || a.raises
        || b.raises
        || a.scan.is_some()
        || b.scan.is_some()
        || !a.scratch.is_empty()
        || !b.scratch.is_empty()
    {
        return false;
    }
    let (fa, fb) = (Footprint::of(f, a), Footprint::of(f, b));
    same_ranges(f, a, b, &fa) && scalars_apart(a, b, &fa, &fb) && arrays_aligned(f, a, b, &fa, &fb)
}

/// What a kernel's loops read and write.
pub(crate) struct Footprint {
    /// Scalars assigned, level variables included.
    pub(crate) scalars_written: BTreeSet<LocalId>,
    /// Scalars read or assigned.
    pub(crate) scalars_mentioned: BTreeSet<LocalId>,
    pub(crate) arrays_read: BTreeSet<LocalId>,
    pub(crate) arrays_written: BTreeSet<LocalId>,
}

impl Footprint {
    pub(crate) fn of(f: &Function, k: &Kernel) -> Footprint {
        let mut out = Footprint {
            scalars_written: k.all_levels().map(|l| l.var).collect(),
            scalars_mentioned: BTreeSet::new(),
            arrays_read: BTreeSet::new(),
            arrays_written: BTreeSet::new(),
        };
        for body in k.outer_bodies(f) {
            out.scalars_written
                .extend(access::assigned_scalars(f, body));
            out.scalars_mentioned.extend(scalars::scalars_read(f, body));
            let (read, written) = scalars::arrays_used(f, body);
            out.arrays_read.extend(read);
            out.arrays_written.extend(written);
        }
        out.scalars_mentioned.extend(&out.scalars_written);
        out
    }
}

/// Same range expressions level by level, and `b`'s ranges read nothing `a` writes.
fn same_ranges(f: &Function, a: &Kernel, b: &Kernel, fa: &Footprint) -> bool {
    let same = |p: ExprId, q: ExprId| same_expr(f, p, q);
    a.levels.iter().zip(&b.levels).all(|(x, y)| {
        let (
            StmtKind::For {
                start: s1,
                step: st1,
                stop: e1,
                ..
            },
            StmtKind::For {
                start: s2,
                step: st2,
                stop: e2,
                ..
            },
        ) = (&f.stmts[x.stmt].kind, &f.stmts[y.stmt].kind)
        else {
            return false;
        };
        let steps = match (st1, st2) {
            (None, None) => true,
            (Some(p), Some(q)) => same(*p, *q),
            _ => false,
        };
        let untouched = f
            .stmt_exprs(y.stmt)
            .into_iter()
            .all(|e| plan::invariant(f, e, &fa.scalars_written, &fa.arrays_written));
        steps && same(*s1, *s2) && same(*e1, *e2) && untouched
    })
}

/// Scalars written by one kernel are not mentioned by the other, except a loop variable both
/// share at the same level.
fn scalars_apart(a: &Kernel, b: &Kernel, fa: &Footprint, fb: &Footprint) -> bool {
    let shared: BTreeSet<LocalId> = a
        .levels
        .iter()
        .zip(&b.levels)
        .filter(|(x, y)| x.var == y.var)
        .map(|(x, _)| x.var)
        .collect();
    let apart = |x: &Footprint, y: &Footprint| {
        x.scalars_written
            .intersection(&y.scalars_mentioned)
            .all(|l| shared.contains(l))
    };
    apart(fa, fb) && apart(fb, fa)
}

/// Every array written by one kernel and touched by the other is accessed through one
/// subscript that is the same in both (after renaming `b`'s level variables to `a`'s) and
/// names a distinct element per iteration.
fn arrays_aligned(f: &Function, a: &Kernel, b: &Kernel, fa: &Footprint, fb: &Footprint) -> bool {
    let touched_by_b: BTreeSet<LocalId> =
        fb.arrays_read.union(&fb.arrays_written).copied().collect();
    let conflicting: BTreeSet<LocalId> = fa
        .arrays_written
        .intersection(&touched_by_b)
        .chain(fb.arrays_written.intersection(&fa.arrays_read))
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
