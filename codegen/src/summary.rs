//! What each kernel is, as data for readers (the HTML report): its loop, its iteration space
//! and kind (the words of its leading comment), how it is launched, the arrays it reads and
//! writes on the device, the scalars it takes by value and what comes back to the host.
//!
//! Invariant: every fact is read from the same plan and model the printers use
//! ([`crate::launch`], [`crate::model`], [`crate::cuda::kernel::comment`]), so the summary
//! describes the code that is generated, not a second guess of it.

use m2cu_analysis::Kernel;
use m2cu_frontend::diag::Span;

use crate::cuda::tiles::TILE;
use crate::cuda::BLOCK;
use crate::model::accumulators;
use crate::reduce::Merge;
use crate::stmt::Context;

/// One kernel of the plan, described.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelSummary {
    /// The kernel's name (the one its loop's report line names).
    pub name: String,
    /// The other kernels generated for the same loop: a per-output variant, a tiled one, the
    /// first launch of a scan.
    pub variants: Vec<String>,
    /// The loop statement the kernel is.
    pub span: Span,
    /// `for i: reduction (minloc)`: what its leading comment says after the place.
    pub what: String,
    /// Threads per block.
    pub block: u32,
    /// How the grid is sized, in words.
    pub grid: String,
    /// How each reduction's block partials reach its result, one line per accumulator.
    pub merges: Vec<String>,
    /// The arrays it uses on the device: name and `reads`, `writes` or `reads and writes`
    /// (`reads (constant memory)` for a `coder.gpu.constantMemory` input).
    pub arrays: Vec<(String, String)>,
    /// Scalars passed by value.
    pub scalars: Vec<String>,
    /// What the host reads back after the launch: reduction results and last values.
    pub results: Vec<String>,
}

/// The summaries of every kernel of the plan, in order.
pub fn kernels(ctx: &Context) -> Vec<KernelSummary> {
    ctx.analysis
        .plan
        .kernels
        .iter()
        .map(|k| summary(ctx, k))
        .collect()
}

fn summary(ctx: &Context, kernel: &Kernel) -> KernelSummary {
    let text = ctx.source.map_or("", |s| s.text());
    let name = |l| m2cu_analysis::report::plain_name(ctx.f, text, l);
    let arrays = kernel
        .arrays
        .iter()
        .map(|a| {
            let access = match (a.read, a.written) {
                (true, true) => "reads and writes",
                (false, true) => "writes",
                _ => "reads",
            };
            let access = match ctx.analysis.constants.contains(a.local) {
                true => format!("{access} (constant memory)"),
                false => access.to_string(),
            };
            (name(a.local), access)
        })
        .collect();
    let accumulators = accumulators(ctx, kernel);
    let results = accumulators
        .iter()
        .flat_map(|a| {
            std::iter::once(a.reduction.var)
                .chain(a.reduction.locations.iter().copied())
                .map(name)
        })
        .chain(kernel.live_out.iter().map(|&l| name(l)))
        .chain(kernel.inductions.iter().map(|i| name(i.var)))
        .collect();
    KernelSummary {
        name: kernel.name.clone(),
        variants: crate::kernel_variants(kernel).collect(),
        span: ctx.f.stmts[kernel.stmt].span,
        what: format!(
            "{}: {}",
            source_names(ctx, kernel).map_or_else(
                || "over the elements".to_string(),
                |names| crate::cuda::kernel::iteration_space(kernel, &names)
            ),
            crate::cuda::kernel::kernel_kind(kernel)
        ),
        block: BLOCK,
        grid: grid(ctx, kernel),
        merges: accumulators
            .iter()
            .map(|a| format!("`{}`: {}", name(a.reduction.var), merge_text(a.merge)))
            .collect(),
        arrays,
        scalars: kernel.inputs.iter().map(|&l| name(l)).collect(),
        results,
    }
}

/// How the launch sizes the grid ([`crate::launch::launch`], `m2cu_grid_size` in the prelude).
fn grid(ctx: &Context, kernel: &Kernel) -> String {
    let spread = format!(
        "ceil(threads / {BLOCK}) blocks, at most 8 per multiprocessor; each thread takes every grid-size-th iteration"
    );
    let iterations = match source_names(ctx, kernel).as_deref() {
        None => "the elements".to_string(),
        Some([one]) => format!("`{one}`"),
        Some(many) => format!("`{}` together", many.join("`, `")),
    };
    if kernel.scan.is_some() {
        return format!("a parallel scan over {iterations}: block totals, then each block adds the totals before it ({spread}); one thread in order when the loop is short");
    }
    match &kernel.per_output {
        Some(p) => {
            let inner = ctx.f.locals[p.var].seen_name();
            let tiles = match p.tiles {
                Some(_) => format!(", or a block per {TILE}x{TILE} tile of outputs with the row and column terms in shared memory"),
                None => String::new(),
            };
            format!("one output per iteration of {iterations}, each reduced over `{inner}` by a thread, a warp or a block{tiles}, chosen at run time from the sizes ({spread})")
        }
        None => format!("one thread per iteration of {iterations} ({spread})"),
    }
}

/// The names the source gives the kernel's loop variables, outermost first; `None` when one
/// has none (the loop of a whole-array statement, a loop m2cu made).
fn source_names<'f>(ctx: &Context<'f>, kernel: &Kernel) -> Option<Vec<&'f str>> {
    kernel
        .levels
        .iter()
        .map(|l| ctx.f.locals[l.var].source_name())
        .collect()
}

fn merge_text(merge: Merge) -> &'static str {
    match merge {
        Merge::Atomic => "warp shuffle, block combine in shared memory, one atomic per block",
        Merge::Ordered => "warp shuffle, block combine in shared memory, each block's partial in its own slot, combined by the last block in a fixed tree (deterministic)",
        Merge::Located => "warp shuffle, block combine, the last block merges the block partials by value and first index",
    }
}
