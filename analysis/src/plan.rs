//! Kernel planning: which loops become GPU kernels, and what each kernel needs.
//!
//! Rule: an outermost parallel or reduction loop (one not nested inside another kernel) becomes
//! a kernel; loops inside it run within one thread; loops around it stay on the host and launch
//! it. The loop's iterations are numbered `t = 0 .. count-1` and spread over a grid-stride loop.
//!
//! Invariant: kernels are numbered in source order and named `<function>_kernel<k>`, k from 1.

use std::collections::BTreeSet;

use m2cu_frontend::ir::{Block, Function, LocalId, StmtId, StmtKind};

use crate::loops::{loop_body, LoopId, LoopTree};
use crate::reduction::Reduction;
use crate::scalars;
use crate::scatter::{self, AtomicUpdate};
use crate::verdict::Verdict;

/// How a kernel uses one array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayUse {
    pub local: LocalId,
    pub read: bool,
    pub written: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub loop_id: LoopId,
    pub stmt: StmtId,
    pub var: LocalId,
    pub arrays: Vec<ArrayUse>,
    /// Scalars defined outside the loop and only read inside: passed by value.
    pub inputs: Vec<LocalId>,
    /// Per-thread scalars, including the variables of inner loops.
    pub privates: Vec<LocalId>,
    /// Privates whose last-iteration value is copied back.
    pub live_out: Vec<LocalId>,
    pub reductions: Vec<Reduction>,
    /// Scatter-add statements of histogram arrays, which run as atomic updates.
    pub atomic_updates: Vec<AtomicUpdate>,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelPlan {
    pub kernels: Vec<Kernel>,
}

impl KernelPlan {
    /// The kernel a loop statement became, if any.
    pub fn kernel_of(&self, stmt: StmtId) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.stmt == stmt)
    }

    /// The atomic update a store statement is, if a kernel made it one.
    pub fn atomic_update(&self, stmt: StmtId) -> Option<&AtomicUpdate> {
        self.kernels
            .iter()
            .flat_map(|k| &k.atomic_updates)
            .find(|u| u.stmt == stmt)
    }
}

/// Plans the kernels of `f`.
pub fn plan(f: &Function, tree: &LoopTree, verdicts: &[Verdict]) -> KernelPlan {
    let mut kernels: Vec<Kernel> = Vec::new();
    for (id, info) in tree.loops.iter().enumerate() {
        let inside_kernel = kernels.iter().any(|k| tree.is_within(id, k.loop_id));
        let (Some(var), false) = (info.var, inside_kernel) else {
            continue;
        };
        let Some(privates) = verdicts[id].privates() else {
            continue;
        };
        let name = format!("{}_kernel{}", f.name, kernels.len() + 1);
        kernels.push(kernel(
            f,
            name,
            id,
            info.stmt,
            var,
            privates,
            verdicts[id].reductions(),
        ));
    }
    KernelPlan { kernels }
}

fn kernel(
    f: &Function,
    name: String,
    loop_id: LoopId,
    stmt: StmtId,
    var: LocalId,
    privates: &crate::verdict::Privates,
    reductions: &[Reduction],
) -> Kernel {
    let body = loop_body(f, stmt);
    let (read, written) = scalars::arrays_used(f, body);
    let arrays = read
        .union(&written)
        .map(|&local| ArrayUse {
            local,
            read: read.contains(&local),
            written: written.contains(&local),
        })
        .collect();
    let claimed: BTreeSet<LocalId> = reductions
        .iter()
        .flat_map(Reduction::locals)
        .chain(privates.all.iter().copied())
        .chain([var])
        .collect();
    let inputs = scalars::scalars_read(f, body)
        .into_iter()
        .filter(|l| !claimed.contains(l))
        .collect();
    Kernel {
        name,
        loop_id,
        stmt,
        var,
        arrays,
        inputs,
        privates: privates.all.clone(),
        live_out: privates.live_out.clone(),
        reductions: reductions.to_vec(),
        atomic_updates: atomic_updates(f, body, &privates.histograms),
    }
}

/// The scatter-adds of the histogram arrays in `body`.
fn atomic_updates(f: &Function, body: &Block, histograms: &[LocalId]) -> Vec<AtomicUpdate> {
    let mut out = Vec::new();
    f.walk_stmts(body, &mut |s| {
        if let StmtKind::Store { array, .. } = &f.stmts[s].kind {
            if histograms.contains(array) {
                out.extend(scatter::update_of(f, s));
            }
        }
    });
    out
}
