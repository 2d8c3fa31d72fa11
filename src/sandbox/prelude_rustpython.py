# RustPython's part of the sandbox prelude (after `prelude.py`, in the same
# namespace): native fast paths and the run's clock on the classes themselves
# (RustPython's datetime is Python code, so its classes take new methods).

# datetime.datetime: native fast paths (`_native_*`, defined by the worker) for
# strptime and strftime with the common directives and for ordering naive
# datetimes; Python's code otherwise.
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


# The run's clock on the classes themselves (see `prelude.py`).
_machine_now = _datetime_class.now.__func__
_machine_utcnow = _datetime_class.utcnow.__func__
_machine_today = datetime.date.today.__func__
_clock_class = _datetime_class
_datetime_class.now = classmethod(_clock_now)
_datetime_class.utcnow = classmethod(_clock_utcnow)
_datetime_class.today = classmethod(_clock_today)
datetime.date.today = classmethod(_clock_today)

_MODULES = _modules()
