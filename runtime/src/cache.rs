//! The on-disk build cache: built shared objects and CUBINs, named by a SHA-256 of everything
//! that determines their content.
//!
//! The directory is, in order: the caller's explicit choice, `$M2CU_CACHE_DIR`,
//! `$XDG_CACHE_HOME/m2cu`, `~/.cache/m2cu`.
//!
//! Invariants:
//! - Entries are produced in a private scratch directory `.build-<pid>-*` and renamed into place,
//!   so concurrent processes building the same entry never see a half-written file (the last
//!   rename wins, with identical content).
//! - Each entry `NAME` has a manifest `NAME.manifest` (`<size> <sha256>`), renamed into place
//!   after the entry. An entry is used only when its manifest is there and its size and hash
//!   match; otherwise (truncated, overwritten, from an interrupted or older build) it is rebuilt,
//!   with a note on stderr, instead of being loaded (a truncated shared object crashes the
//!   process that maps it). A process checks an entry once, and again only when its size or
//!   modification time changed or its manifest is gone.
//! - Scratch directories left by a build that died are removed by the next build in the same
//!   directory: those whose process is gone, and any older than [`STALE_SCRATCH`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::{Error, Result};

/// Scratch directories older than this are abandoned whatever their name says.
const STALE_SCRATCH: Duration = Duration::from_secs(60 * 60);

const SCRATCH_PREFIX: &str = ".build-";

/// The cache directory (created if missing).
pub(crate) fn cache_dir(explicit: Option<&Path>) -> Result<PathBuf> {
    let env_dir = |var: &str| {
        std::env::var_os(var)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let dir = explicit
        .map(Path::to_path_buf)
        .or_else(|| env_dir("M2CU_CACHE_DIR"))
        .or_else(|| env_dir("XDG_CACHE_HOME").map(|d| d.join("m2cu")))
        .or_else(|| env_dir("HOME").map(|d| d.join(".cache").join("m2cu")))
        .ok_or_else(|| {
            Error::Unavailable(
                "no cache directory: set M2CU_CACHE_DIR, XDG_CACHE_HOME or HOME".to_string(),
            )
        })?;
    std::fs::create_dir_all(&dir).map_err(|e| {
        Error::io(
            format!("cannot create cache directory {}", dir.display()),
            e,
        )
    })?;
    Ok(dir)
}

/// Hex SHA-256 over `parts`, each length-prefixed so that part boundaries count.
pub(crate) fn key(parts: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part);
    }
    hex(&hasher.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `dir/name`, produced by `produce` if it is not there yet or fails verification. `produce`
/// gets a scratch directory and returns the path of the file it made there.
pub(crate) fn cached(
    dir: &Path,
    name: &str,
    produce: impl FnOnce(&Path) -> Result<PathBuf>,
) -> Result<PathBuf> {
    let target = dir.join(name);
    if verified_here(&target) {
        return Ok(target);
    }
    let manifest = manifest_path(&target);
    match verify(&target, &manifest) {
        Verdict::Good => {
            remember_verified(&target);
            return Ok(target);
        }
        Verdict::Missing => {}
        Verdict::Bad(why) => eprintln!(
            "m2cu: cache entry {} is damaged ({why}); rebuilding it",
            target.display()
        ),
    }
    remove_stale_scratch(dir);
    let scratch = tempfile::Builder::new()
        .prefix(&format!("{SCRATCH_PREFIX}{}-", std::process::id()))
        .tempdir_in(dir)
        .map_err(|e| {
            Error::io(
                format!("cannot create a scratch directory in {}", dir.display()),
                e,
            )
        })?;
    let made = produce(scratch.path())?;
    let made_manifest = scratch.path().join("entry.manifest");
    let bytes = std::fs::read(&made)
        .map_err(|e| Error::io(format!("cannot read {}", made.display()), e))?;
    std::fs::write(&made_manifest, manifest_text(&bytes))
        .map_err(|e| Error::io(format!("cannot write {}", made_manifest.display()), e))?;
    let move_in = |from: &Path, to: &Path| {
        std::fs::rename(from, to)
            .map_err(|e| Error::io(format!("cannot move {} into the cache", from.display()), e))
    };
    move_in(&made, &target)?;
    move_in(&made_manifest, &manifest)?;
    remember_verified(&target);
    Ok(target)
}

/// The entries this process verified or built, with their size and modification time then.
/// While an entry and its manifest are still there as they were, one check per process is
/// enough: the emulator's precompiled header, some 80 MB, is hashed once rather than at every
/// build that uses it.
fn verified() -> &'static Mutex<HashMap<PathBuf, Stamp>> {
    static VERIFIED: OnceLock<Mutex<HashMap<PathBuf, Stamp>>> = OnceLock::new();
    VERIFIED.get_or_init(Default::default)
}

/// An entry's size and modification time.
type Stamp = (u64, std::time::SystemTime);

fn stamp(target: &Path) -> Option<Stamp> {
    let meta = std::fs::metadata(target).ok()?;
    Some((meta.len(), meta.modified().ok()?))
}

fn verified_here(target: &Path) -> bool {
    let verified = verified().lock().unwrap_or_else(PoisonError::into_inner);
    let Some(seen) = verified.get(target) else {
        return false;
    };
    stamp(target).as_ref() == Some(seen) && manifest_path(target).exists()
}

fn remember_verified(target: &Path) {
    if let Some(stamp) = stamp(target) {
        let mut verified = verified().lock().unwrap_or_else(PoisonError::into_inner);
        verified.insert(target.to_path_buf(), stamp);
    }
}

fn manifest_path(target: &Path) -> PathBuf {
    let mut name = target.as_os_str().to_os_string();
    name.push(".manifest");
    PathBuf::from(name)
}

/// `<size> <sha256>`: what a good entry's bytes look like.
fn manifest_text(bytes: &[u8]) -> String {
    format!("{} {}\n", bytes.len(), hex(&Sha256::digest(bytes)))
}

/// Whether a cache entry can be used.
#[derive(Debug, PartialEq)]
enum Verdict {
    Good,
    /// Neither the entry nor its manifest exists: a plain miss.
    Missing,
    /// Something is there but it cannot be trusted; the reason.
    Bad(String),
}

fn verify(target: &Path, manifest: &Path) -> Verdict {
    let expected = std::fs::read_to_string(manifest).ok();
    let Ok(bytes) = std::fs::read(target) else {
        return match expected {
            None => Verdict::Missing,
            Some(_) => Verdict::Bad("the manifest has no entry".into()),
        };
    };
    match expected {
        None => Verdict::Bad("no manifest: an interrupted or older build".into()),
        Some(expected) if expected == manifest_text(&bytes) => Verdict::Good,
        Some(expected) => Verdict::Bad(format!(
            "size and SHA-256 {}, the manifest says {}",
            manifest_text(&bytes).trim_end(),
            expected.trim_end()
        )),
    }
}

/// Removes the scratch directories of builds that died: their process is gone, or they are
/// older than [`STALE_SCRATCH`]. Errors are ignored (another process may be removing them too).
fn remove_stale_scratch(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(rest) = name.to_str().and_then(|n| n.strip_prefix(SCRATCH_PREFIX)) else {
            continue;
        };
        let owner_gone = owner_pid(rest).is_some_and(|pid| !process_alive(pid));
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_SCRATCH);
        if owner_gone || old {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The pid in a scratch name's `<pid>-<random>` tail.
fn owner_pid(tail: &str) -> Option<u32> {
    tail.split_once('-')?.0.parse().ok()
}

/// Whether a process with this id exists (Linux: `/proc/<pid>`; elsewhere assumed alive, so only
/// the age rule applies).
fn process_alive(pid: u32) -> bool {
    let proc_root = Path::new("/proc/self");
    !proc_root.exists() || Path::new("/proc").join(pid.to_string()).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_separates_parts() {
        assert_ne!(key(&[b"ab", b"c"]), key(&[b"a", b"bc"]));
        assert_eq!(key(&[b"x"]).len(), 64);
    }

    /// Runs `cached` for `f.bin` producing `data`; returns how often `produce` ran.
    fn fill(dir: &Path, runs: &mut u32) -> PathBuf {
        cached(dir, "f.bin", |scratch| {
            *runs += 1;
            let p = scratch.join("out");
            std::fs::write(&p, b"data").unwrap();
            Ok(p)
        })
        .unwrap()
    }

    #[test]
    fn cached_produces_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = 0;
        for _ in 0..2 {
            let path = fill(dir.path(), &mut runs);
            assert_eq!(std::fs::read(path).unwrap(), b"data");
        }
        assert_eq!(runs, 1);
        let explicit = cache_dir(Some(&dir.path().join("sub"))).unwrap();
        assert!(explicit.is_dir());
    }

    #[test]
    fn damaged_entries_are_rebuilt() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = 0;
        let path = fill(dir.path(), &mut runs);
        let manifest = manifest_path(&path);
        let damage: [&dyn Fn(); 4] = [
            &|| std::fs::write(&path, b"da").unwrap(),
            &|| std::fs::write(&path, b"junk").unwrap(),
            &|| std::fs::remove_file(&manifest).unwrap(),
            &|| std::fs::remove_file(&path).unwrap(),
        ];
        for (i, damage) in damage.iter().enumerate() {
            damage();
            assert!(matches!(verify(&path, &manifest), Verdict::Bad(_)), "{i}");
            let rebuilt = fill(dir.path(), &mut runs);
            assert_eq!(std::fs::read(rebuilt).unwrap(), b"data");
            assert_eq!(verify(&path, &manifest), Verdict::Good);
        }
        assert_eq!(runs, 5);
    }

    #[test]
    fn stale_scratch_directories_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let dead = dir.path().join(".build-4000000000-abc");
        let old = dir.path().join(".build-x");
        let live = dir
            .path()
            .join(format!(".build-{}-abc", std::process::id()));
        for d in [&dead, &old, &live] {
            std::fs::create_dir(d).unwrap();
        }
        let long_ago = std::time::SystemTime::now() - 2 * STALE_SCRATCH;
        std::fs::File::open(&old)
            .unwrap()
            .set_modified(long_ago)
            .unwrap();
        fill(dir.path(), &mut 0);
        assert!(!dead.exists() && !old.exists());
        assert!(live.exists());
    }
}
