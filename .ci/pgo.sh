#!/usr/bin/env bash
# Builds eval-dag with profile-guided optimisation: an instrumented build, a
# training run of the worker over the DAGs of benches/full_size.rs on its
# 20,000-row data, then a release build that uses the merged profile.
# BENCHMARKS.md, "Profile-guided optimisation", has what it gains and costs.
# Not run by CI; about 20 minutes on 2 cores.
#
# Usage: .ci/pgo.sh [OUT]   (OUT defaults to target/pgo/eval-dag)
# Needs the toolchain's own llvm-profdata: rustup component add llvm-tools
# (a system llvm-profdata of another LLVM version cannot read rustc's profiles).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=${1:-$root/target/pgo/eval-dag}
work=$root/target/pgo
host=$(rustc -vV | sed -n 's/^host: //p')
profdata=$(rustc --print sysroot)/lib/rustlib/$host/bin/llvm-profdata
if [ ! -x "$profdata" ]; then
  echo "pgo: no llvm-profdata in the toolchain; run: rustup component add llvm-tools"
  exit 1
fi
rm -rf "$work/data" "$work/profiles" "$work/requests"
mkdir -p "$work/data" "$work/profiles" "$work/requests" "$(dirname "$out")"

echo "pgo: training data (benches/full_size.rs, 20,000 rows)"
FULL_SIZE_KEEP="$work/data" FULL_SIZE_SKIP=dags,clean,start,memory \
  cargo bench --locked --profile dev --bench full_size -- 20000 > "$work/data/bench.log"
python3 - "$work/data/dags.json" "$work/requests" <<'PY'
import json, sys
groups = json.load(open(sys.argv[1]))
dags = [dag for group in groups for dag in group]
for number, dag in enumerate(dags):
    with open(f"{sys.argv[2]}/{number:02d}.jsonl", "w") as request:
        request.write(json.dumps({"dag": dag, "seed": 0}) + "\n")
print(f"pgo: {len(dags)} training DAGs")
PY

echo "pgo: instrumented build (test hooks: the training runs without the kernel layers,"
echo "     whose Landlock rules would refuse the profile's file)"
RUSTFLAGS="-Cprofile-generate=$work/profiles" CARGO_TARGET_DIR="$work/generate" \
  cargo build --locked --release --features sandbox-test-hooks

echo "pgo: training"
for request in "$work"/requests/*.jsonl; do
  reply=$(LLVM_PROFILE_FILE="$work/profiles/eval-dag-%p-%m.profraw" EVAL_DAG_TEST_WITHOUT_KERNEL_LAYERS=1 \
    "$work/generate/release/eval-dag" sandbox-worker --dataset "$work/data/20000" < "$request")
  if ! grep -q '"success":true' <<< "$reply"; then
    echo "pgo: the training DAG $request did not succeed"
    exit 1
  fi
done
"$profdata" merge -o "$work/profiles/merged.profdata" "$work"/profiles/*.profraw

echo "pgo: the build that uses the profile"
RUSTFLAGS="-Cprofile-use=$work/profiles/merged.profdata" CARGO_TARGET_DIR="$work/use" \
  cargo build --locked --release
cp "$work/use/release/eval-dag" "$out"
echo "pgo: built $out"
