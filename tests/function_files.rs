//! Functions in other files through the `m2cu` binary: the entry's folder, `--path`, diagnostics
//! in the file they belong to, recursion across files, and rebuilds when a helper changes.

use std::path::Path;
use std::process::Command;

use tempfile::TempDir;

/// Runs `m2cu args` in `dir` with the extra environment `env`: success, and stdout + stderr.
fn m2cu_with(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> (bool, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .output()
        .expect("m2cu runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.success(), text)
}

fn m2cu(dir: &Path, args: &[&str]) -> (bool, String) {
    m2cu_with(dir, args, &[])
}

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A temporary folder holding `files` (relative path, text).
fn project(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        write(dir.path(), name, text);
    }
    dir
}

/// Asserts that `m2cu args` succeeds in `dir` and prints `expected`.
fn assert_runs(dir: &Path, args: &[&str], expected: &str) {
    let (ok, out) = m2cu(dir, args);
    assert!(ok && out.contains(expected), "{args:?}: {out}");
}

/// Asserts that `m2cu args` fails in `dir` and prints every one of `expected`.
fn assert_fails(dir: &Path, args: &[&str], expected: &[&str]) {
    let (ok, out) = m2cu(dir, args);
    assert!(!ok, "{args:?}: {out}");
    for e in expected {
        assert!(out.contains(e), "{args:?}: no `{e}` in {out}");
    }
}

const MAIN: &str = "function y = main(x)\n  y = twice(x) + offset(x);\nend\n";
const TWICE: &str = "function y = twice(x)\n  y = 2 * x;\nend\n";
const OFFSET: &str = "function y = offset(x)\n  y = x + 100;\nend\n";
const RUN_3: &[&str] = &["run", "main.m", "--backend", "cpu", "--set", "x=3"];

#[test]
fn helpers_come_from_the_entry_folder_then_each_path() {
    let dir = project(&[
        ("src/main.m", MAIN),
        ("src/twice.m", TWICE),
        ("lib/offset.m", OFFSET),
    ]);
    let run = |backend| {
        [
            "run",
            "src/main.m",
            "--path",
            "lib",
            "--backend",
            backend,
            "--set",
            "x=3",
        ]
    };
    let without_path = ["run", "src/main.m", "--backend", "cpu", "--set", "x=3"];
    assert_fails(
        dir.path(),
        &without_path,
        &["undefined variable or function `offset`"],
    );
    assert_runs(dir.path(), &run("cpu"), "y = 109");
    assert_runs(dir.path(), &run("emu"), "y = 109");
    // The entry's folder comes first: a second `offset.m` there wins over --path.
    write(
        dir.path(),
        "src/offset.m",
        "function y = offset(x)\n  y = x - 1;\nend\n",
    );
    assert_runs(dir.path(), &run("cpu"), "y = 8");
}

#[test]
fn a_changed_helper_is_rebuilt() {
    let dir = project(&[("main.m", MAIN), ("twice.m", TWICE), ("offset.m", OFFSET)]);
    assert_runs(dir.path(), RUN_3, "y = 109");
    write(
        dir.path(),
        "offset.m",
        "function y = offset(x)\n  y = x + 200;\nend\n",
    );
    assert_runs(dir.path(), RUN_3, "y = 209");
}

#[test]
fn a_function_file_is_called_by_its_file_name() {
    // MATLAB and Octave call the function of `offset.m` whatever its `function` line names.
    let renamed = "function y = add100(x)\n  y = x + 100;\nend\n";
    let dir = project(&[("main.m", MAIN), ("twice.m", TWICE), ("offset.m", renamed)]);
    assert_runs(dir.path(), RUN_3, "y = 109");
}

#[test]
fn errors_in_a_helper_render_in_that_file() {
    let dir = project(&[
        ("main.m", MAIN),
        (
            "twice.m",
            "function y = twice(x)\n  % doubles x\n  y = 2 * unknown_name;\nend\n",
        ),
        ("offset.m", "function y = offset(x)\n  y = x + = 1;\nend\n"),
    ]);
    let check = ["check", "main.m", "--args", "x=double"];
    let expected = [
        "twice.m:3:11",
        "undefined variable or function `unknown_name`",
        "offset.m:2:11",
    ];
    assert_fails(dir.path(), &check, &expected);
}

#[test]
fn an_unused_broken_file_named_like_a_variable_is_not_read() {
    // `x` is a variable: an `x.m` beside the entry is never its function.
    let dir = project(&[
        ("main.m", "function y = main(x)\n  y = x(1) * 2;\nend\n"),
        ("x.m", "this is not MATLAB (\n"),
    ]);
    let run = ["run", "main.m", "--backend", "cpu", "--set", "x=[4 5]"];
    assert_runs(dir.path(), &run, "y = 8");
}

#[test]
fn recursion_across_files_names_the_cycle() {
    let dir = project(&[
        ("ping.m", "function y = ping(n)\n  y = pong(n);\nend\n"),
        ("pong.m", "function y = pong(n)\n  y = ping(n - 1);\nend\n"),
    ]);
    let check = ["check", "ping.m", "--args", "n=double"];
    let expected = [
        "error[E0125]",
        "`ping` calls `pong` calls `ping`",
        "pong.m:2:7",
        "write it as a loop",
    ];
    assert_fails(dir.path(), &check, &expected);
}

#[test]
fn an_unreadable_function_file_is_e0126() {
    let padded = format!(
        "function y = twice(x)\n{}  y = 2 * x;\nend\n",
        "% padding\n".repeat(100)
    );
    let dir = project(&[("main.m", MAIN), ("offset.m", OFFSET), ("twice.m", &padded)]);
    let check = ["check", "main.m", "--args", "x=double"];
    let (ok, out) = m2cu_with(dir.path(), &check, &[("M2CU_MAX_SOURCE_BYTES", "200")]);
    assert!(!ok, "{out}");
    assert!(
        out.contains("error[E0126]") && out.contains("main.m:2:7"),
        "{out}"
    );
}
