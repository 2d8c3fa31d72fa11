//! `decimal.Decimal`: native construction from a plain numeric string and
//! exact addition (the pure-Python `_pydecimal` class in RustPython); the
//! arithmetic is in `decimal_arith`.

use rustpython_vm::{
    AsObject, PyObjectRef, PyResult, VirtualMachine,
    builtins::{PyInt, PyStrInterned},
    function::FuncArgs,
};

use super::decimal_arith::{Context, Finite, add, parse};
use super::object::{method, new_instance, slot, text};

/// Interned names of the `Decimal` slots and the context fields read.
#[derive(Clone, Copy)]
struct Names {
    exp: &'static PyStrInterned,
    int: &'static PyStrInterned,
    sign: &'static PyStrInterned,
    is_special: &'static PyStrInterned,
    context: [&'static PyStrInterned; 5],
}

impl Names {
    fn new(vm: &VirtualMachine) -> Self {
        Self {
            exp: vm.ctx.intern_str("_exp"),
            int: vm.ctx.intern_str("_int"),
            sign: vm.ctx.intern_str("_sign"),
            is_special: vm.ctx.intern_str("_is_special"),
            context: ["prec", "rounding", "Emin", "Emax", "clamp"].map(|name| vm.ctx.intern_str(name)),
        }
    }

    fn int(object: &PyObjectRef, vm: &VirtualMachine) -> Option<i64> {
        object.downcast_ref::<PyInt>()?.try_to_primitive(vm).ok()
    }

    /// `object` as a finite decimal: a finite `cls` instance, or an `int`
    /// (which `_convert_other` turns into `Decimal(int)`).
    fn finite(&self, object: &PyObjectRef, cls: &PyObjectRef, vm: &VirtualMachine) -> Option<Finite> {
        if object.class().is(vm.ctx.types.int_type) {
            let value = Self::int(object, vm)?;
            return Some(Finite { negative: value < 0, coefficient: value.unsigned_abs().into(), exponent: 0 });
        }
        if !object.class().is(cls) || !slot(object, self.is_special, vm)?.is(&vm.ctx.false_value) {
            return None;
        }
        let digits = slot(object, self.int, vm)?;
        let digits = text(&digits)?;
        let coefficient = digits.bytes().all(|b| b.is_ascii_digit()).then(|| digits.parse().ok()).flatten()?;
        let negative = match Self::int(&slot(object, self.sign, vm)?, vm)? {
            0 => false,
            1 => true,
            _ => return None,
        };
        Some(Finite { negative, coefficient, exponent: Self::int(&slot(object, self.exp, vm)?, vm)? })
    }

    /// The current context's fields (`getcontext()`), if they are plain.
    fn context(&self, getcontext: &PyObjectRef, vm: &VirtualMachine) -> Option<Context> {
        let context = getcontext.call((), vm).ok()?;
        let [prec, rounding, emin, emax, clamp] = self.context.map(|name| context.get_attr(name, vm).ok());
        Some(Context {
            prec: Self::int(&prec?, vm)?,
            round_floor: text(&rounding?)? == "ROUND_FLOOR",
            emin: Self::int(&emin?, vm)?,
            emax: Self::int(&emax?, vm)?,
            clamp: Self::int(&clamp?, vm)? == 1,
        })
    }

    /// A `cls` instance holding `value`, as `_pydecimal` stores it.
    fn new_decimal(&self, cls: PyObjectRef, value: Finite, vm: &VirtualMachine) -> PyResult {
        let slots = [
            (self.exp, vm.ctx.new_int(value.exponent).into()),
            (self.int, vm.ctx.new_str(value.coefficient.to_string()).into()),
            (self.sign, vm.ctx.new_int(i64::from(value.negative)).into()),
            (self.is_special, vm.ctx.new_bool(false).into()),
        ];
        new_instance(cls, slots, vm)
    }
}

/// The factories, by name:
/// - `_native_decimal_new(cls, original)`: a `__new__` for `cls` that builds
///   `cls(text)` natively for a plain numeric string, else calls `original`;
/// - `_native_decimal_add(cls, original, getcontext)`: an `__add__` (and
///   `__radd__`) for `cls` adding two finite decimals (or a decimal and an
///   int) natively when the sum is exact in the context, else calling `original`.
pub fn functions(vm: &VirtualMachine) -> Vec<(&'static str, PyObjectRef)> {
    let names = Names::new(vm);
    let native_new = move |cls: PyObjectRef, original: PyObjectRef, vm: &VirtualMachine| -> PyObjectRef {
        let new = move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            if let ([given, value], true) = (args.args.as_slice(), args.kwargs.is_empty())
                && given.is(&cls)
                && let Some(parsed) = text(value).and_then(parse)
            {
                return names.new_decimal(cls.clone(), parsed, vm);
            }
            original.call(args, vm)
        };
        vm.new_function("__new__", new).into()
    };
    let native_add = move |cls: PyObjectRef, original: PyObjectRef, getcontext: PyObjectRef, vm: &VirtualMachine| {
        let add = move |args: FuncArgs, vm: &VirtualMachine| -> PyResult {
            if let ([a, b], true) = (args.args.as_slice(), args.kwargs.is_empty())
                && a.class().is(&cls)
                && let Some(sum) = names
                    .finite(a, &cls, vm)
                    .zip(names.finite(b, &cls, vm))
                    .and_then(|(x, y)| names.context(&getcontext, vm).and_then(|context| add(x, y, &context)))
            {
                return names.new_decimal(cls.clone(), sum, vm);
            }
            original.call(args, vm)
        };
        method("__add__", add, vm)
    };
    vec![
        ("_native_decimal_new", vm.new_function("_native_decimal_new", native_new).into()),
        ("_native_decimal_add", vm.new_function("_native_decimal_add", native_add).into()),
    ]
}
