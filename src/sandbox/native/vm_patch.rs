//! Tests of the patched `rustpython-vm` (`patches/rustpython-vm/PATCHED.md`)
//! on paths node code cannot reach, since it may not define classes: dict
//! lookups whose keys must not take the exact-`str` comparison (`str`
//! subclasses with their own `__hash__` and `__eq__`, whose calls are counted,
//! or with `str`'s own; a key whose `__eq__` empties the dict during the
//! lookup), run on the worker's interpreter without the code policy and
//! compared with `python3`. The row loops themselves are compared through the
//! sandbox in `tests/suite/sandbox_loops.rs`.
//!
//! Left out, as RustPython 0.5 differs there with or without the patch: a
//! lookup of one `str` subclass's key among another's (unrelated subclasses)
//! calls the looked-up key's `__eq__` first, where CPython calls the stored
//! key's.

use crate::sandbox::worker::build_interpreter;

/// Python that builds `result` from the lookups above.
const CASES: &str = r#"
calls = [0]

class Folded(str):
    def __hash__(self):
        return hash(self.lower())

    def __eq__(self, other):
        calls[0] += 1
        return isinstance(other, str) and self.lower() == other.lower()

    def __ne__(self, other):
        return not self.__eq__(other)

class Plain(str):
    pass

class Mutator:
    def __init__(self, target, value):
        self.target, self.value = target, value

    def __hash__(self):
        return hash(self.value)

    def __eq__(self, other):
        self.target.clear()
        return other == self.value

def outcome(action):
    try:
        return action()
    except KeyError:
        return 'KeyError'

words = ['cat', 'dog', 'é', 'ß', '日本', '', 'Cat']
exact = {w: i for i, w in enumerate(words)}
folded = {Folded(w): i for i, w in enumerate(['cat', 'dog', 'é'])}
result = [
    [folded.get(w, -1) for w in ['cat', 'CAT', 'Dog', 'é', 'É', 'bird']],
    [exact.get(Folded(w), -1) for w in ['CAT', 'dog', 'ß', 'Cat', 'x']],
    [Folded('CAT') in exact, 'cat' in folded, Folded('dog') in folded],
    calls[0],
    [exact.get(Plain(w), -1) for w in words] + [{Plain('cat'): 1}.get('cat'), {'cat': 2}.get(Plain('cat'))],
    sorted({Plain('a'), 'b', Folded('B'), 'c'}, key=str),
]
target = {'k': 1, 'j': 2}
result += [outcome(lambda: target[Mutator(target, 'k')]), target]
target = {'k': 1, 'j': 2}
result += [outcome(lambda: target.get(Mutator(target, 'j'), 'absent')), target, calls[0]]
"#;

/// `repr(result)` after running [`CASES`] in `python3`.
fn cpython() -> String {
    let output = std::process::Command::new("python3")
        .args(["-c", &format!("{CASES}\nprint(repr(result))")])
        .output()
        .expect("python3 is installed");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap().trim_end().to_owned()
}

#[test]
fn keys_that_are_not_exact_str_compare_as_cpython() {
    let ours = build_interpreter(0).enter(|vm| {
        let scope = vm.new_scope_with_builtins();
        let value = vm.run_block_expr(scope, &format!("{CASES}\nrepr(result)")).unwrap();
        value.str(vm).unwrap().to_string()
    });
    let theirs = cpython();
    assert!(theirs.contains("KeyError"), "the mutated lookup raises in CPython: {theirs}");
    assert_eq!(ours, theirs);
}
