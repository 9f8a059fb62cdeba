//! The loop report: the stable text form of the analysis, one entry per loop.
//!
//! ```text
//! 3:5 for i (depth 1): reduction [s: sum] -> kernel vecsum_kernel1
//! 5:5 for i (depth 1): sequential: `c` is written in one iteration and read in another, 1 iteration(s) apart
//!     witness: `c` written at 5:9, read at 5:16, distance 1
//! ```

use std::fmt::Write;

use m2cu_frontend::diag::line_col;
use m2cu_frontend::ir::Function;
use m2cu_frontend::Span;

use crate::verdict::Verdict;
use crate::Analysis;

/// Renders the report for `f`; positions are `line:col` in `source`.
pub fn render(f: &Function, analysis: &Analysis, source: &str) -> String {
    let at = |span: Span| {
        let (l, c) = line_col(source, span.start);
        format!("{l}:{c}")
    };
    let mut out = String::new();
    if analysis.loops.loops.is_empty() {
        let _ = writeln!(out, "{}: no loops", f.name);
    }
    for (id, info) in analysis.loops.loops.iter().enumerate() {
        let head = match info.var {
            Some(v) => format!("for {}", f.locals[v].name),
            None => "while".to_string(),
        };
        let _ = write!(
            out,
            "{} {head} (depth {}): ",
            at(f.stmts[info.stmt].span),
            info.depth
        );
        let verdict = &analysis.verdicts[id];
        match verdict {
            Verdict::Parallel(_) => out.push_str("parallel"),
            Verdict::Reduction(_, rs) => {
                let list: Vec<String> = rs
                    .iter()
                    .map(|r| {
                        let kind = if r.is_count { "count" } else { r.kind.name() };
                        match r.location {
                            Some(k) => {
                                format!("{}: {kind} at {}", f.locals[r.var].name, f.locals[k].name)
                            }
                            None => format!("{}: {kind}", f.locals[r.var].name),
                        }
                    })
                    .collect();
                let _ = write!(out, "reduction [{}]", list.join(", "));
            }
            Verdict::Sequential { reason, .. } => {
                let _ = write!(out, "sequential: {reason}");
            }
        }
        let kernel = analysis.plan.kernels.iter().find(|k| k.loop_id == id);
        let enclosing = analysis
            .plan
            .kernels
            .iter()
            .find(|k| k.loop_id != id && analysis.loops.is_within(id, k.loop_id));
        match (kernel, enclosing) {
            (Some(k), _) => {
                let _ = write!(out, " -> kernel {}", k.name);
            }
            (None, Some(k)) => {
                let _ = write!(out, " (runs inside kernel {})", k.name);
            }
            (None, None) if verdict.is_parallel() => {}
            (None, None) => out.push_str(" (runs on the host)"),
        }
        out.push('\n');
        if let Verdict::Sequential {
            witness: Some(w), ..
        } = verdict
        {
            let verb = if w.read_is_write {
                "written again"
            } else {
                "read"
            };
            let read = w
                .read
                .map(|r| format!(", {verb} at {}", at(r)))
                .unwrap_or_default();
            let distance = match w.distance {
                Some(d) => format!(", distance {d}"),
                None if w.read.is_some() => ", distance unknown".to_string(),
                None => String::new(),
            };
            let first = if w.read.is_some() { "written at" } else { "at" };
            let _ = writeln!(
                out,
                "    witness: `{}` {first} {}{read}{distance}",
                w.var,
                at(w.write)
            );
        }
    }
    out
}
