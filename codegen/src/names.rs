//! The namer: C identifiers for MATLAB locals, unique within a function and clear of C, C++ and
//! CUDA reserved words and of the `m2cu_` prefix that generated temporaries use.
//!
//! Invariant: every local gets one name, used by every backend; an array local `A` also owns
//! `A_d0` and `A_d1` (its extents) and, when it may be 3-D, `A_d2`, which no other local's name
//! collides with.

use std::collections::{HashMap, HashSet};

use la_arena::ArenaMap;
use m2cu_frontend::ir::{Function, LocalId};

const RESERVED: &[&str] = &[
    "auto",
    "break",
    "case",
    "char",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extern",
    "float",
    "for",
    "goto",
    "if",
    "inline",
    "int",
    "long",
    "register",
    "restrict",
    "return",
    "short",
    "signed",
    "sizeof",
    "static",
    "struct",
    "switch",
    "typedef",
    "union",
    "unsigned",
    "void",
    "volatile",
    "while",
    "bool",
    "true",
    "false",
    "class",
    "new",
    "delete",
    "this",
    "template",
    "typename",
    "namespace",
    "using",
    "public",
    "private",
    "protected",
    "virtual",
    "friend",
    "operator",
    "throw",
    "try",
    "catch",
    "asm",
    "export",
    "mutable",
    "explicit",
    "dim3",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
    "warpSize",
    "main",
    "abs",
    "sqrt",
    "exp",
    "log",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fmin",
    "fmax",
    "pow",
    "fabs",
    "fmod",
    "copysign",
    "isnan",
    "isfinite",
    "NAN",
    "INFINITY",
    "malloc",
    "free",
    "calloc",
    "memcpy",
    "int8_t",
    "int16_t",
    "int32_t",
    "int64_t",
    "uint8_t",
    "uint16_t",
    "uint32_t",
    "uint64_t",
    "size_t",
    "NULL",
    "errno",
    "y0",
    "y1",
    "j0",
    "j1",
    "yn",
    "jn",
    "gamma",
    "signbit",
];

/// `name`, clear of the reserved words (`int` → `int_`) and of the `m2cu` prefix
/// (`m2cux` → `v_m2cux`).
fn clear_name(name: &str) -> String {
    let mut name = if name.starts_with("m2cu") {
        format!("v_{name}")
    } else {
        name.to_string()
    };
    while RESERVED.contains(&name.as_str()) {
        name.push('_');
    }
    name
}

/// Numbered variants of a name (`x`, `x_2`, `x_3`, ...) for locals that share a MATLAB name
/// (each inlined call has its own `_f_x`); the next number tried is kept per name, so naming
/// `n` locals is linear, not quadratic.
#[derive(Default)]
struct Suffixes {
    next: HashMap<String, usize>,
}

impl Suffixes {
    fn unique(&mut self, base: String, taken: &HashSet<String>) -> String {
        if !taken.contains(&base) {
            return base;
        }
        let next = self.next.entry(base.clone()).or_insert(2);
        loop {
            let name = format!("{base}_{next}");
            *next += 1;
            if !taken.contains(&name) {
                return name;
            }
        }
    }
}

/// C names of the locals of one function.
#[derive(Clone, Debug)]
pub struct Names {
    names: ArenaMap<LocalId, String>,
    /// The array locals that may have a third extent other than 1.
    three_d: HashSet<LocalId>,
}

impl Names {
    pub fn new(f: &Function) -> Names {
        let mut taken: HashSet<String> = HashSet::new();
        let mut suffixes = Suffixes::default();
        let mut names = ArenaMap::default();
        for (id, local) in f.locals.iter() {
            let name = suffixes.unique(clear_name(&local.name), &taken);
            taken.insert(name.clone());
            if !local.ty.is_scalar() {
                for d in 0..3 {
                    taken.insert(format!("{name}_d{d}"));
                }
            }
            names.insert(id, name);
        }
        let three_d = f
            .locals
            .iter()
            .filter(|(_, l)| l.ty.shape.is_3d())
            .map(|(id, _)| id)
            .collect();
        // A later array's extents may collide with an earlier scalar's name; rename the scalar.
        Names { names, three_d }.resolve_extent_collisions(f)
    }

    fn resolve_extent_collisions(mut self, f: &Function) -> Names {
        let extents: HashSet<String> = f
            .locals
            .iter()
            .filter(|(_, l)| !l.ty.is_scalar())
            .flat_map(|(id, _)| (0..3).map(move |d| (id, d)))
            .map(|(id, d)| format!("{}_d{d}", self.names[id]))
            .collect();
        let mut taken: HashSet<String> = self
            .names
            .values()
            .cloned()
            .chain(extents.iter().cloned())
            .collect();
        for (id, _) in f.locals.iter() {
            if extents.contains(&self.names[id]) {
                let mut name = self.names[id].clone();
                while taken.contains(&name) {
                    name.push('_');
                }
                taken.insert(name.clone());
                self.names.insert(id, name);
            }
        }
        self
    }

    pub fn get(&self, id: LocalId) -> &str {
        &self.names[id]
    }

    /// The C expression for extent `k` (0 rows, 1 columns, 2 pages) of an array local; the
    /// pages of a 2-D array are the constant 1.
    pub fn dim(&self, id: LocalId, k: usize) -> String {
        if k >= 2 && !self.is_3d(id) {
            return "1".into();
        }
        format!("{}_d{k}", self.names[id])
    }

    /// Whether the local carries a third extent `A_d2`.
    pub fn is_3d(&self, id: LocalId) -> bool {
        self.three_d.contains(&id)
    }

    /// The C expression for the element count of an array local.
    pub fn numel(&self, id: LocalId) -> String {
        let n = &self.names[id];
        if self.is_3d(id) {
            format!("({n}_d0 * {n}_d1 * {n}_d2)")
        } else {
            format!("({n}_d0 * {n}_d1)")
        }
    }
}
