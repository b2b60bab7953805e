#!/usr/bin/env python3
"""An HTTP(S) proxy on 127.0.0.1 that lets nothing through and writes down every try, so a
client run with HTTP_PROXY/HTTPS_PROXY pointing here shows whether it meant to reach anything.

Stdlib only. For clients that talk to no server of ours at all (Gemini CLI with
--fake-responses gets its model replies from a file); codex.sh gets the same from
stub_openai.py, which is its model and its proxy at once.

    python3 refusing_proxy.py --log-dir DIR [--port 0]

Writes DIR/port once listening and DIR/requests.jsonl, one line per request:
{"refused": "<host:port or URL>", "method": ...}. Every request (CONNECT, an absolute URL, or
anything else) is answered 403. A run that reached nothing leaves requests.jsonl empty.
"""
import argparse
import json
import os
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
LOG = None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt, *args):
        pass

    def refuse(self):
        rec = {"refused": self.path, "method": self.command, "client": self.client_address[0],
               "user_agent": self.headers.get("user-agent")}
        with LOCK, open(LOG, "a") as f:
            f.write(json.dumps(rec) + "\n")
        print("refusing_proxy: refused %s %s" % (self.command, self.path), file=sys.stderr, flush=True)
        body = b"refused by tests/realclient/kit/refusing_proxy.py\n"
        self.send_response(403)
        self.send_header("content-type", "text/plain")
        self.send_header("content-length", str(len(body)))
        self.send_header("connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        self.close_connection = True

    do_CONNECT = do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = refuse


def main():
    global LOG
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--log-dir", required=True)
    p.add_argument("--port", type=int, default=0)
    args = p.parse_args()
    os.makedirs(args.log_dir, exist_ok=True)
    LOG = os.path.join(args.log_dir, "requests.jsonl")
    open(LOG, "a").close()
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    port = srv.server_address[1]
    with open(os.path.join(args.log_dir, "port.tmp"), "w") as f:
        f.write(str(port))
    os.replace(os.path.join(args.log_dir, "port.tmp"), os.path.join(args.log_dir, "port"))
    srv.serve_forever()


if __name__ == "__main__":
    main()
