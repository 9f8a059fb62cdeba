//! Kernel launches in the GPU host programs, written against the `M2CU_*` macros so that the same
//! text serves the m2cu runtime (callbacks in `m2cu_gpu`) and the standalone `.cu` (the CUDA
//! runtime API).
//!
//! Data movement: every array the kernel uses goes up before the launch and every array it writes
//! comes back after it; reduction results, live-out values and the error status come back too.
//! Induction variables go in by value (their value before the loop) and the host advances them
//! to `k0 + c·n` after the launch.

use m2cu_analysis::Kernel;

use crate::code::Code;
use crate::expr::local_c_type;
use crate::kernel::BLOCK;
use crate::openmp::{finish_reductions, induction_value};
use crate::reduce::ReductionCode;
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
    for ind in &kernel.inductions {
        let x = ctx.name(ind.var);
        code.line(format!(
            "{x} = {};",
            induction_value(ind, x, &format!("m2cu_n{k}"))
        ));
    }
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
    for (j, r) in kernel.reductions.iter().enumerate() {
        let rc = ReductionCode::new(f, r);
        let wide = rc.wide_type();
        code.line(format!("{wide} m2cu_r{j} = {};", rc.wide_identity()));
        match r.location {
            None => out.push(Buffer {
                var: format!("m2cu_d_red{j}"),
                bytes: format!("sizeof({wide})"),
                upload: Some(format!("&m2cu_r{j}")),
                download: Some(format!("&m2cu_r{j}")),
                download_bytes: None,
            }),
            Some(loc) => {
                let loc_ty = local_c_type(f, loc);
                code.line(format!("{loc_ty} m2cu_rk{j} = 0;\nlong long m2cu_rt{j} = -1;\nunsigned int m2cu_zero{j} = 0;"));
                let slot = |var: &str, ty: &str, download: String| Buffer {
                    var: format!("m2cu_d_{var}{j}"),
                    bytes: format!("(uint64_t)m2cu_grid * sizeof({ty})"),
                    upload: None,
                    download: Some(download),
                    download_bytes: Some(format!("sizeof({ty})")),
                };
                out.push(slot("pv", wide, format!("&m2cu_r{j}")));
                out.push(slot("pk", loc_ty, format!("&m2cu_rk{j}")));
                out.push(slot("pi", "long long", format!("&m2cu_rt{j}")));
                out.push(Buffer {
                    var: format!("m2cu_d_pc{j}"),
                    bytes: "sizeof(unsigned int)".into(),
                    upload: Some(format!("&m2cu_zero{j}")),
                    download: None,
                    download_bytes: None,
                });
            }
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
    out.extend(
        kernel
            .inductions
            .iter()
            .map(|ind| format!("&{}", ctx.name(ind.var))),
    );
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
    for (j, r) in kernel.reductions.iter().enumerate() {
        match r.location {
            None => out.push(format!("&m2cu_d_red{j}")),
            Some(_) => out.extend(["pv", "pk", "pi", "pc"].map(|p| format!("&m2cu_d_{p}{j}"))),
        }
    }
    out.push("&m2cu_d_err".into());
    out
}
