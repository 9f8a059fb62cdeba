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

#[test]
fn complex_narrowing_prints_what_octave_prints() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let dir = common::root().join("fixtures/complex");
    for (x, y) in CASES {
        let call = format!("[a, b, c, d, e, f, g, h] = narrowing({x}, {y})");
        let octave = m2cu_runtime::octave::eval(&dir, &call).expect("octave runs");
        assert_eq!(displayed(&octave).len(), 8, "{octave}");
        for backend in ["cpu", "emu"] {
            let (sx, sy) = (format!("x={x}"), format!("y={y}"));
            let o = common::m2cu(&[
                "run",
                "fixtures/complex/narrowing.m",
                "--backend",
                backend,
                "--set",
                &sx,
                "--set",
                &sy,
            ]);
            let out = String::from_utf8_lossy(&o.stdout);
            assert!(o.status.success(), "{backend} {x} {y}: {out}");
            assert_eq!(displayed(&out), displayed(&octave), "{backend} x={x} y={y}");
        }
    }
}
