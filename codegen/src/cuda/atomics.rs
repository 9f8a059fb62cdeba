//! CUDA atomics: how a block's partial merges into a reduction's result in global memory — the
//! hardware atomics, the compare-and-swap loops for the float operations CUDA lacks and for
//! saturating integer sums ([`CAS_ATOMICS`]), and one loop per `gpucoder.reduce` combiner.

use m2cu_frontend::ir::{combiner_number, Combiner, CombinerId};
use m2cu_frontend::operator::Combine;
use m2cu_frontend::types::Class;

use crate::combine::{capture_args, capture_params};
use crate::reduce::ReductionCode;
use crate::stmt::Context;

/// The CUDA statement that merges the wide value `v` of reduction `rc` into `*ptr`.
pub fn reduction(rc: &ReductionCode, ptr: &str, v: &str) -> String {
    let float = rc.class.is_float();
    let suffix = if rc.class == Class::Single { "f" } else { "d" };
    match rc.combine_op() {
        Combine::Add if rc.saturating() => {
            let suffix = match rc.wide_type() {
                "int" => "i",
                "unsigned int" => "u",
                "long long" => "ll",
                _ => "ull",
            };
            format!(
                "m2cu_atomic_satadd_{suffix}({ptr}, {v}, {});",
                rc.wide_max()
            )
        }
        Combine::Add => format!("atomicAdd({ptr}, {v});"),
        Combine::Mul if float => format!("m2cu_atomic_prod_{suffix}({ptr}, {v});"),
        Combine::Min if float => format!("m2cu_atomic_min_{suffix}({ptr}, {v});"),
        Combine::Max if float => format!("m2cu_atomic_max_{suffix}({ptr}, {v});"),
        Combine::Min => format!("atomicMin({ptr}, {v});"),
        Combine::Max => format!("atomicMax({ptr}, {v});"),
        Combine::LogicalAnd | Combine::BitAnd => format!("atomicAnd({ptr}, {v});"),
        Combine::LogicalOr | Combine::BitOr => format!("atomicOr({ptr}, {v});"),
        Combine::BitXor => format!("atomicXor({ptr}, {v});"),
        Combine::Call => {
            let c = rc.custom().expect("a call combines a custom reduction");
            let captured: String = rc.captures.iter().map(|n| format!(", {n}")).collect();
            format!(
                "m2cu_atomic_combine{}({ptr}, {v}{captured}, m2cu_err);",
                combiner_number(c)
            )
        }
        Combine::Mul => unreachable!("integer products are sequential"),
    }
}

/// The compare-and-swap loops of every combiner, for kernels: `*p = f(*p, v)` atomically, for any
/// binary function whose values fit 32 or 64 bits (the analysis keeps other classes sequential).
/// The loop calls the function on the current result and the block's partial only, so it
/// combines disjoint parts of the data.
pub fn combiners(ctx: &Context) -> String {
    ctx.f
        .combiners
        .iter()
        .filter_map(|(c, combiner)| combiner_loop(ctx, c, combiner))
        .collect()
}

/// `m2cu_atomic_combine<c>(T *p, T v, int *m2cu_err)`: `*p = f(*p, v)` atomically, through the
/// unsigned integer of the same width (the combiner's captured values after `v`, passed on).
fn combiner_loop(ctx: &Context, c: CombinerId, combiner: &Combiner) -> Option<String> {
    let class = ctx.f.locals[combiner.output].ty.class;
    let (params, args) = (capture_params(ctx, combiner), capture_args(ctx, combiner));
    let c = combiner_number(c);
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
        "static __device__ void m2cu_atomic_combine{c}({ty} *m2cu_p, {ty} m2cu_v{params}, int *m2cu_err)
{{
    {bits} *m2cu_a = ({bits} *)m2cu_p;
    {bits} m2cu_old = *m2cu_a, m2cu_assumed;
    do {{
        m2cu_assumed = m2cu_old;
        {ty} m2cu_next = m2cu_combine{c}({from}, m2cu_v{args}, m2cu_err);
        m2cu_old = atomicCAS(m2cu_a, m2cu_assumed, {to});
    }} while (m2cu_old != m2cu_assumed);
}}
"
    ))
}

/// CAS loops for the float atomics CUDA does not have.
pub const CAS_ATOMICS: &str = r#"
#define M2CU_CAS_ATOMIC(name, T, U, to_bits, from_bits, expr)                         \
    static __device__ __forceinline__ void name(T *p, T v)                              \
    {                                                                                   \
        U *a = (U *)p;                                                                  \
        U old = *a, assumed;                                                            \
        do {                                                                            \
            assumed = old;                                                              \
            T cur = from_bits(assumed);                                                 \
            T next = (expr);                                                            \
            if (to_bits(next) == assumed) break;                                        \
            old = atomicCAS(a, assumed, to_bits(next));                                 \
        } while (old != assumed);                                                       \
    }
M2CU_CAS_ATOMIC(m2cu_atomic_min_d, double, unsigned long long, __double_as_longlong, __longlong_as_double, m2cu_fmin(cur, v))
M2CU_CAS_ATOMIC(m2cu_atomic_max_d, double, unsigned long long, __double_as_longlong, __longlong_as_double, m2cu_fmax(cur, v))
M2CU_CAS_ATOMIC(m2cu_atomic_prod_d, double, unsigned long long, __double_as_longlong, __longlong_as_double, cur * v)
M2CU_CAS_ATOMIC(m2cu_atomic_min_f, float, unsigned int, __float_as_uint, __uint_as_float, m2cu_fmin(cur, v))
M2CU_CAS_ATOMIC(m2cu_atomic_max_f, float, unsigned int, __float_as_uint, __uint_as_float, m2cu_fmax(cur, v))
M2CU_CAS_ATOMIC(m2cu_atomic_prod_f, float, unsigned int, __float_as_uint, __uint_as_float, cur * v)
/* Saturating adds of non-negative partials, for integer sums (which saturate at the maximum). */
#define M2CU_SAT_ATOMIC(name, T, U)                                                     \
    static __device__ __forceinline__ void name(T *p, T v, T cap)                       \
    {                                                                                   \
        U *a = (U *)p;                                                                  \
        U old = *a, assumed;                                                            \
        do {                                                                            \
            assumed = old;                                                              \
            T cur = (T)assumed;                                                         \
            T next = cur > cap - v ? cap : cur + v;                                     \
            if ((U)next == assumed) break;                                              \
            old = atomicCAS(a, assumed, (U)next);                                       \
        } while (old != assumed);                                                       \
    }
M2CU_SAT_ATOMIC(m2cu_atomic_satadd_i, int, int)
M2CU_SAT_ATOMIC(m2cu_atomic_satadd_u, unsigned int, unsigned int)
M2CU_SAT_ATOMIC(m2cu_atomic_satadd_ll, long long, unsigned long long)
M2CU_SAT_ATOMIC(m2cu_atomic_satadd_ull, unsigned long long, unsigned long long)
"#;
