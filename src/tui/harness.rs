//! Drives the real `App` without a terminal: keys in, worker requests answered on the spot
//! against a real database, frames drawn into a `TestBackend`. Used by the state and snapshot
//! tests and by `cmem dev screenshots`; the event loop in `mod.rs` does the same with threads.

use std::path::Path;

use anyhow::{Context, Result};
use crossterm::event::{KeyEvent, KeyEventKind, KeyEventState};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::buffer::Buffer;

use super::app::{App, Options};
use super::keymap::{Keymap, Press};
use super::layers::Ctx;
use super::worker;
use crate::store::Store;
use crate::view::time::Tz;

pub struct Harness {
    pub app: App,
    store: Store,
    ctx: Ctx,
    pub terminal: Terminal<TestBackend>,
}

impl Harness {
    /// Opens the browser on `db` for `project`, in UTC at the instant `now_ms`.
    pub fn open(
        db: &Path,
        project: &str,
        theme: &str,
        size: (u16, u16),
        now_ms: i64,
    ) -> Result<Harness> {
        let store = Store::open(db)?;
        let data_dir = db.parent().map(Path::to_path_buf).unwrap_or_default();
        let tz = Tz::utc();
        let ctx = Ctx {
            tz: tz.clone(),
            now_ms,
            context: crate::config::ContextSettings {
                timezone: "UTC".into(),
                ..Default::default()
            },
            // As `cmem tui` runs with the default settings: search by meaning too.
            meaning: crate::store::meaning::Meaning::when(
                crate::config::SearchSettings::default().semantic,
                data_dir.clone(),
            ),
            data_dir,
        };
        let app = App::new(Options {
            theme: super::theme::load(theme)?,
            keymap: Keymap::defaults(),
            tz,
            now_ms,
            project: project.to_string(),
            project_keys: vec![project.to_string()],
            size,
        });
        let terminal = Terminal::new(TestBackend::new(size.0, size.1))?;
        let mut h = Harness {
            app,
            store,
            ctx,
            terminal,
        };
        h.settle();
        Ok(h)
    }

    /// Answers every waiting request, as the worker thread would.
    pub fn settle(&mut self) {
        for _ in 0..16 {
            let batch: Vec<_> = self.app.outbox.drain(..).collect();
            if batch.is_empty() {
                return;
            }
            for (ticket, req) in batch {
                let reply = worker::serve(&mut self.store, &self.ctx, &req);
                self.app.handle_reply(ticket, reply);
            }
        }
    }

    /// Presses keys written as the config file writes them, space-separated (`j j enter`).
    pub fn keys(&mut self, spec: &str) -> Result<()> {
        for k in spec.split_whitespace() {
            let p = Press::parse(k)
                .map_err(anyhow::Error::msg)
                .with_context(|| format!("in {spec:?}"))?;
            self.app.handle_key(KeyEvent {
                code: p.code,
                modifiers: p.mods,
                kind: KeyEventKind::Press,
                state: KeyEventState::NONE,
            });
            self.settle();
        }
        Ok(())
    }

    /// Types text into whatever input is open (filter, search, jump).
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.app
                .handle_key(KeyEvent::from(crossterm::event::KeyCode::Char(c)));
            self.settle();
        }
    }

    pub fn resize(&mut self, w: u16, h: u16) {
        self.terminal.backend_mut().resize(w, h);
        self.app.handle_resize(w, h);
        self.settle();
    }

    pub fn draw(&mut self) -> &Buffer {
        let app = &self.app;
        // TestBackend cannot fail to draw.
        let _ = self.terminal.draw(|f| super::ui::draw(app, f));
        self.terminal.backend().buffer()
    }

    /// The frame as plain text rows (for assertions).
    pub fn screen(&mut self) -> String {
        let buf = self.draw().clone();
        let mut out = String::new();
        for y in 0..buf.area.height {
            let mut line = String::new();
            for x in 0..buf.area.width {
                line.push_str(buf[(x, y)].symbol());
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out
    }
}

/// The instant the demo data set and screenshots are pinned to (2026-11-30 16:00 UTC).
pub const DEMO_NOW_MS: i64 = 1_796_054_400_000;

impl Harness {
    /// Runs a script: key names (`j`, `enter`, `ctrl-d`) and `'text` to type literally.
    pub fn script(&mut self, script: &str) -> Result<()> {
        for token in script.split_whitespace() {
            match token.strip_prefix('\'') {
                Some(text) => self.type_text(text),
                None => self.keys(token)?,
            }
        }
        Ok(())
    }

    /// A tool use of the demo with highlighted code (a Read of a curated Rust file), and the
    /// observation it belongs to.
    pub fn demo_code_tool_use(&self) -> Result<(i64, i64)> {
        crate::store::browse::tool_use_mentioning(
            &self.store.conn,
            crate::demo::PROJECT,
            "Read",
            "verify_signature(jwt",
        )?
        .context("the demo has no Read of verify_signature")
    }
}

/// (file name, theme, width, height, script) of every screenshot.
pub(crate) fn screenshot_plan(obs_with_code: i64) -> Vec<(String, &'static str, u16, u16, String)> {
    let code = format!(": '{obs_with_code} enter enter");
    vec![
        ("01-index".into(), "default", 140, 40, "j j j".into()),
        (
            "02-timeline".into(),
            "default",
            140,
            40,
            "j j j enter".into(),
        ),
        (
            "03-detail".into(),
            "default",
            140,
            40,
            "j j j enter enter".into(),
        ),
        (
            "04-raw-io-highlighted".into(),
            "default",
            140,
            40,
            code.clone(),
        ),
        ("05-work-state".into(), "default", 140, 40, "w".into()),
        ("06-agent-view".into(), "default", 140, 40, "a".into()),
        ("07-help".into(), "default", 140, 40, "?".into()),
        (
            "08-search".into(),
            "default",
            140,
            40,
            "s 'deadlock enter".into(),
        ),
        (
            "09-fuzzy-filter".into(),
            "default",
            140,
            40,
            "/ 'refresh".into(),
        ),
        ("10-projects".into(), "default", 140, 40, "p".into()),
        ("11-theme-light".into(), "light", 140, 40, "j j j".into()),
        (
            "12-theme-catppuccin-raw".into(),
            "catppuccin-mocha",
            140,
            40,
            code,
        ),
        (
            "13-theme-high-contrast-80x24".into(),
            "high-contrast",
            80,
            24,
            "j j enter".into(),
        ),
        (
            "14-scrub-confirm".into(),
            "default",
            140,
            40,
            "x 'verify_signature enter".into(),
        ),
    ]
}

/// Builds the demo data set in a temp dir at the pinned instant and writes one SVG per
/// screenshot into `out`.
pub(crate) fn screenshots(out: &Path) -> Result<Vec<std::path::PathBuf>> {
    let tmp = std::env::temp_dir().join(format!("cmem-shots-{}", std::process::id()));
    let db = crate::demo::ensure(&tmp, DEMO_NOW_MS, true)?;
    std::fs::create_dir_all(out)?;
    let probe = Harness::open(&db, crate::demo::PROJECT, "default", (80, 24), DEMO_NOW_MS)?;
    let (_, obs) = probe.demo_code_tool_use()?;
    let mut written = Vec::new();
    for (name, theme, w, h, script) in screenshot_plan(obs) {
        let mut h = Harness::open(&db, crate::demo::PROJECT, theme, (w, h), DEMO_NOW_MS)?;
        h.script(&script)?;
        let bg_style = h.app.theme.get("ui.background");
        let fg = bg_style
            .fg
            .map(|c| super::svg::hex(c, "#c0caf5"))
            .unwrap_or_else(|| "#c0caf5".into());
        let bg = bg_style
            .bg
            .map(|c| super::svg::hex(c, "#1a1b26"))
            .unwrap_or_else(|| "#1a1b26".into());
        let svg = super::svg::render(h.draw(), &fg, &bg);
        let path = out.join(format!("{name}.svg"));
        std::fs::write(&path, svg)?;
        written.push(path);
    }
    let _ = std::fs::remove_dir_all(&tmp);
    Ok(written)
}
