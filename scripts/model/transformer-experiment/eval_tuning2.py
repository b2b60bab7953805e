"""Tuning set only: RRF grid with/without prompts among the semantic candidates; k x weight tables."""
import sys
from common import figures, fmt, TUNING
from fusion import Data, rrf

models = sys.argv[1:] or ["minilm-l6", "me5-small-q4"]
base_d = Data()
qis = [i for i, q in enumerate(base_d.queries) if q["set"] == TUNING]
qs = [base_d.queries[i] for i in qis]
KS = [1, 2, 3, 5, 10, 20, 60]
WS = [0.3, 0.5, 0.7, 1.0, 1.5, 2.0]


def score(fn):
    return figures(qs, [fn(i) for i in qis])


for m in ["potion"] + models:
    if m == "potion":
        sem = {i: [(r, 1.0) for r in base_d.queries[i]["rankings"]["cmem semantic"]] for i in qis}
    else:
        d = Data(m)
        sem = {i: d.semantic(i) for i in qis}
    for drop_p in [False, True]:
        sem2 = {i: [(r, c) for r, c in s if not (drop_p and r.startswith("P"))] for i, s in sem.items()}
        if m != "potion":
            print(fmt(score(lambda i: [r for r, _ in sem2[i]]), f"{m} sem-only drop_prompts={drop_p}"))
        for base in ["cmem lexical", "cmem auto"]:
            for min_cos in ([0.0] if m == "potion" else [0.0, 0.3, 0.4]):
                print(f"== {m} base={base} drop_prompts={drop_p} min_cos={min_cos}: recall@3 (MRR) rows k, cols w_sem {WS}")
                best = None
                for k in KS:
                    cells = []
                    for ws in WS:
                        f = score(lambda i: rrf([base_d.queries[i]["rankings"][base], [r for r, c in sem2[i] if c >= min_cos]], [1.0, ws], k)[:50])
                        cells.append(f"{f['all'][1]:.3f}({f['all'][3]:.2f})")
                        key = (f["all"][1], f["all"][3])
                        if best is None or key > best[0]:
                            best = (key, k, ws, f)
                    print(f"  k={k:<3}", " ".join(cells))
                print(fmt(best[3], f"  best k={best[1]} w={best[2]}"))
    del sem
