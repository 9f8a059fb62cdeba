//! MATLAB source files as text: read with a size limit, in the encodings MATLAB and Octave
//! accept.
//!
//! Invariants:
//! - Only regular files are read, at most [`m2cu_runtime::limits::max_source_bytes`] bytes
//!   (16 MiB unless `$M2CU_MAX_SOURCE_BYTES` says otherwise): `/dev/zero` or a directory is an
//!   error, not a hang.
//! - A UTF-8 byte-order mark is dropped. Bytes that are not UTF-8 (Latin-1 or GBK comments, as
//!   in files saved by older editors) are read one character per byte, as Latin-1 (byte `b` is
//!   `U+00bb`), so nothing is refused and each byte is one column in diagnostics; valid UTF-8
//!   sequences stay what they are.

use std::path::Path;

use m2cu_runtime::limits;

/// The text of the MATLAB file at `path`, or why it cannot be read.
pub fn read(path: &Path) -> Result<String, String> {
    let bytes =
        limits::read_file_capped(path, limits::max_source_bytes()).map_err(|e| e.to_string())?;
    Ok(decode(&bytes))
}

/// `bytes` as text: BOM dropped, UTF-8 where valid, Latin-1 per byte elsewhere.
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut text = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        text.push_str(chunk.valid());
        text.extend(chunk.invalid().iter().map(|&b| char::from(b)));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn boms_are_dropped_and_other_bytes_read_as_latin_1() {
        assert_eq!(decode(b"\xEF\xBB\xBFx = 1;"), "x = 1;");
        assert_eq!(decode("% é\n".as_bytes()), "% é\n");
        assert_eq!(decode(b"% caf\xE9\n"), "% caf\u{e9}\n");
        // GBK for "中文": four bytes, four characters.
        assert_eq!(decode(b"% \xD6\xD0\xCE\xC4").chars().count(), 6);
    }
}
