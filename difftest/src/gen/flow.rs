//! Issue 15's control flow in generated programs, each switched on by a [`super::Features`]
//! flag and then present in a fraction of the cases:
//! - `nargin`: optional trailing parameters with their defaults (`if nargin < 3, p = 0.5; end`,
//!   `if ~exist('p', 'var') || isempty(p), ...`), the case called with fewer inputs than it
//!   declares (those not passed are [`Case::optional`](crate::program::Case::optional)), or
//!   with `[]` for one the `isempty` forms default;
//! - `errors`: input checks at the top of the body (`error(id, format, ...)` in an `if` or at
//!   some iteration of a loop, `assert` with and without a message) that fire on some inputs
//!   and not on others; the case is then marked [`Case::raises`](crate::program::Case::raises);
//! - `while`: while loops with counters, `break`, `continue` and short-circuit conditions.
//!
//! Invariants (those of the generator, see `super`): every subscript is in range (a `while`
//! reads `x(k)` only where its condition or an earlier `||`/`&&` operand has checked `k`),
//! every loop ends (its counter moves towards a bound each iteration), every value read is
//! assigned first, and only counts, comparisons and `max` are computed (exact in any order).

use m2cu::{ClassId, Value};
use rand::Rng;

use super::{class_limit, constant, Builder, Features};
use crate::program::Stmt;

impl Builder {
    /// The switched-on control-flow features.
    pub(super) fn flow(&mut self, features: Features) {
        if features.while_loops && self.chance(0.3) {
            self.while_loop();
        }
        if features.nargin && self.chance(0.2) {
            self.optional_inputs();
        }
        if features.errors && self.chance(0.25) {
            self.input_checks();
        }
    }

    /// One or two optional parameters after the inputs, each given a default when it is not
    /// passed (or passed empty), then used.
    fn optional_inputs(&mut self) {
        let count = self.rng.gen_range(1..=2);
        let passed = self.rng.gen_range(0..=count);
        for k in 0..count {
            let position = self.inputs.len() + self.optional.len() + 1;
            let p = self.fresh("p");
            let form = self.rng.gen_range(0..4);
            let cond = match form {
                0 => format!("nargin < {position}"),
                1 => format!("~exist('${p}', 'var')"),
                2 => format!("~exist('${p}', 'var') || isempty(${p})"),
                _ => format!("nargin < {position} || isempty(${p})"),
            };
            let default = self.pick(&["0.5", "3", "2", "-1"]);
            self.stmts.insert(
                k,
                Stmt::If {
                    cond,
                    then: vec![Stmt::Line(format!("${p} = {default}"))],
                    otherwise: vec![],
                },
            );
            if k < passed {
                let value = if form >= 2 && self.chance(0.3) {
                    Value::zeros(ClassId::Double, 0, 0)
                } else {
                    Value::scalar(self.pick(&[1.0f64, 4.0, 0.25, -2.0]))
                };
                self.inputs.push((p.clone(), value));
            } else {
                self.optional.push(p.clone());
            }
            self.use_optional(&p);
        }
    }

    /// An output computed from the optional parameter `p`.
    fn use_optional(&mut self, p: &str) {
        let out = self.fresh("q");
        let line = match self.masked_input() {
            Some((a, _)) if self.chance(0.6) => {
                if self.chance(0.5) {
                    format!("${out} = sum(${}(:) > ${p})", a.name)
                } else {
                    format!("${out} = numel(${}) + ${p}", a.name)
                }
            }
            _ => format!("${out} = ${p} * 2"),
        };
        self.stmts.push(Stmt::Line(line));
        self.outputs.push(out);
    }

    /// A check of an input at the top of the body that raises an error on some inputs.
    fn input_checks(&mut self) {
        let Some((a, t)) = self.masked_input() else {
            return;
        };
        let x = format!("${}", a.name);
        let k = self.fresh("k");
        let value = self.pick(&["%g", "%d"]);
        let check = match self.rng.gen_range(0..7) {
            0 => Stmt::For {
                var: format!("${k}"),
                range: format!("1:numel({x})"),
                body: vec![Stmt::If {
                    cond: format!("{x}(${k}) < {t}"),
                    then: vec![Stmt::Line(format!(
                        "error('difftest:range', 'element %d is {value}, below %g', ${k}, {x}(${k}), {t})"
                    ))],
                    otherwise: vec![],
                }],
            },
            1 => Stmt::If {
                cond: format!("any({x}(:) < {t})"),
                then: vec![Stmt::Line(format!(
                    "error('difftest:count', '%d of %d values are below %g', sum({x}(:) < {t}), numel({x}), {t})"
                ))],
                otherwise: vec![],
            },
            2 => {
                let n = self.pick(&[1, 2, 3, 33]);
                Stmt::Line(format!(
                    "assert(numel({x}) >= {n}, 'x needs at least %d elements, has %d', {n}, numel({x}))"
                ))
            }
            3 => Stmt::Line(format!("assert(all(isfinite({x}(:))), 'x must be finite')")),
            4 => Stmt::Line(format!(
                "assert(numel({x}) > {})",
                self.pick(&[0, 2, 5])
            )),
            5 => Stmt::For {
                var: format!("${k}"),
                range: format!("1:numel({x})"),
                body: vec![Stmt::If {
                    cond: format!("{x}(${k}) == {t}"),
                    then: vec![Stmt::Line(format!(
                        "error('found {value} at %d', {x}(${k}), ${k})"
                    ))],
                    otherwise: vec![],
                }],
            },
            _ => Stmt::If {
                cond: format!("isempty({x})"),
                then: vec![Stmt::Line(
                    "error('difftest:empty', 'the input is empty')".into(),
                )],
                otherwise: vec![],
            },
        };
        self.stmts.insert(0, check);
        self.raises = true;
    }

    /// A while loop over an input's elements.
    fn while_loop(&mut self) {
        let Some((a, t)) = self.masked_input() else {
            return;
        };
        let x = format!("${}", a.name);
        let k = self.fresh("k");
        let n = self.fresh("n");
        let limit = self.pick(&[1, 3, 10]);
        let inc = |v: &str| Stmt::Line(format!("${v} = ${v} + 1"));
        let outputs = match self.rng.gen_range(0..5) {
            0 => {
                self.stmts.push(Stmt::Line(format!("${k} = 1")));
                self.stmts.push(Stmt::While {
                    cond: format!("${k} <= numel({x}) && ~({x}(${k}) > {t})"),
                    body: vec![inc(&k)],
                });
                vec![k]
            }
            1 => {
                self.stmts.push(Stmt::Line(format!("${k} = 0")));
                self.stmts.push(Stmt::Line(format!("${n} = 0")));
                self.stmts.push(Stmt::While {
                    cond: format!("${k} < numel({x})"),
                    body: vec![
                        inc(&k),
                        Stmt::If {
                            cond: format!("{x}(${k}) < {t}"),
                            then: vec![Stmt::Line("continue".into())],
                            otherwise: vec![],
                        },
                        inc(&n),
                        Stmt::If {
                            cond: format!("${n} >= {limit}"),
                            then: vec![Stmt::Line("break".into())],
                            otherwise: vec![],
                        },
                    ],
                });
                vec![k, n]
            }
            2 => {
                let low = if a.class == ClassId::Double || a.class == ClassId::Single {
                    constant(a.class, f64::NEG_INFINITY)
                } else {
                    class_limit(a.class, false)
                };
                self.stmts.push(Stmt::Line(format!("${k} = 0")));
                self.stmts.push(Stmt::Line(format!("${n} = {low}")));
                self.stmts.push(Stmt::While {
                    cond: "true".into(),
                    body: vec![
                        inc(&k),
                        Stmt::If {
                            cond: format!("${k} > numel({x}) || {x}(${k}) == {t}"),
                            then: vec![Stmt::Line("break".into())],
                            otherwise: vec![],
                        },
                        Stmt::Line(format!("${n} = max(${n}, {x}(${k}))")),
                    ],
                });
                vec![k, n]
            }
            3 => {
                let extra = self.pick(&[0, 1, 7]);
                self.stmts
                    .push(Stmt::Line(format!("${k} = numel({x}) + {extra}")));
                self.stmts.push(Stmt::Line(format!("${n} = 0")));
                self.stmts.push(Stmt::While {
                    cond: format!("${k} > 1"),
                    body: vec![Stmt::Line(format!("${k} = floor(${k} / 2)")), inc(&n)],
                });
                vec![k, n]
            }
            _ => {
                self.stmts.push(Stmt::Line(format!("${k} = numel({x})")));
                self.stmts.push(Stmt::Line(format!("${n} = 0")));
                self.stmts.push(Stmt::While {
                    cond: format!("${k} >= 1 && (${n} < {limit} || mod(${k}, 3) ~= 0)"),
                    body: vec![
                        Stmt::If {
                            cond: format!("{x}(${k}) > {t}"),
                            then: vec![inc(&n)],
                            otherwise: vec![],
                        },
                        Stmt::Line(format!("${k} = ${k} - 1")),
                    ],
                });
                vec![k, n]
            }
        };
        self.outputs.extend(outputs);
    }
}
