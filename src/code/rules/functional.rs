//! Haskell and Zig.

use tree_sitter::Node;

use super::Visit;
use crate::code::symbols::{At, Cx};

pub(super) fn haskell<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
pub(super) fn zig<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
