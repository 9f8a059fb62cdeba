//! The namer: C identifiers for MATLAB locals and for the entry function, unique within a
//! function and clear of every reserved word, macro and prefix of [`crate::keywords`] (C, C++,
//! CUDA, the C library, and the `m2cu_`/`M2CU_` names that generated code uses).
//!
//! Invariants: every local gets one name, used by every backend; an array local `A` also owns
//! `A_d0` and `A_d1` (its extents) and, when it may be 3-D, `A_d2`, which no other local's name
//! collides with. Renaming terminates: a name with a reserved prefix first gets the prefix `v_`
//! (which no reserved prefix matches), then the candidates `name`, `name_1`, `name_2`, ... are
//! all distinct, and only finitely many are reserved or taken.

use std::collections::HashSet;

use la_arena::ArenaMap;
use m2cu_frontend::ir::{Function, LocalId};

use crate::keywords;

/// The first of `name`, `name_1`, `name_2`, ... (after `v_` when `name` has a reserved prefix)
/// that is neither reserved nor `taken`.
fn fresh(name: &str, taken: &HashSet<String>) -> String {
    let base = if keywords::reserved_prefix(name) {
        format!("v_{name}")
    } else {
        name.to_string()
    };
    let free = |c: &String| !keywords::is_reserved(c) && !taken.contains(c);
    std::iter::once(base.clone())
        .chain((1..).map(|k| format!("{base}_{k}")))
        .find(free)
        .expect("infinitely many candidates, finitely many taken")
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
        let kernels: HashSet<String> = kernels.iter().cloned().collect();
        let entry = fresh(&f.name, &kernels);
        let mut taken = kernels;
        taken.insert(entry.clone());
        let mut names = ArenaMap::default();
        for (id, local) in f.locals.iter() {
            let name = fresh(&local.name, &taken);
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
        let mut taken: HashSet<String> = self
            .names
            .values()
            .cloned()
            .chain(extents.iter().cloned())
            .collect();
        for (id, _) in f.locals.iter() {
            if extents.contains(&self.names[id]) {
                let name = fresh(&self.names[id], &taken);
                taken.insert(name.clone());
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
        fresh(name, &taken.iter().map(|t| t.to_string()).collect())
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
}
