//! Layer 1: the memory index injected at session start (claude-mem's layout; README "What the
//! agent sees at session start").
//!
//! One row per observation (`ID TIME SYMBOL TITLE`), `S<id>` rows for summaries, grouped by
//! day, oldest first, between a header that explains the format and a footer that says what
//! the memory is worth. Rendering takes the selection limits as options so the budget can
//! re-render with fewer items.

use super::doc::{Block, BlockKind, Doc, Line, Role};
use super::since::Marks;
use super::time::{Days, Tz, thousands};
use crate::model::mode::Mode;
use crate::model::since::{CHANGED_SYMBOL, Since};
use crate::model::{ObsType, Observation, SESSION_SYMBOL, Summary};
use crate::text::{clip, one_line};

/// A title never takes more than this in a row, so one row always fits the budget.
pub const MAX_TITLE: usize = 300;
/// Widest summary row of the index (terminal columns), as wide as the observer's titles.
const MAX_ROW_COLUMNS: usize = 100;
const MAX_PROJECT: usize = 100;

/// The knobs of the index: the `[context]` settings (`observations`, `sessions`, `full_count`,
/// `full_field`, the `show_*` switches), then reduced by the budget. One struct for both, so a
/// setting cannot be added to one and forgotten in the other.
pub use crate::config::ContextSettings as IndexOptions;

/// Whether the index shows any of the token economics.
fn economics(o: &IndexOptions) -> bool {
    o.show_read_tokens || o.show_work_tokens || o.show_savings_amount || o.show_savings_percent
}

/// What the index is made of: the newest observations and summaries, newest first. Pass one
/// summary more than `sessions`: the extra one only dates the oldest shown.
pub struct IndexInput<'a> {
    pub project: &'a str,
    pub now_ms: i64,
    pub tz: &'a Tz,
    pub observations: &'a [Observation],
    pub summaries: &'a [Summary],
    /// The active mode: the `Mode:` line, the legend and the row symbols.
    pub mode: &'a Mode,
    /// What `[context] types`/`concepts` keep, when set: said in the header, so the agent
    /// knows the list is partial.
    pub filter: Option<&'a str>,
    /// What happened since, for the observations (`since::look`).
    pub marks: &'a Marks,
}

/// Estimated tokens to read an observation (see `Observation::read_tokens`).
pub fn read_tokens(o: &Observation) -> i64 {
    o.read_tokens()
}

/// Token economics of a set of observations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Economics {
    pub count: usize,
    pub read: i64,
    pub work: i64,
}

impl Economics {
    pub(crate) fn of(obs: &[Observation]) -> Economics {
        Economics {
            count: obs.len(),
            read: obs.iter().map(read_tokens).sum(),
            work: obs.iter().map(|o| o.discovery_tokens.max(0)).sum(),
        }
    }

    pub(crate) fn savings(&self) -> i64 {
        self.work - self.read
    }

    pub(crate) fn savings_percent(&self) -> i64 {
        if self.work > 0 {
            ((self.savings() as f64 / self.work as f64) * 100.0).round() as i64
        } else {
            0
        }
    }
}

fn title_of(o: &Observation) -> String {
    let t = o.title.as_deref().map(one_line).unwrap_or_default();
    clip(if t.is_empty() { "Untitled" } else { &t }, MAX_TITLE)
}

fn header(project: &str, input: &IndexInput) -> Block {
    let mut block = Block::new(BlockKind::Header)
        .line(Line::new().push(
            format!(
                "[{}] recent context, {}",
                clip(&one_line(project), MAX_PROJECT),
                input.tz.header(input.now_ms)
            ),
            Role::Heading(1),
        ))
        .line(Line::new().push("Mode: ", Role::Label).push(
            format!("{} ({})", input.mode.name, input.mode.id),
            Role::Text,
        ));
    if let Some(f) = input.filter {
        block = block.line(
            Line::new()
                .push("Showing only: ", Role::Label)
                .push(f, Role::Text),
        );
    }
    block.line(Line::blank())
}

/// `Legend: ◎session ❯prompt ●bugfix …`: every symbol a row can start its title with.
pub fn legend_line(mode: &Mode) -> Line {
    let mut legend = Line::new()
        .push("Legend: ", Role::Label)
        .push(SESSION_SYMBOL.to_string(), Role::TypeSymbol(None))
        .push("session", Role::Text)
        .push(" ", Role::Text)
        .push(super::timeline::PROMPT_SYMBOL.to_string(), Role::Muted)
        .push("prompt", Role::Text);
    for t in &mode.types {
        legend = legend
            .push(" ", Role::Text)
            .push(
                t.symbol.to_string(),
                Role::TypeSymbol(ObsType::parse(&t.id)),
            )
            .push(t.id.clone(), Role::Text);
    }
    legend
}

/// The legend, naming the changed-file mark only when a shown row carries it.
fn legend(mode: &Mode, changed: bool) -> Block {
    let mut line = legend_line(mode);
    if changed {
        line = line
            .push(" ", Role::Text)
            .push(CHANGED_SYMBOL.to_string(), Role::Warning)
            .push("file-changed", Role::Text);
    }
    Block::new(BlockKind::Header)
        .line(line)
        .line(
            Line::new()
                .push("Format: ", Role::Label)
                .push("ID TIME TYPE TITLE", Role::Text),
        )
        .line(fetch_line())
        .line(Line::blank())
}

fn stats(e: &Economics, o: &IndexOptions) -> Option<Block> {
    if !economics(o) {
        return None;
    }
    let mut parts = vec![format!(
        "{} obs ({}t read)",
        thousands(e.count as i64),
        thousands(e.read)
    )];
    parts.push(format!("{}t work", thousands(e.work)));
    if e.work > 0 {
        if o.show_savings_percent {
            parts.push(format!("{}% savings", e.savings_percent()));
        } else if o.show_savings_amount {
            parts.push(format!("{}t saved", thousands(e.savings())));
        }
    }
    Some(
        Block::new(BlockKind::Header)
            .line(
                Line::new()
                    .push("Stats: ", Role::Label)
                    .push(parts.join(" | "), Role::Number),
            )
            .line(Line::blank()),
    )
}

fn footer(e: &Economics, o: &IndexOptions) -> Option<Block> {
    if !economics(o) || e.work <= 0 || e.savings() <= 0 {
        return None;
    }
    let k = ((e.work as f64) / 1000.0).round() as i64;
    Some(
        Block::new(BlockKind::Footer).line(Line::blank()).line(
            Line::new()
                .push(
                    format!("Access {}k tokens of past work via ", thousands(k)),
                    Role::Muted,
                )
                .push("get_observations([IDs])", Role::Code)
                .push(" or ", Role::Muted)
                .push("mem_search", Role::Code)
                .push(".", Role::Muted),
        ),
    )
}

/// Timeline entries: observations at their time, summaries where their session began.
enum Item<'a> {
    Obs(&'a Observation, bool),
    Sum(&'a Summary),
}

impl Item<'_> {
    fn sort_key(&self, placed: i64) -> (i64, u8, i64) {
        match self {
            Item::Sum(s) => (placed, 0, s.id),
            Item::Obs(o, _) => (placed, 1, o.id),
        }
    }
}

fn token_suffix(o: &Observation, opts: &IndexOptions, mode: &Mode) -> String {
    let mut out = String::new();
    if opts.show_read_tokens {
        out.push_str(&format!("~{}t", thousands(read_tokens(o))));
    }
    if opts.show_work_tokens && o.discovery_tokens > 0 {
        if !out.is_empty() {
            out.push(' ');
        }
        let sym = mode.work_symbol(&o.obs_type);
        out.push_str(&format!("{sym} {}", thousands(o.discovery_tokens)));
    }
    out
}

fn observation_block(
    o: &Observation,
    time: &str,
    full: bool,
    opts: &IndexOptions,
    mode: &Mode,
    since: Option<&Since>,
) -> Block {
    let t = ObsType::parse(&o.obs_type);
    let symbol = mode.symbol(&o.obs_type).to_string();
    let tokens = token_suffix(o, opts, mode);
    let mark = since.map(|s| s.row_suffix(false)).unwrap_or_default();
    if !full {
        let mut line = Line::new()
            .push(o.id.to_string(), Role::Id)
            .push(" ", Role::Text)
            .push(time, Role::Time)
            .push(" ", Role::Text)
            .push(symbol, Role::TypeSymbol(t))
            .push(" ", Role::Text)
            .push(title_of(o), Role::Title);
        if !mark.is_empty() {
            line = line.push(mark, Role::Warning);
        }
        if !tokens.is_empty() {
            line = line.push(format!(" {tokens}"), Role::Muted);
        }
        return Block::new(BlockKind::Observation(o.id)).line(line);
    }
    let mut head = Line::new()
        .push(o.id.to_string(), Role::Strong)
        .push(format!(" {time} "), Role::Time)
        .push(symbol, Role::TypeSymbol(t))
        .push(" ", Role::Text)
        .push(title_of(o), Role::Strong);
    if !mark.is_empty() {
        head = head.push(mark, Role::Warning);
    }
    let mut block = Block::new(BlockKind::FullObservation(o.id)).line(head);
    let body: Vec<String> = match opts.full_field.as_str() {
        "facts" => o.facts.iter().map(|f| one_line(f)).collect(),
        _ => o
            .narrative
            .as_deref()
            .map(|n| n.lines().map(String::from).collect())
            .unwrap_or_default(),
    };
    for l in body {
        block.lines.push(Line::text(l));
    }
    if !tokens.is_empty() {
        block.lines.push(Line::new().push(tokens, Role::Muted));
    }
    block.lines.push(Line::blank());
    block
}

fn summary_block(s: &Summary, tz: &Tz) -> Block {
    let request = s.request.as_deref().map(one_line).unwrap_or_default();
    let request = if request.is_empty() {
        "Session started".to_string()
    } else {
        // A row the agent can scan, like an observation's title; the request is whole in
        // the summary's details.
        crate::text::clip_columns(&request, MAX_ROW_COLUMNS)
    };
    Block::new(BlockKind::Summary(s.id)).line(
        Line::new()
            .push(format!("S{}", s.id), Role::Id)
            .push(" ", Role::Text)
            .push(request, Role::Title)
            .push(
                format!(" ({})", tz.month_day_time(s.created_at)),
                Role::Muted,
            ),
    )
}

/// Longest last message shown as **Previously** (characters).
const MAX_PREVIOUSLY: usize = 1200;

/// The newest turn's last assistant message, as the reference's **Previously** section: the
/// assistant's own statement of what was done and what is next.
fn previously(s: &Summary) -> Option<String> {
    let m = s.notes.as_deref()?.trim();
    (!m.is_empty()).then(|| clip(m, MAX_PREVIOUSLY))
}

fn previously_block(s: &Summary, message: &str) -> Block {
    let mut block = Block::new(BlockKind::LastSummary(s.id))
        .line(Line::new().push("Previously", Role::Strong))
        .line(Line::blank());
    for (i, l) in message.lines().enumerate() {
        let l = l.trim_end();
        block.lines.push(if i == 0 {
            Line::text(format!("A: {l}"))
        } else {
            Line::text(l)
        });
    }
    block.lines.push(Line::blank());
    block
}

/// The newest summary's fields, leaving out any that the shown last `message` or one of the
/// listed observations' `titles` already says (a summary made of them would only repeat it).
fn last_summary_block(s: &Summary, message: Option<&str>, titles: &[&str]) -> Option<Block> {
    let fields = [
        ("Investigated", &s.investigated),
        ("Learned", &s.learned),
        ("Completed", &s.completed),
        ("Next Steps", &s.next_steps),
    ];
    let present: Vec<(&str, &str)> = fields
        .iter()
        .filter_map(|(label, v)| {
            v.as_deref()
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .filter(|t| !said_already(t, message, titles))
                .map(|t| (*label, t))
        })
        .collect();
    if present.is_empty() {
        return None;
    }
    let mut block = Block::new(BlockKind::LastSummary(s.id));
    for (label, value) in present {
        block.lines.push(
            Line::new()
                .push(label, Role::Strong)
                .push(format!(": {value}"), Role::Text),
        );
        block.lines.push(Line::blank());
    }
    Some(block)
}

/// Whether every part of a summary field (parts joined by `; `, as a list of titles is) is
/// said by the shown last message or one of the listed titles.
fn said_already(field: &str, message: Option<&str>, titles: &[&str]) -> bool {
    field.split("; ").all(|part| {
        message.is_some_and(|m| said_in(m, part)) || titles.iter().any(|t| said_in(t, part))
    })
}

/// Whether `field` says nothing the `message` does not (compared on one line, without a final
/// full stop), as whole words: `timeout is 30` is not said by `timeout is 300`.
fn said_in(message: &str, field: &str) -> bool {
    let norm = |s: &str| one_line(s).trim_end_matches(['.', ' ']).to_string();
    let (message, field) = (norm(message), norm(field));
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    !field.is_empty()
        && message.match_indices(&field).any(|(at, _)| {
            let before = message[..at].chars().next_back();
            let after = message[at + field.len()..].chars().next();
            let cuts_a_word = word(before) && word(field.chars().next())
                || word(after) && word(field.chars().next_back());
            !cuts_a_word
        })
}

/// Renders the index for these options. Empty memory gives the empty-project text.
pub(crate) fn render(input: &IndexInput, opts: &IndexOptions) -> Doc {
    let mut doc = Doc::default();
    let obs = &input.observations[..opts.observations.min(input.observations.len())];
    let shown_sums = opts.sessions.min(input.summaries.len());
    doc.push(header(input.project, input));
    if obs.is_empty() && shown_sums == 0 {
        doc.push(Block::new(BlockKind::Other).line(Line::text(
            "No memory of this project yet: cmem is recording this session, and what it learns shows up here next time.",
        )));
        return doc;
    }
    doc.push(legend(
        input.mode,
        input.marks.any_changed(obs.iter().map(|o| o.id)),
    ));
    let econ = Economics::of(obs);
    if let Some(b) = stats(&econ, opts) {
        doc.push(b);
    }

    let mut items: Vec<(i64, Item)> = obs
        .iter()
        .enumerate()
        .map(|(i, o)| (o.created_at, Item::Obs(o, i < opts.full_count)))
        .collect();
    for i in 0..shown_sums {
        let s = &input.summaries[i];
        // The newest summary sits at its own time; older ones where their session began,
        // i.e. at the time of the summary before them (as claude-mem places them).
        let placed = match (i, input.summaries.get(i + 1)) {
            (0, _) | (_, None) => s.created_at,
            (_, Some(older)) => older.created_at,
        };
        items.push((placed, Item::Sum(s)));
    }
    items.sort_by_key(|(placed, item)| item.sort_key(*placed));

    let mut days = Days::default();
    let mut last_time: Option<String> = None;
    for (placed, item) in &items {
        if let Some(day) = days.heading(input.tz, *placed) {
            if day.follows {
                doc.push(Block::new(BlockKind::DayHeading).line(Line::blank()));
            }
            doc.push(Block::new(BlockKind::DayHeading).line(day.line));
            last_time = None;
        }
        match item {
            Item::Sum(s) => doc.push(summary_block(s, input.tz)),
            Item::Obs(o, full) => {
                let time = input.tz.row(o.created_at);
                let shown = if last_time.as_deref() == Some(time.as_str()) {
                    "\"".to_string()
                } else {
                    time.clone()
                };
                last_time = Some(time);
                let since = input.marks.of(o.id);
                doc.push(observation_block(o, &shown, *full, opts, input.mode, since));
            }
        }
    }

    if opts.show_last_summary
        && let Some(newest) = input.summaries.first()
    {
        let titles: Vec<&str> = obs.iter().filter_map(|o| o.title.as_deref()).collect();
        // A short answer is often the title of its own observation already: said once.
        let message = opts
            .show_last_message
            .then(|| previously(newest))
            .flatten()
            .filter(|m| !titles.iter().any(|t| said_in(t, m)));
        if obs.first().is_none_or(|o| newest.created_at > o.created_at)
            && let Some(block) = last_summary_block(newest, message.as_deref(), &titles)
        {
            doc.push(block);
        }
        if let Some(m) = &message {
            doc.push(previously_block(newest, m));
        }
    }
    if let Some(b) = footer(&econ, opts) {
        doc.push(b);
    }
    doc
}

/// `Fetch details: get_observations([IDs]) | Search: mem_search`, the way to the next layer.
pub(crate) fn fetch_line() -> Line {
    Line::new()
        .push("Fetch details: ", Role::Label)
        .push("get_observations([IDs])", Role::Code)
        .push(" | ", Role::Muted)
        .push("Search: ", Role::Label)
        .push("mem_search", Role::Code)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{ObservationBody, SummaryBody};

    fn observation(id: i64, title: &str) -> Observation {
        Observation {
            id,
            project: "p".into(),
            body: ObservationBody {
                obs_type: "discovery".into(),
                title: Some(title.into()),
                ..Default::default()
            },
            facts_json: "[]".into(),
            prompt_number: None,
            discovery_tokens: 0,
            created_at: 1_000,
            session_id: Some(1),
            source: "rules".into(),
            host: None,
        }
    }

    fn summary(notes: &str) -> Summary {
        Summary {
            id: 1,
            project: "p".into(),
            body: SummaryBody {
                notes: Some(notes.into()),
                ..Default::default()
            },
            prompt_number: None,
            discovery_tokens: 0,
            created_at: 2_000,
            session_id: Some(1),
        }
    }

    fn rendered(titles: &[&str], notes: &str) -> String {
        let obs: Vec<Observation> = titles
            .iter()
            .enumerate()
            .map(|(i, t)| observation(i as i64 + 1, t))
            .collect();
        let sums = [summary(notes)];
        let mode = crate::model::mode::code();
        let tz = Tz::utc();
        let input = IndexInput {
            project: "p",
            now_ms: 3_000,
            tz: &tz,
            observations: &obs,
            summaries: &sums,
            mode: &mode,
            filter: None,
            marks: &Marks::none(),
        };
        render(&input, &IndexOptions::default()).to_plain()
    }

    #[test]
    fn the_last_message_is_said_once_and_never_lost() {
        let message = "The pool now holds 30.";
        let once = rendered(&["The pool now holds 30 connections"], message);
        assert!(!once.contains("Previously"), "{once}");
        assert_eq!(once.matches("The pool now holds 30").count(), 1);
        // A row that says another number (300, not 30) does not say the message.
        let other = rendered(&["The pool now holds 300 connections"], message);
        assert!(
            other.contains("Previously") && other.contains(&format!("A: {message}")),
            "{other}"
        );
    }

    #[test]
    fn a_list_of_titles_is_said_when_every_title_is_shown() {
        let titles = [
            "Fixed parse_duration in src/time.rs; time:: passes",
            "Set TTL to 60",
        ];
        let completed = "Fixed parse_duration in src/time.rs; time:: passes; Set TTL to 60.";
        assert!(said_already(completed, None, &titles));
        assert!(!said_already(completed, None, &titles[..1]));
        assert!(said_already(
            completed,
            Some("Set TTL to 60 as asked."),
            &titles[..1]
        ));
    }

    #[test]
    fn said_in_compares_whole_words() {
        assert!(said_in("Fixed it: timeout is 30.", "timeout is 30"));
        assert!(!said_in("timeout is 300", "timeout is 30"));
        assert!(!said_in("a retimeout is 30", "timeout is 30"));
        assert!(said_in("see `a.rs` (x)", "`a.rs`"));
        assert!(!said_in("anything", ""));
    }
}
