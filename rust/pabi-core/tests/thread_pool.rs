//! The worker pool: the thread-count range, and that small calls never build the pool. One
//! test function (its own process, so no other test builds the pool first).

use pabi_core::{batch, PabiError};

#[test]
fn thread_count_is_bounded_and_small_calls_never_build_the_pool() {
    for bad in [0, batch::MAX_THREADS + 1, 5000, usize::MAX] {
        match batch::set_num_threads(bad) {
            Err(PabiError::Domain {
                param: "threads", ..
            }) => {}
            other => panic!("set_num_threads({bad}) gave {other:?}"),
        }
    }
    batch::set_num_threads(batch::MAX_THREADS).unwrap();
    assert_eq!(batch::num_threads(), batch::MAX_THREADS);
    // scalar and small calls: computed on the calling thread, the pool of 1024 is not built
    let mut out = vec![0.0; 100];
    batch::theta(&[0.5; 100], &[1.0; 100], &mut out).unwrap();
    batch::gaussian_tail(&[0.5; 100], &mut out).unwrap();
    batch::set_num_threads(3).unwrap();
    assert!(!batch::pool_built());
    // a large call builds it
    let n = batch::PAR_MIN;
    let mut big = vec![0.0; n];
    batch::theta(&vec![0.5; n], &vec![1.0; n], &mut big).unwrap();
    assert!(batch::pool_built());
    assert_eq!(big[n - 1], big[0]);
}
