//! CUDA kernels: one `extern "C" __global__` function per planned loop, NVRTC-ready.
//!
//! Shape: a grid-stride loop over iterations `t`; each thread keeps its own accumulator for every
//! reduction (starting at the identity), then reduces it across its warp with `__shfl_down_sync`,
//! across the block in shared memory, and merges the block's partial with one atomic (or, for
//! min/max with location, writes it to a per-block slot and the last block to finish merges the
//! slots; a custom reduction has no identity, so each partial carries a "has a value" flag and
//! the block's partial is folded into the result by a compare-and-swap loop; under
//! `--deterministic`, floating sums and products and custom reductions write per-block slots that
//! the last block combines in a fixed tree, [`Merge::Ordered`]). Parameter order,
//! which [`crate::launch`] mirrors: arrays (pointer, rows, columns), scalar inputs, the induction
//! variables' values before the loop (`m2cu_iv_<k>`; each iteration declares its own `k` from the
//! closed form), the ranges (`m2cu_first`, `m2cu_final`, `m2cu_step`, `m2cu_n`, one set per
//! level of a collapsed nest), live-out pointers, reduction buffers, and the error status.

use askama::Template;
use m2cu_analysis::Kernel;
use m2cu_frontend::ir::LocalId;

use crate::code::Code;
use crate::cuda::{atomics, bins, shuffle_tree, Shuffled, BLOCK, LANE_MASK, WARP};
use crate::expr::local_c_type;
use crate::model;
use crate::model::{Accumulator, Counts};
use crate::openmp::induction_decls;
use crate::raise;
use crate::reduce::{Located, Merge};
use crate::stmt::{Context, Target};

#[derive(Template)]
#[template(path = "kernel.cu.txt", escape = "none")]
struct KernelTemplate {
    comment: String,
    block: u32,
    name: String,
    params: Vec<String>,
    setup: String,
    var_decl: String,
    body: String,
    /// The block's histogram bins into global memory (`crate::cuda::bins`), if any.
    flush: String,
    tails: Vec<String>,
}

#[derive(Template)]
#[template(path = "reduce_tail.cu.txt", escape = "none")]
struct ReduceTail {
    j: usize,
    var: String,
    kind: &'static str,
    wide: &'static str,
    combine: String,
    /// The shuffle trees of the warp and of the block's warps ([`crate::cuda::shuffle_tree`]).
    warp_tree: String,
    block_tree: String,
    identity: String,
    atomic: String,
    /// [`Merge::Ordered`]: block partials in slots `m2cu_pv<j>`, the last block's tree.
    ordered: bool,
}

#[derive(Template)]
#[template(path = "location_tail.cu.txt", escape = "none")]
struct LocationTail {
    j: usize,
    var: String,
    loc_names: String,
    locs: Vec<Loc>,
    kind: &'static str,
    wide: &'static str,
    identity: String,
    warp_tree: String,
    block_tree: String,
    /// Merges the partial `m2cu_y*` into `m2cu_v*` (the last block's loop over the slots).
    combine_shuffled: String,
}

#[derive(Template)]
#[template(path = "custom_tail.cu.txt", escape = "none")]
struct CustomTail {
    j: usize,
    var: String,
    function: String,
    ty: &'static str,
    warp_tree: String,
    block_tree: String,
    atomic: String,
    /// [`Merge::Ordered`]: block partials and flags in slots `m2cu_pv<j>` and `m2cu_ph<j>`;
    /// the last block's tree, then `into_result` (the result slot combined with its merge).
    ordered: bool,
    combine: String,
    into_result: String,
}

/// One location variable of a location tail.
struct Loc {
    name: String,
    ty: &'static str,
}

/// A kernel body: its own loop is placed already, and scatter-adds are CUDA atomics.
pub struct Device;

impl Target for Device {
    fn places_kernels(&self) -> bool {
        false
    }

    fn planned_loop(&self, _: &Context, _: &mut Code, kernel: &Kernel) {
        unreachable!("a kernel body places no kernel ({})", kernel.name)
    }

    fn atomic_add(&self, code: &mut Code, element: &str, addend: &str) {
        code.line(format!("atomicAdd(&{element}, {addend});"));
    }

    fn binned_add(&self, ctx: &Context, array: LocalId, offset: &str, addend: &str) -> String {
        bins::update(ctx, array, offset, addend)
    }
}

/// The CUDA source of one kernel.
pub fn kernel(ctx: &Context, kernel: &Kernel) -> String {
    let f = ctx.f;
    let binned = model::binned_array(ctx, kernel);
    let device = Context {
        binned,
        ..model::with_reduction_hooks(&super::device(ctx), kernel, "m2cu_t", Counts::InClass)
    };
    let mut setup = Code::new(1);
    constant_aliases(ctx, &mut setup, kernel);
    if let Some(array) = binned {
        bins::setup(ctx, &mut setup, array);
    }
    model::declare_accumulators(ctx, &mut setup, kernel, Counts::InClass);
    device.declare(&mut setup, &kernel.privates);
    device.declare_scratch(&mut setup);
    let mut code = Code::new(2);
    code.line(induction_decls(ctx, kernel, "m2cu_t"));
    if kernel.raises {
        setup.line("const int64_t m2cu_slot = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;");
        code.line("if (m2cu_t > *(volatile long long *)m2cu_fail_at) break;");
        raise::iteration(
            &device,
            &mut code,
            kernel,
            &kernel.bodies(f),
            "m2cu_fails[m2cu_slot]",
            "atomicMin(m2cu_fail_at, (long long)m2cu_t);\nbreak;",
        );
    } else {
        for body in kernel.bodies(f) {
            device.block(&mut code, body);
        }
    }
    for &x in &kernel.live_out {
        code.line(format!(
            "if (m2cu_t == m2cu_n - 1) *m2cu_lo_{x} = {x};",
            x = ctx.name(x)
        ));
    }
    let template = KernelTemplate {
        comment: comment(ctx, kernel),
        block: BLOCK,
        name: kernel.name.clone(),
        params: model::param_decls(ctx, kernel),
        setup: setup.finish(),
        var_decl: {
            let mut decl = Code::new(2);
            decl.line(ctx.level_values(kernel, &model::range_suffixes(kernel), "m2cu_t"));
            decl.finish()
        },
        body: code.finish(),
        flush: binned.map(|a| bins::flush(ctx, a)).unwrap_or_default(),
        tails: model::accumulators(ctx, kernel)
            .iter()
            .map(|acc| tail(ctx, acc))
            .collect(),
    };
    let source = template.render().expect("kernel template renders");
    match kernel.raises {
        true => format!("{}\n{source}", raise::record_struct(ctx, kernel)),
        false => source,
    }
}

/// Local names for the arrays the kernel reads from `__constant__` memory, which are not
/// parameters.
/// The first lines of a per-output or tiled variant's body: the constant-memory aliases and the
/// privates' declarations.
pub(crate) fn variant_setup(ctx: &Context, kernel: &Kernel) -> String {
    let mut setup = Code::new(1);
    constant_aliases(ctx, &mut setup, kernel);
    super::device(ctx).declare(&mut setup, &kernel.privates);
    setup.finish()
}

pub(crate) fn constant_aliases(ctx: &Context, code: &mut Code, kernel: &Kernel) {
    for a in &kernel.arrays {
        if ctx.analysis.constants.contains(a.local) {
            let ty = crate::expr::complex::c_type(ctx.f.locals[a.local].ty);
            let x = ctx.name(a.local);
            code.line(format!("const {ty} *{x} = m2cu_const_{x};"));
        }
    }
}

/// What the kernel's leading comment says: the place of its loop, its loops, and map or
/// reduction.
pub(crate) fn comment(ctx: &Context, kernel: &Kernel) -> String {
    let names: Vec<&str> = kernel.levels.iter().map(|l| ctx.name(l.var)).collect();
    let what = format!(
        "{}: {}",
        iteration_space(kernel, &names),
        kernel_kind(kernel)
    );
    crate::trace::placed(ctx, ctx.f.stmts[kernel.stmt].span, &what)
}

/// `for i` for one loop; `for j, i (2-D, i fastest)` for a collapsed nest; `names` are the
/// levels' variables, outermost first.
pub(crate) fn iteration_space(kernel: &Kernel, names: &[&str]) -> String {
    if !kernel.fused.is_empty() {
        return format!(
            "{} loops fused, for {}",
            kernel.fused.len() + 1,
            names.join(", ")
        );
    }
    match names.len() {
        1 => format!("for {}", names[0]),
        n => format!(
            "for {} ({n}-D, {} fastest)",
            names.join(", "),
            names[kernel.order[0]]
        ),
    }
}

/// `N`, or `N of FILE` for a loop of a function file other than the entry.
pub(crate) fn kernel_kind(kernel: &Kernel) -> String {
    if let Some(scan) = &kernel.scan {
        return format!("scan ({})", scan.reduction.name());
    }
    if kernel.reductions.is_empty() && !kernel.atomic_updates.is_empty() {
        return "histogram (scatter-add)".into();
    }
    if kernel.reductions.is_empty() {
        return "map".into();
    }
    let kinds: Vec<&str> = kernel.reductions.iter().map(|r| r.name()).collect();
    format!("reduction ({})", kinds.join(", "))
}

fn tail(ctx: &Context, acc: &Accumulator) -> String {
    let f = ctx.f;
    let (r, rc, j) = (&acc.reduction, &acc.code, acc.j);
    let var = ctx.name(r.var).to_string();
    let n = r.locations.len();
    let wide = rc.wide_type();
    let trees = |values: &[Shuffled], merge: &str| {
        (
            shuffle_tree(8, values, merge),
            shuffle_tree(12, values, merge),
        )
    };
    let value = |into: &str| Shuffled {
        ty: wide,
        from: "m2cu_v",
        into: into.into(),
    };
    let rendered = if let Some(c) = rc.custom() {
        // Only a lane that reads another lane's partial merges: lanes past the warp's end read
        // their own, which must not be combined with itself.
        let combine = rc.combine("m2cu_v", "m2cu_y");
        let merge = format!(
            "if (m2cu_yh && (threadIdx.x & {LANE_MASK}) + m2cu_o < {WARP}) {{ m2cu_v = m2cu_h ? {combine} : m2cu_y; m2cu_h = 1; }}"
        );
        let flag = Shuffled {
            ty: "int",
            from: "m2cu_h",
            into: "m2cu_yh".into(),
        };
        let (warp_tree, block_tree) = trees(&[value("m2cu_y"), flag], &merge);
        let result = format!("{}[0]", acc.device_result());
        CustomTail {
            j,
            var,
            function: f.combiners[c].name.clone(),
            ty: wide,
            warp_tree,
            block_tree,
            atomic: atomics::reduction(rc, &acc.device_result(), "m2cu_v"),
            ordered: acc.merge == Merge::Ordered,
            combine,
            into_result: format!("{result} = {};", rc.combine(&result, "m2cu_v")),
        }
        .render()
    } else if n == 0 {
        let merge = format!("m2cu_v = {};", rc.combine("m2cu_v", "m2cu_y"));
        let (warp_tree, block_tree) = trees(&[value("m2cu_y")], &merge);
        ReduceTail {
            j,
            var,
            kind: r.name(),
            wide,
            combine: rc.combine("m2cu_v", "m2cu_y"),
            warp_tree,
            block_tree,
            identity: rc.wide_identity(),
            atomic: atomics::reduction(rc, &acc.device_result(), "m2cu_v"),
            ordered: acc.merge == Merge::Ordered,
        }
        .render()
    } else {
        let names: Vec<&str> = r.locations.iter().map(|&l| ctx.name(l)).collect();
        let (mine, theirs) = (
            Located::numbered("m2cu_v", "m2cu_k", n, "m2cu_i"),
            Located::numbered("m2cu_yv", "m2cu_yk", n, "m2cu_yi"),
        );
        let mut values = vec![value("m2cu_yv")];
        for (q, &l) in r.locations.iter().enumerate() {
            values.push(Shuffled {
                ty: local_c_type(f, l),
                from: &mine.ks[q],
                into: theirs.ks[q].clone(),
            });
        }
        values.push(Shuffled {
            ty: "long long",
            from: "m2cu_i",
            into: "m2cu_yi".into(),
        });
        let combine_shuffled = rc.combine_location(&mine, &theirs);
        let (warp_tree, block_tree) = trees(&values, &combine_shuffled);
        LocationTail {
            j,
            var,
            loc_names: names.join(", "),
            locs: r
                .locations
                .iter()
                .map(|&l| Loc {
                    name: ctx.name(l).to_string(),
                    ty: local_c_type(f, l),
                })
                .collect(),
            kind: r.name(),
            wide,
            identity: rc.wide_identity(),
            warp_tree,
            block_tree,
            combine_shuffled,
        }
        .render()
    };
    rendered.expect("reduction tail template renders") + "\n"
}
