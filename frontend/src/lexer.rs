//! PLACEHOLDER (owned by the parser helper).
