//! Struct arrays as programs keep records (`s(k).name = v`, `s(k).name`, `[s.name]`,
//! `numel(s)`), rewritten after parsing into a variable per field, as a scalar struct's fields
//! are (`lower::fields`), so that lowering sees only arrays and text cells:
//!
//! - a field that an assignment gives a text (a char literal, a cell's content `c{k}`, a
//!   bracket that holds one, a text field of an element, a variable assigned one of those, or
//!   a call of a function that returns text) is the text cell `s.f`, made empty (`cell(1,
//!   0)`) where the function starts: `s(k).f = v` is `s.f{k} = v`, `s(k).f` is `s.f{k}`, and
//!   `[s.f]` is `[s.f{:}]`;
//! - any other field is the array `s.f`, made `[]` where the function starts: `s(k).f = v` is
//!   `_s_f_vN = v; s.f(k) = _s_f_vN`, `s(k).f` is `s.f(k)`, and `[s.f]` is `[s.f]`, the
//!   field's row. Lowering checks the held value: a text there (`s(k).grade = letter(x)`, a
//!   function of the program) makes the field a text field and lowering starts again
//!   ([`Rewritten::numeric_values`]);
//! - a field that nothing reads keeps only its count: `s(k).f = v` evaluates `v` into a hidden
//!   `_s_f_uN` (its errors are MATLAB's) and stores 0 at `s.f(k)`, so a row or matrix that
//!   nothing reads back does not have to fit an array of numbers;
//! - `numel(s)` and `length(s)` are the largest count among the fields, `isempty(s)` compares
//!   it with 0, and `end` in `s(...)` stands for it;
//! - every assignment first checks that it writes at most one element past the end of its
//!   field (`m2cu:structArrayGap` otherwise): MATLAB leaves the fields of the elements it
//!   skips empty (`[]`), which a field kept as an array cannot hold. With that check element
//!   `j` has the field `f` exactly when `j <= numel(s.f)`, and `[s.f]`, which drops empty
//!   fields in MATLAB, is the field's variable.
//!
//! A name is rewritten only when every use of it has one of these forms (one subscript, no
//! `:`; a field with no dot; `s.f` inside brackets only) and it is neither a parameter nor
//! assigned otherwise. Anything else stays an [`ExprKind::ElementField`] or
//! [`LValue::ElementField`], which lowering refuses (E0103).

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, HashMap, HashSet};

use crate::ast::{
    BinaryOp, CaseLabels, Expr, ExprKind, Function, Ident, LValue, Stmt, StmtKind, SwitchCase,
};
use crate::diag::{Diagnostic, Span};

/// The functions whose result is a text, for deciding that a field holds texts.
const TEXT_FUNCTIONS: &[&str] = &[
    "sprintf", "num2str", "int2str", "mat2str", "upper", "lower", "strtrim", "strcat", "strrep",
    "blanks", "char", "deblank", "dec2bin", "dec2hex", "strjoin",
];

/// The functions of a struct array's count.
const COUNT_FUNCTIONS: &[&str] = &["numel", "length", "isempty"];

/// What [`rewrite_functions`] leaves for lowering.
#[derive(Default)]
pub struct Rewritten {
    /// An E0103 for each struct array left as it is, at the use that keeps it so.
    pub refusals: Vec<Diagnostic>,
    /// The hidden variable that holds each value stored into a field taken for numbers, and
    /// that field's variable (`_s_f_v1` → `s.f`): lowering checks that no text is stored
    /// there, and when one is, the field is a text field (`text_fields`) after all.
    pub numeric_values: HashMap<String, String>,
}

/// Rewrites the struct arrays of every function of a file (nested ones too); the field
/// variables in `text_fields` (`s.f`) hold texts whatever their assignments look like.
pub fn rewrite_functions(functions: &mut [Function], text_fields: &HashSet<String>) -> Rewritten {
    let mut out = Rewritten::default();
    for f in functions {
        rewrite_function(f, text_fields, &mut out);
        let nested = rewrite_functions(&mut f.nested, text_fields);
        out.refusals.extend(nested.refusals);
        out.numeric_values.extend(nested.numeric_values);
    }
    out
}

/// Why a struct array stays as it is: the first use this module does not rewrite.
struct Refusal {
    span: Span,
    what: &'static str,
}

impl Refusal {
    fn diagnostic(&self, name: &str) -> Diagnostic {
        Diagnostic::error(
            "E0103",
            self.span,
            format!("the struct array `{name}` {} is not supported", self.what),
        )
        .with_label("used here")
        .with_help("m2cu keeps a struct array as a variable per field: fill it with `s(k).name = v` (a number or a text, elements in order), read `s(k).name` with one index, `[s.name]`, `numel(s)`, `length(s)` and `isempty(s)`")
    }
}

/// What a function does with one field of a struct array.
#[derive(Default)]
struct FieldUse {
    text: bool,
    read: bool,
}

/// One struct array of a function.
#[derive(Default)]
struct StructArray {
    fields: BTreeMap<String, FieldUse>,
    /// Made empty by `s = struct('f', {}, ...)` or `struct([])`: its fields are made where
    /// that statement is, not where the function starts.
    declared: bool,
}

/// The struct arrays of one function, by name.
type Arrays = BTreeMap<String, StructArray>;

fn rewrite_function(f: &mut Function, text_fields: &HashSet<String>, out: &mut Rewritten) {
    let mut uses = Uses::default();
    uses.stmts(&f.body);
    for (name, array) in &mut uses.arrays {
        for (field, u) in &mut array.fields {
            u.text |= text_fields.contains(&format!("{name}.{field}"));
        }
    }
    for p in &f.params {
        uses.refuse(&p.name, p.span, "as a parameter");
    }
    for o in &f.outputs {
        uses.refuse(&o.name, o.span, "as an output of the function");
    }
    let sources = uses.resolve_element_sources();
    let assigned = std::mem::take(&mut uses.assigned);
    for (n, span) in assigned {
        let base = n.split_once('.').map_or(n.as_str(), |(b, _)| b);
        uses.refuse(base, span, "assigned as another variable too");
    }
    uses.arrays.retain(|name, _| match uses.refused.get(name) {
        Some(r) => {
            out.refusals.push(r.diagnostic(name));
            false
        }
        None => true,
    });
    if uses.arrays.is_empty() {
        return;
    }
    let arrays = uses.arrays;
    let mut body: Vec<Stmt> = Vec::new();
    for (name, array) in arrays.iter().filter(|(_, a)| !a.declared) {
        body.extend(made_empty(name, array, f.span));
    }
    let old = std::mem::take(&mut f.body);
    let rewriter = Rewriter {
        arrays: &arrays,
        sources: &sources,
        held: Cell::new(0),
        numeric_values: RefCell::new(HashMap::new()),
    };
    body.extend(rewriter.stmts(old));
    f.body = body;
    out.numeric_values
        .extend(rewriter.numeric_values.into_inner());
}

/// Every field of the struct array `name` made empty (module docs).
fn made_empty(name: &str, array: &StructArray, span: Span) -> Vec<Stmt> {
    let empty = |(field, u): (&String, &FieldUse)| {
        let variable = format!("{name}.{field}");
        match u.text && u.read {
            true => make_empty_cell(&variable, span),
            false => make_empty_array(&variable, span),
        }
    };
    array.fields.iter().map(empty).collect()
}

/// The fields of `struct('f', {}, 'g', {})` or `struct([])`: an empty struct array.
fn empty_struct_fields(e: &Expr) -> Option<Vec<String>> {
    let ExprKind::Call { callee, args } = &e.kind else {
        return None;
    };
    if callee.name != "struct" {
        return None;
    }
    if let [Expr {
        kind: ExprKind::Matrix(rows),
        ..
    }] = args.as_slice()
    {
        return rows.is_empty().then(Vec::new);
    }
    let empty_cell =
        |e: &Expr| matches!(&e.kind, ExprKind::TextCell { items, .. } if items.is_empty());
    (!args.is_empty() && args.len() % 2 == 0)
        .then_some(())
        .and_then(|()| {
            args.chunks(2)
                .map(|pair| match (&pair[0].kind, empty_cell(&pair[1])) {
                    (ExprKind::Str(field), true) => Some(field.clone()),
                    _ => None,
                })
                .collect()
        })
}

/// `name = [];`
fn make_empty_array(name: &str, span: Span) -> Stmt {
    let value = Expr {
        kind: ExprKind::Matrix(Vec::new()),
        span,
    };
    assign(LValue::Var(ident(name, span)), value, span)
}

/// `name = cell(1, 0);`
fn make_empty_cell(name: &str, span: Span) -> Stmt {
    let value = call("cell", vec![number(1.0, span), number(0.0, span)], span);
    assign(LValue::Var(ident(name, span)), value, span)
}

// ----- what the function does with each name -----------------------------------------------

#[derive(Default)]
struct Uses {
    arrays: Arrays,
    /// Names assigned otherwise than as a struct array (`s = ...`, `s.f = ...`, `s(k) = ...`).
    assigned: HashMap<String, Span>,
    /// Names used in a form this module does not rewrite (only struct arrays matter).
    refused: HashMap<String, Refusal>,
    /// Dotted names read as values, for telling `s.f` of a struct array from other dotted
    /// names: where, and whether inside brackets.
    dotted_reads: Vec<(String, Span, bool)>,
    /// Variables assigned a text (`name = 'Ana'`, `label = sprintf(...)`).
    texts: HashSet<String>,
    /// `s(k) = t` with a name `t`: an element assigned whole when `s` is a struct array and `t`
    /// a struct (`Uses::resolve_element_sources`), else an ordinary assignment of `s`.
    element_sets: Vec<(String, String, Span)>,
}

impl Uses {
    /// Decides each `s(k) = t` (`element_sets`): an element of the struct array `s` assigned
    /// the struct `t` (its fields join `s`'s) where `s` is one and `t` has fields, else an
    /// ordinary assignment of `s`. Returns the pairs `(s, t)` of the first kind; `s` is refused
    /// where `t`'s fields are not all of `s`'s (MATLAB's "dissimilar structures").
    fn resolve_element_sources(&mut self) -> HashSet<(String, String)> {
        let mut sources = HashSet::new();
        let sets = std::mem::take(&mut self.element_sets);
        let mut checks = Vec::new();
        for (array, source, span) in sets {
            let fields = self.fields_of_struct(&source);
            match self.arrays.get_mut(&array) {
                Some(a) if !fields.is_empty() => {
                    for field in &fields {
                        let text = self.texts.contains(&format!("{source}.{field}"));
                        a.fields.entry(field.clone()).or_default().text |= text;
                    }
                    checks.push((array.clone(), fields, span));
                    sources.insert((array, source));
                }
                _ => {
                    self.assigned.insert(array, span);
                }
            }
        }
        for (array, fields, span) in checks {
            let own: Vec<&String> = self.arrays[&array].fields.keys().collect();
            if own != fields.iter().collect::<Vec<_>>() {
                let what = "assigned an element whose fields are not its own";
                self.refuse(&array, span, what);
            }
        }
        sources
    }

    /// The fields assigned to the scalar struct `name` (`name.f = ...`), sorted; none with a
    /// nested field counts.
    fn fields_of_struct(&self, name: &str) -> Vec<String> {
        let prefix = format!("{name}.");
        let mut fields: Vec<String> = self
            .assigned
            .keys()
            .filter_map(|n| n.strip_prefix(&prefix))
            .map(str::to_string)
            .collect();
        if fields.iter().any(|f| f.contains('.')) {
            return Vec::new();
        }
        fields.sort();
        fields.dedup();
        fields
    }

    /// Records the first use of `name` that keeps it from being rewritten.
    fn refuse(&mut self, name: &str, span: Span, what: &'static str) {
        self.refused
            .entry(name.to_string())
            .or_insert(Refusal { span, what });
    }

    fn stmts(&mut self, body: &[Stmt]) {
        for s in body {
            self.stmt(s);
        }
        // `s.f` is the field of a struct array only inside brackets.
        let reads = std::mem::take(&mut self.dotted_reads);
        for (name, span, in_brackets) in reads {
            let Some((base, field)) = name.split_once('.') else {
                continue;
            };
            match self.arrays.get_mut(base) {
                Some(a) if in_brackets && a.fields.contains_key(field) => {
                    a.fields.get_mut(field).expect("checked").read = true
                }
                Some(_) => self.refuse(
                    base,
                    span,
                    "read as `s.f` (every element's field) outside `[...]`",
                ),
                None => {}
            }
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Expr(e) => self.expr(e, false),
            StmtKind::Assign { targets, value } => {
                for t in targets {
                    self.target(t, value);
                    // A struct array shown whole is MATLAB's display, not a field's.
                    if let (LValue::ElementField { base, .. }, true) = (t, s.shown) {
                        self.refuse(
                            &base.name,
                            s.span,
                            "shown whole (an assignment without `;`)",
                        );
                    }
                }
                self.expr(value, false);
            }
            StmtKind::For { var, range, body } => {
                self.assigned.insert(var.name.clone(), var.span);
                self.expr(range, false);
                body.iter().for_each(|s| self.stmt(s));
            }
            StmtKind::While { cond, body } => {
                self.expr(cond, false);
                body.iter().for_each(|s| self.stmt(s));
            }
            StmtKind::If { clauses, else_body } => {
                for (cond, body) in clauses {
                    self.expr(cond, false);
                    body.iter().for_each(|s| self.stmt(s));
                }
                else_body.iter().flatten().for_each(|s| self.stmt(s));
            }
            StmtKind::Switch {
                subject,
                cases,
                otherwise,
            } => {
                self.expr(subject, false);
                for case in cases {
                    match &case.labels {
                        CaseLabels::Single(e) => self.expr(e, false),
                        CaseLabels::Cell(es) => es.iter().for_each(|e| self.expr(e, false)),
                    }
                    case.body.iter().for_each(|s| self.stmt(s));
                }
                otherwise.iter().flatten().for_each(|s| self.stmt(s));
            }
            StmtKind::Declare { names, .. } => self
                .assigned
                .extend(names.iter().map(|n| (n.name.clone(), n.span))),
            StmtKind::Break | StmtKind::Continue | StmtKind::Return => {}
        }
    }

    fn target(&mut self, t: &LValue, value: &Expr) {
        match t {
            LValue::ElementField {
                base,
                args,
                field,
                span,
            } => {
                if !plain_index(args) {
                    self.refuse(&base.name, *span, ONE_SUBSCRIPT);
                }
                if field.name.contains('.') {
                    self.refuse(&base.name, field.span, "with a nested field");
                }
                args.iter().for_each(|a| self.expr(a, false));
                let text = self.is_text(value);
                let array = self.arrays.entry(base.name.clone()).or_default();
                array.fields.entry(field.name.clone()).or_default().text |= text;
            }
            LValue::Var(n) if empty_struct_fields(value).is_some() => {
                let array = self.arrays.entry(n.name.clone()).or_default();
                array.declared = true;
                for field in empty_struct_fields(value).unwrap_or_default() {
                    array.fields.entry(field).or_default();
                }
            }
            LValue::Index { base, args, span } if plain_index(args) && is_name(value) => {
                let ExprKind::Ident(source) = &value.kind else {
                    unreachable!("is_name")
                };
                let entry = (base.name.clone(), source.clone(), *span);
                self.element_sets.push(entry);
                args.iter().for_each(|a| self.expr(a, false));
            }
            LValue::Var(n) | LValue::Index { base: n, .. } | LValue::Content { base: n, .. } => {
                if matches!(t, LValue::Var(_)) && self.is_text(value) {
                    self.texts.insert(n.name.clone());
                }
                self.assigned.insert(n.name.clone(), n.span);
                if let LValue::Index { args, .. } | LValue::Content { args, .. } = t {
                    args.iter().for_each(|a| self.expr(a, false));
                }
            }
            LValue::Ignore(_) => {}
        }
    }

    /// Whether `e` is a text to the rules of the module docs.
    fn is_text(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Str(_) | ExprKind::CellIndex { .. } => true,
            ExprKind::Ident(name) => self.texts.contains(name),
            ExprKind::Paren(inner) => self.is_text(inner),
            ExprKind::Matrix(rows) => rows.iter().flatten().any(|x| self.is_text(x)),
            ExprKind::Call { callee, .. } => TEXT_FUNCTIONS.contains(&callee.name.as_str()),
            ExprKind::ElementField { callee, field, .. } => self
                .arrays
                .get(&callee.name)
                .and_then(|a| a.fields.get(&field.name))
                .is_some_and(|u| u.text),
            _ => false,
        }
    }

    fn expr(&mut self, e: &Expr, in_brackets: bool) {
        match &e.kind {
            ExprKind::Ident(name) => {
                if name.contains('.') {
                    self.dotted_reads.push((name.clone(), e.span, in_brackets));
                } else {
                    self.refuse(name, e.span, "used as a value");
                }
            }
            ExprKind::ElementField {
                callee,
                args,
                field,
            } => {
                if !plain_index(args) {
                    self.refuse(&callee.name, e.span, ONE_SUBSCRIPT);
                }
                let array = self.arrays.entry(callee.name.clone()).or_default();
                array.fields.entry(field.name.clone()).or_default().read = true;
                args.iter().for_each(|a| self.expr(a, false));
            }
            ExprKind::Call { callee, args } => {
                let counted = COUNT_FUNCTIONS.contains(&callee.name.as_str())
                    && matches!(args.as_slice(), [Expr { kind: ExprKind::Ident(n), .. }] if !n.contains('.'));
                if !counted {
                    self.dotted_reads.push((callee.name.clone(), e.span, false));
                    self.refuse(
                        &callee.name,
                        e.span,
                        "read as an element `s(k)` without a field",
                    );
                    args.iter().for_each(|a| self.expr(a, false));
                }
            }
            ExprKind::CellIndex { callee, args } => {
                self.refuse(&callee.name, e.span, "indexed with `{}`");
                args.iter().for_each(|a| self.expr(a, false));
            }
            ExprKind::Matrix(rows) => rows.iter().flatten().for_each(|x| self.expr(x, true)),
            ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => {
                self.expr(operand, false)
            }
            ExprKind::Paren(inner) => self.expr(inner, false),
            ExprKind::Binary { lhs, rhs, .. } => {
                self.expr(lhs, false);
                self.expr(rhs, false);
            }
            ExprKind::Range { start, step, stop } => {
                self.expr(start, false);
                step.iter().for_each(|s| self.expr(s, false));
                self.expr(stop, false);
            }
            ExprKind::HandleCell(items) | ExprKind::TextCell { items, .. } => {
                items.iter().for_each(|x| self.expr(x, false))
            }
            ExprKind::AnonFn { body, .. } => self.expr(body, false),
            ExprKind::Number { .. }
            | ExprKind::Imaginary { .. }
            | ExprKind::Str(_)
            | ExprKind::StringScalar(_)
            | ExprKind::Colon
            | ExprKind::End
            | ExprKind::FuncHandle(_) => {}
        }
    }
}

/// Whether `e` calls a function or reads a cell or an element's field (anything beyond
/// names, numbers and operators).
fn calls_something(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Call { .. } | ExprKind::CellIndex { .. } | ExprKind::ElementField { .. } => true,
        ExprKind::Binary { lhs, rhs, .. } => calls_something(lhs) || calls_something(rhs),
        ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => {
            calls_something(operand)
        }
        ExprKind::Paren(inner) => calls_something(inner),
        _ => false,
    }
}

/// A plain name (no field).
fn is_name(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Ident(n) if !n.contains('.'))
}

/// The refusal of an element chosen otherwise.
const ONE_SUBSCRIPT: &str = "indexed by other than one subscript";

/// One subscript that is no bare `:`.
fn plain_index(args: &[Expr]) -> bool {
    matches!(args, [a] if a.kind != ExprKind::Colon)
}

// ----- the rewrite --------------------------------------------------------------------------

struct Rewriter<'a> {
    arrays: &'a Arrays,
    /// The `(s, t)` of `s(k) = t` that assign an element whole.
    sources: &'a HashSet<(String, String)>,
    /// How many hidden names were made so far.
    held: Cell<usize>,
    /// See [`Rewritten::numeric_values`].
    numeric_values: RefCell<HashMap<String, String>>,
}

impl Rewriter<'_> {
    fn stmts(&self, body: Vec<Stmt>) -> Vec<Stmt> {
        body.into_iter().flat_map(|s| self.stmt(s)).collect()
    }

    fn stmt(&self, s: Stmt) -> Vec<Stmt> {
        let span = s.span;
        let kind = match s.kind {
            StmtKind::Assign { targets, value } => {
                let value = self.expr(value);
                match (targets.as_slice(), &value.kind) {
                    (
                        [LValue::ElementField {
                            base, args, field, ..
                        }],
                        _,
                    ) => {
                        if let Some(u) = self.field_use(&base.name, &field.name) {
                            return self.element_assignment(base, &args[0], field, u, value, span);
                        }
                    }
                    ([LValue::Var(name)], _) if empty_struct_fields(&value).is_some() => {
                        if let Some(array) = self.arrays.get(&name.name) {
                            return made_empty(&name.name, array, span);
                        }
                    }
                    ([LValue::Index { base, args, .. }], ExprKind::Ident(source))
                        if self.sources.contains(&(base.name.clone(), source.clone())) =>
                    {
                        return self.element_set(base, &args[0], source, span);
                    }
                    _ => {}
                }
                let targets = targets.into_iter().map(|t| self.target(t)).collect();
                StmtKind::Assign { targets, value }
            }
            StmtKind::Expr(e) => StmtKind::Expr(self.expr(e)),
            StmtKind::For { var, range, body } => StmtKind::For {
                var,
                range: self.expr(range),
                body: self.stmts(body),
            },
            StmtKind::While { cond, body } => StmtKind::While {
                cond: self.expr(cond),
                body: self.stmts(body),
            },
            StmtKind::If { clauses, else_body } => StmtKind::If {
                clauses: clauses
                    .into_iter()
                    .map(|(c, b)| (self.expr(c), self.stmts(b)))
                    .collect(),
                else_body: else_body.map(|b| self.stmts(b)),
            },
            StmtKind::Switch {
                subject,
                cases,
                otherwise,
            } => StmtKind::Switch {
                subject: self.expr(subject),
                cases: cases
                    .into_iter()
                    .map(|c| SwitchCase {
                        labels: match c.labels {
                            CaseLabels::Single(e) => CaseLabels::Single(self.expr(e)),
                            CaseLabels::Cell(es) => {
                                CaseLabels::Cell(es.into_iter().map(|e| self.expr(e)).collect())
                            }
                        },
                        body: self.stmts(c.body),
                        ..c
                    })
                    .collect(),
                otherwise: otherwise.map(|b| self.stmts(b)),
            },
            other => other,
        };
        vec![Stmt { kind, ..s }]
    }

    fn field_use(&self, array: &str, field: &str) -> Option<&FieldUse> {
        self.arrays.get(array)?.fields.get(field)
    }

    /// `s(k).f = v`: the gap check, then the store (module docs).
    fn element_assignment(
        &self,
        base: &Ident,
        index: &Expr,
        field: &Ident,
        u: &FieldUse,
        value: Expr,
        span: Span,
    ) -> Vec<Stmt> {
        let mut out = Vec::new();
        let mut index = self.index(&base.name, index.clone());
        if calls_something(&index) {
            // The check and the store read the index: a call in it (which may print) runs once.
            let at = self.hidden(&format!("_{}_at", base.name));
            out.push(assign(LValue::Var(ident(&at, span)), index, span));
            index = Expr {
                kind: ExprKind::Ident(at),
                span,
            };
        }
        let variable = ident(&format!("{}.{}", base.name, field.name), field.span);
        out.push(gap_check(base, field, &variable, &index, span));
        let args = vec![index];
        match (u.read, u.text) {
            (true, true) => out.push(assign(
                LValue::Content {
                    base: variable,
                    args,
                    span,
                },
                value,
                span,
            )),
            (true, false) => {
                let held = self.hidden(&format!("_{}_{}_v", base.name, field.name));
                self.numeric_values
                    .borrow_mut()
                    .insert(held.clone(), variable.name.clone());
                out.push(assign(LValue::Var(ident(&held, span)), value, span));
                let value = Expr {
                    kind: ExprKind::Ident(held),
                    span,
                };
                let target = LValue::Index {
                    base: variable,
                    args,
                    span,
                };
                out.push(assign(target, value, span));
            }
            (false, _) => {
                // Its own name each time: the values nothing reads may differ in type.
                let hidden = self.hidden(&format!("_{}_{}_u", base.name, field.name));
                out.push(assign(LValue::Var(ident(&hidden, span)), value, span));
                out.push(assign(
                    LValue::Index {
                        base: variable,
                        args,
                        span,
                    },
                    number(0.0, span),
                    span,
                ));
            }
        }
        out
    }

    /// A fresh hidden name: `stem` and a number.
    fn hidden(&self, stem: &str) -> String {
        self.held.set(self.held.get() + 1);
        format!("{stem}{}", self.held.get())
    }

    /// `s(k) = t`: the index once, then each field as `s(k).f = t.f`.
    fn element_set(&self, base: &Ident, index: &Expr, source: &str, span: Span) -> Vec<Stmt> {
        let at = self.hidden(&format!("_{}_at", base.name));
        let index = self.index(&base.name, index.clone());
        let mut out = vec![assign(LValue::Var(ident(&at, span)), index, span)];
        let at = Expr {
            kind: ExprKind::Ident(at),
            span,
        };
        for (field, u) in &self.arrays[&base.name].fields {
            let value = Expr {
                kind: ExprKind::Ident(format!("{source}.{field}")),
                span,
            };
            let field = ident(field, span);
            out.extend(self.element_assignment(base, &at, &field, u, value, span));
        }
        out
    }

    /// A subscript of the struct array `name` with `end` standing for its count (an `end` in
    /// a nested index or call belongs to that).
    fn index(&self, name: &str, e: Expr) -> Expr {
        let e = self.expr(e);
        self.with_count_for_end(name, e)
    }

    fn with_count_for_end(&self, name: &str, e: Expr) -> Expr {
        let span = e.span;
        let kind = match e.kind {
            ExprKind::End => return self.count(name, span),
            ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
                op,
                lhs: Box::new(self.with_count_for_end(name, *lhs)),
                rhs: Box::new(self.with_count_for_end(name, *rhs)),
            },
            ExprKind::Unary { op, operand } => ExprKind::Unary {
                op,
                operand: Box::new(self.with_count_for_end(name, *operand)),
            },
            ExprKind::Paren(inner) => {
                ExprKind::Paren(Box::new(self.with_count_for_end(name, *inner)))
            }
            other => other,
        };
        Expr { kind, span }
    }

    /// The count of the struct array `name`: the largest count among its fields.
    fn count(&self, name: &str, span: Span) -> Expr {
        let counts: Vec<Expr> = self.arrays[name]
            .fields
            .keys()
            .map(|field| {
                let variable = Expr {
                    kind: ExprKind::Ident(format!("{name}.{field}")),
                    span,
                };
                call("numel", vec![variable], span)
            })
            .collect();
        if counts.is_empty() {
            return number(0.0, span);
        }
        match <[Expr; 1]>::try_from(counts) {
            Ok([one]) => one,
            Err(counts) => call(
                "max",
                vec![Expr {
                    kind: ExprKind::Matrix(vec![counts]),
                    span,
                }],
                span,
            ),
        }
    }

    fn target(&self, t: LValue) -> LValue {
        match t {
            LValue::Index { base, args, span } => LValue::Index {
                base,
                args: args.into_iter().map(|a| self.expr(a)).collect(),
                span,
            },
            LValue::Content { base, args, span } => LValue::Content {
                base,
                args: args.into_iter().map(|a| self.expr(a)).collect(),
                span,
            },
            other => other,
        }
    }

    fn expr(&self, e: Expr) -> Expr {
        let span = e.span;
        let kind = match e.kind {
            ExprKind::ElementField {
                callee,
                args,
                field,
            } => match self.field_use(&callee.name, &field.name) {
                Some(u) => {
                    let index = self.index(&callee.name, args.into_iter().next().expect("one"));
                    let variable = ident(&format!("{}.{}", callee.name, field.name), field.span);
                    match u.text {
                        true => ExprKind::CellIndex {
                            callee: variable,
                            args: vec![index],
                        },
                        false => ExprKind::Call {
                            callee: variable,
                            args: vec![index],
                        },
                    }
                }
                None => ExprKind::ElementField {
                    callee,
                    args: args.into_iter().map(|a| self.expr(a)).collect(),
                    field,
                },
            },
            ExprKind::Call { callee, args } => match self.counted(&callee.name, &args) {
                Some(name) => return self.count_call(&callee.name, &name, span),
                None => ExprKind::Call {
                    callee,
                    args: args.into_iter().map(|a| self.expr(a)).collect(),
                },
            },
            ExprKind::Matrix(rows) => ExprKind::Matrix(
                rows.into_iter()
                    .map(|row| row.into_iter().map(|x| self.bracket_item(x)).collect())
                    .collect(),
            ),
            ExprKind::CellIndex { callee, args } => ExprKind::CellIndex {
                callee,
                args: args.into_iter().map(|a| self.expr(a)).collect(),
            },
            ExprKind::Unary { op, operand } => ExprKind::Unary {
                op,
                operand: Box::new(self.expr(*operand)),
            },
            ExprKind::Postfix { op, operand } => ExprKind::Postfix {
                op,
                operand: Box::new(self.expr(*operand)),
            },
            ExprKind::Paren(inner) => ExprKind::Paren(Box::new(self.expr(*inner))),
            ExprKind::Binary { op, lhs, rhs } => ExprKind::Binary {
                op,
                lhs: Box::new(self.expr(*lhs)),
                rhs: Box::new(self.expr(*rhs)),
            },
            ExprKind::Range { start, step, stop } => ExprKind::Range {
                start: Box::new(self.expr(*start)),
                step: step.map(|s| Box::new(self.expr(*s))),
                stop: Box::new(self.expr(*stop)),
            },
            ExprKind::HandleCell(items) => {
                ExprKind::HandleCell(items.into_iter().map(|x| self.expr(x)).collect())
            }
            ExprKind::TextCell { items, column } => ExprKind::TextCell {
                items: items.into_iter().map(|x| self.expr(x)).collect(),
                column,
            },
            ExprKind::AnonFn { params, body } => ExprKind::AnonFn {
                params,
                body: Box::new(self.expr(*body)),
            },
            other => other,
        };
        Expr { kind, span }
    }

    /// An element of `[...]`: `s.f` of a text field is `s.f{:}`.
    fn bracket_item(&self, x: Expr) -> Expr {
        if let ExprKind::Ident(name) = &x.kind {
            let text = name
                .split_once('.')
                .and_then(|(base, field)| self.field_use(base, field))
                .is_some_and(|u| u.text);
            if text {
                let callee = ident(name, x.span);
                let args = vec![Expr {
                    kind: ExprKind::Colon,
                    span: x.span,
                }];
                return Expr {
                    kind: ExprKind::CellIndex { callee, args },
                    span: x.span,
                };
            }
        }
        self.expr(x)
    }

    /// The struct array that `numel(s)`, `length(s)` or `isempty(s)` counts.
    fn counted(&self, callee: &str, args: &[Expr]) -> Option<String> {
        let [Expr {
            kind: ExprKind::Ident(name),
            ..
        }] = args
        else {
            return None;
        };
        (COUNT_FUNCTIONS.contains(&callee) && self.arrays.contains_key(name)).then(|| name.clone())
    }

    fn count_call(&self, callee: &str, name: &str, span: Span) -> Expr {
        let count = self.count(name, span);
        match callee {
            "isempty" => Expr {
                kind: ExprKind::Binary {
                    op: BinaryOp::Eq,
                    lhs: Box::new(count),
                    rhs: Box::new(number(0.0, span)),
                },
                span,
            },
            _ => count,
        }
    }
}

/// `if k > numel(s.f) + 1, error('m2cu:structArrayGap', ...), end`.
fn gap_check(base: &Ident, field: &Ident, variable: &Ident, index: &Expr, span: Span) -> Stmt {
    let next = Expr {
        kind: ExprKind::Binary {
            op: BinaryOp::Add,
            lhs: Box::new(call(
                "numel",
                vec![Expr {
                    kind: ExprKind::Ident(variable.name.clone()),
                    span,
                }],
                span,
            )),
            rhs: Box::new(number(1.0, span)),
        },
        span,
    };
    let past = Expr {
        kind: ExprKind::Binary {
            op: BinaryOp::Gt,
            lhs: Box::new(index.clone()),
            rhs: Box::new(next.clone()),
        },
        span,
    };
    let message = format!(
        "m2cu: %s(%d).{f} is assigned before %s(%d).{f}: MATLAB leaves the fields between empty ([]), which m2cu's struct arrays cannot hold; assign the elements in order",
        f = field.name
    );
    let name = Expr {
        kind: ExprKind::Str(base.name.clone()),
        span,
    };
    let error = call(
        "error",
        vec![
            Expr {
                kind: ExprKind::Str("m2cu:structArrayGap".into()),
                span,
            },
            Expr {
                kind: ExprKind::Str(message),
                span,
            },
            name.clone(),
            index.clone(),
            name,
            next,
        ],
        span,
    );
    Stmt {
        kind: StmtKind::If {
            clauses: vec![(
                past,
                vec![Stmt {
                    kind: StmtKind::Expr(error),
                    span,
                    shown: false,
                }],
            )],
            else_body: None,
        },
        span,
        shown: false,
    }
}

fn ident(name: &str, span: Span) -> Ident {
    Ident {
        name: name.to_string(),
        span,
    }
}

fn number(value: f64, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Number {
            value,
            text: format!("{value}"),
        },
        span,
    }
}

fn call(name: &str, args: Vec<Expr>, span: Span) -> Expr {
    Expr {
        kind: ExprKind::Call {
            callee: ident(name, span),
            args,
        },
        span,
    }
}

fn assign(target: LValue, value: Expr, span: Span) -> Stmt {
    Stmt {
        kind: StmtKind::Assign {
            targets: vec![target],
            value,
        },
        span,
        shown: false,
    }
}
