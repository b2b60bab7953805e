//! Issue 28: a record's vector travels with its row through `cmem sync`, so a team embeds each
//! record once. A device stores a pulled vector only when it is of its own model and made from
//! the text the record holds there; another model's vector, or one that does not read right,
//! is ignored (the device embeds the record itself) and never holds back the row; the built-in
//! model's vector then replaces the other model's on the server, once.

use std::collections::BTreeMap;

use base64::Engine;
use serde_json::json;

use super::common::Env;
use super::{Cluster, cmem, doctor, mcp_call, ok, sync};

/// Each observation's vector by the observation's title: (model, vector, script).
fn vectors(env: &Env) -> BTreeMap<String, (String, Vec<u8>, i64)> {
    env.db()
        .prepare(
            "SELECT o.title, v.model, v.vector, v.script FROM record_vectors v
             JOIN observations o ON v.kind = 0 AND o.id = v.record_id",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, (r.get(1)?, r.get(2)?, r.get(3)?))))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// The id of the model this binary embeds with, as `cmem model status` names it.
fn model_id(env: &Env) -> String {
    let status = ok(env.cmd().args(["model", "status"]));
    status
        .lines()
        .find_map(|l| l.strip_prefix("model:"))
        .map(|m| m.trim().to_string())
        .unwrap_or_else(|| panic!("{status}"))
}

fn save(env: &Env, title: &str, text: &str) {
    mcp_call(env, "save_memory", json!({"title": title, "text": text}));
}

fn backfill(env: &Env) -> String {
    ok(env.cmd().args(["model", "backfill"]))
}

/// Rewrites the `_vector` of the server's row of the observation titled `title` by hand, as a
/// teammate's own SQL (or a buggy client) could.
fn forge_vector(pg: &Cluster, title: &str, vector: serde_json::Value) {
    let n = pg
        .client()
        .execute(
            "UPDATE cmem.rows SET doc = jsonb_set(doc, '{_vector}', $1::text::jsonb), hash = 'forged'
             WHERE tbl = 'observations' AND doc->>'title' = $2",
            &[&vector.to_string(), &title],
        )
        .unwrap();
    assert_eq!(n, 1, "{title}");
}

#[test]
fn vectors_travel_with_their_rows_and_other_models_are_embedded_here() {
    let Some(pg) = Cluster::start() else { return };
    let url = pg.url();
    let (a, b) = (Env::new(), Env::new());
    save(
        &a,
        "Connection pool leak",
        "Checkout requests hung waiting for a database connection; the pool leaked one per retry.",
    );
    save(
        &a,
        "连接池泄漏",
        "结账请求一直等待数据库连接：每次重试都泄漏一个连接。",
    );
    save(
        &a,
        "Token refresh race",
        "Two tabs refreshed the session token at once and logged the user out.",
    );
    let embedded = backfill(&a);
    assert!(embedded.contains("embedded 3 records"), "{embedded}");
    let model = model_id(&a);
    let on_a = vectors(&a);
    assert_eq!(on_a.len(), 3);
    assert!(on_a.values().all(|(m, _, _)| *m == model));
    assert_eq!(on_a["连接池泄漏"].2, 1, "the Chinese record's script");

    ok(cmem(&a, &url).args(["sync", "init"]));
    sync(&a, &url);
    sync(&b, &url);
    // B holds A's vectors, byte for byte and of the same model, and embedded nothing (it never
    // ran a backfill, and the hooks' background one is off in tests).
    assert_eq!(vectors(&b), on_a);
    let status = ok(b.cmd().args(["model", "status"]));
    assert!(status.contains("vectors:  3 of 3 records\n"), "{status}");
    let checkup = doctor(&b, &url);
    assert!(
        checkup.contains("every record has its vector (3)"),
        "{checkup}"
    );
    let found = mcp_call(&b, "mem_search", json!({"query": "为什么结账请求会卡住"}));
    assert!(found.contains("连接池泄漏"), "{found}");
    // Nothing goes back and forth: the documents are the same on both sides.
    for env in [&a, &b, &a] {
        let again = sync(env, &url);
        assert!(
            again.contains("pushed 0 rows") && again.contains("pulled 0 new, 0 changed"),
            "{again}"
        );
    }

    // A record embedded after its row was pushed: the vector goes out on the next sync.
    save(
        &a,
        "Cache stampede",
        "Every worker rebuilt the cold cache at once after a deploy.",
    );
    sync(&a, &url);
    sync(&b, &url);
    assert!(!vectors(&b).contains_key("Cache stampede"));
    backfill(&a);
    let out = sync(&a, &url);
    assert!(
        out.contains("pushed 1 row (1 new or changed on the server)"),
        "{out}"
    );
    let out = sync(&b, &url);
    assert!(out.contains("pulled 0 new, 1 changed"), "{out}");
    assert_eq!(vectors(&b)["Cache stampede"], vectors(&a)["Cache stampede"]);

    // Both embed a record before either syncs, B's vector a rounding off A's (another CPU):
    // A's reaches the server first; B's push of its own is turned away as based on an older
    // revision and dropped without a merge, B keeps its own, and nothing moves after.
    save(
        &a,
        "Retry storm",
        "Clients retried without backoff and flattened the auth service.",
    );
    sync(&a, &url);
    sync(&b, &url);
    backfill(&a);
    let (_, mut theirs, _) = vectors(&a)["Retry storm"].clone();
    if let Some(last) = theirs.last_mut() {
        *last = last.wrapping_add(1);
    }
    b.db()
        .execute(
            "INSERT INTO record_vectors (kind, record_id, project, model, vector)
             SELECT 0, id, project, ?1, ?2 FROM observations WHERE title = 'Retry storm'",
            rusqlite::params![model, theirs],
        )
        .unwrap();
    sync(&a, &url);
    let out = sync(&b, &url);
    assert!(
        out.contains("pushed 0 rows") && out.contains("pulled 0 new, 1 changed"),
        "{out}"
    );
    assert_eq!(vectors(&b)["Retry storm"].1, theirs);
    for env in [&b, &a] {
        let again = sync(env, &url);
        assert!(
            again.contains("pushed 0 rows") && again.contains("pulled 0 new, 0 changed"),
            "{again}"
        );
    }
    let on_server: String = pg
        .client()
        .query_one(
            "SELECT doc->'_vector'->>'base64' FROM cmem.rows WHERE doc->>'title' = 'Retry storm'",
            &[],
        )
        .unwrap()
        .get(0);
    let on_server = base64::engine::general_purpose::STANDARD
        .decode(on_server)
        .unwrap();
    assert_eq!(
        on_server,
        vectors(&a)["Retry storm"].1,
        "A's stays on the server"
    );
    assert_ne!(on_server, theirs);

    // A scrub rewrites the text: no device keeps a vector of the old text, and the one made of
    // the new text travels as any other.
    let before = vectors(&a)["Retry storm"].1.clone();
    ok(a.cmd().args(["scrub", "flattened"]));
    assert!(!vectors(&a).contains_key("Retry storm"));
    sync(&a, &url);
    sync(&b, &url);
    assert!(
        !vectors(&b).contains_key("Retry storm"),
        "B's own went with the text"
    );
    backfill(&a);
    sync(&a, &url);
    sync(&b, &url);
    let after = vectors(&b)["Retry storm"].clone();
    assert_eq!(after, vectors(&a)["Retry storm"]);
    assert_ne!(after.1, before);

    // A vector of another model (an installed Model2Vec model on A, or the built-in model of an
    // older cmem) is not stored on B, which embeds the record itself; B's is the built-in
    // model's, so it goes to the server over the other one, and a third device takes it without
    // embedding anything. A keeps its own vector, and nothing moves after.
    save(
        &a,
        "Disk full on CI",
        "The runner's disk filled up with old build caches.",
    );
    a.db()
        .execute(
            "INSERT INTO record_vectors (kind, record_id, project, model, vector)
             SELECT 0, id, project, 'installed/0123456789ab', zeroblob(68) FROM observations
             WHERE title = 'Disk full on CI'",
            [],
        )
        .unwrap();
    sync(&a, &url);
    sync(&b, &url);
    assert!(!vectors(&b).contains_key("Disk full on CI"));
    let status = ok(b.cmd().args(["model", "status"]));
    assert!(status.contains("vectors:  5 of 6 records"), "{status}");
    assert!(backfill(&b).contains("embedded 1 records"));
    assert_eq!(vectors(&b)["Disk full on CI"].0, model);
    let out = sync(&b, &url);
    assert!(out.contains("pushed 1 row"), "{out}");
    let on_server = |title: &str| -> String {
        pg.client()
            .query_one(
                "SELECT doc->'_vector'->>'model' FROM cmem.rows WHERE doc->>'title' = $1",
                &[&title],
            )
            .unwrap()
            .get(0)
    };
    assert_eq!(on_server("Disk full on CI"), model);
    let c = Env::new();
    sync(&c, &url);
    let status = ok(c.cmd().args(["model", "status"]));
    assert!(status.contains("vectors:  6 of 6 records"), "{status}");
    assert_eq!(
        vectors(&c)["Disk full on CI"],
        vectors(&b)["Disk full on CI"]
    );
    let out = sync(&a, &url);
    assert!(out.contains("pulled 0 new, 1 changed"), "{out}");
    assert_eq!(vectors(&a)["Disk full on CI"].0, "installed/0123456789ab");
    for env in [&a, &b, &c, &a] {
        let again = sync(env, &url);
        assert!(
            again.contains("pushed 0 rows") && again.contains("pulled 0 new, 0 changed"),
            "{again}"
        );
    }
    assert_eq!(on_server("Disk full on CI"), model);

    // Vectors written on the server by hand that do not read right: each is skipped with a
    // warning, and its row is stored all the same.
    let bad = [
        (
            "Flaky DNS in staging",
            json!({"model": model, "text_sha256": "0".repeat(64), "base64": "AAAA"}),
        ),
        (
            "Huge vector",
            json!({"model": model, "text_sha256": "0".repeat(64), "base64": "A".repeat(4 << 20)}),
        ),
        ("Not an object", json!("a vector")),
    ];
    for (title, _) in &bad {
        save(&a, title, "Something went wrong somewhere in staging.");
    }
    sync(&a, &url);
    for (title, vector) in &bad {
        forge_vector(&pg, title, vector.clone());
    }
    let out = sync(&b, &url);
    assert!(out.contains("pulled 3 new"), "{out}");
    for (title, _) in &bad {
        assert_eq!(
            b.count_where("observations", &format!("title = '{title}'")),
            1
        );
        assert!(!vectors(&b).contains_key(*title));
    }
    let log = b.log_text();
    assert_eq!(
        log.matches("sync: ignored the vector of a pulled observations row")
            .count(),
        3,
        "{log}"
    );
}
