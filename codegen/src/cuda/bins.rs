//! A kernel's private histogram bins (see [`crate::model::binned_array`]): a per-block copy of
//! the array in shared memory, used when the array has at most [`BINS`] elements (shared-memory
//! atomics are far cheaper than global ones), else the array is updated in place with global
//! atomics. Whether the copy is used is decided at run time from the array's extents, the same
//! for every thread.
//!
//! Invariants: bins start at -0, the identity of `+` that keeps every sum's sign (`-0 + x` is
//! `x`, `-0 + -0` is `-0`), and a bin that is still -0 at the end is not added, since `h + -0` is
//! `h`; so an element no iteration touched keeps its bits. As with global atomics, the additions
//! happen in an order of the hardware's choosing.

use m2cu_frontend::ir::LocalId;

use crate::code::Code;
use crate::stmt::Context;

/// Elements of the shared-memory copy: 16 KiB of doubles (8 KiB of singles).
pub const BINS: usize = 2048;

/// Declares the bins and clears them when the array fits.
pub fn setup(ctx: &Context, code: &mut Code, array: LocalId) {
    let ty = ctx.f.locals[array].ty.class.c_type();
    code.line(format!("__shared__ {ty} m2cu_bins[{BINS}];"));
    code.line(format!(
        "const int64_t m2cu_nbins = {};",
        ctx.names.numel(array)
    ));
    code.line(format!("const bool m2cu_binned = m2cu_nbins <= {BINS};"));
    code.open("if (m2cu_binned) {");
    code.line(format!(
        "for (int64_t m2cu_k = threadIdx.x; m2cu_k < m2cu_nbins; m2cu_k += blockDim.x) m2cu_bins[m2cu_k] = -({ty})0;"
    ));
    code.line("__syncthreads();");
    code.close("}");
}

/// Adds `addend` to element `offset` of `array` in a kernel: an `atomicAdd` to the block's
/// shared copy when it is used, else to the array.
pub fn update(ctx: &Context, array: LocalId, offset: &str, addend: &str) -> String {
    let x = ctx.name(array);
    format!(
        "if (m2cu_binned) atomicAdd(&m2cu_bins[{offset}], {addend});\nelse atomicAdd(&{x}[{offset}], {addend});"
    )
}

/// After the kernel's loop: adds the block's touched bins into the array.
pub fn flush(ctx: &Context, array: LocalId) -> String {
    let ty = ctx.f.locals[array].ty.class.c_type();
    let mut code = Code::new(1);
    code.line("/* the block's bins into the array (a bin still -0 was never touched) */");
    code.open("if (m2cu_binned) {");
    code.line("__syncthreads();");
    code.open("for (int64_t m2cu_k = threadIdx.x; m2cu_k < m2cu_nbins; m2cu_k += blockDim.x) {");
    code.line(format!("{ty} m2cu_b = m2cu_bins[m2cu_k];"));
    code.line(format!(
        "if (m2cu_b != 0 || !signbit(m2cu_b)) atomicAdd(&{}[m2cu_k], m2cu_b);",
        ctx.name(array)
    ));
    code.close("}");
    code.close("}");
    code.finish()
}
