//! README.md's console examples, run as a user would type them: every ```console block's
//! `$ command` lines are run in order, in a folder where `fixtures/` is this repository's
//! (so files the examples write land there, not in the checkout), and what each prints on
//! standard output and standard error together must equal the lines under it, with snapbox's
//! wildcards: `[..]` for any text within a line (a timing), `...` on a line of its own for any
//! lines; blank lines at the end of an output are not compared (they separate examples). A
//! command that must fail has the line `? failed` right under it, as trycmd writes it. `m2cu` is the binary under test; other commands (`octave-cli`) come from the `PATH`.
//! A stale example fails here, not in a user's terminal.

mod common;

use std::path::Path;
use std::process::Command;

/// One `$ command` of a console block and the output shown under it.
struct Example {
    line: usize,
    command: String,
    /// Whether the command must fail: the line `? failed` right under it (trycmd's mark).
    fails: bool,
    output: String,
}

/// The examples of every ```console block of `text`, in order.
fn examples(text: &str) -> Vec<Example> {
    let mut examples = Vec::new();
    let mut in_console = false;
    for (k, line) in text.lines().enumerate() {
        match line.trim_end() {
            "```console" => in_console = true,
            "```" if in_console => in_console = false,
            _ if !in_console => {}
            l => match l.strip_prefix("$ ") {
                Some(command) => examples.push(Example {
                    line: k + 1,
                    command: command.to_string(),
                    fails: false,
                    output: String::new(),
                }),
                None => {
                    let example = examples
                        .last_mut()
                        .expect("a console block starts with `$ `");
                    if l == "? failed" && example.output.is_empty() {
                        example.fails = true;
                    } else {
                        example.output.push_str(line);
                        example.output.push('\n');
                    }
                }
            },
        }
    }
    examples
}

/// Runs `example` in `dir`; its exit status and its standard output and error, interleaved as
/// a terminal shows them (both go to one file).
fn run(example: &Example, dir: &Path) -> (std::process::ExitStatus, String) {
    let words = shlex::split(&example.command)
        .unwrap_or_else(|| panic!("README.md:{}: cannot split the command", example.line));
    let program = match words[0].as_str() {
        "m2cu" => env!("CARGO_BIN_EXE_m2cu").to_string(),
        other => other.to_string(),
    };
    let log = dir.join(".m2cu-readme-output");
    let file = std::fs::File::create(&log).expect("create the output file");
    let status = Command::new(&program)
        .args(&words[1..])
        .current_dir(dir)
        .stdout(file.try_clone().expect("clone the output file"))
        .stderr(file)
        .status()
        .unwrap_or_else(|e| panic!("README.md:{}: cannot run {program}: {e}", example.line));
    (
        status,
        std::fs::read_to_string(&log).expect("read the output"),
    )
}

#[test]
fn readme_console_examples_print_what_they_show() {
    if !common::require(common::octave_available(), "octave-cli")
        || !common::require(common::mkoctfile_available(), "mkoctfile")
    {
        return;
    }
    let readme = std::fs::read_to_string(common::root().join("README.md")).expect("README.md");
    let examples = examples(&readme);
    assert!(examples.len() >= 5, "README.md has console examples");
    let dir = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(common::root().join("fixtures"), dir.path().join("fixtures"))
        .expect("link fixtures/");
    for example in &examples {
        let (status, output) = run(example, dir.path());
        assert_eq!(
            status.success(),
            !example.fails,
            "README.md:{}: `{}` exited with {status}:\n{output}",
            example.line,
            example.command
        );
        let name = format!("README.md:{}: `{}`", example.line, example.command);
        // Blank lines at the end separate examples in a block: they are not compared.
        let trimmed = |text: &str| format!("{}\n", text.trim_end_matches('\n'));
        snapbox::Assert::new()
            .try_eq(
                Some(&name),
                snapbox::Data::text(trimmed(&output)),
                snapbox::Data::text(trimmed(&example.output)),
            )
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
