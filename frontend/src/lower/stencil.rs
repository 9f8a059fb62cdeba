//! GPU Coder's `B = gpucoder.stencilKernel(FUNC, A, [M N], shape, param1, ...)`: `FUNC` called
//! on every M-by-N window of the matrix `A` (with the parameters after it), each call giving
//! one element of `B`.
//!
//! With `'valid'`, element `(i, j)` of `B` is `FUNC(A(i:i+M-1, j:j+N-1), ...)` and `B` is
//! `max(size(A) - [M N] + 1, 0)`. With `'same'`, `B` has `A`'s size and the window of element
//! `(i, j)` is centred on `A(i, j)`, reading zeros past the edges: the windows of a copy of `A`
//! padded with `(M-1)/2` rows and `(N-1)/2` columns of zeros on each side. The centre of an even
//! extent is not pinned down by GPU Coder's documentation, so an even `M` or `N` with
//! `'same'` is refused (E0103) rather than guessed. `M` and `N` are constants (E0105), `A` is a
//! 2-D numeric or logical array, `FUNC` a translation-time handle whose value is a scalar,
//! whose class `B` takes. Parameters are evaluated once, before the loops; each window is the
//! slice `P(i:i+M-1, j:j+N-1)`, M-by-N to the types (`Lowerer::subscript_count`), which the call
//! binds like any array argument: its copy is a scratch array of the loops (each thread owns
//! one), so the loops are one 2-D kernel.

use std::rc::Rc;

use super::array::{Pos, Sub, Val};
use super::handles::{Arg, Handle};
use super::*;

/// The name a call of it has.
pub(super) const GPUCODER_STENCIL: &str = "gpucoder.stencilKernel";

/// How the output's extents follow from the input's.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape2 {
    Same,
    Valid,
}

impl<'a> Lowerer<'a> {
    pub(super) fn gpucoder_stencil(&mut self, args: &[ast::Expr], span: Span) -> Option<Val> {
        let [func, a, size, shape, params @ ..] = args else {
            self.error(
                "E0105",
                span,
                "`gpucoder.stencilKernel` takes a function, a matrix, a window size and a shape".into(),
                "write `B = gpucoder.stencilKernel(@f, A, [3 3], 'same')`, with any parameters of `f` after the shape".into(),
            );
            return None;
        };
        let Some(handle) = self.handle_expr(func) else {
            self.error(
                "E0113",
                func.span,
                "the function of `gpucoder.stencilKernel` must be a function handle".into(),
                "write `@name`, `@(w) ...` or a variable holding one".into(),
            );
            return None;
        };
        let handle = handle?;
        let window = self.stencil_window(size)?;
        let shape = self.stencil_shape(shape, window)?;
        let a = match self.value(a)? {
            Val::Array(a) => a,
            Val::Scalar(_) => {
                self.error(
                    "E0105",
                    a.span,
                    "`gpucoder.stencilKernel` of a scalar".into(),
                    "pass the matrix whose windows the function reads".into(),
                );
                return None;
            }
        };
        self.reject_3d(&a, "`gpucoder.stencilKernel`")?;
        let params = self.stencil_params(params)?;
        let source = self.whole_local(&a);
        let source = match shape {
            Shape2::Same => self.zero_padded(source, window, span),
            Shape2::Valid => source,
        };
        self.stencil_loops(&handle, source, window, params, span)
    }

    /// `[M N]`: two positive whole constants.
    fn stencil_window(&mut self, size: &ast::Expr) -> Option<[u64; 2]> {
        let constant = |e: &ast::Expr| match e.kind {
            AstExpr::Number { value, .. } if value >= 1.0 && value.fract() == 0.0 => {
                Some(value as u64)
            }
            _ => None,
        };
        let window = match &size.kind {
            AstExpr::Matrix(rows) => match rows.as_slice() {
                [row] => match row.as_slice() {
                    [m, n] => constant(m).zip(constant(n)).map(|(m, n)| [m, n]),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        };
        if window.is_none() {
            self.error(
                "E0105",
                size.span,
                "the window size of `gpucoder.stencilKernel` must be two positive whole numbers written out".into(),
                "write the size as `[M N]`, for example `[3 3]`".into(),
            );
        }
        window
    }

    /// `'same'` or `'valid'` (any case); `'same'` needs odd extents.
    fn stencil_shape(&mut self, shape: &ast::Expr, [m, n]: [u64; 2]) -> Option<Shape2> {
        let text = super::text::text_literal(shape).map(str::to_ascii_lowercase);
        let parsed = match text.as_deref() {
            Some("same") => Shape2::Same,
            Some("valid") => Shape2::Valid,
            _ => {
                self.error(
                    "E0105",
                    shape.span,
                    "the shape of `gpucoder.stencilKernel` must be `'same'` or `'valid'`".into(),
                    "write `'same'` for an output the size of the input (zeros past its edges) or `'valid'` for the windows inside it".into(),
                );
                return None;
            }
        };
        if parsed == Shape2::Same && (m % 2 == 0 || n % 2 == 0) {
            self.unsupported(
                shape.span,
                &format!("`'same'` with the even window [{m} {n}]"),
                "use odd extents, whose centre is the middle element, or `'valid'`",
            );
            return None;
        }
        Some(parsed)
    }

    /// The parameters after the shape, evaluated once: handles as they are, arrays held whole.
    fn stencil_params(&mut self, params: &[ast::Expr]) -> Option<Vec<Arg<'a>>> {
        params
            .iter()
            .map(|p| match self.handle_expr(p) {
                Some(handle) => Some(Arg::Handle(handle?)),
                None => Some(Arg::Value(match self.value(p)? {
                    Val::Array(a) => {
                        let local = self.whole_local(&a);
                        Val::Array(self.whole(local, p.span))
                    }
                    scalar => scalar,
                })),
            })
            .collect()
    }

    /// A copy of `source` with `(m-1)/2` rows and `(n-1)/2` columns of zeros on each side.
    fn zero_padded(&mut self, source: LocalId, [m, n]: [u64; 2], span: Span) -> LocalId {
        let ty = self.locals[source].ty;
        let padded = self.temp("pad", ty, span);
        let rows = self.size_plus(source, 1, m as f64 - 1.0, span);
        let cols = self.size_plus(source, 2, n as f64 - 1.0, span);
        self.alloc_zeros(padded, rows, cols, None, span);
        let (above, left) = (((m - 1) / 2) as f64, ((n - 1) / 2) as f64);
        let source_cols = self.size_of(source, 2, span);
        self.counted_loop("c", source_cols, span, |me, c| {
            let source_rows = me.size_of(source, 1, span);
            me.counted_loop("r", source_rows, span, |me, r| {
                let whole = me.whole(source, span);
                let value = me.element(&whole, Pos::grid(r, c));
                let row = me.local_plus(r, above, span);
                let col = me.local_plus(c, left, span);
                me.push(
                    StmtKind::Store {
                        array: padded,
                        indices: vec![row, col],
                        value,
                    },
                    span,
                );
            });
        });
        padded
    }

    /// `B(i, j) = FUNC(source(i:i+m-1, j:j+n-1), params...)` for every window inside `source`.
    fn stencil_loops(
        &mut self,
        handle: &Rc<Handle<'a>>,
        source: LocalId,
        [m, n]: [u64; 2],
        params: Vec<Arg<'a>>,
        span: Span,
    ) -> Option<Val> {
        let (i, j) = (
            self.counting_loop_var("i", span),
            self.counting_loop_var("j", span),
        );
        self.open_block();
        self.open_block();
        let subs = vec![self.window_sub(i, m, span), self.window_sub(j, n, span)];
        let window = self.slice(source, subs, span);
        let args = std::iter::once(Arg::Value(Val::Array(window)))
            .chain(params)
            .collect();
        let result = self.invoke(handle, "stencil", args, span);
        let result =
            result.and_then(|r| self.require_scalar(r, "each value of the stencil function"));
        let Some(result) = result else {
            self.close_block();
            self.close_block();
            return None;
        };
        let class = self.exprs[result].ty.class;
        let out = self.temp(
            "stencil",
            Type::array(class, Shape::new(Dim::Var, Dim::Var)),
            span,
        );
        let (row, col) = (self.read_local(i, span), self.read_local(j, span));
        self.push(
            StmtKind::Store {
                array: out,
                indices: vec![row, col],
                value: result,
            },
            span,
        );
        let inner = self.close_block();
        let rows = self.size_plus(source, 1, 1.0 - m as f64, span);
        self.emit_for(i, rows, inner, span);
        let outer = self.close_block();
        let rows = self.size_plus(source, 1, 1.0 - m as f64, span);
        let cols = self.size_plus(source, 2, 1.0 - n as f64, span);
        self.alloc_zeros(out, rows, cols, None, span);
        let cols = self.size_plus(source, 2, 1.0 - n as f64, span);
        self.emit_for(j, cols, outer, span);
        Some(Val::Array(self.whole(out, span)))
    }

    /// `k:k+extent-1`.
    fn window_sub(&mut self, k: LocalId, extent: u64, span: Span) -> Sub {
        Sub::Range {
            start: self.read_local(k, span),
            step: self.constant_expr(1.0, Class::Double, span),
            stop: self.local_plus(k, extent as f64 - 1.0, span),
        }
    }

    /// `size(array, dim) + delta`.
    fn size_plus(&mut self, array: LocalId, dim: u8, delta: f64, span: Span) -> ExprId {
        let size = self.size_of(array, dim, span);
        let delta = self.constant_expr(delta, Class::Double, span);
        self.binary_expr(BinOp::Add, size, delta, Class::Double, span)
    }
}
