// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//! rust_blocker N MS [DELAY_MS]
//! After DELAY_MS (default 300), a thread named "rs_blocker" blocks N times
//! for MS milliseconds in book::apply() (#[inline(never)]), through
//! book::settle() and book::nap() (both #[inline(always)]: their code is
//! apply's, and only the DWARF inline information knows them).  nap()
//! makes the nanosleep system call itself (inline asm), so that a
//! frame-pointer unwinder starts in apply's own frame, not in libc.
//! The main thread ("rs_main") waits for it and exits.  Prints its pid.
//! With WL_GO=PATH in the environment, the blocker starts only once PATH
//! exists (tests/workloads/wl.h's protocol).
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

fn arg(i: usize, def: u64) -> u64 {
    std::env::args().nth(i).and_then(|a| a.parse().ok()).unwrap_or(def)
}

fn main() {
    let (n, ms, delay) = (arg(1, 10), arg(2, 50), arg(3, 300));
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
            book::apply(n, ms);
        })
        .unwrap();
    t.join().unwrap();
}
