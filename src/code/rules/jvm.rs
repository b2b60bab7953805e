//! Java, Kotlin, Scala and Swift.

use tree_sitter::Node;

use super::Visit;
use crate::code::symbols::{At, Cx};

pub(super) fn java<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
pub(super) fn kotlin<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
pub(super) fn scala<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
pub(super) fn swift<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
