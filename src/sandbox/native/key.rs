//! Key functions that only read fields, computed without a Python frame per
//! item: `sorted`, `list.sort`, `min` and `max` call `key` once per item, and
//! in RustPython each call of a lambda builds a frame and runs its bytecode.
//!
//! A key is recognised from its code when it is a plain `lambda` (or `def`)
//! of one parameter, without defaults, closure or other locals, whose body is
//! made of the parameter, constants, subscripts (`r["f"]`), attribute reads
//! (`r.f`), `r.get(k)` / `r.get(k, d)`, unary minus and tuples; and when it is
//! an `operator.itemgetter` (`attrgetter` is denied to node code). Such a key
//! is evaluated here with the operations its bytecode would run (`get_item`,
//! `get_attr`, a `get` method call, `-`, a new tuple), in the same order, so
//! it returns and raises what the lambda would. Only a row that is an exact
//! `dict` takes a shorter path for `r["f"]` and `r.get(...)`: its entries are
//! read directly, as `dict.__getitem__` and `dict.get` read them (an exact
//! dict has no `__missing__`). Any other key (a call, a global, a closure, a
//! default argument, a comparison) is called as Python calls it.

use rustpython_vm::{
    AsObject, PyObjectRef, PyResult, VirtualMachine,
    builtins::{PyBytes, PyCode, PyDict, PyFunction, PyStr, PyStrRef, PyTuple},
    bytecode::{BinaryOperator, CodeFlags, CodeUnit, Instruction, OpArgState},
};

/// A key function: recognised and evaluated here, or called.
pub enum KeyFn {
    /// A key that only reads fields of its argument.
    Read(Expr),
    /// Any other callable, called once per item.
    Call(PyObjectRef),
}

impl KeyFn {
    /// The key function for `key` (recognised when it can be, else called).
    pub fn new(key: PyObjectRef, vm: &VirtualMachine) -> Self {
        match recognise(&key, vm) {
            Some(expr) => Self::Read(expr),
            None => Self::Call(key),
        }
    }

    /// The key of `item`.
    pub fn apply(&self, item: &PyObjectRef, vm: &VirtualMachine) -> PyResult {
        match self {
            Self::Read(expr) => expr.eval(item, vm),
            Self::Call(key) => key.call((item.clone(),), vm),
        }
    }

    /// Whether the key is evaluated here rather than called.
    pub fn is_read(&self) -> bool {
        matches!(self, Self::Read(_))
    }
}

/// What a recognised key computes from its argument.
pub enum Expr {
    /// The argument itself.
    Item,
    /// A constant of the code.
    Const(PyObjectRef),
    /// `value[index]`.
    Subscript(Box<Expr>, Box<Expr>),
    /// `value.name`.
    Attr(Box<Expr>, PyStrRef),
    /// `value.get(args...)`, one or two arguments.
    Get(Box<Expr>, Vec<Expr>),
    /// `-value`.
    Negative(Box<Expr>),
    /// `(items...)`.
    Tuple(Vec<Expr>),
}

impl Expr {
    fn eval(&self, item: &PyObjectRef, vm: &VirtualMachine) -> PyResult {
        match self {
            Self::Item => Ok(item.clone()),
            Self::Const(value) => Ok(value.clone()),
            Self::Subscript(value, index) => {
                let (value, index) = (value.eval(item, vm)?, index.eval(item, vm)?);
                match value.downcast_ref_if_exact::<PyDict>(vm) {
                    Some(dict) => dict.get_item_opt(&*index, vm)?.ok_or_else(|| vm.new_key_error(index)),
                    None => value.get_item(&*index, vm),
                }
            }
            Self::Attr(value, name) => value.eval(item, vm)?.get_attr(name, vm),
            Self::Get(value, args) => {
                let value = value.eval(item, vm)?;
                let args = args.iter().map(|arg| arg.eval(item, vm)).collect::<PyResult<Vec<_>>>()?;
                match (value.downcast_ref_if_exact::<PyDict>(vm), args.as_slice()) {
                    (Some(dict), [key]) => Ok(dict.get_item_opt(&**key, vm)?.unwrap_or_else(|| vm.ctx.none())),
                    (Some(dict), [key, default]) => {
                        Ok(dict.get_item_opt(&**key, vm)?.unwrap_or_else(|| default.clone()))
                    }
                    _ => vm.call_method(&value, "get", args),
                }
            }
            Self::Negative(value) => vm._neg(&*value.eval(item, vm)?),
            Self::Tuple(items) => {
                let items = items.iter().map(|expr| expr.eval(item, vm)).collect::<PyResult<Vec<_>>>()?;
                Ok(vm.ctx.new_tuple(items).into())
            }
        }
    }
}

/// The expression `key` computes, if it is one this module evaluates.
fn recognise(key: &PyObjectRef, vm: &VirtualMachine) -> Option<Expr> {
    if key.downcast_ref_if_exact::<PyFunction>(vm).is_some() {
        return recognise_function(key, vm);
    }
    let class = key.class();
    if &*class.name() != "itemgetter" {
        return None;
    }
    let itemgetter = vm.import("operator", 0).ok()?.get_attr("itemgetter", vm).ok()?;
    if !itemgetter.is(class) {
        return None;
    }
    // `__reduce__` gives (class, the getter's items).
    let reduced = vm.call_method(key, "__reduce__", ()).ok()?;
    let reduced = reduced.downcast_ref::<PyTuple>()?;
    let items = reduced.as_slice().get(1)?.downcast_ref::<PyTuple>()?.as_slice();
    let mut exprs: Vec<Expr> =
        items.iter().map(|item| Expr::Subscript(Box::new(Expr::Item), Box::new(Expr::Const(item.clone())))).collect();
    match exprs.len() {
        1 => exprs.pop(),
        _ => Some(Expr::Tuple(exprs)),
    }
}

/// The expression a function of one parameter returns, if its code is one
/// this module evaluates (see the module's documentation).
fn recognise_function(function: &PyObjectRef, vm: &VirtualMachine) -> Option<Expr> {
    let none = |name: &'static str| function.get_attr(name, vm).ok().is_some_and(|value| vm.is_none(&value));
    if !none("__defaults__") || !none("__kwdefaults__") || !none("__closure__") {
        return None;
    }
    let code = function.get_attr("__code__", vm).ok()?;
    let code = code.downcast_ref::<PyCode>()?;
    let flags = code.code.flags;
    // Generators and coroutines also start with instructions refused below.
    let unusual = CodeFlags::VARARGS
        | CodeFlags::VARKEYWORDS
        | CodeFlags::GENERATOR
        | CodeFlags::COROUTINE
        | CodeFlags::ITERABLE_COROUTINE;
    if code.code.arg_count != 1
        || code.code.kwonlyarg_count != 0
        || code.code.varnames.len() != 1
        || !code.code.cellvars.is_empty()
        || !code.code.freevars.is_empty()
        || flags.intersects(unusual)
    {
        return None;
    }
    let constants = code.as_object().get_attr("co_consts", vm).ok()?;
    let names = code.as_object().get_attr("co_names", vm).ok()?;
    let bytes = code.as_object().get_attr("co_code", vm).ok()?;
    let bytes = bytes.downcast_ref::<PyBytes>()?.as_bytes();
    let (constants, names) = (constants.downcast_ref::<PyTuple>()?, names.downcast_ref::<PyTuple>()?);
    Compiler { constants: constants.as_slice(), names: names.as_slice(), stack: Vec::new() }.run(bytes, vm)
}

/// An entry of the simulated value stack.
enum Slot {
    Expr(Expr),
    /// What `PUSH_NULL` pushes beside a callable.
    Null,
    /// A method loaded for a call: the receiver and the name.
    Method(Expr, PyStrRef),
}

/// Turns a code object's bytecode into an `Expr` by simulating its stack.
struct Compiler<'a> {
    constants: &'a [PyObjectRef],
    names: &'a [PyObjectRef],
    stack: Vec<Slot>,
}

impl Compiler<'_> {
    /// The expression the code returns, or `None` at any instruction (or
    /// operand) outside the recognised set.
    fn run(mut self, bytes: &[u8], vm: &VirtualMachine) -> Option<Expr> {
        let mut state = OpArgState::default();
        for unit in bytes.chunks_exact(2) {
            let (op, arg) = state.get(CodeUnit::try_from(unit).ok()?);
            let arg = u32::from(arg);
            match op {
                Instruction::Cache
                | Instruction::ExtendedArg
                | Instruction::Nop
                | Instruction::NotTaken
                | Instruction::Resume { .. } => {}
                Instruction::LoadFast { .. }
                | Instruction::LoadFastBorrow { .. }
                | Instruction::LoadFastCheck { .. }
                    if arg == 0 =>
                {
                    self.push(Expr::Item)
                }
                Instruction::LoadFastLoadFast { .. } | Instruction::LoadFastBorrowLoadFastBorrow { .. } if arg == 0 => {
                    self.push(Expr::Item);
                    self.push(Expr::Item);
                }
                Instruction::LoadConst { .. } => self.push(Expr::Const(self.constants.get(arg as usize)?.clone())),
                Instruction::LoadSmallInt { .. } => self.push(Expr::Const(vm.ctx.new_int(arg).into())),
                Instruction::PushNull => self.stack.push(Slot::Null),
                Instruction::BinaryOp { op } if op.try_get(arg.into()).ok()? == BinaryOperator::Subscr => {
                    let index = self.pop()?;
                    let value = self.pop()?;
                    self.push(Expr::Subscript(Box::new(value), Box::new(index)));
                }
                Instruction::UnaryNegative => {
                    let value = self.pop()?;
                    self.push(Expr::Negative(Box::new(value)));
                }
                Instruction::BuildTuple { .. } => {
                    let at = self.stack.len().checked_sub(arg as usize)?;
                    let items = self.stack.split_off(at).into_iter().map(Slot::into_expr).collect::<Option<_>>()?;
                    self.push(Expr::Tuple(items));
                }
                Instruction::LoadAttr { namei } => {
                    let load = namei.try_get(arg.into()).ok()?;
                    let name = self.names.get(load.name_idx() as usize)?.clone().downcast::<PyStr>().ok()?;
                    let value = self.pop()?;
                    self.stack.push(if load.is_method() {
                        Slot::Method(value, name)
                    } else {
                        Slot::Expr(Expr::Attr(Box::new(value), name))
                    });
                }
                Instruction::Call { .. } => self.call(arg as usize)?,
                Instruction::ReturnValue => {
                    let value = self.pop()?;
                    return self.stack.is_empty().then_some(value);
                }
                _ => return None,
            }
        }
        None
    }

    fn push(&mut self, expr: Expr) {
        self.stack.push(Slot::Expr(expr));
    }

    fn pop(&mut self) -> Option<Expr> {
        self.stack.pop()?.into_expr()
    }

    /// `CALL argc`: only `value.get(key)` and `value.get(key, default)`.
    fn call(&mut self, argc: usize) -> Option<()> {
        if !(1..=2).contains(&argc) {
            return None;
        }
        let at = self.stack.len().checked_sub(argc)?;
        let args = self.stack.split_off(at).into_iter().map(Slot::into_expr).collect::<Option<Vec<_>>>()?;
        // The callable and its NULL, in either order, or a loaded method.
        let mut callable = None;
        while callable.is_none() {
            match self.stack.pop()? {
                Slot::Null => {}
                Slot::Method(value, name) if name.to_str() == Some("get") => callable = Some(value),
                Slot::Expr(Expr::Attr(value, name)) if name.to_str() == Some("get") => callable = Some(*value),
                _ => return None,
            }
        }
        if let Some(Slot::Null) = self.stack.last() {
            self.stack.pop();
        }
        self.push(Expr::Get(Box::new(callable?), args));
        Some(())
    }
}

impl Slot {
    fn into_expr(self) -> Option<Expr> {
        match self {
            Self::Expr(expr) => Some(expr),
            Self::Null | Self::Method(..) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sandbox::worker::build_interpreter;

    /// Evaluate `source` (a key function expression) and, when it is
    /// recognised, its key of the row `{"a": 2, "b": 3.5}`.
    fn key_of_row(source: &str) -> Option<String> {
        build_interpreter(0).enter(|vm| {
            let scope = vm.new_scope_with_builtins();
            let setup = "row = {'a': 2, 'b': 3.5, 'c': {'d': 'x'}}\ndef named(r):\n    return r['a']\nk = 'a'\n";
            let key = vm.run_block_expr(scope.clone(), &format!("{setup}{source}")).unwrap();
            let row = scope.globals.get_item("row", vm).unwrap();
            let KeyFn::Read(expr) = KeyFn::new(key, vm) else { return None };
            Some(expr.eval(&row, vm).unwrap().repr(vm).unwrap().to_string())
        })
    }

    #[test]
    fn keys_that_read_fields_are_recognised() {
        for (source, key) in [
            ("lambda r: r['a']", "2"),
            ("lambda r: r.get('b')", "3.5"),
            ("lambda r: r.get('z')", "None"),
            ("lambda r: r.get('z', 0)", "0"),
            ("lambda r: (r['a'], r['b'])", "(2, 3.5)"),
            ("lambda r: -r['b']", "-3.5"),
            ("lambda r: (-r['a'], r.get('b'), r['c']['d'])", "(-2, 3.5, 'x')"),
            ("lambda r: r", "{'a': 2, 'b': 3.5, 'c': {'d': 'x'}}"),
            ("named", "2"),
        ] {
            assert_eq!(key_of_row(source).as_deref(), Some(key), "{source}");
        }
    }

    #[test]
    fn other_keys_are_called() {
        for source in [
            "lambda r: abs(r['a'])",
            "lambda r: r[k]",
            "(lambda k: lambda r: r[k])('a')",
            "lambda r, k='a': r[k]",
            "lambda r='a': r",
            "lambda *r: r",
            "lambda r: r['a'] + 1",
            "lambda r: r['a'] if r else 0",
            "lambda r: r.items()",
            "lambda r: r.get()",
            "lambda r: [r['a']]",
            "len",
        ] {
            assert_eq!(key_of_row(source), None, "{source}");
        }
    }
}
