//! The prelude's int64 and uint64 arithmetic and comparisons with a double operand
//! (`m2cu_<op>_<class>_id`, `_di`, `m2cu_order_<class>_d`) against Octave itself, case by case:
//! random pairs biased to the corners (values near the class bounds, 2^53, 2^62 and 2^63;
//! halves, fractions, integer-valued and huge doubles; NaN, infinities, signed zeros,
//! subnormals) go through `x + y`, `x - y`, `x .* y`, `x ./ y`, the same with the operands
//! swapped, and the six comparisons, in one vectorized Octave run and in a C driver of the
//! prelude built twice: as C99 (the CPU path and host programs) and as C++20 behind the
//! emulator's CUDA shim (the kernels' side of the prelude). Every result must equal Octave's.

mod common;

use std::path::Path;
use std::process::Command;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const CASES: usize = 20_000;
const OPS: [&str; 14] = [
    "x+y", "x-y", "x*y", "x/y", "y+x", "y-x", "y*x", "y/x", "x<y", "x<=y", "x==y", "x~=y", "x>y",
    "x>=y",
];

#[derive(Clone, Copy)]
enum Class {
    Int64,
    Uint64,
}

impl Class {
    fn name(self) -> &'static str {
        match self {
            Class::Int64 => "int64",
            Class::Uint64 => "uint64",
        }
    }
    fn c_type(self) -> &'static str {
        match self {
            Class::Int64 => "int64_t",
            Class::Uint64 => "uint64_t",
        }
    }
    /// The class bounds as 128-bit integers.
    fn bounds(self) -> (i128, i128) {
        match self {
            Class::Int64 => (i64::MIN.into(), i64::MAX.into()),
            Class::Uint64 => (0, u64::MAX.into()),
        }
    }
}

/// An integer of `class` near one of its corners, as its 64-bit pattern.
fn integer(class: Class, rng: &mut StdRng) -> u64 {
    let (lo, hi) = class.bounds();
    let v: i128 = match rng.gen_range(0..5) {
        0 => rng.gen_range(lo..=hi),
        1 => {
            let bases = [
                lo,
                hi,
                1 << 62,
                1 << 63,
                1 << 53,
                -(1 << 62),
                -(1 << 53),
                3 << 62,
                0,
            ];
            bases[rng.gen_range(0..bases.len())] + rng.gen_range(-3000..=3000)
        }
        2 => rng.gen_range(-1000..=1000),
        3 => {
            let bits = rng.gen_range(0..=64);
            let sign = if rng.gen_bool(0.5) { 1 } else { -1 };
            sign * rng.gen_range(0..=(1i128 << bits))
        }
        _ => [lo, hi, lo + 1, hi - 1, 1, -1, 0, 2, 3, 7][rng.gen_range(0..10)],
    };
    v.clamp(lo, hi) as u64
}

/// A double of one of the kinds that take different paths.
fn double(rng: &mut StdRng) -> f64 {
    let sign = if rng.gen_bool(0.5) { 1.0 } else { -1.0 };
    match rng.gen_range(0..8) {
        0 | 1 => {
            let fractions = [0.5, 0.25, 0.75, 0.1, 0.3, 0.9, rng.gen::<f64>()];
            f64::from(rng.gen_range(-100i32..=100)) + fractions[rng.gen_range(0..fractions.len())]
        }
        2 => {
            let special = [0.5, 1.5, 2.5, 0.25, 0.1, 0.75, 1.0 - f64::EPSILON / 2.0];
            sign * special[rng.gen_range(0..special.len())]
        }
        3 => rng.gen_range(-4.0..4.0),
        4 => sign * rng.gen::<f64>() * 2f64.powi(rng.gen_range(-70..=70)),
        5 => f64::from(rng.gen_range(-1_000_000i32..=1_000_000)),
        6 => {
            let scale = [1.0, -1.0, 0.75, 1.5, -1.5][rng.gen_range(0..5)];
            let offset =
                [0.0, 1.0, -1.0, 0.5][rng.gen_range(0..4)] * [1.0, 2048.0][rng.gen_range(0..2)];
            2f64.powi(rng.gen_range(52..=65)) * scale + offset
        }
        _ => {
            let special = [
                f64::NAN,
                f64::INFINITY,
                0.0,
                f64::from_bits(1),
                1e-300,
                1e300,
                2f64.powi(-60),
                0.5 + f64::EPSILON / 2.0,
                0.5 - f64::EPSILON / 4.0,
            ];
            sign * special[rng.gen_range(0..special.len())]
        }
    }
}

/// Pairs the random draw rarely hits: integers whose nearest double is a bound, compared with
/// that double; the first integer above 2^53 with 2^53; halves and thirds at the bounds.
fn corners(class: Class) -> Vec<(u64, f64)> {
    let (two53, two63, two64) = (2f64.powi(53), 2f64.powi(63), 2f64.powi(64));
    let mut pairs = vec![(1u64 << 53 | 1, two53), ((1u64 << 53) + 1, two53 + 2.0)];
    let values: Vec<(i128, f64)> = match class {
        Class::Int64 => vec![
            (i64::MAX.into(), two63),
            ((i64::MAX - 511).into(), two63),
            ((i64::MAX - 600).into(), two63),
            (i64::MIN.into(), -two63),
            ((i64::MIN + 1).into(), -two63),
            ((i64::MIN + 300).into(), -two63),
            (i64::MAX.into(), 0.5),
            (i64::MIN.into(), -0.5),
            (i64::MIN.into(), 1.0 / 3.0),
        ],
        Class::Uint64 => vec![
            (u64::MAX.into(), two64),
            ((u64::MAX - 1023).into(), two64),
            ((u64::MAX - 1500).into(), two64),
            (1 << 63, two63),
            (u64::MAX.into(), 0.5),
            (u64::MAX.into(), 2.0 / 3.0),
        ],
    };
    pairs.extend(values.into_iter().map(|(x, y)| (x as u64, y)));
    pairs
}

fn write_words(path: &Path, words: impl Iterator<Item = u64>) {
    let bytes: Vec<u8> = words.flat_map(u64::to_le_bytes).collect();
    std::fs::write(path, bytes).expect("write case file");
}

fn read_words(path: &Path) -> Vec<u64> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    bytes
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
        .collect()
}

/// The C driver: reads `n` integers and doubles, writes the results of each pair in the order
/// of `OPS` (a comparison as the bit of its relations' mask at the order's index).
fn driver(class: Class) -> String {
    let (c, t) = (class.name(), class.c_type());
    format!(
        r#"#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
{prelude}
int main(int argc, char **argv)
{{
    FILE *fx = fopen(argv[1], "rb"), *fy = fopen(argv[2], "rb"), *fr = fopen(argv[3], "wb");
    {t} x; double y;
    if (argc != 4 || !fx || !fy || !fr) return 2;
    while (fread(&x, 8, 1, fx) == 1 && fread(&y, 8, 1, fy) == 1) {{
        {t} r[14];
        static const int masks[6] = {{1, 3, 2, 13, 4, 6}};
        int k, order = m2cu_order_{c}_d(x, y);
        r[0] = m2cu_add_{c}_id(x, y); r[1] = m2cu_sub_{c}_id(x, y);
        r[2] = m2cu_mul_{c}_id(x, y); r[3] = m2cu_div_{c}_id(x, y);
        r[4] = m2cu_add_{c}_di(y, x); r[5] = m2cu_sub_{c}_di(y, x);
        r[6] = m2cu_mul_{c}_di(y, x); r[7] = m2cu_div_{c}_di(y, x);
        for (k = 0; k < 6; k++) r[8 + k] = (masks[k] >> order) & 1;
        fwrite(r, 8, 14, fr);
    }}
    return fclose(fr) == 0 ? 0 : 3;
}}
"#,
        prelude = m2cu_codegen::prelude::prelude()
    )
}

/// The compiler for `variable` (`CC`, `CXX`) or `fallback`, split into program and arguments.
fn compiler(variable: &str, fallback: &str) -> Vec<String> {
    let text = std::env::var(variable)
        .ok()
        .filter(|c| !c.trim().is_empty())
        .unwrap_or_else(|| fallback.to_string());
    text.split_whitespace().map(str::to_string).collect()
}

/// Builds `source` with `command` and `flags` into `exe`.
fn build(command: &[String], flags: &[&str], source: &Path, exe: &Path) {
    let out = Command::new(&command[0])
        .args(&command[1..])
        .args(flags)
        .arg("-o")
        .arg(exe)
        .arg(source)
        .arg("-lm")
        .output()
        .unwrap_or_else(|e| panic!("{command:?}: {e}"));
    assert!(
        out.status.success(),
        "{command:?} {flags:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs the driver `exe` on the case files and returns its results.
fn run(exe: &Path, dir: &Path, tag: &str) -> Vec<u64> {
    let result = dir.join(format!("{tag}.r"));
    let status = Command::new(exe)
        .arg(dir.join("x"))
        .arg(dir.join("y"))
        .arg(&result)
        .status()
        .expect("driver runs");
    assert!(status.success(), "{tag} driver failed: {status}");
    read_words(&result)
}

/// Octave's results of the operations of `OPS`, row by row, for each pair.
fn octave(class: Class, dir: &Path) -> Vec<u64> {
    let c = class.name();
    let script = format!(
        "fid = fopen('x'); x = fread(fid, Inf, '{c}=>{c}')'; fclose(fid);
         fid = fopen('y'); y = fread(fid, Inf, 'double=>double')'; fclose(fid);
         r = [x + y; x - y; x .* y; x ./ y; y + x; y - x; y .* x; y ./ x;
              x < y; x <= y; x == y; x ~= y; x > y; x >= y];
         fid = fopen('octave.r', 'w'); fwrite(fid, r, '{c}'); fclose(fid);"
    );
    if let Err(e) = m2cu_runtime::octave::eval(dir, &script) {
        panic!("Octave failed: {e}");
    }
    read_words(&dir.join("octave.r"))
}

fn show(class: Class, word: u64) -> String {
    match class {
        Class::Int64 => (word as i64).to_string(),
        Class::Uint64 => word.to_string(),
    }
}

fn check(class: Class, seed: u64) {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut rng = StdRng::seed_from_u64(seed);
    let (mut xs, mut ys): (Vec<u64>, Vec<f64>) = (0..CASES)
        .map(|_| (integer(class, &mut rng), double(&mut rng)))
        .unzip();
    for (x, y) in corners(class) {
        xs.push(x);
        ys.push(y);
    }
    write_words(&dir.path().join("x"), xs.iter().copied());
    write_words(&dir.path().join("y"), ys.iter().map(|y| y.to_bits()));

    let source = dir.path().join("driver.c");
    std::fs::write(&source, driver(class)).expect("write driver");
    let shimmed = dir.path().join("driver_emu.cpp");
    let shim = common::source(&common::root().join("runtime/src/emu/shim.h"));
    std::fs::write(&shimmed, format!("{shim}\n{}", driver(class))).expect("write driver");
    let (c_exe, emu_exe) = (dir.path().join("c"), dir.path().join("emu"));
    build(&compiler("CC", "cc"), &["-std=c99", "-O2"], &source, &c_exe);
    build(
        &compiler("CXX", "c++"),
        &["-std=c++20", "-O1", "-pthread"],
        &shimmed,
        &emu_exe,
    );

    let want = octave(class, dir.path());
    assert_eq!(want.len(), xs.len() * OPS.len(), "Octave's result count");
    for (tag, got) in [
        ("C", run(&c_exe, dir.path(), "c")),
        ("CUDA shim", run(&emu_exe, dir.path(), "emu")),
    ] {
        let wrong: Vec<String> = (0..want.len())
            .filter(|&k| got[k] != want[k])
            .map(|k| {
                let (case, op) = (k / OPS.len(), OPS[k % OPS.len()]);
                format!(
                    "{op} with x = {c}({}), y = {:e}: {} instead of Octave's {}",
                    show(class, xs[case]),
                    ys[case],
                    show(class, got[k]),
                    show(class, want[k]),
                    c = class.name()
                )
            })
            .collect();
        assert!(
            wrong.is_empty(),
            "{tag} prelude, {}: {} of {} results differ from Octave's, e.g.\n{}",
            class.name(),
            wrong.len(),
            want.len(),
            wrong[..wrong.len().min(20)].join("\n")
        );
    }
}

#[test]
fn int64_with_doubles_matches_octave() {
    if common::require(common::octave_available(), "octave-cli") {
        check(Class::Int64, 0x1164);
    }
}

#[test]
fn uint64_with_doubles_matches_octave() {
    if common::require(common::octave_available(), "octave-cli") {
        check(Class::Uint64, 0x0064);
    }
}
