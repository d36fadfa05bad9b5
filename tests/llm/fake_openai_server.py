#!/usr/bin/env python3
"""A scripted OpenAI-compatible chat-completions server for the model client's tests.

Standard library only. Binds 127.0.0.1 on a free port (port 0), prints the port on one line of
stdout, then answers each POST to .../chat/completions with the next entry of a JSON script:

  {"responses": [ENTRY, ...], "default": ENTRY or null}

Entries are used in order; when they run out, "default" answers every further request (the
concurrency bench), or, without one, HTTP 410 with an error message. An ENTRY is an object:

  "delay_s": seconds to wait before answering (slow responses)
  "status": HTTP status (default 200)
  "headers": {name: value} added to the response (e.g. {"Retry-After": "1"})
  one body form, checked in this order:
    "action": "close"            close the connection without any response
    "raw": "text"                this text as the body, verbatim (malformed JSON)
    "json": {...}                this JSON as the body
    "error": "message"           {"error": {"message": ..., "type": "scripted"}}
    otherwise a chat completion from "content", "reasoning_content", "reasoning",
      "finish_reason" (default "stop") and "usage" (default prompt 11, completion 7 tokens)

With --tls-cert CERT --tls-key KEY (PEM files) it speaks HTTPS instead of HTTP.

With --log FILE every request is appended to FILE as one JSON line: {"path", "headers", "body"}
(body parsed when it is JSON, else the raw text). With --exit-on-stdin-eof the server exits when
its stdin closes, so it never outlives a test that crashed.
"""

import argparse
import json
import os
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Script:
    """The scripted answers, handed out in order to concurrent handlers."""

    def __init__(self, data):
        self._responses = list(data.get("responses", []))
        self._default = data.get("default")
        self._next = 0
        self._lock = threading.Lock()

    def next(self):
        with self._lock:
            if self._next < len(self._responses):
                self._next += 1
                return self._responses[self._next - 1]
        if self._default is not None:
            return self._default
        return {"status": 410, "error": "fake_openai_server: the script has no answer left"}


DEFAULT_USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def chat_completion(entry, model):
    message = {"role": "assistant", "content": entry.get("content")}
    for key in ("reasoning_content", "reasoning"):
        if key in entry:
            message[key] = entry[key]
    return {
        "id": "chatcmpl-fake",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": entry.get("finish_reason", "stop")}
        ],
        "usage": entry.get("usage", DEFAULT_USAGE),
    }


def make_handler(script, log_path, log_lock):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format, *args):  # noqa: A002 - the base class's name
            pass  # quiet: the tests read the request log instead

        def _log(self, body):
            if not log_path:
                return
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = body.decode("utf-8", "replace")
            record = {"path": self.path, "headers": dict(self.headers.items()), "body": parsed}
            with log_lock, open(log_path, "a", encoding="utf-8") as f:
                f.write(json.dumps(record) + "\n")

        def do_POST(self):  # noqa: N802 - the base class's name
            body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
            self._log(body)
            if not self.path.endswith("/chat/completions"):
                self._send(404, {}, json.dumps({"error": {"message": "no route " + self.path}}))
                return
            entry = script.next()
            time.sleep(entry.get("delay_s", 0))
            if entry.get("action") == "close":
                self.close_connection = True
                return
            try:
                model = json.loads(body).get("model", "")
            except (ValueError, AttributeError):
                model = ""
            if "raw" in entry:
                payload = entry["raw"]
            elif "json" in entry:
                payload = json.dumps(entry["json"])
            elif "error" in entry:
                payload = json.dumps({"error": {"message": entry["error"], "type": "scripted"}})
            else:
                payload = json.dumps(chat_completion(entry, model))
            self._send(entry.get("status", 200), entry.get("headers", {}), payload)

        def _send(self, status, headers, payload):
            data = payload.encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up first (its deadline): nothing to do

    return Handler


class Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256  # NOTE: 64+ clients connect at once in the concurrency bench


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--script", required=True, help="JSON script of answers")
    parser.add_argument("--log", help="append each request as a JSON line here")
    parser.add_argument("--exit-on-stdin-eof", action="store_true")
    parser.add_argument("--tls-cert", help="PEM certificate: serve HTTPS (with --tls-key)")
    parser.add_argument("--tls-key", help="PEM private key of --tls-cert")
    args = parser.parse_args()
    with open(args.script, encoding="utf-8") as f:
        script = Script(json.load(f))

    server = Server(("127.0.0.1", 0), make_handler(script, args.log, threading.Lock()))
    if args.tls_cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.tls_cert, args.tls_key)
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    if args.exit_on_stdin_eof:

        def watch_stdin():
            sys.stdin.read()
            os._exit(0)

        threading.Thread(target=watch_stdin, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
