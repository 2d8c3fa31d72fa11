//! `list.sort` and `sorted`: when every sort key (the items, or what `key`
//! returned for them) is an int within 64 bits or a bool, a float other than
//! NaN, a str without lone surrogates, or a tuple of these whose positions
//! hold comparable kinds, the sort runs in Rust. It is stable, and `reverse`
//! keeps equal keys in their original order, so it gives CPython's one
//! possible result: ints and floats compare by exact value (`-0.0 == 0`),
//! strs by code point, tuples position by position.
//!
//! Anything else (NaN, big ints, other types, unorderable mixes) is sorted
//! by CPython's own algorithm over Python's `<` (see `listsort`), so that it
//! raises what CPython raises and, where `<` is no total order (NaN), leaves
//! the items in CPython's order. A `key` that only reads fields
//! (`lambda r: r["f"]`, see `key`) is evaluated without a Python call.

use std::cmp::Ordering;

use super::key::KeyFn;
use super::listsort;
use rustpython_vm::{
    AsObject, PyObjectRef, PyPayload, PyResult, VirtualMachine,
    builtins::{PyFloat, PyInt, PyList, PyStr, PyTuple},
    function::FuncArgs,
    types::PyComparisonOp,
};

/// A sort key the native sort can order.
enum Key<'a> {
    Int(i64),
    Float(f64),
    Str(&'a str),
    Tuple(Vec<Key<'a>>),
}

/// What kind of key sits in a place (top level or a tuple position): keys
/// of the same shape always compare.
#[derive(Debug, PartialEq)]
enum Shape {
    Number,
    Str,
    Tuple(Vec<Shape>),
}

impl Key<'_> {
    /// The key of `object`, or `None` if the native sort does not cover it.
    fn of<'a>(object: &'a PyObjectRef, vm: &VirtualMachine) -> Option<Key<'a>> {
        let types = &vm.ctx.types;
        let class = object.class();
        if class.is(types.float_type) {
            let value = object.downcast_ref::<PyFloat>()?.to_f64();
            (!value.is_nan()).then_some(Key::Float(value))
        } else if class.is(types.int_type) {
            object.downcast_ref::<PyInt>()?.try_to_primitive(vm).ok().map(Key::Int)
        } else if class.is(types.str_type) {
            object.downcast_ref::<PyStr>()?.to_str().map(Key::Str)
        } else if class.is(types.bool_type) {
            Some(Key::Int(i64::from(object.is(&vm.ctx.true_value))))
        } else if class.is(types.tuple_type) {
            let items = object.downcast_ref::<PyTuple>()?.as_slice();
            items.iter().map(|item| Key::of(item, vm)).collect::<Option<_>>().map(Key::Tuple)
        } else {
            None
        }
    }

    /// Fit this key into `shape` (the shape so far of its place), or `false`
    /// if it cannot be compared with every key seen there before.
    fn fits(&self, shape: &mut Option<Shape>) -> bool {
        let Some(known) = shape else {
            *shape = Some(self.shape());
            return true;
        };
        match (self, known) {
            (Key::Int(_) | Key::Float(_), Shape::Number) | (Key::Str(_), Shape::Str) => true,
            (Key::Tuple(items), Shape::Tuple(places)) => items.iter().enumerate().all(|(i, item)| {
                if i == places.len() {
                    places.push(item.shape());
                    return true;
                }
                let mut place = Some(std::mem::replace(&mut places[i], Shape::Number));
                let fits = item.fits(&mut place);
                if let Some(place) = place {
                    places[i] = place;
                }
                fits
            }),
            _ => false,
        }
    }

    fn shape(&self) -> Shape {
        match self {
            Key::Int(_) | Key::Float(_) => Shape::Number,
            Key::Str(_) => Shape::Str,
            Key::Tuple(items) => Shape::Tuple(items.iter().map(Key::shape).collect()),
        }
    }

    /// Python's `<` between keys of the same shape, as an ordering.
    fn compare(&self, other: &Key) -> Ordering {
        match (self, other) {
            (Key::Int(a), Key::Int(b)) => a.cmp(b),
            (Key::Float(a), Key::Float(b)) => a.partial_cmp(b).unwrap_or(Ordering::Equal),
            (Key::Int(a), Key::Float(b)) => int_against_float(*a, *b),
            (Key::Float(a), Key::Int(b)) => int_against_float(*b, *a).reverse(),
            (Key::Str(a), Key::Str(b)) => a.as_bytes().cmp(b.as_bytes()),
            (Key::Tuple(a), Key::Tuple(b)) => {
                a.iter().zip(b).map(|(x, y)| x.compare(y)).find(|o| o.is_ne()).unwrap_or_else(|| a.len().cmp(&b.len()))
            }
            _ => Ordering::Equal,
        }
    }
}

/// How an int compares with a float that is not NaN, exactly (as Python does:
/// `2**53 + 1 > float(2**53)`).
fn int_against_float(int: i64, float: f64) -> Ordering {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if float >= TWO_63 {
        return Ordering::Less;
    }
    if float < -TWO_63 {
        return Ordering::Greater;
    }
    let whole = float.trunc();
    // |whole| < 2^63 or whole == -2^63: the conversion is exact.
    int.cmp(&(whole as i64)).then_with(|| whole.partial_cmp(&float).unwrap_or(Ordering::Equal))
}

/// The indices of `keys` in sorted order (stable; `reverse` keeps equal keys
/// in their original order), or `None` if a key is not one the native sort
/// covers or two keys cannot be compared.
fn sorted_order(keys: &[PyObjectRef], reverse: bool, vm: &VirtualMachine) -> Option<Vec<usize>> {
    let mut shape = None;
    let mut keyed = Vec::with_capacity(keys.len());
    for (index, object) in keys.iter().enumerate() {
        let key = Key::of(object, vm)?;
        if !key.fits(&mut shape) {
            return None;
        }
        keyed.push((key, index));
    }
    if reverse {
        keyed.sort_by(|(a, _), (b, _)| b.compare(a));
    } else {
        keyed.sort_by(|(a, _), (b, _)| a.compare(b));
    }
    Some(keyed.into_iter().map(|(_, index)| index).collect())
}

/// `key` and `reverse` of a call to `list.sort`/`sorted`, when they are what
/// the native sort takes (`key` None or a callable, `reverse` an int).
fn sort_options<'a>(
    kwargs: impl IntoIterator<Item = (&'a String, &'a PyObjectRef)>,
    vm: &VirtualMachine,
) -> Option<(Option<KeyFn>, bool)> {
    let (mut key, mut reverse) = (None, false);
    for (name, value) in kwargs {
        match name.as_str() {
            "key" if vm.is_none(value) => {}
            "key" => key = Some(KeyFn::new(value.clone(), vm)),
            "reverse" if value.class().is(vm.ctx.types.bool_type) => reverse = value.is(&vm.ctx.true_value),
            "reverse" => reverse = value.downcast_ref_if_exact::<PyInt>(vm)?.try_to_primitive::<i64>(vm).ok()? != 0,
            _ => return None,
        }
    }
    Some((key, reverse))
}

/// The order of `keys` by Python's `<`, sorted with CPython's algorithm
/// (see `listsort`), `reverse` done as CPython does it: reverse, sort
/// ascending, reverse again (which decides the order where `<` is not a
/// total order, such as with NaN). The order reached so far on an error.
fn cpython_order(keys: &[PyObjectRef], reverse: bool, vm: &VirtualMachine) -> (Vec<usize>, PyResult<()>) {
    let mut ids: Vec<usize> = (0..keys.len()).collect();
    if reverse {
        ids.reverse();
    }
    let outcome = listsort::sort(&mut ids, |x, y| keys[x].rich_compare_bool(&keys[y], PyComparisonOp::Lt, vm));
    if reverse {
        ids.reverse();
    }
    (ids, outcome)
}

/// Sort `list` in place, as CPython does: the list is empty while keys are
/// computed and items compared (code that changes it meanwhile gets a
/// `ValueError`, and its changes are dropped); a key that raises leaves the
/// list as it was; a comparison that raises leaves it partly sorted.
fn sort_list(list: &PyObjectRef, key: Option<KeyFn>, reverse: bool, vm: &VirtualMachine) -> PyResult<()> {
    let Some(payload) = list.downcast_ref::<PyList>() else { return Err(vm.new_type_error("sort needs a list")) };
    let items = std::mem::take(&mut *payload.borrow_vec_mut());
    let keys = match &key {
        Some(key) => match items.iter().map(|item| key.apply(item, vm)).collect::<PyResult<Vec<_>>>() {
            Ok(keys) => Some(keys),
            Err(err) => {
                *payload.borrow_vec_mut() = items;
                return Err(err);
            }
        },
        None => None,
    };
    let keys = keys.as_deref().unwrap_or(&items);
    let (order, outcome) = match sorted_order(keys, reverse, vm) {
        Some(order) => (order, Ok(())),
        None => cpython_order(keys, reverse, vm),
    };
    let modified = !payload.borrow_vec().is_empty();
    *payload.borrow_vec_mut() = order.into_iter().map(|i| items[i].clone()).collect();
    outcome?;
    if modified {
        return Err(vm.new_value_error("list modified during sort"));
    }
    Ok(())
}

/// Put the native `list.sort` on the list type and the native `sorted` in
/// the builtins, each calling RustPython's own for what it does not cover.
pub fn install(vm: &VirtualMachine) -> PyResult<()> {
    let list_type = vm.ctx.types.list_type;
    let name = vm.ctx.intern_str("sort");
    let python_sort = list_type.get_attr(name).ok_or_else(|| vm.new_type_error("list has no sort"))?;
    let python_sorted = vm.builtins.get_attr("sorted", vm)?;
    let sort = move |args: FuncArgs, vm: &VirtualMachine| -> PyResult<()> {
        let list = args.args.first().filter(|list| list.downcast_ref::<PyList>().is_some());
        match (list, sort_options(&args.kwargs, vm)) {
            (Some(list), Some((key, reverse))) if args.args.len() == 1 => sort_list(list, key, reverse, vm),
            _ => python_sort.call(args, vm).map(drop),
        }
    };
    let sorted = move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
        let (Some(iterable), Some((key, reverse))) = (args.args.first(), sort_options(&args.kwargs, vm)) else {
            return python_sorted.call(args, vm);
        };
        if args.args.len() != 1 {
            return python_sorted.call(args, vm);
        }
        let items: Vec<PyObjectRef> = iterable.try_to_value(vm)?;
        let list: PyObjectRef = PyList::from(items).into_ref(&vm.ctx).into();
        sort_list(&list, key, reverse, vm)?;
        Ok(list)
    };
    list_type.set_attr(name, super::object::method("sort", sort, vm));
    vm.builtins.set_attr("sorted", vm.new_function("sorted", sorted), vm)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ints_and_floats_compare_by_exact_value() {
        let two_53 = 9_007_199_254_740_992_i64;
        assert_eq!(int_against_float(two_53 + 1, two_53 as f64), Ordering::Greater);
        assert_eq!(int_against_float(two_53, two_53 as f64), Ordering::Equal);
        assert_eq!(int_against_float(0, -0.0), Ordering::Equal);
        assert_eq!(int_against_float(-1, -0.5), Ordering::Less);
        assert_eq!(int_against_float(1, 0.5), Ordering::Greater);
        assert_eq!(int_against_float(i64::MAX, 9_223_372_036_854_775_808.0), Ordering::Less);
        assert_eq!(int_against_float(i64::MIN, -9_223_372_036_854_775_808.0), Ordering::Equal);
        assert_eq!(int_against_float(i64::MIN, f64::NEG_INFINITY), Ordering::Greater);
    }
}
