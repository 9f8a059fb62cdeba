//! `mean` of an empty value, where MATLAB and GNU Octave 7.3 disagree (probed with
//! `octave-cli`; fixture `meanempty`):
//!
//! | value | `mean(x)` MATLAB | Octave 7.3 | `mean(x, 1)` MATLAB | Octave 7.3 |
//! |---|---|---|---|---|
//! | 0-by-0 | NaN | NaN | 1-by-0 | NaN |
//! | 1-by-0 | NaN | 1-by-0 | 1-by-0 | 1-by-0 |
//! | 0-by-1 | NaN | NaN | NaN | NaN |
//! | 0-by-N, N > 1 | NaN(1, N) | 0-by-1 | NaN(1, N) | NaN(1, N) |
//! | M-by-0, M > 1 | 1-by-0 | 1-by-0 | 1-by-0 | 1-by-0 |
//!
//! `mean(x, 2)` agrees everywhere. For 3-D values without a dimension Octave's results follow
//! no rule m2cu reproduces (`mean(zeros(0, 0, 2))` is 0-by-0, MATLAB's 1-by-0-by-2), so every
//! empty one stops. m2cu computes MATLAB's values and stops with [`RuntimeError::MeanOfEmpty`]
//! where the two differ; a selection (`mean(x(mask))`) has its own check (`select`).

use super::array::ArrayVal;
use super::*;
use crate::ir::RuntimeError;

/// Where `mean` takes its dimension from.
pub(super) enum MeanDim {
    /// `mean(x)`: the first dimension that is not 1.
    Default,
    /// `mean(x, d)` with `d` fixed when m2cu translates.
    Fixed(u8),
    /// `mean(x, d)` with `d` in this local, checked to be a positive integer.
    AtRunTime(LocalId),
}

impl Lowerer<'_> {
    /// Stops with [`RuntimeError::MeanOfEmpty`] when `mean` of `a` along `dim` is one of the
    /// cases of the module docs where MATLAB and Octave differ.
    pub(super) fn mean_of_empty_check(&mut self, a: &ArrayVal, dim: MeanDim, span: Span) {
        let (rows, cols, pages) = self.extents_of(a);
        let differs = match (dim, pages) {
            (MeanDim::Default, Some(pages)) => {
                let n = self.product(&[rows, cols, pages], span);
                self.extent_cmp(n, BinOp::Eq, 0.0, span)
            }
            (MeanDim::Default, None) => {
                let row = self.extent_cmp(rows, BinOp::Eq, 1.0, span);
                let no_cols = self.extent_cmp(cols, BinOp::Eq, 0.0, span);
                let empty_row = self.binary_expr(BinOp::And, row, no_cols, Class::Logical, span);
                let no_rows = self.extent_cmp(rows, BinOp::Eq, 0.0, span);
                let wide = self.extent_cmp(cols, BinOp::Gt, 1.0, span);
                let flat = self.binary_expr(BinOp::And, no_rows, wide, Class::Logical, span);
                self.binary_expr(BinOp::Or, empty_row, flat, Class::Logical, span)
            }
            (MeanDim::Fixed(1), None) => self.zero_by_zero(rows, cols, span),
            (MeanDim::AtRunTime(d), None) => {
                let d = self.new_expr(ExprKind::Local(d), Type::scalar(Class::Double), span);
                let first = self.extent_cmp(d, BinOp::Eq, 1.0, span);
                let empty = self.zero_by_zero(rows, cols, span);
                self.binary_expr(BinOp::And, first, empty, Class::Logical, span)
            }
            _ => return,
        };
        self.stop_if(differs, RuntimeError::MeanOfEmpty, span);
    }

    /// `rows == 0 && cols == 0`.
    fn zero_by_zero(&mut self, rows: ExprId, cols: ExprId, span: Span) -> ExprId {
        let no_rows = self.extent_cmp(rows, BinOp::Eq, 0.0, span);
        let no_cols = self.extent_cmp(cols, BinOp::Eq, 0.0, span);
        self.binary_expr(BinOp::And, no_rows, no_cols, Class::Logical, span)
    }
}
