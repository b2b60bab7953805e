//! Haskell and Zig.

use tree_sitter::Node;

use super::{Spec, Visit, child_of_kind, is_constant_name, name_of};
use crate::code::symbols::{At, Cx, Kind};

/// The name a Haskell declaration defines (`signature`, `function`, `bind`).
fn hs_name(cx: &Cx, node: Node) -> Option<String> {
    name_of(cx, node)
        .or_else(|| child_of_kind(node, &["variable", "prefix_id"]).map(|n| cx.text(n).to_string()))
}

fn is_equation(kind: &str) -> bool {
    matches!(kind, "function" | "bind")
}

/// A function symbol from `node` through the equations of the same name right after it.
fn with_equations<'t>(cx: &Cx, node: Node<'t>, name: String) -> Spec<'t> {
    let mut end = None;
    let mut next = node.next_named_sibling();
    while let Some(n) = next
        && is_equation(n.kind())
        && hs_name(cx, n).as_deref() == Some(name.as_str())
    {
        end = Some(n);
        next = n.next_named_sibling();
    }
    let mut spec = Spec::new(Kind::Function, name, node);
    spec.end_node = end;
    spec.sig_end = None;
    spec
}

pub(super) fn haskell<'t>(cx: &Cx, node: Node<'t>, _at: At) -> Visit<'t> {
    let kind = match node.kind() {
        "imports" | "declarations" | "class_declarations" => return Visit::through(),
        "import" => return Visit::Import,
        "signature" => {
            let Some(name) = hs_name(cx, node) else {
                return Visit::Skip;
            };
            // The signature and the equations after it are one symbol.
            return Visit::Symbol(with_equations(cx, node, name));
        }
        "function" | "bind" => {
            let Some(name) = hs_name(cx, node) else {
                return Visit::Skip;
            };
            // Equations after a signature or an earlier equation belong to that symbol.
            if let Some(p) = node.prev_named_sibling()
                && (is_equation(p.kind()) || p.kind() == "signature")
                && hs_name(cx, p).as_deref() == Some(name.as_str())
            {
                return Visit::Skip;
            }
            return Visit::Symbol(with_equations(cx, node, name));
        }
        "data_type" | "newtype" => Kind::Struct,
        "type_synonym" | "type_family" => Kind::Type,
        "class" => Kind::Interface,
        "instance" => {
            let text = cx.text(node);
            let head = text
                .trim_start_matches("instance")
                .split(" where")
                .next()
                .unwrap_or("")
                .trim()
                .to_string();
            let mut spec = Spec::new(Kind::Impl, head, node);
            spec.sig_end = None;
            return Visit::Symbol(spec);
        }
        _ => return Visit::Skip,
    };
    let Some(name) = name_of(cx, node) else {
        return Visit::Skip;
    };
    let mut spec = Spec::new(kind, name, node);
    spec.sig_end = None;
    if kind == Kind::Interface {
        spec.body = child_of_kind(node, &["class_declarations"]);
    }
    Visit::Symbol(spec)
}

pub(super) fn zig<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    match node.kind() {
        "function_declaration" => Visit::named(name_of(cx, node).map(|n| {
            let public = cx.text(node).trim_start().starts_with("pub");
            let kind = if at.parent.is_some() {
                Kind::Method
            } else {
                Kind::Function
            };
            Spec::new(kind, n, node).exported(public)
        })),
        "test_declaration" => {
            let name = child_of_kind(node, &["string", "identifier"])
                .map(|s| cx.text(s).trim_matches('"').to_string())
                .unwrap_or_else(|| "test".into());
            let mut spec = Spec::new(Kind::Macro, format!("test {name}"), node);
            spec.sig_end = None;
            Visit::Symbol(spec)
        }
        "variable_declaration" => {
            let Some(name) = child_of_kind(node, &["identifier"]).map(|n| cx.text(n).to_string())
            else {
                return Visit::Skip;
            };
            let text = cx.text(node);
            let public = text.trim_start().starts_with("pub");
            if text.contains("@import(") {
                return Visit::Import;
            }
            let container = child_of_kind(
                node,
                &[
                    "struct_declaration",
                    "enum_declaration",
                    "union_declaration",
                ],
            );
            let kind = match container.map(|c| c.kind()) {
                Some("struct_declaration") => Kind::Struct,
                Some("enum_declaration") => Kind::Enum,
                Some("union_declaration") => Kind::Struct,
                _ if text.split('=').next().is_some_and(|h| h.contains("const"))
                    || is_constant_name(&name) =>
                {
                    Kind::Const
                }
                _ => Kind::Variable,
            };
            let mut spec = Spec::new(kind, name, node).exported(public);
            spec.sig_end = None;
            if let Some(c) = container {
                spec.body = Some(c);
                spec.sig_end = Some(c.start_byte() + cx.text(c).find('{').unwrap_or(0));
            }
            Visit::Symbol(spec)
        }
        "container_field" => Visit::named(
            child_of_kind(node, &["identifier"])
                .map(|n| Spec::new(Kind::Property, cx.text(n), node)),
        ),
        _ => Visit::Skip,
    }
}
