//! Where generated code comes from in the MATLAB source: the `file.m:12` place that the
//! comment of every kernel and every generated loop names, and the `#line` directives that
//! `--line-directives` puts before each statement's code, so that compiler, NVRTC and
//! compute-sanitizer messages point at the `.m` file and line.
//!
//! Invariant: a place is printed only through [`c_text`]'s comment and string escapes, so a
//! file name cannot end a comment or a string early.

use m2cu_frontend::diag::Span;
use m2cu_frontend::sources::SourceMap;

use crate::c_text;
use crate::stmt::Context;

/// `saxpy.m:3` (a function file's name for code inlined from it, `<m2cu>/cumsum.m:12` for
/// m2cu's own library), escaped for a comment; empty when the sources are unknown.
pub fn place(ctx: &Context, span: Span) -> String {
    ctx.source.map_or_else(String::new, |sources| {
        let (file, line, _) = sources.place(span.start);
        c_text::comment(&format!("{file}:{line}"))
    })
}

/// `place: what` for a comment, or `what` alone when the place is unknown.
pub fn placed(ctx: &Context, span: Span, what: &str) -> String {
    match place(ctx, span) {
        p if p.is_empty() => what.to_string(),
        p => format!("{p}: {what}"),
    }
}

/// `{ /* place: what */`: the opening of a generated loop's block, for the statement at `span`.
pub fn open_block(ctx: &Context, span: Span, what: &str) -> String {
    format!("{{ /* {} */", placed(ctx, span, what))
}

/// `#line 3 "saxpy.m"` for the statement at `span`, when the context writes line directives.
pub fn directive(ctx: &Context, span: Span) -> Option<String> {
    let sources = ctx.source.filter(|_| ctx.line_directives)?;
    let (file, line, _) = sources.place(span.start);
    Some(format!("#line {line} {}", c_text::path_literal(file)))
}

/// Generated `text` written with line directives, split into the text without them (exactly
/// the text written without `--line-directives`) and the MATLAB place of each of its lines:
/// `Some((file, line))` (`file` an index of `sources`) for the first line of a statement's
/// code, which a directive named; `None` for every other line (and after a directive that
/// names a file `sources` does not have).
pub fn line_origins(text: &str, sources: &SourceMap) -> (String, Vec<Option<(usize, usize)>>) {
    let files: Vec<String> = sources
        .files()
        .map(|(name, _, _)| c_text::path_literal(name))
        .collect();
    // `#line N "file"`: the place, when the file is one of `sources`.
    let directive = |line: &str| {
        let (number, file) = line.trim_start().strip_prefix("#line ")?.split_once(' ')?;
        let number: usize = number.parse().ok()?;
        Some(
            files
                .iter()
                .position(|f| f == file)
                .map(|file| (file, number)),
        )
    };
    let mut code = String::with_capacity(text.len());
    let mut origins = Vec::new();
    let mut pending = None;
    for line in text.split_inclusive('\n') {
        if let Some(place) = directive(line.trim_end_matches('\n')) {
            pending = place;
            continue;
        }
        code.push_str(line);
        origins.push(pending.take());
    }
    (code, origins)
}
