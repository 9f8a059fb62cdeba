//! Expression lowering: AST expressions → scalar IR expressions or array [`Val`]ues, with
//! MATLAB's class rules (an integer class wins over single and double, two different integer
//! classes are an error, comparisons give logical) and name resolution (variable, constant,
//! builtin, local function).
//!
//! Invariant: a function returning `None` has reported an error.

use super::array::{scalar_subs, ArrayVal, Coord, Node, Operand, Pos, Sub, Val};
use super::fill::fill_named;
use super::handles::Arg;
use super::select::Subscript;
use super::sizes::SIZE_FUNCTIONS;
use super::text::{text_literal, TextCase};
use super::*;
use crate::ir::RuntimeError;

impl Lowerer<'_> {
    pub(super) fn scalar_expr(&mut self, e: &ast::Expr, what: &str) -> Option<ExprId> {
        let v = self.value(e)?;
        self.require_scalar(v, what)
    }

    pub(super) fn require_scalar(&mut self, v: Val, what: &str) -> Option<ExprId> {
        match v {
            Val::Scalar(e) => Some(e),
            Val::Array(a) => {
                let ty = Type::array(a.class, a.shape);
                self.error(
                    "E0103",
                    a.span,
                    format!("{what} must be a scalar, but this is {ty}"),
                    "index a single element, e.g. `v(i)`, or reduce the array with sum/max/any/..."
                        .into(),
                );
                None
            }
        }
    }

    /// The value assigned to one element, `y(k) = e`: a scalar, or an array whose type admits
    /// one element (`y(k) = x(j)` with an index array `j`), which must hold exactly one when
    /// the program runs (MATLAB's error otherwise) and gives that element.
    pub(super) fn element_value(&mut self, e: &ast::Expr) -> Option<ExprId> {
        let v = self.value(e)?;
        let Val::Array(a) = v else {
            return self.require_scalar(v, "an element value");
        };
        if !a.shape.admits_one_element() {
            return self.require_scalar(Val::Array(a), "an element value");
        }
        Some(self.only_element(&a, RuntimeError::ElementCount))
    }

    /// The one element of the array value `a`, after a check that it holds exactly one when
    /// the program runs (`error` otherwise).
    pub(super) fn only_element(&mut self, a: &ArrayVal, error: RuntimeError) -> ExprId {
        let span = a.span;
        let ty = self.element_type(a);
        let local = self.whole_local(a);
        let count = self.numel_of(local, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let single = self.binary_expr(BinOp::Eq, count, one, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond: single,
                error,
            },
            span,
        );
        let first = self.constant_expr(1.0, Class::Double, span);
        self.new_expr(ExprKind::Index(local, vec![first]), ty, span)
    }

    /// The value of `e`; an array value whose extents are known to be 1 by 1 (`A(:, 2)` of a
    /// row `A`) is its one element, a scalar, as MATLAB makes no difference between the two.
    pub(super) fn value(&mut self, e: &ast::Expr) -> Option<Val> {
        let v = self.value_of(e)?;
        Some(self.scalarized(v))
    }

    /// `v`, or its one element when its extents are known to be 1 by 1.
    pub(super) fn scalarized(&mut self, v: Val) -> Val {
        match v {
            Val::Array(a) if a.shape.is_scalar() => {
                Val::Scalar(self.element(&a, Pos::Linear(Coord::One)))
            }
            v => v,
        }
    }

    fn value_of(&mut self, e: &ast::Expr) -> Option<Val> {
        let span = e.span;
        match &e.kind {
            AstExpr::Number { value, .. } => {
                Some(Val::Scalar(self.constant_expr(*value, Class::Double, span)))
            }
            AstExpr::Imaginary { value, .. } => {
                Some(Val::Scalar(self.imaginary_literal(*value, span)))
            }
            AstExpr::Ident(name) => self.ident(name, span),
            AstExpr::ElementField { callee, .. } => {
                self.element_field_refused(callee, span);
                None
            }
            AstExpr::Paren(inner) => self.value(inner),
            AstExpr::Unary { op, operand } => self.unary(*op, operand, span),
            AstExpr::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, span),
            AstExpr::Call { callee, args } => self.call(callee, args, span),
            AstExpr::End => self.end_keyword(span).map(Val::Scalar),
            AstExpr::Postfix { operand, op } => self.transpose(operand, *op),
            AstExpr::Range { start, step, stop } => {
                self.range_value(start, step.as_deref(), stop, span)
            }
            AstExpr::Matrix(rows) => match self.all_texts_joined(rows, span) {
                Some(joined) => joined,
                None => self.matrix_literal(rows, span),
            },
            AstExpr::Colon => {
                self.unsupported(
                    span,
                    "`:` outside an index",
                    "`:` alone selects all elements only inside `A(...)`",
                );
                None
            }
            AstExpr::CellIndex { callee, args } => self.cell_content(callee, args, span),
            AstExpr::TextCell { .. } => {
                self.error(
                    "E0166",
                    span,
                    "a cell literal used as a value is not supported".into(),
                    "assign it to a variable first (c = {'a', 'b'}) and take its texts with c{k}"
                        .into(),
                );
                None
            }
            AstExpr::FuncHandle(_) | AstExpr::AnonFn { .. } | AstExpr::HandleCell(_) => {
                self.handle_as_value(span);
                None
            }
            AstExpr::Str(text) => self.char_literal(text, span),
            AstExpr::StringScalar(_) => self.string_scalar_here(span),
        }
    }

    /// The values of several expressions; every one is lowered (so that all errors are
    /// reported) before any failure is returned.
    pub(super) fn values(&mut self, args: &[ast::Expr]) -> Option<Vec<Val>> {
        let vals: Vec<Option<Val>> = args.iter().map(|a| self.value(a)).collect();
        vals.into_iter().collect()
    }

    pub(super) fn local_val(&mut self, id: LocalId, span: Span) -> Val {
        let ty = self.locals[id].ty;
        if ty.is_scalar() {
            Val::Scalar(self.new_expr(ExprKind::Local(id), ty, span))
        } else {
            Val::Array(self.whole(id, span))
        }
    }

    fn ident(&mut self, name: &str, span: Span) -> Option<Val> {
        // Only this name is read as text, nothing it calls.
        let as_text = std::mem::take(&mut self.reading_text);
        if self.scope.handles.contains_key(name) {
            self.handle_as_value(span);
            return None;
        }
        if let Some(&id) = self.scope.names.get(name) {
            if self.string_locals.contains(&id) && !as_text {
                return self.string_variable_here(name, span);
            }
            self.read_loop_variable(id, span);
            return Some(self.local_val(id, span));
        }
        if self.is_struct(name) {
            self.struct_as_value(name, span);
            return None;
        }
        if let Some((value, class)) = constant(name).filter(|_| !self.is_function(name)) {
            return Some(Val::Scalar(self.constant_expr(value, class, span)));
        }
        if let Some(unit) = self.imaginary_unit(name, span) {
            return Some(Val::Scalar(unit));
        }
        if let Some(count) = self.arg_count(name, span) {
            return Some(count);
        }
        if self.omitted_input(name, span) {
            return None;
        }
        if self.is_text_cell(name) {
            self.cell_as_value(name, span);
            return None;
        }
        let callee = ast::Ident {
            name: name.to_string(),
            span,
        };
        self.call(&callee, &[], span)
    }

    fn end_keyword(&mut self, span: Span) -> Option<ExprId> {
        let Some(ctx) = self.scope.index_context.last().copied() else {
            self.error(
                "E0108",
                span,
                "`end` used outside an index".into(),
                "`end` stands for the last index only inside `A(...)`".into(),
            );
            return None;
        };
        let query = match (ctx.count, ctx.position) {
            (1, _) => SizeQuery::Numel,
            (_, p) if p >= 3 => return Some(self.constant_expr(1.0, Class::Double, span)),
            (2, 1) if self.locals[ctx.array].ty.shape.is_3d() => {
                return Some(self.trailing_cols(ctx.array, span));
            }
            (_, p) => SizeQuery::Dim(p as u8 + 1),
        };
        Some(self.new_expr(
            ExprKind::Size(ctx.array, query),
            Type::scalar(Class::Double),
            span,
        ))
    }

    fn unary(&mut self, op: UnaryOp, operand: &ast::Expr, span: Span) -> Option<Val> {
        let v = self.value(operand)?;
        if let Val::Scalar(z) = v {
            if self.exprs[z].ty.complex && op == UnaryOp::Neg {
                return Some(Val::Scalar(self.complex_negation(z, span)));
            }
        }
        let class = match op {
            UnaryOp::Plus => return Some(v),
            UnaryOp::Neg => arithmetic_class(val_class(self, &v)),
            UnaryOp::Not => Class::Logical,
        };
        let un = if op == UnaryOp::Neg {
            UnOp::Neg
        } else {
            UnOp::Not
        };
        Some(match v {
            Val::Scalar(a) => {
                Val::Scalar(self.new_expr(ExprKind::Unary(un, a), Type::scalar(class), span))
            }
            Val::Array(a) => Val::Array(a.wrap(class, span, |a| Node::Unary(un, a))),
        })
    }

    fn transpose(&mut self, operand: &ast::Expr, op: ast::PostfixOp) -> Option<Val> {
        let conjugate = op == ast::PostfixOp::CTranspose;
        Some(match self.value(operand)? {
            Val::Scalar(e) if self.exprs[e].ty.complex && conjugate => {
                Val::Scalar(self.conjugate_transpose(e, operand.span))
            }
            Val::Scalar(e) => Val::Scalar(e),
            Val::Array(a) if conjugate && self.element_type(&a).complex => {
                let t = self.transpose_val(a)?;
                let conj = Node::Call(Builtin::Conj, vec![Operand::Array(Box::new(t.clone()))]);
                Val::Array(ArrayVal { node: conj, ..t })
            }
            Val::Array(a) => Val::Array(self.transpose_val(a)?),
        })
    }

    /// `a.'` of an array value.
    fn transpose_val(&mut self, a: ArrayVal) -> Option<ArrayVal> {
        self.reject_3d(&a, "the transpose")?;
        Some(ArrayVal {
            shape: Shape::new(a.shape.cols, a.shape.rows),
            class: a.class,
            rows: a.cols,
            cols: a.rows,
            span: a.span,
            node: Node::Transpose(Box::new(a)),
        })
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<Val> {
        if matches!(op, BinaryOp::AndAnd | BinaryOp::OrOr) {
            let operand: fn(&mut Self, &ast::Expr) -> Option<ExprId> =
                |me, e| me.scalar_expr(e, "an operand of `&&`/`||`");
            let e = self.short_circuit(scalar_op(op), (lhs, rhs), operand, span)?;
            return Some(Val::Scalar(e));
        }
        let a = self.value(lhs);
        let b = self.value(rhs);
        let (a, b) = (a?, b?);
        if let Some(function) = matrix_operation(op, &a, &b) {
            let kept = kept_extent(op, &a, &b);
            let args = vec![Arg::Value(a), Arg::Value(b)];
            let result = self.inline_bundled_helper(function, args, 1, span)?.pop()?;
            return Some(self.with_unit_extent(result, kept, span));
        }
        let (op, a, b) = match op {
            BinaryOp::LeftDiv | BinaryOp::ElemLeftDiv => (BinaryOp::ElemDiv, b, a),
            other => (other, a, b),
        };
        if let (Val::Scalar(x), Val::Scalar(y)) = (&a, &b) {
            if self.exprs[*x].ty.complex || self.exprs[*y].ty.complex {
                return self
                    .complex_binary(scalar_op(op), *x, *y, span)
                    .map(Val::Scalar);
            }
        }
        let class = if scalar_op(op).is_comparison() || scalar_op(op).is_logical() {
            Class::Logical
        } else {
            let (ca, cb) = (val_class(self, &a), val_class(self, &b));
            self.combine(ca, cb, span)?
        };
        match (a, b) {
            (Val::Scalar(a), Val::Scalar(b)) => Some(Val::Scalar(self.binary_expr(
                scalar_op(op),
                a,
                b,
                class,
                span,
            ))),
            (a, b) => self.array_binary(op, a, b, class, span),
        }
    }

    fn array_binary(
        &mut self,
        op: BinaryOp,
        a: Val,
        b: Val,
        class: Class,
        span: Span,
    ) -> Option<Val> {
        if let (BinaryOp::Mul, Val::Array(x), Val::Array(y)) = (op, &a, &b) {
            return self.matrix_product(x.clone(), y.clone(), class, span);
        }
        if let (BinaryOp::ElemPow, Val::Array(base), Val::Scalar(exponent)) = (op, &a, &b) {
            if let Some(power) = self.array_power(base, *exponent, class, span) {
                return Some(Val::Array(power));
            }
        }
        let operand = |v: Val| match v {
            Val::Scalar(e) => Operand::Scalar(e),
            Val::Array(a) => Operand::Array(Box::new(a)),
        };
        self.elementwise(scalar_op(op), operand(a), operand(b), class, span)
            .map(Val::Array)
    }

    /// MATLAB's class of `a op b`: an integer class wins, then single, else double; two
    /// different integer classes are an error.
    pub(super) fn combine(&mut self, ca: Class, cb: Class, span: Span) -> Option<Class> {
        match (ca.is_integer(), cb.is_integer()) {
            (true, true) if ca != cb => {
                self.error(
                    "E0106",
                    span,
                    format!("integers can only be combined with integers of the same class, here {ca} and {cb}"),
                    format!("convert one operand, e.g. `{ca}(...)`"),
                );
                None
            }
            (true, _) => Some(ca),
            (_, true) => Some(cb),
            _ if ca == Class::Single || cb == Class::Single => Some(Class::Single),
            _ => Some(Class::Double),
        }
    }

    pub(super) fn call(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        let name = callee.name.as_str();
        if self.scope.handles.contains_key(name) {
            return self.call_handle_variable(callee, args, span);
        }
        if let Some(&array) = self.scope.names.get(name) {
            return self.index(array, args, span);
        }
        if name == "isempty" {
            if let Some(empty) = self.persistent_isempty(args, span) {
                return Some(empty);
            }
        }
        if self.is_text_cell(name) {
            self.cell_as_value(name, span);
            return None;
        }
        if self.is_struct(name) {
            self.struct_as_value(name, span);
            return None;
        }
        if let Some(shape) = self.cell_shape_call(callee, args, span) {
            return shape;
        }
        if let Some(joined) = self.joined_cell(callee, args, span) {
            return joined;
        }
        if let Some(numbers) = self.numbers_of_cell(callee, args, span) {
            return numbers;
        }
        if name == super::custom::GPUCODER_REDUCE {
            return self.gpucoder_reduce(args, span);
        }
        if name == super::stencil::GPUCODER_STENCIL {
            return self.gpucoder_stencil(args, span);
        }
        if name == super::atomics::GPUCODER_SORT {
            let sort = self.gpucoder_sort(callee)?;
            return self.call(&sort, args, span);
        }
        if super::atomics::is_atomic(name) {
            return self
                .gpucoder_atomic(name, args, false, span)
                .map(|mut outputs| outputs.remove(0));
        }
        if name.contains('.') {
            return self.dotted_name(callee);
        }
        if let ("isequal", [first, second, rest @ ..]) = (name, args) {
            if !rest.is_empty() && !self.is_function_of_program(name) {
                return self.value(&all_equal(first, second, rest, span));
            }
        }
        // A function of this file or of a sibling file shadows MATLAB's function of that name
        // (`function y = gamma(x)`), as in MATLAB.
        if self.is_function(name) {
            return self
                .inline_call(callee, args, 1, span)
                .and_then(|mut outs| outs.pop());
        }
        if let Some(constant) = self.class_constant(name, args, span) {
            return constant;
        }
        if let Some(kind) = super::reduce::Reduction::from_name(name) {
            if !(matches!(name, "min" | "max") && args.len() == 2) {
                return self.reduction(kind, args, span);
            }
        }
        if let ("complex", [re]) = (name, args) {
            return self.complex_of_real(re, span);
        }
        if let Some(builtin) = Builtin::from_name(name) {
            return self.builtin(builtin, args, span);
        }
        if let Some(class) = Class::from_name(name) {
            return self.conversion(class, args, span);
        }
        if let Some(fill) = fill_named(name) {
            let alloc = self.allocation_args(fill, args, span)?;
            return self.allocated_temp(alloc, span);
        }
        match name {
            _ if SIZE_FUNCTIONS.contains(&name) => self.size_function(name, args, span),
            "intmax" | "intmin" => self.class_limit(name == "intmax", args, span),
            "nthroot" => self.nthroot(args, span),
            "eye" => self.eye(args, span),
            "nnz" => self.nnz(args, span),
            "linspace" => self.linspace(args, span),
            "diag" => self.diag(args, span),
            "norm" => self.norm(args, span),
            "find" => self.find(args, span),
            "issorted" => self.issorted(args, span),
            "dot" => self.dot(args, span),
            "trace" => self.trace(args, span),
            "fliplr" => self.flip(args, false, span),
            "flipud" => self.flip(args, true, span),
            "repmat" => self.repmat(args, span),
            "horzcat" | "vertcat" | "cat" => self.concatenation_call(name, args, span),
            "isa" => self.isa(args, span),
            "class" => self.class_name(args, span),
            "cast" => self.cast(args, span),
            "reshape" => self.reshape(args, span),
            "squeeze" => self.squeeze(args, span),
            "exist" => self.exist(args, span),
            "sprintf" => self.sprintf_value(args, span),
            "num2str" | "int2str" => self.number_chars(name, args, span),
            "strcmp" | "strcmpi" | "strncmp" | "strncmpi" if self.compares_a_cell(args) => {
                self.cell_compare(name, args, span)
            }
            "strcmp" => self.text_compare(TextCase::Exact, args, span),
            "strcmpi" => self.text_compare(TextCase::Folded, args, span),
            "strncmp" => self.text_compare_prefix(TextCase::Exact, args, span),
            "strncmpi" => self.text_compare_prefix(TextCase::Folded, args, span),
            "ischar" => self.is_char(args, span),
            _ if super::class_query::CLASS_TESTS.contains(&name) => {
                self.class_test(name, args, span)
            }
            "feval" => self.feval(args, span),
            "arrayfun" => self.arrayfun(args, span),
            "cellfun" => self.cellfun(args, span),
            "tic" | "toc" => self.timer_value(name, args, span).map(Val::Scalar),
            _ if super::charclass::CHAR_CLASS_FUNCTIONS.contains(&name) => {
                self.char_class_call(name, args, span)
            }
            _ if self.handle_text_function(callee) => None,
            _ => self.undefined(callee),
        }
    }

    fn dotted_name(&mut self, callee: &ast::Ident) -> Option<Val> {
        self.unsupported(
            callee.span,
            &format!("`{}` (struct field or package function)", callee.name),
            "structs and package functions are not supported: use separate variables",
        );
        None
    }

    fn undefined(&mut self, callee: &ast::Ident) -> Option<Val> {
        let name = &callee.name;
        if IO_FUNCTIONS.contains(&name.as_str()) {
            self.unsupported(
                callee.span,
                &format!("`{name}` (I/O, plotting or timing)"),
                "return the values as outputs instead",
            );
        } else if super::raise::HOST_STATEMENTS.contains(&name.as_str()) {
            self.unsupported(
                callee.span,
                &format!("`{name}` used as a value"),
                &format!("call `{name}(...)` as a statement of its own"),
            );
        } else if matches!(name.as_str(), "eval" | "evalin" | "assignin") {
            self.unsupported(
                callee.span,
                &format!("`{name}`"),
                "code built at run time cannot be translated: write the call directly",
            );
        } else if !self.failed_targets.contains(name.as_str()) {
            self.unknown_name(callee);
        }
        None
    }

    /// A name that nothing defines (see `lower::unknown_names`).
    fn unknown_name(&mut self, callee: &ast::Ident) {
        use super::unknown_names::{classify, Unknown};
        let name = callee.name.as_str();
        let mut in_scope: Vec<String> = self.scope.names.keys().cloned().collect();
        super::for_each_function(&self.file.functions, &mut |f| {
            in_scope.push(f.name.name.clone())
        });
        let translated = crate::catalog::FUNCTIONS.iter().map(|f| f.name);
        let names = in_scope.iter().map(String::as_str).chain(translated);
        let (code, message, help) = match classify(name, names) {
            Unknown::NotYet(alternative) => (
                "E0167",
                format!("`{name}` is a MATLAB function that m2cu does not support yet"),
                match alternative {
                    Some(alt) => format!("write it with what m2cu translates: {alt}"),
                    None => "compute this part outside the translated function, or write it with loops and elementwise arithmetic".to_string(),
                },
            ),
            Unknown::Undefined(suggestion) => (
                "E0102",
                format!("undefined variable or function `{name}`"),
                match suggestion {
                    _ if matches!(name, "i" | "j") => "this function assigns the name elsewhere, so m2cu does not read it as the imaginary unit here: write `1i` (or `1j`) for the unit, or assign the variable before this line".to_string(),
                    Some(close) => format!("did you mean `{close}`? Otherwise define the variable before this line"),
                    None => "define the variable before this line, or check the spelling".to_string(),
                },
            ),
        };
        self.error(code, callee.span, message, help);
    }

    fn index(&mut self, array: LocalId, args: &[ast::Expr], span: Span) -> Option<Val> {
        let subs = self.subscripts(array, args)?;
        self.index_with(array, subs, span)
    }

    /// `A(subs)` with its subscripts lowered.
    pub(super) fn index_with(&mut self, array: LocalId, subs: Vec<Sub>, span: Span) -> Option<Val> {
        let ty = self.locals[array].ty;
        if ty.is_scalar() {
            // `x(k)`, `x(1, k)` or `x(:)` of a scalar: the scalar, after checks that each
            // subscript is 1 (MATLAB's index errors otherwise).
            let units = subs.iter().all(|s| matches!(s, Sub::Scalar(_) | Sub::All));
            if units {
                for sub in subs {
                    if let Sub::Scalar(i) = sub {
                        self.unit_index_checks(i, span);
                    }
                }
                return Some(self.local_val(array, span));
            }
            let help = if self.params.contains(&array) {
                format!(
                    "`{0}` is a scalar because its input is 1-by-1; to index it as a vector whose \
                     length is known at run time, declare it so: `--args '{0}={1}(1,:)'`, or \
                     `{0} (1,:) {1}` in an `arguments` block",
                    self.locals[array].name, ty.class
                )
            } else {
                "index arrays only; a value that is 1-by-1 only for some inputs must be allocated \
                 as an array, `zeros(1, n)`"
                    .to_string()
            };
            self.unsupported(
                span,
                "indexing a scalar with a range or an index vector",
                &help,
            );
            return None;
        }
        if subs.iter().all(|s| matches!(s, Sub::Scalar(_))) {
            let indices = scalar_subs(subs);
            let element = Type {
                complex: ty.complex,
                ..Type::scalar(ty.class)
            };
            let e = self.new_expr(ExprKind::Index(array, indices), element, span);
            return Some(Val::Scalar(e));
        }
        Some(Val::Array(self.slice(array, subs, span)))
    }

    /// Lowers the subscripts of `A(...)`, with `end` standing for the extent it indexes; a
    /// logical mask becomes the vector of its true positions. One, two or three subscripts index
    /// any array, as in MATLAB: the last one spans the trailing dimensions (`A(i, j)` of a 3-D
    /// `A`), and a third one of a 2-D array must be 1.
    pub(super) fn subscripts(&mut self, array: LocalId, args: &[ast::Expr]) -> Option<Vec<Sub>> {
        let subs = self.subscripts_with_masks(array, args)?;
        Some(self.masks_to_indices(array, subs))
    }

    /// Lowers the subscripts of `A(...)`, keeping logical masks as they are.
    pub(super) fn subscripts_with_masks(
        &mut self,
        array: LocalId,
        args: &[ast::Expr],
    ) -> Option<Vec<Subscript>> {
        if args.is_empty() {
            self.unsupported(
                self.locals[array].span,
                "indexing with 0 subscripts",
                "use A(k), A(i, j) or A(i, j, k)",
            );
            return None;
        }
        if args.len() > 3 {
            self.trailing_subscripts(array, args)?;
        }
        let mut out = Vec::with_capacity(args.len());
        for (position, arg) in args.iter().take(3).enumerate() {
            self.scope.index_context.push(IndexContext {
                array,
                position,
                count: args.len().min(3),
            });
            let sub = self.subscript(arg);
            self.scope.index_context.pop();
            out.push(sub);
        }
        let subs: Vec<Subscript> = out.into_iter().collect::<Option<_>>()?;
        Some(subs)
    }

    pub(super) fn subscript(&mut self, arg: &ast::Expr) -> Option<Subscript> {
        match &strip_parens(arg).kind {
            AstExpr::Colon => Some(Subscript::Plain(Sub::All)),
            AstExpr::Range { start, step, stop } => {
                let (start, s, stop) =
                    self.range_operands(start, step.as_deref(), stop, arg.span)?;
                let s = s.unwrap_or_else(|| self.constant_expr(1.0, Class::Double, arg.span));
                // A start or step that may be fractional is checked where each element is
                // used: a fractional index stops with MATLAB's message, an empty range reads
                // nothing.
                Some(Subscript::Plain(Sub::Range {
                    start,
                    step: s,
                    stop,
                }))
            }
            _ => match self.value(arg)? {
                Val::Scalar(e) => self
                    .check_index_class(e)
                    .map(|e| Subscript::Plain(Sub::Scalar(e))),
                Val::Array(a) => self.array_subscript(a),
            },
        }
    }

    fn check_index_class(&mut self, id: ExprId) -> Option<ExprId> {
        let expr = &self.exprs[id];
        if expr.ty.class == Class::Logical || expr.ty.class == Class::Char {
            let span = expr.span;
            self.unsupported(
                span,
                "a logical or char index",
                "index with a numeric position",
            );
            return None;
        }
        Some(id)
    }

    fn builtin(&mut self, builtin: Builtin, args: &[ast::Expr], span: Span) -> Option<Val> {
        if args.len() != builtin.arity() {
            self.error(
                "E0105",
                span,
                format!("wrong number of arguments to `{}`", builtin.name()),
                format!(
                    "`{}` takes {} argument(s) here",
                    builtin.name(),
                    builtin.arity()
                ),
            );
            return None;
        }
        let vals = self.values(args)?;
        if let Some(scalars) = complex_arguments(self, builtin, &vals) {
            return self.complex_call(builtin, scalars, span).map(Val::Scalar);
        }
        let classes: Vec<Class> = vals.iter().map(|v| val_class(self, v)).collect();
        let class = self.builtin_class(builtin, &classes, span)?;
        if vals.iter().all(|v| matches!(v, Val::Scalar(_))) {
            let ids = vals
                .into_iter()
                .filter_map(|v| match v {
                    Val::Scalar(e) => Some(e),
                    Val::Array(_) => None,
                })
                .collect();
            return Some(Val::Scalar(self.new_expr(
                ExprKind::Call(builtin, ids),
                Type::scalar(class),
                span,
            )));
        }
        self.elementwise_call(builtin, vals, class, span)
    }

    pub(super) fn elementwise_call(
        &mut self,
        builtin: Builtin,
        vals: Vec<Val>,
        class: Class,
        span: Span,
    ) -> Option<Val> {
        let arrays: Vec<&ArrayVal> = vals
            .iter()
            .filter_map(|v| match v {
                Val::Array(a) => Some(a),
                Val::Scalar(_) => None,
            })
            .collect();
        self.check_call_narrowing(builtin, &arrays, span)?;
        let first = arrays[0].clone();
        for other in arrays[1..].iter().map(|a| (*a).clone()).collect::<Vec<_>>() {
            self.check_same_size(&first, &other, span)?;
        }
        let mut operands: Vec<Operand> = vals
            .into_iter()
            .map(|v| match v {
                Val::Scalar(e) => Operand::Scalar(e),
                Val::Array(a) => Operand::Array(Box::new(a)),
            })
            .collect();
        // The scalar `max(x, y)` returns `y` when the two are equal (-0 and +0), as Octave's
        // does for scalars; for arrays Octave keeps the first array's element (or the array's
        // against a scalar), so that operand goes second.
        if matches!(builtin, Builtin::Max | Builtin::Min)
            && matches!(operands[0], Operand::Array(_))
        {
            operands.swap(0, 1);
        }
        let (rows, cols) = (self.copy_expr(first.rows), self.copy_expr(first.cols));
        Some(Val::Array(ArrayVal {
            class,
            shape: first.shape,
            rows,
            cols,
            node: Node::Call(builtin, operands),
            span,
        }))
    }

    /// `bitand`, `bitor` and `bitxor` refuse a char (MATLAB and Octave stop) and two logicals
    /// (Octave's result is logical, the double arithmetic's is not).
    fn check_bitwise_classes(
        &mut self,
        builtin: Builtin,
        args: &[Class],
        span: Span,
    ) -> Option<()> {
        let name = builtin.name();
        let (message, help) = if args.contains(&Class::Char) {
            (
                format!(
                    "`{name}` of a char: MATLAB and Octave stop (bitwise operands must be numeric)"
                ),
                format!("convert the characters first, as in `{name}(double(c), 223)`"),
            )
        } else if args.iter().all(|c| *c == Class::Logical) {
            (
                format!("`{name}` of two logicals: Octave returns logical and MATLAB double, so m2cu takes neither"),
                format!("write `a & b` (or `|`, `xor`) for the logical result, or `{name}(double(a), double(b))`"),
            )
        } else {
            return Some(());
        };
        self.error("E0106", span, message, help);
        None
    }

    pub(super) fn builtin_class(
        &mut self,
        builtin: Builtin,
        args: &[Class],
        span: Span,
    ) -> Option<Class> {
        if builtin == Builtin::Xor && args.contains(&Class::Char) {
            self.error(
                "E0106",
                span,
                "`xor` of a char: MATLAB and Octave convert no char to logical".into(),
                "compare the characters first, as in `xor(c == 'y', flag)`".into(),
            );
            return None;
        }
        if matches!(builtin, Builtin::BitAnd | Builtin::BitOr | Builtin::BitXor) {
            self.check_bitwise_classes(builtin, args, span)?;
        }
        if builtin.is_float_test() || builtin == Builtin::Xor {
            return Some(Class::Logical);
        }
        if matches!(builtin, Builtin::Upper | Builtin::Lower) {
            return Some(args[0]);
        }
        if builtin == Builtin::BitShift {
            return self.shifted_class(args[0], span);
        }
        let class = match args {
            [a, b, ..] => self.combine(*a, *b, span)?,
            _ => arithmetic_class(args[0]),
        };
        let floating_only = matches!(
            builtin,
            Builtin::Sqrt
                | Builtin::Exp
                | Builtin::Log
                | Builtin::Angle
                | Builtin::Elementary(_)
                | Builtin::NthRoot
        );
        if floating_only && class.is_integer() {
            let call = match builtin.arity() {
                1 => format!("{}(double(x))", builtin.name()),
                _ => format!("{}(double(x), double(y))", builtin.name()),
            };
            self.error(
                "E0106",
                span,
                format!(
                    "`{}` is not defined for integer class {class}",
                    builtin.name()
                ),
                format!("convert first: `{call}`"),
            );
            return None;
        }
        Some(class)
    }

    /// The class of `bitshift(a, k)`: `a`'s, which must be numeric (Octave: "bitshift: not
    /// defined for char objects").
    fn shifted_class(&mut self, a: Class, span: Span) -> Option<Class> {
        if a.is_integer() || a.is_float() {
            return Some(a);
        }
        self.error(
            "E0106",
            span,
            format!("bitshift: not defined for {a} objects"),
            "shift a number: `bitshift(double(a), k)`, or `bitshift(uint8(c), k)` for the codes of chars".into(),
        );
        None
    }

    pub(super) fn conversion(
        &mut self,
        class: Class,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        let [arg] = args else {
            self.error(
                "E0105",
                span,
                format!("`{class}` takes one argument"),
                format!("write `{class}(x)`"),
            );
            return None;
        };
        Some(match self.value(arg)? {
            Val::Scalar(e) => {
                Val::Scalar(self.new_expr(ExprKind::Convert(e), Type::scalar(class), span))
            }
            Val::Array(a) => Val::Array(a.wrap(class, span, Node::Convert)),
        })
    }

    /// `intmax(cls)` / `intmin(cls)` (`'int32'` when no class is given): the class's limit,
    /// written as the conversion of a double that saturates to it, since a double cannot hold
    /// every 64-bit limit exactly.
    fn class_limit(&mut self, max: bool, args: &[ast::Expr], span: Span) -> Option<Val> {
        let name = if max { "intmax" } else { "intmin" };
        let class = match args {
            [] => Some(Class::Int32),
            [arg] => text_literal(arg)
                .and_then(Class::from_name)
                .filter(|c| c.is_integer()),
            _ => None,
        };
        let Some(class) = class else {
            self.error(
                "E0105",
                span,
                format!("unsupported arguments to `{name}`"),
                format!("write {name}('int8'), {name}('uint64') or another integer class name"),
            );
            return None;
        };
        let (lo, hi) = class.int_range()?;
        let limit = self.constant_expr(if max { hi } else { lo }, Class::Double, span);
        Some(Val::Scalar(self.new_expr(
            ExprKind::Convert(limit),
            Type::scalar(class),
            span,
        )))
    }

    /// `a:b` or `a:s:b` used as a value: a lazy row vector when start and step are integral,
    /// else written out by a `for` loop over the range, which follows the colon rule exactly;
    /// converted to the range's class (`range_class`) when that is not double.
    fn range_value(
        &mut self,
        start: &ast::Expr,
        step: Option<&ast::Expr>,
        stop: &ast::Expr,
        span: Span,
    ) -> Option<Val> {
        let (a, s, b) = self.range_operands(start, step, stop, span)?;
        let s = s.unwrap_or_else(|| self.constant_expr(1.0, Class::Double, span));
        let class = self.range_class(&[a, s, b], span)?;
        Some(self.range_of(a, s, b, class, span))
    }

    /// The range `a:s:b` of the scalars `a`, `s` and `b` in `class` (`range_class`).
    pub(super) fn range_of(
        &mut self,
        a: ExprId,
        s: ExprId,
        b: ExprId,
        class: Class,
        span: Span,
    ) -> Val {
        let range = match self.integral_range(a, s, b, span) {
            Some(range) => range,
            None => self.fractional_range(a, s, b, span),
        };
        Val::Array(match class {
            Class::Double => range,
            _ => range.wrap(class, span, Node::Convert),
        })
    }

    fn fractional_range(&mut self, a: ExprId, s: ExprId, b: ExprId, span: Span) -> ArrayVal {
        let double = Type::scalar(Class::Double);
        let (a2, s2, b2) = (self.copy_expr(a), self.copy_expr(s), self.copy_expr(b));
        let count = self.new_expr(ExprKind::RangeCount(a2, s2, b2), double, span);
        let temp = self.temp(
            "t",
            Type::array(Class::Double, Shape::new(Dim::Known(1), Dim::Var)),
            span,
        );
        let one = self.constant_expr(1.0, Class::Double, span);
        self.alloc_zeros(temp, one, count, None, span);
        let counter = self.temp("n", double, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        self.push(
            StmtKind::Assign {
                target: counter,
                value: zero,
            },
            span,
        );
        let var = self.temp("v", double, span);
        self.open_block();
        let (c, one) = (
            self.new_expr(ExprKind::Local(counter), double, span),
            self.constant_expr(1.0, Class::Double, span),
        );
        let next = self.binary_expr(BinOp::Add, c, one, Class::Double, span);
        self.push(
            StmtKind::Assign {
                target: counter,
                value: next,
            },
            span,
        );
        let at = self.new_expr(ExprKind::Local(counter), double, span);
        let v = self.new_expr(ExprKind::Local(var), double, span);
        self.push(
            StmtKind::Store {
                array: temp,
                indices: vec![at],
                value: v,
            },
            span,
        );
        let body = self.close_block();
        self.push(
            StmtKind::For {
                var,
                start: a,
                step: Some(s),
                stop: b,
                body,
            },
            span,
        );
        self.whole(temp, span)
    }
}

/// The class of a value.
pub(super) fn val_class(l: &Lowerer<'_>, v: &Val) -> Class {
    match v {
        Val::Scalar(e) => l.exprs[*e].ty.class,
        Val::Array(a) => a.class,
    }
}

/// A value's kind as a message names it: `complex`, or its class.
pub(super) fn val_kind(l: &Lowerer<'_>, v: &Val) -> String {
    if val_is_complex(l, v) {
        "complex".to_string()
    } else {
        val_class(l, v).to_string()
    }
}

/// Whether a value is complex.
pub(super) fn val_is_complex(l: &Lowerer<'_>, v: &Val) -> bool {
    match v {
        Val::Scalar(e) => l.exprs[*e].ty.complex,
        Val::Array(a) => l.element_type(a).complex,
    }
}

/// The scalar arguments of a call of `builtin` that `lower::complex` lowers: one of them is
/// complex, or the builtin is one of `complex::is_complex_builtin` (of scalars).
fn complex_arguments(l: &Lowerer<'_>, builtin: Builtin, vals: &[Val]) -> Option<Vec<ExprId>> {
    let scalars: Vec<ExprId> = vals
        .iter()
        .filter_map(|v| match v {
            Val::Scalar(e) => Some(*e),
            Val::Array(_) => None,
        })
        .collect();
    let complex = scalars.iter().any(|&e| l.exprs[e].ty.complex);
    let all_scalar = scalars.len() == vals.len();
    let makes_complex = builtin == Builtin::Complex && all_scalar;
    let scalar_call = all_scalar && (complex || super::complex::is_complex_builtin(builtin));
    (makes_complex || scalar_call).then_some(scalars)
}

/// Whether [`Lowerer::call`] translates a call of `name` that is no function of the program
/// (a builtin, a reduction, a conversion, a fill or a size query): what `@name` may name.
pub(super) fn is_builtin_name(name: &str) -> bool {
    super::reduce::Reduction::from_name(name).is_some()
        || Builtin::from_name(name).is_some()
        || Class::from_name(name).is_some()
        || fill_named(name).is_some()
        || super::class_query::CLASS_TESTS.contains(&name)
        || SIZE_FUNCTIONS.contains(&name)
        || LOWERED_FUNCTIONS.contains(&name)
}

/// Calls lowering translates by name that a handle (`@name`) may not name.
pub(super) const OTHER_CALLS: &[&str] = &[
    "nthroot", "exist", "sprintf", "num2str", "int2str", "feval", "arrayfun", "cellfun",
];

/// Functions lowering translates by name besides the builtins, classes, fills and the lists of
/// other modules.
pub(super) const LOWERED_FUNCTIONS: &[&str] = &[
    "intmax", "intmin", "eye", "nnz", "linspace", "diag", "norm", "find", "issorted", "dot",
    "trace", "fliplr", "flipud", "repmat", "horzcat", "vertcat", "cat", "isa", "class", "cast",
    "reshape", "squeeze", "strcmp", "strcmpi", "strncmp", "strncmpi", "ischar",
];

/// Which extent of `a op b` is known to be 1 from its operands' shapes, for a matrix division:
/// `b / A` has as many rows as `b` (`size(b, 1)`-by-`size(A, 1)`, or `b`'s shape for a scalar
/// `A`), so a row or scalar `b` gives a row; `A \ b` has as many columns as `b`, so a column
/// or scalar `b` gives a column. The bundled functions' own types cannot know it, since which
/// branch runs depends on sizes known when the program runs.
fn kept_extent(op: BinaryOp, a: &Val, b: &Val) -> Option<UnitExtent> {
    let unit_rows = |v: &Val| match v {
        Val::Scalar(_) => true,
        Val::Array(x) => x.shape.rows == Dim::Known(1),
    };
    let unit_cols = |v: &Val| match v {
        Val::Scalar(_) => true,
        Val::Array(x) => x.shape.cols == Dim::Known(1),
    };
    match op {
        BinaryOp::Div if unit_rows(a) => Some(UnitExtent::Rows),
        BinaryOp::LeftDiv if unit_cols(b) => Some(UnitExtent::Cols),
        _ => None,
    }
}

/// An extent of a 2-D value.
#[derive(Clone, Copy)]
enum UnitExtent {
    Rows,
    Cols,
}

impl Lowerer<'_> {
    /// `v` with `extent` known to be 1 (its value has that extent 1 when the program runs).
    fn with_unit_extent(&mut self, v: Val, extent: Option<UnitExtent>, span: Span) -> Val {
        let (Val::Array(mut a), Some(extent)) = (v.clone(), extent) else {
            return v;
        };
        let one = self.constant_expr(1.0, Class::Double, span);
        match extent {
            UnitExtent::Rows => (a.shape.rows, a.rows) = (Dim::Known(1), one),
            UnitExtent::Cols => (a.shape.cols, a.cols) = (Dim::Known(1), one),
        }
        Val::Array(a)
    }
}

/// `isequal(a, b, c, ...)`: `isequal(a, b) && isequal(a, c) && ...`, as MATLAB compares every
/// value with the first.
fn all_equal(first: &ast::Expr, second: &ast::Expr, rest: &[ast::Expr], span: Span) -> ast::Expr {
    let pair = |other: &ast::Expr| {
        super::ast_build::call("isequal", vec![first.clone(), other.clone()], span)
    };
    rest.iter().fold(pair(second), |all, other| ast::Expr {
        kind: AstExpr::Binary {
            op: BinaryOp::AndAnd,
            lhs: Box::new(all),
            rhs: Box::new(pair(other)),
        },
        span,
    })
}

/// The bundled function that computes `a op b` where it is a matrix operation other than the
/// product: `A \ b` with an array `A` (`mldivide`), `b / A` with an array `A` (`mrdivide`),
/// `A ^ p` with an array operand (`mpower`). A scalar divisor divides elementwise, and a
/// scalar to a scalar power is a scalar, as in MATLAB, and stay scalar operations here.
fn matrix_operation(op: BinaryOp, a: &Val, b: &Val) -> Option<&'static str> {
    match (op, a, b) {
        (BinaryOp::LeftDiv, Val::Array(_), _) => Some("mldivide"),
        (BinaryOp::Div, _, Val::Array(_)) => Some("mrdivide"),
        (BinaryOp::Pow, Val::Array(_), _) | (BinaryOp::Pow, _, Val::Array(_)) => Some("mpower"),
        _ => None,
    }
}
