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

use rustpython_vm::builtins::{PyDict, PyList, PyStr};
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

/// Makes `root` and every object it holds immortal, so that reading them
/// writes nothing into them and a template's clones keep sharing their pages
/// however many rows their DAGs read: reference counts are no longer written
/// (`make_immortal`), lists' and dicts' locks no longer count their readers
/// (`freeze_for_sharing`; a DAG's first change to one thaws it), and strings'
/// hashes and lengths, computed lazily otherwise, are computed now.
fn make_shareable(vm: &VirtualMachine, root: &PyObjectRef) {
    let mut stack = vec![root.clone()];
    while let Some(object) = stack.pop() {
        // Before the check below: an interned string (`build.rs`) is immortal
        // already, and its length may still be uncounted.
        if let Some(text) = object.downcast_ref::<PyStr>() {
            text.char_len();
            // A str's hash cannot fail.
            let _ = object.hash(vm);
        }
        if object.is_immortal() {
            continue;
        }
        if let Some(list) = object.downcast_ref::<PyList>() {
            stack.extend(list.borrow_vec().iter().cloned());
            list.freeze_for_sharing();
        } else if let Some(dict) = object.downcast_ref::<PyDict>() {
            for (key, value) in dict.items_vec() {
                stack.extend([key, value]);
            }
            dict.freeze_for_sharing();
        }
        object.make_immortal();
    }
}

/// The worker's dataset: one Python value per key of `data.json`.
pub struct Dataset {
    converted: HashMap<String, PyObjectRef>,
}

impl Dataset {
    /// Convert every key of the JSON object `text` up front, so no DAG pays for it.
    pub fn new(vm: &VirtualMachine, text: &[u8]) -> Result<Self, DatasetError> {
        // Nothing built here can be garbage: no collection runs while it is
        // built (one every 2,000 containers would walk and promote them all).
        let collector = rustpython_vm::gc_state::gc_state();
        let was_enabled = collector.is_enabled();
        collector.disable();
        let built = build::Builder::new(vm).build(text);
        if was_enabled {
            collector.enable();
        }
        let built = built.map_err(|source| DatasetError::NotAnObject { source })?;
        let converted: HashMap<String, PyObjectRef> =
            built.into_iter().map(|build::Built { key, object }| (key, object)).collect();
        for object in converted.values() {
            make_shareable(vm, object);
        }
        // Collections never look at what was made so far (the dataset above all).
        collector.freeze();
        Ok(Self { converted })
    }

    /// `dataset.<key>` for the DAG.
    pub fn get(&self, key: &str) -> Result<PyObjectRef, DatasetError> {
        self.converted.get(key).cloned().ok_or_else(|| DatasetError::NoKey { key: key.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use rustpython_vm::AsObject;
    use rustpython_vm::common::lock::{PyRwLock, freeze_rwlock};

    use super::*;

    #[test]
    fn a_frozen_lock_reads_without_counting_and_its_first_write_thaws_it() {
        let lock = PyRwLock::new(vec![1]);
        let other = PyRwLock::new(0);
        assert!(freeze_rwlock(&lock) && freeze_rwlock(&other));
        {
            let (first, second) = (lock.read(), lock.read());
            assert_eq!(first[0] + second[0], 2, "shared locks as before");
            assert!(lock.try_write().is_none(), "no write under a read of the same lock");
            let _read_of_other = other.read();
        }
        {
            let _read_of_other = other.read();
            assert!(lock.try_write().is_none(), "nor under a read of another frozen lock");
        }
        lock.write().push(2);
        assert_eq!(*lock.read(), [1, 2], "the first write thawed it");
        *other.write() = 5;
        assert_eq!(*other.read(), 5);
        let held = lock.read();
        assert!(!freeze_rwlock(&lock), "a locked lock is not frozen");
        drop(held);
        assert!(freeze_rwlock(&lock), "an unlocked one is, again");
    }

    #[test]
    fn short_keys_are_the_interpreters_interned_strings_values_and_long_keys_are_not() {
        let interpreter = crate::sandbox::worker::build_interpreter(0);
        interpreter.enter(|vm| {
            let long = "a key of more than twenty bytes";
            let text = format!(
                r#"{{"rows": [{{"category": "misc_pos", "{long}": 1}}, {{"category": "misc_pos", "misc_pos": 2}}]}}"#
            );
            let dataset = Dataset::new(vm, text.as_bytes()).unwrap();
            let rows = dataset.get("rows").unwrap();
            let rows: Vec<PyObjectRef> = rows.downcast_ref::<PyList>().unwrap().borrow_vec().to_vec();
            let (first, second) =
                (rows[0].downcast_ref::<PyDict>().unwrap(), rows[1].downcast_ref::<PyDict>().unwrap());
            let interned = |text: &str| vm.ctx.intern_str(text).to_object();
            let (first_keys, second_keys) = (first.keys_vec(), second.keys_vec());
            assert!(first_keys[0].is(&interned("category")), "the key is the code's constant 'category'");
            assert!(!first_keys[1].is(&interned(long)), "a long key is its own object");
            let value = first.get_item("category", vm).unwrap();
            assert!(value.is(&second.get_item("category", vm).unwrap()), "a repeated value is one object");
            assert!(second_keys[1].is(&interned("misc_pos")), "a text met as a value first is interned as a key");
            assert!(!value.is(&second_keys[1]), "the value stays the object it was");
        });
    }

    #[test]
    fn with_the_sharing_table_full_a_value_met_again_as_a_key_stays_one_object() {
        let interpreter = crate::sandbox::worker::build_interpreter(0);
        interpreter.enter(|vm| {
            let values: Vec<String> = (0..(1 << 16) + 10).map(|i| format!("\"v{i}\"")).collect();
            let text =
                format!(r#"{{"values": [{}], "rows": [{{"v7": 1}}, {{"v7": 2}}, {{"v7": 3}}]}}"#, values.join(","));
            let dataset = Dataset::new(vm, text.as_bytes()).unwrap();
            let values = dataset.get("values").unwrap();
            let value = values.downcast_ref::<PyList>().unwrap().borrow_vec()[7].clone();
            let rows = dataset.get("rows").unwrap();
            let keys: Vec<PyObjectRef> = (rows.downcast_ref::<PyList>().unwrap().borrow_vec().iter())
                .map(|row| row.downcast_ref::<PyDict>().unwrap().keys_vec().remove(0))
                .collect();
            for key in &keys {
                assert!(key.is(&value), "every row's key is the one shared object of \"v7\"");
            }
        });
    }

    #[test]
    fn the_datasets_objects_are_immortal_and_still_change_as_python_objects_do() {
        let interpreter = crate::sandbox::worker::build_interpreter(0);
        interpreter.enter(|vm| {
            let text = br#"{"rows": [{"k": "a long enough string to be its own object", "n": 1.5}], "n": 3}"#;
            let dataset = Dataset::new(vm, text).unwrap();
            let collector = rustpython_vm::gc_state::gc_state();
            assert!(collector.is_enabled(), "collections run again after the build");
            assert!(collector.get_freeze_count() > 0, "what was built is left to no collection");
            let rows = dataset.get("rows").unwrap();
            let row = rows.downcast_ref::<PyList>().unwrap().borrow_vec()[0].clone();
            let text = row.downcast_ref::<PyDict>().unwrap().get_item("k", vm).unwrap();
            for object in [&rows, &row, &text] {
                assert!(object.as_object().is_immortal());
            }
            let count = rows.strong_count();
            let copies: Vec<PyObjectRef> = (0..10).map(|_| rows.clone()).collect();
            assert_eq!(rows.strong_count(), count, "references taken, count unwritten");
            drop(copies);
            assert!(count > 1 << 20, "never read as the only reference: {count}");
            let scope = vm.new_scope_with_builtins();
            scope.globals.set_item("rows", rows.clone(), vm).unwrap();
            let code = "s = rows[0]['k']\ns += '!'\nrows[0]['n'] = 2\nrows.append(1)\nresult = [s, rows[0]['k'], rows[0]['n'], len(rows)]";
            vm.run_string(scope.clone(), code, "<test>".to_owned()).unwrap();
            let result = scope.globals.get_item("result", vm).unwrap();
            assert_eq!(
                result.repr(vm).unwrap().to_string(),
                "['a long enough string to be its own object!', 'a long enough string to be its own object', 2, 2]"
            );
        });
    }
}
