//! Parallel loops of the CPU program: OpenMP.
//!
//! A map is `#pragma omp parallel for` (a matrix product: over tiles of outputs,
//! [`crate::openmp_tiles`]); a scan runs in order, as MATLAB adds. A reduction runs the loop in a parallel region in which
//! every thread accumulates into its own copy of each reduction variable (starting from the
//! identity; a custom reduction's copy is seeded by the thread's first element and flagged), and
//! leaves it in its own slot, which the host folds in thread order after the region (a located
//! reduction merges under `omp critical` instead, by iteration number; a custom reduction's fold
//! starts from the variable's value before the loop); then the partial is merged into the
//! variable's value from before the loop with the same rule the GPU path uses
//! ([`crate::reduce::ReductionCode::finish`]). Privates are declared inside the region; live-out
//! privates are copied out by the iteration that is last in sequential order. An induction
//! variable `k` is declared in each iteration from its closed form over `m2cu_iv_<k>` (its value
//! before the loop), and set to `k0 + c·n` after the loop. A loop that may raise `error` reports
//! its smallest failing iteration's error after the loop ([`crate::raise`]).

use m2cu_analysis::induction::Induction;
use m2cu_analysis::Kernel;
use m2cu_frontend::ir::LocalId;

use crate::code::Code;
use crate::expr::local_c_type;
use crate::model::{self, accumulators, Accumulator, Counts};
use crate::raise;
use crate::reduce::Located;
use crate::stmt::{Context, Target};

/// The CPU program: planned loops are OpenMP loops and regions.
pub struct OpenMp;

impl Target for OpenMp {
    fn planned_loop(&self, ctx: &Context, code: &mut Code, kernel: &Kernel) {
        parallel_loop(ctx, code, kernel);
    }

    fn versions_loops(&self) -> bool {
        true
    }

    fn atomic_add(&self, code: &mut Code, element: &str, addend: &str) {
        code.line("#pragma omp atomic");
        code.line(format!("{element} += {addend};"));
    }

    fn binned_add(&self, _: &Context, _: LocalId, offset: &str, addend: &str) -> String {
        bins_update(offset, addend)
    }
}

pub fn parallel_loop(ctx: &Context, code: &mut Code, kernel: &Kernel) {
    if kernel.scan.is_some() {
        // The CPU keeps MATLAB's order of the running sums (equal to the bit).
        let what = format!(
            "for {}: a scan ({} on the GPU), in order on the CPU",
            ctx.name(kernel.var),
            kernel.name
        );
        code.line(format!(
            "/* {} */",
            crate::trace::placed(ctx, ctx.f.stmts[kernel.stmt].span, &what)
        ));
        return ctx.loop_in_order(code, kernel.stmt);
    }
    if let Some(p) = &kernel.per_output {
        if let Some(t) = &p.tiles {
            return crate::openmp_tiles::tiled_loop(ctx, code, kernel, p, t);
        }
    }
    let f = ctx.f;
    let bodies = kernel.bodies(f);
    let ranges = ctx.nest_ranges(kernel);
    let n = &ranges.total;
    let var = ctx.name(kernel.var);
    let nest = Nest::of(ctx, kernel, &ranges);
    let var_decl = format!(
        "{}\n{}",
        nest.level_values,
        induction_decls(ctx, kernel, "m2cu_t")
    );
    let what = format!("for {var}: {} on the CPU", kernel.name);
    code.open(crate::trace::open_block(
        ctx,
        f.stmts[kernel.stmt].span,
        &what,
    ));
    code.line(&ranges.decls);
    for ind in &kernel.inductions {
        code.line(format!(
            "const {} m2cu_iv_{x} = {x};",
            local_c_type(f, ind.var),
            x = ctx.name(ind.var)
        ));
    }
    for &x in &kernel.live_out {
        code.line(format!(
            "{} *m2cu_lo_{x} = &{x};",
            local_c_type(f, x),
            x = ctx.name(x)
        ));
    }
    if kernel.raises {
        code.line(raise::record_struct(ctx, kernel));
        code.line("long long m2cu_fail_at = INT64_MAX;");
        code.line(format!("{} m2cu_fail;", raise::record_type(kernel)));
    }
    // Not versioned: a fused kernel (its later loops have range names of their own), and a
    // kernel whose iterations may raise `error` (its iteration ends at a label, which C allows
    // once per function).
    let guards = match kernel.fused.is_empty() && !kernel.raises {
        true => {
            let stmts: Vec<_> = kernel.levels.iter().map(|l| l.stmt).collect();
            let vars: Vec<_> = kernel.levels.iter().map(|l| l.var).collect();
            ctx.analysis.guards.deciding(&stmts, &vars)
        }
        false => Vec::new(),
    };
    ctx.versioned(code, &guards, |ctx, code| {
        region(ctx, code, kernel, &ranges, &nest, &var_decl, &bodies)
    });
    if kernel.raises {
        code.open("if (m2cu_fail_at != INT64_MAX) {");
        raise::report(ctx, code, kernel, "m2cu_fail");
        code.close("}");
    }
    code.line(ctx.level_finals(kernel, &ranges));
    for ind in &kernel.inductions {
        let x = ctx.name(ind.var);
        code.line(format!(
            "{x} = {};",
            induction_value(ind, &format!("m2cu_iv_{x}"), n)
        ));
    }
    code.close("}");
}

/// The threads' share of `kernel`'s iterations: a plain parallel loop, or a region with
/// private bins or reduction partials.
fn region(
    ctx: &Context,
    code: &mut Code,
    kernel: &Kernel,
    ranges: &crate::stmt::NestRanges,
    nest: &Nest,
    var_decl: &str,
    bodies: &[&m2cu_frontend::ir::Block],
) {
    // Private bins only in a loop without reductions (whose region merges under its own rules).
    let inner = Context {
        binned: model::binned_array(ctx, kernel).filter(|_| kernel.reductions.is_empty()),
        ..model::with_reduction_hooks(ctx, kernel, "m2cu_t", Counts::InIntegers)
    };
    let share = ThreadShare {
        ctx,
        inner: &inner,
        kernel,
        n: &ranges.total,
        team_trips: model::team_trips(ctx.f, bodies),
        firstprivate: firstprivate(ctx, kernel, ranges),
        nest,
        var_decl,
        bodies,
    };
    if inner.binned.is_some() {
        histogram_region(&share, code);
    } else if kernel.reductions.is_empty() {
        code.line(format!(
            "#pragma omp parallel for schedule(static) if ({} >= {}){}",
            share.n, share.team_trips, share.firstprivate
        ));
        nest.open(code);
        share.iteration(code, &kernel.privates);
        nest.close(code);
    } else {
        reduction_region(&share, code);
    }
}

/// `m2cu_set_threads` (`m2cu_abi.h`): the team size of the parallel loops the calling thread
/// starts from now on; nothing without OpenMP. Also the thread's number and the largest team,
/// which `--deterministic` regions use for their slots (0 and 1 without OpenMP).
pub const SET_THREADS: &str = "
#ifdef _OPENMP
#include <omp.h>
#define M2CU_THREAD omp_get_thread_num()
#define M2CU_TEAM_MAX omp_get_max_threads()
#else
#define M2CU_THREAD 0
#define M2CU_TEAM_MAX 1
#endif

void m2cu_set_threads(int threads)
{
#ifdef _OPENMP
    if (threads > 0) omp_set_num_threads(threads);
#else
    (void)threads;
#endif
}
";

/// Declarations of `kernel`'s induction variables at the top of iteration `t`, each from its
/// value before the loop, `m2cu_iv_<k>`.
pub fn induction_decls(ctx: &Context, kernel: &Kernel, t: &str) -> String {
    let lines: Vec<String> = kernel
        .inductions
        .iter()
        .map(|ind| {
            let x = ctx.name(ind.var);
            format!(
                "{} {x} = {};",
                local_c_type(ctx.f, ind.var),
                induction_value(ind, &format!("m2cu_iv_{x}"), t)
            )
        })
        .collect();
    lines.join("\n")
}

/// The value of induction variable `ind` after `t` iterations, from its value `k0` before them.
pub fn induction_value(ind: &Induction, k0: &str, t: &str) -> String {
    format!("{k0} + {}.0 * (double){t}", ind.step)
}

/// ` firstprivate(...)` of the values a kernel's region reads but never changes: its arrays'
/// pointers and extents (it writes elements, never the arrays themselves), its scalar inputs and
/// its ranges. Each thread then holds them in locals, which the C compiler sees are invariant,
/// instead of reaching every shared variable through the region's frame on every use.
fn firstprivate(ctx: &Context, kernel: &Kernel, ranges: &crate::stmt::NestRanges) -> String {
    let scratch = |a: LocalId| kernel.scratch.iter().any(|s| s.local == a);
    let mut names: Vec<String> = Vec::new();
    for a in kernel
        .arrays
        .iter()
        .map(|u| u.local)
        .filter(|&a| !scratch(a))
    {
        names.push(ctx.name(a).to_string());
        let extents = if ctx.names.is_3d(a) { 3 } else { 2 };
        names.extend((0..extents).map(|k| ctx.names.dim(a, k)));
    }
    names.extend(kernel.inputs.iter().map(|&x| ctx.name(x).to_string()));
    for s in &ranges.suffixes {
        names.extend(["first", "step", "n"].map(|part| format!("m2cu_{part}{s}")));
    }
    let mut unique: Vec<String> = Vec::new();
    for name in names {
        if !unique.contains(&name) {
            unique.push(name);
        }
    }
    match unique.is_empty() {
        true => String::new(),
        false => format!(" firstprivate({})", unique.join(", ")),
    }
}

/// How the C path enumerates a kernel's iterations `m2cu_t`: one loop over them, or for a nest
/// of several levels one loop per level, the slowest outermost, whose outermost loop the
/// threads share (`omp for`) and whose inner loops each thread runs whole, so that the C
/// compiler sees plain nested loops (strength-reduced subscripts, vectorized inner loops) and
/// no iteration divides to find its place; `m2cu_t` is computed from the level counters
/// `m2cu_l<l>` where the body needs it.
struct Nest {
    /// The loop heads, outermost first.
    heads: Vec<String>,
    /// The first line of an iteration: `m2cu_t` from the counters (none for one level).
    t: Option<String>,
    /// The declarations of the levels' loop variables.
    level_values: String,
}

impl Nest {
    fn of(ctx: &Context, kernel: &Kernel, ranges: &crate::stmt::NestRanges) -> Nest {
        let suffixes = &ranges.suffixes;
        if kernel.levels.len() == 1 {
            return Nest {
                heads: vec![format!(
                    "for (int64_t m2cu_t = 0; m2cu_t < {}; m2cu_t++) {{",
                    ranges.total
                )],
                t: None,
                level_values: ctx.level_values(kernel, suffixes, "m2cu_t"),
            };
        }
        // `kernel.order` is fastest first: the loops nest the other way round, and `m2cu_t`
        // has the fastest level as its lowest digit.
        let heads = kernel
            .order
            .iter()
            .rev()
            .map(|&l| {
                format!(
                    "for (int64_t m2cu_l{l} = 0; m2cu_l{l} < m2cu_n{}; m2cu_l{l}++) {{",
                    suffixes[l]
                )
            })
            .collect();
        let linear = kernel
            .order
            .iter()
            .rev()
            .fold(String::new(), |t, &l| match t.is_empty() {
                true => format!("m2cu_l{l}"),
                false => format!("({t}) * m2cu_n{} + m2cu_l{l}", suffixes[l]),
            });
        let level_values = (0..kernel.levels.len())
            .map(|l| ctx.level_value(kernel, suffixes, l, &format!("m2cu_l{l}")))
            .collect::<Vec<_>>()
            .join("\n");
        Nest {
            heads,
            t: Some(format!("const int64_t m2cu_t = {linear};")),
            level_values,
        }
    }

    fn open(&self, code: &mut Code) {
        for head in &self.heads {
            code.open(head);
        }
        if let Some(t) = &self.t {
            code.line(t);
        }
    }

    fn close(&self, code: &mut Code) {
        for _ in &self.heads {
            code.close("}");
        }
    }
}

/// The kernel's loop as one OpenMP thread's share of it (`omp for`), inside a parallel region
/// that declares what the thread keeps.
struct ThreadShare<'c, 'a> {
    ctx: &'c Context<'a>,
    inner: &'c Context<'a>,
    kernel: &'c Kernel,
    n: &'c str,
    /// The trips from which the loop runs on a team ([`model::team_trips`]).
    team_trips: u64,
    /// The region's `firstprivate` clause ([`firstprivate`]).
    firstprivate: String,
    nest: &'c Nest,
    var_decl: &'c str,
    bodies: &'c [&'c m2cu_frontend::ir::Block],
}

impl ThreadShare<'_, '_> {
    fn write(&self, code: &mut Code) {
        code.line("#pragma omp for schedule(static) nowait");
        self.nest.open(code);
        self.iteration(code, &[]);
        self.nest.close(code);
    }

    /// One iteration: the loop variables, `privates` declared, the bodies, and the live-out
    /// copy. An iteration that may raise `error` is skipped past the smallest failure seen so
    /// far, and a failed one publishes its record if it is the smallest yet
    /// ([`crate::raise`]).
    fn iteration(&self, code: &mut Code, privates: &[m2cu_frontend::ir::LocalId]) {
        let kernel = self.kernel;
        if kernel.raises {
            code.line("long long m2cu_seen;");
            code.line("#pragma omp atomic read");
            code.line("m2cu_seen = m2cu_fail_at;");
            code.line("if (m2cu_t > m2cu_seen) continue;");
        }
        code.line(self.var_decl);
        self.ctx.declare(code, privates);
        self.inner.declare_scratch(code);
        if kernel.raises {
            code.line(format!("{} m2cu_mine = {{0}};", raise::record_type(kernel)));
            raise::iteration(self.inner, code, kernel, self.bodies, "m2cu_mine", PUBLISH);
        } else {
            for body in self.bodies {
                self.inner.block(code, body);
            }
        }
        live_out_copy(self.ctx, code, kernel, self.n);
    }
}

/// A failed OpenMP iteration keeps its record if it is the smallest failing one yet.
const PUBLISH: &str = "#pragma omp critical (m2cu_fail_at)
{
    if (m2cu_t < m2cu_fail_at) {
        #pragma omp atomic write
        m2cu_fail_at = m2cu_t;
        m2cu_fail = m2cu_mine;
    }
}";

/// A parallel loop whose only carried dependences are scatter-adds to one array (`inner.binned`),
/// a histogram loop: when the bins of every thread fit in one allocation, each thread adds into
/// its own (no atomics, no test per update) and the threads then add theirs into the array;
/// otherwise every update is atomic. The choice is made once, before the threads start.
fn histogram_region(share: &ThreadShare, code: &mut Code) {
    let (ctx, kernel) = (share.ctx, share.kernel);
    let array = share
        .inner
        .binned
        .expect("a histogram region has an array to bin");
    let ty = ctx.f.locals[array].ty.class.c_type();
    code.open("{");
    code.line(format!(
        "const int64_t m2cu_nbins = {}, m2cu_stride = m2cu_nbins > 0 ? m2cu_nbins : 1;",
        ctx.names.numel(array)
    ));
    code.line(format!(
        "{ty} *m2cu_all_bins = m2cu_nbins <= {CPU_BINS} ? ({ty} *)malloc((size_t)M2CU_TEAM_MAX * (size_t)m2cu_stride * sizeof({ty})) : NULL;"
    ));
    let region = |code: &mut Code, share: &ThreadShare, binned: bool| {
        code.line(format!(
            "#pragma omp parallel if ({} >= {}){}",
            share.n, share.team_trips, share.firstprivate
        ));
        code.open("{");
        if binned {
            bins_setup(code, ty);
        }
        ctx.declare(code, &kernel.privates);
        share.write(code);
        if binned {
            bins_flush(ctx, code, array);
        }
        code.close("}");
    };
    code.open("if (m2cu_all_bins != NULL) {");
    region(code, share, true);
    code.close_open("} else {");
    let atomic = Context {
        binned: None,
        ..share.inner.clone()
    };
    let atomic_share = ThreadShare {
        inner: &atomic,
        firstprivate: share.firstprivate.clone(),
        ..*share
    };
    region(code, &atomic_share, false);
    code.close("}");
    code.line("free(m2cu_all_bins);");
    code.close("}");
}

fn reduction_region(share: &ThreadShare, code: &mut Code) {
    let (ctx, kernel, n) = (share.ctx, share.kernel, share.n);
    let accumulators = accumulators(ctx, kernel);
    // Each thread leaves its partial in its own slot (a custom one with its "has a value"
    // flag), and the slots are folded in thread order after the region with the loop's own
    // combine (a custom one through the user's function, skipping the threads that had no
    // element): a min or max takes the zero of a -0/+0 tie (and a NaN-skipping one its operand)
    // that the sequential loop takes, and with the static schedule (each thread's share depends
    // on the team size alone) a team size gives the same bits on every run, floating sums and
    // user functions that round included (`--deterministic`). Located reductions merge under
    // `omp critical` by their iteration numbers, exact in any order.
    let ordered = |acc: &Accumulator| !acc.located();
    for acc in &accumulators {
        declare_result(ctx, code, acc, "int64_t");
    }
    if accumulators.iter().any(ordered) {
        code.line("const int m2cu_slots = M2CU_TEAM_MAX;");
    }
    for acc in accumulators.iter().filter(|a| ordered(a)) {
        code.line(format!(
            "{} m2cu_part{j}[m2cu_slots];\nfor (int m2cu_k = 0; m2cu_k < m2cu_slots; m2cu_k++) m2cu_part{j}[m2cu_k] = {};",
            acc.code.wide_type(),
            acc.code.identity(),
            j = acc.j
        ));
        if acc.code.custom().is_some() {
            code.line(format!(
                "int m2cu_parth{j}[m2cu_slots];\nfor (int m2cu_k = 0; m2cu_k < m2cu_slots; m2cu_k++) m2cu_parth{j}[m2cu_k] = 0;",
                j = acc.j
            ));
        }
    }
    code.line(format!(
        "#pragma omp parallel if ({n} >= {}){}",
        share.team_trips, share.firstprivate
    ));
    code.open("{");
    model::declare_accumulators(ctx, code, kernel, Counts::InIntegers);
    ctx.declare(code, &kernel.privates);
    share.write(code);
    let mine = |acc: &Accumulator| {
        format!(
            "(({}){})",
            acc.code.wide_type(),
            ctx.name(acc.reduction.var)
        )
    };
    for acc in accumulators.iter().filter(|a| ordered(a)) {
        code.line(format!("m2cu_part{}[M2CU_THREAD] = {};", acc.j, mine(acc)));
        if acc.code.custom().is_some() {
            code.line(format!(
                "m2cu_parth{}[M2CU_THREAD] = {};",
                acc.j,
                acc.has_value()
            ));
        }
    }
    let merged: Vec<&Accumulator> = accumulators.iter().filter(|a| !ordered(a)).collect();
    if !merged.is_empty() {
        code.line("#pragma omp critical");
        code.open("{");
    }
    for acc in merged.iter().copied() {
        let thread = Located {
            v: mine(acc),
            ks: acc
                .reduction
                .locations
                .iter()
                .map(|&l| ctx.name(l).to_string())
                .collect(),
            t: acc.iteration(),
        };
        code.line(acc.code.combine_location(&acc.result(), &thread));
    }
    if !merged.is_empty() {
        code.close("}");
    }
    code.close("}");
    for acc in accumulators.iter().filter(|a| ordered(a)) {
        let (value, j, rc) = (acc.result_value(), acc.j, &acc.code);
        let part = format!("m2cu_part{j}[m2cu_k]");
        let fold = match rc.custom() {
            Some(c) => format!(
                "if (m2cu_parth{j}[m2cu_k]) {value} = {};",
                rc.call_combiner(c, &value, &part, ctx.err)
            ),
            None => format!("{value} = {};", rc.combine(&value, &part)),
        };
        code.line(format!(
            "for (int m2cu_k = 0; m2cu_k < m2cu_slots; m2cu_k++) {fold}"
        ));
    }
    finish_reductions(ctx, code, kernel);
}

/// Declares the host's result of `acc` ([`Accumulator::result`]): its value, starting at the
/// identity (or, for a custom reduction, the variable's value before the loop), and when located
/// its locations and the iteration, of type `iteration_ty`, they came from (-1: none).
pub fn declare_result(ctx: &Context, code: &mut Code, acc: &Accumulator, iteration_ty: &str) {
    let (r, result) = (&acc.reduction, acc.result());
    code.line(format!(
        "{} {} = {};",
        acc.code.wide_type(),
        result.v,
        acc.code.initial(ctx.name(r.var))
    ));
    for (k, &loc) in result.ks.iter().zip(&r.locations) {
        code.line(format!("{} {k} = 0;", local_c_type(ctx.f, loc)));
    }
    if acc.located() {
        code.line(format!("{iteration_ty} {} = -1;", result.t));
    }
}

/// Merges each reduction's result ([`crate::model::Accumulator::result`]) into the variable.
pub fn finish_reductions(ctx: &Context, code: &mut Code, kernel: &Kernel) {
    for acc in accumulators(ctx, kernel) {
        let r = &acc.reduction;
        let s = ctx.name(r.var);
        if acc.located() {
            let ks: Vec<&str> = r.locations.iter().map(|&l| ctx.name(l)).collect();
            code.line(acc.code.finish_location(s, &ks, &acc.result()));
        } else {
            code.line(acc.code.finish(s, &acc.result_value()));
        }
    }
}

/// The iteration that is last in sequential order stores the live-out privates.
pub fn live_out_copy(ctx: &Context, code: &mut Code, kernel: &Kernel, n: &str) {
    for &x in &kernel.live_out {
        code.line(format!(
            "if (m2cu_t == {n} - 1) *m2cu_lo_{x} = {x};",
            x = ctx.name(x)
        ));
    }
}

// Private histogram bins of a CPU thread (see [`crate::model::binned_array`]): a copy of the
// array per OpenMP thread, all in one allocation made before the threads start, used when the
// array has at most [`CPU_BINS`] elements (plain additions instead of `omp atomic`); bins start
// at -0 and a bin still -0 is not added, as in `crate::cuda::bins`.

/// Elements of a CPU thread's copy: at most 512 KiB of doubles.
pub const CPU_BINS: usize = 1 << 16;

/// Adds `addend` to element `offset` of the thread's own bins (`histogram_region`).
pub fn bins_update(offset: &str, addend: &str) -> String {
    format!("m2cu_bins[{offset}] += {addend};")
}

/// At the top of a CPU thread's part of a histogram loop: its own bins, cleared.
fn bins_setup(code: &mut Code, ty: &str) {
    code.line(format!(
        "{ty} *m2cu_bins = m2cu_all_bins + (int64_t)M2CU_THREAD * m2cu_stride;"
    ));
    code.line(format!(
        "for (int64_t m2cu_k = 0; m2cu_k < m2cu_nbins; m2cu_k++) m2cu_bins[m2cu_k] = -({ty})0;"
    ));
}

/// At the end of a CPU thread's part: adds its touched bins into the array, one thread at a
/// time.
fn bins_flush(ctx: &Context, code: &mut Code, array: LocalId) {
    code.line("#pragma omp critical");
    code.open("{");
    code.open("for (int64_t m2cu_k = 0; m2cu_k < m2cu_nbins; m2cu_k++) {");
    code.line(format!(
        "if (m2cu_bins[m2cu_k] != 0 || !signbit(m2cu_bins[m2cu_k])) {}[m2cu_k] += m2cu_bins[m2cu_k];",
        ctx.name(array)
    ));
    code.close("}");
    code.close("}");
}
