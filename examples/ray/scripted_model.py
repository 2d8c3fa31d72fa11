"""A scripted OpenAI-compatible model server of fixed latency, for measuring
shards (`.ci/ray.sh`): every reply waits LATENCY_MS, then streams. A layer
review approves; anything else gets a one-node DAG answering the question
whose id the prompt names: the total of `rows[].v` for an id ending `_sum`,
their count otherwise (the questions `.ci/ray.sh` writes).

    python scripted_model.py PORT LATENCY_MS
"""

import json
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

SUM = "def answer(rows):\n    return sum(row['v'] for row in rows)\n"
COUNT = "def answer(rows):\n    return len(rows)\n"


def reply_to(prompt):
    if "review one layer" in prompt:
        return json.dumps({"is_valid": True, "issues": [], "reasoning": "reads the rows"})
    question = prompt.rsplit("Question ", 1)[-1].split(" ", 1)[0]
    node = {"node_id": "answer", "operation": "total or count", "function_name": "answer",
            "inputs": {"rows": "dataset.rows"}, "expected_output_type": "int", "layer": 0,
            "code": SUM if question.endswith("_sum") else COUNT}
    return json.dumps({"question_id": question, "description": "read the rows", "final_answer_node": "answer",
                       "edges": [], "nodes": [node]})


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    latency = 0.0

    def log_message(self, *args):
        pass

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
        prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        time.sleep(self.latency)
        text = reply_to(prompt)
        events = [{"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]},
                  {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
                  {"choices": [], "usage": {"prompt_tokens": len(prompt) // 4, "completion_tokens": len(text) // 4,
                                            "total_tokens": (len(prompt) + len(text)) // 4}}]
        payload = "".join(f"data: {json.dumps(e)}\n\n" for e in events) + "data: [DONE]\n\n"
        data = payload.encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def main():
    port, latency_ms = int(sys.argv[1]), float(sys.argv[2])
    Handler.latency = latency_ms / 1000
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()


if __name__ == "__main__":
    main()
