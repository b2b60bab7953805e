#!/usr/bin/env bash
# Real-client checks for cmem: a real Claude Code session (headless, against the kit's local
# API stub) with cmem's hooks, then assertions on cmem's database.
#
#   tests/realclient/run.sh [path/to/cmem]     (default: target/debug/cmem, built if missing)
#
# Installs the clients once into $REALCLIENT_HOME (default ~/.cache/cmem-realclient).
set -euo pipefail
. "$(dirname "$0")/common.sh" "${1:-}" cmem-realclient

# Both sessions share one project dir and one data dir, as a user's consecutive sessions do.
chain

# --- Capture: one session reads a file; cmem must store the prompt and the Read.
run1=$out/capture
check "claude -p session with cmem hooks (cmem-basic-capture)" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$kit/scenarios/cmem-basic-capture.json" "$run1" >"$out/capture.log" 2>&1
check "every cmem hook exited 0" python3 - "$run1/hooks" <<'PY'
import json, pathlib, sys
records = [json.loads(p.read_text()) for p in pathlib.Path(sys.argv[1]).glob("*.json")]
# hook_recorder.py records cmem's own exit status as real_exit and its stdout as real_stdout.
bad = [(r["label"], r.get("real_exit"), r.get("real_stdout")) for r in records
       if r.get("real_exit") != 0 or r.get("real_stdout", "").count("\n") != 1]
labels = sorted({r["label"] for r in records})
print(f"  {len(records)} hook calls {labels}; bad: {bad}")
sys.exit(1 if bad or len(labels) < 6 else 0)
PY
check "the session's prompt is in the database" \
  test "$(sql "$db" "SELECT COUNT(*) FROM user_prompts WHERE prompt_text LIKE 'What does src/lib.rs define%'")" = 1
check "the session's Read tool use is in the database, with the file's content" \
  test "$(sql "$db" "SELECT COUNT(*) FROM tool_uses WHERE tool_name = 'Read' AND tool_response LIKE '%CMEM_BASIC_FILE_MARKER%'")" = 1
check "the session was closed by SessionEnd" \
  test "$(sql "$db" "SELECT status FROM sessions")" = completed

# --- Context: the rule-based observer turned the first session's Read into an observation
# linked to its tool use; the next session starts with cmem's index of it.
obs_title=$(sql "$db" "SELECT o.title FROM observations o JOIN tool_uses t ON t.observation_id = o.id
                       WHERE t.tool_name = 'Read' AND o.type = 'discovery' AND o.source = 'rules'")
echo "  observation of the Read: ${obs_title:-none}"
check "the observer turned the Read into a discovery naming src/lib.rs and answer" \
  bash -c '[[ "$1" == *src/lib.rs* && "$1" == *answer* ]]' _ "$obs_title"
run2=$out/context
check "second claude -p session gets cmem's index as SessionStart context" \
  env SCENARIO_EXTRA="{\"expect_in_request\": [\"SessionStart hook additional context:\", \"$obs_title\"]}" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$kit/scenarios/cmem-basic-capture.json" "$run2" >"$out/context.log" 2>&1
check "the injected text is cmem's index for the project (header, legend, the row)" python3 - "$run2/stub/bodies" "$obs_title" <<'PY'
import json, pathlib, re, sys
bodies = [p.read_text() for p in sorted(pathlib.Path(sys.argv[1]).glob("*.json"))]
text = "\n".join(json.dumps(json.loads(b)) for b in bodies)
found = re.search(r"SessionStart hook additional context: (.{0,4000})", json.loads(json.dumps(text)))
ctx = bytes(found.group(1), "utf-8").decode("unicode_escape") if found else ""
need = ["# Work state:", "# [work] recent context", "Legend:", sys.argv[2]]
missing = [n for n in need if n not in ctx]
print(f"  context starts: {ctx[:80]!r}; missing: {missing}")
sys.exit(1 if missing or not found else 0)
PY

check "with the person's systemMessage on (the default), the session started normally and the model's first request holds the additionalContext, not the person's copy" python3 - "$run2/hooks" "$run2/stub/bodies" <<'PY'
import json, pathlib, sys
starts = [json.loads(p.read_text()) for p in sorted(pathlib.Path(sys.argv[1]).glob("*-SessionStart.json"))]
answers = [json.loads(r.get("real_stdout") or "{}") for r in starts]
msgs = [a.get("systemMessage", "") for a in answers]
ctxs = [a.get("hookSpecificOutput", {}).get("additionalContext", "") for a in answers]
bodies = sorted(pathlib.Path(sys.argv[2]).glob("*.json"))
first = json.dumps(json.loads(bodies[0].read_text())) if bodies else ""
# The person's copy starts "cmem injected"; its ANSI escapes would appear as \u001b in the JSON.
has_msg = bool(msgs) and all("injected" in m for m in msgs)
ctx_line = ctxs[0].splitlines()[-1] if ctxs and ctxs[0] else ""
in_first = "SessionStart hook additional context:" in first and json.dumps(ctx_line)[1:-1] in first
leaked = "cmem\\u001b[0m injected" in first or "cmem injected" in first or "\\u001b[36m" in first
print(f"  {len(starts)} SessionStart answer(s); systemMessage: {msgs[0][:70]!r}" if msgs else "  no SessionStart answer")
print(f"  first request ({len(bodies)} total): additionalContext in it: {in_first}; person's copy in it: {leaked}")
sys.exit(0 if has_msg and in_first and not leaked else 1)
PY

# --- MCP: the official clients against `cmem mcp` on the memory the sessions built.
check "Python MCP SDK (server/discover first) lists the tools and walks mem_search to step 3" \
  python3 "$here/mcp_guided.py" --mode auto --query "answer" --cwd "$REUSE_WORKDIR" \
    --env CMEM_DATA_DIR="$REUSE_DATA_DIR" -- "$CMEM_BIN" mcp
check "Python MCP SDK (legacy initialize) does the same" \
  python3 "$here/mcp_guided.py" --mode legacy --query "answer" --cwd "$REUSE_WORKDIR" \
    --env CMEM_DATA_DIR="$REUSE_DATA_DIR" -- "$CMEM_BIN" mcp
check "MCP Inspector CLI lists the tools and calls one" bash -c '
  out=$(cd "$REUSE_WORKDIR" && INSPECT_TOOL=mem_search INSPECT_ARGS="query=answer mode=auto" \
        "$1/inspector_probe.sh" -e CMEM_DATA_DIR="$REUSE_DATA_DIR" -- "$CMEM_BIN" mcp 2>&1)
  echo "$out" | grep -q "\"name\": \"get_tool_uses\"" && echo "$out" | grep -q "Retrieved memory evidence"' _ "$kit"
check "claude mcp list reports cmem Connected" \
  "$kit/claude_mcp_check.sh" -e CMEM_DATA_DIR="$REUSE_DATA_DIR" -- "$CMEM_BIN" mcp
run3=$out/mcp-call
check "a claude -p session's model calls mcp__cmem__mem_search and gets cmem's index back" \
  env SCENARIO_EXTRA="{\"expect_in_request\": [\"mem-search step 1 of 3\", \"$obs_title\", \"Continue with: ms_\"]}" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$kit/scenarios/cmem-mcp-call.json" "$run3" >"$out/mcp-call.log" 2>&1

check "no errors in cmem's log" \
  bash -c "! grep -q ERROR '$REUSE_DATA_DIR/logs/cmem.log' 2>/dev/null"

echo "$pass passed, $fail failed (logs: $out)"
[ "$fail" -eq 0 ]
