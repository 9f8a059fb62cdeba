//! Matrix products in a per-output kernel: the tiled variant.
//!
//! A 2-D per-output kernel whose inner loop is `acc = acc + X * Y`, where `X` reads the kernel's
//! fastest level (the rows of a column-major result) and the inner variable and `Y` reads the
//! other level and the inner variable, is a matrix product however it was written: `A * B`
//! lowered by m2cu, or the triple loop a user writes. Such a kernel gets a third variant, where
//! a block computes a square tile of outputs: its threads load a tile of `X` values (the tile's
//! rows by a stretch of the inner loop) and a tile of `Y` values into shared memory, and each
//! thread adds its output's products from there. Each `X` and `Y` value is then read from
//! global memory once per tile instead of once per output.
//!
//! Each thread still adds its products one by one in the inner loop's order, so the tiled
//! variant's results equal the thread-per-output kernel's bit for bit.
//!
//! Invariants of a [`Tiles`]: the kernel has two levels and a [`PerOutput`] inner loop whose body
//! is the one update of its one real floating-point sum, whose factors are real double or
//! single values; `row_factor` reads no level variable
//! but the row level's, `col_factor` none but the column level's; neither reads a scalar that
//! the kernel assigns (other than the inner variable) nor an array that the kernel writes, and
//! both are plain arithmetic on element reads (nothing that can stop the run but an index
//! check), so a thread may compute them for another output's row or column.

use m2cu_frontend::ir::{BinOp, ExprId, ExprKind, Function, LocalId, StmtId, StmtKind};
use m2cu_frontend::operator::Operator;
use m2cu_frontend::types::Class;

use crate::loops::loop_body;
use crate::per_output::PerOutput;
use crate::plan::Kernel;

/// The matrix product a per-output kernel computes, for its tiled variant.
#[derive(Clone, Debug, PartialEq)]
pub struct Tiles {
    /// The update `acc = acc + row_factor * col_factor` (either operand order).
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

/// The matrix product of `kernel`, whose per-output inner loop is `p`, if it is one.
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
    let (x, y) = product_added_to(f, *value, acc)?;
    let row_level = kernel.order[0];
    let col_level = 1 - row_level;
    let row_var = kernel.levels[row_level].var;
    let col_var = kernel.levels[col_level].var;
    let reads = |e| FactorReads::of(f, kernel, p.var, e);
    let (rx, ry) = (reads(x)?, reads(y)?);
    let (row_factor, col_factor) = match (rx.levels(row_var, col_var), ry.levels(row_var, col_var))
    {
        ((true, false) | (false, false), (false, true) | (false, false)) => (x, y),
        ((false, true), (true, false) | (false, false)) | ((false, false), (true, false)) => (y, x),
        _ => return None,
    };
    Some(Tiles {
        update,
        acc,
        row_factor,
        col_factor,
        row_level,
        col_level,
    })
}

/// `(x, y)` when `value` is `acc + x * y` or `x * y + acc`, products of real double or single
/// values (which the tiled variant holds in shared memory in their own C type).
fn product_added_to(f: &Function, value: ExprId, acc: LocalId) -> Option<(ExprId, ExprId)> {
    let ExprKind::Binary(BinOp::Add, a, b) = &f.exprs[value].kind else {
        return None;
    };
    let is_acc = |e: ExprId| matches!(f.exprs[e].kind, ExprKind::Local(l) if l == acc);
    let product = match (is_acc(*a), is_acc(*b)) {
        (true, false) => *b,
        (false, true) => *a,
        _ => return None,
    };
    let ExprKind::Binary(BinOp::Mul, x, y) = &f.exprs[product].kind else {
        return None;
    };
    let real = |e: ExprId| {
        let ty = f.exprs[e].ty;
        !ty.complex && matches!(ty.class, Class::Double | Class::Single)
    };
    (real(*x) && real(*y)).then_some((*x, *y))
}

/// The loop variables a factor reads, when it is one a thread may compute for another output.
struct FactorReads {
    locals: Vec<LocalId>,
}

impl FactorReads {
    /// The scalars `e` reads, if it is plain arithmetic on element reads of arrays the kernel
    /// does not write, and on scalars that are the kernel's inputs, its levels' variables or
    /// the inner variable `inner`.
    fn of(f: &Function, kernel: &Kernel, inner: LocalId, e: ExprId) -> Option<FactorReads> {
        let mut locals = Vec::new();
        let mut plain = true;
        f.walk_expr(e, &mut |x| match &f.exprs[x].kind {
            ExprKind::Local(l) => locals.push(*l),
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
        let known = |l: &LocalId| {
            *l == inner || kernel.inputs.contains(l) || kernel.levels.iter().any(|v| v.var == *l)
        };
        (plain && locals.iter().all(known)).then_some(FactorReads { locals })
    }

    /// Whether the factor reads the row variable and the column variable.
    fn levels(&self, row: LocalId, col: LocalId) -> (bool, bool) {
        (self.locals.contains(&row), self.locals.contains(&col))
    }
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
