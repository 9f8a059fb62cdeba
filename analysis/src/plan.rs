//! Kernel planning: which loops become GPU kernels, and what each kernel needs.
//!
//! Rule: an outermost parallel or reduction loop (one not nested inside another kernel) becomes
//! a kernel; loops inside it run within one thread; loops around it stay on the host and launch
//! it. The loop's iterations are numbered `t = 0 .. count-1` and spread over a grid-stride loop.
//!
//! Perfect nests collapse: while the kernel's innermost level has a body that is exactly one
//! `for` loop, that loop is parallel too (no histograms or inductions; any reductions are the
//! kernel's own), and its range does not change inside the nest, it joins the kernel as another
//! level. The
//! iteration number `t` then counts the whole rectangular iteration space in mixed radix, and
//! [`Kernel::order`] says which level varies fastest: the level whose variable indexes the
//! first (column-major, contiguous) subscript of the most accesses (writes count twice), so that
//! neighbouring threads touch neighbouring elements. The other levels keep source order (inner faster). A kernel with
//! a location reduction keeps source order throughout, because its tie rule compares `t`.
//!
//! A scan loop (see [`crate::scan`]) is a kernel of its own level only: it never collapses,
//! never joins another kernel's nest as a level, and is never fused; its running value goes in
//! by value and comes back as a live-out.
//!
//! Invariant: kernels are numbered in source order and named `<function>_kernel<k>`, k from 1.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use m2cu_frontend::ir::{Block, Function, LocalId, PrintTo, StmtId, StmtKind};

use crate::access;
use crate::fusion;
use crate::induction::Induction;
use crate::loops::{loop_body, LoopId, LoopTree, PerLoop};
use crate::per_output::{self, PerOutput};
use crate::reduction::Reduction;
use crate::scalars;
use crate::scan::Scan;
use crate::scatter::{self, AtomicUpdate};
use crate::scratch::ScratchArray;
use crate::verdict::Verdict;

/// How a kernel uses one array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrayUse {
    pub local: LocalId,
    pub read: bool,
    pub written: bool,
}

/// One loop of a kernel's (collapsed) iteration space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub loop_id: LoopId,
    pub stmt: StmtId,
    pub var: LocalId,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    pub name: String,
    pub loop_id: LoopId,
    pub stmt: StmtId,
    pub var: LocalId,
    /// The collapsed loops, outermost first; the first is the kernel's own loop (`stmt`, `var`).
    pub levels: Vec<Level>,
    /// Indices into `levels` from the fastest-varying digit of `t` to the slowest.
    pub order: Vec<usize>,
    /// Later loops fused into this kernel (see [`crate::fusion`]), each with its levels, which
    /// match `levels` one for one.
    pub fused: Vec<Vec<Level>>,
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
    /// Induction variables: passed in with their value before the loop, computed per iteration
    /// from the closed form, and advanced by the host after the loop.
    pub inductions: Vec<Induction>,
    /// The reduction loop inside each iteration that a warp or block may share per output
    /// (see [`crate::per_output`]).
    pub per_output: Option<PerOutput>,
    /// The running value of a scan loop (see [`crate::scan`]): a single level, never fused,
    /// whose running value is an input (its value before the loop) and live out (the total).
    pub scan: Option<Scan>,
    /// Arrays each thread owns a copy of (see [`crate::scratch`]); not in `arrays`.
    pub scratch: Vec<ScratchArray>,
    /// Whether an iteration may raise `error`: MATLAB reports the first failing iteration in
    /// loop order, so the iteration number `t` follows loop order (collapsed levels keep source
    /// order), and the kernel is neither fused nor split per output (`m2cu_codegen::raise`).
    pub raises: bool,
}

impl Kernel {
    /// The statements each iteration runs: the body of the innermost level of each loop of the
    /// kernel (one loop, unless others were fused into it), in source order.
    pub fn bodies<'f>(&self, f: &'f Function) -> Vec<&'f Block> {
        self.loops()
            .map(|levels| loop_body(f, levels[levels.len() - 1].stmt))
            .collect()
    }

    /// The bodies of the outermost level of each loop of the kernel.
    pub fn outer_bodies<'f>(&self, f: &'f Function) -> Vec<&'f Block> {
        self.loops()
            .map(|levels| loop_body(f, levels[0].stmt))
            .collect()
    }

    /// The levels of each loop of the kernel: its own, then the fused ones.
    pub fn loops(&self) -> impl Iterator<Item = &[Level]> {
        std::iter::once(self.levels.as_slice()).chain(self.fused.iter().map(Vec::as_slice))
    }

    /// Every level of every loop of the kernel.
    pub fn all_levels(&self) -> impl Iterator<Item = &Level> {
        self.loops().flatten()
    }

    /// The loop statement that comes last in source order.
    pub fn last_stmt(&self) -> StmtId {
        self.fused.last().map_or(self.stmt, |levels| levels[0].stmt)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelPlan {
    pub kernels: Vec<Kernel>,
    /// Parallel and reduction loops that run on the host although they could be kernels, with
    /// their number of iterations: too few to pay for a launch (see [`HOST_ITERATIONS`]).
    pub on_host: BTreeMap<LoopId, u64>,
    /// Which kernel each statement and loop belongs to, built once with the plan.
    index: PlanIndex,
}

/// Positions in [`KernelPlan::kernels`], keyed by what the code generators ask about.
#[derive(Clone, Debug, Default, PartialEq)]
struct PlanIndex {
    /// The loop statement each kernel is.
    kernel_of: HashMap<StmtId, usize>,
    /// The loop statements fused into a kernel before them.
    fused_into: HashMap<StmtId, usize>,
    /// Every loop of a kernel's iteration space: its own, collapsed and fused ones.
    spanning: HashMap<LoopId, usize>,
    /// The store statements a kernel turned into atomic updates: the kernel and the update.
    atomic: HashMap<StmtId, (usize, usize)>,
}

impl PlanIndex {
    fn new(kernels: &[Kernel]) -> PlanIndex {
        let mut index = PlanIndex::default();
        for (k, kernel) in kernels.iter().enumerate() {
            index.kernel_of.entry(kernel.stmt).or_insert(k);
            for levels in &kernel.fused {
                index.fused_into.entry(levels[0].stmt).or_insert(k);
            }
            for level in kernel.all_levels() {
                index.spanning.entry(level.loop_id).or_insert(k);
            }
            for (u, update) in kernel.atomic_updates.iter().enumerate() {
                index.atomic.entry(update.stmt).or_insert((k, u));
            }
        }
        index
    }
}

impl KernelPlan {
    /// The plan of `kernels`, indexed, with the loops kept `on_host`.
    pub fn new(kernels: Vec<Kernel>, on_host: BTreeMap<LoopId, u64>) -> KernelPlan {
        let index = PlanIndex::new(&kernels);
        KernelPlan {
            kernels,
            on_host,
            index,
        }
    }

    /// The kernel a loop statement became, if any.
    pub fn kernel_of(&self, stmt: StmtId) -> Option<&Kernel> {
        self.index.kernel_of.get(&stmt).map(|&k| &self.kernels[k])
    }

    /// The kernel whose iteration space a loop is part of (its own loop, a collapsed one, or
    /// a fused one).
    pub fn kernel_spanning(&self, loop_id: LoopId) -> Option<&Kernel> {
        self.index.spanning.get(&loop_id).map(|&k| &self.kernels[k])
    }

    /// The kernel a loop statement was fused into, if it was.
    pub fn fused_into(&self, stmt: StmtId) -> Option<&Kernel> {
        self.index.fused_into.get(&stmt).map(|&k| &self.kernels[k])
    }

    /// The atomic update a store statement is, if a kernel made it one.
    pub fn atomic_update(&self, stmt: StmtId) -> Option<&AtomicUpdate> {
        let &(k, u) = self.index.atomic.get(&stmt)?;
        Some(&self.kernels[k].atomic_updates[u])
    }
}

/// A loop nest whose number of iterations is known when m2cu translates and at most this runs
/// on the host (the thread of the enclosing kernel, or the host program): `min([a b c])` in a
/// dynamic-programming loop, a loop over three colour channels around loops over pixels. A
/// launch costs microseconds, and a kernel of a few threads leaves the GPU idle.
pub const HOST_ITERATIONS: u64 = 32;

/// Plans the kernels of `f`.
pub fn plan(f: &Function, tree: &LoopTree, verdicts: &PerLoop<Verdict>) -> KernelPlan {
    let mut kernels: Vec<Kernel> = Vec::new();
    let mut on_host = BTreeMap::new();
    for (id, info) in tree.loops.iter() {
        let inside_kernel = kernels.iter().any(|k| tree.is_within(id, k.loop_id));
        let (Some(var), false) = (info.var, inside_kernel) else {
            continue;
        };
        let Some(privates) = verdicts[id].privates() else {
            continue;
        };
        let outer = Level {
            loop_id: id,
            stmt: info.stmt,
            var,
        };
        let scan = verdicts[id].scan();
        let levels = match scan {
            Some(_) => vec![outer],
            None => collapse(f, tree, verdicts, outer),
        };
        if let Some(n) = known_iterations(f, &levels).filter(|&n| n <= HOST_ITERATIONS) {
            on_host.insert(id, n);
            continue;
        }
        let mut kernel = kernel(f, levels, privates, verdicts[id].reductions());
        if let Some(scan) = scan {
            kernel.live_out.push(scan.var);
            kernel.scan = Some(scan.clone());
        }
        kernels.push(kernel);
    }
    let mut kernels = fusion::fuse(f, kernels);
    for (k, kernel) in kernels.iter_mut().enumerate() {
        kernel.name = format!("{}_kernel{}", f.name, k + 1);
        // A thread's scratch copies would be shared by a warp or block per output.
        kernel.per_output = match kernel.scratch.is_empty() {
            true => per_output::find(f, tree, verdicts, kernel),
            false => None,
        };
    }
    KernelPlan::new(kernels, on_host)
}

/// The number of iterations of a nest whose ranges are known when m2cu translates: constants,
/// and extents of arrays whose type fixes them (`min([a b c])` loops over a 1-by-3 temporary),
/// other than inputs.
fn known_iterations(f: &Function, levels: &[Level]) -> Option<u64> {
    levels.iter().try_fold(1u64, |total, level| {
        let StmtKind::For {
            start, step, stop, ..
        } = &f.stmts[level.stmt].kind
        else {
            return None;
        };
        let (first, last) = (known_value(f, *start)?, known_value(f, *stop)?);
        let count = match step.map_or(Some(1), |e| known_value(f, e))? {
            s if s > 0 && last >= first => (last - first) / s + 1,
            s if s < 0 && last <= first => (first - last) / -s + 1,
            _ => 0,
        };
        total.checked_mul(u64::try_from(count).ok()?)
    })
}

/// The integer value of `e` when m2cu knows it: constants, fixed extents and their sums,
/// differences and products.
fn known_value(f: &Function, e: m2cu_frontend::ir::ExprId) -> Option<i64> {
    use m2cu_frontend::ir::{BinOp, ExprKind, SizeQuery, UnOp};
    use m2cu_frontend::types::Dim;
    let known = |d: Dim| match d {
        Dim::Known(n) => i64::try_from(n).ok(),
        _ => None,
    };
    match &f.exprs[e].kind {
        ExprKind::Const(v) if v.fract() == 0.0 && v.abs() < 1e15 => Some(*v as i64),
        // An input's declared extents describe the inputs it was translated for, not the
        // program: an `arguments` block of a test often fixes small ones.
        ExprKind::Size(a, _) if f.params.contains(a) => None,
        ExprKind::Size(a, q) => {
            let shape = f.locals[*a].ty.shape;
            match q {
                SizeQuery::Dim(1) => known(shape.rows),
                SizeQuery::Dim(2) => known(shape.cols),
                SizeQuery::Dim(3) => known(shape.pages),
                SizeQuery::Numel => known(shape.rows)?
                    .checked_mul(known(shape.cols)?)?
                    .checked_mul(known(shape.pages)?),
                _ => None,
            }
        }
        ExprKind::Unary(UnOp::Neg, a) => known_value(f, *a)?.checked_neg(),
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub | BinOp::Mul), a, b) => {
            let (x, y) = (known_value(f, *a)?, known_value(f, *b)?);
            match op {
                BinOp::Add => x.checked_add(y),
                BinOp::Sub => x.checked_sub(y),
                _ => x.checked_mul(y),
            }
        }
        _ => None,
    }
}

/// The perfect nest that starts at `outer` and can run as one iteration space.
fn collapse(
    f: &Function,
    tree: &LoopTree,
    verdicts: &PerLoop<Verdict>,
    outer: Level,
) -> Vec<Level> {
    let mut levels = vec![outer];
    let mut nest = access::assigned_scalars(f, loop_body(f, outer.stmt));
    nest.insert(outer.var);
    let (_, nest_arrays) = scalars::arrays_used(f, loop_body(f, outer.stmt));
    let reshaped = reshaped_arrays(f, loop_body(f, outer.stmt));
    loop {
        let last = levels[levels.len() - 1];
        let [only] = loop_body(f, last.stmt).0[..] else {
            break;
        };
        let Some(inner) = tree.loop_at(only) else {
            break;
        };
        let (Some(var), Some(privates)) = (tree.loops[inner].var, verdicts[inner].privates())
        else {
            break;
        };
        let own = verdicts[outer.loop_id].reductions();
        let joins = privates.histograms.is_empty()
            && privates.inductions.is_empty()
            && verdicts[inner].scan().is_none()
            && verdicts[inner]
                .reductions()
                .iter()
                .all(|r| own.iter().any(|o| o.var == r.var && o.same_kind(r)))
            && f.stmt_exprs(only)
                .into_iter()
                .all(|e| invariant_with_extents(f, e, &nest, &nest_arrays, &reshaped));
        if !joins {
            break;
        }
        levels.push(Level {
            loop_id: inner,
            stmt: only,
            var,
        });
    }
    levels
}

/// Whether `e` has the same value throughout the nest whose assigned scalars are `nest` and
/// whose written arrays are `arrays`.
pub(crate) fn invariant(
    f: &Function,
    e: m2cu_frontend::ir::ExprId,
    nest: &BTreeSet<LocalId>,
    arrays: &BTreeSet<LocalId>,
) -> bool {
    invariant_with_extents(f, e, nest, arrays, arrays)
}

/// [`invariant`], knowing that only the arrays `reshaped` may change extents in the nest: a
/// store keeps an array's extents (growth is a `Resize` of its own), so `size(A, 1)` of an
/// array the nest only stores into is the same throughout (`for j = 1:size(A, 2), for i =
/// 1:size(A, 1), A(i, j) = ...` collapses into one 2-D kernel).
fn invariant_with_extents(
    f: &Function,
    e: m2cu_frontend::ir::ExprId,
    nest: &BTreeSet<LocalId>,
    written: &BTreeSet<LocalId>,
    reshaped: &BTreeSet<LocalId>,
) -> bool {
    use m2cu_frontend::ir::ExprKind;
    let mut ok = true;
    f.walk_expr(e, &mut |x| match f.exprs[x].kind {
        ExprKind::Size(a, _) => ok &= !reshaped.contains(&a),
        ref kind => {
            if let Some(l) = kind.named_local() {
                ok &= !nest.contains(&l) && !written.contains(&l);
            }
        }
    });
    ok
}

/// The arrays that `block` may give new extents: created, copied whole or resized there.
fn reshaped_arrays(f: &Function, block: &Block) -> BTreeSet<LocalId> {
    let mut out = BTreeSet::new();
    f.walk_stmts(block, &mut |s| match &f.stmts[s].kind {
        StmtKind::Alloc { target: a, .. }
        | StmtKind::Resize { array: a, .. }
        | StmtKind::Print {
            to: PrintTo::Append { row: a },
            ..
        } => {
            out.insert(*a);
        }
        StmtKind::Assign { target, .. } if !f.locals[*target].ty.is_scalar() => {
            out.insert(*target);
        }
        _ => {}
    });
    out
}

/// The order of `levels` from fastest to slowest: the level that indexes the contiguous
/// dimension most often first, then the others from innermost to outermost.
fn fastest_first(f: &Function, levels: &[Level], keep_source_order: bool) -> Vec<usize> {
    let source: Vec<usize> = (0..levels.len()).rev().collect();
    if keep_source_order || levels.len() == 1 {
        return source;
    }
    let vars: BTreeSet<LocalId> = levels.iter().map(|l| l.var).collect();
    let accesses = access::collect(f, loop_body(f, levels[levels.len() - 1].stmt), &vars, &[]);
    // Writes count twice: an uncoalesced store costs more than an uncoalesced load.
    let contiguous = |var: LocalId| -> usize {
        accesses
            .iter()
            .filter(|a| {
                a.subscripts
                    .first()
                    .and_then(|s| s.as_ref())
                    .is_some_and(|s| s.coeff(var).abs() == 1)
            })
            .map(|a| if a.is_write { 2 } else { 1 })
            .sum()
    };
    // max_by_key keeps the last maximum: iterate outermost first so that ties go to the inner.
    let best = (0..levels.len())
        .max_by_key(|&l| contiguous(levels[l].var))
        .unwrap_or(0);
    std::iter::once(best)
        .chain(source.into_iter().filter(|&l| l != best))
        .collect()
}

/// The kernel of one (collapsed) loop; it is named once fusion is done.
fn kernel(
    f: &Function,
    levels: Vec<Level>,
    privates: &crate::verdict::Privates,
    reductions: &[Reduction],
) -> Kernel {
    let Level { loop_id, stmt, var } = levels[0];
    let body = loop_body(f, levels[levels.len() - 1].stmt);
    let (read, written) = scalars::arrays_used(f, body);
    let scratch = &privates.scratch;
    let arrays = read
        .union(&written)
        .filter(|&&local| !scratch.iter().any(|a| a.local == local))
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
        .chain(privates.inductions.iter().map(|ind| ind.var))
        .chain(levels.iter().map(|l| l.var))
        .collect();
    let inputs = scalars::scalars_read(f, body)
        .into_iter()
        .filter(|l| !claimed.contains(l))
        .collect();
    let located = reductions.iter().any(|r| r.locals().len() > 1);
    let raises = raises(f, body);
    let order = fastest_first(f, &levels, located || raises);
    let level_vars: Vec<LocalId> = levels.iter().map(|l| l.var).collect();
    Kernel {
        name: String::new(),
        loop_id,
        stmt,
        var,
        levels,
        order,
        fused: Vec::new(),
        arrays,
        inputs,
        privates: privates
            .all
            .iter()
            .copied()
            .filter(|p| !level_vars.contains(p))
            .collect(),
        live_out: privates.live_out.clone(),
        reductions: reductions.to_vec(),
        atomic_updates: atomic_updates(f, body, &privates.histograms),
        inductions: privates.inductions.clone(),
        per_output: None,
        scan: None,
        scratch: scratch.clone(),
        raises,
    }
}

/// Whether `body` contains an `error` (or a failing `assert`).
fn raises(f: &Function, body: &Block) -> bool {
    let mut found = false;
    f.walk_stmts(body, &mut |s| {
        found |= matches!(
            f.stmts[s].kind,
            StmtKind::Print {
                to: PrintTo::Error { .. },
                ..
            }
        );
    });
    found
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
