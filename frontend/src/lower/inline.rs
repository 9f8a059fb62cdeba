//! Calls to local (and nested) functions and to functions in other files, inlined at the call
//! site.
//!
//! A call to `f` runs, in MATLAB's order: a function of the file being lowered (local or
//! nested, the file's own first function included), else the function file `f.m` of the
//! [`Library`] (whose other functions are visible only inside it: lowering its body switches
//! the current file), else the entry function when `f` is its name. Every call lowers the
//! callee's body again with the argument types of that call, in a fresh scope whose locals are
//! named `_<callee>_<name>` (no MATLAB identifier starts with `_`). MATLAB passes arrays by
//! value: an array argument is shared with the caller only when the callee never assigns to
//! that parameter, otherwise it is copied. A call to a function already being inlined (direct
//! or mutual recursion, across files too) is `E0125`, naming the cycle; `return` inside a
//! callee becomes a flag that guards the rest of its body (`early_return`); a function file that does not parse is reported where it
//! is called (its own diagnostics, in its own file), one that cannot be read is `E0126`.
//!
//! Inlining is bounded, so that translation time, memory and stack stay bounded whatever the
//! source: calls nest at most [`MAX_CALL_DEPTH`] deep (`E0130`), and once the program has
//! lowered to more than [`MAX_LOWERED_NODES`] IR statements and expressions no further call is
//! inlined (`E0131`, reported once): a chain of functions that each call the next twice inlines
//! to exponentially many statements.

use super::array::Val;
use super::early_return;
use super::handles::Arg;
use super::*;
use crate::library::FunctionFile;

/// Deepest nesting of local-function calls inlined (a call inside a callee inside ...).
pub const MAX_CALL_DEPTH: usize = 100;

/// Most IR statements plus expressions the inlined program may have.
pub const MAX_LOWERED_NODES: usize = 1_000_000;

/// The caller's state, saved while a callee's body is lowered.
pub(super) struct Saved<'a> {
    scope: Scope<'a>,
    file: &'a ast::File,
    /// Where the call's statements start in the innermost open block.
    first_stmt: usize,
    body_frame: usize,
    /// The call's span, and the arenas' lengths when its body starts (`InlinedCall`).
    call: Span,
    stmts_before: u32,
    exprs_before: u32,
}

/// A function and the file it is defined in (whose other functions its body may call).
#[derive(Clone, Copy)]
pub(super) struct Callee<'a> {
    pub file: &'a ast::File,
    pub function: &'a ast::Function,
}

/// What a call to a function name resolves to.
enum Resolved<'a> {
    Callee(Callee<'a>),
    /// A function file that did not load.
    Unusable(&'a FunctionFile),
}

impl<'a> Lowerer<'a> {
    fn function_in_file(&self, name: &str) -> Option<&'a ast::Function> {
        let mut found = None;
        for_each_function(&self.file.functions, &mut |f| {
            if found.is_none() && f.name.name == name {
                found = Some(f);
            }
        });
        found
    }

    /// Whether `name` is a function nested in another of the current file: one that shares
    /// its parent's variables, which an inlined call (a scope of its own) does not model.
    pub(super) fn is_nested_function(&self, name: &str) -> bool {
        let mut found = false;
        for function in &self.file.functions {
            super::for_each_function(&function.nested, &mut |f| found |= f.name.name == name);
        }
        found
    }

    /// `f(args)` or `f` as a statement, for what the function does (stop with an error, print):
    /// the function inlined with `nargout` 0, as MATLAB calls it there.
    pub(super) fn call_statement(&mut self, e: &ast::Expr) {
        if let Some((callee, args)) = called(e) {
            self.inline_call(&callee, args, 0, e.span);
        }
    }

    /// The function a call to `name` runs, where it is one that loaded: a local function, a
    /// function file along the path or m2cu's own library.
    pub(super) fn resolved_callee(&self, name: &str) -> Option<Callee<'a>> {
        match self.resolve(name)? {
            Resolved::Callee(callee) => Some(callee),
            Resolved::Unusable(_) => None,
        }
    }

    /// Whether a call to `name` runs m2cu's own function of that name (`frontend/lib`), not one
    /// of the program's.
    pub(super) fn runs_bundled(&self, name: &str) -> bool {
        self.resolved_callee(name)
            .is_some_and(|callee| self.library.is_bundled(callee.file))
            && !self.scope.names.contains_key(name)
    }

    /// Whether a call to `name` (not a variable) runs a MATLAB function of the program.
    pub(super) fn is_function(&self, name: &str) -> bool {
        self.resolve(name).is_some()
    }

    /// Whether the function `name` of the program (or of m2cu's library) has outputs.
    pub(super) fn returns_values(&self, name: &str) -> bool {
        match self.resolve(name) {
            Some(Resolved::Callee(c)) => !c.function.outputs.is_empty(),
            _ => false,
        }
    }

    /// What a call to `name` runs, in the order of the module docs.
    fn resolve(&self, name: &str) -> Option<Resolved<'a>> {
        if let Some(function) = self.function_in_file(name) {
            let file = self.file;
            return Some(Resolved::Callee(Callee { file, function }));
        }
        match self.library.get(name) {
            Some(FunctionFile::Parsed(file)) => crate::library::function(file)
                .map(|function| Resolved::Callee(Callee { file, function })),
            Some(unusable) => Some(Resolved::Unusable(unusable)),
            None => (name == self.entry.function.name.name).then_some(Resolved::Callee(self.entry)),
        }
    }

    /// The function `callee` names; `None` with the file's diagnostics when it did not load.
    fn callee_function(&mut self, callee: &ast::Ident) -> Option<Callee<'a>> {
        match self.resolve(&callee.name)? {
            Resolved::Callee(c) => Some(c),
            Resolved::Unusable(FunctionFile::Broken(diagnostics)) => {
                for d in diagnostics.iter() {
                    self.report(d.clone());
                }
                None
            }
            Resolved::Unusable(FunctionFile::Unreadable(why)) => {
                self.error(
                    "E0126",
                    callee.span,
                    format!("the function file of `{}` cannot be read: {why}", callee.name),
                    format!("make `{}.m` a readable MATLAB function file, or rename it if `{}` is not meant to call it", callee.name, callee.name),
                );
                None
            }
            Resolved::Unusable(FunctionFile::Parsed(_)) => None,
        }
    }

    /// Inlines `callee(args)` and returns its first `nargout` outputs.
    pub(super) fn inline_call(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Val>> {
        let args = self.arguments(args)?;
        self.inline_args(callee, args, nargout, span)
    }

    /// Inlines `callee(args)` and returns its first `nargout` outputs, structs among them
    /// (for the assignments that take a struct: `s = f(...)`, `[a, s] = f(...)`).
    pub(super) fn inline_call_returned(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Returned>> {
        let args = self.arguments(args)?;
        self.inline_returned(callee, args, nargout, span)
    }

    /// Inlines m2cu's own `helper` (one of `bundled::helpers_of` a builtin, which the library
    /// loads with it) at the builtin's call `span` and returns its first `nargout` outputs.
    pub(super) fn inline_bundled_helper(
        &mut self,
        helper: &str,
        vals: Vec<Arg<'a>>,
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Val>> {
        let callee = ast::Ident {
            name: helper.into(),
            span,
        };
        self.inline_args(&callee, vals, nargout, span)
    }

    /// Inlines `callee` with its arguments lowered (values or handles) and returns its first
    /// `nargout` outputs, which must be values.
    pub(super) fn inline_args(
        &mut self,
        callee: &ast::Ident,
        vals: Vec<Arg<'a>>,
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Val>> {
        let returned = self.inline_returned(callee, vals, nargout, span)?;
        returned
            .into_iter()
            .map(|r| match r {
                Returned::Value(val) => Some(val),
                Returned::Struct(_) => {
                    self.error(
                        "E0103",
                        span,
                        format!("`{}` returns a struct here, used as a value", callee.name),
                        format!(
                            "assign the struct to a variable first (`s = {}(...)`) and read its fields",
                            callee.name
                        ),
                    );
                    None
                }
            })
            .collect()
    }

    /// Inlines `callee` with its arguments lowered and returns its first `nargout` outputs,
    /// values or structs.
    fn inline_returned(
        &mut self,
        callee: &ast::Ident,
        vals: Vec<Arg<'a>>,
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Returned>> {
        let target = self.callee_function(callee)?;
        let function = target.function;
        if self.variable_arguments(function) {
            return None;
        }
        let nargin = vals.len();
        self.check_call_shape(callee, function, nargin, nargout, span)?;
        let errors_before = self.error_count();
        let counts = super::optional::ArgCounts { nargin, nargout };
        let outer_counts = std::mem::replace(&mut self.arg_counts, counts);
        let omitted = function.params[nargin..].iter().map(|p| p.name.clone());
        let outer_omitted = std::mem::replace(&mut self.omitted, omitted.collect());
        let outputs = self.in_callee_scope(callee, target, span, |me| {
            for (param, arg) in function.params.iter().zip(vals) {
                let assigned = assigns(&function.body, &param.name)
                    || assigns_a_field(&function.body, &param.name);
                me.bind_arg(param, arg, assigned, span);
            }
            let body = early_return::without_returns(&function.body, function.span);
            for stmt in body.iter() {
                me.stmt(stmt);
            }
            // An output left unassigned by an error in the body is not another problem: saying
            // so at every caller up a chain of calls would bury the error.
            if me.error_count() > errors_before {
                return None;
            }
            me.callee_outputs(function, nargout)
        });
        self.arg_counts = outer_counts;
        self.omitted = outer_omitted;
        let outputs = outputs??;
        Some(
            outputs
                .into_iter()
                .map(|output| match output {
                    Output::Local(id) => Returned::Value(self.local_val(id, span)),
                    Output::Struct(fields) => Returned::Struct(
                        fields
                            .into_iter()
                            .map(|(field, id)| (field, self.local_val(id, span)))
                            .collect(),
                    ),
                })
                .collect(),
        )
    }

    fn error_count(&self) -> usize {
        self.errors
    }

    fn check_call_shape(
        &mut self,
        callee: &ast::Ident,
        function: &ast::Function,
        nargin: usize,
        nargout: usize,
        span: Span,
    ) -> Option<()> {
        let name = &callee.name;
        let (params, outputs) = (function.params.len(), function.outputs.len());
        if nargin > params || nargout > outputs {
            self.error(
                "E0105",
                span,
                format!(
                    "`{name}` is called with {nargin} input(s) and {nargout} output(s) but declares {params} and {outputs}"
                ),
                format!("pass at most {params} inputs and take at most {outputs} outputs"),
            );
            return None;
        }
        Some(())
    }

    /// Runs `body` in a fresh scope for `callee` (`target`'s function, in `target`'s file),
    /// called at `call`, whose new locals are named `_<callee>_x`; `None` (with a diagnostic)
    /// for a recursive use.
    pub(super) fn in_callee_scope<T>(
        &mut self,
        callee: &ast::Ident,
        target: Callee<'a>,
        call: Span,
        body: impl FnOnce(&mut Self) -> T,
    ) -> Option<T> {
        if !self.within_inline_bounds(callee) || self.recursive(callee, target.function) {
            return None;
        }
        let library_call = self.library_call;
        if self.library.is_bundled(target.file) && !self.library.is_bundled(self.file) {
            self.library_call = Some(callee.span);
        }
        let saved = self.enter(&callee.name, target.file, callee.span, call);
        self.scope.names_used = std::rc::Rc::new(super::NameUses::of(target.function));
        self.inlining.push(target.function);
        self.enter_call_growth(saved.scope.loop_depth > 0);
        let out = body(self);
        self.leave_call_growth();
        self.inlining.pop();
        self.leave(saved);
        self.library_call = library_call;
        Some(out)
    }

    /// `m2cu_refuse(message, help)` in m2cu's own library (`frontend/lib`): the translation
    /// error E0106 with those texts, at the user's call that led into the library, for the
    /// uses of a library function that m2cu does not translate (lowered only where an `if`
    /// decided at translation time takes it). Anywhere else the name means nothing special.
    /// Errors in the rest of that call's inlined code follow from the refused use and are not
    /// shown.
    pub(super) fn library_refusal(&mut self, args: &[ast::Expr]) -> bool {
        let Some(at) = self.library_call else {
            return false;
        };
        let text = |k: usize| {
            args.get(k)
                .and_then(super::text::text_literal)
                .unwrap_or("")
        };
        let (message, help) = (text(0).to_string(), text(1).to_string());
        self.error("E0106", at, message, help);
        self.refused_call = Some(at);
        true
    }

    /// Whether calling `function` here recurses (it is the entry or a function being
    /// inlined); if so `E0125` names the cycle.
    fn recursive(&mut self, callee: &ast::Ident, function: &ast::Function) -> bool {
        let chain: Vec<&ast::Function> = std::iter::once(self.entry.function)
            .chain(self.inlining.iter().copied())
            .collect();
        let Some(start) = chain.iter().position(|f| std::ptr::eq(*f, function)) else {
            return false;
        };
        let cycle: Vec<String> = chain[start..]
            .iter()
            .chain(std::iter::once(&function))
            .map(|f| format!("`{}`", f.name.name))
            .collect();
        self.error(
            "E0125",
            callee.span,
            format!(
                "recursive call: {} (a function cannot call itself, directly or through others)",
                cycle.join(" calls ")
            ),
            "m2cu inlines every call, so recursion cannot be translated: write it as a loop (keeping pending work in an array where the recursion branches)".into(),
        );
        true
    }

    /// Whether `callee` may be inlined here without passing [`MAX_CALL_DEPTH`] or
    /// [`MAX_LOWERED_NODES`]; if not, the diagnostic is reported.
    fn within_inline_bounds(&mut self, callee: &ast::Ident) -> bool {
        if self.inlining.len() >= MAX_CALL_DEPTH {
            self.error(
                "E0130",
                callee.span,
                format!(
                    "local-function calls nest more than {MAX_CALL_DEPTH} deep here (`{}` calls ... calls `{}`)",
                    self.inlining[0].name.name, callee.name
                ),
                "m2cu inlines every call; merge some of the functions into their callers".into(),
            );
            return false;
        }
        if self.stmts.len() + self.exprs.len() > MAX_LOWERED_NODES {
            if !self.over_budget {
                self.over_budget = true;
                self.error(
                    "E0131",
                    callee.span,
                    format!(
                        "the program inlines to more than {MAX_LOWERED_NODES} statements and expressions (reached at this call to `{}`)",
                        callee.name
                    ),
                    "m2cu inlines every call of a local function again, so functions that call others several times grow exponentially; call each function once, or compute the repeated calls in a loop".into(),
                );
            }
            return false;
        }
        true
    }

    /// Opens the scope of a call to `callee` (of `file`) named at `at`, the whole call at
    /// `call`.
    pub(super) fn enter(
        &mut self,
        callee: &str,
        file: &'a ast::File,
        at: Span,
        call: Span,
    ) -> Saved<'a> {
        let prefix = format!("_{callee}_");
        let call_path = format!("{}{callee}@{}/", self.scope.call_path, at.start);
        Saved {
            file: std::mem::replace(&mut self.file, file),
            scope: std::mem::replace(
                &mut self.scope,
                Scope {
                    prefix,
                    call_path,
                    ..Scope::default()
                },
            ),
            first_stmt: self.emitted.last().map_or(0, Vec::len),
            body_frame: std::mem::replace(&mut self.body_frame, self.frames.len()),
            call,
            stmts_before: arena_len(self.stmts.len()),
            exprs_before: arena_len(self.exprs.len()),
        }
    }

    pub(super) fn leave(&mut self, saved: Saved<'a>) {
        let first = self.emitted.last().and_then(|b| b.get(saved.first_stmt));
        if let Some(&first) = first {
            // In the order of the locals, not of the name map, so that the flag resets (and
            // the generated code) are the same on every run.
            // A global's or persistent's value outlives the call.
            let mut locals: Vec<LocalId> = (self.scope.names.values().copied())
                .filter(|&id| !self.declarations.outlives_calls(id))
                .collect();
            locals.sort();
            self.call_entries
                .push(super::undefined::CallEntry { first, locals });
        }
        self.inlined_calls.push(InlinedCall {
            at: saved.call,
            stmts: saved.stmts_before..arena_len(self.stmts.len()),
            exprs: saved.exprs_before..arena_len(self.exprs.len()),
        });
        self.file = saved.file;
        self.scope = saved.scope;
        self.body_frame = saved.body_frame;
    }

    /// Binds `param` to `val`; an array is shared with the caller unless `assigned` (the
    /// callee assigns the parameter).
    pub(super) fn bind_param(&mut self, param: &ast::Ident, val: Val, assigned: bool, span: Span) {
        match val {
            Val::Scalar(e) => {
                let constant = match self.exprs[e].kind {
                    ExprKind::Const(value) => Some(value),
                    ExprKind::Local(id) => self.constant_params.get(&id).copied(),
                    _ => None,
                };
                let ty = self.exprs[e].ty;
                let id = self.new_local(&param.name, ty, param.span);
                if let (Some(value), false) = (constant, assigned) {
                    self.constant_params.insert(id, value);
                }
                self.push(
                    StmtKind::Assign {
                        target: id,
                        value: e,
                    },
                    span,
                );
                // A parameter holds the caller's value, even when the callee (or a function
                // of the same file) names a loop variable like it.
                self.clear_empty_flag(id, param.span);
            }
            Val::Array(a) => {
                if let array::Node::Whole(src) = a.node {
                    if !assigned {
                        self.scope.names.insert(param.name.clone(), src);
                        return;
                    }
                }
                let id = self.new_local(&param.name, Type::array(a.class, a.shape), param.span);
                self.alloc_for(id, &a);
                let place = self.whole_place(id, span);
                self.write_loop(&place, &Val::Array(a), span);
            }
        }
    }

    /// The local holding the first output of `function`, whose body was just lowered in the
    /// current scope: a value, not a struct.
    pub(super) fn callee_value_output(&mut self, function: &ast::Function) -> Option<LocalId> {
        match self.callee_outputs(function, 1)?.pop()? {
            Output::Local(id) => Some(id),
            Output::Struct(_) => {
                self.struct_output(&function.outputs[0], "a combiner");
                None
            }
        }
    }

    fn callee_outputs(&mut self, function: &ast::Function, nargout: usize) -> Option<Vec<Output>> {
        let mut out = Vec::new();
        for output in function.outputs.iter().take(nargout) {
            match self.scope.names.get(&output.name).copied() {
                Some(id) if self.returnable(id, output) => out.push(Output::Local(id)),
                Some(_) => return None,
                None if self.handle_output(output) => return None,
                None if self.is_struct(&output.name) => {
                    out.push(Output::Struct(self.struct_fields(&output.name)));
                }
                None => {
                    self.error(
                        "E0102",
                        output.span,
                        format!(
                            "output `{}` of `{}` is never assigned",
                            output.name, function.name.name
                        ),
                        format!(
                            "assign `{}` in the body of `{}`",
                            output.name, function.name.name
                        ),
                    );
                    return None;
                }
            }
        }
        Some(out)
    }
}

/// The function and the arguments of `e` when it may be a call: `f(args)`, or `f` alone.
pub(super) fn called(e: &ast::Expr) -> Option<(ast::Ident, &[ast::Expr])> {
    match &e.kind {
        AstExpr::Call { callee, args } => Some((callee.clone(), args.as_slice())),
        AstExpr::Ident(name) => {
            let callee = ast::Ident {
                name: name.clone(),
                span: e.span,
            };
            Some((callee, &[]))
        }
        _ => None,
    }
}

/// One output of a call, as the caller receives it.
pub(super) enum Returned {
    Value(Val),
    Struct(super::fields::StructVal),
}

/// One output of an inlined function, in the callee's locals.
enum Output {
    Local(LocalId),
    /// A struct's fields (`fields::Lowerer::struct_fields`).
    Struct(Vec<(String, LocalId)>),
}

/// Whether a statement list assigns a field of `name` (`name.k = v`, `name.k(i) = v`).
fn assigns_a_field(body: &[ast::Stmt], name: &str) -> bool {
    let prefix = format!("{name}.");
    let mut found = false;
    walk_stmts(body, &mut |s| {
        if let AstStmt::Assign { targets, .. } = &s.kind {
            found |= targets.iter().any(|t| {
                t.assigned_name()
                    .is_some_and(|v| v.name.starts_with(&prefix))
            });
        }
    });
    found
}

/// Whether a statement list assigns to `name` (as a whole, by index, or as a loop variable).
pub(super) fn assigns(body: &[ast::Stmt], name: &str) -> bool {
    assignments(body, name) > 0
}

/// How many statements of a statement list (nested ones included) assign to `name`.
pub(super) fn assignments(body: &[ast::Stmt], name: &str) -> usize {
    let mut count = 0;
    walk_stmts(body, &mut |s| {
        count += usize::from(match &s.kind {
            AstStmt::For { var, .. } => var.name == name,
            _ => assigned_by(s, name),
        })
    });
    count
}

/// Whether `s` is an assignment (`x = e`, `x(i) = e`, `[a, x] = f(...)`) with `name` among its
/// targets.
pub(super) fn assigned_by(s: &ast::Stmt, name: &str) -> bool {
    let AstStmt::Assign { targets, .. } = &s.kind else {
        return false;
    };
    targets
        .iter()
        .any(|t| t.assigned_name().is_some_and(|v| v.name == name))
}

/// An arena's length as a raw id (lowering stops far below `u32::MAX` nodes:
/// [`MAX_LOWERED_NODES`]).
fn arena_len(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}
