//! The random program generator: loop nests over one or two extents with random bounds, steps
//! and affine subscripts, bodies of maps, conditionals, private temporaries and reductions of
//! every kind m2cu recognizes (sum, product, min/max, min/max with location, count, logical and
//! bitwise and/or/xor, histograms, per-output reductions inside an outer loop), over every
//! numeric class, plus a few array-language builtins.
//!
//! Invariants, which make every generated program valid MATLAB whose result is defined:
//! - every subscript is in range: a loop variable bound to an extent `e` takes values in
//!   `[lo, hi] ⊆ [1, e]`, and a read at offset `c` is generated only when `[lo+c, hi+c] ⊆ [1, e]`;
//! - every variable is assigned before it is read, and keeps one class (accumulators are
//!   initialized in the class of what they accumulate);
//! - integer classes are never mixed with each other in one operation (MATLAB's error);
//! - a floating sum or product is only generated when it is exact in any order ([`Bits`]), so
//!   a correct parallel reduction equals Octave's sequential loop bit for bit.

use m2cu::{ClassId, Value};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

use crate::program::{Case, Stmt};
use crate::values::{self, Profile, Shape};

mod flow;
mod guard;
mod language;
mod vectors;

pub use guard::{int_expr, random_expr, Features};

/// Generates case `index` of the run with `seed`, without the guard's features; the same pair
/// always gives the same case.
pub fn case(seed: u64, index: u64) -> Case {
    case_with(seed, index, Features::default())
}

/// Case `index` of the run with `seed`, with the guard `features` switched on (see [`guard`]).
pub fn case_with(seed: u64, index: u64, features: Features) -> Case {
    let mixed =
        seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03);
    let mut b = Builder::new(StdRng::seed_from_u64(mixed));
    b.body();
    let renames = b.guard(features);
    let rename = |n: &String| renames.get(n).cloned().unwrap_or_else(|| n.clone());
    Case {
        name: format!("p{seed}_{index}"),
        inputs: b
            .inputs
            .iter()
            .map(|(n, v)| (rename(n), v.clone()))
            .collect(),
        dynamic: b.dynamic,
        outputs: b.outputs.iter().map(rename).collect(),
        body: guard::rename_body(&b.stmts, &renames),
        alone: !renames.is_empty() || !b.optional.is_empty(),
        optional: b.optional,
        raises: b.raises,
    }
}

/// What is known of a floating expression's values, to decide whether sums and products of it
/// are exact in any order: finite values are multiples of `2^-frac` below `2^mag`.
#[derive(Clone, Copy, Debug)]
struct Bits {
    mag: i32,
    frac: i32,
    /// Every finite value is 0 or ±2^k (products of these are exact).
    pow2: bool,
    /// `false` once an operation may round.
    exact: bool,
}

impl Bits {
    const INEXACT: Bits = Bits {
        mag: 64,
        frac: 64,
        pow2: false,
        exact: false,
    };

    fn int(mag: i32) -> Bits {
        Bits {
            mag,
            frac: 0,
            pow2: false,
            exact: true,
        }
    }

    fn join(a: Bits, b: Bits, mag: i32, frac: i32) -> Bits {
        Bits {
            mag,
            frac,
            pow2: false,
            exact: a.exact && b.exact && mag + frac <= 50,
        }
    }

    fn add(a: Bits, b: Bits) -> Bits {
        Bits::join(a, b, a.mag.max(b.mag) + 1, a.frac.max(b.frac))
    }

    fn mul(a: Bits, b: Bits) -> Bits {
        Bits {
            pow2: a.pow2 && b.pow2,
            ..Bits::join(a, b, a.mag + b.mag, a.frac + b.frac)
        }
    }

    fn either(a: Bits, b: Bits) -> Bits {
        Bits {
            pow2: a.pow2 && b.pow2,
            ..Bits::join(a, b, a.mag.max(b.mag), a.frac.max(b.frac))
        }
    }

    /// Whether a sum of `terms` such values is exact in a class with `mantissa` bits.
    fn sums_exactly(self, terms: usize, mantissa: i32) -> bool {
        let grow = (usize::BITS - terms.leading_zeros()) as i32;
        self.exact && self.mag + self.frac + grow < mantissa
    }
}

/// A typed expression.
#[derive(Clone, Debug)]
struct Expr {
    text: String,
    bits: Bits,
}

/// An array the body may read: an input, or an output once it has been allocated.
#[derive(Clone, Debug)]
struct Array {
    name: String,
    class: ClassId,
    /// Extent ids of its dimensions: one for a vector, two (rows, cols) for a matrix.
    extents: Vec<usize>,
    bits: Bits,
    /// It may hold NaN (then it cannot give histogram bins).
    input: bool,
}

/// A loop variable in scope: bound to extent `extent`, taking values in `[lo, hi]`.
#[derive(Clone, Debug)]
struct LoopVar {
    name: String,
    extent: usize,
    lo: i64,
    hi: i64,
}

/// A scalar in scope with its class.
#[derive(Clone, Debug)]
struct Scalar {
    name: String,
    class: ClassId,
    bits: Bits,
}

#[derive(Clone, Debug, Default)]
struct Scope {
    vars: Vec<LoopVar>,
    scalars: Vec<Scalar>,
}

/// Where a reduction goes: its accumulator is declared in `decls` (before the nest, or before
/// the inner loop of a per-output reduction) and updated in `body`, with `scope` in scope.
struct Site<'a> {
    decls: &'a mut Vec<Stmt>,
    scope: &'a Scope,
    body: &'a mut Vec<Stmt>,
}

struct Builder {
    rng: StdRng,
    /// The case's extents: `[len]` or `[rows, cols]`.
    extents: Vec<i64>,
    /// Classes the case works in: data arrays and accumulators use these.
    classes: Vec<ClassId>,
    arrays: Vec<Array>,
    inputs: Vec<(String, Value)>,
    outputs: Vec<String>,
    stmts: Vec<Stmt>,
    names: usize,
    /// Whether the generated loops may `break`.
    breaks: bool,
    /// Parameters after the inputs that the call does not pass (`flow::optional_inputs`).
    optional: Vec<String>,
    /// Whether the body may raise an intended error (`flow::input_checks`).
    raises: bool,
    /// Whether m2cu sees sizes known only at run time (always for length-1 vectors, which it
    /// would otherwise type as scalars and refuse to index with a loop variable).
    dynamic: bool,
}

const LENGTHS: [i64; 18] = [
    0, 1, 2, 3, 5, 7, 31, 32, 33, 63, 64, 65, 100, 255, 257, 1023, 1024, 1025,
];
/// At most this many iterations in a nest (Octave interprets them).
const MAX_TRIPS: usize = 40_000;
const SIDES: [i64; 9] = [1, 2, 3, 5, 8, 31, 32, 33, 40];
const NUMERIC: [ClassId; 10] = [
    ClassId::Double,
    ClassId::Double,
    ClassId::Double,
    ClassId::Single,
    ClassId::Int8,
    ClassId::Int16,
    ClassId::Int32,
    ClassId::Int64,
    ClassId::Uint8,
    ClassId::Uint32,
];
const UNSIGNED: [ClassId; 4] = [
    ClassId::Uint8,
    ClassId::Uint16,
    ClassId::Uint32,
    ClassId::Uint64,
];

fn is_float(c: ClassId) -> bool {
    matches!(c, ClassId::Double | ClassId::Single)
}

fn is_unsigned(c: ClassId) -> bool {
    UNSIGNED.contains(&c)
}

fn mantissa(c: ClassId) -> i32 {
    if c == ClassId::Single {
        24
    } else {
        53
    }
}

/// `intmax('<class>')` (`max`) or `intmin('<class>')` of an integer class.
fn class_limit(class: ClassId, max: bool) -> String {
    format!("int{}('{}')", if max { "max" } else { "min" }, class.name())
}

/// A constant of class `c` (MATLAB spelling).
fn constant(c: ClassId, v: f64) -> String {
    match c {
        ClassId::Double => format_number(v),
        other => format!("{}({})", other.name(), format_number(v)),
    }
}

fn format_number(v: f64) -> String {
    if v.is_infinite() {
        if v > 0.0 { "Inf" } else { "-Inf" }.to_string()
    } else {
        format!("{v}")
    }
}

impl Builder {
    fn new(mut rng: StdRng) -> Builder {
        let extents = if rng.gen_bool(0.6) {
            vec![*LENGTHS.choose(&mut rng).expect("non-empty")]
        } else {
            let rows = *SIDES.choose(&mut rng).expect("non-empty");
            let cols = *SIDES.choose(&mut rng).expect("non-empty");
            vec![rows, cols]
        };
        let main = *NUMERIC.choose(&mut rng).expect("non-empty");
        let mut classes = vec![main];
        if rng.gen_bool(0.4) {
            classes.push(
                *[
                    ClassId::Double,
                    main,
                    *UNSIGNED.choose(&mut rng).expect("u"),
                ]
                .choose(&mut rng)
                .expect("non-empty"),
            );
        }
        let dynamic = extents.contains(&1) || rng.gen_bool(0.5);
        Builder {
            dynamic,
            rng,
            extents,
            classes,
            arrays: Vec::new(),
            inputs: Vec::new(),
            outputs: Vec::new(),
            stmts: Vec::new(),
            names: 0,
            breaks: false,
            optional: Vec::new(),
            raises: false,
        }
    }

    fn fresh(&mut self, stem: &str) -> String {
        self.names += 1;
        format!("{stem}{}", self.names)
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.gen_bool(p)
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items
            .choose(&mut self.rng)
            .expect("non-empty choice")
            .clone()
    }

    // ---- inputs ----

    fn body(&mut self) {
        self.make_inputs();
        let blocks = self.rng.gen_range(1..=3);
        for _ in 0..blocks {
            if self.chance(0.12) {
                self.builtin();
            } else {
                self.block();
            }
        }
        for _ in 0..5 {
            if !self.outputs.is_empty() {
                return;
            }
            self.block();
        }
        if self.outputs.is_empty() {
            self.stmts.push(Stmt::Line("$z = 0".into()));
            self.outputs.push("z".into());
        }
    }

    fn make_inputs(&mut self) {
        let classes = self.classes.clone();
        for class in classes {
            let extents = self.array_extents();
            self.input(class, extents);
        }
        if self.chance(0.5) {
            let class = self.classes[0];
            let extents = self.array_extents();
            self.input(class, extents);
        }
        if self.chance(0.2) {
            let extents = self.array_extents();
            self.input(ClassId::Logical, extents);
        }
    }

    /// The extents of a new array: a vector over one extent or the whole matrix.
    fn array_extents(&mut self) -> Vec<usize> {
        match self.extents.len() {
            1 => vec![0],
            _ if self.chance(0.7) => vec![0, 1],
            _ => vec![self.rng.gen_range(0..2)],
        }
    }

    fn input(&mut self, class: ClassId, extents: Vec<usize>) {
        let name = self.fresh(if class == ClassId::Logical { "b" } else { "x" });
        let profile = self.pick(&[
            Profile::General,
            Profile::General,
            Profile::Ties,
            Profile::Factors,
            Profile::Extremes,
        ]);
        let (rows, cols) = self.shape_of(&extents);
        let specials = self.chance(0.35);
        let shape = Shape {
            rows,
            cols,
            profile,
            specials,
        };
        let value = values::sample(&mut self.rng, class, shape);
        let bits = match (class, profile) {
            (c, _) if !is_float(c) => Bits::INEXACT,
            (_, Profile::Factors) => Bits {
                mag: 1,
                frac: 1,
                pow2: true,
                exact: true,
            },
            _ => Bits {
                mag: 4,
                frac: 2,
                pow2: false,
                exact: true,
            },
        };
        self.inputs.push((name.clone(), value));
        self.arrays.push(Array {
            name,
            class,
            extents,
            bits,
            input: true,
        });
    }

    /// Rows and columns of an array over `extents`; a vector is a row or a column at random.
    fn shape_of(&mut self, extents: &[usize]) -> (usize, usize) {
        let len = |e: usize| self.extents[e] as usize;
        match extents {
            [e] if self.extents.len() == 2 => {
                if *e == 0 {
                    (len(0), 1)
                } else {
                    (1, len(1))
                }
            }
            [e] => {
                if self.rng.gen_bool(0.7) {
                    (1, len(*e))
                } else {
                    (len(*e), 1)
                }
            }
            _ => (len(0), len(1)),
        }
    }

    /// `zeros(...)` for an output over `extents` of class `class`, its sizes literals or the
    /// sizes of inputs.
    fn allocation(&mut self, extents: &[usize], class: ClassId) -> String {
        let dims = match extents {
            [e] if self.extents.len() == 2 && *e == 0 => format!("{}, 1", self.size_text(0)),
            [e] => format!("1, {}", self.size_text(*e)),
            _ => format!("{}, {}", self.size_text(0), self.size_text(1)),
        };
        match class {
            ClassId::Double => format!("zeros({dims})"),
            ClassId::Logical => format!("false({dims})"),
            c => format!("zeros({dims}, '{}')", c.name()),
        }
    }

    // ---- blocks: declarations, then one loop nest ----

    fn block(&mut self) {
        let mut before = Vec::new();
        let mut scope = Scope::default();
        self.breaks = self.chance(0.08);
        let nest = self.loop_nest(&mut before, &mut scope, 0);
        self.stmts.append(&mut before);
        self.stmts.push(nest);
    }

    /// A loop over a random extent with random bounds, its body generated in the new scope.
    /// Declarations the body needs (accumulators, outputs) go to `before`.
    fn loop_nest(&mut self, before: &mut Vec<Stmt>, scope: &mut Scope, depth: usize) -> Stmt {
        let var = self.loop_var(scope);
        let range = self.range_text(&var, scope, before);
        let mut inner = scope.clone();
        inner.vars.push(var.clone());
        let mut body = Vec::new();
        let count = self.rng.gen_range(1..=3);
        for _ in 0..count {
            self.statement(before, &mut inner, &mut body, depth);
        }
        if self.breaks && depth == 0 && self.chance(0.5) {
            self.exit(before, &inner, &mut body);
        }
        Stmt::For {
            var: format!("${}", var.name),
            range,
            body,
        }
    }

    fn loop_var(&mut self, scope: &Scope) -> LoopVar {
        let unbound: Vec<usize> = (0..self.extents.len())
            .filter(|e| !scope.vars.iter().any(|v| v.extent == *e))
            .collect();
        let extent = if unbound.is_empty() {
            self.rng.gen_range(0..self.extents.len())
        } else {
            self.pick(&unbound)
        };
        let e = self.extents[extent];
        let p = self.pick(&[0, 0, 0, 1, 2]);
        let q = self.pick(&[0, 0, 0, 1, 2]);
        let name = self.fresh(["i", "j", "k"][scope.vars.len().min(2)]);
        LoopVar {
            name,
            extent,
            lo: 1 + p,
            hi: e - q,
        }
    }

    /// The range of `var`: ascending, strided or descending over `[lo, hi]`, its upper end a
    /// literal or the size of an input, its lower end sometimes a scalar assigned before the
    /// nest (a symbolic start, `s = 2; for i = s:n`), and sometimes starting at an outer
    /// variable (triangular), which then becomes its lower bound.
    fn range_text(&mut self, var: &LoopVar, scope: &Scope, before: &mut Vec<Stmt>) -> String {
        let lo = if self.chance(0.25) {
            let s = self.fresh("s");
            before.push(Stmt::Line(format!("${s} = {}", var.lo)));
            format!("${s}")
        } else {
            var.lo.to_string()
        };
        let hi = self.extent_text(var.extent, var.hi);
        match self.rng.gen_range(0..10) {
            0 | 1 => format!("{hi}:-1:{lo}"),
            2 => format!("{lo}:2:{hi}"),
            3 => format!("{hi}:-3:{lo}"),
            4 => {
                // Triangular: start at an outer variable over the same extent and bounds.
                let outer = scope
                    .vars
                    .iter()
                    .find(|v| v.extent == var.extent && v.lo == var.lo);
                match outer {
                    Some(o) => format!("${}:{hi}", o.name),
                    None => format!("{lo}:{hi}"),
                }
            }
            _ => format!("{lo}:{hi}"),
        }
    }

    /// `value`, spelled as a literal or as `numel`/`size` of an input minus a constant.
    fn extent_text(&mut self, extent: usize, value: i64) -> String {
        let minus = self.extents[extent] - value;
        match self.size_source(extent) {
            Some(s) if minus == 0 && self.rng.gen_bool(0.6) => s,
            Some(s) if minus != 0 && self.rng.gen_bool(0.6) => format!("{s} - {minus}"),
            _ => value.to_string(),
        }
    }

    /// The whole extent `extent`, as a literal or the size of an input.
    fn size_text(&mut self, extent: usize) -> String {
        let full = self.extents[extent];
        self.extent_text(extent, full)
    }

    /// `numel` or `size` of an input whose extent is `extent`.
    fn size_source(&self, extent: usize) -> Option<String> {
        self.arrays
            .iter()
            .find(|a| a.input && a.extents.len() == 1 && a.extents[0] == extent)
            .map(|a| format!("numel(${})", a.name))
            .or_else(|| {
                self.arrays
                    .iter()
                    .find(|a| a.input && a.extents.len() == 2)
                    .map(|a| format!("size(${}, {})", a.name, extent + 1))
            })
    }

    // ---- statements ----

    fn statement(
        &mut self,
        before: &mut Vec<Stmt>,
        scope: &mut Scope,
        body: &mut Vec<Stmt>,
        depth: usize,
    ) {
        match self.rng.gen_range(0..12) {
            0..=3 => {
                self.accumulator(&mut Site {
                    decls: before,
                    scope,
                    body,
                });
            }
            4..=6 => self.map(before, scope, body),
            7 => self.temporary(scope, body),
            8 => self.conditional(before, scope, body),
            _ if depth < 2 && self.trips(scope) * self.longest() <= MAX_TRIPS => {
                self.inner_nest(before, scope, body, depth)
            }
            _ => self.map(before, scope, body),
        }
    }

    /// `if cond ... else ... end` around reductions and maps.
    fn conditional(&mut self, before: &mut Vec<Stmt>, scope: &mut Scope, body: &mut Vec<Stmt>) {
        let cond = self.condition(scope, 2);
        let mut then = Vec::new();
        let mut otherwise = Vec::new();
        let mut inner = scope.clone();
        self.reduction_or_map(before, &mut inner, &mut then);
        if self.chance(0.4) {
            let mut inner = scope.clone();
            self.reduction_or_map(before, &mut inner, &mut otherwise);
        }
        body.push(Stmt::If {
            cond,
            then,
            otherwise,
        });
    }

    fn reduction_or_map(
        &mut self,
        before: &mut Vec<Stmt>,
        scope: &mut Scope,
        body: &mut Vec<Stmt>,
    ) {
        if self.chance(0.6) {
            self.accumulator(&mut Site {
                decls: before,
                scope,
                body,
            });
        } else {
            self.map(before, scope, body);
        }
    }

    /// A nested loop; half the time with accumulators local to the outer iteration that are
    /// written to an output after it (a reduction per output: row sums, column maxima, dots).
    fn inner_nest(
        &mut self,
        before: &mut Vec<Stmt>,
        scope: &mut Scope,
        body: &mut Vec<Stmt>,
        depth: usize,
    ) {
        if !self.chance(0.5) {
            let nest = self.loop_nest(before, scope, depth + 1);
            body.push(nest);
            return;
        }
        // Per output: `acc = init; for ... acc = acc op e; end; out(outer) = acc;`
        let mut local = Vec::new();
        let var = self.loop_var(scope);
        let range = self.range_text(&var, scope, before);
        let mut inner = scope.clone();
        inner.vars.push(var.clone());
        let mut inner_body = Vec::new();
        let declared = self.outputs.len();
        let acc = self.accumulator(&mut Site {
            decls: &mut local,
            scope: &inner,
            body: &mut inner_body,
        });
        // Reset in every outer iteration, the accumulators are not outputs themselves (a loop
        // that runs no iteration would leave them unassigned).
        self.outputs.truncate(declared);
        body.append(&mut local);
        body.push(Stmt::For {
            var: format!("${}", var.name),
            range,
            body: inner_body,
        });
        if let Some(acc) = acc {
            let extents = self.covered_extents(scope);
            if let Some(target) = self.output_for(before, scope, &extents, acc.class) {
                body.push(Stmt::Line(format!("{target} = ${}", acc.name)));
            }
        }
    }

    /// `$t = e;`: a temporary private to the iteration, usable by later statements; sometimes
    /// taken from a small row the iteration builds first (`$w = [e1, e2, e3]; $t = $w(2)`), a
    /// scratch array each iteration owns.
    fn temporary(&mut self, scope: &mut Scope, body: &mut Vec<Stmt>) {
        let class = self.pick(&self.classes.clone());
        let name = self.fresh("t");
        let e = if self.chance(0.3) {
            let parts: Vec<Expr> = (0..3).map(|_| self.expr(class, scope, 1)).collect();
            let row = self.fresh("w");
            let texts: Vec<&str> = parts.iter().map(|p| p.text.as_str()).collect();
            body.push(Stmt::Line(format!("${row} = [{}]", texts.join(", "))));
            let k = self.rng.gen_range(0..3);
            Expr {
                text: format!("${row}({})", k + 1),
                bits: parts[k].bits,
            }
        } else {
            self.expr(class, scope, 2)
        };
        body.push(Stmt::Line(format!("${name} = {}", e.text)));
        scope.scalars.push(Scalar {
            name,
            class,
            bits: e.bits,
        });
    }

    /// `if cond, f = i; break; end` with `f` an output set to 0 before the loop.
    fn exit(&mut self, before: &mut Vec<Stmt>, scope: &Scope, body: &mut Vec<Stmt>) {
        let var = scope.vars.last().expect("inside a loop").name.clone();
        let f = self.fresh("f");
        before.push(Stmt::Line(format!("${f} = 0")));
        self.outputs.push(f.clone());
        let cond = self.condition(scope, 1);
        body.push(Stmt::If {
            cond,
            then: vec![
                Stmt::Line(format!("${f} = ${var}")),
                Stmt::Line("break".into()),
            ],
            otherwise: vec![],
        });
    }

    /// `$y(sub) = e;` into an output over the loop variables in scope (sometimes at an offset,
    /// sometimes reading outputs written earlier: loop-carried dependences).
    fn map(&mut self, before: &mut Vec<Stmt>, scope: &mut Scope, body: &mut Vec<Stmt>) {
        let class = self.pick(&self.classes.clone());
        let extents = self.covered_extents(scope);
        let e = self.expr(class, scope, 3);
        if let Some(target) = self.output_for(before, scope, &extents, class) {
            body.push(Stmt::Line(format!("{target} = {}", e.text)));
        }
    }

    /// The extents of an output written in `scope`: those of the innermost variables, one per
    /// extent.
    fn covered_extents(&self, scope: &Scope) -> Vec<usize> {
        let mut extents: Vec<usize> = scope.vars.iter().map(|v| v.extent).collect();
        extents.sort();
        extents.dedup();
        extents
    }

    /// An element of an output (a new one, or an existing one of this class and extents) at
    /// subscripts over the variables in scope. `None` when no variable covers the extents.
    fn output_for(
        &mut self,
        before: &mut Vec<Stmt>,
        scope: &Scope,
        extents: &[usize],
        class: ClassId,
    ) -> Option<String> {
        if extents.is_empty() {
            return None;
        }
        let existing: Vec<Array> = self
            .arrays
            .iter()
            .filter(|a| !a.input && a.class == class && a.extents == extents)
            .cloned()
            .collect();
        let array = if !existing.is_empty() && self.chance(0.3) {
            self.pick(&existing)
        } else {
            let name = self.fresh("y");
            before.push(Stmt::Line(format!(
                "${name} = {}",
                self.allocation(extents, class)
            )));
            self.outputs.push(name.clone());
            let array = Array {
                name,
                class,
                extents: extents.to_vec(),
                bits: if is_float(class) {
                    Bits::int(0)
                } else {
                    Bits::INEXACT
                },
                input: false,
            };
            self.arrays.push(array.clone());
            array
        };
        let offset_allowed = self.chance(0.15);
        let subs: Option<Vec<String>> = array
            .extents
            .iter()
            .map(|&e| self.subscript(scope, e, offset_allowed, false))
            .collect();
        // Floating outputs written by maps may hold anything: reads of them are not exact.
        if let Some(a) = self.arrays.iter_mut().find(|a| a.name == array.name) {
            a.bits = Bits::INEXACT;
        }
        Some(format!("${}({})", array.name, subs?.join(", ")))
    }

    /// A subscript for extent `e` from a variable in scope bound to it: the variable, the
    /// variable plus an in-range offset, or the mirrored `e - v + 1`.
    fn subscript(
        &mut self,
        scope: &Scope,
        e: usize,
        offsets: bool,
        mirror: bool,
    ) -> Option<String> {
        let vars: Vec<LoopVar> = scope
            .vars
            .iter()
            .filter(|v| v.extent == e)
            .cloned()
            .collect();
        let v = self.pick(vars.last().map(std::slice::from_ref)?);
        let full = self.extents[e];
        if mirror && self.chance(0.15) {
            return Some(format!("{} - ${} + 1", full, v.name));
        }
        if offsets && v.lo <= v.hi {
            let low = (1 - v.lo).max(-2);
            let high = (full - v.hi).min(2);
            if low <= high {
                let c = self.rng.gen_range(low..=high);
                return Some(match c {
                    0 => format!("${}", v.name),
                    c if c > 0 => format!("${} + {c}", v.name),
                    c => format!("${} - {}", v.name, -c),
                });
            }
        }
        Some(format!("${}", v.name))
    }

    // ---- reductions ----

    /// Declares an accumulator in `decls` and updates it in `body`; returns it.
    fn accumulator(&mut self, site: &mut Site) -> Option<Scalar> {
        let class = self.pick(&self.classes.clone());
        match self.rng.gen_range(0..11) {
            0..=2 => self.sum(site, class),
            3 => self.product(site, class),
            4 | 5 => self.extremum(site, class),
            6 | 7 => self.located(site, class),
            8 => self.count(site),
            9 => self.logical(site),
            _ if self.chance(0.5) => self.bitwise(site),
            _ => self.histogram(site),
        }
    }

    /// The longest extent of the case.
    fn longest(&self) -> usize {
        self.extents.iter().copied().max().unwrap_or(0) as usize
    }

    /// An upper bound on the iterations of the nest in scope.
    fn trips(&self, scope: &Scope) -> usize {
        scope
            .vars
            .iter()
            .map(|v| (v.hi - v.lo + 1).max(1) as usize)
            .product()
    }

    fn declare(
        &mut self,
        decls: &mut Vec<Stmt>,
        stem: &str,
        init: String,
        class: ClassId,
    ) -> Scalar {
        let name = self.fresh(stem);
        decls.push(Stmt::Line(format!("${name} = {init}")));
        self.outputs.push(name.clone());
        Scalar {
            name,
            class,
            bits: Bits::INEXACT,
        }
    }

    fn sum(&mut self, site: &mut Site, class: ClassId) -> Option<Scalar> {
        let trips = self.trips(site.scope);
        let e = self.expr(class, site.scope, 2);
        let exact = |e: &Expr| !is_float(class) || e.bits.sums_exactly(trips, mantissa(class));
        let e = if exact(&e) {
            e
        } else {
            self.read(class, site.scope)?
        };
        if !exact(&e) {
            return None;
        }
        let init = constant(class, self.pick(&[0.0, 0.0, 0.0, 1.0, -3.0, 0.5]));
        let s = self.declare(site.decls, "s", init, class);
        let update = match self.rng.gen_range(0..4) {
            0 => format!("${n} = {e} + ${n}", n = s.name, e = e.text),
            1 => format!("${n} = ${n} - {e}", n = s.name, e = e.text),
            _ => format!("${n} = ${n} + {e}", n = s.name, e = e.text),
        };
        site.body.push(Stmt::Line(update));
        Some(s)
    }

    fn product(&mut self, site: &mut Site, class: ClassId) -> Option<Scalar> {
        let e = self.read(class, site.scope)?;
        if is_float(class) && !e.bits.pow2 {
            return None;
        }
        let init = constant(class, self.pick(&[1.0, 1.0, -2.0]));
        let p = self.declare(site.decls, "p", init, class);
        site.body.push(Stmt::Line(format!(
            "${n} = ${n} * {e}",
            n = p.name,
            e = e.text
        )));
        Some(p)
    }

    /// `m = max(m, e)` or `m = min(e, m)`: NaN-skipping.
    fn extremum(&mut self, site: &mut Site, class: ClassId) -> Option<Scalar> {
        let e = self.expr(class, site.scope, 2);
        let f = self.pick(&["max", "min"]);
        let init = self.extremum_init(class, f == "max");
        let m = self.declare(site.decls, "m", init, class);
        let update = if self.chance(0.5) {
            format!("${n} = {f}(${n}, {e})", n = m.name, e = e.text)
        } else {
            format!("${n} = {f}({e}, ${n})", n = m.name, e = e.text)
        };
        site.body.push(Stmt::Line(update));
        Some(m)
    }

    /// A start value for a max (`for_max`) or min: the identity, 0, NaN, or a data element.
    fn extremum_init(&mut self, class: ClassId, for_max: bool) -> String {
        let identity = if is_float(class) {
            constant(
                class,
                if for_max {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                },
            )
        } else {
            class_limit(class, !for_max)
        };
        let first = self
            .arrays
            .iter()
            .find(|a| a.input && a.class == class && a.extents.iter().all(|&e| self.extents[e] > 0))
            .map(|a| format!("${}(1)", a.name));
        match self.rng.gen_range(0..6) {
            0 => constant(class, 0.0),
            1 if is_float(class) => constant(class, f64::NAN),
            2 | 3 => first.unwrap_or(identity),
            _ => identity,
        }
    }

    /// `if e > m, m = e; k = i; end` (any of `> < >= <=`): min/max with location.
    fn located(&mut self, site: &mut Site, class: ClassId) -> Option<Scalar> {
        let e = self.expr(class, site.scope, 1);
        let op = self.pick(&[">", "<", ">", "<", ">=", "<="]);
        let init = self.extremum_init(class, op.starts_with('>'));
        let m = self.declare(site.decls, "m", init, class);
        let k = self.declare(site.decls, "k", "0".into(), ClassId::Double);
        let location = self.location(site.scope);
        site.body.push(Stmt::If {
            cond: format!("{} {op} ${}", e.text, m.name),
            then: vec![
                Stmt::Line(format!("${} = {}", m.name, e.text)),
                Stmt::Line(format!("${} = {location}", k.name)),
            ],
            otherwise: vec![],
        });
        Some(m)
    }

    /// The iteration's position: the innermost variable, or a linear index over two.
    fn location(&mut self, scope: &Scope) -> String {
        match scope.vars.as_slice() {
            [.., a, b] if a.extent != b.extent && self.chance(0.6) => {
                let (row, col) = if a.extent == 0 { (a, b) } else { (b, a) };
                format!("${} + {} * (${} - 1)", row.name, self.extents[0], col.name)
            }
            [.., v] => format!("${}", v.name),
            [] => "0".into(),
        }
    }

    fn count(&mut self, site: &mut Site) -> Option<Scalar> {
        let cond = self.condition(site.scope, 2);
        let c = self.declare(site.decls, "c", "0".into(), ClassId::Double);
        site.body.push(Stmt::If {
            cond,
            then: vec![Stmt::Line(format!("${n} = ${n} + 1", n = c.name))],
            otherwise: vec![],
        });
        Some(c)
    }

    /// `a = a && cond`, `a = a & cond`, `o = o || cond`, `o = cond | o`.
    fn logical(&mut self, site: &mut Site) -> Option<Scalar> {
        let cond = self.condition(site.scope, 2);
        let all = self.chance(0.5);
        let init = if all == self.chance(0.85) {
            "true"
        } else {
            "false"
        };
        let a = self.declare(
            site.decls,
            if all { "a" } else { "o" },
            init.into(),
            ClassId::Logical,
        );
        let op = match (all, self.chance(0.5)) {
            (true, true) => "&&",
            (true, false) => "&",
            (false, true) => "||",
            (false, false) => "|",
        };
        let update = if self.chance(0.7) {
            format!("${n} = ${n} {op} ({cond})", n = a.name)
        } else {
            format!("${n} = ({cond}) {op} ${n}", n = a.name)
        };
        site.body.push(Stmt::Line(update));
        Some(a)
    }

    fn bitwise(&mut self, site: &mut Site) -> Option<Scalar> {
        let class = self
            .classes
            .iter()
            .copied()
            .find(|&c| is_unsigned(c))
            .unwrap_or(ClassId::Uint32);
        let e = self.expr(class, site.scope, 1);
        let f = self.pick(&["bitand", "bitor", "bitxor"]);
        let init = if f == "bitand" && self.chance(0.8) {
            class_limit(class, true)
        } else {
            constant(class, self.pick(&[0.0, 0.0, 5.0]))
        };
        let b = self.declare(site.decls, "w", init, class);
        site.body.push(Stmt::Line(format!(
            "${n} = {f}(${n}, {e})",
            n = b.name,
            e = e.text
        )));
        Some(b)
    }

    /// `h(bin) = h(bin) + 1` with `bin = mod(integer, nb) + 1` from the loop variables or a
    /// small integer input.
    fn histogram(&mut self, site: &mut Site) -> Option<Scalar> {
        let bins = self.pick(&[2, 4, 7, 16, 256]);
        let small_int = [
            ClassId::Int8,
            ClassId::Int16,
            ClassId::Int32,
            ClassId::Uint8,
            ClassId::Uint32,
        ];
        let source = self
            .classes
            .clone()
            .into_iter()
            .find(|c| small_int.contains(c))
            .and_then(|c| self.read(c, site.scope))
            .filter(|_| self.chance(0.6))
            .map(|e| format!("double({})", e.text))
            .unwrap_or_else(|| {
                let vars: Vec<String> = site
                    .scope
                    .vars
                    .iter()
                    .map(|v| format!("${}", v.name))
                    .collect();
                vars.join(" * 3 + ")
            });
        let h = self
            .declare(
                site.decls,
                "h",
                format!("zeros(1, {bins})"),
                ClassId::Double,
            )
            .name;
        let bin = format!("mod({source}, {bins}) + 1");
        if self.chance(0.5) {
            let t = self.fresh("t");
            site.body.push(Stmt::Line(format!("${t} = {bin}")));
            site.body
                .push(Stmt::Line(format!("${h}(${t}) = ${h}(${t}) + 1")));
        } else {
            site.body
                .push(Stmt::Line(format!("${h}({bin}) = ${h}({bin}) + 1")));
        }
        None
    }

    // ---- array-language builtins ----

    /// `sum`, `prod`, `max`, `min` (with location), `any`, `all` of a whole input vector.
    fn builtin(&mut self) {
        let vectors: Vec<Array> = self
            .arrays
            .iter()
            .filter(|a| a.input && a.extents.len() == 1 && a.class != ClassId::Logical)
            .cloned()
            .collect();
        if vectors.is_empty() {
            return self.block();
        }
        let a = self.pick(&vectors);
        let r = self.fresh("r");
        let x = format!("${}", a.name);
        let line = match self.rng.gen_range(0..6) {
            // Integer `sum` and `prod` are rejected (E0106): MATLAB and Octave disagree.
            0 if is_float(a.class) && a.bits.exact => format!("${r} = sum({x})"),
            1 if is_float(a.class) && a.bits.pow2 => format!("${r} = prod({x})"),
            2 => format!("${r} = any({x} > 0)"),
            3 => format!("${r} = all({x} ~= 0)"),
            4 if self.extents[a.extents[0]] > 0 => {
                let k = self.fresh("r");
                let f = self.pick(&["max", "min"]);
                self.outputs.push(k.clone());
                format!("[${r}, ${k}] = {f}({x})")
            }
            _ if self.extents[a.extents[0]] > 0 => format!("${r} = max({x})"),
            _ => format!("${r} = any({x})"),
        };
        self.outputs
            .insert(self.outputs.len() - usize::from(line.starts_with('[')), r);
        self.stmts.push(Stmt::Line(line));
    }

    // ---- expressions ----

    /// A read of an array of `class` in scope, at in-range subscripts.
    fn read(&mut self, class: ClassId, scope: &Scope) -> Option<Expr> {
        let readable: Vec<Array> = self
            .arrays
            .iter()
            .filter(|a| a.class == class)
            .filter(|a| {
                a.extents
                    .iter()
                    .all(|e| scope.vars.iter().any(|v| v.extent == *e))
            })
            .cloned()
            .collect();
        if readable.is_empty() {
            return None;
        }
        let a = self.pick(&readable);
        let subs: Option<Vec<String>> = a
            .extents
            .iter()
            .map(|&e| self.subscript(scope, e, true, true))
            .collect();
        Some(Expr {
            text: format!("${}({})", a.name, subs?.join(", ")),
            bits: a.bits,
        })
    }

    /// An expression of class `class` over what is in scope.
    fn expr(&mut self, class: ClassId, scope: &Scope, depth: usize) -> Expr {
        if depth == 0 || self.chance(0.3) {
            return self.leaf(class, scope);
        }
        let a = self.expr(class, scope, depth - 1);
        match self.rng.gen_range(0..10) {
            0..=2 => {
                let b = self.operand(class, scope, depth - 1);
                let op = self.pick(&["+", "-", "+"]);
                Expr {
                    text: format!("({} {op} {})", a.text, b.text),
                    bits: Bits::add(a.bits, b.bits),
                }
            }
            3 | 4 => {
                let b = self.operand(class, scope, depth - 1);
                Expr {
                    text: format!("({} .* {})", a.text, b.text),
                    bits: Bits::mul(a.bits, b.bits),
                }
            }
            5 => {
                let b = self.expr(class, scope, depth - 1);
                let f = self.pick(&["max", "min"]);
                Expr {
                    text: format!("{f}({}, {})", a.text, b.text),
                    bits: Bits::either(a.bits, b.bits),
                }
            }
            6 => {
                let f = self.pick(&["abs", "-"]);
                Expr {
                    text: if f == "-" {
                        format!("(-({}))", a.text)
                    } else {
                        format!("abs({})", a.text)
                    },
                    bits: a.bits,
                }
            }
            7 if is_float(class) => {
                let f = self.pick(&["floor", "ceil", "round", "fix"]);
                Expr {
                    text: format!("{f}({})", a.text),
                    bits: Bits {
                        frac: 0,
                        pow2: false,
                        ..a.bits
                    },
                }
            }
            7 if is_unsigned(class) => {
                let f = self.pick(&["bitand", "bitor", "bitxor"]);
                let mask = self.pick(&[1, 6, 255, 4096]);
                Expr {
                    text: format!("{f}({}, {})", a.text, constant(class, mask as f64)),
                    bits: Bits::INEXACT,
                }
            }
            8 => {
                let m: f64 = self.pick(&[2.0, 3.0, 7.0, 2.5]);
                let m = if is_float(class) { m } else { m.floor() };
                Expr {
                    text: format!("mod({}, {})", a.text, format_number(m)),
                    bits: if m == 2.5 {
                        Bits::INEXACT
                    } else {
                        Bits { mag: 3, ..a.bits }
                    },
                }
            }
            _ => {
                // Division: rounds for integers, inexact for floats.
                let d: f64 = self.pick(&[2.0, 3.0, 4.0, -2.0, 0.5, 1.5]);
                Expr {
                    text: format!("({} ./ {})", a.text, format_number(d)),
                    bits: if d == 2.0 || d == 4.0 || d == -2.0 || d == 0.5 {
                        Bits {
                            frac: a.bits.frac + 2,
                            mag: a.bits.mag + 1,
                            ..a.bits
                        }
                    } else {
                        Bits::INEXACT
                    },
                }
            }
        }
    }

    /// The right operand of an arithmetic operator on `class`: an expression of the class, or
    /// a double (a constant or a loop variable), which MATLAB converts to the class.
    fn operand(&mut self, class: ClassId, scope: &Scope, depth: usize) -> Expr {
        match self.rng.gen_range(0..4) {
            0 => {
                let v: f64 = self.pick(&[1.0, 2.0, 3.0, 0.5, -1.5, 0.25, 100.0]);
                Expr {
                    text: format_number(v),
                    bits: Bits {
                        mag: 7,
                        frac: 2,
                        pow2: v == 2.0 || v == 0.5 || v == 1.0,
                        exact: true,
                    },
                }
            }
            1 if !scope.vars.is_empty() => {
                let v = self.pick(&scope.vars);
                Expr {
                    text: format!("${}", v.name),
                    bits: Bits::int(11),
                }
            }
            _ => self.expr(class, scope, depth),
        }
    }

    /// A read, a temporary, a conversion or a constant of class `class`.
    fn leaf(&mut self, class: ClassId, scope: &Scope) -> Expr {
        let temps: Vec<Scalar> = scope
            .scalars
            .iter()
            .filter(|s| s.class == class)
            .cloned()
            .collect();
        if !temps.is_empty() && self.chance(0.3) {
            let t = self.pick(&temps);
            return Expr {
                text: format!("${}", t.name),
                bits: t.bits,
            };
        }
        if self.chance(0.75) {
            if let Some(e) = self.read(class, scope) {
                return e;
            }
        }
        if self.chance(0.6) {
            // A conversion from another class in scope, or of the loop variable.
            let others: Vec<ClassId> = self
                .arrays
                .iter()
                .map(|a| a.class)
                .filter(|&c| c != class && c != ClassId::Logical)
                .collect();
            if let Some(from) = others.choose(&mut self.rng).copied() {
                if let Some(e) = self.read(from, scope) {
                    let bits = if is_float(class) && !is_float(from) {
                        let (lo, hi) = values::int_range(from);
                        let mag = (lo.unsigned_abs().max(hi.unsigned_abs()) as f64)
                            .log2()
                            .ceil() as i32;
                        Bits {
                            mag,
                            frac: 0,
                            pow2: false,
                            exact: mag <= mantissa(class) - 8,
                        }
                    } else if is_float(class) {
                        e.bits
                    } else {
                        Bits::INEXACT
                    };
                    return Expr {
                        text: format!("{}({})", class.name(), e.text),
                        bits,
                    };
                }
            }
            if let Some(v) = scope.vars.last() {
                return Expr {
                    text: format!("{}(${})", class.name(), v.name),
                    bits: Bits::int(11),
                };
            }
        }
        let v = self.pick(&[0.0, 1.0, 2.0, -3.0, 0.5, 7.0]);
        let text = if !is_float(class) && self.chance(0.2) {
            class_limit(class, self.pick(&[true, false]))
        } else {
            constant(class, v)
        };
        Expr {
            text,
            bits: Bits {
                mag: 3,
                frac: 1,
                pow2: v == 1.0 || v == 2.0 || v == 0.5,
                exact: true,
            },
        }
    }

    /// A logical condition over what is in scope.
    fn condition(&mut self, scope: &Scope, depth: usize) -> String {
        let logical: Vec<Array> = self
            .arrays
            .iter()
            .filter(|a| a.class == ClassId::Logical)
            .cloned()
            .collect();
        match self.rng.gen_range(0..10) {
            0 if depth > 0 => {
                let a = self.condition(scope, depth - 1);
                let b = self.condition(scope, depth - 1);
                let op = self.pick(&["&&", "||", "&", "|"]);
                format!("({a}) {op} ({b})")
            }
            1 if depth > 0 => format!("~({})", self.condition(scope, depth - 1)),
            2 if !logical.is_empty() => self
                .read(ClassId::Logical, scope)
                .map(|e| e.text)
                .unwrap_or_else(|| "true".into()),
            3 => {
                let v = self.pick(&scope.vars);
                format!("mod(${}, {}) == 0", v.name, self.pick(&[2, 3, 5]))
            }
            4 => {
                let e = self.expr(self.classes[0], scope, 1);
                let test = self.pick(&["isnan", "isinf", "isfinite"]);
                format!("{test}({})", e.text)
            }
            _ => {
                let class = self.pick(&self.classes.clone());
                let a = self.expr(class, scope, 1);
                let b = if self.chance(0.5) {
                    self.expr(class, scope, 1).text
                } else {
                    format_number(self.pick(&[0.0, 1.0, 2.5, -1.0]))
                };
                let op = self.pick(&["<", "<=", ">", ">=", "==", "~="]);
                format!("{} {op} {b}", a.text)
            }
        }
    }
}
