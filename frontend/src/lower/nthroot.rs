//! `nthroot(x, n)`: the real `n`-th root as Octave's `nthroot.m` computes it, elementwise over
//! `x` with a scalar `n` (Octave requires one), as [`Builtin::NthRoot`].
//!
//! Invariants: the result class is double or single (integers are E0106, as in MATLAB); a
//! complex `x` is E0106 (Octave: "X must not contain complex values"); the third operand says
//! whether `x` has other than one element, which selects Octave's array powers and the array
//! form of its last correction (see [`Builtin::NthRoot`]).

use super::array::Val;
use super::Lowerer;
use crate::ast;
use crate::diag::Span;
use crate::ir::{Builtin, ExprKind};
use crate::types::{Class, Type};

impl Lowerer<'_> {
    pub(super) fn nthroot(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [x, n] = args else {
            self.error(
                "E0105",
                span,
                "wrong number of arguments to `nthroot`".into(),
                "write `nthroot(x, n)`: the real n-th root of each element of x".into(),
            );
            return None;
        };
        let x = self.value(x)?;
        let n = self.scalar_expr(n, "the root `n` of `nthroot(x, n)`")?;
        if super::expr::val_is_complex(self, &x) || self.exprs[n].ty.complex {
            self.error(
                "E0106",
                span,
                "`nthroot` of a complex value: Octave and MATLAB take real arguments only".into(),
                "use `x .^ (1/n)` for a complex root".into(),
            );
            return None;
        }
        let classes = [super::expr::val_class(self, &x), self.exprs[n].ty.class];
        let class = self.builtin_class(Builtin::NthRoot, &classes, span)?;
        match x {
            Val::Scalar(x) => {
                let alone = self.constant_expr(0.0, Class::Logical, span);
                Some(Val::Scalar(self.new_expr(
                    ExprKind::Call(Builtin::NthRoot, vec![x, n, alone]),
                    Type::scalar(class),
                    span,
                )))
            }
            Val::Array(a) => {
                let array = self.has_other_than_one_element(&a, span);
                let vals = vec![Val::Array(a), Val::Scalar(n), Val::Scalar(array)];
                self.elementwise_call(Builtin::NthRoot, vals, class, span)
            }
        }
    }
}
