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

use m2cu_analysis::residency::Site;
use m2cu_frontend::ir::{ExprKind, LocalId, StmtId, StmtKind};

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
/* After host code stored element off of x while only the device copy was current: the element
 * goes to the device alone, and the device copy stays current. */
#define M2CU_ELEMENT_TO_DEVICE(x, T, off) do { \
    int64_t m2cu_e = (off); \
    if (m2cu_e >= 0 && (uint64_t)(m2cu_e + 1) * sizeof(T) <= m2cu_devbytes_##x) \
        M2CU_CHECK(M2CU_UPLOAD(m2cu_dev_##x + (uint64_t)m2cu_e * sizeof(T), (x) + m2cu_e, sizeof(T))); \
} while (0)
/* Makes element off (0-based, of type T) of x's host copy current alone, when only the device
 * copy is current and off is inside it; x's host copy as a whole stays stale. */
#define M2CU_ELEMENT_ON_HOST(x, T, off) do { \
    int64_t m2cu_e = (off); \
    if (!(m2cu_at_##x & M2CU_HOST) && m2cu_e >= 0 \
        && (uint64_t)(m2cu_e + 1) * sizeof(T) <= m2cu_devbytes_##x) \
        M2CU_CHECK(M2CU_DOWNLOAD((x) + m2cu_e, m2cu_dev_##x + (uint64_t)m2cu_e * sizeof(T), sizeof(T))); \
} while (0)
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

/// Brings what the host statement of `site` reads to the host before it runs: each element
/// it reads alone (its offset computed under a status of its own, so an index the statement
/// will reject fetches nothing), then the arrays it needs whole.
pub fn fetch(ctx: &Context, code: &mut Code, site: &Site) {
    for (&a, reads) in &site.elements {
        for &e in reads {
            let ExprKind::Index(_, indices) = &ctx.f.exprs[e].kind else {
                continue;
            };
            let moved = one_element(ctx, "M2CU_ELEMENT_ON_HOST", a, |p| p.offset(a, indices));
            code.line(moved);
        }
    }
    for &a in &site.to_host {
        code.line(format!("M2CU_ON_HOST({});", ctx.name(a)));
    }
}

/// Host statement `s`, a store of one element of device array `array`: on the host copy as
/// usual when it is current (which then is the only current copy), else on the host and then
/// that element alone on the device, which stays current.
pub fn store_element(ctx: &Context, code: &mut Code, s: StmtId, array: LocalId) {
    let StmtKind::Store { indices, .. } = &ctx.f.stmts[s].kind else {
        return ctx.plain_stmt(code, s);
    };
    let x = ctx.name(array);
    code.open(format!("if (m2cu_at_{x} & M2CU_HOST) {{"));
    ctx.plain_stmt(code, s);
    code.line(format!("m2cu_at_{x} = M2CU_HOST;"));
    code.close("} else {");
    code.open("");
    ctx.plain_stmt(code, s);
    let moved = one_element(ctx, "M2CU_ELEMENT_TO_DEVICE", array, |p| {
        p.store_offset(array, indices)
    });
    code.line(format!("if (!{}) {moved}", ctx.status));
    code.close("}");
}

/// `{ int m2cu_probe = 0; <MACRO>(x, T, <offset>); (void)m2cu_probe; }`: one element of
/// `array` moved by a residency macro, its offset (from `offset`) computed under the block's
/// own status, so an index the statement itself rejects moves nothing.
fn one_element(
    ctx: &Context,
    macro_name: &str,
    array: LocalId,
    offset: impl FnOnce(&crate::expr::ExprWriter) -> String,
) -> String {
    let probe = ctx.with_status("m2cu_probe", "&m2cu_probe");
    let ty = crate::expr::complex::c_type(ctx.f.locals[array].ty);
    format!(
        "{{ int m2cu_probe = 0; {macro_name}({}, {ty}, {}); (void)m2cu_probe; }}",
        ctx.name(array),
        offset(&probe.exprs())
    )
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

/// `x = y` where nothing reads `y`'s value afterwards (`Site::moves`): the two arrays swap their
/// host and device storage, extents and residency flags, so `x` holds `y`'s value wherever it
/// was current and nothing is copied.
pub fn move_array(ctx: &Context, code: &mut Code, target: LocalId, source: LocalId) {
    let (x, y) = (ctx.name(target), ctx.name(source));
    code.open("{");
    ctx.swap_host_storage(code, target, source);
    code.line(format!(
        "uint64_t m2cu_dp = m2cu_dev_{x}; m2cu_dev_{x} = m2cu_dev_{y}; m2cu_dev_{y} = m2cu_dp;"
    ));
    code.line(format!(
        "uint64_t m2cu_db = m2cu_devbytes_{x}; m2cu_devbytes_{x} = m2cu_devbytes_{y}; m2cu_devbytes_{y} = m2cu_db;"
    ));
    code.line(format!(
        "int m2cu_a = m2cu_at_{x}; m2cu_at_{x} = m2cu_at_{y}; m2cu_at_{y} = m2cu_a;"
    ));
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
