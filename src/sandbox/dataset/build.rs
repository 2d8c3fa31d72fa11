//! Python objects built straight from a dataset key's JSON text, in one pass:
//! no intermediate JSON tree, short strings (every row's field names, and
//! repeated values such as categories) shared as one object each.

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;

use rustpython_vm::{PyObjectRef, VirtualMachine};
use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Strings up to this many bytes are shared: field names and category-like values.
const SHARED_STRING_BYTES: usize = 32;
/// Keys up to this many bytes are the interpreter's interned strings: the
/// compiler interns the string constants of node code up to this length, so
/// `row['amt']` finds its key by identity, without comparing characters.
const INTERNED_KEY_BYTES: usize = 20;
/// Distinct strings the sharing table holds; later new strings are built unshared.
const SHARED_STRINGS: usize = 1 << 16;

/// Builds one key's Python objects; see the module docs.
pub(super) struct Builder<'vm> {
    vm: &'vm VirtualMachine,
    shared: RefCell<HashMap<Box<str>, PyObjectRef, foldhash::fast::FixedState>>,
}

impl<'vm> Builder<'vm> {
    /// A builder with an empty sharing table.
    pub(super) fn new(vm: &'vm VirtualMachine) -> Self {
        // foldhash is cheaper than the standard SipHash on short strings; its
        // seed is drawn per process, so a dataset cannot be written to collide.
        let seed = std::hash::BuildHasher::hash_one(&std::hash::RandomState::new(), 0_u8);
        let hasher = foldhash::fast::FixedState::with_seed(seed);
        Self { vm, shared: RefCell::new(HashMap::with_hasher(hasher)) }
    }

    /// The Python value of every key of the JSON object `text`. A key given
    /// twice keeps its last value.
    pub(super) fn build(self, text: &[u8]) -> Result<Vec<Built>, serde_json::Error> {
        let mut deserializer = serde_json::Deserializer::from_slice(text);
        let built = deserializer.deserialize_map(Keys { builder: &self })?;
        deserializer.end()?;
        Ok(built)
    }

    /// A string value, one object per distinct short text.
    fn string(&self, text: &str) -> PyObjectRef {
        self.shared_string(text, false)
    }

    /// An object's key: shared as values are, and interned when short.
    fn key(&self, text: &str) -> PyObjectRef {
        self.shared_string(text, text.len() <= INTERNED_KEY_BYTES)
    }

    fn shared_string(&self, text: &str, interned: bool) -> PyObjectRef {
        if text.len() > SHARED_STRING_BYTES {
            return self.vm.ctx.new_str(text).into();
        }
        let mut shared = self.shared.borrow_mut();
        let room = shared.len() < SHARED_STRINGS;
        // A text first met as a value is interned when it comes as a key (only
        // interned strings are immortal while the dataset is being built); with
        // the table full it stays the value's object, shared all the same.
        if let Some(object) = shared.get(text).filter(|object| !interned || !room || object.is_immortal()) {
            return object.clone();
        }
        let object: PyObjectRef =
            if interned && room { self.vm.ctx.intern_str(text).to_object() } else { self.vm.ctx.new_str(text).into() };
        if room || shared.contains_key(text) {
            shared.insert(text.into(), object.clone());
        }
        object
    }
}

/// A key of a JSON object: see [`Builder::key`].
struct Key<'a, 'vm>(&'a Builder<'vm>);

impl<'de> DeserializeSeed<'de> for Key<'_, '_> {
    type Value = PyObjectRef;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<PyObjectRef, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for Key<'_, '_> {
    type Value = PyObjectRef;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a string key")
    }

    fn visit_str<E>(self, value: &str) -> Result<PyObjectRef, E> {
        Ok(self.0.key(value))
    }
}

/// One key's Python value.
pub(super) struct Built {
    /// The key.
    pub key: String,
    /// Its value.
    pub object: PyObjectRef,
}

/// The top-level object: builds the value of every key.
struct Keys<'a, 'vm> {
    builder: &'a Builder<'vm>,
}

impl<'de> Visitor<'de> for Keys<'_, '_> {
    type Value = Vec<Built>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str("a JSON object")
    }

    fn visit_map<M: MapAccess<'de>>(self, mut access: M) -> Result<Vec<Built>, M::Error> {
        let mut built: Vec<Built> = Vec::new();
        while let Some(key) = access.next_key::<String>()? {
            let object = access.next_value_seed(self.builder)?;
            built.retain(|earlier| earlier.key != key);
            built.push(Built { key, object });
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
        Ok(self.vm.ctx.new_list(items).into())
    }

    fn visit_map<M: MapAccess<'de>>(self, mut access: M) -> Result<PyObjectRef, M::Error> {
        let dict = self.vm.ctx.new_dict();
        while let Some((key, value)) = access.next_entry_seed(Key(self), self)? {
            dict.set_item(&*key, value, self.vm).map_err(|_| serde::de::Error::custom("unhashable key"))?;
        }
        Ok(dict.into())
    }
}
