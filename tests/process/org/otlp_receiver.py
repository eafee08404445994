"""An OTLP/HTTP logs receiver for tests/process/org/export.rs: it decodes every request
with the official OpenTelemetry protocol bindings (PyPI `opentelemetry-proto`,
generated from the opentelemetry-proto definitions): protobuf bodies with
`ExportLogsServiceRequest.FromString`, JSON bodies with protobuf's strict
`json_format.Parse` (an unknown field, a wrong type or a wrong name is an
error). A body that does not decode is answered 400 and noted.

Usage: otlp_receiver.py OUT_FILE [--status CODE] [--port PORT]
Prints the port it listens on (127.0.0.1), then serves until killed. Each
decoded log record is one JSON line in OUT_FILE:
{"content_type", "headers", "resource": {k: v}, "scope", "time_unix_nano",
 "severity_number", "severity_text", "body", "event_name", "attributes": {k: v}}
A request that does not decode is the line {"error": "..."}.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)


def value(v):
    kind = v.WhichOneof("value")
    if kind == "array_value":
        return [value(x) for x in v.array_value.values]
    if kind == "kvlist_value":
        return {kv.key: value(kv.value) for kv in v.kvlist_value.values}
    return getattr(v, kind) if kind else None


def main():
    out = sys.argv[1]
    status = 200
    port = 0
    args = sys.argv[2:]
    while args:
        flag, arg, args = args[0], args[1], args[2:]
        if flag == "--status":
            status = int(arg)
        elif flag == "--port":
            port = int(arg)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *a):
            pass

        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            ctype = self.headers.get("Content-Type", "")
            req = ExportLogsServiceRequest()
            try:
                if self.path != "/v1/logs":
                    raise ValueError("path " + self.path)
                if ctype.startswith("application/x-protobuf"):
                    req.ParseFromString(body)
                elif ctype.startswith("application/json"):
                    json_format.Parse(body.decode("utf-8"), req)
                else:
                    raise ValueError("content type " + ctype)
            except Exception as e:  # noqa: BLE001 - every failure is reported
                with open(out, "a") as f:
                    f.write(json.dumps({"error": repr(e)}) + "\n")
                self.send_response(400)
                self.end_headers()
                return
            lines = []
            headers = {k.lower(): v for k, v in self.headers.items()}
            for rl in req.resource_logs:
                resource = {kv.key: value(kv.value) for kv in rl.resource.attributes}
                for sl in rl.scope_logs:
                    for r in sl.log_records:
                        lines.append(
                            {
                                "content_type": ctype,
                                "headers": headers,
                                "resource": resource,
                                "scope": [sl.scope.name, sl.scope.version],
                                "time_unix_nano": r.time_unix_nano,
                                "severity_number": r.severity_number,
                                "severity_text": r.severity_text,
                                "body": value(r.body),
                                "event_name": r.event_name,
                                "attributes": {kv.key: value(kv.value) for kv in r.attributes},
                            }
                        )
            if status == 200:
                with open(out, "a") as f:
                    for line in lines:
                        f.write(json.dumps(line) + "\n")
            self.send_response(status)
            if ctype.startswith("application/json"):
                payload = json_format.MessageToJson(ExportLogsServiceResponse()).encode()
            else:
                payload = ExportLogsServiceResponse().SerializeToString()
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
