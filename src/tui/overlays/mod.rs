//! What opens over the layers and takes the keys while it is open: the help screen, the
//! project switcher, a yes/no question, and (in the status line) the one-line inputs.

pub mod confirm;
pub mod help;
pub mod input;
pub mod projects;

use ratatui::Frame;
use ratatui::layout::Rect;

use crate::tui::keymap::Keymap;
use crate::tui::theme::Theme;
use crate::view::time::Tz;
use confirm::Confirm;
use help::Help;
use projects::Projects;

#[derive(Debug, Clone, PartialEq)]
pub enum Overlay {
    Help(Help),
    /// A named field: the switcher is read as the list it shows (`Overlay::Projects { list, .. }`).
    Projects {
        list: Projects,
    },
    Confirm(Confirm),
}

/// What drawing an overlay may need besides the theme.
pub(crate) struct Context<'a> {
    pub theme: &'a Theme,
    pub keymap: &'a Keymap,
    pub tz: &'a Tz,
    /// The project the browser is on.
    pub project: &'a str,
}

impl Overlay {
    /// Draws the overlay over the whole screen `area`.
    pub(crate) fn draw(&self, f: &mut Frame, area: Rect, c: &Context) {
        match self {
            Overlay::Help(h) => h.draw(f, area, c.theme, c.keymap),
            Overlay::Projects { list } => list.draw(f, area, c.theme, c.tz, c.project),
            Overlay::Confirm(q) => q.draw(f, area, c.theme),
        }
    }
}
