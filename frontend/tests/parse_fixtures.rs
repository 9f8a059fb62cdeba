//! Parser fixtures: every `fixtures/parse/ok/*.m` parses without errors and its AST tree is
//! snapshotted (`octave_*.m` ones under the Octave dialect, and they must fail under MATLAB's);
//! every `fixtures/parse/err/*.m` fails and its rendered diagnostics are snapshotted. A mutation
//! test checks that no input makes the lexer or parser panic, and that what parses prints back
//! (`print_source`) to the same tree.

use std::fs;
use std::path::{Path, PathBuf};

use m2cu_frontend::ast_print::{print_expr_tree, print_tree};
use m2cu_frontend::ast_source::print_source;
use m2cu_frontend::diag::render;
use m2cu_frontend::lexer::lex;
use m2cu_frontend::parser::{
    parse_expr, parse_file, parse_file_with, Dialect, ParseOptions, MAX_DEPTH, MAX_HEIGHT,
};

fn fixtures(kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/parse")
        .join(kind);
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "m"))
        .collect();
    files.sort();
    files
}

fn stem(path: &Path) -> String {
    path.file_stem()
        .expect("file stem")
        .to_string_lossy()
        .into_owned()
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .expect("file name")
        .to_string_lossy()
        .into_owned()
}

#[test]
fn ok_fixtures_parse_and_match_snapshots() {
    let files = fixtures("ok");
    assert!(files.len() >= 12, "expected at least 12 ok fixtures");
    for path in files {
        let source = fs::read_to_string(&path).expect("read fixture");
        let octave = stem(&path).starts_with("octave_");
        let dialect = if octave {
            Dialect::Octave
        } else {
            Dialect::Matlab
        };
        if octave {
            assert!(
                parse_file(&source).is_err(),
                "{} is Octave-only but parses as MATLAB",
                path.display()
            );
        }
        let file = match parse_file_with(&source, &ParseOptions { dialect }) {
            Ok(file) => file,
            Err(diags) => panic!(
                "{} failed to parse:\n{}",
                path.display(),
                render(&file_name(&path), &source, &diags)
            ),
        };
        insta::with_settings!({ description => source.clone(), omit_expression => true }, {
            insta::assert_snapshot!(format!("ok_{}", stem(&path)), print_tree(&file));
        });
    }
}

#[test]
fn err_fixtures_fail_and_match_snapshots() {
    for path in fixtures("err") {
        let source = fs::read_to_string(&path).expect("read fixture");
        let Err(diags) = parse_file(&source) else {
            panic!("{} parsed without errors", path.display())
        };
        let name = stem(&path);
        if let Some(code) = name.split('_').next().filter(|c| c.starts_with('E')) {
            assert!(
                diags.iter().any(|d| d.code == code),
                "{} does not report {code}",
                path.display()
            );
        }
        let rendered = render(&file_name(&path), &source, &diags);
        insta::with_settings!({ description => source.clone(), omit_expression => true }, {
            insta::assert_snapshot!(format!("err_{name}"), rendered);
        });
    }
}

#[test]
fn multiple_errors_are_reported() {
    let source = fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/parse/err/multiple_errors.m"),
    )
    .expect("read fixture");
    let diags = parse_file(&source).expect_err("must fail");
    assert!(diags.0.len() >= 4, "only {} diagnostics", diags.0.len());
}

fn expr_tree(source: &str) -> String {
    match parse_expr(source) {
        Ok(e) => print_expr_tree(&e),
        Err(diags) => render("<expr>", source, &diags),
    }
}

#[test]
fn precedence_trees() {
    assert_eq!(
        expr_tree("-2^2"),
        "Unary -\n  Binary ^\n    Number 2\n    Number 2\n"
    );
    assert_eq!(
        expr_tree("2^-1"),
        "Binary ^\n  Number 2\n  Unary -\n    Number 1\n"
    );
    assert_eq!(
        expr_tree("a:b+1"),
        "Range\n  start: Ident a\n  stop: Binary +\n    Ident b\n    Number 1\n"
    );
    assert_eq!(
        expr_tree("~a == b"),
        "Binary ==\n  Unary ~\n    Ident a\n  Ident b\n"
    );
    assert_eq!(
        expr_tree("a^b^c"),
        "Binary ^\n  Binary ^\n    Ident a\n    Ident b\n  Ident c\n"
    );
    assert_eq!(
        expr_tree("a - b - c"),
        "Binary -\n  Binary -\n    Ident a\n    Ident b\n  Ident c\n"
    );
}

#[test]
fn parse_expr_for_cli_values() {
    insta::assert_snapshot!("expr_rand", expr_tree("rand(1,1e6)"));
    insta::assert_snapshot!("expr_int8_matrix", expr_tree("int8([1 2; 3 4])"));
    insta::assert_snapshot!("expr_trailing_input", expr_tree("1 2"));
    insta::assert_snapshot!("expr_empty", expr_tree(""));
    assert!(parse_expr("1;").is_err());
    assert!(parse_expr("x = 1").is_err());
    assert!(parse_expr("  3.5e2\n").is_ok());
}

#[test]
fn statement_spans_cover_the_statement() {
    let source = "function f(x)\n  y = x + 1;\n  for i = 1:3\n    y = y * i;\n  end\nend\n";
    let file = parse_file(source).expect("parses");
    let body = &file.functions[0].body;
    let text = |s: &m2cu_frontend::ast::Stmt| &source[s.span.range()];
    assert_eq!(text(&body[0]), "y = x + 1");
    assert_eq!(text(&body[1]), "for i = 1:3\n    y = y * i;\n  end");
    assert_eq!(&source[file.functions[0].span.range()], "function f(x)");
}

#[test]
fn lexer_always_ends_with_eof() {
    for source in ["", "x", "'abc", "%{\n", "...", "[1 2", "\u{e9}\u{20ac}"] {
        let tokens = lex(source).tokens;
        let last = tokens.last().expect("at least Eof");
        assert_eq!(last.kind, m2cu_frontend::lexer::TokKind::Eof, "{source:?}");
        assert_eq!(last.span.start as usize, source.len());
    }
}

#[test]
fn nesting_limit_is_a_diagnostic() {
    let ok_depth = MAX_DEPTH as usize - 1;
    let source = format!(
        "function f(x)\ny = {}x{};\nend\n",
        "(".repeat(ok_depth),
        ")".repeat(ok_depth)
    );
    assert!(
        parse_file(&source).is_ok(),
        "{ok_depth} nested parentheses must parse"
    );
    for open in [
        "(",
        "[",
        "a(",
        "if x\n",
        "for i=1:2\n",
        "while 1\n",
        "-",
        "~",
    ] {
        let source = format!("function f(x)\ny = {};\nend\n", open.repeat(20_000));
        let result = parse_file(&source);
        assert!(result.is_err(), "{open:?} x 20000 must fail");
    }
    for (head, chain) in [
        ("", "1+"),
        ("", "-"),
        ("", "~"),
        ("", "2^"),
        ("a", "'"),
        ("", "a:"),
    ] {
        let source = format!(
            "function f(a)\ny = {head}{}1;\nend\n",
            chain.repeat(200_000)
        );
        let diags = parse_file(&source).expect_err("too tall");
        assert!(diags.iter().any(|d| d.code == "E0029"), "{chain:?}");
    }
    let long_sum = format!(
        "function f(a)\ny = {}1;\nend\n",
        "a+".repeat(MAX_HEIGHT as usize - 10)
    );
    assert!(parse_file(&long_sum).is_ok());
    let deep_blocks = format!(
        "function f(x)\n{}{}end\n",
        "if x\n".repeat(300),
        "end\n".repeat(300)
    );
    let diags = parse_file(&deep_blocks).expect_err("too deep");
    assert!(diags.iter().any(|d| d.code == "E0029"));
}

/// A small deterministic PRNG (xorshift64*), so the mutation test needs no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const SNIPPETS: [&str; 50] = [
    "@(",
    "@f",
    "case {1, 2}\n",
    "otherwise\n",
    "+=",
    "++\n",
    "#{\n",
    "s.x",
    "endfunction\n",
    "\"a\\t\"",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    "end",
    "'",
    "''",
    ".'",
    "function",
    "if",
    "elseif",
    "else",
    "for",
    "while",
    "%{\n",
    "\n%}\n",
    "\n",
    "...",
    ":",
    "=",
    "==",
    "@",
    "$",
    "\"",
    "~",
    "-",
    "^",
    ";",
    ",",
    "1e",
    ".5",
    "x",
    "endfor",
    "arguments\n",
    "!",
    "#",
    "\u{e9}",
    "switch",
];

/// One random edit of `source`: delete, duplicate or insert a token or a byte range.
fn mutate(rng: &mut Rng, source: &str) -> String {
    let tokens = lex(source).tokens;
    let spans: Vec<(usize, usize)> = tokens
        .iter()
        .map(|t| (t.span.start as usize, t.span.end as usize))
        .collect();
    let (start, end) = spans[rng.below(spans.len())];
    let mut out = String::with_capacity(source.len() + 16);
    match rng.below(5) {
        0 => {
            out.push_str(&source[..start]);
            out.push_str(&source[end..]);
        }
        1 => {
            out.push_str(&source[..end]);
            out.push_str(&source[start..]);
        }
        2 => {
            out.push_str(&source[..start]);
            out.push_str(SNIPPETS[rng.below(SNIPPETS.len())]);
            out.push_str(&source[start..]);
        }
        3 => {
            let mut bytes = source.as_bytes().to_vec();
            let at = rng.below(bytes.len());
            if let Some(b) = bytes.get_mut(at) {
                *b = b"()[]{}'\";,=:~%.#\n x1e+-"[rng.below(23)];
            }
            return String::from_utf8_lossy(&bytes).into_owned();
        }
        _ => {
            let cut = rng.below(source.len() + 1);
            let cut = (0..=cut)
                .rev()
                .find(|&c| source.is_char_boundary(c))
                .unwrap_or(0);
            out.push_str(&source[..cut]);
        }
    }
    out
}

/// A random sequence of snippets, sometimes inside a function.
fn token_soup(rng: &mut Rng) -> String {
    let mut text = String::from(if rng.below(2) == 0 {
        "function f(x)\n"
    } else {
        ""
    });
    for _ in 0..rng.below(60) {
        text.push_str(SNIPPETS[rng.below(SNIPPETS.len())]);
        text.push(if rng.below(3) == 0 { ' ' } else { '\n' });
    }
    text
}

#[test]
fn mutated_inputs_never_panic() {
    let mut rng = Rng(0x5eed_1234_abcd_0042);
    let sources: Vec<String> = fixtures("ok")
        .into_iter()
        .chain(fixtures("err"))
        .filter(|p| !stem(p).starts_with("E0029"))
        .map(|p| fs::read_to_string(p).expect("read fixture"))
        .collect();
    for round in 0..4000 {
        let mut text = sources[round % sources.len()].clone();
        for _ in 0..=rng.below(4) {
            text = mutate(&mut rng, &text);
        }
        if round % 4 == 0 {
            text = token_soup(&mut rng);
        }
        let result = std::panic::catch_unwind(|| {
            let _ = parse_file(&text).map_err(|d| render("fuzz.m", &text, &d));
            let _ = parse_expr(&text);
            let octave = ParseOptions {
                dialect: Dialect::Octave,
            };
            for file in [parse_file(&text), parse_file_with(&text, &octave)]
                .into_iter()
                .flatten()
            {
                let printed = print_source(&file);
                let again = parse_file(&printed).expect("printed source parses");
                assert_eq!(print_tree(&file), print_tree(&again), "{printed}");
            }
        });
        assert!(result.is_ok(), "panic on input {text:?}");
    }
}

fn kinds(source: &str) -> Vec<String> {
    lex(source)
        .tokens
        .iter()
        .map(|t| match &t.kind {
            m2cu_frontend::lexer::TokKind::Ident(name) => name.clone(),
            m2cu_frontend::lexer::TokKind::Number(text) => text.clone(),
            other => other.symbol().to_string(),
        })
        .collect()
}

#[test]
fn dotted_names_leave_dot_operators_alone() {
    let cases: [(&str, &[&str]); 10] = [
        ("s.x", &["s.x", ""]),
        (
            "gpucoder.reduce(v)",
            &["gpucoder.reduce", "(", "v", ")", ""],
        ),
        ("a.*b", &["a", ".*", "b", ""]),
        ("a./b", &["a", "./", "b", ""]),
        ("a.^b", &["a", ".^", "b", ""]),
        ("a.\\b", &["a", ".\\", "b", ""]),
        ("x.'", &["x", ".'", ""]),
        ("1.5", &["1.5", ""]),
        ("1./b", &["1", "./", "b", ""]),
        ("s.x.'", &["s.x", ".'", ""]),
    ];
    for (source, want) in cases {
        assert_eq!(kinds(source), want, "{source:?}");
    }
}

#[test]
fn power_and_transpose_share_a_level() {
    assert_eq!(
        expr_tree("a^b'"),
        "Postfix '\n  Binary ^\n    Ident a\n    Ident b\n"
    );
    assert_eq!(
        expr_tree("a'^b"),
        "Binary ^\n  Postfix '\n    Ident a\n  Ident b\n"
    );
}
