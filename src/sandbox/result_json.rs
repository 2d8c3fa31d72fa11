//! A node's result as JSON, natively, when it holds only plain values — the
//! common case (lists of numbers, rows, counts by key). The prelude's Python
//! `to_json` costs ~4 µs a value in RustPython (8 ms for 2,000 floats); this
//! gives exactly what it and the serialisation after it give, and declines
//! (`None`) anything else — Decimal, datetime, set, deque, a float key, an int
//! beyond 64 bits, NaN, a dict subclass with its own `items`, nesting past the
//! depth limit (so cycles too) — for the Python path to convert or reject.
//!
//! An intermediate node's result is only shown, never kept as JSON: its
//! display copy is made reading only the items shown (see [`PlainJson::preview`]).

use std::collections::HashSet;

use rustpython_vm::{
    AsObject, PyObjectRef, VirtualMachine,
    builtins::{PyDict, PyFloat, PyInt, PyList, PyStr, PyTuple},
};
use serde_json::{Map, Number, Value};

use super::output::{DISPLAY_ITEMS, display_string, mark_more_items, mark_more_keys};

/// The prelude's `_MAX_DEPTH`: deeper values are the Python path's to reject.
const MAX_DEPTH: usize = 64;

/// Converts plain results; see the module docs.
pub struct PlainJson {
    /// `dict.items`: a dict whose class resolves `items` to anything else is declined.
    dict_items: Option<PyObjectRef>,
}

impl PlainJson {
    /// Look up what identifies a plain dict.
    pub fn new(vm: &VirtualMachine) -> Self {
        Self { dict_items: vm.ctx.types.dict_type.get_attr(vm.ctx.intern_str("items")) }
    }

    /// The JSON of `object`, or `None` if it holds anything but plain values.
    pub fn convert(&self, vm: &VirtualMachine, object: &PyObjectRef) -> Option<Value> {
        self.value(vm, object, 0)
    }

    /// What `truncate_for_display` makes of the JSON of `object`, reading
    /// only the items it keeps (and every dict key, whose text decides which
    /// keys are kept); `None` if a kept part holds anything but plain values.
    pub fn preview(&self, vm: &VirtualMachine, object: &PyObjectRef) -> Option<Value> {
        self.shown(vm, object, 0)
    }

    fn shown(&self, vm: &VirtualMachine, object: &PyObjectRef, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        let class = object.class();
        let types = &vm.ctx.types;
        if class.is(types.str_type) {
            Some(display_string(object.downcast_ref::<PyStr>()?.to_str()?))
        } else if class.is(types.list_type) {
            let (kept, total) = {
                let items = object.downcast_ref::<PyList>()?.borrow_vec();
                (items.iter().take(DISPLAY_ITEMS).cloned().collect::<Vec<_>>(), items.len())
            };
            self.shown_array(vm, &kept, total, depth)
        } else if class.is(types.tuple_type) {
            let items = object.downcast_ref::<PyTuple>()?.as_slice();
            self.shown_array(vm, &items[..items.len().min(DISPLAY_ITEMS)], items.len(), depth)
        } else if self.is_plain_dict(vm, object) {
            let (mut map, mut more) = (Map::new(), HashSet::new());
            for (key, value) in object.downcast_ref::<PyDict>()? {
                let key = Self::key(vm, &key)?;
                // As JSON, a later key of the same text replaces the earlier's value.
                if map.contains_key(&key) || map.len() < DISPLAY_ITEMS {
                    map.insert(key, self.shown(vm, &value, depth + 1)?);
                } else {
                    more.insert(key);
                }
            }
            let total = map.len() + more.len();
            mark_more_keys(&mut map, total);
            Some(Value::Object(map))
        } else {
            self.value(vm, object, depth)
        }
    }

    fn shown_array(&self, vm: &VirtualMachine, kept: &[PyObjectRef], total: usize, depth: usize) -> Option<Value> {
        let mut out = kept.iter().map(|item| self.shown(vm, item, depth + 1)).collect::<Option<Vec<_>>>()?;
        mark_more_items(&mut out, total);
        Some(Value::Array(out))
    }

    fn is_plain_dict(&self, vm: &VirtualMachine, object: &PyObjectRef) -> bool {
        let class = object.class();
        class.is(vm.ctx.types.dict_type)
            || (object.downcast_ref::<PyDict>().is_some()
                && class
                    .get_attr(vm.ctx.intern_str("items"))
                    .zip(self.dict_items.as_ref())
                    .is_some_and(|(a, b)| a.is(b)))
    }

    fn value(&self, vm: &VirtualMachine, object: &PyObjectRef, depth: usize) -> Option<Value> {
        if depth > MAX_DEPTH {
            return None;
        }
        let class = object.class();
        let types = &vm.ctx.types;
        if vm.is_none(object) {
            Some(Value::Null)
        } else if class.is(types.bool_type) {
            Some(Value::Bool(object.is(&vm.ctx.true_value)))
        } else if class.is(types.str_type) {
            Some(Value::String(object.downcast_ref::<PyStr>()?.to_str()?.to_owned()))
        } else if class.is(types.int_type) {
            Some(Value::from(object.downcast_ref::<PyInt>()?.try_to_primitive::<i64>(vm).ok()?))
        } else if class.is(types.float_type) {
            Number::from_f64(object.downcast_ref::<PyFloat>()?.to_f64()).map(Value::Number)
        } else if class.is(types.list_type) {
            let items = object.downcast_ref::<PyList>()?.borrow_vec().to_vec();
            self.array(vm, &items, depth)
        } else if class.is(types.tuple_type) {
            self.array(vm, object.downcast_ref::<PyTuple>()?.as_slice(), depth)
        } else if self.is_plain_dict(vm, object) {
            let mut map = Map::new();
            for (key, value) in object.downcast_ref::<PyDict>()? {
                map.insert(Self::key(vm, &key)?, self.value(vm, &value, depth + 1)?);
            }
            Some(Value::Object(map))
        } else {
            None
        }
    }

    fn array(&self, vm: &VirtualMachine, items: &[PyObjectRef], depth: usize) -> Option<Value> {
        items.iter().map(|item| self.value(vm, item, depth + 1)).collect::<Option<Vec<_>>>().map(Value::Array)
    }

    /// A dict key as `to_json` writes it: a str as is, else `str(to_json(key))`.
    fn key(vm: &VirtualMachine, key: &PyObjectRef) -> Option<String> {
        let class = key.class();
        let types = &vm.ctx.types;
        if class.is(types.str_type) {
            Some(key.downcast_ref::<PyStr>()?.to_str()?.to_owned())
        } else if class.is(types.int_type) {
            Some(key.downcast_ref::<PyInt>()?.try_to_primitive::<i64>(vm).ok()?.to_string())
        } else if class.is(types.bool_type) {
            Some(if key.is(&vm.ctx.true_value) { "True" } else { "False" }.to_owned())
        } else if vm.is_none(key) {
            Some("None".to_owned())
        } else {
            None
        }
    }
}
