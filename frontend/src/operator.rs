//! Reduction operators: one table row per operator, read by everything that makes, recognizes,
//! reports or prints a reduction — the lowering of `sum`/`max`/`any`/... builds its update from
//! the row, the analysis recognizes a loop's updates by the rows, and the printers spell the
//! row's abstract combine as C, as a CUDA atomic, and as the host's final merge.
//!
//! An operator is *what* is combined; how a loop writes it (a plain update, an `if` compare, with
//! a location) is the analysis's `Form`. Adding an operator is adding a row here.
//!
//! Invariants: every row's `combine` is associative and commutative on the classes its `classes`
//! rule admits (floating sums and products up to rounding, and a custom combiner as far as the
//! user's function is, which `order_sensitive` flags), and its
//! `identity` is neutral for `combine`; the first of a row's `updates` is the one the lowering
//! writes.

use crate::ir::{BinOp, Builtin, CombinerId};
use crate::types::Class;

/// A reduction operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Operator {
    Sum,
    Prod,
    Min,
    Max,
    /// `&&` / `&` of logicals.
    And,
    /// `||` / `|` of logicals.
    Or,
    BitAnd,
    BitOr,
    BitXor,
    /// `xor(s, e)` of logicals (parity).
    Xor,
    /// `s = f(s, e)` with a user function of `gpucoder.reduce` (`Function::combiners[c]`), whose
    /// associativity and commutativity the user vouches for; no identity.
    Custom(CombinerId),
}

/// An IR update `s = ...` an operator is recognized from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Update {
    /// `s op e` or `e op s`.
    Binary(BinOp),
    /// `s op e` only (`s - e`).
    LeftBinary(BinOp),
    /// `f(s, e)` or `f(e, s)` of a two-argument builtin.
    Call(Builtin),
    /// The user's combiner `f(s, e)` (`ExprKind::Combine`).
    Combiner,
}

/// How two partial values combine, spelled by each printer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Combine {
    Add,
    Mul,
    Min,
    Max,
    /// AND of logicals (combined bitwise on 0/1, merged with `&&`).
    LogicalAnd,
    /// OR of logicals (combined bitwise on 0/1, merged with `||`).
    LogicalOr,
    BitAnd,
    BitOr,
    BitXor,
    /// A call of the user's combiner.
    Call,
}

/// The neutral element, before a printer spells it in a class.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Identity {
    Value(f64),
    /// Every bit set (`~0` of the class).
    AllOnes,
    /// A custom combiner has none: partials start from the value before the loop.
    None,
}

/// The identity of an operator without its class: the class's extremes come in later.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Neutral {
    Zero,
    One,
    /// The class's lowest value (-Inf for floats).
    Lowest,
    /// The class's highest value (+Inf for floats).
    Highest,
    AllOnes,
    None,
}

/// Which classes an operator reduces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Classes {
    /// Any real class; integer classes as `integers` says.
    Numeric,
    /// Logical only.
    Logical,
    /// Integer classes only.
    Integer,
    /// The classes a 32- or 64-bit compare-and-swap holds.
    CasWidth,
}

/// What MATLAB's saturating integer arithmetic does to the operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Integers {
    /// Exact in any order.
    Exact,
    /// Saturating, and order-independent only when every term is non-negative.
    Saturating,
    /// Order-dependent: integer reductions stay sequential.
    Rejected,
}

/// How the update is written in the loop, which decides the identity of `min`/`max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Written {
    /// `s = max(s, e)`: NaN is skipped, so a floating identity is NaN.
    Function,
    /// `if e > s, s = e; end`: the comparison never takes NaN.
    Compared,
}

/// One operator's row.
#[derive(Debug)]
pub struct Row {
    /// The name in the text report and kernel comments.
    pub name: &'static str,
    /// The name in the JSON report.
    pub json: &'static str,
    /// How MATLAB code writes the update, for messages.
    pub matlab: &'static str,
    /// The updates it is recognized from; the first is the one lowering writes.
    pub updates: &'static [Update],
    /// The comparison of its `if` form (`if e < s, s = e; end`), when it has one: Lt for min.
    pub compared: Option<BinOp>,
    /// The name with a location (`minloc`), when it has an `if` form.
    pub located: Option<&'static str>,
    neutral: Neutral,
    pub combine: Combine,
    pub classes: Classes,
    pub integers: Integers,
}

const fn row(
    name: &'static str,
    json: &'static str,
    matlab: &'static str,
    updates: &'static [Update],
    neutral: Neutral,
    combine: Combine,
    classes: Classes,
) -> Row {
    Row {
        name,
        json,
        matlab,
        updates,
        compared: None,
        located: None,
        neutral,
        combine,
        classes,
        integers: Integers::Exact,
    }
}

const SUM: Row = Row {
    integers: Integers::Saturating,
    ..row(
        "sum",
        "sum",
        "s = s + e",
        &[Update::Binary(BinOp::Add), Update::LeftBinary(BinOp::Sub)],
        Neutral::Zero,
        Combine::Add,
        Classes::Numeric,
    )
};
const PROD: Row = Row {
    integers: Integers::Rejected,
    ..row(
        "prod",
        "prod",
        "s = s * e",
        &[Update::Binary(BinOp::Mul)],
        Neutral::One,
        Combine::Mul,
        Classes::Numeric,
    )
};
const MIN: Row = Row {
    compared: Some(BinOp::Lt),
    located: Some("minloc"),
    ..row(
        "min",
        "min",
        "s = min(s, e)",
        &[Update::Call(Builtin::Min)],
        Neutral::Highest,
        Combine::Min,
        Classes::Numeric,
    )
};
const MAX: Row = Row {
    compared: Some(BinOp::Gt),
    located: Some("maxloc"),
    ..row(
        "max",
        "max",
        "s = max(s, e)",
        &[Update::Call(Builtin::Max)],
        Neutral::Lowest,
        Combine::Max,
        Classes::Numeric,
    )
};
const AND: Row = row(
    "and",
    "land",
    "s = s && e",
    &[Update::Binary(BinOp::AndAnd), Update::Binary(BinOp::And)],
    Neutral::One,
    Combine::LogicalAnd,
    Classes::Logical,
);
const OR: Row = row(
    "or",
    "lor",
    "s = s || e",
    &[Update::Binary(BinOp::OrOr), Update::Binary(BinOp::Or)],
    Neutral::Zero,
    Combine::LogicalOr,
    Classes::Logical,
);
const BITAND: Row = row(
    "bitand",
    "band",
    "s = bitand(s, e)",
    &[Update::Call(Builtin::BitAnd)],
    Neutral::AllOnes,
    Combine::BitAnd,
    Classes::Integer,
);
const BITOR: Row = row(
    "bitor",
    "bor",
    "s = bitor(s, e)",
    &[Update::Call(Builtin::BitOr)],
    Neutral::Zero,
    Combine::BitOr,
    Classes::Integer,
);
const BITXOR: Row = row(
    "bitxor",
    "bxor",
    "s = bitxor(s, e)",
    &[Update::Call(Builtin::BitXor)],
    Neutral::Zero,
    Combine::BitXor,
    Classes::Integer,
);
const XOR: Row = row(
    "xor",
    "lxor",
    "s = xor(s, e)",
    &[Update::Call(Builtin::Xor)],
    Neutral::Zero,
    Combine::BitXor,
    Classes::Logical,
);
const CUSTOM: Row = row(
    "custom",
    "custom",
    "s = f(s, e)",
    &[Update::Combiner],
    Neutral::None,
    Combine::Call,
    Classes::CasWidth,
);

impl Operator {
    /// Every operator a loop writes with MATLAB's own operators and functions (all but
    /// [`Operator::Custom`]), in the order recognition tries them.
    pub const BUILTIN: [Operator; 10] = [
        Operator::Sum,
        Operator::Prod,
        Operator::Min,
        Operator::Max,
        Operator::And,
        Operator::Or,
        Operator::BitAnd,
        Operator::BitOr,
        Operator::BitXor,
        Operator::Xor,
    ];

    pub fn row(self) -> &'static Row {
        match self {
            Operator::Sum => &SUM,
            Operator::Prod => &PROD,
            Operator::Min => &MIN,
            Operator::Max => &MAX,
            Operator::And => &AND,
            Operator::Or => &OR,
            Operator::BitAnd => &BITAND,
            Operator::BitOr => &BITOR,
            Operator::BitXor => &BITXOR,
            Operator::Xor => &XOR,
            Operator::Custom(_) => &CUSTOM,
        }
    }

    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// The operator of a builtin update `s op e` (or `e op s`), and whether `s` may stand on
    /// either side.
    pub fn of_binary(op: BinOp) -> Option<(Operator, bool)> {
        Operator::BUILTIN.into_iter().find_map(|o| {
            o.row().updates.iter().find_map(|u| match *u {
                Update::Binary(b) if b == op => Some((o, true)),
                Update::LeftBinary(b) if b == op => Some((o, false)),
                _ => None,
            })
        })
    }

    /// The operator of a two-argument builtin update `f(s, e)`.
    pub fn of_call(builtin: Builtin) -> Option<Operator> {
        Operator::BUILTIN
            .into_iter()
            .find(|o| o.row().updates.contains(&Update::Call(builtin)))
    }

    /// The operator whose `if` form compares `e op s` (`e < s`: min).
    pub fn of_comparison(op: BinOp) -> Option<Operator> {
        Operator::BUILTIN
            .into_iter()
            .find(|o| o.row().compared == Some(op))
    }

    /// Whether a min or max written as `written` skips NaN in `class`: the function form on
    /// floats (`max(s, NaN)` is `s`), whose identity is then NaN and whose combine is
    /// NaN-skipping.
    pub fn skips_nan(self, class: Class, written: Written) -> bool {
        written == Written::Function
            && class.is_float()
            && matches!(self.row().combine, Combine::Min | Combine::Max)
    }

    /// The identity in `class` for an update written as `written`.
    pub fn identity(self, class: Class, written: Written) -> Identity {
        let (lo, hi) = class
            .int_range()
            .unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
        match self.row().neutral {
            _ if self.skips_nan(class, written) => Identity::Value(f64::NAN),
            Neutral::Zero => Identity::Value(0.0),
            Neutral::One => Identity::Value(1.0),
            Neutral::Lowest => Identity::Value(lo),
            Neutral::Highest => Identity::Value(hi),
            Neutral::AllOnes => Identity::AllOnes,
            Neutral::None => Identity::None,
        }
    }

    /// Whether partials of `class` may differ with the order they are combined in: floating
    /// sums and products (rounding), and a user's function, which m2cu cannot prove exact in
    /// any order (`gpucoder.reduce(x, @hypot)`, or `+` written in an anonymous function, round).
    pub fn order_sensitive(self, class: Class) -> bool {
        matches!(self.row().combine, Combine::Call)
            || class.is_float() && matches!(self.row().combine, Combine::Add | Combine::Mul)
    }

    /// Whether partial sums of `class` saturate at the class maximum.
    pub fn saturates(self, class: Class) -> bool {
        class.is_integer() && self.row().integers == Integers::Saturating
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_update_names_one_operator() {
        for op in Operator::BUILTIN {
            for u in op.row().updates {
                let found = match *u {
                    Update::Binary(b) | Update::LeftBinary(b) => {
                        Operator::of_binary(b).map(|x| x.0)
                    }
                    Update::Call(b) => Operator::of_call(b),
                    Update::Combiner => None,
                };
                assert_eq!(found, Some(op), "{u:?}");
            }
        }
    }

    #[test]
    fn function_forms_of_min_and_max_skip_nan() {
        let nan = |i| matches!(i, Identity::Value(v) if f64::is_nan(v));
        assert!(nan(Operator::Max.identity(Class::Double, Written::Function)));
        assert_eq!(
            Operator::Max.identity(Class::Double, Written::Compared),
            Identity::Value(f64::NEG_INFINITY)
        );
        assert_eq!(
            Operator::Min.identity(Class::Int8, Written::Function),
            Identity::Value(127.0)
        );
    }
}
