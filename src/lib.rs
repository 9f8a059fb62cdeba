//! m2cu: translate loop-based MATLAB functions into CUDA kernels and an equivalent C/OpenMP
//! program, and run them.
//!
//! The pipeline is a short list of phases ([`compile`]): parse → lower to the typed IR →
//! validate → analyze loops → generate code. The three operations users see are [`translate`]
//! (write the generated files), [`check`] (diagnostics and the loop report) and [`run`] (build
//! and execute on the GPU or the CPU). The `m2cu` command line wraps exactly these.
//!
//! ```
//! let source = "function s = vecsum(v)\n  arguments\n    v (1,:) double\n  end\n  s = 0;\n  for i = 1:numel(v)\n    s = s + v(i);\n  end\nend\n";
//! let t = m2cu::translate(source, &m2cu::Options::default()).unwrap();
//! assert!(t.report.contains("reduction [s: sum]"));
//! assert!(t.generated.kernels_cu.contains("__shfl_down_sync"));
//! ```

mod program;
mod set_values;

pub use program::{run, Backend, CallTiming, Program, RunOptions, RunResult};
pub use set_values::{set_values, SetOptions};

use std::path::{Path, PathBuf};

use m2cu_analysis::Analysis;
use m2cu_codegen::{CodegenOptions, Generated};
use m2cu_frontend::diag::{render, Diagnostics};
pub use m2cu_frontend::lexer::Dialect;
use m2cu_frontend::lower::LowerOptions;
use m2cu_frontend::parser::ParseOptions;
use m2cu_frontend::types::{Class, Dim, Shape, Type};
pub use m2cu_runtime::{BuildOptions, ClassId, EmuOptions, Lanes, Schedule, Value};

/// Options shared by every operation.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// The file name shown in diagnostics and generated comments.
    pub file_name: String,
    /// The function to translate; the file's first function when `None`.
    pub entry: Option<String>,
    /// Entry-point input types, as `name=class(rows,cols)` (`:` for a size known only at run
    /// time), e.g. `v=double(1,:)`. They override an `arguments` block.
    pub args: Vec<String>,
    /// Leave out the index checks (`--no-bounds-check`): faster, but an out-of-range index is
    /// undefined behaviour instead of MATLAB's error.
    pub no_bounds_check: bool,
    /// Merge the GPU blocks' partial floating sums and products in a fixed order
    /// (`--deterministic`): the same bits on every run on one device, at the cost of one slot
    /// per block instead of one atomic.
    pub deterministic: bool,
    /// The language of the source: MATLAB (the default) or GNU Octave, whose spellings
    /// (`endfor`, `!=`, `#` comments, `x += 1`, ...) are then accepted.
    pub dialect: Dialect,
    /// The seed of the random stream that `rand`/`randn` draw from (`--seed`). One call of a
    /// program draws one stream: the same seed gives the same values. The default, 0, is a
    /// fixed seed, as MATLAB starts with `rng default`.
    pub seed: u64,
}

/// Everything `translate` produces.
#[derive(Clone, Debug)]
pub struct Translation {
    pub entry: String,
    /// The entry's parameter names, in order.
    pub params: Vec<String>,
    /// The entry's outputs with their classes, in order.
    pub outputs: Vec<(String, ClassId)>,
    /// The AST as an indented tree.
    pub ast: String,
    /// The typed IR in its text form.
    pub ir: String,
    /// The loop report: one line per loop with its verdict.
    pub report: String,
    /// The same report as JSON (see `m2cu_analysis::report::json`).
    pub report_json: serde_json::Value,
    /// The same report as compiler notes with source snippets.
    pub report_notes: String,
    pub generated: Generated,
}

/// Why an operation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Problems in the MATLAB source, rendered with `file:line:col`, the line and a help line.
    #[error("{rendered}")]
    Source {
        diagnostics: Diagnostics,
        rendered: String,
    },
    /// A wrong option or input.
    #[error("{0}")]
    Usage(String),
    #[error(transparent)]
    Runtime(#[from] m2cu_runtime::Error),
    /// A broken invariant inside m2cu: a bug to report.
    #[error("internal error (please report): {0}")]
    Internal(String),
}

/// Runs the translation pipeline on `source`: parse, lower, validate, analyze, generate.
pub fn compile(
    source: &str,
    options: &Options,
    input_types: Vec<(String, Type)>,
) -> Result<Translation, Error> {
    let ast = parse(source, options)?;
    compile_parsed(source, &ast, options, input_types)
}

fn source_error(source: &str, options: &Options, diagnostics: Diagnostics) -> Error {
    Error::Source {
        rendered: render(display_name(options), source, &diagnostics),
        diagnostics,
    }
}

fn parse(source: &str, options: &Options) -> Result<m2cu_frontend::ast::File, Error> {
    let parse_options = ParseOptions {
        dialect: options.dialect,
    };
    m2cu_frontend::parser::parse_file_with(source, &parse_options)
        .map_err(|d| source_error(source, options, d))
}

/// Stack for the phases after parsing: they walk the AST and the IR recursively, as deep as
/// the parser's limits (`MAX_DEPTH` blocks, `MAX_ARMS` arms, `MAX_HEIGHT` operators) and the
/// inliner's `MAX_CALL_DEPTH` let programs nest, in an unoptimized build too.
const COMPILE_STACK_BYTES: usize = 512 << 20;

/// The phases after parsing; see [`compile`]. They run on their own thread with
/// [`COMPILE_STACK_BYTES`] of stack, whatever the caller's.
fn compile_parsed(
    source: &str,
    ast: &m2cu_frontend::ast::File,
    options: &Options,
    input_types: Vec<(String, Type)>,
) -> Result<Translation, Error> {
    m2cu_frontend::stack::with_stack("m2cu-compile", COMPILE_STACK_BYTES, || {
        compile_phases(source, ast, options, input_types.clone())
    })
}

fn compile_phases(
    source: &str,
    ast: &m2cu_frontend::ast::File,
    options: &Options,
    input_types: Vec<(String, Type)>,
) -> Result<Translation, Error> {
    let mut types = parse_arg_specs(&options.args)?;
    types.extend(input_types);
    let lower_options = LowerOptions {
        entry: options.entry.clone(),
        input_types: types,
    };
    let module = m2cu_frontend::lower::lower(ast, &lower_options)
        .map_err(|d| source_error(source, options, d))?;
    let f = module.entry();
    let problems = m2cu_frontend::validate::validate(f);
    if !problems.is_empty() {
        return Err(Error::Internal(format!(
            "invalid IR: {}",
            problems.join("; ")
        )));
    }
    let analysis: Analysis = m2cu_analysis::analyze(f);
    let codegen_options = CodegenOptions {
        file_name: display_name(options),
        source,
        bounds_checks: !options.no_bounds_check,
        deterministic: options.deterministic,
        seed: options.seed,
    };
    let name = |l: m2cu_frontend::ir::LocalId| f.locals[l].name.clone();
    let class_id = |l: m2cu_frontend::ir::LocalId| {
        ClassId::from_name(f.locals[l].ty.class.name()).expect("every IR class is a runtime class")
    };
    Ok(Translation {
        entry: f.name.clone(),
        params: f.params.iter().map(|&p| name(p)).collect(),
        outputs: f.outputs.iter().map(|&o| (name(o), class_id(o))).collect(),
        ast: m2cu_frontend::ast_print::print_tree(ast),
        ir: m2cu_frontend::ir_print::print_function(f),
        report: m2cu_analysis::report::render(f, &analysis, source),
        report_json: m2cu_analysis::report::json(f, &analysis, source),
        report_notes: render(
            display_name(options),
            source,
            &m2cu_analysis::report::notes(f, &analysis, source),
        ),
        generated: m2cu_codegen::generate(f, &analysis, &codegen_options),
    })
}

fn display_name(options: &Options) -> &str {
    if options.file_name.is_empty() {
        "<input>"
    } else {
        &options.file_name
    }
}

/// Translates `source`; input types come from `options.args` or an `arguments` block.
pub fn translate(source: &str, options: &Options) -> Result<Translation, Error> {
    compile(source, options, Vec::new())
}

/// Checks `source` and returns its loop report (the translation is computed too, and cheap).
///
/// ```
/// let source = "function c = runsum(v)\n  c = zeros(1, numel(v));\n  c(1) = v(1);\n  for i = 2:numel(v)\n    c(i) = c(i-1) + v(i);\n  end\nend\n";
/// let options = m2cu::Options { args: vec!["v=double(1,:)".into()], ..Default::default() };
/// let t = m2cu::check(source, &options).unwrap();
/// assert!(t.report.contains("sequential: `c` is written in one iteration and read in another"));
/// ```
pub fn check(source: &str, options: &Options) -> Result<Translation, Error> {
    translate(source, options)
}

/// Writes `<entry>.kernels.cu`, `<entry>.c`, `<entry>.h` and `<entry>.cu` into `dir`.
pub fn write_translation(t: &Translation, dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let g = &t.generated;
    let files = [
        (format!("{}.kernels.cu", t.entry), &g.kernels_cu),
        (format!("{}.c", t.entry), &g.c_source),
        (format!("{}.h", t.entry), &g.c_header),
        (format!("{}.cu", t.entry), &g.standalone_cu),
    ];
    files
        .into_iter()
        .map(|(name, text)| {
            let path = dir.join(name);
            std::fs::write(&path, text)?;
            Ok(path)
        })
        .collect()
}

/// Parses `name=class(rows,cols)` input type specifications.
pub fn parse_arg_specs(specs: &[String]) -> Result<Vec<(String, Type)>, Error> {
    specs.iter().map(|s| parse_arg_spec(s)).collect()
}

fn parse_arg_spec(spec: &str) -> Result<(String, Type), Error> {
    let bad = |why: &str| {
        Error::Usage(format!(
            "bad --args value `{spec}`: {why}\nhelp: write NAME=CLASS(ROWS,COLS) or NAME=CLASS(ROWS,COLS,PAGES), e.g. v=double(1,:) or n=int32 (a scalar); `:` means any size"
        ))
    };
    let (name, ty) = spec.split_once('=').ok_or_else(|| bad("missing `=`"))?;
    let name = name.trim();
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(bad("the name is not a MATLAB identifier"));
    }
    let ty = ty.trim();
    let (class_name, dims) = match ty.split_once('(') {
        Some((c, rest)) => (
            c.trim(),
            Some(rest.strip_suffix(')').ok_or_else(|| bad("missing `)`"))?),
        ),
        None => (ty, None),
    };
    let class = Class::from_name(class_name).ok_or_else(|| bad("unknown class"))?;
    let shape = match dims {
        None => Shape::SCALAR,
        Some(d) => {
            let parts: Vec<&str> = d.split(',').map(str::trim).collect();
            let dim = |p: &str| match p {
                ":" => Ok(Dim::Var),
                n => n
                    .parse::<u64>()
                    .map(Dim::Known)
                    .map_err(|_| bad("a size must be a number or `:`")),
            };
            match parts.as_slice() {
                [r, c] => Shape::new(dim(r)?, dim(c)?),
                [r, c, p] => Shape::new3(dim(r)?, dim(c)?, dim(p)?),
                _ => return Err(bad("give two or three sizes")),
            }
        }
    };
    Ok((name.to_string(), Type { class, shape }))
}

/// Translates `source` for the given input values: their classes and shapes are the input
/// types (an `arguments` block's declarations stand for the inputs it declares).
pub fn translate_for(
    source: &str,
    inputs: &[(String, Value)],
    options: &Options,
) -> Result<Translation, Error> {
    typed_translation(source, inputs, options).map(|(t, _)| t)
}

/// [`translate_for`], with the types it took from the values (the inputs no `arguments` block
/// declares).
fn typed_translation(
    source: &str,
    inputs: &[(String, Value)],
    options: &Options,
) -> Result<(Translation, Vec<(String, Type)>), Error> {
    let ast = parse(source, options)?;
    check_inputs_given(&ast, options, inputs)?;
    let declared = declared_inputs(&ast, options);
    let types = inputs
        .iter()
        .filter(|(n, _)| !declared.contains(n))
        .map(|(n, v)| (n.clone(), type_of(v)))
        .collect::<Vec<_>>();
    let t = compile_parsed(source, &ast, options, types.clone())?;
    Ok((t, types))
}

/// Every parameter of the entry needs a value before its type can be known.
fn check_inputs_given(
    ast: &m2cu_frontend::ast::File,
    options: &Options,
    inputs: &[(String, Value)],
) -> Result<(), Error> {
    let entry = match &options.entry {
        Some(name) => ast.functions.iter().find(|f| &f.name.name == name),
        None => ast.functions.first(),
    };
    let params: Vec<String> = entry
        .map(|f| f.params.iter().map(|p| p.name.clone()).collect())
        .unwrap_or_default();
    program::order_inputs(&params, inputs).map(|_| ())
}

/// The inputs of the entry function that its `arguments` block declares: their declared types
/// stand, and the program checks the values against them when it is called.
fn declared_inputs(ast: &m2cu_frontend::ast::File, options: &Options) -> Vec<String> {
    let entry = match &options.entry {
        Some(name) => ast.functions.iter().find(|f| &f.name.name == name),
        None => ast.functions.first(),
    };
    entry.map_or_else(Vec::new, |f| {
        f.arguments.iter().map(|a| a.name.name.clone()).collect()
    })
}

/// The IR type of an actual input: its class, and a shape that keeps the program general
/// (scalars, the unit extent of vectors and the row count of matrices are fixed, so that
/// reductions know their default dimension). A 1-by-1 char is text of one character, typed as a
/// row of run-time length so that text code (`s(2:end)`, `s(k)`) takes it.
pub(crate) fn type_of(v: &Value) -> Type {
    let class = Class::from_name(v.class().name()).expect("every runtime class is an IR class");
    if v.dims.len() == 3 {
        let shape = Shape::new3(Dim::Known(v.rows() as u64), Dim::Var, Dim::Var);
        return Type { class, shape };
    }
    let shape = match (v.rows(), v.cols()) {
        (1, 1) if class == Class::Char => Shape::new(Dim::Known(1), Dim::Var),
        (1, 1) => Shape::SCALAR,
        (1, _) => Shape::new(Dim::Known(1), Dim::Var),
        (_, 1) => Shape::new(Dim::Var, Dim::Known(1)),
        (rows, _) => Shape::new(Dim::Known(rows as u64), Dim::Var),
    };
    Type { class, shape }
}

/// Reads the variables of a MAT-file (`save -v7` or `-v6`) as named inputs.
pub fn read_mat_file(path: &Path) -> Result<Vec<(String, Value)>, Error> {
    Ok(m2cu_runtime::read_mat(path)?)
}
