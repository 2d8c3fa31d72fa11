//! Python objects built straight from a dataset key's JSON text, in one pass:
//! no intermediate JSON tree, short strings (every row's field names, and
//! repeated values such as categories) shared as one object each, and the
//! snapshot of every container recorded as it is built.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use rustpython_vm::{PyObjectRef, VirtualMachine};
use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};

/// One container of a converted value and the items it held when converted
/// (a dict's keys and values interleaved).
pub(super) struct Container {
    pub(super) object: PyObjectRef,
    pub(super) items: Vec<PyObjectRef>,
}

/// Strings up to this many bytes are shared: field names and category-like values.
const SHARED_STRING_BYTES: usize = 32;
/// Distinct strings the sharing table holds; later new strings are built unshared.
const SHARED_STRINGS: usize = 1 << 16;

/// Builds one key's Python objects; see the module docs.
pub(super) struct Builder<'vm> {
    vm: &'vm VirtualMachine,
    shared: RefCell<HashMap<Box<str>, PyObjectRef>>,
    containers: RefCell<Vec<Container>>,
}

impl<'vm> Builder<'vm> {
    /// A builder with an empty sharing table.
    pub(super) fn new(vm: &'vm VirtualMachine) -> Self {
        Self { vm, shared: RefCell::new(HashMap::new()), containers: RefCell::new(Vec::new()) }
    }

    /// The Python value of every key of the JSON object `text` (of `only`
    /// that key, when given; the others are skipped), each with the snapshot
    /// of its containers. A key given twice keeps its last value.
    pub(super) fn build(self, text: &[u8], only: Option<&str>) -> Result<Vec<Built>, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_slice(text);
        let built = deserializer.deserialize_map(Keys { builder: &self, only })?;
        deserializer.end()?;
        Ok(built)
    }

    fn string(&self, text: &str) -> PyObjectRef {
        if text.len() > SHARED_STRING_BYTES {
            return self.vm.ctx.new_str(text).into();
        }
        let mut shared = self.shared.borrow_mut();
        if let Some(object) = shared.get(text) {
            return object.clone();
        }
        let object: PyObjectRef = self.vm.ctx.new_str(text).into();
        if shared.len() < SHARED_STRINGS {
            shared.insert(text.into(), object.clone());
        }
        object
    }
}

/// One key's Python value and the snapshot of its containers.
pub(super) struct Built {
    /// The key.
    pub key: String,
    /// Its value.
    pub object: PyObjectRef,
    /// Every list and dict reachable from the value, with its items.
    pub containers: Vec<Container>,
}

/// The top-level object: builds the values of the keys asked for.
struct Keys<'a, 'vm> {
    builder: &'a Builder<'vm>,
    only: Option<&'a str>,
}

impl<'de> Visitor<'de> for Keys<'_, '_> {
    type Value = Vec<Built>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut access: M) -> Result<Vec<Built>, M::Error> {
        let mut built: Vec<Built> = Vec::new();
        while let Some(key) = access.next_key::<String>()? {
            if self.only.is_some_and(|only| only != key) {
                access.next_value::<IgnoredAny>()?;
                continue;
            }
            let object = access.next_value_seed(self.builder)?;
            let containers = std::mem::take(&mut *self.builder.containers.borrow_mut());
            built.retain(|earlier| earlier.key != key);
            built.push(Built { key, object, containers });
        }
        Ok(built)
    }
}

impl<'de> DeserializeSeed<'de> for &Builder<'_> {
    type Value = PyObjectRef;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<PyObjectRef, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for &Builder<'_> {
    type Value = PyObjectRef;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON value")
    }

    fn visit_bool<E>(self, value: bool) -> Result<PyObjectRef, E> {
        Ok(self.vm.ctx.new_bool(value).into())
    }

    fn visit_i64<E>(self, value: i64) -> Result<PyObjectRef, E> {
        Ok(self.vm.ctx.new_int(value).into())
    }

    fn visit_u64<E>(self, value: u64) -> Result<PyObjectRef, E> {
        Ok(self.vm.ctx.new_int(value).into())
    }

    fn visit_f64<E>(self, value: f64) -> Result<PyObjectRef, E> {
        Ok(self.vm.ctx.new_float(value).into())
    }

    fn visit_str<E>(self, value: &str) -> Result<PyObjectRef, E> {
        Ok(self.string(value))
    }

    fn visit_unit<E>(self) -> Result<PyObjectRef, E> {
        Ok(self.vm.ctx.none())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut access: A) -> Result<PyObjectRef, A::Error> {
        let mut items = Vec::with_capacity(access.size_hint().unwrap_or(0));
        while let Some(item) = access.next_element_seed(self)? {
            items.push(item);
        }
        let object: PyObjectRef = self.vm.ctx.new_list(items.clone()).into();
        self.containers.borrow_mut().push(Container { object: object.clone(), items });
        Ok(object)
    }

    fn visit_map<M: MapAccess<'de>>(self, mut access: M) -> Result<PyObjectRef, M::Error> {
        let dict = self.vm.ctx.new_dict();
        let mut items = Vec::with_capacity(2 * access.size_hint().unwrap_or(0));
        while let Some((key, value)) = access.next_entry_seed(self, self)? {
            dict.set_item(&*key, value.clone(), self.vm).map_err(|_| serde::de::Error::custom("unhashable key"))?;
            items.extend([key, value]);
        }
        if items.len() != 2 * dict.__len__() {
            // A key given twice: the dict keeps its first place and last value.
            items = (&dict).into_iter().flat_map(|(key, value)| [key, value]).collect();
        }
        let object: PyObjectRef = dict.into();
        self.containers.borrow_mut().push(Container { object: object.clone(), items });
        Ok(object)
    }
}
