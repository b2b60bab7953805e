"""Tuning-set misses: where the expected records sit in each ranking (tuning only)."""
import sys
from common import TUNING
from fusion import Data
m = sys.argv[1] if len(sys.argv) > 1 else "minilm-l6"
d = Data(m)
text = {(r["set"], r["record"]): r["text"] for r in d.records}
import collections
ne = collections.Counter()
for i, q in enumerate(d.queries):
    if q["set"] != TUNING:
        continue
    ne[len(q["expect"])] += 1
    auto = q["rankings"]["cmem auto"][:10]
    f = sum(e in auto[:3] for e in q["expect"]) / min(3, len(q["expect"]))
    if f == 1.0 or q["kind"] not in sys.argv[2:]:
        continue
    sem = [r for r, _ in d.semantic(i)]
    lex = q["rankings"]["cmem lexical"]
    pos = lambda l, e: (l.index(e) + 1) if e in l else "-"
    print(f"[{q['kind']}] {q['query']!r}  auto@3={f:.2f}")
    print("   auto top3:", auto[:3], " sem top3:", sem[:3])
    for e in q["expect"]:
        print(f"   expect {e:>5}: auto {pos(auto, e)!s:>3} lex {pos(lex, e)!s:>3} sem {pos(sem, e)!s:>3} | {text[(q['set'], e)][:110]!r}")
print("expected-set sizes (tuning):", sorted(ne.items()))
