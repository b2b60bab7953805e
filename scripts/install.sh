#!/usr/bin/env bash
# Builds and installs the cmem binary into ~/.cargo/bin (or --root DIR), the build the README's
# performance figures were measured on.
#
# On Linux with glibc the binary is linked statically (static-pie, so ASLR is kept). Every hook
# is a fresh process, and loading libc, libm and libgcc_s and binding their symbols costs each
# one about 1 ms, a fifth of a hook. On x86-64 the linker also lays out the functions hooks run
# next to each other (scripts/hook-symbols.txt). Elsewhere this is `cargo install --path .`.
#
#   scripts/install.sh [cargo install options, e.g. --root DIR]
#   scripts/install.sh --build-only     builds into target/ and prints the binary's path
set -euo pipefail
cd "$(dirname "$0")/.."

host=$(rustc -vV | sed -n 's/^host: //p')
# Either of these would make cargo ignore the rustflags below.
unset RUSTFLAGS CARGO_ENCODED_RUSTFLAGS
flags=(--locked)
binary=target/release/cmem
case "$host" in
*-linux-gnu*)
    rustflags='"-C","target-feature=+crt-static"'
    if [[ "$host" == x86_64-* ]]; then
        # rust-lld, the default linker here, places the functions the hooks run side by side
        # (scripts/hook_symbol_order.py explains and regenerates the list).
        order="$PWD/scripts/hook-symbols.txt"
        rustflags+=",\"-C\",\"link-arg=-Wl,--symbol-ordering-file=$order\",\"-C\",\"link-arg=-Wl,--no-warn-symbol-ordering\""
    fi
    # --target keeps the flags off build scripts and proc macros, which must stay dynamic.
    flags+=(--target "$host" --config "target.$host.rustflags=[$rustflags]")
    binary=target/$host/release/cmem
    ;;
esac

if [[ "${1:-}" == "--build-only" ]]; then
    cargo build --release "${flags[@]}" >&2
    echo "$PWD/$binary"
else
    cargo install --path . "${flags[@]}" "$@"
fi
