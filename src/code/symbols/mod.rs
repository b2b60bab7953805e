//! Symbols of a parsed file: what they are, their names, lines, signatures, first doc lines,
//! and their nesting. Which syntax nodes are symbols is decided per language in `rules`.

mod rules;

use tree_sitter::{Node, Tree};

use super::Lang;
use rules::{Spec, Visit};

/// What kind of thing a symbol is; decides its outline icon (claude-mem's `smart_outline`
/// icons, in BMP glyphs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Kind {
    Function,
    Method,
    Class,
    Struct,
    Interface,
    Trait,
    Type,
    Enum,
    Impl,
    Module,
    Const,
    Variable,
    Property,
    Getter,
    Setter,
    Section,
    Macro,
    Rule,
    Table,
    Other,
}

impl Kind {
    pub(crate) fn icon(self) -> char {
        match self {
            Kind::Function | Kind::Method => 'ƒ',
            Kind::Class | Kind::Struct | Kind::Table => '◆',
            Kind::Interface | Kind::Trait | Kind::Type => '◇',
            Kind::Const => '●',
            Kind::Variable | Kind::Property => '○',
            Kind::Enum => '▣',
            Kind::Impl | Kind::Module => '◈',
            Kind::Getter => '⇢',
            Kind::Setter => '⇠',
            Kind::Section => '§',
            Kind::Macro | Kind::Rule => '⌘',
            Kind::Other => '·',
        }
    }

    /// The word search results show.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Kind::Function => "function",
            Kind::Method => "method",
            Kind::Class => "class",
            Kind::Struct => "struct",
            Kind::Interface => "interface",
            Kind::Trait => "trait",
            Kind::Type => "type",
            Kind::Enum => "enum",
            Kind::Impl => "impl",
            Kind::Module => "module",
            Kind::Const => "const",
            Kind::Variable => "variable",
            Kind::Property => "property",
            Kind::Getter => "getter",
            Kind::Setter => "setter",
            Kind::Section => "section",
            Kind::Macro => "macro",
            Kind::Rule => "rule",
            Kind::Table => "table",
            Kind::Other => "symbol",
        }
    }
}

/// One symbol and the symbols nested in it.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Symbol {
    pub kind: Kind,
    pub name: String,
    /// The enclosing symbols' scope names joined with the language's separator (`Store`,
    /// `outer.Inner`); empty at the top level.
    pub qualifier: String,
    pub exported: bool,
    /// 1-based, inclusive.
    pub start_line: usize,
    pub end_line: usize,
    pub start_byte: usize,
    pub end_byte: usize,
    /// The declaration up to its body, on one line, at most 200 characters.
    pub signature: String,
    /// The first line of the doc comment or docstring.
    pub doc: Option<String>,
    pub children: Vec<Symbol>,
}

impl Symbol {
    /// `Store::open`, `Limiter.check`, or just the name at the top level.
    pub(crate) fn qualified(&self, lang: Lang) -> String {
        if self.qualifier.is_empty() {
            self.name.clone()
        } else {
            format!("{}{}{}", self.qualifier, lang.separator(), self.name)
        }
    }

    /// This symbol and every nested one, depth-first in source order.
    pub(crate) fn walk<'a>(&'a self, out: &mut Vec<&'a Symbol>) {
        out.push(self);
        for c in &self.children {
            c.walk(out);
        }
    }
}

/// Everything the outline needs from one file.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct FileSymbols {
    pub symbols: Vec<Symbol>,
    /// Import statements: (1-based line, the statement on one line).
    pub imports: Vec<(usize, String)>,
}

impl FileSymbols {
    pub(crate) fn all(&self) -> Vec<&Symbol> {
        let mut out = Vec::new();
        for s in &self.symbols {
            s.walk(&mut out);
        }
        out
    }
}

pub(crate) const MAX_SIGNATURE: usize = 200;
/// Nesting deeper than this is not listed (data files can nest without end).
const MAX_DEPTH: usize = 6;

pub(super) struct Cx<'s> {
    pub lang: Lang,
    pub src: &'s str,
    imports: Vec<(usize, String)>,
}

impl<'s> Cx<'s> {
    pub(crate) fn text(&self, node: Node) -> &'s str {
        self.src.get(node.byte_range()).unwrap_or("")
    }
}

/// 1-based first and last line of a node. A node that ends at column 0 (a comment with its
/// newline) ends on the line before.
pub(crate) fn lines_of(node: Node) -> (usize, usize) {
    let start = node.start_position().row + 1;
    let end = node.end_position();
    let last = if end.column == 0 && end.row > node.start_position().row {
        end.row
    } else {
        end.row + 1
    };
    (start, last.max(start))
}

/// Extracts the symbols of a parsed file.
pub(crate) fn extract(lang: Lang, src: &str, tree: &Tree) -> FileSymbols {
    let mut cx = Cx {
        lang,
        src,
        imports: Vec::new(),
    };
    let mut symbols = Vec::new();
    visit_children(&mut cx, tree.root_node(), "", false, 0, &mut symbols);
    FileSymbols {
        symbols,
        imports: cx.imports,
    }
}

/// The context a node is visited in.
#[derive(Clone, Copy)]
pub(super) struct At<'a> {
    /// The enclosing symbol's kind (`None` at the top level).
    pub parent: Option<Kind>,
    pub exported: bool,
    pub depth: usize,
    pub qualifier: &'a str,
}

fn visit_children(
    cx: &mut Cx,
    node: Node,
    qualifier: &str,
    exported: bool,
    depth: usize,
    out: &mut Vec<Symbol>,
) {
    visit_children_in(cx, node, None, qualifier, exported, depth, out);
}

fn visit_children_in(
    cx: &mut Cx,
    node: Node,
    parent: Option<Kind>,
    qualifier: &str,
    exported: bool,
    depth: usize,
    out: &mut Vec<Symbol>,
) {
    // Nodes a language passes through (an array, a block, a parenthesised expression) can nest
    // as deep as the input does (`[[[[…]]]]` 100,000 times is valid JSON), so they are walked
    // with an explicit stack, never by recursion. Only symbol bodies recurse, and those stop
    // at `MAX_DEPTH`.
    let mut stack = vec![Siblings::of(node, exported)];
    while let Some(top) = stack.last_mut() {
        let Some(&child) = top.nodes.get(top.next) else {
            stack.pop();
            continue;
        };
        let i = top.next;
        top.next += 1;
        let at = At {
            parent,
            exported: top.exported,
            depth,
            qualifier,
        };
        let before = &top.nodes[..i];
        match rules::classify(cx, child, at) {
            Visit::Skip => {}
            Visit::Import => {
                let (line, _) = lines_of(child);
                let text = crate::text::one_line(cx.text(child));
                cx.imports.push((line, text));
            }
            Visit::Through { exported } => {
                let inner = Siblings::of(child, at.exported || exported);
                stack.push(inner);
            }
            Visit::Symbol(spec) => out.push(build(cx, spec, at, child, before)),
            Visit::Many(specs) => {
                for spec in specs {
                    out.push(build(cx, spec, at, child, before));
                }
            }
        }
    }
}

/// The named children of a node still to visit.
struct Siblings<'t> {
    // Collected once: tree-sitter's `prev_sibling` walks from the first child, so asking it
    // for every symbol's doc comment would be quadratic in a long file.
    nodes: Vec<Node<'t>>,
    next: usize,
    exported: bool,
}

impl<'t> Siblings<'t> {
    fn of(node: Node<'t>, exported: bool) -> Siblings<'t> {
        let mut cursor = node.walk();
        Siblings {
            nodes: node.named_children(&mut cursor).collect(),
            next: 0,
            exported,
        }
    }
}

fn build(cx: &mut Cx, spec: Spec, at: At, visited: Node, before: &[Node]) -> Symbol {
    let (start_line, mut end_line) = lines_of(spec.node);
    let mut end_byte = spec.node.end_byte();
    if let Some(end) = spec.end_node {
        end_line = lines_of(end).1.max(end_line);
        end_byte = end.end_byte().max(end_byte);
    }
    let signature = signature(cx, &spec);
    let doc = spec.doc.clone().or_else(|| {
        if spec.node.id() == visited.id() && !before.is_empty() {
            doc_in(cx, spec.node, before)
        } else {
            doc_above(cx, spec.node)
        }
    });
    let mut sym = Symbol {
        kind: spec.kind,
        name: spec.name.clone(),
        qualifier: spec
            .owner
            .clone()
            .unwrap_or_else(|| at.qualifier.to_string()),
        exported: spec.exported || at.exported,
        start_line,
        end_line,
        start_byte: spec.node.start_byte(),
        end_byte,
        signature,
        doc,
        children: Vec::new(),
    };
    if let Some(body) = spec.body
        && at.depth < MAX_DEPTH
    {
        let scope = spec.scope.clone().unwrap_or_else(|| spec.name.clone());
        let qualifier = if at.qualifier.is_empty() {
            scope
        } else {
            format!("{}{}{}", at.qualifier, cx.lang.separator(), scope)
        };
        let mut children = Vec::new();
        visit_children_in(
            cx,
            body,
            Some(spec.kind),
            &qualifier,
            false,
            at.depth + 1,
            &mut children,
        );
        sym.children = children;
    }
    sym
}

/// The declaration from its start up to its body (or its first line), on one line.
fn signature(cx: &Cx, spec: &Spec) -> String {
    let node = spec.sig_node;
    let start = node.start_byte();
    let text = match spec.sig_end.filter(|e| *e > start) {
        Some(end) => cx.src.get(start..end).unwrap_or(""),
        None => cx.text(node).lines().next().unwrap_or(""),
    };
    // Comment lines between a header and its body (`def f():  # note`) are not signature.
    let mut lines: Vec<&str> = text.lines().collect();
    while lines.len() > 1
        && lines.last().is_some_and(|l| {
            let t = l.trim();
            t.is_empty() || t.starts_with('#') || t.starts_with("//") || t.starts_with("--")
        })
    {
        lines.pop();
    }
    let one = crate::text::one_line(&lines.join("\n"));
    let one = one.trim_end_matches(['{', '=']).trim_end();
    crate::text::clip(one, MAX_SIGNATURE)
}

/// Nodes that wrap a declaration without being a symbol themselves.
const WRAPPERS: &[&str] = &[
    "export_statement",
    "ambient_declaration",
    "template_declaration",
    "decorated_definition",
    "expression_statement",
];

/// Node kinds that are comments in some grammar.
fn is_comment(kind: &str) -> bool {
    matches!(
        kind,
        "comment"
            | "line_comment"
            | "block_comment"
            | "multiline_comment"
            | "haddock"
            | "single_line_comment"
            | "js_comment"
    )
}

/// Node kinds that decorate the declaration after them (attributes, decorators, annotations).
fn is_decoration(kind: &str) -> bool {
    matches!(
        kind,
        "attribute_item" | "decorator" | "annotation" | "marker_annotation" | "attribute"
    )
}

/// `doc_above` for a node whose preceding named siblings are known (the fast path).
fn doc_in(cx: &Cx, node: Node, before: &[Node]) -> Option<String> {
    let last = before.last()?;
    if !(is_comment(last.kind()) || is_decoration(last.kind())) {
        return match node.parent() {
            Some(p) if WRAPPERS.contains(&p.kind()) => doc_above(cx, node),
            _ => None,
        };
    }
    let mut first_comment: Option<Node> = None;
    let mut top_line = node.start_position().row;
    for i in (0..before.len()).rev() {
        let prev = before[i];
        let kind = prev.kind();
        if !(is_comment(kind) || is_decoration(kind)) {
            break;
        }
        let (_, prev_end) = lines_of(prev);
        if prev_end < top_line {
            break;
        }
        if i > 0 && before[i - 1].end_position().row == prev.start_position().row {
            break;
        }
        if is_comment(kind) {
            first_comment = Some(prev);
        }
        top_line = prev.start_position().row;
    }
    let comment = first_comment?;
    cx.text(comment).lines().find_map(clean_comment_line)
}

/// The first line of the comment block right above `node` (attributes in between allowed).
fn doc_above(cx: &Cx, node: Node) -> Option<String> {
    // A declaration wrapped in `export …` or a template has its comment above the wrapper.
    let mut node = node;
    while node
        .prev_sibling()
        .is_none_or(|p| !is_comment(p.kind()) && !is_decoration(p.kind()))
        && let Some(parent) = node.parent()
        && WRAPPERS.contains(&parent.kind())
    {
        node = parent;
    }
    let mut first_comment: Option<Node> = None;
    let mut current = node;
    let mut top_line = node.start_position().row;
    while let Some(prev) = current.prev_sibling() {
        let kind = prev.kind();
        if !(is_comment(kind) || is_decoration(kind)) {
            break;
        }
        let (_, prev_end) = lines_of(prev);
        // `prev_end` is 1-based; the block must touch the line above.
        if prev_end + 1 < top_line + 1 {
            break;
        }
        // `x; // note` belongs to the line it ends, not to what follows.
        if prev
            .prev_sibling()
            .is_some_and(|pp| pp.end_position().row == prev.start_position().row)
        {
            break;
        }
        if is_comment(kind) {
            first_comment = Some(prev);
        }
        top_line = prev.start_position().row;
        current = prev;
    }
    let comment = first_comment?;
    cx.text(comment).lines().find_map(clean_comment_line)
}

/// A comment line without its markers; `None` when nothing is left.
pub(crate) fn clean_comment_line(line: &str) -> Option<String> {
    let mut t = line.trim();
    for prefix in [
        "///", "//!", "//", "/**", "/*!", "/*", "*/", "{-|", "{-", "-- |", "---", "--", "#", "*",
        ";",
    ] {
        if let Some(rest) = t.strip_prefix(prefix) {
            t = rest;
            break;
        }
    }
    let t = t.trim_end_matches("*/").trim_end_matches("-}").trim();
    if t.is_empty() || t.chars().all(|c| matches!(c, '*' | '-' | '=' | '#' | '/')) {
        None
    } else {
        Some(crate::text::one_line(t))
    }
}
