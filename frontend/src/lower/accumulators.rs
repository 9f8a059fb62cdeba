//! Array elements that a `for` loop accumulates into, held in a scalar for the loop (scalar
//! replacement), run on the finished IR.
//!
//! A loop whose body starts with `X(idx) = f(X(idx), ...)`, where `idx` is the same in every
//! iteration (the matrix product's `C(i, j) = C(i, j) + A(i, k) * B(k, j)` over `k`, a
//! matrix-vector product's `y(i) = y(i) + A(i, j) * x(j)`), and whose body touches `X` nowhere
//! else but at `X(idx)` (and its size), becomes
//!
//! ```text
//! _ran = numel(range) > 0;
//! _acc = 0;
//! if _ran, _acc = X(idx); end
//! for ...  _acc = f(_acc, ...);  (every X(idx) of the body read or written as _acc)  end
//! if _ran, X(idx) = _acc; end
//! ```
//!
//! so the element is read once and written once, and the loop is a scalar reduction like any
//! other (`s = s + ...`): in a kernel, a register of each thread, a reduction per output or the
//! tiles of a matrix product (`analysis::per_output`, `analysis::tiles`), where it was an update
//! of global memory in every iteration.
//!
//! Invariants, which make the two programs compute the same values in the same order: the
//! element is read first in the first iteration, unconditionally (the body's first statement
//! reads it before it stores it), so reading it before the loop reads the same value and stops
//! with the same error where MATLAB's first iteration would; `idx` reads no array element and
//! no scalar the body assigns, so it names one element throughout, and copies of it evaluate
//! alike; `X` is a real array of the stored value's class, and nothing in the body reads or
//! writes it as a whole; no `return` can skip the store after the loop (a `break` or `continue`
//! leaves the accumulator holding the element's value); a loop that runs zero times touches
//! nothing (`_ran`).

use super::rewrite::{self, expr, new_local, stmt};
use crate::diag::Span;
use crate::ir::{
    copy_expr, same_expr, BinOp, Block, ExprId, ExprKind, Function, LocalId, PrintTo, Shown,
    StmtId, StmtKind,
};
use crate::types::{Class, Type};

/// Holds in a scalar the element each `for` loop of `f` accumulates into (see the module docs).
pub(super) fn promote(f: &mut Function) {
    let body = std::mem::take(&mut f.body);
    f.body = promote_block(f, body);
}

fn promote_block(f: &mut Function, block: Block) -> Block {
    let mut out = Vec::with_capacity(block.0.len());
    for s in block.0 {
        rewrite::nested_blocks(f, s, true, promote_block);
        match accumulator(f, s) {
            Some(acc) => {
                let (pre, post) = rewrite(f, s, acc);
                out.extend(pre);
                out.push(s);
                out.push(post);
            }
            None => out.push(s),
        }
    }
    Block(out)
}

/// The element a loop accumulates into: the array, its subscripts (those of the first read),
/// and every read and store of it in the body.
struct Accumulator {
    array: LocalId,
    indices: Vec<ExprId>,
    reads: Vec<ExprId>,
    stores: Vec<StmtId>,
}

/// The element the `for` statement `s` accumulates into, if it is one (see the module docs).
fn accumulator(f: &Function, s: StmtId) -> Option<Accumulator> {
    let StmtKind::For { var, body, .. } = &f.stmts[s].kind else {
        return None;
    };
    let &first = body.0.first()?;
    let StmtKind::Store {
        array,
        indices,
        value,
    } = &f.stmts[first].kind
    else {
        return None;
    };
    let ty = f.locals[*array].ty;
    if ty.complex || ty.is_scalar() || f.exprs[*value].ty.class != ty.class {
        return None;
    }
    let mut assigned = vec![*var];
    assigned.extend(f.tree().assigned(body));
    if !indices.iter().all(|&i| fixed(f, i, &assigned)) {
        return None;
    }
    let same = |other: &[ExprId]| {
        other.len() == indices.len()
            && other
                .iter()
                .zip(indices)
                .all(|(&a, &b)| same_expr(&f.exprs, a, b))
    };
    let mut acc = Accumulator {
        array: *array,
        indices: indices.clone(),
        reads: Vec::new(),
        stores: Vec::new(),
    };
    let mut other_use = false;
    let mut reads_first = false;
    f.walk_stmts(body, &mut |x| {
        match &f.stmts[x].kind {
            StmtKind::Store { array, indices, .. } if *array == acc.array => {
                other_use |= !same(indices);
                acc.stores.push(x);
            }
            StmtKind::Assign { target, .. }
            | StmtKind::Alloc { target, .. }
            | StmtKind::Resize { array: target, .. }
            | StmtKind::Print {
                to: PrintTo::Append { row: target },
                ..
            } if *target == acc.array => other_use = true,
            StmtKind::Return => other_use = true,
            _ => {}
        }
        for e in f.stmt_exprs(x) {
            f.walk_expr(e, &mut |y| match &f.exprs[y].kind {
                ExprKind::Index(a, args) if *a == acc.array && same(args) => {
                    reads_first |= x == first;
                    acc.reads.push(y);
                }
                ExprKind::Index(a, _) | ExprKind::Local(a) if *a == acc.array => other_use = true,
                _ => {}
            });
        }
    });
    (reads_first && !other_use).then_some(acc)
}

/// Whether the subscript `e` names the same value in every iteration: arithmetic on constants,
/// sizes and scalars that the body does not assign (`assigned`), reading no array element.
fn fixed(f: &Function, e: ExprId, assigned: &[LocalId]) -> bool {
    let mut ok = true;
    f.walk_expr(e, &mut |x| {
        ok &= match &f.exprs[x].kind {
            ExprKind::Local(l) => !assigned.contains(l),
            ExprKind::Const(_)
            | ExprKind::Size(..)
            | ExprKind::Unary(..)
            | ExprKind::Binary(..)
            | ExprKind::Convert(_) => true,
            _ => false,
        };
    });
    ok
}

/// Rewrites loop `s` around the accumulator: the statements before it and the one after it.
fn rewrite(f: &mut Function, s: StmtId, acc: Accumulator) -> (Vec<StmtId>, StmtId) {
    let span = f.stmts[s].span;
    let StmtKind::For {
        start, step, stop, ..
    } = f.stmts[s].kind.clone()
    else {
        unreachable!("an accumulator's loop is a `for`")
    };
    let name = f.locals[acc.array].name.trim_start_matches('_').to_string();
    let class = f.locals[acc.array].ty.class;
    // The register is the element the loop reads and accumulates into: `C(i, j)`.
    let element = acc.reads.first().map_or(span, |&r| f.exprs[r].span);
    let register = new_local(
        f,
        &format!("_{name}_acc"),
        Type::scalar(class),
        span,
        Shown::Source(element),
    );
    let ran = new_local(
        f,
        &format!("_{name}_ran"),
        Type::scalar(Class::Logical),
        span,
        Shown::Source(span),
    );
    // `_ran = numel(start:step:stop) > 0`
    let step = match step {
        Some(e) => copy_expr(&mut f.exprs, e),
        None => expr(f, ExprKind::Const(1.0), Type::scalar(Class::Double), span),
    };
    let (start, stop) = (
        copy_expr(&mut f.exprs, start),
        copy_expr(&mut f.exprs, stop),
    );
    let double = Type::scalar(Class::Double);
    let count = expr(f, ExprKind::RangeCount(start, step, stop), double, span);
    let zero = expr(f, ExprKind::Const(0.0), double, span);
    let logical = Type::scalar(Class::Logical);
    let runs = expr(f, ExprKind::Binary(BinOp::Gt, count, zero), logical, span);
    let set_ran = stmt(
        f,
        StmtKind::Assign {
            target: ran,
            value: runs,
        },
        span,
    );
    // `if _ran, _acc = X(idx); end`
    let indices = copy_indices(f, &acc.indices);
    let element = expr(
        f,
        ExprKind::Index(acc.array, indices),
        Type::scalar(class),
        span,
    );
    let load = stmt(
        f,
        StmtKind::Assign {
            target: register,
            value: element,
        },
        span,
    );
    let load = guarded(f, ran, load, span);
    // `_acc = 0` first: assigned in every pass over the loop's block, the accumulator is
    // private to each iteration of the loops around it.
    let zero = expr(f, ExprKind::Const(0.0), Type::scalar(class), span);
    let clear = stmt(
        f,
        StmtKind::Assign {
            target: register,
            value: zero,
        },
        span,
    );
    for &read in &acc.reads {
        f.exprs[read].kind = ExprKind::Local(register);
    }
    for &store in &acc.stores {
        let StmtKind::Store { value, .. } = f.stmts[store].kind else {
            unreachable!("an accumulator's store")
        };
        f.stmts[store].kind = StmtKind::Assign {
            target: register,
            value,
        };
    }
    // `if _ran, X(idx) = _acc; end`
    let indices = copy_indices(f, &acc.indices);
    let value = expr(f, ExprKind::Local(register), Type::scalar(class), span);
    let store = stmt(
        f,
        StmtKind::Store {
            array: acc.array,
            indices,
            value,
        },
        span,
    );
    let store = guarded(f, ran, store, span);
    (vec![set_ran, clear, load], store)
}

fn copy_indices(f: &mut Function, indices: &[ExprId]) -> Vec<ExprId> {
    indices
        .iter()
        .map(|&i| copy_expr(&mut f.exprs, i))
        .collect()
}

/// `if cond, s; end`.
fn guarded(f: &mut Function, cond: LocalId, s: StmtId, span: Span) -> StmtId {
    let cond = expr(f, ExprKind::Local(cond), Type::scalar(Class::Logical), span);
    stmt(
        f,
        StmtKind::If {
            cond,
            then_body: Block(vec![s]),
            else_body: Block::default(),
        },
        span,
    )
}
