//! `return` inside an inlined function, rewritten away before its body is lowered.
//!
//! An inlined body has no function to leave, so each `return` becomes an assignment to a flag,
//! `_ret = true`, followed by `break` when it is inside a loop; every loop that contains a
//! `return` is followed by `if _ret, break; end` when it is itself inside a loop, and the
//! statements after a statement that contains a `return` run under `if ~_ret`. Statements after
//! a `return` in the same list never run and are dropped. The flag starts `false`.
//!
//! Invariants: the rewritten body runs exactly the statements the original runs, in the same
//! order; a body without `return` is used as it is; `_ret` cannot clash with a MATLAB name
//! (none starts with `_`), and lowering prefixes it with the callee's name like any local.

use std::borrow::Cow;

use crate::ast::{Expr, ExprKind, Ident, LValue, Stmt, StmtKind, SwitchCase, UnaryOp};
use crate::diag::Span;

const FLAG: &str = "_ret";

/// `body` with every `return` rewritten as the module docs say.
pub(super) fn without_returns(body: &[Stmt], span: Span) -> Cow<'_, [Stmt]> {
    if !body.iter().any(contains_return) {
        return Cow::Borrowed(body);
    }
    let mut out = vec![assign_flag(false, span)];
    out.extend(rewrite(body, false));
    Cow::Owned(out)
}

fn contains_return(s: &Stmt) -> bool {
    let any = |b: &[Stmt]| b.iter().any(contains_return);
    match &s.kind {
        StmtKind::Return => true,
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => any(body),
        StmtKind::If { clauses, else_body } => {
            clauses.iter().any(|(_, b)| any(b)) || else_body.as_deref().is_some_and(any)
        }
        StmtKind::Switch {
            cases, otherwise, ..
        } => cases.iter().any(|c| any(&c.body)) || otherwise.as_deref().is_some_and(any),
        StmtKind::Expr(_)
        | StmtKind::Assign { .. }
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Declare { .. } => false,
    }
}

/// The statements of `list` rewritten; `in_loop` when the list is inside a loop of the callee.
fn rewrite(list: &[Stmt], in_loop: bool) -> Vec<Stmt> {
    let mut out = Vec::new();
    for (k, s) in list.iter().enumerate() {
        if !contains_return(s) {
            out.push(s.clone());
            continue;
        }
        if let StmtKind::Return = s.kind {
            out.push(assign_flag(true, s.span));
            if in_loop {
                out.push(stmt(StmtKind::Break, s.span));
            }
            return out;
        }
        out.push(rewrite_compound(s, in_loop));
        if in_loop && matches!(s.kind, StmtKind::For { .. } | StmtKind::While { .. }) {
            out.push(if_flag(true, vec![stmt(StmtKind::Break, s.span)], s.span));
        }
        let rest = rewrite(&list[k + 1..], in_loop);
        if let (Some(first), Some(last)) = (rest.first(), rest.last()) {
            let span = first.span.to(last.span);
            out.push(if_flag(false, rest, span));
        }
        return out;
    }
    out
}

/// A loop, `if` or `switch` that contains a `return`, with its bodies rewritten.
fn rewrite_compound(s: &Stmt, in_loop: bool) -> Stmt {
    let kind = match &s.kind {
        StmtKind::For { var, range, body } => StmtKind::For {
            var: var.clone(),
            range: range.clone(),
            body: rewrite(body, true),
        },
        StmtKind::While { cond, body } => StmtKind::While {
            cond: cond.clone(),
            body: rewrite(body, true),
        },
        StmtKind::If { clauses, else_body } => StmtKind::If {
            clauses: clauses
                .iter()
                .map(|(c, b)| (c.clone(), rewrite(b, in_loop)))
                .collect(),
            else_body: else_body.as_deref().map(|b| rewrite(b, in_loop)),
        },
        StmtKind::Switch {
            subject,
            cases,
            otherwise,
        } => StmtKind::Switch {
            subject: subject.clone(),
            cases: cases
                .iter()
                .map(|c| SwitchCase {
                    body: rewrite(&c.body, in_loop),
                    ..c.clone()
                })
                .collect(),
            otherwise: otherwise.as_deref().map(|b| rewrite(b, in_loop)),
        },
        other => other.clone(),
    };
    stmt(kind, s.span)
}

fn stmt(kind: StmtKind, span: Span) -> Stmt {
    Stmt {
        kind,
        span,
        shown: false,
    }
}

fn flag(span: Span) -> Ident {
    Ident {
        name: FLAG.into(),
        span,
    }
}

/// `_ret = true` or `_ret = false`.
fn assign_flag(value: bool, span: Span) -> Stmt {
    let word = if value { "true" } else { "false" };
    let value = Expr {
        kind: ExprKind::Ident(word.into()),
        span,
    };
    stmt(
        StmtKind::Assign {
            targets: vec![LValue::Var(flag(span))],
            value,
        },
        span,
    )
}

/// `if _ret, body, end` (`when` true) or `if ~_ret, body, end`.
fn if_flag(when: bool, body: Vec<Stmt>, span: Span) -> Stmt {
    let read = Expr {
        kind: ExprKind::Ident(FLAG.into()),
        span,
    };
    let cond = if when {
        read
    } else {
        Expr {
            kind: ExprKind::Unary {
                op: UnaryOp::Not,
                operand: Box::new(read),
            },
            span,
        }
    };
    stmt(
        StmtKind::If {
            clauses: vec![(cond, body)],
            else_body: None,
        },
        span,
    )
}

#[cfg(test)]
mod tests {
    use super::without_returns;
    use crate::ast_source::print_source;
    use crate::parser::parse_file;

    fn rewritten(source: &str) -> String {
        let mut file = parse_file(source).unwrap();
        let f = &mut file.functions[0];
        f.body = without_returns(&f.body, f.span).into_owned();
        print_source(&file)
    }

    #[test]
    fn returns_become_a_flag_and_guards() {
        let text = rewritten(
            "function k = find_first(v, t)\n  k = 0;\n  for i = 1:numel(v)\n    if v(i) == t\n      k = i;\n      return;\n    end\n  end\n  k = -1;\nend\n",
        );
        let want = ["_ret = false", "_ret = true", "break", "if ~_ret", "k = -1"];
        let mut at = 0;
        for w in want {
            let found = text[at..]
                .find(w)
                .unwrap_or_else(|| panic!("{w} in {text}"));
            at += found + w.len();
        }
    }

    #[test]
    fn a_body_without_return_is_kept() {
        let file = parse_file("function y = f(x)\n  y = x;\nend\n").unwrap();
        let f = &file.functions[0];
        assert!(matches!(
            without_returns(&f.body, f.span),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
