//! The CUDA printer: kernels ([`kernel`]), their per-output and tiled variants ([`per_output`],
//! [`tiles`]), the two launches of a scan ([`scan`]), and the target's constants and spellings: what the kernels and their launches
//! assume of the device.
//! CUDA intrinsics (`__shfl_down_sync`, `__shfl_up_sync`, `atomic*`, `__syncthreads`, `threadIdx`) appear only in
//! this module and its templates (and in the prelude's CUDA platform macros).
//!
//! Invariant: `WARP` is a power of two and divides `BLOCK`; the shuffle trees start at
//! `HALF_WARP`, a block's warps are `threadIdx.x >> WARP_SHIFT`, a thread's lane is
//! `threadIdx.x & LANE_MASK`, and a block has at most `WARP` warps (one shared slot each).

pub mod atomics;
pub mod bins;
pub mod kernel;
pub mod per_output;
pub mod scan;
pub mod tiles;

use crate::stmt::Context;

/// The same context inside a kernel body: a kernel's error status is `*m2cu_err`.
pub fn device<'a>(ctx: &Context<'a>) -> Context<'a> {
    ctx.for_target(&kernel::Device, "(*m2cu_err)", "m2cu_err")
}

/// Threads per warp: the width of `__shfl_down_sync` trees.
pub const WARP: u32 = 32;
/// The first offset of a shuffle tree.
pub const HALF_WARP: u32 = WARP / 2;
/// `threadIdx.x & LANE_MASK` is the lane within the warp.
pub const LANE_MASK: u32 = WARP - 1;
/// `threadIdx.x >> WARP_SHIFT` is the warp within the block.
pub const WARP_SHIFT: u32 = WARP.trailing_zeros();
/// Threads per block of every kernel.
pub const BLOCK: u32 = 256;

const _: () = assert!(WARP.is_power_of_two() && BLOCK.is_multiple_of(WARP) && BLOCK / WARP <= WARP);

/// One value a shuffle tree moves down the warp: `ty into = __shfl_down_sync(..., from, o)`.
pub struct Shuffled<'a> {
    pub ty: &'a str,
    pub from: &'a str,
    pub into: String,
}

/// The warp shuffle tree, indented by `indent` spaces: at offsets `HALF_WARP`, ..., 1 every
/// lane reads `values` from the lane `o` above it, then runs `merge` (a statement over the
/// `into` names). Lane 0 ends with the warp's combination. No trailing newline.
pub fn shuffle_tree(indent: usize, values: &[Shuffled], merge: &str) -> String {
    let pad = " ".repeat(indent);
    let mut out = format!("{pad}for (int m2cu_o = {HALF_WARP}; m2cu_o > 0; m2cu_o >>= 1) {{\n");
    for v in values {
        out += &format!(
            "{pad}    {} {} = __shfl_down_sync(0xffffffffu, {}, m2cu_o);\n",
            v.ty, v.into, v.from
        );
    }
    out += &format!("{pad}    {merge}\n{pad}}}");
    out
}

/// The kernel that takes the detail of a kernel's failed index check (the prelude's
/// `m2cu_kdetail`) into the call's error word buffer, after its status, and clears it for the
/// next failure; the host launches it, one thread, after a kernel that failed.
pub const TAKE_DETAIL: &str = "m2cu_take_detail";

/// The error word buffer's bytes: the status, then (at [`DETAIL_OFFSET`]) a kernel's detail.
pub const ERROR_WORD_BYTES: u32 = 32;

/// Where a kernel's detail lies in the error word buffer.
pub const DETAIL_OFFSET: u32 = 8;

/// The source of [`TAKE_DETAIL`].
pub fn take_detail_kernel() -> String {
    format!(
        "/* Takes a failed index check's detail into the error word buffer and clears it. */\nextern \"C\" __global__ void {TAKE_DETAIL}(char *word)\n{{\n    *(m2cu_kdetail_t *)(word + {DETAIL_OFFSET}) = m2cu_kdetail;\n    m2cu_kdetail.claimed = 0;\n}}\n"
    )
}
