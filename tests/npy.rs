//! NumPy files in and out of `m2cu run`, with real NumPy on both ends: arrays NumPy saves
//! (C and Fortran order, 1-d to 3-d, float64, float32, int8, bool, complex128) are read as the
//! MATLAB values they stand for (a 1-d array is a row), and what m2cu writes NumPy loads as
//! the same arrays. Needs a Python with NumPy (`.ci/run` installs it into
//! `target/nvrtc-venv`); skips without one, fails under `CI=true`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// A Python that imports NumPy: the test venv's, else `python3`.
fn numpy_python() -> Result<PathBuf, String> {
    let venv = common::root().join("target/nvrtc-venv/bin/python");
    let candidates = [venv, PathBuf::from("python3")];
    for python in candidates {
        let ok = Command::new(&python)
            .args(["-c", "import numpy"])
            .output()
            .is_ok_and(|o| o.status.success());
        if ok {
            return Ok(python);
        }
    }
    Err("no Python with NumPy (pip install numpy)".into())
}

fn python(python: &Path, dir: &Path, script: &str) -> String {
    let o = Command::new(python)
        .args(["-c", script])
        .current_dir(dir)
        .output()
        .expect("python runs");
    assert!(
        o.status.success(),
        "python failed:\n{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const TWICE: &str = "function [a2, b2, c2, d2] = twice(a, b, c, d)
a2 = a * 2;
b2 = ~b;
c2 = c;
d2 = d + 1;
end
";

#[test]
fn numpy_arrays_in_and_out_of_run() {
    let py = match numpy_python() {
        Ok(p) => p,
        Err(why) => {
            assert!(!common::ci(), "NumPy is required under CI=true: {why}");
            eprintln!("skipping: {why}");
            return;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("twice.m"), TWICE).unwrap();
    python(
        &py,
        dir.path(),
        "import numpy as np
a = np.array([1, -2, 3], dtype=np.int8)
b = np.asfortranarray(np.array([[True, False], [False, False]]))
c = np.array([1+2j, -3j, 4], dtype=np.complex128)
d = np.arange(12, dtype=np.float32).reshape(2, 3, 2)
np.savez('in.npz', a=a, b=b, c=c, d=d)
np.save('x.npy', np.arange(12.0).reshape(3, 4))",
    );
    let twice = dir.path().join("twice.m");
    let run = |args: &[&str]| {
        let mut all = vec!["run", twice.to_str().unwrap(), "--backend", "cpu"];
        all.extend(args);
        let o = Command::new(env!("CARGO_BIN_EXE_m2cu"))
            .args(&all)
            .current_dir(dir.path())
            .output()
            .expect("m2cu runs");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(o.status.success(), "{err}");
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    run(&["--inputs", "in.npz", "--output", "out.npz"]);
    let checked = python(
        &py,
        dir.path(),
        "import numpy as np
i = np.load('in.npz'); o = np.load('out.npz')
assert o['a2'].dtype == np.int8 and o['a2'].shape == (1, 3) and (o['a2'][0] == 2 * i['a']).all()
assert o['b2'].dtype == np.bool_ and (o['b2'] == ~i['b']).all()
assert o['c2'].dtype == np.complex128 and (o['c2'][0] == i['c']).all()
assert o['d2'].dtype == np.float32 and o['d2'].shape == (2, 3, 2) and (o['d2'] == i['d'] + 1).all()
print('ok')",
    );
    assert_eq!(checked.trim(), "ok");
    // One array: `x.npy` is the input `x` of a function of `x`, C order read column-major.
    std::fs::write(
        dir.path().join("colsum.m"),
        "function s = colsum(x)\ns = sum(x, 1);\nend\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .args([
            "run",
            "colsum.m",
            "--backend",
            "cpu",
            "--inputs",
            "x.npy",
            "--output",
            "s.npy",
        ])
        .current_dir(dir.path())
        .output()
        .expect("m2cu runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s = python(
        &py,
        dir.path(),
        "import numpy as np\nprint(np.load('s.npy').tolist(), (np.load('s.npy') == np.arange(12.0).reshape(3, 4).sum(axis=0)).all())",
    );
    assert_eq!(s.trim(), "[[12.0, 15.0, 18.0, 21.0]] True");
}
