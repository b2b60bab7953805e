#!/usr/bin/env bash
# Times `cmem sync` between two data dirs ("machines" A and B) on one PostgreSQL server:
# the first sync of N observations (A pushes, B pulls) and an incremental sync of ~100 new rows.
#
#   scripts/bench_sync.sh [CMEM_BINARY] [N]        (default: target/release/cmem, 100000)
#
# The server is $CMEM_SYNC_URL when set (its `cmem` schema is dropped first!), else a
# throw-away cluster (initdb + pg_ctl in a temp dir, Unix socket only; as user cmemtest when
# run as root), removed afterwards. Prints one line per step; nothing is asserted.
set -euo pipefail
bin=$(realpath "${1:-target/release/cmem}")
n=${2:-100000}
work=$(mktemp -d /tmp/cmem-bench-sync.XXXXXX)
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
pgbin=${pgbin:-$(dirname "$(command -v initdb)")}
as=()
cleanup() {
    if [ -n "${own_cluster:-}" ]; then "${as[@]}" "$pgbin/pg_ctl" -D "$work/pg" -m immediate stop >/dev/null 2>&1 || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
if [ -z "${CMEM_SYNC_URL:-}" ]; then
    user=$(id -un)
    if [ "$(id -u)" = 0 ]; then
        id -u cmemtest >/dev/null 2>&1 || useradd --system --no-create-home cmemtest
        chown cmemtest "$work"; as=(runuser -u cmemtest --); user=cmemtest
    fi
    "${as[@]}" "$pgbin/initdb" -D "$work/pg" -U "$user" --auth=trust --locale=C -E UTF8 --no-sync >/dev/null
    "${as[@]}" "$pgbin/pg_ctl" -D "$work/pg" -l "$work/pg.log" -w \
        -o "-k $work -p 5432 -c listen_addresses=''" start >/dev/null
    own_cluster=1
    export CMEM_SYNC_URL="host=$work port=5432 user=$user dbname=postgres sslmode=disable"
else
    "$pgbin/psql" "$CMEM_SYNC_URL" -qc 'DROP SCHEMA IF EXISTS cmem CASCADE' >/dev/null
fi
export CMEM_SYNC_PROJECTS='*' CMEM_SYNC_RAW_TOOL_IO=true XDG_CONFIG_HOME=$work/config
a() { CMEM_DATA_DIR=$work/a "$bin" "$@"; }
b() { CMEM_DATA_DIR=$work/b "$bin" "$@"; }
timed() { # label, command…
    local label=$1; shift
    local t0 t1 out
    t0=$(date +%s%N); out=$("$@"); t1=$(date +%s%N)
    printf '%-34s %8.2f s   %s\n' "$label" "$(( (t1 - t0) / 1000000 ))e-3" "$(echo "$out" | tr '\n' ' ')"
}
a dev generate --observations "$n" --seed 1 >/dev/null
b dev generate --observations 8 --seed 2 >/dev/null
rows=$(sqlite3 "$work/a/cmem.db" "SELECT (SELECT COUNT(*) FROM sessions)+(SELECT COUNT(*) FROM user_prompts)+(SELECT COUNT(*) FROM observations)+(SELECT COUNT(*) FROM session_summaries)+(SELECT COUNT(*) FROM tool_uses)+(SELECT COUNT(*) FROM work_state_entries)" 2>/dev/null || echo '?')
echo "A: $n observations ($rows rows with prompts, summaries, tool uses, sessions, work state); binary $bin"
a sync init >/dev/null
timed "first sync, A pushes" a sync
timed "first sync, B pulls" b sync
a sync >/dev/null   # A takes B's few rows, so the next step times only the new ones
a dev generate --observations 28 --seed 3 >/dev/null
timed "incremental, A pushes ~100 rows" a sync
timed "incremental, B pulls ~100 rows" b sync
timed "nothing new (A)" a sync
