//! Fuzz target for the frontend: any bytes, read as UTF-8 (lossily), are parsed under both
//! dialects; each file that parses is lowered (every parameter of its first function typed
//! `double (1,:)`) and printed back with `print_source`, which must parse (as MATLAB) to the
//! same tree. Nothing may panic.

#![no_main]

use libfuzzer_sys::fuzz_target;
use m2cu_frontend::ast::File;
use m2cu_frontend::ast_print::print_tree;
use m2cu_frontend::ast_source::print_source;
use m2cu_frontend::lower::{lower, LowerOptions};
use m2cu_frontend::parser::{parse_file, parse_file_with, Dialect, ParseOptions};
use m2cu_frontend::types::{Class, Dim, Shape, Type};

fuzz_target!(|data: &[u8]| {
    let source = String::from_utf8_lossy(data);
    for dialect in [Dialect::Matlab, Dialect::Octave] {
        let Ok(file) = parse_file_with(&source, &ParseOptions { dialect }) else {
            continue;
        };
        let _ = lower(&file, &lower_options(&file));
        check_round_trip(&file);
    }
});

/// Lowers the first function with every parameter a `double` row vector.
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
        ..LowerOptions::default()
    }
}

/// `print_source` gives MATLAB that parses back to the same tree. The one documented exception:
/// a char literal holding a line break prints as a `char(10)` concatenation.
fn check_round_trip(file: &File) {
    let printed = print_source(file);
    let again = match parse_file(&printed) {
        Ok(again) => again,
        Err(diags) => panic!("printed source does not parse: {diags:?}\n{printed}"),
    };
    if print_tree(file) != print_tree(&again) && !printed.contains("char(10)") {
        panic!("printed source parses to another tree:\n{printed}");
    }
}
