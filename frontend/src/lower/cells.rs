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
//! Invariants (each broken one is E0166, with a help line that keeps MATLAB's result):
//! - a literal cell's texts are non-empty literals (`c{k}` of `''` is 0-by-0 in Octave, and a
//!   slice here is 1-by-0), and the cell is one row or one column;
//! - a cell is assigned once, in the straight-line part of the function body, so every read
//!   lowered after it passes through its assignment (no undefined array is ever read);
//! - the name of a cell means nothing else in that function: another assignment to it, `c(k)`,
//!   `c{k} = v`, or `c` as a value (an argument, an operand) is refused;
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
        self.new_cell_allowed(name, span)?;
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
        let len = self.scope.names[&hidden(LEN, name).name];
        self.cell_texts.insert(len, texts);
        None
    }

    /// Checks that `name` may become a new cell here: no variable or cell has the name yet, and
    /// the assignment is in the straight-line part of the function body.
    pub(super) fn new_cell_allowed(&mut self, name: &ast::Ident, span: Span) -> Option<()> {
        if self.scope.names.contains_key(&name.name) || self.is_text_cell(&name.name) {
            self.cell_reassigned(name);
            return None;
        }
        if self.frames.len() != self.body_frame {
            self.cell_refused(
                span,
                "a cell assigned inside a loop or branch",
                "assign the cell once, before the loops and branches that use it",
            );
            return None;
        }
        Some(())
    }

    /// Gives the three locals of the new cell `name` its MATLAB name: users see them as their
    /// cell array, and a bad index names the cell.
    pub(super) fn name_cell_parts(&mut self, name: &ast::Ident) {
        for prefix in [TEXT, START, LEN] {
            let id = self.scope.names[&hidden(prefix, name).name];
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
        self.cell_index_counter += 1;
        let index = ast::Ident {
            name: format!("{INDEX}{}_{name}", self.cell_index_counter),
            span: arg.span,
        };
        self.assign(&[ast::LValue::Var(index.clone())], &arg, arg.span)?;
        if !self.locals[self.scope.names[&index.name]].ty.is_scalar() {
            self.cell_refused(
                arg.span,
                "a cell indexed with several indices at once (a list of texts)",
                "index one text at a time: c{k} in a loop",
            );
            return None;
        }
        let slice = content_slice(name, &index, span);
        self.value(&slice)
    }

    /// `numel(c)` and the other shape readers of a text cell: the same call on its lengths.
    pub(super) fn cell_shape_call(
        &mut self,
        callee: &ast::Ident,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Option<Val>> {
        let [first, rest @ ..] = args else {
            return None;
        };
        let AstExpr::Ident(name) = &first.kind else {
            return None;
        };
        if !self.is_text_cell(name) || !SHAPE_READERS.contains(&callee.name.as_str()) {
            return None;
        }
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
            &format!("the cell `{name}` used as a value (only c{{k}}, numel, length, size, isempty and ndims of it are supported)"),
            "take its texts one at a time with braces: c{k}",
        );
    }

    fn cell_refused(&mut self, span: Span, what: &str, help: &str) -> Option<StmtId> {
        self.error(
            "E0166",
            span,
            format!("{what} is not supported"),
            help.into(),
        );
        None
    }
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
fn with_end(arg: &ast::Expr, count: &ast::Expr) -> ast::Expr {
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
