//! Secrets never reach the disk: not the database, its WAL, the FTS shadow tables, the spool
//! or the log.

mod common;

use common::Env;
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
