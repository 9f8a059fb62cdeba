//! The AST as an indented tree, one node per line (two spaces per level).
//!
//! The text is stable: it is what the parser snapshots and `m2cu parse FILE.m` show. Each line
//! is a node kind followed by its names, operators or literal (numbers in their source
//! spelling, char literals quoted MATLAB-style); a child that plays a named role is prefixed
//! with the role (`range:`, `value:`). Spans are not printed.

use std::fmt::Write;

use crate::ast::{
    ArgDecl, CaseLabels, DimSpec, Expr, ExprKind, File, Function, Ident, LValue, PostfixOp, Stmt,
    StmtKind,
};

/// The AST of a whole file.
pub fn print_tree(file: &File) -> String {
    let mut p = Printer::default();
    p.line(
        0,
        "",
        if file.codegen_directive {
            "File %#codegen"
        } else {
            "File"
        },
    );
    for f in &file.functions {
        p.function(1, f);
    }
    p.out
}

/// The AST of one expression.
pub fn print_expr_tree(expr: &Expr) -> String {
    let mut p = Printer::default();
    p.expr(0, "", expr);
    p.out
}

#[derive(Default)]
struct Printer {
    out: String,
}

fn names(idents: &[Ident]) -> String {
    idents
        .iter()
        .map(|i| i.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn quoted(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

impl Printer {
    fn line(&mut self, depth: usize, role: &str, text: &str) {
        let _ = writeln!(self.out, "{:indent$}{role}{text}", "", indent = depth * 2);
    }

    fn function(&mut self, d: usize, f: &Function) {
        self.line(d, "", &format!("Function {}", f.name.name));
        if !f.outputs.is_empty() {
            self.line(d + 1, "outputs: ", &names(&f.outputs));
        }
        if !f.params.is_empty() {
            self.line(d + 1, "params: ", &names(&f.params));
        }
        if !f.arguments.is_empty() {
            self.line(d + 1, "arguments:", "");
            for a in &f.arguments {
                self.line(d + 2, "", &arg_decl(a));
            }
        }
        self.body(d + 1, "body:", &f.body);
        if !f.nested.is_empty() {
            self.line(d + 1, "nested:", "");
            for n in &f.nested {
                self.function(d + 2, n);
            }
        }
    }

    fn body(&mut self, d: usize, role: &str, stmts: &[Stmt]) {
        self.line(d, role, "");
        for s in stmts {
            self.stmt(d + 1, s);
        }
    }

    fn stmt(&mut self, d: usize, s: &Stmt) {
        let shown = if s.shown { " (shown)" } else { "" };
        match &s.kind {
            StmtKind::Expr(e) => {
                self.line(d, "", &format!("ExprStmt{shown}"));
                self.expr(d + 1, "", e);
            }
            StmtKind::Assign { targets, value } => {
                self.line(d, "", &format!("Assign{shown}"));
                for t in targets {
                    self.lvalue(d + 1, t);
                }
                self.expr(d + 1, "value: ", value);
            }
            StmtKind::For { var, range, body } => {
                self.line(d, "", &format!("For {}", var.name));
                self.expr(d + 1, "range: ", range);
                self.body(d + 1, "body:", body);
            }
            StmtKind::While { cond, body } => {
                self.line(d, "", "While");
                self.expr(d + 1, "cond: ", cond);
                self.body(d + 1, "body:", body);
            }
            StmtKind::If { clauses, else_body } => self.if_stmt(d, clauses, else_body.as_deref()),
            StmtKind::Switch {
                subject,
                cases,
                otherwise,
            } => {
                self.line(d, "", "Switch");
                self.expr(d + 1, "subject: ", subject);
                for case in cases {
                    match &case.labels {
                        CaseLabels::Single(e) => self.expr(d + 1, "case: ", e),
                        CaseLabels::Cell(es) => {
                            self.line(d + 1, "case: ", "Cell");
                            for e in es {
                                self.expr(d + 2, "", e);
                            }
                        }
                    }
                    self.body(d + 1, "then:", &case.body);
                }
                if let Some(body) = otherwise {
                    self.body(d + 1, "otherwise:", body);
                }
            }
            StmtKind::Break => self.line(d, "", "Break"),
            StmtKind::Continue => self.line(d, "", "Continue"),
            StmtKind::Return => self.line(d, "", "Return"),
            StmtKind::Declare { kind, names } => {
                let names: Vec<&str> = names.iter().map(|n| n.name.as_str()).collect();
                self.line(
                    d,
                    "",
                    &format!("Declare {} {}", kind.word(), names.join(" ")),
                );
            }
        }
    }

    fn if_stmt(&mut self, d: usize, clauses: &[(Expr, Vec<Stmt>)], else_body: Option<&[Stmt]>) {
        self.line(d, "", "If");
        for (n, (cond, body)) in clauses.iter().enumerate() {
            self.expr(d + 1, if n == 0 { "if: " } else { "elseif: " }, cond);
            self.body(d + 1, "then:", body);
        }
        if let Some(body) = else_body {
            self.body(d + 1, "else:", body);
        }
    }

    fn lvalue(&mut self, d: usize, t: &LValue) {
        match t {
            LValue::Var(v) => self.line(d, "target: ", &format!("Var {}", v.name)),
            LValue::Index { base, args, .. } => {
                self.line(d, "target: ", &format!("Index {}", base.name));
                for a in args {
                    self.expr(d + 1, "", a);
                }
            }
            LValue::Content { base, args, .. } => {
                self.line(d, "target: ", &format!("Content {}", base.name));
                for a in args {
                    self.expr(d + 1, "", a);
                }
            }
            LValue::ElementField {
                base, args, field, ..
            } => {
                let text = format!("ElementField {}().{}", base.name, field.name);
                self.line(d, "target: ", &text);
                for a in args {
                    self.expr(d + 1, "", a);
                }
            }
            LValue::Ignore(_) => self.line(d, "target: ", "Ignore ~"),
        }
    }

    fn expr(&mut self, d: usize, role: &str, e: &Expr) {
        match &e.kind {
            ExprKind::Number { text, .. } => self.line(d, role, &format!("Number {text}")),
            ExprKind::Imaginary { text, .. } => self.line(d, role, &format!("Imaginary {text}")),
            ExprKind::Str(s) => self.line(d, role, &format!("Str {}", quoted(s))),
            ExprKind::StringScalar(s) => self.line(d, role, &format!("StringScalar {}", quoted(s))),
            ExprKind::Ident(name) => self.line(d, role, &format!("Ident {name}")),
            ExprKind::Unary { op, operand } => {
                self.line(d, role, &format!("Unary {}", op.symbol()));
                self.expr(d + 1, "", operand);
            }
            ExprKind::Binary { op, lhs, rhs } => {
                self.line(d, role, &format!("Binary {}", op.symbol()));
                self.expr(d + 1, "", lhs);
                self.expr(d + 1, "", rhs);
            }
            ExprKind::Range { start, step, stop } => {
                self.line(d, role, "Range");
                self.expr(d + 1, "start: ", start);
                if let Some(step) = step {
                    self.expr(d + 1, "step: ", step);
                }
                self.expr(d + 1, "stop: ", stop);
            }
            ExprKind::Call { callee, args } => {
                let empty = if args.is_empty() { "()" } else { "" };
                self.line(d, role, &format!("Call {}{empty}", callee.name));
                for a in args {
                    self.expr(d + 1, "", a);
                }
            }
            ExprKind::Colon => self.line(d, role, "Colon"),
            ExprKind::End => self.line(d, role, "End"),
            ExprKind::Matrix(rows) => self.matrix(d, role, rows),
            ExprKind::Paren(inner) => {
                self.line(d, role, "Paren");
                self.expr(d + 1, "", inner);
            }
            ExprKind::Postfix { op, operand } => {
                let symbol = match op {
                    PostfixOp::CTranspose => "'",
                    PostfixOp::Transpose => ".'",
                };
                self.line(d, role, &format!("Postfix {symbol}"));
                self.expr(d + 1, "", operand);
            }
            ExprKind::FuncHandle(name) => self.line(d, role, &format!("FuncHandle @{}", name.name)),
            ExprKind::HandleCell(handles) => {
                self.line(d, role, "HandleCell");
                for h in handles {
                    self.expr(d + 1, "", h);
                }
            }
            ExprKind::TextCell { items, column } => {
                let shape = if *column { "column" } else { "row" };
                self.line(d, role, &format!("TextCell {shape}"));
                for item in items {
                    self.expr(d + 1, "", item);
                }
            }
            ExprKind::CellIndex { callee, args } => {
                self.line(d, role, &format!("CellIndex {}", callee.name));
                for a in args {
                    self.expr(d + 1, "", a);
                }
            }
            ExprKind::ElementField {
                callee,
                args,
                field,
            } => {
                let text = format!("ElementField {}().{}", callee.name, field.name);
                self.line(d, role, &text);
                for a in args {
                    self.expr(d + 1, "", a);
                }
            }
            ExprKind::AnonFn { params, body } => {
                let names: Vec<&str> = params.iter().map(|p| p.name.as_str()).collect();
                self.line(d, role, &format!("AnonFn @({})", names.join(", ")));
                self.expr(d + 1, "", body);
            }
        }
    }

    fn matrix(&mut self, d: usize, role: &str, rows: &[Vec<Expr>]) {
        if rows.is_empty() {
            self.line(d, role, "Matrix []");
            return;
        }
        self.line(d, role, "Matrix");
        for row in rows {
            self.line(d + 1, "", "Row");
            for e in row {
                self.expr(d + 2, "", e);
            }
        }
    }
}

fn arg_decl(a: &ArgDecl) -> String {
    let mut text = format!("Arg {}", a.name.name);
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
