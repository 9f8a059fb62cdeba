//! `squeeze(X)` of a 3-D value whose extents are known only at run time (`squeeze(max(A, [],
//! 1))`, `squeeze(sum(A, 2))`, `squeeze(A(i, :, :))`), with MATLAB's result extents decided
//! at run time: a value of one page is 2-D and stays as it is; otherwise its extents of 1 go,
//! and one extent left is a column (`1x1xN` is `Nx1`, `1xMxN` is `MxN`, `Mx1xN` is `MxN`).
//!
//! Invariants: squeezing never moves an element (column-major order is kept), so the value is
//! copied in one linear loop into a temporary of the extents computed first; the result is 2-D
//! when the value's rows or columns are known to be 1 (its pages then always go), else 3-D
//! (of one page, so 2-D to every size query, when an extent was dropped).

use super::super::array::{ArrayVal, Val};
use super::super::*;

/// When every extent of `units` is 1, the assignments `moves`: `(to, Some(from))` is `to =
/// from`, `(to, None)` is `to = 1`.
struct Drop {
    units: Vec<LocalId>,
    moves: Vec<(LocalId, Option<LocalId>)>,
}

impl Lowerer<'_> {
    /// `squeeze(val)` for a 3-D `val` with extents known only at run time.
    pub(in crate::lower) fn squeeze_at_run_time(
        &mut self,
        val: ArrayVal,
        span: Span,
    ) -> Option<Val> {
        let (rows, cols, pages) = self.extents_of(&val);
        let [r, c, p] = [rows, cols, pages?].map(|e| self.held_scalar("n", e, span));
        self.drop_unit_extents([r, c, p], span);
        let two_d = val.shape.rows == Dim::Known(1) || val.shape.cols == Dim::Known(1);
        let (shape, pages) = if two_d {
            (Shape::new(Dim::Var, Dim::Var), None)
        } else {
            let shape = Shape::new3(Dim::Var, Dim::Var, Dim::Var);
            (shape, Some(self.read_local(p, span)))
        };
        let target = self.temp("t", Type::array(val.class, shape), span);
        let (rows, cols) = (self.read_local(r, span), self.read_local(c, span));
        self.alloc_zeros(target, rows, cols, pages, span);
        let place = self.whole_place(target, span);
        self.write_loop(&place, &Val::Array(val), span);
        Some(Val::Array(self.whole(target, span)))
    }

    /// When the pages `p` are not 1, the rows `r` and columns `c` that are 1 go: `1x1xN` is
    /// `Nx1`, `1xMxN` is `MxN`, `Mx1xN` is `MxN` (and the pages become 1).
    fn drop_unit_extents(&mut self, [r, c, p]: [LocalId; 3], span: Span) {
        let several_pages = self.local_compared(p, 1.0, BinOp::Ne, span);
        self.emit_if(several_pages, span, |me| {
            let cases = [
                Drop {
                    units: vec![r, c],
                    moves: vec![(r, Some(p)), (p, None)],
                },
                Drop {
                    units: vec![r],
                    moves: vec![(r, Some(c)), (c, Some(p)), (p, None)],
                },
                Drop {
                    units: vec![c],
                    moves: vec![(c, Some(p)), (p, None)],
                },
            ];
            me.extent_cases(&cases, span);
        });
    }

    /// `if` the first case's extents are all 1, its moves, `elseif` the next's, ...
    fn extent_cases(&mut self, cases: &[Drop], span: Span) {
        let Some((Drop { units, moves }, rest)) = cases.split_first() else {
            return;
        };
        let mut cond: Option<ExprId> = None;
        for &unit in units {
            let is_one = self.local_compared(unit, 1.0, BinOp::Eq, span);
            cond = Some(match cond {
                None => is_one,
                Some(c) => self.binary_expr(BinOp::AndAnd, c, is_one, Class::Logical, span),
            });
        }
        self.open_block();
        for &(to, from) in moves {
            let value = match from {
                Some(from) => self.read_local(from, span),
                None => self.constant_expr(1.0, Class::Double, span),
            };
            self.push(StmtKind::Assign { target: to, value }, span);
        }
        let then_body = self.close_block();
        self.open_block();
        self.extent_cases(rest, span);
        let else_body = self.close_block();
        self.push(
            StmtKind::If {
                cond: cond.expect("each case tests an extent"),
                then_body,
                else_body,
            },
            span,
        );
    }
}
