//! PLACEHOLDER (owned by the parser helper).
use crate::ast;
/// The AST as an indented tree, one node per line.
pub fn print_tree(_file: &ast::File) -> String { todo!() }
