//! The stable text form of the typed IR, used by snapshots and `m2cu check --emit ir`.
//!
//! Format: a header with the signature, a table of locals with their types, then the body with
//! one statement per line. Expressions are fully parenthesized; a binary, unary or builtin result
//! whose class is not double (or logical, for comparisons) is suffixed with `:class`.

use std::fmt::Write;

use crate::ir::{
    Block, ExprId, ExprKind, Function, PrintPiece, PrintTo, SizeQuery, StmtKind, UnOp,
};
use crate::types::Class;

/// Prints a function of the IR.
pub fn print_function(f: &Function) -> String {
    let mut p = Printer {
        f,
        out: String::new(),
    };
    p.header();
    p.block(&f.body, 1);
    p.out.push_str("end\n");
    for (_, c) in f.combiners.iter() {
        p.combiner(c);
    }
    p.out
}

struct Printer<'f> {
    f: &'f Function,
    out: String,
}

impl Printer<'_> {
    fn name(&self, id: crate::ir::LocalId) -> &str {
        &self.f.locals[id].name
    }

    fn header(&mut self) {
        let f = self.f;
        let outs: Vec<&str> = f.outputs.iter().map(|&o| self.name(o)).collect();
        let params: Vec<&str> = f.params.iter().map(|&p| self.name(p)).collect();
        let _ = writeln!(
            self.out,
            "function [{}] = {}({})",
            outs.join(", "),
            f.name,
            params.join(", ")
        );
        for (_, local) in f.locals.iter() {
            let integral = match (local.integral, local.loop_integral) {
                (true, _) => " integral",
                (false, true) => " integral in its loops",
                (false, false) => "",
            };
            let _ = writeln!(self.out, "  local {}: {}{}", local.name, local.ty, integral);
        }
    }

    /// `combiner out = name(a, b)`, its body, `end`.
    fn combiner(&mut self, c: &crate::ir::Combiner) {
        let inputs: Vec<&str> = c
            .params
            .iter()
            .chain(&c.captures)
            .map(|&p| self.name(p))
            .collect();
        let out = self.name(c.output).to_string();
        self.line(
            0,
            &format!("combiner {out} = {}({})", c.name, inputs.join(", ")),
        );
        self.block(&c.body, 1);
        self.line(0, "end");
    }

    fn line(&mut self, depth: usize, text: &str) {
        let _ = writeln!(self.out, "{}{}", "  ".repeat(depth), text);
    }

    fn block(&mut self, block: &Block, depth: usize) {
        for &s in &block.0 {
            self.stmt(s, depth);
        }
    }

    fn stmt(&mut self, s: crate::ir::StmtId, depth: usize) {
        match &self.f.stmts[s].kind {
            StmtKind::Assign { target, value } => {
                let text = format!("{} = {}", self.name(*target), self.expr(*value));
                self.line(depth, &text);
            }
            StmtKind::Alloc {
                target,
                fill,
                rows,
                cols,
                pages,
            } => {
                let func = fill.name();
                let class = self.f.locals[*target].ty.class;
                let extents: Vec<ExprId> = [Some(*rows), Some(*cols), *pages]
                    .into_iter()
                    .flatten()
                    .collect();
                let text = format!(
                    "{} = {func}({}, '{class}')",
                    self.name(*target),
                    self.list(&extents)
                );
                self.line(depth, &text);
            }
            StmtKind::Store {
                array,
                indices,
                value,
            } => {
                let text = format!(
                    "{}({}) = {}",
                    self.name(*array),
                    self.list(indices),
                    self.expr(*value)
                );
                self.line(depth, &text);
            }
            StmtKind::For {
                var,
                start,
                step,
                stop,
                body,
            } => {
                let step = step
                    .map(|s| format!("{}:", self.expr(s)))
                    .unwrap_or_default();
                let text = format!(
                    "for {} = {}:{step}{}",
                    self.name(*var),
                    self.expr(*start),
                    self.expr(*stop)
                );
                self.line(depth, &text);
                self.block(body, depth + 1);
                self.line(depth, "end");
            }
            StmtKind::While { cond, body } => {
                let text = format!("while {}", self.expr(*cond));
                self.line(depth, &text);
                self.block(body, depth + 1);
                self.line(depth, "end");
            }
            StmtKind::If {
                cond,
                then_body,
                else_body,
            } => {
                let text = format!("if {}", self.expr(*cond));
                self.line(depth, &text);
                self.block(then_body, depth + 1);
                if !else_body.0.is_empty() {
                    self.line(depth, "else");
                    self.block(else_body, depth + 1);
                }
                self.line(depth, "end");
            }
            StmtKind::Resize { array, rows, cols } => {
                let text = format!(
                    "resize {}({}, {})",
                    self.name(*array),
                    self.expr(*rows),
                    self.expr(*cols)
                );
                self.line(depth, &text)
            }
            StmtKind::Check { cond, error } => {
                let text = format!("check {} else {error:?}", self.expr(*cond));
                self.line(depth, &text)
            }
            StmtKind::Print { pieces, to } => {
                let text: Vec<String> = pieces
                    .iter()
                    .map(|p| match p {
                        PrintPiece::Text(t) => format!("{t:?}"),
                        PrintPiece::Value {
                            modifiers,
                            conversion,
                            arg,
                        } => format!("%{modifiers}{conversion}({})", self.expr(*arg)),
                        PrintPiece::Display(arg) | PrintPiece::DisplayArray { arg, name: None } => {
                            format!("disp({})", self.expr(*arg))
                        }
                        PrintPiece::DisplayArray {
                            arg,
                            name: Some(name),
                        } => format!("display({}, {name:?})", self.expr(*arg)),
                        PrintPiece::Chars { modifiers, arg } => {
                            format!("%{modifiers}s({})", self.expr(*arg))
                        }
                        PrintPiece::NumberRow {
                            modifiers,
                            arg,
                            precision,
                            lines,
                        } => {
                            let p = precision.map_or(String::new(), |p| format!(", {p}"));
                            let rows = if *lines { " rows" } else { "" };
                            format!("%{modifiers}s(num2str({}{p}){rows})", self.expr(*arg))
                        }
                        PrintPiece::Format { args } => {
                            let args: Vec<String> = args.iter().map(|&a| self.expr(a)).collect();
                            format!("format({})", args.join(", "))
                        }
                        PrintPiece::DropFinalNewline => "drop final newline".into(),
                        PrintPiece::TrimWhitespace => "trim whitespace".into(),
                    })
                    .collect();
                let id = match to {
                    PrintTo::Error { id: Some(id) } => format!(" {id:?}"),
                    PrintTo::Append { row } => format!(" >> {}", self.name(*row)),
                    _ => String::new(),
                };
                self.line(depth, &format!("{}{id} {}", to.function(), text.join(" ")))
            }
            StmtKind::Break => self.line(depth, "break"),
            StmtKind::Continue => self.line(depth, "continue"),
            StmtKind::Return => self.line(depth, "return"),
        }
    }

    fn list(&self, exprs: &[ExprId]) -> String {
        exprs
            .iter()
            .map(|&e| self.expr(e))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn expr(&self, e: ExprId) -> String {
        let expr = &self.f.exprs[e];
        let class = expr.ty.class;
        let suffix = |text: String, natural: Class| {
            if class == natural {
                text
            } else {
                format!("{text}:{class}")
            }
        };
        match &expr.kind {
            ExprKind::Const(v) => match class {
                Class::Double => format_number(*v),
                Class::Logical => (if *v != 0.0 { "true" } else { "false" }).to_string(),
                _ => format!("{class}({})", format_number(*v)),
            },
            ExprKind::Local(l) => self.name(*l).to_string(),
            ExprKind::Unary(op, a) => {
                let sym = match op {
                    UnOp::Neg => "-",
                    UnOp::Not => "~",
                };
                let natural = if *op == UnOp::Not {
                    Class::Logical
                } else {
                    Class::Double
                };
                suffix(format!("({sym}{})", self.expr(*a)), natural)
            }
            ExprKind::Binary(op, a, b) => {
                let natural = if op.is_comparison() || op.is_logical() {
                    Class::Logical
                } else {
                    Class::Double
                };
                let text = format!("({} {} {})", self.expr(*a), op.symbol(), self.expr(*b));
                suffix(text, natural)
            }
            ExprKind::Index(array, idx) => format!("{}({})", self.name(*array), self.list(idx)),
            ExprKind::Call(b, args) => {
                suffix(format!("{}({})", b.name(), self.list(args)), Class::Double)
            }
            ExprKind::Convert(a) if expr.ty.complex => {
                format!("complex {class}({})", self.expr(*a))
            }
            ExprKind::Convert(a) => format!("{class}({})", self.expr(*a)),
            ExprKind::Combine(c, args) => {
                format!("{}({})", self.f.combiners[*c].name, self.list(args))
            }
            ExprKind::Size(array, q) => match q {
                SizeQuery::Numel => format!("numel({})", self.name(*array)),
                SizeQuery::Length => format!("length({})", self.name(*array)),
                SizeQuery::Dim(k) => format!("size({}, {k})", self.name(*array)),
            },
            ExprKind::RangeCount(a, s, b) => format!(
                "numel({}:{}:{})",
                self.expr(*a),
                self.expr(*s),
                self.expr(*b)
            ),
        }
    }
}

/// Formats a double the way it reads best in source: integers without a fraction.
pub fn format_number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "Inf" } else { "-Inf" }.into()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:?}")
    }
}
