//! An observation as the rules build it, before it is stored, and the small text helpers every
//! rule shares: titles of at most `TITLE_MAX` columns that name what happened, lists that fit.
//!
//! Two promises hold for every field: text between backticks (a command, a pattern) is kept
//! exactly as it ran, inner whitespace included, and a shortened title or subtitle ends at a
//! whole word, never inside a path, identifier, number or quoted string.

use crate::model::{ObsType, ObservationBody};
use crate::text::{columns, is_cjk, one_line};

/// Titles never exceed this many terminal columns (a CJK character takes two): an index row
/// the agent can scan, about ten words. What a title has no room for goes to the subtitle.
pub(crate) const TITLE_MAX: usize = 100;
/// A title drafted to be cut by `Draft::cap_title` (a commit message, a plan): long enough for
/// anything worth keeping in the subtitle.
pub(crate) const LONG_TITLE: usize = 300;
/// Subtitles are one sentence of at most this many words (claude-mem asks its observer for this).
pub(crate) const SUBTITLE_WORDS: usize = 24;
/// The most columns of a subtitle, whatever its words: the longest on the dev sets is 764.
const SUBTITLE_MAX: usize = 1000;

/// What a draft stands for, as far as folding cares (`rules::fold`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Role {
    /// Anything else: kept as it is.
    #[default]
    Other,
    /// A change to files (edits, a fix): what verification runs fold into.
    Work,
    /// A verification run (tests, build, lint, type check) that passed.
    Check,
    /// A verification run that failed: folded only into the new or changed tests it ran.
    Failure,
    /// Reads, searches and look-ups: a row only when the turn did nothing else.
    LookAround,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Draft {
    pub obs_type: ObsType,
    pub title: String,
    pub subtitle: String,
    pub narrative: String,
    pub facts: Vec<String>,
    pub concepts: Vec<&'static str>,
    pub files_read: Vec<String>,
    pub files_modified: Vec<String>,
    /// Indices (into the turn's tool uses) of the tool uses this observation stands for.
    pub tools: Vec<usize>,
    /// How the work was checked (`auth::x passes`, `` `cargo test` passes ``), fullest form
    /// first: the rule that knows it hands it over, so the turn's why can go between what
    /// changed and the check, whether or not the rule's own title had room for it.
    pub checks: Vec<String>,
    pub role: Role,
}

impl Draft {
    pub(crate) fn new(obs_type: ObsType, title: impl AsRef<str>) -> Draft {
        Draft::titled(obs_type, title, TITLE_MAX)
    }

    /// A draft whose title may run to `max` columns for now: the rare title that is the memory
    /// itself (a plan, a commit message), not a rule's description of the work. `cap_title`
    /// later keeps `TITLE_MAX` of it and moves the rest into the subtitle.
    pub(crate) fn titled(obs_type: ObsType, title: impl AsRef<str>, max: usize) -> Draft {
        Draft {
            obs_type,
            title: clip_words(&flat(title.as_ref()), max),
            subtitle: String::new(),
            narrative: String::new(),
            facts: Vec::new(),
            concepts: Vec::new(),
            files_read: Vec::new(),
            files_modified: Vec::new(),
            tools: Vec::new(),
            checks: Vec::new(),
            role: Role::Other,
        }
    }

    pub(crate) fn role(mut self, role: Role) -> Draft {
        self.role = role;
        self
    }

    /// Keeps the title within `TITLE_MAX` columns, its joins tidy (`tidy_joins`): a longer one
    /// is cut after a clause or a word and what was cut off opens the subtitle, so title +
    /// subtitle still say it all. The subtitle is kept within `SUBTITLE_MAX` columns.
    pub(crate) fn cap_title(&mut self) {
        self.title = tidy_joins(&self.title);
        if columns(&self.title) > TITLE_MAX {
            self.cut_title();
        }
        // A subtitle is the outcome in a few sentences; text with no spaces (a Chinese answer
        // of pages) has no words to stop at, and came through whole.
        if columns(&self.subtitle) > SUBTITLE_MAX {
            self.subtitle =
                without_lone_ticks(&crate::text::clip_columns(&self.subtitle, SUBTITLE_MAX));
        }
    }

    /// A title over `TITLE_MAX` cut after a clause or a word, the rest opening the subtitle.
    fn cut_title(&mut self) {
        let head = clip_words(&self.title, TITLE_MAX);
        let kept = head.trim_end_matches('\u{2026}').trim_end();
        let rest = self.title[kept.len()..]
            .trim_start_matches(|c: char| c.is_whitespace() || OPENERS.contains(&c))
            .trim();
        if !rest.is_empty() && !self.subtitle.contains(rest) {
            self.subtitle = if self.subtitle.is_empty() {
                format!("\u{2026} {rest}")
            } else {
                format!("\u{2026} {rest} \u{2014} {}", self.subtitle)
            };
        }
        // A cut between two code spans' runs can leave one open.
        self.title = without_lone_ticks(&head);
    }

    pub(crate) fn checked(mut self, checks: Vec<String>) -> Draft {
        self.checks = checks;
        self
    }

    pub(crate) fn subtitle(mut self, text: impl AsRef<str>) -> Draft {
        self.subtitle = sentence(text.as_ref());
        self
    }

    pub(crate) fn narrative(mut self, text: impl Into<String>) -> Draft {
        self.narrative = text.into();
        self
    }

    pub(crate) fn concepts(mut self, concepts: &[&'static str]) -> Draft {
        self.concepts = concepts.to_vec();
        self
    }

    pub(crate) fn fact(&mut self, text: impl AsRef<str>) {
        let f = flat(text.as_ref());
        if !f.is_empty() && !self.facts.contains(&f) {
            self.facts.push(clip_words(&f, 300));
        }
    }

    /// The first line of a tool's error, as a fact.
    pub(crate) fn error_fact(&mut self, err: &str) {
        self.fact(format!(
            "Error: {}",
            first_line(err, 200).unwrap_or_default()
        ));
    }

    pub(crate) fn tool(&mut self, idx: usize) {
        if !self.tools.contains(&idx) {
            self.tools.push(idx);
        }
    }

    pub(crate) fn read(&mut self, path: &str) {
        push_unique(&mut self.files_read, path);
    }

    pub(crate) fn modified(&mut self, path: &str) {
        push_unique(&mut self.files_modified, path);
    }

    /// What the draft says, as stored: empty subtitle and narrative are none.
    pub(crate) fn body(&self) -> ObservationBody {
        ObservationBody {
            obs_type: self.obs_type.id().to_string(),
            title: Some(self.title.clone()),
            subtitle: Some(self.subtitle.clone()).filter(|s| !s.is_empty()),
            narrative: Some(self.narrative.clone()).filter(|s| !s.is_empty()),
            facts: self.facts.clone(),
            concepts: self.concepts.iter().map(|c| c.to_string()).collect(),
            files_read: self.files_read.clone(),
            files_modified: self.files_modified.clone(),
        }
    }
}

pub(crate) fn push_unique(list: &mut Vec<String>, item: &str) {
    if !item.is_empty() && !list.iter().any(|x| x == item) {
        list.push(item.to_string());
    }
}

/// One line, at most `TITLE_MAX` units, shortened at a word boundary.
pub(crate) fn title_text(text: &str) -> String {
    clip_words(&flat(text), TITLE_MAX)
}

/// The first candidate that fits in a title whole, if one does.
pub(crate) fn first_fitting(candidates: impl IntoIterator<Item = String>) -> Option<String> {
    candidates
        .into_iter()
        .map(|c| flat(&c))
        .find(|c| columns(c) <= TITLE_MAX)
}

/// The first candidate that fits in a title, else the last one shortened: callers list the
/// forms of a title from the fullest to the one with the least valuable parts dropped.
pub(crate) fn fitting_title(candidates: impl IntoIterator<Item = String>) -> String {
    let mut last = String::new();
    for c in candidates {
        let c = flat(&c);
        if columns(&c) <= TITLE_MAX {
            return c;
        }
        last = c;
    }
    title_text(&last)
}

/// A title's forms, fullest first, for `fit` to pick the first that fits: every rule writes
/// its ladder with this one builder instead of a list of its own. A form with a part that may
/// shrink (a command shown at 40, 24 or 0 columns, a symbol list cut at 30 or 16) is added once
/// for each width of that part, widest first, with `over`.
#[derive(Default)]
pub(crate) struct Titles(Vec<String>);

impl Titles {
    pub(crate) fn new() -> Titles {
        Titles::default()
    }

    /// One more form (none for `None`: a form some turns have no words for).
    pub(crate) fn form(mut self, form: impl Into<Option<String>>) -> Titles {
        self.0.extend(form.into());
        self
    }

    /// More whole forms, in their order.
    pub(crate) fn forms(mut self, forms: impl IntoIterator<Item = String>) -> Titles {
        self.0.extend(forms);
        self
    }

    /// One form for each variant of its shrinkable parts, fullest first.
    pub(crate) fn over<T>(
        mut self,
        variants: impl IntoIterator<Item = T>,
        make: impl Fn(T) -> String,
    ) -> Titles {
        self.0.extend(variants.into_iter().map(make));
        self
    }

    /// The forms as they are, for a caller that hands them on (a check's forms).
    pub(crate) fn list(self) -> Vec<String> {
        self.0
    }

    /// The first form that fits, else the last shortened (`fitting_title`).
    pub(crate) fn fit(self) -> String {
        fitting_title(self.0)
    }

    /// The first form that fits whole, if one does (`first_fitting`).
    pub(crate) fn first_fit(self) -> Option<String> {
        first_fitting(self.0)
    }
}

/// One line, at most `SUBTITLE_WORDS` words, ending with a full stop.
pub(crate) fn sentence(text: &str) -> String {
    let line = flat(text);
    let words = words(&line, false);
    let mut out = match words.get(SUBTITLE_WORDS) {
        Some(_) => format!("{} …", &line[..words[SUBTITLE_WORDS - 1].1]),
        None => line,
    };
    if !out.is_empty() && !out.ends_with(SENTENCE_ENDS) {
        out.push('.');
    }
    out
}

/// Punctuation that ends a clause or joins two, in any script.
const CLAUSE_MARKS: &[char] = &[
    ';', ':', ',', '.', '!', '?', '\u{3002}', '\u{ff1b}', '\u{ff1a}', '\u{ff0c}', '\u{3001}',
    '\u{ff01}', '\u{ff1f}', '\u{ff0e}',
];

/// The marks parts of a title are joined with: none may open or end a title.
const JOINERS: &[char] = &[
    ';', ':', ',', '\u{ff1b}', '\u{ff1a}', '\u{ff0c}', '\u{3001}',
];

/// A title's joins made clean, outside code spans: a clause mark the text ended with and the
/// joiner after it become one (`exhausted;; `pytest` passes` → `exhausted; …`, `依赖。; 2.` →
/// `依赖。 2.`, `里。。` → `里。`), a why that opens with punctuation loses it (`— ——把…` →
/// `— 把…`), and no title opens or ends on a joiner (`: 5 → 20`, `… with this error:`); a line
/// separator is a space and a bidi control is dropped. Rules join parts that each may end in
/// punctuation of their own; the words of a prompt bring any.
pub(crate) fn tidy_joins(title: &str) -> String {
    let chars: Vec<char> = without_lone_ticks(title).chars().collect();
    let mut out: Vec<char> = Vec::with_capacity(chars.len());
    let mut in_code: Option<usize> = None; // the length of the backtick run that opened it
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        // A line or paragraph separator splits the row for whatever reads lines; a bidi
        // override turns the rest of the row around.
        if matches!(c, '\u{2028}' | '\u{2029}') {
            out.push(' ');
            i += 1;
            continue;
        }
        if matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}') {
            i += 1;
            continue;
        }
        if c == '`' {
            let run = chars[i..].iter().take_while(|&&b| b == '`').count();
            in_code = match in_code {
                Some(open) if open == run => None,
                None => Some(run),
                keep => keep,
            };
            out.extend(std::iter::repeat_n('`', run));
            i += run;
            continue;
        }
        if in_code.is_none() && CLAUSE_MARKS.contains(&c) {
            let last = out.iter().rposition(|p| *p != ' ');
            match last.map(|at| (at, out[at])) {
                // The same mark twice (`里。。`, `exhausted;;`), or an ASCII mark after a
                // full-width end, which says it already (`依赖。;`).
                Some((_, earlier))
                    if (earlier == c && !matches!(c, '.' | ':' | '!' | '?'))
                        || (CLAUSE_MARKS.contains(&earlier)
                            && !earlier.is_ascii()
                            && matches!(c, ';' | ',' | '.' | ':')) =>
                {
                    i += 1;
                    if out.last() == Some(&' ') && chars.get(i) == Some(&' ') {
                        i += 1;
                    }
                    continue;
                }
                // A clause mark the text ended with gives way to the joiner after it
                // (`exhausted:;` → `exhausted;`, `dependencies.;` → `dependencies;`); not
                // `e.g.,`.
                Some((at, earlier))
                    if (matches!(earlier, ';' | ':' | ',') && matches!(c, ';' | ','))
                        || (earlier == '.' && c == ';') =>
                {
                    out.truncate(at);
                }
                _ => {}
            }
        }
        // Dashes and clause marks opening a why (` — ——把`) say nothing.
        if in_code.is_none()
            && (CLAUSE_MARKS.contains(&c) || matches!(c, '\u{2014}' | '\u{2013}'))
            && out.ends_with(&['\u{2014}', ' '])
        {
            i += 1;
            continue;
        }
        out.push(c);
        i += 1;
    }
    // Nor opens on one: a part that came out empty (`: 5 → 20` for an edit naming no file).
    let lead = out
        .iter()
        .take_while(|c| **c == ' ' || JOINERS.contains(c))
        .count();
    let mut tidy: String = out[lead..].iter().collect();
    while in_code.is_none()
        && let Some(last) = tidy.trim_end().chars().last()
        && (JOINERS.contains(&last) || last == '\u{2014}')
    {
        let end = tidy.trim_end().len() - last.len_utf8();
        tidy.truncate(end);
    }
    tidy.trim_end().to_string()
}

/// `text` with every backtick run that closes no code span made an apostrophe: a line copied
/// from an error quotes GNU-style (bash's ``near unexpected token `('``), and one backtick
/// without its closer would turn the rest of the row into code wherever it is read as Markdown.
/// Spans are found as CommonMark finds them: a run opens one only if a run of the same length
/// follows.
pub(crate) fn without_lone_ticks(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    while let Some(k) = text[at..].find('`') {
        let start = at + k;
        out.push_str(&text[at..start]);
        let rest = &text[start..];
        match crate::text::code_span_len(rest) {
            Some(len) => {
                out.push_str(&rest[..len]);
                at = start + len;
            }
            None => {
                let run = rest.len() - rest.trim_start_matches('`').len();
                out.push_str(&"'".repeat(run));
                at = start + run;
            }
        }
    }
    out.push_str(&text[at..]);
    out
}

/// What ends a sentence, in Latin and in Chinese or Japanese (full-width) text: a field that
/// ends so gets no second full stop (`…通过（3 passed）。`, not `…。.`).
pub(crate) const SENTENCE_ENDS: [char; 8] = ['.', '!', '?', '…', '。', '！', '？', '．'];

/// `` `text` `` clipped to `max` units inside the backticks: the text exactly as given (a line
/// break or tab becomes one space, nothing is collapsed), cut only between words.
pub(crate) fn code(text: &str, max: usize) -> String {
    let exact: String = text
        .trim()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    fence(&clip_words_with(&exact, max, true))
}

/// `` `text` `` for search patterns: whitespace is kept (a trailing space matters), only
/// line breaks and tabs become spaces. A pattern is never shortened (a cut regex is another
/// regex): a title with no room for it leaves it out instead.
pub(crate) fn code_raw(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    fence(&flat)
}

/// Wraps `text` in a code span whose backtick run is longer than any inside it (CommonMark),
/// so a command holding backticks stays one span.
pub(crate) fn fence(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    if longest == 0 {
        return format!("`{text}`");
    }
    let ticks = "`".repeat(longest + 1);
    format!("{ticks} {text} {ticks}")
}

/// Byte ranges of the spans of `text` that are never split or collapsed: code spans (a run of
/// backticks up to the next run of the same length) and “curly” quotes; with `shell`, also
/// '…' and "…" quotes. An opener without its closer is an ordinary character.
pub(crate) fn spans(text: &str, shell: bool) -> Vec<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let end = if rest.starts_with('`') {
            match crate::text::code_span_len(rest) {
                Some(e) => Some(e),
                None => {
                    i += rest.len() - rest.trim_start_matches('`').len();
                    continue;
                }
            }
        } else if rest.starts_with('\u{201c}') {
            rest.find('\u{201d}').map(|k| k + '\u{201d}'.len_utf8())
        } else if shell && (bytes[i] == b'\'' || bytes[i] == b'"') {
            let q = bytes[i] as char;
            rest[1..].find(q).map(|k| k + 2)
        } else if shell && bytes[i] == b'\\' {
            // An escaped character is part of its word.
            i += rest.chars().take(2).map(char::len_utf8).sum::<usize>();
            continue;
        } else {
            None
        };
        match end {
            Some(e) => {
                out.push((i, i + e));
                i += e;
            }
            None => i += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    out
}

/// Byte ranges of the words of `text`: runs of non-space characters, where a quoted span (see
/// `spans`) is part of the word around it however many spaces it holds.
pub(crate) fn words(text: &str, shell: bool) -> Vec<(usize, usize)> {
    let spans = spans(text, shell);
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut span = spans.iter().peekable();
    let mut i = 0;
    while i < text.len() {
        while span.peek().is_some_and(|s| s.1 <= i) {
            span.next();
        }
        if let Some(&&(s, e)) = span.peek()
            && s == i
        {
            start.get_or_insert(i);
            i = e;
            continue;
        }
        let c = text[i..].chars().next().unwrap_or(' ');
        if c.is_whitespace() {
            if let Some(s) = start.take() {
                out.push((s, i));
            }
        } else {
            start.get_or_insert(i);
        }
        i += c.len_utf8();
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// One line, quoted commands kept exactly (see `crate::text::one_line`).
pub(crate) fn flat(text: &str) -> String {
    one_line(text)
}

/// `text` cut to at most `max` columns at a word boundary, ending with ` …`: a path, name,
/// number or quoted span is kept whole or dropped whole. Only a first word longer than `max`
/// is cut inside.
pub(crate) fn clip_words(text: &str, max: usize) -> String {
    clip_words_with(text, max, false)
}

fn clip_words_with(text: &str, max: usize, shell: bool) -> String {
    if columns(text) <= max {
        return text.to_string();
    }
    let mut best: Option<&str> = None;
    for end in cut_points(text, shell) {
        let head = text[..end].trim_end_matches(OPENERS);
        if columns(head) + 2 > max {
            break;
        }
        if !head.trim().is_empty() {
            best = Some(head);
        }
    }
    match best {
        Some(head) => with_ellipsis(head.trim_end()),
        // A quoted command keeps its first word whole even past `max`: a cut program or
        // path would no longer be the command that ran.
        None if shell => match words(text, true).first() {
            Some(&(s, e)) if e < text.len() => format!("{} \u{2026}", &text[s..e]),
            _ => text.to_string(),
        },
        None => clip_columns(text, max),
    }
}

/// What a shortened text does not end on: the start of a list, a clause or a bracket.
const OPENERS: &[char] = &[
    ',', ';', ':', '(', '[', '{', '\u{2014}', '\u{3001}', '\u{ff0c}', '\u{ff1b}', '\u{ff1a}',
    '\u{ff08}', '\u{300c}',
];

/// `head …`, or `head…` after a CJK character (such text has no spaces to keep).
fn with_ellipsis(head: &str) -> String {
    match head.chars().next_back() {
        Some(c) if is_cjk(c) || !c.is_ascii() && columns(c.encode_utf8(&mut [0; 4])) == 2 => {
            format!("{head}\u{2026}")
        }
        _ => format!("{head} \u{2026}"),
    }
}

/// Where `text` may be cut: after each word (see `words`), and inside a word between two
/// characters of a script written without spaces or where such a run meets a Latin one
/// (`pgvector做向量搜索` may end after `pgvector` or any Han character), never inside a Latin
/// token or a quoted span.
pub(crate) fn cut_points(text: &str, shell: bool) -> Vec<usize> {
    let quoted = spans(text, shell);
    let inside = |i: usize| quoted.iter().any(|&(a, b)| a < i && i < b);
    let mut out = Vec::new();
    for (start, end) in words(text, shell) {
        let word = &text[start..end];
        let mut prev: Option<char> = None;
        for (i, c) in word.char_indices() {
            let at = start + i;
            if let Some(p) = prev
                && (is_cjk(p) || is_cjk(c))
                && !inside(at)
            {
                out.push(at);
            }
            prev = Some(c);
        }
        out.push(end);
    }
    out
}

/// `text` cut to `max` columns between characters, with `…`: for a first word too long to keep.
fn clip_columns(text: &str, max: usize) -> String {
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = columns(c.encode_utf8(&mut [0; 4]));
        if used + w + 1 > max {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('\u{2026}');
    out
}

/// Items joined with ", " for as long as they fit in `max` units, then "and N more". Items are
/// never cut: a first item longer than `max` is given whole (callers that must fit a title
/// try a shorter form).
pub(crate) fn fit_list(items: &[String], max: usize) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        let sep = if i == 0 { "" } else { ", " };
        let rest = items.len() - i - 1;
        let tail = if rest > 0 {
            format!(" and {rest} more")
        } else {
            String::new()
        };
        let candidate = format!("{out}{sep}{item}");
        if i > 0 && columns(&candidate) + columns(&tail) > max {
            return format!("{out} and {} more", items.len() - i);
        }
        out = candidate;
    }
    out
}

/// `text` with its first letter upper-case.
pub(crate) fn capitalize(text: &str) -> String {
    let mut c = text.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// `+3 −1`, the size of a change.
pub(crate) fn delta(added: usize, removed: usize) -> String {
    format!("+{added} \u{2212}{removed}")
}

/// The first line worth quoting from a block of text (skips blank lines and markdown rules).
pub(crate) fn first_line(text: &str, max: usize) -> Option<String> {
    text.lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty() && !l.chars().all(|c| c == '-' || c == '=' || c == '*'))
        .map(|l| clip_words(&flat(l), max))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn a_subtitle_of_pages_without_spaces_is_cut_to_its_most_columns() {
        let mut d = Draft::new(ObsType::Discovery, "答案");
        d.subtitle = "连接池耗尽".repeat(2000);
        d.cap_title();
        assert!(
            columns(&d.subtitle) <= SUBTITLE_MAX,
            "{}",
            columns(&d.subtitle)
        );
        assert!(d.subtitle.starts_with("连接池耗尽"));
    }

    #[test]
    fn joins_never_double_punctuation_outside_code() {
        for (raw, want) in [
            (
                "POOL_SIZE: 5 → 20 — pool exhausted;; `pytest -q` passes",
                "POOL_SIZE: 5 → 20 — pool exhausted; `pytest -q` passes",
            ),
            (
                "X — pool exhausted:; `pytest` passes",
                "X — pool exhausted; `pytest` passes",
            ),
            (
                "Plan (3 steps): 1. 梳理依赖。; 2. 定义接口。; …",
                "Plan (3 steps): 1. 梳理依赖。 2. 定义接口。 …",
            ),
            ("Plan: 1. 梳理依赖；; 2. 拆", "Plan: 1. 梳理依赖； 2. 拆"),
            (
                "1. Map the dependencies.; 2. Split",
                "1. Map the dependencies; 2. Split",
            ),
            ("定义在 `EXPIRY` 里。。", "定义在 `EXPIRY` 里。"),
            (
                "POOL_SIZE: 5 → 20 — ——把 POOL_SIZE 调大——",
                "POOL_SIZE: 5 → 20 — 把 POOL_SIZE 调大",
            ),
            (
                "X: 5 → 20 — failing with this error:",
                "X: 5 → 20 — failing with this error",
            ),
            // Left alone: code, an abbreviation, an ellipsis.
            (
                "`case x in a) ;; esac` passes",
                "`case x in a) ;; esac` passes",
            ),
            ("uses e.g., serde", "uses e.g., serde"),
            ("wait... then", "wait... then"),
            (
                "Fixed Ring::pop; auth::refresh passes",
                "Fixed Ring::pop; auth::refresh passes",
            ),
            ("`a\u{2028}b` in x\u{202e}y.rs", "`a b` in xy.rs"),
            (": 5 → 20 — the pool runs out", "5 → 20 — the pool runs out"),
            ("...and more", "...and more"),
            (
                "修好 𝒳 与 😀;; `go test` 通过：",
                "修好 𝒳 与 😀; `go test` 通过",
            ),
            // A backtick that closes no span is an apostrophe (bash quotes `so').
            (
                "`./migrate.sh …` failed: syntax error near unexpected token `('",
                "`./migrate.sh …` failed: syntax error near unexpected token '('",
            ),
            ("`a` then `` b `` and ` lone", "`a` then `` b `` and ' lone"),
            ("``` x ` y", "''' x ' y"),
        ] {
            assert_eq!(tidy_joins(raw), want, "{raw}");
        }
    }

    #[test]
    fn lists_fit_with_a_count_of_the_rest() {
        let items: Vec<String> = ["src/a.rs", "src/b.rs", "src/c.rs", "src/d.rs"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            fit_list(&items, 100),
            "src/a.rs, src/b.rs, src/c.rs, src/d.rs"
        );
        assert_eq!(fit_list(&items, 30), "src/a.rs, src/b.rs and 2 more");
        assert_eq!(fit_list(&items[..1], 4), "src/a.rs", "a path is never cut");
    }

    #[test]
    fn subtitles_are_one_short_sentence() {
        assert_eq!(sentence("a\nb"), "a b.");
        let long = "w ".repeat(40);
        assert!(
            sentence(&long)
                .split(' ')
                .filter(|w| *w != "\u{2026}")
                .count()
                <= SUBTITLE_WORDS
        );
    }

    #[test]
    fn quoted_commands_keep_their_whitespace() {
        let cmd = "grep -q '    300' src/auth.rs";
        assert_eq!(code(cmd, 200), format!("`{cmd}`"));
        assert_eq!(
            flat(&format!("ran   {}\n  then\tstopped", code(cmd, 200))),
            format!("ran `{cmd}` then stopped")
        );
        let mut d = Draft::new(ObsType::Discovery, format!("`{cmd}` failed"));
        d.fact(format!("{} failed (exit 1)", code(cmd, 200)));
        assert_eq!(d.title, format!("`{cmd}` failed"));
        assert_eq!(d.facts, vec![format!("`{cmd}` failed (exit 1)")]);
        assert_eq!(
            Draft::new(ObsType::Discovery, "x")
                .subtitle(format!("Ran {}", code(cmd, 80)))
                .subtitle,
            format!("Ran `{cmd}`.")
        );
        // A command holding a backtick gets a longer fence and stays one span.
        assert_eq!(code("echo `date`  x", 40), "`` echo `date`  x ``");
    }

    #[test]
    fn patterns_are_quoted_whole() {
        let p = "FEATURE_NEW_CHECKOUT|featureNewCheckout|new-checkout";
        assert_eq!(code_raw(p), format!("`{p}`"));
        assert_eq!(code_raw("fn refresh "), "`fn refresh `");
    }

    #[test]
    fn titles_are_shortened_between_words() {
        let t = title_text(
            "Fixed failing `grep -q '    300' src/auth.rs` after editing src/very/long/path/to/the/module/of/the/session/window/auth_window.rs",
        );
        assert!(columns(&t) <= TITLE_MAX, "{t}");
        assert_eq!(
            t,
            "Fixed failing `grep -q '    300' src/auth.rs` after editing \u{2026}"
        );
        // A code span is kept whole or dropped whole.
        let t = title_text(&format!("Ran {}", code(&"word ".repeat(30), 200)));
        assert_eq!(t, "Ran \u{2026}");
        assert_eq!(
            code("cargo test --package cmem --lib observe::draft::tests", 30),
            "`cargo test --package cmem \u{2026}`"
        );
        assert_eq!(
            fitting_title(["x".repeat(TITLE_MAX + 1), "short".to_string()]),
            "short"
        );
        let titles = || {
            Titles::new()
                .over([TITLE_MAX + 1, 3], |n| "x".repeat(n))
                .form(None)
                .form("y".to_string())
        };
        assert_eq!(
            titles().list(),
            ["x".repeat(TITLE_MAX + 1), "xxx".into(), "y".into()]
        );
        assert_eq!(titles().fit(), "xxx");
        assert_eq!(
            Titles::new().form("z".repeat(TITLE_MAX + 1)).first_fit(),
            None
        );
        let long = "w ".repeat(40);
        let s = sentence(&format!("Ran {} {long}", code("a   b", 10)));
        assert!(s.starts_with("Ran `a   b` w w"), "{s}");
        assert!(s.ends_with(" \u{2026}"), "{s}");
    }

    #[test]
    fn a_long_title_keeps_100_columns_and_gives_the_rest_to_the_subtitle() {
        let mut d = Draft::new(ObsType::Change, "x").subtitle("Edited a.py");
        d.title = format!(
            "POOL_SIZE in src/pool.py: 5 → 20 — {}",
            "𠮷野家的接口经常 502，".repeat(8)
        );
        d.cap_title();
        assert!(columns(&d.title) <= TITLE_MAX, "{}", d.title);
        assert!(
            d.title
                .starts_with("POOL_SIZE in src/pool.py: 5 → 20 — 𠮷野家"),
            "{}",
            d.title
        );
        assert!(
            d.subtitle.starts_with('\u{2026}') && d.subtitle.ends_with("Edited a.py."),
            "{}",
            d.subtitle
        );
        // Nothing lost: what the title no longer holds opens the subtitle.
        let rest = d.subtitle.trim_start_matches('\u{2026}').trim_start();
        assert!(
            rest.starts_with("经常") || rest.starts_with('的') || rest.contains("502"),
            "{rest}"
        );
    }
}
