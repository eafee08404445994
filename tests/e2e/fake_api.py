#!/usr/bin/env python3
"""Scripted fake of the Anthropic Messages API, for driving the real Claude Code CLI.

Standard library only. Binds 127.0.0.1 only, on an ephemeral port by default.

The fake follows a *script*: a list of turns, each answering one "main" model
request (the main agent or a subagent).  A turn is a dict:

    {"text": "some assistant text"}
    {"tool_use": [{"name": "Bash", "input": {"command": "..."}, "id": "toolu_x"}]}
    {"text": "...", "tool_use": [...]}          # text block then tool calls
    {"expect": {...}, ...}                       # optional, see _turn_matches()

A request is "main" (it consumes a turn) when it is a streaming request that
carries tools.  Everything else (title / topic generation with the small fast
model, count_tokens, HEAD /, quota probes, compaction summaries...) is a *side*
request: it is answered without consuming the script.  Compaction requests
(tools present but the last user message asks for a summary) are detected and
answered with a canned summary as well.

When the script is exhausted, main requests are answered with a plain
"end_turn" text so the client always terminates.  Every request is recorded
(method, path, headers subset, parsed body, classification, turn index) so a
test can assert on exactly what the client sent.

Bounds: the server answers HTTP 503 to every request past `max_requests`
(recorded as kind "refused"), and `FakeAPI.stop()` always shuts it down; the
test harness also puts a wall-clock timeout on every client run.  Standalone
mode (`python3 fake_api.py --seconds N`) stops by itself after N seconds.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit, parse_qs

DEFAULT_MODEL = "claude-sonnet-4-5"
FALLBACK_TEXT = "Done."

COMPACT_MARKERS = (
    "critical: respond with text only",
    "detailed summary of the conversation",
    "summarize the conversation",
)


def _new_id(prefix: str) -> str:
    return prefix + uuid.uuid4().hex[:24]


def text_of(obj) -> str:
    """Flatten any content (str / list of blocks / nested tool_result) into text."""
    if obj is None:
        return ""
    if isinstance(obj, str):
        return obj
    if isinstance(obj, list):
        return "\n".join(text_of(x) for x in obj)
    if isinstance(obj, dict):
        t = obj.get("type")
        if t == "text":
            return obj.get("text", "")
        if t == "tool_result":
            return text_of(obj.get("content"))
        if t == "tool_use":
            return json.dumps(obj.get("input", {}))
        if "content" in obj:
            return text_of(obj["content"])
        if "text" in obj:
            return str(obj["text"])
    return ""


class Recorded:
    """One recorded HTTP request."""

    def __init__(self, method, path, query, headers, body, raw_len):
        self.t = time.time()
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body  # parsed JSON or None
        self.raw_len = raw_len
        self.kind = "other"  # main | side | compact | count_tokens | probe | other
        self.turn = None  # index of the script turn served, for main requests
        self.reply = None  # short description of what was answered

    # convenience accessors -------------------------------------------------
    @property
    def messages(self):
        return (self.body or {}).get("messages") or []

    @property
    def tools(self):
        return [t.get("name") for t in (self.body or {}).get("tools") or []]

    @property
    def model(self):
        return (self.body or {}).get("model")

    @property
    def is_subagent(self) -> bool:
        """2.1.330 marks subagent requests in the billing header block of `system`."""
        return "cc_is_subagent=true" in self.system_text

    @property
    def system_text(self) -> str:
        return text_of((self.body or {}).get("system"))

    def all_text(self) -> str:
        """Every piece of text the client sent (system + all messages)."""
        return self.system_text + "\n" + "\n".join(
            text_of(m.get("content")) for m in self.messages
        )

    def tool_results(self):
        out = []
        for m in self.messages:
            c = m.get("content")
            if isinstance(c, list):
                for b in c:
                    if isinstance(b, dict) and b.get("type") == "tool_result":
                        out.append(b)
        return out

    def to_json(self):
        return {
            "t": self.t,
            "method": self.method,
            "path": self.path,
            "query": self.query,
            "headers": self.headers,
            "kind": self.kind,
            "subagent": self.is_subagent if self.body else None,
            "turn": self.turn,
            "reply": self.reply,
            "body": self.body,
        }


class FakeAPI:
    def __init__(self, script=None, port=0, max_requests=200, model=DEFAULT_MODEL,
                 log=None):
        self.script = list(script or [])
        self.next_turn = 0
        self.requests: list[Recorded] = []
        self.max_requests = max_requests
        self.model = model
        self.lock = threading.Lock()
        self.log = log  # callable(str) or None
        self.errors: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, fmt, *args):  # silence default stderr logging
                if fake.log:
                    fake.log("http: " + fmt % args)

            def _read_body(self):
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n > 0 else b""
                body = None
                if raw:
                    try:
                        body = json.loads(raw)
                    except Exception:
                        body = {"_raw": raw[:2000].decode("utf-8", "replace")}
                return raw, body

            def _record(self, body, raw):
                u = urlsplit(self.path)
                hdrs = {k.lower(): v for k, v in self.headers.items()
                        if k.lower() in ("user-agent", "anthropic-beta", "x-app",
                                         "anthropic-version", "content-type",
                                         "x-stainless-helper-method", "accept")}
                rec = Recorded(self.command, u.path, parse_qs(u.query), hdrs, body, len(raw))
                with fake.lock:
                    fake.requests.append(rec)
                    over = len(fake.requests) > fake.max_requests
                return rec, over

            def _send_json(self, code, obj, extra_headers=None):
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.send_header("request-id", _new_id("req_"))
                for k, v in (extra_headers or {}).items():
                    self.send_header(k, v)
                self.end_headers()
                if self.command != "HEAD":
                    self.wfile.write(data)

            def do_HEAD(self):
                rec, _ = self._record(None, b"")
                rec.kind = "probe"
                rec.reply = "200"
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def do_GET(self):
                rec, _ = self._record(None, b"")
                rec.kind = "probe"
                p = urlsplit(self.path).path
                if p.startswith("/v1/models"):
                    rec.reply = "models"
                    self._send_json(200, {"data": [{"type": "model", "id": fake.model,
                                                    "display_name": fake.model,
                                                    "created_at": "2025-01-01T00:00:00Z"}],
                                          "has_more": False, "first_id": fake.model,
                                          "last_id": fake.model})
                    return
                rec.reply = "404"
                self._send_json(404, {"type": "error", "error": {
                    "type": "not_found_error", "message": "fake: not found"}})

            def do_DELETE(self):
                self.do_GET()

            def do_PUT(self):
                self.do_POST()

            def do_POST(self):
                raw, body = self._read_body()
                rec, over = self._record(body, raw)
                p = urlsplit(self.path).path
                if over:
                    rec.kind = "refused"
                    rec.reply = "503 over max_requests"
                    self._send_json(503, {"type": "error", "error": {
                        "type": "api_error", "message": "fake: request budget exhausted"}})
                    return
                if p.endswith("/v1/messages/count_tokens"):
                    rec.kind = "count_tokens"
                    rec.reply = "count"
                    n = max(1, len(json.dumps(body or {})) // 4)
                    self._send_json(200, {"input_tokens": n})
                    return
                if p.endswith("/v1/messages"):
                    fake._answer_messages(self, rec, body or {})
                    return
                rec.kind = "other"
                rec.reply = "404"
                self._send_json(404, {"type": "error", "error": {
                    "type": "not_found_error", "message": "fake: not found"}})

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        self.port = self.httpd.server_address[1]
        self.thread = None

    # ------------------------------------------------------------------
    @property
    def base_url(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        self.thread = threading.Thread(target=self.httpd.serve_forever,
                                       kwargs={"poll_interval": 0.2}, daemon=True)
        self.thread.start()
        return self

    def stop(self):
        try:
            self.httpd.shutdown()
        finally:
            self.httpd.server_close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *a):
        self.stop()

    # classification -----------------------------------------------------
    @staticmethod
    def is_compaction(body) -> bool:
        """2.1.330 compacts with a normal streaming request (tools included) whose last
        user message starts "CRITICAL: Respond with TEXT ONLY" and asks for "a detailed
        summary of the conversation so far"."""
        msgs = body.get("messages") or []
        if not msgs or msgs[-1].get("role") != "user":
            return False
        t = text_of(msgs[-1].get("content")).lower()
        return any(m in t for m in COMPACT_MARKERS) and "summary" in t

    def classify(self, body) -> str:
        if not body.get("tools"):
            return "side"
        if self.is_compaction(body):
            return "compact"
        if not body.get("stream"):
            return "side"
        return "main"

    # answering ------------------------------------------------------------
    def _answer_messages(self, h, rec, body):
        kind = self.classify(body)
        rec.kind = kind
        model = body.get("model") or self.model
        if kind == "main":
            with self.lock:
                idx = self.next_turn
                if idx < len(self.script):
                    turn = self.script[idx]
                    self.next_turn += 1
                else:
                    turn = None
            if turn is None:
                rec.turn = None
                rec.reply = "fallback-text"
                blocks = [{"type": "text", "text": FALLBACK_TEXT}]
            else:
                rec.turn = idx
                blocks = self._turn_blocks(turn)
                rec.reply = ",".join(b["type"] + (":" + b["name"] if b["type"] == "tool_use" else "")
                                     for b in blocks)
        elif kind == "compact":
            rec.reply = "compact-summary"
            blocks = [{"type": "text", "text":
                       "<analysis>fake</analysis>\n<summary>1. Primary Request: fake e2e "
                       "conversation summary.</summary>"}]
        else:
            rec.reply = "side-text"
            blocks = [{"type": "text", "text": self._side_text(body)}]
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        if body.get("stream"):
            self._stream(h, model, blocks, stop_reason)
        else:
            msg = {"id": _new_id("msg_"), "type": "message", "role": "assistant",
                   "model": model, "content": blocks, "stop_reason": stop_reason,
                   "stop_sequence": None,
                   "usage": {"input_tokens": 10, "output_tokens": 5,
                             "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}
            h._send_json(200, msg)

    @staticmethod
    def _side_text(body) -> str:
        # Title / topic helpers usually ask for JSON; a tiny JSON object keeps them happy.
        sys_t = text_of(body.get("system")).lower()
        if "json" in sys_t or "json" in text_of(body.get("messages")).lower()[-500:]:
            return '{"title": "e2e test", "isNewTopic": false}'
        return "e2e side answer"

    @staticmethod
    def _turn_blocks(turn):
        blocks = []
        if turn.get("text"):
            blocks.append({"type": "text", "text": turn["text"]})
        for tu in turn.get("tool_use") or []:
            blocks.append({"type": "tool_use", "id": tu.get("id") or _new_id("toolu_"),
                           "name": tu["name"], "input": tu.get("input", {})})
        if not blocks:
            blocks.append({"type": "text", "text": FALLBACK_TEXT})
        return blocks

    def _stream(self, h, model, blocks, stop_reason):
        h.send_response(200)
        h.send_header("Content-Type", "text/event-stream")
        h.send_header("Cache-Control", "no-cache")
        h.send_header("Connection", "close")
        h.send_header("request-id", _new_id("req_"))
        h.end_headers()
        h.close_connection = True

        def ev(name, data):
            h.wfile.write(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode())
            h.wfile.flush()

        ev("message_start", {"type": "message_start", "message": {
            "id": _new_id("msg_"), "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 1,
                      "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}}})
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                ev("content_block_start", {"type": "content_block_start", "index": i,
                                           "content_block": {"type": "text", "text": ""}})
                txt = b["text"]
                for j in range(0, len(txt), 40):
                    ev("content_block_delta", {"type": "content_block_delta", "index": i,
                                               "delta": {"type": "text_delta",
                                                         "text": txt[j:j + 40]}})
            else:
                ev("content_block_start", {"type": "content_block_start", "index": i,
                                           "content_block": {"type": "tool_use", "id": b["id"],
                                                             "name": b["name"], "input": {}}})
                js = json.dumps(b["input"])
                for j in range(0, len(js), 30):
                    ev("content_block_delta", {"type": "content_block_delta", "index": i,
                                               "delta": {"type": "input_json_delta",
                                                         "partial_json": js[j:j + 30]}})
            ev("content_block_stop", {"type": "content_block_stop", "index": i})
        ev("message_delta", {"type": "message_delta",
                             "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                             "usage": {"output_tokens": 5}})
        ev("message_stop", {"type": "message_stop"})

    # queries for tests ----------------------------------------------------
    def main_requests(self):
        return [r for r in self.requests if r.kind == "main"]

    def dump(self, path):
        with open(path, "w") as f:
            json.dump([r.to_json() for r in self.requests], f, indent=1)


def main(argv=None):
    ap = argparse.ArgumentParser(description="Run the fake Messages API standalone.")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--script", help="JSON file with a list of turns")
    ap.add_argument("--dump", help="write recorded requests here on exit")
    ap.add_argument("--seconds", type=float, default=120, help="stop after this long")
    a = ap.parse_args(argv)
    script = json.load(open(a.script)) if a.script else []
    fake = FakeAPI(script, port=a.port, log=lambda s: print(s, file=sys.stderr)).start()
    print(fake.base_url, flush=True)
    try:
        time.sleep(a.seconds)
    except KeyboardInterrupt:
        pass
    finally:
        fake.stop()
        if a.dump:
            fake.dump(a.dump)


if __name__ == "__main__":
    main()
