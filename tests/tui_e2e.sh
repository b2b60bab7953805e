#!/usr/bin/env bash
# End-to-end: the real `cmem demo` in a real terminal (tmux), driven with real keys.
# Drills index → timeline → detail → raw and back, filters with /, searches with s, resizes,
# opens help, quits; checks the pane exited 0 and the terminal came back (no alternate
# screen, no mouse reporting, cursor shown, same stty settings as before).
# Usage: tests/tui_e2e.sh [path/to/cmem]   (needs tmux; installs it with apt-get if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN="$(realpath "${1:-target/debug/cmem}")"
command -v tmux >/dev/null || { apt-get update -qq && apt-get install -y -qq tmux >/dev/null; }
TMP="$(mktemp -d)"
S="tmux -L cmem-e2e-$$ -f /dev/null"
trap '$S kill-server 2>/dev/null || true; rm -rf "$TMP"' EXIT
fail() { echo "FAIL: $*"; echo "--- screen:"; $S capture-pane -t t -p || true; exit 1; }
wait_for() {
  for _ in $(seq 100); do
    $S capture-pane -t t -p | grep -q -- "$1" && return 0
    sleep 0.1
  done
  fail "timed out waiting for: $1"
}
# The wrapper records the terminal settings before and after, and keeps the pane open a
# moment so its state can be read.
cat > "$TMP/run.sh" <<SH
stty -g > "$TMP/stty.before"
"$BIN" demo
echo \$? > "$TMP/status"
stty -g > "$TMP/stty.after"
echo "cmem exited"
sleep 30
SH
$S new-session -d -s t -x 100 -y 30 -e TERM=xterm-256color -e HOME="$TMP" \
  -e XDG_CACHE_HOME="$TMP/cache" -e XDG_CONFIG_HOME="$TMP/config" -e CMEM_DATA_DIR="$TMP/data" \
  -e CMEM_CONTEXT_TIMEZONE=UTC "bash $TMP/run.sh"
wait_for "acme-api · "
wait_for " INDEX "
[ "$($S display -p -t t '#{alternate_on}')" = 1 ] || fail "no alternate screen"
$S send-keys -t t j j Enter;          wait_for " TIMELINE "
$S send-keys -t t Enter;              wait_for " DETAIL "
$S send-keys -t t : ; $S send-keys -t t -l "T40"; $S send-keys -t t Enter
wait_for " RAW I/O "
wait_for "Tool use T40"
$S send-keys -t t Escape;             wait_for " DETAIL "
$S send-keys -t t Escape;             wait_for " TIMELINE "
$S send-keys -t t BSpace;             wait_for " INDEX "
$S send-keys -t t /; $S send-keys -t t -l "pool"
wait_for "/pool ("
$S send-keys -t t Escape Escape
$S send-keys -t t s; $S send-keys -t t -l "token refresh"; $S send-keys -t t Enter
wait_for " SEARCH "
wait_for "Search: token refresh"
$S resize-window -t t -x 60 -y 18;    sleep 0.3; wait_for " SEARCH "
$S resize-window -t t -x 140 -y 40;   sleep 0.3; wait_for "Preview\|#"
$S send-keys -t t ?;                  wait_for "? or Esc closes"
$S send-keys -t t Escape
$S send-keys -t t q;                  wait_for "cmem exited"
status="$(cat "$TMP/status")"
[ "$status" = 0 ] || fail "cmem exited with $status"
[ "$($S display -p -t t '#{alternate_on}')" = 0 ] || fail "alternate screen left on"
[ "$($S display -p -t t '#{mouse_any_flag}#{mouse_button_flag}#{mouse_all_flag}')" = 000 ] || fail "mouse reporting left on"
[ "$($S display -p -t t '#{cursor_flag}')" = 1 ] || fail "cursor left hidden"
cmp -s "$TMP/stty.before" "$TMP/stty.after" || fail "terminal settings not restored"
echo "tui e2e: 1 passed, 0 failed"
