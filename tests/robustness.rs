//! The `m2cu` binary against damaged caches, resource bombs, odd encodings and crashing
//! generated code: each ends in a result or a clear error, never a crash or silence.

mod common;

use std::path::Path;
use std::process::{Command, Output};

/// Runs `m2cu` from the repository root with its build cache in `cache`.
fn m2cu_in(cache: &Path, args: &[&str]) -> Output {
    m2cu_env(cache, args, &[])
}

/// [`m2cu_in`] with more environment variables.
fn m2cu_env(cache: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_m2cu"))
        .args(args)
        .current_dir(common::root())
        .env("M2CU_CACHE_DIR", cache)
        .envs(env.iter().copied())
        .output()
        .expect("m2cu runs")
}

/// Writes `dir/name` and returns its path as text.
fn source_file(dir: &Path, name: &str, text: impl AsRef<[u8]>) -> String {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.to_str().unwrap().to_string()
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
    // Two entries: the program and the function that evaluates its `--set` values.
    let objects = cached_objects(cache.path());
    assert_eq!(objects.len(), 2, "{objects:?}");
    let good: Vec<Vec<u8>> = objects
        .iter()
        .map(|so| std::fs::read(so).unwrap())
        .collect();
    for damage in [half, garbage] {
        for (so, good) in objects.iter().zip(&good) {
            std::fs::write(so, damage(good)).unwrap();
        }
        let o = m2cu_in(cache.path(), &VECSUM);
        assert!(o.status.success(), "{}", stderr(&o));
        assert!(stdout(&o).contains("s = 6"), "{}", stdout(&o));
        assert_eq!(
            stderr(&o).matches("is damaged").count(),
            2,
            "{}",
            stderr(&o)
        );
        for (so, good) in objects.iter().zip(&good) {
            assert_eq!(&std::fs::read(so).unwrap(), good, "{}", so.display());
        }
    }
}

/// A cache entry cut in half.
fn half(good: &[u8]) -> Vec<u8> {
    good[..good.len() / 2].to_vec()
}

/// A cache entry of the right length and the wrong bytes.
fn garbage(good: &[u8]) -> Vec<u8> {
    vec![b'x'; good.len()]
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
    let file = source_file(
        dir.path(),
        "farstore.m",
        "function y = farstore(n)\ny = zeros(1, 4);\nfor i = 1:n\n  y(i * 100000000) = i;\nend\nend\n",
    );
    let args = ["run", &file, "--set", "n=3", "--backend", "cpu"];
    let o = m2cu_in(dir.path(), &[&args[..], &["--no-bounds-check"]].concat());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("crashed (SIG"), "{err}");
    assert!(err.contains("run without --no-bounds-check"), "{err}");
}

#[test]
fn sources_that_are_not_regular_files_or_too_big_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (file, expected) in [
        ("/dev/zero", "not a regular file"),
        ("fixtures", "it is a directory"),
    ] {
        let o = m2cu_in(dir.path(), &["parse", file]);
        assert_eq!(o.status.code(), Some(1), "{file}: {}", stderr(&o));
        assert!(stderr(&o).contains(expected), "{}", stderr(&o));
    }
    let o = m2cu_env(
        dir.path(),
        &["parse", "fixtures/e2e/vecsum.m"],
        &[("M2CU_MAX_SOURCE_BYTES", "20")],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("the limit is 20 bytes")
            && stderr(&o).contains("M2CU_MAX_SOURCE_BYTES"),
        "{}",
        stderr(&o)
    );
}

/// A file with a UTF-8 byte-order mark, a Latin-1 comment and a GBK comment ("中文").
const ENCODED: &[u8] =
    b"\xEF\xBB\xBFfunction y = enc(x)\n% caf\xE9\n% \xD6\xD0\xCE\xC4\ny = x + 1;\nend\n";

#[test]
fn byte_order_marks_and_latin_1_or_gbk_comments_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let file = source_file(dir.path(), "enc.m", ENCODED);
    let o = m2cu_in(
        dir.path(),
        &["run", &file, "--set", "x=2", "--backend", "cpu"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("y = 3"), "{}", stdout(&o));
}

#[test]
fn diagnostics_after_latin_1_bytes_keep_their_columns() {
    let dir = tempfile::tempdir().unwrap();
    let file = source_file(
        dir.path(),
        "col.m",
        b"function y = col(x)\nfprintf('caf\xE9'); y = [1 2] * [3 4];\nend\n",
    );
    let o = m2cu_in(dir.path(), &["check", &file, "--args", "x=double"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // `[1 2] * [3 4]` starts at the 22nd character (é is one column).
    assert!(stderr(&o).contains("col.m:2:22"), "{}", stderr(&o));
}

#[test]
fn a_compressed_mat_file_that_inflates_past_the_limit_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("bomb.mat");
    let zeros = m2cu_runtime::Value::new(
        vec![1, 1 << 20],
        m2cu_runtime::Data::Double(vec![0.0; 1 << 20]),
    )
    .unwrap();
    m2cu_runtime::write_mat(&path, &[("v".to_string(), zeros)]).unwrap();
    assert!(std::fs::metadata(&path).unwrap().len() < 100_000);
    let o = m2cu_env(
        dir.path(),
        &[
            "run",
            "fixtures/e2e/vecsum.m",
            "--backend",
            "cpu",
            "--inputs",
            path.to_str().unwrap(),
        ],
        &[("M2CU_MAX_INPUT_BYTES", "1000000")],
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("bomb.mat"), "{err}");
    assert!(err.contains("the limit is 1000000 bytes"), "{err}");
    assert!(err.contains("M2CU_MAX_INPUT_BYTES"), "{err}");
}

#[test]
fn a_stub_cuda_driver_falls_back_to_the_cpu() {
    let dir = tempfile::tempdir().unwrap();
    let stub = source_file(
        dir.path(),
        "stub.c",
        "int cuDriverGetVersion(int *v) { *v = 13000; return 0; }\n",
    );
    for name in ["libcuda.so", "libcuda.so.1"] {
        let built = Command::new("cc")
            .args(["-shared", "-fPIC", "-o"])
            .arg(dir.path().join(name))
            .arg(&stub)
            .status();
        if !built.is_ok_and(|s| s.success()) {
            eprintln!("skipped: no C compiler to build a stub libcuda");
            return;
        }
    }
    let path = std::env::var("LD_LIBRARY_PATH").unwrap_or_default();
    let path = format!("{}:{path}", dir.path().display());
    let o = m2cu_env(
        dir.path(),
        &["run", "fixtures/e2e/vecsum.m", "--set", "v=[1 2 3]"],
        &[("LD_LIBRARY_PATH", &path)],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("s = 6"), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(err.contains("is not usable: it lacks cuInit"), "{err}");
    assert!(err.contains("running on the CPU"), "{err}");
}

/// Widths and precisions beyond `INT_MAX` are ignored, as in Octave, not a silent nothing.
#[test]
fn fprintf_with_a_huge_width_prints_what_octave_prints() {
    if !common::require(common::octave_available(), "octave-cli") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = source_file(
        dir.path(),
        "wide.m",
        "function wide(x)\nfprintf('[%99999999999d]\\n', x);\nfprintf('[%.99999999999f]\\n', x);\n\
         fprintf('[%-99999999999.2f]\\n', x);\nfprintf('[%5d]\\n', x);\nend\n",
    );
    let o = m2cu_in(
        dir.path(),
        &["run", &file, "--set", "x=7", "--backend", "cpu"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let expected = m2cu_runtime::octave::eval(dir.path(), "wide(7);").expect("Octave runs wide");
    assert_eq!(stdout(&o), expected);
    assert_eq!(expected, "[7]\n[7.000000]\n[7.00]\n[    7]\n");
}

/// `--set` values are computed under a cap of twice the input limit: a value past it is
/// MATLAB's "Out of memory." with the limit named (before the cap, `zeros(1,2^31)` allocated
/// 16 GiB and copied it), and a value within it is unchanged.
#[test]
fn set_values_past_the_input_limit_are_out_of_memory() {
    let cache = tempfile::tempdir().unwrap();
    let run = |set: &str, limit: &str| {
        let args = [
            "run",
            "fixtures/e2e/vecsum.m",
            "--set",
            set,
            "--backend",
            "cpu",
        ];
        m2cu_env(cache.path(), &args, &[("M2CU_MAX_INPUT_BYTES", limit)])
    };
    for (set, limit) in [
        ("v=zeros(1,2^31)", "4294967296"),
        ("v=rand(1,1e8)", "100000000"),
    ] {
        let o = run(set, limit);
        assert_eq!(o.status.code(), Some(1), "{set}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("Out of memory."),
            "{set}: {}",
            stderr(&o)
        );
        assert!(
            stderr(&o).contains("M2CU_MAX_INPUT_BYTES"),
            "{set}: {}",
            stderr(&o)
        );
    }
    let o = run("v=ones(1,1e6)", "100000000");
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("s = 1000000"), "{}", stdout(&o));
}
