# Runs once in each sandbox worker, with full privileges, before any node
# code. It builds what node code may see: a restricted builtins dict and
# read-only proxies of the allowed modules. Node code itself runs with these
# globals only, under the AST policy (no imports, no underscore names or
# attributes, no eval/exec/open ...).
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


# datetime.datetime: native fast paths (`_native_*`, defined by the worker) for
# strptime and strftime with the common directives and for ordering naive
# datetimes; Python's code otherwise.
_datetime_class = datetime.datetime
_datetime_class.strptime = classmethod(_native_strptime(
    _datetime_class, _datetime_class.strptime.__func__, datetime.timezone, datetime.timedelta))
_datetime_class.strftime = _native_strftime(_datetime_class.strftime)
for _name in ("__lt__", "__le__", "__gt__", "__ge__"):
    setattr(_datetime_class, _name, _native_ordering(getattr(_datetime_class, _name), _name))

# decimal.Decimal: native construction from a plain numeric string and exact
# addition; Python's code otherwise.
_decimal_class = decimal.Decimal
_decimal_class.__new__ = staticmethod(_native_decimal_new(_decimal_class, _decimal_class.__new__))
_decimal_class.__add__ = _decimal_class.__radd__ = _native_decimal_add(
    _decimal_class, _decimal_class.__add__, decimal.getcontext)

# statistics.mean, stdev and pstdev over floats and ints: the exact sums natively
# (`_native_float_sums`), then the module's own final steps on the same
# Fractions, so the results are identical; Python's code for anything else.
_python_mean, _python_stdev, _python_pstdev = statistics.mean, statistics.stdev, statistics.pstdev


def _exact_moments(data):
    """(n, sum, sum of squares, T) with exact Fraction sums and T the type
    `_sum` infers, for a list or tuple of finite floats and ints; else None."""
    sums = _native_float_sums(data)
    if sums is None:
        return None
    n, total, high, low, exponent, any_float = sums
    scale = fractions.Fraction(2) ** exponent
    return n, total * scale, ((high << 128) | low) * scale * scale, float if any_float else int


def _listed(data):
    return data if isinstance(data, (list, tuple)) else list(data)


def _sqrt_mean_square(moments, lost_degrees):
    n, total, squares, _ = moments
    ss = (n * squares - total * total) / n
    mss = ss / (n - lost_degrees)
    return statistics._float_sqrt_of_frac(mss.numerator, mss.denominator)


@functools.wraps(_python_mean)
def _fast_mean(data):
    data = _listed(data)
    moments = _exact_moments(data)
    if moments is None or moments[0] < 1:
        return _python_mean(data)
    n, total, _, kind = moments
    return statistics._convert(total / n, kind)


@functools.wraps(_python_stdev)
def _fast_stdev(data, xbar=None):
    data = _listed(data)
    moments = _exact_moments(data) if xbar is None else None
    if moments is None or moments[0] < 2:
        return _python_stdev(data, xbar)
    return _sqrt_mean_square(moments, 1)


@functools.wraps(_python_pstdev)
def _fast_pstdev(data, mu=None):
    data = _listed(data)
    moments = _exact_moments(data) if mu is None else None
    if moments is None or moments[0] < 1:
        return _python_pstdev(data, mu)
    return _sqrt_mean_square(moments, 0)


statistics.mean, statistics.stdev, statistics.pstdev = _fast_mean, _fast_stdev, _fast_pstdev

# collections.Counter(iterable) and Counter.update count through
# `_count_elements`: natively for dicts with dict's own get and __setitem__
# (`_native_count_elements`), Python's loop otherwise.
collections._count_elements = _native_count_elements(collections._count_elements)

# The named tuple `date.isocalendar()` returns reads as CPython's C type does.
def _isocalendar_repr(self):
    return "datetime.IsoCalendarDate(year=%r, week=%r, weekday=%r)" % tuple(self)


_b.type(datetime.date(2000, 1, 1).isocalendar()).__repr__ = _isocalendar_repr

_MODULES = {
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


# The run's clock: datetime.now(), today() and utcnow() and date.today() in
# node code read the instant the run recorded (`set_run_clock`, called before
# each DAG), in the run's own offset — not this machine's clock or zone. With
# no clock recorded they read the machine's, as before.
_run_clock = [None]
_machine_now = _datetime_class.now.__func__
_machine_utcnow = _datetime_class.utcnow.__func__
_machine_today = datetime.date.today.__func__


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


_datetime_class.now = classmethod(_clock_now)
_datetime_class.utcnow = classmethod(_clock_utcnow)
_datetime_class.today = classmethod(_clock_today)
datetime.date.today = classmethod(_clock_today)


def set_run_clock(text):
    _run_clock[0] = None if text is None else _datetime_class.fromisoformat(text)


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
