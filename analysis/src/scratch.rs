//! Scratch arrays: an array that every iteration of a loop creates before it touches it, and
//! that nothing outside the loop touches (`w = zeros(3, 3)` filled and read in the iteration, a
//! `gpucoder.stencilKernel` window, `p = [x(i) y(i)]`), so each iteration (each thread) may own
//! a copy of it and no value flows between iterations through it.
//!
//! An array `w` created in the body of a loop (an `Alloc` of `w`) is a scratch array of the loop
//! when:
//! - `w` is neither an input nor an output of the function, and every statement that mentions
//!   it lies inside the loop's body or inside another `for` loop for which `w` is a scratch
//!   array by the next rule (one name, `tmp`, may serve several loops);
//! - every iteration creates it before anything else touches it: the first statement of the body
//!   that mentions `w` is an `Alloc` of it or a copy of another array into it (`w = t`) that
//!   does not read `w`, or a `for` loop whose body satisfies the same rule and after which the
//!   body does not mention `w` (an inner loop of no iterations would leave it as an earlier
//!   iteration did);
//! - every statement that creates or changes its extents is such an `Alloc` or copy, 2-D, of
//!   constant extents (an `Alloc`'s written as constants or known from `w`'s type, a copy's
//!   known from `w`'s type), nothing grows it, and it has at most [`MAX_ELEMENTS`] elements: the
//!   generated code gives each thread storage of that capacity.
//!
//! The dependence tests then leave its stores out (they write the iteration's own copy).

use std::collections::BTreeSet;

use m2cu_frontend::ir::PrintTo;
use m2cu_frontend::ir::{Block, ExprKind, Function, LocalId, StmtId, StmtKind};
use m2cu_frontend::types::Dim;
use m2cu_frontend::Span;

/// The most elements a scratch array may have, which each thread holds in its own storage.
pub const MAX_ELEMENTS: u64 = 1024;

/// Why an array created in a loop's body is no scratch array of the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotScratch {
    /// An input or output of the function, or touched outside the loop (its value is needed
    /// after it, or comes from before it).
    Outside,
    /// An iteration may read it before creating it (or creates it only in a branch).
    NotCreatedFirst,
    /// Its extents change or are not known when m2cu translates, or it is 3-D or complex.
    SizeNotFixed,
    /// More than [`MAX_ELEMENTS`] elements.
    TooBig,
}

impl std::fmt::Display for NotScratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NotScratch::Outside => "used outside it too; create it before the loop, or keep it inside",
            NotScratch::NotCreatedFirst => "may be read before the iteration creates it; create it first in every iteration, or before the loop",
            NotScratch::SizeNotFixed => "its size is not fixed when m2cu translates; give it a size written as constants (`zeros(3, 1)`) or create it before the loop",
            NotScratch::TooBig => "is too big for each thread to own a copy; create it before the loop",
        })
    }
}

/// An array each iteration owns, and the elements its storage holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScratchArray {
    pub local: LocalId,
    pub capacity: u64,
}

/// The scratch arrays of the loop `stmt` with body `body`, or the first array created in the body
/// that is not one, with the statement that creates it and why.
pub fn find(
    f: &Function,
    stmt: StmtId,
    body: &Block,
) -> Result<Vec<ScratchArray>, (LocalId, Span, NotScratch)> {
    let mut created: Vec<(LocalId, StmtId)> = Vec::new();
    f.walk_stmts(body, &mut |s| {
        let target = match &f.stmts[s].kind {
            StmtKind::Alloc { target, .. }
            | StmtKind::Resize { array: target, .. }
            | StmtKind::Print {
                to: PrintTo::Append { row: target },
                ..
            } => *target,
            StmtKind::Assign { target, .. } if !f.locals[*target].ty.is_scalar() => *target,
            _ => return,
        };
        if !created.iter().any(|&(a, _)| a == target) {
            created.push((target, s));
        }
    });
    created
        .into_iter()
        .map(|(array, at)| match scratch(f, stmt, body, array) {
            Ok(capacity) => Ok(ScratchArray {
                local: array,
                capacity,
            }),
            Err(why) => Err((array, f.stmts[at].span, why)),
        })
        .collect()
}

/// The stores of `body` into the scratch arrays `arrays`.
pub fn stores(f: &Function, body: &Block, arrays: &[ScratchArray]) -> BTreeSet<StmtId> {
    let mut out = BTreeSet::new();
    f.walk_stmts(body, &mut |s| {
        if let StmtKind::Store { array, .. } = &f.stmts[s].kind {
            if arrays.iter().any(|a| a.local == *array) {
                out.insert(s);
            }
        }
    });
    out
}

/// `array`'s capacity if it is a scratch array of the loop `stmt` (see the module docs).
fn scratch(f: &Function, stmt: StmtId, body: &Block, array: LocalId) -> Result<u64, NotScratch> {
    let ty = f.locals[array].ty;
    if f.is_param(array) || f.is_output(array) || mentioned_outside(f, &f.body, stmt, array) {
        return Err(NotScratch::Outside);
    }
    if !created_first(f, body, array) {
        return Err(NotScratch::NotCreatedFirst);
    }
    if ty.complex || ty.shape.is_3d() {
        return Err(NotScratch::SizeNotFixed);
    }
    let mut capacity = Some(0);
    f.walk_stmts(body, &mut |s| match &f.stmts[s].kind {
        StmtKind::Alloc {
            target,
            rows,
            cols,
            pages: None,
            ..
        } if *target == array => {
            let extent =
                |e: m2cu_frontend::ir::ExprId, known: Dim| match (f.exprs[e].kind.clone(), known) {
                    (ExprKind::Const(v), _) if v >= 0.0 && v.fract() == 0.0 => Some(v as u64),
                    (_, Dim::Known(n)) => Some(n),
                    _ => None,
                };
            let elements = extent(*rows, ty.shape.rows)
                .zip(extent(*cols, ty.shape.cols))
                .map(|(r, c)| r * c);
            capacity = capacity.zip(elements).map(|(c, e)| c.max(e));
        }
        // A copy of another array: as many elements as `w`'s type says, if it says.
        StmtKind::Assign { target, .. } if *target == array => {
            let known = |d: Dim| match d {
                Dim::Known(n) => Some(n),
                Dim::Var => None,
            };
            let elements = known(ty.shape.rows)
                .zip(known(ty.shape.cols))
                .map(|(r, c)| r * c);
            capacity = capacity.zip(elements).map(|(c, e)| c.max(e));
        }
        StmtKind::Alloc { target, .. }
        | StmtKind::Resize { array: target, .. }
        | StmtKind::Print {
            to: PrintTo::Append { row: target },
            ..
        } if *target == array => {
            capacity = None;
        }
        _ => {}
    });
    match capacity {
        None => Err(NotScratch::SizeNotFixed),
        Some(c) if c > MAX_ELEMENTS => Err(NotScratch::TooBig),
        Some(c) => Ok(c),
    }
}

/// Whether a statement of `block` outside the loop `stmt` mentions `array`, other than inside
/// another `for` loop that uses it as a scratch array too (creates it first in every iteration
/// and keeps it inside: that loop never reads what `stmt` left, and `stmt` never reads what it
/// left, so `tmp` may serve as scratch in several loops).
fn mentioned_outside(f: &Function, block: &Block, stmt: StmtId, array: LocalId) -> bool {
    block.0.iter().any(|&s| {
        if s == stmt {
            return false;
        }
        match &f.stmts[s].kind {
            StmtKind::For { body, .. }
                if !encloses(f, s, stmt)
                    && !reads_own(f, s, array)
                    && created_first(f, body, array) =>
            {
                false
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                touches(f, s, array) || mentioned_outside(f, body, stmt, array)
            }
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                touches(f, s, array)
                    || mentioned_outside(f, then_body, stmt, array)
                    || mentioned_outside(f, else_body, stmt, array)
            }
            _ => touches(f, s, array),
        }
    })
}

/// Whether the statement `outer` is `inner` or contains it.
fn encloses(f: &Function, outer: StmtId, inner: StmtId) -> bool {
    let mut found = false;
    f.walk_stmts(&Block(vec![outer]), &mut |s| found |= s == inner);
    found
}

/// Whether the first statement of `block` that mentions `array` creates it, or is a `for` loop
/// whose body does.
fn created_first(f: &Function, block: &Block, array: LocalId) -> bool {
    let Some(at) = block.0.iter().position(|&s| mentions(f, s, array)) else {
        return false;
    };
    let first = block.0[at];
    match &f.stmts[first].kind {
        StmtKind::Alloc { target, .. } | StmtKind::Assign { target, .. } => {
            *target == array && !reads_own(f, first, array)
        }
        // Confined to the inner loop: after it, `w` would hold what an earlier iteration of the
        // outer loop left when the inner loop runs no iteration.
        StmtKind::For { body, .. } => {
            !reads_own(f, first, array)
                && created_first(f, body, array)
                && !block.0[at + 1..].iter().any(|&s| mentions(f, s, array))
        }
        _ => false,
    }
}

/// Whether the statement `s` or one nested in it mentions or creates `array`.
fn mentions(f: &Function, s: StmtId, array: LocalId) -> bool {
    let mut found = false;
    f.walk_stmts(&Block(vec![s]), &mut |x| found |= touches(f, x, array));
    found
}

/// Whether the statement `s` itself (its target or its expressions, not nested statements)
/// mentions or creates `array`.
fn touches(f: &Function, s: StmtId, array: LocalId) -> bool {
    let target = match &f.stmts[s].kind {
        StmtKind::Alloc { target, .. }
        | StmtKind::Assign { target, .. }
        | StmtKind::Store { array: target, .. }
        | StmtKind::Resize { array: target, .. }
        | StmtKind::Print {
            to: PrintTo::Append { row: target },
            ..
        } => Some(*target),
        _ => None,
    };
    target == Some(array) || reads_own(f, s, array)
}

/// Whether the expressions of the statement `s` itself read `array` (its elements, its value or
/// its size).
fn reads_own(f: &Function, s: StmtId, array: LocalId) -> bool {
    let mut found = false;
    for e in f.stmt_exprs(s) {
        f.walk_expr(e, &mut |x| {
            found |= f.exprs[x].kind.named_local() == Some(array)
        });
    }
    found
}

#[cfg(test)]
mod tests {
    use crate::test_util::verdict_of_first_loop as first_loop;

    #[test]
    fn arrays_each_iteration_creates_first_with_a_fixed_size_are_scratch() {
        for body in [
            "y = zeros(1, n);\nfor i = 1:n\n  t = zeros(1, 3);\n  t(2) = x(i);\n  y(i) = sum(t);\nend",
            "y = zeros(1, n);\nfor i = 1:n\n  p = [x(i) 2];\n  y(i) = max(p);\nend",
            "y = zeros(n, n);\nfor j = 1:n\n  for i = 1:n\n    w = ones(2, 2) * x(i);\n    y(i, j) = w(1, 2);\n  end\nend",
        ] {
            let v = first_loop(body);
            assert!(v.is_parallel(), "{body}: {v:?}");
            assert!(!v.privates().expect("privates").scratch.is_empty(), "{body}");
        }
    }

    #[test]
    fn one_name_may_be_scratch_in_several_loops() {
        let body = "y = zeros(1, n);\nfor i = 1:n\n  t = [x(i) 1];\n  y(i) = t(1);\nend\nfor i = 1:n\n  t = [1 x(i)];\n  y(i) = y(i) + t(2);\nend";
        let f = crate::test_util::function(body);
        let a = crate::analyze(&f);
        for (id, _) in a.loops.loops.iter() {
            assert!(a.verdicts[id].is_parallel(), "{:?}", a.verdicts[id]);
        }
    }

    #[test]
    fn other_arrays_created_in_the_loop_keep_it_sequential() {
        for (body, why) in [
            // read after the loop
            ("for i = 1:n\n  t = [x(i) 1];\nend\ny = t;", "used outside it"),
            // read after the loop, in another loop that does not create it first
            ("y = zeros(1, n);\nfor i = 1:n\n  t = [x(i) 1];\nend\nfor i = 1:n\n  y(i) = t(1);\nend", "used outside it"),
            // read before the iteration creates it
            ("y = zeros(1, n);\nt = zeros(1, 2);\nfor i = 1:n\n  y(i) = t(1);\n  t = zeros(1, 2);\nend", "used outside it"),
            ("y = zeros(1, n);\nfor i = 1:n\n  if x(i) > 0\n    t = zeros(1, 2);\n  end\n  y(i) = 1;\nend", "read before"),
            // read after an inner loop that creates it, which may run no iteration
            ("y = zeros(1, n);\nfor i = 1:n\n  for k = 1:x(i)\n    t = [k 1];\n  end\n  y(i) = t(1);\nend", "read before"),
            // a size known only when the program runs
            ("y = zeros(1, n);\nfor i = 1:n\n  t = zeros(1, n);\n  y(i) = sum(t);\nend", "not fixed"),
            // too big for a thread
            ("y = zeros(1, n);\nfor i = 1:n\n  t = zeros(100, 100);\n  y(i) = t(1);\nend", "too big"),
        ] {
            let v = first_loop(body);
            let reason = v.sequential_reason().map(ToString::to_string).unwrap_or_default();
            assert!(reason.contains(why), "{body}: {reason}");
        }
    }
}
