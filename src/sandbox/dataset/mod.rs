//! The dataset as Python objects, converted once per worker (or once per
//! template, whose clones inherit them) before any node code runs.
//!
//! A worker runs one DAG and ends (see `pool`), so nothing a DAG does to these
//! objects (`rows.sort()`, `row['x'] = 1`, `rows.clear()`, a reference stashed
//! in a module) reaches another DAG: the next one runs in a fresh worker,
//! made from the pristine objects. Within one DAG the nodes share them, as
//! they would in CPython.
//!
//! Objects are built straight from the text (see `build`).

mod build;

use std::collections::HashMap;

use rustpython_vm::{PyObjectRef, VirtualMachine};

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
}

/// The worker's dataset: one Python value per key of `data.json`.
pub struct Dataset {
    converted: HashMap<String, PyObjectRef>,
}

impl Dataset {
    /// Convert every key of the JSON object `text` up front, so no DAG pays for it.
    pub fn new(vm: &VirtualMachine, text: &[u8]) -> Result<Self, DatasetError> {
        let built = build::Builder::new(vm).build(text).map_err(|source| DatasetError::NotAnObject { source })?;
        let converted = built.into_iter().map(|build::Built { key, object }| (key, object)).collect();
        Ok(Self { converted })
    }

    /// `dataset.<key>` for the DAG.
    pub fn get(&self, key: &str) -> Result<PyObjectRef, DatasetError> {
        self.converted.get(key).cloned().ok_or_else(|| DatasetError::NoKey { key: key.to_string() })
    }
}
