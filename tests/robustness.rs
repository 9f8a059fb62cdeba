//! The `m2cu` binary against damaged caches, resource bombs, odd encodings and crashing
//! generated code: each ends in a result or a clear error, never a crash or silence.

mod common;

use std::path::Path;
use std::process::{Command, Output};

/// Runs `m2cu` from the repository root with its build cache in `cache`.
fn m2cu_in(cache: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .args(args)
        .current_dir(common::root())
        .env("M2CU_CACHE_DIR", cache)
        .output()
        .expect("m2cu runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const VECSUM: [&str; 6] = [
    "run",
    "fixtures/e2e/vecsum.m",
    "--set",
    "v=[1 2 3]",
    "--backend",
    "cpu",
];

/// The built shared objects in a cache directory.
fn cached_objects(cache: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "so"))
        .collect()
}

#[test]
fn damaged_cache_entries_are_rebuilt() {
    let cache = tempfile::tempdir().unwrap();
    let o = m2cu_in(cache.path(), &VECSUM);
    assert!(o.status.success(), "{}", stderr(&o));
    let objects = cached_objects(cache.path());
    assert_eq!(objects.len(), 1, "{objects:?}");
    let so = &objects[0];
    let good = std::fs::read(so).unwrap();
    let damage: [Vec<u8>; 2] = [good[..good.len() / 2].to_vec(), vec![b'x'; good.len()]];
    for bad in damage {
        std::fs::write(so, bad).unwrap();
        let o = m2cu_in(cache.path(), &VECSUM);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains("s = 6"), "{}", stdout(&o));
        assert!(stderr(&o).contains("is damaged"), "{}", stderr(&o));
        assert_eq!(std::fs::read(so).unwrap(), good);
    }
}

#[test]
fn scratch_folders_of_dead_builds_are_removed() {
    let cache = tempfile::tempdir().unwrap();
    let dead = cache.path().join(".build-4000000000-interrupted");
    std::fs::create_dir(&dead).unwrap();
    std::fs::write(dead.join("vecsum.c"), "half").unwrap();
    let o = m2cu_in(cache.path(), &VECSUM);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!dead.exists());
}

#[test]
fn a_crash_in_generated_code_is_an_error_not_a_crash_of_m2cu() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("farstore.m");
    std::fs::write(
        &file,
        "function y = farstore(n)\ny = zeros(1, 4);\nfor i = 1:n\n  y(i * 100000000) = i;\nend\nend\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let args = ["run", file, "--set", "n=3", "--backend", "cpu"];
    let o = m2cu_in(dir.path(), &[&args[..], &["--no-bounds-check"]].concat());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("crashed (SIG"), "{err}");
    assert!(err.contains("run without --no-bounds-check"), "{err}");
}
