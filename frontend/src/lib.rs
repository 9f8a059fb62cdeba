//! m2cu frontend: from MATLAB source text to the typed IR.
//!
//! Phases, each a module: [`lexer`] (text → tokens), [`parser`] (tokens → [`ast`]),
//! [`lower`] (AST → [`ir`], inferring [`types`], after [`struct_arrays`] rewrites struct-array
//! syntax into a variable per field), [`validate`] (IR invariants, checked once).
//! Every phase has a stable text form ([`ast_print`], [`ir_print`]) and reports problems as
//! [`diag::Diagnostic`] values; [`ast_source`] prints an AST back as MATLAB source.

pub mod ast;
pub mod ast_print;
pub mod ast_source;
pub mod bundled;
pub mod catalog;
pub mod diag;
pub mod errors;
pub mod indexed;
pub mod ir;
pub mod ir_print;
pub mod lexer;
pub mod library;
pub mod lower;
pub mod operator;
pub mod parser;
pub mod sources;
pub mod stack;
pub mod struct_arrays;
pub mod types;
pub mod validate;

pub use diag::{Diagnostic, Diagnostics, Span};
