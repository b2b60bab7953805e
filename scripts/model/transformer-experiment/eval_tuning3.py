"""Tuning set (or, with SET=dev, the development set) (Dec 2 2026): MiniLM fused on top of today's cmem rankings.
Grids: base in {cmem auto, cmem lexical}, 3-way lexical+potion+MiniLM."""
import sys
from common import figures, fmt, TUNING, ROOT
import os
DEV = os.path.join(ROOT, "tests/fixtures/search-dev")
from fusion import Data, rrf

m = sys.argv[1] if len(sys.argv) > 1 else "minilm-l6"
d = Data(m)
qis = [i for i, q in enumerate(d.queries) if q["set"] == (DEV if os.environ.get("SET") == "dev" else TUNING)]
qs = [d.queries[i] for i in qis]
sem = {i: [(r, c) for r, c in d.semantic(i) if not r.startswith("P")] for i in qis}


def score(fn):
    return figures(qs, [fn(i) for i in qis])


for name in ["cmem auto", "cmem lexical", "cmem semantic"]:
    print(fmt(score(lambda i: d.queries[i]["rankings"][name]), name))
print(fmt(score(lambda i: [r for r, _ in sem[i]]), m + " only (no prompts)"))
best = []
for base in ["cmem auto", "cmem lexical"]:
    for min_cos in [0.0, 0.3, 0.4, 0.5]:
        for k in [1, 2, 3, 5, 10, 20]:
            for ws in [0.3, 0.5, 0.7, 1.0, 1.5]:
                f = score(lambda i: rrf([d.queries[i]["rankings"][base], [r for r, c in sem[i] if c >= min_cos]], [1.0, ws], k)[:50])
                best.append(((f["all"][1], f["all"][3]), f"{base} cos>={min_cos} k={k} w={ws}", f))
    for k in [2, 5, 10]:
        for wp in [0.3, 0.5]:
            for ws in [0.5, 0.7, 1.0]:
                f = score(lambda i: rrf([d.queries[i]["rankings"]["cmem lexical"], d.queries[i]["rankings"]["cmem semantic"], [r for r, c in sem[i] if c >= 0.3]], [1.0, wp, ws], k)[:50])
                best.append(((f["all"][1], f["all"][3]), f"3-way k={k} wp={wp} ws={ws}", f))
best.sort(key=lambda b: b[0], reverse=True)
for key, name, f in best[:15]:
    print(fmt(f, name))
