//! Which size queries may meet an array that is not assigned yet.
//!
//! An array local that is not an input starts undefined (row extent -1, see
//! `host::declarations`). Asking its `size`, `numel` or `length` there is MATLAB's error for an
//! undefined variable, so the expression writer checks those queries at run time
//! (`m2cu_defined`). This pass finds the queries that need the check: those whose array is not
//! definitely assigned on every path that reaches them.
//!
//! Invariant: the analysis is conservative. A local counts as assigned after a statement that
//! assigns, fills, resizes or stores into it (a store into an undefined array stops the program,
//! so every path that goes on has it); after an `if` only when both branches that fall through
//! assign it; a copy `B = A` assigns `B` only when `A` is assigned; never after a loop (which may run zero times), though a loop body sees its own
//! earlier assignments.

use std::collections::HashSet;

use m2cu_frontend::ir::{
    Block, ExprId, ExprKind, Function, LocalId, PrintPiece, PrintTo, RuntimeError, StmtKind,
};

/// The `ExprKind::Size` expressions of `f` whose array may be undefined when they are evaluated.
pub fn maybe_undefined_sizes(f: &Function) -> HashSet<ExprId> {
    let mut pass = Pass {
        f,
        found: HashSet::new(),
    };
    let mut assigned: HashSet<LocalId> = f.params.iter().copied().collect();
    pass.block(&f.body, &mut assigned);
    pass.found
}

struct Pass<'a> {
    f: &'a Function,
    found: HashSet<ExprId>,
}

/// What a block leaves assigned, or `None` when it never falls through (it ends in `break`,
/// `continue` or `return`), so it constrains nothing after an `if`.
type Outcome = Option<HashSet<LocalId>>;

impl Pass<'_> {
    /// Walks `block` in order, adding to `assigned` what it assigns; returns whether the block
    /// falls through.
    fn block(&mut self, block: &Block, assigned: &mut HashSet<LocalId>) -> bool {
        for &s in &block.0 {
            match &self.f.stmts[s].kind {
                StmtKind::Assign { target, value } => {
                    self.reads(*value, assigned);
                    // `B = A` of an undefined `A` copies the placeholder: `B` is no better.
                    let copies_undefined = matches!(self.f.exprs[*value].kind,
                        ExprKind::Local(a) if !self.f.locals[a].ty.is_scalar() && !assigned.contains(&a));
                    if !copies_undefined {
                        assigned.insert(*target);
                    }
                }
                StmtKind::Alloc {
                    target,
                    rows,
                    cols,
                    pages,
                    ..
                } => {
                    for e in [Some(*rows), Some(*cols), *pages].into_iter().flatten() {
                        self.reads(e, assigned);
                    }
                    assigned.insert(*target);
                }
                StmtKind::Resize { array, rows, cols } => {
                    let growing = self.growing(assigned, *array);
                    self.reads(*rows, &growing);
                    self.reads(*cols, &growing);
                    assigned.insert(*array);
                }
                StmtKind::Store {
                    array,
                    indices,
                    value,
                } => {
                    for &e in indices.iter().chain([value]) {
                        self.reads(e, assigned);
                    }
                    assigned.insert(*array);
                }
                StmtKind::For {
                    start,
                    step,
                    stop,
                    body,
                    ..
                } => {
                    for e in [Some(*start), *step, Some(*stop)].into_iter().flatten() {
                        self.reads(e, assigned);
                    }
                    self.block(body, &mut assigned.clone());
                }
                StmtKind::While { cond, body } => {
                    self.reads(*cond, assigned);
                    self.block(body, &mut assigned.clone());
                }
                StmtKind::If {
                    cond,
                    then_body,
                    else_body,
                } => {
                    match self.grows_first(then_body) {
                        Some(array) => self.reads(*cond, &self.growing(assigned, array)),
                        None => self.reads(*cond, assigned),
                    }
                    let then = self.branch(then_body, assigned);
                    let other = self.branch(else_body, assigned);
                    match (then, other) {
                        (Some(a), Some(b)) => *assigned = a.intersection(&b).copied().collect(),
                        (Some(one), None) | (None, Some(one)) => *assigned = one,
                        (None, None) => return false,
                    }
                }
                StmtKind::Print { pieces, to } => {
                    for &arg in pieces.iter().flat_map(PrintPiece::args) {
                        self.reads(arg, assigned);
                    }
                    // `error` ends the path, as `return` does.
                    if matches!(to, PrintTo::Error { .. }) {
                        return false;
                    }
                }
                StmtKind::Check {
                    error: RuntimeError::AmbiguousGrowth,
                    ..
                } => {}
                StmtKind::Check { cond, .. } => self.reads(*cond, assigned),
                StmtKind::Break | StmtKind::Continue | StmtKind::Return => return false,
            }
        }
        true
    }

    /// `assigned` with `array`: growing code reads the extents of an undefined array as none.
    fn growing(&self, assigned: &HashSet<LocalId>, array: LocalId) -> HashSet<LocalId> {
        let mut with = assigned.clone();
        with.insert(array);
        with
    }

    /// The array that `body` starts by growing (a `Resize`, or the check before one), when it
    /// is the body of the `if` that decides whether to grow it.
    fn grows_first(&self, body: &Block) -> Option<LocalId> {
        let first = *body.0.first()?;
        match &self.f.stmts[first].kind {
            StmtKind::Resize { array, .. } => Some(*array),
            StmtKind::Check {
                error: RuntimeError::AmbiguousGrowth,
                ..
            } => body.0.iter().find_map(|&s| match &self.f.stmts[s].kind {
                StmtKind::If { then_body, .. } => self.grows_first(then_body),
                _ => None,
            }),
            _ => None,
        }
    }

    fn branch(&mut self, body: &Block, assigned: &HashSet<LocalId>) -> Outcome {
        let mut inner = assigned.clone();
        self.block(body, &mut inner).then_some(inner)
    }

    fn reads(&mut self, e: ExprId, assigned: &HashSet<LocalId>) {
        let f = self.f;
        f.walk_expr(e, &mut |x| {
            if let ExprKind::Size(array, _) = f.exprs[x].kind {
                if !assigned.contains(&array) {
                    self.found.insert(x);
                }
            }
        });
    }
}
