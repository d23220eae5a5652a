//! Tests of [`super`]: every operation's direction against exact arithmetic (error-free
//! transformations and double-double values of ~2^-100 relative accuracy; `rug` is not
//! available).

use super::*;
use crate::dd::{exp_dd, expm1_dd, ln_dd, two_prod, two_sum, Dd};
use proptest::prelude::*;

/// x − y as a double-double, exact for doubles (the sign of `.hi` is the sign of x − y).
fn diff(x: Dd, y: Dd) -> f64 {
    (x - y).hi
}

/// Positive doubles spread over many binades (1e-300 .. 1e300).
fn pos() -> impl Strategy<Value = f64> {
    (1.0f64..2.0, -996i32..996).prop_map(|(m, e)| m * 2f64.powi(e))
}

/// Doubles of moderate size for exp / ln.
fn moderate() -> impl Strategy<Value = f64> {
    (1.0f64..2.0, -40i32..9, any::<bool>()).prop_map(|(m, e, s)| {
        let v = m * 2f64.powi(e);
        if s {
            v
        } else {
            -v
        }
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn margins_are_outward(v in pos()) {
        // v·(1 ± margin) exactly: v + v·margin, both parts exact (margin a power of two)
        let exact = |m: f64| Dd::new(v, 0.0) + Dd::new(v * m, 0.0);
        prop_assert!(diff(Dd::from_f64(up(v)), exact(INFLATE)) >= 0.0);
        // down: ≤ v(1 − 2^-46 + 2^-53) (the product is rounded to nearest), so < v
        prop_assert!(diff(Dd::from_f64(down(v)), exact(-INFLATE + HALF_ULP_ONE)) <= 0.0);
        prop_assert!(diff(Dd::from_f64(down_tight(v)), exact(-INFLATE_TIGHT + HALF_ULP_ONE)) <= 0.0);
        // up_inflate: ≥ v(1 + 2^-46 − 2^-53) (one rounding to nearest of the product)
        prop_assert!(diff(Dd::from_f64(up_inflate(v)), exact(INFLATE - HALF_ULP_ONE)) >= 0.0);
        prop_assert!(diff(Dd::from_f64(up_signed(v)), exact(INFLATE - HALF_ULP_ONE)) >= 0.0);
        prop_assert!(up_signed(-v) >= -v);
        prop_assert!(up_order(v, 64.0) >= up_inflate(v));
        prop_assert!(up_order(v, 0.5) >= v);
    }

    #[test]
    fn add_directed(a in moderate(), b in moderate()) {
        let (s, e) = two_sum(a, b);
        let exact = Dd::new(s, e);
        prop_assert!(diff(Dd::from_f64(add_up(a, b)), exact) >= 0.0);
        prop_assert!(diff(Dd::from_f64(add_dn(a, b)), exact) <= 0.0);
        prop_assert!(add_up(a, b) == s || add_up(a, b) == s.next_up());
        prop_assert!(add_dn(a, b) == s || add_dn(a, b) == s.next_down());
    }

    #[test]
    fn mul_div_sqrt_directed(a in pos(), b in 0.5f64..1e10) {
        let (p, pe) = two_prod(a, b);
        let exact = Dd::new(p, pe);
        if p.is_finite() && p > 1e-290 {
            prop_assert!(diff(Dd::from_f64(mul_up(a, b)), exact) >= 0.0);
            prop_assert!(diff(Dd::from_f64(mul_dn(a, b)), exact) <= 0.0);
            prop_assert!(mul_up(a, b).to_bits() - mul_dn(a, b).to_bits() <= 1);
        }
        // q ≥ a/b ⇔ q·b − a ≥ 0, exactly in double-double
        let (qu, qd) = (div_up(a, b), div_dn(a, b));
        if qd > 1e-290 && qu.is_finite() {
            let (h, l) = two_prod(qu, b);
            prop_assert!(diff(Dd::new(h, l), Dd::from_f64(a)) >= 0.0);
            let (h, l) = two_prod(qd, b);
            prop_assert!(diff(Dd::new(h, l), Dd::from_f64(a)) <= 0.0);
            prop_assert!(qu.to_bits() - qd.to_bits() <= 1);
        }
        // r ≥ √a ⇔ r² ≥ a
        let (ru, rd) = (sqrt_up(a), sqrt_dn(a));
        let (h, l) = two_prod(ru, ru);
        prop_assert!(diff(Dd::new(h, l), Dd::from_f64(a)) >= 0.0);
        let (h, l) = two_prod(rd, rd);
        prop_assert!(diff(Dd::new(h, l), Dd::from_f64(a)) <= 0.0);
        prop_assert!(ru.to_bits() - rd.to_bits() <= 1);
    }

    #[test]
    fn exp_ln_directed(x in moderate(), y in pos()) {
        if x.abs() < 700.0 {
            let e = exp_dd(Dd::from_f64(x));
            prop_assert!(diff(Dd::from_f64(exp_up(x)), e) >= 0.0);
            prop_assert!(diff(Dd::from_f64(exp_dn(x)), e) <= 0.0);
            // the margin forms, for x ≤ 0 (a probability from its log)
            if x <= 0.0 {
                prop_assert!(diff(Dd::from_f64(exp_up_unit(x)), e) >= 0.0);
                prop_assert!(diff(Dd::from_f64(exp_down(x)), e) <= 0.0);
            }
        }
        let l = ln_dd(Dd::from_f64(y));
        // ln_dd: relative ~2^-100 away from 1, absolute ~2^-104 near it
        let slack = 1e-30 * l.hi.abs().max(1e-4);
        prop_assert!(diff(Dd::from_f64(ln_up(y)), l) >= -slack);
        prop_assert!(diff(Dd::from_f64(ln_dn(y)), l) <= slack);
        if y < 1.0 && y > 1e-300 {
            prop_assert!(diff(Dd::from_f64(ln_down_2u(y)), l) <= 0.0);
            // log_up_rel of a faithful log (< 1 ulp) is above the exact log
            prop_assert!(diff(Dd::from_f64(log_up_rel(y.ln())), l) >= 0.0);
        }
    }

    #[test]
    fn shift_log_directions(v in -700.0f64..0.0, scale in 1.0f64..100.0) {
        prop_assert!(shift_log(v, 1.0, scale) >= v);
        prop_assert!(shift_log(v, -1.0, scale) <= v);
        prop_assert!(shift_log(v, 1.0, scale) <= 0.0);
    }
}

#[test]
fn edge_values() {
    assert_eq!(up(0.0), TINY);
    assert_eq!(down(0.0), 0.0);
    assert_eq!(up_signed(0.0), 0.0);
    assert_eq!(up_order(0.0, 10.0), 0.0);
    assert_eq!(shift_log(f64::NEG_INFINITY, 1.0, 1.0), f64::NEG_INFINITY);
    assert_eq!(exp_up_unit(f64::NEG_INFINITY), 0.0);
    assert_eq!(exp_up_unit(0.0), 1.0);
    assert!(exp_up(-800.0) > 0.0);
    assert_eq!(exp_dn(-800.0), 0.0);
    assert_eq!(exp_up(f64::INFINITY), f64::INFINITY);
    assert_eq!(ln_up(f64::INFINITY), f64::INFINITY);
    assert_eq!(ln_dn(0.0), f64::NEG_INFINITY);
    // 1/3: to nearest is below, so up is the next double
    let third = div_up(1.0, 3.0);
    assert!(third.mul_add(3.0, -1.0) >= 0.0 && third == (1.0f64 / 3.0).next_up());
    assert_eq!(div_dn(1.0, 3.0), 1.0 / 3.0);
    assert_eq!(div_up(1.0, 4.0), 0.25);
    assert_eq!(sqrt_up(4.0), 2.0);
    assert_eq!(sqrt_dn(4.0), 2.0);
    assert_eq!(add_up(1.0, 1e-30), 1.0f64.next_up());
    assert_eq!(add_dn(1.0, 1e-30), 1.0);
    assert_eq!(add_dn(1.0, -1e-30), 1.0f64.next_down());
    assert!(mul_up(0.0, f64::INFINITY).is_nan());
    // the k·ε constants are the products they name
    assert_eq!(EPS4 * 3.7, 4.0 * f64::EPSILON * 3.7);
    assert_eq!(EPS48, 48.0 * f64::EPSILON);
    assert_eq!(2.0 * U, EPS);
    assert_eq!(LOG_REL, EPS2);
}

/// The replaced private neighbours (`gd::next_up`/`next_down` on positive finite arguments,
/// `gdp::next_up` everywhere) return the bits of `f64::next_up`/`next_down`.
#[test]
fn std_neighbours_match_the_former_copies() {
    fn gdp_next_up(x: f64) -> f64 {
        if x.is_nan() || x == f64::INFINITY {
            return x;
        }
        if x == 0.0 {
            return f64::from_bits(1);
        }
        let b = x.to_bits();
        f64::from_bits(if x > 0.0 { b + 1 } else { b - 1 })
    }
    let xs = [
        0.0,
        -0.0,
        5e-324,
        -5e-324,
        1.0,
        -1.0,
        f64::MAX,
        -f64::MAX,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::MIN_POSITIVE,
        0.1,
        -3e300,
    ];
    for &x in &xs {
        assert_eq!(gdp_next_up(x).to_bits(), x.next_up().to_bits(), "{x}");
        if x > 0.0 && x.is_finite() {
            assert_eq!(f64::from_bits(x.to_bits() + 1), x.next_up());
            assert_eq!(f64::from_bits(x.to_bits() - 1), x.next_down());
        }
    }
    assert!(gdp_next_up(f64::NAN).is_nan() && f64::NAN.next_up().is_nan());
}

/// In the subnormal range (and at an underflow to 0) the directed products and quotients stay on
/// their side of the exact value: checked against the exact product/quotient of the operands
/// scaled by 2^600 each (normal numbers, where TwoProd and the fma residual are exact).
#[test]
fn directed_products_and_quotients_below_the_normal_range() {
    const S: f64 = 4.149515568880993e180; // 2^600
    let pairs = [
        (1e-200, 1e-200),
        (1e-160, 1e-160),
        (3.0e-155, 7.0e-155),
        (1e-300, 1e-10),
        (5e-324, 0.75),
        (1e-310, 0.3),
        (2.2250738585072014e-308, 0.9999999999999999),
    ];
    for &(a, b) in &pairs {
        // exact a·b·2^1200 = hi + lo
        let (as_, bs) = (a * S, b * S);
        let hi = as_ * bs;
        let lo = as_.mul_add(bs, -hi);
        let up = mul_up(a, b) * S * S;
        let dn = mul_dn(a, b) * S * S;
        assert!(
            up > hi || (up == hi && lo <= 0.0),
            "mul_up({a}, {b}) below the exact product"
        );
        assert!(
            dn < hi || (dn == hi && lo >= 0.0),
            "mul_dn({a}, {b}) above the exact product"
        );
        assert!(
            mul_up(a, b) > 0.0,
            "mul_up({a}, {b}) = 0 for a positive product"
        );
        // a / (1/b) style quotients: exact q = a/c with c = 1/b rounded; check q·c against a
        let c = 1.0 / b;
        let (qu, qd) = (div_up(a, c), div_dn(a, c));
        assert!(qu > 0.0, "div_up({a}, {c}) = 0 for a positive quotient");
        // qu·c ≥ a and qd·c ≤ a, exactly (scaled: qu·2^600 is exact, then TwoProd with c)
        for (q, upward) in [(qu, true), (qd, false)] {
            let qs = q * S;
            let p = qs * c;
            let r = qs.mul_add(c, -p); // exact: q·c·2^600 = p + r
            let a_s = a * S;
            if upward {
                assert!(
                    p > a_s || (p == a_s && r >= 0.0),
                    "div_up({a}, {c}) below a/c"
                );
            } else {
                assert!(
                    p < a_s || (p == a_s && r <= 0.0),
                    "div_dn({a}, {c}) above a/c"
                );
            }
        }
    }
    // exact zeros stay zero
    assert_eq!(mul_up(0.0, 1e-300), 0.0);
    assert_eq!(div_up(0.0, 3.0), 0.0);
}

// ---------------------------------------------------------------------------------------------
// The operations moved here from the bounds (rel_err, rel_up / rel_dn, exp_prod_up,
// one_minus_exp_prod, prob_up)

/// The power-of-two margins the bounds use with [`rel_up`] / [`rel_dn`].
const MARGINS: [f64; 5] = [EPS2, EPS4, EPS8, LOG_REL, INFLATE_TIGHT];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn rel_margins_directed(v in moderate(), k in 0usize..5) {
        let m = MARGINS[k];
        // ≥ v + (m − 2u)|v| (and ≤ v − (m − 2u)|v|), exactly in double-double
        let (h, l) = two_prod(m - 2.0 * U, v.abs());
        let moved = Dd::new(h, l);
        prop_assert!(diff(Dd::from_f64(rel_up(v, m)), Dd::from_f64(v) + moved) >= 0.0);
        prop_assert!(diff(Dd::from_f64(rel_dn(v, m)), Dd::from_f64(v) - moved) <= 0.0);
        // the swapped forms keep their bits: v·(1 ± m) for v ≥ 0 (and v·(1 ∓ m) for v ≤ 0)
        let w = v.abs();
        prop_assert_eq!(rel_up(w, m).to_bits(), (w * (1.0 + m)).to_bits());
        prop_assert_eq!(rel_dn(w, m).to_bits(), (w * (1.0 - m)).to_bits());
        prop_assert_eq!(rel_up(-w, m).to_bits(), (-w - m * -w).to_bits());
        prop_assert_eq!(rel_dn(-w, m).to_bits(), (-w * (1.0 + m)).to_bits());
        // rel_err is the count times ε, exactly (the former 2·c·ε and 4·u·c forms)
        prop_assert_eq!(rel_err(2.0 * w).to_bits(), (4.0 * HALF_ULP_ONE * w).to_bits());
        prop_assert_eq!(rel_err(2.0 * w).to_bits(), (w * 2.0 * f64::EPSILON).to_bits());
    }

    #[test]
    fn exp_prod_directed(x in 0.0f64..1e7, l in -3.0f64..0.0) {
        // exact y = x·l as a double-double; the operations see its rounded value
        let (h, lo) = two_prod(x, l);
        let y = x * l;
        if h > -700.0 {
            let exact = Dd::new(h, lo);
            prop_assert!(diff(Dd::from_f64(exp_prod_up(y)), exp_dd(exact)) >= 0.0);
            let om = -expm1_dd(exact);
            prop_assert!(diff(Dd::from_f64(one_minus_exp_prod(y, 1.0)), om) >= 0.0);
            prop_assert!(diff(Dd::from_f64(one_minus_exp_prod(y, -1.0)), om) <= 0.0);
        }
    }

    #[test]
    fn prob_up_directed(v in -760.0f64..0.0) {
        let p = prob_up(v);
        prop_assert!(p <= 1.0);
        if v > -700.0 {
            prop_assert!(diff(Dd::from_f64(p), exp_dd(Dd::from_f64(v))) >= 0.0);
        } else {
            // below the range of exp_dd's scaling: e^v = e^{v + 100}·e^{-100}
            let e = exp_dd(Dd::from_f64(v + 100.0)) * exp_dd(Dd::from_f64(-100.0));
            prop_assert!(diff(Dd::from_f64(p), e) >= 0.0 || p >= e.hi);
        }
    }
}

#[test]
fn moved_operations_edge_values() {
    assert_eq!(prob_up(f64::NEG_INFINITY), 0.0);
    assert_eq!(prob_up(0.0), 1.0);
    assert_eq!(prob_up(-750.0), TINY);
    assert_eq!(prob_up(f64::NAN), 1.0); // NaN (an undefined log) gives the trivial bound
    assert_eq!(one_minus_exp_prod(f64::NEG_INFINITY, -1.0), 1.0);
    assert_eq!(exp_prod_up(0.0), 1.0 + 6.0 * f64::EPSILON);
    assert_eq!(rel_up(0.0, EPS2), 0.0);
    assert_eq!(rel_dn(f64::NEG_INFINITY, EPS2), f64::NEG_INFINITY);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// ln_prob_up is above the exact logarithm of every probability, at most 3 ulp above it,
    /// and never positive.
    #[test]
    fn ln_prob_up_directed(m in 1.0f64..2.0, e in -1074i32..0) {
        let p = (m * 2f64.powi(e)).min(1.0);
        prop_assume!(p > 0.0);
        let v = ln_prob_up(p);
        let l = ln_dd(Dd::from_f64(p));
        let slack = 1e-30 * l.hi.abs().max(1e-4);
        prop_assert!(diff(Dd::from_f64(v), l) >= -slack);
        prop_assert!(v <= 0.0);
        // the tightness: within three doubles of the correctly rounded log
        prop_assert!(v <= l.hi.next_up().next_up().next_up().min(0.0) || v == 0.0);
    }
}

#[test]
fn ln_prob_up_edges() {
    assert_eq!(ln_prob_up(0.0), f64::NEG_INFINITY);
    assert_eq!(ln_prob_up(1.0), 0.0);
    // just below 1 the exact log is −2^-53 (to first order): capped at 0, still above it
    assert!(ln_prob_up(1.0f64.next_down()) <= 0.0);
    assert!(ln_prob_up(1.0f64.next_down()) >= -HALF_ULP_ONE);
    assert!(ln_prob_up(-1e-300).is_nan());
    assert!(ln_prob_up(f64::NAN).is_nan());
    assert!(ln_prob_up(2.0) > 0.0);
    // the smallest subnormal: ln(2^-1074) = −744.44007192138126...
    let v = ln_prob_up(5e-324);
    assert!((-744.440_071_921_381_3..-744.440_071_921_38).contains(&v));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// exp_up_1ulp is above the exact exponential (double-double) and at most two doubles
    /// above std's exp; it is exp_up or one double below it.
    #[test]
    fn exp_up_1ulp_directed(x in -745.0f64..709.0) {
        let v = exp_up_1ulp(x);
        if x > -708.0 {
            prop_assert!(diff(Dd::from_f64(v), exp_dd(Dd::from_f64(x))) >= 0.0);
        }
        prop_assert!(v == exp_up(x) || v == exp_up(x).next_down());
        prop_assert!(v > 0.0);
    }
}

#[test]
fn exp_up_1ulp_edges() {
    // an underflow to 0: the smallest subnormal (the exact value is below it)
    assert_eq!(exp_up_1ulp(-800.0), 5e-324);
    // e^0 = 1 exactly: one double up (1 is not the next double of 1)
    assert_eq!(exp_up_1ulp(0.0), 1.0f64.next_up());
    // just below a power of two the next double up is the power: step over it
    let below_one = 1.0f64.next_down();
    let x = below_one.ln();
    if x.exp() == below_one {
        assert_eq!(exp_up_1ulp(x), 1.0f64.next_up());
    }
    assert_eq!(exp_up_1ulp(f64::INFINITY), f64::INFINITY);
    assert!(exp_up_1ulp(f64::NAN).is_nan());
}

#[test]
fn tiny_products_are_rounded_exactly() {
    // the residual of a subnormal product can flush to zero; the direction is still decided
    // exactly (issue 13: gdp_compose([5e-324; 3]) was 1.5e-323 > gdp_compose([5e-324; 4]))
    let two_m1000 = f64::from_bits(((1023 - 1000) as u64) << 52);
    let r3 = sqrt_up(3.0 * 2f64.powi(-148));
    let r4 = sqrt_up(4.0 * 2f64.powi(-148));
    assert_eq!(mul_up(r3, two_m1000), 1e-323); // √3·2^-1074 ≈ 8.7e-324: up to 2·2^-1074
    assert_eq!(mul_up(r4, two_m1000), 1e-323); // exact
    assert_eq!(mul_dn(r3, two_m1000), 5e-324);
    assert!(mul_up(r3, two_m1000) <= mul_up(r4, two_m1000));
    // exactness and one-ulp brackets across the subnormal range
    let mut x = 1.0e-160_f64;
    for _ in 0..200 {
        let y = 3.3e-162 * x.sqrt();
        let (u, d) = (mul_up(x, y), mul_dn(x, y));
        assert!(u.to_bits() - d.to_bits() <= 1, "{x} {y}");
        let s = 2f64.powi(600);
        let (p, r) = crate::dd::two_prod(x * s, y);
        assert!(
            u * s >= p && (u * s > p || r <= 0.0),
            "mul_up({x}, {y}) below"
        );
        assert!(
            d * s <= p && (d * s < p || r >= 0.0),
            "mul_dn({x}, {y}) above"
        );
        x *= 1.37;
    }
}

#[test]
fn tiny_quotients_are_rounded_exactly() {
    // like the products: a subnormal quotient's residual can flush, the direction is still
    // decided exactly, so div_up/div_dn are the correctly directed quotients (one ulp apart at
    // most, equal when exact) and never step twice
    let s = 2f64.powi(600);
    let mut a = 3.1e-320_f64;
    for _ in 0..300 {
        for b in [1.0, 3.0, 7.0, 1.0e10, 3.3e5, 0.7, 1.0 + f64::EPSILON] {
            let (u, d) = (div_up(a, b), div_dn(a, b));
            assert!(u.to_bits() - d.to_bits() <= 1, "{a} {b}");
            // u·b ≥ a ≥ d·b exactly (scaled: both products exact as double-doubles)
            let (pu, ru) = crate::dd::two_prod(u * s, b);
            let (pd, rd) = crate::dd::two_prod(d * s, b);
            let a_s = a * s;
            assert!(
                pu > a_s || (pu == a_s && ru >= 0.0),
                "div_up({a}, {b}) below"
            );
            assert!(
                pd < a_s || (pd == a_s && rd <= 0.0),
                "div_dn({a}, {b}) above"
            );
            if (a / b) * b == a && (pu - a_s == 0.0 && ru == 0.0) {
                assert_eq!(u, d, "exact quotient {a}/{b} moved");
            }
        }
        a *= 1.61;
    }
    // exact subnormal quotients are not moved: 4·2^-1074 / 2 = 2·2^-1074
    assert_eq!(div_up(2e-323, 2.0), 1e-323);
    assert_eq!(div_dn(2e-323, 2.0), 1e-323);
    // 2^-1074 / 3: up is 2^-1074, down is 0
    assert_eq!(div_up(5e-324, 3.0), 5e-324);
    assert_eq!(div_dn(5e-324, 3.0), 0.0);
}

#[test]
fn div_up_lanes_is_div_up_where_it_says_so() {
    let mut rng = crate::num::test_rng::XorShift::with_seed(0x2545_f491_4f6c_dd1d);
    // positive doubles of every exponent (and some NaN)
    let mut next = || f64::from_bits(rng.next_u64() >> 2);
    let mut checked = 0;
    for _ in 0..200_000 {
        let (a, b) = (next(), next());
        let (q, ok) = div_up_lanes(a, b);
        if ok {
            assert_eq!(q.to_bits(), div_up(a, b).to_bits(), "{a:e}/{b:e}");
            checked += 1;
        }
    }
    assert!(checked > 50_000);
    assert_eq!(div_up_lanes(1.0, 3.0), (div_up(1.0, 3.0), true));
}

/// `prob_up` (written as selects so that its loops vectorize) at its branch points, their
/// neighbours, ±∞, NaN and 10^5 random points: 0 at −∞, TINY below −746, 1 for NaN (as
/// `f64::min` gives), else in [e^v, 1] against the double-double exponential (scaled below
/// −700, where `exp_dd` does not reach).
#[test]
fn prob_up_edges_and_direction() {
    let mut xs = vec![
        -f64::MAX,
        -1e300,
        -746.0,
        -708.0,
        -745.9,
        -0.0,
        0.0,
        -1e-300,
        -0.5,
        -1.0,
    ];
    for &b in &[-746.0_f64, -708.0, 0.0] {
        xs.extend([b.next_down(), b.next_up().min(0.0)]);
    }
    let mut rng = crate::num::test_rng::XorShift::with_seed(7);
    for _ in 0..100_000 {
        xs.push(-800.0 * rng.next_f64());
    }
    assert_eq!(prob_up(f64::NEG_INFINITY), 0.0);
    assert_eq!(prob_up(f64::NAN), 1.0);
    for v in xs {
        let p = prob_up(v);
        if v < -746.0 {
            assert_eq!(p, TINY, "v = {v:e}");
            continue;
        }
        assert!(p <= 1.0, "v = {v:e}");
        let e = if v > -700.0 {
            exp_dd(Dd::from_f64(v))
        } else {
            exp_dd(Dd::from_f64(v + 100.0)) * exp_dd(Dd::from_f64(-100.0))
        };
        assert!(
            diff(Dd::from_f64(p), e) >= 0.0 || p >= e.hi,
            "v = {v:e}: {p:e}"
        );
    }
}
