#!/usr/bin/env bash
# Real-client check of `cmem import claude-code` (issue 30): real Claude Code sessions run
# headless against the kit's local API stub with NO cmem hooks — three in one project (a fix
# checked before and after, a rename, a session holding secrets) and one written in Chinese in
# another — then imported from the transcripts Claude Code kept under their HOME. Then a real
# session WITH cmem's hooks must start with the imported memory in its context, and a second
# import must add nothing, that hooked session included.
#
#   tests/realclient/import.sh [path/to/cmem]     (default: target/debug/cmem, built if missing)
set -euo pipefail
. "$(dirname "$0")/common.sh" "${1:-}" cmem-realclient-import

data=$out/cmem-data db=$data/cmem.db home=$out/home shop=$out/shop zh=$out/zh
mkdir -p "$data" "$home" "$shop" "$zh"
cmem() { CMEM_DATA_DIR=$data HOME=$home "$CMEM_BIN" "$@"; }

# session NAME WORKDIR SETTINGS [EXTRA-JSON]: one headless Claude Code session of the scenario,
# its HOME shared with the others (so one ~/.claude/projects holds every transcript). Without
# hooks, the scenario's hook expectations are dropped.
session() {
  local name=$1 workdir=$2 settings=$3 extra=${4:-'{}'} run=$out/runs/$1
  mkdir -p "$run" && ln -sfn "$home" "$run/home"
  python3 - "$here/scenarios/$name.json" "$out/$name.json" "$settings" "$extra" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
if sys.argv[3] == "none":
    for k in ("expect_hooks", "expect_hook_exit", "expect_no_hooks"):
        s.pop(k, None)
s.update(json.loads(sys.argv[4]))
json.dump(s, open(sys.argv[2], "w"))
PY
  REUSE_WORKDIR=$workdir REUSE_DATA_DIR=$data \
    "$kit/run_claude_session.sh" "$settings" "$out/$name.json" "$run" >"$out/$name.log" 2>&1
}

check "claude -p, no hooks: the refresh window fixed and checked before and after" session cmem-observe-fix "$shop" none
check "claude -p, no hooks: a constant renamed, the tests run" session cmem-import-rename "$shop" none
check "claude -p, no hooks: a session holding a private note and an API key" session cmem-import-secrets "$shop" none
check "claude -p, no hooks: a session in Chinese (连接池)" session cmem-chinese-pool "$zh" none
check "no hook ran: the memory has no database yet" test ! -e "$db"

# A transcript written to in the last two minutes belongs to a running session and is left
# for later: these sessions ended ten minutes ago.
settle() { find "$home/.claude/projects" -name '*.jsonl' -exec touch -d '10 minutes ago' {} +; }
settle
cmem import claude-code --dry-run >"$out/dry.txt" 2>&1 || true
sed 's/^/  dry run: /' "$out/dry.txt"
check "--dry-run counts 4 sessions and changes nothing" \
  bash -c "grep -q 'would import 4 sessions' '$out/dry.txt' && ! test -e '$db'"

cmem import claude-code >"$out/import1.txt" 2>&1
sed 's/^/  import: /' "$out/import1.txt"
check "the import names what it made" grep -q 'imported 4 sessions, 4 prompts, .* tool uses → [1-9][0-9]* observations' "$out/import1.txt"
shop_project=$(basename "$shop") zh_project=$(basename "$zh")
echo "  observations:"
sql "$db" "SELECT '    #' || id || ' [' || project || '] ' || title FROM observations ORDER BY id"
check "an observation names refresh_window and 30 → 300" \
  bash -c "sqlite3 -batch -noheader '$db' \"SELECT title FROM observations WHERE project = '$shop_project'\" | grep 'refresh_window' | grep -q '30 → 300'"
check "an observation names the rename MAX_RETRY → MAX_RETRIES" \
  bash -c "sqlite3 -batch -noheader '$db' \"SELECT title || ' ' || IFNULL(subtitle,'') FROM observations WHERE project = '$shop_project'\" | grep -q 'MAX_RETRY.*MAX_RETRIES'"
check "the test that passed after the fix is named" \
  bash -c "sqlite3 -batch -noheader '$db' \"SELECT title || ' ' || IFNULL(subtitle,'') || ' ' || IFNULL(narrative,'') FROM observations WHERE project = '$shop_project'\" | grep -q 'refresh_window passes\|auth::refresh_window'"
check "sessions, prompts and tool uses at the sessions' own times (before the import began)" \
  test "$(sql "$db" "SELECT COUNT(*) FROM user_prompts WHERE created_at_epoch > (SELECT MIN(imported_at_epoch) FROM history_files)")" = 0
check "the Chinese session: an observation of src/pool.py's POOL_SIZE" \
  bash -c "sqlite3 -batch -noheader '$db' \"SELECT title FROM observations WHERE project = '$zh_project'\" | grep -q 'POOL_SIZE'"
check "the Chinese prompt is found by a word from inside it (耗尽)" \
  bash -c "CMEM_DATA_DIR='$data' '$CMEM_BIN' search --all-projects --lexical --json -- 耗尽 | grep -q '\"project\": *\"$zh_project\"'"

# Secrets: the private note and the key are nowhere in the database's files (the session
# itself was imported: its command is there).
check "the secrets session was imported (its tool use is stored)" \
  test "$(sql "$db" "SELECT COUNT(*) FROM tool_uses WHERE tool_input LIKE '%cat deploy.env%'")" -ge 1
check "the text inside <private> is in no database file" \
  bash -c "! grep -rqa 'Tr0ub4dor-staging-77' '$data'"
check "the API key the tool printed is in no database file" \
  bash -c "! grep -rqa 'sk-ant-api03-Zq7XkP2mVb9LwR4tYs8NcD1fGh6JuE3oIa5' '$data'"

# A real session with cmem's hooks now starts with the imported memory in its context.
check "claude -p with cmem's hooks: the session-start context sent to the model lists the imported work" \
  session cmem-observe-edit "$shop" "$kit/settings.cmem.json" '{"expect_in_request": ["refresh_window", "MAX_RETRIES"]}'

settle
before=$(sql "$db" "SELECT (SELECT COUNT(*) FROM user_prompts) || '/' || (SELECT COUNT(*) FROM tool_uses) || '/' || (SELECT COUNT(*) FROM observations)")
cmem import claude-code >"$out/import2.txt" 2>&1
sed 's/^/  import again: /' "$out/import2.txt"
after=$(sql "$db" "SELECT (SELECT COUNT(*) FROM user_prompts) || '/' || (SELECT COUNT(*) FROM tool_uses) || '/' || (SELECT COUNT(*) FROM observations)")
echo "  prompts/tool uses/observations: $before before, $after after"
check "a second import adds nothing (it reads only the hooked session's new transcript)" test "$before" = "$after"
check "the second import found the hooked session already in memory" grep -q 'already in memory' "$out/import2.txt"
check "the hooked session is there once: no prompt or tool use twice" \
  test "$(sql "$db" "SELECT (SELECT COUNT(*) - COUNT(DISTINCT content_session_id || prompt_id) FROM user_prompts) + (SELECT COUNT(*) - COUNT(DISTINCT content_session_id || tool_use_id) FROM tool_uses)")" = 0
cmem import claude-code >"$out/import3.txt" 2>&1
check "a third import reads nothing" grep -q 'read 0 of 5' "$out/import3.txt"
check "no errors in cmem's log" bash -c "! grep -q ERROR '$data/logs/cmem.log' 2>/dev/null"
echo "$pass passed, $fail failed (logs: $out)"
[ "$fail" -eq 0 ]
