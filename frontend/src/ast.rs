//! The abstract syntax tree of a MATLAB function file.
//!
//! The AST mirrors the source: every node carries the [`Span`] it came from, names are not yet
//! resolved (`f(x)` is an [`ExprKind::Call`] whether `f` is a function or an array), and nothing
//! is typed. Lowering (`crate::lower`) turns it into the typed IR.

use crate::diag::Span;

/// A whole `.m` file: one or more functions.
#[derive(Clone, Debug, PartialEq)]
pub struct File {
    pub functions: Vec<Function>,
    /// `true` when the file contains the `%#codegen` directive.
    pub codegen_directive: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

/// `function [outputs] = name(params)` with an optional `arguments` block.
#[derive(Clone, Debug, PartialEq)]
pub struct Function {
    pub name: Ident,
    pub params: Vec<Ident>,
    pub outputs: Vec<Ident>,
    pub arguments: Vec<ArgDecl>,
    pub body: Vec<Stmt>,
    /// Functions nested inside this one (`function ... end` before this function's `end`).
    pub nested: Vec<Function>,
    /// The span of the `function ... ` header line.
    pub span: Span,
}

/// One line of an `arguments ... end` block: `v (1,:) double`.
#[derive(Clone, Debug, PartialEq)]
pub struct ArgDecl {
    pub name: Ident,
    /// `None` when no size was written.
    pub dims: Option<Vec<DimSpec>>,
    /// `None` when no class was written.
    pub class: Option<Ident>,
    pub span: Span,
}

/// One entry of an argument size: a fixed extent or `:` (any).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DimSpec {
    Fixed(u64),
    Any,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
    /// An assignment or expression statement not ended by `;`, whose value MATLAB displays
    /// (`x = 1` shows `x = 1`); `false` for every other statement.
    pub shown: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// An expression on its own, such as a call: `disp(x)`.
    Expr(Expr),
    /// `x = e`, `A(i) = e` or `[a, b] = f(x)`; `targets` has one entry for the first two forms.
    Assign {
        targets: Vec<LValue>,
        value: Expr,
    },
    For {
        var: Ident,
        range: Expr,
        body: Vec<Stmt>,
    },
    While {
        cond: Expr,
        body: Vec<Stmt>,
    },
    /// `if c1 ... elseif c2 ... else ... end`: one clause per `if`/`elseif`.
    If {
        clauses: Vec<(Expr, Vec<Stmt>)>,
        else_body: Option<Vec<Stmt>>,
    },
    /// `switch subject, case ..., otherwise ..., end`.
    Switch {
        subject: Expr,
        cases: Vec<SwitchCase>,
        otherwise: Option<Vec<Stmt>>,
    },
    Break,
    Continue,
    Return,
    /// `global a b` or `persistent n`: variables that outlive one call.
    Declare {
        kind: Declared,
        names: Vec<Ident>,
    },
}

/// What a declaration makes its variables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Declared {
    /// `global`: one variable shared by every function that declares it.
    Global,
    /// `persistent`: one variable of the function, kept from call to call, `[]` at first.
    Persistent,
}

impl Declared {
    /// The keyword.
    pub fn word(self) -> &'static str {
        match self {
            Declared::Global => "global",
            Declared::Persistent => "persistent",
        }
    }
}

/// One `case` of a `switch`.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchCase {
    pub labels: CaseLabels,
    pub body: Vec<Stmt>,
    /// The span of the `case ...` line.
    pub span: Span,
}

/// What a `case` matches: one value, or any value of a cell list `case {1, 2}`.
#[derive(Clone, Debug, PartialEq)]
pub enum CaseLabels {
    Single(Expr),
    Cell(Vec<Expr>),
}

#[derive(Clone, Debug, PartialEq)]
pub enum LValue {
    Var(Ident),
    Index {
        base: Ident,
        args: Vec<Expr>,
        span: Span,
    },
    /// `c{k} = v`: the content of a cell.
    Content {
        base: Ident,
        args: Vec<Expr>,
        span: Span,
    },
    /// `s(k).name = v`: a field of an element of a struct array.
    ElementField {
        base: Ident,
        args: Vec<Expr>,
        field: Ident,
        span: Span,
    },
    /// `~` in `[~, k] = max(v)`.
    Ignore(Span),
}

impl LValue {
    /// The variable this target assigns (`x` of `x`, `x(i)` and `x{k}`); none for `~`.
    pub fn assigned_name(&self) -> Option<&Ident> {
        match self {
            LValue::Var(v)
            | LValue::Index { base: v, .. }
            | LValue::Content { base: v, .. }
            | LValue::ElementField { base: v, .. } => Some(v),
            LValue::Ignore(_) => None,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A numeric literal; `text` is the source spelling.
    Number {
        value: f64,
        text: String,
    },
    /// An imaginary literal `2i`, `3.5e2j`: `value` times the imaginary unit; `text` is the
    /// source spelling, suffix included.
    Imaginary {
        value: f64,
        text: String,
    },
    /// A char literal `'double'` (also Octave's `"double"`).
    Str(String),
    /// MATLAB's string scalar `"double"`.
    StringScalar(String),
    Ident(String),
    Unary {
        op: UnaryOp,
        operand: Box<Expr>,
    },
    Binary {
        op: BinaryOp,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    /// `start:stop` or `start:step:stop`.
    Range {
        start: Box<Expr>,
        step: Option<Box<Expr>>,
        stop: Box<Expr>,
    },
    /// `name(args)`: an index or a function call, resolved during lowering. A dotted name
    /// (`gpucoder.reduce`, `s.field`) is one [`Ident`] whose name contains the dots.
    Call {
        callee: Ident,
        args: Vec<Expr>,
    },
    /// A bare `:` used as an index.
    Colon,
    /// `end` inside an index.
    End,
    /// `[a, b; c, d]`: rows of elements.
    Matrix(Vec<Vec<Expr>>),
    /// `(e)`: kept so that printing the AST back gives the same tree.
    Paren(Box<Expr>),
    /// `e'` and `e.'`.
    Postfix {
        op: PostfixOp,
        operand: Box<Expr>,
    },
    /// `@name`: a handle to a named function.
    FuncHandle(Ident),
    /// `{@f, @g}`: a cell array of function handles, the operator list of `gpucoder.reduce`:
    /// `@name`, `@(a, b) ...`, or a name (a variable holding a handle) beside one of those (no
    /// other cell array is parsed).
    HandleCell(Vec<Expr>),
    /// `{'M', 'CM', 'D'}` or `{'a'; 'b'}`: a cell of text literals, one row (or one column
    /// when `column`) (no other cell array is parsed).
    TextCell {
        items: Vec<Expr>,
        column: bool,
    },
    /// `c{k}`: the content of a cell.
    CellIndex {
        callee: Ident,
        args: Vec<Expr>,
    },
    /// `s(k).name`: a field of an element of a struct array (`field` may be dotted, `a.b`).
    /// [`crate::struct_arrays`] rewrites those it can into variables per field.
    ElementField {
        callee: Ident,
        args: Vec<Expr>,
        field: Ident,
    },
    /// `@(a, b) a + b`: an anonymous function.
    AnonFn {
        params: Vec<Ident>,
        body: Box<Expr>,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryOp {
    Neg,
    Plus,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PostfixOp {
    /// `'`
    CTranspose,
    /// `.'`
    Transpose,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinaryOp {
    Add,
    Sub,
    /// `*` (matrix multiply; scalar multiply for scalars)
    Mul,
    /// `/`
    Div,
    /// `\`
    LeftDiv,
    /// `^`
    Pow,
    /// `.*`
    ElemMul,
    /// `./`
    ElemDiv,
    /// `.\`
    ElemLeftDiv,
    /// `.^`
    ElemPow,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    /// `&` (elementwise)
    And,
    /// `|` (elementwise)
    Or,
    /// `&&`
    AndAnd,
    /// `||`
    OrOr,
}

impl BinaryOp {
    /// The MATLAB spelling of the operator.
    pub fn symbol(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            LeftDiv => "\\",
            Pow => "^",
            ElemMul => ".*",
            ElemDiv => "./",
            ElemLeftDiv => ".\\",
            ElemPow => ".^",
            Eq => "==",
            Ne => "~=",
            Lt => "<",
            Le => "<=",
            Gt => ">",
            Ge => ">=",
            And => "&",
            Or => "|",
            AndAnd => "&&",
            OrOr => "||",
        }
    }
}

impl UnaryOp {
    pub fn symbol(self) -> &'static str {
        match self {
            UnaryOp::Neg => "-",
            UnaryOp::Plus => "+",
            UnaryOp::Not => "~",
        }
    }
}
