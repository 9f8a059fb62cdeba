//! `linspace(x1, x2)` and `linspace(x1, x2, n)`: a row of `n` (default 100) points from `x1` to
//! `x2`, each computed on its own by Octave's formula ([`Builtin::LinspaceAt`]), so the loop that
//! writes them has no dependence between iterations and becomes a kernel.
//!
//! Invariants: `x1` and `x2` are real scalars, each evaluated once; the row is single when either
//! is single and double otherwise (integer ends are E0106: Octave returns double and MATLAB the
//! integer class, so no one result is right); the count is `n` rounded toward zero, and 0 for a
//! negative or NaN `n` (an empty 1-by-0 row), as Octave's.

use super::array::Val;
use super::Lowerer;
use crate::ast;
use crate::diag::Span;
use crate::ir::{Builtin, ExprKind, StmtKind};
use crate::types::{Class, Dim, Shape, Type};

const FORMS: &str =
    "write linspace(x1, x2) for 100 points or linspace(x1, x2, n), with real scalar ends";

impl Lowerer<'_> {
    pub(super) fn linspace(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let (start, stop, count) = match args {
            [a, b] => (a, b, None),
            [a, b, n] => (a, b, Some(n)),
            _ => {
                self.error(
                    "E0105",
                    span,
                    "wrong number of arguments to `linspace`".into(),
                    FORMS.into(),
                );
                return None;
            }
        };
        let x1 = self.scalar_expr(start, "the start of `linspace`");
        let x2 = self.scalar_expr(stop, "the end of `linspace`");
        let n = match count {
            Some(n) => self.scalar_expr(n, "the count of `linspace`"),
            None => Some(self.constant_expr(100.0, Class::Double, span)),
        };
        let (x1, x2, n) = (x1?, x2?, n?);
        let class = self.linspace_class(x1, x2, span)?;
        let double = Type::scalar(Class::Double);
        let floor = self.new_expr(ExprKind::Call(Builtin::Floor, vec![n]), double, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let points = self.new_expr(
            ExprKind::Call(Builtin::Max, vec![floor, zero]),
            double,
            span,
        );
        let known = self.const_of(n).map(|n| n.floor().max(0.0) as u64);
        let x1 = self.convert_to(x1, class);
        let x2 = self.convert_to(x2, class);
        let [x1, x2, points] = [x1, x2, points].map(|e| self.held_scalar("l", e, span));
        let cols = match known {
            Some(n) if n != 1 => Dim::Known(n),
            _ => Dim::Var,
        };
        let row = self.temp(
            "t",
            Type::array(class, Shape::new(Dim::Known(1), cols)),
            span,
        );
        let one = self.constant_expr(1.0, Class::Double, span);
        let width = self.read_local(points, span);
        self.alloc_zeros(row, one, width, None, span);
        let count = self.read_local(points, span);
        self.counted_loop("k", count, span, |me, k| {
            let operands = [x1, x2, points, k].map(|l| me.read_local(l, span)).to_vec();
            let value = me.new_expr(
                ExprKind::Call(Builtin::LinspaceAt, operands),
                Type::scalar(class),
                span,
            );
            let at = me.read_local(k, span);
            me.push(
                StmtKind::Store {
                    array: row,
                    indices: vec![at],
                    value,
                },
                span,
            );
        });
        Some(Val::Array(self.whole(row, span)))
    }

    /// The class of `linspace(x1, x2, ...)`: single if either end is, else double.
    fn linspace_class(
        &mut self,
        x1: crate::ir::ExprId,
        x2: crate::ir::ExprId,
        span: Span,
    ) -> Option<Class> {
        let ends = [self.exprs[x1].ty, self.exprs[x2].ty];
        if ends.iter().any(|t| t.complex) {
            self.error(
                "E0106",
                span,
                "`linspace` of complex ends is not supported yet".into(),
                "build the real and imaginary parts separately: complex(linspace(a, b, n), linspace(c, d, n))".into(),
            );
            return None;
        }
        if let Some(t) = ends.iter().find(|t| t.class.is_integer()) {
            self.error(
                "E0106",
                span,
                format!("`linspace` of {} ends: Octave returns double and MATLAB {}", t.class, t.class),
                "convert the ends, `linspace(double(a), double(b), n)`, and the result if you need the integer class".into(),
            );
            return None;
        }
        let single = ends.iter().any(|t| t.class == Class::Single);
        Some(if single { Class::Single } else { Class::Double })
    }
}
