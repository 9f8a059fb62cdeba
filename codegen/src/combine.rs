//! The user functions of `gpucoder.reduce` (the IR's combiners) as C functions, valid in the CPU
//! program, the GPU host programs and kernels alike:
//!
//! ```c
//! M2CU_FN double m2cu_combine0(double _myadd_a, double _myadd_b, int *m2cu_err)
//! { double _myadd_c = 0; _myadd_c = (_myadd_a + _myadd_b); return _myadd_c; }
//! ```
//!
//! A combiner that captured values takes them after its two operands, under their own names
//! (`m2cu_combine1(double _reduce_a_, double _reduce_b_, double t, int *m2cu_err)`), so its
//! body reads them as the function around it does.
//!
//! (the compare-and-swap loop per combiner that kernels merge block partials with is
//! `crate::cuda::atomics`).
//!
//! Invariant: a combiner's locals appear nowhere else, so the entry function does not declare
//! them ([`locals`]).

use std::collections::BTreeSet;

use m2cu_frontend::ir::{combiner_number, Combiner, CombinerId, Function, LocalId, StmtKind};

use crate::code::Code;
use crate::expr::local_c_type;
use crate::stmt::Context;

/// Every combiner of the function as a C function.
pub fn functions(ctx: &Context) -> String {
    let body = crate::cuda::device(ctx);
    ctx.f
        .combiners
        .iter()
        .map(|(c, combiner)| function(&body, c, combiner))
        .collect()
}

fn function(ctx: &Context, c: CombinerId, combiner: &Combiner) -> String {
    let f = ctx.f;
    let ty = f.locals[combiner.output].ty.class.c_type();
    let [a, b] = combiner.params.map(|p| ctx.name(p).to_string());
    let mut code = Code::new(0);
    code.line(format!(
        "/* {}: a function of gpucoder.reduce */",
        combiner.name
    ));
    code.line(format!(
        "M2CU_FN {ty} m2cu_combine{}({ty} {a}, {ty} {b}{}, int *m2cu_err)",
        combiner_number(c),
        capture_params(ctx, combiner)
    ));
    code.open("{");
    let own: Vec<LocalId> = body_locals(f, combiner)
        .into_iter()
        .filter(|l| !combiner.params.contains(l))
        .collect();
    ctx.declare(&mut code, &own);
    ctx.block(&mut code, &combiner.body);
    code.line(format!("return {};", ctx.name(combiner.output)));
    code.close("}");
    code.finish()
}

/// The declarations of the combiner's captured values as C parameters after the two operands,
/// each preceded by a comma (empty when it captured none).
pub fn capture_params(ctx: &Context, combiner: &Combiner) -> String {
    combiner
        .captures
        .iter()
        .map(|&l| format!(", {} {}", local_c_type(ctx.f, l), ctx.name(l)))
        .collect()
}

/// The names of the combiner's captured values as C arguments after the two operands, each
/// preceded by a comma.
pub fn capture_args(ctx: &Context, combiner: &Combiner) -> String {
    combiner
        .captures
        .iter()
        .map(|&l| format!(", {}", ctx.name(l)))
        .collect()
}

/// The locals of every combiner: its parameters, its output and what its body assigns.
pub fn locals(f: &Function) -> BTreeSet<LocalId> {
    f.combiners
        .iter()
        .flat_map(|(_, c)| body_locals(f, c))
        .collect()
}

fn body_locals(f: &Function, c: &Combiner) -> BTreeSet<LocalId> {
    let mut out: BTreeSet<LocalId> = c.params.into_iter().chain([c.output]).collect();
    f.walk_stmts(&c.body, &mut |s| {
        if let StmtKind::Assign { target, .. } | StmtKind::For { var: target, .. } = f.stmts[s].kind
        {
            out.insert(target);
        }
    });
    out
}
