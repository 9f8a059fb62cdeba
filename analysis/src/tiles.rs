//! Matrix products in a per-output kernel: the tiled variant.
//!
//! A 2-D per-output kernel whose inner loop is `acc = acc + g(X, Y)`, where `X` reads the
//! kernel's fastest level (the rows of a column-major result) and the inner variable, `Y` reads
//! the other level and the inner variable, and `g` combines them with operations and constants
//! only, is a matrix product however it was written: `A * B` lowered by m2cu, the triple loop
//! `s = s + A(i, k) * B(k, j)` a user writes, or a table of squared distances
//! `d = d + (P(i, k) - Q(j, k))^2`. Such a kernel gets a third variant, where a block computes a
//! square tile of outputs: its threads load a tile of `X` values (the tile's rows by a stretch
//! of the inner loop) and a tile of `Y` values into shared memory, and each thread adds its
//! output's terms from there. Each `X` and `Y` value is then read from global memory once per
//! tile instead of once per output.
//!
//! Each thread still adds its terms one by one in the inner loop's order, with the same
//! arithmetic, so the tiled variant's results equal the thread-per-output kernel's bit for bit.
//!
//! Invariants of a [`Tiles`]: the kernel has two levels and a [`PerOutput`] inner loop whose body
//! is the one update of its one real floating-point sum; the factors are real double or single
//! values; `row_factor` reads no level variable but the row level's, `col_factor` none but the
//! column level's, and each reads its own; the rest of the term reads nothing (no variable, no
//! element); neither factor reads a scalar that the kernel assigns (other than the inner
//! variable) nor an array that the kernel writes, and both are plain arithmetic on element
//! reads (nothing that can stop the run but an index check), so a thread may compute them for
//! another output's row or column.

use m2cu_frontend::ir::{BinOp, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind};
use m2cu_frontend::operator::Operator;
use m2cu_frontend::types::Class;

use crate::loops::loop_body;
use crate::per_output::PerOutput;
use crate::plan::Kernel;

/// The matrix product a per-output kernel computes, for its tiled variant.
#[derive(Clone, Debug, PartialEq)]
pub struct Tiles {
    /// The update `acc = acc + g(row_factor, col_factor)` (either operand order of the `+`).
    pub update: StmtId,
    pub acc: LocalId,
    /// The factor that varies with the row level and the inner variable.
    pub row_factor: ExprId,
    /// The factor that varies with the column level and the inner variable.
    pub col_factor: ExprId,
    /// Positions in `Kernel::levels` of the row level (the fastest, `Kernel::order[0]`) and
    /// of the column level.
    pub row_level: usize,
    pub col_level: usize,
}

/// The matrix product (in the wide sense above) of `kernel`, whose per-output inner loop is
/// `p`, if it is one.
pub fn find(f: &Function, kernel: &Kernel, p: &PerOutput) -> Option<Tiles> {
    if kernel.levels.len() != 2 {
        return None;
    }
    let [reduction] = &p.reductions[..] else {
        return None;
    };
    let class = f.locals[reduction.var].ty;
    let real_float = matches!(class.class, Class::Double | Class::Single) && !class.complex;
    if reduction.operator != Operator::Sum || !real_float {
        return None;
    }
    let [update] = loop_body(f, p.stmt).0[..] else {
        return None;
    };
    let StmtKind::Assign { target, value } = &f.stmts[update].kind else {
        return None;
    };
    let acc = *target;
    if acc != reduction.var {
        return None;
    }
    let term = added_to(f, *value, acc)?;
    let row_level = kernel.order[0];
    let col_level = 1 - row_level;
    let split = Split {
        f,
        kernel,
        inner: p.var,
        row: kernel.levels[row_level].var,
        col: kernel.levels[col_level].var,
    };
    let mut factors = Factors::default();
    split.term(term, &mut factors)?;
    Some(Tiles {
        update,
        acc,
        row_factor: factors.row?,
        col_factor: factors.col?,
        row_level,
        col_level,
    })
}

/// `term` when `value` is `acc + term` or `term + acc`.
fn added_to(f: &Function, value: ExprId, acc: LocalId) -> Option<ExprId> {
    let ExprKind::Binary(BinOp::Add, a, b) = &f.exprs[value].kind else {
        return None;
    };
    let is_acc = |e: ExprId| matches!(f.exprs[e].kind, ExprKind::Local(l) if l == acc);
    match (is_acc(*a), is_acc(*b)) {
        (true, false) => Some(*b),
        (false, true) => Some(*a),
        _ => None,
    }
}

/// The two factors of a term, once found.
#[derive(Default)]
struct Factors {
    row: Option<ExprId>,
    col: Option<ExprId>,
}

/// Splits the added term into the operations that combine the factors (reading no variable
/// and no element themselves) and the factors: the largest parts that read the row level and
/// not the column level, or the other way round.
struct Split<'f> {
    f: &'f Function,
    kernel: &'f Kernel,
    inner: LocalId,
    row: LocalId,
    col: LocalId,
}

impl Split<'_> {
    /// Records the factors of `e` in `factors`; `None` unless `e` combines exactly one row
    /// factor and one column factor with operations and constants.
    fn term(&self, e: ExprId, factors: &mut Factors) -> Option<()> {
        let f = self.f;
        let (row, col) = self.levels(e);
        let slot = match (row, col) {
            (true, false) => &mut factors.row,
            (false, true) => &mut factors.col,
            (true, true) => {
                return match &f.exprs[e].kind {
                    ExprKind::Unary(_, a) | ExprKind::Convert(a) => self.term(*a, factors),
                    ExprKind::Binary(_, a, b) => {
                        self.term(*a, factors)?;
                        self.term(*b, factors)
                    }
                    ExprKind::Call(_, args) => args.iter().try_for_each(|&a| self.term(a, factors)),
                    _ => None,
                };
            }
            (false, false) => return matches!(f.exprs[e].kind, ExprKind::Const(_)).then_some(()),
        };
        let ty = f.exprs[e].ty;
        let held = !ty.complex && matches!(ty.class, Class::Double | Class::Single);
        if slot.is_some() || !held || !plain_factor(f, self.kernel, self.inner, e) {
            return None;
        }
        *slot = Some(e);
        Some(())
    }

    /// Whether `e` reads the row variable and the column variable.
    fn levels(&self, e: ExprId) -> (bool, bool) {
        let (mut row, mut col) = (false, false);
        self.f.walk_expr(e, &mut |x| {
            if let ExprKind::Local(l) = self.f.exprs[x].kind {
                row |= l == self.row;
                col |= l == self.col;
            }
        });
        (row, col)
    }
}

/// Whether a thread may compute `e` for another output's row or column: plain arithmetic on
/// element reads of arrays the kernel does not write, and on scalars that are the kernel's
/// inputs, its levels' variables or the inner variable `inner`.
fn plain_factor(f: &Function, kernel: &Kernel, inner: LocalId, e: ExprId) -> bool {
    let known = |l: LocalId| {
        l == inner || kernel.inputs.contains(&l) || kernel.levels.iter().any(|v| v.var == l)
    };
    let mut plain = true;
    f.walk_expr(e, &mut |x| match &f.exprs[x].kind {
        ExprKind::Local(l) => plain &= known(*l),
        ExprKind::Index(array, _) => {
            plain &= kernel
                .arrays
                .iter()
                .any(|a| a.local == *array && !a.written);
        }
        ExprKind::Const(_)
        | ExprKind::Unary(..)
        | ExprKind::Binary(..)
        | ExprKind::Convert(_)
        | ExprKind::Size(..) => {}
        ExprKind::Call(..) | ExprKind::RangeCount(..) | ExprKind::Combine(..) => plain = false,
    });
    plain
}

#[cfg(test)]
mod tests {
    use crate::analyze;
    use crate::test_util::function;

    fn tiles_of(body: &str) -> Vec<bool> {
        let f = function(body);
        let a = analyze(&f);
        a.plan
            .kernels
            .iter()
            .map(|k| k.per_output.as_ref().is_some_and(|p| p.tiles.is_some()))
            .collect()
    }

    #[test]
    fn a_matrix_product_is_tiled_however_it_is_written() {
        // The transpose's copy, the outer product (an inner extent of 1) and `A * A`.
        assert_eq!(tiles_of("A = x' * x;\ny = A * A;"), [false, true, true]);
        let triple = "A = rand(n); B = rand(n); C = zeros(n);
for j = 1:n
  for i = 1:n
    s = 0;
    for k = 1:n
      s = s + A(i, k) * B(k, j);
    end
    C(i, j) = s;
  end
end
y = C(:)';";
        assert!(tiles_of(triple).contains(&true));
        let swapped = triple.replace("A(i, k) * B(k, j)", "B(k, j) * A(i, k)");
        assert!(tiles_of(&swapped).contains(&true));
    }

    #[test]
    fn a_table_of_distances_is_tiled() {
        let distances = "P = rand(n, 3); Q = rand(n + 1, 3); D = zeros(n, n + 1);
for j = 1:n + 1
  for i = 1:n
    d = 0;
    for k = 1:3
      d = d + (P(i, k) - Q(j, k))^2;
    end
    D(i, j) = sqrt(d);
  end
end
y = D(:)';";
        assert!(tiles_of(distances).contains(&true));
        let weighted = distances.replace("(P(i, k) - Q(j, k))^2", "x(k) * (P(i, k) - Q(j, k))^2");
        assert!(
            !tiles_of(&weighted).contains(&true),
            "x(k) is a third factor"
        );
    }

    #[test]
    fn a_factor_of_both_outputs_or_of_a_private_is_not_tiled() {
        let both = "A = rand(n); C = zeros(n);
for j = 1:n
  for i = 1:n
    s = 0;
    for k = 1:n
      s = s + A(i, k) * A(j, k) * A(i, j);
    end
    C(i, j) = s;
  end
end
y = C(:)';";
        assert!(!tiles_of(both).contains(&true));
        let private = "A = rand(n); C = zeros(n);
for j = 1:n
  for i = 1:n
    s = 0;
    c = 2 * i;
    for k = 1:n
      s = s + A(i, k) * c;
    end
    C(i, j) = s;
  end
end
y = C(:)';";
        assert!(!tiles_of(private).contains(&true));
    }
}
