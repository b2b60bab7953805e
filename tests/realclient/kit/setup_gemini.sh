#!/usr/bin/env bash
# Install the real Gemini CLI into $REALCLIENT_HOME/gemini (default ~/.cache/cmem-realclient/gemini)
# from gemini/package.json + gemini/package-lock.json (pinned: @google/gemini-cli 0.61.0, a single
# bundled JS package). Its optional native dependencies (@github/keytar for the OS keychain,
# node-pty for interactive shells) are left out: a headless run with an API key uses neither (shell
# commands fall back to child_process), and leaving them out means no native build on install.
# Idempotent like setup_codex.sh: skipped when the pin files' sha256 matches the last successful
# install and the bundle is there, so a second run takes well under a second. The entry point is
# linked as $REALCLIENT_HOME/gemini/bin/gemini (tests/realclient/gemini.sh runs it with node).
# Needs node >= 20 + npm, and the npm registry on the first run only.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
dir=$RC_HOME/gemini
mkdir -p "$dir"
if command -v flock >/dev/null; then exec 9>"$dir/.setup.lock"; flock 9; fi
entry=$dir/node_modules/@google/gemini-cli/bundle/gemini.js
want=$(cat "$RC_DIR/gemini/package.json" "$RC_DIR/gemini/package-lock.json" | sha256sum | cut -c1-64)
if [ "$(cat "$dir/.stamp-npm" 2>/dev/null)" = "$want" ] && [ -f "$entry" ]; then
  echo "gemini: up to date"
else
  echo "gemini: installing into $dir"
  rm -f "$dir/.stamp-npm"
  install -m 0644 "$RC_DIR/gemini/package.json" "$RC_DIR/gemini/package-lock.json" "$dir/"
  (cd "$dir" && npm ci --omit=optional --no-audit --no-fund --update-notifier=false --loglevel=error)
  [ -f "$entry" ] || { echo "gemini: $entry missing after npm ci" >&2; exit 1; }
  echo "$want" >"$dir/.stamp-npm"
fi
mkdir -p "$dir/bin" && ln -sfn "$entry" "$dir/bin/gemini"
pinned=$(sed -n 's/^ *"@google\/gemini-cli": *"\([^"]*\)".*/\1/p' "$RC_DIR/gemini/package.json")
# `gemini --version` starts the whole CLI (a second or more); the package's own version is enough.
got=$(node -p 'require(process.argv[1]).version' "$dir/node_modules/@google/gemini-cli/package.json")
[ "$got" = "$pinned" ] || { echo "gemini: $got installed, $pinned pinned" >&2; exit 1; }
echo "gemini-cli $got in $dir"
