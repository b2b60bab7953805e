//! Property: a secret of any kind, in any field a hook stores and at any position (a JSON key,
//! deep in a value, inside nested or cross-field private regions, split by the cut of a long
//! string), never reaches the disk: not the database, its WAL, the spool, the log, nor what
//! `cmem export` writes. Checked through the real hooks, for the secret and for every 8-byte
//! slice of its random part.

use crate::common::{Env, assert_fail_open, run_with_stdin};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use serde_json::{Value, json};

/// Small cap so long strings are cheap: strings are cut at `MAX_FIELD + 4096` before cleaning.
const MAX_FIELD: usize = 1024;
const PRECUT: usize = MAX_FIELD + 4096;

#[derive(Debug, Clone)]
struct Secret {
    /// What is written into the field.
    text: String,
    /// The random parts: none of them, nor any 8-byte slice of one, may be stored.
    bodies: Vec<String>,
}

fn alnum(min: usize, max: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("[A-Za-z0-9]{{{min},{max}}}"))
        .expect("regex")
        // A body that identifies nothing (all one letter) would match unrelated bytes.
        .prop_filter("varied", |s| {
            s.bytes().collect::<std::collections::HashSet<_>>().len() >= 8
        })
}

fn upper(n: usize) -> impl Strategy<Value = String> {
    proptest::string::string_regex(&format!("[A-Z0-9]{{{n}}}"))
        .expect("regex")
        .prop_filter("varied", |s| {
            s.bytes().collect::<std::collections::HashSet<_>>().len() >= 6
        })
}

fn one(text: String, body: String) -> Secret {
    Secret {
        text,
        bodies: vec![body],
    }
}

/// Every kind the redactor knows, plus the private-tag forms.
fn secret() -> impl Strategy<Value = Secret> {
    prop_oneof![
        alnum(36, 40).prop_map(|b| one(format!("ghp_{b}"), b)),
        alnum(22, 40).prop_map(|b| one(format!("github_pat_{b}"), b)),
        alnum(24, 40).prop_map(|b| one(format!("sk-ant-api03-{b}"), b)),
        alnum(24, 40).prop_map(|b| one(format!("sk-proj-{b}"), b)),
        upper(16).prop_map(|b| one(format!("AKIA{b}"), b)),
        alnum(16, 30).prop_map(|b| one(format!("xoxb-1234-{b}"), b)),
        alnum(20, 30).prop_map(|b| one(format!("https://hooks.slack.com/services/T0/{b}"), b)),
        (alnum(12, 20), alnum(12, 20), alnum(16, 30)).prop_map(|(a, b, c)| Secret {
            text: format!("eyJ{a}.eyJ{b}.{c}"),
            bodies: vec![a, b, c],
        }),
        alnum(35, 35).prop_map(|b| one(format!("AIza{b}"), b)),
        alnum(20, 30).prop_map(|b| one(format!("sk_live_{b}"), b)),
        (alnum(30, 40), alnum(30, 40)).prop_map(|(a, b)| Secret {
            text: format!(
                "-----BEGIN RSA PRIVATE KEY-----\nMIIE{a}\n{b}\n-----END RSA PRIVATE KEY-----"
            ),
            bodies: vec![a, b],
        }),
        alnum(40, 40).prop_map(|b| one(format!("aws_secret_access_key = {b}"), b)),
        alnum(12, 24).prop_map(|b| one(format!("postgres://app:{b}@db.local/x"), b)),
        alnum(16, 30).prop_map(|b| one(format!("Bearer {b}"), b)),
        alnum(12, 24).prop_map(|b| one(format!("password={b}"), b)),
        alnum(12, 24).prop_map(|b| one(format!("\"api_key\": \"{b}\""), b)),
        alnum(12, 24).prop_map(|b| one(format!("DB_PASS={b}"), b)),
        alnum(12, 24).prop_map(|b| one(format!("export AWS_SECRET_ACCESS_KEY={b}"), b)),
        alnum(12, 24).prop_map(|b| one(format!("psql --password {b}"), b)),
        alnum(12, 24).prop_map(|b| one(format!("tool --db-password={b}"), b)),
        alnum(12, 24).prop_map(|b| one(format!("mysql -uroot -p{b} app"), b)),
        alnum(16, 32).prop_map(|b| one(format!("Authorization: Basic {b}=="), b)),
        alnum(12, 24).prop_map(|b| one(format!("<private>{b}</private>"), b)),
        alnum(12, 24)
            .prop_map(|b| one(format!("<private>a <private>b</private> {b} </private>"), b)),
        alnum(12, 24).prop_map(|b| one(format!("<PRIVATE kind=\"x\">{b}"), b)),
        alnum(12, 24).prop_map(|b| one(format!("{b} </private>"), b)),
    ]
}

/// The fields a hook stores text from.
#[derive(Debug, Clone, Copy)]
enum Field {
    Prompt,
    InputValue,
    InputKey,
    ResponseString,
    ResponseNested,
    Error,
    AssistantMessage,
    Reason,
}

fn field() -> impl Strategy<Value = Field> {
    prop_oneof![
        Just(Field::Prompt),
        Just(Field::InputValue),
        Just(Field::InputKey),
        Just(Field::ResponseString),
        Just(Field::ResponseNested),
        Just(Field::Error),
        Just(Field::AssistantMessage),
        Just(Field::Reason),
    ]
}

/// Where in its string the secret goes.
#[derive(Debug, Clone)]
enum Position {
    /// Between ordinary words, with these separators around it.
    Inline(&'static str, &'static str),
    /// Split by the pre-cut `at` bytes into its text; `shrink` puts a big private block first,
    /// so the cleaned text is shorter than the cap and the cut's tail is what gets stored.
    AtCut { at: usize, shrink: bool },
}

fn position() -> impl Strategy<Value = Position> {
    let seps = prop_oneof![
        Just((" ", " ")),
        Just(("\n", "\n")),
        Just(("(", ")")),
        Just(("\"", "\"")),
        Just(("'", "'.")),
        Just((": ", ", next")),
    ];
    prop_oneof![
        seps.prop_map(|(a, b)| Position::Inline(a, b)),
        (0usize..120, any::<bool>()).prop_map(|(at, shrink)| Position::AtCut { at, shrink }),
    ]
}

/// A private region opened in one field and closed in another, the secret on both sides.
#[derive(Debug, Clone)]
struct Across {
    before: String,
    after: String,
}

fn across() -> impl Strategy<Value = Option<Across>> {
    proptest::option::of(
        (alnum(12, 20), alnum(12, 20)).prop_map(|(before, after)| Across { before, after }),
    )
}

/// The string that holds `secret` at `pos`.
fn place(secret: &Secret, pos: &Position) -> String {
    match *pos {
        Position::Inline(a, b) => format!("run the step{a}{}{b} and go on", secret.text),
        Position::AtCut { at, shrink } => {
            let at = at % secret.text.len().max(1);
            let head = if shrink {
                format!("<private>{}</private>", "p".repeat(PRECUT - 600))
            } else {
                String::new()
            };
            // Words, then a separator, then the secret starting `at` bytes before the cut.
            let words = PRECUT - head.len() - at - 1;
            let filler: String = "lorem ipsum ".chars().cycle().take(words).collect();
            format!("{head}{filler} {} then more text", secret.text)
        }
    }
}

#[derive(Debug, Clone)]
struct Case {
    secrets: Vec<(Field, Secret, Position)>,
    across: Option<Across>,
    /// The database is unusable for the capture hooks: everything goes through the spool.
    spooled: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        proptest::collection::vec((field(), secret(), position()), 1..5),
        across(),
        any::<bool>(),
    )
        .prop_map(|(secrets, across, spooled)| Case {
            secrets,
            across,
            spooled,
        })
}

fn hook(env: &Env, event: &str, payload: &Value) {
    let mut cmd = env.cmd();
    cmd.env("CMEM_LOG_LEVEL", "debug")
        .env("CMEM_MAX_FIELD_BYTES", MAX_FIELD.to_string())
        .arg("hook")
        .arg(event);
    let out = run_with_stdin(&mut cmd, payload.to_string().as_bytes());
    assert_fail_open(event, &out);
}

/// Runs a session whose fields hold the case's secrets; returns what `cmem export` wrote.
fn run(env: &Env, case: &Case) -> Vec<u8> {
    let text = |f: fn(&Field) -> bool| -> Vec<String> {
        case.secrets
            .iter()
            .filter(|(field, _, _)| f(field))
            .map(|(_, s, p)| place(s, p))
            .collect()
    };
    let prompt = text(|f| matches!(f, Field::Prompt)).join(" ");
    let input_values = text(|f| matches!(f, Field::InputValue));
    let input_keys: Vec<String> = case
        .secrets
        .iter()
        .filter(|(f, _, _)| matches!(f, Field::InputKey))
        .map(|(_, s, _)| format!("k {}", s.text))
        .collect();
    let response_strings = text(|f| matches!(f, Field::ResponseString)).join("\n");
    let response_nested = text(|f| matches!(f, Field::ResponseNested));
    let error = text(|f| matches!(f, Field::Error)).join(" ");
    let message = text(|f| matches!(f, Field::AssistantMessage)).join(" ");
    let reason = text(|f| matches!(f, Field::Reason)).join(" ");

    let mut input = serde_json::Map::new();
    input.insert("command".into(), json!("cargo test"));
    input.insert("args".into(), json!(input_values));
    let keys: serde_json::Map<String, Value> = input_keys
        .into_iter()
        .map(|k| (k, json!("alice")))
        .collect();
    input.insert("env".into(), json!({ "nested": [keys] }));
    if let Some(a) = &case.across {
        input.insert(
            "old_string".into(),
            json!(format!("keep <private>{}", a.before)),
        );
        input.insert(
            "new_string".into(),
            json!(format!("{} </private> kept", a.after)),
        );
    }

    if case.spooled {
        std::fs::create_dir_all(env.data_dir()).unwrap();
        std::fs::write(env.db_path(), vec![7u8; 4096]).unwrap();
    }
    let p = |extra: Value| env.payload("s-prop", extra);
    hook(
        env,
        "user-prompt-submit",
        &p(json!({"prompt": format!("start {prompt}"), "prompt_id": "p1"})),
    );
    hook(
        env,
        "post-tool-use",
        &p(
            json!({"prompt_id": "p1", "tool_name": "Edit", "tool_use_id": "t1",
                  "tool_input": input,
                  "tool_response": {"stdout": response_strings,
                                    "deep": {"list": [{"x": response_nested}]}}}),
        ),
    );
    hook(
        env,
        "post-tool-use-failure",
        &p(
            json!({"prompt_id": "p1", "tool_name": "Bash", "tool_use_id": "t2",
                  "tool_input": {"command": "make"}, "error": format!("Exit code 2 {error}")}),
        ),
    );
    hook(
        env,
        "stop",
        &p(json!({"prompt_id": "p1", "last_assistant_message": format!("Done. {message}")})),
    );
    if case.spooled {
        // The database comes back: the next hook stores the spool.
        std::fs::remove_file(env.db_path()).unwrap();
    }
    hook(
        env,
        "session-end",
        &p(json!({"reason": format!("other {reason}")})),
    );
    let out = env
        .cmd()
        .args(["export", "--format", "jsonl"])
        .output()
        .expect("run cmem export");
    assert!(out.status.success(), "export failed: {out:?}");
    out.stdout
}

fn files(dir: &std::path::Path, out: &mut Vec<(String, Vec<u8>)>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push((
                p.display().to_string(),
                std::fs::read(&p).unwrap_or_default(),
            ));
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

/// The first place a body (or an 8-byte slice of it) is found, if any.
fn leak(blobs: &[(String, Vec<u8>)], bodies: &[String]) -> Option<String> {
    for body in bodies {
        let b = body.as_bytes();
        for w in b.windows(8.min(b.len())) {
            if let Some((name, _)) = blobs.iter().find(|(_, bytes)| find(bytes, w)) {
                return Some(format!(
                    "{:?} (slice of {body:?}) in {name}",
                    String::from_utf8_lossy(w)
                ));
            }
        }
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig {
        // About 0.2 s a case (five hooks and an export); PROPTEST_CASES runs more.
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(24),
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        .. ProptestConfig::default()
    })]

    #[test]
    fn no_secret_reaches_the_disk_or_the_export(case in case()) {
        let env = Env::new();
        let export = run(&env, &case);
        let mut blobs = vec![("export".to_string(), export)];
        files(&env.data_dir(), &mut blobs);
        // The capture happened: the session and its prompt are there.
        prop_assert!(env.count("user_prompts") == 1, "nothing was stored");
        let mut bodies: Vec<String> =
            case.secrets.iter().flat_map(|(_, s, _)| s.bodies.clone()).collect();
        if let Some(a) = &case.across {
            bodies.push(a.before.clone());
            bodies.push(a.after.clone());
        }
        if let Some(found) = leak(&blobs, &bodies) {
            prop_assert!(false, "{}", found);
        }
    }
}
