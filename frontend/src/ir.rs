//! The typed IR of one MATLAB function.
//!
//! Locals, expressions and statements live in arenas owned by [`Function`] and are referred to
//! by typed handles ([`LocalId`], [`ExprId`], [`StmtId`]). Every expression carries its inferred
//! [`Type`]. Analysis results are kept elsewhere, in side tables keyed by these handles.
//!
//! Invariants (checked once by `crate::validate`):
//! - every handle points into the function's own arenas;
//! - a local has one type for the whole function (MATLAB Coder's rule);
//! - `Index`, `Store` and `Size` name array locals; arithmetic, calls and conditions are scalar;
//! - an array-valued expression appears only as the value of an `Assign` to an array local
//!   (a copy), and `Alloc` is the only way an array is created inside the function;
//! - index expressions are 1-based and of a numeric class;
//! - `Break`/`Continue` occur only inside a loop body.

use la_arena::{Arena, Idx};

use crate::diag::Span;
use crate::types::{Class, Type};

pub type LocalId = Idx<Local>;
pub type ExprId = Idx<Expr>;
pub type StmtId = Idx<Stmt>;

/// A lowered file: the entry function (and, later, the local functions it calls).
#[derive(Clone, Debug)]
pub struct Module {
    pub functions: Vec<Function>,
}

impl Module {
    /// The entry function is always the first.
    pub fn entry(&self) -> &Function {
        &self.functions[0]
    }
}

#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub locals: Arena<Local>,
    pub exprs: Arena<Expr>,
    pub stmts: Arena<Stmt>,
    /// Parameters in declaration order.
    pub params: Vec<LocalId>,
    /// Outputs in declaration order. A name may be both a parameter and an output.
    pub outputs: Vec<LocalId>,
    pub body: Block,
    pub span: Span,
    /// `coder.gpu.kernel()` / `coder.gpu.nokernel()` pragmas, each on the `for` loop it precedes,
    /// with the pragma's span.
    pub pragmas: Vec<(StmtId, LoopPragma, Span)>,
    /// Inputs named by `coder.gpu.constantMemory(x)`, with the directive's span; the analysis
    /// decides whether each fits in `__constant__` memory.
    pub constant_memory: Vec<(LocalId, Span)>,
    /// The functions of `gpucoder.reduce` calls ([`ExprKind::Combine`]).
    pub combiners: Arena<Combiner>,
    /// What lowering decided that the report states, at the span it concerns (an array grown
    /// by index: allocated before its loop, or grown on the host).
    pub notes: Vec<(Span, String)>,
    /// The MATLAB names of the variables that `RuntimeError::Undefined(k)` checks, by `k`.
    pub undefined_names: Vec<String>,
    /// The complex outputs, in output order, each with whether Octave keeps it complex when
    /// its imaginary part is zero (`lower::complex_io`).
    pub complex_outputs: Vec<(LocalId, Kept)>,
    /// The statements that together write a whole complex array that Octave keeps complex
    /// when its imaginary parts are zero: the allocation and the stores of `r = complex(A, B)`
    /// (`lower::complex_io`).
    pub fresh_writes: Vec<StmtId>,
    /// Every inlined call, with the statements and expressions lowering its body made: where a
    /// run-time error inside a function m2cu bundles names its caller's place instead
    /// (`m2cu_codegen::sites`).
    pub inlined_calls: Vec<InlinedCall>,
}

/// An inlined call: the call's span in the caller, and the raw ids of the statements and
/// expressions lowered for the callee's body (half-open; the ranges of the calls inside it
/// nest in them).
#[derive(Clone, Debug, PartialEq)]
pub struct InlinedCall {
    pub at: Span,
    pub stmts: std::ops::Range<u32>,
    pub exprs: std::ops::Range<u32>,
}

impl InlinedCall {
    /// Whether statement `s` was lowered for this call's body.
    pub fn made_stmt(&self, s: StmtId) -> bool {
        self.stmts.contains(&u32::from(s.into_raw()))
    }

    /// Whether expression `e` was lowered for this call's body.
    pub fn made_expr(&self, e: ExprId) -> bool {
        self.exprs.contains(&u32::from(e.into_raw()))
    }
}

/// Whether a complex output whose imaginary part is zero stays complex on return (Octave keeps
/// what `complex(a, b)` made and what an input held, and narrows computed values to real).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kept {
    Always,
    Never,
    /// As the logical local says at the end of the call.
    Flag(LocalId),
}

/// A loop pragma of MATLAB Coder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopPragma {
    /// `coder.gpu.kernel()`: run the loop as a kernel even when a dependence seems to forbid it.
    Kernel,
    /// `coder.gpu.nokernel()`: keep the loop on the CPU.
    NoKernel,
}

/// How diagnostics and the loop report name a local: users never see m2cu's own names
/// (`_t3`, `_merge_sort_order`).
#[derive(Clone, Debug, PartialEq)]
pub enum Shown {
    /// By its name: a variable the program names.
    Name,
    /// By this name: a variable of an inlined function, by its name there (`order`, not
    /// `_merge_sort_order`).
    Renamed(String),
    /// By the source at this span: a value m2cu computes for that expression (`sum(x(above))`).
    Source(Span),
    /// By this text: what m2cu made from a variable, a copy of a column by the column
    /// (`D(:, k)`), a real part (`real(s)`), the hidden vectors of a cell by the cell.
    As(String),
}

/// A named variable of the function.
#[derive(Clone, Debug, PartialEq)]
pub struct Local {
    pub name: String,
    pub ty: Type,
    /// Where the variable is first defined (the parameter, or its first assignment).
    pub span: Span,
    /// `true` for a variable whose values are all integers: a `for` variable that only its
    /// loops assign, all over integers (`for i = 1:n`), a counter of m2cu's own, or a double
    /// scalar every assignment of which is a small integer (`k = double(b(i)) + 1`,
    /// `lower::integral::mark_bounded`). The code generators hold it in a 64-bit integer
    /// instead of a double.
    pub integral: bool,
    /// `true` for a `for` variable whose loops all run over integers, while it may hold other
    /// values outside them (`k = k / 2` after `for k = 1:n`, a parameter named like it): inside
    /// its loops its value is an integer, which is what the analysis needs of a subscript.
    pub loop_integral: bool,
    /// How the user sees it named.
    pub shown: Shown,
}

impl Local {
    /// The name users see it by: its own, or its name in the inlined function it belongs to
    /// (`order`, not `_merge_sort_order`); m2cu's own name for a value it computes (where the
    /// report has the source text, it shows that instead: see [`Shown`]).
    pub fn seen_name(&self) -> &str {
        match &self.shown {
            Shown::As(text) => text,
            _ => self.source_name().unwrap_or(&self.name),
        }
    }

    /// The name the source gives it: its own, or its name in the inlined function it belongs
    /// to; `None` for what m2cu made (see [`Shown`]).
    pub fn source_name(&self) -> Option<&str> {
        match &self.shown {
            Shown::Name => Some(&self.name),
            Shown::Renamed(name) => Some(name),
            Shown::Source(_) | Shown::As(_) => None,
        }
    }

    /// Whether the variable's value is an integer wherever a loop over it runs.
    pub fn integral_in_loops(&self) -> bool {
        self.integral || self.loop_integral
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub ty: Type,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A constant of class `ty.class` (logical constants are 0 or 1).
    Const(f64),
    Local(LocalId),
    Unary(UnOp, ExprId),
    /// A scalar binary operation. Operands keep their own classes; the result class is `ty.class`
    /// and follows MATLAB's rules (integer results are computed as in double, then rounded and
    /// saturated).
    Binary(BinOp, ExprId, ExprId),
    /// `A(i)` or `A(i, j)`: a read of one element; indices are 1-based.
    Index(LocalId, Vec<ExprId>),
    /// A scalar builtin.
    Call(Builtin, Vec<ExprId>),
    /// Conversion of the operand to the class `ty.class` (`int8(x)`, `double(x)`, ...).
    Convert(ExprId),
    /// `numel(A)`, `length(A)`, `size(A, k)`: a query on an array local, always double.
    Size(LocalId, SizeQuery),
    /// The number of elements of `first:step:last` by MATLAB's colon rule, always double.
    RangeCount(ExprId, ExprId, ExprId),
    /// `f(a, b)` for the user's binary function `f` = `Function::combiners[c]` of
    /// `gpucoder.reduce`. The operands are `a` (the accumulator), `b` (the element), then a
    /// read of each of the combiner's `captures`, in order; `a`, `b` and the result have
    /// class `ty.class`.
    Combine(CombinerId, Vec<ExprId>),
}

impl ExprKind {
    /// The local this node reads itself, not through an operand: its value, an element of it or
    /// its size.
    pub fn named_local(&self) -> Option<LocalId> {
        match *self {
            ExprKind::Local(l) | ExprKind::Index(l, _) | ExprKind::Size(l, _) => Some(l),
            _ => None,
        }
    }
}

/// A handle into [`Function::combiners`].
pub type CombinerId = Idx<Combiner>;

/// The number of combiner `c` in generated names (`m2cu_combine<n>`): its position in
/// [`Function::combiners`].
pub fn combiner_number(c: CombinerId) -> u32 {
    u32::from(c.into_raw())
}

/// A user function that `gpucoder.reduce` folds with: `output = name(params[0], params[1])`,
/// lowered once into `body`, which lies outside the function's body and assigns only scalar
/// locals of its own (the parameters, the output and temporaries). Every value it touches
/// has one class.
#[derive(Clone, Debug, PartialEq)]
pub struct Combiner {
    /// The MATLAB name of the function.
    pub name: String,
    pub params: [LocalId; 2],
    /// The scalar locals of the function that the body reads besides its own (the variables an
    /// anonymous function captured), in order: every [`ExprKind::Combine`] of it passes their
    /// values after its two operands. They are not assigned in the body.
    pub captures: Vec<LocalId>,
    pub output: LocalId,
    pub body: Block,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// Elementwise `&` on scalars (both operands are evaluated).
    And,
    /// Elementwise `|` on scalars (both operands are evaluated).
    Or,
    /// `&&`
    AndAnd,
    /// `||`
    OrOr,
}

impl BinOp {
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }

    pub fn is_logical(self) -> bool {
        matches!(self, BinOp::And | BinOp::Or | BinOp::AndAnd | BinOp::OrOr)
    }

    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Pow => "^",
            BinOp::Eq => "==",
            BinOp::Ne => "~=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&",
            BinOp::Or => "|",
            BinOp::AndAnd => "&&",
            BinOp::OrOr => "||",
        }
    }
}

/// Scalar builtins.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Builtin {
    Abs,
    Sqrt,
    Exp,
    Log,
    Floor,
    Ceil,
    Round,
    Fix,
    Sign,
    Mod,
    Rem,
    /// Two-argument `min(a, b)`; NaN is skipped as in MATLAB.
    Min,
    /// Two-argument `max(a, b)`; NaN is skipped as in MATLAB.
    Max,
    BitAnd,
    BitOr,
    BitXor,
    /// `bitshift(a, k)`: Octave 7's bits of `a` shifted left by `k` (right for a negative
    /// `k`), in `a`'s class: an integer's bits wrap in its width (right shifts of a signed one
    /// are arithmetic); a double (a single) is truncated to an integer, shifted as int64 and
    /// kept to its low 53 (24) bits, a negative one as the negated shift of its magnitude,
    /// NaN and infinities as 0. A `k` that is no integer stops with `M2CU_E_BITSHIFT_K`; a
    /// shift by 64 or more gives 0 (-1 for a negative integer shifted right), where Octave's
    /// result is undefined.
    BitShift,
    /// `xor(a, b)`: logical, true when exactly one of the two is nonzero (a NaN stops, as for
    /// every conversion to logical).
    Xor,
    /// `isnan(x)`, `isinf(x)`, `isfinite(x)`: logical; always false, false, true for integers.
    IsNan,
    IsInf,
    IsFinite,
    /// `upper(c)`, `lower(c)` of a char (ASCII letters; another class is returned unchanged).
    Upper,
    Lower,
    /// `complex(a, b)`: the complex double `a + b*i` of two real parts (`lower::complex`),
    /// which Octave keeps complex with a zero imaginary part. With a third, logical operand,
    /// `complex(a, b, held)` is an element of a complex array whose run-time flag `held` says
    /// whether Octave holds the array complex: an operation takes it as a complex value where
    /// `held` is true and as Octave's narrowed scalar where not (`lower::complex_array`).
    Complex,
    /// `real(z)`, `imag(z)`, `conj(z)`, `angle(z)` (`atan2(imag, real)`), of a complex or a
    /// real value.
    Real,
    Imag,
    Conj,
    Angle,
    /// `power(a, b, array_base)`: MATLAB's `a .^ b` of an array `a` by a scalar `b` as Octave
    /// computes it (liboctave's `elem_xpow`): when `array_base` (a logical, true when `a` has
    /// other than one element at run time) holds and `b` is 2, 3 or -1, the element is `a*a`,
    /// `a*a*a` or `1/a` in the result's class; otherwise `pow(a, b)`, as for scalars. Lowering
    /// writes it only for double and single results (`lower::power`); not in [`Builtin::ALL`],
    /// so no user call names it.
    Power,
    /// A real elementary function of floating arguments ([`Elementary`]).
    Elementary(Elementary),
    /// `nthroot(x, n, array_x)`: Octave's `nthroot.m` for a scalar `n`, elementwise; the third
    /// operand (a logical, true when `x` has other than one element at run time) selects the
    /// array form of its last correction, which gives `x` itself where the root is 0 (so
    /// `nthroot(-0, 3)` is -0 in an array, +0 alone). Lowering writes it for the user's
    /// two-argument call (`lower::elementary`); not in [`Builtin::ALL`].
    NthRoot,
    /// `linspace_at(x1, x2, n, k)`: element `k` (1-based) of Octave's `linspace(x1, x2, n)` for
    /// a count `n >= k` (liboctave's: `x1 + i*delta` in the first half, `x2 - i*delta` in the
    /// second, `(x1 + x2) / 2` in the middle of an odd count, 0 there when `x1 == -x2`, with no
    /// shortcut for equal ends). Lowering writes it for `linspace`
    /// (`lower::linspace`); not in [`Builtin::ALL`].
    LinspaceAt,
}

/// The real elementary functions: defined for double and single arguments (single values are
/// computed in double and rounded, as `sqrt` and `exp` are), an error for integers as in MATLAB,
/// logical and char arguments read as double. Where Octave's result would be complex for a real
/// argument (`asin(2)`, `log2(-1)`), the generated code stops with `M2CU_E_COMPLEX`, as `sqrt`
/// and `log` do. The forms Octave writes in M-files (`sec`, `sind`, `tand`, ...) follow those
/// files' formulas, so that they round as Octave's do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Elementary {
    Sin,
    Cos,
    Tan,
    Sec,
    Csc,
    Cot,
    Asin,
    Acos,
    Atan,
    /// `atan2(y, x)`.
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Asinh,
    Acosh,
    Atanh,
    /// Sine, cosine and tangent of degrees (`sind.m`, `cosd.m`, `tand.m`): exact zeros at
    /// multiples of 180 (and `Inf` for `tand` at odd multiples of 90).
    Sind,
    Cosd,
    Tand,
    Log2,
    Log10,
    Log1p,
    Expm1,
    /// `hypot(x, y)`.
    Hypot,
    /// Octave's `gamma`: `Inf` at 0 (`-Inf` at -0), at negative integers and at `±Inf`.
    Gamma,
    /// `gammaln(x)`: `log(gamma(x))` for `x >= 0` without overflow (`Inf` at 0 and `Inf`);
    /// complex for negative `x` in Octave, so a negative argument stops.
    Gammaln,
    Erf,
    Erfc,
    /// `eps(x)`: the distance from `|x|` to the next larger number of `x`'s class (the
    /// smallest subnormal at zero and below the normal range, NaN for `±Inf` and NaN).
    Eps,
}

impl Elementary {
    pub const ALL: [Elementary; 29] = [
        Elementary::Sin,
        Elementary::Cos,
        Elementary::Tan,
        Elementary::Sec,
        Elementary::Csc,
        Elementary::Cot,
        Elementary::Asin,
        Elementary::Acos,
        Elementary::Atan,
        Elementary::Atan2,
        Elementary::Sinh,
        Elementary::Cosh,
        Elementary::Tanh,
        Elementary::Asinh,
        Elementary::Acosh,
        Elementary::Atanh,
        Elementary::Sind,
        Elementary::Cosd,
        Elementary::Tand,
        Elementary::Log2,
        Elementary::Log10,
        Elementary::Log1p,
        Elementary::Expm1,
        Elementary::Hypot,
        Elementary::Gamma,
        Elementary::Gammaln,
        Elementary::Erf,
        Elementary::Erfc,
        Elementary::Eps,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Elementary::Sin => "sin",
            Elementary::Cos => "cos",
            Elementary::Tan => "tan",
            Elementary::Sec => "sec",
            Elementary::Csc => "csc",
            Elementary::Cot => "cot",
            Elementary::Asin => "asin",
            Elementary::Acos => "acos",
            Elementary::Atan => "atan",
            Elementary::Atan2 => "atan2",
            Elementary::Sinh => "sinh",
            Elementary::Cosh => "cosh",
            Elementary::Tanh => "tanh",
            Elementary::Asinh => "asinh",
            Elementary::Acosh => "acosh",
            Elementary::Atanh => "atanh",
            Elementary::Sind => "sind",
            Elementary::Cosd => "cosd",
            Elementary::Tand => "tand",
            Elementary::Log2 => "log2",
            Elementary::Log10 => "log10",
            Elementary::Log1p => "log1p",
            Elementary::Expm1 => "expm1",
            Elementary::Hypot => "hypot",
            Elementary::Gamma => "gamma",
            Elementary::Gammaln => "gammaln",
            Elementary::Erf => "erf",
            Elementary::Erfc => "erfc",
            Elementary::Eps => "eps",
        }
    }

    /// Number of arguments.
    pub fn arity(self) -> usize {
        match self {
            Elementary::Atan2 | Elementary::Hypot => 2,
            _ => 1,
        }
    }
}

impl Builtin {
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Abs => "abs",
            Builtin::Sqrt => "sqrt",
            Builtin::Exp => "exp",
            Builtin::Log => "log",
            Builtin::Floor => "floor",
            Builtin::Ceil => "ceil",
            Builtin::Round => "round",
            Builtin::Fix => "fix",
            Builtin::Sign => "sign",
            Builtin::Mod => "mod",
            Builtin::Rem => "rem",
            Builtin::Min => "min",
            Builtin::Max => "max",
            Builtin::BitAnd => "bitand",
            Builtin::BitOr => "bitor",
            Builtin::BitXor => "bitxor",
            Builtin::BitShift => "bitshift",
            Builtin::Xor => "xor",
            Builtin::IsNan => "isnan",
            Builtin::IsInf => "isinf",
            Builtin::IsFinite => "isfinite",
            Builtin::Upper => "upper",
            Builtin::Lower => "lower",
            Builtin::Complex => "complex",
            Builtin::Real => "real",
            Builtin::Imag => "imag",
            Builtin::Conj => "conj",
            Builtin::Angle => "angle",
            Builtin::Power => "power",
            Builtin::Elementary(e) => e.name(),
            Builtin::NthRoot => "nthroot",
            Builtin::LinspaceAt => "linspace",
        }
    }

    pub const ALL: [Builtin; 28] = [
        Builtin::Abs,
        Builtin::Sqrt,
        Builtin::Exp,
        Builtin::Log,
        Builtin::Floor,
        Builtin::Ceil,
        Builtin::Round,
        Builtin::Fix,
        Builtin::Sign,
        Builtin::Mod,
        Builtin::Rem,
        Builtin::Min,
        Builtin::Max,
        Builtin::BitAnd,
        Builtin::BitOr,
        Builtin::BitXor,
        Builtin::BitShift,
        Builtin::Xor,
        Builtin::IsNan,
        Builtin::IsInf,
        Builtin::IsFinite,
        Builtin::Upper,
        Builtin::Lower,
        Builtin::Complex,
        Builtin::Real,
        Builtin::Imag,
        Builtin::Conj,
        Builtin::Angle,
    ];

    pub fn from_name(name: &str) -> Option<Builtin> {
        Builtin::ALL
            .into_iter()
            .chain(Elementary::ALL.map(Builtin::Elementary))
            .find(|b| b.name() == name)
    }

    /// Number of arguments.
    pub fn arity(self) -> usize {
        match self {
            Builtin::Mod
            | Builtin::Rem
            | Builtin::Min
            | Builtin::Max
            | Builtin::BitAnd
            | Builtin::BitOr
            | Builtin::BitXor
            | Builtin::BitShift
            | Builtin::Xor
            | Builtin::Complex => 2,
            Builtin::Power | Builtin::NthRoot => 3,
            Builtin::LinspaceAt => 4,
            Builtin::Elementary(e) => e.arity(),
            _ => 1,
        }
    }

    /// `isnan`, `isinf`, `isfinite`: a logical test of a number's kind.
    pub fn is_float_test(self) -> bool {
        matches!(self, Builtin::IsNan | Builtin::IsInf | Builtin::IsFinite)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeQuery {
    Numel,
    Length,
    /// `size(A, k)` with k = 1, 2 or 3.
    Dim(u8),
}

/// What a new array is filled with. `Rand` (uniform in (0, 1)) and `Randn` (standard normal)
/// draw one value per element, in element order, from the function's random stream; `Inf`,
/// `NaN` and `Pi` (`Inf(n, 1)`, `nan(2, 'single')`) are constants of a floating class; `Clock`
/// is the host's wall clock in seconds since 1970 (`tic`/`toc`, `lower::timer`), read on the
/// host only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    Zeros,
    Ones,
    Rand,
    Randn,
    Inf,
    NaN,
    Pi,
    Clock,
}

impl Fill {
    /// Whether the fill draws from the random stream.
    pub fn is_random(self) -> bool {
        matches!(self, Fill::Rand | Fill::Randn)
    }

    /// Whether the fill makes double or single values only.
    pub fn is_floating_only(self) -> bool {
        !matches!(self, Fill::Zeros | Fill::Ones)
    }

    /// The constant every element gets (in double; a single array rounds it); `None` for a
    /// random fill.
    pub fn value(self) -> Option<f64> {
        match self {
            Fill::Zeros => Some(0.0),
            Fill::Ones => Some(1.0),
            Fill::Inf => Some(f64::INFINITY),
            Fill::NaN => Some(f64::NAN),
            Fill::Pi => Some(std::f64::consts::PI),
            Fill::Rand | Fill::Randn | Fill::Clock => None,
        }
    }

    /// The MATLAB function that makes this fill.
    pub fn name(self) -> &'static str {
        match self {
            Fill::Zeros => "zeros",
            Fill::Ones => "ones",
            Fill::Rand => "rand",
            Fill::Randn => "randn",
            Fill::Inf => "Inf",
            Fill::NaN => "NaN",
            Fill::Pi => "pi",
            Fill::Clock => "tic",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Block(pub Vec<StmtId>);

/// One piece of an `fprintf` format: literal text (escapes already processed) or one value with
/// its conversion.
#[derive(Clone, Debug, PartialEq)]
pub enum PrintPiece {
    Text(String),
    /// A scalar as `disp` shows it (Octave's `format short`).
    Display(ExprId),
    /// A whole array (`ExprKind::Local`, real, 2-D) as `disp` shows it: Octave's `format short`
    /// columns in chunks of 80 characters, or the rows of a char array; without the final
    /// newline. With a `name`, as a statement without `;` shows the variable: `name = ` and the
    /// value on the same line when it is empty, one element or a char row, else `name =`, a
    /// blank line, the rows and a blank line.
    DisplayArray {
        arg: ExprId,
        name: Option<String>,
    },
    Value {
        /// Flags, width and precision as written (`-8.3` in `%-8.3f`).
        modifiers: String,
        /// One of `d i u f e g E G`, `c` for one char (`%c`, and `%s` of a char), or `n` for
        /// the text of `num2str` (`lower::numtext`).
        conversion: char,
        arg: ExprId,
    },
    /// The code units of a char array as text (`%s` of a char array, `disp` of a char row):
    /// `arg` is the whole array (`ExprKind::Local`), `modifiers` as in `Value`.
    Chars {
        modifiers: String,
        arg: ExprId,
    },
    /// `num2str` of a real double row, laid out as Octave lays out its columns (one width for
    /// every element, from the largest magnitude, or `%<p+7>.<p>g` for `num2str(x, p)`),
    /// leading and trailing blanks trimmed: `arg` is the whole array (`ExprKind::Local`),
    /// `modifiers` as in `Value`.
    NumberRow {
        modifiers: String,
        arg: ExprId,
        precision: Option<u32>,
        /// Every row of a matrix on a line of its own, all in one format, the blank columns
        /// common to every row trimmed (`disp(num2str(A))`, Octave's char matrix).
        lines: bool,
    },
    /// A format made at run time (`sprintf(fmt, x)`, `fprintf([repmat('%g ', 1, n) '\n'],
    /// A')`), which the host parses and applies to the values as Octave does: `args` holds the
    /// format (a char value) and then the values, each a scalar or a whole array
    /// (`ExprKind::Local`) of a class that a double holds exactly (not complex, not 64-bit).
    Format {
        args: Vec<ExprId>,
    },
    /// Removes one final newline of the text so far: a message (`error`, `warning`) whose
    /// format was made at run time, which Octave prints without it.
    DropFinalNewline,
    /// Removes the leading and trailing whitespace of the text so far (`num2str(x, format)`,
    /// which Octave trims as `strtrim` does).
    TrimWhitespace,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `x = e` for a scalar, or `B = A` (a copy) for an array.
    Assign {
        target: LocalId,
        value: ExprId,
    },
    /// `A = zeros(rows, cols)` / `zeros(rows, cols, pages)` / `ones(...)`; the class is the
    /// target's.
    Alloc {
        target: LocalId,
        fill: Fill,
        rows: ExprId,
        cols: ExprId,
        pages: Option<ExprId>,
    },
    /// Sets the extents of the 2-D `array` to `rows` x `cols`, keeping each element at its
    /// (row, column) and filling new ones with zeros when it grows (`x(end+1) = v`, or an
    /// assignment past the end in MATLAB).
    Resize {
        array: LocalId,
        rows: ExprId,
        cols: ExprId,
    },
    /// `A(i) = e` or `A(i, j) = e`.
    Store {
        array: LocalId,
        indices: Vec<ExprId>,
        value: ExprId,
    },
    /// `for var = start:step:stop` (step 1 when `None`).
    For {
        var: LocalId,
        start: ExprId,
        step: Option<ExprId>,
        stop: ExprId,
        body: Block,
    },
    While {
        cond: ExprId,
        body: Block,
    },
    /// `elseif` chains are nested `If`s in `else_body`.
    If {
        cond: ExprId,
        then_body: Block,
        else_body: Block,
    },
    /// `fprintf(format, args...)`, `disp`, `warning`, `error` and a kept `sprintf`: the pieces
    /// make one text on the host, in program order, which goes where `to` says.
    Print {
        pieces: Vec<PrintPiece>,
        to: PrintTo,
    },
    /// Stops the program with `error` unless `cond` holds (sizes that only the running program
    /// knows, such as the operands of an elementwise operation).
    Check {
        cond: ExprId,
        error: RuntimeError,
    },
    Break,
    Continue,
    Return,
}

impl PrintPiece {
    /// The values this piece prints, in order (one, but for a run-time format).
    pub fn args(&self) -> &[ExprId] {
        match self {
            PrintPiece::Text(_) | PrintPiece::DropFinalNewline | PrintPiece::TrimWhitespace => &[],
            PrintPiece::Display(arg)
            | PrintPiece::DisplayArray { arg, .. }
            | PrintPiece::Value { arg, .. }
            | PrintPiece::Chars { arg, .. }
            | PrintPiece::NumberRow { arg, .. } => std::slice::from_ref(arg),
            PrintPiece::Format { args } => args,
        }
    }

    /// Whether the host reads whole arrays for this piece (it formats text from them), which a
    /// kernel's failure record cannot carry.
    pub fn reads_arrays(&self) -> bool {
        matches!(
            self,
            PrintPiece::Chars { .. }
                | PrintPiece::DisplayArray { .. }
                | PrintPiece::NumberRow { .. }
                | PrintPiece::Format { .. }
        )
    }
}

/// Where the text of a [`StmtKind::Print`] goes.
#[derive(Clone, Debug, PartialEq)]
pub enum PrintTo {
    /// `fprintf`: standard output.
    Stdout,
    /// `disp`: standard output.
    Display,
    /// `warning`: standard error as `warning: <text>`, and the program goes on.
    Warning,
    /// `error` and a failed `assert`: the call stops with the text as its message.
    Error { id: Option<String> },
    /// `sprintf` kept as a value: the text's code units are appended to the char row `row`
    /// (1-by-n), which the statement resizes in place as a [`StmtKind::Resize`] does; lowering
    /// allocates the row empty first.
    Append { row: LocalId },
}

impl PrintTo {
    /// The MATLAB function that prints this way, for reports.
    pub fn function(&self) -> &'static str {
        match self {
            PrintTo::Stdout => "fprintf",
            PrintTo::Display => "disp",
            PrintTo::Warning => "warning",
            PrintTo::Error { .. } => "error",
            PrintTo::Append { .. } => "sprintf",
        }
    }
}

/// Errors that a [`StmtKind::Check`] raises.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RuntimeError {
    /// MATLAB's "Arrays have incompatible sizes for this operation."
    SizeMismatch,
    /// `max`/`min` over nothing: MATLAB returns an empty array, which a scalar cannot hold.
    EmptyExtreme,
    /// Two extents differ and one of them is 1 at run time: MATLAB expands that operand
    /// (implicit expansion, or a scalar filling a slice), which m2cu supports only for extents
    /// known to be 1 at translation time.
    RunTimeExpansion,
    /// `reshape` to extents whose product is not the element count.
    ReshapeCount,
    /// `reshape` with a `[]` extent where the other extents' product does not divide the
    /// element count (MATLAB's "Product of known dimensions ... not divisible ...").
    ReshapeDivisible,
    /// `diag(A)` of an `A` whose extents were unknown at translation time, taken for a matrix,
    /// that is a vector or 0-by-0 when the program runs (`lower::diag`).
    DiagOfVector,
    /// `norm(A)` (or another p-norm but 1, Inf and 'fro') of an `A` whose extents were unknown
    /// at translation time that is a matrix when the program runs: its 2-norm needs the
    /// singular values, which m2cu does not compute yet (`lower::norm`).
    NormOfMatrix,
    /// `find(x, n)` with an `n` that is not a nonnegative integer: Octave's "find: N must be a
    /// non-negative integer".
    FindCount,
    /// `find(x)` whose Octave result (a row, or 0-by-0) has another shape than the result's
    /// static type, fixed from `x`'s (`lower::find`).
    FindShape,
    /// `A * B` with `size(A, 2) ~= size(B, 1)`: MATLAB's "Incorrect dimensions for matrix
    /// multiplication." (`lower::mtimes`).
    MatrixProductSizes,
    /// `A * B` whose inner extents differ where one operand is 1-by-1 only at run time: MATLAB
    /// multiplies each element of the other by it, a result whose shape the translated types
    /// cannot hold (`lower::mtimes`).
    MatrixProductScalar,
    /// `dot(x, y)` of vectors of different lengths: Octave's "dot: sizes of X and Y must
    /// match".
    DotSizes,
    /// `y(k) = v` with an array `v` that does not hold exactly one element: MATLAB's "Unable to
    /// perform assignment because the left and right sides have a different number of
    /// elements." (`Lowerer::element_value`).
    ElementCount,
    /// `s = v` inside a loop or branch, for a scalar `s` and an array `v` that does not hold
    /// exactly one element when the program runs: MATLAB makes `s` an array, which m2cu's
    /// one type per variable cannot hold (`Lowerer::scalar_taking_array`).
    ScalarKept,
    /// `c{k}` with an array `k` that does not hold exactly one element when the program runs:
    /// MATLAB makes a list of contents, which m2cu's cells of texts do not model.
    CellIndexCount,
    /// `c{k} = v` with a char `v` whose rows were unknown at translation time and that has
    /// more than one row when the program runs: m2cu's cells hold texts of one row.
    CellTextRows,
    /// `x(idx)` with an index whose type has no known extent (`[~, i] = max(x)` of a vector
    /// grown from `[]`) that is a matrix when the program runs: MATLAB shapes the selection as
    /// the index, which m2cu's vector selections cannot.
    IndexMatrix,
    /// `num2str(A)` in printed text of an `A` whose rows were unknown at translation time that
    /// has more than one row when the program runs (m2cu prints `num2str` of a row only).
    Num2strRows,

    /// A scalar read, or an output returned, on a path that never assigned it: MATLAB's
    /// "'x' undefined" (see `lower::undefined`), `x` being `Function::undefined_names[k]`.
    Undefined(usize),
    /// A read of a `for` variable after its loop ran zero times: MATLAB's value is a 1-by-0
    /// empty, which a scalar cannot hold.
    EmptyLoopVariable,
    /// `size(A, dim)` with a `dim` that is not a positive integer.
    SizeDimension,
    /// A loop that would give a double constant start the integer or single class it
    /// accumulates runs zero times: MATLAB's variable stays double, which its one class in
    /// m2cu cannot be.
    AccumulatorClass,
    /// `A(k) = v` past the end of a matrix that is neither a row nor a column.
    AmbiguousGrowth,
    /// `[A, v]` with `A` not one row, or `[A; v]` with `A` not one column.
    ConcatenationMismatch,
    /// `mean` of a masked selection that is 1-by-0: Octave's result is 1-by-0, which a scalar
    /// cannot hold.
    EmptyMean,
    /// `x(mask)` with a 1-by-1 mask that is false: MATLAB's result is 0-by-0, which the
    /// selection's row or column type cannot hold.
    EmptyScalarMask,
    /// A selected position past the end of the array: MATLAB's "Index exceeds the number of
    /// array elements."
    IndexPastEnd,
    /// A subscript that is not a positive integer: MATLAB's "Array indices must be positive
    /// integers or logical values."
    IndexInvalid,
    /// `sum(A, dim)` (or another reduction) with a run-time `dim` that is not a positive
    /// integer: MATLAB's "Dimension argument must be a positive integer scalar within indexing
    /// range."
    ReductionDimension,
    /// `y(a:b) = v` creating `y` with an empty range: MATLAB's `y` is 0-by-0, which the row
    /// that m2cu makes cannot be.
    EmptyRangeCreation,
    /// `strncmp(a, b, n)` (`strncmpi` when `folded`) with `fix(n) < 1` or NaN: Octave's
    /// "strncmp: N must be greater than 0".
    PrefixCount { folded: bool },
    /// `x(idx) = []` with an index past the end: MATLAB's "Matrix index is out of range for
    /// deletion."
    DeleteRange,
    /// `x(idx) = []` on a matrix (or a 1-by-1 array) with an index vector or a mask, where
    /// MATLAB's result is a row and Octave's (mostly) a column.
    DeleteOrientation,
    /// `arrayfun` of an empty array with a function returning another class than double:
    /// MATLAB's result is then an empty double, and m2cu's has the function's class.
    EmptyArrayfun,
    /// `isspace`/`isletter`/`isstrprop` of text with a character above 127, which m2cu does
    /// not classify (Octave's classes there depend on how it reads the bytes).
    NonAsciiClass,
    /// A whole complex array times or divided by a real scalar that is not finite (or is 0,
    /// for a division): Octave's result then depends on whether it holds the array narrowed
    /// to real (`lower::complex_array`).
    ComplexFactor,
    /// `.*`, `./` or `exp` of a whole complex array whose imaginary parts are all zero: Octave
    /// holds it narrowed to real then, and its result may differ where Inf or NaN meet a zero
    /// imaginary part (`lower::complex_array`).
    ComplexAllReal,
    /// `mean` of an empty value of a size where MATLAB's result and Octave 7.3's differ
    /// (`lower::mean_empty`).
    MeanOfEmpty,
    /// An array condition (`if v`, `while v`) with a NaN element: MATLAB and Octave stop, since
    /// NaN has no truth value (a scalar's conversion checks itself: the prelude's `m2cu_truth`).
    NanToLogical,
}

impl Function {
    /// Looks a local up by name.
    pub fn local_named(&self, name: &str) -> Option<LocalId> {
        self.locals
            .iter()
            .find(|(_, l)| l.name == name)
            .map(|(id, _)| id)
    }

    /// The pragma written before the loop `stmt`, with its span.
    pub fn pragma_of(&self, stmt: StmtId) -> Option<(LoopPragma, Span)> {
        self.pragmas
            .iter()
            .find(|(s, _, _)| *s == stmt)
            .map(|&(_, p, span)| (p, span))
    }

    pub fn is_param(&self, local: LocalId) -> bool {
        self.params.contains(&local)
    }

    pub fn is_output(&self, local: LocalId) -> bool {
        self.outputs.contains(&local)
    }

    /// The locals the call reads when it ends: the outputs, and the flags that say whether a
    /// complex output is kept complex ([`Kept::Flag`]).
    pub fn read_at_end(&self) -> impl Iterator<Item = LocalId> + '_ {
        let flags = self
            .complex_outputs
            .iter()
            .filter_map(|(_, kept)| match kept {
                Kept::Flag(flag) => Some(*flag),
                Kept::Always | Kept::Never => None,
            });
        self.outputs.iter().copied().chain(flags)
    }

    /// The body's arenas, to walk.
    pub fn tree(&self) -> Tree<'_> {
        Tree {
            stmts: &self.stmts,
            exprs: &self.exprs,
        }
    }

    /// Calls `f` on every statement of `block`, depth first, parents before children.
    pub fn walk_stmts(&self, block: &Block, f: &mut impl FnMut(StmtId)) {
        self.tree().walk_stmts(block, f)
    }

    /// Calls `f` on `expr` and every expression inside it, parents before children.
    pub fn walk_expr(&self, expr: ExprId, f: &mut impl FnMut(ExprId)) {
        self.tree().walk_expr(expr, f)
    }

    /// The expressions directly owned by a statement (not those of nested statements).
    pub fn stmt_exprs(&self, stmt: StmtId) -> Vec<ExprId> {
        self.tree().stmt_exprs(stmt)
    }

    /// Whether `expr` reads `local` (by value, element or size).
    pub fn mentions(&self, expr: ExprId, local: LocalId) -> bool {
        let mut found = false;
        self.walk_expr(expr, &mut |x| {
            found |= self.exprs[x].kind.named_local() == Some(local)
        });
        found
    }

    /// The class of an expression.
    pub fn class_of(&self, expr: ExprId) -> Class {
        self.exprs[expr].ty.class
    }
}

/// The statement and expression arenas of a body, walked alike while it is being lowered and
/// after ([`Function::tree`]).
#[derive(Clone, Copy)]
pub struct Tree<'f> {
    pub stmts: &'f Arena<Stmt>,
    pub exprs: &'f Arena<Expr>,
}

impl Tree<'_> {
    /// Calls `f` on every statement of `block`, depth first, parents before children.
    pub fn walk_stmts(&self, block: &Block, f: &mut impl FnMut(StmtId)) {
        for &s in &block.0 {
            f(s);
            match &self.stmts[s].kind {
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                    self.walk_stmts(body, f)
                }
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.walk_stmts(then_body, f);
                    self.walk_stmts(else_body, f);
                }
                _ => {}
            }
        }
    }

    /// Calls `f` on `expr` and every expression inside it, parents before children.
    pub fn walk_expr(&self, expr: ExprId, f: &mut impl FnMut(ExprId)) {
        f(expr);
        match &self.exprs[expr].kind {
            ExprKind::Const(_) | ExprKind::Local(_) | ExprKind::Size(..) => {}
            ExprKind::Unary(_, a) | ExprKind::Convert(a) => self.walk_expr(*a, f),
            ExprKind::Binary(_, a, b) => {
                self.walk_expr(*a, f);
                self.walk_expr(*b, f);
            }
            ExprKind::Index(_, args) | ExprKind::Call(_, args) | ExprKind::Combine(_, args) => {
                for &a in args {
                    self.walk_expr(a, f);
                }
            }
            ExprKind::RangeCount(a, b, c) => {
                for e in [*a, *b, *c] {
                    self.walk_expr(e, f);
                }
            }
        }
    }

    /// The expressions directly owned by a statement (not those of nested statements).
    pub fn stmt_exprs(&self, stmt: StmtId) -> Vec<ExprId> {
        match &self.stmts[stmt].kind {
            StmtKind::Assign { value, .. } => vec![*value],
            StmtKind::Alloc {
                rows, cols, pages, ..
            } => [Some(*rows), Some(*cols), *pages]
                .into_iter()
                .flatten()
                .collect(),
            StmtKind::Resize { rows, cols, .. } => vec![*rows, *cols],
            StmtKind::Store { indices, value, .. } => indices
                .iter()
                .copied()
                .chain(std::iter::once(*value))
                .collect(),
            StmtKind::For {
                start, step, stop, ..
            } => [Some(*start), *step, Some(*stop)]
                .into_iter()
                .flatten()
                .collect(),
            StmtKind::While { cond, .. }
            | StmtKind::If { cond, .. }
            | StmtKind::Check { cond, .. } => vec![*cond],
            StmtKind::Print { pieces, .. } => {
                pieces.iter().flat_map(PrintPiece::args).copied().collect()
            }
            StmtKind::Break | StmtKind::Continue | StmtKind::Return => vec![],
        }
    }

    /// The locals `block` assigns whole (`x = e`) or loops over, nested blocks included, in
    /// order (a local assigned twice appears twice).
    pub fn assigned(&self, block: &Block) -> Vec<LocalId> {
        let mut assigned = Vec::new();
        self.walk_stmts(block, &mut |s| {
            if let StmtKind::Assign { target, .. } | StmtKind::For { var: target, .. } =
                self.stmts[s].kind
            {
                assigned.push(target);
            }
        });
        assigned
    }

    /// The locals `block` reads (by value, element or size) and does not assign, besides
    /// `own`, in the order they are first read.
    pub fn outer_reads(&self, block: &Block, own: &[LocalId]) -> Vec<LocalId> {
        let mut assigned = own.to_vec();
        assigned.extend(self.assigned(block));
        let mut read = Vec::new();
        self.walk_stmts(block, &mut |s| {
            for e in self.stmt_exprs(s) {
                self.walk_expr(e, &mut |x| {
                    if let Some(l) = self.exprs[x].kind.named_local() {
                        if !read.contains(&l) {
                            read.push(l);
                        }
                    }
                });
            }
        });
        read.retain(|l| !assigned.contains(l));
        read
    }
}

/// A deep copy of expression `e` of `exprs`, so that it can appear in another statement.
pub fn copy_expr(exprs: &mut Arena<Expr>, e: ExprId) -> ExprId {
    let expr = exprs[e].clone();
    let mut copy = |a: ExprId| copy_expr(exprs, a);
    let kind = match expr.kind {
        ExprKind::Unary(op, a) => ExprKind::Unary(op, copy(a)),
        ExprKind::Binary(op, a, b) => ExprKind::Binary(op, copy(a), copy(b)),
        ExprKind::Index(array, args) => {
            ExprKind::Index(array, args.into_iter().map(copy).collect())
        }
        ExprKind::Call(b, args) => ExprKind::Call(b, args.into_iter().map(copy).collect()),
        ExprKind::Convert(a) => ExprKind::Convert(copy(a)),
        ExprKind::Combine(c, args) => ExprKind::Combine(c, args.into_iter().map(copy).collect()),
        ExprKind::RangeCount(a, s, b) => ExprKind::RangeCount(copy(a), copy(s), copy(b)),
        kind @ (ExprKind::Const(_) | ExprKind::Local(_) | ExprKind::Size(..)) => kind,
    };
    exprs.alloc(Expr { kind, ..expr })
}

/// Structural equality of two expressions of one arena (ignoring spans).
pub fn same_expr(exprs: &Arena<Expr>, a: ExprId, b: ExprId) -> bool {
    let (x, y) = (&exprs[a], &exprs[b]);
    if x.ty != y.ty {
        return false;
    }
    let all = |p: &[ExprId], q: &[ExprId]| {
        p.len() == q.len() && p.iter().zip(q).all(|(m, n)| same_expr(exprs, *m, *n))
    };
    match (&x.kind, &y.kind) {
        (ExprKind::Const(p), ExprKind::Const(q)) => p.to_bits() == q.to_bits(),
        (ExprKind::Local(p), ExprKind::Local(q)) => p == q,
        (ExprKind::Unary(o, p), ExprKind::Unary(r, q)) => o == r && same_expr(exprs, *p, *q),
        (ExprKind::Binary(o, p1, p2), ExprKind::Binary(r, q1, q2)) => {
            o == r && same_expr(exprs, *p1, *q1) && same_expr(exprs, *p2, *q2)
        }
        (ExprKind::Index(p, pi), ExprKind::Index(q, qi)) => p == q && all(pi, qi),
        (ExprKind::Call(p, pa), ExprKind::Call(q, qa)) => p == q && all(pa, qa),
        (ExprKind::Convert(p), ExprKind::Convert(q)) => same_expr(exprs, *p, *q),
        (ExprKind::Size(p, pq), ExprKind::Size(q, qq)) => p == q && pq == qq,
        (ExprKind::RangeCount(p1, p2, p3), ExprKind::RangeCount(q1, q2, q3)) => {
            all(&[*p1, *p2, *p3], &[*q1, *q2, *q3])
        }
        _ => false,
    }
}
