//! The on-disk build cache: built shared objects and CUBINs, named by a SHA-256 of everything
//! that determines their content.
//!
//! The directory is, in order: the caller's explicit choice, `$M2CU_CACHE_DIR`,
//! `$XDG_CACHE_HOME/m2cu`, `~/.cache/m2cu`. Entries are produced in a private scratch directory
//! and renamed into place, so concurrent processes building the same entry never see a
//! half-written file (the last rename wins, with identical content).

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::{Error, Result};

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
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// `dir/name`, produced by `produce` if it is not there yet. `produce` gets a scratch directory
/// and returns the path of the file it made there.
pub(crate) fn cached(
    dir: &Path,
    name: &str,
    produce: impl FnOnce(&Path) -> Result<PathBuf>,
) -> Result<PathBuf> {
    let target = dir.join(name);
    if target.is_file() {
        return Ok(target);
    }
    let scratch = tempfile::Builder::new()
        .prefix(".build-")
        .tempdir_in(dir)
        .map_err(|e| {
            Error::io(
                format!("cannot create a scratch directory in {}", dir.display()),
                e,
            )
        })?;
    let made = produce(scratch.path())?;
    std::fs::rename(&made, &target)
        .map_err(|e| Error::io(format!("cannot move {} into the cache", made.display()), e))?;
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_separates_parts() {
        assert_ne!(key(&[b"ab", b"c"]), key(&[b"a", b"bc"]));
        assert_eq!(key(&[b"x"]).len(), 64);
    }

    #[test]
    fn cached_produces_once() {
        let dir = tempfile::tempdir().unwrap();
        let mut runs = 0;
        for _ in 0..2 {
            let path = cached(dir.path(), "f.bin", |scratch| {
                runs += 1;
                let p = scratch.join("out");
                std::fs::write(&p, b"data").unwrap();
                Ok(p)
            })
            .unwrap();
            assert_eq!(std::fs::read(path).unwrap(), b"data");
        }
        assert_eq!(runs, 1);
        let explicit = cache_dir(Some(&dir.path().join("sub"))).unwrap();
        assert!(explicit.is_dir());
    }
}
