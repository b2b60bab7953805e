"""Everything on the TUNING set only: semantic alone, and fusions, per model. Never reads held-out."""
import itertools, sys
from common import figures, fmt, TUNING, KINDS
from fusion import Data, rrf, blend

MODELS = sys.argv[1:] or ["minilm-l6", "minilm-l6-int8", "me5-small-q4"]


def tuning(d):
    return [i for i, q in enumerate(d.queries) if q["set"] == TUNING]


def run(d, qis, make):
    qs = [d.queries[i] for i in qis]
    return figures(qs, [make(i) for i in qis])


def configs():
    for base in ["cmem lexical", "cmem auto"]:
        for k in [1, 2, 5, 10, 20, 60]:
            for ws in [0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0]:
                for min_cos in [0.0, 0.3, 0.4]:
                    yield ("rrf", base, k, ws, min_cos)
        for alpha in [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]:
            yield ("blend", base, alpha, None, 0.0)


def make_fn(d, cfg, sem_cache):
    kind, base, a, b, min_cos = cfg
    def f(i):
        lex = d.queries[i]["rankings"][base]
        sem = sem_cache[i]
        if kind == "rrf":
            s = [rid for rid, c in sem if c >= min_cos]
            return rrf([lex, s], [1.0, b], a)[:50]
        return blend(lex, sem, a)[:50]
    return f


def main():
    base_d = Data()
    qis = tuning(base_d)
    print("TUNING set,", len(qis), "queries; recall@3/MRR")
    for s in ["cmem auto", "cmem lexical", "cmem semantic"]:
        print(fmt(run(base_d, qis, lambda i: base_d.queries[i]["rankings"][s]), s))
    # potion ("cmem semantic") through the same fusions, for comparison
    pot = {i: [(rid, 1.0 - r / 100) for r, rid in enumerate(base_d.queries[i]["rankings"]["cmem semantic"])] for i in qis}
    results = {}
    for name, d, sem in [("potion", base_d, pot)] + [(m, Data(m), None) for m in MODELS]:
        if sem is None:
            sem = {i: d.semantic(i) for i in qis}
            print(fmt(run(d, qis, lambda i: [r for r, _ in sem[i]]), f"{name} semantic only"))
        rows = []
        for cfg in configs():
            if name == "potion" and (cfg[4] or cfg[0] == "blend"):
                continue  # potion's cosines are not in the dump
            f = run(d, qis, make_fn(d, cfg, sem))
            rows.append((f["all"][1], f["all"][3], cfg, f))
        rows.sort(key=lambda r: (-r[0], -r[1]))
        results[name] = rows
        print(f"-- {name}: best fused configs")
        for r3, mrr, cfg, f in rows[:6]:
            print(fmt(f, " ".join(map(str, cfg))))
    return results


if __name__ == "__main__":
    main()
