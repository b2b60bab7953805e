#!/usr/bin/env bash
# Real-client checks for cmem: a real Claude Code session (headless, against the kit's local
# API stub) with cmem's hooks, then assertions on cmem's database.
#
#   tests/realclient/run.sh [path/to/cmem]     (default: target/debug/cmem, built if missing)
#
# Installs the clients once into $REALCLIENT_HOME (default ~/.cache/cmem-realclient).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
kit=$here/kit
bin=${1:-$repo/target/debug/cmem}
[ -x "$bin" ] || (cd "$repo" && cargo build --quiet)
export CMEM_BIN=$(realpath "$bin")
"$kit/setup.sh" >/dev/null

out=$(mktemp -d "${TMPDIR:-/tmp}/cmem-realclient.XXXXXX")
pass=0; fail=0
check() {  # check "description" command...
  local what=$1; shift
  if "$@"; then pass=$((pass+1)); echo "PASS $what"; else fail=$((fail+1)); echo "FAIL $what"; fi
}
sql() { sqlite3 -batch -noheader "$1" "$2"; }

# --- Capture: one session reads a file; cmem must store the prompt and the Read.
run1=$out/capture
check "claude -p session with cmem hooks (cmem-basic-capture)" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$kit/scenarios/cmem-basic-capture.json" "$run1" >"$out/capture.log" 2>&1
db=$run1/cmem-data/cmem.db
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
check "no errors in cmem's log" \
  bash -c "! grep -q ERROR '$run1/cmem-data/logs/cmem.log' 2>/dev/null"

echo "$pass passed, $fail failed (logs: $out)"
[ "$fail" -eq 0 ]
