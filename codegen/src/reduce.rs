//! How each reduction operator is combined: its identity, the combine of two partial values, and
//! the final merge of the loop's result into the value the variable had before the loop (the
//! CUDA atomic that merges a block's partial is `crate::cuda::atomics`).
//!
//! Partials are held in a *wide* type (the accumulator type of the warp shuffles and atomics):
//! double, float, int, unsigned int, long long or unsigned long long. Narrow integer and logical
//! classes widen losslessly; bitwise kinds use the unsigned type of the same width, since AND, OR
//! and XOR commute with truncation.
//!
//! Invariants: `identity` is neutral for `combine` (MATLAB's `max(NaN, x)` is `x`, so the
//! NaN-skipping function forms use NaN as identity), and `combine` is associative and commutative
//! on every value a partial can hold. Min/max with location keep (value, location, iteration) and
//! break ties on the iteration number by the comparison's tie rule.

use m2cu_analysis::{Reduction, Ties};
use m2cu_frontend::ir::CombinerId;
use m2cu_frontend::operator::{Combine, Identity, Operator, Written};
use m2cu_frontend::types::Class;

use crate::expr::{combine_call, literal};
use crate::stmt::Context;

/// A located partial as C names: its value, its location variables, and the iteration it
/// came from (`< 0`: no element yet).
pub struct Located {
    pub v: String,
    pub ks: Vec<String>,
    pub t: String,
}

impl Located {
    /// Value `v`, locations `k0, k1, ...` (`k` followed by the position), iteration `t`.
    pub fn numbered(v: &str, k: &str, n: usize, t: &str) -> Located {
        Located {
            v: v.into(),
            ks: (0..n).map(|q| format!("{k}{q}")).collect(),
            t: t.into(),
        }
    }
}

/// How the per-block partials of a reduction reach its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Merge {
    /// One atomic (or compare-and-swap loop) per block into one slot, in whatever order the
    /// blocks finish.
    Atomic,
    /// `--deterministic` floating sums and products and custom combiners: every block's partial
    /// goes to its own slot (a custom one with its "has a value" flag), and the last block to
    /// finish combines the slots in a fixed tree, so the result is the same bits on every run
    /// of the same grid.
    Ordered,
    /// With location: per-block slots, which the last block merges by the tie rule.
    Located,
}

/// The code pieces of one reduction: the operator's row (`m2cu_frontend::operator`) spelled in C
/// and CUDA for the variable's class and the loop's form.
pub struct ReductionCode {
    pub operator: Operator,
    pub written: Written,
    pub class: Class,
    pub ties: Ties,
    /// A custom reduction's combiner's captured values (C names, in scope wherever partials
    /// are combined), which every call of it passes after the two partials.
    pub captures: Vec<String>,
}

impl ReductionCode {
    pub fn new(ctx: &Context, r: &Reduction) -> ReductionCode {
        let captures = match r.operator {
            Operator::Custom(c) => ctx.f.combiners[c]
                .captures
                .iter()
                .map(|&l| ctx.name(l).to_string())
                .collect(),
            _ => Vec::new(),
        };
        ReductionCode {
            operator: r.operator,
            written: r.form.written(),
            class: ctx.f.locals[r.var].ty.class,
            ties: r.ties,
            captures,
        }
    }

    /// The C call of a custom reduction's combiner on the partials `a` and `b`.
    pub fn call_combiner(&self, c: CombinerId, a: &str, b: &str, err: &str) -> String {
        let operands: Vec<&str> = [a, b]
            .into_iter()
            .chain(self.captures.iter().map(String::as_str))
            .collect();
        combine_call(c, &operands, err)
    }

    pub(crate) fn combine_op(&self) -> Combine {
        self.operator.row().combine
    }

    /// How block partials are merged. Only floating sums and products, and custom combiners
    /// (the user's function may round), depend on the order of the blocks (integer sums
    /// saturate monotonically, the other operators are exact), so only they change under
    /// `deterministic`.
    pub fn merge(&self, r: &Reduction, deterministic: bool) -> Merge {
        if !r.locations.is_empty() {
            Merge::Located
        } else if deterministic && self.operator.order_sensitive(self.class) {
            Merge::Ordered
        } else {
            Merge::Atomic
        }
    }

    /// An integer sum, which the analysis allows only with non-negative terms: partials
    /// saturate at the class maximum, exactly as the sequential loop would.
    pub(crate) fn saturating(&self) -> bool {
        self.operator.saturates(self.class)
    }

    /// A NaN-skipping min or max (the function form on floats).
    fn skips_nan(&self) -> bool {
        self.operator.skips_nan(self.class, self.written)
    }

    /// The class maximum as a literal of the wide type.
    pub(crate) fn wide_max(&self) -> String {
        let (_, hi) = self.class.int_range().unwrap_or((0.0, 0.0));
        let text = match self.class {
            Class::Int64 => "9223372036854775807LL".to_string(),
            Class::Uint64 => "18446744073709551615ULL".to_string(),
            c => literal(hi, c),
        };
        format!("(({}){text})", self.wide_type())
    }

    fn bitwise(&self) -> bool {
        matches!(
            self.combine_op(),
            Combine::BitAnd | Combine::BitOr | Combine::BitXor
        )
    }

    /// The user function of a custom reduction.
    pub fn custom(&self) -> Option<CombinerId> {
        match self.operator {
            Operator::Custom(c) => Some(c),
            _ => None,
        }
    }

    /// The wide C type of partials (a custom reduction keeps the class's type).
    pub fn wide_type(&self) -> &'static str {
        if self.custom().is_some() {
            return self.class.c_type();
        }
        let unsigned = self.bitwise() || !self.class.is_signed_integer();
        match self.class {
            Class::Double => "double",
            Class::Single => "float",
            Class::Int64 | Class::Uint64 if unsigned => "unsigned long long",
            Class::Int64 => "long long",
            Class::Uint64 => "unsigned long long",
            Class::Logical => "int",
            _ if unsigned => "unsigned int",
            _ => "int",
        }
    }

    /// The value a partial starts from: the identity, or for a custom reduction (which has
    /// none) the variable's value `s` before the loop, which every partial is folded into.
    pub fn initial(&self, s: &str) -> String {
        match self.custom() {
            Some(_) => s.to_string(),
            None => self.wide_identity(),
        }
    }

    /// The identity as a C literal of the variable's class; a custom reduction has none, and
    /// its per-thread accumulators start at 0 with their "has a value" flag clear.
    pub fn identity(&self) -> String {
        let ty = self.class.c_type();
        let value = match self.operator.identity(self.class, self.written) {
            Identity::Value(v) => v,
            Identity::None => 0.0,
            Identity::AllOnes => return format!("(({ty})~({ty})0)"),
        };
        let (lo, hi) = self.class.int_range().unwrap_or((f64::NAN, f64::NAN));
        match self.class {
            // Class limits of the 64-bit classes do not survive a trip through double.
            Class::Int64 if value == lo => "(-9223372036854775807LL - 1)".into(),
            Class::Int64 if value == hi => "9223372036854775807LL".into(),
            Class::Uint64 if value == hi => "18446744073709551615ULL".into(),
            c => literal(value, c),
        }
    }

    /// The identity in the wide type.
    pub fn wide_identity(&self) -> String {
        format!("(({}){})", self.wide_type(), self.identity())
    }

    /// Combines two wide partials `a` and `b` (simple expressions: evaluated more than once).
    pub fn combine(&self, a: &str, b: &str) -> String {
        match self.combine_op() {
            Combine::Add if self.saturating() => {
                let max = self.wide_max();
                format!("({a} > {max} - {b} ? {max} : {a} + {b})")
            }
            Combine::Add => format!("({a} + {b})"),
            Combine::Mul => format!("({a} * {b})"),
            Combine::Min if self.skips_nan() => format!("m2cu_fmin({a}, {b})"),
            Combine::Max if self.skips_nan() => format!("m2cu_fmax({a}, {b})"),
            Combine::Min => format!("({b} < {a} ? {b} : {a})"),
            Combine::Max => format!("({b} > {a} ? {b} : {a})"),
            Combine::LogicalAnd | Combine::BitAnd => format!("({a} & {b})"),
            Combine::LogicalOr | Combine::BitOr => format!("({a} | {b})"),
            Combine::BitXor => format!("({a} ^ {b})"),
            Combine::Call => {
                let c = self.custom().expect("a call combines a custom reduction");
                self.call_combiner(c, a, b, "m2cu_err")
            }
        }
    }

    /// Host C statement merging the loop's wide result `r` into the variable `s`, as the
    /// sequential loop would have left it (a located result merges by `finish_location`).
    pub fn finish(&self, s: &str, r: &str) -> String {
        let ty = self.class.c_type();
        match self.combine_op() {
            Combine::Add if self.saturating() => {
                let (w, max) = (self.wide_type(), self.wide_max());
                format!("{s} = ({ty})(({w}){s} > {max} - ({w}){r} ? {max} : ({w}){s} + ({w}){r});")
            }
            Combine::Add => format!("{s} = ({ty})({s} + ({ty}){r});"),
            Combine::Mul => format!("{s} = ({ty})({s} * ({ty}){r});"),
            Combine::Min if self.skips_nan() => format!("{s} = ({ty})m2cu_fmin({s}, {r});"),
            Combine::Max if self.skips_nan() => format!("{s} = ({ty})m2cu_fmax({s}, {r});"),
            Combine::Min => format!("if ({r} < {s}) {s} = ({ty}){r};"),
            Combine::Max => format!("if ({r} > {s}) {s} = ({ty}){r};"),
            Combine::LogicalAnd => format!("{s} = {s} && {r};"),
            Combine::LogicalOr => format!("{s} = {s} || {r};"),
            Combine::BitAnd => format!("{s} = ({ty})({s} & ({ty}){r});"),
            Combine::BitOr => format!("{s} = ({ty})({s} | ({ty}){r});"),
            Combine::BitXor => format!("{s} = ({ty})({s} ^ ({ty}){r});"),
            // The result already folds in the value from before the loop (see `initial`).
            Combine::Call => format!("{s} = {r};"),
        }
    }

    /// The comparison by which a located partial beats another: the operator's `if` form.
    fn better(&self) -> &'static str {
        let compared = self.operator.row().compared;
        compared.expect("a located reduction compares").symbol()
    }

    /// Statement: if the partial `b` beats `a`, copy it over (value, every location, and
    /// iteration). Ties go by the iteration number and the comparison's tie rule.
    pub fn combine_location(&self, a: &Located, b: &Located) -> String {
        let tie = if self.ties == Ties::First { "<" } else { ">" };
        let op = self.better();
        let copies: String =
            a.ks.iter()
                .zip(&b.ks)
                .map(|(ak, bk)| format!(" {ak} = {bk};"))
                .collect();
        format!(
            "if ({bt} >= 0 && ({at} < 0 || {bv} {op} {av} || ({bv} == {av} && {bt} {tie} {at}))) {{ {av} = {bv};{copies} {at} = {bt}; }}",
            av = a.v, at = a.t, bv = b.v, bt = b.t
        )
    }

    /// Host statement merging the located result `r` into `s` and its location variables `ks`.
    pub fn finish_location(&self, s: &str, ks: &[&str], r: &Located) -> String {
        let op = if self.ties == Ties::First {
            self.better().to_string()
        } else {
            format!("{}=", self.better())
        };
        let ty = self.class.c_type();
        let copies: String = ks
            .iter()
            .zip(&r.ks)
            .map(|(k, rk)| format!(" {k} = {rk};"))
            .collect();
        format!(
            "if ({rt} >= 0 && {rv} {op} {s}) {{ {s} = ({ty}){rv};{copies} }}",
            rv = r.v,
            rt = r.t
        )
    }
}
