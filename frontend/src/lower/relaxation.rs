//! Floyd–Warshall's relaxation nest, given a version that runs in parallel when it may (loop
//! versioning on the finished IR).
//!
//! For one `k`, the nest
//!
//! ```text
//! for i, for j:  if D(i, k) + D(k, j) < D(i, j),  D(i, j) = D(i, k) + D(k, j);  end
//! ```
//!
//! reads row `k` and column `k` in every iteration and writes them only at `j = k` or `i = k`,
//! where the test is `D(i, k) + D(k, k) < D(i, k)` (or its transpose): never true when
//! `D(k, k)` is not negative (adding a non-negative number never makes an IEEE value smaller,
//! and NaN compares false). So when `~(D(k, k) < 0)` the nest reads a row and a column that it
//! never changes, and every `(i, j)` is independent. The nest becomes
//!
//! ```text
//! if k >= 1 && k <= size(D, 1) && k <= size(D, 2) && ~(D(k, k) < 0)
//!   _D_col = zeros(size(D, 1), 1);  for _p: _D_col(_p) = D(_p, k);  end
//!   _D_row = zeros(1, size(D, 2));  for _q: _D_row(_q) = D(k, _q);  end
//!   for i, for j:  if _D_col(i, 1) + _D_row(1, j) < D(i, j),  D(i, j) = _D_col(i, 1) + _D_row(1, j);  end
//! else
//!   the nest as written (a negative cycle through k, or a k outside D)
//! end
//! ```
//!
//! whose first branch the dependence tests find parallel in `i` and `j` (a 2-D kernel per
//! `k`). Invariants, which make both branches compute what the nest computed: the snapshot
//! holds the values the nest reads, since it never changes them; `_D_col(i, 1)` and
//! `_D_row(1, j)` fail exactly where `D(i, k)` and `D(k, j)` would (the same position and
//! bound, `k` being inside `D`), in the same order; `k` is an integer (a loop variable that
//! nothing else assigns), so the guard's `D(k, k)` is read only where it exists.

use super::rewrite::{self, expr, local, new_local, stmt};
use crate::diag::Span;
use crate::ir::{
    copy_expr, BinOp, Block, ExprId, ExprKind, Fill, Function, LocalId, SizeQuery, StmtId,
    StmtKind, UnOp,
};
use crate::types::{Class, Dim, Shape, Type};

/// Gives every relaxation nest of `f` its parallel version (see the module docs).
pub(super) fn version(f: &mut Function) {
    let body = std::mem::take(&mut f.body);
    f.body = version_block(f, body);
}

fn version_block(f: &mut Function, block: Block) -> Block {
    let mut out = Vec::with_capacity(block.0.len());
    for s in block.0 {
        rewrite::nested_blocks(f, s, true, version_block);
        match relaxation(f, s) {
            Some(nest) => out.push(versioned(f, s, &nest)),
            None => out.push(s),
        }
    }
    Block(out)
}

/// A relaxation nest: the distance matrix, the pivot `k`, and the loop variables that
/// subscript rows and columns.
struct Nest {
    d: LocalId,
    k: LocalId,
    row: LocalId,
    col: LocalId,
    /// The inner loop's statement.
    inner: StmtId,
}

/// The nest of statement `s`, if it is `for a, for b, if D(x, k) + D(k, y) < D(x, y), D(x,
/// y) = D(x, k) + D(k, y); end` with `{x, y} = {a, b}`.
fn relaxation(f: &Function, s: StmtId) -> Option<Nest> {
    let StmtKind::For {
        var: outer, body, ..
    } = &f.stmts[s].kind
    else {
        return None;
    };
    let [inner] = body.0.as_slice() else {
        return None;
    };
    let StmtKind::For {
        var: inner_var,
        body,
        ..
    } = &f.stmts[*inner].kind
    else {
        return None;
    };
    let [test] = body.0.as_slice() else {
        return None;
    };
    let StmtKind::If {
        cond,
        then_body,
        else_body,
    } = &f.stmts[*test].kind
    else {
        return None;
    };
    let ([store], []) = (then_body.0.as_slice(), else_body.0.as_slice()) else {
        return None;
    };
    let StmtKind::Store {
        array: d,
        indices,
        value,
    } = &f.stmts[*store].kind
    else {
        return None;
    };
    let ty = f.locals[*d].ty;
    if ty.complex || !matches!(ty.class, Class::Double | Class::Single) || indices.len() != 2 {
        return None;
    }
    let (row, col) = (local_of(f, indices[0])?, local_of(f, indices[1])?);
    let vars = [*outer, *inner_var];
    if row == col || !vars.contains(&row) || !vars.contains(&col) {
        return None;
    }
    let ExprKind::Binary(BinOp::Lt, sum, current) = f.exprs[*cond].kind else {
        return None;
    };
    let k = path_sum(f, sum, *d, row, col)?;
    let same_k = path_sum(f, *value, *d, row, col) == Some(k);
    let reads_current = element(f, current, *d) == Some((row, col));
    let k_fixed = !vars.contains(&k) && f.locals[k].integral && f.locals[k].ty.is_scalar();
    (same_k && reads_current && k_fixed).then_some(Nest {
        d: *d,
        k,
        row,
        col,
        inner: *inner,
    })
}

/// The local that `e` reads, when it is one.
fn local_of(f: &Function, e: ExprId) -> Option<LocalId> {
    match f.exprs[e].kind {
        ExprKind::Local(l) => Some(l),
        _ => None,
    }
}

/// The subscripts of `D(x, y)` when `e` is that element read, both locals.
fn element(f: &Function, e: ExprId, d: LocalId) -> Option<(LocalId, LocalId)> {
    match &f.exprs[e].kind {
        ExprKind::Index(a, indices) if *a == d && indices.len() == 2 => {
            Some((local_of(f, indices[0])?, local_of(f, indices[1])?))
        }
        _ => None,
    }
}

/// The `k` of `D(row, k) + D(k, col)`, in `D`'s class.
fn path_sum(f: &Function, e: ExprId, d: LocalId, row: LocalId, col: LocalId) -> Option<LocalId> {
    let ExprKind::Binary(BinOp::Add, a, b) = f.exprs[e].kind else {
        return None;
    };
    let class = f.locals[d].ty.class;
    if [e, a, b].iter().any(|&x| f.exprs[x].ty.class != class) {
        return None;
    }
    let ((r, k1), (k2, c)) = (element(f, a, d)?, element(f, b, d)?);
    (r == row && c == col && k1 == k2).then_some(k1)
}

/// `if guard, snapshots; the nest on them; else the nest; end`.
fn versioned(f: &mut Function, s: StmtId, nest: &Nest) -> StmtId {
    let span = f.stmts[s].span;
    let name = f.locals[nest.d].name.trim_start_matches('_').to_string();
    let class = f.locals[nest.d].ty.class;
    let column = snapshot(f, nest, &format!("_{name}_col"), Along::Column, span);
    let row = snapshot(f, nest, &format!("_{name}_row"), Along::Row, span);
    let fast = relaxed_copy(f, s, nest, column.array, row.array, class);
    let guard = guard(f, nest, span);
    let mut then_body = column.stmts;
    then_body.extend(row.stmts);
    then_body.push(fast);
    stmt(
        f,
        StmtKind::If {
            cond: guard,
            then_body: Block(then_body),
            else_body: Block(vec![s]),
        },
        span,
    )
}

/// `k >= 1 && k <= size(D, 1) && k <= size(D, 2) && ~(D(k, k) < 0)`.
fn guard(f: &mut Function, nest: &Nest, span: Span) -> ExprId {
    let logical = Type::scalar(Class::Logical);
    let double = Type::scalar(Class::Double);
    let k = |f: &mut Function| local(f, nest.k, span);
    let one = expr(f, ExprKind::Const(1.0), double, span);
    let kk = k(f);
    let mut cond = expr(f, ExprKind::Binary(BinOp::Ge, kk, one), logical, span);
    for dim in [1, 2] {
        let kk = k(f);
        let extent = expr(f, ExprKind::Size(nest.d, SizeQuery::Dim(dim)), double, span);
        let inside = expr(f, ExprKind::Binary(BinOp::Le, kk, extent), logical, span);
        cond = expr(
            f,
            ExprKind::Binary(BinOp::AndAnd, cond, inside),
            logical,
            span,
        );
    }
    let (k1, k2) = (k(f), k(f));
    let class = f.locals[nest.d].ty.class;
    let pivot = expr(
        f,
        ExprKind::Index(nest.d, vec![k1, k2]),
        Type::scalar(class),
        span,
    );
    let zero = expr(f, ExprKind::Const(0.0), double, span);
    let negative = expr(f, ExprKind::Binary(BinOp::Lt, pivot, zero), logical, span);
    let not_negative = expr(f, ExprKind::Unary(UnOp::Not, negative), logical, span);
    expr(
        f,
        ExprKind::Binary(BinOp::AndAnd, cond, not_negative),
        logical,
        span,
    )
}

#[derive(Clone, Copy)]
enum Along {
    Column,
    Row,
}

/// A copy of column `k` (or row `k`) of `D` and the statements that make it.
struct Snapshot {
    array: LocalId,
    stmts: Vec<StmtId>,
}

/// `_D_col = zeros(size(D, 1), 1); for _p = 1:size(D, 1), _D_col(_p) = D(_p, k); end` (or the
/// row's).
fn snapshot(f: &mut Function, nest: &Nest, name: &str, along: Along, span: Span) -> Snapshot {
    let class = f.locals[nest.d].ty.class;
    let double = Type::scalar(Class::Double);
    let (dim, shape) = match along {
        Along::Column => (1, Shape::new(Dim::Var, Dim::Known(1))),
        Along::Row => (2, Shape::new(Dim::Known(1), Dim::Var)),
    };
    // A copy of `D(:, k)` or `D(k, :)`.
    let k = f.locals[nest.k].source_name().unwrap_or("k").to_string();
    let shown = rewrite::derived(f, nest.d, |d| match along {
        Along::Column => format!("{d}(:, {k})"),
        Along::Row => format!("{d}({k}, :)"),
    });
    let array = new_local(f, name, Type::array(class, shape), span, shown.clone());
    // The loop that fills the copy is shown as a loop over it.
    let var = new_local(f, &format!("{name}_k"), double, span, shown);
    f.locals[var].integral = true;
    let extent =
        |f: &mut Function| expr(f, ExprKind::Size(nest.d, SizeQuery::Dim(dim)), double, span);
    let one = |f: &mut Function| expr(f, ExprKind::Const(1.0), double, span);
    let (rows, cols) = match along {
        Along::Column => (extent(f), one(f)),
        Along::Row => (one(f), extent(f)),
    };
    let alloc = stmt(
        f,
        StmtKind::Alloc {
            target: array,
            fill: Fill::Zeros,
            rows,
            cols,
            pages: None,
        },
        span,
    );
    let (p, k) = (local(f, var, span), local(f, nest.k, span));
    let indices = match along {
        Along::Column => vec![p, k],
        Along::Row => vec![k, p],
    };
    let read = expr(
        f,
        ExprKind::Index(nest.d, indices),
        Type::scalar(class),
        span,
    );
    let at = local(f, var, span);
    let store = stmt(
        f,
        StmtKind::Store {
            array,
            indices: vec![at],
            value: read,
        },
        span,
    );
    let (start, stop) = (one(f), extent(f));
    let copy = stmt(
        f,
        StmtKind::For {
            var,
            start,
            step: None,
            stop,
            body: Block(vec![store]),
        },
        span,
    );
    Snapshot {
        array,
        stmts: vec![alloc, copy],
    }
}

/// The nest of statement `s` again, reading `D(row, k)` as `column(row, 1)` and `D(k, col)` as
/// `row(1, col)`.
fn relaxed_copy(
    f: &mut Function,
    s: StmtId,
    nest: &Nest,
    column: LocalId,
    row: LocalId,
    class: Class,
) -> StmtId {
    let span = f.stmts[s].span;
    let path = |f: &mut Function| {
        let one =
            |f: &mut Function| expr(f, ExprKind::Const(1.0), Type::scalar(Class::Double), span);
        let (r, one_a) = (local(f, nest.row, span), one(f));
        let from = expr(
            f,
            ExprKind::Index(column, vec![r, one_a]),
            Type::scalar(class),
            span,
        );
        let (one_b, c) = (one(f), local(f, nest.col, span));
        let to = expr(
            f,
            ExprKind::Index(row, vec![one_b, c]),
            Type::scalar(class),
            span,
        );
        expr(
            f,
            ExprKind::Binary(BinOp::Add, from, to),
            Type::scalar(class),
            span,
        )
    };
    let element = |f: &mut Function| {
        let (r, c) = (local(f, nest.row, span), local(f, nest.col, span));
        expr(
            f,
            ExprKind::Index(nest.d, vec![r, c]),
            Type::scalar(class),
            span,
        )
    };
    let shorter = path(f);
    let current = element(f);
    let cond = expr(
        f,
        ExprKind::Binary(BinOp::Lt, shorter, current),
        Type::scalar(Class::Logical),
        span,
    );
    let value = path(f);
    let (r, c) = (local(f, nest.row, span), local(f, nest.col, span));
    let store = stmt(
        f,
        StmtKind::Store {
            array: nest.d,
            indices: vec![r, c],
            value,
        },
        span,
    );
    let test = stmt(
        f,
        StmtKind::If {
            cond,
            then_body: Block(vec![store]),
            else_body: Block::default(),
        },
        span,
    );
    let inner = loop_copy(f, nest.inner, vec![test]);
    loop_copy(f, s, vec![inner])
}

/// The `for` statement `s` again (its variable, and copies of its range) with `body`.
fn loop_copy(f: &mut Function, s: StmtId, body: Vec<StmtId>) -> StmtId {
    let span = f.stmts[s].span;
    let StmtKind::For {
        var,
        start,
        step,
        stop,
        ..
    } = f.stmts[s].kind.clone()
    else {
        unreachable!("a relaxation nest's loops are `for` loops")
    };
    let start = copy_expr(&mut f.exprs, start);
    let step = step.map(|e| copy_expr(&mut f.exprs, e));
    let stop = copy_expr(&mut f.exprs, stop);
    stmt(
        f,
        StmtKind::For {
            var,
            start,
            step,
            stop,
            body: Block(body),
        },
        span,
    )
}
