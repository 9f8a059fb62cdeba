//! Where a run-time error comes from: every checked place of the program (an element access's
//! subscripts, a call, power or conversion whose helper can fail ([`raises`]), an operand whose
//! truth is taken, a `Check` statement, a `for` statement's range, the sizes of an `Alloc` or
//! `Resize`) has a site number, which a failing check adds to its error
//! code in the status word (`M2CU_AT(code, site)` = `code + 256 * site`, the layout of
//! `M2CU_UNDEFINED(k)`). The status travels unchanged from a kernel's error word or an OpenMP
//! thread to the host, whose `m2cu_site_text` names the site ([`table`]): "Index exceeds the
//! number of array elements. (`x(i)` at saxpy.m:4:12)", and passes it on to the runtime as
//! data (`m2cu_runtime::CallError::location`).
//!
//! Invariants: site numbers come from the IR's ids (an expression `e` is `2e + 1`, a statement
//! `s` is `2s + 2`), so kernels and host code agree without a registry; a
//! site is at most [`MAX_SITE`] (the status stays a positive `int`), else 0 (no site); the
//! program's own `error` statuses (`M2CU_E_USER`) never carry one.

use m2cu_frontend::diag::Span;
use m2cu_frontend::ir::{
    Elementary, Expr, ExprId, ExprKind, Function, InlinedCall, StmtId, StmtKind,
};
use m2cu_frontend::sources::SourceMap;
use m2cu_frontend::types::Class;

use crate::c_text;

/// The largest site number: `code + 256 * site` must stay below 2^31.
pub const MAX_SITE: u32 = (1 << 23) - 1;

/// The longest source text a site quotes; a longer one is named by its place alone.
const MAX_QUOTE: usize = 60;

/// The site of expression `e`: a subscript of an element access, or a call or power that can
/// fail ([`raises`]) (0: none).
pub fn of_expr(e: ExprId) -> u32 {
    bounded(2 * u64::from(u32::from(e.into_raw())) + 1)
}

/// Whether expression `expr` is a call, power or conversion whose helper can fail on its
/// values, which names its site: a real result that would be complex, `upper`/`lower` of a
/// character above 127, `nthroot`'s order, `bitshift`'s count, a number that is no character.
pub fn raises(expr: &Expr) -> bool {
    use m2cu_frontend::ir::{BinOp, Builtin};
    match &expr.kind {
        ExprKind::Binary(op, ..) => *op == BinOp::Pow,
        ExprKind::Call(Builtin::Elementary(e), _) => complex_outside_domain(*e),
        ExprKind::Call(b, _) => matches!(
            b,
            Builtin::Sqrt
                | Builtin::Log
                | Builtin::Power
                | Builtin::Upper
                | Builtin::Lower
                | Builtin::NthRoot
                | Builtin::BitShift
        ),
        ExprKind::Convert(_) => expr.ty.class == Class::Char,
        _ => false,
    }
}

/// The floating operands whose truth the code takes (`if x`, `while x`, `~x`, `a && b`,
/// `xor(a, b)`, `logical(x)`): a NaN there stops with MATLAB's "NaN's cannot be converted to
/// logicals." at the operand's own site (`ExprWriter::cond`).
fn truth_operands(f: &Function) -> Vec<ExprId> {
    use m2cu_frontend::ir::{BinOp, Builtin, UnOp};
    let mut operands = Vec::new();
    for (_, stmt) in f.stmts.iter() {
        if let StmtKind::If { cond, .. } | StmtKind::While { cond, .. } = &stmt.kind {
            operands.push(*cond);
        }
    }
    for (_, expr) in f.exprs.iter() {
        match &expr.kind {
            ExprKind::Unary(UnOp::Not, a) => operands.push(*a),
            ExprKind::Binary(BinOp::And | BinOp::Or | BinOp::AndAnd | BinOp::OrOr, a, b) => {
                operands.extend([*a, *b])
            }
            ExprKind::Call(Builtin::Xor, args) => operands.extend(args),
            ExprKind::Convert(a) if expr.ty.class == Class::Logical => operands.push(*a),
            _ => {}
        }
    }
    operands.retain(|&e| matches!(f.exprs[e].ty.class, Class::Double | Class::Single));
    operands
}

/// The elementary functions whose real result is complex outside a domain: their helpers stop
/// there, at the call's site.
pub fn complex_outside_domain(e: Elementary) -> bool {
    matches!(
        e,
        Elementary::Asin
            | Elementary::Acos
            | Elementary::Acosh
            | Elementary::Atanh
            | Elementary::Log2
            | Elementary::Log10
            | Elementary::Log1p
            | Elementary::Gammaln
    )
}

/// The site of statement `s`: a `Check`, or an `Alloc` or `Resize` whose sizes are checked
/// (0: none).
pub fn of_stmt(s: StmtId) -> u32 {
    bounded(2 * u64::from(u32::from(s.into_raw())) + 2)
}

fn bounded(site: u64) -> u32 {
    u32::try_from(site)
        .ok()
        .filter(|&s| s <= MAX_SITE)
        .unwrap_or(0)
}

/// `static const char *m2cu_site_text(int site)`: the text of every site of `f`, NULL for none
/// (empty without the sources): fields after `\x1f` separators, the source's text when it is
/// one short line (else empty) and the place, `x(i)\x1fsaxpy.m:4:12`, and for a subscript its
/// position among the access's subscripts (0 for a linear index) and its own text,
/// `A(i, j)\x1ff.m:4:12\x1f2\x1fj`. `m2cu_message` quotes them in its message; the message
/// buffer's record passes them on to the runtime (`m2cu_runtime::CallError`).
pub fn table(f: &Function, sources: Option<&SourceMap>) -> String {
    let Some(sources) = sources else {
        return "static const char *m2cu_site_text(int site) { (void)site; return NULL; }\n"
            .to_string();
    };
    let mut cases = Vec::new();
    // Every subscript of an access is a site with the access's text, its position (0 for a
    // linear index) and its own text.
    let mut access = |indices: &[ExprId]| {
        let Some(place) = access_place(sources, indices.iter().map(|&i| f.exprs[i].span)) else {
            return;
        };
        let positions = if indices.len() == 1 {
            0..1
        } else {
            1..indices.len() + 1
        };
        cases.extend(indices.iter().zip(positions).map(|(&i, position)| {
            let span = f.exprs[i].span;
            let subscript = quote(sources.text(), span.start, span.end).unwrap_or("");
            (
                of_expr(i),
                Some(format!("{place}\u{1f}{position}\u{1f}{subscript}")),
            )
        }));
    };
    let mut others = Vec::new();
    for (e, expr) in f.exprs.iter() {
        match &expr.kind {
            ExprKind::Index(_, indices) => access(indices),
            _ if raises(expr) => others.push((of_expr(e), statement_place(sources, expr.span))),
            _ => {}
        }
    }
    for e in truth_operands(f) {
        others.push((of_expr(e), statement_place(sources, f.exprs[e].span)));
    }
    for (s, stmt) in f.stmts.iter() {
        match &stmt.kind {
            StmtKind::Store { indices, .. } => access(indices),
            // A range that is not one (`for k = Inf:1`) names itself.
            StmtKind::For { start, stop, .. } => {
                let range = Span {
                    start: f.exprs[*start].span.start,
                    end: f.exprs[*stop].span.end,
                };
                others.push((of_stmt(s), statement_place(sources, range)))
            }
            StmtKind::Check { .. } => {
                others.push((of_stmt(s), statement_place(sources, stmt.span)))
            }
            // The sizes m2cu's own functions allocate with are whole numbers they computed.
            StmtKind::Alloc { .. } | StmtKind::Resize { .. } if !bundled(sources, stmt.span) => {
                others.push((of_stmt(s), statement_place(sources, stmt.span)))
            }
            _ => {}
        }
    }
    cases.extend(others);
    for (site, text) in cases.iter_mut() {
        if let Some(call) = bundled_site(f, sources, *site) {
            *text = statement_place(sources, call.at);
        }
    }
    cases.retain(|(site, text)| *site != 0 && text.is_some());
    cases.sort_by_key(|(site, _)| *site);
    cases.dedup_by_key(|(site, _)| *site);
    let lines: String = cases
        .into_iter()
        .map(|(site, text)| {
            let text = text.expect("kept only sites with a text");
            format!("    case {site}: return {};\n", c_text::text_literal(&text))
        })
        .collect();
    format!(
        "/* Where each checked place is in the MATLAB source, by site (see M2CU_AT). */\nstatic const char *m2cu_site_text(int site)\n{{\n    switch (site) {{\n{lines}    default: return NULL;\n    }}\n}}\n"
    )
}

/// "x(i, j)\x1ff.m:4:12" for an access whose subscripts have `spans`: the array's name is read
/// back from the source before the first subscript's `(`; no quote and the first subscript's
/// place ("\x1ff.m:4:14") when the source does not show it that way.
fn access_place(sources: &SourceMap, mut spans: impl Iterator<Item = Span>) -> Option<String> {
    let first = spans.next()?;
    let last = spans.last().unwrap_or(first);
    let text = sources.text();
    let inner = quote(text, first.start, last.end);
    let name_start = array_name_start(text, first.start as usize);
    Some(match (inner, name_start) {
        (Some(inner), Some(start)) => {
            let name = &text[start..text[start..].find(['(', ' ']).map_or(start, |k| start + k)];
            format!("{name}({inner})\u{1f}{}", place(sources, start as u32))
        }
        _ => format!("\u{1f}{}", place(sources, first.start)),
    })
}

/// "n == numel(x)\x1ff.m:4:3" for a statement or expression, with no quote when its text is
/// long.
fn statement_place(sources: &SourceMap, span: Span) -> Option<String> {
    let quoted = quote(sources.text(), span.start, span.end).unwrap_or("");
    Some(format!("{quoted}\u{1f}{}", place(sources, span.start)))
}

/// For a site in one of the functions m2cu bundles, the call in the user's code it was inlined
/// for (the innermost such call, `Function::inlined_calls`): its place names the site, since the
/// bundled code's own text and subscripts mean nothing to the user (no subscript detail then).
fn bundled_site<'f>(f: &'f Function, sources: &SourceMap, site: u32) -> Option<&'f InlinedCall> {
    let node = Node::of_site(f, site)?;
    if !bundled(sources, node.span(f)) {
        return None;
    }
    f.inlined_calls
        .iter()
        .filter(|c| node.made_by(c) && !bundled(sources, c.at))
        .min_by_key(|c| c.stmts.len() + c.exprs.len())
}

/// The IR node a site number names ([`of_expr`], [`of_stmt`]).
#[derive(Clone, Copy)]
enum Node {
    Expr(ExprId),
    Stmt(StmtId),
}

impl Node {
    fn of_site(f: &Function, site: u32) -> Option<Node> {
        let raw = |k: u32| la_arena::RawIdx::from_u32(k);
        match site % 2 {
            1 => Some(Node::Expr(ExprId::from_raw(raw((site - 1) / 2))))
                .filter(|_| ((site - 1) / 2) < f.exprs.len() as u32),
            _ => Some(Node::Stmt(StmtId::from_raw(raw(site.checked_sub(2)? / 2))))
                .filter(|_| ((site - 2) / 2) < f.stmts.len() as u32),
        }
    }

    fn span(self, f: &Function) -> Span {
        match self {
            Node::Expr(e) => f.exprs[e].span,
            Node::Stmt(s) => f.stmts[s].span,
        }
    }

    fn made_by(self, call: &InlinedCall) -> bool {
        match self {
            Node::Expr(e) => call.made_expr(e),
            Node::Stmt(s) => call.made_stmt(s),
        }
    }
}

/// Whether `span` is in one of the functions m2cu bundles (`m2cu_frontend::bundled`).
fn bundled(sources: &SourceMap, span: Span) -> bool {
    let (file, ..) = sources.place(span.start);
    file.starts_with(m2cu_frontend::bundled::DISPLAY_PREFIX)
}

/// The source between two offsets when it is one short line of text (without the site text's
/// and the record's separators).
fn quote(text: &str, start: u32, end: u32) -> Option<&str> {
    let q = text.get(start as usize..end as usize)?.trim();
    (!q.is_empty() && q.len() <= MAX_QUOTE && !q.contains(['\n', '\r', '\u{1e}', '\u{1f}']))
        .then_some(q)
}

/// Where the identifier that `x(` puts before the subscript at `offset` starts, if the source
/// reads that way.
fn array_name_start(text: &str, offset: usize) -> Option<usize> {
    let before = text.get(..offset)?.trim_end();
    let before = before.strip_suffix('(')?.trim_end();
    let start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_ascii_alphanumeric() || *c == '_' || *c == '.')
        .last()
        .map(|(k, _)| k)?;
    let first = text[start..].chars().next()?;
    first.is_ascii_alphabetic().then_some(start)
}

/// `f.m:4:12` (the entry file's name, or the function file's).
fn place(sources: &SourceMap, offset: u32) -> String {
    let (file, line, col) = sources.place(offset);
    format!("{file}:{line}:{col}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_from_the_source() {
        let text = "y(i) = a*x(i) + A (k, j+1);";
        assert_eq!(array_name_start(text, 11), Some(9));
        assert_eq!(array_name_start(text, 19), Some(16));
        assert_eq!(array_name_start(text, 0), None);
        assert_eq!(array_name_start("f(3)(2)", 5), None);
    }

    #[test]
    fn sites_of_expressions_and_statements_differ() {
        let e = ExprId::from_raw(la_arena::RawIdx::from_u32(5));
        let s = StmtId::from_raw(la_arena::RawIdx::from_u32(5));
        assert_eq!((of_expr(e), of_stmt(s)), (11, 12));
        let big = ExprId::from_raw(la_arena::RawIdx::from_u32(MAX_SITE));
        assert_eq!(of_expr(big), 0);
    }
}
