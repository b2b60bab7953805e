//! Which syntax nodes are symbols, per language. Each language module answers one question
//! for a node: is it a symbol (and which), an import, a wrapper to look through, or nothing.

mod c_family;
mod data;
mod functional;
mod jvm;
mod python;
mod rust;
mod scripting;
mod typescript;

use tree_sitter::Node;

use super::{At, Cx, Kind};
use crate::code::Lang;

/// A symbol found at a node.
pub(super) struct Spec<'t> {
    pub kind: Kind,
    pub name: String,
    /// The node whose lines the symbol spans (decorators included where the grammar nests them).
    pub node: Node<'t>,
    /// Where the signature is read from.
    pub sig_node: Node<'t>,
    /// The signature stops here (the body's start); `None`: the first line of `sig_node`.
    pub sig_end: Option<usize>,
    /// The node whose children are nested symbols; `None` for a leaf.
    pub body: Option<Node<'t>>,
    pub exported: bool,
    /// The name children are qualified with, when it differs from `name` (`impl Trait for T`
    /// qualifies its methods with `T`).
    pub scope: Option<String>,
    /// A doc line found inside the node (Python docstrings).
    pub doc: Option<String>,
    /// Qualifies this symbol when it is not nested in its owner (a Go method's receiver type).
    pub owner: Option<String>,
    /// The symbol ends with this later sibling (a Haskell signature and its equations).
    pub end_node: Option<Node<'t>>,
}

impl<'t> Spec<'t> {
    /// A symbol named `name` spanning `node`, with its signature up to the `body` field.
    pub(crate) fn new(kind: Kind, name: impl Into<String>, node: Node<'t>) -> Spec<'t> {
        let body = node.child_by_field_name("body");
        Spec {
            kind,
            name: name.into(),
            node,
            sig_node: node,
            sig_end: body.map(|b| b.start_byte()),
            body: None,
            exported: false,
            scope: None,
            doc: None,
            owner: None,
            end_node: None,
        }
    }

    /// Lists the symbols inside the node's `body` field as children.
    pub(crate) fn container(mut self) -> Spec<'t> {
        self.body = self.node.child_by_field_name("body");
        self
    }

    pub(crate) fn with_body(mut self, body: Option<Node<'t>>) -> Spec<'t> {
        self.body = body;
        if let Some(b) = body {
            self.sig_end = Some(b.start_byte());
        }
        self
    }

    pub(crate) fn exported(mut self, yes: bool) -> Spec<'t> {
        self.exported = yes;
        self
    }
}

// A `Symbol` is built and consumed at once, one at a time: boxing it would only add an
// allocation per symbol.
#[allow(clippy::large_enum_variant)]
pub(super) enum Visit<'t> {
    Skip,
    Import,
    /// Not a symbol itself; look at its children (marking them exported when asked).
    Through {
        exported: bool,
    },
    Symbol(Spec<'t>),
    Many(Vec<Spec<'t>>),
}

impl<'t> Visit<'t> {
    pub(crate) fn through() -> Visit<'t> {
        Visit::Through { exported: false }
    }

    /// `Symbol` for a found name, `Skip` when there is none.
    pub(crate) fn named(spec: Option<Spec<'t>>) -> Visit<'t> {
        spec.map_or(Visit::Skip, Visit::Symbol)
    }
}

pub(super) fn classify<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    if node.is_extra() || node.is_error() {
        return Visit::Skip;
    }
    match cx.lang {
        Lang::Rust => rust::classify(cx, node, at),
        Lang::Python => python::classify(cx, node, at),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => typescript::classify(cx, node, at),
        Lang::Go => c_family::go(cx, node, at),
        Lang::C | Lang::Cpp => c_family::c_cpp(cx, node, at),
        Lang::Java => jvm::java(cx, node, at),
        Lang::Kotlin => jvm::kotlin(cx, node, at),
        Lang::Scala => jvm::scala(cx, node, at),
        Lang::Swift => jvm::swift(cx, node, at),
        Lang::Php => scripting::php(cx, node, at),
        Lang::Ruby => scripting::ruby(cx, node, at),
        Lang::Lua => scripting::lua(cx, node, at),
        Lang::Bash => scripting::bash(cx, node, at),
        Lang::Haskell => functional::haskell(cx, node, at),
        Lang::Zig => functional::zig(cx, node, at),
        Lang::Css | Lang::Scss => data::css(cx, node, at),
        Lang::Sql => data::sql(cx, node, at),
        Lang::Json => data::json(cx, node, at),
        Lang::Yaml => data::yaml(cx, node, at),
        Lang::Toml => data::toml(cx, node, at),
        Lang::Markdown => data::markdown(cx, node, at),
    }
}

/// The text of the node's `name` field.
pub(super) fn field_text<'s>(cx: &Cx<'s>, node: Node, field: &str) -> Option<&'s str> {
    node.child_by_field_name(field)
        .map(|n| cx.text(n))
        .filter(|t| !t.is_empty())
}

pub(super) fn name_of(cx: &Cx, node: Node) -> Option<String> {
    field_text(cx, node, "name").map(str::to_string)
}

/// The first named child of one of these kinds.
pub(super) fn child_of_kind<'t>(node: Node<'t>, kinds: &[&str]) -> Option<Node<'t>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .find(|c| kinds.contains(&c.kind()))
}

/// Whether the node has a direct child (named or not) of this kind, e.g. a keyword.
pub(super) fn has_child(node: Node, kind: &str) -> bool {
    let mut cursor = node.walk();
    node.children(&mut cursor).any(|c| c.kind() == kind)
}

/// `UPPER_CASE` names are constants by convention.
pub(super) fn is_constant_name(name: &str) -> bool {
    name.chars().any(|c| c.is_ascii_uppercase())
        && name
            .chars()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
}

/// A type name without generics or pointer marks (`*Server[T]` → `Server`).
pub(super) fn bare_type(text: &str) -> String {
    let t = text.trim().trim_start_matches(['*', '&']).trim();
    let t = t.strip_prefix("mut ").unwrap_or(t);
    let end = t.find(['<', '[', '(', ' ']).unwrap_or(t.len());
    t[..end].to_string()
}

/// Function inside a class-like parent is a method.
pub(super) fn function_kind(at: At) -> Kind {
    match at.parent {
        Some(
            Kind::Class
            | Kind::Struct
            | Kind::Interface
            | Kind::Trait
            | Kind::Impl
            | Kind::Enum
            | Kind::Type,
        ) => Kind::Method,
        _ => Kind::Function,
    }
}
