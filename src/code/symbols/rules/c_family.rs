//! Go, C and C++.

use tree_sitter::Node;

use super::{Spec, Visit, bare_type, child_of_kind, function_kind, name_of};
use crate::code::symbols::{At, Cx, Kind};

pub(super) fn go<'t>(cx: &Cx, node: Node<'t>, _at: At) -> Visit<'t> {
    match node.kind() {
        "import_declaration" if child_of_kind(node, &["import_spec_list"]).is_some() => {
            Visit::through()
        }
        "import_declaration" | "import_spec" => Visit::Import,
        "import_spec_list" | "field_declaration_list" => Visit::through(),
        // Struct fields and interface methods, listed under their type.
        "field_declaration" => {
            let name = name_of(cx, node).or_else(|| {
                node.child_by_field_name("type")
                    .map(|t| bare_type(cx.text(t)))
            });
            Visit::named(name.map(|n| {
                let exported = go_exported(&n);
                Spec::new(Kind::Property, n, node).exported(exported)
            }))
        }
        "method_elem" | "method_spec" => Visit::named(name_of(cx, node).map(|n| {
            let exported = go_exported(&n);
            Spec::new(Kind::Method, n, node).exported(exported)
        })),
        "function_declaration" => Visit::named(
            name_of(cx, node)
                .map(|n| Spec::new(Kind::Function, n.clone(), node).exported(go_exported(&n))),
        ),
        "method_declaration" => {
            let Some(name) = name_of(cx, node) else {
                return Visit::Skip;
            };
            let exported = go_exported(&name);
            let mut spec = Spec::new(Kind::Method, name, node).exported(exported);
            // Methods are top-level in Go; the receiver type qualifies them (`Server.Start`).
            spec.owner = node
                .child_by_field_name("receiver")
                .and_then(|r| child_of_kind(r, &["parameter_declaration"]))
                .and_then(|p| p.child_by_field_name("type"))
                .map(|t| bare_type(cx.text(t)));
            Visit::Symbol(spec)
        }
        "type_declaration" | "const_declaration" | "var_declaration" => go_specs(cx, node),
        _ => Visit::Skip,
    }
}

fn go_exported(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// `type (…)`, `const (…)`, `var (…)`: one symbol per spec.
fn go_specs<'t>(cx: &Cx, node: Node<'t>) -> Visit<'t> {
    let mut cursor = node.walk();
    let specs: Vec<Node> = node
        .named_children(&mut cursor)
        .filter(|c| c.kind().ends_with("_spec") || c.kind() == "type_alias")
        .collect();
    let single = specs.len() == 1;
    let mut out = Vec::new();
    for s in specs {
        let Some(name) = name_of(cx, s) else {
            continue;
        };
        let kind = match s.kind() {
            "type_spec" | "type_alias" => match s.child_by_field_name("type").map(|t| t.kind()) {
                Some("struct_type") => Kind::Struct,
                Some("interface_type") => Kind::Interface,
                _ => Kind::Type,
            },
            "const_spec" => Kind::Const,
            _ => Kind::Variable,
        };
        let exported = go_exported(&name);
        let span = if single { node } else { s };
        let mut spec = Spec::new(kind, name, span).exported(exported);
        spec.sig_node = span;
        let ty = s.child_by_field_name("type");
        let body = match ty.map(|t| t.kind()) {
            Some("struct_type") => ty.and_then(|t| child_of_kind(t, &["field_declaration_list"])),
            Some("interface_type") => ty,
            _ => None,
        };
        spec.sig_end = None;
        if let Some(b) = body {
            spec.body = Some(b);
            spec.sig_end = Some(if b.kind() == "interface_type" {
                b.start_byte() + "interface".len()
            } else {
                b.start_byte()
            });
        }
        out.push(spec);
    }
    Visit::Many(out)
}

pub(super) fn c_cpp<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    match node.kind() {
        "preproc_include" | "using_declaration" => Visit::Import,
        "preproc_ifdef"
        | "preproc_if"
        | "preproc_else"
        | "preproc_elif"
        | "template_declaration"
        | "declaration_list"
        | "field_declaration_list" => Visit::through(),
        "linkage_specification" => Visit::Symbol(
            Spec::new(Kind::Module, "extern", node).with_body(node.child_by_field_name("body")),
        ),
        "function_definition" => {
            let Some(name) = declarator_name(cx, node) else {
                return Visit::Skip;
            };
            Visit::Symbol(Spec::new(function_kind(at), name, node))
        }
        "declaration" | "field_declaration" => declaration(cx, node, at),
        "struct_specifier" | "union_specifier" | "class_specifier" | "enum_specifier" => {
            record(cx, node, at)
        }
        "type_definition" => {
            let Some(name) = declarator_name(cx, node) else {
                return Visit::Skip;
            };
            let inner = node.child_by_field_name("type");
            let mut spec = Spec::new(Kind::Type, name, node);
            if let Some(t) = inner.filter(|t| t.child_by_field_name("body").is_some()) {
                spec.sig_end = t.child_by_field_name("body").map(|b| b.start_byte());
            }
            Visit::Symbol(spec)
        }
        "alias_declaration" => {
            Visit::named(name_of(cx, node).map(|n| Spec::new(Kind::Type, n, node)))
        }
        "namespace_definition" => {
            let name = name_of(cx, node).unwrap_or_else(|| "(anonymous)".into());
            Visit::Symbol(Spec::new(Kind::Module, name, node).container())
        }
        "preproc_def" => Visit::named(name_of(cx, node).map(|n| Spec::new(Kind::Const, n, node))),
        "preproc_function_def" => {
            Visit::named(name_of(cx, node).map(|n| Spec::new(Kind::Macro, n, node)))
        }
        _ => Visit::Skip,
    }
}

/// `struct Point { … };` (only with a body: a bare `struct Point` is a use, not a definition).
fn record<'t>(cx: &Cx, node: Node<'t>, _at: At) -> Visit<'t> {
    if node.child_by_field_name("body").is_none() {
        return Visit::Skip;
    }
    let Some(name) = name_of(cx, node) else {
        return Visit::Skip;
    };
    let kind = match node.kind() {
        "class_specifier" => Kind::Class,
        "enum_specifier" => Kind::Enum,
        _ => Kind::Struct,
    };
    let mut spec = Spec::new(kind, name, node);
    if kind != Kind::Enum {
        spec = spec.container();
    }
    Visit::Symbol(spec)
}

/// A declaration: a function prototype, a global variable, or a struct defined in passing.
fn declaration<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    if let Some(ty) = node.child_by_field_name("type")
        && matches!(
            ty.kind(),
            "struct_specifier" | "union_specifier" | "class_specifier" | "enum_specifier"
        )
        && ty.child_by_field_name("body").is_some()
        && node.child_by_field_name("declarator").is_none()
    {
        return record(cx, ty, at);
    }
    let Some(decl) = node.child_by_field_name("declarator") else {
        return Visit::Skip;
    };
    let Some(name) = declarator_name(cx, node) else {
        return Visit::Skip;
    };
    let is_function = innermost_function_declarator(decl).is_some();
    let kind = if is_function {
        function_kind(at)
    } else if at.parent.is_some() {
        Kind::Property
    } else if cx.text(node).trim_start().starts_with("static const")
        || cx.text(node).trim_start().starts_with("const")
        || cx.text(node).trim_start().starts_with("constexpr")
    {
        Kind::Const
    } else {
        Kind::Variable
    };
    Visit::Symbol(Spec::new(kind, name, node))
}

fn innermost_function_declarator(mut node: Node) -> Option<Node> {
    loop {
        if node.kind() == "function_declarator" {
            return Some(node);
        }
        node = match node.child_by_field_name("declarator") {
            Some(next) => next,
            None if node.kind() == "reference_declarator" => node.named_child(0)?,
            None => return None,
        };
    }
}

/// The identifier at the bottom of a declarator chain (`*(*f)(int)` → `f`).
fn declarator_name(cx: &Cx, node: Node) -> Option<String> {
    let mut current = node.child_by_field_name("declarator")?;
    loop {
        if let Some(next) = current.child_by_field_name("declarator") {
            current = next;
        } else if current.kind() == "reference_declarator"
            && let Some(next) = current.named_child(0)
        {
            current = next;
        } else {
            break;
        }
    }
    let text = cx.text(current).trim();
    (!text.is_empty()).then(|| text.to_string())
}
