//! Stylesheets, SQL, and data/document formats (JSON, YAML, TOML, markdown).

use tree_sitter::Node;

use super::Visit;
use crate::code::symbols::{At, Cx};

pub(super) fn css<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
pub(super) fn sql<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
pub(super) fn json<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
pub(super) fn yaml<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
pub(super) fn toml<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
pub(super) fn markdown<'t>(_cx: &Cx, _node: Node<'t>, _at: At) -> Visit<'t> {
    Visit::Skip
}
