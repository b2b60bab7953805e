//! The languages cmem parses, their file extensions (claude-mem's `smart_outline` list, and
//! more) and their grammars.
//!
//! Finding a file's language is an extension check only, so the read gate can ask "is this
//! outline-able?" without touching tree-sitter. Grammars are linked into the binary; a
//! `tree_sitter::Language` is created only when a file of that language is parsed.

use std::path::Path;

use tree_sitter::Language;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Lang {
    Rust,
    Python,
    JavaScript,
    TypeScript,
    Tsx,
    Go,
    Java,
    Kotlin,
    Scala,
    Swift,
    C,
    Cpp,
    Php,
    Lua,
    Haskell,
    Zig,
    Ruby,
    Bash,
    Css,
    Scss,
    Sql,
    Json,
    Markdown,
    Yaml,
    Toml,
}

impl Lang {
    pub(crate) const ALL: [Lang; 25] = [
        Lang::Rust,
        Lang::Python,
        Lang::JavaScript,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::Go,
        Lang::Java,
        Lang::Kotlin,
        Lang::Scala,
        Lang::Swift,
        Lang::C,
        Lang::Cpp,
        Lang::Php,
        Lang::Lua,
        Lang::Haskell,
        Lang::Zig,
        Lang::Ruby,
        Lang::Bash,
        Lang::Css,
        Lang::Scss,
        Lang::Sql,
        Lang::Json,
        Lang::Markdown,
        Lang::Yaml,
        Lang::Toml,
    ];

    /// The language of a path, from its extension (case-insensitive). `.jsx` files are parsed
    /// with the TSX grammar, as the reference does.
    pub(crate) fn from_path(path: &Path) -> Option<Lang> {
        let ext = path.extension()?.to_str()?;
        Lang::from_extension(ext)
    }

    pub(crate) fn from_extension(ext: &str) -> Option<Lang> {
        let ext = ext.to_ascii_lowercase();
        Some(match ext.as_str() {
            "rs" => Lang::Rust,
            "py" | "pyw" | "pyi" => Lang::Python,
            "js" | "mjs" | "cjs" => Lang::JavaScript,
            "jsx" | "tsx" => Lang::Tsx,
            "ts" | "mts" | "cts" => Lang::TypeScript,
            "go" => Lang::Go,
            "java" => Lang::Java,
            "kt" | "kts" => Lang::Kotlin,
            "scala" | "sc" => Lang::Scala,
            "swift" => Lang::Swift,
            "c" | "h" => Lang::C,
            "cpp" | "cc" | "cxx" | "hpp" | "hh" | "hxx" => Lang::Cpp,
            "php" => Lang::Php,
            "lua" => Lang::Lua,
            "hs" => Lang::Haskell,
            "zig" => Lang::Zig,
            "rb" => Lang::Ruby,
            "sh" | "bash" | "zsh" => Lang::Bash,
            "css" => Lang::Css,
            "scss" => Lang::Scss,
            "sql" => Lang::Sql,
            "json" => Lang::Json,
            "md" | "mdx" | "markdown" => Lang::Markdown,
            "yml" | "yaml" => Lang::Yaml,
            "toml" => Lang::Toml,
            _ => return None,
        })
    }

    /// The name shown in outlines (`rust`, `typescript`, …).
    pub(crate) fn name(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::JavaScript => "javascript",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::Go => "go",
            Lang::Java => "java",
            Lang::Kotlin => "kotlin",
            Lang::Scala => "scala",
            Lang::Swift => "swift",
            Lang::C => "c",
            Lang::Cpp => "cpp",
            Lang::Php => "php",
            Lang::Lua => "lua",
            Lang::Haskell => "haskell",
            Lang::Zig => "zig",
            Lang::Ruby => "ruby",
            Lang::Bash => "bash",
            Lang::Css => "css",
            Lang::Scss => "scss",
            Lang::Sql => "sql",
            Lang::Json => "json",
            Lang::Markdown => "markdown",
            Lang::Yaml => "yaml",
            Lang::Toml => "toml",
        }
    }

    /// Whether a whole-file Read of this language may be denied by the read gate: source code
    /// only. Documents and data (markdown, YAML, TOML, JSON) are usually read whole on purpose.
    pub(crate) fn is_code(self) -> bool {
        !matches!(self, Lang::Markdown | Lang::Yaml | Lang::Toml | Lang::Json)
    }

    /// How a line comment starts, for the `⌖ path Lx-y` header of an unfolded symbol.
    pub(crate) fn comment(self, text: &str) -> String {
        match self {
            Lang::Python | Lang::Ruby | Lang::Bash | Lang::Yaml | Lang::Toml => {
                format!("# {text}")
            }
            Lang::Lua | Lang::Haskell | Lang::Sql => format!("-- {text}"),
            Lang::Css => format!("/* {text} */"),
            Lang::Markdown => format!("<!-- {text} -->"),
            _ => format!("// {text}"),
        }
    }

    /// Separator of qualified names (`Store::open`, `Store.open`).
    pub(crate) fn separator(self) -> &'static str {
        match self {
            Lang::Rust | Lang::Cpp | Lang::Php => "::",
            _ => ".",
        }
    }

    /// The tree-sitter grammar. Cheap: no query is compiled here.
    pub(crate) fn grammar(self) -> Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::Python => tree_sitter_python::LANGUAGE.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::Go => tree_sitter_go::LANGUAGE.into(),
            Lang::Java => tree_sitter_java::LANGUAGE.into(),
            Lang::Kotlin => tree_sitter_kotlin_ng::LANGUAGE.into(),
            Lang::Scala => tree_sitter_scala::LANGUAGE.into(),
            Lang::Swift => tree_sitter_swift::LANGUAGE.into(),
            Lang::C => tree_sitter_c::LANGUAGE.into(),
            Lang::Cpp => tree_sitter_cpp::LANGUAGE.into(),
            Lang::Php => tree_sitter_php::LANGUAGE_PHP.into(),
            Lang::Lua => tree_sitter_lua::LANGUAGE.into(),
            Lang::Haskell => tree_sitter_haskell::LANGUAGE.into(),
            Lang::Zig => tree_sitter_zig::LANGUAGE.into(),
            Lang::Ruby => tree_sitter_ruby::LANGUAGE.into(),
            Lang::Bash => tree_sitter_bash::LANGUAGE.into(),
            Lang::Css => tree_sitter_css::LANGUAGE.into(),
            Lang::Scss => tree_sitter_scss::language(),
            Lang::Sql => tree_sitter_sequel::LANGUAGE.into(),
            Lang::Json => tree_sitter_json::LANGUAGE.into(),
            Lang::Markdown => tree_sitter_md::LANGUAGE.into(),
            Lang::Yaml => tree_sitter_yaml::LANGUAGE.into(),
            Lang::Toml => tree_sitter_toml_ng::LANGUAGE.into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_grammar_loads_with_this_tree_sitter() {
        for lang in Lang::ALL {
            let mut parser = tree_sitter::Parser::new();
            parser
                .set_language(&lang.grammar())
                .unwrap_or_else(|e| panic!("{}: {e}", lang.name()));
        }
    }

    #[test]
    fn extensions() {
        let of = |p: &str| Lang::from_path(Path::new(p)).map(Lang::name);
        assert_eq!(of("src/main.rs"), Some("rust"));
        assert_eq!(of("a/b.JSX"), Some("tsx"));
        assert_eq!(of("x.mts"), Some("typescript"));
        assert_eq!(of("x.hh"), Some("cpp"));
        assert_eq!(of("x.h"), Some("c"));
        assert_eq!(of("README"), None);
        assert_eq!(of("notes.txt"), None);
        assert!(!Lang::Markdown.is_code() && Lang::Rust.is_code());
    }
}
