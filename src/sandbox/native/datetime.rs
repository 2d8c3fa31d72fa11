//! `datetime.datetime`: native `strptime`, `strftime` and ordering of naive
//! datetimes (the pure-Python `_pydatetime` class in RustPython).

use std::cmp::Ordering;

use rustpython_vm::{
    AsObject, PyObjectRef, PyResult, VirtualMachine,
    builtins::{PyBaseExceptionRef, PyInt, PyStrInterned},
    function::FuncArgs,
};

use super::object::{method, new_instance, slot, text};
use super::strftime::strftime;
use crate::dataset::strptime::{Parsed, Strptime, strptime};

/// The slots of the pure-Python `datetime.datetime`, interned once.
#[derive(Clone, Copy)]
struct DatetimeSlots {
    /// `_year` ... `_microsecond`, in the constructor's order.
    fields: [&'static PyStrInterned; 7],
    tzinfo: &'static PyStrInterned,
    hashcode: &'static PyStrInterned,
    fold: &'static PyStrInterned,
}

impl DatetimeSlots {
    fn new(vm: &VirtualMachine) -> Self {
        let names = ["_year", "_month", "_day", "_hour", "_minute", "_second", "_microsecond"];
        Self {
            fields: names.map(|name| vm.ctx.intern_str(name)),
            tzinfo: vm.ctx.intern_str("_tzinfo"),
            hashcode: vm.ctx.intern_str("_hashcode"),
            fold: vm.ctx.intern_str("_fold"),
        }
    }

    /// A field of `object` as an integer.
    fn int(object: &PyObjectRef, name: &'static PyStrInterned, vm: &VirtualMachine) -> Option<i64> {
        slot(object, name, vm)?.downcast_ref::<PyInt>()?.try_to_primitive(vm).ok()
    }

    /// Year ... microsecond of `object`, or `None` if it is not a datetime.
    fn fields(&self, object: &PyObjectRef, vm: &VirtualMachine) -> Option<[i64; 7]> {
        let mut fields = [0; 7];
        for (field, name) in fields.iter_mut().zip(self.fields) {
            *field = Self::int(object, name, vm)?;
        }
        Some(fields)
    }

    /// How two naive datetimes of the same class compare (field by field,
    /// `fold` ignored, as `_cmp` does), or `None` for anything else.
    fn compare_naive(&self, a: &PyObjectRef, b: &PyObjectRef, vm: &VirtualMachine) -> Option<Ordering> {
        let naive = |object: &PyObjectRef| slot(object, self.tzinfo, vm).is_some_and(|tz| vm.is_none(&tz));
        if !a.class().is(b.class()) || !naive(a) || !naive(b) {
            return None;
        }
        for name in self.fields {
            match Self::int(a, name, vm)?.cmp(&Self::int(b, name, vm)?) {
                Ordering::Equal => {}
                unequal => return Some(unequal),
            }
        }
        Some(Ordering::Equal)
    }

    /// A `cls` instance holding `parsed`: what the constructor builds once the
    /// fields are checked, without its ~10 µs of checks in Python
    /// (`strptime` has checked them).
    fn new_datetime(&self, cls: PyObjectRef, parsed: &Parsed, zone: &TimeZone, vm: &VirtualMachine) -> PyResult {
        let tzinfo = match parsed.offset {
            None => vm.ctx.none(),
            Some((seconds, micros)) => {
                let delta = zone.timedelta.call((0, seconds, micros), vm)?;
                zone.timezone.call((delta,), vm)?
            }
        };
        let int = |value: i64| vm.ctx.new_int(value).into();
        let fields = self.fields.into_iter().zip(parsed.fields.map(int));
        let rest = [(self.tzinfo, tzinfo), (self.hashcode, int(-1)), (self.fold, int(0))];
        new_instance(cls, fields.chain(rest), vm)
    }
}

/// The classes a `%z` offset is built from: `timezone(timedelta(...))`.
struct TimeZone {
    timezone: PyObjectRef,
    timedelta: PyObjectRef,
}

/// `_native_ordering(original, name)`: a method for `datetime.<name>` (one of
/// `__lt__ __le__ __gt__ __ge__`) comparing two naive datetimes natively and
/// calling `original` for anything else.
fn ordering(slots: DatetimeSlots, original: PyObjectRef, name: PyObjectRef, vm: &VirtualMachine) -> PyResult {
    let (name, wanted): (&'static str, fn(Ordering) -> bool) = match text(&name) {
        Some("__lt__") => ("__lt__", Ordering::is_lt),
        Some("__le__") => ("__le__", Ordering::is_le),
        Some("__gt__") => ("__gt__", Ordering::is_gt),
        Some("__ge__") => ("__ge__", Ordering::is_ge),
        _ => return Err(vm.new_value_error("not a datetime ordering method")),
    };
    let compare = move |zelf: PyObjectRef, other: PyObjectRef, vm: &VirtualMachine| -> PyResult {
        match slots.compare_naive(&zelf, &other, vm) {
            Some(order) => Ok(vm.ctx.new_bool(wanted(order)).into()),
            None => original.call((zelf, other), vm),
        }
    };
    Ok(method(name, compare, vm))
}

/// CPython's message for a day its month does not have.
const DAY_OUT_OF_RANGE: &str = "day is out of range for month";

/// `error` as CPython words it: the pure-Python `datetime` underneath says
/// "day 30 must be in range 1..28 for month 2 in year 2023" where CPython
/// says [`DAY_OUT_OF_RANGE`]; other errors pass unchanged.
fn in_cpython_words(error: PyBaseExceptionRef, vm: &VirtualMachine) -> PyBaseExceptionRef {
    let is_value_error = error.fast_isinstance(vm.ctx.exceptions.value_error);
    let text = error.as_object().str(vm).map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    if is_value_error && text.starts_with("day ") && text.contains(" must be in range ") {
        vm.new_value_error(DAY_OUT_OF_RANGE.to_string())
    } else {
        error
    }
}

/// The factories, by name:
/// - `_native_strptime(cls, original, timezone, timedelta)`: a function for
///   the classmethod `cls.strptime` returning what CPython's `strptime`
///   returns, natively for the common directives, else by calling `original`
///   (Python's);
/// - `_native_strftime(original)`: a method for `strftime` writing what
///   CPython writes, natively for the common directives, else by `original`;
/// - `_native_ordering(original, name)`: see [`ordering`].
pub fn functions(vm: &VirtualMachine) -> Vec<(&'static str, PyObjectRef)> {
    let slots = DatetimeSlots::new(vm);
    let native_strptime = move |cls: PyObjectRef,
                                original: PyObjectRef,
                                timezone: PyObjectRef,
                                timedelta: PyObjectRef,
                                vm: &VirtualMachine|
          -> PyObjectRef {
        let zone = TimeZone { timezone, timedelta };
        let parse = move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            if let ([given, date, format], true) = (args.args.as_slice(), args.kwargs.is_empty())
                && given.is(&cls)
                && let Some(found) = text(date).zip(text(format)).and_then(|(date, format)| strptime(date, format))
            {
                return match found {
                    Strptime::Parsed(parsed) => slots.new_datetime(cls.clone(), &parsed, &zone, vm),
                    // CPython's words, not those of the pure-Python datetime underneath.
                    Strptime::DayOutOfRange => Err(vm.new_value_error(DAY_OUT_OF_RANGE.to_string())),
                };
            }
            original.call(args, vm).map_err(|error| in_cpython_words(error, vm))
        };
        vm.new_function("strptime", parse).into()
    };
    let native_strftime = move |original: PyObjectRef, vm: &VirtualMachine| -> PyObjectRef {
        let write = move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            if let ([object, format], true) = (args.args.as_slice(), args.kwargs.is_empty())
                && let Some(written) =
                    slots.fields(object, vm).zip(text(format)).and_then(|(fields, format)| strftime(fields, format))
            {
                return Ok(vm.ctx.new_str(written).into());
            }
            original.call(args, vm)
        };
        method("strftime", write, vm)
    };
    let native_ordering =
        move |original: PyObjectRef, name: PyObjectRef, vm: &VirtualMachine| ordering(slots, original, name, vm);
    vec![
        ("_native_strptime", vm.new_function("_native_strptime", native_strptime).into()),
        ("_native_strftime", vm.new_function("_native_strftime", native_strftime).into()),
        ("_native_ordering", vm.new_function("_native_ordering", native_ordering).into()),
    ]
}
