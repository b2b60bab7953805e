//! PHP, Ruby, Lua and Bash.

use tree_sitter::Node;

use super::{Spec, Visit, child_of_kind, function_kind, has_child, is_constant_name, name_of};
use crate::code::symbols::{At, Cx, Kind};

pub(super) fn php<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    let kind = match node.kind() {
        "namespace_use_declaration"
        | "require_once_expression"
        | "require_expression"
        | "include_expression"
        | "include_once_expression" => return Visit::Import,
        "expression_statement" => {
            let first = node.named_child(0).map(|c| c.kind()).unwrap_or("");
            return if first.starts_with("require") || first.starts_with("include") {
                Visit::Import
            } else {
                Visit::Skip
            };
        }
        "declaration_list" | "enum_declaration_list" | "compound_statement" => {
            return Visit::through();
        }
        "namespace_definition" => {
            let name = name_of(cx, node).unwrap_or_else(|| "(global)".into());
            let body = node.child_by_field_name("body");
            if body.is_none() {
                return Visit::Skip; // `namespace App;` applies to the whole file
            }
            return Visit::Symbol(Spec::new(Kind::Module, name, node).with_body(body));
        }
        "class_declaration" => Kind::Class,
        "interface_declaration" => Kind::Interface,
        "trait_declaration" => Kind::Trait,
        "enum_declaration" => Kind::Enum,
        "function_definition" => Kind::Function,
        "method_declaration" => function_kind(at),
        "property_declaration" => {
            let public = has_child(node, "visibility_modifier")
                && cx.text(node).trim_start().starts_with("public");
            let mut cursor = node.walk();
            let specs = node
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "property_element")
                .filter_map(|p| {
                    child_of_kind(p, &["variable_name"]).map(|v| cx.text(v).to_string())
                })
                .map(|n| Spec::new(Kind::Property, n, node).exported(public))
                .collect();
            return Visit::Many(specs);
        }
        "const_declaration" => {
            let mut cursor = node.walk();
            let specs = node
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "const_element")
                .filter_map(|c| child_of_kind(c, &["name"]).map(|n| cx.text(n).to_string()))
                .map(|n| Spec::new(Kind::Const, n, node))
                .collect();
            return Visit::Many(specs);
        }
        _ => return Visit::Skip,
    };
    let Some(name) = name_of(cx, node) else {
        return Visit::Skip;
    };
    let text = cx.text(node);
    let private =
        text.trim_start().starts_with("private") || text.trim_start().starts_with("protected");
    let mut spec = Spec::new(kind, name, node).exported(!private);
    if matches!(
        kind,
        Kind::Class | Kind::Interface | Kind::Trait | Kind::Enum
    ) {
        spec = spec.container();
    }
    Visit::Symbol(spec)
}

pub(super) fn ruby<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    match node.kind() {
        "call" => {
            let method = node.child_by_field_name("method").map(|m| cx.text(m));
            if matches!(method, Some("require" | "require_relative" | "load"))
                && node.child_by_field_name("receiver").is_none()
            {
                Visit::Import
            } else {
                Visit::Skip
            }
        }
        "body_statement" | "singleton_class" => Visit::through(),
        "module" => {
            Visit::named(name_of(cx, node).map(|n| Spec::new(Kind::Module, n, node).container()))
        }
        "class" => {
            Visit::named(name_of(cx, node).map(|n| Spec::new(Kind::Class, n, node).container()))
        }
        "method" => Visit::named(name_of(cx, node).map(|n| Spec::new(function_kind(at), n, node))),
        "singleton_method" => Visit::named(name_of(cx, node).map(|n| {
            let object = node
                .child_by_field_name("object")
                .map_or("self", |o| cx.text(o));
            Spec::new(Kind::Method, format!("{object}.{n}"), node)
        })),
        "assignment" => {
            let Some(left) = node
                .child_by_field_name("left")
                .filter(|l| l.kind() == "constant")
            else {
                return Visit::Skip;
            };
            let struct_like = node
                .child_by_field_name("right")
                .is_some_and(|r| cx.text(r).starts_with("Struct.new"));
            let kind = if struct_like {
                Kind::Struct
            } else {
                Kind::Const
            };
            let mut spec = Spec::new(kind, cx.text(left), node);
            spec.sig_end = None;
            Visit::Symbol(spec)
        }
        _ => Visit::Skip,
    }
}

pub(super) fn lua<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    if at.parent.is_some() {
        return Visit::Skip;
    }
    match node.kind() {
        "function_declaration" => Visit::named(name_of(cx, node).map(|n| {
            let kind = if n.contains(':') {
                Kind::Method
            } else {
                Kind::Function
            };
            Spec::new(kind, n, node)
        })),
        "variable_declaration" | "assignment_statement" => {
            let assign = if node.kind() == "assignment_statement" {
                node
            } else {
                match child_of_kind(node, &["assignment_statement"]) {
                    Some(a) => a,
                    None => return Visit::Skip,
                }
            };
            let name = child_of_kind(assign, &["variable_list"])
                .and_then(|l| l.named_child(0))
                .map(|n| cx.text(n).to_string());
            let value = child_of_kind(assign, &["expression_list"]).and_then(|l| l.named_child(0));
            let Some(name) = name else {
                return Visit::Skip;
            };
            let value_kind = value.map(|v| v.kind()).unwrap_or("");
            if value_kind == "function_call"
                && value
                    .and_then(|v| v.child_by_field_name("name"))
                    .is_some_and(|f| cx.text(f) == "require")
            {
                return Visit::Import;
            }
            let last = name.rsplit(['.', ':']).next().unwrap_or(&name);
            let kind = match value_kind {
                "function_definition" => Kind::Function,
                "table_constructor" if last.chars().next().is_some_and(char::is_uppercase) => {
                    Kind::Class
                }
                _ if is_constant_name(last) => Kind::Const,
                _ => Kind::Variable,
            };
            let mut spec = Spec::new(kind, name, node);
            spec.sig_end = value
                .filter(|v| v.kind() == "function_definition")
                .and_then(|v| v.child_by_field_name("body"))
                .map(|b| b.start_byte());
            Visit::Symbol(spec)
        }
        _ => Visit::Skip,
    }
}

pub(super) fn bash<'t>(cx: &Cx, node: Node<'t>, _at: At) -> Visit<'t> {
    let top = node.parent().is_some_and(|p| p.kind() == "program");
    match node.kind() {
        "function_definition" => {
            Visit::named(name_of(cx, node).map(|n| Spec::new(Kind::Function, n, node)))
        }
        "command" if top => {
            let name = node.child_by_field_name("name").map(|n| cx.text(n));
            if matches!(name, Some("source" | ".")) {
                Visit::Import
            } else {
                Visit::Skip
            }
        }
        "variable_assignment" if top => {
            Visit::named(name_of(cx, node).map(|n| Spec::new(Kind::Variable, n, node)))
        }
        "declaration_command" if top => {
            let Some(assign) = child_of_kind(node, &["variable_assignment"]) else {
                return Visit::Skip;
            };
            let kind = if cx.text(node).starts_with("readonly") {
                Kind::Const
            } else {
                Kind::Variable
            };
            let exported = cx.text(node).starts_with("export");
            Visit::named(name_of(cx, assign).map(|n| Spec::new(kind, n, node).exported(exported)))
        }
        _ => Visit::Skip,
    }
}
