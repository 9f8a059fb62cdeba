//! The error of a call of generated code that stopped ([`CallError`]): what stopped it (an
//! [`ErrorCode`]), MATLAB's message with the place, and the place as data ([`Location`]).
//!
//! The generated entry writes its message into the caller's buffer as a C string and, after
//! its NUL where it fits, a record for this module (`m2cu_message` in the prelude):
//! `\x1eSTATUS\x1eDETAILED\x1eORDERED\x1eVALUE\x1eBOUND\x1eSITE`, where `STATUS` is
//! `code + 256 * site`, `DETAILED` (0 or 1) says whether `VALUE` and `BOUND` are known,
//! `ORDERED` whether the value is MATLAB's first failing one, and `SITE` is the site's text (`QUOTE\x1fFILE:LINE:COL`, and
//! `\x1fPOSITION\x1fSUBSCRIPT` for a subscript; see `m2cu_codegen::sites`). A message without
//! a record (a buffer too short, or a status from the runtime's own services) has no location.

use std::fmt;

pub use m2cu_frontend::errors::ErrorCode;

/// A call of generated code stopped with one of m2cu's run-time errors (not the program's own
/// `error`, which is [`Error::Raised`](crate::Error::Raised)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct CallError {
    /// What stopped it; `None` for a status m2cu does not know (a bug to report).
    pub code: Option<ErrorCode>,
    /// The message as MATLAB users read it, place included: "Index exceeds the number of array
    /// elements. Index must not exceed 10. (`x(i)` at saxpy.m:4:12, i = 11)".
    pub message: String,
    /// Where in the MATLAB source it stopped, when the check that failed has a place.
    pub location: Option<Location>,
}

/// The place in the MATLAB source of a failed run-time check.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Location {
    /// The file as diagnostics name it (`saxpy.m`, `<m2cu>/histcounts.m` for m2cu's library).
    pub file: String,
    /// 1-based line.
    pub line: u32,
    /// 1-based column, in characters.
    pub column: u32,
    /// The source there when it is one short line: the access (`x(i + 1)`), the call
    /// (`sqrt(x(1) - k)`) or the statement (`z = zeros(k, 2)`).
    pub source: Option<String>,
    /// For a failed subscript, which one and what it held.
    pub subscript: Option<Subscript>,
}

/// The subscript of a failed index check.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Subscript {
    /// Its 1-based position among the access's subscripts (`A(i, j)`: `j` is 2), `None` for a
    /// linear index (`x(k)`).
    pub position: Option<usize>,
    /// Its source text (`i + 1`), when it is one short line.
    pub source: Option<String>,
    /// The value it had (where the check keeps one: on the host, and in kernels the first
    /// thread's that failed).
    pub value: Option<f64>,
    /// Whether `value` is the one MATLAB reports, the first failing in the program's order:
    /// a check on the host outside a parallel loop. Otherwise it is the value of one failing
    /// thread (of a kernel or an OpenMP loop), and an earlier iteration may have failed too;
    /// the message then leaves it out.
    pub in_order: bool,
    /// The largest index it could have had (`numel`, or the extent of its dimension).
    pub bound: Option<i64>,
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl CallError {
    /// An error with a message and no place (the runtime's own, or a message without record).
    pub fn new(code: Option<ErrorCode>, message: impl Into<String>) -> CallError {
        CallError {
            code,
            message: message.into(),
            location: None,
        }
    }

    /// The error of a failed call from its status and the bytes of its message buffer: the
    /// message up to the first NUL, and the record after it when there is one.
    pub(crate) fn from_buffer(status: i32, buffer: &[u8]) -> CallError {
        let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
        let message = String::from_utf8_lossy(&buffer[..end]).into_owned();
        let message = if message.is_empty() {
            format!("generated code failed with status {status} and no message")
        } else {
            message
        };
        let record = buffer.get(end + 1..).and_then(record_text);
        let parsed = record.as_deref().and_then(Record::parse);
        let status = parsed.as_ref().map_or(status, |r| r.status);
        CallError {
            code: ErrorCode::from_status(status),
            message,
            location: parsed.and_then(Record::location),
        }
    }

    /// The identifier a MEX function raises this error with (`m2cu:indexRange`).
    pub fn identifier(&self) -> String {
        self.code
            .map_or_else(|| "m2cu:unknown".to_string(), ErrorCode::identifier)
    }
}

/// The record's text: after the message's NUL, from its `\x1e` to the next NUL.
fn record_text(rest: &[u8]) -> Option<String> {
    let rest = rest.strip_prefix(b"\x1e")?;
    let end = rest.iter().position(|&b| b == 0)?;
    Some(String::from_utf8_lossy(&rest[..end]).into_owned())
}

/// The fields of a message's record.
struct Record<'a> {
    status: i32,
    /// The subscript's value and bound, where the check kept them.
    detail: Option<(f64, i64)>,
    ordered: bool,
    site: &'a str,
}

impl<'a> Record<'a> {
    fn parse(text: &'a str) -> Option<Record<'a>> {
        let mut fields = text.splitn(6, '\u{1e}');
        let status = fields.next()?.parse().ok()?;
        let detailed = fields.next()? == "1";
        let ordered = fields.next()? == "1";
        let value: f64 = fields.next()?.parse().ok()?;
        let bound: i64 = fields.next()?.parse().ok()?;
        let site = fields.next()?;
        Some(Record {
            status,
            detail: detailed.then_some((value, bound)),
            ordered: detailed && ordered,
            site,
        })
    }

    /// The place the site text names: `QUOTE\x1fFILE:LINE:COL[\x1fPOSITION\x1fSUBSCRIPT]`.
    fn location(self) -> Option<Location> {
        let mut fields = self.site.split('\u{1f}');
        let quote = fields.next()?;
        let (file, line, column) = place(fields.next()?)?;
        let position = fields.next().and_then(|p| p.parse::<usize>().ok());
        let subscript = position.map(|position| Subscript {
            position: (position > 0).then_some(position),
            source: fields.next().filter(|s| !s.is_empty()).map(str::to_string),
            value: self.detail.map(|(value, _)| value),
            in_order: self.ordered,
            bound: self.detail.map(|(_, bound)| bound),
        });
        Some(Location {
            file: file.to_string(),
            line,
            column,
            source: (!quote.is_empty()).then(|| quote.to_string()),
            subscript,
        })
    }
}

/// `f.m:4:12` as its parts (the file name may hold colons itself).
fn place(text: &str) -> Option<(&str, u32, u32)> {
    let mut parts = text.rsplitn(3, ':');
    let column = parts.next()?.parse().ok()?;
    let line = parts.next()?.parse().ok()?;
    Some((parts.next()?, line, column))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(message: &str, record: &str) -> Vec<u8> {
        let mut b = message.as_bytes().to_vec();
        b.push(0);
        b.extend_from_slice(record.as_bytes());
        b.push(0);
        b.resize(64.max(b.len()), 0);
        b
    }

    #[test]
    fn a_record_gives_the_place_and_the_subscript() {
        let b = buffer(
            "Index in position 2 exceeds array bounds. (`A(i, j)` at C:/f.m:4:12, j = 4)",
            "\u{1e}513\u{1e}1\u{1e}1\u{1e}4\u{1e}3\u{1e}A(i, j)\u{1f}C:/f.m:4:12\u{1f}2\u{1f}j",
        );
        let e = CallError::from_buffer(1, &b);
        assert_eq!(e.code, Some(ErrorCode::IndexRange));
        let at = e.location.expect("a place");
        assert_eq!((at.file.as_str(), at.line, at.column), ("C:/f.m", 4, 12));
        assert_eq!(at.source.as_deref(), Some("A(i, j)"));
        let s = at.subscript.expect("a subscript");
        assert_eq!(s.position, Some(2));
        assert_eq!(s.source.as_deref(), Some("j"));
        assert_eq!((s.value, s.bound, s.in_order), (Some(4.0), Some(3), true));
    }

    #[test]
    fn a_value_out_of_order_is_kept_and_flagged() {
        let b = buffer(
            "m",
            "\u{1e}1\u{1e}1\u{1e}0\u{1e}-inf\u{1e}9\u{1e}x(k)\u{1f}g.m:2:3\u{1f}0\u{1f}k",
        );
        let s = CallError::from_buffer(1, &b)
            .location
            .unwrap()
            .subscript
            .unwrap();
        assert_eq!(
            (s.position, s.value, s.bound, s.in_order),
            (None, Some(f64::NEG_INFINITY), Some(9), false)
        );
    }

    #[test]
    fn a_place_without_quote_or_detail() {
        let b = buffer(
            "m",
            "\u{1e}1030\u{1e}0\u{1e}0\u{1e}0\u{1e}0\u{1e}\u{1f}g.m:2:3",
        );
        let e = CallError::from_buffer(6, &b);
        assert_eq!(e.code, Some(ErrorCode::Size));
        let at = e.location.expect("a place");
        assert_eq!((at.source, at.subscript), (None, None));
    }

    #[test]
    fn no_record_no_place() {
        let e = CallError::from_buffer(8, &buffer("Arrays have", ""));
        assert_eq!((e.code, e.location), (Some(ErrorCode::Sizes), None));
        let e = CallError::from_buffer(999, &[0; 8]);
        assert_eq!(e.code, None);
        assert!(e.message.contains("status 999"));
    }
}
