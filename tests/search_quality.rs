//! Search quality: over a hand-written memory of 45 observations, mem_search in auto mode must
//! put an expected observation among its top 3 results for at least 90% of 38 natural-language
//! queries (paraphrases, partial words, stop words, synonyms found only in narratives).

use cmem::disclosure::Engine;
use cmem::model::ObservationBody;
use cmem::store::Store;
use cmem::store::observations::{NewObservation, insert};
use serde_json::{Value, json};

#[test]
fn auto_mode_finds_the_expected_record_in_its_top_three() {
    let fixture: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/search/memory.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("cmem.db")).unwrap();
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect()
    };
    for (i, o) in fixture["observations"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let id = insert(
            &store.conn,
            &NewObservation {
                project: o["project"].as_str().unwrap().into(),
                body: ObservationBody {
                    obs_type: o["type"].as_str().unwrap().into(),
                    title: Some(o["title"].as_str().unwrap().into()),
                    narrative: Some(o["narrative"].as_str().unwrap().into()),
                    facts: strings(&o["facts"]),
                    concepts: strings(&o["concepts"]),
                    files_read: strings(&o["files_read"]),
                    files_modified: strings(&o["files_modified"]),
                    ..Default::default()
                },
                created_at: 1_790_000_000_000 + i as i64 * 3_600_000,
                source: "fixture".into(),
                ..Default::default()
            },
        )
        .unwrap()
        .unwrap();
        assert_eq!(id, i as i64 + 1);
    }
    let mut engine = Engine::new(vec!["shop".into(), "infra".into()]).unwrap();
    let queries = fixture["queries"].as_array().unwrap();
    assert!(queries.len() >= 30);
    let mut hits = 0;
    let mut misses = Vec::new();
    for q in queries {
        let text = q["query"].as_str().unwrap();
        let expect: Vec<String> = q["expect"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.to_string())
            .collect();
        let reply = engine
            .call(
                Some(&store.conn),
                &json!({"mode": "auto", "query": text, "maxDetails": 3}),
                1_800_000_000_000,
            )
            .unwrap_or_else(|e| panic!("{text}: {} {}", e.code, e.message));
        let top: Vec<String> = reply.details.iter().take(3).map(|d| d.id.clone()).collect();
        if top.iter().any(|id| expect.contains(id)) {
            hits += 1;
        } else {
            misses.push(format!("{text:?}: expected {expect:?}, got {top:?}"));
        }
    }
    let rate = hits as f64 / queries.len() as f64;
    eprintln!(
        "search quality: {hits}/{} = {:.0}% in the top 3",
        queries.len(),
        rate * 100.0
    );
    for m in &misses {
        eprintln!("  miss {m}");
    }
    assert!(
        rate >= 0.9,
        "only {:.0}% ({hits}/{}):\n{}",
        rate * 100.0,
        queries.len(),
        misses.join("\n")
    );
}
