"""Rankings: semantic by cosine within the query's project; fusions with cmem's rankings."""
import numpy as np
from common import load, HERE
import os

DEPTH = 50


class Data:
    def __init__(self, model=None):
        self.records, self.queries = load()
        self.R = self.Q = None
        if model:
            z = np.load(os.path.join(HERE, "emb", model + ".npz"))
            self.R, self.Q = z["R"], z["Q"]
        # per (set, project) candidate record indices
        self.pool = {}
        for i, r in enumerate(self.records):
            self.pool.setdefault((r["set"], r["project"]), []).append(i)
        self.pool = {k: np.array(v) for k, v in self.pool.items()}

    def semantic(self, qi, depth=DEPTH):
        """[(record id, cosine)] best first, within the query's set and project."""
        q = self.queries[qi]
        idx = self.pool[(q["set"], q["project"])]
        cos = self.R[idx] @ self.Q[qi]
        order = np.argsort(-cos, kind="stable")[:depth]
        return [(self.records[idx[j]]["record"], float(cos[j])) for j in order]


def rrf(lists, weights, k):
    """Weighted reciprocal rank fusion of ranked id lists (rank counted from 1)."""
    score = {}
    for lst, w in zip(lists, weights):
        for rank, rid in enumerate(lst):
            score[rid] = score.get(rid, 0.0) + w / (k + rank + 1)
    first_seen = {}
    for lst in lists:
        for rid in lst:
            first_seen.setdefault(rid, len(first_seen))
    return sorted(score, key=lambda r: (-score[r], first_seen[r]))


def blend(lex, sem, alpha, min_cos=0.0):
    """Convex blend of a rank-derived lexical score (1 at rank 1, falling linearly to 0 past the
    list) and the cosine min-max normalised over the semantic list."""
    n = max(len(lex), 1)
    ls = {rid: 1.0 - r / n for r, rid in enumerate(lex)}
    cs = dict(sem)
    if sem:
        hi, lo = sem[0][1], sem[-1][1]
        cs = {rid: (c - lo) / (hi - lo + 1e-9) for rid, c in sem if c >= min_cos}
    cands = set(ls) | set(cs)
    first_seen = {rid: i for i, rid in enumerate(lex)}
    return sorted(cands, key=lambda r: (-(alpha * cs.get(r, 0.0) + (1 - alpha) * ls.get(r, 0.0)),
                                        first_seen.get(r, 10**6)))
