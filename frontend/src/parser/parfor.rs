//! `parfor`: a `for` loop the user asserts parallel.
//!
//! `parfor i = r ... end`, `parfor (i = r) ... end` and `parfor (i = r, M) ... end` are parsed
//! as the `for` loop preceded by the statement `coder.gpu.kernel()`, the pragma that makes a
//! loop a kernel and reports any dependence it overrides (GPU Coder's reading of `parfor`).
//! Reductions such as `s = s + x(i)` stay reductions, as parfor's reduction variables are.
//! The worker limit `M` is parsed and dropped: it changes how MATLAB schedules the iterations
//! (`0` runs them in order in the client), never the result of a loop whose iterations are
//! independent, which is what `parfor` asserts; Octave runs every `parfor` as a `for`.

use super::*;

/// Whether the next statement is a `parfor` loop.
pub(super) fn is_parfor(i: &Input) -> bool {
    *i.kind() == TokKind::Kw(Keyword::Unsupported("parfor"))
}

/// A `parfor` loop as its two statements: the pragma, then the `for` loop.
pub(super) fn parfor_stmts(i: Input) -> PResult<Vec<Stmt>> {
    let start = i;
    let (i, parfor_span) = keyword(Keyword::Unsupported("parfor"))(i)?;
    let worker_limit = opt(preceded(token(TokKind::Comma), cut(expr)));
    let binding_in_parens = delimited(
        token(TokKind::LParen),
        terminated(loop_binding, worker_limit),
        token(TokKind::RParen),
    );
    let (i, binding) = header(
        start,
        i,
        block_header(alt((binding_in_parens, loop_binding))),
    )?;
    let (i, body) = block_body(i, Arms::None)?;
    let (i, _) = close_block(i, parfor_span, "parfor")?;
    let span = i.span_since(&start);
    let (i, ()) = terminator(i)?;
    let Some((var, range)) = binding else {
        return error(PError::silent(&i));
    };
    let for_loop = Stmt {
        kind: StmtKind::For { var, range, body },
        span,
        shown: false,
    };
    Ok((i, vec![kernel_pragma(parfor_span), for_loop]))
}

/// `coder.gpu.kernel()`, located at the `parfor` keyword.
fn kernel_pragma(span: Span) -> Stmt {
    let callee = Ident {
        name: "coder.gpu.kernel".into(),
        span,
    };
    let call = Expr {
        kind: ExprKind::Call {
            callee,
            args: Vec::new(),
        },
        span,
    };
    Stmt {
        kind: StmtKind::Expr(call),
        span,
        shown: false,
    }
}
