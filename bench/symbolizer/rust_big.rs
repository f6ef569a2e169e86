// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
//! A large Rust program for the --inline benchmark (bench/symbolizer/):
//! many types, each through std's collections, sorting, formatting,
//! hashing and I/O, so that the binary holds thousands of monomorphized
//! functions and deep inlining, as a real service does.  Run, it does a
//! little work with each and prints a checksum.
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap, HashSet, VecDeque};
use std::fmt::Write as _;
use std::io::Write as _;

macro_rules! kinds {
    ($($name:ident),*) => {
        $(
            #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
            struct $name { id: u64, tag: String, parts: Vec<u32> }

            impl $name {
                #[inline(never)]
                fn work(n: u64) -> u64 {
                    let mut v: Vec<$name> = (0..n)
                        .map(|i| $name { id: i * 7 % 13, tag: format!("{}-{}", stringify!($name), i), parts: vec![i as u32; (i % 5) as usize] })
                        .collect();
                    v.sort();
                    v.dedup_by_key(|x| x.id);
                    let h: HashMap<u64, $name> = v.iter().cloned().map(|x| (x.id, x)).collect();
                    let b: BTreeMap<String, &$name> = v.iter().map(|x| (x.tag.clone(), x)).collect();
                    let s: HashSet<&str> = b.keys().map(|k| k.as_str()).collect();
                    let t: BTreeSet<u64> = h.keys().copied().collect();
                    let mut q: VecDeque<$name> = v.iter().cloned().collect();
                    q.rotate_left(q.len() / 2);
                    let mut heap: BinaryHeap<$name> = q.into_iter().collect();
                    let mut out = String::new();
                    while let Some(x) = heap.pop() {
                        let _ = write!(out, "{:?};", x);
                    }
                    let text = serde_like(&v);
                    (out.len() + s.len() + t.len() + text.len()) as u64
                }
            }
        )*
        fn run_all(n: u64) -> u64 {
            let mut sum = 0;
            $( sum += $name::work(n); )*
            sum
        }
    };
}

fn serde_like<T: std::fmt::Debug>(v: &[T]) -> String {
    v.iter().map(|x| format!("{:#?}", x)).collect::<Vec<_>>().join(",")
}

kinds!(K00, K01, K02, K03, K04, K05, K06, K07, K08, K09, K10, K11, K12, K13, K14, K15,
       K16, K17, K18, K19, K20, K21, K22, K23, K24, K25, K26, K27, K28, K29, K30, K31,
       K32, K33, K34, K35, K36, K37, K38, K39, K40, K41, K42, K43, K44, K45, K46, K47,
       K48, K49, K50, K51, K52, K53, K54, K55, K56, K57, K58, K59, K60, K61, K62, K63);

fn main() {
    let n = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20);
    let sum = run_all(n);
    let path = std::env::temp_dir().join(format!("rust_big.{}", std::process::id()));
    std::fs::write(&path, sum.to_string()).unwrap();
    let back = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    let t = std::thread::spawn(move || back.parse::<u64>().unwrap_or(0));
    let got = t.join().unwrap();
    writeln!(std::io::stdout(), "{}", got).unwrap();
}
