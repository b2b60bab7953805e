//! Java, Kotlin, Scala and Swift.

use tree_sitter::Node;

use super::{Spec, Visit, child_of_kind, function_kind, has_child, name_of};
use crate::code::symbols::{At, Cx, Kind};

/// Whether a declaration's modifiers say `public` (or, in Kotlin/Scala/Swift, nothing
/// restricts it: `private`/`internal`/`fileprivate` absent).
fn modifiers_text<'s>(cx: &Cx<'s>, node: Node) -> &'s str {
    child_of_kind(node, &["modifiers"]).map_or("", |m| cx.text(m))
}

pub(super) fn java<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    let kind = match node.kind() {
        "import_declaration" => return Visit::Import,
        "class_body" | "interface_body" | "enum_body" | "enum_body_declarations" => {
            return Visit::through();
        }
        "class_declaration" | "record_declaration" => Kind::Class,
        "interface_declaration" | "annotation_type_declaration" => Kind::Interface,
        "enum_declaration" => Kind::Enum,
        "method_declaration" | "constructor_declaration" | "compact_constructor_declaration" => {
            function_kind(at)
        }
        "field_declaration" | "constant_declaration" => return fields(cx, node),
        _ => return Visit::Skip,
    };
    let Some(name) = name_of(cx, node) else {
        return Visit::Skip;
    };
    let public = modifiers_text(cx, node)
        .split_whitespace()
        .any(|w| w == "public");
    let mut spec = Spec::new(kind, name, node).exported(public);
    if matches!(kind, Kind::Class | Kind::Interface | Kind::Enum) {
        spec = spec.container();
    }
    Visit::Symbol(spec)
}

/// `private static final int A = 1, B = 2;`: one symbol per declarator.
fn fields<'t>(cx: &Cx, node: Node<'t>) -> Visit<'t> {
    let mods = modifiers_text(cx, node);
    let constant =
        mods.contains("static") && mods.contains("final") || node.kind() == "constant_declaration";
    let public = mods.split_whitespace().any(|w| w == "public");
    let mut cursor = node.walk();
    let specs = node
        .children_by_field_name("declarator", &mut cursor)
        .filter_map(|d| name_of(cx, d))
        .map(|n| {
            let kind = if constant {
                Kind::Const
            } else {
                Kind::Property
            };
            Spec::new(kind, n, node).exported(public)
        })
        .collect();
    Visit::Many(specs)
}

pub(super) fn kotlin<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    let kind = match node.kind() {
        "import" | "import_header" | "import_list" if !has_child(node, "import_header") => {
            return Visit::Import;
        }
        "import_list" | "class_body" | "enum_class_body" => return Visit::through(),
        "class_declaration" => {
            let text = cx.text(node);
            let head = text.split('{').next().unwrap_or("");
            if head.split_whitespace().any(|w| w == "interface") {
                Kind::Interface
            } else if head.split_whitespace().any(|w| w == "enum") {
                Kind::Enum
            } else {
                Kind::Class
            }
        }
        "object_declaration" | "companion_object" => Kind::Module,
        "function_declaration" => function_kind(at),
        "property_declaration" => {
            let name = child_of_kind(node, &["variable_declaration"])
                .and_then(|v| child_of_kind(v, &["identifier", "simple_identifier"]))
                .map(|n| cx.text(n).to_string());
            let constant = modifiers_text(cx, node).contains("const")
                || at.parent.is_none()
                    && cx
                        .text(node)
                        .split('=')
                        .next()
                        .is_some_and(|head| head.split_whitespace().any(|w| w == "val"));
            let kind = if constant {
                Kind::Const
            } else {
                Kind::Property
            };
            return Visit::named(name.map(|n| kotlin_spec(cx, kind, n, node)));
        }
        "type_alias" => Kind::Type,
        _ => return Visit::Skip,
    };
    let name = name_of(cx, node)
        .or_else(|| {
            child_of_kind(
                node,
                &["identifier", "type_identifier", "simple_identifier"],
            )
            .map(|n| cx.text(n).to_string())
        })
        .or_else(|| (kind == Kind::Module).then(|| "companion object".to_string()));
    let Some(name) = name else {
        return Visit::Skip;
    };
    let mut spec = kotlin_spec(cx, kind, name, node);
    if matches!(
        kind,
        Kind::Class | Kind::Interface | Kind::Enum | Kind::Module
    ) {
        spec = spec.with_body(child_of_kind(node, &["class_body", "enum_class_body"]));
    }
    Visit::Symbol(spec)
}

fn kotlin_spec<'t>(cx: &Cx, kind: Kind, name: String, node: Node<'t>) -> Spec<'t> {
    let mods = modifiers_text(cx, node);
    let public = !["private", "internal", "protected"]
        .iter()
        .any(|m| mods.split_whitespace().any(|w| w == *m));
    let mut spec = Spec::new(kind, name, node).exported(public);
    if spec.sig_end.is_none() {
        spec.sig_end = child_of_kind(node, &["function_body", "class_body", "enum_class_body"])
            .map(|b| b.start_byte());
    }
    spec
}

pub(super) fn scala<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    let kind = match node.kind() {
        "import_declaration" => return Visit::Import,
        "template_body" | "package_clause" => return Visit::through(),
        "class_definition" => Kind::Class,
        "object_definition" => Kind::Module,
        "trait_definition" => Kind::Trait,
        "enum_definition" => Kind::Enum,
        "function_definition" | "function_declaration" => function_kind(at),
        "type_definition" => Kind::Type,
        "val_definition" | "val_declaration" => Kind::Const,
        "var_definition" | "var_declaration" => Kind::Variable,
        _ => return Visit::Skip,
    };
    let name = name_of(cx, node).or_else(|| {
        node.child_by_field_name("pattern")
            .map(|p| cx.text(p).to_string())
    });
    let Some(name) = name else {
        return Visit::Skip;
    };
    let mods = modifiers_text(cx, node);
    let public = !mods.contains("private") && !mods.contains("protected");
    let mut spec = Spec::new(kind, name, node).exported(public);
    if matches!(kind, Kind::Class | Kind::Module | Kind::Trait | Kind::Enum) {
        spec = spec.container();
    }
    if matches!(kind, Kind::Const | Kind::Variable) {
        spec.sig_end = None;
    }
    Visit::Symbol(spec)
}

pub(super) fn swift<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    let kind = match node.kind() {
        "import_declaration" => return Visit::Import,
        "class_body" | "protocol_body" | "enum_class_body" => return Visit::through(),
        "class_declaration" => match node
            .child_by_field_name("declaration_kind")
            .map(|k| cx.text(k))
        {
            Some("struct") => Kind::Struct,
            Some("enum") => Kind::Enum,
            Some("extension") => Kind::Impl,
            Some("actor") => Kind::Class,
            _ => Kind::Class,
        },
        "protocol_declaration" => Kind::Interface,
        "function_declaration" | "protocol_function_declaration" => function_kind(at),
        "init_declaration" => Kind::Method,
        "property_declaration" | "protocol_property_declaration" => {
            let constant = child_of_kind(node, &["value_binding_pattern"])
                .is_some_and(|v| cx.text(v).starts_with("let"))
                && at.parent.is_none();
            if constant {
                Kind::Const
            } else {
                Kind::Property
            }
        }
        "typealias_declaration" => Kind::Type,
        _ => return Visit::Skip,
    };
    let name = match node.kind() {
        "init_declaration" => Some("init".to_string()),
        "property_declaration" | "protocol_property_declaration" => {
            node.child_by_field_name("name").map(|n| {
                let id = n.child_by_field_name("bound_identifier").unwrap_or(n);
                cx.text(id)
                    .trim_start_matches("var ")
                    .trim_start_matches("let ")
                    .to_string()
            })
        }
        _ => name_of(cx, node),
    };
    let Some(name) = name else {
        return Visit::Skip;
    };
    let mods = modifiers_text(cx, node);
    let public = mods.contains("public") || mods.contains("open");
    let mut spec = Spec::new(kind, name, node).exported(public);
    if matches!(
        kind,
        Kind::Class | Kind::Struct | Kind::Enum | Kind::Impl | Kind::Interface
    ) {
        spec = spec.container();
    }
    if matches!(kind, Kind::Const | Kind::Property) {
        spec.sig_end = None;
    }
    Visit::Symbol(spec)
}
