//! Reductions nested in a kernel's iterations: a thread, a warp or a block per output.
//!
//! A kernel whose iteration body is `prologue; for j = ... (a reduction); epilogue` (row sums,
//! column maxima, the inner product of a matrix product) computes one *output* per iteration.
//! One thread per output is right when outputs are many; when they are few and long, the
//! threads of a warp or a whole block share one output's inner loop, combine their partials,
//! and the group's first thread runs the epilogue. The choice is made at run time from the two
//! extents, so the inner loop's range must be the same in every iteration of the kernel and
//! computable on the host before the launch.
//!
//! Invariants of a [`PerOutput`]: the kernel is a single unfused loop nest without reductions,
//! atomic updates, inductions, live-out scalars or `error`s of its own; the inner loop is a
//! statement of the kernel's innermost body, a reduction whose results are simple (no locations,
//! no custom function) and whose other scalars are not read after it; the prologue only assigns
//! scalars and never leaves the iteration early, so every thread of a group runs it identically
//! and reaches the group's barriers.

use m2cu_frontend::ir::{ExprKind, Function, LocalId, StmtId, StmtKind};

use crate::fusion::Footprint;
use crate::loops::{loop_body, LoopId, LoopTree, PerLoop};
use crate::plan::{invariant, Kernel};
use m2cu_frontend::operator::Operator;

use crate::reduction::Reduction;
use crate::tiles::{self, Tiles};
use crate::verdict::Verdict;

/// The inner reduction loop of a kernel that threads may share per output.
#[derive(Clone, Debug, PartialEq)]
pub struct PerOutput {
    pub loop_id: LoopId,
    pub stmt: StmtId,
    pub var: LocalId,
    /// The inner loop's position in the kernel's innermost body: the statements before it are
    /// the prologue, those after it the epilogue.
    pub position: usize,
    pub reductions: Vec<Reduction>,
    /// The matrix product the inner loop computes, which a tiled variant may compute instead
    /// (see [`crate::tiles`]).
    pub tiles: Option<Tiles>,
}

/// The inner reduction `kernel` can spread over a group of threads per output, if it has one.
pub fn find(
    f: &Function,
    tree: &LoopTree,
    verdicts: &PerLoop<Verdict>,
    kernel: &Kernel,
) -> Option<PerOutput> {
    let plain = kernel.fused.is_empty()
        && kernel.scan.is_none()
        && kernel.reductions.is_empty()
        && kernel.atomic_updates.is_empty()
        && kernel.inductions.is_empty()
        && kernel.live_out.is_empty()
        && !kernel.raises;
    if !plain {
        return None;
    }
    let body = loop_body(f, kernel.levels[kernel.levels.len() - 1].stmt);
    let mut inner_loops = body.0.iter().enumerate().filter_map(|(position, &s)| {
        let loop_id = tree.loop_at(s)?;
        Some((position, s, loop_id))
    });
    let (position, stmt, loop_id) = inner_loops.next()?;
    if inner_loops.next().is_some() {
        return None;
    }
    let Verdict::Reduction(privates, reductions) = &verdicts[loop_id] else {
        return None;
    };
    let simple = privates.live_out.is_empty()
        && privates.histograms.is_empty()
        && privates.inductions.is_empty()
        && privates.overridden.is_none()
        && reductions
            .iter()
            .all(|r| !r.form.has_location() && !matches!(r.operator, Operator::Custom(_)));
    let ok = simple
        && body.0[..position]
            .iter()
            .all(|&s| only_assigns_scalars(f, s))
        && range_known_before_launch(f, kernel, stmt);
    let mut per_output = PerOutput {
        loop_id,
        stmt,
        var: tree.loops[loop_id].var.filter(|_| ok)?,
        position,
        reductions: reductions.clone(),
        tiles: None,
    };
    per_output.tiles = tiles::find(f, kernel, &per_output);
    Some(per_output)
}

/// Whether statement `s` (with everything nested in it) only assigns scalars and cannot leave
/// the iteration early.
pub(crate) fn only_assigns_scalars(f: &Function, s: StmtId) -> bool {
    let mut ok = true;
    f.walk_stmts(&m2cu_frontend::ir::Block(vec![s]), &mut |x| {
        ok &= match &f.stmts[x].kind {
            StmtKind::Assign { target, .. } => f.locals[*target].ty.is_scalar(),
            StmtKind::If { .. }
            | StmtKind::For { .. }
            | StmtKind::While { .. }
            | StmtKind::Check { .. } => true,
            _ => false,
        };
    });
    ok
}

/// Whether the range of inner loop `stmt` is the same in every iteration of `kernel` and reads
/// no array element (the host evaluates it before choosing the launch shape).
fn range_known_before_launch(f: &Function, kernel: &Kernel, stmt: StmtId) -> bool {
    let nest = Footprint::of(f, kernel);
    f.stmt_exprs(stmt).into_iter().all(|e| {
        let mut reads_element = false;
        f.walk_expr(e, &mut |x| {
            reads_element |= matches!(f.exprs[x].kind, ExprKind::Index(..));
        });
        !reads_element && invariant(f, e, &nest.scalars_written, &nest.arrays_written)
    })
}
