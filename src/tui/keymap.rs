//! One keymap table drives both dispatch and the `?` help overlay (yazi's idea): every action
//! has a name (what the config file binds), a description and a help section; the default
//! bindings are data, and `[tui] keys` in the config file adds to or replaces them.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Action {
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Open,
    Back,
    Quit,
    Help,
    Filter,
    Search,
    Jump,
    TypeFilter,
    ConceptFilter,
    Projects,
    Scope,
    WorkState,
    Agent,
    NextPane,
    CopyId,
    CopyText,
    Edit,
    Delete,
    Redact,
    Theme,
    Refresh,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Section {
    Move,
    Layers,
    Find,
    Act,
}

impl Section {
    pub(crate) fn title(self) -> &'static str {
        match self {
            Section::Move => "Move",
            Section::Layers => "Layers",
            Section::Find => "Find",
            Section::Act => "Act",
        }
    }
}

/// name, description, section, for every action (the order of the help screen).
pub const ACTIONS: &[(Action, &str, &str, Section)] = &[
    (Action::Up, "up", "previous row", Section::Move),
    (Action::Down, "down", "next row", Section::Move),
    (Action::PageUp, "page_up", "page up", Section::Move),
    (Action::PageDown, "page_down", "page down", Section::Move),
    (Action::Top, "top", "first row", Section::Move),
    (Action::Bottom, "bottom", "last row", Section::Move),
    (
        Action::NextPane,
        "next_pane",
        "switch pane (list ⇄ preview)",
        Section::Move,
    ),
    (
        Action::Open,
        "open",
        "drill down: index → timeline → detail → raw",
        Section::Layers,
    ),
    (Action::Back, "back", "back up one layer", Section::Layers),
    (
        Action::WorkState,
        "work_state",
        "work state (layer 0)",
        Section::Layers,
    ),
    (
        Action::Agent,
        "agent",
        "agent view: the exact text the agent gets",
        Section::Layers,
    ),
    (
        Action::Projects,
        "projects",
        "switch project",
        Section::Layers,
    ),
    (
        Action::Scope,
        "scope",
        "scope: project / worktree group / all",
        Section::Layers,
    ),
    (Action::Help, "help", "this help", Section::Layers),
    (Action::Quit, "quit", "quit", Section::Layers),
    (
        Action::Filter,
        "filter",
        "fuzzy-filter the list",
        Section::Find,
    ),
    (
        Action::Search,
        "search",
        "full-text search of the current scope",
        Section::Find,
    ),
    (
        Action::Jump,
        "jump",
        "jump to an id (123, S12, T7)",
        Section::Find,
    ),
    (
        Action::TypeFilter,
        "type_filter",
        "cycle the type filter",
        Section::Find,
    ),
    (
        Action::ConceptFilter,
        "concept_filter",
        "cycle the concept filter",
        Section::Find,
    ),
    (
        Action::CopyId,
        "copy_id",
        "copy the id (OSC 52)",
        Section::Act,
    ),
    (
        Action::CopyText,
        "copy_text",
        "copy the agent text (OSC 52)",
        Section::Act,
    ),
    (
        Action::Edit,
        "edit",
        "open the file in $EDITOR",
        Section::Act,
    ),
    (
        Action::Delete,
        "delete",
        "delete the record, like cmem forget (asks)",
        Section::Act,
    ),
    (
        Action::Redact,
        "redact",
        "scrub a text everywhere, like cmem scrub (asks)",
        Section::Act,
    ),
    (Action::Theme, "theme", "next theme", Section::Act),
    (
        Action::Refresh,
        "refresh",
        "reload from the database",
        Section::Act,
    ),
];

pub(crate) const DEFAULT_BINDINGS: &[(&str, Action)] = &[
    ("up", Action::Up),
    ("k", Action::Up),
    ("down", Action::Down),
    ("j", Action::Down),
    ("pageup", Action::PageUp),
    ("ctrl-u", Action::PageUp),
    ("pagedown", Action::PageDown),
    ("ctrl-d", Action::PageDown),
    ("space", Action::PageDown),
    ("home", Action::Top),
    ("g g", Action::Top),
    ("end", Action::Bottom),
    ("G", Action::Bottom),
    ("tab", Action::NextPane),
    ("enter", Action::Open),
    ("l", Action::Open),
    ("right", Action::Open),
    ("esc", Action::Back),
    ("backspace", Action::Back),
    ("h", Action::Back),
    ("left", Action::Back),
    ("w", Action::WorkState),
    ("a", Action::Agent),
    ("p", Action::Projects),
    ("S", Action::Scope),
    ("?", Action::Help),
    ("q", Action::Quit),
    ("ctrl-c", Action::Quit),
    ("/", Action::Filter),
    ("s", Action::Search),
    (":", Action::Jump),
    ("g :", Action::Jump),
    ("f", Action::TypeFilter),
    ("c", Action::ConceptFilter),
    ("y", Action::CopyId),
    ("Y", Action::CopyText),
    ("e", Action::Edit),
    ("d", Action::Delete),
    ("x", Action::Redact),
    ("T", Action::Theme),
    ("R", Action::Refresh),
];

/// One key press, normalised (a typed `G` is `Char('G')` without SHIFT).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Press {
    pub code: KeyCode,
    pub mods: KeyModifiers,
}

impl Press {
    pub(crate) fn from_event(e: &KeyEvent) -> Press {
        let mut mods =
            e.modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match e.code {
            KeyCode::Char(c) => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::Char(c)
            }
            KeyCode::BackTab => {
                mods.remove(KeyModifiers::SHIFT);
                KeyCode::BackTab
            }
            other => other,
        };
        Press { code, mods }
    }

    /// Parses `j`, `G`, `ctrl-d`, `alt-x`, `shift-tab`, `enter`, `pagedown`, `f5`, `space`.
    pub(crate) fn parse(text: &str) -> Result<Press, String> {
        let mut mods = KeyModifiers::NONE;
        let mut rest = text;
        loop {
            let lower = rest.to_ascii_lowercase();
            if let Some(r) = lower
                .strip_prefix("ctrl-")
                .or_else(|| lower.strip_prefix("c-"))
            {
                mods |= KeyModifiers::CONTROL;
                rest = &rest[rest.len() - r.len()..];
            } else if let Some(r) = lower
                .strip_prefix("alt-")
                .or_else(|| lower.strip_prefix("a-"))
            {
                mods |= KeyModifiers::ALT;
                rest = &rest[rest.len() - r.len()..];
            } else if let Some(r) = lower
                .strip_prefix("shift-")
                .or_else(|| lower.strip_prefix("s-"))
            {
                mods |= KeyModifiers::SHIFT;
                rest = &rest[rest.len() - r.len()..];
            } else {
                break;
            }
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(if mods.contains(KeyModifiers::SHIFT) {
                c.to_ascii_uppercase()
            } else {
                c
            }),
            _ => match rest.to_ascii_lowercase().as_str() {
                "enter" | "return" => KeyCode::Enter,
                "esc" | "escape" => KeyCode::Esc,
                "backspace" => KeyCode::Backspace,
                "tab" if mods.contains(KeyModifiers::SHIFT) => KeyCode::BackTab,
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "space" => KeyCode::Char(' '),
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "pageup" | "pgup" => KeyCode::PageUp,
                "pagedown" | "pgdn" => KeyCode::PageDown,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "delete" | "del" => KeyCode::Delete,
                "insert" => KeyCode::Insert,
                f if f.starts_with('f')
                    && f[1..].parse::<u8>().is_ok_and(|n| (1..=12).contains(&n)) =>
                {
                    KeyCode::F(f[1..].parse().unwrap_or(1))
                }
                _ => return Err(format!("unknown key {text:?}")),
            },
        };
        if matches!(code, KeyCode::Char(_) | KeyCode::BackTab) {
            mods.remove(KeyModifiers::SHIFT);
        }
        Ok(Press { code, mods })
    }

    /// How the help screen writes the key.
    pub(crate) fn label(&self) -> String {
        let key = match self.code {
            KeyCode::Char(' ') => "Space".to_string(),
            KeyCode::Char(c) => c.to_string(),
            KeyCode::Enter => "Enter".into(),
            KeyCode::Esc => "Esc".into(),
            KeyCode::Backspace => "Bksp".into(),
            KeyCode::Tab => "Tab".into(),
            KeyCode::BackTab => "S-Tab".into(),
            KeyCode::Up => "↑".into(),
            KeyCode::Down => "↓".into(),
            KeyCode::Left => "←".into(),
            KeyCode::Right => "→".into(),
            KeyCode::PageUp => "PgUp".into(),
            KeyCode::PageDown => "PgDn".into(),
            KeyCode::Home => "Home".into(),
            KeyCode::End => "End".into(),
            KeyCode::F(n) => format!("F{n}"),
            other => format!("{other:?}"),
        };
        let mut out = String::new();
        if self.mods.contains(KeyModifiers::CONTROL) {
            out.push_str("C-");
        }
        if self.mods.contains(KeyModifiers::ALT) {
            out.push_str("M-");
        }
        if self.mods.contains(KeyModifiers::SHIFT) {
            out.push_str("S-");
        }
        out + &key
    }
}

pub(crate) fn action_by_name(name: &str) -> Option<Action> {
    ACTIONS.iter().find(|x| x.1 == name).map(|x| x.0)
}

#[derive(Debug, Clone)]
pub struct Keymap {
    bindings: Vec<(Vec<Press>, Action)>,
}

/// What a key press meant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Resolved {
    Action(Action),
    /// The start of a longer binding (`g` of `g g`): wait for the next key.
    Pending,
    Unbound,
}

fn parse_seq(text: &str) -> Result<Vec<Press>, String> {
    let seq: Vec<Press> = text
        .split_whitespace()
        .map(Press::parse)
        .collect::<Result<_, _>>()?;
    if seq.is_empty() {
        return Err("empty key".into());
    }
    Ok(seq)
}

impl Keymap {
    pub(crate) fn defaults() -> Keymap {
        Keymap {
            bindings: DEFAULT_BINDINGS
                .iter()
                .filter_map(|(k, a)| parse_seq(k).ok().map(|s| (s, *a)))
                .collect(),
        }
    }

    /// The defaults with the config file's `[tui] keys` applied: a key bound there replaces
    /// its default; `none` unbinds it.
    pub(crate) fn with_overrides(overrides: &BTreeMap<String, String>) -> Result<Keymap> {
        let mut map = Keymap::defaults();
        for (key, action) in overrides {
            let seq = parse_seq(key).map_err(|e| {
                anyhow::anyhow!("setting `tui.keys`, key {key:?}: {e} (examples: j, G, ctrl-d, shift-tab, \"g g\")")
            })?;
            map.bindings.retain(|(s, _)| *s != seq);
            if action == "none" {
                continue;
            }
            let Some(a) = action_by_name(action) else {
                bail!(
                    "setting `tui.keys`, key {key:?}: unknown action {action:?} (actions: {}, none)",
                    ACTIONS.iter().map(|x| x.1).collect::<Vec<_>>().join(", ")
                );
            };
            map.bindings.insert(0, (seq, a));
        }
        Ok(map)
    }

    /// Resolves `pending` (keys typed so far) plus `press`.
    pub(crate) fn resolve(&self, pending: &[Press], press: Press) -> Resolved {
        let mut seq = pending.to_vec();
        seq.push(press);
        if let Some((_, a)) = self.bindings.iter().find(|(s, _)| *s == seq) {
            return Resolved::Action(*a);
        }
        if self
            .bindings
            .iter()
            .any(|(s, _)| s.len() > seq.len() && s[..seq.len()] == seq[..])
        {
            return Resolved::Pending;
        }
        Resolved::Unbound
    }

    /// The keys bound to an action, as the help screen writes them: one entry per binding, a
    /// sequence of plain characters written together (`gg`, `g:`) so that it cannot be read
    /// as two bindings.
    pub(crate) fn keys_of(&self, a: Action) -> Vec<String> {
        self.bindings
            .iter()
            .filter(|(_, x)| *x == a)
            .map(|(s, _)| {
                let labels: Vec<String> = s.iter().map(Press::label).collect();
                if labels.iter().all(|l| l.chars().count() == 1) {
                    labels.concat()
                } else {
                    labels.join(" ")
                }
            })
            .collect()
    }

    /// The first key of an action, for hints in the status line.
    pub(crate) fn hint(&self, a: Action) -> String {
        self.keys_of(a)
            .into_iter()
            .next()
            .unwrap_or_else(|| "—".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn press(c: char) -> Press {
        Press::from_event(&KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE))
    }

    #[test]
    fn parses_and_labels_keys() {
        let p = Press::parse("ctrl-d").unwrap();
        assert_eq!(p.code, KeyCode::Char('d'));
        assert_eq!(p.label(), "C-d");
        assert_eq!(Press::parse("G").unwrap(), press('G'));
        assert_eq!(
            Press::from_event(&KeyEvent::new(KeyCode::Char('G'), KeyModifiers::SHIFT)),
            press('G')
        );
        assert_eq!(Press::parse("shift-tab").unwrap().code, KeyCode::BackTab);
        assert!(Press::parse("hyper-x").is_err());
    }

    #[test]
    fn every_action_has_a_default_key_and_a_unique_name() {
        let map = Keymap::defaults();
        for (a, name, _, _) in ACTIONS {
            assert!(!map.keys_of(*a).is_empty(), "{name} has no key");
            assert_eq!(action_by_name(name), Some(*a));
        }
        assert_eq!(
            DEFAULT_BINDINGS.len(),
            map.bindings.len(),
            "a default failed to parse"
        );
    }

    #[test]
    fn sequences_and_overrides() {
        let map = Keymap::defaults();
        assert_eq!(map.resolve(&[], press('g')), Resolved::Pending);
        assert_eq!(
            map.resolve(&[press('g')], press('g')),
            Resolved::Action(Action::Top)
        );
        assert_eq!(map.resolve(&[], press('z')), Resolved::Unbound);
        let mut o = BTreeMap::new();
        o.insert("j".to_string(), "none".to_string());
        o.insert("n".to_string(), "down".to_string());
        let map = Keymap::with_overrides(&o).unwrap();
        assert_eq!(map.resolve(&[], press('j')), Resolved::Unbound);
        assert_eq!(map.resolve(&[], press('n')), Resolved::Action(Action::Down));
        o.insert("m".to_string(), "fly".to_string());
        let e = Keymap::with_overrides(&o).unwrap_err().to_string();
        assert!(
            e.contains("\"m\"") && e.contains("unknown action \"fly\""),
            "{e}"
        );
    }
}
