//! The statement writer: IR statements → C statements, shared by the CPU program, the GPU host
//! programs and the kernel bodies.
//!
//! Loops count iterations `t = 0 .. n-1` with `n` from MATLAB's colon rule and compute the loop
//! variable as `first + t*step`; every loop also stops when the error status is set, so a failed
//! index check cannot spin forever. What differs between contexts is captured by [`Context`]: the
//! error status expression, and the [`Target`] — what to do with a loop that the plan made a
//! kernel, and how an atomic addition is spelled. The writer itself prints no CUDA and no OpenMP.

use std::collections::{BTreeSet, HashMap, HashSet};

use m2cu_analysis::guards::{Guard, Values};
use m2cu_analysis::scatter::AtomicUpdate;
use m2cu_analysis::scratch::ScratchArray;
use m2cu_analysis::{Analysis, Kernel};
use m2cu_frontend::ir::{
    Block, ExprId, ExprKind, Fill, Function, LocalId, PrintPiece, PrintTo, RuntimeError, StmtId,
    StmtKind,
};
use m2cu_frontend::types::Class;

use crate::code::Code;
use crate::expr::{local_c_type, ExprWriter};
use crate::failure::Failure;
use crate::names::Names;

/// Where the statement writer writes to: the CPU program ([`crate::openmp::OpenMp`]), a GPU host
/// program ([`crate::launch::GpuHost`]) or a kernel body ([`crate::cuda::kernel::Device`]). Each
/// printer spells its own target's text here.
pub trait Target: Sync {
    /// A statement outside the planned loops; by default, written as it is.
    fn statement(&self, ctx: &Context, code: &mut Code, s: StmtId) {
        ctx.plain_stmt(code, s);
    }

    /// Whether the loops the plan made kernels are this target's to place (false inside a
    /// kernel, whose own loop is already placed).
    fn places_kernels(&self) -> bool {
        true
    }

    /// Whether loops whose index checks a guard before them decides run in two versions
    /// (`m2cu_analysis::guards`): the C program's loops only.
    fn versions_loops(&self) -> bool {
        false
    }

    /// The loop the plan made `kernel`.
    fn planned_loop(&self, ctx: &Context, code: &mut Code, kernel: &Kernel);

    /// `element += addend` where other threads may update the same element at once.
    fn atomic_add(&self, code: &mut Code, element: &str, addend: &str);

    /// `array[offset] += addend` through private bins when they are used (`crate::cuda::bins`
    /// in a kernel, the OpenMP thread's bins on the CPU).
    fn binned_add(&self, ctx: &Context, array: LocalId, offset: &str, addend: &str) -> String;
}

/// The host-side names of a kernel's ranges; see [`Context::nest_ranges`].
pub struct NestRanges {
    pub decls: String,
    pub suffixes: Vec<String>,
    pub total: String,
}

#[derive(Clone)]
pub struct Context<'a> {
    pub f: &'a Function,
    pub names: &'a Names,
    pub analysis: &'a Analysis,
    /// `m2cu_status` on the host, `(*m2cu_err)` in kernels.
    pub status: &'a str,
    /// `&m2cu_status` on the host, `m2cu_err` in kernels.
    pub err: &'a str,
    pub target: &'a dyn Target,
    /// The MATLAB source files, for line numbers in comments.
    pub source: Option<&'a m2cu_frontend::sources::SourceMap>,
    /// Extra statements appended to the `then` branch of location-reduction updates.
    pub location_hooks: HashMap<StmtId, String>,
    /// Updates `acc = f(acc, e)` of custom reductions, with the flag saying whether the
    /// thread's accumulator holds a value yet; the first `e` seeds it.
    pub seeded_updates: HashMap<StmtId, String>,
    /// Updates `c = c + 1` of counts a thread holds as `int64_t`
    /// (`crate::model::Counts::InIntegers`): printed `c += 1;`.
    pub integer_counts: HashSet<StmtId>,
    /// Expressions whose values a C name already holds (the factors of a tiled matrix
    /// product, read from shared memory: `crate::cuda::tiles`): printed as that name.
    pub held: HashMap<ExprId, String>,
    /// Whether element reads and writes check their indices (MATLAB's errors) or trust them.
    pub bounds_checks: bool,
    /// Size queries whose array may not be assigned yet (`crate::defined`).
    pub undefined_sizes: &'a HashSet<ExprId>,
    /// See `CodegenOptions::deterministic`.
    pub deterministic: bool,
    /// In a kernel: the histogram array whose updates go to shared-memory bins (`crate::cuda::bins`).
    pub binned: Option<LocalId>,
    /// In an iteration of a parallel loop that may raise `error`: where its `error` statements
    /// record the failure (`crate::raise`).
    pub failure: Option<Failure>,
    /// Whether array stores are left out: a scan's first run of an iteration, which only
    /// learns the iteration's term (`crate::cuda::scan`).
    pub quiet_stores: bool,
    /// In an iteration of a parallel loop: its scratch arrays, whose creation points them at
    /// the thread's own storage ([`Context::declare_scratch`]) instead of allocating.
    pub scratch: Vec<ScratchArray>,
    /// Subscripts whose checks the guard before an enclosing loop passed
    /// (`m2cu_analysis::guards`): printed unchecked, as proven ones are.
    pub guarded: BTreeSet<(LocalId, usize, ExprId)>,
    /// Whether each statement's code starts with a `#line` directive naming its MATLAB line
    /// (`CodegenOptions::line_directives`, [`crate::trace`]).
    pub line_directives: bool,
}

impl<'a> Context<'a> {
    pub fn exprs(&self) -> ExprWriter<'_> {
        ExprWriter {
            f: self.f,
            names: self.names,
            held: &self.held,
            err: self.err,
            bounds_checks: self.bounds_checks,
            undefined_sizes: self.undefined_sizes,
            in_range: &self.analysis.in_range,
            guarded: &self.guarded,
        }
    }

    pub fn name(&self, local: LocalId) -> &str {
        self.names.get(local)
    }

    pub fn block(&self, code: &mut Code, block: &Block) {
        for &s in &block.0 {
            self.stmt(code, s);
        }
    }

    fn stmt(&self, code: &mut Code, s: StmtId) {
        if let Some(directive) = crate::trace::directive(self, self.f.stmts[s].span) {
            code.line(directive);
        }
        self.target.statement(self, code, s);
    }

    pub fn plain_stmt(&self, code: &mut Code, s: StmtId) {
        let f = self.f;
        let ew = self.exprs();
        match &f.stmts[s].kind {
            StmtKind::Assign { target, .. } if self.integer_counts.contains(&s) => {
                code.line(format!("{} += 1;", self.name(*target)))
            }
            StmtKind::Assign { target, value } if f.locals[*target].ty.is_scalar() => {
                match (self.seeded_updates.get(&s), &f.exprs[*value].kind) {
                    (Some(flag), ExprKind::Combine(_, args)) => {
                        self.seeded_update(code, *target, *value, args[1], flag)
                    }
                    _ => {
                        // A local held as an integer is computed in integers where it can be.
                        let integer = f.locals[*target].integral;
                        let value = integer
                            .then(|| ew.int_expr(*value))
                            .flatten()
                            .unwrap_or_else(|| ew.expr(*value));
                        code.line(format!("{} = {value};", self.name(*target)))
                    }
                }
            }
            StmtKind::Assign { target, value } if self.analysis.host_moves.contains(&s) => {
                self.move_array(code, *target, *value)
            }
            StmtKind::Assign { target, value } => self.copy_array(code, *target, *value),
            StmtKind::Alloc {
                target,
                fill,
                rows,
                cols,
                pages,
            } => self.alloc(code, s, *target, *fill, [*rows, *cols], *pages),
            StmtKind::Store { .. } if self.quiet_stores => {}
            StmtKind::Store {
                array,
                indices,
                value,
            } => {
                let x = self.name(*array);
                // A scatter-add `h(b) = h(b) + e` reads `h(b)` first, as MATLAB does.
                let read = || ew.offset(*array, indices);
                match self.analysis.plan.atomic_update(s) {
                    Some(u) if self.binned == Some(*array) => {
                        let addend = self.addend(u);
                        code.line(self.target.binned_add(self, *array, &read(), &addend));
                    }
                    Some(u) => self.atomic_update(code, &format!("{x}[{}]", read()), u),
                    None => code.line(format!(
                        "{x}[{}] = {};",
                        ew.store_offset(*array, indices),
                        ew.expr(*value)
                    )),
                }
            }
            StmtKind::For { .. } => self.for_loop(code, s),
            StmtKind::While { cond, body } => {
                code.open(format!("while (!{} && {}) {{", self.status, ew.cond(*cond)));
                self.block(code, body);
                code.close("}");
            }
            StmtKind::If { .. } => self.if_chain(code, s, false),
            StmtKind::Resize { array, rows, cols } => self.resize(code, s, *array, *rows, *cols),
            StmtKind::Check {
                cond,
                error: RuntimeError::Undefined(name),
            } => code.line(format!(
                "if (!{}) M2CU_FAIL({}, M2CU_UNDEFINED({name}));",
                ew.cond(*cond),
                self.err
            )),
            StmtKind::Check { cond, error } => {
                let code_name = match error {
                    RuntimeError::SizeMismatch => "M2CU_E_SIZES",
                    RuntimeError::EmptyExtreme => "M2CU_E_EMPTY",
                    RuntimeError::RunTimeExpansion => "M2CU_E_EXPAND",
                    RuntimeError::ReshapeCount => "M2CU_E_RESHAPE",
                    RuntimeError::ReshapeDivisible => "M2CU_E_RESHAPE_DIVISIBLE",
                    RuntimeError::DiagOfVector => "M2CU_E_DIAG_VECTOR",
                    RuntimeError::NormOfMatrix => "M2CU_E_NORM_MATRIX",
                    RuntimeError::FindCount => "M2CU_E_FIND_COUNT",
                    RuntimeError::FindShape => "M2CU_E_FIND_SHAPE",
                    RuntimeError::MatrixProductSizes => "M2CU_E_MTIMES",
                    RuntimeError::MatrixProductScalar => "M2CU_E_MTIMES_SCALAR",
                    RuntimeError::DotSizes => "M2CU_E_DOT_SIZES",
                    RuntimeError::ElementCount => "M2CU_E_ELEMENT_COUNT",
                    RuntimeError::ScalarKept => "M2CU_E_SCALAR_KEPT",
                    RuntimeError::CellIndexCount => "M2CU_E_CELL_INDEX_COUNT",
                    RuntimeError::CellTextRows => "M2CU_E_CELL_TEXT_ROWS",
                    RuntimeError::IndexMatrix => "M2CU_E_INDEX_MATRIX",
                    RuntimeError::Num2strRows => "M2CU_E_NUM2STR_ROWS",
                    RuntimeError::EmptyLoopVariable => "M2CU_E_EMPTY_LOOP",
                    RuntimeError::Undefined(_) => unreachable!("written above"),
                    RuntimeError::SizeDimension => "M2CU_E_SIZE_DIM",
                    RuntimeError::AccumulatorClass => "M2CU_E_ACCUM_CLASS",
                    RuntimeError::AmbiguousGrowth => "M2CU_E_GROW_AMBIGUOUS",
                    RuntimeError::ConcatenationMismatch => "M2CU_E_CONCATENATION",
                    RuntimeError::EmptyMean => "M2CU_E_EMPTY_MEAN",
                    RuntimeError::EmptyScalarMask => "M2CU_E_EMPTY_MASK",
                    RuntimeError::IndexPastEnd => "M2CU_E_INDEX_RANGE",
                    RuntimeError::IndexInvalid => "M2CU_E_INDEX_INVALID",
                    RuntimeError::ReductionDimension => "M2CU_E_REDUCE_DIM",
                    RuntimeError::EmptyRangeCreation => "M2CU_E_EMPTY_RANGE_NEW",
                    RuntimeError::PrefixCount { folded: false } => "M2CU_E_PREFIX_COUNT",
                    RuntimeError::PrefixCount { folded: true } => "M2CU_E_PREFIX_COUNT_I",
                    RuntimeError::DeleteRange => "M2CU_E_DELETE_RANGE",
                    RuntimeError::DeleteOrientation => "M2CU_E_DELETE_ORIENTATION",
                    RuntimeError::MeanOfEmpty => "M2CU_E_MEAN_OF_EMPTY",
                    RuntimeError::EmptyArrayfun => "M2CU_E_ARRAYFUN_EMPTY",
                    RuntimeError::NonAsciiClass => "M2CU_E_NON_ASCII_CLASS",
                    RuntimeError::ComplexFactor => "M2CU_E_COMPLEX_FACTOR",
                    RuntimeError::ComplexAllReal => "M2CU_E_COMPLEX_ALL_REAL",
                    RuntimeError::NanToLogical => "M2CU_E_NAN_TO_LOGICAL",
                };
                code.line(format!(
                    "if (!{}) M2CU_FAIL({}, M2CU_AT({code_name}, {}));",
                    ew.cond(*cond),
                    self.err,
                    crate::sites::of_stmt(s)
                ));
            }
            StmtKind::Print { pieces, to } => match (&self.failure, to) {
                (Some(failure), PrintTo::Error { .. }) => {
                    let ew = self.exprs();
                    let values: Vec<String> = pieces
                        .iter()
                        .flat_map(PrintPiece::args)
                        .map(|&arg| ew.expr(arg))
                        .collect();
                    failure.record(code, self.status, s, &values);
                }
                _ => self.print(code, pieces, to),
            },
            StmtKind::Break => code.line("break;"),
            StmtKind::Continue => code.line("continue;"),
            StmtKind::Return => code.line("goto m2cu_done;"),
        }
    }

    /// `acc = f(acc, e)` when the accumulator holds a value, else `acc = e`.
    fn seeded_update(&self, code: &mut Code, acc: LocalId, value: ExprId, e: ExprId, flag: &str) {
        let (ew, acc) = (self.exprs(), self.name(acc));
        code.open(format!("if ({flag}) {{"));
        code.line(format!("{acc} = {};", ew.expr(value)));
        code.close_open("} else {");
        code.line(format!("{acc} = {};", ew.expr(e)));
        code.line(format!("{flag} = 1;"));
        code.close("}");
    }

    /// A histogram update `element += addend` that other threads may update at the same time.
    fn atomic_update(&self, code: &mut Code, element: &str, u: &AtomicUpdate) {
        self.target.atomic_add(code, element, &self.addend(u));
    }

    /// What a scatter-add adds: `(e)`, or `-(e)` for `h(b) = h(b) - e`.
    fn addend(&self, u: &AtomicUpdate) -> String {
        let sign = if u.negate { "-" } else { "" };
        format!("{sign}({})", self.exprs().expr(u.addend))
    }

    fn if_chain(&self, code: &mut Code, s: StmtId, is_else: bool) {
        let StmtKind::If {
            cond,
            then_body,
            else_body,
        } = &self.f.stmts[s].kind
        else {
            return;
        };
        let cond = self.exprs().cond(*cond);
        if is_else {
            code.close_open(format!("}} else if ({cond}) {{"));
        } else {
            code.open(format!("if ({cond}) {{"));
        }
        self.block(code, then_body);
        if let Some(hook) = self.location_hooks.get(&s) {
            code.line(hook);
        }
        match else_body.0.as_slice() {
            [] => {}
            [only] if matches!(self.f.stmts[*only].kind, StmtKind::If { .. }) => {
                self.if_chain(code, *only, true)
            }
            _ => {
                code.close_open("} else {");
                self.block(code, else_body);
            }
        }
        if !is_else {
            code.close("}");
        }
    }

    /// `x = y` where `y`'s value is dead ([`Analysis::host_moves`]): the two arrays swap their
    /// storage and extents, and nothing is copied.
    fn move_array(&self, code: &mut Code, target: LocalId, value: ExprId) {
        let m2cu_frontend::ir::ExprKind::Local(source) = self.f.exprs[value].kind else {
            unreachable!("the validator allows only locals as array values")
        };
        code.open(format!(
            "{{ /* `{}` is not read again: its storage moves */",
            self.name(source)
        ));
        self.swap_host_storage(code, target, source);
        code.close("}");
    }

    /// Swaps the host storage and the extents of the 2-D arrays `x` and `y`.
    pub(crate) fn swap_host_storage(&self, code: &mut Code, x: LocalId, y: LocalId) {
        let (x, y, ty) = (
            self.name(x),
            self.name(y),
            crate::expr::complex::c_type(self.f.locals[x].ty),
        );
        code.line(format!("{ty} *m2cu_p = {x}; {x} = {y}; {y} = m2cu_p;"));
        for d in ["d0", "d1"] {
            code.line(format!(
                "int64_t m2cu_{d} = {x}_{d}; {x}_{d} = {y}_{d}; {y}_{d} = m2cu_{d};"
            ));
        }
    }

    fn copy_array(&self, code: &mut Code, target: LocalId, value: ExprId) {
        let m2cu_frontend::ir::ExprKind::Local(source) = self.f.exprs[value].kind else {
            unreachable!("the validator allows only locals as array values")
        };
        let (t, src) = (self.name(target), self.name(source));
        if let Some(capacity) = self.scratch_capacity(target) {
            code.open("{");
            code.line(format!("int64_t m2cu_r = {src}_d0, m2cu_c = {src}_d1;"));
            self.scratch_extents(code, target, capacity);
            code.line(format!(
                "for (int64_t m2cu_e = 0; m2cu_e < m2cu_r * m2cu_c; m2cu_e++) {t}[m2cu_e] = {src}[m2cu_e];"
            ));
            code.close("}");
            return;
        }
        let ty = crate::expr::complex::c_type(self.f.locals[target].ty);
        let (numel, own) = (self.names.numel(source), self.names.numel(target));
        // The target owns its storage alone (an assigned array is never an input's): with as
        // many elements it takes the copy in place, without a new allocation.
        code.open(format!("if ({t}_d0 >= 0 && {own} == {numel}) {{"));
        code.line(format!(
            "if ({numel} > 0) memcpy({t}, {src}, (size_t){numel} * sizeof({ty}));"
        ));
        code.close_open("} else {");
        code.line(format!(
            "{ty} *m2cu_copy = ({ty} *)m2cu_dup({src}, (size_t){numel} * sizeof({ty}));"
        ));
        code.line(format!(
            "if (!m2cu_copy) {{ {} = M2CU_E_NOMEM; goto m2cu_done; }}",
            self.status
        ));
        code.line(format!("free({t});"));
        code.line(format!("{t} = m2cu_copy;"));
        code.close("}");
        code.line(format!("{t}_d0 = {src}_d0; {t}_d1 = {src}_d1;"));
        if self.names.is_3d(target) {
            code.line(format!("{t}_d2 = {};", self.names.dim(source, 2)));
        }
    }

    fn alloc(
        &self,
        code: &mut Code,
        s: StmtId,
        target: LocalId,
        fill: Fill,
        [rows, cols]: [ExprId; 2],
        pages: Option<ExprId>,
    ) {
        let site = crate::sites::of_stmt(s);
        if let Some(capacity) = self.scratch_capacity(target) {
            return self.scratch_alloc(code, site, target, fill, [rows, cols], capacity);
        }
        let ew = self.exprs();
        let t = self.name(target);
        let ty = crate::expr::complex::c_type(self.f.locals[target].ty);
        let err = self.err;
        code.open("{");
        self.extents(code, rows, cols, site);
        let p = match pages {
            Some(p) => {
                code.line(format!(
                    "int64_t m2cu_p = m2cu_size({}, {site}, {err});",
                    ew.double(p)
                ));
                "m2cu_p"
            }
            None => "1",
        };
        let numel = "m2cu_elems";
        code.line(format!(
            "int64_t {numel} = m2cu_numel(m2cu_r, m2cu_c, {p}, {err});"
        ));
        code.line(format!("free({t});"));
        code.line(format!(
            "{t} = ({ty} *)calloc((size_t)({numel} > 0 ? {numel} : 1), sizeof({ty}));"
        ));
        code.line(format!(
            "if (!{t}) {{ {} = M2CU_E_NOMEM; goto m2cu_done; }}",
            self.status
        ));
        code.line(format!("{t}_d0 = m2cu_r; {t}_d1 = m2cu_c;"));
        if self.names.is_3d(target) {
            code.line(format!("{t}_d2 = {p};"));
        }
        let class = self.f.locals[target].ty.class;
        let element = fill_element(fill, class);
        if let Some(element) = element {
            let element = crate::expr::complex::fill_element(self.f.locals[target].ty, element);
            code.line(format!(
                "for (int64_t m2cu_k = 0; m2cu_k < {numel}; m2cu_k++) {t}[m2cu_k] = {element};"
            ));
        }
        code.close("}");
    }

    /// Declares `m2cu_r` and `m2cu_c`: `rows` and `cols` as checked sizes, a failure named by
    /// `site` (the statement's).
    fn extents(&self, code: &mut Code, rows: ExprId, cols: ExprId, site: u32) {
        let (ew, err) = (self.exprs(), self.err);
        code.line(format!(
            "int64_t m2cu_r = m2cu_size({}, {site}, {err});",
            ew.double(rows)
        ));
        code.line(format!(
            "int64_t m2cu_c = m2cu_size({}, {site}, {err});",
            ew.double(cols)
        ));
    }

    /// Grows `array` in place, zeroing the new elements and keeping the old ones at their
    /// (row, column) positions; shrinking only changes the extents. The buffer's capacity is
    /// rounded up to a power of two (amortized doubling: growing by one element at a time
    /// reallocates O(log n) times, and `realloc` to the size a block already has does not move
    /// it). An undefined array (row extent -1) has no elements.
    fn resize(&self, code: &mut Code, s: StmtId, array: LocalId, rows: ExprId, cols: ExprId) {
        let t = self.name(array);
        let ty = crate::expr::complex::c_type(self.f.locals[array].ty);
        code.open("{");
        self.extents(code, rows, cols, crate::sites::of_stmt(s));
        code.line(format!(
            "int64_t m2cu_or = {t}_d0 < 0 ? 0 : {t}_d0, m2cu_oc = {t}_d1;"
        ));
        code.line(format!(
            "int64_t m2cu_old = m2cu_or * m2cu_oc, m2cu_new = m2cu_numel(m2cu_r, m2cu_c, 1, {});",
            self.err
        ));
        // A failed size leaves the array as it is: the program only runs to its end then, and
        // the extents must keep fitting the buffer.
        code.open(format!("if ({} == 0) {{", self.status));
        code.open("if (m2cu_new > m2cu_old) {");
        code.line("size_t m2cu_cap = 1;");
        code.line("while (m2cu_cap < (size_t)m2cu_new) m2cu_cap *= 2;");
        code.line(format!(
            "{ty} *m2cu_grown = ({ty} *)realloc({t}, m2cu_cap * sizeof({ty}));"
        ));
        code.line(format!(
            "if (!m2cu_grown) {{ {} = M2CU_E_NOMEM; goto m2cu_done; }}",
            self.status
        ));
        code.line(format!("{t} = m2cu_grown;"));
        code.line("int64_t m2cu_kept = m2cu_old;");
        code.open("if (m2cu_old > 0 && m2cu_r > m2cu_or) {");
        code.line("/* more rows: each old column moves to its new place, the last first */");
        code.open("for (int64_t m2cu_j = m2cu_oc - 1; m2cu_j >= 0; m2cu_j--) {");
        code.line(format!(
            "memmove({t} + m2cu_j * m2cu_r, {t} + m2cu_j * m2cu_or, (size_t)m2cu_or * sizeof({ty}));"
        ));
        code.line(format!(
            "memset({t} + m2cu_j * m2cu_r + m2cu_or, 0, (size_t)(m2cu_r - m2cu_or) * sizeof({ty}));"
        ));
        code.close("}");
        code.line("m2cu_kept = m2cu_oc * m2cu_r;");
        code.close("}");
        code.line(format!(
            "memset({t} + m2cu_kept, 0, (size_t)(m2cu_new - m2cu_kept) * sizeof({ty}));"
        ));
        code.close("}");
        code.line(format!("{t}_d0 = m2cu_r; {t}_d1 = m2cu_c;"));
        code.close("}");
        code.close("}");
    }

    /// The range of a `for` statement as C declarations of `m2cu_first<k>`, `m2cu_step<k>` and
    /// `m2cu_n<k>`, where `k` is the statement's index.
    pub fn range_decls(&self, s: StmtId) -> (String, String) {
        let StmtKind::For {
            var,
            start,
            step,
            stop,
            ..
        } = &self.f.stmts[s].kind
        else {
            unreachable!("range_decls on a for statement")
        };
        let ew = self.exprs();
        let k = range_suffix(s);
        let ty = local_c_type(self.f, *var);
        let (first, step_text) = match ty {
            "int64_t" => (
                ew.int_expr(*start)
                    .unwrap_or_else(|| format!("(int64_t){}", ew.double(*start))),
                step.map_or("1".into(), |st| {
                    ew.int_expr(st)
                        .unwrap_or_else(|| format!("(int64_t){}", ew.double(st)))
                }),
            ),
            _ => (
                ew.double(*start),
                step.map_or("1.0".into(), |st| ew.double(st)),
            ),
        };
        let final_value = if ty == "int64_t" {
            // Saturating: a range to an infinite limit has M2CU_COUNT_MAX elements.
            format!("m2cu_add_int64(m2cu_first{k}, m2cu_mul_int64(m2cu_n{k} - 1, m2cu_step{k}))")
        } else {
            format!("m2cu_range_final(m2cu_first{k}, m2cu_step{k}, m2cu_last{k}, m2cu_n{k})")
        };
        let decls = format!(
            "{ty} m2cu_first{k} = {first};\n{ty} m2cu_step{k} = {step_text};\ndouble m2cu_last{k} = {};\nint64_t m2cu_n{k} = m2cu_trips((double)m2cu_first{k}, (double)m2cu_step{k}, m2cu_last{k}, {}, {});\n{ty} m2cu_final{k} = {final_value};",
            ew.double(*stop),
            crate::sites::of_stmt(s),
            self.err
        );
        (decls, k.to_string())
    }

    /// The value of loop variable `var` in iteration `t` of the range whose declarations carry
    /// suffix `k`. As in MATLAB, a fractional range's last element is its limit when
    /// `first + (n-1)*step` overshoots it.
    pub fn range_element(&self, var: LocalId, k: &str, t: &str) -> String {
        if self.f.locals[var].integral {
            format!("m2cu_first{k} + {t} * m2cu_step{k}")
        } else {
            format!("({t} == m2cu_n{k} - 1 ? m2cu_final{k} : m2cu_first{k} + (double){t} * m2cu_step{k})")
        }
    }

    /// The host declarations of the ranges of every level of `kernel`: the suffix of each
    /// level's `m2cu_first<k>`, ... names, and the total iteration count's name (for a collapsed
    /// nest, `m2cu_nn<k>`, the product of the levels' counts).
    pub fn nest_ranges(&self, kernel: &Kernel) -> NestRanges {
        let mut decls = Vec::new();
        let mut suffixes = Vec::new();
        for level in &kernel.levels {
            let (d, k) = self.range_decls(level.stmt);
            decls.push(d);
            suffixes.push(k);
        }
        let total = if suffixes.len() == 1 {
            format!("m2cu_n{}", suffixes[0])
        } else {
            let product: Vec<String> = suffixes.iter().map(|k| format!("m2cu_n{k}")).collect();
            decls.push(format!(
                "int64_t m2cu_nn{} = {};",
                suffixes[0],
                product.join(" * ")
            ));
            format!("m2cu_nn{}", suffixes[0])
        };
        NestRanges {
            decls: decls.join("\n"),
            suffixes,
            total,
        }
    }

    /// Declarations giving every level variable of `kernel` its value in iteration `t`, where
    /// level `l`'s range names carry `suffixes[l]`: `t` is split into one digit `m2cu_l<l>` per
    /// level in mixed radix, fastest level first.
    pub fn level_values(&self, kernel: &Kernel, suffixes: &[String], t: &str) -> String {
        if kernel.levels.len() == 1 {
            return self.level_value(kernel, suffixes, 0, t);
        }
        let mut lines = vec![format!("int64_t m2cu_rest = {t};")];
        let (slowest, faster) = kernel.order.split_last().expect("a kernel has a level");
        for &l in faster {
            let n = format!("m2cu_n{}", suffixes[l]);
            lines.push(format!(
                "const int64_t m2cu_l{l} = m2cu_rest % {n}; m2cu_rest /= {n};"
            ));
        }
        lines.push(format!("const int64_t m2cu_l{slowest} = m2cu_rest;"));
        lines.extend(
            (0..kernel.levels.len())
                .map(|l| self.level_value(kernel, suffixes, l, &format!("m2cu_l{l}"))),
        );
        lines.join("\n")
    }

    /// The declarations of every distinct variable of level `l` across the kernel's (fused)
    /// loops, at the level's iteration `digit`.
    pub fn level_value(
        &self,
        kernel: &Kernel,
        suffixes: &[String],
        l: usize,
        digit: &str,
    ) -> String {
        let mut vars: Vec<LocalId> = Vec::new();
        for levels in kernel.loops() {
            if !vars.contains(&levels[l].var) {
                vars.push(levels[l].var);
            }
        }
        vars.iter()
            .map(|&var| {
                format!(
                    "{} {} = {};",
                    local_c_type(self.f, var),
                    self.name(var),
                    self.range_element(var, &suffixes[l], digit)
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// After the host ran `kernel`: every level variable keeps its last value, as after the
    /// sequential nest.
    pub fn level_finals(&self, kernel: &Kernel, ranges: &NestRanges) -> String {
        kernel
            .loops()
            .flat_map(|levels| levels.iter().zip(&ranges.suffixes).enumerate())
            .map(|(l, (level, k))| {
                let ran = if l == 0 {
                    format!("m2cu_n{k}")
                } else {
                    ranges.total.clone()
                };
                format!("if ({ran} > 0) {} = m2cu_final{k};", self.name(level.var))
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn for_loop(&self, code: &mut Code, s: StmtId) {
        if self.target.places_kernels() {
            if let Some(kernel) = self.analysis.plan.fused_into(s) {
                let what = format!(
                    "for {}: runs in kernel {}",
                    self.name(kernel.var),
                    kernel.name
                );
                code.line(format!(
                    "/* {} */",
                    crate::trace::placed(self, self.f.stmts[s].span, &what)
                ));
                return;
            }
            if let Some(kernel) = self.analysis.plan.kernel_of(s) {
                return self.target.planned_loop(self, code, kernel);
            }
        }
        self.loop_in_order(code, s);
    }

    /// The `for` loop `s` as a C loop that runs its iterations in order; an innermost loop in
    /// two versions when guards decide its index checks ([`Context::versioned`]).
    pub fn loop_in_order(&self, code: &mut Code, s: StmtId) {
        let StmtKind::For { var, body, .. } = &self.f.stmts[s].kind else {
            return;
        };
        let (decls, k) = self.range_decls(s);
        let what = format!("for {}", self.name(*var));
        code.open(crate::trace::open_block(self, self.f.stmts[s].span, &what));
        code.line(decls);
        // Only innermost loops: an outer loop's own checks run once per inner loop.
        let mut innermost = true;
        self.f.walk_stmts(body, &mut |t| {
            innermost &= !matches!(self.f.stmts[t].kind, StmtKind::For { .. })
        });
        let guards = match innermost {
            true => self.analysis.guards.deciding(&[s], &[]),
            false => Vec::new(),
        };
        self.versioned(code, &guards, |ctx, code| {
            code.open(format!(
                "for (int64_t m2cu_t{k} = 0; m2cu_t{k} < m2cu_n{k} && !{}; m2cu_t{k}++) {{",
                ctx.status
            ));
            let element = ctx.range_element(*var, &k, &format!("m2cu_t{k}"));
            code.line(format!("{} = {element};", ctx.name(*var)));
            ctx.block(code, body);
            code.close("}");
        });
        code.close("}");
    }

    /// Prints a loop with `emit`: once, or, when the target versions loops and `guards` decide
    /// index checks not decided already, twice: `if (every guard passes) { the loop without
    /// those checks } else { the loop with every check }`, so a failing index fails as it did.
    /// The guards' range names are those [`Context::range_decls`] declared.
    pub fn versioned(
        &self,
        code: &mut Code,
        guards: &[Guard],
        emit: impl Fn(&Context<'a>, &mut Code),
    ) {
        let new: Vec<&Guard> = guards
            .iter()
            .filter(|g| !self.guarded.contains(&g.key()))
            .collect();
        if new.is_empty() || !self.bounds_checks || !self.target.versions_loops() {
            return emit(self, code);
        }
        // A read and a store of `y(i)` are two subscripts with one condition.
        let conditions: BTreeSet<String> = new.iter().map(|g| self.guard_text(g)).collect();
        let conditions: Vec<String> = conditions.into_iter().collect();
        code.open(format!(
            "if ({}) {{ /* these subscripts are in range: checked once */",
            conditions.join(" && ")
        ));
        let mut unchecked = self.clone();
        unchecked.guarded.extend(new.iter().map(|g| g.key()));
        emit(&unchecked, code);
        code.close_open("} else {");
        emit(self, code);
        code.close("}");
    }

    /// Whether guard `g` passes: `var + offset` lies within the extent for the loop's first and
    /// last values (or it runs no iteration), or for the variable's current value.
    fn guard_text(&self, g: &Guard) -> String {
        let plus = match g.offset {
            0 => String::new(),
            d if d < 0 => format!(" - {}", d.unsigned_abs()),
            d => format!(" + {d}"),
        };
        let extent = self.exprs().extent(g.array, g.count, g.position);
        let within = |low: &str, high: &str| {
            format!("(double){low}{plus} >= 1.0 && (double){high}{plus} <= (double){extent}")
        };
        match g.values {
            Values::Range(s) => {
                let k = range_suffix(s);
                let (first, last) = (format!("m2cu_first{k}"), format!("m2cu_final{k}"));
                let low = format!("(m2cu_step{k} > 0 ? {first} : {last})");
                let high = format!("(m2cu_step{k} > 0 ? {last} : {first})");
                format!("(m2cu_n{k} <= 0 || ({}))", within(&low, &high))
            }
            Values::Current => {
                let v = self.name(g.var);
                format!("({})", within(v, v))
            }
        }
    }

    /// The C text of `stmts`, indented by `indent` levels.
    pub fn block_text(&self, stmts: &[StmtId], indent: usize) -> String {
        let mut code = Code::new(indent);
        self.block(&mut code, &Block(stmts.to_vec()));
        code.finish()
    }

    pub(crate) fn clone_base(&self) -> Context<'a> {
        Context {
            f: self.f,
            names: self.names,
            analysis: self.analysis,
            status: self.status,
            err: self.err,
            target: self.target,
            source: self.source,
            location_hooks: HashMap::new(),
            seeded_updates: HashMap::new(),
            integer_counts: HashSet::new(),
            held: HashMap::new(),
            bounds_checks: self.bounds_checks,
            undefined_sizes: self.undefined_sizes,
            deterministic: self.deterministic,
            binned: None,
            failure: self.failure.clone(),
            quiet_stores: self.quiet_stores,
            scratch: self.scratch.clone(),
            guarded: self.guarded.clone(),
            line_directives: self.line_directives,
        }
    }

    /// The same context with array stores left out (see [`Context::quiet_stores`]).
    pub fn without_stores(&self) -> Context<'a> {
        Context {
            quiet_stores: true,
            ..self.clone_base()
        }
    }

    /// The same context with another error status.
    pub fn with_status(&self, status: &'a str, err: &'a str) -> Context<'a> {
        Context {
            status,
            err,
            ..self.clone_base()
        }
    }

    /// The same context for the body of an iteration that may raise `error`, with the
    /// iteration's own status and the record its `error` statements fill (`crate::raise`).
    pub fn raising(&self, status: &'a str, err: &'a str, failure: Failure) -> Context<'a> {
        Context {
            status,
            err,
            location_hooks: self.location_hooks.clone(),
            seeded_updates: self.seeded_updates.clone(),
            integer_counts: self.integer_counts.clone(),
            binned: self.binned,
            failure: Some(failure),
            ..self.clone_base()
        }
    }

    /// The same context writing for another target, with its error status.
    pub fn for_target(&self, target: &'a dyn Target, status: &'a str, err: &'a str) -> Context<'a> {
        Context {
            status,
            err,
            target,
            ..self.clone_base()
        }
    }

    /// The storage of every scratch array of an iteration: `T m2cu_own_<a>[capacity]`, with `<a>`
    /// pointing at it and its extents zero until its creation sets them.
    pub fn declare_scratch(&self, code: &mut Code) {
        for a in &self.scratch {
            let ty = crate::expr::complex::c_type(self.f.locals[a.local].ty);
            let x = self.name(a.local);
            code.line(format!("{ty} m2cu_own_{x}[{}];", a.capacity.max(1)));
            code.line(format!("{ty} *{x} = m2cu_own_{x};"));
            code.line(format!("int64_t {x}_d0 = 0, {x}_d1 = 0;"));
        }
    }

    /// The creation of a scratch array: its extents (constants within its storage, see
    /// `m2cu_analysis::scratch`) and its elements filled.
    fn scratch_alloc(
        &self,
        code: &mut Code,
        site: u32,
        target: LocalId,
        fill: Fill,
        [rows, cols]: [ExprId; 2],
        capacity: u64,
    ) {
        let t = self.name(target);
        let class = self.f.locals[target].ty.class;
        let value = fill_element(fill, class).unwrap_or_else(|| format!("({})0", class.c_type()));
        code.open("{");
        self.extents(code, rows, cols, site);
        self.scratch_extents(code, target, capacity);
        code.line(format!(
            "for (int64_t m2cu_e = 0; m2cu_e < m2cu_r * m2cu_c; m2cu_e++) {t}[m2cu_e] = {value};"
        ));
        code.close("}");
    }

    /// The capacity of `array`'s storage if it is a scratch array of this iteration.
    fn scratch_capacity(&self, array: LocalId) -> Option<u64> {
        self.scratch
            .iter()
            .find(|a| a.local == array)
            .map(|a| a.capacity)
    }

    /// Sets the extents of the scratch array `target` to `m2cu_r` by `m2cu_c`, which the analysis
    /// proved within its storage (a failure here would be m2cu's, reported as too big).
    fn scratch_extents(&self, code: &mut Code, target: LocalId, capacity: u64) {
        code.line(format!(
            "if (m2cu_r * m2cu_c > {capacity}) {{ M2CU_FAIL({}, M2CU_E_TOO_BIG); m2cu_r = m2cu_c = 0; }}",
            self.err
        ));
        let t = self.name(target);
        code.line(format!("{t}_d0 = m2cu_r; {t}_d1 = m2cu_c;"));
    }

    /// Declarations of per-iteration (private) scalars.
    pub fn declare(&self, code: &mut Code, locals: &[LocalId]) {
        for &l in locals {
            let zero = crate::expr::complex::zero(self.f.locals[l].ty);
            code.line(format!(
                "{} {} = {zero};",
                local_c_type(self.f, l),
                self.name(l)
            ));
        }
    }
}

/// The C value every element of an array filled with `fill` gets (`None`: zeros, which `calloc`
/// gives).
fn fill_element(fill: Fill, class: Class) -> Option<String> {
    match (fill, class) {
        (Fill::Zeros, _) => None,
        (Fill::Ones, _) => Some(format!("({})1", class.c_type())),
        (Fill::Rand, Class::Single) => Some("m2cu_randf(M2CU_SEED, m2cu_draws++)".into()),
        (Fill::Rand, _) => Some("m2cu_rand(M2CU_SEED, m2cu_draws++)".into()),
        (Fill::Randn, _) => Some(format!(
            "({})m2cu_randn(M2CU_SEED, m2cu_draws++)",
            class.c_type()
        )),
        (Fill::Clock, _) => Some("m2cu_clock()".into()),
        (Fill::Inf | Fill::NaN | Fill::Pi, _) => {
            fill.value().map(|v| crate::expr::literal(v, class))
        }
    }
}

/// The suffix of the range names of the `for` loop `s` (`m2cu_first<k>`, `m2cu_n<k>`, ...).
fn range_suffix(s: StmtId) -> u32 {
    s.into_raw().into_u32()
}
