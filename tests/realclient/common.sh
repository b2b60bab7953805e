# Set-up shared by the real-client scripts; they source it with the cmem binary (empty: the
# debug build, built if missing), a name for their temp dir and, optionally, the kit's set-up
# script that installs the clients they run (default setup.sh: Claude Code, the Inspector, the
# MCP SDK; codex.sh runs setup_codex.sh):
#
#   . "$(dirname "$0")/common.sh" "${1:-}" cmem-read-gate
#
# Sets here, repo, kit, out, CMEM_BIN; installs the clients once (kit/setup.sh); defines
# check (counts PASS/FAIL in pass and fail), sql, context_of (a run's SessionStart context) and
# hooks_answered (every hook call recorded under DIR/*/hooks exited 0 with one line).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
kit=$here/kit
bin=${1:-$repo/target/debug/cmem}
[ -x "$bin" ] || (cd "$repo" && cargo build --quiet)
export CMEM_BIN=$(realpath "$bin")
# One line per step (what it installed or found up to date), so a CI log says what it used.
setup_status=0
setup_log=$("$kit/${3:-setup.sh}") || setup_status=$?
printf '%s\n' "$setup_log" | sed '/^[[:space:]]*$/d; s/^/real-client set-up: /'
[ "$setup_status" = 0 ] || { echo "real-client set-up failed (exit $setup_status)"; exit 1; }

out=$(mktemp -d "${TMPDIR:-/tmp}/$2.XXXXXX")
pass=0; fail=0
check() {  # check "description" command...
  local what=$1; shift
  if "$@"; then pass=$((pass+1)); echo "PASS $what"; else fail=$((fail+1)); echo "FAIL $what"; fi
}
sql() { sqlite3 -batch -noheader "$1" "$2"; }
# The SessionStart context the model of a run received (as the stub recorded the request).
context_of() { python3 - "$1/stub/bodies" <<'PY'
import json, pathlib, sys
for p in sorted(pathlib.Path(sys.argv[1]).glob("*.json")):
    body = json.loads(p.read_text())
    for m in body.get("messages", []):
        content = m.get("content")
        blocks = content if isinstance(content, list) else [{"type": "text", "text": content or ""}]
        for b in blocks:
            text = b.get("text", "") if isinstance(b, dict) else ""
            at = text.find("SessionStart hook additional context: ")
            if at >= 0:
                print(text[at + len("SessionStart hook additional context: "):])
                sys.exit(0)
sys.exit(1)
PY
}
# hooks_answered DIR: every cmem hook the runs under DIR recorded exited 0 with one line of JSON.
hooks_answered() { python3 - "$1" <<'PY'
import json, pathlib, sys
records = [json.loads(p.read_text()) for p in pathlib.Path(sys.argv[1]).glob("*/hooks/*.json")]
bad = [(r["label"], r.get("real_exit")) for r in records
       if r.get("real_exit") != 0 or r.get("real_stdout", "").count("\n") != 1]
print(f"  {len(records)} hook calls; bad: {bad}")
sys.exit(1 if bad or not records else 0)
PY
}
# chain: the sessions that follow share one work tree and one cmem data dir (REUSE_WORKDIR,
# REUSE_DATA_DIR, which run_claude_session.sh reuses); $db is that data dir's database.
chain() {
    export REUSE_WORKDIR=$out/chain/work REUSE_DATA_DIR=$out/chain/cmem-data
    mkdir -p "$REUSE_WORKDIR" "$REUSE_DATA_DIR"
    db=$REUSE_DATA_DIR/cmem.db
}
