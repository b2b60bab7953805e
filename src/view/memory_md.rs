//! The markdown export: a Claude-Code-auto-memory style folder per project. `MEMORY.md` is the
//! index Claude Code loads at session start (it keeps only the first 200 lines / 25 KB, so the
//! index stays inside both), with one line per topic file; the topic files, read on demand,
//! hold the observations of one area of the project (the directory of the files they touch),
//! newest first, and the session summaries.

use std::collections::BTreeMap;

use super::time::Tz;
use crate::model::{Observation, Summary, type_symbol, utf16_len};
use crate::text::{clip, one_line, plural};

/// Claude Code reads at most this much of MEMORY.md.
pub(crate) const INDEX_MAX_LINES: usize = 200;
pub(crate) const INDEX_MAX_BYTES: usize = 25_000;
/// One index line never takes more than this (so one long title cannot crowd out the rest).
const INDEX_LINE_MAX: usize = 240;

/// One file of the folder: its name and content.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct File {
    pub name: String,
    pub text: String,
}

struct Topic {
    area: String,
    file: String,
    observations: Vec<usize>,
    latest: i64,
}

/// The area an observation belongs to: the directory of the first file it touches.
fn area_of(o: &Observation) -> String {
    let file = o.files_modified.first().or_else(|| o.files_read.first());
    match file {
        Some(f) => match f.rsplit_once('/') {
            Some((dir, _)) if !dir.is_empty() => dir.trim_start_matches('/').to_string(),
            _ => "project root".to_string(),
        },
        None => "general".to_string(),
    }
}

/// A file name for a topic: lowercase letters, digits and dashes.
fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    let out = out.trim_end_matches('-').to_string();
    if out.is_empty() { "topic".into() } else { out }
}

/// The project folder name for a project key (`parent/worktree` → `parent-worktree`).
pub(crate) fn folder_name(project: &str) -> String {
    slug(project)
}

fn observation_section(o: &Observation, tz: &Tz) -> String {
    let mut s = format!(
        "## #{} {} {}\n\n{} · {}",
        o.id,
        type_symbol(&o.obs_type),
        one_line(o.title.as_deref().unwrap_or("Untitled")),
        tz.day(o.created_at),
        o.obs_type
    );
    if !o.files_modified.is_empty() {
        s.push_str(&format!(" · changed {}", o.files_modified.join(", ")));
    }
    if !o.files_read.is_empty() {
        s.push_str(&format!(" · read {}", o.files_read.join(", ")));
    }
    s.push('\n');
    if let Some(sub) = o.subtitle.as_deref().filter(|x| !x.trim().is_empty()) {
        s.push_str(&format!("\n{}\n", one_line(sub)));
    }
    if !o.facts.is_empty() {
        s.push('\n');
        for f in &o.facts {
            s.push_str(&format!("- {}\n", one_line(f)));
        }
    }
    if let Some(n) = o.narrative.as_deref().filter(|x| !x.trim().is_empty()) {
        s.push_str(&format!("\n{}\n", n.trim()));
    }
    s
}

fn frontmatter(name: &str, description: &str) -> String {
    format!(
        "---\nname: {}\ndescription: {}\ntype: project\n---\n\n",
        one_line(name),
        clip(&one_line(description), 300)
    )
}

fn summary_section(s: &Summary, tz: &Tz) -> String {
    let mut out = format!(
        "## S{} {}\n\n{}\n",
        s.id,
        clip(&one_line(s.request.as_deref().unwrap_or("Session")), 160),
        tz.month_day_time(s.created_at)
    );
    for (label, value) in [
        ("Investigated", &s.investigated),
        ("Learned", &s.learned),
        ("Completed", &s.completed),
        ("Next steps", &s.next_steps),
    ] {
        if let Some(v) = value.as_deref().filter(|v| !v.trim().is_empty()) {
            out.push_str(&format!("\n**{label}**: {}\n", one_line(v)));
        }
    }
    out
}

/// Renders the folder of one project. `observations` and `summaries` are newest first.
pub(crate) fn render(
    project: &str,
    observations: &[Observation],
    summaries: &[Summary],
    tz: &Tz,
) -> Vec<File> {
    render_with(project, observations, summaries, tz, &Layout::default())
}

/// How the folder is laid out: what the topic files are called and how much of MEMORY.md the
/// index may take (less than all of it when it shares the file with other text).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Layout {
    /// Put before every topic file's name (`cmem-`), so cmem's files never collide with others.
    pub prefix: String,
    pub max_lines: usize,
    pub max_bytes: usize,
}

impl Default for Layout {
    fn default() -> Self {
        Layout {
            prefix: String::new(),
            max_lines: INDEX_MAX_LINES,
            max_bytes: INDEX_MAX_BYTES,
        }
    }
}

pub(crate) fn render_with(
    project: &str,
    observations: &[Observation],
    summaries: &[Summary],
    tz: &Tz,
    layout: &Layout,
) -> Vec<File> {
    let sessions_file = format!("{}sessions.md", layout.prefix);
    let mut topics: BTreeMap<String, Topic> = BTreeMap::new();
    for (i, o) in observations.iter().enumerate() {
        let area = area_of(o);
        let t = topics.entry(area.clone()).or_insert_with(|| Topic {
            file: format!("{}{}.md", layout.prefix, slug(&area)),
            area,
            observations: Vec::new(),
            latest: i64::MIN,
        });
        t.observations.push(i);
        t.latest = t.latest.max(o.created_at);
    }
    // Two areas could share a slug (`src/a-b` and `src/a/b`): number the later ones.
    let mut used: Vec<String> = vec![format!("{}memory.md", layout.prefix), sessions_file.clone()];
    for t in topics.values_mut() {
        let mut name = t.file.clone();
        let mut n = 2;
        while used.contains(&name) {
            name = format!("{}-{n}.md", t.file.trim_end_matches(".md"));
            n += 1;
        }
        used.push(name.clone());
        t.file = name;
    }
    let mut ordered: Vec<&Topic> = topics.values().collect();
    ordered.sort_by_key(|t| std::cmp::Reverse((t.latest, t.observations.len())));

    let mut files = Vec::new();
    let mut index_lines: Vec<String> = Vec::new();
    for t in &ordered {
        let newest = &observations[t.observations[0]];
        let newest_title = one_line(newest.title.as_deref().unwrap_or("Untitled"));
        let description = format!(
            "{} observation{} about {}; latest {}: {}",
            t.observations.len(),
            if t.observations.len() == 1 { "" } else { "s" },
            t.area,
            tz.day(t.latest),
            newest_title
        );
        let mut text = frontmatter(&t.area, &description);
        text.push_str(&format!("# {}\n", t.area));
        for &i in &t.observations {
            text.push('\n');
            text.push_str(&observation_section(&observations[i], tz));
        }
        files.push(File {
            name: t.file.clone(),
            text,
        });
        index_lines.push(clip(
            &format!(
                "- [{}]({}) — {} observation{}, latest {}: {}",
                t.area,
                t.file,
                t.observations.len(),
                if t.observations.len() == 1 { "" } else { "s" },
                tz.day(t.latest),
                newest_title
            ),
            INDEX_LINE_MAX,
        ));
    }
    if !summaries.is_empty() {
        let latest = one_line(summaries[0].request.as_deref().unwrap_or("Session"));
        let mut text = frontmatter(
            "sessions",
            &format!(
                "{} session summaries, newest first; latest: {latest}",
                summaries.len()
            ),
        );
        text.push_str("# Sessions\n");
        for s in summaries {
            text.push('\n');
            text.push_str(&summary_section(s, tz));
        }
        files.push(File {
            name: sessions_file.clone(),
            text,
        });
        index_lines.insert(
            0,
            clip(
                &format!(
                    "- [Sessions]({sessions_file}) — {} summaries of what was asked and done, latest {}: {latest}",
                    summaries.len(),
                    tz.day(summaries[0].created_at)
                ),
                INDEX_LINE_MAX,
            ),
        );
    }
    let head = format!(
        "# {project} — memory exported by cmem\n\nOne line per topic file in this folder; read a topic file when its line matters for the task. {}, {}.\n\n",
        plural(observations.len(), "observation", "observations"),
        plural(summaries.len(), "session summary", "session summaries")
    );
    files.insert(
        0,
        File {
            name: "MEMORY.md".into(),
            text: fit_index(&head, &index_lines, layout),
        },
    );
    files
}

/// The index: the head, then as many topic lines as fit in 200 lines and 25 KB, then a line
/// saying how many topics were left out.
fn fit_index(head: &str, lines: &[String], layout: &Layout) -> String {
    let fits =
        |text: &str| text.lines().count() <= layout.max_lines && text.len() <= layout.max_bytes;
    let mut out = head.to_string();
    for (i, line) in lines.iter().enumerate() {
        let rest = lines.len() - i - 1;
        let more = if rest > 0 {
            format!("- …and {rest} more topic files in this folder (not listed here)\n")
        } else {
            String::new()
        };
        let candidate = format!("{out}{line}\n");
        if !fits(&format!("{candidate}{more}")) {
            let left = lines.len() - i;
            out.push_str(&format!(
                "- …and {left} more topic files in this folder (not listed here)\n"
            ));
            return out;
        }
        out = candidate;
    }
    debug_assert!(utf16_len(&out) > 0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_and_slugs() {
        assert_eq!(slug("src/store"), "src-store");
        assert_eq!(slug("project root"), "project-root");
        assert_eq!(slug("é/é"), "topic");
        assert_eq!(folder_name("cmem/wt-issue-5"), "cmem-wt-issue-5");
    }

    #[test]
    fn the_index_stops_at_its_limits_and_says_so() {
        let lines: Vec<String> = (0..500)
            .map(|i| format!("- [area {i}](a{i}.md) — x"))
            .collect();
        let text = fit_index("# head\n\n", &lines, &Layout::default());
        assert!(text.lines().count() <= INDEX_MAX_LINES);
        assert!(
            text.ends_with("more topic files in this folder (not listed here)\n"),
            "{text}"
        );
        let long: Vec<String> = (0..50)
            .map(|i| format!("- {i} {}", "x".repeat(900)))
            .collect();
        let text = fit_index("# head\n\n", &long, &Layout::default());
        assert!(text.len() <= INDEX_MAX_BYTES);
    }
}
