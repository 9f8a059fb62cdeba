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

use m2cu_analysis::Kernel;
use m2cu_frontend::ir::{ExprId, LocalId, StmtId, StmtKind};

use crate::c_text::string_literal;
use crate::code::Code;
use crate::cuda::BLOCK;
use crate::expr::local_c_type;
use crate::model::{self, accumulators, Accumulator};
use crate::openmp::{finish_reductions, induction_value, OpenMp};
use crate::raise;
use crate::reduce::Merge;
use crate::residency;
use crate::stmt::{Context, Target};

/// One device buffer: its variable, byte count, and the host data to upload (if any).
struct Buffer {
    var: String,
    bytes: String,
    upload: Option<String>,
    download: Option<String>,
    /// Bytes to download when not the whole buffer (the first slot of per-block partials).
    download_bytes: Option<String>,
}

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
/// and an array it writes is current only there afterwards (see [`residency`]).
fn host_stmt(ctx: &Context, code: &mut Code, s: StmtId) {
    let f = ctx.f;
    let kind = &f.stmts[s].kind;
    let plan = &ctx.analysis.plan;
    if plan.kernel_of(s).is_some() || plan.fused_into(s).is_some() {
        return ctx.plain_stmt(code, s);
    }
    let written = match kind {
        StmtKind::Store { array, .. } | StmtKind::Resize { array, .. } => Some(*array),
        StmtKind::Alloc { target, .. } => Some(*target),
        StmtKind::Assign { target, .. } if !f.locals[*target].ty.is_scalar() => Some(*target),
        _ => None,
    };
    let exprs = match kind {
        StmtKind::While { .. } => return host_while(ctx, code, s),
        StmtKind::If { .. } => chain_conds(ctx, s),
        _ => f.stmt_exprs(s),
    };
    let mut touched = residency::arrays_read(f, &exprs);
    // A partial write keeps the other elements: they must be current on the host.
    if let StmtKind::Store { array, .. } | StmtKind::Resize { array, .. } = kind {
        touched.insert(*array);
    }
    residency::on_host(ctx, code, &touched);
    ctx.plain_stmt(code, s);
    if let Some(w) = written {
        residency::written_on_host(ctx, code, w);
    }
}

/// The conditions of an `if` / `elseif` chain.
fn chain_conds(ctx: &Context, s: StmtId) -> Vec<ExprId> {
    let mut conds = Vec::new();
    let mut cur = Some(s);
    while let Some(StmtKind::If {
        cond, else_body, ..
    }) = cur.map(|c| &ctx.f.stmts[c].kind)
    {
        conds.push(*cond);
        cur = match else_body.0.as_slice() {
            [only] => Some(*only),
            _ => None,
        };
    }
    conds
}

/// A `while` loop of a GPU host program whose condition reads arrays: the arrays are brought
/// to the host before every test, since kernels in the body may change them.
fn host_while(ctx: &Context, code: &mut Code, s: StmtId) {
    let StmtKind::While { cond, body } = &ctx.f.stmts[s].kind else {
        return;
    };
    let read = residency::arrays_read(ctx.f, &[*cond]);
    if read.is_empty() {
        return ctx.plain_stmt(code, s);
    }
    code.open("for (;;) {");
    residency::on_host(ctx, code, &read);
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
    code.open(format!(
        "{{ /* for {}: kernel {} */",
        ctx.name(kernel.var),
        kernel.name
    ));
    let range_exprs: Vec<_> = kernel
        .levels
        .iter()
        .flat_map(|l| ctx.f.stmt_exprs(l.stmt))
        .collect();
    residency::on_host(ctx, code, &residency::arrays_read(ctx.f, &range_exprs));
    code.line(&ranges.decls);
    code.open(format!("if ({n} > 0) {{"));
    let lanes = kernel.per_output.as_ref().map(|p| {
        let (range, k) = ctx.range_decls(p.stmt);
        code.line(range);
        code.line(format!(
            "int m2cu_lanes = m2cu_lanes_per_output({n}, m2cu_n{k}, M2CU_SM_COUNT, {BLOCK}, M2CU_LANES);"
        ));
        "m2cu_lanes"
    });
    let threads = lanes.map_or(n.clone(), |l| format!("{n} * {l}"));
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
    let buffers = buffers(ctx, kernel, code);
    for b in &buffers {
        code.line(format!("uint64_t {} = 0;", b.var));
    }
    for b in &buffers {
        code.line(format!("M2CU_CHECK(M2CU_ALLOC({}, {}));", b.var, b.bytes));
        if let Some(src) = &b.upload {
            code.line(format!(
                "M2CU_CHECK(M2CU_UPLOAD({}, {src}, {}));",
                b.var, b.bytes
            ));
        }
    }
    let mut args: Vec<String> = model::params(ctx, kernel)
        .iter()
        .map(|p| p.argument(&ranges))
        .collect();
    args.extend(lanes.map(|l| format!("&{l}")));
    code.line(format!("void *m2cu_args[] = {{ {} }};", args.join(", ")));
    let launch = |name: &str| {
        format!(
            "M2CU_CHECK(M2CU_LAUNCH({}, {name}, m2cu_grid, {BLOCK}, 0, m2cu_args));",
            string_literal(name)
        )
    };
    match lanes {
        // The thread kernel reads only its own parameters: the trailing `m2cu_lanes` is ignored.
        Some(l) => code.line(format!(
            "if ({l} == 1) {}\nelse {}",
            launch(&kernel.name),
            launch(&crate::cuda::per_output::variant_name(kernel))
        )),
        None => code.line(launch(&kernel.name)),
    }
    for b in &buffers {
        if let Some(dst) = &b.download {
            let bytes = b.download_bytes.as_ref().unwrap_or(&b.bytes);
            code.line(format!(
                "M2CU_CHECK(M2CU_DOWNLOAD({dst}, {}, {bytes}));",
                b.var
            ));
        }
    }
    if kernel.raises {
        report_failure(ctx, code, kernel);
    }
    for b in &buffers {
        code.line(format!("M2CU_FREE({});", b.var));
    }
    for a in kernel.arrays.iter().filter(|a| a.written) {
        code.line(format!("m2cu_at_{} = M2CU_DEVICE;", ctx.name(a.local)));
    }
    finish_reductions(ctx, code, kernel);
    // The first error wins, as on the CPU path (a failed size check before the launch stays
    // the reported one).
    let status = &ctx.status;
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

/// Declares the host side of the reduction and live-out buffers and lists every device buffer.
fn buffers(ctx: &Context, kernel: &Kernel, code: &mut Code) -> Vec<Buffer> {
    let f = ctx.f;
    let mut out = Vec::new();
    for &x in &kernel.live_out {
        let name = ctx.name(x);
        out.push(Buffer {
            var: format!("m2cu_d_lo_{name}"),
            bytes: format!("sizeof({})", local_c_type(f, x)),
            upload: None,
            download: Some(format!("&{name}")),
            download_bytes: None,
        });
    }
    for acc in accumulators(ctx, kernel) {
        let (j, wide, value) = (acc.j, acc.code.wide_type(), acc.result_value());
        code.line(format!(
            "{wide} {value} = {};",
            acc.code.initial(ctx.name(acc.reduction.var))
        ));
        match acc.merge {
            Merge::Atomic => out.push(Buffer {
                var: format!("m2cu_d_red{j}"),
                bytes: format!("sizeof({wide})"),
                upload: Some(format!("&{value}")),
                download: Some(format!("&{value}")),
                download_bytes: None,
            }),
            Merge::Ordered => {
                out.push(block_slots(format!("pv{j}"), wide, format!("&{value}")));
                out.push(block_counter(code, j));
            }
            Merge::Located => location_buffers(ctx, code, &acc, &mut out),
        }
    }
    if kernel.raises {
        code.line(raise::record_struct(ctx, kernel));
        code.line("long long m2cu_fail_at = INT64_MAX;");
        out.push(Buffer {
            var: "m2cu_d_fail_at".into(),
            bytes: "sizeof(long long)".into(),
            upload: Some("&m2cu_fail_at".into()),
            download: Some("&m2cu_fail_at".into()),
            download_bytes: None,
        });
        out.push(Buffer {
            var: "m2cu_d_fails".into(),
            bytes: format!(
                "(uint64_t)m2cu_grid * {BLOCK} * sizeof({})",
                raise::record_type(kernel)
            ),
            upload: None,
            download: None,
            download_bytes: None,
        });
    }
    out.push(Buffer {
        var: "m2cu_d_err".into(),
        bytes: "sizeof(int)".into(),
        upload: Some("&m2cu_kerr".into()),
        download: Some("&m2cu_kerr".into()),
        download_bytes: None,
    });
    out
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

/// One slot of `ty` per block, `m2cu_d_<var>`; the first slot (the last block's merge) comes
/// back into `download`.
fn block_slots(var: String, ty: &str, download: String) -> Buffer {
    Buffer {
        var: format!("m2cu_d_{var}"),
        bytes: format!("(uint64_t)m2cu_grid * sizeof({ty})"),
        upload: None,
        download: Some(download),
        download_bytes: Some(format!("sizeof({ty})")),
    }
}

/// The counter of finished blocks of reduction `j`, starting at 0.
fn block_counter(code: &mut Code, j: usize) -> Buffer {
    code.line(format!("unsigned int m2cu_zero{j} = 0;"));
    Buffer {
        var: format!("m2cu_d_pc{j}"),
        bytes: "sizeof(unsigned int)".into(),
        upload: Some(format!("&m2cu_zero{j}")),
        download: None,
        download_bytes: None,
    }
}

/// The per-block slots of location reduction `j` (value, each location, iteration; the first
/// slot comes back), and its counter of finished blocks.
fn location_buffers(ctx: &Context, code: &mut Code, acc: &Accumulator, out: &mut Vec<Buffer>) {
    let (j, result) = (acc.j, acc.result());
    out.push(block_slots(
        format!("pv{j}"),
        acc.code.wide_type(),
        format!("&{}", result.v),
    ));
    for (q, (&loc, k)) in acc.reduction.locations.iter().zip(&result.ks).enumerate() {
        let loc_ty = local_c_type(ctx.f, loc);
        code.line(format!("{loc_ty} {k} = 0;"));
        out.push(block_slots(format!("pk{j}_{q}"), loc_ty, format!("&{k}")));
    }
    code.line(format!("long long {} = -1;", result.t));
    out.push(block_slots(
        format!("pi{j}"),
        "long long",
        format!("&{}", result.t),
    ));
    out.push(block_counter(code, j));
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
