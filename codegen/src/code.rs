//! An indented text buffer for generated code.

#[derive(Default)]
pub struct Code {
    out: String,
    indent: usize,
}

impl Code {
    pub fn new(indent: usize) -> Code {
        Code {
            out: String::new(),
            indent,
        }
    }

    /// Writes one line (or several, each indented) at the current depth.
    pub fn line(&mut self, text: impl AsRef<str>) {
        for l in text.as_ref().lines() {
            if l.is_empty() {
                self.out.push('\n');
            } else {
                self.out.push_str(&"    ".repeat(self.indent));
                self.out.push_str(l);
                self.out.push('\n');
            }
        }
    }

    /// Writes `text` and indents what follows.
    pub fn open(&mut self, text: impl AsRef<str>) {
        self.line(text);
        self.indent += 1;
    }

    /// Dedents and writes `text`.
    pub fn close(&mut self, text: impl AsRef<str>) {
        self.indent = self.indent.saturating_sub(1);
        self.line(text);
    }

    /// Dedents, writes `text`, and indents again: `} else {`.
    pub fn close_open(&mut self, text: impl AsRef<str>) {
        self.indent = self.indent.saturating_sub(1);
        self.open(text);
    }

    /// Indents what follows without writing anything.
    pub fn indent_more(&mut self) {
        self.indent += 1;
    }

    pub fn finish(self) -> String {
        self.out
    }
}
