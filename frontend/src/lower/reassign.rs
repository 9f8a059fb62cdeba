//! Re-assignments that change a variable's shape or class (MATLAB's variable-size data).
//!
//! A local has one type (`crate::ir`); MATLAB lets a later assignment change it. Two cases are
//! made exact here, the rest are diagnostics:
//!
//! - **Scalar ↔ array, or another class** (a DP table reduced to its corner,
//!   `d = d(m+1, n+1)`; a scalar that becomes a vector; an image made logical, `BW = BW ~= 0`;
//!   a `for` variable that reuses a name of another type): the assignment
//!   starts a new local of the same MATLAB name, and later reads resolve to it. This is exact
//!   when the old local was created in the same block (frame) as the re-assignment, or when the
//!   re-assignment is at the function's top level and the block that created the old local
//!   has ended ([`Lowerer::rebinds_here`]): a read lowered before it saw the old value in MATLAB too, and a read
//!   after it cannot be reached without passing it (a loop re-entering that block assigns the
//!   old local again first; a read before its first assignment there is already undefined).
//!   Otherwise (inside a loop or branch that does not also create the variable) it is E0132,
//!   except for a scalar assigned to an array whose type admits 1-by-1: the scalar is stored
//!   as the array's one element ([`Lowerer::array_taking_scalar`]), as MATLAB holds it; and
//!   for a vector value that may hold one element assigned to a scalar: the scalar takes that
//!   element, checked when the program runs ([`Lowerer::scalar_taking_array`]).
//! - **Accumulating integer or single values into a double constant** (`s = 0; for ...,
//!   s = s + x(i)` with `x` uint8): MATLAB's `s` takes the integer class at the first update.
//!   The local is given that class from the start (its constant start converts exactly) when
//!   (a) the start is its only assignment so far, (b) every read so far gives the same class
//!   and value either way (an operand of `+ - * /`, `min`/`max` with the new class, or of a
//!   comparison), and (c) the update runs before anything else can observe the class: it
//!   lies in `for` bodies nested straight inside the start's block, with no `break`,
//!   `continue` or `return` before it (nor a `return` after the start). A loop that may run
//!   zero times would leave MATLAB's `s` double: the program stops before such a loop when it
//!   does (`RuntimeError::AccumulatorClass`). When (a) and (b) hold but (c) does not (the
//!   update is in an `if`, a `while`, or after a possible `break`), the local is retyped the
//!   same way and recorded as a [`ClassPending`]: the `undefined` pass treats the start as
//!   leaving it unassigned (in the accumulated class), so every later read that the update
//!   may not have reached, and a return of it as an output, stops with the same error when
//!   the update has not run since the start (MATLAB's `s` is the double start there).
//!
//! Frames: every block being filled has a [`Frame`] (an id, and the range of the `for` loop
//! whose body it is); every local records the frame that created it.

use super::*;
use crate::ir::RuntimeError;

/// The range `start, step, stop` of a `for` loop.
pub(super) type LoopRange = (ExprId, Option<ExprId>, ExprId);

/// A double constant start retyped to the class of an update that may not run before the
/// variable is read (see the module docs).
pub(super) struct ClassPending {
    pub(super) local: LocalId,
    /// The start's assignment: after it the variable holds MATLAB's double, not its class.
    pub(super) start: StmtId,
    /// The reads lowered before the retype: class-neutral, so exact without a check.
    pub(super) exempt: HashSet<ExprId>,
}

/// A block being filled.
pub(super) struct Frame {
    id: u32,
    /// The loop range when the block is a `for` body.
    range: Option<LoopRange>,
}

impl Lowerer<'_> {
    /// Starts the frame of a new block; a `for` body takes the range [`Self::loop_range`] holds.
    pub(super) fn enter_frame(&mut self) {
        self.frame_count += 1;
        let range = self.loop_range.take();
        self.frames.push(Frame {
            id: self.frame_count,
            range,
        });
    }

    /// Records that `local` was created in the current frame.
    pub(super) fn record_home(&mut self, local: LocalId) {
        let frame = self.frames.last().map_or(0, |f| f.id);
        self.homes.insert(local, frame);
    }

    /// The index in `frames` of the frame that created `local`; parameters of the entry
    /// (created before any block) belong to the function's body.
    fn home_index(&self, local: LocalId) -> Option<usize> {
        match self.homes.get(&local).copied() {
            Some(0) | None => (!self.frames.is_empty()).then_some(0),
            Some(id) => self.frames.iter().position(|f| f.id == id),
        }
    }

    /// `name` (the local `id`) is assigned a value of type `ty` whose class or scalar-ness
    /// differs from the local's: the local to assign, or `None` after a diagnostic.
    pub(super) fn changed_type(
        &mut self,
        name: &ast::Ident,
        id: LocalId,
        ty: Type,
    ) -> Option<LocalId> {
        let old = self.locals[id].ty;
        if old.class == ty.class {
            return self.reshaped(name, id, ty);
        }
        if self.accumulates_into(id, ty, name.span) {
            return Some(id);
        }
        if self.rebinds_here(id) {
            return Some(self.new_local(&name.name, ty, name.span));
        }
        let help = if self.is_accumulator_start(id, ty) {
            format!(
                "MATLAB gives `{0}` the class {1} from here on, and m2cu keeps one class per variable: when this runs at least once before `{0}` is used otherwise, start with `{0} = {1}(0)` (or `zeros('like', v)` for a {1} `v`), which keeps MATLAB's result; otherwise give the {1} values a variable of their own",
                name.name, ty.class
            )
        } else {
            format!(
                "m2cu changes a variable's class only in straight-line code at the level where it was first assigned: give the {} value a variable of its own",
                ty.class
            )
        };
        self.error(
            "E0104",
            name.span,
            format!(
                "`{}` was {old} but is assigned a {ty} value here",
                name.name
            ),
            help,
        );
        None
    }

    /// The array local that `name = <scalar of type ty>` keeps as a 1-by-1 array, where the
    /// scalar would otherwise change the variable's kind inside a loop or branch (E0132): a
    /// scalar is MATLAB's 1-by-1 array, so this is exact when the array's type admits one
    /// row, one column and one page and the class and complexity are the same
    /// (`j = find(x <= t, 1, 'last'); if j == n, j = n - 1; end`).
    pub(super) fn array_taking_scalar(&self, name: &ast::Ident, ty: Type) -> Option<LocalId> {
        let id = self.reassigned_in_branch(name)?;
        let old = self.locals[id].ty;
        let fits = old.shape.admits_one_element() && !old.shape.is_3d();
        let same_kind = old.class == ty.class && old.complex == ty.complex;
        (ty.is_scalar() && !old.is_scalar() && fits && same_kind).then_some(id)
    }

    /// The scalar local that `name = a` keeps a scalar, where the array value `a` would
    /// otherwise change the variable's kind inside a loop or branch (E0132): when `a`'s type is
    /// a vector that admits one element and has the scalar's class and complexity, the
    /// variable takes `a`'s one element, after a check that it holds exactly one when the program runs
    /// (`RuntimeError::ScalarKept` otherwise: MATLAB would make the variable an array). So
    /// `k = find(x > t, 1); if ~isempty(k), first = k; end` keeps MATLAB's result.
    pub(super) fn scalar_taking_array(
        &self,
        name: &ast::Ident,
        a: &super::array::ArrayVal,
    ) -> Option<LocalId> {
        let id = self.reassigned_in_branch(name)?;
        let old = self.locals[id].ty;
        // A vector (one extent known to be 1) that may hold one element, such as
        // `find(x, 1)`'s; a matrix type keeps E0132, whose help is the better answer there.
        let one = a.shape.admits_one_element() && a.shape.is_vector();
        let same_kind = old.class == a.class && old.complex == self.element_type(a).complex;
        (old.is_scalar() && one && same_kind).then_some(id)
    }

    /// The local `name` is, when this assignment to it lies in a loop or branch other than the
    /// frame that created it (where a new local of another kind would be E0132) and it is not a
    /// `for` variable.
    fn reassigned_in_branch(&self, name: &ast::Ident) -> Option<LocalId> {
        let id = self.scope.names.get(&name.name).copied()?;
        let plain = !self.scope.loop_vars.contains(&id);
        (!self.rebinds_here(id) && plain).then_some(id)
    }

    /// Whether a new local may take the name of `id` here, so that later reads see it and
    /// earlier ones the old value: the assignment is in the frame that created `id`, or at the
    /// function's top level after the block that created `id` (a loop body, a branch) has
    /// ended. Either way a read lowered before it saw the old value in MATLAB too, and a read
    /// lowered after it cannot be reached without passing it (a loop re-entering the frame
    /// assigns the old local again first; nothing re-enters the top level).
    pub(super) fn rebinds_here(&self, id: LocalId) -> bool {
        let here = self.frames.len().checked_sub(1);
        let home = self.home_index(id);
        here.is_some() && (home == here || (here == Some(0) && home.is_none()))
    }

    /// A scalar that becomes an array or the reverse: a new local where [`Self::rebinds_here`].
    fn reshaped(&mut self, name: &ast::Ident, id: LocalId, ty: Type) -> Option<LocalId> {
        if self.rebinds_here(id) {
            return Some(self.new_local(&name.name, ty, name.span));
        }
        let old = self.locals[id].ty;
        let (was, now) = match old.is_scalar() {
            true => ("a scalar", "an array"),
            false => ("an array", "a scalar"),
        };
        self.error(
            "E0132",
            name.span,
            format!(
                "`{}` was {was} ({old}) and becomes {now} ({ty}) inside a loop or branch",
                name.name
            ),
            format!(
                "m2cu changes a variable between scalar and array only in straight-line code at the level where it was first assigned; assign {now} value to a new variable here and use that name afterwards"
            ),
        );
        None
    }

    /// Whether `id` is a double scalar whose value so far is one constant, and `ty` a scalar of
    /// a class that wins over double in arithmetic.
    fn is_accumulator_start(&self, id: LocalId, ty: Type) -> bool {
        let old = self.locals[id].ty;
        old.class == Class::Double
            && old.is_scalar()
            && ty.is_scalar()
            && (ty.class.is_integer() || ty.class == Class::Single)
            && !self.params.contains(&id)
            && self.assignments(id).len() == 1
    }

    /// The accumulator case of the module docs: retypes `id` to `ty`'s class and emits the
    /// zero-trip checks; `false` (nothing changed) when it does not apply.
    fn accumulates_into(&mut self, id: LocalId, ty: Type, span: Span) -> bool {
        if !self.is_accumulator_start(id, ty) {
            return false;
        }
        let class = ty.class;
        let [start] = self.assignments(id)[..] else {
            return false;
        };
        let StmtKind::Assign { value, .. } = self.stmts[start].kind else {
            return false;
        };
        let exact = self
            .const_of(value)
            .is_some_and(|v| converts_exactly(v, class));
        let reads = self.reads_of(id);
        if !exact || !reads.iter().all(|&r| self.class_neutral(r, class)) {
            return false;
        }
        match self.loops_to_update(id, start) {
            Some(loops) => {
                for (frame, range) in loops {
                    self.check_runs(frame, range, span);
                }
            }
            None => self.class_pending.push(ClassPending {
                local: id,
                start,
                exempt: reads.iter().copied().collect(),
            }),
        }
        self.locals[id].ty.class = class;
        for e in reads.into_iter().chain([value]) {
            self.exprs[e].ty.class = class;
        }
        true
    }

    /// The `Assign` statements to `local` lowered so far.
    fn assignments(&self, local: LocalId) -> Vec<StmtId> {
        self.stmts
            .iter()
            .filter(|(_, s)| matches!(s.kind, StmtKind::Assign { target, .. } if target == local))
            .map(|(id, _)| id)
            .collect()
    }

    /// The expressions that read `local` lowered so far.
    fn reads_of(&self, local: LocalId) -> Vec<ExprId> {
        self.exprs
            .iter()
            .filter(|(_, e)| matches!(e.kind, ExprKind::Local(l) if l == local))
            .map(|(id, _)| id)
            .collect()
    }

    /// Whether the read `e` of a double constant gives the same class and value as a read of
    /// the constant in `class`: an operand of a comparison, or of `+ - * /` or `min`/`max`
    /// whose result and other operand have `class`.
    fn class_neutral(&self, e: ExprId, class: Class) -> bool {
        let parent = self.exprs.iter().find(|(_, p)| match &p.kind {
            ExprKind::Binary(_, a, b) => *a == e || *b == e,
            ExprKind::Call(_, args) => args.contains(&e),
            _ => false,
        });
        let Some((_, parent)) = parent else {
            return false;
        };
        let other_has_class = |a: ExprId, b: ExprId| {
            let other = if a == e { b } else { a };
            self.exprs[other].ty.class == class && parent.ty.class == class
        };
        match &parent.kind {
            ExprKind::Binary(op, _, _) if op.is_comparison() => true,
            ExprKind::Binary(BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div, a, b) => {
                other_has_class(*a, *b)
            }
            ExprKind::Call(Builtin::Min | Builtin::Max, args) => {
                matches!(args[..], [a, b] if other_has_class(a, b))
            }
            _ => false,
        }
    }

    /// The `for` bodies between the frame of `local` (whose start is the statement `start`)
    /// and the current one, with their ranges: `None` unless every one is a `for` body and
    /// nothing can leave early before the update (see the module docs).
    fn loops_to_update(&self, local: LocalId, start: StmtId) -> Option<Vec<(usize, LoopRange)>> {
        let home = self.home_index(local)?;
        let after_start = self.emitted[home].iter().skip_while(|&&s| s != start);
        if self.emitted[home].iter().all(|&s| s != start) || self.any_exit(after_start, false) {
            return None;
        }
        let mut loops = Vec::new();
        for frame in home + 1..self.frames.len() {
            let range = self.frames[frame].range?;
            if self.any_exit(self.emitted[frame].iter(), true) {
                return None;
            }
            loops.push((frame, range));
        }
        Some(loops)
    }

    /// Whether any of `stmts` (or a statement nested in them) is a `return`, or with
    /// `loop_exits` a `break` or `continue`.
    fn any_exit<'s>(&self, stmts: impl Iterator<Item = &'s StmtId>, loop_exits: bool) -> bool {
        let mut found = false;
        for &s in stmts {
            self.walk_lowered(s, &mut |kind| {
                found |= matches!(kind, StmtKind::Return)
                    || (loop_exits && matches!(kind, StmtKind::Break | StmtKind::Continue));
            });
        }
        found
    }

    fn walk_lowered(&self, s: StmtId, f: &mut impl FnMut(&StmtKind)) {
        let kind = &self.stmts[s].kind;
        f(kind);
        let blocks: Vec<&Block> = match kind {
            StmtKind::For { body, .. } | StmtKind::While { body, .. } => vec![body],
            StmtKind::If {
                then_body,
                else_body,
                ..
            } => vec![then_body, else_body],
            _ => vec![],
        };
        for block in blocks {
            for &inner in &block.0 {
                self.walk_lowered(inner, f);
            }
        }
    }

    /// Before the `for` loop whose body is `frame`: stop unless it runs at least once. The
    /// loop's statement comes right after the check, so a check ending the enclosing block
    /// already guards this loop (for another accumulator).
    fn check_runs(&mut self, frame: usize, (start, step, stop): LoopRange, span: Span) {
        let checked = self.emitted[frame - 1].last().is_some_and(|&s| {
            matches!(
                self.stmts[s].kind,
                StmtKind::Check {
                    error: RuntimeError::AccumulatorClass,
                    ..
                }
            )
        });
        if checked
            || self
                .constant_count(start, step, stop)
                .is_some_and(|n| n > 0.0)
        {
            return;
        }
        let cond = self.compare_count((start, step, stop), BinOp::Gt, span);
        let check = self.stmts.alloc(Stmt {
            kind: StmtKind::Check {
                cond,
                error: RuntimeError::AccumulatorClass,
            },
            span,
        });
        self.emitted[frame - 1].push(check);
    }
}

/// Whether the double `v` is a value of `class` (so converting it changes nothing).
fn converts_exactly(v: f64, class: Class) -> bool {
    match class.int_range() {
        Some((lo, hi)) => v.fract() == 0.0 && (lo..=hi).contains(&v),
        None => f64::from(v as f32) == v,
    }
}
