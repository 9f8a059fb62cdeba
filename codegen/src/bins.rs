//! Private histogram bins: a parallel loop whose scatter-adds (`h(b) = h(b) + e`) all go to one
//! array adds into a private copy of it, then adds the copy into the array once. In a kernel the
//! copy is per block, in shared memory, used when the array has at most [`BINS`] elements
//! (shared-memory atomics are far cheaper than global ones); on the CPU it is per OpenMP thread,
//! on the heap, used when the array has at most [`CPU_BINS`] elements (plain additions instead
//! of `omp atomic`). A larger array is updated in place with atomics. Whether the copy is used
//! is decided at run time from the array's extents, the same for every thread.
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

/// Elements of a CPU thread's copy: at most 512 KiB of doubles.
pub const CPU_BINS: usize = 1 << 16;

/// The array that every scatter-add of `kernel` updates, when there is exactly one: the one to
/// keep private bins of.
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

/// Adds `addend` to element `offset` of `array` in a kernel: an `atomicAdd` to the block's
/// shared copy when it is used, else to the array.
pub fn device_update(ctx: &Context, array: LocalId, offset: &str, addend: &str) -> String {
    let x = ctx.name(array);
    format!(
        "if (m2cu_binned) atomicAdd(&m2cu_bins[{offset}], {addend});\nelse atomicAdd(&{x}[{offset}], {addend});"
    )
}

/// Adds `addend` to element `offset` of `array` on the CPU: a plain addition to the thread's own
/// copy when it is used, else an `omp atomic` one to the array.
pub fn cpu_update(ctx: &Context, array: LocalId, offset: &str, addend: &str) -> String {
    let x = ctx.name(array);
    format!(
        "if (m2cu_bins != NULL) m2cu_bins[{offset}] += {addend};\nelse {{\n    #pragma omp atomic\n    {x}[{offset}] += {addend};\n}}"
    )
}

/// At the top of a CPU thread's part of the parallel loop: its own bins, cleared, when the
/// array fits.
pub fn cpu_setup(ctx: &Context, code: &mut Code, array: LocalId) {
    let ty = ctx.f.locals[array].ty.class.c_type();
    code.line(format!(
        "const int64_t m2cu_nbins = {};",
        ctx.names.numel(array)
    ));
    code.line(format!(
        "{ty} *m2cu_bins = m2cu_nbins <= {CPU_BINS} ? ({ty} *)malloc((size_t)(m2cu_nbins > 0 ? m2cu_nbins : 1) * sizeof({ty})) : NULL;"
    ));
    code.line(format!(
        "if (m2cu_bins != NULL) for (int64_t m2cu_k = 0; m2cu_k < m2cu_nbins; m2cu_k++) m2cu_bins[m2cu_k] = -({ty})0;"
    ));
}

/// At the end of a CPU thread's part: adds its touched bins into the array, one thread at a
/// time.
pub fn cpu_flush(ctx: &Context, code: &mut Code, array: LocalId) {
    code.open("if (m2cu_bins != NULL) {");
    code.line("#pragma omp critical");
    code.open("{");
    code.open("for (int64_t m2cu_k = 0; m2cu_k < m2cu_nbins; m2cu_k++) {");
    code.line(format!(
        "if (m2cu_bins[m2cu_k] != 0 || !signbit(m2cu_bins[m2cu_k])) {}[m2cu_k] += m2cu_bins[m2cu_k];",
        ctx.name(array)
    ));
    code.close("}");
    code.close("}");
    code.line("free(m2cu_bins);");
    code.close("}");
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
