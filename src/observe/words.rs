//! The turn's own words. The user's request says why a turn happened and the assistant's last
//! message says what came of it, in the project's terms, better than any rule can; both are
//! already stored (privacy-filtered at capture) and cost nothing to use. The rules say which
//! files, symbols and checks; these words say what it amounted to.

use super::draft::{Draft, TITLE_MAX, capitalize, clip_words, flat, spans, words};
use super::summary::before_next_steps;
use crate::model::ObsType;
use crate::text::is_cjk;

/// Words kept of the request in a subtitle (its first sentence, usually the why).
const REQUEST_WORDS: usize = 24;
/// Words kept of the last message in a subtitle: its first statements, lists included, which
/// is where an assistant puts what it changed and why.
const OUTCOME_WORDS: usize = 50;
/// Words kept of a why in a title.
const WHY_WORDS: usize = 16;
/// Fewest words of a why worth keeping beside a check.
const WHY_MIN_WORDS: usize = 6;
/// Fewest words of a why that names something (a number, a path, an identifier).
const WHY_NAMED_MIN_WORDS: usize = 3;
/// Fewest words of what a created file holds worth its symbols' place in the title.
const CREATED_HOLDS_MIN_WORDS: usize = 4;

/// Verbs that open a request telling the agent what to do, rather than what is wrong.
const IMPERATIVE: &[&str] = &[
    "add",
    "allow",
    "backport",
    "bisect",
    "bump",
    "change",
    "check",
    "clean",
    "commit",
    "configure",
    "convert",
    "create",
    "debounce",
    "decrease",
    "dedupe",
    "deduplicate",
    "delete",
    "disable",
    "do",
    "document",
    "downgrade",
    "drop",
    "enable",
    "encrypt",
    "ensure",
    "exclude",
    "explain",
    "expose",
    "extract",
    "find",
    "fix",
    "give",
    "hide",
    "implement",
    "improve",
    "increase",
    "investigate",
    "let",
    "look",
    "make",
    "map",
    "merge",
    "migrate",
    "move",
    "normalize",
    "optimize",
    "paginate",
    "parallelize",
    "plan",
    "please",
    "prevent",
    "raise",
    "rebase",
    "reduce",
    "refactor",
    "remove",
    "rename",
    "replace",
    "reproduce",
    "respect",
    "restart",
    "revert",
    "revoke",
    "rewrite",
    "run",
    "sanitize",
    "set",
    "show",
    "split",
    "squash",
    "switch",
    "test",
    "throttle",
    "try",
    "turn",
    "unpin",
    "update",
    "use",
    "validate",
    "write",
];

/// Words that open a reply to the agent ("looks good, commit it"), which states no problem.
const APPROVAL: &[&str] = &[
    "alright", "awesome", "cool", "good", "great", "lgtm", "looks", "nice", "ok", "okay",
    "perfect", "sounds", "sure", "thanks", "thank", "yep", "yes",
];

/// The sentences of `text` (one paragraph), split after `.`, `!` or `?` followed by a space,
/// never inside a code span or a quote (`Host: example.com:8080`), a path or a number.
pub(crate) fn sentences(text: &str) -> Vec<String> {
    let line = flat(text);
    let mut out = Vec::new();
    let mut start = 0;
    for (_, end) in words(&line, false) {
        let word = &line[start..end];
        if word.ends_with(['.', '!', '?']) && !ends_with_abbreviation(word) {
            out.push(line[start..end].trim().to_string());
            start = end;
        }
    }
    let rest = line[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    // Chinese and Japanese sentences end at `。！？` with no space after them.
    out.iter().flat_map(|s| split_cjk_sentences(s)).collect()
}

/// `s` cut after each `。`, `！` or `？` outside a quoted span.
fn split_cjk_sentences(s: &str) -> Vec<String> {
    let quoted = spans(s, false);
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in s.char_indices() {
        let inside = quoted.iter().any(|&(a, b)| a <= i && i < b);
        if matches!(c, '。' | '！' | '？') && !inside {
            let end = i + c.len_utf8();
            let piece = s[start..end].trim();
            if !piece.is_empty() {
                out.push(piece.to_string());
            }
            start = end;
        }
    }
    let rest = s[start..].trim();
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// Words in `s` for the length rules: a whitespace-separated word counts one, and in a run of
/// Han, kana or Hangul every two characters count one (such text has no spaces).
pub(crate) fn word_count(s: &str) -> usize {
    s.split_whitespace()
        .map(|w| {
            let cjk = w.chars().filter(|c| is_cjk(*c)).count();
            let rest = w.chars().any(|c| !is_cjk(c) && c.is_alphanumeric());
            cjk.div_ceil(2) + usize::from(rest || cjk == 0)
        })
        .sum()
}

fn ends_with_abbreviation(text: &str) -> bool {
    let last = text.rsplit(' ').next().unwrap_or("").to_ascii_lowercase();
    matches!(last.as_str(), "e.g." | "i.e." | "etc." | "vs." | "cf.")
}

/// The request's first sentence: the problem or the question the turn was about.
pub(crate) fn request(prompt: &str) -> Option<String> {
    let first = first_paragraph(prompt)?;
    sentences(&first)
        .into_iter()
        .next()
        .map(|s| clip_at_words(&s, REQUEST_WORDS))
}

/// What the turn came to, from the last message: its first paragraph before any next-steps
/// opening, the first sentence (two when the first is a word like "Done."), as said.
pub(crate) fn outcome(message: &str) -> Option<String> {
    // List markers go, as `told` drops them: the title is found again in what was told, and
    // the rest after it becomes the subtitle.
    let body = before_next_steps(message);
    let mut unlisted: Vec<String> = Vec::new();
    for line in body.lines() {
        let (text, item) = match super::summary::list_item(line.trim()) {
            Some(i) => (i, true),
            None => (line, false),
        };
        end_before_item(&mut unlisted, item);
        unlisted.push(text.to_string());
    }
    let paragraph = first_paragraph(&unlisted.join("\n"))?;
    let sentences = sentences(&paragraph);
    let mut out = sentences.first()?.clone();
    if out.split_whitespace().count() < 3
        && let Some(second) = sentences.get(1)
    {
        out = format!("{out} {second}");
    }
    Some(out)
}

/// What the last message says before its next steps, as one line: paragraphs and list items
/// joined (`; ` after an item), code blocks left out, at most `OUTCOME_WORDS` words.
pub(crate) fn told(message: &str) -> Option<String> {
    let body = before_next_steps(message);
    let mut parts: Vec<String> = Vec::new();
    let mut in_code = false;
    for line in body.lines().map(str::trim) {
        if line.starts_with("```") {
            in_code = !in_code;
            continue;
        }
        if in_code || line.is_empty() || is_small_talk(line) {
            continue;
        }
        let (text, item) = match super::summary::list_item(line) {
            Some(i) => (i, true),
            None => (line, false),
        };
        end_before_item(&mut parts, item);
        parts.push(text.to_string());
    }
    // Joined as lines: Chinese text joins its lines without a space (`text::one_line`).
    let line = flat(&parts.join("\n"));
    (!line.is_empty()).then(|| clip_at_words(&line, OUTCOME_WORDS))
}

/// A list item follows what came before it after a `;` unless that ended a sentence or a
/// clause already (`.:;!?` or their full-width forms): `told` and `outcome` join a list alike,
/// so the title taken from one is found again in the other.
fn end_before_item(parts: &mut [String], item: bool) {
    // A Chinese or Japanese list ends its items on a full-width mark, a path's item too.
    let cjk = parts
        .iter()
        .any(|p| p.chars().any(crate::text::joins_lines));
    if let Some(last) = parts.last_mut()
        && item
        && !last.trim_end().is_empty()
        && !last.trim_end().ends_with([
            '.', ':', ';', '!', '?', '\u{3002}', '\u{ff1a}', '\u{ff1b}', '\u{ff01}', '\u{ff1f}',
        ])
    {
        let kept = last.trim_end().len();
        last.truncate(kept);
        last.push(if cjk { '\u{ff1b}' } else { ';' });
    }
}

/// Openings of an offer or a courtesy that closes a message ("Anything else?", "Let me know
/// if …", "Want me to …?"): nothing a later session needs.
const SMALL_TALK: &[&str] = &[
    "anything else",
    "let me know",
    "want me to",
    "do you want",
    "would you like",
    "should i ",
    "shall i ",
    "happy to",
    "say go",
    "say the word",
    "feel free",
    "hope this helps",
];

fn is_small_talk(line: &str) -> bool {
    let lower = line.to_lowercase();
    SMALL_TALK.iter().any(|s| lower.starts_with(s))
}

/// An opening that states a conclusion, which stands as a memory even when it names no file
/// or symbol (`Recommendation: keep the systemd timers for now.`); the first ones are decisions.
const CONCLUSIONS: &[&str] = &[
    // Chinese and Japanese decisions: recommend, decided, recommendation (ja).
    "\u{5efa}\u{8bae}",
    "\u{63a8}\u{8350}",
    "\u{51b3}\u{5b9a}",
    "\u{304a}\u{3059}\u{3059}\u{3081}",
    "\u{63a8}\u{5968}",
    "recommendation",
    "decision",
    "decided",
    "going with",
    "i recommend",
    "i'd recommend",
    "i would recommend",
    "my recommendation",
    "we should",
    "verdict",
    "conclusion",
    "root cause",
    "cause:",
    "short answer",
    "bottom line",
    "tl;dr",
    // Chinese and Japanese conclusions: conclusion, root cause (zh, ja).
    "\u{7ed3}\u{8bba}",
    "\u{7d50}\u{8ad6}",
    "\u{6839}\u{56e0}",
    "\u{539f}\u{56e0}\u{306f}",
];
const DECISIONS: usize = 14;

/// Which conclusion the outcome opens with, if any: `Some(true)` for a decision.
fn concludes(outcome: &str) -> Option<bool> {
    let lower = outcome.to_lowercase();
    CONCLUSIONS
        .iter()
        .position(|c| lower.starts_with(c))
        .map(|i| i < DECISIONS)
}

/// Openings of what follows a request after a comma that make it a second instruction or a
/// constraint (`…, then run the tests`, `…, you can use the helper in utils`, `…, don't touch
/// the fixtures`), not the reason for it.
const NOT_A_REASON: &[&str] = &[
    "then",
    "and",
    "also",
    "but",
    "or",
    "pls",
    "please",
    "thanks",
    "you",
    "don't",
    "don\u{2019}t",
    "dont",
    "just",
    "only",
    "keep",
    "use",
    "avoid",
    "without",
    "no",
    "not",
];

/// Openings of a Chinese request (help me, please help, take …, write a, add a, change to,
/// remove, have a look, check, fix): what to do, not what is wrong, as `IMPERATIVE` is in
/// English. Two characters at least where one begins common nouns too (`请求`, `加载`, `写入`,
/// `改完`, `删除`); `把` alone opens a request.
const CJK_REQUESTS: &[&str] = &[
    "\u{5e2e}\u{6211}",
    "\u{5e2e}\u{5fd9}",
    "\u{8bf7}\u{5e2e}",
    "\u{8bf7}\u{4f60}",
    "\u{8bf7}\u{628a}",
    "\u{9ebb}\u{70e6}",
    "\u{628a}",
    "\u{5199}\u{4e2a}",
    "\u{5199}\u{4e00}\u{4e2a}",
    "\u{52a0}\u{4e2a}",
    "\u{52a0}\u{4e00}\u{4e2a}",
    "\u{6539}\u{6210}",
    "\u{6539}\u{4e00}\u{4e0b}",
    "\u{5220}\u{6389}",
    "\u{53bb}\u{6389}",
    "\u{770b}\u{4e0b}",
    "\u{770b}\u{4e00}\u{4e0b}",
    "\u{4f60}\u{770b}",
    "\u{67e5}\u{4e00}\u{4e0b}",
    "\u{4fee}\u{4e00}\u{4e0b}",
];

/// Why the work was done, in a few words: the problem the request states before asking
/// (`Requests to the billing API time out under load`), else what the outcome says it led to
/// (`…, so startup messages are logged`).
pub(crate) fn why(prompt: &str, outcome: Option<&str>) -> Option<String> {
    let first = first_paragraph(prompt).and_then(|p| sentences(&p).into_iter().next());
    let opens = |s: &str, words: &[&str]| {
        let w = s
            .split_whitespace()
            .next()
            .unwrap_or("")
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_ascii_lowercase();
        words.contains(&w.as_str())
    };
    // `revert the http2 change (4be07c1), the grpc-web clients get RST_STREAM since`: the
    // request first, the reason after it.
    let after_ask = first.as_deref().and_then(|s| {
        if !opens(s, IMPERATIVE) {
            return None;
        }
        // `because` says it is the reason wherever it stands; a comma may only end a list
        // (`revert the retry, timeout and pool changes, because …`).
        let at = match s.find(" because ") {
            Some(i) => i + " because ".len(),
            None => [", ", " since ", " - ", " \u{2014} "]
                .iter()
                .filter_map(|k| s.find(k).map(|i| i + k.len()))
                .min()?,
        };
        let rest = s[at..].trim().trim_end_matches(['.', '!']);
        // `…, then run the tests` is a second request, not a reason.
        (rest.split_whitespace().count() >= 4
            && !opens(rest, IMPERATIVE)
            && !opens(rest, NOT_A_REASON)
            && !opens(rest, APPROVAL)
            && !rest.ends_with('?'))
        .then(|| rest.to_string())
    });
    let stated = first
        .map(|s| {
            // `: ` or `;` end a clause, as do the full-width `，；：、` of Chinese and Japanese
            // text; a colon inside a time (`01:00`) or a path does not.
            let end = [": ", ";", "，", "；", "：", "、"]
                .iter()
                .filter_map(|k| s.find(k))
                .min();
            let head = s[..end.unwrap_or(s.len())].trim();
            // A label before the colon (`weird bug: when I tag one job …`) is no why on its
            // own: the sentence is.
            let why = if word_count(head) < 3 { s.trim() } else { head };
            // `… has the same tags??` is surprise, not a question.
            let why = match why.strip_suffix("??") {
                Some(w) => w.trim_end_matches('?'),
                None => why,
            };
            why.trim_end_matches(['.', '!', '。', '！']).to_string()
        })
        .filter(|s| {
            !s.ends_with('?')
                && !opens(s, IMPERATIVE)
                && !opens(s, APPROVAL)
                && !CJK_REQUESTS.iter().any(|r| s.starts_with(r))
        });
    let led_to = || {
        let o = outcome?;
        let at = [", so ", " so that ", " because "]
            .iter()
            .filter_map(|k| o.find(k).map(|i| i + k.len()))
            .min()?;
        Some(o[at..].trim_end_matches(['.', '!']).to_string())
    };
    stated
        .or(after_ask)
        .or_else(led_to)
        .filter(|w| word_count(w) >= 2)
        .map(|w| lower_first(&clip_at_words(&w, WHY_WORDS)))
}

/// Whether a work title tells only which file changed and by how many lines.
fn says_only_size(title: &str) -> bool {
    title.ends_with(')')
        && title
            .rfind(" (+")
            .is_some_and(|at| title[at..].contains('\u{2212}'))
}

/// `text` without markdown emphasis (`**23 call sites**` → `23 call sites`) outside code
/// spans: in a row of 100 columns the markers are noise.
fn plain(text: &str) -> String {
    let quoted = spans(text, false);
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let inside = quoted.iter().find(|&&(a, b)| a <= i && i < b);
        if let Some(&(_, b)) = inside {
            out.push_str(&text[i..b]);
            i = b;
            continue;
        }
        if text[i..].starts_with("**") || text[i..].starts_with("__") {
            i += 2;
            continue;
        }
        let c = text[i..].chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// Labels that open an answer and say nothing of it (`Short answer: not yet.`).
const ANSWER_LABELS: &[&str] = &[
    "short answer",
    "honest answer",
    "the short answer",
    "answer",
    "tl;dr",
    "tldr",
    "in short",
    "summary",
    "bottom line",
    "findings",
    "result",
];

/// `Short answer: not worth it` → `Not worth it`: a label is no part of a title.
fn without_label(text: &str) -> String {
    without_opener(text, ANSWER_LABELS, &[':'], |rest| word_count(rest) >= 3)
}

/// `Yes: all 45 tests pass` → `All 45 tests pass`: an answer's opening word is no title.
fn without_interjection(text: &str) -> String {
    const OPENERS: &[&str] = &["yes", "no", "done", "ok", "okay", "sure", "right", "so"];
    without_opener(text, OPENERS, &[':', ',', '.', '!'], |rest| {
        rest.split_whitespace().count() >= 3
    })
}

/// `text` without one of `openers` (any case) and the mark after it, the rest capitalised,
/// when what is left is still `enough`.
fn without_opener(
    text: &str,
    openers: &[&str],
    marks: &[char],
    enough: impl Fn(&str) -> bool,
) -> String {
    // ASCII lowering keeps every byte where it was, so the opener's length cuts `text` too.
    let lower = text.to_ascii_lowercase();
    for opener in openers {
        let Some(after) = lower.strip_prefix(opener) else {
            continue;
        };
        // `Done — the flag …`: a dash after the opener is its mark too.
        // `Done — the flag …`: a dash between spaces after the opener is its mark too (not
        // `No -1 is returned`, nor a list on the next line).
        let mark = if after.starts_with(marks) {
            1
        } else {
            let blank = |c: char| c == ' ' || c == '\t';
            let dashed = after.trim_start_matches(blank);
            match dashed.chars().next() {
                Some(c @ ('\u{2014}' | '\u{2013}' | '-'))
                    if dashed.len() < after.len() && dashed[c.len_utf8()..].starts_with(blank) =>
                {
                    after.len() - dashed.len() + c.len_utf8()
                }
                _ => continue,
            }
        };
        if let Some(rest) = text.get(opener.len() + mark..).map(str::trim_start)
            && enough(rest)
        {
            return capitalize(rest);
        }
    }
    text.to_string()
}

/// The first word lowered when it is an ordinary capitalised word (`A session start …`,
/// `Requests …`); a name or an acronym (`STRICT_TLS`, `CI`, `PoolConfig`, `I`) keeps its case.
fn lower_first(text: &str) -> String {
    let first = text.split_whitespace().next().unwrap_or("");
    let mut chars = first.chars();
    let ordinary = match chars.next() {
        Some(f) if f.is_uppercase() => {
            let rest: Vec<char> = chars.collect();
            rest.iter()
                .all(|c| c.is_lowercase() || !c.is_alphanumeric())
                && !(rest.is_empty() && f == 'I')
        }
        _ => false,
    };
    if !ordinary {
        return text.to_string();
    }
    let mut c = text.chars();
    c.next()
        .map(|f| f.to_lowercase().chain(c).collect())
        .unwrap_or_default()
}

/// `title` with `why` after what changed and before how it was `checks` (the forms the rule
/// handed over, fullest first), within `TITLE_MAX` columns: the fullest check that fits beside
/// the whole why, else beside the why's first words, else the why alone or its first words; a
/// why that would still be cut leaves the title as it was. Also says whether the title holds
/// the whole why (else the caller keeps it in the subtitle).
fn with_why(title: &str, why: &str, checks: &[String]) -> (String, bool) {
    let head = checks
        .iter()
        .find_map(|c| title.strip_suffix(c.as_str())?.strip_suffix("; "))
        .unwrap_or(title);
    let fits = |t: &String| crate::text::columns(t) <= TITLE_MAX;
    // A why too long for the room loses its articles before its last words: `requests to
    // billing API time out under load` keeps what the reader needs (`under load`).
    let terse = terse(why);
    let why = if fits(&format!("{head} \u{2014} {why}")) {
        why
    } else {
        terse.as_str()
    };
    let spans = words(why, false);
    // The whole why, then its first words down to `WHY_MIN_WORDS`, or down to
    // `WHY_NAMED_MIN_WORDS` when those name something (`node 16 is EOL and …`, `payments is
    // logging ~40GB/day …`): a few plain words (`the search box is …`) say nothing.
    let named = |head: &str| {
        head.split_whitespace()
            .filter(|w| {
                let w = w.trim_end_matches(',').to_ascii_lowercase();
                !matches!(w.as_str(), "e.g." | "i.e." | "etc.")
            })
            .any(is_name)
    };
    let whys: Vec<(String, bool)> = std::iter::once((why.to_string(), true))
        .chain(
            (WHY_NAMED_MIN_WORDS..spans.len())
                .rev()
                .map(|n| &why[..spans[n - 1].1])
                .filter(|head| word_count(head) >= WHY_MIN_WORDS || named(head))
                .map(|head| (format!("{head} \u{2026}"), false)),
        )
        .collect();
    for (w, whole) in &whys {
        if let Some(t) = checks
            .iter()
            .map(|c| format!("{head} \u{2014} {w}; {c}"))
            .find(fits)
        {
            return (t, *whole);
        }
    }
    // A why cut short says less than the tests or codes a check names; a check that only
    // says a command passed says less than the whole why.
    if head != title {
        let whole = format!("{head} \u{2014} {why}");
        let names_tests = checks.iter().any(|c| !c.starts_with('`'));
        if !names_tests && fits(&whole) {
            return (whole, true);
        }
        if names_tests {
            return (title.to_string(), false);
        }
    }
    for (w, whole) in &whys {
        let t = format!("{head} \u{2014} {w}");
        if fits(&t) {
            return (t, *whole);
        }
    }
    (title.to_string(), false)
}

/// `title` with the unit the last message gives its new number in (`3600 → 86400` with
/// "now 86400 (24h)" → `3600 → 86400 (24h)`): a bare count of seconds or bytes tells a reader
/// less than the quantity it stands for. Only a short gloss that is itself a quantity
/// (`8 hours`, `25 MiB`), never `(was 6)`, and only when the title still fits.
fn with_value_gloss(title: &str, message: &str) -> String {
    let Some(at) = title.find(" \u{2192} ") else {
        return title.to_string();
    };
    let after = &title[at + " \u{2192} ".len()..];
    // `1,000` is one number; the `,` after a value in a list of settings is not its own.
    let end = after.find([' ', ';', ')']).unwrap_or(after.len());
    let value = after[..end].trim_end_matches(',');
    let end = value.len();
    if value.is_empty()
        || !value
            .chars()
            .all(|c| c.is_ascii_digit() || "_.,".contains(c))
    {
        return title.to_string();
    }
    let gloss = message.match_indices(value).find_map(|(i, _)| {
        let before = message[..i].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '.') {
            return None;
        }
        let rest = message[i + value.len()..].trim_start_matches('`');
        // `28800 seconds (8 hours)`: one unit word may stand between the number and its gloss.
        let rest = match rest.strip_prefix(' ') {
            Some(r) if !r.starts_with('(') => {
                let w = r.find(' ').unwrap_or(r.len());
                (r[..w].chars().all(char::is_alphabetic) && w <= 10).then(|| &r[w..])?
            }
            _ => rest,
        };
        let inner = rest.strip_prefix(" (")?;
        let inner = &inner[..inner.find(')')?];
        let quantity = inner.starts_with(|c: char| c.is_ascii_digit() || c == '~')
            && inner.split_whitespace().count() <= 2
            && inner.chars().any(|c| c.is_alphabetic())
            && !inner.contains(['(', '`']);
        quantity.then_some(inner)
    });
    match gloss {
        Some(g) => {
            let cut = at + " \u{2192} ".len() + end;
            let t = format!("{} ({g}){}", &title[..cut], &title[cut..]);
            if crate::text::columns(&t) <= TITLE_MAX {
                t
            } else {
                title.to_string()
            }
        }
        None => title.to_string(),
    }
}

/// Words a why in a title does without: articles (possessives and fillers were tried too and
/// changed no row of the development sets).
const TERSE_DROPS: &[&str] = &["the", "a", "an"];
/// Words after which `a` is a number, not an article (`a few secs`, `a week`).
const A_COUNTS: &[&str] = &[
    "few", "little", "lot", "bit", "couple", "second", "minute", "hour", "day", "week", "month",
    "year", "cent", "dozen", "hundred", "thousand", "million",
];

/// `text` without the words of `TERSE_DROPS` (outside code spans): a title's telegraphic style.
fn terse(text: &str) -> String {
    let quoted = spans(text, false);
    let mut out = String::with_capacity(text.len());
    for (a, b) in words(text, false) {
        let word = &text[a..b];
        let inside = quoted.iter().any(|&(qa, qb)| qa < b && a < qb);
        let next = text[b..].split_whitespace().next().unwrap_or("");
        // `a few`, `a week`: an article that counts stays.
        let counts = A_COUNTS.contains(
            &next
                .trim_end_matches([',', '.'])
                .to_ascii_lowercase()
                .as_str(),
        );
        if !inside && !counts && TERSE_DROPS.contains(&word.to_ascii_lowercase().as_str()) {
            continue;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// Puts `why` in the title as far as it fits (`with_why`), the whole of it in the subtitle
/// when the title cut it, and the check the title had to leave out at the subtitle's end.
fn give_why(d: &mut Draft, why: &str) {
    let had = d
        .checks
        .iter()
        .find(|c| d.title.ends_with(c.as_str()))
        .cloned();
    let (title, whole) = with_why(&d.title, why, &d.checks);
    d.title = title;
    if !whole {
        keep_why(d, why);
    }
    let kept = d.checks.iter().any(|c| d.title.ends_with(c.as_str()));
    if let Some(check) = had.filter(|_| !kept)
        && !d.subtitle.contains(check.as_str())
    {
        d.subtitle = if d.subtitle.is_empty() {
            check
        } else {
            format!(
                "{}; {check}",
                d.subtitle.trim_end_matches(['.', '\u{3002}'])
            )
        };
    }
}

/// What the last message says a file the turn created holds (`Added `scripts/wait-for-db.sh`:
/// polls `pg_isready` once a second …` → `polls `pg_isready` once a second …`): the words
/// after the file's mention, up to the end of their sentence, when they are a few.
fn created_holds(path: &str, message: &str) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let (at, len) = [path, name]
        .iter()
        .find_map(|needle| message.find(*needle).map(|i| (i, needle.len())))?;
    let mut rest = message[at + len..].trim_start_matches('`');
    // `Dockerfile` and `.dockerignore`: … (`和`, `、`): what follows the last file named.
    for joint in [" and `", " & `", " \u{548c} `", "\u{548c} `", "\u{3001}`"] {
        if let Some(r) = rest.strip_prefix(joint)
            && let Some(close) = r.find('`')
        {
            rest = &r[close + 1..];
            break;
        }
    }
    // `path`（已 `chmod +x`）：…: an aside before the colon is no description.
    for (open, close) in [(" (", ')'), ("\u{ff08}", '\u{ff09}')] {
        if let Some(r) = rest.strip_prefix(open)
            && let Some(end) = r.find(close)
            && r[end + close.len_utf8()..].starts_with([':', '\u{ff1a}'])
        {
            rest = &r[end + close.len_utf8()..];
        }
    }
    // `path`: …, `path`, which …, `path`, a partial index …, `path` (2 tests, fake clock).
    let rest = if let Some(r) = rest.strip_prefix([':', '\u{ff1a}']) {
        r
    } else if let Some(r) = rest.strip_prefix(',') {
        // `, which creates …`, `, a partial index on …`; not `, and all 12 tests pass`.
        let r = r.trim_start();
        match r.strip_prefix("which ") {
            Some(held) => held,
            None if ["a ", "an ", "the ", "one "]
                .iter()
                .any(|o| r.starts_with(o)) =>
            {
                r
            }
            None => return None,
        }
    } else if let Some(r) = rest.strip_prefix(" (") {
        &r[..r.find(')')?]
    } else if let Some(r) = rest.strip_prefix('\u{ff08}') {
        &r[..r.find('\u{ff09}')?]
    } else {
        return None;
    };
    let rest = flat(rest.trim_start_matches(|c: char| c.is_whitespace() || c == '-'));
    let end = rest
        .match_indices(". ")
        .map(|(i, _)| i)
        .find(|&i| !ends_with_abbreviation(&rest[..=i]))
        .into_iter()
        .chain(rest.find('\u{3002}'))
        .min()
        .unwrap_or(rest.len());
    let held = rest[..end].trim_end_matches(['.', ';', ':', ',']).trim();
    (word_count(held) >= 3).then(|| held.to_string())
}

/// Puts `why` in front of the subtitle unless the title or the subtitle already says it: what
/// the title has no room for is still one fetch-free line away.
fn keep_why(d: &mut Draft, why: &str) {
    // A why cut at its word limit (`… give up way too …`) is said by a subtitle holding it whole.
    let core = why.trim_end_matches('\u{2026}').trim_end().to_lowercase();
    let said = |t: &str| t.to_lowercase().contains(&core);
    if said(&d.title) || said(&d.subtitle) {
        return;
    }
    d.subtitle = if d.subtitle.is_empty() {
        why.to_string()
    } else {
        format!("{why} \u{2014} {}", d.subtitle)
    };
}

fn first_paragraph(text: &str) -> Option<String> {
    let paragraph: Vec<&str> = text
        .lines()
        .map(str::trim)
        .skip_while(|l| l.is_empty())
        .take_while(|l| !l.is_empty())
        .collect();
    let p = flat(&paragraph.join("\n"));
    (!p.is_empty()).then_some(p)
}

fn clip_at_words(text: &str, max_words: usize) -> String {
    let spans = words(text, false);
    match spans.get(max_words) {
        Some(_) => format!("{} \u{2026}", &text[..spans[max_words - 1].1]),
        None => text.to_string(),
    }
}

/// `text` within `max` columns, cut after a sentence or clause (`. `, `; `, `: `, `，。；：`)
/// when one ends in its last fifth, else at a word: the rest goes on in the subtitle. A row
/// that stops at a short first sentence (`It's almost all fixture setup, not the tests
/// themselves.`) leaves out what the next one names (`big_dataset` in `tests/conftest.py`);
/// ending where a clause ends counted from half the width gave 526 of 899 facts in the
/// development sets' rows, from four fifths 534.
fn clip_clause(text: &str, max: usize) -> String {
    if crate::text::columns(text) <= max {
        return text.to_string();
    }
    let quoted = spans(text, false);
    let mut best: Option<usize> = None;
    for (i, c) in text.char_indices() {
        let end = i + c.len_utf8();
        if crate::text::columns(&text[..end]) + 2 > max {
            break;
        }
        let latin = matches!(c, '.' | ';' | ':' | '!' | '?')
            && text[end..].starts_with(' ')
            && !ends_with_abbreviation(&text[..end]);
        let cjk = matches!(
            c,
            '\u{3002}' | '\u{ff0c}' | '\u{ff1b}' | '\u{ff1a}' | '\u{ff01}' | '\u{ff1f}'
        );
        let inside = quoted.iter().any(|&(a, b)| a < end && end < b);
        if (latin || cjk) && !inside && crate::text::columns(&text[..end]) * 5 >= max * 4 {
            best = Some(end);
        }
    }
    match best {
        Some(end) => {
            let head = text[..end].trim_end_matches([';', ':', '\u{ff0c}', '\u{ff1b}', '\u{ff1a}']);
            if head.ends_with(super::draft::SENTENCE_ENDS) {
                head.to_string()
            } else {
                format!("{head} \u{2026}")
            }
        }
        None => clip_words(text, max),
    }
}

/// Fewest words an outcome needs to stand as a title ("Done.", "Plan approved." do not).
const MIN_OUTCOME_WORDS: usize = 4;

/// A token that names something rather than being an ordinary word: a path, a
/// `snake_case`/`CamelCase`/`Foo::bar` name, a number, a file name.
fn is_name(token: &str) -> bool {
    let t = token.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
    if t.chars().count() < 2 {
        return false;
    }
    let inner_upper = t.chars().skip(1).any(char::is_uppercase);
    let all_upper = t
        .chars()
        .filter(|c| c.is_alphabetic())
        .all(char::is_uppercase);
    t.contains(['_', '.', '/', ':'])
        || t.chars().any(|c| c.is_ascii_digit())
        || (inner_upper && !all_upper)
}

/// Whether the outcome speaks about this turn's work rather than being small talk or a vague
/// "It does not exist.": it is a statement of a few words that names something (a path, a
/// symbol, a number) the rules saw in the turn's tool I/O, in any of its observations.
fn grounded(outcome: &str, drafts: &[Draft]) -> bool {
    if outcome.split_whitespace().count() < MIN_OUTCOME_WORDS {
        return false;
    }
    let seen = drafts
        .iter()
        .map(|d| {
            format!(
                "{} {} {} {}",
                d.title,
                d.facts.join(" "),
                d.files_read.join(" "),
                d.files_modified.join(" "),
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase();
    outcome
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';' | '`' | '\'' | '"'))
        .filter(|w| is_name(w))
        .map(|w| {
            let w = w.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_'));
            // `src/config/flags.ts:11` is the file the turn read, at a line.
            let w = match w.split_once(':') {
                Some((path, line)) if line.chars().all(|c| c.is_ascii_digit() || c == ':') => path,
                _ => w,
            };
            w.to_lowercase()
        })
        .any(|w| seen.contains(&w))
}

/// Gives the turn's most significant observation the turn's own words: its subtitle becomes
/// `request → outcome`; a turn that changed nothing (a question answered, a check run, a
/// subagent's findings) is titled by its outcome, and the rules' title, which says how it was
/// found, moves into the subtitle. A stated decision makes the observation a decision.
pub(crate) fn give_voice(drafts: &mut [Draft], prompt: &str, last_message: Option<&str>) {
    let changed = drafts.iter().any(|d| d.obs_type.changes_code());
    let request = request(prompt);
    // Whether the message speaks of this turn's work is judged on what it says up front, not
    // on its first sentence alone ("Added `scripts/backup.sh`:" names the file; a list follows).
    let said = last_message.and_then(told);
    let outcome = last_message
        .and_then(outcome)
        .filter(|o| concludes(o).is_some() || said.as_deref().is_some_and(|s| grounded(s, drafts)));
    let join = |what: &str| match &request {
        Some(r) => format!("{r} \u{2192} {what}"),
        None => what.to_string(),
    };
    let Some(primary) = drafts.first_mut() else {
        return;
    };
    let Some(outcome) = outcome else {
        // The last message says nothing of its own ("All set."); the request still says why,
        // and for work asked for in so many words, what.
        if primary.obs_type.changes_code() {
            if let Some(why) = why(prompt, None) {
                give_why(primary, &why);
            } else if let Some(r) = &request {
                primary.subtitle = if primary.subtitle.is_empty() {
                    r.clone()
                } else {
                    join(&primary.subtitle)
                };
            }
        }
        return;
    };
    let said = said.unwrap_or_else(|| outcome.clone());
    // What a created file defines, when what it holds takes the title's room.
    let mut defined: Option<String> = None;
    if primary.obs_type.changes_code() {
        primary.title = with_value_gloss(&primary.title, last_message.unwrap_or(""));
        if let [path] = primary.files_modified.as_slice()
            && primary.title.starts_with(&format!("Created {path}"))
            && let Some(held) = created_holds(path, last_message.unwrap_or(""))
        {
            // Only as much of it as says something: a deep path leaves room for a word or
            // two (`… .sql: a partial index …`), less than the symbols it defines.
            let head = format!("Created {path}: ");
            let with = clip_clause(&format!("{head}{held}"), TITLE_MAX);
            let said = with.strip_prefix(&head).unwrap_or("");
            if word_count(said.trim_end_matches('\u{2026}')) >= CREATED_HOLDS_MIN_WORDS {
                // The names it defines stay one line away.
                let names = primary
                    .title
                    .strip_prefix(&format!("Created {path} ("))
                    .and_then(|r| r.split_once(')'))
                    .map(|(names, _)| names.to_string())
                    .filter(|n| !n.ends_with(" lines") && !n.ends_with(" line"));
                primary.title = with;
                defined = names;
            }
        }
    }
    if changed || primary.obs_type == ObsType::Decision {
        primary.subtitle = join(&said);
        if let Some(names) = defined {
            primary.subtitle = format!("{} Defines {names}.", primary.subtitle);
        }
        if primary.obs_type.changes_code() {
            match why(prompt, Some(&outcome)) {
                Some(why) => give_why(primary, &why),
                // A title that can only give a file and its size (`Changed a.cs (+6 −4)`)
                // takes what the message says came of it instead (the subtitle says it whole).
                None if says_only_size(&primary.title) => {
                    let what = lower_first(&without_interjection(&said));
                    primary.title = with_why(&primary.title, &what, &primary.checks).0;
                }
                None => {}
            }
        }
    } else {
        let how = std::mem::take(&mut primary.title);
        // The answer as far as the title holds it: a short first sentence goes on into the
        // next one or the list it opens (`… has 4 call sites in 3 files: src/api/orders.ts; …`).
        let (said, outcome) = (plain(&said), plain(&outcome));
        let answer = if said.starts_with(outcome.as_str()) {
            &said
        } else {
            &outcome
        };
        primary.title = clip_clause(&without_label(&without_interjection(answer)), TITLE_MAX);
        let covered = primary
            .title
            .trim_end_matches(" \u{2026}")
            .trim_end_matches('\u{2026}');
        // The rest of what was said, then how it was found (the files it names).
        let rest = said
            .find(covered)
            .map(|at| {
                // `…, not in the pool — the pool has no request to replay.` goes on after
                // the dash, not with it.
                said[at + covered.len()..].trim_start_matches(|c: char| {
                    c.is_whitespace() || "\u{2014}\u{2013}-,;:\u{ff0c}\u{ff1b}\u{ff1a}".contains(c)
                })
            })
            .or_else(|| said.strip_prefix(outcome.as_str()).map(str::trim))
            .filter(|r| word_count(r) >= 3);
        primary.subtitle = match rest {
            Some(rest) => join(&format!("{rest} ({how})")),
            None => join(&how),
        };
        if concludes(&outcome) == Some(true) {
            primary.obs_type = ObsType::Decision;
        }
    }
    let tail = format!(
        " Outcome: \u{201c}{}\u{201d}",
        clip_words(&flat(&before_next_steps(last_message.unwrap_or(""))), 400)
    );
    primary.narrative.push_str(&tail);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_opening_interjection_goes_with_its_mark() {
        assert_eq!(
            without_interjection("Yes: all 45 tests pass now"),
            "All 45 tests pass now"
        );
        assert_eq!(
            without_interjection(
                "Done \u{2014} `scripts/cleanup.sh --dry-run` lists what it would delete"
            ),
            "`scripts/cleanup.sh --dry-run` lists what it would delete"
        );
        assert_eq!(
            without_interjection("Done - the flag is gone from every config"),
            "The flag is gone from every config"
        );
        // A word that only begins like one keeps it, and so does a short rest.
        assert_eq!(
            without_interjection("Done-ness checks now run on every deploy"),
            "Done-ness checks now run on every deploy"
        );
        assert_eq!(
            without_interjection("Done \u{2014} merged."),
            "Done \u{2014} merged."
        );
        assert_eq!(
            without_interjection("No -1 is returned for missing keys"),
            "No -1 is returned for missing keys"
        );
        assert_eq!(
            without_interjection("Done\n- added the flag\n- wrote the test"),
            "Done\n- added the flag\n- wrote the test"
        );
        assert_eq!(
            without_interjection("Solved \u{2014} the cache was stale"),
            "Solved \u{2014} the cache was stale"
        );
    }

    #[test]
    fn chinese_sentences_and_clauses_end_where_their_punctuation_says() {
        assert_eq!(
            sentences(
                "高峰期下单接口经常 502，日志里是连接池耗尽。帮我看看 src/pool.py，把连接池调大。"
            ),
            vec![
                "高峰期下单接口经常 502，日志里是连接池耗尽。",
                "帮我看看 src/pool.py，把连接池调大。"
            ]
        );
        assert_eq!(
            why(
                "高峰期下单接口经常 502，日志里是连接池耗尽。帮我看看 src/pool.py，把连接池调大并确保错误分支也会归还连接。",
                None
            )
            .as_deref(),
            Some("高峰期下单接口经常 502")
        );
        assert_eq!(
            sentences("运行 `echo 好。吗` 看看"),
            vec!["运行 `echo 好。吗` 看看"]
        );
        assert_eq!(word_count("连接池耗尽"), 3);
        // Characters beyond the BMP (CJK Extension B, emoji) neither split nor break a clause.
        assert_eq!(word_count("𠀀𠀁𠀂𠀃"), 2);
        assert_eq!(
            why(
                "𠮷野家的接口经常 502 🙂，日志里是连接池耗尽。修一下。",
                None
            )
            .as_deref(),
            Some("𠮷野家的接口经常 502 🙂")
        );
        assert_eq!(word_count("raise the pool"), 3);
    }

    #[test]
    fn sentences_end_between_words_not_inside_names() {
        assert_eq!(
            sentences(
                "Fixed: parse_header in src/parser.rs split at the last colon; so `Host: example.com:8080. x` keeps its port. All 3 tests pass."
            ),
            vec![
                "Fixed: parse_header in src/parser.rs split at the last colon; so `Host: example.com:8080. x` keeps its port.",
                "All 3 tests pass."
            ]
        );
        assert_eq!(
            sentences("Use e.g. this. Then"),
            vec!["Use e.g. this.", "Then"]
        );
    }

    #[test]
    fn outcome_is_the_first_statement_before_next_steps() {
        assert_eq!(
            outcome("Done.\nThe window is 300 s now.\n\nNext: add a test.").as_deref(),
            Some("Done. The window is 300 s now.")
        );
        assert_eq!(
            outcome("TODO: everything").as_deref(),
            None,
            "only next steps is no outcome"
        );
        assert_eq!(
            request("Tokens expire early. Change the window.").as_deref(),
            Some("Tokens expire early.")
        );
        // A list is said as `told` says it, so the title is found again in what was told.
        let listed = "Two buckets have no versioning:\n- `audit_logs`: SOC2 will ask\n- `tmp_uploads`: expires daily";
        let first = outcome(listed).unwrap_or_default();
        assert_eq!(
            first,
            "Two buckets have no versioning: `audit_logs`: SOC2 will ask; `tmp_uploads`: expires daily"
        );
        assert!(told(listed).unwrap_or_default().starts_with(&first[..40]));
    }

    #[test]
    fn an_answer_row_goes_on_past_a_short_first_sentence() {
        let answer = "It's almost all fixture setup, not the tests themselves. `big_dataset` in `tests/conftest.py` is function-scoped and inserts 200,000 rows.";
        assert_eq!(
            clip_clause(answer, 100),
            "It's almost all fixture setup, not the tests themselves. `big_dataset` in `tests/conftest.py` is \u{2026}"
        );
        // Chinese (and Han outside the BMP) is cut between characters, within the columns.
        let zh = "𠮷野家的连接池耗尽了。错误分支没有归还连接，每次失败都会少一个，高峰期二十个连接很快就用完，接口就开始返回五百零二错误，日志里全是等待连接超时的记录。";
        let row = clip_clause(zh, 100);
        assert!(
            row.starts_with("𠮷野家的连接池耗尽了。错误分支没有归还连接")
                && row.ends_with('\u{2026}')
                && crate::text::columns(&row) <= 100,
            "{row}"
        );
        // A sentence that ends in the last fifth of the row ends it.
        let long = "The pool ran dry because every error branch skipped release() and kept its connection for good. Then the next request waited.";
        assert_eq!(
            clip_clause(long, 100),
            "The pool ran dry because every error branch skipped release() and kept its connection for good."
        );
    }

    #[test]
    fn a_question_turn_is_titled_by_its_answer() {
        let mut d = vec![Draft::new(ObsType::Discovery, "Read src/db/pool.rs")];
        d[0].read("src/db/pool.rs");
        give_voice(
            &mut d,
            "How does the pool wait when all connections are busy?",
            Some("acquire() in src/db/pool.rs waits on a Condvar.\n\nAnything else?"),
        );
        assert_eq!(
            d[0].title,
            "acquire() in src/db/pool.rs waits on a Condvar."
        );
        assert_eq!(
            d[0].subtitle,
            "How does the pool wait when all connections are busy? \u{2192} Read src/db/pool.rs"
        );
    }

    #[test]
    fn the_why_is_the_stated_problem_or_what_it_led_to() {
        assert_eq!(
            why(
                "Requests to the billing API time out under load. Raise it.",
                None
            )
            .as_deref(),
            Some("requests to the billing API time out under load")
        );
        assert_eq!(
            why(
                "Make the default level info.",
                Some("DEFAULT_LEVEL is now info, so startup messages are logged.")
            )
            .as_deref(),
            Some("startup messages are logged")
        );
        assert_eq!(
            why("CI is red on clippy. Fix it.", None).as_deref(),
            Some("CI is red on clippy")
        );
        assert_eq!(
            why("A session start was rejected. Fix it.", None).as_deref(),
            Some("a session start was rejected")
        );
        assert_eq!(
            why("PoolConfig grew a field. Fix it.", None).as_deref(),
            Some("PoolConfig grew a field")
        );
        assert_eq!(why("Fix the parser.", Some("Fixed it.")), None);
        assert_eq!(why("Why is it slow?", None), None);
        // A label before a colon is not the why; the sentence is. `??` is no question.
        assert_eq!(
            why("weird bug: every job gets the same tags?? see job.py", None).as_deref(),
            Some("weird bug: every job gets the same tags")
        );
        assert_eq!(
            why(
                "nightly reports fire at 01:00 UTC on the new box. fix",
                None
            )
            .as_deref(),
            Some("nightly reports fire at 01:00 UTC on the new box")
        );
        assert_eq!(
            why(
                "revert the http2 ingress change (4be07c1), the grpc-web clients are getting RST_STREAM since it went out",
                None
            )
            .as_deref(),
            Some("the grpc-web clients are getting RST_STREAM since it went out")
        );
        assert_eq!(why("fix the parser, then run the tests", None), None);
        assert_eq!(
            why(
                "add a retry to the upload, you can use the backoff helper in utils",
                None
            ),
            None,
            "a second instruction is no reason"
        );
        assert_eq!(
            why("fix the flaky test, don't touch the fixtures though", None),
            None
        );
        assert_eq!(
            why(
                "revert the retry, timeout and pool changes, because the deploy broke checkout",
                None
            )
            .as_deref(),
            Some("the deploy broke checkout")
        );
        assert_eq!(
            why("The pool deadlocks under load: fix it", None).as_deref(),
            Some("the pool deadlocks under load")
        );
        assert_eq!(
            why("looks good, commit it", None),
            None,
            "an approval is no why"
        );
        // A problem opening with a noun that begins like a request stays a why (`请求` is
        // "request", `加载` "loading").
        for problem in [
            "\u{8bf7}\u{6c42} /api/orders \u{5728}\u{9ad8}\u{5cf0}\u{671f}\u{8d85}\u{65f6}\u{ff0c}\u{5e2e}\u{6211}\u{770b}\u{770b}",
            "\u{52a0}\u{8f7d}\u{8ba2}\u{5355}\u{9875}\u{9762}\u{8981} 8 \u{79d2}\u{ff0c}\u{5e2e}\u{6211}\u{4f18}\u{5316}",
            "Release builds crash on startup since the NDK bump.",
        ] {
            assert!(why(problem, None).is_some(), "{problem}");
        }
        // A Chinese request is no why either; the problem stated before it is.
        assert_eq!(
            why(
                "\u{5e2e}\u{6211}\u{628a} POOL_SIZE \u{8c03}\u{5927}\u{3002}",
                None
            ),
            None
        );
        assert_eq!(
            why("\u{9ad8}\u{5cf0}\u{671f}\u{7ecf}\u{5e38} 502\u{ff0c}\u{8fde}\u{63a5}\u{6c60}\u{8017}\u{5c3d}\u{3002}\u{5e2e}\u{6211}\u{770b}\u{770b}", None).as_deref(),
            Some("\u{9ad8}\u{5cf0}\u{671f}\u{7ecf}\u{5e38} 502")
        );
        let checks = ["t::f passes".to_string(), "`cargo test` passes".to_string()];
        assert_eq!(
            with_why(
                "Fixed f in a.rs: 1 \u{2192} 2; `cargo test` passes",
                "it broke",
                &checks
            )
            .0,
            "Fixed f in a.rs: 1 \u{2192} 2 \u{2014} it broke; t::f passes"
        );
        assert_eq!(
            with_why("Fixed f in a.rs: 1 \u{2192} 2", "it broke", &checks).0,
            "Fixed f in a.rs: 1 \u{2192} 2 \u{2014} it broke; t::f passes",
            "a check the rule's title had no room for still comes after the why"
        );
        let long = "the nightly job cancels fresh unpaid orders and keeps the stale ones around for weeks, which support hears about from angry customers every single morning";
        let t = with_why("Fixed f in a.rs: 1 \u{2192} 2", long, &checks).0;
        assert!(
            t.starts_with("Fixed f in a.rs: 1 \u{2192} 2 \u{2014} nightly job cancels")
                && t.ends_with("\u{2026}; t::f passes")
                && crate::text::columns(&t) <= TITLE_MAX,
            "a long why loses its last words before the check goes: {t}"
        );
        assert_eq!(
            with_why("Fixed f in a.rs: 1 \u{2192} 2", "it broke", &[]).0,
            "Fixed f in a.rs: 1 \u{2192} 2 \u{2014} it broke"
        );
        // Room for five words of the why: enough when they name something, not otherwise.
        let title =
            "node-version in .github/workflows/ci.yml (ci): `[16, 18]` \u{2192} `[18, 20, 22]`";
        assert_eq!(
            with_why(
                title,
                "node 16 is EOL and setup-node keeps warning about it",
                &[]
            )
            .0,
            format!("{title} \u{2014} node 16 is EOL and \u{2026}")
        );
        assert_eq!(
            with_why(
                title,
                "the search box is way too eager when people type",
                &[]
            )
            .0,
            title
        );
        assert_eq!(
            with_why(
                title,
                "it is, e.g. here, way too eager when people type",
                &[]
            )
            .0,
            title,
            "an abbreviation names nothing"
        );
    }

    #[test]
    fn a_created_file_is_told_by_what_the_message_says_it_holds() {
        assert_eq!(
            created_holds(
                "scripts/wait-for-db.sh",
                "Added `scripts/wait-for-db.sh`: polls `pg_isready` once a second, e.g. for 60s. shellcheck is clean."
            )
            .as_deref(),
            Some("polls `pg_isready` once a second, e.g. for 60s")
        );
        assert_eq!(
            created_holds(
                "db/migrations/0057_idx.sql",
                "Added `db/migrations/0057_idx.sql`, which creates `idx_orders_customer_id` on `orders`."
            )
            .as_deref(),
            Some("creates `idx_orders_customer_id` on `orders`")
        );
        assert_eq!(
            created_holds(
                "internal/rl/bucket_test.go",
                "Added `bucket_test.go` (2 tests, fake clock). Both pass."
            )
            .as_deref(),
            Some("2 tests, fake clock")
        );
        // A mention with nothing said of it, or too little.
        assert_eq!(
            created_holds("scripts/rotate-logs.sh", "Added `scripts/rotate-logs.sh`."),
            None
        );
        assert_eq!(created_holds("a/b.md", "Wrote `a/b.md`: done."), None);
        assert_eq!(created_holds("a/b.md", "All set."), None);
        assert_eq!(
            created_holds(
                "tests/test_rate.py",
                "Added `tests/test_rate.py`, and all 12 tests pass now."
            ),
            None,
            "what came after is no description"
        );
        assert_eq!(
            created_holds(
                "Dockerfile",
                "Wrote `Dockerfile` and `.dockerignore`: two stages, node 20 on alpine."
            )
            .as_deref(),
            Some("two stages, node 20 on alpine")
        );
        assert_eq!(
            created_holds(
                "scripts/pg.sh",
                "已新建 `scripts/pg.sh`（已 `chmod +x`）：`pg_dump` 输出经 `gzip` 压缩后上传。"
            )
            .as_deref(),
            Some("`pg_dump` 输出经 `gzip` 压缩后上传")
        );
        assert_eq!(
            created_holds(
                "internal/rl/limiter.go",
                "新增 `internal/rl/limiter.go`：按用户 ID 做令牌桶限流，每秒 10 次。测试通过。"
            )
            .as_deref(),
            Some("按用户 ID 做令牌桶限流，每秒 10 次")
        );
    }

    #[test]
    fn a_chinese_recommendation_is_a_decision_and_its_list_stays_in_the_subtitle() {
        let message = "\u{5efa}\u{8bae}\u{4fdd}\u{7559} Redis \u{9501}\u{3002}\u{7406}\u{7531}\u{ff1a}\n1. \u{73b0}\u{5728}\u{7528}\u{7684}\u{662f} Redisson \u{7684} `tryLock`\n2. \u{771f}\u{6b63}\u{9632}\u{8d85}\u{5356}\u{7684}\u{662f} `available >= #{qty}`";
        assert_eq!(outcome(message).as_deref().and_then(concludes), Some(true));
        let mut d = vec![Draft::new(ObsType::Discovery, "Read StockLockService.java")];
        give_voice(
            &mut d,
            "\u{503c}\u{4e0d}\u{503c}\u{5f97}\u{6362}\u{ff1f}",
            Some(message),
        );
        assert_eq!(d[0].obs_type, ObsType::Decision);
        assert!(
            d[0].title
                .starts_with("\u{5efa}\u{8bae}\u{4fdd}\u{7559} Redis"),
            "{}",
            d[0].title
        );
        assert!(
            format!("{} {}", d[0].title, d[0].subtitle).contains("available >= #{qty}"),
            "{d:#?}"
        );
    }

    #[test]
    fn a_list_is_joined_alike_for_the_title_and_the_subtitle() {
        let message =
            "- access token\u{ff1a}30 \u{5206}\u{949f}\n- refresh token\u{ff1a}14 \u{5929}";
        let said = told(message).unwrap_or_default();
        let outcome = outcome(message).unwrap_or_default();
        assert!(said.starts_with(&outcome), "{said:?} / {outcome:?}");
        assert!(
            said.contains("30 \u{5206}\u{949f}\u{ff1b}refresh"),
            "{said:?}"
        );
        // A Markdown hard break (two spaces) before the list changes nothing.
        let hard = "Summary of it  \n- a thing";
        assert!(
            told(hard)
                .unwrap_or_default()
                .starts_with(&super::outcome(hard).unwrap_or_default())
        );
    }

    #[test]
    fn text_outside_the_basic_plane_is_cut_and_searched_on_character_bounds() {
        // 𠮷 (U+20BB7) takes four bytes: every cut and search stays on its bounds.
        assert_eq!(
            terse("the \u{20bb7}\u{20bb7} a cache"),
            "\u{20bb7}\u{20bb7} cache"
        );
        assert_eq!(
            created_holds(
                "src/\u{20bb7}.rs",
                "\u{65b0}\u{589e} `src/\u{20bb7}.rs`\u{ff1a}\u{20bb7}\u{20bb7} \u{6309}\u{7528}\u{6237} ID \u{9650}\u{6d41}\u{3002}"
            )
            .as_deref(),
            Some("\u{20bb7}\u{20bb7} \u{6309}\u{7528}\u{6237} ID \u{9650}\u{6d41}")
        );
        assert_eq!(
            with_value_gloss(
                "T in a.py: 3 \u{2192} 30",
                "\u{20bb7}30 \u{20bb7} 30 (30 s)"
            ),
            "T in a.py: 3 \u{2192} 30 (30 s)"
        );
        let mut d = Draft::new(ObsType::Change, "f in a.rs: 1 \u{2192} 2");
        give_why(&mut d, &"\u{20bb7}\u{6162}".repeat(40));
        assert!(crate::text::columns(&d.title) <= TITLE_MAX, "{}", d.title);
    }

    #[test]
    fn a_new_number_takes_the_quantity_the_message_gives_it() {
        let title = "SESSION_TTL_SECONDS in app/sessions/store.py: 3600 \u{2192} 86400";
        assert_eq!(
            with_value_gloss(
                title,
                "Done \u{2014} `SESSION_TTL_SECONDS` is now 86400 (24h)."
            ),
            format!("{title} (24h)")
        );
        assert_eq!(
            with_value_gloss(
                "AGE in base.py: 1209600 \u{2192} 28800; `pytest` passes",
                "I set `AGE` to 28800 seconds (8 hours) and updated the comment."
            ),
            "AGE in base.py: 1209600 \u{2192} 28800 (8 hours); `pytest` passes"
        );
        assert_eq!(
            with_value_gloss(
                "T in a.py: 500 \u{2192} 1,000",
                "Timeout stays 1 (1 second) and T is 1,000 (1 s)."
            ),
            "T in a.py: 500 \u{2192} 1,000 (1 s)",
            "a number with a thousands separator is one number"
        );
        // What was before is no quantity; nor is a longer aside, nor another number's gloss.
        for message in [
            "maxReplicas is 12 (was 6) now",
            "it is 12 (the most the node pool allows) now",
            "port 8012 (8 workers) stays; maxReplicas is 12",
        ] {
            assert_eq!(
                with_value_gloss("maxReplicas in hpa.yaml: 6 \u{2192} 12", message),
                "maxReplicas in hpa.yaml: 6 \u{2192} 12",
                "{message}"
            );
        }
    }

    #[test]
    fn a_why_with_no_room_is_said_tersely_and_the_command_check_moves_to_the_subtitle() {
        assert_eq!(
            terse("the backup job said `a b` for a week while the dump failed"),
            "backup job said `a b` for a week while dump failed"
        );
        let mut d = Draft::new(
                ObsType::Change,
                "@backoff_factor in lib/courier/retry.ex: 1.2 \u{2192} 2.0; `mix test test/courier/retry_test.exs` passes",
            )
            .checked(vec![
                "`mix test test/courier/retry_test.exs` passes".to_string(),
                "`mix test \u{2026}` passes".to_string(),
            ]);
        give_why(
            &mut d,
            "postmark is rate limiting us during incidents because our retries come back almost immediately",
        );
        let t = &d.title;
        assert!(
            t.starts_with("@backoff_factor in lib/courier/retry.ex: 1.2 \u{2192} 2.0 \u{2014} postmark is rate limiting")
                && crate::text::columns(t) <= TITLE_MAX,
            "{t}"
        );
        assert!(
            d.subtitle
                .starts_with("postmark is rate limiting us during incidents because")
                && d.subtitle
                    .ends_with("; `mix test test/courier/retry_test.exs` passes"),
            "{}",
            d.subtitle
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Any request and last message (any script, quotes, backticks, line breaks): no
        /// panic, titles within their limit, every field one line.
        #[test]
        fn any_words_give_one_line_fields_within_limits(
            prompt in "(?s).{0,200}",
            said in "(?s)[a-zA-Z0-9_/.:`'\" \n\u{e9}\u{4e2d}\u{1f600}-]{0,300}",
        ) {
            let mut d = vec![Draft::new(ObsType::Discovery, "Read src/a_b.rs")];
            d[0].read("src/a_b.rs");
            give_voice(&mut d, &prompt, Some(&format!("src/a_b.rs {said}")));
            proptest::prop_assert!(crate::text::columns(&d[0].title) <= TITLE_MAX + 2);
            proptest::prop_assert!(!d[0].title.contains('\n') && !d[0].subtitle.contains('\n'));
            let mut w = vec![Draft::new(ObsType::Change, "f in a.rs: 1 \u{2192} 2")];
            give_voice(&mut w, &prompt, Some(&said));
            proptest::prop_assert!(crate::text::columns(&w[0].title) <= TITLE_MAX + 2);
        }

        /// Any why beside a check: within `TITLE_MAX`, what changed kept whole, the why
        /// (when there) its own first words and the check one the rule handed over.
        #[test]
        fn a_why_beside_a_check_stays_within_the_limit_and_whole(
            why in "[a-zA-Z0-9_/.:`'\" \u{e9}\u{4e2d}-]{1,300}",
        ) {
            let checks = [
                "tests::refresh_window_is_five_minutes passes".to_string(),
                "`cargo test -p auth` passes".to_string(),
            ];
            let head = "Fixed refresh_window in src/auth.rs: 30 \u{2192} 300";
            let title = format!("{head}; {}", checks[1]);
            let t = with_why(&title, &why, &checks).0;
            proptest::prop_assert!(crate::text::columns(&t) <= TITLE_MAX, "{t}");
            proptest::prop_assert!(t.starts_with(head), "{t}");
            if let Some(rest) = t.strip_prefix(&format!("{head} \u{2014} ")) {
                let said = checks
                    .iter()
                    .find_map(|c| rest.strip_suffix(c.as_str())?.strip_suffix("; "))
                    .unwrap_or(rest);
                let said = said.strip_suffix(" \u{2026}").unwrap_or(said);
                // The why as it came, or without its articles when it had no room whole.
                let source = if why.starts_with(said) { why.clone() } else { terse(&why) };
                proptest::prop_assert!(source.starts_with(said), "{t}");
                let next = source[said.len()..].chars().next();
                proptest::prop_assert!(next.is_none_or(char::is_whitespace), "cut inside a word: {t}");
            } else {
                proptest::prop_assert_eq!(&t, &title);
            }
        }
    }

    #[test]
    fn a_title_of_only_a_size_takes_what_came_of_the_change() {
        let mut d = vec![Draft::new(
            ObsType::Change,
            "Changed src/Pay.cs (+6 \u{2212}4)",
        )];
        d[0].modified("src/Pay.cs");
        give_voice(
            &mut d,
            "can you review Pay for thread safety?",
            Some("Done. `_fxCache` in src/Pay.cs is a ConcurrentDictionary now."),
        );
        assert_eq!(
            d[0].title,
            "Changed src/Pay.cs (+6 \u{2212}4) \u{2014} `_fxCache` in src/Pay.cs is a ConcurrentDictionary now."
        );
        assert!(says_only_size("Changed a.rs (+1 \u{2212}0)"));
        assert!(!says_only_size("a.rs: 1 \u{2192} 2"));
    }

    #[test]
    fn small_talk_and_vague_answers_change_nothing() {
        for said in [
            "Sure thing!",
            "It does not exist.",
            "It defines answer() and Config.",
            "HELLO",
            "Plan approved.",
        ] {
            let mut d = vec![Draft::new(ObsType::Discovery, "Read src/db/pool.rs")];
            d[0].fact("src/db/pool.rs: 40 lines; defines answer, Config, HELLO");
            give_voice(&mut d, "look", Some(said));
            assert_eq!(d[0].title, "Read src/db/pool.rs", "{said}");
        }
    }
}
