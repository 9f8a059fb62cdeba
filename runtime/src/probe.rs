//! Which optional flags the C compiler accepts (`-fopenmp`): each asked by
//! building an empty file, once per compiler and flag.
//!
//! Invariants: an answer is remembered in the process and in the build cache, so a warm
//! `m2cu run` starts no compiler at all. The cache entry is named by the compiler command, the
//! flag, and the compiler executable's resolved path, size and modification time, so a
//! compiler that is upgraded or replaced is asked again. A cache that cannot be written only
//! costs the probe in the next process; a compiler that cannot be found answers "no" (the build
//! that follows reports it).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};
use std::time::UNIX_EPOCH;

use crate::cache;

/// The answers this process knows, by compiler command and flag.
type Answers = Mutex<HashMap<(Vec<String>, String), bool>>;

/// Whether `compiler` (program and leading arguments) builds a shared object with `flag`.
pub(crate) fn accepts(compiler: &[String], flag: &str, cache_dir: Option<&Path>) -> bool {
    static ANSWERS: OnceLock<Answers> = OnceLock::new();
    let answers = ANSWERS.get_or_init(Default::default);
    let key = (compiler.to_vec(), flag.to_string());
    if let Some(&known) = answers.lock().expect("probe lock").get(&key) {
        return known;
    }
    let answer = cached_answer(compiler, flag, cache_dir).unwrap_or_else(|| ask(compiler, flag));
    answers.lock().expect("probe lock").insert(key, answer);
    answer
}

/// The answer kept in the build cache, asking the compiler (and keeping its answer) when the
/// cache has none; `None` when there is no usable cache or no compiler to name the entry by.
fn cached_answer(compiler: &[String], flag: &str, cache_dir: Option<&Path>) -> Option<bool> {
    let identity = identity(&compiler[0])?;
    let dir = cache::cache_dir(cache_dir).ok()?;
    let key = cache::key(&[
        compiler.join(" ").as_bytes(),
        flag.as_bytes(),
        identity.as_bytes(),
    ]);
    let entry = cache::cached(&dir, &format!("probe-{key}.txt"), |scratch| {
        let answer = scratch.join("answer.txt");
        let text = if ask(compiler, flag) { "yes" } else { "no" };
        std::fs::write(&answer, text)
            .map_err(|e| crate::Error::io(format!("cannot write {}", answer.display()), e))?;
        Ok(answer)
    })
    .ok()?;
    Some(std::fs::read_to_string(entry).ok()?.trim() == "yes")
}

/// The compiler executable's resolved path, size and modification time.
fn identity(program: &str) -> Option<String> {
    let path: PathBuf = which::which(program).ok()?.canonicalize().ok()?;
    let meta = std::fs::metadata(&path).ok()?;
    let modified = meta.modified().ok()?.duration_since(UNIX_EPOCH).ok()?;
    Some(format!(
        "{} {} {}",
        path.display(),
        meta.len(),
        modified.as_nanos()
    ))
}

/// Builds an empty file with `flag` and says whether the compiler succeeded.
fn ask(compiler: &[String], flag: &str) -> bool {
    let Ok(scratch) = tempfile::tempdir() else {
        return false;
    };
    let source = scratch.path().join("probe.c");
    if std::fs::write(&source, "int m2cu_probe;\n").is_err() {
        return false;
    }
    Command::new(&compiler[0])
        .args(&compiler[1..])
        .args([flag, "-fPIC", "-shared", "-o"])
        .arg(scratch.path().join("probe.so"))
        .arg(&source)
        .output()
        .is_ok_and(|o| o.status.success())
}
