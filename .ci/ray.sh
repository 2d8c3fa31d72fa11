#!/usr/bin/env bash
# Runs examples/ray/driver.py on a local Ray cluster against a scripted model
# server of fixed latency (examples/ray/scripted_model.py, on 127.0.0.1 only):
# one process, then 2 and 4 shards merged; checks the answers are the same and
# prints each wall time and the merge's (the figures in BENCHMARKS.md).
#
#   .ci/ray.sh install   # the cached virtualenv with ray pinned
#   .ci/ray.sh check     # the runs
#   .ci/ray.sh           # both
#
# Not part of .ci/run (Ray is large). Environment: EVAL_DAG_BIN (default:
# target/release/eval-dag, else target/debug/eval-dag), EVAL_DAG_RAY_CACHE
# (default ~/.cache/eval-dag-ray), EVAL_DAG_RAY_PORT (default 8091),
# EVAL_DAG_RAY_QUESTIONS (default 48), EVAL_DAG_RAY_LATENCY_MS (default 300),
# EVAL_DAG_RAY_CONCURRENCY (critic loops per process, default 2).
set -euo pipefail

RAY_VERSION=2.52.0
CACHE_DIR=${EVAL_DAG_RAY_CACHE:-$HOME/.cache/eval-dag-ray}
VENV="$CACHE_DIR/venv-$RAY_VERSION"
PORT=${EVAL_DAG_RAY_PORT:-8091}
QUESTIONS=${EVAL_DAG_RAY_QUESTIONS:-48}
LATENCY_MS=${EVAL_DAG_RAY_LATENCY_MS:-300}
CONCURRENCY=${EVAL_DAG_RAY_CONCURRENCY:-2}
REPO_ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=lib.sh
source "$REPO_ROOT/.ci/lib.sh"

install_ray() {
    if [ -x "$VENV/bin/python" ] && "$VENV/bin/python" -c 'import ray' 2>/dev/null; then
        echo "ray: virtualenv ready at $VENV"
        return
    fi
    mkdir -p "$CACHE_DIR"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install --quiet "ray==$RAY_VERSION"
    echo "ray: virtualenv ready at $VENV"
}

# A benchmark directory of QUESTIONS questions over three small datasets.
write_bench() {
    python3 - "$1" "$QUESTIONS" <<'PY'
import json, pathlib, sys
root, count = pathlib.Path(sys.argv[1]), int(sys.argv[2])
datasets = {"shop": [1, 2, 3], "zoo": [10, 20], "weather": [100, 200, 300, 400]}
for name, values in datasets.items():
    d = root / "datasets" / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "data.json").write_text(json.dumps({"rows": [{"v": v} for v in values]}))
    (d / "metadata.json").write_text(json.dumps({"description": f"{name} values", "columns": {"v": {"type": "int"}},
                                                 "dataset_keys": {"rows": "one row per record"}}))
lines = []
for n in range(count):
    name = list(datasets)[n % 3]
    kind = "sum" if n % 2 == 0 else "count"
    values = datasets[name]
    expected = sum(values) if kind == "sum" else len(values)
    question = "What is the total of v?" if kind == "sum" else "How many rows are there?"
    lines.append(json.dumps({"id": f"{name}_{n:03d}_{kind}", "question": question, "difficulty": "easy",
                             "expected_answer": expected, "dataset": name, "scorer": "dabstep"}))
(root / "questions.jsonl").write_text("\n".join(lines) + "\n")
PY
}

# Each question's status and answer in a run directory, as sorted lines.
answers() {
    python3 -c 'import json, sys
rows = json.load(open(sys.argv[1] + "/eval_results.json"))["detailed_results"]
for r in sorted(rows, key=lambda r: r["question_id"]):
    print(r["question_id"], r["status"], json.dumps(r["final_answer"]), r["correct"])' "$1"
}

WORK=""
SERVER=""
cleanup() {
    if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; fi
    "$VENV/bin/ray" stop --force >/dev/null 2>&1 || true
    if [ -n "$WORK" ]; then rm -rf "$WORK"; fi
}

check() {
    local bin work
    bin=$(eval_dag_bin ray)
    WORK=$(mktemp -d)
    work=$WORK
    trap cleanup EXIT
    write_bench "$work/bench"
    python3 "$REPO_ROOT/examples/ray/scripted_model.py" "$PORT" "$LATENCY_MS" >/dev/null 2>&1 &
    SERVER=$!
    sleep 1
    local model=(--llm openai --model scripted-model --base-url "http://127.0.0.1:$PORT/v1" --no-cache
        --concurrency "$CONCURRENCY")
    export OPENAI_API_KEY=scripted
    local started
    started=$(date +%s.%N)
    "$bin" run "$work/bench" "${model[@]}" --headless --out "$work/one" 2>/dev/null
    echo "one process: $(python3 -c "import sys, time; print(f'{time.time() - float(sys.argv[1]):.2f}')" "$started") s"
    answers "$work/one" > "$work/one.answers"
    for shards in 2 4; do
        echo "$shards shards (Ray):"
        RAY_ACCEL_ENV_VAR_OVERRIDE_ON_ZERO=0 "$VENV/bin/python" "$REPO_ROOT/examples/ray/driver.py" --shards "$shards" --binary "$bin" \
            --out "$work/ray$shards" -- "$work/bench" "${model[@]}"
        answers "$work/ray$shards/merged" > "$work/ray$shards.answers"
        if cmp -s "$work/one.answers" "$work/ray$shards.answers"; then
            echo "answers: the same as one process ($(wc -l < "$work/one.answers") questions)"
        else
            echo "ray: $shards shards answered otherwise than one process" >&2
            diff "$work/one.answers" "$work/ray$shards.answers" >&2 || true
            exit 1
        fi
    done
}

case "${1:-all}" in
    install) install_ray ;;
    check) check ;;
    all) install_ray; check ;;
    *) echo "usage: .ci/ray.sh [install|check]" >&2; exit 2 ;;
esac
