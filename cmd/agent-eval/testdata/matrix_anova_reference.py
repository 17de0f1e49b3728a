"""Reference ANOVA for script/matrix.txtar, computed with statsmodels.

The data are the agent's of matrix.txtar (its agent.sh): for each model
(m1 -> M=0, m2 -> M=1), ctx (lo -> C=0, hi -> C=1), case (a -> K=0,
b -> K=1) and replication R in 1..2,

    y = 10 + 2M + 3C + 1.5MC + 0.7K + 0.3R(1+K) - 0.2RM + 0.05R²C

The table is ols('y ~ C(ctx) * C(model)') + anova_lm(typ=2), with η² =
SS/SS_total and partial η² = SS/(SS + SS_residual); the terms are renamed as
agent-eval names them (ctx, model, ctx:model, Residual). Python makes this
fixture only; agent-eval never runs it. Regenerate the reference.json
section of script/matrix.txtar with:

    python3 -m venv .cache/ref && .cache/ref/bin/pip install statsmodels pandas
    .cache/ref/bin/python cmd/agent-eval/testdata/matrix_anova_reference.py
"""

import json
import math

import pandas as pd
import statsmodels.api as sm
from statsmodels.formula.api import ols



def value(m, c, k, r):
    """agent.sh's y (the names keep clear of patsy's C())."""
    return 10 + 2*m + 3*c + 1.5*m*c + 0.7*k + 0.3*r*(1+k) - 0.2*r*m + 0.05*r*r*c


rows = []
for model, m in (("m1", 0), ("m2", 1)):
    for ctx, c in (("lo", 0), ("hi", 1)):
        for k in (0, 1):
            for r in (1, 2):
                rows.append({"model": model, "ctx": ctx, "y": value(m, c, k, r)})
df = pd.DataFrame(rows)
fit = ols("y ~ C(ctx) * C(model)", data=df).fit()
table = sm.stats.anova_lm(fit, typ=2)
names = {"C(ctx)": "ctx", "C(model)": "model", "C(ctx):C(model)": "ctx:model", "Residual": "Residual"}
ss_total = float(((df["y"] - df["y"].mean()) ** 2).sum())
ss_res = float(table.loc["Residual", "sum_sq"])


def num(v):
    v = float(v)
    return None if math.isnan(v) else v


out = []
for term, row in table.iterrows():
    ss, dof = float(row["sum_sq"]), float(row["df"])
    resid = term == "Residual"
    out.append({
        "term": names[term],
        "ss": ss,
        "df": dof,
        "ms": ss / dof,
        "f": None if resid else num(row["F"]),
        "p": None if resid else num(row["PR(>F)"]),
        "eta_sq": ss / ss_total,
        "partial_eta_sq": None if resid else ss / (ss + ss_res),
    })
print(json.dumps({"rows": out}, indent=2))
