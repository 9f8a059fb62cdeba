//! Scans: a loop that carries one running sum or product and reads its value after the update
//! in the same iteration (`s = s + x(i); y(i) = s;`: MATLAB's `cumsum` written by hand, and
//! m2cu's own `cumsum`/`cumprod` of a vector).
//!
//! Shape of a [`Scan`]: the body is `prologue; s = s ⊕ e; epilogue`, where
//! - the update is a top-level statement of the body and the only assignment to `s`, and `⊕`
//!   is a plain sum or product of a real `double` or `single` (`s = s + e`, `e + s`, `s - e`,
//!   `s * e`: the operator table's updates, recognized by [`crate::reduction`]), whose `e` does
//!   not read `s`;
//! - the prologue does not mention `s`, only assigns scalars and cannot leave the iteration:
//!   the GPU runs it twice per iteration (once for the block totals, once for the values);
//! - the epilogue reads `s` (the inclusive prefix up to this iteration) and does not assign it;
//! - no `continue` skips the rest of an iteration (every thread of a block reaches the scan's
//!   barriers);
//! - the loop is otherwise parallel ([`crate::verdict`] checks that): no carried array
//!   dependence, and every other scalar private and dead after the loop, with no reductions,
//!   histograms or inductions.
//!
//! After the loop `s` holds the total. The C path runs the loop in order (equal to MATLAB's
//! sums to the bit); the GPU adds the terms in a tree, so a floating-point scan agrees with the
//! sequential one within the tolerance of a reassociated sum.

use std::collections::BTreeSet;

use m2cu_frontend::ir::{Block, Function, LocalId, StmtId, StmtKind};
use m2cu_frontend::operator::Operator;
use m2cu_frontend::types::Class;

use crate::reduction::{self, Form, Reduction};
use crate::{loops, per_output, scalars};

/// A running sum or product that every iteration reads after adding its term.
#[derive(Clone, Debug, PartialEq)]
pub struct Scan {
    /// The running value `s`.
    pub var: LocalId,
    /// The update as a reduction with one plain update, spelled by the code generators from
    /// the operator table like any other.
    pub reduction: Reduction,
    /// The update's position in the body: the statements before it are the prologue, those
    /// after it the epilogue.
    pub position: usize,
}

/// `s` as the running value of a scan of the loop over `var` with body `body`, if the body has
/// the scan's shape (see the module docs; the loop's other scalars and arrays are checked by
/// the verdict).
pub fn find(f: &Function, body: &Block, var: LocalId, s: LocalId) -> Option<Scan> {
    let ty = f.locals[s].ty;
    if !ty.is_scalar() || ty.complex || !matches!(ty.class, Class::Double | Class::Single) {
        return None;
    }
    let assigns_s =
        |st: StmtId| matches!(f.stmts[st].kind, StmtKind::Assign { target, .. } if target == s);
    let position = body.0.iter().position(|&st| assigns_s(st))?;
    let mut assignments = 0;
    f.walk_stmts(body, &mut |st| assignments += usize::from(assigns_s(st)));
    if assignments != 1 || loops::continues(f, body) {
        return None;
    }
    let update = Block(vec![body.0[position]]);
    let reduction = reduction::recognize_each(f, &update, var, &BTreeSet::from([s]))
        .remove(&s)?
        .ok()?;
    let plain = matches!(reduction.form, Form::Plain | Form::Count)
        && matches!(reduction.operator, Operator::Sum | Operator::Prod);
    let prologue = Block(body.0[..position].to_vec());
    let epilogue = Block(body.0[position + 1..].to_vec());
    let prologue_ok = !scalars::scalars_read(f, &prologue).contains(&s)
        && prologue
            .0
            .iter()
            .all(|&st| per_output::only_assigns_scalars(f, st));
    let read_after = scalars::scalars_read(f, &epilogue).contains(&s);
    (plain && prologue_ok && read_after).then_some(Scan {
        var: s,
        reduction,
        position,
    })
}

#[cfg(test)]
mod tests {
    use crate::test_util::function;
    use crate::{analyze, Verdict};

    fn verdict_of_first_loop(body: &str) -> Verdict {
        let f = function(body);
        let a = analyze(&f);
        let (id, _) = a.loops.loops.iter().next().expect("a loop");
        a.verdicts[id].clone()
    }

    #[test]
    fn a_running_sum_stored_each_iteration_is_a_scan() {
        let v = verdict_of_first_loop(
            "y = zeros(1, n);\ns = 0;\nfor i = 1:n\n  t = 2 * x(i);\n  s = s + t;\n  y(i) = s;\nend",
        );
        assert_eq!(v.name(), "scan", "{v:?}");
    }

    #[test]
    fn a_running_product_is_a_scan() {
        let v = verdict_of_first_loop(
            "y = zeros(1, n);\np = 1;\nfor i = 1:n\n  p = p * x(i);\n  y(i) = p + 1;\nend",
        );
        assert_eq!(v.name(), "scan", "{v:?}");
    }

    #[test]
    fn what_is_not_a_scan_stays_sequential() {
        for body in [
            // read before the update: the exclusive prefix, not taken
            "y = zeros(1, n);\ns = 0;\nfor i = 1:n\n  y(i) = s;\n  s = s + x(i);\nend",
            // updated twice
            "y = zeros(1, n);\ns = 0;\nfor i = 1:n\n  s = s + x(i);\n  y(i) = s;\n  s = s + 1;\nend",
            // under a condition
            "y = zeros(1, n);\ns = 0;\nfor i = 1:n\n  if x(i) > 0\n    s = s + x(i);\n  end\n  y(i) = s;\nend",
            // a running maximum
            "y = zeros(1, n);\ns = 0;\nfor i = 1:n\n  s = max(s, x(i));\n  y(i) = s;\nend",
            // another carried value beside it
            "y = zeros(1, n);\ns = 0;\nq = 0;\nfor i = 1:n\n  s = s + x(i);\n  q = q + s;\n  y(i) = s;\nend",
            // a carried array dependence
            "y = zeros(1, n);\ns = 0;\nfor i = 2:n\n  s = s + y(i - 1);\n  y(i) = s;\nend",
        ] {
            let v = verdict_of_first_loop(body);
            assert_eq!(v.name(), "sequential", "{body}: {v:?}");
        }
    }
}
