//! Vectorized statements in a row, as people write them (`d = x - x(k); e = abs(d) .* 2; m =
//! max(e)`), which m2cu fuses into one loop over the elements and whose temporaries it may hold
//! in scalars (`lower::fuse`): chains of elementwise temporaries ending in reductions, at the
//! top of the function and in the body of a loop over an input's elements (n-body's shape),
//! some temporaries read again later (so they keep their elements), some updated in place.
//!
//! Invariants (those of the generator, see `super`): every subscript is in range (a chain that
//! reads `x(k)` takes a non-empty input and `k` in `1..=numel(x)`), integer classes are never
//! mixed (a chain stays in its input's class; constants are of that class), and every result
//! is exact in any order: the elementwise operations round alike everywhere, and the chains
//! reduce only by `max`, `min` and counts (`sum(t > c)`), never by floating sums.

use rand::Rng;

use super::{constant, Builder};
use crate::program::Stmt;

impl Builder {
    /// A chain of whole-vector statements over one input, at the top or in a loop over its
    /// elements.
    pub(super) fn vector_chain(&mut self) {
        let inputs = self.vector_inputs(true);
        if inputs.is_empty() {
            return;
        }
        let (a, n) = self.pick(&inputs);
        let x = format!("${}", a.name);
        let zero = constant(a.class, 0.0);
        if self.chance(0.5) {
            let i = self.fresh("i");
            let outs: Vec<String> = (0..2).map(|_| self.fresh("r")).collect();
            for out in &outs {
                self.stmts.push(Stmt::Line(format!(
                    "${out} = zeros(1, numel({x}), '{}')",
                    a.class.name()
                )));
            }
            let mut body = Vec::new();
            let d = self.fresh("d");
            body.push(Stmt::Line(format!("${d} = {x} - {x}(${i})")));
            let (e, mut chain) = self.chain(&format!("${d}"), &x, a.class);
            body.append(&mut chain);
            let reduce = self.reduction(&e, &zero);
            body.push(Stmt::Line(format!("${}(${i}) = {reduce}", outs[0])));
            let reduce = self.reduction(&format!("${d}"), &zero);
            body.push(Stmt::Line(format!("${}(${i}) = {reduce}", outs[1])));
            self.stmts.push(Stmt::For {
                var: format!("${i}"),
                range: format!("1:numel({x})"),
                body,
            });
            self.outputs.extend(outs);
        } else {
            let k = self.rng.gen_range(1..=n);
            let d = self.fresh("d");
            let first = match self.rng.gen_range(0..3) {
                0 => format!("{x} - {x}({k})"),
                1 => format!("abs({x})"),
                _ => format!("{x} + {}", constant(a.class, 2.0)),
            };
            self.stmts.push(Stmt::Line(format!("${d} = {first}")));
            let (e, chain) = self.chain(&format!("${d}"), &x, a.class);
            self.stmts.extend(chain);
            for source in [e, format!("${d}")] {
                let out = self.fresh("r");
                let reduce = self.reduction(&source, &zero);
                self.stmts.push(Stmt::Line(format!("${out} = {reduce}")));
                self.outputs.push(out);
            }
            if self.chance(0.4) {
                // The first temporary read after the chain keeps its elements.
                self.outputs.push(d);
            }
        }
    }

    /// One to three elementwise statements from `start` (and the input `x`), some of them
    /// updates in place: the last temporary's name and the statements.
    fn chain(&mut self, start: &str, x: &str, class: m2cu::ClassId) -> (String, Vec<Stmt>) {
        let mut stmts = Vec::new();
        let mut last = start.to_string();
        for _ in 0..self.rng.gen_range(1..=3) {
            let two = constant(class, 2.0);
            let value = match self.rng.gen_range(0..5) {
                0 => format!("{last} .* {two}"),
                1 => format!("abs({last}) + {x}"),
                2 => format!("max({last}, {x})"),
                3 => format!("{last} - {x}"),
                _ => format!("min({last}, {two})"),
            };
            if self.chance(0.3) {
                stmts.push(Stmt::Line(format!("{last} = {value}")));
            } else {
                let t = format!("${}", self.fresh("t"));
                stmts.push(Stmt::Line(format!("{t} = {value}")));
                last = t;
            }
        }
        (last, stmts)
    }

    /// A reduction of vector `v` that is exact in any order: an extreme or a count.
    fn reduction(&mut self, v: &str, zero: &str) -> String {
        match self.rng.gen_range(0..4) {
            0 => format!("max({v})"),
            1 => format!("min({v})"),
            2 => format!("sum({v} > {zero})"),
            _ => format!("max(abs({v}))"),
        }
    }
}
