//! `zeros` and `ones`: `zeros`, `zeros(n)`, `zeros(m, n)`, `zeros(m, n, p)`, a size vector
//! (`zeros(size(A))`, `zeros([m n])`, `zeros([m n p])`), each optionally followed by a class name
//! (`'int32'`) or by `'like', P` (the class of `P`); `false`/`true` with the same sizes,
//! which are logical `zeros`/`ones` and take no class; and `rand`/`randn`, `Inf`/`inf`,
//! `NaN`/`nan` and `pi` with the same sizes, whose class is double or single.
//!
//! `reshape(A, m, n)`, `reshape(A, m, n, p)` and `reshape(A, [m n])`/`[m n p]`, one size
//! possibly `[]` (computed from the element count), are a copy of `A`'s elements in their
//! column-major order into an array of the new extents, after a run-time check that the count
//! does not change.
//!
//! A random fill draws from the function's one random stream, so it is never folded to a
//! constant: a 1-by-1 `rand` is drawn into a one-element temporary and read back as a scalar.
//!
//! Invariants: an [`Allocation`] carries the extents as scalar double expressions (`pages` only
//! for a three-extent size) and the static shape those extents have; `size(A)` gives `A`'s own
//! extents and shape (a 3-D `A` gives three, anything else two), so `zeros(size(A))` has `A`'s
//! type with the requested class. A local row of two or three elements (`sz = size(A);
//! zeros(sz)`) gives its elements as extents, known at run time. A size that is 1-by-1 by its
//! static shape is a scalar assignment, not an array. Other size-vector forms
//! (`zeros(size(A) + 1)`, `zeros([size(A) 2])`, a vector variable of another length) are
//! reported with E0105 and the forms that work.

use crate::ast::{self, ExprKind as AstExpr};
use crate::diag::Span;
use crate::ir::{
    BinOp, Builtin, ExprId, ExprKind, Fill, LocalId, RuntimeError, SizeQuery, StmtId, StmtKind,
};
use crate::types::{Class, Dim, Shape, Type};

use super::array::{ArrayVal, Val};
use super::expr::val_class;
use super::text::text_literal;
use super::Lowerer;

/// A `zeros`/`ones` call.
pub(super) struct Allocation {
    pub fill: Fill,
    pub class: Class,
    pub rows: ExprId,
    pub cols: ExprId,
    pub pages: Option<ExprId>,
    /// The static shape of the extents.
    pub shape: Shape,
}

impl Allocation {
    /// The constant every element has; `None` for a random fill.
    pub fn fill_value(&self) -> Option<f64> {
        self.fill.value()
    }
}

/// The extents of an allocation and their static shape.
struct Extents {
    rows: ExprId,
    cols: ExprId,
    pages: Option<ExprId>,
    shape: Shape,
}

/// A function that fills a new array: its fill, and its class when the name implies one.
#[derive(Clone, Copy)]
pub(super) struct Filler {
    pub fill: Fill,
    pub class: Option<Class>,
}

/// The functions that fill a new array, with their fill and the class the name implies.
pub(super) const FILLERS: [(&str, Fill, Option<Class>); 11] = [
    ("zeros", Fill::Zeros, None),
    ("ones", Fill::Ones, None),
    ("false", Fill::Zeros, Some(Class::Logical)),
    ("true", Fill::Ones, Some(Class::Logical)),
    ("rand", Fill::Rand, None),
    ("randn", Fill::Randn, None),
    ("Inf", Fill::Inf, None),
    ("inf", Fill::Inf, None),
    ("NaN", Fill::NaN, None),
    ("nan", Fill::NaN, None),
    ("pi", Fill::Pi, None),
];

/// The filler named `name` (one of [`FILLERS`]).
pub(super) fn fill_named(name: &str) -> Option<Filler> {
    FILLERS
        .iter()
        .find(|(n, _, _)| *n == name)
        .map(|&(_, fill, class)| Filler { fill, class })
}

pub(super) const FORMS: &str = "write zeros(n), zeros(rows, cols), zeros(rows, cols, pages), zeros(size(A)) or zeros([rows cols]), optionally with a class: zeros(1, n, 'int32'), zeros(size(A), 'like', A)";

fn is_string(e: &ast::Expr, text: &str) -> bool {
    text_literal(e) == Some(text)
}

/// `size(A)` with one argument, when no variable is named `size`: its argument.
fn size_call<'e>(l: &Lowerer<'_>, e: &'e ast::Expr) -> Option<&'e ast::Expr> {
    match &e.kind {
        AstExpr::Call { callee, args }
            if callee.name == "size" && !l.scope.names.contains_key("size") =>
        {
            match args.as_slice() {
                [a] => Some(a),
                _ => None,
            }
        }
        AstExpr::Paren(inner) => size_call(l, inner),
        _ => None,
    }
}

impl Lowerer<'_> {
    /// `zeros(...)`/`ones(...)` on the right of an assignment: `Some(None)` when it is one but is
    /// malformed (already reported).
    pub(super) fn allocation(&mut self, value: &ast::Expr) -> Option<Option<Allocation>> {
        let AstExpr::Call { callee, args } = &value.kind else {
            return None;
        };
        let fill =
            fill_named(&callee.name).filter(|_| !self.scope.names.contains_key(&callee.name))?;
        Some(self.allocation_args(fill, args, value.span))
    }

    pub(super) fn allocation_args(
        &mut self,
        filler: Filler,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Allocation> {
        let (class, sizes) = match filler.class {
            Some(class) => (class, self.sizes_only(args)?),
            None => self.allocation_class(args)?,
        };
        let fill = filler.fill;
        if fill.is_floating_only() && !class.is_float() {
            let convert = match fill.is_random() {
                true => format!(
                    ", and convert the result: {class}({}(rows, cols) * 100)",
                    fill.name()
                ),
                false => String::new(),
            };
            self.error(
                "E0105",
                span,
                format!(
                    "`{}` makes double or single values, not {class}",
                    fill.name()
                ),
                format!(
                    "write {0}(rows, cols) or {0}(rows, cols, 'single'){convert}",
                    fill.name()
                ),
            );
            return None;
        }
        let Extents {
            rows,
            cols,
            pages,
            shape,
        } = self.extents(sizes, span)?;
        Some(Allocation {
            fill,
            class,
            rows,
            cols,
            pages,
            shape,
        })
    }

    /// The arguments of `false`/`true`, which must all be sizes.
    fn sizes_only<'a>(&mut self, args: &'a [ast::Expr]) -> Option<&'a [ast::Expr]> {
        match args.iter().find(|a| text_literal(a).is_some()) {
            Some(text) => {
                self.error(
                    "E0105",
                    text.span,
                    "`false`/`true` take sizes only".into(),
                    "write false(rows, cols), or zeros(rows, cols, 'logical')".into(),
                );
                None
            }
            None => Some(args),
        }
    }

    /// The class a trailing `'name'` or `'like', P` asks for (double without one), and the size
    /// arguments before it.
    fn allocation_class<'a>(&mut self, args: &'a [ast::Expr]) -> Option<(Class, &'a [ast::Expr])> {
        match args {
            [sizes @ .., like, prototype] if is_string(like, "like") => {
                let value = self.value(prototype)?;
                match val_class(self, &value) {
                    Class::Char => {
                        self.error(
                            "E0105",
                            prototype.span,
                            "`zeros`/`ones` cannot create arrays like a char value".into(),
                            "pass a numeric or logical prototype, or a class name: zeros(size(s), 'double')"
                                .into(),
                        );
                        None
                    }
                    class => Some((class, sizes)),
                }
            }
            [sizes @ .., last] if text_literal(last).is_some() => {
                let name = text_literal(last).unwrap_or_default();
                self.named_class(name, last.span)
                    .map(|class| (class, sizes))
            }
            _ => Some((Class::Double, args)),
        }
    }

    /// The class a `zeros`/`ones` class name names.
    fn named_class(&mut self, name: &str, span: Span) -> Option<Class> {
        let class = Class::from_name(name).filter(|c| *c != Class::Char);
        if class.is_none() {
            self.error(
                "E0105",
                span,
                format!("`{name}` is not a class `zeros`/`ones` can create"),
                "use 'double', 'single', 'logical' or an integer class like 'int32', or 'like', A"
                    .into(),
            );
        }
        class
    }

    /// The extents the size arguments give: scalars, `size(A)`, or a literal `[m n]`/`[m n p]`.
    fn extents(&mut self, sizes: &[ast::Expr], span: Span) -> Option<Extents> {
        if let [arg] = sizes {
            if let Some(array) = size_call(self, arg) {
                return self.extents_of_value(array);
            }
            if let Some(vector) = self.size_vector_local(arg) {
                return Some(self.extents_in(vector, span));
            }
            if let AstExpr::Matrix(rows) = &arg.kind {
                return match rows.as_slice() {
                    [row] if matches!(row.len(), 2 | 3) => self.scalar_extents(row, span),
                    _ => self.malformed_sizes(arg.span),
                };
            }
        }
        match sizes {
            [] => {
                let one = self.constant_expr(1.0, Class::Double, span);
                Some(Extents {
                    rows: one,
                    cols: self.copy_expr(one),
                    pages: None,
                    shape: Shape::SCALAR,
                })
            }
            [_] | [_, _] | [_, _, _] => self.scalar_extents(sizes, span),
            _ => self.malformed_sizes(span),
        }
    }

    /// The rows and columns that a size argument names, `size(A)` or a local size row (`sz =
    /// size(A)`), with their static extents: `None` for another argument, `Some(None)` after a
    /// diagnostic (a 3-D size, which only `zeros`/`ones` take).
    pub(super) fn size_argument(
        &mut self,
        arg: &ast::Expr,
        function: &str,
    ) -> Option<Option<(ExprId, ExprId, Shape)>> {
        let extents = if let Some(array) = size_call(self, arg) {
            self.extents_of_value(array)
        } else if let Some(vector) = self.size_vector_local(arg) {
            Some(self.extents_in(vector, arg.span))
        } else {
            return None;
        };
        Some(extents.and_then(|e| {
            if e.shape.is_3d() || e.pages.is_some() {
                self.error(
                    "E0105",
                    arg.span,
                    format!("`{function}` takes two extents here, and this size has three"),
                    format!("write {function}(A, m, n)"),
                );
                return None;
            }
            Some((e.rows, e.cols, e.shape))
        }))
    }

    /// A local row of two or three elements named as the only size (`sz = size(A);
    /// zeros(sz)`).
    fn size_vector_local(&self, arg: &ast::Expr) -> Option<LocalId> {
        let AstExpr::Ident(name) = &arg.kind else {
            return None;
        };
        let local = *self.scope.names.get(name)?;
        let shape = self.locals[local].ty.shape;
        let row = shape.rows == Dim::Known(1) && matches!(shape.cols, Dim::Known(2 | 3));
        row.then_some(local)
    }

    /// The extents held in the elements of the size row `vector`, known only at run time.
    fn extents_in(&mut self, vector: LocalId, span: Span) -> Extents {
        let ty = self.locals[vector].ty;
        let three = ty.shape.cols == Dim::Known(3);
        let mut element = |k: f64| {
            let at = self.constant_expr(k, Class::Double, span);
            self.new_expr(
                ExprKind::Index(vector, vec![at]),
                Type::scalar(ty.class),
                span,
            )
        };
        let (rows, cols) = (element(1.0), element(2.0));
        let pages = three.then(|| element(3.0));
        let pages_dim = if three { Dim::Var } else { Dim::Known(1) };
        Extents {
            rows,
            cols,
            pages,
            shape: Shape::new3(Dim::Var, Dim::Var, pages_dim),
        }
    }

    /// One size `n` (an n-by-n array), or two or three extents, each a scalar.
    fn scalar_extents(&mut self, sizes: &[ast::Expr], span: Span) -> Option<Extents> {
        let dims: Vec<ExprId> = sizes
            .iter()
            .map(|d| self.size_scalar(d))
            .collect::<Option<_>>()?;
        let (rows, cols, pages) = match dims.as_slice() {
            [n] => (*n, self.copy_expr(*n), None),
            [r, c] => (*r, *c, None),
            [r, c, p] => (*r, *c, Some(*p)),
            _ => return self.malformed_sizes(span),
        };
        let shape = Shape::new3(
            self.dim_of_expr(rows),
            self.dim_of_expr(cols),
            pages.map_or(Dim::Known(1), |p| self.dim_of_expr(p)),
        );
        Some(Extents {
            rows,
            cols,
            pages,
            shape,
        })
    }

    /// A scalar size; a vector (other than the forms [`Self::extents`] takes) is E0105.
    fn size_scalar(&mut self, e: &ast::Expr) -> Option<ExprId> {
        if size_call(self, e).is_some() {
            self.error(
                "E0105",
                e.span,
                "`size(A)` must be the only size argument of `zeros`/`ones`".into(),
                FORMS.into(),
            );
            return None;
        }
        match self.value(e)? {
            Val::Scalar(s) => Some(s),
            Val::Array(a) => {
                self.error(
                    "E0105",
                    a.span,
                    format!(
                        "a size argument of `zeros`/`ones` must be a scalar, or the only argument `size(A)` or `[m n]`; this is {}",
                        Type::array(a.class, a.shape)
                    ),
                    FORMS.into(),
                );
                None
            }
        }
    }

    fn malformed_sizes(&mut self, span: Span) -> Option<Extents> {
        self.error(
            "E0105",
            span,
            "`zeros`/`ones` take one, two or three sizes, or one size vector".into(),
            FORMS.into(),
        );
        None
    }

    /// `size(A)` as sizes: `A`'s extents and shape (1-by-1 for a scalar).
    fn extents_of_value(&mut self, array: &ast::Expr) -> Option<Extents> {
        Some(match self.value(array)? {
            Val::Scalar(_) => {
                let one = |l: &mut Self| l.constant_expr(1.0, Class::Double, array.span);
                Extents {
                    rows: one(self),
                    cols: one(self),
                    pages: None,
                    shape: Shape::SCALAR,
                }
            }
            Val::Array(a) => {
                let (rows, cols, pages) = self.extents_of(&a);
                Extents {
                    rows,
                    cols,
                    pages,
                    shape: a.shape,
                }
            }
        })
    }

    /// Rows, columns and (for a 3-D value) pages of an array value, as fresh expressions.
    pub(super) fn extents_of(&mut self, val: &ArrayVal) -> (ExprId, ExprId, Option<ExprId>) {
        let rows = self.copy_expr(val.rows);
        match self.page_extents(val) {
            Some((cols, pages)) if val.shape.is_3d() => (rows, cols, Some(pages)),
            _ => (rows, self.copy_expr(val.cols), None),
        }
    }

    fn dim_of_expr(&self, e: ExprId) -> Dim {
        match self.exprs[e].kind {
            ExprKind::Const(v) if v >= 0.0 && v.fract() == 0.0 => Dim::Known(v as u64),
            _ => Dim::Var,
        }
    }

    /// `name = zeros(...)`: a scalar assignment when the shape is 1-by-1, else an `Alloc`. A
    /// 1-by-1 array that the file assigns by index (`y = zeros(1, 1); y(i) = v`) stays an array,
    /// a row whose length (1) is known at run time, so its subscripts are checked like any
    /// other array's.
    pub(super) fn alloc(
        &mut self,
        name: &ast::Ident,
        mut alloc: Allocation,
        span: Span,
    ) -> Option<StmtId> {
        if alloc.shape.is_scalar() && self.scope.names_used.indexed.contains(&name.name) {
            alloc.shape = Shape::new(Dim::Known(1), Dim::Var);
        }
        if alloc.shape.is_scalar() {
            let class = alloc.class;
            let value = self.scalar_fill(alloc, span);
            let target = self.define(name, Type::scalar(class))?;
            return self.push(StmtKind::Assign { target, value }, span);
        }
        let target = self.define(name, Type::array(alloc.class, alloc.shape))?;
        self.start_empty(&name.name, target, alloc.shape);
        self.push_alloc(target, alloc, span)
    }

    /// `zeros(...)`/`ones(...)` inside an expression: allocated into a temporary.
    pub(super) fn allocated_temp(&mut self, alloc: Allocation, span: Span) -> Option<Val> {
        if alloc.shape.is_scalar() {
            return Some(Val::Scalar(self.scalar_fill(alloc, span)));
        }
        let temp = self.temp("t", Type::array(alloc.class, alloc.shape), span);
        self.push_alloc(temp, alloc, span);
        Some(Val::Array(self.whole(temp, span)))
    }

    /// `[]` passed to a function m2cu inlines (`std(A, [], 2)`, a user's `f(x, [])`): a 0-by-0
    /// double, whose emptiness the callee's `isempty` then decides at translation time.
    pub(super) fn empty_argument(&mut self, span: Span) -> Option<Val> {
        let alloc = Allocation {
            fill: Fill::Zeros,
            class: Class::Double,
            rows: self.constant_expr(0.0, Class::Double, span),
            cols: self.constant_expr(0.0, Class::Double, span),
            pages: None,
            shape: Shape::new(Dim::Known(0), Dim::Known(0)),
        };
        self.allocated_temp(alloc, span)
    }

    /// The value of a 1-by-1 fill: its constant, or one draw from the random stream (allocated
    /// as a one-element row and read back).
    fn scalar_fill(&mut self, mut alloc: Allocation, span: Span) -> ExprId {
        if let Some(value) = alloc.fill_value() {
            return self.constant_expr(value, alloc.class, span);
        }
        let class = alloc.class;
        alloc.shape = Shape::new(Dim::Known(1), Dim::Var);
        let temp = self.temp("r", Type::array(class, alloc.shape), span);
        self.push_alloc(temp, alloc, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        self.new_expr(ExprKind::Index(temp, vec![one]), Type::scalar(class), span)
    }

    fn push_alloc(&mut self, target: LocalId, alloc: Allocation, span: Span) -> Option<StmtId> {
        let kind = StmtKind::Alloc {
            target,
            fill: alloc.fill,
            rows: alloc.rows,
            cols: alloc.cols,
            pages: alloc.pages,
        };
        self.push(kind, span)
    }

    /// `reshape(A, sizes...)`: `A`'s elements, in column-major order, in an array of the new
    /// extents.
    pub(super) fn reshape(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        const HELP: &str = "write reshape(A, rows, cols), reshape(A, rows, cols, pages), reshape(A, [rows cols]) or reshape(A, size(B)), with at most one size `[]`";
        let [array, sizes @ ..] = args else {
            self.error(
                "E0105",
                span,
                "`reshape` needs an array and sizes".into(),
                HELP.into(),
            );
            return None;
        };
        let sizes: Vec<&ast::Expr> = match sizes {
            [ast::Expr {
                kind: AstExpr::Matrix(rows),
                ..
            }] if matches!(rows.as_slice(), [row] if matches!(row.len(), 2 | 3)) => {
                rows[0].iter().collect()
            }
            _ => sizes.iter().collect(),
        };
        let placeholders = sizes
            .iter()
            .filter(|e| super::grow::is_empty_matrix(e))
            .count();
        let size_row = match sizes.as_slice() {
            [arg] => size_call(self, arg).is_some() || self.size_vector_local(arg).is_some(),
            _ => false,
        };
        if !size_row && (!matches!(sizes.len(), 2 | 3) || placeholders > 1) {
            self.error(
                "E0105",
                span,
                "`reshape` takes two or three sizes, at most one of them `[]`".into(),
                HELP.into(),
            );
            return None;
        }
        let source = match self.value(array)? {
            Val::Array(val) => self.whole_local(&val),
            Val::Scalar(_) => {
                self.error(
                    "E0105",
                    array.span,
                    "`reshape` of a scalar is the scalar itself".into(),
                    "use the value directly".into(),
                );
                return None;
            }
        };
        let numel = |l: &mut Self| {
            l.new_expr(
                ExprKind::Size(source, SizeQuery::Numel),
                Type::scalar(Class::Double),
                span,
            )
        };
        let (dims, known_shape) = match sizes.as_slice() {
            [arg] if size_row => {
                let extents = self.size_row_extents(arg, span)?;
                let dims = [extents.rows, extents.cols]
                    .into_iter()
                    .chain(extents.pages);
                (dims.collect(), Some(extents.shape))
            }
            _ => (self.reshape_extents(&sizes, source, span)?, None),
        };
        let total = self.product(&dims, span);
        let n = numel(self);
        let same = self.binary_expr(BinOp::Eq, n, total, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond: same,
                error: RuntimeError::ReshapeCount,
            },
            span,
        );
        let (rows, cols, pages) = (dims[0], dims[1], dims.get(2).copied());
        let mut shape = known_shape.unwrap_or_else(|| {
            Shape::new3(
                self.dim_of_expr(rows),
                self.dim_of_expr(cols),
                pages.map_or(Dim::Known(1), |p| self.dim_of_expr(p)),
            )
        });
        if shape.is_scalar() {
            shape = Shape::new(Dim::Known(1), Dim::Var);
        }
        let element = Type {
            shape: Shape::SCALAR,
            ..self.locals[source].ty
        };
        let target = self.temp("t", Type { shape, ..element }, span);
        let (rows, cols) = (self.copy_expr(rows), self.copy_expr(cols));
        let pages = pages.map(|p| self.copy_expr(p));
        self.alloc_zeros(target, rows, cols, pages, span);
        let count = numel(self);
        self.counted_loop("k", count, span, |me, k| {
            let read_at = me.new_expr(ExprKind::Local(k), Type::scalar(Class::Double), span);
            let value = me.new_expr(ExprKind::Index(source, vec![read_at]), element, span);
            let write_at = me.new_expr(ExprKind::Local(k), Type::scalar(Class::Double), span);
            me.push(
                StmtKind::Store {
                    array: target,
                    indices: vec![write_at],
                    value,
                },
                span,
            );
        });
        Some(Val::Array(self.whole(target, span)))
    }

    /// The extents `reshape(A, size(B))` (`B`'s, with its shape) or `reshape(A, sz)` (the
    /// elements of a size row of two or three) asks for.
    fn size_row_extents(&mut self, arg: &ast::Expr, span: Span) -> Option<Extents> {
        Some(match size_call(self, arg) {
            Some(array) => self.extents_of_value(array)?,
            None => {
                let vector = self.size_vector_local(arg)?;
                self.extents_in(vector, span)
            }
        })
    }

    /// The extents of `reshape(A, m, n)`, `reshape(A, m, n, p)` or `reshape(A, [m n])`, a `[]`
    /// among them the number of `source`'s elements over the others' product.
    fn reshape_extents(
        &mut self,
        sizes: &[&ast::Expr],
        source: LocalId,
        span: Span,
    ) -> Option<Vec<ExprId>> {
        let numel = |l: &mut Self| {
            l.new_expr(
                ExprKind::Size(source, SizeQuery::Numel),
                Type::scalar(Class::Double),
                span,
            )
        };
        let mut dims: Vec<Option<ExprId>> = Vec::new();
        for size in sizes {
            dims.push(match super::grow::is_empty_matrix(size) {
                true => None,
                false => Some(self.size_scalar(size)?),
            });
        }
        let known: Vec<ExprId> = dims.iter().flatten().copied().collect();
        let product = self.product(&known, span);
        if dims.iter().any(Option::is_none) {
            // The known extents' product must divide the element count (MATLAB's mod: a
            // product of 0 divides 0 only), before the `[]` extent is taken as their quotient.
            let (n, others) = (numel(self), self.copy_expr(product));
            let double = Type::scalar(Class::Double);
            let rest = self.new_expr(ExprKind::Call(Builtin::Mod, vec![n, others]), double, span);
            let zero = self.constant_expr(0.0, Class::Double, span);
            let divides = self.binary_expr(BinOp::Eq, rest, zero, Class::Logical, span);
            self.push(
                StmtKind::Check {
                    cond: divides,
                    error: RuntimeError::ReshapeDivisible,
                },
                span,
            );
        }
        let dims: Vec<ExprId> = dims
            .into_iter()
            .map(|d| {
                d.unwrap_or_else(|| {
                    // Octave's 0 for `reshape(zeros(0, 3), 0, [])`: over a product of at
                    // least 1 (a constant one is that already).
                    let n = numel(self);
                    let others = self.copy_expr(product);
                    let divisor = match self.const_of(others) {
                        Some(c) if c >= 1.0 => others,
                        _ => {
                            let one = self.constant_expr(1.0, Class::Double, span);
                            let call = ExprKind::Call(Builtin::Max, vec![others, one]);
                            self.new_expr(call, Type::scalar(Class::Double), span)
                        }
                    };
                    self.binary_expr(BinOp::Div, n, divisor, Class::Double, span)
                })
            })
            .collect();
        Some(dims)
    }

    /// The product of scalar double expressions (1 for none).
    pub(super) fn product(&mut self, factors: &[ExprId], span: Span) -> ExprId {
        let mut product = self.constant_expr(1.0, Class::Double, span);
        for &f in factors {
            let f = self.copy_expr(f);
            product = self.binary_expr(BinOp::Mul, product, f, Class::Double, span);
        }
        product
    }
}
