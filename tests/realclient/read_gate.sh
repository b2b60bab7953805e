#!/usr/bin/env bash
# Real-client check of cmem's File Read Gate: real Claude Code sessions (headless, against the
# kit's local API stub) with cmem's hooks, sharing one project dir and one data dir.
#
#   tests/realclient/read_gate.sh [path/to/cmem]     (default: target/debug/cmem, built if missing)
#
#  1. the kit's cmem-read-gate scenario writes src/big.rs (48,600 bytes) and reads it: memory is
#     empty, so the Read goes through and cmem captures it;
#  2. an observation of that Read is stored (as the observer would), plus one of docs/guide.md;
#  3. the same whole-file Read is denied, and the reason reaches the model's next request;
#  4. a Read of it with offset/limit goes through, with the file's history as context;
#  5. a whole-file Read of the 40 KiB docs/guide.md goes through (markdown is never gated),
#     also with its history as context.
set -euo pipefail
. "$(dirname "$0")/common.sh" "${1:-}" cmem-read-gate
session() {  # session NAME SCENARIO: one Claude Code run; its report is in $out/NAME/report.txt
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$2" "$out/$1" >"$out/$1.log" 2>&1
}
read_result() {  # the Read call's line in a run's report
  grep -E '^  Read ' "$out/$1/report.txt" | head -1
}

export REUSE_WORKDIR=$out/work REUSE_DATA_DIR=$out/cmem-data
mkdir -p "$REUSE_WORKDIR/docs" "$REUSE_DATA_DIR"
python3 - "$REUSE_WORKDIR/docs/guide.md" <<'PY'
import sys
line = "- A note in the guide, long enough to make the file big. CMEM_GUIDE_MARKER\n"
text = "# Guide\n\n" + line * (40 * 1024 // len(line) + 1)
open(sys.argv[1], "w").write(text[: 40 * 1024])
PY
db=$REUSE_DATA_DIR/cmem.db

check "session 1 (kit scenario cmem-read-gate, empty memory) ran" session s1 "$kit/scenarios/cmem-read-gate.json"
check "  its whole-file Read of src/big.rs went through" bash -c "grep -q -- '-> ok' <<<\"$(read_result s1)\""
check "  cmem captured the Read" \
  test "$(sql "$db" "SELECT COUNT(*) FROM tool_uses WHERE tool_name = 'Read' AND tool_input LIKE '%src/big.rs%'")" = 1
check "  src/big.rs is 48,600 bytes" test "$(stat -c %s "$REUSE_WORKDIR/src/big.rs")" = 48600

# What the observer would write for that Read (until it lands, by hand), linked to the tool use;
# and a memory of the guide. Both are newer than the files. Written through `cmem sql`: the
# indexed tables' triggers need cmem's tokenizer, which a plain sqlite3 shell does not have.
CMEM_DATA_DIR=$REUSE_DATA_DIR "$CMEM_BIN" sql "INSERT INTO observations (session_id, project, type, title, files_read, created_at_epoch, source)
           SELECT session_id, project, 'discovery', 'Read src/big.rs: CMEM_READ_GATE_OBSERVATION, 600 filler constants',
                  '[\"src/big.rs\"]', created_at_epoch + 1, 'test' FROM tool_uses WHERE tool_name = 'Read';
           UPDATE tool_uses SET observation_id = last_insert_rowid() WHERE tool_name = 'Read';
           INSERT INTO observations (session_id, project, type, title, files_read, created_at_epoch, source)
           SELECT session_id, project, 'discovery', 'Read docs/guide.md: CMEM_GUIDE_OBSERVATION',
                  '[\"docs/guide.md\"]', created_at_epoch + 2, 'test' FROM tool_uses WHERE tool_name = 'Read';"

check "session 2 (whole-file Read of the known src/big.rs) ran and met its expectations" \
  session s2 "$here/scenarios/cmem-read-gate-known.json"
check "  the Read was denied by cmem's PreToolUse hook" \
  bash -c "grep -q 'ERROR PreToolUse:Read hook error' <<<\"$(read_result s2)\" || grep -q 'Full-file Read blocked by cmem' <<<\"$(read_result s2)\""
check "  the deny is listed in the result's permission_denials" \
  grep -q '"permission_denials": \[{' "$out/s2/report.txt"
check "session 3 (Read of src/big.rs with offset/limit) went through" \
  session s3 "$here/scenarios/cmem-read-gate-partial.json"
check "session 4 (whole-file Read of the 40 KiB docs/guide.md) went through" \
  session s4 "$here/scenarios/cmem-read-gate-markdown.json"
check "  docs/guide.md is 40 KiB" test "$(stat -c %s "$REUSE_WORKDIR/docs/guide.md")" = 40960
check "no errors in cmem's log" \
  bash -c "! grep -q ERROR '$REUSE_DATA_DIR/logs/cmem.log' 2>/dev/null"

echo "session 2 Read: $(read_result s2 | cut -c1-300)"
echo "$pass passed, $fail failed (logs: $out)"
[ "$fail" -eq 0 ]
