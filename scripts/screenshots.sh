#!/usr/bin/env bash
# Makes screenshots/*.png of the terminal browser on the demo data set: the real App drawn
# into a buffer at a pinned clock (cmem dev screenshots → SVG), then rsvg-convert → PNG.
# Deterministic and offline; shows only demo data. Installs rsvg-convert and the font if needed.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v rsvg-convert >/dev/null || ! fc-list 2>/dev/null | grep -qi "DejaVu Sans Mono"; then
  apt-get update -qq && apt-get install -y -qq librsvg2-bin fonts-dejavu-core >/dev/null
fi
cargo build --quiet  # the dev build: the same pictures, and the one `cargo test` already made
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
target/debug/cmem dev screenshots --out "$TMP" >/dev/null
mkdir -p screenshots
for svg in "$TMP"/*.svg; do
  png="screenshots/$(basename "${svg%.svg}").png"
  rsvg-convert -o "$png" "$svg"
  echo "$png"
done
