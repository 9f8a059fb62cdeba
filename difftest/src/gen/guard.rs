//! The generator's standing guard (issue 14): program features that earlier generators never
//! produced, each switched on by [`Features`] and then present in a fraction of the cases.
//!
//! - zero-trip loops: a loop whose range may be empty at run time (`1:numel(x)` with an empty
//!   input, `numel(x)+1:numel(x)`, `5:4`), its variable read after the loop. MATLAB leaves the
//!   variable 1-by-0 empty after a loop that ran no iteration;
//! - input expressions: `--set`-style integer arithmetic with saturation and rounding
//!   (`int8(100) * 2`, `uint8(200) + 100`, `int16(-7) / 2`, `uint8(NaN)`) computed at the top
//!   of the body and returned;
//! - colliding names: variables renamed to C, C++, CUDA and C library names and m2cu's own
//!   generated names ([`crate::names::COLLIDING`]). Such a case is run alone: batching
//!   prefixes every name, which would hide the collision.
//!
//! Invariant: the guard draws from the case's generator only after the body is complete, so a
//! case with the features switched off is the program earlier versions generated, and one with
//! them on starts from that same program.

use std::collections::BTreeMap;

use rand::seq::SliceRandom;
use rand::Rng;

use super::Builder;
use crate::names::COLLIDING;
use crate::program::Stmt;

/// Which guard features the generator adds (each to a fraction of the cases).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Features {
    pub zero_trip: bool,
    pub input_exprs: bool,
    pub names: bool,
    /// Issue 15's constructs (`super::language`).
    pub masks: bool,
    pub index: bool,
    pub growth: bool,
    pub chars: bool,
    /// Whole-vector statements in a row (`super::vectors`), which m2cu fuses.
    pub vectors: bool,
    /// Issue 15's control flow (`super::flow`): optional trailing parameters, input checks
    /// that raise, while loops.
    pub nargin: bool,
    pub errors: bool,
    pub while_loops: bool,
}

impl Features {
    pub const ALL: Features = Features {
        zero_trip: true,
        input_exprs: true,
        names: true,
        masks: true,
        index: true,
        growth: true,
        chars: true,
        vectors: true,
        nargin: true,
        errors: true,
        while_loops: true,
    };

    /// Parses a comma-separated list: `zero-trip`, `input-exprs`, `names`, `masks`, `index`,
    /// `growth`, `chars`, `vectors`, `nargin`, `errors`, `while`, `all`, `none`.
    pub fn parse(text: &str) -> Result<Features, String> {
        let mut f = Features::default();
        for word in text.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match word {
                "zero-trip" => f.zero_trip = true,
                "input-exprs" => f.input_exprs = true,
                "names" => f.names = true,
                "masks" => f.masks = true,
                "index" => f.index = true,
                "growth" => f.growth = true,
                "chars" => f.chars = true,
                "vectors" => f.vectors = true,
                "nargin" => f.nargin = true,
                "errors" => f.errors = true,
                "while" => f.while_loops = true,
                "all" => f = Features::ALL,
                "none" => f = Features::default(),
                other => {
                    return Err(format!(
                        "unknown feature `{other}` (zero-trip, input-exprs, names, masks, index, growth, chars, vectors, nargin, errors, while, all, none)"
                    ))
                }
            }
        }
        Ok(f)
    }
}

const INT_CLASSES: [&str; 6] = ["int8", "uint8", "int16", "uint16", "int32", "uint32"];

/// A random MATLAB expression of integer arithmetic: class conversions that saturate and
/// round, and operations of an integer with a double or the same class.
pub fn int_expr(rng: &mut impl Rng) -> String {
    let class = *INT_CLASSES.choose(rng).expect("non-empty");
    let operand = |rng: &mut _| int_operand(rng, class);
    match rng.gen_range(0..8) {
        0 => {
            let v = *[
                "200", "-5", "2.5", "-2.5", "3.5", "NaN", "Inf", "-Inf", "1e10", "-0.5",
            ]
            .choose(rng)
            .expect("non-empty");
            format!("{class}({v})")
        }
        1 => format!("-{}", operand(rng)),
        2 => format!("abs({})", operand(rng)),
        3 => {
            let v = *["[200 100 3]", "[-128 127 0]", "1:5", "[2.5 -2.5 0.5]"]
                .choose(rng)
                .expect("non-empty");
            let op = *[" + 100", " * 60", " - 3", " / 2"].choose(rng).expect("op");
            format!("{class}({v}){op}")
        }
        4 => {
            let op = *[" + ", " - ", " * ", " / "].choose(rng).expect("op");
            format!("{}{op}{}", operand(rng), operand(rng))
        }
        5 => format!("double({}) / 3", operand(rng)),
        _ => {
            let op = *[" + ", " - ", " * ", " / "].choose(rng).expect("op");
            let d = *["2", "100", "-100", "0.5", "1.5", "2.6", "300", "-1", "0"]
                .choose(rng)
                .expect("d");
            if rng.gen_bool(0.5) {
                format!("{}{op}{d}", operand(rng))
            } else {
                format!("{d}{op}{}", operand(rng))
            }
        }
    }
}

/// `class(v)` with `v` near the class's limits or small.
fn int_operand(rng: &mut impl Rng, class: &str) -> String {
    match rng.gen_range(0..4) {
        0 => format!("intmax('{class}')"),
        1 => format!("intmin('{class}')"),
        _ => {
            let v = *["100", "-100", "200", "7", "-7", "1", "0", "3"]
                .choose(rng)
                .expect("non-empty");
            format!("{class}({v})")
        }
    }
}

/// A random `--set` value whose elements cannot be compared (random numbers): only its class
/// and size can.
pub fn random_expr(rng: &mut impl Rng) -> String {
    [
        "rand(1,3)",
        "randn(2,2)",
        "randi(10,1,4)",
        "int8(rand(1,4)*300)",
        "single(rand(3,1))",
    ]
    .choose(rng)
    .expect("non-empty")
    .to_string()
}

impl Builder {
    /// Adds the switched-on features to the finished body; `Some` renaming (old name to new)
    /// when names collide.
    pub(super) fn guard(&mut self, features: Features) -> BTreeMap<String, String> {
        if features.input_exprs && self.chance(0.3) {
            self.input_exprs();
        }
        if features.zero_trip && self.chance(0.4) {
            self.zero_trip();
        }
        self.language(features);
        if features.names && self.chance(0.3) {
            self.colliding_names()
        } else {
            BTreeMap::new()
        }
    }

    /// Issue 15's constructs. Each draws only when its feature is on, so the programs of the
    /// features above are unchanged by these.
    fn language(&mut self, features: Features) {
        if features.masks && self.chance(0.3) {
            self.masks();
        }
        if features.index && self.chance(0.25) {
            self.index_vectors();
        }
        if features.growth && self.chance(0.25) {
            self.growth();
        }
        if features.chars && self.chance(0.2) {
            self.chars();
        }
        if features.vectors && self.chance(0.35) {
            self.vector_chain();
        }
        self.flow(features);
    }

    fn input_exprs(&mut self) {
        let n = self.rng.gen_range(1..=3);
        for k in 0..n {
            let e = self.fresh("e");
            let text = int_expr(&mut self.rng);
            self.stmts.insert(k, Stmt::Line(format!("${e} = {text}")));
            self.outputs.push(e);
        }
    }

    /// A loop that may run no iteration, its variable read afterwards.
    fn zero_trip(&mut self) {
        let extent = self.rng.gen_range(0..self.extents.len());
        let size = self.size_text(extent);
        let range = match self.rng.gen_range(0..5) {
            0 => format!("1:{size}"),
            1 => format!("{size} + 1:{size}"),
            2 => format!("{size}:-1:1"),
            3 => "5:4".to_string(),
            _ => format!("1:{size} - 2"),
        };
        let z = self.fresh("z");
        let s = self.fresh("s");
        if self.chance(0.5) {
            self.stmts.push(Stmt::Line(format!("${z} = 7")));
        }
        self.stmts.push(Stmt::Line(format!("${s} = 0")));
        self.stmts.push(Stmt::For {
            var: format!("${z}"),
            range,
            body: vec![Stmt::Line(format!("${s} = ${s} + ${z}"))],
        });
        self.outputs.push(s);
        let o = self.fresh("o");
        let read = match self.rng.gen_range(0..6) {
            0 => Stmt::Line(format!("${o} = ${z}")),
            1 => Stmt::Line(format!("${o} = numel(${z})")),
            2 => Stmt::Line(format!("${o} = isempty(${z})")),
            3 => Stmt::Line(format!("${o} = ${z} + 1")),
            4 => Stmt::If {
                cond: format!("isempty(${z})"),
                then: vec![Stmt::Line(format!("${o} = -1"))],
                otherwise: vec![Stmt::Line(format!("${o} = ${z} * 2"))],
            },
            _ => {
                self.stmts.push(Stmt::Line(format!("${o} = 0")));
                Stmt::If {
                    cond: format!("${z} == {size}"),
                    then: vec![Stmt::Line(format!("${o} = 1"))],
                    otherwise: vec![],
                }
            }
        };
        self.stmts.push(read);
        self.outputs.push(o);
    }

    /// Renames one to three of the case's variables to colliding names.
    fn colliding_names(&mut self) -> BTreeMap<String, String> {
        let mut names: Vec<String> = self.inputs.iter().map(|(n, _)| n.clone()).collect();
        names.extend(self.outputs.iter().cloned());
        let mut pool: Vec<&str> = COLLIDING.to_vec();
        pool.shuffle(&mut self.rng);
        names.shuffle(&mut self.rng);
        let n = self.rng.gen_range(1..=3).min(names.len());
        names
            .into_iter()
            .take(n)
            .zip(pool)
            .map(|(old, new)| (old, new.to_string()))
            .collect()
    }
}

/// `text` with each `$name` in `renames` replaced by `$new` (whole names only).
pub fn rename_text(text: &str, renames: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..=at]);
        let after = &rest[at + 1..];
        let len = after
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(after.len());
        let name = &after[..len];
        out.push_str(renames.get(name).map_or(name, String::as_str));
        rest = &after[len..];
    }
    out.push_str(rest);
    out
}

/// `body` with [`rename_text`] applied to every statement.
pub fn rename_body(body: &[Stmt], renames: &BTreeMap<String, String>) -> Vec<Stmt> {
    let r = |t: &String| rename_text(t, renames);
    body.iter()
        .map(|s| match s {
            Stmt::Line(t) => Stmt::Line(r(t)),
            Stmt::For { var, range, body } => Stmt::For {
                var: r(var),
                range: r(range),
                body: rename_body(body, renames),
            },
            Stmt::If {
                cond,
                then,
                otherwise,
            } => Stmt::If {
                cond: r(cond),
                then: rename_body(then, renames),
                otherwise: rename_body(otherwise, renames),
            },
            Stmt::While { cond, body } => Stmt::While {
                cond: r(cond),
                body: rename_body(body, renames),
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renames_whole_names_only() {
        let map = BTreeMap::from([("x1".to_string(), "int".to_string())]);
        assert_eq!(
            rename_text("$x1 = $x10 + $x1(2)", &map),
            "$int = $x10 + $int(2)"
        );
    }
}
