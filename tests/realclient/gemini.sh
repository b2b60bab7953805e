#!/usr/bin/env bash
# Real-client check of cmem's Gemini CLI hooks (issue 31): the real Gemini CLI (npm
# @google/gemini-cli 0.61.0, installed once by kit/setup_gemini.sh) runs headless (`gemini -p
# … --yolo`) with cmem's hooks and MCP server in an isolated GEMINI_CLI_HOME. Its model is
# canned: the hidden flag --fake-responses-non-strict <jsonl> answers each model request from a
# file (scenarios/gemini-*.json's steps), and the tools those answers call really run (read_file,
# replace, run_shell_command, cmem's MCP tools). Then checks on cmem's database, on what the next
# Gemini session sends its model, on what a Claude Code session start in the same project sees,
# on `cmem doctor`, and that `cmem uninstall --host gemini` gives settings.json back byte for byte.
#
#   tests/realclient/gemini.sh [path/to/cmem]     (default: target/debug/cmem, built if missing)
#
# Offline but for that one npm install. No stub serves the model, so what Gemini sends it is read
# from Gemini's own telemetry, written to a local file (GEMINI_TELEMETRY_OUTFILE, with
# GEMINI_TELEMETRY_LOG_PROMPTS: every model request's contents as `api_request.request_text`,
# every hook call's input and output as `hook_call`). Its HTTP(S) proxy is kit/refusing_proxy.py,
# which lets nothing through and writes down every try (Gemini honours HTTPS_PROXY: without
# --fake-responses it CONNECTs to generativelanguage.googleapis.com:443 through it).
# CMEM_GEMINI_SAVE_SAMPLES=1 also writes the hook payloads Gemini sent (paths under /home/dev) to
# kit/samples/gemini-hook-<Event>.json.
#
# How Gemini runs cmem's hooks (HOSTS.md §1, and what this run shows):
#  * `cmem install --host gemini` writes $GEMINI_CLI_HOME/.gemini/settings.json `hooks` (Claude
#    Code's shape: {"<Event>": [{"hooks": [{"type": "command", "command": …, "timeout": <ms>}]}]})
#    for SessionStart, BeforeAgent (the prompt), AfterTool (successes and failures), AfterAgent
#    (the end of the turn, with the answer) and SessionEnd, and `mcpServers.cmem`.
#  * Folder trust is on by default: in an untrusted folder Gemini drops every settings hook and
#    MCP server, and headless it exits 55. GEMINI_CLI_TRUST_WORKSPACE=true trusts the folder.
#  * Headless, Gemini puts the SessionStart hook's additionalContext in front of the prompt as
#    `<hook_context>…</hook_context>\n\n` (with < and > escaped), so BeforeAgent's and
#    AfterAgent's `prompt` carry cmem's own memory; the adapter takes it off again.
#  * Here the binary install registers is a wrapper (its name starts with cmem, as install
#    requires) that runs cmem's hooks under kit/hook_recorder.py, so payloads and answers are kept,
#    and `mcp` straight through (the recorder reads stdin to its end; a server's never ends).
set -euo pipefail
. "$(dirname "$0")/common.sh" "${1:-}" cmem-realclient-gemini setup_gemini.sh
. "$kit/lib.sh"
gemini=$RC_HOME/gemini/bin/gemini
scenarios=$here/scenarios
started=$SECONDS

# HOME and GEMINI_CLI_HOME apart, so the check sees that both Gemini and cmem go by the latter.
home=$out/home gemini_home=$out/gemini-home shop=$out/home/shop data=$out/cmem-data db=$out/cmem-data/cmem.db
settings=$gemini_home/.gemini/settings.json
mkdir -p "$home" "$gemini_home/.gemini" "$shop" "$data" "$out/tmp"
py=$(python3 -c 'import sys; print(sys.executable)')
gap() { echo "gap: $*"; }

# The project: the scenario's files in a git repository.
python3 - "$scenarios/gemini-pool-fix.json" "$shop" <<'PY'
import json, pathlib, sys
root = pathlib.Path(sys.argv[2])
for name, text in json.load(open(sys.argv[1]))["files"].items():
    (root / name).parent.mkdir(parents=True, exist_ok=True)
    (root / name).write_text(text)
PY
git -C "$shop" init -q -b main
git -C "$shop" add -A
git -C "$shop" -c user.name=dev -c user.email=dev@example.com commit -qm "pool settings"

# The user's settings before cmem: an API-key login (no OAuth, no keychain), no update check or
# usage statistics (both would go online), a theme, and an MCP server of their own (excluded, so
# Gemini does not start it). Hand-formatted, so a rewrite would show.
cat >"$settings" <<'JSON'
{
  "general": { "enableAutoUpdate": false, "enableAutoUpdateNotification": false },
  "privacy": { "usageStatisticsEnabled": false },
  "security": { "auth": { "selectedType": "gemini-api-key" } },
  "ui": { "theme": "GitHub" },
  "mcp": { "excluded": ["docs"] },
  "mcpServers": {
    "docs": { "command": "docs-mcp", "args": ["--stdio"], "timeout": 15000 }
  }
}
JSON
cp "$settings" "$out/settings-before-install.json"

wrapper=$out/cmem-recorded
cat >"$wrapper" <<SH
#!/bin/sh
# mcp | hook --host gemini EVENT
[ "\$1" = mcp ] && exec "$CMEM_BIN" "\$@"
exec "$py" "$kit/hook_recorder.py" "\$4" -- "$CMEM_BIN" "\$@"
SH
chmod +x "$wrapper"
cmem_env() { HOME=$home GEMINI_CLI_HOME=$gemini_home CMEM_DATA_DIR=$data "$@"; }

# Gemini reads settings.json through strip-json-comments, so a user's file may hold comments.
probe=$out/comment-probe/.gemini/settings.json
mkdir -p "${probe%/*}"
{ echo '// my Gemini settings'; cat "$settings"; } >"$probe"
cp "$probe" "$out/comment-probe.json"
probe_env() { HOME=$home GEMINI_CLI_HOME=$out/comment-probe CMEM_DATA_DIR=$out/comment-probe/data "$@"; }
if probe_env "$CMEM_BIN" install --host gemini --binary "$wrapper" >"$out/comment-probe.txt" 2>&1; then
  echo "  a settings.json with a // comment: cmem install --host gemini took it"
  probe_env "$CMEM_BIN" uninstall --host gemini >>"$out/comment-probe.txt" 2>&1 || true
  check "a settings.json with a // comment: install, then uninstall, gives it back byte for byte" \
    cmp -s "$probe" "$out/comment-probe.json"
else
  gap "cmem install --host gemini refuses a settings.json with a // comment, which Gemini itself reads (strip-json-comments): $(tail -1 "$out/comment-probe.txt")"
  check "a settings.json with a // comment: cmem install --host gemini refuses it and leaves it byte for byte as it was" \
    cmp -s "$probe" "$out/comment-probe.json"
fi

# --- 1. cmem install --host gemini.
install_rc=0
cmem_env "$CMEM_BIN" install --host gemini --binary "$wrapper" >"$out/install.txt" 2>&1 || install_rc=$?
sed 's/^/  install: /' "$out/install.txt"
check "cmem install --host gemini: 5 hooks (ms timeouts) running the wrapper and mcpServers.cmem in \$GEMINI_CLI_HOME/.gemini/settings.json, the user's settings kept" \
  python3 - "$settings" "$out/settings-before-install.json" "$wrapper" "$install_rc" "$home" <<'PY'
import json, os, re, sys
path, before, wrapper, rc, home = sys.argv[1:]
def load(p):  # JSON with // comments, as Gemini reads it
    return json.loads(re.sub(r"^\s*//.*$", "", open(p).read(), flags=re.M))
s, old = load(path), load(before)
want = ["AfterAgent", "AfterTool", "BeforeAgent", "SessionEnd", "SessionStart"]
hooks = s.get("hooks", {})
ok = rc == "0" and sorted(hooks) == want and not os.path.exists(os.path.join(home, ".gemini"))
for event in want:
    groups = hooks[event]
    handlers = [h for g in groups for h in g.get("hooks", [])]
    print("  %-12s %s" % (event, [(h["command"].replace(wrapper, "<wrapper>"), h["timeout"]) for h in handlers]))
    ok &= (len(handlers) == 1 and handlers[0]["type"] == "command"
           and handlers[0]["command"] == "%s hook --host gemini %s" % (wrapper, event)
           and isinstance(handlers[0]["timeout"], int) and 1000 <= handlers[0]["timeout"] <= 60000)
servers = s.get("mcpServers", {})
print("  mcpServers.cmem:", json.dumps(servers.get("cmem")).replace(wrapper, "<wrapper>"))
ok &= servers.get("cmem") == {"command": wrapper, "args": ["mcp"]} and servers.get("docs") == old["mcpServers"]["docs"]
ok &= all(s.get(k) == v for k, v in old.items() if k != "mcpServers")
sys.exit(0 if ok else 1)
PY
cp "$settings" "$out/settings-installed.json"

# Gemini's environment: nothing of the caller's but PATH's basics; the proxy refuses all.
proxy_dir=$out/proxy
python3 "$kit/refusing_proxy.py" --log-dir "$proxy_dir" 2>"$out/proxy.err" &
proxy=$!
trap 'kill $proxy 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -s "$proxy_dir/port" ] && break; sleep 0.05; done
proxy_port=$(cat "$proxy_dir/port")
gemini_env() {  # gemini_env RUN_DIR COMMAND...
  local run=$1; shift
  env -i HOME="$home" GEMINI_CLI_HOME="$gemini_home" PATH=/usr/local/bin:/usr/bin:/bin SHELL=/bin/bash \
    TERM=dumb LANG=C.UTF-8 TZ=UTC TMPDIR="$out/tmp" PYTHONDONTWRITEBYTECODE=1 \
    GEMINI_API_KEY=not-a-key GEMINI_CLI_TRUST_WORKSPACE="${GEMINI_TRUST:-true}" \
    GEMINI_TELEMETRY_ENABLED=true GEMINI_TELEMETRY_TARGET=local GEMINI_TELEMETRY_LOG_PROMPTS=true \
    GEMINI_TELEMETRY_OUTFILE="$run/telemetry.log" \
    HTTP_PROXY="http://127.0.0.1:$proxy_port" HTTPS_PROXY="http://127.0.0.1:$proxy_port" \
    ALL_PROXY="http://127.0.0.1:$proxy_port" NO_PROXY=127.0.0.1,localhost \
    CMEM_DATA_DIR="$data" CMEM_LOG_LEVEL=debug HOOK_LOG_DIR="$run/hooks" "$@"
}
# gemini_session NAME: `gemini -p` of scenarios/gemini-NAME.json's prompt in the project, its
# model's replies the scenario's steps. Output, telemetry (as JSON lines: telemetry.jsonl) and
# the hook records go to $out/runs/NAME.
gemini_session() {
  local name=$1 run=$out/runs/$1 scenario=$scenarios/gemini-$1.json rc=0
  mkdir -p "$run/hooks"
  python3 - "$scenario" "$run/responses.jsonl" <<'PY'
import json, sys
scenario = json.load(open(sys.argv[1]))
usage = {"promptTokenCount": 1000, "candidatesTokenCount": 20, "totalTokenCount": 1020}
def reply(part):
    return {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage}
lines = [{"method": "generateContent", "response": reply({"text": json.dumps(scenario["route"])})}]
for step in scenario["steps"]:
    part = {"functionCall": {"name": step["call"], "args": step["args"]}} if "call" in step else {"text": step["say"]}
    lines.append({"method": "generateContentStream", "response": [reply(part)]})
with open(sys.argv[2], "w") as f:
    f.writelines(json.dumps(line) + "\n" for line in lines)
PY
  (cd "$shop" && gemini_env "$run" timeout 180 node "$gemini" --yolo \
      --fake-responses-non-strict "$run/responses.jsonl" \
      -p "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["prompt"])' "$scenario")" \
      </dev/null >"$run/stdout.txt" 2>"$run/stderr.txt") || rc=$?
  python3 - "$run/telemetry.log" "$run/telemetry.jsonl" <<'PY'
import json, sys
try:
    text = open(sys.argv[1]).read()
except OSError:
    text = ""
dec, i, out = json.JSONDecoder(), 0, open(sys.argv[2], "w")
while True:  # a stream of pretty-printed JSON records
    while i < len(text) and text[i].isspace():
        i += 1
    if i >= len(text):
        break
    rec, i = dec.raw_decode(text, i)
    attrs = dict(rec.get("attributes") or {})
    if "event.name" not in attrs:  # a span (gen_ai.tool.definitions: the tools offered)
        attrs["span.name"] = rec.get("name")
    out.write(json.dumps(attrs) + "\n")
PY
  echo "  gemini -p $name: exit $rc, $(grep -c '"gemini_cli.api_request"' "$run/telemetry.jsonl" || true) model requests, $(ls "$run/hooks" | wc -l) hook calls, answer: $(head -c 120 "$run/stdout.txt" | tr '\n' ' ')"
  return "$rc"
}
# The payloads a session's hooks were given and cmem's answers, in order (JSON lines).
records() {
  python3 - "$1" <<'PY'
import json, pathlib, sys
for p in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    print(json.dumps(json.loads(p.read_text())))
PY
}

# Folder trust (on by default): in a folder Gemini does not trust it runs no settings hook.
untrusted_probe() {
  local rc=0
  GEMINI_TRUST=false gemini_session untrusted-probe || rc=$?
  grep -m1 -a 'trusted directory' "$out/runs/untrusted-probe/stderr.txt" | sed 's/\x1b\[[0-9;]*m//g; s/^/  stderr: /' | cut -c1-160
  [ "$rc" = 55 ] && [ -z "$(ls "$out/runs/untrusted-probe/hooks")" ] && [ ! -e "$db" ]
}
check "in a folder it does not trust (GEMINI_CLI_TRUST_WORKSPACE=false), gemini -p exits 55 and runs none of cmem's hooks" \
  untrusted_probe

# --- 2. A session: the test fails, read_file, replace 5 → 20, the test passes, an answer.
check "gemini -p (headless, --yolo, fake model) runs the pool fix and exits 0" gemini_session pool-fix
run1=$out/runs/pool-fix
records "$run1/hooks" >"$run1/records.jsonl"
check "the edit is on disk (POOL_SIZE = 20) and the fake model was asked once per scripted step (5 main requests)" \
  bash -c "grep -qx 'POOL_SIZE = 20' '$shop/src/db/pool.py' && [ \"\$(grep '\"gemini_cli.api_request\"' '$run1/telemetry.jsonl' | grep -c '\"role\": \"main\"')\" = 5 ]"
check "Gemini ran every hook and took cmem's answers: SessionStart, BeforeAgent, 4 AfterTool, AfterAgent, SessionEnd, each exit 0 with one JSON object" \
  python3 - "$run1" <<'PY'
import collections, json, pathlib, sys
run = pathlib.Path(sys.argv[1])
tel = [json.loads(l) for l in open(run / "telemetry.jsonl")]
calls = [t for t in tel if t.get("event.name") == "gemini_cli.hook_call"]
recs = [json.loads(l) for l in open(run / "records.jsonl")]
bad = [(r["label"], r.get("real_exit"), r.get("real_stdout")) for r in recs
       if r.get("real_exit") != 0 or r.get("real_stdout", "").count("\n") != 1
       or not isinstance(json.loads(r["real_stdout"] or "null"), dict)]
ran = collections.Counter(r["label"] for r in recs)
took = collections.Counter(c["hook_event_name"] for c in calls if c.get("success") and c.get("exit_code") == 0)
failed = [c for c in calls if not c.get("success")]
stderr = (run / "stderr.txt").read_text()
warned = [l for l in stderr.splitlines() if "Hook" in l and ("fail" in l or "Warning" in l)]
want = {"SessionStart": 1, "BeforeAgent": 1, "AfterTool": 4, "AfterAgent": 1, "SessionEnd": 1}
print("  ran: %s; Gemini took: %s; failed: %s; bad answers: %s; hook warnings: %s" % (dict(ran), dict(took), failed, bad, warned))
sys.exit(0 if ran == want and took == want and not failed and not bad and not warned else 1)
PY
# Gemini shows a hook's systemMessage to the user: headless, on stderr (at start and again as
# "Hook system message: …"), as it is: cmem sends it without Claude Code's colour codes.
check "cmem's session-start message reaches Gemini's user as plain text (no escape codes)" \
  bash -c "grep -q 'Hook system message' '$run1/stderr.txt' && ! grep -q \$'\\e\\[' '$run1/stderr.txt'"
python3 - "$run1/records.jsonl" >"$out/session1.env" 2>/dev/null <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
print("sid=%s" % next(r["stdin_json"]["session_id"] for r in recs if r["label"] == "SessionStart"))
PY
[ -s "$out/session1.env" ] || echo "sid=none" >"$out/session1.env"
. "$out/session1.env"
echo "  Gemini session $sid"
check "every hook payload carries that session_id, the project as cwd, and Gemini's own event name" \
  python3 - "$run1/records.jsonl" "$sid" "$shop" <<'PY'
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(0 if recs and all(r["stdin_json"]["session_id"] == sys.argv[2] and r["stdin_json"]["cwd"] == sys.argv[3]
                           and r["stdin_json"]["hook_event_name"] == r["label"] for r in recs) else 1)
PY
check "the session is stored with platform_source 'gemini', completed" \
  test "$(sql "$db" "SELECT platform_source || '/' || status FROM sessions WHERE content_session_id = '$sid'")" = "gemini/completed"
# Headless Gemini sends BeforeAgent the prompt with cmem's SessionStart context in front.
prompt_as_typed() {  # prompt_as_typed RUN SESSION SCENARIO
  python3 - "$db" "$2" "$scenarios/gemini-$3.json" "$1/records.jsonl" <<'PY'
import json, sqlite3, sys
db, sid, scenario, records = sys.argv[1:]
typed = json.load(open(scenario))["prompt"]
sent = next(json.loads(l)["stdin_json"]["prompt"] for l in open(records) if json.loads(l)["label"] == "BeforeAgent")
rows = sqlite3.connect(db).execute("SELECT prompt_text FROM user_prompts WHERE content_session_id = ?", (sid,)).fetchall()
print("  BeforeAgent's prompt: %r … %r (%d chars); stored: %r" % (sent[:40], sent[-60:], len(sent), rows))
sys.exit(0 if sent.startswith("<hook_context>") and sent.endswith("</hook_context>\n\n" + typed)
         and rows == [(typed,)] else 1)
PY
}
check "the prompt is stored as typed: BeforeAgent's prompt is '<hook_context>…</hook_context>' + the prompt, cmem keeps only the prompt" \
  prompt_as_typed "$run1" "$sid" pool-fix
echo "  tool uses:"
sql "$db" "SELECT '    ' || tool_use_id || ' ' || tool_name || ' ' || substr(tool_input, 1, 110) || ' failed=' || failed FROM tool_uses WHERE content_session_id = '$sid' ORDER BY id"
in_order() { sql "$db" "SELECT group_concat($1, ' ') FROM (SELECT $1 FROM tool_uses WHERE content_session_id = '$sid' ORDER BY id)"; }
check "the tool uses are stored as Claude Code's: Bash, Read, Edit, Bash (ids gemini-…, one per call)" \
  test "$(in_order tool_name)|$(sql "$db" "SELECT COUNT(DISTINCT tool_use_id) FROM tool_uses WHERE content_session_id = '$sid' AND tool_use_id LIKE 'gemini-%'")" = "Bash Read Edit Bash|4"
check "read_file and replace (given src/db/pool.py, relative) are a Read and an Edit of the absolute path, old 'POOL_SIZE = 5', new 'POOL_SIZE = 20'" \
  test "$(sql "$db" "SELECT group_concat(x, ';') FROM (SELECT tool_name || '|' || json_extract(tool_input, '$.file_path') || '|' || coalesce(json_extract(tool_input, '$.old_string'), '') || '|' || coalesce(json_extract(tool_input, '$.new_string'), '') AS x FROM tool_uses WHERE content_session_id = '$sid' AND tool_name IN ('Read', 'Edit') ORDER BY id)")" = "Read|$shop/src/db/pool.py||;Edit|$shop/src/db/pool.py|POOL_SIZE = 5|POOL_SIZE = 20"
check "run_shell_command is a Bash of the command as given" \
  test "$(sql "$db" "SELECT group_concat(json_extract(tool_input, '$.command'), ';') FROM tool_uses WHERE content_session_id = '$sid' AND tool_name = 'Bash'")" = "python3 -m unittest tests.test_pool;python3 -m unittest tests.test_pool"
echo "  observations:"
sql "$db" "SELECT '    #' || id || ' ' || type || ' ' || title FROM observations ORDER BY id"
pool_title=$(sql "$db" "SELECT title FROM observations WHERE title LIKE '%POOL_SIZE%' ORDER BY id LIMIT 1")
check "an observation names POOL_SIZE and 5 → 20" grep -q 'POOL_SIZE.*5 → 20' <<<"$pool_title"
check "the answer (AfterAgent's prompt_response) is in the session's summary" \
  python3 - "$db" "$sid" "$scenarios/gemini-pool-fix.json" <<'PY'
import json, sqlite3, sys
db, sid, scenario = sys.argv[1:]
said = json.load(open(scenario))["steps"][-1]["say"]
rows = sqlite3.connect(db).execute(
    "SELECT s.completed, s.notes FROM session_summaries s JOIN sessions x ON s.session_id = x.id "
    "WHERE x.content_session_id = ?", (sid,)).fetchall()
sys.exit(0 if any(said in (c or "") + (n or "") for c, n in rows) else 1)
PY
# What the adapter makes of run_shell_command's result: Gemini reports a command that exited
# non-zero as a success (no `error`); the exit code is only a line "Exit Code: N" in llmContent,
# which it wraps in <untrusted_context>…</untrusted_context> with "Output: " in front and
# "Process Group PGID: N" after (returnDisplay holds the plain output).
check "each shell command failed exactly when its exit code says so, and its output is stored plain" \
  python3 - "$db" "$sid" "$run1/records.jsonl" <<'PY'
import json, re, sqlite3, sys
db, sid, records = sys.argv[1:]
shells = [json.loads(l)["stdin_json"] for l in open(records)
          if json.loads(l)["label"] == "AfterTool" and json.loads(l)["stdin_json"]["tool_name"] == "run_shell_command"]
rows = sqlite3.connect(db).execute("SELECT failed, tool_response, error FROM tool_uses WHERE content_session_id = ? "
                                   "AND tool_name = 'Bash' ORDER BY id", (sid,)).fetchall()
bad = len(shells) != len(rows) or not shells
for payload, (failed, response, error) in zip(shells, rows):
    resp = payload["tool_response"]
    code = re.search(r"^Exit Code: (\d+)$", resp["llmContent"], re.M)
    code = int(code.group(1)) if code else 0
    text = error if failed else (json.loads(response) or {}).get("stdout", "")
    print("  run_shell_command exit %d: stored failed=%s, %r" % (code, failed, (text or "")[:50]))
    bad |= bool(code) != bool(failed) or "<untrusted_context>" in (text or "") or "Process Group PGID" in (text or "")
sys.exit(1 if bad or not any(r[0] for r in rows) else 0)
PY
check "the fix is a bugfix: the failing test, the edit, the passing test" \
  test "$(sql "$db" "SELECT COUNT(*) FROM observations WHERE type = 'bugfix' AND title LIKE '%POOL_SIZE%'")" -ge 1

# --- 3. The next session starts with the memory, and its model is sent it.
check "a second gemini -p in the project runs (it also calls cmem's MCP tool mem_search)" gemini_session pool-ask
run2=$out/runs/pool-ask
records "$run2/hooks" >"$run2/records.jsonl"
sid2=$(python3 -c 'import json, sys; print(next(json.loads(l)["stdin_json"]["session_id"] for l in open(sys.argv[1])))' "$run2/records.jsonl" 2>/dev/null || echo none)
check "cmem's SessionStart answer holds the first session's observation (hookSpecificOutput.additionalContext)" \
  python3 - "$run2/records.jsonl" "$pool_title" <<'PY'
import json, sys
title = sys.argv[2]
rec = next(json.loads(l) for l in open(sys.argv[1]) if json.loads(l)["label"] == "SessionStart")
ctx = json.loads(rec["real_stdout"])["hookSpecificOutput"]["additionalContext"]
sys.exit(0 if title and title in ctx else 1)
PY
check "the request Gemini sent the model holds it: the user turn is '<hook_context>' + the memory (< > escaped) + '</hook_context>' + the prompt" \
  python3 - "$run2/telemetry.jsonl" "$pool_title" "$scenarios/gemini-pool-ask.json" <<'PY'
import json, sys
title, typed = sys.argv[2], json.load(open(sys.argv[3]))["prompt"]
esc = title.replace("<", "&lt;").replace(">", "&gt;")
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t.get("event.name") != "gemini_cli.api_request" or t.get("role") != "main":
        continue
    for content in json.loads(t["request_text"]):
        for part in content.get("parts", []):
            text = part.get("text") or ""
            if content["role"] == "user" and text.startswith("<hook_context>") and esc in text \
                    and text.endswith("</hook_context>\n\n" + typed):
                print("  found in the first main request: a user part of %d chars, %r … %r" % (len(text), text[:60], text[-70:]))
                sys.exit(0)
    break
sys.exit(1)
PY
check "the second prompt is stored as typed too, without the memory in front" \
  prompt_as_typed "$run2" "$sid2" pool-ask
check "Gemini started cmem's MCP server and offered its tools (mcp_cmem_*); mem_search ran and found the observation" \
  python3 - "$run2/telemetry.jsonl" "$run2/records.jsonl" "$pool_title" <<'PY'
import json, sys
tel = [json.loads(l) for l in open(sys.argv[1])]
offered = set()
for t in tel:
    for decl in json.loads(t.get("gen_ai.tool.definitions") or "[]"):
        offered |= {f["name"] for f in decl.get("functionDeclarations", []) if f["name"].startswith("mcp_cmem_")}
call = next((json.loads(l)["stdin_json"] for l in open(sys.argv[2]) if json.loads(l)["label"] == "AfterTool"), {})
text = json.dumps(call.get("tool_response", {}).get("llmContent"), ensure_ascii=False)
print("  offered: %s; AfterTool %s mcp_context %s" % (sorted(offered), call.get("tool_name"),
      {k: call.get("mcp_context", {}).get(k) for k in ("server_name", "tool_name")}))
sys.exit(0 if "mcp_cmem_mem_search" in offered and call.get("tool_name") == "mcp_cmem_mem_search"
         and sys.argv[3] and sys.argv[3] in text and "error" not in call.get("tool_response", {}) else 1)
PY
# Claude Code names cmem's tools mcp__cmem__<tool>, and capture skips its memory tools
# (is_own_memory_tool); Gemini names them mcp_cmem_<tool> (and sends mcp_context.server_name).
own=$(sql "$db" "SELECT COUNT(*) FROM tool_uses WHERE content_session_id = '$sid2' AND tool_name LIKE '%mem_search%'")
check "cmem's own memory search (Gemini's mcp_cmem_mem_search) is not stored as a tool use, as with Claude Code" test "$own" = 0

# --- 4. A Claude Code session start in the same project sees the same memory.
echo "{\"session_id\":\"cc\",\"cwd\":\"$shop\",\"hook_event_name\":\"SessionStart\",\"source\":\"startup\"}" |
  CMEM_DATA_DIR=$data HOME=$home "$CMEM_BIN" hook session-start >"$out/claude-session-start.json"
check "a Claude Code session start in the project gets the Gemini session's observation" \
  grep -qF "$pool_title" "$out/claude-session-start.json"

# --- 5. cmem doctor, and cmem uninstall --host gemini.
cmem_env "$CMEM_BIN" doctor >"$out/doctor.txt" 2>&1 || true
grep 'gemini hooks' "$out/doctor.txt" | sed 's/^/  doctor: /'
check "cmem doctor: 'gemini hooks   5 events and the MCP server'" \
  grep -q 'gemini hooks   5 events and the MCP server' "$out/doctor.txt"
check "Gemini itself left settings.json as cmem wrote it" cmp -s "$settings" "$out/settings-installed.json"
cmem_env "$CMEM_BIN" uninstall --host gemini >"$out/uninstall.txt" 2>&1 || true
sed 's/^/  uninstall: /' "$out/uninstall.txt"
check "cmem uninstall --host gemini: settings.json is byte for byte what it was before install" \
  cmp "$settings" "$out/settings-before-install.json"
ls -A "$gemini_home/.gemini" | grep -i cmem | sed 's/^/  left in .gemini: /' || true
cmem_env "$CMEM_BIN" doctor >"$out/doctor-after.txt" 2>&1 || true
check "cmem doctor then: Gemini is here, cmem not installed for it" \
  grep -q 'gemini hooks .*cmem is not installed for it' "$out/doctor-after.txt"

# --- 6. Nothing went wrong on the way.
check "Gemini tried to reach nothing (the proxy refused no request)" test ! -s "$proxy_dir/requests.jsonl"
check "no errors in cmem's log" bash -c "! grep -q ERROR '$data/logs/cmem.log' 2>/dev/null"

# The payloads Gemini sent each hook, paths under /home/dev: the first of each event, AfterTool
# once per tool (and once for the failing shell command).
python3 - "$run1/records.jsonl" "$run2/records.jsonl" "$gemini_home" "$home" "$out/samples" "$out" <<'PY'
import json, pathlib, re, sys
gemini_home, home, dest, out = sys.argv[3], sys.argv[4], pathlib.Path(sys.argv[5]), sys.argv[6]
dest.mkdir(parents=True, exist_ok=True)
def norm(v):
    if isinstance(v, str):
        return v.replace(gemini_home, "/home/dev").replace(home, "/home/dev").replace(out, "/home/dev")
    if isinstance(v, dict):
        return {k: norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return [norm(x) for x in v]
    return v
for records in sys.argv[1:3]:
    for line in open(records):
        payload = json.loads(line)["stdin_json"]
        name = payload["hook_event_name"]
        if name == "AfterTool":
            name += "-" + payload["tool_name"]
            if re.search(r"^Exit Code: [1-9]", str(payload["tool_response"].get("llmContent")), re.M):
                name += "-exit1"
        target = dest / ("gemini-hook-%s.json" % name)
        if not target.exists():
            target.write_text(json.dumps(norm(payload), indent=1, ensure_ascii=False) + "\n")
PY
if [ "${CMEM_GEMINI_SAVE_SAMPLES:-}" = 1 ]; then
  mkdir -p "$kit/samples" && cp "$out"/samples/*.json "$kit/samples/"
  echo "  hook payload samples saved to $kit/samples"
fi

echo "$pass passed, $fail failed in $((SECONDS - started)) s (logs: $out)"
[ "$fail" -eq 0 ]
