//! Rust: items, impls, traits and modules.

use tree_sitter::Node;

use super::{Spec, Visit, bare_type, field_text, function_kind, has_child, name_of};
use crate::code::symbols::{At, Cx, Kind};

pub(super) fn classify<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    let kind = match node.kind() {
        "use_declaration" | "extern_crate_declaration" => return Visit::Import,
        "foreign_mod_item" => return Visit::Symbol(foreign_mod(node)),
        "declaration_list" => return Visit::through(),
        "function_item" | "function_signature_item" => function_kind(at),
        "struct_item" | "union_item" => Kind::Struct,
        "enum_item" => Kind::Enum,
        "trait_item" => Kind::Trait,
        "mod_item" => Kind::Module,
        "const_item" => Kind::Const,
        "static_item" => Kind::Variable,
        "type_item" | "associated_type" => Kind::Type,
        "macro_definition" => Kind::Macro,
        "impl_item" => return Visit::Symbol(impl_item(cx, node)),
        _ => return Visit::Skip,
    };
    let Some(name) = name_of(cx, node) else {
        return Visit::Skip;
    };
    let mut spec = Spec::new(kind, name, node).exported(is_pub(node));
    if matches!(kind, Kind::Trait | Kind::Module) {
        spec = spec.container();
    }
    Visit::Symbol(spec)
}

fn is_pub(node: Node) -> bool {
    has_child(node, "visibility_modifier")
}

/// `impl<T> Display for Wrapper<T>` is named `Display for Wrapper<T>`; its methods are
/// qualified with the bare type (`Wrapper::fmt`).
fn impl_item<'t>(cx: &Cx, node: Node<'t>) -> Spec<'t> {
    let ty = field_text(cx, node, "type").unwrap_or("?");
    let name = match field_text(cx, node, "trait") {
        Some(tr) => format!("{tr} for {ty}"),
        None => ty.to_string(),
    };
    let mut spec = Spec::new(Kind::Impl, name, node).container();
    spec.scope = Some(bare_type(ty));
    spec
}

fn foreign_mod<'t>(node: Node<'t>) -> Spec<'t> {
    let mut spec = Spec::new(Kind::Module, "extern", node);
    spec = spec.with_body(node.child_by_field_name("body"));
    spec
}
