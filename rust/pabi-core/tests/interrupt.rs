//! The stop flag of `pabi_core::interrupt` and the drivers that honour it. One test function
//! (its own process): the flag is process-wide, so nothing else may run while it is set.

use pabi_core::{batch, interrupt, PabiError};

#[test]
fn requested_stop_interrupts_the_drivers_and_clear_restores_them() {
    let n = 1 << 20;
    let eps = vec![0.5; n];
    let r = vec![1.0; n];
    let mut out = vec![0.0; n];
    let mut reference = vec![0.0; n];
    assert_eq!(interrupt::check(), Ok(()));
    batch::theta(&eps, &r, &mut reference).unwrap();

    let before = interrupt::requests();
    interrupt::request();
    assert!(interrupt::requested());
    assert_eq!(interrupt::requests(), before.wrapping_add(1));
    assert_eq!(interrupt::check(), Err(PabiError::Interrupted));
    // large arrays: every parallel driver stops (at its first chunk)
    assert_eq!(
        batch::theta(&eps, &r, &mut out),
        Err(PabiError::Interrupted)
    );
    assert_eq!(
        batch::gaussian_tail(&eps, &mut out),
        Err(PabiError::Interrupted)
    );
    assert_eq!(
        batch::laplace_theta(&eps, &r, &mut out),
        Err(PabiError::Interrupted)
    );
    for threads in [1, 3] {
        batch::set_num_threads(threads).unwrap();
        assert_eq!(batch::lambertw(&eps, &mut out), Err(PabiError::Interrupted));
    }
    // small arrays run on the calling thread without chunking: unaffected
    assert_eq!(batch::theta(&eps[..10], &r[..10], &mut out[..10]), Ok(()));

    interrupt::clear();
    assert_eq!(interrupt::check(), Ok(()));
    batch::theta(&eps, &r, &mut out).unwrap();
    assert_eq!(out, reference);
}
