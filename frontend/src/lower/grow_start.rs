//! Starts of a grown array other than `[]`: the empty char `''`, and a scalar assigned to a
//! name the file grows (`s = '0'` in one branch, `s = ''` then `s = [c, s]` in another, as
//! `to_binary` writes it).
//!
//! Invariants:
//! - `''` starts a grown array only for a name the file grows (`Lowerer::grown`); elsewhere it
//!   stays the 0-by-0 char constant;
//! - both give a local in `Growth::grown` with both extents `Dim::Var` and the class of the
//!   value (char for `''`), allocated 0-by-0 (`''`) or 1-by-1 holding the scalar, so the later
//!   `[y, v]`, `[v, y]` and `y(end+1) = v` grow it as they grow a numeric `[]` start;
//! - a scalar start applies only to a name in `Lowerer::grown` that is undefined or already an
//!   array grown by index: an existing scalar local keeps its type (the reassignment rules of
//!   `reassign` decide about it); the scalar is evaluated before the array is reallocated, so
//!   `s = s(end)` reads the old `s`.

use super::array::Val;
use super::*;

impl Lowerer<'_> {
    /// `y = v` with `v` a real scalar and `y` a name the file grows: `y` becomes a 1-by-1 grown
    /// array holding `v`. `None` when the assignment is an ordinary one.
    pub(super) fn assign_growing_scalar(
        &mut self,
        name: &ast::Ident,
        value: &Val,
        span: Span,
    ) -> Option<Option<StmtId>> {
        let Val::Scalar(value) = *value else {
            return None;
        };
        let existing = self.scope.names.get(&name.name).copied();
        let fits = self.scope.names_used.grown.contains(&name.name)
            && !self.exprs[value].ty.complex
            && existing.is_none_or(|id| self.grows_by_index(id));
        if !fits {
            return None;
        }
        let class = self.exprs[value].ty.class;
        let held = self.temp("t", Type::scalar(class), span);
        self.push(
            StmtKind::Assign {
                target: held,
                value,
            },
            span,
        );
        let ty = Type::array(class, Shape::new(Dim::Var, Dim::Var));
        let Some(target) = self.define(name, ty) else {
            return Some(None);
        };
        self.growth_start(target);
        let one = |me: &mut Self| me.constant_expr(1.0, Class::Double, span);
        let (rows, cols) = (one(self), one(self));
        self.alloc_zeros(target, rows, cols, None, span);
        let index = one(self);
        let element = self.read_local(held, span);
        Some(self.push(
            StmtKind::Store {
                array: target,
                indices: vec![index],
                value: element,
            },
            span,
        ))
    }
}

/// Whether `e` is `''`, the empty char.
pub(super) fn is_empty_char(e: &ast::Expr) -> bool {
    matches!(&strip_parens(e).kind, AstExpr::Str(text) if text.is_empty())
}
