//! Array dependences carried by one loop, as a petgraph graph labelled with direction vectors.
//!
//! Nodes are accesses (see [`crate::access`]); an edge `a → b` says that `b` may touch the
//! element `a` wrote in another iteration of the loop. Accesses alike for the tests (array,
//! subscripts, enclosing loops) are tested once, and give only their first edge of each kind, so
//! that the graph stays linear in a long body (see `dependent_pairs`). Only dependences carried by the loop are
//! edges: the loops around it are held at one iteration (their direction is `=`), and a pair that
//! can only meet in the same iteration of the loop is no obstacle to running its iterations in
//! parallel, whatever the loops inside it do.
//!
//! Each pair of accesses gets one subscript equation per position,
//! `Σ a_k·i_k − Σ b_k·i'_k + Σ free terms = rhs`, over the *levels*: the loop itself and the
//! loops inside it that enclose both accesses. Tests, per equation: ZIV and the GCD test (no
//! integer solution), the exact SIV tests when one level is involved and the rest is constant
//! (strong SIV: a distance; weak-zero SIV: one side is fixed at iteration `i0`, no dependence when
//! `i0` is fractional or out of bounds; weak-crossing SIV: `i + i'` is fixed, the two cross at
//! its half), and Banerjee's bounds test for every direction vector (the extremes of the left
//! side over the loop bounds, with symbolic bounds decided only where the sign is certain).
//!
//! A direction vector has one entry per level of the nest, outermost first: `<` when the source
//! (the write) runs in an earlier iteration than the sink, `=`, `>`, or `*` when several hold.
//! Edges are reported in the textbook's orientation: the first entry that is not `=` is `<`.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use m2cu_frontend::ir::{Function, LocalId, StmtId};
use petgraph::graph::DiGraph;

use crate::access::{self, Access, Affine, ClosedForm, Symbol};
use crate::loops::{self, loop_body, LoopId, LoopTree};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DepKind {
    /// write, then read
    Flow,
    /// read, then write
    Anti,
    /// write, then write
    Output,
}

/// One entry of a direction vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Lt,
    Eq,
    Gt,
    Any,
}

impl Dir {
    pub fn symbol(self) -> &'static str {
        match self {
            Dir::Lt => "<",
            Dir::Eq => "=",
            Dir::Gt => ">",
            Dir::Any => "*",
        }
    }

    fn flip(self) -> Dir {
        match self {
            Dir::Lt => Dir::Gt,
            Dir::Gt => Dir::Lt,
            d => d,
        }
    }

    fn mask(self) -> u8 {
        match self {
            Dir::Lt => LT,
            Dir::Eq => EQ,
            Dir::Gt => GT,
            Dir::Any => LT | EQ | GT,
        }
    }

    fn of_mask(mask: u8) -> Dir {
        match mask {
            LT => Dir::Lt,
            EQ => Dir::Eq,
            GT => Dir::Gt,
            _ => Dir::Any,
        }
    }
}

const LT: u8 = 1;
const EQ: u8 = 2;
const GT: u8 = 4;
const SINGLE: [Dir; 3] = [Dir::Lt, Dir::Eq, Dir::Gt];

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependence {
    pub kind: DepKind,
    /// Iterations between the two accesses, in values of the loop variable; `None` when unknown.
    pub distance: Option<i64>,
    /// One entry per enclosing loop (outermost first), then per loop inside this one that
    /// encloses both accesses.
    pub direction: Vec<Dir>,
}

impl Dependence {
    /// `(=,<)`.
    pub fn direction_text(&self) -> String {
        let parts: Vec<&str> = self.direction.iter().map(|d| d.symbol()).collect();
        format!("({})", parts.join(","))
    }
}

pub type DepGraph = DiGraph<Access, Dependence>;

/// What the tests know about the loop nest of one analyzed loop.
struct Nest {
    /// The analyzed loop's `for` statement.
    stmt: StmtId,
    /// Variables of the enclosing loops, held fixed.
    outer: Vec<LocalId>,
    /// Every `for` statement of the nest (the loop and those inside it): variable and range.
    loops: HashMap<StmtId, (LocalId, loops::LoopRange)>,
}

/// Builds the graph of dependences carried by loop `id` of `tree`, whose induction variables
/// have the closed forms `closed`.
///
/// The writes of the statements in `unchecked` are left out: stores that write a different
/// element in every iteration by construction (a scan's compaction stores, see
/// [`crate::scan::compaction`]).
pub fn carried(
    f: &Function,
    tree: &LoopTree,
    id: LoopId,
    closed: &[ClosedForm],
    unchecked: &BTreeSet<StmtId>,
) -> DepGraph {
    let info = &tree.loops[id];
    let body = loop_body(f, info.stmt);
    let assigned = access::assigned_scalars(f, body);
    let mut nest = Nest {
        stmt: info.stmt,
        outer: tree.outer_vars(id),
        loops: HashMap::new(),
    };
    for l in tree.within(id) {
        if let Some(var) = tree.loops[l].var {
            let range = loops::range(f, tree.loops[l].stmt, &assigned);
            nest.loops.insert(tree.loops[l].stmt, (var, range));
        }
    }
    let vars: BTreeSet<LocalId> = nest
        .outer
        .iter()
        .copied()
        .chain(nest.loops.values().map(|(v, _)| *v))
        .collect();
    let mut accesses = access::collect(f, body, &vars, closed);
    accesses.retain(|a| !(a.is_write && unchecked.contains(&a.stmt)));
    let mut graph = DepGraph::new();
    let nodes: Vec<_> = accesses.iter().map(|a| graph.add_node(a.clone())).collect();
    for (wi, xi, dep) in dependent_pairs(&nest, &accesses) {
        graph.add_edge(nodes[wi], nodes[xi], dep);
    }
    graph
}

/// The pairs (write, access) of `accesses` that carry a dependence, ordered by the write's
/// position, then the access's (a write is paired with the accesses of the same array except
/// the writes before it). The tests see only the array, the subscripts and the enclosing loops
/// of an access, so they run once per pair of [`groups`], not once per pair of accesses, and
/// each pair of groups yields its first pair of each kind only: a long body that touches `s(1)`
/// a thousand times is one test and at most three edges, not a million. The first pair overall,
/// and the arrays that carry a dependence, are the same as with every pair.
fn dependent_pairs(nest: &Nest, accesses: &[Access]) -> Vec<(usize, usize, Dependence)> {
    let writes = |g: &[usize]| -> Vec<usize> {
        g.iter()
            .copied()
            .filter(|&i| accesses[i].is_write)
            .collect()
    };
    let groups = groups(accesses);
    let mut pairs = Vec::new();
    for gw in &groups {
        let w = &accesses[gw[0]];
        let Some(&w0) = writes(gw).first() else {
            continue;
        };
        for gx in groups.iter().filter(|g| accesses[g[0]].array == w.array) {
            let Some((distance, direction)) = nest.test_pair(w, &accesses[gx[0]]) else {
                continue;
            };
            let mut reads = gx.iter().copied().filter(|&i| !accesses[i].is_write);
            let first_read = reads.clone().next();
            let firsts = [
                writes(gx).into_iter().find(|&x| x >= w0).map(|x| (w0, x)),
                reads.find(|&x| x > w0).map(|x| (w0, x)),
                first_read.and_then(|r| Some((writes(gw).into_iter().find(|&w| w > r)?, r))),
            ];
            for (wi, xi) in firsts.into_iter().flatten() {
                let kind = match (accesses[xi].is_write, xi < wi) {
                    (true, _) => DepKind::Output,
                    (false, true) => DepKind::Anti,
                    (false, false) => DepKind::Flow,
                };
                let direction = direction.clone();
                pairs.push((
                    wi,
                    xi,
                    Dependence {
                        kind,
                        distance,
                        direction,
                    },
                ));
            }
        }
    }
    pairs.sort_by_key(|&(wi, xi, _)| (wi, xi));
    pairs
}

/// The accesses grouped by array, subscripts and enclosing loops: the positions of each
/// group's accesses, in order.
fn groups(accesses: &[Access]) -> Vec<Vec<usize>> {
    type Key<'a> = (LocalId, &'a [Option<Affine>], &'a [StmtId]);
    let mut index: BTreeMap<Key, usize> = BTreeMap::new();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, a) in accesses.iter().enumerate() {
        let key = (a.array, a.subscripts.as_slice(), a.loops.as_slice());
        let g = *index.entry(key).or_insert_with(|| {
            groups.push(Vec::new());
            groups.len() - 1
        });
        groups[g].push(i);
    }
    groups
}

/// The constraints the exact tests put on one level: the directions that remain possible, and
/// the distance `i' - i` when one is forced.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct LevelSet {
    dirs: u8,
    distance: Option<i64>,
}

const FREE: LevelSet = LevelSet {
    dirs: LT | EQ | GT,
    distance: None,
};

/// `Σ_k (pair[k].0·i_k − pair[k].1·i'_k) + Σ free = rhs`, where `rhs` holds only symbols.
#[derive(Clone, Debug, Default, PartialEq)]
struct Equation {
    pair: Vec<(i64, i64)>,
    /// Terms whose variables vary on their own: coefficient and bounds (`None`: unbounded).
    free: Vec<(i64, Option<(Affine, Affine)>)>,
    rhs: Affine,
}

impl Nest {
    /// `None` when `w` and `x` cannot meet in different iterations of the loop; otherwise the
    /// distance (when known) and the direction vector of the carried dependence.
    fn test_pair(&self, w: &Access, x: &Access) -> Option<(Option<i64>, Vec<Dir>)> {
        let levels: Vec<StmtId> = std::iter::once(self.stmt)
            .chain(
                w.loops
                    .iter()
                    .zip(&x.loops)
                    .take_while(|(a, b)| a == b)
                    .map(|(a, _)| *a),
            )
            .collect();
        let equations: Vec<Equation> = if w.subscripts.len() == x.subscripts.len() {
            w.subscripts
                .iter()
                .zip(&x.subscripts)
                .filter_map(|(a, b)| self.equation(a.as_ref()?, b.as_ref()?, &levels, w, x))
                .collect()
        } else {
            Vec::new()
        };
        let bounds: Vec<Option<(Affine, Affine)>> =
            levels.iter().map(|s| self.loops[s].1.bounds()).collect();
        let lower = self.symbol_floors(w, x);
        let steps: Vec<Option<i64>> = levels.iter().map(|s| self.loops[s].1.step).collect();
        let mut sets = vec![FREE; levels.len()];
        let mut inexact = Vec::new();
        for eq in &equations {
            if gcd_excludes(eq) {
                return None;
            }
            match exact_siv(eq, &bounds, &steps, &lower) {
                Some(Some((k, set))) => sets[k] = intersect(sets[k], set)?,
                Some(None) => return None,
                None => inexact.push(eq),
            }
        }
        // Only directions carried by this loop matter: the first entry is `<` or `>`.
        let carried: Vec<Vec<Dir>> = combinations(levels.len())
            .into_iter()
            .filter(|combo| combo[0] != Dir::Eq)
            .filter(|combo| {
                values_of(combo, &steps).iter().any(|values| {
                    values
                        .iter()
                        .zip(&sets)
                        .all(|(d, set)| set.dirs & d.mask() != 0)
                        && inexact
                            .iter()
                            .all(|eq| !banerjee_excludes(eq, values, &bounds, &lower))
                })
            })
            .map(|combo| match combo[0] {
                Dir::Gt => combo.into_iter().map(Dir::flip).collect(),
                _ => combo,
            })
            .collect();
        if carried.is_empty() {
            return None;
        }
        let direction = std::iter::repeat_n(Dir::Eq, self.outer.len())
            .chain(
                (0..levels.len())
                    .map(|k| Dir::of_mask(carried.iter().fold(0, |m, combo| m | combo[k].mask()))),
            )
            .collect();
        Some((sets[0].distance, direction))
    }

    /// The equation of one subscript position, `a` on `w`'s side and `b` on `x`'s.
    fn equation(
        &self,
        a: &Affine,
        b: &Affine,
        levels: &[StmtId],
        w: &Access,
        x: &Access,
    ) -> Option<Equation> {
        let mut eq = Equation {
            pair: vec![(0, 0); levels.len()],
            free: Vec::new(),
            rhs: Affine {
                vars: BTreeMap::new(),
                ..b.clone()
            }
            .add(
                &Affine {
                    vars: BTreeMap::new(),
                    ..a.clone()
                },
                -1,
            )?,
        };
        let all: BTreeSet<LocalId> = a.vars.keys().chain(b.vars.keys()).copied().collect();
        for v in all {
            let (ca, cb) = (a.coeff(v), b.coeff(v));
            let (bw, bx) = (self.binding(v, w), self.binding(v, x));
            match (bw, bx) {
                (Some(sw), Some(sx)) if sw == sx && levels.contains(&sw) => {
                    let k = levels.iter().position(|&s| s == sw)?;
                    eq.pair[k] = (ca, cb);
                }
                // A variable of an enclosing loop is the same on both sides: a symbol.
                (None, None) if self.outer.contains(&v) => {
                    let term = Affine::term(None, Some(Symbol::Local(v)));
                    eq.rhs = eq.rhs.add(&term, cb - ca)?;
                }
                _ => {
                    let bounds = |s: Option<StmtId>| s.and_then(|s| self.loops[&s].1.bounds());
                    eq.free.push((ca, bounds(bw)));
                    eq.free.push((-cb, bounds(bx)));
                }
            }
        }
        eq.free.retain(|(c, _)| *c != 0);
        Some(eq)
    }

    /// The innermost loop of the nest around access `acc` whose variable is `v`.
    fn binding(&self, v: LocalId, acc: &Access) -> Option<StmtId> {
        std::iter::once(&self.stmt)
            .chain(&acc.loops)
            .rev()
            .find(|s| self.loops[*s].0 == v)
            .copied()
    }

    /// Lower bounds of symbols that hold whenever both accesses run in different iterations of
    /// the loop: the loop has `hi - lo >= 1` (`1:n` gives `n >= 2`), and a loop inside it around
    /// either access runs only when its `hi - lo >= 0`.
    fn symbol_floors(&self, w: &Access, x: &Access) -> BTreeMap<Symbol, i64> {
        let mut lower = BTreeMap::new();
        let own = std::iter::once((&self.stmt, 1));
        let around = own.chain(w.loops.iter().chain(&x.loops).map(|s| (s, 0)));
        for (s, least) in around {
            let Some((lo, hi)) = self.loops[s].1.bounds() else {
                continue;
            };
            let Some(span) = hi
                .add(&lo, -1)
                .and_then(|d| d.add(&Affine::constant(least), -1))
            else {
                continue;
            };
            if let ([(&sym, 1)], true) = (
                span.symbols.iter().collect::<Vec<_>>().as_slice(),
                span.vars.is_empty(),
            ) {
                lower
                    .entry(sym)
                    .and_modify(|f: &mut i64| *f = (*f).max(-span.constant))
                    .or_insert(-span.constant);
            }
        }
        lower
    }
}

fn intersect(a: LevelSet, b: LevelSet) -> Option<LevelSet> {
    let distance = match (a.distance, b.distance) {
        (Some(x), Some(y)) if x != y => return None,
        (x, y) => x.or(y),
    };
    let dirs = a.dirs & b.dirs;
    (dirs != 0).then_some(LevelSet { dirs, distance })
}

/// Every vector of single directions (`<`, `=`, `>`) over `n` levels.
fn combinations(n: usize) -> Vec<Vec<Dir>> {
    (0..n).fold(vec![Vec::new()], |acc, _| {
        acc.into_iter()
            .flat_map(|v| {
                SINGLE.map(|d| {
                    let mut v = v.clone();
                    v.push(d);
                    v
                })
            })
            .collect()
    })
}

/// The directions in values of the loop variables that iteration directions `combo` mean: a
/// loop with a negative step runs its values backwards, and one with an unknown step either way.
fn values_of(combo: &[Dir], steps: &[Option<i64>]) -> Vec<Vec<Dir>> {
    combo
        .iter()
        .zip(steps)
        .fold(vec![Vec::new()], |acc, (d, step)| {
            let options = match (d, step) {
                (Dir::Eq, _) => vec![Dir::Eq],
                (_, Some(s)) if *s > 0 => vec![*d],
                (_, Some(_)) => vec![d.flip()],
                (_, None) => vec![Dir::Lt, Dir::Gt],
            };
            acc.into_iter()
                .flat_map(|v| {
                    options.iter().map(move |o| {
                        let mut v = v.clone();
                        v.push(*o);
                        v
                    })
                })
                .collect()
        })
}

/// ZIV and the GCD test: no integer solution at all.
fn gcd_excludes(eq: &Equation) -> bool {
    let Some(c) = eq.rhs.as_constant() else {
        return false;
    };
    let g = eq
        .pair
        .iter()
        .flat_map(|&(a, b)| [a, b])
        .chain(eq.free.iter().map(|(c, _)| *c))
        .fold(0, gcd);
    if g == 0 {
        c != 0
    } else {
        c % g != 0
    }
}

/// The exact SIV tests, for an equation over one level `k` with a constant right side:
/// `Some(None)` when there is no dependence, `Some(Some((k, set)))` with what is possible,
/// `None` when the equation is not of that shape. Symbolic bounds decide independence where the
/// sign is certain; directions are narrowed only with constant bounds.
fn exact_siv(
    eq: &Equation,
    bounds: &[Option<(Affine, Affine)>],
    steps: &[Option<i64>],
    floors: &BTreeMap<Symbol, i64>,
) -> Option<Option<(usize, LevelSet)>> {
    let c = eq.rhs.as_constant()?;
    let mut involved = eq.pair.iter().enumerate().filter(|(_, p)| **p != (0, 0));
    let (k, &(a, b)) = involved.next()?;
    if involved.next().is_some() || !eq.free.is_empty() {
        return None;
    }
    let range = Range {
        bounds: bounds[k].as_ref(),
        step: steps[k],
        floors,
    };
    let set = if a == b {
        strong_siv(a, c, &range)
    } else if a == 0 {
        // −b·i' = c: the sink is fixed at i0 and the source runs over the range.
        weak_zero(exact_div(-c, b), &range)
    } else if b == 0 {
        // a·i = c: the source is fixed at i0; `<` now means the sink comes later.
        weak_zero(exact_div(c, a), &range).map(|s| LevelSet {
            dirs: mirror(s.dirs),
            ..s
        })
    } else if a == -b {
        weak_crossing(exact_div(c, a), &range)
    } else {
        return None;
    };
    Some(set.map(|s| (k, s)))
}

/// One level's bounds, for the exact tests.
struct Range<'a> {
    bounds: Option<&'a (Affine, Affine)>,
    /// The loop's step, when it is a known constant.
    step: Option<i64>,
    floors: &'a BTreeMap<Symbol, i64>,
}

impl Range<'_> {
    /// Whether what `pick` makes of `(lo, hi)` is certainly positive.
    fn exceeds(&self, pick: impl Fn(&(Affine, Affine)) -> Option<Affine>) -> bool {
        self.bounds
            .and_then(pick)
            .is_some_and(|e| positive(&e, self.floors))
    }

    fn constant(&self) -> Option<(i64, i64)> {
        let (lo, hi) = self.bounds?;
        Some((lo.as_constant()?, hi.as_constant()?))
    }
}

fn exact_div(c: i64, a: i64) -> Option<i64> {
    (c % a == 0).then(|| c / a)
}

/// `a·i − a·i' = c`: the distance `i' − i = −c/a`, unless it exceeds `hi − lo` or is no
/// multiple of the step (`for k = 1:3:n` never meets `k + 1`).
fn strong_siv(a: i64, c: i64, range: &Range) -> Option<LevelSet> {
    let d = -exact_div(c, a)?;
    if range.step.is_some_and(|s| s != 0 && d % s != 0) {
        return None;
    }
    if range.exceeds(|(lo, hi)| Affine::constant(d.abs()).add(hi, -1)?.add(lo, 1)) {
        return None;
    }
    let dirs = match d {
        0 => EQ,
        d if d > 0 => LT,
        _ => GT,
    };
    Some(LevelSet {
        dirs,
        distance: Some(d),
    })
}

/// One side fixed at `i0` (no dependence unless an integer in the range), the other free in the
/// range: the directions of the free side's `i` relative to `i0` (`<` for `i < i0`).
fn weak_zero(i0: Option<i64>, range: &Range) -> Option<LevelSet> {
    let i0 = i0?;
    let at = Affine::constant(i0);
    if range.exceeds(|(lo, _)| lo.clone().add(&at, -1))
        || range.exceeds(|(_, hi)| at.clone().add(hi, -1))
    {
        return None;
    }
    let dirs = match range.constant() {
        Some((lo, hi)) => (if lo < i0 { LT } else { 0 }) | EQ | (if hi > i0 { GT } else { 0 }),
        None => LT | EQ | GT,
    };
    Some(LevelSet {
        dirs,
        distance: None,
    })
}

/// `<` and `>` swapped.
fn mirror(dirs: u8) -> u8 {
    (dirs & EQ) | (if dirs & LT != 0 { GT } else { 0 }) | (if dirs & GT != 0 { LT } else { 0 })
}

/// `i + i' = s`: the two cross at `s/2`. No dependence when `s/2` lies outside the range; `=`
/// only when `s` is even; `<`/`>` when an `i < s/2` pairs with an `i' = s − i` in the range.
fn weak_crossing(s: Option<i64>, range: &Range) -> Option<LevelSet> {
    let s = s?;
    let sum = Affine::constant(s);
    if range.exceeds(|(lo, _)| lo.clone().scale(2)?.add(&sum, -1))
        || range.exceeds(|(_, hi)| sum.clone().add(&hi.clone().scale(2)?, -1))
    {
        return None;
    }
    let eq = if s % 2 == 0 { EQ } else { 0 };
    let apart = match range.constant() {
        Some((lo, hi)) if 2 * lo.max(s - hi) >= s => 0,
        _ => LT | GT,
    };
    Some(LevelSet {
        dirs: apart | eq,
        distance: None,
    })
}

/// Banerjee's test for one direction vector in values (`values`, one per level): whether the
/// left side's extremes over the bounds certainly miss `rhs`. The extremes of a linear function
/// over each level's region (a box for `*`, a segment for `=`, a triangle for `<` and `>`) are
/// at its vertices; every sum of vertex values must lie on the same side of `rhs`.
fn banerjee_excludes(
    eq: &Equation,
    values: &[Dir],
    bounds: &[Option<(Affine, Affine)>],
    lower: &BTreeMap<Symbol, i64>,
) -> bool {
    let mut terms: Vec<Vec<Affine>> = Vec::new();
    let (mut open_up, mut open_down) = (false, false);
    for (k, (&(a, b), d)) in eq.pair.iter().zip(values).enumerate() {
        if (a, b) == (0, 0) || (*d == Dir::Eq && a == b) {
            continue;
        }
        let Some((lo, hi)) = &bounds[k] else {
            let Some((vertex, up)) = unbounded_step(a, b, *d) else {
                return false;
            };
            terms.push(vec![Affine::constant(vertex)]);
            open_up |= up;
            open_down |= !up;
            continue;
        };
        let Some(vertices) = vertices(a, b, *d, lo, hi) else {
            return false;
        };
        terms.push(vertices);
    }
    for (c, range) in &eq.free {
        let Some((lo, hi)) = range else {
            return false;
        };
        let (Some(x), Some(y)) = (lo.clone().scale(*c), hi.clone().scale(*c)) else {
            return false;
        };
        terms.push(vec![x, y]);
    }
    let Some(sums) = terms
        .iter()
        .try_fold(vec![Affine::default()], |sums, vertices| {
            let next: Option<Vec<Affine>> = sums
                .iter()
                .flat_map(|s| vertices.iter().map(move |v| s.clone().add(v, 1)))
                .collect();
            next.filter(|n| n.len() <= 4096)
        })
    else {
        return false;
    };
    let gaps: Option<Vec<Affine>> = sums.into_iter().map(|s| s.add(&eq.rhs, -1)).collect();
    let Some(gaps) = gaps else { return false };
    let facts = nonempty_facts(eq, values, bounds);
    let above = !open_down && gaps.iter().all(|g| positive_given(g, lower, &facts));
    let below = !open_up
        && gaps.iter().all(|g| {
            g.clone()
                .scale(-1)
                .is_some_and(|n| positive_given(&n, lower, &facts))
        });
    above || below
}

/// What the two iterations being compared imply of the bounds: each level has `hi - lo >= 1`
/// where its direction sets the two apart (`<`, `>`), `>= 0` otherwise, and the loop of a free
/// term runs, `hi - lo >= 0`. Each fact is an affine expression that is `>= 0`.
fn nonempty_facts(
    eq: &Equation,
    values: &[Dir],
    bounds: &[Option<(Affine, Affine)>],
) -> Vec<Affine> {
    let levels = bounds
        .iter()
        .zip(values)
        .map(|(b, d)| (b, i64::from(*d != Dir::Eq)));
    let free = eq.free.iter().map(|(_, b)| (b, 0));
    levels
        .chain(free)
        .filter_map(|(b, apart)| {
            let (lo, hi) = b.as_ref()?;
            hi.clone().add(lo, -1)?.add(&Affine::constant(apart), -1)
        })
        .filter(|fact| fact.as_constant().is_none())
        .take(4)
        .collect()
}

/// Whether `e > 0` certainly, given `facts` (each `>= 0`): `e` less a sum of some of them is
/// certainly positive ([`positive`]).
fn positive_given(e: &Affine, lower: &BTreeMap<Symbol, i64>, facts: &[Affine]) -> bool {
    (0..1u32 << facts.len()).any(|subset| {
        facts
            .iter()
            .enumerate()
            .filter(|(k, _)| subset & (1 << k) != 0)
            .try_fold(e.clone(), |rest, (_, fact)| rest.add(fact, -1))
            .is_some_and(|rest| positive(&rest, lower))
    })
}

/// `a·(i − i')` for a level whose bounds are unknown, in the direction `d` (`<`: `i' ≥ i + 1`,
/// `>`: `i ≥ i' + 1`): a half-line from the returned vertex, upwards when the flag is set. Only
/// equal coefficients give one; otherwise the term is unbounded both ways.
fn unbounded_step(a: i64, b: i64, d: Dir) -> Option<(i64, bool)> {
    let step = match d {
        Dir::Lt => -1,
        Dir::Gt => 1,
        Dir::Eq | Dir::Any => return None,
    };
    (a == b && a != 0).then(|| (a * step, (a > 0) == (step > 0)))
}

/// The values of `a·i − b·i'` at the vertices of the region of direction `d` in `[lo, hi]²`.
fn vertices(a: i64, b: i64, d: Dir, lo: &Affine, hi: &Affine) -> Option<Vec<Affine>> {
    let at = |i: &Affine, di: i64, i2: &Affine, di2: i64| -> Option<Affine> {
        let i = i.clone().add(&Affine::constant(di), 1)?.scale(a)?;
        let i2 = i2.clone().add(&Affine::constant(di2), 1)?.scale(b)?;
        i.add(&i2, -1)
    };
    let points = match d {
        Dir::Eq => vec![at(lo, 0, lo, 0), at(hi, 0, hi, 0)],
        Dir::Lt => vec![at(lo, 0, lo, 1), at(lo, 0, hi, 0), at(hi, -1, hi, 0)],
        Dir::Gt => vec![at(lo, 1, lo, 0), at(hi, 0, lo, 0), at(hi, 0, hi, -1)],
        Dir::Any => return None,
    };
    points.into_iter().collect()
}

/// Whether `e > 0` certainly: no loop variables, no symbol with a negative coefficient, and
/// positive with every symbol at its lower bound (`lower`, and 0 for sizes).
fn positive(e: &Affine, lower: &BTreeMap<Symbol, i64>) -> bool {
    if !e.vars.is_empty() {
        return false;
    }
    let mut least = e.constant as i128;
    for (s, &c) in &e.symbols {
        let size_floor = matches!(s, Symbol::Size(..)).then_some(0);
        let floor = match (lower.get(s).copied(), size_floor) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        match floor {
            Some(floor) if c > 0 => least += c as i128 * floor as i128,
            _ => return false,
        }
    }
    least > 0
}

fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.abs(), b.abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::function;
    use crate::{induction, loops};

    /// The direction vectors of the dependences carried by each loop of `body`.
    fn carried_by_loop(body: &str) -> Vec<Vec<String>> {
        let f = function(body);
        let tree = LoopTree::build(&f);
        tree.loops
            .iter()
            .map(|(id, info)| {
                let body = loop_body(&f, info.stmt);
                let range = loops::range(&f, info.stmt, &access::assigned_scalars(&f, body));
                let var = info.var.expect("a for loop");
                let closed = induction::closed_forms(&induction::find(&f, body), var, &range);
                let graph = carried(&f, &tree, id, &closed, &BTreeSet::new());
                graph
                    .edge_weights()
                    .map(Dependence::direction_text)
                    .collect()
            })
            .collect()
    }

    fn none() -> Vec<String> {
        Vec::new()
    }

    fn one(direction: &str) -> Vec<String> {
        vec![direction.to_string()]
    }

    #[test]
    fn strong_siv_gives_a_distance_and_respects_the_bounds() {
        assert_eq!(
            carried_by_loop("y = x; for i = 2:10\n y(i) = y(i-1);\nend"),
            [one("(<)")]
        );
        assert_eq!(
            carried_by_loop("y = x; for i = 1:3\n y(i+5) = y(i);\nend"),
            [none()]
        );
        assert_eq!(
            carried_by_loop("y = x; for i = 1:10\n y(i) = y(i) + 1;\nend"),
            [none()]
        );
    }

    #[test]
    fn gcd_and_ziv_exclude_dependences() {
        assert_eq!(
            carried_by_loop("y = x; for i = 1:4\n y(2*i) = y(2*i+1);\nend"),
            [none()]
        );
        assert_eq!(
            carried_by_loop("y = x; for i = 1:4\n y(1) = y(2) + i;\nend"),
            [one("(<)")]
        );
    }

    #[test]
    fn weak_zero_siv_outside_the_bounds_is_independent() {
        assert_eq!(
            carried_by_loop("y = x; for i = 2:n\n y(i) = y(1);\nend"),
            [none()]
        );
        assert_eq!(
            carried_by_loop("y = x; for i = 1:5\n y(i) = y(7);\nend"),
            [none()]
        );
        assert_eq!(
            carried_by_loop("y = x; for i = 1:5\n y(i) = y(3);\nend"),
            [one("(<)")]
        );
        // Every iteration writes y(5) (an output dependence); iteration 5 reads it.
        assert_eq!(
            carried_by_loop("y = x; for i = 1:5\n y(5) = y(i);\nend"),
            [vec!["(<)".to_string(), "(<)".to_string()]]
        );
    }

    #[test]
    fn weak_zero_directions_with_constant_bounds() {
        let range = Range {
            bounds: Some(&(Affine::constant(1), Affine::constant(5))),
            step: Some(1),
            floors: &BTreeMap::new(),
        };
        assert_eq!(weak_zero(Some(1), &range).map(|s| s.dirs), Some(EQ | GT));
        assert_eq!(weak_zero(Some(5), &range).map(|s| s.dirs), Some(LT | EQ));
        assert_eq!(weak_zero(Some(6), &range), None);
        assert_eq!(weak_zero(None, &range), None);
    }

    #[test]
    fn weak_crossing_siv() {
        assert_eq!(
            carried_by_loop("y = x; for i = 1:10\n y(i) = y(11 - i);\nend"),
            [one("(<)")]
        );
        assert_eq!(
            carried_by_loop("y = x; for i = 1:5\n y(i) = y(11 - i);\nend"),
            [none()]
        );
        let range = Range {
            bounds: Some(&(Affine::constant(1), Affine::constant(10))),
            step: Some(1),
            floors: &BTreeMap::new(),
        };
        assert_eq!(
            weak_crossing(Some(11), &range).map(|s| s.dirs),
            Some(LT | GT)
        );
        assert_eq!(weak_crossing(Some(2), &range).map(|s| s.dirs), Some(EQ));
        assert_eq!(weak_crossing(Some(22), &range), None);
    }

    #[test]
    fn strong_siv_distance_must_be_a_multiple_of_the_step() {
        assert_eq!(
            carried_by_loop("y = x; for k = 1:3:n\n y(k+1) = y(k);\nend"),
            [none()]
        );
        assert_eq!(
            carried_by_loop("y = x; for k = 1:2:n\n y(k+2) = y(k);\nend"),
            [one("(<)")]
        );
    }

    #[test]
    fn triangular_ranges_leave_the_pivot_row_alone() {
        // LU's column scale: `i` runs over `k+1:n`, so `y(i, k)` never meets `y(k, k)`;
        // over `k:n` it does (at `i = k`).
        let lu =
            "y = zeros(n, n); for k = 1:n\n for i = k+1:n\n y(i,k) = y(i,k) / y(k,k);\n end\nend";
        assert_eq!(carried_by_loop(lu)[1], none());
        let from_k =
            "y = zeros(n, n); for k = 1:n\n for i = k:n\n y(i,k) = y(i,k) / y(k,k);\n end\nend";
        assert_eq!(carried_by_loop(from_k)[1], one("(=,<)"));
    }

    #[test]
    fn banerjee_decides_symbolic_bounds() {
        assert_eq!(
            carried_by_loop("y = zeros(1, 2*n); for i = 1:n\n y(i+n) = y(i);\nend"),
            [none()]
        );
        assert_eq!(
            carried_by_loop("y = zeros(1, 2*n); for i = 1:n\n y(i+n-1) = y(i);\nend"),
            [one("(<)")]
        );
        // Sizes are never negative, so `i + n + numel(x)` lies beyond every `i'` in 1:n.
        assert_eq!(
            carried_by_loop("y = zeros(1, 3*n); for i = 1:n\n y(i + n + numel(x)) = y(i);\nend"),
            [none()]
        );
    }

    #[test]
    fn banerjee_needs_no_bounds_for_an_equal_step() {
        // Chunks of 8: `8*(b - b')` is at most -8 for `b < b'`, and `t - t'` at most 7, whatever
        // the number of chunks (a bound m2cu cannot write as an affine form).
        let chunks = "for b = 1:ceil(n / 8)\n for t = 1:8\n y(8*(b-1) + t) = x(t);\n end\nend";
        assert_eq!(
            carried_by_loop(&format!("y = x; {chunks}")),
            [none(), none()]
        );
        // A step of 8 with 9 positions each overlaps the next chunk.
        let overlap = "for b = 1:ceil(n / 8)\n for t = 1:9\n y(8*(b-1) + t) = x(t);\n end\nend";
        assert_eq!(
            carried_by_loop(&format!("y = x; {overlap}")),
            [one("(<,>)"), none()]
        );
    }

    #[test]
    fn direction_vectors_of_a_nest() {
        let src = "y = zeros(4, 4);\nfor i = 1:4\n for j = 2:4\n  y(i, j) = y(i, j-1);\n end\nend";
        assert_eq!(carried_by_loop(src), [none(), one("(=,<)")]);
        let src =
            "y = zeros(4, 4);\nfor i = 2:4\n for j = 1:3\n  y(i, j) = y(i-1, j+1);\n end\nend";
        assert_eq!(carried_by_loop(src), [one("(<,>)"), none()]);
    }

    #[test]
    fn negative_steps_run_backwards() {
        assert_eq!(
            carried_by_loop("y = x; for i = 9:-1:1\n y(i) = y(i+1);\nend"),
            [one("(<)")]
        );
    }

    #[test]
    fn induction_variables_make_subscripts_affine() {
        let src =
            "y = zeros(1, 20); k = 0;\nfor i = 1:10\n k = k + 2;\n y(k) = x(i);\n y(k-1) = 0;\nend";
        assert_eq!(carried_by_loop(src), [none()]);
        // Before the update `k + 1` is the element that `k` is after it, in the same iteration.
        let src =
            "y = zeros(1, 20); k = 0;\nfor i = 1:10\n y(k+1) = x(i);\n k = k + 1;\n y(k) = 0;\nend";
        assert_eq!(carried_by_loop(src), [none()]);
        let src =
            "y = zeros(1, 20); k = 0;\nfor i = 1:10\n y(k) = x(i);\n k = k + 1;\n y(k) = 0;\nend";
        assert_eq!(carried_by_loop(src), [one("(<)")]);
    }
}
