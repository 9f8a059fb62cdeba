//! Scalars read where they may not be assigned yet.
//!
//! MATLAB stops with "'t' undefined" when a variable is read on a path that never assigned it
//! (`if x > 0, t = 5; end; y = t + 1` with `x <= 0`, `for k = 1:n, last = x(k); end; y = last`
//! with `n = 0`), and with "output argument not assigned" when a function returns without its
//! output. Generated C would read the scalar's initial 0 there, a silent wrong result. (Arrays
//! have their own run-time mark, see `codegen::defined`.)
//!
//! This pass runs on the finished IR. A definite-assignment walk finds every statement that
//! reads a scalar local (not a parameter) that some path reaching it leaves unassigned, and every
//! function exit where a scalar output may be unassigned. Each such local gets a hidden logical
//! flag `_d<k>`: false at the start of the body, set right after every assignment of the local,
//! and checked (`Check` with `RuntimeError::Undefined(k - 1)`) before each such read and exit;
//! `Function::undefined_names[k - 1]` is the variable's MATLAB name, which the error quotes as
//! Octave 7.3 does (`'t' undefined`).
//!
//! An accumulator retyped to the class of an update that may not run (`reassign`'s
//! [`ClassPending`]) is flagged the same way, with its double start counted as no assignment
//! (the flag is cleared there) and its checks stopping with `RuntimeError::AccumulatorClass`;
//! the reads lowered before the retype are exempt (they are class-neutral).
//!
//! Every call of a local function starts with the callee's variables undefined, also when an
//! inlined call runs again in a loop: the flags of the callee's locals are cleared before the
//! call's first statement ([`CallEntry`]), so a variable the previous call assigned is not a
//! value in this one.
//!
//! Invariants: the walk is conservative (a loop body may run zero times, so nothing it assigns
//! counts after it; after an `if` only what every branch that falls through assigns), so a flag
//! is never missing where MATLAB would stop; the flag only grows from false to true, so a check
//! placed before a `while` covers every evaluation of its condition. Locals that are read only
//! where they are definitely assigned, which is nearly all of them, get nothing.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::ir::{
    Block, ExprKind, Function, Local, LocalId, PrintTo, RuntimeError, Stmt, StmtId, StmtKind,
};
use crate::types::{Class, Type};

use super::reassign::ClassPending;

/// What lowering knows that the pass needs.
pub(super) struct Facts<'a> {
    /// The locals' MATLAB names (an inlined function's `x` is the local `_f_x`), which the
    /// checks' errors quote.
    pub names: &'a HashMap<LocalId, String>,
    /// Accumulators retyped under a branch.
    pub pending: &'a [ClassPending],
    /// Where the inlined calls start.
    pub calls: &'a [CallEntry],
}

/// The first statement of an inlined call and the callee's locals, undefined there.
pub(super) struct CallEntry {
    pub first: StmtId,
    pub locals: Vec<LocalId>,
}

/// Adds the flags and checks (see the module docs) to `f`.
pub(super) fn guard_scalars(f: &mut Function, facts: &Facts<'_>) {
    let Facts {
        names,
        pending,
        calls,
    } = *facts;
    let mut walk = Walk {
        f,
        pending,
        checks: BTreeMap::new(),
        at_end: Vec::new(),
    };
    let assigned: HashSet<LocalId> = f.params.iter().copied().collect();
    if let Some(assigned) = walk.block(&f.body, assigned) {
        walk.at_end = walk.unassigned_outputs(&assigned);
    }
    let (checks, at_end) = (walk.checks, walk.at_end);
    let locals: BTreeSet<LocalId> = checks.values().flatten().chain(&at_end).copied().collect();
    if locals.is_empty() {
        return;
    }
    let mut flags = BTreeMap::new();
    for local in locals {
        let span = f.locals[local].span;
        let flag = f.locals.alloc(Local {
            name: format!("_d{}", flags.len() + 1),
            ty: Type::scalar(Class::Logical),
            span,
            integral: false,
            loop_integral: false,
            shown: crate::ir::Shown::Source(span),
        });
        let name = names.get(&local).unwrap_or(&f.locals[local].name);
        f.undefined_names.push(name.clone());
        flags.insert(
            local,
            Flag {
                flag,
                name: f.undefined_names.len() - 1,
            },
        );
    }
    let starts = pending.iter().map(|p| p.start).collect();
    let errors = pending
        .iter()
        .filter_map(|p| Some((flags.get(&p.local)?.flag, RuntimeError::AccumulatorClass)))
        .collect();
    let mut resets: HashMap<StmtId, Vec<LocalId>> = HashMap::new();
    for call in calls {
        let flagged = call.locals.iter().filter_map(|l| Some(flags.get(l)?.flag));
        resets.entry(call.first).or_default().extend(flagged);
    }
    let mut rewrite = Rewrite {
        f,
        flags,
        checks,
        starts,
        errors,
        resets,
    };
    let mut body = rewrite.block(&rewrite.f.body.clone());
    let start: Vec<StmtId> = rewrite
        .flags
        .clone()
        .values()
        .map(|f| rewrite.set(f.flag, false))
        .collect();
    body.0.splice(0..0, start);
    for local in at_end {
        let check = rewrite.check(rewrite.flags[&local]);
        body.0.push(check);
    }
    rewrite.f.body = body;
}

struct Walk<'a> {
    f: &'a Function,
    pending: &'a [ClassPending],
    /// Statements that read scalars that may be unassigned there, with those scalars.
    checks: BTreeMap<StmtId, Vec<LocalId>>,
    /// Scalar outputs that may be unassigned when the body ends.
    at_end: Vec<LocalId>,
}

impl Walk<'_> {
    /// Walks `block` with `assigned` definitely assigned before it; what is assigned after it,
    /// or `None` when it never falls through (`break`, `continue`, `return`, `error`).
    fn block(&mut self, block: &Block, mut assigned: HashSet<LocalId>) -> Option<HashSet<LocalId>> {
        for &s in &block.0 {
            self.reads(s, &assigned);
            match &self.f.stmts[s].kind {
                StmtKind::Assign { target, .. } if self.pending.iter().any(|p| p.start == s) => {
                    assigned.remove(target);
                }
                StmtKind::Assign { target, .. } => {
                    assigned.insert(*target);
                }
                StmtKind::For { var, body, .. } => {
                    let mut inside = assigned.clone();
                    inside.insert(*var);
                    self.block(body, inside);
                    assigned.insert(*var);
                }
                StmtKind::While { body, .. } => {
                    self.block(body, assigned.clone());
                }
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => {
                    let then = self.block(then_body, assigned.clone());
                    let other = self.block(else_body, assigned.clone());
                    assigned = match (then, other) {
                        (Some(a), Some(b)) => a.intersection(&b).copied().collect(),
                        (Some(a), None) | (None, Some(a)) => a,
                        (None, None) => return None,
                    };
                }
                StmtKind::Return => {
                    let outputs = self.unassigned_outputs(&assigned);
                    if !outputs.is_empty() {
                        self.checks.entry(s).or_default().extend(outputs);
                    }
                    return None;
                }
                StmtKind::Break | StmtKind::Continue => return None,
                StmtKind::Print {
                    to: PrintTo::Error { .. },
                    ..
                } => return None,
                _ => {}
            }
        }
        Some(assigned)
    }

    /// Records the scalars that statement `s` itself reads (not its nested statements) and that
    /// `assigned` lacks.
    fn reads(&mut self, s: StmtId, assigned: &HashSet<LocalId>) {
        let mut missing = Vec::new();
        for e in self.f.stmt_exprs(s) {
            self.f.walk_expr(e, &mut |e| {
                if let ExprKind::Local(l) = self.f.exprs[e].kind {
                    let exempt = self.pending.iter().any(|p| p.exempt.contains(&e));
                    if self.f.locals[l].ty.is_scalar() && !assigned.contains(&l) && !exempt {
                        missing.push(l);
                    }
                }
            });
        }
        missing.sort();
        missing.dedup();
        if !missing.is_empty() {
            self.checks.entry(s).or_default().extend(missing);
        }
    }

    fn unassigned_outputs(&self, assigned: &HashSet<LocalId>) -> Vec<LocalId> {
        self.f
            .outputs
            .iter()
            .copied()
            .filter(|&o| self.f.locals[o].ty.is_scalar() && !assigned.contains(&o))
            .collect()
    }
}

/// The hidden flag of a checked local, and the index of its MATLAB name in
/// `Function::undefined_names`.
#[derive(Clone, Copy)]
struct Flag {
    flag: LocalId,
    name: usize,
}

struct Rewrite<'a> {
    f: &'a mut Function,
    flags: BTreeMap<LocalId, Flag>,
    checks: BTreeMap<StmtId, Vec<LocalId>>,
    /// The starts of pending accumulators: they clear the flag.
    starts: HashSet<StmtId>,
    /// The error of each flag (keyed by the flag) that is not `RuntimeError::Undefined`.
    errors: BTreeMap<LocalId, RuntimeError>,
    /// The flags cleared before each inlined call's first statement.
    resets: HashMap<StmtId, Vec<LocalId>>,
}

impl Rewrite<'_> {
    /// `block` with checks before the statements that need them and flag sets after the
    /// assignments of flagged locals, nested blocks rewritten too.
    fn block(&mut self, block: &Block) -> Block {
        let mut out = Vec::with_capacity(block.0.len());
        for &s in &block.0 {
            self.nested(s);
            for flag in self.resets.get(&s).cloned().unwrap_or_default() {
                let clear = self.set(flag, false);
                out.push(clear);
            }
            for local in self.checks.get(&s).cloned().unwrap_or_default() {
                let check = self.check(self.flags[&local]);
                out.push(check);
            }
            out.push(s);
            if let StmtKind::Assign { target, .. } = self.f.stmts[s].kind {
                if let Some(&Flag { flag, .. }) = self.flags.get(&target) {
                    let set = match (self.starts.contains(&s), self.errors.contains_key(&flag)) {
                        (true, _) => self.set(flag, false),
                        (false, true) => self.set_or(flag),
                        (false, false) => self.set(flag, true),
                    };
                    out.push(set);
                }
            }
        }
        Block(out)
    }

    fn nested(&mut self, s: StmtId) {
        let mut kind = self.f.stmts[s].kind.clone();
        match &mut kind {
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => *body = self.block(body),
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                *then_body = self.block(then_body);
                *else_body = self.block(else_body);
            }
            _ => return,
        }
        self.f.stmts[s].kind = kind;
    }

    /// `flag = value`.
    fn set(&mut self, flag: LocalId, value: bool) -> StmtId {
        let span = self.f.locals[flag].span;
        let value = self.f.exprs.alloc(crate::ir::Expr {
            kind: ExprKind::Const(f64::from(u8::from(value))),
            ty: Type::scalar(Class::Logical),
            span,
        });
        self.f.stmts.alloc(Stmt {
            kind: StmtKind::Assign {
                target: flag,
                value,
            },
            span,
        })
    }

    /// `flag = flag || true`: the flag of a pending accumulator, set in the or-reduction form
    /// so that a loop accumulating under a branch can stay a reduction.
    fn set_or(&mut self, flag: LocalId) -> StmtId {
        let span = self.f.locals[flag].span;
        let logical = Type::scalar(Class::Logical);
        let mut expr = |kind| {
            self.f.exprs.alloc(crate::ir::Expr {
                kind,
                ty: logical,
                span,
            })
        };
        let (old, yes) = (expr(ExprKind::Local(flag)), expr(ExprKind::Const(1.0)));
        let value = expr(ExprKind::Binary(crate::ir::BinOp::OrOr, old, yes));
        self.f.stmts.alloc(Stmt {
            kind: StmtKind::Assign {
                target: flag,
                value,
            },
            span,
        })
    }

    /// Stops with MATLAB's undefined-variable error, naming the variable (or with the flag's
    /// own error), unless its flag is set.
    fn check(&mut self, Flag { flag, name }: Flag) -> StmtId {
        let error = self
            .errors
            .get(&flag)
            .copied()
            .unwrap_or(RuntimeError::Undefined(name));
        let span = self.f.locals[flag].span;
        let cond = self.f.exprs.alloc(crate::ir::Expr {
            kind: ExprKind::Local(flag),
            ty: Type::scalar(Class::Logical),
            span,
        });
        self.f.stmts.alloc(Stmt {
            kind: StmtKind::Check { cond, error },
            span,
        })
    }
}
