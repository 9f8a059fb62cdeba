//! The AST printed back as MATLAB source.
//!
//! [`print_source`] writes text that the parser (MATLAB dialect) turns back into the same tree,
//! spans aside. Invariants of its output:
//! - no parentheses are added or dropped: `Paren` nodes print as written and no others appear,
//!   because the parser only builds trees whose plain printing keeps their shape;
//! - whitespace cannot change the meaning: binary operators have a space on each side, prefix
//!   and postfix operators none, matrix elements are separated by `, ` and rows by `; `, and a
//!   `'` that would otherwise close a char literal or join a number (`'a' '`, `3. '`) gets a
//!   space before it;
//! - a statement ends with `;` unless it displays its value (`Stmt::shown`), so the mark
//!   survives the round trip;
//! - every function ends with `end` (valid MATLAB whatever the original style), and nested
//!   functions print inside their parent, after its statements;
//! - the tree holds only MATLAB forms (the parser desugars Octave's), so the output is MATLAB.
//!
//! One tree does not print back to itself: a char literal holding a line break, which only
//! Octave's double-quoted strings make, prints as a concatenation `['a', char(10), 'b']` of the
//! same value, since a MATLAB char literal cannot span lines.

use std::fmt::Write;

use crate::ast::{
    ArgDecl, CaseLabels, DimSpec, Expr, ExprKind, File, Function, Ident, LValue, PostfixOp, Stmt,
    StmtKind,
};

/// A whole file as MATLAB source.
pub fn print_source(file: &File) -> String {
    let mut p = Printer::default();
    if file.codegen_directive {
        p.out.push_str("%#codegen\n");
    }
    for (n, f) in file.functions.iter().enumerate() {
        if n > 0 {
            p.out.push('\n');
        }
        p.function(0, f);
    }
    p.out
}

/// One expression as MATLAB source (outside any brackets).
pub fn print_expr_source(e: &Expr) -> String {
    expr(e, false)
}

#[derive(Default)]
struct Printer {
    out: String,
}

impl Printer {
    fn line(&mut self, depth: usize, text: &str) {
        let _ = writeln!(self.out, "{:indent$}{text}", "", indent = depth * 2);
    }

    fn function(&mut self, d: usize, f: &Function) {
        self.line(d, &header(f));
        if !f.arguments.is_empty() {
            self.line(d + 1, "arguments");
            for a in &f.arguments {
                self.line(d + 2, &arg_decl(a));
            }
            self.line(d + 1, "end");
        }
        self.block(d + 1, &f.body);
        for nested in &f.nested {
            self.function(d + 1, nested);
        }
        self.line(d, "end");
    }

    fn block(&mut self, d: usize, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(d, s);
        }
    }

    /// A block opened by `head`, with its body, closed by `end`.
    fn closed_block(&mut self, d: usize, head: &str, body: &[Stmt]) {
        self.line(d, head);
        self.block(d + 1, body);
        self.line(d, "end");
    }

    fn stmt(&mut self, d: usize, s: &Stmt) {
        let end = if s.shown { "" } else { ";" };
        match &s.kind {
            StmtKind::Expr(e) => self.line(d, &format!("{}{end}", expr(e, false))),
            StmtKind::Assign { targets, value } => {
                let text = format!("{} = {}{end}", lvalues(targets), expr(value, false));
                self.line(d, &text);
            }
            StmtKind::For { var, range, body } => {
                let head = format!("for {} = {}", var.name, expr(range, false));
                self.closed_block(d, &head, body);
            }
            StmtKind::While { cond, body } => {
                self.closed_block(d, &format!("while {}", expr(cond, false)), body);
            }
            StmtKind::If { clauses, else_body } => {
                for (n, (cond, body)) in clauses.iter().enumerate() {
                    let keyword = if n == 0 { "if" } else { "elseif" };
                    self.line(d, &format!("{keyword} {}", expr(cond, false)));
                    self.block(d + 1, body);
                }
                if let Some(body) = else_body {
                    self.line(d, "else");
                    self.block(d + 1, body);
                }
                self.line(d, "end");
            }
            StmtKind::Switch {
                subject,
                cases,
                otherwise,
            } => {
                self.line(d, &format!("switch {}", expr(subject, false)));
                for case in cases {
                    self.line(d + 1, &format!("case {}", case_labels(&case.labels)));
                    self.block(d + 2, &case.body);
                }
                if let Some(body) = otherwise {
                    self.line(d + 1, "otherwise");
                    self.block(d + 2, body);
                }
                self.line(d, "end");
            }
            StmtKind::Break => self.line(d, "break;"),
            StmtKind::Continue => self.line(d, "continue;"),
            StmtKind::Return => self.line(d, "return;"),
            StmtKind::Declare { kind, names } => {
                let names: Vec<&str> = names.iter().map(|n| n.name.as_str()).collect();
                self.line(d, &format!("{} {};", kind.word(), names.join(" ")));
            }
        }
    }
}

fn names(idents: &[Ident]) -> String {
    let names: Vec<&str> = idents.iter().map(|i| i.name.as_str()).collect();
    names.join(", ")
}

/// `function [a, b] = name(p, q)`.
fn header(f: &Function) -> String {
    let outputs = match f.outputs.as_slice() {
        [] => String::new(),
        [one] => format!("{} = ", one.name),
        many => format!("[{}] = ", names(many)),
    };
    format!("function {outputs}{}({})", f.name.name, names(&f.params))
}

/// `v (1,:) double`.
fn arg_decl(a: &ArgDecl) -> String {
    let mut text = a.name.name.clone();
    if let Some(dims) = &a.dims {
        let dims: Vec<String> = dims
            .iter()
            .map(|d| match d {
                DimSpec::Fixed(n) => n.to_string(),
                DimSpec::Any => ":".to_string(),
            })
            .collect();
        let _ = write!(text, " ({})", dims.join(","));
    }
    if let Some(class) = &a.class {
        let _ = write!(text, " {}", class.name);
    }
    text
}

fn case_labels(labels: &CaseLabels) -> String {
    match labels {
        CaseLabels::Single(e) => expr(e, false),
        CaseLabels::Cell(es) => format!("{{{}}}", list(es, true)),
    }
}

/// `x`, `A(i, :)`, or `[a, ~, B(k)]` for several targets.
fn lvalues(targets: &[LValue]) -> String {
    match targets {
        [one @ (LValue::Var(_)
        | LValue::Index { .. }
        | LValue::Content { .. }
        | LValue::ElementField { .. })] => lvalue(one),
        _ => {
            let all: Vec<String> = targets.iter().map(lvalue).collect();
            format!("[{}]", all.join(", "))
        }
    }
}

fn lvalue(t: &LValue) -> String {
    match t {
        LValue::Var(v) => v.name.clone(),
        LValue::Index { base, args, .. } => format!("{}({})", base.name, list(args, false)),
        LValue::Content { base, args, .. } => format!("{}{{{}}}", base.name, list(args, false)),
        LValue::ElementField {
            base, args, field, ..
        } => format!("{}({}).{}", base.name, list(args, false), field.name),
        LValue::Ignore(_) => "~".to_string(),
    }
}

/// Expressions separated by `, `; `brackets` as in [`expr`].
fn list(es: &[Expr], brackets: bool) -> String {
    let all: Vec<String> = es.iter().map(|e| expr(e, brackets)).collect();
    all.join(", ")
}

/// `e` as source. `brackets`: the innermost enclosing bracket is `[` or `{`, where whitespace
/// separates elements.
fn expr(e: &Expr, brackets: bool) -> String {
    match &e.kind {
        ExprKind::Number { text, .. } | ExprKind::Imaginary { text, .. } => text.clone(),
        ExprKind::Str(s) => char_literal(s),
        ExprKind::StringScalar(s) => format!("\"{}\"", s.replace('"', "\"\"")),
        ExprKind::Ident(name) => name.clone(),
        ExprKind::Unary { op, operand } => format!("{}{}", op.symbol(), expr(operand, brackets)),
        ExprKind::Binary { op, lhs, rhs } => format!(
            "{} {} {}",
            expr(lhs, brackets),
            op.symbol(),
            expr(rhs, brackets)
        ),
        ExprKind::Range { start, step, stop } => {
            let parts: Vec<String> = std::iter::once(start)
                .chain(step)
                .chain(std::iter::once(stop))
                .map(|p| expr(p, brackets))
                .collect();
            parts.join(":")
        }
        ExprKind::Call { callee, args } => format!("{}({})", callee.name, list(args, false)),
        ExprKind::Colon => ":".to_string(),
        ExprKind::End => "end".to_string(),
        ExprKind::Matrix(rows) => {
            let rows: Vec<String> = rows.iter().map(|r| list(r, true)).collect();
            format!("[{}]", rows.join("; "))
        }
        ExprKind::Paren(inner) => format!("({})", expr(inner, false)),
        ExprKind::Postfix { op, operand } => postfix(*op, operand, brackets),
        ExprKind::FuncHandle(name) => format!("@{}", name.name),
        ExprKind::HandleCell(handles) => format!("{{{}}}", list(handles, true)),
        ExprKind::TextCell { items, column } => {
            let items: Vec<String> = items.iter().map(|e| expr(e, true)).collect();
            format!("{{{}}}", items.join(if *column { "; " } else { ", " }))
        }
        ExprKind::CellIndex { callee, args } => {
            format!("{}{{{}}}", callee.name, list(args, false))
        }
        ExprKind::ElementField {
            callee,
            args,
            field,
        } => format!("{}({}).{}", callee.name, list(args, false), field.name),
        ExprKind::AnonFn { params, body } => {
            format!("@({}) {}", names(params), expr(body, brackets))
        }
    }
}

fn postfix(op: PostfixOp, operand: &Expr, brackets: bool) -> String {
    let text = expr(operand, brackets);
    match op {
        PostfixOp::Transpose => format!("{text}.'"),
        PostfixOp::CTranspose if swallows_quote(operand) => format!("{text} '"),
        PostfixOp::CTranspose => format!("{text}'"),
    }
}

/// Whether a `'` written right after `e` would be read as part of its last token: a char
/// literal (`'a''` continues the literal) or a number ending in `.` (`3.'` is `3 .'`).
fn swallows_quote(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Str(_) => true,
        ExprKind::Number { text, .. } => text.ends_with('.'),
        ExprKind::Binary { rhs: last, .. }
        | ExprKind::Unary { operand: last, .. }
        | ExprKind::Range { stop: last, .. }
        | ExprKind::AnonFn { body: last, .. } => swallows_quote(last),
        _ => false,
    }
}

/// `'it''s'`; a line break cannot appear in a char literal, so text holding one prints as a
/// concatenation with `char(10)`.
fn char_literal(s: &str) -> String {
    let quoted = |part: &str| format!("'{}'", part.replace('\'', "''"));
    if !s.contains('\n') {
        return quoted(s);
    }
    let parts: Vec<String> = s.split('\n').map(quoted).collect();
    format!("[{}]", parts.join(", char(10), "))
}
