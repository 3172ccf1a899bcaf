"""The agent tests' fake model API: the one thing the real-agent suite mocks.

One server speaks just enough of three vendors' APIs for an agent to ask for exactly one shell
tool call and then finish:

  Anthropic Messages   POST /v1/messages (SSE or JSON)       Claude Code: a tool_use of Bash
  OpenAI Responses     POST /v1/responses (SSE)              Codex: a function_call of exec_command
  Gemini               POST /v1beta/models/M:streamGenerateContent?alt=sse, :generateContent,
                       :countTokens                          Gemini CLI: a functionCall of
                                                             run_shell_command

The command comes from the prompt itself: the first user text holding "CORDON-RUN<<CMD>>" gets
a tool call running CMD; the request that carries that call's result gets a final text answer.
Any other request to a model endpoint (titles, routing, token counts) gets a short answer;
anything else a 404. Every request is logged as one JSON line, with what was answered, so the
test can assert the round trip: the tool call was sent and its output came back.

  fake_model_api.py ADDR PORT LOG READY [DUMP_DIR]   (bounded by the caller: `timeout`)

DUMP_DIR, if given, receives each request body (NNN.json), for looking into a failure.
"""

import http.server
import json
import os
import re
import sys
import threading

MARKER = re.compile(r"CORDON-RUN<<(.+?)>>", re.S)
log_lock = threading.Lock()


def strings(value):
    """Every string in a JSON value, depth first."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from strings(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)


def find_command(texts):
    for text in texts:
        m = MARKER.search(text)
        if m:
            return m.group(1)
    return None


def sse(event, data):
    head = "event: %s\n" % event if event else ""
    return (head + "data: " + json.dumps(data) + "\n\n").encode()


# ---- Conversations ------------------------------------------------------------------------
# Each vendor's request is reduced to turns, in order: ("user", text) for each user text,
# ("result", call id, text) for each tool result. A result for a call this server handed out
# and has not answered yet gets the final text; otherwise the last user text holding the marker
# gets a new call (agents reorder merged turns, so order alone cannot tell). Results of other
# calls are the history a resumed session carries. At most MAX_CALLS calls are ever handed out:
# an agent that loops ends in plain text.

MAX_CALLS = 40
pending = set()


def decide(turns):
    """(what, detail, earlier results, call id); what is "final", "tool_call" or "aux"."""
    with log_lock:
        for t in turns:
            if t[0] == "result" and t[1] in pending:
                pending.discard(t[1])
                earlier = [r[2] for r in turns if r[0] == "result" and r[1] != t[1]]
                return "final", t[2], earlier, t[1]
        earlier = [r[2] for r in turns if r[0] == "result"]
        commands = [find_command([t[1]]) for t in turns if t[0] == "user"]
        commands = [c for c in commands if c is not None]
        if not commands or Handler.calls >= MAX_CALLS:
            return "aux", None, earlier, None
        Handler.calls += 1
        call_id = "cordon_call_%d_%d" % (os.getpid(), Handler.calls)  # unique across server runs
        pending.add(call_id)
        return "tool_call", commands[-1], earlier, call_id


# ---- Anthropic Messages ----------------------------------------------------------------------


def anthropic(body):
    """(what, detail, earlier results, reply blocks, stop reason)."""
    turns = []
    for m in body.get("messages", []):
        if m.get("role") != "user":
            continue
        content = m.get("content")
        for b in content if isinstance(content, list) else [{"type": "text", "text": content}]:
            if isinstance(b, dict) and b.get("type") == "tool_result":
                turns.append(("result", b.get("tool_use_id"), "\n".join(strings(b.get("content", "")))))
            else:
                turns += [("user", text) for text in strings(b)]
    tools = [t.get("name") for t in body.get("tools", [])]
    what, detail, earlier, call_id = decide(turns if "Bash" in tools else [])
    if what == "tool_call":
        block = {"type": "tool_use", "id": call_id, "name": "Bash",
                 "input": {"command": detail, "description": "cordon test command"}}
        return what, detail, earlier, [block], "tool_use"
    if what == "final":
        return what, detail, earlier, [{"type": "text", "text": "cordon fake model: done"}], "end_turn"
    return "aux", None, earlier, [{"type": "text", "text": "cordon fake model"}], "end_turn"


def anthropic_stream(model, blocks, stop):
    out = sse("message_start", {"type": "message_start", "message": {
        "id": "msg_cordon", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 10, "output_tokens": 1}}})
    for i, block in enumerate(blocks):
        if block["type"] == "text":
            out += sse("content_block_start", {"type": "content_block_start", "index": i,
                                               "content_block": {"type": "text", "text": ""}})
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            start = dict(block, input={})
            out += sse("content_block_start", {"type": "content_block_start", "index": i, "content_block": start})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        out += sse("content_block_delta", {"type": "content_block_delta", "index": i, "delta": delta})
        out += sse("content_block_stop", {"type": "content_block_stop", "index": i})
    out += sse("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                 "usage": {"output_tokens": 5}})
    return out + sse("message_stop", {"type": "message_stop"})


# ---- OpenAI Responses (as Codex uses it) ----------------------------------------------------


def responses(body):
    """(what, detail, earlier results, output item)."""
    items = body.get("input", [])
    items = items if isinstance(items, list) else [{"type": "message", "role": "user", "content": items}]
    turns = []
    for item in items:
        if item.get("type") == "function_call_output":
            output = item.get("output")
            text = output if isinstance(output, str) else "\n".join(strings(output))
            turns.append(("result", item.get("call_id"), text))
        elif item.get("type") == "message" and item.get("role") == "user":
            turns += [("user", text) for text in strings(item.get("content"))]
    tools = [t.get("name") for t in body.get("tools", [])]
    what, detail, earlier, call_id = decide(turns if "exec_command" in tools else [])
    if what == "tool_call":
        call = {"type": "function_call", "id": "fc_" + call_id, "call_id": call_id, "name": "exec_command",
                "arguments": json.dumps({"cmd": detail}), "status": "completed"}
        return what, detail, earlier, call
    text = "cordon fake model: done" if what == "final" else "cordon fake model"
    message = {"type": "message", "id": "msg_cordon", "role": "assistant", "status": "completed",
               "content": [{"type": "output_text", "text": text, "annotations": []}]}
    return (what if what == "final" else "aux"), detail, earlier, message


def responses_stream(model, item):
    response = {"id": "resp_cordon", "object": "response", "model": model, "status": "in_progress", "output": []}
    out = sse("response.created", {"type": "response.created", "sequence_number": 0, "response": response})
    out += sse("response.output_item.added", {"type": "response.output_item.added", "sequence_number": 1,
                                              "output_index": 0, "item": item})
    out += sse("response.output_item.done", {"type": "response.output_item.done", "sequence_number": 2,
                                             "output_index": 0, "item": item})
    done = dict(response, status="completed", output=[item], usage={
        "input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15})
    return out + sse("response.completed", {"type": "response.completed", "sequence_number": 3, "response": done})


# ---- Gemini --------------------------------------------------------------------------------


def gemini(body):
    """(what, detail, earlier results, reply parts)."""
    turns = []
    for c in body.get("contents", []):
        if c.get("role") != "user":
            continue
        for part in c.get("parts", []):
            if "functionResponse" in part:
                response = part["functionResponse"]
                turns.append(("result", response.get("id"), "\n".join(strings(response.get("response", {})))))
            else:
                turns += [("user", text) for text in strings(part.get("text", ""))]
    tools = [f.get("name") for t in body.get("tools", []) for f in t.get("functionDeclarations", [])]
    what, detail, earlier, call_id = decide(turns if "run_shell_command" in tools else [])
    if what == "tool_call":
        call = {"functionCall": {"id": call_id, "name": "run_shell_command",
                                 "args": {"command": detail, "description": "cordon test command"}}}
        return what, detail, earlier, [call]
    if what == "final":
        return what, detail, earlier, [{"text": "cordon fake model: done"}]
    if body.get("generationConfig", {}).get("responseMimeType") == "application/json":
        # Gemini CLI's model router asks for a JSON verdict before each turn.
        return "aux", None, earlier, [{"text": json.dumps({"complexity_reasoning": "test", "complexity_score": 1})}]
    return "aux", None, earlier, [{"text": "cordon fake model"}]


def gemini_reply(model, parts):
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
            "modelVersion": model}


# ---- HTTP ----------------------------------------------------------------------------------


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    calls = 0  # tool calls handed out, for unique call ids

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            data = b""
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return data
                data += self.rfile.read(size)
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def send(self, status, body, content_type="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        if content_type == "text/event-stream":
            self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        self.wfile.write(body)

    def dump(self, raw):
        if self.server.dump_dir:
            with log_lock:
                self.server.dumped += 1
                n = self.server.dumped
            with open("%s/%03d.json" % (self.server.dump_dir, n), "wb") as out:
                out.write(raw)

    def record(self, entry):
        # The credential each agent sent (the tests' fake keys): a login's state shows here.
        key = self.headers.get("Authorization") or self.headers.get("x-api-key") or self.headers.get("x-goog-api-key")
        entry.update(method=self.command, path=self.path, agent=self.headers.get("User-Agent", ""), key=key or "")
        with log_lock, open(self.server.log_path, "a") as log:
            log.write(json.dumps(entry) + "\n")

    def do_GET(self):
        self.read_body()
        if self.path.split("?")[0] in ("/v1/models", "/v1beta/models"):
            self.record({"api": "models", "answer": "empty list"})
            self.send(200, json.dumps({"object": "list", "data": [], "models": []}).encode())
            return
        self.record({"api": "unknown", "answer": "404"})
        self.send(404, b'{"error":{"message":"not here","code":404}}')

    def do_POST(self):
        raw = self.read_body()
        self.dump(raw)
        path = self.path.split("?")[0]
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        model = body.get("model", "fake-model")
        if path == "/v1/messages/count_tokens":
            self.record({"api": "anthropic", "answer": "count"})
            self.send(200, b'{"input_tokens": 10}')
        elif path == "/v1/messages":
            what, detail, earlier, blocks, stop = anthropic(body)
            self.record({"api": "anthropic", "answer": what, "detail": detail, "earlier": earlier, "model": model})
            if body.get("stream"):
                self.send(200, anthropic_stream(model, blocks, stop), "text/event-stream")
            else:
                self.send(200, json.dumps({"id": "msg_cordon", "type": "message", "role": "assistant", "model": model,
                                           "content": blocks, "stop_reason": stop, "stop_sequence": None,
                                           "usage": {"input_tokens": 10, "output_tokens": 5}}).encode())
        elif path == "/v1/responses":
            what, detail, earlier, item = responses(body)
            self.record({"api": "openai-responses", "answer": what, "detail": detail, "earlier": earlier,
                         "model": model})
            self.send(200, responses_stream(model, item), "text/event-stream")
        elif path.startswith("/v1beta/models/") and ":" in path:
            model, method = path[len("/v1beta/models/"):].rsplit(":", 1)
            if method == "countTokens":
                self.record({"api": "gemini", "answer": "count", "model": model})
                self.send(200, b'{"totalTokens": 10}')
                return
            what, detail, earlier, parts = gemini(body)
            self.record({"api": "gemini", "answer": what, "detail": detail, "earlier": earlier, "model": model})
            reply = gemini_reply(model, parts)
            if method == "streamGenerateContent":
                self.send(200, ("data: " + json.dumps(reply) + "\r\n\r\n").encode(), "text/event-stream")
            else:
                self.send(200, json.dumps(reply).encode())
        else:
            self.record({"api": "unknown", "answer": "404"})
            self.send(404, b'{"error":{"message":"not here","code":404}}')

    def log_message(self, *args):
        pass


def main():
    addr, port, log_path, ready = sys.argv[1:5]
    server = http.server.ThreadingHTTPServer((addr, int(port)), Handler)
    server.daemon_threads = True
    server.log_path = log_path
    server.dump_dir = sys.argv[5] if len(sys.argv) > 5 else ""
    server.dumped = 0
    open(ready, "w").write("ready\n")
    server.serve_forever()


if __name__ == "__main__":
    main()
