//! The hook payload parser under hostile input, through the real binary: random nesting up to
//! 100,000 levels, lone surrogate escapes, numbers past f64's range, and random bytes in every
//! spot of a PostToolUse payload. Every hook answers under the fail-open contract, and every
//! payload that is JSON-shaped is stored (repaired) rather than dropped.

use crate::common::Env;
use proptest::prelude::*;

/// A JSON value text a JavaScript host could send, with the hostile parts in it.
fn hostile_value() -> impl Strategy<Value = String> {
    prop_oneof![
        // Deep nesting of arrays or objects (or both), with data inside.
        (1usize..100_000, any::<bool>(), "[a-z]{0,8}").prop_map(|(depth, objects, leaf)| {
            let (open, close) = if objects {
                (r#"{"k":"#, "}")
            } else {
                ("[", "]")
            };
            format!("{}\"{leaf}\"{}", open.repeat(depth), close.repeat(depth))
        }),
        // Strings with lone surrogate escapes among ordinary text.
        (
            "[a-z ]{0,12}",
            prop::sample::select(vec![r"\ud800", r"\udfff", r"\udbff\u0041", r"\ud83d\ude80"])
        )
            .prop_map(|(text, esc)| format!("\"{text}{esc}{text}\"")),
        // Numbers past the range of f64, or long integers.
        (310usize..500).prop_map(|digits| "9".repeat(digits)),
        Just("1e999".to_string()),
        Just("-1e400".to_string()),
        // Plain values.
        "[a-z]{0,20}".prop_map(|s| format!("\"{s}\"")),
    ]
}

/// A PostToolUse payload with `value` as its tool input and response.
fn payload(env: &Env, n: usize, input: &str, response: &str) -> String {
    format!(
        r#"{{"session_id":"fuzz","cwd":{cwd},"hook_event_name":"PostToolUse","prompt_id":"p{n}","tool_name":"mcp__x__y","tool_use_id":"toolu_{n}","tool_input":{{"a":{input}}},"tool_response":{response}}}"#,
        cwd = serde_json::to_string(&env.project().to_string_lossy()).unwrap(),
    )
}

/// What JavaScript's `JSON.stringify` writes for a broken string is kept, not dropped (it was
/// refused as invalid JSON before): the prompt is stored with U+FFFD where the surrogate was.
#[test]
fn a_lone_surrogate_in_a_prompt_is_stored_as_the_replacement_character() {
    let env = Env::new();
    let cwd = serde_json::to_string(&env.project().to_string_lossy()).unwrap();
    let payload = format!(
        r#"{{"session_id":"s","cwd":{cwd},"hook_event_name":"UserPromptSubmit","prompt":"fix \ud800 this"}}"#
    );
    assert_eq!(
        env.hook_bytes("user-prompt-submit", payload.as_bytes()),
        serde_json::json!({})
    );
    let stored: String = env
        .db()
        .query_row("SELECT prompt_text FROM user_prompts", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, "fix \u{fffd} this");
    assert!(
        env.log_text().contains("payload repaired"),
        "{}",
        env.log_text()
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn every_hostile_payload_is_answered_and_json_shaped_ones_are_stored(
        input in hostile_value(),
        response in hostile_value(),
        garbage in prop::collection::vec(any::<u8>(), 0..64),
        spoil in any::<bool>(),
    ) {
        let env = Env::new();
        let text = payload(&env, 1, &input, &response);
        let answer = env.hook_bytes("post-tool-use", text.as_bytes());
        prop_assert_eq!(answer, serde_json::json!({}));
        prop_assert_eq!(env.count("tool_uses"), 1, "a repairable payload was dropped");

        // The same with random bytes spliced in: answered, whatever is stored.
        let mut bytes = payload(&env, 2, &input, &response).into_bytes();
        if spoil && !bytes.is_empty() {
            let at = garbage.len() % bytes.len();
            bytes.splice(at..at, garbage.iter().copied());
        }
        for event in ["post-tool-use", "user-prompt-submit", "stop", "pre-tool-use"] {
            env.hook_bytes(event, &bytes);
        }
    }
}
