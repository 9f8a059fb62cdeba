//! A handle chosen at run time: `if p > 0, f = @(x) x.^2; else, f = @(x) -x; end; y = f(3)`,
//! or a `switch` on a method name that picks `rule = @simpson`.
//!
//! A name assigned a handle inside an `if` or `switch` decided at run time gets a run-time tag,
//! a hidden double local: each handle the name is assigned there has a number (its position in
//! [`Chosen::options`]), and each such assignment also sets the tag to it; a handle the name
//! held before the statement sets the tag just before it. After the statement the name is
//! [`Slot::Chosen`]: a call `f(args)` reads its arguments once (into temporaries, so no
//! expression is shared) and dispatches on the tag with an if-chain, each branch inlining one
//! option and writing its results into shared result locals.
//!
//! Invariants:
//! - the tag always holds the number of the handle the name was last assigned on the path
//!   taken, so a read in a later branch of the same statement (which the lowering meets after
//!   an earlier branch's assignment) also dispatches correctly: inside the statement a name
//!   assigned there is `Chosen` too, never the `Known` handle of a branch lowered before;
//! - a path that assigned no handle leaves the tag unassigned, and the tag carries the
//!   variable's MATLAB name, so `undefined` stops its read with Octave's `'f' undefined`;
//! - every option's results must have one class and kind (scalar or array) per output, since
//!   the result locals have one type: otherwise E0163; a chosen handle passed on or captured
//!   (not called) is E0157 unless only one handle is possible;
//! - a name that holds a handle on one path and another value on another stays
//!   [`Slot::Ambiguous`] (E0157).

use std::rc::Rc;

use super::super::array::Val;
use super::super::*;
use super::{Arg, Handle, Parts, Slot};

/// The handles a name may hold, and the run-time tag that says which.
#[derive(Clone)]
pub(in crate::lower) struct Chosen<'a> {
    tag: LocalId,
    options: Vec<Rc<Handle<'a>>>,
}

impl Chosen<'_> {
    /// Whether `other` is the same choice (the same tag among the same handles).
    pub(in crate::lower) fn same_choice(&self, other: &Chosen<'_>) -> bool {
        self.tag == other.tag && self.options.len() == other.options.len()
    }
}

/// An argument of a dispatched call, read once.
enum Held<'a> {
    /// A scalar in a temporary or an array as a whole local.
    Value(LocalId),
    Handle(Rc<Handle<'a>>),
    /// A struct's fields or a cell's parts, each held.
    Parts(super::Whole, Vec<(String, LocalId)>),
}

impl<'a> Lowerer<'a> {
    /// Before an `if`/`switch` (`stmt`): each name it assigns a handle that holds a known
    /// handle now gets its tag set to it, and is `Chosen` inside the statement.
    pub(in crate::lower) fn tag_before_branches(&mut self, stmt: &ast::Stmt) {
        for name in handle_assignments(stmt) {
            if let Some(Slot::Known(handle)) = self.scope.handles.get(&name).cloned() {
                let slot = self.choose(&name, handle, stmt.span);
                self.scope.handles.insert(name, slot);
            }
        }
    }

    /// `name = handle` inside an `if`/`switch` decided at run time: the tag takes the
    /// handle's number.
    pub(in crate::lower) fn choose(
        &mut self,
        name: &str,
        handle: Rc<Handle<'a>>,
        span: Span,
    ) -> Slot<'a> {
        let chosen = match self.scope.handles.tags.get(name) {
            Some(chosen) => chosen.clone(),
            None => {
                let tag = self.temp("htag", Type::scalar(Class::Double), span);
                self.locals[tag].integral = true;
                self.matlab_names.insert(tag, name.to_string());
                Chosen {
                    tag,
                    options: Vec::new(),
                }
            }
        };
        let mut chosen = chosen;
        let number = match chosen.options.iter().position(|h| Rc::ptr_eq(h, &handle)) {
            Some(number) => number,
            None => {
                chosen.options.push(handle);
                chosen.options.len() - 1
            }
        };
        let value = self.constant_expr(number as f64, Class::Double, span);
        self.push(
            StmtKind::Assign {
                target: chosen.tag,
                value,
            },
            span,
        );
        self.scope
            .handles
            .tags
            .insert(name.to_string(), chosen.clone());
        Slot::Chosen(chosen)
    }

    /// After an `if`/`switch` decided at run time: each name it assigned a handle is `Chosen`
    /// among every handle it was given, unless it may hold another value (`Ambiguous`).
    /// Returns the names settled.
    pub(in crate::lower) fn chosen_after(&mut self, stmt: &ast::Stmt) -> Vec<String> {
        let mut settled = Vec::new();
        for name in handle_assignments(stmt) {
            let Some(chosen) = self.scope.handles.tags.get(&name).cloned() else {
                continue;
            };
            let slot = if self.scope.names.contains_key(&name) {
                Slot::Ambiguous { defined: stmt.span }
            } else {
                Slot::Chosen(chosen)
            };
            self.scope.handles.insert(name.clone(), slot);
            settled.push(name);
        }
        settled
    }

    /// The one handle `chosen` may be, or E0157 where it is passed on or captured.
    pub(in crate::lower) fn single_choice(
        &mut self,
        name: &str,
        chosen: &Chosen<'a>,
        span: Span,
    ) -> Option<Rc<Handle<'a>>> {
        if let [only] = chosen.options.as_slice() {
            return Some(only.clone());
        }
        self.error(
            "E0157",
            span,
            format!("`{name}` holds one of {} function handles, chosen at run time, and is used here other than by a call", chosen.options.len()),
            format!("m2cu dispatches a call of a handle chosen at run time, `{name}(x)`, but does not pass the handle on: call it instead (a loop `y(k) = {name}(x(k))` for `arrayfun({name}, x)`), or make the call that takes it in each branch, `if c, y = solve(f1, x); else, y = solve(f2, x); end`"),
        );
        None
    }

    /// `[a, b] = f(args)` where `f` is `chosen`: the arguments read once, then one branch per
    /// handle on the tag, each writing the same result locals.
    pub(in crate::lower) fn chosen_outputs(
        &mut self,
        label: &str,
        chosen: &Chosen<'a>,
        args: &[ast::Expr],
        nargout: usize,
        span: Span,
    ) -> Option<Vec<Val>> {
        let args = self.arguments(args)?;
        let held: Vec<Held<'a>> = args.into_iter().map(|a| self.held_arg(a, span)).collect();
        let mut results: Option<Vec<LocalId>> = None;
        let mut ok = true;
        let count = chosen.options.len();
        self.emit_case_chain(chosen.tag, 0..count, span, &mut |me, j| {
            if !ok {
                return;
            }
            let args = held.iter().map(|h| me.fresh_arg(h, span)).collect();
            let Some(vals) = me.invoke_outputs(&chosen.options[j], label, args, nargout, span)
            else {
                ok = false;
                return;
            };
            let targets = match &results {
                Some(targets) => targets.clone(),
                None => {
                    let targets: Vec<LocalId> =
                        vals.iter().map(|v| me.result_local(v, span)).collect();
                    results = Some(targets.clone());
                    targets
                }
            };
            for (target, val) in targets.into_iter().zip(vals) {
                ok &= me.store_result(target, val, label, span).is_some();
            }
        });
        let results = results.filter(|_| ok)?;
        Some(
            results
                .into_iter()
                .map(|r| self.local_val(r, span))
                .collect(),
        )
    }

    /// `arg` read now: a scalar into a temporary, an array as a whole local, a struct field
    /// by field.
    fn held_arg(&mut self, arg: Arg<'a>, span: Span) -> Held<'a> {
        match arg {
            Arg::Value(val) => Held::Value(self.held_value(val, span)),
            Arg::Handle(h) => Held::Handle(h),
            Arg::Parts(Parts { whole, values }) => Held::Parts(
                whole,
                values
                    .into_iter()
                    .map(|(part, val)| (part, self.held_value(val, span)))
                    .collect(),
            ),
        }
    }

    /// The local holding `val` read now.
    fn held_value(&mut self, val: Val, span: Span) -> LocalId {
        match val {
            Val::Scalar(value) => self.held_scalar("arg", value, span),
            Val::Array(a) => match a.node {
                super::super::array::Node::Whole(local) => local,
                _ => self.materialize(&a),
            },
        }
    }

    /// A fresh argument reading `held`.
    fn fresh_arg(&mut self, held: &Held<'a>, span: Span) -> Arg<'a> {
        match held {
            Held::Value(local) => Arg::Value(self.local_val(*local, span)),
            Held::Handle(h) => Arg::Handle(h.clone()),
            Held::Parts(whole, parts) => Arg::Parts(Parts {
                whole: *whole,
                values: parts
                    .iter()
                    .map(|(part, local)| (part.clone(), self.local_val(*local, span)))
                    .collect(),
            }),
        }
    }

    /// The local that holds one output of every option, typed by the first option's value
    /// (an array's extents are known only at run time: another option may give other ones).
    fn result_local(&mut self, val: &Val, span: Span) -> LocalId {
        let ty = match val {
            Val::Scalar(e) => self.exprs[*e].ty,
            Val::Array(a) if a.shape.is_3d() => {
                Type::array(a.class, Shape::new3(Dim::Var, Dim::Var, Dim::Var))
            }
            Val::Array(a) => Type::array(a.class, Shape::new(Dim::Var, Dim::Var)),
        };
        self.temp("chosen", ty, span)
    }

    /// `target = val` for one option's output, or E0163 when its class or kind differs from
    /// the first option's.
    fn store_result(&mut self, target: LocalId, val: Val, label: &str, span: Span) -> Option<()> {
        let want = self.locals[target].ty;
        let (got, same_kind) = match &val {
            Val::Scalar(e) => (self.exprs[*e].ty, want.is_scalar()),
            Val::Array(a) => (
                Type::array(a.class, a.shape),
                !want.is_scalar() && a.shape.is_3d() == want.shape.is_3d(),
            ),
        };
        if !same_kind || got.class != want.class || got.complex != want.complex {
            self.error(
                "E0163",
                span,
                format!("the function handles `{label}` may hold give results of different classes or kinds here ({want} and {got})"),
                format!("m2cu gives a call of a handle chosen at run time one result type: call each function where it is chosen, `if c, y = f1(x); else, y = f2(x); end`, or give `{label}`'s functions results of one class and kind"),
            );
            return None;
        }
        match val {
            Val::Scalar(value) => {
                self.push(StmtKind::Assign { target, value }, span);
            }
            Val::Array(a) => {
                self.alloc_for(target, &a);
                let place = self.whole_place(target, span);
                self.write_loop(&place, &Val::Array(a), span);
            }
        }
        Some(())
    }
}

/// The names `stmt` (nested statements included) assigns an expression that may be a handle:
/// `@name`, `@(x) ...` or another name.
fn handle_assignments(stmt: &ast::Stmt) -> Vec<String> {
    let mut names = Vec::new();
    walk_stmts(std::slice::from_ref(stmt), &mut |s| {
        let AstStmt::Assign { targets, value } = &s.kind else {
            return;
        };
        let [ast::LValue::Var(name)] = targets.as_slice() else {
            return;
        };
        let handle_like = matches!(
            strip_parens(value).kind,
            AstExpr::FuncHandle(_) | AstExpr::AnonFn { .. } | AstExpr::Ident(_)
        );
        if handle_like && !names.contains(&name.name) {
            names.push(name.name.clone());
        }
    });
    names
}
