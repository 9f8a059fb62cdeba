//! MATLAB Coder's directives (`coder.gpu.kernel()`, `coder.gpu.nokernel()` before a `for`
//! loop, `coder.gpu.constantMemory(x)`) and `gpucoder.reduce`'s functions, collected while the
//! body is lowered into [`Directives`], which `Lowerer::finish` hands to the `Function`.
//!
//! Invariant: a loop pragma is consumed by the statement right after it; if that statement is
//! not a `for` loop, or the block ends first, it is E0112.

use super::*;

/// The directives of the function being lowered.
#[derive(Default)]
pub(super) struct Directives {
    /// A `coder.gpu.kernel()`/`nokernel()` waiting for the `for` loop it must precede.
    pub pending_pragma: Option<(LoopPragma, Span)>,
    /// Each pragma with the `for` loop it precedes and its span.
    pub pragmas: Vec<(StmtId, LoopPragma, Span)>,
    /// Inputs named by `coder.gpu.constantMemory(x)`, with the directive's span.
    pub constant_memory: Vec<(LocalId, Span)>,
    /// The functions `gpucoder.reduce` folds with.
    pub combiners: la_arena::Arena<crate::ir::Combiner>,
}

/// The MATLAB Coder directives m2cu takes.
pub(super) const CODER_DIRECTIVES: [&str; 6] = [
    "coder.gpu.kernel",
    "coder.gpu.nokernel",
    "coder.gpu.constantMemory",
    "coder.gpu.kernelfun",
    "coder.gpu.iterations",
    "coder.inline",
];

impl Lowerer<'_> {
    /// MATLAB Coder directives written as statements.
    pub(super) fn coder_directive(&mut self, name: &str, args: &[ast::Expr], span: Span) {
        match name {
            "coder.gpu.kernel" => self.pend(LoopPragma::Kernel, span),
            "coder.gpu.nokernel" => self.pend(LoopPragma::NoKernel, span),
            "coder.gpu.constantMemory" => self.constant_memory(args, span),
            // Accepted: every function m2cu translates is a GPU entry, and every call is
            // inlined. `coder.gpu.iterations(n)`, GPU Coder's guess at the trip count of the
            // next loop when its bounds are not constant, is a hint m2cu has no use for: a
            // loop's verdict follows from its dependences, and its grid from the bounds at run
            // time.
            "coder.gpu.kernelfun" | "coder.inline" | "coder.gpu.iterations" => {}
            _ => self.unsupported(
                span,
                &format!("the directive `{name}`"),
                &format!("m2cu knows {}", CODER_DIRECTIVES.join(", ")),
            ),
        }
    }

    /// A loop pragma, waiting for the statement after it.
    fn pend(&mut self, pragma: LoopPragma, span: Span) {
        self.directives.pending_pragma = Some((pragma, span));
    }

    /// `coder.gpu.constantMemory(x)` in the entry function: `x` must name one of its inputs.
    /// Inside an inlined local function the hint is ignored (the callee's inputs are copies).
    fn constant_memory(&mut self, args: &[ast::Expr], span: Span) {
        if !self.inlining.is_empty() {
            return;
        }
        let input = match args {
            [ast::Expr {
                kind: AstExpr::Ident(name),
                ..
            }] => self
                .scope
                .names
                .get(name)
                .copied()
                .filter(|id| self.params.contains(id)),
            _ => None,
        };
        match input {
            Some(id) => self.directives.constant_memory.push((id, span)),
            None => self.error(
                "E0116",
                span,
                "`coder.gpu.constantMemory` must name an input of the entry function".into(),
                "write `coder.gpu.constantMemory(x)` where `x` is one of the function's inputs; it places `x` in the GPU's `__constant__` memory".into(),
            ),
        }
    }

    /// The pragma waiting for `stmt`, taken; E0112 when `stmt` is not a `for` loop.
    pub(super) fn pragma_before(&mut self, stmt: &ast::Stmt) -> Option<(LoopPragma, Span)> {
        let pragma = self.directives.pending_pragma.take();
        if let (Some((_, at)), false) = (pragma, matches!(stmt.kind, AstStmt::For { .. })) {
            self.error(
                "E0112",
                at,
                "a loop pragma must come right before a `for` loop".into(),
                "move `coder.gpu.kernel()` / `coder.gpu.nokernel()` to the line before the `for`"
                    .into(),
            );
        }
        pragma
    }

    /// E0112 for a pragma still waiting when its block ends.
    pub(super) fn pragma_left_at_block_end(&mut self) {
        if let Some((_, at)) = self.directives.pending_pragma.take() {
            self.error(
                "E0112",
                at,
                "a loop pragma must come right before a `for` loop".into(),
                "this pragma ends its block; move it to the line before a `for`".into(),
            );
        }
    }
}
