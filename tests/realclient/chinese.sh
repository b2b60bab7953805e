#!/usr/bin/env bash
# Real-client check of search in Chinese: a real Claude Code session (headless, against the
# kit's local API stub) written in Chinese, among 300 synthetic English observations of other
# projects, must be found by a word from inside the user's unspaced prompt and by an English
# description of the work, once the multilingual model has embedded the records.
#
#   tests/realclient/chinese.sh [path/to/cmem]     (default: target/debug/cmem, built if missing)
set -euo pipefail
. "$(dirname "$0")/common.sh" "${1:-}" cmem-realclient-chinese

export REUSE_WORKDIR=$out/zh/work REUSE_DATA_DIR=$out/zh/cmem-data
mkdir -p "$REUSE_WORKDIR" "$REUSE_DATA_DIR"
db=$REUSE_DATA_DIR/cmem.db
cmem() { CMEM_DATA_DIR=$REUSE_DATA_DIR "$CMEM_BIN" "$@"; }

check "300 synthetic observations of other projects as distractors" \
  cmem dev generate --observations 300 --wide --db "$db"
check "claude -p session in Chinese: read src/pool.py, raise POOL_SIZE, fix the error branch, run the tests" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$here/scenarios/cmem-chinese-pool.json" "$out/zh/run" >"$out/zh.log" 2>&1
project=$(sql "$db" "SELECT project FROM sessions WHERE content_session_id NOT LIKE 'synth%' ORDER BY id DESC LIMIT 1")
echo "  the session's project: $project; its observations:"
sql "$db" "SELECT '    #' || id || ' ' || title FROM observations WHERE project = '$project'"

# The Stop hook starts the background embedding; this waits for it (or does it) until every
# record has its vector.
waiting() { sql "$db" "SELECT (SELECT count(*) FROM observations) + (SELECT count(*) FROM session_summaries) + (SELECT count(*) FROM user_prompts) - (SELECT count(*) FROM record_vectors)"; }
for _ in $(seq 150); do
  [ "$(waiting)" = 0 ] && break
  cmem model backfill >/dev/null 2>&1 || true
  sleep 2
done
check "every record has its vector" test "$(waiting)" = 0

# found QUERY [--lexical]: one of the three best rows across every project is the session's.
found() {
  local query=$1; shift
  cmem search --all-projects --json -n 3 "$@" -- "$query" >"$out/search.json" || true
  python3 - "$out/search.json" "$project" "$query" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1])) if open(sys.argv[1]).read().strip() else []
print(f"  {sys.argv[3]!r}:")
for r in rows:
    print(f"    {r['id']} {r['kind']:<11} {r['project']:<10} {r['title'][:90]}")
sys.exit(0 if any(r["project"] == sys.argv[2] for r in rows) else 1)
PY
}
check "a word from inside the prompt (耗尽), by words alone" found 耗尽 --lexical
check "a two-character word from inside the prompt (归还)" found 归还
check "a Chinese question about it (为什么下单接口会 502？)" found "为什么下单接口会 502？"
check "an English description: the checkout endpoint returned 502 at peak hours because the database connection pool ran out" \
  found "the checkout endpoint returned 502 at peak hours because the database connection pool ran out"
# Not yet met, printed so the log shows where it stands (issue 28: paraphrases across
# languages): a description sharing no word with the session loses to English records that
# share "order" and "failing".
if found "orders failing under heavy traffic" >/dev/null; then
  echo "NOTE a paraphrase sharing no word with the session now finds it: make it a check"
else
  echo "KNOWN GAP a paraphrase sharing no word (orders failing under heavy traffic) does not find it in the best 3"
fi
check "no errors in cmem's log" \
  bash -c "! grep -q ERROR '$REUSE_DATA_DIR/logs/cmem.log' 2>/dev/null"
echo "$pass passed, $fail failed (logs: $out)"
[ "$fail" -eq 0 ]
