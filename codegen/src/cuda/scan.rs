//! The CUDA kernels of a scan loop (see [`m2cu_analysis::scan`]): two launches over the same
//! parameters (the thread kernel's, with the block totals `m2cu_scan_part`, one slot per
//! block), plus `int m2cu_serial` on the second.
//!
//! The iterations are split into contiguous stretches, one per block, walked a block of
//! `BLOCK` iterations (a *tile*) at a time. An iteration's *term* is what it adds: its
//! statements run with the stores left out (`Context::without_stores`) and the running value
//! starting at the identity leave the term in it (the identity where the update is not
//! reached), since nothing before the update reads the running value or writes an array.
//! `<kernel>_partials` folds a thread's terms and stores the block's total of its stretch in
//! its slot. `<kernel>` starts each block from the running value before the loop combined with
//! the totals of the blocks before it, and for each tile computes the terms again, scans them
//! (an inclusive `__shfl_up_sync` scan within each warp shifted down a lane, then the warps'
//! totals in shared memory) into each iteration's exclusive prefix, runs the iteration's
//! statements as they are from the carry combined with that prefix (the update adds the term
//! itself), and carries the tile's total on. The thread of the last iteration writes the total
//! back (`m2cu_lo_<s>`). With `m2cu_serial` (a scan too short to gain from threads, or forced:
//! the host's `m2cu_scan_serial`), the second launch alone runs every iteration in order in one
//! thread, exactly as the CPU does.
//!
//! Invariant: every thread of a block reaches every barrier and shuffle of the tile loop (the
//! iteration's statements are guarded, never the scan), which the scan's shape guarantees: no
//! `continue`, `break` or `return` in the body.

use askama::Template;
use m2cu_analysis::{Kernel, Scan};

use crate::code::Code;
use crate::cuda::{kernel, shuffle_tree, Shuffled, BLOCK, WARP};
use crate::model;
use crate::reduce::ReductionCode;
use crate::stmt::Context;
use m2cu_frontend::operator::Combine;

#[derive(Template)]
#[template(path = "scan.cu.txt", escape = "none")]
struct ScanTemplate {
    comment: String,
    block: u32,
    name: String,
    params: Vec<String>,
    setup: String,
    ty: &'static str,
    var: String,
    identity: String,
    /// The loop variable of iteration `m2cu_t`, in each kernel's tile loop and in the serial
    /// loop.
    partials_decl: String,
    var_decl: String,
    serial_decl: String,
    /// An iteration's statements with the stores left out (its term), and as they are.
    term: String,
    body: String,
    serial_body: String,
    warp_tree: String,
    block_tree: String,
    warp_scan_x: String,
    warp_scan_w: String,
    fold_term: String,
    fold_part: String,
    fold_earlier: String,
    start: String,
    with_carry: String,
    carry_on: String,
}

/// The name of the first launch of a scan kernel; the second is the kernel's own name.
pub fn partials_name(kernel: &Kernel) -> String {
    format!("{}_partials", kernel.name)
}

/// The CUDA source of both kernels of `kernel`, whose loop is the scan `scan`.
pub fn kernels(ctx: &Context, kernel: &Kernel, scan: &Scan) -> String {
    let f = ctx.f;
    let device = super::device(ctx);
    let body = &kernel.bodies(f)[0].0;
    let rc = ReductionCode::new(ctx, &scan.reduction);
    let ty = rc.class.c_type();
    let suffixes = model::range_suffixes(kernel);
    let decl = |indent| {
        let mut code = Code::new(indent);
        code.line(ctx.level_values(kernel, &suffixes, "m2cu_t"));
        code.finish()
    };
    let shuffled = [Shuffled {
        ty,
        from: "m2cu_v",
        into: "m2cu_y".into(),
    }];
    let merge = format!("m2cu_v = {};", rc.combine("m2cu_v", "m2cu_y"));
    let var = ctx.name(scan.var).to_string();
    // A sum starts from -0, its exact identity (-0 + v is v, a negative zero too), so a term
    // keeps its bits.
    let identity = match rc.combine_op() {
        Combine::Add => format!("(-{})", rc.identity()),
        _ => rc.identity(),
    };
    ScanTemplate {
        comment: format!("{}, a parallel scan of {var}", kernel::comment(ctx, kernel)),
        block: BLOCK,
        name: kernel.name.clone(),
        params: model::param_decls(ctx, kernel),
        setup: kernel::variant_setup(ctx, kernel),
        ty,
        identity,
        partials_decl: decl(3),
        var_decl: decl(2),
        serial_decl: decl(4),
        term: device.without_stores().block_text(body, 3),
        body: device.block_text(body, 3),
        serial_body: device.block_text(body, 4),
        warp_tree: shuffle_tree(4, &shuffled, &merge),
        block_tree: shuffle_tree(8, &shuffled, &merge),
        warp_scan_x: scan_tree(8, ty, "m2cu_x", "m2cu_lane", &rc),
        warp_scan_w: scan_tree(12, ty, "m2cu_w", "m2cu_lane", &rc),
        fold_term: rc.combine("m2cu_v", &var),
        fold_part: rc.combine("m2cu_v", "m2cu_y"),
        fold_earlier: rc.combine("m2cu_y", "m2cu_e"),
        start: rc.combine(&var, "m2cu_v"),
        with_carry: rc.combine("m2cu_carry", "m2cu_e"),
        carry_on: rc.combine("m2cu_carry", "m2cu_y"),
        var,
    }
    .render()
    .expect("scan template renders")
}

/// An inclusive scan of `value` over the warp, indented by `indent` spaces: at offsets 1, 2,
/// ..., `WARP / 2` each lane combines the value of the lane `o` below it (an earlier one)
/// into its own. No trailing newline.
fn scan_tree(indent: usize, ty: &str, value: &str, lane: &str, rc: &ReductionCode) -> String {
    let pad = " ".repeat(indent);
    format!(
        "{pad}for (int m2cu_o = 1; m2cu_o < {WARP}; m2cu_o <<= 1) {{\n\
         {pad}    {ty} m2cu_y = __shfl_up_sync(0xffffffffu, {value}, m2cu_o);\n\
         {pad}    if ({lane} >= m2cu_o) {value} = {};\n\
         {pad}}}",
        rc.combine("m2cu_y", value)
    )
}
