//! The summary of one turn: what was asked, looked at, learned, done, and what is still open.

use std::sync::LazyLock;

use super::ascii::AsciiRegex;
use super::draft::{Draft, code, fit_list, push_unique};
use super::event::{Event, Kind};
use super::outcome::{self, CommandClass};
use crate::model::{ObsType, SummaryBody};
use crate::store::turns::TurnRow;
use crate::text::{clip, one_line};

/// A line that opens the assistant's list of what is left: `Next:`, `Next steps:`, `TODO:`,
/// `Remaining:`, `Follow-up:`, `Still to do:` and the like, plain, bold (`**Next:**`) or as a
/// Markdown heading (`## Next steps`), at the start of a line or of a sentence.
static NEXT_OPENING: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(concat!(
        r"(?i)(?:^|[.!?][ \t]+)[ \t]*(?:[-*+][ \t]+)?(#+[ \t]*)?(\*\*|__)?",
        r"(?:next(?:[ \t]+steps?|[ \t]+up)?|todos?|to[ \t-]?dos?|remaining(?:[ \t]+(?:work|steps|items))?",
        r"|follow[ \t-]?ups?|still[ \t]+to[ \t]+do|what's[ \t]+left|open[ \t]+questions?|left[ \t]+to[ \t]+do)",
        r"[ \t]*(:)?[ \t]*(\*\*|__)?[ \t]*(:)?",
    ))
});

static NEXT_SENTENCE: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(
        r"(?:^|[.!?][ \t\r\n]+)((?i:next(?: step)?,?|as a next step,?|i still need to)[ \t][^.!?\n]+[.!?]?)",
    )
});

/// Where the items of a next-steps opening start on its line, when the line is one: a colon
/// after the word, or a heading or bold word standing alone (`## Next steps`, `**TODO**`).
fn opening(line: &str) -> Option<usize> {
    let (_, at) = NEXT_OPENING.find(line)?;
    let c = NEXT_OPENING.captures(line)?;
    let has = |i: usize| c.get(i).copied().flatten().is_some();
    let colon = has(3) || has(5);
    let rest = line[at..].trim();
    let alone = rest.chars().all(|ch| ch == '*' || ch == '_');
    (colon || ((has(1) || has(2)) && alone)).then_some(at)
}

/// Where on `line` a next-steps opening begins (after the full stop of a sentence before it).
pub(crate) fn next_steps_start(line: &str) -> Option<usize> {
    opening(line)?;
    let (matched, end) = NEXT_OPENING.find(line)?;
    let start = end - matched.len();
    Some(if line[start..].starts_with(['.', '!', '?']) {
        start + 1
    } else {
        start
    })
}

/// The last message's text before a `Next:`/`TODO:`/… opening (those are next steps, told
/// on their own).
pub(crate) fn before_next_steps(message: &str) -> String {
    let mut kept = Vec::new();
    for line in message.lines() {
        if let Some(at) = next_steps_start(line) {
            kept.push(&line[..at]);
            break;
        }
        kept.push(line);
    }
    kept.join("\n")
}

pub(crate) fn list_item(line: &str) -> Option<&str> {
    let t = line.trim();
    let item = t.strip_prefix(['-', '*', '+', '•']).map(str::trim_start);
    let numbered = t
        .split_once(['.', ')'])
        .filter(|(n, r)| {
            !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()) && r.starts_with(' ')
        })
        .map(|(_, r)| r.trim_start());
    item.or(numbered).filter(|i| !i.is_empty())
}

/// The next steps the assistant stated in its last message, if any.
pub(crate) fn stated_next_steps(message: &str) -> Option<String> {
    next_steps_span(message).map(|(stated, _)| stated)
}

/// The next steps the assistant stated, and the bytes of `message` that state them: a
/// `Next steps:` opening through its last item, or a `Next, I will …` sentence.
fn next_steps_span(message: &str) -> Option<(String, std::ops::Range<usize>)> {
    let mut lines: Vec<(usize, &str)> = Vec::new();
    let mut offset = 0;
    for raw in message.split_inclusive('\n') {
        lines.push((offset, raw.trim_end_matches(['\n', '\r'])));
        offset += raw.len();
    }
    if let Some((start, at)) = lines
        .iter()
        .enumerate()
        .find_map(|(i, (_, l))| opening(l).map(|at| (i, at)))
    {
        let inline = lines[start].1[at..].trim().trim_matches(['*', '_']).trim();
        let mut items: Vec<String> = Vec::new();
        if !inline.is_empty() {
            items.push(inline.to_string());
        }
        let mut end = lines[start].0 + lines[start].1.len();
        for &(line_at, l) in &lines[start + 1..] {
            let t = l.trim();
            if t.is_empty() {
                if items.is_empty() {
                    continue;
                }
                break;
            }
            // After an inline item only a list goes on; under a bare opening any line does.
            let item = match list_item(t) {
                Some(i) => i,
                None if inline.is_empty() && !t.starts_with('#') => t,
                None => break,
            };
            items.push(item.to_string());
            end = line_at + l.len();
            if items.len() >= 6 {
                break;
            }
        }
        if !items.is_empty() {
            let begin = lines[start].0 + next_steps_start(lines[start].1).unwrap_or(0);
            return Some((clip(&one_line(&items.join("; ")), 600), begin..end));
        }
    }
    let sentence = NEXT_SENTENCE.captures(message)?.get(1).copied().flatten()?;
    let begin = message.find(sentence)?;
    Some((
        clip(&one_line(sentence), 300),
        begin..begin + sentence.len(),
    ))
}

/// The assistant's last message without the next steps it stated (the summary's next steps
/// hold those), as the summary's notes.
fn said_apart_from(message: &str) -> Option<String> {
    let said = match next_steps_span(message) {
        Some((_, span)) => format!(
            "{}\n\n{}",
            message[..span.start].trim_end(),
            message[span.end..].trim_start()
        ),
        None => message.to_string(),
    };
    let said = said.trim();
    (!said.is_empty()).then(|| clip(said, 600))
}

/// Whether `stated` next steps say nothing the open to-do `items` do not: nearly all of its
/// words (three letters or more, any case) are theirs.
fn restates(stated: &str, items: &[String]) -> bool {
    let words = |t: &str| -> Vec<String> {
        t.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '/'))
            .filter(|w| w.chars().count() >= 3)
            .map(str::to_lowercase)
            .collect()
    };
    let theirs: std::collections::HashSet<String> = items.iter().flat_map(|i| words(i)).collect();
    let mine = words(stated);
    !items.is_empty()
        && !mine.is_empty()
        && mine.iter().filter(|w| theirs.contains(*w)).count() * 5 >= mine.len() * 4
}

/// A decision's subtitle without the request it answers (`request → …`, the summary's own
/// request) and the files it was found in (`(Read …)`, the summary's investigated).
fn what_was_decided<'a>(subtitle: &'a str, prompt: &str) -> &'a str {
    let prompt = one_line(prompt);
    let arrow = " \u{2192} ";
    let rest = subtitle
        .match_indices(arrow)
        .filter(|(at, _)| {
            let head = subtitle[..*at].trim_end_matches('\u{2026}').trim();
            !head.is_empty() && prompt.starts_with(head)
        })
        .last()
        .map_or(subtitle, |(at, _)| &subtitle[at + arrow.len()..]);
    // Only the how the observer put last, not a bracket of the decision's own.
    const HOW: [&str; 7] = [
        "(Read ",
        "(Searched ",
        "(Ran",
        "(Subagent ",
        "(Fetched ",
        "(Listed ",
        "(Found ",
    ];
    match HOW
        .iter()
        .filter_map(|h| rest.rfind(&format!(" {h}")))
        .max()
    {
        Some(at) if rest.ends_with(')') => rest[..at].trim_end(),
        _ => rest,
    }
}

/// The parts that none of `said` (the request, the assistant's words) holds whole.
fn unsaid(parts: Vec<String>, said: &[&str]) -> Vec<String> {
    let core = |p: &str| {
        one_line(p)
            .trim_end_matches(['.', '\u{3002}', ' '])
            .to_string()
    };
    parts
        .into_iter()
        .filter(|p| {
            let p = core(p);
            !p.is_empty() && !said.iter().any(|s| holds_whole(&one_line(s), &p))
        })
        .collect()
}

/// Whether `text` holds `part` as whole words: `timeout is 30` is not in `timeout is 300`,
/// `v2` not in `v21` or `v2.1`. Chinese and Japanese have no spaces between words, so a Han,
/// kana or Hangul neighbour bounds a word (`连接池调到 20` is in `把连接池调到 20。`), as the
/// observer evaluation counts it.
fn holds_whole(text: &str, part: &str) -> bool {
    let word = |c: Option<char>| {
        c.is_some_and(|c| (c.is_alphanumeric() || c == '_') && !crate::text::is_cjk(c))
    };
    text.match_indices(part).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let rest = &text[at + part.len()..];
        let mut after = rest.chars();
        let next = after.next();
        let decimal = matches!(next, Some('.' | '-')) && word(after.next());
        let glued = (word(before) && word(part.chars().next()))
            || (word(part.chars().next_back()) && (word(next) || decimal));
        !glued
    })
}

/// Longest request a summary keeps (columns): what was asked, not the pasted log under it
/// (the prompt itself is stored whole).
const REQUEST_MAX: usize = 160;

/// The request as a summary says it: the prompt on one line, fenced blocks (a pasted stack
/// trace, a config) left out, cut after a clause or a word past `REQUEST_MAX`.
fn request_of(prompt: &str) -> Option<String> {
    let mut in_code = false;
    let mut kept: Vec<&str> = Vec::new();
    for line in prompt.lines() {
        if line.trim_start().starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if !in_code {
            kept.push(line);
        }
    }
    let line = one_line(&kept.join("\n"));
    let line = if line.trim().is_empty() {
        one_line(prompt)
    } else {
        line
    };
    let line = line.trim();
    (!line.is_empty()).then(|| super::draft::clip_words(line, REQUEST_MAX))
}

fn sentence_list(parts: &[String]) -> Option<String> {
    if parts.is_empty() {
        None
    } else {
        let mut s = parts.join("; ");
        if !s.ends_with(super::draft::SENTENCE_ENDS) {
            s.push('.');
        }
        Some(clip(&s, 1200))
    }
}

/// Builds the summary of a turn from its events and the observations made of them.
pub(crate) fn build(
    turn: &TurnRow,
    events: &[Event],
    drafts: &[Draft],
    open_items: &[String],
) -> SummaryBody {
    let mut read: Vec<String> = Vec::new();
    let mut investigated: Vec<String> = Vec::new();
    // Commands that were part of a fix or change are told there, not as looking around.
    let part_of_work = |idx: usize| {
        drafts
            .iter()
            .any(|d| !matches!(d.obs_type, ObsType::Discovery) && d.tools.contains(&idx))
    };
    for e in events {
        if part_of_work(e.idx) && matches!(e.kind, Kind::Shell(_)) {
            continue;
        }
        match &e.kind {
            Kind::Read {
                path, error: None, ..
            } => push_unique(&mut read, path),
            Kind::Search(s) => investigated.push(format!(
                "searched {}{}",
                super::draft::code_raw(&s.pattern),
                s.hits
                    .map(|n| format!(" ({n} {}{})", s.hit_unit, if n == 1 { "" } else { "s" }))
                    .unwrap_or_default()
            )),
            Kind::Shell(sh) if outcome::classify(&sh.command) == CommandClass::Inspect => {
                investigated.push(format!(
                    "ran {}",
                    code(&outcome::show_command(&sh.command, 60), 60)
                ))
            }
            Kind::Fetch { url, .. } => investigated.push(format!("fetched {url}")),
            Kind::WebSearch { query, .. } => {
                investigated.push(format!("searched the web for {}", code(query, 60)))
            }
            Kind::Mcp { server, tool, .. } => investigated.push(format!("called {server}.{tool}")),
            Kind::Agent { description, .. } => investigated.push(format!(
                "asked a subagent to {}",
                clip(&one_line(description), 60)
            )),
            _ => {}
        }
    }
    let mut investigated_parts = Vec::new();
    if !read.is_empty() {
        investigated_parts.push(format!("Read {}", fit_list(&read, 300)));
    }
    let mut seen = Vec::new();
    for i in investigated {
        if !seen.contains(&i) {
            seen.push(i);
        }
    }
    investigated_parts.extend(seen);

    // The observations' titles are in the index beside the summary, so the summary says what
    // they do not: what failed on the way (once), and what was done in the assistant's words.
    // Completed names the changes in project terms and the notes keep the assistant's own
    // words: no field repeats another (issue 29), and the view shows the words as Previously.
    let mut learned = Vec::new();
    let mut completed = Vec::new();
    for d in drafts {
        match d.obs_type {
            ObsType::Bugfix => {
                if let Some(failure) = d.facts.first() {
                    learned.push(failure.clone());
                }
                completed.push(d.title.clone());
            }
            ObsType::Change | ObsType::Feature | ObsType::Refactor => {
                completed.push(d.title.clone())
            }
            ObsType::Decision | ObsType::SecurityNote | ObsType::SecurityAlert
                if !d.subtitle.is_empty() =>
            {
                learned.push(what_was_decided(&d.subtitle, &turn.prompt_text).to_string())
            }
            _ => {}
        }
    }
    let message = turn.last_assistant_message.as_deref().unwrap_or_default();
    let stated = stated_next_steps(message);
    let mut next = Vec::new();
    if !open_items.is_empty() {
        next.push(format!("Open to-dos: {}", fit_list(open_items, 400)));
    }
    // The assistant often says its open to-dos again in words: said once, as the to-dos.
    next.extend(stated.clone().filter(|s| !restates(s, open_items)));
    let mut files_read = Vec::new();
    let mut files_edited = Vec::new();
    for d in drafts {
        for f in &d.files_read {
            push_unique(&mut files_read, f);
        }
        for f in &d.files_modified {
            push_unique(&mut files_edited, f);
        }
    }
    for f in &read {
        push_unique(&mut files_read, f);
    }
    let request = request_of(&turn.prompt_text);
    let notes = said_apart_from(message);
    let said: Vec<&str> = [&request, &notes]
        .into_iter()
        .flatten()
        .map(String::as_str)
        .collect();
    SummaryBody {
        investigated: sentence_list(&unsaid(investigated_parts, &said)),
        learned: sentence_list(&unsaid(learned, &said)),
        completed: sentence_list(&unsaid(completed, &said)),
        next_steps: sentence_list(&next),
        request,
        notes,
        files_read,
        files_edited,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_leaves_pasted_blocks_out_and_stays_short() {
        assert_eq!(
            request_of(
                "线上报错了：\n```\npanic: nil pointer\n```\n堆栈指向service.go:23，帮忙修一下"
            )
            .as_deref(),
            Some("线上报错了：堆栈指向service.go:23，帮忙修一下")
        );
        let long = "连接池耗尽".repeat(100);
        let r = request_of(&long).unwrap();
        assert!(crate::text::columns(&r) <= REQUEST_MAX, "{r}");
        assert_eq!(request_of("  \n "), None);
    }

    #[test]
    fn notes_keep_every_word_but_the_next_steps() {
        let notes = |m: &str| said_apart_from(m);
        assert_eq!(
            notes("Fixed X.\n\nNext steps:\n- deploy\n\nI also updated the README.").as_deref(),
            Some("Fixed X.\n\nI also updated the README.")
        );
        assert_eq!(
            notes("TODO: none.\n\nI fixed the bug in parser.rs by checking the length.").as_deref(),
            Some("I fixed the bug in parser.rs by checking the length.")
        );
        assert_eq!(
            notes("Added tests for the parser.\n\nNext: tests").as_deref(),
            Some("Added tests for the parser.")
        );
        assert_eq!(
            notes("Fixed it.  Next,  I will  run the tests.").as_deref(),
            Some("Fixed it.")
        );
        assert_eq!(notes("Next steps:\n- deploy"), None);
        assert_eq!(
            notes("修好了 𠮷野家 🙂。\n\nNext steps:\n- 部署 🚀\n\n剩下的 𠀀 不变。").as_deref(),
            Some("修好了 𠮷野家 🙂。\n\n剩下的 𠀀 不变。")
        );
        assert_eq!(
            notes("连接池调到 20。下一步：压测").as_deref(),
            Some("连接池调到 20。下一步：压测")
        );
    }

    #[test]
    fn a_decision_loses_only_its_request_and_how_it_was_found() {
        let prompt = "Should the pool grow? Look at both and decide.";
        assert_eq!(
            what_was_decided(
                "Should the pool grow? \u{2192} Kept the pool at 20 (the DB allows 100) (Read src/db.rs)",
                prompt
            ),
            "Kept the pool at 20 (the DB allows 100)"
        );
        assert_eq!(
            what_was_decided("Changed timeout 30 \u{2192} 300", "Keep it?"),
            "Changed timeout 30 \u{2192} 300"
        );
        assert_eq!(
            what_was_decided(
                "map A \u{2192} B please \u{2192} Kept the map",
                "map A \u{2192} B please"
            ),
            "Kept the map"
        );
    }

    #[test]
    fn a_part_is_said_only_in_whole_words() {
        assert!(holds_whole("Set timeout to 30.", "Set timeout to 30"));
        assert!(!holds_whole("Set timeout to 300 ms", "Set timeout to 30"));
        assert!(!holds_whole("Use v21 now", "Use v2"));
        assert!(!holds_whole("TTL is 60.5 s", "TTL is 60"));
        assert!(holds_whole("连接池调到 20。", "连接池调到 20"));
        assert!(holds_whole("先把连接池调到 20。", "连接池调到 20"));
        assert!(holds_whole(
            "把𠮷野家的 POOL_SIZE 调到 20",
            "𠮷野家的 POOL_SIZE"
        ));
        assert!(!holds_whole("把 POOL_SIZES 调到 20", "POOL_SIZE"));
    }

    #[test]
    fn next_steps_that_restate_the_open_to_dos_are_said_once() {
        let items = [
            "Rotate the refresh token on every POST /auth/refresh (todo)".to_string(),
            "Revoke the whole token family when a used token comes back (todo)".to_string(),
        ];
        assert!(restates(
            "rotate the token on every POST /auth/refresh (task 2), then revoke the whole family when a used token comes back (task 3)",
            &items
        ));
        assert!(!restates("update the changelog and tag v2.4.0", &items));
        assert!(!restates("rotate the token", &[]));
    }

    #[test]
    fn finds_stated_next_steps() {
        assert_eq!(
            stated_next_steps("Done.\n\nNext steps:\n- wire the hook\n- add tests\n\nBye")
                .as_deref(),
            Some("wire the hook; add tests")
        );
        assert_eq!(
            stated_next_steps("Fixed it. Next, I will add a regression test for the window.")
                .as_deref(),
            Some("Next, I will add a regression test for the window.")
        );
        assert_eq!(stated_next_steps("All done, nothing else."), None);
        assert_eq!(
            stated_next_steps("Fixed. Next steps:\n- a regression test\n- the changelog")
                .as_deref(),
            Some("a regression test; the changelog")
        );
        assert_eq!(
            stated_next_steps("**Remaining:** docs and the changelog").as_deref(),
            Some("docs and the changelog")
        );
    }

    #[test]
    fn next_steps_open_in_many_ways() {
        let cases = [
            (
                "Fixed.\n\nNext: add a test for the expiry edge.",
                "add a test for the expiry edge.",
            ),
            ("Done.\nTODO: wire the hook", "wire the hook"),
            ("Done.\ntodo: wire the hook", "wire the hook"),
            (
                "Done.\n\nRemaining:\n- docs\n- changelog",
                "docs; changelog",
            ),
            ("Done.\nFollow-up: bump the version", "bump the version"),
            ("Done.\nFollow-ups:\n1. bump\n2. tag", "bump; tag"),
            ("Done.\nStill to do: the README", "the README"),
            (
                "Done.\n\n## Next steps\n\n- wire the hook\n- add tests",
                "wire the hook; add tests",
            ),
            (
                "Done.\n\n**Next:** add a regression test",
                "add a regression test",
            ),
            ("Done.\n\n**Next steps**\n- a\n- b", "a; b"),
            ("Done.\n- **TODO:** rename it", "rename it"),
        ];
        for (msg, want) in cases {
            assert_eq!(stated_next_steps(msg).as_deref(), Some(want), "{msg}");
        }
        // An inline item ends at the next line that is not a list item.
        assert_eq!(
            stated_next_steps("Next: add a test.\nThanks for the patience!").as_deref(),
            Some("add a test.")
        );
        assert_eq!(stated_next_steps("Next.js renders it now."), None);
        assert_eq!(stated_next_steps("I will do it next time."), None);
    }
}
