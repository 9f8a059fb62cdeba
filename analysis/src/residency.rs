//! Where arrays live in the GPU host program: which arrays have a device copy, and the host
//! statements that touch them, the only places besides the call's start and end where an
//! array may cross between host and device (`codegen::residency` prints the bookkeeping; the
//! report lists the crossings, so a user sees each transfer that remains and why).
//!
//! Invariants: an array has a device copy exactly when some kernel uses it and it is not in
//! constant memory; every statement the host program runs (not inside a kernel) that reads or
//! writes such an array has a [`Site`], and so does every kernel whose ranges read one; a
//! statement inside a kernel has none.

use std::collections::{BTreeMap, BTreeSet};

use m2cu_frontend::ir::{Block, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind};

use crate::constant::ConstantPlacement;
use crate::plan::KernelPlan;

/// The device arrays and the host statements that touch them.
#[derive(Clone, Debug, Default)]
pub struct Residency {
    /// The arrays some kernel uses, except those in constant memory.
    pub device: BTreeSet<LocalId>,
    /// The host statements (and kernel launches) that touch device arrays, by statement.
    pub sites: BTreeMap<StmtId, Site>,
}

/// What one host statement does to device arrays.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Site {
    /// The arrays whose host copy must be current before it runs: it reads them, or writes
    /// some of their elements and keeps the others.
    pub to_host: BTreeSet<LocalId>,
    /// The array it writes on the host, whose device copy is stale afterwards.
    pub written: Option<LocalId>,
    /// `x = y` between two real device arrays: made on the device while `y`'s device copy is
    /// current, so nothing crosses.
    pub device_copy: Option<(LocalId, LocalId)>,
    /// Whether a host loop around the statement repeats it.
    pub in_loop: bool,
}

impl Residency {
    /// The residency of `f`'s host program under `plan`.
    pub fn of(f: &Function, plan: &KernelPlan, constants: &ConstantPlacement) -> Residency {
        let device: BTreeSet<LocalId> = plan
            .kernels
            .iter()
            .flat_map(|k| k.arrays.iter().map(|a| a.local))
            .filter(|&a| !constants.contains(a))
            .collect();
        let mut residency = Residency {
            device,
            sites: BTreeMap::new(),
        };
        if !residency.device.is_empty() {
            residency.visit(f, plan, &f.body, false);
        }
        residency
    }

    /// The site of statement `s`, if it touches device arrays on the host.
    pub fn site(&self, s: StmtId) -> Option<&Site> {
        self.sites.get(&s)
    }

    fn visit(&mut self, f: &Function, plan: &KernelPlan, block: &Block, in_loop: bool) {
        for &s in &block.0 {
            if let Some(kernel) = plan.kernel_of(s) {
                let ranges: Vec<ExprId> = kernel
                    .levels
                    .iter()
                    .flat_map(|l| f.stmt_exprs(l.stmt))
                    .collect();
                self.add(s, self.reads(f, &ranges), None, None, in_loop);
                continue;
            }
            if plan.fused_into(s).is_some() {
                continue;
            }
            self.statement(f, s, in_loop);
            match &f.stmts[s].kind {
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                    self.visit(f, plan, body, true)
                }
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.visit(f, plan, then_body, in_loop);
                    self.visit(f, plan, else_body, in_loop);
                }
                _ => {}
            }
        }
    }

    /// The site of host statement `s` itself (a loop's or branch's own expressions).
    fn statement(&mut self, f: &Function, s: StmtId, in_loop: bool) {
        if let Some(copy) = self.device_copy(f, s) {
            return self.add(s, BTreeSet::new(), None, Some(copy), in_loop);
        }
        let kind = &f.stmts[s].kind;
        let written = match kind {
            StmtKind::Store { array, .. } | StmtKind::Resize { array, .. } => Some(*array),
            StmtKind::Alloc { target, .. } => Some(*target),
            StmtKind::Assign { target, .. } if !f.locals[*target].ty.is_scalar() => Some(*target),
            _ => None,
        };
        let exprs = match kind {
            StmtKind::If { .. } => chain_conds(f, s),
            _ => f.stmt_exprs(s),
        };
        let mut to_host = self.reads(f, &exprs);
        // A partial write keeps the other elements: they must be current on the host.
        if let StmtKind::Store { array, .. } | StmtKind::Resize { array, .. } = kind {
            if self.device.contains(array) {
                to_host.insert(*array);
            }
        }
        let written = written.filter(|w| self.device.contains(w));
        // A `while` loop tests its condition again after each pass of its body.
        let repeats = in_loop || matches!(kind, StmtKind::While { .. });
        self.add(s, to_host, written, None, repeats);
    }

    fn add(
        &mut self,
        s: StmtId,
        to_host: BTreeSet<LocalId>,
        written: Option<LocalId>,
        device_copy: Option<(LocalId, LocalId)>,
        in_loop: bool,
    ) {
        if !to_host.is_empty() || written.is_some() || device_copy.is_some() {
            let site = Site {
                to_host,
                written,
                device_copy,
                in_loop,
            };
            self.sites.insert(s, site);
        }
    }

    /// The device arrays whose elements `exprs` read (element reads and whole-array values; a
    /// size query reads only the extents, which always live on the host).
    fn reads(&self, f: &Function, exprs: &[ExprId]) -> BTreeSet<LocalId> {
        let mut out = BTreeSet::new();
        for &e in exprs {
            f.walk_expr(e, &mut |x| match f.exprs[x].kind {
                ExprKind::Index(a, _) => {
                    out.insert(a);
                }
                ExprKind::Local(l) if !f.locals[l].ty.is_scalar() => {
                    out.insert(l);
                }
                _ => {}
            });
        }
        out.retain(|a| self.device.contains(a));
        out
    }

    /// `x = y` when both are real device arrays.
    fn device_copy(&self, f: &Function, s: StmtId) -> Option<(LocalId, LocalId)> {
        let StmtKind::Assign { target, value } = &f.stmts[s].kind else {
            return None;
        };
        let ExprKind::Local(source) = f.exprs[*value].kind else {
            return None;
        };
        let real = |a: LocalId| {
            self.device.contains(&a) && !f.locals[a].ty.complex && !f.locals[a].ty.is_scalar()
        };
        (real(*target) && real(source)).then_some((*target, source))
    }
}

/// The conditions of an `if` / `elseif` chain.
pub fn chain_conds(f: &Function, s: StmtId) -> Vec<ExprId> {
    let mut conds = Vec::new();
    let mut cur = Some(s);
    while let Some(StmtKind::If {
        cond, else_body, ..
    }) = cur.map(|c| &f.stmts[c].kind)
    {
        conds.push(*cond);
        cur = match else_body.0.as_slice() {
            [only] => Some(*only),
            _ => None,
        };
    }
    conds
}
