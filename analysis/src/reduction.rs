//! Reduction recognition: which scalars of a loop body are reductions, and of which kind.
//!
//! A scalar `s` is a reduction of a loop when every statement of the body that mentions it is an
//! update of one kind, possibly under conditions that do not mention `s`:
//! `s = s + e` / `s = e + s` / `s = s - e` / `s = s + a - b` (sum), `s = s * e` (prod), `s = max(s, e)` / `min`
//! (function form), `if e > s, s = e; end` (if form, optionally with `k = i` recording the
//! location), `s = s && e` / `s & e` (all), `s = s || e` / `s | e` (any), `s = bitand(s, e)` /
//! `bitor` / `bitxor`. `e` never mentions `s`. Every other use of `s` disqualifies it.
//!
//! Locations: the `then` branch of an if-form may record several locations together
//! (`r = i; c = j;`), each the variable of the analyzed loop, of a loop inside it, or a scalar
//! the body never assigns. Ties go to the first (strict comparison) or last (non-strict)
//! element in iteration order, where a nest's order is the analyzed loop's iteration number
//! first and the order inside one iteration second (for `for j, for i` that is MATLAB's
//! column-major linear index). A min-with-location and a max-with-location over the same
//! compared value pair into one `minmaxloc` reduction ([`pair_min_max`]).

use std::collections::{BTreeMap, BTreeSet};

use m2cu_frontend::ir::{BinOp, Block, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind};
use m2cu_frontend::operator::{Classes, Integers, Operator, Written};
use m2cu_frontend::types::Class;

/// How a loop writes a reduction: the same operator (min) can be a function update, an `if`
/// compare, or a compare that also records where the best element was.
#[derive(Clone, Debug, PartialEq)]
pub enum Form {
    /// `s = s + e`, `s = max(s, e)`, `s = s && e`: the operator's own update.
    Plain,
    /// A sum whose every update adds the constant 1.
    Count,
    /// `if e < s, s = e; end` (the operator's `compared`): NaN is never taken.
    Guarded,
    /// `if e < s, s = e; k = i; end`: with the [`Reduction::locations`].
    Located,
    /// A min-with-location and a max-with-location over the same compared value, in one pass:
    /// the reduction itself is the min half (a [`Form::Located`] min), the box the max half.
    Paired(Box<Reduction>),
}

impl Form {
    /// How the update is written, which decides a min/max identity.
    pub fn written(&self) -> Written {
        match self {
            Form::Plain | Form::Count => Written::Function,
            _ => Written::Compared,
        }
    }

    pub fn has_location(&self) -> bool {
        matches!(self, Form::Located | Form::Paired(_))
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
    pub operator: Operator,
    pub form: Form,
    /// The variables recording the location (`k` in `k = i`; `r, c` in `r = i; c = j`), in the
    /// order the update assigns them; empty unless the form has a location.
    pub locations: Vec<LocalId>,
    pub ties: Ties,
    /// The statements that update the variable (assignments, or the `if` of an if-form).
    pub updates: Vec<StmtId>,
    /// The operand `e` of the first update (the compared value of an if-form).
    pub operand: Option<ExprId>,
}

impl Reduction {
    /// Every variable the reduction owns: the accumulators and their locations.
    pub fn locals(&self) -> Vec<LocalId> {
        let mut out = vec![self.var];
        out.extend(&self.locations);
        if let Form::Paired(max) = &self.form {
            out.extend(max.locals());
        }
        out
    }

    /// The single-accumulator reductions this one combines: a paired min/max is its min half
    /// and its max half (one pass, two accumulators); any other is itself.
    pub fn parts(&self) -> Vec<Reduction> {
        match &self.form {
            Form::Paired(max) => vec![
                Reduction {
                    form: Form::Located,
                    ..self.clone()
                },
                (**max).clone(),
            ],
            _ => vec![self.clone()],
        }
    }

    /// The same operator in the same form (a pair's halves aside).
    pub fn same_kind(&self, other: &Reduction) -> bool {
        self.operator == other.operator
            && std::mem::discriminant(&self.form) == std::mem::discriminant(&other.form)
    }

    /// The name in the text report and in kernel comments: the operator's, `minloc`/`maxloc`
    /// with a location, `minmaxloc` for a pair.
    pub fn name(&self) -> &'static str {
        let row = self.operator.row();
        match self.form {
            Form::Paired(_) => "minmaxloc",
            Form::Located => row.located.unwrap_or(row.name),
            _ => row.name,
        }
    }

    /// The name in the JSON report.
    pub fn json_name(&self) -> &'static str {
        match self.form {
            Form::Count => "count",
            Form::Located | Form::Paired(_) => self.name(),
            _ => self.operator.row().json,
        }
    }
}

/// One matched update.
struct Update {
    operator: Operator,
    form: Form,
    locations: Vec<LocalId>,
    ties: Ties,
    stmt: StmtId,
    operand: Option<ExprId>,
}

/// Recognizes each of `scalars` as a reduction of the loop over `var` with body `body`, or says
/// why not (what a location may record is worked out once for all of them).
pub fn recognize_each(
    f: &Function,
    body: &Block,
    var: LocalId,
    scalars: &BTreeSet<LocalId>,
) -> BTreeMap<LocalId, Result<Reduction, String>> {
    let sources = LocationSources::new(f, body, var);
    scalars
        .iter()
        .map(|&s| (s, recognize(f, body, &sources, s)))
        .collect()
}

/// Recognizes `s` as a reduction, or says why not.
fn recognize(
    f: &Function,
    body: &Block,
    sources: &LocationSources,
    s: LocalId,
) -> Result<Reduction, String> {
    if f.locals[s].ty.complex {
        return Err("it is complex, and m2cu makes reductions of complex sums only in loops not nested in another `for` loop (lower::complex_sum)".into());
    }
    let mut updates = Vec::new();
    scan_block(f, body, sources, s, &mut updates)?;
    let first = updates.first().ok_or("it is never updated")?;
    if updates.iter().any(|u| {
        u.operator != first.operator
            || u.form != first.form
            || u.locations != first.locations
            || u.ties != first.ties
    }) {
        return Err("it is updated in different ways".into());
    }
    let counts = first.operator == Operator::Sum
        && updates
            .iter()
            .all(|u| u.operand.is_some_and(|e| is_one(f, e)));
    let reduction = Reduction {
        var: s,
        operator: first.operator,
        form: if counts {
            Form::Count
        } else {
            first.form.clone()
        },
        locations: first.locations.clone(),
        ties: first.ties,
        updates: updates.iter().map(|u| u.stmt).collect(),
        operand: first.operand,
    };
    check_class(f, &reduction)?;
    let class = f.locals[s].ty.class;
    if reduction.operator.saturates(class) {
        check_nonnegative_terms(f, &updates, class)?;
    }
    Ok(reduction)
}

/// Pairs min-with-location and max-with-location reductions over the same compared value
/// (each updated by one `if`) into pairs (`Form::Paired`), in list order; a pair takes the place of its
/// earlier half.
pub fn pair_min_max(f: &Function, reductions: Vec<Reduction>) -> Vec<Reduction> {
    let mut slots: Vec<Option<Reduction>> = reductions.into_iter().map(Some).collect();
    let mut out = Vec::new();
    for i in 0..slots.len() {
        let Some(r) = slots[i].take() else {
            continue;
        };
        let want = match (&r.form, r.operator) {
            (Form::Located, Operator::Min) => Operator::Max,
            (Form::Located, Operator::Max) => Operator::Min,
            _ => {
                out.push(r);
                continue;
            }
        };
        let pairs = |q: &Reduction| {
            q.form == Form::Located
                && q.operator == want
                && r.updates.len() == 1
                && q.updates.len() == 1
                && matches!((r.operand, q.operand), (Some(a), Some(b)) if same_expr(f, a, b))
        };
        let partner = slots
            .iter()
            .position(|q| q.as_ref().is_some_and(pairs))
            .and_then(|j| slots[j].take());
        out.push(match partner {
            None => r,
            Some(q) => {
                let (min, max) = if want == Operator::Max {
                    (r, q)
                } else {
                    (q, r)
                };
                Reduction {
                    form: Form::Paired(Box::new(max)),
                    ..min
                }
            }
        });
    }
    out
}

/// What a location may record: the analyzed loop's variable, the variable of a loop inside
/// it, or a scalar that the body never assigns (the same in every iteration).
struct LocationSources {
    var: LocalId,
    assigned: BTreeSet<LocalId>,
    inner_vars: BTreeSet<LocalId>,
}

impl LocationSources {
    fn new(f: &Function, body: &Block, var: LocalId) -> LocationSources {
        let mut inner_vars = BTreeSet::new();
        f.walk_stmts(body, &mut |st| {
            if let StmtKind::For { var, .. } = f.stmts[st].kind {
                inner_vars.insert(var);
            }
        });
        LocationSources {
            var,
            assigned: crate::access::assigned_scalars(f, body),
            inner_vars,
        }
    }

    fn allows(&self, l: LocalId) -> bool {
        l == self.var || self.inner_vars.contains(&l) || !self.assigned.contains(&l)
    }
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

/// The operator's class rule, and MATLAB's saturating integer arithmetic, which makes integer
/// products depend on the order of the terms.
fn check_class(f: &Function, r: &Reduction) -> Result<(), String> {
    let class = f.locals[r.var].ty.class;
    let row = r.operator.row();
    if class.is_integer() && row.integers == Integers::Rejected {
        return Err(format!(
            "it is a {} of class {class}, and saturating integer arithmetic gives a different result when the terms are reordered",
            row.name
        ));
    }
    let cas_width = matches!(
        class,
        Class::Double | Class::Single | Class::Int32 | Class::Uint32 | Class::Int64 | Class::Uint64
    );
    match row.classes {
        Classes::Integer if !class.is_integer() => Err(format!(
            "it is a bitwise reduction on {class} (`{}`); use an unsigned integer class",
            row.matlab
        )),
        Classes::CasWidth if !cas_width => Err(format!(
            "it is a custom reduction of class {class}, and no 32- or 64-bit compare-and-swap holds its partial results"
        )),
        Classes::Logical if class != Class::Logical => Err(format!(
            "it is a {class} combined as `{}`; initialize it with true or false",
            row.matlab
        )),
        _ => Ok(()),
    }
}

fn mentions(f: &Function, e: ExprId, s: LocalId) -> bool {
    crate::scalars::read_span(f, e, s).is_some()
}

fn scan_block(
    f: &Function,
    block: &Block,
    sources: &LocationSources,
    s: LocalId,
    out: &mut Vec<Update>,
) -> Result<(), String> {
    block
        .0
        .iter()
        .try_for_each(|&st| scan_stmt(f, st, sources, s, out))
}

fn scan_stmt(
    f: &Function,
    st: StmtId,
    sources: &LocationSources,
    s: LocalId,
    out: &mut Vec<Update>,
) -> Result<(), String> {
    match &f.stmts[st].kind {
        StmtKind::Assign { target, value } if *target == s => {
            let (operator, operand) = match match_update(f, *value, s) {
                Some((operator, operand)) => (operator, Some(operand)),
                None if sum_chain(f, *value, s) => (Operator::Sum, None),
                None => return Err("it is assigned a value that is not a reduction update".into()),
            };
            out.push(Update {
                operator,
                form: Form::Plain,
                locations: Vec::new(),
                ties: Ties::First,
                stmt: st,
                operand,
            });
            Ok(())
        }
        StmtKind::If { cond, .. } if mentions(f, *cond, s) => {
            out.push(
                match_if_form(f, st, sources, s)
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
                    scan_block(f, body, sources, s, out)
                }
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    scan_block(f, then_body, sources, s, out)?;
                    scan_block(f, else_body, sources, s, out)
                }
                _ => Ok(()),
            }
        }
    }
}

/// `s = s op e` and the function forms, as the operator table lists them; returns the operator
/// and `e`.
fn match_update(f: &Function, value: ExprId, s: LocalId) -> Option<(Operator, ExprId)> {
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
            let (operator, commutative) = Operator::of_binary(*op)?;
            Some((operator, other(*a, *b, commutative)?))
        }
        ExprKind::Combine(c, args)
            if is_s(args[0]) && !args[1..].iter().any(|&x| mentions(f, x, s)) =>
        {
            Some((Operator::Custom(*c), args[1]))
        }
        ExprKind::Call(builtin, args) if args.len() == 2 => {
            let operator = Operator::of_call(*builtin)?;
            Some((operator, other(args[0], args[1], true)?))
        }
        _ => None,
    }
}

/// `s + a - b + ...`: additions and subtractions of terms that do not mention `s`, with `s`
/// first (`((s + a) - b) + c` as parsed). A sum whose update adds several terms; it has no single
/// operand, so it is never a count, and an integer one is never taken (its terms may be
/// negative).
fn sum_chain(f: &Function, e: ExprId, s: LocalId) -> bool {
    match f.exprs[e].kind {
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) if !mentions(f, b, s) => {
            matches!(f.exprs[a].kind, ExprKind::Local(l) if l == s) || sum_chain(f, a, s)
        }
        _ => false,
    }
}

/// `if e < s, s = e; [k = i; ...] end` and its mirror images.
fn match_if_form(
    f: &Function,
    st: StmtId,
    sources: &LocationSources,
    s: LocalId,
) -> Option<Update> {
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
    // `<=` and `>=` take the last of equal elements.
    let (strict, ties) = match op {
        BinOp::Le => (BinOp::Lt, Ties::Last),
        BinOp::Ge => (BinOp::Gt, Ties::Last),
        op => (op, Ties::First),
    };
    let operator = Operator::of_comparison(strict)?;
    let mut assigned_value = false;
    let mut locations = Vec::new();
    for &t in &then_body.0 {
        match &f.stmts[t].kind {
            StmtKind::Assign { target, value }
                if *target == s && same_expr(f, *value, e) && !assigned_value =>
            {
                assigned_value = true;
            }
            StmtKind::Assign { target, value }
                if *target != s
                    && !locations.contains(target)
                    && f.locals[*target].ty.is_scalar() =>
            {
                matches!(f.exprs[*value].kind, ExprKind::Local(l) if sources.allows(l) && l != *target)
                    .then_some(())?;
                locations.push(*target);
            }
            _ => return None,
        }
    }
    if !assigned_value {
        return None;
    }
    let located = !locations.is_empty();
    // Ties only matter when a location is recorded.
    let (form, ties) = if located {
        (Form::Located, ties)
    } else {
        (Form::Guarded, Ties::First)
    };
    Some(Update {
        operator,
        form,
        locations,
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
    m2cu_frontend::ir::same_expr(&f.exprs, a, b)
}
