//! The agent's-eye view: the plain text an agent gets for the layer under it — on the index
//! the session-start text with its length against the budget and what the budget dropped
//! (the meter above the text), elsewhere the reply of the MCP tool an agent calls for it.

use anyhow::Result;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use rusqlite::Connection;
use unicode_width::UnicodeWidthStr;

use super::page::{ContextText, Reply};
use super::{AgentView, Behaviour, Ctx};
use crate::tui::keymap::Action;
use crate::tui::theme::Theme;
use crate::view::{self, time::thousands};

#[derive(Debug, Clone, PartialEq)]
pub struct Agent {
    /// The session-start text of these projects, labelled as the hook labels it; `None`
    /// when the view shows a text it was given.
    pub session_start: Option<(String, Vec<String>)>,
    /// The text shown, with its length and (for the session-start text) budget.
    pub context: Option<ContextText>,
}

impl Agent {
    /// The session-start text the hook would inject for `keys` (loaded by the worker).
    pub(crate) fn session_start(label: String, keys: Vec<String>) -> Agent {
        Agent {
            session_start: Some((label, keys)),
            context: None,
        }
    }

    /// A text already at hand (a layer's agent text), measured.
    pub(crate) fn text(text: String) -> ContextText {
        ContextText {
            chars: crate::model::utf16_len(&text),
            limit: 0,
            steps: Vec::new(),
            text,
        }
    }
}

impl Behaviour for Agent {
    fn name(&self) -> &'static str {
        "Agent view"
    }

    fn title(&self) -> String {
        self.name().to_string()
    }

    fn load(&self, conn: &Connection, ctx: &Ctx) -> Result<Reply> {
        let Some((label, keys)) = &self.session_start else {
            let text = self.context.as_ref().map(|c| c.text.clone());
            return Ok(Reply::Context(Agent::text(text.unwrap_or_default())));
        };
        let s = view::context::load(conn, label, keys, &ctx.context, ctx.now_ms, false)?;
        Ok(Reply::Context(ContextText {
            chars: s.chars(),
            limit: s.limit,
            steps: s.steps.iter().map(|s| s.describe()).collect(),
            text: s.text,
        }))
    }

    fn leaving_action(&self) -> Option<Action> {
        Some(Action::Agent)
    }

    fn agent_view(&self) -> AgentView {
        AgentView::Leave
    }

    fn take_context(&mut self, context: ContextText) {
        self.context = Some(context);
    }

    fn banner_height(&self) -> u16 {
        match &self.context {
            Some(c) if c.limit > 0 => 2 + c.steps.len().max(1) as u16,
            Some(_) => 2,
            None => 0,
        }
    }

    /// The budget meter: the text's length against the budget, and what the budget dropped.
    fn draw_banner(&self, f: &mut Frame, area: Rect, theme: &Theme) {
        let Some(c) = &self.context else { return };
        let mut lines = Vec::new();
        if c.limit > 0 {
            let ratio = c.chars as f64 / c.limit as f64;
            let style = if ratio > 1.0 {
                theme.get("ui.meter.over")
            } else if ratio > 0.85 {
                theme.get("ui.meter.warn")
            } else {
                theme.get("ui.meter.ok")
            };
            let label = format!(
                " {} / {} characters ({}%)",
                thousands(c.chars as i64),
                thousands(c.limit as i64),
                (ratio * 100.0).round()
            );
            let bar_w = (area.width as usize)
                .saturating_sub(label.width() + 2)
                .clamp(4, 40);
            let filled = ((ratio.min(1.0)) * bar_w as f64).round() as usize;
            lines.push(Line::from(vec![
                Span::styled("▕", theme.get("ui.muted")),
                Span::styled("█".repeat(filled), style),
                Span::styled("░".repeat(bar_w - filled), theme.get("ui.muted")),
                Span::styled("▏", theme.get("ui.muted")),
                Span::styled(label, style.add_modifier(Modifier::BOLD)),
            ]));
            if c.steps.is_empty() {
                lines.push(Line::styled(
                    "Budget: everything fits, nothing dropped",
                    theme.get("ui.muted"),
                ));
            } else {
                for s in &c.steps {
                    lines.push(Line::from(vec![
                        Span::styled("Budget: ", theme.get("memory.label")),
                        Span::styled(s.clone(), theme.get("memory.warning")),
                    ]));
                }
            }
        } else {
            lines.push(Line::from(vec![
                Span::styled(
                    format!("{} characters", thousands(c.chars as i64)),
                    theme.get("ui.meter.ok"),
                ),
                Span::styled(
                    " · the plain text an agent gets for this layer",
                    theme.get("ui.muted"),
                ),
            ]));
        }
        lines.push(Line::styled(
            "─".repeat(area.width as usize),
            theme.get("ui.border"),
        ));
        f.render_widget(Paragraph::new(lines), area);
    }
}
