"""Reproduce cmem's own figures from the dump (recall@3/MRR per system, per kind)."""
from common import *
records, queries = load()
for s in (TUNING, HELDOUT):
    qs = [q for q in queries if q["set"] == s]
    print(s, len(qs), "queries")
    for system in ["cmem auto", "cmem lexical", "cmem semantic", "bm25 OR", "bm25 OR porter"]:
        f = figures(qs, [q["rankings"][system] for q in qs])
        print(fmt(f, system))
        if system == "cmem auto":
            print("   r10 all %.3f" % f["all"][2])
