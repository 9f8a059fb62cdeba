//! Text: char literals as values, MATLAB string scalars (`"text"`) where a char vector would do,
//! and text comparison (`strcmp`, `strcmpi`, `strncmp`, `strncmpi`, `switch` on text).
//!
//! Invariants:
//! - a char value holds UTF-16 code units (class `char`, C `uint16_t`); a one-character literal
//!   is a scalar, `''` a 0-by-0 array, any other literal a 1-by-n temporary;
//! - a string scalar is lowered only where MATLAB gives it the meaning of the char vector of its
//!   text ([`text_literal`], [`Lowerer::text_value`]); anywhere else it is `E0117`, never
//!   silently a char vector (`length("abc")` is 1 in MATLAB). A variable assigned one
//!   (`mode = "fast"`) holds the char vector and may be read only as such a text operand;
//! - text comparison is `strcmp`'s: both operands char, the same extents and the same code
//!   units (`strcmpi`: after `lower`); an operand of another class compares unequal;
//!   `strncmp`/`strncmpi` compare a prefix by Octave 7.3's rule ([`Lowerer::text_compare_prefix`]).

use super::array::Val;
use super::expr::val_class;
use super::*;

/// The text of a char literal or of a string scalar, for arguments that name something (a
/// class, an option, a format).
pub(super) fn text_literal(e: &ast::Expr) -> Option<&str> {
    match &strip_parens(e).kind {
        AstExpr::Str(s) | AstExpr::StringScalar(s) => Some(s),
        _ => None,
    }
}

/// The one UTF-16 unit of a one-character char literal `'c'`.
pub(super) fn one_char_literal(e: &ast::Expr) -> Option<u16> {
    match &strip_parens(e).kind {
        AstExpr::Str(s) => match s.encode_utf16().collect::<Vec<u16>>().as_slice() {
            [unit] => Some(*unit),
            _ => None,
        },
        _ => None,
    }
}

/// The names that one of `functions` assigns a text of run-time or other than one character's
/// length: a char literal of other than one character (`m = '.-'`, `s = ''`), a row built
/// with a char literal in it (`s = ['n=' num2str(n)]`), or the value of a function that makes
/// text (`s = sprintf(...)`). A one-character literal assigned to one of them is a text too
/// (`s = 'e'` in one branch, `s = ['n=' ...]` in another).
pub(super) fn text_names(functions: &[ast::Function]) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    for_each_function(functions, &mut |f| {
        walk_stmts(&f.body, &mut |s| {
            if let AstStmt::Assign { targets, value } = &s.kind {
                if let [ast::LValue::Var(name)] = targets.as_slice() {
                    if makes_text(value) {
                        out.insert(name.name.clone());
                    }
                }
            }
        })
    });
    out
}

/// The functions whose value is a char row of a length known only when the program runs.
const TEXT_MAKERS: &[&str] = &[
    "sprintf", "num2str", "int2str", "mat2str", "strtrim", "deblank", "blanks", "strcat",
];

/// Whether `value` is text other than one character (see [`text_names`]).
fn makes_text(value: &ast::Expr) -> bool {
    match &strip_parens(value).kind {
        AstExpr::Str(_) => one_char_literal(value).is_none(),
        AstExpr::Matrix(rows) => rows
            .iter()
            .flatten()
            .any(|item| matches!(strip_parens(item).kind, AstExpr::Str(_))),
        AstExpr::Call { callee, .. } => TEXT_MAKERS.contains(&callee.name.as_str()),
        _ => false,
    }
}

const STRING_HELP: &str = "m2cu has no string arrays; \"text\" works where MATLAB treats it \
     like 'text' (formats, class and option names, `switch` cases, `strcmp` arguments). Write \
     'text' (a char vector) only if the code is meant to work on its characters: a string scalar \
     is one element (length(\"abc\") is 1, \"ab\" == \"ab\" is one logical)";

/// Whether case matters when texts are compared.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum TextCase {
    Exact,
    /// `strcmpi`: both sides through `lower`.
    Folded,
}

/// A text operand held in a local for the comparison loop.
#[derive(Clone, Copy)]
enum Held {
    Array(LocalId),
    Scalar(LocalId),
}

impl Lowerer<'_> {
    /// `'text'` as a value.
    pub(super) fn char_literal(&mut self, text: &str, span: Span) -> Option<Val> {
        let units: Vec<u16> = text.encode_utf16().collect();
        match units.as_slice() {
            [unit] => Some(Val::Scalar(self.constant_expr(
                f64::from(*unit),
                Class::Char,
                span,
            ))),
            [] => Some(self.empty_char(span)),
            _ => {
                let row = units
                    .iter()
                    .map(|&u| Val::Scalar(self.constant_expr(f64::from(u), Class::Char, span)))
                    .collect();
                self.scalar_grid(vec![row], Class::Char, span)
            }
        }
    }

    /// A one-character literal assigned to a variable that holds texts of other lengths too
    /// ([`text_names`]): a char row of one element, of run-time length, not a char scalar, so
    /// that `m = '.'` and `m = '.-'` in two branches give `m` one type.
    pub(super) fn one_char_row(&mut self, unit: u16, span: Span) -> Val {
        let ty = Type::array(Class::Char, Shape::new(Dim::Known(1), Dim::Var));
        let value = self.constant_expr(f64::from(unit), Class::Char, span);
        self.row_temp("t", ty, vec![value], span)
    }

    /// `''`: a 0-by-0 char array.
    fn empty_char(&mut self, span: Span) -> Val {
        let ty = Type::array(Class::Char, Shape::new(Dim::Known(0), Dim::Known(0)));
        let temp = self.temp("t", ty, span);
        let rows = self.constant_expr(0.0, Class::Double, span);
        let cols = self.constant_expr(0.0, Class::Double, span);
        self.alloc_zeros(temp, rows, cols, None, span);
        Val::Array(self.whole(temp, span))
    }

    /// `"text"` where its value would be used as a string scalar.
    pub(super) fn string_scalar_here(&mut self, span: Span) -> Option<Val> {
        self.error(
            "E0117",
            span,
            "a string scalar (\"text\") is not supported here".into(),
            STRING_HELP.into(),
        );
        None
    }

    /// A read of a variable holding a string scalar where its value would be used as a string.
    pub(super) fn string_variable_here(&mut self, name: &str, span: Span) -> Option<Val> {
        self.error(
            "E0117",
            span,
            format!("`{name}` holds a string scalar (\"text\"), which is not supported here"),
            STRING_HELP.into(),
        );
        None
    }

    /// Whether `output` may be returned: a variable holding a string scalar may not (MATLAB's
    /// caller would get a string).
    pub(super) fn returnable(&mut self, id: LocalId, output: &ast::Ident) -> bool {
        if !self.string_locals.contains(&id) {
            return true;
        }
        self.error(
            "E0117",
            output.span,
            format!(
                "the output `{}` holds a string scalar (\"text\"), which is not supported",
                output.name
            ),
            STRING_HELP.into(),
        );
        false
    }

    /// The value of an operand that MATLAB compares as text: a string scalar, or a variable
    /// holding one, is its char vector.
    pub(super) fn text_value(&mut self, e: &ast::Expr) -> Option<Val> {
        match &strip_parens(e).kind {
            AstExpr::StringScalar(s) => self.char_literal(s, e.span),
            AstExpr::Ident(_) => {
                self.reading_text = true;
                let v = self.value(e);
                self.reading_text = false;
                v
            }
            _ => self.value(e),
        }
    }

    /// `ischar(x)`: known from the class at translation time.
    pub(super) fn is_char(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [arg] = args else {
            self.error(
                "E0105",
                span,
                "`ischar` takes one argument".into(),
                "write ischar(x)".into(),
            );
            return None;
        };
        let class = if matches!(strip_parens(arg).kind, AstExpr::StringScalar(_)) {
            Class::Double
        } else {
            let v = self.value(arg)?;
            val_class(self, &v)
        };
        let answer = f64::from(u8::from(class == Class::Char));
        Some(Val::Scalar(self.constant_expr(
            answer,
            Class::Logical,
            span,
        )))
    }

    /// `strcmp(a, b)` / `strcmpi(a, b)`: a logical scalar.
    pub(super) fn text_compare(
        &mut self,
        case: TextCase,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        let name = if case == TextCase::Exact {
            "strcmp"
        } else {
            "strcmpi"
        };
        let [a, b] = args else {
            self.error(
                "E0105",
                span,
                format!("`{name}` takes two arguments"),
                format!("write {name}(s, 'text')"),
            );
            return None;
        };
        let a = self.text_value(a);
        let b = self.text_value(b);
        let equal = self.texts_equal(a?, b?, case, span)?;
        Some(Val::Scalar(equal))
    }

    /// `strncmp(a, b, n)` / `strncmpi(a, b, n)`, as Octave 7.3 computes it: with `m =
    /// min(max(numel(a), numel(b)), fix(n))`, true when both have at least `m` code units and
    /// the first `m` agree (so `strncmp('ab', 'ab', 3)` is true, `strncmp('ab', 'abc', 3)`
    /// false); `fix(n) < 1` (and NaN) stops with Octave's error; a non-char operand is false.
    pub(super) fn text_compare_prefix(
        &mut self,
        case: TextCase,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<Val> {
        let name = if case == TextCase::Exact {
            "strncmp"
        } else {
            "strncmpi"
        };
        let [a, b, n] = args else {
            self.error(
                "E0105",
                span,
                format!("`{name}` takes three arguments"),
                format!("write {name}(s, 'text', n)"),
            );
            return None;
        };
        let (a, b) = (self.text_value(a), self.text_value(b));
        let n = self.scalar_expr(n, &format!("the count of `{name}`"));
        let (a, b, n) = (a?, b?, n?);
        let double = Type::scalar(Class::Double);
        let count = self.new_expr(ExprKind::Call(Builtin::Fix, vec![n]), double, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        let positive = self.binary_expr(BinOp::Ge, count, one, Class::Logical, span);
        self.push(
            StmtKind::Check {
                cond: positive,
                error: crate::ir::RuntimeError::PrefixCount {
                    folded: case == TextCase::Folded,
                },
            },
            span,
        );
        if val_class(self, &a) != Class::Char || val_class(self, &b) != Class::Char {
            return Some(Val::Scalar(self.constant_expr(0.0, Class::Logical, span)));
        }
        let a = self.hold_text(a, span)?;
        let b = self.hold_text(b, span)?;
        let la = self.held_extent(a, SizeQuery::Numel, span);
        let lb = self.held_extent(b, SizeQuery::Numel, span);
        let longer = self.new_expr(ExprKind::Call(Builtin::Max, vec![la, lb]), double, span);
        let count = self.new_expr(ExprKind::Call(Builtin::Fix, vec![n]), double, span);
        let m = self.new_expr(
            ExprKind::Call(Builtin::Min, vec![longer, count]),
            double,
            span,
        );
        let width = self.temp("m", double, span);
        self.push(
            StmtKind::Assign {
                target: width,
                value: m,
            },
            span,
        );
        let read = |me: &mut Self| me.new_expr(ExprKind::Local(width), double, span);
        let (m1, m2) = (read(self), read(self));
        let la = self.held_extent(a, SizeQuery::Numel, span);
        let lb = self.held_extent(b, SizeQuery::Numel, span);
        let a_long = self.binary_expr(BinOp::Ge, la, m1, Class::Logical, span);
        let b_long = self.binary_expr(BinOp::Ge, lb, m2, Class::Logical, span);
        let long = self.binary_expr(BinOp::AndAnd, a_long, b_long, Class::Logical, span);
        let m = read(self);
        Some(Val::Scalar(self.units_equal(a, b, long, m, case, span)))
    }

    /// Whether two values are equal texts (`strcmp`), as a logical scalar expression; the loop
    /// that compares them is emitted before it.
    pub(super) fn texts_equal(
        &mut self,
        a: Val,
        b: Val,
        case: TextCase,
        span: Span,
    ) -> Option<ExprId> {
        if val_class(self, &a) != Class::Char || val_class(self, &b) != Class::Char {
            return Some(self.constant_expr(0.0, Class::Logical, span));
        }
        let a = self.hold_text(a, span)?;
        let b = self.hold_text(b, span)?;
        let same_rows = self.same_extent(a, b, 1, span);
        let same_cols = self.same_extent(a, b, 2, span);
        let same = self.binary_expr(BinOp::AndAnd, same_rows, same_cols, Class::Logical, span);
        let count = self.held_extent(a, SizeQuery::Numel, span);
        Some(self.units_equal(a, b, same, count, case, span))
    }

    /// Whether `possible` holds and the first `count` code units of `a` and `b` agree, as a
    /// logical scalar expression; the loop that compares them is emitted before it.
    fn units_equal(
        &mut self,
        a: Held,
        b: Held,
        possible: ExprId,
        count: ExprId,
        case: TextCase,
        span: Span,
    ) -> ExprId {
        let logical = Type::scalar(Class::Logical);
        let equal = self.temp("eq", logical, span);
        self.push(
            StmtKind::Assign {
                target: equal,
                value: possible,
            },
            span,
        );
        let flag = self.new_expr(ExprKind::Local(equal), logical, span);
        let n = self.binary_expr(BinOp::Mul, flag, count, Class::Double, span);
        self.counted_loop("k", n, span, |me, k| {
            let x = me.held_element(a, k, case, span);
            let y = me.held_element(b, k, case, span);
            let differ = me.binary_expr(BinOp::Ne, x, y, Class::Logical, span);
            me.emit_if(differ, span, |me| {
                let no = me.constant_expr(0.0, Class::Logical, span);
                me.push(
                    StmtKind::Assign {
                        target: equal,
                        value: no,
                    },
                    span,
                );
            });
        });
        self.new_expr(ExprKind::Local(equal), logical, span)
    }

    /// The value of a text `switch`, in a local that every `case` reads.
    pub(super) fn text_subject(&mut self, v: Val, span: Span) -> Option<LocalId> {
        self.hold_text(v, span).map(|held| match held {
            Held::Array(local) | Held::Scalar(local) => local,
        })
    }

    /// Whether a `switch` on `subject` takes the `case` whose value is `label`; one of them is
    /// text.
    pub(super) fn text_case(&mut self, subject: LocalId, label: Val, span: Span) -> Option<ExprId> {
        let subject_is_text = self.locals[subject].ty.class == Class::Char;
        if subject_is_text != (val_class(self, &label) == Class::Char) {
            self.error(
                "E0118",
                span,
                "a `switch` that compares text with a number is not supported".into(),
                "MATLAB and Octave differ here; write every `case` of a text `switch` as text \
                 ('a', or {'a', 'b'}), and compare codes as numbers: `switch double(c)` with \
                 `case 97`"
                    .into(),
            );
            return None;
        }
        let value = self.local_val(subject, span);
        self.texts_equal(value, label, TextCase::Exact, span)
    }

    /// A text operand in a local: an array local as it is, any other value in a temporary.
    fn hold_text(&mut self, v: Val, span: Span) -> Option<Held> {
        match v {
            Val::Scalar(e) => {
                let temp = self.temp("c", Type::scalar(Class::Char), span);
                self.push(
                    StmtKind::Assign {
                        target: temp,
                        value: e,
                    },
                    span,
                );
                Some(Held::Scalar(temp))
            }
            Val::Array(a) => {
                self.reject_3d(&a, "comparing 3-D char arrays")?;
                Some(Held::Array(self.whole_local(&a)))
            }
        }
    }

    fn held_extent(&mut self, held: Held, query: SizeQuery, span: Span) -> ExprId {
        match held {
            Held::Array(local) => self.new_expr(
                ExprKind::Size(local, query),
                Type::scalar(Class::Double),
                span,
            ),
            Held::Scalar(_) => self.constant_expr(1.0, Class::Double, span),
        }
    }

    fn same_extent(&mut self, a: Held, b: Held, dim: u8, span: Span) -> ExprId {
        let x = self.held_extent(a, SizeQuery::Dim(dim), span);
        let y = self.held_extent(b, SizeQuery::Dim(dim), span);
        self.binary_expr(BinOp::Eq, x, y, Class::Logical, span)
    }

    /// Code unit `k` (linear, 1-based) of a held text, case-folded for `strcmpi`.
    fn held_element(&mut self, held: Held, k: LocalId, case: TextCase, span: Span) -> ExprId {
        let char_ty = Type::scalar(Class::Char);
        let unit = match held {
            Held::Array(local) => {
                let index = self.new_expr(ExprKind::Local(k), Type::scalar(Class::Double), span);
                self.new_expr(ExprKind::Index(local, vec![index]), char_ty, span)
            }
            Held::Scalar(local) => self.new_expr(ExprKind::Local(local), char_ty, span),
        };
        match case {
            TextCase::Exact => unit,
            TextCase::Folded => {
                self.new_expr(ExprKind::Call(Builtin::Lower, vec![unit]), char_ty, span)
            }
        }
    }
}
