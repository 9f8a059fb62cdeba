//! Caps on what inputs may make m2cu allocate, so that a hostile or mistaken input (a small
//! compressed MAT-file that inflates to gigabytes, dimensions whose product overflows,
//! `/dev/zero` as a source file) ends in an error that states the limit and how to raise it,
//! not in an out-of-memory kill or a hang.
//!
//! - Input values (MAT-file variables, constant expressions such as `--set 'v=zeros(1,2^31)'`):
//!   at most [`max_input_bytes`] each, default the smaller of 4 GiB and a quarter of the
//!   machine's memory, overridden by `$M2CU_MAX_INPUT_BYTES`. Check with [`check_value_size`]
//!   before allocating.
//! - Values a program computes for the caller (`--set`): the CLI evaluates them under
//!   [`cap_address_space`], so that an allocation past the limit fails in the generated code
//!   (MATLAB's "Out of memory.") instead of taking the machine's memory.
//! - Files read whole (MAT-files, MATLAB sources): regular files only, read with
//!   [`read_file_capped`]; sources are capped at [`max_source_bytes`], default 16 MiB,
//!   overridden by `$M2CU_MAX_SOURCE_BYTES`.

use std::io::Read;
use std::path::Path;

use crate::value::{dims_text, ClassId};
use crate::{Error, Result};

/// The environment variable that overrides [`max_input_bytes`].
pub const MAX_INPUT_BYTES_VAR: &str = "M2CU_MAX_INPUT_BYTES";
/// The environment variable that overrides [`max_source_bytes`].
pub const MAX_SOURCE_BYTES_VAR: &str = "M2CU_MAX_SOURCE_BYTES";

const GIB: u64 = 1 << 30;
const DEFAULT_MAX_SOURCE_BYTES: u64 = 16 << 20;

/// A byte limit and where it comes from, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    pub bytes: u64,
    /// The environment variable that raises it.
    pub variable: &'static str,
}

impl Limit {
    /// "the limit is N bytes (set M2CU_… to raise it)".
    pub fn text(&self) -> String {
        format!(
            "the limit is {} bytes{}; set {}=BYTES to raise it",
            self.bytes,
            human(self.bytes),
            self.variable
        )
    }
}

/// The most bytes one input value may occupy.
pub fn max_input_bytes() -> Limit {
    let default = || physical_memory().map_or(4 * GIB, |m| (m / 4).min(4 * GIB));
    Limit {
        bytes: from_env(MAX_INPUT_BYTES_VAR).unwrap_or_else(default),
        variable: MAX_INPUT_BYTES_VAR,
    }
}

/// The largest MATLAB source file read.
pub fn max_source_bytes() -> Limit {
    Limit {
        bytes: from_env(MAX_SOURCE_BYTES_VAR).unwrap_or(DEFAULT_MAX_SOURCE_BYTES),
        variable: MAX_SOURCE_BYTES_VAR,
    }
}

fn from_env(variable: &str) -> Option<u64> {
    std::env::var(variable).ok()?.trim().parse().ok()
}

/// `MemTotal` of `/proc/meminfo`, in bytes.
fn physical_memory() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// ` (4.0 GiB)`, ` (16.0 MiB)`; nothing below a mebibyte.
fn human(bytes: u64) -> String {
    match bytes {
        b if b >= GIB => format!(" ({:.1} GiB)", b as f64 / GIB as f64),
        b if b >= 1 << 20 => format!(" ({:.1} MiB)", b as f64 / (1u64 << 20) as f64),
        _ => String::new(),
    }
}

/// Lowers this process's address-space limit (the soft `RLIMIT_AS`) to what it uses now plus
/// `extra` bytes until the guard is dropped, so that allocations past it fail (`malloc` returns
/// NULL) instead of growing without bound. Child processes (the C compiler) inherit the limit
/// while it holds. `None` where the limit cannot be read or set (not Linux); the work then runs
/// uncapped. For a single-threaded caller: the limit is process-wide.
#[cfg(target_os = "linux")]
pub fn cap_address_space(extra: u64) -> Option<AddressSpaceCap> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let page = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
    let mut old = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `old` is a valid out-pointer.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut old) } != 0 {
        return None;
    }
    let cap = pages
        .saturating_mul(page)
        .saturating_add(extra)
        .min(old.rlim_cur)
        .min(old.rlim_max);
    let new = libc::rlimit {
        rlim_cur: cap,
        rlim_max: old.rlim_max,
    };
    // SAFETY: `new` is a valid rlimit whose soft value does not exceed the hard one.
    (unsafe { libc::setrlimit(libc::RLIMIT_AS, &new) } == 0).then_some(AddressSpaceCap { old })
}

/// Without `RLIMIT_AS` the work runs uncapped.
#[cfg(not(target_os = "linux"))]
pub fn cap_address_space(_extra: u64) -> Option<AddressSpaceCap> {
    None
}

/// Restores the address-space limit that [`cap_address_space`] lowered.
pub struct AddressSpaceCap {
    #[cfg(target_os = "linux")]
    old: libc::rlimit,
}

#[cfg(target_os = "linux")]
impl Drop for AddressSpaceCap {
    fn drop(&mut self) {
        // SAFETY: restores the soft limit read before (raising a soft limit up to the unchanged
        // hard limit is always allowed).
        unsafe { libc::setrlimit(libc::RLIMIT_AS, &self.old) };
    }
}

/// Refuses a value of `class` with extents `dims` (`what` names it) whose size overflows or
/// exceeds `limit`; call before allocating its elements.
pub fn check_value_size(what: &str, class: ClassId, dims: &[usize], limit: Limit) -> Result<()> {
    let bytes = dims
        .iter()
        .try_fold(class.element_size() as u64, |n, &d| n.checked_mul(d as u64));
    match bytes {
        Some(b) if b <= limit.bytes => Ok(()),
        _ => Err(Error::Value(format!(
            "{what}: a {} {class} array needs {}, more than m2cu accepts for an input: {}",
            dims_text(dims),
            bytes.map_or("more than 2^64 bytes".to_string(), |b| format!("{b} bytes")),
            limit.text()
        ))),
    }
}

/// Reads at most `limit` bytes from a source that may hold more (a zlib stream), and refuses it
/// when it does; `what` names the source.
pub fn read_capped(reader: impl Read, limit: Limit, what: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(limit.bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(format!("cannot read {what}"), e))?;
    if bytes.len() as u64 > limit.bytes {
        return Err(too_big(what, limit));
    }
    Ok(bytes)
}

fn too_big(what: &str, limit: Limit) -> Error {
    Error::Value(format!(
        "{what} is larger than m2cu accepts: {}",
        limit.text()
    ))
}

/// The bytes of the regular file `path`, refused when larger than `limit` (and when not a
/// regular file: a directory, a device such as `/dev/zero`, a pipe).
pub fn read_file_capped(path: &Path, limit: Limit) -> Result<Vec<u8>> {
    let what = path.display().to_string();
    let file =
        std::fs::File::open(path).map_err(|e| Error::io(format!("cannot read {what}"), e))?;
    let meta = file
        .metadata()
        .map_err(|e| Error::io(format!("cannot read {what}"), e))?;
    if !meta.is_file() {
        let kind = if meta.is_dir() {
            "a directory"
        } else {
            "not a regular file (a device, pipe or socket)"
        };
        return Err(Error::Value(format!(
            "cannot read {what}: it is {kind}; give a file"
        )));
    }
    if meta.len() > limit.bytes {
        return Err(too_big(&what, limit));
    }
    read_capped(file, limit, &what)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SMALL: Limit = Limit {
        bytes: 100,
        variable: MAX_INPUT_BYTES_VAR,
    };

    #[test]
    fn value_sizes_are_checked_before_allocating() {
        check_value_size("v", ClassId::Double, &[1, 12], SMALL).unwrap();
        let e = check_value_size("v", ClassId::Double, &[1, 13], SMALL).unwrap_err();
        let text = e.to_string();
        assert!(text.contains("104 bytes"), "{text}");
        assert!(text.contains("set M2CU_MAX_INPUT_BYTES=BYTES"), "{text}");
        let e = check_value_size("v", ClassId::Int8, &[1 << 40, 1 << 40], SMALL).unwrap_err();
        assert!(e.to_string().contains("more than 2^64 bytes"), "{e}");
    }

    #[test]
    fn capped_reads_stop_at_the_limit() {
        assert_eq!(read_capped(&[7u8; 100][..], SMALL, "x").unwrap().len(), 100);
        let e = read_capped(std::io::repeat(0), SMALL, "zeros").unwrap_err();
        assert!(e.to_string().contains("zeros is larger"), "{e}");
        let e = read_file_capped(Path::new("/dev/zero"), SMALL).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
        let e = read_file_capped(Path::new("/"), SMALL).unwrap_err();
        assert!(e.to_string().contains("a directory"), "{e}");
    }
}
