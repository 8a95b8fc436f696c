#!/usr/bin/env python3
"""A stand-in model hub for oracle runs: every request gets ``404 RepoNotFound`` at once.

    python3 tools/oracle/fake_hub.py [PORT]      # then HF_ENDPOINT=http://127.0.0.1:PORT

The oracle host has no network. Without this, a value naming a hub repository (``--tokenizer
X``, ``--hf-config-path X``, a speculative draft model) makes the hub client retry with
back-off for minutes; with it the engine fails at once, as it does against the real hub for
a repository that does not exist. Such rejections are "hub-dependent" in the triage.
"""

from __future__ import annotations

import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class NotFound(BaseHTTPRequestHandler):
    def _answer(self) -> None:
        body = b'{"error": "Repository not found"}'
        self.send_response(404)
        self.send_header("X-Error-Code", "RepoNotFound")
        self.send_header("X-Error-Message", "Repository not found")
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    do_GET = do_HEAD = do_POST = _answer

    def log_message(self, *args: object) -> None:
        pass


if __name__ == "__main__":
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 18914
    ThreadingHTTPServer(("127.0.0.1", port), NotFound).serve_forever()
