//! Which variables a function indexes: `x(j)`, `x(end)`, `x(i, :) = v`, also through the
//! functions it calls (`helper(x)` where `helper` indexes its parameter).
//!
//! `m2cu run` infers input types from values, and a 1-by-1 value is a scalar there; but
//! `bubble(5)` is legal MATLAB for a function that indexes its input. [`indexed_names`] and
//! [`indexed_through_calls`] let the caller type such an input as a row of run-time length
//! instead.
//!
//! Invariants:
//! - a name is listed when some `name(args)` of the function body (read or assignment target,
//!   at any depth) has an argument other than the literal `1` (function names called so are
//!   listed too: callers ask about variables); `x(1)` and `x(1, 1)` of a scalar are the scalar
//!   itself, so they do not count. The function's nested functions have their own variables and
//!   are not searched;
//! - [`indexed_through_calls`] also lists a bare argument `x` of a call `f(..., x, ...)` whose
//!   callee (a function of the same file, else a function file of the [`Library`], as lowering
//!   resolves calls; never a name that is a parameter of the caller) lists its parameter at that
//!   position, transitively; a callee already being searched (recursion) adds nothing.

use std::collections::HashSet;

use crate::ast::{CaseLabels, Expr, ExprKind, File, Function, LValue, Stmt, StmtKind};
use crate::library::{self, FunctionFile, Library};

/// The names that `function`'s body indexes with a subscript that is not the literal `1`.
pub fn indexed_names(function: &Function) -> HashSet<String> {
    walk(function).names
}

/// [`indexed_names`], plus the names `function` passes to callees that index them (module
/// docs); `file` is the file that defines `function`.
pub fn indexed_through_calls(
    function: &Function,
    file: &File,
    library: &Library,
) -> HashSet<String> {
    let mut reach = Reach {
        library,
        visiting: Vec::new(),
    };
    reach.indexed(function, file)
}

/// What one function body indexes, and the calls whose arguments it passes by name.
#[derive(Default)]
struct Walk {
    names: HashSet<String>,
    /// `callee(args)`: the callee's name and each argument's name when it is a bare identifier.
    calls: Vec<(String, Vec<Option<String>>)>,
}

fn walk(function: &Function) -> Walk {
    let mut walk = Walk::default();
    stmts(&function.body, &mut walk);
    walk
}

/// The search through calls, with the functions being searched (to stop at recursion).
struct Reach<'l> {
    library: &'l Library,
    visiting: Vec<String>,
}

impl<'l> Reach<'l> {
    fn indexed(&mut self, function: &Function, file: &File) -> HashSet<String> {
        let Walk { mut names, calls } = walk(function);
        self.visiting.push(function.name.name.clone());
        let is_param = |n: &str| function.params.iter().any(|p| p.name == n);
        for (callee, args) in calls {
            if is_param(&callee) || self.visiting.contains(&callee) {
                continue;
            }
            let Some((callee, callee_file)) = self.resolve(&callee, file) else {
                continue;
            };
            let inner = self.indexed(callee, callee_file);
            for (arg, param) in args.into_iter().zip(&callee.params) {
                match arg {
                    Some(arg) if inner.contains(&param.name) => names.insert(arg),
                    _ => false,
                };
            }
        }
        self.visiting.pop();
        names
    }

    /// The function a call to `name` from `file` runs: one of `file`'s, else a function file's.
    fn resolve<'f>(&self, name: &str, file: &'f File) -> Option<(&'f Function, &'f File)>
    where
        'l: 'f,
    {
        if let Some(f) = file.functions.iter().find(|f| f.name.name == name) {
            return Some((f, file));
        }
        match self.library.get(name)? {
            FunctionFile::Parsed(lib) => library::function(lib).map(|f| (f, lib)),
            _ => None,
        }
    }
}

fn stmts(body: &[Stmt], walk: &mut Walk) {
    for s in body {
        stmt(s, walk);
    }
}

fn stmt(s: &Stmt, walk: &mut Walk) {
    match &s.kind {
        StmtKind::Expr(e) => expr(e, walk),
        StmtKind::Assign { targets, value } => {
            for t in targets {
                match t {
                    LValue::Index { base, args, .. } => index(&base.name, args, walk),
                    LValue::Content { args, .. } | LValue::ElementField { args, .. } => {
                        args.iter().for_each(|a| expr(a, walk))
                    }
                    LValue::Var(_) | LValue::Ignore(_) => {}
                }
            }
            expr(value, walk);
        }
        StmtKind::For { range, body, .. } => {
            expr(range, walk);
            stmts(body, walk);
        }
        StmtKind::While { cond, body } => {
            expr(cond, walk);
            stmts(body, walk);
        }
        StmtKind::If { clauses, else_body } => {
            for (cond, body) in clauses {
                expr(cond, walk);
                stmts(body, walk);
            }
            stmts(else_body.as_deref().unwrap_or_default(), walk);
        }
        StmtKind::Switch {
            subject,
            cases,
            otherwise,
        } => {
            expr(subject, walk);
            for case in cases {
                match &case.labels {
                    CaseLabels::Single(e) => expr(e, walk),
                    CaseLabels::Cell(es) => es.iter().for_each(|e| expr(e, walk)),
                }
                stmts(&case.body, walk);
            }
            stmts(otherwise.as_deref().unwrap_or_default(), walk);
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Return | StmtKind::Declare { .. } => {}
    }
}

fn index(name: &str, args: &[Expr], walk: &mut Walk) {
    let literal_one = |a: &Expr| matches!(a.kind, ExprKind::Number { value, .. } if value == 1.0);
    if !args.iter().all(literal_one) {
        walk.names.insert(name.to_string());
    }
    args.iter().for_each(|a| expr(a, walk));
}

/// `callee(args)` as a call that may pass variables by name.
fn call(callee: &str, args: &[Expr], walk: &mut Walk) {
    fn bare(a: &Expr) -> Option<String> {
        match &a.kind {
            ExprKind::Ident(name) => Some(name.clone()),
            ExprKind::Paren(inner) => bare(inner),
            _ => None,
        }
    }
    walk.calls
        .push((callee.to_string(), args.iter().map(bare).collect()));
    index(callee, args, walk);
}

fn expr(e: &Expr, walk: &mut Walk) {
    match &e.kind {
        ExprKind::Call { callee, args } => call(&callee.name, args, walk),
        ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => expr(operand, walk),
        ExprKind::Paren(inner) => expr(inner, walk),
        ExprKind::Binary { lhs, rhs, .. } => {
            expr(lhs, walk);
            expr(rhs, walk);
        }
        ExprKind::Range { start, step, stop } => {
            expr(start, walk);
            step.iter().for_each(|s| expr(s, walk));
            expr(stop, walk);
        }
        ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|e| expr(e, walk)),
        ExprKind::HandleCell(es) | ExprKind::TextCell { items: es, .. } => {
            es.iter().for_each(|e| expr(e, walk))
        }
        ExprKind::CellIndex { callee, args } | ExprKind::ElementField { callee, args, .. } => {
            index(&callee.name, args, walk)
        }
        ExprKind::AnonFn { body, .. } => expr(body, walk),
        ExprKind::Number { .. }
        | ExprKind::Imaginary { .. }
        | ExprKind::Str(_)
        | ExprKind::StringScalar(_)
        | ExprKind::Ident(_)
        | ExprKind::Colon
        | ExprKind::End
        | ExprKind::FuncHandle(_) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::{indexed_names, indexed_through_calls};
    use crate::library::Library;
    use crate::parser::parse_file;

    #[test]
    fn only_subscripts_other_than_one_count() {
        let source = "function y = f(a, b, c, d, e)\n  y = a(1) + b(1, 1) + numel(c);\n  if d(end) > 0\n    y = y + 1;\n  end\n  for k = 2:3\n    e(k) = 0;\n  end\nend\n";
        let file = parse_file(source).unwrap();
        let names = indexed_names(&file.functions[0]);
        let params = ["a", "b", "c", "d", "e"].map(|p| names.contains(p));
        assert_eq!(params, [false, false, false, true, true]);
    }

    #[test]
    fn arguments_that_a_callee_indexes_count() {
        let source = "function y = f(a, b, c, d)\n  y = g(a, (b), c + 1) + f(d);\nend\nfunction r = g(p, q, s)\n  r = h(q) + s(2);\nend\nfunction r = h(v)\n  r = v(end) + g(v, 1, 2);\nend\n";
        let file = parse_file(source).unwrap();
        let names = indexed_through_calls(&file.functions[0], &file, &Library::default());
        let params = ["a", "b", "c", "d"].map(|p| names.contains(p));
        assert_eq!(params, [false, true, false, false]);
    }
}
