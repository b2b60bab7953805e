//! JavaScript, TypeScript and TSX: declarations, classes, interfaces, namespaces, and
//! functions bound to `const`.

use tree_sitter::Node;

use super::{Spec, Visit, function_kind, has_child, name_of};
use crate::code::symbols::{At, Cx, Kind};

pub(super) fn classify<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    let kind = match node.kind() {
        "import_statement" => return Visit::Import,
        "export_statement" => {
            if node.child_by_field_name("source").is_some() {
                return Visit::Import; // `export … from '…'` re-exports
            }
            return Visit::Through { exported: true };
        }
        // `namespace A {}` is an expression statement in this grammar; `declare …` wraps too.
        "expression_statement" | "ambient_declaration" | "statement_block" => {
            return Visit::through();
        }
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            function_kind(at)
        }
        "class_declaration" | "abstract_class_declaration" | "class" => Kind::Class,
        "interface_declaration" => Kind::Interface,
        "type_alias_declaration" => Kind::Type,
        "enum_declaration" => Kind::Enum,
        "internal_module" | "module" => Kind::Module,
        "method_definition" | "method_signature" | "abstract_method_signature" => {
            accessor_kind(node).unwrap_or(Kind::Method)
        }
        "public_field_definition" | "field_definition" | "property_signature" => Kind::Property,
        "lexical_declaration" | "variable_declaration" => return declarators(cx, node, at),
        _ => return Visit::Skip,
    };
    let name = name_of(cx, node).or_else(|| {
        node.child_by_field_name("property")
            .map(|n| cx.text(n).to_string())
    });
    let Some(name) = name else {
        return Visit::Skip;
    };
    let mut spec = Spec::new(kind, name, node);
    if matches!(kind, Kind::Class | Kind::Interface | Kind::Module) {
        spec = spec.container();
    }
    Visit::Symbol(spec)
}

/// `get x()` / `set x(v)` in a class body.
fn accessor_kind(node: Node) -> Option<Kind> {
    if has_child(node, "get") {
        Some(Kind::Getter)
    } else if has_child(node, "set") {
        Some(Kind::Setter)
    } else {
        None
    }
}

/// `const a = 1, f = () => {}`: one symbol per named declarator. A function or class value
/// makes a function or class; otherwise `const` makes a constant and `let`/`var` a variable.
fn declarators<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    if is_require(cx, node) {
        return Visit::Import;
    }
    let is_const = has_child(node, "const");
    let mut cursor = node.walk();
    let decls: Vec<Node> = node
        .named_children(&mut cursor)
        .filter(|d| d.kind() == "variable_declarator")
        .collect();
    let single = decls.len() == 1;
    let mut specs = Vec::new();
    for d in decls {
        let Some(name_node) = d.child_by_field_name("name") else {
            continue;
        };
        if name_node.kind() != "identifier" {
            continue; // destructuring patterns
        }
        let name = cx.text(name_node).to_string();
        let value = d.child_by_field_name("value");
        let value_kind = value.map(|v| v.kind()).unwrap_or("");
        let kind = match value_kind {
            "arrow_function" | "function_expression" | "function" | "generator_function" => {
                function_kind(at)
            }
            "class" => Kind::Class,
            _ if is_const => Kind::Const,
            _ => Kind::Variable,
        };
        let span = if single { node } else { d };
        let mut spec = Spec::new(kind, name, span);
        spec.sig_end = None;
        if kind == Kind::Function {
            spec.sig_end = value
                .and_then(|v| v.child_by_field_name("body"))
                .map(|b| b.start_byte());
        } else if kind == Kind::Class {
            spec = spec.with_body(value.and_then(|v| v.child_by_field_name("body")));
        }
        specs.push(spec);
    }
    Visit::Many(specs)
}

/// `const x = require("x")`: a CommonJS import.
fn is_require(cx: &Cx, node: Node) -> bool {
    let mut cursor = node.walk();
    let first = node
        .named_children(&mut cursor)
        .find(|d| d.kind() == "variable_declarator");
    first
        .and_then(|d| d.child_by_field_name("value"))
        .filter(|v| v.kind() == "call_expression")
        .and_then(|v| v.child_by_field_name("function"))
        .is_some_and(|f| cx.text(f) == "require")
}
