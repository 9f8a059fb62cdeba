//! The HTML report (`m2cu report`, `translate --report`): one self-contained page (inline
//! style, no script, no external asset) with the MATLAB source, each loop's lines coloured by
//! its verdict and the witness accesses of a sequential loop underlined, the loop table, each
//! kernel's launch and the arrays it moves, the report's notes, and the code generated for the
//! function, linked both ways with the source lines. A translation that fails has its own
//! page ([`error_page`]): the errors in a table and under their lines, their places marked.
//!
//! Invariant: the page prints what the other phases decided: the loop report's entries
//! ([`m2cu_analysis::report::entries`]), the kernels' summaries ([`crate::summary`]) and the
//! generated code itself, written once with line directives whose places become the links
//! ([`crate::trace::line_origins`]) and which are left out of the text shown, so the code on
//! the page is exactly the code `translate` writes.

use std::collections::BTreeMap;

use askama::Template;
use m2cu_analysis::report::{entries, note_entries, LoopEntry};
use m2cu_analysis::Analysis;
use m2cu_frontend::diag::{Diagnostics, Severity, Span};
use m2cu_frontend::ir::Function;
use m2cu_frontend::sources::SourceMap;

use crate::summary::KernelSummary;
use crate::{generate, CodegenOptions, Generated, GENERATED_MARKER};

/// The report page of `f`.
pub fn page(f: &Function, analysis: &Analysis, options: &CodegenOptions) -> String {
    let traced = generate(
        f,
        analysis,
        &CodegenOptions {
            line_directives: true,
            ..*options
        },
    );
    let sources = options.sources;
    let loops = entries(f, analysis, sources);
    let notes = note_entries(f, analysis, sources.text());
    let mut code = code_views(&f.name, &traced, sources);
    let kernels = kernel_cards(&traced, sources, &mut code);
    let files = file_views(sources, &loops, &notes, &code);
    let sequential = loops.iter().filter(|l| l.verdict == "sequential").count();
    Page {
        mark_class: "witness",
        entry: &f.name,
        file: options.file_name,
        summary: format!(
            "{} loop{}: {} kernel{}, {sequential} sequential",
            loops.len(),
            plural(loops.len()),
            kernels.len(),
            plural(kernels.len())
        ),
        files,
        loops: loops.iter().map(|l| loop_row(l, sources)).collect(),
        kernels,
        notes: notes
            .iter()
            .map(|n| NoteRow {
                place: place_link(sources, n.span),
                kind: n.kind,
                text: n.text.clone(),
            })
            .collect(),
        code,
    }
    .render()
    .expect("the report template renders")
}

/// The page of a translation that failed: the `diagnostics` in a table and at their places in
/// the source files they lie in (the entry always), each marked with its message and help.
pub fn error_page(sources: &SourceMap, diagnostics: &Diagnostics, file: &str) -> String {
    let errors = diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .count();
    ErrorPage {
        mark_class: "error",
        file,
        summary: format!("{errors} error{}", plural(errors)),
        errors: diagnostics
            .iter()
            .map(|d| ErrorRow {
                place: place_link(sources, d.span),
                code: d.code,
                message: d.message.clone(),
                help: d.help.clone(),
            })
            .collect(),
        files: problem_views(sources, diagnostics),
    }
    .render()
    .expect("the error report template renders")
}

#[derive(Template)]
#[template(path = "report_errors.html")]
struct ErrorPage<'a> {
    /// The class of a marked stretch of source: `error`.
    mark_class: &'static str,
    file: &'a str,
    summary: String,
    errors: Vec<ErrorRow>,
    files: Vec<FileView>,
}

struct ErrorRow {
    place: Link,
    code: &'static str,
    message: String,
    help: String,
}

/// The files the diagnostics lie in (and the entry), each line with the diagnostics that
/// start on it, their places marked.
fn problem_views(sources: &SourceMap, diagnostics: &Diagnostics) -> Vec<FileView> {
    let marks: Vec<(Span, String)> = diagnostics
        .iter()
        .map(|d| (d.span, format!("{}: {}", d.code, d.message)))
        .collect();
    sources
        .files()
        .enumerate()
        .filter(|&(index, (_, base, text))| {
            let file = Span::new(base as usize, base as usize + text.len());
            index == 0 || diagnostics.iter().any(|d| within(d.span.start, file))
        })
        .map(|(index, (name, base, text))| FileView {
            name: name.to_string(),
            lines: lines_of(base, text)
                .map(|(number, span, line)| SourceLine {
                    id: source_anchor(index, number),
                    number,
                    class: "",
                    pieces: pieces(line, span, &marks),
                    badges: Vec::new(),
                    notes: Vec::new(),
                    code: Vec::new(),
                    problems: diagnostics
                        .iter()
                        .filter(|d| within(d.span.start, span))
                        .map(|d| Problem {
                            head: format!("{}[{}]: {}", d.severity.name(), d.code, d.message),
                            help: d.help.clone(),
                        })
                        .collect(),
                })
                .collect(),
        })
        .collect()
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[derive(Template)]
#[template(path = "report.html")]
struct Page<'a> {
    /// The class of a marked stretch of source: `witness`.
    mark_class: &'static str,
    entry: &'a str,
    file: &'a str,
    summary: String,
    files: Vec<FileView>,
    loops: Vec<LoopRow>,
    kernels: Vec<KernelCard>,
    notes: Vec<NoteRow>,
    code: Vec<CodeView>,
}

/// A link inside the page.
struct Link {
    href: String,
    text: String,
}

/// One MATLAB file, line by line.
struct FileView {
    name: String,
    lines: Vec<SourceLine>,
}

struct SourceLine {
    id: String,
    number: usize,
    /// The CSS class of the innermost loop the line is in (`v-kernel`, ...), or empty.
    class: &'static str,
    pieces: Vec<Piece>,
    /// The verdicts of the loops that start on this line.
    badges: Vec<Badge>,
    /// The report's notes placed on this line.
    notes: Vec<String>,
    /// The generated lines that come from this line.
    code: Vec<Link>,
    /// The errors (and warnings) placed on this line, on a page of a failed translation.
    problems: Vec<Problem>,
}

/// A diagnostic under its line: `error[E0102]: message`, and what to do.
struct Problem {
    head: String,
    help: String,
}

/// A stretch of a source line: marked (a witness access, an error's place) with its
/// explanation, or plain.
struct Piece {
    text: String,
    mark: Option<String>,
}

struct Badge {
    class: &'static str,
    text: String,
    reason: String,
    witness: String,
    kernel: Option<Link>,
}

struct LoopRow {
    place: Link,
    class: &'static str,
    summary: String,
    reason: String,
    code: &'static str,
    witness: String,
}

struct KernelCard {
    id: String,
    name: String,
    variants: String,
    source: Link,
    summary: KernelSummary,
    definition: Option<Link>,
}

struct NoteRow {
    place: Link,
    kind: &'static str,
    text: String,
}

/// One generated file from its own code on (after the prelude).
struct CodeView {
    id: &'static str,
    /// The file's name, `minloc.kernels.cu`.
    name: String,
    /// What links to its lines say: `cu`, `c` or `host`.
    short: &'static str,
    what: &'static str,
    /// Lines before `lines[0]`: the prelude.
    prelude: usize,
    lines: Vec<CodeLine>,
}

struct CodeLine {
    id: String,
    number: usize,
    text: String,
    /// The MATLAB file and line it comes from.
    origin: Option<(usize, usize)>,
    link: Option<Link>,
}

/// `#s0-12`: the anchor of line 12 of source file 0.
fn source_anchor(file: usize, line: usize) -> String {
    format!("s{file}-{line}")
}

/// A link to the source line of `span`, reading `file:line` (`line` alone in the entry).
fn place_link(sources: &SourceMap, span: Span) -> Link {
    let (file, line, _) = sources.locate(span.start);
    Link {
        href: format!("#{}", source_anchor(file, line)),
        text: sources.position(span.start),
    }
}

/// The CSS class of a loop's verdict where it runs.
fn verdict_class(entry: &LoopEntry) -> &'static str {
    match (entry.verdict, entry.placement) {
        ("sequential", "host") => "v-sequential",
        (_, "in-kernel" | "per-output") => "v-inside",
        (_, "host") => "v-host",
        ("parallel", _) => "v-kernel",
        ("scan", _) => "v-scan",
        _ => "v-reduction",
    }
}

fn loop_row(entry: &LoopEntry, sources: &SourceMap) -> LoopRow {
    LoopRow {
        place: place_link(sources, entry.span),
        class: verdict_class(entry),
        summary: entry.summary.clone(),
        reason: entry.reason.clone(),
        code: entry.reason_code.unwrap_or(""),
        witness: entry
            .witness
            .as_ref()
            .map_or_else(String::new, |w| w.text.clone()),
    }
}

/// The generated files shown: the kernels (when there are any), the CPU program and the GPU
/// host program (when there are kernels), without their directives.
fn code_views(entry: &str, traced: &Generated, sources: &SourceMap) -> Vec<CodeView> {
    let mut files = Vec::new();
    let with_kernels = !traced.kernels.is_empty();
    if with_kernels {
        files.push((
            "k",
            format!("{entry}.kernels.cu"),
            "the CUDA kernels, for NVRTC",
            &traced.kernels_cu,
        ));
    }
    files.push((
        "c",
        format!("{entry}.c"),
        "the CPU program, C99 with OpenMP",
        &traced.c_source,
    ));
    if with_kernels {
        files.push((
            "h",
            format!("{entry} GPU host program"),
            "the host code that launches the kernels (the m2cu runtime builds it; the standalone .cu has the same code over the CUDA runtime API)",
            &traced.gpu_host_c,
        ));
    }
    files
        .into_iter()
        .map(|(id, name, what, text)| code_view(id, name, what, text, sources))
        .collect()
}

fn code_view(
    id: &'static str,
    name: String,
    what: &'static str,
    traced: &str,
    sources: &SourceMap,
) -> CodeView {
    let (text, origins) = crate::trace::line_origins(traced, sources);
    let prelude = text.find(GENERATED_MARKER).map_or(0, |at| {
        text[..at + GENERATED_MARKER.len()].matches('\n').count()
    });
    let lines = text
        .lines()
        .zip(origins)
        .enumerate()
        .skip(prelude)
        .map(|(k, (line, origin))| CodeLine {
            id: format!("{id}-{}", k + 1),
            number: k + 1,
            text: line.to_string(),
            origin,
            link: origin.map(|(file, line)| Link {
                href: format!("#{}", source_anchor(file, line)),
                text: match file {
                    0 => format!("{line}"),
                    _ => format!("{}:{line}", sources.name(file)),
                },
            }),
        })
        .collect();
    CodeView {
        id,
        name,
        short: match id {
            "k" => "cu",
            "c" => "c",
            _ => "host",
        },
        what,
        prelude,
        lines,
    }
}

/// The kernel cards, each linked to its loop and to its definition in the kernels' view, whose
/// signature line then links back to the loop.
fn kernel_cards(traced: &Generated, sources: &SourceMap, code: &mut [CodeView]) -> Vec<KernelCard> {
    traced
        .kernels
        .iter()
        .map(|k| {
            let (file, line, _) = sources.locate(k.span.start);
            let definition = code.iter_mut().find(|v| v.id == "k").and_then(|view| {
                let signature = format!(" {}(", k.name);
                let name = &view.name;
                let l = view
                    .lines
                    .iter_mut()
                    .find(|l| l.text.contains("__global__") && l.text.contains(&signature))?;
                l.origin = Some((file, line));
                l.link = Some(place_link(sources, k.span));
                Some(Link {
                    href: format!("#{}", l.id),
                    text: format!("{name}:{}", l.number),
                })
            });
            KernelCard {
                id: format!("kernel-{}", k.name),
                name: k.name.clone(),
                variants: k.variants.join(", "),
                source: place_link(sources, k.span),
                summary: k.clone(),
                definition,
            }
        })
        .collect()
}

/// The source files that code comes from (the entry, and the function files with a loop, a
/// note or a generated line), each line with its verdict class, badges, notes and generated
/// lines.
fn file_views(
    sources: &SourceMap,
    loops: &[LoopEntry],
    notes: &[m2cu_analysis::report::NoteEntry],
    code: &[CodeView],
) -> Vec<FileView> {
    // (file, line) -> the generated lines from it.
    let mut generated: BTreeMap<(usize, usize), Vec<Link>> = BTreeMap::new();
    for view in code {
        for line in &view.lines {
            if let Some(origin) = line.origin {
                generated.entry(origin).or_default().push(Link {
                    href: format!("#{}", line.id),
                    text: format!("{}:{}", view.short, line.number),
                });
            }
        }
    }
    let witness_marks = witness_marks(loops);
    let shown: Vec<bool> = sources
        .files()
        .enumerate()
        .map(|(index, (_, base, text))| {
            let file = Span::new(base as usize, base as usize + text.len());
            let inside = |span: Span| within(span.start, file);
            index == 0
                || generated.keys().any(|&(f, _)| f == index)
                || loops.iter().any(|l| inside(l.span))
                || notes.iter().any(|n| inside(n.span))
        })
        .collect();
    sources
        .files()
        .enumerate()
        .filter(|&(index, _)| shown[index])
        .map(|(index, (name, base, text))| FileView {
            name: name.to_string(),
            // The newline that ends the file starts no line of its own here.
            lines: lines_of(base, text.strip_suffix('\n').unwrap_or(text))
                .map(|(number, span, line)| SourceLine {
                    id: source_anchor(index, number),
                    number,
                    class: innermost(loops, span).map_or("", verdict_class),
                    pieces: pieces(line, span, &witness_marks),
                    badges: loops
                        .iter()
                        .filter(|l| within(l.span.start, span))
                        .map(|l| Badge {
                            class: verdict_class(l),
                            text: l.summary.clone(),
                            reason: match l.summary.contains(&l.reason) {
                                true => String::new(),
                                false => l.reason.clone(),
                            },
                            witness: l
                                .witness
                                .as_ref()
                                .map_or_else(String::new, |w| w.text.clone()),
                            kernel: l.kernel.as_ref().map(|k| Link {
                                href: format!("#kernel-{k}"),
                                text: k.clone(),
                            }),
                        })
                        .collect(),
                    notes: notes
                        .iter()
                        .filter(|n| within(n.span.start, span))
                        .map(|n| n.text.clone())
                        .collect(),
                    code: generated.remove(&(index, number)).unwrap_or_default(),
                    problems: Vec::new(),
                })
                .collect(),
        })
        .collect()
}

/// Each line of a file whose spans start at `base`: its number (from 1), span and text. A
/// text that ends with a newline ends with an empty line (where a diagnostic at the end of the
/// file lies).
fn lines_of(base: u32, text: &str) -> impl Iterator<Item = (usize, Span, &str)> {
    text.split('\n').enumerate().scan(base, |start, (k, line)| {
        let span = Span::new(*start as usize, (*start as usize) + line.len());
        *start += line.len() as u32 + 1;
        Some((k + 1, span, line))
    })
}

/// The accesses that keep sequential loops sequential, with what to say about them.
fn witness_marks(loops: &[LoopEntry]) -> Vec<(Span, String)> {
    loops
        .iter()
        .filter_map(|l| l.witness.as_ref())
        .flat_map(|w| {
            let why = format!("keeps the loop sequential: {}", w.text);
            std::iter::once((w.write, why.clone())).chain(w.read.map(|r| (r, why)))
        })
        .collect()
}

/// Whether `offset` lies on the line `line` (its end included: the newline).
fn within(offset: u32, line: Span) -> bool {
    line.start <= offset && offset <= line.end
}

/// The deepest loop whose statement covers the line.
fn innermost(loops: &[LoopEntry], line: Span) -> Option<&LoopEntry> {
    loops
        .iter()
        .filter(|l| l.span.start <= line.end && line.start < l.span.end.max(l.span.start + 1))
        .max_by_key(|l| l.depth)
}

/// The line at `span` cut at the `marks` that start on it.
fn pieces(line: &str, span: Span, marks: &[(Span, String)]) -> Vec<Piece> {
    let mut marks: Vec<&(Span, String)> = marks
        .iter()
        .filter(|(s, _)| span.start <= s.start && s.start < span.end.max(span.start + 1))
        .collect();
    marks.sort_by_key(|(s, _)| s.start);
    let mut out = Vec::new();
    let mut at = span.start;
    let slice = |from: u32, to: u32| {
        let (from, to) = ((from - span.start) as usize, (to - span.start) as usize);
        line.get(from..to).unwrap_or("").to_string()
    };
    for (s, why) in marks {
        if s.start < at {
            continue;
        }
        // An empty mark (the end of a line) still shows: as one blank.
        let end = s.end.clamp(s.start, span.end);
        if s.start > at {
            out.push(Piece {
                text: slice(at, s.start),
                mark: None,
            });
        }
        let text = match slice(s.start, end) {
            t if t.is_empty() => " ".to_string(),
            t => t,
        };
        out.push(Piece {
            text,
            mark: Some(why.clone()),
        });
        at = end;
    }
    if at < span.end || out.is_empty() {
        out.push(Piece {
            text: slice(at, span.end),
            mark: None,
        });
    }
    out
}
