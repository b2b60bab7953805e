//! Secrets never reach the disk: not the database, its WAL, the FTS shadow tables, the spool
//! or the log.

use crate::common::Env;
use serde_json::json;

const AWS_KEY: &str = "AKIAQWERTYUIOPASDFGH";
const PEM_BODY: &str = "MIIEowIBAAKCAQEAxk2m7dQp1nSECRETPEMBODYLINE";

fn secrets() -> [&'static str; 3] {
    ["secret-XYZ", AWS_KEY, PEM_BODY]
}

fn grep_dir(dir: &std::path::Path, needle: &str) -> Vec<String> {
    let mut hits = Vec::new();
    for entry in walk(dir) {
        let bytes = std::fs::read(&entry).unwrap_or_default();
        if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
            hits.push(entry.display().to_string());
        }
    }
    hits
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

fn capture_secrets(env: &Env) {
    let pem = format!(
        "-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\nAAAAB3NzaC1yc2EAAAADAQABAAABAQ\n-----END RSA PRIVATE KEY-----\n"
    );
    env.hook(
        "user-prompt-submit",
        &env.payload(
            "s-secret",
            json!({"prompt": "deploy it <private>secret-XYZ</private> now", "prompt_id": "p1"}),
        ),
    );
    env.hook(
        "post-tool-use",
        &env.payload(
            "s-secret",
            json!({"prompt_id": "p1", "tool_name": "Read", "tool_use_id": "t1",
                   "tool_input": {"file_path": "/srv/app/.env"},
                   "tool_response": {"file": {"content": format!("AWS_ACCESS_KEY_ID={AWS_KEY}\n{pem}")}}}),
        ),
    );
    env.hook(
        "post-tool-use-failure",
        &env.payload(
            "s-secret",
            json!({"prompt_id": "p1", "tool_name": "Bash", "tool_use_id": "t2",
                   "tool_input": {"command": format!("aws s3 ls --key {AWS_KEY}")},
                   "error": format!("Exit code 1\ninvalid key {AWS_KEY}")}),
        ),
    );
    env.hook(
        "stop",
        &env.payload("s-secret", json!({"prompt_id": "p1", "last_assistant_message": format!("I used {AWS_KEY}; <private>secret-XYZ</private>")})),
    );
}

#[test]
fn secrets_are_not_in_the_database_wal_or_fts_shadow_tables() {
    let env = Env::new();
    capture_secrets(&env);
    for s in secrets() {
        let hits = grep_dir(&env.data_dir(), s);
        assert!(hits.is_empty(), "{s} found in {hits:?}");
    }
    // The captured rows are there, with the secrets replaced.
    let db = env.db();
    let prompt: String = db
        .query_row("SELECT prompt_text FROM user_prompts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(prompt, "deploy it  now");
    let response: String = db
        .query_row(
            "SELECT tool_response FROM tool_uses WHERE tool_use_id = 't1'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(response.contains("[REDACTED:aws-access-key]"), "{response}");
    assert!(response.contains("[REDACTED:private-key]"), "{response}");
    // The FTS index of prompts answers for the kept words only.
    let found: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM user_prompts_fts WHERE user_prompts_fts MATCH 'deploy'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(found, 1);
}

#[test]
fn secrets_are_not_in_the_spool_either() {
    let env = Env::new();
    std::fs::create_dir_all(env.data_dir()).unwrap();
    std::fs::write(env.db_path(), vec![7u8; 4096]).unwrap(); // unusable database → spool
    capture_secrets(&env);
    let spool = std::fs::read_to_string(env.data_dir().join("spool.jsonl")).unwrap();
    assert_eq!(spool.lines().count(), 4);
    for s in secrets() {
        assert!(grep_dir(&env.data_dir(), s).is_empty(), "{s} leaked");
    }
}

/// Where `needle` (or any 8-byte slice of it) is on disk under the data dir.
fn leaks(env: &Env, needle: &str) -> Vec<String> {
    let mut hits = grep_dir(&env.data_dir(), needle);
    if needle.len() > 8 {
        for i in 0..=needle.len() - 8 {
            if needle.is_char_boundary(i) && needle.is_char_boundary(i + 8) {
                hits.extend(grep_dir(&env.data_dir(), &needle[i..i + 8]));
            }
        }
    }
    hits.sort();
    hits.dedup();
    hits
}

fn tool_use(env: &Env, id: &str, input: serde_json::Value, response: serde_json::Value) {
    env.hook(
        "post-tool-use",
        &env.payload(
            "s-gap",
            json!({"prompt_id": "p1", "tool_name": "Bash", "tool_use_id": id,
                   "tool_input": input, "tool_response": response}),
        ),
    );
}

fn response_of(env: &Env, id: &str) -> String {
    env.db()
        .query_row(
            "SELECT tool_response FROM tool_uses WHERE tool_use_id = ?1",
            [id],
            |r| r.get(0),
        )
        .unwrap()
}

#[test]
fn nested_private_tags_hide_everything_inside_the_outermost_pair() {
    let env = Env::new();
    env.hook(
        "user-prompt-submit",
        &env.payload(
            "s-gap",
            json!({"prompt": "go <private>a <private>b</private> NESTEDSECRET1 </private> on",
                   "prompt_id": "p1"}),
        ),
    );
    tool_use(
        &env,
        "t1",
        json!({"command": "echo <private>x<PRIVATE>y</private>NESTEDSECRET2</Private >"}),
        json!("ok"),
    );
    let prompt: String = env
        .db()
        .query_row("SELECT prompt_text FROM user_prompts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(prompt, "go  on");
    for s in ["NESTEDSECRET1", "NESTEDSECRET2", "</private>"] {
        assert!(leaks(&env, s).is_empty(), "{s}: {:?}", leaks(&env, s));
    }
}

#[test]
fn the_session_end_reason_is_cleaned() {
    let env = Env::new();
    env.hook(
        "user-prompt-submit",
        &env.payload("s-gap", json!({"prompt": "hello", "prompt_id": "p1"})),
    );
    env.hook(
        "session-end",
        &env.payload(
            "s-gap",
            json!({"reason": "ghp_R3asonT0kenabcdefghijklmnopqrstuvwxy <private>REASONSECRET</private>"}),
        ),
    );
    let reason: String = env
        .db()
        .query_row("SELECT end_reason FROM sessions", [], |r| r.get(0))
        .unwrap();
    assert_eq!(reason, "[REDACTED:github-token]");
    for s in ["R3asonT0kenabcdefghijklmnopqrstuvwxy", "REASONSECRET"] {
        assert!(leaks(&env, s).is_empty(), "{s}: {:?}", leaks(&env, s));
    }
}

#[test]
fn a_secret_used_as_a_json_key_is_redacted() {
    let env = Env::new();
    tool_use(
        &env,
        "t1",
        json!({"users": {"ghp_K3yT0kenabcdefghijklmnopqrstuvwxyz012": "alice",
                         "DB_PASS=K3yPassw0rd": "bob"}}),
        json!({"ok": true}),
    );
    for s in ["K3yT0kenabcdefghijklmnopqrstuvwxyz012", "K3yPassw0rd"] {
        assert!(leaks(&env, s).is_empty(), "{s}: {:?}", leaks(&env, s));
    }
    let input: String = env
        .db()
        .query_row("SELECT tool_input FROM tool_uses", [], |r| r.get(0))
        .unwrap();
    assert!(input.contains("alice") && input.contains("bob"), "{input}");
}

#[test]
fn a_token_split_by_the_pre_cut_leaves_no_part_and_the_marker_stays() {
    let env = Env::new();
    let token = "ghp_CutT0kenabcdefghijklmnopqrstuvwxyz0123";
    // The default cap is 64 KiB and strings are cut at 68 KiB before cleaning. A private block
    // first makes the cleaned text shorter than the cap, so the cut's tail is what is stored.
    let private = format!("<private>{}</private>", "p".repeat(40_000));
    let cut_at = 64 * 1024 + 4096;
    for (i, offset) in [4usize, 11, 20, 33].into_iter().enumerate() {
        let filler = "x,".repeat((cut_at - private.len() - offset) / 2);
        let pad = cut_at - private.len() - offset - filler.len();
        let text = format!("{private}{filler}{}{token},tail", ",".repeat(pad));
        assert_eq!(text[..cut_at].len() - text.find("ghp_").unwrap(), offset);
        tool_use(
            &env,
            &format!("t{i}"),
            json!({"command": "cat big"}),
            json!({"stdout": text}),
        );
        let stored = response_of(&env, &format!("t{i}"));
        assert!(stored.contains("…[truncated: "), "offset {offset}");
        assert!(!stored.contains("ghp_"), "offset {offset}");
        // The same as a prompt (free text).
        env.hook(
            "user-prompt-submit",
            &env.payload(
                "s-gap",
                json!({"prompt": text, "prompt_id": format!("p{i}")}),
            ),
        );
    }
    let prompts: Vec<String> = env.rows("SELECT prompt_text FROM user_prompts", |r| r.get(0));
    assert_eq!(prompts.len(), 4);
    assert!(prompts.iter().all(|p| p.contains("…[truncated: ")));
    assert!(
        leaks(&env, &token[4..]).is_empty(),
        "{:?}",
        leaks(&env, &token[4..])
    );
}

#[test]
fn env_assignments_password_options_and_basic_auth_are_redacted() {
    let env = Env::new();
    tool_use(
        &env,
        "t1",
        json!({"command": "DB_PASS=EnvPassw0rd1 ./migrate && psql --password CliPassw0rd2 && curl -H 'Authorization: Basic QmFzaWNBdXRoU2VjcmV0Mw==' x"}),
        json!({"stdout": "export DB_PASS=EnvPassw0rd1\nmysql -uroot -pMysqlPassw0rd4 app"}),
    );
    for s in [
        "EnvPassw0rd1",
        "CliPassw0rd2",
        "QmFzaWNBdXRoU2VjcmV0Mw",
        "MysqlPassw0rd4",
    ] {
        assert!(leaks(&env, s).is_empty(), "{s}: {:?}", leaks(&env, s));
    }
    let input: String = env
        .db()
        .query_row("SELECT tool_input FROM tool_uses", [], |r| r.get(0))
        .unwrap();
    assert!(input.contains("DB_PASS=[REDACTED:password]"), "{input}");
    assert!(input.contains("--password [REDACTED:password]"), "{input}");
    assert!(
        input.contains("Authorization: Basic [REDACTED:authorization]"),
        "{input}"
    );
}

#[test]
fn a_private_region_ends_with_its_string_value() {
    let env = Env::new();
    // Opened in one field, closed in another: each string hides its side of the region.
    tool_use(
        &env,
        "t1",
        json!({"old_string": "keep <private>CROSSSECRET1", "new_string": "CROSSSECRET2 </private> kept"}),
        json!({"a": "CROSSSECRET3 </private>", "b": "<private> CROSSSECRET4"}),
    );
    for s in [
        "CROSSSECRET1",
        "CROSSSECRET2",
        "CROSSSECRET3",
        "CROSSSECRET4",
    ] {
        assert!(leaks(&env, s).is_empty(), "{s}: {:?}", leaks(&env, s));
    }
    let input: String = env
        .db()
        .query_row("SELECT tool_input FROM tool_uses", [], |r| r.get(0))
        .unwrap();
    assert_eq!(input, r#"{"old_string":"keep ","new_string":" kept"}"#);
}

/// A host's ids and paths are free text: Codex's turn ids, Cursor's generation ids, a tool
/// name, a working directory or a transcript path holding a key are stored without it.
#[test]
fn ids_and_paths_are_redacted_too() {
    let env = Env::new();
    let dir = env.root().join(format!("proj-{AWS_KEY}"));
    std::fs::create_dir_all(&dir).unwrap();
    let cwd = dir.to_string_lossy().into_owned();
    env.hook(
        "user-prompt-submit",
        &json!({"session_id": "s-ids", "cwd": cwd, "prompt": "go",
                "prompt_id": format!("turn-{AWS_KEY}"),
                "transcript_path": format!("/tmp/{AWS_KEY}.jsonl")}),
    );
    env.hook(
        "post-tool-use",
        &json!({"session_id": "s-ids", "cwd": cwd, "prompt_id": format!("turn-{AWS_KEY}"),
                "tool_name": format!("mcp__x__{AWS_KEY}"), "tool_use_id": format!("t-{AWS_KEY}"),
                "tool_input": {}, "tool_response": "ok"}),
    );
    assert_eq!(env.count("user_prompts"), 1);
    assert_eq!(env.count("tool_uses"), 1);
    env.db()
        .execute_batch("PRAGMA wal_checkpoint(TRUNCATE)")
        .unwrap();
    assert!(
        leaks(&env, AWS_KEY).is_empty(),
        "{:?}",
        leaks(&env, AWS_KEY)
    );
}
