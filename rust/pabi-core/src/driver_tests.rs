//! Tests of [`super`] (the array driver): values independent of the chunking and of the
//! serial/parallel path, the first bad index, the shape errors. (The five drivers it replaced
//! were checked against it bit for bit, values and errors, before they were removed.)

use super::*;

fn shape_args(got: usize, n: usize) -> PabiError {
    PabiError::Shape {
        message: format!("argument arrays have lengths {got} and {n} (they must be equal)"),
    }
}

fn shape_elements(_: usize, _: usize) -> PabiError {
    PabiError::Shape {
        message: "argument arrays must have equal lengths".into(),
    }
}

/// A scalar function with a domain error at x < 0.
fn f2(x: [f64; 2]) -> Result<f64> {
    if x[0] < 0.0 {
        Err(PabiError::domain("x", ">= 0", x[0]))
    } else {
        Ok((x[0] + 1.0).ln() * x[1] + x[0].sqrt())
    }
}

#[test]
fn chunking_and_path_do_not_change_values() {
    let n = 50_000;
    let a: Vec<f64> = (0..n).map(|i| (i % 1013) as f64 * 0.37).collect();
    let b: Vec<f64> = (0..n).map(|i| 1.0 + (i % 97) as f64).collect();
    let mut serial = vec![0.0; n];
    map_into([&a, &b], &mut serial, usize::MAX, 1, shape_args, f2).unwrap();
    for &(par_min, chunk) in &[
        (0, 1),
        (1, 7),
        (4096, 2048),
        (PAR_MIN, 1 << 12),
        (10, 1 << 20),
    ] {
        let mut out = vec![0.0; n];
        map_into([&a, &b], &mut out, par_min, chunk, shape_args, f2).unwrap();
        assert_eq!(out, serial, "{par_min} {chunk}");
    }
    // blocks and reduce_chunks: the same per-chunk kernel gives the same values, the combined
    // per-chunk result is chunk-order independent for an associative, commutative `combine`
    let mut blk = vec![0.0; n];
    let cnt = blocks(
        [&a, &b],
        &mut blk,
        0,
        999,
        |[x, y], o| {
            for ((o, &x), &y) in o.iter_mut().zip(x).zip(y) {
                *o = f2([x, y]).unwrap_or(f64::NAN);
            }
            o.len()
        },
        |p, q| p + q,
    )
    .unwrap();
    assert_eq!((blk, cnt), (serial, n));
}

#[test]
fn first_bad_index_whatever_the_path() {
    let n = 40_000;
    let mut a: Vec<f64> = (0..n).map(|i| i as f64).collect();
    let b = vec![1.0; n];
    a[30_001] = -1.0;
    a[12_345] = -2.0;
    for &(par_min, chunk) in &[(usize::MAX, 1), (0, 1), (0, 4096), (1, 333)] {
        let mut out = vec![0.0; n];
        let e = map_into([&a, &b], &mut out, par_min, chunk, shape_args, f2).unwrap_err();
        assert_eq!(
            e,
            PabiError::domain("x", ">= 0", -2.0).at(12_345),
            "{par_min} {chunk}"
        );
    }
}

#[test]
fn shape_errors_come_from_the_caller() {
    let a = vec![1.0; 3];
    let b = vec![1.0; 4];
    let mut out = vec![0.0; 3];
    let e = map_into([&a, &b], &mut out, 0, 1, shape_args, f2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "argument arrays have lengths 4 and 3 (they must be equal)"
    );
    let e = map_rows([&a[..], &b[..]], 0, 1, shape_elements, |x| {
        f2(x).map(|y| [y])
    });
    assert_eq!(e.unwrap_err(), shape_elements(0, 0));
    // several outputs of different lengths
    let (mut o1, mut o2) = (vec![0.0; 3], vec![0.0; 2]);
    let e = map_elementwise([&a], [&mut o1, &mut o2], 0, 1, shape_args, |x| {
        Ok([x[0], x[0]])
    });
    assert!(matches!(e, Err(PabiError::Shape { .. })));
    // empty arrays: nothing to do, no error
    assert_eq!(
        map_rows::<1, 2>([&[]], 0, 1, shape_elements, |x| Ok([x[0]; 2])).unwrap(),
        vec![]
    );
}

#[test]
fn length_one_arguments_are_broadcast() {
    let n = 20_000;
    let a: Vec<f64> = (0..n).map(|i| (i % 1013) as f64 * 0.37).collect();
    let b = vec![3.5; n];
    let mut want = vec![0.0; n];
    map_into([&a, &b], &mut want, 0, 999, shape_args, f2).unwrap();
    let mut got = vec![0.0; n];
    map_into([&a, &[3.5]], &mut got, 0, 999, shape_args, f2).unwrap();
    assert_eq!(got, want);
    let rows = map_rows([&[3.5][..], &a[..]], 0, 7, shape_elements, |x| {
        f2([x[1], x[0]]).map(|y| [y, -y])
    })
    .unwrap();
    assert_eq!(rows.len(), 2 * n);
    assert_eq!(&rows[..n], &want[..]);
    assert_eq!(broadcast_len([1, 5, 1]), 5);
    assert_eq!(broadcast_len([1, 0]), 0);
    assert_eq!(broadcast_len([1, 1]), 1);
    // a length that is neither 1 nor n is a shape error before any work
    let e = map_into([&a, &[1.0, 2.0]], &mut got, 0, 1, shape_args, f2).unwrap_err();
    assert!(matches!(e, PabiError::Shape { .. }));
}

/// A panic in a scan chunk's own work reaches the caller and does not leave the workers
/// waiting for its carry spinning (the chunk publishes "skipped" as it unwinds).
#[test]
fn scan_rev_panic_releases_the_waiters() {
    let n = 4096;
    for workers in [2, 4] {
        let r = std::panic::catch_unwind(|| {
            let mut out = vec![0.0; n];
            scan_rev(
                &mut out,
                64,
                workers,
                0.0,
                || (),
                |start: usize, _: &mut [f64], _: &mut ()| {
                    assert!(start != 2048, "planted failure");
                    1.0
                },
                |a: f64, s: f64| a + s,
                |_: &mut [f64], _: &mut (), _: f64| (),
            )
        });
        assert!(
            r.is_err(),
            "{workers} workers: the panic must reach the caller"
        );
    }
}

/// A suffix scan with a carry that is not associative in floating point (each element gets the
/// rounded sum of the later elements, the carry between chunks a running sum of the chunks'
/// own sums): every number of workers gives the serial path's bits, for chunk sizes that do and
/// do not divide the length, with 1, 2, 3, 8 workers and the pool's
/// own thread count; with one chunk per element or one chunk overall the carries are those of
/// a direct loop from the last element.
#[test]
fn scan_rev_is_the_serial_scan() {
    let n = 10_007;
    let x: Vec<f64> = (0..n)
        .map(|i| ((i * 7919) % 1000) as f64 * 1e-3 + 1e-17 * i as f64)
        .collect();
    let mut want = vec![0.0; n];
    let mut acc = 0.0_f64;
    for i in (0..n).rev() {
        want[i] = acc * 0.5 + x[i].sqrt();
        acc += x[i];
    }
    let first = |start: usize, o: &mut [f64], buf: &mut Vec<f64>| {
        buf.clear(); // the scratch: per worker, reused chunk after chunk
        buf.extend_from_slice(&x[start..start + o.len()]);
        buf.iter().rev().fold(0.0, |s, &v| s + v)
    };
    let link = |after: f64, s: f64| after + s;
    let second = |o: &mut [f64], buf: &mut Vec<f64>, after: f64| {
        let mut a = after;
        for j in (0..o.len()).rev() {
            o[j] = a * 0.5 + buf[j].sqrt();
            a += buf[j];
        }
    };
    for &chunk in &[1, 64, 1000, 10_007, 20_000] {
        let scratch = || Vec::with_capacity(chunk);
        let mut serial = vec![0.0; n];
        scan_rev(&mut serial, chunk, 1, 0.0, scratch, first, link, second).unwrap();
        if chunk == 1 || chunk >= n {
            assert_eq!(serial, want, "chunk {chunk}");
        }
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for workers in [2, 3, 8] {
            let mut out = vec![0.0; n];
            scan_rev(&mut out, chunk, workers, 0.0, scratch, first, link, second).unwrap();
            assert_eq!(
                bits(&out),
                bits(&serial),
                "chunk {chunk}, {workers} workers"
            );
        }
        let mut out = vec![0.0; n];
        scan_rev(
            &mut out,
            chunk,
            num_threads(),
            0.0,
            scratch,
            first,
            link,
            second,
        )
        .unwrap();
        assert_eq!(bits(&out), bits(&serial), "chunk {chunk}, scan_rev");
    }
    // an empty output: nothing to do
    scan_rev(
        &mut [],
        8,
        num_threads(),
        0.0,
        || (),
        |_, _, _| 0.0,
        link,
        |_, _, _| (),
    )
    .unwrap();
}

/// A lock held at a fork (here: held by this thread, the "child" another pid) does not block
/// the child, which starts from a fresh value at once; each process keeps its own value.
#[test]
fn per_process_value_is_fresh_after_a_fork_with_the_lock_held() {
    static V: PerProcess<Vec<u32>> = PerProcess::new(Vec::new);
    let me = std::process::id();
    let mut held = V.lock_as(me);
    held.push(1);
    let child = me.wrapping_add(1);
    {
        let mut c = V.lock_as(child);
        assert!(c.is_empty());
        c.push(2);
    }
    assert_eq!(*V.lock_as(child), [2]);
    assert_eq!(*held, [1]);
    drop(held);
}

#[test]
fn zeroed_outputs_are_zero_on_every_path() {
    // calloc below PAR_MIN and from 32 MiB, the pool between (the thread count the tests run
    // with decides; both sides of each threshold either way), the empty vector
    let big = CALLOC_FRESH_BYTES / 8;
    for len in [0, 1, PAR_MIN - 1, PAR_MIN, PAR_MIN + 12_345, big - 1, big] {
        let v = zeroed_output(len).unwrap();
        assert_eq!(v.len(), len);
        assert!(v.iter().all(|&x| x.to_bits() == 0), "len {len}");
    }
    let mut u = vec![std::mem::MaybeUninit::new(7.0f64); PAR_MIN + 3];
    zero_fill(&mut u);
    // SAFETY: every element was initialised (7.0, then zeros)
    assert!(u.iter().all(|x| unsafe { x.assume_init() }.to_bits() == 0));
    assert!(zeroed_output(usize::MAX).is_none()); // no layout: None, no abort
}
