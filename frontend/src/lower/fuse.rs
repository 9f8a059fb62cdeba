//! Elementwise loops in a row, fused into one loop, and the temporaries between them held in
//! scalars (loop fusion and array contraction), run on the finished IR.
//!
//! Vectorized MATLAB lowers each statement to a loop of its own over the elements. In the body
//! of n-body's loop over the bodies,
//!
//! ```text
//! dx = x - x(i);  dy = y - y(i);  r2 = dx.^2 + dy.^2;  ax(i) = sum(dx ./ r2);
//! ```
//!
//! every temporary is an array of run-time size that one loop writes and the next reads: the
//! loop over `i` creates arrays in every iteration (so it stays sequential), and each statement
//! is a pass over memory (a kernel launch on the GPU). After this pass the four statements are
//! one loop over the elements, in which `dx`, `dy` and `r2` are scalars:
//!
//! ```text
//! _sum = 0;
//! for _k = 1:numel(x)  dx = x(_k) - x(i); dy = ...; r2 = dx^2 + dy^2; _sum = _sum + dx / r2;  end
//! ax(i) = _sum;
//! ```
//!
//! A *window* of consecutive statements of a block is fused when:
//! - its *members* (at least two; the window ends with one) are loops
//!   `for _k = 1:(size(E, 1) * size(E, 2))` whose body either stores `E(_k) = e` (a *map* of `E`)
//!   or assigns only scalars (a *fold*: a sum, an extreme, a mean);
//! - the extents of all members are provably equal: the arrays `E` are in one class of the
//!   equalities the window's allocations (`A = zeros(size(P, 1), size(P, 2))`) and size checks
//!   (`check size(P) == size(Q) else SizeMismatch`) establish, and no statement of the window
//!   changes the size of such an array but the one allocation that creates it, before anything
//!   else in the window mentions it;
//! - its other statements are allocations, checks, assignments and element stores. Those that
//!   touch nothing an earlier member or *after* statement writes (and write nothing those read)
//!   run *before* the fused loop; the others run *after* it, and must not touch what a later
//!   member or *before* statement reads or writes either. So every value a statement reads is
//!   the one it read in the window's order;
//! - of two members, the later may read only the earlier's map array, and only at its own
//!   element (`dx(_k)`): iteration `k` of the fused loop computes element `k` of every map
//!   before the later members read it. Neither writes anything else the other mentions, so each
//!   fold accumulates the same values in the same order;
//! - the member's loop variables appear nowhere else (the fused loop runs over the first one).
//!
//! A map's array that nothing outside the window mentions (not an input or output), that the
//! window mentions only by its allocation, its map, reads at a member's own element and its
//! `size(A, 1)`/`size(A, 2)`, becomes a scalar of its class: the allocation goes, the map stores
//! the scalar, the reads read it, and its sizes are its allocation's extents.
//!
//! Every statement computes what it did, so the result is the same; only the order of failures
//! differs: all of the window's checks run before the fused loop, and iteration `k` of a later
//! member runs before iteration `k + 1` of an earlier one. A program that stops with a run-time
//! error still stops, but when two of its statements would fail, either's error may be the one
//! reported (as in a parallel loop: `docs/DESIGN.md`). `error` and printing, whose order is
//! the program's output, never join a window.

use std::collections::BTreeSet;
use std::ops::Range;

use crate::ir::{
    copy_expr, same_expr, BinOp, Block, Expr, ExprId, ExprKind, Function, LocalId, RuntimeError,
    SizeQuery, StmtId, StmtKind,
};
use crate::types::{Class, Dim, Shape, Type};

/// The most statements one window spans.
const MAX_WINDOW: usize = 48;

/// Fuses the elementwise loops of every block of `f` (see the module docs).
pub(super) fn fuse(f: &mut Function) {
    let mut blocks = Vec::new();
    collect_blocks(f, &f.body, &mut blocks);
    blocks.push(Place::Root);
    for place in blocks {
        let block = place.block(f).clone();
        let fused = fuse_block(f, block);
        *place.block_mut(f) = fused;
    }
}

/// Where a block lives: the function's body, or a block of a statement.
#[derive(Clone, Copy)]
enum Place {
    Root,
    Body(StmtId),
    Then(StmtId),
    Else(StmtId),
}

impl Place {
    fn block(self, f: &Function) -> &Block {
        match (self, self.stmt().map(|s| &f.stmts[s].kind)) {
            (Place::Root, _) => &f.body,
            (_, Some(StmtKind::For { body, .. } | StmtKind::While { body, .. })) => body,
            (Place::Then(_), Some(StmtKind::If { then_body, .. })) => then_body,
            (_, Some(StmtKind::If { else_body, .. })) => else_body,
            _ => unreachable!("a place names a block"),
        }
    }

    fn block_mut(self, f: &mut Function) -> &mut Block {
        let Some(s) = self.stmt() else {
            return &mut f.body;
        };
        match (self, &mut f.stmts[s].kind) {
            (_, StmtKind::For { body, .. } | StmtKind::While { body, .. }) => body,
            (Place::Then(_), StmtKind::If { then_body, .. }) => then_body,
            (_, StmtKind::If { else_body, .. }) => else_body,
            _ => unreachable!("a place names a block"),
        }
    }

    fn stmt(self) -> Option<StmtId> {
        match self {
            Place::Root => None,
            Place::Body(s) | Place::Then(s) | Place::Else(s) => Some(s),
        }
    }
}

/// The places of the blocks nested in `block`, each after the blocks nested in it (so a loop is
/// fused inside before the block around it is looked at).
fn collect_blocks(f: &Function, block: &Block, out: &mut Vec<Place>) {
    for &s in &block.0 {
        match &f.stmts[s].kind {
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => {
                collect_blocks(f, body, out);
                out.push(Place::Body(s));
            }
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                collect_blocks(f, then_body, out);
                collect_blocks(f, else_body, out);
                out.push(Place::Then(s));
                out.push(Place::Else(s));
            }
            _ => {}
        }
    }
}

fn fuse_block(f: &mut Function, block: Block) -> Block {
    let facts = Facts::of(f, block);
    let mut out = Vec::with_capacity(facts.stmts.len());
    let mut i = 0;
    while i < facts.stmts.len() {
        match longest_window(f, &facts, i) {
            Some((end, plan)) => {
                out.extend(apply(f, plan));
                i = end;
            }
            None => {
                out.push(facts.stmts[i]);
                i += 1;
            }
        }
    }
    Block(out)
}

/// What fusion needs of each statement of a block, found once: fusing a window changes
/// nothing the statements after it touch.
struct Facts {
    stmts: Vec<StmtId>,
    prints: Vec<Footprint>,
    members: Vec<Option<Member>>,
    /// Whether the statement may be part of a window.
    joins: Vec<bool>,
}

impl Facts {
    fn of(f: &Function, block: Block) -> Facts {
        // A loop whose variable is read outside it keeps its own variable: no member.
        let members: Vec<Option<Member>> = block
            .0
            .iter()
            .map(|&s| member(f, s).filter(|m| !mentioned_outside(f, m.var, &nested(f, &[s]))))
            .collect();
        let joins = block
            .0
            .iter()
            .zip(&members)
            .map(|(&s, m)| m.is_some() || joins(f, s))
            .collect();
        Facts {
            prints: block
                .0
                .iter()
                .zip(&members)
                .map(|(&s, m)| Footprint::of(f, s, m))
                .collect(),
            stmts: block.0,
            members,
            joins,
        }
    }
}

/// The longest window that starts at statement `start` and can be fused: where it ends
/// (exclusive), and its plan.
fn longest_window(f: &Function, facts: &Facts, start: usize) -> Option<(usize, Plan)> {
    let end = (start..facts.stmts.len().min(start + MAX_WINDOW))
        .find(|&j| !facts.joins[j])
        .unwrap_or(facts.stmts.len().min(start + MAX_WINDOW));
    let members: Vec<usize> = (start..end)
        .filter(|&j| facts.members[j].is_some())
        .collect();
    members
        .iter()
        .skip(1)
        .rev()
        .find_map(|&last| plan(f, facts, start..last + 1).map(|p| (last + 1, p)))
}

/// Whether statement `s`, no member, may be part of a window.
fn joins(f: &Function, s: StmtId) -> bool {
    matches!(
        f.stmts[s].kind,
        StmtKind::Assign { .. }
            | StmtKind::Alloc { .. }
            | StmtKind::Resize { .. }
            | StmtKind::Store { .. }
            | StmtKind::Check { .. }
    )
}

/// A loop over `1:stop`, fusable with others.
#[derive(Clone)]
struct Member {
    stmt: StmtId,
    var: LocalId,
    stop: ExprId,
    /// The array `E` of a `stop` that is `size(E, 1) * size(E, 2)`.
    elements: Option<LocalId>,
    /// The array the loop maps (its `elements`), or `None` for a fold.
    map: Option<LocalId>,
    body: Block,
}

impl Member {
    /// How many iterations the loop runs, as the window's classes compare counts.
    fn count(&self) -> Count {
        match self.elements {
            Some(e) => Count::Array(e),
            None => Count::Value(self.stop),
        }
    }
}

/// `s` as a member: `for var = 1:stop` storing `E(var) = e` only (reading `E` at `var`
/// only), where `stop` is `size(E, 1) * size(E, 2)`, or assigning only scalars other than
/// `var`.
fn member(f: &Function, s: StmtId) -> Option<Member> {
    let StmtKind::For {
        var,
        start,
        step: None,
        stop,
        body,
    } = &f.stmts[s].kind
    else {
        return None;
    };
    if !matches!(f.exprs[*start].kind, ExprKind::Const(c) if c == 1.0) || body.0.is_empty() {
        return None;
    }
    let elements = elements_of(f, *stop);
    let map = match body.0.as_slice() {
        [only] => match &f.stmts[*only].kind {
            StmtKind::Store {
                array,
                indices,
                value,
            } if Some(*array) == elements
                && indices.len() == 1
                && is_local(f, indices[0], *var)
                && reads_only_at_in(f, *value, *array, *var) =>
            {
                Some(*array)
            }
            _ => None,
        },
        _ => None,
    };
    if map.is_none() && !assigns_only_scalars(f, body, *var) {
        return None;
    }
    Some(Member {
        stmt: s,
        var: *var,
        stop: *stop,
        elements,
        map,
        body: body.clone(),
    })
}

/// The array `E` of `size(E, 1) * size(E, 2)`.
fn elements_of(f: &Function, e: ExprId) -> Option<LocalId> {
    let ExprKind::Binary(BinOp::Mul, rows, cols) = f.exprs[e].kind else {
        return None;
    };
    let array = size_of(f, rows, 1)?;
    (size_of(f, cols, 2)? == array).then_some(array)
}

/// The array `A` of `size(A, dim)`.
fn size_of(f: &Function, e: ExprId, dim: u8) -> Option<LocalId> {
    match f.exprs[e].kind {
        ExprKind::Size(a, SizeQuery::Dim(d)) if d == dim => Some(a),
        _ => None,
    }
}

fn is_local(f: &Function, e: ExprId, local: LocalId) -> bool {
    f.exprs[e].kind == ExprKind::Local(local)
}

/// Whether `body` only assigns scalars other than `var` (and branches).
fn assigns_only_scalars(f: &Function, body: &Block, var: LocalId) -> bool {
    let mut only = true;
    f.walk_stmts(body, &mut |s| {
        only &= match f.stmts[s].kind {
            StmtKind::Assign { target, .. } => target != var && f.locals[target].ty.is_scalar(),
            StmtKind::If { .. } => true,
            _ => false,
        }
    });
    only
}

/// What a statement reads or writes of a local: its value (a scalar's, or an array's
/// elements), or its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Res {
    Data(LocalId),
    Size(LocalId),
}

#[derive(Default)]
struct Footprint {
    reads: BTreeSet<Res>,
    writes: BTreeSet<Res>,
}

impl Footprint {
    /// What statement `s` and the statements nested in it touch; a member's map writes the
    /// elements of its array, not its size.
    fn of(f: &Function, s: StmtId, member: &Option<Member>) -> Footprint {
        let map = member.as_ref().and_then(|m| m.map);
        let mut fp = Footprint::default();
        f.walk_stmts(&Block(vec![s]), &mut |st| fp.add_own(f, st, map));
        fp
    }

    /// What statement `s` touches itself, not through the statements nested in it.
    fn of_own(f: &Function, s: StmtId) -> Footprint {
        let mut fp = Footprint::default();
        fp.add_own(f, s, None);
        fp
    }

    /// Adds what statement `s` touches itself; a store into `map` writes only elements.
    fn add_own(&mut self, f: &Function, s: StmtId, map: Option<LocalId>) {
        for e in f.stmt_exprs(s) {
            self.read(f, e);
        }
        match &f.stmts[s].kind {
            StmtKind::Store { array, .. } if Some(*array) == map => {
                self.writes.insert(Res::Data(*array));
            }
            StmtKind::Store { array, .. } => {
                self.reads.insert(Res::Size(*array));
                self.write_all(*array);
            }
            StmtKind::Resize { array, .. } => {
                self.reads.extend([Res::Data(*array), Res::Size(*array)]);
                self.write_all(*array);
            }
            StmtKind::Assign { target, .. }
            | StmtKind::Alloc { target, .. }
            | StmtKind::For { var: target, .. } => self.write_all(*target),
            _ => {}
        }
    }

    fn read(&mut self, f: &Function, e: ExprId) {
        f.walk_expr(e, &mut |x| match f.exprs[x].kind {
            ExprKind::Local(l) | ExprKind::Index(l, _) => {
                self.reads.extend([Res::Data(l), Res::Size(l)]);
            }
            ExprKind::Size(l, _) => {
                self.reads.insert(Res::Size(l));
            }
            _ => {}
        });
    }

    fn write_all(&mut self, l: LocalId) {
        self.writes.extend([Res::Data(l), Res::Size(l)]);
    }

    /// Whether running `self` and `other` in the other order could change what either
    /// reads or leaves.
    fn conflicts(&self, other: &Footprint) -> bool {
        let meets = |a: &BTreeSet<Res>, b: &BTreeSet<Res>| a.iter().any(|r| b.contains(r));
        meets(&self.writes, &other.reads)
            || meets(&self.writes, &other.writes)
            || meets(&self.reads, &other.writes)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Before,
    Member,
    After,
}

/// How a window is fused: the members in order, the statements that run before and after the
/// fused loop, and the map arrays held in scalars, in the order of their allocations.
struct Plan {
    members: Vec<Member>,
    before: Vec<StmtId>,
    after: Vec<StmtId>,
    contracted: Vec<(LocalId, StmtId)>,
}

/// The plan of the window `range` of the block (which ends with a member), if it can be fused.
fn plan(f: &Function, facts: &Facts, range: Range<usize>) -> Option<Plan> {
    let window = Window {
        stmts: &facts.stmts[range.clone()],
        prints: &facts.prints[range.clone()],
        members: &facts.members[range],
    };
    let roles = window.roles()?;
    let mut members: Vec<(&Member, usize)> = Vec::new();
    let (mut before, mut after) = (Vec::new(), Vec::new());
    for (p, &s) in window.stmts.iter().enumerate() {
        match (roles[p], &window.members[p]) {
            (Role::Member, Some(m)) => members.push((m, p)),
            (Role::Before, _) => before.push(s),
            _ => after.push(s),
        }
    }
    if members.len() < 2 {
        return None;
    }
    for (j, &(later, q)) in members.iter().enumerate() {
        for &(earlier, p) in &members[..j] {
            if !members_fuse(f, earlier, &window.prints[p], later, &window.prints[q]) {
                return None;
            }
        }
    }
    let mut classes = Classes::of(f, &window, &roles)?;
    if members.iter().any(|(m, _)| !classes.same(m, members[0].0)) {
        return None;
    }
    let members: Vec<Member> = members.into_iter().map(|(m, _)| m.clone()).collect();
    let inside = nested(f, window.stmts);
    let mut contracted: Vec<(LocalId, StmtId)> = members
        .iter()
        .filter_map(|m| m.map)
        .filter_map(|a| {
            let alloc = contractible(f, &window, &roles, &classes, &members, &inside, a)?;
            Some((a, alloc))
        })
        .collect();
    contracted.sort_by_key(|&(_, alloc)| window.stmts.iter().position(|&s| s == alloc));
    Some(Plan {
        members,
        before,
        after,
        contracted,
    })
}

/// A window's statements, with their footprints and member loops.
struct Window<'a> {
    stmts: &'a [StmtId],
    prints: &'a [Footprint],
    members: &'a [Option<Member>],
}

impl Window<'_> {
    /// Each statement's role, or `None` when an *after* statement conflicts with a later
    /// member.
    fn roles(&self) -> Option<Vec<Role>> {
        let mut roles: Vec<Role> = Vec::with_capacity(self.stmts.len());
        for p in 0..self.stmts.len() {
            let role = if self.members[p].is_some() {
                Role::Member
            } else if (0..p)
                .any(|q| roles[q] != Role::Before && self.prints[q].conflicts(&self.prints[p]))
            {
                Role::After
            } else {
                Role::Before
            };
            roles.push(role);
        }
        for (p, role) in roles.iter().enumerate() {
            if *role == Role::After
                && (p + 1..self.stmts.len())
                    .any(|q| roles[q] != Role::After && self.prints[p].conflicts(&self.prints[q]))
            {
                return None;
            }
        }
        Some(roles)
    }
}

/// Whether member `b` may run in the same loop as the earlier member `a`, iteration by
/// iteration: they share nothing either writes but the elements of one's map array, which
/// the other reads only at its own element (so iteration `k` of each touches element `k`).
fn members_fuse(f: &Function, a: &Member, pa: &Footprint, b: &Member, pb: &Footprint) -> bool {
    let same_element = |r: &Res, writer: &Member, reader: &Member, reader_print: &Footprint| {
        matches!(r, Res::Data(x) if writer.map == Some(*x)
            && !reader_print.writes.contains(r)
            && reads_only_at(f, &reader.body, *x, reader.var))
    };
    pa.writes
        .iter()
        .all(|r| !(pb.reads.contains(r) || pb.writes.contains(r)) || same_element(r, a, b, pb))
        && pb
            .writes
            .iter()
            .all(|r| !(pa.reads.contains(r) || pa.writes.contains(r)) || same_element(r, b, a, pa))
}

/// Whether every read of `array`'s elements in `body` is `array(var)`.
fn reads_only_at(f: &Function, body: &Block, array: LocalId, var: LocalId) -> bool {
    let mut only = true;
    f.walk_stmts(body, &mut |s| {
        for e in f.stmt_exprs(s) {
            only &= reads_only_at_in(f, e, array, var);
        }
    });
    only
}

/// Whether every read of `array`'s elements in expression `e` is `array(var)`.
fn reads_only_at_in(f: &Function, e: ExprId, array: LocalId, var: LocalId) -> bool {
    let mut only = true;
    f.walk_expr(e, &mut |x| match &f.exprs[x].kind {
        ExprKind::Index(a, indices) if *a == array => {
            only &= indices.len() == 1 && is_local(f, indices[0], var)
        }
        ExprKind::Local(a) if *a == array => only = false,
        _ => {}
    });
    only
}

/// An element count, as the window's classes compare them: an array's, or the value of an
/// expression that no statement of the window changes.
#[derive(Clone, Copy)]
enum Count {
    Array(LocalId),
    Value(ExprId),
}

/// The classes of equal element counts that the window's *before* statements establish.
struct Classes<'f> {
    f: &'f Function,
    /// What the window writes.
    written: BTreeSet<Res>,
    nodes: Vec<Count>,
    parent: Vec<usize>,
}

impl<'f> Classes<'f> {
    /// The classes, or `None` when a statement changes the size of an array in a class but by
    /// the one allocation that creates it, first in the window.
    fn of(f: &'f Function, window: &Window, roles: &[Role]) -> Option<Classes<'f>> {
        let mut classes = Classes {
            f,
            written: window
                .prints
                .iter()
                .flat_map(|p| p.writes.iter().copied())
                .collect(),
            nodes: Vec::new(),
            parent: Vec::new(),
        };
        for (p, &s) in window.stmts.iter().enumerate() {
            if roles[p] != Role::Before {
                continue;
            }
            let (a, b) = match &f.stmts[s].kind {
                StmtKind::Alloc {
                    target,
                    rows,
                    cols,
                    pages: None,
                    ..
                } => (Some(Count::Array(*target)), classes.count_of(*rows, *cols)),
                StmtKind::Check {
                    cond,
                    error: RuntimeError::SizeMismatch,
                } => match classes.sides(*cond) {
                    Some((a, b)) => (Some(a), Some(b)),
                    None => (None, None),
                },
                _ => (None, None),
            };
            if let (Some(a), Some(b)) = (a, b) {
                classes.union(a, b);
            }
        }
        let arrays: Vec<LocalId> = classes
            .nodes
            .iter()
            .filter_map(|n| match n {
                Count::Array(a) => Some(*a),
                Count::Value(_) => None,
            })
            .collect();
        arrays
            .into_iter()
            .all(|a| {
                !classes.written.contains(&Res::Size(a)) || created_first(f, window, a).is_some()
            })
            .then_some(classes)
    }

    /// The count of an array of extents `rows` by `cols`: `size(P, 1)` by `size(P, 2)` has
    /// `P`'s, and an extent of 1 by a stable one has that one's value.
    fn count_of(&self, rows: ExprId, cols: ExprId) -> Option<Count> {
        let f = self.f;
        let one = |e: ExprId| matches!(f.exprs[e].kind, ExprKind::Const(c) if c == 1.0);
        match (size_of(f, rows, 1), size_of(f, cols, 2)) {
            (Some(a), Some(b)) if a == b => Some(Count::Array(a)),
            _ if one(cols) && self.stable(rows) => Some(Count::Value(rows)),
            _ if one(rows) && self.stable(cols) => Some(Count::Value(cols)),
            _ => None,
        }
    }

    /// The counts of the two sides of `(L1 == R1) & (L2 == R2)` (extents, a size check).
    fn sides(&self, cond: ExprId) -> Option<(Count, Count)> {
        let f = self.f;
        let ExprKind::Binary(BinOp::And, first, second) = f.exprs[cond].kind else {
            return None;
        };
        let (ExprKind::Binary(BinOp::Eq, l1, r1), ExprKind::Binary(BinOp::Eq, l2, r2)) =
            (&f.exprs[first].kind, &f.exprs[second].kind)
        else {
            return None;
        };
        Some((self.count_of(*l1, *l2)?, self.count_of(*r1, *r2)?))
    }

    /// Whether `e` reads nothing the window writes.
    fn stable(&self, e: ExprId) -> bool {
        let mut fp = Footprint::default();
        fp.read(self.f, e);
        fp.reads.is_disjoint(&self.written)
    }

    /// Whether member `a` and member `b` run as many iterations: their counts are in one
    /// class, or in classes whose counts are fixed at the same number.
    fn same(&mut self, a: &Member, b: &Member) -> bool {
        let (Some(x), Some(y)) = (self.member_node(a), self.member_node(b)) else {
            return false;
        };
        let (rx, ry) = (self.find(x), self.find(y));
        rx == ry || matches!((self.fixed(rx), self.fixed(ry)), (Some(p), Some(q)) if p == q)
    }

    /// The node of member `m`'s count, if it is an array's or stable.
    fn member_node(&mut self, m: &Member) -> Option<usize> {
        let count = m.count();
        match count {
            Count::Value(e) if !self.stable(e) => None,
            _ => Some(self.node(count)),
        }
    }

    /// The count that a node in the class of `root` fixes: an array's whose type fixes its
    /// extents, or a constant.
    fn fixed(&self, root: usize) -> Option<u64> {
        let f = self.f;
        let fixed = |n: &Count| match *n {
            Count::Array(a) => match f.locals[a].ty.shape {
                Shape {
                    rows: Dim::Known(r),
                    cols: Dim::Known(c),
                    pages: Dim::Known(p),
                } => Some(r * c * p),
                _ => None,
            },
            Count::Value(e) => match f.exprs[e].kind {
                ExprKind::Const(c) if c >= 0.0 && c.fract() == 0.0 => Some(c as u64),
                _ => None,
            },
        };
        (0..self.nodes.len())
            .filter(|&n| self.find(n) == root)
            .find_map(|n| fixed(&self.nodes[n]))
    }

    /// The node of `count`, one node for equal arrays and equal expressions.
    fn node(&mut self, count: Count) -> usize {
        let f = self.f;
        let same = |n: &Count| match (*n, count) {
            (Count::Array(a), Count::Array(b)) => a == b,
            (Count::Value(a), Count::Value(b)) => same_expr(&f.exprs, a, b),
            _ => false,
        };
        if let Some(n) = self.nodes.iter().position(same) {
            return n;
        }
        self.nodes.push(count);
        self.parent.push(self.nodes.len() - 1);
        self.nodes.len() - 1
    }

    fn find(&self, mut n: usize) -> usize {
        while self.parent[n] != n {
            n = self.parent[n];
        }
        n
    }

    fn union(&mut self, a: Count, b: Count) {
        let (a, b) = (self.node(a), self.node(b));
        let (ra, rb) = (self.find(a), self.find(b));
        self.parent[ra] = rb;
    }
}

/// The position of the allocation of `a` in the window, if it is the only statement there that
/// changes `a`'s size and nothing before it touches `a`.
fn created_first(f: &Function, window: &Window, a: LocalId) -> Option<usize> {
    let resizes: Vec<usize> = (0..window.stmts.len())
        .filter(|&p| window.prints[p].writes.contains(&Res::Size(a)))
        .collect();
    let [p] = resizes.as_slice() else {
        return None;
    };
    let alloc =
        matches!(f.stmts[window.stmts[*p]].kind, StmtKind::Alloc { target, .. } if target == a);
    (alloc && window.prints[..*p].iter().all(|fp| !fp.touches(a))).then_some(*p)
}

impl Footprint {
    fn touches(&self, a: LocalId) -> bool {
        let mine = |r: &Res| matches!(r, Res::Data(x) | Res::Size(x) if *x == a);
        self.reads.iter().chain(&self.writes).any(mine)
    }
}

/// `P` and `Q` of `(size(P, 1) == size(Q, 1)) & (size(P, 2) == size(Q, 2))`.
fn same_sizes(f: &Function, cond: ExprId) -> Option<(LocalId, LocalId)> {
    let ExprKind::Binary(BinOp::And, first, second) = f.exprs[cond].kind else {
        return None;
    };
    let pair = equal_dims(f, first, 1)?;
    (equal_dims(f, second, 2)? == pair).then_some(pair)
}

/// `P` and `Q` of `size(P, dim) == size(Q, dim)`.
fn equal_dims(f: &Function, e: ExprId, dim: u8) -> Option<(LocalId, LocalId)> {
    match f.exprs[e].kind {
        ExprKind::Binary(BinOp::Eq, a, b) => Some((size_of(f, a, dim)?, size_of(f, b, dim)?)),
        _ => None,
    }
}

/// `P` and `Q` of `size(P, d) == size(Q, d)` for a `d` of 1 or 2.
fn same_dim(f: &Function, e: ExprId) -> Option<(LocalId, LocalId)> {
    equal_dims(f, e, 1).or_else(|| equal_dims(f, e, 2))
}

/// The statements of `stmts` and every statement nested in them.
fn nested(f: &Function, stmts: &[StmtId]) -> BTreeSet<StmtId> {
    let mut out = BTreeSet::new();
    f.walk_stmts(&Block(stmts.to_vec()), &mut |s| {
        out.insert(s);
    });
    out
}

/// Whether a statement of `f` outside `inside` mentions `local`, or the call reads it (an
/// input or output).
fn mentioned_outside(f: &Function, local: LocalId, inside: &BTreeSet<StmtId>) -> bool {
    if f.is_param(local) || f.read_at_end().any(|l| l == local) {
        return true;
    }
    let mut found = false;
    f.walk_stmts(&f.body, &mut |s| {
        if !found && !inside.contains(&s) {
            found = Footprint::of_own(f, s).touches(local);
        }
    });
    found
}

/// The allocation of map array `a` when it can be held in a scalar (see the module docs).
fn contractible(
    f: &Function,
    window: &Window,
    roles: &[Role],
    classes: &Classes,
    members: &[Member],
    inside: &BTreeSet<StmtId>,
    a: LocalId,
) -> Option<StmtId> {
    let ty = f.locals[a].ty;
    if ty.complex || ty.class == Class::Char || mentioned_outside(f, a, inside) {
        return None;
    }
    let at = created_first(f, window, a)?;
    let alloc = window.stmts[at];
    let StmtKind::Alloc {
        rows,
        cols,
        pages: None,
        ..
    } = f.stmts[alloc].kind
    else {
        return None;
    };
    let extent_ok = |e: ExprId| {
        classes.stable(e)
            || [1, 2].into_iter().any(|d| {
                size_of(f, e, d)
                    .and_then(|p| created_first(f, window, p))
                    .is_some_and(|q| q < at)
            })
    };
    if roles[at] != Role::Before || !extent_ok(rows) || !extent_ok(cols) {
        return None;
    }
    let readers_ok = members
        .iter()
        .all(|m| m.map == Some(a) || reads_only_at(f, &m.body, a, m.var));
    let others_ok = (0..window.stmts.len()).all(|p| {
        let fp = &window.prints[p];
        window.stmts[p] == alloc
            || roles[p] == Role::Member
            || !fp.touches(a)
            || (roles[p] == Role::Before && fp.only_size_of(a))
    });
    let mut dims_ok = true;
    for s in inside {
        for e in f.stmt_exprs(*s) {
            f.walk_expr(e, &mut |x| {
                if let ExprKind::Size(l, q) = f.exprs[x].kind {
                    dims_ok &= l != a || matches!(q, SizeQuery::Dim(1 | 2));
                }
            });
        }
    }
    (readers_ok && others_ok && dims_ok).then_some(alloc)
}

impl Footprint {
    /// Whether the statement touches `a` only by reading its size.
    fn only_size_of(&self, a: LocalId) -> bool {
        !self.reads.contains(&Res::Data(a))
            && !self.writes.contains(&Res::Data(a))
            && !self.writes.contains(&Res::Size(a))
    }
}

/// Rewrites the window as its plan says: the *before* statements, the fused loop, the *after*
/// statements.
fn apply(f: &mut Function, plan: Plan) -> Vec<StmtId> {
    let window: Vec<StmtId> = plan
        .before
        .iter()
        .chain(plan.members.iter().map(|m| &m.stmt))
        .chain(&plan.after)
        .copied()
        .collect();
    let inside = nested(f, &window);
    for &(a, alloc) in &plan.contracted {
        contract(f, &inside, a, alloc);
    }
    let first = &plan.members[0];
    let mut body = Vec::new();
    for m in &plan.members {
        rename(f, &nested(f, &m.body.0), m.var, first.var);
        body.extend(m.body.0.iter().copied());
    }
    if let StmtKind::For { body: b, .. } = &mut f.stmts[first.stmt].kind {
        *b = Block(body);
    }
    let allocs: Vec<StmtId> = plan.contracted.iter().map(|&(_, s)| s).collect();
    plan.before
        .into_iter()
        .filter(|&s| !allocs.contains(&s) && !compares_with_itself(f, s))
        .chain(std::iter::once(first.stmt))
        .chain(plan.after)
        .collect()
}

/// Whether `s` checks that an array's size equals its own, which its arrays being held in
/// scalars can leave (`size(dx) == size(x)` when `dx` was allocated with the size of `x`).
fn compares_with_itself(f: &Function, s: StmtId) -> bool {
    let StmtKind::Check { cond, error } = f.stmts[s].kind else {
        return false;
    };
    let pair = match error {
        RuntimeError::SizeMismatch => same_sizes(f, cond),
        RuntimeError::RunTimeExpansion => match f.exprs[cond].kind {
            ExprKind::Binary(BinOp::Or, first, _) => same_dim(f, first),
            _ => None,
        },
        _ => None,
    };
    pair.is_some_and(|(a, b)| a == b)
}

/// Holds map array `a`, allocated by `alloc`, in a scalar in the statements `inside`.
fn contract(f: &mut Function, inside: &BTreeSet<StmtId>, a: LocalId, alloc: StmtId) {
    let StmtKind::Alloc { rows, cols, .. } = f.stmts[alloc].kind else {
        unreachable!("a contracted array has its allocation");
    };
    let ty = f.locals[a].ty;
    f.locals[a].ty = Type::scalar(ty.class);
    for &s in inside {
        if let StmtKind::Store { array, value, .. } = f.stmts[s].kind {
            if array == a {
                f.stmts[s].kind = StmtKind::Assign { target: a, value };
            }
        }
        for e in f.stmt_exprs(s) {
            for x in subexprs(f, e) {
                let replacement = match f.exprs[x].kind {
                    ExprKind::Index(l, _) if l == a => Some(ExprKind::Local(a)),
                    ExprKind::Size(l, SizeQuery::Dim(d)) if l == a => {
                        let dim = if d == 1 { rows } else { cols };
                        let copy = copy_expr(&mut f.exprs, dim);
                        Some(f.exprs[copy].kind.clone())
                    }
                    _ => None,
                };
                if let Some(kind) = replacement {
                    let ty = if kind == ExprKind::Local(a) {
                        f.locals[a].ty
                    } else {
                        f.exprs[x].ty
                    };
                    f.exprs[x] = Expr {
                        kind,
                        ty,
                        span: f.exprs[x].span,
                    };
                }
            }
        }
    }
}

/// `e` and every expression inside it.
fn subexprs(f: &Function, e: ExprId) -> Vec<ExprId> {
    let mut out = Vec::new();
    f.walk_expr(e, &mut |x| out.push(x));
    out
}

/// Replaces every read of `from` in the statements `stmts` by a read of `to`.
fn rename(f: &mut Function, stmts: &BTreeSet<StmtId>, from: LocalId, to: LocalId) {
    if from == to {
        return;
    }
    for &s in stmts {
        for e in f.stmt_exprs(s) {
            for x in subexprs(f, e) {
                if f.exprs[x].kind == ExprKind::Local(from) {
                    f.exprs[x].kind = ExprKind::Local(to);
                }
            }
        }
    }
}
