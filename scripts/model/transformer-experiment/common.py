"""Shared: load the dump, score rankings exactly as cmem's src/eval/metrics.rs does."""
import json, os
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
KINDS = ["keyword", "paraphrase", "question", "multi-word", "identifier"]
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))
# The set paths as `cmem dev eval-search --dump` writes them (run it from the repo root).
TUNING = os.path.join(ROOT, "tests/fixtures/search-tuning")
HELDOUT = os.path.join(ROOT, "tests/fixtures/search-heldout")


def load(path=os.path.join(HERE, "dump.jsonl")):
    records, queries = [], []
    for line in open(path):
        d = json.loads(line)
        (records if "record" in d else queries).append(d)
    return records, queries


def score_one(expect, ranked):
    """recall3 = |E ∩ R[:3]| / min(|E|,3); recall10 = |E ∩ R[:10]| / |E|; mrr = 1/first."""
    if not expect:
        return None
    r3 = sum(1 for e in expect if e in ranked[:3]) / min(len(expect), 3)
    r10 = sum(1 for e in expect if e in ranked[:10]) / len(expect)
    first = next((i for i, r in enumerate(ranked) if r in expect), None)
    return (r3, r10, 0.0 if first is None else 1.0 / (first + 1))


def figures(queries, rankings):
    """rankings: list parallel to queries. Returns {group: (n, r3, r10, mrr)}."""
    groups = defaultdict(list)
    for q, ranked in zip(queries, rankings):
        f = score_one(q["expect"], list(ranked)[:10])  # cmem truncates every ranking to 10
        if f is None:
            continue
        groups["all"].append(f)
        groups[q["kind"]].append(f)
    out = {}
    for g, fs in groups.items():
        n = len(fs)
        out[g] = (n, sum(f[0] for f in fs) / n, sum(f[1] for f in fs) / n, sum(f[2] for f in fs) / n)
    return out


def fmt(figs, name="", groups=("all",) + tuple(KINDS)):
    parts = []
    for g in groups:
        if g in figs:
            n, r3, r10, mrr = figs[g]
            parts.append(f"{g[:5]:>5} {r3:.3f}/{mrr:.3f}")
    return f"{name:<34} " + "  ".join(parts)
