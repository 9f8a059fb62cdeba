//! Small vectors that a `for` loop assigns whole and reads by constant subscripts, held as one
//! scalar per element for the loop (scalar replacement of arrays), run on the finished IR.
//!
//! The location of a 2-D minimum kept as people keep it, `imn = [i j]` in the loop's `if` and
//! `imn(1)` after it, is an array the loop creates in every iteration, which keeps the loop
//! sequential. For an array `X` of at most [`MAX_ELEMENTS`] elements that the loop only assigns
//! as a row or column of scalars (`X = [a b]`, lowered to a temporary built element by
//! element and copied) and reads by constant subscripts, the loop gets scalars `_X_1 ..
//! _X_k` instead:
//!
//! ```text
//! _X_1 = X(1); ... _X_k = X(k);               before the loop
//! for ...  (X = [a b] is _X_1 = a; _X_2 = b; X(2) is _X_2)  end
//! X(1) = _X_1; ... X(k) = _X_k;               after the loop
//! ```
//!
//! so `if A(i, j) < mn, mn = A(i, j); imn = [i j]; end` is a min-with-location at `(i, j)`
//! (`analysis::reduction`).
//!
//! Invariants: `X` has a value and its fixed extents before the loop (the statements before
//! the loop in its block assign it), so the loads read what the loop would, and the stores put
//! back the values the loop left (no `return` in the loop skips them); the built values read nothing of `X` (each element is
//! assigned its own value, not one computed from `X` after an earlier element changed); the
//! temporary the row is built in appears nowhere else.

use super::rewrite::{self, expr, new_local, stmt};
use crate::ir::{Block, ExprId, ExprKind, Fill, Function, LocalId, PrintTo, StmtId, StmtKind};
use crate::types::{Class, Dim, Type};

/// The most elements a vector may have to be held as scalars.
pub const MAX_ELEMENTS: u64 = 4;

/// Holds the small vectors of `f`'s `for` loops in scalars (see the module docs).
pub(super) fn replace(f: &mut Function) {
    let body = std::mem::take(&mut f.body);
    f.body = replace_block(f, body);
}

fn replace_block(f: &mut Function, block: Block) -> Block {
    let mut out: Vec<StmtId> = Vec::with_capacity(block.0.len());
    for s in block.0 {
        let candidates = match f.stmts[s].kind {
            StmtKind::For { .. } => assigned_before(f, &out),
            _ => Vec::new(),
        };
        let mut after = Vec::new();
        for x in candidates {
            if let Some(plan) = plan(f, s, x) {
                let (pre, post) = rewrite(f, s, x, plan);
                out.extend(pre);
                after.extend(post);
            }
        }
        rewrite::nested_blocks(f, s, true, replace_block);
        out.push(s);
        out.extend(after);
    }
    Block(out)
}

/// The small real vectors (not parameters) that the statements `before` assign whole.
fn assigned_before(f: &Function, before: &[StmtId]) -> Vec<LocalId> {
    let mut out = Vec::new();
    for &s in before {
        if let StmtKind::Assign { target, .. } | StmtKind::Alloc { target, .. } = f.stmts[s].kind {
            if elements(f, target).is_some() && !f.is_param(target) && !out.contains(&target) {
                out.push(target);
            }
        }
    }
    out
}

/// The number of elements of a real 2-D array of fixed extents with at most [`MAX_ELEMENTS`].
fn elements(f: &Function, x: LocalId) -> Option<u64> {
    let ty = f.locals[x].ty;
    let known = |d: Dim| match d {
        Dim::Known(n) => Some(n),
        _ => None,
    };
    let n = known(ty.shape.rows)? * known(ty.shape.cols)?;
    let plain = !ty.complex && !ty.is_scalar() && known(ty.shape.pages)? == 1;
    (plain && n <= MAX_ELEMENTS && ty.class != Class::Char).then_some(n)
}

/// What the loop does with `x`: the rows it assigns (the copy, and the statements building the
/// temporary with the value of each element), and its element reads with their positions.
struct Plan {
    rows: Vec<Row>,
    reads: Vec<(ExprId, u64)>,
}

/// `T = zeros(..); T(p) = v; ...; X = T`: the statements, and the value of each element.
struct Row {
    stmts: Vec<StmtId>,
    values: Vec<Option<ExprId>>,
}

/// How loop `s` uses `x`, if every use is a whole row assigned or an element read.
fn plan(f: &Function, s: StmtId, x: LocalId) -> Option<Plan> {
    let n = elements(f, x)?;
    let StmtKind::For { body, .. } = &f.stmts[s].kind else {
        return None;
    };
    let mut plan = Plan {
        rows: Vec::new(),
        reads: Vec::new(),
    };
    let mut in_rows = Vec::new();
    let mut ok = true;
    visit_blocks(f, body, &mut |block| {
        for (p, &st) in block.0.iter().enumerate() {
            if let StmtKind::Assign { target, .. } = f.stmts[st].kind {
                if target == x {
                    match row(f, &block.0[..=p], x, n) {
                        Some(r) => {
                            in_rows.extend(r.stmts.iter().copied());
                            plan.rows.push(r);
                        }
                        None => ok = false,
                    }
                }
            }
        }
    });
    f.walk_stmts(body, &mut |st| {
        match &f.stmts[st].kind {
            StmtKind::Store { array: t, .. }
            | StmtKind::Alloc { target: t, .. }
            | StmtKind::Resize { array: t, .. }
            | StmtKind::Print {
                to: PrintTo::Append { row: t },
                ..
            } if *t == x => ok = false,
            // A `return` would skip the stores after the loop.
            StmtKind::Return => ok = false,
            _ => {}
        }
        if in_rows.contains(&st) {
            return;
        }
        for e in f.stmt_exprs(st) {
            f.walk_expr(e, &mut |y| match &f.exprs[y].kind {
                ExprKind::Index(a, args) if *a == x => match position(f, x, args) {
                    Some(k) => plan.reads.push((y, k)),
                    None => ok = false,
                },
                ExprKind::Local(a) if *a == x => ok = false,
                _ => {}
            });
        }
    });
    (ok && !plan.rows.is_empty()).then_some(plan)
}

/// Calls `visit` on `block` and every block nested in it.
fn visit_blocks(f: &Function, block: &Block, visit: &mut impl FnMut(&Block)) {
    visit(block);
    for &s in &block.0 {
        match &f.stmts[s].kind {
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                visit_blocks(f, body, visit)
            }
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                visit_blocks(f, then_body, visit);
                visit_blocks(f, else_body, visit);
            }
            _ => {}
        }
    }
}

/// The row that the last statement of `upto`, `X = T`, copies: `T` built by the statements
/// right before it (`T = zeros(..)`, then stores of constant positions) and used nowhere else.
fn row(f: &Function, upto: &[StmtId], x: LocalId, n: u64) -> Option<Row> {
    let (&copy, before) = upto.split_last()?;
    let StmtKind::Assign { value, .. } = f.stmts[copy].kind else {
        return None;
    };
    let ExprKind::Local(t) = f.exprs[value].kind else {
        return None;
    };
    if f.locals[t].ty != f.locals[x].ty {
        return None;
    }
    let mut values = vec![None; n as usize];
    let mut stmts = vec![copy];
    for &st in before.iter().rev() {
        match &f.stmts[st].kind {
            StmtKind::Store {
                array,
                indices,
                value,
            } if *array == t => {
                let k = position(f, t, indices)?;
                let slot = &mut values[k as usize - 1];
                if slot.is_none() && !f.mentions(*value, x) && !f.mentions(*value, t) {
                    *slot = Some(*value);
                } else {
                    return None;
                }
                stmts.push(st);
            }
            StmtKind::Alloc {
                target,
                fill: Fill::Zeros,
                ..
            } if *target == t => {
                stmts.push(st);
                return used_only_in(f, t, &stmts).then_some(Row { stmts, values });
            }
            _ => return None,
        }
    }
    None
}

/// Whether `t` appears in no statement of `f` but `stmts`.
fn used_only_in(f: &Function, t: LocalId, stmts: &[StmtId]) -> bool {
    let mut ok = true;
    f.walk_stmts(&f.body, &mut |st| {
        if stmts.contains(&st) {
            return;
        }
        let targets = match &f.stmts[st].kind {
            StmtKind::Assign { target, .. } | StmtKind::Alloc { target, .. } => Some(*target),
            StmtKind::Store { array, .. }
            | StmtKind::Resize { array, .. }
            | StmtKind::Print {
                to: PrintTo::Append { row: array },
                ..
            } => Some(*array),
            _ => None,
        };
        ok &= targets != Some(t) && !f.stmt_exprs(st).into_iter().any(|e| f.mentions(e, t));
    });
    ok
}

/// The 1-based linear position that constant subscripts `args` name in `x`, if in range.
fn position(f: &Function, x: LocalId, args: &[ExprId]) -> Option<u64> {
    let constant = |e: ExprId| match f.exprs[e].kind {
        ExprKind::Const(v) if v.fract() == 0.0 && v >= 1.0 && v <= MAX_ELEMENTS as f64 => {
            Some(v as u64)
        }
        _ => None,
    };
    let n = elements(f, x)?;
    let Dim::Known(rows) = f.locals[x].ty.shape.rows else {
        return None;
    };
    let k = match args {
        [k] => constant(*k)?,
        [r, c] if constant(*r)? <= rows => constant(*r)? + (constant(*c)? - 1) * rows,
        _ => return None,
    };
    (k <= n).then_some(k)
}

/// Rewrites loop `s` for `x`: the loads before it and the stores after it.
fn rewrite(f: &mut Function, s: StmtId, x: LocalId, plan: Plan) -> (Vec<StmtId>, Vec<StmtId>) {
    let span = f.stmts[s].span;
    let class = f.locals[x].ty.class;
    let n = elements(f, x).expect("a planned vector");
    let name = f.locals[x].name.trim_start_matches('_').to_string();
    let scalars: Vec<LocalId> = (1..=n)
        .map(|k| {
            let shown = rewrite::derived(f, x, |v| format!("{v}({k})"));
            new_local(f, &format!("_{name}_{k}"), Type::scalar(class), span, shown)
        })
        .collect();
    let element = |f: &mut Function, k: u64| {
        let at = expr(
            f,
            ExprKind::Const(k as f64),
            Type::scalar(Class::Double),
            span,
        );
        expr(f, ExprKind::Index(x, vec![at]), Type::scalar(class), span)
    };
    let mut pre = Vec::new();
    let mut post = Vec::new();
    for (k, &scalar) in (1..=n).zip(&scalars) {
        let value = element(f, k);
        pre.push(stmt(
            f,
            StmtKind::Assign {
                target: scalar,
                value,
            },
            span,
        ));
        let value = expr(f, ExprKind::Local(scalar), Type::scalar(class), span);
        let at = expr(
            f,
            ExprKind::Const(k as f64),
            Type::scalar(Class::Double),
            span,
        );
        post.push(stmt(
            f,
            StmtKind::Store {
                array: x,
                indices: vec![at],
                value,
            },
            span,
        ));
    }
    for (read, k) in plan.reads {
        f.exprs[read].kind = ExprKind::Local(scalars[k as usize - 1]);
    }
    for row in plan.rows {
        rewrite_row(f, s, &row, &scalars, class);
    }
    (pre, post)
}

/// Replaces the statements of `row` inside loop `s` by one assignment per element (zero where
/// the row stored nothing, as `zeros` left it).
fn rewrite_row(f: &mut Function, s: StmtId, row: &Row, scalars: &[LocalId], class: Class) {
    let copy = row.stmts[0];
    let span = f.stmts[copy].span;
    let assigns: Vec<StmtId> = row
        .values
        .iter()
        .zip(scalars)
        .map(|(value, &target)| {
            let value =
                value.unwrap_or_else(|| expr(f, ExprKind::Const(0.0), Type::scalar(class), span));
            stmt(f, StmtKind::Assign { target, value }, span)
        })
        .collect();
    let mut kind = std::mem::replace(&mut f.stmts[s].kind, StmtKind::Break);
    if let StmtKind::For { body, .. } = &mut kind {
        splice(f, body, &row.stmts, copy, &assigns);
    }
    f.stmts[s].kind = kind;
}

/// In `block` or a block nested in it: drops `dropped` and puts `new` where `at` was.
fn splice(f: &mut Function, block: &mut Block, dropped: &[StmtId], at: StmtId, new: &[StmtId]) {
    let mut out = Vec::with_capacity(block.0.len());
    for &st in &block.0 {
        if st == at {
            out.extend_from_slice(new);
        } else if !dropped.contains(&st) {
            out.push(st);
        }
    }
    block.0 = out;
    for &st in &block.0.clone() {
        rewrite::nested_blocks(f, st, true, |f, mut inner| {
            splice(f, &mut inner, dropped, at, new);
            inner
        });
    }
}
