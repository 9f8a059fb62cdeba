//! GPU Coder's atomic functions: `[A, oldA] = gpucoder.atomicAdd(A, B)` and its kin, as GPU
//! Coder users write them in loops (and `gpucoder.sort`, which is MATLAB's `sort`) (`[s, ~] = gpucoder.atomicAdd(s, x(i))`,
//! `h(b) = gpucoder.atomicAdd(h(b), 1)`).
//!
//! In MATLAB each is its operation on the values, `A = A + B` for `atomicAdd`; atomicity is
//! GPU Coder's business. m2cu lowers the call to that operation written in MATLAB (the
//! operator, or the function `min`, `max`, `bitand`, `bitor`, `bitxor`), so classes, saturation
//! and implicit expansion are MATLAB's, and the loop is then what m2cu finds it to be: with the
//! old value unused, `s = s + x(i)` is a sum reduction and `h(b) = h(b) + 1` a histogram, whose
//! kernels combine with atomics or shuffles by themselves. When the second output is used,
//! `A`'s value before the call is held in a hidden variable first, and the new value is
//! computed from it, so each input is evaluated once.
//!
//! Invariants: a call takes exactly two inputs and gives at most two outputs; the function
//! named for the operation is MATLAB's (a variable or a function of the program with that name
//! is E0106, since it would change what the call computes); `atomicInc`, `atomicDec` and
//! `atomicCAS` (wrap-around and compare-and-swap, which have no MATLAB operator) are E0167.

use super::array::Val;
use super::Lowerer;
use crate::ast::{self, BinaryOp, ExprKind as AstExpr};
use crate::diag::Span;

/// What an atomic function computes from `A` and `B`.
#[derive(Clone, Copy, Debug)]
enum Operation {
    /// `A op B`.
    Operator(BinaryOp),
    /// `f(A, B)` with MATLAB's function `f`.
    Function(&'static str),
    /// `B` (an exchange).
    Second,
}

/// GPU Coder's atomic functions m2cu translates, with their operations.
const ATOMICS: [(&str, Operation); 8] = [
    ("gpucoder.atomicAdd", Operation::Operator(BinaryOp::Add)),
    ("gpucoder.atomicSub", Operation::Operator(BinaryOp::Sub)),
    ("gpucoder.atomicMin", Operation::Function("min")),
    ("gpucoder.atomicMax", Operation::Function("max")),
    ("gpucoder.atomicAnd", Operation::Function("bitand")),
    ("gpucoder.atomicOr", Operation::Function("bitor")),
    ("gpucoder.atomicXor", Operation::Function("bitxor")),
    ("gpucoder.atomicExch", Operation::Second),
];

/// GPU Coder's atomic functions that m2cu does not translate.
const UNTRANSLATED: [&str; 3] = [
    "gpucoder.atomicInc",
    "gpucoder.atomicDec",
    "gpucoder.atomicCAS",
];

/// The names of the atomic functions m2cu translates.
pub(super) fn names() -> impl Iterator<Item = &'static str> {
    ATOMICS.iter().map(|(name, _)| *name)
}

/// Whether `name` is one of GPU Coder's atomic functions (translated or not).
pub(super) fn is_atomic(name: &str) -> bool {
    names().any(|n| n == name) || UNTRANSLATED.contains(&name)
}

/// GPU Coder's sort, which is MATLAB's `sort`: `[B, I] = gpucoder.sort(A, dim, direction)`.
pub(super) const GPUCODER_SORT: &str = "gpucoder.sort";

impl Lowerer<'_> {
    /// The callee that `gpucoder.sort` stands for: m2cu's own `sort` (a `sort` of the program
    /// would change what the call computes: E0106).
    pub(super) fn gpucoder_sort(&mut self, callee: &ast::Ident) -> Option<ast::Ident> {
        if !self.runs_bundled("sort") {
            self.error(
                "E0106",
                callee.span,
                "`gpucoder.sort` is MATLAB's `sort`, which `sort` of this program hides".into(),
                "rename the variable or function `sort`".into(),
            );
            return None;
        }
        Some(ast::Ident {
            name: "sort".into(),
            span: callee.span,
        })
    }

    /// The outputs of `[A, oldA] = name(A, B)`, `name` an atomic function (`is_atomic`): the new
    /// value, then (when `keep_old`) `A`'s value before the call.
    pub(super) fn gpucoder_atomic(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        keep_old: bool,
        span: Span,
    ) -> Option<Vec<Val>> {
        let Some(&(_, operation)) = ATOMICS.iter().find(|(n, _)| *n == name) else {
            self.error(
                "E0167",
                span,
                format!("`{name}` is a GPU Coder function that m2cu does not support yet"),
                "write the update it makes as MATLAB (`if A >= B, A = 0; else, A = A + 1; end` for atomicInc); m2cu finds the reductions in plain loops by itself".into(),
            );
            return None;
        };
        let [a, b] = args else {
            self.error(
                "E0105",
                span,
                format!("`{name}` takes two inputs, not {}", args.len()),
                format!("write `[A, oldA] = {name}(A, B)`"),
            );
            return None;
        };
        if let Operation::Function(f) = operation {
            if self.scope.names.contains_key(f) || self.is_function(f) {
                self.error(
                    "E0106",
                    span,
                    format!("`{name}` computes MATLAB's `{f}`, which `{f}` of this program hides"),
                    format!("rename the variable or function `{f}`"),
                );
                return None;
            }
        }
        let (a, old) = if keep_old {
            let read = self.hold_input(a, span)?;
            let old = self.value(&read)?;
            (read, Some(old))
        } else {
            (a.clone(), None)
        };
        let new = match operation {
            Operation::Operator(op) => AstExpr::Binary {
                op,
                lhs: Box::new(a),
                rhs: Box::new(b.clone()),
            },
            Operation::Function(f) => AstExpr::Call {
                callee: ast::Ident {
                    name: f.to_string(),
                    span,
                },
                args: vec![a, b.clone()],
            },
            Operation::Second => b.kind.clone(),
        };
        let new = self.value(&ast::Expr { kind: new, span })?;
        Some(std::iter::once(new).chain(old).collect())
    }

    /// A hidden variable assigned a copy of `e`'s value: the expression that reads it.
    fn hold_input(&mut self, e: &ast::Expr, span: Span) -> Option<ast::Expr> {
        let value = match self.value(e)? {
            Val::Array(v) => {
                let copy = self.materialize(&v);
                Val::Array(self.whole(copy, span))
            }
            scalar => scalar,
        };
        self.hidden_variable("old", value, e.span, span)
    }
}
