// spell-checker:ignore upgradably sharedly
use core::{cell::Cell, num::NonZero};
use lock_api::{
    GetThreadId, RawMutex, RawRwLock, RawRwLockDowngrade, RawRwLockRecursive, RawRwLockUpgrade,
    RawRwLockUpgradeDowngrade,
};

pub struct RawCellMutex {
    locked: Cell<bool>,
}

unsafe impl RawMutex for RawCellMutex {
    #[allow(
        clippy::declare_interior_mutable_const,
        reason = "const lock initializer intentionally uses interior mutability"
    )]
    const INIT: Self = Self {
        locked: Cell::new(false),
    };

    type GuardMarker = lock_api::GuardNoSend;

    #[inline]
    fn lock(&self) {
        if self.is_locked() {
            deadlock("", "Mutex")
        }
        self.locked.set(true)
    }

    #[inline]
    fn try_lock(&self) -> bool {
        if self.is_locked() {
            false
        } else {
            self.locked.set(true);
            true
        }
    }

    unsafe fn unlock(&self) {
        self.locked.set(false)
    }

    #[inline]
    fn is_locked(&self) -> bool {
        self.locked.get()
    }
}

const WRITER_BIT: usize = 0b01;
const ONE_READER: usize = 0b10;
// Patched: a frozen lock (see `RawCellRwLock::freeze`).
const FROZEN: usize = 1 << (usize::BITS - 1);

// Patched: shared locks held on frozen locks, all of them together (a frozen
// lock does not count its own readers; see `RawCellRwLock::freeze`). Without
// std no lock is ever frozen.
#[cfg(feature = "std")]
std::thread_local! {
    static FROZEN_READERS: Cell<usize> = const { Cell::new(0) };
}

#[cfg(feature = "std")]
fn frozen_readers() -> usize {
    FROZEN_READERS.with(Cell::get)
}

#[cfg(feature = "std")]
fn set_frozen_readers(readers: usize) {
    FROZEN_READERS.with(|count| count.set(readers));
}

#[cfg(not(feature = "std"))]
fn frozen_readers() -> usize {
    0
}

#[cfg(not(feature = "std"))]
fn set_frozen_readers(_readers: usize) {}

pub struct RawCellRwLock {
    state: Cell<usize>,
}

impl RawCellRwLock {
    #[inline]
    fn is_exclusive(&self) -> bool {
        self.state.get() & WRITER_BIT != 0
    }

    /// Patched: freezes an unlocked lock, for data that is read far more
    /// often than written and whose memory should stay untouched by reads
    /// (objects shared between processes after fork: a shared lock would
    /// otherwise write its reader count into the object on every read).
    /// Shared locks on a frozen lock write nothing in it; they are counted in
    /// one thread-local count for every frozen lock instead. The first
    /// exclusive lock thaws it for good, when no shared lock of any frozen
    /// lock is held (it cannot tell whose they are); otherwise it is refused
    /// as a deadlock, as a write under a read of the same lock is. Returns
    /// whether the lock is now frozen (not when it was locked).
    pub fn freeze(&self) -> bool {
        if cfg!(not(feature = "std")) {
            return false;
        }
        match self.state.get() {
            0 => {
                self.state.set(FROZEN);
                true
            }
            state => state == FROZEN,
        }
    }

    #[inline]
    fn is_frozen(&self) -> bool {
        self.state.get() == FROZEN
    }

    /// Thaws a frozen lock and locks it exclusively, if no shared lock of a
    /// frozen lock is held.
    #[cold]
    fn try_thaw_exclusive(&self) -> bool {
        if frozen_readers() != 0 {
            return false;
        }
        self.state.set(WRITER_BIT);
        true
    }
}

unsafe impl RawRwLock for RawCellRwLock {
    #[allow(
        clippy::declare_interior_mutable_const,
        reason = "const rwlock initializer intentionally uses interior mutability"
    )]
    const INIT: Self = Self {
        state: Cell::new(0),
    };

    type GuardMarker = <RawCellMutex as RawMutex>::GuardMarker;

    #[inline]
    fn lock_shared(&self) {
        if !self.try_lock_shared() {
            deadlock("sharedly ", "RwLock")
        }
    }

    #[inline]
    fn try_lock_shared(&self) -> bool {
        // TODO: figure out whether this is realistic; could maybe help
        // debug deadlocks from 2+ read() in the same thread?
        // if self.is_locked() {
        //     false
        // } else {
        //     self.state.set(ONE_READER);
        //     true
        // }
        self.try_lock_shared_recursive()
    }

    #[inline]
    unsafe fn unlock_shared(&self) {
        if self.is_frozen() {
            set_frozen_readers(frozen_readers() - 1);
            return;
        }
        self.state.update(|x| x - ONE_READER)
    }

    #[inline]
    fn lock_exclusive(&self) {
        if !self.try_lock_exclusive() {
            deadlock("exclusively ", "RwLock")
        }
        self.state.set(WRITER_BIT)
    }

    #[inline]
    fn try_lock_exclusive(&self) -> bool {
        if self.is_frozen() {
            return self.try_thaw_exclusive();
        }
        if self.is_locked() {
            false
        } else {
            self.state.set(WRITER_BIT);
            true
        }
    }

    unsafe fn unlock_exclusive(&self) {
        self.state.set(0)
    }

    fn is_locked(&self) -> bool {
        if self.is_frozen() {
            return frozen_readers() != 0;
        }
        self.state.get() != 0
    }
}

unsafe impl RawRwLockDowngrade for RawCellRwLock {
    unsafe fn downgrade(&self) {
        self.state.set(ONE_READER);
    }
}

unsafe impl RawRwLockUpgrade for RawCellRwLock {
    #[inline]
    fn lock_upgradable(&self) {
        if !self.try_lock_upgradable() {
            deadlock("upgradably+sharedly ", "RwLock")
        }
    }

    #[inline]
    fn try_lock_upgradable(&self) -> bool {
        // defer to normal -- we can always try to upgrade
        self.try_lock_shared()
    }

    #[inline]
    unsafe fn unlock_upgradable(&self) {
        unsafe { self.unlock_shared() }
    }

    #[inline]
    unsafe fn upgrade(&self) {
        if !unsafe { self.try_upgrade() } {
            deadlock("upgrade ", "RwLock")
        }
    }

    #[inline]
    unsafe fn try_upgrade(&self) -> bool {
        // Patched: the only shared lock of frozen locks held is this one.
        if self.is_frozen() && frozen_readers() == 1 {
            set_frozen_readers(0);
            self.state.set(WRITER_BIT);
            return true;
        }
        if self.state.get() == ONE_READER {
            self.state.set(WRITER_BIT);
            true
        } else {
            false
        }
    }
}

unsafe impl RawRwLockUpgradeDowngrade for RawCellRwLock {
    #[inline]
    unsafe fn downgrade_upgradable(&self) {
        // no-op -- we're always upgradable
    }

    #[inline]
    unsafe fn downgrade_to_upgradable(&self) {
        self.state.set(ONE_READER);
    }
}

unsafe impl RawRwLockRecursive for RawCellRwLock {
    #[inline]
    fn lock_shared_recursive(&self) {
        if !self.try_lock_shared_recursive() {
            deadlock("recursively+sharedly ", "RwLock")
        }
    }

    #[inline]
    fn try_lock_shared_recursive(&self) -> bool {
        if self.is_frozen() {
            set_frozen_readers(frozen_readers() + 1);
            return true;
        }
        if self.is_exclusive() {
            false
        } else if let Some(new) = self.state.get().checked_add(ONE_READER) {
            self.state.set(new);
            true
        } else {
            false
        }
    }
}

#[cold]
#[inline(never)]
fn deadlock(lock_kind: &str, ty: &str) -> ! {
    panic!("deadlock: tried to {lock_kind}lock a Cell{ty} twice")
}

#[derive(Clone, Copy)]
pub struct SingleThreadId(());

unsafe impl GetThreadId for SingleThreadId {
    const INIT: Self = Self(());

    fn nonzero_thread_id(&self) -> NonZero<usize> {
        // Safety: This is constant.
        unsafe { NonZero::new_unchecked(1) }
    }
}
