//! Array residency in the GPU host programs: every array has a host copy and a device copy, and
//! a flag word `m2cu_at_<x>` saying which of them is current (`M2CU_HOST`, `M2CU_DEVICE`, or
//! both). Copies move only when a side needs an array whose current value lives on the other
//! side, so arrays stay on the device across all kernels of a call (a host loop launching kernels
//! moves nothing) and cross only at the call's boundaries or where host code touches them.
//!
//! Invariants: host code reads or writes an array only after `M2CU_ON_HOST`; a kernel launch is
//! preceded by `M2CU_ON_DEVICE` for every array it uses; a write on one side makes that side the
//! only current one. The device copy is reallocated when the host array's size changed.

use std::collections::BTreeSet;

use m2cu_frontend::ir::{LocalId, StmtId};

use crate::c_text::string_literal;
use crate::code::Code;
use crate::stmt::Context;

/// The residency macros, written against the `M2CU_*` device services of either GPU flavor.
pub const MACROS: &str = r#"
/* Array residency: which copies of an array (host, device) hold its current value. */
#define M2CU_HOST 1
#define M2CU_DEVICE 2
/* Makes the device copy of x current: (re)allocated at its size, uploaded when stale. */
#define M2CU_ON_DEVICE(x, bytes) do { \
    uint64_t m2cu_b = (uint64_t)(bytes); \
    if (m2cu_dev_##x == 0 || m2cu_devbytes_##x != m2cu_b) { \
        if (m2cu_dev_##x != 0) M2CU_FREE(m2cu_dev_##x); \
        m2cu_dev_##x = 0; \
        m2cu_at_##x &= ~M2CU_DEVICE; \
        M2CU_CHECK(M2CU_ALLOC(m2cu_dev_##x, m2cu_b > 0 ? m2cu_b : 1)); \
        m2cu_devbytes_##x = m2cu_b; \
    } \
    if (!(m2cu_at_##x & M2CU_DEVICE)) { \
        if (m2cu_b > 0) M2CU_CHECK(M2CU_UPLOAD(m2cu_dev_##x, x, m2cu_b)); \
        m2cu_at_##x |= M2CU_DEVICE; \
    } \
} while (0)
/* Makes the host copy of x current: downloaded when only the device copy is. */
#define M2CU_HOST_SYNC(x) (!(m2cu_at_##x & M2CU_HOST) && m2cu_devbytes_##x > 0 \
    ? M2CU_DOWNLOAD(x, m2cu_dev_##x, m2cu_devbytes_##x) : 0)
#define M2CU_ON_HOST(x) do { M2CU_CHECK(M2CU_HOST_SYNC(x)); m2cu_at_##x |= M2CU_HOST; } while (0)
/* x = y where y's value lives only on the device: x's device copy becomes a copy of it there. */
#define M2CU_COPY_ON_DEVICE(x, y) do { \
    uint64_t m2cu_b = m2cu_devbytes_##y; \
    if (m2cu_dev_##x == 0 || m2cu_devbytes_##x != m2cu_b) { \
        if (m2cu_dev_##x != 0) M2CU_FREE(m2cu_dev_##x); \
        m2cu_dev_##x = 0; \
        M2CU_CHECK(M2CU_ALLOC(m2cu_dev_##x, m2cu_b > 0 ? m2cu_b : 1)); \
        m2cu_devbytes_##x = m2cu_b; \
    } \
    if (m2cu_b > 0) M2CU_CHECK(M2CU_DEVICE_COPY(m2cu_dev_##x, m2cu_dev_##y, m2cu_b)); \
    m2cu_at_##x = M2CU_DEVICE; \
} while (0)
"#;

/// Copies every input placed in `__constant__` memory there, once, when the call begins (the
/// function never writes them).
pub fn upload_constants(ctx: &Context, code: &mut Code) {
    for c in &ctx.analysis.constants.placed {
        let x = ctx.name(c.local);
        let ty = ctx.f.locals[c.local].ty.class.c_type();
        code.line(format!(
            "M2CU_CHECK(M2CU_TO_CONSTANT({}, m2cu_const_{x}, {x}, {} * sizeof({ty})));",
            string_literal(&format!("m2cu_const_{x}")),
            c.elements
        ));
    }
}

/// The file-scope `__constant__` arrays of the device code.
pub fn constant_declarations(ctx: &Context) -> String {
    ctx.analysis
        .constants
        .placed
        .iter()
        .map(|c| {
            let ty = ctx.f.locals[c.local].ty.class.c_type();
            format!(
                "/* coder.gpu.constantMemory({x}) */\n__constant__ {ty} m2cu_const_{x}[{}];\n",
                c.elements,
                x = ctx.name(c.local)
            )
        })
        .collect()
}

/// Declares the device copy of every array that some kernel uses, and the call's error word.
pub fn declare(ctx: &Context, code: &mut Code) {
    if !ctx.analysis.plan.kernels.is_empty() {
        code.line(format!("uint64_t {} = 0;", crate::model::ERROR_WORD));
    }
    for &a in &ctx.analysis.residency.device {
        code.line(format!(
            "uint64_t m2cu_dev_{x} = 0, m2cu_devbytes_{x} = 0;\nint m2cu_at_{x} = M2CU_HOST;",
            x = ctx.name(a)
        ));
    }
}

/// Brings `arrays` (device arrays) to the host before host code touches them.
pub fn on_host(ctx: &Context, code: &mut Code, arrays: &BTreeSet<LocalId>) {
    for &a in arrays {
        code.line(format!("M2CU_ON_HOST({});", ctx.name(a)));
    }
}

/// After host code wrote device array `array`: the host copy is the only current one.
pub fn written_on_host(ctx: &Context, code: &mut Code, array: LocalId) {
    code.line(format!("m2cu_at_{} = M2CU_HOST;", ctx.name(array)));
}

/// `x = y` for arrays that kernels use: on the device while the device copy of `y` is current
/// (`x`'s host copy then only takes `y`'s extents, so that a later download has room), else on
/// the host, so a time loop's `unew = u` after a kernel wrote `u` moves nothing between host and
/// device.
pub fn copy_array(ctx: &Context, code: &mut Code, s: StmtId, target: LocalId, source: LocalId) {
    let (x, y) = (ctx.name(target), ctx.name(source));
    code.open(format!("if (!(m2cu_at_{y} & M2CU_DEVICE)) {{"));
    ctx.plain_stmt(code, s);
    code.line(format!("m2cu_at_{x} = M2CU_HOST;"));
    code.close("} else {");
    code.open("");
    let ty = ctx.f.locals[target].ty.class.c_type();
    code.line(format!(
        "{ty} *m2cu_room = ({ty} *)malloc(m2cu_devbytes_{y} > 0 ? (size_t)m2cu_devbytes_{y} : 1);"
    ));
    code.line(format!(
        "if (!m2cu_room) {{ {} = M2CU_E_NOMEM; goto m2cu_done; }}",
        ctx.status
    ));
    code.line(format!(
        "free({x});\n{x} = m2cu_room; {x}_d0 = {y}_d0; {x}_d1 = {y}_d1;"
    ));
    if ctx.names.is_3d(target) {
        code.line(format!("{x}_d2 = {};", ctx.names.dim(source, 2)));
    }
    code.line(format!("M2CU_COPY_ON_DEVICE({x}, {y});"));
    code.close("}");
}

/// At the end of the call: the outputs' host copies are made current (when the call succeeded)
/// and every device copy is released.
pub fn finish(ctx: &Context, code: &mut Code) {
    let on_device = &ctx.analysis.residency.device;
    let outputs: BTreeSet<LocalId> = ctx.f.outputs.iter().copied().collect();
    for o in outputs.intersection(on_device) {
        code.line(format!(
            "if (m2cu_status == 0 && M2CU_HOST_SYNC({}) != 0) m2cu_status = M2CU_E_GPU;",
            ctx.name(*o)
        ));
    }
    for &a in on_device {
        let x = ctx.name(a);
        code.line(format!("if (m2cu_dev_{x} != 0) M2CU_FREE(m2cu_dev_{x});"));
    }
    if !ctx.analysis.plan.kernels.is_empty() {
        let w = crate::model::ERROR_WORD;
        code.line(format!("if ({w} != 0) M2CU_FREE({w});"));
    }
}
