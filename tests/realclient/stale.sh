#!/usr/bin/env bash
# Real-client check for "stale memory says so" (issue 29): a real Claude Code session (headless,
# against the kit's local API stub) edits a file with cmem's hooks; the file is then changed
# outside any session; the next session's injected index must mark the observation's row with
# the changed-file glyph (and name it in the legend), and `cmem show <id>` must say the file
# changed since it was observed. Then the file is deleted: `cmem show` says so.
#
#   tests/realclient/stale.sh [path/to/cmem]     (default: target/debug/cmem, built if missing)
set -euo pipefail
. "$(dirname "$0")/common.sh" "${1:-}" cmem-realclient-stale
scenarios=$here/scenarios

chain
show() { (cd "$REUSE_WORKDIR" && CMEM_DATA_DIR=$REUSE_DATA_DIR "$CMEM_BIN" show "$1"); }

# --- 1. The session reads and edits src/db/pool.rs.
check "claude -p session: read and edit src/db/pool.rs" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$scenarios/cmem-stale-edit.json" "$out/edit" >"$out/edit.log" 2>&1
id=$(sql "$db" "SELECT id FROM observations WHERE files_modified LIKE '%src/db/pool.rs%' ORDER BY id DESC LIMIT 1")
echo "  observation ${id:-none}: $(sql "$db" "SELECT title FROM observations WHERE id = '${id:-0}'")"
check "an observation names src/db/pool.rs as modified" test -n "$id"
check "it recorded what it saw of the file: the git blob id of the edited file" python3 - "$db" "${id:-0}" "$REUSE_WORKDIR" <<'PY'
import hashlib, sqlite3, sys
db, oid, work = sys.argv[1:4]
row = sqlite3.connect(db).execute(
    "SELECT root, size, hash FROM observation_files WHERE observation_id = ? AND path = 'src/db/pool.rs'", (oid,)).fetchone()
data = open(f"{work}/src/db/pool.rs", "rb").read()
blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
print("  recorded:", row, "expected hash", blob)
sys.exit(0 if row and row[1] == len(data) and row[2] == blob and b"= 30;" in data else 1)
PY
show "${id:-0}" >"$out/show-before.txt" 2>&1 || true
check "cmem show says nothing changed before the file is touched" \
  bash -c "! grep -q 'since this was observed' '$out/show-before.txt'"

# --- 2. The file changes outside any session; the next session starts.
sed -i 's/= 30;/= 50;/' "$REUSE_WORKDIR/src/db/pool.rs"
check "second session runs" \
  "$kit/run_claude_session.sh" "$kit/settings.cmem.json" "$kit/scenarios/cmem-basic-capture.json" "$out/next" >"$out/next.log" 2>&1
context_of "$out/next" >"$out/context2.txt" || true
check "the next session's index marks the row with the changed-file glyph and names it in the legend" \
  python3 - "$out/context2.txt" "${id:-0}" <<'PY'
import sys
text, oid = open(sys.argv[1]).read(), sys.argv[2]
rows = [l for l in text.splitlines() if l.startswith(oid + " ")]
legend = [l for l in text.splitlines() if l.startswith("Legend: ")]
print("  index row:", rows[0] if rows else None)
print("  legend:", legend[0] if legend else None)
sys.exit(0 if rows and "\u25b3" in rows[0] and legend and "\u25b3file-changed" in legend[0] else 1)
PY
show "${id:-0}" >"$out/show-after.txt" 2>&1 || true
sed -n '1,4p' "$out/show-after.txt" | sed 's/^/  show: /'
check "cmem show says src/db/pool.rs changed since this was observed" \
  grep -q '^src/db/pool.rs changed since this was observed$' "$out/show-after.txt"

# --- 3. Deleted since.
rm "$REUSE_WORKDIR/src/db/pool.rs"
show "${id:-0}" >"$out/show-deleted.txt" 2>&1 || true
check "cmem show says src/db/pool.rs deleted since this was observed" \
  grep -q '^src/db/pool.rs deleted since this was observed$' "$out/show-deleted.txt"

check "every cmem hook exited 0 with one line of JSON" hooks_answered "$out"
check "no errors in cmem's log" \
  bash -c "! grep -q ERROR '$REUSE_DATA_DIR/logs/cmem.log' 2>/dev/null"

echo "$pass passed, $fail failed (logs: $out)"
[ "$fail" -eq 0 ]
