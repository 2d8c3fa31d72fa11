//! The dataset as Python objects, converted once per worker and shared by
//! every DAG, with a guard that a DAG mutating its inputs (`rows.sort()`,
//! `row['x'] = 1`, `rows.clear()`, ...) cannot change what a later DAG sees.
//!
//! Each converted key keeps a snapshot: every list and dict reachable from it
//! (held alive, so no address can be reused) with the identities of its items
//! in order. JSON leaves (str, int, float, bool, None) are immutable, so the
//! structure is pristine exactly when every snapshotted container still holds
//! the same objects in the same order. The check runs the first time a DAG
//! asks for a key — after anything an earlier DAG did, including through a
//! reference it stashed — and a key found changed is converted afresh from the
//! parsed JSON. Within one DAG the nodes share the objects, as before.

use std::collections::{HashMap, HashSet};

use rustpython_vm::{
    AsObject, PyObjectRef, VirtualMachine,
    builtins::{PyDict, PyList},
    py_serde,
};
use serde_json::Value;

/// Why a dataset key cannot be handed to a DAG.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// The dataset has no such key.
    #[error("the dataset has no key {key:?}")]
    NoKey {
        /// The key asked for.
        key: String,
    },
    /// The key's JSON could not be made into Python objects.
    #[error("converting dataset.{key}: {source}")]
    Convert {
        /// The key.
        key: String,
        /// The converter's error.
        source: serde_json::Error,
    },
}

/// One container of a converted value and the items it held when converted
/// (a dict's keys and values interleaved).
struct Container {
    object: PyObjectRef,
    items: Vec<PyObjectRef>,
}

/// A converted dataset value and the snapshot of its containers.
struct Converted {
    object: PyObjectRef,
    containers: Vec<Container>,
}

/// The items of a list or dict in order (dict: key, value, key, value ...);
/// `None` for anything else.
fn items_of(object: &PyObjectRef) -> Option<Vec<PyObjectRef>> {
    if let Some(list) = object.downcast_ref::<PyList>() {
        return Some(list.borrow_vec().to_vec());
    }
    let dict = object.downcast_ref::<PyDict>()?;
    Some(dict.into_iter().flat_map(|(key, value)| [key, value]).collect())
}

/// Whether `container` still holds exactly `expected`, item for item.
fn unchanged(container: &Container) -> bool {
    let expected = &container.items;
    if let Some(list) = container.object.downcast_ref::<PyList>() {
        let items = list.borrow_vec();
        return items.len() == expected.len() && items.iter().zip(expected).all(|(a, b)| a.is(b));
    }
    let Some(dict) = container.object.downcast_ref::<PyDict>() else {
        return false;
    };
    let mut expected = expected.iter();
    for (key, value) in dict {
        match (expected.next(), expected.next()) {
            (Some(k), Some(v)) if key.is(k) && value.is(v) => {}
            _ => return false,
        }
    }
    expected.next().is_none()
}

impl Converted {
    fn new(vm: &VirtualMachine, value: &Value) -> Result<Self, serde_json::Error> {
        let object = py_serde::deserialize(vm, value.clone())?;
        let mut containers = Vec::new();
        let mut pending = vec![object.clone()];
        while let Some(next) = pending.pop() {
            if let Some(items) = items_of(&next) {
                pending.extend(items.iter().filter(|item| is_container(item)).cloned());
                containers.push(Container { object: next, items });
            }
        }
        Ok(Self { object, containers })
    }

    fn pristine(&self) -> bool {
        self.containers.iter().all(unchanged)
    }
}

/// Whether `object` is a list or dict (the only mutable JSON values).
fn is_container(object: &PyObjectRef) -> bool {
    object.downcast_ref::<PyList>().is_some() || object.downcast_ref::<PyDict>().is_some()
}

/// The worker's dataset: parsed JSON plus the converted, guarded Python values.
pub struct Dataset {
    data: serde_json::Map<String, Value>,
    converted: HashMap<String, Converted>,
    handed_out: HashSet<String>,
}

impl Dataset {
    /// Convert every key of `data` up front, so no DAG pays for it.
    pub fn new(vm: &VirtualMachine, data: serde_json::Map<String, Value>) -> Result<Self, DatasetError> {
        let mut dataset = Self { data, converted: HashMap::new(), handed_out: HashSet::new() };
        let keys: Vec<String> = dataset.data.keys().cloned().collect();
        for key in keys {
            dataset.convert(vm, &key)?;
        }
        Ok(dataset)
    }

    fn convert(&mut self, vm: &VirtualMachine, key: &str) -> Result<PyObjectRef, DatasetError> {
        let value = self.data.get(key).ok_or_else(|| DatasetError::NoKey { key: key.to_string() })?;
        let converted =
            Converted::new(vm, value).map_err(|source| DatasetError::Convert { key: key.to_string(), source })?;
        let object = converted.object.clone();
        self.converted.insert(key.to_string(), converted);
        Ok(object)
    }

    /// Start a new DAG: the next request for each key is checked again.
    pub fn begin_dag(&mut self) {
        self.handed_out.clear();
    }

    /// `dataset.<key>` for the current DAG: the shared objects if no earlier
    /// DAG changed them, else a fresh conversion.
    pub fn get(&mut self, vm: &VirtualMachine, key: &str) -> Result<PyObjectRef, DatasetError> {
        let first_use = self.handed_out.insert(key.to_string());
        match self.converted.get(key) {
            Some(converted) if !first_use || converted.pristine() => Ok(converted.object.clone()),
            _ => self.convert(vm, key),
        }
    }
}
