//! Kernel launches in the GPU host programs, written against the `M2CU_*` macros so that the same
//! text serves the m2cu runtime (callbacks in `m2cu_gpu`) and the standalone `.cu` (the CUDA
//! runtime API).
//!
//! Data movement: every array the kernel uses goes up before the launch and every array it writes
//! comes back after it; reduction results, live-out values and the error status come back too.

use m2cu_analysis::{Kernel, Reduction};

use crate::code::Code;
use crate::expr::local_c_type;
use crate::kernel::BLOCK;
use crate::openmp::finish_reductions;
use crate::reduce::{accumulators, ReductionCode};
use crate::stmt::Context;

/// One device buffer: its variable, byte count, and the host data to upload (if any).
struct Buffer {
    var: String,
    bytes: String,
    upload: Option<String>,
    download: Option<String>,
    /// Bytes to download when not the whole buffer (the first slot of per-block partials).
    download_bytes: Option<String>,
}

pub fn launch(ctx: &Context, code: &mut Code, kernel: &Kernel) {
    let (decls, k) = ctx.range_decls(kernel.stmt);
    code.open(format!(
        "{{ /* for {}: kernel {} */",
        ctx.name(kernel.var),
        kernel.name
    ));
    code.line(decls);
    code.open(format!("if (m2cu_n{k} > 0) {{"));
    code.line(format!(
        "uint32_t m2cu_grid = m2cu_grid_size(m2cu_n{k}, {BLOCK}, M2CU_SM_COUNT);"
    ));
    code.line("int m2cu_kerr = 0;");
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
    code.line(format!(
        "void *m2cu_args[] = {{ {} }};",
        args(ctx, kernel, &k).join(", ")
    ));
    code.line(format!(
        "M2CU_CHECK(M2CU_LAUNCH(\"{n}\", {n}, m2cu_grid, {BLOCK}, 0, m2cu_args));",
        n = kernel.name
    ));
    for b in &buffers {
        if let Some(dst) = &b.download {
            let bytes = b.download_bytes.as_ref().unwrap_or(&b.bytes);
            code.line(format!(
                "M2CU_CHECK(M2CU_DOWNLOAD({dst}, {}, {bytes}));",
                b.var
            ));
        }
    }
    for b in &buffers {
        code.line(format!("M2CU_FREE({});", b.var));
    }
    finish_reductions(ctx, code, kernel);
    code.line(format!("if (m2cu_kerr != 0) {} = m2cu_kerr;", ctx.status));
    let var = ctx.name(kernel.var);
    code.line(format!("{var} = m2cu_final{k};"));
    code.close("}");
    code.close("}");
}

/// Declares the host side of the reduction and live-out buffers and lists every device buffer.
fn buffers(ctx: &Context, kernel: &Kernel, code: &mut Code) -> Vec<Buffer> {
    let f = ctx.f;
    let mut out = Vec::new();
    for a in &kernel.arrays {
        let name = ctx.name(a.local);
        let ty = f.locals[a.local].ty.class.c_type();
        out.push(Buffer {
            var: format!("m2cu_d_{name}"),
            bytes: {
                let n = ctx.names.numel(a.local);
                format!("(uint64_t)({n} > 0 ? {n} : 1) * sizeof({ty})")
            },
            upload: Some(name.to_string()),
            download: a.written.then(|| name.to_string()),
            download_bytes: None,
        });
    }
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
    for (j, r) in accumulators(kernel).iter().enumerate() {
        let rc = ReductionCode::new(f, r);
        let wide = rc.wide_type();
        code.line(format!(
            "{wide} m2cu_r{j} = {};",
            rc.initial(ctx.name(r.var))
        ));
        if r.locations.is_empty() {
            out.push(Buffer {
                var: format!("m2cu_d_red{j}"),
                bytes: format!("sizeof({wide})"),
                upload: Some(format!("&m2cu_r{j}")),
                download: Some(format!("&m2cu_r{j}")),
                download_bytes: None,
            });
        } else {
            location_buffers(ctx, code, r, j, &mut out);
        }
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

/// The per-block slots of location reduction `j` (value, each location, iteration; the first
/// slot comes back), and its counter of finished blocks.
fn location_buffers(
    ctx: &Context,
    code: &mut Code,
    r: &Reduction,
    j: usize,
    out: &mut Vec<Buffer>,
) {
    let slot = |var: String, ty: &str, download: String| Buffer {
        var: format!("m2cu_d_{var}"),
        bytes: format!("(uint64_t)m2cu_grid * sizeof({ty})"),
        upload: None,
        download: Some(download),
        download_bytes: Some(format!("sizeof({ty})")),
    };
    let wide = ReductionCode::new(ctx.f, r).wide_type();
    out.push(slot(format!("pv{j}"), wide, format!("&m2cu_r{j}")));
    for (q, &loc) in r.locations.iter().enumerate() {
        let loc_ty = local_c_type(ctx.f, loc);
        code.line(format!("{loc_ty} m2cu_rk{j}_{q} = 0;"));
        out.push(slot(
            format!("pk{j}_{q}"),
            loc_ty,
            format!("&m2cu_rk{j}_{q}"),
        ));
    }
    code.line(format!(
        "long long m2cu_rt{j} = -1;\nunsigned int m2cu_zero{j} = 0;"
    ));
    out.push(slot(format!("pi{j}"), "long long", format!("&m2cu_rt{j}")));
    out.push(Buffer {
        var: format!("m2cu_d_pc{j}"),
        bytes: "sizeof(unsigned int)".into(),
        upload: Some(format!("&m2cu_zero{j}")),
        download: None,
        download_bytes: None,
    });
}

/// Pointers to the kernel arguments, in the order of [`crate::kernel::params`].
fn args(ctx: &Context, kernel: &Kernel, k: &str) -> Vec<String> {
    let mut out = Vec::new();
    for a in &kernel.arrays {
        let name = ctx.name(a.local);
        out.extend([
            format!("&m2cu_d_{name}"),
            format!("&{name}_d0"),
            format!("&{name}_d1"),
        ]);
        if ctx.names.is_3d(a.local) {
            out.push(format!("&{name}_d2"));
        }
    }
    out.extend(kernel.inputs.iter().map(|&x| format!("&{}", ctx.name(x))));
    out.extend([
        format!("&m2cu_first{k}"),
        format!("&m2cu_final{k}"),
        format!("&m2cu_step{k}"),
        format!("&m2cu_n{k}"),
    ]);
    out.extend(
        kernel
            .live_out
            .iter()
            .map(|&x| format!("&m2cu_d_lo_{}", ctx.name(x))),
    );
    for (j, r) in accumulators(kernel).iter().enumerate() {
        if r.locations.is_empty() {
            out.push(format!("&m2cu_d_red{j}"));
            continue;
        }
        out.push(format!("&m2cu_d_pv{j}"));
        out.extend((0..r.locations.len()).map(|q| format!("&m2cu_d_pk{j}_{q}")));
        out.extend(["pi", "pc"].map(|p| format!("&m2cu_d_{p}{j}")));
    }
    out.push("&m2cu_d_err".into());
    out
}
