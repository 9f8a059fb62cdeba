//! Cells of texts: `symbols = {'M', 'CM', 'D'}` and `symbols{k}`, the lookup tables of names
//! that real programs keep (issue 15 item 16).
//!
//! A text cell `c` is three locals made where it is assigned, under scope keys no MATLAB name
//! can take (they start with `_`): its texts one after another in one char row
//! ([`TEXT`]), and two double vectors of the cell's own shape (1-by-N, or N-by-1 for
//! `{'a'; 'b'}`) with each text's offset in that row ([`START`]) and its length ([`LEN`]).
//! `c{k}` is `text(start(k)+1 : start(k)+len(k))`, a char row, and `numel`, `length`, `size`,
//! `isempty` and `ndims` of `c` are those of `len`. `start` and `len` carry the MATLAB name `c`
//! and the cell's shape, so a bad `k` stops with Octave's message for the cell
//! (`c(4): out of bound 3 (dimensions are 1x3)`).
//!
//! A cell made when the program runs (`strsplit`, `lower::split`) has the same three parts;
//! its `c{k}` is the same slice, so an empty piece is 1-by-0 as in MATLAB (Octave's strsplit
//! makes it 0-by-0: the two differ only in the size of an empty piece), and `end` in its index
//! is `numel` of its lengths.
//!
//! `c = cell(n)`, `cell(r, c)` and `cell(size(x))` make a cell of empty texts (offsets and
//! lengths 0). `c{k} = v` with a text `v` appends `v` to the text row and stores its offset and
//! length at `k`, growing the offsets and lengths as `x(k) = v` grows a vector (`c{end+1} =
//! v`); the replaced text stays unused in the row. A function that assigns a cell's contents
//! anywhere makes the three parts growable (`NameUses::contents_assigned`) and never folds
//! `c{3}` of its literal texts at translation time.
//!
//! Invariants (each broken one is E0166, with a help line that keeps MATLAB's result):
//! - a literal cell's texts are non-empty literals (`c{k}` of `''` is 0-by-0 in Octave, and a
//!   slice here is 1-by-0), and the cell is one row or one column;
//! - a cell is assigned once in the text of its function; in a loop or branch that statement
//!   makes it anew each time it runs, and a read where it has not run stops as reading any
//!   unassigned array does. Only a literal cell assigned in the straight-line part of the body
//!   has its texts known when translating (`Lowerer::cell_texts`);
//! - the name of a cell means nothing else in that function: another assignment to it, `c(k)`,
//!   or `c` as a value (an argument, an operand) is refused;
//! - `c{k} = v` assigns a char row (or one char, or `''`) to a cell made before, with one
//!   subscript; the content of an unassigned element is a 1-by-0 text (MATLAB: 0-by-0 `[]`;
//!   both are empty and print nothing);
//! - `c{k}` takes one scalar index, evaluated once (into a local of its own) before the slice;
//!   `end` in it is the cell's length.

use super::array::Val;
use super::ast_build::{call, ident, number};
use super::*;

/// Scope key prefix of the char row holding a cell's texts one after another.
pub(super) const TEXT: &str = "_cell_text_";
/// Scope key prefix of the vector of each text's offset in [`TEXT`].
pub(super) const START: &str = "_cell_start_";
/// Scope key prefix of the vector of each text's length.
pub(super) const LEN: &str = "_cell_len_";
/// Scope key prefix of the index local of one `c{k}`.
const INDEX: &str = "_cell_index_";

/// The functions this module translates besides `c{k}` (`cellfun` is lowered with `arrayfun`'s
/// loop, `Lowerer::mapped`).
pub(super) const CELL_FUNCTIONS: [&str; 1] = ["cell"];

/// The builtins that read a cell's shape only.
const SHAPE_READERS: [&str; 5] = ["numel", "length", "size", "isempty", "ndims"];

impl Lowerer<'_> {
    /// Whether `name` is a text cell here.
    pub(super) fn is_text_cell(&self, name: &str) -> bool {
        self.scope.names.contains_key(&format!("{LEN}{name}"))
    }

    /// `name = {'M', 'CM', ...}`.
    pub(super) fn assign_text_cell(
        &mut self,
        name: &ast::Ident,
        items: &[ast::Expr],
        column: bool,
        span: Span,
    ) -> Option<StmtId> {
        let texts: Option<Vec<String>> = items
            .iter()
            .map(|e| match &e.kind {
                AstExpr::Str(t) | AstExpr::StringScalar(t) if !t.is_empty() => Some(t.clone()),
                _ => None,
            })
            .collect();
        let Some(texts) = texts else {
            return self.cell_refused(
                span,
                "a cell with an empty text ''",
                "Octave's c{k} of '' is 0-by-0; test for the empty case apart, or use a text such as ' '",
            );
        };
        self.new_cell_allowed(name)?;
        let mut starts = Vec::new();
        let mut offset = 0;
        for t in &texts {
            starts.push(offset as f64);
            offset += t.chars().count();
        }
        let lens: Vec<f64> = texts.iter().map(|t| t.chars().count() as f64).collect();
        let flat = ast::Expr {
            kind: AstExpr::Str(texts.concat()),
            span,
        };
        self.assign(&[ast::LValue::Var(hidden(TEXT, name))], &flat, span)?;
        for (prefix, values) in [(START, starts), (LEN, lens)] {
            let vector = number_vector(&values, column, span);
            self.assign(&[ast::LValue::Var(hidden(prefix, name))], &vector, span)?;
        }
        self.name_cell_parts(name);
        // Its texts are known where every later read has passed through this assignment.
        let straight_line = self.frames.len() == self.body_frame;
        if straight_line && !self.scope.names_used.contents_assigned.contains(&name.name) {
            let len = self.scope.names[&hidden(LEN, name).name];
            self.cell_texts.insert(len, texts);
        }
        None
    }

    /// `name = cell(args)`: a cell of empty texts of the size `zeros(args)` would have.
    pub(super) fn assign_empty_cell(
        &mut self,
        name: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<StmtId> {
        self.new_cell_allowed(name)?;
        let empty_row = call("zeros", vec![number(1.0, span), number(0.0, span)], span);
        let text = call("char", vec![empty_row], span);
        self.assign(&[ast::LValue::Var(hidden(TEXT, name))], &text, span)?;
        for prefix in [START, LEN] {
            let zeros = call("zeros", args.to_vec(), span);
            self.assign(&[ast::LValue::Var(hidden(prefix, name))], &zeros, span)?;
        }
        self.name_cell_parts(name);
        None
    }

    /// `c{k} = v`: `v` (a text) appended to the cell's text row, its offset and length stored
    /// at `k`.
    pub(super) fn assign_cell_content(
        &mut self,
        base: &ast::Ident,
        args: &[ast::Expr],
        target_span: Span,
        value: &ast::Expr,
        span: Span,
    ) -> Option<StmtId> {
        let name = &base.name;
        if !self.is_text_cell(name) {
            return self.cell_refused(
                target_span,
                &format!("`{name}{{...}} = v` where `{name}` is no cell made before"),
                &format!("make the cell first, before the loops that fill it: {name} = cell(1, n) or {name} = {{}}"),
            );
        }
        let [arg] = args else {
            return self.cell_refused(
                target_span,
                "a cell's content assigned with more than one subscript",
                "index the cell with one subscript: c{k} = v",
            );
        };
        let held = self.hidden_name("cellv", value.span);
        self.assign(&[ast::LValue::Var(held.clone())], value, span)?;
        let held_id = self.scope.names[&held.name];
        let ty = self.locals[held_id].ty;
        let row = ty.is_scalar()
            || ty.shape.rows == Dim::Known(1)
            || (ty.shape.rows == Dim::Known(0) && ty.shape.cols == Dim::Known(0));
        let rows_unknown = ty.shape.rows == Dim::Var && !ty.shape.is_3d();
        if ty.class == Class::Char && rows_unknown && !ty.complex {
            self.one_row_check(held_id, value.span);
        } else if ty.class != Class::Char || !row || ty.complex {
            return self.cell_refused(
                value.span,
                &format!(
                    "a cell of texts given a {} value of size {}",
                    ty.class, ty.shape
                ),
                "m2cu's cells hold texts (char rows) only; keep numbers in an array",
            );
        }
        let count = call("numel", vec![ident(&hidden(LEN, base).name, span)], span);
        let index = self.cell_index(name, &with_end(arg, &count))?;
        let at = |prefix: &str| ast::LValue::Index {
            base: hidden(prefix, base),
            args: vec![ident(&index.name, arg.span)],
            span: target_span,
        };
        let text = ident(&hidden(TEXT, base).name, span);
        let length = call("numel", vec![ident(&held.name, span)], span);
        self.assign(&[at(LEN)], &length, span)?;
        self.assign(&[at(START)], &call("numel", vec![text.clone()], span), span)?;
        let joined = ast::Expr {
            kind: AstExpr::Matrix(vec![vec![text, ident(&held.name, span)]]),
            span,
        };
        self.assign(&[ast::LValue::Var(hidden(TEXT, base))], &joined, span)
    }

    /// Stops with `RuntimeError::CellTextRows` unless the char array `text` (its rows unknown
    /// at translation time: `flag = ''` in one branch, a text in another) has one row or no
    /// element when the program runs.
    fn one_row_check(&mut self, text: LocalId, span: Span) {
        let one_row = self.size_compared(text, SizeQuery::Dim(1), BinOp::Eq, 1.0, span);
        let empty = self.size_compared(text, SizeQuery::Numel, BinOp::Eq, 0.0, span);
        let cond = self.binary_expr(BinOp::Or, one_row, empty, Class::Logical, span);
        let error = crate::ir::RuntimeError::CellTextRows;
        self.push(StmtKind::Check { cond, error }, span);
    }

    /// Checks that `name` may become a new cell here: no variable or cell has the name yet. A
    /// cell has one assignment in the text of its function; inside a loop it makes the cell
    /// anew on every pass (`fields = strsplit(line{r}, ',')`), and a read where no pass has
    /// made it stops, as reading any unassigned array does.
    pub(super) fn new_cell_allowed(&mut self, name: &ast::Ident) -> Option<()> {
        if self.scope.names.contains_key(&name.name) || self.is_text_cell(&name.name) {
            self.cell_reassigned(name);
            return None;
        }
        Some(())
    }

    /// Gives the three locals of the new cell `name` its MATLAB name: users see them as their
    /// cell array, and a bad index names the cell. Where the function assigns the cell's
    /// contents, the three grow.
    pub(super) fn name_cell_parts(&mut self, name: &ast::Ident) {
        let grows = self.scope.names_used.contents_assigned.contains(&name.name);
        for prefix in [TEXT, START, LEN] {
            let id = self.scope.names[&hidden(prefix, name).name];
            if grows {
                self.growth_start(id);
            }
            self.locals[id].shown = crate::ir::Shown::As(name.name.clone());
            if prefix != TEXT {
                self.matlab_names.insert(id, name.name.clone());
            }
        }
    }

    /// `c{args}`.
    pub(super) fn cell_content(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        let name = &callee.name;
        if !self.is_text_cell(name) {
            let what = match self.scope.names.contains_key(name) {
                true => format!("`{name}{{...}}` of a variable that is not a cell"),
                false => format!("`{name}{{...}}` of an undefined cell"),
            };
            self.cell_refused(span, &what, "index arrays with `(...)`; a cell here must be a literal {'a', 'b'} assigned before");
            return None;
        }
        let len = self.scope.names[&format!("{LEN}{name}")];
        if let [colon] = args {
            if matches!(colon.kind, AstExpr::Colon) {
                self.cell_refused(
                    span,
                    &format!("`{name}{{:}}`, a list of all the texts, here"),
                    &format!("print them with fprintf('%s ', {name}{{:}}), join them with [{name}{{:}}] or strjoin({name}, sep), or take one at a time: {name}{{k}}"),
                );
                return None;
            }
        }
        let [arg] = args else {
            self.cell_refused(
                span,
                "a cell indexed with more than one subscript",
                "index the cell with one subscript: c{k}",
            );
            return None;
        };
        let literal = self.cell_texts.get(&len).cloned();
        let count = match &literal {
            Some(texts) => number(texts.len() as f64, arg.span),
            None => call(
                "numel",
                vec![ident(&format!("{LEN}{name}"), arg.span)],
                arg.span,
            ),
        };
        let arg = with_end(arg, &count);
        if let (AstExpr::Number { value, .. }, Some(texts)) = (&arg.kind, &literal) {
            if value.fract() == 0.0 && (1.0..=texts.len() as f64).contains(value) {
                let text = texts[*value as usize - 1].clone();
                return self.char_literal(&text, span);
            }
        }
        let index = self.cell_index(name, &arg)?;
        let slice = content_slice(name, &index, span);
        self.value(&slice)
    }

    /// The scalar local (its name) holding the index `arg` of the cell `name`, evaluated once;
    /// an array index must hold one element when the program runs (`find(..., 1)`).
    fn cell_index(&mut self, name: &str, arg: &ast::Expr) -> Option<ast::Ident> {
        self.cell_index_counter += 1;
        let index = ast::Ident {
            name: format!("{INDEX}{}_{name}", self.cell_index_counter),
            span: arg.span,
        };
        self.assign(&[ast::LValue::Var(index.clone())], arg, arg.span)?;
        let id = self.scope.names[&index.name];
        if self.locals[id].ty.is_scalar() {
            return Some(index);
        }
        let whole = self.whole(id, arg.span);
        let one = self.only_element(&whole, crate::ir::RuntimeError::CellIndexCount);
        let held = self.hidden_name("celli", arg.span);
        self.assign_val(&held, Val::Scalar(one), arg.span)?;
        Some(held)
    }

    /// `cellfun(f, c)` of a text cell `c`: `f` of each text `c{k}`, one scalar each, into an
    /// array of the cell's size and the results' class; `f` is a handle or a function's name
    /// as text (`cellfun('isempty', c)`).
    pub(super) fn cellfun(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [f, c] = args else {
            self.error(
                "E0158",
                span,
                "`cellfun` with options or several cells".into(),
                "write `cellfun(f, c)` with one cell of texts and a function that gives one value per text; `'UniformOutput', false` makes a cell, which m2cu does not make: write a loop that fills c2{k}".into(),
            );
            return None;
        };
        let name = match self.cell_operand(c) {
            Some(Some(name)) => name.name,
            Some(None) => return None,
            None => {
                self.cell_refused(
                    c.span,
                    "`cellfun` of something other than a cell of texts",
                    "m2cu's cells hold texts: pass a cell made before, c = {'a', 'b'}",
                );
                return None;
            }
        };
        let handle = match &f.kind {
            AstExpr::Str(function) => {
                let named = ast::Expr {
                    kind: AstExpr::FuncHandle(ast::Ident {
                        name: function.clone(),
                        span: f.span,
                    }),
                    span: f.span,
                };
                self.handle_expr(&named)
            }
            _ => self.handle_expr(f),
        };
        let Some(handle) = handle else {
            return self.feval_unknown(f.span);
        };
        let handle = handle?;
        let lens = self.scope.names[&format!("{LEN}{name}")];
        let lens = self.whole(lens, span);
        let text = |me: &mut Self, k: LocalId| {
            let content = me.content_at(&name, k, span);
            me.value(&content)
        };
        self.mapped(&handle, "cellfun", &lens, text, span)
    }

    /// Whether `e` is the name of a text cell.
    pub(super) fn names_text_cell(&self, e: &ast::Expr) -> bool {
        matches!(&e.kind, AstExpr::Ident(n) if self.is_text_cell(n))
    }

    /// Whether the first or second argument of a text comparison names a text cell.
    pub(super) fn compares_a_cell(&self, args: &[ast::Expr]) -> bool {
        args.iter().take(2).any(|a| self.is_cell_valued(a))
    }

    /// `cell{k}` for the loop counter `k` of a loop over the cell's texts (`cellfun`,
    /// `fprintf(format, c{:})`): the counter gets a name of its own, which the slice reads.
    pub(super) fn content_at(&mut self, cell: &str, k: LocalId, span: Span) -> ast::Expr {
        self.cell_index_counter += 1;
        let index = ast::Ident {
            name: format!("{INDEX}{}_{cell}", self.cell_index_counter),
            span,
        };
        self.scope.names.insert(index.name.clone(), k);
        content_slice(cell, &index, span)
    }

    /// `strcmp(c, t)` (or `strcmpi`, `strncmp(c, t, n)`, either order) of a text cell `c`: each
    /// text compared, a logical array of the cell's size, as `cellfun(@(s) strcmp(s, t), c)`.
    /// Two cells compared element by element are not supported.
    pub(super) fn cell_compare(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        let (cell, position) = match args {
            [a, b, ..] if self.is_cell_valued(a) && !self.is_cell_valued(b) => (a, 0),
            [a, b, ..] if self.is_cell_valued(b) && !self.is_cell_valued(a) => (b, 1),
            _ => {
                self.cell_refused(
                    span,
                    &format!("`{name}` of two cells"),
                    "compare the texts one pair at a time: strcmp(a{k}, b{k}) in a loop",
                );
                return None;
            }
        };
        let each = self.hidden_name("text", cell.span);
        let mut compared = args.to_vec();
        compared[position] = ident(&each.name, cell.span);
        let body = call(name, compared, span);
        let handle = ast::Expr {
            kind: AstExpr::AnonFn {
                params: vec![each],
                body: Box::new(body),
            },
            span,
        };
        self.cellfun(&[handle, cell.clone()], span)
    }

    /// `[c{:}]` of a text cell `c`: its texts joined (`m2cu_cell_joined.m`, which stops for an
    /// empty cell, whose `[c{:}]` is a double `[]` in MATLAB); `None` for any other matrix.
    pub(super) fn all_texts_joined(
        &mut self,
        rows: &[Vec<ast::Expr>],
        span: Span,
    ) -> Option<Option<Val>> {
        let [row] = rows else {
            return None;
        };
        let [item] = row.as_slice() else {
            return None;
        };
        let AstExpr::CellIndex { callee, args } = &item.kind else {
            return None;
        };
        let [colon] = args.as_slice() else {
            return None;
        };
        if !matches!(colon.kind, AstExpr::Colon) || !self.is_text_cell(&callee.name) {
            return None;
        }
        let name = ast::Ident {
            name: callee.name.clone(),
            span: item.span,
        };
        Some(self.value(&call("m2cu_cell_joined", cell_parts(&name, span), span)))
    }

    /// `numel(c)` and the other shape readers of a text cell (or of a cell-valued expression):
    /// the same call on its lengths.
    pub(super) fn cell_shape_call(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Option<Val>> {
        let [first, rest @ ..] = args else {
            return None;
        };
        if !SHAPE_READERS.contains(&callee.name.as_str()) {
            return None;
        }
        // A cell, or a cell-valued expression (`numel(c(mask))`) read through a temporary.
        let name = match self.cell_operand(first)? {
            Some(name) => name.name,
            None => return Some(None),
        };
        let lens = ast::Expr {
            kind: AstExpr::Ident(format!("{LEN}{name}")),
            span: first.span,
        };
        let args: Vec<ast::Expr> = std::iter::once(lens).chain(rest.iter().cloned()).collect();
        Some(self.call(callee, &args, span))
    }

    /// A second assignment to the name of a cell, or a cell assigned to a variable's name.
    pub(super) fn cell_reassigned(&mut self, name: &ast::Ident) -> Option<StmtId> {
        self.cell_refused(
            name.span,
            &format!("`{}` holding a cell and another value", name.name),
            "give the cell a name of its own, assigned once",
        )
    }

    /// A text cell read whole (`c`, `c(k)`): E0166.
    pub(super) fn cell_as_value(&mut self, name: &str, span: Span) {
        self.cell_refused(
            span,
            &format!("the cell `{name}` used as a value in an expression"),
            "take its texts with braces (c{k}), compare them with strcmp(c, 'text'), map them with cellfun, or pass the whole cell to a function",
        );
    }

    pub(super) fn cell_refused(&mut self, span: Span, what: &str, help: &str) -> Option<StmtId> {
        self.error(
            "E0166",
            span,
            format!("{what} is not supported"),
            help.into(),
        );
        None
    }
}

/// The names whose cell contents `functions` assign, `c{k} = v`.
pub(super) fn contents_assigned(functions: &[ast::Function]) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    for_each_function(functions, &mut |f| {
        walk_stmts(&f.body, &mut |s| {
            if let AstStmt::Assign { targets, .. } = &s.kind {
                for t in targets {
                    if let ast::LValue::Content { base, .. } = t {
                        out.insert(base.name.clone());
                    }
                }
            }
        })
    });
    out
}

/// The identifier of the part `prefix` of the cell `name`.
pub(super) fn hidden(prefix: &str, name: &ast::Ident) -> ast::Ident {
    ast::Ident {
        name: format!("{prefix}{}", name.name),
        span: name.span,
    }
}

/// The three parts of the cell `name` (text, offsets, lengths) read as values, for m2cu's own
/// helpers that take a cell (`m2cu_strjoin`, `m2cu_str2double_cell`).
pub(super) fn cell_parts(name: &ast::Ident, span: Span) -> Vec<ast::Expr> {
    [TEXT, START, LEN]
        .iter()
        .map(|p| ident(&hidden(p, name).name, span))
        .collect()
}

/// `[v1, v2, ...]` (or a column `[v1; v2; ...]`) of numbers.
fn number_vector(values: &[f64], column: bool, span: Span) -> ast::Expr {
    let numbers = values.iter().map(|&value| ast::Expr {
        kind: AstExpr::Number {
            value,
            text: format!("{value}"),
        },
        span,
    });
    let rows = match column {
        true => numbers.map(|n| vec![n]).collect(),
        false => vec![numbers.collect()],
    };
    ast::Expr {
        kind: AstExpr::Matrix(rows),
        span,
    }
}

/// `text(start(k)+1 : start(k)+len(k))` for the cell `name` and the index local `k`.
fn content_slice(name: &str, k: &ast::Ident, span: Span) -> ast::Expr {
    let expr = |kind| ast::Expr { kind, span };
    let at = |prefix: &str| {
        expr(AstExpr::Call {
            callee: ast::Ident {
                name: format!("{prefix}{name}"),
                span,
            },
            args: vec![expr(AstExpr::Ident(k.name.clone()))],
        })
    };
    let add = |lhs, rhs| {
        expr(AstExpr::Binary {
            op: BinaryOp::Add,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        })
    };
    let one = expr(AstExpr::Number {
        value: 1.0,
        text: "1".into(),
    });
    let range = expr(AstExpr::Range {
        start: Box::new(add(at(START), one)),
        step: None,
        stop: Box::new(add(at(START), at(LEN))),
    });
    expr(AstExpr::Call {
        callee: ast::Ident {
            name: format!("{TEXT}{name}"),
            span,
        },
        args: vec![range],
    })
}

/// `arg` with each `end` that belongs to the cell's index (not to an index nested in it)
/// replaced by the cell's length `count`.
pub(super) fn with_end(arg: &ast::Expr, count: &ast::Expr) -> ast::Expr {
    let mut arg = arg.clone();
    replace_end(&mut arg, count);
    arg
}

fn replace_end(e: &mut ast::Expr, count: &ast::Expr) {
    match &mut e.kind {
        AstExpr::End => e.kind = count.kind.clone(),
        AstExpr::Unary { operand, .. } | AstExpr::Postfix { operand, .. } => {
            replace_end(operand, count)
        }
        AstExpr::Paren(inner) => replace_end(inner, count),
        AstExpr::Binary { lhs, rhs, .. } => {
            replace_end(lhs, count);
            replace_end(rhs, count);
        }
        AstExpr::Range { start, step, stop } => {
            replace_end(start, count);
            if let Some(step) = step {
                replace_end(step, count);
            }
            replace_end(stop, count);
        }
        _ => {}
    }
}
