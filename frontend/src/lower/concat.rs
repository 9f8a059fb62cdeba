//! Matrix literals and concatenation: `[a, b; c, d]` of scalars and of arrays, and the same
//! as `horzcat`, `vertcat` and `cat(1 or 2, ...)`. Each row is
//! joined side by side, then the rows on top of each other; the result is a temporary.
//!
//! Class rule (MATLAB's): char with char or double is char, an integer class wins, then single,
//! then double; all-logical stays logical. Extents that must agree are checked statically where known, else at run time.

use super::array::{ArrayVal, Node, Place, Sub, Val};
use super::expr::val_class;
use super::*;

impl Lowerer<'_> {
    pub(super) fn matrix_literal(&mut self, rows: &[Vec<ast::Expr>], span: Span) -> Option<Val> {
        let rows: Vec<&Vec<ast::Expr>> = rows.iter().filter(|r| !r.is_empty()).collect();
        if rows.is_empty() {
            self.unsupported(
                span,
                "the empty matrix `[]`",
                "create an empty array with zeros(1, 0), or preallocate the final size",
            );
            return None;
        }
        let vals: Vec<Vec<Val>> = rows
            .iter()
            .map(|row| row.iter().map(|e| self.value(e)).collect::<Vec<_>>())
            .collect::<Vec<_>>()
            .into_iter()
            .map(|row| row.into_iter().collect::<Option<Vec<_>>>())
            .collect::<Option<_>>()?;
        if vals.len() == 1 && vals[0].len() == 1 {
            return vals.into_iter().flatten().next();
        }
        for v in vals.iter().flatten() {
            if let Val::Array(a) = v {
                self.reject_3d(a, "concatenation")?;
            }
        }
        let class = self.concat_class(&vals, span)?;
        let all_scalar = vals.iter().flatten().all(|v| matches!(v, Val::Scalar(_)));
        if all_scalar {
            return self.scalar_grid(vals, class, span);
        }
        let mut row_vals = Vec::with_capacity(vals.len());
        for row in vals {
            let joined = if row.len() == 1 {
                row.into_iter().next()
            } else {
                self.join(row, class, true, span)
            };
            row_vals.push(joined?);
        }
        if row_vals.len() == 1 {
            return row_vals.pop();
        }
        self.join(row_vals, class, false, span)
    }

    /// `horzcat(a, b, ...)`, `vertcat(a, b, ...)` and `cat(dim, a, b, ...)` for a literal
    /// `dim` of 1 or 2: the brackets `[a, b, ...]` and `[a; b; ...]`.
    pub(super) fn concatenation_call(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        let (side_by_side, parts) = match (name, args) {
            ("horzcat", _) => (true, args),
            ("vertcat", _) => (false, args),
            (_, [dim, parts @ ..]) => match dim.kind {
                AstExpr::Number { value, .. } if value == 1.0 || value == 2.0 => {
                    (value == 2.0, parts)
                }
                AstExpr::Number { value, .. } if value == 3.0 && parts.len() >= 2 => {
                    return self.value(&pages_joined(parts, span));
                }
                AstExpr::Number { value, .. } if value >= 3.0 && value.fract() == 0.0 => {
                    self.error(
                        "E0167",
                        dim.span,
                        "`cat` along a fourth or later dimension, or of one array, is not supported by m2cu yet".into(),
                        "build the pages by assignment: `A = zeros(m, n, 2); A(:, :, 1) = a; A(:, :, 2) = b`".into(),
                    );
                    return None;
                }
                _ => {
                    self.error(
                        "E0105",
                        dim.span,
                        "the dimension of `cat` must be a number written in the call".into(),
                        "write `cat(1, a, b)` (`[a; b]`) or `cat(2, a, b)` (`[a, b]`)".into(),
                    );
                    return None;
                }
            },
            _ => (false, args),
        };
        let rows: Vec<Vec<ast::Expr>> = match side_by_side {
            true => vec![parts.to_vec()],
            false => parts.iter().map(|p| vec![p.clone()]).collect(),
        };
        self.matrix_literal(&rows, span)
    }

    fn concat_class(&mut self, vals: &[Vec<Val>], span: Span) -> Option<Class> {
        let classes: Vec<Class> = vals.iter().flatten().map(|v| val_class(self, v)).collect();
        if classes.contains(&Class::Char) {
            // MATLAB: char with double is char (the numbers are character codes).
            if let Some(other) = classes
                .iter()
                .find(|c| !matches!(c, Class::Char | Class::Double))
            {
                self.unsupported(
                    span,
                    &format!("concatenating char with {other} values"),
                    "convert one side first: `char(x)` for text, `double(s)` for numbers",
                );
                return None;
            }
            return Some(Class::Char);
        }
        if let Some(int) = classes.iter().find(|c| c.is_integer()) {
            return Some(*int);
        }
        Some(if classes.contains(&Class::Single) {
            Class::Single
        } else if classes.iter().all(|c| *c == Class::Logical) {
            Class::Logical
        } else {
            Class::Double
        })
    }

    pub(super) fn scalar_grid(
        &mut self,
        vals: Vec<Vec<Val>>,
        class: Class,
        span: Span,
    ) -> Option<Val> {
        let cols = vals[0].len();
        if vals.iter().any(|row| row.len() != cols) {
            self.error(
                "E0111",
                span,
                "dimensions of arrays being concatenated are not consistent".into(),
                "give every row of the matrix the same number of elements".into(),
            );
            return None;
        }
        let shape = Shape::new(Dim::Known(vals.len() as u64), Dim::Known(cols as u64));
        let ty = self.concat_type(vals.iter().flatten(), class, shape);
        let temp = self.temp("t", ty, span);
        let rows_e = self.constant_expr(vals.len() as f64, Class::Double, span);
        let cols_e = self.constant_expr(cols as f64, Class::Double, span);
        self.alloc_zeros(temp, rows_e, cols_e, None, span);
        for (i, row) in vals.into_iter().enumerate() {
            for (j, v) in row.into_iter().enumerate() {
                let Val::Scalar(e) = v else { continue };
                let value = self.stored_value(temp, e);
                let r = self.constant_expr(i as f64 + 1.0, Class::Double, span);
                let c = self.constant_expr(j as f64 + 1.0, Class::Double, span);
                self.push(
                    StmtKind::Store {
                        array: temp,
                        indices: vec![r, c],
                        value,
                    },
                    span,
                );
            }
        }
        Some(Val::Array(self.whole(temp, span)))
    }

    /// Joins scalars and arrays side by side (`horizontal`) or on top of each other; every
    /// item must have the same extent across the joining direction. Items known to be empty
    /// along the joining direction (`1:0` in `[1:0 2]`) add nothing and are dropped, so a join
    /// left with one item is that item (a scalar stays a scalar).
    pub(super) fn join(
        &mut self,
        items: Vec<Val>,
        class: Class,
        horizontal: bool,
        span: Span,
    ) -> Option<Val> {
        let (across, across_dim) = self.common_extent(&items, horizontal, span)?;
        let count = items.len();
        let kept: Vec<Val> = items
            .iter()
            .filter(|item| !matches!(item, Val::Array(a) if Self::along(a, horizontal) == Dim::Known(0)))
            .cloned()
            .collect();
        // One item left that may itself be skipped at run time: the empties dropped here
        // still give the result its extent (`[v(1:0) acc]` with `acc = []` is 1-by-0).
        let alone_maybe_skipped =
            matches!(kept.as_slice(), [Val::Array(a)] if may_be_skipped(a)) && count > 1;
        let mut items = if alone_maybe_skipped { items } else { kept };
        if items.len() == 1 {
            let item = items.pop()?;
            return Some(match item {
                Val::Scalar(e) => Val::Scalar(self.convert_to(e, class)),
                Val::Array(a) if a.class == class => Val::Array(a),
                Val::Array(a) => Val::Array(a.wrap(class, span, Node::Convert)),
            });
        }
        let (total, known) = self.total_extent(&items, horizontal, span);
        let (rows, cols, shape) = if horizontal {
            (across, total, Shape::new(across_dim, known))
        } else {
            (total, across, Shape::new(known, across_dim))
        };
        let ty = self.concat_type(items.iter(), class, shape);
        let temp = self.temp("t", ty, span);
        self.alloc_zeros(temp, rows, cols, None, span);
        let mut offset = self.constant_expr(0.0, Class::Double, span);
        for item in items {
            let across_varies =
                matches!(&item, Val::Array(a) if Self::along(a, !horizontal) == Dim::Var);
            let skipped = match across_varies {
                true => self.skipped_empty(&item, span),
                false => None,
            };
            offset = match skipped {
                Some(none) => {
                    let some = self.shape_not(none, span);
                    let (n, _) = self.item_extent(&item, horizontal, span);
                    let next = {
                        let o = self.copy_expr(offset);
                        self.binary_expr(BinOp::Add, o, n, Class::Double, span)
                    };
                    self.emit_if(some, span, |me| {
                        me.place_item(temp, item, offset, horizontal, span);
                    });
                    next
                }
                None => self.place_item(temp, item, offset, horizontal, span),
            };
        }
        Some(Val::Array(self.whole(temp, span)))
    }

    /// The extent that all items share across the joining direction (rows when joining
    /// horizontally), checked statically where known and at run time otherwise. At run time,
    /// as Octave does, an item that is 0-by-0, 1-by-0 or 0-by-1 is skipped: it need not share
    /// the extent (`acc = []; [acc k]` is `k`), which is the largest among the other items'.
    fn common_extent(
        &mut self,
        items: &[Val],
        horizontal: bool,
        span: Span,
    ) -> Option<(ExprId, Dim)> {
        let extents: Vec<(ExprId, Dim)> = items
            .iter()
            .map(|item| self.item_extent(item, !horizontal, span))
            .collect();
        let counted = |item: &Val| !matches!(item, Val::Array(a) if Self::along(a, horizontal) == Dim::Known(0));
        let known: Vec<u64> = items
            .iter()
            .zip(&extents)
            .filter(|(item, _)| counted(item))
            .filter_map(|(_, &(_, d))| match d {
                Dim::Known(n) => Some(n),
                Dim::Var => None,
            })
            .collect();
        if let Some(&b) = known.iter().find(|&&b| b != known[0]) {
            let a = known[0];
            self.error(
                "E0111",
                span,
                "dimensions of arrays being concatenated are not consistent".into(),
                format!(
                    "every item of a {} needs the same number of {} ({a} and {b} here)",
                    if horizontal { "row" } else { "column" },
                    if horizontal { "rows" } else { "columns" }
                ),
            );
            return None;
        }
        if extents.iter().all(|&(_, d)| matches!(d, Dim::Known(_))) {
            let first = items.iter().position(counted).unwrap_or(0);
            return Some(extents[first]);
        }
        // Each item's extent, 0 where the item is skipped; `skips[i]` says whether it is.
        let mut skips: Vec<Option<ExprId>> = Vec::with_capacity(items.len());
        let mut counted_extents = Vec::with_capacity(items.len());
        for (item, &(e, _)) in items.iter().zip(&extents) {
            let e = self.copy_expr(e);
            let skip = self.skipped_empty(item, span);
            counted_extents.push(match skip {
                Some(none) => {
                    let some = self.shape_not(none, span);
                    let some = self.convert_to(some, Class::Double);
                    self.binary_expr(BinOp::Mul, e, some, Class::Double, span)
                }
                None => e,
            });
            skips.push(skip);
        }
        let mut across = self.largest(counted_extents, span);
        if let Some(all) = self.all_of(&skips, span) {
            // Every item skipped: the result keeps the largest extent (`[a b]` of two 1-by-0
            // rows is 1-by-0).
            let all_extents = extents.iter().map(|&(e, _)| self.copy_expr(e)).collect();
            let largest = self.largest(all_extents, span);
            let all = self.convert_to(all, Class::Double);
            let added = self.binary_expr(BinOp::Mul, all, largest, Class::Double, span);
            across = self.binary_expr(BinOp::Add, across, added, Class::Double, span);
        }
        for (skip, &(e, _)) in skips.iter().zip(&extents) {
            let (e, a) = (self.copy_expr(e), self.copy_expr(across));
            let mut cond = self.binary_expr(BinOp::Eq, e, a, Class::Logical, span);
            if let &Some(none) = skip {
                let none = self.copy_expr(none);
                cond = self.binary_expr(BinOp::Or, cond, none, Class::Logical, span);
            }
            self.size_check(cond, span);
        }
        let dim = known.first().map_or(Dim::Var, |&n| Dim::Known(n));
        Some((across, dim))
    }

    /// `max` of `extents` (at least one), folded left.
    fn largest(&mut self, extents: Vec<ExprId>, span: Span) -> ExprId {
        let mut extents = extents.into_iter();
        let first = extents.next().expect("a concatenation has items");
        extents.fold(first, |a, e| {
            self.new_expr(
                ExprKind::Call(Builtin::Max, vec![a, e]),
                Type::scalar(Class::Double),
                span,
            )
        })
    }

    /// Copies of `conditions` joined with `&`; `None` when one of them is `None` (that item is
    /// never skipped).
    fn all_of(&mut self, conditions: &[Option<ExprId>], span: Span) -> Option<ExprId> {
        let mut all: Option<ExprId> = None;
        for condition in conditions {
            let c = self.copy_expr((*condition)?);
            all = Some(match all {
                None => c,
                Some(a) => self.binary_expr(BinOp::And, a, c, Class::Logical, span),
            });
        }
        all
    }

    /// Whether `item` is an empty that Octave skips in a concatenation (0-by-0, 1-by-0 or
    /// 0-by-1: `rows + cols <= 1`), for an array whose extents may make it one; `None` for
    /// others.
    fn skipped_empty(&mut self, item: &Val, span: Span) -> Option<ExprId> {
        let Val::Array(a) = item else {
            return None;
        };
        if !may_be_skipped(a) {
            return None;
        }
        let (r, c) = (self.copy_expr(a.rows), self.copy_expr(a.cols));
        let sum = self.binary_expr(BinOp::Add, r, c, Class::Double, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        Some(self.binary_expr(BinOp::Le, sum, one, Class::Logical, span))
    }

    fn total_extent(&mut self, items: &[Val], horizontal: bool, span: Span) -> (ExprId, Dim) {
        let mut total = self.constant_expr(0.0, Class::Double, span);
        let mut known = Some(0u64);
        for item in items {
            let (n, d) = self.item_extent(item, horizontal, span);
            total = self.binary_expr(BinOp::Add, total, n, Class::Double, span);
            known = match (known, d) {
                (Some(k), Dim::Known(d)) => Some(k + d),
                _ => None,
            };
        }
        (total, known.map_or(Dim::Var, Dim::Known))
    }

    /// An array's extent along the joining direction: columns when joining horizontally.
    fn along(a: &ArrayVal, horizontal: bool) -> Dim {
        if horizontal {
            a.shape.cols
        } else {
            a.shape.rows
        }
    }

    /// The number of columns (`columns`) or rows of an item.
    fn item_extent(&mut self, item: &Val, columns: bool, span: Span) -> (ExprId, Dim) {
        match item {
            Val::Scalar(_) => (self.constant_expr(1.0, Class::Double, span), Dim::Known(1)),
            Val::Array(a) if columns => (self.copy_expr(a.cols), a.shape.cols),
            Val::Array(a) => (self.copy_expr(a.rows), a.shape.rows),
        }
    }

    /// Writes one item after `offset` columns (or rows) of `temp`; returns the next offset.
    fn place_item(
        &mut self,
        temp: LocalId,
        item: Val,
        offset: ExprId,
        horizontal: bool,
        span: Span,
    ) -> ExprId {
        let (n, _) = self.item_extent(&item, horizontal, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let start = self.copy_expr(offset);
        let first = self.binary_expr(BinOp::Add, start, one, Class::Double, span);
        match item {
            Val::Scalar(e) => {
                let value = self.stored_value(temp, e);
                let one = self.constant_expr(1.0, Class::Double, span);
                let indices = if horizontal {
                    vec![one, first]
                } else {
                    vec![first, one]
                };
                self.push(
                    StmtKind::Store {
                        array: temp,
                        indices,
                        value,
                    },
                    span,
                );
            }
            Val::Array(a) => {
                let (base, count) = (self.copy_expr(offset), self.copy_expr(n));
                let last = self.binary_expr(BinOp::Add, base, count, Class::Double, span);
                let step = self.constant_expr(1.0, Class::Double, span);
                let along = Sub::Range {
                    start: first,
                    step,
                    stop: last,
                };
                let subs = if horizontal {
                    vec![Sub::All, along]
                } else {
                    vec![along, Sub::All]
                };
                let place = Place {
                    array: temp,
                    subs: Some(subs),
                    shape: a.shape,
                    rows: a.rows,
                    cols: a.cols,
                };
                self.write_loop(&place, &Val::Array(a), span);
            }
        }
        self.binary_expr(BinOp::Add, offset, n, Class::Double, span)
    }

    pub(super) fn numel_expr(&mut self, a: &ArrayVal, span: Span) -> ExprId {
        let (r, c) = (self.copy_expr(a.rows), self.copy_expr(a.cols));
        self.binary_expr(BinOp::Mul, r, c, Class::Double, span)
    }
}

/// Whether `a`'s extents may make it an empty that a concatenation skips at run time: each
/// extent unknown or at most 1, not both known.
fn may_be_skipped(a: &ArrayVal) -> bool {
    let at_most_one = |d: Dim| matches!(d, Dim::Var | Dim::Known(0 | 1));
    let known = |d: Dim| matches!(d, Dim::Known(_));
    at_most_one(a.shape.rows)
        && at_most_one(a.shape.cols)
        && !(known(a.shape.rows) && known(a.shape.cols))
}

/// `cat(3, a, b, c)`: the pages of each after the last (`m2cu_cat_pages.m`, two at a time).
fn pages_joined(parts: &[ast::Expr], span: Span) -> ast::Expr {
    let join = |a: ast::Expr, b: &ast::Expr| {
        super::ast_build::call("m2cu_cat_pages", vec![a, b.clone()], span)
    };
    parts[1..].iter().fold(parts[0].clone(), join)
}
