//! `cmem search` on a real database: the ranking the MCP tools use, a project scope, JSON for
//! scripts, and grep's exit codes (0 found, 1 nothing, 2 error).

use crate::common;

use crate::common::Env;
use serde_json::Value;

fn seeded() -> Env {
    let env = Env::new();
    env.run_ok(&["dev", "generate", "--observations", "300"]);
    env
}

fn search(env: &Env, args: &[&str]) -> std::process::Output {
    env.cmd()
        .arg("search")
        .args(args)
        .output()
        .expect("run cmem search")
}

fn json_rows(env: &Env, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["--json"];
    all.extend_from_slice(args);
    let out = search(env, &all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice::<Value>(&out.stdout)
        .expect("--json prints JSON")
        .as_array()
        .expect("an array")
        .clone()
}

#[test]
fn ranks_as_the_search_tool_and_prints_its_table() {
    let env = seeded();
    let out = search(&env, &["--all-projects", "-n", "5", "token", "refresh"]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with("5 result(s) for \"token refresh\" in all projects"),
        "{text}"
    );
    let rows = json_rows(&env, &["--all-projects", "-n", "5", "token", "refresh"]);
    assert_eq!(rows.len(), 5);
    // The table lists the same records in the same order as the JSON.
    let table_ids: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("| #"))
        .map(|l| l.split(' ').next().unwrap_or_default().to_string())
        .collect();
    let json_ids: Vec<String> = rows
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(table_ids, json_ids);
    // The search tool of the MCP server ranks the same records first.
    let reply = env.mcp_serve(&common::jsonl(&[
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.into(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"token refresh","limit":5,"project":"acme-api"}}}"#.into(),
    ]));
    let tool_text = String::from_utf8_lossy(reply.last().unwrap()).to_string();
    let scoped = json_rows(&env, &["-p", "acme-api", "-n", "5", "token refresh"]);
    assert!(!scoped.is_empty());
    for r in &scoped {
        assert_eq!(r["project"], "acme-api", "{r}");
        let id = r["id"].as_str().unwrap();
        assert!(
            tool_text.contains(&format!("| #{id} |")),
            "{id} not in {tool_text}"
        );
    }
}

#[test]
fn filters_by_type_and_says_when_nothing_matches() {
    let env = seeded();
    let summaries = json_rows(&env, &["-a", "-t", "summaries", "token"]);
    assert!(!summaries.is_empty());
    for r in summaries {
        assert_eq!(r["kind"], "summary", "{r}");
    }
    let fixes = json_rows(&env, &["-a", "-t", "bugfix", "checkout"]);
    assert!(!fixes.is_empty());
    for r in &fixes {
        assert_eq!(r["type"], "bugfix", "{r}");
    }
    // A type is accepted however it is written, and filters as its stored name does.
    assert_eq!(json_rows(&env, &["-a", "-t", "Bugfix", "checkout"]), fixes);
    let alerts = json_rows(&env, &["-a", "-t", "security_alert", "config"]);
    assert!(!alerts.is_empty());
    assert_eq!(
        json_rows(&env, &["-a", "-t", "Security-Alert", "config"]),
        alerts
    );
    // So does the search tool's obs_type list.
    let reply = env.mcp_serve(&common::jsonl(&[
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.into(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
        r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search","arguments":{"query":"checkout","obs_type":"BugFix","project":"acme-api"}}}"#.into(),
    ]));
    let tool_text = String::from_utf8_lossy(reply.last().unwrap()).to_string();
    assert!(!tool_text.contains("0 result(s)"), "{tool_text}");
    // The test's own directory is no project of the generated memory: nothing there.
    let out = search(&env, &["token"]);
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("or --all-projects"), "{text}");
    let out = search(&env, &["-a", "zzqxv"]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn bad_arguments_are_errors_that_say_what_to_give() {
    let env = seeded();
    for (args, says) in [
        (vec!["-a", "-t", "nope", "x"], "type must be"),
        (vec!["-a", "-n", "0", "x"], "from 1 to 100"),
        (vec!["-a", "-n", "-1", "x"], "from 1 to 100"),
        (vec!["-a", "  "], "query is empty"),
        (vec!["--cwd", "/no/such/dir", "x"], "not a directory"),
    ] {
        let out = search(&env, &args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(says), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // No database yet: nothing found, and why.
    let fresh = Env::new();
    let out = search(&fresh, &["-a", "token"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("No memory has been recorded yet"));
}

/// A pasted page is a query too: each word would be one more argument to the ranking function,
/// which SQLite refuses at about a thousand, and the reply repeats only its opening.
#[test]
fn a_query_of_a_thousand_words_is_searched_by_its_first_ones() {
    let env = seeded();
    let han: String = (0..1000u32)
        .filter_map(|i| char::from_u32(0x4e00 + i * 7))
        .collect();
    let words: Vec<String> = (0..1000).map(|i| format!("zq{i}")).collect();
    let identifier = (0..1000)
        .map(|i| format!("x{i}"))
        .collect::<Vec<_>>()
        .join("_");
    for query in [
        han,
        words.join(" "),
        identifier,
        format!("token {}", words.join(" ")),
    ] {
        let out = search(&env, &["-a", "--lexical", &query]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(matches!(out.status.code(), Some(0 | 1)), "{err}");
        let said = String::from_utf8_lossy(&out.stdout);
        assert!(said.len() < 20_000, "the reply repeats the whole query");
    }
    // Its first words still count: `token` leads the last one, and the generated memory has it.
    let out = search(
        &env,
        &["-a", "--lexical", &format!("token {}", words.join(" "))],
    );
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn show_prints_what_get_observations_returns() {
    let env = seeded();
    let rows = json_rows(&env, &["-a", "-n", "2", "token", "refresh"]);
    let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
    let out = env.cmd().arg("show").args(&ids).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(text.starts_with(&format!("## #{}", ids[0])), "{text}");
    assert!(text.contains(&format!("## #{}", ids[1])), "{text}");
    // The agent's get_observations gets the same text.
    let reply = env.mcp_serve(&common::jsonl(&[
        r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#.into(),
        r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#.into(),
        format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{{"name":"get_observations","arguments":{{"ids":{}}}}}}}"#,
            serde_json::to_string(&ids).unwrap()
        ),
    ]));
    let answer: Value = serde_json::from_slice(reply.last().unwrap()).unwrap();
    assert_eq!(
        answer["result"]["content"][0]["text"].as_str().unwrap(),
        text.trim_end()
    );
    // A missing record is named, and the exit code says so; a malformed id is an error.
    let out = env.cmd().args(["show", ids[0], "999999"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("Not found: 999999"));
    let out = env.cmd().args(["show", "banana"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not an id"));
}

/// How many observations have no vector.
fn without_vector(db: &rusqlite::Connection) -> i64 {
    db.query_row(
        "SELECT count(*) FROM observations o WHERE NOT EXISTS
           (SELECT 1 FROM record_vectors v WHERE v.kind = 0 AND v.record_id = o.id)",
        [],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn searches_while_another_process_holds_the_write_lock() {
    // A small memory: every record is embedded by the real model, twice.
    let env = Env::new();
    env.run_ok(&["dev", "generate", "--observations", "40"]);
    env.run_ok(&["model", "backfill"]);
    let writer = rusqlite::Connection::open(env.db_path()).unwrap();
    assert_eq!(without_vector(&writer), 0);
    // A search only reads: it answers while another process holds the write lock.
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let out = search(&env, &["-a", "token"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    writer.execute_batch("ROLLBACK").unwrap();
    // A record without its vector is found by its words, and the search does not embed it.
    writer
        .execute_batch(
            "DELETE FROM record_vectors WHERE kind = 0 AND record_id = (SELECT min(record_id) FROM record_vectors WHERE kind = 0);
             BEGIN IMMEDIATE;",
        )
        .unwrap();
    let out = search(&env, &["-a", "token"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    writer.execute_batch("ROLLBACK").unwrap();
    assert_eq!(without_vector(&writer), 1);
    // The backfill gives it its vector.
    env.run_ok(&["model", "backfill"]);
    assert_eq!(without_vector(&writer), 0);
}

/// A session written in Chinese, captured by the hooks as Claude Code sends it, is found by
/// words from inside its unspaced sentences (two-character words too), by a Chinese question
/// around them, and an identifier next to Chinese characters stays a word of its own.
#[test]
fn a_chinese_session_is_found_by_words_from_inside_its_text() {
    let env = Env::new();
    let prompt = "高峰期下单接口经常 502，日志里是连接池耗尽。帮我看看 src/pool.py，把连接池调大并确保错误分支也会归还连接。";
    let mut p = env.payload("zh1", serde_json::json!({ "prompt": prompt }));
    p["prompt_id"] = serde_json::json!("zh1-1");
    env.hook("user-prompt-submit", &p);
    let mut stop = env.real_for("Stop", "zh1", "zh1-1", "toolu_zh1_0");
    stop["last_assistant_message"] = serde_json::json!(
        "已把 POOL_SIZE 从 5 调到 20，错误分支现在也会归还连接；选用pgvector做向量搜索的方案先不动。"
    );
    env.hook("stop", &stop);
    for query in [
        "耗尽",
        "连接池",
        "归还",
        "为什么连接池会耗尽",
        "向量搜索",
        "pgvector",
        "POOL_SIZE",
    ] {
        let rows = json_rows(&env, &[query]);
        assert!(!rows.is_empty(), "{query:?} finds nothing");
    }
    // Characters that occur, but never side by side, are not a match.
    assert_eq!(search(&env, &["池漏"]).status.code(), Some(1));
}
