//! Deleting pages of a 3-D array, `A(:, :, k) = []` (with `k` a scalar, a range, an index
//! vector or a mask), as MATLAB does: the kept pages close up in order, and the result has
//! `size(A, 3)` minus the deleted pages (one page left makes `A` 2-D, as `size` then reports,
//! since MATLAB drops trailing unit extents; none left is r-by-c-by-0).
//!
//! Lowering: after `mark_deleted` and `count_kept` (which give MATLAB's errors for bad page
//! numbers), the kept pages are copied in order into a new r-by-c-by-kept temporary, which is
//! then assigned to `A`. A name the file deletes pages from has run-time pages (`cut_names`,
//! `Lowerer::new_local`), so the assignment keeps its type; a loop that deletes pages creates
//! an array and so stays sequential.

use super::*;

impl Lowerer<'_> {
    /// `array(:, :, marked) = []`: the unmarked pages of `array`, `kept` of them, in order.
    pub(super) fn keep_pages(
        &mut self,
        array: LocalId,
        marks: LocalId,
        kept: LocalId,
        span: Span,
    ) -> Option<StmtId> {
        let ty = self.locals[array].ty;
        let shape = Shape::new3(ty.shape.rows, ty.shape.cols, Dim::Var);
        let left = self.temp("pages", Type::array(ty.class, shape), span);
        let rows = self.size_of(array, 1, span);
        let cols = self.size_of(array, 2, span);
        let pages = self.read_local(kept, span);
        self.alloc_zeros(left, rows, cols, Some(pages), span);
        let to = self.counter(span);
        let pages = self.size_of(array, 3, span);
        self.counted_loop("q", pages, span, |me, q| {
            let keep = me.not_marked(marks, q, span);
            me.emit_if(keep, span, |me| {
                me.increment(to, span);
                me.copy_page(array, q, left, to, span);
            });
        });
        let value = self.read_local(left, span);
        self.push(
            StmtKind::Assign {
                target: array,
                value,
            },
            span,
        )
    }

    /// `to_array(:, :, to) = from_array(:, :, from)` for page-number locals `from` and `to`, by
    /// linear index within the page.
    fn copy_page(
        &mut self,
        from_array: LocalId,
        from: LocalId,
        to_array: LocalId,
        to: LocalId,
        span: Span,
    ) {
        let rows = self.size_of(from_array, 1, span);
        let cols = self.size_of(from_array, 2, span);
        let per_page = self.binary_expr(BinOp::Mul, rows, cols, Class::Double, span);
        self.counted_loop("e", per_page, span, |me, e| {
            let source = me.page_element(from_array, from, e, span);
            let ty = Type::scalar(me.locals[from_array].ty.class);
            let value = me.new_expr(ExprKind::Index(from_array, vec![source]), ty, span);
            let target = me.page_element(from_array, to, e, span);
            me.push(
                StmtKind::Store {
                    array: to_array,
                    indices: vec![target],
                    value,
                },
                span,
            );
        });
    }

    /// The linear index `(page - 1) * rows * cols + e` of element `e` of page `page`, the page
    /// extents those of `array`.
    fn page_element(&mut self, array: LocalId, page: LocalId, e: LocalId, span: Span) -> ExprId {
        let rows = self.size_of(array, 1, span);
        let cols = self.size_of(array, 2, span);
        let per_page = self.binary_expr(BinOp::Mul, rows, cols, Class::Double, span);
        let page = self.read_local(page, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let before = self.binary_expr(BinOp::Sub, page, one, Class::Double, span);
        let start = self.binary_expr(BinOp::Mul, before, per_page, Class::Double, span);
        let e = self.read_local(e, span);
        self.binary_expr(BinOp::Add, start, e, Class::Double, span)
    }
}
