//! `tic` and `toc`, which time the program with the host's wall clock: each read of the clock
//! is a 1-by-1 array filled with `Fill::Clock` on the host (a loop that reads it stays
//! sequential, `S14`).
//!
//! Invariants:
//! - `tic` alone sets the program's one timer (`Lowerer::timer`, shared by every function, as
//!   MATLAB's is); `id = tic` leaves it and gives the time in microseconds since 1970, a
//!   uint64, as MATLAB's does;
//! - `toc` is the seconds since the timer, `toc(id)` since `id`; as a statement it prints
//!   Octave's `Elapsed time is <%g> seconds.`;
//! - `toc` lowered before any `tic` of the program is E0102 (Octave: "toc: function called
//!   before timer initialization"); one on a path that skipped the `tic` stops with the
//!   timer undefined.

use super::*;
use crate::ir::{Fill, PrintPiece, PrintTo};

/// A reading of the clock: a 1-by-1 double array (a row of run-time length, so that it is an
/// array and not a scalar, which only host code fills).
fn clock_type() -> Type {
    Type::array(Class::Double, Shape::new(Dim::Known(1), Dim::Var))
}

/// The functions this module translates.
pub(super) const TIMER_FUNCTIONS: [&str; 2] = ["tic", "toc"];

impl Lowerer<'_> {
    /// `tic` or `toc` as a statement: `tic` starts the timer, `toc` prints the seconds since.
    pub(super) fn timer_statement(&mut self, name: &str, args: &[ast::Expr], span: Span) {
        if name == "tic" {
            if !args.is_empty() {
                self.timer_arguments(name, span);
                return;
            }
            let timer = match self.timer {
                Some(timer) => timer,
                None => {
                    let timer = self.temp("tic", clock_type(), span);
                    self.timer = Some(timer);
                    timer
                }
            };
            self.read_clock_into(timer, span);
            return;
        }
        let Some(elapsed) = self.toc_value(args, span) else {
            return;
        };
        let pieces = vec![
            PrintPiece::Text("Elapsed time is ".into()),
            PrintPiece::Value {
                modifiers: String::new(),
                conversion: 'g',
                arg: elapsed,
            },
            PrintPiece::Text(" seconds.\n".into()),
        ];
        self.push(
            StmtKind::Print {
                pieces,
                to: PrintTo::Stdout,
            },
            span,
        );
    }

    /// `tic` or `toc` as a value.
    pub(super) fn timer_value(
        &mut self,
        name: &str,
        args: &[ast::Expr],
        span: Span,
    ) -> Option<ExprId> {
        if name == "toc" {
            return self.toc_value(args, span);
        }
        if !args.is_empty() {
            self.timer_arguments(name, span);
            return None;
        }
        let now = self.clock_now(span);
        let million = self.constant_expr(1e6, Class::Double, span);
        let micros = self.binary_expr(BinOp::Mul, now, million, Class::Double, span);
        Some(self.new_expr(ExprKind::Convert(micros), Type::scalar(Class::Uint64), span))
    }

    /// `toc` or `toc(id)`: the seconds since the timer or since `id`.
    fn toc_value(&mut self, args: &[ast::Expr], span: Span) -> Option<ExprId> {
        let start = match args {
            [] => {
                let Some(timer) = self.timer else {
                    self.error(
                        "E0102",
                        span,
                        "`toc` before any `tic` (Octave: toc: function called before timer initialization)".into(),
                        "call `tic` first, where the timing starts".into(),
                    );
                    return None;
                };
                let one = self.constant_expr(1.0, Class::Double, span);
                self.new_expr(
                    ExprKind::Index(timer, vec![one]),
                    Type::scalar(Class::Double),
                    span,
                )
            }
            [id] => {
                let id = self.scalar_expr(id, "the timer of `toc(id)`")?;
                let seconds =
                    self.new_expr(ExprKind::Convert(id), Type::scalar(Class::Double), span);
                let million = self.constant_expr(1e6, Class::Double, span);
                self.binary_expr(BinOp::Div, seconds, million, Class::Double, span)
            }
            _ => {
                self.timer_arguments("toc", span);
                return None;
            }
        };
        let now = self.clock_now(span);
        Some(self.binary_expr(BinOp::Sub, now, start, Class::Double, span))
    }

    /// The clock read now, a scalar.
    fn clock_now(&mut self, span: Span) -> ExprId {
        let now = self.temp("clock", clock_type(), span);
        self.read_clock_into(now, span);
        let one = self.constant_expr(1.0, Class::Double, span);
        self.new_expr(
            ExprKind::Index(now, vec![one]),
            Type::scalar(Class::Double),
            span,
        )
    }

    /// `target` (1-by-1) made anew with the clock's reading.
    fn read_clock_into(&mut self, target: LocalId, span: Span) {
        let rows = self.constant_expr(1.0, Class::Double, span);
        let cols = self.constant_expr(1.0, Class::Double, span);
        self.push(
            StmtKind::Alloc {
                target,
                fill: Fill::Clock,
                rows,
                cols,
                pages: None,
            },
            span,
        );
    }

    fn timer_arguments(&mut self, name: &str, span: Span) {
        self.error(
            "E0105",
            span,
            format!("`{name}` with these arguments is not supported"),
            "write `tic`, `id = tic`, `toc`, `t = toc` or `toc(id)`".into(),
        );
    }
}
