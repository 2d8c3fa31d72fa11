//! Native fast paths for the hot spots of pure-Python stdlib code in
//! RustPython (`datetime`, `decimal`, `statistics`, `Counter`'s counting loop)
//! and for sorting, each following the code it replaces exactly and handing
//! anything it does not fully cover back to it.
//!
//! Sorting is installed directly: `list.sort` on the list type and `sorted` in
//! the builtins, so the stdlib's own sorts (`statistics.median`, `quantiles`,
//! `Counter.most_common`) take it too; so are `min` and `max`, native only for
//! a key that reads fields (`key`). For the rest, the worker defines the
//! factories below in the prelude's scope; the prelude wraps the module
//! classes with them. Node code never sees these names (they
//! start with `_`); it reaches them only through the wrapped methods.

mod counter;
mod datetime;
mod decimal;
mod decimal_arith;
mod key;
mod listsort;
mod minmax;
mod object;
mod sort;
mod statistics;
mod strftime;
#[cfg(test)]
mod vm_patch;

use rustpython_vm::{PyResult, VirtualMachine, scope::Scope};

/// Define the factories in the prelude's scope (see the submodules).
pub fn install(vm: &VirtualMachine, scope: &Scope) -> PyResult<()> {
    sort::install(vm)?;
    minmax::install(vm)?;
    let functions =
        [datetime::functions(vm), decimal::functions(vm), vec![statistics::function(vm), counter::function(vm)]];
    for (name, function) in functions.into_iter().flatten() {
        scope.globals.set_item(name, function, vm)?;
    }
    Ok(())
}
