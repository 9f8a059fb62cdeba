//! Kernel launches in the GPU host programs, written against the `M2CU_*` macros so that the same
//! text serves the m2cu runtime (callbacks in `m2cu_gpu`) and the standalone `.cu` (the CUDA
//! runtime API).
//!
//! Data movement: arrays stay on the device between launches (see [`crate::residency`]): before
//! a launch every array the kernel uses is made current on the device, and after it the arrays
//! the kernel wrote are current only there. Reduction results, live-out values and the error
//! status come back after every launch; after a kernel that may raise `error`, so does the
//! record of its smallest failing iteration ([`crate::raise`]). Induction variables go in by
//! value (their value before the loop) and the host advances them to `k0 + c·n` after the
//! launch.

use m2cu_analysis::residency::Site;
use m2cu_analysis::Kernel;
use m2cu_frontend::ir::{LocalId, StmtId, StmtKind};

use crate::c_text::string_literal;
use crate::code::Code;
use crate::cuda::tiles::TILE;
use crate::cuda::BLOCK;
use crate::model::{self, accumulators, Param};
use crate::openmp::{declare_result, finish_reductions, induction_value, OpenMp};
use crate::raise;
use crate::reduce::Merge;
use crate::residency;
use crate::stmt::{Context, Target};

/// A GPU host program: planned loops are kernel launches, and every other statement first
/// brings the arrays it reads to the host ([`host_stmt`]). Scatter-adds run in
/// kernels; one on the host is the CPU program's.
pub struct GpuHost;

impl Target for GpuHost {
    fn statement(&self, ctx: &Context, code: &mut Code, s: StmtId) {
        host_stmt(ctx, code, s);
    }

    fn planned_loop(&self, ctx: &Context, code: &mut Code, kernel: &Kernel) {
        launch(ctx, code, kernel);
    }

    fn atomic_add(&self, code: &mut Code, element: &str, addend: &str) {
        OpenMp.atomic_add(code, element, addend);
    }

    fn binned_add(&self, ctx: &Context, array: LocalId, offset: &str, addend: &str) -> String {
        OpenMp.binned_add(ctx, array, offset, addend)
    }
}

/// A statement of a GPU host program: the arrays it touches are brought to the host first,
/// and an array it writes is current only there afterwards (its [`Site`], see [`residency`]).
fn host_stmt(ctx: &Context, code: &mut Code, s: StmtId) {
    let plan = &ctx.analysis.plan;
    if plan.kernel_of(s).is_some() || plan.fused_into(s).is_some() {
        return ctx.plain_stmt(code, s);
    }
    let Some(site) = ctx.analysis.residency.site(s) else {
        return ctx.plain_stmt(code, s);
    };
    if let Some((target, source)) = site.device_copy {
        return match site.moves {
            true => residency::move_array(ctx, code, target, source),
            false => residency::copy_array(ctx, code, s, target, source),
        };
    }
    if let StmtKind::While { .. } = ctx.f.stmts[s].kind {
        return host_while(ctx, code, s, site);
    }
    residency::fetch(ctx, code, site);
    if let Some(a) = site.stored_element {
        return residency::store_element(ctx, code, s, a);
    }
    ctx.plain_stmt(code, s);
    if let Some(w) = site.written {
        residency::written_on_host(ctx, code, w);
    }
}

/// A `while` loop of a GPU host program whose condition reads device arrays: they are brought
/// to the host before every test, since kernels in the body may change them.
fn host_while(ctx: &Context, code: &mut Code, s: StmtId, site: &Site) {
    let StmtKind::While { cond, body } = &ctx.f.stmts[s].kind else {
        return;
    };
    code.open("for (;;) {");
    residency::fetch(ctx, code, site);
    code.line(format!(
        "if ({} || !{}) break;",
        ctx.status,
        ctx.exprs().cond(*cond)
    ));
    ctx.block(code, body);
    code.close("}");
}

pub fn launch(ctx: &Context, code: &mut Code, kernel: &Kernel) {
    let ranges = ctx.nest_ranges(kernel);
    let n = &ranges.total;
    let what = format!("for {}: kernel {}", ctx.name(kernel.var), kernel.name);
    code.open(crate::trace::open_block(
        ctx,
        ctx.f.stmts[kernel.stmt].span,
        &what,
    ));
    if let Some(site) = ctx.analysis.residency.site(kernel.stmt) {
        residency::fetch(ctx, code, site);
    }
    code.line(&ranges.decls);
    code.open(format!("if ({n} > 0) {{"));
    // The inner loop's range suffix of a per-output kernel, its range declared for the choices.
    let inner = kernel.per_output.as_ref().map(|p| {
        let (range, k) = ctx.range_decls(p.stmt);
        code.line(range);
        k
    });
    let lanes = inner.as_ref().map(|k| {
        code.line(format!(
            "int m2cu_lanes = m2cu_lanes_per_output({n}, m2cu_n{k}, M2CU_SM_COUNT, {BLOCK}, M2CU_LANES);"
        ));
        "m2cu_lanes"
    });
    let serial = kernel.scan.as_ref().map(|_| {
        code.line(format!(
            "int m2cu_serial = m2cu_scan_serial({n}, M2CU_LANES);"
        ));
        "m2cu_serial"
    });
    let mut threads = lanes.map_or(n.clone(), |l| format!("{n} * {l}"));
    if let Some(s) = serial {
        threads = format!("{s} ? {BLOCK} : {threads}");
    }
    let tiles = kernel.per_output.as_ref().and_then(|p| p.tiles.as_ref());
    let tiled = tiles.zip(inner.as_ref()).map(|(t, k)| {
            let (rows, cols) = (
                format!("m2cu_n{}", ranges.suffixes[t.row_level]),
                format!("m2cu_n{}", ranges.suffixes[t.col_level]),
            );
            code.line(format!(
                "int m2cu_tiled = m2cu_tiles_per_output({rows}, {cols}, m2cu_n{k}, {TILE}, M2CU_LANES);"
            ));
            threads = format!(
                "m2cu_tiled ? (({rows} + {}) / {TILE}) * (({cols} + {}) / {TILE}) * {BLOCK} : {threads}",
                TILE - 1,
                TILE - 1
            );
            "m2cu_tiled"
        });
    code.line(format!(
        "uint32_t m2cu_grid = m2cu_grid_size({threads}, {BLOCK}, M2CU_SM_COUNT);"
    ));
    code.line("int m2cu_kerr = 0;");
    for a in device_arrays(ctx, kernel) {
        code.line(format!(
            "M2CU_ON_DEVICE({}, {});",
            ctx.name(a.local),
            array_bytes(ctx, a.local)
        ));
    }
    host_values(ctx, code, kernel);
    let params = model::params(ctx, kernel);
    let buffers: Vec<_> = params.iter().filter_map(Param::device_buffer).collect();
    for (var, _) in &buffers {
        code.line(format!("uint64_t {var} = 0;"));
    }
    for (var, b) in &buffers {
        code.line(format!("M2CU_CHECK(M2CU_ALLOC({var}, {}));", b.bytes));
        if let Some(src) = &b.upload {
            code.line(format!(
                "M2CU_CHECK(M2CU_UPLOAD({var}, {src}, {}));",
                b.bytes
            ));
        }
    }
    code.line(format!(
        "if ({w} == 0) {{ M2CU_CHECK(M2CU_ALLOC({w}, {})); M2CU_CHECK(M2CU_UPLOAD({w}, &m2cu_kerr, sizeof(int))); }}",
        crate::cuda::ERROR_WORD_BYTES,
        w = model::ERROR_WORD
    ));
    let mut args: Vec<String> = params.iter().map(|p| p.argument(&ranges)).collect();
    args.extend(lanes.or(serial).map(|l| format!("&{l}")));
    code.line(format!("void *m2cu_args[] = {{ {} }};", args.join(", ")));
    let launch = |name: &str| {
        format!(
            "M2CU_CHECK(M2CU_LAUNCH({}, {name}, m2cu_grid, {BLOCK}, 0, m2cu_args));",
            string_literal(name)
        )
    };
    // The thread and tiled kernels read only their own parameters: the trailing `m2cu_lanes`
    // is ignored.
    let per_output = match (lanes, serial) {
        (_, Some(s)) => format!(
            "if (!{s}) {}\n{}",
            launch(&crate::cuda::scan::partials_name(kernel)),
            launch(&kernel.name)
        ),
        (Some(l), None) => format!(
            "if ({l} == 1) {}\nelse {}",
            launch(&kernel.name),
            launch(&crate::cuda::per_output::variant_name(kernel))
        ),
        (None, None) => launch(&kernel.name),
    };
    match tiled {
        Some(t) => code.line(format!(
            "if ({t}) {}\nelse {per_output}",
            launch(&crate::cuda::tiles::variant_name(kernel))
        )),
        None => code.line(per_output),
    }
    for (var, b) in &buffers {
        if let Some(dst) = &b.download {
            let bytes = b.download_bytes.as_ref().unwrap_or(&b.bytes);
            code.line(format!("M2CU_CHECK(M2CU_DOWNLOAD({dst}, {var}, {bytes}));"));
        }
    }
    code.line(format!(
        "M2CU_CHECK(M2CU_DOWNLOAD(&m2cu_kerr, {}, sizeof(int)));",
        model::ERROR_WORD
    ));
    if kernel.raises {
        report_failure(ctx, code, kernel);
    }
    for (var, _) in &buffers {
        code.line(format!("M2CU_FREE({var});"));
    }
    for a in kernel.arrays.iter().filter(|a| a.written) {
        code.line(format!("m2cu_at_{} = M2CU_DEVICE;", ctx.name(a.local)));
    }
    finish_reductions(ctx, code, kernel);
    // The first error wins, as on the CPU path (a failed size check before the launch stays
    // the reported one).
    let status = &ctx.status;
    take_detail(code, status);
    code.line(format!(
        "if (m2cu_kerr != 0 && {status} == 0) {status} = m2cu_kerr;"
    ));
    for ind in &kernel.inductions {
        let x = ctx.name(ind.var);
        code.line(format!("{x} = {};", induction_value(ind, x, n)));
    }
    code.close("}");
    code.line(ctx.level_finals(kernel, &ranges));
    code.close("}");
}

/// Declares the host values the launch's buffers are filled from and copied back into
/// ([`crate::model::DeviceBuffer`]): each accumulator's result (its identity, or the
/// variable's value for a custom reduction), the zero its counter of finished blocks starts
/// from, its located result's locations and iteration, and a raising kernel's failure record.
fn host_values(ctx: &Context, code: &mut Code, kernel: &Kernel) {
    for acc in accumulators(ctx, kernel) {
        declare_result(ctx, code, &acc, "long long");
        if acc.merge != Merge::Atomic {
            code.line(format!("unsigned int {} = 0;", acc.finished_blocks_start()));
        }
    }
    if kernel.raises {
        code.line(raise::record_struct(ctx, kernel));
        code.line("long long m2cu_fail_at = INT64_MAX;");
    }
}

/// The arrays of `kernel` that live in global memory (not `__constant__`).
fn device_arrays<'k>(ctx: &Context, kernel: &'k Kernel) -> Vec<&'k m2cu_analysis::ArrayUse> {
    let constants = &ctx.analysis.constants;
    kernel
        .arrays
        .iter()
        .filter(|a| !constants.contains(a.local))
        .collect()
}

/// The bytes of `array`'s elements.
fn array_bytes(ctx: &Context, array: m2cu_frontend::ir::LocalId) -> String {
    let ty = crate::expr::complex::c_type(ctx.f.locals[array].ty);
    format!("(uint64_t){} * sizeof({ty})", ctx.names.numel(array))
}

/// After a raising kernel: the record of the smallest failing iteration `m2cu_fail_at`, which
/// its thread (slot `m2cu_fail_at % stride`) wrote, becomes the call's error.
fn report_failure(ctx: &Context, code: &mut Code, kernel: &Kernel) {
    let record = raise::record_type(kernel);
    code.open("if (m2cu_fail_at != INT64_MAX) {");
    code.line(format!("{record} m2cu_fail;"));
    code.line(format!(
        "uint64_t m2cu_at = m2cu_d_fails + (uint64_t)(m2cu_fail_at % ((long long)m2cu_grid * {BLOCK})) * sizeof({record});"
    ));
    code.line(format!(
        "M2CU_CHECK(M2CU_DOWNLOAD(&m2cu_fail, m2cu_at, sizeof({record})));"
    ));
    raise::report(ctx, code, kernel, "m2cu_fail");
    code.close("}");
}

/// After a kernel that failed, and before its status becomes the call's: the detail of a failed
/// index check (the first failing thread's value and bound) taken from the device into the
/// host's record (`m2cu_kernel_detail`), for the message ([`take_detail_macro`]).
fn take_detail(code: &mut Code, status: &str) {
    code.line(format!(
        "if (m2cu_kerr != 0 && {status} == 0) M2CU_TAKE_DETAIL({}, m2cu_kerr);",
        model::ERROR_WORD
    ));
}

/// `M2CU_TAKE_DETAIL(word, status)`: launches [`crate::cuda::TAKE_DETAIL`] on the error word
/// buffer `word`, downloads the detail it wrote there and hands it to `m2cu_kernel_detail`
/// with the kernel's status (a failed launch or copy leaves the message without it).
pub fn take_detail_macro() -> String {
    use crate::cuda::{DETAIL_OFFSET, TAKE_DETAIL};
    format!(
        "#define M2CU_TAKE_DETAIL(word, status) do {{ void *m2cu_detail_args[] = {{ &(word) }}; m2cu_kdetail_t m2cu_kd; if (M2CU_LAUNCH({}, {TAKE_DETAIL}, 1, 1, 0, m2cu_detail_args) == 0 && M2CU_DOWNLOAD(&m2cu_kd, (word) + {DETAIL_OFFSET}, sizeof m2cu_kd) == 0) m2cu_kernel_detail((status), &m2cu_kd); }} while (0)\n",
        string_literal(TAKE_DETAIL)
    )
}
