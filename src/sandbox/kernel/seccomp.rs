//! The seccomp-bpf allowlist. Calls outside it trap: the kernel does not run
//! them and raises SIGSYS, whose handler writes the call's name to stderr and
//! ends the worker by SIGSYS. A second filter makes blocking signals fail
//! (EPERM), so that SIGSYS always reaches the handler: glibc's `posix_spawn`,
//! for one, blocks every signal before it clones, and a trap while SIGSYS is
//! blocked kills at once, unnamed. A third makes every file open fail (EACCES,
//! the error Landlock gives), so that no file can be read with or without
//! Landlock; an open for writing still traps.
//!
//! The allowlist was derived with `strace -f` over warm workers running the
//! hostile, differential and offline-run suites, plus DAGs that build large
//! lists, strings and integers, parse JSON, match regexes, read the clock and
//! draw unseeded random numbers: every call a warm worker made after start-up
//! is here, with a reason, plus a few on paths those runs did not take (clock
//! calls the vDSO normally answers, signal handling when a worker crashes).

use std::collections::BTreeMap;

use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule, TargetArch,
};

use super::outcome::ConfineError;
use crate::sandbox::protocol::VIOLATION;

/// `open` flags that create, truncate or write.
const WRITE_FLAGS: u64 = (libc::O_ACCMODE | libc::O_CREAT | libc::O_TRUNC | libc::O_APPEND) as u64;

/// A system call by number and name (`SYS_` and the name, as libc spells it).
struct Syscall {
    number: i64,
    name: &'static str,
}

macro_rules! sys {
    ($name:ident) => {
        Syscall { number: libc::$name, name: stringify!($name) }
    };
}

/// When an allowed call passes.
#[derive(Clone, Copy)]
enum When {
    Always,
    /// Its first argument is stdout or stderr (the pipes to the parent).
    ToParent,
    /// Its flags (third argument) neither write, create, truncate nor append.
    ReadOnly,
    /// Its protection (third argument) is not executable.
    NotExecutable,
    /// Its first argument is this process.
    OwnProcess,
    /// Its first argument is not SIGSYS (the violation handler stays).
    NotSigsys,
    /// Its first argument is stdin (the template's socket to the pool).
    ToPool,
    /// `clone` with exactly the flags a template clones workers with.
    CloneIntoParent,
    /// `kill(0, SIGKILL)`: the template ends its process group.
    KillOwnGroup,
    /// `prctl(PR_SET_NO_NEW_PRIVS, …)`, which Landlock and seccomp set-up need.
    NoNewPrivs,
    /// `fcntl(fd, F_GETFD)`: the standard library's debug check that a
    /// descriptor it closes is open.
    DescriptorFlags,
    /// `prctl(PR_SET_VMA, PR_SET_VMA_ANON_NAME, …)`: the allocator names each
    /// mapping it makes (`[anon:mimalloc]` in `/proc/PID/maps`).
    NameMapping,
}

/// The allowlist: what a confined worker may call.
const ALLOWED: &[(Syscall, When)] = &[
    // Requests on stdin.
    (sys!(SYS_read), When::Always),
    // Replies on stdout, tracebacks and violation reports on stderr.
    (sys!(SYS_write), When::ToParent),
    // Tracebacks look for a node's source file, `available_parallelism` reads
    // cgroup files and glibc `/proc/sys/vm/overcommit_memory`: read-only
    // opens, which pass here only to fail with EACCES (see `filters`), as
    // Landlock would refuse them; each of those callers handles the error.
    (sys!(SYS_openat), When::ReadOnly),
    (sys!(SYS_statx), When::Always),
    (sys!(SYS_lseek), When::Always),
    (sys!(SYS_close), When::Always),
    // The allocator (no executable memory).
    (sys!(SYS_brk), When::Always),
    (sys!(SYS_mmap), When::NotExecutable),
    (sys!(SYS_mprotect), When::NotExecutable),
    (sys!(SYS_mremap), When::Always),
    (sys!(SYS_munmap), When::Always),
    (sys!(SYS_madvise), When::Always),
    (sys!(SYS_prctl), When::NameMapping),
    // The allocator asks which NUMA node it runs on, on a machine of several.
    (sys!(SYS_getcpu), When::Always),
    // Locks, the main thread's join, the CPU count, unseeded `random.Random()`.
    (sys!(SYS_futex), When::Always),
    // The main thread's watch for the parent's death (see `worker`).
    #[cfg(target_arch = "x86_64")]
    (sys!(SYS_poll), When::Always),
    (sys!(SYS_ppoll), When::Always),
    (sys!(SYS_sched_getaffinity), When::Always),
    (sys!(SYS_getrandom), When::Always),
    // Clocks: served by the vDSO, a real call on clock sources it cannot read.
    (sys!(SYS_clock_gettime), When::Always),
    (sys!(SYS_gettimeofday), When::Always),
    // `abort` after a failed allocation (the memory limit) or a stack
    // overflow, so those are still reported as such; thread and process exit.
    (sys!(SYS_getpid), When::Always),
    (sys!(SYS_gettid), When::Always),
    (sys!(SYS_tgkill), When::OwnProcess),
    (sys!(SYS_rt_sigprocmask), When::Always), // blocking fails: see `no_blocking`
    (sys!(SYS_rt_sigaction), When::NotSigsys),
    (sys!(SYS_rt_sigreturn), When::Always),
    (sys!(SYS_sigaltstack), When::Always),
    (sys!(SYS_exit), When::Always),
    (sys!(SYS_exit_group), When::Always),
];

/// What a template may call beyond [`ALLOWED`]: what it needs to clone
/// workers, and what a clone needs until it installs the worker's allowlist
/// on top of this one (see `template`). No socket but the one it holds, no
/// `execve`, no file opened (as for a worker), no `ptrace`, no signal but to
/// its own process group.
const TEMPLATE_ALLOWED: &[(Syscall, When)] = &[
    // Requests for a worker: three descriptors on the socket; the outcome back.
    (sys!(SYS_recvmsg), When::ToPool),
    (sys!(SYS_write), When::ToPool),
    (sys!(SYS_clone), When::CloneIntoParent),
    // The socket closed: end every clone, then the template.
    (sys!(SYS_kill), When::KillOwnGroup),
    // In a new clone: the received pipes become stdin, stdout and stderr.
    #[cfg(target_arch = "x86_64")]
    (sys!(SYS_dup2), When::Always),
    (sys!(SYS_dup3), When::Always),
    (sys!(SYS_close_range), When::Always),
    (sys!(SYS_fcntl), When::DescriptorFlags),
    // In a new clone: Landlock, then the worker's filters (which only add to this one).
    (sys!(SYS_prctl), When::NoNewPrivs),
    (sys!(SYS_landlock_create_ruleset), When::Always),
    (sys!(SYS_landlock_restrict_self), When::Always),
    (sys!(SYS_seccomp), When::Always),
    (sys!(SYS_rt_sigaction), When::Always),
    // A clone's `abort` signals the clone itself, not the template (whose
    // process id this filter would name): the clone's own filter narrows it.
    (sys!(SYS_tgkill), When::Always),
];

/// What a CPython worker may call beyond [`ALLOWED`]: the `stat` calls an
/// import asks before it opens a file (a module the prelude did not load then
/// fails to import, without files, rather than end the worker).
const CPYTHON_ALLOWED: &[(Syscall, When)] = &[
    (sys!(SYS_newfstatat), When::Always),
    #[cfg(target_arch = "x86_64")]
    (sys!(SYS_fstat), When::Always),
];

/// Forbidden calls an escape would reach for, named in violation reports
/// (others are reported by number).
const NAMED: &[Syscall] = &[
    sys!(SYS_socket),
    sys!(SYS_socketpair),
    sys!(SYS_connect),
    sys!(SYS_bind),
    sys!(SYS_listen),
    sys!(SYS_accept4),
    sys!(SYS_sendto),
    sys!(SYS_sendmsg),
    sys!(SYS_execve),
    sys!(SYS_execveat),
    sys!(SYS_clone),
    sys!(SYS_clone3),
    sys!(SYS_ptrace),
    sys!(SYS_process_vm_readv),
    sys!(SYS_process_vm_writev),
    sys!(SYS_kill),
    sys!(SYS_tkill),
    sys!(SYS_pidfd_open),
    sys!(SYS_pidfd_send_signal),
    sys!(SYS_openat2),
    sys!(SYS_mkdirat),
    sys!(SYS_unlinkat),
    sys!(SYS_renameat2),
    sys!(SYS_linkat),
    sys!(SYS_symlinkat),
    sys!(SYS_fchmodat),
    sys!(SYS_fchownat),
    sys!(SYS_truncate),
    sys!(SYS_ftruncate),
    sys!(SYS_getdents64),
    sys!(SYS_chdir),
    sys!(SYS_ioctl),
    sys!(SYS_prctl),
    sys!(SYS_seccomp),
    sys!(SYS_bpf),
    sys!(SYS_mount),
    sys!(SYS_memfd_create),
    sys!(SYS_setuid),
    #[cfg(target_arch = "x86_64")]
    sys!(SYS_open),
    #[cfg(target_arch = "x86_64")]
    sys!(SYS_creat),
    #[cfg(target_arch = "x86_64")]
    sys!(SYS_fork),
    #[cfg(target_arch = "x86_64")]
    sys!(SYS_vfork),
    #[cfg(target_arch = "x86_64")]
    sys!(SYS_mkdir),
    #[cfg(target_arch = "x86_64")]
    sys!(SYS_unlink),
    #[cfg(target_arch = "x86_64")]
    sys!(SYS_rename),
    #[cfg(target_arch = "x86_64")]
    sys!(SYS_chmod),
];

/// The name of system call `number` (without `SYS_`), if it is one we name.
fn name_of(number: i64) -> Option<&'static str> {
    let mut known = ALLOWED.iter().chain(TEMPLATE_ALLOWED).chain(CPYTHON_ALLOWED).map(|(call, _)| call).chain(NAMED);
    known.find(|call| call.number == number).map(|call| &call.name[4..])
}

fn rule(arg: u8, op: SeccompCmpOp, value: u64) -> Result<SeccompRule, seccompiler::BackendError> {
    SeccompRule::new(vec![SeccompCondition::new(arg, SeccompCmpArgLen::Dword, op, value)?])
}

fn compile(filter: Result<SeccompFilter, seccompiler::BackendError>) -> Result<BpfProgram, ConfineError> {
    filter.and_then(BpfProgram::try_from).map_err(ConfineError::Filter)
}

/// `allowed` as seccompiler rules, a call's conditions joined (any passes);
/// `pid` is this process.
fn rules(
    allowed: &[&[(Syscall, When)]],
    pid: u32,
) -> Result<BTreeMap<i64, Vec<SeccompRule>>, seccompiler::BackendError> {
    use SeccompCmpOp::{Eq, MaskedEq, Ne};
    let mut rules: BTreeMap<i64, Option<Vec<SeccompRule>>> = BTreeMap::new();
    for (call, when) in allowed.iter().flat_map(|list| list.iter()) {
        let conditions = match when {
            When::Always => None,
            When::ToParent => Some(vec![rule(0, Eq, 1)?, rule(0, Eq, 2)?]),
            When::ReadOnly => Some(vec![rule(2, MaskedEq(WRITE_FLAGS), 0)?]),
            When::NotExecutable => Some(vec![rule(2, MaskedEq(libc::PROT_EXEC as u64), 0)?]),
            When::OwnProcess => Some(vec![rule(0, Eq, u64::from(pid))?]),
            When::NotSigsys => Some(vec![rule(0, Ne, libc::SIGSYS as u64)?]),
            When::ToPool => Some(vec![rule(0, Eq, libc::STDIN_FILENO as u64)?]),
            When::CloneIntoParent => Some(vec![SeccompRule::new(vec![SeccompCondition::new(
                0,
                SeccompCmpArgLen::Qword,
                Eq,
                (libc::CLONE_PARENT | libc::SIGCHLD) as u64,
            )?])?]),
            When::KillOwnGroup => Some(vec![SeccompRule::new(vec![
                SeccompCondition::new(0, SeccompCmpArgLen::Dword, Eq, 0)?,
                SeccompCondition::new(1, SeccompCmpArgLen::Dword, Eq, libc::SIGKILL as u64)?,
            ])?]),
            When::NoNewPrivs => Some(vec![rule(0, Eq, libc::PR_SET_NO_NEW_PRIVS as u64)?]),
            When::DescriptorFlags => Some(vec![rule(1, Eq, libc::F_GETFD as u64)?]),
            When::NameMapping => Some(vec![SeccompRule::new(vec![
                SeccompCondition::new(0, SeccompCmpArgLen::Dword, Eq, libc::PR_SET_VMA as u64)?,
                SeccompCondition::new(1, SeccompCmpArgLen::Qword, Eq, libc::PR_SET_VMA_ANON_NAME as u64)?,
            ])?]),
        };
        // An unconditional entry wins over conditions; conditions add up.
        let entry = rules.entry(call.number).or_insert_with(|| Some(Vec::new()));
        match (entry.as_mut(), conditions) {
            (Some(existing), Some(more)) => existing.extend(more),
            (Some(_), None) => *entry = None,
            (None, _) => {}
        }
    }
    Ok(rules.into_iter().map(|(number, conditions)| (number, conditions.unwrap_or_default())).collect())
}

/// The compiled filters for this process: `rt_sigprocmask` blocking signals
/// fails; `openat` fails; the allowlist (`allowed`) passes and anything else
/// traps. When several apply, the kernel takes the strictest action (a trap
/// before an error before passing), so an open for writing traps and any
/// other fails.
fn filters(allowed: &[&[(Syscall, When)]], pid: u32) -> Result<[BpfProgram; 3], ConfineError> {
    use SeccompCmpOp::{Eq, Ne};
    let arch = TargetArch::try_from(std::env::consts::ARCH).map_err(ConfineError::Architecture)?;
    // `how` is SIG_BLOCK or SIG_SETMASK and `set` is not NULL (a query).
    let blocking = |how: libc::c_int| {
        SeccompRule::new(vec![
            SeccompCondition::new(0, SeccompCmpArgLen::Dword, Eq, how as u64)?,
            SeccompCondition::new(1, SeccompCmpArgLen::Qword, Ne, 0)?,
        ])
    };
    let no_blocking = (|| {
        let rules = BTreeMap::from([(
            libc::SYS_rt_sigprocmask,
            vec![blocking(libc::SIG_BLOCK)?, blocking(libc::SIG_SETMASK)?],
        )]);
        SeccompFilter::new(rules, SeccompAction::Allow, SeccompAction::Errno(libc::EPERM as u32), arch)
    })();
    let no_files = SeccompFilter::new(
        BTreeMap::from([(libc::SYS_openat, Vec::new())]),
        SeccompAction::Allow,
        SeccompAction::Errno(libc::EACCES as u32),
        arch,
    );
    let allowlist = rules(allowed, pid)
        .and_then(|rules| SeccompFilter::new(rules, SeccompAction::Trap, SeccompAction::Allow, arch));
    Ok([compile(no_blocking)?, compile(no_files)?, compile(allowlist)?])
}

/// The `_sigsys` member of the kernel's `siginfo_t` (64-bit layout), which
/// libc does not expose: the trapped call's number.
#[repr(C)]
struct SigsysInfo {
    signo: libc::c_int,
    errno: libc::c_int,
    code: libc::c_int,
    pad: libc::c_int,
    call_address: *mut libc::c_void,
    syscall: libc::c_int,
    arch: libc::c_uint,
}

/// Appends `bytes` to `line` at `*len`, as far as it fits.
fn push(line: &mut [u8], len: &mut usize, bytes: &[u8]) {
    for &byte in bytes {
        if let Some(slot) = line.get_mut(*len) {
            *slot = byte;
            *len += 1;
        }
    }
}

/// The SIGSYS handler: reports the trapped call on stderr, then ends the
/// process by SIGSYS. Async-signal-safe: a stack buffer and two system calls.
extern "C" fn on_sigsys(_: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: with SA_SIGINFO the kernel passes a valid siginfo_t; for a
    // seccomp trap its union holds `_sigsys`, laid out as `SigsysInfo`.
    let number = i64::from(unsafe { (*info.cast::<SigsysInfo>()).syscall });
    let mut line = [0u8; 128];
    let mut len = 0;
    push(&mut line, &mut len, VIOLATION.as_bytes());
    match name_of(number) {
        Some(name) => push(&mut line, &mut len, name.as_bytes()),
        None => {
            let mut digits = [0u8; 20];
            let mut start = digits.len();
            let mut rest = number.unsigned_abs();
            loop {
                start -= 1;
                digits[start] = b'0' + (rest % 10) as u8;
                rest /= 10;
                if rest == 0 {
                    break;
                }
            }
            push(&mut line, &mut len, b"number ");
            push(&mut line, &mut len, &digits[start..]);
        }
    }
    push(&mut line, &mut len, b"\n");
    // SAFETY: plain system calls on a valid buffer. SIGSYS is blocked while its
    // handler runs and SA_RESETHAND has restored its default action, so the
    // forbidden `kill` traps again and the kernel delivers SIGSYS with the
    // default action: the process ends as SECCOMP_RET_KILL_PROCESS would end it.
    unsafe {
        libc::write(2, line.as_ptr().cast(), len);
        libc::syscall(libc::SYS_kill, 0, 0);
        libc::_exit(128 + libc::SIGSYS);
    }
}

/// Install the worker's filters (see [`install_filters`]): from here on, only
/// `ALLOWED` calls pass and no file opens.
pub fn install() -> Result<(), ConfineError> {
    install_filters(&[ALLOWED])
}

/// The filters of the CPython worker whose process id is `pid`, as the bytes
/// of their `sock_filter` arrays, for the worker to install itself (it has no
/// SIGSYS handler: a forbidden call ends it by SIGSYS, unnamed).
pub fn cpython_programs(pid: u32) -> Result<Vec<Vec<u8>>, ConfineError> {
    let programs = filters(&[ALLOWED, CPYTHON_ALLOWED], pid)?;
    Ok(programs
        .iter()
        .map(|program| {
            program
                .iter()
                .flat_map(|op| {
                    let mut bytes = Vec::with_capacity(8);
                    bytes.extend(op.code.to_ne_bytes());
                    bytes.extend([op.jt, op.jf]);
                    bytes.extend(op.k.to_ne_bytes());
                    bytes
                })
                .collect()
        })
        .collect())
}

/// Install the template's filters (see [`install_filters`]): `ALLOWED` and
/// `TEMPLATE_ALLOWED` calls pass, no file opens. Its clones add the worker's.
pub fn install_template() -> Result<(), ConfineError> {
    install_filters(&[ALLOWED, TEMPLATE_ALLOWED])
}

/// Install the SIGSYS handler, then the filters allowing `allowed` on every
/// thread of the process (with `PR_SET_NO_NEW_PRIVS`).
fn install_filters(allowed: &[&[(Syscall, When)]]) -> Result<(), ConfineError> {
    let programs = filters(allowed, std::process::id())?;
    // SAFETY: a zeroed sigaction is valid; the handler is async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigsys as extern "C" fn(_, _, _) as libc::sighandler_t;
        action.sa_flags = libc::SA_SIGINFO | libc::SA_RESETHAND;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGSYS, &action, std::ptr::null_mut()) != 0 {
            return Err(ConfineError::Handler(std::io::Error::last_os_error()));
        }
    }
    // The allowlist forbids `seccomp`: it comes last.
    for program in &programs {
        seccompiler::apply_filter_all_threads(program).map_err(ConfineError::Install)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_allowlist_holds_none_of_the_calls_an_escape_needs() {
        // Only narrowed to a harmless use: `prctl` naming a mapping, nothing else of it.
        let harmless = |when: &When| matches!(when, When::NameMapping);
        for call in NAMED {
            let mut allowed = ALLOWED.iter().chain(CPYTHON_ALLOWED);
            let passes = |(allowed, when): &(Syscall, When)| allowed.number == call.number && !harmless(when);
            assert!(!allowed.any(passes), "{} is allowed", call.name);
        }
        let narrowed = ALLOWED.iter().filter(|(_, when)| harmless(when)).map(|(call, _)| call.name);
        assert_eq!(narrowed.collect::<Vec<_>>(), ["SYS_prctl"]);
        // The violation handler relies on `kill` trapping.
        assert!(NAMED.iter().any(|call| call.number == libc::SYS_kill));
    }

    #[test]
    fn calls_are_named_without_their_prefix() {
        assert_eq!(name_of(libc::SYS_socket), Some("socket"));
        assert_eq!(name_of(libc::SYS_openat), Some("openat"));
        assert_eq!(name_of(-1), None);
    }

    #[test]
    fn the_filters_compile_for_this_architecture() {
        let [no_blocking, no_files, allowlist] = filters(&[ALLOWED], 1).expect("filters");
        assert!(!no_blocking.is_empty() && !no_files.is_empty());
        assert!(allowlist.len() > ALLOWED.len(), "{} instructions", allowlist.len());
        let [_, _, template] = filters(&[ALLOWED, TEMPLATE_ALLOWED], 1).expect("the template's filters");
        assert!(template.len() > allowlist.len());
        let cpython = cpython_programs(1).expect("CPython's filters");
        assert_eq!(cpython.len(), 3);
        assert!(cpython[2].len() > 8 * allowlist.len(), "8 bytes an instruction, more calls than the worker's");
    }

    #[test]
    fn the_template_may_not_reach_the_network_programs_files_or_other_processes() {
        let refused = [
            libc::SYS_socket,
            libc::SYS_connect,
            libc::SYS_execve,
            libc::SYS_execveat,
            libc::SYS_ptrace,
            libc::SYS_openat2,
            libc::SYS_clone3,
            libc::SYS_process_vm_readv,
            libc::SYS_pidfd_send_signal,
            libc::SYS_tkill,
        ];
        for number in refused {
            assert!(TEMPLATE_ALLOWED.iter().chain(ALLOWED).all(|(call, _)| call.number != number), "{number}");
        }
    }

    #[test]
    fn conditions_of_a_call_in_both_lists_add_up_and_always_wins() {
        let joined = rules(&[ALLOWED, TEMPLATE_ALLOWED], 1).expect("rules");
        assert_eq!(joined[&libc::SYS_write].len(), 3, "stdout, stderr and the socket");
        assert!(joined[&libc::SYS_rt_sigaction].is_empty(), "the template may set SIGSYS's handler for its clones");
        assert_eq!(rules(&[ALLOWED], 1).expect("rules")[&libc::SYS_rt_sigaction].len(), 1);
    }
}
