//! The dataset as Python objects, converted once per worker and shared by
//! every DAG, with a guard that a DAG mutating its inputs (`rows.sort()`,
//! `row['x'] = 1`, `rows.clear()`, ...) cannot change what a later DAG sees.
//!
//! Each converted key keeps a snapshot: every list and dict reachable from it
//! (held alive, so no address can be reused) with the identities of its items
//! in order. JSON leaves (str, int, float, bool, None) are immutable, so the
//! structure is pristine exactly when every snapshotted container still holds
//! the same objects in the same order. A DAG is handed a key only once it has
//! been checked after anything earlier DAGs did, including through a reference
//! they stashed; a key found changed is converted afresh from its JSON text,
//! kept for that. Within one DAG the nodes share the objects, as before.
//!
//! The check is a walk over every container of the key (at 200,000 rows, a
//! few tens of milliseconds), so it runs when the worker would wait anyway:
//! right after a DAG's result is sent, for the keys that DAG was handed. A key
//! checked then is handed to the next DAG unchecked as long as no node code
//! has run since (its first node's inputs); one asked for later in the DAG, or
//! not checked after the last DAG, is checked when first asked for.
//!
//! Objects are built straight from the text (see `build`), and the snapshot
//! is recorded while they are built.

mod build;

use build::Container;

use std::collections::{HashMap, HashSet};

use rustpython_vm::{
    AsObject, PyObjectRef, VirtualMachine,
    builtins::{PyDict, PyList},
};

/// Why a dataset key cannot be handed to a DAG.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// The dataset has no such key.
    #[error("the dataset has no key {key:?}")]
    NoKey {
        /// The key asked for.
        key: String,
    },
    /// The data file is not a JSON object.
    #[error("not a JSON object: {source}")]
    NotAnObject {
        /// The parser's error.
        source: serde_json::Error,
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

/// A converted dataset value and the snapshot of its containers.
struct Converted {
    object: PyObjectRef,
    containers: Vec<Container>,
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
    fn pristine(&self) -> bool {
        self.containers.iter().all(unchanged)
    }
}

/// The worker's dataset: its JSON text plus the converted, guarded Python values.
pub struct Dataset {
    text: Vec<u8>,
    converted: HashMap<String, Converted>,
    handed_out: HashSet<String>,
    /// Keys checked pristine with no node code run since.
    verified: HashSet<String>,
}

impl Dataset {
    /// Convert every key of the JSON object `text` up front, so no DAG pays for it.
    pub fn new(vm: &VirtualMachine, text: Vec<u8>) -> Result<Self, DatasetError> {
        let built =
            build::Builder::new(vm).build(&text, None).map_err(|source| DatasetError::NotAnObject { source })?;
        let converted = built
            .into_iter()
            .map(|build::Built { key, object, containers }| (key, Converted { object, containers }))
            .collect();
        Ok(Self { text, converted, handed_out: HashSet::new(), verified: HashSet::new() })
    }

    /// Convert `key` afresh from the text.
    fn convert(&mut self, vm: &VirtualMachine, key: &str) -> Result<PyObjectRef, DatasetError> {
        let no_key = || DatasetError::NoKey { key: key.to_string() };
        let built = build::Builder::new(vm)
            .build(&self.text, Some(key))
            .map_err(|source| DatasetError::Convert { key: key.to_string(), source })?;
        let build::Built { object, containers, .. } = built.into_iter().next().ok_or_else(no_key)?;
        self.converted.insert(key.to_string(), Converted { object: object.clone(), containers });
        Ok(object)
    }

    /// Start a new DAG: the next request for each key is checked again
    /// (unless checked since node code last ran).
    pub fn begin_dag(&mut self) {
        self.handed_out.clear();
    }

    /// Node code is about to run: it may change any key it can reach, so
    /// none counts as checked any more.
    pub fn node_runs(&mut self) {
        self.verified.clear();
    }

    /// Once a DAG is over and before any other node code runs: check the
    /// keys it was handed (converting afresh the changed ones), so that the
    /// next DAG's first node takes them without waiting for the check.
    pub fn check_handed_out(&mut self, vm: &VirtualMachine) {
        for key in std::mem::take(&mut self.handed_out) {
            let pristine = self.converted.get(&key).is_some_and(Converted::pristine);
            if pristine || self.convert(vm, &key).is_ok() {
                self.verified.insert(key);
            }
        }
    }

    /// `dataset.<key>` for the current DAG: the shared objects if no earlier
    /// DAG changed them, else a fresh conversion.
    pub fn get(&mut self, vm: &VirtualMachine, key: &str) -> Result<PyObjectRef, DatasetError> {
        let first_use = self.handed_out.insert(key.to_string());
        match self.converted.get(key) {
            Some(converted) if !first_use || self.verified.contains(key) || converted.pristine() => {
                Ok(converted.object.clone())
            }
            _ => self.convert(vm, key),
        }
    }
}
