//! Diagnostics as data.
//!
//! Every phase reports problems as [`Diagnostic`] values carrying a byte [`Span`] into the
//! source, a stable code, a message, and a help line. Nothing here prints: rendering happens in
//! one place, [`render`] (or [`SourceMap::render`](crate::sources::SourceMap::render) for a
//! program of several files), which shows `file:line:col`, the source line with a marker, and the help.

use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label};

/// A half-open byte range `[start, end)` into the source text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end as u32,
        }
    }

    /// The smallest span covering both `self` and `other`.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
    Note,
}

impl Severity {
    /// `error`, `warning` or `note`, as the renderer prints it.
    pub fn name(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
        }
    }
}

/// One problem found in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Stable code such as `E0001`; the parser (E0001–E0099) and lowering (E0100–E0199) document
    /// theirs in their module docs.
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    /// Short label printed under the marker.
    pub label: String,
    /// What the user can do about it.
    pub help: String,
    /// Other places that explain the diagnostic, each with its own label.
    pub secondary: Vec<(Span, String)>,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Error,
            code,
            message: message.into(),
            span,
            label: String::new(),
            help: String::new(),
            secondary: Vec::new(),
        }
    }

    pub fn note(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Note,
            ..Diagnostic::error(code, span, message)
        }
    }

    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            severity: Severity::Warning,
            ..Diagnostic::error(code, span, message)
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = help.into();
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// A list of diagnostics, in the order they were found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl Diagnostics {
    pub fn push(&mut self, d: Diagnostic) {
        self.0.push(d);
    }

    pub fn has_errors(&self) -> bool {
        self.0.iter().any(Diagnostic::is_error)
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(d: Diagnostic) -> Self {
        Diagnostics(vec![d])
    }
}

/// 1-based line and column of a byte offset (columns count characters).
pub fn line_col(source: &str, offset: u32) -> (usize, usize) {
    let offset = (offset as usize).min(source.len());
    let before = &source[..floor_char_boundary(source, offset)];
    let line = before.matches('\n').count() + 1;
    let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, col)
}

fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Renders diagnostics as plain text: `error[E0001]: message`, then ` --> file:line:col`, the
/// source line with a marker, and `= help: ...`.
pub fn render(file_name: &str, source: &str, diagnostics: &Diagnostics) -> String {
    crate::sources::SourceMap::new(file_name, source).render(diagnostics)
}

/// `d` as a codespan diagnostic; `locate` gives each span's file id and its byte range there
/// (clamped to the file).
pub(crate) fn to_codespan<F: Copy>(
    d: &Diagnostic,
    locate: &impl Fn(Span) -> (F, std::ops::Range<usize>),
) -> CsDiagnostic<F> {
    let base = match d.severity {
        Severity::Error => CsDiagnostic::error(),
        Severity::Warning => CsDiagnostic::warning(),
        Severity::Note => CsDiagnostic::note(),
    };
    let mut notes = Vec::new();
    if !d.help.is_empty() {
        notes.push(format!("help: {}", d.help));
    }
    let label = |style: fn(F, std::ops::Range<usize>) -> Label<F>, s: Span| {
        let (file, range) = locate(s);
        style(file, range)
    };
    let mut labels = vec![label(Label::primary, d.span).with_message(&d.label)];
    labels.extend(
        d.secondary
            .iter()
            .map(|(s, l)| label(Label::secondary, *s).with_message(l)),
    );
    base.with_code(d.code)
        .with_message(&d.message)
        .with_labels(labels)
        .with_notes(notes)
}
