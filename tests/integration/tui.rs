//! The browser driven like a user would: real demo database, real key presses through the
//! keymap, frames drawn into a TestBackend. State tests for every action, and insta
//! snapshots (text and style runs) of every layer at 80×24 and 140×40 in two themes.

use crate::common;

use cmem::tui::app::{Component, Effect, Input, Layer, LayerKind, Overlay, Scope};
use cmem::tui::data::Target;
use cmem::tui::harness::{DEMO_NOW_MS, Harness};
use cmem::tui::keymap::{ACTIONS, Action};
use std::sync::OnceLock;

fn demo_db() -> &'static std::path::Path {
    static DB: OnceLock<(tempfile::TempDir, std::path::PathBuf)> = OnceLock::new();
    &DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let db = cmem::demo::ensure(dir.path(), DEMO_NOW_MS, false).unwrap();
        (dir, db)
    })
    .1
}

fn open(theme: &str, w: u16, h: u16) -> Harness {
    Harness::open(demo_db(), cmem::demo::PROJECT, theme, (w, h), DEMO_NOW_MS).unwrap()
}

/// Jumps to a record or tool use by the id the screen shows (`:` id enter).
fn jump(h: &mut Harness, id: impl std::fmt::Display) {
    h.keys(":").unwrap();
    h.type_text(&id.to_string());
    h.keys("enter").unwrap();
}

/// The text and budget an agent view shows.
fn agent_context(l: &Layer) -> &cmem::tui::data::ContextText {
    match &l.component {
        Component::Agent(a) => a.context.as_ref().expect("the agent view has its text"),
        other => panic!("not an agent view: {other:?}"),
    }
}

fn kinds(h: &Harness) -> Vec<LayerKind> {
    h.app.stack.iter().map(|l| l.kind()).collect()
}

#[test]
fn drill_down_and_back_up() {
    let mut h = open("default", 100, 30);
    assert_eq!(kinds(&h), vec![LayerKind::Index]);
    assert!(h.app.top().total().unwrap().0 > 12);
    assert!(matches!(
        h.app.top().selected_target(),
        Some(Target::Record(..))
    ));
    h.keys("j enter").unwrap();
    assert_eq!(kinds(&h), vec![LayerKind::Index, LayerKind::Timeline]);
    assert!(h.screen().contains("› Timeline "));
    h.keys("enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Detail);
    h.keys("esc esc").unwrap();
    assert_eq!(kinds(&h), vec![LayerKind::Index]);
    h.keys("backspace").unwrap();
    assert_eq!(kinds(&h), vec![LayerKind::Index], "the index never pops");
}

#[test]
fn detail_leads_to_highlighted_raw_io() {
    let mut h = open("default", 120, 40);
    let (tool, obs) = h.demo_code_tool_use().unwrap();
    jump(&mut h, obs);
    assert_eq!(h.app.top().kind(), LayerKind::Detail);
    assert_eq!(h.app.top().selected_target(), Some(&Target::ToolUse(tool)));
    h.keys("enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Raw);
    let code_rows = h
        .app
        .top()
        .rows
        .iter()
        .filter(|r| matches!(r.text, cmem::tui::data::RowText::Code { .. }))
        .count();
    assert!(code_rows > 20, "only {code_rows} highlighted rows");
    assert!(
        h.app
            .top()
            .rows
            .iter()
            .any(|r| r.display().contains("pub fn verify_signature"))
    );
}

/// The first row of the layer's pane (under the header and the frame's top edge).
fn first_pane_row(h: &mut Harness) -> String {
    h.screen().lines().nth(2).unwrap_or_default().to_string()
}

#[test]
fn a_detail_opens_at_its_top_with_the_title_on_screen() {
    // At 80×24 the record's tool use is below the first screen: the cursor starts on the
    // title rather than scrolling it away to reach the tool use.
    let mut h = open("default", 80, 24);
    h.keys("j enter enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Detail);
    let title: String = h.app.top().rows[0].display().chars().take(30).collect();
    assert!(title.starts_with('#'), "{title}");
    assert_eq!(h.app.top().cursor, 0);
    let row = first_pane_row(&mut h);
    assert!(row.starts_with(&format!("│{title}")), "{row}");
    // The tool use is still one key away.
    h.keys("G enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Raw);
    // Where the tool use shares the first screen with the title, the cursor starts on it.
    let mut h = open("default", 140, 40);
    h.keys("j enter enter").unwrap();
    assert!(matches!(
        h.app.top().selected_target(),
        Some(Target::ToolUse(_))
    ));
    let row = first_pane_row(&mut h);
    assert!(row.starts_with(&format!("│{title}")), "{row}");
}

#[test]
fn moving_keys() {
    let mut h = open("default", 80, 24);
    let first = h.app.top().cursor;
    h.keys("j").unwrap();
    let second = h.app.top().cursor;
    assert!(second > first);
    h.keys("k").unwrap();
    assert_eq!(h.app.top().cursor, first);
    h.keys("ctrl-d").unwrap();
    assert!(h.app.top().cursor >= first + 15);
    h.keys("ctrl-u").unwrap();
    assert!(h.app.top().cursor < first + 5);
    h.keys("G").unwrap();
    assert!(h.app.top().cursor + 1 >= h.app.top().visible_len() - 1);
    h.keys("g g").unwrap();
    assert_eq!(h.app.top().cursor, first);
    h.keys("end").unwrap();
    h.keys("home").unwrap();
    assert_eq!(h.app.top().cursor, first);
    // The selection stays on screen.
    h.keys("pagedown pagedown").unwrap();
    let l = h.app.top();
    assert!(l.cursor >= l.offset && l.cursor < l.offset + 20);
}

#[test]
fn fuzzy_filter_is_live_and_esc_clears_it() {
    let mut h = open("default", 100, 30);
    let all = h.app.top().visible_len();
    h.keys("/").unwrap();
    assert!(matches!(h.app.input, Some(Input::Filter(_))));
    h.type_text("tokref");
    let f = h.app.top().filter.clone().unwrap();
    assert!(!f.visible.is_empty() && f.visible.len() < all);
    assert!(
        f.visible.iter().any(|(_, m)| m.len() == 6),
        "match positions kept"
    );
    assert!(h.screen().contains("/tokref"));
    h.keys("enter").unwrap();
    assert!(h.app.input.is_none() && h.app.top().filter.is_some());
    h.keys("esc").unwrap();
    assert!(h.app.top().filter.is_none());
    assert_eq!(h.app.top().visible_len(), all);
}

#[test]
fn full_text_search_opens_a_layer() {
    let mut h = open("default", 100, 30);
    h.keys("s").unwrap();
    h.type_text("connection pooling");
    h.keys("enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Search);
    assert!(loaded_items(&h) > 3);
    h.keys("enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Detail);
}

#[test]
fn jump_to_ids_and_unknown_ones() {
    let mut h = open("default", 100, 30);
    jump(&mut h, "S3");
    assert_eq!(h.app.top().kind(), LayerKind::Detail);
    assert!(h.screen().contains("#S3"));
    jump(&mut h, "999999");
    assert_eq!(
        h.app.top().kind(),
        LayerKind::Detail,
        "a missing id pushes nothing"
    );
    assert!(
        h.app
            .status
            .as_ref()
            .unwrap()
            .0
            .contains("no observation 999999")
    );
    jump(&mut h, "hello");
    assert!(h.app.status.as_ref().unwrap().1, "an error");
}

#[test]
fn work_state_agent_view_and_history() {
    let mut h = open("default", 100, 30);
    h.keys("w").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::WorkState);
    assert!(h.screen().contains("Open lists"));
    h.keys("enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::WorkHistory);
    h.keys("esc esc a").unwrap();
    let l = h.app.top();
    assert_eq!(l.kind(), LayerKind::Agent);
    let c = agent_context(l).clone();
    assert_eq!(c.limit, 10_000);
    assert!(c.chars <= 10_000 && c.chars > 1000);
    // Exactly what the session-start hook injects for this project.
    let conn = rusqlite::Connection::open(demo_db()).unwrap();
    let settings = cmem::config::ContextSettings {
        timezone: "UTC".into(),
        ..Default::default()
    };
    let expected = cmem::view::context::load(
        &conn,
        "acme-api",
        &["acme-api".into()],
        &settings,
        DEMO_NOW_MS,
        false,
    )
    .unwrap();
    assert_eq!(c.text, expected.text);
    assert!(h.screen().contains("/ 10,000 characters"));
    h.keys("Y").unwrap();
    assert_eq!(h.app.effects.last(), Some(&Effect::Copy(expected.text)));
}

#[test]
fn agent_view_of_any_layer_is_its_plain_text() {
    let mut h = open("default", 100, 30);
    h.keys("j enter enter a").unwrap();
    let l = h.app.top();
    assert_eq!(l.kind(), LayerKind::Agent);
    let text = agent_context(l).text.clone();
    assert!(text.starts_with('#'), "{text}");
    assert_eq!(agent_context(l).limit, 0);
}

/// A test home whose config pins the time zone the harness uses (UTC).
fn utc_home() -> common::Env {
    let env = common::Env::new();
    std::fs::create_dir_all(env.data_dir()).unwrap();
    let config = env.root().join("config/cmem");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::write(
        config.join("config.toml"),
        "[context]\ntimezone = \"UTC\"\n",
    )
    .unwrap();
    env
}

/// The text of the real `cmem mcp` server's reply to one tool call, at the demo's "now".
fn mcp_text(env: &common::Env, tool: &str, arguments: serde_json::Value) -> String {
    let requests = [
        serde_json::json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}})
        .to_string(),
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}})
        .to_string(),
    ];
    let mut cmd = env.cmd();
    cmd.arg("mcp").env("CMEM_NOW_MS", DEMO_NOW_MS.to_string());
    let out = common::run_with_stdin(&mut cmd, &common::jsonl(&requests));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = out.stdout.split(|&b| b == b'\n').nth(1).unwrap();
    let reply: serde_json::Value = serde_json::from_slice(line).unwrap();
    assert_eq!(reply["result"]["isError"], false, "{reply}");
    reply["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string()
}

/// What the agent view shows after `script` (which must end on it).
fn agent_text(h: &mut Harness, script: &str) -> String {
    h.script(script).unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Agent);
    agent_context(h.app.top()).text.clone()
}

/// The lines the layer on top shows a human.
fn shown_lines(h: &Harness) -> Vec<String> {
    h.app.top().rows.iter().map(|r| r.display()).collect()
}

/// The demo memory in a test home, plus one observation far longer than a record
/// `get_observations` sends (its id is returned), read by the TUI and by `cmem mcp` alike.
fn demo_home() -> &'static (common::Env, i64) {
    static HOME: OnceLock<(common::Env, i64)> = OnceLock::new();
    HOME.get_or_init(|| {
        let env = utc_home();
        let db = cmem::demo::ensure(&env.data_dir(), DEMO_NOW_MS, false).unwrap();
        assert_eq!(db, env.db_path());
        let store = cmem::store::Store::open(&db).unwrap();
        let long = cmem::store::observations::NewObservation {
            project: cmem::demo::PROJECT.into(),
            body: cmem::model::ObservationBody {
                obs_type: "discovery".into(),
                title: Some("How the ledger replays its journal".into()),
                narrative: Some("The journal is replayed entry by entry.\n".repeat(400)),
                ..Default::default()
            },
            created_at: DEMO_NOW_MS - 2 * 3_600_000,
            source: "test".into(),
            ..Default::default()
        };
        let id = cmem::store::observations::insert(&store.conn, &long)
            .unwrap()
            .unwrap();
        (env, id)
    })
}

fn open_demo_home() -> Harness {
    let (env, _) = demo_home();
    Harness::open(
        &env.db_path(),
        cmem::demo::PROJECT,
        "default",
        (100, 30),
        DEMO_NOW_MS,
    )
    .unwrap()
}

/// The agent view of raw tool I/O is byte for byte what `get_tool_uses` sends the agent: the
/// bounded copy (strings cut at 8,000 bytes, 20 keys), not the generous one a human pages.
#[test]
fn agent_view_of_raw_io_is_what_get_tool_uses_sends() {
    let env = utc_home();
    let long = "one line of command output\n".repeat(1_000);
    let input: serde_json::Map<String, serde_json::Value> = (0..30)
        .map(|i| (format!("key{i:02}"), serde_json::json!(i)))
        .collect();
    let store = cmem::store::Store::open(&env.db_path()).unwrap();
    store.conn.execute(
        "INSERT INTO tool_uses (tool_use_id, content_session_id, project, tool_name, tool_input, tool_response, content_hash, created_at_epoch)
         VALUES ('t1', 's', 'p', 'Bash', ?1, ?2, 'h', ?3)",
        rusqlite::params![
            serde_json::Value::Object(input).to_string(),
            serde_json::json!({ "stdout": long }).to_string(),
            DEMO_NOW_MS - 3_600_000
        ],
    ).unwrap();
    drop(store);

    let mut h = Harness::open(&env.db_path(), "p", "default", (100, 30), DEMO_NOW_MS).unwrap();
    h.script(": 'T1 enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Raw);
    let human = shown_lines(&h).join("\n");
    let shown = agent_text(&mut h, "a");
    let sent = mcp_text(&env, "get_tool_uses", serde_json::json!({"ids": ["T1"]}));
    assert_eq!(shown, sent);
    // The bounds matter here: the human's copy holds all of the output, the agent's does not.
    assert!(human.matches("one line of command output").count() >= 1_000);
    assert!(
        sent.matches("one line of command output").count() < 500,
        "{sent}"
    );
}

/// A tool use whose bounded copy is still longer than one reply may be: the agent view ends
/// where the server cuts every reply, with the same note.
#[test]
fn agent_view_of_raw_io_is_cut_where_the_server_cuts_replies() {
    let env = utc_home();
    let input: serde_json::Map<String, serde_json::Value> = (0..20)
        .map(|i| {
            (
                format!("key{i:02}"),
                serde_json::json!("a line of input\n".repeat(200)),
            )
        })
        .collect();
    let store = cmem::store::Store::open(&env.db_path()).unwrap();
    store.conn.execute(
        "INSERT INTO tool_uses (tool_use_id, content_session_id, project, tool_name, tool_input, tool_response, content_hash, created_at_epoch)
         VALUES ('t1', 's', 'p', 'Write', ?1, '\"done\"', 'h', ?2)",
        rusqlite::params![serde_json::Value::Object(input).to_string(), DEMO_NOW_MS - 3_600_000],
    ).unwrap();
    drop(store);

    let mut h = Harness::open(&env.db_path(), "p", "default", (100, 30), DEMO_NOW_MS).unwrap();
    h.script(": 'T1 enter").unwrap();
    let shown = agent_text(&mut h, "a");
    let sent = mcp_text(&env, "get_tool_uses", serde_json::json!({"ids": ["T1"]}));
    assert_eq!(shown, sent);
    assert!(sent.len() <= 32 * 1024, "{}", sent.len());
    assert!(sent.ends_with("(a smaller limit or fewer ids).]"), "{sent}");
}

/// The agent view of a record's detail is what `get_observations(ids=[that id])` sends: the
/// record cut at 6,000 bytes with its note, while the human reads all of it.
#[test]
fn agent_view_of_a_detail_is_what_get_observations_sends() {
    let (env, long_id) = demo_home();
    let mut h = open_demo_home();
    jump(&mut h, long_id);
    assert_eq!(h.app.top().kind(), LayerKind::Detail);
    let human = shown_lines(&h).join("\n");
    let shown = agent_text(&mut h, "a");
    let sent = mcp_text(
        env,
        "get_observations",
        serde_json::json!({"ids": [long_id]}),
    );
    assert_eq!(shown, sent);
    let line = "The journal is replayed entry by entry.";
    assert_eq!(human.matches(line).count(), 400);
    assert!(sent.matches(line).count() < 160, "{sent}");
    assert!(
        sent.ends_with("[Record shortened to 6000 bytes.]"),
        "{sent}"
    );

    // A summary's and a prompt's detail too.
    for id in ["S3", "P2"] {
        jump(&mut h, id);
        assert_eq!(h.app.top().kind(), LayerKind::Detail, "{id}");
        let shown = agent_text(&mut h, "a");
        let sent = mcp_text(env, "get_observations", serde_json::json!({"ids": [id]}));
        assert_eq!(shown, sent, "{id}");
    }
}

/// The agent view of a timeline is what `timeline(anchor=…)` sends with the tool's default
/// depth (3 each way, its own heading and closing line), not the human's 30 each way.
#[test]
fn agent_view_of_a_timeline_is_what_the_timeline_tool_sends() {
    let (env, _) = demo_home();
    let mut h = open_demo_home();
    for _ in 0..12 {
        h.keys("j").unwrap();
    }
    h.keys("enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Timeline);
    let (kind, id) = h.app.top().about().unwrap();
    let human = loaded_items(&h);
    let shown = agent_text(&mut h, "a");
    let anchor = match kind {
        cmem::model::Kind::Observation => serde_json::json!(id),
        _ => serde_json::json!(kind.display_id(id)),
    };
    let sent = mcp_text(env, "timeline", serde_json::json!({"anchor": anchor}));
    assert_eq!(shown, sent);
    assert!(
        sent.contains(": 3 before, 3 after")
            && sent.ends_with("Details: get_observations(ids=[…])"),
        "{sent}"
    );
    let sent_records = sent
        .lines()
        .filter(|l| {
            let first = l.trim_start_matches("→ ").split(' ').next().unwrap_or("");
            cmem::model::Kind::parse_id(first).is_some()
        })
        .count();
    assert_eq!(sent_records, 7, "{sent}");
    assert!(human > 30, "the human's timeline holds {human} records");
}

/// The agent view of a search is what the `search` tool sends for the same words and project:
/// its table, not the human's list.
#[test]
fn agent_view_of_a_search_is_what_the_search_tool_sends() {
    let (env, _) = demo_home();
    let mut h = open_demo_home();
    h.keys("s").unwrap();
    h.type_text("connection pooling");
    h.keys("enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Search);
    assert!(loaded_items(&h) > 3);
    let shown = agent_text(&mut h, "a");
    let sent = mcp_text(
        env,
        "search",
        serde_json::json!({"query": "connection pooling", "project": cmem::demo::PROJECT}),
    );
    assert_eq!(shown, sent);
    assert!(
        sent.contains("\n| ID | Time | T | Title | Read | Work |\n|---|---|---|---|---|---|\n| #"),
        "{sent}"
    );
    // Every project: a scope no MCP call has, named as such.
    h.keys("S S s").unwrap();
    assert_eq!(h.app.scope, Scope::All);
    h.type_text("connection pooling");
    h.keys("enter").unwrap();
    let all = agent_text(&mut h, "a");
    assert!(
        all.contains("for \"connection pooling\" in all projects\n"),
        "{all}"
    );
}

/// The agent view of the index is the session-start context, as `session_start_context`
/// sends it for the project.
#[test]
fn agent_view_of_the_index_is_the_session_start_context() {
    let (env, long_id) = demo_home();
    let mut h = open_demo_home();
    let shown = agent_text(&mut h, "a");
    let sent = mcp_text(
        env,
        "session_start_context",
        serde_json::json!({"project": cmem::demo::PROJECT}),
    );
    assert_eq!(shown, sent);
    assert!(sent.contains(&format!("{long_id} ")), "{sent}");
}

/// The work state's agent view is the work-state section the session start opens with; a
/// list's history (which no tool sends) shows what `work_state_read` sends for that list.
#[test]
fn agent_view_of_the_work_state_is_what_the_agent_reads() {
    let (env, _) = demo_home();
    let mut h = open_demo_home();
    h.keys("w").unwrap();
    let Some(Target::Layer(to)) = h.app.top().selected_target().cloned() else {
        panic!("no list selected")
    };
    let Component::WorkHistory(cmem::tui::layers::work_history::WorkHistory { project, list }) =
        *to
    else {
        panic!("a list leads to its history, not to {to:?}")
    };
    let section = agent_text(&mut h, "a");
    let start = mcp_text(
        env,
        "session_start_context",
        serde_json::json!({"project": cmem::demo::PROJECT}),
    );
    assert!(start.starts_with(&format!("{section}\n\n")), "{section}");

    h.keys("a enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::WorkHistory);
    let history = shown_lines(&h).join("\n");
    let shown = agent_text(&mut h, "a");
    let sent = mcp_text(
        env,
        "work_state_read",
        serde_json::json!({"list": list, "includeClosed": true, "project": project}),
    );
    assert_eq!(shown, sent);
    assert!(history.contains(" · history") && !sent.contains(" · history"));
}

#[test]
fn projects_scope_and_filters() {
    let mut h = open("default", 100, 30);
    h.keys("p").unwrap();
    let Some(Overlay::Projects { list, .. }) = h.app.overlay.clone() else {
        panic!("no switcher")
    };
    assert_eq!(list.len(), 3);
    assert!(list.iter().all(|p| p.observations >= 3), "{list:?}");
    let target = list.iter().position(|p| p.name == "orbit-web").unwrap();
    for _ in 0..target {
        h.keys("j").unwrap();
    }
    h.keys("enter").unwrap();
    assert_eq!(h.app.project, "orbit-web");
    assert!(h.screen().contains("orbit-web"));
    h.keys("S").unwrap();
    assert_eq!(h.app.scope, Scope::Group);
    h.keys("S").unwrap();
    assert_eq!(h.app.scope, Scope::All);
    let conn = rusqlite::Connection::open(demo_db()).unwrap();
    let all: i64 = conn
        .query_row("SELECT COUNT(*) FROM observations", [], |r| r.get(0))
        .unwrap();
    assert_eq!(h.app.top().total().unwrap().0, all);
    h.keys("f").unwrap();
    assert_eq!(h.app.obs_type.map(|t| t.id()), Some("bugfix"));
    let bugfixes = h.app.top().total().unwrap().0;
    assert!(bugfixes > 0 && bugfixes < all);
    assert_eq!(h.app.top().total().unwrap().1, 0, "summaries have no type");
    h.keys("c").unwrap();
    assert_eq!(h.app.concept, Some("how-it-works"));
}

#[test]
fn help_copy_edit_delete_theme_refresh_quit() {
    let mut h = open("default", 100, 30);
    h.keys("?").unwrap();
    assert!(matches!(h.app.overlay, Some(Overlay::Help { .. })));
    let screen = h.screen();
    for (a, _, desc, _) in ACTIONS {
        if *a != Action::Bottom {
            assert!(
                screen.contains(desc) || h.app.size.1 < 40,
                "help lacks {desc}"
            );
        }
    }
    h.keys("esc").unwrap();
    assert!(h.app.overlay.is_none());
    h.keys("y").unwrap();
    assert!(matches!(h.app.effects.last(), Some(Effect::Copy(_))));
    h.keys("d").unwrap();
    assert!(matches!(h.app.overlay, Some(Overlay::Confirm { .. })));
    h.keys("n").unwrap();
    assert!(h.app.overlay.is_none());
    h.keys("x").unwrap();
    assert!(matches!(h.app.input, Some(Input::Scrub(_))));
    h.keys("esc").unwrap();
    assert!(h.app.input.is_none());
    h.keys("e").unwrap();
    assert!(h.app.status.as_ref().unwrap().1, "no file on an index row");
    let (_, obs) = h.demo_code_tool_use().unwrap();
    h.keys(":").unwrap();
    h.type_text(&obs.to_string());
    h.keys("enter e").unwrap();
    assert!(
        matches!(h.app.effects.last(), Some(Effect::Edit(p)) if p.ends_with("src/auth/jwt.rs"))
    );
    let before = h.app.theme.name.clone();
    h.keys("T").unwrap();
    assert_ne!(h.app.theme.name, before);
    h.keys("R").unwrap();
    assert_eq!(kinds(&h), vec![LayerKind::Index]);
    h.keys("tab").unwrap();
    h.keys("q").unwrap();
    assert_eq!(h.app.effects.last(), Some(&Effect::Quit));
}

/// Deleting and scrubbing change the real database file (a copy of the demo's: the other
/// tests share theirs), through the same code as `cmem forget` and `cmem scrub`.
#[test]
fn delete_and_scrub_change_the_database() {
    let dir = tempfile::tempdir().unwrap();
    let db = cmem::demo::ensure(dir.path(), DEMO_NOW_MS, false).unwrap();
    let sql = rusqlite::Connection::open(&db).unwrap();
    cmem::store::register_extensions(&sql).unwrap();
    let count = |q: &str, id: i64| -> i64 { sql.query_row(q, [id], |r| r.get(0)).unwrap() };
    let mut h = Harness::open(&db, cmem::demo::PROJECT, "default", (120, 40), DEMO_NOW_MS).unwrap();

    // An observation with raw tool I/O, selected in the index.
    let (_, obs) = h.demo_code_tool_use().unwrap();
    let linked = "SELECT COUNT(*) FROM tool_uses WHERE observation_id = ?1";
    assert!(count(linked, obs) > 0);
    jump(&mut h, obs);
    assert_eq!(kinds(&h), vec![LayerKind::Index, LayerKind::Detail]);
    h.keys("d").unwrap();
    assert!(h.screen().contains(&format!("Delete observation {obs}?")));
    h.keys("n").unwrap();
    assert_eq!(h.app.status.as_ref().unwrap().0, "Nothing changed");
    assert_eq!(
        count("SELECT COUNT(*) FROM observations WHERE id = ?1", obs),
        1
    );
    // From its detail layer (the cursor is on a tool use): the record the layer is about.
    h.keys("d y").unwrap();
    let status = h.app.status.clone().unwrap();
    assert!(
        !status.1
            && status
                .0
                .starts_with(&format!("deleted observation {obs} (1 observations")),
        "{status:?}"
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM observations WHERE id = ?1", obs),
        0
    );
    assert_eq!(count(linked, obs), 0, "its raw tool I/O went with it");
    assert_eq!(
        kinds(&h),
        vec![LayerKind::Index],
        "the layer about it closed"
    );

    // From the index: the row goes, the count drops, the cursor stays on a record.
    h.keys("g g").unwrap();
    let total = h.app.top().total().unwrap().0;
    let Some(Target::Record(kind, id)) = h.app.top().selected_target().cloned() else {
        panic!("the index starts on a record")
    };
    h.keys("d y").unwrap();
    let leads_to = |h: &Harness| {
        h.app
            .top()
            .rows
            .iter()
            .any(|r| r.target == Some(Target::Record(kind, id)))
    };
    assert!(!leads_to(&h));
    if kind == cmem::model::Kind::Observation {
        assert_eq!(h.app.top().total().unwrap().0, total - 1);
    }
    assert!(matches!(
        h.app.top().selected_target(),
        Some(Target::Record(..))
    ));

    // Scrub: counted first, replaced after a yes, gone from the database file's bytes.
    let word = "verify_signature";
    let mentions = "SELECT (SELECT COUNT(*) FROM observations WHERE title || narrative || facts LIKE '%' || 'verify_signature' || '%')
                          + (SELECT COUNT(*) FROM tool_uses WHERE tool_input || tool_response LIKE '%verify_signature%') + ?1";
    assert!(count(mentions, 0) > 0, "the demo mentions {word}");
    h.keys("x").unwrap();
    h.type_text(word);
    h.keys("enter").unwrap();
    let screen = h.screen();
    assert!(
        screen.contains(&format!("Replace “{word}” with [SCRUBBED] in")),
        "{screen}"
    );
    h.keys("y").unwrap();
    let status = h.app.status.clone().unwrap();
    assert!(!status.1 && status.0.starts_with("scrubbed "), "{status:?}");
    assert_eq!(count(mentions, 0), 0);
    drop(h);
    for f in ["cmem.db", "cmem.db-wal", "cmem.db-shm"] {
        let bytes = std::fs::read(db.with_file_name(f)).unwrap_or_default();
        assert!(
            !bytes.windows(word.len()).any(|w| w == word.as_bytes()),
            "{word} in {f}"
        );
    }

    let mut h = Harness::open(&db, cmem::demo::PROJECT, "default", (120, 40), DEMO_NOW_MS).unwrap();
    h.keys("x").unwrap();
    h.type_text(word);
    h.keys("enter").unwrap();
    assert!(h.app.overlay.is_none());
    assert!(
        h.app
            .status
            .as_ref()
            .unwrap()
            .0
            .contains("nothing to scrub")
    );

    // Text only in the log (the database never had it) is found and scrubbed too.
    let log = cmem::logging::log_file(db.parent().unwrap());
    std::fs::create_dir_all(log.parent().unwrap()).unwrap();
    std::fs::write(&log, "INFO hook: saw ONLY-IN-LOG-7781 once\n").unwrap();
    h.keys("x").unwrap();
    h.type_text("ONLY-IN-LOG-7781");
    h.keys("enter").unwrap();
    assert!(
        h.screen().contains("with [SCRUBBED] in 1 file?"),
        "{}",
        h.screen()
    );
    h.keys("y").unwrap();
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "INFO hook: saw [SCRUBBED] once\n"
    );

    // Deleting with a filter on keeps the cursor where it was, not back at the top.
    h.keys("/").unwrap();
    h.type_text("pool");
    h.keys("enter j j j").unwrap();
    // Counted in items: a day heading that slides up into the row is skipped, not selected.
    let at = h.app.top().item_number();
    assert!(at >= 3, "{at}");
    h.keys("d y").unwrap();
    assert!(h.app.status.as_ref().unwrap().0.starts_with("deleted "));
    assert!(h.app.top().filter.is_some());
    let now = h.app.top().item_number();
    assert!(now + 1 >= at && now <= at, "cursor {at} → {now}");

    // A record deleted elsewhere: the row still goes, and the browser says so.
    h.keys("esc g g").unwrap();
    let Some(Target::Record(kind, id)) = h.app.top().selected_target().cloned() else {
        panic!("a record")
    };
    let table = match kind {
        cmem::model::Kind::Observation => "observations",
        cmem::model::Kind::Summary => "session_summaries",
        cmem::model::Kind::Prompt => "user_prompts",
    };
    sql.execute(&format!("DELETE FROM {table} WHERE id = ?1"), [id])
        .unwrap();
    h.keys("d y").unwrap();
    assert!(
        h.app
            .status
            .as_ref()
            .unwrap()
            .0
            .ends_with("was already gone")
    );
    assert!(
        !h.app
            .top()
            .rows
            .iter()
            .any(|r| r.target == Some(Target::Record(kind, id)))
    );

    // Quit while a change runs waits for it (the worker is not settled here).
    h.keys("x").unwrap();
    h.type_text("verify");
    h.app.handle_key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Enter,
    ));
    assert!(h.app.change_ticket.is_some());
    h.app.handle_key(crossterm::event::KeyEvent::from(
        crossterm::event::KeyCode::Char('q'),
    ));
    assert!(!h.app.effects.iter().any(|e| matches!(e, Effect::Quit)));
    h.settle();
    assert!(h.app.effects.iter().any(|e| matches!(e, Effect::Quit)));
}

#[test]
fn wide_terminals_preview_and_tab_switches_panes() {
    let mut h = open("default", 140, 40);
    assert!(
        h.app
            .preview
            .as_ref()
            .is_some_and(|p| !p.layer.rows.is_empty())
    );
    h.keys("tab").unwrap();
    assert_eq!(h.app.focus, cmem::tui::app::Focus::Preview);
    h.keys("tab").unwrap();
    assert_eq!(h.app.focus, cmem::tui::app::Focus::List);
    h.resize(80, 24);
    assert!(!h.app.preview_visible());
    h.resize(30, 8);
    h.screen();
    h.resize(10, 3);
    assert!(h.screen().contains("too small"));
}

#[test]
fn mouse_wheel_click_and_breadcrumbs() {
    use crossterm::event::{KeyModifiers, MouseButton, MouseEvent, MouseEventKind};
    let mut h = open("default", 100, 30);
    let m = |kind, column, row| MouseEvent {
        kind,
        column,
        row,
        modifiers: KeyModifiers::NONE,
    };
    let before = h.app.top().cursor;
    h.app.handle_mouse(m(MouseEventKind::ScrollDown, 10, 10));
    assert!(h.app.top().cursor > before);
    // Click a row, then click it again to open it.
    let y = 2 + (h.app.top().cursor - h.app.top().offset) as u16;
    h.app
        .handle_mouse(m(MouseEventKind::Down(MouseButton::Left), 10, y));
    h.settle();
    assert_eq!(h.app.top().kind(), LayerKind::Timeline);
    // Click the first breadcrumb after "cmem ›" to pop back.
    h.app
        .handle_mouse(m(MouseEventKind::Down(MouseButton::Left), 9, 0));
    assert_eq!(kinds(&h), vec![LayerKind::Index]);
}

#[test]
fn index_pages_through_a_large_database_without_loading_it_whole() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("big.db");
    let mut store = cmem::store::Store::open(&db).unwrap();
    cmem::synth::generate(
        &mut store.conn,
        &cmem::synth::Plan {
            observations: 3000,
            seed: 1,
            end_ms: DEMO_NOW_MS,
            days: 60,
            projects: vec!["cmem".into()],
            wide: false,
        },
    )
    .unwrap();
    drop(store);
    let mut h = Harness::open(&db, "cmem", "default", (100, 30), DEMO_NOW_MS).unwrap();
    assert_eq!(loaded_items(&h), cmem::tui::data::PAGE);
    for _ in 0..30 {
        h.keys("pagedown").unwrap();
    }
    assert!(
        loaded_items(&h) > cmem::tui::data::PAGE && loaded_items(&h) < 3000,
        "{}",
        loaded_items(&h)
    );
    // Pages join without gaps or repeats: ids of observations strictly descending in time.
    let mut seen = std::collections::HashSet::new();
    for r in &h.app.top().rows {
        if let Some(Target::Record(k, id)) = &r.target {
            assert!(seen.insert((*k, *id)), "{k:?} {id} twice");
        }
    }
    h.keys("G").unwrap();
    h.keys("G").unwrap();
    assert!(loaded_items(&h) < 3000 + 400);
}

#[test]
fn control_bytes_in_raw_output_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("c.db");
    let store = cmem::store::Store::open(&db).unwrap();
    store.conn.execute(
        "INSERT INTO tool_uses (tool_use_id, content_session_id, project, tool_name, tool_input, tool_response, content_hash, created_at_epoch)
         VALUES ('t1', 's', 'p', 'Bash', '{\"command\":\"ls\"}', ?1, 'h', 1)",
        [serde_json::json!({"stdout": "a\u{1b}[31mred\u{0}b"}).to_string()],
    ).unwrap();
    drop(store);
    let mut h = Harness::open(&db, "p", "default", (100, 30), DEMO_NOW_MS).unwrap();
    jump(&mut h, "T1");
    let buf = h.draw().clone();
    let all: String = buf.content().iter().map(|c| c.symbol()).collect();
    assert!(!all.contains('\u{1b}') && !all.contains('\0'));
    assert!(all.contains("[31mred"), "escaped text is shown");
}

/// The status line's right end: `N/TOTAL`.
fn counter(h: &mut Harness) -> String {
    let screen = h.screen();
    let last = screen
        .lines()
        .rfind(|l| !l.trim().is_empty())
        .unwrap_or_default();
    last.split_whitespace()
        .next_back()
        .unwrap_or_default()
        .to_string()
}

/// How many rows the top layer has loaded that lead somewhere (filtered out or not).
fn loaded_items(h: &Harness) -> usize {
    h.app
        .top()
        .rows
        .iter()
        .filter(|r| r.target.is_some())
        .count()
}

/// The rows a list layer shows that lead somewhere (records, tool uses, lists).
fn visible_items(h: &Harness) -> Vec<String> {
    let l = h.app.top();
    (0..l.visible_len())
        .filter_map(|p| l.visible(p))
        .filter_map(|(i, _)| l.rows.get(i))
        .filter(|r| r.target.is_some())
        .map(|r| r.display())
        .collect()
}

/// A record row's words without its id, time and symbol (`266 8:57p ✓ Changed …`).
fn title_of(display: &str) -> String {
    display
        .splitn(4, ' ')
        .nth(3)
        .unwrap_or_default()
        .to_lowercase()
}

#[test]
fn filter_keeps_rows_whose_words_match_not_scattered_letters_or_times() {
    let mut h = open("default", 100, 30);
    let all = visible_items(&h);
    let with_pool = all.iter().filter(|d| title_of(d).contains("pool")).count();
    assert!(
        with_pool > 3 && with_pool < all.len() / 2,
        "{with_pool} of {}",
        all.len()
    );
    h.keys("/").unwrap();
    h.type_text("pool");
    let kept = visible_items(&h);
    for d in &kept {
        assert!(title_of(d).contains("pool"), "{d:?} kept for /pool");
    }
    assert_eq!(kept.len(), with_pool, "every row about pool, nothing else");
    assert!(h.screen().contains(&format!("/pool ({with_pool} shown)")));
    // Word starts: `tokref` finds "token refresh".
    h.keys("ctrl-u").unwrap();
    h.type_text("tokref");
    let kept = visible_items(&h);
    assert!(kept.iter().any(|d| title_of(d).contains("token refresh")));
    for d in &kept {
        let t = title_of(d);
        let starts = |p: &str| {
            t.match_indices(p)
                .any(|(i, _)| !t[..i].chars().last().is_some_and(char::is_alphanumeric))
        };
        assert!(starts("tok") && starts("ref"), "{d:?} kept for /tokref");
    }
    // A time is not a reason to keep a row.
    let time = all[0].split(' ').nth(1).unwrap().to_string();
    h.keys("ctrl-u").unwrap();
    h.type_text(&time);
    assert!(
        visible_items(&h).is_empty(),
        "{time} matched {:?}",
        visible_items(&h)
    );
}

#[test]
fn counter_counts_items_not_day_headings() {
    let mut h = open("default", 100, 30);
    let (obs, sums) = h.app.top().total().unwrap();
    assert_eq!(counter(&mut h), format!("1/{}", obs + sums));
    h.keys("j j").unwrap();
    assert_eq!(counter(&mut h), format!("3/{}", obs + sums));
    h.keys("/").unwrap();
    h.type_text("pool");
    h.keys("enter").unwrap();
    let n = visible_items(&h).len();
    assert!(h.app.top().visible_len() > n, "day headings are visible");
    assert_eq!(counter(&mut h), format!("1/{n}"));
    h.keys("esc w").unwrap();
    let lists = visible_items(&h).len();
    assert_eq!(counter(&mut h), format!("1/{lists}"));
}

#[test]
fn tool_uses_are_written_t_and_their_id() {
    let mut h = open("default", 120, 40);
    let (tool, obs) = h.demo_code_tool_use().unwrap();
    jump(&mut h, obs);
    let screen = h.screen();
    assert!(screen.contains(&format!("│T{tool} ")), "{screen}");
    assert!(!screen.contains(&format!("#{tool} ")) || tool == obs);
    h.keys("y").unwrap();
    assert_eq!(
        h.app.effects.last(),
        Some(&Effect::Copy(format!("T{tool}")))
    );
    h.keys("enter").unwrap();
    let screen = h.screen();
    assert!(screen.contains(&format!("› Raw T{tool} ")), "{screen}");
    assert!(screen.contains(&format!("Tool use T{tool} ·")), "{screen}");
}

#[test]
fn footers_offer_only_keys_that_act_here() {
    let mut h = open("default", 140, 40);
    let footer = |h: &mut Harness| h.screen().lines().nth(39).unwrap_or_default().to_string();
    assert!(footer(&mut h).contains("Enter open"));
    let (_, obs) = h.demo_code_tool_use().unwrap();
    h.script(&format!(": '{obs} enter")).unwrap();
    assert!(footer(&mut h).contains("Enter open"), "the tool use opens");
    h.keys("enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Raw);
    let raw = footer(&mut h);
    assert!(!raw.contains("open") && raw.contains("Esc back"), "{raw}");
    // Enter there does nothing indeed.
    h.keys("enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Raw);
    h.keys("a").unwrap();
    let agent = footer(&mut h);
    assert!(
        !agent.contains("a agent") && agent.contains("w work"),
        "{agent}"
    );
    h.keys("w").unwrap();
    let work = footer(&mut h);
    assert!(
        !work.contains("w work") && work.contains("Enter open"),
        "{work}"
    );
}

#[test]
fn help_says_what_keys_do_and_shows_every_symbol() {
    let mut h = open("default", 140, 40);
    h.keys("?").unwrap();
    let screen = h.screen();
    assert!(screen.contains(": · g:"), "{screen}");
    assert!(screen.contains("Home · gg"), "{screen}");
    assert!(screen.contains("full-text search of the current scope"));
    assert!(!screen.contains("all memory"));
    h.keys("ctrl-d").unwrap();
    let screen = h.screen();
    assert!(screen.contains("◎session ❯prompt ●bugfix"), "{screen}");
    assert!(screen.contains("\" in the time column"), "{screen}");
    // The prompt's glyph: distinct from the ditto, in the legend the agent gets too.
    assert_eq!(cmem::view::timeline::PROMPT_SYMBOL, '❯');
    assert!(
        cmem::view::index::legend_line(&cmem::model::mode::code())
            .plain()
            .contains("❯prompt")
    );
}

#[test]
fn breadcrumbs_show_each_layer_once() {
    let mut h = open("default", 140, 40);
    let crumbs = |h: &mut Harness| {
        let top = h.screen().lines().next().unwrap_or_default().to_string();
        top.split("  ")
            .next()
            .unwrap_or_default()
            .trim()
            .to_string()
    };
    h.keys("a").unwrap();
    assert_eq!(crumbs(&mut h), "cmem › acme-api › Agent view");
    h.keys("w").unwrap();
    assert_eq!(kinds(&h), vec![LayerKind::Index, LayerKind::WorkState]);
    assert_eq!(crumbs(&mut h), "cmem › acme-api › Work state");
    h.keys("a w").unwrap();
    assert_eq!(crumbs(&mut h), "cmem › acme-api › Work state");
    h.keys("enter w").unwrap();
    assert_eq!(kinds(&h), vec![LayerKind::Index, LayerKind::WorkState]);
    h.keys("w").unwrap();
    assert_eq!(
        kinds(&h),
        vec![LayerKind::Index],
        "w on the work state goes back"
    );
    h.keys("j enter a").unwrap();
    assert_eq!(
        crumbs(&mut h),
        format!("cmem › acme-api › {} › Agent view", h.app.stack[1].title)
    );
}

/// Every word on a wrapped screen row is a whole word of the row's text (or a piece of a word
/// too long for any row).
fn assert_words_whole(h: &Harness, layer: &cmem::tui::app::Layer, area: ratatui::layout::Rect) {
    let mut wrapped = 0;
    for (pos, lines) in cmem::tui::ui::screen_rows(&h.app, layer, area) {
        let Some((i, _)) = layer.visible(pos) else {
            continue;
        };
        let source = layer.rows[i].display();
        let words: Vec<&str> = source.split(' ').collect();
        if lines.len() > 1 {
            wrapped += 1;
        }
        for line in &lines {
            let text = line.to_string();
            assert!(text.chars().count() <= area.width as usize);
            for w in text.split(' ').filter(|w| !w.is_empty()) {
                assert!(
                    words.contains(&w)
                        || words
                            .iter()
                            .any(|x| x.chars().count() > area.width as usize && x.contains(w)),
                    "{w:?} is cut out of a word in {source:?}: {lines:?}"
                );
            }
        }
    }
    assert!(wrapped > 0, "nothing wrapped: the test shows nothing");
}

#[test]
fn preview_and_agent_view_wrap_between_words() {
    let mut h = open("default", 140, 40);
    let area = ratatui::layout::Rect::new(0, 0, 140, 40);
    let preview = cmem::tui::ui::layout(&h.app, area).preview.unwrap();
    let layer = h.app.preview.as_ref().unwrap().layer.clone();
    assert_words_whole(&h, &layer, preview);
    h.resize(60, 30);
    h.keys("a").unwrap();
    let list = cmem::tui::ui::layout(&h.app, ratatui::layout::Rect::new(0, 0, 60, 30)).list;
    let layer = h.app.top().clone();
    assert_words_whole(&h, &layer, list);
}

fn snapshot(name: &str, theme: &str, w: u16, h: u16, script: &str) {
    let mut harness = open(theme, w, h);
    let script = script.replace(
        "{code}",
        &harness.demo_code_tool_use().unwrap().1.to_string(),
    );
    harness.script(&script).unwrap();
    let buf = harness.draw().clone();
    insta::assert_snapshot!(format!("{name}_{theme}_{w}x{h}"), format!("{buf:?}"));
}

const LAYERS: &[(&str, &str)] = &[
    ("index", "j"),
    ("timeline", "j enter"),
    ("detail", "j enter enter"),
    // The detail opens at its top where its tool uses are below the first screen: from its
    // last row, the first of its three tool uses.
    ("raw", ": '{code} enter G k k enter"),
    // Eight lines up from the last: the file under "Files modified".
    ("file", ": '{code} enter G k k k k k k k k enter"),
    ("work_state", "w"),
    ("agent", "a"),
    ("search", "s 'pooling enter"),
    ("help", "?"),
];

#[test]
fn snapshots_of_every_layer() {
    for (name, script) in LAYERS {
        for theme in ["default", "light"] {
            for (w, h) in [(80, 24), (140, 40)] {
                snapshot(name, theme, w, h, script);
            }
        }
    }
}

/// Enter on a file of an observation's detail opens the file's history: the observations of
/// its project that read or modified it, the agent view being what the read gate adds to a
/// Read of it; `e` there opens the file.
#[test]
fn a_file_of_a_detail_opens_its_history() {
    let mut h = open("default", 120, 40);
    let (_, obs) = h.demo_code_tool_use().unwrap();
    jump(&mut h, obs);
    h.keys("g g").unwrap();
    for _ in 0..h.app.top().rows.len() {
        if matches!(h.app.top().selected_target(), Some(Target::Layer(_))) {
            break;
        }
        h.keys("j").unwrap();
    }
    let top = h.app.top();
    let file = top.rows[top.visible(top.cursor).unwrap().0].display();
    let path = file.trim().strip_prefix("- ").unwrap().to_string();
    h.keys("enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::File);
    assert!(h.screen().contains(&format!("› File {path}")));
    let shown = shown_lines(&h);
    assert_eq!(shown[0], path);
    assert!(
        h.app
            .top()
            .rows
            .iter()
            .any(|r| r.target == Some(Target::Record(cmem::model::Kind::Observation, obs))),
        "{shown:#?}"
    );
    // Every row leads to an observation that names the file.
    let ids: Vec<i64> = h
        .app
        .top()
        .rows
        .iter()
        .filter_map(|r| match r.target {
            Some(Target::Record(_, id)) => Some(id),
            _ => None,
        })
        .collect();
    let store = cmem::store::Store::open(demo_db()).unwrap();
    for id in &ids {
        let (read, modified): (String, String) = store
            .conn
            .query_row(
                "SELECT files_read, files_modified FROM observations WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        assert!(read.contains(&path) || modified.contains(&path), "#{id}");
    }
    h.keys("e").unwrap();
    assert!(
        matches!(h.app.effects.last(), Some(Effect::Edit(p)) if p.ends_with(&path)),
        "{:?}",
        h.app.effects
    );
    let agent = agent_text(&mut h, "a");
    assert!(agent.starts_with("Current: "), "{agent}");
    assert!(agent.contains(&format!("cmem has prior observations of {path}")));
    assert!(agent.contains("get_observations(ids=["), "{agent}");
    h.keys("esc enter").unwrap();
    assert_eq!(h.app.top().kind(), LayerKind::Detail);
}

/// The preview pane opens at the record's title (however far down its first tool use is) and,
/// with the focus, scrolls line by line down to its end and back.
#[test]
fn the_preview_opens_at_the_title_and_scrolls() {
    let mut h = open("default", 140, 40);
    let preview_top = |h: &mut Harness| -> String {
        let area = ratatui::layout::Rect::new(0, 0, 140, 40);
        let pane = cmem::tui::ui::layout(&h.app, area).preview.unwrap();
        let screen = h.screen();
        let line = screen.lines().nth(pane.y as usize).unwrap_or_default();
        line.chars()
            .skip(pane.x as usize)
            .take(pane.width as usize)
            .collect::<String>()
            .trim()
            .to_string()
    };
    // Down the index to a record longer than the pane.
    let mut long = false;
    for _ in 0..60 {
        h.keys("j").unwrap();
        let p = h.app.preview.as_ref().unwrap();
        if p.layer.rows.len() > 25 {
            long = true;
            break;
        }
    }
    assert!(long, "the demo has a record longer than the preview pane");
    let first = preview_top(&mut h);
    assert!(
        first.starts_with('#'),
        "the preview starts at {first:?}\n{}",
        h.screen()
    );
    h.keys("tab j j j").unwrap();
    let scrolled = preview_top(&mut h);
    assert_ne!(scrolled, first);
    h.keys("k k k").unwrap();
    assert_eq!(preview_top(&mut h), first);
}
