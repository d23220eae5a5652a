//! Every option of the bindings, converted to its core type in one place: the option strings
//! (`noise`, `order` with `variant`, `neighbour`, the online quantity) checked against their
//! allowed values with one wording, `"<param> must be one of 'a', 'b', got \"x\""`
//! (`PabiError::Option`, raised as `DomainError` with `param`, `allowed`, `value`), the
//! mechanism flag to the core's noise family. Optional numbers cross as `Option` (an absent
//! smoothness is `None`, never a flag and a placeholder). No defaults and no mathematics here: a
//! value either names a core variant or is rejected.

use pabi_core::pld::{Accounting, Neighbour, Relation, Sampling};
use pabi_core::pnsgd::{Noise, Order};
use pabi_core::schedules::online::OnlineQuantity;
use pabi_core::{schedules, PabiError, Result};

/// The variant of `table` named `value`, else the option error of `param` listing the names.
fn choose<T: Copy>(param: &'static str, value: &str, table: &[(&str, T)]) -> Result<T> {
    match table.iter().find(|(name, _)| *name == value) {
        Some(&(_, v)) => Ok(v),
        None => Err(PabiError::option(param, allowed(table), value)),
    }
}

/// "one of 'a', 'b', 'c'".
fn allowed<T>(table: &[(&str, T)]) -> String {
    let names: Vec<String> = table.iter().map(|(n, _)| format!("'{n}'")).collect();
    format!("one of {}", names.join(", "))
}

/// The noise of the PNSGD bounds: `'gaussian'` or `'laplace'`.
pub(crate) fn noise(s: &str) -> Result<Noise> {
    choose(
        "noise",
        s,
        &[("gaussian", Noise::Gaussian), ("laplace", Noise::Laplace)],
    )
}

/// The ordering of the PNSGD bounds, `'fixed'`, `'shuffled'` or `'random_stop'`, with its
/// `variant`, `'corrected'` or `'as_published'` (the latter with `'random_stop'` only).
pub(crate) fn order(order: &str, variant: &str) -> Result<Order> {
    let o = choose(
        "ordering",
        order,
        &[
            ("fixed", Order::Fixed),
            ("shuffled", Order::Shuffled),
            ("random_stop", Order::RandomStop),
        ],
    )?;
    let published = choose(
        "variant",
        variant,
        &[("corrected", false), ("as_published", true)],
    )?;
    match (o, published) {
        (_, false) => Ok(o),
        (Order::RandomStop, true) => Ok(Order::RandomStopAsPublished),
        _ => Err(PabiError::option(
            "variant",
            format!(
                "one of 'corrected' (with ordering '{order}'; 'as_published' needs ordering 'random_stop')"
            ),
            variant,
        )),
    }
}

/// The direction of a subsampled-Gaussian PLD (which add-or-remove neighbour is P): `'remove'` or `'add'`.
pub(crate) fn neighbour(s: &str) -> Result<Neighbour> {
    choose(
        "direction",
        s,
        &[("remove", Neighbour::Remove), ("add", Neighbour::Add)],
    )
}

/// The noise family of the schedules from the `laplace` flag.
/// The DP-SGD accountant's `neighboring` (`'add_remove'`, `'replace_one'`) and `sampling`
/// (`'poisson'`, `'without_replacement'`).
pub(crate) fn accounting(neighboring: &str, sampling: &str) -> Result<Accounting> {
    Ok(Accounting {
        relation: choose(
            "neighboring",
            neighboring,
            &[
                ("add_remove", Relation::AddRemove),
                ("replace_one", Relation::ReplaceOne),
            ],
        )?,
        sampling: choose(
            "sampling",
            sampling,
            &[
                ("poisson", Sampling::Poisson),
                ("without_replacement", Sampling::WithoutReplacement),
            ],
        )?,
    })
}

pub(crate) fn mechanism(laplace: bool) -> schedules::Noise {
    if laplace {
        schedules::Noise::Laplace
    } else {
        schedules::Noise::Gaussian
    }
}

/// The online quantities by name; the upper bound takes its variant (`as_published`).
type Make = fn(bool) -> OnlineQuantity;
const QUANTITIES: [(&str, Make); 5] = [
    ("delta", |_| OnlineQuantity::Delta),
    ("limit", |_| OnlineQuantity::Limit),
    ("limit_bound", |_| OnlineQuantity::LimitBound),
    ("star_upper", |as_published| OnlineQuantity::StarUpper {
        as_published,
    }),
    ("star_lower", |_| OnlineQuantity::StarLower),
];

/// The core quantity named by `q` (`'delta'`, `'limit'`, `'limit_bound'`, `'star_upper'`,
/// `'star_lower'`); `as_published` selects the printed form of `'star_upper'`.
pub(crate) fn online_quantity(q: &str, as_published: bool) -> Result<OnlineQuantity> {
    Ok(choose("quantity", q, &QUANTITIES)?(as_published))
}
