//! `gpucoder.reduce(A, @f)` and `gpucoder.reduce(A, {@f, @g})`: every element of `A` folded
//! with each of the user's functions, as GPU Coder's reduction with user-written operators.
//!
//! Each function is a handle known at translation time (`@name`, `@(a, b) ...`, or a variable
//! holding one; E0113 otherwise). `@name` names a function of the program with two inputs and
//! one output (a local function, a function file, or m2cu's own `plus`, `times`, ...; `@min`
//! and `@max` fold with m2cu's own `m2cu_min`/`m2cu_max`, `c = min(a, b)`, unless the program
//! has its own) or another builtin, which folds as `@(a, b) name(a, b)`; an anonymous function
//! takes two inputs (see `Lowerer::anonymous_combiner`) and may capture scalars, which become
//! the combiner's `captures` (an array it reads is E0113). Either returns a scalar of `A`'s
//! class when both inputs are scalars of that class (E0114). The function is lowered once, with scalar
//! parameters of `A`'s class, into a [`Combiner`] that lies outside the function body; the fold becomes
//! `acc = A(1); for k = 2:numel(A), acc = f(acc, A(k)); end` with [`ExprKind::Combine`], the
//! accumulator form the analysis recognizes as a custom reduction. No identity is needed: the
//! first element seeds the accumulator. The user vouches that every function is associative and
//! commutative, as `gpucoder.reduce` requires, which lets the kernel combine partial results in
//! any order. With `'preprocess', P` every element is `P(A(k))` before it is folded (the seed
//! too), held in one temporary per iteration, and the combiners are lowered for `P`'s class.
//! The value is the 1-by-k row of the k results (a scalar for one function), or one output per
//! function (`[lo, hi] = gpucoder.reduce(x, {@min, @max})`). With `'dim', d` (1 or 2) each
//! column or row is folded on its own ([`Along::Line`]) in a loop over the lines, and each
//! function's results are a row (columns folded) or a column (rows folded), one output per
//! function. An empty `A` stops the program with an error, since there is nothing to seed the
//! fold with.

use std::rc::Rc;

use super::array::{ArrayVal, Coord, Pos, Val};
use super::handles::{Anonymous, Handle};
use super::*;
use crate::ir::{Combiner, CombinerId, PrintTo};

/// One `gpucoder.reduce` call's data: the array, the `'preprocess'` function, if any, and the
/// elements one fold takes.
struct Fold<'v, 'a> {
    a: &'v ArrayVal,
    preprocess: Option<&'v (Rc<Handle<'a>>, Span)>,
    along: Along,
    span: Span,
}

/// The elements one fold takes: all of them in column-major order, or one line along a
/// dimension (`'dim', 1`: column `line`; `'dim', 2`: row `line`).
#[derive(Clone, Copy)]
enum Along {
    All,
    Line { dim: u8, line: LocalId },
}

/// The name-value options of a `gpucoder.reduce` call.
#[derive(Default)]
struct ReduceOptions<'a> {
    preprocess: Option<(Rc<Handle<'a>>, Span)>,
    /// `'dim', d`: fold each column (1) or row (2) on its own.
    dim: Option<u8>,
}

impl Fold<'_, '_> {
    /// The position of the fold's element `k` (1-based along the fold).
    fn position(&self, k: Coord) -> Pos {
        match self.along {
            Along::All => Pos::Linear(k),
            Along::Line { dim: 1, line } => Pos::Grid(k, Coord::Var(line)),
            Along::Line { line, .. } => Pos::Grid(Coord::Var(line), k),
        }
    }
}

/// The name a call of this reduction has.
pub(super) const GPUCODER_REDUCE: &str = "gpucoder.reduce";

impl<'a> Lowerer<'a> {
    pub(super) fn gpucoder_reduce(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let mut values = self.gpucoder_reduce_outputs(args, 1, span)?;
        values.pop()
    }

    /// `[s1, ..., sk] = gpucoder.reduce(A, {f1, ..., fk}, ...)`: one output per function, or
    /// (`nargout` 1, without `'dim'`) the 1-by-k row of the results. With `'dim', d` each result
    /// folds every column (`d` 1: a row of one value per column) or row (`d` 2: a column) on
    /// its own.
    pub(super) fn gpucoder_reduce_outputs(
        &mut self,
        args: &[ast::Expr],
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Val>> {
        let [x, op, options @ ..] = args else {
            self.error(
                "E0105",
                span,
                "`gpucoder.reduce` takes an array and its functions".into(),
                "write `gpucoder.reduce(A, @f)` or `gpucoder.reduce(A, {@f, @g})`".into(),
            );
            return None;
        };
        let options = self.reduce_options(options, span)?;
        let handles = self.reduce_handles(op)?;
        let separate = nargout > 1 || options.dim.is_some();
        if separate && nargout != handles.len() {
            self.error(
                "E0105",
                span,
                format!(
                    "`gpucoder.reduce` with {} function(s) gives {nargout} output(s) here",
                    handles.len()
                ),
                match options.dim {
                    Some(_) => "with `'dim'`, give one output per function: `[s1, s2] = gpucoder.reduce(A, {@f, @g}, 'dim', 1)`".into(),
                    None => "give one output per function, or one output for the row of all results".into(),
                },
            );
            return None;
        }
        let a = match self.value(x)? {
            Val::Array(a) => a,
            Val::Scalar(_) => {
                self.error(
                    "E0105",
                    x.span,
                    "`gpucoder.reduce` of a scalar".into(),
                    "pass a vector or a matrix; a scalar is its own reduction".into(),
                );
                return None;
            }
        };
        self.reject_3d(&a, "`gpucoder.reduce`")?;
        let n = self.numel_expr(&a, span);
        self.nonempty_check(n, span);
        let fold = Fold {
            a: &a,
            preprocess: options.preprocess.as_ref(),
            along: Along::All,
            span,
        };
        let first = self.fold_element(&fold, Pos::Linear(Coord::One))?;
        let class = self.exprs[first].ty.class;
        let combiners: Vec<Option<CombinerId>> = handles
            .iter()
            .map(|(h, at)| self.combiner(h, *at, class))
            .collect();
        let combiners: Vec<CombinerId> = combiners.into_iter().collect::<Option<_>>()?;
        if let Some(dim) = options.dim {
            return self.fold_lines(&fold, dim, class, &combiners);
        }
        let accs = self.fold(&fold, first, &combiners)?;
        Some(match separate {
            true => accs.iter().map(|&acc| self.local_val(acc, span)).collect(),
            false => vec![self.row_of(&accs, class, span)],
        })
    }

    /// One result per combiner along `dim`: a loop over the lines (columns for 1, rows for 2)
    /// that folds each line on its own and stores the results; a kernel over the lines, each
    /// folding its line in order.
    fn fold_lines(
        &mut self,
        all: &Fold<'_, 'a>,
        dim: u8,
        class: Class,
        combiners: &[CombinerId],
    ) -> Option<Vec<Val>> {
        let span = all.span;
        let a = self.whole_local(all.a);
        let other = 3 - dim;
        // A line count known to be 1 still gives an array (of one element), never a scalar.
        let lines = |d: Dim| match d {
            Dim::Known(1) => Dim::Var,
            d => d,
        };
        let shape = match dim {
            1 => Shape::new(Dim::Known(1), lines(all.a.shape.cols)),
            _ => Shape::new(lines(all.a.shape.rows), Dim::Known(1)),
        };
        let results: Vec<LocalId> = combiners
            .iter()
            .map(|_| {
                let r = self.temp("red", Type::array(class, shape), span);
                let lines = self.size_of(a, other, span);
                let one = self.constant_expr(1.0, Class::Double, span);
                let (rows, cols) = match dim {
                    1 => (one, lines),
                    _ => (lines, one),
                };
                self.alloc_zeros(r, rows, cols, None, span);
                r
            })
            .collect();
        let lines = self.size_of(a, other, span);
        // The folds read the array held once before the loop, never an expression of it that
        // each line would materialize again.
        let whole = self.whole(a, span);
        let mut folded = Some(());
        self.counted_loop("line", lines, span, |me, line| {
            let fold = Fold {
                a: &whole,
                along: Along::Line { dim, line },
                ..*all
            };
            folded = (|| {
                let first = me.fold_element(&fold, fold.position(Coord::One))?;
                let accs = me.fold(&fold, first, combiners)?;
                for (&acc, &r) in accs.iter().zip(&results) {
                    me.store_index(r, line, acc, span);
                }
                Some(())
            })();
        });
        folded?;
        Some(
            results
                .iter()
                .map(|&r| Val::Array(self.whole(r, span)))
                .collect(),
        )
    }

    /// The name-value options after the functions, in any order: `'preprocess', P` (a handle)
    /// and `'dim', d` (the literal 1 or 2).
    fn reduce_options(&mut self, options: &[ast::Expr], span: Span) -> Option<ReduceOptions<'a>> {
        let mut parsed = ReduceOptions::default();
        for pair in options.chunks(2) {
            let name = super::text::text_literal(&pair[0]);
            match (name.map(str::to_ascii_lowercase).as_deref(), pair) {
                (Some("preprocess"), [_, p]) => match self.handle_expr(p) {
                    Some(handle) => parsed.preprocess = Some((handle?, p.span)),
                    None => {
                        self.error(
                            "E0113",
                            p.span,
                            "the `'preprocess'` function of `gpucoder.reduce` must be a function handle".into(),
                            "write `@name`, `@(x) ...` or a variable holding one".into(),
                        );
                        return None;
                    }
                },
                (Some("dim"), [_, d]) => match d.kind {
                    AstExpr::Number { value, .. } if value == 1.0 || value == 2.0 => {
                        parsed.dim = Some(value as u8);
                    }
                    _ => {
                        self.error(
                            "E0105",
                            d.span,
                            "the `'dim'` of `gpucoder.reduce` must be the number 1 or 2".into(),
                            "write `'dim', 1` to reduce each column or `'dim', 2` to reduce each row".into(),
                        );
                        return None;
                    }
                },
                _ => {
                    let message = match name {
                        Some(name) => {
                            format!("the option `'{name}'` of `gpucoder.reduce` is not supported")
                        }
                        None => {
                            "`gpucoder.reduce` takes an array, its functions and name-value options"
                                .into()
                        }
                    };
                    self.error(
                        "E0105",
                        span,
                        message,
                        "m2cu takes the options `'preprocess', P` and `'dim', d` of `gpucoder.reduce(A, F, ...)`".into(),
                    );
                    return None;
                }
            }
        }
        Some(parsed)
    }

    /// The handles of `f` or `{f, g}`, each `@name`, an anonymous function or a variable holding
    /// a handle.
    fn reduce_handles(&mut self, op: &ast::Expr) -> Option<Vec<(Rc<Handle<'a>>, Span)>> {
        let items: Vec<&ast::Expr> = match &op.kind {
            AstExpr::HandleCell(items) => items.iter().collect(),
            _ => vec![op],
        };
        let mut handles = Vec::new();
        for item in items {
            match self.handle_expr(item) {
                Some(handle) => handles.push((handle?, item.span)),
                None => {
                    self.error(
                        "E0113",
                        item.span,
                        "the functions of `gpucoder.reduce` must be function handles".into(),
                        "write `@name`, `@(a, b) ...` or a variable holding one, or `{@f, @g}`"
                            .into(),
                    );
                    return None;
                }
            }
        }
        Some(handles)
    }

    /// Lowers the function `handle` denotes for two scalars of `class` into a combiner.
    fn combiner(&mut self, handle: &Handle<'a>, at: Span, class: Class) -> Option<CombinerId> {
        let (name, (params, output, body)) = match handle {
            Handle::Named { name, file } => {
                let here = std::mem::replace(&mut self.file, file);
                let lowered = self.named_combiner(name, at, class);
                self.file = here;
                (name.name.clone(), lowered?)
            }
            Handle::Anonymous(anon) => {
                let label = anon.source_text();
                let lowered = self.anonymous_combiner(anon, &label, at, class)?;
                (label, lowered)
            }
        };
        let ty = self.locals[output].ty;
        if ty != Type::scalar(class) {
            self.error(
                "E0114",
                at,
                format!("`{name}` returns {ty} from two {class} scalars, but `gpucoder.reduce` needs a function that keeps the class"),
                match handle {
                    Handle::Named { .. } => {
                        format!("make `{name}` return a {class} scalar, e.g. `c = {class}(...)`")
                    }
                    Handle::Anonymous(_) => {
                        format!("convert its value: `@(a, b) {class}(...)`")
                    }
                },
            );
            return None;
        }
        let own = [params[0], params[1], output];
        let captures = self.tree().outer_reads(&body, &own);
        if let Some(&array) = captures.iter().find(|&&l| !self.locals[l].ty.is_scalar()) {
            self.error(
                "E0113",
                at,
                format!(
                    "`{name}` uses the array `{}` from the workspace, but a `gpucoder.reduce` function may use only scalars",
                    self.locals[array].name
                ),
                format!(
                    "read what it needs from `{0}` into a scalar before defining the function (`c = {0}(k);`) and use `c`",
                    self.locals[array].name
                ),
            );
            return None;
        }
        if let Some(array) = self.array_assigned(&body) {
            self.unsupported(
                at,
                &format!(
                    "`{name}` creates the array `{}`, but a `gpucoder.reduce` function may use only scalars",
                    self.locals[array].name
                ),
                "compute the result from the two scalar inputs",
            );
            return None;
        }
        Some(self.directives.combiners.alloc(Combiner {
            name,
            params,
            captures,
            output,
            body,
        }))
    }

    /// The function `@name` (a function of the program, or m2cu's own for `@min`/`@max`)
    /// lowered for two scalars of `class`.
    fn named_combiner(
        &mut self,
        handle: &ast::Ident,
        at: Span,
        class: Class,
    ) -> Option<([LocalId; 2], LocalId, Block)> {
        let name = &handle.name;
        let target = self
            .resolved_callee(name)
            .or_else(|| self.resolved_callee(builtin_combiner(name)?));
        let Some(target) = target else {
            if super::expr::is_builtin_name(name) {
                let call = Anonymous::calling(name, at, self.file);
                return self.anonymous_combiner(&call, &format!("@{name}"), at, class);
            }
            self.error(
                "E0113",
                at,
                format!("`@{name}` does not name a function of the program"),
                format!("define `function c = {name}(a, b)` in this file or in `{name}.m`"),
            );
            return None;
        };
        let function = target.function;
        let (params, outputs) = (function.params.len(), function.outputs.len());
        if params != 2 || outputs != 1 {
            self.error(
                "E0114",
                at,
                format!("`{name}` takes {params} input(s) and returns {outputs} output(s), but `gpucoder.reduce` needs a binary function"),
                format!("declare it as `function c = {name}(a, b)`"),
            );
            return None;
        }
        let callee = ast::Ident {
            name: name.clone(),
            span: at,
        };
        self.lower_combiner(&callee, target, class)
    }

    /// The function's body with its two parameters bound to scalars of `class`, in a scope of
    /// its own; its parameters, output and body.
    fn lower_combiner(
        &mut self,
        callee: &ast::Ident,
        target: super::inline::Callee<'a>,
        class: Class,
    ) -> Option<([LocalId; 2], LocalId, Block)> {
        let function = target.function;
        let (params, body, outputs) = self.in_callee_scope(callee, target, callee.span, |me| {
            let params = [0, 1].map(|k| {
                let p = &function.params[k];
                me.new_local(&p.name, Type::scalar(class), p.span)
            });
            let body = me.block(&function.body);
            (params, body, me.callee_value_output(function))
        })?;
        Some((params, outputs?, body))
    }

    /// An array that `block` creates or writes, if any.
    fn array_assigned(&self, block: &Block) -> Option<LocalId> {
        let mut found = None;
        for &s in &block.0 {
            let target = match &self.stmts[s].kind {
                StmtKind::Assign { target, .. } if !self.locals[*target].ty.is_scalar() => {
                    Some(*target)
                }
                StmtKind::Alloc { target, .. }
                | StmtKind::Store { array: target, .. }
                | StmtKind::Resize { array: target, .. }
                | StmtKind::Print {
                    to: PrintTo::Append { row: target },
                    ..
                } => Some(*target),
                StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                    self.array_assigned(body)
                }
                StmtKind::If {
                    then_body,
                    else_body,
                    ..
                } => self
                    .array_assigned(then_body)
                    .or_else(|| self.array_assigned(else_body)),
                _ => None,
            };
            found = found.or(target);
        }
        found
    }

    /// The element of the fold at `pos`, preprocessed: a scalar expression, held in a temporary
    /// when there is a `'preprocess'` function (so that every function folds the same value).
    fn fold_element(&mut self, fold: &Fold<'_, 'a>, pos: Pos) -> Option<ExprId> {
        let element = self.element(fold.a, pos);
        let Some((handle, at)) = fold.preprocess else {
            return Some(element);
        };
        let label = handle.label();
        match self.call_handle_on(handle, "preprocess", element, *at)? {
            Val::Scalar(value) => {
                let held = self.held_scalar("pre", value, fold.span);
                Some(self.new_expr(ExprKind::Local(held), self.locals[held].ty, fold.span))
            }
            Val::Array(_) => {
                self.error(
                    "E0114",
                    *at,
                    format!("`{label}` returns an array for one element, but the `'preprocess'` function of `gpucoder.reduce` must return a scalar"),
                    "make it return one value per element".into(),
                );
                None
            }
        }
    }

    /// `acc = first` for each combiner, then one loop `for k = 2:numel(A)` updating every
    /// accumulator with `acc = f(acc, A(k))` (`A(k)` preprocessed); returns the accumulators.
    /// Without a preprocess function each accumulator reads the elements itself.
    fn fold(
        &mut self,
        fold: &Fold<'_, 'a>,
        first: ExprId,
        combiners: &[CombinerId],
    ) -> Option<Vec<LocalId>> {
        let span = fold.span;
        let class = self.exprs[first].ty.class;
        let accs: Vec<LocalId> = combiners
            .iter()
            .enumerate()
            .map(|(i, _)| {
                let acc = self.temp("red", Type::scalar(class), span);
                let value = match (i, fold.preprocess) {
                    (0, _) => first,
                    (_, Some(_)) => self.copy_expr(first),
                    (_, None) => self.element(fold.a, fold.position(Coord::One)),
                };
                self.push(StmtKind::Assign { target: acc, value }, span);
                acc
            })
            .collect();
        let k = self.counting_loop_var("k", span);
        self.open_block();
        let shared = match fold.preprocess {
            Some(_) => self.fold_element(fold, fold.position(Coord::Var(k))),
            None => None,
        };
        for (i, (&c, &acc)) in combiners.iter().zip(&accs).enumerate() {
            let element = match shared {
                Some(e) if i == 0 => e,
                Some(e) => self.copy_expr(e),
                None => self.fold_element(fold, fold.position(Coord::Var(k)))?,
            };
            let current = self.new_expr(ExprKind::Local(acc), Type::scalar(class), span);
            let captured: Vec<ExprId> = self.directives.combiners[c]
                .captures
                .clone()
                .into_iter()
                .map(|l| self.read_local(l, span))
                .collect();
            let operands = [current, element].into_iter().chain(captured).collect();
            let value = self.new_expr(ExprKind::Combine(c, operands), Type::scalar(class), span);
            self.push(StmtKind::Assign { target: acc, value }, span);
        }
        let body = self.close_block();
        let start = self.constant_expr(2.0, Class::Double, span);
        let stop = match fold.along {
            Along::All => self.numel_expr(fold.a, span),
            Along::Line { dim, .. } => {
                let a = self.whole_local(fold.a);
                self.size_of(a, dim, span)
            }
        };
        self.push(
            StmtKind::For {
                var: k,
                start,
                step: None,
                stop,
                body,
            },
            span,
        );
        Some(accs)
    }

    /// The accumulators as one value: a scalar, or a 1-by-k row.
    fn row_of(&mut self, accs: &[LocalId], class: Class, span: Span) -> Val {
        if let [one] = accs {
            return self.local_val(*one, span);
        }
        let shape = Shape::new(Dim::Known(1), Dim::Known(accs.len() as u64));
        let values = accs
            .iter()
            .map(|&acc| self.new_expr(ExprKind::Local(acc), Type::scalar(class), span))
            .collect();
        self.row_temp("row", Type::array(class, shape), values, span)
    }
}

/// m2cu's own binary function that `gpucoder.reduce` folds with for the builtin `name`
/// (`@min`, `@max`).
fn builtin_combiner(name: &str) -> Option<&'static str> {
    match name {
        "min" => Some("m2cu_min"),
        "max" => Some("m2cu_max"),
        _ => None,
    }
}
