//! Lowering: AST → typed IR, with MATLAB class and shape inference.
//!
//! One forward pass over the entry function in program order. A variable's type is fixed by its
//! first assignment (MATLAB Coder's rule); a later assignment of another class or of a scalar to
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
//! | E0107 | indexed assignment to an array that was not preallocated |
//! | E0108 | `break`/`continue` outside a loop, or `end` outside an index |
//! | E0109 | an invalid `arguments` block entry |

use std::collections::HashMap;

use la_arena::Arena;

use crate::ast::{self, BinaryOp, ExprKind as AstExpr, StmtKind as AstStmt, UnaryOp};
use crate::diag::{Diagnostic, Diagnostics, Span};
use crate::ir::{
    BinOp, Block, Builtin, Expr, ExprId, ExprKind, Fill, Function, Local, LocalId, Module,
    SizeQuery, Stmt, StmtId, StmtKind, UnOp,
};
use crate::types::{Class, Dim, Shape, Type};

/// What lowering needs besides the AST.
#[derive(Clone, Debug, Default)]
pub struct LowerOptions {
    /// The function to translate; the file's first function when `None`.
    pub entry: Option<String>,
    /// Input types by parameter name. They take precedence over an `arguments` block.
    pub input_types: Vec<(String, Type)>,
}

/// Lowers the entry function of `file` to the typed IR.
pub fn lower(file: &ast::File, options: &LowerOptions) -> Result<Module, Diagnostics> {
    let function = select_entry(file, options)?;
    let mut lowerer = Lowerer::new(file, function);
    lowerer.declare_params(function, options);
    if lowerer.diags.has_errors() {
        // Without input types every later message would be noise.
        return Err(lowerer.diags);
    }
    let body = lowerer.block(&function.body);
    if !lowerer.diags.has_errors() {
        lowerer.declare_outputs(function);
    }
    if lowerer.diags.has_errors() {
        return Err(lowerer.diags);
    }
    Ok(Module {
        functions: vec![lowerer.finish(body)],
    })
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

/// Names that read as constants when no variable shadows them.
fn constant(name: &str) -> Option<(f64, Class)> {
    Some(match name {
        "inf" | "Inf" => (f64::INFINITY, Class::Double),
        "nan" | "NaN" => (f64::NAN, Class::Double),
        "pi" => (std::f64::consts::PI, Class::Double),
        "eps" => (f64::EPSILON, Class::Double),
        "true" => (1.0, Class::Logical),
        "false" => (0.0, Class::Logical),
        _ => return None,
    })
}

/// Calls that MATLAB programs use for I/O or plotting, rejected with a specific message.
const IO_FUNCTIONS: &[&str] = &[
    "disp", "fprintf", "printf", "sprintf", "plot", "figure", "hold", "input", "keyboard", "load",
    "save", "error", "warning", "tic", "toc",
];

/// Where an `end` inside an index refers to: the indexed array, the position, and the count.
#[derive(Clone, Copy)]
struct IndexContext {
    array: LocalId,
    position: usize,
    count: usize,
}

struct Lowerer<'a> {
    file: &'a ast::File,
    locals: Arena<Local>,
    exprs: Arena<Expr>,
    stmts: Arena<Stmt>,
    scope: HashMap<String, LocalId>,
    params: Vec<LocalId>,
    outputs: Vec<LocalId>,
    diags: Diagnostics,
    /// Loop variables of the enclosing `for` loops, innermost last.
    loop_vars: Vec<LocalId>,
    /// Number of enclosing loops (`for` and `while`).
    loop_depth: usize,
    index_context: Vec<IndexContext>,
    name: String,
    span: Span,
}

impl<'a> Lowerer<'a> {
    fn new(file: &'a ast::File, function: &ast::Function) -> Lowerer<'a> {
        Lowerer {
            file,
            locals: Arena::new(),
            exprs: Arena::new(),
            stmts: Arena::new(),
            scope: HashMap::new(),
            params: Vec::new(),
            outputs: Vec::new(),
            diags: Diagnostics::default(),
            loop_vars: Vec::new(),
            loop_depth: 0,
            index_context: Vec::new(),
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
        }
    }

    fn error(&mut self, code: &'static str, span: Span, message: String, help: String) {
        self.diags
            .push(Diagnostic::error(code, span, message).with_help(help));
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
        for param in &function.params {
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
                "declare it in an `arguments` block (`{} (1,:) double`) or pass `--args '{}=double(1,:)'`",
                param.name, param.name
            ),
        );
        None
    }

    fn declared_type(&mut self, decl: &ast::ArgDecl) -> Option<Type> {
        let class = match &decl.class {
            None => Class::Double,
            Some(c) => match Class::from_name(&c.name).filter(|c| *c != Class::Char) {
                Some(class) => class,
                None => {
                    self.error(
                        "E0109",
                        c.span,
                        format!("`{}` is not a supported class for an input", c.name),
                        "use double, single, logical or an integer class such as int32".into(),
                    );
                    return None;
                }
            },
        };
        let shape = match decl.dims.as_deref() {
            None => Shape::SCALAR,
            Some([r, c]) => Shape::new(dim_of(*r), dim_of(*c)),
            Some(_) => {
                self.error(
                    "E0109",
                    decl.span,
                    format!(
                        "input `{}` must be declared with two dimensions",
                        decl.name.name
                    ),
                    "write the size as (rows,cols), for example (1,:)".into(),
                );
                return None;
            }
        };
        Some(Type { class, shape })
    }

    fn declare_outputs(&mut self, function: &ast::Function) {
        for output in &function.outputs {
            match self.scope.get(&output.name) {
                Some(&id) => self.outputs.push(id),
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
        let id = self.locals.alloc(Local {
            name: name.to_string(),
            ty,
            span,
            integral: false,
        });
        self.scope.insert(name.to_string(), id);
        id
    }

    // ----- statements ---------------------------------------------------------------------

    fn block(&mut self, stmts: &[ast::Stmt]) -> Block {
        Block(stmts.iter().filter_map(|s| self.stmt(s)).collect())
    }

    fn push(&mut self, kind: StmtKind, span: Span) -> Option<StmtId> {
        Some(self.stmts.alloc(Stmt { kind, span }))
    }

    fn stmt(&mut self, stmt: &ast::Stmt) -> Option<StmtId> {
        let span = stmt.span;
        match &stmt.kind {
            AstStmt::Assign { targets, value } => self.assign(targets, value, span),
            AstStmt::For { var, range, body } => self.for_loop(var, range, body, span),
            AstStmt::While { cond, body } => {
                let cond = self.condition(cond)?;
                let body = self.loop_body(body);
                self.push(StmtKind::While { cond, body }, span)
            }
            AstStmt::If { clauses, else_body } => {
                self.if_chain(clauses, else_body.as_deref(), span)
            }
            AstStmt::Break | AstStmt::Continue => self.loop_exit(&stmt.kind, span),
            AstStmt::Return => self.push(StmtKind::Return, span),
            AstStmt::Switch { .. } => {
                self.unsupported(
                    span,
                    "`switch`",
                    "write the cases as an `if`/`elseif` chain",
                );
                None
            }
            AstStmt::Expr(e) => {
                self.expr_statement(e);
                None
            }
        }
    }

    fn expr_statement(&mut self, e: &ast::Expr) {
        let name = match &e.kind {
            AstExpr::Call { callee, .. } => Some(callee.name.as_str()),
            AstExpr::Ident(n) => Some(n.as_str()),
            _ => None,
        };
        if let Some(n) = name.filter(|n| IO_FUNCTIONS.contains(n)) {
            self.unsupported(
                e.span,
                &format!("`{n}` (I/O, plotting or timing)"),
                "generated code has no console or figures: return the values as outputs instead",
            );
        } else {
            self.unsupported(
                e.span,
                "an expression statement",
                "assign the value to a variable, or return it as an output",
            );
        }
    }

    fn loop_exit(&mut self, kind: &AstStmt, span: Span) -> Option<StmtId> {
        if self.loop_depth == 0 {
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

    fn loop_body(&mut self, body: &[ast::Stmt]) -> Block {
        self.loop_depth += 1;
        let block = self.block(body);
        self.loop_depth -= 1;
        block
    }

    fn if_chain(
        &mut self,
        clauses: &[(ast::Expr, Vec<ast::Stmt>)],
        else_body: Option<&[ast::Stmt]>,
        span: Span,
    ) -> Option<StmtId> {
        let ((cond, body), rest) = clauses.split_first()?;
        let cond = self.condition(cond);
        let then_body = self.block(body);
        let else_body = if rest.is_empty() {
            else_body.map(|b| self.block(b)).unwrap_or_default()
        } else {
            let nested_span = Span {
                start: rest[0].0.span.start,
                end: span.end,
            };
            Block(
                self.if_chain(rest, else_body, nested_span)
                    .into_iter()
                    .collect(),
            )
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

    fn condition(&mut self, e: &ast::Expr) -> Option<ExprId> {
        let id = self.expr(e)?;
        self.require_scalar(id, "a condition")
    }

    fn for_loop(
        &mut self,
        var: &ast::Ident,
        range: &ast::Expr,
        body: &[ast::Stmt],
        span: Span,
    ) -> Option<StmtId> {
        let AstExpr::Range { start, step, stop } = &strip_parens(range).kind else {
            self.unsupported(
                range.span,
                "a `for` loop over a value other than a range",
                "write the loop as `for i = first:last` or `for i = first:step:last`",
            );
            return None;
        };
        let start = self.scalar_expr(start, "a range bound");
        let step = step.as_ref().map(|s| self.scalar_expr(s, "a range step"));
        let stop = self.scalar_expr(stop, "a range bound");
        let var_id = self.loop_var(var)?;
        let (start, stop) = (start?, stop?);
        let step = match step {
            Some(s) => Some(s?),
            None => None,
        };
        let integral = self.is_integral(start) && step.is_none_or(|s| self.is_integral(s));
        self.locals[var_id].integral = integral;
        self.loop_vars.push(var_id);
        let body = self.loop_body(body);
        self.loop_vars.pop();
        self.push(
            StmtKind::For {
                var: var_id,
                start,
                step,
                stop,
                body,
            },
            span,
        )
    }

    fn loop_var(&mut self, var: &ast::Ident) -> Option<LocalId> {
        let double = Type::scalar(Class::Double);
        match self.scope.get(&var.name).copied() {
            None => Some(self.new_local(&var.name, double, var.span)),
            Some(id) if self.loop_vars.contains(&id) => {
                self.error(
                    "E0103",
                    var.span,
                    format!("loop variable `{}` is reused by a nested loop", var.name),
                    "give the inner loop its own variable".into(),
                );
                None
            }
            Some(id) if self.locals[id].ty == double && !self.params.contains(&id) => Some(id),
            Some(id) => {
                let ty = self.locals[id].ty;
                self.error(
                    "E0104",
                    var.span,
                    format!(
                        "`{}` is {ty} here but a loop variable is a double scalar",
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
            ExprKind::Local(l) => self.locals[*l].integral,
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

    fn assign(&mut self, targets: &[ast::LValue], value: &ast::Expr, span: Span) -> Option<StmtId> {
        match targets {
            [ast::LValue::Var(name)] => self.assign_var(name, value, span),
            [ast::LValue::Index {
                base,
                args,
                span: target_span,
            }] => self.store(base, args, *target_span, value, span),
            [ast::LValue::Ignore(s)] => {
                self.unsupported(
                    *s,
                    "`~` as the only assignment target",
                    "remove the statement",
                );
                None
            }
            _ => {
                self.unsupported(
                    span,
                    "assignment to several outputs (`[a, b] = ...`)",
                    "assign each value in its own statement",
                );
                None
            }
        }
    }

    fn assign_var(&mut self, name: &ast::Ident, value: &ast::Expr, span: Span) -> Option<StmtId> {
        if let Some(alloc) = self.allocation(value) {
            return self.alloc(name, alloc?, span);
        }
        let value = self.expr(value)?;
        let ty = self.exprs[value].ty;
        let target = self.define(name, ty)?;
        self.push(StmtKind::Assign { target, value }, span)
    }

    /// Finds or creates the local `name` for a value of type `ty`, checking that the type stays
    /// the same.
    fn define(&mut self, name: &ast::Ident, ty: Type) -> Option<LocalId> {
        let Some(id) = self.scope.get(&name.name).copied() else {
            return Some(self.new_local(&name.name, ty, name.span));
        };
        if self.loop_vars.contains(&id) {
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
        if old.class != ty.class || old.is_scalar() != ty.is_scalar() {
            self.error(
                "E0104",
                name.span,
                format!("`{}` was {old} but is assigned a {ty} value here", name.name),
                format!(
                    "a variable keeps one class and shape; convert the value (e.g. `{}(...)`) or use a new variable",
                    old.class
                ),
            );
            return None;
        }
        self.locals[id].ty.shape = join_shapes(old.shape, ty.shape);
        Some(id)
    }

    fn alloc(&mut self, name: &ast::Ident, alloc: Allocation, span: Span) -> Option<StmtId> {
        let shape = Shape::new(self.dim_of_expr(alloc.rows), self.dim_of_expr(alloc.cols));
        if shape.is_scalar() {
            let value = self.constant_expr(alloc.fill_value(), alloc.class, span);
            let target = self.define(name, Type::scalar(alloc.class))?;
            return self.push(StmtKind::Assign { target, value }, span);
        }
        let target = self.define(name, Type::array(alloc.class, shape))?;
        let kind = StmtKind::Alloc {
            target,
            fill: alloc.fill,
            rows: alloc.rows,
            cols: alloc.cols,
        };
        self.push(kind, span)
    }

    fn dim_of_expr(&self, e: ExprId) -> Dim {
        match self.exprs[e].kind {
            ExprKind::Const(v) if v >= 0.0 && v.fract() == 0.0 => Dim::Known(v as u64),
            _ => Dim::Var,
        }
    }

    /// `zeros(...)`/`ones(...)` on the right of an assignment: `Some(None)` when it is one but is
    /// malformed (already reported).
    fn allocation(&mut self, value: &ast::Expr) -> Option<Option<Allocation>> {
        let AstExpr::Call { callee, args } = &value.kind else {
            return None;
        };
        let fill = match callee.name.as_str() {
            "zeros" if !self.scope.contains_key("zeros") => Fill::Zeros,
            "ones" if !self.scope.contains_key("ones") => Fill::Ones,
            _ => return None,
        };
        Some(self.allocation_args(fill, args, value.span))
    }

    fn allocation_args(
        &mut self,
        fill: Fill,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Allocation> {
        let (class, dims) = match args.split_last() {
            Some((
                ast::Expr {
                    kind: AstExpr::Str(c),
                    span: cspan,
                },
                rest,
            )) => match Class::from_name(c).filter(|c| *c != Class::Char) {
                Some(class) => (class, rest),
                None => {
                    self.error(
                        "E0105",
                        *cspan,
                        format!("`{c}` is not a class `zeros`/`ones` can create"),
                        "use 'double', 'single', 'logical' or an integer class like 'int32'".into(),
                    );
                    return None;
                }
            },
            _ => (Class::Double, args),
        };
        let dims: Vec<ExprId> = dims
            .iter()
            .map(|d| self.scalar_expr(d, "a size"))
            .collect::<Option<_>>()?;
        let (rows, cols) = match dims.as_slice() {
            [n] => (*n, *n),
            [r, c] => (*r, *c),
            _ => {
                self.error(
                    "E0105",
                    span,
                    "`zeros`/`ones` take one or two sizes".into(),
                    "write zeros(n) or zeros(rows, cols), optionally with a class: zeros(1, n, 'int32')"
                        .into(),
                );
                return None;
            }
        };
        Some(Allocation {
            fill,
            class,
            rows,
            cols,
        })
    }

    fn store(
        &mut self,
        base: &ast::Ident,
        args: &[ast::Expr],
        target_span: Span,
        value: &ast::Expr,
        span: Span,
    ) -> Option<StmtId> {
        let Some(array) = self.scope.get(&base.name).copied() else {
            self.error(
                "E0107",
                base.span,
                format!("`{}` is assigned by index before it exists", base.name),
                format!(
                    "preallocate it first, for example `{} = zeros(1, n);`",
                    base.name
                ),
            );
            return None;
        };
        let array_ty = self.locals[array].ty;
        if array_ty.is_scalar() {
            self.unsupported(
                target_span,
                &format!(
                    "indexed assignment to the scalar `{}` (growing it)",
                    base.name
                ),
                "preallocate the array with zeros(rows, cols) before writing its elements",
            );
            return None;
        }
        let indices = self.indices(array, args)?;
        let value = self.scalar_expr(value, "an element value")?;
        let value = self.convert_to(value, array_ty.class);
        self.push(
            StmtKind::Store {
                array,
                indices,
                value,
            },
            span,
        )
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

    // ----- expressions --------------------------------------------------------------------

    fn new_expr(&mut self, kind: ExprKind, ty: Type, span: Span) -> ExprId {
        self.exprs.alloc(Expr { kind, ty, span })
    }

    fn constant_expr(&mut self, value: f64, class: Class, span: Span) -> ExprId {
        self.new_expr(ExprKind::Const(value), Type::scalar(class), span)
    }

    fn scalar_expr(&mut self, e: &ast::Expr, what: &str) -> Option<ExprId> {
        let id = self.expr(e)?;
        self.require_scalar(id, what)
    }

    fn require_scalar(&mut self, id: ExprId, what: &str) -> Option<ExprId> {
        let expr = &self.exprs[id];
        if expr.ty.is_scalar() {
            return Some(id);
        }
        let (span, ty) = (expr.span, expr.ty);
        self.error(
            "E0103",
            span,
            format!("{what} must be a scalar, but this is {ty}"),
            "index a single element, e.g. `v(i)`, or write the whole-array operation as a loop"
                .into(),
        );
        None
    }

    fn expr(&mut self, e: &ast::Expr) -> Option<ExprId> {
        let span = e.span;
        match &e.kind {
            AstExpr::Number { value, .. } => Some(self.constant_expr(*value, Class::Double, span)),
            AstExpr::Ident(name) => self.ident(name, span),
            AstExpr::Paren(inner) => self.expr(inner),
            AstExpr::Unary { op, operand } => self.unary(*op, operand, span),
            AstExpr::Binary { op, lhs, rhs } => self.binary(*op, lhs, rhs, span),
            AstExpr::Call { callee, args } => self.call(callee, args, span),
            AstExpr::End => self.end_keyword(span),
            AstExpr::Postfix { operand, .. } => {
                let id = self.expr(operand)?;
                self.require_scalar(id, "a transposed value")
            }
            AstExpr::Range { .. } => {
                self.unsupported(
                    span,
                    "a range outside a `for` statement",
                    "use the range as `for i = a:b`",
                );
                None
            }
            AstExpr::Colon => {
                self.unsupported(
                    span,
                    "`:` slicing",
                    "index one element at a time inside a loop",
                );
                None
            }
            AstExpr::Matrix(_) => {
                self.unsupported(
                    span,
                    "a matrix literal",
                    "create arrays with zeros(rows, cols) and fill them in a loop",
                );
                None
            }
            AstExpr::FuncHandle(_) | AstExpr::AnonFn { .. } => {
                self.unsupported(
                    span,
                    "a function handle",
                    "function handles are only allowed as the operator of `gpucoder.reduce`; call the function directly",
                );
                None
            }
            AstExpr::Str(_) => {
                self.unsupported(
                    span,
                    "a char value here",
                    "char literals may only name a class, as in zeros(1, n, 'int32')",
                );
                None
            }
        }
    }

    fn ident(&mut self, name: &str, span: Span) -> Option<ExprId> {
        if let Some(&id) = self.scope.get(name) {
            let ty = self.locals[id].ty;
            return Some(self.new_expr(ExprKind::Local(id), ty, span));
        }
        if let Some((value, class)) = constant(name) {
            return Some(self.constant_expr(value, class, span));
        }
        self.call(
            &ast::Ident {
                name: name.to_string(),
                span,
            },
            &[],
            span,
        )
    }

    fn end_keyword(&mut self, span: Span) -> Option<ExprId> {
        let Some(ctx) = self.index_context.last().copied() else {
            self.error(
                "E0108",
                span,
                "`end` used outside an index".into(),
                "`end` stands for the last index only inside `A(...)`".into(),
            );
            return None;
        };
        let query = match (ctx.count, ctx.position) {
            (1, _) => SizeQuery::Numel,
            (_, p) => SizeQuery::Dim(p as u8 + 1),
        };
        Some(self.new_expr(
            ExprKind::Size(ctx.array, query),
            Type::scalar(Class::Double),
            span,
        ))
    }

    fn unary(&mut self, op: UnaryOp, operand: &ast::Expr, span: Span) -> Option<ExprId> {
        let a = self.scalar_expr(operand, "an operand")?;
        let class = self.exprs[a].ty.class;
        match op {
            UnaryOp::Plus => Some(a),
            UnaryOp::Neg => {
                let class = arithmetic_class(class);
                Some(self.new_expr(ExprKind::Unary(UnOp::Neg, a), Type::scalar(class), span))
            }
            UnaryOp::Not => Some(self.new_expr(
                ExprKind::Unary(UnOp::Not, a),
                Type::scalar(Class::Logical),
                span,
            )),
        }
    }

    fn binary(
        &mut self,
        op: BinaryOp,
        lhs: &ast::Expr,
        rhs: &ast::Expr,
        span: Span,
    ) -> Option<ExprId> {
        let a = self.scalar_expr(lhs, "an operand");
        let b = self.scalar_expr(rhs, "an operand");
        let (a, b) = (a?, b?);
        let (op, a, b) = match op {
            BinaryOp::LeftDiv | BinaryOp::ElemLeftDiv => (BinOp::Div, b, a),
            other => (scalar_op(other), a, b),
        };
        let class = if op.is_comparison() || op.is_logical() {
            Class::Logical
        } else {
            self.combine_classes(a, b, span)?
        };
        Some(self.new_expr(ExprKind::Binary(op, a, b), Type::scalar(class), span))
    }

    /// MATLAB's class of `a op b`: an integer class wins, then single, else double; two
    /// different integer classes are an error.
    fn combine_classes(&mut self, a: ExprId, b: ExprId, span: Span) -> Option<Class> {
        let (ca, cb) = (self.exprs[a].ty.class, self.exprs[b].ty.class);
        match (ca.is_integer(), cb.is_integer()) {
            (true, true) if ca != cb => {
                self.error(
                    "E0106",
                    span,
                    format!("integers can only be combined with integers of the same class, here {ca} and {cb}"),
                    format!("convert one operand, e.g. `{ca}(...)`"),
                );
                None
            }
            (true, _) => Some(ca),
            (_, true) => Some(cb),
            _ if ca == Class::Single || cb == Class::Single => Some(Class::Single),
            _ => Some(Class::Double),
        }
    }

    fn call(&mut self, callee: &ast::Ident, args: &[ast::Expr], span: Span) -> Option<ExprId> {
        let name = callee.name.as_str();
        if let Some(&array) = self.scope.get(name) {
            return self.index(array, args, span);
        }
        if let Some(builtin) = Builtin::from_name(name) {
            return self.builtin(builtin, args, span);
        }
        if let Some(class) = Class::from_name(name).filter(|c| *c != Class::Char) {
            return self.conversion(class, args, span);
        }
        match name {
            "numel" | "length" | "size" => self.size_query(name, args, span),
            "zeros" | "ones" => {
                self.unsupported(
                    span,
                    "`zeros`/`ones` inside an expression",
                    "assign it to a variable first: `A = zeros(m, n);`",
                );
                None
            }
            _ => self.undefined(callee),
        }
    }

    fn undefined(&mut self, callee: &ast::Ident) -> Option<ExprId> {
        let name = &callee.name;
        if self.file.functions.iter().any(|f| &f.name.name == name) {
            self.unsupported(
                callee.span,
                &format!("calling the local function `{name}`"),
                "inline its body into the caller for now",
            );
        } else if IO_FUNCTIONS.contains(&name.as_str()) {
            self.unsupported(
                callee.span,
                &format!("`{name}` (I/O, plotting or timing)"),
                "return the values as outputs instead",
            );
        } else {
            self.error(
                "E0102",
                callee.span,
                format!("undefined variable or function `{name}`"),
                "define the variable before this line, or check the spelling".into(),
            );
        }
        None
    }

    fn index(&mut self, array: LocalId, args: &[ast::Expr], span: Span) -> Option<ExprId> {
        let ty = self.locals[array].ty;
        if ty.is_scalar() {
            // `x(1)` of a scalar is the scalar itself.
            let indices = self.indices(array, args)?;
            if indices
                .iter()
                .all(|&i| matches!(self.exprs[i].kind, ExprKind::Const(v) if v == 1.0))
            {
                return Some(self.new_expr(ExprKind::Local(array), ty, span));
            }
            self.unsupported(
                span,
                "indexing a scalar with an index other than 1",
                "index arrays only",
            );
            return None;
        }
        let indices = self.indices(array, args)?;
        Some(self.new_expr(
            ExprKind::Index(array, indices),
            Type::scalar(ty.class),
            span,
        ))
    }

    fn indices(&mut self, array: LocalId, args: &[ast::Expr]) -> Option<Vec<ExprId>> {
        if args.is_empty() || args.len() > 2 {
            let span = args.first().map_or(self.locals[array].span, |a| a.span);
            self.unsupported(
                span,
                &format!("indexing with {} subscripts", args.len()),
                "use A(k) or A(i, j)",
            );
            return None;
        }
        let mut out = Vec::with_capacity(args.len());
        for (position, arg) in args.iter().enumerate() {
            self.index_context.push(IndexContext {
                array,
                position,
                count: args.len(),
            });
            let id = self.scalar_expr(arg, "an index");
            self.index_context.pop();
            out.push(self.check_index_class(id?)?);
        }
        Some(out)
    }

    fn check_index_class(&mut self, id: ExprId) -> Option<ExprId> {
        let expr = &self.exprs[id];
        if expr.ty.class == Class::Logical || expr.ty.class == Class::Char {
            let span = expr.span;
            self.unsupported(
                span,
                "a logical or char index",
                "index with a numeric position",
            );
            return None;
        }
        Some(id)
    }

    fn builtin(&mut self, builtin: Builtin, args: &[ast::Expr], span: Span) -> Option<ExprId> {
        if args.len() != builtin.arity() {
            let help = match builtin {
                Builtin::Min | Builtin::Max if args.len() == 1 => format!(
                    "whole-array `{}` is not supported yet: loop over the elements with `m = {}(m, v(i))`",
                    builtin.name(),
                    builtin.name()
                ),
                _ => format!("`{}` takes {} argument(s) here", builtin.name(), builtin.arity()),
            };
            self.error(
                "E0105",
                span,
                format!("wrong number of arguments to `{}`", builtin.name()),
                help,
            );
            return None;
        }
        let ids: Vec<ExprId> = args
            .iter()
            .map(|a| self.scalar_expr(a, "a builtin argument"))
            .collect::<Vec<_>>()
            .into_iter()
            .collect::<Option<_>>()?;
        let class = self.builtin_class(builtin, &ids, span)?;
        Some(self.new_expr(ExprKind::Call(builtin, ids), Type::scalar(class), span))
    }

    fn builtin_class(&mut self, builtin: Builtin, args: &[ExprId], span: Span) -> Option<Class> {
        let first = arithmetic_class(self.exprs[args[0]].ty.class);
        match builtin {
            Builtin::Sqrt | Builtin::Exp | Builtin::Log if first.is_integer() => {
                self.error(
                    "E0106",
                    span,
                    format!(
                        "`{}` is not defined for integer class {first}",
                        builtin.name()
                    ),
                    format!("convert first: `{}(double(x))`", builtin.name()),
                );
                None
            }
            _ if builtin.arity() == 2 => self.combine_classes(args[0], args[1], span),
            _ => Some(first),
        }
    }

    fn conversion(&mut self, class: Class, args: &[ast::Expr], span: Span) -> Option<ExprId> {
        let [arg] = args else {
            self.error(
                "E0105",
                span,
                format!("`{class}` takes one argument"),
                format!("write `{class}(x)`"),
            );
            return None;
        };
        let id = self.scalar_expr(arg, "the value to convert")?;
        Some(self.new_expr(ExprKind::Convert(id), Type::scalar(class), span))
    }

    fn size_query(&mut self, name: &str, args: &[ast::Expr], span: Span) -> Option<ExprId> {
        let double = Type::scalar(Class::Double);
        let (array_arg, dim_arg) = match (name, args) {
            ("numel" | "length", [a]) => (a, None),
            ("size", [a, d]) => (a, Some(d)),
            _ => {
                let help = if name == "size" {
                    "write size(A, 1) or size(A, 2); size(A) returns a vector, which is not supported yet"
                } else {
                    "pass exactly one array"
                };
                self.error(
                    "E0105",
                    span,
                    format!("unsupported arguments to `{name}`"),
                    help.into(),
                );
                return None;
            }
        };
        let target = self.expr(array_arg)?;
        let query = match dim_arg {
            None if name == "numel" => SizeQuery::Numel,
            None => SizeQuery::Length,
            Some(d) => self.size_dim(d)?,
        };
        let ExprKind::Local(array) = self.exprs[target].kind else {
            // Sizes of scalars are known: 1.
            if self.exprs[target].ty.is_scalar() {
                return Some(self.constant_expr(1.0, Class::Double, span));
            }
            self.unsupported(
                span,
                &format!("`{name}` of an expression"),
                "apply it to a variable",
            );
            return None;
        };
        if self.locals[array].ty.is_scalar() {
            return Some(self.constant_expr(1.0, Class::Double, span));
        }
        Some(self.new_expr(ExprKind::Size(array, query), double, span))
    }

    fn size_dim(&mut self, d: &ast::Expr) -> Option<SizeQuery> {
        match d.kind {
            AstExpr::Number { value, .. } if value == 1.0 || value == 2.0 => {
                Some(SizeQuery::Dim(value as u8))
            }
            _ => {
                self.error(
                    "E0105",
                    d.span,
                    "the dimension of `size(A, k)` must be the literal 1 or 2".into(),
                    "write size(A, 1) for rows or size(A, 2) for columns".into(),
                );
                None
            }
        }
    }
}

/// A `zeros`/`ones` call.
struct Allocation {
    fill: Fill,
    class: Class,
    rows: ExprId,
    cols: ExprId,
}

impl Allocation {
    fn fill_value(&self) -> f64 {
        match self.fill {
            Fill::Zeros => 0.0,
            Fill::Ones => 1.0,
        }
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
    Shape::new(join(a.rows, b.rows), join(a.cols, b.cols))
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

fn strip_parens(e: &ast::Expr) -> &ast::Expr {
    match &e.kind {
        AstExpr::Paren(inner) => strip_parens(inner),
        _ => e,
    }
}
