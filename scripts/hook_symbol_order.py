#!/usr/bin/env python3
"""Regenerates scripts/hook-symbols.txt: every function cmem's hooks run, for the linker.

scripts/install.sh hands the list to the linker (--symbol-ordering-file), which then places
those functions side by side instead of spread over 8 MB of code. A hook is a fresh process
each time and pays a page fault for every 64 KiB stretch of code it touches, so this saves
each hook 0.2-0.4 ms on the development VM (more when the binary was read back from disk).

How: a symbolized build with the install flags runs a realistic sequence of hooks under
valgrind's callgrind, and the names of the functions it saw are written in the order of first
appearance. Needs valgrind. Rerun it after changing the hook path or upgrading Rust or a
dependency: symbol names carry hashes, and names that no longer exist are ignored, so a stale
list costs speed, never correctness.

    scripts/hook_symbol_order.py
"""
import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
OUT = REPO / "scripts" / "hook-symbols.txt"


def build():
    host = next(l.split(": ", 1)[1] for l in subprocess.run(
        ["rustc", "-vV"], capture_output=True, text=True, check=True).stdout.splitlines()
        if l.startswith("host: "))
    # Symbol names carry a hash of the crate's metadata, which includes the profile but not the
    # rustflags: the profile must stay the one install.sh uses, and `-C strip=none` (a later
    # flag wins over the profile's strip) keeps the names in the binary for callgrind.
    env = {k: v for k, v in os.environ.items() if k not in ("RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS")}
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target") / "symbol-order"
    env["CARGO_TARGET_DIR"] = str(target)
    subprocess.run(["cargo", "build", "--release", "--locked", "--target", host, "--config",
                    f'target.{host}.rustflags=["-C","target-feature=+crt-static","-C","strip=none"]'],
                   cwd=REPO, env=env, check=True)
    return target / host / "release" / "cmem"


def hook_runs(tmp):
    """(event, payload) pairs of one realistic session, from its start to its end."""
    work = tmp / "acme-api"
    (work / "src").mkdir(parents=True)
    source = "fn line_of_code() { let x = 42; }\n" * 300
    (work / "src" / "lib.rs").write_text(source)
    base = {"session_id": "order", "cwd": str(work), "transcript_path": str(tmp / "t.jsonl")}
    read = {"tool_name": "Read", "tool_input": {"file_path": str(work / "src/lib.rs")},
            "tool_response": {"type": "text", "file": {"filePath": str(work / "src/lib.rs"),
                                                       "content": source}}}
    bash = {"tool_name": "Bash", "tool_input": {"command": "cargo test"},
            "tool_response": {"stdout": "test result: ok", "stderr": "", "interrupted": False}}
    return [
        ("session-start", {"hook_event_name": "SessionStart", "source": "startup"}),
        ("user-prompt-submit", {"prompt": "fix the failing parser test"}),
        ("pre-tool-use", {"tool_name": "Read", "tool_input": read["tool_input"]}),
        ("post-tool-use", dict(read, tool_use_id="toolu_1")),
        ("post-tool-use", dict(read, tool_use_id="toolu_1")),  # the duplicate path
        ("post-tool-use-failure", {"tool_name": "Bash", "tool_use_id": "toolu_2",
                                   "tool_input": {"command": "cargo test"}, "error": "Exit code 101"}),
        ("post-tool-use", dict(bash, tool_use_id="toolu_3")),
        ("stop", {"last_assistant_message": "Fixed."}),
        ("session-end", {"reason": "other"}),
    ], base


def main():
    if not shutil.which("valgrind"):
        sys.exit("valgrind is needed (apt install valgrind)")
    cmem = build()
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="cmem-symbol-order-"))
    # Under callgrind a hook runs ~50 times slower: move its deadlines out of the way, and
    # check below that none was reached (the trace would show the timeout path instead).
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp), "CMEM_DATA_DIR": str(tmp / "data"),
           "CMEM_TEST_HARD_DEADLINE_MS": "600000", "CMEM_HOOK_DEADLINE_MS": "1700"}
    subprocess.run([str(cmem), "dev", "generate", "--observations", "2000", "--projects", "acme-api"],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    runs, base = hook_runs(tmp)
    # What a live observer records of the generated rows' files, so the session start runs the
    # stale check (a stat per file, a hash of the changed ones) as it does in a real project.
    sys.path.insert(0, str(REPO / "scripts"))
    from bench import seed_file_states
    seed_file_states(tmp / "data" / "cmem.db", tmp / "acme-api")
    names, seen = [], set()
    for i, (event, extra) in enumerate(runs):
        payload = tmp / f"{i}.json"
        payload.write_text(json.dumps(dict(base, **extra)))
        out = tmp / f"{i}.callgrind"
        with payload.open("rb") as stdin:
            subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no",
                            f"--callgrind-out-file={out}", str(cmem), "hook", event],
                           stdin=stdin, env=env, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for line in out.read_text(errors="replace").splitlines():
            m = re.match(r"c?fn=\(\d+\) (.+)$", line)
            if m and not m.group(1).startswith("0x") and m.group(1) not in seen:
                seen.add(m.group(1))
                names.append(m.group(1))
    log = (tmp / "data" / "logs" / "cmem.log")
    if log.exists() and "deadline reached" in log.read_text(errors="replace"):
        sys.exit(f"a hook reached its deadline under callgrind; see {log}")
    shutil.rmtree(tmp)
    OUT.write_text("\n".join(names) + "\n")
    print(f"{len(names)} functions → {OUT.relative_to(REPO)}")


if __name__ == "__main__":
    main()
