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

mod diagnostics;
mod files;
mod mex;
mod program;
mod set_values;
pub mod source_text;

pub use m2cu_runtime::Threads;
pub use mex::{build_mex, mex_name, write_mex_sources, MexBuild, MexOptions};
pub use program::{run, Backend, CallTiming, Inputs, Program, RunOptions, RunResult};
pub use set_values::{set_values, SetOptions};

use std::path::{Path, PathBuf};

use m2cu_analysis::Analysis;
use m2cu_codegen::CodegenOptions;
pub use m2cu_codegen::Generated;
pub use m2cu_frontend::catalog;
pub use m2cu_frontend::diag::{Diagnostic, Diagnostics, Severity, Span};
pub use m2cu_frontend::lexer::Dialect;
use m2cu_frontend::lower::LowerOptions;
use m2cu_frontend::parser::ParseOptions;
use m2cu_frontend::types::{Class, Dim, Shape, Type};
/// What the runtime reports: a failed build, a run-time error of the generated code
/// ([`RuntimeError::Call`], a [`CallError`] with its [`ErrorCode`] and the place that raised it
/// as a [`Location`]), the program's own
/// `error` ([`RuntimeError::Raised`], with its identifier), a missing tool.
pub use m2cu_runtime::Error as RuntimeError;
pub use m2cu_runtime::{
    BuildOptions, CallError, ClassId, Copies, Data, Element, EmuOptions, ErrorCode, Lanes,
    Location, Optimization, Schedule, Subscript, Transfers, Value,
};

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
    /// per block instead of one atomic. (The C path always folds its threads' partials in
    /// thread order: the same bits on every run with the same team size.)
    pub deterministic: bool,
    /// The language of the source: MATLAB (the default) or GNU Octave, whose spellings
    /// (`endfor`, `!=`, `#` comments, `x += 1`, ...) are then accepted.
    pub dialect: Dialect,
    /// The seed of the random stream that `rand`/`randn` draw from (`--seed`). One call of a
    /// program draws one stream: the same seed gives the same values. The default, 0, is a
    /// fixed seed, as MATLAB starts with `rng default`.
    pub seed: u64,
    /// Folders searched, in order, for `NAME.m` when a call `NAME(...)` names no variable,
    /// builtin or function of the file (MATLAB's functions in other files). The command line
    /// puts the entry file's folder first, then each `--path`. Empty (the default): nothing is
    /// read, every function must be in the source.
    pub search_path: Vec<PathBuf>,
    /// How many inputs the entry is called with (MATLAB's `nargin`): the first that many of its
    /// parameters, the others being variables its code assigns (`if nargin < 3, tol = 1e-6;
    /// end`). All of them when `None`; [`run`] and [`Program::prepare`] count the inputs given.
    pub nargin: Option<usize>,
    /// Start the code of each statement with `#line N "file.m"` (`--line-directives`), so that
    /// the C compiler's, NVRTC's and compute-sanitizer's messages name the MATLAB file and
    /// line instead of the generated one. (Every kernel and loop names its MATLAB line in a
    /// comment either way.)
    pub line_directives: bool,
    /// Also write the HTML report ([`Translation::html_report`]; `m2cu report`, `translate
    /// --report`): the source with each loop coloured by its verdict, the kernels' launches and
    /// the arrays they move, the notes, and the generated code linked with the source lines.
    pub html_report: bool,
}

/// Everything `translate` produces.
#[derive(Clone, Debug)]
pub struct Translation {
    pub entry: String,
    /// The entry's parameter names, in order: those its calls pass (see [`Options::nargin`]).
    pub params: Vec<String>,
    /// The entry's parameters after the first `nargin`, which its calls do not pass.
    pub omitted_params: Vec<String>,
    /// The entry's outputs with their classes, in order.
    pub outputs: Vec<(String, ClassId)>,
    /// The positions in `outputs` of the complex (double) outputs. After its outputs the entry
    /// returns one logical per complex output, in this order: whether Octave keeps it complex
    /// when its imaginary part is zero ([`Program`] narrows it otherwise).
    pub complex_outputs: Vec<usize>,
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
    /// The HTML report, one self-contained page, when [`Options::html_report`] asks for it.
    pub html_report: Option<String>,
}

/// Why an operation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Problems in the MATLAB source, rendered with `file:line:col`, the line and a help line:
    /// as plain text, with ANSI colours, and as JSON (`{"diagnostics": [...]}`, see
    /// `diagnostics.rs`).
    #[error("{rendered}")]
    Source {
        diagnostics: Diagnostics,
        rendered: String,
        colored: String,
        json: serde_json::Value,
        /// The files the diagnostics lie in ([`Error::html_report`] shows them).
        sources: Box<m2cu_frontend::sources::SourceMap>,
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

impl Error {
    /// The error as JSON, as `--format json` prints it: a source error's `{"diagnostics":
    /// [...]}`, else `{"error": {"kind", "message", ...}}` with a run-time error's identifier
    /// and place (see `diagnostics.rs`).
    pub fn json(&self) -> serde_json::Value {
        diagnostics::error_json(self)
    }

    /// A failure that is not an `Error` (a file the command line cannot read, say) in the
    /// shape of [`Error::json`]: `{"error": {"kind": kind, "message": message}}`.
    pub fn other_json(kind: &str, message: &str) -> serde_json::Value {
        diagnostics::failure_json(kind, message, serde_json::json!({}))
    }

    /// For a source error, the HTML report of the failed translation: the errors in a table
    /// and marked at their places in the source, with their help (what `m2cu report` writes
    /// when the file does not translate). `None` for other errors.
    pub fn html_report(&self) -> Option<String> {
        match self {
            Error::Source {
                diagnostics,
                sources,
                ..
            } => Some(m2cu_codegen::report_html::error_page(
                sources,
                diagnostics,
                sources.name(0),
            )),
            _ => None,
        }
    }
}

/// Runs the translation pipeline on `source`: parse, lower, validate, analyze, generate.
pub fn compile(
    source: &str,
    options: &Options,
    input_types: Vec<(String, Type)>,
) -> Result<Translation, Error> {
    let ast = parse(source, options)?;
    check_nargin(&ast, options)?;
    compile_parsed(source, &ast, options, input_types)
}

/// A call passes at most as many inputs as the entry declares (MATLAB: "Too many input
/// arguments").
fn check_nargin(ast: &m2cu_frontend::ast::File, options: &Options) -> Result<(), Error> {
    let declared = entry_params(ast, options).len();
    match options.nargin {
        Some(n) if n > declared => Err(Error::Usage(format!(
            "--nargin {n}: the entry function declares {declared} inputs, and MATLAB stops a call with more (\"Too many input arguments\")\nhelp: pass --nargin {declared} or fewer"
        ))),
        _ => Ok(()),
    }
}

fn source_error(source: &str, options: &Options, diagnostics: Diagnostics) -> Error {
    let sources = m2cu_frontend::sources::SourceMap::new(display_name(options), source);
    diagnostics::source_error(&sources, diagnostics)
}

/// The AST of `source` as an indented tree (`m2cu parse`), or its syntax errors.
pub fn parse_tree(source: &str, options: &Options) -> Result<String, Error> {
    parse(source, options).map(|ast| m2cu_frontend::ast_print::print_tree(&ast))
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
    let (sources, library) = files::load_library(source, ast, options);
    let source = sources.text();
    let lower_options = LowerOptions {
        entry: options.entry.clone(),
        input_types: types,
        library,
        nargin: options.nargin,
    };
    let module = m2cu_frontend::lower::lower(ast, &lower_options)
        .map_err(|d| diagnostics::source_error(&sources, d))?;
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
        sources: &sources,
        bounds_checks: !options.no_bounds_check,
        deterministic: options.deterministic,
        seed: options.seed,
        line_directives: options.line_directives,
    };
    let name = |l: m2cu_frontend::ir::LocalId| f.locals[l].name.clone();
    let class_id = |l: m2cu_frontend::ir::LocalId| {
        ClassId::from_name(f.locals[l].ty.class.name()).expect("every IR class is a runtime class")
    };
    Ok(Translation {
        entry: f.name.clone(),
        params: f.params.iter().map(|&p| name(p)).collect(),
        omitted_params: entry_params(ast, options)
            .into_iter()
            .skip(f.params.len())
            .collect(),
        outputs: f.outputs.iter().map(|&o| (name(o), class_id(o))).collect(),
        complex_outputs: (0..f.outputs.len())
            .filter(|&k| f.locals[f.outputs[k]].ty.complex)
            .collect(),
        ast: m2cu_frontend::ast_print::print_tree(ast),
        ir: m2cu_frontend::ir_print::print_function(f),
        report: m2cu_analysis::report::render_in(f, &analysis, &sources),
        report_json: m2cu_analysis::report::json_in(f, &analysis, &sources),
        report_notes: sources.render(&m2cu_analysis::report::notes(f, &analysis, source)),
        generated: m2cu_codegen::generate(f, &analysis, &codegen_options),
        html_report: options
            .html_report
            .then(|| m2cu_codegen::report_html::page(f, &analysis, &codegen_options)),
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
    write_files(
        dir,
        [
            (format!("{}.kernels.cu", t.entry), &g.kernels_cu),
            (format!("{}.c", t.entry), &g.c_source),
            (format!("{}.h", t.entry), &g.c_header),
            (format!("{}.cu", t.entry), &g.standalone_cu),
        ],
    )
}

/// Writes each `(file name, text)` into `dir` (which exists); the paths written.
fn write_files<'a>(
    dir: &Path,
    files: impl IntoIterator<Item = (String, &'a String)>,
) -> std::io::Result<Vec<PathBuf>> {
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
            "bad --args value `{spec}`: {why}\nhelp: write NAME=CLASS(ROWS,COLS) or NAME=CLASS(ROWS,COLS,PAGES), e.g. v=double(1,:) or n=int32 (a scalar), z=complex for a complex double; `:` means any size"
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
    // `complex` is a complex double (MATLAB's class of `1i` is double, with an imaginary part).
    let complex = class_name == "complex";
    let class = match complex {
        true => Class::Double,
        false => Class::from_name(class_name).ok_or_else(|| bad("unknown class"))?,
    };
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
    let ty = Type {
        complex,
        ..Type::array(class, shape)
    };
    Ok((name.to_string(), ty))
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
    let nargin = inputs_given(&ast, options, inputs)?;
    let declared = declared_inputs(&ast, options);
    let (_, library) = files::load_library(source, &ast, options);
    let indexed = entry_function(&ast, options)
        .map(|f| m2cu_frontend::indexed::indexed_through_calls(f, &ast, &library))
        .unwrap_or_default();
    // An `arguments` block declares real classes only; a complex value (which MATLAB's `double`
    // validation accepts) takes its own type, as an input with no declaration does.
    let types = inputs
        .iter()
        .filter(|(n, v)| !declared.contains(n) || v.is_complex())
        .map(|(n, v)| (n.clone(), open_if_indexed(type_of(v), indexed.contains(n))))
        .collect::<Vec<_>>();
    let options = Options {
        nargin: Some(nargin),
        ..options.clone()
    };
    let t = compile_parsed(source, &ast, &options, types.clone())?;
    Ok((t, types))
}

/// The type of an input that the entry indexes (`x(j)`, `x(end)`, or a helper it passes `x` to
/// does: see `m2cu_frontend::indexed`): a 1-by-1 value is then a row of run-time length, not a
/// scalar, as `bubble(5)` is legal MATLAB.
fn open_if_indexed(ty: Type, indexed: bool) -> Type {
    if indexed && ty.is_scalar() {
        return Type {
            shape: Shape::new(Dim::Known(1), Dim::Var),
            ..ty
        };
    }
    ty
}

/// How many inputs the call passes (its `nargin`): MATLAB passes inputs by position, so the
/// parameters with values must be the first ones; those after them have none.
fn inputs_given(
    ast: &m2cu_frontend::ast::File,
    options: &Options,
    inputs: &[(String, Value)],
) -> Result<usize, Error> {
    let params = entry_params(ast, options);
    let given = |p: &String| inputs.iter().any(|(n, _)| n == p);
    let nargin = params.iter().take_while(|p| given(p)).count();
    if let Some(later) = params[nargin..].iter().find(|p| given(p)) {
        let missing = &params[nargin];
        return Err(Error::Usage(format!(
            "input `{later}` has a value but `{missing}` before it has none: MATLAB passes inputs by position\nhelp: pass --set '{missing}=...' too, or leave out every input after `{missing}`"
        )));
    }
    Ok(nargin)
}

/// The entry function of `ast`: the one `options.entry` names, else the first.
fn entry_function<'a>(
    ast: &'a m2cu_frontend::ast::File,
    options: &Options,
) -> Option<&'a m2cu_frontend::ast::Function> {
    match &options.entry {
        Some(name) => ast.functions.iter().find(|f| &f.name.name == name),
        None => ast.functions.first(),
    }
}

/// The parameter names of the entry function.
fn entry_params(ast: &m2cu_frontend::ast::File, options: &Options) -> Vec<String> {
    entry_function(ast, options).map_or_else(Vec::new, |f| {
        f.params.iter().map(|p| p.name.clone()).collect()
    })
}

/// The inputs of the entry function that its `arguments` block declares: their declared types
/// stand, and the program checks the values against them when it is called.
fn declared_inputs(ast: &m2cu_frontend::ast::File, options: &Options) -> Vec<String> {
    entry_function(ast, options).map_or_else(Vec::new, |f| {
        f.arguments.iter().map(|a| a.name.name.clone()).collect()
    })
}

/// The IR type of an actual input: its class, and a shape that keeps the program general
/// (scalars, the unit extent of vectors and the row count of matrices are fixed, so that
/// reductions know their default dimension). A 1-by-1 char is text of one character, typed as a
/// row of run-time length so that text code (`s(2:end)`, `s(k)`) takes it. A complex value
/// (`Value::is_complex`) makes a complex type: MATLAB specializes nothing on it, but a real value
/// is simply real, so a program is prepared for one or the other.
pub(crate) fn type_of(v: &Value) -> Type {
    Type {
        complex: v.is_complex(),
        ..real_type_of(v)
    }
}

/// [`type_of`] without the complexity.
fn real_type_of(v: &Value) -> Type {
    let class = Class::from_name(v.class().name()).expect("every runtime class is an IR class");
    if v.dims.len() == 3 {
        let shape = Shape::new3(Dim::Known(v.rows() as u64), Dim::Var, Dim::Var);
        return Type::array(class, shape);
    }
    let shape = match (v.rows(), v.cols()) {
        (1, 1) if class == Class::Char => Shape::new(Dim::Known(1), Dim::Var),
        (1, 1) => Shape::SCALAR,
        (1, _) => Shape::new(Dim::Known(1), Dim::Var),
        (_, 1) => Shape::new(Dim::Var, Dim::Known(1)),
        (rows, _) => Shape::new(Dim::Known(rows as u64), Dim::Var),
    };
    Type::array(class, shape)
}

/// Reads the variables of a MAT-file (`save -v7` or `-v6`) as named inputs. A complex variable
/// whose imaginary parts are all zero is read as its real part, as Octave's `load` narrows it.
pub fn read_mat_file(path: &Path) -> Result<Vec<(String, Value)>, Error> {
    let vars = m2cu_runtime::read_mat(path)?;
    Ok(vars.into_iter().map(|(n, v)| (n, v.narrowed())).collect())
}

/// Named inputs from a file, by its extension: a MAT-file (`.mat`, see [`read_mat_file`]), a
/// NumPy archive (`.npz`, one input per array name, as `numpy.savez(f, x=x, n=n)` writes) or
/// one NumPy array (`.npy`, the input named like the file: `x.npy` is `x`). NumPy's classes
/// and shapes map as `m2cu_runtime::read_npy` says (a 1-d array is a row).
///
/// ```
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("v.npy");
/// m2cu::write_outputs(&path, &[("v".into(), m2cu::Value::row(vec![1.0, 2.0]))]).unwrap();
/// let inputs = m2cu::read_inputs(&path).unwrap();
/// assert_eq!(inputs[0].0, "v");
/// assert_eq!(inputs[0].1.as_slice::<f64>(), Some(&[1.0, 2.0][..]));
/// ```
pub fn read_inputs(path: &Path) -> Result<Vec<(String, Value)>, Error> {
    match extension(path).as_str() {
        "npz" => Ok(m2cu_runtime::read_npz(path)?),
        "npy" => {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok(vec![(name, m2cu_runtime::read_npy(path)?)])
        }
        _ => read_mat_file(path),
    }
}

/// Writes named outputs by the file's extension: a MAT-file (`-v7`, for `load` in MATLAB or
/// Octave; any extension but these two), a NumPy archive (`.npz`, for `numpy.load`), or one
/// NumPy array (`.npy`: only for one value).
pub fn write_outputs(path: &Path, outputs: &[(String, Value)]) -> Result<(), Error> {
    match (extension(path).as_str(), outputs) {
        ("npz", _) => Ok(m2cu_runtime::write_npz(path, outputs)?),
        ("npy", [(_, value)]) => Ok(m2cu_runtime::write_npy(path, value)?),
        ("npy", _) => Err(Error::Usage(format!(
            "{}: a .npy file holds one array, and there are {} outputs\nhelp: write a .npz or a .mat file",
            path.display(),
            outputs.len()
        ))),
        _ => Ok(m2cu_runtime::write_mat(path, outputs)?),
    }
}

fn extension(path: &Path) -> String {
    path.extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default()
}
