//! Which variables a function indexes: `x(j)`, `x(end)`, `x(i, :) = v`.
//!
//! `m2cu run` infers input types from values, and a 1-by-1 value is a scalar there; but
//! `bubble(5)` is legal MATLAB for a function that indexes its input. [`indexed_names`] lets the
//! caller type such an input as a row of run-time length instead.
//!
//! Invariant: a name is listed when some `name(args)` of the function body (read or assignment
//! target, at any depth) has an argument other than the literal `1` (function names called so
//! are listed too: callers ask about variables); `x(1)` and `x(1, 1)` of a
//! scalar are the scalar itself, so they do not count. The function's nested functions have
//! their own variables and are not searched.

use std::collections::HashSet;

use crate::ast::{CaseLabels, Expr, ExprKind, Function, LValue, Stmt, StmtKind};

/// The names that `function`'s body indexes with a subscript that is not the literal `1`.
pub fn indexed_names(function: &Function) -> HashSet<String> {
    let mut names = HashSet::new();
    stmts(&function.body, &mut names);
    names
}

fn stmts(body: &[Stmt], names: &mut HashSet<String>) {
    for s in body {
        stmt(s, names);
    }
}

fn stmt(s: &Stmt, names: &mut HashSet<String>) {
    match &s.kind {
        StmtKind::Expr(e) => expr(e, names),
        StmtKind::Assign { targets, value } => {
            for t in targets {
                if let LValue::Index { base, args, .. } = t {
                    index(&base.name, args, names);
                }
            }
            expr(value, names);
        }
        StmtKind::For { range, body, .. } => {
            expr(range, names);
            stmts(body, names);
        }
        StmtKind::While { cond, body } => {
            expr(cond, names);
            stmts(body, names);
        }
        StmtKind::If { clauses, else_body } => {
            for (cond, body) in clauses {
                expr(cond, names);
                stmts(body, names);
            }
            stmts(else_body.as_deref().unwrap_or_default(), names);
        }
        StmtKind::Switch {
            subject,
            cases,
            otherwise,
        } => {
            expr(subject, names);
            for case in cases {
                match &case.labels {
                    CaseLabels::Single(e) => expr(e, names),
                    CaseLabels::Cell(es) => es.iter().for_each(|e| expr(e, names)),
                }
                stmts(&case.body, names);
            }
            stmts(otherwise.as_deref().unwrap_or_default(), names);
        }
        StmtKind::Break | StmtKind::Continue | StmtKind::Return => {}
    }
}

fn index(name: &str, args: &[Expr], names: &mut HashSet<String>) {
    let literal_one = |a: &Expr| matches!(a.kind, ExprKind::Number { value, .. } if value == 1.0);
    if !args.iter().all(literal_one) {
        names.insert(name.to_string());
    }
    args.iter().for_each(|a| expr(a, names));
}

fn expr(e: &Expr, names: &mut HashSet<String>) {
    match &e.kind {
        ExprKind::Call { callee, args } => index(&callee.name, args, names),
        ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => expr(operand, names),
        ExprKind::Paren(inner) => expr(inner, names),
        ExprKind::Binary { lhs, rhs, .. } => {
            expr(lhs, names);
            expr(rhs, names);
        }
        ExprKind::Range { start, step, stop } => {
            expr(start, names);
            step.iter().for_each(|s| expr(s, names));
            expr(stop, names);
        }
        ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|e| expr(e, names)),
        ExprKind::HandleCell(es) => es.iter().for_each(|e| expr(e, names)),
        ExprKind::AnonFn { body, .. } => expr(body, names),
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
    use super::indexed_names;
    use crate::parser::parse_file;

    #[test]
    fn only_subscripts_other_than_one_count() {
        let source = "function y = f(a, b, c, d, e)\n  y = a(1) + b(1, 1) + numel(c);\n  if d(end) > 0\n    y = y + 1;\n  end\n  for k = 2:3\n    e(k) = 0;\n  end\nend\n";
        let file = parse_file(source).unwrap();
        let names = indexed_names(&file.functions[0]);
        let params = ["a", "b", "c", "d", "e"].map(|p| names.contains(p));
        assert_eq!(params, [false, false, false, true, true]);
    }
}
