//! Access summaries: every array read and write in a block, with each subscript as an affine
//! function of loop variables and loop-invariant symbols when it is one.
//!
//! Invariant: an [`Affine`] only mentions integral loop variables (in `vars`) and symbols that are
//! not assigned inside the block being summarized; anything else makes the subscript unknown
//! (`None`). The one exception is an induction variable of the summarized loop: its closed form
//! ([`ClosedForm`]) stands for it, and there `Symbol::Local(k)` means its value before the loop.
//!
//! A scalar assigned exactly once in the block, to an affine value (`k = 64 * (c - 1) + t`), is
//! that value where the assignment dominates the read: in the statements after it in its own
//! block and the blocks nested in them (structured code, so a read there runs only after the
//! assignment ran in the same iteration). Elsewhere it is unknown, as any assigned scalar.

use std::collections::{BTreeMap, BTreeSet};

use m2cu_frontend::ir::{
    BinOp, Block, ExprId, ExprKind, Function, LocalId, SizeQuery, StmtId, StmtKind, UnOp,
};
use m2cu_frontend::Span;

/// A loop-invariant symbolic term of a subscript.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Symbol {
    Local(LocalId),
    Size(LocalId, u8),
}

/// `constant + Σ coeff·var + Σ coeff·symbol`, with integer coefficients.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Affine {
    pub constant: i64,
    pub vars: BTreeMap<LocalId, i64>,
    pub symbols: BTreeMap<Symbol, i64>,
}

impl Affine {
    pub fn constant(c: i64) -> Affine {
        Affine {
            constant: c,
            ..Affine::default()
        }
    }

    pub fn term(map_var: Option<LocalId>, symbol: Option<Symbol>) -> Affine {
        let mut a = Affine::default();
        if let Some(v) = map_var {
            a.vars.insert(v, 1);
        }
        if let Some(s) = symbol {
            a.symbols.insert(s, 1);
        }
        a
    }

    /// `self + sign·other`; `None` on overflow.
    pub fn add(mut self, other: &Affine, sign: i64) -> Option<Affine> {
        self.constant = self
            .constant
            .checked_add(other.constant.checked_mul(sign)?)?;
        for (k, v) in &other.vars {
            *self.vars.entry(*k).or_insert(0) += v * sign;
        }
        for (k, v) in &other.symbols {
            *self.symbols.entry(*k).or_insert(0) += v * sign;
        }
        self.vars.retain(|_, v| *v != 0);
        self.symbols.retain(|_, v| *v != 0);
        Some(self)
    }

    /// `k·self`; `None` on overflow.
    pub fn scale(mut self, k: i64) -> Option<Affine> {
        self.constant = self.constant.checked_mul(k)?;
        for v in self.vars.values_mut().chain(self.symbols.values_mut()) {
            *v = v.checked_mul(k)?;
        }
        self.vars.retain(|_, v| *v != 0);
        self.symbols.retain(|_, v| *v != 0);
        Some(self)
    }

    pub fn as_constant(&self) -> Option<i64> {
        (self.vars.is_empty() && self.symbols.is_empty()).then_some(self.constant)
    }

    /// Coefficient of loop variable `v`.
    pub fn coeff(&self, v: LocalId) -> i64 {
        self.vars.get(&v).copied().unwrap_or(0)
    }
}

/// One array access.
#[derive(Clone, Debug)]
pub struct Access {
    pub array: LocalId,
    pub is_write: bool,
    /// One entry per subscript; `None` where the subscript is not affine.
    pub subscripts: Vec<Option<Affine>>,
    /// The statement containing the access.
    pub stmt: StmtId,
    /// The `for` statements inside the summarized block that enclose the access, outermost first.
    pub loops: Vec<StmtId>,
    /// The span of the access (the element expression, or the whole store statement).
    pub span: Span,
}

/// The value of an induction variable `local` inside the summarized loop body, as an affine
/// function of the loop variable: `before` its update (the top-level statement at position
/// `update`), `after` it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClosedForm {
    pub local: LocalId,
    pub update: usize,
    pub before: Affine,
    pub after: Affine,
}

/// Collects the accesses of `block` (and nested blocks). `vars` are the loop variables that may
/// appear in affine subscripts (only integral ones do); the scalars assigned inside the block
/// cannot be symbols, except induction variables, which `closed` replaces by their closed forms.
pub fn collect(
    f: &Function,
    block: &Block,
    vars: &BTreeSet<LocalId>,
    closed: &[ClosedForm],
) -> Vec<Access> {
    let assigned = assigned_scalars(f, block);
    let once = assigned_once(f, block);
    let mut walker = Walker {
        ctx: AffineCtx {
            f,
            vars,
            assigned: &assigned,
            closed,
            position: 0,
            defs: Vec::new(),
        },
        once,
        loops: Vec::new(),
        out: Vec::new(),
    };
    for (position, &s) in block.0.iter().enumerate() {
        walker.ctx.position = position;
        walker.stmt(s);
    }
    walker.out
}

/// `e` as an affine function of symbols not in `assigned` (no loop variables).
pub fn invariant(f: &Function, e: ExprId, assigned: &BTreeSet<LocalId>) -> Option<Affine> {
    AffineCtx {
        f,
        vars: &BTreeSet::new(),
        assigned,
        closed: &[],
        position: 0,
        defs: Vec::new(),
    }
    .affine(e)
}

/// The scalars assigned anywhere in `block`, including loop variables of nested loops.
pub fn assigned_scalars(f: &Function, block: &Block) -> BTreeSet<LocalId> {
    f.tree().assigned(block).into_iter().collect()
}

/// The scalars that exactly one `Assign` of `block` (nested blocks included) assigns, and no
/// `for` has as its variable.
fn assigned_once(f: &Function, block: &Block) -> BTreeSet<LocalId> {
    let mut count = BTreeMap::<LocalId, usize>::new();
    f.walk_stmts(block, &mut |s| match &f.stmts[s].kind {
        StmtKind::Assign { target, .. } => *count.entry(*target).or_insert(0) += 1,
        StmtKind::For { var, .. } => *count.entry(*var).or_insert(0) += 2,
        _ => {}
    });
    count
        .into_iter()
        .filter_map(|(l, n)| (n == 1).then_some(l))
        .collect()
}

/// Walks one top-level statement of the summarized block, keeping the enclosing `for` loops and
/// the affine definitions in scope.
struct Walker<'a> {
    ctx: AffineCtx<'a>,
    /// The scalars assigned once in the summarized block (candidates for `AffineCtx::defs`).
    once: BTreeSet<LocalId>,
    loops: Vec<StmtId>,
    out: Vec<Access>,
}

impl Walker<'_> {
    fn stmt(&mut self, s: StmtId) {
        let f = self.ctx.f;
        if let StmtKind::Store { array, indices, .. } = &f.stmts[s].kind {
            self.push(*array, true, indices, s, f.stmts[s].span);
        }
        for e in f.stmt_exprs(s) {
            f.walk_expr(e, &mut |x| {
                if let ExprKind::Index(array, indices) = &f.exprs[x].kind {
                    self.push(*array, false, indices, s, f.exprs[x].span);
                }
            });
        }
        match &f.stmts[s].kind {
            StmtKind::For { body, .. } => {
                self.loops.push(s);
                self.block(body);
                self.loops.pop();
            }
            StmtKind::While { body, .. } => self.block(body),
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                self.block(then_body);
                self.block(else_body);
            }
            StmtKind::Assign { target, value } if self.once.contains(target) => {
                if let Some(value) = self.ctx.affine(*value) {
                    self.ctx.defs.push((*target, value));
                }
            }
            _ => {}
        }
    }

    /// A nested block: the definitions made in it go out of scope at its end.
    fn block(&mut self, block: &Block) {
        let in_scope = self.ctx.defs.len();
        for &s in &block.0 {
            self.stmt(s);
        }
        self.ctx.defs.truncate(in_scope);
    }

    fn push(
        &mut self,
        array: LocalId,
        is_write: bool,
        indices: &[ExprId],
        stmt: StmtId,
        span: Span,
    ) {
        self.out.push(Access {
            array,
            is_write,
            subscripts: indices.iter().map(|&i| self.ctx.affine(i)).collect(),
            stmt,
            loops: self.loops.clone(),
            span,
        });
    }
}

struct AffineCtx<'a> {
    f: &'a Function,
    vars: &'a BTreeSet<LocalId>,
    assigned: &'a BTreeSet<LocalId>,
    closed: &'a [ClosedForm],
    /// The top-level statement of the summarized block being walked.
    position: usize,
    /// Scalars assigned once whose assignment dominates the statement being walked, with the
    /// affine value it gave them (see the module docs).
    defs: Vec<(LocalId, Affine)>,
}

impl AffineCtx<'_> {
    fn affine(&self, e: ExprId) -> Option<Affine> {
        let f = self.f;
        match &f.exprs[e].kind {
            ExprKind::Const(v) if v.fract() == 0.0 && v.abs() < 1e15 => {
                Some(Affine::constant(*v as i64))
            }
            ExprKind::Local(l) if self.vars.contains(l) => f.locals[*l]
                .integral_in_loops()
                .then(|| Affine::term(Some(*l), None)),
            ExprKind::Local(l) if self.defs.iter().any(|(d, _)| d == l) => {
                let (_, value) = self.defs.iter().find(|(d, _)| d == l)?;
                Some(value.clone())
            }
            ExprKind::Local(l) if self.closed.iter().any(|c| c.local == *l) => {
                let c = self.closed.iter().find(|c| c.local == *l)?;
                Some(if self.position > c.update {
                    c.after.clone()
                } else {
                    c.before.clone()
                })
            }
            ExprKind::Local(l)
                if !self.assigned.contains(l) && !f.locals[*l].ty.class.is_integer() =>
            {
                Some(Affine::term(None, Some(Symbol::Local(*l))))
            }
            ExprKind::Size(a, q) => {
                let k = match q {
                    SizeQuery::Numel => 0,
                    SizeQuery::Length => 3,
                    SizeQuery::Dim(d) => *d,
                };
                Some(Affine::term(None, Some(Symbol::Size(*a, k))))
            }
            ExprKind::Unary(UnOp::Neg, a) => self.affine(*a)?.scale(-1),
            ExprKind::Binary(BinOp::Add, a, b) => self.affine(*a)?.add(&self.affine(*b)?, 1),
            ExprKind::Binary(BinOp::Sub, a, b) => self.affine(*a)?.add(&self.affine(*b)?, -1),
            ExprKind::Binary(BinOp::Mul, a, b) => {
                let (x, y) = (self.affine(*a)?, self.affine(*b)?);
                match (x.as_constant(), y.as_constant()) {
                    (Some(k), _) => y.scale(k),
                    (_, Some(k)) => x.scale(k),
                    _ => None,
                }
            }
            _ => None,
        }
    }
}
