//! Array dependences carried by one loop, as a petgraph graph.
//!
//! Nodes are accesses (see [`crate::access`]); an edge `a → b` says that `b` may touch the
//! element `a` wrote in another iteration of the loop, labelled with the dependence kind and the
//! distance in iterations (`None` when unknown). Only loop-carried dependences are edges: a pair
//! that can only meet in the same iteration is no obstacle to running iterations in parallel.
//!
//! Tests, per subscript position: ZIV (two constants that differ never meet), strong SIV (same
//! coefficient on the loop variable: a distance, or "same iteration only" when the rest is
//! identical), and the GCD test (no integer solution, no dependence).

use std::collections::BTreeSet;

use m2cu_frontend::ir::{Function, LocalId};
use petgraph::graph::DiGraph;

use crate::access::{self, Access, Affine};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepKind {
    /// write, then read
    Flow,
    /// read, then write
    Anti,
    /// write, then write
    Output,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dependence {
    pub kind: DepKind,
    /// Iterations between the two accesses; `None` when unknown.
    pub distance: Option<i64>,
}

pub type DepGraph = DiGraph<Access, Dependence>;

/// What one subscript position says about two accesses in iterations `i` and `i'` of the loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DimTest {
    /// The two never touch the same element.
    Independent,
    /// They meet only when `i == i'`.
    SameIteration,
    /// They meet when `i' - i == d`.
    Distance(i64),
    /// Nothing is known.
    Unknown,
}

/// Builds the graph of dependences carried by the loop over `var` whose body is `body`.
/// `outer` are the variables of enclosing loops (fixed during the loop), `inner` those of nested
/// loops (varying within one iteration).
pub fn carried(
    f: &Function,
    body: &m2cu_frontend::ir::Block,
    var: LocalId,
    outer: &[LocalId],
    inner: &[LocalId],
) -> DepGraph {
    let vars: BTreeSet<LocalId> = outer.iter().chain(inner).copied().chain([var]).collect();
    let accesses = access::collect(f, body, &vars);
    let mut graph = DepGraph::new();
    let nodes: Vec<_> = accesses.iter().map(|a| graph.add_node(a.clone())).collect();
    for (wi, w) in accesses.iter().enumerate().filter(|(_, a)| a.is_write) {
        for (xi, x) in accesses.iter().enumerate() {
            if x.array != w.array || (x.is_write && xi < wi) {
                continue;
            }
            if let Some(distance) = carried_distance(w, x, var, inner) {
                let kind = match (x.is_write, xi < wi) {
                    (true, _) => DepKind::Output,
                    (false, true) => DepKind::Anti,
                    (false, false) => DepKind::Flow,
                };
                graph.add_edge(nodes[wi], nodes[xi], Dependence { kind, distance });
            }
        }
    }
    graph
}

/// `None` when the two accesses cannot meet in different iterations; otherwise the distance
/// (`Some(None)` when unknown).
fn carried_distance(
    w: &Access,
    x: &Access,
    var: LocalId,
    inner: &[LocalId],
) -> Option<Option<i64>> {
    if w.subscripts.len() != x.subscripts.len() {
        return Some(None);
    }
    let mut distance: Option<i64> = None;
    let mut unknown = false;
    for (a, b) in w.subscripts.iter().zip(&x.subscripts) {
        match (a, b) {
            (Some(a), Some(b)) => match test_dim(a, b, var, inner) {
                DimTest::Independent | DimTest::SameIteration => return None,
                DimTest::Distance(d) if distance.is_some_and(|e| e != d) => return None,
                DimTest::Distance(d) => distance = Some(d),
                DimTest::Unknown => unknown = true,
            },
            _ => unknown = true,
        }
    }
    match distance {
        Some(0) if !unknown => None,
        Some(d) if !unknown => Some(Some(d)),
        _ => Some(None),
    }
}

fn test_dim(a: &Affine, b: &Affine, var: LocalId, inner: &[LocalId]) -> DimTest {
    let varies_inside = |x: &Affine| inner.iter().any(|v| x.coeff(*v) != 0);
    if varies_inside(a) || varies_inside(b) {
        return DimTest::Unknown;
    }
    let (ca, cb) = (a.coeff(var), b.coeff(var));
    let rest_equal = a.symbols == b.symbols && without(a, var).vars == without(b, var).vars;
    if !rest_equal {
        return DimTest::Unknown;
    }
    let diff = b.constant - a.constant; // a·i + ka = b·i' + kb  ⇒  a·i − b·i' = kb − ka
    match (ca, cb) {
        (0, 0) if diff == 0 => DimTest::Unknown,
        (0, 0) => DimTest::Independent,
        (ca, cb) if ca == cb => {
            if diff % ca != 0 {
                DimTest::Independent
            } else if diff == 0 {
                DimTest::SameIteration
            } else {
                DimTest::Distance(-diff / ca)
            }
        }
        (ca, cb) if diff % gcd(ca, cb) != 0 => DimTest::Independent,
        _ => DimTest::Unknown,
    }
}

fn without(a: &Affine, var: LocalId) -> Affine {
    let mut a = a.clone();
    a.vars.remove(&var);
    a
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.max(1)
}
