//! `P(end+1, :) = v` and `P(:, end+1) = v`: a matrix grown by one row (a polygon's vertex list,
//! a table of results collected in a loop) or one column (`R(:, end+1) = [x; y]`), after
//! `P = []`, `P = zeros(0, n)` or any start whose extents vary.
//!
//! Octave 7.3's rule, which this follows (said for a row; a column is the same with rows and
//! columns exchanged):
//! - a 0-by-0 `P` takes its columns from `v`: a scalar makes it 1-by-1, a vector (a row or a
//!   column) of `n` elements 1-by-n (n-by-1 for a column);
//! - otherwise a scalar fills the new row, and a vector must have as many elements as `P` has
//!   columns;
//! - anything else stops with Octave's "=: nonconformant arguments (op1 is 1xC, op2 is RxK)"
//!   ("op1 is Rx1" for a column), C being the row's length (for a 0-by-0 `P`, `v`'s columns;
//!   `v`'s rows for a column) and RxK `v`'s extents.
//!
//! Invariants: `P` is 2-D and becomes a grown local (`Growth::grown`, both extents vary); `v`
//! is evaluated (into a temporary array when it reads `P`) and its extents are held before
//! `P` is resized; the new row or column is written element by element in `v`'s linear order,
//! converted to `P`'s class (`Lowerer::stored_value`: a complex value makes a double `P` complex).

use super::array::{ArrayVal, Pos, Val};
use super::*;
use crate::ir::{PrintPiece, PrintTo};

/// The identifier of Octave's error for an assignment whose sides do not conform.
const NONCONFORMANT_ID: &str = "Octave:nonconformant-args";

/// What `P(end+1, :)` or `P(:, end+1)` appends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Appended {
    Row,
    Column,
}

impl Appended {
    /// The dimension that grows by one (1 for a row) and the one the new slice spans.
    fn dims(self) -> (u8, u8) {
        match self {
            Appended::Row => (1, 2),
            Appended::Column => (2, 1),
        }
    }

    /// `(rows, cols)` from the extent that grows and the one the slice spans.
    fn extents<T>(self, grown: T, spanned: T) -> (T, T) {
        match self {
            Appended::Row => (grown, spanned),
            Appended::Column => (spanned, grown),
        }
    }
}

impl Lowerer<'_> {
    /// `array(end+1, :) = value` or `array(:, end+1) = value` on a 2-D array whose extents
    /// vary; `None` when the statement has another form.
    pub(super) fn append_slice(
        &mut self,
        array: LocalId,
        args: &[ast::Expr],
        value: &ast::Expr,
        span: Span,
    ) -> Option<Option<StmtId>> {
        let shape = self.locals[array].ty.shape;
        let varies = shape.rows == Dim::Var && shape.cols == Dim::Var;
        let appended = next_slice(args)?;
        if !varies {
            return None;
        }
        let class = self.locals[array].ty.class;
        let Some(item) = self.value(value) else {
            return Some(None);
        };
        let item_class = match &item {
            Val::Scalar(e) => self.exprs[*e].ty.class,
            Val::Array(a) => a.class,
        };
        if !self.joined_class_kept(item_class, class, array, span) {
            return Some(None);
        }
        self.growth_start(array);
        Some(match item {
            Val::Scalar(e) => self.append_scalar_slice(array, appended, e, span),
            Val::Array(a) => self.append_vector_slice(array, appended, a, span),
        })
    }

    /// `P(end+1, :) = s`: a row of `s` (one element when `P` is 0-by-0); a column alike.
    fn append_scalar_slice(
        &mut self,
        array: LocalId,
        appended: Appended,
        value: ExprId,
        span: Span,
    ) -> Option<StmtId> {
        let value = self.stored_value(array, value);
        let held = self.held_scalar("g", value, span);
        let (grown_dim, spanned_dim) = appended.dims();
        let grown = self.held_size(array, grown_dim, span);
        let spanned = self.held_size(array, spanned_dim, span);
        let empty = self.empty_0x0(grown, spanned, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let n = self.read_local(spanned, span);
        let length = self.chosen(empty, one, n, span);
        self.resize_and_fill(array, appended, (grown, length), span, |me, _| {
            me.read_local(held, span)
        })
    }

    /// `P(end+1, :) = v` with `v` an array: checked, then written in `v`'s linear order; a
    /// column alike.
    fn append_vector_slice(
        &mut self,
        array: LocalId,
        appended: Appended,
        a: ArrayVal,
        span: Span,
    ) -> Option<StmtId> {
        self.reject_3d(&a, "a 3-D value appended as a row or column")?;
        let a = if self.reads_elsewhere(&a, array) || self.reads_whole(&a, array) {
            let temp = self.materialize(&a);
            self.whole(temp, span)
        } else {
            a
        };
        let (vr, vc) = (
            self.held_scalar("g", a.rows, span),
            self.held_scalar("g", a.cols, span),
        );
        let (grown_dim, spanned_dim) = appended.dims();
        let grown = self.held_size(array, grown_dim, span);
        let spanned = self.held_size(array, spanned_dim, span);
        let empty = self.empty_0x0(grown, spanned, span);
        let count = self.held_product(vr, vc, span);
        let n = self.read_local(spanned, span);
        let length = self.chosen(empty, count, n, span);
        let (_, v_spanned) = appended.extents(vr, vc);
        let v_spanned = self.read_local(v_spanned, span);
        let n = self.read_local(length, span);
        let shown = self.chosen(empty, v_spanned, n, span);
        self.nonconformant_check(appended, length, (vr, vc), shown, span);
        self.resize_and_fill(array, appended, (grown, length), span, |me, j| {
            let element = me.element(&a, Pos::linear(j));
            me.stored_value(array, element)
        })
    }

    /// Stops with Octave's message unless `v` (extents `vr` by `vc`) is a vector of `length`
    /// elements; `shown` is the length of the new row or column that the message names.
    fn nonconformant_check(
        &mut self,
        appended: Appended,
        length: LocalId,
        (vr, vc): (LocalId, LocalId),
        shown: LocalId,
        span: Span,
    ) {
        let (row, column) = (self.is_one(vr, span), self.is_one(vc, span));
        let vector = self.binary_expr(BinOp::OrOr, row, column, Class::Logical, span);
        let count = self.held_product(vr, vc, span);
        let n = self.read_local(length, span);
        let fits = self.binary_expr(BinOp::Eq, count, n, Class::Logical, span);
        let ok = self.binary_expr(BinOp::AndAnd, vector, fits, Class::Logical, span);
        let bad = self.new_expr(
            ExprKind::Unary(UnOp::Not, ok),
            Type::scalar(Class::Logical),
            span,
        );
        let number = |me: &mut Self, local: LocalId| PrintPiece::Value {
            modifiers: String::new(),
            conversion: 'd',
            arg: me.read_local(local, span),
        };
        let op1 = match appended {
            Appended::Row => vec![
                PrintPiece::Text("=: nonconformant arguments (op1 is 1x".into()),
                number(self, shown),
            ],
            Appended::Column => vec![
                PrintPiece::Text("=: nonconformant arguments (op1 is ".into()),
                number(self, shown),
                PrintPiece::Text("x1".into()),
            ],
        };
        let mut pieces = op1;
        pieces.extend([
            PrintPiece::Text(", op2 is ".into()),
            number(self, vr),
            PrintPiece::Text("x".into()),
            number(self, vc),
            PrintPiece::Text(")".into()),
        ]);
        let to = PrintTo::Error {
            id: Some(NONCONFORMANT_ID.into()),
        };
        self.emit_if(bad, span, |me| {
            me.push(StmtKind::Print { pieces, to }, span);
        });
    }

    /// Resizes `array` by one row (or column) of `length` elements and writes it, element `j`
    /// being `element(j)` for the loop variable `j`; `grown` holds the extent that grows.
    fn resize_and_fill(
        &mut self,
        array: LocalId,
        appended: Appended,
        (grown, length): (LocalId, LocalId),
        span: Span,
        element: impl FnOnce(&mut Self, LocalId) -> ExprId,
    ) -> Option<StmtId> {
        let g = self.read_local(grown, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let next = self.binary_expr(BinOp::Add, g, one, Class::Double, span);
        let next = self.held_scalar("g", next, span);
        let (g, n) = (self.read_local(next, span), self.read_local(length, span));
        let (rows, cols) = appended.extents(g, n);
        self.push(StmtKind::Resize { array, rows, cols }, span);
        let j = self.temp("k", Type::scalar(Class::Double), span);
        self.open_block();
        let value = element(self, j);
        let (g, k) = (self.read_local(next, span), self.read_local(j, span));
        let (row, col) = appended.extents(g, k);
        self.push(
            StmtKind::Store {
                array,
                indices: vec![row, col],
                value,
            },
            span,
        );
        let body = self.close_block();
        let n = self.read_local(length, span);
        self.emit_for(j, n, body, span)
    }

    fn held_size(&mut self, array: LocalId, dim: u8, span: Span) -> LocalId {
        let size = self.size_of(array, dim, span);
        self.held_scalar("g", size, span)
    }

    /// Whether the extents held in `rows` and `cols` are both 0.
    fn empty_0x0(&mut self, rows: LocalId, cols: LocalId, span: Span) -> LocalId {
        let (r, c) = (self.is_zero(rows, span), self.is_zero(cols, span));
        let both = self.binary_expr(BinOp::AndAnd, r, c, Class::Logical, span);
        self.held_scalar("g", both, span)
    }

    /// A temporary holding `then` when `cond` holds, else `otherwise`.
    fn chosen(&mut self, cond: LocalId, then: ExprId, otherwise: ExprId, span: Span) -> LocalId {
        let local = self.held_scalar("g", otherwise, span);
        let c = self.read_local(cond, span);
        self.emit_if(c, span, |me| {
            me.push(
                StmtKind::Assign {
                    target: local,
                    value: then,
                },
                span,
            );
        });
        local
    }

    fn held_product(&mut self, a: LocalId, b: LocalId, span: Span) -> ExprId {
        let (x, y) = (self.read_local(a, span), self.read_local(b, span));
        self.binary_expr(BinOp::Mul, x, y, Class::Double, span)
    }

    fn is_one(&mut self, local: LocalId, span: Span) -> ExprId {
        self.equals_constant(local, 1.0, span)
    }

    fn is_zero(&mut self, local: LocalId, span: Span) -> ExprId {
        self.equals_constant(local, 0.0, span)
    }

    fn equals_constant(&mut self, local: LocalId, value: f64, span: Span) -> ExprId {
        let x = self.read_local(local, span);
        let k = self.constant_expr(value, Class::Double, span);
        self.binary_expr(BinOp::Eq, x, k, Class::Logical, span)
    }
}

/// The names that one of `functions` grows by a row, `T(end+1, :) = v`.
pub(super) fn rows_appended(functions: &[ast::Function]) -> std::collections::HashSet<String> {
    super::assign::index_targets(functions, |args| next_slice(args) == Some(Appended::Row))
}

/// The names that one of `functions` grows by a column, `R(:, end+1) = v`.
pub(super) fn cols_appended(functions: &[ast::Function]) -> std::collections::HashSet<String> {
    super::assign::index_targets(functions, |args| next_slice(args) == Some(Appended::Column))
}

/// What `(end+1, :)` or `(:, end+1)` (also `1+end`) appends.
fn next_slice(args: &[ast::Expr]) -> Option<Appended> {
    let [row, col] = args else {
        return None;
    };
    let colon = |e: &ast::Expr| matches!(strip_parens(e).kind, AstExpr::Colon);
    if is_end_plus_one(row) && colon(col) {
        Some(Appended::Row)
    } else if colon(row) && is_end_plus_one(col) {
        Some(Appended::Column)
    } else {
        None
    }
}

/// `end+1` or `1+end`.
fn is_end_plus_one(e: &ast::Expr) -> bool {
    let AstExpr::Binary {
        op: BinaryOp::Add,
        lhs,
        rhs,
    } = &strip_parens(e).kind
    else {
        return false;
    };
    let is = |e: &ast::Expr, end: bool| match &strip_parens(e).kind {
        AstExpr::End => end,
        AstExpr::Number { value, .. } => !end && *value == 1.0,
        _ => false,
    };
    (is(lhs, true) && is(rhs, false)) || (is(lhs, false) && is(rhs, true))
}
