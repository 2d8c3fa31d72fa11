# Runs once in each sandbox worker, with full privileges, before any node
# code, on either engine. It builds what node code may see: a restricted
# builtins dict and read-only proxies of the allowed modules. Node code itself
# runs with these globals only, under the AST policy (no imports, no
# underscore names or attributes, no eval/exec/open ...).
#
# The engine's own part runs next (`prelude_rustpython.py`,
# `cpython/prelude.py`): it defines `_machine_now`, `_machine_utcnow`,
# `_machine_today` and `_clock_class` for the run's clock, installs the clock
# where node code reads it, and sets `_MODULES = _modules()` once it has
# patched the modules.
import builtins as _b
import types as _types
import math, statistics, collections, itertools, functools, json, re
import datetime, decimal, fractions, random, operator, string

_FORBIDDEN_PREFIXES = ("_", "gi_", "cr_", "ag_", "f_", "tb_", "co_")

# Names that reach interpreter internals through ordinary attribute lookups.
_DENIED = {
    ("string", "Formatter"),
    ("operator", "attrgetter"),
    ("operator", "methodcaller"),
}

_ALLOWED_BUILTINS = [
    "abs", "all", "any", "ascii", "bin", "bool", "bytes", "callable", "chr", "complex",
    "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset", "hash", "hex",
    "int", "isinstance", "issubclass", "len", "list", "map", "max", "min", "next", "oct",
    "ord", "pow", "range", "repr", "reversed", "round", "set", "slice", "sorted", "str",
    "sum", "tuple", "zip", "True", "False", "None",
    "Exception", "ArithmeticError", "AssertionError", "AttributeError", "IndexError",
    "KeyError", "LookupError", "NameError", "NotImplementedError", "OverflowError",
    "RuntimeError", "StopIteration", "TypeError", "ValueError", "ZeroDivisionError",
]


def _check_name(name):
    if not isinstance(name, str):
        raise TypeError("attribute name must be a string")
    if name.startswith(_FORBIDDEN_PREFIXES):
        raise AttributeError("access to attribute %r is not allowed in node code" % name)


def _safe_getattr(obj, name, *default):
    _check_name(name)
    return _b.getattr(obj, name, *default)


def _safe_hasattr(obj, name):
    _check_name(name)
    return _b.hasattr(obj, name)


def _safe_type(obj):
    return _b.type(obj)


def _safe_iter(obj):
    return _b.iter(obj)


class _PrintBuffer:
    limit = 10000

    def __init__(self):
        self.parts = []
        self.size = 0

    def write(self, *args, sep=" ", end="\n"):
        text = str(sep).join(str(a) for a in args) + str(end)
        if self.size < self.limit:
            self.parts.append(text[: self.limit - self.size])
        self.size += len(text)

    def take(self):
        text = "".join(self.parts)
        if self.size > self.limit:
            text += "\n[... %d more characters of output dropped]" % (self.size - self.limit)
        self.parts = []
        self.size = 0
        return text


_print_buffer = _PrintBuffer()


def _safe_print(*args, sep=" ", end="\n"):
    _print_buffer.write(*args, sep=sep, end=end)


def _public(module):
    names = {}
    for name in _b.dir(module):
        if name.startswith("_") or (module.__name__, name) in _DENIED:
            continue
        value = _b.getattr(module, name)
        if isinstance(value, _types.ModuleType):
            continue
        names[name] = value
    return _types.SimpleNamespace(**names)


def _modules():
    """The allowed modules as node code sees them (read-only namespaces), taken
    once the engine's own part of the prelude has patched them."""
    return {
        m.__name__: _public(m)
        for m in (math, statistics, collections, itertools, functools, json, re,
                  datetime, decimal, fractions, random, operator, string)
    }


_SAFE_BUILTINS = {name: _b.getattr(_b, name) for name in _ALLOWED_BUILTINS}
_SAFE_BUILTINS.update(getattr=_safe_getattr, hasattr=_safe_hasattr, type=_safe_type,
                      iter=_safe_iter, print=_safe_print)

_original_import = _b.__import__


def _guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
    if globals is not None and globals.get("__eval_dag_node__"):
        raise ImportError("imports are not allowed in node code; the allowed modules are already available by name")
    return _original_import(name, globals, locals, fromlist, level)


_b.__import__ = _guarded_import
import sys as _sys
_sys.setrecursionlimit(400)
del _sys


def node_globals():
    """A fresh global namespace for one node."""
    g = {"__builtins__": dict(_SAFE_BUILTINS), "__eval_dag_node__": True, "__name__": "node"}
    g.update(_MODULES)
    return g


def seed_node(seed):
    random.seed(seed)


def _no_urandom(n):
    raise NotImplementedError(
        "os.urandom is not available in the sandbox (runs must replay): use the random module, "
        "which is seeded per node from the run's seed")


# Node randomness comes from `random`, seeded per node from the run's seed,
# so that a run replays: `random.SystemRandom`, which draws from the machine
# through `random._urandom`, refuses.
random._urandom = _no_urandom


# The run's clock: datetime.now(), today() and utcnow() and date.today() in
# node code read the instant the run recorded (`set_run_clock`, called before
# each DAG), in the run's own offset — not this machine's clock or zone. With
# no clock recorded they read the machine's, as before.
_run_clock = [None]
_datetime_class = datetime.datetime


def _clock_now(cls, tz=None):
    instant = _run_clock[0]
    if instant is None:
        return _machine_now(cls, tz)
    return instant.replace(tzinfo=None) if tz is None else instant.astimezone(tz)


def _clock_utcnow(cls):
    instant = _run_clock[0]
    if instant is None:
        return _machine_utcnow(cls)
    return instant.astimezone(datetime.timezone.utc).replace(tzinfo=None)


def _clock_today(cls):
    instant = _run_clock[0]
    if instant is None:
        return _machine_today(cls)
    local = instant.replace(tzinfo=None)
    return local if issubclass(cls, _datetime_class) else local.date()


def set_run_clock(text):
    _run_clock[0] = None if text is None else _clock_class.fromisoformat(text)


def take_printed():
    return _print_buffer.take()


_MAX_DEPTH = 64
_LAZY_TYPES = tuple(t for t in (_types.GeneratorType, map, filter, zip, enumerate, reversed) if isinstance(t, type))


def to_json(value, depth=0, path=None):
    """A JSON-compatible copy of value (see the sandbox docs for the rules)."""
    if path is None:
        path = set()
    if depth > _MAX_DEPTH:
        raise ValueError("the result is nested more than %d levels deep" % _MAX_DEPTH)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        if -(2 ** 63) <= value < 2 ** 63:
            return value
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "Infinity" if value > 0 else "-Infinity"
        return value
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, fractions.Fraction):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, datetime.timedelta):
        return value.total_seconds()
    if isinstance(value, complex):
        return str(value)
    key = id(value)
    if key in path:
        raise ValueError("the result refers to itself (a cycle)")
    path.add(key)
    try:
        if isinstance(value, dict):
            return {(k if isinstance(k, str) else str(to_json(k, depth + 1, path))): to_json(v, depth + 1, path)
                    for k, v in value.items()}
        if isinstance(value, (set, frozenset)):
            items = [to_json(v, depth + 1, path) for v in value]
            try:
                return sorted(items)
            except TypeError:
                return sorted(items, key=repr)
        if isinstance(value, (list, tuple, collections.deque, range)):
            return [to_json(v, depth + 1, path) for v in value]
        if isinstance(value, _LAZY_TYPES):
            raise TypeError("the node returned a lazy %s; return a list instead" % _b.type(value).__name__)
        return repr(value)
    finally:
        path.discard(key)
