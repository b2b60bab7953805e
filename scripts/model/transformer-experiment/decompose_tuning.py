"""Tuning only: where the chosen config loses recall@3 (by |expected|, by record type)."""
import collections
from common import TUNING, score_one
from fusion import Data
import choice
d = Data(choice.MODEL)
loss = collections.Counter(); n = collections.Counter(); miss_type = collections.Counter()
first_ok = collections.Counter()
for i, q in enumerate(d.queries):
    if q["set"] != TUNING:
        continue
    r = choice.fused(q, d.semantic(i))[:10]
    f = score_one(q["expect"], r)
    key = min(len(q["expect"]), 3)
    n[key] += 1; loss[key] += 1 - f[0]
    first_ok[key] += f[2] == 1.0
    for e in q["expect"]:
        if e not in r[:3]:
            miss_type[e[0] if e[0] in "SP" else "O"] += 1
tot = sum(n.values())
for k in sorted(n):
    print(f"|E|={k}: {n[k]} queries, recall@3 lost {loss[k]:.1f} query-equivalents ({loss[k]/tot:.3f} of the mean); first hit right in {first_ok[k]}/{n[k]}")
print("expected records missing from top 3, by type:", dict(miss_type))
