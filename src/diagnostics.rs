//! Source errors as users get them: [`Error::Source`] holds the diagnostics rendered as plain
//! text, with ANSI colours (`--color`), and as JSON (`--format json`), all three made here
//! from the same diagnostics and the same source files, so they cannot disagree.
//!
//! JSON: `{"diagnostics": [{"severity", "code", "message", "file", "line", "column",
//! "end_line", "end_column", "label", "help", "secondary": [{"file", "line", "column",
//! "label"}]}]}`, lines and columns from 1, columns in characters; `code` is the stable code
//! (`E0102`) that `fixtures/parse/err` and `fixtures/check/err` document.

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
