//! The namer: C identifiers for MATLAB locals, unique within a function and clear of C, C++ and
//! CUDA reserved words and of the `m2cu_` prefix that generated temporaries use.
//!
//! Invariant: every local gets one name, used by every backend; an array local `A` also owns
//! `A_d0` and `A_d1` (its extents), which no other local's name collides with.

use std::collections::HashSet;

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

/// C names of the locals of one function.
#[derive(Clone, Debug)]
pub struct Names {
    names: ArenaMap<LocalId, String>,
}

impl Names {
    pub fn new(f: &Function) -> Names {
        let mut taken: HashSet<String> = HashSet::new();
        let mut names = ArenaMap::default();
        for (id, local) in f.locals.iter() {
            let mut name = local.name.clone();
            while RESERVED.contains(&name.as_str())
                || name.starts_with("m2cu")
                || taken.contains(&name)
            {
                name.push('_');
            }
            taken.insert(name.clone());
            if !local.ty.is_scalar() {
                taken.insert(format!("{name}_d0"));
                taken.insert(format!("{name}_d1"));
            }
            names.insert(id, name);
        }
        // A later array's extents may collide with an earlier scalar's name; rename the scalar.
        Names { names }.resolve_extent_collisions(f)
    }

    fn resolve_extent_collisions(mut self, f: &Function) -> Names {
        let extents: HashSet<String> = f
            .locals
            .iter()
            .filter(|(_, l)| !l.ty.is_scalar())
            .flat_map(|(id, _)| {
                [
                    format!("{}_d0", self.names[id]),
                    format!("{}_d1", self.names[id]),
                ]
            })
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

    /// The C expression for extent `k` (0 rows, 1 columns) of an array local.
    pub fn dim(&self, id: LocalId, k: usize) -> String {
        format!("{}_d{k}", self.names[id])
    }
}
