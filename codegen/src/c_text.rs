//! Text from outside the generator (MATLAB string literals, file names) written into C and CUDA
//! source.
//!
//! Invariant: the text these functions return can only be read back as the data it carries. A
//! string literal holds only ASCII letters, digits, space and `_` as themselves and every other
//! byte as a three-digit octal escape, so no quote, backslash, newline, trigraph (`??/`) or
//! comment delimiter can appear inside it; a file name's literal also keeps `. / - : < >`, and
//! a readable text literal every printable character but `" \ ? *`. A comment keeps the same
//! characters as a file name's literal and writes every other byte as `%XX`, so no `*/` can
//! close it early and no `??/` or `\` can splice the next line into it.

/// `text` (its UTF-8 bytes) as a C string literal.
pub fn string_literal(text: &str) -> String {
    literal(text, plain)
}

/// `text` as a C string literal that a reader can read: printable ASCII as itself except
/// `" \ ? *` (no quote or backslash can end or splice it, no trigraph can start, no `*/` can
/// appear), every other byte as a three-digit octal escape.
pub fn text_literal(text: &str) -> String {
    literal(text, |b| {
        (b' '..=b'~').contains(&b) && !matches!(b, b'"' | b'\\' | b'?' | b'*')
    })
}

/// A file name as a C string literal (for `#line`): a string literal that also keeps the
/// characters of paths, `. / - : < >`, as themselves.
pub fn path_literal(text: &str) -> String {
    literal(text, |b| plain(b) || path_char(b))
}

/// `text` as a C string literal: the bytes `kept` says as themselves, every other byte as a
/// three-digit octal escape (so a digit after an escape is a digit of the text).
fn literal(text: &str, kept: impl Fn(u8) -> bool) -> String {
    let mut out = String::from("\"");
    for b in text.bytes() {
        if kept(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("\\{b:03o}"));
        }
    }
    out.push('"');
    out
}

/// `text` made safe to stand inside a `/* ... */` comment.
pub fn comment(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if plain(b) || path_char(b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The characters of file paths and places (`<m2cu>/cumsum.m:12`), none of which can end a
/// comment or a string or start a trigraph.
fn path_char(b: u8) -> bool {
    matches!(b, b'.' | b'/' | b'-' | b':' | b'<' | b'>')
}

fn plain(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b' ' || b == b'_'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_literals_escape_everything_but_letters_digits_space_and_underscore() {
        assert_eq!(string_literal("a b_1"), "\"a b_1\"");
        assert_eq!(
            string_literal("??/\", x);//"),
            "\"\\077\\077\\057\\042\\054 x\\051\\073\\057\\057\""
        );
        assert_eq!(string_literal("\\n\n%%"), "\"\\134n\\012\\045\\045\"");
        assert_eq!(string_literal("é"), "\"\\303\\251\"");
        // An escape is always three digits, so a digit after it is a digit of the text.
        assert_eq!(string_literal("\n1"), "\"\\0121\"");
    }

    #[test]
    fn comments_cannot_be_closed_or_spliced() {
        let path = "x*/ __attribute__((constructor)) static void pwn(void){} /*??/";
        let text = comment(path);
        assert_eq!(
            text,
            "x%2A/ __attribute__%28%28constructor%29%29 static void pwn%28void%29%7B%7D /%2A%3F%3F/"
        );
        assert!(!text.contains("*/") && !text.contains('?') && !text.contains('\\'));
        assert_eq!(comment("dir/sub-1/f.m"), "dir/sub-1/f.m");
    }

    #[test]
    fn text_literals_keep_printable_text_but_quotes_backslashes_and_trigraphs() {
        assert_eq!(text_literal("`x(i)` at f.m:4:2"), "\"`x(i)` at f.m:4:2\"");
        assert_eq!(
            text_literal("a\"\\??/*/\n"),
            "\"a\\042\\134\\077\\077/\\052/\\012\""
        );
    }

    #[test]
    fn path_literals_keep_the_characters_of_paths_only() {
        assert_eq!(path_literal("<m2cu>/cumsum.m"), "\"<m2cu>/cumsum.m\"");
        assert_eq!(path_literal("a\"b\\??/"), "\"a\\042b\\134\\077\\077/\"");
    }
}
