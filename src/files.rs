//! Functions in other files: where `helper(x)` finds `helper.m`.
//!
//! Invariants:
//! - a name is looked up as `NAME.m` in the folders of [`Options::search_path`], in order; the
//!   first regular file found is the one (MATLAB: the entry file's folder, then the path);
//! - with an empty search path nothing is read, so `translate(&source, &options)` on one file
//!   depends on that text alone;
//! - files are read like the entry file ([`crate::source_text::read`]: size limit, encodings).

use std::path::Path;

use m2cu_frontend::ast;
use m2cu_frontend::library::{Found, Library};
use m2cu_frontend::parser::ParseOptions;
use m2cu_frontend::sources::SourceMap;

use crate::{display_name, Options};

/// The entry file and every function file it may call, parsed.
pub(crate) fn load_library(
    source: &str,
    ast: &ast::File,
    options: &Options,
) -> (SourceMap, Library) {
    let mut sources = SourceMap::new(display_name(options), source);
    let parse_options = ParseOptions {
        dialect: options.dialect,
    };
    let library = Library::load((source, ast), &mut sources, &parse_options, &mut |name| {
        find(name, options)
    });
    (sources, library)
}

/// The text of the first `name.m` along the search path, unless that is the entry file itself
/// (whose functions lowering finds without it).
fn find(name: &str, options: &Options) -> Option<Found> {
    if !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    let path = options
        .search_path
        .iter()
        .map(|dir| dir.join(format!("{name}.m")))
        .find(|p| p.is_file())?;
    if same_file(&path, Path::new(&options.file_name)) {
        return None;
    }
    Some(read(&path))
}

fn same_file(a: &Path, b: &Path) -> bool {
    matches!((a.canonicalize(), b.canonicalize()), (Ok(a), Ok(b)) if a == b)
}

/// The file's text, named by its path relative to the current directory when it lies inside
/// it (as the user would write it; and the same on every checkout), as found otherwise.
fn read(path: &Path) -> Found {
    let text = crate::source_text::read(path)?;
    let cwd = std::env::current_dir().unwrap_or_default();
    let shown = path.strip_prefix(&cwd).unwrap_or(path);
    Ok((shown.display().to_string(), text))
}
