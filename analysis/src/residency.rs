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

use m2cu_frontend::ir::PrintTo;
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

/// The most element reads of one array that one statement fetches one by one instead of
/// bringing the whole array to the host.
pub const MAX_ELEMENT_READS: usize = 4;

/// What one host statement does to device arrays.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Site {
    /// The arrays whose host copy must be current before it runs: it reads them, or writes
    /// some of their elements and keeps the others.
    pub to_host: BTreeSet<LocalId>,
    /// The arrays it only reads a few elements of (`if err(k) < tol`, Floyd–Warshall's
    /// `D(k, k)`), with those reads (`Index` expressions): each element comes to the host
    /// alone, and the array's host copy stays stale. Only where the statement runs once, or in
    /// a loop that launches kernels (which would make the whole array stale in every pass
    /// anyway), so a host loop over the elements never fetches them one by one.
    pub elements: BTreeMap<LocalId, Vec<ExprId>>,
    /// The array it writes on the host, whose device copy is stale afterwards.
    pub written: Option<LocalId>,
    /// The array it stores one element of (`u(1) = 0`, reading nothing of it whole), where
    /// elements may be fetched alone (see `elements`): while only the device copy is current,
    /// the element goes to the device alone and the device copy stays current.
    pub stored_element: Option<LocalId>,
    /// `x = y` between two real device arrays: made on the device while `y`'s device copy is
    /// current, so nothing crosses.
    pub device_copy: Option<(LocalId, LocalId)>,
    /// Whether that copy is a move: nothing reads `y`'s value after it (see
    /// [`crate::liveness`]) and `y` is no input, so `x` and `y` swap their storage (host and
    /// device) instead of copying.
    pub moves: bool,
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
            let top = Around {
                in_loop: false,
                launches: false,
            };
            residency.visit(f, plan, &f.body, top);
        }
        residency
    }

    /// The site of statement `s`, if it touches device arrays on the host.
    pub fn site(&self, s: StmtId) -> Option<&Site> {
        self.sites.get(&s)
    }

    fn visit(&mut self, f: &Function, plan: &KernelPlan, block: &Block, around: Around) {
        for &s in &block.0 {
            if let Some(kernel) = plan.kernel_of(s) {
                let ranges: Vec<ExprId> = kernel
                    .levels
                    .iter()
                    .flat_map(|l| f.stmt_exprs(l.stmt))
                    .collect();
                let (to_host, elements) = self.reads(f, &ranges, around.fetch_elements());
                self.add(
                    s,
                    Site {
                        to_host,
                        elements,
                        in_loop: around.in_loop,
                        ..Site::default()
                    },
                );
                continue;
            }
            if plan.fused_into(s).is_some() {
                continue;
            }
            self.statement(f, plan, s, around);
            match &f.stmts[s].kind {
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                    let inner = Around {
                        in_loop: true,
                        launches: launches(f, plan, body),
                    };
                    self.visit(f, plan, body, inner)
                }
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.visit(f, plan, then_body, around);
                    self.visit(f, plan, else_body, around);
                }
                _ => {}
            }
        }
    }

    /// The site of host statement `s` itself (a loop's or branch's own expressions).
    fn statement(&mut self, f: &Function, plan: &KernelPlan, s: StmtId, around: Around) {
        if let Some((x, y)) = self.device_copy(f, s) {
            let moves = crate::liveness::movable(f, x, y, s);
            let site = Site {
                device_copy: Some((x, y)),
                moves,
                in_loop: around.in_loop,
                ..Site::default()
            };
            return self.add(s, site);
        }
        let kind = &f.stmts[s].kind;
        let written = match kind {
            StmtKind::Store { array, .. }
            | StmtKind::Resize { array, .. }
            | StmtKind::Print {
                to: PrintTo::Append { row: array },
                ..
            } => Some(*array),
            StmtKind::Alloc { target, .. } => Some(*target),
            StmtKind::Assign { target, .. } if !f.locals[*target].ty.is_scalar() => Some(*target),
            _ => None,
        };
        let exprs = match kind {
            StmtKind::If { .. } => chain_conds(f, s),
            _ => f.stmt_exprs(s),
        };
        // A `while` loop tests its condition again after each pass of its body.
        let own = match kind {
            StmtKind::While { body, .. } => Around {
                in_loop: true,
                launches: launches(f, plan, body),
            },
            _ => around,
        };
        let (mut to_host, mut elements) = self.reads(f, &exprs, own.fetch_elements());
        let mut written = written.filter(|w| self.device.contains(w));
        let mut stored_element = None;
        match kind {
            StmtKind::Store { array, .. }
                if own.fetch_elements() && written.is_some() && !to_host.contains(array) =>
            {
                stored_element = written.take();
            }
            // A partial write keeps the other elements: they must be current on the host.
            StmtKind::Store { array, .. } | StmtKind::Resize { array, .. }
                if self.device.contains(array) =>
            {
                elements.remove(array);
                to_host.insert(*array);
            }
            _ => {}
        }
        let site = Site {
            to_host,
            elements,
            written,
            stored_element,
            device_copy: None,
            moves: false,
            in_loop: own.in_loop,
        };
        self.add(s, site);
    }

    fn add(&mut self, s: StmtId, site: Site) {
        if !site.to_host.is_empty()
            || !site.elements.is_empty()
            || site.written.is_some()
            || site.stored_element.is_some()
            || site.device_copy.is_some()
        {
            self.sites.insert(s, site);
        }
    }

    /// The device arrays whose elements `exprs` read (element reads and whole-array values; a
    /// size query reads only the extents, which always live on the host): those to bring to
    /// the host whole, and those whose element reads may be fetched alone (when `fetch`, no
    /// read is of the whole array, there are at most [`MAX_ELEMENT_READS`], and their
    /// subscripts read no device array).
    fn reads(
        &self,
        f: &Function,
        exprs: &[ExprId],
        fetch: bool,
    ) -> (BTreeSet<LocalId>, BTreeMap<LocalId, Vec<ExprId>>) {
        let mut whole = BTreeSet::new();
        let mut elements: BTreeMap<LocalId, Vec<ExprId>> = BTreeMap::new();
        for &e in exprs {
            f.walk_expr(e, &mut |x| match &f.exprs[x].kind {
                ExprKind::Index(a, indices) if self.device.contains(a) => {
                    elements.entry(*a).or_default().push(x);
                    if !fetch || !indices.iter().all(|&i| self.reads_no_device_array(f, i)) {
                        whole.insert(*a);
                    }
                }
                ExprKind::Local(l) if self.device.contains(l) => {
                    whole.insert(*l);
                }
                _ => {}
            });
        }
        elements.retain(|a, reads| {
            let alone = !whole.contains(a) && reads.len() <= MAX_ELEMENT_READS;
            if !alone {
                whole.insert(*a);
            }
            alone
        });
        (whole, elements)
    }

    fn reads_no_device_array(&self, f: &Function, e: ExprId) -> bool {
        let mut none = true;
        f.walk_expr(e, &mut |x| {
            if let Some(l) = f.exprs[x].kind.named_local() {
                none &= !self.device.contains(&l) || matches!(f.exprs[x].kind, ExprKind::Size(..));
            }
        });
        none
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

/// The host loop around a statement.
#[derive(Clone, Copy)]
struct Around {
    /// Whether a host loop repeats the statement.
    in_loop: bool,
    /// Whether the innermost such loop launches a kernel (which may make a device array's host
    /// copy stale in every pass).
    launches: bool,
}

impl Around {
    /// Whether the statement's element reads may be fetched one by one: it runs once, or a
    /// kernel in the same loop makes the whole array stale in every pass anyway.
    fn fetch_elements(self) -> bool {
        !self.in_loop || self.launches
    }
}

/// Whether `body` launches a kernel (a kernel's loop lies in it).
fn launches(f: &Function, plan: &KernelPlan, body: &Block) -> bool {
    let mut found = false;
    f.walk_stmts(body, &mut |s| found |= plan.kernel_of(s).is_some());
    found
}

/// The conditions of an `if` / `elseif` chain.
fn chain_conds(f: &Function, s: StmtId) -> Vec<ExprId> {
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
