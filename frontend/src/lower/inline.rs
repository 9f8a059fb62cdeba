//! Calls to local (and nested) functions, inlined at the call site.
//!
//! Every call lowers the callee's body again with the argument types of that call, in a fresh
//! scope whose locals are named `_<callee>_<name>` (no MATLAB identifier starts with `_`).
//! MATLAB passes arrays by value: an array argument is shared with the caller only when the
//! callee never assigns to that parameter, otherwise it is copied. Recursion and `return` inside
//! a callee are reported as unsupported.
//!
//! Inlining is bounded, so that translation time, memory and stack stay bounded whatever the
//! source: calls nest at most [`MAX_CALL_DEPTH`] deep (`E0130`), and once the program has
//! lowered to more than [`MAX_LOWERED_NODES`] IR statements and expressions no further call is
//! inlined (`E0131`, reported once): a chain of functions that each call the next twice inlines
//! to exponentially many statements.

use std::collections::HashMap;

use super::array::Val;
use super::*;

/// Deepest nesting of local-function calls inlined (a call inside a callee inside ...).
pub const MAX_CALL_DEPTH: usize = 100;

/// Most IR statements plus expressions the inlined program may have.
pub const MAX_LOWERED_NODES: usize = 1_000_000;

/// The caller's state, saved while a callee's body is lowered.
struct Saved {
    scope: HashMap<String, LocalId>,
    loop_vars: Vec<LocalId>,
    loop_depth: usize,
    index_context: Vec<IndexContext>,
    prefix: String,
}

impl<'a> Lowerer<'a> {
    /// The local or nested function named `name`, other than the entry function.
    pub(super) fn local_function(&self, name: &str) -> Option<&'a ast::Function> {
        let mut found = None;
        for_each_function(&self.file.functions, &mut |f| {
            if found.is_none() && f.name.name == name {
                found = Some(f);
            }
        });
        found.filter(|f| f.name.name != self.name)
    }

    /// Inlines `callee(args)` and returns its first `nargout` outputs.
    pub(super) fn inline_call(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Val>> {
        let function = self.local_function(&callee.name)?;
        self.check_call_shape(callee, function, args.len(), nargout, span)?;
        let vals = self.values(args)?;
        let errors_before = self.error_count();
        let outputs = self.in_callee_scope(callee, |me| {
            for (param, val) in function.params.iter().zip(vals) {
                me.bind_param(function, param, val, span);
            }
            for stmt in &function.body {
                me.stmt(stmt);
            }
            // An output left unassigned by an error in the body is not another problem: saying
            // so at every caller up a chain of calls would bury the error.
            if me.error_count() > errors_before {
                return None;
            }
            me.callee_outputs(function, nargout)
        })??;
        Some(
            outputs
                .into_iter()
                .map(|id| self.local_val(id, span))
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
        if nargin != params || nargout > outputs {
            self.error(
                "E0105",
                span,
                format!(
                    "`{name}` is called with {nargin} input(s) and {nargout} output(s) but declares {params} and {outputs}"
                ),
                format!("pass all {params} inputs; fewer inputs (nargin) are not supported"),
            );
            return None;
        }
        Some(())
    }

    /// Runs `body` in a fresh scope for `callee`, whose new locals are named `_<callee>_x`;
    /// `None` (with a diagnostic) for a recursive use.
    pub(super) fn in_callee_scope<T>(
        &mut self,
        callee: &ast::Ident,
        body: impl FnOnce(&mut Self) -> T,
    ) -> Option<T> {
        let name = &callee.name;
        if !self.within_inline_bounds(callee) {
            return None;
        }
        if self.inlining.contains(name) {
            self.unsupported(
                callee.span,
                &format!("a recursive call to `{name}`"),
                "write the recursion as a loop",
            );
            return None;
        }
        let saved = self.enter(name);
        self.inlining.push(name.clone());
        self.enter_call_growth(saved.loop_depth > 0);
        let out = body(self);
        self.leave_call_growth();
        self.inlining.pop();
        self.leave(saved);
        Some(out)
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
                    self.inlining[0], callee.name
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

    fn enter(&mut self, callee: &str) -> Saved {
        let prefix = format!("_{callee}_");
        Saved {
            scope: std::mem::take(&mut self.scope),
            loop_vars: std::mem::take(&mut self.loop_vars),
            loop_depth: std::mem::take(&mut self.loop_depth),
            index_context: std::mem::take(&mut self.index_context),
            prefix: std::mem::replace(&mut self.prefix, prefix),
        }
    }

    fn leave(&mut self, saved: Saved) {
        self.scope = saved.scope;
        self.loop_vars = saved.loop_vars;
        self.loop_depth = saved.loop_depth;
        self.index_context = saved.index_context;
        self.prefix = saved.prefix;
    }

    fn bind_param(&mut self, function: &ast::Function, param: &ast::Ident, val: Val, span: Span) {
        match val {
            Val::Scalar(e) => {
                let ty = self.exprs[e].ty;
                let id = self.new_local(&param.name, ty, param.span);
                self.push(
                    StmtKind::Assign {
                        target: id,
                        value: e,
                    },
                    span,
                );
            }
            Val::Array(a) => {
                if let array::Node::Whole(src) = a.node {
                    if !assigns(&function.body, &param.name) {
                        self.scope.insert(param.name.clone(), src);
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

    pub(super) fn callee_outputs(
        &mut self,
        function: &ast::Function,
        nargout: usize,
    ) -> Option<Vec<LocalId>> {
        let mut out = Vec::new();
        for output in function.outputs.iter().take(nargout) {
            match self.scope.get(&output.name) {
                Some(&id) => out.push(id),
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

/// Whether a statement list assigns to `name` (as a whole, by index, or as a loop variable).
pub(super) fn assigns(body: &[ast::Stmt], name: &str) -> bool {
    let mut found = false;
    walk_stmts(body, &mut |s| {
        found |= match &s.kind {
            AstStmt::Assign { targets, .. } => targets.iter().any(|t| match t {
                ast::LValue::Var(v) => v.name == name,
                ast::LValue::Index { base, .. } => base.name == name,
                ast::LValue::Ignore(_) => false,
            }),
            AstStmt::For { var, .. } => var.name == name,
            _ => false,
        }
    });
    found
}
