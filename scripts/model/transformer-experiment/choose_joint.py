"""Choose MiniLM-over-cmem-auto fusion on the tuning AND development sets together (mean
recall@3, then MRR), then print the held-out set's figures ONCE for that one configuration
(figures only, no query is read). Run: venv/bin/python choose_joint.py minilm-l6"""
import os, sys
from common import figures, fmt, TUNING, HELDOUT, ROOT
from fusion import Data, rrf

DEV = os.path.join(ROOT, "tests/fixtures/search-dev")
m = sys.argv[1] if len(sys.argv) > 1 else "minilm-l6"
d = Data(m)
by_set = {s: [i for i, q in enumerate(d.queries) if q["set"] == s] for s in (TUNING, DEV, HELDOUT)}
sem = {i: [(r, c) for r, c in d.semantic(i) if not r.startswith("P")] for i in range(len(d.queries))}


def run(qis, cfg):
    base, min_cos, k, ws = cfg
    if cfg == "auto":
        lists = [d.queries[i]["rankings"]["cmem auto"] for i in qis]
    else:
        lists = [rrf([d.queries[i]["rankings"][base], [r for r, c in sem[i] if c >= min_cos]], [1.0, ws], k)[:50] for i in qis]
    return figures([d.queries[i] for i in qis], lists)


configs = [("cmem auto", c, k, w) for c in (0.0, 0.3, 0.4, 0.5) for k in (1, 2, 3, 5, 10, 20) for w in (0.3, 0.5, 0.7, 1.0)]
scored = []
for cfg in configs:
    t, v = run(by_set[TUNING], cfg)["all"], run(by_set[DEV], cfg)["all"]
    scored.append(((t[1] + v[1]) / 2, (t[3] + v[3]) / 2, cfg, t, v))
scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
best = scored[0]
print("chosen on tuning+dev:", best[2], f"tuning {best[3][1]:.3f}/{best[3][3]:.3f}", f"dev {best[4][1]:.3f}/{best[4][3]:.3f}")
base_t, base_v = run(by_set[TUNING], "auto")["all"], run(by_set[DEV], "auto")["all"]
print(f"cmem auto alone: tuning {base_t[1]:.3f}/{base_t[3]:.3f} dev {base_v[1]:.3f}/{base_v[3]:.3f}")
print("HELD-OUT (printed once):")
print(fmt(run(by_set[HELDOUT], "auto"), "cmem auto"))
print(fmt(run(by_set[HELDOUT], best[2]), "MiniLM over cmem auto (chosen)"))
