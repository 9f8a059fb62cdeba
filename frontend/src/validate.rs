//! The IR validator: checks the invariants listed in `crate::ir` once, after lowering, so later
//! phases can index the arenas and trust types without defensive checks.
//!
//! A failure here is a bug in lowering, not a user error; it is reported as a list of messages.

use crate::ir::{Block, ExprId, ExprKind, Function, PrintTo, StmtKind};
use crate::types::Class;

/// Returns the broken invariants of `f`; empty when the IR is valid.
pub fn validate(f: &Function) -> Vec<String> {
    let mut v = Validator {
        f,
        problems: Vec::new(),
        loop_depth: 0,
    };
    for &p in f.params.iter().chain(&f.outputs) {
        v.check_local(p.into_raw().into_u32() as usize);
    }
    v.block(&f.body);
    v.problems
}

struct Validator<'f> {
    f: &'f Function,
    problems: Vec<String>,
    loop_depth: usize,
}

impl Validator<'_> {
    fn check_local(&mut self, index: usize) -> bool {
        let ok = index < self.f.locals.len();
        if !ok {
            self.problems
                .push(format!("local handle {index} out of range"));
        }
        ok
    }

    fn is_array(&self, local: crate::ir::LocalId) -> bool {
        !self.f.locals[local].ty.is_scalar()
    }

    fn block(&mut self, block: &Block) {
        for &s in &block.0 {
            if (s.into_raw().into_u32() as usize) >= self.f.stmts.len() {
                self.problems.push("statement handle out of range".into());
                continue;
            }
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: crate::ir::StmtId) {
        for e in self.f.stmt_exprs(s) {
            self.expr(e);
        }
        match &self.f.stmts[s].kind {
            StmtKind::Assign { target, value } => {
                let (t, v) = (self.f.locals[*target].ty, self.f.exprs[*value].ty);
                if t.class != v.class || t.is_scalar() != v.is_scalar() {
                    self.problems.push(format!(
                        "assignment of {v} to {} of type {t}",
                        self.f.locals[*target].name
                    ));
                }
                if !v.is_scalar() && !matches!(self.f.exprs[*value].kind, ExprKind::Local(_)) {
                    self.problems
                        .push("array-valued expression other than a local".into());
                }
            }
            StmtKind::Alloc { target, .. }
            | StmtKind::Store { array: target, .. }
            | StmtKind::Resize { array: target, .. }
                if !self.is_array(*target) =>
            {
                self.problems
                    .push(format!("{} is not an array", self.f.locals[*target].name));
            }
            StmtKind::Print {
                to: PrintTo::Append { row },
                ..
            } if self.f.locals[*row].ty.class != Class::Char || !self.is_array(*row) => {
                self.problems.push(format!(
                    "sprintf's text goes to {}, which is not a char array",
                    self.f.locals[*row].name
                ));
            }
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                self.loop_depth += 1;
                self.block(body);
                self.loop_depth -= 1;
            }
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                self.block(then_body);
                self.block(else_body);
            }
            StmtKind::Break | StmtKind::Continue if self.loop_depth == 0 => {
                self.problems.push("break/continue outside a loop".into());
            }
            _ => {}
        }
    }

    fn expr(&mut self, root: ExprId) {
        let f = self.f;
        let mut problems = Vec::new();
        f.walk_expr(root, &mut |e| {
            let expr = &f.exprs[e];
            let scalar_only = !matches!(expr.kind, ExprKind::Local(_));
            if scalar_only && !expr.ty.is_scalar() {
                problems.push(format!("non-scalar {:?}", expr.kind));
            }
            match &expr.kind {
                ExprKind::Index(a, _) | ExprKind::Size(a, _) if f.locals[*a].ty.is_scalar() => {
                    problems.push(format!("{} indexed but scalar", f.locals[*a].name));
                }
                ExprKind::Binary(_, a, b)
                    if !(f.exprs[*a].ty.is_scalar() && f.exprs[*b].ty.is_scalar()) =>
                {
                    problems.push("binary operation on an array".into());
                }
                _ => {}
            }
        });
        self.problems.extend(problems);
    }
}
