//! What a name that nothing defines gets: the MATLAB functions that m2cu does not translate yet
//! are named as such (E0167, with the nearest supported way to write the same thing where there
//! is one), and any other name keeps "undefined variable or function" (E0102) with the closest
//! name in scope as a suggestion.
//!
//! Invariants: a name reaches here only when no variable, function of the program, or function
//! m2cu translates defines it (`Lowerer::call` tries those first), so a listed function that
//! m2cu comes to support is never reported as missing; a suggestion is at most two edits away
//! and never the name itself.

/// MATLAB functions m2cu does not translate yet, each with the nearest supported way to write
/// it where there is one.
const NOT_YET: &[(&str, Option<&str>)] = &[
    ("fft", None),
    ("ifft", None),
    ("fft2", None),
    ("ifft2", None),
    ("roots", None),
    ("struct", None),
    ("fieldnames", None),
    ("isfield", None),
    ("regexp", None),
    ("regexprep", None),
    ("erfinv", None),
    ("besselj", None),
    ("cbrt", Some("`nthroot(x, 3)`")),
    ("betainc", None),
    ("erfcinv", None),
    ("expint", None),
    ("eig", None),
    ("svd", None),
    ("qr", None),
    ("expm", None),
    ("null", None),
    ("orth", None),
    ("rank", None),
    ("pinv", Some("`A \\ b` for a least-squares solution")),
    ("cond", None),
    ("conv2", Some("a loop over the kernel's offsets")),
    ("filter2", Some("a loop over the kernel's offsets")),
    ("interp2", None),
    ("spline", None),
    ("pchip", None),
    ("fzero", Some("a bisection or Newton loop")),
    ("fminsearch", None),
    ("fminbnd", None),
    ("ode45", Some("a Runge-Kutta loop (RK4 steps)")),
    ("ode23", Some("a Runge-Kutta loop")),
    ("integral", Some("`trapz(x, f(x))` on a grid")),
    ("quad", Some("`trapz(x, f(x))` on a grid")),
    ("num2cell", None),
    ("cell2mat", None),
    ("mat2cell", None),
    ("struct2cell", None),
    ("rmfield", None),
    ("textscan", Some("`strsplit` and `str2double`")),
    (
        "sscanf",
        Some("`str2double` of one number, or `strsplit` and `str2double`"),
    ),
    ("str2num", Some("`str2double(s)` for one number")),
    ("strtok", Some("`strsplit(s)` and its first piece")),
    ("validateattributes", Some("`if`/`error` checks")),
    ("validatestring", Some("`strcmpi` in an `if`/`error` check")),
    ("inputParser", Some("`nargin` defaults")),
    ("datestr", None),
    ("datenum", None),
    ("clock", Some("`tic`/`toc`")),
    ("etime", Some("`tic`/`toc`")),
    ("perms", None),
    ("factor", None),
    ("movmean", Some("`filter` or `conv` with a window of ones")),
    ("movsum", Some("`filter` or `conv` with a window of ones")),
    ("typecast", None),
    ("deconv", None),
    ("hist", Some("`histc(x, edges)` or `histcounts(x, edges)`")),
    ("randperm", None),
    ("eval", None),
    ("evalin", None),
    ("func2str", None),
    ("str2func", Some("a handle written `@name`")),
];

/// How m2cu answers for `name`, a name nothing defines.
pub(super) enum Unknown {
    /// A MATLAB function m2cu does not translate yet, with the nearest supported alternative.
    NotYet(Option<&'static str>),
    /// Any other name, with the closest of the names in scope.
    Undefined(Option<String>),
}

/// What `name` is, given the names in scope (variables, the program's functions and the
/// functions m2cu translates) for a suggestion.
pub(super) fn classify<'n>(name: &str, in_scope: impl Iterator<Item = &'n str>) -> Unknown {
    if let Some(&(_, alternative)) = NOT_YET.iter().find(|(n, _)| *n == name) {
        return Unknown::NotYet(alternative);
    }
    Unknown::Undefined(closest(name, in_scope))
}

/// The name of `candidates` closest to `name`, if it is at most two edits away (one for names
/// of three or four letters, none for shorter ones, where every other short name is as close)
/// and not `name` itself; ties go to the first.
fn closest<'n>(name: &str, candidates: impl Iterator<Item = &'n str>) -> Option<String> {
    let limit = match name.chars().count() {
        0..=2 => return None,
        3 | 4 => 1,
        _ => 2,
    };
    candidates
        .filter(|c| *c != name)
        .map(|c| (strsim::damerau_levenshtein(name, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listed_functions_are_not_yet_supported() {
        assert!(matches!(
            classify("fft", std::iter::empty()),
            Unknown::NotYet(None)
        ));
        assert!(matches!(
            classify("cbrt", std::iter::empty()),
            Unknown::NotYet(Some(alt)) if alt.contains("nthroot")
        ));
    }

    #[test]
    fn a_misspelt_name_gets_the_closest_name_in_scope() {
        let scope = ["total", "count", "sqrt", "x"];
        let suggest = |name| match classify(name, scope.iter().copied()) {
            Unknown::Undefined(s) => s,
            Unknown::NotYet(_) => panic!("{name} is not a MATLAB function"),
        };
        assert_eq!(suggest("totl").as_deref(), Some("total"));
        assert_eq!(suggest("cuont").as_deref(), Some("count"));
        assert_eq!(suggest("sqr").as_deref(), Some("sqrt"));
        assert_eq!(suggest("velocity"), None);
        assert_eq!(suggest("y"), None);
    }
}

#[cfg(test)]
mod bundled_tests {
    use crate::bundled;
    use crate::parser::{parse_file_at, ParseOptions};

    /// m2cu's own MATLAB functions neither shadow a function lowering translates by itself nor
    /// stay listed as missing, and each file parses with its function named after the file.
    #[test]
    fn bundled_functions_are_new_names_that_parse() {
        for name in bundled::names() {
            assert!(
                !super::super::expr::is_builtin_name(name),
                "{name} is a builtin"
            );
            assert!(
                !super::NOT_YET.iter().any(|(n, _)| *n == name),
                "{name} is NOT_YET"
            );
            let (_, text) = bundled::file(name).unwrap();
            let file = parse_file_at(text, &ParseOptions::default(), 0)
                .unwrap_or_else(|_| panic!("{name}.m does not parse"));
            assert_eq!(file.functions[0].name.name, name);
            for function in &file.functions {
                assert!(
                    !any_shown(&function.body),
                    "{name}.m has a statement without `;`, which would display its value"
                );
            }
        }
    }

    /// Whether a statement of `body`, or of a block inside it, displays its value.
    fn any_shown(body: &[crate::ast::Stmt]) -> bool {
        use crate::ast::StmtKind;
        body.iter().any(|s| {
            s.shown
                || match &s.kind {
                    StmtKind::For { body, .. } | StmtKind::While { body, .. } => any_shown(body),
                    StmtKind::If { clauses, else_body } => {
                        clauses.iter().any(|(_, b)| any_shown(b))
                            || else_body.as_deref().is_some_and(any_shown)
                    }
                    StmtKind::Switch {
                        cases, otherwise, ..
                    } => {
                        cases.iter().any(|c| any_shown(&c.body))
                            || otherwise.as_deref().is_some_and(any_shown)
                    }
                    _ => false,
                }
        })
    }
}
