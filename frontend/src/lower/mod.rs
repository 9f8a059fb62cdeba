//! Lowering: AST → typed IR, with MATLAB class and shape inference.
//!
//! One forward pass over the entry function in program order. A variable's type is fixed by its
//! first assignment (MATLAB Coder's rule), except where `reassign` makes a change of shape or
//! an accumulator's class exact; any other later assignment of another class or of a scalar to
//! an array is an error rather than a silent retyping. Everything outside the supported subset is
//! reported with a diagnostic naming the construct; lowering never panics and keeps going after
//! an error so that several problems are reported at once.
//!
//! Diagnostic codes of this phase:
//!
//! | code  | meaning |
//! |-------|---------|
//! | E0100 | the requested entry function does not exist |
//! | E0101 | the type of an entry-point input is unknown |
//! | E0102 | undefined variable or function |
//! | E0103 | a construct outside the supported subset (named in the message) |
//! | E0104 | a variable changes class or shape |
//! | E0105 | wrong number or kind of arguments to a builtin |
//! | E0106 | invalid class mixing (two different integer classes, or a float-only builtin on integers) |
//! | E0108 | `break`/`continue` outside a loop, or `end` outside an index |
//! | E0109 | an invalid `arguments` block entry |
//! | E0110 | operands or assignment sides whose sizes are known to differ |
//! | E0111 | concatenation of items whose extents do not line up |
//! | E0112 | a loop pragma (`coder.gpu.kernel()`) not followed by a `for` loop |
//! | E0113 | a `gpucoder.reduce` operator that is not a handle to a local function |
//! | E0114 | a `gpucoder.reduce` function that is not binary or does not keep the class |
//! | E0115 | a format (`fprintf`, `error`, `sprintf`, ...) that is not text, whose host application would take complex values, or whose `%s` precision cuts a non-ASCII character of a literal |
//! | E0116 | a `coder.gpu.constantMemory` argument that is not an input of the entry function |
//! | E0117 | a string scalar `"text"` used where MATLAB would treat it as a string, not as a char vector |
//! | E0118 | a `switch` that compares text with a number |
//! | E0120 | an `error`, `warning`, `assert` or `disp` call whose result m2cu cannot make exact |
//! | E0122 | a read of an entry input that the call did not pass (`nargin` is smaller) |
//! | E0125 | a recursive call (direct or through other functions, across files too), naming the cycle |
//! | E0126 | a function file that exists but cannot be read |
//! | E0127 | `clear`/`clearvars` inside a function |
//! | E0130 | local-function calls nested more than `inline::MAX_CALL_DEPTH` deep |
//! | E0131 | a program that inlines to more than `inline::MAX_LOWERED_NODES` IR nodes |
//! | E0132 | a variable that changes between scalar and array inside a loop or branch |
//! | E0135 | `A(i, j) = v` that may give more rows (columns) to a vector created by `A(k) = v` |
//! | E0136 | an array created by index in a local function called in a loop |
//! | E0138 | indexing with a char array or a matrix of indices |
//! | E0140 | a complex value of a class other than double (`complex`) |
//! | E0141 | a complex value where m2cu keeps real values only (`complex`) |
//! | E0142 | an operation m2cu does not define on complex values (`complex`) |
//! | E0143 | a whole-array operation whose result depends on Octave's run-time narrowing (`complex_array`) |
//! | E0144 | a reduction of complex values m2cu does not lower (`prod`, along a dimension) (`complex_array`) |
//! | E0157 | a function handle used as a value, chosen at run time, or as text (`func2str`) |
//! | E0158 | `feval`/`arrayfun` of a function not known at translation time, or with unsupported options |
//! | E0159 | `@name` of a function m2cu does not know |
//! | E0160 | a deletion with two non-colon subscripts, `A(i, j) = []` (MATLAB's error too) |
//! | E0161 | deleting from a scalar, a 3-D array (other than its pages, `A(:, :, k) = []`), an array of fixed extents, or with three subscripts |
//! | E0162 | deleting every element with `:`, `x(:) = []` |
//! | E0163 | a call of a handle chosen at run time whose functions give results of different classes or kinds |
//! | E0164 | `isspace`/`isletter`/`isstrprop` of a value that is not char, or an `isstrprop` class m2cu does not know |
//! | E0166 | a cell of texts used other than as `c{k}` or by its shape, or not assigned once as a row or column of non-empty text literals |
//! | E0167 | a MATLAB function that m2cu does not support yet (`lower::unknown_names`), with the nearest supported alternative |

mod accumulators;
mod array;
mod assign;
mod ast_build;
mod atomics;
mod build;
mod cell_values;
mod cells;
mod charclass;
mod class_query;
mod complex;
mod complex_array;
pub mod complex_io;
mod complex_sum;
mod concat;
mod console;
mod constants;
mod control;
mod custom;
mod declared;
mod delete;
mod diag;
mod directives;
mod dot_trace;
mod early_return;
mod emptyloop;
mod expr;
mod fields;
mod fill;
mod find;
mod flip_repmat;
mod fuse;
mod grow;
mod grow_slices;
mod grow_start;
mod handles;
mod inline;
mod integral;
mod linspace;
mod mean_empty;
mod mtimes;
mod norm;
mod nthroot;
mod numtext;
mod optional;
mod power;
mod print;
mod raise;
mod range_bounds;
mod range_class;
mod reassign;
mod reduce;
mod reduce_flags;
mod reduce_pages;
mod relaxation;
mod rewrite;
mod select;
mod show;
mod sizes;
mod slices;
mod small_vectors;
mod split;
mod stencil;
mod text;
mod timer;
mod trailing;
mod undefined;
mod unknown_names;

use std::collections::{HashMap, HashSet};

use la_arena::Arena;

use constants::constant;

use crate::ast::{self, BinaryOp, ExprKind as AstExpr, StmtKind as AstStmt, UnaryOp};
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::ir::{
    BinOp, Block, Builtin, Expr, ExprId, ExprKind, Function, InlinedCall, Local, LocalId,
    LoopPragma, Module, SizeQuery, Stmt, StmtId, StmtKind, UnOp,
};
use crate::types::{Class, Dim, Shape, Type};

/// What lowering needs besides the AST.
#[derive(Clone, Debug, Default)]
pub struct LowerOptions {
    /// The function to translate; the file's first function when `None`.
    pub entry: Option<String>,
    /// Input types by parameter name. They take precedence over an `arguments` block.
    pub input_types: Vec<(String, Type)>,
    /// The function files the program may call (`helper.m` for `helper(x)`).
    pub library: crate::library::Library,
    /// How many inputs the entry is called with (its `nargin`): the first that many parameters.
    /// All of them when `None`.
    pub nargin: Option<usize>,
}

/// Every function a call may name that lowering translates, by itself or from m2cu's own
/// library (`crate::bundled`, less its `m2cu_` helpers): what `crate::catalog::FUNCTIONS`
/// lists. Functions that lowering knows only to refuse (I/O, `eval`, `func2str`) are not here.
pub fn translated_functions() -> Vec<&'static str> {
    let mut names: Vec<&'static str> = reduce::Reduction::ALL.map(|r| r.name()).to_vec();
    names.extend(Builtin::ALL.map(Builtin::name));
    names.extend(crate::ir::Elementary::ALL.map(|e| e.name()));
    names.extend(Class::ALL.map(Class::name));
    names.extend(fill::FILLERS.map(|(name, _, _)| name));
    names.extend(constants::CLASS_CONSTANTS);
    names.extend(class_query::CLASS_TESTS);
    names.extend(sizes::SIZE_FUNCTIONS);
    names.extend(expr::LOWERED_FUNCTIONS);
    names.extend(expr::OTHER_CALLS);
    names.extend(charclass::CHAR_CLASS_FUNCTIONS);
    names.extend(raise::HOST_STATEMENTS);
    names.extend(split::SPLIT_FUNCTIONS);
    names.extend(cells::CELL_FUNCTIONS);
    names.extend(timer::TIMER_FUNCTIONS);
    names.extend(fields::STRUCT_FUNCTIONS);
    names.extend(optional::ARGUMENT_COUNTS);
    names.extend(directives::CODER_DIRECTIVES);
    names.push(custom::GPUCODER_REDUCE);
    names.push(stencil::GPUCODER_STENCIL);
    names.extend(atomics::names());
    names.push(atomics::GPUCODER_SORT);
    names.extend(crate::bundled::names().filter(|n| !n.starts_with("m2cu_")));
    names.sort_unstable();
    names.dedup();
    names
}

/// Lowers the entry function of `file` to the typed IR. An attempt that finds a real variable
/// becoming complex starts again with it complex from the start (`complex`).
///
/// Struct arrays are rewritten first (`crate::struct_arrays`); an attempt that finds a text
/// stored into a field taken for numbers starts again with that field a text field.
pub fn lower(file: &ast::File, options: &LowerOptions) -> Result<Module, Diagnostics> {
    let mut text_fields = HashSet::new();
    loop {
        let mut rewritten_file = file.clone();
        let rewritten =
            crate::struct_arrays::rewrite_functions(&mut rewritten_file.functions, &text_fields);
        if !rewritten.refusals.is_empty() {
            let mut diags = Diagnostics::default();
            rewritten.refusals.into_iter().for_each(|d| diags.push(d));
            return Err(diags);
        }
        let file = &rewritten_file;
        let function = select_entry(file, options)?;
        let mut complex_locals = complex::ComplexLocals::new();
        let fields = &rewritten.numeric_values;
        loop {
            match lower_attempt(file, function, options, &complex_locals, fields) {
                Attempt::Widened(names) if !names.is_subset(&complex_locals) => {
                    complex_locals.extend(names)
                }
                Attempt::Widened(_) => unreachable!("a widened name is complex from the start"),
                Attempt::TextFields(names) if !names.is_subset(&text_fields) => {
                    text_fields.extend(names);
                    break;
                }
                Attempt::TextFields(_) => unreachable!("a text field is one from the start"),
                Attempt::Done(result) => return result,
            }
        }
    }
}

/// The end of one lowering attempt.
enum Attempt {
    Done(Result<Module, Diagnostics>),
    /// These struct-array fields (`s.f`) hold texts: rewrite and lower again with them text
    /// fields.
    TextFields(HashSet<String>),
    /// These real locals became complex: lower again with them complex.
    Widened(complex::ComplexLocals),
}

fn lower_attempt(
    file: &ast::File,
    function: &ast::Function,
    options: &LowerOptions,
    complex_locals: &complex::ComplexLocals,
    field_values: &HashMap<String, String>,
) -> Attempt {
    let entry = inline::Callee { file, function };
    let mut lowerer = Lowerer::new(entry, &options.library);
    lowerer.scope.names_used = std::rc::Rc::new(NameUses::of(function));
    lowerer.complex_locals = complex_locals.clone();
    lowerer.field_values = field_values.clone();
    lowerer.arg_counts = optional::ArgCounts {
        nargin: options.nargin.unwrap_or(function.params.len()),
        nargout: function.outputs.len(),
    };
    lowerer.declare_params(function, options);
    if lowerer.diags.has_errors() {
        // Without input types every later message would be noise.
        return Attempt::Done(Err(lowerer.diags));
    }
    lowerer.open_block();
    for s in &function.body {
        if lowerer.halted {
            break;
        }
        lowerer.stmt(s);
    }
    if !lowerer.widened.is_empty() {
        return Attempt::Widened(lowerer.widened);
    }
    if !lowerer.text_fields.is_empty() {
        return Attempt::TextFields(lowerer.text_fields);
    }
    lowerer.check_outputs_not_empty(&function.outputs);
    let mut body = lowerer.close_block();
    // Each persistent variable starts unassigned when the program starts.
    let prologue = std::mem::take(&mut lowerer.declarations.prologue);
    body.0.splice(0..0, prologue);
    if !lowerer.diags.has_errors() {
        lowerer.declare_outputs(function);
    }
    if lowerer.diags.has_errors() {
        return Attempt::Done(Err(lowerer.diags));
    }
    let pending = std::mem::take(&mut lowerer.class_pending);
    let names = std::mem::take(&mut lowerer.matlab_names);
    let calls = std::mem::take(&mut lowerer.call_entries);
    let mut diags = Diagnostics::default();
    let mut entry = lowerer.finish(body);
    complex::check_uses(&entry, &mut diags);
    if diags.has_errors() {
        return Attempt::Done(Err(diags));
    }
    complex_sum::split(&mut entry);
    complex_io::track_kept(&mut entry);
    undefined::guard_scalars(
        &mut entry,
        &undefined::Facts {
            names: &names,
            pending: &pending,
            calls: &calls,
        },
    );
    small_vectors::replace(&mut entry);
    accumulators::promote(&mut entry);
    relaxation::version(&mut entry);
    fuse::fuse(&mut entry);
    integral::mark_loops(&mut entry);
    integral::mark_bounded(&mut entry);
    Attempt::Done(Ok(Module {
        functions: vec![entry],
    }))
}

fn select_entry<'f>(
    file: &'f ast::File,
    options: &LowerOptions,
) -> Result<&'f ast::Function, Diagnostics> {
    let Some(name) = &options.entry else {
        return file.functions.first().ok_or_else(|| {
            Diagnostic::error("E0100", Span::default(), "the file defines no function")
                .with_help("start the file with `function y = name(x)`")
                .into()
        });
    };
    file.functions
        .iter()
        .find(|f| &f.name.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = file
                .functions
                .iter()
                .map(|f| f.name.name.as_str())
                .collect();
            let span = file
                .functions
                .first()
                .map_or(Span::default(), |f| f.name.span);
            Diagnostic::error(
                "E0100",
                span,
                format!("no function named `{name}` in this file"),
            )
            .with_label("the file's first function")
            .with_help(format!("the file defines: {}", names.join(", ")))
            .into()
        })
}

/// Calls that MATLAB programs use for I/O or plotting, rejected with a specific message.
const IO_FUNCTIONS: &[&str] = &[
    "printf", "plot", "figure", "hold", "input", "keyboard", "load", "save",
];

/// Where an `end` inside an index refers to: the indexed array, the position, and the count.
#[derive(Clone, Copy)]
struct IndexContext {
    array: LocalId,
    position: usize,
    count: usize,
}

/// The state that belongs to the function body being lowered (the entry's, or an inlined
/// callee's), which `inline::Lowerer::enter` replaces and `leave` restores.
/// What the statements of one function (its nested functions too) do with its variables,
/// by name: MATLAB's variables belong to their function, so each function lowered, the entry
/// or an inlined callee, has its own (`Scope::names_used`).
#[derive(Default)]
struct NameUses {
    /// Names assigned with `x(end+k) = v`: their lengths vary.
    grown: HashSet<String>,
    /// Names whose rows, columns or pages are deleted (`A(i, :) = []`, `A(:, :, k) = []`):
    /// both extents of a 2-D one vary, a 1 too; a 3-D one's pages vary.
    cut: HashSet<String>,
    /// Names grown by a row (`T(end+1, :) = v`) or a column (`R(:, end+1) = v`): that extent
    /// varies even where it starts at 1 (`T = row` then rows appended).
    rows_appended: HashSet<String>,
    cols_appended: HashSet<String>,
    /// Names assigned char literals of other than one character (`text`).
    text_names: HashSet<String>,
    /// Names assigned by index: a 1-by-1 `zeros`/`ones` of one is an array whose length is 1
    /// at run time, not a scalar.
    indexed: HashSet<String>,
    /// `for` variables read after their loops (`emptyloop`).
    empty_flagged: HashSet<String>,
    /// Cells whose contents are assigned, `c{k} = v` (`cells`).
    contents_assigned: HashSet<String>,
}

impl NameUses {
    fn of(function: &ast::Function) -> NameUses {
        let functions = std::slice::from_ref(function);
        let mut uses = NameUses {
            grown: assign::grown_names(functions),
            cut: delete::cut_names(functions),
            rows_appended: grow_slices::rows_appended(functions),
            cols_appended: grow_slices::cols_appended(functions),
            text_names: text::text_names(functions),
            indexed: assign::index_targets(functions, |_| true),
            empty_flagged: emptyloop::loop_variables_read_after(functions),
            contents_assigned: cells::contents_assigned(functions),
        };
        // A cell whose contents are assigned grows its three parts (`cells`).
        for name in &uses.contents_assigned {
            for prefix in [cells::TEXT, cells::START, cells::LEN] {
                uses.grown.insert(format!("{prefix}{name}"));
            }
            uses.text_names.insert(format!("{}{name}", cells::TEXT));
            uses.indexed.insert(format!("{}{name}", cells::START));
            uses.indexed.insert(format!("{}{name}", cells::LEN));
        }
        uses
    }
}

#[derive(Default)]
struct Scope<'a> {
    /// The variables in scope by MATLAB name.
    names: HashMap<String, LocalId>,
    /// Names holding function handles (`handles`), scoped like `names`.
    handles: handles::Handles<'a>,
    /// Loop variables of the enclosing `for` loops, innermost last.
    loop_vars: Vec<LocalId>,
    /// Number of enclosing loops (`for` and `while`).
    loop_depth: usize,
    /// The names each enclosing loop's body assigns, outermost first: their types may still
    /// change in a later pass through the body, so no query decides from them.
    loop_assigned: Vec<HashSet<String>>,
    /// What the statements of the function being lowered do with its variables' names.
    names_used: std::rc::Rc<NameUses>,
    /// Where an `end` inside the index being lowered refers to, innermost last.
    index_context: Vec<IndexContext>,
    /// Prefix of the IR names of new locals: empty in the entry function, `_<callee>_` while
    /// a local function is inlined.
    prefix: String,
    /// The inlined calls that lead here from the entry, each as `callee@offset/` (the call's
    /// source offset): with a local's name, what tells one call's locals from another's when
    /// a lowering attempt makes one of them complex (`complex::widening_key`).
    call_path: String,
    /// Names declared `global` or `persistent` in this function (`declared`).
    declared: HashMap<String, ast::Declared>,
}

struct Lowerer<'a> {
    /// The file whose function is being lowered: the entry's, or a function file's while one
    /// of its functions is inlined.
    file: &'a ast::File,
    /// The entry function and its file.
    entry: inline::Callee<'a>,
    library: &'a crate::library::Library,
    locals: Arena<Local>,
    exprs: Arena<Expr>,
    stmts: Arena<Stmt>,
    /// What names mean where lowering is: saved and replaced while a call is inlined.
    scope: Scope<'a>,
    params: Vec<LocalId>,
    outputs: Vec<LocalId>,
    diags: Diagnostics,
    /// Each error reported once (code, span, message): a local function inlined at many calls
    /// lowers its body again at each, and would repeat its errors as often.
    reported: HashSet<(&'static str, u32, u32, String)>,
    /// Errors reported, repeats included (a callee's body failed when this grew).
    errors: usize,
    /// The blocks being filled, innermost last (see [`Self::push`]).
    emitted: Vec<Vec<StmtId>>,
    /// Counter for the names of compiler temporaries (`_t1`, `_k2`, ...), which no MATLAB
    /// identifier can equal because they start with `_`.
    temps: u32,
    /// The locals that have been the variable of a `for` loop.
    looped: HashSet<LocalId>,
    /// The functions being inlined, outermost first.
    inlining: Vec<&'a ast::Function>,
    /// The call of the user's code that led into m2cu's own library, while its functions are
    /// inlined (`inline::library_refusal` reports there).
    library_call: Option<Span>,
    /// The library call whose use `m2cu_refuse` refused: errors in the rest of its inlined
    /// code follow from that use and are counted, not shown.
    refused_call: Option<Span>,
    /// The entry's top level took a branch decided at translation time that always raises an
    /// error (`if nargin < 2, error(...); end`): the statements after it never run, and are
    /// not lowered (an omitted input they read is no E0122).
    halted: bool,
    /// Names whose assignment failed with a diagnostic and that have no value since: reading
    /// them reports nothing more (`assign::unassigned_after_error`).
    failed_targets: HashSet<String>,
    /// `frames.len()` in the straight-line part of the body being lowered (the entry's, or an
    /// inlined function's): where a literal cell's texts are known when translating (`cells`).
    body_frame: usize,
    /// The texts of each text cell, keyed by its lengths local (`cells`).
    cell_texts: HashMap<LocalId, Vec<String>>,
    /// The `c{k}` lowered so far (each gets an index local of its own).
    cell_index_counter: u32,
    /// How many temporary cells `str2double(strsplit(...))` has made (`lower::split`).
    split_temporaries: u32,
    /// Whether inlining stopped at its size budget (see `inline::MAX_LOWERED_NODES`).
    over_budget: bool,
    /// MATLAB Coder's directives and `gpucoder.reduce`'s functions (`directives`).
    directives: directives::Directives,
    /// The flag "is empty" of each such variable.
    empty_flags: HashMap<LocalId, LocalId>,
    /// Set while `disp(num2str(A))` lowers its `num2str`, which then shows every row of a
    /// matrix (`PrintPiece::NumberRow::lines`); taken by the first `num2str` lowered.
    num2str_lines: bool,
    /// The program's timer, which `tic` sets (`timer`): one for every function, as MATLAB's.
    timer: Option<LocalId>,
    /// The program's `global` and `persistent` variables (`declared`).
    declarations: declared::Declarations,
    /// While an elementwise condition is lowered: the flags of the variables it reads.
    empty_reads: Option<Vec<LocalId>>,
    /// Variables assigned a string scalar (`mode = "fast"`): held as char vectors, and read
    /// only where MATLAB treats a string like its char vector (see `text`).
    string_locals: HashSet<LocalId>,
    /// Each variable's MATLAB name (without an inlined function's prefix).
    matlab_names: HashMap<LocalId, String>,
    /// Whether the variable being read is a text operand (`strcmp`, `switch`, `%s`).
    reading_text: bool,
    /// Arrays created or grown by indexed assignment (`grow`).
    growth: grow::Growth,
    /// The entry function's outputs.
    output_names: Vec<ast::Ident>,
    /// `nargin` and `nargout` of the function being lowered (`optional`).
    arg_counts: optional::ArgCounts,
    /// Parameters of the function being lowered that its call does not pass.
    omitted: Vec<String>,
    /// The frames of the blocks in `emitted`, index for index (`reassign`).
    frames: Vec<reassign::Frame>,
    /// Frames started so far (the last frame's id).
    frame_count: u32,
    /// The range of the `for` loop whose body the next frame is.
    loop_range: Option<reassign::LoopRange>,
    /// The frame id that created each named local.
    homes: HashMap<LocalId, u32>,
    /// Locals complex from their first assignment (`complex`).
    complex_locals: complex::ComplexLocals,
    /// Real locals this attempt found assigned a complex value (`complex`).
    widened: complex::ComplexLocals,
    /// See `crate::struct_arrays::Rewritten::numeric_values` (of the entry's file).
    field_values: HashMap<String, String>,
    /// Struct-array fields found to hold texts (`Lowerer::text_in_numeric_field`).
    text_fields: HashSet<String>,
    /// The parameters of inlined calls that hold a number given at the call (`step(a, b,
    /// false)`, or such a parameter of the caller passed on) and that the callee never assigns:
    /// an `if` on them is decided at translation time (`lower::optional`).
    constant_params: HashMap<LocalId, f64>,
    /// Each named local's key in `widened` and `complex_locals`.
    widening_keys: HashMap<LocalId, String>,
    /// `Function::fresh_writes`.
    fresh_writes: Vec<StmtId>,
    /// Accumulators typed with the class of an update that may not run (`reassign`).
    class_pending: Vec<reassign::ClassPending>,
    /// Where each inlined call starts, with the callee's locals (`undefined`).
    call_entries: Vec<undefined::CallEntry>,
    /// `Function::inlined_calls`.
    inlined_calls: Vec<InlinedCall>,
    name: String,
    span: Span,
}

/// `error('...')` or `error(id, fmt, ...)` with a non-empty literal first argument: a statement
/// that always stops the call (`error('')` does nothing in MATLAB).
fn always_raises(stmt: &ast::Stmt) -> bool {
    let AstStmt::Expr(ast::Expr {
        kind: AstExpr::Call { callee, args },
        ..
    }) = &stmt.kind
    else {
        return false;
    };
    callee.name == "error"
        && matches!(args.first().map(|a| &a.kind), Some(AstExpr::Str(text)) if !text.is_empty())
}

impl<'a> Lowerer<'a> {
    fn new(entry: inline::Callee<'a>, library: &'a crate::library::Library) -> Lowerer<'a> {
        let (file, function) = (entry.file, entry.function);
        Lowerer {
            file,
            entry,
            library,
            locals: Arena::new(),
            exprs: Arena::new(),
            stmts: Arena::new(),
            scope: Scope::default(),
            params: Vec::new(),
            outputs: Vec::new(),
            diags: Diagnostics::default(),
            reported: HashSet::new(),
            errors: 0,
            emitted: Vec::new(),
            temps: 0,
            looped: HashSet::new(),
            inlining: Vec::new(),
            library_call: None,
            refused_call: None,
            halted: false,
            failed_targets: HashSet::new(),
            body_frame: 1,
            cell_texts: HashMap::new(),
            cell_index_counter: 0,
            split_temporaries: 0,
            over_budget: false,
            directives: directives::Directives::default(),
            empty_flags: HashMap::new(),
            timer: None,
            num2str_lines: false,
            declarations: declared::Declarations::default(),
            empty_reads: None,
            string_locals: HashSet::new(),
            matlab_names: HashMap::new(),
            reading_text: false,
            growth: grow::Growth::new(),
            output_names: function.outputs.clone(),
            arg_counts: optional::ArgCounts::default(),
            omitted: Vec::new(),
            frames: Vec::new(),
            frame_count: 0,
            loop_range: None,
            homes: HashMap::new(),
            complex_locals: complex::ComplexLocals::new(),
            widened: complex::ComplexLocals::new(),
            field_values: HashMap::new(),
            text_fields: HashSet::new(),
            widening_keys: HashMap::new(),
            constant_params: HashMap::new(),
            fresh_writes: Vec::new(),
            inlined_calls: Vec::new(),
            class_pending: Vec::new(),
            call_entries: Vec::new(),
            name: function.name.name.clone(),
            span: function.span,
        }
    }

    fn finish(self, body: Block) -> Function {
        Function {
            name: self.name,
            locals: self.locals,
            exprs: self.exprs,
            stmts: self.stmts,
            params: self.params,
            outputs: self.outputs,
            body,
            span: self.span,
            pragmas: self.directives.pragmas,
            constant_memory: self.directives.constant_memory,
            combiners: self.directives.combiners,
            notes: self.growth.notes,
            undefined_names: Vec::new(),
            complex_outputs: Vec::new(),
            fresh_writes: self.fresh_writes,
            inlined_calls: self.inlined_calls,
        }
    }

    fn error(&mut self, code: &'static str, span: Span, message: String, help: String) {
        self.report(Diagnostic::error(code, span, message).with_help(help));
    }

    /// Records `d` unless the same one was reported before.
    fn report(&mut self, d: Diagnostic) {
        self.errors += usize::from(d.is_error());
        if d.is_error() && self.library_call.is_some() && self.library_call == self.refused_call {
            return;
        }
        if self
            .reported
            .insert((d.code, d.span.start, d.span.end, d.message.clone()))
        {
            self.diags.push(d);
        }
    }

    fn unsupported(&mut self, span: Span, what: &str, help: &str) {
        self.error(
            "E0103",
            span,
            format!("{what} is not supported"),
            help.to_string(),
        );
    }

    // ----- declarations -------------------------------------------------------------------

    fn declare_params(&mut self, function: &ast::Function, options: &LowerOptions) {
        if self.variable_arguments(function) {
            return;
        }
        let (passed, omitted) = function
            .params
            .split_at(self.arg_counts.nargin.min(function.params.len()));
        self.omitted = omitted.iter().map(|p| p.name.clone()).collect();
        for param in passed {
            if param.name == "~" {
                self.unsupported(
                    param.span,
                    "an ignored input (`~`)",
                    "give the input a name",
                );
                continue;
            }
            let ty = self.param_type(function, param, options);
            let id = self.new_local(
                &param.name,
                ty.unwrap_or(Type::scalar(Class::Double)),
                param.span,
            );
            self.params.push(id);
        }
    }

    fn param_type(
        &mut self,
        function: &ast::Function,
        param: &ast::Ident,
        options: &LowerOptions,
    ) -> Option<Type> {
        if let Some((_, ty)) = options.input_types.iter().find(|(n, _)| n == &param.name) {
            return Some(*ty);
        }
        if let Some(decl) = function
            .arguments
            .iter()
            .find(|d| d.name.name == param.name)
        {
            return self.declared_type(decl);
        }
        self.error(
            "E0101",
            param.span,
            format!("the type of input `{}` is unknown", param.name),
            format!(
                "declare it in an `arguments` block (`{0} (1,:) double`) or pass `--args '{0}=double(1,:)'`{1}",
                param.name,
                omit_hint(function, param)
            ),
        );
        None
    }

    fn declared_type(&mut self, decl: &ast::ArgDecl) -> Option<Type> {
        let class = match &decl.class {
            Some(c) if c.name == "function_handle" => {
                self.handle_input(decl);
                return None;
            }
            None => Class::Double,
            Some(c) => match Class::from_name(&c.name) {
                Some(class) => class,
                None => {
                    self.error(
                        "E0109",
                        c.span,
                        format!("`{}` is not a supported class for an input", c.name),
                        "use double, single, logical, char or an integer class such as int32"
                            .into(),
                    );
                    return None;
                }
            },
        };
        let shape = match decl.dims.as_deref() {
            None => Shape::SCALAR,
            Some([r, c]) => Shape::new(dim_of(*r), dim_of(*c)),
            Some([r, c, p]) => Shape::new3(dim_of(*r), dim_of(*c), dim_of(*p)),
            Some(_) => {
                self.error(
                    "E0109",
                    decl.span,
                    format!(
                        "input `{}` must be declared with two or three dimensions",
                        decl.name.name
                    ),
                    "write the size as (rows,cols) or (rows,cols,pages), for example (1,:)".into(),
                );
                return None;
            }
        };
        Some(Type::array(class, shape))
    }

    fn declare_outputs(&mut self, function: &ast::Function) {
        for output in &function.outputs {
            match self.scope.names.get(&output.name).copied() {
                Some(id) if self.returnable(id, output) => self.outputs.push(id),
                Some(_) => {}
                None if self.handle_output(output) => {}
                None if self.is_struct(&output.name) => {
                    self.struct_output(output, "the function m2cu translates")
                }
                None if self.is_text_cell(&output.name) => {
                    self.cell_refused(
                        output.span,
                        &format!("the output `{}`, a cell of texts, returned by the function m2cu translates", output.name),
                        "return arrays: the texts joined (strjoin(c, sep)), or a char matrix, or the numbers the texts stand for",
                    );
                }
                // The call always raises first: the output is a placeholder never returned.
                None if self.halted => {
                    let id = self.new_local(&output.name, Type::scalar(Class::Double), output.span);
                    self.outputs.push(id);
                }
                None => self.error(
                    "E0102",
                    output.span,
                    format!("output `{}` is never assigned", output.name),
                    format!("assign a value to `{}` in the function body", output.name),
                ),
            }
        }
    }

    fn new_local(&mut self, name: &str, ty: Type, span: Span) -> LocalId {
        let mut ty = self.complex_if_widened(name, ty);
        if self.scope.names_used.grown.contains(name) && !ty.shape.is_3d() {
            // `x(end+1) = v` or `x(k) = []` somewhere: the length is known only at run time.
            let cut = self.scope.names_used.cut.contains(name);
            let open = |d: Dim, appended: bool| {
                if d == Dim::Known(1) && !cut && !appended {
                    d
                } else {
                    Dim::Var
                }
            };
            ty.shape = Shape::new(
                open(
                    ty.shape.rows,
                    self.scope.names_used.rows_appended.contains(name),
                ),
                open(
                    ty.shape.cols,
                    self.scope.names_used.cols_appended.contains(name),
                ),
            );
        }
        if self.scope.names_used.cut.contains(name) && ty.shape.is_3d() {
            // `A(:, :, k) = []` somewhere: the pages are known only at run time.
            ty.shape.pages = Dim::Var;
        }
        // A variable of an inlined function is shown by its name there, a hidden one of m2cu's
        // (`_cell_text_c`) by the source it was made for.
        let shown = match (self.scope.prefix.is_empty(), name.starts_with('_')) {
            (false, _) => crate::ir::Shown::Renamed(name.to_string()),
            (true, true) => crate::ir::Shown::Source(span),
            (true, false) => crate::ir::Shown::Name,
        };
        let id = self.locals.alloc(Local {
            name: format!("{}{name}", self.scope.prefix),
            ty,
            span,
            integral: false,
            loop_integral: false,
            shown,
        });
        self.widening_keys.insert(id, self.widening_key(name));
        self.scope.names.insert(name.to_string(), id);
        self.matlab_names.insert(id, name.to_string());
        self.record_home(id);
        self.flag_if_loop_variable(name, id, span);
        id
    }

    // ----- statements ---------------------------------------------------------------------

    fn block(&mut self, stmts: &[ast::Stmt]) -> Block {
        self.open_block();
        for s in stmts {
            self.stmt(s);
        }
        self.pragma_left_at_block_end();
        self.close_block()
    }

    fn stmt(&mut self, stmt: &ast::Stmt) -> Option<StmtId> {
        let before = self.handles_before(stmt);
        let lowered = self.stmt_kind(stmt);
        self.handles_after(before, stmt, lowered);
        lowered
    }

    fn stmt_kind(&mut self, stmt: &ast::Stmt) -> Option<StmtId> {
        let span = stmt.span;
        let pragma = self.pragma_before(stmt);
        if let (Some((p, at)), AstStmt::For { var, range, body }) = (pragma, &stmt.kind) {
            let id = self.for_loop(var, range, body, span)?;
            self.directives.pragmas.push((id, p, at));
            return Some(id);
        }
        match &stmt.kind {
            AstStmt::Assign { targets, value } => {
                let id = self.assign(targets, value, span);
                if !self.scope.declared.is_empty() {
                    self.declared_assigned(targets, span);
                }
                if stmt.shown {
                    self.show_targets(targets, span);
                }
                id
            }
            AstStmt::For { var, range, body } => self.for_loop(var, range, body, span),
            AstStmt::While { cond, body } => self.while_loop(cond, body, span),
            AstStmt::If { clauses, else_body } => {
                self.if_chain(clauses, else_body.as_deref(), span)
            }
            AstStmt::Break | AstStmt::Continue => self.loop_exit(&stmt.kind, span),
            AstStmt::Return if !self.inlining.is_empty() => {
                self.unsupported(
                    span,
                    "`return` inside a local function",
                    "restructure the function with if/else so that it ends at its last line",
                );
                None
            }
            AstStmt::Declare { kind, names } => {
                self.declare(*kind, names, span);
                None
            }
            AstStmt::Return => {
                let outputs = self.output_names.clone();
                self.check_outputs_not_empty(&outputs);
                self.push(StmtKind::Return, span)
            }
            AstStmt::Switch {
                subject,
                cases,
                otherwise,
            } => self.switch(subject, cases, otherwise.as_deref(), span),
            AstStmt::Expr(e) => {
                if !(stmt.shown && self.shown_expression(e)) {
                    self.expr_statement(e);
                }
                None
            }
        }
    }

    fn expr_statement(&mut self, e: &ast::Expr) {
        if self.console_statement(e) {
            return;
        }
        let name = match &e.kind {
            AstExpr::Call { callee, .. } => Some(callee.name.as_str()),
            AstExpr::Ident(n) => Some(n.as_str()),
            _ => None,
        };
        if let (Some("m2cu_refuse"), AstExpr::Call { args, .. }) = (name, &e.kind) {
            if self.library_refusal(args) {
                return;
            }
        }
        if let Some(n) = name.filter(|n| n.starts_with("coder.")) {
            let args = match &e.kind {
                AstExpr::Call { args, .. } => args.as_slice(),
                _ => &[],
            };
            self.coder_directive(n, args, e.span);
        } else if let Some(n) = name.filter(|n| self.is_nested_function(n)) {
            self.unsupported(
                e.span,
                &format!("calling the nested function `{n}` as a statement, for its effect on shared variables"),
                "nested functions that change the caller's variables are not supported: return the new values as outputs, `total = add(total, x)`",
            );
        } else if name.is_some_and(|n| self.is_function(n)) {
            self.call_statement(e);
        } else if let (Some(n), AstExpr::Call { args, .. }) =
            (name.filter(|n| raise::HOST_STATEMENTS.contains(n)), &e.kind)
        {
            self.host_statement(n, args, e.span);
        } else if let Some(n) = name
            .filter(|n| timer::TIMER_FUNCTIONS.contains(n) && !self.scope.names.contains_key(*n))
        {
            let args = match &e.kind {
                AstExpr::Call { args, .. } => args.as_slice(),
                _ => &[],
            };
            self.timer_statement(n, args, e.span);
        } else if let Some(n) = name.filter(|n| IO_FUNCTIONS.contains(n)) {
            self.unsupported(
                e.span,
                &format!("`{n}` (I/O, plotting or timing)"),
                "generated code has no console or figures: return the values as outputs instead",
            );
        } else {
            self.expression_statement(e.span);
        }
    }

    /// Lowers the expression statement `e` that has no `;` and shows its value
    /// (`lower::show`): a variable alone as itself, any other value as `ans`; `false` for a
    /// statement without a value (`disp(x)`, `fprintf(...)`, `close all`, a call of a function
    /// of the program that returns nothing, a MATLAB Coder directive).
    fn shown_expression(&mut self, e: &ast::Expr) -> bool {
        let (name, is_call) = match &e.kind {
            AstExpr::Ident(n) => (Some(n.as_str()), false),
            AstExpr::Call { callee, .. } => (Some(callee.name.as_str()), true),
            _ => (None, false),
        };
        if let (Some(n), false) = (name, is_call) {
            if self.scope.names.contains_key(n)
                || self.is_text_cell(n)
                || self.scope.handles.contains_key(n)
                || self.is_struct(n)
            {
                let ident = ast::Ident {
                    name: n.to_string(),
                    span: e.span,
                };
                self.show_variable(&ident, e.span);
                return true;
            }
        }
        let statement_only = name.is_some_and(|n| {
            raise::HOST_STATEMENTS.contains(&n)
                || IO_FUNCTIONS.contains(&n)
                || (timer::TIMER_FUNCTIONS.contains(&n) && !self.scope.names.contains_key(n))
                || console::is_console_command(n)
                || n.starts_with("coder.")
                || n == "m2cu_refuse"
                || (self.is_function(n) && !self.returns_values(n))
        });
        if statement_only {
            return false;
        }
        if let Some(value) = self.value(e) {
            self.show_value("ans", value, e.span);
        }
        true
    }

    fn expression_statement(&mut self, span: Span) {
        self.unsupported(
            span,
            "an expression statement",
            "assign the value to a variable, or return it as an output",
        );
    }

    fn loop_exit(&mut self, kind: &AstStmt, span: Span) -> Option<StmtId> {
        if self.scope.loop_depth == 0 {
            let word = if matches!(kind, AstStmt::Break) {
                "break"
            } else {
                "continue"
            };
            self.error(
                "E0108",
                span,
                format!("`{word}` outside a loop"),
                format!("`{word}` may only appear inside a `for` or `while` loop"),
            );
            return None;
        }
        let kind = if matches!(kind, AstStmt::Break) {
            StmtKind::Break
        } else {
            StmtKind::Continue
        };
        self.push(kind, span)
    }

    fn while_loop(&mut self, cond: &ast::Expr, body: &[ast::Stmt], span: Span) -> Option<StmtId> {
        self.open_block();
        let cond = self.condition(cond);
        let pre = self.close_block();
        let body = self.loop_body(body);
        if pre.0.is_empty() {
            return self.push(StmtKind::While { cond: cond?, body }, span);
        }
        self.retested_while(pre, cond?, body, span)
    }

    /// The statements of a loop's body. An array variable that the body assigns and that has an
    /// extent known to be 0 now (`acc = zeros(1, 0)` or `first = ''` before the loop) has that
    /// extent unknown from here: a later pass through the body may see it filled, so nothing
    /// in the body may fold it (`if isempty(first), first = name; end`).
    fn loop_body(&mut self, body: &[ast::Stmt]) -> Block {
        let assigned = grow::assigned_names(body);
        for name in &assigned {
            if let Some(&id) = self.scope.names.get(name) {
                let shape = &mut self.locals[id].ty.shape;
                *shape = shape.zero_extents_unknown();
            }
        }
        self.scope.loop_depth += 1;
        self.scope.loop_assigned.push(assigned);
        let block = self.block(body);
        self.scope.loop_assigned.pop();
        self.scope.loop_depth -= 1;
        block
    }

    fn if_chain(
        &mut self,
        clauses: &[(ast::Expr, Vec<ast::Stmt>)],
        else_body: Option<&[ast::Stmt]>,
        span: Span,
    ) -> Option<StmtId> {
        let ((cond, body), rest) = clauses.split_first()?;
        match self.static_condition(cond) {
            Some(true) => return self.taken_branch(body),
            Some(false) if rest.is_empty() => {
                return self.taken_branch(else_body.unwrap_or_default())
            }
            Some(false) => return self.if_chain(rest, else_body, span),
            None => {}
        }
        let cond = self.condition(cond);
        let then_body = self.block(body);
        let else_body = if rest.is_empty() {
            else_body.map(|b| self.block(b)).unwrap_or_default()
        } else {
            let nested_span = Span {
                start: rest[0].0.span.start,
                end: span.end,
            };
            self.open_block();
            self.if_chain(rest, else_body, nested_span);
            self.close_block()
        };
        self.push(
            StmtKind::If {
                cond: cond?,
                then_body,
                else_body,
            },
            span,
        )
    }

    /// The statements of the branch an `if` decided at translation time takes, in place.
    fn taken_branch(&mut self, body: &[ast::Stmt]) -> Option<StmtId> {
        for s in body {
            self.stmt(s);
        }
        let at_entry_top = self.emitted.len() == 1 && self.inlining.is_empty();
        if at_entry_top && body.last().is_some_and(always_raises) {
            self.halted = true;
        }
        None
    }

    fn loop_var(&mut self, var: &ast::Ident, ty: Type) -> Option<LocalId> {
        match self.scope.names.get(&var.name).copied() {
            None => Some(self.new_local(&var.name, ty, var.span)),
            Some(id) if self.scope.loop_vars.contains(&id) => {
                self.error(
                    "E0103",
                    var.span,
                    format!("loop variable `{}` is reused by a nested loop", var.name),
                    "give the inner loop its own variable".into(),
                );
                None
            }
            Some(id) if self.locals[id].ty == ty && !self.params.contains(&id) => Some(id),
            // `b = find(...)` in one loop, `for b = 1:n` after it: MATLAB's `b` takes the
            // loop's values, a new local here.
            Some(id) if !self.params.contains(&id) && self.rebinds_here(id) => {
                Some(self.new_local(&var.name, ty, var.span))
            }
            Some(id) => {
                let old = self.locals[id].ty;
                self.error(
                    "E0104",
                    var.span,
                    format!(
                        "`{}` is {old} here but this loop variable is a {ty}",
                        var.name
                    ),
                    "use a new name for the loop variable".into(),
                );
                None
            }
        }
    }

    /// Whether an expression's value is always an integer, judged from constants, sizes, loop
    /// variables with integral ranges, and `+ - *` of these.
    fn is_integral(&self, e: ExprId) -> bool {
        match &self.exprs[e].kind {
            ExprKind::Const(v) => v.fract() == 0.0 && v.is_finite(),
            ExprKind::Size(..) => true,
            ExprKind::Local(l) => {
                let local = &self.locals[*l];
                local.integral || (local.loop_integral && self.scope.loop_vars.contains(l))
            }
            ExprKind::Unary(UnOp::Neg, a) => self.is_integral(*a),
            ExprKind::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul, a, b) => {
                self.is_integral(*a) && self.is_integral(*b)
            }
            ExprKind::Call(Builtin::Floor | Builtin::Ceil | Builtin::Round | Builtin::Fix, _) => {
                true
            }
            _ => false,
        }
    }

    /// Finds or creates the local `name` for a value of type `ty`, checking that the type stays
    /// the same; the variable holds a value from here on, so its empty-loop flag is cleared
    /// (also when this assignment creates it: a later loop over it may have set the flag in an
    /// earlier iteration of an enclosing loop, or never, and the flag is read after it).
    fn define(&mut self, name: &ast::Ident, ty: Type) -> Option<LocalId> {
        let id = self.define_local(name, ty)?;
        self.clear_empty_flag(id, name.span);
        Some(id)
    }

    fn define_local(&mut self, name: &ast::Ident, ty: Type) -> Option<LocalId> {
        let Some(id) = self.scope.names.get(&name.name).copied() else {
            return Some(self.new_local(&name.name, ty, name.span));
        };
        if self.scope.loop_vars.contains(&id) {
            self.error(
                "E0103",
                name.span,
                format!(
                    "assignment to the loop variable `{}` inside its loop",
                    name.name
                ),
                "copy the loop variable into another variable and change that one".into(),
            );
            return None;
        }
        let old = self.locals[id].ty;
        if old.complex != ty.complex {
            return self.complex_reassigned(name, id, ty);
        }
        if old.class != ty.class || old.is_scalar() != ty.is_scalar() {
            return self.changed_type(name, id, ty);
        }
        self.locals[id].ty.shape = join_shapes(old.shape, ty.shape);
        Some(id)
    }

    /// Wraps `e` in a conversion to `class` unless it already has that class.
    fn convert_to(&mut self, e: ExprId, class: Class) -> ExprId {
        let expr = &self.exprs[e];
        if expr.ty.class == class {
            return e;
        }
        let span = expr.span;
        self.exprs.alloc(Expr {
            kind: ExprKind::Convert(e),
            ty: Type::scalar(class),
            span,
        })
    }
}

fn dim_of(d: ast::DimSpec) -> Dim {
    match d {
        ast::DimSpec::Fixed(n) => Dim::Known(n),
        ast::DimSpec::Any => Dim::Var,
    }
}

fn join_shapes(a: Shape, b: Shape) -> Shape {
    let join = |x: Dim, y: Dim| if x == y { x } else { Dim::Var };
    Shape::new3(
        join(a.rows, b.rows),
        join(a.cols, b.cols),
        join(a.pages, b.pages),
    )
}

/// Logical and char operands of arithmetic behave as double.
fn arithmetic_class(class: Class) -> Class {
    match class {
        Class::Logical | Class::Char => Class::Double,
        c => c,
    }
}

fn scalar_op(op: BinaryOp) -> BinOp {
    match op {
        BinaryOp::Add => BinOp::Add,
        BinaryOp::Sub => BinOp::Sub,
        BinaryOp::Mul | BinaryOp::ElemMul => BinOp::Mul,
        BinaryOp::Div | BinaryOp::ElemDiv | BinaryOp::LeftDiv | BinaryOp::ElemLeftDiv => BinOp::Div,
        BinaryOp::Pow | BinaryOp::ElemPow => BinOp::Pow,
        BinaryOp::Eq => BinOp::Eq,
        BinaryOp::Ne => BinOp::Ne,
        BinaryOp::Lt => BinOp::Lt,
        BinaryOp::Le => BinOp::Le,
        BinaryOp::Gt => BinOp::Gt,
        BinaryOp::Ge => BinOp::Ge,
        BinaryOp::And => BinOp::And,
        BinaryOp::Or => BinOp::Or,
        BinaryOp::AndAnd => BinOp::AndAnd,
        BinaryOp::OrOr => BinOp::OrOr,
    }
}

/// Calls `f` on every statement of `body` and of the blocks nested in it, parents first.
fn walk_stmts<'s>(body: &'s [ast::Stmt], f: &mut impl FnMut(&'s ast::Stmt)) {
    for s in body {
        f(s);
        match &s.kind {
            AstStmt::For { body, .. } | AstStmt::While { body, .. } => walk_stmts(body, f),
            AstStmt::If { clauses, else_body } => {
                for (_, b) in clauses {
                    walk_stmts(b, f);
                }
                walk_stmts(else_body.as_deref().unwrap_or_default(), f);
            }
            AstStmt::Switch {
                cases, otherwise, ..
            } => {
                for c in cases {
                    walk_stmts(&c.body, f);
                }
                walk_stmts(otherwise.as_deref().unwrap_or_default(), f);
            }
            AstStmt::Expr(_)
            | AstStmt::Assign { .. }
            | AstStmt::Break
            | AstStmt::Continue
            | AstStmt::Return
            | AstStmt::Declare { .. } => {}
        }
    }
}

/// Calls `f` on every function of the file, nested ones included.
fn for_each_function<'f>(fs: &'f [ast::Function], f: &mut impl FnMut(&'f ast::Function)) {
    for function in fs {
        f(function);
        for_each_function(&function.nested, f);
    }
}

fn strip_parens(e: &ast::Expr) -> &ast::Expr {
    match &e.kind {
        AstExpr::Paren(inner) => strip_parens(inner),
        _ => e,
    }
}

/// For E0101: how to translate for calls that leave out `param` (not for the first input).
fn omit_hint(function: &ast::Function, param: &ast::Ident) -> String {
    match function.params.iter().position(|p| p.name == param.name) {
        Some(i) if i > 0 => {
            format!(", or `--nargin {i}` for calls that pass only the inputs before it")
        }
        _ => String::new(),
    }
}
