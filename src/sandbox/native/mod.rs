//! Native fast paths for the hot spots of pure-Python stdlib code in
//! RustPython (`datetime`, `decimal`, `statistics`, `Counter`'s counting loop)
//! and for sorting, each following the code it replaces exactly and handing
//! anything it does not fully cover back to it.
//!
//! Sorting is installed directly: `list.sort` on the list type and `sorted` in
//! the builtins, so the stdlib's own sorts (`statistics.median`, `quantiles`,
//! `Counter.most_common`) take it too; so are `min` and `max`, native only for
//! a key that reads fields (`key`). For the rest, the worker defines the
//! factories below in the prelude's scope; the prelude wraps the module
//! classes with them. Node code never sees these names (they
//! start with `_`); it reaches them only through the wrapped methods.

mod counter;
mod datetime;
mod decimal;
mod decimal_arith;
mod key;
mod minmax;
mod sort;
mod statistics;
mod strftime;

use rustpython_vm::{
    PyObjectRef, PyResult, VirtualMachine,
    builtins::{PyBaseObject, PyStr, PyStrInterned, PyTypeRef},
    function::{FuncArgs, PyMethodFlags, PySetterValue},
    scope::Scope,
    types::Constructor,
};

/// The text of an exact `str` that is valid UTF-8.
fn text(object: &PyObjectRef) -> Option<&str> {
    object.downcast_ref::<PyStr>()?.to_str()
}

/// An attribute of `object` through the generic lookup: what attribute access
/// does for classes without their own `__getattribute__`, minus the dispatch.
fn slot(object: &PyObjectRef, name: &'static PyStrInterned, vm: &VirtualMachine) -> Option<PyObjectRef> {
    object.generic_getattr_opt(name, None, vm).ok().flatten()
}

/// A new, uninitialised instance of `cls` with `slots` set: what a
/// constructor builds once its checks have passed.
fn new_instance(
    cls: PyObjectRef,
    slots: impl IntoIterator<Item = (&'static PyStrInterned, PyObjectRef)>,
    vm: &VirtualMachine,
) -> PyResult {
    let cls: PyTypeRef = cls.downcast().map_err(|_| vm.new_type_error("not a class"))?;
    let object = PyBaseObject::slot_new(cls, FuncArgs::default(), vm)?;
    for (name, value) in slots {
        object.generic_setattr(name, PySetterValue::Assign(value), vm)?;
    }
    Ok(object)
}

/// A method (bound to its instance like a Python `def`) named `name` running `f`.
fn method<F, K>(name: &'static str, f: F, vm: &VirtualMachine) -> PyObjectRef
where
    F: rustpython_vm::function::IntoPyNativeFn<K>,
{
    vm.ctx.new_method_def(name, f, PyMethodFlags::METHOD, None).build_method(vm.ctx.types.object_type, vm).into()
}

/// Define the factories in the prelude's scope (see the submodules).
pub fn install(vm: &VirtualMachine, scope: &Scope) -> PyResult<()> {
    sort::install(vm)?;
    minmax::install(vm)?;
    let functions =
        [datetime::functions(vm), decimal::functions(vm), vec![statistics::function(vm), counter::function(vm)]];
    for (name, function) in functions.into_iter().flatten() {
        scope.globals.set_item(name, function, vm)?;
    }
    Ok(())
}
