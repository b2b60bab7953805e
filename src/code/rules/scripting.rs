//! PHP, Ruby, Lua and Bash.

use tree_sitter::Node;

use super::Visit;
use crate::code::symbols::{At, Cx};

pub(super) fn php<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
pub(super) fn ruby<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
pub(super) fn lua<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
pub(super) fn bash<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
