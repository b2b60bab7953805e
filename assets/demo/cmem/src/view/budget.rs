//! Keeping the session-start index under the host's character limit.
//!
//! The index is a list of sections, each a list of lines with a priority. While the text is too
//! long, the lowest-priority section that still has something to give loses half of its lines.
//! Every cut is recorded as a `Step`, so `cmem context --json` can say what was left out.

/// The most characters the host accepts in one hook answer.
pub const HOST_LIMIT: usize = 10_000;

/// One section of the index: higher `priority` is cut later; `keep` lines always stay.
#[derive(Debug, Clone)]
pub struct Section {
    pub name: &'static str,
    pub priority: u8,
    pub keep: usize,
    pub lines: Vec<String>,
}

/// One cut the budget made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    Halved {
        section: &'static str,
        from: usize,
        to: usize,
    },
    /// Nothing left to cut and still too long.
    GaveUp { chars: usize },
}

impl Step {
    pub fn describe(&self) -> String {
        match self {
            Step::Halved { section, from, to } => format!("halved {section}: {from} → {to} lines"),
            Step::GaveUp { chars } => format!("still {chars} characters after every cut"),
        }
    }
}

fn render(sections: &[Section]) -> String {
    let mut out = String::new();
    for s in sections.iter().filter(|s| !s.lines.is_empty()) {
        out.push_str(&format!("## {}\n", s.name));
        for line in &s.lines {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Renders `sections`, cutting them until the text is at most `limit` characters.
pub fn fit_index(mut sections: Vec<Section>, limit: usize) -> (String, Vec<Step>) {
    let mut steps = Vec::new();
    loop {
        let text = render(&sections);
        let chars = text.chars().count();
        if chars <= limit {
            return (text, steps);
        }
        let victim = sections
            .iter_mut()
            .filter(|s| s.lines.len() > s.keep)
            .min_by_key(|s| s.priority);
        let Some(s) = victim else {
            steps.push(Step::GaveUp { chars });
            return (text, steps);
        };
        let from = s.lines.len();
        let to = (from / 2).max(s.keep);
        s.lines.truncate(to);
        steps.push(Step::Halved { section: s.name, from, to });
    }
}
