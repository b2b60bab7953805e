//! `cmem install --host H` / `cmem uninstall --host H`: each agent's files as it reads them,
//! the installed command answering a session start in the agent's shape with the project's
//! memory, and uninstall giving the user's files back byte for byte.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};

use crate::common::{Env, run_with_stdin};

/// The user's own files before cmem: comments, other servers, other hooks.
fn seed(env: &Env) -> Vec<PathBuf> {
    let h = env.home();
    let files = [
        (
            ".codex/config.toml",
            "# my Codex settings\nmodel = \"gpt-5.5\"   # the one I like\n\n[mcp_servers.github]\ncommand = \"gh-mcp\"\nargs = [\"serve\"]\n\n[projects.\"/home/me/app\"]\ntrust_level = \"trusted\"\n",
        ),
        (
            ".codex/hooks.json",
            "{\n  \"description\": \"mine\",\n  \"hooks\": {\n    \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify-send done\"}]}]\n  }\n}\n",
        ),
        (
            ".gemini/settings.json",
            "{\n\t\"theme\": \"dark\",\n\t\"mcpServers\": {\"fs\": {\"command\": \"fs-mcp\"}}\n}\n",
        ),
        (
            ".cursor/hooks.json",
            "{\"version\":1,\"hooks\":{\"stop\":[{\"command\":\"say done\"}]}}",
        ),
        (
            ".copilot/mcp-config.json",
            "{\r\n  \"mcpServers\": {\r\n    \"github\": {\"type\": \"http\", \"url\": \"https://example.invalid/mcp\"}\r\n  }\r\n}\r\n",
        ),
    ];
    files
        .iter()
        .map(|(rel, text)| {
            let p = h.join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(&p, text).unwrap();
            p
        })
        .collect()
}

fn snapshot(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p.clone());
                out.push((p, Vec::new()));
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

/// Runs an installed hook command line as the agent would (`sh -c`), with `payload` on stdin.
fn run_installed(env: &Env, command: &str, payload: &Value) -> Value {
    let cmd = env.cmd();
    let mut sh = Command::new("sh");
    sh.arg("-c").arg(command);
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => sh.env(k, v),
            None => sh.env_remove(k),
        };
    }
    sh.current_dir(env.project());
    let out = run_with_stdin(&mut sh, payload.to_string().as_bytes());
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn every_agent_gets_its_files_its_answers_and_its_bytes_back() {
    let env = Env::new();
    let bin = assert_cmd::cargo::cargo_bin!("cmem").to_path_buf();
    let bin = std::env::var_os("CMEM_TEST_BIN").map_or(bin, PathBuf::from);
    let seeded = seed(&env);
    let before = snapshot(&env.home());
    // Memory for the project, captured the Claude Code way.
    let s = |extra| env.payload("cc", extra);
    env.hook(
        "user-prompt-submit",
        &s(json!({"prompt": "Raise POOL_SIZE", "prompt_id": "p1"})),
    );
    env.hook("post-tool-use", &s(json!({"prompt_id": "p1", "tool_name": "Edit", "tool_use_id": "t1",
        "tool_input": {"file_path": format!("{}/pool.py", env.project().display()), "old_string": "POOL_SIZE = 5", "new_string": "POOL_SIZE = 20"},
        "tool_response": {"filePath": "pool.py", "oldString": "POOL_SIZE = 5", "newString": "POOL_SIZE = 20"}})));
    env.hook(
        "stop",
        &s(json!({"prompt_id": "p1", "last_assistant_message": "Raised POOL_SIZE to 20."})),
    );

    for host in ["codex", "gemini", "cursor", "copilot"] {
        let out = env.run_stdout(&["install", "--host", host, "--binary", bin.to_str().unwrap()]);
        assert!(out.contains("hooks for"), "{host}: {out}");
        let again = env.run_stdout(&["install", "--host", host, "--binary", bin.to_str().unwrap()]);
        assert!(again.contains("nothing changed"), "{host}: {again}");
    }
    let h = env.home();
    let json = |rel: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(h.join(rel)).unwrap()).unwrap()
    };
    // Codex: only its two root keys, the user's Stop hook kept, the server in TOML beside the
    // user's (comments kept).
    let codex = json(".codex/hooks.json");
    let mut keys: Vec<&String> = codex.as_object().unwrap().keys().collect();
    keys.sort();
    assert_eq!(keys, ["description", "hooks"]);
    assert_eq!(codex["hooks"]["Stop"].as_array().unwrap().len(), 2);
    assert_eq!(codex["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"], 3);
    let toml_text = std::fs::read_to_string(h.join(".codex/config.toml")).unwrap();
    let config: toml::Table = toml_text.parse().unwrap();
    assert_eq!(
        config["mcp_servers"]["cmem"]["args"][0].as_str(),
        Some("mcp")
    );
    assert_eq!(
        config["mcp_servers"]["github"]["command"].as_str(),
        Some("gh-mcp")
    );
    assert!(toml_text.starts_with("# my Codex settings\nmodel = \"gpt-5.5\"   # the one I like\n"));
    // Gemini: hooks in milliseconds and the server in the one settings file.
    let gemini = json(".gemini/settings.json");
    assert_eq!(gemini["theme"], "dark");
    assert_eq!(
        gemini["hooks"]["BeforeAgent"][0]["hooks"][0]["timeout"],
        5000
    );
    assert!(gemini["mcpServers"]["fs"].is_object() && gemini["mcpServers"]["cmem"].is_object());
    // Cursor: flat entries; Copilot: a hooks file of its own.
    let cursor = json(".cursor/hooks.json");
    assert_eq!(cursor["version"], 1);
    assert_eq!(cursor["hooks"]["stop"][0], json!({"command": "say done"}));
    assert!(
        cursor["hooks"]["stop"][1]["command"]
            .as_str()
            .is_some_and(|c| c.ends_with("hook --host cursor stop"))
    );
    assert!(json(".cursor/mcp.json")["mcpServers"]["cmem"].is_object());
    let copilot = json(".copilot/hooks/cmem.json");
    assert_eq!(copilot["version"], 1);
    assert_eq!(
        json(".copilot/mcp-config.json")["mcpServers"]["cmem"]["type"],
        "local"
    );

    // The installed commands answer a session start in each agent's shape, with the memory.
    let cwd = env.project().to_string_lossy().into_owned();
    let start = |cmd: &Value, payload: Value| run_installed(&env, cmd.as_str().unwrap(), &payload);
    let a = start(
        &codex["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        json!({"session_id": "x1", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup", "model": "gpt-5.5"}),
    );
    assert!(
        a["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("POOL_SIZE")
    );
    let a = start(
        &gemini["hooks"]["SessionStart"][0]["hooks"][0]["command"],
        json!({"session_id": "x2", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"}),
    );
    assert!(
        a["hookSpecificOutput"]["additionalContext"]
            .as_str()
            .unwrap()
            .contains("POOL_SIZE")
    );
    let a = start(
        &cursor["hooks"]["sessionStart"][0]["command"],
        json!({"conversation_id": "x3", "session_id": "x3", "hook_event_name": "sessionStart", "workspace_roots": [cwd]}),
    );
    assert!(
        a["additional_context"]
            .as_str()
            .unwrap()
            .contains("POOL_SIZE")
    );
    let a = start(
        &copilot["hooks"]["sessionStart"][0]["bash"],
        json!({"sessionId": "x4", "timestamp": 1796486400000_i64, "cwd": cwd, "source": "new"}),
    );
    assert!(
        a["additionalContext"]
            .as_str()
            .unwrap()
            .contains("POOL_SIZE")
    );

    // The doctor sees every agent; Codex's hooks are not trusted yet.
    let doctor = env.doctor();
    assert!(doctor.contains("Codex does not trust"), "{doctor}");
    assert!(
        doctor.contains("cursor hooks   7 events and the MCP server"),
        "{doctor}"
    );

    for host in ["codex", "gemini", "cursor", "copilot"] {
        env.run_ok(&["uninstall", "--host", host]);
    }
    assert_eq!(
        snapshot(&env.home()),
        before,
        "uninstall left the files changed"
    );
    assert!(seeded.iter().all(|p| p.exists()));
}

#[test]
fn project_scope_writes_into_the_project_and_takes_it_all_out_again() {
    let env = Env::new();
    let project = env.project();
    let before = snapshot(&project);
    let dir = project.to_str().unwrap();
    for host in ["codex", "gemini", "cursor", "copilot"] {
        env.run_ok(&[
            "install",
            "--host",
            host,
            "--scope",
            "project",
            "--project-dir",
            dir,
        ]);
    }
    for rel in [
        ".codex/hooks.json",
        ".codex/config.toml",
        ".gemini/settings.json",
        ".cursor/hooks.json",
        ".cursor/mcp.json",
        ".github/hooks/cmem.json",
        ".github/mcp.json",
    ] {
        assert!(project.join(rel).is_file(), "{rel} missing");
    }
    let config: toml::Table = std::fs::read_to_string(project.join(".codex/config.toml"))
        .unwrap()
        .parse()
        .unwrap();
    assert!(config["mcp_servers"]["cmem"].is_table());
    // Nothing of the user's own files was touched.
    assert!(!env.home().join(".codex").exists() && !env.home().join(".cursor").exists());
    let local = env
        .cmd()
        .args(["install", "--host", "codex", "--scope", "local"])
        .output()
        .unwrap();
    assert!(!local.status.success());
    for host in ["codex", "gemini", "cursor", "copilot"] {
        env.run_ok(&[
            "uninstall",
            "--host",
            host,
            "--scope",
            "project",
            "--project-dir",
            dir,
        ]);
    }
    assert_eq!(snapshot(&project), before);
}

#[test]
fn a_second_install_keeps_what_the_person_added_to_cmems_server_entry() {
    let env = Env::new();
    env.run_ok(&["install", "--host", "codex", "--binary", "/opt/cmem"]);
    env.run_ok(&["install", "--host", "cursor", "--binary", "/opt/cmem"]);
    let toml_path = env.home().join(".codex/config.toml");
    let text = std::fs::read_to_string(&toml_path).unwrap();
    std::fs::write(&toml_path, format!("{text}startup_timeout_sec = 30\n")).unwrap();
    let mcp = env.home().join(".cursor/mcp.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&mcp).unwrap()).unwrap();
    v["mcpServers"]["cmem"]["env"] = json!({"CMEM_DATA_DIR": "/data/cmem"});
    std::fs::write(&mcp, v.to_string()).unwrap();
    env.run_ok(&["install", "--host", "codex", "--binary", "/usr/bin/cmem"]);
    env.run_ok(&["install", "--host", "cursor", "--binary", "/usr/bin/cmem"]);
    let config: toml::Table = std::fs::read_to_string(&toml_path)
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        config["mcp_servers"]["cmem"]["command"].as_str(),
        Some("/usr/bin/cmem")
    );
    assert_eq!(
        config["mcp_servers"]["cmem"]["startup_timeout_sec"].as_integer(),
        Some(30)
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&mcp).unwrap()).unwrap();
    assert_eq!(v["mcpServers"]["cmem"]["command"], "/usr/bin/cmem");
    assert_eq!(
        v["mcpServers"]["cmem"]["env"]["CMEM_DATA_DIR"],
        "/data/cmem"
    );
}
