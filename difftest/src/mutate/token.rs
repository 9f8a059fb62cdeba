//! A forgiving MATLAB tokenizer and the token-level mutations of `m2cu-mutate`.
//!
//! Invariant: concatenating the tokens of [`tokenize`] gives back the input exactly, so a
//! mutant differs from its seed only where a mutation changed it.

use rand::seq::SliceRandom;
use rand::Rng;

use crate::names::COLLIDING;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Number,
    Str,
    Comment,
    Space,
    Newline,
    Op,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token {
    pub kind: Kind,
    pub text: String,
}

const OPERATORS: [&str; 20] = [
    ".*", "./", ".^", "==", "~=", "<=", ">=", "&&", "||", ".'", "+", "-", "*", "/", "^", "<", ">",
    "&", "|", ":",
];

/// Numbers that hunt for overflow, rounding and special values.
const NUMBERS: [&str; 14] = [
    "0", "-1", "1", "1e308", "Inf", "-Inf", "NaN", "2^31", "2^53+1", "1e-320", "-0", "0.5", "2^63",
    "1e10",
];

/// Text that must survive the trip into C string literals and comments.
const STRINGS: [&str; 11] = [
    "??/",
    "*/",
    "%d %s %n",
    "''",
    "\"",
    "\\n\\\\",
    "é ü 中",
    "??=",
    "/* x */",
    "\\0",
    "a\tb",
];

pub fn tokenize(source: &str) -> Vec<Token> {
    let chars: Vec<char> = source.chars().collect();
    let mut tokens: Vec<Token> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        let kind = if c == '\n' {
            i += 1;
            Kind::Newline
        } else if c == ' ' || c == '\t' || c == '\r' {
            i = scan(&chars, i, |c| c == ' ' || c == '\t' || c == '\r');
            Kind::Space
        } else if c == '%' {
            i = scan(&chars, i, |c| c != '\n');
            Kind::Comment
        } else if c.is_ascii_alphabetic() || c == '_' {
            i = scan(&chars, i, |c| c.is_ascii_alphanumeric() || c == '_');
            Kind::Ident
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            i = number_end(&chars, i);
            Kind::Number
        } else if c == '"' || (c == '\'' && !after_value(&tokens)) {
            i = string_end(&chars, i);
            Kind::Str
        } else {
            let rest: String = chars[i..chars.len().min(i + 2)].iter().collect();
            let len = OPERATORS
                .iter()
                .find(|op| op.len() == 2 && rest.starts_with(**op))
                .map_or(1, |_| 2);
            i += len;
            Kind::Op
        };
        tokens.push(Token {
            kind,
            text: chars[start..i].iter().collect(),
        });
    }
    tokens
}

fn scan(chars: &[char], mut i: usize, more: impl Fn(char) -> bool) -> usize {
    i += 1;
    while i < chars.len() && more(chars[i]) {
        i += 1;
    }
    i
}

fn number_end(chars: &[char], mut i: usize) -> usize {
    while i < chars.len() {
        let c = chars[i];
        let exponent_sign = (c == '+' || c == '-') && i > 0 && matches!(chars[i - 1], 'e' | 'E');
        if c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E' || exponent_sign {
            i += 1;
        } else {
            break;
        }
    }
    i
}

fn string_end(chars: &[char], i: usize) -> usize {
    let quote = chars[i];
    let mut j = i + 1;
    while j < chars.len() && chars[j] != '\n' {
        if chars[j] == quote {
            if chars.get(j + 1) == Some(&quote) {
                j += 2;
                continue;
            }
            return j + 1;
        }
        j += 1;
    }
    j
}

/// A `'` right after a value is a transpose, not a string.
fn after_value(tokens: &[Token]) -> bool {
    match tokens.last() {
        Some(t) => {
            matches!(t.kind, Kind::Ident | Kind::Number | Kind::Str)
                || t.text == ")"
                || t.text == "]"
                || t.text == "}"
                || t.text == "'"
                || t.text == ".'"
        }
        None => false,
    }
}

pub fn render(tokens: &[Token]) -> String {
    tokens.iter().map(|t| t.text.as_str()).collect()
}

fn token(kind: Kind, text: &str) -> Token {
    Token {
        kind,
        text: text.to_string(),
    }
}

/// The mutations, by name (the name goes into the finding's record).
pub const MUTATIONS: [&str; 12] = [
    "delete-token",
    "duplicate-token",
    "swap-tokens",
    "rename-all",
    "rename-one",
    "number",
    "operator",
    "duplicate-line",
    "wrap-zero-trip",
    "wrap-loop",
    "string",
    "transplant-line",
];

/// Applies mutation `name` to `tokens` (`donor`: lines of another seed, for transplants).
pub fn mutate(rng: &mut impl Rng, tokens: &mut Vec<Token>, name: &str, donor: &[Token]) {
    let solid: Vec<usize> = (0..tokens.len())
        .filter(|&k| !matches!(tokens[k].kind, Kind::Space | Kind::Newline))
        .collect();
    let Some(&at) = solid.choose(rng) else { return };
    match name {
        "delete-token" => {
            tokens.remove(at);
        }
        "duplicate-token" => {
            let t = tokens[at].clone();
            tokens.insert(at, t);
        }
        "swap-tokens" => {
            if let Some(&next) = solid.iter().find(|&&k| k > at) {
                tokens.swap(at, next);
            }
        }
        "rename-all" | "rename-one" => rename(rng, tokens, name == "rename-all"),
        "number" => replace_kind(rng, tokens, Kind::Number, &NUMBERS),
        "operator" => replace_kind(rng, tokens, Kind::Op, &OPERATORS),
        "duplicate-line" => {
            let (a, b) = line_around(rng, tokens);
            let line: Vec<Token> = tokens[a..b].to_vec();
            tokens.splice(b..b, line);
        }
        "wrap-zero-trip" | "wrap-loop" => {
            let (a, b) = line_around(rng, tokens);
            let var = ["k", "m2cu_k", "i", "int"].choose(rng).expect("non-empty");
            let range = if name == "wrap-zero-trip" {
                *["1:0", "3:2", "1:-1:2", "zeros(1,0)"]
                    .choose(rng)
                    .expect("r")
            } else {
                *["1:3", "1:1", "2:-1:1", "1:Inf"].choose(rng).expect("r")
            };
            tokens.insert(b, token(Kind::Ident, "end\n"));
            tokens.insert(a, token(Kind::Ident, &format!("for {var} = {range}\n")));
        }
        "string" => {
            let text = STRINGS.choose(rng).expect("non-empty").replace('\'', "''");
            let (_, b) = line_around(rng, tokens);
            let stmt = match rng.gen_range(0..4) {
                0 => format!("m2cu_s = '{text}';\n"),
                1 => format!("fprintf('{text}\\n');\n"),
                2 => format!("if false, error('{text}'); end\n"),
                _ => format!("% {text}\n"),
            };
            tokens.insert(b, token(Kind::Str, &stmt));
        }
        "transplant-line" => {
            let starts: Vec<usize> = (0..donor.len())
                .filter(|&k| k == 0 || donor[k - 1].kind == Kind::Newline)
                .collect();
            if let Some(&s) = starts.choose(rng) {
                let e = (s..donor.len())
                    .find(|&k| donor[k].kind == Kind::Newline)
                    .map_or(donor.len(), |k| k + 1);
                let (_, b) = line_around(rng, tokens);
                tokens.splice(b..b, donor[s..e].to_vec());
            }
        }
        other => unreachable!("unknown mutation {other}"),
    }
}

/// The token range `[a, b)` of a random line, its newline included.
fn line_around(rng: &mut impl Rng, tokens: &[Token]) -> (usize, usize) {
    let k = rng.gen_range(0..tokens.len().max(1));
    let a = (0..k)
        .rev()
        .find(|&j| tokens[j].kind == Kind::Newline)
        .map_or(0, |j| j + 1);
    let b = (k..tokens.len())
        .find(|&j| tokens[j].kind == Kind::Newline)
        .map_or(tokens.len(), |j| j + 1);
    (a.min(b), b)
}

fn rename(rng: &mut impl Rng, tokens: &mut [Token], all: bool) {
    let idents: Vec<usize> = (0..tokens.len())
        .filter(|&k| tokens[k].kind == Kind::Ident)
        .collect();
    let Some(&at) = idents.choose(rng) else {
        return;
    };
    let old = tokens[at].text.clone();
    let new = if rng.gen_bool(0.2) {
        "m2cu_x".to_string()
    } else {
        COLLIDING.choose(rng).expect("non-empty").to_string()
    };
    if !all {
        tokens[at].text = new;
        return;
    }
    for t in tokens
        .iter_mut()
        .filter(|t| t.kind == Kind::Ident && t.text == old)
    {
        t.text = new.clone();
    }
}

fn replace_kind(rng: &mut impl Rng, tokens: &mut [Token], kind: Kind, choices: &[&str]) {
    let of_kind: Vec<usize> = (0..tokens.len())
        .filter(|&k| tokens[k].kind == kind)
        .collect();
    if let Some(&at) = of_kind.choose(rng) {
        tokens[at].text = choices.choose(rng).expect("non-empty").to_string();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_give_back_the_source() {
        let src = "function y = f(x) % c\n  y = x' + 'a''b' .* 1.5e-3;\nend\n";
        assert_eq!(render(&tokenize(src)), src);
        let kinds: Vec<Kind> = tokenize("x' 'a'").iter().map(|t| t.kind).collect();
        assert_eq!(kinds, [Kind::Ident, Kind::Op, Kind::Space, Kind::Str]);
    }
}
