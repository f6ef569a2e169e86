// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//! rust_blocker N MS [DELAY_MS [MODE]]
//! After DELAY_MS (default 300), a thread named "rs_blocker" blocks N times
//! for MS milliseconds in book::apply() (#[inline(never)]), through
//! book::settle() and book::nap() (both #[inline(always)]: their code is
//! apply's, and only the DWARF inline information knows them).  nap()
//! makes the nanosleep system call itself (inline asm), so that a
//! frame-pointer unwinder starts in apply's own frame, not in libc.
//! The main thread ("rs_main") waits for it and exits.  Prints its pid.
//! With WL_GO=PATH in the environment, the blocker starts only once PATH
//! exists (tests/workloads/wl.h's protocol).
//! MODE (a 4th argument) changes what the blocker thread does N times:
//!  - "wake": it sleeps MS, then wakes a thread named "rs_waiter" that
//!    waits in a futex: bell::ring() (#[inline(never)]) calls bell::post()
//!    that calls bell::kick() (both #[inline(always)]), which makes the
//!    FUTEX_WAKE system call itself (the waker's stack: ring's frame);
//!  - "fault": it writes one byte to each of N fresh anonymous pages (no
//!    huge pages), in pages::touch() (#[inline(always)]), inlined in
//!    pages::fill() (#[inline(never)]): N minor faults at fill's address.
//! Built twice by the Makefile: legacy symbol mangling (rust_blocker) and
//! v0 (rust_blocker_v0), both -O -g -C force-frame-pointers=yes.
use std::io::Write;
use std::path::Path;
use std::time::Duration;

mod book {
    #[repr(C)]
    struct Timespec {
        sec: i64,
        nsec: i64,
    }

    // the system call, in the caller's frame
    #[inline(always)]
    fn nap(ms: u64) {
        let ts = Timespec { sec: (ms / 1000) as i64, nsec: ((ms % 1000) * 1_000_000) as i64 };
        loop {
            let ret: i64;
            #[cfg(target_arch = "x86_64")]
            unsafe {
                core::arch::asm!("syscall", inlateout("rax") 35i64 => ret,
                                 in("rdi") &ts, in("rsi") 0i64,
                                 lateout("rcx") _, lateout("r11") _);
            }
            #[cfg(target_arch = "aarch64")]
            unsafe {
                core::arch::asm!("svc 0", in("x8") 101i64, inlateout("x0") &ts => ret,
                                 in("x1") 0i64);
            }
            if ret != -4 {
                break; // not EINTR
            }
        }
    }

    #[inline(always)]
    fn settle(ms: u64) {
        nap(ms);
        std::hint::black_box(ms);
    }

    #[inline(never)]
    pub fn apply(n: u64, ms: u64) {
        for _ in 0..n {
            settle(ms);
        }
        std::hint::black_box(n);
    }
}

// a futex system call made in the caller's own frame
#[inline(always)]
fn futex(word: &std::sync::atomic::AtomicU32, op: i64, val: i64) -> i64 {
    let ret: i64;
    #[cfg(target_arch = "x86_64")]
    unsafe {
        core::arch::asm!("syscall", inlateout("rax") 202i64 => ret,
                         in("rdi") word.as_ptr(), in("rsi") op, in("rdx") val, in("r10") 0i64,
                         lateout("rcx") _, lateout("r11") _);
    }
    #[cfg(target_arch = "aarch64")]
    unsafe {
        core::arch::asm!("svc 0", in("x8") 98i64, inlateout("x0") word.as_ptr() => ret,
                         in("x1") op, in("x2") val, in("x3") 0i64);
    }
    ret
}

const FUTEX_WAIT_PRIVATE: i64 = 128;
const FUTEX_WAKE_PRIVATE: i64 = 129;

mod bell {
    use std::sync::atomic::{AtomicU32, Ordering};

    pub static WORD: AtomicU32 = AtomicU32::new(0);

    #[inline(always)]
    fn kick(w: &AtomicU32) {
        // the instruction after the system call (its return address,
        // the waker's leaf) is kick's own: the count of threads woken kept
        let woken = super::futex(w, super::FUTEX_WAKE_PRIVATE, 1);
        std::hint::black_box(woken);
    }

    #[inline(always)]
    fn post(w: &AtomicU32) {
        w.store(1, Ordering::Release);
        kick(w);
    }

    #[inline(never)]
    pub fn ring(n: u64, ms: u64) {
        for _ in 0..n {
            std::thread::sleep(std::time::Duration::from_millis(ms));
            post(&WORD);
        }
        std::hint::black_box(n);
    }

    // the waiter: n posts taken
    pub fn wait(n: u64) {
        for _ in 0..n {
            while WORD.swap(0, Ordering::AcqRel) == 0 {
                super::futex(&WORD, super::FUTEX_WAIT_PRIVATE, 0);
            }
        }
    }
}

mod pages {
    extern "C" {
        fn mmap(addr: *mut u8, len: usize, prot: i32, flags: i32, fd: i32, off: i64) -> *mut u8;
        fn madvise(addr: *mut u8, len: usize, advice: i32) -> i32;
    }
    const PAGE: usize = 4096;

    #[inline(always)]
    fn touch(p: *mut u8, i: usize) {
        unsafe { std::ptr::write_volatile(p.add(i * PAGE), 1) };
    }

    #[inline(never)]
    pub fn fill(n: u64) {
        let len = n as usize * PAGE;
        // PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS; MADV_NOHUGEPAGE
        let p = unsafe { mmap(std::ptr::null_mut(), len, 3, 0x22, -1, 0) };
        if p as isize == -1 {
            std::process::exit(1);
        }
        unsafe { madvise(p, len, 15) };
        for i in 0..n as usize {
            touch(p, i);
        }
        std::hint::black_box(p);
    }
}

fn arg(i: usize, def: u64) -> u64 {
    std::env::args().nth(i).and_then(|a| a.parse().ok()).unwrap_or(def)
}

fn main() {
    let (n, ms, delay) = (arg(1, 10), arg(2, 50), arg(3, 300));
    let mode = std::env::args().nth(4).unwrap_or_default();
    let wake = mode == "wake";
    let go = std::env::var_os("WL_GO");

    println!("{}", std::process::id());
    std::io::stdout().flush().unwrap();
    std::thread::sleep(Duration::from_millis(delay));
    let t = std::thread::Builder::new()
        .name("rs_blocker".into())
        .spawn(move || {
            if let Some(p) = go {
                while !Path::new(&p).exists() {
                    std::thread::sleep(Duration::from_millis(5));
                }
            }
            match mode.as_str() {
                "wake" => bell::ring(n, ms),
                "fault" => pages::fill(n),
                _ => book::apply(n, ms),
            }
        })
        .unwrap();
    if wake {
        std::thread::Builder::new()
            .name("rs_waiter".into())
            .spawn(move || bell::wait(n))
            .unwrap()
            .join()
            .unwrap();
    }
    t.join().unwrap();
}
