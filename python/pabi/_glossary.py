"""The glossary: every public parameter name of pabi, with its one meaning, unit and domain.

One name means one thing across the whole API, and one thing has one name. Where the privacy
ecosystem already has a word (Opacus, dp-accounting: noise multiplier, sample rate, steps,
delta, orders), pabi uses it. ``docs/glossary.md`` is generated from this table
(``python tools/glossary_doc.py --write``), and ``tests/test_glossary.py`` walks every public
signature and fails on a parameter name that is not here.

Each entry: ``name -> (meaning, domain)``. The domain is the usual one; a function may narrow it
(its docstring says so, and its ``DomainError`` names the parameter and the range).
"""

from __future__ import annotations

from typing import NamedTuple


class Term(NamedTuple):
    """One glossary entry: what the parameter means and the values it takes."""

    meaning: str
    domain: str
    group: str


def _t(group: str, meaning: str, domain: str) -> Term:
    return Term(meaning, domain, group)


_G = "Privacy targets and results"
_N = "Noise"
_S = "Sampling, steps and epochs"
_T = "Training problem (loss, step, projection)"
_R = "Rényi DP"
_C = "Composition and privacy-loss distributions"
_L = "Last-iterate analysis (Kong–Ribero)"
_O = "Options"
_E = "Execution (threads, sweeps)"

TERMS: dict[str, Term] = {
    # -- privacy targets and results ---------------------------------------------------------
    "eps": _t(_G, "ε of an (ε, δ)-DP guarantee: the privacy-loss level at which δ is measured "
              "(natural-log units). Also an array of ε at which a privacy profile is sampled.",
              "≥ 0 (+inf allowed where stated)"),
    "delta": _t(_G, "δ of an (ε, δ)-DP guarantee: the probability mass by which the e^ε "
                "likelihood-ratio bound may fail. For a schedule's limit, the target of lim δ(n).",
                "[0, 1]"),
    "log_delta": _t(_G, "ln δ, given instead of ``delta`` where δ underflows a double.", "≤ 0"),
    "log": _t(_O, "Return the natural logarithm of the result (ln δ, ln θ, ln Q, ln of a count) "
              "instead of the result; use it where the result underflows or overflows a double.",
              "bool, default False"),
    "eps0": _t(_G, "ε of each mechanism of a composition (every copy is (eps0, delta0)-DP).", "≥ 0"),
    "delta0": _t(_G, "δ of each mechanism of a composition.", "[0, 1]"),
    "delta_prime": _t(_G, "The extra failure probability δ' spent by a conversion (added to the "
                      "returned δ).", "(0, 1)"),
    "mu": _t(_G, "μ of μ-Gaussian DP (Dong–Roth–Su): the mean shift of the dominating pair "
             "N(0, 1) vs N(μ, 1). An array of μ for a composition.", "≥ 0"),
    "type1_error": _t(_G, "The type-I error α at which a trade-off function f(α) (f-DP) is "
                      "evaluated.", "[0, 1]"),
    "rdp": _t(_R, "Rényi-DP values ε(α) at the matching ``order``/``orders`` (nats). An array "
              "of curves stacks them on the leading axis.", "≥ 0"),
    "profile": _t(_G, "A privacy profile ε ↦ δ(ε) (a vectorised callable returning upper bounds; "
                  "where stated, also the array of its samples δ(k·grid_step), k = 0, 1, ...).",
                  "callable"),
    "log_profile": _t(_G, "The privacy profile in log form, ε ↦ ln δ(ε).", "callable"),
    "eps_max": _t(_C, "Largest ε at which a privacy profile is sampled; the profile is taken as "
                  "0 beyond it (checked: δ(eps_max) ≤ 1e-300).", "> 0, finite"),
    # -- noise ---------------------------------------------------------------------------------
    "noise": _t(_N, "The family of the added noise: ``\"gaussian\"`` or ``\"laplace\"``.", "str"),
    "noise_scale": _t(_N, "Scale of the noise added to each step, in the units of the quantity "
                      "it is added to (the iterate, the update): the standard deviation for "
                      "Gaussian noise, the scale b for Laplace noise. Not divided by the "
                      "clipping norm (that is ``noise_multiplier``). An array of per-step scales "
                      "for online noise.", "> 0"),
    "noise_multiplier": _t(_N, "DP-SGD's noise multiplier z = (noise standard deviation) / "
                           "(clipping norm) (Opacus, dp-accounting).", "> 0"),
    "sensitivity": _t(_N, "L2 sensitivity Δ of a mechanism: the largest distance between its "
                      "outputs on neighbouring datasets (same units as ``noise_scale``).", "≥ 0"),
    "sensitivities": _t(_N, "Observed per-instance sensitivities (samples of Δ over mini-batches "
                        "or training runs); the samples lie on the last axis.", "≥ 0"),
    "max_sensitivity": _t(_N, "A known upper bound on every entry of ``sensitivities`` (used by "
                          "confidence bounds).", "> 0"),
    # -- sampling, steps, epochs -----------------------------------------------------------------
    "sample_rate": _t(_S, "Sampling probability q of each record at each step (Opacus "
                      "``sample_rate``): Poisson sampling's inclusion probability, or the batch "
                      "fraction b/n of fixed-size batches drawn without replacement.", "[0, 1]"),
    "sampling": _t(_S, "How each step's batch is drawn: ``\"poisson\"`` (every record joins "
                   "independently with probability ``sample_rate``; default) or "
                   "``\"without_replacement\"`` (a uniformly random batch of fixed size b out of n "
                   "records, ``sample_rate`` = b/n; replace-one neighbours only).", "str"),
    "steps": _t(_S, "Number of training steps (iterations) T. Real values are allowed where a "
                "formula is continuous in T (stated per function).", "≥ 1"),
    "index": _t(_S, "1-based step at which the differing record is used (its first use for "
                "cyclic passes).", "integer in 1..steps"),
    "run_lengths": _t(_S, "Steps of each piece of a piecewise-constant per-step schedule: the "
                      "per-step arrays then hold one entry per piece, and the number of steps is "
                      "the sum.", "integers ≥ 1, total < 2^53"),
    "batch_index": _t(_S, "1-based position, within an epoch, of the batch holding the "
                      "differing record.", "integer in 1..batches_per_epoch"),
    "ordering": _t(_S, "Where the differing record sits in a PNSGD run: ``\"shuffled\"`` (a "
                   "uniformly random position; default), ``\"fixed\"`` (at ``index``) or "
                   "``\"random_stop\"`` (the run stops at a uniform step).", "str"),
    "epochs": _t(_S, "Number of passes over the data (epochs).", "≥ 1"),
    "batch_size": _t(_S, "Records per mini-batch.", "≥ 1"),
    "batches_per_epoch": _t(_S, "Mini-batches per epoch (ℓ in cyclic analyses: steps per pass).",
                            "≥ 1"),
    "count": _t(_C, "Number of mechanisms composed (copies of the same mechanism).", "≥ 0"),
    # -- training problem -----------------------------------------------------------------------
    "lr": _t(_T, "Learning rate (step size) η of each gradient step.", "> 0"),
    "max_grad_norm": _t(_T, "Bound on the norm of each per-example gradient: the clipping norm "
                        "of DP-SGD, or the Lipschitz constant of the loss where no clipping is "
                        "applied (PNSGD, noise schedules) (Opacus ``max_grad_norm``).", "> 0"),
    "smoothness": _t(_T, "Smoothness constant M of the loss (its gradient is M-Lipschitz). "
                     "``None``: not assumed (convex, non-smooth analysis).", "> 0 or None"),
    "strong_convexity": _t(_T, "Strong-convexity constant m of the loss (0: merely convex).",
                           "[0, smoothness]"),
    "weak_convexity": _t(_T, "Weak-convexity constant of the loss (the loss plus "
                         "weak_convexity/2·‖x‖² is convex).", "≥ 0"),
    "diameter": _t(_T, "Diameter D of the convex set the iterates are projected onto.", "≥ 0"),
    "c1": _t(_T, "Time-scale constant C1 of a noise schedule (Sordello–Bu–Dong §5–§6).", "> 0"),
    "c2": _t(_T, "Offset constant C2 of a noise schedule.", "> 0"),
    "decay": _t(_T, "Decay exponent of an online noise schedule (noise ∝ (t/C1 + C2)^(-decay/2)).",
                "> 1"),
    "step_lipschitz": _t(_L, "Lipschitz constant L of one update map (its contraction factor; "
                         "> 1: expansive).", "≥ 0"),
    "kappa": _t(_L, "κ = step_lipschitz² − 1, given instead of ``step_lipschitz`` for accuracy "
                "when L is near 1.", "≥ −1"),
    "drift": _t(_L, "Drift ζ of the update maps: ‖Φ(x) − Φ(y)‖ ≤ L‖x − y‖ + ζ.", "≥ 0"),
    "map_difference": _t(_L, "Distance s̄ between the update maps of neighbouring datasets at "
                         "the step where they differ.", "≥ 0"),
    "initial_distance": _t(_L, "Distance τ between the two runs' iterates at the start.", "≥ 0"),
    "slack": _t(_L, "Slack factor ξ > 1 of the step-count lemma (Kong–Ribero Lemma C.1).", "> 1"),
    "contraction": _t(_O, "Which Lipschitz constant of the clipped gradient step to use: "
                      "``\"triangle\"`` (default, proven with clipping) or ``\"as_published\"`` "
                      "(the printed constant; see docs/errata.md#r-k1).", "str"),
    # -- Rényi DP -------------------------------------------------------------------------------
    "order": _t(_R, "Rényi order α (of a divergence or an RDP guarantee).", "> 1"),
    "orders": _t(_R, "The Rényi orders of an RDP curve (1-D array, matching ``rdp``).", "> 1"),
    "holder_exponent": _t(_R, "Hölder exponent p of a Hölder-inequality composition (order map "
                          "β ↦ pβ/(p − 1) − 1/p).", "> 1"),
    "lp_exponent": _t(_R, "Exponent p of the L_p norm of a sensitivity distribution.", "> 1"),
    "cap_factor": _t(_R, "Largest allowed ratio of a composed Rényi order to the target order.",
                     "> 1"),
    "divergences": _t(_R, "Per-step Rényi divergences (samples on the last axis).", "≥ 0"),
    "weights": _t(_R, "Probability weights of mixture components or samples (sum to 1).", "[0, 1]"),
    "threshold": _t(_R, "Divergence threshold β of the unlearning keep-rule.", "≥ 0"),
    "divergence_previous": _t(_R, "D_{2α}(previous output ‖ A(D^{t−1})) of the unlearning "
                              "keep-rule.", "≥ 0"),
    "divergence_step": _t(_R, "D_{2α−1}(A(D^{t−1}) ‖ A(D^t)) of the unlearning keep-rule.", "≥ 0"),
    "divergence_pq": _t(_R, "D_{pα}(P ‖ Q) in the weak triangle inequality.", "≥ 0"),
    "divergence_qr": _t(_R, "D_{g_p(α)}(Q ‖ R) in the weak triangle inequality.", "≥ 0"),
    "updates_first": _t(_R, "Sampled α-tuples of updates on batches of the first dataset, shape "
                        "(B, J, α, d).", "finite"),
    "updates_second": _t(_R, "Sampled updates on batches of the second dataset, shape (B, d).",
                         "finite"),
    "rdp_bound": _t(_R, "A known upper bound ε' on the per-instance RDP values whose mean a "
                    "sample-size rule estimates (it sets their range).", "> 0"),
    "failure_prob": _t(_R, "Failure probability of a confidence bound (the bound holds with "
                       "probability ≥ 1 − failure_prob).", "(0, 1)"),
    "tolerance": _t(_R, "Allowed relative deviation c of an estimated mean (sample-size rules).",
                    "> 0"),
    "fractional": _t(_O, "How fractional Rényi orders are handled: ``\"exact\"`` (default) or "
                     "``\"ceil\"`` (the next integer order; looser).", "str"),
    "conversion": _t(_O, "RDP → (ε, δ) conversion: ``\"tight\"`` (default) or ``\"classical\"``.",
                     "str"),
    "return_terms": _t(_O, "Also return the per-step terms of a composed bound.", "bool"),
    "allow_invalid": _t(_O, "Return a formula's value even where its theorem does not certify it "
                        "(otherwise a DomainError).", "bool"),
    "variant": _t(_O, "Which form of a published result: ``\"corrected\"`` (default: the sound "
                  "form, errata applied) or ``\"as_published\"`` (the printed formula, for "
                  "comparison; not certified). A few rules add a third form (their docstring "
                  "lists it).", "str"),
    # -- composition and PLDs -------------------------------------------------------------------
    "grid_step": _t(_C, "Spacing h of the privacy-loss grid of a PLD (dp-accounting's value "
                    "discretization interval).", "> 0"),
    "tail_mass": _t(_C, "Probability mass a PLD composition may truncate from each tail "
                    "(accounted for in the certified bracket).", "(0, 1)"),
    "direction": _t(_C, "Which add-or-remove neighbour a privacy-loss distribution describes: "
                    "``\"remove\"`` (the first dataset has the extra record; default) or ``\"add\"`` "
                    "(dp-accounting's adjacency type).", "str"),
    "neighboring": _t(_S, "The neighbouring relation a guarantee is for: ``\"add_remove\"`` (add or remove one "
                      "record) or ``\"replace_one\"`` (replace one record).", "str"),
    "parts": _t(_C, "The PLDs of a heterogeneous composition, each with its count.",
                "sequence of (PLD, count)"),
    "rtol": _t(_C, "Relative tolerance of a calibration search.", "> 0"),
    "bracket": _t(_O, "Return the certified bracket (lower, estimate, upper) instead of the upper "
                  "end.", "bool"),
    # -- special functions ----------------------------------------------------------------------
    "shift": _t(_N, "Mean shift r between two noise distributions in units of their scale "
                "(‖μ − μ'‖/σ): the argument of θ_{e^ε}(r).", "≥ 0"),
    "x": _t(_N, "The argument of a special function (Gaussian tail, Lambert W).", "real"),
    "p_mass": _t(_N, "Probability masses of the first distribution P of a divergence D(P ‖ Q) "
                 "(1-D, on the same support as ``q_mass``).", "[0, 1] each"),
    "q_mass": _t(_N, "Probability masses of the second distribution Q of a divergence D(P ‖ Q).",
                 "[0, 1] each"),
    "kernel": _t(_N, "A finite Markov kernel: a 2-D array whose row x is the output distribution "
                 "on input x (rows sum to 1).", "[0, 1] each"),
    # -- execution ------------------------------------------------------------------------------
    "threads": _t(_E, "Number of worker threads.", "≥ 1"),
    "function": _t(_E, "The pabi function a sweep evaluates.", "callable"),
    "fixed": _t(_E, "Parameters held fixed during a sweep.", "mapping"),
    "chunk_size": _t(_E, "Grid points evaluated per chunk of a sweep.", "≥ 1"),
    "output": _t(_E, "File a sweep writes (Parquet), or None for a DataFrame.", "path or None"),
    "progress": _t(_E, "Show a progress bar (None: when interactive).", "bool or None"),
    "backend": _t(_E, "Where a sweep runs: ``\"local\"`` or ``\"dask\"``.", "str"),
    "client": _t(_E, "The dask client of a ``backend=\"dask\"`` sweep.", "object"),
    "pld": _t(_E, "A pabi privacy-loss distribution (:class:`pabi.PrivacyLossDistribution`).",
              "object"),
    "state_dict": _t(_E, "A saved accountant state (Opacus's accountant API).", "mapping"),
    "destination": _t(_E, "Mapping to save an accountant state into (Opacus's accountant API).",
                      "mapping or None"),
    "validate": _t(_E, "Check every grid point's domain before the sweep starts.", "bool"),
    # training setups as values (pabi.PNSGD, pabi.DPSGD, pabi.CyclicDPSGD) and pabi.bounds
    "setup": _t(_E, "A training setup value (:class:`pabi.PNSGD`, :class:`pabi.DPSGD`, "
                    ":class:`pabi.CyclicDPSGD`) whose bounds are asked for.", "a setup"),
    "records": _t(_S, "Number of records n in the training set (PNSGD: one per step, so an epoch is "
                      "n steps).", "integer >= 1"),
    "convex": _t(_T, "The loss is convex in the parameters (a fact about the loss the bounds' "
                     "assumptions check).", "bool"),
    "dimension": _t(_T, "Number of parameters d (Laplace-noise bounds need d = 1).", "integer >= 1 or None"),
    "clipping_inactive": _t(_T, "Every per-record gradient norm is <= max_grad_norm, so clipping never "
                                "acts (unlocks the Lipschitz constant of eq. (12) of Kong–Ribero).", "bool"),
    # issue 16: the setups StepwisePNSGD, LastIterateSGD, ERMGradientDescent
    "noise_factor": _t(_N, "The factor c that scales a per-step noise sequence: step t gets noise "
                           "c·noise_scale[t] (:class:`pabi.StepwisePNSGD`; ``calibrate`` sets it).", "> 0"),
    "theorem": _t(_L, "Which last-iterate theorem of Kong–Ribero bounds a :class:`pabi.LastIterateSGD`: "
                      "``\"general\"`` (Thm 4.3), ``\"bounded\"`` (Thm 4.4) or ``\"cyclic\"`` (Thm 4.5).", "str"),
    "batch_order": _t(_S, "How the differing record's batch is chosen in ERM gradient descent: "
                          "``\"fixed\"`` (batch ``batch_index``, default the worst) or ``\"random\"`` (uniform over "
                          "the batches of one random partition; Chen–Lee–Kifer's averaged RDP).", "str"),
    # the Gaussian-mixture hockey-stick divergence (pabi.mixture_hockey_stick_divergence)
    "p_weights": _t(_N, "Component weights of the first Gaussian mixture P of a divergence D(P ‖ Q).",
                    "[0, 1] each, summing to 1"),
    "p_means": _t(_N, "Component means of the first Gaussian mixture P (1-D).", "finite, |mean| <= 1e100"),
    "p_stds": _t(_N, "Component standard deviations of the first Gaussian mixture P.", "[1e-100, 1e100]"),
    "q_weights": _t(_N, "Component weights of the second Gaussian mixture Q of a divergence D(P ‖ Q).",
                    "[0, 1] each, summing to 1"),
    "q_means": _t(_N, "Component means of the second Gaussian mixture Q (1-D).", "finite, |mean| <= 1e100"),
    "q_stds": _t(_N, "Component standard deviations of the second Gaussian mixture Q.", "[1e-100, 1e100]"),
}
