//! `fprintf` of a format that MATLAB recycles over its values (`fprintf('%d: %g\n', [k; v])`,
//! `fprintf('%d %d\n', A)`, `fprintf('%d %d\n', 1, 2, 3)`): the elements of all the values, in
//! argument order and column-major order within each, feed the conversions in turn, and the
//! format starts over after its last conversion. Octave 7.3's rules, matched exactly:
//! - each element prints the literal text before its conversion, then the conversion (`%d` of
//!   a non-integer as Octave prints it, by `m2cu_put_number`); the text after the format's last
//!   conversion follows the last conversion's element;
//! - an empty value takes one conversion and prints only the text before it;
//! - when the elements run out inside the format, the text before the next conversion is
//!   printed and output stops; when they run out at its end, nothing more is printed.
//!
//! Invariants:
//! - every value is read before anything is printed, as MATLAB evaluates the arguments first:
//!   a scalar is held in a temporary, an array is a whole local (materialized if it is not);
//! - the position in the format is known at translation time until the first array value;
//!   from there it is a run-time counter (`_fmt<n>`, 0 to conversions - 1), because arrays'
//!   lengths are known only at run time, and each element dispatches on it with an if-chain
//!   that prints that conversion's piece and moves the counter on;
//! - only numeric conversions (`%d %i %u %f %e %g %E %G`) of real, non-char values recycle:
//!   anything else is E0115, whose help keeps MATLAB's text.

use crate::diag::Span;
use crate::ir::{BinOp, ExprId, ExprKind, LocalId, PrintPiece, PrintTo, StmtKind};
use crate::types::{Class, Type};

use super::super::array::{Node, Val};
use super::super::Lowerer;
use super::{Converted, FormatPiece};

/// The conversions that recycle: numeric ones.
const NUMERIC: &str = "diufeEgG";

/// A format recycled over the elements of its values.
pub(in crate::lower) struct Recycled {
    segments: Vec<Segment>,
    /// The literal text after the last conversion.
    trailing: String,
    values: Vec<Val>,
}

/// One conversion of the format with the literal text before it.
struct Segment {
    before: String,
    modifiers: String,
    conversion: char,
}

/// A value read before printing.
enum Source {
    /// A scalar held in a temporary.
    Scalar(LocalId),
    /// A whole array local.
    Array(LocalId),
}

/// Where in the format the next element goes: known at translation time (after scalars
/// only), or held in a run-time counter.
#[derive(Clone, Copy)]
enum Position {
    Known(usize),
    Counter(LocalId),
}

/// Where the element that takes a conversion comes from.
#[derive(Clone, Copy)]
enum Element {
    /// A scalar value held in a temporary.
    Held(LocalId),
    /// Element `k` (a loop variable, 1-based, linear) of an array local.
    At(LocalId, LocalId),
    /// An empty value: the conversion prints nothing.
    Empty,
}

impl Lowerer<'_> {
    /// The format and its lowered values as a recycled format, or E0115 when a conversion or a
    /// value is one that does not recycle here.
    pub(super) fn recycled_format(
        &mut self,
        format: Vec<FormatPiece>,
        converted: Vec<Converted>,
        span: Span,
    ) -> Option<Recycled> {
        let (segments, trailing) = segments(format);
        if let Some(s) = segments.iter().find(|s| !NUMERIC.contains(s.conversion)) {
            let conversion = format!("%{}{}", s.modifiers, s.conversion);
            return self.not_recycled(span, &format!("a format with `{conversion}`"));
        }
        let values = converted
            .into_iter()
            .map(|c| self.recycled_value(c, span))
            .collect::<Option<_>>()?;
        Some(Recycled {
            segments,
            trailing,
            values,
        })
    }

    /// A value of a recycled format: a real, non-char number or array of them.
    fn recycled_value(&mut self, converted: Converted, span: Span) -> Option<Val> {
        let value = match converted {
            Converted::Piece(PrintPiece::Value { arg, .. }) => Val::Scalar(arg),
            Converted::Elements(array, _) => Val::Array(array),
            Converted::Piece(_) => return self.not_recycled(span, "text values"),
        };
        let ty = match &value {
            Val::Scalar(e) => self.exprs[*e].ty,
            Val::Array(a) => Type::array(a.class, a.shape),
        };
        match (ty.class, ty.complex) {
            (Class::Char, _) => self.not_recycled(span, "char values"),
            (_, true) => self.not_recycled(span, "complex values"),
            _ => Some(value),
        }
    }

    fn not_recycled<T>(&mut self, span: Span, what: &str) -> Option<T> {
        self.error(
            "E0115",
            span,
            format!("MATLAB recycles this format over the elements of its values, which m2cu does for numeric conversions (%d %i %u %f %e %g %E %G) of real numbers, not for {what}"),
            "print the text with its own fprintf and the numbers with a format of numeric conversions, e.g. fprintf('%s:', name); fprintf(' %g', v); fprintf('\\n')".into(),
        );
        None
    }

    /// Prints `r` where `to` says: every value read first, then each element takes the
    /// conversion at its position (known, or the run-time counter's), and the text before the
    /// next conversion ends a format left part-way.
    pub(super) fn print_recycled(&mut self, r: Recycled, to: &PrintTo, span: Span) {
        let sources: Vec<Source> = r.values.iter().map(|v| self.held(v, span)).collect();
        let count = r.segments.len();
        let mut position = Position::Known(0);
        for source in sources {
            position = match (source, position) {
                (Source::Scalar(held), Position::Known(p)) => {
                    self.print_segment(&r, to, p, Element::Held(held), span);
                    Position::Known((p + 1) % count)
                }
                (Source::Scalar(held), Position::Counter(at)) => {
                    self.take(&r, to, at, Element::Held(held), span);
                    position
                }
                (Source::Array(array), _) => {
                    let at = self.position_counter(position, span);
                    self.take_elements(&r, to, at, array, span);
                    Position::Counter(at)
                }
            };
        }
        match position {
            Position::Known(0) => {}
            Position::Known(p) => self.print_pieces(text_piece(&r.segments[p].before), to, span),
            Position::Counter(_) if count == 1 => {}
            Position::Counter(at) => {
                let ended_partway = self.local_compared(at, 0.0, BinOp::Ne, span);
                self.emit_if(ended_partway, span, |me| {
                    me.emit_case_chain(at, 1..count, span, &mut |me, j| {
                        me.print_pieces(text_piece(&r.segments[j].before), to, span)
                    });
                });
            }
        }
    }

    /// The run-time counter of `position`: a new one set to it when it is known.
    fn position_counter(&mut self, position: Position, span: Span) -> LocalId {
        match position {
            Position::Counter(at) => at,
            Position::Known(p) => {
                let at = self.temp("fmt", Type::scalar(Class::Double), span);
                self.locals[at].integral = true;
                self.set_position(at, p, span);
                at
            }
        }
    }

    /// `v` read now: a scalar into a temporary, an array as a whole local.
    fn held(&mut self, v: &Val, span: Span) -> Source {
        match v {
            Val::Scalar(e) => Source::Scalar(self.held_scalar("arg", *e, span)),
            Val::Array(a) => Source::Array(match a.node {
                Node::Whole(local) => local,
                _ => self.materialize(a),
            }),
        }
    }

    /// Each element of `array` in turn, or one empty conversion when it has none.
    fn take_elements(
        &mut self,
        r: &Recycled,
        to: &PrintTo,
        at: LocalId,
        array: LocalId,
        span: Span,
    ) {
        let n = self.numel_of(array, span);
        self.counted_loop("k", n, span, |me, k| {
            me.take(r, to, at, Element::At(array, k), span)
        });
        if self.locals[array].ty.shape.known_nonempty() {
            return;
        }
        let n = self.numel_of(array, span);
        let zero = self.constant_expr(0.0, Class::Double, span);
        let empty = self.binary_expr(BinOp::Eq, n, zero, Class::Logical, span);
        self.emit_if(empty, span, |me| me.take(r, to, at, Element::Empty, span));
    }

    /// `element` takes the conversion at the run-time position `at`, which moves on (to 0
    /// after the last).
    fn take(&mut self, r: &Recycled, to: &PrintTo, at: LocalId, element: Element, span: Span) {
        let count = r.segments.len();
        self.emit_case_chain(at, 0..count, span, &mut |me, j| {
            me.print_segment(r, to, j, element, span);
            me.set_position(at, (j + 1) % count, span);
        });
    }

    /// `element` printed by conversion `j`: the text before it, the conversion, and after the
    /// last conversion the trailing text.
    fn print_segment(
        &mut self,
        r: &Recycled,
        to: &PrintTo,
        j: usize,
        element: Element,
        span: Span,
    ) {
        let segment = &r.segments[j];
        let mut pieces = text_piece(&segment.before);
        if let Some(arg) = self.element_expr(element, span) {
            pieces.push(PrintPiece::Value {
                modifiers: segment.modifiers.clone(),
                conversion: segment.conversion,
                arg,
            });
        }
        if j + 1 == r.segments.len() {
            pieces.extend(text_piece(&r.trailing));
        }
        self.print_pieces(pieces, to, span);
    }

    /// The value of `element`, a fresh expression; `None` for an empty value.
    fn element_expr(&mut self, element: Element, span: Span) -> Option<ExprId> {
        match element {
            Element::Held(local) => Some(self.read_local(local, span)),
            Element::At(array, k) => {
                let index = self.new_expr(ExprKind::Local(k), Type::scalar(Class::Double), span);
                let ty = Type::scalar(self.locals[array].ty.class);
                Some(self.new_expr(ExprKind::Index(array, vec![index]), ty, span))
            }
            Element::Empty => None,
        }
    }

    fn set_position(&mut self, at: LocalId, position: usize, span: Span) {
        let value = self.constant_expr(position as f64, Class::Double, span);
        self.push(StmtKind::Assign { target: at, value }, span);
    }

    /// Prints `pieces` where `to` says, unless there are none.
    fn print_pieces(&mut self, pieces: Vec<PrintPiece>, to: &PrintTo, span: Span) {
        if !pieces.is_empty() {
            self.push_print(pieces, to.clone(), span);
        }
    }
}

/// The format as conversions with the text before each, and the text after the last.
fn segments(format: Vec<FormatPiece>) -> (Vec<Segment>, String) {
    let mut segments = Vec::new();
    let mut text = String::new();
    for piece in format {
        match piece {
            FormatPiece::Text(t) => text.push_str(&t),
            FormatPiece::Conversion(modifiers, conversion) => segments.push(Segment {
                before: std::mem::take(&mut text),
                modifiers,
                conversion,
            }),
        }
    }
    (segments, text)
}

/// `text` as a print piece, none when it is empty.
fn text_piece(text: &str) -> Vec<PrintPiece> {
    if text.is_empty() {
        Vec::new()
    } else {
        vec![PrintPiece::Text(text.to_string())]
    }
}
