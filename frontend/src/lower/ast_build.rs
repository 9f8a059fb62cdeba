//! Builders of the small AST expressions that lowering writes for a construct it desugars
//! (`c{k}` into a slice of hidden names, `isletter(s)` into comparisons, `strsplit` into a
//! call of m2cu's own helper), all located at the construct's span.

use super::*;

/// The name `name` read as a value.
pub(super) fn ident(name: &str, span: Span) -> ast::Expr {
    ast::Expr {
        kind: AstExpr::Ident(name.to_string()),
        span,
    }
}

/// `callee(args...)`.
pub(super) fn call(callee: &str, args: Vec<ast::Expr>, span: Span) -> ast::Expr {
    ast::Expr {
        kind: AstExpr::Call {
            callee: ast::Ident {
                name: callee.to_string(),
                span,
            },
            args,
        },
        span,
    }
}

/// The number `value`.
pub(super) fn number(value: f64, span: Span) -> ast::Expr {
    ast::Expr {
        kind: AstExpr::Number {
            value,
            text: format!("{value}"),
        },
        span,
    }
}

/// `lhs op rhs`.
pub(super) fn binary(op: BinaryOp, lhs: ast::Expr, rhs: ast::Expr, span: Span) -> ast::Expr {
    ast::Expr {
        kind: AstExpr::Binary {
            op,
            lhs: Box::new(lhs),
            rhs: Box::new(rhs),
        },
        span,
    }
}
