//! Building blocks the native fast paths share: reading a `str`, reading and
//! creating instances of the prelude's classes, and wrapping a Rust closure as
//! a Python method.

use rustpython_vm::{
    PyObjectRef, PyResult, VirtualMachine,
    builtins::{PyBaseObject, PyStr, PyStrInterned, PyTypeRef},
    function::{FuncArgs, PyMethodFlags, PySetterValue},
    types::Constructor,
};

/// The text of an exact `str` that is valid UTF-8.
pub(super) fn text(object: &PyObjectRef) -> Option<&str> {
    object.downcast_ref::<PyStr>()?.to_str()
}

/// An attribute of `object` through the generic lookup: what attribute access
/// does for classes without their own `__getattribute__`, minus the dispatch.
pub(super) fn slot(object: &PyObjectRef, name: &'static PyStrInterned, vm: &VirtualMachine) -> Option<PyObjectRef> {
    object.generic_getattr_opt(name, None, vm).ok().flatten()
}

/// A new, uninitialised instance of `cls` with `slots` set: what a
/// constructor builds once its checks have passed.
pub(super) fn new_instance(
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
pub(super) fn method<F, K>(name: &'static str, f: F, vm: &VirtualMachine) -> PyObjectRef
where
    F: rustpython_vm::function::IntoPyNativeFn<K>,
{
    vm.ctx.new_method_def(name, f, PyMethodFlags::METHOD, None).build_method(vm.ctx.types.object_type, vm).into()
}
