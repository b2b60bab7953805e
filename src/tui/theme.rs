//! Themes: TOML files of semantic roles (`ui.*` chrome, `memory.*` view roles) and tree-sitter
//! capture scopes, looked up with helix-style dotted fallback (`keyword.control` →
//! `keyword`). Four are built in (embedded); users add `<config dir>/themes/<name>.toml`,
//! which may `inherits = "<theme>"`. An invalid file is an error naming file, line and key.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Result, anyhow, bail};
use ratatui::style::{Color, Modifier, Style};

use crate::view::Role;

/// The built-in themes, in the order `T` cycles through them.
pub(crate) const BUILT_IN: &[(&str, &str)] = &[
    ("default", include_str!("../../themes/default.toml")),
    ("light", include_str!("../../themes/light.toml")),
    (
        "high-contrast",
        include_str!("../../themes/high-contrast.toml"),
    ),
    (
        "catppuccin-mocha",
        include_str!("../../themes/catppuccin-mocha.toml"),
    ),
];

/// The built-in themes' names, for help texts: `default, light, …`.
pub(crate) fn built_in_names() -> String {
    let names: Vec<&str> = BUILT_IN.iter().map(|(n, _)| *n).collect();
    names.join(", ")
}

/// Keys a theme may set besides tree-sitter scopes; a typo in one of these is an error.
pub(crate) const UI_KEYS: &[&str] = &[
    "ui.background",
    "ui.text",
    "ui.border",
    "ui.border.focus",
    "ui.title",
    "ui.breadcrumb",
    "ui.breadcrumb.current",
    "ui.selection",
    "ui.selection.unfocused",
    "ui.match",
    "ui.statusline",
    "ui.statusline.key",
    "ui.statusline.mode",
    "ui.help.key",
    "ui.help.section",
    "ui.popup",
    "ui.input",
    "ui.meter.ok",
    "ui.meter.warn",
    "ui.meter.over",
    "ui.error",
    "ui.info",
    "ui.muted",
    "ui.gutter",
    "memory.text",
    "memory.heading",
    "memory.strong",
    "memory.id",
    "memory.time",
    "memory.title",
    "memory.label",
    "memory.muted",
    "memory.number",
    "memory.warning",
    "memory.code",
    "memory.type",
    "memory.type.session",
    "memory.type.bugfix",
    "memory.type.feature",
    "memory.type.refactor",
    "memory.type.change",
    "memory.type.discovery",
    "memory.type.decision",
    "memory.type.security_alert",
    "memory.type.security_note",
    "memory.type.sensitive",
];

#[derive(Debug, Clone)]
pub struct Theme {
    pub name: String,
    styles: HashMap<String, Style>,
}

impl Theme {
    /// The style of a scope, falling back along its dotted prefixes; unknown is the default.
    pub(crate) fn get(&self, scope: &str) -> Style {
        let mut key = scope;
        loop {
            if let Some(s) = self.styles.get(key) {
                return *s;
            }
            match key.rsplit_once('.') {
                Some((parent, _)) => key = parent,
                None => return Style::default(),
            }
        }
    }

    /// The style of a view role (what `Doc` spans carry).
    pub(crate) fn role(&self, role: Role) -> Style {
        let scope = match role {
            Role::Text => "memory.text",
            Role::Heading(_) => "memory.heading",
            Role::Strong => "memory.strong",
            Role::Id => "memory.id",
            Role::Time => "memory.time",
            Role::TypeSymbol(None) => "memory.type.session",
            Role::TypeSymbol(Some(t)) => return self.obs_type(t.id()),
            Role::Title => "memory.title",
            Role::Label => "memory.label",
            Role::Muted => "memory.muted",
            Role::Number => "memory.number",
            Role::Warning => "memory.warning",
            Role::Code => "memory.code",
        };
        self.get(scope)
    }

    pub(crate) fn obs_type(&self, type_id: &str) -> Style {
        self.get(&format!("memory.type.{type_id}"))
    }

    /// The same theme without colours (`NO_COLOR`): only bold/italic/underline/reverse stay,
    /// and the selection and matches are shown by reversing and underlining.
    pub(crate) fn without_colour(mut self) -> Theme {
        for style in self.styles.values_mut() {
            *style = Style::default().add_modifier(style.add_modifier);
        }
        self.styles.insert(
            "ui.selection".into(),
            Style::default().add_modifier(Modifier::REVERSED),
        );
        self.styles.insert(
            "ui.selection.unfocused".into(),
            Style::default().add_modifier(Modifier::UNDERLINED),
        );
        self.styles.insert(
            "ui.match".into(),
            Style::default().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        );
        self.styles.insert(
            "ui.statusline".into(),
            Style::default().add_modifier(Modifier::REVERSED),
        );
        self.name = format!("{} (no colour)", self.name);
        self
    }
}

/// Where user themes live.
pub(crate) fn user_dir() -> PathBuf {
    crate::paths::config_dir().join("themes")
}

/// Every theme name available: built-ins, then user files.
pub(crate) fn available() -> Vec<String> {
    let mut names: Vec<String> = BUILT_IN.iter().map(|(n, _)| n.to_string()).collect();
    if let Ok(dir) = std::fs::read_dir(user_dir()) {
        let mut user: Vec<String> = dir
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let p = e.path();
                if p.extension()? != "toml" {
                    return None;
                }
                Some(p.file_stem()?.to_string_lossy().into_owned())
            })
            .filter(|n| !names.contains(n))
            .collect();
        user.sort();
        names.extend(user);
    }
    names
}

/// `NO_COLOR` (any non-empty value) turns colours off (no-color.org).
pub(crate) fn no_colour() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// Loads a theme for the terminal: as `load`, its colours stripped under `NO_COLOR`.
pub(crate) fn load_for_terminal(name: &str) -> Result<Theme> {
    let t = load(name)?;
    Ok(if no_colour() { t.without_colour() } else { t })
}

/// Loads a theme by name (a user file wins over a built-in of the same name) or by path
/// (anything with a `/` or ending in `.toml`).
pub(crate) fn load(name: &str) -> Result<Theme> {
    load_depth(name, 0)
}

fn load_depth(name: &str, depth: usize) -> Result<Theme> {
    if depth > 4 {
        bail!("theme {name:?}: `inherits` goes more than 4 levels deep (a cycle?)");
    }
    if name.contains('/') || name.ends_with(".toml") {
        let path = crate::paths::expand_tilde(name);
        let text = read(&path)?;
        return parse(&path, &text, depth);
    }
    let user = user_dir().join(format!("{name}.toml"));
    if user.exists() {
        let text = read(&user)?;
        return parse(&user, &text, depth);
    }
    match BUILT_IN.iter().find(|(n, _)| *n == name) {
        Some((n, text)) => parse(Path::new(&format!("themes/{n}.toml")), text, depth),
        None => bail!(
            "unknown theme {name:?}: available are {} (user themes go in {})",
            available().join(", "),
            user_dir().display()
        ),
    }
}

fn read(path: &Path) -> Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| anyhow!("cannot read theme file {}: {e}", path.display()))
}

/// 1-based line of a byte offset.
fn line_at(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Parses a theme file. `file` is only used in error messages.
pub(crate) fn parse(file: &Path, text: &str, depth: usize) -> Result<Theme> {
    type Top = std::collections::BTreeMap<String, toml::Spanned<toml::Value>>;
    let err = |line: usize, key: &str, msg: String| {
        anyhow!(
            "invalid theme {}, line {line}, key `{key}`: {msg}",
            file.display()
        )
    };
    let top: Top = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(0, |s| line_at(text, s.start));
        anyhow!(
            "invalid theme {}, line {line}: {}",
            file.display(),
            e.message().trim()
        )
    })?;
    let mut theme = match top.get("inherits") {
        Some(v) => match v.get_ref() {
            toml::Value::String(parent) => load_depth(parent, depth + 1)?,
            _ => {
                return Err(err(
                    line_at(text, v.span().start),
                    "inherits",
                    "must be a theme name".into(),
                ));
            }
        },
        None => Theme {
            name: String::new(),
            styles: HashMap::new(),
        },
    };
    theme.name = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut palette: HashMap<String, Color> = HashMap::new();
    if let Some(p) = top.get("palette") {
        let toml::Value::Table(table) = p.get_ref() else {
            return Err(err(
                line_at(text, p.span().start),
                "palette",
                "must be a table of name = \"#rrggbb\"".into(),
            ));
        };
        for (k, v) in table {
            let line = key_line(text, p.span().start, k);
            let c = v
                .as_str()
                .ok_or_else(|| err(line, &format!("palette.{k}"), "must be a string".into()))
                .and_then(|s| {
                    colour(s, &HashMap::new()).map_err(|m| err(line, &format!("palette.{k}"), m))
                })?;
            palette.insert(k.clone(), c);
        }
    }
    for (key, value) in &top {
        if matches!(key.as_str(), "inherits" | "palette" | "name") {
            continue;
        }
        let line = line_at(text, value.span().start);
        if (key.starts_with("ui.") || key.starts_with("memory.") || key == "ui" || key == "memory")
            && !UI_KEYS.contains(&key.as_str())
        {
            return Err(err(
                line,
                key,
                format!(
                    "unknown key (known: {}, plus tree-sitter scopes such as keyword.control)",
                    UI_KEYS.join(", ")
                ),
            ));
        }
        let style = style(value.get_ref(), &palette).map_err(|m| err(line, key, m))?;
        theme.styles.insert(key.clone(), style);
    }
    Ok(theme)
}

/// The line where `key =` appears at or after `from` (palette entries carry no span).
fn key_line(text: &str, from: usize, key: &str) -> usize {
    let mut offset = from;
    for l in text[from.min(text.len())..].split_inclusive('\n') {
        let k = l.split_once('=').map(|(k, _)| k.trim().trim_matches('"'));
        if k == Some(key) {
            return line_at(text, offset);
        }
        offset += l.len();
    }
    line_at(text, from)
}

fn style(value: &toml::Value, palette: &HashMap<String, Color>) -> Result<Style, String> {
    match value {
        toml::Value::String(fg) => Ok(Style::default().fg(colour(fg, palette)?)),
        toml::Value::Table(t) => {
            let mut s = Style::default();
            for (k, v) in t {
                match (k.as_str(), v) {
                    ("fg", toml::Value::String(c)) => s = s.fg(colour(c, palette)?),
                    ("bg", toml::Value::String(c)) => s = s.bg(colour(c, palette)?),
                    ("modifiers", toml::Value::Array(mods)) => {
                        for m in mods {
                            let name = m.as_str().unwrap_or_default();
                            s = s.add_modifier(modifier(name)?);
                        }
                    }
                    ("fg" | "bg", _) => return Err(format!("`{k}` must be a colour string")),
                    ("modifiers", _) => {
                        return Err("`modifiers` must be a list such as [\"bold\"]".into());
                    }
                    _ => {
                        return Err(format!(
                            "unknown field `{k}` (a style has fg, bg and modifiers)"
                        ));
                    }
                }
            }
            Ok(s)
        }
        _ => Err("a style is \"colour\" or { fg = …, bg = …, modifiers = [...] }".into()),
    }
}

fn modifier(name: &str) -> Result<Modifier, String> {
    Ok(match name {
        "bold" => Modifier::BOLD,
        "dim" => Modifier::DIM,
        "italic" => Modifier::ITALIC,
        "underlined" => Modifier::UNDERLINED,
        "reversed" => Modifier::REVERSED,
        "crossed_out" | "crossed-out" => Modifier::CROSSED_OUT,
        _ => {
            return Err(format!(
                "unknown modifier {name:?} (bold, dim, italic, underlined, reversed, crossed_out)"
            ));
        }
    })
}

const NAMED: &[(&str, Color)] = &[
    ("reset", Color::Reset),
    ("black", Color::Black),
    ("red", Color::Red),
    ("green", Color::Green),
    ("yellow", Color::Yellow),
    ("blue", Color::Blue),
    ("magenta", Color::Magenta),
    ("cyan", Color::Cyan),
    ("gray", Color::Gray),
    ("dark-gray", Color::DarkGray),
    ("light-red", Color::LightRed),
    ("light-green", Color::LightGreen),
    ("light-yellow", Color::LightYellow),
    ("light-blue", Color::LightBlue),
    ("light-magenta", Color::LightMagenta),
    ("light-cyan", Color::LightCyan),
    ("white", Color::White),
];

fn colour(text: &str, palette: &HashMap<String, Color>) -> Result<Color, String> {
    if let Some(c) = palette.get(text) {
        return Ok(*c);
    }
    if let Some(hex) = text.strip_prefix('#')
        && hex.len() == 6
        && let Ok(v) = u32::from_str_radix(hex, 16)
    {
        return Ok(Color::Rgb((v >> 16) as u8, (v >> 8) as u8, v as u8));
    }
    if let Some((_, c)) = NAMED.iter().find(|(n, _)| *n == text) {
        return Ok(*c);
    }
    Err(format!(
        "unknown colour {text:?} (use #rrggbb, a name from [palette], or one of {})",
        NAMED.iter().map(|(n, _)| *n).collect::<Vec<_>>().join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_built_in_theme_parses_and_sets_every_ui_key() {
        for (name, text) in BUILT_IN {
            let t = parse(Path::new(name), text, 0).unwrap_or_else(|e| panic!("{e:#}"));
            for key in UI_KEYS {
                assert!(
                    t.styles.contains_key(*key)
                        || key.matches('.').count() > 1
                        || *key == "memory.type",
                    "{name}: {key} missing"
                );
            }
            assert_ne!(
                t.get("keyword"),
                Style::default(),
                "{name}: no syntax colours"
            );
        }
    }

    #[test]
    fn dotted_fallback() {
        let t = parse(
            Path::new("t.toml"),
            "keyword = \"red\"\n\"keyword.control\" = { fg = \"blue\", modifiers = [\"bold\"] }\n",
            0,
        )
        .unwrap();
        assert_eq!(t.get("keyword.control.return").fg, Some(Color::Blue));
        assert_eq!(t.get("keyword.operator").fg, Some(Color::Red));
        assert_eq!(t.get("string"), Style::default());
    }

    #[test]
    fn errors_name_file_line_and_key() {
        let text = "\"ui.text\" = { fg = \"fg\" }\n\n\nkeyword = { fg = \"purpel\" }\n[palette]\nfg = \"#ffffff\"\n";
        let e = parse(Path::new("/x/mine.toml"), text, 0)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("/x/mine.toml")
                && e.contains("line 4")
                && e.contains("`keyword`")
                && e.contains("purpel"),
            "{e}"
        );
        let e = parse(Path::new("m.toml"), "\"ui.txet\" = \"red\"\n", 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 1") && e.contains("ui.txet"), "{e}");
        let e = parse(Path::new("m.toml"), "[palette]\na = \"#fff\"\n", 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("line 2") && e.contains("palette.a"), "{e}");
        let e = parse(
            Path::new("m.toml"),
            "keyword = { fg = \"red\", bold = true }\n",
            0,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("unknown field `bold`"), "{e}");
        let e = parse(Path::new("m.toml"), "keyword = [\n", 0)
            .unwrap_err()
            .to_string();
        assert!(e.contains("m.toml, line"), "{e}");
    }

    #[test]
    fn no_colour_keeps_only_modifiers() {
        let t = load("default").unwrap().without_colour();
        assert_eq!(t.get("memory.id").fg, None);
        assert!(
            t.get("ui.selection")
                .add_modifier
                .contains(Modifier::REVERSED)
        );
    }
}
