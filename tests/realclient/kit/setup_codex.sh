#!/usr/bin/env bash
# Install the real Codex CLI into $REALCLIENT_HOME/codex (default ~/.cache/cmem-realclient/codex)
# from codex/package.json + codex/package-lock.json (pinned: @openai/codex 0.171.0; npm takes the
# platform binary, @openai/codex-linux-x64 = @openai/codex@0.171.0-linux-x64, as an optional
# dependency). Kept apart from setup.sh (the vendored kit's, unchanged) and from its node_modules.
# Idempotent like setup.sh: skipped when the pin files' sha256 matches the last successful install
# and the binary is there, so a second run takes well under a second. The native binary is linked
# as $REALCLIENT_HOME/codex/bin/codex (tests/realclient/codex.sh runs that). Needs node + npm and
# the npm registry on the first run only.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dir=$RC_HOME/codex
mkdir -p "$dir"
if command -v flock >/dev/null; then exec 9>"$dir/.setup.lock"; flock 9; fi
# The native binary itself, not bin/codex.js (a node launcher that only finds and execs it).
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) triple=x86_64-unknown-linux-musl pkg=codex-linux-x64 ;;
  Linux-aarch64) triple=aarch64-unknown-linux-musl pkg=codex-linux-arm64 ;;
  *) echo "codex: no platform package known here for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
bin=$dir/node_modules/@openai/$pkg/vendor/$triple/bin/codex
want=$(cat "$RC_DIR/codex/package.json" "$RC_DIR/codex/package-lock.json" | sha256sum | cut -c1-64)
if [ "$(cat "$dir/.stamp-npm" 2>/dev/null)" = "$want" ] && [ -x "$bin" ]; then
  echo "codex: up to date"
else
  echo "codex: installing into $dir"
  rm -f "$dir/.stamp-npm"
  install -m 0644 "$RC_DIR/codex/package.json" "$RC_DIR/codex/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --no-audit --no-fund --update-notifier=false --loglevel=error)
  [ -x "$bin" ] || { echo "codex: $bin missing after npm ci" >&2; exit 1; }
  echo "$want" >"$dir/.stamp-npm"
fi
mkdir -p "$dir/bin" && ln -sfn "$bin" "$dir/bin/codex"
pinned=$(sed -n 's/^ *"@openai\/codex": *"\([^"]*\)".*/\1/p' "$RC_DIR/codex/package.json")
got=$("$dir/bin/codex" --version 2>/dev/null | head -1)
[ "$got" = "codex-cli $pinned" ] || { echo "codex: $got installed, $pinned pinned" >&2; exit 1; }
echo "$got in $dir"
