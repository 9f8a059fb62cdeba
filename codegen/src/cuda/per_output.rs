//! The group-per-output variant of a kernel with an inner reduction (see
//! [`m2cu_analysis::per_output`]): `<kernel>_lanes`, where a group of `m2cu_lanes` threads (a
//! warp, or the whole block) computes one output. Every lane runs the prologue, takes every
//! `m2cu_lanes`-th iteration of the inner loop with its accumulators starting at the identity,
//! and the group combines the partials (warp shuffles, then shared memory across the block's
//! warps); the first lane merges the result into the value from before the loop and runs the
//! epilogue.
//!
//! The variant takes the thread kernel's parameters plus `int m2cu_lanes`, which is 32 or the
//! block size, so a group is a whole warp or a whole block and every lane of it reaches the
//! shuffles and barriers together. The host picks the variant and the lanes with
//! `m2cu_lanes_per_output` (in the host prelude) from the output count and the inner extent,
//! unless the runtime forces them (`m2cu_gpu.lanes`, which the emulator's tests set).

use askama::Template;
use m2cu_analysis::{Kernel, PerOutput};

use crate::code::Code;
use crate::cuda::kernel;
use crate::cuda::{shuffle_tree, Shuffled, BLOCK};
use crate::model;
use crate::reduce::ReductionCode;
use crate::stmt::Context;

#[derive(Template)]
#[template(path = "per_output.cu.txt", escape = "none")]
struct PerOutputTemplate {
    comment: String,
    block: u32,
    name: String,
    params: Vec<String>,
    reductions: Vec<GroupReduction>,
    setup: String,
    var_decl: String,
    prologue: String,
    /// `file.m:N: for k`: the inner loop, for its comment.
    inner_loop: String,
    inner_range: String,
    inner_count: String,
    inner_body: String,
    epilogue: String,
}

/// One reduction of the inner loop, as the template spells it.
struct GroupReduction {
    j: usize,
    var: String,
    kind: &'static str,
    ty: &'static str,
    wide: &'static str,
    identity: String,
    wide_identity: String,
    /// The shuffle trees of the warp and of the block's warps ([`crate::cuda::shuffle_tree`]).
    warp_tree: String,
    block_tree: String,
    finish: String,
}

/// The name of the group-per-output variant of `kernel`.
pub fn variant_name(kernel: &Kernel) -> String {
    format!("{}_lanes", kernel.name)
}

/// The CUDA source of the group-per-output variant of `kernel`, whose inner reduction is `p`.
pub fn kernel(ctx: &Context, kernel: &Kernel, p: &PerOutput) -> String {
    let f = ctx.f;
    let device = super::device(ctx);
    let body = &kernel.bodies(f)[0].0;
    let suffixes = model::range_suffixes(kernel);
    let mut var_decl = Code::new(2);
    var_decl.line(ctx.level_values(kernel, &suffixes, "m2cu_t"));
    let (range, k) = device.range_decls(p.stmt);
    let mut inner_range = Code::new(3);
    inner_range.line(range);
    let mut inner_body = Code::new(4);
    inner_body.line(format!(
        "{} = {};",
        ctx.name(p.var),
        ctx.range_element(p.var, &k, "m2cu_u")
    ));
    device.block(&mut inner_body, m2cu_analysis::loops::loop_body(f, p.stmt));
    let mut params = model::param_decls(ctx, kernel);
    params.push("int m2cu_lanes".into());
    PerOutputTemplate {
        comment: format!(
            "{}, its reduction over {} spread over a warp or a block per output",
            kernel::comment(ctx, kernel),
            ctx.name(p.var)
        ),
        block: BLOCK,
        name: variant_name(kernel),
        params,
        reductions: p
            .reductions
            .iter()
            .enumerate()
            .map(|(j, r)| {
                let rc = ReductionCode::new(ctx, r);
                let var = ctx.name(r.var).to_string();
                let wide = rc.wide_type();
                let shuffled = [Shuffled {
                    ty: wide,
                    from: "m2cu_v",
                    into: "m2cu_y".into(),
                }];
                let merge = format!("m2cu_v = {};", rc.combine("m2cu_v", "m2cu_y"));
                GroupReduction {
                    j,
                    kind: r.name(),
                    ty: rc.class.c_type(),
                    wide,
                    identity: rc.identity(),
                    wide_identity: rc.wide_identity(),
                    warp_tree: shuffle_tree(16, &shuffled, &merge),
                    block_tree: shuffle_tree(24, &shuffled, &merge),
                    finish: rc.finish(&var, "m2cu_v"),
                    var,
                }
            })
            .collect(),
        setup: kernel::variant_setup(ctx, kernel),
        var_decl: var_decl.finish(),
        prologue: device.block_text(&body[..p.position], 2),
        inner_loop: crate::trace::placed(
            ctx,
            ctx.f.stmts[p.stmt].span,
            &format!("for {}", ctx.name(p.var)),
        ),
        inner_range: inner_range.finish(),
        inner_count: format!("m2cu_n{k} && !{}", device.status),
        inner_body: inner_body.finish(),
        epilogue: device.block_text(&body[p.position + 1..], 3),
    }
    .render()
    .expect("per-output template renders")
}
