#!/usr/bin/env python3
"""A scripted fake of the Gemini API (generativelanguage v1beta), on 127.0.0.1 only.

Every `:streamGenerateContent` request of the main model consumes one turn of the
script, answered as server-sent events: a turn is {"text": ...} or
{"call": {"name": ..., "args": {...}}} (a functionCall part). Other requests
(`:generateContent` for routing / next-speaker checks, `:countTokens`, model
lists) get a small neutral answer without consuming the script. Every request is
recorded (method, path, body) for the assertions. Standard library only.
"""
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class FakeGemini:
    def __init__(self, script):
        self.script = list(script)
        self.requests = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _body(self):
                n = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(n) if n else b""
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
                self._json({"models": [{"name": "models/gemini-2.5-pro"}, {"name": "models/gemini-2.5-flash"}]})

            def do_POST(self):
                body = self._body()
                with fake.lock:
                    fake.requests.append({"method": "POST", "path": self.path, "body": body})
                path = self.path.split("?")[0]
                if path.endswith(":countTokens"):
                    return self._json({"totalTokens": 10})
                if path.endswith(":streamGenerateContent"):
                    with fake.lock:
                        turn = fake.script.pop(0) if fake.script else {"text": "Done."}
                    return self._stream(turn)
                if path.endswith(":generateContent"):
                    # Side calls (routing, next-speaker checks, summaries): a neutral JSON text.
                    return self._json(self._response({"text": json.dumps(
                        {"next_speaker": "user", "reasoning": "done", "model_choice": "flash"})}))
                return self._json({"error": {"code": 404, "message": "not faked"}}, 404)

            @staticmethod
            def _response(turn):
                if "call" in turn:
                    part = {"functionCall": {"name": turn["call"]["name"], "args": turn["call"].get("args", {})}}
                else:
                    part = {"text": turn.get("text", "")}
                return {"candidates": [{"content": {"role": "model", "parts": [part]},
                                        "finishReason": "STOP", "index": 0}],
                        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5,
                                          "totalTokenCount": 15}}

            def _stream(self, turn):
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.end_headers()
                self.wfile.write(b"data: " + json.dumps(self._response(turn)).encode() + b"\r\n\r\n")
                self.wfile.flush()

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def start(self):
        self.thread.start()

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def main_requests(self):
        return [r for r in self.requests if r["path"].split("?")[0].endswith(":streamGenerateContent")]
