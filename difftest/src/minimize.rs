//! Shrinks a case on which m2cu and Octave disagree: keep only the outputs that differ, delete
//! statements one at a time (last first), replace branches by their `then` part, and drop the
//! inputs nothing reads, keeping each change only when the smaller program still translates,
//! still runs in Octave, and still disagrees on the same backend.
//!
//! Invariant: the result is a valid case that disagrees with Octave (it is never larger than
//! the input).

use crate::target::Target;

use crate::campaign::{alone, case_options};
use crate::oracle::{self, Outputs};
use crate::program::{Case, Stmt};

/// The shrunk case, Octave's outputs for it, and what differs; `None` when the case does not
/// disagree when run again.
pub fn minimize(case: &Case, backend: Target) -> Option<(Case, Outputs, String)> {
    let mut best = case.clone();
    let (mut expected, mut detail) = disagreement(&best, backend, None)?;
    // Only the outputs that differ.
    let differing: Vec<String> = best
        .outputs
        .iter()
        .filter(|o| detail.contains(&format!("`{o}`")))
        .cloned()
        .collect();
    let failed = detail.starts_with(FAILED);
    let mut try_candidate = |candidate: Case, best: &mut Case| {
        if let Some((e, d)) = disagreement(&candidate, backend, Some(failed)) {
            *best = candidate;
            expected = e;
            detail = d;
            true
        } else {
            false
        }
    };
    if !differing.is_empty() && differing.len() < best.outputs.len() {
        let candidate = Case {
            outputs: differing,
            ..best.clone()
        };
        try_candidate(candidate, &mut best);
    }
    for _pass in 0..2 {
        let mut changed = false;
        let mut n = best.size();
        while n > 0 {
            n -= 1;
            for edit in [Edit::Delete, Edit::Unwrap] {
                let mut candidate = best.clone();
                if apply(&mut candidate.body, &mut n.clone(), edit)
                    && try_candidate(candidate, &mut best)
                {
                    changed = true;
                    break;
                }
            }
            n = n.min(best.size());
        }
        if !changed {
            break;
        }
    }
    let mut candidate = best.clone();
    let text = candidate.standalone();
    let body = text.split_once('\n').map_or("", |(_, body)| body);
    candidate.inputs.retain(|(n, _)| mentions(body, n));
    if candidate.inputs.len() < best.inputs.len() {
        try_candidate(candidate, &mut best);
    }
    Some((best, expected, detail))
}

/// How `alone` reports a program m2cu fails to build or run.
pub(crate) const FAILED: &str = "m2cu failed";

/// Octave's outputs and the difference, when `case` runs in Octave and m2cu disagrees (and,
/// with `failed` given, disagrees in the same way: failing to run, or giving other values).
fn disagreement(case: &Case, backend: Target, failed: Option<bool>) -> Option<(Outputs, String)> {
    let expected = oracle::run(&[case]).ok()?.pop()?.ok()?;
    if let Err(m2cu::Error::Source { .. }) =
        m2cu::translate_for(&case.standalone(), &case.inputs, &case_options(case))
    {
        return None;
    }
    let detail = alone(case, &expected, backend)?;
    failed
        .is_none_or(|f| f == detail.starts_with(FAILED))
        .then_some((expected, detail))
}

#[derive(Clone, Copy)]
enum Edit {
    Delete,
    /// An `if` becomes its `then` statements; a loop stays.
    Unwrap,
}

/// Applies `edit` to the `n`-th statement in pre-order; `false` when it does not apply.
fn apply(body: &mut Vec<Stmt>, n: &mut usize, edit: Edit) -> bool {
    let mut k = 0;
    while k < body.len() {
        if *n == 0 {
            return match (edit, &body[k]) {
                (Edit::Delete, _) => {
                    body.remove(k);
                    true
                }
                (Edit::Unwrap, Stmt::If { then, .. }) => {
                    let then = then.clone();
                    body.splice(k..=k, then);
                    true
                }
                (Edit::Unwrap, _) => false,
            };
        }
        *n -= 1;
        let found = match &mut body[k] {
            Stmt::Line(_) => false,
            Stmt::For { body, .. } | Stmt::While { body, .. } => apply(body, n, edit),
            Stmt::If {
                then, otherwise, ..
            } => apply(then, n, edit) || apply(otherwise, n, edit),
        };
        if found {
            return true;
        }
        k += 1;
    }
    false
}

/// Whether `text` uses the variable `name` (not as part of a longer name).
fn mentions(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + name.len()..].chars().next();
        let ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !ident(before) && !ident(after)
    })
}
