//! The user functions of `gpucoder.reduce` (the IR's combiners) as C functions, valid in the CPU
//! program, the GPU host programs and kernels alike:
//!
//! ```c
//! M2CU_FN double m2cu_combine0(double _myadd_a, double _myadd_b, int *m2cu_err)
//! { double _myadd_c = 0; _myadd_c = (_myadd_a + _myadd_b); return _myadd_c; }
//! ```
//!
//! and, for kernels, a compare-and-swap loop per combiner that folds a block's partial into the
//! result in global memory (`m2cu_atomic_combine<c>`), for any binary function whose values fit
//! 32 or 64 bits (the analysis keeps other classes sequential). The loop calls the function on
//! the current result and the block's partial only, so it combines disjoint parts of the data.
//!
//! Invariant: a combiner's locals appear nowhere else, so the entry function does not declare
//! them ([`locals`]).

use std::collections::BTreeSet;

use m2cu_frontend::ir::{Combiner, Function, LocalId, StmtKind};
use m2cu_frontend::types::Class;

use crate::code::Code;
use crate::stmt::Context;

/// Every combiner of the function as a C function.
pub fn functions(ctx: &Context) -> String {
    let body = ctx.device();
    ctx.f
        .combiners
        .iter()
        .enumerate()
        .map(|(c, combiner)| function(&body, c, combiner))
        .collect()
}

fn function(ctx: &Context, c: usize, combiner: &Combiner) -> String {
    let f = ctx.f;
    let ty = f.locals[combiner.output].ty.class.c_type();
    let [a, b] = combiner.params.map(|p| ctx.name(p).to_string());
    let mut code = Code::new(0);
    code.line(format!(
        "/* {}: a function of gpucoder.reduce */",
        combiner.name
    ));
    code.line(format!(
        "M2CU_FN {ty} m2cu_combine{c}({ty} {a}, {ty} {b}, int *m2cu_err)"
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

/// The compare-and-swap loops of every combiner, for kernels.
pub fn atomics(f: &Function) -> String {
    f.combiners
        .iter()
        .enumerate()
        .filter_map(|(c, combiner)| atomic(c, f.locals[combiner.output].ty.class))
        .collect()
}

/// `m2cu_atomic_combine<c>(T *p, T v, int *m2cu_err)`: `*p = f(*p, v)` atomically, through the
/// unsigned integer of the same width.
fn atomic(c: usize, class: Class) -> Option<String> {
    let (bits, from, to) = match class {
        Class::Double => (
            "unsigned long long",
            "__longlong_as_double((long long)m2cu_assumed)",
            "(unsigned long long)__double_as_longlong(m2cu_next)",
        ),
        Class::Single => (
            "unsigned int",
            "__uint_as_float(m2cu_assumed)",
            "__float_as_uint(m2cu_next)",
        ),
        Class::Int32 => (
            "unsigned int",
            "(int32_t)m2cu_assumed",
            "(unsigned int)m2cu_next",
        ),
        Class::Uint32 => (
            "unsigned int",
            "(uint32_t)m2cu_assumed",
            "(unsigned int)m2cu_next",
        ),
        Class::Int64 => (
            "unsigned long long",
            "(int64_t)m2cu_assumed",
            "(unsigned long long)m2cu_next",
        ),
        Class::Uint64 => (
            "unsigned long long",
            "(uint64_t)m2cu_assumed",
            "(unsigned long long)m2cu_next",
        ),
        _ => return None,
    };
    let ty = class.c_type();
    Some(format!(
        "static __device__ void m2cu_atomic_combine{c}({ty} *m2cu_p, {ty} m2cu_v, int *m2cu_err)
{{
    {bits} *m2cu_a = ({bits} *)m2cu_p;
    {bits} m2cu_old = *m2cu_a, m2cu_assumed;
    do {{
        m2cu_assumed = m2cu_old;
        {ty} m2cu_next = m2cu_combine{c}({from}, m2cu_v, m2cu_err);
        m2cu_old = atomicCAS(m2cu_a, m2cu_assumed, {to});
    }} while (m2cu_old != m2cu_assumed);
}}
"
    ))
}

/// The locals of every combiner: its parameters, its output and what its body assigns.
pub fn locals(f: &Function) -> BTreeSet<LocalId> {
    f.combiners.iter().flat_map(|c| body_locals(f, c)).collect()
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
