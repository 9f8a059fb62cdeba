//! Induction variables: a scalar `k` that a loop advances by the same step in every iteration
//! (`k = k + c`, `k = c + k` or `k = k - c`).
//!
//! Conditions: `k` is a `double`; `c` is an integer constant; the update is a statement at the top
//! level of the loop body (so it runs exactly once per iteration, unconditionally), no `continue`
//! of this loop can skip it, and it is the only assignment to `k` in the body. `k` must also be
//! read elsewhere in the body: an update that nothing else reads is a sum reduction instead.
//!
//! Closed form, with `t` the 0-based iteration and `k0` the value before the loop: `k = k0 + c·t`
//! before the update, `k0 + c·(t+1)` after it, and `k0 + c·n` after a loop of `n` iterations.
//! With an integer-valued `k0` (below 2^53) the closed form is exactly the sequential value.

use m2cu_frontend::ir::{BinOp, Block, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind};
use m2cu_frontend::types::Class;

use crate::access::{Affine, ClosedForm, Symbol};
use crate::loops::{self, LoopRange};
use crate::scalars;

/// One induction variable of a loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Induction {
    pub var: LocalId,
    /// What every iteration adds.
    pub step: i64,
    /// The update statement.
    pub update: StmtId,
    /// The update's position among the top-level statements of the loop body.
    pub position: usize,
}

/// The induction variables of the loop whose body is `body`.
pub fn find(f: &Function, body: &Block) -> Vec<Induction> {
    if loops::continues(f, body) {
        return Vec::new();
    }
    body.0
        .iter()
        .enumerate()
        .filter_map(|(position, &s)| update(f, s).map(|(var, step)| (position, s, var, step)))
        .filter(|&(_, s, var, _)| {
            only_assignment(f, body, var, s) && read_elsewhere(f, body, var, s)
        })
        .map(|(position, update, var, step)| Induction {
            var,
            step,
            update,
            position,
        })
        .collect()
}

/// `k = k + c`, `k = c + k` or `k = k - c` on a `double` `k` with an integer constant `c`.
fn update(f: &Function, s: StmtId) -> Option<(LocalId, i64)> {
    let StmtKind::Assign { target, value } = &f.stmts[s].kind else {
        return None;
    };
    let local = &f.locals[*target];
    if local.ty.class != Class::Double || !local.ty.is_scalar() {
        return None;
    }
    let is_k = |e: ExprId| matches!(f.exprs[e].kind, ExprKind::Local(l) if l == *target);
    let constant = |e: ExprId| match f.exprs[e].kind {
        ExprKind::Const(c) if c.fract() == 0.0 && c.abs() < 2f64.powi(31) => Some(c as i64),
        _ => None,
    };
    match f.exprs[*value].kind {
        ExprKind::Binary(BinOp::Add, a, b) if is_k(a) => constant(b),
        ExprKind::Binary(BinOp::Add, a, b) if is_k(b) => constant(a),
        ExprKind::Binary(BinOp::Sub, a, b) if is_k(a) => constant(b).map(|c| -c),
        _ => None,
    }
    .map(|c| (*target, c))
}

fn only_assignment(f: &Function, body: &Block, var: LocalId, update: StmtId) -> bool {
    let mut others = 0;
    f.walk_stmts(body, &mut |s| match f.stmts[s].kind {
        StmtKind::Assign { target, .. } | StmtKind::For { var: target, .. }
            if target == var && s != update =>
        {
            others += 1
        }
        _ => {}
    });
    others == 0
}

fn read_elsewhere(f: &Function, body: &Block, var: LocalId, update: StmtId) -> bool {
    let mut read = false;
    f.walk_stmts(body, &mut |s| {
        if s != update {
            read |= f
                .stmt_exprs(s)
                .into_iter()
                .any(|e| scalars::read_span(f, e, var).is_some());
        }
    });
    read
}

/// The closed forms of `inductions` inside the body of the loop over `var` whose range is
/// `range`: with `t = (var - first) / s`, `k = k0 + c·t` before the update and `k0 + c·(t+1)`
/// after it, where `Symbol::Local(k)` is `k0`. None for an induction whose step `c` is not a
/// multiple of the loop's step `s` (its closed form would not have integer coefficients).
pub fn closed_forms(inductions: &[Induction], var: LocalId, range: &LoopRange) -> Vec<ClosedForm> {
    let (Some(first), Some(s)) = (&range.first, range.step) else {
        return Vec::new();
    };
    inductions
        .iter()
        .filter(|ind| s != 0 && ind.step % s == 0)
        .filter_map(|ind| {
            let t = Affine::term(Some(var), None).add(first, -1)?;
            let before = t
                .scale(ind.step / s)?
                .add(&Affine::term(None, Some(Symbol::Local(ind.var))), 1)?;
            let after = before.clone().add(&Affine::constant(ind.step), 1)?;
            Some(ClosedForm {
                local: ind.var,
                update: ind.position,
                before,
                after,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loops::{loop_body, LoopTree};
    use crate::test_util::function;

    /// `(name, step)` of the inductions of the first loop of `body`.
    fn inductions(body: &str) -> Vec<(String, i64)> {
        let f = function(body);
        let tree = LoopTree::build(&f);
        let first = tree.loops.values().next().expect("a loop").stmt;
        find(&f, loop_body(&f, first))
            .into_iter()
            .map(|ind| (f.locals[ind.var].name.clone(), ind.step))
            .collect()
    }

    #[test]
    fn recognizes_unconditional_updates_read_elsewhere() {
        let body = "y = x; k = 1;\nfor i = 1:4\n y(k) = i;\n k = k - 3;\nend";
        assert_eq!(inductions(body), [("k".to_string(), -3)]);
        let body = "y = x; k = 1;\nfor i = 1:4\n k = 2 + k;\n y(i) = k;\nend";
        assert_eq!(inductions(body), [("k".to_string(), 2)]);
    }

    #[test]
    fn rejects_other_updates() {
        // Read nowhere else: a sum reduction.
        assert!(inductions("k = 0;\nfor i = 1:4\n k = k + 1;\nend\ny = k;").is_empty());
        // Conditional, fractional, assigned twice, or skippable by `continue`.
        let cases = [
            "y = x; k = 0;\nfor i = 1:4\n if x(i) > 0\n  k = k + 1;\n end\n y(i) = k;\nend",
            "y = x; k = 0;\nfor i = 1:4\n k = k + 0.5;\n y(i) = k;\nend",
            "y = x; k = 0;\nfor i = 1:4\n k = k + 1;\n y(i) = k;\n k = 0;\nend",
            "y = x; k = 0;\nfor i = 1:4\n if x(i) > 0\n  continue;\n end\n k = k + 1;\n y(i) = k;\nend",
        ];
        for body in cases {
            assert!(inductions(body).is_empty(), "{body}");
        }
    }
}
