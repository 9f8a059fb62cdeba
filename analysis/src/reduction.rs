//! Reduction recognition: which scalars of a loop body are reductions, and of which kind.
//!
//! A scalar `s` is a reduction of a loop when every statement of the body that mentions it is an
//! update of one kind, possibly under conditions that do not mention `s`:
//! `s = s + e` / `s = e + s` / `s = s - e` (sum), `s = s * e` (prod), `s = max(s, e)` / `min`
//! (function form), `if e > s, s = e; end` (if form, optionally with `k = i` recording the
//! location), `s = s && e` / `s & e` (all), `s = s || e` / `s | e` (any), `s = bitand(s, e)` /
//! `bitor` / `bitxor`. `e` never mentions `s`. Every other use of `s` disqualifies it.

use m2cu_frontend::ir::{
    BinOp, Block, Builtin, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind,
};
use m2cu_frontend::types::Class;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReductionKind {
    Sum,
    Prod,
    /// `min(s, e)`: NaN skipped, identity NaN.
    Min,
    /// `max(s, e)`: NaN skipped, identity NaN.
    Max,
    /// `if e < s, s = e; end`: identity +Inf (or the class maximum).
    MinIf,
    /// `if e > s, s = e; end`: identity -Inf (or the class minimum).
    MaxIf,
    /// `if e < s, s = e; k = i; end`
    MinLoc,
    /// `if e > s, s = e; k = i; end`
    MaxLoc,
    And,
    Or,
    BitAnd,
    BitOr,
    BitXor,
}

impl ReductionKind {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            ReductionKind::Sum => "sum",
            ReductionKind::Prod => "prod",
            ReductionKind::Min | ReductionKind::MinIf => "min",
            ReductionKind::Max | ReductionKind::MaxIf => "max",
            ReductionKind::MinLoc => "minloc",
            ReductionKind::MaxLoc => "maxloc",
            ReductionKind::And => "and",
            ReductionKind::Or => "or",
            ReductionKind::BitAnd => "bitand",
            ReductionKind::BitOr => "bitor",
            ReductionKind::BitXor => "bitxor",
        }
    }

    pub fn has_location(self) -> bool {
        matches!(self, ReductionKind::MinLoc | ReductionKind::MaxLoc)
    }
}

/// Which index wins a tie in a min/max with location.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ties {
    /// Strict comparison (`<`, `>`): the first index, as MATLAB's `min`/`max` return.
    First,
    /// Non-strict comparison (`<=`, `>=`): the last index.
    Last,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Reduction {
    pub var: LocalId,
    pub kind: ReductionKind,
    /// The variable recording the location (`k` in `k = i`), for MinLoc/MaxLoc.
    pub location: Option<LocalId>,
    pub ties: Ties,
    /// The statements that update the variable (assignments, or the `if` of an if-form).
    pub updates: Vec<StmtId>,
    /// `true` when every update adds the constant 1 (a count).
    pub is_count: bool,
}

/// One matched update.
struct Update {
    kind: ReductionKind,
    location: Option<LocalId>,
    ties: Ties,
    stmt: StmtId,
    operand: Option<ExprId>,
}

/// Recognizes `s` as a reduction of the loop over `var` with body `body`, or says why not.
pub fn recognize(
    f: &Function,
    body: &Block,
    var: LocalId,
    s: LocalId,
) -> Result<Reduction, String> {
    let mut updates = Vec::new();
    scan_block(f, body, var, s, &mut updates)?;
    let first = updates.first().ok_or("it is never updated")?;
    if updates
        .iter()
        .any(|u| u.kind != first.kind || u.location != first.location || u.ties != first.ties)
    {
        return Err("it is updated in different ways".into());
    }
    let reduction = Reduction {
        var: s,
        kind: first.kind,
        location: first.location,
        ties: first.ties,
        is_count: updates
            .iter()
            .all(|u| u.operand.is_some_and(|e| is_one(f, e))),
        updates: updates.iter().map(|u| u.stmt).collect(),
    };
    check_class(f, &reduction)?;
    let class = f.locals[s].ty.class;
    if class.is_integer() && reduction.kind == ReductionKind::Sum {
        check_nonnegative_terms(f, &updates, class)?;
    }
    Ok(reduction)
}

/// A saturating integer sum is order-independent when every term is non-negative: the partial
/// sums only grow, and once one reaches the class maximum every order ends there. A term is
/// non-negative when it is a non-negative constant or of an unsigned integer or logical class,
/// and it is added (`s = s + e`), never subtracted.
fn check_nonnegative_terms(f: &Function, updates: &[Update], class: Class) -> Result<(), String> {
    let nonnegative = |u: &Update| {
        let added = matches!(
            &f.stmts[u.stmt].kind,
            StmtKind::Assign { value, .. } if matches!(f.exprs[*value].kind, ExprKind::Binary(BinOp::Add, ..))
        );
        let term = u.operand.is_some_and(|e| match f.exprs[e].kind {
            ExprKind::Const(v) => v >= 0.0,
            _ => {
                let class = f.class_of(e);
                class == Class::Logical || (class.is_integer() && !class.is_signed_integer())
            }
        });
        added && term
    };
    if updates.iter().all(nonnegative) {
        return Ok(());
    }
    Err(format!(
        "it is a sum of class {class} whose terms may be negative, and saturating integer arithmetic then gives a different result when the terms are reordered; add terms of an unsigned class or non-negative constants"
    ))
}

fn is_one(f: &Function, e: ExprId) -> bool {
    matches!(f.exprs[e].kind, ExprKind::Const(v) if v == 1.0)
}

/// MATLAB integer arithmetic saturates at every step, so integer sums and products depend on
/// the order of the terms and cannot be reordered.
fn check_class(f: &Function, r: &Reduction) -> Result<(), String> {
    let class = f.locals[r.var].ty.class;
    let kind = r.kind;
    if class.is_integer() && kind == ReductionKind::Prod {
        return Err(format!(
            "it is a {} of class {class}, and saturating integer arithmetic gives a different result when the terms are reordered",
            kind.name()
        ));
    }
    let bitwise = matches!(
        kind,
        ReductionKind::BitAnd | ReductionKind::BitOr | ReductionKind::BitXor
    );
    if bitwise && !class.is_integer() {
        return Err(format!(
            "it is a bitwise reduction on {class}; use an unsigned integer class"
        ));
    }
    let logical = matches!(kind, ReductionKind::And | ReductionKind::Or);
    if logical && class != Class::Logical {
        return Err(format!(
            "it is a {class} combined with && or ||; initialize it with true or false"
        ));
    }
    Ok(())
}

fn mentions(f: &Function, e: ExprId, s: LocalId) -> bool {
    crate::scalars::read_span(f, e, s).is_some()
}

fn scan_block(
    f: &Function,
    block: &Block,
    var: LocalId,
    s: LocalId,
    out: &mut Vec<Update>,
) -> Result<(), String> {
    block
        .0
        .iter()
        .try_for_each(|&st| scan_stmt(f, st, var, s, out))
}

fn scan_stmt(
    f: &Function,
    st: StmtId,
    var: LocalId,
    s: LocalId,
    out: &mut Vec<Update>,
) -> Result<(), String> {
    match &f.stmts[st].kind {
        StmtKind::Assign { target, value } if *target == s => {
            let (kind, operand) = match_update(f, *value, s)
                .ok_or("it is assigned a value that is not a reduction update")?;
            out.push(Update {
                kind,
                location: None,
                ties: Ties::First,
                stmt: st,
                operand: Some(operand),
            });
            Ok(())
        }
        StmtKind::If { cond, .. } if mentions(f, *cond, s) => {
            out.push(
                match_if_form(f, st, var, s)
                    .ok_or("it is compared in an `if` that is not a min/max update")?,
            );
            Ok(())
        }
        kind => {
            if f.stmt_exprs(st).into_iter().any(|e| mentions(f, e, s)) {
                return Err("its partial value is read inside the loop".into());
            }
            match kind {
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                    scan_block(f, body, var, s, out)
                }
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    scan_block(f, then_body, var, s, out)?;
                    scan_block(f, else_body, var, s, out)
                }
                _ => Ok(()),
            }
        }
    }
}

/// `s = s op e` and the function forms; returns the kind and `e`.
fn match_update(f: &Function, value: ExprId, s: LocalId) -> Option<(ReductionKind, ExprId)> {
    let is_s = |e: ExprId| matches!(f.exprs[e].kind, ExprKind::Local(l) if l == s);
    let other = |a: ExprId, b: ExprId, commutative: bool| {
        if is_s(a) && !mentions(f, b, s) {
            Some(b)
        } else if commutative && is_s(b) && !mentions(f, a, s) {
            Some(a)
        } else {
            None
        }
    };
    match &f.exprs[value].kind {
        ExprKind::Binary(op, a, b) => {
            let kind = match op {
                BinOp::Add | BinOp::Sub => ReductionKind::Sum,
                BinOp::Mul => ReductionKind::Prod,
                BinOp::AndAnd | BinOp::And => ReductionKind::And,
                BinOp::OrOr | BinOp::Or => ReductionKind::Or,
                _ => return None,
            };
            Some((kind, other(*a, *b, *op != BinOp::Sub)?))
        }
        ExprKind::Call(builtin, args) if args.len() == 2 => {
            let kind = match builtin {
                Builtin::Min => ReductionKind::Min,
                Builtin::Max => ReductionKind::Max,
                Builtin::BitAnd => ReductionKind::BitAnd,
                Builtin::BitOr => ReductionKind::BitOr,
                Builtin::BitXor => ReductionKind::BitXor,
                _ => return None,
            };
            Some((kind, other(args[0], args[1], true)?))
        }
        _ => None,
    }
}

/// `if e < s, s = e; [k = i;] end` and its mirror images.
fn match_if_form(f: &Function, st: StmtId, var: LocalId, s: LocalId) -> Option<Update> {
    let StmtKind::If {
        cond,
        then_body,
        else_body,
    } = &f.stmts[st].kind
    else {
        return None;
    };
    if !else_body.0.is_empty() {
        return None;
    }
    let ExprKind::Binary(op, a, b) = f.exprs[*cond].kind else {
        return None;
    };
    let is_s = |e: ExprId| matches!(f.exprs[e].kind, ExprKind::Local(l) if l == s);
    // Normalize to `e OP s`.
    let (e, op) = if is_s(b) && !mentions(f, a, s) {
        (a, op)
    } else if is_s(a) && !mentions(f, b, s) {
        (b, mirror(op)?)
    } else {
        return None;
    };
    let (is_min, ties) = match op {
        BinOp::Lt => (true, Ties::First),
        BinOp::Le => (true, Ties::Last),
        BinOp::Gt => (false, Ties::First),
        BinOp::Ge => (false, Ties::Last),
        _ => return None,
    };
    let mut assigned_value = false;
    let mut location = None;
    for &t in &then_body.0 {
        match &f.stmts[t].kind {
            StmtKind::Assign { target, value }
                if *target == s && same_expr(f, *value, e) && !assigned_value =>
            {
                assigned_value = true;
            }
            StmtKind::Assign { target, value } if *target != s && location.is_none() => {
                matches!(f.exprs[*value].kind, ExprKind::Local(l) if l == var).then_some(())?;
                location = Some(*target);
            }
            _ => return None,
        }
    }
    if !assigned_value {
        return None;
    }
    let kind = match (is_min, location.is_some()) {
        (true, false) => ReductionKind::MinIf,
        (false, false) => ReductionKind::MaxIf,
        (true, true) => ReductionKind::MinLoc,
        (false, true) => ReductionKind::MaxLoc,
    };
    // Ties only matter when a location is recorded.
    let ties = if location.is_some() {
        ties
    } else {
        Ties::First
    };
    Some(Update {
        kind,
        location,
        ties,
        stmt: st,
        operand: Some(e),
    })
}

fn mirror(op: BinOp) -> Option<BinOp> {
    Some(match op {
        BinOp::Lt => BinOp::Gt,
        BinOp::Le => BinOp::Ge,
        BinOp::Gt => BinOp::Lt,
        BinOp::Ge => BinOp::Le,
        _ => return None,
    })
}

/// Structural equality of two expressions (ignoring spans).
pub fn same_expr(f: &Function, a: ExprId, b: ExprId) -> bool {
    let (x, y) = (&f.exprs[a], &f.exprs[b]);
    if x.ty != y.ty {
        return false;
    }
    let all = |p: &[ExprId], q: &[ExprId]| {
        p.len() == q.len() && p.iter().zip(q).all(|(m, n)| same_expr(f, *m, *n))
    };
    match (&x.kind, &y.kind) {
        (ExprKind::Const(p), ExprKind::Const(q)) => p.to_bits() == q.to_bits(),
        (ExprKind::Local(p), ExprKind::Local(q)) => p == q,
        (ExprKind::Unary(o, p), ExprKind::Unary(r, q)) => o == r && same_expr(f, *p, *q),
        (ExprKind::Binary(o, p1, p2), ExprKind::Binary(r, q1, q2)) => {
            o == r && same_expr(f, *p1, *q1) && same_expr(f, *p2, *q2)
        }
        (ExprKind::Index(p, pi), ExprKind::Index(q, qi)) => p == q && all(pi, qi),
        (ExprKind::Call(p, pa), ExprKind::Call(q, qa)) => p == q && all(pa, qa),
        (ExprKind::Convert(p), ExprKind::Convert(q)) => same_expr(f, *p, *q),
        (ExprKind::Size(p, pq), ExprKind::Size(q, qq)) => p == q && pq == qq,
        _ => false,
    }
}
