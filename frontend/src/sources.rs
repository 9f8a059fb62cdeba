//! The source files of one program: the entry file and the function files it calls.
//!
//! Invariants:
//! - every file occupies its own range of byte offsets: the entry starts at 0 and each later
//!   file one byte after the end of the one before, so a [`Span`] (parsed with
//!   [`parse_file_at`](crate::parser::parse_file_at) at the file's `base`) names its file
//!   without a file id, and spans of different files never compare equal;
//! - [`SourceMap::text`] is the files' texts joined by one `\n` at exactly those offsets, so
//!   `text[span]` is the source of any span (phases that take one source text keep working);
//! - [`SourceMap::render`] prints each diagnostic against the file its span lies in, with that
//!   file's name, line and column.

use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::termcolor::{Ansi, NoColor, WriteColor};
use codespan_reporting::term::{self};

use crate::diag::{to_codespan, Diagnostics, Span};

/// How [`SourceMap::render_styled`] writes: plain text, or with ANSI colours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Style {
    #[default]
    Plain,
    Color,
}

/// One file of a [`SourceMap`].
#[derive(Clone, Debug)]
struct SourceFile {
    name: String,
    base: u32,
    len: u32,
}

/// The files of a program, each at its own byte offset (see the module docs).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
    text: String,
}

impl SourceMap {
    /// A map holding only the entry file.
    pub fn new(name: &str, text: &str) -> SourceMap {
        let mut map = SourceMap::default();
        map.add(name, text);
        map
    }

    /// Adds a file and returns the offset its spans start at.
    pub fn add(&mut self, name: &str, text: &str) -> u32 {
        if !self.files.is_empty() {
            self.text.push('\n');
        }
        let base = self.text.len() as u32;
        self.text.push_str(text);
        self.files.push(SourceFile {
            name: name.to_string(),
            base,
            len: text.len() as u32,
        });
        base
    }

    /// All files' texts, each at its offset.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The index of the file that `offset` lies in (the end of a file counts as inside it).
    fn file_of(&self, offset: u32) -> usize {
        self.files
            .iter()
            .rposition(|f| f.base <= offset)
            .unwrap_or(0)
    }

    /// Where `offset` is: `line:col` in the entry file, `name:line:col` in any other (lines and
    /// columns of that file, as the renderer shows them).
    pub fn position(&self, offset: u32) -> String {
        let (file, line, col) = self.locate(offset);
        match file {
            0 => format!("{line}:{col}"),
            _ => format!("{}:{line}:{col}", self.files[file].name),
        }
    }

    /// The file index (0: the entry), 1-based line and column of `offset`.
    pub fn locate(&self, offset: u32) -> (usize, usize, usize) {
        let file = self.file_of(offset);
        let f = &self.files[file];
        let text = &self.text[f.base as usize..(f.base + f.len) as usize];
        let (line, col) = crate::diag::line_col(text, offset.saturating_sub(f.base));
        (file, line, col)
    }

    /// Each file's name, the offset its spans start at, and its text, the entry first.
    pub fn files(&self) -> impl Iterator<Item = (&str, u32, &str)> + '_ {
        self.files.iter().map(|f| {
            let text = &self.text[f.base as usize..(f.base + f.len) as usize];
            (f.name.as_str(), f.base, text)
        })
    }

    /// The name of file `index` (see [`Self::locate`]).
    pub fn name(&self, index: usize) -> &str {
        &self.files[index].name
    }

    /// Renders `diagnostics` like [`crate::diag::render`], each label against its own file.
    pub fn render(&self, diagnostics: &Diagnostics) -> String {
        self.render_styled(diagnostics, Style::Plain)
    }

    /// [`Self::render`] in `style`: plain text, or with ANSI colours for a terminal.
    pub fn render_styled(&self, diagnostics: &Diagnostics, style: Style) -> String {
        let mut files = SimpleFiles::new();
        for f in &self.files {
            let text = &self.text[f.base as usize..(f.base + f.len) as usize];
            files.add(f.name.as_str(), text);
        }
        let locate = |span: Span| {
            let file = self.file_of(span.start);
            let f = &self.files[file];
            let local = |o: u32| (o.saturating_sub(f.base)).min(f.len) as usize;
            (file, local(span.start)..local(span.end.max(span.start)))
        };
        let config = term::Config::default();
        let emit_all = |out: &mut dyn WriteColor| {
            for d in diagnostics.iter() {
                let cs = to_codespan(d, &locate);
                // Writing into a Vec cannot fail, and every range was clamped to its file.
                let _ = term::emit(out, &config, &files, &cs);
            }
        };
        let bytes = match style {
            Style::Plain => {
                let mut out = NoColor::new(Vec::new());
                emit_all(&mut out);
                out.into_inner()
            }
            Style::Color => {
                let mut out = Ansi::new(Vec::new());
                emit_all(&mut out);
                out.into_inner()
            }
        };
        String::from_utf8_lossy(&bytes).into_owned()
    }

    /// `(file name, line, column)` of `offset`, lines and columns from 1.
    pub fn place(&self, offset: u32) -> (&str, usize, usize) {
        let (file, line, col) = self.locate(offset);
        (self.name(file), line, col)
    }
}

#[cfg(test)]
mod tests {
    use super::SourceMap;
    use crate::diag::{Diagnostic, Diagnostics, Span};

    #[test]
    fn spans_render_in_the_file_they_lie_in() {
        let mut map = SourceMap::new("main.m", "x = 1;\ny = 2;\n");
        let base = map.add("helper.m", "a = 1;\nb = $;\n");
        assert_eq!(base, 15);
        assert_eq!(&map.text()[base as usize..base as usize + 6], "a = 1;");
        let at = base as usize + 11;
        let d = Diagnostic::error("E0002", Span::new(at, at + 1), "unexpected character");
        let shown = map.render(&Diagnostics::from(d));
        assert!(shown.contains("helper.m:2:5"), "{shown}");
        let d = Diagnostic::error("E0102", Span::new(7, 8), "undefined");
        assert!(map.render(&Diagnostics::from(d)).contains("main.m:2:1"));
        assert_eq!(map.position(7), "2:1");
        assert_eq!(map.position(at as u32), "helper.m:2:5");
    }
}
