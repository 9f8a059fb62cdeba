//! Scatter-adds (histograms): `h(b) = h(b) + e` where the index `b` is data-dependent.
//!
//! Such updates commute: whatever order the iterations run in, every `e` is added once to its
//! element. A loop whose only carried dependences are on arrays updated this way can run in
//! parallel when each update is atomic (each target's printer spells the atomic).
//!
//! An array qualifies when it is a real `double` or `single` (no target has a complex atomic
//! add), every store to it in the loop body is such
//! an update (`h(b) = h(b) + e`, `h(b) = e + h(b)` or `h(b) = h(b) - e`, with the same indices on
//! both sides, `e` of the array's class and not reading the array), and it is read nowhere else
//! in the body. Floating-point addition is not associative, so the sum may differ from the
//! sequential one in the last bits, as any parallel sum does.

use std::collections::BTreeMap;

use m2cu_frontend::ir::{BinOp, Block, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind};
use m2cu_frontend::types::Class;

use crate::reduction::same_expr;

/// One atomic update `array(indices) += addend` (or `-=` when `negate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomicUpdate {
    pub stmt: StmtId,
    pub addend: ExprId,
    pub negate: bool,
}

/// The arrays of `body` that only scatter-adds touch, with their updates.
pub fn candidates(f: &Function, body: &Block) -> BTreeMap<LocalId, Vec<AtomicUpdate>> {
    let mut updates: BTreeMap<LocalId, Vec<AtomicUpdate>> = BTreeMap::new();
    let mut disqualified = Vec::new();
    f.walk_stmts(body, &mut |s| {
        if let StmtKind::Store { array, .. } = &f.stmts[s].kind {
            match update_of(f, s) {
                Some(u) => updates.entry(*array).or_default().push(u),
                None => disqualified.push(*array),
            }
        }
    });
    updates.retain(|array, list| {
        let ty = &f.locals[*array].ty;
        let real_float = matches!(ty.class, Class::Double | Class::Single) && !ty.complex;
        real_float && !disqualified.contains(array) && reads(f, body, *array) == list.len()
    });
    updates
}

/// `array(idx) = array(idx) + e` (or `e + array(idx)`, `array(idx) - e`) as an update.
pub fn update_of(f: &Function, s: StmtId) -> Option<AtomicUpdate> {
    let StmtKind::Store {
        array,
        indices,
        value,
    } = &f.stmts[s].kind
    else {
        return None;
    };
    let ExprKind::Binary(op, a, b) = f.exprs[*value].kind else {
        return None;
    };
    let is_self = |e: ExprId| match &f.exprs[e].kind {
        ExprKind::Index(x, idx) => {
            x == array
                && idx.len() == indices.len()
                && idx.iter().zip(indices).all(|(p, q)| same_expr(f, *p, *q))
        }
        _ => false,
    };
    let (addend, negate) = match op {
        BinOp::Add if is_self(a) => (b, false),
        BinOp::Add if is_self(b) => (a, false),
        BinOp::Sub if is_self(a) => (b, true),
        _ => return None,
    };
    let class = f.locals[*array].ty.class;
    let reads_array = || {
        let mut found = false;
        f.walk_expr(addend, &mut |x| {
            found |= matches!(&f.exprs[x].kind, ExprKind::Index(y, _) if y == array);
        });
        found
    };
    (f.class_of(addend) == class && !reads_array()).then_some(AtomicUpdate {
        stmt: s,
        addend,
        negate,
    })
}

/// The number of element reads of `array` in `body`.
fn reads(f: &Function, body: &Block, array: LocalId) -> usize {
    let mut n = 0;
    f.walk_stmts(body, &mut |s| {
        for e in f.stmt_exprs(s) {
            f.walk_expr(e, &mut |x| {
                n += usize::from(matches!(&f.exprs[x].kind, ExprKind::Index(y, _) if *y == array));
            });
        }
    });
    n
}
