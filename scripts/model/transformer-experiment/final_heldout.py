"""Run ONCE: the configuration chosen on tuning (choice.py) and potion through the same fusion,
on both sets, beside cmem's own systems. Prints figures only (no misses)."""
from common import figures, fmt, TUNING, HELDOUT
from fusion import Data
import choice

d = Data(choice.MODEL)
for s in (TUNING, HELDOUT):
    qis = [i for i, q in enumerate(d.queries) if q["set"] == s]
    qs = [d.queries[i] for i in qis]
    print(f"### {s.split('/')[-1]}: {len(qs)} queries, recall@3/MRR (recall@10 in brackets)")
    rows = [(name, [q["rankings"][name] for q in qs]) for name in ["cmem auto", "cmem lexical", "cmem semantic", "bm25 OR", "bm25 OR porter"]]
    rows.append(("potion fused (same RRF)", [choice.potion_fused(q) for q in qs]))
    rows.append(("MiniLM semantic only", [[r for r, _ in d.semantic(i)] for i in qis]))
    rows.append(("MiniLM semantic, no prompts", [[r for r, _ in d.semantic(i) if not r.startswith("P")] for i in qis]))
    rows.append(("CHOSEN: MiniLM fused", [choice.fused(d.queries[i], d.semantic(i)) for i in qis]))
    for name, rk in rows:
        f = figures(qs, rk)
        print(fmt(f, name) + f"  [r@10 {f['all'][2]:.3f}]")
