#!/usr/bin/env bash
# Real-client check of cmem's Codex hooks (issue 31): the real Codex CLI (npm @openai/codex 0.171.0,
# installed once by kit/setup_codex.sh) runs headless (`codex exec`) against kit/stub_openai.py, a
# scripted Responses API on 127.0.0.1, with cmem's hooks in an isolated CODEX_HOME. Then checks on
# cmem's database, on what the next Codex session sends its model, on what a Claude Code session
# start in the same project sees, and on `cmem import codex` of the same sessions afterwards.
#
#   tests/realclient/codex.sh [path/to/cmem]     (default: target/debug/cmem, built if missing)
#
# Offline but for that one npm install: Codex talks to the stub only (it is also the HTTP(S) proxy
# of the run, and refuses and logs anything else). CMEM_CODEX_SAVE_SAMPLES=1 also writes the hook
# payloads Codex sent (paths under /home/dev) to kit/samples/codex-hook-<Event>.json.
#
# How cmem's hooks get into Codex: `cmem install --host codex` writes them, then they are trusted
# the way Codex's /hooks does, and at the end `cmem uninstall --host codex` takes them out:
#  * $CODEX_HOME/hooks.json, root keys `description` and `hooks` only, shaped like Claude Code's:
#      {"hooks": {"<Event>": [{"matcher"?: "...", "hooks": [{"type": "command",
#                                                             "command": "...", "timeout": <s>}]}]}}
#    Events used: SessionStart, UserPromptSubmit, PostToolUse, Stop, SessionEnd (Codex 0.171 has
#    SessionEnd; it clamps that hook's timeout to 3 s and warns when it is set higher).
#    Here the binary install registers is a wrapper that runs cmem through
#    kit/hook_recorder.py, so the payloads and answers are kept. [mcp_servers.cmem] goes into
#    config.toml.
#  * Trust: `codex exec` silently skips a user hook that is not trusted. Trust lives in the user's
#    $CODEX_HOME/config.toml, one table per handler:
#      [hooks.state."<abs path of hooks.json>:<event_snake_case>:<group idx>:<handler idx>"]
#      trusted_hash = "sha256:<hex>"
#    e.g. [hooks.state."/home/dev/.codex/hooks.json:session_start:0:0"]. The hash is Codex's own
#    (over the normalised handler: event, matcher, command, timeout ...), so a changed command or
#    timeout is "modified" and skipped until trusted again. Codex's app-server reports each hook's
#    key and currentHash (`hooks/list`); the TUI's /hooks "trust" writes them back with
#    `config/batchWrite` {"keyPath": "hooks.state", "value": {"<key>": {"trusted_hash":
#    "<currentHash>"}}, "mergeStrategy": "upsert"}. kit/codex_hooks.py does exactly that; the
#    checks below also show that before it, `codex exec` runs none of the hooks, and that
#    `cmem doctor` (which computes the same hash) tells untrusted from trusted.
set -euo pipefail
. "$(dirname "$0")/common.sh" "${1:-}" cmem-realclient-codex setup_codex.sh
. "$kit/lib.sh"
codex=$RC_HOME/codex/bin/codex
scenarios=$here/scenarios
started=$SECONDS

home=$out/home codex_home=$out/home/.codex shop=$out/home/shop data=$out/cmem-data db=$out/cmem-data/cmem.db
mkdir -p "$codex_home" "$shop" "$data"
py=$(python3 -c 'import sys; print(sys.executable)')
events="SessionStart UserPromptSubmit PostToolUse Stop SessionEnd"

# The project: the scenario's files in a git repository (codex exec wants one).
python3 - "$scenarios/codex-pool-fix.json" "$shop" <<'PY'
import json, pathlib, sys
root = pathlib.Path(sys.argv[2])
for name, text in json.load(open(sys.argv[1]))["files"].items():
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text)
PY
git -C "$shop" init -q -b main
git -C "$shop" add -A
git -C "$shop" -c user.name=dev -c user.email=dev@example.com commit -qm "pool settings"

cat >"$codex_home/config.toml" <<'TOML'
# The model is a stub (kit/stub_openai.py); its base_url gets the stub's port per session (-c).
# gpt-5.5 is a model Codex 0.171 knows: it is offered exec_command and apply_patch as tools.
model = "gpt-5.5"
model_provider = "stub"
approval_policy = "never"
sandbox_mode = "workspace-write"
check_for_update_on_startup = false

[analytics]
enabled = false

[feedback]
enabled = false

# At start Codex syncs its curated plugin marketplace (github.com, api.github.com, chatgpt.com):
# off, so the run is offline (the stub, as the run's proxy, would refuse it and the last check fail).
[features]
plugins = false

[model_providers.stub]
name = "stub"
base_url = "http://127.0.0.1:9/v1"
wire_api = "responses"
env_key = "STUB_API_KEY"
request_max_retries = 0
stream_max_retries = 0
TOML
# cmem's own installer writes the hooks and the MCP server. The binary it registers is a wrapper
# (its name starts with cmem, as install requires of its entries) that runs the real one under
# kit/hook_recorder.py, so every payload and answer is kept: the hook commands read
# `<wrapper> hook --host codex <Event>`.
wrapper=$out/cmem-recorded
cat >"$wrapper" <<SH
#!/bin/sh
# hook --host codex EVENT
exec "$py" "$kit/hook_recorder.py" "\$4" -- "$CMEM_BIN" "\$@"
SH
chmod +x "$wrapper"
cp "$codex_home/config.toml" "$out/config-before-install.toml"
CODEX_HOME=$codex_home HOME=$home CMEM_DATA_DIR=$data "$CMEM_BIN" install --host codex --binary "$wrapper" >"$out/install.txt"
sed 's/^/  install: /' "$out/install.txt"
check "cmem install --host codex: hooks.json with only description and hooks, [mcp_servers.cmem] in config.toml, the rest of it as it was" \
  python3 - "$codex_home/hooks.json" "$codex_home/config.toml" "$out/config-before-install.toml" "$wrapper" <<'PY'
import json, sys, tomllib
hooks, config, before, wrapper = sys.argv[1:]
h = json.load(open(hooks))
c = tomllib.load(open(config, "rb"))
text, old = open(config).read(), open(before).read()
ok = (sorted(h) == ["description", "hooks"]
      and sorted(h["hooks"]) == ["PostToolUse", "SessionEnd", "SessionStart", "Stop", "UserPromptSubmit"]
      and h["hooks"]["SessionEnd"][0]["hooks"][0]["timeout"] == 3
      and c["mcp_servers"]["cmem"] == {"command": wrapper, "args": ["mcp"]}
      and text.startswith(old.rstrip("\n")))
sys.exit(0 if ok else 1)
PY

# Codex's environment: nothing of the caller's but PATH's basics; the stub is the proxy too.
codex_env() {  # codex_env PROXY_PORT HOOK_LOG_DIR COMMAND...
  local port=$1 hooklog=$2; shift 2
  env -i HOME="$home" CODEX_HOME="$codex_home" PATH=/usr/local/bin:/usr/bin:/bin SHELL=/bin/bash \
    TERM=dumb LANG=C.UTF-8 TZ=UTC STUB_API_KEY=sk-stub-not-a-key \
    HTTP_PROXY="http://127.0.0.1:$port" HTTPS_PROXY="http://127.0.0.1:$port" ALL_PROXY="http://127.0.0.1:$port" \
    NO_PROXY=127.0.0.1,localhost CMEM_DATA_DIR="$data" CMEM_LOG_LEVEL=debug HOOK_LOG_DIR="$hooklog" "$@"
}
# codex_session NAME [codex exec ARGS...]: `codex exec` of scenarios/codex-NAME.json's prompt in
# the project, against a stub of its own; its output, the stub's log and the hook records go to
# $out/runs/NAME.
codex_session() {
  local name=$1 run=$out/runs/$1 scenario=$scenarios/codex-$1.json port stub rc=0
  shift
  mkdir -p "$run/hooks"
  python3 "$kit/stub_openai.py" --scenario "$scenario" --log-dir "$run/stub" 2>"$run/stub.err" &
  stub=$!
  for _ in $(seq 100); do [ -s "$run/stub/port" ] && break; sleep 0.05; done
  port=$(cat "$run/stub/port")
  (cd "$shop" && codex_env "$port" "$run/hooks" timeout 180 "$codex" exec \
      -c "model_providers.stub.base_url=\"http://127.0.0.1:$port/v1\"" "$@" \
      "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["prompt"])' "$scenario")" \
      </dev/null >"$run/exec.log" 2>&1) || rc=$?
  kill "$stub" && wait "$stub" 2>/dev/null || true
  echo "  codex exec $name: exit $rc, $(grep -c '"step"' "$run/stub/requests.jsonl" 2>/dev/null || true) model requests, $(ls "$run/hooks" | wc -l) hook calls"
  return "$rc"
}
hooks_list() { codex_env 9 "$out/runs" "$py" "$kit/codex_hooks.py" "$codex" "$shop" "$@"; }

# --- 1. cmem's hooks in the isolated CODEX_HOME, trusted as /hooks would.
hooks_list list >"$out/hooks-before.json"
check "Codex finds cmem's 5 hooks in \$CODEX_HOME/hooks.json (no warning), none trusted yet" \
  python3 - "$out/hooks-before.json" "$codex_home/hooks.json" "$wrapper" <<'PY'
import json, shlex, sys
entry, source, cmem = json.load(open(sys.argv[1]))["list"], sys.argv[2], sys.argv[3]
ours = [h for h in entry["hooks"] if h["sourcePath"] == source]
print("  listed:", {h["eventName"]: h["trustStatus"] for h in ours}, "warnings:", entry["warnings"],
      "errors:", entry["errors"])
# Each runs `<wrapper> hook --host codex <Event>` (the wrapper runs cmem under the recorder).
runs_cmem = all(shlex.split(h["command"])[-5:] == [cmem, "hook", "--host", "codex", h["eventName"][0].upper() + h["eventName"][1:]]
                for h in ours)
want = {"sessionStart", "userPromptSubmit", "postToolUse", "stop", "sessionEnd"}
sys.exit(0 if {h["eventName"] for h in ours} == want and {h["trustStatus"] for h in ours} == {"untrusted"}
         and runs_cmem and not entry["warnings"] and not entry["errors"] else 1)
PY
untrusted_probe() {
  codex_session untrusted-probe --ephemeral && [ -z "$(ls "$out/runs/untrusted-probe/hooks")" ] && [ ! -e "$db" ]
}
check "codex exec before the trust runs, and runs none of them (Codex skips untrusted hooks silently)" \
  untrusted_probe
doctor() { CODEX_HOME=$codex_home HOME=$home CMEM_DATA_DIR=$data "$CMEM_BIN" doctor >"$1" 2>&1 || true; }
doctor "$out/doctor-untrusted.txt"
check "cmem doctor says Codex does not trust the hooks yet" grep -q 'Codex does not trust' "$out/doctor-untrusted.txt"
hooks_list trust "$codex_home/hooks.json" >"$out/hooks-trust.json"
doctor "$out/doctor-trusted.txt"
grep 'codex hooks' "$out/doctor-trusted.txt" | sed 's/^/  doctor: /'
check "once trusted in Codex, cmem doctor says so (its hash of each hook is the one Codex computes)" \
  grep -q 'codex hooks .*5 events (trusted) and the MCP server' "$out/doctor-trusted.txt"
echo "  trust written to \$CODEX_HOME/config.toml:"
sed -n '/^\[hooks.state/,$p' "$codex_home/config.toml" | sed "s|$home|~|; s/^/    /"
check "trusted as the TUI's /hooks does: a trusted_hash per hook in config.toml, hooks/list says trusted" \
  python3 - "$out/hooks-trust.json" "$codex_home/hooks.json" "$codex_home/config.toml" <<'PY'
import json, sys, tomllib
listed, source = json.load(open(sys.argv[1]))["list"], sys.argv[2]
state = tomllib.load(open(sys.argv[3], "rb")).get("hooks", {}).get("state", {})
ours = [h for h in listed["hooks"] if h["sourcePath"] == source]
ok = len(ours) == 5 and all(h["trustStatus"] == "trusted" and h["enabled"]
                            and state.get(h["key"], {}).get("trusted_hash") == h["currentHash"] for h in ours)
sys.exit(0 if ok else 1)
PY

# --- 2. A session: failing test, read, apply_patch, passing test, answer.
check "codex exec: the test fails, pool.py is read, apply_patch 5 → 20, the test passes, an answer" \
  codex_session pool-fix
run1=$out/runs/pool-fix
served_all() {
  grep -qx 'POOL_SIZE = 20' "$shop/src/db/pool.py" &&
    [ "$(grep -o '"step": [0-9]*' "$run1/stub/requests.jsonl" | sort -u | wc -l)" = 5 ] &&
    ! grep -q '"warning"' "$run1/stub/requests.jsonl"
}
check "the patch is applied and the stub served all 5 steps" served_all
# The hook records: what Codex sent each hook and what cmem answered.
python3 - "$run1/hooks" >"$out/session1.env" 2>/dev/null <<'PY'
import json, pathlib, sys
recs = [json.loads(p.read_text()) for p in sorted(pathlib.Path(sys.argv[1]).glob("*.json"))]
first = lambda label: next(r["stdin_json"] for r in recs if r["label"] == label)
calls = [r["stdin_json"]["tool_use_id"] for r in recs if r["label"] == "PostToolUse"]
print("sid=%s turn=%s calls='%s'" % (first("SessionStart")["session_id"], first("UserPromptSubmit")["turn_id"],
                                     " ".join(calls)))
PY
[ -s "$out/session1.env" ] || echo "sid=none turn=none calls=none" >"$out/session1.env"
. "$out/session1.env"
echo "  Codex session $sid, turn $turn, tool calls: $calls"
check "Codex ran every hook and took cmem's answers: 'hook: <Event> Completed' for each, exit 0, one JSON line" \
  python3 - "$run1" <<'PY'
import collections, json, pathlib, re, sys
run = pathlib.Path(sys.argv[1])
log = (run / "exec.log").read_text()
started = collections.Counter(re.findall(r"^hook: (\w+)$", log, re.M))
completed = collections.Counter(re.findall(r"^hook: (\w+) Completed$", log, re.M))
other = [l for l in log.splitlines() if l.startswith("hook: ") and not re.fullmatch(r"hook: \w+( Completed)?", l)]
recs = [json.loads(p.read_text()) for p in run.glob("hooks/*.json")]
bad = [(r["label"], r.get("real_exit"), r.get("real_stdout")) for r in recs
       if r.get("real_exit") != 0 or r.get("real_stdout", "").count("\n") != 1
       or not isinstance(json.loads(r["real_stdout"] or "null"), dict)]
want = {"SessionStart": 1, "UserPromptSubmit": 1, "PostToolUse": 4, "Stop": 1}
print("  Codex's hook lines: completed %s; other: %s; bad answers: %s" % (dict(completed), other, bad))
ran = collections.Counter(r["label"] for r in recs)
sys.exit(0 if started == completed and all(completed[k] == v for k, v in want.items())
         and ran["SessionEnd"] == 1 and not other and not bad else 1)
PY
check "the session is stored with platform_source 'codex', completed" \
  test "$(sql "$db" "SELECT platform_source || '/' || status FROM sessions WHERE content_session_id = '$sid'")" = "codex/completed"
check "the prompt is stored, its prompt_id Codex's turn_id" python3 - "$db" "$sid" "$turn" "$scenarios/codex-pool-fix.json" <<'PY'
import json, sqlite3, sys
db, sid, turn, scenario = sys.argv[1:]
rows = sqlite3.connect(db).execute("SELECT prompt_id, prompt_text FROM user_prompts WHERE content_session_id = ?", (sid,)).fetchall()
sys.exit(0 if rows == [(turn, json.load(open(scenario))["prompt"])] else 1)
PY
echo "  tool uses:"
sql "$db" "SELECT '    ' || tool_use_id || ' ' || tool_name || ' ' || substr(tool_input, 1, 100) || ' failed=' || failed FROM tool_uses WHERE content_session_id = '$sid' ORDER BY id"
in_order() { sql "$db" "SELECT group_concat($1, ' ') FROM (SELECT $1 FROM tool_uses WHERE content_session_id = '$sid' ORDER BY id)"; }
check "the tool uses are stored under Codex's call ids: Bash, Bash, Edit, Bash" \
  test "$(in_order tool_name)|$(in_order tool_use_id)" = "Bash Bash Edit Bash|$calls"
check "apply_patch became an Edit of src/db/pool.py: old 'POOL_SIZE = 5', new 'POOL_SIZE = 20'" \
  test "$(sql "$db" "SELECT json_extract(tool_input, '$.file_path') || '|' || json_extract(tool_input, '$.old_string') || '|' || json_extract(tool_input, '$.new_string') FROM tool_uses WHERE content_session_id = '$sid' AND tool_name = 'Edit'")" = "$shop/src/db/pool.py|POOL_SIZE = 5|POOL_SIZE = 20"
echo "  observations:"
sql "$db" "SELECT '    #' || id || ' ' || type || ' ' || title FROM observations ORDER BY id"
pool_title=$(sql "$db" "SELECT title FROM observations WHERE title LIKE '%POOL_SIZE%' ORDER BY id LIMIT 1")
check "an observation names POOL_SIZE and 5 → 20" grep -q 'POOL_SIZE.*5 → 20' <<<"$pool_title"
# Codex's PostToolUse for a shell command carries its output as a bare string and no exit
# code; the adapter stores Claude Code's {stdout, ...} and reads the exit code from the
# item_completed CommandExecution already in the rollout named in transcript_path.
check "every shell call's output is stored as {stdout, ...}, and each failed exactly when its exit code (in the rollout) says so" \
  python3 - "$db" "$sid" "$run1/hooks" <<'PY'
import json, pathlib, sqlite3, sys
db, sid, hooks = sys.argv[1:]
rec = next(json.loads(p.read_text()) for p in sorted(pathlib.Path(hooks).glob("*-PostToolUse.json")))
exits = {}
for line in open(rec["stdin_json"]["transcript_path"]):
    item = json.loads(line).get("payload", {}).get("item") or {}
    if item.get("type") == "CommandExecution":
        exits[item["id"]] = item.get("exit_code")
rows = sqlite3.connect(db).execute("SELECT tool_use_id, failed, json_type(tool_response), error FROM tool_uses "
                                   "WHERE content_session_id = ? AND tool_name = 'Bash'", (sid,)).fetchall()
bad = [r for r in rows if (r[1] == 1) != (exits.get(r[0]) not in (None, 0)) or (r[1] == 0 and r[2] != "object")]
for r in rows:
    print("  %s exit %s: failed=%s response=%s" % (r[0], exits.get(r[0]), r[1], r[2]))
sys.exit(1 if bad or not any(r[1] for r in rows) else 0)
PY
check "the fix is a bugfix: the failing test, the edit, the passing test" \
  test "$(sql "$db" "SELECT COUNT(*) FROM observations WHERE type = 'bugfix' AND title LIKE '%POOL_SIZE%'")" -ge 1

# --- 3. The next session's model is sent the memory.
check "a second codex exec in the project runs" codex_session pool-ask
check "the request Codex sent the model holds the first session's observation (SessionStart additionalContext)" \
  python3 - "$out/runs/pool-ask/stub/bodies" "$pool_title" <<'PY'
import json, pathlib, sys
title = sys.argv[2]
for p in sorted(pathlib.Path(sys.argv[1]).glob("*-main.json")):
    for item in json.loads(p.read_text()).get("input", []):
        for part in item.get("content") or []:
            if isinstance(part, dict) and title and title in part.get("text", ""):
                print("  found in %s: a %s %s item, %s" % (p.name, item.get("role"), item.get("type"),
                                                            part["text"].splitlines()[0][:70]))
                sys.exit(0)
sys.exit(1)
PY

# --- 4. A Claude Code session start in the same project sees the same memory.
echo "{\"session_id\":\"cc\",\"cwd\":\"$shop\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}" |
  CMEM_DATA_DIR=$data HOME=$home "$CMEM_BIN" hook session-start >"$out/claude-session-start.json"
check "a Claude Code session start in the project gets the Codex session's observation" \
  grep -qF "$pool_title" "$out/claude-session-start.json"

# --- 5. Importing Codex's rollouts of the same sessions adds nothing.
# A rollout written to in the last two minutes belongs to a running session and is left for
# later: these sessions ended ten minutes ago.
find "$codex_home/sessions" -name '*.jsonl' -exec touch -d '10 minutes ago' {} +
counts="SELECT (SELECT COUNT(*) FROM sessions) || '/' || (SELECT COUNT(*) FROM user_prompts) || '/' || (SELECT COUNT(*) FROM tool_uses) || '/' || (SELECT COUNT(*) FROM observations)"
before=$(sql "$db" "$counts")
CMEM_DATA_DIR=$data HOME=$home CODEX_HOME=$codex_home "$CMEM_BIN" import codex --dry-run >"$out/dry.txt" 2>&1 || true
sed 's/^/  dry run: /' "$out/dry.txt"
check "the dry run finds nothing to import (the hooks captured it all)" \
  grep -q 'would import 0 sessions, 0 prompts, 0 tool uses' "$out/dry.txt"
CMEM_DATA_DIR=$data HOME=$home CODEX_HOME=$codex_home "$CMEM_BIN" import codex >"$out/import.txt" 2>&1 || true
sed 's/^/  import: /' "$out/import.txt"
after=$(sql "$db" "$counts")
echo "  sessions/prompts/tool uses/observations: $before before, $after after"
check "cmem import codex reads both rollouts" grep -q 'read 2 of 2 Codex rollouts' "$out/import.txt"
check "it adds nothing: the hooks had captured both sessions (call_id = tool_use_id, turn_id = prompt id)" \
  test "$before" = "$after"
check "it finds them already in memory" grep -q 'already in memory' "$out/import.txt"
check "no prompt or tool use is there twice" \
  test "$(sql "$db" "SELECT (SELECT COUNT(*) - COUNT(DISTINCT content_session_id || prompt_id) FROM user_prompts) + (SELECT COUNT(*) - COUNT(DISTINCT content_session_id || tool_use_id) FROM tool_uses)")" = 0

# --- 6. Nothing went wrong on the way.
check "Codex sent nothing anywhere but the stub (no request refused)" \
  bash -c "! grep -q '\"refused\"' '$out'/runs/*/stub/requests.jsonl"
CODEX_HOME=$codex_home HOME=$home CMEM_DATA_DIR=$data "$CMEM_BIN" uninstall --host codex >"$out/uninstall.txt"
sed 's/^/  uninstall: /' "$out/uninstall.txt"
check "cmem uninstall --host codex: hooks.json (install made it) gone, [mcp_servers.cmem] out of config.toml, the trust Codex wrote kept" \
  python3 - "$codex_home" <<'PY'
import os, sys, tomllib
home = sys.argv[1]
c = tomllib.load(open(os.path.join(home, "config.toml"), "rb"))
sys.exit(0 if not os.path.exists(os.path.join(home, "hooks.json")) and "cmem" not in c.get("mcp_servers", {})
         and c.get("hooks", {}).get("state") and c["model_provider"] == "stub" else 1)
PY
check "no errors in cmem's log" bash -c "! grep -q ERROR '$data/logs/cmem.log' 2>/dev/null"

# The payloads Codex sent each hook, paths under /home/dev: the first of each event, and the
# apply_patch PostToolUse.
python3 - "$run1/hooks" "$home" "$out/samples" <<'PY'
import json, pathlib, sys
hooks, home, dest = pathlib.Path(sys.argv[1]), sys.argv[2], pathlib.Path(sys.argv[3])
dest.mkdir(parents=True, exist_ok=True)
def norm(v):
    if isinstance(v, str):
        return v.replace(home + "/.codex", "/home/dev/.codex").replace(home, "/home/dev")
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return [norm(x) for x in v]
    return v
for p in sorted(hooks.glob("*.json")):
    rec = json.loads(p.read_text())
    payload = rec["stdin_json"]
    name = rec["label"] + ("-apply_patch" if payload.get("tool_name") == "apply_patch" else "")
    target = dest / ("codex-hook-%s.json" % name)
    if not target.exists():
        target.write_text(json.dumps(norm(payload), indent=1, ensure_ascii=False) + "\n")
PY
if [ "${CMEM_CODEX_SAVE_SAMPLES:-}" = 1 ]; then
  mkdir -p "$kit/samples" && cp "$out"/samples/*.json "$kit/samples/"
  echo "  hook payload samples saved to $kit/samples"
fi

echo "$pass passed, $fail failed in $((SECONDS - started)) s (logs: $out)"
[ "$fail" -eq 0 ]
