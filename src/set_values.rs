//! `--set NAME=EXPR` values, evaluated with MATLAB's semantics by m2cu's own pipeline.
//!
//! All the assignments of one invocation become one generated function of no inputs,
//!
//! ```text
//! function [x, y] = m2cu_set_values()
//! x=rand(1,1e6);
//! y=int8([100 100])*2;
//! end
//! ```
//!
//! one line per assignment, in order and verbatim (so a later value may use an earlier one, as
//! in MATLAB's workspace), which is translated and run on the C path; its outputs are the
//! values. Every function and class rule the pipeline supports is therefore available and
//! exact, and one call draws one random stream for all the values.
//!
//! Invariants: line `k + 2` of the wrapper is assignment `k` followed by `;`, so a diagnostic
//! on that line is rendered against the user's own argument at the same column; a name set
//! twice is one output holding the last value. The wrapper draws with a key derived from the
//! seed ([`values_key`]), so the program the values are passed to (keyed by the seed itself)
//! never repeats their draws.

use m2cu_frontend::diag::{Diagnostics, Span};
use m2cu_frontend::sources::{SourceMap, Style};

use crate::{Backend, BuildOptions, Error, Options, Program, RunOptions, Value};

/// The name of the generated function.
const WRAPPER: &str = "m2cu_set_values";

/// How [`set_values`] evaluates.
#[derive(Clone, Debug, Default)]
pub struct SetOptions {
    /// The seed of the invocation (`--seed`).
    pub seed: u64,
    /// How the wrapper is built (it is cached like any program).
    pub build: BuildOptions,
}

/// One `NAME=EXPR` argument, checked.
struct Assignment<'a> {
    name: &'a str,
    text: &'a str,
}

/// Evaluates `--set` arguments (`v=rand(1, 1e6)`, `A=int8([1 2; 3 4])`, `x=0:0.5:2`, ...) in
/// order; returns each name once, with its last value, in the order the names first appear.
pub fn set_values(
    assignments: &[String],
    options: &SetOptions,
) -> Result<Vec<(String, Value)>, Error> {
    let parsed = assignments
        .iter()
        .map(|a| assignment(a))
        .collect::<Result<Vec<_>, _>>()?;
    if parsed.is_empty() {
        return Ok(Vec::new());
    }
    let mut names: Vec<&str> = Vec::new();
    for a in &parsed {
        if !names.contains(&a.name) {
            names.push(a.name);
        }
    }
    let source = wrapper(&names, &parsed);
    let translate_options = Options {
        file_name: "--set".into(),
        seed: values_key(options.seed),
        ..Default::default()
    };
    let run_options = RunOptions {
        backend: Backend::Cpu,
        build: options.build.clone(),
        ..Default::default()
    };
    let program = Program::prepare(&source, &[], &translate_options, &run_options)
        .map_err(|e| located(e, &source, &parsed))?;
    program.call(&[]).map_err(|e| match e {
        Error::Runtime(why) => Error::Usage(format!("--set: {why}")),
        other => other,
    })
}

/// The key the `--set` values draw with: the seed mixed by SplitMix64's finalizer, a stream
/// of its own beside the program's (keyed by the seed).
fn values_key(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn assignment(text: &str) -> Result<Assignment<'_>, Error> {
    let bad = |why: &str| {
        Error::Usage(format!(
            "--set `{text}`: {why}\nhelp: write NAME=EXPR with a MATLAB expression, e.g. --set 'v=rand(1,1000)'"
        ))
    };
    let (name, expr) = text
        .split_once('=')
        .ok_or_else(|| bad("expected NAME=EXPR"))?;
    let name = name.trim();
    let identifier = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !identifier {
        return Err(bad("the name is not a MATLAB identifier"));
    }
    if expr.trim().is_empty() {
        return Err(bad("the expression is empty"));
    }
    if text.contains(['\n', '\r']) {
        return Err(bad("the expression spans lines"));
    }
    Ok(Assignment { name, text })
}

fn wrapper(names: &[&str], assignments: &[Assignment<'_>]) -> String {
    let mut source = format!("function [{}] = {WRAPPER}()\n", names.join(", "));
    for a in assignments {
        source += a.text;
        source += ";\n";
    }
    source + "end\n"
}

/// A source error of the wrapper, rendered against the `--set` argument each diagnostic lies
/// in (the whole wrapper for one that lies in none, which would be a bug of the wrapper).
fn located(error: Error, source: &str, assignments: &[Assignment<'_>]) -> Error {
    let Error::Source { diagnostics, .. } = error else {
        return error;
    };
    let header = source.find('\n').map_or(0, |n| n + 1);
    let mut rendered = String::new();
    let mut start = header;
    let mut lines = Vec::new();
    for a in assignments {
        lines.push((start, a.text));
        start += a.text.len() + 2;
    }
    let (mut colored, mut entries) = (String::new(), Vec::new());
    for d in diagnostics.iter() {
        let at = d.span.start as usize;
        let line = lines
            .iter()
            .find(|(start, text)| (*start..=start + text.len()).contains(&at));
        let one = Diagnostics(vec![d.clone()]);
        let (text, one) = match line {
            Some((start, text)) => (*text, shifted(one, *start, text.len())),
            None => (source, one),
        };
        let sources = SourceMap::new("--set", text);
        rendered += &sources.render_styled(&one, Style::Plain);
        colored += &sources.render_styled(&one, Style::Color);
        entries.extend(crate::diagnostics::entries(&sources, &one));
    }
    Error::Source {
        diagnostics,
        rendered,
        colored,
        json: serde_json::json!({ "diagnostics": entries }),
        sources: Box::new(SourceMap::new("--set", source)),
    }
}

/// `diagnostics` with spans moved back by `offset`; labels outside the line are dropped.
fn shifted(mut diagnostics: Diagnostics, offset: usize, len: usize) -> Diagnostics {
    let inside = |s: Span| (offset..=offset + len).contains(&(s.start as usize));
    let shift = |s: Span| {
        let start = s.start as usize - offset;
        Span::new(start, (s.end as usize - offset).clamp(start, len))
    };
    for d in &mut diagnostics.0 {
        d.span = shift(d.span);
        d.secondary.retain(|(s, _)| inside(*s));
        for (s, _) in &mut d.secondary {
            *s = shift(*s);
        }
    }
    diagnostics
}
