#!/usr/bin/env bash
# Real-client checks for cmem's observers: real Claude Code sessions (headless, against the
# kit's local API stub) with cmem's hooks, then assertions on cmem's database and on what the
# next session's model receives.
#
#   tests/realclient/observe.sh [path/to/cmem]     (default: target/debug/cmem, built if missing)
#
# 1. The model reads src/lib.rs, edits answer() in it and runs a look-around command: the database
#    must hold a `change` observation naming src/lib.rs and answer, linked to its Read and Edit,
#    with what the command found as a fact, and a summary.
# 1b. Issue 14's session: a failing check, the edit of refresh_window() (30 → 300), the check
#    passing, a last message: the bugfix's title names refresh_window, src/auth.rs and 30 → 300.
# 2. A second session (TodoWrite) must get both observations in its injected index, and the
#    last message of 1b as "Previously".
# 3. A third session (task tools) must get the TodoWrite items under "Still open:".
# 4. A fourth session must get the task under "Still open:".
set -euo pipefail
. "$(dirname "$0")/common.sh" "${1:-}" cmem-realclient-observe
scenarios=$here/scenarios

chain

# --- 1. Read, edit a function, run a command.
run1=$out/edit
check "claude -p session: read src/lib.rs, edit answer(), run a command" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$scenarios/cmem-observe-edit.json" "$run1" >"$out/edit.log" 2>&1
change_id=$(sql "$db" "SELECT id FROM observations WHERE type = 'change' AND title LIKE '%src/lib.rs%' AND title LIKE '%answer%'")
change_title=$(sql "$db" "SELECT title FROM observations WHERE id = '${change_id:-0}'")
echo "  change observation ${change_id:-none}: $change_title"
check "a change observation names src/lib.rs and answer" test -n "$change_id"
check "the Edit (and the Read of the file) are linked to it" \
  test "$(sql "$db" "SELECT group_concat(tool_name, ',') FROM (SELECT tool_name FROM tool_uses WHERE observation_id = '${change_id:-0}' ORDER BY id)")" = "Read,Edit"
# One outcome, one memory (issue 29): the look-around command after the edit is no index row;
# what it printed is a fact of the change, and its tool use stays the turn's.
check "the look-around command is no row of its own, its finding a fact of the change" \
  test "$(sql "$db" "SELECT COUNT(*) FROM tool_uses WHERE tool_name = 'Bash' AND observation_id IS NULL")$(sql "$db" "SELECT COUNT(*) FROM observations WHERE id = '${change_id:-0}' AND facts LIKE '%grep -n 43%'")" = 11
check "the turn has a summary (request, completed, next steps; notes without them)" \
  test "$(sql "$db" "SELECT COUNT(*) FROM session_summaries WHERE request LIKE 'Make answer()%' AND completed LIKE '%42 → 43%' AND next_steps LIKE '%changelog%' AND notes = 'answer() now returns 43.'")" = 1
check "every user prompt was observed" \
  test "$(sql "$db" "SELECT COUNT(*) FROM user_prompts WHERE observed_at_epoch IS NULL")" = 0

# --- 1b. Failing check, edit, passing check, last message.
run1b=$out/fix
check "claude -p session: failing check, edit refresh_window(), passing check" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$scenarios/cmem-observe-fix.json" "$run1b" >"$out/fix.log" 2>&1
fix_title=$(sql "$db" "SELECT title FROM observations WHERE type = 'bugfix' AND title LIKE '%src/auth.rs%' ORDER BY id DESC LIMIT 1")
echo "  bugfix observation: $fix_title"
check "its title names refresh_window, src/auth.rs and 30 → 300" python3 - "$fix_title" <<'PY'
import sys
t = sys.argv[1]
sys.exit(0 if all(x in t for x in ("refresh_window", "src/auth.rs", "30 \u2192 300")) else 1)
PY

# --- 2. The next session's index lists the change; it writes a TodoWrite list.
run2=$out/todo
check "second session (TodoWrite) runs" \
  env CLAUDE_CODE_ENABLE_TASKS=0 "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$scenarios/cmem-observe-todo.json" "$run2" >"$out/todo.log" 2>&1
context_of "$run2" >"$out/context2.txt" || true
check "the second session's injected index lists the change observation" python3 - "$out/context2.txt" "${change_id:-0}" "$change_title" <<'PY'
import sys
text, oid, title = open(sys.argv[1]).read(), sys.argv[2], sys.argv[3]
rows = [l for l in text.splitlines() if l.startswith(oid + " ") and l.endswith(title)]
print("  index row:", rows[0] if rows else None)
sys.exit(0 if rows and title else 1)
PY
check "the second session's context holds the last message of the fix as Previously" python3 - "$out/context2.txt" <<'PY'
import sys
text = open(sys.argv[1]).read()
_, _, rest = text.partition("Previously")
print("  previously:", rest.strip().splitlines()[0] if rest.strip() else None)
sys.exit(0 if "A: Fixed: refresh_window() in src/auth.rs now returns 300 seconds." in rest else 1)
PY
check "TodoWrite became work state (2 open items, 1 done)" \
  test "$(sql "$db" "SELECT COUNT(*) FROM work_state_entries WHERE list_name = 'Plan the parser work as a to-do list.'")" = 3

# --- 3. The third session sees the TodoWrite items as still open; it uses the task tools.
run3=$out/tasks
check "third session (task tools) runs" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$scenarios/cmem-observe-tasks.json" "$run3" >"$out/tasks.log" 2>&1
context_of "$run3" >"$out/context3.txt" || true
check "its context has the TodoWrite items under Still open:" python3 - "$out/context3.txt" <<'PY'
import sys
text = open(sys.argv[1]).read()
head, _, rest = text.partition("Still open:")
ok = bool(rest) and "[doing] Write the CMEM_TODO_PARSER parser" in rest and "[todo] Add CMEM_TODO_TESTS tests" in rest \
     and "Read the spec" not in rest.split("# [")[0]
print("  still open:", rest.split("\n\n")[0][:400].replace("\n", " | "))
sys.exit(0 if ok else 1)
PY

# --- 4. The fourth session sees the task as still open.
run4=$out/after
check "fourth session runs" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$kit/scenarios/cmem-basic-capture.json" "$run4" >"$out/after.log" 2>&1
context_of "$run4" >"$out/context4.txt" || true
check "its context has the task under Still open:" python3 - "$out/context4.txt" <<'PY'
import sys
text = open(sys.argv[1]).read()
_, _, rest = text.partition("Still open:")
sys.exit(0 if "[doing] Ship the CMEM_TASK_RELEASE release" in rest else 1)
PY

check "every cmem hook exited 0 with one line of JSON" hooks_answered "$out"
check "no errors in cmem's log" \
  bash -c "! grep -q ERROR '$REUSE_DATA_DIR/logs/cmem.log' 2>/dev/null"

echo "$pass passed, $fail failed (logs: $out)"
[ "$fail" -eq 0 ]
