//! The namer: C identifiers for MATLAB locals and for the entry function, unique within a
//! function and clear of every reserved word, macro and prefix of [`crate::keywords`] (C, C++,
//! CUDA, the C library, and the `m2cu_`/`M2CU_` names that generated code uses).
//!
//! Invariants: every local gets one name, used by every backend; an array local `A` also owns
//! `A_d0` and `A_d1` (its extents) and, when it may be 3-D, `A_d2`, which no other local's name
//! collides with. Renaming terminates: a name with a reserved prefix first gets the prefix `v_`
//! (which no reserved prefix matches), then the candidates `name`, `name_1`, `name_2`, ... are
//! all distinct, and only finitely many are reserved or taken.

use std::collections::{HashMap, HashSet};

use la_arena::ArenaMap;
use m2cu_frontend::ir::{Function, LocalId};

use crate::keywords;

/// Fresh C names: the first of `name`, `name_1`, `name_2`, ... (after `v_` when `name` has a
/// reserved prefix) that is neither reserved nor taken. The next number to try is kept per base
/// name, so naming `n` locals that share a MATLAB name (each inlined call has its own `_f_x`) is
/// linear, not quadratic.
#[derive(Default)]
struct Fresh {
    taken: HashSet<String>,
    next: HashMap<String, usize>,
}

impl Fresh {
    /// Marks `name` as taken without checking it.
    fn take(&mut self, name: String) {
        self.taken.insert(name);
    }

    /// A fresh name for `name`, now taken; a struct field's `.` (`opts.tol`) becomes `_`.
    fn name(&mut self, name: &str) -> String {
        let name = &name.replace('.', "_");
        let base = if keywords::reserved_prefix(name) {
            format!("v_{name}")
        } else {
            name.to_string()
        };
        let taken = &mut self.taken;
        let free = |c: &String| !keywords::is_reserved(c) && !taken.contains(c);
        let chosen = if free(&base) {
            base
        } else {
            let next = self.next.entry(base.clone()).or_insert(1);
            loop {
                let candidate = format!("{base}_{next}");
                *next += 1;
                if free(&candidate) {
                    break candidate;
                }
            }
        };
        taken.insert(chosen.clone());
        chosen
    }
}

/// C names of the locals of one function.
#[derive(Clone, Debug)]
pub struct Names {
    /// The entry function's C symbol (the CPU program's export; the GPU flavors add a suffix).
    entry: String,
    names: ArenaMap<LocalId, String>,
    /// The array locals that may have a third extent other than 1.
    three_d: HashSet<LocalId>,
}

impl Names {
    /// Names the entry function and the locals of `f`, whose kernels are `kernels` (a local must
    /// not hide a kernel from the host code that launches it).
    pub fn new(f: &Function, kernels: &[String]) -> Names {
        let mut fresh = Fresh::default();
        for kernel in kernels {
            fresh.take(kernel.clone());
        }
        let entry = fresh.name(&f.name);
        let mut names = ArenaMap::default();
        for (id, local) in f.locals.iter() {
            let name = fresh.name(&local.name);
            if !local.ty.is_scalar() {
                for d in 0..3 {
                    fresh.take(format!("{name}_d{d}"));
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
        Names {
            entry,
            names,
            three_d,
        }
        .resolve_extent_collisions(f)
    }

    fn resolve_extent_collisions(mut self, f: &Function) -> Names {
        let extents: HashSet<String> = f
            .locals
            .iter()
            .filter(|(_, l)| !l.ty.is_scalar())
            .flat_map(|(id, _)| (0..3).map(move |d| (id, d)))
            .map(|(id, d)| format!("{}_d{d}", self.names[id]))
            .collect();
        let mut fresh = Fresh::default();
        for taken in self.names.values().chain(&extents) {
            fresh.take(taken.clone());
        }
        for (id, _) in f.locals.iter() {
            if extents.contains(&self.names[id]) {
                let name = fresh.name(&self.names[id]);
                self.names.insert(id, name);
            }
        }
        self
    }

    /// The entry function's C symbol: its MATLAB name unless that is reserved.
    pub fn entry(&self) -> &str {
        &self.entry
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

#[cfg(test)]
mod tests {
    use super::*;

    fn fresh_of(name: &str, taken: &[&str]) -> String {
        let mut fresh = Fresh::default();
        for t in taken {
            fresh.take(t.to_string());
        }
        fresh.name(name)
    }

    #[test]
    fn free_names_stay() {
        assert_eq!(fresh_of("x", &[]), "x");
        assert_eq!(fresh_of("total", &["x"]), "total");
    }

    #[test]
    fn reserved_words_get_a_numbered_suffix() {
        for (name, renamed) in [
            ("int", "int_1"),
            ("EOF", "EOF_1"),
            ("stdout", "stdout_1"),
            ("and", "and_1"),
            ("atomicAdd", "atomicAdd_1"),
            ("abs", "abs_1"),
        ] {
            assert_eq!(fresh_of(name, &[]), renamed);
        }
        assert_eq!(fresh_of("int", &["int_1", "int_2"]), "int_3");
    }

    #[test]
    fn reserved_prefixes_are_cleared_and_renaming_terminates() {
        assert_eq!(fresh_of("m2cu_x", &[]), "v_m2cu_x");
        assert_eq!(fresh_of("m2cu", &[]), "v_m2cu");
        assert_eq!(fresh_of("M2CU_FN", &[]), "v_M2CU_FN");
        assert_eq!(fresh_of("m2cu_x", &["v_m2cu_x"]), "v_m2cu_x_1");
    }

    #[test]
    fn locals_that_share_a_name_are_numbered_in_turn() {
        let mut fresh = Fresh::default();
        let names: Vec<String> = (0..4).map(|_| fresh.name("_f_x")).collect();
        assert_eq!(names, ["_f_x", "_f_x_1", "_f_x_2", "_f_x_3"]);
        fresh.take("int_1".into());
        assert_eq!(fresh.name("int"), "int_2");
    }
}
