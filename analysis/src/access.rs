//! Access summaries: every array read and write in a block, with each subscript as an affine
//! function of loop variables and loop-invariant symbols when it is one.
//!
//! Invariant: an [`Affine`] only mentions loop variables (in `vars`) and symbols that are not
//! assigned inside the block being summarized; anything else makes the subscript unknown (`None`).

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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Affine {
    pub constant: i64,
    pub vars: BTreeMap<LocalId, i64>,
    pub symbols: BTreeMap<Symbol, i64>,
}

impl Affine {
    fn constant(c: i64) -> Affine {
        Affine {
            constant: c,
            ..Affine::default()
        }
    }

    fn term(map_var: Option<LocalId>, symbol: Option<Symbol>) -> Affine {
        let mut a = Affine::default();
        if let Some(v) = map_var {
            a.vars.insert(v, 1);
        }
        if let Some(s) = symbol {
            a.symbols.insert(s, 1);
        }
        a
    }

    fn add(mut self, other: &Affine, sign: i64) -> Option<Affine> {
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

    fn scale(mut self, k: i64) -> Option<Affine> {
        self.constant = self.constant.checked_mul(k)?;
        for v in self.vars.values_mut().chain(self.symbols.values_mut()) {
            *v = v.checked_mul(k)?;
        }
        self.vars.retain(|_, v| *v != 0);
        self.symbols.retain(|_, v| *v != 0);
        Some(self)
    }

    fn as_constant(&self) -> Option<i64> {
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
    /// The span of the access (the element expression, or the whole store statement).
    pub span: Span,
}

/// Collects the accesses of `block` (and nested blocks). `vars` are the loop variables that may
/// appear in affine subscripts; `assigned` are the scalars assigned inside the block, which
/// cannot be symbols.
pub fn collect(f: &Function, block: &Block, vars: &BTreeSet<LocalId>) -> Vec<Access> {
    let assigned = assigned_scalars(f, block);
    let ctx = AffineCtx {
        f,
        vars,
        assigned: &assigned,
    };
    let mut out = Vec::new();
    f.walk_stmts(block, &mut |s| {
        if let StmtKind::Store { array, indices, .. } = &f.stmts[s].kind {
            out.push(Access {
                array: *array,
                is_write: true,
                subscripts: indices.iter().map(|&i| ctx.affine(i)).collect(),
                stmt: s,
                span: f.stmts[s].span,
            });
        }
        for e in f.stmt_exprs(s) {
            f.walk_expr(e, &mut |x| {
                if let ExprKind::Index(array, indices) = &f.exprs[x].kind {
                    out.push(Access {
                        array: *array,
                        is_write: false,
                        subscripts: indices.iter().map(|&i| ctx.affine(i)).collect(),
                        stmt: s,
                        span: f.exprs[x].span,
                    });
                }
            });
        }
    });
    out
}

/// The scalars assigned anywhere in `block`, including loop variables of nested loops.
pub fn assigned_scalars(f: &Function, block: &Block) -> BTreeSet<LocalId> {
    let mut set = BTreeSet::new();
    f.walk_stmts(block, &mut |s| match &f.stmts[s].kind {
        StmtKind::Assign { target, .. } | StmtKind::For { var: target, .. } => {
            set.insert(*target);
        }
        _ => {}
    });
    set
}

struct AffineCtx<'a> {
    f: &'a Function,
    vars: &'a BTreeSet<LocalId>,
    assigned: &'a BTreeSet<LocalId>,
}

impl AffineCtx<'_> {
    fn affine(&self, e: ExprId) -> Option<Affine> {
        let f = self.f;
        match &f.exprs[e].kind {
            ExprKind::Const(v) if v.fract() == 0.0 && v.abs() < 1e15 => {
                Some(Affine::constant(*v as i64))
            }
            ExprKind::Local(l) if self.vars.contains(l) => Some(Affine::term(Some(*l), None)),
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
