//! Complex values crossing the entry function's boundary (issue 15 item 14): complex double
//! scalar inputs and outputs.
//!
//! - An input is complex when its value is (`m2cu::type_of`); a real value is simply real, as in
//!   MATLAB, and the program is specialized for one or the other. Arrays cross as arrays of
//!   `(re, im)` pairs; a complex array with a dimension that is not fixed when m2cu translates
//!   is read as it comes.
//! - Octave narrows a complex value whose imaginary part is zero to a real one when an operation
//!   computes it, but keeps complex what `complex(a, b)` made and what an input held, through
//!   plain copies (`z = w`) and on return (`function z = f(a), z = complex(a, 0); end` returns
//!   the complex `1 + 0i` for `f(1)`; with `z = a + 0i` it returns the real `1`; `load` narrows
//!   too, which `m2cu::read_mat_file` does for inputs). Such a value is *fresh* ([`fresh`]).
//!   Whether an output is fresh at the end of the call is known at translation time
//!   ([`Kept::Always`], [`Kept::Never`]) unless it is assigned both fresh and computed values
//!   (a loop that may run zero times after `z = z0`): [`track_kept`] then gives it a logical
//!   flag, set after each of its assignments, that the call reads at its end ([`Kept::Flag`]).
//!   The entry returns, after its outputs, one logical per complex output: true when the output
//!   is kept complex with a zero imaginary part (the ABI, `m2cu_abi.h`), and the caller narrows
//!   the others whose imaginary parts are all zero.
//! - An array is fresh the same way, through whole copies only: an indexed store into it
//!   (`z(2) = 5`, even `z(1) = complex(1, 0)`), growth, and every computed array (`-z`, `z.'`,
//!   `z(1:2)`, `[z, 1]`) make Octave narrow it on return (`fixtures/complex/boundary.m`).
//!
//! Invariant: after [`track_kept`], `Function::complex_outputs` lists every complex output in
//! output order, and each [`Kept::Flag`] local is assigned at the start of the body and after
//! every assignment of its output.

use crate::diag::Span;
use crate::ir::{
    Block, Builtin, Expr, ExprId, ExprKind, Function, Kept, Local, LocalId, PrintTo, Stmt, StmtId,
    StmtKind,
};
use crate::types::{Class, Type};

/// Whether the complex expression `e` is fresh (see the module docs) on every path: a
/// `complex(a, b)` call, a complex input, or a variable assigned only fresh values.
pub fn fresh(f: &Function, e: ExprId) -> bool {
    freshness(f, e, &mut Vec::new()).always
}

/// Whether a value may be fresh, and whether it always is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Freshness {
    sometimes: bool,
    always: bool,
}

impl Freshness {
    const NEVER: Freshness = Freshness {
        sometimes: false,
        always: false,
    };
    const ALWAYS: Freshness = Freshness {
        sometimes: true,
        always: true,
    };
    /// Neither fresh nor computed: a variable with no value yet, or one already being asked.
    const NEUTRAL: Freshness = Freshness {
        sometimes: false,
        always: true,
    };

    fn or(self, other: Freshness) -> Freshness {
        Freshness {
            sometimes: self.sometimes || other.sometimes,
            always: self.always && other.always,
        }
    }
}

/// The freshness of `e`; `asking` holds the variables whose freshness is being computed.
fn freshness(f: &Function, e: ExprId, asking: &mut Vec<LocalId>) -> Freshness {
    match &f.exprs[e].kind {
        ExprKind::Call(Builtin::Complex, args) if args.len() == 2 => Freshness::ALWAYS,
        // `complex(a, b, held)`: fresh where `held` is, known only at run time.
        ExprKind::Call(Builtin::Complex, _) => Freshness {
            sometimes: true,
            always: false,
        },
        ExprKind::Local(l) if asking.contains(l) => Freshness::NEUTRAL,
        ExprKind::Local(l) => local_freshness(f, *l, asking),
        _ => Freshness::NEVER,
    }
}

/// The freshness of the values the variable `l` may hold: its input value, and each value
/// assigned to it.
fn local_freshness(f: &Function, l: LocalId, asking: &mut Vec<LocalId>) -> Freshness {
    asking.push(l);
    let input = match (f.is_param(l), f.locals[l].ty.complex) {
        (true, true) => Freshness::ALWAYS,
        (true, false) => Freshness::NEVER,
        (false, _) => Freshness::NEUTRAL,
    };
    let result = assignments(f, l).into_iter().fold(input, |acc, a| match a {
        Assignment::Value(v) => acc.or(freshness(f, v, asking)),
        Assignment::Fresh => acc.or(Freshness::ALWAYS),
        Assignment::Computed => acc.or(Freshness::NEVER),
    });
    asking.pop();
    result
}

/// One statement that gives a variable a value.
#[derive(Clone, Copy, Debug)]
enum Assignment {
    /// `x = e`: fresh when `e` is.
    Value(ExprId),
    /// A part of a whole array's fresh write (`Function::fresh_writes`).
    Fresh,
    /// Any other allocation, resize or indexed store.
    Computed,
}

/// What the statement `s` assigns to `l`, if anything.
fn assignment_to(f: &Function, s: StmtId, l: LocalId) -> Option<Assignment> {
    match f.stmts[s].kind {
        StmtKind::Assign { target, value } if target == l => Some(Assignment::Value(value)),
        StmtKind::Alloc { target, .. }
        | StmtKind::Resize { array: target, .. }
        | StmtKind::Store { array: target, .. }
        | StmtKind::Print {
            to: PrintTo::Append { row: target },
            ..
        } if target == l => Some(match f.fresh_writes.contains(&s) {
            true => Assignment::Fresh,
            false => Assignment::Computed,
        }),
        _ => None,
    }
}

/// The assignments to `l`, in no particular order.
fn assignments(f: &Function, l: LocalId) -> Vec<Assignment> {
    f.stmts
        .iter()
        .filter_map(|(s, _)| assignment_to(f, s, l))
        .collect()
}

/// Fills `f.complex_outputs` (see the module docs), adding a flag and its assignments for each
/// complex variable whose freshness at the end depends on the path taken.
pub(super) fn track_kept(f: &mut Function) {
    let outputs: Vec<LocalId> = f
        .outputs
        .iter()
        .copied()
        .filter(|&o| f.locals[o].ty.complex)
        .collect();
    if outputs.is_empty() {
        return;
    }
    let mut tracker = Tracker { flags: Vec::new() };
    let kept: Vec<(LocalId, Kept)> = outputs
        .into_iter()
        .map(|o| (o, tracker.kept(f, o)))
        .collect();
    if !tracker.flags.is_empty() {
        let mut body = tracker.block(f, &f.body.clone());
        let starts: Vec<StmtId> = tracker
            .flags
            .clone()
            .into_iter()
            .map(|(l, flag)| {
                let input = f.is_param(l);
                set(f, flag, |f, span| constant(f, input, span))
            })
            .collect();
        body.0.splice(0..0, starts);
        f.body = body;
    }
    f.complex_outputs = kept;
}

/// The flags of the complex variables whose freshness depends on the path taken, as
/// `(variable, flag)` in the order they were made.
struct Tracker {
    flags: Vec<(LocalId, LocalId)>,
}

impl Tracker {
    /// What becomes of the complex output `o` on return; a flag for it (and for the variables
    /// whose values it copies) when that depends on the path.
    fn kept(&mut self, f: &mut Function, o: LocalId) -> Kept {
        let freshness = local_freshness(f, o, &mut Vec::new());
        match (freshness.always, freshness.sometimes) {
            (true, _) => Kept::Always,
            (false, false) => Kept::Never,
            (false, true) => Kept::Flag(self.flag(f, o)),
        }
    }

    /// The flag of the complex variable `l`, made on first use, with the flags of the mixed
    /// variables it is assigned from.
    fn flag(&mut self, f: &mut Function, l: LocalId) -> LocalId {
        if let Some(flag) = self.flag_of(l) {
            return flag;
        }
        let span = f.locals[l].span;
        let flag = f.locals.alloc(Local {
            name: format!("_kept{}", self.flags.len() + 1),
            ty: Type::scalar(Class::Logical),
            span,
            integral: false,
            loop_integral: false,
            shown: crate::ir::Shown::Source(span),
        });
        self.flags.push((l, flag));
        for a in assignments(f, l) {
            let Assignment::Value(v) = a else { continue };
            if let ExprKind::Local(source) = f.exprs[v].kind {
                let freshness = local_freshness(f, source, &mut Vec::new());
                if freshness.sometimes && !freshness.always {
                    self.flag(f, source);
                }
            }
        }
        flag
    }

    /// `block` with the flag of each tracked variable set after each of its assignments.
    fn block(&self, f: &mut Function, block: &Block) -> Block {
        let mut out = Vec::with_capacity(block.0.len());
        for &s in &block.0 {
            self.nested(f, s);
            out.push(s);
            let assigned = self
                .flags
                .iter()
                .find_map(|&(l, flag)| assignment_to(f, s, l).map(|a| (flag, a)));
            if let Some((flag, assignment)) = assigned {
                let source = match assignment {
                    Assignment::Value(value) => self.value_flag(f, value),
                    Assignment::Fresh => Err(true),
                    Assignment::Computed => Err(false),
                };
                out.push(set(f, flag, |f, span| match source {
                    Ok(flag) => expr(f, ExprKind::Local(flag), span),
                    Err(fresh) => constant(f, fresh, span),
                }));
            }
        }
        Block(out)
    }

    fn nested(&self, f: &mut Function, s: StmtId) {
        super::rewrite::nested_blocks(f, s, true, |f, block| self.block(f, &block));
    }

    /// The flag a tracked variable takes from `value`: the flag of the tracked variable it
    /// copies, or whether it is fresh.
    fn value_flag(&self, f: &Function, value: ExprId) -> Result<LocalId, bool> {
        match f.exprs[value].kind {
            ExprKind::Local(source) => self.flag_of(source).ok_or_else(|| fresh(f, value)),
            _ => Err(fresh(f, value)),
        }
    }

    fn flag_of(&self, l: LocalId) -> Option<LocalId> {
        self.flags
            .iter()
            .find(|(v, _)| *v == l)
            .map(|(_, flag)| *flag)
    }
}

/// `flag = value(f, span)`.
fn set(
    f: &mut Function,
    flag: LocalId,
    value: impl FnOnce(&mut Function, Span) -> ExprId,
) -> StmtId {
    let span = f.locals[flag].span;
    let value = value(f, span);
    f.stmts.alloc(Stmt {
        kind: StmtKind::Assign {
            target: flag,
            value,
        },
        span,
    })
}

fn expr(f: &mut Function, kind: ExprKind, span: Span) -> ExprId {
    f.exprs.alloc(Expr {
        kind,
        ty: Type::scalar(Class::Logical),
        span,
    })
}

fn constant(f: &mut Function, value: bool, span: Span) -> ExprId {
    expr(f, ExprKind::Const(f64::from(u8::from(value))), span)
}
