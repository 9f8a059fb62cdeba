//! The kernel model: what a kernel takes, decided once from the plan and printed twice — as the
//! CUDA signature ([`crate::cuda::kernel`], [`crate::cuda::per_output`]) and as the host's argument list
//! ([`crate::launch`]).
//!
//! Invariant: the signature and the launch print the same [`Param`] list in the same order, so
//! they cannot drift apart. Order: arrays (pointer, unless in `__constant__`; rows, columns, and
//! pages of a 3-D array), scalar inputs, the induction variables' values before the loop
//! (`m2cu_iv_<k>`), the ranges (`m2cu_first`, `m2cu_final`, `m2cu_step`, `m2cu_n`, one set per
//! level of a collapsed nest, then the total `m2cu_n`), live-out pointers, reduction buffers,
//! a scan's block totals, the failure record of a raising kernel, and the error status. A device buffer `m2cu_X` is
//! `m2cu_d_X` on the host.

use std::collections::{HashMap, HashSet};

use m2cu_analysis::{Form, Kernel, Reduction};
use m2cu_frontend::ir::{BinOp, Block, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind};
use m2cu_frontend::types::Class;

use crate::code::Code;
use crate::cuda::BLOCK;
use crate::expr::local_c_type;
use crate::raise;
use crate::reduce::{Located, Merge, ReductionCode};
use crate::stmt::{Context, NestRanges};

/// One accumulator of a kernel or parallel region: a single-accumulator reduction (a paired
/// min/max contributes its min half and its max half, which run in the same pass), with the
/// index `j` of its per-reduction names, its code pieces, and how block partials merge.
pub struct Accumulator {
    pub j: usize,
    pub reduction: Reduction,
    pub code: ReductionCode,
    pub merge: Merge,
}

impl Accumulator {
    /// The host's result `m2cu_r<j>`.
    pub fn result_value(&self) -> String {
        format!("m2cu_r{}", self.j)
    }

    /// The host's located result: `m2cu_r<j>`, the locations `m2cu_rk<j>_<q>` and the
    /// iteration `m2cu_rt<j>`.
    pub fn result(&self) -> Located {
        let j = self.j;
        Located::numbered(
            &self.result_value(),
            &format!("m2cu_rk{j}_"),
            self.reduction.locations.len(),
            &format!("m2cu_rt{j}"),
        )
    }

    /// The device slot an atomic merge combines every block's partial into, `m2cu_red<j>`.
    pub fn device_result(&self) -> String {
        format!("m2cu_red{}", self.j)
    }

    /// The host's zero the counter of finished blocks starts from, `m2cu_zero<j>`.
    pub fn finished_blocks_start(&self) -> String {
        format!("m2cu_zero{}", self.j)
    }

    /// A thread's iteration of its located partial, `m2cu_lt<j>` (-1: none yet).
    pub fn iteration(&self) -> String {
        format!("m2cu_lt{}", self.j)
    }

    /// A thread's flag "the custom partial has a value", `m2cu_has<j>`.
    pub fn has_value(&self) -> String {
        format!("m2cu_has{}", self.j)
    }

    pub fn located(&self) -> bool {
        !self.reduction.locations.is_empty()
    }

    /// Whether a thread may hold this accumulator as an `int64_t` count when its target
    /// counts in integers ([`Counts::InIntegers`]): a double count whose every update is
    /// `c = c + 1` (not `c = c - 1`, which the analysis also counts), whose partial
    /// from 0 holds every integer up to 2^53, so the integer and the double agree exactly
    /// (a single count would not: a float stops counting at 2^24).
    pub fn counts_in_integer(&self, f: &Function) -> bool {
        self.reduction.form == Form::Count
            && self.code.class == Class::Double
            && self.code.custom().is_none()
            && self.reduction.updates.iter().all(|&u| adds_one(f, u))
    }
}

/// Whether statement `u` is `c = c + 1` or `c = 1 + c` (a count's update; `c = c - 1`, which
/// the analysis also calls a count of ones, counts down).
fn adds_one(f: &Function, u: StmtId) -> bool {
    let StmtKind::Assign { target, value } = &f.stmts[u].kind else {
        return false;
    };
    let ExprKind::Binary(BinOp::Add, a, b) = &f.exprs[*value].kind else {
        return false;
    };
    let is = |e: ExprId, kind: ExprKind| f.exprs[e].kind == kind;
    let (one, var) = (ExprKind::Const(1.0), ExprKind::Local(*target));
    (is(*a, var.clone()) && is(*b, one.clone())) || (is(*a, one) && is(*b, var))
}

/// The work (expression nodes evaluated, roughly) under which a loop is not worth a team of
/// threads: starting and joining one costs some microseconds, about what 2^15 simple
/// operations take on one core.
const TEAM_WORK: u64 = 1 << 15;

/// The trip count from which the C path runs a loop over `bodies` on a team of threads:
/// [`TEAM_WORK`] over one iteration's cost, the statements and expression nodes of the
/// bodies, those of a nested loop counted 16 times (it runs an unknown number of times).
pub fn team_trips(f: &Function, bodies: &[&Block]) -> u64 {
    let cost: u64 = bodies.iter().map(|b| block_cost(f, b)).sum();
    TEAM_WORK.div_ceil(cost.max(1))
}

fn block_cost(f: &Function, block: &Block) -> u64 {
    let tree = f.tree();
    block
        .0
        .iter()
        .map(|&s| {
            let mut own = 1;
            for e in tree.stmt_exprs(s) {
                tree.walk_expr(e, &mut |_| own += 1);
            }
            own + match &f.stmts[s].kind {
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                    16 * block_cost(f, body)
                }
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => block_cost(f, then_body) + block_cost(f, else_body),
                _ => 0,
            }
        })
        .sum()
}

/// How a thread holds its count accumulators ([`Accumulator::counts_in_integer`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Counts {
    /// In the accumulator's class, like every other accumulator.
    InClass,
    /// In an `int64_t` that each update increments (`c += 1;`): no floating-point dependence
    /// between iterations, so the C compiler turns `if (x > t) c += 1;` into branch-free code.
    InIntegers,
}

/// The accumulators of `kernel`, in the order of every per-reduction name.
pub fn accumulators(ctx: &Context, kernel: &Kernel) -> Vec<Accumulator> {
    kernel
        .reductions
        .iter()
        .flat_map(Reduction::parts)
        .enumerate()
        .map(|(j, reduction)| {
            let code = ReductionCode::new(ctx, &reduction);
            let merge = code.merge(&reduction, ctx.deterministic);
            Accumulator {
                j,
                reduction,
                code,
                merge,
            }
        })
        .collect()
}

/// One kernel parameter.
pub struct Param {
    /// Its C declaration in the kernel's signature.
    pub decl: String,
    /// Where the launch takes its value from.
    pub source: Source,
    /// The device buffer the launch allocates for a pointer parameter, unless it points into an
    /// array (which lives on the device already, `crate::residency`).
    pub buffer: Option<DeviceBuffer>,
}

/// A device buffer of one launch: allocated before it, filled from the host when `upload`
/// says from where, copied back after it into `download`, and freed. Its host handle is the
/// parameter's [`Source::Host`] name.
pub struct DeviceBuffer {
    pub bytes: String,
    pub upload: Option<String>,
    pub download: Option<String>,
    /// Bytes to download when not the whole buffer (the first slot of per-block partials).
    pub download_bytes: Option<String>,
}

impl DeviceBuffer {
    /// One `ty`, filled from and copied back into `value` (either may be absent).
    fn one(ty: &str, upload: Option<String>, download: Option<String>) -> DeviceBuffer {
        DeviceBuffer {
            bytes: format!("sizeof({ty})"),
            upload,
            download,
            download_bytes: None,
        }
    }

    /// One `ty` per block; the first slot (the last block's merge) comes back into `download`
    /// when there is one.
    fn block_slots(ty: &str, download: Option<String>) -> DeviceBuffer {
        DeviceBuffer {
            bytes: format!("(uint64_t)m2cu_grid * sizeof({ty})"),
            upload: None,
            download,
            download_bytes: Some(format!("sizeof({ty})")),
        }
    }
}

/// The host value a parameter is launched with.
pub enum Source {
    /// The address of this host variable.
    Host(String),
    /// Part `part` (`first`, `final`, `step`, `n`) of level `level`'s range, whose host names
    /// carry that level's suffix of [`NestRanges`].
    Range { level: usize, part: &'static str },
    /// The iteration count of a collapsed nest ([`NestRanges::total`]).
    Total,
}

impl Param {
    fn new(decl: String, host: String) -> Param {
        Param {
            decl,
            source: Source::Host(host),
            buffer: None,
        }
    }

    /// A device buffer `*name`, which the host holds as `m2cu_d_<name without m2cu_>`.
    fn buffer(ty: &str, name: String, buffer: DeviceBuffer) -> Param {
        let host = format!("m2cu_d_{}", name.trim_start_matches("m2cu_"));
        Param {
            buffer: Some(buffer),
            ..Param::new(format!("{ty} *{name}"), host)
        }
    }

    /// The host handle of the parameter's device buffer, if it has one.
    pub fn device_buffer(&self) -> Option<(&str, &DeviceBuffer)> {
        match (&self.source, &self.buffer) {
            (Source::Host(var), Some(b)) => Some((var, b)),
            _ => None,
        }
    }

    /// The launch argument: the address of the host value.
    pub fn argument(&self, ranges: &NestRanges) -> String {
        match &self.source {
            Source::Host(name) => format!("&{name}"),
            Source::Range { level, part } => format!("&m2cu_{part}{}", ranges.suffixes[*level]),
            Source::Total => format!("&{}", ranges.total),
        }
    }
}

/// The same context for the body of `kernel`'s loop, where each location-reduction update
/// also records the iteration number `t` of the element it takes, and each custom-reduction
/// update seeds the thread's accumulator with its first element (flag `m2cu_has<j>`).
pub fn with_reduction_hooks<'a>(
    ctx: &Context<'a>,
    kernel: &Kernel,
    t: &str,
    counts: Counts,
) -> Context<'a> {
    let mut hooks = HashMap::new();
    let mut seeded = HashMap::new();
    let mut integer_counts = HashSet::new();
    for acc in accumulators(ctx, kernel) {
        if counts == Counts::InIntegers && acc.counts_in_integer(ctx.f) {
            integer_counts.extend(acc.reduction.updates.iter().copied());
        }
        for &u in &acc.reduction.updates {
            if acc.located() {
                hooks.insert(u, format!("{} = {t};", acc.iteration()));
            }
            if acc.code.custom().is_some() {
                seeded.insert(u, acc.has_value());
            }
        }
    }
    Context {
        location_hooks: hooks,
        seeded_updates: seeded,
        integer_counts,
        scratch: kernel.scratch.clone(),
        ..ctx.clone_base()
    }
}

/// Per-thread accumulators of `kernel`'s reductions, each starting at its identity; a
/// location reduction also keeps its location and the iteration `m2cu_lt<j>` it came from
/// (-1: none yet).
pub fn declare_accumulators(ctx: &Context, code: &mut Code, kernel: &Kernel, counts: Counts) {
    for acc in accumulators(ctx, kernel) {
        let r = &acc.reduction;
        let (ty, identity) = match counts == Counts::InIntegers && acc.counts_in_integer(ctx.f) {
            true => ("int64_t", "0".to_string()),
            false => (acc.code.class.c_type(), acc.code.identity()),
        };
        code.line(format!("{ty} {} = {identity};", ctx.name(r.var)));
        for &loc in &r.locations {
            let ty = local_c_type(ctx.f, loc);
            code.line(format!("{ty} {} = 0;", ctx.name(loc)));
        }
        if acc.located() {
            code.line(format!("long long {} = -1;", acc.iteration()));
        }
        if acc.code.custom().is_some() {
            code.line(format!("int {} = 0;", acc.has_value()));
        }
    }
}

/// The C declarations of `kernel`'s parameters, in launch order: the signature of each of its
/// kernels (the thread kernel and its variants).
pub fn param_decls(ctx: &Context, kernel: &Kernel) -> Vec<String> {
    params(ctx, kernel).into_iter().map(|p| p.decl).collect()
}

/// The parameters of `kernel`, in launch order.
pub fn params(ctx: &Context, kernel: &Kernel) -> Vec<Param> {
    let f = ctx.f;
    let mut out = Vec::new();
    for a in &kernel.arrays {
        out.extend(array_params(ctx, a.local, a.written));
    }
    for &x in &kernel.inputs {
        let name = ctx.name(x);
        out.push(Param::new(
            format!("{} {name}", local_c_type(f, x)),
            name.into(),
        ));
    }
    for ind in &kernel.inductions {
        let name = ctx.name(ind.var);
        out.push(Param::new(
            format!("{} m2cu_iv_{name}", local_c_type(f, ind.var)),
            name.into(),
        ));
    }
    for (level, (l, k)) in kernel.levels.iter().zip(range_suffixes(kernel)).enumerate() {
        let ty = local_c_type(f, l.var);
        for part in ["first", "final", "step", "n"] {
            let ty = if part == "n" { "int64_t" } else { ty };
            out.push(Param {
                decl: format!("{ty} m2cu_{part}{k}"),
                source: Source::Range { level, part },
                buffer: None,
            });
        }
    }
    if kernel.levels.len() > 1 {
        out.push(Param {
            decl: "int64_t m2cu_n".into(),
            source: Source::Total,
            buffer: None,
        });
    }
    for &x in &kernel.live_out {
        let (ty, name) = (local_c_type(f, x), ctx.name(x));
        let back = DeviceBuffer::one(ty, None, Some(format!("&{name}")));
        out.push(Param::buffer(ty, format!("m2cu_lo_{name}"), back));
    }
    reduction_params(ctx, kernel, &mut out);
    if let Some(scan) = &kernel.scan {
        let ty = local_c_type(f, scan.var);
        let totals = DeviceBuffer {
            bytes: format!("(uint64_t)m2cu_grid * sizeof({ty})"),
            ..DeviceBuffer::one(ty, None, None)
        };
        out.push(Param::buffer(ty, "m2cu_scan_part".into(), totals));
    }
    if kernel.raises {
        let at = || Some("&m2cu_fail_at".to_string());
        let fail_at = DeviceBuffer::one("long long", at(), at());
        out.push(Param::buffer("long long", "m2cu_fail_at".into(), fail_at));
        // One failure record per thread of the grid.
        let record = raise::record_type(kernel);
        let fails = DeviceBuffer {
            bytes: format!("(uint64_t)m2cu_grid * {BLOCK} * sizeof({record})"),
            ..DeviceBuffer::one(&record, None, None)
        };
        out.push(Param::buffer(&record, "m2cu_fails".into(), fails));
    }
    // The error word: one for the whole call (see `launch::error_word`).
    out.push(Param::new("int *m2cu_err".into(), ERROR_WORD.into()));
    out
}

/// The host's handle of the call's device error word, which every kernel of the call sets
/// when an iteration fails: allocated and cleared at the first launch, read after each. Its
/// name is outside the families made from arrays' names (`m2cu_dev_<array>`,
/// `m2cu_devbytes_<array>`, `m2cu_at_<array>`, ...), so no MATLAB name can collide with it.
pub const ERROR_WORD: &str = "m2cu_errword";

/// An array's element pointer (unless it lives in `__constant__`) and extents.
fn array_params(ctx: &Context, array: LocalId, written: bool) -> Vec<Param> {
    let ty = crate::expr::complex::c_type(ctx.f.locals[array].ty);
    let constness = if written { "" } else { "const " };
    let name = ctx.name(array);
    let mut out = Vec::new();
    if !ctx.analysis.constants.contains(array) {
        out.push(Param::new(
            format!("{constness}{ty} *__restrict__ {name}"),
            format!("m2cu_dev_{name}"),
        ));
    }
    let dims = if ctx.names.is_3d(array) { 3 } else { 2 };
    for d in 0..dims {
        out.push(Param::new(
            format!("int64_t {name}_d{d}"),
            format!("{name}_d{d}"),
        ));
    }
    out
}

/// Each accumulator's result slot (uploaded from and downloaded into the host's result), or
/// its per-block slots (value; locations and iteration when located; the first slot comes back
/// into the host's result) and the counter of finished blocks (uploaded from a zero). An ordered
/// custom reduction has both: its block slots with their "has a value" flags, which the last
/// block combines into the result slot (the value from before the loop, which the custom
/// combiner has no identity to replace).
fn reduction_params(ctx: &Context, kernel: &Kernel, out: &mut Vec<Param>) {
    for acc in accumulators(ctx, kernel) {
        let (j, wide, result) = (acc.j, acc.code.wide_type(), acc.result());
        let custom = acc.code.custom().is_some();
        let value = || Some(format!("&{}", result.v));
        if acc.merge == Merge::Atomic || custom {
            let slot = DeviceBuffer::one(wide, value(), value());
            out.push(Param::buffer(wide, acc.device_result(), slot));
        }
        if acc.merge == Merge::Atomic {
            continue;
        }
        let slots = DeviceBuffer::block_slots(wide, (!custom).then(value).flatten());
        out.push(Param::buffer(wide, format!("m2cu_pv{j}"), slots));
        if custom {
            let flags = DeviceBuffer::block_slots("int", None);
            out.push(Param::buffer("int", format!("m2cu_ph{j}"), flags));
        }
        if acc.merge == Merge::Located {
            for (q, (&loc, k)) in acc.reduction.locations.iter().zip(&result.ks).enumerate() {
                let ty = local_c_type(ctx.f, loc);
                let slots = DeviceBuffer::block_slots(ty, Some(format!("&{k}")));
                out.push(Param::buffer(ty, format!("m2cu_pk{j}_{q}"), slots));
            }
            let slots = DeviceBuffer::block_slots("long long", Some(format!("&{}", result.t)));
            out.push(Param::buffer("long long", format!("m2cu_pi{j}"), slots));
        }
        let zero = Some(format!("&{}", acc.finished_blocks_start()));
        let counter = DeviceBuffer::one("unsigned int", zero, None);
        out.push(Param::buffer(
            "unsigned int",
            format!("m2cu_pc{j}"),
            counter,
        ));
    }
}

/// The suffixes of the range parameters of each level: none for a single loop, `_<level>` for a
/// collapsed nest (whose total iteration count is `m2cu_n`).
pub(crate) fn range_suffixes(kernel: &Kernel) -> Vec<String> {
    match kernel.levels.len() {
        1 => vec![String::new()],
        n => (0..n).map(|l| format!("_{l}")).collect(),
    }
}

/// The array that every scatter-add of `kernel` updates, when there is exactly one: the one to
/// keep private bins of (per block in shared memory on the GPU, `crate::cuda::bins`; per thread
/// on the CPU, `crate::openmp`), so that most additions are cheap and private.
pub fn binned_array(ctx: &Context, kernel: &Kernel) -> Option<LocalId> {
    let mut arrays = kernel
        .atomic_updates
        .iter()
        .filter_map(|u| match ctx.f.stmts[u.stmt].kind {
            StmtKind::Store { array, .. } => Some(array),
            _ => None,
        });
    let first = arrays.next()?;
    arrays.all(|a| a == first).then_some(first)
}
