//! Histograms in shared memory: a kernel whose scatter-adds (`h(b) = h(b) + e`) all go to one
//! array keeps a per-block copy of it in shared memory when the array has at most [`BINS`]
//! elements, adds there (shared-memory atomics are far cheaper than global ones), and adds each
//! block's bins into the array once at the end; a larger array is updated in global memory as
//! before. Whether the copy is used is decided in the kernel from the array's extents, the same
//! for every thread.
//!
//! Invariants: bins start at -0, the identity of `+` that keeps every sum's sign (`-0 + x` is
//! `x`, `-0 + -0` is `-0`), and a bin that is still -0 at the end is not added, since `h + -0` is
//! `h`; so an element no iteration touched keeps its bits. As with global atomics, the additions
//! happen in an order of the hardware's choosing.

use m2cu_analysis::Kernel;
use m2cu_frontend::ir::{LocalId, StmtKind};

use crate::code::Code;
use crate::stmt::Context;

/// Elements of the shared-memory copy: 16 KiB of doubles (8 KiB of singles).
pub const BINS: usize = 2048;

/// The array that every scatter-add of `kernel` updates, when there is exactly one.
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

/// `atomicAdd` of `addend` to element `offset` of `array`: in the bins when they are used.
pub fn update(ctx: &Context, array: LocalId, offset: &str, addend: &str) -> String {
    format!(
        "if (m2cu_binned) atomicAdd(&m2cu_bins[{offset}], {addend});\nelse atomicAdd(&{}[{offset}], {addend});",
        ctx.name(array)
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
