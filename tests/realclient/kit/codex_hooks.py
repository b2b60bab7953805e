#!/usr/bin/env python3
"""List, and trust, the hooks a real Codex CLI sees, through its own app-server, the way the
TUI's /hooks screen does ("Trust all and continue").

    python3 codex_hooks.py CODEX_BIN CWD list            # print hooks/list's entry for CWD
    python3 codex_hooks.py CODEX_BIN CWD trust HOOKS_JSON  # trust the hooks of that file, then list

Codex (0.171.0) runs a hook of a user's hooks.json or config.toml only when it is "trusted":
$CODEX_HOME/config.toml must hold, for each handler,

    [hooks.state."<abs path of hooks.json>:<event_snake_case>:<group index>:<handler index>"]
    trusted_hash = "sha256:<hex>"

where the hash is Codex's own (a sha256 over a TOML serialisation of the normalised handler:
event, matcher, command, timeout, async, status message), which `hooks/list` reports as
`currentHash` for each hook along with its `key` and `trustStatus` (untrusted / modified /
trusted / managed). An untrusted or modified hook is skipped silently by `codex exec` (the TUI
asks first). The TUI trusts by sending its app-server

    {"method": "config/batchWrite", "params": {"edits": [{"keyPath": "hooks.state",
      "value": {"<key>": {"trusted_hash": "<currentHash>"}, ...}, "mergeStrategy": "upsert"}],
      "filePath": null, "expectedVersion": null, "reloadUserConfig": true}}

(codex-rs/tui/src/hooks_rpc.rs, write_hook_trusts), which Codex writes into the user's
config.toml; `trust` sends exactly that for the untrusted or modified hooks whose sourcePath is
HOOKS_JSON. Changing a hook's command, matcher or timeout changes its hash: it must be trusted
again. Environment: the caller's (CODEX_HOME, HOME ...). Prints JSON; exits 1 on an RPC error.
"""
import json
import subprocess
import sys


class AppServer:
    def __init__(self, codex, cwd):
        self.p = subprocess.Popen([codex, "app-server", "--listen", "stdio://"], cwd=cwd,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        self.next_id = 0

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg) + "\n")
        self.p.stdin.flush()

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        while True:
            line = self.p.stdout.readline()
            if not line:
                raise SystemExit("codex app-server closed its output during %s" % method)
            msg = json.loads(line)
            if msg.get("id") == self.next_id and "method" not in msg:
                if "error" in msg:
                    raise SystemExit("%s failed: %s" % (method, json.dumps(msg["error"])))
                return msg["result"]

    def close(self):
        self.p.stdin.close()
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()


def main():
    codex, cwd, action = sys.argv[1:4]
    srv = AppServer(codex, cwd)
    try:
        srv.request("initialize", {"clientInfo": {"name": "cmem-realclient", "version": "1"},
                                   "capabilities": {}})
        srv.send({"jsonrpc": "2.0", "method": "initialized"})
        listed = srv.request("hooks/list", {"cwds": [cwd]})["data"][0]
        out = {}
        if action == "trust":
            source = sys.argv[4]
            value = {h["key"]: {"trusted_hash": h["currentHash"]} for h in listed["hooks"]
                     if h["sourcePath"] == source and h["trustStatus"] in ("untrusted", "modified")}
            out["trusted"] = sorted(value)
            if value:
                out["write"] = srv.request("config/batchWrite", {
                    "edits": [{"keyPath": "hooks.state", "value": value, "mergeStrategy": "upsert"}],
                    "filePath": None, "expectedVersion": None, "reloadUserConfig": True})
            listed = srv.request("hooks/list", {"cwds": [cwd]})["data"][0]
        out["list"] = listed
        print(json.dumps(out, indent=1))
    finally:
        srv.close()


if __name__ == "__main__":
    main()
