#!/usr/bin/env python3
"""Whole-process benchmarks of cmem's hooks (stdlib only; figures go in the README).

    scripts/bench.py post-tool-use [--runs N] [--tool-uses N] [--payload-kib N] [--host H] [--bin PATH]
    scripts/bench.py session-start [--runs N] [--sizes 1000,10000,100000] [--host H] [--bin PATH]
    scripts/bench.py stop [--runs N] [--turn-tool-uses 6|200] [--bin PATH]
    scripts/bench.py mcp [--runs N] [--bin PATH]   (handshake round trip; mem_search step 1 at 100k)
    scripts/bench.py tui [--runs N] [--keys N] [--bin PATH]
    scripts/bench.py pre-tool-use [--runs N] [--bin PATH]
    scripts/bench.py outline [--runs N] [--bin PATH]
    scripts/bench.py sync-hooks [--runs N] [--observations N] [--bin PATH]   (hooks while a sync pulls)
    scripts/bench.py import [--runs N] [--history-tool-uses N] [--bin PATH]   (`cmem import claude-code`)

The binary is the one scripts/install.sh builds (or --bin PATH), copied to a temp dir the way
`cargo install` copies it; --evicted drops that copy from the page cache first (see
place_like_install). Each run is one real `cmem hook …` process spawned with posix_spawn, stdin
from a file, timed from spawn to exit. The database is a real file in a temp dir, pre-filled to the stated size.
The spawn overhead of this harness is measured on /bin/true and printed next to the figures.
"""
import argparse
import hashlib
import json
import os
import pathlib
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time

REPO = pathlib.Path(__file__).resolve().parent.parent


def build_release():
    """The binary scripts/install.sh installs (statically linked on Linux with glibc)."""
    out = subprocess.run([str(REPO / "scripts" / "install.sh"), "--build-only"], cwd=REPO,
                         check=True, stdout=subprocess.PIPE, text=True).stdout
    return pathlib.Path(out.strip().splitlines()[-1])


def linking(binary):
    """'statically linked' when the ELF file has no program interpreter (PT_INTERP)."""
    import struct
    with open(binary, "rb") as f:
        head = f.read(64)
        if head[:4] != b"\x7fELF" or head[4] != 2:
            return "not a 64-bit ELF file"
        phoff, = struct.unpack_from("<Q", head, 32)
        phentsize, phnum = struct.unpack_from("<HH", head, 54)
        f.seek(phoff)
        table = f.read(phentsize * phnum)
    types = [struct.unpack_from("<I", table, i * phentsize)[0] for i in range(phnum)]
    return "dynamically linked" if 3 in types else "statically linked"


def place_like_install(built, evicted):
    """Copies the binary to a temp dir, as `cargo install` copies it to ~/.cargo/bin.

    Where the binary's pages came from changes every hook by up to a millisecond on this VM: a
    freshly written copy sits in the page cache in large folios, while a binary the kernel had
    to read back through exec's page faults (after a reboot, or after it was evicted) sits in
    small ones, and mapping and unmapping those costs more. `--evicted` measures that second
    state: the copy is dropped from the page cache, and the warm-up runs read it back."""
    import atexit
    import shutil
    home = tempfile.mkdtemp(prefix="cmem-bench-bin-")
    atexit.register(shutil.rmtree, home, ignore_errors=True)
    target = pathlib.Path(home) / "cmem"
    shutil.copy2(built, target)
    if evicted:
        if not hasattr(os, "posix_fadvise"):
            sys.exit("--evicted needs posix_fadvise (Linux)")
        fd = os.open(target, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return target


def spawn_timed(argv, stdin_path, env):
    fa = [
        (os.POSIX_SPAWN_OPEN, 0, str(stdin_path), os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0),
    ]
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=fa)
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{argv} exited with {status}")
    return elapsed * 1000.0


def summary(label, samples):
    s = sorted(samples)
    p90 = s[int(len(s) * 0.9) - 1]
    print(f"{label:<44} median {statistics.median(s):6.2f} ms   p90 {p90:6.2f} ms   "
          f"min {s[0]:6.2f} ms   (n={len(s)})")


def seed_tool_uses(db, n, payload_kib):
    con = sqlite3.connect(db)
    blob = json.dumps({"stdout": "x" * (payload_kib * 1024)})
    con.executemany(
        "INSERT INTO tool_uses (tool_use_id, content_session_id, session_id, project, tool_name,"
        " tool_input, tool_response, content_hash, created_at_epoch)"
        " VALUES (?, 'seed', 1, 'bench', 'Bash', '{\"command\":\"ls\"}', ?, ?, ?)",
        [(f"seed-{i}", blob, f"{i:016x}", 1_700_000_000_000 + i) for i in range(n)],
    )
    con.commit()
    con.close()


def seed_file_states(db, work):
    """Gives every observation the file states a live observer records, over real files under
    `work`, when the binary's schema has them (older binaries: returns None and does nothing),
    so session start looks at real files. Every 20th file is then changed in place, same size:
    the stat sees the time move and the hash decides. Returns (files, changed)."""
    con = sqlite3.connect(db)
    if not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'observation_files'").fetchone():
        con.close()
        return None
    states, rows = {}, []
    for oid, read, modified in con.execute("SELECT id, files_read, files_modified FROM observations"):
        for path in dict.fromkeys(json.loads(modified or "[]") + json.loads(read or "[]")):
            if path.startswith("/") or ".." in path:
                continue
            if path not in states:
                f = work / path
                f.parent.mkdir(parents=True, exist_ok=True)
                if f.exists():  # a file the caller laid out stays as it is
                    data = f.read_bytes()
                else:
                    data = f"// {path}\n".encode() * 40
                    f.write_bytes(data)
                blob = hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()
                states[path] = (len(data), f.stat().st_mtime_ns, blob)
            rows.append((oid, path, str(work), *states[path]))
    con.executemany("INSERT OR REPLACE INTO observation_files (observation_id, path, root, size, mtime_ns, hash)"
                    " VALUES (?, ?, ?, ?, ?, ?)", rows)
    con.commit()
    con.close()
    changed = sorted(states)[::20]
    for path in changed:
        f = work / path
        f.write_bytes(f.read_bytes().upper())
    return len(states), len(changed)


def bench_home(prefix, project):
    """A throw-away home for one benchmark: (tmp, data dir, project dir, env with CMEM_* kept)."""
    tmp = pathlib.Path(tempfile.mkdtemp(prefix=prefix))
    data, work = tmp / "data", tmp / project
    work.mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k.startswith("CMEM_")}
    env.update({"PATH": os.environ.get("PATH", ""), "HOME": str(tmp), "CMEM_DATA_DIR": str(data)})
    return tmp, data, work, env


# Each host's name for the events, and where its session-start answer holds the context.
HOST_POST_TOOL_USE = {"claude": "post-tool-use", "codex": "PostToolUse", "gemini": "AfterTool",
                      "cursor": "postToolUse", "copilot": "postToolUse"}
HOST_SESSION_START = {"claude": "session-start", "codex": "SessionStart", "gemini": "SessionStart",
                      "cursor": "sessionStart", "copilot": "sessionStart"}


def host_tool_payload(host, i, work, content, rollout):
    """A tool call's PostToolUse payload in the host's documented shape (a file read; Codex,
    which has no Read tool, reads it with a shell command)."""
    path = str(work / "src/lib.rs")
    if host == "codex":
        return {"session_id": "bench", "turn_id": "t1", "cwd": str(work), "hook_event_name": "PostToolUse",
                "model": "gpt-5.5", "transcript_path": str(rollout), "tool_name": "Bash",
                "tool_use_id": f"call_bench_{i}", "tool_input": {"command": "cat src/lib.rs"}, "tool_response": content}
    if host == "gemini":
        return {"session_id": "bench", "cwd": str(work), "hook_event_name": "AfterTool",
                "timestamp": f"2026-12-05T10:00:{i % 60:02d}.{i:03d}Z", "tool_name": "read_file",
                "tool_input": {"file_path": "src/lib.rs"}, "tool_response": {"llmContent": content, "returnDisplay": ""}}
    if host == "cursor":
        return {"conversation_id": "bench", "generation_id": "g1", "hook_event_name": "postToolUse",
                "workspace_roots": [str(work)], "tool_name": "Read", "tool_input": {"path": path},
                "tool_output": json.dumps({"content": content}), "tool_use_id": f"toolu_bench_{i}"}
    if host == "copilot":
        return {"sessionId": "bench", "timestamp": 1796486400000 + i, "cwd": str(work), "toolName": "view",
                "toolArgs": json.dumps({"path": path}), "toolResult": {"resultType": "success", "textResultForLlm": content}}
    return {"session_id": "bench", "cwd": str(work), "hook_event_name": "PostToolUse",
            "tool_name": "Read", "tool_use_id": f"toolu_bench_{i}", "tool_input": {"file_path": path},
            "tool_response": {"type": "text", "file": {"filePath": path, "content": content}}}


def host_start_payload(host, session, work):
    if host == "cursor":
        return {"conversation_id": session, "session_id": session, "hook_event_name": "sessionStart",
                "workspace_roots": [str(work)]}
    if host == "copilot":
        return {"sessionId": session, "timestamp": 1796486400000, "cwd": str(work), "source": "new"}
    return {"session_id": session, "cwd": str(work), "hook_event_name": "SessionStart", "source": "startup"}


def host_context(host, answer):
    if host == "cursor":
        return answer.get("additional_context", "")
    if host == "copilot":
        return answer.get("additionalContext", "")
    return answer["hookSpecificOutput"]["additionalContext"]


def bench_post_tool_use(args, cmem):
    tmp, data, work, env = bench_home("cmem-bench-", "work")
    first = tmp / "first.json"
    first.write_text(json.dumps({"session_id": "bench", "cwd": str(work), "prompt": "benchmark"}))
    spawn_timed([str(cmem), "hook", "user-prompt-submit"], first, env)
    seed_tool_uses(data / "cmem.db", args.tool_uses, args.payload_kib)

    payloads = []
    content = ("fn line_of_code() { let x = 42; }\n" * (args.payload_kib * 1024 // 34 + 1))[: args.payload_kib * 1024]
    rollout = tmp / "rollout.jsonl"
    if args.host == "codex":  # the Codex adapter reads each shell call's exit code from it
        rollout.write_text("".join(json.dumps({"timestamp": "2026-12-05T10:00:00.000Z", "type": "event_msg", "payload": {
            "type": "item_completed", "item": {"type": "CommandExecution", "id": f"call_bench_{i}", "status": "completed",
                                               "exit_code": 0, "aggregated_output": content[:400]}}}) + "\n"
                                   for i in range(args.runs)))
    for i in range(args.runs):
        p = tmp / f"p{i}.json"
        p.write_text(json.dumps(host_tool_payload(args.host, i, work, content, rollout)))
        payloads.append(p)

    argv = [str(cmem), "hook"] + (["--host", args.host] if args.host != "claude" else []) + [HOST_POST_TOOL_USE[args.host]]
    baseline = [spawn_timed(["/bin/true"], payloads[0], env) for _ in range(50)]
    for p in payloads[:10]:  # warm the page cache and the WAL
        spawn_timed(argv, p, env)
    samples = [spawn_timed(argv, p, env) for p in payloads[10:]]
    con = sqlite3.connect(data / "cmem.db")
    rows = con.execute("SELECT COUNT(*) FROM tool_uses").fetchone()[0]
    expected = args.tool_uses + len(payloads)
    if rows != expected:
        sys.exit(f"expected {expected} tool_uses rows after the runs, found {rows}")
    kib = len(payloads[0].read_bytes()) / 1024
    print(f"cmem hook post-tool-use (--host {args.host}): {kib:.1f} KiB payload, DB with {args.tool_uses:,} tool uses, "
          f"{os.cpu_count()} cores")
    summary("cmem hook post-tool-use", samples)
    summary("harness spawn overhead (/bin/true)", baseline)


def bench_session_start(args, cmem):
    print(f"cmem hook session-start (--host {args.host}): one project holding all observations, {os.cpu_count()} cores")
    for n in args.sizes:
        tmp, data, work, env = bench_home("cmem-bench-ss-", "acme-api")
        subprocess.run([str(cmem), "dev", "generate", "--observations", str(n), "--projects", "acme-api",
                        "--days", "365"], env=env, check=True, stdout=subprocess.DEVNULL)
        seeded = seed_file_states(data / "cmem.db", work)
        print("  file states: " + ("none (this binary records none)" if seeded is None else
                                    f"{seeded[0]:,} files on disk, {seeded[1]:,} changed since (the stale check runs)"))
        # A session each run: Copilot's adapter injects the memory once per session.
        starts = []
        for i in range(args.runs + 11):
            payload = tmp / f"start{i}.json"
            payload.write_text(json.dumps(host_start_payload(args.host, f"bench{i}", work)))
            starts.append(payload)
        argv = [str(cmem), "hook"] + (["--host", args.host] if args.host != "claude" else []) + [HOST_SESSION_START[args.host]]
        for p in starts[:10]:
            spawn_timed(argv, p, env)
        samples = [spawn_timed(argv, p, env) for p in starts[10:-1]]
        out = subprocess.run(argv, stdin=starts[-1].open("rb"), env=env, capture_output=True, check=True).stdout
        ctx = host_context(args.host, json.loads(out))
        rows = sum(1 for line in ctx.splitlines() if line.split(" ", 1)[0].isdigit())
        if rows == 0:
            sys.exit("session-start injected no observation rows")
        if seeded and seeded[1] and "\u25b3" not in ctx:
            sys.exit("session-start marked no row whose file changed")
        summary(f"session-start, {n:>7,} observations", samples)
    baseline = [spawn_timed(["/bin/true"], payload, env) for _ in range(50)]
    summary("harness spawn overhead (/bin/true)", baseline)


def turn_payloads(session, work, source_path, source, tool_uses=6):
    """The tool events of one realistic turn: read a 400-line Rust file, a failing test run,
    an edit of one function in that file, a passing run, a search, a look-around command; past
    6 tool uses, a sweep goes on over more files (read one, rename in it, run its tests)."""
    base = {"session_id": session, "cwd": str(work), "prompt_id": f"{session}-p"}
    old, new = "fn parse_all(", "fn parse_every("
    events = [
        ("user-prompt-submit", {"prompt": "rename parse_all and make the tests pass"}),
        ("post-tool-use", {"tool_name": "Read", "tool_input": {"file_path": str(source_path)},
                           "tool_response": {"type": "text", "file": {"filePath": str(source_path), "content": source,
                                                                       "numLines": source.count("\n"), "startLine": 1,
                                                                       "totalLines": source.count("\n")}}}),
        ("post-tool-use-failure", {"tool_name": "Bash", "tool_input": {"command": "cargo test observe::"},
                                   "error": "Exit code 101\ntest observe::event::tests::relative_paths ... FAILED\n\ntest result: FAILED. 3 passed; 1 failed"}),
        ("post-tool-use", {"tool_name": "Edit",
                           "tool_input": {"file_path": str(source_path), "old_string": old, "new_string": new},
                           "tool_response": {"filePath": str(source_path), "oldString": old, "newString": new,
                                             "originalFile": source, "structuredPatch": [
                                                 {"oldStart": 1, "oldLines": 1, "newStart": 1, "newLines": 1,
                                                  "lines": [f"-{old}", f"+{new}"]}]}}),
        ("post-tool-use", {"tool_name": "Bash", "tool_input": {"command": "cargo test observe::"},
                           "tool_response": {"stdout": "test result: ok. 4 passed; 0 failed", "stderr": "",
                                             "interrupted": False, "isImage": False}}),
        ("post-tool-use", {"tool_name": "Grep", "tool_input": {"pattern": "parse_all", "path": str(work)},
                           "tool_response": {"mode": "files_with_matches", "filenames": ["src/a.rs", "src/b.rs"],
                                             "numFiles": 2}}),
        ("post-tool-use", {"tool_name": "Bash", "tool_input": {"command": "git status --short"},
                           "tool_response": {"stdout": " M src/event.rs", "stderr": "", "interrupted": False}}),
    ]
    k = 0
    while len(events) - 1 < tool_uses:
        path = str(work / "src" / f"mod{k}.rs")
        text = f"use crate::event::parse_all;\n\npub fn load_{k}(s: &str) -> usize {{\n    parse_all(s).len()\n}}\n"
        step = [
            ("post-tool-use", {"tool_name": "Read", "tool_input": {"file_path": path},
                               "tool_response": {"type": "text", "file": {"filePath": path, "content": text,
                                                                           "numLines": 5, "startLine": 1,
                                                                           "totalLines": 5}}}),
            ("post-tool-use", {"tool_name": "Edit",
                               "tool_input": {"file_path": path, "old_string": "parse_all", "new_string": "parse_every",
                                              "replace_all": True},
                               "tool_response": {"filePath": path, "oldString": "parse_all", "newString": "parse_every",
                                                 "originalFile": text, "replaceAll": True, "structuredPatch": [
                                                     {"oldStart": 1, "oldLines": 4, "newStart": 1, "newLines": 4,
                                                      "lines": ["-use crate::event::parse_all;", "+use crate::event::parse_every;",
                                                                " ", f" pub fn load_{k}(s: &str) -> usize {{",
                                                                "-    parse_all(s).len()", "+    parse_every(s).len()"]}]}}),
            ("post-tool-use", {"tool_name": "Bash", "tool_input": {"command": f"cargo test mod{k}::"},
                               "tool_response": {"stdout": "test result: ok. 2 passed; 0 failed", "stderr": "",
                                                 "interrupted": False, "isImage": False}}),
        ]
        events.extend(step[: tool_uses - (len(events) - 1)])
        k += 1
    out = []
    for i, (event, extra) in enumerate(events):
        p = dict(base, **extra)
        p["tool_use_id"] = f"toolu_{session}_{i}"
        out.append((event, p))
    return out


def bench_stop(args, cmem):
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="cmem-bench-stop-"))
    data, work = tmp / "data", tmp / "acme-api"
    (work / "src").mkdir(parents=True)
    source = (REPO / "src" / "observe" / "event.rs").read_text()
    source_path = work / "src" / "event.rs"
    source_path.write_text(source)
    env = {k: v for k, v in os.environ.items() if k.startswith("CMEM_")}
    env.update({"PATH": os.environ.get("PATH", ""), "HOME": str(tmp), "CMEM_DATA_DIR": str(data)})
    subprocess.run([str(cmem), "dev", "generate", "--observations", "10000", "--projects", "acme-api"],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    baseline = []
    samples = {"on": [], "off": []}
    for i in range(args.runs + 10):
        for mode in ("on", "off"):
            session = f"bench-{mode}-{i}"
            run_env = dict(env, CMEM_OBSERVER_RULES="true" if mode == "on" else "false")
            for event, payload in turn_payloads(session, work, source_path, source, args.turn_tool_uses):
                f = tmp / "payload.json"
                f.write_text(json.dumps(payload))
                spawn_timed([str(cmem), "hook", event], f, run_env)
            stop = tmp / "stop.json"
            stop.write_text(json.dumps({"session_id": session, "cwd": str(work), "prompt_id": f"{session}-p",
                                        "last_assistant_message": "Renamed. Next steps: update the docs."}))
            ms = spawn_timed([str(cmem), "hook", "stop"], stop, run_env)
            if i >= 10:  # the first runs warm the page cache
                samples[mode].append(ms)
    con = sqlite3.connect(data / "cmem.db")
    observed = con.execute("SELECT COUNT(*) FROM user_prompts WHERE content_session_id LIKE 'bench-on-%'"
                           " AND observed_at_epoch IS NOT NULL").fetchone()[0]
    if observed != args.runs + 10:
        sys.exit(f"expected {args.runs + 10} observed turns, found {observed}")
    titles = [r[0] for r in con.execute("SELECT title FROM observations o JOIN sessions s ON s.id = o.session_id"
                                         " WHERE s.content_session_id = 'bench-on-10' ORDER BY o.id")]
    baseline = [spawn_timed(["/bin/true"], stop, env) for _ in range(50)]
    print(f"cmem hook stop: a turn of {args.turn_tool_uses} tool uses (400-line Rust file read and edited"
          f"{', then a sweep over more files' if args.turn_tool_uses > 6 else ''}), "
          f"DB with 10,000 observations, {os.cpu_count()} cores")
    print("  observations of one turn:", "; ".join(titles))
    summary("stop, rule-based observer on", samples["on"])
    summary("stop, observer off (CMEM_OBSERVER_RULES=false)", samples["off"])
    on, off = statistics.median(samples["on"]), statistics.median(samples["off"])
    print(f"{'observer cost per turn (difference of medians)':<44} {on - off:6.2f} ms")


def bench_mcp(args, cmem):
    tmp, data, work, env = bench_home("cmem-bench-mcp-", "acme-api")
    subprocess.run([str(cmem), "dev", "generate", "--observations", "100000", "--projects", "acme-api",
                    "--days", "365"], env=env, check=True, stdout=subprocess.DEVNULL)
    script = tmp / "handshake.jsonl"
    script.write_text("\n".join(json.dumps(m) for m in [
        {"jsonrpc": "2.0", "id": 0, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    ]) + "\n")
    argv = [str(cmem), "mcp"]
    os.chdir(work)
    for _ in range(10):
        spawn_timed(argv, script, env)
    samples = [spawn_timed(argv, script, env) for _ in range(args.runs)]
    print(f"cmem mcp: process start → initialize → tools/list → EOF → exit, {os.cpu_count()} cores")
    summary("initialize + tools/list round trip", samples)
    baseline = [spawn_timed(["/bin/true"], script, env) for _ in range(50)]
    summary("harness spawn overhead (/bin/true)", baseline)
    out = subprocess.run([str(cmem), "dev", "bench-search", "--db", str(data / "cmem.db"), "--project", "acme-api",
                          "--runs", "300"], env=env, check=True, capture_output=True, text=True)
    print(out.stdout.strip())


def bench_tui(args, cmem):
    """`cmem tui` on a 100,000-observation database in a real pseudo-terminal (140x40).

    Start to first full frame: from spawn to the frame that shows the index's rows (the
    binary writes a timestamp to CMEM_TUI_TRACE when it has drawn it). Key to frame: from the
    input thread reading a key to that key's frame being flushed, while `j` is pressed every
    20 ms (and PgDn now and then, which loads further pages). Peak RSS from wait4."""
    import pty
    import fcntl
    import struct
    import termios
    import threading
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="cmem-bench-tui-"))
    data = tmp / "data"
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp), "CMEM_DATA_DIR": str(data),
           "TERM": "xterm-256color", "XDG_CONFIG_HOME": str(tmp / "config")}
    subprocess.run([str(cmem), "dev", "generate", "--observations", "100000", "--db", str(data / "cmem.db"),
                    "--projects", "cmem", "--days", "365"], env=env, check=True, stdout=subprocess.DEVNULL)
    starts, keys, rss = [], [], []
    for run in range(args.runs):
        trace = tmp / f"trace{run}.txt"
        env_run = dict(env, CMEM_TUI_TRACE=str(trace))
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(tmp)
            os.execve(str(cmem), [str(cmem), "tui", "--project", "cmem"], env_run)
        t0 = time.time()
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 140, 0, 0))
        stop = threading.Event()

        def drain():
            while not stop.is_set():
                try:
                    if not os.read(fd, 65536):
                        return
                except OSError:
                    return
        threading.Thread(target=drain, daemon=True).start()
        for _ in range(500):
            if trace.exists() and "first_full_frame" in trace.read_text():
                break
            time.sleep(0.005)
        first = [l for l in trace.read_text().splitlines() if l.startswith("first_full_frame")]
        if not first:
            sys.exit("no first frame traced")
        starts.append(int(first[0].split()[1]) / 1000.0 - t0 * 1000.0)
        time.sleep(0.2)
        for i in range(args.keys):
            os.write(fd, b"\x1b[6~" if i % 25 == 24 else b"j")
            time.sleep(0.02)
        time.sleep(0.3)
        os.write(fd, b"q")
        _, status, usage = os.wait4(pid, 0)
        stop.set()
        os.close(fd)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"cmem tui exited with {status}")
        rss.append(usage.ru_maxrss / 1024.0)
        keys += [int(l.split()[1]) / 1000.0 for l in trace.read_text().splitlines() if l.startswith("key_to_frame_us")]
    summary("tui start to first full frame, 100,000 obs", starts)
    summary(f"tui key press to frame while scrolling", keys)
    print(f"{'tui peak RSS':<44} max {max(rss):6.1f} MB   median {statistics.median(rss):6.1f} MB   (n={len(rss)})")


def rust_source(lines):
    """A realistic Rust file of about `lines` lines: doc comments, structs, impls, functions."""
    out, i = ["//! Generated for the cmem benchmarks.", "", "use std::collections::HashMap;", ""], 0
    while len(out) < lines:
        out += [
            f"/// Settings of component {i}.",
            "#[derive(Debug, Clone)]",
            f"pub struct Component{i} {{",
            "    pub name: String,",
            "    values: HashMap<String, u64>,",
            "}",
            "",
            f"impl Component{i} {{",
            f"    /// Creates component {i}.",
            "    pub fn new(name: &str) -> Self {",
            "        Self { name: name.to_string(), values: HashMap::new() }",
            "    }",
            "",
            "    /// Adds `n` to the value under `key`.",
            "    pub fn add(&mut self, key: &str, n: u64) -> u64 {",
            "        let v = self.values.entry(key.to_string()).or_insert(0);",
            "        *v += n;",
            "        *v",
            "    }",
            "}",
            "",
            f"pub fn helper_{i}(x: u64) -> u64 {{",
            "    x.wrapping_mul(31).wrapping_add(7)",
            "}",
            "",
        ]
        i += 1
    return "\n".join(out[:lines]) + "\n"


def bench_pre_tool_use(args, cmem):
    """The read gate deciding on a 1 MiB source file with history (a deny), whole process."""
    tmp, data, work, env = bench_home("cmem-bench-gate-", "acme-api")
    (work / "src").mkdir()
    subprocess.run([str(cmem), "dev", "generate", "--observations", "10000", "--projects", "acme-api",
                    "--days", "365"], env=env, check=True, stdout=subprocess.DEVNULL)
    big = work / "src" / "big.rs"
    text = rust_source(40_000)
    while len(text) < 1024 * 1024:
        text += text
    big.write_text(text[: 1024 * 1024])
    old = time.time() - 3600
    os.utime(big, (old, old))
    # Through `cmem sql`: the observations' full-text triggers need cmem's tokenizer.
    now = int(time.time() * 1000)
    rows = ",\n".join(
        f"('acme-api', 'change', 'Edited src/big.rs ({i})', "
        f"'{json.dumps(['src/big.rs'] if i % 2 else [])}', '{json.dumps([] if i % 2 else ['src/big.rs'])}', "
        f"{now - i * 60_000}, 'bench')" for i in range(30))
    subprocess.run([str(cmem), "sql", "INSERT INTO observations (project, type, title, files_read, files_modified,"
                    " created_at_epoch, source) VALUES\n" + rows], env=env, check=True)
    payload = tmp / "read.json"
    payload.write_text(json.dumps({"session_id": "bench", "cwd": str(work), "hook_event_name": "PreToolUse",
                                   "tool_name": "Read", "tool_use_id": "toolu_bench",
                                   "tool_input": {"file_path": str(big)}}))
    argv = [str(cmem), "hook", "pre-tool-use"]
    out = subprocess.run(argv, stdin=payload.open("rb"), env=env, capture_output=True, check=True).stdout
    if json.loads(out).get("hookSpecificOutput", {}).get("permissionDecision") != "deny":
        sys.exit(f"pre-tool-use did not deny the whole-file Read: {out[:300]!r}")
    for _ in range(10):
        spawn_timed(argv, payload, env)
    samples = [spawn_timed(argv, payload, env) for _ in range(args.runs)]
    print(f"cmem hook pre-tool-use: Read of a {big.stat().st_size / 1048576:.1f} MiB .rs file with 30 observations, "
          f"DB with 10,030 observations, {os.cpu_count()} cores")
    summary("pre-tool-use (read gate denies)", samples)
    baseline = [spawn_timed(["/bin/true"], payload, env) for _ in range(50)]
    summary("harness spawn overhead (/bin/true)", baseline)


def bench_outline(args, cmem):
    """`cmem outline` on a 10,000-line Rust file, whole process."""
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="cmem-bench-outline-"))
    src = tmp / "big.rs"
    src.write_text(rust_source(10_000))
    lines = src.read_text().count("\n")
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp), "CMEM_DATA_DIR": str(tmp / "data")}
    argv = [str(cmem), "outline", "big.rs"]
    out = subprocess.run(argv, cwd=tmp, env=env, capture_output=True, check=True).stdout.decode()
    # The full form, or (since 2,000 symbols pass 32 KiB) the folded one: names are exact in both.
    if "helper_0" not in out:
        sys.exit(f"unexpected outline: {out[:300]!r}")
    null = tmp / "null"
    null.write_text("")

    def timed():
        t0 = time.perf_counter()
        subprocess.run(argv, cwd=tmp, env=env, stdout=subprocess.DEVNULL, check=True)
        return (time.perf_counter() - t0) * 1000.0

    for _ in range(5):
        timed()
    samples = [timed() for _ in range(args.runs)]
    print(f"cmem outline: {lines:,}-line Rust file ({src.stat().st_size / 1024:.0f} KiB), {os.cpu_count()} cores")
    summary("cmem outline, 10,000-line .rs", samples)
    baseline = []
    for _ in range(30):
        t0 = time.perf_counter()
        subprocess.run(["/bin/true"], stdout=subprocess.DEVNULL, check=True)
        baseline.append((time.perf_counter() - t0) * 1000.0)
    summary("harness spawn overhead (/bin/true)", baseline)


def bench_search(args, cmem):
    """`cmem search` as a person runs it: a new process per query, vectors already stored."""
    print(f"cmem search: wide synthetic memory, one process per query, {os.cpu_count()} cores")
    queries = ["why does the pool leak connections", "token refresh window", "invoice tax rounding"]
    for n in args.sizes:
        tmp, data, work, env = bench_home("cmem-bench-search-", "acme-api")
        subprocess.run([str(cmem), "dev", "generate", "--observations", str(n), "--wide"],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        empty = tmp / "empty"
        empty.write_text("")
        for mode in ([], ["--lexical"]):
            argv = [str(cmem), "search", "--all-projects", "-n", "10", *mode]
            # The first search gives every record its vector; the runs after it only read.
            subprocess.run(argv + [queries[0]], env=env, check=True, stdout=subprocess.DEVNULL)
            for q in queries:
                spawn_timed(argv + [q], empty, env)
            samples = [spawn_timed(argv + [queries[i % len(queries)]], empty, env) for i in range(args.runs)]
            label = "lexical" if mode else "hybrid"
            summary(f"search {label}, {n:>7,} observations", samples)
        shutil.rmtree(tmp, ignore_errors=True)


def percentile(samples, q):
    s = sorted(samples)
    return s[max(0, -(-len(s) * q // 100) - 1)]


def spread(label, samples):
    print(f"{label:<44} p50 {percentile(samples, 50):6.2f}   p90 {percentile(samples, 90):6.2f}   "
          f"p99 {percentile(samples, 99):6.2f}   max {max(samples):7.2f} ms   (n={len(samples)})")


class Cluster:
    """A throw-away PostgreSQL cluster as tests/sync/main.rs starts one: initdb and pg_ctl in a temp
    dir, Unix socket only, run as the unprivileged user cmemtest when this runs as root."""

    def __init__(self):
        import glob
        bins = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
        initdb = bins[-1] if bins else shutil.which("initdb")
        if not initdb:
            sys.exit("sync-hooks needs PostgreSQL's server binaries (initdb, pg_ctl): apt-get install postgresql")
        self.bin = pathlib.Path(initdb).parent
        # Its own temp dir: the server's user must reach it, and mkdtemp dirs are private.
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="cmem-pg-"))
        self.prefix, user = [], subprocess.run(["id", "-un"], capture_output=True, text=True).stdout.strip()
        if os.geteuid() == 0:
            if subprocess.run(["id", "-u", "cmemtest"], capture_output=True).returncode != 0:
                subprocess.run(["useradd", "--system", "--no-create-home", "cmemtest"], check=True)
            subprocess.run(["chown", "cmemtest", str(self.dir)], check=True)
            self.prefix, user = ["runuser", "-u", "cmemtest", "--"], "cmemtest"
        self.run("initdb", "-D", str(self.dir / "data"), "-U", user, "--auth=trust", "--locale=C", "-E", "UTF8",
                 "--no-sync")
        self.run("pg_ctl", "-D", str(self.dir / "data"), "-l", str(self.dir / "log"), "-w", "-o",
                 f"-k {self.dir} -p 5432 -c listen_addresses=''", "start")
        self.url = f"host={self.dir} port=5432 user={user} dbname=postgres sslmode=disable"

    def run(self, tool, *args):
        subprocess.run(self.prefix + [str(self.bin / tool), *args], check=True, stdout=subprocess.DEVNULL)

    def stop(self):
        subprocess.run(self.prefix + [str(self.bin / "pg_ctl"), "-D", str(self.dir / "data"), "-m", "immediate",
                                      "stop"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        shutil.rmtree(self.dir, ignore_errors=True)


SYNC_TABLES = ["sessions", "user_prompts", "observations", "session_summaries", "tool_uses", "work_state_entries"]


def shared_rows(db, projects):
    """Rows of `projects` in a data dir's database (a prompt goes by its session's project)."""
    con = sqlite3.connect(db)
    marks = ",".join("?" * len(projects))
    n = 0
    for t in SYNC_TABLES:
        if t == "user_prompts":
            sql = f"SELECT COUNT(*) FROM user_prompts p JOIN sessions s ON s.id = p.session_id WHERE s.project IN ({marks})"
        else:
            sql = f"SELECT COUNT(*) FROM {t} WHERE project IN ({marks})"
        n += con.execute(sql, projects).fetchone()[0]
    con.close()
    return n


def bench_sync_hooks(args, cmem):
    """Hooks on a device while `cmem sync` pulls another device's rows into it.

    A throw-away PostgreSQL cluster; device A generates about 20,000 rows (acme-api and
    orbit-web) and pushes them. Each round a new device B, holding memory of its own (project
    cmem, not shared), runs its first `cmem sync`: it pulls A's rows while this loop runs a turn's
    real hooks after another (user-prompt-submit, post-tool-use with a 400-line file, an edit, a
    failing and a passing test run, a search, then stop with the observer) against B's data dir,
    20 ms apart, timing each from spawn to exit. The same loop runs once before the sync for
    comparison. Last, A forgets a record and scrubs a string, and B pulls that tombstone and
    revision while the hooks run."""
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="cmem-bench-sync-hooks-"))
    import atexit
    atexit.register(shutil.rmtree, tmp, ignore_errors=True)
    pg = Cluster()
    atexit.register(pg.stop)
    shares = "acme-api,orbit-web"
    env = {"PATH": os.environ.get("PATH", ""), "XDG_CONFIG_HOME": str(tmp / "config"),
           "CMEM_SYNC_URL": pg.url, "CMEM_SYNC_PROJECTS": shares, "CMEM_SYNC_RAW_TOOL_IO": "true"}

    def device(name):
        d = tmp / name
        (d / "home").mkdir(parents=True)
        return d, dict(env, HOME=str(d / "home"), CMEM_DATA_DIR=str(d / "data"))

    def timed_run(argv, run_env):
        t0 = time.perf_counter()
        out = subprocess.run(argv, env=run_env, check=True, capture_output=True, text=True).stdout
        return (time.perf_counter() - t0) * 1000.0, " ".join(out.split())

    a_dir, a_env = device("a")
    subprocess.run([str(cmem), "dev", "generate", "--observations", str(args.observations), "--seed", "1",
                    "--projects", shares], env=a_env, check=True, stdout=subprocess.DEVNULL)
    rows = shared_rows(a_dir / "data" / "cmem.db", shares.split(","))
    subprocess.run([str(cmem), "sync", "init"], env=a_env, check=True, stdout=subprocess.DEVNULL)
    push_ms, push_out = timed_run([str(cmem), "sync"], a_env)
    again_ms, again_out = timed_run([str(cmem), "sync"], a_env)

    source = (REPO / "src" / "observe" / "event.rs").read_text()
    turn = [0]

    def hook_loop(b_dir, b_env, until):
        """Runs turns of real hooks against B until `until()` says stop: (ms, event) of each."""
        work = b_dir / "bench-local"
        (work / "src").mkdir(parents=True, exist_ok=True)
        source_path = work / "src" / "event.rs"
        source_path.write_text(source)
        samples = []
        while True:
            turn[0] += 1
            session = f"bench-{turn[0]}"
            events = turn_payloads(session, work, source_path, source)
            events.append(("stop", {"session_id": session, "cwd": str(work), "prompt_id": f"{session}-p",
                                    "last_assistant_message": "Renamed. Next steps: update the docs."}))
            for event, payload in events:
                f = b_dir / "payload.json"
                f.write_text(json.dumps(payload))
                samples.append((spawn_timed([str(cmem), "hook", event], f, b_env), event))
                time.sleep(args.gap_ms / 1000.0)
                if until(len(samples)):
                    return samples

    def during_sync(b_dir, b_env):
        """B's `cmem sync` with the hooks running: (hook ms, sync ms, its output)."""
        t0 = time.perf_counter()
        sync = subprocess.Popen([str(cmem), "sync"], env=b_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        samples = hook_loop(b_dir, b_env, lambda n: sync.poll() is not None)
        out, err = sync.communicate()
        took = (time.perf_counter() - t0) * 1000.0
        if sync.returncode != 0:
            sys.exit(f"cmem sync on B failed: {err}")
        return samples, took, " ".join(out.split())

    alone, during, pulls = [], [], []
    ms = lambda timed: [t for t, _ in timed]
    slowest = lambda timed, n: ", ".join(f"{e} {t:.1f}" for t, e in sorted(timed)[-n:])
    for r in range(args.runs):
        b_dir, b_env = device(f"b{r}")
        subprocess.run([str(cmem), "dev", "generate", "--observations", str(args.local_observations), "--seed",
                        str(10 + r), "--projects", "cmem"], env=b_env, check=True, stdout=subprocess.DEVNULL)
        samples, took, out = during_sync(b_dir, b_env)
        got = shared_rows(b_dir / "data" / "cmem.db", shares.split(","))
        if got != rows:
            sys.exit(f"B holds {got} of A's {rows} rows after its sync: {out}")
        during += samples
        pulls.append(took)
        # The same hooks on the same database once the sync is done (its outbox triggers on).
        alone += hook_loop(b_dir, b_env, lambda n: n >= 40)
    print(f"cmem sync on the same VM as its PostgreSQL {pg.bin.parent.name} (Unix socket), {os.cpu_count()} cores; "
          f"A: {args.observations:,} observations = {rows:,} rows")
    print(f"{'A: first sync, pushes ' + format(rows, ',') + ' rows':<44} {push_ms / 1000:6.2f} s    ({push_out})")
    print(f"{'A: a sync with nothing to move':<44} {again_ms:6.1f} ms   ({again_out})")
    print(f"{'B: first sync, pulls them (with the hooks)':<44} median {statistics.median(pulls) / 1000:6.2f} s   "
          f"max {max(pulls) / 1000:6.2f} s   (n={len(pulls)}; B holds {args.local_observations:,} observations of "
          f"its own)")
    spread("B's hooks after the sync (none running)", ms(alone))
    spread("B's hooks while B's sync pulls", ms(during))
    if args.verbose:
        print("  slowest during the pulls:", slowest(during, 6))

    # The same pull with no hooks running, on one more new device.
    c_dir, c_env = device("c")
    subprocess.run([str(cmem), "dev", "generate", "--observations", str(args.local_observations), "--seed", "9",
                    "--projects", "cmem"], env=c_env, check=True, stdout=subprocess.DEVNULL)
    alone_ms, _ = timed_run([str(cmem), "sync"], c_env)
    print(f"{'a new device pulls them, no hooks running':<44} {alone_ms / 1000:6.2f} s")

    # A forgets a record and scrubs a string, a few times: B's next pull deletes and rewrites rows.
    samples, took = [], []
    for i in range(3):
        con = sqlite3.connect(a_dir / "data" / "cmem.db")
        oid = con.execute("SELECT id FROM observations ORDER BY id DESC LIMIT 1").fetchone()[0]
        word = con.execute("SELECT title FROM observations ORDER BY id LIMIT 1 OFFSET ?", (i,)).fetchone()[0]
        con.close()
        subprocess.run([str(cmem), "forget", str(oid)], env=a_env, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([str(cmem), "scrub", word], env=a_env, check=True, stdout=subprocess.DEVNULL)
        subprocess.run([str(cmem), "sync"], env=a_env, check=True, stdout=subprocess.DEVNULL)
        size = (b_dir / "data" / "cmem.db").stat().st_size / 1048576
        s, t, out = during_sync(b_dir, b_env)
        samples += s
        took.append(t)
    print(f"{f'B: pulls a forget and a scrub ({size:.0f} MB DB)':<44} median {statistics.median(took):6.1f} ms   "
          f"max {max(took):6.1f} ms   (n={len(took)}; the last: {out})")
    spread("B's hooks while it does", ms(samples))
    if args.verbose:
        print("  slowest:", slowest(samples, 4))


def history_lines(sid, cwd, turns, tools_per_turn, t0, rng):
    """One Claude Code transcript in the line shapes Claude Code 2.1.332 writes
    (tests/fixtures/transcripts): prompts, tool calls, results with toolUseResult, answers,
    and the bookkeeping lines an importer skips."""
    base = {"isSidechain": False, "userType": "external", "entrypoint": "cli", "cwd": cwd,
            "sessionId": sid, "version": "2.1.332", "gitBranch": "main"}
    t = [t0]

    def stamp():
        t[0] += rng.randint(200, 4000)
        return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t[0] / 1000)) + ".%03dZ" % (t[0] % 1000)

    def line(**kw):
        return json.dumps({**base, **kw, "timestamp": stamp()}, separators=(",", ":"))

    out = [json.dumps({"type": "queue-operation", "operation": "enqueue", "sessionId": sid, "timestamp": stamp()})]
    for n in range(turns):
        pid = f"{sid}-p{n}"
        out.append(line(type="user", promptId=pid, uuid=f"{pid}-u",
                        message={"role": "user", "content": f"Fix the retry bug {n} in src/mod{n % 7}.rs and run the tests"}))
        out.append(line(type="attachment", uuid=f"{pid}-a", attachment={"type": "date", "date": "2026-11-01"}))
        for k in range(tools_per_turn):
            tid = f"toolu_{sid}_{n}_{k}"
            path = f"{cwd}/src/mod{(n + k) % 7}.rs"
            body = "".join(f"pub fn f{i}(x: u32) -> u32 {{ x + {i} }}\n" for i in range(40))
            kind = k % 5
            if kind == 0:
                call, result = ("Read", {"file_path": path}), {"type": "text", "file": {
                    "filePath": path, "content": body, "numLines": 40, "startLine": 1, "totalLines": 40}}
                content, err = body, False
            elif kind == 1:
                old, new = f"x + {k}", f"x + {k + 1}"
                call = ("Edit", {"file_path": path, "old_string": old, "new_string": new, "replace_all": False})
                result = {"filePath": path, "oldString": old, "newString": new, "originalFile": body,
                          "structuredPatch": [{"oldStart": k + 1, "oldLines": 1, "newStart": k + 1, "newLines": 1,
                                               "lines": [f"-pub fn f{k}(x: u32) -> u32 {{ {old} }}",
                                                         f"+pub fn f{k}(x: u32) -> u32 {{ {new} }}"]}],
                          "userModified": False, "replaceAll": False}
                content, err = f"The file {path} has been updated successfully.", False
            elif kind == 2:
                call = ("Bash", {"command": f"cargo test mod{n % 7}", "description": "run the tests"})
                stdout = f"running 12 tests\ntest result: ok. 12 passed; 0 failed; finished in 0.{k}s"
                result = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
                content, err = stdout, False
            elif kind == 3:
                call = ("Grep", {"pattern": f"retry_{n}", "path": "src"})
                result = {"mode": "files_with_matches", "filenames": [path], "numFiles": 1}
                content, err = f"Found 1 file\n{path}", False
            else:
                call = ("Bash", {"command": "cargo build --release", "description": "build"})
                result, content, err = "Error: Exit code 101\nerror[E0308]: mismatched types", \
                    "Exit code 101\nerror[E0308]: mismatched types", True
            out.append(line(type="assistant", uuid=f"{tid}-c", message={
                "id": f"msg_{tid}", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
                "content": [{"type": "tool_use", "id": tid, "name": call[0], "input": call[1]}]}))
            block = {"tool_use_id": tid, "type": "tool_result", "content": content}
            if err:
                block["is_error"] = True
            out.append(line(type="user", promptId=pid, uuid=f"{tid}-r", toolUseResult=result,
                            message={"role": "user", "content": [block]}))
        out.append(line(type="assistant", uuid=f"{pid}-t", message={
            "id": f"msg_{pid}", "type": "message", "role": "assistant", "model": "claude-opus-5-5",
            "content": [{"type": "text", "text": f"Fixed the retry bug {n}; the tests pass."}]}))
        out.append(json.dumps({"type": "last-prompt", "lastPrompt": "Fix the retry bug", "sessionId": sid}))
    return "\n".join(out) + "\n"


def bench_import(args, cmem):
    """`cmem import claude-code` over a generated history of N tool uses (10 a turn, 10 turns a
    session, 20 projects), transcripts last written an hour ago."""
    import random
    import resource
    rng = random.Random(7)
    tmp, data, work, env = bench_home("cmem-bench-import-", "work")
    turns, per_turn = 10, 10
    sessions = max(1, args.history_tool_uses // (turns * per_turn))
    total_bytes = 0
    old = time.time() - 3600
    for s in range(sessions):
        project = tmp / "projects" / f"proj{s % 20}"
        project.mkdir(parents=True, exist_ok=True)
        folder = tmp / ".claude" / "projects" / f"-proj{s % 20}"
        folder.mkdir(parents=True, exist_ok=True)
        sid = f"{s:08d}-0000-4000-8000-000000000000"
        f = folder / f"{sid}.jsonl"
        text = history_lines(sid, str(project), turns, per_turn, 1_790_000_000_000 + s * 3_600_000, rng)
        f.write_text(text)
        os.utime(f, (old, old))
        total_bytes += len(text.encode())
    tool_uses = sessions * turns * per_turn
    print(f"history: {sessions:,} sessions, {sessions * turns:,} prompts, {tool_uses:,} tool uses, "
          f"{total_bytes / 2**20:.0f} MiB of transcripts in {tmp}")
    for run in range(args.runs):
        shutil.rmtree(data, ignore_errors=True)
        started = time.perf_counter()
        out = subprocess.run([str(cmem), "import", "claude-code"], env=env, cwd=work,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        secs = time.perf_counter() - started
        if out.returncode != 0:
            sys.exit(f"cmem import failed: {out.stderr}")
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        summary_line = next((l for l in out.stdout.splitlines() if l.startswith("imported")), "")
        print(f"run {run + 1}: {secs:.1f} s, {tool_uses / secs:,.0f} tool uses/s, peak RSS {rss:.0f} MiB "
              f"(largest child so far); {summary_line}")
    shutil.rmtree(tmp, ignore_errors=True)


def main():
    if sys.argv[1:2] == ["--check-static"]:  # for .ci/run
        how = linking(sys.argv[2])
        sys.exit(0 if how == "statically linked" else f"{sys.argv[2]} is {how}, not statically linked")
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bench", choices=["post-tool-use", "session-start", "pre-tool-use", "outline", "mcp", "tui", "stop",
                                      "search", "sync-hooks", "import"])
    ap.add_argument("--sizes", type=lambda s: [int(x) for x in s.split(",")], default=[1_000, 10_000, 100_000],
                    help="session-start, search: observation counts (comma-separated)")
    ap.add_argument("--runs", type=int, default=None)
    ap.add_argument("--tool-uses", type=int, default=10_000)
    ap.add_argument("--turn-tool-uses", type=int, default=6,
                    help="stop: tool uses in the observed turn (6: the realistic turn; 200: a long sweep)")
    ap.add_argument("--payload-kib", type=int, default=10)
    ap.add_argument("--host", default="claude", choices=sorted(HOST_POST_TOOL_USE),
                    help="post-tool-use, session-start: the agent whose payloads and answers are used")
    ap.add_argument("--history-tool-uses", type=int, default=100_000,
                    help="import: tool uses in the generated Claude Code history")
    ap.add_argument("--keys", type=int, default=200, help="tui: key presses per run")
    ap.add_argument("--observations", type=int, default=8_000,
                    help="sync-hooks: observations device A pushes (8,000: about 20,000 rows)")
    ap.add_argument("--local-observations", type=int, default=2_000,
                    help="sync-hooks: observations of device B's own, not shared")
    ap.add_argument("--gap-ms", type=float, default=20.0, help="sync-hooks: pause between two hooks")
    ap.add_argument("--verbose", action="store_true", help="sync-hooks: also name the slowest hooks")
    ap.add_argument("--evicted", action="store_true",
                    help="drop the binary from the page cache before the runs (see place_like_install)")
    ap.add_argument("--bin", type=pathlib.Path, help="cmem binary (default: the build of scripts/install.sh)")
    args = ap.parse_args()
    built = args.bin.resolve() if args.bin else build_release()
    cmem = place_like_install(built, args.evicted)
    state = ("dropped from the page cache first: read back by exec, as after a reboot"
             if args.evicted else "a fresh copy, as `cargo install` leaves it")
    print(f"binary: {built} ({linking(built)}); timed as {cmem} ({state})")
    benches = {
        # bench: (function, its default number of runs)
        "post-tool-use": (bench_post_tool_use, 310),
        "mcp": (bench_mcp, 200),
        "pre-tool-use": (bench_pre_tool_use, 310),
        "outline": (bench_outline, 50),
        "session-start": (bench_session_start, 200),
        "stop": (bench_stop, 200),
        "tui": (bench_tui, 10),
        "search": (bench_search, 30),
        "sync-hooks": (bench_sync_hooks, 5),
        "import": (bench_import, 1),
    }
    run, default_runs = benches[args.bench]
    if args.runs is None:
        args.runs = default_runs
    run(args, cmem)

if __name__ == "__main__":
    main()
