//! Scans: a loop that carries one running sum or product and reads its value in the same
//! iteration (`s = s + x(i); y(i) = s;`: MATLAB's `cumsum` written by hand, and m2cu's own
//! `cumsum`/`cumprod` of a vector), including the stream compaction that collects selected
//! elements (`if x(i) > t, k = k + 1; y(k) = i; end`, and m2cu's own `find(x)`).
//!
//! Shape of a [`Scan`]: `s` is assigned once in the body, by the update `s = s ⊕ e`, a
//! statement of the body or of the `then` branch of `if`s in it (not of a nested loop), where
//! `⊕` is a plain sum or product of a real `double` or `single` (`s = s + e`, `e + s`,
//! `s - e`, `s + a - b`, `s * e`: recognized by [`crate::reduction`]) and neither `e` nor the
//! conditions of the enclosing `if`s mention `s`. Everything before the update in program order
//! (the statements before it in each enclosing block, and those conditions) neither mentions
//! `s` nor writes an array: the GPU runs an iteration's statements twice, once with array
//! stores left out to learn its term (`e`, or the identity when the update is not reached),
//! and once for real from the value of `s` before the iteration. No `continue` skips the rest
//! of an iteration (every thread of a block reaches the scan's barriers). The verdict checks
//! that the loop is otherwise parallel: no carried array dependence, and every other scalar
//! private and dead after the loop, with no reductions, histograms or inductions.
//!
//! A compaction store `a(s) = v` or `a(s ± c)` (one subscript; `c` an expression of values the
//! loop does not assign) in the update's own block after it, or in the branches of `if`s there,
//! writes a different element in every iteration that reaches it when the update is a count
//! (`s = s + 1`: the values of `s` there only grow), so it carries no dependence when nothing
//! else in the loop touches `a` ([`compaction`]). The `if`s let `find(x, n)` keep only the
//! first `n` (`if s <= n, a(s) = k; end`) or the last (`if s > skip, a(s - skip) = k; end`).
//!
//! After the loop `s` holds the total. The C path runs the loop in order (equal to MATLAB's
//! sums to the bit); the GPU adds the terms in a tree, so a floating-point scan agrees with the
//! sequential one within the tolerance of a reassociated sum (counts are exact).

use std::collections::BTreeSet;

use m2cu_frontend::ir::PrintTo;
use m2cu_frontend::ir::{BinOp, Block, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind};
use m2cu_frontend::operator::Operator;
use m2cu_frontend::types::Class;

use crate::reduction::{self, Form, Reduction};
use crate::{loops, per_output, scalars};

/// A running sum or product that iterations read after (or before) adding their term.
#[derive(Clone, Debug, PartialEq)]
pub struct Scan {
    /// The running value `s`.
    pub var: LocalId,
    /// The update as a reduction with one plain update, spelled by the code generators from
    /// the operator table like any other.
    pub reduction: Reduction,
}

/// Where the update of `s` sits: the statement, and the blocks around it from the body inward
/// with the position in each of the statement that leads to it.
struct Site<'f> {
    update: StmtId,
    path: Vec<(&'f Block, usize)>,
}

/// The single assignment to `s` in `block`, outside nested loops and `else` branches.
fn site<'f>(f: &'f Function, block: &'f Block, s: LocalId) -> Option<Site<'f>> {
    for (position, &st) in block.0.iter().enumerate() {
        match &f.stmts[st].kind {
            StmtKind::Assign { target, .. } if *target == s => {
                return Some(Site {
                    update: st,
                    path: vec![(block, position)],
                })
            }
            StmtKind::If { then_body, .. } => {
                if let Some(mut inner) = site(f, then_body, s) {
                    inner.path.insert(0, (block, position));
                    return Some(inner);
                }
            }
            _ => {}
        }
    }
    None
}

/// `s` as the running value of a scan of the loop over `var` with body `body`, if the body has
/// the scan's shape (see the module docs; the loop's other scalars and arrays are checked by
/// the verdict).
pub fn find(f: &Function, body: &Block, var: LocalId, s: LocalId) -> Option<Scan> {
    let ty = f.locals[s].ty;
    if !ty.is_scalar() || ty.complex || !matches!(ty.class, Class::Double | Class::Single) {
        return None;
    }
    let mut assignments = 0;
    f.walk_stmts(body, &mut |st| {
        assignments +=
            usize::from(matches!(f.stmts[st].kind, StmtKind::Assign { target, .. } if target == s));
    });
    if assignments != 1 || loops::continues(f, body) {
        return None;
    }
    let site = site(f, body, s)?;
    let update = Block(vec![site.update]);
    let reduction = reduction::recognize_each(f, &update, var, &BTreeSet::from([s]))
        .remove(&s)?
        .ok()?;
    let plain = matches!(reduction.form, Form::Plain | Form::Count)
        && matches!(reduction.operator, Operator::Sum | Operator::Prod);
    (plain && before_is_clean(f, &site, s)).then_some(Scan { var: s, reduction })
}

/// Whether what runs before the update (the statements before it in each enclosing block, and
/// the conditions of the enclosing `if`s) neither mentions `s` nor writes an array.
fn before_is_clean(f: &Function, site: &Site, s: LocalId) -> bool {
    site.path
        .iter()
        .enumerate()
        .all(|(depth, &(block, position))| {
            let before = Block(block.0[..position].to_vec());
            let clean = !scalars::scalars_read(f, &before).contains(&s)
                && before
                    .0
                    .iter()
                    .all(|&st| per_output::only_assigns_scalars(f, st));
            let leads = block.0[position];
            let condition_clean = depth + 1 == site.path.len()
                || f.stmt_exprs(leads)
                    .into_iter()
                    .all(|e| scalars::read_span(f, e, s).is_none());
            clean && condition_clean
        })
}

/// The compaction stores of the count `s` in the body of the loop over `var` (see the module
/// docs): the stores `a(s) = v` and `a(s ± c)` after the update in its block or in `if`s there,
/// when the update adds 1 and no other statement of the body touches those arrays. Empty when there are none or `s` is no such count.
pub fn compaction(f: &Function, body: &Block, var: LocalId, s: LocalId) -> BTreeSet<StmtId> {
    let Some(site) = site(f, body, s) else {
        return BTreeSet::new();
    };
    let counts = matches!(&f.stmts[site.update].kind, StmtKind::Assign { value, .. }
        if matches!(f.exprs[*value].kind, ExprKind::Binary(BinOp::Add, a, b)
            if matches!(f.exprs[a].kind, ExprKind::Local(l) if l == s)
                && matches!(f.exprs[b].kind, ExprKind::Const(c) if c == 1.0)));
    let Some(&(block, position)) = site.path.last().filter(|_| counts) else {
        return BTreeSet::new();
    };
    let mut assigned = crate::access::assigned_scalars(f, body);
    assigned.insert(var);
    let mut stores: Vec<(StmtId, LocalId)> = Vec::new();
    f.walk_stmts(&Block(block.0[position + 1..].to_vec()), &mut |st| {
        if let StmtKind::Store { array, indices, .. } = &f.stmts[st].kind {
            if let [index] = indices.as_slice() {
                if shifted_count(f, *index, s, &assigned) {
                    stores.push((st, *array));
                }
            }
        }
    });
    // A store inside a loop after the update could write its element more than once.
    let in_loops = in_nested_loops(f, &Block(block.0[position + 1..].to_vec()));
    stores.retain(|(st, _)| !in_loops.contains(st));
    let arrays: BTreeSet<LocalId> = stores.iter().map(|&(_, a)| a).collect();
    // Nothing reads the arrays (the stores' own values and subscripts included), and nothing
    // but the compaction stores writes them.
    let (read, _) = scalars::arrays_used(f, body);
    let mut touched = !read.is_disjoint(&arrays);
    f.walk_stmts(body, &mut |st| {
        let store = stores.iter().any(|&(x, _)| x == st);
        let writes = match &f.stmts[st].kind {
            StmtKind::Store { array, .. }
            | StmtKind::Resize { array, .. }
            | StmtKind::Print {
                to: PrintTo::Append { row: array },
                ..
            } => arrays.contains(array),
            StmtKind::Alloc { target, .. } | StmtKind::Assign { target, .. } => {
                arrays.contains(target)
            }
            _ => false,
        };
        touched |= writes && !store;
    });
    match touched {
        true => BTreeSet::new(),
        false => stores.into_iter().map(|(st, _)| st).collect(),
    }
}

/// Whether `e` is `s`, `s + c` or `s - c` with `c` reading no scalar in `assigned` and no
/// array element (a value that is the same in every iteration).
fn shifted_count(f: &Function, e: ExprId, s: LocalId, assigned: &BTreeSet<LocalId>) -> bool {
    let is_s = |e: ExprId| matches!(f.exprs[e].kind, ExprKind::Local(l) if l == s);
    match f.exprs[e].kind {
        ExprKind::Local(l) => l == s,
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, c) if is_s(a) => {
            let mut invariant = true;
            f.walk_expr(c, &mut |x| match f.exprs[x].kind {
                ExprKind::Local(l) => invariant &= !assigned.contains(&l),
                ExprKind::Index(..) => invariant = false,
                _ => {}
            });
            invariant
        }
        _ => false,
    }
}

/// The statements of `block` that lie inside a loop of it.
fn in_nested_loops(f: &Function, block: &Block) -> BTreeSet<StmtId> {
    let mut inside = BTreeSet::new();
    f.walk_stmts(block, &mut |st| {
        if let StmtKind::For { body, .. } | StmtKind::While { body, .. } = &f.stmts[st].kind {
            f.walk_stmts(body, &mut |x| {
                inside.insert(x);
            });
        }
    });
    inside
}

#[cfg(test)]
mod tests {
    use crate::test_util::verdict_of_first_loop;

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
    fn a_conditional_running_sum_read_after_the_if_is_a_scan() {
        let v = verdict_of_first_loop(
            "y = zeros(1, n);\ns = 0;\nfor i = 1:n\n  if x(i) > 0\n    s = s + x(i);\n  end\n  y(i) = s;\nend",
        );
        assert_eq!(v.name(), "scan", "{v:?}");
    }

    #[test]
    fn collecting_selected_elements_is_a_count_scan() {
        let v = verdict_of_first_loop(
            "y = zeros(1, n);\nv = zeros(1, n);\nk = 0;\nfor i = 1:n\n  if x(i) > 0.5\n    k = k + 1;\n    y(k) = i;\n    v(k) = x(i);\n  end\nend",
        );
        assert_eq!(v.name(), "scan", "{v:?}");
        assert_eq!(v.scan().map(|s| s.reduction.json_name()), Some("count"));
    }

    #[test]
    fn compaction_stores_in_ifs_and_shifted_by_a_constant_are_a_count_scan() {
        for body in [
            // the first n (find(x, n))
            "m = 3;\ny = zeros(1, m);\nk = 0;\nfor i = 1:n\n  if x(i) ~= 0\n    k = k + 1;\n    if k <= m\n      y(k) = i;\n    end\n  end\nend",
            // the last ones, shifted down (find(x, n, 'last'))
            "m = 3;\ny = zeros(1, n);\nk = 0;\nfor i = 1:n\n  if x(i) ~= 0\n    k = k + 1;\n    if k > m\n      y(k - m) = i;\n    end\n  end\nend",
        ] {
            let v = verdict_of_first_loop(body);
            assert_eq!(v.name(), "scan", "{body}: {v:?}");
        }
    }

    #[test]
    fn what_is_not_a_scan_stays_sequential() {
        for body in [
            // read before the update: the exclusive prefix, not taken
            "y = zeros(1, n);\ns = 0;\nfor i = 1:n\n  y(i) = s;\n  s = s + x(i);\nend",
            // updated twice
            "y = zeros(1, n);\ns = 0;\nfor i = 1:n\n  s = s + x(i);\n  y(i) = s;\n  s = s + 1;\nend",
            // a condition that reads the running value
            "y = zeros(1, n);\ns = 0;\nfor i = 1:n\n  if s < 10\n    s = s + x(i);\n  end\n  y(i) = s;\nend",
            // an array written before the update
            "y = zeros(1, n);\ns = 0;\nfor i = 1:n\n  y(i) = 2;\n  s = s + x(i);\n  y(i) = s;\nend",
            // a compaction whose array is read in the loop too
            "y = zeros(1, n);\nk = 0;\nfor i = 1:n\n  if x(i) > 0\n    k = k + 1;\n    y(k) = i + y(1);\n  end\nend",
            // a compaction by a count that steps by 2
            "y = zeros(1, n);\nk = 0;\nfor i = 1:n\n  if x(i) > 0\n    k = k + 2;\n    y(k) = i;\n  end\nend",
            // a compaction shifted by the loop variable: two iterations may meet
            "y = zeros(1, 2 * n);\nk = 0;\nfor i = 1:n\n  if x(i) > 0\n    k = k + 1;\n    y(k + i) = i;\n  end\nend",
            // a compaction shifted by a value the loop assigns
            "y = zeros(1, 2 * n);\nk = 0;\nfor i = 1:n\n  d = x(i) > 0.5;\n  if x(i) > 0\n    k = k + 1;\n    y(k + d) = i;\n  end\nend",
            // a compaction store inside a loop after the count
            "y = zeros(1, 2 * n);\nk = 0;\nfor i = 1:n\n  if x(i) > 0\n    k = k + 1;\n    for t = 1:2\n      y(k) = t;\n    end\n  end\nend",
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
