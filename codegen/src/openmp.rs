//! Parallel loops of the CPU program: OpenMP.
//!
//! A map is `#pragma omp parallel for`. A reduction runs the loop in a parallel region in which
//! every thread accumulates into its own copy of each reduction variable (starting from the
//! identity), then merges it into a shared partial under `omp critical`; after the region the
//! partial is merged into the variable's value from before the loop with the same rule the GPU
//! path uses ([`ReductionCode::finish`]). Privates are declared inside the region; live-out
//! privates are copied out by the iteration that is last in sequential order. An induction
//! variable `k` is declared in each iteration from its closed form over `m2cu_iv_<k>` (its value
//! before the loop), and set to `k0 + c·n` after the loop.

use m2cu_analysis::induction::Induction;
use m2cu_analysis::Kernel;

use crate::code::Code;
use crate::expr::local_c_type;
use crate::reduce::ReductionCode;
use crate::stmt::Context;

pub fn parallel_loop(ctx: &Context, code: &mut Code, kernel: &Kernel) {
    let f = ctx.f;
    let bodies = kernel.bodies(f);
    let ranges = ctx.nest_ranges(kernel);
    let n = &ranges.total;
    let var = ctx.name(kernel.var);
    let var_decl = format!(
        "{}\n{}",
        ctx.level_values(kernel, &ranges.suffixes, "m2cu_t"),
        induction_decls(ctx, kernel, "m2cu_t")
    );
    code.open(format!("{{ /* for {var}: {} on the CPU */", kernel.name));
    code.line(&ranges.decls);
    for ind in &kernel.inductions {
        code.line(format!(
            "const {} m2cu_iv_{x} = {x};",
            local_c_type(f, ind.var),
            x = ctx.name(ind.var)
        ));
    }
    for &x in &kernel.live_out {
        code.line(format!(
            "{} *m2cu_lo_{x} = &{x};",
            local_c_type(f, x),
            x = ctx.name(x)
        ));
    }
    let inner = ctx.with_location_hooks(kernel, "m2cu_t");
    if kernel.reductions.is_empty() {
        code.line(format!(
            "#pragma omp parallel for schedule(static) if ({n} >= 4096)"
        ));
        code.open(format!(
            "for (int64_t m2cu_t = 0; m2cu_t < {n}; m2cu_t++) {{"
        ));
        code.line(&var_decl);
        ctx.declare(code, &kernel.privates);
        for body in &bodies {
            inner.block(code, body);
        }
        live_out_copy(ctx, code, kernel, n);
        code.close("}");
    } else {
        reduction_region(ctx, &inner, code, kernel, n, &var_decl, &bodies);
    }
    code.line(ctx.level_finals(kernel, &ranges));
    for ind in &kernel.inductions {
        let x = ctx.name(ind.var);
        code.line(format!(
            "{x} = {};",
            induction_value(ind, &format!("m2cu_iv_{x}"), n)
        ));
    }
    code.close("}");
}

/// Declarations of `kernel`'s induction variables at the top of iteration `t`, each from its
/// value before the loop, `m2cu_iv_<k>`.
pub fn induction_decls(ctx: &Context, kernel: &Kernel, t: &str) -> String {
    let lines: Vec<String> = kernel
        .inductions
        .iter()
        .map(|ind| {
            let x = ctx.name(ind.var);
            format!(
                "{} {x} = {};",
                local_c_type(ctx.f, ind.var),
                induction_value(ind, &format!("m2cu_iv_{x}"), t)
            )
        })
        .collect();
    lines.join("\n")
}

/// The value of induction variable `ind` after `t` iterations, from its value `k0` before them.
pub fn induction_value(ind: &Induction, k0: &str, t: &str) -> String {
    format!("{k0} + {}.0 * (double){t}", ind.step)
}

fn reduction_region(
    ctx: &Context,
    inner: &Context,
    code: &mut Code,
    kernel: &Kernel,
    n: &str,
    var_decl: &str,
    bodies: &[&m2cu_frontend::ir::Block],
) {
    let f = ctx.f;
    for (j, r) in kernel.reductions.iter().enumerate() {
        let rc = ReductionCode::new(f, r);
        code.line(format!(
            "{} m2cu_r{j} = {};",
            rc.wide_type(),
            rc.wide_identity()
        ));
        if let Some(loc) = r.location {
            code.line(format!(
                "{} m2cu_rk{j} = 0;\nint64_t m2cu_rt{j} = -1;",
                local_c_type(f, loc)
            ));
        }
    }
    code.line(format!("#pragma omp parallel if ({n} >= 4096)"));
    code.open("{");
    ctx.declare_accumulators(code, kernel);
    ctx.declare(code, &kernel.privates);
    code.line("#pragma omp for schedule(static) nowait");
    code.open(format!(
        "for (int64_t m2cu_t = 0; m2cu_t < {n}; m2cu_t++) {{"
    ));
    code.line(var_decl);
    for body in bodies {
        inner.block(code, body);
    }
    live_out_copy(ctx, code, kernel, n);
    code.close("}");
    code.line("#pragma omp critical");
    code.open("{");
    for (j, r) in kernel.reductions.iter().enumerate() {
        let rc = ReductionCode::new(f, r);
        let mine = format!("(({}){})", rc.wide_type(), ctx.name(r.var));
        match r.location {
            Some(loc) => code.line(rc.combine_location(
                [
                    &format!("m2cu_r{j}"),
                    &format!("m2cu_rk{j}"),
                    &format!("m2cu_rt{j}"),
                ],
                [&mine, ctx.name(loc), &format!("m2cu_lt{j}")],
            )),
            None => code.line(format!(
                "m2cu_r{j} = {};",
                rc.combine(&format!("m2cu_r{j}"), &mine)
            )),
        }
    }
    code.close("}");
    code.close("}");
    finish_reductions(ctx, code, kernel);
}

/// Merges each reduction's result `m2cu_r<j>` (and `m2cu_rk<j>`, `m2cu_rt<j>` for locations)
/// into the variable.
pub fn finish_reductions(ctx: &Context, code: &mut Code, kernel: &Kernel) {
    for (j, r) in kernel.reductions.iter().enumerate() {
        let rc = ReductionCode::new(ctx.f, r);
        let s = ctx.name(r.var);
        match r.location {
            Some(loc) => code.line(rc.finish_location(
                s,
                ctx.name(loc),
                [
                    &format!("m2cu_r{j}"),
                    &format!("m2cu_rk{j}"),
                    &format!("m2cu_rt{j}"),
                ],
            )),
            None => code.line(rc.finish(s, &format!("m2cu_r{j}"))),
        }
    }
}

/// The iteration that is last in sequential order stores the live-out privates.
pub fn live_out_copy(ctx: &Context, code: &mut Code, kernel: &Kernel, n: &str) {
    for &x in &kernel.live_out {
        code.line(format!(
            "if (m2cu_t == {n} - 1) *m2cu_lo_{x} = {x};",
            x = ctx.name(x)
        ));
    }
}
