//! Cell-valued expressions of cells of texts (`lower::cells`): a copy `d = c`, `c(idx)`
//! (indices or a mask), `unique(c)` and `strtrim`/`deblank`/`upper`/`lower` of a cell, assigned to a new cell (`u = unique(words)`) or read at once by a call that
//! takes a cell (`strjoin(words(mask), ', ')`, `cellfun(f, c(2:end))`, `str2double(...)`)
//! through a temporary cell; `strsplit(...)` is one too (`lower::split`).
//!
//! Invariants:
//! - `c(idx)` keeps `c`'s text row and selects its offsets and lengths, so an index out of
//!   range stops as indexing the cell's lengths does, naming the cell; `end` in `idx` is the
//!   cell's length;
//! - `unique(c)` sorts by character codes and drops repeats (`m2cu_cell_unique.m`), keeping
//!   the cell's orientation;
//! - a named cell made so is assigned once in straight-line code, as every named cell.

use super::array::Val;
use super::ast_build::{call, ident};
use super::cells::{cell_parts, hidden, LEN, START, TEXT};
use super::*;

/// A cell-valued expression.
enum CellValue<'e> {
    /// `c` itself (`d = c`, a copy).
    Copy { cell: String },
    /// `c(idx)`.
    Select { cell: String, index: &'e ast::Expr },
    /// `unique(c)`.
    Unique { cell: String },
    /// `strsplit(args)`.
    Split { args: &'e [ast::Expr] },
    /// `strtrim(c)`, `deblank(c)`, `upper(c)` or `lower(c)` of a cell-valued `c`: the function
    /// of each text (`m2cu_cell_map.m`).
    Mapped {
        function: &'static str,
        cell: &'e ast::Expr,
    },
    /// `arrayfun(f, x, 'UniformOutput', false)` of a function that gives texts
    /// (`m2cu_map_texts.m`).
    TextsOfArray {
        handle: &'e ast::Expr,
        array: &'e ast::Expr,
    },
    /// `cellfun(f, c, 'UniformOutput', false)` of a cell-valued `c` and a function that gives
    /// texts (`m2cu_cell_map_with.m`).
    TextsOfCell {
        handle: &'e ast::Expr,
        cell: &'e ast::Expr,
    },
}

/// The handle `@name` of a function that lowering translates only by name (`@num2str`,
/// `expr::OTHER_CALLS`) as `@(v) name(v)`, which calls it so; any other handle as it is.
fn wrapped(handle: &ast::Expr) -> ast::Expr {
    let AstExpr::FuncHandle(name) = &handle.kind else {
        return handle.clone();
    };
    if !super::expr::OTHER_CALLS.contains(&name.name.as_str()) {
        return handle.clone();
    }
    let param = ast::Ident {
        name: "_v".into(),
        span: handle.span,
    };
    let body = call(
        &name.name,
        vec![ident(&param.name, handle.span)],
        handle.span,
    );
    ast::Expr {
        kind: AstExpr::AnonFn {
            params: vec![param],
            body: Box::new(body),
        },
        span: handle.span,
    }
}

/// Whether `option, value` are `'UniformOutput', false` (the option's case as MATLAB ignores
/// it; the value `false` or `0`).
fn non_uniform(option: &ast::Expr, value: &ast::Expr) -> bool {
    let named = matches!(&option.kind, AstExpr::Str(t) if t.eq_ignore_ascii_case("UniformOutput"));
    let off = match &value.kind {
        AstExpr::Ident(n) => n == "false",
        AstExpr::Number { value, .. } => *value == 0.0,
        _ => false,
    };
    named && off
}

/// The text functions that a cell of texts maps, text by text.
const MAPPED: [&str; 4] = ["strtrim", "deblank", "upper", "lower"];

impl Lowerer<'_> {
    /// What cell-valued expression `e` is, if any.
    fn cell_value<'e>(&self, e: &'e ast::Expr) -> Option<CellValue<'e>> {
        let (callee, args) = match &strip_parens(e).kind {
            AstExpr::Call { callee, args } => (callee, args),
            AstExpr::Ident(n) if self.is_text_cell(n) => {
                return Some(CellValue::Copy { cell: n.clone() })
            }
            _ => return None,
        };
        let name = callee.name.as_str();
        match args.as_slice() {
            [index] if self.is_text_cell(name) => Some(CellValue::Select {
                cell: name.to_string(),
                index,
            }),
            [c @ ast::Expr {
                kind: AstExpr::Ident(cell),
                ..
            }] if name == "unique" && !self.is_function_of_program("unique") => self
                .names_text_cell(c)
                .then(|| CellValue::Unique { cell: cell.clone() }),
            _ if name == "strsplit" && !self.is_function("strsplit") => {
                Some(CellValue::Split { args })
            }
            [handle, array, option, value]
                if name == "arrayfun"
                    && !self.is_function_of_program(name)
                    && non_uniform(option, value) =>
            {
                Some(CellValue::TextsOfArray { handle, array })
            }
            [handle, cell, option, value]
                if name == "cellfun"
                    && !self.is_function_of_program(name)
                    && non_uniform(option, value)
                    && (self.names_text_cell(cell) || self.cell_value(cell).is_some()) =>
            {
                Some(CellValue::TextsOfCell { handle, cell })
            }
            [cell] if !self.is_function_of_program(name) => {
                let function = MAPPED.into_iter().find(|f| *f == name)?;
                let of_cell = self.names_text_cell(cell) || self.cell_value(cell).is_some();
                of_cell.then_some(CellValue::Mapped { function, cell })
            }
            _ => None,
        }
    }

    /// Whether `e` names a text cell or is a cell-valued expression (`upper(c)`, `c(mask)`).
    pub(super) fn is_cell_valued(&self, e: &ast::Expr) -> bool {
        self.names_text_cell(e) || self.cell_value(e).is_some()
    }

    /// Whether `name` is a function of the program (not m2cu's own library).
    pub(super) fn is_function_of_program(&self, name: &str) -> bool {
        self.is_function(name) && !self.runs_bundled(name)
    }

    /// `name = c(idx)` or `name = unique(c)`: the new cell `name`; `None` when `value` is no
    /// such expression.
    pub(super) fn assign_cell_value(
        &mut self,
        name: &ast::Ident,
        value: &ast::Expr,
        span: Span,
    ) -> Option<Option<StmtId>> {
        let kind = self.cell_value(value)?;
        if matches!(kind, CellValue::Split { .. }) {
            return None;
        }
        if self.new_cell_allowed(name).is_none() {
            return Some(None);
        }
        self.make_cell(name, kind, span);
        Some(None)
    }

    /// The cell `e` denotes, by name: a cell variable, or a temporary cell made from a
    /// cell-valued expression; `None` when `e` is no cell, `Some(None)` when making it failed
    /// (reported).
    pub(super) fn cell_operand(&mut self, e: &ast::Expr) -> Option<Option<ast::Ident>> {
        if let AstExpr::Ident(n) = &strip_parens(e).kind {
            return self.is_text_cell(n).then(|| {
                Some(ast::Ident {
                    name: n.clone(),
                    span: e.span,
                })
            });
        }
        let kind = self.cell_value(e)?;
        self.split_temporaries += 1;
        let temp = ast::Ident {
            name: format!("_cellval_{}", self.split_temporaries),
            span: e.span,
        };
        Some(self.make_cell(&temp, kind, e.span).map(|()| temp))
    }

    /// A text cell passed to a function whole (`f(c)`, `f(words(2:end))`): its three parts;
    /// `None` when `e` is no cell.
    pub(super) fn cell_argument(&mut self, e: &ast::Expr) -> Option<Option<super::handles::Parts>> {
        let name = match self.cell_operand(e)? {
            Some(name) => name,
            None => return Some(None),
        };
        let mut values = Vec::new();
        for prefix in [TEXT, START, LEN] {
            match self.value(&ident(&hidden(prefix, &name).name, e.span)) {
                Some(val) => values.push((prefix.to_string(), val)),
                None => return Some(None),
            }
        }
        Some(Some(super::handles::Parts {
            whole: super::handles::Whole::Cell,
            values,
        }))
    }

    /// The three parts of the cell `target` from the expression `kind`.
    fn make_cell(&mut self, target: &ast::Ident, kind: CellValue, span: Span) -> Option<()> {
        match kind {
            CellValue::Split { args } => return self.split_cell(target, args, span),
            CellValue::Copy { cell } => {
                let source = ast::Ident { name: cell, span };
                for prefix in [TEXT, START, LEN] {
                    let part = ident(&hidden(prefix, &source).name, span);
                    self.assign(&[ast::LValue::Var(hidden(prefix, target))], &part, span)?;
                }
            }
            CellValue::Select { cell, index } => {
                let source = ast::Ident {
                    name: cell,
                    span: index.span,
                };
                let count = call("numel", vec![ident(&hidden(LEN, &source).name, span)], span);
                let index = super::cells::with_end(index, &count);
                let held = self.hidden_variable_of("celli", &index, span)?;
                let held = self.as_vector_index(held, &source);
                let text = ident(&hidden(TEXT, &source).name, span);
                self.assign(&[ast::LValue::Var(hidden(TEXT, target))], &text, span)?;
                for prefix in [START, LEN] {
                    let part = call(&hidden(prefix, &source).name, vec![held.clone()], span);
                    self.cell_part(&hidden(prefix, target), &part, span)?;
                }
            }
            CellValue::Unique { cell } => {
                let source = ast::Ident { name: cell, span };
                let targets = [TEXT, START, LEN].map(|p| ast::LValue::Var(hidden(p, target)));
                let unique = call("m2cu_cell_unique", cell_parts(&source, span), span);
                self.assign(&targets, &unique, span)?;
            }
            CellValue::TextsOfArray { handle, array } => {
                let targets = [TEXT, START, LEN].map(|p| ast::LValue::Var(hidden(p, target)));
                let args = vec![wrapped(handle), array.clone()];
                self.assign(&targets, &call("m2cu_map_texts", args, span), span)?;
            }
            CellValue::TextsOfCell { handle, cell } => {
                let source = self.cell_operand(cell)??;
                let targets = [TEXT, START, LEN].map(|p| ast::LValue::Var(hidden(p, target)));
                let mut args = vec![wrapped(handle)];
                args.extend(cell_parts(&source, span));
                self.assign(&targets, &call("m2cu_cell_map_with", args, span), span)?;
            }
            CellValue::Mapped { function, cell } => {
                let source = self.cell_operand(cell)??;
                let targets = [TEXT, START, LEN].map(|p| ast::LValue::Var(hidden(p, target)));
                let mut args = cell_parts(&source, span);
                args.push(ast::Expr {
                    kind: AstExpr::Str(function.to_string()),
                    span,
                });
                self.assign(&targets, &call("m2cu_cell_map", args, span), span)?;
            }
        }
        self.name_cell_parts(target);
        Some(())
    }

    /// The index `held` (a variable) as a vector: one whose type is a matrix (`order` of
    /// `[~, order] = sort(v)` for a `v` grown from `[]`) is read as `held(:)`, transposed for a
    /// row cell, as MATLAB selects from a vector with a vector.
    fn as_vector_index(&mut self, held: ast::Expr, cell: &ast::Ident) -> ast::Expr {
        let AstExpr::Ident(name) = &held.kind else {
            return held;
        };
        let shape = self.locals[self.scope.names[name]].ty.shape;
        if shape.rows != Dim::Var || shape.cols != Dim::Var {
            return held;
        }
        let span = held.span;
        let colon = ast::Expr {
            kind: AstExpr::Colon,
            span,
        };
        let column = call(name, vec![colon], span);
        let lens = self.scope.names[&hidden(LEN, cell).name];
        if self.locals[lens].ty.shape.rows != Dim::Known(1) {
            return column;
        }
        ast::Expr {
            kind: AstExpr::Postfix {
                op: ast::PostfixOp::Transpose,
                operand: Box::new(column),
            },
            span,
        }
    }

    /// `part = e` for the offsets or lengths of a new cell: an array also when `e` is one
    /// element (a 1-by-1 cell, `c(k)`), as the cell's reads index it.
    fn cell_part(&mut self, part: &ast::Ident, e: &ast::Expr, span: Span) -> Option<()> {
        match self.value(e)? {
            Val::Scalar(one) => {
                let ty = Type::array(Class::Double, Shape::new(Dim::Known(1), Dim::Var));
                let Val::Array(row) = self.row_temp("cellpart", ty, vec![one], span) else {
                    unreachable!("row_temp makes an array")
                };
                let local = self.whole_local(&row);
                self.scope.names.insert(part.name.clone(), local);
            }
            array => {
                self.assign_val(part, array, span)?;
            }
        }
        Some(())
    }

    /// A new hidden variable `_<stem><n>` assigned the expression `e`: the expression that
    /// reads it.
    fn hidden_variable_of(&mut self, stem: &str, e: &ast::Expr, span: Span) -> Option<ast::Expr> {
        let target = self.hidden_name(stem, e.span);
        self.assign(&[ast::LValue::Var(target.clone())], e, span)?;
        Some(ident(&target.name, e.span))
    }
}
