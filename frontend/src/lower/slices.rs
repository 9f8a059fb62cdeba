//! Indexing with as many subscripts as MATLAB allows, whatever the array's dimensions:
//! `A(i, j)` of a 3-D `A` (the second subscript spans columns and pages together, as in
//! MATLAB's two-subscript view), `A(i, j, 1)` of a matrix (a third subscript of a 2-D array
//! indexes an extent of 1), and page slices `A(:, :, k)`, `A(i, :, k)`, `A(:, j, k)`.
//!
//! Invariants:
//! - a slice with three subscripts selects one page: its third subscript is a scalar (checked
//!   against the third extent like any index) or `:` of a 2-D array, so the slice is a 2-D value
//!   whose rows and columns are those of its first two subscripts; a slice that keeps several
//!   pages of a 3-D array (`A(:, :, 2:end)`) is E0141;
//! - an index past the trailing extent is checked where the element is read or written, with
//!   MATLAB's message (the generated code checks a second subscript of a 3-D array against the
//!   columns of all pages, a third subscript of a 2-D array against 1).

use super::array::Sub;
use super::*;

impl Lowerer<'_> {
    /// The columns of `array` seen with two subscripts: columns times pages for a 3-D array.
    pub(super) fn trailing_cols(&mut self, array: LocalId, span: Span) -> ExprId {
        let cols = self.size_of(array, 2, span);
        if !self.locals[array].ty.shape.is_3d() {
            return cols;
        }
        let pages = self.size_of(array, 3, span);
        self.binary_expr(BinOp::Mul, cols, pages, Class::Double, span)
    }

    /// The statically known columns of `array` seen with two subscripts.
    pub(super) fn trailing_cols_dim(&self, array: LocalId) -> Dim {
        let shape = self.locals[array].ty.shape;
        match (shape.cols, shape.pages) {
            (Dim::Known(c), Dim::Known(p)) => Dim::Known(c * p),
            _ => Dim::Var,
        }
    }

    /// Checks that the third subscript of `A(r, c, p)` selects one page; reports E0141
    /// otherwise.
    pub(super) fn pages_sub_selects_one(
        &mut self,
        array: LocalId,
        pages: &Sub,
        span: Span,
    ) -> Option<()> {
        let three_d = self.locals[array].ty.shape.is_3d();
        match pages {
            Sub::Scalar(_) => Some(()),
            Sub::All if !three_d => Some(()),
            _ => {
                self.error(
                    "E0141",
                    span,
                    "a slice that keeps several pages of an array is not supported".into(),
                    "copy one page at a time into a preallocated array: `B = zeros(size(A, 1), size(A, 2), size(A, 3) - 1); for p = 2:size(A, 3), B(:, :, p - 1) = A(:, :, p); end`"
                        .into(),
                );
                None
            }
        }
    }
}
