#!/usr/bin/env python3
"""Reference values for internal/stats, computed with scipy and statsmodels.

Regenerate (from the repository root) with:

    /root/.pyenv/versions/3.12.1/bin/python -m venv .cache/statsref
    .cache/statsref/bin/pip install scipy statsmodels pandas
    .cache/statsref/bin/python internal/stats/testdata/reference.py

It writes internal/stats/testdata/reference.json next to this file, inputs and
expected outputs together, and records the library versions it ran with under
"versions". The JSON committed was made with Python 3.12.1, scipy 1.18.1,
statsmodels 0.15.0, pandas 3.1.1 and numpy 2.5.5. This script only makes test
fixtures: the product never runs Python.
"""

import json
import math
import os
import platform
from fractions import Fraction

import numpy as np
import pandas as pd
import scipy
import scipy.stats as st
import statsmodels
import statsmodels.formula.api as smf
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.contingency_tables import mcnemar
from statsmodels.stats.proportion import proportion_confint

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference.json")


def wilson_cases():
    out = []
    for x, n in [(0, 10), (1, 10), (5, 10), (10, 10), (7, 20), (37, 50), (1, 1), (199, 200), (3, 1000)]:
        for level in (0.90, 0.95, 0.99):
            lo, hi = proportion_confint(x, n, alpha=1 - level, method="wilson")
            out.append({"successes": x, "n": n, "level": level, "low": float(lo), "high": float(hi)})
    return out


def t_cases():
    samples = [
        [1.0, 2.0, 3.0, 4.0, 5.0],
        [0.2, 0.9, 0.4, 0.7],
        [10.5, 11.25, 9.75, 10.0, 12.5, 10.25, 11.0, 9.5],
        [-3.0, 4.5],
        list(np.round(np.random.default_rng(7).normal(0.6, 0.2, 40), 6)),
    ]
    out = []
    for xs in samples:
        a = np.asarray(xs, dtype=float)
        for level in (0.90, 0.95, 0.99):
            m = float(a.mean())
            se = float(st.sem(a))
            lo, hi = st.t.interval(level, len(a) - 1, loc=m, scale=se)
            out.append({"xs": [float(v) for v in a], "level": level, "mean": m, "low": float(lo), "high": float(hi)})
    return out


def mcnemar_cases():
    out = []
    for b, c in [(0, 0), (1, 0), (3, 9), (5, 5), (10, 2), (0, 15), (25, 40), (7, 8), (100, 70)]:
        p = float(mcnemar([[12, b], [c, 30]], exact=True).pvalue)
        p_binom = float(st.binomtest(b, b + c, 0.5).pvalue) if b + c > 0 else 1.0
        assert math.isclose(p, p_binom, rel_tol=1e-12), (b, c, p, p_binom)
        out.append({"b": b, "c": c, "p": p})
    return out


def sign_cases():
    diffs = [
        [1, 2, 3, -1, 0, 4, 5, 0.5],
        [-1, -2, -0.5, -3, 1],
        [0, 0, 0],
        [1, -1, 2, -2],
        [0.1] * 12 + [-0.2] * 2,
    ]
    out = []
    for d in diffs:
        a = np.asarray(d, dtype=float)
        pos, neg = int((a > 0).sum()), int((a < 0).sum())
        p = float(st.binomtest(pos, pos + neg, 0.5).pvalue) if pos + neg > 0 else 1.0
        out.append({"diffs": [float(v) for v in a], "p": p})
    return out


def wilcoxon_cases():
    rng = np.random.default_rng(22)
    cases = [
        # exact: no ties, no zeros, n <= 25
        ([1.5, -0.3, 2.2, 0.8, -1.1, 3.4, 0.05, 1.9, -0.7, 2.6], "exact"),
        (list(np.round(rng.normal(0.3, 1, 25), 6)), "exact"),
        ([0.4, 0.1, -0.2], "exact"),
        # approximation: ties
        ([1, 1, -1, 2, 2, 3, -3, 4, 1, 2, 5, -2], "approx"),
        # approximation: zeros (dropped, zero_method="wilcox")
        ([0, 0, 1.5, -0.5, 2.5, 3.5, -1.25, 0.75, 4.5, 2.25], "approx"),
        # approximation: n > 25
        (list(np.round(rng.normal(0.2, 1, 40), 6)), "approx"),
        # approximation: ties and zeros
        ([0, 1, 1, 1, -1, 0, 2, 2, -2, 3, 3, 3, 3, 0], "approx"),
    ]
    out = []
    for d, method in cases:
        a = np.asarray(d, dtype=float)
        r = st.wilcoxon(a, zero_method="wilcox", correction=False, alternative="two-sided", method=method)
        out.append({"diffs": [float(v) for v in a], "method": method, "stat": float(r.statistic), "p": float(r.pvalue)})
    return out


def passk_cases():
    out = []
    for n, c, k in [(10, 3, 1), (10, 3, 5), (10, 0, 3), (10, 10, 10), (5, 2, 4), (200, 13, 10), (100, 50, 100), (1, 1, 1), (20, 19, 2)]:
        at = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
        hat = Fraction(math.comb(c, k), math.comb(n, k))
        out.append({"n": n, "c": c, "k": k, "pass_at_k": float(at), "pass_hat_k": float(hat)})
    return out


def newcombe_paired(a, b, level):
    """Newcombe (1998) method 10 from statsmodels' Wilson bounds."""
    a, b = np.asarray(a, bool), np.asarray(b, bool)
    n = len(a)
    both, only_a = int((a & b).sum()), int((a & ~b).sum())
    only_b, neither = int((~a & b).sum()), int((~a & ~b).sum())
    p1, p2 = (both + only_a) / n, (both + only_b) / n
    l1, u1 = proportion_confint(both + only_a, n, alpha=1 - level, method="wilson")
    l2, u2 = proportion_confint(both + only_b, n, alpha=1 - level, method="wilson")
    den = (both + only_a) * (neither + only_b) * (both + only_b) * (neither + only_a)
    phi = (both * neither - only_a * only_b) / math.sqrt(den) if den > 0 else 0.0
    d = p1 - p2
    lo = d - math.sqrt((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2)
    hi = d + math.sqrt((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2)
    return d, max(-1.0, lo), min(1.0, hi)


def paired_prop_cases():
    rng = np.random.default_rng(5)
    cases = [
        ([True] * 8 + [False] * 2, [True] * 5 + [False] * 5),
        ([True, False] * 10, [False, True] * 10),
        (list(rng.random(60) < 0.7), list(rng.random(60) < 0.55)),
        ([True] * 6, [True] * 6),
    ]
    out = []
    for a, b in cases:
        d, lo, hi = newcombe_paired(a, b, 0.95)
        out.append({"a": [bool(v) for v in a], "b": [bool(v) for v in b], "level": 0.95, "diff": d, "low": lo, "high": hi})
    return out


def effect_cases():
    out = []
    for d in ([0.5, 1.0, -0.25, 0.75, 1.5], [2.0, 2.5, 1.0, 3.0], list(np.round(np.random.default_rng(3).normal(0.1, 0.3, 30), 6))):
        a = np.asarray(d, dtype=float)
        out.append({
            "diffs": [float(v) for v in a],
            "cohen_d": float(a.mean() / a.std(ddof=1)),
            "mean": float(a.mean()),
            "median": float(np.median(a)),
        })
    return out


def anova_case(name, df, factors):
    formula = "y ~ " + " * ".join(f"C({f})" for f in factors)
    table = anova_lm(smf.ols(formula, data=df).fit(), typ=2)
    sst = float(((df["y"] - df["y"].mean()) ** 2).sum())
    rows = []
    resid_ss = float(table.loc["Residual", "sum_sq"])
    for term, r in table.iterrows():
        label = "Residual" if term == "Residual" else ":".join(part[2:-1] for part in term.split(":"))
        row = {"term": label, "ss": float(r["sum_sq"]), "df": float(r["df"]), "eta_sq": float(r["sum_sq"]) / sst}
        if term != "Residual":
            row["f"] = float(r["F"])
            row["p"] = float(r["PR(>F)"])
            row["partial_eta_sq"] = float(r["sum_sq"]) / (float(r["sum_sq"]) + resid_ss)
        rows.append(row)
    obs = [{"levels": {f: str(rec[f]) for f in factors}, "y": float(rec["y"])} for rec in df.to_dict("records")]
    return {"name": name, "factors": factors, "obs": obs, "rows": rows, "ss_total": sst}


def anova_cases():
    rng = np.random.default_rng(2026)
    out = []
    # balanced 2 x 2, two replications per cell
    recs = []
    for a in ("sonnet", "opus"):
        for b in ("short", "long"):
            for _ in range(2):
                y = 0.5 + (0.2 if a == "opus" else 0) + (0.1 if b == "long" else 0) + rng.normal(0, 0.05)
                recs.append({"model": a, "prompt": b, "y": round(y, 6)})
    out.append(anova_case("balanced 2x2, 2 replications", pd.DataFrame(recs), ["model", "prompt"]))
    # balanced 2 x 2 x 2, two replications per cell (three-way interaction)
    recs = []
    for a in ("a1", "a2"):
        for b in ("b1", "b2"):
            for c in ("c1", "c2"):
                for _ in range(2):
                    y = (1.0 if a == "a2" else 0) + (0.5 if b == "b2" and c == "c2" else 0) + rng.normal(0, 0.3)
                    recs.append({"a": a, "b": b, "c": c, "y": round(y, 6)})
    out.append(anova_case("balanced 2x2x2, 2 replications", pd.DataFrame(recs), ["a", "b", "c"]))
    # unbalanced 2 x 3: unequal replications per cell
    reps = {("x", "p"): 3, ("x", "q"): 2, ("x", "r"): 4, ("y", "p"): 1, ("y", "q"): 5, ("y", "r"): 2}
    recs = []
    for (a, b), k in reps.items():
        for _ in range(k):
            y = 2.0 + (0.7 if a == "y" else 0) + {"p": 0, "q": 0.4, "r": -0.3}[b] + (0.5 if (a, b) == ("y", "r") else 0) + rng.normal(0, 0.25)
            recs.append({"agent": a, "effort": b, "y": round(y, 6)})
    out.append(anova_case("unbalanced 2x3", pd.DataFrame(recs), ["agent", "effort"]))
    return out


def main():
    ref = {
        "versions": {
            "python": platform.python_version(),
            "scipy": scipy.__version__,
            "statsmodels": statsmodels.__version__,
            "pandas": pd.__version__,
            "numpy": np.__version__,
        },
        "wilson": wilson_cases(),
        "mean_t": t_cases(),
        "mcnemar": mcnemar_cases(),
        "sign": sign_cases(),
        "wilcoxon": wilcoxon_cases(),
        "pass_k": passk_cases(),
        "paired_proportion": paired_prop_cases(),
        "effect": effect_cases(),
        "anova": anova_cases(),
    }
    with open(OUT, "w") as f:
        json.dump(ref, f, indent=1, allow_nan=False)
        f.write("\n")


if __name__ == "__main__":
    main()
