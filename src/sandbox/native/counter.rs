//! `collections.Counter`'s counting loop, `_count_elements(mapping,
//! iterable)`: RustPython has no C helper for it, so `Counter(iterable)` and
//! `Counter.update(iterable)` count in the module's pure-Python loop
//! (`mapping[elem] = mapping.get(elem, 0) + 1`, a bound-method call and two
//! subscripts per element in bytecode).
//!
//! This follows CPython's helper: when the mapping is a dict whose `get` and
//! `__setitem__` are dict's own (a `Counter`, unless a subclass overrides
//! them), each element's count is read from the dict's entries (0 when it
//! has none), one is added with Python's `+`, and the sum is stored in the
//! entries as `dict.__setitem__` stores it (CPython's helper calls
//! `_PyDict_SetItem_KnownHash` there, not the type's slot: `Counter` defines
//! `__delitem__`, so its slot looks `__setitem__` up by name on every call),
//! element by element as the iterable yields them; any other mapping is
//! counted by the Python loop.

use rustpython_vm::types::AsMapping;
use rustpython_vm::{AsObject, PyObjectRef, PyResult, VirtualMachine, builtins::PyDict, protocol::PyIterReturn};

/// `_native_count_elements(python_loop)`: the counting loop to put in
/// place of `collections._count_elements`, `python_loop` for other mappings.
pub fn function(vm: &VirtualMachine) -> (&'static str, PyObjectRef) {
    let factory = move |python_loop: PyObjectRef, vm: &VirtualMachine| -> PyResult {
        let dict_type = vm.ctx.types.dict_type;
        let (get_name, set_name) = (vm.ctx.intern_str("get"), vm.ctx.intern_str("__setitem__"));
        let missing = || vm.new_type_error("dict has no get or __setitem__");
        let dict_get = dict_type.get_attr(get_name).ok_or_else(missing)?;
        let dict_set = dict_type.get_attr(set_name).ok_or_else(missing)?;
        let store = PyDict::as_mapping().ass_subscript.ok_or_else(missing)?;
        let count = move |mapping: PyObjectRef, iterable: PyObjectRef, vm: &VirtualMachine| -> PyResult<()> {
            let class = mapping.class();
            let dict_methods = class.get_attr(get_name).is_some_and(|get| get.is(&dict_get))
                && class.get_attr(set_name).is_some_and(|set| set.is(&dict_set));
            let Some(dict) = mapping.downcast_ref::<PyDict>().filter(|_| dict_methods) else {
                return python_loop.call((mapping.clone(), iterable), vm).map(drop);
            };
            let iterator = iterable.get_iter(vm)?;
            let (zero, one): (PyObjectRef, PyObjectRef) = (vm.ctx.new_int(0).into(), vm.ctx.new_int(1).into());
            while let PyIterReturn::Return(element) = iterator.next(vm)? {
                // The count so far, straight from the entries as `dict.get`
                // reads it; a new element is entered with 0, in its place.
                let count = dict.get_or_insert(vm, element.clone(), || zero.clone())?;
                let count = vm._add(&count, &one)?;
                store(mapping.mapping_unchecked(), &element, Some(count), vm)?;
            }
            Ok(())
        };
        Ok(vm.new_function("_count_elements", count).into())
    };
    ("_native_count_elements", vm.new_function("_native_count_elements", factory).into())
}
