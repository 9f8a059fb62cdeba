//! Complex double scalars in C and CUDA (`m2frontend::lower::complex` says what lowers to
//! them): the prelude's `m2cu_cdouble` struct and its operations, and the expression writer's
//! part for complex values.
//!
//! Invariants:
//! - a complex expression is written as an `m2cu_cdouble` value; a real expression with a
//!   complex operand (`abs`, `real`, `imag`, `angle`, `==`, `~=`) as its real result;
//! - Octave narrows every complex result whose imaginary part is zero to a real value (an
//!   `octave_value` made of a `Complex` calls `maybe_mutate`), and a later operation with it
//!   works part by part as with any real operand (`(1+2i)*(1-2i)*Inf` is `Inf`, not
//!   `Inf - NaNi`). The prelude does the same at run time: a result's zero imaginary part is
//!   `+0`, and an operation treats an operand as real when its imaginary part is `+0` and it
//!   is not *fresh*. Only `complex(a, b)` makes a value Octave keeps complex with a zero
//!   imaginary part; an operand is fresh when it is such a call or a variable assigned only
//!   such values ([`ExprWriter::fresh`], a `bool` argument of the prelude's functions). A
//!   `-0` imaginary part never comes from narrowing, so such a value is complex either way;
//! - on the host (C and the emulator's C++) the products, quotients, `exp` and `sqrt` of two
//!   complex values are GCC's complex arithmetic (`__muldc3`, `__divdc3`, `cexp`, `csqrt`),
//!   which Octave's `std::complex<double>` uses too; NVRTC has no such library, so the device
//!   code has libgcc's `__muldc3` and `__divdc3` and glibc's `cexp` written out (Inf and NaN
//!   as on the host; `exp`, `sin` and `cos` are the GPU's own, like other GPU math not
//!   bit-exact), and `sqrt` and `log` with the textbook formulas.

use m2cu_frontend::ir::{BinOp, Builtin, ExprId, ExprKind, UnOp};
use m2cu_frontend::types::Type;

use super::ExprWriter;

/// The C type of a complex double.
pub const COMPLEX_DOUBLE: &str = "m2cu_cdouble";

/// The C type that holds a value of type `ty`.
pub fn c_type(ty: Type) -> &'static str {
    if ty.complex {
        COMPLEX_DOUBLE
    } else {
        ty.class.c_type()
    }
}

/// An element `value` of a fill (`ones`, `rand`) as an element of an array of type `ty`.
pub fn fill_element(ty: Type, value: String) -> String {
    if ty.complex {
        format!("m2cu_cd({value}, 0.0)")
    } else {
        value
    }
}

/// The initializer of a variable of type `ty` before its first assignment.
pub fn zero(ty: Type) -> &'static str {
    if ty.complex {
        "{0.0, 0.0}"
    } else {
        "0"
    }
}

/// The prelude's complex part (after `PLATFORM`, which defines `M2CU_FN`).
pub const PRELUDE: &str = r#"
/* ---- complex double (Octave's narrowing: an imaginary part of zero makes a real value) ---- */
typedef struct { double re, im; } m2cu_cdouble;
M2CU_FN m2cu_cdouble m2cu_cd(double re, double im) { m2cu_cdouble z; z.re = re; z.im = im; return z; }
M2CU_FN m2cu_cdouble m2cu_cnarrow(double re, double im) { return m2cu_cd(re, im == 0.0 ? 0.0 : im); }
/* An element read z(k) of a complex array: Octave narrows the complex scalar it makes. */
M2CU_FN m2cu_cdouble m2cu_cread(m2cu_cdouble a) { return m2cu_cnarrow(a.re, a.im); }
#if defined(__CUDACC__)
#define M2CU_DBL_MAX 1.7976931348623157e308
#define M2CU_DBL_MIN 2.2250738585072014e-308
#define M2CU_DBL_EPSILON 2.220446049250313e-16
/* The device has no libgcc: libgcc's __muldc3 and __divdc3 (GCC 12, which the host's complex
   arithmetic and Octave's std::complex call) and glibc's cexp, written out step by step so
   that Inf and NaN come out as on the host (checked bit for bit against them on the CPU over
   every pair of special values and 3 million random ones). */
/* __muldc3's recovery of an infinite factor (p, q): its parts become their directions (+-1,
   or +-0 for a finite part), and NaN parts of the other factor (r, s) signed zeros. */
M2CU_FN bool m2cu_cbox(double *p, double *q, double *r, double *s)
{
    if (!(isinf(*p) || isinf(*q))) return false;
    *p = copysign(isinf(*p) ? 1.0 : 0.0, *p);
    *q = copysign(isinf(*q) ? 1.0 : 0.0, *q);
    if (isnan(*r)) *r = copysign(0.0, *r);
    if (isnan(*s)) *s = copysign(0.0, *s);
    return true;
}
M2CU_FN m2cu_cdouble m2cu_cmul_full(m2cu_cdouble p, m2cu_cdouble q)
{
    double a = p.re, b = p.im, c = q.re, d = q.im;
    double ac = a * c, bd = b * d, ad = a * d, bc = b * c;
    double x = ac - bd, y = ad + bc;
    if (isnan(x) && isnan(y)) {
        bool recalc = m2cu_cbox(&a, &b, &c, &d);
        recalc = m2cu_cbox(&c, &d, &a, &b) || recalc;
        if (!recalc && (isinf(ac) || isinf(bd) || isinf(ad) || isinf(bc))) {
            if (isnan(a)) a = copysign(0.0, a);
            if (isnan(b)) b = copysign(0.0, b);
            if (isnan(c)) c = copysign(0.0, c);
            if (isnan(d)) d = copysign(0.0, d);
            recalc = true;
        }
        if (recalc) {
            x = M2CU_INF * (a * c - b * d);
            y = M2CU_INF * (a * d + b * c);
        }
    }
    return m2cu_cd(x, y);
}
/* __divdc3 scales by the larger part of the divisor (Smith's method with underflow and
   overflow guards), then recovers the infinities and zeros that came out NaN + NaNi. */
M2CU_FN void m2cu_cdiv_scale(double *a, double *b, double *c, double *d, double big)
{
    const double rbig = M2CU_DBL_MAX / 2, rmin = M2CU_DBL_MIN, rmin2 = M2CU_DBL_EPSILON;
    const double rminscal = 1 / M2CU_DBL_EPSILON, rmax2 = rbig * rmin2;
    if (fabs(big) >= rbig) { *a /= 2; *b /= 2; *c /= 2; *d /= 2; big /= 2; }
    if (fabs(big) < rmin2
        || (fabs(*a) < rmin && fabs(*b) < rmax2 && fabs(big) < rmax2)
        || (fabs(*b) < rmin && fabs(*a) < rmax2 && fabs(big) < rmax2)) {
        *a *= rminscal; *b *= rminscal; *c *= rminscal; *d *= rminscal;
    }
}
M2CU_FN m2cu_cdouble m2cu_cdiv_full(m2cu_cdouble p, m2cu_cdouble q)
{
    double a = p.re, b = p.im, c = q.re, d = q.im, ratio, denom, x, y;
    if (fabs(c) < fabs(d)) {
        m2cu_cdiv_scale(&a, &b, &c, &d, d);
        ratio = c / d;
        denom = (c * ratio) + d;
        if (fabs(ratio) > M2CU_DBL_MIN) { x = ((a * ratio) + b) / denom; y = ((b * ratio) - a) / denom; }
        else { x = ((c * (a / d)) + b) / denom; y = ((c * (b / d)) - a) / denom; }
    } else {
        m2cu_cdiv_scale(&a, &b, &c, &d, c);
        ratio = d / c;
        denom = (d * ratio) + c;
        if (fabs(ratio) > M2CU_DBL_MIN) { x = ((b * ratio) + a) / denom; y = (b - (a * ratio)) / denom; }
        else { x = (a + (d * (b / c))) / denom; y = (b - (d * (a / c))) / denom; }
    }
    if (isnan(x) && isnan(y)) {
        if (c == 0.0 && d == 0.0 && (!isnan(a) || !isnan(b))) {
            x = copysign(M2CU_INF, c) * a;
            y = copysign(M2CU_INF, c) * b;
        } else if ((isinf(a) || isinf(b)) && isfinite(c) && isfinite(d)) {
            a = copysign(isinf(a) ? 1.0 : 0.0, a);
            b = copysign(isinf(b) ? 1.0 : 0.0, b);
            x = M2CU_INF * (a * c + b * d);
            y = M2CU_INF * (b * c - a * d);
        } else if ((isinf(c) || isinf(d)) && isfinite(a) && isfinite(b)) {
            c = copysign(isinf(c) ? 1.0 : 0.0, c);
            d = copysign(isinf(d) ? 1.0 : 0.0, d);
            x = 0.0 * (a * c + b * d);
            y = 0.0 * (b * c - a * d);
        }
    }
    return m2cu_cd(x, y);
}
/* glibc's cexp: C99's special values, and a real part past 709 scaled so that a tiny
   imaginary part still gives a finite product. */
M2CU_FN m2cu_cdouble m2cu_cexp_full(m2cu_cdouble a)
{
    double x = a.re, y = a.im, s, c;
    if (!isfinite(y)) {
        if (isinf(x)) return x < 0.0 ? m2cu_cd(0.0, copysign(0.0, y)) : m2cu_cd(x, y - y);
        return m2cu_cd(M2CU_NAN, M2CU_NAN);
    }
    if (isnan(x)) return m2cu_cd(x, y == 0.0 ? y : M2CU_NAN);
    if (fabs(y) > M2CU_DBL_MIN) { s = sin(y); c = cos(y); } else { s = y; c = 1.0; }
    if (isinf(x)) {
        double v = x < 0.0 ? 0.0 : x;
        if (y == 0.0) return m2cu_cd(v, y);
        return m2cu_cd(copysign(v, c), copysign(v, s));
    }
    if (x > 709.0) {
        double et = exp(709.0);
        x -= 709.0; s *= et; c *= et;
        if (x > 709.0) { x -= 709.0; s *= et; c *= et; }
    }
    if (x > 709.0) return m2cu_cd(M2CU_DBL_MAX * c, M2CU_DBL_MAX * s);
    double e = exp(x);
    return m2cu_cd(e * c, e * s);
}
M2CU_FN m2cu_cdouble m2cu_clog_full(m2cu_cdouble a) { return m2cu_cd(log(hypot(a.re, a.im)), atan2(a.im, a.re)); }
M2CU_FN m2cu_cdouble m2cu_csqrt_full(m2cu_cdouble a)
{
    double r = hypot(a.re, a.im);
    if (r == 0.0) return m2cu_cd(0.0, a.im);
    double t = sqrt((r + fabs(a.re)) / 2.0);
    if (a.re >= 0.0) return m2cu_cd(t, a.im / (2.0 * t));
    return m2cu_cd(fabs(a.im) / (2.0 * t), copysign(t, a.im));
}
#else
static inline __complex__ double m2cu_gnu(m2cu_cdouble a)
{
    __complex__ double z;
    __real__ z = a.re;
    __imag__ z = a.im;
    return z;
}
static inline m2cu_cdouble m2cu_of_gnu(__complex__ double z) { return m2cu_cd(__real__ z, __imag__ z); }
M2CU_FN m2cu_cdouble m2cu_cmul_full(m2cu_cdouble a, m2cu_cdouble b) { return m2cu_of_gnu(m2cu_gnu(a) * m2cu_gnu(b)); }
M2CU_FN m2cu_cdouble m2cu_cdiv_full(m2cu_cdouble a, m2cu_cdouble b) { return m2cu_of_gnu(m2cu_gnu(a) / m2cu_gnu(b)); }
M2CU_FN m2cu_cdouble m2cu_cexp_full(m2cu_cdouble a) { return m2cu_of_gnu(__builtin_cexp(m2cu_gnu(a))); }
M2CU_FN m2cu_cdouble m2cu_csqrt_full(m2cu_cdouble a) { return m2cu_of_gnu(__builtin_csqrt(m2cu_gnu(a))); }
M2CU_FN m2cu_cdouble m2cu_clog_full(m2cu_cdouble a) { return m2cu_of_gnu(__builtin_clog(m2cu_gnu(a))); }
#endif
/* libstdc++'s pow(complex, int), which Octave calls for an integer exponent: squarings. */
M2CU_FN m2cu_cdouble m2cu_cpow_unsigned(m2cu_cdouble x, unsigned n)
{
    m2cu_cdouble y = n % 2 ? x : m2cu_cd(1.0, 0.0);
    while (n >>= 1) {
        x = m2cu_cmul_full(x, x);
        if (n % 2) y = m2cu_cmul_full(y, x);
    }
    return y;
}
/* Octave's xpow(Complex, double): pow(a, int) for an integer exponent of int's range, else
   libstdc++'s pow(complex, double), polar(exp(b * log|a|), b * arg a); a real base (an
   imaginary part of zero) is Octave's real power unless it is negative and b is not an
   integer. */
M2CU_FN bool m2cu_creal(m2cu_cdouble a, bool fresh) { return !fresh && a.im == 0.0 && !signbit(a.im); }
M2CU_FN m2cu_cdouble m2cu_cpow(m2cu_cdouble a, bool fa, double b)
{
    bool integer = floor(b) == b && b < 2147483647.0 && b > -2147483648.0;
    if (m2cu_creal(a, fa) && !(a.re < 0.0 && !integer)) return m2cu_cd(pow(a.re, b), 0.0);
    m2cu_cdouble z;
    if (integer) {
        int n = (int)b;
        z = n < 0 ? m2cu_cdiv_full(m2cu_cd(1.0, 0.0), m2cu_cpow_unsigned(a, -(unsigned)n))
                  : m2cu_cpow_unsigned(a, (unsigned)n);
    } else if (a.im == 0.0 && a.re > 0.0) {
        z = m2cu_cd(pow(a.re, b), 0.0);
    } else {
        m2cu_cdouble t = m2cu_clog_full(a);
        double rho = exp(b * t.re), theta = b * t.im;
        z = m2cu_cd(rho * cos(theta), rho * sin(theta));
    }
    return m2cu_cnarrow(z.re, z.im);
}
M2CU_FN m2cu_cdouble m2cu_cadd(m2cu_cdouble a, bool fa, m2cu_cdouble b, bool fb)
{
    bool ra = m2cu_creal(a, fa), rb = m2cu_creal(b, fb);
    return m2cu_cnarrow(a.re + b.re, ra ? (rb ? 0.0 : b.im) : rb ? a.im : a.im + b.im);
}
M2CU_FN m2cu_cdouble m2cu_csub(m2cu_cdouble a, bool fa, m2cu_cdouble b, bool fb)
{
    bool ra = m2cu_creal(a, fa), rb = m2cu_creal(b, fb);
    return m2cu_cnarrow(a.re - b.re, ra ? (rb ? 0.0 : -b.im) : rb ? a.im : a.im - b.im);
}
M2CU_FN m2cu_cdouble m2cu_cmul(m2cu_cdouble a, bool fa, m2cu_cdouble b, bool fb)
{
    bool ra = m2cu_creal(a, fa), rb = m2cu_creal(b, fb);
    if (ra) return m2cu_cnarrow(a.re * b.re, rb ? 0.0 : a.re * b.im);
    if (rb) return m2cu_cnarrow(a.re * b.re, a.im * b.re);
    m2cu_cdouble z = m2cu_cmul_full(a, b);
    return m2cu_cnarrow(z.re, z.im);
}
M2CU_FN m2cu_cdouble m2cu_cdiv(m2cu_cdouble a, bool fa, m2cu_cdouble b, bool fb)
{
    bool ra = m2cu_creal(a, fa);
    if (m2cu_creal(b, fb)) return m2cu_cnarrow(a.re / b.re, ra ? 0.0 : a.im / b.re);
    m2cu_cdouble z = m2cu_cdiv_full(m2cu_cd(a.re, ra ? 0.0 : a.im), b);
    return m2cu_cnarrow(z.re, z.im);
}
M2CU_FN m2cu_cdouble m2cu_cneg(m2cu_cdouble a) { return m2cu_cnarrow(-a.re, -a.im); }
M2CU_FN m2cu_cdouble m2cu_cconj(m2cu_cdouble a) { return m2cu_cnarrow(a.re, -a.im); }
M2CU_FN m2cu_cdouble m2cu_cexp(m2cu_cdouble a)
{
    if (a.im == 0.0) return m2cu_cd(exp(a.re), 0.0);
    m2cu_cdouble z = m2cu_cexp_full(a);
    return m2cu_cnarrow(z.re, z.im);
}
M2CU_FN m2cu_cdouble m2cu_csqrt(m2cu_cdouble a, bool fa)
{
    if (m2cu_creal(a, fa)) return a.re < 0.0 ? m2cu_cd(0.0, sqrt(-a.re)) : m2cu_cd(sqrt(a.re), 0.0);
    m2cu_cdouble z = m2cu_csqrt_full(a);
    return m2cu_cnarrow(z.re, z.im);
}
M2CU_FN double m2cu_cabs(m2cu_cdouble a) { return hypot(a.re, a.im); }
/* std::arg of a real value is pi when its sign bit is set, else 0 (NaN included). */
M2CU_FN double m2cu_cangle(m2cu_cdouble a, bool fa)
{
    if (m2cu_creal(a, fa)) return signbit(a.re) ? 3.141592653589793 : 0.0;
    return atan2(a.im, a.re);
}
M2CU_FN bool m2cu_ceq(m2cu_cdouble a, m2cu_cdouble b) { return a.re == b.re && a.im == b.im; }
"#;

impl ExprWriter<'_> {
    fn is_complex(&self, e: ExprId) -> bool {
        self.f.exprs[e].ty.complex
    }

    /// `e` as an `m2cu_cdouble`: itself, or a real value with a zero imaginary part.
    fn as_complex(&self, e: ExprId) -> String {
        if self.is_complex(e) {
            self.expr(e)
        } else {
            format!("m2cu_cd({}, 0.0)", self.double(e))
        }
    }

    /// `e` as an `m2cu_cdouble` operand, followed by whether it is fresh (see [`Self::fresh`]):
    /// a constant, or the run-time flag of `complex(a, b, held)`.
    fn operand(&self, e: ExprId) -> String {
        match &self.f.exprs[e].kind {
            ExprKind::Call(Builtin::Complex, args) if args.len() == 3 => {
                format!("{}, {}", self.as_complex(e), self.cond(args[2]))
            }
            _ => format!("{}, {}", self.as_complex(e), self.fresh(e)),
        }
    }

    /// Whether `e` is a value of `complex(a, b)` or an input, directly or through variables
    /// assigned only such values: Octave keeps it complex even with a zero imaginary part, where
    /// any other value with one is real (the module docs, `lower::complex_io::fresh`).
    fn fresh(&self, e: ExprId) -> bool {
        m2cu_frontend::lower::complex_io::fresh(self.f, e)
    }

    /// The value of the complex expression `e`.
    pub(crate) fn complex_value(&self, e: ExprId) -> String {
        match &self.f.exprs[e].kind {
            ExprKind::Local(l) => self.names.get(*l).to_string(),
            ExprKind::Call(Builtin::Complex, args) => {
                format!(
                    "m2cu_cd({}, {})",
                    self.double(args[0]),
                    self.double(args[1])
                )
            }
            ExprKind::Convert(a) => format!("m2cu_cd({}, 0.0)", self.double(*a)),
            ExprKind::Index(array, indices) => format!(
                "m2cu_cread({}[{}])",
                self.names.get(*array),
                self.offset(*array, indices)
            ),
            ExprKind::Call(Builtin::Conj, args) => {
                format!("m2cu_cconj({})", self.as_complex(args[0]))
            }
            ExprKind::Call(Builtin::Exp, args) => {
                format!("m2cu_cexp({})", self.as_complex(args[0]))
            }
            ExprKind::Call(Builtin::Sqrt, args) => format!("m2cu_csqrt({})", self.operand(args[0])),
            ExprKind::Unary(UnOp::Neg, a) => format!("m2cu_cneg({})", self.as_complex(*a)),
            ExprKind::Binary(BinOp::Pow, a, b) => {
                format!("m2cu_cpow({}, {})", self.operand(*a), self.double(*b))
            }
            ExprKind::Binary(op, a, b) => {
                let func = match op {
                    BinOp::Add => "m2cu_cadd",
                    BinOp::Sub => "m2cu_csub",
                    BinOp::Mul => "m2cu_cmul",
                    BinOp::Div => "m2cu_cdiv",
                    _ => unreachable!("lower::complex::check_uses allows no other"),
                };
                format!("{func}({}, {})", self.operand(*a), self.operand(*b))
            }
            _ => unreachable!("lower::complex::check_uses allows no other complex expression"),
        }
    }

    /// `a == b` or `a ~= b` with a complex operand; `None` for other operands.
    pub(crate) fn complex_comparison(&self, op: BinOp, a: ExprId, b: ExprId) -> Option<String> {
        if !self.is_complex(a) && !self.is_complex(b) {
            return None;
        }
        let eq = format!("m2cu_ceq({}, {})", self.as_complex(a), self.as_complex(b));
        Some(match op {
            BinOp::Ne => format!("(!{eq})"),
            _ => eq,
        })
    }

    /// `abs`, `angle`, `imag` (`real`) of a complex argument, or `imag` and `angle` of a real
    /// one; `None` for other calls.
    pub(crate) fn complex_part(&self, builtin: Builtin, args: &[ExprId]) -> Option<String> {
        let [arg] = args else { return None };
        if !self.is_complex(*arg) {
            let class = self.f.exprs[*arg].ty.class;
            return match builtin {
                Builtin::Imag => Some(format!(
                    "((void)({}), {})",
                    self.expr(*arg),
                    super::literal(0.0, class)
                )),
                Builtin::Angle => Some(format!(
                    "m2cu_cangle(m2cu_cd({}, 0.0), false)",
                    self.double(*arg)
                )),
                Builtin::Real | Builtin::Conj => Some(self.expr(*arg)),
                _ => None,
            };
        }
        let z = self.expr(*arg);
        Some(match builtin {
            Builtin::Abs => format!("m2cu_cabs({z})"),
            Builtin::Angle => format!("m2cu_cangle({z}, {})", self.fresh(*arg)),
            Builtin::Real => format!("({z}).re"),
            Builtin::Imag => format!("({z}).im"),
            _ => unreachable!("lower::complex::check_uses allows no other real part"),
        })
    }
}
