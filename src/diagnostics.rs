//! Source errors as users get them: [`Error::Source`] holds the diagnostics rendered as plain
//! text, with ANSI colours (`--color`), and as JSON (`--format json`), all three made here
//! from the same diagnostics and the same source files, so they cannot disagree.
//!
//! JSON: `{"diagnostics": [{"severity", "code", "message", "file", "line", "column",
//! "end_line", "end_column", "label", "help", "secondary": [{"file", "line", "column",
//! "label"}]}]}`, lines and columns from 1, columns in characters; `code` is the stable code
//! (`E0102`) that `fixtures/parse/err` and `fixtures/check/err` document.
//!
//! Every other error is `{"error": {"kind", "message", ...}}` ([`Error::json`]): `kind` is
//! `run-time` (a [`CallError`](m2cu_runtime::CallError) of the generated code, with its
//! `identifier` (`m2cu:indexRange`), `status`, and `location` `{"file", "line", "column",
//! "source", "subscript": {"position", "source", "value", "in_order", "bound"}}`, each `null`
//! where it is not known), `raised` (the program's own `error`, with its `identifier`), `usage`, `build`,
//! `unavailable`, `internal` or `runtime`; the command line adds `file` for files it cannot
//! read or write.

use m2cu_frontend::diag::{Diagnostic, Diagnostics, Span};
use m2cu_frontend::sources::{SourceMap, Style};
use serde_json::{json, Value as Json};

use crate::Error;

/// The error for `diagnostics` found in `sources`.
pub(crate) fn source_error(sources: &SourceMap, diagnostics: Diagnostics) -> Error {
    Error::Source {
        rendered: sources.render_styled(&diagnostics, Style::Plain),
        colored: sources.render_styled(&diagnostics, Style::Color),
        json: json!({ "diagnostics": entries(sources, &diagnostics) }),
        diagnostics,
        sources: Box::new(sources.clone()),
    }
}

/// Each diagnostic as a JSON object (see the module docs).
pub(crate) fn entries(sources: &SourceMap, diagnostics: &Diagnostics) -> Vec<Json> {
    diagnostics.iter().map(|d| entry(sources, d)).collect()
}

fn entry(sources: &SourceMap, d: &Diagnostic) -> Json {
    let (file, line, column) = sources.place(d.span.start);
    let (_, end_line, end_column) = sources.place(d.span.end.max(d.span.start));
    json!({
        "severity": d.severity.name(),
        "code": d.code,
        "message": d.message,
        "file": file,
        "line": line,
        "column": column,
        "end_line": end_line,
        "end_column": end_column,
        "label": d.label,
        "help": d.help,
        "secondary": d.secondary.iter().map(|(span, label)| secondary(sources, *span, label)).collect::<Vec<_>>(),
    })
}

fn secondary(sources: &SourceMap, span: Span, label: &str) -> Json {
    let (file, line, column) = sources.place(span.start);
    json!({ "file": file, "line": line, "column": column, "label": label })
}

/// Any error but a source error as JSON: `{"error": {"kind", "message", ...}}` (see
/// [`Error::json`]).
pub(crate) fn error_json(error: &Error) -> Json {
    use m2cu_runtime::Error as Runtime;
    let (kind, extra) = match error {
        Error::Source { json, .. } => return json.clone(),
        Error::Usage(_) => ("usage", json!({})),
        Error::Internal(_) => ("internal", json!({})),
        Error::Runtime(Runtime::Call(call)) => ("run-time", call_json(call)),
        Error::Runtime(Runtime::Raised { identifier, .. }) => {
            ("raised", json!({ "identifier": identifier }))
        }
        Error::Runtime(Runtime::Compile { .. } | Runtime::Nvrtc { .. }) => ("build", json!({})),
        Error::Runtime(Runtime::Unavailable(_)) => ("unavailable", json!({})),
        Error::Runtime(_) => ("runtime", json!({})),
    };
    failure_json(kind, &error.to_string(), extra)
}

/// `{"error": {"kind": kind, "message": message, ...extra}}`.
pub(crate) fn failure_json(kind: &str, message: &str, extra: Json) -> Json {
    let mut fields = json!({ "kind": kind, "message": message });
    if let (Some(fields), Json::Object(extra)) = (fields.as_object_mut(), extra) {
        fields.extend(extra);
    }
    json!({ "error": fields })
}

/// A run-time error's identifier, status and place.
fn call_json(call: &m2cu_runtime::CallError) -> Json {
    let location = call.location.as_ref().map(|at| {
        let subscript = at.subscript.as_ref().map(|s| {
            json!({
                "position": s.position,
                "source": s.source,
                "value": s.value.map(number),
                "in_order": s.in_order,
                "bound": s.bound,
            })
        });
        json!({
            "file": at.file,
            "line": at.line,
            "column": at.column,
            "source": at.source,
            "subscript": subscript,
        })
    });
    json!({
        "identifier": call.identifier(),
        "status": call.code.map(|c| c.code()),
        "location": location,
    })
}

/// A number, or MATLAB's text for one JSON has no number for (`NaN`, `Inf`, `-Inf`).
fn number(x: f64) -> Json {
    match x {
        x if x.is_nan() => json!("NaN"),
        x if x.is_infinite() => json!(if x > 0.0 { "Inf" } else { "-Inf" }),
        x => json!(x),
    }
}
