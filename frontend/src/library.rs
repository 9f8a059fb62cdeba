//! Functions in other files: `helper(x)` in the entry file calls the function of `helper.m`.
//!
//! Loading is separate from lowering, because only the caller knows where files are: the
//! caller's `find` maps a name to the text of `NAME.m` (MATLAB looks in the entry file's folder,
//! then along the path); a name it does not find may be one of m2cu's own MATLAB functions
//! ([`crate::bundled`]). [`Library::load`] asks for every identifier of the entry file that no
//! function of that file defines (and the bundled helpers that lowering calls for a builtin
//! among them, [`crate::bundled::helpers_of`], and `mldivide`/`mrdivide`/`mpower` for a
//! `\`/`/`/`^`, which may be a matrix operation), then for the identifiers of each file found,
//! until no new name turns up. An identifier may be a variable (`x` with an `x.m` next to the entry): so a
//! file that fails to read or parse is kept as such and reported only where lowering resolves a
//! call to it.
//!
//! Invariants:
//! - a function file is called by its file name (MATLAB's rule when the `function` line names
//!   another function): [`Library::function`] gives the file's first function;
//! - each file is parsed once, at its own offset of the [`SourceMap`], so diagnostics in it
//!   render with its own name, line and column;
//! - the other functions of a file are visible only inside it (lowering looks a name up in the
//!   current file first, then here).

use std::collections::HashMap;

use crate::ast;
use crate::diag::Diagnostics;
use crate::lexer::{lex_with, TokKind};
use crate::parser::{parse_file_at, ParseOptions};
use crate::sources::SourceMap;

/// What `find` answers for a name with a file: its name for diagnostics and its text, or why
/// it cannot be read.
pub type Found = Result<(String, String), String>;

/// A function file as loaded.
#[derive(Clone, Debug)]
pub enum FunctionFile {
    Parsed(ast::File),
    /// The file's parse errors, reported where it is called.
    Broken(Diagnostics),
    /// The file exists but cannot be read (too large, not a regular file, ...): the path and why.
    Unreadable(String),
}

/// The function files a program may call, by function (file) name.
#[derive(Clone, Debug, Default)]
pub struct Library {
    files: HashMap<String, FunctionFile>,
    /// The names whose file is m2cu's own ([`crate::bundled`]).
    bundled: Vec<String>,
    /// The values held for struct-array fields taken for numbers in these files
    /// ([`crate::struct_arrays::Rewritten::numeric_values`]).
    field_values: HashMap<String, String>,
}

impl Library {
    /// Loads every function file that the entry file, or a file loaded for it, may call (see
    /// the module docs). `find(name)` is `None` when there is no `name.m`.
    pub fn load(
        entry: (&str, &ast::File),
        sources: &mut SourceMap,
        options: &ParseOptions,
        find: &mut dyn FnMut(&str) -> Option<Found>,
    ) -> Library {
        let mut library = Library::default();
        let mut pending = candidate_names(entry.0, entry.1, options);
        while let Some(name) = pending.pop() {
            if library.files.contains_key(&name) {
                continue;
            }
            let found = match find(&name) {
                Some(found) => found,
                None => match crate::bundled::file(&name) {
                    Some((shown, text)) => {
                        library.bundled.push(name.clone());
                        Ok((shown, text.to_string()))
                    }
                    None => continue,
                },
            };
            let file = match found {
                Ok((file_name, text)) => {
                    let base = sources.add(&file_name, &text);
                    match parse_file_at(&text, options, base) {
                        Ok(mut file) => {
                            pending.extend(candidate_names(&text, &file, options));
                            // What it leaves, lowering refuses where the file is used.
                            let none = std::collections::HashSet::new();
                            let rewritten =
                                crate::struct_arrays::rewrite_functions(&mut file.functions, &none);
                            library.field_values.extend(rewritten.numeric_values);
                            FunctionFile::Parsed(file)
                        }
                        Err(d) => FunctionFile::Broken(d),
                    }
                }
                Err(why) => FunctionFile::Unreadable(why),
            };
            library.files.insert(name, file);
        }
        library
    }

    /// The file that a call to `name` resolves to, if any.
    pub fn get(&self, name: &str) -> Option<&FunctionFile> {
        self.files.get(name)
    }

    /// The struct-array field that the hidden variable `held` holds a value for, in these
    /// files ([`crate::struct_arrays::Rewritten::numeric_values`]).
    pub fn field_of_value(&self, held: &str) -> Option<&str> {
        self.field_values.get(held).map(String::as_str)
    }

    /// Whether `file` is one of m2cu's own ([`crate::bundled`]).
    pub fn is_bundled(&self, file: &ast::File) -> bool {
        self.bundled.iter().any(|name| {
            matches!(self.files.get(name), Some(FunctionFile::Parsed(f)) if std::ptr::eq(f, file))
        })
    }

    /// The files that parsed.
    pub fn parsed(&self) -> impl Iterator<Item = &ast::File> {
        self.files.values().filter_map(|f| match f {
            FunctionFile::Parsed(file) => Some(file),
            _ => None,
        })
    }
}

/// The function a file is called by: its first.
pub fn function(file: &ast::File) -> Option<&ast::Function> {
    file.functions.first()
}

/// The identifiers of `text` that may name a function in another file: plain names (no dot)
/// that no function of `file` (the text parsed) declares.
fn candidate_names(text: &str, file: &ast::File, options: &ParseOptions) -> Vec<String> {
    let mut declared = Vec::new();
    for_each_function(&file.functions, &mut |f| declared.push(f.name.name.clone()));
    let tokens = lex_with(text, options.dialect).tokens;
    // `[c{:}]` joins a cell's texts with m2cu's own `m2cu_cell_joined` (`lower::cells`); so
    // does `[s.name]` of a struct array's text field (`crate::struct_arrays`).
    let all_contents = tokens.windows(3).any(|w| {
        matches!(
            (&w[0].kind, &w[1].kind, &w[2].kind),
            (TokKind::LBrace, TokKind::Colon, TokKind::RBrace)
        )
    }) || tokens.iter().any(|t| matches!(t.kind, TokKind::Field(_)));
    let mut names: Vec<String> = tokens
        .into_iter()
        .filter_map(|t| match t.kind {
            TokKind::Ident(name) if !name.contains('.') && !declared.contains(&name) => Some(name),
            // GPU Coder's `gpucoder.sort` is MATLAB's `sort` (`lower::gpucoder_sort`).
            TokKind::Ident(name) if name == "gpucoder.sort" => Some("sort".into()),
            TokKind::Backslash => Some("mldivide".into()),
            TokKind::Slash => Some("mrdivide".into()),
            TokKind::Caret => Some("mpower".into()),
            // A product of complex matrices is m2cu's own (`lower::mtimes`).
            TokKind::Star => Some("m2cu_cmtimes".into()),
            _ => None,
        })
        .collect();
    if all_contents {
        names.push("m2cu_cell_joined".into());
    }
    let helpers: Vec<String> = names
        .iter()
        .flat_map(|n| crate::bundled::helpers_of(n))
        .map(String::from)
        .collect();
    names.extend(helpers);
    names.sort();
    names.dedup();
    names
}

fn for_each_function<'f>(fs: &'f [ast::Function], f: &mut impl FnMut(&'f ast::Function)) {
    for function in fs {
        f(function);
        for_each_function(&function.nested, f);
    }
}
