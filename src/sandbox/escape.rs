//! Test builds only (feature `sandbox-test-hooks`): the globals of node code
//! run without the language policy. Besides every builtin, they hold what code
//! that escaped the policy into native code could do to the host, as plain
//! functions: the interpreter itself has no `os`, `socket` or `open` (it is
//! built without host access), so these stand in for the attacker's own
//! system calls. Whatever the kernel refuses surfaces as an `OSError` or, for a
//! forbidden system call, as the worker's death.

use rustpython_vm::{PyObjectRef, PyResult, VirtualMachine, builtins::PyDictRef};

/// Globals for unchecked node code: all builtins plus `read_file(path)`,
/// `write_file(path, text)`, `environ()`, `connect(port)` (TCP to 127.0.0.1)
/// and `spawn(program, argument)` (returns the exit code).
pub fn globals(vm: &VirtualMachine) -> PyResult<PyDictRef> {
    let scope = vm.new_scope_with_builtins();
    let functions: [(&str, PyObjectRef); 5] = [
        (
            "read_file",
            vm.new_function("read_file", |path: String, vm: &VirtualMachine| -> PyResult<String> {
                std::fs::read_to_string(path).map_err(|e| os_error(vm, e))
            })
            .into(),
        ),
        (
            "write_file",
            vm.new_function("write_file", |path: String, text: String, vm: &VirtualMachine| -> PyResult<()> {
                std::fs::write(path, text).map_err(|e| os_error(vm, e))
            })
            .into(),
        ),
        (
            "environ",
            vm.new_function("environ", |vm: &VirtualMachine| -> PyResult<PyDictRef> {
                let dict = vm.ctx.new_dict();
                for (name, value) in std::env::vars_os() {
                    let (name, value) = (name.to_string_lossy().into_owned(), value.to_string_lossy().into_owned());
                    dict.set_item(name.as_str(), vm.ctx.new_str(value).into(), vm)?;
                }
                Ok(dict)
            })
            .into(),
        ),
        (
            "connect",
            vm.new_function("connect", |port: u16, vm: &VirtualMachine| -> PyResult<()> {
                std::net::TcpStream::connect(("127.0.0.1", port)).map(drop).map_err(|e| os_error(vm, e))
            })
            .into(),
        ),
        (
            "spawn",
            vm.new_function("spawn", |program: String, argument: String, vm: &VirtualMachine| -> PyResult<i32> {
                let status = std::process::Command::new(program).arg(argument).status().map_err(|e| os_error(vm, e))?;
                Ok(status.code().unwrap_or(-1))
            })
            .into(),
        ),
    ];
    for (name, function) in functions {
        scope.globals.set_item(name, function, vm)?;
    }
    Ok(scope.globals)
}

fn os_error(vm: &VirtualMachine, error: std::io::Error) -> rustpython_vm::builtins::PyBaseExceptionRef {
    vm.new_os_error(error.to_string())
}
