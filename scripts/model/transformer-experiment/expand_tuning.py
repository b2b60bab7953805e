"""Tuning only: after the fused ranking, pull records close in meaning to the first hit (same piece
of work) into places 2-3: rerank fused top-N by RRF score + gamma * cos(record, first hit)."""
import numpy as np
from common import TUNING, figures, fmt
from fusion import Data, rrf
import choice
d = Data(choice.MODEL)
rid_index = {(r["set"], r["record"]): j for j, r in enumerate(d.records)}
qis = [i for i, q in enumerate(d.queries) if q["set"] == TUNING]
qs = [d.queries[i] for i in qis]


def expanded(i, gamma, topn, drop_p):
    q = d.queries[i]
    sem = d.semantic(i)
    lists = [q["rankings"][choice.BASE], choice.semantic_list(sem)]
    ws = [choice.W_LEX, choice.W_SEM]
    sc = {}
    for lst, w in zip(lists, ws):
        for rank, rid in enumerate(lst):
            sc[rid] = sc.get(rid, 0) + w / (choice.K + rank + 1)
    ranked = rrf(lists, ws, choice.K)
    if not ranked or gamma == 0:
        return ranked[:50]
    top = ranked[0]
    tv = d.R[rid_index[(q["set"], top)]]
    mx = sc[top]
    rest = ranked[1:topn]
    def s(r):
        c = float(d.R[rid_index[(q["set"], r)]] @ tv)
        if drop_p and r.startswith("P"):
            c = 0
        return sc[r] / mx + gamma * c
    rest = sorted(rest, key=lambda r: -s(r))
    return ([top] + rest + ranked[topn:])[:50]


print(fmt(figures(qs, [choice.fused(d.queries[i], d.semantic(i)) for i in qis]), "chosen config"))
for topn in [10, 20]:
    for gamma in [0.25, 0.5, 1.0, 2.0]:
        print(fmt(figures(qs, [expanded(i, gamma, topn, True) for i in qis]), f"expand top{topn} gamma={gamma}"))
