# Test builds only: the globals of node code run without the language policy
# on the CPython engine, as `escape.rs` gives them on RustPython. Besides
# every builtin they hold what code that escaped the policy could do to the
# host: `read_file(path)`, `write_file(path, text)`, `environ()`,
# `connect(port)` (TCP to 127.0.0.1) and `spawn(program, argument)` (its exit
# code). The modules they use are imported here, before the worker is
# confined; whatever the kernel refuses surfaces as an `OSError` or as the
# worker's death.
import builtins
import os
import socket
import subprocess


def read_file(path):
    with open(path) as file:
        return file.read()


def write_file(path, text):
    with open(path, "w") as file:
        file.write(text)


def environ():
    return dict(os.environ)


def connect(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as stream:
        stream.connect(("127.0.0.1", port))


def spawn(program, argument):
    return subprocess.run([program, argument]).returncode


def escape_globals():
    scope = {"__builtins__": builtins, "__name__": "node"}
    scope.update(read_file=read_file, write_file=write_file, environ=environ, connect=connect, spawn=spawn)
    return scope
