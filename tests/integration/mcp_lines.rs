//! The MCP line reader against the real `cmem mcp` binary: every request line gets exactly one
//! answer, for its own id, whatever the line holds (lone surrogates, 400-digit numbers, 100,000
//! levels of nesting, garbage, lines over the 8 MiB cap), and text beyond the BMP comes back
//! as it was saved.

use crate::common;

use crate::common::Env;
use proptest::prelude::*;
use serde_json::{Value, json};

const CAP: usize = 8 * 1024 * 1024;

/// Whether the reply's id is `sent` (a JSON token): a number or a string serde cannot read
/// (a lone surrogate) as the very same text, other strings as the same value.
fn same_id(reply: &[u8], sent: &str) -> bool {
    let verbatim = || reply.starts_with(format!(r#"{{"jsonrpc":"2.0","id":{sent},"#).as_bytes());
    // A number comes back digit for digit (a float read and rewritten would not).
    if sent.starts_with(|c: char| c == '-' || c.is_ascii_digit()) {
        return verbatim();
    }
    match serde_json::from_str::<Value>(sent) {
        Ok(v) => serde_json::from_slice::<Value>(reply).is_ok_and(|r| r["id"] == v),
        // Not readable by serde (a 400-digit number, a lone surrogate): the very text comes back.
        Err(_) => verbatim(),
    }
}

fn is_error(reply: &[u8]) -> bool {
    let text = String::from_utf8_lossy(reply);
    text.contains(r#","error":{"code":"#) && !text.contains(r#","result":"#)
}

fn text_of(reply: &[u8]) -> String {
    let v: Value = serde_json::from_slice(reply).expect("reply is JSON");
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn the_id_comes_back_from_lines_the_strict_parse_refuses() {
    let env = Env::new();
    let big = "9".repeat(400);
    let deep = |d: usize| format!("{}{}", "[".repeat(d), "]".repeat(d));
    let requests = vec![
        // Lone surrogate in an argument: served, the surrogate read as U+FFFD.
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"a \ud800"}}}"#.to_string(),
        // Lone surrogate in the id: served, the id echoed as sent.
        r#"{"jsonrpc":"2.0","id":"a \ud800","method":"ping"}"#.to_string(),
        // A 400-digit number in the params: refused for its id.
        format!(r#"{{"jsonrpc":"2.0","id":3,"method":"ping","params":{{"n":{big}}}}}"#),
        // A 400-digit id: served, the id echoed digit for digit.
        format!(r#"{{"jsonrpc":"2.0","id":{big},"method":"ping"}}"#),
        // 129 levels, then 100,000 with the id after them.
        format!(r#"{{"jsonrpc":"2.0","id":5,"method":"ping","params":{}}}"#, deep(129)),
        format!(r#"{{"jsonrpc":"2.0","method":"ping","params":{},"id":"six"}}"#, deep(100_000)),
        // A line cut short.
        r#"{"jsonrpc":"2.0","id":7,"method":"#.to_string(),
        // A line that holds no id.
        "not json".to_string(),
        r#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#.to_string(),
    ];
    let replies = env.mcp_serve(&common::jsonl(&requests));
    let shown: Vec<String> = replies
        .iter()
        .map(|r| String::from_utf8_lossy(r).chars().take(200).collect())
        .collect();
    assert_eq!(replies.len(), 9, "{shown:#?}");
    let expect: [(&str, bool); 9] = [
        ("1", false),
        (r#""a \ud800""#, false),
        ("3", true),
        (&big, false),
        ("5", true),
        (r#""six""#, true),
        ("7", true),
        ("null", true),
        ("8", false),
    ];
    for (i, (reply, (id, error))) in replies.iter().zip(expect).enumerate() {
        assert!(
            same_id(reply, id),
            "reply {i} has not id {id}: {}",
            shown[i]
        );
        assert_eq!(is_error(reply), error, "reply {i}: {}", shown[i]);
    }
    assert!(String::from_utf8_lossy(&replies[2]).contains("number out of range"));
    assert!(String::from_utf8_lossy(&replies[4]).contains("nested up to 128 levels"));
}

#[test]
fn an_over_long_line_is_refused_for_its_id_and_the_server_goes_on() {
    let env = Env::new();
    let pad = "a".repeat(CAP + 1024);
    let requests = vec![
        format!(r#"{{"jsonrpc":"2.0","id":"big","method":"ping","params":{{"pad":"{pad}"}}}}"#),
        // The id after the cut cannot be known: null.
        format!(r#"{{"jsonrpc":"2.0","method":"ping","params":{{"pad":"{pad}"}},"id":2}}"#),
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#.to_string(),
    ];
    let replies = env.mcp_serve(&common::jsonl(&requests));
    assert_eq!(replies.len(), 3);
    let first: Value = serde_json::from_slice(&replies[0]).unwrap();
    assert_eq!(first["id"], json!("big"));
    assert_eq!(first["error"]["code"], json!(-32600));
    let message = first["error"]["message"].as_str().unwrap();
    assert!(message.contains("Request too large"), "{message}");
    assert!(
        message.contains(&requests[0].len().to_string()),
        "{message}"
    );
    let second: Value = serde_json::from_slice(&replies[1]).unwrap();
    assert_eq!(second["id"], Value::Null);
    assert_eq!(
        serde_json::from_slice::<Value>(&replies[2]).unwrap(),
        json!({"jsonrpc": "2.0", "id": 3, "result": {}})
    );
}

/// An object with neither a method nor an id is an invalid request (JSON-RPC 2.0: -32600,
/// id null); a response to a request the server never sent gets no reply; the server goes on.
#[test]
fn an_object_without_method_or_id_is_an_invalid_request() {
    let env = Env::new();
    let requests = vec![
        r#"{"a":1}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":9,"result":{}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#.to_string(),
    ];
    let replies = env.mcp_serve(&common::jsonl(&requests));
    assert_eq!(replies.len(), 2, "{replies:?}");
    let first: Value = serde_json::from_slice(&replies[0]).unwrap();
    assert_eq!(first["id"], Value::Null);
    assert_eq!(first["error"]["code"], json!(-32600));
    assert_eq!(
        serde_json::from_slice::<Value>(&replies[1]).unwrap(),
        json!({"jsonrpc": "2.0", "id": 3, "result": {}})
    );
}

#[test]
fn characters_beyond_the_bmp_come_back_as_saved() {
    let env = Env::new();
    let call = |id: u64, name: &str, args: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
               "params": {"name": name, "arguments": args}})
        .to_string()
    };
    let title = "Launch 🚀 on Fridays 🦀";
    let mut requests = vec![
        call(
            1,
            "save_memory",
            json!({"title": title, "text": "We launch 🚀 only on Fridays; 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 too."}),
        ),
        call(2, "search", json!({"query": "launch Fridays"})),
        call(3, "mem_search", json!({"query": "launch Fridays"})),
        call(4, "get_observations", json!({"ids": [1]})),
        call(5, "timeline", json!({"anchor": 1})),
        // The same characters as escape pairs, and in an id.
        r#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"search","arguments":{"query":"\ud83d\ude80 launch"}}}"#.to_string(),
        r#"{"jsonrpc":"2.0","id":"🚀","method":"ping"}"#.to_string(),
    ];
    // An unknown tool named with an emoji: echoed in the error message.
    requests.push(call(8, "🚀tool", json!({})));
    let replies = env.mcp_serve(&common::jsonl(&requests));
    assert_eq!(replies.len(), requests.len());
    for (i, reply) in replies.iter().enumerate() {
        let text = String::from_utf8_lossy(reply);
        let v: Value = serde_json::from_slice(reply).unwrap();
        // The characters themselves: no escape pair, no stand-in.
        assert!(!text.contains("\\ud83d"), "reply {i}: {text}");
        assert!(
            !text.contains('\u{fffd}') && !text.contains('•'),
            "reply {i}: {text}"
        );
        assert!(v.get("result").is_some() || v.get("error").is_some());
    }
    assert!(
        text_of(&replies[0]).contains(title),
        "{}",
        text_of(&replies[0])
    );
    for (i, reply) in replies.iter().enumerate().take(5).skip(1) {
        let text = text_of(reply);
        assert!(text.contains(title), "reply {i}: {text}");
    }
    assert!(
        text_of(&replies[3]).contains("We launch 🚀 only on Fridays; 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 too."),
        "{}",
        text_of(&replies[3])
    );
    let ping: Value = serde_json::from_slice(&replies[6]).unwrap();
    assert_eq!(ping["id"], json!("🚀"));
    let unknown = String::from_utf8_lossy(&replies[7]);
    assert!(unknown.contains("🚀tool"), "{unknown}");
    let stored: String = env
        .db()
        .query_row("SELECT title FROM observations WHERE id = 1", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(stored, title);
}

/// One generated line and what it must be answered with.
#[derive(Debug, Clone)]
struct Case {
    line: Vec<u8>,
    /// `None`: no answer (a notification). `Some((id, served))`: one answer for id (a JSON
    /// token, `null` when the line holds none); `served` when the test knows whether it must be
    /// a result (`true`) or an error (`false`).
    expect: Option<(String, Option<bool>)>,
}

fn id_token() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        "[a-zA-Z0-9 _-]{1,6}",
        Just(r#"\""#.to_string()),
        Just(r#"\\"#.to_string()),
        Just(r#"\n"#.to_string()),
        Just("é".to_string()),
        Just("🚀".to_string()),
        Just(r#"\ud83d\ude80"#.to_string()),
        Just(r#"\ud800"#.to_string()),
        Just(r#"\udfff"#.to_string()),
    ];
    prop_oneof![
        any::<i64>().prop_map(|n| n.to_string()),
        (1usize..500).prop_map(|n| format!("1{}", "0".repeat(n))),
        (1usize..400, any::<bool>())
            .prop_map(|(n, neg)| { format!("{}{}", if neg { "-" } else { "" }, "7".repeat(n)) }),
        Just("1.5e3".to_string()),
        Just("-0".to_string()),
        proptest::collection::vec(piece, 0..5).prop_map(|p| format!("\"{}\"", p.concat())),
    ]
}

/// A params value, and whether a request carrying it is served.
fn params() -> impl Strategy<Value = (String, Option<bool>)> {
    prop_oneof![
        Just((r#"{"a":1}"#.to_string(), Some(true))),
        (1usize..=100_000, any::<bool>()).prop_map(|(d, arrays)| {
            let text = if arrays {
                format!("{}{}", "[".repeat(d), "]".repeat(d))
            } else {
                format!("{}1{}", r#"{"a":"#.repeat(d), "}".repeat(d))
            };
            // serde_json stops at 128 levels; around the limit the test does not insist.
            let served = if d < 100 {
                Some(true)
            } else if d > 200 {
                Some(false)
            } else {
                None
            };
            (text, served)
        }),
        Just((r#"{"s":"a \ud800 b \udc00"}"#.to_string(), Some(true))),
        (310usize..1000).prop_map(|n| (format!(r#"{{"n":{}}}"#, "8".repeat(n)), Some(false))),
        Just((r#"{"s":"\ud800","n":1e400}"#.to_string(), Some(false))),
    ]
}

fn case() -> impl Strategy<Value = Case> {
    prop_oneof![
        // A request; its id before or after the params.
        8 => (id_token(), params(), any::<bool>()).prop_map(|(id, (params, served), id_first)| {
            let line = if id_first {
                format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping","params":{params}}}"#)
            } else {
                format!(r#"{{"jsonrpc":"2.0","method":"ping","params":{params},"id":{id}}}"#)
            };
            Case { line: line.into_bytes(), expect: Some((id, served)) }
        }),
        // A notification: silent when it can be read, else a parse error for id null.
        2 => params().prop_map(|(params, served)| {
            let line = format!(r#"{{"jsonrpc":"2.0","method":"notifications/x","params":{params}}}"#);
            let expect = match served {
                Some(true) => None,
                Some(false) => Some(("null".to_string(), Some(false))),
                // Around the depth limit either is right: avoid the case.
                None => None,
            };
            let line = if served.is_none() {
                r#"{"jsonrpc":"2.0","method":"notifications/x"}"#.to_string()
            } else {
                line
            };
            Case { line: line.into_bytes(), expect }
        }),
        // Garbage: any bytes but a newline.
        2 => proptest::collection::vec(any::<u8>().prop_filter("no newline", |b| *b != b'\n'), 0..300)
            .prop_map(|mut bytes| {
                bytes.insert(0, b'x');
                Case { line: bytes, expect: Some(("null".to_string(), Some(false))) }
            }),
        // Garbage after an id: the id is still found.
        2 => (id_token(), "[^\n\"]{0,200}").prop_map(|(id, junk)| Case {
            line: format!(r#"{{"id":{id},{junk}"#).into_bytes(),
            expect: Some((id, Some(false))),
        }),
        // Over the cap, the id before or after the cut.
        1 => (id_token(), 1usize..1_000_000, any::<bool>()).prop_map(|(id, extra, id_first)| {
            let pad = "p".repeat(CAP + extra);
            let (line, expect_id) = if id_first {
                (format!(r#"{{"id":{id},"method":"ping","params":{{"pad":"{pad}"}}}}"#), id)
            } else {
                (format!(r#"{{"method":"ping","params":{{"pad":"{pad}"}},"id":{id}}}"#), "null".to_string())
            };
            Case { line: line.into_bytes(), expect: Some((expect_id, Some(false))) }
        }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, max_shrink_iters: 64, .. ProptestConfig::default() })]

    /// One server per case, fed every line of it and a last ping: the server never dies, and
    /// answers each request line exactly once, in order, for the line's id.
    #[test]
    fn every_request_line_gets_one_answer_for_its_id(cases in proptest::collection::vec(case(), 1..12)) {
        let env = Env::new();
        let mut input = Vec::new();
        for c in &cases {
            input.extend_from_slice(&c.line);
            input.push(b'\n');
        }
        input.extend_from_slice(br#"{"jsonrpc":"2.0","id":"last","method":"ping"}"#);
        input.push(b'\n');
        let replies = env.mcp_serve(&input);
        let expected: Vec<&(String, Option<bool>)> =
            cases.iter().filter_map(|c| c.expect.as_ref()).collect();
        let shown = |r: &[u8]| String::from_utf8_lossy(r).chars().take(300).collect::<String>();
        prop_assert_eq!(
            replies.len(),
            expected.len() + 1,
            "replies: {:#?}",
            replies.iter().map(|r| shown(r)).collect::<Vec<_>>()
        );
        for (reply, (id, served)) in replies.iter().zip(&expected) {
            prop_assert!(same_id(reply, id), "expected id {}: {}", id, shown(reply));
            if let Some(served) = served {
                prop_assert_eq!(!is_error(reply), *served, "{}", shown(reply));
            }
        }
        prop_assert!(same_id(&replies[expected.len()], "\"last\""));
    }
}
