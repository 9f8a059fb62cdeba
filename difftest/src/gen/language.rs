//! Issue 15's constructs in generated programs, each switched on by a [`super::Features`] flag
//! and then present in a fraction of the cases: logical masks (`y(y < t) = c`, `sum(x > t)`,
//! `numel(x(x > t))`), index vectors (`x([3 1 3])`, `h([2 2 1]) = [5 6 7]`, the last write of a
//! repeated index wins), arrays grown by indexed assignment (`g(end+1) = v` after `g = []`,
//! `q(k) = ...` without preallocation, `z(2, 3) = 0` as an allocation), and char data (`c ==
//! 'o'`, `c - 'a'`, `double(c(k))`, `switch` on a char value).
//!
//! Invariants (those of the generator, see `super`): every subscript is in range (index vectors
//! are drawn from `1..=len` of a non-empty vector input), every value read is assigned first,
//! integer classes are never mixed, and a floating result is exact in any order of evaluation
//! (masks only count, compare, select and assign; they never sum floats).

use rand::Rng;

use super::{constant, Array, Builder};
use crate::program::Stmt;
use m2cu::ClassId;

impl Builder {
    /// The numeric vector inputs with their lengths; only those with an element when
    /// `nonempty`.
    pub(super) fn vector_inputs(&self, nonempty: bool) -> Vec<(Array, usize)> {
        self.arrays
            .iter()
            .filter(|a| a.input && a.extents.len() == 1 && a.class != ClassId::Logical)
            .map(|a| (a.clone(), self.extents[a.extents[0]] as usize))
            .filter(|(_, len)| !nonempty || *len > 0)
            .collect()
    }

    /// A numeric input (any shape) and a threshold constant of its class.
    pub(super) fn masked_input(&mut self) -> Option<(Array, String)> {
        let candidates: Vec<Array> = self
            .arrays
            .iter()
            .filter(|a| a.input && a.class != ClassId::Logical)
            .cloned()
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let a = self.pick(&candidates);
        let t = self.pick(&[0.0, 1.0, -1.0, 2.5, 100.0]);
        let t = constant(a.class, t);
        Some((a, t))
    }

    /// Masked assignment, masked counts and selections of an input.
    pub(super) fn masks(&mut self) {
        let Some((a, t)) = self.masked_input() else {
            return;
        };
        let out = self.fresh("m");
        let op = self.pick(&["<", ">", "<=", "==", "~="]);
        let line = match self.rng.gen_range(0..6) {
            0 => {
                let c = constant(a.class, self.pick(&[0.0, 7.0, -3.0]));
                self.stmts.push(Stmt::Line(format!("${out} = ${}", a.name)));
                format!("${out}(${out} {op} {t}) = {c}")
            }
            1 => format!("${out} = sum(${} {op} {t})", a.name),
            2 => format!("${out} = numel(${}(${} {op} {t}))", a.name, a.name),
            3 => format!("${out} = any(${}(:) {op} {t})", a.name),
            4 => format!("${out} = ${}(${} {op} {t})", a.name, a.name),
            _ => {
                let mask = self.fresh("k");
                self.stmts
                    .push(Stmt::Line(format!("${mask} = ${} {op} {t}", a.name)));
                self.stmts.push(Stmt::Line(format!("${out} = ${}", a.name)));
                format!("${out}(~${mask}) = {}", constant(a.class, 1.0))
            }
        };
        self.stmts.push(Stmt::Line(line));
        self.outputs.push(out);
    }

    /// `len` random indices of `1..=n`, with repeats, as a MATLAB row literal.
    fn index_literal(&mut self, n: usize, len: usize) -> String {
        let picks: Vec<String> = (0..len)
            .map(|_| self.rng.gen_range(1..=n).to_string())
            .collect();
        format!("[{}]", picks.join(" "))
    }

    /// A gather `x(idx)` or a scatter `h(idx) = v` with repeated indices.
    pub(super) fn index_vectors(&mut self) {
        let inputs = self.vector_inputs(true);
        if inputs.is_empty() {
            return;
        }
        let (a, n) = self.pick(&inputs);
        let len = self.rng.gen_range(1..=4);
        let idx = self.index_literal(n, len);
        let out = self.fresh("g");
        if self.chance(0.5) {
            self.stmts
                .push(Stmt::Line(format!("${out} = ${}({idx})", a.name)));
        } else {
            self.stmts.push(Stmt::Line(format!("${out} = ${}", a.name)));
            let values: Vec<String> = (0..len).map(|k| (k + 1).to_string()).collect();
            let rhs = match a.class {
                ClassId::Double => format!("[{}]", values.join(" ")),
                c => format!("{}([{}])", c.name(), values.join(" ")),
            };
            self.stmts
                .push(Stmt::Line(format!("${out}({idx}) = {rhs}")));
        }
        self.outputs.push(out);
    }

    /// An array grown by indexed assignment inside a loop over an input's elements.
    pub(super) fn growth(&mut self) {
        let variant = self.rng.gen_range(0..3);
        // An array created by its first indexed assignment is undefined after a loop over no
        // elements, which Octave reports as an error: that form takes a non-empty input.
        let inputs = self.vector_inputs(variant == 2);
        if inputs.is_empty() {
            return;
        }
        let (a, _) = self.pick(&inputs);
        let g = self.fresh("w");
        let k = self.fresh("i");
        let size = format!("numel(${})", a.name);
        let zero = constant(a.class, 0.0);
        let body = match variant {
            0 => {
                self.stmts.push(Stmt::Line(format!("${g} = []")));
                vec![Stmt::If {
                    cond: format!("${}(${k}) > {zero}", a.name),
                    then: vec![Stmt::Line(format!("${g}(end+1) = ${}(${k})", a.name))],
                    otherwise: vec![],
                }]
            }
            1 => {
                self.stmts.push(Stmt::Line(format!(
                    "${g} = zeros(1, 0, '{}')",
                    a.class.name()
                )));
                vec![Stmt::Line(format!("${g} = [${g}, ${}(${k})]", a.name))]
            }
            _ => {
                // Created by its first indexed assignment, never preallocated.
                vec![Stmt::Line(format!("${g}(${k}) = ${}(${k})", a.name))]
            }
        };
        self.stmts.push(Stmt::For {
            var: format!("${k}"),
            range: format!("1:{size}"),
            body,
        });
        self.outputs.push(g);
    }

    /// Char literals compared, converted and switched on.
    pub(super) fn chars(&mut self) {
        let text = self.pick(&["hello world", "abcabc", "m2cu", "a", "zz top"]);
        let c = self.fresh("c");
        let out = self.fresh("t");
        self.stmts.push(Stmt::Line(format!("${c} = '{text}'")));
        let ch = self.pick(&["o", "a", "z", " "]);
        let line = match self.rng.gen_range(0..5) {
            0 => format!("${out} = sum(${c} == '{ch}')"),
            1 => format!("${out} = ${c} - 'a'"),
            2 => format!("${out} = double(${c}(end))"),
            3 => format!("${out} = ${c}(numel(${c}):-1:1)"),
            _ => {
                let mut arms = String::new();
                for (k, word) in ["hello world", "m2cu"].iter().enumerate() {
                    arms.push_str(&format!("case '{word}', ${out} = {k}; "));
                }
                format!("switch ${c}, {arms}otherwise, ${out} = -1; end")
            }
        };
        self.stmts.push(Stmt::Line(line));
        self.outputs.push(out);
    }
}
