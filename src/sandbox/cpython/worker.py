# The CPython sandbox worker, run as `python3 -s -S -B -c <this>` with a clean
# environment, `/` as working directory and the pool's resource limits. It
# speaks the pool's line protocol on its three pipes:
#
# 1. the boot line (stdin): the dataset's path, the prelude's scripts, the
#    seccomp programs and system call numbers (and, in test builds, the
#    escape functions of requests run without the policy);
# 2. it opens the dataset, runs the prelude, imports what it needs, confines
#    itself (no new privileges, Landlock with no file access), forks a
#    watcher that ends it if the pool's process dies, loads the dataset,
#    installs the seccomp programs, forgets ctypes, and replies `ready`;
# 3. one DAG request (stdin): the nodes in layer order, already checked by the
#    language policy, each with its seed and resolved inputs; a `node` reply
#    before each node and one `result` reply at the end. Then it ends.
#
# A template (stdin is a Unix socket, not a pipe) reads its boot line from
# the socket, loads the dataset, freezes the collector's objects and replies
# `template_ready`; it then clones itself on each request (see
# `_serve_clones`). A clone reads one more line on its new stdin, the seccomp
# programs compiled for its own process id, and goes on from step 2's
# watcher, as a worker started from scratch does.
#
# Nothing but protocol lines is written to stdout.
import sys

sys.path[:] = [entry for entry in sys.path if entry]
import base64
import gc
import itertools
import json
import os
import select
import signal
import socket
import stat
import struct
import time
import traceback


def _send(reply):
    sys.stdout.write(json.dumps(reply, allow_nan=False) + "\n")
    sys.stdout.flush()


def _watch_parent():
    """Fork a watcher that ends this worker when the pool's process is gone.

    The pool's process is the only reader of stdout: when it dies (SIGKILL
    included), `poll` reports an error on the pipe's write end. The worker
    itself cannot notice while node code runs (a long call in C never lets
    another thread take the interpreter), so a second process watches. It
    holds stdout alone and dies with the worker (`PR_SET_PDEATHSIG`; the
    worker's only thread forked it). It is forked after Landlock, inside
    the worker's domain (with signals scoped, the worker's death could not
    signal a process outside it), before the dataset is loaded (a small
    copy) and before seccomp (which forbids `fork`); the pool's kill of the
    process group takes it too."""
    worker = os.getpid()
    if os.fork() != 0:
        return
    try:
        import ctypes  # already loaded unless the kernel layers are off

        if ctypes.CDLL(None).prctl(1, signal.SIGKILL, 0, 0, 0) != 0 or os.getppid() != worker:
            return  # PR_SET_PDEATHSIG failed, or the worker is already gone
        for fd in (0, 2):
            os.close(fd)
        poller = select.poll()
        poller.register(1, 0)  # errors and hang-ups are always reported
        poller.poll()
        os.kill(worker, signal.SIGKILL)
    finally:
        os._exit(0)


def _landlock(boot):
    """No new privileges, then Landlock: no file access, no TCP, and abstract
    sockets and signals scoped to the worker, as far as the kernel's ABI
    goes. Its description and whether it fully holds."""
    if not boot["kernel"]:
        return "kernel layers left off (test build)", False
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    syscall = libc.syscall
    syscall.restype = ctypes.c_long
    numbers = boot["syscalls"]
    if libc.prctl(38, 1, 0, 0, 0) != 0:  # PR_SET_NO_NEW_PRIVS
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
    if not boot["landlock"]:
        return "Landlock unavailable", False
    abi = syscall(numbers["landlock_create_ruleset"], None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    if abi < 1:
        return "Landlock unavailable", False
    access_fs = (1 << 13) - 1
    access_fs |= (1 << 13) if abi >= 2 else 0  # refer
    access_fs |= (1 << 14) if abi >= 3 else 0  # truncate
    access_fs |= (1 << 15) if abi >= 5 else 0  # ioctl on devices
    access_net = 3 if abi >= 4 else 0  # bind and connect TCP
    scoped = 3 if abi >= 6 else 0  # abstract Unix sockets, signals
    size = 24 if abi >= 6 else 16 if abi >= 4 else 8
    attr = (ctypes.c_uint64 * 3)(access_fs, access_net, scoped)
    fd = syscall(numbers["landlock_create_ruleset"], ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        return "Landlock unavailable", False
    restricted = syscall(numbers["landlock_restrict_self"], ctypes.c_int(fd), ctypes.c_uint32(0)) == 0
    libc.close(ctypes.c_int(fd))
    if not restricted:
        return "Landlock unavailable", False
    if abi >= 6:
        return "Landlock fully enforced", True
    return "Landlock partly enforced (older kernel ABI)", False


def _seccomp(boot):
    """Install the seccomp programs (the last forbids installing more), then
    forget ctypes."""
    if not boot["kernel"]:
        return
    import ctypes  # loaded by `_landlock`

    libc = ctypes.CDLL(None, use_errno=True)
    syscall = libc.syscall
    syscall.restype = ctypes.c_long

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    for program in boot["filters"]:
        raw = base64.b64decode(program)
        buffer = ctypes.create_string_buffer(raw, len(raw))
        fprog = SockFprog(len(raw) // 8, ctypes.cast(buffer, ctypes.c_void_p))
        # SECCOMP_SET_MODE_FILTER; the last program forbids this call.
        if syscall(boot["syscalls"]["seccomp"], ctypes.c_uint(1), ctypes.c_uint(0), ctypes.byref(fprog)) != 0:
            raise OSError(ctypes.get_errno(), "seccomp(SECCOMP_SET_MODE_FILTER)")
    for name in [name for name in sys.modules if name.split(".")[0] in ("ctypes", "_ctypes")]:
        del sys.modules[name]


def _last_line(text):
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else "error"


class _NodeFailure(Exception):
    def __init__(self, error, traceback_text=None):
        super().__init__(error)
        self.error = error
        self.traceback_text = traceback_text


def _python_failure(exc, prefix=""):
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return _NodeFailure(prefix + _last_line(text), text)


def _arguments(node, data, outputs):
    args = []
    for param, kind, value in node["inputs"]:
        if kind == "dataset":
            if value not in data:
                raise _NodeFailure("input %s: the dataset has no key %s" % (param, json.dumps(value)))
            args.append(data[value])
        elif kind == "node":
            if value not in outputs:
                raise _NodeFailure("input %s: node %s has not produced an output" % (param, value))
            args.append(outputs[value])
        else:
            raise _NodeFailure(value)
    return args


def _input_sizes(node, args):
    sizes = []
    for (param, _kind, _value), arg in zip(node["inputs"], args):
        if type(arg) in (list, tuple, dict):
            sizes.append({"param": param, "items": len(arg)})
    return sizes


def _run_node(prelude, node, args, escape):
    prelude["seed_node"](node["seed"])
    scope = escape["escape_globals"]() if escape else prelude["node_globals"]()
    try:
        code = compile(node["code"], "<node %s>" % node["node_id"], "exec")
    except SyntaxError as exc:
        raise _NodeFailure("SyntaxError: %s" % exc)
    try:
        exec(code, scope)
    except BaseException as exc:
        raise _python_failure(exc)
    function = scope.get(node["function_name"])
    if function is None:
        raise _NodeFailure("the code defines no function named %s" % node["function_name"])
    try:
        return function(*args)
    except BaseException as exc:
        raise _python_failure(exc)


def _cut(value, items):
    """An intermediate list, tuple or dict cut to its first `items` items (its
    display copy shows no more), and how many it holds; else (value, None). A
    dict with keys that are not strs is sent whole: as JSON a later key may
    take an earlier one's place."""
    kind = type(value)
    if kind in (list, tuple) and len(value) > items:
        return value[:items], len(value)
    if kind is dict and len(value) > items and all(type(key) is str for key in value):
        return dict(itertools.islice(value.items(), items)), len(value)
    return value, None


def _execute(prelude, data, request, escape, items):
    started = time.perf_counter()
    result = {"question_id": request["question_id"], "success": False, "final_answer": None,
              "node_outputs": {}, "error": None, "node_timings_ms": {}, "printed": {}}
    outputs, cut, answered = {}, {}, False
    for node in request["nodes"]:
        node_id = node["node_id"]
        try:
            args = _arguments(node, data, outputs)
        except _NodeFailure as failure:
            args, early = None, failure
        else:
            early = None
        _send({"event": "node", "node_id": node_id, "inputs": _input_sizes(node, args) if args else []})
        node_started = time.perf_counter()
        try:
            if early is not None:
                raise early
            value = _run_node(prelude, node, args, escape if request["unchecked"] else None)
            final = node_id == request["final_node"]
            kept, total = (value, None) if final else _cut(value, items)
            try:
                shown = prelude["to_json"](kept)
                json.dumps(shown, allow_nan=False)
            except BaseException as exc:
                raise _python_failure(exc, "the node's result cannot be converted to JSON: ")
        except _NodeFailure as failure:
            outcome = failure
        else:
            outcome = None
        printed = prelude["take_printed"]()
        if printed:
            result["printed"][node_id] = printed
        result["node_timings_ms"][node_id] = (time.perf_counter() - node_started) * 1000.0
        if outcome is not None:
            result["error"] = "node %s: %s" % (node_id, outcome.error)
            result["error_node"] = node_id
            if outcome.traceback_text is not None:
                result["traceback"] = outcome.traceback_text
            break
        result["node_outputs"][node_id] = shown
        outputs[node_id] = value
        if total is not None:
            cut[node_id] = total
        if final:
            result["final_answer"], answered = shown, True
    if result["error"] is None and not answered:
        result["error"] = "the final node %s produced no output" % request["final_node"]
    result["success"] = result["error"] is None
    result["execution_time_ms"] = (time.perf_counter() - started) * 1000.0
    return result, cut


def _read_line(control):
    """The boot line from the template's socket (nothing else comes before
    the template replies)."""
    chunks = []
    while not chunks or not chunks[-1].endswith(b"\n"):
        chunk = control.recv(1 << 16)
        if not chunk:
            raise EOFError("the pool closed the socket before the boot line ended")
        chunks.append(chunk)
    return b"".join(chunks)


def _serve_clones(control, boot):
    """The template's loop: for each request on `control` (one byte carrying
    a new worker's stdin, stdout and stderr), clone this process with
    `CLONE_PARENT` (the new worker is the pool's child, which waits for it
    and kills it like any worker) and answer with its process id, or the
    negated errno as a little-endian i32. Returns in each new worker, its
    pipes in place of the template's and no other descriptor open. When the
    pool closes the socket, the template kills its process group (itself,
    its clones and their watchers) and never returns."""
    import ctypes  # loaded by `_landlock` (or free to load: no kernel layers)

    # A PyDLL call holds the interpreter's lock throughout, so the clone
    # starts holding it, as the thread that made it does.
    raw_syscall = ctypes.PyDLL(None, use_errno=True).syscall
    raw_syscall.restype = ctypes.c_long
    flags = 0x00008000 | signal.SIGCHLD  # CLONE_PARENT
    while True:
        message, fds, _flags, _address = socket.recv_fds(control, 1, 3)
        if not message:
            os.kill(0, signal.SIGKILL)
        pid = raw_syscall(ctypes.c_long(boot["syscalls"]["clone"]), ctypes.c_ulong(flags), None, None, None, None)
        if pid == 0:
            control.detach()  # fd 0 becomes the new stdin below
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
            os.closerange(3, os.sysconf("SC_OPEN_MAX"))
            return
        for fd in fds:
            os.close(fd)
        control.sendall(struct.pack("<i", pid if pid > 0 else -ctypes.get_errno()))


def _touch(data):
    """Read every object of the dataset once. In a clone, reading an object
    writes its reference count, so the kernel copies each page a DAG reads:
    done here, while the clone waits as the pool's spare, the copies are not
    paid during the DAG."""
    stack = [data]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is dict:
            stack.extend(item.values())
        elif kind is list:
            stack.extend(item)


def _start():
    """Boot, load the dataset and confine this worker (a template first
    serves clones, and each clone goes on from here); what `_main` needs."""
    control = socket.socket(fileno=0) if stat.S_ISSOCK(os.fstat(0).st_mode) else None
    boot = json.loads(_read_line(control) if control else sys.stdin.buffer.readline())
    data_file = open(boot["data"], "rb")
    prelude = {"__name__": "eval_dag_prelude"}
    for name, text in boot["prelude"]:
        exec(compile(text, name, "exec"), prelude)
    escape = {}
    if boot["escape"]:
        exec(compile(boot["escape"], "<escape>", "exec"), escape)
    description, complete = _landlock(boot)
    if control:
        with data_file:
            data = json.load(data_file)
        # Objects that outlive every collection: the collector never writes
        # to the dataset's pages, which stay shared with the clones.
        gc.freeze()
        _send({"event": "template_ready"})
        _serve_clones(control, boot)
        _watch_parent()
        boot["filters"] = json.loads(sys.stdin.buffer.readline())["filters"]
        _touch(data)
    else:
        _watch_parent()
        with data_file:
            data = json.load(data_file)
    _seccomp(boot)
    if boot["kernel"]:
        description = "seccomp allowlist installed (no file opens), " + description
    _send({"event": "ready", "confinement": description, "complete": complete})
    return boot, prelude, escape, data


def _main():
    boot, prelude, escape, data = _start()
    line = sys.stdin.buffer.readline()
    if not line.strip():
        return
    try:
        request = json.loads(line)
    except ValueError as exc:
        _send({"event": "result", "result": {"success": False, "error": "bad request: %s" % exc}})
        return
    try:
        prelude["set_run_clock"](request.get("now"))
    except BaseException as exc:
        error = "the run's clock cannot be set: " + _last_line("".join(traceback.format_exception_only(exc)))
        _send({"event": "result", "result": {"question_id": request["question_id"], "success": False,
                                              "error": error}})
        return
    result, cut = _execute(prelude, data, request, escape, boot["display_items"])
    _send({"event": "result", "result": result, "cut": cut})


_main()
