//! Semantic search's vectors are derived data that follows the records: `cmem model backfill`
//! (which the hooks start in the background after a turn) embeds the records that wait,
//! `cmem forget` and `cmem scrub` leave no vector of removed text in the database files, an
//! import gets its vectors rebuilt, and `cmem doctor` says which search runs and how many
//! records wait.

use crate::common;

use crate::common::Env;
use serde_json::{Value, json};

fn mem_search(env: &Env, query: &str) -> String {
    let requests = vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
               "params": {"name": "mem_search", "arguments": {"query": query}}})
        .to_string(),
    ];
    let replies = env.mcp_serve(&common::jsonl(&requests));
    let v: Value = serde_json::from_slice(replies.last().unwrap()).unwrap();
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

/// A session whose prompt, observation and summary describe the work in words.
fn session(env: &Env, id: &str, prompt: &str, done: &str) {
    let mut p = env.payload(id, json!({"prompt": prompt}));
    p["prompt_id"] = json!(format!("{id}-1"));
    env.hook("user-prompt-submit", &p);
    let mut stop = env.real_for("Stop", id, &format!("{id}-1"), &format!("toolu_{id}"));
    stop["last_assistant_message"] = json!(done);
    env.hook("stop", &stop);
}

fn vectors(env: &Env) -> Vec<(i64, i64, Vec<u8>)> {
    env.rows(
        "SELECT kind, record_id, vector FROM record_vectors ORDER BY kind, record_id",
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
}

fn files_hold(env: &Env, needle: &[u8]) -> bool {
    ["cmem.db", "cmem.db-wal", "cmem.db-shm"].iter().any(|f| {
        std::fs::read(env.data_dir().join(f))
            .map(|b| b.windows(needle.len()).any(|w| w == needle))
            .unwrap_or(false)
    })
}

#[test]
fn vectors_follow_the_records_through_forget_scrub_and_import() {
    let env = Env::new();
    session(
        &env,
        "s1",
        "the login token is accepted after it expired",
        "Fixed JWT expiry check",
    );
    session(
        &env,
        "s2",
        "make the invoice table sortable",
        "Sorted invoices by date",
    );
    assert!(vectors(&env).is_empty(), "hooks never embed");
    // Searching does not wait for the multilingual model to embed records: they are found by
    // their words until the backfill has run.
    assert!(mem_search(&env, "invoice").contains("invoice"));
    assert!(vectors(&env).is_empty(), "a search embedded records");

    let out = env.run_ok(&["model", "backfill"]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("embedded"),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let all = vectors(&env);
    let records =
        env.count("user_prompts") + env.count("session_summaries") + env.count("observations");
    assert_eq!(all.len() as i64, records, "{all:?}");

    // Forget the first session's prompt: its vector goes, and its bytes are in no file.
    let prompt_id: i64 = env.rows(
        "SELECT id FROM user_prompts WHERE prompt_text LIKE '%token%'",
        |r| r.get(0),
    )[0];
    let gone = all
        .iter()
        .find(|v| (v.0, v.1) == (2, prompt_id))
        .expect("the prompt had a vector")
        .2
        .clone();
    assert!(files_hold(&env, &gone));
    env.run_ok(&["forget", &format!("P{prompt_id}")]);
    assert!(!vectors(&env).iter().any(|v| (v.0, v.1) == (2, prompt_id)));
    assert!(
        !files_hold(&env, &gone),
        "the forgotten record's vector is still in the files"
    );

    // Scrub rewrites text: the rewritten records lose their old vectors (in every file) and the
    // next search embeds the scrubbed text.
    let before = vectors(&env);
    env.run_ok(&["scrub", "invoice"]);
    let after = vectors(&env);
    let dropped: Vec<_> = before.iter().filter(|v| !after.contains(v)).collect();
    assert!(
        !dropped.is_empty(),
        "scrub changed records but kept every vector"
    );
    for d in &dropped {
        assert!(
            !files_hold(&env, &d.2),
            "a scrubbed record's old vector is still in the files"
        );
    }
    env.run_ok(&["model", "backfill"]);
    assert_eq!(vectors(&env).len(), before.len());

    // Export, import elsewhere: vectors are not exported; the first search rebuilds them.
    let export = env.root().join("export.jsonl");
    env.run_ok(&["export", "--out", export.to_str().unwrap()]);
    let other = Env::new();
    other.run_ok(&["import", "jsonl", export.to_str().unwrap()]);
    assert!(vectors(&other).is_empty());
    other.run_ok(&["model", "backfill"]);
    assert_eq!(vectors(&other).len(), before.len());
}

#[test]
fn a_closed_turn_starts_the_background_embedding_and_doctor_counts_what_waits() {
    let env = Env::new();
    session(&env, "s1", "把连接池调大", "POOL_SIZE 5 → 20");
    let doctor = env.doctor();
    assert!(
        doctor.contains("multilingual semantic + lexical"),
        "{doctor}"
    );
    assert!(doctor.contains("wait for their vector"), "{doctor}");
    assert!(doctor.contains("cmem model backfill"), "{doctor}");

    // A turn closed by a hook that may embed in the background.
    let mut p = env.payload("s2", json!({"prompt": "rename the invoice job"}));
    p["prompt_id"] = json!("s2-1");
    let stdin = p.to_string();
    let out = common::run_with_stdin(
        env.cmd()
            .env("CMEM_SEARCH_BACKGROUND_EMBEDDING", "true")
            .args(["hook", "user-prompt-submit"]),
        stdin.as_bytes(),
    );
    common::assert_fail_open("user-prompt-submit", &out);
    let stop = env.real_for("Stop", "s2", "s2-1", "toolu_s2");
    let out = common::run_with_stdin(
        env.cmd()
            .env("CMEM_SEARCH_BACKGROUND_EMBEDDING", "true")
            .args(["hook", "stop"]),
        stop.to_string().as_bytes(),
    );
    common::assert_fail_open("stop", &out);
    // The hook returned at once; the worker embeds every record (the first session's too).
    let records =
        || env.count("user_prompts") + env.count("session_summaries") + env.count("observations");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(300);
    while (vectors(&env).len() as i64) < records() {
        assert!(
            std::time::Instant::now() < deadline,
            "the background embedding did not finish: {} of {} records have vectors",
            vectors(&env).len(),
            records()
        );
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    assert!(env.doctor().contains("every record has its vector"));
}

#[test]
fn doctor_names_the_search_mode() {
    let env = Env::new();
    // (doctor exits 1 here: cmem is not installed into Claude Code in this test's home)
    let on = env.cmd().args(["doctor", "--init"]).output().unwrap();
    let text = String::from_utf8_lossy(&on.stdout).to_string();
    assert!(
        text.contains("search") && text.contains("semantic + lexical"),
        "{text}"
    );
    let off = env
        .cmd()
        .args(["doctor"])
        .env("CMEM_SEARCH_SEMANTIC", "false")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&off.stdout).contains("lexical only"));
}

/// A tiny Model2Vec directory: a six-token WordPiece vocabulary and a 6 x 4 table.
fn tiny_model(dir: &std::path::Path) {
    std::fs::create_dir_all(dir).unwrap();
    let vocab = ["[PAD]", "[UNK]", "login", "token", "invoice", "##s"];
    let tokenizer = json!({
        "normalizer": {"type": "BertNormalizer", "lowercase": true},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "model": {
            "type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
            "vocab": vocab.iter().enumerate().map(|(i, t)| (t.to_string(), json!(i))).collect::<serde_json::Map<_, _>>()
        }
    });
    std::fs::write(dir.join("tokenizer.json"), tokenizer.to_string()).unwrap();
    let table: Vec<f32> = (0..24).map(|i| ((i * 7 % 11) as f32 - 5.0) / 5.0).collect();
    let header = json!({"embeddings": {"dtype": "F32", "shape": [6, 4], "data_offsets": [0, 96]}})
        .to_string();
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend(header.as_bytes());
    bytes.extend(table.iter().flat_map(|f| f.to_le_bytes()));
    std::fs::write(dir.join("model.safetensors"), bytes).unwrap();
}

#[test]
fn another_model_can_be_installed_from_a_directory_and_removed() {
    let env = Env::new();
    session(&env, "s1", "the login token expired", "Fixed token expiry");
    let status = |env: &Env| String::from_utf8_lossy(&env.run_ok(&["model"]).stdout).to_string();
    let built_in = "multilingual-e5-small/";
    assert!(status(&env).contains(built_in), "{}", status(&env));

    // Not a model: a clear error, nothing installed.
    let bad = env
        .cmd()
        .args(["model", "install", env.root().to_str().unwrap()])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("not a usable Model2Vec model"));

    let dir = env.root().join("tiny");
    tiny_model(&dir);
    env.run_ok(&["model", "install", dir.to_str().unwrap()]);
    let now = status(&env);
    assert!(
        now.contains("model:    installed/")
            && now.contains("(6 tokens)")
            && now.contains("4 dimensions"),
        "{now}"
    );
    mem_search(&env, "logins");
    let models = env.rows("SELECT DISTINCT model FROM record_vectors", |r| {
        r.get::<_, String>(0)
    });
    assert_eq!(models.len(), 1);
    assert!(models[0].starts_with("installed/"), "{models:?}");

    env.run_ok(&["model", "remove"]);
    let now = status(&env);
    assert!(now.contains(built_in) && now.contains("wait"), "{now}");
    // The backfill replaces the other model's vectors.
    env.run_ok(&["model", "backfill"]);
    let models = env.rows("SELECT DISTINCT model FROM record_vectors", |r| {
        r.get::<_, String>(0)
    });
    assert_eq!(models.len(), 1);
    assert!(models[0].starts_with(built_in), "{models:?}");
}

#[test]
fn meaning_alone_must_speak_clearly_and_short_prompts_say_nothing() {
    let env = Env::new();
    let demo = env.build_demo(Some(&env.root().join("cache")));
    let search = |args: &[&str]| {
        let mut cmd = env.cmd();
        cmd.env("CMEM_DATA_DIR", &demo).args(args);
        // `cmem search` exits 1 when nothing matches, as grep does: what it says is checked.
        String::from_utf8_lossy(&cmd.output().unwrap().stdout).into_owned()
    };
    assert!(search(&["model", "backfill"]).contains("embedded "));
    // Every text has a nearest neighbour in meaning: in the demo, "banana smoothie recipe" is
    // as near to a record as the 0.2 floor lets in, and "OOM" (no record says it) nearest to
    // the prompt "Implement that.", which says nothing and so lies near everything. A query none
    // of whose words memory holds gets only what its meaning finds clearly, and a prompt of a
    // word or two is never found by meaning alone.
    for nonsense in ["banana smoothie recipe", "xqzvbn plorf", "OOM"] {
        let got = search(&["search", "--all-projects", nonsense]);
        assert!(
            got.starts_with("Nothing") && got.contains("(words and meaning)"),
            "{nonsense}: {got}"
        );
    }
    // A Chinese question of English notes: a record in another script may be a candidate a
    // little below the floor, but not a prompt, a line that lies near every question; the
    // demo's one unrelated orbit-web prompt (withRetry and 429) must not answer this.
    let got = search(&["search", "--all-projects", "为什么结账请求会卡住"]);
    assert!(!got.contains("withRetry"), "{got}");
    assert!(got.contains("(words and meaning)"), "{got}");
    // Meaning alone still finds what it finds clearly: a misspelt identifier no word matches
    // finds the records that name it.
    let got = search(&["search", "--all-projects", "refresh_windw"]);
    assert!(got.contains("refresh_window"), "{got}");
    // A query sharing a word with memory is ranked by meaning as well as by its words.
    let got = search(&["search", "--all-projects", "why do checkout requests hang"]);
    assert!(
        got.contains("result(s)") && got.contains("(words and meaning)"),
        "{got}"
    );
}
