//! The text options after a reduction's arguments (`sum(A, 'all')`, `mean(A, 2, 'omitnan')`,
//! `sum(x, 'double')`), parsed into [`Flags`], and the reductions they ask for.
//!
//! - `'all'` reduces every element, as `f(A(:))` (`Lowerer::all_elements_reduction`);
//! - `'omitnan'` leaves NaN out of `sum`, `prod` and `mean` through m2cu's own
//!   `m2cu_omitnan.m`; `max`/`min` skip NaN anyway;
//! - `'includenan'` is what `sum prod mean any all` do anyway;
//! - `'double'` sums or multiplies in double (`sum(double(x))`), `'default'` is no option;
//! - any other option is E0167 when MATLAB has it, with the way to write it, else E0105.
//!
//! Invariant: options are only the trailing char literals after at least one argument; what is
//! left is split into the operand and the dimension as before.

use super::array::Val;
use super::handles::Arg;
use super::reduce::{Dimension, Reduction};
use super::text::text_literal;
use super::*;

/// What a reduction's text options ask for.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Flags {
    /// `'all'`: every element.
    pub all: bool,
    /// `'omitnan'` of `sum`, `prod` or `mean`.
    pub omit_nan: bool,
    /// `'double'`: reduce the operand converted to double.
    pub in_double: bool,
}

impl Lowerer<'_> {
    /// Splits the trailing options off `args` and parses them; `None` after an error.
    pub(super) fn reduction_flags<'e>(
        &mut self,
        kind: Reduction,
        args: &'e [ast::Expr],
    ) -> Option<(&'e [ast::Expr], Flags)> {
        let mut flags = Flags::default();
        let mut rest = args;
        while let Some((flag, before)) = rest.split_last() {
            if before.is_empty() || text_literal(flag).is_none() {
                break;
            }
            self.reduction_flag(kind, flag, &mut flags)?;
            rest = before;
        }
        Some((rest, flags))
    }

    /// One option `flag` of `kind`, recorded in `flags`.
    fn reduction_flag(
        &mut self,
        kind: Reduction,
        flag: &ast::Expr,
        flags: &mut Flags,
    ) -> Option<()> {
        let text = text_literal(flag)?.to_ascii_lowercase();
        let minmax = matches!(kind, Reduction::Max | Reduction::Min);
        let sums = matches!(kind, Reduction::Sum | Reduction::Prod | Reduction::Mean);
        let f = kind.name();
        let help = match text.as_str() {
            "all" => {
                flags.all = true;
                return Some(());
            }
            "default" => return Some(()),
            "includenan" if !minmax => return Some(()),
            "omitnan" if minmax => return Some(()),
            "omitnan" if sums => {
                flags.omit_nan = true;
                return Some(());
            }
            "double" if matches!(kind, Reduction::Sum | Reduction::Prod) => {
                flags.in_double = true;
                return Some(());
            }
            "omitnan" => format!("`{f}` has no NaN to leave out: test `isnan` where it matters"),
            "includenan" => format!(
                "`{f}` skips NaN as MATLAB's default does; `any(isnan(x))` tells where the result would be NaN"
            ),
            "native" => format!(
                "write `{f}(x, 'double')` for the double result: a 'native' integer {f} saturates step by step in the class, which a parallel {f} cannot reproduce"
            ),
            "double" => format!("convert first: `{f}(double(x))`"),
            _ => {
                self.error(
                    "E0105",
                    flag.span,
                    format!("unknown option '{text}' of `{f}`"),
                    "MATLAB's options here are 'omitnan', 'includenan', 'all', 'double', 'native' and 'default'".into(),
                );
                return None;
            }
        };
        self.error(
            "E0167",
            flag.span,
            format!("`{f}` with '{text}' is not supported by m2cu yet"),
            help,
        );
        None
    }

    /// `f(x, 'all')`: every element of `x` reduced, as `f(x(:))`.
    pub(super) fn all_elements_reduction(
        &mut self,
        kind: Reduction,
        x: &ast::Expr,
        span: Span,
    ) -> Option<Val> {
        let a = match self.value(x)? {
            Val::Scalar(e) => return self.scalar_reduction(kind, e, span).map(Val::Scalar),
            Val::Array(a) if self.element_type(&a).complex => {
                self.error(
                    "E0167",
                    span,
                    format!(
                        "`{}` of a complex array with 'all' is not supported by m2cu yet",
                        kind.name()
                    ),
                    format!("reduce the elements as one column: `{}(z(:))`", kind.name()),
                );
                return None;
            }
            Val::Array(a) => a,
        };
        let class = self.accumulator_class(kind, a.class, span)?;
        if matches!(kind, Reduction::Max | Reduction::Min) {
            let n = self.numel_expr(&a, span);
            self.nonempty_check(n, span);
        }
        Some(Val::Scalar(self.vector_reduction(kind, &a, class, span)))
    }

    /// `sum`, `prod` or `mean` with `'omitnan'`: m2cu's own `m2cu_omitnan.m`, given the
    /// operand, the operation and the dimension (0 for `'all'`, none for the default).
    pub(super) fn omitnan_reduction(
        &mut self,
        kind: Reduction,
        x: &ast::Expr,
        dim: Option<Dimension<'_>>,
        all: bool,
        span: Span,
    ) -> Option<Val> {
        let op = match kind {
            Reduction::Sum => 1.0,
            Reduction::Prod => 2.0,
            _ => 3.0,
        };
        let x = self.value(x)?;
        let op = self.constant_expr(op, Class::Double, span);
        let mut vals = vec![Arg::Value(x), Arg::Value(Val::Scalar(op))];
        if all {
            let zero = self.constant_expr(0.0, Class::Double, span);
            vals.push(Arg::Value(Val::Scalar(zero)));
        } else if let Some(dim) = dim {
            let dim = match dim {
                Dimension::Fixed(d) => {
                    Val::Scalar(self.constant_expr(f64::from(d), Class::Double, span))
                }
                Dimension::AtRunTime(e) => self.value(e)?,
            };
            vals.push(Arg::Value(dim));
        }
        self.inline_bundled_helper("m2cu_omitnan", vals, 1, span)?
            .pop()
    }
}

/// `double(x)`, the operand of a reduction with `'double'`.
pub(super) fn in_double(x: &ast::Expr) -> ast::Expr {
    let callee = ast::Ident {
        name: "double".into(),
        span: x.span,
    };
    ast::Expr {
        kind: AstExpr::Call {
            callee,
            args: vec![x.clone()],
        },
        span: x.span,
    }
}
