"""eval-dag in N shards on a Ray cluster, then merged into one run.

One Ray task per shard runs `eval-dag run ... --shard auto/N` on whatever node
Ray places it, with RAY_SHARD_INDEX (0-based) set; once every task is done the
driver runs `eval-dag merge` on the shards' directories. Every node needs the
eval-dag binary, the benchmark directory (or dataset and --questions-file list)
at the same path, the model's key in its environment, and OUT on a volume the
driver can read.

    python driver.py --shards 4 --out /shared/runs/sweep -- \\
        /shared/bench --llm openai --model gpt-4o-mini --no-cache

Everything after `--` is given to each shard's `eval-dag run` (the dataset or
benchmark directory first). The driver prints each shard's wall time, the
merge's, and the whole, and exits with the merge's exit code.
"""

import argparse
import os
import subprocess
import sys
import time

import ray


@ray.remote(num_cpus=1)
def run_shard(binary, index, count, run_args, out):
    """Run shard index+1 of count; return its directory, exit code and seconds."""
    started = time.monotonic()
    env = dict(os.environ, RAY_SHARD_INDEX=str(index))
    command = [binary, "run", *run_args, "--shard", f"auto/{count}", "--headless", "--out", out]
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):
        sys.stderr.write(done.stderr)
    return out, done.returncode, time.monotonic() - started


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shards", type=int, required=True, help="how many shards (Ray tasks)")
    parser.add_argument("--out", required=True, help="directory for shards/<k> and merged/")
    parser.add_argument("--binary", default="eval-dag", help="the eval-dag binary on every node")
    parser.add_argument("--address", default=None, help="Ray cluster address (default: start or join a local one)")
    parser.add_argument("run_args", nargs=argparse.REMAINDER, help="-- then eval-dag run's arguments")
    args = parser.parse_args()
    run_args = args.run_args[1:] if args.run_args[:1] == ["--"] else args.run_args
    ray.init(address=args.address, include_dashboard=False, log_to_driver=False)
    started = time.monotonic()
    tasks = [
        run_shard.remote(args.binary, index, args.shards, run_args, os.path.join(args.out, "shards", str(index)))
        for index in range(args.shards)
    ]
    shards = ray.get(tasks)
    for out, code, seconds in shards:
        print(f"shard {out}: exit {code}, {seconds:.2f} s")
    merge_started = time.monotonic()
    merged = os.path.join(args.out, "merged")
    merge = subprocess.run([args.binary, "merge", *[out for out, _, _ in shards], "--out", merged])
    ended = time.monotonic()
    print(f"merge: exit {merge.returncode}, {ended - merge_started:.2f} s")
    print(f"whole: {ended - started:.2f} s")
    sys.exit(merge.returncode)


if __name__ == "__main__":
    main()
