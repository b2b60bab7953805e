#!/usr/bin/env python3
"""Writes a synthetic search set where each identifier is named by one record only, among
twelve records per identifier that repeat its words (`refresh token ttl`) without naming it.

A stress probe of one ranking rule (a query made of identifiers names one thing), not a
quality set: `python3 scripts/identifier-probe.py /tmp/probe && cmem dev eval-search /tmp/probe`.
"""
import json
import os
import random
import re
import sys

IDENTIFIERS = [
    "refresh_token_ttl", "X-Api-Key", "orders.customer_id", "getUserInfo", "--dry-run",
    "@vitest/coverage-v8", "react@18.3.1", "api/v1/orders", "ERR_OSSL_EVP_UNSUPPORTED",
    "pg_stat_statements", "ctx.Done()", "Result<Invoice>", "std::sync::Arc", "MAX_RETRIES",
    "user_id", "HTTP/2", "CVE-2024-3094", "max_connections", "onViewCreated",
    "SESSION_COOKIE_AGE",
]
FILLER = [
    "the checkout page renders totals after the cart loads", "nightly cron prunes sessions",
    "deploy pipeline pushes images", "invoices show wrong currency",
    "search box debounces keystrokes",
]


def observation(key, title, subtitle, narrative):
    return {"key": key, "type": "change", "title": title, "subtitle": subtitle,
            "narrative": narrative, "facts": [], "concepts": ["what-changed"],
            "files_read": [], "files_modified": []}


def main(out_dir):
    rng = random.Random(3)
    sessions, queries = [], []
    for i, name in enumerate(IDENTIFIERS):
        key = f"p{i:02d}"
        sessions.append({"key": key, "day": 1 + i % 20, "prompts": [f"look at {FILLER[i % 5]}"],
                         "observations": [observation(
                             f"{key}.1", f"Tuned {FILLER[i % 5][:25]}",
                             f"set {name} where it mattered",
                             f"The module now refers to {name} explicitly; "
                             f"{FILLER[(i + 1) % 5]}. Tests pass.")]})
        parts = [p for p in re.split(r"[^A-Za-z0-9]+|(?<=[a-z])(?=[A-Z])", name) if p]
        for j in range(12):
            decoy = f"d{i:02d}{j:02d}"
            words = " ".join(rng.choice(parts) for _ in range(4))
            sessions.append({"key": decoy, "day": 1 + j, "prompts": [f"about {words}"],
                             "observations": [observation(
                                 f"{decoy}.1", f"{words.capitalize()} handling changed",
                                 f"{' '.join(parts)} again",
                                 f"We touched {words} and {' '.join(parts).lower()} in several "
                                 f"places; {FILLER[j % 5]}.")]})
        queries.append({"kind": "identifier", "query": name, "expect": [f"{key}.1"]})
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "probe.json"), "w", encoding="utf-8") as f:
        json.dump({"project": "probe", "about": "identifiers among decoys holding their words",
                   "sessions": sessions, "queries": queries}, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/identifier-probe")
