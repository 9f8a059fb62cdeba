//! The generic builders of IR that every lowering module uses: fresh expressions (constants,
//! reads of locals, binary operations folded where an operand is an identity, deep copies),
//! compiler temporaries, and statements emitted into the innermost open block (`if`, counted
//! `for` loops, chains of cases).
//!
//! Invariant: every statement is appended by [`Lowerer::push`] to the block that
//! [`Lowerer::open_block`] opened last; an expression is used in one place only (a second use
//! takes a [`Lowerer::copy_expr`]).

use super::*;

impl Lowerer<'_> {
    pub(super) fn new_expr(&mut self, kind: ExprKind, ty: Type, span: Span) -> ExprId {
        self.exprs.alloc(Expr { kind, ty, span })
    }

    pub(super) fn constant_expr(&mut self, value: f64, class: Class, span: Span) -> ExprId {
        self.new_expr(ExprKind::Const(value), Type::scalar(class), span)
    }

    /// The statements and expressions lowered so far, to walk.
    pub(super) fn tree(&self) -> crate::ir::Tree<'_> {
        crate::ir::Tree {
            stmts: &self.stmts,
            exprs: &self.exprs,
        }
    }

    pub(super) fn read_local(&mut self, local: LocalId, span: Span) -> ExprId {
        let ty = self.locals[local].ty;
        self.new_expr(ExprKind::Local(local), ty, span)
    }

    /// `local + delta`, a double (`i + 1` for the loop variable `i`).
    pub(super) fn local_plus(&mut self, local: LocalId, delta: f64, span: Span) -> ExprId {
        let read = self.read_local(local, span);
        let delta = self.constant_expr(delta, Class::Double, span);
        self.binary_expr(BinOp::Add, read, delta, Class::Double, span)
    }

    pub(super) fn const_of(&self, e: ExprId) -> Option<f64> {
        match self.exprs[e].kind {
            ExprKind::Const(v) => Some(v),
            ExprKind::Unary(UnOp::Neg, a) => self.const_of(a).map(|v| -v),
            _ => None,
        }
    }

    pub(super) fn binary_expr(
        &mut self,
        op: BinOp,
        a: ExprId,
        b: ExprId,
        class: Class,
        span: Span,
    ) -> ExprId {
        if let Some(simpler) = self.identity_operand(op, a, b, class) {
            return simpler;
        }
        self.new_expr(ExprKind::Binary(op, a, b), Type::scalar(class), span)
    }

    /// `x + 0`, `0 + x`, `x - 0`, `x * 1`, `1 * x` of doubles: just `x`, so generated index
    /// arithmetic stays readable.
    fn identity_operand(&self, op: BinOp, a: ExprId, b: ExprId, class: Class) -> Option<ExprId> {
        let double = |e: ExprId| self.exprs[e].ty.class == Class::Double;
        if class != Class::Double || !double(a) || !double(b) {
            return None;
        }
        let (ca, cb) = (self.const_of(a), self.const_of(b));
        match op {
            BinOp::Add if ca == Some(0.0) => Some(b),
            BinOp::Add | BinOp::Sub if cb == Some(0.0) => Some(a),
            BinOp::Mul if ca == Some(1.0) => Some(b),
            BinOp::Mul if cb == Some(1.0) => Some(a),
            _ => None,
        }
    }

    /// A deep copy of a scalar expression, so that it can appear in another statement.
    pub(super) fn copy_expr(&mut self, e: ExprId) -> ExprId {
        crate::ir::copy_expr(&mut self.exprs, e)
    }

    /// A fresh compiler temporary named `_<stem><n>`.
    pub(super) fn temp(&mut self, stem: &str, ty: Type, span: Span) -> LocalId {
        self.temps += 1;
        let name = format!("_{stem}{}", self.temps);
        self.locals.alloc(crate::ir::Local {
            name,
            ty,
            span,
            integral: false,
            loop_integral: false,
            shown: crate::ir::Shown::Source(span),
        })
    }

    /// A fresh compiler temporary `_<stem><n>` assigned the scalar `value` now.
    pub(super) fn held_scalar(&mut self, stem: &str, value: ExprId, span: Span) -> LocalId {
        let held = self.temp(stem, self.exprs[value].ty, span);
        self.push(
            StmtKind::Assign {
                target: held,
                value,
            },
            span,
        );
        held
    }

    /// Starts collecting statements into a new block.
    pub(super) fn open_block(&mut self) {
        self.emitted.push(Vec::new());
        self.enter_frame();
    }

    /// Ends the innermost block started by [`Self::open_block`].
    pub(super) fn close_block(&mut self) -> Block {
        self.frames.pop();
        Block(self.emitted.pop().unwrap_or_default())
    }

    /// Appends a statement to the innermost open block.
    pub(super) fn push(&mut self, kind: StmtKind, span: Span) -> Option<StmtId> {
        let id = self.stmts.alloc(Stmt { kind, span });
        if let Some(block) = self.emitted.last_mut() {
            block.push(id);
        }
        Some(id)
    }

    /// Emits a run-time check that stops with `error` when the logical `failed` holds.
    pub(super) fn stop_if(&mut self, failed: ExprId, error: crate::ir::RuntimeError, span: Span) {
        let logical = Type::scalar(Class::Logical);
        let cond = self.new_expr(ExprKind::Unary(UnOp::Not, failed), logical, span);
        self.push(StmtKind::Check { cond, error }, span);
    }

    /// Emits `if cond` around the statements `then` emits (no `else`).
    pub(super) fn emit_if(&mut self, cond: ExprId, span: Span, then: impl FnOnce(&mut Self)) {
        self.emit_if_else(cond, span, then, |_| {});
    }

    /// Emits `if cond` around the statements `then` emits, `else` around those `otherwise`
    /// emits.
    pub(super) fn emit_if_else(
        &mut self,
        cond: ExprId,
        span: Span,
        then: impl FnOnce(&mut Self),
        otherwise: impl FnOnce(&mut Self),
    ) {
        self.open_block();
        then(self);
        let then_body = self.close_block();
        self.open_block();
        otherwise(self);
        let else_body = self.close_block();
        self.push(
            StmtKind::If {
                cond,
                then_body,
                else_body,
            },
            span,
        );
    }

    /// Emits `target = value`.
    pub(super) fn set_local(&mut self, target: LocalId, value: ExprId, span: Span) {
        self.push(StmtKind::Assign { target, value }, span);
    }

    /// Emits `if at == first, case(first) elseif ... else case(last) end` for the values
    /// `cases` of the double local `at` (the last case needs no test: `at` holds one of them).
    pub(super) fn emit_case_chain(
        &mut self,
        at: LocalId,
        cases: std::ops::Range<usize>,
        span: Span,
        case: &mut dyn FnMut(&mut Self, usize),
    ) {
        let first = cases.start;
        match cases.len() {
            0 => return,
            1 => return case(self, first),
            _ => {}
        }
        let cond = self.local_compared(at, first as f64, BinOp::Eq, span);
        self.open_block();
        case(self, first);
        let then_body = self.close_block();
        self.open_block();
        self.emit_case_chain(at, first + 1..cases.end, span, case);
        let else_body = self.close_block();
        self.push(
            StmtKind::If {
                cond,
                then_body,
                else_body,
            },
            span,
        );
    }

    /// `local op value` for a double local.
    pub(super) fn local_compared(
        &mut self,
        local: LocalId,
        value: f64,
        op: BinOp,
        span: Span,
    ) -> ExprId {
        let local = self.read_local(local, span);
        let value = self.constant_expr(value, Class::Double, span);
        self.binary_expr(op, local, value, Class::Logical, span)
    }

    /// A new integral loop variable `_k<n>`.
    pub(super) fn counting_loop_var(&mut self, stem: &str, span: Span) -> LocalId {
        let var = self.temp(stem, Type::scalar(Class::Double), span);
        self.locals[var].integral = true;
        var
    }

    /// Emits `for _<stem><n> = 1:n` around the statements `body` emits for the new variable.
    pub(super) fn counted_loop(
        &mut self,
        stem: &str,
        n: ExprId,
        span: Span,
        body: impl FnOnce(&mut Self, LocalId),
    ) -> Option<StmtId> {
        let var = self.counting_loop_var(stem, span);
        self.open_block();
        body(self, var);
        let block = self.close_block();
        self.emit_for(var, n, block, span)
    }

    /// Emits `for var = 1:n, body, end`.
    pub(super) fn emit_for(
        &mut self,
        var: LocalId,
        n: ExprId,
        body: crate::ir::Block,
        span: Span,
    ) -> Option<StmtId> {
        let start = self.constant_expr(1.0, Class::Double, span);
        self.push(
            StmtKind::For {
                var,
                start,
                step: None,
                stop: n,
                body,
            },
            span,
        )
    }
}
