//! The helper functions every generated file starts with, as one text that compiles both as C99
//! (the CPU path, the host programs) and as CUDA C++ under NVRTC or nvcc (the kernels).
//!
//! The helpers implement MATLAB's scalar semantics: saturating, round-half-away conversions to
//! the integer classes, NaN-skipping `min`/`max`, Octave's `mod`/`rem` (including its snapping of
//! results within the class's epsilon of a multiple to zero, in float for single, and the sign
//! of zero), checked 1-based indexing, and errors for results MATLAB would make complex. Errors are recorded in an `int`
//! status that the caller passes as `M2CU_ERR`; the first error wins.
//!
//! int64 and uint64 arithmetic is exact and saturating between integers, and with a double
//! operand gives Octave 7.3's results bit for bit (`INT64_MIXED`), on the host and the GPU alike.

use std::fmt::Write;

use m2cu_frontend::errors::ErrorCode;
use m2cu_frontend::types::Class;

const PLATFORM: &str = r#"#if defined(__CUDACC__)
#  define M2CU_FN static __device__ __host__ __forceinline__
#else
#  define M2CU_FN static inline
#endif
/* nvcc compiles the standalone .cu twice: device code (__CUDA_ARCH__ set, as in NVRTC and
 * the emulator's M2CU_EMU_DEVICE) and host code, where the prelude uses no device intrinsic. */
#if defined(__CUDA_ARCH__) || defined(M2CU_EMU_DEVICE)
#  define M2CU_FAIL(err, code) atomicCAS((err), 0, (code))
#  define M2CU_FAIL_INDEX(err, code, value, bound) m2cu_fail_index_device((err), (code), (value), (bound))
#  define M2CU_INF __longlong_as_double(0x7ff0000000000000LL)
#  define M2CU_NAN __longlong_as_double(0x7ff8000000000000LL)
#  define M2CU_INFF __int_as_float(0x7f800000)
#  define M2CU_NANF __int_as_float(0x7fc00000)
#else
#  define M2CU_FAIL(err, code) do { if (*(err) == 0) *(err) = (code); } while (0)
#  define M2CU_FAIL_INDEX(err, code, value, bound) m2cu_fail_index((err), (code), (value), (bound))
#  define M2CU_INF ((double)INFINITY)
#  define M2CU_NAN ((double)NAN)
#  define M2CU_INFF ((float)INFINITY)
#  define M2CU_NANF ((float)NAN)
#endif
/* The status of a read of the k-th variable of `Function::undefined_names` before any
 * assignment: the host names it in the message (m2cu_name_undefined). */
#define M2CU_UNDEFINED(k) (M2CU_E_UNDEFINED_NAMED + 256 * (k))
/* A status with the place it comes from: `site` numbers a checked place of the source, which
 * the host's m2cu_site_text names (see m2cu_codegen::sites); 0 is none. */
#define M2CU_AT(code, site) ((code) + 256 * (site))
#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
#endif
/* The detail of a failed index check in a kernel: the status of the first thread that failed
 * one, its subscript's value and the bound it passed (`claimed` once a thread wrote it). */
typedef struct m2cu_kdetail { int claimed, status; long long bound; double value; } m2cu_kdetail_t;
#if defined(__CUDACC__) || defined(M2CU_EMU_DEVICE)
/* One record per module, which the host takes (and clears) after a kernel that failed
 * (m2cu_take_detail); declared in both of nvcc's passes, since kernels name it. */
__device__ m2cu_kdetail_t m2cu_kdetail;
static __device__ void m2cu_fail_index_device(int *err, int code, double value, int64_t bound)
{
    if (atomicCAS(&m2cu_kdetail.claimed, 0, 1) == 0) {
        m2cu_kdetail.status = code;
        m2cu_kdetail.value = value;
        m2cu_kdetail.bound = bound;
    }
    M2CU_FAIL(err, code);
}
#endif
#if !defined(__CUDACC_RTC__) && !defined(M2CU_EMU_DEVICE)
/* On the host, a failed index check also keeps the bound it passed and the subscript's value,
 * for the message (m2cu_message), under one lock so that OpenMP threads keep one status with
 * its own detail. Declared in both of nvcc's passes over the standalone .cu, since its device
 * pass parses the host functions that use it too; not in NVRTC's or the emulator's kernels.
 * The value is MATLAB's first failing one only where the checks run in order: inside a
 * parallel region another thread may fail first at a later iteration, so it is kept only
 * outside one (`ordered`). (Inside kernels only the status is kept.) */
#if defined(_OPENMP)
#  include <omp.h>
#  define M2CU_IN_ORDER (!omp_in_parallel())
#else
#  define M2CU_IN_ORDER 1
#endif
static struct { int status, ordered, calls, shared; double value; int64_t bound; } m2cu_detail;
/* A call of the program starts: the detail is cleared when it runs alone; calls that overlap
 * share the one record, which then is not used (`shared`, until none runs). */
static inline void m2cu_call_begins(void)
{
    #pragma omp critical (m2cu_fail)
    {
        if (m2cu_detail.calls++ == 0) m2cu_detail.status = 0;
        else m2cu_detail.shared = 1;
    }
}
static inline void m2cu_call_ends(void)
{
    #pragma omp critical (m2cu_fail)
    {
        if (--m2cu_detail.calls == 0) m2cu_detail.shared = 0;
    }
}
static inline void m2cu_fail_index(int *err, int code, double value, int64_t bound)
{
    /* Only the first failure is kept: once the status is set, a loop that runs on (to its
     * iteration's end, or an inner loop's) takes no lock at each check that fails again. */
    int seen;
    #pragma omp atomic read
    seen = *err;
    if (seen != 0) return;
    int ordered = M2CU_IN_ORDER;
    #pragma omp critical (m2cu_fail)
    {
        if (*err == 0) {
            *err = code;
            m2cu_detail.status = code;
            m2cu_detail.ordered = ordered;
            m2cu_detail.value = value;
            m2cu_detail.bound = bound;
        }
    }
}
/* A kernel's detail (m2cu_take_detail) for the call's status `status`, which the kernel set:
 * kept when its thread's failure is the one the call reports, never as in order (threads of
 * other iterations, earlier in MATLAB's order, may have failed as well). */
static inline void m2cu_kernel_detail(int status, const m2cu_kdetail_t *d)
{
    #pragma omp critical (m2cu_fail)
    {
        if (d->claimed && d->status == status && m2cu_detail.status == 0) {
            m2cu_detail.status = status;
            m2cu_detail.ordered = 0;
            m2cu_detail.value = d->value;
            m2cu_detail.bound = d->bound;
        }
    }
}
#endif
"#;

const HELPERS: &str = r#"
/* The 0-based offset of the 1-based index x into n elements; `past_end` is the error for x > n,
 * and the error carries the subscript's `site`. */
M2CU_FN int64_t m2cu_index(double x, int64_t n, int past_end, int site, int *err)
{
    /* Not a positive integer: NaN, below 1, or a fraction (every double from 2^53 on is an
     * integer; below it the conversion truncates exactly, without a call to floor). */
    if (!(x >= 1.0) || (x < 9007199254740992.0 && (double)(int64_t)x != x)) { M2CU_FAIL_INDEX(err, M2CU_AT(M2CU_E_INDEX_INVALID, site), x, n); return 0; }
    if (x > (double)n) { M2CU_FAIL_INDEX(err, M2CU_AT(past_end, site), x, n); return 0; }
    return (int64_t)x - 1;
}

M2CU_FN int64_t m2cu_indexi(int64_t x, int64_t n, int past_end, int site, int *err)
{
    if (x < 1) { M2CU_FAIL_INDEX(err, M2CU_AT(M2CU_E_INDEX_INVALID, site), (double)x, n); return 0; }
    if (x > n) { M2CU_FAIL_INDEX(err, M2CU_AT(past_end, site), (double)x, n); return 0; }
    return x - 1;
}

/* An element that is read: past the end is MATLAB's error. */
M2CU_FN int64_t m2cu_idx(double x, int64_t n, int site, int *err) { return m2cu_index(x, n, M2CU_E_INDEX_RANGE, site, err); }
M2CU_FN int64_t m2cu_idxi(int64_t x, int64_t n, int site, int *err) { return m2cu_indexi(x, n, M2CU_E_INDEX_RANGE, site, err); }

/* An element that is assigned: past the end MATLAB would grow the array, which m2cu does not. */
M2CU_FN int64_t m2cu_sidx(double x, int64_t n, int site, int *err) { return m2cu_index(x, n, M2CU_E_GROW, site, err); }
M2CU_FN int64_t m2cu_sidxi(int64_t x, int64_t n, int site, int *err) { return m2cu_indexi(x, n, M2CU_E_GROW, site, err); }

/* A size of an array the program asks for: rows < 0 marks an array not assigned yet. */
M2CU_FN int64_t m2cu_defined(int64_t rows, int64_t size, int *err)
{
    if (rows < 0) { M2CU_FAIL(err, M2CU_E_UNDEFINED); return 0; }
    return size;
}

#define M2CU_COUNT_MAX 9223372036854775807LL
/* MATLAB's largest number of elements of an array, 2^48 - 1. */
#define M2CU_MAX_NUMEL 281474976710655LL

/* Number of elements of first:step:last, as MATLAB's colon computes it; a count that int64
 * cannot hold (an infinite limit included) saturates at M2CU_COUNT_MAX. */
M2CU_FN int64_t m2cu_count(double first, double step, double last)
{
    double n;
    if (step == 0.0 || first != first || step != step || last != last) return 0;
    if ((step > 0.0 && first > last) || (step < 0.0 && first < last)) return 0;
    n = floor((last - first) / step * (1.0 + 4.440892098500626e-16)) + 1.0;
    if (!(n < 9223372036854775807.0)) return M2CU_COUNT_MAX;
    return n < 0.0 ? 0 : (int64_t)n;
}

/* The trip count of `for v = first:step:last`. As in Octave, a range to an infinite limit runs
 * until `break` (M2CU_COUNT_MAX iterations); a range starting at an infinity, or one with a
 * finite limit and more elements than int64 holds, is Octave's "invalid range". After a
 * failure (`*err` set) it is 0: the call ends with that error, and a loop the code reaches
 * after it (a parallel loop does not test the status at each iteration) runs no iteration on
 * sizes the failure left at 0, such as 1:n*n after a size n too large to allocate. */
M2CU_FN int64_t m2cu_trips(double first, double step, double last, int site, int *err)
{
    if (*err != 0) return 0;
    int64_t n = m2cu_count(first, step, last);
    if (n > 0 && (isinf(first) || (n == M2CU_COUNT_MAX && !isinf(last)))) {
        M2CU_FAIL(err, M2CU_AT(M2CU_E_RANGE, site));
        return 0;
    }
    return n;
}

/* The last element of first:step:last with n elements: the limit itself when first + (n-1)*step
 * overshoots it, as MATLAB and Octave make it. */
M2CU_FN double m2cu_range_final(double first, double step, double last, int64_t n)
{
    double v = first + (double)(n - 1) * step;
    if ((step > 0.0 && v > last) || (step < 0.0 && v < last)) v = last;
    return v;
}

/* char(x): the UTF-16 code unit round(x) (half away from zero); NaN, negative codes and codes
 * above 65535 are an error (Octave's chars are bytes, MATLAB's code units: they agree only on
 * 0 to 255, and m2cu follows MATLAB's 16 bits). */
M2CU_FN uint16_t m2cu_to_char(double x, int site, int *err)
{
    x = round(x);
    if (!(x >= 0.0 && x <= 65535.0)) { M2CU_FAIL(err, M2CU_AT(M2CU_E_CHAR, site)); return 0; }
    return (uint16_t)x;
}

/* upper/lower of a char code: ASCII letters change case, other ASCII codes stay; a code above
 * 127 is an error (MATLAB changes the case of non-ASCII letters as well). */
M2CU_FN double m2cu_upper(double c, int site, int *err)
{
    if (c > 127.0) M2CU_FAIL(err, M2CU_AT(M2CU_E_CASE, site));
    return c >= 97.0 && c <= 122.0 ? c - 32.0 : c;
}

M2CU_FN double m2cu_lower(double c, int site, int *err)
{
    if (c > 127.0) M2CU_FAIL(err, M2CU_AT(M2CU_E_CASE, site));
    return c >= 65.0 && c <= 90.0 ? c + 32.0 : c;
}

/* A size argument (zeros(n), ones(r, c), ...) as an extent; `site` names the call. */
M2CU_FN int64_t m2cu_size(double x, int site, int *err)
{
    if (x != x || x != floor(x)) { M2CU_FAIL(err, M2CU_AT(M2CU_E_SIZE, site)); return 0; }
    if (x > (double)M2CU_MAX_NUMEL) { M2CU_FAIL(err, M2CU_AT(M2CU_E_TOO_BIG, site)); return 0; }
    return x < 0.0 ? 0 : (int64_t)x;
}

/* The number of elements of an r-by-c-by-p array (extents from m2cu_size); more than
 * M2CU_MAX_NUMEL is MATLAB's error, checked without overflowing. */
M2CU_FN int64_t m2cu_numel(int64_t r, int64_t c, int64_t p, int *err)
{
    if (r == 0 || c == 0 || p == 0) return 0;
    if (r > M2CU_MAX_NUMEL / c || r * c > M2CU_MAX_NUMEL / p) { M2CU_FAIL(err, M2CU_E_TOO_BIG); return 0; }
    return r * c * p;
}

M2CU_FN int64_t m2cu_max3(int64_t a, int64_t b, int64_t c)
{
    int64_t m = a > b ? a : b;
    return m > c ? m : c;
}

/* MATLAB's truth of a number: nonzero; NaN has none, and stops (false, so that loops end). */
M2CU_FN bool m2cu_truth(double x, int site, int *err)
{
    if (x != x) { M2CU_FAIL(err, M2CU_AT(M2CU_E_NAN_TO_LOGICAL, site)); return false; }
    return x != 0.0;
}

M2CU_FN bool m2cu_truthf(float x, int site, int *err)
{
    if (x != x) { M2CU_FAIL(err, M2CU_AT(M2CU_E_NAN_TO_LOGICAL, site)); return false; }
    return x != 0.0f;
}

/* A value the C compiler cannot take for a constant. GCC and Clang evaluate a libm call of a
 * constant when compiling, correctly rounded, where the run-time library (glibc, Octave's) may
 * be an ulp off: glibc's cbrt(-27) is -3.0000000000000004. So every libm call of an elementary
 * function goes through m2cu_<f>, which reads its arguments through this barrier; device code
 * needs none (the comparison on a GPU allows CUDA's few ulps anyway). */
#if defined(__CUDA_ARCH__) && !defined(M2CU_EMU_DEVICE)
M2CU_FN double m2cu_runtime(double x) { return x; }
M2CU_FN float m2cu_runtimef(float x) { return x; }
#else
M2CU_FN double m2cu_runtime(double x) { volatile double v = x; return v; }
M2CU_FN float m2cu_runtimef(float x) { volatile float v = x; return v; }
#endif

/* The functions whose real result would be complex outside a domain stop there with
 * M2CU_E_COMPLEX at `site`, the call or power that raised it (0: none). */
M2CU_FN double m2cu_sqrt(double x, int site, int *err)
{
    if (x < 0.0) M2CU_FAIL(err, M2CU_AT(M2CU_E_COMPLEX, site));
    return sqrt(x);
}

M2CU_FN double m2cu_pow(double a, double b, int site, int *err)
{
    if (a < 0.0 && b != floor(b) && b == b) M2CU_FAIL(err, M2CU_AT(M2CU_E_COMPLEX, site));
    return pow(m2cu_runtime(a), m2cu_runtime(b));
}

/* Octave's a .^ b of an array a by a scalar b (liboctave's elem_xpow): when a has other than one
 * element, b = 2, 3 and -1 give a*a, a*a*a and 1/a, not pow; otherwise pow, as for a scalar.
 * The single version multiplies in single (each product rounded), as Octave's FloatNDArray. */
M2CU_FN double m2cu_elem_pow(double a, double b, int array_base, int site, int *err)
{
    if (array_base && b == 2.0) return a * a;
    if (array_base && b == 3.0) return a * a * a;
    if (array_base && b == -1.0) return 1.0 / a;
    return m2cu_pow(a, b, site, err);
}

/* Octave's single power: powf for a scalar power (xpow), for an array .^ an array and for a
 * non-integer exponent; an array .^ another integer exponent is std::pow(float, int), computed
 * in double and rounded. */
M2CU_FN float m2cu_powf(float a, float b, int site, int *err)
{
    if (a < 0.0f && b != floorf(b) && b == b) M2CU_FAIL(err, M2CU_AT(M2CU_E_COMPLEX, site));
    return powf(m2cu_runtimef(a), m2cu_runtimef(b));
}

M2CU_FN float m2cu_elem_powf(float a, double b, int array_base, int site, int *err)
{
    if (array_base && b == 2.0) return a * a;
    if (array_base && b == 3.0) return a * a * a;
    if (array_base && b == -1.0) return 1.0f / a;
    if (array_base && b == floor(b)) return (float)m2cu_pow(a, b, site, err);
    return m2cu_powf(a, (float)b, site, err);
}

/* sign(-0) is +0, as in Octave; sign(NaN) is NaN. */
M2CU_FN double m2cu_sign(double x)
{
    return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : (x == 0.0 ? 0.0 : x));
}

/* Octave's max(x, y) and min(x, y) of two scalars: a NaN operand is skipped, and of two equal
 * operands (-0 and +0) the second is the result, so a running m = max(m, v(i)) ends on the last
 * of the tied elements. (C's fmax and fmin leave the sign of a zero result unspecified.) */
M2CU_FN double m2cu_fmax(double x, double y) { return (y != y || x > y) ? x : y; }
M2CU_FN double m2cu_fmin(double x, double y) { return (y != y || x < y) ? x : y; }

/* Octave's mod and rem in the class's own precision (a double, or a single as float, with that
 * class's eps): r = x - y*n with n = floor(x/y) (mod) or trunc(x/y) (rem), except that when y is
 * not an integer and x/y is within eps of one, r is exactly 0. mod(x, 0) is x and its result has
 * the sign of y; rem(x, 0) is NaN and its result has the sign of x (zero included). S is the C
 * library's suffix for T (floor, floorf). */
#define M2CU_OCTAVE_MOD_REM(T, S, EPS) \
M2CU_FN T m2cu_nint##S(T x) { return isfinite(x) ? floor##S(x + (T)0.5) : x; } \
M2CU_FN T m2cu_octave_rest##S(T x, T y, int floor_quotient) \
{ \
    T q = x / y; \
    if (m2cu_nint##S(y) != y && fabs##S((q - m2cu_nint##S(q)) / m2cu_nint##S(q)) < (EPS)) return (T)0; \
    { \
        volatile T t = y * (floor_quotient ? floor##S(q) : trunc##S(q)); \
        return x - t; \
    } \
} \
M2CU_FN T m2cu_mod##S(T x, T y) \
{ \
    T r = y == (T)0 ? x : m2cu_octave_rest##S(x, y, 1); \
    return (x != y && y != (T)0) ? copysign##S(r, y) : r; \
} \
M2CU_FN T m2cu_rem##S(T x, T y) \
{ \
    T r = y == (T)0 ? (T)M2CU_NAN : m2cu_octave_rest##S(x, y, 0); \
    return (x != y && y != (T)0) ? copysign##S(r, x) : r; \
}
M2CU_OCTAVE_MOD_REM(double, , 2.220446049250313e-16)
M2CU_OCTAVE_MOD_REM(float, f, 1.1920929e-07f)

#define M2CU_LIBM1(F) \
M2CU_FN double m2cu_##F(double x) { return F(m2cu_runtime(x)); } \
M2CU_FN float m2cu_##F##f(float x) { return F##f(m2cu_runtimef(x)); }
#define M2CU_LIBM2(F) \
M2CU_FN double m2cu_##F(double x, double y) { return F(m2cu_runtime(x), m2cu_runtime(y)); } \
M2CU_FN float m2cu_##F##f(float x, float y) { return F##f(m2cu_runtimef(x), m2cu_runtimef(y)); }
M2CU_LIBM1(exp)
M2CU_LIBM1(sin)
M2CU_LIBM1(cos)
M2CU_LIBM1(tan)
M2CU_LIBM1(atan)
M2CU_LIBM1(sinh)
M2CU_LIBM1(cosh)
M2CU_LIBM1(tanh)
M2CU_LIBM1(asinh)
M2CU_LIBM1(expm1)
M2CU_LIBM1(erf)
M2CU_LIBM1(erfc)
M2CU_LIBM1(cbrt)
M2CU_LIBM2(atan2)
M2CU_LIBM2(hypot)

/* The real elementary functions in T's precision, S the C library's suffix (sin, sinf):
 * - those whose result is complex outside a domain stop with M2CU_E_COMPLEX at `site` there, as
 *   sqrt does;
 * - gamma as Octave's: Inf at +0, -Inf at -0, Inf at negative integers and at +-Inf;
 * - sind, cosd and tand as Octave's sind.m, cosd.m and tand.m compute them (pi rounded to T,
 *   as Octave's single(x) * pi is). */
#define M2CU_ELEMENTARY(T, S, INF) \
M2CU_FN T m2cu_log##S(T x, int site, int *err) { if (x < (T)0) M2CU_FAIL(err, M2CU_AT(M2CU_E_COMPLEX, site)); return log##S(m2cu_runtime##S(x)); } \
M2CU_FN T m2cu_log2##S(T x, int site, int *err) { if (x < (T)0) M2CU_FAIL(err, M2CU_AT(M2CU_E_COMPLEX, site)); return log2##S(m2cu_runtime##S(x)); } \
M2CU_FN T m2cu_log10##S(T x, int site, int *err) { if (x < (T)0) M2CU_FAIL(err, M2CU_AT(M2CU_E_COMPLEX, site)); return log10##S(m2cu_runtime##S(x)); } \
M2CU_FN T m2cu_log1p##S(T x, int site, int *err) { if (x < (T)-1) M2CU_FAIL(err, M2CU_AT(M2CU_E_COMPLEX, site)); return log1p##S(m2cu_runtime##S(x)); } \
M2CU_FN T m2cu_asin##S(T x, int site, int *err) { if (x < (T)-1 || x > (T)1) M2CU_FAIL(err, M2CU_AT(M2CU_E_COMPLEX, site)); return asin##S(m2cu_runtime##S(x)); } \
M2CU_FN T m2cu_acos##S(T x, int site, int *err) { if (x < (T)-1 || x > (T)1) M2CU_FAIL(err, M2CU_AT(M2CU_E_COMPLEX, site)); return acos##S(m2cu_runtime##S(x)); } \
M2CU_FN T m2cu_acosh##S(T x, int site, int *err) { if (x < (T)1) M2CU_FAIL(err, M2CU_AT(M2CU_E_COMPLEX, site)); return acosh##S(m2cu_runtime##S(x)); } \
M2CU_FN T m2cu_atanh##S(T x, int site, int *err) { if (x < (T)-1 || x > (T)1) M2CU_FAIL(err, M2CU_AT(M2CU_E_COMPLEX, site)); return atanh##S(m2cu_runtime##S(x)); } \
M2CU_FN T m2cu_gammaln##S(T x, int site, int *err) { if (x < (T)0) M2CU_FAIL(err, M2CU_AT(M2CU_E_COMPLEX, site)); return lgamma##S(m2cu_runtime##S(x)); } \
M2CU_FN T m2cu_gamma##S(T x) \
{ \
    if (x == (T)0) return signbit(x) ? -(INF) : (INF); \
    if ((x < (T)0 && floor##S(x) == x) || isinf(x)) return (INF); \
    return tgamma##S(m2cu_runtime##S(x)); \
} \
M2CU_FN T m2cu_sind##S(T x) \
{ \
    T r = m2cu_mod##S(x - (T)180, (T)360) - (T)180; \
    return r == (T)-180 ? (T)0 : m2cu_sin##S(r / (T)180 * (T)3.141592653589793); \
} \
M2CU_FN T m2cu_cosd##S(T x) { return m2cu_sind##S(x + (T)90); } \
M2CU_FN T m2cu_tand##S(T x) \
{ \
    T i0 = x / (T)180, i90 = (x - (T)90) / (T)180; \
    T y = m2cu_tan##S(i0 * (T)3.141592653589793); \
    if (i0 == trunc##S(i0) && isfinite(i0)) y = (T)0; \
    if (i90 == trunc##S(i90) && isfinite(i90)) y = (INF); \
    return y; \
}
M2CU_ELEMENTARY(double, , M2CU_INF)
M2CU_ELEMENTARY(float, f, M2CU_INFF)

/* eps(x): 2^(e - DIGITS) for |x| = m * 2^e with m in [0.5, 1) (the gap above |x|), the smallest
 * subnormal TINY below the normal range (MIN), NaN for Inf and NaN, as Octave's eps. */
#define M2CU_EPS(T, S, DIGITS, MIN, TINY, NAN_) \
M2CU_FN T m2cu_eps##S(T x) \
{ \
    int e; \
    T a = fabs##S(x); \
    if (!isfinite(a)) return (NAN_); \
    if (a < (MIN)) return (TINY); \
    frexp##S(a, &e); \
    return ldexp##S((T)1, e - (DIGITS)); \
}

/* Element k (1-based) of Octave 7.3's linspace(x1, x2, n), n >= k: liboctave builds it from
 * both ends, x1 + i*delta in the first half and x2 - i*delta in the second, the middle of an odd
 * count (x1 + x2) / 2 (0 when x1 == -x2); equal ends take no shortcut (linspace(-0, -0, 5) has
 * +0 inside, linspace(Inf, Inf, 5) NaN). */
#define M2CU_LINSPACE(T, S) \
M2CU_FN T m2cu_linspace##S(T x1, T x2, double n, double k) \
{ \
    int64_t m = (int64_t)n, i = (int64_t)k - 1, half = m / 2; \
    T delta; \
    if (m == 1 || i == m - 1) return x2; \
    if (i == 0) return x1; \
    delta = (x2 - x1) / (T)(m - 1); \
    if (i < half) return x1 + (T)i * delta; \
    if (m % 2 == 1 && i == half) return x1 == -x2 ? (T)0 : (x1 + x2) / (T)2; \
    return x2 - (T)(m - 1 - i) * delta; \
}
M2CU_LINSPACE(double, )
M2CU_LINSPACE(float, f)

M2CU_EPS(double, , 53, 2.2250738585072014e-308, 4.9406564584124654e-324, M2CU_NAN)
M2CU_EPS(float, f, 24, 1.17549435e-38f, 1.40129846e-45f, M2CU_NANF)

/* Octave's nthroot.m for a scalar n, elementwise: cbrt for n = 3 and -3, 1 / nthroot(x, -n) for
 * other negative n; else |x|^(1/n) * sign(x) for odd integers n (x^(1/n) otherwise, where a
 * negative x stops), then for integer n one Newton step, whose non-finite results give x. Powers
 * are Octave's array powers when x is an array (m2cu_elem_pow). */
#define M2CU_NTHROOT(T, S) \
M2CU_FN T m2cu_nthroot_positive##S(T x, T n, int array, int site, int *err) \
{ \
    T y; \
    int integer_n = n == trunc##S(n); \
    if (n == (T)3) return m2cu_cbrt##S(x); \
    if (integer_n && m2cu_mod##S(n, (T)2) == (T)1) { \
        y = m2cu_elem_pow##S(fabs##S(x), (T)1 / n, array, 0, err) * (T)m2cu_sign((double)x); \
    } else if (x < (T)0) { \
        M2CU_FAIL(err, M2CU_AT(M2CU_E_NTHROOT_NEGATIVE, site)); \
        return (T)0; \
    } else { \
        y = m2cu_elem_pow##S(x, (T)1 / n, array, 0, err); \
    } \
    if (integer_n && isfinite(n) && (array || y != (T)0)) { \
        y = ((n - (T)1) * y + x / m2cu_elem_pow##S(y, n - (T)1, array, 0, err)) / n; \
        if (!isfinite(y)) y = x; \
    } \
    return y; \
} \
M2CU_FN T m2cu_nthroot##S(T x, T n, int array, int site, int *err) \
{ \
    if (n == (T)0) { M2CU_FAIL(err, M2CU_AT(M2CU_E_NTHROOT_ZERO, site)); return (T)0; } \
    if (n == (T)-3) return (T)1 / m2cu_cbrt##S(x); \
    if (n < (T)0) return (T)1 / m2cu_nthroot_positive##S(x, -n, array, site, err); \
    return m2cu_nthroot_positive##S(x, n, array, site, err); \
}
M2CU_NTHROOT(double, )
M2CU_NTHROOT(float, f)

/* Octave 7's bitshift(a, k) (Builtin::BitShift). A shift count that is no integer stops; one of
 * 64 or more shifts every bit out. Integers shift in 64 bits (left shifts as unsigned, so
 * without overflow; right shifts of signed values arithmetic) and the caller's cast to the class
 * keeps the low bits. A double (single) is truncated to int64, shifted and kept to its low 53
 * (24) bits, a negative one as the negated shift of its magnitude; NaN, infinities and
 * magnitudes from 2^63 are 0. */
M2CU_FN int m2cu_shift_count(double k, int site, int *err)
{
    if (k != trunc(k)) { M2CU_FAIL(err, M2CU_AT(M2CU_E_BITSHIFT_K, site)); return 0; }
    return k >= 64.0 ? 64 : k <= -64.0 ? -64 : (int)k;
}
M2CU_FN int64_t m2cu_ibitshift(int64_t a, double k, int site, int *err)
{
    int n = m2cu_shift_count(k, site, err);
    if (n >= 64) return 0;
    if (n <= -64) return a < 0 ? -1 : 0;
    return n >= 0 ? (int64_t)((uint64_t)a << n) : a >> -n;
}
M2CU_FN uint64_t m2cu_ubitshift(uint64_t a, double k, int site, int *err)
{
    int n = m2cu_shift_count(k, site, err);
    if (n >= 64 || n <= -64) return 0;
    return n >= 0 ? a << n : a >> -n;
}
M2CU_FN int64_t m2cu_float_bitshift(double a, double k, int64_t mask, int site, int *err)
{
    int n = m2cu_shift_count(k, site, err);
    int64_t v, sign = a < 0.0 ? -1 : 1;
    double magnitude = fabs(a);
    if (!(magnitude < 9223372036854775808.0) || n >= 64 || n <= -64) return 0;
    v = (int64_t)magnitude;
    return sign * ((n >= 0 ? (int64_t)((uint64_t)v << n) : v >> -n) & mask);
}
M2CU_FN double m2cu_bitshift(double a, double k, int site, int *err)
{
    return (double)m2cu_float_bitshift(a, k, ((int64_t)1 << 53) - 1, site, err);
}
M2CU_FN float m2cu_bitshiftf(float a, double k, int site, int *err)
{
    return (float)m2cu_float_bitshift((double)a, k, ((int64_t)1 << 24) - 1, site, err);
}

/* Integer mod and rem in int64 (every integer class but uint64). A divisor of -1 leaves no
 * remainder, and must not reach `%`: INT64_MIN % -1 traps. */
M2CU_FN int64_t m2cu_imod(int64_t x, int64_t y)
{
    int64_t r;
    if (y == 0) return x;
    if (y == -1) return 0;
    r = x % y;
    if (r != 0 && ((r < 0) != (y < 0))) r += y;
    return r;
}

M2CU_FN int64_t m2cu_irem(int64_t x, int64_t y)
{
    return (y == 0 || y == -1) ? 0 : x % y;
}

/* uint64 mod and rem: the values above INT64_MAX do not survive int64. */
M2CU_FN uint64_t m2cu_umod(uint64_t x, uint64_t y)
{
    return y == 0 ? x : x % y;
}

M2CU_FN uint64_t m2cu_urem(uint64_t x, uint64_t y)
{
    return y == 0 ? 0 : x % y;
}

M2CU_FN int64_t m2cu_imin(int64_t x, int64_t y) { return x < y ? x : y; }
M2CU_FN int64_t m2cu_imax(int64_t x, int64_t y) { return x > y ? x : y; }
M2CU_FN uint64_t m2cu_umin(uint64_t x, uint64_t y) { return x < y ? x : y; }
M2CU_FN uint64_t m2cu_umax(uint64_t x, uint64_t y) { return x > y ? x : y; }

/* Blocks of 256 threads, a few per multiprocessor, at least one. */
M2CU_FN uint32_t m2cu_grid_size(int64_t n, int64_t block, int32_t sm_count)
{
    int64_t g = (n + block - 1) / block;
    int64_t cap = sm_count > 0 ? (int64_t)sm_count * 8 : 1024;
    if (g > cap) g = cap;
    return g < 1 ? 1u : (uint32_t)g;
}

/* Threads per output of a reduction nested in a kernel's iterations: `forced` when it is
 * positive (rounded down to 1, 32 or the block: a testing hook, m2cu_gpu.lanes); else one when
 * the outputs alone fill a quarter of the largest grid or the inner loop is short; the whole
 * block when every output can have its own block and the inner loop gives each thread several
 * elements; else a warp. */
M2CU_FN int32_t m2cu_lanes_per_output(int64_t outputs, int64_t inner, int32_t sm_count, int32_t block, int32_t forced)
{
    if (forced > 0) return forced >= block ? block : forced >= 32 ? 32 : 1;
    int64_t slots = (sm_count > 0 ? (int64_t)sm_count * 8 : 1024) * block;
    if (inner < 64 || outputs >= slots / 4) return 1;
    if (outputs * block <= slots && inner >= 8 * (int64_t)block) return block;
    return 32;
}

/* Whether a matrix product's outputs are computed a tile at a time (`codegen::cuda::tiles`):
 * as `forced` says when it is not 0 (negative: tiles; positive: the threads per output of
 * m2cu_lanes_per_output, not tiles); else when a tile's rows, its columns and a stretch of the
 * inner loop are all full. */
M2CU_FN int32_t m2cu_tiles_per_output(int64_t rows, int64_t cols, int64_t inner, int32_t tile, int32_t forced)
{
    if (forced != 0) return forced < 0;
    return rows >= tile && cols >= tile && inner >= tile;
}

/* Whether a scan runs in one thread in order (`codegen::cuda::scan`): as `forced` says when it
 * is not 0 (1, a thread per output: in order; any other: the parallel scan); else when it has
 * fewer iterations than the two launches of a parallel scan gain from (a first guess). */
M2CU_FN int32_t m2cu_scan_serial(int64_t n, int32_t forced)
{
    if (forced != 0) return forced == 1;
    return n < 2048;
}
"#;

/// The complete prelude.
pub fn prelude() -> String {
    let mut out = String::from("/* ---- m2cu prelude: MATLAB scalar semantics ---- */\n");
    for code in ErrorCode::ALL {
        let _ = writeln!(out, "#define {} {}", code.constant(), code.code());
    }
    out.push_str(PLATFORM);
    for class in Class::ALL.into_iter().filter(|c| c.is_integer()) {
        out.push_str(&saturating_conversion(class));
    }
    out.push_str(HELPERS);
    out.push_str(crate::expr::complex::PRELUDE);
    out.push_str(INT64_EXACT);
    out.push_str(INT64_MIXED);
    out
}

/// Exact saturating arithmetic for the 64-bit integer classes, whose values a double cannot hold
/// exactly. Division rounds half away from zero, as MATLAB's `/` on integers does.
const INT64_EXACT: &str = r#"
#define M2CU_I64_MAX 9223372036854775807LL
#define M2CU_I64_MIN (-9223372036854775807LL - 1)
#define M2CU_U64_MAX 18446744073709551615ULL

M2CU_FN int64_t m2cu_add_int64(int64_t a, int64_t b)
{
    if (b > 0 && a > M2CU_I64_MAX - b) return M2CU_I64_MAX;
    if (b < 0 && a < M2CU_I64_MIN - b) return M2CU_I64_MIN;
    return a + b;
}

M2CU_FN int64_t m2cu_sub_int64(int64_t a, int64_t b)
{
    if (b < 0 && a > M2CU_I64_MAX + b) return M2CU_I64_MAX;
    if (b > 0 && a < M2CU_I64_MIN + b) return M2CU_I64_MIN;
    return a - b;
}

M2CU_FN int64_t m2cu_mul_int64(int64_t a, int64_t b)
{
    if (a == 0 || b == 0) return 0;
    if (a > 0 ? (b > 0 ? a > M2CU_I64_MAX / b : b < M2CU_I64_MIN / a)
              : (b > 0 ? a < M2CU_I64_MIN / b : b < M2CU_I64_MAX / a))
        return ((a < 0) == (b < 0)) ? M2CU_I64_MAX : M2CU_I64_MIN;
    return a * b;
}

M2CU_FN int64_t m2cu_div_int64(int64_t a, int64_t b)
{
    int64_t q, r;
    if (b == 0) return a > 0 ? M2CU_I64_MAX : (a < 0 ? M2CU_I64_MIN : 0);
    if (a == M2CU_I64_MIN && b == -1) return M2CU_I64_MAX;
    q = a / b;
    r = a % b;
    if (r != 0) {
        uint64_t ar = r < 0 ? (uint64_t)0 - (uint64_t)r : (uint64_t)r;
        uint64_t ab = b < 0 ? (uint64_t)0 - (uint64_t)b : (uint64_t)b;
        if (ar >= ab - ar) q += ((a < 0) == (b < 0)) ? 1 : -1;
    }
    return q;
}

M2CU_FN uint64_t m2cu_add_uint64(uint64_t a, uint64_t b) { return a + b < a ? M2CU_U64_MAX : a + b; }
M2CU_FN uint64_t m2cu_sub_uint64(uint64_t a, uint64_t b) { return a < b ? 0 : a - b; }
M2CU_FN uint64_t m2cu_mul_uint64(uint64_t a, uint64_t b) { return (b != 0 && a > M2CU_U64_MAX / b) ? M2CU_U64_MAX : a * b; }

M2CU_FN uint64_t m2cu_div_uint64(uint64_t a, uint64_t b)
{
    uint64_t q, r;
    if (b == 0) return a == 0 ? 0 : M2CU_U64_MAX;
    q = a / b;
    r = a % b;
    return (r != 0 && r >= b - r) ? q + 1 : q;
}

M2CU_FN int64_t m2cu_abs_int64(int64_t x) { return x < 0 ? m2cu_sub_int64(0, x) : x; }
M2CU_FN int64_t m2cu_uint64_to_int64(uint64_t x) { return x > (uint64_t)M2CU_I64_MAX ? M2CU_I64_MAX : (int64_t)x; }
M2CU_FN uint64_t m2cu_int64_to_uint64(int64_t x) { return x < 0 ? 0 : (uint64_t)x; }
"#;

/// `m2cu_<op>_<class>_id(T a, double b)` and `_di(double a, T b)`: int64 or uint64 with a double
/// (or single, widened) operand, computed as Octave 7.3 computes them, which is the oracle.
///
/// MATLAB computes these exactly and rounds once. Octave's liboctave (`oct-inttypes.cc`, built
/// without `long double` integer arithmetic, as Debian's x86-64 build is) uses integer
/// algorithms that differ from that in corners; every helper below does what it does, found by
/// comparing a model with Octave on millions of random cases (`tests/int64_octave.rs` keeps
/// comparing these helpers with Octave):
///
/// - `+`, `-`: the double is first converted to the class (rounded half away, saturated, NaN to
///   0), then added with saturation: `int64(-3) + 0.5` is -2, `uint64(3) - 0.5` is 2,
///   `int64(5) + NaN` is 5. An int64 plus a double of magnitude 2^63 or more adds `y/2`
///   converted, twice. `d - x` converts `d` the same way, except that `d - intmin('int64')` is
///   computed in double, and a `d` that is not below 2^64 (NaN included) minus a uint64 `x`
///   is `(d - 2^64)` converted plus `2^64 - x`.
/// - `*`: an integer-valued double multiplies exactly; `0.5` divides by 2 (half away); int64
///   times `-0.5` divides by `intmax` (Octave casts -2.0 to uint64); NaN and infinities go
///   through double. Otherwise `|y| = m * 2^e` with `m` the top 52 of its 53 significant bits
///   (the last one is dropped), and each 32-bit word of the 128-bit product `|x| * m` is scaled
///   by its power of two, rounded and added with saturation (`m2cu_octave_mul_words`).
/// - `x / y`: by an integer-valued double, integer division (half away; by 0, the bound of `x`'s
///   sign); otherwise `x * (1/y)` with the reciprocal rounded to double.
/// - `d / x`: in double, `d / double(x)`, then converted.
/// - comparisons (`m2cu_order_<class>_d`): exact, except that an integer whose nearest double is
///   `2^63` (uint64: `2^64`) or `-2^63` and equals the double is greater or less than it.
///
/// Everything is integer arithmetic or exact (or correctly rounded) IEEE operations, so the
/// host and the GPU give the same bits.
const INT64_MIXED: &str = r#"
#define M2CU_TWO63 9223372036854775808.0
#define M2CU_TWO64 18446744073709551616.0

/* The magnitude of Octave's |x| * b for a finite non-integer b, saturated at cap: b = m * 2^e
 * with m the top 52 significant bits of b, the 128-bit product x * m in 32-bit words, and each
 * word scaled by its power of two and rounded on its own before the saturating sum. */
M2CU_FN uint64_t m2cu_octave_mul_words(uint64_t x, double b, uint64_t cap)
{
    int e, i;
    uint64_t m, lx, ux, lm, um, a, uxlm, lxum, uxum, t, sum = 0;
    uint32_t w[4];
    double r;
    m = (uint64_t)(frexp(fabs(b), &e) * 4503599627370496.0);
    e -= 52;
    lx = x & 0xffffffffu; ux = x >> 32; lm = m & 0xffffffffu; um = m >> 32;
    a = lx * lm; w[0] = (uint32_t)a; a >>= 32;
    uxlm = ux * lm; lxum = lx * um; uxum = ux * um;
    a += (uxlm & 0xffffffffu) + (lxum & 0xffffffffu);
    w[1] = (uint32_t)a; a >>= 32;
    a += (uxlm >> 32) + (lxum >> 32) + (uxum & 0xffffffffu);
    w[2] = (uint32_t)a; a >>= 32;
    w[3] = (uint32_t)(a + (uxum >> 32));
    for (i = 0; i < 4; i++, e += 32) {
        r = round(ldexp((double)w[i], e));
        if (r >= (double)cap) return cap;
        t = (uint64_t)r;
        if (t > cap - sum) return cap;
        sum += t;
    }
    return sum;
}

M2CU_FN int64_t m2cu_add_int64_id(int64_t a, double b)
{
    int64_t h;
    if (fabs(b) < M2CU_TWO63) return m2cu_add_int64(a, m2cu_to_int64(b));
    h = m2cu_to_int64(b / 2);
    return m2cu_add_int64(m2cu_add_int64(a, h), h);
}

M2CU_FN int64_t m2cu_add_int64_di(double a, int64_t b) { return m2cu_add_int64_id(b, a); }
M2CU_FN int64_t m2cu_sub_int64_id(int64_t a, double b) { return m2cu_add_int64_id(a, -b); }

M2CU_FN int64_t m2cu_sub_int64_di(double a, int64_t b)
{
    int64_t h;
    if (b == M2CU_I64_MIN) return m2cu_to_int64(a + M2CU_TWO63);
    if (fabs(a) < M2CU_TWO63) return m2cu_sub_int64(m2cu_to_int64(a), b);
    h = m2cu_to_int64(a / 2);
    return m2cu_add_int64(m2cu_sub_int64(h, b), h);
}

M2CU_FN int64_t m2cu_mul_int64_id(int64_t a, double b)
{
    int neg;
    uint64_t mag;
    if (fabs(b) < M2CU_TWO63 && b == trunc(b)) return m2cu_mul_int64(a, (int64_t)b);
    if (b == 0.5) return m2cu_div_int64(a, 2);
    if (b == -0.5) return m2cu_div_int64(a, M2CU_I64_MAX);
    if (b != b || isinf(b)) return m2cu_to_int64((double)a * b);
    neg = (b < 0) != (a < 0);
    mag = m2cu_octave_mul_words(a < 0 ? (uint64_t)0 - (uint64_t)a : (uint64_t)a, b,
                                (uint64_t)M2CU_I64_MAX + (neg ? 1u : 0u));
    if (!neg) return (int64_t)mag;
    return mag > (uint64_t)M2CU_I64_MAX ? M2CU_I64_MIN : -(int64_t)mag;
}

M2CU_FN int64_t m2cu_mul_int64_di(double a, int64_t b) { return m2cu_mul_int64_id(b, a); }

M2CU_FN int64_t m2cu_div_int64_id(int64_t a, double b)
{
    if (fabs(b) < M2CU_TWO63 && b == trunc(b)) return m2cu_div_int64(a, (int64_t)b);
    return m2cu_mul_int64_id(a, 1.0 / b);
}

M2CU_FN int64_t m2cu_div_int64_di(double a, int64_t b) { return m2cu_to_int64(a / (double)b); }

M2CU_FN uint64_t m2cu_add_uint64_id(uint64_t a, double b)
{
    if (b < 0) return m2cu_sub_uint64(a, m2cu_to_uint64(-b));
    return m2cu_add_uint64(a, m2cu_to_uint64(b));
}

M2CU_FN uint64_t m2cu_add_uint64_di(double a, uint64_t b) { return m2cu_add_uint64_id(b, a); }
M2CU_FN uint64_t m2cu_sub_uint64_id(uint64_t a, double b) { return m2cu_add_uint64_id(a, -b); }

M2CU_FN uint64_t m2cu_sub_uint64_di(double a, uint64_t b)
{
    if (a < M2CU_TWO64) return m2cu_sub_uint64(m2cu_to_uint64(a), b);
    if (b == 0) return M2CU_U64_MAX;
    return m2cu_add_uint64(m2cu_to_uint64(a - M2CU_TWO64), (uint64_t)0 - b);
}

M2CU_FN uint64_t m2cu_mul_uint64_id(uint64_t a, double b)
{
    if (b >= 0 && b < M2CU_TWO64 && b == trunc(b)) return m2cu_mul_uint64(a, (uint64_t)b);
    if (b == 0.5) return m2cu_div_uint64(a, 2);
    if (b < 0 || b != b || isinf(b)) return m2cu_to_uint64((double)a * b);
    return m2cu_octave_mul_words(a, b, M2CU_U64_MAX);
}

M2CU_FN uint64_t m2cu_mul_uint64_di(double a, uint64_t b) { return m2cu_mul_uint64_id(b, a); }

M2CU_FN uint64_t m2cu_div_uint64_id(uint64_t a, double b)
{
    if (b >= 0 && b < M2CU_TWO64 && b == trunc(b)) return m2cu_div_uint64(a, (uint64_t)b);
    return m2cu_mul_uint64_id(a, 1.0 / b);
}

M2CU_FN uint64_t m2cu_div_uint64_di(double a, uint64_t b) { return m2cu_to_uint64(a / (double)b); }

/* The order of a 64-bit integer and another value as the index of a bit in a mask of the
 * relations that hold: 0 less, 1 equal, 2 greater, 3 unordered (b is NaN). Against a double it
 * is Octave's: the integer's nearest double decides unless it equals b, then the integers do,
 * except that an integer whose nearest double is 2^63 (uint64: 2^64) is greater than that
 * double and one whose nearest double is -2^63 is less. */
M2CU_FN int m2cu_order_int64_d(int64_t a, double b)
{
    double d = (double)a;
    if (b != b) return 3;
    if (d != b) return d < b ? 0 : 2;
    if (d == M2CU_TWO63) return 2;
    if (d == -M2CU_TWO63) return 0;
    return a < (int64_t)d ? 0 : (a == (int64_t)d ? 1 : 2);
}

M2CU_FN int m2cu_order_uint64_d(uint64_t a, double b)
{
    double d = (double)a;
    if (b != b) return 3;
    if (d != b) return d < b ? 0 : 2;
    if (d == M2CU_TWO64) return 2;
    return a < (uint64_t)d ? 0 : (a == (uint64_t)d ? 1 : 2);
}

/* A uint64 and a signed integer, exactly. */
M2CU_FN int m2cu_order_uint64_i(uint64_t a, int64_t b)
{
    if (b < 0 || a > (uint64_t)b) return 2;
    return a == (uint64_t)b ? 1 : 0;
}
"#;

/// `m2cu_to_<class>(double)`: round half away from zero, saturate, NaN to 0.
fn saturating_conversion(class: Class) -> String {
    let (lo, hi) = class.int_range().expect("an integer class");
    let ty = class.c_type();
    let (lo_lit, hi_lit) = limits_literals(class);
    format!(
        "\nM2CU_FN {ty} m2cu_to_{name}(double x)\n{{\n    if (x != x) return 0;\n    x = round(x);\n    if (x <= {lo:.1}) return {lo_lit};\n    if (x >= {hi:.1}) return {hi_lit};\n    return ({ty})x;\n}}\n",
        name = class.name(),
    )
}

fn limits_literals(class: Class) -> (String, String) {
    match class {
        Class::Int64 => (
            "(-9223372036854775807LL - 1)".into(),
            "9223372036854775807LL".into(),
        ),
        Class::Uint64 => ("0".into(), "18446744073709551615ULL".into()),
        Class::Uint32 => ("0".into(), "4294967295U".into()),
        _ => {
            let (lo, hi) = class.int_range().expect("an integer class");
            (format!("{}", lo as i64), format!("{}", hi as i64))
        }
    }
}

/// The random stream of `rand`/`randn`, included only in programs that draw from it: the
/// Philox4x32-10 counter-based generator (Salmon et al., SC'11) keyed by the seed `M2CU_SEED`.
/// Draw `n` of a stream is a pure function of the seed and `n`, so host code and kernels can
/// share it; a function counts its draws in `m2cu_draws` so successive fills continue the
/// stream.
pub fn random_prelude(seed: u64) -> String {
    format!("\n#define M2CU_SEED {seed}ULL\n{RANDOM}")
}

const RANDOM: &str = r#"/* Philox4x32-10: four 32-bit words from the counter n under the key seed. */
M2CU_FN void m2cu_philox(uint64_t seed, uint64_t n, uint32_t out[4])
{
    uint32_t c0 = (uint32_t)n, c1 = (uint32_t)(n >> 32), c2 = 0, c3 = 0;
    uint32_t k0 = (uint32_t)seed, k1 = (uint32_t)(seed >> 32);
    for (int round = 0; round < 10; round++) {
        uint64_t p0 = (uint64_t)0xD2511F53u * c0, p1 = (uint64_t)0xCD9E8D57u * c2;
        uint32_t n0 = (uint32_t)(p1 >> 32) ^ c1 ^ k0, n2 = (uint32_t)(p0 >> 32) ^ c3 ^ k1;
        c1 = (uint32_t)p1; c3 = (uint32_t)p0; c0 = n0; c2 = n2;
        k0 += 0x9E3779B9u; k1 += 0xBB67AE85u;
    }
    out[0] = c0; out[1] = c1; out[2] = c2; out[3] = c3;
}
/* A double uniform on the open interval (0, 1) from two words: 53 random bits plus one half. */
M2CU_FN double m2cu_open01(uint32_t hi, uint32_t lo)
{
    uint64_t bits = (((uint64_t)hi << 32) | lo) >> 11;
    return ((double)bits + 0.5) * 1.1102230246251565e-16;
}
/* rand: draw n of the stream, uniform on (0, 1). */
M2CU_FN double m2cu_rand(uint64_t seed, uint64_t n)
{
    uint32_t w[4];
    m2cu_philox(seed, n, w);
    return m2cu_open01(w[0], w[1]);
}
/* rand(..., 'single'): 23 random bits plus one half, exact in single and inside (0, 1). */
M2CU_FN float m2cu_randf(uint64_t seed, uint64_t n)
{
    uint32_t w[4];
    m2cu_philox(seed, n, w);
    return ((float)(w[0] >> 9) + 0.5f) * 1.1920928955078125e-7f;
}
/* randn: draw n of the stream, standard normal (Box-Muller over two open uniforms). */
M2CU_FN double m2cu_randn(uint64_t seed, uint64_t n)
{
    uint32_t w[4];
    m2cu_philox(seed, n, w);
    double r = sqrt(-2.0 * log(m2cu_open01(w[0], w[1])));
    return r * cos(6.283185307179586 * m2cu_open01(w[2], w[3]));
}
"#;

/// The host's wall clock, for programs that read it (`tic`/`toc`, `Fill::Clock`): seconds
/// since 1970 with the clock's resolution (MATLAB's `tic` counts microseconds since then);
/// such a program defines `_POSIX_C_SOURCE` before its includes (`clock_gettime`).
pub const CLOCK: &str = r#"#include <time.h>
static double m2cu_clock(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}
"#;

/// Helpers only host programs need: copying, error messages, and releasing outputs.
pub fn host_helpers() -> String {
    let mut cases = String::new();
    for code in ErrorCode::ALL {
        let text = crate::c_text::string_literal(code.message());
        let _ = writeln!(cases, "    case {}: text = {text}; break;", code.code());
    }
    let format_c = include_str!("format.c");
    let display_c = include_str!("display.c");
    format!(
        r#"
/* Storage an empty array points at, so that a failed index check (which yields offset 0) never
 * touches memory outside an allocation. */
static uint64_t m2cu_empty[2];

static inline void *m2cu_dup(const void *p, size_t bytes)
{{
    void *q = malloc(bytes > sizeof(m2cu_empty) ? bytes : sizeof(m2cu_empty));
    if (q != NULL && bytes > 0) memcpy(q, p, bytes);
    return q;
}}

/* A subscript's value as MATLAB prints it: 7, 0.5, -Inf, NaN. */
static void m2cu_index_value(char *out, size_t len, double x)
{{
    if (x != x) snprintf(out, len, "NaN");
    else if (x == (double)INFINITY || x == -(double)INFINITY) snprintf(out, len, "%sInf", x < 0 ? "-" : "");
    else if (x == (double)(int64_t)x && x > -1e15 && x < 1e15) snprintf(out, len, "%lld", (long long)x);
    else snprintf(out, len, "%.15g", x);
}}

/* Field k of a site text of m2cu_site_text ("QUOTE\x1fPLACE\x1fPOSITION\x1fSUBSCRIPT", see
 * m2cu_codegen::sites), its length in *n; "" when it has none. */
static const char *m2cu_site_field(const char *site, int k, int *n)
{{
    for (; k > 0 && site != NULL; k--) {{
        site = strchr(site, '\x1f');
        if (site != NULL) site++;
    }}
    if (site == NULL) {{ *n = 0; return ""; }}
    const char *end = strchr(site, '\x1f');
    *n = end != NULL ? (int)(end - site) : (int)strlen(site);
    return site;
}}

/* The message of a status: its code's text, and the place its site names ("(`x(i)` at
 * f.m:4:12)", from the program's m2cu_site_text), if any. A failed index check of this call on
 * the host (m2cu_detail) adds the bound in MATLAB's words ("Index in position 2 exceeds array
 * bounds. Index must not exceed 3.") and the subscript's value ("..., i = 4)").
 * After the message's NUL, a record for the runtime (m2cu_runtime::CallError), where it fits:
 * "\x1eSTATUS\x1eDETAILED\x1eORDERED\x1eVALUE\x1eBOUND\x1eSITE TEXT" (DETAILED: the value and
 * bound are known; ORDERED: the value is MATLAB's first failing one), which C strings, and so
 * the MEX gateway, never see. */
static void m2cu_message(int status, const char *(*site_text)(int), char *msg, size_t len)
{{
    const char *text = "Unknown error.";
    int code = status % 256, site = status / 256;
    const char *where = site > 0 && site_text != NULL ? site_text(site) : NULL;
    if (code == M2CU_E_USER) return; /* m2cu_raise wrote the message */
    switch (code) {{
{cases}    default: break;
    }}
    if (msg == NULL || len == 0) return;
    int quote_len, place_len, position_len, subscript_len;
    const char *quote = m2cu_site_field(where, 0, &quote_len);
    const char *place = m2cu_site_field(where, 1, &place_len);
    int position = atoi(m2cu_site_field(where, 2, &position_len));
    const char *subscript = m2cu_site_field(where, 3, &subscript_len);
    /* A subscript's site has a position (those of m2cu's bundled functions name the user's
     * call instead, without the subscript's detail). */
    int detailed = m2cu_detail.status == status && !m2cu_detail.shared && position_len > 0 && (code == M2CU_E_INDEX_RANGE || code == M2CU_E_INDEX_INVALID || code == M2CU_E_GROW);
    /* The value only where the checks ran in order; a literal subscript (`y(1)`) says its
     * value already. */
    int valued = detailed && m2cu_detail.ordered;
    char bound[256] = "", value[160] = "", number[48] = ""; /* sized for the precisions below: never cut */
    /* A subscript of several: MATLAB's words name its position, with or without the bound. */
    if (code == M2CU_E_INDEX_RANGE && position > 0)
        snprintf(bound, sizeof bound, "Index in position %d exceeds array bounds.", position);
    if (detailed) {{
        m2cu_index_value(number, sizeof number, m2cu_detail.value);
        if (!valued || strcmp(subscript, number) == 0) value[0] = '\0';
        else if (subscript_len > 0) snprintf(value, sizeof value, ", %.100s = %s", subscript, number);
        else snprintf(value, sizeof value, ", index %s", number);
        if (code == M2CU_E_INDEX_RANGE && position > 0)
            snprintf(bound, sizeof bound, "Index in position %d exceeds array bounds. Index must not exceed %lld.", position, (long long)m2cu_detail.bound);
        else if (code == M2CU_E_INDEX_RANGE)
            snprintf(bound, sizeof bound, "%.200s Index must not exceed %lld.", text, (long long)m2cu_detail.bound);
        else if (code == M2CU_E_GROW)
            snprintf(bound, sizeof bound, " Index must not exceed %lld.", (long long)m2cu_detail.bound);
    }}
    const char *head = code == M2CU_E_INDEX_RANGE && (detailed || position > 0) ? bound : text;
    const char *tail = code == M2CU_E_GROW && detailed ? bound : "";
    if (where == NULL) snprintf(msg, len, "%s%s", head, tail);
    else if (quote_len > 0) snprintf(msg, len, "%s%s (`%.*s` at %.*s%s)", head, tail, quote_len, quote, place_len, place, value);
    else snprintf(msg, len, "%s%s (at %.*s%s)", head, tail, place_len, place, value);
    size_t used = strlen(msg) + 1;
    if (used < len)
        snprintf(msg + used, len - used, "\x1e%d\x1e%d\x1e%d\x1e%.17g\x1e%lld\x1e%s", status, detailed, valued, detailed ? m2cu_detail.value : 0.0, detailed ? (long long)m2cu_detail.bound : 0LL, where != NULL ? where : "");
}}

/* An M2CU_UNDEFINED(k) status becomes Octave 7.3's error naming names[k], `'x' undefined`
 * (without Octave's "near line L, column C"), raised as the program's own (M2CU_E_USER). */
static void m2cu_name_undefined(int *status, const char *const *names, char *msg, size_t len)
{{
    if (*status % 256 != M2CU_E_UNDEFINED_NAMED) return;
    if (msg != NULL && len > 0) snprintf(msg, len, "Octave:undefined-function\x1f'%s' undefined", names[*status / 256]);
    *status = M2CU_E_USER;
}}

/* The text of one fprintf, disp, warning or error, built piece by piece in a buffer that grows
 * (`M2CU_TEXT_INIT`; the statement frees it), so a long line is printed whole. */
typedef struct {{ char *s; size_t n, cap; }} m2cu_text;
#define M2CU_TEXT_INIT {{NULL, 0, 0}}

/* Room for `extra` more bytes and a NUL; 0 when memory runs out (the text then stops growing). */
static int m2cu_text_room(m2cu_text *t, size_t extra)
{{
    if (t->n + extra + 1 <= t->cap) return 1;
    size_t cap = t->cap * 2 > t->n + extra + 1 ? t->cap * 2 : t->n + extra + 1;
    if (cap < 256) cap = 256;
    char *grown = (char *)realloc(t->s, cap);
    if (grown == NULL) return 0;
    t->s = grown;
    t->cap = cap;
    return 1;
}}

/* `n` bytes (NULs included), or `n` spaces when `bytes` is NULL. */
static void m2cu_put_bytes(m2cu_text *t, const char *bytes, size_t n)
{{
    if (!m2cu_text_room(t, n)) return;
    for (size_t k = 0; k < n; k++) t->s[t->n++] = bytes != NULL ? bytes[k] : ' ';
    t->s[t->n] = 0;
}}

static void m2cu_put(m2cu_text *t, const char *piece)
{{
    m2cu_put_bytes(t, piece, strlen(piece));
}}

/* One conversion of a format, whatever its width and precision. */
static void m2cu_putf(m2cu_text *t, const char *format, ...)
{{
    va_list args;
    va_start(args, format);
    int len = vsnprintf(NULL, 0, format, args);
    va_end(args);
    if (len <= 0 || !m2cu_text_room(t, (size_t)len)) return;
    va_start(args, format);
    vsnprintf(t->s + t->n, (size_t)len + 1, format, args);
    va_end(args);
    t->n += (size_t)len;
}}

/* An integer-class or logical scalar as disp shows it. */
static void m2cu_put_int(m2cu_text *t, long long v)
{{
    char piece[32];
    snprintf(piece, sizeof piece, "%lld", v);
    m2cu_put(t, piece);
}}

static void m2cu_put_uint(m2cu_text *t, unsigned long long v)
{{
    char piece[32];
    snprintf(piece, sizeof piece, "%llu", v);
    m2cu_put(t, piece);
}}

/* A double or single scalar as disp shows it (Octave's `format short`): integers of up to 7
 * digits whole, other values with 5 significant digits in at most 9 columns, else `%.4e`. */
static void m2cu_put_display(m2cu_text *t, double v)
{{
    char piece[64];
    double a = fabs(v);
    int digits = a > 0.0 ? (int)floor(log10(a)) + 1 : 1;
    int rd = digits > 0 ? (5 > digits ? 5 - digits : 5) : (digits < 0 ? 5 - digits : 4);
    int ld = digits > 0 ? digits : 1;
    if (isnan(v)) snprintf(piece, sizeof piece, "NaN");
    else if (isinf(v)) snprintf(piece, sizeof piece, v > 0 ? "Inf" : "-Inf");
    else if (v == floor(v) && digits <= 7) snprintf(piece, sizeof piece, "%.0f", v == 0.0 ? 0.0 : v);
    else if (v == floor(v) || 2 + ld + rd > 9) snprintf(piece, sizeof piece, "%.4e", v);
    else snprintf(piece, sizeof piece, "%.*f", rd, v);
    m2cu_put(t, piece);
}}

#ifdef M2CU_MEX
/* Built into a MEX function (the gateway `<name>_mex.c`): text goes to the command window of
 * GNU Octave or MATLAB, whose own output streams the process's stdout and stderr are not. */
#include "mex.h"

static void m2cu_say(const m2cu_text *t)
{{
    if (t->n > 0) mexPrintf("%.*s", (int)t->n, t->s);
}}

static void m2cu_warn(const m2cu_text *t)
{{
    mexWarnMsgTxt(t->s != NULL ? t->s : "");
}}
#else
/* fprintf and disp: the text on standard output, flushed so that it interleaves with the
 * caller's output in program order. */
static void m2cu_say(const m2cu_text *t)
{{
    if (t->n > 0) fwrite(t->s, 1, t->n, stdout);
    fflush(stdout);
}}

/* warning: the text on standard error as Octave prints it; the program goes on. */
static void m2cu_warn(const m2cu_text *t)
{{
    fflush(stdout);
    fprintf(stderr, "warning: %s\n", t->s != NULL ? t->s : "");
    fflush(stderr);
}}
#endif

/* error: the message for the runtime, as `<identifier>\x1f<message>` (M2CU_E_USER). */
static void m2cu_raise(const m2cu_text *t, const char *id, char *msg, size_t len)
{{
    if (msg != NULL && len > 0) snprintf(msg, len, "%s\x1f%s", id, t->s != NULL ? t->s : "");
}}

/* The UTF-8 bytes of one UTF-16 code unit (a lone surrogate as its 3-byte form); their count. */
static int m2cu_utf8(unsigned c, char *buf)
{{
    if (c < 0x80) {{ buf[0] = (char)c; return 1; }}
    if (c < 0x800) {{ buf[0] = (char)(0xC0 | (c >> 6)); buf[1] = (char)(0x80 | (c & 0x3F)); return 2; }}
    buf[0] = (char)(0xE0 | (c >> 12)); buf[1] = (char)(0x80 | ((c >> 6) & 0x3F)); buf[2] = (char)(0x80 | (c & 0x3F));
    return 3;
}}

/* fprintf `%c`/`%s` of one char code unit, as UTF-8 in the field `word` (a NUL is one byte). */
static void m2cu_put_char(m2cu_text *t, double code, const char *word)
{{
    unsigned c = (unsigned)code;
    char buf[4] = {{0, 0, 0, 0}};
    if (c == 0) {{ m2cu_put_bytes(t, buf, 1); return; }}
    m2cu_utf8(c, buf);
    m2cu_putf(t, word, buf);
}}

/* num2str of a double scalar as Octave 7.3 writes it, in the field `word`: an integer value with
 * up to 16 significant digits, another with max(floor(log10|v|) + 5, 5) of them (at most 16). */
static void m2cu_put_num2str(m2cu_text *t, double v, const char *word)
{{
    char text[64];
    int digits = 16;
    if (isnan(v)) snprintf(text, sizeof text, "NaN");
    else if (isinf(v)) snprintf(text, sizeof text, v > 0 ? "Inf" : "-Inf");
    else {{
        if (v != floor(v)) digits = (int)floor(log10(fabs(v))) + 5;
        digits = digits < 5 ? 5 : (digits > 16 ? 16 : digits);
        snprintf(text, sizeof text, "%.*g", digits, v);
    }}
    m2cu_putf(t, word, text);
}}

/* num2str of a real double array of `rows` by `cols` (column-major) as Octave 7.3 lays out
 * its columns, in the field `word`: one format for every element, from d = floor(log10) of the
 * largest finite magnitude (0 when there is none or it is 0): "%(d+3).0f" (at least 5 wide
 * when an element is not finite) when every finite element is whole and d <= 15, else
 * "%(p+7).(p)g" with p = d + 5 between 5 and 16; NaN and Inf as Octave writes them,
 * right-aligned; each row on a line of its own (a char matrix: `disp(num2str(A))`), the blank
 * columns common to every row trimmed, as Octave's strtrim of a char matrix does. A `given`
 * precision p >= 0 (`num2str(x, p)`) makes the format "%(p+7).(p)g" for every row. */
static void m2cu_put_num2str_rows(m2cu_text *t, const double *x, int64_t rows, int64_t cols, long long given, const char *word)
{{
    double largest = 0;
    int whole = 1, finite = 1, digits = 0, width, precision;
    int64_t n = rows * cols;
    m2cu_text all = M2CU_TEXT_INIT, out = M2CU_TEXT_INIT;
    size_t len = 0, lead = (size_t)-1, trail = (size_t)-1;
    for (int64_t k = 0; k < n; k++) {{
        if (!isfinite(x[k])) {{ finite = 0; continue; }}
        if (fabs(x[k]) > largest) largest = fabs(x[k]);
        if (x[k] != trunc(x[k])) whole = 0;
    }}
    if (largest > 0) digits = (int)floor(log10(largest));
    if (given >= 0) {{
        precision = (int)given;
        width = precision + 7;
    }} else if (digits > 15 || !whole) {{
        precision = digits + 5 < 5 ? 5 : (digits + 5 > 16 ? 16 : digits + 5);
        width = precision + 7;
    }} else {{
        precision = -1;
        width = digits + 3;
        if (!finite && width < 5) width = 5;
    }}
    for (int64_t i = 0; i < rows; i++) {{
        size_t start = all.n, b = 0, e = 0;
        for (int64_t k = 0; k < cols; k++) {{
            double v = x[i + k * rows];
            if (isnan(v)) m2cu_putf(&all, "%*s", width, "NaN");
            else if (isinf(v)) m2cu_putf(&all, "%*s", width, v > 0 ? "Inf" : "-Inf");
            else if (precision < 0) m2cu_putf(&all, "%*.0f", width, v);
            else m2cu_putf(&all, "%*.*g", width, precision, v);
        }}
        len = all.n - start;
        while (b < len && all.s[start + b] == ' ') b++;
        while (e < len - b && all.s[start + len - 1 - e] == ' ') e++;
        if (b < lead) lead = b;
        if (e < trail) trail = e;
    }}
    for (int64_t i = 0; i < rows && len > lead + trail; i++) {{
        if (i > 0) m2cu_put_bytes(&out, "\n", 1);
        m2cu_put_bytes(&out, all.s + (size_t)i * len + lead, len - lead - trail);
    }}
    m2cu_putf(t, word, out.s != NULL ? out.s : "");
    free(all.s);
    free(out.s);
}}

/* `%s` of a char array (fprintf, messages) and disp of a char row: its `n` code units as UTF-8,
 * cut to `precision` bytes (when >= 0; Octave's chars are bytes), padded with spaces to `width`
 * (after the text when `left`). */
static void m2cu_put_units(m2cu_text *t, const uint16_t *units, int64_t n, size_t width, int left, long long precision)
{{
    char *bytes = (char *)malloc((size_t)(n > 0 ? n : 0) * 3 + 4);
    size_t len = 0;
    if (bytes == NULL) return;
    for (int64_t k = 0; k < n; k++) len += (size_t)m2cu_utf8(units[k], bytes + len);
    if (precision >= 0 && (size_t)precision < len) len = (size_t)precision;
    if (!left && width > len) m2cu_put_bytes(t, NULL, width - len);
    m2cu_put_bytes(t, bytes, len);
    if (left && width > len) m2cu_put_bytes(t, NULL, width - len);
    free(bytes);
}}

{format_c}
{display_c}
/* A kept sprintf: the text `t` (UTF-8) appended to the char row `*row` of `*d0`-by-`*d1` code
 * units (1-by-n, or 0-by-0), as UTF-16 code units: each character of the text is one unit, a
 * character above U+FFFF two (a surrogate pair), and a byte that does not start a well-formed
 * sequence one unit of its own value. The buffer grows to a power of two, as a resize's does.
 * 0 when memory runs out (the row is then as it was). */
static int m2cu_append_text(uint16_t **row, int64_t *d0, int64_t *d1, const m2cu_text *t)
{{
    int64_t old = *d0 > 0 && *d1 > 0 ? *d0 * *d1 : 0;
    size_t cap = 1;
    while (cap < (size_t)old + t->n) cap *= 2;
    uint16_t *grown = (uint16_t *)realloc(*row, cap * sizeof(uint16_t));
    if (grown == NULL) return 0;
    int64_t n = old;
    const unsigned char *b = (const unsigned char *)t->s;
    for (size_t k = 0; k < t->n;) {{
        unsigned c = b[k];
        size_t len = c >= 0xF0 && c < 0xF5 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 1;
        if (c >= 0xF5) len = 1;
        unsigned code = len == 1 ? c : len == 2 ? c & 0x1F : len == 3 ? c & 0x0F : c & 0x07;
        for (size_t j = 1; j < len; j++) {{
            if (k + j >= t->n || (b[k + j] & 0xC0) != 0x80) {{ len = 1; code = c; break; }}
            code = code << 6 | (b[k + j] & 0x3F);
        }}
        if (code > 0xFFFF) {{
            grown[n++] = (uint16_t)(0xD800 + ((code - 0x10000) >> 10));
            grown[n++] = (uint16_t)(0xDC00 + ((code - 0x10000) & 0x3FF));
        }} else {{
            grown[n++] = (uint16_t)code;
        }}
        k += len;
    }}
    *row = grown;
    *d0 = 1;
    *d1 = n;
    return 1;
}}

void m2cu_release(void *data)
{{
    free(data);
}}
"#
    )
}
