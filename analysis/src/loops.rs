//! The loop tree: every `for` and `while` statement of a function, in source order, with its
//! parent loop and nesting depth.
//!
//! Invariant: a parent loop always comes before its children in `loops`.

use m2cu_frontend::ir::{Block, Function, LocalId, StmtId, StmtKind};

/// Index into [`LoopTree::loops`].
pub type LoopId = usize;

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
    pub loops: Vec<LoopInfo>,
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
        self.loops.push(info);
        self.loops.len() - 1
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

    /// The variables of the `for` loops strictly inside `outer`.
    pub fn inner_vars(&self, outer: LoopId) -> Vec<LocalId> {
        (0..self.loops.len())
            .filter(|&l| l != outer && self.is_within(l, outer))
            .filter_map(|l| self.loops[l].var)
            .collect()
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
