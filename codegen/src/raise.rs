//! `error` (and a failing `assert`) inside a parallel loop: a kernel, or an OpenMP loop on the
//! CPU. MATLAB stops at the first failing iteration in loop order and shows that iteration's
//! values, so a parallel loop reports the failure of its smallest failing iteration, never that
//! of the first thread to fail.
//!
//! Design, exact without any race on the message's values:
//! - every iteration has its own status `m2cu_ierr`: the checked helpers and run-time checks
//!   write it, and its first error wins, as in sequential code. An `error` statement reached
//!   while the iteration has no error yet stores its site (the statement's number) and its
//!   message's values, evaluated in the iteration (so values computed there are exact), into a
//!   failure record, and jumps to the end of the iteration, which publishes a failure;
//! - on the GPU each thread owns one record, slot `m2cu_slot` (its index in the grid). A thread
//!   takes its iterations in increasing order (`t`, `t + stride`, ...) and stops at its first
//!   failure, so its slot holds its smallest failing iteration and nobody else writes it. The
//!   smallest failing iteration of all is an `atomicMin` on one 64-bit word; after the launch
//!   the host reads that word `t`, downloads the one record of slot `t % stride` (the record of
//!   iteration `t`) and formats it. Iterations past the smallest failure seen so far are
//!   skipped: they cannot be reported;
//! - on the CPU each OpenMP iteration fills a record of its own and publishes it in a named
//!   critical section that keeps the record of the smallest iteration;
//! - the host formats the message from the record with the statement writer's own pieces
//!   ([`Context::put_piece_with`]), so the text is the same as a sequential `error`'s.
//!
//! What other iterations wrote does not matter: an error returns no outputs, and a reduction's
//! partial result is dropped with them. The iteration number must follow loop order: the
//! planner keeps a raising kernel's collapsed levels in source order and never fuses it or
//! splits its iterations per output (`Kernel::raises`).

use m2cu_analysis::Kernel;
use m2cu_frontend::ir::{Block, ExprId, PrintPiece, PrintTo, StmtId, StmtKind};

use crate::c_text::string_literal;
use crate::code::Code;
use crate::failure::{field, site_number, Failure};
use crate::stmt::Context;

/// The per-iteration status of a raising loop's body.
pub const ITERATION_STATUS: &str = "m2cu_ierr";
const ITERATION_ERR: &str = "&m2cu_ierr";

/// The C type name of `kernel`'s failure record.
pub fn record_type(kernel: &Kernel) -> String {
    format!("m2cu_fail_{}", kernel.name)
}

/// The `error` statements of `kernel`'s iterations, in source order.
fn sites(ctx: &Context, kernel: &Kernel) -> Vec<StmtId> {
    let f = ctx.f;
    let mut out = Vec::new();
    for body in kernel.bodies(f) {
        f.walk_stmts(body, &mut |s| {
            if let StmtKind::Print {
                to: PrintTo::Error { .. },
                ..
            } = f.stmts[s].kind
            {
                out.push(s);
            }
        });
    }
    out
}

/// The values of statement `s`'s message, in order.
fn message_args(ctx: &Context, s: StmtId) -> Vec<ExprId> {
    match &ctx.f.stmts[s].kind {
        StmtKind::Print { pieces, .. } => {
            pieces.iter().flat_map(PrintPiece::args).copied().collect()
        }
        _ => Vec::new(),
    }
}

/// `typedef struct { int code; int site; <each message value> } m2cu_fail_<kernel>;`: the same
/// declaration in the kernel source and the host program, so the layouts agree.
pub fn record_struct(ctx: &Context, kernel: &Kernel) -> String {
    let mut fields = vec!["int code;".to_string(), "int site;".to_string()];
    for s in sites(ctx, kernel) {
        for (j, arg) in message_args(ctx, s).into_iter().enumerate() {
            let ty = ctx.f.class_of(arg).c_type();
            fields.push(format!("{ty} {};", field(s, j)));
        }
    }
    format!(
        "typedef struct {{ {} }} {};",
        fields.join(" "),
        record_type(kernel)
    )
}

/// The body of one iteration of a raising loop: its own status, the bodies (whose `error`
/// statements fill `record`), and `publish` run when the iteration failed.
pub fn iteration(
    ctx: &Context,
    code: &mut Code,
    kernel: &Kernel,
    bodies: &[&Block],
    record: &'static str,
    publish: &str,
) {
    let failure = Failure {
        record,
        label: format!("m2cu_failed_{}", kernel.name),
    };
    let inner = ctx.raising(ITERATION_STATUS, ITERATION_ERR, failure.clone());
    code.line(format!("int {ITERATION_STATUS} = 0;"));
    code.open("{");
    for body in bodies {
        inner.block(code, body);
    }
    code.close("}");
    code.open(format!(
        "{}: if ({ITERATION_STATUS} != 0) {{",
        failure.label
    ));
    code.line(format!("{record}.code = {ITERATION_STATUS};"));
    code.line(publish);
    code.close("}");
}

/// On the host after a raising loop whose smallest failing iteration's record is `record`:
/// that iteration's message (for an `error` statement) and its code become the call's error,
/// unless an earlier error is already pending.
pub fn report(ctx: &Context, code: &mut Code, kernel: &Kernel, record: &str) {
    let status = ctx.status;
    code.open(format!("if ({status} == 0) {{"));
    code.open(format!(
        "switch ({record}.code == M2CU_E_USER ? {record}.site : -1) {{"
    ));
    for s in sites(ctx, kernel) {
        let StmtKind::Print {
            pieces,
            to: PrintTo::Error { id },
        } = &ctx.f.stmts[s].kind
        else {
            continue;
        };
        code.open(format!("case {}: {{", site_number(s)));
        code.line("m2cu_text m2cu_t = M2CU_TEXT_INIT;");
        let mut j = 0;
        for piece in pieces {
            let arg = match piece.args().first() {
                Some(_) => {
                    j += 1;
                    format!("{record}.{}", field(s, j - 1))
                }
                None => String::new(),
            };
            code.line(ctx.put_piece_with(piece, &arg));
        }
        code.line(format!(
            "m2cu_raise(&m2cu_t, {}, m2cu_msg, m2cu_msg_len);",
            string_literal(id.as_deref().unwrap_or(""))
        ));
        code.line("free(m2cu_t.s);");
        code.line("break;");
        code.close("}");
    }
    code.line("default: break;");
    code.close("}");
    code.line(format!("{status} = {record}.code;"));
    code.close("}");
}
