//! `cmem install` / `cmem uninstall` against real settings files in an isolated HOME.

use crate::common::Env;
use serde_json::{Value, json};

/// A user settings file as Claude Code writes it (2-space JSON), with hooks of its own.
const USER_SETTINGS: &str = r#"{
  "model": "opus",
  "permissions": {
    "allow": [
      "Bash(cargo test:*)"
    ],
    "deny": []
  },
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send 'Claude is done'"
          }
        ]
      }
    ],
    "PreToolUse": [
      {
        "matcher": "Bash",
        "hooks": [
          {
            "type": "command",
            "command": "~/bin/guard.sh"
          }
        ]
      }
    ]
  },
  "statusLine": {
    "type": "command",
    "command": "~/.claude/statusline.sh"
  }
}
"#;

const CLAUDE_JSON: &str = r#"{
  "numStartups": 12,
  "projects": {
    "/home/u/work": {
      "allowedTools": [],
      "mcpServers": {}
    }
  },
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "gh-mcp",
      "args": []
    }
  }
}
"#;

#[test]
fn install_twice_then_uninstall_is_byte_identical() {
    let env = Env::new();
    let settings = env.home().join(".claude/settings.json");
    let state = env.home().join(".claude.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, USER_SETTINGS).unwrap();
    std::fs::write(&state, CLAUDE_JSON).unwrap();

    env.run_stdout(&["install"]);
    let once = std::fs::read_to_string(&settings).unwrap();
    let once_state = std::fs::read_to_string(&state).unwrap();
    let second = env.run_stdout(&["install"]);
    assert!(second.contains("nothing changed"), "{second}");
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), once);
    assert_eq!(std::fs::read_to_string(&state).unwrap(), once_state);

    let v: Value = serde_json::from_str(&once).unwrap();
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "Stop",
        "SessionEnd",
    ] {
        let groups = v["hooks"][event].as_array().unwrap();
        let ours: Vec<&Value> = groups
            .iter()
            .flat_map(|g| g["hooks"].as_array().unwrap())
            .filter(|h| h["command"].as_str().unwrap().contains(" hook "))
            .collect();
        assert_eq!(ours.len(), 1, "{event}");
    }
    assert_eq!(
        v["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"],
        json!(10)
    );
    assert_eq!(
        v["hooks"]["Stop"].as_array().unwrap().len(),
        2,
        "the user's Stop hook stays"
    );
    assert_eq!(v["statusLine"]["command"], "~/.claude/statusline.sh");
    let s: Value = serde_json::from_str(&once_state).unwrap();
    assert_eq!(s["mcpServers"]["cmem"]["args"], json!(["mcp"]));
    assert!(s["mcpServers"]["github"].is_object());
    assert!(
        env.home()
            .join(".claude/settings.json.cmem-backup")
            .exists()
    );

    env.run_stdout(&["uninstall"]);
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), USER_SETTINGS);
    assert_eq!(std::fs::read_to_string(&state).unwrap(), CLAUDE_JSON);
}

#[test]
fn dry_run_prints_a_diff_and_writes_nothing() {
    let env = Env::new();
    let settings = env.home().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, USER_SETTINGS).unwrap();
    let out = env.run_stdout(&["install", "--dry-run"]);
    assert!(out.contains("+++ "), "{out}");
    assert!(
        out.contains("+        \"matcher\": \"startup|resume|clear|compact\","),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&settings).unwrap(), USER_SETTINGS);
    assert!(!env.home().join(".claude.json").exists());
}

#[test]
fn project_and_local_scopes_write_their_own_files() {
    let env = Env::new();
    let project = env.project();
    env.run_stdout(&["install", "--scope", "project"]);
    let shared: Value = serde_json::from_str(
        &std::fs::read_to_string(project.join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    assert!(shared["hooks"]["PostToolUse"].is_array());
    let mcp: Value =
        serde_json::from_str(&std::fs::read_to_string(project.join(".mcp.json")).unwrap()).unwrap();
    assert_eq!(mcp["mcpServers"]["cmem"]["args"], json!(["mcp"]));

    env.run_stdout(&["install", "--scope", "local"]);
    assert!(project.join(".claude/settings.local.json").exists());
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(env.home().join(".claude.json")).unwrap())
            .unwrap();
    let key = project.to_string_lossy().into_owned();
    assert_eq!(
        state["projects"][&key]["mcpServers"]["cmem"]["args"],
        json!(["mcp"])
    );

    // Files install created are gone again after uninstall.
    env.run_stdout(&["uninstall", "--scope", "local"]);
    assert!(!env.home().join(".claude.json").exists());
    assert!(!project.join(".claude/settings.local.json").exists());
    env.run_stdout(&["uninstall", "--scope", "project"]);
    assert!(!project.join(".mcp.json").exists());
    assert!(!project.join(".claude/settings.json").exists());
}

#[test]
fn invalid_settings_json_is_refused_untouched() {
    let env = Env::new();
    let settings = env.home().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, "{ \"model\": \"opus\", }").unwrap();
    let out = env.cmd().arg("install").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("settings.json is not valid JSON"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&settings).unwrap(),
        "{ \"model\": \"opus\", }"
    );
}

#[test]
fn doctor_reports_what_install_did() {
    let env = Env::new();
    let before = env.cmd().arg("doctor").output().unwrap();
    assert_eq!(before.status.code(), Some(1), "nothing installed yet");
    let text = String::from_utf8_lossy(&before.stdout);
    // `cmem`, or this binary's full path when `cmem` is not on the PATH.
    assert!(text.contains("cmem install`"), "{text}");

    env.run_stdout(&["install"]);
    env.hook(
        "user-prompt-submit",
        &env.payload("s", json!({"prompt": "hi"})),
    );
    let after = env.cmd().arg("doctor").output().unwrap();
    let text = String::from_utf8_lossy(&after.stdout);
    assert_eq!(after.status.code(), Some(0), "{text}");
    assert!(text.contains("user scope: all 7 events"), "{text}");
    assert!(text.contains("sessions 1, user_prompts 1"), "{text}");
    let schema = format!("schema v{}", cmem::store::SCHEMA_VERSION);
    assert!(text.contains(&schema), "{text}");
}

#[test]
fn the_plugin_layout_registers_what_install_registers() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    let read = |p: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(root.join(p)).unwrap()).unwrap()
    };
    let plugin = read("plugin/.claude-plugin/plugin.json");
    assert_eq!(plugin["name"], "cmem");
    let market = read(".claude-plugin/marketplace.json");
    assert_eq!(market["plugins"][0]["source"], "./plugin");
    assert_eq!(
        read("plugin/.mcp.json")["mcpServers"]["cmem"]["args"],
        json!(["mcp"])
    );

    // Install into an empty settings file, then compare hook by hook with the plugin's file.
    let env = Env::new();
    env.run_stdout(&["install", "--binary", "/usr/local/bin/cmem"]);
    let installed: Value = serde_json::from_str(
        &std::fs::read_to_string(env.home().join(".claude/settings.json")).unwrap(),
    )
    .unwrap();
    let mut plugin_hooks = read("plugin/hooks/hooks.json")["hooks"].clone();
    for groups in plugin_hooks.as_object_mut().unwrap().values_mut() {
        for g in groups.as_array_mut().unwrap() {
            for h in g["hooks"].as_array_mut().unwrap() {
                let cmd = h["command"]
                    .as_str()
                    .unwrap()
                    .replacen("cmem", "/usr/local/bin/cmem", 1);
                h["command"] = json!(cmd);
            }
        }
    }
    assert_eq!(installed["hooks"], plugin_hooks);
}

/// Settings files as people write them; each must come back byte for byte.
const FORMATTINGS: &[(&str, &str)] = &[
    (
        "compact, one line, no newline",
        r#"{"model":"opus","permissions":{"allow":["Bash(ls)","Read"]},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]}]}}"#,
    ),
    (
        "inline arrays and objects",
        "{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(ls)\", \"Read\"], \"deny\": []},\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}]},\n  \"env\": {}\n}\n",
    ),
    (
        "tabs",
        "{\n\t\"model\": \"opus\",\n\t\"permissions\": {\n\t\t\"allow\": [\n\t\t\t\"Read\"\n\t\t]\n\t}\n}\n",
    ),
    (
        "CRLF, 4 spaces",
        "{\r\n    \"model\": \"opus\",\r\n    \"mcpServers\": {\r\n        \"github\": {\"command\": \"gh-mcp\"}\r\n    }\r\n}\r\n",
    ),
    (
        "no trailing newline, escapes",
        "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"echo \\u00e9 \\\"x\\\"\"},\n  \"n\": 1.50\n}",
    ),
    (
        "spaces before colons, blank lines, trailing spaces",
        "{\n\n  \"model\" : \"opus\" ,  \n  \"hooks\" : { }\n\n}\n\n",
    ),
];

/// What of each formatting must survive an install byte for byte: the user's own members as
/// written (spacing, escapes, number spelling) and the file's line endings and indentation.
const KEPT_WHILE_INSTALLED: &[&[&str]] = &[
    &[
        r#"{"model":"opus","permissions":{"allow":["Bash(ls)","Read"]},"hooks":{"Stop":[{"hooks":[{"type":"command","command":"notify-send done"}]},"#,
    ],
    &[
        "{\n  \"model\": \"opus\",\n  \"permissions\": {\"allow\": [\"Bash(ls)\", \"Read\"], \"deny\": []},\n  \"hooks\": {\"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}, ",
        ",\n  \"env\": {}\n}\n",
    ],
    &[
        "{\n\t\"model\": \"opus\",\n\t\"permissions\": {\n\t\t\"allow\": [\n\t\t\t\"Read\"\n\t\t]\n\t},\n\t\"hooks\": {\n\t\t\"",
    ],
    &[
        "{\r\n    \"model\": \"opus\",\r\n    \"mcpServers\": {\r\n        \"github\": {\"command\": \"gh-mcp\"}\r\n    },\r\n    \"hooks\": {\r\n        \"",
    ],
    &[
        "{\n  \"statusLine\": {\"type\": \"command\", \"command\": \"echo \\u00e9 \\\"x\\\"\"},\n  \"n\": 1.50,\n",
    ],
    &["{\n\n  \"model\" : \"opus\" ,  \n  \"hooks\" : {"],
];

#[test]
fn install_edits_only_what_it_adds() {
    for ((what, text), kept) in FORMATTINGS.iter().zip(KEPT_WHILE_INSTALLED) {
        let env = Env::new();
        let dir = env.home().join(".claude");
        let settings = dir.join("settings.json");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&settings, text).unwrap();
        env.run_stdout(&["install"]);
        let installed = std::fs::read_to_string(&settings).unwrap();
        for part in *kept {
            assert!(
                installed.contains(part),
                "{what}: {part:?} not in\n{installed}"
            );
        }
        if !text.contains('\n') {
            assert!(
                !installed.contains('\n'),
                "{what}: a one-line file stays one line"
            );
        }
        if text.contains("\r\n") {
            assert!(
                !installed.replace("\r\n", "").contains('\n'),
                "{what}: {installed:?}"
            );
        }
        if text.contains("\n\t") {
            assert!(
                !installed.contains("\n "),
                "{what}: tabs stay tabs: {installed}"
            );
        }
        assert_eq!(text.ends_with('\n'), installed.ends_with('\n'), "{what}");
    }
}

#[test]
fn install_then_uninstall_gives_back_every_formatting_byte_for_byte() {
    for (what, text) in FORMATTINGS {
        let env = Env::new();
        let dir = env.home().join(".claude");
        let settings = dir.join("settings.json");
        let state = env.home().join(".claude.json");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&settings, text).unwrap();
        std::fs::write(&state, text).unwrap();

        env.run_stdout(&["install"]);
        let installed: Value =
            serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
        assert!(installed["hooks"]["PostToolUse"].is_array(), "{what}");
        let s: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
        assert_eq!(s["mcpServers"]["cmem"]["args"], json!(["mcp"]), "{what}");
        let again = env.run_stdout(&["install"]);
        assert!(again.contains("nothing changed"), "{what}: {again}");

        let out = env.run_stdout(&["uninstall"]);
        assert!(!out.contains("kept"), "{what}: {out}");
        assert_eq!(std::fs::read(&settings).unwrap(), text.as_bytes(), "{what}");
        assert_eq!(std::fs::read(&state).unwrap(), text.as_bytes(), "{what}");
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["settings.json"], "{what}: backups left behind");
        assert!(
            !env.home().join(".claude.json.cmem-backup").exists(),
            "{what}"
        );
    }
}

#[test]
fn a_file_changed_since_install_keeps_the_change_and_the_backup() {
    let env = Env::new();
    let settings = env.home().join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let text = FORMATTINGS[1].1;
    std::fs::write(&settings, text).unwrap();
    env.run_stdout(&["install"]);
    // The user (or Claude Code) changes the file while cmem is installed.
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    v["theme"] = json!("dark");
    std::fs::write(&settings, serde_json::to_string_pretty(&v).unwrap()).unwrap();

    let out = env.run_stdout(&["uninstall"]);
    let backup = env.home().join(".claude/settings.json.cmem-backup");
    assert!(
        out.contains(&format!("cmem: kept {}", backup.display())),
        "{out}"
    );
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), text);
    let after: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(after["theme"], "dark");
    assert_eq!(after["permissions"]["allow"], json!(["Bash(ls)", "Read"]));
    assert!(!after.to_string().contains(" hook "), "{after}");
}

#[test]
fn uninstall_removes_the_claude_dir_install_created_when_empty() {
    let env = Env::new();
    let dir = env.home().join(".claude");
    env.run_stdout(&["install"]);
    assert!(dir.join("settings.json").exists());
    env.run_stdout(&["uninstall"]);
    assert!(!dir.exists(), "an empty ~/.claude install created stays");
    assert!(!env.home().join(".claude.json").exists());

    // Something else in it by then: the directory stays, with that in it.
    env.run_stdout(&["install"]);
    std::fs::write(dir.join("CLAUDE.md"), "notes").unwrap();
    env.run_stdout(&["uninstall"]);
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert_eq!(left.len(), 1);
    assert!(dir.join("CLAUDE.md").exists());
}

#[test]
fn an_install_record_of_the_older_layout_still_uninstalls() {
    let env = Env::new();
    let settings = env.home().join(".claude/settings.json");
    env.run_stdout(&["install", "--scope", "project"]);
    // An older cmem kept only the containers it created, per file.
    let project_settings = env.project().join(".claude/settings.json");
    let mcp = env.project().join(".mcp.json");
    let state = env.data_dir().join("install-state.json");
    let now: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    let mut old = serde_json::Map::new();
    for (file, r) in now.as_object().unwrap() {
        assert!(r["written"].is_string(), "{now}");
        old.insert(file.clone(), r["created"].clone());
    }
    assert_eq!(old.len(), 2, "{now}");
    std::fs::write(&state, Value::Object(old).to_string()).unwrap();
    env.run_stdout(&["uninstall", "--scope", "project"]);
    assert!(!project_settings.exists());
    assert!(!mcp.exists());
    assert!(!settings.exists());
}
