//! The worker process: one RustPython interpreter, the dataset converted to
//! Python objects (see `dataset`), the kernel layers applied (see `kernel`),
//! then one DAG read from stdin, after which the worker ends: every DAG starts
//! from a fresh worker's state. Nothing but protocol lines is ever written to
//! stdout.

use std::collections::HashMap;
use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::mpsc::{Receiver, channel};
use std::time::Instant;

use anyhow::Context;
use rustpython_vm::{
    Interpreter, PyObjectRef, PyResult, VirtualMachine,
    builtins::{PyBaseExceptionRef, PyDict, PyDictRef, PyList, PyTuple},
    compiler::{CompileError, Mode},
    py_serde,
    scope::Scope,
};
use serde_json::Value;

use super::dataset::{Dataset, DatasetError};
use super::kernel::{self, Confinement, Landlock};
use super::native;
use super::outcome::{failure_kind, first_refusal, node_seed};
use super::output::{bound_final_answer, truncate_for_display};
use super::protocol::{InputSize, Reply, Request};
use super::result_json::PlainJson;
use crate::dag::{InputRef, InputRefError};
use crate::domain::{DagNodeSpec, ExecutionResult, GeneratedDag, NodeId};

const PRELUDE: &str = include_str!("prelude.py");
/// RustPython's part of the prelude: native fast paths, the run's clock.
const PRELUDE_RUSTPYTHON: &str = include_str!("prelude_rustpython.py");
/// A stand-in `os` lets `random` (and so `statistics`) import without host
/// access. Its `urandom` is a placeholder: the prelude gives `random` one
/// that refuses (`random.SystemRandom` draws through it), on either engine.
/// `_strptime` warns about a day without a year using
/// `os.path.dirname(__file__)`: give it that one string function and the
/// `__file__` frozen modules lack.
const OS_STAND_IN: &str = r#"
import sys
os = type(sys)('os')
os.urandom = None
os.name = 'posix'
sys.modules['os'] = os
os.path = type(sys)('os.path')
os.path.dirname = lambda p: p.rpartition('/')[0]
import _strptime
_strptime.__file__ = 'Lib/_strptime.py'
"#;
/// Stack of the interpreter thread: deep (but bounded) recursion must raise
/// RecursionError, not overflow the native stack.
const INTERPRETER_STACK: usize = 256 * 1024 * 1024;

fn send(reply: &Reply) {
    let mut out = std::io::stdout().lock();
    let line = match serde_json::to_string(reply) {
        Ok(line) => line,
        Err(err) => {
            // The pool reports a worker that ends with its last stderr line.
            eprintln!("cannot write a reply: {err}");
            std::process::exit(1);
        }
    };
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Whether this worker applies the kernel layers: always.
#[cfg(not(feature = "sandbox-test-hooks"))]
const fn kernel_layers() -> bool {
    true
}

/// Whether this worker applies the kernel layers: unless told to leave them
/// off, to measure their cost (test builds only).
#[cfg(feature = "sandbox-test-hooks")]
fn kernel_layers() -> bool {
    std::env::var_os(super::protocol::WITHOUT_KERNEL_LAYERS).is_none()
}

/// Whether this worker applies Landlock among its kernel layers: always.
#[cfg(not(feature = "sandbox-test-hooks"))]
const fn landlock() -> bool {
    true
}

/// Whether this worker applies Landlock among its kernel layers: unless told
/// to leave it off, to prove seccomp alone refuses what Landlock would (test
/// builds only).
#[cfg(feature = "sandbox-test-hooks")]
fn landlock() -> bool {
    std::env::var_os(super::protocol::WITHOUT_LANDLOCK).is_none()
}

/// Landlock the calling thread, when this worker applies Landlock.
fn restrict_thread() -> Landlock {
    if landlock() { kernel::restrict_thread() } else { Landlock::Unavailable }
}

/// Serve DAG requests on stdin until it closes; as a `template`, serve
/// requests for new workers instead (see `template`).
pub fn serve(dataset_dir: &Path, template: bool, hash_seed: u32) -> anyhow::Result<()> {
    let path = dataset_dir.join("data.json");
    let text = std::fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let (landlocked, main_thread) = channel();
    let worker = std::thread::Builder::new()
        .name("sandbox".into())
        .stack_size(INTERPRETER_STACK)
        .spawn(move || run_interpreter(text, main_thread, template, hash_seed))
        .context("cannot start the interpreter thread")?;
    // From here on this thread only waits: Landlock it too (the interpreter
    // thread, started before, does so itself once start-up is over).
    if kernel_layers() {
        let _ = landlocked.send(restrict_thread());
    }
    // A template's clones end with it, and it ends when the pool closes its
    // socket (see `template`); a worker watches for its parent's death itself.
    if !template {
        super::parent_watch::until_finished(&worker);
    }
    worker.join().map_err(|_| anyhow::anyhow!("the interpreter thread panicked"))?
}

/// An interpreter whose `hash()` of strs and bytes is keyed by `hash_seed`.
pub(super) fn build_interpreter(hash_seed: u32) -> Interpreter {
    let mut settings = rustpython_vm::Settings::default();
    settings.hash_seed = Some(hash_seed);
    settings.import_site = false;
    settings.allow_external_library = false;
    settings.install_signal_handlers = false;
    settings.int_max_str_digits = 4300;
    let builder = Interpreter::builder(settings);
    let defs = rustpython_stdlib::stdlib_module_defs(&builder.ctx);
    builder.add_native_modules(&defs).add_frozen_modules(rustpython_pylib::FROZEN_STDLIB).build()
}

/// Python's rendering of an exception: the traceback and the final line.
fn describe(vm: &VirtualMachine, exc: &PyBaseExceptionRef) -> (String, String) {
    let mut traceback = String::new();
    let _ = vm.write_exception(&mut traceback, exc);
    let last = traceback.lines().rev().find(|l| !l.trim().is_empty()).unwrap_or("error").trim().to_string();
    (last, traceback)
}

/// What fails inside a worker process: start-up (the prelude), or gathering
/// a node's inputs. Tracebacks are Python's text, passed on as they are.
#[derive(Debug, thiserror::Error)]
enum WorkerError {
    /// The native functions could not be installed.
    #[error("native functions: {traceback}")]
    Native {
        /// Python's traceback.
        traceback: String,
    },
    /// A start-up script does not compile.
    #[error("{script}: {source}")]
    Compile {
        /// The script's name.
        script: &'static str,
        /// The compiler's error.
        source: CompileError,
    },
    /// A start-up script raised.
    #[error("{script}: {traceback}")]
    Script {
        /// The script's name.
        script: &'static str,
        /// Python's traceback.
        traceback: String,
    },
    /// The prelude lacks a definition the worker needs.
    #[error("the prelude defines no {name}")]
    Undefined {
        /// The missing name.
        name: &'static str,
    },
    /// An input's reference is malformed.
    #[error("input {param}: {source}")]
    Reference {
        /// The parameter.
        param: String,
        /// What is wrong with its reference.
        source: InputRefError,
    },
    /// An input's dataset key cannot be handed over.
    #[error("input {param}: {source}")]
    Dataset {
        /// The parameter.
        param: String,
        /// Why the key cannot be handed over.
        source: DatasetError,
    },
    /// An input reads a node that has produced nothing.
    #[error("input {param}: node {node} has not produced an output")]
    NoOutput {
        /// The parameter.
        param: String,
        /// The node it reads.
        node: NodeId,
    },
}

struct Prelude {
    node_globals: PyObjectRef,
    seed_node: PyObjectRef,
    set_run_clock: PyObjectRef,
    take_printed: PyObjectRef,
    to_json: PyObjectRef,
    plain_json: PlainJson,
}

fn load_prelude(vm: &VirtualMachine) -> Result<Prelude, WorkerError> {
    let scope = vm.new_scope_with_builtins();
    native::install(vm, &scope).map_err(|exc| WorkerError::Native { traceback: describe(vm, &exc).1 })?;
    let scripts =
        [("<os stand-in>", OS_STAND_IN), ("<sandbox prelude>", PRELUDE), ("<rustpython prelude>", PRELUDE_RUSTPYTHON)];
    for (script, text) in scripts {
        let code = vm
            .compile(text, Mode::Exec, script.to_string())
            .map_err(|source| WorkerError::Compile { script, source })?;
        vm.run_code_obj(code, scope.clone())
            .map_err(|exc| WorkerError::Script { script, traceback: describe(vm, &exc).1 })?;
    }
    let get = |name: &'static str| -> Result<PyObjectRef, WorkerError> {
        scope.globals.get_item_opt(name, vm).ok().flatten().ok_or(WorkerError::Undefined { name })
    };
    Ok(Prelude {
        node_globals: get("node_globals")?,
        seed_node: get("seed_node")?,
        set_run_clock: get("set_run_clock")?,
        take_printed: get("take_printed")?,
        to_json: get("to_json")?,
        plain_json: PlainJson::new(vm),
    })
}

/// How far the main thread's Landlock got (it reports once the layers are on).
fn main_thread_landlock(main_thread: &Receiver<Landlock>) -> Landlock {
    if !kernel_layers() {
        return Landlock::Unavailable;
    }
    main_thread.recv().unwrap_or(Landlock::Unavailable)
}

/// Apply the kernel layers (`others`: how far the other threads' Landlock got).
fn confine(others: Landlock) -> anyhow::Result<Confinement> {
    #[cfg(feature = "sandbox-test-hooks")]
    if !kernel_layers() {
        return Ok(Confinement { description: "kernel layers left off (test build)".into(), complete: false });
    }
    Ok(kernel::confine(restrict_thread().min(others))?)
}

/// As a template: Landlock this thread, install the template's seccomp
/// filter, report ready, and clone on request; returns in each new worker
/// only (see `template`).
#[cfg(target_os = "linux")]
fn become_template() -> anyhow::Result<()> {
    if kernel_layers() {
        restrict_thread();
        kernel::confine_template()?;
    }
    send(&Reply::TemplateReady);
    super::template::serve_forks()
}

/// Without Linux there are no templates.
#[cfg(not(target_os = "linux"))]
fn become_template() -> anyhow::Result<()> {
    anyhow::bail!("template workers need Linux")
}

fn run_interpreter(
    text: Vec<u8>,
    main_thread: Receiver<Landlock>,
    template: bool,
    hash_seed: u32,
) -> anyhow::Result<()> {
    let interpreter = build_interpreter(hash_seed);
    interpreter.enter(|vm| {
        let prelude = load_prelude(vm)?;
        let dataset = Dataset::new(vm, &text).context("data.json")?;
        drop(text);
        let others = main_thread_landlock(&main_thread);
        if template {
            become_template()?;
        }
        let Confinement { description, complete } = confine(others)?;
        send(&Reply::Ready { confinement: description, complete });
        // One DAG, then the worker ends: the next DAG runs in a fresh worker,
        // whatever this one changed (module state, the dataset's objects).
        let Some(line) = std::io::stdin().lock().lines().find(|line| !matches!(line, Ok(l) if l.trim().is_empty()))
        else {
            return Ok(());
        };
        let line = line.context("reading a request")?;
        let result = match serde_json::from_str::<Request>(&line) {
            Ok(request) => {
                #[cfg(feature = "sandbox-test-hooks")]
                let policy = if request.unchecked { Policy::Off } else { Policy::Enforced };
                #[cfg(not(feature = "sandbox-test-hooks"))]
                let policy = Policy::Enforced;
                let clock = request.now.map_or_else(|| vm.ctx.none(), |now| vm.ctx.new_str(now.rfc3339()).into());
                match prelude.set_run_clock.call((clock,), vm) {
                    Ok(_) => execute(vm, &prelude, &dataset, &request.dag, request.seed, policy),
                    Err(exc) => ExecutionResult {
                        error: Some(format!("the run's clock cannot be set: {}", describe(vm, &exc).0)),
                        ..Default::default()
                    },
                }
            }
            Err(err) => ExecutionResult { error: Some(format!("bad request: {err}")), ..Default::default() },
        };
        let failure = result.error.as_deref().map(failure_kind);
        send(&Reply::Result { result, failure, cut: std::collections::BTreeMap::new() });
        Ok(())
    })
}

/// How node code runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Policy {
    /// Checked by the language policy, with the prelude's restricted globals.
    Enforced,
    /// Unchecked, with every builtin and host access (test builds only; see `escape`).
    #[cfg(feature = "sandbox-test-hooks")]
    Off,
}

struct NodeFailure {
    error: String,
    traceback: Option<String>,
}

impl NodeFailure {
    fn plain(error: String) -> Self {
        Self { error, traceback: None }
    }
}

fn run_node(
    vm: &VirtualMachine,
    prelude: &Prelude,
    node: &DagNodeSpec,
    args: Vec<PyObjectRef>,
    seed: u64,
    policy: Policy,
) -> Result<PyObjectRef, NodeFailure> {
    let python = |result: PyResult| {
        result.map_err(|exc| {
            let (error, traceback) = describe(vm, &exc);
            NodeFailure { error, traceback: Some(traceback) }
        })
    };
    python(prelude.seed_node.call((vm.ctx.new_int(node_seed(seed, &node.node_id)),), vm))?;
    let globals = match policy {
        Policy::Enforced => prelude.node_globals.call((), vm),
        #[cfg(feature = "sandbox-test-hooks")]
        Policy::Off => super::escape::globals(vm).map(Into::into),
    };
    let globals: PyDictRef =
        python(globals)?.downcast().map_err(|_| NodeFailure::plain("the sandbox prelude is broken".into()))?;
    let code = vm
        .compile(&node.code, Mode::Exec, format!("<node {}>", node.node_id))
        .map_err(|err| NodeFailure::plain(format!("SyntaxError: {err}")))?;
    python(vm.run_code_obj(code, Scope::with_builtins(None, globals.clone(), vm)))?;
    let function = globals
        .get_item_opt(node.function_name.as_str(), vm)
        .ok()
        .flatten()
        .ok_or_else(|| NodeFailure::plain(format!("the code defines no function named {}", node.function_name)))?;
    python(function.call(args, vm))
}

/// The node's result as JSON: natively for plain values, else by the prelude's `to_json`.
fn to_json(vm: &VirtualMachine, prelude: &Prelude, object: &PyObjectRef) -> Result<Value, NodeFailure> {
    if let Some(json) = prelude.plain_json.convert(vm, object) {
        return Ok(json);
    }
    let converted = prelude.to_json.call((object.clone(),), vm).map_err(|exc| {
        let (error, traceback) = describe(vm, &exc);
        NodeFailure {
            error: format!("the node's result cannot be converted to JSON: {error}"),
            traceback: Some(traceback),
        }
    })?;
    serde_json::to_value(py_serde::PyObjectSerializer::new(vm, &converted))
        .map_err(|err| NodeFailure::plain(format!("the node's result cannot be converted to JSON: {err}")))
}

/// What is recorded of a node's result: its display copy, and the whole
/// JSON when it is the final answer.
struct Recorded {
    shown: Value,
    final_answer: Option<Value>,
}

/// Record `object`: an intermediate node's display copy is made from the
/// items shown only when they are plain values (else from the whole JSON).
fn record(
    vm: &VirtualMachine,
    prelude: &Prelude,
    object: &PyObjectRef,
    is_final: bool,
) -> Result<Recorded, NodeFailure> {
    if !is_final && let Some(shown) = prelude.plain_json.preview(vm, object) {
        return Ok(Recorded { shown, final_answer: None });
    }
    let json = to_json(vm, prelude, object)?;
    Ok(Recorded { shown: truncate_for_display(&json), final_answer: is_final.then_some(json) })
}

fn arguments(
    node: &DagNodeSpec,
    dataset: &Dataset,
    outputs: &HashMap<NodeId, PyObjectRef>,
) -> Result<Vec<PyObjectRef>, WorkerError> {
    node.inputs
        .iter()
        .map(|(param, reference)| match InputRef::parse(reference) {
            Ok(InputRef::Dataset(key)) => {
                dataset.get(&key).map_err(|source| WorkerError::Dataset { param: param.clone(), source })
            }
            Ok(InputRef::PrevNode(node)) => {
                outputs.get(&node).cloned().ok_or_else(|| WorkerError::NoOutput { param: param.clone(), node })
            }
            Err(source) => Err(WorkerError::Reference { param: param.clone(), source }),
        })
        .collect()
}

/// How many items each of the node's inputs holds that is a list, tuple
/// or dict (read without running any Python code).
fn input_sizes(node: &DagNodeSpec, args: &[PyObjectRef]) -> Vec<InputSize> {
    node.inputs
        .keys()
        .zip(args)
        .filter_map(|(param, arg)| {
            let items = if let Some(list) = arg.downcast_ref::<PyList>() {
                list.borrow_vec().len()
            } else if let Some(tuple) = arg.downcast_ref::<PyTuple>() {
                tuple.len()
            } else {
                arg.downcast_ref::<PyDict>()?.__len__()
            };
            Some(InputSize { param: param.clone(), items })
        })
        .collect()
}

/// Run every node of `dag` in layer order, under `policy`.
fn execute(
    vm: &VirtualMachine,
    prelude: &Prelude,
    dataset: &Dataset,
    dag: &GeneratedDag,
    seed: u64,
    policy: Policy,
) -> ExecutionResult {
    let started = Instant::now();
    let mut result = ExecutionResult { question_id: dag.question_id.clone(), ..Default::default() };
    let fail = |result: &mut ExecutionResult, node: &NodeId, failure: NodeFailure| {
        result.error = Some(format!("node {node}: {}", failure.error));
        result.error_node = Some(node.clone());
        result.traceback = failure.traceback;
    };
    if policy == Policy::Enforced
        && let Some((node, message)) = first_refusal(dag)
    {
        fail(&mut result, &node, NodeFailure::plain(message));
        result.execution_time_ms = started.elapsed().as_secs_f64() * 1000.0;
        return result;
    }
    let mut order: Vec<&DagNodeSpec> = dag.nodes.iter().collect();
    order.sort_by_key(|n| n.layer);
    let mut outputs: HashMap<NodeId, PyObjectRef> = HashMap::new();
    for node in order {
        let args = arguments(node, dataset, &outputs);
        let inputs = args.as_ref().map_or_else(|_| Vec::new(), |args| input_sizes(node, args));
        send(&Reply::Node { node_id: node.node_id.clone(), inputs });
        let node_started = Instant::now();
        let outcome = args
            .map_err(|err| NodeFailure::plain(err.to_string()))
            .and_then(|args| run_node(vm, prelude, node, args, seed, policy))
            .and_then(|object| {
                let is_final = node.node_id == dag.final_answer_node;
                record(vm, prelude, &object, is_final).map(|recorded| (object, recorded))
            });
        let printed = prelude
            .take_printed
            .call((), vm)
            .ok()
            .and_then(|p| p.str(vm).ok())
            .map(|s| s.to_string_lossy().into_owned());
        if let Some(printed) = printed.filter(|p| !p.is_empty()) {
            result.printed.insert(node.node_id.clone(), printed);
        }
        result.node_timings_ms.insert(node.node_id.clone(), node_started.elapsed().as_secs_f64() * 1000.0);
        match outcome {
            Ok((object, Recorded { shown, final_answer })) => {
                if let Some(json) = final_answer {
                    match bound_final_answer(&json) {
                        Ok(()) => result.final_answer = Some(json),
                        Err(err) => {
                            fail(&mut result, &node.node_id, NodeFailure::plain(err.to_string()));
                            break;
                        }
                    }
                }
                result.node_outputs.insert(node.node_id.clone(), shown);
                outputs.insert(node.node_id.clone(), object);
            }
            Err(failure) => {
                fail(&mut result, &node.node_id, failure);
                break;
            }
        }
    }
    if result.error.is_none() && result.final_answer.is_none() {
        result.error = Some(format!("the final node {} produced no output", dag.final_answer_node));
    }
    result.success = result.error.is_none();
    result.execution_time_ms = started.elapsed().as_secs_f64() * 1000.0;
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_errors_name_the_parameter() {
        let no_key = WorkerError::Dataset { param: "rows".into(), source: DatasetError::NoKey { key: "x".into() } };
        assert_eq!(no_key.to_string(), "input rows: the dataset has no key \"x\"");
        let no_output = WorkerError::NoOutput { param: "values".into(), node: "step_1".into() };
        assert_eq!(no_output.to_string(), "input values: node step_1 has not produced an output");
        let bad = WorkerError::Reference { param: "v".into(), source: InputRef::parse("rows").unwrap_err() };
        assert_eq!(bad.to_string(), "input v: \"rows\" must be dataset.<key> or prev_node.<node_id>.output");
        assert_eq!(WorkerError::Undefined { name: "to_json" }.to_string(), "the prelude defines no to_json");
    }
}
