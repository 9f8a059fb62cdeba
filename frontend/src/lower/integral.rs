//! Which `for` variables take only integers inside their loops ([`Local::loop_integral`]),
//! found once the whole function is lowered: the loops whose first value and step are integers
//! given what the program assigns, so that a loop that starts or steps by a scalar every
//! assignment of which is an integer (`n = size(A, 1); for j = n:-1:1`, `s = 2; for i = s:n`,
//! `for i = j + 1:n` inside it) gets the subscript analysis a literal range gets.
//!
//! A greatest fixed point: every scalar is first taken to hold only integers and every loop to
//! run over them; a scalar is dropped when a statement assigns it a value that may not be one
//! (given the facts so far, and the integral loops around the statement), a loop when its first
//! value or step may not be one, until nothing changes.
//!
//! Invariants: parameters never count (the caller chooses their values), nor does a complex
//! value; a loop variable counts inside a loop over it only when that loop is integral, and
//! `loop_integral` is set only when every loop over the variable is. Locals the lowering holds
//! as integers ([`Local::integral`]) keep counting: it assigns them only integers.
//!
//! Also here, [`mark_bounded`]: the double scalars that only ever hold small integers
//! (`k = double(b(i)) + 1` for a uint8 `b`) are held as integers too.

use std::collections::HashSet;

use crate::ir::{
    BinOp, Block, Builtin, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind, UnOp,
};
use crate::types::Class;

/// Sets [`Local::loop_integral`] on the `for` variables of `f` all of whose loops run over
/// integers, and clears it on every other local (this pass decides it for the analysis; the
/// lowering's own, earlier flags only served its decisions while lowering).
pub(super) fn mark_loops(f: &mut Function) {
    let integral = integral_loop_vars(f);
    for (id, local) in f.locals.iter_mut() {
        local.loop_integral = integral.contains(&id);
    }
}

/// The largest magnitude a scalar marked by [`mark_bounded`] may hold: sums of such values stay
/// exact in a double, as MATLAB computes them, and in an `int64_t` alike.
const BOUNDED: i64 = 1 << 40;

/// Sets [`Local::integral`] on the double scalars (not parameters, not `for` variables) every
/// assignment of which is an integer of magnitude at most [`BOUNDED`]: a logical, char or
/// integer value of at most 32 bits converted to double, an integer constant other than -0, or
/// a sum or difference of those and of scalars marked so (never a negation: `-k` of a zero is
/// -0, which an integer cannot hold). The code generators then hold them in an
/// `int64_t` and compute them in integers, which equals the double arithmetic on such values:
/// `k = double(b(i)) + 1; h(k) = h(k) + 1` indexes `h` without converting to and from double.
/// A least fixed point: a scalar is marked once all its assignments are bounded by what is
/// marked already, so one whose value feeds itself (`c = c + 1`) never is.
pub(super) fn mark_bounded(f: &mut Function) {
    let mut assignments: std::collections::BTreeMap<LocalId, Vec<ExprId>> = Default::default();
    let mut excluded = HashSet::new();
    f.walk_stmts(&f.body, &mut |s| match &f.stmts[s].kind {
        StmtKind::Assign { target, value } => assignments.entry(*target).or_default().push(*value),
        StmtKind::For { var, .. } => {
            excluded.insert(*var);
        }
        _ => {}
    });
    assignments.retain(|l, _| {
        let local = &f.locals[*l];
        local.ty.is_scalar()
            && !local.ty.complex
            && local.ty.class == Class::Double
            && !local.integral
            && !f.is_param(*l)
            && !excluded.contains(l)
    });
    let mut bounds: std::collections::BTreeMap<LocalId, i64> = Default::default();
    loop {
        let found: Vec<(LocalId, i64)> = assignments
            .iter()
            .filter(|(l, _)| !bounds.contains_key(l))
            .filter_map(|(l, values)| {
                let each = values.iter().map(|&v| magnitude(f, v, &bounds));
                let most = each.collect::<Option<Vec<i64>>>()?.into_iter().max()?;
                (most <= BOUNDED).then_some((*l, most))
            })
            .collect();
        if found.is_empty() {
            break;
        }
        bounds.extend(found);
    }
    for l in bounds.keys() {
        f.locals[*l].integral = true;
    }
}

/// The largest magnitude of `e` when it is certainly an integer built as [`mark_bounded`]
/// allows, given the scalars bounded so far.
fn magnitude(
    f: &Function,
    e: ExprId,
    bounds: &std::collections::BTreeMap<LocalId, i64>,
) -> Option<i64> {
    let expr = &f.exprs[e];
    if expr.ty.complex || !expr.ty.is_scalar() || expr.ty.class != Class::Double {
        return None;
    }
    let most = match &expr.kind {
        // No -0: an integer has none, so nothing that may make one (a negation, a -0 constant;
        // sums and differences of values that are never -0 are never -0).
        ExprKind::Const(v)
            if v.fract() == 0.0 && v.abs() <= BOUNDED as f64 && !is_minus_zero(*v) =>
        {
            v.abs() as i64
        }
        ExprKind::Local(l) => *bounds.get(l)?,
        ExprKind::Convert(a) => match f.exprs[*a].ty.class {
            Class::Logical => 1,
            Class::Char | Class::Uint16 => i64::from(u16::MAX),
            Class::Int8 | Class::Uint8 => 255,
            Class::Int16 => 1 << 15,
            Class::Int32 | Class::Uint32 => i64::from(u32::MAX),
            _ => return None,
        },
        ExprKind::Binary(BinOp::Add | BinOp::Sub, a, b) => {
            magnitude(f, *a, bounds)?.checked_add(magnitude(f, *b, bounds)?)?
        }
        _ => return None,
    };
    (most <= BOUNDED).then_some(most)
}

fn is_minus_zero(v: f64) -> bool {
    v == 0.0 && v.is_sign_negative()
}

/// The `for` variables of `f` all of whose loops run over integers.
fn integral_loop_vars(f: &Function) -> HashSet<LocalId> {
    let mut all_loops = Vec::new();
    f.walk_stmts(&f.body, &mut |s| {
        if let StmtKind::For { var, .. } = f.stmts[s].kind {
            all_loops.push((s, var));
        }
    });
    let mut facts = Facts {
        f,
        scalars: f
            .locals
            .iter()
            .filter(|(id, l)| l.ty.is_scalar() && !l.ty.complex && !f.is_param(*id))
            .map(|(id, _)| id)
            .collect(),
        loops: all_loops.iter().map(|&(s, _)| s).collect(),
    };
    while facts.narrow(&f.body, &mut Vec::new()) {}
    all_loops
        .iter()
        .map(|&(_, var)| var)
        .filter(|&var| {
            all_loops
                .iter()
                .all(|&(s, v)| v != var || facts.loops.contains(&s))
        })
        .collect()
}

struct Facts<'f> {
    f: &'f Function,
    /// The scalars every assignment of which may still give only integers.
    scalars: HashSet<LocalId>,
    /// The `for` statements whose ranges may still hold only integers.
    loops: HashSet<StmtId>,
}

impl Facts<'_> {
    /// Drops what the statements of `block` show not to hold; `around` holds the variables of
    /// the integral loops around it. Whether anything was dropped.
    fn narrow(&mut self, block: &Block, around: &mut Vec<LocalId>) -> bool {
        let mut changed = false;
        for &s in &block.0 {
            match &self.f.stmts[s].kind {
                StmtKind::Assign { target, value }
                    if self.scalars.contains(target) && !self.integral(*value, around) =>
                {
                    changed |= self.scalars.remove(target);
                }
                StmtKind::For {
                    var,
                    start,
                    step,
                    body,
                    ..
                } => {
                    let integral = self.integral(*start, around)
                        && step.is_none_or(|e| self.integral(e, around));
                    if !integral {
                        changed |= self.loops.remove(&s);
                        changed |= self.scalars.remove(var);
                    }
                    let inside = self.loops.contains(&s);
                    if inside {
                        around.push(*var);
                    }
                    changed |= self.narrow(body, around);
                    if inside {
                        around.pop();
                    }
                }
                StmtKind::While { body, .. } => changed |= self.narrow(body, around),
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    changed |= self.narrow(then_body, around);
                    changed |= self.narrow(else_body, around);
                }
                _ => {}
            }
        }
        changed
    }

    /// Whether `e` is certainly an integer (or an infinity or NaN that `floor` and the like
    /// pass through), given the facts so far and the integral loops `around` it.
    fn integral(&self, e: ExprId, around: &[LocalId]) -> bool {
        let f = self.f;
        let expr = &f.exprs[e];
        if expr.ty.complex {
            return false;
        }
        if expr.ty.class.is_integer() || matches!(expr.ty.class, Class::Logical | Class::Char) {
            return true;
        }
        match &expr.kind {
            ExprKind::Const(v) => v.fract() == 0.0,
            ExprKind::Size(..) => true,
            ExprKind::Local(l) => {
                f.locals[*l].integral || self.scalars.contains(l) || around.contains(l)
            }
            ExprKind::Unary(UnOp::Neg, a) => self.integral(*a, around),
            ExprKind::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, a, b) => {
                self.integral(*a, around) && self.integral(*b, around)
            }
            ExprKind::Call(Builtin::Floor | Builtin::Ceil | Builtin::Round | Builtin::Fix, _) => {
                true
            }
            _ => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::lower::{lower, LowerOptions};
    use crate::parser::parse_file;

    /// The locals of `body` (in `function y = f(b, x)` with `b` a uint8 row and `x` a double
    /// row) that the lowering holds as integers.
    fn held_as_integers(body: &str) -> Vec<String> {
        let src = format!(
            "function y = f(b, x)\narguments\n  b (1,:) uint8\n  x (1,:) double\nend\n{body}\nend\n"
        );
        let file = parse_file(&src).expect("parses");
        let module = lower(&file, &LowerOptions::default()).expect("lowers");
        let f = &module.functions[0];
        let mut names: Vec<String> = f
            .locals
            .iter()
            .filter(|(_, l)| l.integral && !l.name.starts_with('_'))
            .map(|(_, l)| l.name.clone())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn small_integer_scalars_are_held_as_integers() {
        let body = "y = 0; k = double(b(1)) + 1; j = k - 2; c = 0; c = c + 1; m = k * 2;\nn = -k; z = -0; h = x(1); t = 7; u = j + t; y = k + j + c + m + n + z + h + u;";
        // `c` feeds itself, `m` is a product, `n` a negation (-0 for a zero), `z` a -0 constant,
        // `h` a double element, `y` from them: doubles.
        assert_eq!(held_as_integers(body), ["j", "k", "t", "u"]);
    }
}
