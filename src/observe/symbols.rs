//! Which functions, types and classes an edit touched, for edit titles. The finding is done by
//! the code-intelligence module (tree-sitter, `src/code/`); this is the observer's one door to
//! it, so the rules never depend on how symbols are found.

use std::path::Path;

/// Symbols whose text differs between `old` and `new` (both whole files), in file order.
pub fn changed(path: &str, old: &str, new: &str) -> Vec<String> {
    crate::code::changed_symbols(Path::new(path), old, new)
}

/// Symbols a whole file defines, in file order.
pub fn defined(path: &str, source: &str) -> Vec<String> {
    crate::code::defined_symbols(Path::new(path), source)
}
