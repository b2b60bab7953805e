//! Python: classes, functions (methods, properties), module constants, docstrings.

use tree_sitter::Node;

use super::{Spec, Visit, child_of_kind, function_kind, is_constant_name, name_of};
use crate::code::symbols::{At, Cx, Kind, clean_comment_line};

pub(super) fn classify<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    match node.kind() {
        "import_statement" | "import_from_statement" | "future_import_statement" => Visit::Import,
        "function_definition" | "class_definition" => Visit::named(definition(cx, node, node, at)),
        "decorated_definition" => {
            let Some(def) = node.child_by_field_name("definition") else {
                return Visit::Skip;
            };
            Visit::named(definition(cx, node, def, at))
        }
        // Definitions and imports under `if TYPE_CHECKING:` or `try: … except ImportError:`.
        "if_statement" | "try_statement" | "block" | "else_clause" | "elif_clause"
        | "except_clause" | "finally_clause" => Visit::through(),
        "expression_statement" => assignment(cx, node, at),
        _ => Visit::Skip,
    }
}

fn definition<'t>(cx: &Cx, outer: Node<'t>, def: Node<'t>, at: At) -> Option<Spec<'t>> {
    let name = name_of(cx, def)?;
    let body = def.child_by_field_name("body");
    let kind = if def.kind() == "class_definition" {
        Kind::Class
    } else {
        match decorator_kind(cx, outer) {
            Some(k) => k,
            None => function_kind(at),
        }
    };
    let mut spec = Spec::new(kind, name, outer);
    spec.sig_node = def;
    spec.sig_end = body.map(|b| b.start_byte());
    spec.doc = body.and_then(|b| docstring(cx, b));
    if kind == Kind::Class {
        spec.body = body;
    }
    Some(spec)
}

/// `@property` makes a getter, `@name.setter` a setter.
fn decorator_kind(cx: &Cx, outer: Node) -> Option<Kind> {
    if outer.kind() != "decorated_definition" {
        return None;
    }
    let mut cursor = outer.walk();
    for d in outer.named_children(&mut cursor) {
        if d.kind() != "decorator" {
            continue;
        }
        let text = cx.text(d).trim_start_matches('@').trim();
        if text == "property" || text.ends_with(".getter") || text == "cached_property" {
            return Some(Kind::Getter);
        }
        if text.ends_with(".setter") {
            return Some(Kind::Setter);
        }
    }
    None
}

/// The first line of a docstring (the body's first statement, when it is a string).
fn docstring(cx: &Cx, body: Node) -> Option<String> {
    let first = body.named_child(0)?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let string = first.named_child(0).filter(|s| s.kind() == "string")?;
    let text = cx.text(string);
    let inner = text
        .trim_start_matches(['r', 'R', 'u', 'U', 'b', 'B'])
        .trim_matches('"')
        .trim_matches('\'');
    inner.lines().find_map(clean_comment_line)
}

/// `NAME = …` at module or class level (never inside a function: bodies are not visited).
fn assignment<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    let parent = node.parent().map(|p| p.kind());
    let in_module = parent == Some("module");
    let in_class = at.parent == Some(Kind::Class);
    if !(in_module || in_class) {
        return Visit::Skip;
    }
    let Some(assign) = child_of_kind(node, &["assignment"]) else {
        return Visit::Skip;
    };
    let Some(left) = assign.child_by_field_name("left") else {
        return Visit::Skip;
    };
    if left.kind() != "identifier" {
        return Visit::Skip;
    }
    let name = cx.text(left).to_string();
    let kind = if in_class {
        Kind::Property
    } else if is_constant_name(&name) {
        Kind::Const
    } else {
        Kind::Variable
    };
    Visit::Symbol(Spec::new(kind, name, node))
}
