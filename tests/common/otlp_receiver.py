"""An OTLP/HTTP traces receiver for the tests, decoding with Python's
opentelemetry-proto package (a second implementation of the protobuf messages).

    otlp_receiver.py serve OUT_FILE STATUS   listen on 127.0.0.1, print the port;
        each POST is decoded and written to OUT_FILE as one JSON line; the
        answer has status STATUS (an ExportTraceServiceResponse when 2xx).
    otlp_receiver.py parse-json FILE          parse an OTLP JSON request file with
        protobuf's JSON parser and print it decoded, as `serve` writes it (OTLP
        JSON spells ids in hex where protobuf's JSON has base64: they are
        turned back first).
"""
import base64
import json
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from google.protobuf import json_format
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)


def value(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def decoded(request):
    out = {"resources": [], "spans": []}
    for rs in request.resource_spans:
        out["resources"].append({kv.key: value(kv.value) for kv in rs.resource.attributes})
        for ss in rs.scope_spans:
            for span in ss.spans:
                out["spans"].append({
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": span.kind,
                    "start": span.start_time_unix_nano,
                    "end": span.end_time_unix_nano,
                    "attributes": {kv.key: value(kv.value) for kv in span.attributes},
                    "events": [e.name for e in span.events],
                    "status": span.status.code,
                    "scope": ss.scope.name,
                })
    return out


def serve(out_file, status):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            record = decoded(request)
            record["path"] = self.path
            record["content_type"] = self.headers.get("Content-Type")
            record["authorization"] = self.headers.get("Authorization")
            with open(out_file, "a") as f:
                f.write(json.dumps(record) + "\n")
            answer = ExportTraceServiceResponse().SerializeToString() if status < 300 else b"receiver says no\n"
            self.send_response(status)
            self.send_header("Content-Type", "application/x-protobuf" if status < 300 else "text/plain")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]))
    else:
        with open(sys.argv[2]) as f:
            document = json.load(f)
        for rs in document["resourceSpans"]:
            for ss in rs["scopeSpans"]:
                for span in ss["spans"]:
                    for key in ("traceId", "spanId", "parentSpanId"):
                        span[key] = base64.b64encode(bytes.fromhex(span[key])).decode()
        request = json_format.ParseDict(document, ExportTraceServiceRequest())
        print(json.dumps(decoded(request)))
