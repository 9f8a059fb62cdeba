//! Optional inputs: `nargin`, `nargout`, `narginchk` and `exist('x', 'var')`.
//!
//! m2cu translates a function for one call shape, so these are translation-time constants: the
//! entry's `nargin` is the number of inputs the run passes (`LowerOptions::nargin`), its
//! `nargout` the number of its outputs (the CLI and the library return them all); an inlined
//! local function sees the counts of its call. Invariants:
//! - the parameters after the first `nargin` are not inputs: each is an ordinary variable that
//!   its default assignment (`if nargin < 3, tol = 1e-6; end`) types, and reading it before any
//!   assignment is E0122 (Octave: `'tol' undefined`);
//! - an `if`/`elseif` condition made only of these counts, `exist` of a name, numbers and
//!   logical or comparison operators (the left side of `||`/`&&` deciding alone when it can,
//!   as in `nargin < 2 || isempty(p)`) is decided here, and only the branch taken is lowered, so a
//!   branch that reads an input that was not passed is not translated when it cannot run;
//! - `exist('x', 'var')` is 1 when `x` has a value at that point of the program order (an
//!   input passed, or a variable assigned before), else 0;
//! - `isempty(x)` in such a condition is decided too when `x`'s type settles it: an extent
//!   known to be 0 (an input passed as `[]`, typed `double(0,:)`) makes it 1, extents all known
//!   and non-zero make it 0. So `if nargin < 3 || isempty(tol), tol = 1e-6; end` called with
//!   `tol = []` lowers only the default, which retypes `tol` in straight-line code; the shape
//!   queries (`isempty`, `size(x, d)`, `isrow`, `iscolumn`, `isscalar`) of a variable that an
//!   enclosing loop assigns are not decided here, since a later pass through the body may see
//!   it widened;
//! - so are the class tests of a variable (`ischar(a)`, `isa(x, 'single')`, `isinteger(x)`:
//!   `Lowerer::static_class_test`), which m2cu knows from its type, and `size(x, d)`,
//!   `isrow(x)`, `iscolumn(x)` and `isscalar(x)` where its type knows the extents,
//!   `m2cu_known_dim(x)` (the default dimension when the type settles it, else 0),
//!   `m2cu_scalar_type(x)` (whether the type is a scalar), and a parameter of an
//!   inlined call that the call gives a number and the callee never assigns (`Lowerer::constant_params`).

use crate::ast::{self, BinaryOp, ExprKind as AstExpr, UnaryOp};
use crate::diag::Span;
use crate::ir::{PrintPiece, PrintTo, StmtKind};
use crate::types::{Class, Dim, Shape, Type};

use super::array::Val;
use super::Lowerer;

/// `nargin` and `nargout` of the function being lowered.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct ArgCounts {
    pub nargin: usize,
    pub nargout: usize,
}

/// The names that read the call's argument counts.
pub(super) const ARGUMENT_COUNTS: [&str; 2] = ["nargin", "nargout"];

impl Lowerer<'_> {
    /// `nargin` or `nargout` read as a value: a double constant.
    pub(super) fn arg_count(&mut self, name: &str, span: Span) -> Option<Val> {
        let count = self.count_named(name)?;
        Some(Val::Scalar(self.constant_expr(
            count as f64,
            Class::Double,
            span,
        )))
    }

    fn count_named(&self, name: &str) -> Option<usize> {
        match name {
            "nargin" => Some(self.arg_counts.nargin),
            "nargout" => Some(self.arg_counts.nargout),
            _ => None,
        }
    }

    /// `exist('x')` / `exist('x', 'var')`: 1 or 0 (see the module doc).
    pub(super) fn exist(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let Some(defined) = self.exists(args) else {
            self.error(
                "E0105",
                span,
                "`exist` is supported as exist('name', 'var')".into(),
                "write exist('tol', 'var') with the variable's name as a char literal, or test nargin".into(),
            );
            return None;
        };
        Some(Val::Scalar(self.constant_expr(
            f64::from(u8::from(defined)),
            Class::Double,
            span,
        )))
    }

    fn exists(&self, args: &[ast::Expr]) -> Option<bool> {
        let name = match args {
            [name] => name,
            [name, kind] if matches!(&kind.kind, AstExpr::Str(k) if k == "var") => name,
            _ => return None,
        };
        match &name.kind {
            AstExpr::Str(n) => Some(self.scope.names.contains_key(n)),
            _ => None,
        }
    }

    /// The value of `callee(args)`, a query of a variable that its type answers: `isempty`,
    /// a class test, `size(x, d)` with a known extent, `isrow`/`iscolumn`; `None` for anything
    /// else or a `callee` that a variable shadows.
    fn static_call(&self, callee: &str, args: &[ast::Expr]) -> Option<f64> {
        if self.scope.names.contains_key(callee) {
            return None;
        }
        let truth = |b: bool| f64::from(u8::from(b));
        self.static_emptiness(callee, args)
            .or_else(|| self.static_class_test(callee, args))
            .or_else(|| self.static_scalarness(callee, args))
            .map(truth)
            .or_else(|| self.static_extent(callee, args))
    }

    /// `size(x, d)` for a literal `d` whose extent `x`'s type knows; `isrow(x)` or
    /// `iscolumn(x)` where its type settles it (a 2-D value with that extent known to be 1,
    /// or known to be another number); `m2cu_known_dim(x)` (m2cu's own library), the
    /// dimension that `sum(x)` reduces when `x`'s type settles it, else 0: always decided, so
    /// a library function lowers only the lines for the dimension its call reduces.
    fn static_extent(&self, callee: &str, args: &[ast::Expr]) -> Option<f64> {
        let (x, dim) = match (callee, args) {
            ("size", [x, d]) => match d.kind {
                AstExpr::Number { value, .. } if matches!(value, 1.0 | 2.0 | 3.0) => (x, value),
                _ => return None,
            },
            ("isrow", [x]) => (x, 1.0),
            ("iscolumn", [x]) => (x, 2.0),
            ("m2cu_known_dim", [x]) => {
                let shape = self.variable_type(x)?.shape;
                return Some(super::reduce::first_nonunit_dim(shape).map_or(0.0, f64::from));
            }
            _ => return None,
        };
        let shape = self.settled_shape(x)?;
        let extent = match dim as u8 {
            1 => shape.rows,
            2 => shape.cols,
            _ => shape.pages,
        };
        let Dim::Known(n) = extent else { return None };
        if callee == "size" {
            return Some(n as f64);
        }
        match (n == 1, shape.pages) {
            (true, Dim::Known(1)) => Some(1.0),
            (true, _) => None,
            (false, _) => Some(0.0),
        }
    }

    /// `isscalar(x)` where `x`'s type settles it: all extents known to be 1, or one known to
    /// be another number; `m2cu_scalar_type(x)` (m2cu's own library), whether `x`'s type is a
    /// scalar, always decided (a row that may hold one element is not).
    fn static_scalarness(&self, callee: &str, args: &[ast::Expr]) -> Option<bool> {
        let (query, [x]) = (callee, args) else {
            return None;
        };
        let shape = match query {
            "isscalar" => self.settled_shape(x)?,
            "m2cu_scalar_type" => return Some(self.variable_type(x)?.shape.is_scalar()),
            _ => return None,
        };
        let extents = [shape.rows, shape.cols, shape.pages];
        if shape.is_scalar() {
            Some(true)
        } else if extents
            .iter()
            .any(|d| matches!(d, Dim::Known(n) if *n != 1))
        {
            Some(false)
        } else {
            None
        }
    }

    /// The type of `e` when it is the name of a variable, for the queries its type answers.
    pub(super) fn variable_type(&self, e: &ast::Expr) -> Option<Type> {
        let AstExpr::Ident(name) = &e.kind else {
            return None;
        };
        Some(self.locals[*self.scope.names.get(name)?].ty)
    }

    /// Whether an enclosing loop of this function assigns the variable that `local` holds.
    pub(super) fn assigned_in_loop(&self, local: crate::ir::LocalId) -> bool {
        self.scope
            .loop_assigned
            .iter()
            .flatten()
            .any(|name| self.scope.names.get(name) == Some(&local))
    }

    /// The shape of `e` when it is the name of a variable whose shape is settled here: not one
    /// that an enclosing loop assigns, whose type a later pass through the body may widen
    /// (`first = ''` before the loop, `if isempty(first), first = name; end` in it).
    fn settled_shape(&self, e: &ast::Expr) -> Option<Shape> {
        let AstExpr::Ident(name) = &e.kind else {
            return None;
        };
        if self
            .scope
            .loop_assigned
            .iter()
            .any(|names| names.contains(name))
        {
            return None;
        }
        Some(self.variable_type(e)?.shape)
    }

    /// The number a parameter named `n` holds for the whole call (`Lowerer::constant_params`).
    fn constant_param(&self, n: &str) -> Option<f64> {
        self.constant_params.get(self.scope.names.get(n)?).copied()
    }

    /// `isempty(x)` of a variable whose type settles it (see the module doc).
    fn static_emptiness(&self, callee: &str, args: &[ast::Expr]) -> Option<bool> {
        let ("isempty", [x]) = (callee, args) else {
            return None;
        };
        let shape = self.settled_shape(x)?;
        match (shape.known_empty(), shape.known_nonempty()) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }

    /// The value of an `if` condition decided at translation time (see the module doc).
    pub(super) fn static_condition(&self, e: &ast::Expr) -> Option<bool> {
        if !self.mentions_counts(e) {
            return None;
        }
        self.static_value(e).map(|v| v != 0.0)
    }

    fn mentions_counts(&self, e: &ast::Expr) -> bool {
        match &e.kind {
            AstExpr::Ident(n) => {
                self.constant_param(n).is_some()
                    || (!self.scope.names.contains_key(n) && self.count_named(n).is_some())
            }
            AstExpr::Call { callee, args } => {
                callee.name == "exist" || self.static_call(&callee.name, args).is_some()
            }
            AstExpr::Unary { operand, .. } | AstExpr::Paren(operand) => {
                self.mentions_counts(operand)
            }
            AstExpr::Binary { lhs, rhs, .. } => {
                self.mentions_counts(lhs) || self.mentions_counts(rhs)
            }
            _ => false,
        }
    }

    fn static_value(&self, e: &ast::Expr) -> Option<f64> {
        let truth = |b: bool| f64::from(u8::from(b));
        Some(match &e.kind {
            AstExpr::Number { value, .. } => *value,
            AstExpr::Ident(n) if self.constant_param(n).is_some() => self.constant_param(n)?,
            AstExpr::Ident(n) if !self.scope.names.contains_key(n) => self.count_named(n)? as f64,
            AstExpr::Call { callee, args } if callee.name == "exist" => truth(self.exists(args)?),
            AstExpr::Call { callee, args } => self.static_call(&callee.name, args)?,
            AstExpr::Paren(inner) => self.static_value(inner)?,
            AstExpr::Unary { op, operand } => {
                let v = self.static_value(operand)?;
                match op {
                    UnaryOp::Not => truth(v == 0.0),
                    UnaryOp::Neg => -v,
                    UnaryOp::Plus => v,
                }
            }
            AstExpr::Binary { op, lhs, rhs } => {
                let a = self.static_value(lhs)?;
                // `nargin < 2 || isempty(p)`: the left side decides without the right.
                match op {
                    BinaryOp::OrOr | BinaryOp::Or if a != 0.0 => return Some(1.0),
                    BinaryOp::AndAnd | BinaryOp::And if a == 0.0 => return Some(0.0),
                    _ => {}
                }
                let b = self.static_value(rhs)?;
                match op {
                    BinaryOp::Eq => truth(a == b),
                    BinaryOp::Ne => truth(a != b),
                    BinaryOp::Lt => truth(a < b),
                    BinaryOp::Le => truth(a <= b),
                    BinaryOp::Gt => truth(a > b),
                    BinaryOp::Ge => truth(a >= b),
                    BinaryOp::And | BinaryOp::AndAnd => truth(a != 0.0 && b != 0.0),
                    BinaryOp::Or | BinaryOp::OrOr => truth(a != 0.0 || b != 0.0),
                    BinaryOp::Add => a + b,
                    BinaryOp::Sub => a - b,
                    _ => return None,
                }
            }
            _ => return None,
        })
    }

    /// `narginchk(lo, hi)` with constant bounds: nothing when `nargin` is within them, else
    /// Octave's error.
    pub(super) fn narginchk(&mut self, args: &[ast::Expr], span: Span) {
        let bounds: Option<Vec<f64>> = args.iter().map(|a| self.static_value(a)).collect();
        let Some([lo, hi]) = bounds.as_deref().and_then(|b| <[f64; 2]>::try_from(b).ok()) else {
            return self.error(
                "E0120",
                span,
                "`narginchk` takes two constant bounds here".into(),
                "write narginchk(2, 3) with numbers, or test nargin with if".into(),
            );
        };
        let nargin = self.arg_counts.nargin as f64;
        let problem = if nargin < lo {
            "not enough"
        } else if nargin > hi {
            "too many"
        } else {
            return;
        };
        self.push(
            StmtKind::Print {
                pieces: vec![PrintPiece::Text(format!(
                    "narginchk: {problem} input arguments"
                ))],
                to: PrintTo::Error { id: None },
            },
            span,
        );
    }

    /// `varargin` or `varargout` in `function`'s declaration: a variable number of inputs or
    /// outputs, which m2cu does not take yet (E0103, at the name); `true` when reported.
    pub(super) fn variable_arguments(&mut self, function: &ast::Function) -> bool {
        let last =
            |names: &[ast::Ident], word: &str| names.last().filter(|n| n.name == word).cloned();
        let found = last(&function.params, "varargin")
            .map(|n| (n, "inputs"))
            .or_else(|| last(&function.outputs, "varargout").map(|n| (n, "outputs")));
        let Some((name, what)) = found else {
            return false;
        };
        self.error(
            "E0103",
            name.span,
            format!("`{}` (a variable number of {what}) is not supported yet", name.name),
            format!("name each one, `function y = {}(x, width, verbose)` with `nargin` defaults, or pass the options in a struct (`opts.width = 3; {}(x, opts)`)", function.name.name, function.name.name),
        );
        true
    }

    /// A read of an entry input that the call did not pass, before any assignment.
    pub(super) fn omitted_input(&mut self, name: &str, span: Span) -> bool {
        if !self.omitted.iter().any(|n| n == name) {
            return false;
        }
        self.error(
            "E0122",
            span,
            format!(
                "input `{name}` is read but this call passes only {} input(s) (Octave: '{name}' undefined)",
                self.arg_counts.nargin
            ),
            format!("pass `{name}`, or give it a default first: if nargin < {}, {name} = ...; end", self.omitted_position(name)),
        );
        true
    }

    /// The 1-based position of an omitted input among the entry's parameters.
    fn omitted_position(&self, name: &str) -> usize {
        self.arg_counts.nargin + 1 + self.omitted.iter().position(|n| n == name).unwrap_or(0)
    }
}
