//! Privacy before storage: tag stripping (reference §8) and secret redaction.
//!
//! Everything cmem stores from a prompt, a tool input/response or an assistant message passes
//! through `clean_text` / `clean_json` first, so a secret never reaches the database, its WAL or
//! the FTS shadow tables.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

/// Elements removed with their content. `<private>` without a closing tag hides everything
/// after it: a forgotten `</private>` must not leak the secret.
const STRIPPED_TAGS: &[&str] = &[
    "private",
    "cmem-context",
    "claude-mem-context",
    "system_instruction",
    "system-instruction",
    "persisted-output",
    "system-reminder",
];

// Patterns are ASCII-only (`(?i-u:…)`, `(?-u:\b)`, explicit classes) and each is compiled only
// when a cheap literal check says it could match: compiling every pattern costs more than a
// whole hook is allowed to take, and most texts need none of them.

static TAGS: LazyLock<Regex> = LazyLock::new(|| {
    let alternatives: Vec<String> = STRIPPED_TAGS
        .iter()
        .map(|t| format!(r"(?i-u:<{t})(?:[ \t\r\n][^>]*)?>(?s:.*?)(?i-u:</{t})[ \t\r\n]*>"))
        .collect();
    Regex::new(&alternatives.join("|")).expect("static regex")
});

static UNCLOSED_PRIVATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i-u:<private)(?:[ \t\r\n][^>]*)?>(?s:.*)\z").expect("static regex")
});

/// Whether `text` holds one of the stripped tags (checked before any regex is built).
fn has_stripped_tag(text: &str) -> bool {
    let bytes = text.as_bytes();
    memchr_iter(b'<', bytes).any(|i| {
        let rest = &bytes[i + 1..];
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
secret_regex!(
    AWS_KEY,
    r"(?-u:\b)(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}(?-u:\b)"
);
secret_regex!(
    GITHUB,
    r"(?-u:\b)(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?-u:\b)"
);
secret_regex!(ANTHROPIC, r"(?-u:\b)sk-ant-[A-Za-z0-9_\-]{20,}");
secret_regex!(
    OPENAI,
    r"(?-u:\b)sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}"
);
secret_regex!(SLACK, r"(?-u:\b)xox[abposr]-[A-Za-z0-9\-]{10,}");
secret_regex!(
    SLACK_HOOK,
    r"https://hooks\.slack\.com/services/[A-Za-z0-9/_\-]+"
);
secret_regex!(
    JWT,
    r"(?-u:\b)eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"
);
secret_regex!(GOOGLE, r"(?-u:\b)AIza[0-9A-Za-z_\-]{35}(?-u:\b)");
secret_regex!(
    STRIPE,
    r"(?-u:\b)(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}(?-u:\b)"
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

/// The words that make a `name = value` look like a secret assignment.
const ASSIGNMENT_WORDS: &[&str] = &["pass", "pwd", "secret", "token", "key"];

/// `password=…`, `token: …`, `"api_key": "…"`: the value after a secret-looking name.
static ASSIGNMENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?-u:\b)([A-Za-z0-9_\-]*(?i-u:password|passwd|pwd|secret|token|api[_\-]?key|access[_\-]?key|auth[_\-]?key|private[_\-]?key|client[_\-]?secret)[A-Za-z0-9_\-]*)(["']?[ \t]*[:=][ \t]*)("[^"\n]{3,}"|'[^'\n]{3,}'|[^ \t\r\n"',;&}{)\]]{3,})"#,
    )
    .expect("static regex")
});

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
    NAMES.iter().any(|n| k == *n || k.ends_with(n)) && !is_counting_name(key)
}

/// Removes the private/system tags with their content, then trims.
pub fn strip_tags(text: &str) -> String {
    if !has_stripped_tag(text) {
        return text.trim().to_string();
    }
    let once = TAGS.replace_all(text, "");
    let twice = UNCLOSED_PRIVATE.replace_all(&once, "");
    twice.trim().to_string()
}

/// Replaces every secret with `[REDACTED:<kind>]`.
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out: Cow<'_, str> = Cow::Borrowed(text);
    for secret in SECRETS {
        if (secret.may_match)(&out) && secret.regex.is_match(&out) {
            let replaced = secret
                .regex
                .replace_all(&out, format!("[REDACTED:{}]", secret.kind).as_str())
                .into_owned();
            out = Cow::Owned(replaced);
        }
    }
    let may_assign = (out.contains('=') || out.contains(':'))
        && ASSIGNMENT_WORDS.iter().any(|w| contains_ci(&out, w));
    if may_assign && ASSIGNMENT.is_match(&out) {
        let replaced = ASSIGNMENT
            .replace_all(&out, |c: &regex::Captures| {
                let value = &c[3];
                if value.starts_with("[REDACTED:")
                    || looks_like_placeholder(value)
                    || is_counting_name(&c[1])
                {
                    c[0].to_string()
                } else {
                    format!("{}{}[REDACTED:{}]", &c[1], &c[2], secret_kind(&c[1]))
                }
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
    v.starts_with('$')
        || v.starts_with("${")
        || v.starts_with('<')
        || v.chars()
            .all(|c| c == '*' || c == 'x' || c == 'X' || c == '.')
        || matches!(
            v.to_ascii_lowercase().as_str(),
            "none" | "null" | "true" | "false" | "undefined" | "string" | "str" | "redacted"
        )
}

/// Tag stripping plus redaction: what every stored text goes through.
pub fn clean_text(text: &str) -> String {
    redact(&strip_tags(text)).into_owned()
}

/// Cleans every string inside a JSON value (keys are kept; values under secret-looking keys are
/// replaced whole). Strings are not trimmed here: file contents keep their exact whitespace.
pub fn clean_json(value: &mut Value) {
    match value {
        Value::String(s) => {
            let stripped = if has_stripped_tag(s) {
                let once = TAGS.replace_all(s, "");
                UNCLOSED_PRIVATE.replace_all(&once, "").into_owned()
            } else {
                std::mem::take(s)
            };
            *s = redact(&stripped).into_owned();
        }
        Value::Array(items) => items.iter_mut().for_each(clean_json),
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                match v {
                    Value::String(s) if is_secret_key(key) && !s.is_empty() => {
                        if !looks_like_placeholder(s) {
                            *s = format!("[REDACTED:{}]", secret_kind(key));
                        }
                    }
                    _ => clean_json(v),
                }
            }
        }
        _ => {}
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
        ];
        for (input, kind) in cases {
            let out = redact(input);
            assert!(
                out.contains(&format!("[REDACTED:{kind}]")),
                "{input} → {out}"
            );
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
}
