//! The functions m2cu translates, as one table that users read (`m2cu functions`,
//! `docs/FUNCTIONS.md`) and tests check, like GPU Coder's list of functions supported for GPU
//! code generation.
//!
//! Invariants, each kept by a test:
//! - the names are exactly the functions lowering translates (`lower::translated_functions`),
//!   so a function m2cu comes to translate, or stops translating, changes this table;
//! - each entry's example translates for every class the entry lists and is refused for the
//!   other classes of [`Kind::ALL`] (`tests/functions.rs`), so the classes column is what m2cu
//!   does, not what it meant to do;
//! - `docs/FUNCTIONS.md` is [`markdown`] (`tests/functions.rs`).
//!
//! An example is the body of `function y = example(x, M, n, s)`, where `x` is a row vector and
//! `M` a matrix of the class being tried, `n` a double scalar and `s` a char row; it assigns `y`.

use std::fmt::Write as _;

/// The group a function is listed under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Area {
    Elementary,
    Arithmetic,
    Complex,
    Logic,
    Operators,
    Constants,
    Classes,
    Sizes,
    Builders,
    Reductions,
    Searching,
    Matrix,
    Text,
    Errors,
    Handles,
    GpuCoder,
}

impl Area {
    pub const ALL: [Area; 16] = [
        Area::Elementary,
        Area::Arithmetic,
        Area::Complex,
        Area::Logic,
        Area::Operators,
        Area::Constants,
        Area::Classes,
        Area::Sizes,
        Area::Builders,
        Area::Reductions,
        Area::Searching,
        Area::Matrix,
        Area::Text,
        Area::Errors,
        Area::Handles,
        Area::GpuCoder,
    ];

    pub fn title(self) -> &'static str {
        match self {
            Area::Elementary => "Elementary math",
            Area::Arithmetic => "Rounding, remainders and signs",
            Area::Complex => "Complex numbers",
            Area::Logic => "Bits and logic",
            Area::Operators => "Operators as functions",
            Area::Constants => "Constants and fills",
            Area::Classes => "Classes and conversions",
            Area::Sizes => "Sizes and shapes",
            Area::Builders => "Array builders",
            Area::Reductions => "Reductions and scans",
            Area::Searching => "Searching, sorting and sets",
            Area::Matrix => "Matrix products and solves",
            Area::Text => "Text and output",
            Area::Errors => "Errors and arguments",
            Area::Handles => "Function handles",
            Area::GpuCoder => "GPU Coder and MATLAB Coder",
        }
    }
}

/// A class of input that an entry's example is tried with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Double,
    Single,
    /// The integer classes, tried with `int32`.
    Integer,
    Logical,
    Char,
    /// Complex doubles.
    Complex,
}

impl Kind {
    pub const ALL: [Kind; 6] = [
        Kind::Double,
        Kind::Single,
        Kind::Integer,
        Kind::Logical,
        Kind::Char,
        Kind::Complex,
    ];

    /// The word in the classes column.
    pub fn word(self) -> &'static str {
        match self {
            Kind::Double => "double",
            Kind::Single => "single",
            Kind::Integer => "integers",
            Kind::Logical => "logical",
            Kind::Char => "char",
            Kind::Complex => "complex",
        }
    }

    /// The class of an input spec (`x=CLASS(1,:)`) that stands for this kind.
    pub fn spec_class(self) -> &'static str {
        match self {
            Kind::Integer => "int32",
            Kind::Complex => "complex",
            other => other.word(),
        }
    }
}

/// One function m2cu translates.
#[derive(Clone, Copy, Debug)]
pub struct Function {
    pub name: &'static str,
    pub area: Area,
    /// The classes of `x`/`M` the function takes; `None` where it takes no array of a class
    /// (constants, statements), and the example is tried once.
    pub classes: Option<&'static [Kind]>,
    /// A body of `function y = example(x, M, n, s)` that calls it.
    pub example: &'static str,
    /// What a user needs to know: forms, result classes, limits.
    pub notes: &'static str,
}

use Kind::{Char, Complex, Double, Integer, Logical, Single};

const FLOATS: &[Kind] = &[Double, Single];
const REALS: &[Kind] = &[Double, Single, Logical, Char];
const NUMERIC: &[Kind] = &[Double, Single, Integer, Logical, Char];
const NUMBERS: &[Kind] = &[Double, Single, Integer, Logical, Char, Complex];

const fn entry(
    name: &'static str,
    area: Area,
    classes: Option<&'static [Kind]>,
    example: &'static str,
    notes: &'static str,
) -> Function {
    Function {
        name,
        area,
        classes,
        example,
        notes,
    }
}

/// Every function m2cu translates, grouped by area.
#[rustfmt::skip]
pub const FUNCTIONS: &[Function] = &[
    // Elementary math.
    entry("sin", Area::Elementary, Some(REALS), "y = sin(x);", "Singles through the float C functions, as Octave."),
    entry("cos", Area::Elementary, Some(REALS), "y = cos(x);", ""),
    entry("tan", Area::Elementary, Some(REALS), "y = tan(x);", ""),
    entry("sec", Area::Elementary, Some(REALS), "y = sec(x);", ""),
    entry("csc", Area::Elementary, Some(REALS), "y = csc(x);", ""),
    entry("cot", Area::Elementary, Some(REALS), "y = cot(x);", ""),
    entry("asin", Area::Elementary, Some(REALS), "y = asin(x);", "An argument outside [-1, 1] stops the run: the result would be complex, and m2cu keeps real values real."),
    entry("acos", Area::Elementary, Some(REALS), "y = acos(x);", "An argument outside [-1, 1] stops the run: the result would be complex, and m2cu keeps real values real."),
    entry("atan", Area::Elementary, Some(REALS), "y = atan(x);", ""),
    entry("atan2", Area::Elementary, Some(REALS), "y = atan2(x, 2 * x);", "Implicit expansion."),
    entry("sinh", Area::Elementary, Some(REALS), "y = sinh(x);", ""),
    entry("cosh", Area::Elementary, Some(REALS), "y = cosh(x);", ""),
    entry("tanh", Area::Elementary, Some(REALS), "y = tanh(x);", ""),
    entry("asinh", Area::Elementary, Some(REALS), "y = asinh(x);", ""),
    entry("acosh", Area::Elementary, Some(REALS), "y = acosh(x);", "An argument below 1 stops the run: the result would be complex, and m2cu keeps real values real."),
    entry("atanh", Area::Elementary, Some(REALS), "y = atanh(x);", "An argument outside [-1, 1] stops the run: the result would be complex, and m2cu keeps real values real."),
    entry("sind", Area::Elementary, Some(REALS), "y = sind(x);", "Exact at multiples of 90 degrees, as MATLAB."),
    entry("cosd", Area::Elementary, Some(REALS), "y = cosd(x);", "Exact at multiples of 90 degrees, as MATLAB."),
    entry("tand", Area::Elementary, Some(REALS), "y = tand(x);", "Exact at multiples of 45 degrees, as MATLAB."),
    entry("asind", Area::Elementary, Some(REALS), "y = asind(x);", "m2cu's own library."),
    entry("acosd", Area::Elementary, Some(REALS), "y = acosd(x);", "m2cu's own library."),
    entry("atand", Area::Elementary, Some(REALS), "y = atand(x);", "m2cu's own library."),
    entry("atan2d", Area::Elementary, Some(REALS), "y = atan2d(x, 2 * x);", "m2cu's own library."),
    entry("hypot", Area::Elementary, Some(REALS), "y = hypot(x, 2 * x);", "Without overflow, as C's `hypot`."),
    entry("exp", Area::Elementary, Some(&[Double, Single, Logical, Char, Complex]), "y = exp(x);", "Complex values: glibc's `cexp`, on the GPU too (written out in the device code)."),
    entry("log", Area::Elementary, Some(REALS), "y = log(x);", "A negative real argument stops the run unless the value is complex: the result would be complex, and m2cu keeps real values real. Complex scalars too; whole complex arrays not yet."),
    entry("log2", Area::Elementary, Some(REALS), "y = log2(x);", "One output."),
    entry("log10", Area::Elementary, Some(REALS), "y = log10(x);", ""),
    entry("log1p", Area::Elementary, Some(REALS), "y = log1p(x);", ""),
    entry("expm1", Area::Elementary, Some(REALS), "y = expm1(x);", ""),
    entry("sqrt", Area::Elementary, Some(REALS), "y = sqrt(x);", "A negative real argument stops the run unless the value is complex: the result would be complex, and m2cu keeps real values real. Complex scalars too; whole complex arrays not yet."),
    entry("nthroot", Area::Elementary, Some(REALS), "y = nthroot(x, 3);", "Real roots of negative values for odd `n`, as MATLAB."),
    entry("gamma", Area::Elementary, Some(REALS), "y = gamma(x);", ""),
    entry("gammaln", Area::Elementary, Some(REALS), "y = gammaln(x);", "`log(gamma(x))` without overflow; a negative argument stops (Octave's result is complex, MATLAB stops)."),
    entry("gammainc", Area::Elementary, Some(&[Double]), "y = gammainc(x, 2.5, 'upper');", "m2cu's own library: the regularized lower (or `'upper'`) incomplete gamma function, `x` and `a` of one size or scalars, double values, as Octave within about 1e-13 relative (a series or a continued fraction, not Octave's own choice of algorithms); negative `x` stops."),
    entry("erf", Area::Elementary, Some(REALS), "y = erf(x);", ""),
    entry("erfc", Area::Elementary, Some(REALS), "y = erfc(x);", ""),
    entry("gcd", Area::Arithmetic, Some(&[Double, Single, Integer]), "y = gcd(x, 12);", "m2cu's own library: two arguments, elementwise with a scalar; Euclid's algorithm on the magnitudes as Octave; fractions stop."),
    entry("lcm", Area::Arithmetic, Some(&[Double, Single, Integer]), "y = lcm(x, 12);", "m2cu's own library: two arguments, `a .* (b ./ gcd(a, b))` as Octave, 0 where both are 0."),
    entry("primes", Area::Arithmetic, None, "y = primes(n);", "m2cu's own library: a row of the primes up to `n`, in `n`'s class (sieve of Eratosthenes)."),
    entry("isprime", Area::Arithmetic, Some(NUMERIC), "y = isprime(x);", "m2cu's own library: of the magnitudes (as Octave), trial division; fractions stop."),
    entry("factorial", Area::Elementary, Some(REALS), "y = factorial(x);", "m2cu's own library; a negative or fractional argument stops with MATLAB's message."),
    entry("nextpow2", Area::Elementary, Some(&[Double, Single, Logical, Char, Complex]), "y = nextpow2(x);", "m2cu's own library, exact at powers of two."),
    entry("eps", Area::Elementary, Some(FLOATS), "y = eps(x);", "`eps`, `eps('single')`, `eps('like', x)` and `eps(x)` elementwise (Octave's subnormal, Inf and NaN cases)."),
    // Rounding, remainders and signs.
    entry("abs", Area::Arithmetic, Some(NUMBERS), "y = abs(x);", "Integers saturate (`abs(intmin)`); complex gives the magnitude."),
    entry("sign", Area::Arithmetic, Some(NUMERIC), "y = sign(x);", ""),
    entry("floor", Area::Arithmetic, Some(NUMERIC), "y = floor(x);", ""),
    entry("ceil", Area::Arithmetic, Some(NUMERIC), "y = ceil(x);", ""),
    entry("round", Area::Arithmetic, Some(NUMERIC), "y = round(x);", "Halves away from zero, as MATLAB."),
    entry("fix", Area::Arithmetic, Some(NUMERIC), "y = fix(x);", ""),
    entry("mod", Area::Arithmetic, Some(NUMERIC), "y = mod(x, 3);", "MATLAB's sign of the divisor, `mod(x, 0) = x`; integers in their class."),
    entry("rem", Area::Arithmetic, Some(NUMERIC), "y = rem(x, 3);", "MATLAB's sign of the dividend, `rem(x, 0)` NaN for floats."),
    entry("idivide", Area::Arithmetic, Some(&[Double, Integer]), "y = idivide(x, int32(2), 'round');", "m2cu's own library; 'fix' (default), 'round', 'floor', 'ceil', in the integer class; the other operand of the same class or a double; 64-bit integers refused; stops where Octave 7 differs from MATLAB (a 'fix' of a negative dividend whose quotient is not whole, a nonzero value divided by zero)."),
    // Complex numbers.
    entry("complex", Area::Complex, Some(&[Double, Logical, Char]), "y = complex(x, x);", "`complex(re)` and `complex(re, im)`; single parts not yet."),
    entry("real", Area::Complex, Some(NUMBERS), "y = real(x);", ""),
    entry("imag", Area::Complex, Some(NUMBERS), "y = imag(x);", ""),
    entry("conj", Area::Complex, Some(NUMBERS), "y = conj(x);", ""),
    entry("angle", Area::Complex, Some(REALS), "y = angle(x);", "Complex scalars too; whole complex arrays not yet."),
    entry("isreal", Area::Complex, Some(NUMBERS), "y = isreal(x);", "Decided at translation time from the type."),
    // Bits and logic.
    entry("bitand", Area::Logic, Some(&[Double, Single, Integer]), "y = bitand(x, x);", "Doubles convert as `uint64(x)` does; a char, or two logicals (Octave's result is logical), are refused."),
    entry("bitor", Area::Logic, Some(&[Double, Single, Integer]), "y = bitor(x, x);", "Doubles convert as `uint64(x)` does; a char, or two logicals (Octave's result is logical), are refused."),
    entry("bitxor", Area::Logic, Some(&[Double, Single, Integer]), "y = bitxor(x, x);", "Doubles convert as `uint64(x)` does; a char, or two logicals (Octave's result is logical), are refused."),
    entry("bitshift", Area::Logic, Some(&[Double, Single, Integer]), "y = bitshift(x, 2);", "As Octave 7: integers wrap in their width, doubles keep 53 bits; a fractional shift stops."),
    entry("xor", Area::Logic, Some(&[Double, Single, Integer, Logical]), "y = xor(x, x);", ""),
    entry("and", Area::Logic, Some(NUMERIC), "y = and(x, x);", "m2cu's own library: `x & y`."),
    entry("or", Area::Logic, Some(NUMERIC), "y = or(x, x);", "m2cu's own library: `x | y`."),
    entry("not", Area::Logic, Some(NUMERIC), "y = not(x);", "m2cu's own library: `~x`."),
    // Operators as functions.
    entry("plus", Area::Operators, Some(NUMBERS), "y = plus(x, x);", "m2cu's own library: `x + y`."),
    entry("minus", Area::Operators, Some(NUMBERS), "y = minus(x, x);", "m2cu's own library: `x - y`."),
    entry("times", Area::Operators, Some(NUMBERS), "y = times(x, x);", "m2cu's own library: `x .* y`. Of whole complex arrays, each element complex where Octave holds the array complex (found at run time), `__muldc3` on the GPU too."),
    entry("rdivide", Area::Operators, Some(NUMBERS), "y = rdivide(x, x);", "m2cu's own library: `x ./ y` (whole complex arrays as `times`, `__divdc3`)."),
    entry("ldivide", Area::Operators, Some(NUMBERS), "y = ldivide(x, x);", "m2cu's own library: `x .\\ y` (whole complex arrays as `rdivide`)."),
    entry("uminus", Area::Operators, Some(NUMBERS), "y = uminus(x);", "m2cu's own library: `-x`."),
    entry("uplus", Area::Operators, Some(NUMBERS), "y = uplus(x);", "m2cu's own library: `+x`."),
    entry("power", Area::Operators, Some(NUMERIC), "y = power(x, 2);", "m2cu's own library: `x .^ y`."),
    entry("realpow", Area::Elementary, Some(NUMERIC), "y = realpow(x, 2);", "m2cu's own library: `x .^ y`, stopping with Octave's message where a result would be complex (a negative base to a power that is not whole)."),
    entry("colon", Area::Operators, Some(&[Double, Logical]), "y = colon(x(1), x(1) + 3) + colon(x(1), 2, x(1) + 7);", "m2cu's own library: `a:b` and `a:b:c`. A range has MATLAB's class (integer, char, single when an operand is); such a range needs operands known to be whole (`colon(int8(1), int8(n))`), since Octave stops for fractional integer ranges and computes single ones in single arithmetic."),
    entry("transpose", Area::Operators, Some(NUMBERS), "y = transpose(M);", "m2cu's own library: `x.'`."),
    entry("ctranspose", Area::Operators, Some(NUMBERS), "y = ctranspose(M);", "m2cu's own library: `x'`."),
    entry("eq", Area::Operators, Some(NUMBERS), "y = eq(x, x);", "m2cu's own library: `x == y`."),
    entry("ne", Area::Operators, Some(NUMBERS), "y = ne(x, x);", "m2cu's own library: `x ~= y`."),
    entry("lt", Area::Operators, Some(NUMERIC), "y = lt(x, x);", "m2cu's own library: `x < y`."),
    entry("le", Area::Operators, Some(NUMERIC), "y = le(x, x);", "m2cu's own library: `x <= y`."),
    entry("gt", Area::Operators, Some(NUMERIC), "y = gt(x, x);", "m2cu's own library: `x > y`."),
    entry("ge", Area::Operators, Some(NUMERIC), "y = ge(x, x);", "m2cu's own library: `x >= y`."),
    // Constants and fills.
    entry("pi", Area::Constants, None, "y = pi + pi(2, 3, 'single');", "Bare, or as a fill with sizes and a class."),
    entry("Inf", Area::Constants, None, "y = Inf(n, 1);", "Bare, or as a fill with sizes and `'single'`/`'double'`/`'like', x`."),
    entry("inf", Area::Constants, None, "y = inf(1, n);", "As `Inf`."),
    entry("NaN", Area::Constants, None, "y = NaN(n, 2, 'single');", "Bare, or as a fill with sizes and `'single'`/`'double'`/`'like', x`."),
    entry("nan", Area::Constants, None, "y = nan(2);", "As `NaN`."),
    entry("realmax", Area::Constants, None, "y = realmax('single');", "`realmax`, `realmax('single')`, `realmax('like', x)`."),
    entry("realmin", Area::Constants, None, "y = realmin;", "As `realmax`."),
    entry("flintmax", Area::Constants, None, "y = flintmax('single');", "As `realmax`."),
    entry("intmax", Area::Constants, None, "y = intmax('uint8');", "`intmax`, `intmax('CLASS')`, `intmax('like', x)`."),
    entry("intmin", Area::Constants, None, "y = intmin('int16');", "As `intmax`."),
    entry("zeros", Area::Constants, None, "y = zeros(n, 3, 'uint8');", "Sizes as arguments or a size vector, up to 3-D; a class or `'like', x`."),
    entry("ones", Area::Constants, None, "y = ones(size(M), 'like', M);", "As `zeros`."),
    entry("true", Area::Constants, None, "y = true(2, n);", "Bare or with sizes."),
    entry("false", Area::Constants, None, "y = false(n);", "Bare or with sizes."),
    entry("magic", Area::Constants, None, "y = magic(n);", "m2cu's own library: Octave's squares (odd, doubly even and singly even orders), the same as MATLAB's."),
    entry("eye", Area::Constants, None, "y = eye(n, 3);", "Sizes, a size vector and a class."),
    entry("rand", Area::Constants, None, "y = rand(n, 1);", "A counter-based stream seeded per call (`--seed`): the same seed gives the same values on every backend, but not Octave's values."),
    entry("randn", Area::Constants, None, "y = randn(1, n);", "Standard normal, from the same stream as `rand`."),
    entry("randi", Area::Constants, None, "y = randi([1 6], n, 2) + randi(10);", "m2cu's own library: uniform integers from the same stream as `rand`; `randi(imax)`, `randi([imin imax], m, n)`, a size vector; doubles (a class argument not yet)."),
    // Classes and conversions.
    entry("double", Area::Classes, Some(NUMERIC), "y = double(x);", ""),
    entry("single", Area::Classes, Some(NUMERIC), "y = single(x);", ""),
    entry("int8", Area::Classes, Some(NUMERIC), "y = int8(x);", "Rounds halves away from zero and saturates; NaN gives 0."),
    entry("int16", Area::Classes, Some(NUMERIC), "y = int16(x);", "As `int8`."),
    entry("int32", Area::Classes, Some(NUMERIC), "y = int32(x);", "As `int8`."),
    entry("int64", Area::Classes, Some(NUMERIC), "y = int64(x);", "As `int8`."),
    entry("uint8", Area::Classes, Some(NUMERIC), "y = uint8(x);", "As `int8`."),
    entry("uint16", Area::Classes, Some(NUMERIC), "y = uint16(x);", "As `int8`."),
    entry("uint32", Area::Classes, Some(NUMERIC), "y = uint32(x);", "As `int8`."),
    entry("uint64", Area::Classes, Some(NUMERIC), "y = uint64(x);", "As `int8`."),
    entry("logical", Area::Classes, Some(NUMERIC), "y = logical(x);", "A NaN stops with MATLAB's message."),
    entry("char", Area::Classes, Some(NUMERIC), "y = char(x);", ""),
    entry("cast", Area::Classes, Some(NUMERIC), "y = cast(x, 'int16') + cast(x, 'like', single(1));", "`cast(x, name)`, `cast(x, class(y))`, `cast(x, 'like', p)`: the conversion function of that class (`int16(x)`, ...); a complex prototype is not taken yet."),
    entry("class", Area::Classes, Some(NUMBERS), "if strcmp(class(x), 'double'), y = 1; else, y = 2; end", "A constant of the translation."),
    entry("deal", Area::Classes, None, "[y, z] = deal(n, 2);", "m2cu's own library: each input to its output, or one input to every output (up to four)."),
    entry("struct", Area::Classes, None, "p = struct('k', 2, 'm', n); y = p.k * p.m;", "A struct's fields are variables of their own (also `p.k = v`, nested `p.g.h`): name-value pairs with text names and values that are no cells; a struct travels whole field by field, passed to a function of the program, returned into a variable, copied or captured; one shown, returned by the translated function or replaced by a struct with other fields is not supported. Struct arrays of numbers and texts: `s(k).x = v`, `s(k).x`, `s(end+1) = t` of a struct `t`, `[s.x]`, `numel(s)`, `struct('x', {})` and `struct([])`, a variable per field; elements assigned in order."),
    entry("cell", Area::Text, None, "c = cell(1, 3); c{2} = 'ab'; c{end+1} = 'cde'; y = numel(c);", "A cell of empty texts, filled with `c{k} = text` (also from `c = {}` with `c{end+1} = text`); m2cu's cells hold texts only, and an element never assigned reads as a 1-by-0 text (MATLAB: `[]`)."),
    entry("isa", Area::Classes, Some(NUMBERS), "y = isa(x, 'float');", "Class names and the categories `'numeric'`, `'float'`, `'integer'`."),
    entry("islogical", Area::Classes, Some(NUMBERS), "y = islogical(x);", "Decided at translation time."),
    entry("isinteger", Area::Classes, Some(NUMBERS), "y = isinteger(x);", "Decided at translation time."),
    entry("isfloat", Area::Classes, Some(NUMBERS), "y = isfloat(x);", "Decided at translation time."),
    entry("isnumeric", Area::Classes, Some(NUMBERS), "y = isnumeric(x);", "Decided at translation time."),
    entry("ischar", Area::Classes, Some(NUMBERS), "y = ischar(x);", "Decided at translation time."),
    // Sizes and shapes.
    entry("size", Area::Sizes, Some(NUMBERS), "[r, c] = size(M); y = size(x, 2) + r + c;", "`size(A)`, `size(A, dim)`, `[m, n] = size(A)`."),
    entry("numel", Area::Sizes, Some(NUMBERS), "y = numel(x);", ""),
    entry("length", Area::Sizes, Some(NUMBERS), "y = length(M);", ""),
    entry("ndims", Area::Sizes, Some(NUMBERS), "y = ndims(M);", ""),
    entry("isempty", Area::Sizes, Some(NUMBERS), "y = isempty(x);", ""),
    entry("isscalar", Area::Sizes, Some(NUMBERS), "y = isscalar(x);", ""),
    entry("ismatrix", Area::Sizes, Some(NUMBERS), "y = ismatrix(M);", "m2cu's own library: `ndims(x) == 2`."),
    entry("isvector", Area::Sizes, Some(NUMBERS), "y = isvector(M);", ""),
    entry("isrow", Area::Sizes, Some(NUMBERS), "y = isrow(M);", ""),
    entry("iscolumn", Area::Sizes, Some(NUMBERS), "y = iscolumn(M);", ""),
    // Array builders.
    entry("logspace", Area::Builders, None, "y = logspace(0, 2, n);", "m2cu's own library: `10 .^ linspace(a, b, n)` as Octave; `b` of `pi` ends at pi."),
    entry("linspace", Area::Builders, None, "y = linspace(0, 1, n);", "Bit for bit Octave 7's formula."),
    entry("repmat", Area::Builders, Some(NUMBERS), "y = repmat(M, 2, n);", ""),
    entry("reshape", Area::Builders, Some(NUMBERS), "y = reshape(M, [], 2);", "Sizes or a size vector, one `[]`; up to 3-D."),
    entry("squeeze", Area::Builders, Some(NUMBERS), "y = squeeze(M);", ""),
    entry("cat", Area::Builders, Some(NUMBERS), "y = cat(1, x, x);", "Dimensions 1 and 2."),
    entry("horzcat", Area::Builders, Some(NUMBERS), "y = horzcat(x, x);", ""),
    entry("vertcat", Area::Builders, Some(NUMBERS), "y = vertcat(x, x);", ""),
    entry("meshgrid", Area::Builders, Some(NUMBERS), "[y, z] = meshgrid(x, x);", "m2cu's own library; two outputs, 2-D."),
    entry("ndgrid", Area::Builders, Some(NUMBERS), "[y, z] = ndgrid(x, x);", "m2cu's own library; two outputs, 2-D."),
    entry("diag", Area::Builders, Some(&[Double, Single, Integer, Logical]), "y = diag(x, 1) + diag(diag(M));", "A vector to a matrix with an offset, a matrix to its diagonal; an argument whose shape is known only at run time stops when MATLAB's result would have another shape."),
    entry("tril", Area::Builders, Some(NUMBERS), "y = tril(M, -1);", "m2cu's own library."),
    entry("triu", Area::Builders, Some(NUMBERS), "y = triu(M, 1);", "m2cu's own library."),
    entry("flip", Area::Builders, Some(NUMBERS), "y = flip(M, 2);", "m2cu's own library: along the first two dimensions."),
    entry("fliplr", Area::Builders, Some(NUMBERS), "y = fliplr(M);", ""),
    entry("flipud", Area::Builders, Some(NUMBERS), "y = flipud(M);", ""),
    entry("circshift", Area::Builders, Some(NUMBERS), "y = circshift(M, 2, 2);", "m2cu's own library; a shift and a dimension."),
    entry("rot90", Area::Builders, Some(NUMBERS), "y = rot90(M) + rot90(M, -1);", "m2cu's own library; k quarter turns counterclockwise, negative clockwise; 2-D."),
    entry("permute", Area::Builders, Some(NUMBERS), "y = permute(M, [2 1]);", "m2cu's own library; orders of 1:2 and 1:3 (a 3-D result, one element per iteration); the order is checked with Octave's messages."),
    entry("kron", Area::Builders, Some(&[Double, Single, Logical, Char, Complex]), "y = kron(M, M);", "m2cu's own library; integers refused (MATLAB keeps the class, Octave 7 returns double)."),
    // Reductions and scans.
    entry("sum", Area::Reductions, Some(REALS), "y = sum(M, 2) + sum(x);", "A parallel reduction; `dim`, `'all'`, `'omitnan'` (m2cu's own `m2cu_omitnan.m`), `'includenan'`, `'double'`; complex vectors. Integers refused without `'double'` (MATLAB keeps the class, Octave 7 returns double); `'native'` not yet."),
    entry("prod", Area::Reductions, Some(REALS), "y = prod(M);", "As `sum`."),
    entry("mean", Area::Reductions, Some(NUMERIC), "y = mean(M, 2);", "A parallel sum, then a division; `dim`, `'all'`, `'omitnan'`; complex vectors."),
    entry("max", Area::Reductions, Some(&[Double, Single, Integer, Complex]), "[y, i] = max(M, [], 2);", "NaN skipped, first index of ties; `max(a, b)` elementwise with implicit expansion (also of logical and char, not of complex); `[m, i] = max(A)` and `max(A, [], dim)` of any numeric array (complex too: by abs, then angle) through m2cu's own `m2cu_located.m`, a search per column or row; `max(A, [], 'all')`; `'omitnan'` (the default). Not yet: `'includenan'`, `[m, i]` with `'all'`."),
    entry("min", Area::Reductions, Some(&[Double, Single, Integer, Complex]), "[y, i] = min(M);", "As `max`."),
    entry("any", Area::Reductions, Some(NUMERIC), "y = any(M);", ""),
    entry("all", Area::Reductions, Some(NUMERIC), "y = all(x);", ""),
    entry("nnz", Area::Reductions, Some(NUMBERS), "y = nnz(M);", "A count reduction."),
    entry("cumsum", Area::Reductions, Some(&[Double, Single, Logical, Char, Complex]), "y = cumsum(M, 2);", "m2cu's own library; a real vector is a parallel scan on the GPU (within rounding of the ordered sums; in order, equal to the bit, below 2048 elements and on the CPU), a matrix a thread per column or row scanning in order; integers refused (MATLAB saturates, Octave 7 returns double)."),
    entry("cumprod", Area::Reductions, Some(&[Double, Single, Logical, Char, Complex]), "y = cumprod(x);", "As `cumsum`."),
    entry("cummax", Area::Reductions, Some(NUMBERS), "[y, i] = cummax(M, 2);", "m2cu's own library; NaN skipped, with indices; complex values by abs, then angle."),
    entry("cummin", Area::Reductions, Some(NUMBERS), "y = cummin(x);", "As `cummax`."),
    entry("trapz", Area::Reductions, Some(FLOATS), "y = trapz(x, x);", "m2cu's own library: vectors, with unit spacing, one spacing or the points; Octave's order of operations, the sum a reduction."),
    entry("cumtrapz", Area::Reductions, Some(FLOATS), "y = cumtrapz(x, x);", "m2cu's own library: vectors, as `trapz`, the running sum a scan."),
    entry("conv", Area::Reductions, Some(FLOATS), "y = conv(x, x, 'same');", "m2cu's own library: vectors, `'full'`, `'same'`, `'valid'`; each element summed in Octave's order, a thread per element; a 'full' result has the first vector's orientation."),
    entry("filter", Area::Reductions, Some(FLOATS), "y = filter([1 1] / 2, 1, x);", "m2cu's own library: a vector input from rest, Octave's direct form II transposed (coefficients divided by `a(1)`); sequential."),
    entry("diff", Area::Reductions, Some(NUMBERS), "y = diff(M, 1, 2);", "m2cu's own library; an order and a dimension; integers saturate."),
    entry("var", Area::Reductions, Some(&[Double, Single, Logical, Char, Complex]), "y = var(M, 1, 2);", "m2cu's own library, in Octave 7's order of sums; weights 0 and 1; integers refused."),
    entry("std", Area::Reductions, Some(&[Double, Single, Logical, Char, Complex]), "y = std(x);", "As `var`."),
    entry("median", Area::Reductions, Some(&[Double, Single, Integer, Logical]), "y = median(M, 2);", "m2cu's own library, on `sort`; NaN propagates."),
    entry("mode", Area::Reductions, Some(NUMBERS), "y = mode(x);", "m2cu's own library, on `sort`; the smallest of equally frequent values."),
    entry("norm", Area::Reductions, Some(FLOATS), "y = norm(x, 1) + norm(M, 'fro');", "Vectors: any p, Inf, -Inf, 'fro'; matrices: 1, Inf, 'fro' (the matrix 2-norm not yet)."),
    entry("dot", Area::Reductions, Some(FLOATS), "y = dot(x, x);", "Of two vectors; logical and char refused (Octave stops)."),
    entry("cross", Area::Reductions, Some(NUMBERS), "y = cross(M, M);", "m2cu's own library."),
    entry("trace", Area::Reductions, Some(REALS), "y = trace(M);", "As Octave 7 (a non-square matrix sums its diagonal)."),
    // Searching, sorting and sets.
    entry("find", Area::Searching, Some(NUMERIC), "y = find(x, n, 'last');", "With a count and `'first'`/`'last'`: a count reduction, then a compaction (without a count, a parallel stream compaction on the GPU)."),
    entry("sort", Area::Searching, Some(NUMBERS), "[y, i] = sort(M, 2, 'descend');", "m2cu's own library: a stable merge sort per line; NaN last (first descending); complex by magnitude, then angle."),
    entry("issorted", Area::Searching, Some(NUMERIC), "y = issorted(x);", "NaN sorts last, as Octave."),
    entry("nchoosek", Area::Searching, Some(NUMERIC), "y = nchoosek(x, 2);", "m2cu's own library: the k-element combinations of a vector, one per row, in Octave's order (a 1-by-0 array for k = 0, 0-by-k past `numel`); of a double scalar n the binomial coefficient, exact while its products stay below flintmax."),
    entry("sortrows", Area::Searching, Some(NUMERIC), "[y, i] = sortrows(M, [2 -1]);", "m2cu's own library: `sortrows(A)` and `sortrows(A, c)` with negative columns descending, and the row order `i`; stable, NaN last (first descending), as Octave."),
    entry("setdiff", Area::Searching, Some(NUMBERS), "[y, i] = setdiff(x, M);", "m2cu's own library: numeric (complex ones by magnitude, then angle), logical and char values, with `ia`; a row for a row `a`, a column otherwise; an empty `a` stops (MATLAB's and Octave's shapes differ); cells of texts not yet."),
    entry("union", Area::Searching, Some(NUMBERS), "[y, ia, ib] = union(x, M);", "m2cu's own library: numeric, logical and char values, with `ia` and `ib`; a row when both are rows; two empty sets stop; cells of texts not yet."),
    entry("intersect", Area::Searching, Some(NUMBERS), "[y, ia, ib] = intersect(x, M);", "m2cu's own library: numeric, logical and char values, with `ia` and `ib`; a row when both are rows; an empty set stops (Octave's `[]` is 0-by-0, MATLAB's 1-by-0 or 0-by-1); cells of texts not yet."),
    entry("unique", Area::Searching, Some(NUMBERS), "[y, ia, ic] = unique(x);", "m2cu's own library, with `ia` and `ic`; of a cell of texts, the distinct texts sorted by character codes (one output)."),
    entry("ismember", Area::Searching, Some(NUMBERS), "[y, loc] = ismember(x, x);", "m2cu's own library, with locations."),
    entry("interp1", Area::Searching, Some(FLOATS), "y = interp1(x, x, x);", "m2cu's own library: linear interpolation of vectors (x increasing or decreasing, distinct), NaN outside; each point's interval by bisection, a thread per point."),
    entry("histc", Area::Searching, Some(NUMERIC), "y = histc(x, [0 1 2]);", "m2cu's own library; sorted edges without NaN."),
    entry("histcounts", Area::Searching, Some(&[Double, Single, Integer, Logical, Char]), "[y, e] = histcounts(x, [0 1 2 5]);", "m2cu's own library; explicit sorted edges (the last bin closed), a row of counts and the edges; a number of bins (MATLAB's automatic edges) not yet."),
    entry("accumarray", Area::Searching, Some(&[Double, Single, Logical, Complex]), "y = accumarray([1; 2; 1], x(1:3)');", "m2cu's own library; a column of subscripts, scalar or vector values, a size; integer values refused (MATLAB saturates in the class, Octave 7 returns double)."),
    entry("isequal", Area::Searching, Some(NUMBERS), "y = isequal(M, M);", "m2cu's own library; of three or more values, each compared with the first."),
    entry("sub2ind", Area::Searching, Some(NUMERIC), "y = sub2ind([3 4], x, x);", "m2cu's own library; subscripts checked as MATLAB."),
    entry("ind2sub", Area::Searching, Some(NUMERIC), "[r, c] = ind2sub([3 4], x); y = r + c;", "m2cu's own library."),
    entry("isnan", Area::Searching, Some(NUMERIC), "y = isnan(x);", ""),
    entry("isinf", Area::Searching, Some(NUMERIC), "y = isinf(x);", ""),
    entry("isfinite", Area::Searching, Some(NUMERIC), "y = isfinite(x);", ""),
    // Matrix products.
    entry("mtimes", Area::Matrix, Some(&[Double, Single, Logical, Char, Complex]), "y = mtimes(M, M) + M * M;", "`A * B`, `A * x`, `x' * A`, `u' * v`: a 2-D kernel with a sum per output (a thread, a warp or a block per output, or 16-by-16 tiles of outputs with the factors in shared memory; on the C path, 32-by-16 tiles of outputs); the tiles, the thread kernel and the C path add each output's products in order, as the reference BLAS does; inner sizes checked with MATLAB's message. A complex operand (double): m2cu's own `m2cu_cmtimes.m`, a thread per element of the product summing in order, results real where Octave's are (no imaginary part); an Inf or NaN in a complex product stops the run (BLAS spreads them its own ways); complex single refused. No cuBLAS yet."),
    entry("mldivide", Area::Matrix, Some(REALS), "y = mldivide(M, M) + M \\ M;", "`A \\ b` for a square `A`, equal to Octave's to the bit with the reference LAPACK: triangular substitution, Cholesky for a symmetric `A` with a positive diagonal (LU where it is not positive definite), else LU with partial pivoting; a scalar `A` divides each element; an `A` with more rows than columns gives the least-squares solution by Householder QR (equal to Octave's SVD-based one to rounding). m2cu's own library; a singular `A` (MATLAB: Inf or NaN, Octave: least squares), a deficient rank, fewer rows than columns and Inf or NaN in `A` stop the run; no warning for an ill-conditioned `A` yet."),
    entry("mrdivide", Area::Matrix, Some(REALS), "y = mrdivide(M, M) + M / M;", "`b / A` as `(A.' \\ b.').'`, as `mldivide`."),
    entry("mpower", Area::Matrix, Some(REALS), "y = mpower(M, 2) + M ^ 3;", "`A ^ p`: a 1-by-1 `A` as a scalar power; a square matrix to a whole power by squaring (as Octave; its products agree with Octave's to rounding), a negative one through `inv`. m2cu's own library; a power that is not a whole number and a scalar to a matrix power stop the run."),
    entry("inv", Area::Matrix, Some(FLOATS), "y = inv(M);", "As Octave: `trtri` for a triangular matrix, else LU, `trtri` and `getri`; equal to Octave's to the bit up to 64 rows (LAPACK's blocks above), a symmetric positive definite matrix to rounding (Octave uses Cholesky). A singular matrix gives Inf with MATLAB's warning. m2cu's own library; no rcond warning yet."),
    entry("polyval", Area::Matrix, Some(FLOATS), "y = polyval(x, M);", "m2cu's own library: Horner's rule elementwise, as Octave."),
    entry("polyder", Area::Matrix, Some(FLOATS), "y = polyder(x);", "m2cu's own library: one input, a row, as Octave (`p(1:n-1) .* (n-1:-1:1)`; a constant gives 0, no coefficients `[]`); `polyder(a, b)` is not supported yet."),
    entry("polyint", Area::Matrix, Some(FLOATS), "y = polyint(x);", "m2cu's own library: a row `[p ./ (n:-1:1), k]` with the constant `k` (0 when not given), as Octave."),
    entry("polyfit", Area::Matrix, Some(FLOATS), "y = polyfit(x, x, 1);", "m2cu's own library: one output, a row; the Vandermonde system by m2cu's least squares (MATLAB's pivoted QR may differ in the last bits); a degree at least the number of points stops."),
    entry("det", Area::Matrix, Some(FLOATS), "y = det(M);", "As Octave: the diagonal's product for a triangular matrix, Cholesky for a positive definite one, else LU; the product scaled as Octave scales it. m2cu's own library."),
    // Text and output.
    entry("upper", Area::Text, Some(NUMERIC), "y = upper(x);", "Other classes unchanged."),
    entry("lower", Area::Text, Some(NUMERIC), "y = lower(x);", "Other classes unchanged."),
    entry("strcmp", Area::Text, None, "y = strcmp(s, 'abc');", "Also of a cell of texts and a text (either order): a logical array of the cell's size, as `strcmpi`, `strncmp` and `strncmpi`."),
    entry("strtrim", Area::Text, None, "y = strtrim(s);", "m2cu's own library: a char row; whitespace only stops (1-by-0 in MATLAB, 0-by-0 in Octave)."),
    entry("strrep", Area::Text, None, "y = strrep(s, 'ab', 'x');", "m2cu's own library: char rows; overlapping occurrences each replaced, as MATLAB and Octave do; a result with no characters stops (1-by-0 in MATLAB, 0-by-0 in Octave)."),
    entry("strsplit", Area::Text, None, "c = strsplit(s, ','); y = c{end};", "Into a cell of texts (`c{k}`, `numel(c)`, `strjoin`), assigned once outside loops and branches, as Octave 7.3 splits: whitespace by default, delimiters tried in the order given (a char or a cell of them, escapes such as `'\\t'` translated), `'CollapseDelimiters'`; empty pieces 1-by-0 as in MATLAB (Octave's are 0-by-0); a delimiter given when the program runs stops if it holds a backslash; regular expressions not yet."),
    entry("str2double", Area::Text, None, "y = str2double(s);", "m2cu's own library: a char row as Octave 7.3 reads it (blanks around, commas dropped, `Inf`, NaN for other text or a non-text value), correctly rounded for up to 15 significant digits within 22 powers of ten; a cell of texts (`str2double(strsplit(line, ','))`) gives an array. Longer numbers, complex ones (`'1+2i'`) and char matrices stop with m2cu's error."),
    entry("strcat", Area::Text, None, "y = strcat(s, '_', s);", "m2cu's own library: up to six char rows (or numbers, as their characters) side by side, the trailing whitespace of each removed first, as MATLAB and Octave do; cells and char matrices not yet."),
    entry("strfind", Area::Text, None, "y = numel(strfind(s, 'ab'));", "m2cu's own library: the starts of every match in a char row, overlapping ones too, as a row, or `[]` (0-by-0) when there is none; cells not yet."),
    entry("dec2bin", Area::Text, None, "y = dec2bin(n);", "m2cu's own library: a whole number from 0 to 2^53 as its binary digits, `dec2bin(d, len)` with zeros before; arrays (rows of text) not yet."),
    entry("dec2hex", Area::Text, None, "y = dec2hex(n, 4);", "m2cu's own library: as `dec2bin`, in upper-case hexadecimal digits."),
    entry("bin2dec", Area::Text, None, "y = bin2dec(s);", "m2cu's own library: the number a char row of binary digits writes, spaces skipped, NaN for any other character; char matrices not yet."),
    entry("hex2dec", Area::Text, None, "y = hex2dec(s);", "m2cu's own library: as `bin2dec`, for hexadecimal digits in either case."),
    entry("strjoin", Area::Text, None, "c = {'a', 'b'}; y = strjoin(c, s);", "Of a cell of texts (also `c(idx)`, `unique(c)` or `strsplit(...)` in the call), with one delimiter (escapes translated); a cell of delimiters not yet."),
    entry("mat2str", Area::Text, None, "y = mat2str(x);", "m2cu's own library: a real 2-D numeric or logical array as Octave 7.3 writes it (`%.15g`, or `mat2str(x, n)`); complex values and the 'class' argument are not supported yet."),
    entry("deblank", Area::Text, None, "y = deblank(s);", "m2cu's own library: a char row; trailing whitespace and nulls; blanks only stop (as `strtrim`)."),
    entry("strcmpi", Area::Text, None, "y = strcmpi(s, 'abc');", ""),
    entry("strncmp", Area::Text, None, "y = strncmp(s, 'abc', 2);", ""),
    entry("strncmpi", Area::Text, None, "y = strncmpi(s, 'abc', 2);", ""),
    entry("isspace", Area::Text, None, "y = isspace(s);", ""),
    entry("isletter", Area::Text, None, "y = isletter(s);", ""),
    entry("isstrprop", Area::Text, None, "y = isstrprop(s, 'digit');", "`'alpha'`, `'digit'`, `'alphanum'`, `'wspace'`, `'upper'`, `'lower'`, `'punct'`."),
    entry("blanks", Area::Text, None, "y = blanks(n);", "m2cu's own library: a char row of `n` spaces, checked as Octave; `blanks(0)` is 1-by-0 as in MATLAB (Octave 7: 0-by-0)."),
    entry("num2str", Area::Text, None, "y = num2str(n);", "Of a real scalar (Octave's digits: `%.Ng` by magnitude, NaN and Inf as words) and of a real double row (Octave's columns), as a char value or in printed text; `num2str(x, p)` with a literal precision (`%<p+7>.<p>g`, trimmed); `disp(num2str(A))` (also with a precision or a format) of a matrix shows Octave's rows of text. `num2str(x, format)` of a scalar or a row with a literal format (Octave's `strtrim(sprintf(format, x))`). The host formats it: a loop that keeps one is sequential."),
    entry("int2str", Area::Text, None, "y = int2str(n);", "Of a scalar, rounded half away from zero; as a char value or in printed text."),
    entry("sprintf", Area::Text, None, "y = sprintf('%d;', n);", "A literal format with `%d %i %u %f %e %g %E %G %c %s`, flags, width and precision, recycled over the elements of its values as `fprintf` does, or a format made when the program runs (a char variable, `[repmat('%g ', 1, n) '\\n']`), parsed on the host as Octave does (also `%o %x %X`, `*` widths, octal and hex escapes); a char value (a 1-by-n row, formatted on the host: a loop that keeps one is sequential) or the message of `error`, `warning`, `assert` or `disp`."),
    entry("fprintf", Area::Text, None, "y = n; fprintf('%5.2f %s\\n', n, s);", "To standard output; MATLAB's recycling of the format, which may be made when the program runs (as `sprintf`'s)."),
    entry("tic", Area::Text, None, "tic; y = n * 2; t0 = tic; e = toc(t0);", "The host's wall clock: `tic` starts the program's timer, `id = tic` gives microseconds since 1970 as uint64; a loop that reads the clock stays sequential."),
    entry("toc", Area::Text, None, "tic; y = n * 2; t = toc;", "Seconds since `tic` (or `toc(id)`); as a statement, Octave's `Elapsed time is <%g> seconds.`"),
    entry("disp", Area::Text, None, "y = n; disp(n); disp(s); disp([n n]);", "Octave's `format short`; a real 2-D array as Octave lays it out (whole numbers, fixed point or `%.4e` for all its columns, chunks of 80 characters under `Columns A through B:`), a char matrix row by row; complex and 3-D arrays not yet, nor an element shown with a three-digit exponent (the run stops)."),
    // Errors and arguments.
    entry("error", Area::Errors, None, "y = n; if n < 0, error('example:negative', 'n is %d', n); end", "Stops the run with the message and identifier, on every backend."),
    entry("warning", Area::Errors, None, "y = n; warning('n is %d', n);", ""),
    entry("assert", Area::Errors, None, "y = n; assert(n > 0, 'n must be positive');", ""),
    entry("narginchk", Area::Errors, None, "y = n; narginchk(1, 4);", ""),
    entry("nargin", Area::Errors, None, "y = nargin;", "A constant of the translation (`--nargin`)."),
    entry("nargout", Area::Errors, None, "y = nargout;", "A constant of the translation."),
    entry("exist", Area::Errors, None, "y = exist('n', 'var');", "`exist('name', 'var')`, decided at translation time."),
    // Function handles.
    entry("feval", Area::Handles, None, "f = @(t) t + 1; y = feval(f, n);", "Of a handle or a function name."),
    entry("arrayfun", Area::Handles, None, "y = arrayfun(@(t) t^2, x);", "Uniform output."),
    entry("cellfun", Area::Handles, None, "c = strsplit('ab c def'); y = cellfun(@length, c);", "Of a cell of texts, with a handle or a function's name as text (`cellfun('isempty', c)`), one scalar per text: an array of the cell's size and the results' class; `'UniformOutput', false` (a cell result) is not supported."),
    // GPU Coder and MATLAB Coder.
    entry("gpucoder.reduce", Area::GpuCoder, None, "y = gpucoder.reduce(x, @helper);\nend\nfunction c = helper(a, b)\n  c = a + b;", "Handles to functions of the program or its path and to builtins of two inputs (`@min`, `@max`, `@bitor`, `@hypot`), anonymous functions of the two inputs that may capture scalar variables (`@(a, b) min(max(a, b), cap)`; not arrays), handles held in variables, several at once in a cell, `'preprocess', P` (any handle, applied to each element first), `'dim', 1` or `2` (each column or row folded on its own, a thread per line) and one output per function (`[lo, hi] = gpucoder.reduce(x, {@min, @max})`)."),
    entry("gpucoder.stencilKernel", Area::GpuCoder, None, "y = gpucoder.stencilKernel(@(w) max(w(:)), x, [3 3], 'same');", "`B = gpucoder.stencilKernel(@f, A, [M N], shape, p1, ...)`: `f(window, p1, ...)` for every M-by-N window of the matrix `A`; `'valid'` takes the windows inside `A`, `'same'` (odd M and N) centres one on every element, reading zeros past the edges. `B` has the class of `f`'s values."),
    entry("gpucoder.atomicAdd", Area::GpuCoder, Some(NUMBERS), "y = 0 * x(1);\nfor k = 1:numel(x)\n  [y, ~] = gpucoder.atomicAdd(y, x(k));\nend", "`[A, oldA] = gpucoder.atomicAdd(A, B)`: MATLAB's `A + B` (a loop of them is a sum reduction or a histogram, which kernels combine atomically by themselves); `oldA` is `A` before."),
    entry("gpucoder.atomicSub", Area::GpuCoder, Some(NUMBERS), "y = 0 * x(1);\nfor k = 1:numel(x)\n  [y, ~] = gpucoder.atomicSub(y, x(k));\nend", "`A - B`, as `gpucoder.atomicAdd`."),
    entry("gpucoder.atomicMin", Area::GpuCoder, Some(&[Double, Single, Integer]), "y = x(1);\nfor k = 1:numel(x)\n  y = gpucoder.atomicMin(y, x(k));\nend", "MATLAB's `min(A, B)` (NaN skipped), as `gpucoder.atomicAdd`."),
    entry("gpucoder.atomicMax", Area::GpuCoder, Some(&[Double, Single, Integer]), "y = x(1);\nfor k = 1:numel(x)\n  y = gpucoder.atomicMax(y, x(k));\nend", "MATLAB's `max(A, B)` (NaN skipped), as `gpucoder.atomicAdd`."),
    entry("gpucoder.atomicAnd", Area::GpuCoder, Some(&[Double, Single, Integer]), "y = x(1);\nfor k = 1:numel(x)\n  y = gpucoder.atomicAnd(y, x(k));\nend", "`bitand(A, B)`, as `gpucoder.atomicAdd`."),
    entry("gpucoder.atomicOr", Area::GpuCoder, Some(&[Double, Single, Integer]), "y = x(1);\nfor k = 1:numel(x)\n  y = gpucoder.atomicOr(y, x(k));\nend", "`bitor(A, B)`, as `gpucoder.atomicAdd`."),
    entry("gpucoder.atomicXor", Area::GpuCoder, Some(&[Double, Single, Integer]), "y = x(1);\nfor k = 1:numel(x)\n  y = gpucoder.atomicXor(y, x(k));\nend", "`bitxor(A, B)`, as `gpucoder.atomicAdd`."),
    entry("gpucoder.atomicExch", Area::GpuCoder, None, "y = x;\n[y, old] = gpucoder.atomicExch(y, x);", "`B`; `oldA` is `A` before."),
    entry("gpucoder.sort", Area::GpuCoder, Some(NUMBERS), "[y, k] = gpucoder.sort(x, 2, 'descend');", "MATLAB's `sort` (m2cu's own library), with indices, a dimension and a direction."),
    entry("coder.gpu.kernel", Area::GpuCoder, None, "y = x;\ncoder.gpu.kernel;\nfor k = 1:numel(x), y(k) = 2 * x(k); end", "Before a loop: make it a kernel (refused with the reason where it is not parallel)."),
    entry("coder.gpu.nokernel", Area::GpuCoder, None, "y = x;\ncoder.gpu.nokernel;\nfor k = 1:numel(x), y(k) = 2 * x(k); end", "Before a loop: keep it on the host."),
    entry("coder.gpu.constantMemory", Area::GpuCoder, None, "coder.gpu.constantMemory(x);\ny = 2 * x;", "An input in constant memory."),
    entry("coder.gpu.kernelfun", Area::GpuCoder, None, "coder.gpu.kernelfun;\ny = x;", "Accepted: every translated function is a GPU entry."),
    entry("coder.gpu.iterations", Area::GpuCoder, None, "y = x;\ncoder.gpu.iterations(100);\nfor k = 1:numel(x), y(k) = 2 * x(k); end", "Accepted: a trip-count hint m2cu does not need (grids follow the bounds at run time)."),
    entry("coder.inline", Area::GpuCoder, None, "coder.inline('always');\ny = x;", "Accepted: every call is inlined."),
];

/// The entry named `name`.
pub fn find(name: &str) -> Option<&'static Function> {
    FUNCTIONS.iter().find(|f| f.name == name)
}

/// The classes column of `f`.
pub fn classes_text(f: &Function) -> String {
    match f.classes {
        Some(kinds) => kinds
            .iter()
            .map(|k| k.word())
            .collect::<Vec<_>>()
            .join(", "),
        None => "—".to_string(),
    }
}

/// One entry as `m2cu functions NAME` prints it.
pub fn describe(f: &Function) -> String {
    let mut out = format!(
        "{} ({})\n  classes: {}\n",
        f.name,
        f.area.title(),
        classes_text(f)
    );
    if !f.notes.is_empty() {
        let _ = writeln!(out, "  {}", f.notes);
    }
    let _ = writeln!(out, "  example:");
    for line in f.example.lines() {
        let _ = writeln!(out, "    {line}");
    }
    out
}

/// `docs/FUNCTIONS.md`: every entry, by area.
pub fn markdown() -> String {
    let mut out = String::from(
        "# Functions m2cu translates\n\n\
         Generated from `frontend/src/catalog.rs` by `m2cu functions --markdown`; \
         `tests/functions.rs` checks that this file is its output, that the table names exactly \
         the functions m2cu translates, and that each example translates for the classes listed \
         and is refused for the others (integers are tried as `int32`, complex as complex \
         double). Each function works on the C path and in kernels, and its fixtures equal GNU \
         Octave. Functions marked \"m2cu's own library\" are MATLAB files built into m2cu \
         (`frontend/lib`); a function of the same name in your program or on its path wins.\n\n\
         `m2cu functions NAME` prints one entry. A MATLAB function that is not here gets \
         \"`NAME` is a MATLAB function that m2cu does not support yet\" (E0167) with the nearest \
         way to write it where there is one.\n",
    );
    for area in Area::ALL {
        let _ = write!(
            out,
            "\n## {}\n\n| Function | Classes | Notes |\n|---|---|---|\n",
            area.title()
        );
        for f in FUNCTIONS.iter().filter(|f| f.area == area) {
            let _ = writeln!(
                out,
                "| `{}` | {} | {} |",
                f.name,
                classes_text(f),
                f.notes.replace('|', "\\|")
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The table names exactly the functions lowering translates, each once.
    #[test]
    fn the_table_lists_exactly_the_translated_functions() {
        let mut listed: Vec<&str> = FUNCTIONS.iter().map(|f| f.name).collect();
        listed.sort_unstable();
        let before = listed.len();
        listed.dedup();
        assert_eq!(before, listed.len(), "a function is listed twice");
        let translated = crate::lower::translated_functions();
        let missing: Vec<_> = translated.iter().filter(|n| !listed.contains(n)).collect();
        let extra: Vec<_> = listed.iter().filter(|n| !translated.contains(n)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "not in catalog::FUNCTIONS: {missing:?}; listed but not translated: {extra:?}"
        );
    }

    /// Every area has functions, and every markdown row is one function.
    #[test]
    fn the_markdown_has_a_row_per_function() {
        let text = markdown();
        for area in Area::ALL {
            assert!(
                FUNCTIONS.iter().any(|f| f.area == area),
                "{area:?} is empty"
            );
        }
        let rows = text.lines().filter(|l| l.starts_with("| `")).count();
        assert_eq!(rows, FUNCTIONS.len());
    }
}
