//! The variable of a `for` loop that ran zero times. MATLAB makes it a 1-by-0 empty, which a
//! scalar local cannot hold, so each such variable that the file reads outside its loops (or
//! returns) gets a hidden logical flag `_e<k>`, "the variable is empty":
//!
//! - a `for k = a:s:b` sets the flag to `numel(a:s:b) == 0` before the loop (to false when the
//!   range is constant and not empty), a `for k = row` to `numel(row) == 0`; any other
//!   assignment to `k` clears it;
//! - an operand of an `if`/`elseif`/`while` condition (the whole condition or a side of `&&`,
//!   `||`) that is an elementwise expression of `k` (arithmetic, comparisons, `~`, scalar
//!   builtins, elements of arrays) is false while the flag is set, as Octave's empty operand is;
//! - any other read of `k` outside its loop, and returning `k`, stop the program with
//!   `RuntimeError::EmptyLoopVariable` while the flag is set.
//!
//! The variable of `for v = M` over the columns of a matrix is a column, which cannot hold
//! MATLAB's `size(M, 1)`-by-0 either: when the file reads it after its loops, the program stops
//! after a loop over no columns (`check_columns_ran`), also where the read would not come.
//!
//! Invariant: the flag is written only outside the loop over its variable, so loop analysis sees
//! one more scalar assigned before the loop and never a write inside the loop itself.

use std::collections::HashSet;

use super::array::Val;
use super::*;
use crate::ir::RuntimeError;

impl Lowerer<'_> {
    /// Creates the flag of a new local when the file reads it after a loop over it.
    pub(super) fn flag_if_loop_variable(&mut self, name: &str, id: LocalId, span: Span) {
        if self.scope.names_used.empty_flagged.contains(name) && self.locals[id].ty.is_scalar() {
            let flag = self.temp("e", Type::scalar(Class::Logical), span);
            self.empty_flags.insert(id, flag);
        }
    }

    /// Before `for var = start:step:stop`: the flag says whether the range is empty.
    pub(super) fn set_empty_flag(
        &mut self,
        var: LocalId,
        (start, step, stop): (ExprId, Option<ExprId>, ExprId),
        span: Span,
    ) {
        if !self.empty_flags.contains_key(&var) {
            return;
        }
        let value = match self.constant_count(start, step, stop) {
            Some(n) => self.constant_expr(f64::from(u8::from(n == 0.0)), Class::Logical, span),
            None => self.compare_count((start, step, stop), BinOp::Eq, span),
        };
        self.set_empty_flag_to(var, value, span);
    }

    /// `numel(start:step:stop) op 0`, a fresh logical expression.
    pub(super) fn compare_count(
        &mut self,
        (start, step, stop): (ExprId, Option<ExprId>, ExprId),
        op: BinOp,
        span: Span,
    ) -> ExprId {
        let (a, b) = (self.copy_expr(start), self.copy_expr(stop));
        let s = match step {
            Some(s) => self.copy_expr(s),
            None => self.constant_expr(1.0, Class::Double, span),
        };
        let count = self.new_expr(
            ExprKind::RangeCount(a, s, b),
            Type::scalar(Class::Double),
            span,
        );
        let zero = self.constant_expr(0.0, Class::Double, span);
        self.binary_expr(op, count, zero, Class::Logical, span)
    }

    /// Before `for v = row` (one iteration per element, `count` of them): the flag says whether
    /// there are none.
    pub(super) fn set_empty_flag_count(&mut self, var: LocalId, count: ExprId, span: Span) {
        if !self.empty_flags.contains_key(&var) {
            return;
        }
        let count = self.copy_expr(count);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let value = self.binary_expr(BinOp::Eq, count, zero, Class::Logical, span);
        self.set_empty_flag_to(var, value, span);
    }

    fn set_empty_flag_to(&mut self, var: LocalId, value: ExprId, span: Span) {
        let flag = self.empty_flags[&var];
        self.push(
            StmtKind::Assign {
                target: flag,
                value,
            },
            span,
        );
    }

    /// After `for v = M` over the columns of a matrix, whose variable is an array: MATLAB's
    /// value after no iteration is `size(M, 1)`-by-0, which a column cannot hold, so a file that
    /// reads `v` after its loops stops here when there were no columns (`columns` is `M`'s
    /// count).
    pub(super) fn check_columns_ran(&mut self, name: &str, columns: ExprId, span: Span) {
        if !self.scope.names_used.empty_flagged.contains(name) {
            return;
        }
        let columns = self.copy_expr(columns);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let cond = self.binary_expr(BinOp::Gt, columns, zero, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond,
                error: RuntimeError::EmptyLoopVariable,
            },
            span,
        );
    }

    /// The element count of a range with constant bounds, by MATLAB's colon rule.
    pub(super) fn constant_count(
        &self,
        start: ExprId,
        step: Option<ExprId>,
        stop: ExprId,
    ) -> Option<f64> {
        let constant = |e: ExprId| match self.exprs[e].kind {
            ExprKind::Const(v) => Some(v),
            _ => None,
        };
        let (a, b) = (constant(start)?, constant(stop)?);
        let s = step.map_or(Some(1.0), constant)?;
        if s == 0.0
            || a.is_nan()
            || b.is_nan()
            || s.is_nan()
            || (s > 0.0 && a > b)
            || (s < 0.0 && a < b)
        {
            return Some(0.0);
        }
        Some(((b - a) / s * (1.0 + 4.440892098500626e-16)).floor() + 1.0)
    }

    /// After an assignment to `var`: it holds a value again.
    pub(super) fn clear_empty_flag(&mut self, var: LocalId, span: Span) {
        if let Some(&flag) = self.empty_flags.get(&var) {
            let value = self.constant_expr(0.0, Class::Logical, span);
            self.push(
                StmtKind::Assign {
                    target: flag,
                    value,
                },
                span,
            );
        }
    }

    /// A read of `id` outside a loop over it: inside an elementwise condition the flag is noted
    /// (the condition becomes false), anywhere else the read is checked.
    pub(super) fn read_loop_variable(&mut self, id: LocalId, span: Span) {
        let Some(&flag) = self.empty_flags.get(&id) else {
            return;
        };
        if self.scope.loop_vars.contains(&id) {
            return;
        }
        match &mut self.empty_reads {
            Some(flags) => flags.push(flag),
            None => self.check_not_empty(flag, span),
        }
    }

    fn check_not_empty(&mut self, flag: LocalId, span: Span) {
        let logical = Type::scalar(Class::Logical);
        let f = self.new_expr(ExprKind::Local(flag), logical, span);
        self.stop_if(f, RuntimeError::EmptyLoopVariable, span);
    }

    /// One operand of a condition (the whole condition, or a side of `&&`/`||`): an
    /// elementwise expression of variables that may be empty is false while one of them is, as
    /// Octave treats an empty operand.
    pub(super) fn condition_operand(&mut self, e: &ast::Expr) -> Option<Val> {
        if !self.empties_make_false(e) {
            return self.value(e);
        }
        let outer = self.empty_reads.replace(Vec::new());
        let value = self.value(e);
        let flags = std::mem::replace(&mut self.empty_reads, outer).unwrap_or_default();
        let Val::Scalar(mut cond) = value? else {
            unreachable!("an elementwise expression of scalars is a scalar")
        };
        let logical = Type::scalar(Class::Logical);
        for flag in flags {
            let f = self.new_expr(ExprKind::Local(flag), logical, e.span);
            let not = self.new_expr(ExprKind::Unary(UnOp::Not, f), logical, e.span);
            cond = self.binary_expr(BinOp::AndAnd, not, cond, Class::Logical, e.span);
        }
        Some(Val::Scalar(cond))
    }

    /// Whether a condition operand is made of numbers, scalar variables, arithmetic,
    /// comparisons, `~`, parentheses, scalar builtins and elements of arrays only: MATLAB gives
    /// such an expression of an empty operand an empty (false) value.
    fn empties_make_false(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            AstExpr::Number { .. } => true,
            AstExpr::Ident(name) => self
                .scope
                .names
                .get(name)
                .is_some_and(|id| self.locals[*id].ty.is_scalar()),
            AstExpr::Paren(inner) => self.empties_make_false(inner),
            AstExpr::Unary { operand, .. } => self.empties_make_false(operand),
            AstExpr::Binary { op, lhs, rhs } => {
                !matches!(
                    op,
                    BinaryOp::And | BinaryOp::Or | BinaryOp::AndAnd | BinaryOp::OrOr
                ) && self.empties_make_false(lhs)
                    && self.empties_make_false(rhs)
            }
            AstExpr::Call { callee, args } => {
                let element = self
                    .scope
                    .names
                    .get(&callee.name)
                    .is_some_and(|id| !self.locals[*id].ty.is_scalar());
                let builtin = !self.scope.names.contains_key(&callee.name)
                    && Builtin::from_name(&callee.name).is_some()
                    && !self.is_function(&callee.name);
                (element || builtin) && args.iter().all(|a| self.empties_make_false(a))
            }
            _ => false,
        }
    }

    /// Before the function returns: an output that is an empty loop variable stops it.
    pub(super) fn check_outputs_not_empty(&mut self, outputs: &[ast::Ident]) {
        for output in outputs {
            let flag = self
                .scope
                .names
                .get(&output.name)
                .and_then(|id| self.empty_flags.get(id))
                .copied();
            if let Some(flag) = flag {
                self.check_not_empty(flag, output.span);
            }
        }
    }
}

/// The names of `for` variables (over ranges, rows or columns) that one of `functions` reads outside
/// every loop over them, or returns.
pub(super) fn loop_variables_read_after(functions: &[ast::Function]) -> HashSet<String> {
    let mut out = HashSet::new();
    for_each_function(functions, &mut |f| {
        walk_stmts(&f.body, &mut |s| {
            if let AstStmt::For { var, .. } = &s.kind {
                if f.outputs.iter().any(|o| o.name == var.name) || read_outside(&f.body, &var.name)
                {
                    out.insert(var.name.clone());
                }
            }
        })
    });
    out
}

/// Whether `body` reads `name` anywhere but inside a `for` loop over `name`.
pub(super) fn read_outside(body: &[ast::Stmt], name: &str) -> bool {
    body.iter().any(|s| match &s.kind {
        AstStmt::For { var, range, body } => {
            mentions(range, name) || (var.name != name && read_outside(body, name))
        }
        AstStmt::While { cond, body } => mentions(cond, name) || read_outside(body, name),
        AstStmt::If { clauses, else_body } => {
            clauses
                .iter()
                .any(|(c, b)| mentions(c, name) || read_outside(b, name))
                || read_outside(else_body.as_deref().unwrap_or_default(), name)
        }
        AstStmt::Switch {
            subject,
            cases,
            otherwise,
        } => {
            mentions(subject, name)
                || cases.iter().any(|c| {
                    let labels: Vec<&ast::Expr> = match &c.labels {
                        ast::CaseLabels::Single(e) => vec![e],
                        ast::CaseLabels::Cell(es) => es.iter().collect(),
                    };
                    labels.into_iter().any(|l| mentions(l, name)) || read_outside(&c.body, name)
                })
                || read_outside(otherwise.as_deref().unwrap_or_default(), name)
        }
        AstStmt::Assign { targets, value } => {
            mentions(value, name)
                || targets.iter().any(|t| match t {
                    ast::LValue::Index { args, .. } | ast::LValue::Content { args, .. } => {
                        args.iter().any(|a| mentions(a, name))
                    }
                    _ => false,
                })
        }
        AstStmt::Expr(e) => mentions(e, name),
        AstStmt::Break | AstStmt::Continue | AstStmt::Return | AstStmt::Declare { .. } => false,
    })
}

/// Whether an expression mentions `name` (as a variable, an index base or a call).
pub(super) fn mentions(e: &ast::Expr, name: &str) -> bool {
    any_node(e, &|x| match &x.kind {
        AstExpr::Ident(n) => n == name,
        AstExpr::Call { callee, .. } | AstExpr::CellIndex { callee, .. } => callee.name == name,
        _ => false,
    })
}

/// Whether `pred` holds for `e` or for an expression nested in it.
pub(super) fn any_node(e: &ast::Expr, pred: &impl Fn(&ast::Expr) -> bool) -> bool {
    pred(e) || children(e).into_iter().any(|c| any_node(c, pred))
}

/// The expressions directly inside `e`.
fn children(e: &ast::Expr) -> Vec<&ast::Expr> {
    match &e.kind {
        AstExpr::Ident(_)
        | AstExpr::Number { .. }
        | AstExpr::Imaginary { .. }
        | AstExpr::Str(_)
        | AstExpr::StringScalar(_)
        | AstExpr::Colon
        | AstExpr::End
        | AstExpr::FuncHandle(_) => vec![],
        AstExpr::Unary { operand, .. } | AstExpr::Postfix { operand, .. } => vec![operand],
        AstExpr::Paren(inner) => vec![inner],
        AstExpr::Binary { lhs, rhs, .. } => vec![lhs, rhs],
        AstExpr::Range { start, step, stop } => {
            let mut out = vec![&**start];
            out.extend(step.as_deref());
            out.push(stop);
            out
        }
        AstExpr::Call { args, .. }
        | AstExpr::CellIndex { args, .. }
        | AstExpr::ElementField { args, .. } => args.iter().collect(),
        AstExpr::Matrix(rows) => rows.iter().flatten().collect(),
        AstExpr::HandleCell(items) | AstExpr::TextCell { items, .. } => items.iter().collect(),
        AstExpr::AnonFn { body, .. } => vec![body],
    }
}
