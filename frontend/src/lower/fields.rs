//! Structs kept in one function, as programs keep their settings: `p.k = 4; p.dt = 0.01;`
//! and `a = -p.k / p.m * x`, also `p = struct('k', 4, 'm', 1)`.
//!
//! The lexer reads `p.k` as one name, so each field is a variable of its own, named `p.k`
//! (`p.g.x` for a nested one): it has one class and shape, grows and is indexed as any
//! variable (`p.hist(end+1) = v`).
//!
//! Invariants (each broken one is a diagnostic, never a guess):
//! - a field is assigned only under a name that is no variable of another kind (`x = 5;
//!   x.a = 1` is E0103, as MATLAB refuses it);
//! - a struct is a value as a whole only where its fields can travel one by one: passed to a
//!   function of the program (its parameter's fields are bound to the values of the
//!   argument's, `handles::Arg::Parts`), returned by one to a variable (`s = f(...)`, `[a, s] =
//!   f(...)`: each field assigned), copied (`q = p`) or captured by an anonymous function.
//!   Returning one from the entry function, showing one (a statement without `;`), using one
//!   in an expression, or reading an unassigned field is a diagnostic naming the struct;
//! - a struct replaced whole (`s = f(...)` when `s` has fields) gets the same fields, so no
//!   stale field survives (MATLAB drops them): other fields are E0103;
//! - `struct(...)` makes a struct only from name-value pairs whose names are text literals and
//!   whose values are no cells (a cell value makes a struct array in MATLAB).

use super::*;

/// The functions this module translates.
pub(super) const STRUCT_FUNCTIONS: [&str; 1] = ["struct"];

impl Lowerer<'_> {
    /// E0103 for `s(k).name` that [`crate::struct_arrays`] left as it is: a struct array used
    /// otherwise than its rules allow (see there).
    pub(super) fn element_field_refused(&mut self, base: &ast::Ident, at: Span) -> Option<StmtId> {
        self.error(
            "E0103",
            at,
            format!("this use of the struct array `{}` is not supported", base.name),
            "m2cu keeps a struct array as a variable per field: fill it with `s(k).name = v` (a number or a text, elements in order), read `s(k).name` with one index, `[s.name]` and `numel(s)`; `s` itself as a value, and a name that is also another variable, are not supported".into(),
        );
        None
    }

    /// Whether `value`, stored into a struct-array field taken for numbers, is the hidden
    /// variable of a text (`crate::struct_arrays::Rewritten::numeric_values`): the field holds
    /// texts after all. In the entry's file the field is recorded and lowering halts, to start
    /// again with it a text field; in another file (rewritten once) it is E0103. An array that
    /// cannot hold one element (a matrix of known extents) there is E0103 too.
    pub(super) fn text_in_numeric_field(&mut self, value: &ast::Expr) -> bool {
        let AstExpr::Ident(held) = &value.kind else {
            return false;
        };
        let Some(&id) = self.scope.names.get(held) else {
            return false;
        };
        let ty = self.locals[id].ty;
        let field = self.field_values.get(held).map(String::as_str);
        let Some(field) = field.or_else(|| self.library.field_of_value(held)) else {
            return false;
        };
        if ty.class != Class::Char && !ty.shape.admits_one_element() {
            let field = field.to_string();
            self.error(
                "E0103",
                value.span,
                format!("the struct-array field `{field}` is given an array of {} here", ty.shape),
                "m2cu keeps a struct array's field of numbers as one number per element; keep the arrays apart (a 3-D array with a page per element, or a matrix with a row per element)".into(),
            );
            return true;
        }
        if ty.class != Class::Char {
            return false;
        }
        if let Some(field) = self.field_values.get(held) {
            self.text_fields.insert(field.clone());
            self.halted = true;
            return true;
        }
        let Some(field) = self.library.field_of_value(held) else {
            return false;
        };
        let field = field.to_string();
        self.error(
            "E0103",
            value.span,
            format!("the struct-array field `{field}` is given a text here, which m2cu took for a field of numbers"),
            "give the field its text where it is first assigned as a char literal or sprintf(...), or keep the struct array in the file m2cu translates".into(),
        );
        true
    }

    /// Whether `name` (`p`) has fields here (`p.k` was assigned).
    pub(super) fn is_struct(&self, name: &str) -> bool {
        let prefix = format!("{name}.");
        self.scope.names.keys().any(|n| n.starts_with(&prefix))
    }

    /// Checks that the field target `field` (`p.k`) may be assigned: its struct's name holds
    /// no variable of another kind.
    pub(super) fn field_target_allowed(&mut self, field: &ast::Ident) -> Option<()> {
        let mut base = field.name.as_str();
        while let Some((outer, _)) = base.rsplit_once('.') {
            if self.scope.names.contains_key(outer) || self.scope.handles.contains_key(outer) {
                self.error(
                    "E0103",
                    field.span,
                    format!(
                        "`{outer}` is not a struct here, so `{}` cannot be assigned",
                        field.name
                    ),
                    format!("give the struct a name of its own, not `{outer}`"),
                );
                return None;
            }
            base = outer;
        }
        Some(())
    }

    /// The fields of the struct `name` here, by their names after `name.` (`k`, `g.x`), in
    /// name order.
    pub(super) fn struct_fields(&self, name: &str) -> Vec<(String, LocalId)> {
        let prefix = format!("{name}.");
        let mut fields: Vec<(String, LocalId)> = self
            .scope
            .names
            .iter()
            .filter_map(|(n, &id)| Some((n.strip_prefix(&prefix)?.to_string(), id)))
            .collect();
        fields.sort();
        fields
    }

    /// The values of the fields of `e` when it names a struct (`f(p)`, `q = p`): each read as
    /// `p.k` would be, in name order; `None` when `e` is no struct's name.
    pub(super) fn struct_value(&mut self, e: &ast::Expr) -> Option<Option<StructVal>> {
        let AstExpr::Ident(name) = &e.kind else {
            return None;
        };
        if self.scope.names.contains_key(name) || !self.is_struct(name) {
            return None;
        }
        let mut fields = Vec::new();
        for (field, _) in self.struct_fields(name) {
            let read = ast::Expr {
                kind: AstExpr::Ident(format!("{name}.{field}")),
                span: e.span,
            };
            match self.value(&read) {
                Some(val) => fields.push((field, val)),
                None => return Some(None),
            }
        }
        Some(Some(fields))
    }

    /// `name = <a struct>`: each field assigned as `name.k = value`. A struct already there
    /// must have the same fields (MATLAB would drop the others; m2cu keeps a variable per
    /// field, which cannot be dropped).
    pub(super) fn assign_struct_value(
        &mut self,
        name: &ast::Ident,
        fields: StructVal,
        span: Span,
    ) -> Option<StmtId> {
        if self.is_struct(&name.name) {
            let old: Vec<String> = self
                .struct_fields(&name.name)
                .into_iter()
                .map(|f| f.0)
                .collect();
            let new: Vec<&String> = fields.iter().map(|f| &f.0).collect();
            if !old.iter().eq(new.iter().copied()) {
                self.error(
                    "E0103",
                    name.span,
                    format!(
                        "`{}` is replaced by a struct with other fields ({}), which m2cu cannot model",
                        name.name,
                        field_list(&new)
                    ),
                    "give the new struct a name of its own".into(),
                );
                return None;
            }
        }
        let mut last = None;
        for (field, val) in fields {
            let target = ast::Ident {
                name: format!("{}.{field}", name.name),
                span: name.span,
            };
            self.field_target_allowed(&target)?;
            last = self.assign_val(&target, val, span);
        }
        last
    }

    /// A struct read as a whole value (`f(p)`, `y = p`): E0103.
    pub(super) fn struct_as_value(&mut self, name: &str, span: Span) {
        let field = (self.struct_fields(name).first())
            .map_or_else(|| format!("{name}.k"), |(f, _)| format!("{name}.{f}"));
        self.error(
            "E0103",
            span,
            format!("the struct `{name}` used as a whole value is not supported"),
            format!("read its fields where they are needed (`{field}`); a struct goes whole only into a function of the program, out of one into a variable, or into a copy (`q = {name}`)"),
        );
    }

    /// `name = <a value that is no struct>` where `name` holds a struct: E0103.
    pub(super) fn struct_replaced(&mut self, name: &ast::Ident) {
        self.error(
            "E0103",
            name.span,
            format!(
                "`{}` holds a struct, and this assignment would replace it",
                name.name
            ),
            "give the new value a name of its own".into(),
        );
    }

    /// A function output that is a struct where only a value can be taken: E0103.
    /// `returner` names what returns it (the translated function, a combiner).
    pub(super) fn struct_output(&mut self, output: &ast::Ident, returner: &str) {
        self.error(
            "E0103",
            output.span,
            format!("the output `{}` is a struct, which {returner} cannot return", output.name),
            format!("return the fields the caller needs as separate outputs: function [k, m] = ... with k = {}.k", output.name),
        );
    }

    /// `p = struct('k', 4, 'm', 1)`: one assignment per field; `None` when `value` is no such
    /// call.
    pub(super) fn assign_struct_call(
        &mut self,
        name: &ast::Ident,
        value: &ast::Expr,
        span: Span,
    ) -> Option<Option<StmtId>> {
        let AstExpr::Call { callee, args } = &value.kind else {
            return None;
        };
        if callee.name != "struct" || self.is_function("struct") {
            return None;
        }
        let pairs: Option<Vec<(&str, &ast::Expr)>> = args
            .chunks(2)
            .map(|pair| match pair {
                [field, v]
                    if !matches!(v.kind, AstExpr::TextCell { .. } | AstExpr::HandleCell(_)) =>
                {
                    super::text::text_literal(field)
                        .filter(|f| is_field_name(f))
                        .map(|f| (f, v))
                }
                _ => None,
            })
            .collect();
        let Some(pairs) = pairs.filter(|p| !p.is_empty()) else {
            self.error(
                "E0103",
                value.span,
                "this `struct(...)` is not supported".into(),
                "write struct('name', value, ...) with text names and values that are no cells, or assign each field: p.name = value".into(),
            );
            return Some(None);
        };
        for (field, v) in pairs {
            let target = ast::Ident {
                name: format!("{}.{field}", name.name),
                span: name.span,
            };
            self.field_target_allowed(&target)?;
            self.assign(&[ast::LValue::Var(target)], v, span);
        }
        Some(None)
    }
}

/// The fields of a struct value, by their names after the struct's, in name order.
pub(super) type StructVal = Vec<(String, super::array::Val)>;

/// `a, b and c` for a diagnostic.
fn field_list(fields: &[&String]) -> String {
    let names: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
    names.join(", ")
}

/// Whether `text` is a MATLAB field name.
fn is_field_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic())
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
