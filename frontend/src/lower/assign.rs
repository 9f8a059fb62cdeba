//! Assignments: `x = e`, `A(i, j) = e`, slice assignments `A(:, j) = e` and multiple
//! assignment `[a, b] = f(x)`.
//!
//! A variable keeps one class and one scalar-or-array kind for the whole function (MATLAB
//! Coder's rule); an array value is written element by element by a loop (see `array`).

use la_arena::RawIdx;

use super::array::{scalar_subs, ArrayVal, Node, Place, Sub, Val};
use super::inline::Returned;
use super::reduce::Reduction;
use super::select::Subscript;
use super::*;
use super::{grow, grow_start};

impl Lowerer<'_> {
    pub(super) fn assign(
        &mut self,
        targets: &[ast::LValue],
        value: &ast::Expr,
        span: Span,
    ) -> Option<StmtId> {
        for field in targets.iter().filter_map(dotted_target) {
            self.field_target_allowed(field)?;
        }
        match targets {
            [ast::LValue::Var(name)] => self.assign_var(name, value, span),
            [ast::LValue::Index {
                base,
                args,
                span: target_span,
            }] => self.store(base, args, *target_span, value, span),
            [ast::LValue::Content {
                base,
                args,
                span: at,
            }] => self.assign_cell_content(base, args, *at, value, span),
            [ast::LValue::ElementField { base, span: at, .. }] => {
                self.element_field_refused(base, *at)
            }
            [ast::LValue::Ignore(s)] => {
                self.unsupported(
                    *s,
                    "`~` as the only assignment target",
                    "remove the statement",
                );
                None
            }
            _ => self.multi_assign(targets, value, span),
        }
    }

    fn assign_var(&mut self, name: &ast::Ident, value: &ast::Expr, span: Span) -> Option<StmtId> {
        if let Some(fields) = self.struct_value(strip_parens(value)) {
            return self.assign_struct_value(name, fields?, span);
        }
        if let Some((callee, args)) = self.program_call(strip_parens(value)) {
            if self.is_text_cell(&name.name) {
                return self.cell_reassigned(name);
            }
            let returned = self.inline_call_returned(&callee, args, 1, value.span);
            return match returned.and_then(|mut r| r.pop()) {
                Some(Returned::Value(value)) => self.assigned_value(name, value, span),
                Some(Returned::Struct(fields)) => self.assign_struct_value(name, fields, span),
                None => {
                    self.unassigned_after_error(std::slice::from_ref(name));
                    None
                }
            };
        }
        if self.is_struct(&name.name) {
            self.struct_replaced(name);
            return None;
        }
        if let Some(assigned) = self.assign_struct_call(name, strip_parens(value), span) {
            return assigned;
        }
        if self.assign_handle(name, value).is_some() {
            return None;
        }
        if let AstExpr::TextCell { items, column } = &strip_parens(value).kind {
            return self.assign_text_cell(name, items, *column, span);
        }
        if let Some(assigned) = self.assign_cell_value(name, strip_parens(value), span) {
            return assigned;
        }
        if let AstExpr::Call { callee, args } = &strip_parens(value).kind {
            if callee.name == "strsplit" && !self.is_function("strsplit") {
                return self.assign_split_cell(name, args, span);
            }
            if callee.name == "cell" && !self.is_function("cell") && !args.is_empty() {
                return self.assign_empty_cell(name, args, span);
            }
        }
        if self.is_text_cell(&name.name) {
            return self.cell_reassigned(name);
        }
        if grow::is_empty_matrix(value) {
            return self.assign_empty(name, Class::Double, span);
        }
        if grow_start::is_empty_char(value) && self.scope.names_used.grown.contains(&name.name) {
            return self.assign_empty(name, Class::Char, span);
        }
        if let Some(appended) = self.append(name, value, span) {
            return appended;
        }
        if let Some(alloc) = self.allocation(value) {
            return self.alloc(name, alloc?, span);
        }
        if let AstExpr::StringScalar(text) = &strip_parens(value).kind {
            return self.assign_string(name, text, value.span, span);
        }
        if let Some(unit) = super::text::one_char_literal(value) {
            // The start of a grown text (`s = '0'` then `s = [c, s]`) is made a row by
            // `grow_start`.
            let existing = self.scope.names.get(&name.name).copied();
            let grow_start = self.scope.names_used.grown.contains(&name.name)
                && existing.is_none_or(|id| self.grows_by_index(id));
            if self.scope.names_used.text_names.contains(&name.name) && !grow_start {
                let row = self.one_char_row(unit, value.span);
                return self.assign_val(name, row, span);
            }
        }
        let Some(value) = self.value(value) else {
            self.unassigned_after_error(std::slice::from_ref(name));
            return None;
        };
        self.assigned_value(name, value, span)
    }

    /// `name = value` for a value already lowered: a struct there cannot be replaced by it.
    fn assigned_value(&mut self, name: &ast::Ident, value: Val, span: Span) -> Option<StmtId> {
        if self.is_struct(&name.name) {
            self.struct_replaced(name);
            return None;
        }
        if let Some(started) = self.assign_growing_scalar(name, &value, span) {
            return started;
        }
        self.assign_val(name, value, span)
    }

    /// `name(args)` or `name` alone calling a function of the program (`program_function`).
    fn program_call<'e>(&self, e: &'e ast::Expr) -> Option<(ast::Ident, &'e [ast::Expr])> {
        let (callee, args) = super::inline::called(e)?;
        self.program_function(&callee.name)
            .then_some((callee, args))
    }

    /// The targets of an assignment whose value failed with a diagnostic: their later reads
    /// are not reported again as undefined (one unknown builtin, one message).
    fn unassigned_after_error(&mut self, names: &[ast::Ident]) {
        for name in names {
            if !self.scope.names.contains_key(&name.name) {
                self.failed_targets.insert(name.name.clone());
            }
        }
    }

    /// `name = "text"`: the char vector of the text, in a variable marked as holding a string.
    fn assign_string(
        &mut self,
        name: &ast::Ident,
        text: &str,
        text_span: Span,
        span: Span,
    ) -> Option<StmtId> {
        let value = self.char_literal(text, text_span)?;
        let stmt = self.assign_val(name, value, span)?;
        if let Some(&id) = self.scope.names.get(&name.name) {
            self.string_locals.insert(id);
        }
        Some(stmt)
    }

    pub(super) fn assign_val(
        &mut self,
        name: &ast::Ident,
        value: Val,
        span: Span,
    ) -> Option<StmtId> {
        match value {
            Val::Scalar(e) => {
                let ty = self.exprs[e].ty;
                if let Some(array) = self.array_taking_scalar(name, ty) {
                    return self.store_one_element(array, e, span);
                }
                let target = self.define(name, ty)?;
                let value = self.as_local_value(target, e);
                self.push(StmtKind::Assign { target, value }, span)
            }
            Val::Array(a) => match self.scalar_taking_array(name, &a) {
                Some(target) => {
                    let e = self.only_element(&a, crate::ir::RuntimeError::ScalarKept);
                    let value = self.as_local_value(target, e);
                    self.push(StmtKind::Assign { target, value }, span)
                }
                None => self.assign_array(name, a, span),
            },
        }
    }

    /// `array = e` for a scalar `e` kept as the 1-by-1 array it is in MATLAB.
    fn store_one_element(&mut self, array: LocalId, e: ExprId, span: Span) -> Option<StmtId> {
        let [rows, cols, row, col] = [(); 4].map(|()| self.constant_expr(1.0, Class::Double, span));
        self.alloc_zeros(array, rows, cols, None, span);
        self.clear_empty_flag(array, span);
        let value = self.as_local_value(array, e);
        self.push(
            StmtKind::Store {
                array,
                indices: vec![row, col],
                value,
            },
            span,
        )
    }

    /// `name = a` for an array value `a`; the statements of `r = complex(A, B)` are fresh
    /// writes (`complex_io`).
    fn assign_array(&mut self, name: &ast::Ident, a: ArrayVal, span: Span) -> Option<StmtId> {
        if !matches!(a.node, Node::Call(Builtin::Complex, _)) {
            return self.assign_array_value(name, a, span);
        }
        let first = self.stmts.len();
        let assigned = self.assign_array_value(name, a, span);
        let written = (first..self.stmts.len()).map(|k| StmtId::from_raw(RawIdx::from(k as u32)));
        self.fresh_writes.extend(written);
        assigned
    }

    fn assign_array_value(&mut self, name: &ast::Ident, a: ArrayVal, span: Span) -> Option<StmtId> {
        let ty = self.array_type(&a);
        let copy_of = match a.node {
            Node::Whole(src) => self.copyable_into(name, src),
            _ => None,
        };
        if let Some(src) = copy_of {
            let target = self.define(name, ty)?;
            let value = self.new_expr(ExprKind::Local(src), self.locals[src].ty, span);
            return self.push(StmtKind::Assign { target, value }, span);
        }
        let existing = self
            .scope
            .names
            .get(&name.name)
            .copied()
            .filter(|id| !self.locals[*id].ty.is_scalar());
        if let Some(old) = existing {
            if self.reads_elsewhere(&a, old) {
                let temp = self.materialize(&a);
                let target = self.define(name, ty)?;
                let value = self.new_expr(ExprKind::Local(temp), self.locals[temp].ty, span);
                return self.push(StmtKind::Assign { target, value }, span);
            }
            if self.reads_whole(&a, old) {
                // `y = a*x + y`: every element reads only itself, so write in place, unless
                // the value's class makes `name` a new local (`BW = BW ~= 0`).
                let target = self.define(name, ty)?;
                if target != old {
                    return self.write_fresh(target, a, span);
                }
                let whole = self.whole(target, span);
                self.check_same_size(&whole, &a, span)?;
                let place = self.whole_place(target, span);
                return self.write_loop(&place, &Val::Array(a), span);
            }
        }
        let target = self.define(name, ty)?;
        self.write_fresh(target, a, span)
    }

    /// `target = a` into storage allocated for `a`'s extents.
    fn write_fresh(&mut self, target: LocalId, a: ArrayVal, span: Span) -> Option<StmtId> {
        self.alloc_for(target, &a);
        let place = self.whole_place(target, span);
        self.write_loop(&place, &Val::Array(a), span)
    }

    fn store(
        &mut self,
        base: &ast::Ident,
        args: &[ast::Expr],
        target_span: Span,
        value: &ast::Expr,
        span: Span,
    ) -> Option<StmtId> {
        if self.text_in_numeric_field(value) {
            return None;
        }
        let deletes = grow::is_empty_matrix(value);
        let Some(array) = self.scope.names.get(&base.name).copied() else {
            if deletes {
                return self.delete_undefined(base, target_span);
            }
            return self.store_new(base, args, target_span, value, span);
        };
        if deletes {
            return self.delete(array, args, target_span, span);
        }
        let args = self.vector_growth_subscript(array, args);
        if let Some(appended) = self.append_slice(array, args, value, span) {
            return appended;
        }
        if self.grows_by_index(array) || self.may_grow_by_idiom(array, args, value) {
            return self.store_growing(array, args, target_span, value, span);
        }
        if let [arg] = args {
            if grows(arg) && self.is_vector_local(array) {
                return self.grow(array, arg, value, span);
            }
        }
        if self.locals[array].ty.is_scalar() || args.iter().any(grows) {
            self.unsupported(
                target_span,
                &format!("growing `{}` by assigning past its end", base.name),
                "m2cu grows vectors with `x(end+1) = v` and matrices by a whole row or column, `T(end+1, :) = row` or `R(:, end+1) = col`; for other shapes preallocate with zeros(rows, cols) and write by index",
            );
            return None;
        }
        let subs = self.subscripts_with_masks(array, args)?;
        if let [Subscript::Mask(mask)] = subs.as_slice() {
            return self.masked_store(array, mask.clone(), (&args[0], value), span);
        }
        let subs = self.masks_to_indices(array, subs);
        let subs = self.unaliased(array, subs, span);
        if self.past_known_extent(array, &subs) {
            self.unsupported(
                target_span,
                &format!("growing `{}` by assigning past its end", base.name),
                "the index is beyond an extent fixed by the input types; preallocate with zeros(rows, cols) and write by index",
            );
            return None;
        }
        if subs.iter().all(|s| matches!(s, Sub::Scalar(_))) {
            return self.store_one(array, subs, value, span);
        }
        let slice = self.slice(array, subs, span);
        let value = self.value(value)?;
        self.store_slice(array, slice, value, span)
    }

    fn store_one(
        &mut self,
        array: LocalId,
        subs: Vec<Sub>,
        value: &ast::Expr,
        span: Span,
    ) -> Option<StmtId> {
        let indices = scalar_subs(subs);
        let value = self.element_value(value)?;
        let value = self.stored_value(array, value);
        self.push(
            StmtKind::Store {
                array,
                indices,
                value,
            },
            span,
        )
    }

    pub(super) fn store_slice(
        &mut self,
        array: LocalId,
        slice: ArrayVal,
        value: Val,
        span: Span,
    ) -> Option<StmtId> {
        let value = match value {
            Val::Scalar(e) if self.mentions(e, array) => {
                let temp = self.temp("t", self.exprs[e].ty, span);
                self.push(
                    StmtKind::Assign {
                        target: temp,
                        value: e,
                    },
                    span,
                );
                Val::Scalar(self.new_expr(ExprKind::Local(temp), self.locals[temp].ty, span))
            }
            Val::Array(a) => {
                self.check_assignable(&slice, &a, span)?;
                let Node::Slice(_, written) = &slice.node else {
                    return None;
                };
                if self.reads_other_than(&a, array, written) {
                    let temp = self.materialize(&a);
                    Val::Array(self.whole(temp, span))
                } else {
                    Val::Array(a)
                }
            }
            scalar => scalar,
        };
        let Node::Slice(_, subs) = slice.node else {
            return None;
        };
        let place = Place {
            array,
            subs: Some(subs),
            shape: slice.shape,
            rows: slice.rows,
            cols: slice.cols,
        };
        self.write_loop(&place, &value, span)
    }

    /// Whether a constant row or column subscript of `A(r, c) = ...` lies beyond an extent of
    /// `A` known at translation time (MATLAB would grow `A`; m2cu cannot change that extent).
    fn past_known_extent(&self, array: LocalId, subs: &[Sub]) -> bool {
        let shape = self.locals[array].ty.shape;
        let ([row, col], false) = (subs, shape.is_3d()) else {
            return false;
        };
        [(row, shape.rows), (col, shape.cols)]
            .iter()
            .any(|(sub, extent)| {
                let (Sub::Scalar(e), Dim::Known(n)) = (sub, extent) else {
                    return false;
                };
                self.const_of(*e).is_some_and(|k| k > *n as f64)
            })
    }

    /// `v(1, end+1)` or `v(:, end+1)` on a row (`v(end+1, 1)` or `v(end+1, :)` on a column):
    /// the one subscript `end+1` that grows the vector as `v(end+1)` does, `end` being the same
    /// extent; any other subscripts as they are.
    fn vector_growth_subscript<'a>(
        &self,
        array: LocalId,
        args: &'a [ast::Expr],
    ) -> &'a [ast::Expr] {
        let shape = self.locals[array].ty.shape;
        if self.locals[array].ty.is_scalar() || shape.is_3d() {
            return args;
        }
        let unit = |e: &ast::Expr| match &strip_parens(e).kind {
            AstExpr::Colon => true,
            AstExpr::Number { value, .. } => *value == 1.0,
            _ => false,
        };
        match args {
            [first, k] if shape.rows == Dim::Known(1) && unit(first) && grows(k) => &args[1..],
            [k, second] if shape.cols == Dim::Known(1) && unit(second) && grows(k) => &args[..1],
            _ => args,
        }
    }

    fn is_vector_local(&self, array: LocalId) -> bool {
        let ty = self.locals[array].ty;
        !ty.is_scalar() && ty.shape.is_vector()
    }

    /// `x(end+k) = v` on a vector: the index and the value are computed with the old extents,
    /// then the vector grows to hold the index (zeros in between), then the element is stored.
    fn grow(
        &mut self,
        array: LocalId,
        index: &ast::Expr,
        value: &ast::Expr,
        span: Span,
    ) -> Option<StmtId> {
        let subs = self.subscripts(array, std::slice::from_ref(index))?;
        let [Sub::Scalar(at)] = subs.as_slice() else {
            return None;
        };
        let at = *at;
        if self.scope.loop_depth > 0 {
            let name = self.locals[array].seen_name().to_string();
            self.note_grown(&name, span);
        }
        let double = Type::scalar(Class::Double);
        let k = self.temp("g", double, span);
        self.push(
            StmtKind::Assign {
                target: k,
                value: at,
            },
            span,
        );
        let value = self.element_value(value)?;
        let value = self.stored_value(array, value);
        let v = self.temp("t", self.element_of(array), span);
        self.push(StmtKind::Assign { target: v, value }, span);
        let numel = self.new_expr(ExprKind::Size(array, SizeQuery::Numel), double, span);
        let kv = self.new_expr(ExprKind::Local(k), double, span);
        let n = self.new_expr(ExprKind::Call(Builtin::Max, vec![numel, kv]), double, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let (rows, cols) = if self.locals[array].ty.shape.rows == Dim::Known(1) {
            (one, n)
        } else {
            (n, one)
        };
        self.push(StmtKind::Resize { array, rows, cols }, span);
        let kv = self.new_expr(ExprKind::Local(k), double, span);
        let vv = self.new_expr(ExprKind::Local(v), self.locals[v].ty, span);
        self.push(
            StmtKind::Store {
                array,
                indices: vec![kv],
                value: vv,
            },
            span,
        )
    }

    /// MATLAB lets a vector go into a vector slice of the same length whatever the
    /// orientations; other shapes must match exactly.
    fn check_assignable(&mut self, slice: &ArrayVal, a: &ArrayVal, span: Span) -> Option<()> {
        if !(slice.is_vector() && a.is_vector()) {
            return self.check_same_size(slice, a, span);
        }
        let count = |s: Shape| match (s.rows, s.cols) {
            (Dim::Known(r), Dim::Known(c)) => Some(r * c),
            _ => None,
        };
        match (count(slice.shape), count(a.shape)) {
            (Some(p), Some(q)) if p != q => {
                self.error(
                    "E0110",
                    span,
                    format!("cannot assign {q} elements to a slice of {p} elements"),
                    "make the two sides the same length".into(),
                );
                None
            }
            (Some(_), Some(_)) => Some(()),
            _ => {
                // A value of one element fills the whole slice in MATLAB.
                let p = self.numel_expr(slice, span);
                let q = self.numel_expr(a, span);
                let one = self.constant_expr(1.0, Class::Double, span);
                let many = self.binary_expr(BinOp::Ne, q, one, Class::Logical, span);
                let equal = self.binary_expr(BinOp::Eq, p, q, Class::Logical, span);
                let cond = self.binary_expr(BinOp::Or, equal, many, Class::Logical, span);
                self.expansion_check(cond, span);
                let p = self.numel_expr(slice, span);
                let q = self.numel_expr(a, span);
                let cond = self.binary_expr(BinOp::Eq, p, q, Class::Logical, span);
                self.size_check(cond, span);
                Some(())
            }
        }
    }

    fn multi_assign(
        &mut self,
        targets: &[ast::LValue],
        value: &ast::Expr,
        span: Span,
    ) -> Option<StmtId> {
        let (callee, args) = match &value.kind {
            AstExpr::Call { callee, args } => (callee, args.as_slice()),
            _ => {
                self.unsupported(
                    value.span,
                    "several outputs from something other than a call",
                    "write `[a, b] = f(x)`",
                );
                return None;
            }
        };
        if let Some((at, name)) = subscript_reading_a_target(targets) {
            self.unsupported(
                at,
                &format!("a subscript that reads `{name}`, which the same assignment sets"),
                &format!("Octave computes the subscript with the value `{name}` had before the statement; copy it to a variable of its own first (`k = {name};`) and index with that"),
            );
            return None;
        }
        let values = self.several_outputs(callee, args, targets, span);
        let Some(values) = values else {
            let names: Vec<ast::Ident> = targets
                .iter()
                .filter_map(|t| match t {
                    ast::LValue::Var(name) => Some(name.clone()),
                    _ => None,
                })
                .collect();
            self.unassigned_after_error(&names);
            return None;
        };
        let mut last = None;
        for (target, value) in targets.iter().zip(values) {
            last = match (target, value) {
                (ast::LValue::Ignore(_), _) => continue,
                (ast::LValue::Var(name), Returned::Value(value)) => {
                    self.assigned_value(name, value, span)
                }
                (ast::LValue::Var(name), Returned::Struct(fields)) => {
                    self.assign_struct_value(name, fields, span)
                }
                (
                    ast::LValue::Index {
                        base,
                        args,
                        span: target_span,
                    },
                    Returned::Value(value),
                ) => self.store_output(base, args, *target_span, value, span),
                (ast::LValue::ElementField { base, span: at, .. }, _) => {
                    self.element_field_refused(base, *at)
                }
                (ast::LValue::Content { span: at, .. }, _) => {
                    self.error(
                        "E0166",
                        *at,
                        "a cell's content as one of several outputs is not supported".into(),
                        "take the output into a variable, then assign it: c{k} = v".into(),
                    );
                    None
                }
                (ast::LValue::Index { span: at, .. }, Returned::Struct(_)) => {
                    self.error(
                        "E0103",
                        *at,
                        format!(
                            "`{}` returns a struct here, stored into an element",
                            callee.name
                        ),
                        "assign the struct to a variable of its own".into(),
                    );
                    None
                }
            };
        }
        last
    }

    /// The outputs of `[...] = callee(args)`: structs among them for a function of the
    /// program, values for the rest.
    fn several_outputs(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        targets: &[ast::LValue],
        span: Span,
    ) -> Option<Vec<Returned>> {
        let values = if super::atomics::is_atomic(&callee.name) {
            self.atomic_outputs(callee, args, targets, span)
        } else if callee.name == super::atomics::GPUCODER_SORT {
            let sort = self.gpucoder_sort(callee)?;
            self.multi_values(&sort, args, targets.len(), span)
        } else if self.program_function(&callee.name) {
            return self.inline_call_returned(callee, args, targets.len(), span);
        } else {
            self.multi_values(callee, args, targets.len(), span)
        };
        Some(values?.into_iter().map(Returned::Value).collect())
    }

    /// Whether a call to `name` here runs a function of the program (not m2cu's own library,
    /// not a variable, handle, cell or struct of that name): one that may return a struct.
    pub(super) fn program_function(&self, name: &str) -> bool {
        !self.scope.names.contains_key(name)
            && !self.scope.handles.contains_key(name)
            && !self.is_text_cell(name)
            && !self.is_struct(name)
            && !name.contains('.')
            && self
                .resolved_callee(name)
                .is_some_and(|c| !self.library.is_bundled(c.file))
    }

    /// `[A, oldA] = gpucoder.atomicAdd(...)` and its kin: the value before the call is kept
    /// only when a target takes it.
    fn atomic_outputs(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        targets: &[ast::LValue],
        span: Span,
    ) -> Option<Vec<Val>> {
        if targets.len() > 2 {
            self.error(
                "E0105",
                span,
                format!("`{}` gives two outputs, not {}", callee.name, targets.len()),
                format!("write `[A, oldA] = {}(A, B)`", callee.name),
            );
            return None;
        }
        let keep_old = targets
            .get(1)
            .is_some_and(|t| !matches!(t, ast::LValue::Ignore(_)));
        self.gpucoder_atomic(&callee.name, args, keep_old, span)
    }

    /// `[..., A(i), ...] = f(...)`: the output goes into a hidden variable of its own (a name
    /// no MATLAB identifier can be), which is then stored as `A(i) = hidden` would be, after
    /// the targets to its left, as MATLAB assigns them.
    fn store_output(
        &mut self,
        base: &ast::Ident,
        args: &[ast::Expr],
        target_span: Span,
        value: Val,
        span: Span,
    ) -> Option<StmtId> {
        let read = self.hidden_variable("out", value, target_span, span)?;
        self.store(base, args, target_span, &read, span)
    }

    /// A new hidden variable `_<stem><n>` (a name no MATLAB identifier can be) assigned
    /// `value`: the expression that reads it, spanning `at`.
    pub(super) fn hidden_variable(
        &mut self,
        stem: &str,
        value: Val,
        at: Span,
        span: Span,
    ) -> Option<ast::Expr> {
        let hidden = self.hidden_name(stem, at);
        self.assign_val(&hidden, value, span)?;
        Some(ast::Expr {
            kind: AstExpr::Ident(hidden.name),
            span: at,
        })
    }

    /// A new name `_<stem><n>` that no MATLAB identifier can be, spanning `at`.
    pub(super) fn hidden_name(&mut self, stem: &str, at: Span) -> ast::Ident {
        self.temps += 1;
        ast::Ident {
            name: format!("_{stem}{}", self.temps),
            span: at,
        }
    }

    pub(super) fn multi_values(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Val>> {
        let name = callee.name.as_str();
        let shadowed = self.scope.names.contains_key(name);
        if self.scope.handles.contains_key(name) {
            return self.handle_variable_outputs(callee, args, nargout, span);
        }
        match name {
            "max" | "min" if !shadowed && nargout == 2 => {
                let kind = Reduction::from_name(name)?;
                self.located_outputs(kind, args, span)
            }
            "size" if !shadowed && args.len() == 1 => self.size_outputs(&args[0], nargout, span),
            "find" if !shadowed => {
                let helper = ast::Ident {
                    name: "m2cu_find".into(),
                    span: callee.span,
                };
                self.inline_call(&helper, args, nargout, span)
            }
            super::custom::GPUCODER_REDUCE => self.gpucoder_reduce_outputs(args, nargout, span),
            _ if !shadowed && self.is_function(name) => {
                self.inline_call(callee, args, nargout, span)
            }
            _ => {
                self.unsupported(
                    span,
                    &format!("`[...] = {name}(...)` with {nargout} outputs"),
                    "several outputs come only from `max`, `min`, `size`, `find`, `gpucoder.reduce` and local functions",
                );
                None
            }
        }
    }
}

/// The names that `functions` (their nested functions too) assign by index, `x(...) = v`,
/// with subscripts that `keep` accepts.
pub(super) fn index_targets(
    functions: &[ast::Function],
    keep: impl Fn(&[ast::Expr]) -> bool,
) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    for_each_function(functions, &mut |f| {
        walk_stmts(&f.body, &mut |s| {
            if let AstStmt::Assign { targets, .. } = &s.kind {
                for t in targets {
                    if let ast::LValue::Index { base, args, .. } = t {
                        if keep(args) {
                            out.insert(base.name.clone());
                        }
                    }
                }
            }
        })
    });
    out
}

/// The names that one of `functions` grows with `x(end+k) = v` or `x = [x, v]`, may
/// grow with the allocation idiom `z(m, n) = 0`, or deletes elements from, `x(k) = []`.
pub(super) fn grown_names(functions: &[ast::Function]) -> std::collections::HashSet<String> {
    let mut names = index_targets(functions, |args| args.iter().any(grows));
    names.extend(grow::allocation_idiom_names(functions));
    names.extend(grow::appended_names(functions));
    names.extend(super::delete::deleted_names(functions));
    names
}

/// The first subscript of an indexed target of `[...] = f(...)` that reads a name another
/// target of the statement assigns (its span and the name); an `end` reads the target's own
/// array when another target assigns it too.
fn subscript_reading_a_target(targets: &[ast::LValue]) -> Option<(Span, String)> {
    let assigned = |t: &ast::LValue| t.assigned_name().map(|name| name.name.clone());
    targets.iter().enumerate().find_map(|(i, t)| {
        let ast::LValue::Index { base, args, .. } = t else {
            return None;
        };
        let reads = |a: &ast::Expr, name: &str| {
            super::emptyloop::mentions(a, name)
                || (name == base.name
                    && super::emptyloop::any_node(a, &|x| matches!(x.kind, AstExpr::End)))
        };
        let mut others = targets
            .iter()
            .enumerate()
            .filter(|&(j, _)| j != i)
            .filter_map(|(_, other)| assigned(other));
        others.find_map(|name| {
            args.iter()
                .find(|a| reads(a, &name))
                .map(|a| (a.span, name.clone()))
        })
    })
}

/// A target whose name has a dot (`s.x = ...`, `s.x(2) = ...`).
fn dotted_target(t: &ast::LValue) -> Option<&ast::Ident> {
    match t {
        ast::LValue::Var(name) | ast::LValue::Index { base: name, .. } => {
            name.name.contains('.').then_some(name)
        }
        ast::LValue::Content { .. } | ast::LValue::ElementField { .. } | ast::LValue::Ignore(_) => {
            None
        }
    }
}

/// Whether a subscript reaches past the end: `end + k`.
fn grows(arg: &ast::Expr) -> bool {
    match &strip_parens(arg).kind {
        AstExpr::Binary {
            op: BinaryOp::Add,
            lhs,
            rhs,
        } => {
            matches!(strip_parens(lhs).kind, AstExpr::End)
                || matches!(strip_parens(rhs).kind, AstExpr::End)
        }
        _ => false,
    }
}
