//! Translation throughput: how many MB of MATLAB per second `m2cu::translate` gets through, on
//! the e2e fixtures and on [`Stress`] sources generated at sizes that once made translation
//! exponential, quadratic or overflow the stack.
//!
//! A source whose translation ends in a diagnostic (the limits on nesting and inlining) counts
//! like one that translates: the time to say no is translation time too. Each source's time is
//! the median of [`median_ms`]'s runs.

use std::convert::Infallible;
use std::path::Path;

use crate::timing::median_ms;

/// A generated source that stresses one way translation time or depth can grow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stress {
    /// `f1` calls `f2` twice, `f2` calls `f3` twice, ...: `n` levels, 2^n inlined calls.
    DoublingCalls(usize),
    /// `f1` calls `f2`, ..., `f(n-1)` calls `fn`: calls nested `n` deep.
    ChainedCalls(usize),
    /// One loop whose body has `n` scalar statements, each reading the one before.
    LongLoop(usize),
    /// One loop whose body has `n` statements `s(i) = s(i) + v(i) * k`.
    ArrayLoop(usize),
    /// An expression inside `n` pairs of parentheses.
    Parens(usize),
    /// A sum of `n` terms `x+x+...+x`.
    LongSum(usize),
    /// An `if` with `n - 1` `elseif` arms.
    ElseifChain(usize),
    /// `n` nested `if` blocks.
    NestedIfs(usize),
    /// `n` nested `for` loops.
    NestedLoops(usize),
}

impl Stress {
    /// The sizes the benchmark translates: each as large as the limits allow, or past them.
    pub const BENCH: [Stress; 9] = [
        Stress::DoublingCalls(14),
        Stress::ChainedCalls(100),
        Stress::LongLoop(4000),
        Stress::ArrayLoop(4000),
        Stress::Parens(199),
        Stress::LongSum(499),
        Stress::ElseifChain(2000),
        Stress::NestedIfs(199),
        Stress::NestedLoops(100),
    ];

    pub fn name(self) -> String {
        let (kind, n) = match self {
            Stress::DoublingCalls(n) => ("doubling calls", n),
            Stress::ChainedCalls(n) => ("chained calls", n),
            Stress::LongLoop(n) => ("long loop", n),
            Stress::ArrayLoop(n) => ("array loop", n),
            Stress::Parens(n) => ("parentheses", n),
            Stress::LongSum(n) => ("sum terms", n),
            Stress::ElseifChain(n) => ("elseif arms", n),
            Stress::NestedIfs(n) => ("nested ifs", n),
            Stress::NestedLoops(n) => ("nested loops", n),
        };
        format!("{kind} {n}")
    }

    /// The MATLAB source: an entry function taking a scalar `x` or a row `v`.
    pub fn source(self) -> String {
        const SCALAR: &str = "function y = top(x)\n  arguments\n    x (1,1) double\n  end\n";
        const ROW: &str = "function s = top(v)\n  arguments\n    v (1,:) double\n  end\n  s = zeros(1, numel(v));\n  for i = 1:numel(v)\n";
        let lines = |n: usize, line: &dyn Fn(usize) -> String| -> String {
            (0..n).map(|k| line(k) + "\n").collect()
        };
        match self {
            Stress::DoublingCalls(n) => calls(n, "f{next}(x) + f{next}(x + 1)"),
            Stress::ChainedCalls(n) => calls(n, "f{next}(x) + 1"),
            Stress::LongLoop(n) => format!(
                "{ROW}    t0 = v(i);\n{}    s(i) = t{};\n  end\nend\n",
                lines(n.saturating_sub(1), &|k| format!(
                    "    t{} = t{k} * 1.0001 + {};",
                    k + 1,
                    k + 1
                )),
                n.saturating_sub(1)
            ),
            Stress::ArrayLoop(n) => format!(
                "{ROW}{}  end\nend\n",
                lines(n, &|k| format!("    s(i) = s(i) + v(i) * {k};"))
            ),
            Stress::Parens(n) => {
                format!("{SCALAR}  y = {}x{};\nend\n", "(".repeat(n), ")".repeat(n))
            }
            Stress::LongSum(n) => format!("{SCALAR}  y = {};\nend\n", vec!["x"; n].join("+")),
            Stress::ElseifChain(n) => format!(
                "{SCALAR}  y = 0;\n  if x == 0\n    y = 0;\n{}  end\nend\n",
                lines(n.saturating_sub(1), &|k| format!(
                    "  elseif x == {}\n    y = {};",
                    k + 1,
                    k + 1
                ))
            ),
            Stress::NestedIfs(n) => format!(
                "{SCALAR}  y = 0;\n{}  y = 1;\n{}end\n",
                lines(n, &|k| format!("if x > {k}")),
                lines(n, &|_| "end".into())
            ),
            Stress::NestedLoops(n) => format!(
                "{SCALAR}  y = 0;\n{}  y = y + 1;\n{}end\n",
                lines(n, &|k| format!("for i{k} = 1:2")),
                lines(n, &|_| "end".into())
            ),
        }
    }
}

/// An entry `top` calling `f1`, and `f1` .. `f(n-1)` each returning `body` with `{next}` the
/// next function's number; `fn` doubles its input.
fn calls(n: usize, body: &str) -> String {
    let mut out = String::from(
        "function y = top(x)\n  arguments\n    x (1,1) double\n  end\n  y = f1(x);\nend\n",
    );
    for k in 1..n {
        let call = body.replace("{next}", &(k + 1).to_string());
        out += &format!("function y = f{k}(x)\n  y = {call};\nend\n");
    }
    out + &format!("function y = f{n}(x)\n  y = x * 2;\nend\n")
}

/// One source to translate: its name, text and inputs (from a fixture's `.in.mat`).
pub struct Source {
    pub name: String,
    pub text: String,
    pub inputs: Vec<(String, m2cu::Value)>,
}

/// The e2e fixtures of `dir`: each `NAME.m` that has its inputs in `NAME.in.mat` (a script
/// like `make_expected.m` has none).
pub fn fixtures(dir: &Path) -> Result<Vec<Source>, String> {
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "m"))
        .filter(|p| p.with_extension("in.mat").exists())
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|path| {
            let text =
                std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let mat = path.with_extension("in.mat");
            let inputs =
                m2cu::read_mat_file(&mat).map_err(|e| format!("{}: {e}", mat.display()))?;
            let name = path
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy()
                .into();
            Ok(Source { name, text, inputs })
        })
        .collect()
}

/// The [`Stress::BENCH`] sources.
pub fn stress_sources() -> Vec<Source> {
    Stress::BENCH
        .iter()
        .map(|s| Source {
            name: s.name(),
            text: s.source(),
            inputs: Vec::new(),
        })
        .collect()
}

/// The translation of one source: its size, median time and outcome.
pub struct Measured {
    pub name: String,
    pub bytes: usize,
    pub ms: f64,
    /// `ok`, or the first diagnostic code.
    pub outcome: String,
}

/// Translates `source` `runs` times (after the warm-up) and keeps the median.
pub fn measure(source: &Source, runs: usize) -> Measured {
    let options = m2cu::Options::default();
    let translate = || match source.inputs.as_slice() {
        [] => m2cu::translate(&source.text, &options),
        inputs => m2cu::translate_for(&source.text, inputs, &options),
    };
    let outcome = match translate() {
        Ok(_) => "ok".to_string(),
        Err(e) => first_code(&e.to_string()),
    };
    let ms = median_ms::<Infallible>(runs.max(1), || {
        let _ = translate();
        Ok(())
    });
    Measured {
        name: source.name.clone(),
        bytes: source.text.len(),
        ms: ms.unwrap_or_else(|never| match never {}),
        outcome,
    }
}

/// `E0130` out of a rendered error, or its first line.
fn first_code(rendered: &str) -> String {
    let line = rendered.lines().next().unwrap_or_default();
    match (line.find("error["), line.find(']')) {
        (Some(at), Some(end)) if end > at + 6 => line[at + 6..end].to_string(),
        _ => line.to_string(),
    }
}

/// MB (10^6 bytes) per second.
fn mb_per_s(bytes: usize, ms: f64) -> f64 {
    bytes as f64 / 1e3 / ms.max(1e-6)
}

/// The markdown table: one row per source, then the totals of the fixtures and of the
/// generated sources.
pub fn markdown(fixtures: &[Measured], stress: &[Measured]) -> String {
    let mut out =
        String::from("| source | bytes | outcome | time (ms) | MB/s |\n|---|---:|---|---:|---:|\n");
    let row = |m: &Measured| {
        format!(
            "| {} | {} | {} | {:.2} | {:.3} |\n",
            m.name,
            m.bytes,
            m.outcome,
            m.ms,
            mb_per_s(m.bytes, m.ms)
        )
    };
    let total = |name: &str, ms: &[Measured]| {
        let bytes = ms.iter().map(|m| m.bytes).sum();
        let translated = ms.iter().filter(|m| m.outcome == "ok").count();
        row(&Measured {
            name: format!("**{name}** ({} sources)", ms.len()),
            bytes,
            ms: ms.iter().map(|m| m.ms).sum(),
            outcome: format!("{translated} ok"),
        })
    };
    for m in stress {
        out += &row(m);
    }
    out += &total("all e2e fixtures", fixtures);
    out += &total("all generated", stress);
    out
}
