# Shell pieces the by-hand scripts (.ci/local-model.sh, .ci/ray.sh) share; sourced, not run.

# The eval-dag binary to drive: EVAL_DAG_BIN, else the release build, else the debug build.
# $1 names the calling script in the error.
eval_dag_bin() {
    if [ -n "${EVAL_DAG_BIN:-}" ]; then echo "$EVAL_DAG_BIN"; return; fi
    for candidate in "$REPO_ROOT/target/release/eval-dag" "$REPO_ROOT/target/debug/eval-dag"; do
        if [ -x "$candidate" ]; then echo "$candidate"; return; fi
    done
    echo "$1: no eval-dag binary; run cargo build first or set EVAL_DAG_BIN" >&2
    exit 2
}
