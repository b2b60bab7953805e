#!/usr/bin/env bash
# Real-client checks of issue 29 (one outcome, one memory, in any language): real Claude Code
# sessions (headless, against the kit's local API stub) with cmem's hooks.
#
#   tests/realclient/outcomes.sh [path/to/cmem]     (default: target/debug/cmem, built if missing)
#
# 1. One prompt renames fetch_user → load_user across 11 files, after a search, with a test run
#    after: at most 2 observations for the turn, one naming the rename and the file count.
# 2. A session written in Chinese (the pool fix): every title at most 100 display columns (a
#    CJK character counts two) naming POOL_SIZE; a why after ` — ` is at most the prompt's first
#    clause; no doubled punctuation (`。.`, `；;`) in anything written for it.
set -euo pipefail
. "$(dirname "$0")/common.sh" "${1:-}" cmem-realclient-outcomes

export REUSE_WORKDIR=$out/work REUSE_DATA_DIR=$out/cmem-data
mkdir -p "$REUSE_WORKDIR" "$REUSE_DATA_DIR"
db=$REUSE_DATA_DIR/cmem.db

# --- 1. A rename over 11 files.
check "claude -p session: search fetch_user, rename it in 11 files, run the tests" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$here/scenarios/cmem-outcome-rename.json" "$out/rename" >"$out/rename.log" 2>&1
session=$(sql "$db" "SELECT id FROM sessions ORDER BY id DESC LIMIT 1")
echo "  its observations:"
sql "$db" "SELECT '    #' || id || ' ' || type || ' ' || title FROM observations WHERE session_id = '$session'"
check "the 11 edits were captured" \
  test "$(sql "$db" "SELECT COUNT(*) FROM tool_uses WHERE session_id = '$session' AND tool_name = 'Edit'")" = 11
check "at most 2 observations for the turn" \
  test "$(sql "$db" "SELECT COUNT(*) FROM observations WHERE session_id = '$session'")" -le 2
check "one observation names the rename and the file count" \
  test "$(sql "$db" "SELECT COUNT(*) FROM observations WHERE session_id = '$session' AND title LIKE '%fetch_user → load_user%' AND title LIKE '%11 files%'")" = 1
check "its files_modified lists all 11 files" \
  test "$(sql "$db" "SELECT json_array_length(files_modified) FROM observations WHERE session_id = '$session' AND title LIKE '%11 files%'")" = 11
check "the test run folded into it (no row of its own)" \
  test "$(sql "$db" "SELECT COUNT(*) FROM observations WHERE session_id = '$session' AND title LIKE '%passes%' AND title NOT LIKE '%load_user%'")" = 0

# --- 2. A Chinese session.
check "claude -p session in Chinese: read src/pool.py, raise POOL_SIZE, fix the error branch, run the tests" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$here/scenarios/cmem-chinese-pool.json" "$out/zh" >"$out/zh.log" 2>&1
session=$(sql "$db" "SELECT id FROM sessions ORDER BY id DESC LIMIT 1")
sql "$db" "SELECT title FROM observations WHERE session_id = '$session'" >"$out/zh-titles.txt"
echo "  its titles:"; sed 's/^/    /' "$out/zh-titles.txt"
columns() { python3 - "$1" <<'PY'
import sys, unicodedata
worst = 0
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    width = sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)
    worst = max(worst, width)
print(worst)
PY
}
echo "  widest title: $(columns "$out/zh-titles.txt") columns"
check "every title is at most 100 display columns" test "$(columns "$out/zh-titles.txt")" -le 100
check "a title names the change (POOL_SIZE)" grep -q 'POOL_SIZE' "$out/zh-titles.txt"
check "a why in a title is at most the prompt's first clause" python3 - "$out/zh-titles.txt" <<'PY'
import sys
first = "高峰期下单接口经常 502"
for line in open(sys.argv[1], encoding="utf-8"):
    if " — " in line:
        why = line.split(" — ", 1)[1].split("; ")[0].strip()
        if not first.startswith(why.rstrip("…").strip()):
            print("    why is more than the first clause:", why); sys.exit(1)
PY
sql "$db" "SELECT coalesce(title,'') || char(10) || coalesce(subtitle,'') || char(10) || coalesce(narrative,'') || char(10) || coalesce(facts,'') FROM observations WHERE session_id = '$session'
           UNION ALL SELECT coalesce(request,'') || char(10) || coalesce(investigated,'') || char(10) || coalesce(learned,'') || char(10) || coalesce(completed,'') || char(10) || coalesce(next_steps,'') FROM session_summaries WHERE session_id = '$session'" >"$out/zh-all.txt"
check "no doubled punctuation anywhere (。. ；; ！! ？?)" \
  bash -c "! grep -qE '。\\.|；;|！!|？\\?|，,' '$out/zh-all.txt'"
check "no errors in cmem's log" \
  bash -c "! grep -q ERROR '$REUSE_DATA_DIR/logs/cmem.log' 2>/dev/null"
echo "$pass passed, $fail failed (logs: $out)"
[ "$fail" -eq 0 ]
