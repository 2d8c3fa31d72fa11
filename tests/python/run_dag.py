"""Reference runner: executes an eval-dag DAG in CPython with the same
conventions as the sandbox (modules bound by name, nodes in layer order,
per-node random seed, result converted to JSON by the documented rules).

Usage: python3 run_dag.py DATASET_DIR < dags.json > answers.json
(dags.json: a list of DAGs; answers: a list of final answers or errors)."""
import collections, datetime, decimal, fractions, functools, itertools, json, math
import operator, random, re, statistics, string, sys, types

MODULES = dict(math=math, statistics=statistics, collections=collections, itertools=itertools,
               functools=functools, json=json, re=re, datetime=datetime, decimal=decimal,
               fractions=fractions, random=random, operator=operator, string=string)


def node_seed(seed, node_id):
    h = 0xCBF29CE484222325
    for b in node_id.encode():
        h ^= b
        h = (h * 0x100000001B3) % 2**64
    return (seed ^ h) >> 1


def to_json(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v if -2**63 <= v < 2**63 else str(v)
    if isinstance(v, float):
        if v != v:
            return "NaN"
        if v in (float("inf"), float("-inf")):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(v, (decimal.Decimal, fractions.Fraction, complex)):
        return str(v)
    if isinstance(v, (datetime.datetime, datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, datetime.timedelta):
        return v.total_seconds()
    if isinstance(v, dict):
        return {(k if isinstance(k, str) else str(to_json(k))): to_json(x) for k, x in v.items()}
    if isinstance(v, (set, frozenset)):
        items = [to_json(x) for x in v]
        try:
            return sorted(items)
        except TypeError:
            return sorted(items, key=repr)
    if isinstance(v, (list, tuple, collections.deque, range)):
        return [to_json(x) for x in v]
    return repr(v)


def run(dag, data, seed=0):
    outputs = {}
    for node in sorted(dag["nodes"], key=lambda n: n["layer"]):
        g = dict(MODULES)
        exec(node["code"], g)
        args = []
        for ref in node.get("inputs", {}).values():
            if ref.startswith("dataset."):
                args.append(data[ref[len("dataset."):]])
            else:
                args.append(outputs[ref.split(".")[1]])
        random.seed(node_seed(seed, node["node_id"]))
        outputs[node["node_id"]] = g[node["function_name"]](*args)
    return to_json(outputs[dag["final_answer_node"]])


def main():
    with open(sys.argv[1] + "/data.json") as f:
        data = json.load(f)
    answers = []
    for dag in json.load(sys.stdin):
        try:
            answers.append({"answer": run(dag, data)})
        except Exception as exc:  # the error is part of the comparison
            answers.append({"error": "%s: %s" % (type(exc).__name__, exc)})
    json.dump(answers, sys.stdout)


if __name__ == "__main__":
    main()
