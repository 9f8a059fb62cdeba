//! What the user writes reaches generated code only as data: string literals print exactly what
//! MATLAB prints and can run nothing (no quote, backslash, trigraph or comment delimiter breaks
//! out), a path in a comment cannot close it, names that are reserved in C, C++, CUDA or the C
//! library (entry functions included) are renamed, and renaming always terminates.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use m2cu::{Backend, RunOptions, Value};

/// Runs the `m2cu` binary in `dir`, killing it (and failing) after `limit`.
fn m2cu_in(dir: &Path, args: &[&str], limit: Duration) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .args(args)
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("m2cu starts");
    let start = Instant::now();
    while child.try_wait().expect("m2cu waits").is_none() {
        if start.elapsed() > limit {
            child.kill().expect("m2cu is killed");
            child.wait().expect("m2cu ends");
            panic!("m2cu {args:?} still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().expect("m2cu output")
}

fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8_lossy(&o.stdout).into_owned()
}

const MINUTE: Duration = Duration::from_secs(60);

/// `fprintf` text that would close the C string (through the `??/` trigraph, a quote or a
/// backslash) and call `system`; and quotes, `%%`, comment delimiters, other trigraphs and UTF-8.
const PRINTS: &str = r#"function y = prints(x)
fprintf('??/", stdout);system("touch PWNED");//');
fprintf('\n');
fprintf('a??/b\n');
fprintf('q''"\\ %% */ /* ??= ??( ??'' é ñ x=%d\n', x);
y = x;
end
"#;

/// `%c` and `%s` of char values: one character with a field width, and whole char arrays (a
/// variable, a slice, a literal, a double-quoted string and a format in double quotes).
const TEXT_PRINTS: &str = r#"function n = textprints(s)
fprintf('[%s] %c|%5c|%-3s| n=%d %s\n', s, s(1), s(2), 'x', numel(s), "end");
fprintf("%s;%s\n", upper(s(2:end)), '');
n = numel(s);
end
"#;

#[test]
fn char_values_print_as_octave_prints_them() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("textprints.m"), TEXT_PRINTS).unwrap();
    let expected = "[hello] h|    e|x  | n=5 end\nELLO;\n";
    if common::octave_available().is_ok() {
        let octave =
            m2cu_runtime::octave::eval(dir.path(), "textprints('hello');").expect("Octave runs");
        assert_eq!(octave, expected, "Octave prints otherwise");
    }
    for backend in ["cpu", "emu"] {
        let args = [
            "run",
            "textprints.m",
            "--backend",
            backend,
            "--set",
            "s='hello'",
        ];
        let out = stdout(&m2cu_in(dir.path(), &args, MINUTE));
        let printed = out.split("n = ").next().unwrap();
        assert_eq!(printed, expected, "{backend}");
    }
}

#[test]
fn string_literals_print_exactly_and_run_nothing() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("prints.m"), PRINTS).unwrap();
    let expected =
        "??/\", stdout);system(\"touch PWNED\");//\na??/b\nq'\"\\ % */ /* ??= ??( ??' é ñ x=3\n";
    if common::octave_available().is_ok() {
        let octave = m2cu_runtime::octave::eval(dir.path(), "prints(3);").expect("Octave runs");
        assert_eq!(octave, expected, "Octave prints otherwise");
    }
    for backend in ["cpu", "emu"] {
        let args = ["run", "prints.m", "--backend", backend, "--set", "x=3"];
        let out = stdout(&m2cu_in(dir.path(), &args, MINUTE));
        let printed = out.split("y = ").next().unwrap();
        assert_eq!(printed, expected, "{backend}");
        assert!(
            !dir.path().join("PWNED").exists(),
            "{backend} ran a command"
        );
    }
}

#[test]
fn a_path_in_a_comment_cannot_close_it() {
    let root = tempfile::tempdir().unwrap();
    let hostile = [
        "x*",
        r#" __attribute__((constructor)) static void pwn(void){system("touch PWNED");} "#,
        "*",
    ];
    let dir = hostile
        .iter()
        .fold(root.path().to_path_buf(), |d, p| d.join(p));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("twice.m"),
        "function y = twice(x)\ny = 2 * x;\nend\n",
    )
    .unwrap();
    let file = format!("{}/twice.m", hostile.join("/"));
    let out = root.path().join("out");
    let translate = ["translate", &file, "--args", "x=double", "-o", "out"];
    stdout(&m2cu_in(root.path(), &translate, MINUTE));
    for ext in ["c", "h", "cu", "kernels.cu"] {
        let text = std::fs::read_to_string(out.join(format!("twice.{ext}"))).unwrap();
        assert!(!text.contains("__attribute__(("), "twice.{ext}:\n{text}");
        assert!(
            text.contains("x%2A/ __attribute__%28%28constructor"),
            "twice.{ext}"
        );
    }
    let run = ["run", &file, "--backend", "cpu", "--set", "x=4"];
    assert_eq!(stdout(&m2cu_in(root.path(), &run, MINUTE)).trim(), "y = 8");
    assert!(!root.path().join("PWNED").exists());
}

#[test]
fn a_local_with_the_m2cu_prefix_is_renamed_and_check_finishes() {
    let dir = tempfile::tempdir().unwrap();
    let source = "function y = f(x)\nm2cu_x = x + 1;\nM2CU_y = m2cu_x * 2;\ny = M2CU_y;\nend\n";
    std::fs::write(dir.path().join("f.m"), source).unwrap();
    let limit = Duration::from_secs(30);
    stdout(&m2cu_in(
        dir.path(),
        &["check", "f.m", "--args", "x=double"],
        limit,
    ));
    let run = ["run", "f.m", "--backend", "cpu", "--set", "x=2"];
    assert_eq!(stdout(&m2cu_in(dir.path(), &run, limit)).trim(), "y = 6");
}

/// The same function under a name that is reserved in C or C++, or a C library function.
fn entry_named(name: &str) -> String {
    format!(
        "function y = {name}(x)\ny = zeros(size(x));\nfor i = 1:numel(x)\n    y(i) = 2 * x(i) + 1;\nend\nend\n"
    )
}

#[test]
fn entry_functions_with_reserved_names_build_and_run() {
    let inputs = vec![("x".to_string(), Value::row(vec![1.0, 2.0, 4500.0]))];
    let expected = vec![("y".to_string(), Value::row(vec![3.0, 5.0, 9001.0]))];
    let nvrtc = m2cu_runtime::nvrtc_available().is_ok();
    for name in [
        "plain", "abs", "round", "printf", "double", "int", "exit", "true", "nan",
    ] {
        let options = m2cu::Options {
            file_name: format!("{name}.m"),
            ..Default::default()
        };
        for backend in [Backend::Cpu, Backend::Emu] {
            let run_options = RunOptions {
                backend,
                ..Default::default()
            };
            let outputs = m2cu::run(&entry_named(name), &inputs, &options, &run_options)
                .unwrap_or_else(|e| panic!("{name} on {backend:?}: {e}"))
                .outputs;
            assert_eq!(outputs, expected, "{name} on {backend:?}");
        }
        if nvrtc {
            let t = m2cu::translate(
                &entry_named(name),
                &m2cu::Options {
                    args: vec!["x=double(1,:)".into()],
                    ..options.clone()
                },
            )
            .unwrap();
            m2cu_runtime::compile_cubin(&t.generated.kernels_cu, "sm_80", name)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
    }
}

/// Arrays whose names the GPU program's own handles are made from (`m2cu_dev_<name>` is an
/// array's device buffer): an array named `err` beside the call's error word, which was once
/// `m2cu_dev_err` too and made the host program fail to compile (corpus `kinetics_euler`).
#[test]
fn arrays_named_like_the_gpu_programs_own_handles_build_and_run() {
    let source = "function [err, fails] = f(x)\nerr = zeros(size(x));\nfails = zeros(size(x));\n\
                  for i = 1:numel(x)\n    err(i) = x(i) ^ 2;\n    fails(i) = err(i) + 1;\nend\nend\n";
    let inputs = vec![("x".to_string(), Value::row(vec![1.0, 2.0, 3.0]))];
    let expected = vec![
        ("err".to_string(), Value::row(vec![1.0, 4.0, 9.0])),
        ("fails".to_string(), Value::row(vec![2.0, 5.0, 10.0])),
    ];
    let options = m2cu::Options {
        file_name: "f.m".into(),
        ..Default::default()
    };
    for backend in [Backend::Cpu, Backend::Emu] {
        let run_options = RunOptions {
            backend,
            ..Default::default()
        };
        let outputs = m2cu::run(source, &inputs, &options, &run_options)
            .unwrap_or_else(|e| panic!("{backend:?}: {e}"))
            .outputs;
        assert_eq!(outputs, expected, "{backend:?}");
    }
}
