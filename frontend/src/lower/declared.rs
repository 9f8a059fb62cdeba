//! `global` and `persistent` variables. Every call is inlined into one function, so such a
//! variable is one local of that function that each declaring scope binds its name to:
//!
//! - `global G`: the program's variable `G`, made by the first assignment after a declaration
//!   and bound by every later `global G` (in any function);
//! - `persistent n`: the variable `n` of that function (the AST function, whichever call
//!   lowers it), with a logical flag "assigned yet", false when the program starts (the
//!   function's prologue) and set by every assignment to `n`; `isempty(n)` is that flag's
//!   negation (or `numel(n) == 0` once an array was assigned), which is MATLAB's `[]` start.
//!
//! The variables last for one call of the translated function: a second call starts every
//! persistent one empty again, where MATLAB keeps it until `clear` (a known difference, in
//! the README), and the caller's global workspace is never written.
//!
//! Invariants (each broken one is a diagnostic):
//! - a name is declared before the function uses it (MATLAB: "declared global after it was
//!   used");
//! - the variable keeps the class and kind of its first assignment in every function (a later
//!   one of another type is E0104: the functions would not share it);
//! - these locals are never reset at a call's entry (`undefined::CallEntry`): their values
//!   outlive the call.

use super::array::Val;
use super::*;
use crate::ast::Declared;

/// The program's `global` and `persistent` variables.
#[derive(Default)]
pub(super) struct Declarations {
    /// Each global's local, once assigned.
    globals: HashMap<String, LocalId>,
    /// Each persistent variable by function (its address) and name.
    persistents: HashMap<(usize, String), Persistent>,
    /// The statements that start the program: each persistent's flag set false.
    pub prologue: Vec<StmtId>,
}

/// A persistent variable: its local once assigned, and its "assigned yet" flag.
struct Persistent {
    local: Option<LocalId>,
    assigned: LocalId,
}

impl Declarations {
    /// Whether `id` is a global's or a persistent's local (one that outlives a call).
    pub(super) fn outlives_calls(&self, id: LocalId) -> bool {
        self.globals.values().any(|&g| g == id)
            || self.persistents.values().any(|p| p.local == Some(id))
    }
}

impl Lowerer<'_> {
    /// `global a b` or `persistent n`.
    pub(super) fn declare(&mut self, kind: Declared, names: &[ast::Ident], span: Span) {
        for name in names {
            if self.scope.names.contains_key(&name.name) {
                self.error(
                    "E0103",
                    name.span,
                    format!(
                        "`{}` is declared {} after the function used it",
                        name.name,
                        kind.word()
                    ),
                    format!(
                        "declare `{} {}` before the first use",
                        kind.word(),
                        name.name
                    ),
                );
                continue;
            }
            self.scope.declared.insert(name.name.clone(), kind);
            let local = match kind {
                Declared::Global => self.declarations.globals.get(&name.name).copied(),
                Declared::Persistent => self.persistent(&name.name, span).local,
            };
            if let Some(id) = local {
                self.scope.names.insert(name.name.clone(), id);
            }
        }
    }

    /// The persistent variable `name` of the function being lowered, made (with its flag,
    /// false from the program's start) at its first declaration.
    fn persistent(&mut self, name: &str, span: Span) -> &Persistent {
        let key = (self.current_function_key(), name.to_string());
        if !self.declarations.persistents.contains_key(&key) {
            let assigned = self.temp(&format!("set_{name}_"), Type::scalar(Class::Logical), span);
            let value = self.constant_expr(0.0, Class::Logical, span);
            let start = self.stmts.alloc(crate::ir::Stmt {
                kind: StmtKind::Assign {
                    target: assigned,
                    value,
                },
                span,
            });
            self.declarations.prologue.push(start);
            let persistent = Persistent {
                local: None,
                assigned,
            };
            self.declarations
                .persistents
                .insert(key.clone(), persistent);
        }
        &self.declarations.persistents[&key]
    }

    /// The function whose body is being lowered, as a key.
    fn current_function_key(&self) -> usize {
        let function = self.inlining.last().copied().unwrap_or(self.entry.function);
        function as *const ast::Function as usize
    }

    /// After an assignment to `targets`: a declared variable's first local becomes the
    /// program's, a persistent's flag is set, and one retyped (a new local) is E0104.
    pub(super) fn declared_assigned(&mut self, targets: &[ast::LValue], span: Span) {
        for target in targets {
            let Some(name) = target.assigned_name() else {
                continue;
            };
            let (Some(&kind), Some(&id)) = (
                self.scope.declared.get(&name.name),
                self.scope.names.get(&name.name),
            ) else {
                continue;
            };
            let known = match kind {
                Declared::Global => *self
                    .declarations
                    .globals
                    .entry(name.name.clone())
                    .or_insert(id),
                Declared::Persistent => {
                    let key = (self.current_function_key(), name.name.clone());
                    let persistent = self.declarations.persistents.get_mut(&key);
                    let Some(persistent) = persistent else {
                        continue;
                    };
                    let known = *persistent.local.get_or_insert(id);
                    let flag = persistent.assigned;
                    let yes = self.constant_expr(1.0, Class::Logical, span);
                    self.push(
                        StmtKind::Assign {
                            target: flag,
                            value: yes,
                        },
                        span,
                    );
                    known
                }
            };
            if known != id {
                self.error(
                    "E0104",
                    name.span,
                    format!(
                        "the {} variable `{}` is assigned a value of another type here",
                        kind.word(),
                        name.name
                    ),
                    "m2cu keeps one type per variable, and every function shares this one: keep its class and size kind (scalar or array), or use a variable of its own".into(),
                );
            }
        }
    }

    /// `isempty(n)` of a persistent variable `n`: not assigned yet, or an empty array.
    pub(super) fn persistent_isempty(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [arg] = args else {
            return None;
        };
        let AstExpr::Ident(name) = &arg.kind else {
            return None;
        };
        if self.scope.declared.get(name) != Some(&Declared::Persistent) {
            return None;
        }
        let key = (self.current_function_key(), name.clone());
        let persistent = self.declarations.persistents.get(&key)?;
        let (local, flag) = (persistent.local, persistent.assigned);
        let logical = Type::scalar(Class::Logical);
        let read = self.new_expr(ExprKind::Local(flag), logical, span);
        let unset = self.new_expr(ExprKind::Unary(UnOp::Not, read), logical, span);
        let Some(local) = local.filter(|&l| !self.locals[l].ty.is_scalar()) else {
            return Some(Val::Scalar(unset));
        };
        let count = self.numel_of(local, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let none = self.binary_expr(BinOp::Eq, count, zero, Class::Logical, span);
        Some(Val::Scalar(self.binary_expr(
            BinOp::Or,
            unset,
            none,
            Class::Logical,
            span,
        )))
    }
}
