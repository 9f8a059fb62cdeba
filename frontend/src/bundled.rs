//! m2cu's own MATLAB library: functions that m2cu translates from MATLAB source of its own
//! (`frontend/lib/NAME.m`, built into the binary), as Octave ships much of its library as
//! `.m` files. A call to one inlines like a call to the user's own function file, so the
//! function gets the C path, kernels, the emulator and the loop report at once.
//!
//! Invariants:
//! - a bundled function is found only when no function of the program and no `NAME.m` along
//!   the search path has its name ([`crate::library::Library::load`] asks the caller's `find`
//!   first), so a user's `sort.m` wins, as on MATLAB's path;
//! - no bundled name is a function that lowering translates by itself (a test checks), so
//!   loading one never shadows a builtin;
//! - diagnostics inside a bundled file name it [`DISPLAY_PREFIX`]`NAME.m`;
//! - a bundled function that stops at run time for a limit of m2cu (not a MATLAB error) says
//!   so with a message that starts with `m2cu: ` (identifier `m2cu:NAME`), which the
//!   adversarial test counts among m2cu's limits.

/// What a bundled file's name starts with in diagnostics and the loop report.
pub const DISPLAY_PREFIX: &str = "<m2cu>/";

/// The bundled functions, by name, with their MATLAB source.
const FILES: &[(&str, &str)] = &[
    ("sort", include_str!("../lib/sort.m")),
    ("cumsum", include_str!("../lib/cumsum.m")),
    ("cumprod", include_str!("../lib/cumprod.m")),
    ("m2cu_cumulate", include_str!("../lib/m2cu_cumulate.m")),
    ("diff", include_str!("../lib/diff.m")),
    ("cummax", include_str!("../lib/cummax.m")),
    ("cummin", include_str!("../lib/cummin.m")),
    ("m2cu_cumextreme", include_str!("../lib/m2cu_cumextreme.m")),
    ("m2cu_replaces", include_str!("../lib/m2cu_replaces.m")),
    ("m2cu_located", include_str!("../lib/m2cu_located.m")),
    ("m2cu_omitnan", include_str!("../lib/m2cu_omitnan.m")),
    ("var", include_str!("../lib/var.m")),
    ("std", include_str!("../lib/std.m")),
    ("median", include_str!("../lib/median.m")),
    ("mode", include_str!("../lib/mode.m")),
    ("tril", include_str!("../lib/tril.m")),
    ("triu", include_str!("../lib/triu.m")),
    ("m2cu_triangle", include_str!("../lib/m2cu_triangle.m")),
    ("meshgrid", include_str!("../lib/meshgrid.m")),
    ("ndgrid", include_str!("../lib/ndgrid.m")),
    ("circshift", include_str!("../lib/circshift.m")),
    ("sub2ind", include_str!("../lib/sub2ind.m")),
    ("ind2sub", include_str!("../lib/ind2sub.m")),
    ("isequal", include_str!("../lib/isequal.m")),
    ("nextpow2", include_str!("../lib/nextpow2.m")),
    ("blanks", include_str!("../lib/blanks.m")),
    ("m2cu_cmtimes", include_str!("../lib/m2cu_cmtimes.m")),
    ("m2cu_strsplit", include_str!("../lib/m2cu_strsplit.m")),
    ("m2cu_strjoin", include_str!("../lib/m2cu_strjoin.m")),
    (
        "m2cu_cell_unique",
        include_str!("../lib/m2cu_cell_unique.m"),
    ),
    (
        "m2cu_cell_joined",
        include_str!("../lib/m2cu_cell_joined.m"),
    ),
    (
        "m2cu_num2str_rows",
        include_str!("../lib/m2cu_num2str_rows.m"),
    ),
    ("str2double", include_str!("../lib/str2double.m")),
    ("strcat", include_str!("../lib/strcat.m")),
    ("strfind", include_str!("../lib/strfind.m")),
    ("dec2bin", include_str!("../lib/dec2bin.m")),
    ("dec2hex", include_str!("../lib/dec2hex.m")),
    ("m2cu_digits", include_str!("../lib/m2cu_digits.m")),
    ("bin2dec", include_str!("../lib/bin2dec.m")),
    ("hex2dec", include_str!("../lib/hex2dec.m")),
    ("m2cu_undigits", include_str!("../lib/m2cu_undigits.m")),
    ("deal", include_str!("../lib/deal.m")),
    (
        "m2cu_str2double_cell",
        include_str!("../lib/m2cu_str2double_cell.m"),
    ),
    ("factorial", include_str!("../lib/factorial.m")),
    ("asind", include_str!("../lib/asind.m")),
    ("acosd", include_str!("../lib/acosd.m")),
    ("atand", include_str!("../lib/atand.m")),
    ("atan2d", include_str!("../lib/atan2d.m")),
    ("plus", include_str!("../lib/plus.m")),
    ("minus", include_str!("../lib/minus.m")),
    ("times", include_str!("../lib/times.m")),
    ("rdivide", include_str!("../lib/rdivide.m")),
    ("ldivide", include_str!("../lib/ldivide.m")),
    ("mtimes", include_str!("../lib/mtimes.m")),
    ("eq", include_str!("../lib/eq.m")),
    ("ne", include_str!("../lib/ne.m")),
    ("lt", include_str!("../lib/lt.m")),
    ("le", include_str!("../lib/le.m")),
    ("gt", include_str!("../lib/gt.m")),
    ("ge", include_str!("../lib/ge.m")),
    ("and", include_str!("../lib/and.m")),
    ("or", include_str!("../lib/or.m")),
    ("not", include_str!("../lib/not.m")),
    ("uminus", include_str!("../lib/uminus.m")),
    ("uplus", include_str!("../lib/uplus.m")),
    ("power", include_str!("../lib/power.m")),
    ("realpow", include_str!("../lib/realpow.m")),
    ("colon", include_str!("../lib/colon.m")),
    ("transpose", include_str!("../lib/transpose.m")),
    ("ctranspose", include_str!("../lib/ctranspose.m")),
    ("ismember", include_str!("../lib/ismember.m")),
    ("unique", include_str!("../lib/unique.m")),
    ("sortrows", include_str!("../lib/sortrows.m")),
    ("gammainc", include_str!("../lib/gammainc.m")),
    ("nchoosek", include_str!("../lib/nchoosek.m")),
    ("setdiff", include_str!("../lib/setdiff.m")),
    ("union", include_str!("../lib/union.m")),
    ("intersect", include_str!("../lib/intersect.m")),
    ("accumarray", include_str!("../lib/accumarray.m")),
    ("histc", include_str!("../lib/histc.m")),
    ("histcounts", include_str!("../lib/histcounts.m")),
    ("m2cu_bin", include_str!("../lib/m2cu_bin.m")),
    ("cross", include_str!("../lib/cross.m")),
    ("kron", include_str!("../lib/kron.m")),
    ("randi", include_str!("../lib/randi.m")),
    ("rot90", include_str!("../lib/rot90.m")),
    ("idivide", include_str!("../lib/idivide.m")),
    ("permute", include_str!("../lib/permute.m")),
    ("mldivide", include_str!("../lib/mldivide.m")),
    ("mrdivide", include_str!("../lib/mrdivide.m")),
    ("det", include_str!("../lib/det.m")),
    ("m2cu_solve", include_str!("../lib/m2cu_solve.m")),
    (
        "m2cu_solve_operands",
        include_str!("../lib/m2cu_solve_operands.m"),
    ),
    (
        "m2cu_matrix_kind",
        include_str!("../lib/m2cu_matrix_kind.m"),
    ),
    ("m2cu_lu", include_str!("../lib/m2cu_lu.m")),
    ("m2cu_cholesky", include_str!("../lib/m2cu_cholesky.m")),
    ("trapz", include_str!("../lib/trapz.m")),
    ("cumtrapz", include_str!("../lib/cumtrapz.m")),
    ("m2cu_cell_map", include_str!("../lib/m2cu_cell_map.m")),
    ("m2cu_cat_pages", include_str!("../lib/m2cu_cat_pages.m")),
    ("m2cu_map_texts", include_str!("../lib/m2cu_map_texts.m")),
    (
        "m2cu_cell_map_with",
        include_str!("../lib/m2cu_cell_map_with.m"),
    ),
    ("polyval", include_str!("../lib/polyval.m")),
    ("polyfit", include_str!("../lib/polyfit.m")),
    ("polyder", include_str!("../lib/polyder.m")),
    ("polyint", include_str!("../lib/polyint.m")),
    ("conv", include_str!("../lib/conv.m")),
    ("filter", include_str!("../lib/filter.m")),
    ("interp1", include_str!("../lib/interp1.m")),
    ("strtrim", include_str!("../lib/strtrim.m")),
    ("strrep", include_str!("../lib/strrep.m")),
    ("mat2str", include_str!("../lib/mat2str.m")),
    ("deblank", include_str!("../lib/deblank.m")),
    ("gcd", include_str!("../lib/gcd.m")),
    ("lcm", include_str!("../lib/lcm.m")),
    ("primes", include_str!("../lib/primes.m")),
    ("isprime", include_str!("../lib/isprime.m")),
    ("m2cu_find", include_str!("../lib/m2cu_find.m")),
    ("flip", include_str!("../lib/flip.m")),
    ("logspace", include_str!("../lib/logspace.m")),
    ("ismatrix", include_str!("../lib/ismatrix.m")),
    ("magic", include_str!("../lib/magic.m")),
    (
        "m2cu_finite_matrix",
        include_str!("../lib/m2cu_finite_matrix.m"),
    ),
    (
        "m2cu_least_squares",
        include_str!("../lib/m2cu_least_squares.m"),
    ),
    ("inv", include_str!("../lib/inv.m")),
    ("mpower", include_str!("../lib/mpower.m")),
    ("m2cu_min", include_str!("../lib/m2cu_min.m")),
    ("m2cu_max", include_str!("../lib/m2cu_max.m")),
    (
        "m2cu_square_matrix",
        include_str!("../lib/m2cu_square_matrix.m"),
    ),
];

/// Bundled helpers that lowering calls for a builtin (`[m, k] = max(A, [], 2)` inlines
/// `m2cu_located`, `sum(x, 'omitnan')` `m2cu_omitnan`, `gpucoder.reduce(A, @min)` folds with
/// `m2cu_min`): where a program names the builtin, the library loads the helper too.
const HELPERS_OF_BUILTINS: &[(&str, &str)] = &[
    ("strsplit", "m2cu_strsplit"),
    ("strjoin", "m2cu_strjoin"),
    ("unique", "m2cu_cell_unique"),
    ("cat", "m2cu_cat_pages"),
    ("arrayfun", "m2cu_map_texts"),
    ("cellfun", "m2cu_cell_map_with"),
    ("strtrim", "m2cu_cell_map"),
    ("deblank", "m2cu_cell_map"),
    ("upper", "m2cu_cell_map"),
    ("lower", "m2cu_cell_map"),
    ("num2str", "m2cu_num2str_rows"),
    ("str2double", "m2cu_str2double_cell"),
    ("max", "m2cu_located"),
    ("min", "m2cu_located"),
    ("max", "m2cu_max"),
    ("min", "m2cu_min"),
    ("sum", "m2cu_omitnan"),
    ("prod", "m2cu_omitnan"),
    ("mean", "m2cu_omitnan"),
    ("find", "m2cu_find"),
];

/// The bundled helpers that lowering may call for the builtin `name`.
pub fn helpers_of(name: &str) -> impl Iterator<Item = &'static str> + '_ {
    HELPERS_OF_BUILTINS
        .iter()
        .filter(move |(builtin, _)| *builtin == name)
        .map(|(_, helper)| *helper)
}

/// The name to show and the text of the bundled function `name`, if there is one.
pub fn file(name: &str) -> Option<(String, &'static str)> {
    FILES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, text)| (format!("{DISPLAY_PREFIX}{n}.m"), *text))
}

/// The names of the bundled functions.
pub fn names() -> impl Iterator<Item = &'static str> {
    FILES.iter().map(|(n, _)| *n)
}
