"""Single-thread speed: one query embedding (median of 50) and 1,000 record texts, per runtime."""
import os, sys, time
os.environ["OPENBLAS_NUM_THREADS"] = "1"; os.environ["OMP_NUM_THREADS"] = "1"
import numpy as np
from common import load
import embed

records, queries = load()
texts = [r["text"] for r in records]
texts = (texts * 2)[:1000]
qtexts = [q["query"] for q in queries[:50]]
print("loadavg before:", open("/proc/loadavg").read().split()[:3])
for name in sys.argv[1:] or ["minilm-l6", "minilm-l6-int8", "me5-small-q4"]:
    t = time.time(); qe, pe, _ = embed.get(name); load_s = time.time() - t
    qe("warm up")
    ts = []
    for q in qtexts:
        t = time.time(); qe(q); ts.append(time.time() - t)
    t = time.time()
    for x in texts:
        pe(x)
    rec = time.time() - t
    print(f"{name}: load {load_s:.2f}s, one query median {np.median(ts)*1000:.1f} ms, 1000 records {rec:.1f} s ({rec:.1f} ms each)")
print("loadavg after:", open("/proc/loadavg").read().split()[:3])
