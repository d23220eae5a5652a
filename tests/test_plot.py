"""pabi.plot draws exactly the pabi values; pabi.figures writes the papers' figures as PNG."""

import subprocess
import sys

import numpy as np
import pytest

import pabi

import matplotlib
from matplotlib.figure import Figure  # noqa: E402

import pabi.figures  # noqa: E402
import pabi.plot  # noqa: E402


def _ax():
    return Figure().subplots()


def test_privacy_profile_line_is_the_pabi_profile():
    eps = np.linspace(0.0, 6.0, 61)
    kw = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=100, ordering="shuffled")
    want = pabi.pnsgd_delta(eps, **kw)
    ax = pabi.plot.plot_privacy_profile(eps, lambda e: pabi.pnsgd_delta(e, **kw), ax=_ax(), label="shuffled")
    line = ax.lines[-1]
    np.testing.assert_array_equal(line.get_xdata(), eps)
    np.testing.assert_array_equal(line.get_ydata(), want)
    assert ax.get_yscale() == "log" and "ε" in ax.get_xlabel() and "δ" in ax.get_ylabel()
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["shuffled"]
    # values instead of a callable, linear axis, several curves on one Axes
    ax2 = pabi.plot.plot_privacy_profile(eps, want, ax=ax, color="red")
    assert ax2 is ax and len(ax.lines) == 2
    np.testing.assert_array_equal(ax.lines[-1].get_ydata(), want)
    assert pabi.plot.plot_privacy_profile(eps, want, ax=_ax(), logy=False).get_yscale() == "linear"


def test_privacy_profile_shape_mismatch():
    with pytest.raises(ValueError, match="delta must have the shape"):
        pabi.plot.plot_privacy_profile([0.1, 0.2], [0.5], ax=_ax())
    with pytest.raises(ValueError, match="non-empty 1-D"):
        pabi.plot.plot_privacy_profile([[0.1]], [[0.5]], ax=_ax())


def test_delta_convergence_values_gap_and_noise_axis():
    n = np.array([1e4, 1e6, 1e8, 1e10, 1e12])
    d = pabi.laplace_schedule_delta(1.0, max_grad_norm=10.0, lr=0.1, diameter=1.0, steps=n, c1=1e5, c2=2.0)
    star = pabi.laplace_schedule_delta_limit(1.0, c1=1e5)
    fig = Figure()
    ax = pabi.plot.plot_delta_convergence(n, d, star, ax=fig.subplots(),
                                          noise=pabi.laplace_schedule_noise_scale(n, c1=1e5, c2=2.0, lr=0.1, diameter=1.0),
                                          noise_label="v(n)")
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), d)
    assert ax.lines[1].get_ydata()[0] == star  # the dashed delta* line
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    twin = fig.axes[-1]
    assert twin is not ax and twin.get_ylabel() == "v(n)"
    np.testing.assert_allclose(twin.lines[0].get_ydata(), pabi.laplace_schedule_noise_scale(n, c1=1e5, c2=2.0, lr=0.1, diameter=1.0))
    # gap: |delta - delta*| has slope -1 (Sordello-Bu-Dong Thm 3, Fig. 2 right)
    ax = pabi.plot.plot_delta_convergence(n, lambda m: pabi.laplace_schedule_delta(1.0, max_grad_norm=10.0, lr=0.1, diameter=1.0, steps=m, c1=1e5, c2=2.0),
                                          star, ax=_ax(), gap=True)
    g = ax.lines[0].get_ydata()
    np.testing.assert_array_equal(g, np.abs(d - star))
    assert abs(np.diff(np.log10(g))[-1] / 2 + 1) < 5e-4
    assert g[-1] * 1e12 == pytest.approx(1.21306, abs=1e-5)
    with pytest.raises(ValueError, match="delta_star"):
        pabi.plot.plot_delta_convergence(n, d, None, ax=_ax(), gap=True)


def test_per_instance_histogram_counts_and_reference_line():
    rng = np.random.default_rng(1)
    eps = rng.uniform(0.5, 4.0, 200)
    ax = pabi.plot.plot_per_instance_histogram(eps, 5.0, ax=_ax(), bins=10)
    heights = np.array([p.get_height() for p in ax.patches])
    assert heights.sum() == 200
    np.testing.assert_array_equal(heights, np.histogram(eps, bins=10)[0])
    vline = ax.lines[-1]
    assert list(vline.get_xdata()) == [5.0, 5.0]
    ax = pabi.plot.plot_per_instance_histogram(eps, 5.0, ax=_ax(), bins=8, relative=True, log_x=True)
    assert ax.get_xscale() == "log" and list(ax.lines[-1].get_xdata()) == [1.0, 1.0]
    assert sum(p.get_height() for p in ax.patches) == 200
    left = min(p.get_x() for p in ax.patches)
    assert left == pytest.approx(eps.min() / 5.0)
    with pytest.raises(ValueError, match="relative"):
        pabi.plot.plot_per_instance_histogram(eps, None, ax=_ax(), relative=True)


def test_plot_without_ax_uses_pyplot():
    import matplotlib.pyplot as plt

    ax = pabi.plot.plot_privacy_profile([0.5, 1.0], [0.3, 0.1])
    try:
        assert ax.figure in [plt.figure(k) for k in plt.get_fignums()]
    finally:
        plt.close("all")


def test_figures_registry():
    assert set(pabi.figures.FIGURES) == set(pabi.figures._MAKERS)
    assert all(isinstance(v, str) and v for v in pabi.figures.FIGURES.values())
    with pytest.raises(ValueError, match="unknown figure"):
        pabi.figures.make_all("unused", only=["nope"])


def test_make_all_writes_a_png(tmp_path):
    out = pabi.figures.make_all(tmp_path / "figs", only=["schedule_fig2"])
    assert out == [tmp_path / "figs" / "schedule_fig2.png"]
    data = out[0].read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000


def test_import_without_matplotlib():
    """pabi.plot and pabi.figures import without matplotlib; calling them says how to install it."""
    code = (
        "import sys; sys.modules['matplotlib'] = None\n"
        "import pabi.plot, pabi.figures\n"
        "assert 'schedule_fig2' in pabi.figures.FIGURES\n"
        "for f in (lambda: pabi.plot.plot_privacy_profile([1.0], [0.1]),\n"
        "          lambda: pabi.figures.make_all('x', only=['schedule_fig2'])):\n"
        "    try:\n"
        "        f()\n"
        "    except ImportError as e:\n"
        "        assert \"pip install 'pabi[plot]'\" in str(e), e\n"
        "    else:\n"
        "        raise AssertionError('no ImportError')\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_contraction_fig3_draws_the_pabi_bounds():
    """000 Fig. 3 (strongly convex): the per-record panel holds pnsgd_delta / pnsgd_rdp_delta and
    the RDP bound wins for i <= 96, Thm 4 for the last four records (tests/test_pnsgd.py)."""
    fig = Figure()
    pabi.figures.contraction_fig3(fig)
    right = fig.axes[1]
    idx = np.arange(1, 101)
    kw = dict(noise_scale=1.0, max_grad_norm=1.0, steps=100, index=idx, lr=0.2, smoothness=4.0, strong_convexity=1.0)
    thm4, rdp = (line.get_ydata() for line in right.lines)
    np.testing.assert_array_equal(thm4, pabi.pnsgd_delta(1.0, diameter=1.0, ordering="fixed", **kw))
    np.testing.assert_array_equal(rdp, pabi.pnsgd_rdp_delta(1.0, **kw))
    wins = thm4 < rdp
    assert not wins[:96].any() and wins[96:].all()


def test_schedule_fig2_rate_panel():
    """003 Fig. 2 right: |delta(n) - delta*| with slope -1 (kappa_L = 2) and -1/2 (kappa_L = 0.5, T7)."""
    fig = Figure()
    pabi.figures.schedule_fig2(fig)
    right = fig.axes[1]
    slopes = []
    for line in right.lines[:2]:
        n, g = line.get_xdata(), line.get_ydata()
        slopes.append(np.log10(g[-1] / g[-21]) / np.log10(n[-1] / n[-21]))
    assert abs(slopes[0] + 1) < 2e-3 and abs(slopes[1] + 0.5) < 5e-3
