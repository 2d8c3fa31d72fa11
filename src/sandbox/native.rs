//! Native functions handed to the prelude, which wires them into the module
//! proxies behind pure-Python fallbacks. Node code never sees these names
//! (they start with `_`); it reaches them only through the wrapped methods.

use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine, builtins::PyStr, scope::Scope};

use super::strptime::{Parsed, strptime};

/// A `datetime` of class `cls` (the pure-Python `datetime.datetime`) holding
/// `parsed`: the object its constructor builds once the fields are checked,
/// without the ~10 µs of checks in Python (`strptime` has checked them).
fn new_datetime(cls: PyObjectRef, parsed: &Parsed, vm: &VirtualMachine) -> PyResult {
    let tzinfo = match parsed.offset {
        None => vm.ctx.none(),
        Some((seconds, micros)) => {
            let module = vm.import("datetime", 0)?;
            let delta = module.get_attr("timedelta", vm)?.call((0, seconds, micros), vm)?;
            module.get_attr("timezone", vm)?.call((delta,), vm)?
        }
    };
    let object = vm.ctx.types.object_type.as_object().get_attr("__new__", vm)?.call((cls,), vm)?;
    let names = ["_year", "_month", "_day", "_hour", "_minute", "_second", "_microsecond"];
    for (name, &value) in names.into_iter().zip(&parsed.fields) {
        object.set_attr(vm.ctx.intern_str(name), vm.ctx.new_int(value), vm)?;
    }
    object.set_attr(vm.ctx.intern_str("_tzinfo"), tzinfo, vm)?;
    object.set_attr(vm.ctx.intern_str("_hashcode"), vm.ctx.new_int(-1), vm)?;
    object.set_attr(vm.ctx.intern_str("_fold"), vm.ctx.new_int(0), vm)?;
    Ok(object)
}

/// `_native_strptime(cls, text, format)`: the `cls` instance CPython's
/// `strptime` returns, or `None` when Python's `_strptime` must decide.
fn native_strptime(cls: PyObjectRef, text: PyObjectRef, format: PyObjectRef, vm: &VirtualMachine) -> PyResult {
    let as_str = |object: &PyObjectRef| object.downcast_ref::<PyStr>().and_then(|s| s.to_str().map(str::to_owned));
    match (as_str(&text), as_str(&format)) {
        (Some(text), Some(format)) => match strptime(&text, &format) {
            Some(parsed) => new_datetime(cls, &parsed, vm),
            None => Ok(vm.ctx.none()),
        },
        _ => Ok(vm.ctx.none()),
    }
}

/// Define the native functions in the prelude's scope.
pub fn install(vm: &VirtualMachine, scope: &Scope) -> PyResult<()> {
    scope.globals.set_item("_native_strptime", vm.new_function("_native_strptime", native_strptime).into(), vm)
}
