//! The loop report: the stable text form of the analysis, one entry per loop, and the same facts
//! as JSON ([`json`]) for tools.
//!
//! ```text
//! 3:5 for i (depth 1): reduction [s: sum] -> kernel vecsum_kernel1
//! 5:5 for i (depth 1): sequential: `c` is written in one iteration and read in another, 1 iteration(s) apart
//!     witness: `c` written at 5:9, read at 5:16, distance 1
//! ```

use std::fmt::Write;

use m2cu_frontend::diag::{Diagnostic, Diagnostics, Severity};
use m2cu_frontend::ir::{Function, LocalId, Shown, StmtId};

use crate::residency::Site;
use m2cu_frontend::sources::SourceMap;
use m2cu_frontend::Span;

use serde_json::{json, Value};

use crate::induction::Induction;
use crate::reason::SequentialReason;
use m2cu_frontend::operator::Operator;

use crate::reduction::{Form, Reduction};
use crate::verdict::{Verdict, Witness};
use crate::{Analysis, LoopId};

/// Renders the report for `f`; positions are `line:col` in `source`.
pub fn render(f: &Function, analysis: &Analysis, source: &str) -> String {
    render_in(f, analysis, &SourceMap::new("", source))
}

/// [`render`] for a program of several files: positions in a function file other than the
/// entry are `file:line:col` (see [`SourceMap::position`]).
pub fn render_in(f: &Function, analysis: &Analysis, sources: &SourceMap) -> String {
    let at = |span: Span| sources.position(span.start);
    let mut out = String::new();
    if analysis.loops.loops.is_empty() {
        let _ = writeln!(out, "{}: no loops", f.name);
    }
    for entry in entries(f, analysis, sources) {
        let _ = writeln!(out, "{} {}", at(entry.span), entry.summary);
        if let Some(w) = &entry.witness {
            let _ = writeln!(out, "    witness: {}", w.text);
        }
    }
    for note in note_entries(f, analysis, sources.text()) {
        let _ = writeln!(out, "{} {}", at(note.span), note.text);
    }
    out
}

/// One loop of the report as data, for a printer that places it in the source (the HTML
/// report): what [`render_in`] prints for it, with the spans it is about.
#[derive(Clone, Debug)]
pub struct LoopEntry {
    /// The whole loop statement, from `for` to its `end`.
    pub span: Span,
    pub depth: usize,
    /// The text report's line for the loop without its place: `for i (depth 1): reduction
    /// [s: sum] -> kernel f_kernel1`.
    pub summary: String,
    /// `parallel`, `reduction`, `scan` or `sequential` ([`Verdict::name`]).
    pub verdict: &'static str,
    /// `kernel`, `in-kernel`, `per-output` or `host` (see [`json`]).
    pub placement: &'static str,
    /// The kernel the loop becomes or runs inside.
    pub kernel: Option<String>,
    /// Why the loop got its verdict.
    pub reason: String,
    /// The stable code of a sequential verdict's reason (`S01`, see [`SequentialReason`]).
    pub reason_code: Option<&'static str>,
    /// The accesses that keep a sequential loop sequential.
    pub witness: Option<WitnessEntry>,
}

/// The evidence of a sequential verdict: the text report's witness line and its accesses.
#[derive(Clone, Debug)]
pub struct WitnessEntry {
    /// "`c` written at 6:3, read at 6:10, distance 1".
    pub text: String,
    pub var: String,
    pub write: Span,
    pub read: Option<Span>,
}

/// A note of the report that is not a loop: a transfer (`transfer`), a `coder.gpu.constantMemory`
/// input (`constant-memory`), or how lowering sized an array built by index (`growth`).
#[derive(Clone, Debug)]
pub struct NoteEntry {
    /// Where it is (a transfer: the first line of its statement).
    pub span: Span,
    pub kind: &'static str,
    pub text: String,
    /// A warning (a `coder.gpu.constantMemory` input kept in global memory) or a note.
    pub severity: Severity,
}

/// The loops of `f` in the order of [`render_in`], as data; positions in texts as there.
pub fn entries(f: &Function, analysis: &Analysis, sources: &SourceMap) -> Vec<LoopEntry> {
    let at = |span: Span| sources.position(span.start);
    analysis
        .loops
        .loops
        .iter()
        .map(|(id, info)| {
            let verdict = &analysis.verdicts[id];
            let (kernel, placement) = placement(analysis, id);
            LoopEntry {
                span: f.stmts[info.stmt].span,
                depth: info.depth,
                summary: loop_summary(f, analysis, id, sources.text()),
                verdict: verdict.name(),
                placement,
                kernel,
                reason: spoken(f, sources.text(), &reason(f, verdict)),
                reason_code: verdict.sequential_reason().map(SequentialReason::code),
                witness: witness(verdict).map(|w| WitnessEntry {
                    text: spoken(f, sources.text(), &witness_text(w, &at)),
                    var: w.var.clone(),
                    write: w.write,
                    read: w.read,
                }),
            }
        })
        .collect()
}

/// The report's other notes, in the order of [`render_in`].
pub fn note_entries(f: &Function, analysis: &Analysis, text: &str) -> Vec<NoteEntry> {
    let constants = constant_lines(f, analysis)
        .into_iter()
        .map(|(span, text, placed)| NoteEntry {
            span,
            kind: "constant-memory",
            text,
            severity: match placed {
                true => Severity::Note,
                false => Severity::Warning,
            },
        });
    let transfers = transfer_lines(f, analysis, text)
        .into_iter()
        .map(|(span, said)| NoteEntry {
            span: first_line(text, span),
            kind: "transfer",
            text: said,
            severity: Severity::Note,
        });
    let growth = f.notes.iter().map(|(span, text)| NoteEntry {
        span: *span,
        kind: "growth",
        text: text.clone(),
        severity: Severity::Note,
    });
    constants.chain(transfers).chain(growth).collect()
}

/// The copies between host and device that the GPU program may make (`crate::residency`):
/// the inputs' and outputs' at the call's boundaries, at the function's header, then one line
/// per host statement that touches a device array, saying why.
fn transfer_lines(f: &Function, analysis: &Analysis, text: &str) -> Vec<(Span, String)> {
    let residency = &analysis.residency;
    if residency.device.is_empty() {
        return Vec::new();
    }
    let on_device = |l: &&LocalId| residency.device.contains(*l);
    let inputs: Vec<LocalId> = f.params.iter().filter(on_device).copied().collect();
    let mut outputs: Vec<LocalId> = f.outputs.iter().filter(on_device).copied().collect();
    outputs.dedup();
    let mut boundary = Vec::new();
    if !inputs.is_empty() {
        let each = if inputs.len() == 1 { "it" } else { "each" };
        boundary.push(format!(
            "{} to the device at the first kernel that uses {each}",
            quoted(f, text, inputs.iter().copied())
        ));
    }
    if !outputs.is_empty() {
        boundary.push(format!(
            "{} back to the host when the call ends",
            quoted(f, text, outputs.iter().copied())
        ));
    }
    let mut lines = Vec::new();
    if !boundary.is_empty() {
        lines.push((
            f.span,
            format!(
                "transfers at the call's start and end: {}",
                boundary.join("; ")
            ),
        ));
    }
    for (&s, site) in &residency.sites {
        lines.push((f.stmts[s].span, site_text(f, analysis, s, site, text)));
    }
    lines.sort_by_key(|(span, _)| span.start);
    lines
}

/// The transfer note of host statement (or launch) `s`: what crosses there and why.
fn site_text(f: &Function, analysis: &Analysis, s: StmtId, site: &Site, text: &str) -> String {
    if let Some((x, y)) = site.device_copy {
        let (x, y) = (plain_name(f, text, x), plain_name(f, text, y));
        return match site.moves {
            true => format!("transfer: none for `{x} = {y}`: nothing reads `{y}`'s value after it, so the two swap their storage instead of copying"),
            false => format!("transfer: none for `{x} = {y}`: the copy is made on the device while `{y}` is current there"),
        };
    }
    let mut parts = Vec::new();
    if !site.to_host.is_empty() {
        let what = if analysis.plan.kernel_of(s).is_some() {
            "the kernel's range reads"
        } else {
            "host code reads"
        };
        let it = if site.to_host.len() == 1 {
            "it"
        } else {
            "them"
        };
        parts.push(format!(
            "{} to the host here if a kernel changed {it} ({what} {it})",
            quoted(f, text, site.to_host.iter().copied())
        ));
    }
    if !site.elements.is_empty() {
        let reads: usize = site.elements.values().map(Vec::len).sum();
        let one = if reads == 1 {
            "the element"
        } else {
            "each element"
        };
        parts.push(format!(
            "{one} of {} that host code reads here to the host alone, if a kernel changed it",
            quoted(f, text, site.elements.keys().copied())
        ));
    }
    if let Some(a) = site.stored_element {
        parts.push(format!(
            "the element of {} that host code stores here to the device alone, if the device holds the array",
            quoted(f, text, [a].into_iter())
        ));
    }
    if let Some(w) = site.written {
        parts.push(format!(
            "{} to the device again at the next kernel that uses it (host code writes it here)",
            quoted(f, text, [w].into_iter())
        ));
    }
    let again = if site.in_loop {
        "; a loop repeats it"
    } else {
        ""
    };
    format!("transfer: {}{again}", parts.join("; "))
}

/// The names of `locals` in backquotes, separated by commas (see [`plain_name`]).
fn quoted(f: &Function, text: &str, locals: impl Iterator<Item = LocalId>) -> String {
    let names: Vec<String> = locals
        .map(|a| format!("`{}`", plain_name(f, text, a)))
        .collect();
    names.join(", ")
}

/// How the report names local `l`: by its name when the program names it, otherwise in
/// backquotes as the user sees it (`` `order` ``, `` `sum(x(above))` ``: see [`Shown`]).
fn shown(f: &Function, text: &str, l: LocalId) -> String {
    match f.locals[l].shown {
        Shown::Name => f.locals[l].name.clone(),
        _ => format!("`{}`", plain_name(f, text, l)),
    }
}

/// The name the user sees local `l` by, or the source it stands for (see [`excerpt`]); m2cu's
/// own name only when that source is unknown. `text` is the program's source
/// ([`SourceMap::text`]).
pub fn plain_name(f: &Function, text: &str, l: LocalId) -> String {
    let local = &f.locals[l];
    match &local.shown {
        Shown::Source(span) => excerpt(text, *span).unwrap_or_else(|| local.name.clone()),
        _ => local.seen_name().to_string(),
    }
}

/// `said` with each backquoted name of an m2cu temporary (`` `_eq4` ``, as a reason or witness
/// names it) replaced by the source it stands for (see [`plain_name`]).
fn spoken(f: &Function, text: &str, said: &str) -> String {
    said.split('`')
        .enumerate()
        .map(|(k, part)| match f.local_named(part) {
            Some(l) if k % 2 == 1 && part.starts_with('_') => plain_name(f, text, l),
            _ => part.to_string(),
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// The source at `span` on one line (runs of blanks as one space, a `...` continuation left
/// out), shortened to about 40 characters; `None` when the span holds no text.
fn excerpt(text: &str, span: Span) -> Option<String> {
    const LONGEST: usize = 40;
    let source = text.get(span.start as usize..span.end as usize)?;
    let words: Vec<&str> = source.split_whitespace().filter(|w| *w != "...").collect();
    let line = words.join(" ");
    let line = line.trim_end_matches(';').trim_end();
    match line.chars().count() {
        0 => None,
        n if n <= LONGEST => Some(line.to_string()),
        _ => Some(format!(
            "{}...",
            line.chars().take(LONGEST - 3).collect::<String>()
        )),
    }
}

/// One line per `coder.gpu.constantMemory` input: placed (with its size) or kept in global
/// memory (with why), with the directive's span and whether it was placed.
fn constant_lines(f: &Function, analysis: &Analysis) -> Vec<(Span, String, bool)> {
    let placement = &analysis.constants;
    let placed = placement.placed.iter().map(|c| {
        (
            c.span,
            format!(
                "constant memory: `{}` ({} elements, {} bytes) is read from the GPU's constant memory",
                f.locals[c.local].name, c.elements, c.bytes
            ),
            true,
        )
    });
    let kept = placement.kept.iter().map(|k| {
        (
            k.span,
            format!(
                "constant memory: `{}` stays in global memory: {}",
                f.locals[k.local].name, k.why
            ),
            false,
        )
    });
    let mut lines: Vec<(Span, String, bool)> = placed.chain(kept).collect();
    lines.sort_by_key(|(span, _, _)| span.start);
    lines
}

/// The report as compiler notes with source snippets: one note per loop, its header marked with
/// the verdict, and the witness accesses marked too.
pub fn notes(f: &Function, analysis: &Analysis, source: &str) -> Diagnostics {
    let mut out = Diagnostics::default();
    for (id, info) in analysis.loops.loops.iter() {
        let verdict = &analysis.verdicts[id];
        let span = first_line(source, f.stmts[info.stmt].span);
        let label = match verdict {
            Verdict::Sequential { .. } => "stays sequential".to_string(),
            _ => reason(f, verdict),
        };
        let mut note =
            Diagnostic::note(verdict.name(), span, loop_summary(f, analysis, id, source))
                .with_label(label);
        if let Some(w) = witness(verdict) {
            let verb = if w.read.is_some() {
                "written here"
            } else {
                "here"
            };
            note = note.with_secondary(w.write, format!("`{}` {verb}", w.var));
            if let Some(r) = w.read {
                let other = if w.read_is_write {
                    "written again here"
                } else {
                    "read here"
                };
                note = note.with_secondary(r, other);
            }
        }
        out.push(note);
    }
    for n in note_entries(f, analysis, source) {
        out.push(match n.severity {
            Severity::Warning => Diagnostic::warning(n.kind, n.span, n.text),
            _ => Diagnostic::note(n.kind, n.span, n.text),
        });
    }
    out
}

/// The part of `span` on its first line.
fn first_line(source: &str, span: Span) -> Span {
    let start = span.start as usize;
    let end = source
        .get(start..)
        .and_then(|rest| rest.find('\n'))
        .map_or(span.end, |n| (start + n) as u32);
    Span::new(span.start as usize, end.min(span.end) as usize)
}

/// `for i (depth 1): reduction [s: sum] -> kernel f_kernel1`.
fn loop_summary(f: &Function, analysis: &Analysis, id: LoopId, text: &str) -> String {
    let info = &analysis.loops.loops[id];
    let var = info.var.map(|v| &f.locals[v]);
    let head = match var.map(|v| (v.source_name(), &v.shown)) {
        // A loop of the program or of an inlined function, by its variable's name there.
        Some((Some(name), _)) => format!("for {name}"),
        // A loop m2cu made to fill a copy (`D(:, k)`).
        Some((None, Shown::As(made))) => format!("loop over `{made}`"),
        // The loop of a whole-array statement.
        Some((None, _)) => match excerpt(text, first_line(text, f.stmts[info.stmt].span)) {
            Some(s) => format!("elementwise loop of `{s}`"),
            None => "elementwise loop".to_string(),
        },
        None => "while".to_string(),
    };
    let verdict = &analysis.verdicts[id];
    let inductions: Vec<String> = inductions_of(verdict)
        .iter()
        .map(|ind| format!("{}: induction {:+}", shown(f, text, ind.var), ind.step))
        .collect();
    let what = match verdict {
        Verdict::Sequential { reason, .. } => {
            format!("sequential: {}", spoken(f, text, &reason.to_string()))
        }
        Verdict::Scan(_, scan) => format!("scan [{}]", reduction_text(f, &scan.reduction, text)),
        _ if verdict.name() == "parallel" && inductions.is_empty() => "parallel".to_string(),
        _ if verdict.name() == "parallel" => format!("parallel [{}]", inductions.join(", ")),
        _ => {
            let list: Vec<String> = verdict
                .reductions()
                .iter()
                .map(|r| reduction_text(f, r, text))
                .chain(
                    verdict
                        .histograms()
                        .iter()
                        .map(|&h| format!("{}: histogram", shown(f, text, h))),
                )
                .chain(inductions)
                .collect();
            format!("reduction [{}]", list.join(", "))
        }
    };
    let place = match placement(analysis, id) {
        (Some(k), "kernel") => format!(" -> kernel {k}{}", collapsed(f, analysis, id)),
        (Some(k), "per-output") if tiled(analysis, id) => format!(
            " (runs inside kernel {k}; a thread, a warp or a block per output, or a block per square tile of outputs with the row and column terms in shared memory as for a matrix product, chosen at run time)"
        ),
        (Some(k), "per-output") => format!(
            " (runs inside kernel {k}; a thread, a warp or a block per output, chosen at run time)"
        ),
        (Some(k), _) => format!(" (runs inside kernel {k})"),
        (None, _) if analysis.plan.on_host.contains_key(&id) => {
            format!(" ({})", host_reason(analysis.plan.on_host[&id]))
        }
        (None, _) if verdict.is_parallel() => String::new(),
        (None, _) => " (runs on the host)".to_string(),
    };
    let forced = verdict
        .overridden()
        .map(|why| format!(" (forced by coder.gpu.kernel(), overriding: {why})"))
        .unwrap_or_default();
    format!("{head} (depth {}): {what}{forced}{place}", info.depth)
}

/// ` (2-D iteration space over j, i; i fastest)` for a loop that is a level of a collapsed nest,
/// and a note for a loop fused into the kernel of the loop before it.
fn collapsed(f: &Function, analysis: &Analysis, id: LoopId) -> String {
    let Some(k) = analysis.plan.kernel_spanning(id) else {
        return String::new();
    };
    let info = &analysis.loops.loops[id];
    if analysis.plan.fused_into(info.stmt).is_some() {
        return " (fused with the loop before it: one launch, one pass)".into();
    }
    if k.levels.len() == 1 {
        return String::new();
    }
    let named = |l: &crate::plan::Level| f.locals[l.var].source_name().is_some();
    if !k.levels.iter().all(named) {
        return format!(" ({}-D iteration space over the elements)", k.levels.len());
    }
    let names: Vec<String> = k.levels.iter().map(|l| plain_name(f, "", l.var)).collect();
    format!(
        " ({}-D iteration space over {}; {} fastest)",
        names.len(),
        names.join(", "),
        names[k.order[0]]
    )
}

/// The induction variables of a parallel loop.
fn inductions_of(verdict: &Verdict) -> &[Induction] {
    verdict.privates().map_or(&[], |p| &p.inductions)
}

/// `s: sum`, `m: maxloc at k`, `m: maxloc at (r, c)`,
/// `mn: minmaxloc at kmin, max mx at kmax`, `s: custom `f``.
fn reduction_text(f: &Function, r: &Reduction, text: &str) -> String {
    let kind = match (r.operator, &r.form) {
        (Operator::Custom(c), _) => format!("custom `{}`", f.combiners[c].name),
        (_, Form::Count) => "count".into(),
        _ => r.name().into(),
    };
    let mut out = format!(
        "{}: {kind}{}",
        shown(f, text, r.var),
        at_text(f, &r.locations, text)
    );
    if let Form::Paired(max) = &r.form {
        let _ = write!(
            out,
            ", max {}{}",
            shown(f, text, max.var),
            at_text(f, &max.locations, text)
        );
    }
    out
}

/// ` at k`, ` at (r, c)`, or nothing.
fn at_text(f: &Function, locations: &[LocalId], text: &str) -> String {
    let names: Vec<String> = locations.iter().map(|&k| shown(f, text, k)).collect();
    match names.as_slice() {
        [] => String::new(),
        [one] => format!(" at {one}"),
        many => format!(" at ({})", many.join(", ")),
    }
}

fn witness(verdict: &Verdict) -> Option<&Witness> {
    match verdict {
        Verdict::Sequential {
            witness: Some(w), ..
        } => Some(w),
        _ => None,
    }
}

/// "`c` written at 6:3, read at 6:10, distance 1". (The direction vector, `(=,<)`, is a
/// dependence analyst's notation: only the JSON report has it.)
fn witness_text(w: &Witness, at: &impl Fn(Span) -> String) -> String {
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
    format!("`{}` {first} {}{read}{distance}", w.var, at(w.write))
}

/// The report as one JSON object per function:
/// `{"name", "loops": [{"line", "col", "var", "depth", "verdict", "reductions": [{"var", "kind",
/// "locations"}], "inductions": [{"var", "step"}], "reason", "reason_code", "overridden",
/// "overridden_code", "witness": {"var", "write", "read", "distance", "direction"} | null,
/// "kernel", "placement"}]}`. `reason_code` is the stable code of a sequential verdict's reason
/// (`S01`, see [`SequentialReason`]), `overridden_code` that of the reason `coder.gpu.kernel()`
/// overrode (both `null` otherwise). `kernel` names the kernel the loop becomes or runs inside;
/// `placement` is `kernel`, `in-kernel`, `per-output` (a reduction inside a kernel's iteration
/// that a thread, a warp or a block computes, chosen at run time) or `host`; a loop that could
/// be a kernel but has too few iterations also has `"host_reason"` (`"3 iterations: cheaper on
/// the host"`). The function's
/// `"constant_memory": [{"var", "placed", "bytes", "reason"}]` lists the inputs of
/// `coder.gpu.constantMemory` directives; `"notes": [{"line", "col", "text"}]`, present when
/// lowering made any, says how each array built by index or `[y, v]` was sized (allocated once
/// before its loop, or grown on the host).
pub fn json(f: &Function, analysis: &Analysis, source: &str) -> Value {
    json_in(f, analysis, &SourceMap::new("", source))
}

/// [`json`] for a program of several files: positions as in [`render_in`], and a loop in a
/// function file other than the entry has `"file"`, its name (`line` and `col` are in it).
pub fn json_in(f: &Function, analysis: &Analysis, sources: &SourceMap) -> Value {
    let at = |span: Span| sources.position(span.start);
    let loops: Vec<Value> = analysis
        .loops
        .loops
        .iter()
        .map(|(id, info)| {
            let (file, line, col) = sources.locate(f.stmts[info.stmt].span.start);
            let verdict = &analysis.verdicts[id];
            let (kernel, placement) = placement(analysis, id);
            let mut entry = json!({
                "line": line,
                "col": col,
                "var": info.var.map(|v| f.locals[v].name.clone()),
                "depth": info.depth,
                "verdict": verdict.name(),
                "reductions": verdict
                    .reductions()
                    .iter()
                    .chain(verdict.scan().map(|s| &s.reduction))
                    .map(|r| reduction_json(f, r))
                    .chain(verdict.histograms().iter().map(|&h| {
                        json!({ "var": f.locals[h].name, "kind": "histogram", "locations": [] })
                    }))
                    .collect::<Vec<_>>(),
                "inductions": inductions_of(verdict)
                    .iter()
                    .map(|ind| json!({ "var": f.locals[ind.var].name, "step": ind.step.to_string() }))
                    .collect::<Vec<_>>(),
                "reason": spoken(f, sources.text(), &reason(f, verdict)),
                "reason_code": verdict.sequential_reason().map(SequentialReason::code),
                "overridden": verdict.overridden().map(ToString::to_string),
                "overridden_code": verdict.overridden().map(SequentialReason::code),
                "witness": witness_json(verdict, &at),
                "kernel": kernel,
                "placement": placement,
            });
            if let Some(&n) = analysis.plan.on_host.get(&id) {
                entry["host_reason"] = json!(host_reason(n));
            }
            if file > 0 {
                entry["file"] = json!(sources.name(file));
            }
            entry
        })
        .collect();
    let constants: Vec<Value> = analysis
        .constants
        .placed
        .iter()
        .map(|c| json!({ "var": f.locals[c.local].name, "placed": true, "bytes": c.bytes, "reason": null }))
        .chain(analysis.constants.kept.iter().map(|k| {
            json!({ "var": f.locals[k.local].name, "placed": false, "bytes": null, "reason": k.why })
        }))
        .collect();
    let transfers: Vec<Value> = transfer_lines(f, analysis, sources.text())
        .into_iter()
        .map(|(span, text)| note_json(&(span, text), sources))
        .collect();
    let mut function = json!({ "name": f.name, "loops": loops, "constant_memory": constants, "transfers": transfers });
    if !f.notes.is_empty() {
        function["notes"] = Value::Array(f.notes.iter().map(|n| note_json(n, sources)).collect());
    }
    function
}

/// One of lowering's notes (an array grown by index: allocated before its loop or grown on the
/// host): `{"line", "col", "text"}`, and `"file"` outside the entry's file.
fn note_json((span, text): &(Span, String), sources: &SourceMap) -> Value {
    let (file, line, col) = sources.locate(span.start);
    let mut note = json!({ "line": line, "col": col, "text": text });
    if file > 0 {
        note["file"] = json!(sources.name(file));
    }
    note
}

/// Whether loop `id` is the inner loop of a per-output kernel that has a tiled variant.
fn tiled(analysis: &Analysis, id: LoopId) -> bool {
    analysis.plan.kernels.iter().any(|k| {
        k.per_output
            .as_ref()
            .is_some_and(|p| p.loop_id == id && p.tiles.is_some())
    })
}

/// Why a loop that could be a kernel runs on the host, for its `iterations`.
fn host_reason(iterations: u64) -> String {
    let plural = if iterations == 1 { "" } else { "s" };
    format!("{iterations} iteration{plural}: cheaper on the host")
}

/// The kernel a loop becomes or runs inside, and where it runs.
fn placement(analysis: &Analysis, id: LoopId) -> (Option<String>, &'static str) {
    let kernels = &analysis.plan.kernels;
    if let Some(k) = analysis.plan.kernel_spanning(id) {
        return (Some(k.name.clone()), "kernel");
    }
    match kernels
        .iter()
        .find(|k| analysis.loops.is_within(id, k.loop_id))
    {
        Some(k) if k.per_output.as_ref().is_some_and(|p| p.loop_id == id) => {
            (Some(k.name.clone()), "per-output")
        }
        Some(k) => (Some(k.name.clone()), "in-kernel"),
        None => (None, "host"),
    }
}

/// Why the loop got its verdict; a custom reduction adds what the user vouches for.
fn reason(f: &Function, verdict: &Verdict) -> String {
    let mut text = verdict_reason(verdict);
    for r in verdict.reductions() {
        if let Operator::Custom(c) = r.operator {
            let _ = write!(
                text,
                "; custom reduction `{}`: associativity and commutativity are assumed, as `gpucoder.reduce` requires",
                f.combiners[c].name
            );
        }
    }
    text
}

fn verdict_reason(verdict: &Verdict) -> String {
    match verdict {
        Verdict::Sequential { reason, .. } => reason.to_string(),
        Verdict::Scan(..) => "the only value carried by this loop is a running sum or product that its iterations read (a scan): a parallel scan on the GPU, in order on the CPU".into(),
        _ if verdict.overridden().is_some() => "forced parallel by coder.gpu.kernel()".into(),
        _ if verdict.name() == "parallel" && !inductions_of(verdict).is_empty() => {
            "no dependence is carried by this loop; induction variables take their values from the iteration number".into()
        }
        _ if verdict.name() == "parallel" => "no dependence is carried by this loop".into(),
        _ if !verdict.histograms().is_empty() => {
            "the only dependences carried by this loop are reductions; histogram updates run atomically".into()
        }
        _ => "the only dependences carried by this loop are the reductions".into(),
    }
}

fn witness_json(verdict: &Verdict, at: &impl Fn(Span) -> String) -> Value {
    let Some(w) = witness(verdict) else {
        return Value::Null;
    };
    json!({
        "var": w.var,
        "write": at(w.write),
        "read": w.read.map(at),
        "read_is_write": w.read_is_write,
        "distance": match (w.distance, w.read) {
            (Some(d), _) => Value::String(d.to_string()),
            (None, Some(_)) => Value::String("unknown".into()),
            (None, None) => Value::Null,
        },
        "direction": w.direction,
    })
}

/// `{"var", "kind", "locations": [names]}`; a minmaxloc adds `"max"` and `"max_locations"`, a
/// custom reduction `"function"`.
fn reduction_json(f: &Function, r: &Reduction) -> Value {
    let names =
        |ls: &[LocalId]| -> Vec<String> { ls.iter().map(|&k| f.locals[k].name.clone()).collect() };
    let mut value = json!({
        "var": f.locals[r.var].name,
        "kind": r.json_name(),
        "locations": names(&r.locations),
    });
    if let Form::Paired(max) = &r.form {
        value["max"] = json!(f.locals[max.var].name);
        value["max_locations"] = json!(names(&max.locations));
    }
    if let Operator::Custom(c) = r.operator {
        value["function"] = json!(f.combiners[c].name);
    }
    value
}
