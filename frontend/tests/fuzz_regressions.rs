//! Inputs the fuzzer (`fuzz/`) once crashed on, kept in `fixtures/fuzz/*.m`: each is parsed
//! under both dialects without panicking, lowered when it parses (every parameter of its first
//! function typed `double (1,:)`, as the fuzz target does), and printed back to the same tree.

use std::fs;
use std::path::{Path, PathBuf};

use m2cu_frontend::ast::File;
use m2cu_frontend::ast_print::print_tree;
use m2cu_frontend::ast_source::print_source;
use m2cu_frontend::lower::{lower, LowerOptions};
use m2cu_frontend::parser::{parse_file, parse_file_with, Dialect, ParseOptions};
use m2cu_frontend::types::{Class, Dim, Shape, Type};

fn fuzz_fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/fuzz");
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "m"))
        .collect();
    files.sort();
    files
}

fn lower_options(file: &File) -> LowerOptions {
    let row = Type::array(Class::Double, Shape::new(Dim::Known(1), Dim::Var));
    let params = file
        .functions
        .first()
        .map(|f| f.params.as_slice())
        .unwrap_or_default();
    LowerOptions {
        entry: None,
        input_types: params.iter().map(|p| (p.name.clone(), row)).collect(),
        nargin: None,
    }
}

#[test]
fn fuzz_inputs_do_not_panic() {
    let files = fuzz_fixtures();
    assert!(!files.is_empty(), "no fixtures/fuzz/*.m");
    for path in files {
        let bytes = fs::read(&path).expect("read fixture");
        let source = String::from_utf8_lossy(&bytes).into_owned();
        for dialect in [Dialect::Matlab, Dialect::Octave] {
            let result = std::panic::catch_unwind(|| {
                let Ok(file) = parse_file_with(&source, &ParseOptions { dialect }) else {
                    return;
                };
                let _ = lower(&file, &lower_options(&file));
                let printed = print_source(&file);
                let again = parse_file(&printed).expect("printed source parses");
                assert_eq!(print_tree(&file), print_tree(&again), "{printed}");
            });
            assert!(result.is_ok(), "{} ({dialect:?}) panicked", path.display());
        }
    }
}
