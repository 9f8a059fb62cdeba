//! Functions in other files through the `m2cu` binary: the entry's folder, `--path`, diagnostics
//! in the file they belong to, recursion across files, and rebuilds when a helper changes.

use std::path::Path;
use std::process::{Command, Output};

fn m2cu(dir: &Path, args: &[&str]) -> (bool, String) {
    let o: Output = Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .args(args)
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

fn write(dir: &Path, name: &str, text: &str) {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

const MAIN: &str = "function y = main(x)\n  y = twice(x) + offset(x);\nend\n";
const TWICE: &str = "function y = twice(x)\n  y = 2 * x;\nend\n";
const OFFSET: &str = "function y = offset(x)\n  y = x + 100;\nend\n";

#[test]
fn helpers_come_from_the_entry_folder_then_each_path() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "src/main.m", MAIN);
    write(dir.path(), "src/twice.m", TWICE);
    write(dir.path(), "lib/offset.m", OFFSET);
    let (ok, out) = m2cu(
        dir.path(),
        &["run", "src/main.m", "--backend", "cpu", "--set", "x=3"],
    );
    assert!(
        !ok && out.contains("undefined variable or function `offset`"),
        "{out}"
    );
    for backend in ["cpu", "emu"] {
        let args = [
            "run",
            "src/main.m",
            "--path",
            "lib",
            "--backend",
            backend,
            "--set",
            "x=3",
        ];
        let (ok, out) = m2cu(dir.path(), &args);
        assert!(ok && out.contains("y = 109"), "{backend}: {out}");
    }
    // The entry's folder comes first: a second `offset.m` there wins over --path.
    write(
        dir.path(),
        "src/offset.m",
        "function y = offset(x)\n  y = x - 1;\nend\n",
    );
    let args = ["check", "src/main.m", "--path", "lib", "--args", "x=double"];
    assert!(m2cu(dir.path(), &args).0);
    let args = [
        "run",
        "src/main.m",
        "--path",
        "lib",
        "--backend",
        "cpu",
        "--set",
        "x=3",
    ];
    let (ok, out) = m2cu(dir.path(), &args);
    assert!(ok && out.contains("y = 8"), "{out}");
}

#[test]
fn a_changed_helper_is_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "main.m", MAIN);
    write(dir.path(), "twice.m", TWICE);
    write(dir.path(), "offset.m", OFFSET);
    let args = ["run", "main.m", "--backend", "cpu", "--set", "x=3"];
    let (ok, out) = m2cu(dir.path(), &args);
    assert!(ok && out.contains("y = 109"), "{out}");
    write(
        dir.path(),
        "offset.m",
        "function y = offset(x)\n  y = x + 200;\nend\n",
    );
    let (ok, out) = m2cu(dir.path(), &args);
    assert!(ok && out.contains("y = 209"), "{out}");
}

#[test]
fn a_function_file_is_called_by_its_file_name() {
    // MATLAB and Octave call the function of `offset.m` whatever its `function` line names.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "main.m", MAIN);
    write(dir.path(), "twice.m", TWICE);
    write(
        dir.path(),
        "offset.m",
        "function y = add100(x)\n  y = x + 100;\nend\n",
    );
    let args = ["run", "main.m", "--backend", "cpu", "--set", "x=3"];
    let (ok, out) = m2cu(dir.path(), &args);
    assert!(ok && out.contains("y = 109"), "{out}");
}

#[test]
fn errors_in_a_helper_render_in_that_file() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "main.m", MAIN);
    write(
        dir.path(),
        "twice.m",
        "function y = twice(x)\n  % doubles x\n  y = 2 * unknown_name;\nend\n",
    );
    write(
        dir.path(),
        "offset.m",
        "function y = offset(x)\n  y = x + = 1;\nend\n",
    );
    let (ok, out) = m2cu(dir.path(), &["check", "main.m", "--args", "x=double"]);
    assert!(!ok, "{out}");
    assert!(out.contains("twice.m:3:11"), "{out}");
    assert!(
        out.contains("undefined variable or function `unknown_name`"),
        "{out}"
    );
    assert!(out.contains("offset.m:2:11"), "{out}");
}

#[test]
fn an_unused_broken_file_named_like_a_variable_is_not_read() {
    // `x` is a variable: an `x.m` beside the entry is never its function.
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "main.m",
        "function y = main(x)\n  y = x(1) * 2;\nend\n",
    );
    write(dir.path(), "x.m", "this is not MATLAB (\n");
    let args = ["run", "main.m", "--backend", "cpu", "--set", "x=[4 5]"];
    let (ok, out) = m2cu(dir.path(), &args);
    assert!(ok && out.contains("y = 8"), "{out}");
}

#[test]
fn recursion_across_files_names_the_cycle() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "ping.m",
        "function y = ping(n)\n  y = pong(n);\nend\n",
    );
    write(
        dir.path(),
        "pong.m",
        "function y = pong(n)\n  y = ping(n - 1);\nend\n",
    );
    let (ok, out) = m2cu(dir.path(), &["check", "ping.m", "--args", "n=double"]);
    assert!(!ok, "{out}");
    assert!(out.contains("error[E0125]"), "{out}");
    assert!(out.contains("`ping` calls `pong` calls `ping`"), "{out}");
    assert!(out.contains("pong.m:2:7"), "{out}");
    assert!(out.contains("write it as a loop"), "{out}");
}

#[test]
fn an_unreadable_function_file_is_e0126() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "main.m", MAIN);
    write(dir.path(), "offset.m", OFFSET);
    let big = format!(
        "function y = twice(x)\n{}  y = 2 * x;\nend\n",
        "% padding\n".repeat(100)
    );
    write(dir.path(), "twice.m", &big);
    let o = Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .args(["check", "main.m", "--args", "x=double"])
        .env("M2CU_MAX_SOURCE_BYTES", "200")
        .current_dir(dir.path())
        .output()
        .expect("m2cu runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(err.contains("error[E0126]"), "{err}");
    assert!(err.contains("main.m:2:7"), "{err}");
}
