# CPython's part of the sandbox prelude (after `prelude.py`, in the same
# namespace). CPython's datetime classes are C types that take no new
# methods, so the run's clock lives in subclasses that node code sees under
# the classes' names: `datetime.datetime` and `datetime.date` in node code are
# these, print and compare as the originals, and any instance of an original
# passes `isinstance` against them.


class _ClockType(type):
    """Metaclass: an instance of the original class is an instance of its
    stand-in, and the original is a subclass of it."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, cls._original)

    def __subclasscheck__(cls, other):
        return issubclass(other, cls._original)


class _ClockDatetime(_datetime_class, metaclass=_ClockType):
    __slots__ = ()
    _original = _datetime_class
    now = classmethod(_clock_now)
    utcnow = classmethod(_clock_utcnow)
    today = classmethod(_clock_today)


class _ClockDate(datetime.date, metaclass=_ClockType):
    __slots__ = ()
    _original = datetime.date
    today = classmethod(_clock_today)


# Python asks a right operand first only when its type subclasses the left's:
# `date < datetime` reaches datetime's comparison (a TypeError, or unequal),
# which `_ClockDate < datetime` would not. Its operators step aside for a
# datetime as the original's do.
def _deferring(name):
    original = getattr(datetime.date, name)

    def method(self, other):
        if isinstance(other, _datetime_class):
            return NotImplemented
        return original(self, other)

    method.__name__ = name
    return method


for _name in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__sub__", "__rsub__"):
    setattr(_ClockDate, _name, _deferring(_name))
_ClockDate.__hash__ = datetime.date.__hash__

# The C types print `type.__name__`: the originals print their module too.
_ClockDatetime.__name__, _ClockDatetime.__qualname__ = "datetime.datetime", "datetime"
_ClockDate.__name__, _ClockDate.__qualname__ = "datetime.date", "date"
_ClockDatetime.__module__ = _ClockDate.__module__ = "datetime"


def _machine_now(cls, tz=None):
    return super(_ClockDatetime, cls).now(tz)


def _machine_utcnow(cls):
    return super(_ClockDatetime, cls).utcnow()


def _machine_today(cls):
    base = _ClockDatetime if issubclass(cls, _ClockDatetime) else _ClockDate
    return super(base, cls).today()


_clock_class = _ClockDatetime
_MODULES = _modules()
_MODULES["datetime"].datetime = _ClockDatetime
_MODULES["datetime"].date = _ClockDate

# CPython's C code imports some modules when first needed (`strptime` imports
# `_strptime`) through the node's builtins. Node code cannot name
# `__import__`; these calls get a module already loaded, and nothing new is
# ever loaded once the worker is confined (no file opens).
# The same goes for modules the allowed ones import inside their functions
# (`Counter.most_common` imports `heapq`) and codecs looked up by name: they
# are loaded here, before the worker is confined.
import _strptime, heapq, bisect, copy, calendar, locale, unicodedata, warnings  # noqa: E401,E402
import encodings.latin_1, encodings.ascii, encodings.utf_16, encodings.utf_32, encodings.cp1252  # noqa: E401,E402


def _loaded_only_import(name, globals=None, locals=None, fromlist=(), level=0):
    module = _sys_modules.get(name)
    if level != 0 or module is None:
        raise ImportError("imports are not allowed in node code; the allowed modules are already available by name")
    return module


_sys_modules = __import__("sys").modules
_SAFE_BUILTINS["__import__"] = _loaded_only_import
