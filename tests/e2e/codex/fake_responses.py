#!/usr/bin/env python3
"""A scripted fake of the OpenAI Responses API (`POST /v1/responses`, streamed as
server-sent events), on 127.0.0.1 only.

Every `/responses` request consumes one turn of the script: a turn is
{"text": ...} (an assistant message), {"call": {"name": ..., "arguments": {...}}}
(a `function_call` item) or {"custom": {"name": ..., "input": "..."}} (a
`custom_tool_call` item, how Codex sends freeform tools such as apply_patch).
When the script is used up the answer is "Done.". Other paths (model lists)
get a small neutral answer. Every request is recorded (method, path, body) for
the assertions. Standard library only.
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeResponses:
    def __init__(self, script):
        self.script = list(script)
        self.requests = []
        self.lock = threading.Lock()
        self.turns = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def _body(self):
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
                if self.headers.get("Content-Encoding", "") == "zstd":
                    return {"raw": "<zstd body>"}
                try:
                    return json.loads(raw or b"{}")
                except ValueError:
                    return {"raw": raw.decode("utf-8", "replace")}

            def _json(self, obj, code=200):
                data = json.dumps(obj).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                with fake.lock:
                    fake.requests.append({"method": "GET", "path": self.path, "body": None})
                if self.path.split("?")[0].endswith("/models"):
                    return self._json({"object": "list", "data": [], "models": []})
                return self._json({"error": {"message": "not faked"}}, 404)

            def do_POST(self):
                body = self._body()
                with fake.lock:
                    fake.requests.append({"method": "POST", "path": self.path, "body": body})
                if not self.path.split("?")[0].endswith("/responses"):
                    return self._json({"error": {"message": "not faked"}}, 404)
                with fake.lock:
                    fake.turns += 1
                    n = fake.turns
                    turn = fake.script.pop(0) if fake.script else {"text": "Done."}
                self._stream(n, turn)

            def _stream(self, n, turn):
                rid = f"resp_{n}"
                if "call" in turn:
                    item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}",
                            "name": turn["call"]["name"], "status": "completed",
                            "arguments": json.dumps(turn["call"].get("arguments", {}))}
                elif "custom" in turn:
                    item = {"type": "custom_tool_call", "id": f"ctc_{n}", "call_id": f"call_{n}",
                            "name": turn["custom"]["name"], "status": "completed",
                            "input": turn["custom"]["input"]}
                else:
                    item = {"type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
                            "content": [{"type": "output_text", "text": turn.get("text", ""),
                                         "annotations": []}]}
                usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0},
                         "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0},
                         "total_tokens": 15}
                events = [
                    {"type": "response.created", "response": {"id": rid, "status": "in_progress"}},
                    {"type": "response.output_item.added", "output_index": 0, "item": item},
                    {"type": "response.output_item.done", "output_index": 0, "item": item},
                    {"type": "response.completed",
                     "response": {"id": rid, "status": "completed", "output": [item], "usage": usage}},
                ]
                data = b"".join(
                    f"event: {e['type']}\ndata: {json.dumps(e)}\n\n".encode() for e in events)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def model_requests(self):
        return [r for r in self.requests
                if r["method"] == "POST" and r["path"].split("?")[0].endswith("/responses")]
