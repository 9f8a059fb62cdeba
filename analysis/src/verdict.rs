//! The verdict of one loop: `parallel`, `reduction`, or `sequential` with the reason and a
//! witness (the variable and the accesses that prevent parallel execution).
//!
//! Rules, in order: a `while` loop is sequential; an early exit (`break` of this loop, `return`)
//! makes it sequential; so does a call that must run on the host (`fprintf`, `disp`, `warning`:
//! not `error`, which a parallel loop reports for its first failing iteration, see
//! `m2cu_codegen::raise`); so does allocating
//! or copying an array inside it; then every loop-carried array dependence (see [`crate::deps`])
//! is a witness; then every scalar written in the body must be a recognized reduction, an
//! induction variable (see [`crate::induction`]) or private (live-out privates must be assigned
//! in every iteration), or the one running value of a scan (see [`crate::scan`]: the loop is
//! then `scan`). Otherwise the loop is `reduction` when it has reductions and `parallel` when
//! not.

use std::collections::BTreeSet;

use m2cu_frontend::ir::{
    Block, Fill, Function, LocalId, LoopPragma, PrintPiece, PrintTo, StmtId, StmtKind,
};
use m2cu_frontend::Span;

use crate::induction::{self, Induction};
use crate::loops::{self, loop_body, LoopId, LoopTree};
use crate::reason::SequentialReason;
use crate::reduction::{self, Reduction};
use crate::scan::{self, Scan};
use crate::scratch::{self, ScratchArray};
use crate::{access, deps, scalars, scatter};

#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Parallel(Privates),
    Reduction(Privates, Vec<Reduction>),
    /// A running sum or product read in every iteration (see [`crate::scan`]); the loop is
    /// otherwise parallel.
    Scan(Privates, Scan),
    Sequential {
        reason: SequentialReason,
        witness: Option<Witness>,
    },
}

/// What each iteration owns: its copies of scalars, and the array elements it updates
/// atomically.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Privates {
    pub all: Vec<LocalId>,
    /// Privates whose value after the loop is needed: the last iteration's.
    pub live_out: Vec<LocalId>,
    /// Arrays that only scatter-adds (`h(b) = h(b) + e`) touch and that carry a dependence:
    /// their updates run atomically (a histogram reduction, see [`crate::scatter`]).
    pub histograms: Vec<LocalId>,
    /// The reason the loop would have stayed sequential, when `coder.gpu.kernel()` overrode it.
    pub overridden: Option<SequentialReason>,
    /// Induction variables (`k = k + c`): each iteration computes its own value from the closed
    /// form (see [`crate::induction`]), and the value after the loop is `k0 + c·n`.
    pub inductions: Vec<Induction>,
    /// Arrays each iteration creates before touching them (see [`crate::scratch`]): each
    /// thread owns a copy.
    pub scratch: Vec<ScratchArray>,
}

/// The evidence for a sequential verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct Witness {
    pub var: String,
    /// The write (or the statement) that prevents parallel execution.
    pub write: Span,
    /// The other access, if there is one.
    pub read: Option<Span>,
    /// Whether the other access is a write (an output dependence) rather than a read.
    pub read_is_write: bool,
    /// Iterations between the two accesses; `None` when unknown.
    pub distance: Option<i64>,
    /// The direction vector of an array dependence, `(=,<)` (see [`crate::deps`]).
    pub direction: Option<String>,
}

impl Witness {
    /// Evidence that is one place in the source (a statement, an assignment), with no second
    /// access.
    fn at(var: impl Into<String>, span: Span) -> Witness {
        Witness {
            var: var.into(),
            write: span,
            read: None,
            read_is_write: false,
            distance: None,
            direction: None,
        }
    }
}

impl Verdict {
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Parallel(p) if p.histograms.is_empty() => "parallel",
            Verdict::Parallel(_) | Verdict::Reduction(..) => "reduction",
            Verdict::Scan(..) => "scan",
            Verdict::Sequential { .. } => "sequential",
        }
    }

    /// Why the loop stays sequential (`None` unless it does).
    pub fn sequential_reason(&self) -> Option<&SequentialReason> {
        match self {
            Verdict::Sequential { reason, .. } => Some(reason),
            _ => None,
        }
    }

    /// What `coder.gpu.kernel()` overrode, if it forced this loop parallel.
    pub fn overridden(&self) -> Option<&SequentialReason> {
        self.privates().and_then(|p| p.overridden.as_ref())
    }

    /// The histogram arrays (empty unless parallel).
    pub fn histograms(&self) -> &[LocalId] {
        self.privates().map_or(&[], |p| &p.histograms)
    }

    pub fn is_parallel(&self) -> bool {
        !matches!(self, Verdict::Sequential { .. })
    }

    pub fn privates(&self) -> Option<&Privates> {
        match self {
            Verdict::Parallel(p) | Verdict::Reduction(p, _) | Verdict::Scan(p, _) => Some(p),
            Verdict::Sequential { .. } => None,
        }
    }

    /// The scan, if the loop is one.
    pub fn scan(&self) -> Option<&Scan> {
        match self {
            Verdict::Scan(_, scan) => Some(scan),
            _ => None,
        }
    }

    pub fn reductions(&self) -> &[Reduction] {
        match self {
            Verdict::Reduction(_, r) => r,
            _ => &[],
        }
    }
}

fn sequential(reason: SequentialReason, witness: Option<Witness>) -> Verdict {
    Verdict::Sequential { reason, witness }
}

/// Judges one loop.
pub fn judge(f: &Function, tree: &LoopTree, id: LoopId) -> Verdict {
    let info = &tree.loops[id];
    let Some(var) = info.var else {
        return sequential(SequentialReason::WhileLoop, None);
    };
    match f.pragma_of(info.stmt) {
        Some((LoopPragma::NoKernel, at)) => sequential(
            SequentialReason::NoKernelPragma,
            Some(Witness::at("coder.gpu.nokernel", at)),
        ),
        Some((LoopPragma::Kernel, _)) => forced(f, info.stmt, var, analyzed(f, tree, id, var)),
        None => analyzed(f, tree, id, var),
    }
}

/// The verdict from the loop's own dependences. A count with compaction stores
/// ([`scan::compaction`]) is tried as a scan first, the stores' writes unchecked; unless that
/// makes the loop its scan, the stores are checked like any other.
fn analyzed(f: &Function, tree: &LoopTree, id: LoopId, var: LocalId) -> Verdict {
    let body = loop_body(f, tree.loops[id].stmt);
    let compacted = access::assigned_scalars(f, body)
        .into_iter()
        .map(|s| (s, scan::compaction(f, body, var, s)))
        .find(|(_, stores)| !stores.is_empty());
    if let Some((s, stores)) = compacted {
        let verdict = analyzed_unchecking(f, tree, id, var, &stores);
        if verdict.scan().is_some_and(|scan| scan.var == s) {
            return verdict;
        }
    }
    analyzed_unchecking(f, tree, id, var, &BTreeSet::new())
}

/// The verdict from the loop's own dependences, the writes of `unchecked` left out of the
/// dependence tests.
fn analyzed_unchecking(
    f: &Function,
    tree: &LoopTree,
    id: LoopId,
    var: LocalId,
    unchecked: &BTreeSet<StmtId>,
) -> Verdict {
    let stmt = tree.loops[id].stmt;
    let body = loop_body(f, stmt);
    let scratch = match unforceable(f, stmt) {
        Ok(scratch) => scratch,
        Err(v) => return *v,
    };
    let inductions = induction::find(f, body);
    let range = loops::range(f, stmt, &access::assigned_scalars(f, body));
    let closed = induction::closed_forms(&inductions, var, &range);
    let mut unchecked = unchecked.clone();
    unchecked.extend(scratch::stores(f, body, &scratch));
    let histograms = match array_dependence(f, tree, id, &closed, &unchecked) {
        Ok(h) => h,
        Err(v) => return *v,
    };
    let scans = histograms.is_empty() && inductions.is_empty() && scratch.is_empty();
    let mut verdict = scalar_verdict(f, body, var, &inductions, scans);
    if let Verdict::Parallel(p) | Verdict::Reduction(p, _) = &mut verdict {
        p.histograms = histograms;
        p.inductions = inductions;
        p.scratch = scratch;
    }
    verdict
}

/// `coder.gpu.kernel()`: a loop kept sequential by a dependence runs in parallel anyway, its
/// scalars private (or reductions where recognized), and the overridden reason is kept for the
/// report. Early exits and arrays created inside the loop (other than scratch arrays) cannot be
/// forced.
fn forced(f: &Function, stmt: StmtId, var: LocalId, verdict: Verdict) -> Verdict {
    let Verdict::Sequential { reason, witness } = verdict else {
        return verdict;
    };
    let body = loop_body(f, stmt);
    let Ok(scratch) = unforceable(f, stmt) else {
        return Verdict::Sequential {
            reason: SequentialReason::Unforceable(Box::new(reason)),
            witness,
        };
    };
    let inductions = induction::find(f, body);
    let written: BTreeSet<LocalId> = access::assigned_scalars(f, body)
        .into_iter()
        .filter(|l| f.locals[*l].ty.is_scalar())
        .filter(|l| !inductions.iter().any(|ind| ind.var == *l))
        .collect();
    let mut reductions: Vec<Reduction> = Vec::new();
    let mut privates = Privates {
        overridden: Some(reason),
        inductions,
        scratch,
        ..Privates::default()
    };
    let carried = carried(&scalars::exposure(f, body), &written);
    for (_, recognized) in reduction::recognize_each(f, body, var, &carried) {
        reductions.extend(recognized.ok());
    }
    let reductions = reduction::pair_min_max(f, reductions);
    let live = scalars::live_after(f, body);
    for &s in &written {
        if reductions.iter().any(|r| r.locals().contains(&s)) {
            continue;
        }
        privates.all.push(s);
        if live.contains(&s) {
            privates.live_out.push(s);
        }
    }
    if reductions.is_empty() {
        Verdict::Parallel(privates)
    } else {
        Verdict::Reduction(privates, reductions)
    }
}

/// What keeps a loop sequential even under `coder.gpu.kernel()`: an early exit, a call that must
/// run on the host, or an array created inside the loop that is no scratch array. Else the
/// loop's scratch arrays.
fn unforceable(f: &Function, stmt: StmtId) -> Result<Vec<ScratchArray>, Box<Verdict>> {
    let body = loop_body(f, stmt);
    let stopped = early_exit(f, body)
        .or_else(|| host_call(f, body))
        .or_else(|| random_draw(f, body));
    if let Some(v) = stopped {
        return Err(Box::new(v));
    }
    scratch::find(f, stmt, body)
        .map_err(|(array, span, why)| Box::new(array_creation(f, array, span, why)))
}

/// A call that only the host can make, in program order (`fprintf`, `disp`, `warning`). `error`
/// is not one: a parallel loop records its smallest failing iteration and the host raises that
/// iteration's message after the loop (see `Kernel::raises`).
fn host_call(f: &Function, body: &Block) -> Option<Verdict> {
    let mut found = None;
    f.walk_stmts(body, &mut |s| {
        if let (None, StmtKind::Print { to, pieces }) = (&found, &f.stmts[s].kind) {
            let function = to.function();
            let reason = if !matches!(to, PrintTo::Error { .. }) {
                Some(SequentialReason::HostPrint { function })
            } else if pieces.iter().any(PrintPiece::reads_arrays) {
                Some(SequentialReason::ErrorFormatsText { function })
            } else {
                None
            };
            found = reason.map(|r| (r, function, f.stmts[s].span));
        }
    });
    found.map(|(reason, function, span)| sequential(reason, Some(Witness::at(function, span))))
}

fn early_exit(f: &Function, body: &Block) -> Option<Verdict> {
    let mut exit = None;
    find_exit(f, body, true, &mut exit);
    exit.map(|(word, span)| {
        sequential(
            SequentialReason::EarlyExit { word },
            Some(Witness::at(word, span)),
        )
    })
}

fn find_exit(
    f: &Function,
    block: &Block,
    own_level: bool,
    exit: &mut Option<(&'static str, Span)>,
) {
    for &s in &block.0 {
        if exit.is_some() {
            return;
        }
        let span = f.stmts[s].span;
        match &f.stmts[s].kind {
            StmtKind::Break if own_level => *exit = Some(("break", span)),
            StmtKind::Return => *exit = Some(("return", span)),
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                find_exit(f, then_body, own_level, exit);
                find_exit(f, else_body, own_level, exit);
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                find_exit(f, body, false, exit)
            }
            _ => {}
        }
    }
}

/// A loop that draws from the random stream stays sequential: the draws are numbered in the
/// order the program takes them. So does one that reads the host's clock (`tic`/`toc`), which
/// only the host has, in the order the program reads it.
fn random_draw(f: &Function, body: &Block) -> Option<Verdict> {
    let mut found = None;
    f.walk_stmts(body, &mut |s| {
        let stmt = &f.stmts[s];
        if let StmtKind::Alloc { fill, .. } = stmt.kind {
            if (fill.is_random() || fill == Fill::Clock) && found.is_none() {
                found = Some((fill, stmt.span));
            }
        }
    });
    found.map(|(fill, span)| {
        let function = fill.name();
        let reason = match fill {
            Fill::Clock => SequentialReason::HostClock,
            _ => SequentialReason::RandomDraw { function },
        };
        sequential(reason, Some(Witness::at(function, span)))
    })
}

/// The verdict for an array created inside the loop that is no scratch array.
fn array_creation(f: &Function, array: LocalId, span: Span, why: scratch::NotScratch) -> Verdict {
    let name = f.locals[array].seen_name().to_string();
    sequential(
        SequentialReason::ArrayCreated {
            array: name.clone(),
            why,
        },
        Some(Witness::at(name, span)),
    )
}

/// The carried array dependences of the loop: a sequential verdict for the first that is not on
/// a scatter-added array, else the scatter-added arrays that carry one (the histograms).
fn array_dependence(
    f: &Function,
    tree: &LoopTree,
    id: LoopId,
    closed: &[access::ClosedForm],
    unchecked: &BTreeSet<StmtId>,
) -> Result<Vec<LocalId>, Box<Verdict>> {
    let graph = deps::carried(f, tree, id, closed, unchecked);
    let scatter = scatter::candidates(f, loop_body(f, tree.loops[id].stmt));
    let mut histograms = Vec::new();
    for edge in graph.edge_indices() {
        let Some((w, _)) = graph.edge_endpoints(edge) else {
            continue;
        };
        let array = graph[w].array;
        if !scatter.contains_key(&array) {
            return Err(Box::new(carried_witness(&graph, edge, f)));
        }
        if !histograms.contains(&array) {
            histograms.push(array);
        }
    }
    Ok(histograms)
}

fn carried_witness(
    graph: &deps::DepGraph,
    edge: petgraph::graph::EdgeIndex,
    f: &Function,
) -> Verdict {
    let Some((w, x)) = graph.edge_endpoints(edge) else {
        return sequential(SequentialReason::UnknownDependence, None);
    };
    let dep = &graph[edge];
    let (write, other) = (&graph[w], &graph[x]);
    let name = f.locals[write.array].seen_name().to_string();
    let distance = dep.distance.map(i64::abs);
    let reason = SequentialReason::CarriedArray {
        array: name.clone(),
        written_again: other.is_write,
        distance,
    };
    sequential(
        reason,
        Some(Witness {
            var: name,
            write: write.span,
            read: Some(other.span),
            read_is_write: other.is_write,
            distance,
            direction: Some(dep.direction_text()),
        }),
    )
}

/// The verdict from the loop's scalars. With `scans` (the loop has no histograms or
/// inductions), a carried scalar that is not a reduction may be the running value of a scan
/// ([`crate::scan`]), when it is the only carried scalar and no other is live after the loop.
fn scalar_verdict(
    f: &Function,
    body: &Block,
    var: LocalId,
    inductions: &[Induction],
    scans: bool,
) -> Verdict {
    let written: BTreeSet<LocalId> = access::assigned_scalars(f, body)
        .into_iter()
        .filter(|l| f.locals[*l].ty.is_scalar())
        .filter(|l| !inductions.iter().any(|ind| ind.var == *l))
        .collect();
    let exposure = scalars::exposure(f, body);
    let mut recognized = reduction::recognize_each(f, body, var, &carried(&exposure, &written));
    // Location variables belong to their reduction, whichever order the scalars come in.
    let located: BTreeSet<LocalId> = recognized
        .values()
        .filter_map(|r| r.as_ref().ok())
        .flat_map(|r| r.locations.iter().copied())
        .collect();
    let facts = LoopFacts {
        written: &written,
        live: scalars::live_after(f, body),
        exposure,
        continues: loops::continues(f, body),
    };
    let mut reductions: Vec<Reduction> = Vec::new();
    let mut privates = Privates::default();
    // A scan's running value, and the verdict the loop gets if it cannot be a scan after all.
    let mut scanned: Option<(Scan, Box<Verdict>)> = None;
    for &s in written.difference(&located) {
        match classify(f, body, s, recognized.remove(&s), &facts) {
            Ok(Role::Reduction(r)) => reductions.push(r),
            Ok(Role::Private { live_out }) => {
                privates.all.push(s);
                if live_out {
                    privates.live_out.push(s);
                }
            }
            Err(v) => match scan::find(f, body, var, s).filter(|_| scans && scanned.is_none()) {
                Some(found) => scanned = Some((found, v)),
                None => return *v,
            },
        }
    }
    if let Some((found, otherwise)) = scanned {
        return match reductions.is_empty() && privates.live_out.is_empty() {
            true => Verdict::Scan(privates, found),
            false => *otherwise,
        };
    }
    let reductions = reduction::pair_min_max(f, reductions);
    if reductions.is_empty() {
        Verdict::Parallel(privates)
    } else {
        Verdict::Reduction(privates, reductions)
    }
}

enum Role {
    Reduction(Reduction),
    Private { live_out: bool },
}

/// What [`classify`] needs to know about the loop, computed once for all its scalars.
struct LoopFacts<'a> {
    /// The scalars the body assigns.
    written: &'a BTreeSet<LocalId>,
    /// The locals whose value after the loop may be read ([`scalars::live_after`]).
    live: BTreeSet<LocalId>,
    exposure: scalars::Exposure,
    /// Whether a `continue` may skip the rest of an iteration.
    continues: bool,
}

/// The scalars of `written` that an iteration may read before assigning them: only those can
/// carry a value from one iteration to the next, so only those can be reductions.
fn carried(exposure: &scalars::Exposure, written: &BTreeSet<LocalId>) -> BTreeSet<LocalId> {
    written
        .iter()
        .copied()
        .filter(|s| exposure.reads.contains_key(s))
        .collect()
}

/// The role of scalar `s` in the loop; `recognized` is `s` seen as a reduction (`None` for a
/// scalar that carries no value from one iteration to the next).
fn classify(
    f: &Function,
    body: &Block,
    s: LocalId,
    recognized: Option<Result<Reduction, String>>,
    facts: &LoopFacts,
) -> Result<Role, Box<Verdict>> {
    let name = f.locals[s].seen_name().to_string();
    let Some(&read) = facts.exposure.reads.get(&s) else {
        let live_out = facts.live.contains(&s);
        let every_iteration = facts.exposure.assigned.contains(&s) && !facts.continues;
        if live_out && !every_iteration && facts.written.contains(&s) {
            let write = first_assignment(f, body, s);
            return Err(Box::new(sequential(
                SequentialReason::PartlyAssignedLiveOut { var: name.clone() },
                Some(Witness::at(name.clone(), write)),
            )));
        }
        return Ok(Role::Private { live_out });
    };
    match recognized.expect("every carried scalar is recognized") {
        Ok(r) => check_location(f, body, &r).map(|()| Role::Reduction(r)),
        Err(why) => Err(Box::new(sequential(
            SequentialReason::NotAReduction {
                var: name.clone(),
                why,
            },
            Some(Witness {
                var: name.clone(),
                write: first_assignment(f, body, s),
                read: Some(read),
                read_is_write: false,
                distance: Some(1),
                direction: None,
            }),
        ))),
    }
}

/// The location variables of a min/max-with-location must be written only by the updates.
fn check_location(f: &Function, body: &Block, r: &Reduction) -> Result<(), Box<Verdict>> {
    r.locations
        .iter()
        .try_for_each(|&k| check_location_var(f, body, r, k))
}

fn check_location_var(
    f: &Function,
    body: &Block,
    r: &Reduction,
    k: LocalId,
) -> Result<(), Box<Verdict>> {
    let mut assignments = 0;
    f.walk_stmts(body, &mut |s| {
        if matches!(f.stmts[s].kind, StmtKind::Assign { target, .. } if target == k) {
            assignments += 1;
        }
    });
    if assignments == r.updates.len() && !scalars::scalars_read(f, body).contains(&k) {
        return Ok(());
    }
    let name = f.locals[k].seen_name().to_string();
    Err(Box::new(sequential(
        SequentialReason::LocationMisused { var: name.clone() },
        Some(Witness::at(name, first_assignment(f, body, k))),
    )))
}

fn first_assignment(f: &Function, body: &Block, s: LocalId) -> Span {
    let mut span = None;
    f.walk_stmts(body, &mut |st| {
        if span.is_none()
            && matches!(f.stmts[st].kind,
                StmtKind::Assign { target, .. } | StmtKind::For { var: target, .. } if target == s)
        {
            span = Some(f.stmts[st].span);
        }
    });
    span.unwrap_or_default()
}
