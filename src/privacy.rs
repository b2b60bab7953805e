//! Privacy before storage: tag stripping (claude-mem's tags and more) and secret redaction.
//!
//! Everything cmem stores from a prompt, a tool input/response or an assistant message passes
//! through `clean_text` / `clean_json` first, so a secret never reaches the database, its WAL or
//! the FTS shadow tables.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// Elements removed with their content. Tags nest: a region ends at the closing tag that
/// matches its opening one, so nothing inside the outermost pair survives.
///
/// A private region lives inside one string (a prompt, or one JSON string value): a `<private>`
/// left open hides the rest of that string, and a `</private>` with no opening before it hides
/// everything before it in that string (its opening tag was in another field, or was lost).
/// The other tags are context cmem or the host injected, not secrets: only their complete
/// pairs are removed.
const STRIPPED_TAGS: &[&str] = &[
    "private",
    "cmem-context",
    "claude-mem-context",
    "system_instruction",
    "system-instruction",
    "persisted-output",
    "system-reminder",
];
/// Index of `private` in `STRIPPED_TAGS`.
const PRIVATE: usize = 0;

// Patterns are ASCII-only (`(?i-u:…)`, `(?-u:\b)`, explicit classes) and each is compiled only
// when a cheap literal check says it could match: compiling every pattern costs more than a
// whole hook is allowed to take, and most texts need none of them.

/// One stripped tag found in a text.
struct TagAt {
    start: usize,
    end: usize,
    tag: usize,
    close: bool,
}

/// Every opening (`<name>`, `<name attrs>`) and closing (`</name >`) stripped tag, in order.
/// Linear in the text: the search for an opening tag's `>` is shared by all candidates.
fn find_tags(text: &str) -> Vec<TagAt> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut next_gt: Option<usize> = None;
    let mut no_more_gt = false;
    for i in memchr_iter(b'<', b) {
        let close = b.get(i + 1) == Some(&b'/');
        let name_at = i + 1 + usize::from(close);
        let rest = &b[name_at.min(b.len())..];
        let Some(tag) = STRIPPED_TAGS.iter().position(|t| {
            rest.len() >= t.len() && rest[..t.len()].eq_ignore_ascii_case(t.as_bytes())
        }) else {
            continue;
        };
        let after = name_at + STRIPPED_TAGS[tag].len();
        let is_space = |c: &u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
        let end = if close {
            let spaces = b[after..].iter().take_while(|c| is_space(c)).count();
            match b.get(after + spaces) {
                Some(b'>') => after + spaces + 1,
                _ => continue,
            }
        } else {
            match b.get(after) {
                Some(b'>') => after + 1,
                Some(c) if is_space(c) => {
                    if no_more_gt {
                        continue;
                    }
                    if next_gt.is_none_or(|g| g < after) {
                        next_gt = b[after..]
                            .iter()
                            .position(|c| *c == b'>')
                            .map(|p| after + p);
                    }
                    match next_gt {
                        Some(g) => g + 1,
                        None => {
                            no_more_gt = true;
                            continue;
                        }
                    }
                }
                _ => continue,
            }
        };
        out.push(TagAt {
            start: i,
            end,
            tag,
            close,
        });
    }
    out
}

/// Removes the stripped regions (see `STRIPPED_TAGS`); `None` when there is nothing to remove.
fn strip_regions(text: &str) -> Option<String> {
    if !has_stripped_tag(text) {
        return None;
    }
    let tags = find_tags(text);
    // Pair each closing tag with the innermost open one of the same name.
    let mut partner: Vec<Option<usize>> = vec![None; tags.len()];
    let mut open: Vec<Vec<usize>> = vec![Vec::new(); STRIPPED_TAGS.len()];
    for (i, t) in tags.iter().enumerate() {
        if !t.close {
            open[t.tag].push(i);
        } else if let Some(o) = open[t.tag].pop() {
            partner[o] = Some(i);
        }
    }
    let mut out = String::with_capacity(text.len());
    let mut copied = 0; // text before this is in `out` or removed
    let mut changed = false;
    let mut i = 0;
    while i < tags.len() {
        let t = &tags[i];
        if t.start < copied {
            i += 1; // inside a removed region
            continue;
        }
        match (t.close, partner[i]) {
            (false, Some(c)) => {
                out.push_str(&text[copied..t.start]);
                copied = tags[c].end;
                changed = true;
                i = c + 1;
                continue;
            }
            (false, None) if t.tag == PRIVATE => {
                out.push_str(&text[copied..t.start]);
                copied = text.len();
                changed = true;
                break;
            }
            // A closing private tag outside any region: what came before it was private.
            (true, _) if t.tag == PRIVATE => {
                out.clear();
                copied = t.end;
                changed = true;
            }
            _ => {}
        }
        i += 1;
    }
    if !changed {
        return None;
    }
    out.push_str(&text[copied..]);
    Some(out)
}

/// Whether `text` holds a `</private>` that no `<private>` in `text` opens. A string cut
/// before such a tag must hide what it keeps as if the tag were there.
pub(crate) fn has_lone_private_close(text: &str) -> bool {
    let mut from = 0;
    let found = loop {
        let Some(i) = text[from..].find("</").map(|i| from + i) else {
            break false;
        };
        let name = &text.as_bytes()[i + 2..];
        if name.len() >= 7 && name[..7].eq_ignore_ascii_case(b"private") {
            break true;
        }
        from = i + 2;
    };
    if !found {
        return false;
    }
    let mut depth = 0usize;
    for t in find_tags(text).iter().filter(|t| t.tag == PRIVATE) {
        if !t.close {
            depth += 1;
        } else if depth == 0 {
            return true;
        } else {
            depth -= 1;
        }
    }
    false
}

/// Whether `text` holds one of the stripped tags, opening or closing (checked before any
/// scanning).
fn has_stripped_tag(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr_iter(b'<', bytes).any(|i| {
        let rest = &bytes[i + 1..];
        let rest = rest.strip_prefix(b"/").unwrap_or(rest);
        STRIPPED_TAGS
            .iter()
            .any(|t| rest.len() >= t.len() && rest[..t.len()].eq_ignore_ascii_case(t.as_bytes()))
    })
}

fn memchr_iter(needle: u8, hay: &[u8]) -> impl Iterator<Item = usize> + '_ {
    hay.iter()
        .enumerate()
        .filter(move |(_, b)| **b == needle)
        .map(|(i, _)| i)
}

fn contains_ci(text: &str, needle: &str) -> bool {
    let (hay, n) = (text.as_bytes(), needle.as_bytes());
    hay.len() >= n.len() && hay.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// One secret pattern: its `[REDACTED:<kind>]` name, a cheap pre-check, and the regex.
struct Secret {
    kind: &'static str,
    may_match: fn(&str) -> bool,
    regex: &'static LazyLock<Regex>,
}

macro_rules! secret_regex {
    ($name:ident, $re:expr) => {
        static $name: LazyLock<Regex> = LazyLock::new(|| Regex::new($re).expect("static regex"));
    };
}

secret_regex!(
    PEM,
    r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?)(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\z)"
);
/// Where a token may start: at a word boundary, or glued to what a word boundary misses — a
/// terminal colour code (`\x1b[32mAKIA…` in a command's output) or an underscore
/// (`AWS_KEY_AKIA…`). What is glued (`pre`) is kept by the replacement.
macro_rules! token_start {
    () => {
        r"(?:(?-u:\b)|(?P<pre>\x1b\[[0-9;]*m|_))"
    };
}

/// Where a fixed-length token ends: at a word boundary or an underscore (`AKIA…_old`), kept.
macro_rules! token_end {
    () => {
        r"(?:(?-u:\b)|(?P<post>_))"
    };
}

secret_regex!(
    AWS_KEY,
    concat!(
        token_start!(),
        r"(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}",
        token_end!()
    )
);
secret_regex!(
    GITHUB,
    concat!(
        token_start!(),
        r"(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?-u:\b)"
    )
);
secret_regex!(
    ANTHROPIC,
    concat!(token_start!(), r"sk-ant-[A-Za-z0-9_\-]{20,}")
);
secret_regex!(
    OPENAI,
    concat!(
        token_start!(),
        r"sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"
    )
);
secret_regex!(
    SLACK,
    concat!(token_start!(), r"xox[abposr]-[A-Za-z0-9\-]{10,}")
);
secret_regex!(
    SLACK_HOOK,
    r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+"
);
secret_regex!(
    JWT,
    concat!(
        token_start!(),
        r"eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"
    )
);
secret_regex!(
    GOOGLE,
    concat!(token_start!(), r"AIza[0-9A-Za-z_\-]{35}(?-u:\b)")
);
secret_regex!(
    STRIPE,
    concat!(
        token_start!(),
        r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}",
        token_end!()
    )
);
secret_regex!(
    AWS_SECRET,
    r#"(?i-u:\baws_?secret_?access_?key\b)["']?[ \t]*[:=][ \t]*["']?[A-Za-z0-9/+=]{40}"#
);
secret_regex!(
    URL_CREDENTIALS,
    r"(?-u:\b)[a-z][a-z0-9+.\-]*://[^ \t\r\n:/@]+:[^ \t\r\n@/]+@"
);
secret_regex!(BEARER, r"(?i-u:\bbearer)[ \t]+[A-Za-z0-9._~+/\-]{12,}=*");

static SECRETS: &[Secret] = &[
    Secret {
        kind: "private-key",
        may_match: |t| t.contains("PRIVATE KEY"),
        regex: &PEM,
    },
    Secret {
        kind: "aws-access-key",
        may_match: |t| {
            [
                "AKIA", "ASIA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA",
            ]
            .iter()
            .any(|p| t.contains(p))
        },
        regex: &AWS_KEY,
    },
    Secret {
        kind: "github-token",
        may_match: |t| {
            ["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"]
                .iter()
                .any(|p| t.contains(p))
        },
        regex: &GITHUB,
    },
    Secret {
        kind: "anthropic-key",
        may_match: |t| t.contains("sk-ant-"),
        regex: &ANTHROPIC,
    },
    Secret {
        kind: "openai-key",
        may_match: |t| t.contains("sk-"),
        regex: &OPENAI,
    },
    Secret {
        kind: "slack-token",
        may_match: |t| t.contains("xox"),
        regex: &SLACK,
    },
    Secret {
        kind: "slack-webhook",
        may_match: |t| t.contains("hooks.slack.com"),
        regex: &SLACK_HOOK,
    },
    Secret {
        kind: "jwt",
        may_match: |t| t.contains("eyJ"),
        regex: &JWT,
    },
    Secret {
        kind: "google-api-key",
        may_match: |t| t.contains("AIza"),
        regex: &GOOGLE,
    },
    Secret {
        kind: "stripe-key",
        may_match: |t| t.contains("_live_") || t.contains("_test_"),
        regex: &STRIPE,
    },
    Secret {
        kind: "aws-secret-key",
        may_match: |t| contains_ci(t, "secret"),
        regex: &AWS_SECRET,
    },
    Secret {
        kind: "url-credentials",
        may_match: |t| t.contains("://") && t.contains('@'),
        regex: &URL_CREDENTIALS,
    },
    Secret {
        kind: "bearer-token",
        may_match: |t| contains_ci(t, "bearer"),
        regex: &BEARER,
    },
];

/// A secret found by what stands before it (a name, an option, a header): only the value
/// (the regex's `v` group) is replaced, and values that are placeholders are kept.
struct Keyed {
    may_match: fn(&str) -> bool,
    regex: &'static LazyLock<Regex>,
    /// The kind, from the `name` group when there is one.
    kind: fn(Option<&str>) -> &'static str,
}

/// A value as written after `=`/`:`/a space: quoted (an unterminated quote runs to the end of
/// the line, so a value cut short is still found) or a run without separators.
macro_rules! value {
    ($min:literal) => {
        concat!(
            r#"(?P<v>"[^"\n]{"#,
            $min,
            r#",}"?|'[^'\n]{"#,
            $min,
            r#",}'?|[^ \t\r\n"'`,;&|}{)\]]{"#,
            $min,
            r#",})"#
        )
    };
}

/// `password=…`, `token: …`, `"api_key": "…"`: the value after a secret-looking name.
#[allow(clippy::expect_used, reason = "a pattern fixed at compile time")]
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?-u:\b)(?P<name>[A-Za-z0-9_\-]*(?i-u:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key|auth[_\-]?key|private[_\-]?key|client[_\-]?secret)[A-Za-z0-9_\-]*)["']?[ \t]*[:=][ \t]*"#,
        value!(3)
    ))
    .expect("static regex")
});

/// `DB_PASS=…`, `export AWS_SECRET_ACCESS_KEY=…`: an upper-case (environment style) name with
/// a secret word as one of its `_`-separated parts, joined to its value by `=` alone. Upper
/// case, whole parts and the bare `=` keep `PASSED=3`, `BYPASS=1`, `KEYBOARD=us` and
/// `const MAX_KEY: usize` out; names of a reference to a secret (`…_PATH`, `…_FILE`, `…_ID`)
/// and `PWD` are left alone when replacing.
#[allow(clippy::expect_used, reason = "a pattern fixed at compile time")]
static ENV_ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r#"(?-u:\b)(?P<name>(?:[A-Z0-9]+_)*(?:PASS|PASSWD|PASSWORD|PASSPHRASE|PWD|SECRET|SECRETS|TOKEN|KEY|APIKEY|CREDENTIAL|CREDENTIALS|AUTH)(?:_[A-Z0-9]+)*)="#,
        value!(1)
    ))
    .expect("static regex")
});

/// `--password hunter2`, `--db-password=…`, `--api-key …`: a long option named for a secret,
/// its value joined by `=` or spaces (a value that starts with `-` is the next option).
#[allow(clippy::expect_used, reason = "a pattern fixed at compile time")]
static CLI_OPTION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"--(?P<name>(?:[A-Za-z0-9]+-)*(?i-u:password|passwd|pass|passphrase|secret|token|api-?key|access-key|secret-key|private-key|auth-token))(?:=|[ \t]+)(?P<v>"[^"\n]+"?|'[^'\n]+'?|[^- \t\r\n"'`;&|)][^ \t\r\n"'`;&|)]*)"#,
    )
    .expect("static regex")
});

/// `mysql -uroot -phunter2` and `sshpass -p hunter2`: `-p` means a password only for these
/// commands (elsewhere it is a port, a parent directory, a patch), so only they are matched.
#[allow(clippy::expect_used, reason = "a pattern fixed at compile time")]
static PASSWORD_FLAG: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?-u:\b)(?:(?:mysql|mysqldump|mysqladmin|mysqlimport|mysqlcheck|mariadb|mariadb-dump)[^\n;&|]*?[ \t]-p|sshpass[ \t]+-p[ \t]*)(?P<v>[^- \t\r\n"'`;&|)][^ \t\r\n"'`;&|)]*)"#,
    )
    .expect("static regex")
});

/// `Authorization: Basic …`, `"authorization": "Bearer …"`, `Proxy-Authorization: …`: the
/// credentials of an HTTP authorization header, whatever the scheme.
#[allow(clippy::expect_used, reason = "a pattern fixed at compile time")]
static AUTH_HEADER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?i-u:\bauthorization)["']?[ \t]*[:=][ \t]*["']?(?:(?i-u:basic|bearer|token|digest|negotiate|ntlm|apikey)[ \t]+)?(?P<v>[^ \t\r\n"',;]{4,})"#,
    )
    .expect("static regex")
});

static KEYED: &[Keyed] = &[
    Keyed {
        may_match: |t| {
            (t.contains('=') || t.contains(':'))
                && ["pass", "pwd", "secret", "token", "key"]
                    .iter()
                    .any(|w| contains_ci(t, w))
        },
        regex: &ASSIGNMENT,
        kind: |name| secret_kind(name.unwrap_or("")),
    },
    Keyed {
        may_match: |t| {
            (t.contains('=') || t.contains(':'))
                && [
                    "PASS",
                    "PWD",
                    "SECRET",
                    "TOKEN",
                    "KEY",
                    "CREDENTIAL",
                    "AUTH",
                ]
                .iter()
                .any(|w| t.contains(w))
        },
        regex: &ENV_ASSIGNMENT,
        kind: |name| secret_kind(name.unwrap_or("")),
    },
    Keyed {
        may_match: |t| t.contains("--"),
        regex: &CLI_OPTION,
        kind: |name| secret_kind(name.unwrap_or("")),
    },
    Keyed {
        may_match: |t| {
            (t.contains("mysql") || t.contains("mariadb") || t.contains("sshpass"))
                && t.contains("-p")
        },
        regex: &PASSWORD_FLAG,
        kind: |_| "password",
    },
    Keyed {
        may_match: |t| contains_ci(t, "authorization"),
        regex: &AUTH_HEADER,
        kind: |_| "authorization",
    },
];

/// Names that point at a secret rather than hold one, or hold something else.
fn is_reference_name(name: &str) -> bool {
    let n = name.to_ascii_uppercase();
    n == "PWD"
        || n == "OLDPWD"
        || [
            "_PATH", "_FILE", "_DIR", "_ID", "_NAME", "_URL", "_TYPE", "_SIZE",
        ]
        .iter()
        .any(|s| n.ends_with(s))
}

/// Names of JSON object keys whose string values are secrets as a whole.
fn is_secret_key(key: &str) -> bool {
    let k = key.to_ascii_lowercase().replace(['-', '_'], "");
    const NAMES: &[&str] = &[
        "password",
        "passwd",
        "secret",
        "token",
        "apikey",
        "accesskey",
        "authorization",
        "privatekey",
        "clientsecret",
        "accesstoken",
        "refreshtoken",
        "sessiontoken",
        "secretkey",
    ];
    let named = NAMES.iter().any(|n| k == *n || k.ends_with(n))
        // `DB_PASS`, `dbPass`, `smtp-pass`: a last part `pass`, not `bypass` or `compass`.
        || key
            .len()
            .checked_sub(4)
            .filter(|&i| key.is_char_boundary(i) && key[i..].eq_ignore_ascii_case("pass"))
            .is_some_and(|i| {
                let before = i.checked_sub(1).map(|j| key.as_bytes()[j]);
                match before {
                    None | Some(b'_' | b'-') => true,
                    Some(c) => &key[i..] == "Pass" && (c.is_ascii_lowercase() || c.is_ascii_digit()),
                }
            });
    named && !is_counting_name(key)
}

/// Removes the private/system tags with their content, then trims.
pub(crate) fn strip_tags(text: &str) -> String {
    match strip_regions(text) {
        Some(stripped) => stripped.trim().to_string(),
        None => text.trim().to_string(),
    }
}

/// Replaces every secret with `[REDACTED:<kind>]`.
pub(crate) fn redact(text: &str) -> Cow<'_, str> {
    let mut out: Cow<'_, str> = Cow::Borrowed(text);
    for secret in SECRETS {
        if (secret.may_match)(&out) && secret.regex.is_match(&out) {
            let replaced = secret
                .regex
                .replace_all(
                    &out,
                    format!("${{pre}}[REDACTED:{}]${{post}}", secret.kind).as_str(),
                )
                .into_owned();
            out = Cow::Owned(replaced);
        }
    }
    for keyed in KEYED {
        if !(keyed.may_match)(&out) || !keyed.regex.is_match(&out) {
            continue;
        }
        let replaced = keyed
            .regex
            .replace_all(&out, |c: &regex::Captures| {
                let Some(whole) = c.get(0) else {
                    return String::new(); // never: group 0 is the whole match
                };
                let Some(value) = c.name("v") else {
                    return whole.as_str().to_string();
                };
                let name = c.name("name").map(|n| n.as_str());
                if value.as_str().starts_with("[REDACTED:")
                    || looks_like_placeholder(value.as_str())
                    || name.is_some_and(|n| is_counting_name(n) || is_reference_name(n))
                {
                    return whole.as_str().to_string();
                }
                let start = whole.start();
                format!(
                    "{}[REDACTED:{}]{}",
                    &whole.as_str()[..value.start() - start],
                    (keyed.kind)(name),
                    &whole.as_str()[value.end() - start..]
                )
            })
            .into_owned();
        out = Cow::Owned(replaced);
    }
    out
}

/// `max_tokens`, `token_count`: names that contain a secret word but hold a number.
fn is_counting_name(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.ends_with("tokens") || n.ends_with("count") || n.ends_with("len") || n.ends_with("length")
}

fn secret_kind(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    if n.contains("pass") || n.contains("pwd") {
        "password"
    } else if n.contains("token") {
        "token"
    } else if n.contains("key") {
        "api-key"
    } else {
        "secret"
    }
}

/// Values that are obviously not secrets (`token=$TOKEN`, `password: <redacted>`, `****`).
fn looks_like_placeholder(value: &str) -> bool {
    let v = value.trim_matches(|c| c == '"' || c == '\'');
    looks_like_code(v)
        || v.starts_with('$')
        || v.starts_with("${")
        || v.starts_with('<')
        || v.chars()
            .all(|c| c == '*' || c == 'x' || c == 'X' || c == '.')
        || matches!(
            v.to_ascii_lowercase().as_str(),
            "none" | "null" | "true" | "false" | "undefined" | "string" | "str" | "redacted"
        )
}

/// A value that is source code, not a credential: a reference or a type after a name such as
/// `token: &str`, `token: Option<String>`, `tokens: Vec<u8>`, a path (`TokenError::Malformed`,
/// `auth::token::tests`, `serde_json::from_str(…)`).
fn looks_like_code(v: &str) -> bool {
    const TYPES: &[&str] = &[
        "str", "String", "bool", "boolean", "number", "string", "u8", "u16", "u32", "u64", "u128",
        "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32", "f64", "any", "unknown",
    ];
    const GENERICS: &[&str] = &[
        "Option<",
        "Vec<",
        "Result<",
        "Box<",
        "Arc<",
        "Rc<",
        "HashMap<",
        "BTreeMap<",
        "Cow<",
    ];
    let bare = v.trim_end_matches([',', ';', ')', '>', '{', '}']);
    // `z.string().min(12, …)`, `os.getenv("DB_PASSWORD")`, `secrets.token_hex(32)`: a call
    // makes the value at run time. A method of a dotted name (`a.b(`, the method a lower-case
    // word of three or more) whose parenthesis closes, opens a string or a number, or ends
    // the value: a generated credential with a `(` in it (`Summer(2024`, `k9Xv(3!pQ`) is
    // none of that.
    let call = v.split_once('(').is_some_and(|(callee, args)| {
        let parts: Vec<&str> = callee.split('.').collect();
        let method = parts.last().copied().unwrap_or("");
        parts.len() >= 2
            && parts.iter().all(|part| {
                part.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                    && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
            && method.len() >= 3
            && method.starts_with(|c: char| c.is_ascii_lowercase())
            && (args.is_empty()
                || args.starts_with([')', '"', '\''])
                || args.starts_with(|c: char| c.is_ascii_digit()))
    });
    call || v.starts_with('&')
        || v.starts_with(':')
        || v.contains("::")
        || TYPES.contains(&bare)
        || GENERICS.iter().any(|g| v.starts_with(g))
}

/// Tag stripping plus redaction: what every stored text goes through. NULs go first: UTF-16
/// text read as bytes (`cat` of a UTF-16 `.env`) has one between every two characters, and a
/// key spelt so was matched by no pattern, then stored whole once they were dropped.
pub(crate) fn clean_text(text: &str) -> String {
    let text = without_nul(text);
    redact(&strip_tags(&text)).into_owned()
}

/// Tag stripping plus redaction without trimming: one JSON string value (file contents keep
/// their exact whitespace).
pub(crate) fn clean_value(text: &str) -> String {
    let text = without_nul(text);
    match strip_regions(&text) {
        Some(stripped) => redact(&stripped).into_owned(),
        None => redact(&text).into_owned(),
    }
}

/// NUL removed: it carries nothing a reader needs, SQLite's text functions stop at it, and
/// PostgreSQL's jsonb refuses it (one NUL in a row stopped every later sync).
pub(crate) fn without_nul(text: &str) -> Cow<'_, str> {
    match text.contains('\0') {
        true => Cow::Owned(text.replace('\0', "")),
        false => Cow::Borrowed(text),
    }
}

/// Cleans every string inside a JSON value, keys included; values under secret-looking keys
/// are replaced whole.
pub(crate) fn clean_json(value: &mut Value) {
    clean_json_with(value, &mut |s| *s = clean_value(s));
}

/// `clean_json` with the caller's cleaning of string values (the capture cuts long ones).
pub(crate) fn clean_json_with(value: &mut Value, clean_string: &mut dyn FnMut(&mut String)) {
    match value {
        Value::String(s) => clean_string(s),
        Value::Array(items) => {
            for item in items {
                clean_json_with(item, clean_string);
            }
        }
        Value::Object(map) => {
            if map.keys().any(|k| needs_cleaning(k)) {
                clean_keys(map);
            }
            for (key, v) in map.iter_mut() {
                match v {
                    Value::String(s)
                        if is_secret_key(key) && !s.is_empty() && !looks_like_placeholder(s) =>
                    {
                        *s = format!("[REDACTED:{}]", secret_kind(key));
                    }
                    _ => clean_json_with(v, clean_string),
                }
            }
        }
        _ => {}
    }
}

fn needs_cleaning(text: &str) -> bool {
    strip_regions(text).is_some() || redact(text) != text
}

/// Rebuilds `map` with cleaned keys (`{"ghp_…": "alice"}` keeps no token). Two keys that clean
/// to the same text both stay, the later one with a `#2`, `#3`… suffix.
fn clean_keys(map: &mut serde_json::Map<String, Value>) {
    let old = std::mem::take(map);
    for (key, v) in old {
        let cleaned = clean_value(&key);
        let mut unique = cleaned.clone();
        let mut n = 2;
        while map.contains_key(&unique) {
            unique = format!("{cleaned}#{n}");
            n += 1;
        }
        map.insert(unique, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_tags_with_content_and_attributes() {
        assert_eq!(strip_tags("a <private>x\ny</private> b"), "a  b");
        assert_eq!(
            strip_tags("<system-reminder kind=\"x\">r</system-reminder>ok"),
            "ok"
        );
        assert_eq!(strip_tags("<PRIVATE>x</PRIVATE>"), "");
        assert_eq!(strip_tags("keep <private>forever"), "keep");
        assert_eq!(strip_tags("a < b"), "a < b");
    }

    #[test]
    fn redacts_known_secrets() {
        let cases = [
            ("key AKIAIOSFODNN7EXAMPLE here", "aws-access-key"),
            ("ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github-token"),
            ("sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "anthropic-key"),
            ("sk-proj-abcdefghijklmnopqrstuvwxyz012345", "openai-key"),
            ("xoxb-1234567890-abcdefghij", "slack-token"),
            (
                "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
                "jwt",
            ),
            ("password=hunter2hunter", "password"),
            ("export API_TOKEN: 'abc123def'", "token"),
            ("postgres://app:s3cr3t@db:5432/x", "url-credentials"),
            // A `(` inside a credential does not make it a call.
            ("PASSWORD=Tr0ub4dor(3", "password"),
            ("password: \"hunter2(x)\"", "password"),
            ("password=abc(def", "password"),
            ("PASSWORD=\"Pa(ss)word1\"", "password"),
            ("db_password = aB3x.Yz9(q", "password"),
            ("--password 'Summer(2024)'", "password"),
        ];
        for (input, kind) in cases {
            let out = redact(input);
            assert!(
                out.contains(&format!("[REDACTED:{kind}]")),
                "{input} → {out}"
            );
        }
    }

    /// A word boundary misses a key glued to a terminal colour code or an underscore; what is
    /// glued stays, the key goes.
    #[test]
    fn redacts_keys_glued_to_colour_codes_and_underscores() {
        for (input, want) in [
            (
                "access_key \x1b[32mAKIAIOSFODNN7EXAMPLE\x1b[0m shared",
                "access_key \x1b[32m[REDACTED:aws-access-key]\x1b[0m shared",
            ),
            (
                "Found AKIAIOSFODNN7EXAMPLE_old in creds.txt",
                "Found [REDACTED:aws-access-key]_old in creds.txt",
            ),
            ("OLD_AKIAIOSFODNN7EXAMPLE", "OLD_[REDACTED:aws-access-key]"),
            (
                "\x1b[1msk-ant-api03-abcdefghijklmnopqrstuvwxyz\x1b[0m",
                "\x1b[1m[REDACTED:anthropic-key]\x1b[0m",
            ),
            (
                "\x1b[31msk_live_abcdefghijklmnop1234_x",
                "\x1b[31m[REDACTED:stripe-key]_x",
            ),
        ] {
            assert_eq!(redact(input), want, "{input:?}");
        }
    }

    /// UTF-16 text read as bytes has a NUL between every two characters.
    #[test]
    fn a_key_spelt_with_nuls_between_its_characters_is_redacted() {
        let utf16 = |s: &str| s.chars().flat_map(|c| [c, '\0']).collect::<String>();
        let env =
            utf16("AWS_KEY=AKIAIOSFODNN7EXAMPLE\nGH=ghp_abcdefghijklmnopqrstuvwxyz0123456789\n");
        for cleaned in [clean_text(&env), clean_value(&env)] {
            assert!(!cleaned.contains("AKIAIOSFODNN7EXAMPLE"), "{cleaned}");
            assert!(!cleaned.contains("ghp_abcdefghij"), "{cleaned}");
            assert!(cleaned.contains("[REDACTED:aws-access-key]"), "{cleaned}");
        }
    }

    #[test]
    fn redacts_pem_blocks_whole() {
        let pem = "x\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\nabc\n-----END RSA PRIVATE KEY-----\ny";
        let out = redact(pem);
        assert_eq!(out, "x\n[REDACTED:private-key]\ny");
    }

    #[test]
    fn leaves_ordinary_text_alone() {
        for text in [
            "token=$GITHUB_TOKEN",
            "max_tokens: 4096",
            "fn password_hash(input: &str)",
            "the secret sauce is tests",
            "  password: z.string().min(12, \"Password must be at least 12 characters\"),",
            "DB_PASSWORD = os.getenv(\"DB_PASSWORD\")",
            "token = secrets.token_hex(32)",
            "  token: z.string().min(1),",
        ] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn cleans_json_strings_and_secret_keys() {
        let mut v: Value = serde_json::json!({
            "command": "curl -H 'Authorization: Bearer ghp_abcdefghijklmnopqrstuvwxyz0123456789'",
            "env": {"DB_PASSWORD": "pa55word!", "max_tokens": "100"},
            "note": "<private>hidden</private>shown  "
        });
        clean_json(&mut v);
        let s = v.to_string();
        assert!(!s.contains("ghp_abc"), "{s}");
        assert!(!s.contains("pa55word"), "{s}");
        assert!(!s.contains("hidden"), "{s}");
        assert!(s.contains("shown  "), "{s}");
        assert!(s.contains("\"max_tokens\":\"100\""), "{s}");
    }

    #[test]
    fn nested_tags_are_matched_as_nesting() {
        assert_eq!(
            strip_tags("x <private>a <private>b</private> SECRET </private> y"),
            "x  y"
        );
        assert_eq!(strip_tags("x <private>a <private>b</private> SECRET"), "x");
        assert_eq!(
            strip_tags(
                "<system-reminder>a<system-reminder>b</system-reminder>c</system-reminder>d"
            ),
            "d"
        );
        // A region of one tag hides the other tags inside it.
        assert_eq!(
            strip_tags("<private>a <system-reminder>b</private> c</system-reminder> d"),
            "c</system-reminder> d"
        );
        // An unclosed non-private tag is left, its inner pairs still go.
        assert_eq!(
            strip_tags("<system-reminder>a <cmem-context>b</cmem-context> c"),
            "<system-reminder>a  c"
        );
        assert_eq!(strip_tags("<private x=\"1\">a</private >b"), "b");
    }

    #[test]
    fn a_closing_private_tag_alone_hides_what_precedes_it() {
        assert_eq!(strip_tags("SECRET MORE </private> shown"), "shown");
        assert_eq!(strip_tags("a </private> b </private> c"), "c");
        assert_eq!(clean_value("keep <private>x</private> keep"), "keep  keep");
        let mut v = serde_json::json!({"a": "x <private>SECRET1", "b": "SECRET2 </private> y"});
        clean_json(&mut v);
        assert_eq!(v, serde_json::json!({"a": "x ", "b": " y"}));
    }

    #[test]
    fn tag_scanning_is_linear() {
        let many = "<private ".repeat(200_000);
        let started = std::time::Instant::now();
        assert_eq!(strip_tags(&many), many.trim());
        let closes = "</system-reminder>".repeat(100_000);
        assert_eq!(strip_tags(&closes), closes);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
    }

    #[test]
    fn redacts_the_new_kinds() {
        for (input, secret) in [
            ("export DB_PASS=hunter2hunter2", "hunter2"),
            ("AWS_SECRET_ACCESS_KEY=abc/def+ghi", "abc/def"),
            ("GH_TOKEN='abc def' cmd", "abc def"),
            ("psql --password hunter2 -h db", "hunter2"),
            ("tool --db-password=\"s3 cr3t\"", "s3 cr3t"),
            ("cli --api-key k3y-value-1", "k3y-value"),
            ("mysql -u root -phunter2 app", "hunter2"),
            ("sshpass -p hunter2 ssh host", "hunter2"),
            ("Authorization: Basic dXNlcjpwYXNzd29yZA==", "dXNlcjpw"),
            ("-H 'authorization: token abcdef123'", "abcdef123"),
            ("Proxy-Authorization: Digest username", "username"),
        ] {
            let out = redact(input);
            assert!(!out.contains(secret), "{input} → {out}");
            assert!(out.contains("[REDACTED:"), "{input} → {out}");
        }
    }

    #[test]
    fn the_new_kinds_leave_ordinary_text_alone() {
        for text in [
            "PASSED=3 FAILED=0",
            "BYPASS=1 KEYBOARD=us",
            "PWD=/home/me OLDPWD=/tmp",
            "SSH_KEY_PATH=/home/me/.ssh/id",
            "const MAX_KEY: usize = 3;",
            "mkdir -p src/bin && ssh -p 22 host",
            "docker run -p 8080:80 img",
            "--password-stdin --token-file t.txt --max-tokens 100",
            "DB_PASS=$DB_PASS --password \"$PW\"",
            "a basic understanding of it",
        ] {
            assert_eq!(redact(text), text);
        }
    }

    #[test]
    fn code_that_names_a_token_is_no_secret() {
        for text in [
            "pub fn refresh(token: &str, now: u64) -> bool {",
            "fn sign(token: Option<String>, key: &[u8])",
            "Err(TokenError::Malformed) => 401,",
            "test auth::token::tests::refresh_only_in_the_window ... ok",
            "let claims: TokenClaims = serde_json::from_str(&body)?;",
            "use headers::{Authorization, authorization::Bearer};",
            "interface Session { token: string; expires: number }",
        ] {
            assert_eq!(redact(text), text, "{text}");
        }
        // The same names with a value are still secrets.
        for text in [
            "token: ghp_abcdefghijklmnopqrstuvwxyz0123",
            "password: Hunter2-Capybara",
            "api_key = \"sk_live_0123456789abcdef\"",
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.abc.def",
        ] {
            assert!(redact(text).contains("[REDACTED:"), "{text}");
        }
    }

    #[test]
    fn secret_keys_are_cleaned_and_collisions_kept() {
        let mut v = serde_json::json!({
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789": "alice",
            "sk-ant-api03-abcdefghijklmnopqrstuvwxyz": "bob",
            "DB_PASS": "hunter2",
            "dbPass": "hunter3",
            "bypass": "yes",
            "password": "<private>hunter4</private>",
        });
        clean_json(&mut v);
        let s = v.to_string();
        for secret in ["ghp_abc", "sk-ant", "hunter"] {
            assert!(!s.contains(secret), "{s}");
        }
        assert_eq!(v["[REDACTED:github-token]"], "alice");
        assert_eq!(v["[REDACTED:anthropic-key]"], "bob");
        assert_eq!(v["bypass"], "yes");
        assert_eq!(v.as_object().unwrap().len(), 6);
    }
}
