//! Subscripts proven in range: `x(i)` in `for i = 1:numel(x)`, `A(i,j)` in `for j =
//! 1:size(A,2), for i = 1:size(A,1)`, `x(i+1)` in `for i = 1:numel(x)-1`, and the element loops
//! the lowering writes for vectorized statements (`c(_k)`, `a(_k)` after `c = zeros(size(a))`
//! and a check that `a` and `b` agree in size). The code generators leave their index check
//! out: the check could never fail.
//!
//! The proof compares symbolic extents. An extent is a [`Product`] of a constant and
//! [`Atom`]s: a parameter's run-time extent, a scalar parameter's value, or an extent of an
//! array the function allocates. Atoms that the program shows equal (an allocation's size
//! expressions, `check size(a,1) == size(b,1) & ...`, `n = numel(x)`) share a class.
//!
//! Invariants (what makes a proof sound):
//! - Only *stable* values take part: a parameter that nothing assigns whole or resizes, a
//!   local that exactly one statement assigns whole (`Assign`/`Alloc`, never `Resize`), and
//!   the arrays of a copy family (`v = u; ...; u = v`, one parameter among them, nothing else
//!   assigning them), which all keep the parameter's extents. An
//!   element store never changes a size (an index past the end is an error; growth is a
//!   `Resize`), so a stable array's extents are those of its one definition wherever it is
//!   defined.
//! - Facts flow forward only: a statement's facts hold for the statements after it in its
//!   block and inside them, never before it or after the block (a definition inside an `if`
//!   or a loop says nothing once the block is left, nor before it in the next iteration).
//! - A loop `for v = first:step:last` bounds `v` in its body only when the body never assigns
//!   `v`, `v` runs over integers, the step is a non-zero integer constant and the end that is
//!   not a constant is an extent (evaluated once, at the loop's start, of stable values).
//! - A subscript is proven for an `(array, position, subscript)` triple only when every
//!   occurrence of that triple is proven (an expression shared between a loop and its outside
//!   keeps its check).
//! - A subscript that is not a loop variable plus a constant is proven only into a constant
//!   extent, by bounds on its value: its class's (`uint8`: 0 to 255), a constant's, or sums of
//!   those (`h(double(b(i)) + 1)` into `h = zeros(1, 256)`).
//! - Three-dimensional arrays and three subscripts are never proven.

use std::collections::{BTreeSet, HashMap, HashSet};

use m2cu_frontend::ir::PrintTo;
use m2cu_frontend::ir::{
    BinOp, Block, ExprId, ExprKind, Function, LocalId, SizeQuery, StmtId, StmtKind,
};
use m2cu_frontend::types::{Class, Dim};

/// The subscripts that are always within their array's extent: `(array, position of the
/// subscript among the indices, subscript expression)`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InRange {
    proven: BTreeSet<(LocalId, usize, ExprId)>,
}

impl InRange {
    /// Proves what it can about every subscript of `f`.
    pub fn of(f: &Function) -> InRange {
        let mut prover = Prover {
            f,
            stable: stable_locals(f),
            proven: HashSet::new(),
            refuted: HashSet::new(),
        };
        prover.block(&f.body, &Facts::default());
        let Prover {
            proven, refuted, ..
        } = prover;
        InRange {
            proven: proven.difference(&refuted).copied().collect(),
        }
    }

    /// Whether subscript `index`, at `position` among the indices of an element of `array`,
    /// is always within the extent it indexes.
    pub fn contains(&self, array: LocalId, position: usize, index: ExprId) -> bool {
        self.proven.contains(&(array, position, index))
    }

    /// How many subscripts are proven.
    pub fn len(&self) -> usize {
        self.proven.len()
    }

    /// Whether none is.
    pub fn is_empty(&self) -> bool {
        self.proven.is_empty()
    }
}

/// An extent or scalar value the proof does not break down further.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Atom {
    /// The value of a scalar parameter nothing assigns.
    Scalar(LocalId),
    /// Extent `k` (0 rows, 1 columns) of a stable array.
    Extent(LocalId, usize),
}

/// `constant * factors...`, a non-negative integer.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Product {
    constant: i64,
    factors: Vec<Atom>,
}

impl Product {
    fn constant(c: i64) -> Product {
        Product {
            constant: c,
            factors: Vec::new(),
        }
    }

    fn atom(a: Atom) -> Product {
        Product {
            constant: 1,
            factors: vec![a],
        }
    }

    fn times(mut self, other: Product) -> Product {
        self.constant = self.constant.saturating_mul(other.constant);
        self.factors.extend(other.factors);
        self
    }

    /// The single atom, when the product is one.
    fn single(&self) -> Option<Atom> {
        match self.factors[..] {
            [a] if self.constant == 1 => Some(a),
            _ => None,
        }
    }
}

/// What is known at a point of the function.
#[derive(Clone, Debug, Default)]
struct Facts {
    /// Union-find over atoms that are equal.
    parent: HashMap<Atom, Atom>,
    /// An atom's class equals this product (a check like `size(b,1) == 1`).
    equal_to: HashMap<Atom, Product>,
    /// Defined stable scalars' values.
    scalars: HashMap<LocalId, Product>,
    /// Defined stable arrays' extents (rows, columns).
    arrays: HashMap<LocalId, [Product; 2]>,
    /// Loop variables' ranges in the loop bodies around this point: `lo <= v <= hi + offset`.
    loops: HashMap<LocalId, LoopRange>,
    /// Defined stable scalars that hold an integer within these bounds (`k = double(b(i)) + 1`
    /// with `b` uint8: 1 to 256).
    intervals: HashMap<LocalId, (i64, i64)>,
}

/// The values a loop variable takes.
#[derive(Clone, Debug)]
struct LoopRange {
    lo: i64,
    hi: Product,
    offset: i64,
}

impl Facts {
    fn find(&self, mut a: Atom) -> Atom {
        while let Some(&p) = self.parent.get(&a) {
            a = p;
        }
        a
    }

    /// Records `p == q`.
    fn equate(&mut self, p: Product, q: Product) {
        match (p.single(), q.single()) {
            (Some(a), Some(b)) => {
                let (a, b) = (self.find(a), self.find(b));
                if a != b {
                    self.parent.insert(a, b);
                }
            }
            (Some(a), None) | (None, Some(a)) => {
                let other = if p.single().is_some() { q } else { p };
                let a = self.find(a);
                self.equal_to.entry(a).or_insert(other);
            }
            (None, None) => {}
        }
    }

    /// `p` with every atom replaced by its class, and classes equal to a product expanded (a
    /// few levels deep; cycles stop there), factors sorted.
    fn normal(&self, p: &Product) -> Product {
        self.normal_at(p, 4)
    }

    fn normal_at(&self, p: &Product, depth: u32) -> Product {
        let mut out = Product::constant(p.constant);
        for &a in &p.factors {
            let a = self.find(a);
            match self.equal_to.get(&a) {
                Some(q) if depth > 0 => out = out.times(self.normal_at(q, depth - 1)),
                _ => out.factors.push(a),
            }
        }
        out.factors.sort();
        out
    }
}

struct Prover<'f> {
    f: &'f Function,
    /// Locals that take part in proofs (see the module doc).
    stable: HashSet<LocalId>,
    proven: HashSet<(LocalId, usize, ExprId)>,
    refuted: HashSet<(LocalId, usize, ExprId)>,
}

impl Prover<'_> {
    fn block(&mut self, block: &Block, outer: &Facts) {
        let mut facts = outer.clone();
        for &s in &block.0 {
            self.stmt(s, &facts);
            self.learn(s, &mut facts);
        }
    }

    /// Proves the subscripts of `s` and of the statements inside it.
    fn stmt(&mut self, s: StmtId, facts: &Facts) {
        let f = self.f;
        for e in f.stmt_exprs(s) {
            self.exprs(e, facts);
        }
        match &f.stmts[s].kind {
            StmtKind::Store { array, indices, .. } => self.access(*array, indices, facts),
            StmtKind::For {
                var,
                start,
                step,
                stop,
                body,
            } => {
                let mut inner = facts.clone();
                inner.loops.remove(var);
                if let Some(range) = self.loop_range(*var, *start, *step, *stop, body, facts) {
                    inner.loops.insert(*var, range);
                }
                self.block(body, &inner);
            }
            StmtKind::While { body, .. } => self.block(body, facts),
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => {
                self.block(then_body, facts);
                self.block(else_body, facts);
            }
            _ => {}
        }
    }

    fn exprs(&mut self, e: ExprId, facts: &Facts) {
        let f = self.f;
        f.walk_expr(e, &mut |x| {
            if let ExprKind::Index(array, indices) = &f.exprs[x].kind {
                self.access(*array, indices, facts);
            }
        });
    }

    /// Proves or refutes each subscript of an element of `array`.
    fn access(&mut self, array: LocalId, indices: &[ExprId], facts: &Facts) {
        let extents = self.extents(array, facts);
        for (position, &index) in indices.iter().enumerate() {
            let extent = match (&extents, indices.len()) {
                (Some([rows, cols]), 1) => Some(rows.clone().times(cols.clone())),
                (Some(both), 2) => Some(both[position].clone()),
                _ => None,
            };
            let key = (array, position, index);
            match extent.is_some_and(|x| self.within(index, &x, facts)) {
                true => self.proven.insert(key),
                false => self.refuted.insert(key),
            };
        }
    }

    /// Whether `index` is `v + d` for a loop variable `v` whose range keeps it in `1..=extent`,
    /// or an integer whose bounds lie in `1..=extent` for a constant extent.
    fn within(&self, index: ExprId, extent: &Product, facts: &Facts) -> bool {
        let looped = var_plus(self.f, index).and_then(|(var, d)| Some((facts.loops.get(&var)?, d)));
        let Some((range, d)) = looped else {
            let extent = facts.normal(extent);
            return extent.factors.is_empty()
                && self
                    .interval(index, facts)
                    .is_some_and(|(lo, hi)| lo >= 1 && hi <= extent.constant);
        };
        if range.lo.saturating_add(d) < 1 {
            return false;
        }
        let (hi, extent) = (facts.normal(&range.hi), facts.normal(extent));
        // An allocation clamps a negative extent to 0: a product of two scalars that may both be
        // negative (`zeros(n, m)`, `1:n*m`) is positive where the array is empty.
        let scalars = hi
            .factors
            .iter()
            .filter(|a| matches!(a, Atom::Scalar(_)))
            .count();
        if scalars > 1 {
            return false;
        }
        let top = range.offset.saturating_add(d);
        match (hi.factors.is_empty(), extent.factors.is_empty()) {
            (true, true) => hi.constant.saturating_add(top) <= extent.constant,
            _ => hi == extent && top <= 0,
        }
    }

    /// Bounds of `e` when it is always an integer within them: a constant, a value of an
    /// integer class (at most 32 bits) or logical, a stable scalar or loop variable with known
    /// bounds, and sums and differences of those in double.
    fn interval(&self, e: ExprId, facts: &Facts) -> Option<(i64, i64)> {
        let f = self.f;
        let class = f.class_of(e);
        if let Some(bounds) = class_bounds(class) {
            return Some(bounds);
        }
        if class != Class::Double {
            return None;
        }
        match &f.exprs[e].kind {
            ExprKind::Const(_) => integer(f, e).map(|c| (c, c)),
            ExprKind::Convert(a) => self.interval(*a, facts),
            ExprKind::Local(l) => match facts.loops.get(l) {
                Some(range) => {
                    let hi = facts.normal(&range.hi);
                    let top = hi.constant.checked_add(range.offset)?;
                    hi.factors.is_empty().then_some((range.lo, top))
                }
                None => facts.intervals.get(l).copied(),
            },
            ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
                let ((alo, ahi), (blo, bhi)) =
                    (self.interval(*a, facts)?, self.interval(*b, facts)?);
                match op {
                    BinOp::Add => Some((alo.checked_add(blo)?, ahi.checked_add(bhi)?)),
                    _ => Some((alo.checked_sub(bhi)?, ahi.checked_sub(blo)?)),
                }
            }
            _ => None,
        }
    }

    /// The range of `var` in the body of `for var = start:step:stop`, when it is known.
    fn loop_range(
        &self,
        var: LocalId,
        start: ExprId,
        step: Option<ExprId>,
        stop: ExprId,
        body: &Block,
        facts: &Facts,
    ) -> Option<LoopRange> {
        let f = self.f;
        if !f.locals[var].integral_in_loops() || f.tree().assigned(body).contains(&var) {
            return None;
        }
        let step = match step {
            None => 1,
            Some(s) => integer(f, s)?,
        };
        let (low, high) = match step {
            0 => return None,
            s if s > 0 => (start, stop),
            _ => (stop, start),
        };
        let (hi, offset) = self.term_plus(high, facts)?;
        Some(LoopRange {
            lo: integer(f, low)?,
            hi,
            offset,
        })
    }

    /// `e` as an extent plus an integer constant.
    fn term_plus(&self, e: ExprId, facts: &Facts) -> Option<(Product, i64)> {
        let f = self.f;
        match &f.exprs[e].kind {
            ExprKind::Binary(BinOp::Add, a, b) => {
                if let Some(c) = integer(f, *b) {
                    let (p, d) = self.term_plus(*a, facts)?;
                    return Some((p, d.checked_add(c)?));
                }
                let (p, d) = self.term_plus(*b, facts)?;
                Some((p, d.checked_add(integer(f, *a)?)?))
            }
            ExprKind::Binary(BinOp::Sub, a, b) => {
                let (p, d) = self.term_plus(*a, facts)?;
                Some((p, d.checked_sub(integer(f, *b)?)?))
            }
            _ => Some((self.term(e, facts)?, 0)),
        }
    }

    /// `e` as an extent: a non-negative integer constant, a size of a stable array, a stable
    /// scalar, or a product of them.
    fn term(&self, e: ExprId, facts: &Facts) -> Option<Product> {
        let f = self.f;
        match &f.exprs[e].kind {
            ExprKind::Const(_) => integer(f, e).filter(|c| *c >= 0).map(Product::constant),
            ExprKind::Local(l) if f.is_param(*l) && self.stable.contains(l) => f.locals[*l]
                .ty
                .is_scalar()
                .then(|| Product::atom(Atom::Scalar(*l))),
            ExprKind::Local(l) => facts.scalars.get(l).cloned(),
            ExprKind::Size(a, query) => {
                let [rows, cols] = self.extents(*a, facts)?;
                match query {
                    SizeQuery::Numel => Some(rows.times(cols)),
                    SizeQuery::Dim(1) => Some(rows),
                    SizeQuery::Dim(2) => Some(cols),
                    SizeQuery::Dim(_) => Some(Product::constant(1)),
                    SizeQuery::Length => match (rows.factors.is_empty(), rows.constant) {
                        (true, 1) => Some(cols),
                        _ if cols.factors.is_empty() && cols.constant == 1 => Some(rows),
                        _ => None,
                    },
                }
            }
            ExprKind::Binary(BinOp::Mul, a, b) => {
                Some(self.term(*a, facts)?.times(self.term(*b, facts)?))
            }
            _ => None,
        }
    }

    /// The extents of `array` here, when it is a stable 2-D array that is defined.
    fn extents(&self, array: LocalId, facts: &Facts) -> Option<[Product; 2]> {
        let f = self.f;
        let ty = f.locals[array].ty;
        if ty.shape.is_3d() || !self.stable.contains(&array) {
            return None;
        }
        if !f.is_param(array) {
            return facts.arrays.get(&array).cloned();
        }
        let extent = |k: usize, d: Dim| match d {
            Dim::Known(n) => Product::constant(n as i64),
            Dim::Var => Product::atom(Atom::Extent(array, k)),
        };
        Some([extent(0, ty.shape.rows), extent(1, ty.shape.cols)])
    }

    /// Adds what statement `s` establishes for the statements after it.
    fn learn(&self, s: StmtId, facts: &mut Facts) {
        let f = self.f;
        match &f.stmts[s].kind {
            StmtKind::Assign { target, value } if self.stable.contains(target) => {
                if f.locals[*target].ty.is_scalar() {
                    if let Some(p) = self.term(*value, facts) {
                        facts.scalars.insert(*target, p);
                    }
                    if let Some(bounds) = self.interval(*value, facts) {
                        facts.intervals.insert(*target, bounds);
                    }
                } else if let ExprKind::Local(source) = f.exprs[*value].kind {
                    let extents = self.extents(source, facts);
                    self.define(*target, extents, facts);
                }
            }
            StmtKind::Alloc {
                target,
                rows,
                cols,
                pages: None,
                ..
            } if self.stable.contains(target) => {
                let extents = [*rows, *cols].map(|e| self.term(e, facts));
                let extents = match extents {
                    [Some(r), Some(c)] => Some([r, c]),
                    [r, c] => Some([
                        r.unwrap_or(Product::atom(Atom::Extent(*target, 0))),
                        c.unwrap_or(Product::atom(Atom::Extent(*target, 1))),
                    ]),
                };
                self.define(*target, extents, facts);
            }
            StmtKind::Check { cond, .. } => self.learn_equalities(*cond, facts),
            _ => {}
        }
    }

    /// Records that stable array `target` now has `extents` (its own atoms when unknown).
    fn define(&self, target: LocalId, extents: Option<[Product; 2]>, facts: &mut Facts) {
        if self.f.locals[target].ty.shape.is_3d() {
            return;
        }
        let own = |k| Product::atom(Atom::Extent(target, k));
        facts
            .arrays
            .insert(target, extents.unwrap_or_else(|| [own(0), own(1)]));
    }

    /// The equalities of extents that hold once check `cond` passed: the `==` terms of its
    /// top-level conjunction.
    fn learn_equalities(&self, cond: ExprId, facts: &mut Facts) {
        match &self.f.exprs[cond].kind {
            ExprKind::Binary(BinOp::And | BinOp::AndAnd, a, b) => {
                self.learn_equalities(*a, facts);
                self.learn_equalities(*b, facts);
            }
            ExprKind::Binary(BinOp::Eq, a, b) => {
                if let (Some(p), Some(q)) = (self.term(*a, facts), self.term(*b, facts)) {
                    facts.equate(p, q);
                }
            }
            _ => {}
        }
    }
}

/// `v`, `v + c`, `v - c` or `c + v` in double, with `v` a local and `c` an integer constant:
/// `(v, c)`.
pub(crate) fn var_plus(f: &Function, e: ExprId) -> Option<(LocalId, i64)> {
    match &f.exprs[e].kind {
        _ if f.class_of(e) != Class::Double => None,
        ExprKind::Local(v) => Some((*v, 0)),
        ExprKind::Binary(BinOp::Add, a, b) => match (var_plus(f, *a), integer(f, *b)) {
            (Some((v, d)), Some(c)) => Some((v, d.checked_add(c)?)),
            _ => {
                let (v, d) = var_plus(f, *b)?;
                Some((v, d.checked_add(integer(f, *a)?)?))
            }
        },
        ExprKind::Binary(BinOp::Sub, a, b) => {
            let (v, d) = var_plus(f, *a)?;
            Some((v, d.checked_sub(integer(f, *b)?)?))
        }
        _ => None,
    }
}

/// The locals that take part in proofs: parameters nothing assigns whole or resizes, other
/// locals exactly one statement assigns whole and none resizes, and the members of a *copy
/// family* (see [`copy_families`]).
fn stable_locals(f: &Function) -> HashSet<LocalId> {
    let mut definitions: HashMap<LocalId, usize> = HashMap::new();
    f.walk_stmts(&f.body, &mut |s| {
        let defined = match &f.stmts[s].kind {
            StmtKind::Assign { target, .. } | StmtKind::Alloc { target, .. } => Some((*target, 1)),
            StmtKind::For { var, .. } => Some((*var, 2)),
            StmtKind::Resize { array, .. }
            | StmtKind::Print {
                to: PrintTo::Append { row: array },
                ..
            } => Some((*array, 2)),
            _ => None,
        };
        if let Some((local, n)) = defined {
            *definitions.entry(local).or_default() += n;
        }
    });
    let mut stable: HashSet<LocalId> = f
        .locals
        .iter()
        .map(|(id, _)| id)
        .filter(|id| {
            let n = definitions.get(id).copied().unwrap_or(0);
            match f.is_param(*id) {
                true => n == 0,
                false => n == 1,
            }
        })
        .collect();
    stable.extend(copy_families(f));
    stable
}

/// The members of copy families: arrays linked by whole copies (`v = u; ...; u = v`) that no
/// other statement assigns whole or resizes, with exactly one parameter among them. Every
/// member then always has that parameter's extents once it is defined (a time loop's two
/// grids), so each is stable: a member's facts come from its copies like any definition's.
fn copy_families(f: &Function) -> Vec<LocalId> {
    let mut family: HashMap<LocalId, LocalId> = HashMap::new();
    fn root(family: &HashMap<LocalId, LocalId>, mut a: LocalId) -> LocalId {
        while let Some(&p) = family.get(&a) {
            a = p;
        }
        a
    }
    let mut other_definition = HashSet::new();
    f.walk_stmts(&f.body, &mut |s| match &f.stmts[s].kind {
        StmtKind::Assign { target, value } if !f.locals[*target].ty.is_scalar() => {
            match f.exprs[*value].kind {
                ExprKind::Local(source) => {
                    let (a, b) = (root(&family, *target), root(&family, source));
                    if a != b {
                        family.insert(a, b);
                    }
                }
                _ => {
                    other_definition.insert(*target);
                }
            }
        }
        StmtKind::Alloc { target: a, .. }
        | StmtKind::Resize { array: a, .. }
        | StmtKind::Print {
            to: PrintTo::Append { row: a },
            ..
        } => {
            other_definition.insert(*a);
        }
        _ => {}
    });
    let members: HashSet<LocalId> = family.iter().flat_map(|(&a, &b)| [a, b]).collect();
    let mut roots: HashMap<LocalId, (usize, bool)> = HashMap::new();
    for &m in &members {
        let entry = roots.entry(root(&family, m)).or_insert((0, true));
        entry.0 += usize::from(f.is_param(m));
        entry.1 &= !other_definition.contains(&m) && !f.locals[m].ty.shape.is_3d();
    }
    members
        .into_iter()
        .filter(|&m| roots[&root(&family, m)] == (1, true))
        .collect()
}

/// The values of an integer class of at most 32 bits, or of logical.
fn class_bounds(class: Class) -> Option<(i64, i64)> {
    Some(match class {
        Class::Logical => (0, 1),
        Class::Uint8 => (0, u8::MAX.into()),
        Class::Int8 => (i8::MIN.into(), i8::MAX.into()),
        Class::Uint16 => (0, u16::MAX.into()),
        Class::Int16 => (i16::MIN.into(), i16::MAX.into()),
        Class::Uint32 => (0, u32::MAX.into()),
        Class::Int32 => (i32::MIN.into(), i32::MAX.into()),
        _ => return None,
    })
}

/// The value of `e` when it is an integer constant.
fn integer(f: &Function, e: ExprId) -> Option<i64> {
    match f.exprs[e].kind {
        ExprKind::Const(v) if v.fract() == 0.0 && v.abs() < 1e15 => Some(v as i64),
        ExprKind::Unary(m2cu_frontend::ir::UnOp::Neg, a) => integer(f, a)?.checked_neg(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::function;

    /// For each element of `array` that `body` reads or stores, in program order, whether all
    /// its subscripts are proven in range.
    fn proven(body: &str, array: &str) -> Vec<bool> {
        let f = function(body);
        let a = f.local_named(array).expect("the array");
        let in_range = InRange::of(&f);
        let all = |indices: &[ExprId]| {
            indices
                .iter()
                .enumerate()
                .all(|(k, &i)| in_range.contains(a, k, i))
        };
        let mut found = Vec::new();
        f.walk_stmts(&f.body, &mut |s| {
            if let StmtKind::Store { array, indices, .. } = &f.stmts[s].kind {
                if *array == a {
                    found.push(all(indices));
                }
            }
            for e in f.stmt_exprs(s) {
                f.walk_expr(e, &mut |x| {
                    if let ExprKind::Index(array, indices) = &f.exprs[x].kind {
                        if *array == a {
                            found.push(all(indices));
                        }
                    }
                });
            }
        });
        found
    }

    #[test]
    fn loops_over_the_extent_need_no_check() {
        assert_eq!(
            proven("y = 0; for i = 1:numel(x), y = y + x(i); end", "x"),
            [true]
        );
        assert_eq!(
            proven("y = 0; for i = 1:length(x), y = y + x(i); end", "x"),
            [true]
        );
        assert_eq!(
            proven("y = 0; m = numel(x); for i = 1:m, y = y + x(i); end", "x"),
            [true]
        );
        assert_eq!(
            proven(
                "y = 0; for i = 1:numel(x)-1, y = y + x(i+1) - x(i); end",
                "x"
            ),
            [true, true]
        );
        assert_eq!(
            proven("y = 0; for i = numel(x):-1:2, y = y + x(i-1); end", "x"),
            [true]
        );
        assert_eq!(
            proven("y = zeros(1, n); for i = 1:n, y(i) = i; end", "y"),
            [true]
        );
    }

    #[test]
    fn matrices_by_rows_and_columns() {
        let body = "A = zeros(n, 3); y = 0; for j = 1:size(A,2), for i = 1:size(A,1), A(i,j) = i; end, end; y = A(1,1);";
        assert_eq!(proven(body, "A"), [true, false]);
        let swapped = "A = zeros(n, 3); for j = 1:size(A,1), for i = 1:size(A,2), A(i,j) = i; end, end; y = 0;";
        assert_eq!(proven(swapped, "A"), [false]);
    }

    #[test]
    fn vectorized_operands_of_checked_equal_size() {
        // `x .* z` checks that the sizes agree before its element loop reads both.
        let body = "z = rand(1, n); y = x .* z + 1;";
        assert_eq!(proven(body, "z"), [true]);
        assert_eq!(proven(body, "x"), [true]);
    }

    #[test]
    fn bins_of_a_small_integer_class() {
        let histogram = |bins: &str, k: &str| {
            proven(
                &format!("b = uint8(x * 255); h = zeros(1, {bins}); for i = 1:numel(b), k = {k}; h(k) = h(k) + 1; end; y = h;"),
                "h",
            )
        };
        assert_eq!(histogram("256", "double(b(i)) + 1"), [true, true]);
        // Bin 0 is not an index; 255 bins are too few.
        assert_eq!(histogram("256", "double(b(i))"), [false, false]);
        assert_eq!(histogram("255", "double(b(i)) + 1"), [false, false]);
    }

    #[test]
    fn a_time_loop_s_two_grids_keep_their_extents() {
        let jacobi = "u = x; m = numel(u); for s = 1:n, v = u; for i = 2:m-1, v(i) = u(i-1) + u(i+1); end; u = v; end; y = u;";
        // x is copied into u, then u and v swap: all three keep x's extents (x is the one
        // parameter of the family).
        assert_eq!(proven(jacobi, "v"), [true]);
        assert_eq!(proven(jacobi, "u"), [true, true]);
        // A family that is also allocated keeps its checks.
        let resized = "u = x; for s = 1:n, v = u; for i = 2:numel(u)-1, v(i) = u(i-1); end; u = zeros(1, s); end; y = u;";
        assert_eq!(proven(resized, "u"), [false]);
    }

    #[test]
    fn what_may_fail_keeps_its_check() {
        // One past the end, or before the start.
        assert_eq!(
            proven("y = 0; for i = 1:numel(x)+1, y = y + x(i); end", "x"),
            [false]
        );
        assert_eq!(
            proven("y = 0; for i = 0:numel(x)-1, y = y + x(i); end", "x"),
            [false]
        );
        assert_eq!(
            proven("y = 0; for i = 1:numel(x), y = y + x(i+1); end", "x"),
            [false]
        );
        // Another array's extent, unrelated to x's.
        assert_eq!(
            proven(
                "z = rand(1, n); y = 0; for i = 1:numel(z), y = y + x(i); end",
                "x"
            ),
            [false]
        );
        // The array is grown, or reassigned, so its extent is not the one the loop saw.
        assert_eq!(
            proven(
                "y = 0; z = zeros(1, n); for i = 1:numel(z), z(end+1) = i; y = z(i); end",
                "z"
            ),
            [false, false]
        );
        // A size known only after the loop, or only on one branch.
        assert_eq!(
            proven(
                "y = 0; if n > 2, m = numel(x); end; for i = 1:m, y = x(i); end",
                "x"
            ),
            [false]
        );
        // Non-integer steps and starts.
        assert_eq!(
            proven("y = 0; for i = 1.5:numel(x), y = x(i); end", "x"),
            [false]
        );
        // Two negative scalars make a positive product, where zeros(n, m) is empty.
        let both = "m = 2 * n; z = zeros(n, m); y = 0; for i = 1:n*m, y = z(i); end";
        assert_eq!(proven(both, "z"), [false]);
        let one = "z = zeros(n, 3); y = 0; for i = 1:3*n, y = z(i); end";
        assert_eq!(proven(one, "z"), [true]);
    }
}
