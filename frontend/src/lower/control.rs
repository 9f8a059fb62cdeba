//! Control flow: `for` over ranges and over row vectors, `switch`, and conditions (where `&`
//! and `|` short-circuit as in MATLAB's `if`/`while`, and an array condition means "nonempty
//! and all nonzero").

use super::array::{Pos, Val};
use super::inline::assigns;
use super::reduce::Reduction;
use super::*;
use crate::ir::RuntimeError;

impl Lowerer<'_> {
    pub(super) fn condition(&mut self, e: &ast::Expr) -> Option<ExprId> {
        if let AstExpr::Binary { op, lhs, rhs } = &strip_parens(e).kind {
            if matches!(op, BinaryOp::And | BinaryOp::AndAnd) {
                return self.short_circuit(BinOp::AndAnd, (lhs, rhs), Self::condition, e.span);
            }
            if matches!(op, BinaryOp::Or | BinaryOp::OrOr) {
                return self.short_circuit(BinOp::OrOr, (lhs, rhs), Self::condition, e.span);
            }
        }
        match self.condition_operand(e)? {
            Val::Scalar(x) => Some(x),
            Val::Array(a) => Some(self.array_truth(&a, e.span)),
        }
    }

    /// `a && b` / `a || b`. When `b` needs statements before it (a reduction, an inlined
    /// call), they run only when `a` does not decide the result:
    /// `_c = a; if _c (or ~_c), ...; _c = b; end`.
    pub(super) fn short_circuit(
        &mut self,
        op: BinOp,
        (lhs, rhs): (&ast::Expr, &ast::Expr),
        operand: fn(&mut Self, &ast::Expr) -> Option<ExprId>,
        span: Span,
    ) -> Option<ExprId> {
        let a = operand(self, lhs);
        self.open_block();
        let b = operand(self, rhs);
        let pre = self.close_block();
        let (a, b) = (a?, b?);
        if pre.0.is_empty() {
            return Some(self.binary_expr(op, a, b, Class::Logical, span));
        }
        let logical = Type::scalar(Class::Logical);
        // The temporary holds each operand's truth (`if raw && any(v)` with a double `raw`):
        // `logical(x)`, which stops at NaN as the condition would.
        let truth = |me: &mut Self, x: ExprId| match me.exprs[x].ty.class {
            Class::Logical => x,
            _ => me.new_expr(ExprKind::Convert(x), logical, span),
        };
        let (a, b) = (truth(self, a), truth(self, b));
        let c = self.temp("c", logical, span);
        self.push(
            StmtKind::Assign {
                target: c,
                value: a,
            },
            span,
        );
        let mut guard = self.new_expr(ExprKind::Local(c), logical, span);
        if op == BinOp::OrOr {
            guard = self.new_expr(ExprKind::Unary(UnOp::Not, guard), logical, span);
        }
        self.emit_if(guard, span, |me| {
            if let Some(block) = me.emitted.last_mut() {
                block.extend(pre.0);
            }
            me.push(
                StmtKind::Assign {
                    target: c,
                    value: b,
                },
                span,
            );
        });
        Some(self.new_expr(ExprKind::Local(c), logical, span))
    }

    /// `while cond, body, end` whose condition needs the statements `pre` (a check, a
    /// reduction, an inlined call): `while true, pre; if ~cond, break; end; body; end`, so
    /// `pre` runs before every test, as MATLAB evaluates the condition, and a `continue` in
    /// `body` goes back to the test.
    pub(super) fn retested_while(
        &mut self,
        pre: Block,
        cond: ExprId,
        body: Block,
        span: Span,
    ) -> Option<StmtId> {
        let logical = Type::scalar(Class::Logical);
        let stop = self.new_expr(ExprKind::Unary(UnOp::Not, cond), logical, span);
        self.open_block();
        if let Some(block) = self.emitted.last_mut() {
            block.extend(pre.0);
        }
        self.emit_if(stop, span, |me| {
            me.push(StmtKind::Break, span);
        });
        let mut tested = self.close_block();
        tested.0.extend(body.0);
        let always = self.constant_expr(1.0, Class::Logical, span);
        self.push(
            StmtKind::While {
                cond: always,
                body: tested,
            },
            span,
        )
    }

    /// MATLAB's truth of an array: nonempty and every element nonzero; an array with a NaN
    /// anywhere has none, and stops.
    fn array_truth(&mut self, a: &array::ArrayVal, span: Span) -> ExprId {
        if a.class.is_float() {
            self.check_no_nan(a, span);
        }
        let all = self.all_elements(Reduction::All, a, span);
        let n = self.numel_expr(a, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let nonempty = self.binary_expr(BinOp::Gt, n, zero, Class::Logical, span);
        self.binary_expr(BinOp::AndAnd, nonempty, all, Class::Logical, span)
    }

    /// Stops with [`RuntimeError::NanToLogical`] when an element of `a` is NaN.
    fn check_no_nan(&mut self, a: &array::ArrayVal, span: Span) {
        let nan = a.clone().wrap(Class::Logical, span, |a| {
            array::Node::Call(Builtin::IsNan, vec![array::Operand::Array(a)])
        });
        let any_nan = self.all_elements(Reduction::Any, &nan, span);
        self.stop_if(any_nan, RuntimeError::NanToLogical, span);
    }

    pub(super) fn for_loop(
        &mut self,
        var: &ast::Ident,
        range: &ast::Expr,
        body: &[ast::Stmt],
        span: Span,
    ) -> Option<StmtId> {
        let AstExpr::Range {
            start: start_ast,
            step: step_ast,
            stop: stop_ast,
        } = &strip_parens(range).kind
        else {
            return self.for_each(var, range, body, span);
        };
        let (start, step, stop) =
            self.range_operands(start_ast, step_ast.as_deref(), stop_ast, span)?;
        let operands: Vec<ExprId> = [Some(start), step, Some(stop)]
            .into_iter()
            .flatten()
            .collect();
        let class = self.range_class(&operands, range.span)?;
        if class != Class::Double {
            // `for v = int8(1):3`: `v` takes the range's class, element by element.
            let step = step.unwrap_or_else(|| self.constant_expr(1.0, Class::Double, span));
            let values = self.range_of(start, step, stop, class, range.span);
            return self.for_each_value(var, values, body, span);
        }
        let var_id = self.loop_var(var, Type::scalar(Class::Double))?;
        let integral = self.is_integral(start) && step.is_none_or(|s| self.is_integral(s));
        // Every loop over the variable must run over integers, earlier ones included.
        let earlier = self.looped.insert(var_id) || self.locals[var_id].loop_integral;
        self.locals[var_id].loop_integral = integral && earlier;
        self.locals[var_id].integral = integral && earlier && self.only_loops_assign(&var.name);
        self.set_empty_flag(var_id, (start, step, stop), span);
        let bounds = (start_ast.as_ref(), step_ast.is_some(), stop_ast.as_ref());
        self.enter_growth_loop(var, bounds, (start, stop), body);
        self.scope.loop_vars.push(var_id);
        self.loop_range = Some((start, step, stop));
        let body = self.loop_body(body);
        self.scope.loop_vars.pop();
        self.leave_growth_loop(span);
        self.push(
            StmtKind::For {
                var: var_id,
                start,
                step,
                stop,
                body,
            },
            span,
        )
    }

    /// `for v = values`: one iteration per column of `values` (MATLAB's rule): the elements of
    /// a row vector, the columns of a matrix, the value itself for a scalar.
    fn for_each(
        &mut self,
        var: &ast::Ident,
        values: &ast::Expr,
        body: &[ast::Stmt],
        span: Span,
    ) -> Option<StmtId> {
        let values = self.value(values)?;
        self.for_each_value(var, values, body, span)
    }

    /// `for v = values` over a value already lowered.
    fn for_each_value(
        &mut self,
        var: &ast::Ident,
        values: Val,
        body: &[ast::Stmt],
        span: Span,
    ) -> Option<StmtId> {
        let a = match values {
            Val::Array(a) => {
                self.reject_3d(&a, "a `for` loop over the columns")?;
                a
            }
            Val::Scalar(e) => {
                let ty = self.exprs[e].ty;
                let var_id = self.loop_var(var, ty)?;
                let one = self.constant_expr(1.0, Class::Double, span);
                self.set_empty_flag_count(var_id, one, span);
                return self.each_iteration(var_id, one, body, span, |me, _| {
                    let e = me.copy_expr(e);
                    me.push(
                        StmtKind::Assign {
                            target: var_id,
                            value: e,
                        },
                        span,
                    );
                });
            }
        };
        let a = if self.may_change(&a, body) || !matches!(a.node, array::Node::Whole(_)) {
            let temp = self.materialize(&a);
            self.whole(temp, span)
        } else {
            a
        };
        let array::Node::Whole(source) = a.node else {
            return None;
        };
        if a.shape.rows == Dim::Known(1) {
            let var_id = self.loop_var(var, Type::scalar(a.class))?;
            let n = self.numel_expr(&a, span);
            self.set_empty_flag_count(var_id, n, span);
            return self.each_iteration(var_id, n, body, span, |me, k| {
                let element = me.element(&a, Pos::linear(k));
                me.push(
                    StmtKind::Assign {
                        target: var_id,
                        value: element,
                    },
                    span,
                );
            });
        }
        let column = Type::array(a.class, Shape::new(a.shape.rows, Dim::Known(1)));
        let var_id = self.loop_var(var, column)?;
        let n = self.copy_expr(a.cols);
        let id = self.each_iteration(var_id, n, body, span, |me, k| {
            let at = me.new_expr(ExprKind::Local(k), Type::scalar(Class::Double), span);
            let col = me.slice(source, vec![array::Sub::All, array::Sub::Scalar(at)], span);
            me.alloc_for(var_id, &col);
            let place = me.whole_place(var_id, span);
            me.write_loop(&place, &Val::Array(col), span);
        });
        self.check_columns_ran(&var.name, a.cols, span);
        id
    }

    /// `for _k = 1:n`, whose body first sets the loop variable (`set`), then runs `body`.
    fn each_iteration(
        &mut self,
        var_id: LocalId,
        n: ExprId,
        body: &[ast::Stmt],
        span: Span,
        set: impl FnOnce(&mut Self, LocalId),
    ) -> Option<StmtId> {
        self.scope.loop_vars.push(var_id);
        let id = self.counted_loop("k", n, span, |me, k| {
            set(me, k);
            me.scope.loop_depth += 1;
            for s in body {
                me.stmt(s);
            }
            me.scope.loop_depth -= 1;
        });
        self.scope.loop_vars.pop();
        id
    }

    /// Whether the loop body may assign an array that `a` reads (MATLAB evaluates the values
    /// of a `for` once, before the first iteration).
    fn may_change(&self, a: &array::ArrayVal, body: &[ast::Stmt]) -> bool {
        self.scope
            .names
            .iter()
            .filter(|(_, id)| self.reads_whole(a, **id) || self.reads_elsewhere(a, **id))
            .any(|(name, _)| assigns(body, name))
    }

    pub(super) fn switch(
        &mut self,
        subject: &ast::Expr,
        cases: &[ast::SwitchCase],
        otherwise: Option<&[ast::Stmt]>,
        span: Span,
    ) -> Option<StmtId> {
        let value = self.text_value(subject)?;
        if super::expr::val_class(self, &value) == Class::Char {
            let text = self.text_subject(value, subject.span)?;
            return self.switch_cases(text, cases, otherwise);
        }
        let value = self.require_scalar(value, "a `switch` value")?;
        let ty = self.exprs[value].ty;
        let temp = self.temp("s", ty, subject.span);
        self.push(
            StmtKind::Assign {
                target: temp,
                value,
            },
            span,
        );
        self.switch_cases(temp, cases, otherwise)
    }

    fn switch_cases(
        &mut self,
        subject: LocalId,
        cases: &[ast::SwitchCase],
        otherwise: Option<&[ast::Stmt]>,
    ) -> Option<StmtId> {
        let Some((first, rest)) = cases.split_first() else {
            for s in otherwise.unwrap_or_default() {
                self.stmt(s);
            }
            return None;
        };
        let cond = self.case_condition(subject, &first.labels);
        let then_body = self.block(&first.body);
        self.open_block();
        self.switch_cases(subject, rest, otherwise);
        let else_body = self.close_block();
        self.push(
            StmtKind::If {
                cond: cond?,
                then_body,
                else_body,
            },
            first.span,
        )
    }

    fn case_condition(&mut self, subject: LocalId, labels: &ast::CaseLabels) -> Option<ExprId> {
        let labels: Vec<&ast::Expr> = match labels {
            ast::CaseLabels::Single(e) => vec![e],
            ast::CaseLabels::Cell(es) => es.iter().collect(),
        };
        let mut cond: Option<ExprId> = None;
        for label in labels {
            let eq = self.case_match(subject, label)?;
            cond = Some(match cond {
                None => eq,
                Some(c) => self.binary_expr(BinOp::OrOr, c, eq, Class::Logical, label.span),
            });
        }
        cond
    }

    /// Whether the `switch` value held in `subject` matches one `case` value.
    fn case_match(&mut self, subject: LocalId, label: &ast::Expr) -> Option<ExprId> {
        let value = self.text_value(label)?;
        let ty = self.locals[subject].ty;
        if ty.class == Class::Char || super::expr::val_class(self, &value) == Class::Char {
            return self.text_case(subject, value, label.span);
        }
        let value = self.require_scalar(value, "a `case` value")?;
        let s = self.new_expr(ExprKind::Local(subject), ty, label.span);
        Some(self.binary_expr(BinOp::Eq, s, value, Class::Logical, label.span))
    }

    /// Whether `for` loops are the only statements of the function being lowered that give
    /// `name` a value (it is no parameter, and no assignment targets it): only then may its
    /// local be held as an integer ([`Local::integral`]), since any other value it holds before,
    /// between or after its loops (`k = k / 4` after `for k = 1:n`) is read from the same local.
    fn only_loops_assign(&self, name: &str) -> bool {
        let function = self.inlining.last().copied().unwrap_or(self.entry.function);
        let mut assigned = function.params.iter().any(|p| p.name == name);
        super::walk_stmts(&function.body, &mut |s| {
            assigned |= super::inline::assigned_by(s, name);
        });
        !assigned
    }
}
