//! Arrays built by indexed assignment without preallocation.
//!
//! MATLAB creates `y` on `y(k) = v` when `y` does not exist (a 1-by-k row of the value's class,
//! zeros in the gaps; `y(i, j) = v` makes an i-by-j matrix), and grows an array that an
//! assignment writes past its end, keeping each old element at its (row, column). `y = []`
//! starts an empty 0-by-0 double that `y(end+1) = v` and `y = [y, v]` / `y = [y; v]` grow,
//! and `y = [v, y]` / `y = [v; y]` grow at the front; an empty `zeros`/`ones` start
//! (`zeros(1, 0)`, `zeros(0, 2)`) of a name the file appends to grows the same way.
//! `y(a:b) = v` on an undefined `y` creates a row (not grown later unless the file grows it).
//! m2cu does this in one of two ways, and the report says which (`Function::notes`):
//!
//! - **Allocated before the loop.** When `y` does not exist before a `for` loop over a range
//!   with step 1, and the loop (or a perfect nest of such loops at the top of its body) stores
//!   `y(i + c) = v` (or `y(i + c, j + d) = v`, a subscript may also be an integer constant)
//!   exactly once, unconditionally, with no `break`/`continue`/`return` in the loop and no
//!   other mention of `y` in it, the final extents follow from the bounds: the last value of
//!   each loop variable plus its offset. `y` is then allocated once, zeros of the stored
//!   value's class, before the outermost loop and only when every loop of the nest runs (a
//!   loop that runs zero times leaves `y` undefined, as in MATLAB); the loop keeps a plain
//!   store and its parallel verdict. The bounds of inner loops must be simple (numbers,
//!   variables, `numel`/`length`/`size` and arithmetic) and mention nothing the nest assigns,
//!   so that computing them before the outer loop gives the same values.
//! - **Grown on the host.** Every other scalar store into an array that was created by index
//!   or by `[]` grows it when the subscript is past its end (a `Resize` statement, whose
//!   buffer doubles its capacity), so a loop that does it stays sequential. Reads of the array
//!   keep MATLAB's bounds checks, so a read of an element not yet written fails as in MATLAB.
//!
//! `z(m, n) = 0` on an existing matrix (the allocation idiom) grows it too: the file's names
//! assigned that way have extents known only at run time, like those grown by `x(end+1) = v`.
//!
//! A local function called in a loop is inlined once with one set of locals, so an array it
//! created by index would keep its elements from one call to the next: that is E0136.
//!
//! Invariants: a local in `Growth::grown` has both extents `Dim::Var`, or one `Known(1)` (a row
//! or a column) and the other `Dim::Var`, so every `Resize` keeps its type; a planned store
//! matches its plan by the target's span, so a local function's variable of the same name is
//! not mistaken for it.

use std::collections::{HashMap, HashSet};

use super::array::{ArrayVal, Sub, Val};
use super::emptyloop::{mentions, read_outside};
use super::*;
use crate::ast_source;
use crate::ir::RuntimeError;

/// The growth state of a lowering.
pub(super) struct Growth {
    /// Locals created by index or by `[]`: a scalar store past their end grows them.
    grown: HashSet<LocalId>,
    /// Names that an open `for` nest allocates before its outermost loop.
    plans: HashMap<String, Plan>,
    /// The `for` loops over ranges being lowered, outermost first.
    loops: Vec<LoopBounds>,
    /// For each local function being inlined, outermost first: whether its call may run
    /// more than once (it sits in a loop, or its caller's call does).
    repeated_calls: Vec<bool>,
    /// The report's lines (see `Function::notes`).
    pub(super) notes: Vec<(Span, String)>,
}

impl Growth {
    pub(super) fn new() -> Growth {
        Growth {
            grown: HashSet::new(),
            plans: HashMap::new(),
            loops: Vec::new(),
            repeated_calls: Vec::new(),
            notes: Vec::new(),
        }
    }
}

/// The bounds of a `for` loop being lowered.
struct LoopBounds {
    var: Option<LocalId>,
    start: ExprId,
    stop: ExprId,
    /// The names whose extents the body keeps: it assigns them only by `y(var) = v`.
    kept: HashSet<String>,
}

/// An array that a `for` nest allocates at its final size before its outermost loop.
struct Plan {
    /// The outermost loop, an index into `Growth::loops`.
    depth: usize,
    /// The span of the store's target.
    target: Span,
    extents: [Extent; 2],
    /// The final size as the source writes it: `1-by-n`.
    size_text: String,
    /// The array and its allocation, once the store is lowered.
    made: Option<Made>,
}

struct Made {
    array: LocalId,
    rows: ExprId,
    cols: ExprId,
    /// Every loop of the nest runs at least once.
    runs: ExprId,
}

/// One final extent of a planned array.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Extent {
    /// An integer constant.
    Const(f64),
    /// The last value of the loop `level` of the nest (0 is the outermost) plus an offset.
    Last { level: usize, offset: f64 },
}

/// What the planned store of a loop nest looks like, found in the AST.
struct Candidate {
    name: String,
    target: Span,
    extents: [Extent; 2],
    size_text: String,
}

/// The loop variables of a nest with the source text of their last values.
type Path<'s> = Vec<(&'s str, String)>;

impl Lowerer<'_> {
    /// Called when a local function's body is inlined, `in_loop` when the call is in a loop.
    pub(super) fn enter_call_growth(&mut self, in_loop: bool) {
        let repeated = in_loop || self.in_repeated_call();
        self.growth.repeated_calls.push(repeated);
    }

    pub(super) fn leave_call_growth(&mut self) {
        self.growth.repeated_calls.pop();
    }

    /// Whether the local function being inlined may be called more than once at this call
    /// (its locals are one array per call site, which MATLAB makes afresh at every call).
    fn in_repeated_call(&self) -> bool {
        self.growth.repeated_calls.last().copied().unwrap_or(false)
    }

    /// Called before the body of `for var = start:stop` (`step` none) is lowered: remembers the
    /// bounds and plans the arrays the loop builds by index.
    pub(super) fn enter_growth_loop(
        &mut self,
        var: &ast::Ident,
        range: (&ast::Expr, bool, &ast::Expr),
        bounds: (ExprId, ExprId),
        body: &[ast::Stmt],
    ) {
        let (start_ast, has_step, stop_ast) = range;
        let depth = self.growth.loops.len();
        self.growth.loops.push(LoopBounds {
            var: self.scope.names.get(&var.name).copied(),
            start: bounds.0,
            stop: bounds.1,
            kept: extents_kept(body, &var.name),
        });
        // In an enclosing loop `y` would exist from the second iteration on, and keep its
        // elements: only growth is exact there.
        let enclosed = self.scope.loop_depth > 0 || self.in_repeated_call();
        let plain = |e: &ast::Expr| !matches!(e.kind, AstExpr::End);
        if enclosed || has_step || !plain(start_ast) || exits(body) {
            return;
        }
        let assigned = assigned_names(body);
        let path = vec![(var.name.as_str(), ast_source::print_expr_source(stop_ast))];
        let scope = &self.scope.names;
        let known = |n: &str| scope.contains_key(n) || constant(n).is_some();
        let nest = Nest {
            assigned: &assigned,
            known: &known,
        };
        let mut found = Vec::new();
        nest.candidates(body, &path, &mut found);
        for c in found {
            let defined = self.scope.names.contains_key(&c.name);
            if defined || self.growth.plans.contains_key(&c.name) || !stored_once(body, &c.name) {
                continue;
            }
            self.growth.plans.insert(
                c.name,
                Plan {
                    depth,
                    target: c.target,
                    extents: c.extents,
                    size_text: c.size_text,
                    made: None,
                },
            );
        }
    }

    /// Called after the body of the loop: allocates the arrays it planned, before the loop
    /// (the loop statement itself is pushed next, into the same block).
    pub(super) fn leave_growth_loop(&mut self, span: Span) {
        let depth = self.growth.loops.len().saturating_sub(1);
        self.growth.loops.truncate(depth);
        let mine: Vec<String> = self
            .growth
            .plans
            .iter()
            .filter(|(_, p)| p.depth == depth)
            .map(|(n, _)| n.clone())
            .collect();
        for name in mine {
            let Some(plan) = self.growth.plans.remove(&name) else {
                continue;
            };
            let Some(made) = plan.made else { continue };
            self.open_block();
            self.alloc_zeros(made.array, made.rows, made.cols, None, span);
            let then_body = self.close_block();
            self.push(
                StmtKind::If {
                    cond: made.runs,
                    then_body,
                    else_body: Block::default(),
                },
                span,
            );
            self.growth.notes.push((
                plan.target,
                format!(
                    "{name}: allocated {} before the loop (grown by index in MATLAB)",
                    plan.size_text
                ),
            ));
        }
    }

    /// `y(...) = v` where `y` does not exist: the planned store of a loop nest, or a new array
    /// of the value's class grown to hold the element.
    pub(super) fn store_new(
        &mut self,
        base: &ast::Ident,
        args: &[ast::Expr],
        target_span: Span,
        value: &ast::Expr,
        span: Span,
    ) -> Option<StmtId> {
        if let [arg] = args {
            if let Some(range) = creating_range(arg) {
                return self.create_by_range(base, (arg, range), value, span);
            }
        }
        if !matches!(args.len(), 1 | 2) || args.iter().any(|a| matches!(a.kind, AstExpr::Colon)) {
            self.unsupported(
                target_span,
                &format!("creating `{}` by a slice or 3-D assignment", base.name),
                &format!(
                    "create it first with zeros of its final size, `{} = zeros(rows, cols);`",
                    base.name
                ),
            );
            return None;
        }
        if self.in_repeated_call() {
            self.error(
                "E0136",
                target_span,
                format!("`{}` is created by index in a local function called in a loop", base.name),
                format!("m2cu would keep `{0}` from one call to the next, where MATLAB starts each call without it: create it at its final size before it is assigned by index, `{0} = zeros(rows, cols);`", base.name),
            );
            return None;
        }
        let value = self.element_value(value)?;
        let class = self.exprs[value].ty.class;
        let planned = self
            .growth
            .plans
            .get(&base.name)
            .is_some_and(|p| p.target == target_span && p.made.is_none());
        let shape = match args.len() {
            1 => Shape::new(Dim::Known(1), Dim::Var),
            _ => Shape::new(Dim::Var, Dim::Var),
        };
        let ty = Type {
            complex: self.exprs[value].ty.complex,
            ..Type::array(class, shape)
        };
        let array = self.new_local(&base.name, ty, base.span);
        self.growth.grown.insert(array);
        if planned {
            self.make_planned(&base.name, array, span);
            let subs = self.subscripts(array, args)?;
            return self.push(
                StmtKind::Store {
                    array,
                    indices: array::scalar_subs(subs),
                    value,
                },
                span,
            );
        }
        let subs = self.subscripts(array, args)?;
        if !self.element_subscripts(&subs, array, target_span) {
            return None;
        }
        if self.scope.loop_depth > 0 {
            self.note_grown(&base.name, target_span);
        }
        self.grow_store(array, subs, value, span)
    }

    /// `y(a:b) = v` where `y` does not exist: a row of `v`'s class with zeros before `a` and
    /// `v` (a scalar, or as many elements as the range) in `a:b`. An empty range makes MATLAB's
    /// `y` 0-by-0, which a row cannot be: the program stops there
    /// (`RuntimeError::EmptyRangeCreation`). `y` grows later only when the file grows it
    /// (`Lowerer::grown`), so `y(1:n) = 0` before a loop is a plain allocation that keeps the
    /// loop's verdict.
    fn create_by_range(
        &mut self,
        base: &ast::Ident,
        (arg, (start, stop)): (&ast::Expr, (&ast::Expr, &ast::Expr)),
        value: &ast::Expr,
        span: Span,
    ) -> Option<StmtId> {
        let val = self.value(value)?;
        let class = super::expr::val_class(self, &val);
        let first = self.scalar_expr(start, "a subscript")?;
        let stop = self.scalar_expr(stop, "a subscript")?;
        let one = self.constant_expr(1.0, Class::Double, span);
        let double = Type::scalar(Class::Double);
        let count = self.new_expr(ExprKind::RangeCount(first, one, stop), double, span);
        let count_temp = self.temp("g", double, span);
        self.push(
            StmtKind::Assign {
                target: count_temp,
                value: count,
            },
            span,
        );
        let c = self.read_local(count_temp, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let nonempty = self.binary_expr(BinOp::Gt, c, zero, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond: nonempty,
                error: RuntimeError::EmptyRangeCreation,
            },
            span,
        );
        // 1-by-(first + count - 1): up to the range's last element.
        let first_again = self.copy_expr(first);
        let c = self.read_local(count_temp, span);
        let past = self.binary_expr(BinOp::Add, first_again, c, Class::Double, span);
        let cols = self.binary_expr(BinOp::Sub, past, one, Class::Double, span);
        let rows = self.constant_expr(1.0, Class::Double, span);
        let shape = Shape::new(Dim::Known(1), Dim::Var);
        let array = self.new_local(&base.name, Type::array(class, shape), base.span);
        if self.scope.names_used.grown.contains(&base.name) {
            self.growth.grown.insert(array);
        }
        self.alloc_zeros(array, rows, cols, None, span);
        let subs = self.subscripts(array, std::slice::from_ref(arg))?;
        let slice = self.slice(array, subs, span);
        self.store_slice(array, slice, val, span)
    }

    /// Whether `subs` name one element of a 2-D array; otherwise E0103 (MATLAB would grow
    /// `array` by a slice, which m2cu does only element by element).
    fn element_subscripts(&mut self, subs: &[Sub], array: LocalId, span: Span) -> bool {
        let element = subs.len() <= 2 && subs.iter().all(|s| matches!(s, Sub::Scalar(_)));
        if !element {
            self.unsupported(
                span,
                &format!(
                    "assigning a slice of `{}`, an array created by index or `[]`",
                    self.locals[array].name
                ),
                "assign its elements one by one in a loop",
            );
        }
        element
    }

    /// The extents and the "every loop runs" condition of the planned array `name`.
    fn make_planned(&mut self, name: &str, array: LocalId, span: Span) {
        let Some(plan) = self.growth.plans.get(name) else {
            return;
        };
        let (depth, extents) = (plan.depth, plan.extents);
        let rows = self.final_extent(extents[0], depth, span);
        let cols = self.final_extent(extents[1], depth, span);
        let mut runs = None;
        for level in depth..self.growth.loops.len() {
            let (start, stop) = self.bounds_copy(level);
            let le = self.binary_expr(BinOp::Le, start, stop, Class::Logical, span);
            runs = Some(match runs {
                Some(before) => self.binary_expr(BinOp::AndAnd, before, le, Class::Logical, span),
                None => le,
            });
        }
        let Some(runs) = runs else {
            return;
        };
        if let Some(plan) = self.growth.plans.get_mut(name) {
            plan.made = Some(Made {
                array,
                rows,
                cols,
                runs,
            });
        }
    }

    fn bounds_copy(&mut self, level: usize) -> (ExprId, ExprId) {
        let b = &self.growth.loops[level];
        let (start, stop) = (b.start, b.stop);
        (self.copy_expr(start), self.copy_expr(stop))
    }

    /// An extent as an expression: the constant, or `start + floor(stop - start) + offset`
    /// (the last value of a loop with step 1).
    fn final_extent(&mut self, extent: Extent, depth: usize, span: Span) -> ExprId {
        let (level, offset) = match extent {
            Extent::Const(k) => return self.constant_expr(k, Class::Double, span),
            Extent::Last { level, offset } => (level, offset),
        };
        let (start, stop) = self.bounds_copy(depth + level);
        let start_again = self.copy_expr(start);
        let double = Type::scalar(Class::Double);
        let span_of = self.binary_expr(BinOp::Sub, stop, start, Class::Double, span);
        let whole = self.new_expr(ExprKind::Call(Builtin::Floor, vec![span_of]), double, span);
        let last = self.binary_expr(BinOp::Add, start_again, whole, Class::Double, span);
        let offset = self.constant_expr(offset, Class::Double, span);
        self.binary_expr(BinOp::Add, last, offset, Class::Double, span)
    }

    pub(super) fn note_grown(&mut self, name: &str, span: Span) {
        let note = (
            span,
            format!("{name}: grown inside the loop, on the host (its capacity doubles); the loop stays sequential"),
        );
        if !self.growth.notes.contains(&note) {
            self.growth.notes.push(note);
        }
    }

    /// Whether a store into `array` grows it when it writes past the end.
    pub(super) fn grows_by_index(&self, array: LocalId) -> bool {
        self.growth.grown.contains(&array)
    }

    /// Whether joining `item_class` values to `array` (of `class`) keeps its class, as m2cu
    /// needs; reports E0104 when it does not.
    pub(super) fn joined_class_kept(
        &mut self,
        item_class: Class,
        class: Class,
        array: LocalId,
        span: Span,
    ) -> bool {
        let keeps = item_class == class
            || (matches!(item_class, Class::Double | Class::Logical)
                && !matches!(class, Class::Logical | Class::Char));
        if !keeps {
            let name = self.locals[array].name.clone();
            self.error(
                "E0104",
                span,
                format!("`{name}` was {class} but joining {item_class} values makes it {item_class}"),
                format!("m2cu keeps one class per variable, and MATLAB makes `{name}` {item_class} here: collect the {item_class} values in a variable of their own"),
            );
        }
        keeps
    }

    /// Marks `array` as created to be grown: a scalar store past its end grows it.
    pub(super) fn growth_start(&mut self, array: LocalId) {
        self.growth.grown.insert(array);
    }

    /// `z(m, n) = 0` into an existing matrix whose extents may change: MATLAB's idiom for
    /// "make `z` at least m-by-n, keeping its elements".
    pub(super) fn may_grow_by_idiom(
        &self,
        array: LocalId,
        args: &[ast::Expr],
        value: &ast::Expr,
    ) -> bool {
        let shape = self.locals[array].ty.shape;
        self.scope.loop_depth == 0
            && allocation_idiom(args, value)
            && shape.rows == Dim::Var
            && shape.cols == Dim::Var
    }

    /// `A(k) = v` or `A(i, j) = v` into an array created by index: lowers the subscripts and
    /// the value, then grows `A` to hold the element and stores it. Slices are not grown.
    pub(super) fn store_growing(
        &mut self,
        array: LocalId,
        args: &[ast::Expr],
        target_span: Span,
        value: &ast::Expr,
        span: Span,
    ) -> Option<StmtId> {
        let subs = self.subscripts(array, args)?;
        if !self.element_subscripts(&subs, array, target_span) {
            return None;
        }
        let value = self.element_value(value)?;
        if self.within_extent(array, &subs) {
            let value = self.stored_value(array, value);
            let indices = array::scalar_subs(subs);
            return self.push(
                StmtKind::Store {
                    array,
                    indices,
                    value,
                },
                span,
            );
        }
        if self.scope.loop_depth > 0 {
            let name = self.locals[array].seen_name().to_string();
            self.note_grown(&name, target_span);
        }
        self.grow_store(array, subs, value, span)
    }

    /// `y(k) = v` in `for k = s:numel(y)` (or `length(y)`) with `s >= 1` whose body keeps
    /// the extents of `y`: the element exists, so the store needs no growth (and the loop
    /// keeps its verdict).
    fn within_extent(&self, array: LocalId, subs: &[Sub]) -> bool {
        let ([Sub::Scalar(k)], Some(b)) = (subs, self.growth.loops.last()) else {
            return false;
        };
        let by_var = matches!(self.exprs[*k].kind, ExprKind::Local(v) if Some(v) == b.var);
        let to_extent = matches!(self.exprs[b.stop].kind,
            ExprKind::Size(a, SizeQuery::Numel | SizeQuery::Length) if a == array);
        let kept = b
            .kept
            .iter()
            .any(|n| self.scope.names.get(n) == Some(&array));
        by_var && to_extent && kept && self.const_of(b.start).is_some_and(|s| s >= 1.0)
    }

    /// Grows `array` to hold the element at `subs` (all scalar), then stores `value` there.
    fn grow_store(
        &mut self,
        array: LocalId,
        subs: Vec<Sub>,
        value: ExprId,
        span: Span,
    ) -> Option<StmtId> {
        let double = Type::scalar(Class::Double);
        let mut at = Vec::new();
        let mut ones = Vec::new();
        for e in array::scalar_subs(subs) {
            ones.push(self.const_of(e) == Some(1.0));
            let k = self.temp("g", double, span);
            self.push(
                StmtKind::Assign {
                    target: k,
                    value: e,
                },
                span,
            );
            at.push(k);
        }
        let value = self.stored_value(array, value);
        let v = self.temp("t", self.element_of(array), span);
        self.push(StmtKind::Assign { target: v, value }, span);
        match at.as_slice() {
            [k] => self.grow_linear(array, *k, span),
            [i, j] => self.grow_matrix(array, (*i, *j), (ones[0], ones[1]), span)?,
            _ => return None,
        }
        let indices = at
            .iter()
            .map(|k| self.new_expr(ExprKind::Local(*k), double, span))
            .collect();
        let value = self.new_expr(ExprKind::Local(v), self.locals[v].ty, span);
        self.push(
            StmtKind::Store {
                array,
                indices,
                value,
            },
            span,
        )
    }

    /// `A(k) = v` past the end: a row (or an empty or 1-by-1 array) becomes 1-by-k, a column
    /// k-by-1; a matrix is MATLAB's error "Attempt to grow array along ambiguous dimension".
    fn grow_linear(&mut self, array: LocalId, k: LocalId, span: Span) {
        let shape = self.locals[array].ty.shape;
        let past = {
            let kv = self.read_local(k, span);
            let numel = self.size_expr(array, SizeQuery::Numel, span);
            self.binary_expr(BinOp::Gt, kv, numel, Class::Logical, span)
        };
        self.open_block();
        if shape.rows == Dim::Known(1) {
            self.resize_to(array, Extent1::One, Extent1::To(k), span);
        } else if shape.cols == Dim::Known(1) {
            self.resize_to(array, Extent1::To(k), Extent1::One, span);
        } else {
            let row_ok = self.extent_compare(array, SizeQuery::Dim(1), (BinOp::Le, 1.0), span);
            let col_ok = self.extent_compare(array, SizeQuery::Dim(2), (BinOp::Le, 1.0), span);
            let vector = self.binary_expr(BinOp::OrOr, row_ok, col_ok, Class::Logical, span);
            self.push(
                StmtKind::Check {
                    cond: vector,
                    error: RuntimeError::AmbiguousGrowth,
                },
                span,
            );
            let column = self.is_column(array, span);
            self.open_block();
            self.resize_to(array, Extent1::To(k), Extent1::One, span);
            let then_body = self.close_block();
            self.open_block();
            self.resize_to(array, Extent1::One, Extent1::To(k), span);
            let else_body = self.close_block();
            self.push(
                StmtKind::If {
                    cond: column,
                    then_body,
                    else_body,
                },
                span,
            );
        }
        let then_body = self.close_block();
        self.push(
            StmtKind::If {
                cond: past,
                then_body,
                else_body: Block::default(),
            },
            span,
        );
    }

    /// `size(A, 2) == 1 && size(A, 1) > 1`.
    fn is_column(&mut self, array: LocalId, span: Span) -> ExprId {
        let single_col = self.extent_compare(array, SizeQuery::Dim(2), (BinOp::Eq, 1.0), span);
        let many_rows = self.extent_compare(array, SizeQuery::Dim(1), (BinOp::Gt, 1.0), span);
        self.binary_expr(BinOp::AndAnd, single_col, many_rows, Class::Logical, span)
    }

    /// `size(array, d) OP k` (or `numel(array) OP k`).
    fn extent_compare(
        &mut self,
        array: LocalId,
        query: SizeQuery,
        (op, k): (BinOp, f64),
        span: Span,
    ) -> ExprId {
        let extent = self.size_expr(array, query, span);
        let k = self.constant_expr(k, Class::Double, span);
        self.binary_expr(op, extent, k, Class::Logical, span)
    }

    /// `A(i, j) = v`: grows each extent to hold the element. A row or column keeps its
    /// extent 1 (E0135 when the subscript there is not the constant 1).
    fn grow_matrix(
        &mut self,
        array: LocalId,
        (i, j): (LocalId, LocalId),
        ones: (bool, bool),
        span: Span,
    ) -> Option<()> {
        let shape = self.locals[array].ty.shape;
        for (extent, one) in [(shape.rows, ones.0), (shape.cols, ones.1)] {
            if extent == Dim::Known(1) && !one {
                let name = self.locals[array].name.clone();
                self.error(
                    "E0135",
                    span,
                    format!("`{name}` was created as a vector, and this assignment may make it a matrix"),
                    format!("create `{name}` as a matrix from the start: write `{name}(i, j) = v` in its first assignment too, or `{name} = zeros(rows, cols);` before"),
                );
                return None;
            }
        }
        let extent = |d: Dim, k: LocalId| match d {
            Dim::Known(1) => Extent1::One,
            _ => Extent1::AtLeast(k),
        };
        self.resize_to(array, extent(shape.rows, i), extent(shape.cols, j), span);
        Some(())
    }

    fn resize_to(&mut self, array: LocalId, rows: Extent1, cols: Extent1, span: Span) {
        let rows = self.extent1(array, rows, SizeQuery::Dim(1), span);
        let cols = self.extent1(array, cols, SizeQuery::Dim(2), span);
        self.push(StmtKind::Resize { array, rows, cols }, span);
    }

    fn extent1(&mut self, array: LocalId, e: Extent1, query: SizeQuery, span: Span) -> ExprId {
        match e {
            Extent1::One => self.constant_expr(1.0, Class::Double, span),
            Extent1::To(k) => self.read_local(k, span),
            Extent1::AtLeast(k) => {
                let now = self.size_expr(array, query, span);
                let kv = self.read_local(k, span);
                let double = Type::scalar(Class::Double);
                self.new_expr(ExprKind::Call(Builtin::Max, vec![now, kv]), double, span)
            }
        }
    }

    fn size_expr(&mut self, array: LocalId, query: SizeQuery, span: Span) -> ExprId {
        self.new_expr(
            ExprKind::Size(array, query),
            Type::scalar(Class::Double),
            span,
        )
    }

    /// `y = zeros(1, 0)` (any fill of a `shape` known to be empty) where the file appends to
    /// `y`: the new value grows like `y = []` does (its type has the extents of a grown
    /// array, see `new_local`).
    pub(super) fn start_empty(&mut self, name: &str, target: LocalId, shape: Shape) {
        let empty = shape.rows == Dim::Known(0) || shape.cols == Dim::Known(0);
        if empty && self.scope.names_used.grown.contains(name) {
            self.growth.grown.insert(target);
        }
    }

    /// `y = []` (`class` double) or `y = ''` (char): an empty 0-by-0 array that later
    /// assignments grow.
    pub(super) fn assign_empty(
        &mut self,
        name: &ast::Ident,
        class: Class,
        span: Span,
    ) -> Option<StmtId> {
        let ty = Type::array(class, Shape::new(Dim::Var, Dim::Var));
        let target = self.define(name, ty)?;
        let rows = self.constant_expr(0.0, Class::Double, span);
        let cols = self.constant_expr(0.0, Class::Double, span);
        self.growth_start(target);
        self.alloc_zeros(target, rows, cols, None, span);
        self.emitted.last().and_then(|block| block.last().copied())
    }

    /// `y = [y, v]` or `y = [y; v]` with `y` created by index or `[]` and `v` not mentioning
    /// it: appends `v` in place. `None` when the statement has another form (the caller lowers
    /// it as a concatenation).
    pub(super) fn append(
        &mut self,
        name: &ast::Ident,
        value: &ast::Expr,
        span: Span,
    ) -> Option<Option<StmtId>> {
        let (item, across, side) = appended(&name.name, value)?;
        let array = self.scope.names.get(&name.name).copied()?;
        if !self.grows_by_index(array) || mentions(&item, &name.name) {
            return None;
        }
        let ty = self.locals[array].ty;
        let growing = if across { ty.shape.cols } else { ty.shape.rows };
        if growing != Dim::Var {
            return None;
        }
        let Some(item) = self.value(&item) else {
            return Some(None);
        };
        let item_class = match &item {
            Val::Scalar(e) => self.exprs[*e].ty.class,
            Val::Array(a) => a.class,
        };
        if !self.joined_class_kept(item_class, ty.class, array, name.span) {
            return Some(None);
        }
        if side == Side::Front && !is_vector_item(&item, across) {
            // A block of several rows (columns) in front of a matrix: joined as a copy.
            let whole = Val::Array(self.whole(array, span));
            let Some(joined) = self.join(vec![item, whole], ty.class, across, span) else {
                return Some(None);
            };
            return Some(self.assign_val(name, joined, span));
        }
        if self.scope.loop_depth > 0 {
            let local_name = self.locals[array].seen_name().to_string();
            self.note_grown(&local_name, span);
        }
        Some(match (side, item) {
            (Side::Front, item) => self.prepend(array, item, across, span),
            (Side::Back, Val::Scalar(e)) => self.append_scalar(array, e, across, span),
            (Side::Back, Val::Array(a)) => self.append_array(array, a, across, span),
        })
    }

    /// `y = [v, y]` (`across`) or `y = [v; y]`, `v` a scalar or a vector along the joining
    /// direction (`is_vector_item`): grows `y`, moves its elements up by `v`'s count
    /// (last first, so none is overwritten before it moves), and writes `v` in front. `y` is
    /// then a vector or empty, so its linear order is its order along the joining direction.
    fn prepend(&mut self, array: LocalId, item: Val, across: bool, span: Span) -> Option<StmtId> {
        let (kept, added) = match &item {
            Val::Scalar(_) => {
                let one = self.constant_expr(1.0, Class::Double, span);
                (one, self.constant_expr(1.0, Class::Double, span))
            }
            Val::Array(a) if across => (self.copy_expr(a.rows), self.copy_expr(a.cols)),
            Val::Array(a) => (self.copy_expr(a.cols), self.copy_expr(a.rows)),
        };
        self.check_fits(array, across, kept, span);
        let double = Type::scalar(Class::Double);
        let (before, count, total) = (
            self.temp("g", double, span),
            self.temp("g", double, span),
            self.temp("g", double, span),
        );
        let numel = self.size_expr(array, SizeQuery::Numel, span);
        self.push(
            StmtKind::Assign {
                target: before,
                value: numel,
            },
            span,
        );
        self.push(
            StmtKind::Assign {
                target: count,
                value: added,
            },
            span,
        );
        let (b, c) = (self.read_local(before, span), self.read_local(count, span));
        let sum = self.binary_expr(BinOp::Add, b, c, Class::Double, span);
        self.push(
            StmtKind::Assign {
                target: total,
                value: sum,
            },
            span,
        );
        if across {
            self.resize_to(array, Extent1::One, Extent1::To(total), span);
        } else {
            self.resize_to(array, Extent1::To(total), Extent1::One, span);
        }
        self.move_up(array, (before, count), span);
        let one = self.constant_expr(1.0, Class::Double, span);
        match item {
            Val::Scalar(e) => {
                let value = self.stored_value(array, e);
                self.push(
                    StmtKind::Store {
                        array,
                        indices: vec![one],
                        value,
                    },
                    span,
                )
            }
            Val::Array(a) => {
                let (step, stop) = (one, self.read_local(count, span));
                let start = self.constant_expr(1.0, Class::Double, span);
                let range = Sub::Range { start, step, stop };
                let slice = self.slice(array, vec![range], span);
                self.store_slice(array, slice, Val::Array(a), span)
            }
        }
    }

    /// `for k = 1:before, y(before + count + 1 - k) = y(before + 1 - k); end`.
    fn move_up(&mut self, array: LocalId, (before, count): (LocalId, LocalId), span: Span) {
        let double = Type::scalar(Class::Double);
        let k = self.temp("k", double, span);
        let from = |me: &mut Self| {
            let b = me.read_local(before, span);
            let one = me.constant_expr(1.0, Class::Double, span);
            let past = me.binary_expr(BinOp::Add, b, one, Class::Double, span);
            let kv = me.read_local(k, span);
            me.binary_expr(BinOp::Sub, past, kv, Class::Double, span)
        };
        self.open_block();
        let source = from(self);
        let c = self.read_local(count, span);
        let dest = from(self);
        let dest = self.binary_expr(BinOp::Add, dest, c, Class::Double, span);
        let element = Type::scalar(self.locals[array].ty.class);
        let value = self.new_expr(ExprKind::Index(array, vec![source]), element, span);
        self.push(
            StmtKind::Store {
                array,
                indices: vec![dest],
                value,
            },
            span,
        );
        let body = self.close_block();
        let n = self.read_local(before, span);
        self.emit_for(k, n, body, span);
    }

    /// Appends the array `a` to `array` along columns (`across`) or rows: MATLAB's `[y, a]` /
    /// `[y; a]`, written into the new columns (rows) in place.
    fn append_array(
        &mut self,
        array: LocalId,
        a: ArrayVal,
        across: bool,
        span: Span,
    ) -> Option<StmtId> {
        self.reject_3d(&a, "joining a 3-D array to an array grown by index")?;
        let kept_dim = if across { a.shape.rows } else { a.shape.cols };
        if matches!(kept_dim, Dim::Known(n) if n > 0) {
            // An empty item (`1-by-0` joined across) adds nothing by itself.
            return self.append_nonempty(array, a, across, span);
        }
        // An item that may be empty with no rows to keep (`[s, d]` with `d = ''`, 0-by-0)
        // adds nothing when it is empty, as Octave skips it.
        let count = self.numel_expr(&a, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let some = self.binary_expr(BinOp::Gt, count, zero, Class::Logical, span);
        let mut appended = None;
        self.emit_if(some, span, |me| {
            appended = me.append_nonempty(array, a, across, span);
        });
        appended?;
        self.emitted.last().and_then(|block| block.last().copied())
    }

    /// [`Self::append_array`] of an item that holds elements or keeps the array's rows
    /// (columns).
    fn append_nonempty(
        &mut self,
        array: LocalId,
        a: ArrayVal,
        across: bool,
        span: Span,
    ) -> Option<StmtId> {
        // `[y, a]` keeps the rows (they must match) and adds `a`'s columns; `[y; a]` the reverse.
        let (kept_e, added_e) = if across {
            (a.rows, a.cols)
        } else {
            (a.cols, a.rows)
        };
        let kept = self.copy_expr(kept_e);
        self.check_fits(array, across, kept, span);
        let along = if across {
            SizeQuery::Dim(2)
        } else {
            SizeQuery::Dim(1)
        };
        let double = Type::scalar(Class::Double);
        let before = self.temp("g", double, span);
        let now = self.size_expr(array, along, span);
        self.push(
            StmtKind::Assign {
                target: before,
                value: now,
            },
            span,
        );
        let b = self.read_local(before, span);
        let added = self.copy_expr(added_e);
        let grown = self.binary_expr(BinOp::Add, b, added, Class::Double, span);
        let shape = self.locals[array].ty.shape;
        let kept_dim = if across { shape.rows } else { shape.cols };
        let other = match kept_dim {
            Dim::Known(1) => self.constant_expr(1.0, Class::Double, span),
            _ => self.copy_expr(kept_e),
        };
        let (rows, cols) = if across {
            (other, grown)
        } else {
            (grown, other)
        };
        self.push(StmtKind::Resize { array, rows, cols }, span);
        let b = self.read_local(before, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let start = self.binary_expr(BinOp::Add, b, one, Class::Double, span);
        let b = self.read_local(before, span);
        let count = self.copy_expr(added_e);
        let stop = self.binary_expr(BinOp::Add, b, count, Class::Double, span);
        let step = self.constant_expr(1.0, Class::Double, span);
        let range = Sub::Range { start, step, stop };
        let subs = if across {
            vec![Sub::All, range]
        } else {
            vec![range, Sub::All]
        };
        let slice = self.slice(array, subs, span);
        self.store_slice(array, slice, Val::Array(a), span)
    }

    /// MATLAB's rule for `[y, v]`: `y` has as many rows as `v` (`[y; v]`: columns), unless `y`
    /// is 0-by-0; `kept` is `v`'s extent there.
    fn check_fits(&mut self, array: LocalId, across: bool, kept: ExprId, span: Span) {
        let query = if across {
            SizeQuery::Dim(1)
        } else {
            SizeQuery::Dim(2)
        };
        let now = self.size_expr(array, query, span);
        let same = self.binary_expr(BinOp::Eq, now, kept, Class::Logical, span);
        let no_rows = self.extent_compare(array, SizeQuery::Dim(1), (BinOp::Eq, 0.0), span);
        let no_cols = self.extent_compare(array, SizeQuery::Dim(2), (BinOp::Eq, 0.0), span);
        let empty = self.binary_expr(BinOp::AndAnd, no_rows, no_cols, Class::Logical, span);
        let fits = self.binary_expr(BinOp::OrOr, same, empty, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond: fits,
                error: RuntimeError::ConcatenationMismatch,
            },
            span,
        );
    }

    /// Appends the scalar `value` to `array` along columns (`across`) or rows.
    fn append_scalar(
        &mut self,
        array: LocalId,
        value: ExprId,
        across: bool,
        span: Span,
    ) -> Option<StmtId> {
        let value = self.stored_value(array, value);
        let v = self.temp("t", self.element_of(array), span);
        self.push(StmtKind::Assign { target: v, value }, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        self.check_fits(array, across, one, span);
        let double = Type::scalar(Class::Double);
        let k = self.temp("g", double, span);
        let numel = self.size_expr(array, SizeQuery::Numel, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let next = self.binary_expr(BinOp::Add, numel, one, Class::Double, span);
        self.push(
            StmtKind::Assign {
                target: k,
                value: next,
            },
            span,
        );
        if across {
            self.resize_to(array, Extent1::One, Extent1::To(k), span);
        } else {
            self.resize_to(array, Extent1::To(k), Extent1::One, span);
        }
        let kv = self.read_local(k, span);
        let vv = self.read_local(v, span);
        self.push(
            StmtKind::Store {
                array,
                indices: vec![kv],
                value: vv,
            },
            span,
        )
    }
}

/// One extent of a `Resize`.
#[derive(Clone, Copy)]
enum Extent1 {
    One,
    /// The value of a temporary.
    To(LocalId),
    /// The larger of the current extent and a temporary.
    AtLeast(LocalId),
}

/// Where `[y, v]` / `[v, y]` puts the item `v`.
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Back,
    Front,
}

/// `[y, v...]` (`across`) or `[y; v...]`: the appended item (`[v...]` when it has several
/// parts); also `[v, y]` / `[v; y]` with `v` one item that is not a matrix literal of several
/// rows (`[v; w; y]` and `[a, b, y]` are left to concatenation).
fn appended(name: &str, value: &ast::Expr) -> Option<(ast::Expr, bool, Side)> {
    let AstExpr::Matrix(rows) = &strip_parens(value).kind else {
        return None;
    };
    let is_name = |e: &ast::Expr| matches!(&e.kind, AstExpr::Ident(n) if n == name);
    let joined = |rows: Vec<Vec<ast::Expr>>| match rows.as_slice() {
        [row] if row.len() == 1 => row[0].clone(),
        _ => ast::Expr {
            kind: AstExpr::Matrix(rows),
            span: value.span,
        },
    };
    match rows.as_slice() {
        [row] => match row.as_slice() {
            [first, rest @ ..] if is_name(first) && !rest.is_empty() => {
                Some((joined(vec![rest.to_vec()]), true, Side::Back))
            }
            [v, y] if is_name(y) && !is_name(v) => Some((v.clone(), true, Side::Front)),
            _ => None,
        },
        [first, rest @ ..] if !rest.is_empty() => match (first.as_slice(), rest) {
            ([y], _) if is_name(y) => Some((joined(rest.to_vec()), false, Side::Back)),
            ([v], [last]) if matches!(last.as_slice(), [y] if is_name(y)) && !is_name(v) => {
                Some((v.clone(), false, Side::Front))
            }
            _ => None,
        },
        _ => None,
    }
}

/// The names that one of `functions` appends to with `y = [y, v]` / `y = [y; v]`:
/// their extents vary, and an empty `zeros`/`ones` start of one grows (`Growth::grown`).
pub(super) fn appended_names(functions: &[ast::Function]) -> HashSet<String> {
    let mut out = HashSet::new();
    for_each_function(functions, &mut |f| {
        walk_stmts(&f.body, &mut |s| {
            if let AstStmt::Assign { targets, value } = &s.kind {
                if let [ast::LValue::Var(name)] = targets.as_slice() {
                    let item = appended(&name.name, value);
                    if item.is_some_and(|(item, _, _)| !mentions(&item, &name.name)) {
                        out.insert(name.name.clone());
                    }
                }
            }
        })
    });
    out
}

/// `a:b` (no step, no `end`) as the only subscript of an assignment that creates an array.
fn creating_range(arg: &ast::Expr) -> Option<(&ast::Expr, &ast::Expr)> {
    let AstExpr::Range {
        start,
        step: None,
        stop,
    } = &strip_parens(arg).kind
    else {
        return None;
    };
    (!bare_end(start) && !bare_end(stop)).then_some((start.as_ref(), stop.as_ref()))
}

/// Whether `e` has an `end` that refers to the array it subscripts (one outside any call or
/// index of its own).
fn bare_end(e: &ast::Expr) -> bool {
    match &e.kind {
        AstExpr::End => true,
        AstExpr::Paren(inner) => bare_end(inner),
        AstExpr::Unary { operand, .. } | AstExpr::Postfix { operand, .. } => bare_end(operand),
        AstExpr::Binary { lhs, rhs, .. } => bare_end(lhs) || bare_end(rhs),
        AstExpr::Matrix(rows) => rows.iter().flatten().any(bare_end),
        _ => false,
    }
}

/// Whether `item`, put in front of an array grown by index, is a scalar or a vector along the
/// joining direction (a row for `[v, y]`), so that `prepend` can move `y`'s elements linearly.
fn is_vector_item(item: &Val, across: bool) -> bool {
    match item {
        Val::Scalar(_) => true,
        Val::Array(a) if across => a.shape.rows == Dim::Known(1),
        Val::Array(a) => a.shape.cols == Dim::Known(1),
    }
}

/// `z(m, n) = 0`: two subscripts that are not `:`, and the value the literal 0.
fn allocation_idiom(args: &[ast::Expr], value: &ast::Expr) -> bool {
    let zero = matches!(strip_parens(value).kind, AstExpr::Number { value, .. } if value == 0.0);
    let scalar = |a: &ast::Expr| !matches!(a.kind, AstExpr::Colon | AstExpr::Range { .. });
    zero && args.len() == 2 && args.iter().all(scalar)
}

/// The names that one of `functions` assigns with the allocation idiom `z(m, n) = 0`
/// outside loops and branches (in a loop, `A(i, j) = 0` writes an element).
pub(super) fn allocation_idiom_names(functions: &[ast::Function]) -> HashSet<String> {
    let mut out = HashSet::new();
    for_each_function(functions, &mut |f| {
        for s in &f.body {
            if let AstStmt::Assign { targets, value } = &s.kind {
                if let [ast::LValue::Index { base, args, .. }] = targets.as_slice() {
                    if allocation_idiom(args, value) {
                        out.insert(base.name.clone());
                    }
                }
            }
        }
    });
    out
}

/// Whether `e` is `[]`.
pub(super) fn is_empty_matrix(e: &ast::Expr) -> bool {
    matches!(&strip_parens(e).kind, AstExpr::Matrix(rows) if rows.iter().all(|r| r.is_empty()))
}

/// Whether `body` has a `break`, `continue` or `return` anywhere.
fn exits(body: &[ast::Stmt]) -> bool {
    let mut found = false;
    walk_stmts(body, &mut |s| {
        found |= matches!(s.kind, AstStmt::Break | AstStmt::Continue | AstStmt::Return);
    });
    found
}

/// The names that `body` assigns (targets and loop variables).
pub(super) fn assigned_names(body: &[ast::Stmt]) -> HashSet<String> {
    let mut out = HashSet::new();
    walk_stmts(body, &mut |s| match &s.kind {
        AstStmt::Assign { targets, .. } => {
            for t in targets {
                if let ast::LValue::Var(n) | ast::LValue::Index { base: n, .. } = t {
                    out.insert(n.name.clone());
                }
            }
        }
        AstStmt::For { var, .. } => {
            out.insert(var.name.clone());
        }
        _ => {}
    });
    out
}

/// The names that `body` assigns only by `y(var) = v` (so their extents stay).
fn extents_kept(body: &[ast::Stmt], var: &str) -> HashSet<String> {
    let mut kept = HashSet::new();
    let mut changed = HashSet::new();
    walk_stmts(body, &mut |s| {
        let AstStmt::Assign { targets, .. } = &s.kind else {
            return;
        };
        for t in targets {
            match t {
                ast::LValue::Index { base, args, .. } if matches!(args.as_slice(), [a] if matches!(&a.kind, AstExpr::Ident(n) if n == var)) =>
                {
                    kept.insert(base.name.clone());
                }
                ast::LValue::Index { base: n, .. }
                | ast::LValue::Var(n)
                | ast::LValue::Content { base: n, .. }
                | ast::LValue::ElementField { base: n, .. } => {
                    changed.insert(n.name.clone());
                }
                ast::LValue::Ignore(_) => {}
            }
        }
    });
    kept.retain(|n| !changed.contains(n));
    kept
}

/// Whether `body` assigns `name` exactly once, by index, and never reads it.
fn stored_once(body: &[ast::Stmt], name: &str) -> bool {
    let mut stores = 0;
    let mut other = false;
    walk_stmts(body, &mut |s| match &s.kind {
        AstStmt::Assign { targets, .. } => {
            for t in targets {
                match t {
                    ast::LValue::Index { base, .. } if base.name == name => stores += 1,
                    ast::LValue::Var(n) if n.name == name => other = true,
                    _ => {}
                }
            }
        }
        AstStmt::For { var, .. } => other |= var.name == name,
        _ => {}
    });
    stores == 1 && !other && !read_outside(body, name)
}

/// What the search for planned stores knows about the outermost loop.
struct Nest<'n> {
    /// The names its body assigns.
    assigned: &'n HashSet<String>,
    /// Whether a name is a variable or a constant before the loop.
    known: &'n dyn Fn(&str) -> bool,
}

impl Nest<'_> {
    /// The stores at the top of `body` and of a perfect nest of `for` loops in it whose
    /// subscripts follow from the loop variables of `path`.
    fn candidates(&self, body: &[ast::Stmt], path: &Path<'_>, out: &mut Vec<Candidate>) {
        for s in body {
            match &s.kind {
                AstStmt::Assign { targets, .. } => {
                    if let [ast::LValue::Index { base, args, span }] = targets.as_slice() {
                        if let Some(c) = candidate(base, args, *span, path) {
                            out.push(c);
                        }
                    }
                }
                AstStmt::For { var, range, body } => {
                    let AstExpr::Range {
                        start,
                        step: None,
                        stop,
                    } = &strip_parens(range).kind
                    else {
                        continue;
                    };
                    let hoistable = |e: &ast::Expr| {
                        self.simple_bound(e)
                            && !self.assigned.iter().any(|n| mentions(e, n))
                            && !path.iter().any(|(v, _)| mentions(e, v))
                    };
                    if hoistable(start) && hoistable(stop) {
                        let mut inner = path.clone();
                        inner.push((var.name.as_str(), ast_source::print_expr_source(stop)));
                        self.candidates(body, &inner, out);
                    }
                }
                _ => {}
            }
        }
    }

    /// A loop bound that computes the same value wherever it is evaluated: numbers, variables
    /// known before the loop, `numel`/`length`/`size` of them and `+ - *` of these.
    fn simple_bound(&self, e: &ast::Expr) -> bool {
        let known = |e: &ast::Expr| match &e.kind {
            AstExpr::Number { .. } => true,
            AstExpr::Ident(n) => (self.known)(n),
            _ => false,
        };
        match &e.kind {
            AstExpr::Paren(inner) => self.simple_bound(inner),
            AstExpr::Unary {
                op: UnaryOp::Neg | UnaryOp::Plus,
                operand,
            } => self.simple_bound(operand),
            AstExpr::Binary { op, lhs, rhs } => {
                matches!(
                    op,
                    BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul | BinaryOp::ElemMul
                ) && self.simple_bound(lhs)
                    && self.simple_bound(rhs)
            }
            AstExpr::Call { callee, args } => {
                matches!(callee.name.as_str(), "numel" | "length" | "size")
                    && !(self.known)(&callee.name)
                    && args.iter().all(known)
            }
            _ => known(e),
        }
    }
}

fn candidate(
    base: &ast::Ident,
    args: &[ast::Expr],
    target: Span,
    path: &Path<'_>,
) -> Option<Candidate> {
    if base.name.contains('.') {
        return None;
    }
    let extents = match args {
        [k] => [Extent::Const(1.0), affine(k, path)?],
        [i, j] => [subscript_extent(i, path)?, subscript_extent(j, path)?],
        _ => return None,
    };
    let text = |e: Extent| match e {
        Extent::Const(k) => format!("{k}"),
        Extent::Last { level, offset } => {
            let last = &path[level].1;
            match offset {
                o if o > 0.0 => format!("({last} + {o})"),
                o if o < 0.0 => format!("({last} - {})", -o),
                _ => last.clone(),
            }
        }
    };
    Some(Candidate {
        name: base.name.clone(),
        target,
        extents,
        size_text: format!("{}-by-{}", text(extents[0]), text(extents[1])),
    })
}

fn subscript_extent(e: &ast::Expr, path: &Path<'_>) -> Option<Extent> {
    match integer(e) {
        Some(k) if k >= 1.0 => Some(Extent::Const(k)),
        Some(_) => None,
        None => affine(e, path),
    }
}

/// `v`, `v + c`, `c + v` or `v - c` with `v` a loop variable of `path` and `c` an integer.
fn affine(e: &ast::Expr, path: &Path<'_>) -> Option<Extent> {
    let level_of = |e: &ast::Expr| match &strip_parens(e).kind {
        AstExpr::Ident(n) => path.iter().position(|(v, _)| v == n),
        _ => None,
    };
    if let Some(level) = level_of(e) {
        return Some(Extent::Last { level, offset: 0.0 });
    }
    let AstExpr::Binary { op, lhs, rhs } = &strip_parens(e).kind else {
        return None;
    };
    let (level, offset) = match op {
        BinaryOp::Add => match (level_of(lhs), level_of(rhs)) {
            (Some(l), None) => (l, integer(rhs)?),
            (None, Some(l)) => (l, integer(lhs)?),
            _ => return None,
        },
        BinaryOp::Sub => (level_of(lhs)?, -integer(rhs)?),
        _ => return None,
    };
    Some(Extent::Last { level, offset })
}

/// An integer literal.
fn integer(e: &ast::Expr) -> Option<f64> {
    match &strip_parens(e).kind {
        AstExpr::Number { value, .. } if value.fract() == 0.0 && value.abs() < 1e15 => Some(*value),
        _ => None,
    }
}
