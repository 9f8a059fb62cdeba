//! The names generated code must not give a MATLAB local or entry function: the keywords of
//! C99/C11/C23 and C++20 (alternative tokens included), CUDA's built-ins, the identifiers of the C
//! library headers the outputs include, every macro those compilers define
//! (`reserved_macros.txt`), and the prefixes that belong to the implementation or to m2cu.
//!
//! Invariant: [`is_reserved`] is true of every name that could change meaning or fail to compile
//! when declared as a local or defined as an exported function in any output (the C program, the
//! GPU host programs, the NVRTC kernels, the emulator's C++ build, the standalone `.cu`); the
//! namer ([`crate::names`]) renames such names. [`reserved_prefix`] is kept apart because a
//! suffix cannot clear a name of a prefix.

use std::collections::HashSet;
use std::sync::OnceLock;

/// C99, C11 and C23 keywords and the `<stdbool.h>` spellings.
#[rustfmt::skip]
pub const C_KEYWORDS: &[&str] = &[
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else",
    "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long", "register",
    "restrict", "return", "short", "signed", "sizeof", "static", "struct", "switch", "typedef",
    "union", "unsigned", "void", "volatile", "while", "_Bool", "_Complex", "_Imaginary",
    "_Alignas", "_Alignof", "_Atomic", "_Generic", "_Noreturn", "_Static_assert",
    "_Thread_local", "_BitInt", "_Decimal32", "_Decimal64", "_Decimal128", "alignas", "alignof",
    "bool", "constexpr", "false", "nullptr", "static_assert", "thread_local", "true", "typeof",
    "typeof_unqual", "complex", "imaginary", "noreturn",
];

/// C++20 keywords, alternative tokens and identifiers with a special meaning (the emulator builds
/// the kernels as C++20, NVRTC and nvcc as CUDA C++).
#[rustfmt::skip]
pub const CPP_KEYWORDS: &[&str] = &[
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break",
    "case", "catch", "char", "char8_t", "char16_t", "char32_t", "class", "compl", "concept",
    "const", "consteval", "constexpr", "constinit", "const_cast", "continue", "co_await",
    "co_return", "co_yield", "decltype", "default", "delete", "do", "double", "dynamic_cast",
    "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto",
    "if", "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq",
    "nullptr", "operator", "or", "or_eq", "private", "protected", "public", "register",
    "reinterpret_cast", "requires", "return", "short", "signed", "sizeof", "static",
    "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local",
    "throw", "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using",
    "virtual", "void", "volatile", "wchar_t", "while", "xor", "xor_eq", "final", "override",
    "import", "module", "std", "main",
];

/// CUDA built-in variables, types and device functions that kernels see without an include.
#[rustfmt::skip]
pub const CUDA_NAMES: &[&str] = &[
    "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "dim3", "atomicAdd",
    "atomicSub", "atomicExch", "atomicMin", "atomicMax", "atomicInc", "atomicDec", "atomicCAS",
    "atomicAnd", "atomicOr", "atomicXor", "atomicAdd_block", "atomicAdd_system",
    "atomicCAS_block", "atomicCAS_system", "clock", "clock64", "min", "max", "umin", "umax",
    "llmin", "llmax", "ullmin", "ullmax", "rsqrt", "rsqrtf", "rcbrt", "rcbrtf", "sinpi",
    "sinpif", "cospi", "cospif", "sincos", "sincosf", "sincospi", "sincospif", "exp10",
    "exp10f", "normcdf", "normcdff", "normcdfinv", "normcdfinvf", "erfinv", "erfinvf", "erfcinv",
    "erfcinvf", "erfcx", "erfcxf", "norm", "normf", "norm3d", "norm3df", "norm4d", "norm4df",
    "rnorm", "rnormf", "rhypot", "rhypotf", "cyl_bessel_i0", "cyl_bessel_i1", "saturate",
    "mul24", "umul24", "mulhi", "umulhi", "mul64hi", "umul64hi", "brev", "clz", "popc", "ffs",
    "signbit", "half", "nv_bfloat16", "cooperative_groups", "nvcuda", "cudaError_t",
    "cudaStream_t", "cudaEvent_t",
];

/// Identifiers of the C library headers the outputs include (`<stdio.h>`, `<stdlib.h>`,
/// `<math.h>`, `<stdint.h>`, `<stdbool.h>`, `<string.h>`, and what they bring along), functions
/// and types; their macros are in `reserved_macros.txt`.
#[rustfmt::skip]
pub const C_LIBRARY: &[&str] = &[
    // <stdio.h>
    "FILE", "fpos_t", "remove", "rename", "tmpfile", "tmpnam", "fclose", "fflush", "fopen",
    "freopen", "setbuf", "setvbuf", "fprintf", "fscanf", "printf", "scanf", "snprintf",
    "sprintf", "sscanf", "vfprintf", "vfscanf", "vprintf", "vscanf", "vsnprintf", "vsprintf",
    "vsscanf", "fgetc", "fgets", "fputc", "fputs", "getc", "getchar", "gets", "putc", "putchar",
    "puts", "ungetc", "fread", "fwrite", "fgetpos", "fseek", "fsetpos", "ftell", "rewind",
    "clearerr", "feof", "ferror", "perror", "fileno", "popen", "pclose", "getline", "getdelim",
    "dprintf", "fdopen", "fmemopen", "open_memstream", "tempnam", "fseeko", "ftello",
    // <stdlib.h>
    "div_t", "ldiv_t", "lldiv_t", "size_t", "wchar_t", "atof", "atoi", "atol", "atoll", "strtod",
    "strtof", "strtold", "strtol", "strtoll", "strtoul", "strtoull", "rand", "srand",
    "aligned_alloc", "calloc", "free", "malloc", "realloc", "abort", "atexit", "at_quick_exit",
    "exit", "quick_exit", "getenv", "system", "bsearch", "qsort", "abs", "labs", "llabs", "div",
    "ldiv", "lldiv", "mblen", "mbtowc", "wctomb", "mbstowcs", "wcstombs", "random", "srandom",
    "drand48", "erand48", "lrand48", "nrand48", "mrand48", "jrand48", "srand48", "seed48",
    "lcong48", "setenv", "unsetenv", "putenv", "mkstemp", "mkdtemp", "realpath",
    "posix_memalign",
    // <math.h>
    "float_t", "double_t", "acos", "asin", "atan", "atan2", "cos", "sin", "tan", "acosh", "asinh",
    "atanh", "cosh", "sinh", "tanh", "exp", "exp2", "expm1", "frexp", "ilogb", "ldexp", "log",
    "log10", "log1p", "log2", "logb", "modf", "scalbn", "scalbln", "cbrt", "fabs", "hypot",
    "pow", "sqrt", "erf", "erfc", "lgamma", "tgamma", "ceil", "floor", "nearbyint", "rint",
    "lrint", "llrint", "round", "lround", "llround", "trunc", "fmod", "remainder", "remquo",
    "copysign", "nan", "nextafter", "nexttoward", "fdim", "fmax", "fmin", "fma", "j0", "j1",
    "jn", "y0", "y1", "yn", "gamma", "drem", "finite", "significand", "scalb", "signgam",
    "pow10",
    // <stdint.h> and <stddef.h>
    "int8_t", "int16_t", "int32_t", "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t",
    "int_least8_t", "int_least16_t", "int_least32_t", "int_least64_t", "uint_least8_t",
    "uint_least16_t", "uint_least32_t", "uint_least64_t", "int_fast8_t", "int_fast16_t",
    "int_fast32_t", "int_fast64_t", "uint_fast8_t", "uint_fast16_t", "uint_fast32_t",
    "uint_fast64_t", "intptr_t", "uintptr_t", "intmax_t", "uintmax_t", "ptrdiff_t",
    "max_align_t", "ssize_t", "off_t",
    // <string.h>
    "memcpy", "memmove", "memset", "memcmp", "memchr", "strcpy", "strncpy", "strcat", "strncat",
    "strcmp", "strncmp", "strcoll", "strxfrm", "strchr", "strrchr", "strspn", "strcspn",
    "strpbrk", "strstr", "strtok", "strerror", "strlen", "strdup", "strndup", "stpcpy",
    "strnlen", "strtok_r", "strsep", "strsignal", "bzero", "bcopy", "bcmp", "index", "rindex",
    "strcasecmp", "strncasecmp", "memccpy", "mempcpy", "memmem", "memrchr", "basename",
    // the macros of every compiler, whatever the headers
    "assert", "errno",
];

/// Vector types of CUDA (`float2`, `make_float2`, ...): the base names, with 1 to 4 lanes.
#[rustfmt::skip]
const CUDA_VECTOR_BASES: &[&str] = &[
    "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "longlong", "ulonglong",
    "float", "double",
];

/// Every macro the compilers of the outputs define (see the file's header).
const MACROS: &str = include_str!("reserved_macros.txt");

/// Prefixes no MATLAB name may keep: m2cu's own names (`m2cu_*`, `M2CU_*`, in any case), the
/// CUDA runtime API (`cuda*`), and the implementation's (`__*`, `_X*`).
pub fn reserved_prefix(name: &str) -> bool {
    let bytes = name.as_bytes();
    name.get(..4)
        .is_some_and(|p| p.eq_ignore_ascii_case("m2cu"))
        || name.starts_with("cuda")
        || name.starts_with("__")
        || (bytes.first() == Some(&b'_') && bytes.get(1).is_some_and(u8::is_ascii_uppercase))
}

/// Whether `name` is a reserved word or macro, or starts with a reserved prefix.
pub fn is_reserved(name: &str) -> bool {
    reserved_prefix(name) || words().contains(name)
}

fn words() -> &'static HashSet<String> {
    static WORDS: OnceLock<HashSet<String>> = OnceLock::new();
    WORDS.get_or_init(|| {
        let lists = [C_KEYWORDS, CPP_KEYWORDS, CUDA_NAMES, C_LIBRARY];
        let vectors = CUDA_VECTOR_BASES
            .iter()
            .flat_map(|b| (1..=4).flat_map(move |n| [format!("{b}{n}"), format!("make_{b}{n}")]));
        let macros = MACROS
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(str::trim)
            .filter(|l| !l.is_empty());
        lists
            .iter()
            .flat_map(|l| l.iter().copied())
            .chain(macros)
            .map(String::from)
            .chain(vectors)
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_reserved(names: &[&str]) {
        for name in names {
            assert!(is_reserved(name), "{name} is not reserved");
        }
    }

    #[test]
    fn c_keywords_are_reserved() {
        all_reserved(&[
            "int", "double", "restrict", "_Bool", "_Alignas", "typeof", "true",
        ]);
    }

    #[test]
    fn cpp_keywords_and_alternative_tokens_are_reserved() {
        all_reserved(&[
            "and", "and_eq", "bitand", "bitor", "compl", "not", "not_eq", "or", "or_eq", "xor",
            "xor_eq", "co_await", "concept", "requires", "class", "new", "this",
        ]);
    }

    #[test]
    fn cuda_names_are_reserved() {
        all_reserved(&[
            "threadIdx",
            "warpSize",
            "atomicAdd",
            "atomicCAS",
            "dim3",
            "float2",
            "make_int4",
            "min",
            "max",
            "cudaMalloc",
        ]);
    }

    #[test]
    fn c_library_names_and_macros_are_reserved() {
        all_reserved(&[
            "EOF",
            "RAND_MAX",
            "INT64_MAX",
            "INT8_MIN",
            "UINT64_C",
            "stdout",
            "stderr",
            "printf",
            "fputs",
            "exit",
            "abs",
            "round",
            "nan",
            "NAN",
            "INFINITY",
            "memcpy",
            "malloc",
            "errno",
            "offsetof",
            "SIZE_MAX",
        ]);
    }

    #[test]
    fn m2cu_and_implementation_prefixes_are_reserved() {
        all_reserved(&[
            "m2cu",
            "m2cu_x",
            "M2CU_FN",
            "M2CU_E_INDEX",
            "M2cu_y",
            "__x",
            "_T",
        ]);
    }

    #[test]
    fn ordinary_names_are_free() {
        for name in [
            "x", "A", "total", "N", "int_1", "m2", "acc", "I", "i", "j", "k",
        ] {
            assert!(!is_reserved(name), "{name} is reserved");
        }
    }
}
