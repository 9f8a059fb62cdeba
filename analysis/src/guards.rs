//! Index checks hoisted out of loops: a subscript `v + d` that [`crate::bounds`] cannot prove
//! in range, where `v` is the loop's variable or the variable of a loop around it, is checked
//! once before the loop: for the smallest and the largest value the loop's variable takes, or
//! for the outer variable's current value. When those checks decide every index check in the
//! loop that is not proven, the code generator runs the loop in two versions: if every check
//! before it passes, a copy without index checks (which the C compiler can vectorize);
//! otherwise the loop as it was, so an out-of-range index fails at the same iteration with the
//! same message as MATLAB. `y(i) = a * x(i) + y(i)` for `i = 1:numel(x)`: `y(i)` is checked
//! once, against `numel(y)`.
//!
//! Invariants (what makes a check before the loop decide every check in it):
//! - The loop's variable holds integers and its body never assigns it, so it takes exactly
//!   the values of the range, which is evaluated once before the loop. An outer variable
//!   qualifies on the same terms for its own loop and is not assigned in this loop's body, so
//!   its value before the loop is its value throughout.
//! - The array is not assigned whole, allocated, resized or copied anywhere in the loop body
//!   (an element store never changes a size), so its extents before the loop are its extents
//!   at every iteration.
//! - One or two subscripts; the extent a subscript is checked against is the one its own
//!   check uses (the element count for one subscript, rows or columns for two).

use std::collections::{BTreeMap, BTreeSet};

use m2cu_frontend::ir::PrintTo;
use m2cu_frontend::ir::{Block, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind};

use crate::bounds::{var_plus, InRange};

/// The key of a subscript's check: `(array, position among the indices, subscript)`, as in
/// [`InRange::contains`].
pub type Subscript = (LocalId, usize, ExprId);

/// A subscript `array(..., var + offset, ...)` (at `position` of `count`) checked before a
/// loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Guard {
    pub array: LocalId,
    pub position: usize,
    pub count: usize,
    pub index: ExprId,
    pub var: LocalId,
    pub offset: i64,
    pub values: Values,
}

/// Which values of `var` the check before the loop covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Values {
    /// The range of the `for` loop `stmt`, whose variable `var` is.
    Range(StmtId),
    /// The value `var` holds before the loop (an outer loop's variable).
    Current,
}

impl Guard {
    pub fn key(&self) -> Subscript {
        (self.array, self.position, self.index)
    }
}

/// What the check before one loop can and cannot decide.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct LoopGuards {
    guards: Vec<Guard>,
    /// The subscripts in the body that neither a guard nor a proof covers.
    unguarded: BTreeSet<Subscript>,
}

/// The guards of every `for` loop that has some.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Guards {
    by_loop: BTreeMap<StmtId, LoopGuards>,
}

impl Guards {
    /// The subscripts of every loop of `f` that a check before the loop can decide, leaving
    /// out those `in_range` proves.
    pub fn of(f: &Function, in_range: &InRange) -> Guards {
        let mut finder = Finder {
            f,
            in_range,
            by_loop: BTreeMap::new(),
        };
        finder.block(&f.body, &[]);
        Guards {
            by_loop: finder.by_loop,
        }
    }

    /// The guards that decide every unproven index check in `levels` (one loop, or the loops
    /// of a nest that runs as one, outermost first), when there are some: the loop is worth
    /// running in two versions. A guard on the current value of a level's own variable is
    /// left out (that variable has no value before the nest; the level's range guard covers
    /// the subscript).
    pub fn deciding(&self, levels: &[StmtId], level_vars: &[LocalId]) -> Vec<Guard> {
        let mut guards = Vec::new();
        let mut unguarded = BTreeSet::new();
        for s in levels {
            let Some(found) = self.by_loop.get(s) else {
                continue;
            };
            unguarded.extend(found.unguarded.iter().copied());
            guards.extend(
                found
                    .guards
                    .iter()
                    .copied()
                    .filter(|g| g.values != Values::Current || !level_vars.contains(&g.var)),
            );
        }
        for g in &guards {
            unguarded.remove(&g.key());
        }
        match unguarded.is_empty() {
            true => guards,
            false => Vec::new(),
        }
    }

    /// How many loops have guards.
    pub fn len(&self) -> usize {
        self.by_loop.len()
    }

    /// Whether no loop has one.
    pub fn is_empty(&self) -> bool {
        self.by_loop.is_empty()
    }
}

struct Finder<'f> {
    f: &'f Function,
    in_range: &'f InRange,
    by_loop: BTreeMap<StmtId, LoopGuards>,
}

impl Finder<'_> {
    /// Finds the guards of the loops in `block`, inside loops over `outer` (variables that
    /// qualify for guards on their current value).
    fn block(&mut self, block: &Block, outer: &[LocalId]) {
        let f = self.f;
        for &s in &block.0 {
            match &f.stmts[s].kind {
                StmtKind::For { var, body, .. } => {
                    let assigned = f.tree().assigned(body);
                    let counted = f.locals[*var].integral_in_loops() && !assigned.contains(var);
                    let fixed: Vec<LocalId> = outer
                        .iter()
                        .copied()
                        .filter(|v| !assigned.contains(v))
                        .collect();
                    let found = self.loop_guards(s, counted.then_some(*var), &fixed, body);
                    if !found.guards.is_empty() {
                        self.by_loop.insert(s, found);
                    }
                    let mut inner = outer.to_vec();
                    if counted {
                        inner.push(*var);
                    }
                    self.block(body, &inner);
                }
                StmtKind::While { body, .. } => self.block(body, outer),
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.block(then_body, outer);
                    self.block(else_body, outer);
                }
                _ => {}
            }
        }
    }

    /// The guards of loop `s` over `var` (when it qualifies) with `fixed` outer variables.
    fn loop_guards(
        &self,
        s: StmtId,
        var: Option<LocalId>,
        fixed: &[LocalId],
        body: &Block,
    ) -> LoopGuards {
        let f = self.f;
        let replaced = replaced_arrays(f, body);
        let mut found = LoopGuards::default();
        accesses(f, body, &mut |array, indices| {
            for (position, &index) in indices.iter().enumerate() {
                if self.in_range.contains(array, position, index) {
                    continue;
                }
                let values = match var_plus(f, index) {
                    _ if indices.len() > 2 || replaced.contains(&array) => None,
                    Some((v, d)) if Some(v) == var => Some((v, d, Values::Range(s))),
                    Some((v, d)) if fixed.contains(&v) => Some((v, d, Values::Current)),
                    _ => None,
                };
                match values {
                    Some((var, offset, values)) => found.guards.push(Guard {
                        array,
                        position,
                        count: indices.len(),
                        index,
                        var,
                        offset,
                        values,
                    }),
                    None => {
                        found.unguarded.insert((array, position, index));
                    }
                }
            }
        });
        found.guards.sort();
        found.guards.dedup();
        found
    }
}

/// The arrays whose storage or extents statements in `body` may change: assigned whole,
/// allocated, resized, or copied whole into another array (which may move their storage).
fn replaced_arrays(f: &Function, body: &Block) -> BTreeSet<LocalId> {
    let mut replaced = BTreeSet::new();
    f.walk_stmts(body, &mut |s| match &f.stmts[s].kind {
        StmtKind::Assign { target, value } => {
            replaced.insert(*target);
            if let ExprKind::Local(source) = f.exprs[*value].kind {
                replaced.insert(source);
            }
        }
        StmtKind::Alloc { target, .. }
        | StmtKind::Resize { array: target, .. }
        | StmtKind::Print {
            to: PrintTo::Append { row: target },
            ..
        } => {
            replaced.insert(*target);
        }
        _ => {}
    });
    replaced
}

/// Calls `visit(array, indices)` for every element read and store in `body`, nested ones too.
fn accesses(f: &Function, body: &Block, visit: &mut impl FnMut(LocalId, &[ExprId])) {
    f.walk_stmts(body, &mut |s| {
        if let StmtKind::Store { array, indices, .. } = &f.stmts[s].kind {
            visit(*array, indices);
        }
        for e in f.stmt_exprs(s) {
            f.walk_expr(e, &mut |x| {
                if let ExprKind::Index(array, indices) = &f.exprs[x].kind {
                    visit(*array, indices);
                }
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::function;

    /// The `for` loops of `f`, in program order.
    fn loops(f: &Function) -> Vec<(StmtId, LocalId)> {
        let mut found = Vec::new();
        f.walk_stmts(&f.body, &mut |s| {
            if let StmtKind::For { var, .. } = &f.stmts[s].kind {
                found.push((s, *var));
            }
        });
        found
    }

    /// For each loop of `body` (program order), the names of the arrays and the offsets of
    /// the guards that decide all its unproven checks, with `Current` ones marked `@`.
    fn deciding(body: &str) -> Vec<Vec<String>> {
        let f = function(body);
        let guards = Guards::of(&f, &InRange::of(&f));
        let describe = |g: &Guard| {
            let current = if g.values == Values::Current { "@" } else { "" };
            format!("{}{current}{:+}", f.locals[g.array].name, g.offset)
        };
        loops(&f)
            .iter()
            .map(|(s, _)| guards.deciding(&[*s], &[]).iter().map(describe).collect())
            .collect()
    }

    #[test]
    fn a_subscript_of_the_loop_variable_into_another_array_is_checked_before_the_loop() {
        // x(i) is proven; the store and the read of y(i) are checked against numel(y) once.
        let saxpy = "y = zeros(1, n); for i = 1:numel(x), y(i) = x(i) * n + y(i); end";
        assert_eq!(deciding(saxpy), [vec!["y+0", "y+0"]]);
        let shifted = "y = zeros(1, numel(x)); for i = 1:n, y(i) = x(i + 1) - x(i - 1); end";
        assert_eq!(deciding(shifted), [vec!["x+1", "x-1", "y+0"]]);
        let down = "y = 0; for i = 10:-1:1, y = y + x(i); end";
        assert_eq!(deciding(down), [vec!["x+0"]]);
        // From `n`, which may hold a fraction, the variable may not be an integer.
        let fraction = "y = 0; for i = n:-1:1, y = y + x(i); end";
        assert_eq!(deciding(fraction), [Vec::<String>::new()]);
    }

    #[test]
    fn loops_with_a_check_no_guard_decides_run_once() {
        // An index that is not the loop variable plus a constant.
        let indirect = "y = 0; for i = 1:n, y = y + x(i) * x(2 * i); end";
        assert_eq!(deciding(indirect), [Vec::<String>::new()]);
        // The array grows in the loop: its extent before the loop says nothing.
        let grows = "y = 0; for i = 1:n, x(end + 1) = i; y = y + x(i); end";
        assert_eq!(deciding(grows), [Vec::<String>::new()]);
        // A copy of the whole array may move its storage.
        let copies = "y = 0; for i = 1:n, z = x; y = y + z(1) + x(i); end";
        assert_eq!(deciding(copies), [Vec::<String>::new()]);
    }

    #[test]
    fn an_outer_variable_is_checked_at_its_current_value() {
        let nest = "y = 0; for j = 1:n, for i = 1:n, y = y + x(i) * x(j); end, end";
        // The outer loop has an unguarded x(i) of the inner variable; the inner loop checks
        // x(j) at j's value and x(i) over its range.
        assert_eq!(deciding(nest), [vec![], vec!["x+0", "x@+0"]]);
        let f = function(nest);
        let guards = Guards::of(&f, &InRange::of(&f));
        let [(outer, j), (inner, i)] = loops(&f)[..] else {
            panic!("two loops")
        };
        // As one collapsed nest: both ranges, no current value of a level's variable.
        let nest_guards = guards.deciding(&[outer, inner], &[j, i]);
        assert!(nest_guards.iter().all(|g| g.values != Values::Current));
        assert_eq!(nest_guards.len(), 2);
        // A variable the loop assigns (not a loop's) has no current value to check.
        let moved = "y = 0; k = 1; for i = 1:n, k = i; y = y + x(k) + x(i); end";
        assert_eq!(deciding(moved), [Vec::<String>::new()]);
    }
}
