//! The loop tree: every `for` and `while` statement of a function, in source order, with its
//! parent loop and nesting depth.
//!
//! Invariant: a parent loop always comes before its children in `loops`, whose ids follow
//! source order.

use std::collections::{BTreeSet, HashMap};

use la_arena::{Arena, ArenaMap, Idx};

use m2cu_frontend::ir::{Block, Function, LocalId, StmtId, StmtKind};

use crate::access::{self, Affine};

/// A loop of [`LoopTree::loops`].
pub type LoopId = Idx<LoopInfo>;

/// A fact for every loop of a [`LoopTree`], keyed by its id.
pub type PerLoop<T> = ArenaMap<LoopId, T>;

#[derive(Clone, Debug)]
pub struct LoopInfo {
    pub stmt: StmtId,
    /// The `for` variable; `None` for `while`.
    pub var: Option<LocalId>,
    /// 1 for an outermost loop.
    pub depth: usize,
    pub parent: Option<LoopId>,
}

#[derive(Clone, Debug, Default)]
pub struct LoopTree {
    pub loops: Arena<LoopInfo>,
    /// The loop each `for`/`while` statement is.
    by_stmt: HashMap<StmtId, LoopId>,
}

impl LoopTree {
    pub fn build(f: &Function) -> LoopTree {
        let mut tree = LoopTree::default();
        tree.visit(f, &f.body, None, 1);
        tree
    }

    fn visit(&mut self, f: &Function, block: &Block, parent: Option<LoopId>, depth: usize) {
        for &s in &block.0 {
            match &f.stmts[s].kind {
                StmtKind::For { var, body, .. } => {
                    let id = self.push(LoopInfo {
                        stmt: s,
                        var: Some(*var),
                        depth,
                        parent,
                    });
                    self.visit(f, body, Some(id), depth + 1);
                }
                StmtKind::While { body, .. } => {
                    let id = self.push(LoopInfo {
                        stmt: s,
                        var: None,
                        depth,
                        parent,
                    });
                    self.visit(f, body, Some(id), depth + 1);
                }
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    self.visit(f, then_body, parent, depth);
                    self.visit(f, else_body, parent, depth);
                }
                _ => {}
            }
        }
    }

    fn push(&mut self, info: LoopInfo) -> LoopId {
        let stmt = info.stmt;
        let id = self.loops.alloc(info);
        self.by_stmt.insert(stmt, id);
        id
    }

    /// The loop that the statement `stmt` is, if it is a `for` or `while` loop.
    pub fn loop_at(&self, stmt: StmtId) -> Option<LoopId> {
        self.by_stmt.get(&stmt).copied()
    }

    /// The loops `id` and those nested inside it, in source order.
    pub fn within(&self, id: LoopId) -> impl Iterator<Item = LoopId> + '_ {
        self.loops
            .iter()
            .map(|(l, _)| l)
            .filter(move |&l| self.is_within(l, id))
    }

    /// Whether `inner` is `outer` or nested inside it.
    pub fn is_within(&self, inner: LoopId, outer: LoopId) -> bool {
        let mut cur = Some(inner);
        while let Some(c) = cur {
            if c == outer {
                return true;
            }
            cur = self.loops[c].parent;
        }
        false
    }

    /// The variables of the `for` loops strictly enclosing `inner`.
    pub fn outer_vars(&self, inner: LoopId) -> Vec<LocalId> {
        let mut vars = Vec::new();
        let mut cur = self.loops[inner].parent;
        while let Some(c) = cur {
            vars.extend(self.loops[c].var);
            cur = self.loops[c].parent;
        }
        vars
    }
}

/// The body of a loop statement.
pub fn loop_body(f: &Function, stmt: StmtId) -> &Block {
    match &f.stmts[stmt].kind {
        StmtKind::For { body, .. } | StmtKind::While { body, .. } => body,
        _ => unreachable!("loop_body called on a statement that is not a loop"),
    }
}

/// Whether a `continue` of this loop (not of a nested one) may skip the rest of an iteration.
pub fn continues(f: &Function, block: &Block) -> bool {
    block.0.iter().any(|&s| match &f.stmts[s].kind {
        StmtKind::Continue => true,
        StmtKind::If {
            then_body,
            else_body,
            ..
        } => continues(f, then_body) || continues(f, else_body),
        _ => false,
    })
}

/// What the analysis knows of a `for` loop's range `first:step:last`, as affine functions of
/// loop-invariant symbols (`None` where a part is not one, or the variable is not integral).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LoopRange {
    pub first: Option<Affine>,
    pub last: Option<Affine>,
    pub step: Option<i64>,
}

impl LoopRange {
    /// `(lo, hi)` such that every value of the loop variable lies in `[lo, hi]`.
    pub fn bounds(&self) -> Option<(Affine, Affine)> {
        let (first, last) = (self.first.clone()?, self.last.clone()?);
        match self.step? {
            s if s > 0 => Some((first, last)),
            s if s < 0 => Some((last, first)),
            _ => None,
        }
    }
}

/// The range of the `for` statement `stmt` of an integral variable; symbols in it must not be
/// among `assigned` (the scalars the analyzed loop body assigns).
pub fn range(f: &Function, stmt: StmtId, assigned: &BTreeSet<LocalId>) -> LoopRange {
    let StmtKind::For {
        var,
        start,
        step,
        stop,
        ..
    } = &f.stmts[stmt].kind
    else {
        return LoopRange::default();
    };
    if !f.locals[*var].integral_in_loops() {
        return LoopRange::default();
    }
    let invariant = |e| access::invariant(f, e, assigned);
    LoopRange {
        first: invariant(*start),
        last: invariant(*stop),
        step: match step {
            None => Some(1),
            Some(e) => invariant(*e).and_then(|a| a.as_constant()),
        },
    }
}
