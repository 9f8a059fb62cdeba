//! Function handles and anonymous functions: `f = @(x) x.^2 - c`, `@myfun`, `@abs`, and the
//! calls `f(a)`, `feval(f, a)`, `arrayfun(f, v)` and `solve(f, 2, 3)`.
//!
//! A handle is a translation-time value ([`Handle`]): it never exists at run time, so every
//! call of one is inlined, like a call of a local function. MATLAB captures, when an anonymous
//! function is defined, the values of the other variables its body names (`c = 2; f = @(x) x +
//! c; c = 5; f(1)` is 3): a variable the function assigns at most once is read in place (its
//! value cannot change after the definition), any other is copied into a hidden local there (a
//! handle is captured as the handle), and the body is lowered at each call in a scope holding
//! only those and the parameters bound to the arguments (a scalar variable read in place, other
//! scalars into new locals, arrays shared when whole, as `inline` binds a callee's inputs).
//! Names the body calls resolve in the file that defined the handle. `@name` is resolved when
//! it is called: a function of the program (inlined with its handle arguments bound, so a
//! callee taking a handle is specialized per handle at each call) or a builtin m2cu knows
//! (E0159 otherwise), never a variable of that name. `arrayfun(f, v)` is a loop over `v`'s
//! elements; where MATLAB's empty double result would have another class than m2cu's it stops
//! with `M2CU_E_ARRAYFUN_EMPTY`.
//!
//! Handles are held by name in `Lowerer::handles`, apart from the scope of locals, and follow
//! its scoping (`inline` saves and restores both). A statement that may run zero or many times
//! or may be skipped (`for`, `while`, an `if` decided at run time, `switch`) and that assigns a
//! name holding a handle before or after it leaves that name [`Slot::Ambiguous`] (inside a
//! loop's body too, until the body assigns it): what it holds is a run-time choice, and reading
//! it is E0157. A handle used as a number, stored in an array or a cell, returned, or given to
//! `func2str` is also E0157; `feval` of anything but a handle or a literal function name, and a
//! `function_handle` input of the entry function (a run-time value), are E0158.

use std::collections::HashMap;
use std::rc::Rc;

use super::array::{Pos, Val};
use super::*;

mod chosen;

/// A function value known at translation time.
pub(super) enum Handle<'a> {
    /// `@name`, resolved in `file` when called.
    Named {
        name: ast::Ident,
        file: &'a ast::File,
    },
    /// `@(params) body` with the values it captured.
    Anonymous(Anonymous<'a>),
}

pub(super) struct Anonymous<'a> {
    params: Vec<ast::Ident>,
    body: ast::Expr,
    /// The variables the body names, as they were at the definition.
    captured: HashMap<String, Binding<'a>>,
    file: &'a ast::File,
}

impl Handle<'_> {
    /// How the handle is written: `name` or the anonymous function's text.
    pub(super) fn label(&self) -> String {
        match self {
            Handle::Named { name, .. } => name.name.clone(),
            Handle::Anonymous(anon) => anon.source_text(),
        }
    }
}

impl<'a> Anonymous<'a> {
    /// `@(a, b) name(a, b)`, with names spanning `at`: how `@name` of a builtin folds.
    pub(super) fn calling(name: &str, at: Span, file: &'a ast::File) -> Anonymous<'a> {
        let ident = |name: &str| ast::Ident {
            name: name.to_string(),
            span: at,
        };
        let read = |name: &str| ast::Expr {
            kind: AstExpr::Ident(name.to_string()),
            span: at,
        };
        Anonymous {
            params: vec![ident("a"), ident("b")],
            body: ast::Expr {
                kind: AstExpr::Call {
                    callee: ident(name),
                    args: vec![read("a"), read("b")],
                },
                span: at,
            },
            captured: HashMap::new(),
            file,
        }
    }

    /// The function as written, `@(a, b) a + b`.
    pub(super) fn source_text(&self) -> String {
        let params: Vec<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
        let body = crate::ast_source::print_expr_source(&self.body);
        format!("@({}) {body}", params.join(", "))
    }
}

/// What a name is bound to in a scope: a local, or a handle.
pub(super) enum Binding<'a> {
    Value(LocalId),
    Handle(Rc<Handle<'a>>),
}

/// What a name assigned a handle holds at this point of the program.
#[derive(Clone)]
pub(super) enum Slot<'a> {
    Known(Rc<Handle<'a>>),
    /// Assigned, a handle or another value, in a loop or a branch decided at run time (the
    /// statement at `defined`).
    Ambiguous {
        defined: Span,
    },
    /// Assigned a handle expression that was reported: its uses say nothing more.
    Failed,
    /// One of several handles, chosen at run time by branches (`chosen`).
    Chosen(chosen::Chosen<'a>),
}

/// The handles in scope, by variable name (the map is reached through `Deref`).
#[derive(Clone, Default)]
pub(super) struct Handles<'a> {
    slots: HashMap<String, Slot<'a>>,
    /// Whether the scope is an anonymous function's body, whose names are not the current
    /// function's variables.
    in_anonymous: bool,
    /// The run-time tags of the names assigned handles in branches decided at run time, each
    /// with every handle it has numbered (`chosen`).
    tags: HashMap<String, chosen::Chosen<'a>>,
    /// How many `if`/`switch` statements being lowered enclose the current statement.
    choosing: usize,
}

impl<'a> std::ops::Deref for Handles<'a> {
    type Target = HashMap<String, Slot<'a>>;
    fn deref(&self) -> &Self::Target {
        &self.slots
    }
}

impl std::ops::DerefMut for Handles<'_> {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.slots
    }
}

/// An argument of a call: a value, or a handle passed to a function taking one.
#[derive(Clone)]
pub(super) enum Arg<'a> {
    Value(Val),
    Handle(Rc<Handle<'a>>),
    /// A struct or a cell of texts passed whole: its parts' values.
    Parts(Parts),
}

/// A value passed whole as the variables it is kept in: a struct's fields (`p.k`) or a text
/// cell's three parts (`lower::cells`).
#[derive(Clone)]
pub(super) struct Parts {
    pub whole: Whole,
    /// Each part's name after (a field) or before (a cell's part) the value's, and its value.
    pub values: super::fields::StructVal,
}

/// What kind of value [`Parts`] hold.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Whole {
    Struct,
    Cell,
}

impl Whole {
    /// The variable that keeps `part` of the value named `base`: `base.part` for a struct,
    /// `<part>base` for a cell (`_cell_text_base`).
    pub(super) fn part_name(self, base: &str, part: &str) -> String {
        match self {
            Whole::Struct => format!("{base}.{part}"),
            Whole::Cell => format!("{part}{base}"),
        }
    }
}

/// Functions that take or give handles and cannot be translated.
const HANDLE_TEXT_FUNCTIONS: &[&str] = &["func2str", "str2func"];

impl<'a> Lowerer<'a> {
    /// The handle `e` denotes: `None` when `e` is not a handle expression, `Some(None)` when it
    /// is one that failed (reported).
    pub(super) fn handle_expr(&mut self, e: &ast::Expr) -> Option<Option<Rc<Handle<'a>>>> {
        match &e.kind {
            AstExpr::Paren(inner) => self.handle_expr(inner),
            AstExpr::FuncHandle(name) => Some(self.named_handle(name)),
            AstExpr::AnonFn { params, body } => Some(Some(self.anonymous(params, body))),
            AstExpr::Ident(name) => {
                let slot = self.scope.handles.get(name)?.clone();
                Some(self.known_handle(name, slot, e.span))
            }
            _ => None,
        }
    }

    /// `@name`: a function of the program or a builtin m2cu translates.
    fn named_handle(&mut self, name: &ast::Ident) -> Option<Rc<Handle<'a>>> {
        if !self.is_function(&name.name) && !super::expr::is_builtin_name(&name.name) {
            self.error(
                "E0159",
                name.span,
                format!("`@{}` names a function that m2cu does not know", name.name),
                format!(
                    "a handle must name a local function, a function file `{0}.m`, or a builtin m2cu translates (`@abs`, `@sqrt`, `@max`, ...); m2cu has no `{0}`",
                    name.name
                ),
            );
            return None;
        }
        Some(Rc::new(Handle::Named {
            name: name.clone(),
            file: self.file,
        }))
    }

    /// `@(params) body`: captures the variables `body` names, as they are now.
    fn anonymous(&mut self, params: &[ast::Ident], body: &ast::Expr) -> Rc<Handle<'a>> {
        let mut names = Vec::new();
        named_in(body, &mut names);
        let mut captured = HashMap::new();
        for name in names {
            if params.iter().any(|p| p.name == name) || captured.contains_key(&name) {
                continue;
            }
            let parts: Vec<String> = if self.scope.names.contains_key(&name) {
                Vec::new()
            } else if self.is_struct(&name) {
                // A struct is captured field by field.
                let fields = self.struct_fields(&name).into_iter();
                fields.map(|(field, _)| format!("{name}.{field}")).collect()
            } else if self.is_text_cell(&name) {
                // A cell of texts, by its three parts.
                let parts = [super::cells::TEXT, super::cells::START, super::cells::LEN];
                parts.iter().map(|p| format!("{p}{name}")).collect()
            } else {
                Vec::new()
            };
            if !parts.is_empty() {
                for part in parts {
                    if let Some(binding) = self.capture(&part, body.span) {
                        captured.insert(part, binding);
                    }
                }
                continue;
            }
            if let Some(binding) = self.capture(&name, body.span) {
                captured.insert(name, binding);
            }
        }
        Rc::new(Handle::Anonymous(Anonymous {
            params: params.to_vec(),
            body: body.clone(),
            captured,
            file: self.file,
        }))
    }

    /// The value of the variable `name` for a definition at `span`: the variable itself when
    /// the function assigns it at most once (that assignment is behind us), else a copy;
    /// `None` when no variable has that name (the body then calls a function of that name, or
    /// fails when called, as in MATLAB).
    fn capture(&mut self, name: &str, span: Span) -> Option<Binding<'a>> {
        if let Some(Slot::Known(h)) = self.scope.handles.get(name) {
            return Some(Binding::Handle(h.clone()));
        }
        let &id = self.scope.names.get(name)?;
        if !self.scope.handles.in_anonymous {
            let function = self.inlining.last().copied().unwrap_or(self.entry.function);
            // A field is assigned also where its struct is (`p = f(...)`, `p.g = q`), a cell's
            // part where the cell or its contents are (`c{k} = v`).
            let cell_parts = [super::cells::TEXT, super::cells::START, super::cells::LEN];
            let base = (cell_parts.iter())
                .find_map(|p| name.strip_prefix(p))
                .unwrap_or(name);
            let assigned: usize =
                std::iter::successors(Some(base), |n| Some(n.rsplit_once('.')?.0))
                    .map(|n| super::inline::assignments(&function.body, n))
                    .sum();
            if assigned <= 1 {
                return Some(Binding::Value(id));
            }
        }
        let ty = self.locals[id].ty;
        let copy = self.temp(&format!("cap_{name}_"), ty, span);
        let read = ast::Expr {
            kind: AstExpr::Ident(name.to_string()),
            span,
        };
        match self.value(&read)? {
            Val::Scalar(value) => {
                self.push(
                    StmtKind::Assign {
                        target: copy,
                        value,
                    },
                    span,
                );
            }
            Val::Array(a) => {
                self.alloc_for(copy, &a);
                let place = self.whole_place(copy, span);
                self.write_loop(&place, &Val::Array(a), span);
            }
        }
        Some(Binding::Value(copy))
    }

    fn known_handle(&mut self, name: &str, slot: Slot<'a>, span: Span) -> Option<Rc<Handle<'a>>> {
        match slot {
            Slot::Known(h) => Some(h),
            Slot::Failed => None,
            Slot::Chosen(chosen) => self.single_choice(name, &chosen, span),
            Slot::Ambiguous { defined } => {
                self.report(
                    Diagnostic::error(
                        "E0157",
                        span,
                        format!("`{name}` holds a function handle or another value depending on the path the program takes (assigned in a loop or a branch)"),
                    )
                    .with_secondary(defined, "assigned here")
                    .with_help(format!(
                        "m2cu resolves handles at translation time: assign `{name}` outside loops and branches (or use it in a loop body only after the body assigns it), or call each function in its own branch, `if c, y = f1(x); else, y = f2(x); end`"
                    )),
                );
                None
            }
        }
    }

    /// `name = value` where `value` is a handle: `Some` when it was one (assigned or
    /// reported), `None` for any other value (a handle `name` held is then forgotten).
    pub(super) fn assign_handle(&mut self, name: &ast::Ident, value: &ast::Expr) -> Option<()> {
        let Some(handle) = self.handle_expr(value) else {
            self.scope.handles.remove(&name.name);
            return None;
        };
        let slot = match handle {
            Some(h) if self.scope.handles.choosing > 0 => self.choose(&name.name, h, value.span),
            Some(h) => Slot::Known(h),
            None => Slot::Failed,
        };
        self.scope.handles.insert(name.name.clone(), slot);
        Some(())
    }

    /// The handles before a statement that may run its body zero or many times, or choose a
    /// branch at run time. A loop's body may read a handle it assigns before the assignment,
    /// which is then the previous iteration's: such names are ambiguous inside the loop too.
    pub(super) fn handles_before(&mut self, stmt: &ast::Stmt) -> Option<Handles<'a>> {
        let body = match &stmt.kind {
            AstStmt::For { body, .. } | AstStmt::While { body, .. } => body,
            AstStmt::If { .. } | AstStmt::Switch { .. } => {
                let before = self.scope.handles.clone();
                self.tag_before_branches(stmt);
                self.scope.handles.choosing += 1;
                return Some(before);
            }
            _ => return None,
        };
        let before = self.scope.handles.clone();
        for (name, slot) in self.scope.handles.iter_mut() {
            if super::inline::assigns(body, name) {
                *slot = Slot::Ambiguous { defined: stmt.span };
            }
        }
        Some(before)
    }

    /// After such a statement: each handle it assigned is ambiguous, unless it was an `if`
    /// decided at translation time (`lowered` is `None`: only the branch taken was lowered).
    pub(super) fn handles_after(
        &mut self,
        before: Option<Handles<'a>>,
        stmt: &ast::Stmt,
        lowered: Option<StmtId>,
    ) {
        let Some(before) = before else { return };
        let branches = matches!(stmt.kind, AstStmt::If { .. } | AstStmt::Switch { .. });
        if branches {
            self.scope.handles.choosing -= 1;
        }
        if matches!(stmt.kind, AstStmt::If { .. }) && lowered.is_none() {
            return;
        }
        let settled = if branches {
            self.chosen_after(stmt)
        } else {
            Vec::new()
        };
        // A name that held a handle before and another value after (or the reverse) holds
        // either, depending on the path taken.
        let names: Vec<String> = before
            .keys()
            .chain(self.scope.handles.keys())
            .cloned()
            .collect();
        for name in names.into_iter().filter(|n| !settled.contains(n)) {
            let same = match (before.get(&name), self.scope.handles.get(&name)) {
                (Some(Slot::Known(old)), Some(Slot::Known(new))) => Rc::ptr_eq(old, new),
                (Some(Slot::Chosen(old)), Some(Slot::Chosen(new))) => old.same_choice(new),
                (_, Some(Slot::Ambiguous { .. } | Slot::Failed)) | (None, None) => true,
                _ => false,
            };
            if !same {
                let defined = stmt.span;
                self.scope.handles.insert(name, Slot::Ambiguous { defined });
            }
        }
    }

    /// `f(args)` where `f` names a handle.
    pub(super) fn call_handle_variable(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        self.handle_variable_outputs(callee, args, 1, span)?.pop()
    }

    /// The arguments of a call, handles kept as handles; every one is lowered before any
    /// failure is returned.
    pub(super) fn arguments(&mut self, args: &[ast::Expr]) -> Option<Vec<Arg<'a>>> {
        let lowered: Vec<Option<Arg<'a>>> = args
            .iter()
            .map(|a| match self.struct_value(a) {
                Some(fields) => fields.map(|values| {
                    Arg::Parts(Parts {
                        whole: Whole::Struct,
                        values,
                    })
                }),
                None => match self.cell_argument(a) {
                    Some(cell) => cell.map(Arg::Parts),
                    None => self.argument(a),
                },
            })
            .collect();
        lowered.into_iter().collect()
    }

    /// One argument that is no struct.
    fn argument(&mut self, a: &ast::Expr) -> Option<Arg<'a>> {
        match self.handle_expr(a) {
            Some(h) => h.map(Arg::Handle),
            None if super::grow::is_empty_matrix(a) => self.empty_argument(a.span).map(Arg::Value),
            None => self.value(a).map(Arg::Value),
        }
    }

    /// The value of calling `handle` (held by `label`) with `args`.
    pub(super) fn invoke(
        &mut self,
        handle: &Handle<'a>,
        label: &str,
        args: Vec<Arg<'a>>,
        span: Span,
    ) -> Option<Val> {
        self.invoke_outputs(handle, label, args, 1, span)?.pop()
    }

    /// The first `nargout` outputs of calling `handle` (held by `label`) with `args`.
    fn invoke_outputs(
        &mut self,
        handle: &Handle<'a>,
        label: &str,
        args: Vec<Arg<'a>>,
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Val>> {
        let anon = match handle {
            Handle::Anonymous(anon) => anon,
            Handle::Named { name, file } => {
                let callee = ast::Ident {
                    name: name.name.clone(),
                    span,
                };
                let here = std::mem::replace(&mut self.file, file);
                if self.is_function(&name.name) {
                    let outputs = self.inline_args(&callee, args, nargout, span);
                    self.file = here;
                    return outputs;
                }
                self.file = here;
                return self.call_builtin_with(&callee, args, nargout, span);
            }
        };
        if nargout > 1 {
            self.unsupported(
                span,
                &format!("several outputs of the anonymous function `{label}`"),
                "call the function its body calls directly, `[m, k] = max(v)`",
            );
            return None;
        }
        Some(vec![self.call_anonymous(anon, label, args, span)?])
    }

    /// `[a, b] = f(args)` where `f` names a handle.
    pub(super) fn handle_variable_outputs(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Val>> {
        let slot = self.scope.handles.get(&callee.name)?.clone();
        if let Slot::Chosen(chosen) = &slot {
            return self.chosen_outputs(&callee.name, chosen, args, nargout, span);
        }
        let handle = self.known_handle(&callee.name, slot, callee.span)?;
        let args = self.arguments(args)?;
        self.invoke_outputs(&handle, &callee.name, args, nargout, span)
    }

    /// The body of `anon` lowered with its parameters bound to `args`.
    fn call_anonymous(
        &mut self,
        anon: &Anonymous<'a>,
        label: &str,
        args: Vec<Arg<'a>>,
        span: Span,
    ) -> Option<Val> {
        if args.len() > anon.params.len() {
            self.error(
                "E0105",
                span,
                format!(
                    "`{label}` is called with {} input(s) but its anonymous function takes {}",
                    args.len(),
                    anon.params.len()
                ),
                format!("pass at most {} inputs", anon.params.len()),
            );
            return None;
        }
        let saved = self.enter(label, anon.file, span, span);
        self.scope.handles.in_anonymous = true;
        for (name, binding) in &anon.captured {
            match binding {
                Binding::Value(id) => {
                    self.scope.names.insert(name.clone(), *id);
                }
                Binding::Handle(h) => {
                    self.scope
                        .handles
                        .insert(name.clone(), Slot::Known(h.clone()));
                }
            }
        }
        for (param, arg) in anon.params.iter().zip(args) {
            match self.read_of_local(&arg) {
                // The body cannot assign its parameters: a variable's value is read in place,
                // which keeps a call in a `while` condition a plain expression.
                Some(id) => {
                    self.scope.names.insert(param.name.clone(), id);
                }
                None => self.bind_arg(param, arg, false, span),
            }
        }
        let value = self.value(&anon.body);
        self.leave(saved);
        value
    }

    /// The value of calling `handle` on the scalar `value`, in a scope named `scope` (a C name).
    pub(super) fn call_handle_on(
        &mut self,
        handle: &Handle<'a>,
        scope: &str,
        value: ExprId,
        span: Span,
    ) -> Option<Val> {
        self.invoke(handle, scope, vec![Arg::Value(Val::Scalar(value))], span)
    }

    /// `anon` (written `label`) as a function of `gpucoder.reduce`: its body lowered apart from
    /// the program, with its two parameters bound to scalars of `class`; its parameters, output
    /// and body. The variables it captured are read in the body where they are (the combiner
    /// takes them, `Lowerer::combiner`); a captured handle is called like any other.
    pub(super) fn anonymous_combiner(
        &mut self,
        anon: &Anonymous<'a>,
        label: &str,
        at: Span,
        class: Class,
    ) -> Option<([LocalId; 2], LocalId, Block)> {
        if anon.params.len() != 2 {
            self.error(
                "E0114",
                at,
                format!(
                    "`{label}` takes {} input(s), but `gpucoder.reduce` needs a binary function",
                    anon.params.len()
                ),
                "write it as `@(a, b) ...`".into(),
            );
            return None;
        }
        let ty = Type::scalar(class);
        let params = [0, 1].map(|k| self.temp(&format!("{}_", anon.params[k].name), ty, at));
        let output = self.temp("fold", ty, at);
        self.open_block();
        let args = params
            .iter()
            .map(|&p| Arg::Value(self.local_val(p, at)))
            .collect();
        // The scope's name prefixes the body's locals in C: a name, not the source text.
        let value = self.call_anonymous(anon, "reduce", args, at);
        let assigned = match value {
            Some(Val::Scalar(e)) => {
                self.locals[output].ty = self.exprs[e].ty;
                self.push(
                    StmtKind::Assign {
                        target: output,
                        value: e,
                    },
                    at,
                );
                true
            }
            Some(Val::Array(_)) => {
                self.error(
                    "E0114",
                    at,
                    format!("`{label}` returns an array from two {class} scalars, but `gpucoder.reduce` needs a scalar"),
                    "make it return one value of the inputs' class".into(),
                );
                false
            }
            None => false,
        };
        let body = self.close_block();
        assigned.then_some((params, output, body))
    }

    /// The local `arg` reads, when it is a scalar variable's value.
    fn read_of_local(&self, arg: &Arg<'a>) -> Option<LocalId> {
        match arg {
            Arg::Value(Val::Scalar(e)) => match self.exprs[*e].kind {
                ExprKind::Local(id) => Some(id),
                _ => None,
            },
            _ => None,
        }
    }

    /// Binds the parameter `param` of a function being inlined to `arg`; `assigned` says
    /// whether the function's body assigns the parameter or one of its fields (an array
    /// argument is then copied). A struct binds each field, `param.k`.
    pub(super) fn bind_arg(
        &mut self,
        param: &ast::Ident,
        arg: Arg<'a>,
        assigned: bool,
        span: Span,
    ) {
        match arg {
            Arg::Value(val) => self.bind_param(param, val, assigned, span),
            Arg::Handle(h) => {
                self.scope
                    .handles
                    .insert(param.name.clone(), Slot::Known(h));
            }
            Arg::Parts(Parts { whole, values }) => {
                for (part, val) in values {
                    let part = ast::Ident {
                        name: whole.part_name(&param.name, &part),
                        span: param.span,
                    };
                    self.bind_param(&part, val, assigned, span);
                }
                if whole == Whole::Cell && assigned {
                    // A copy of the cell, which the function changes: its parts grow.
                    self.name_cell_parts(param);
                }
            }
        }
    }

    /// A builtin called through a handle: the argument values are bound to hidden names and
    /// the builtin is called on those names, exactly as if written there.
    fn call_builtin_with(
        &mut self,
        callee: &ast::Ident,
        args: Vec<Arg<'a>>,
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Val>> {
        let mut names = Vec::new();
        for arg in args {
            let Arg::Value(val) = arg else {
                self.handle_as_value(span);
                return None;
            };
            self.temps += 1;
            let name = format!("_arg{}", self.temps);
            let id = match val {
                Val::Scalar(value) => {
                    let id = self.temp("arg", self.exprs[value].ty, span);
                    self.push(StmtKind::Assign { target: id, value }, span);
                    id
                }
                Val::Array(a) => match a.node {
                    super::array::Node::Whole(src) => src,
                    _ => self.materialize(&a),
                },
            };
            self.scope.names.insert(name.clone(), id);
            names.push(name);
        }
        let exprs: Vec<ast::Expr> = names
            .iter()
            .map(|n| ast::Expr {
                kind: AstExpr::Ident(n.clone()),
                span,
            })
            .collect();
        // `@abs` names the function even where a variable `abs` exists.
        let variable = self.scope.names.remove(&callee.name);
        let handle = self.scope.handles.remove(&callee.name);
        let value = if nargout == 1 {
            self.call(callee, &exprs, span).map(|v| vec![v])
        } else {
            self.multi_values(callee, &exprs, nargout, span)
        };
        for n in &names {
            self.scope.names.remove(n);
        }
        if let Some(id) = variable {
            self.scope.names.insert(callee.name.clone(), id);
        }
        if let Some(slot) = handle {
            self.scope.handles.insert(callee.name.clone(), slot);
        }
        value
    }

    /// Whether the output `name` holds a handle; if so it is reported (E0157): a handle is
    /// no run-time value, so no function returns one.
    pub(super) fn handle_output(&mut self, name: &ast::Ident) -> bool {
        let found = self.scope.handles.contains_key(&name.name);
        if found {
            self.handle_as_value(name.span);
        }
        found
    }

    /// A handle where a value is needed (E0157).
    pub(super) fn handle_as_value(&mut self, span: Span) {
        self.error(
            "E0157",
            span,
            "a function handle used as a value (in arithmetic, an array or a cell, or as an output)".into(),
            "m2cu resolves handles at translation time: call it, `f(x)`, or pass it to a function that calls it; keep the results in arrays instead of the handles".into(),
        );
    }

    /// An input of the entry function declared `function_handle` (E0158): the caller
    /// chooses its value at run time, and m2cu inlines every call of a handle.
    pub(super) fn handle_input(&mut self, decl: &ast::ArgDecl) {
        let name = &decl.name.name;
        self.error(
            "E0158",
            decl.span,
            format!("`{name}` is a function handle input of the entry function, a value chosen at run time"),
            format!("m2cu inlines every call of a handle, so the program must make it: translate a function that passes it, e.g. `y = solve(@(x) x.^2 - 2, a, b)`, where `solve` takes `{name}`"),
        );
    }

    /// `feval(f, args...)` with a handle `f` or a literal function name.
    pub(super) fn feval(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let Some((first, rest)) = args.split_first() else {
            return self.feval_unknown(span);
        };
        if let AstExpr::Str(name) = &first.kind {
            let callee = ast::Ident {
                name: name.clone(),
                span: first.span,
            };
            return self.call(&callee, rest, span);
        }
        let Some(handle) = self.handle_expr(first) else {
            return self.feval_unknown(first.span);
        };
        let handle = handle?;
        let args = self.arguments(rest)?;
        self.invoke(&handle, "feval", args, span)
    }

    pub(super) fn feval_unknown(&mut self, span: Span) -> Option<Val> {
        self.error(
            "E0158",
            span,
            "`feval` of a function that is not known at translation time".into(),
            "m2cu inlines every call: pass a handle made in the program (`@name`, `@(x) ...`) or write the name as a literal, `feval('name', x)`; a handle cannot be an input of the entry function, so call the function it would hold directly".into(),
        );
        None
    }

    /// `arrayfun(f, v)`: `f` of each element of `v`, a scalar each, into an array of `v`'s
    /// size and of the results' class.
    pub(super) fn arrayfun(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [f, v] = args else {
            self.error(
                "E0158",
                span,
                "`arrayfun` with options or several arrays".into(),
                "write `arrayfun(f, v)` with one array, or a `for` loop over the elements".into(),
            );
            return None;
        };
        let Some(handle) = self.handle_expr(f) else {
            return self.feval_unknown(f.span);
        };
        let (handle, v) = (handle?, self.value(v)?);
        let a = match v {
            Val::Scalar(_) => return self.invoke(&handle, "arrayfun", vec![Arg::Value(v)], span),
            Val::Array(a) => a,
        };
        self.reject_3d(&a, "`arrayfun`")?;
        let label = "arrayfun";
        self.mapped(
            &handle,
            label,
            &a,
            |me, k| Some(Val::Scalar(me.element(&a, Pos::linear(k)))),
            span,
        )
    }

    /// `f` of each element of the array of `shape`'s size (its elements by `element`, of the
    /// loop counter), a scalar each, into an array of that size and of the results' class;
    /// `label` names the calling function (`arrayfun`, `cellfun`).
    pub(super) fn mapped(
        &mut self,
        handle: &Handle<'a>,
        label: &str,
        shape: &super::array::ArrayVal,
        element: impl FnOnce(&mut Self, LocalId) -> Option<Val>,
        span: Span,
    ) -> Option<Val> {
        let k = self.counting_loop_var("k", span);
        self.open_block();
        let result = element(self, k)
            .and_then(|element| self.invoke(handle, label, vec![Arg::Value(element)], span));
        let each = format!("each result of `{label}`");
        let result = result.and_then(|r| self.require_scalar(r, &each));
        let Some(result) = result else {
            self.close_block();
            return None;
        };
        let class = self.exprs[result].ty.class;
        let out = self.temp("map", Type::array(class, shape.shape), span);
        let at = self.new_expr(ExprKind::Local(k), Type::scalar(Class::Double), span);
        self.push(
            StmtKind::Store {
                array: out,
                indices: vec![at],
                value: result,
            },
            span,
        );
        let body = self.close_block();
        if class != Class::Double && !shape.shape.known_nonempty() {
            self.arrayfun_class_check(shape, span);
        }
        self.alloc_for(out, shape);
        let n = self.numel_expr(shape, span);
        self.emit_for(k, n, body, span);
        Some(Val::Array(self.whole(out, span)))
    }

    /// Stops with [`RuntimeError::EmptyArrayfun`] when `a` is empty: MATLAB's `arrayfun`
    /// then gives an empty double, not the function's class.
    fn arrayfun_class_check(&mut self, a: &super::array::ArrayVal, span: Span) {
        let n = self.numel_expr(a, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let cond = self.binary_expr(BinOp::Gt, n, zero, Class::Logical, span);
        let error = crate::ir::RuntimeError::EmptyArrayfun;
        self.push(StmtKind::Check { cond, error }, span);
    }

    /// Whether `name` is a function that takes or gives handles and is not translated; if so
    /// it is reported.
    pub(super) fn handle_text_function(&mut self, callee: &ast::Ident) -> bool {
        let found = HANDLE_TEXT_FUNCTIONS.contains(&callee.name.as_str());
        if found {
            self.error(
                "E0157",
                callee.span,
                format!("`{}` (a function handle as text)", callee.name),
                "m2cu resolves handles at translation time and has no text of them: call the function directly".into(),
            );
        }
        found
    }
}

/// The names `e` reads or calls, in order (repeats included), except the parameters of the
/// anonymous functions nested in it.
fn named_in(e: &ast::Expr, names: &mut Vec<String>) {
    match &e.kind {
        AstExpr::Ident(n) => names.push(n.clone()),
        AstExpr::Call { callee, args } => {
            names.push(callee.name.clone());
            args.iter().for_each(|a| named_in(a, names));
        }
        AstExpr::AnonFn { params, body } => {
            let mut inner = Vec::new();
            named_in(body, &mut inner);
            names.extend(
                inner
                    .into_iter()
                    .filter(|n| !params.iter().any(|p| &p.name == n)),
            );
        }
        AstExpr::Unary { operand, .. } | AstExpr::Postfix { operand, .. } => {
            named_in(operand, names)
        }
        AstExpr::Paren(inner) => named_in(inner, names),
        AstExpr::Binary { lhs, rhs, .. } => {
            named_in(lhs, names);
            named_in(rhs, names);
        }
        AstExpr::Range { start, step, stop } => {
            named_in(start, names);
            step.iter().for_each(|s| named_in(s, names));
            named_in(stop, names);
        }
        AstExpr::Matrix(rows) => rows.iter().flatten().for_each(|x| named_in(x, names)),
        AstExpr::HandleCell(items) | AstExpr::TextCell { items, .. } => {
            items.iter().for_each(|x| named_in(x, names))
        }
        AstExpr::CellIndex { callee, args } | AstExpr::ElementField { callee, args, .. } => {
            names.push(callee.name.clone());
            args.iter().for_each(|a| named_in(a, names));
        }
        AstExpr::Number { .. }
        | AstExpr::Str(_)
        | AstExpr::StringScalar(_)
        | AstExpr::Colon
        | AstExpr::End
        | AstExpr::Imaginary { .. }
        | AstExpr::FuncHandle(_) => {}
    }
}
