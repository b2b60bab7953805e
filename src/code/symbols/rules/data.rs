//! Stylesheets, SQL, and data/document formats (JSON, YAML, TOML, markdown).

use tree_sitter::Node;

use super::{Spec, Visit, child_of_kind};
use crate::code::symbols::{At, Cx, Kind};

/// Data files nest without end; only this many levels are listed.
const DATA_DEPTH: usize = 2;

fn leaf<'t>(kind: Kind, name: impl Into<String>, node: Node<'t>) -> Spec<'t> {
    let mut spec = Spec::new(kind, name, node);
    spec.sig_end = None;
    spec
}

/// A key of a data file: a section when its value is a container, with the keys of `nested`
/// listed below it until `DATA_DEPTH`.
fn key_symbol<'t>(
    name: String,
    node: Node<'t>,
    section: bool,
    nested: Option<Node<'t>>,
    at: At,
) -> Visit<'t> {
    let kind = if section {
        Kind::Section
    } else {
        Kind::Property
    };
    let mut spec = leaf(kind, name, node);
    if at.depth + 1 < DATA_DEPTH {
        spec.body = nested;
    }
    Visit::Symbol(spec)
}

pub(super) fn css<'t>(cx: &Cx, node: Node<'t>, _at: At) -> Visit<'t> {
    match node.kind() {
        "import_statement" | "use_statement" | "forward_statement" => Visit::Import,
        "block" => Visit::through(),
        "rule_set" => {
            let Some(sel) = child_of_kind(node, &["selectors"]) else {
                return Visit::Skip;
            };
            let name = crate::text::one_line(cx.text(sel));
            let mut spec = Spec::new(Kind::Rule, name, node);
            let block = child_of_kind(node, &["block"]);
            spec.sig_end = block.map(|b| b.start_byte());
            // SCSS nests rules; CSS blocks hold only declarations.
            spec.body = block;
            Visit::Symbol(spec)
        }
        "media_statement" | "supports_statement" | "keyframes_statement" | "at_rule" => {
            let text = cx.text(node);
            let head = text.split('{').next().unwrap_or("").trim();
            let mut spec = Spec::new(Kind::Section, crate::text::one_line(head), node);
            let block = child_of_kind(node, &["block", "keyframe_block_list"]);
            spec.sig_end = None;
            if node.kind() != "keyframes_statement" {
                spec.body = block;
            }
            Visit::Symbol(spec)
        }
        "mixin_statement" | "function_statement" => {
            let name = node
                .child_by_field_name("name")
                .or_else(|| child_of_kind(node, &["identifier", "name"]))
                .map(|n| cx.text(n).to_string());
            Visit::named(name.map(|n| {
                let kind = if node.kind() == "mixin_statement" {
                    Kind::Macro
                } else {
                    Kind::Function
                };
                let mut spec = Spec::new(kind, n, node);
                spec.sig_end = child_of_kind(node, &["block"]).map(|b| b.start_byte());
                spec
            }))
        }
        "declaration" if node.parent().is_some_and(|p| p.kind() == "stylesheet") => {
            // `$primary: #336;` and `--gap: 4px;` at the top level.
            let Some(prop) = child_of_kind(node, &["property_name", "variable", "variable_name"])
            else {
                return Visit::Skip;
            };
            Visit::Symbol(leaf(Kind::Variable, cx.text(prop), node))
        }
        _ => Visit::Skip,
    }
}

pub(super) fn sql<'t>(cx: &Cx, node: Node<'t>, _at: At) -> Visit<'t> {
    let kind = match node.kind() {
        "program" | "statement" | "transaction" | "block" | "column_definitions" => {
            return Visit::through();
        }
        "column_definition" => {
            let name = node
                .child_by_field_name("name")
                .or_else(|| child_of_kind(node, &["identifier"]))
                .map(|n| cx.text(n).to_string());
            return Visit::named(name.map(|n| leaf(Kind::Property, n, node)));
        }
        "create_table" => Kind::Table,
        "create_view" | "create_materialized_view" => Kind::Type,
        "create_function" | "create_procedure" => Kind::Function,
        "create_index" => Kind::Const,
        "create_type" => Kind::Type,
        "create_trigger" => Kind::Macro,
        "create_schema" | "create_database" => Kind::Module,
        "create_sequence" => Kind::Variable,
        "create_extension" => return Visit::Import,
        "alter_table" => Kind::Other,
        _ => return Visit::Skip,
    };
    let name = child_of_kind(node, &["object_reference", "identifier"])
        .map(|n| cx.text(n).to_string())
        .unwrap_or_else(|| node.kind().replace('_', " "));
    let mut spec = leaf(kind, name, node);
    // A statement's first line names what it creates.
    if let Some(stmt) = node.parent().filter(|p| p.kind() == "statement") {
        spec.node = stmt;
    }
    if kind == Kind::Table {
        spec.body = child_of_kind(node, &["column_definitions"]);
    }
    Visit::Symbol(spec)
}

/// JSON: the keys of the top-level object and of the objects directly in it.
pub(super) fn json<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    match node.kind() {
        "document" | "object" | "array" if at.depth == 0 => Visit::through(),
        "pair" => {
            let Some(key) = node.child_by_field_name("key") else {
                return Visit::Skip;
            };
            let name = cx.text(key).trim_matches('"').to_string();
            let value = node.child_by_field_name("value");
            let nested = value.filter(|v| v.kind() == "object");
            let section = matches!(value.map(|v| v.kind()), Some("object") | Some("array"));
            key_symbol(name, node, section, nested, at)
        }
        _ => Visit::Skip,
    }
}

pub(super) fn yaml<'t>(cx: &Cx, node: Node<'t>, at: At) -> Visit<'t> {
    match node.kind() {
        "stream" | "document" | "block_node" | "block_mapping" => Visit::through(),
        "block_sequence" | "block_sequence_item" if at.depth == 0 => Visit::through(),
        "block_mapping_pair" => {
            let Some(key) = node.child_by_field_name("key") else {
                return Visit::Skip;
            };
            let name = cx.text(key).trim_matches(['"', '\'']).to_string();
            let value = node.child_by_field_name("value");
            let nested = value
                .filter(|v| v.kind() == "block_node")
                .and_then(|v| child_of_kind(v, &["block_mapping"]));
            let section = value.is_some_and(|v| v.kind() == "block_node");
            key_symbol(name, node, section, nested, at)
        }
        _ => Visit::Skip,
    }
}

pub(super) fn toml<'t>(cx: &Cx, node: Node<'t>, _at: At) -> Visit<'t> {
    match node.kind() {
        "table" | "table_array_element" => {
            let Some(key) = child_of_kind(node, &["bare_key", "dotted_key", "quoted_key"]) else {
                return Visit::Skip;
            };
            let name = if node.kind() == "table" {
                format!("[{}]", cx.text(key))
            } else {
                format!("[[{}]]", cx.text(key))
            };
            let mut spec = leaf(Kind::Section, name, node);
            spec.body = Some(node);
            Visit::Symbol(spec)
        }
        "pair" => {
            let Some(key) = node.named_child(0) else {
                return Visit::Skip;
            };
            Visit::Symbol(leaf(Kind::Property, cx.text(key), node))
        }
        _ => Visit::Skip,
    }
}

/// Markdown: sections nested by heading level; the signature keeps the `#` marks.
pub(super) fn markdown<'t>(cx: &Cx, node: Node<'t>, _at: At) -> Visit<'t> {
    match node.kind() {
        "section" => {
            let Some(heading) = child_of_kind(node, &["atx_heading", "setext_heading"]) else {
                return Visit::through();
            };
            let text = cx.text(heading);
            let (level, title) = if heading.kind() == "atx_heading" {
                let line = text.lines().next().unwrap_or("").trim();
                let level = line.chars().take_while(|c| *c == '#').count();
                (
                    level,
                    line.trim_start_matches('#')
                        .trim()
                        .trim_end_matches('#')
                        .trim(),
                )
            } else {
                let level = if text.contains("\n=") { 1 } else { 2 };
                (level, text.lines().next().unwrap_or("").trim())
            };
            let mut spec = leaf(Kind::Section, title.to_string(), node);
            spec.sig_node = heading;
            spec.body = Some(node);
            // The signature (the heading line with its `#` marks) carries the level.
            let _ = level;
            spec.sig_end = None;
            Visit::Symbol(spec)
        }
        _ => Visit::Skip,
    }
}
