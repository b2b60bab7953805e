#!/usr/bin/env python3
"""Scripted stand-in for the OpenAI Responses API, so that a real Codex CLI (`codex exec`) can
run a whole session with no network and no real model.

Stdlib only. Binds 127.0.0.1 only (port 0 = pick a free one).

    python3 stub_openai.py --scenario SCENARIO.json --log-dir DIR [--port 0]

Codex reaches it through a custom model provider in $CODEX_HOME/config.toml:

    [model_providers.stub]
    base_url = "http://127.0.0.1:<port>/v1"
    wire_api = "responses"
    env_key = "STUB_API_KEY"          # any value; Codex only needs it set

It writes DIR/port once listening, DIR/requests.jsonl (one line per request: method, path,
selected headers, which step was answered), and DIR/bodies/NNN-<kind>.json (the full body of
every POST, so a test can look for what Codex sent the model, e.g. a SessionStart hook's
additionalContext). Nothing but loopback is served: a client that is not 127.0.0.0/8 or ::1,
a CONNECT or an absolute-URL (proxy) request is logged as "refused" and answered 403.

Scenario (JSON):
  {
    "steps": [                                       # the model's replies, in order
      {"exec": "python3 -m unittest tests.test_pool"},  # function_call exec_command {"cmd": ...}
      {"say": "Reading it first.", "exec": "sed -n 1,20p src/db/pool.py"},  # + a commentary message
      {"patch": "*** Begin Patch\\n*** Update File: a.py\\n@@\\n-X = 1\\n+X = 2\\n*** End Patch"},
                                                     # custom_tool_call apply_patch, input = patch
      {"message": "Done."}                           # final assistant message (phase final_answer)
    ],
    "side_text": "ok"                                # reply to a request that is not the session's
  }                                                  # (no tools: title generation, summaries ...)

Which step is answered: the number of tool outputs (function_call_output, custom_tool_call_output)
already in the request's "input", so a retried request gets the same answer; past the end, the
last step that is a message is repeated. Codex sends the whole conversation in every request to a
custom provider (it does not use previous_response_id there); a request that has one is logged.
"""
import argparse
import ipaddress
import itertools
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COUNTER = itertools.count(1)
RESPONSE_IDS = itertools.count(1)
LOCK = threading.Lock()
ARGS = None
SCENARIO = {}
SHOWN_HEADERS = ("user-agent", "originator", "content-type", "content-encoding", "session_id",
                 "version", "host", "accept")
OUTPUT_TYPES = ("function_call_output", "custom_tool_call_output")
# Call ids are unique per stub (one stub per session), as a real model's are across sessions.
CALL_TAG = os.urandom(4).hex()


def log_line(rec):
    with LOCK:
        with open(os.path.join(ARGS.log_dir, "requests.jsonl"), "a") as f:
            f.write(json.dumps(rec, ensure_ascii=False) + "\n")


def is_loopback(host):
    try:
        return ipaddress.ip_address(host.split("%")[0]).is_loopback
    except ValueError:
        return False


def tools_of(body):
    """The names of the tools a request offers: its "tools", and those of "additional_tools"
    input items (where a model in code mode gets them), namespaces flattened."""
    names = []

    def walk(tools):
        for t in tools or []:
            if t.get("type") == "namespace":
                walk(t.get("tools"))
            else:
                names.append(t.get("name") or t.get("type"))
    walk(body.get("tools"))
    for it in body.get("input") or []:
        if it.get("type") == "additional_tools":
            walk(it.get("tools"))
    return names


def items_for(step, n):
    """The output items of one scripted step."""
    out = []
    if step.get("say"):
        out.append(message("msg_say_%d" % n, step["say"], "commentary"))
    if "exec" in step:
        out.append({"type": "function_call", "id": "fc_%d" % n, "status": "completed",
                    "call_id": "call_%s_exec_%d" % (CALL_TAG, n), "name": "exec_command",
                    "arguments": json.dumps({"cmd": step["exec"], "yield_time_ms": 10000})})
    if "patch" in step:
        out.append({"type": "custom_tool_call", "id": "ctc_%d" % n, "status": "completed",
                    "call_id": "call_%s_patch_%d" % (CALL_TAG, n), "name": "apply_patch",
                    "input": step["patch"]})
    if "message" in step:
        out.append(message("msg_%d" % n, step["message"], "final_answer"))
    return out


def message(mid, text, phase):
    return {"type": "message", "role": "assistant", "id": mid, "status": "completed", "phase": phase,
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def sse(items, usage_in):
    rid = "resp_stub_%d" % next(RESPONSE_IDS)
    events = [{"type": "response.created", "response": {"id": rid}}]
    for index, item in enumerate(items):
        events.append({"type": "response.output_item.added", "output_index": index, "item": item})
        events.append({"type": "response.output_item.done", "output_index": index, "item": item})
    events.append({"type": "response.completed", "response": {"id": rid, "usage": {
        "input_tokens": usage_in, "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 20, "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": usage_in + 20}}})
    return "".join("event: %s\ndata: %s\n\n" % (e["type"], json.dumps(e, ensure_ascii=False))
                   for e in events).encode("utf-8")


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def refuse(self, why):
        log_line({"refused": why, "method": self.command, "path": self.path,
                  "client": self.client_address[0]})
        print("stub_openai: refused %s %s (%s)" % (self.command, self.path, why), file=sys.stderr,
              flush=True)
        self.send_json(403, {"error": {"message": "stub_openai serves loopback only: " + why}})

    def send_json(self, code, obj):
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def guard(self):
        if not is_loopback(self.client_address[0]):
            self.refuse("client %s is not loopback" % self.client_address[0])
            return False
        if self.command == "CONNECT" or not self.path.startswith("/"):
            self.refuse("proxy request for %s" % self.path)
            return False
        return True

    def do_CONNECT(self):
        self.guard()

    def do_GET(self):
        if not self.guard():
            return
        log_line({"method": "GET", "path": self.path,
                  "headers": {k: v for k, v in self.headers.items() if k.lower() in SHOWN_HEADERS}})
        if self.path.split("?")[0].endswith("/models"):
            self.send_json(200, {"object": "list", "data": [], "models": []})
        else:
            self.send_json(404, {"error": {"message": "not found"}})

    def do_POST(self):
        if not self.guard():
            return
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        n = next(COUNTER)
        rec = {"n": n, "method": "POST", "path": self.path,
               "headers": {k: v for k, v in self.headers.items() if k.lower() in SHOWN_HEADERS}}
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        kind = "unreadable" if body is None else ("main" if tools_of(body) else "side")
        with open(os.path.join(ARGS.log_dir, "bodies", "%03d-%s.json" % (n, kind)), "wb") as f:
            f.write(raw)
        if body is None or not self.path.split("?")[0].endswith("/responses"):
            rec["answer"] = "404"
            log_line(rec)
            self.send_json(404, {"error": {"message": "stub_openai: only POST /v1/responses"}})
            return
        steps = SCENARIO.get("steps", [])
        if kind == "main":
            done = sum(1 for it in body.get("input", []) if it.get("type") in OUTPUT_TYPES)
            rec["tools_offered"] = tools_of(body)
            if body.get("previous_response_id"):
                rec["previous_response_id"] = body["previous_response_id"]
            if done < len(steps):
                step = steps[done]
            else:
                step = next((s for s in reversed(steps) if "message" in s), {"message": "Done."})
            rec["step"] = done
            items = items_for(step, done)
            for it in items:
                name = it.get("name")
                if name and name not in rec["tools_offered"]:
                    rec["warning"] = "scripted tool %s is not among the tools Codex offered" % name
        else:
            items = [message("msg_side_%d" % n, SCENARIO.get("side_text", "ok"), "final_answer")]
            rec["step"] = "side"
        log_line(rec)
        body_out = sse(items, len(raw) // 4)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(body_out)))
        self.end_headers()
        self.wfile.write(body_out)


def main():
    global ARGS, SCENARIO
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--scenario", required=True)
    p.add_argument("--log-dir", required=True)
    p.add_argument("--port", type=int, default=0)
    ARGS = p.parse_args()
    with open(ARGS.scenario) as f:
        SCENARIO = json.load(f)
    os.makedirs(os.path.join(ARGS.log_dir, "bodies"), exist_ok=True)
    srv = ThreadingHTTPServer(("127.0.0.1", ARGS.port), Handler)
    port = srv.server_address[1]
    with open(os.path.join(ARGS.log_dir, "port.tmp"), "w") as f:
        f.write(str(port))
    os.replace(os.path.join(ARGS.log_dir, "port.tmp"), os.path.join(ARGS.log_dir, "port"))
    print("stub_openai listening on 127.0.0.1:%d" % port, file=sys.stderr, flush=True)
    srv.serve_forever()


if __name__ == "__main__":
    main()
