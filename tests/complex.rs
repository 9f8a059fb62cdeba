//! Complex scalars (`lower::complex`, `codegen::complex`): `fixtures/complex/narrowing.m` on
//! operands where Octave's narrowing of complex results shows (Inf, NaN, -0, zero divisors)
//! must print, on the C path and on the emulated GPU, what Octave prints for the same call.

mod common;

const CASES: [(&str, &str); 6] = [
    ("-4", "Inf"),
    ("-4", "0"),
    ("NaN", "2"),
    ("3", "NaN"),
    ("-0", "-0"),
    ("2.5", "-3"),
];

/// The `name = value` lines of a display, without blank lines or the backend's timing line.
fn displayed(text: &str) -> Vec<String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("m2cu:"))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

/// The display of `file`'s outputs `[a, b, ...]` for `args`, by `m2cu run` on `backend`.
fn m2cu_display(file: &str, sets: &[String], backend: &str) -> String {
    let path = format!("fixtures/complex/{file}.m");
    let mut args = vec!["run", path.as_str(), "--backend", backend];
    for s in sets {
        args.extend(["--set", s.as_str()]);
    }
    let o = common::m2cu(&args);
    let out = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{file} {backend} {sets:?}: {out}");
    out
}

/// `angle` of real values (Octave's `std::arg`: pi for a set sign bit, -0 and -NaN included,
/// else 0, NaN included), of values narrowed to real, and of `complex(x, 0)` (`atan2`).
#[test]
fn complex_angles_print_what_octave_prints() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let dir = common::root().join("fixtures/complex");
    for x in ["NaN", "-NaN", "-0", "-2", "3"] {
        let octave = m2cu_runtime::octave::eval(&dir, &format!("[a, b, c, d, e] = angles({x})"))
            .expect("octave runs");
        assert_eq!(displayed(&octave).len(), 5, "{octave}");
        for backend in ["cpu", "emu"] {
            let out = m2cu_display("angles", &[format!("x={x}")], backend);
            assert_eq!(displayed(&out), displayed(&octave), "{backend} x={x}");
        }
    }
}

/// `[o1, o2, ...] = file(x, y)` (outputs named by `outputs`) prints the same in Octave and in
/// `m2cu run` on cpu and on emu, for every `(x, y)` of `cases`.
fn prints_what_octave_prints(file: &str, outputs: &str, cases: &[(&str, &str)]) {
    let dir = common::root().join("fixtures/complex");
    for (x, y) in cases {
        let call = format!("[{outputs}] = {file}({x}, {y})");
        let octave = m2cu_runtime::octave::eval(&dir, &call).expect("octave runs");
        assert_eq!(
            octave.matches('=').count(),
            outputs.split(',').count(),
            "{octave}"
        );
        for backend in ["cpu", "emu"] {
            let sets = [format!("x={x}"), format!("y={y}")];
            let out = m2cu_display(file, &sets, backend);
            assert_eq!(displayed(&out), displayed(&octave), "{backend} x={x} y={y}");
        }
    }
}

#[test]
fn complex_narrowing_prints_what_octave_prints() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    prints_what_octave_prints("narrowing", "a, b, c, d, e, f, g, h", &CASES);
}

/// Complex arrays (`lower::complex_array`): element reads narrowed as Octave's `z(k)`, stores
/// of narrowed and `complex(x, 0)` values, `sum`, `z + y`, `z'` and `abs` of a whole array, on
/// operands where narrowing shows (Inf, NaN, -0, zero divisors).
#[test]
fn complex_arrays_print_what_octave_prints() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let cases: Vec<(&str, &str)> = CASES.iter().copied().chain([("Inf", "1")]).collect();
    prints_what_octave_prints("arrays", "a, b, c, d, e, f, g, h", &cases);
}

/// A whole complex array times or divided by a real scalar equals Octave's for a finite
/// nonzero scalar, and stops with `M2CU_E_COMPLEX_FACTOR` for 0, Inf and NaN, where Octave's
/// result depends on whether the array is narrowed to real.
#[test]
fn complex_array_scaled_by_a_real_scalar() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let finite = [("NaN", "2"), ("2.5", "-3"), ("-0", "0.5")];
    prints_what_octave_prints("scaled", "a, b, c", &finite);
    for y in ["0", "Inf", "NaN"] {
        let set = format!("y={y}");
        let o = common::m2cu(&[
            "run",
            "fixtures/complex/scaled.m",
            "--set",
            "x=1",
            "--set",
            &set,
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "y={y}");
        assert!(
            err.contains("A complex array times Inf or NaN"),
            "y={y}: {err}"
        );
    }
}

/// `.*`, `./` and `exp` of whole complex arrays that hold an element with a nonzero imaginary
/// part: Octave computes every element as a complex value (its `__muldc3`, `__divdc3` and
/// `cexp`, which the device code has written out), Inf and NaN included; an all-real complex
/// array there stops with `M2CU_E_COMPLEX_ALL_REAL`, where Octave may hold it narrowed.
#[test]
fn complex_array_products_print_what_octave_prints() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let cases: Vec<(&str, &str)> = CASES
        .iter()
        .copied()
        .chain([("Inf", "1"), ("Inf", "NaN"), ("-Inf", "2")])
        .collect();
    prints_what_octave_prints("products", "a, b, c, d, e, f, g, h", &cases);
    for backend in ["cpu", "emu"] {
        let o = common::m2cu(&[
            "run",
            "fixtures/complex/allreal.m",
            "--set",
            "x=2",
            "--backend",
            backend,
        ]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{backend}");
        assert!(
            err.contains("a complex array whose imaginary parts are all zero"),
            "{backend}: {err}"
        );
    }
}

/// Products, quotients and exponentials of every pair of complex values with parts among 19
/// special values (130321 pairs): the C path (GCC's complex arithmetic), the emulated GPU (the
/// device code's copies of libgcc's `__muldc3`/`__divdc3` and glibc's `cexp`) and Octave agree
/// on every element, NaN for NaN (zeros compared by value: m2cu keeps no `-0` imaginary part).
#[test]
fn complex_special_values_agree_on_every_path() {
    let specials = "s=[0 -0 1 -1 2.5 -3 Inf -Inf NaN realmax -realmax realmin 4.9e-324 1e-300 1e300 1e-160 1e160 3 0.5]";
    let dir = tempfile::tempdir().expect("temp dir");
    let run = |backend: &str| {
        let out = dir.path().join(format!("{backend}.mat"));
        let o = common::m2cu(&[
            "run",
            "fixtures/complex/cgrid.m",
            "--set",
            specials,
            "--backend",
            backend,
            "--output",
            out.to_str().unwrap(),
        ]);
        assert!(
            o.status.success(),
            "{backend}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        out
    };
    let (cpu, emu) = (run("cpu"), run("emu"));
    let read = |path: &std::path::Path| m2cu_runtime::read_mat(path).expect("outputs load");
    let (cpu_values, emu_values) = (read(&cpu), read(&emu));
    for ((name, a), (_, b)) in cpu_values.iter().zip(&emu_values) {
        assert_eq!(
            common::difference(a, b),
            None,
            "{name}: the C path and the emulated GPU differ"
        );
    }
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let check = format!(
        "{}; [pr, pim, qr, qim, er, eim] = cgrid(s); m = load('{}'); \
         printf('%d', isequaln(m.pr, pr), isequaln(m.pim, pim), isequaln(m.qr, qr), \
         isequaln(m.qim, qim), isequaln(m.er, er), isequaln(m.eim, eim));",
        specials.replace("s=", "s = "),
        cpu.display()
    );
    let printed = m2cu_runtime::octave::eval(&common::root().join("fixtures/complex"), &check)
        .expect("octave runs");
    assert!(
        printed.contains("111111"),
        "m2cu and Octave differ: {printed}"
    );
}

/// `complex(A)` and `complex(A, B)` of arrays, elementwise.
#[test]
fn complex_of_arrays_prints_what_octave_prints() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let cases = [("[1 2 3]", "[4 -5 6]"), ("[Inf 0 -0]", "[NaN 1 -0]")];
    prints_what_octave_prints("complexof", "a, b, c", &cases);
}
