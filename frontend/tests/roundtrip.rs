//! Round trip of the source printer: parse → `print_source` → parse gives the same tree
//! (compared through `print_tree`, which shows everything but spans), for every `.m` file under
//! `fixtures/` that parses, and for randomly generated expressions.

use std::fs;
use std::path::{Path, PathBuf};

use m2cu_frontend::ast::{BinaryOp, Expr, ExprKind, Ident, PostfixOp, UnaryOp};
use m2cu_frontend::ast_print::{print_expr_tree, print_tree};
use m2cu_frontend::ast_source::{print_expr_source, print_source};
use m2cu_frontend::diag::{render, Span};
use m2cu_frontend::parser::{parse_expr, parse_file, parse_file_with, Dialect, ParseOptions};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn m_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            m_files(&path, out);
        } else if path.extension().is_some_and(|x| x == "m") {
            out.push(path);
        }
    }
}

#[test]
fn every_fixture_prints_back_to_the_same_tree() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    let mut files = Vec::new();
    m_files(&root, &mut files);
    let err_dir = root.join("parse/err");
    let mut checked = 0;
    for path in files.iter().filter(|p| !p.starts_with(&err_dir)) {
        let source = fs::read_to_string(path).expect("read fixture");
        let parsed = [Dialect::Matlab, Dialect::Octave]
            .into_iter()
            .find_map(|dialect| parse_file_with(&source, &ParseOptions { dialect }).ok());
        let Some(file) = parsed else { continue };
        let printed = print_source(&file);
        let again = parse_file(&printed).unwrap_or_else(|d| {
            panic!(
                "{}: the printed source does not parse:\n{printed}\n{}",
                path.display(),
                render("printed.m", &printed, &d)
            )
        });
        assert_eq!(
            print_tree(&file),
            print_tree(&again),
            "{}: printed as\n{printed}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 75, "only {checked} fixtures round-tripped");
}

#[test]
fn tricky_source_prints() {
    let cases = [
        (
            "function y = f(a, b)\ny = [a -b; a' 'x'];\nz = a - -b; w = --a;\nend\n",
            "function y = f(a, b)\n  y = [a, -b; a', 'x'];\n  z = a - -b;\n  w = --a;\nend\n",
        ),
        (
            "function f(x)\ns = 'it''s' ';\nt = 3. ';\nu = x'';\nv = @(k) 'a';\nend\n",
            "function f(x)\n  s = 'it''s' ';\n  t = 3. ';\n  u = x'';\n  v = @(k) 'a';\nend\n",
        ),
        (
            "function p\nx = 1;\n  function q\n  switch x, case {1 2}, x = 2; otherwise, end\n  end\nend\n",
            "function p()\n  x = 1;\n  function q()\n    switch x\n      case {1, 2}\n        x = 2;\n      otherwise\n    end\n  end\nend\n",
        ),
    ];
    for (source, want) in cases {
        let file = parse_file(source).expect("parses");
        assert_eq!(print_source(&file), want);
    }
}

#[test]
fn octave_forms_print_as_matlab() {
    let source = "function y = f(x)\ny = 0;\ny += x * 2;\ny *= x - 1;\ny++;\nif y != 0 && !x\n  s = \"a\\tb\";\nendif\nendfunction\n";
    let options = ParseOptions {
        dialect: Dialect::Octave,
    };
    let file = parse_file_with(source, &options).expect("parses as Octave");
    let printed = print_source(&file);
    assert_eq!(
        printed,
        "function y = f(x)\n  y = 0;\n  y = y + x * 2;\n  y = y * (x - 1);\n  y = y + 1;\n  if y ~= 0 && ~x\n    s = 'a\tb';\n  end\nend\n"
    );
    let again = parse_file(&printed).expect("the MATLAB form parses");
    assert_eq!(print_tree(&file), print_tree(&again));
}

// ---------------------------------------------------------------------------------------------
// Random expressions
// ---------------------------------------------------------------------------------------------

/// Binding levels of generated nodes (higher binds tighter); a node below the level its
/// position needs is wrapped in `Paren`, so every generated tree is one the parser builds.
const ANON: u8 = 0;
const RANGE: u8 = 6;
const ADD: u8 = 7;
const UNARY: u8 = 9;
const POW: u8 = 10;
const PRIMARY: u8 = 11;

fn level(op: BinaryOp) -> u8 {
    use BinaryOp::*;
    match op {
        OrOr => 1,
        AndAnd => 2,
        Or => 3,
        And => 4,
        Eq | Ne | Lt | Le | Gt | Ge => 5,
        Add | Sub => ADD,
        Mul | Div | LeftDiv | ElemMul | ElemDiv | ElemLeftDiv => 8,
        Pow | ElemPow => POW,
    }
}

const BINARY: [BinaryOp; 20] = [
    BinaryOp::Add,
    BinaryOp::Sub,
    BinaryOp::Mul,
    BinaryOp::Div,
    BinaryOp::LeftDiv,
    BinaryOp::Pow,
    BinaryOp::ElemMul,
    BinaryOp::ElemDiv,
    BinaryOp::ElemLeftDiv,
    BinaryOp::ElemPow,
    BinaryOp::Eq,
    BinaryOp::Ne,
    BinaryOp::Lt,
    BinaryOp::Le,
    BinaryOp::Gt,
    BinaryOp::Ge,
    BinaryOp::And,
    BinaryOp::Or,
    BinaryOp::AndAnd,
    BinaryOp::OrOr,
];

/// Where an expression goes: inside an index (`end` allowed), directly inside `[]`.
#[derive(Clone, Copy)]
struct Place {
    index: bool,
    brackets: bool,
}

struct Gen {
    rng: StdRng,
}

fn node(kind: ExprKind) -> Expr {
    Expr {
        kind,
        span: Span::default(),
    }
}

fn ident(name: &str) -> Ident {
    Ident {
        name: name.to_string(),
        span: Span::default(),
    }
}

fn paren(e: Expr) -> Expr {
    node(ExprKind::Paren(Box::new(e)))
}

/// A `'` right after this expression would join its last token (a char literal, or a number
/// ending in `.`): only a space keeps it a transpose, and inside `[]` a space starts a literal.
fn swallows_quote(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Str(_) => true,
        ExprKind::Number { text, .. } => text.ends_with('.'),
        ExprKind::Binary { rhs, .. } => swallows_quote(rhs),
        ExprKind::Unary { operand, .. } => swallows_quote(operand),
        _ => false,
    }
}

impl Gen {
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.rng.gen_range(0..items.len())]
    }

    /// An expression for a position that needs binding level `min`.
    fn expr(&mut self, depth: u32, min: u8, place: Place) -> Expr {
        let (e, lvl) = if depth == 0 {
            (self.leaf(place), PRIMARY)
        } else {
            self.compound(depth - 1, place)
        };
        if lvl < min {
            paren(e)
        } else {
            e
        }
    }

    fn leaf(&mut self, place: Place) -> Expr {
        let choice = self.rng.gen_range(0..if place.index { 5 } else { 4 });
        match choice {
            0 => {
                let text = self.pick(&["1", "2.5", ".5", "3.", "1e3", "1E-3", "0"]);
                node(ExprKind::Number {
                    value: text.parse().expect("number"),
                    text: text.to_string(),
                })
            }
            1 => node(ExprKind::Str(
                self.pick(&["ab", "it's", "", "x y"]).to_string(),
            )),
            2 => node(ExprKind::FuncHandle(ident(self.pick(&["sin", "pkg.fn"])))),
            3 => node(ExprKind::Ident(
                self.pick(&["a", "b", "x1", "s.f", "i"]).to_string(),
            )),
            _ => node(ExprKind::End),
        }
    }

    /// A node with children `depth` deep at most, and its binding level.
    fn compound(&mut self, depth: u32, place: Place) -> (Expr, u8) {
        match self.rng.gen_range(0..9) {
            0 | 1 => self.binary(depth, place),
            2 => {
                let op = self.pick(&[UnaryOp::Neg, UnaryOp::Plus, UnaryOp::Not]);
                let operand = Box::new(self.expr(depth, UNARY, place));
                (node(ExprKind::Unary { op, operand }), UNARY)
            }
            3 => {
                let mut operand = self.expr(depth, POW, place);
                let op = self.pick(&[PostfixOp::CTranspose, PostfixOp::Transpose]);
                if place.brackets && op == PostfixOp::CTranspose && swallows_quote(&operand) {
                    operand = paren(operand);
                }
                let operand = Box::new(operand);
                (node(ExprKind::Postfix { op, operand }), POW)
            }
            4 => {
                let start = Box::new(self.expr(depth, ADD, place));
                let step = self
                    .rng
                    .gen_bool(0.5)
                    .then(|| Box::new(self.expr(depth, ADD, place)));
                let stop = Box::new(self.expr(depth, ADD, place));
                (node(ExprKind::Range { start, step, stop }), RANGE)
            }
            5 => {
                let inner = Place {
                    index: true,
                    brackets: false,
                };
                let args = (0..self.rng.gen_range(0..3))
                    .map(|_| self.index_arg(depth, inner))
                    .collect();
                let callee = ident(self.pick(&["f", "g.h"]));
                (node(ExprKind::Call { callee, args }), PRIMARY)
            }
            6 => {
                let inner = Place {
                    brackets: true,
                    ..place
                };
                let rows = (0..self.rng.gen_range(0..3))
                    .map(|_| {
                        (0..self.rng.gen_range(1..4))
                            .map(|_| self.expr(depth, ANON, inner))
                            .collect()
                    })
                    .collect();
                (node(ExprKind::Matrix(rows)), PRIMARY)
            }
            7 => {
                let inner = Place {
                    brackets: false,
                    ..place
                };
                (paren(self.expr(depth, ANON, inner)), PRIMARY)
            }
            _ => {
                let params = (0..self.rng.gen_range(0..3))
                    .map(|_| ident(self.pick(&["p", "q"])))
                    .collect();
                let inner = Place {
                    index: false,
                    ..place
                };
                let body = Box::new(self.expr(depth, ANON, inner));
                (node(ExprKind::AnonFn { params, body }), ANON)
            }
        }
    }

    fn binary(&mut self, depth: u32, place: Place) -> (Expr, u8) {
        let op = self.pick(&BINARY);
        let lvl = level(op);
        let lhs = Box::new(self.expr(depth, lvl, place));
        let rhs = if lvl == POW {
            self.exponent(depth, place)
        } else {
            self.expr(depth, lvl + 1, place)
        };
        let rhs = Box::new(rhs);
        (node(ExprKind::Binary { op, lhs, rhs }), lvl)
    }

    /// The exponent of `^`: prefix operators on a primary (`2^-x`).
    fn exponent(&mut self, depth: u32, place: Place) -> Expr {
        if self.rng.gen_bool(0.3) {
            let op = self.pick(&[UnaryOp::Neg, UnaryOp::Plus, UnaryOp::Not]);
            let operand = Box::new(self.exponent(depth, place));
            return node(ExprKind::Unary { op, operand });
        }
        self.expr(depth, PRIMARY, place)
    }

    fn index_arg(&mut self, depth: u32, place: Place) -> Expr {
        if self.rng.gen_bool(0.1) {
            return node(ExprKind::Colon);
        }
        self.expr(depth, ANON, place)
    }
}

#[test]
fn random_expressions_print_back_to_the_same_tree() {
    let mut gen = Gen {
        rng: StdRng::seed_from_u64(0x00c0_ffee_2024),
    };
    let top = Place {
        index: false,
        brackets: false,
    };
    for round in 0..5000 {
        let depth = 1 + round % 6;
        let e = gen.expr(depth, ANON, top);
        let printed = print_expr_source(&e);
        let again = parse_expr(&printed).unwrap_or_else(|d| {
            panic!(
                "{printed:?} does not parse:\n{}\ntree:\n{}",
                render("expr", &printed, &d),
                print_expr_tree(&e)
            )
        });
        assert_eq!(
            print_expr_tree(&e),
            print_expr_tree(&again),
            "printed as {printed:?}"
        );
    }
}
