//! `min` and `max` with a `key` that only reads fields (see `key`): the keys
//! are computed without a Python call per item. As in CPython, the iterable
//! is walked once, each item's key computed as it comes, and an item replaces
//! the best so far only when its key compares strictly less (`min`) or
//! greater (`max`) with Python's `<` / `>`, so the first of equal keys wins.
//! Every other call (no `key`, a key that is called, several positional
//! arguments, other keywords) is RustPython's own `min` or `max`.

use rustpython_vm::{
    PyObjectRef, PyResult, VirtualMachine, function::FuncArgs, protocol::PyIterReturn, types::PyComparisonOp,
};

use super::key::KeyFn;

/// The best item of `iterable` by `key` under `op`, `default` when it is empty.
fn best(
    name: &str,
    iterable: &PyObjectRef,
    key: &KeyFn,
    default: Option<PyObjectRef>,
    op: PyComparisonOp,
    vm: &VirtualMachine,
) -> PyResult {
    let iterator = iterable.get_iter(vm)?;
    let PyIterReturn::Return(mut best) = iterator.next(vm)? else {
        // RustPython's own message for this case, so that it does not depend on `key`.
        return default.ok_or_else(|| vm.new_value_error(format!("{name}() iterable argument is empty")));
    };
    let mut best_key = key.apply(&best, vm)?;
    while let PyIterReturn::Return(item) = iterator.next(vm)? {
        let item_key = key.apply(&item, vm)?;
        if item_key.rich_compare_bool(&best_key, op, vm)? {
            best = item;
            best_key = item_key;
        }
    }
    Ok(best)
}

/// The iterable, key and default of a call `name(iterable, key=...,
/// default=...)` whose key is evaluated natively, or `None` for any other call.
fn native_call(args: &FuncArgs, vm: &VirtualMachine) -> Option<(PyObjectRef, KeyFn, Option<PyObjectRef>)> {
    let [iterable] = args.args.as_slice() else { return None };
    let (mut key, mut default) = (None, None);
    for (name, value) in &args.kwargs {
        match name.as_str() {
            "key" => key = Some(KeyFn::new(value.clone(), vm)),
            "default" => default = Some(value.clone()),
            _ => return None,
        }
    }
    key.filter(KeyFn::is_read).map(|key| (iterable.clone(), key, default))
}

/// Put the native `min` and `max` in the builtins, each calling RustPython's
/// own for what it does not cover.
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    for (name, op) in [("min", PyComparisonOp::Lt), ("max", PyComparisonOp::Gt)] {
        let python = vm.builtins.get_attr(name, vm)?;
        let function = move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            match native_call(&args, vm) {
                Some((iterable, key, default)) => best(name, &iterable, &key, default, op, vm),
                None => python.call(args, vm),
            }
        };
        vm.builtins.set_attr(name, vm.new_function(name, function), vm)?;
    }
    Ok(())
}
