#!/usr/bin/env python3
"""How many of an observer set's required facts a one-line index row of at most 100 columns
could carry, beside what cmem's rows carry now.

    python3 scripts/eval/row_ceiling.py target/debug/cmem tests/fixtures/observer-dev ...

Prints, over the sets given:
- rule rows: the facts in the first rows of each turn (the titles `cmem dev eval-observer` prints;
  the same count as its "required facts in the index row", without the session-start framing);
- oracle window: the first row replaced by the best stretch of whole words (at most 100
  columns) of the request and the assistant's last message, picked knowing the facts. No rule
  that cuts the turn's own text into one stretch can carry more;
- oracle, either: per turn the better of that stretch and the rule row;
- first sentence: the first row replaced by the last message's first sentence of 4+ words
  (lead-ins like "Done —" dropped), cut at a clause to fit; the rule row where there is none.

Facts match as the evaluation matches them: whole words, any case, backticks ignored; a Han,
kana or Hangul neighbour does not glue to a fact. Reads `--misses` output: run it on dev sets
only, never on a held-out set.
"""
import json
import os
import re
import subprocess
import sys
import unicodedata

CAP = 100


def cjk(c):
    o = ord(c)
    return (0x3000 <= o <= 0x30FF or 0x3400 <= o <= 0x4DBF or 0x4E00 <= o <= 0x9FFF
            or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF or 0xFF00 <= o <= 0xFFEF
            or 0x20000 <= o <= 0x3FFFF)


def loose(s):
    return re.sub(r"\s+", " ", s.replace("`", "")).lower()


def word(c):
    return c is not None and (c.isalnum() or c == "_") and not cjk(c)


def states(text, fact):
    t, f = loose(text), loose(fact)
    i = t.find(f)
    while i >= 0:
        before = t[i - 1] if i > 0 else None
        after = t[i + len(f)] if i + len(f) < len(t) else None
        if not ((word(f[0]) and word(before)) or (word(f[-1]) and word(after))):
            return True
        i = t.find(f, i + 1)
    return False


def found(fact, texts):
    alternatives = [fact] if isinstance(fact, str) else fact
    return any(states(t, a) for a in alternatives for t in texts)


def width(s):
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def titles_by_turn(cmem, fixture_dir):
    out = subprocess.run([cmem, "dev", "eval-observer", fixture_dir, "--misses"],
                         capture_output=True, text=True, check=True).stdout
    turns, current = {}, None
    for line in out.split("\n"):
        if re.match(r"^[0-9]{2}-\S+$", line):
            current = line
            turns[current] = []
        elif current and line.startswith("    title: "):
            turns[current].append(line[len("    title: "):])
        elif line.startswith("measure"):
            current = None
    return turns


def windows(text, cap):
    words = text.split(" ")
    for i in range(len(words)):
        s = ""
        for w in words[i:]:
            longer = f"{s} {w}" if s else w
            if width(longer) > cap:
                break
            s = longer
            yield s


LEAD = re.compile(r"^(done|yep|yes|ok|okay|fixed|found it|good news|all set|sure)\b[^A-Za-z`]*", re.I)


def first_sentence(message):
    for s in re.split(r"(?<=[.!?。！？])\s+", message.replace("\n", " ")):
        s = LEAD.sub("", s.strip()).strip()
        if len(s.split()) >= 4:
            if width(s) <= CAP:
                return s
            kept = ""
            for part in re.split(r"(?<=[,;:—])\s+", s):
                longer = f"{kept} {part}".strip()
                if width(longer) > CAP - 2:
                    break
                kept = longer
            return kept.rstrip(",;:—") + " …" if kept else None
    return None


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmem, sets = sys.argv[1], sys.argv[2:]
    facts = rule = oracle = either = sentence = 0
    for fixture_dir in sets:
        turns = titles_by_turn(cmem, fixture_dir)
        for name in sorted(os.listdir(fixture_dir)):
            if not name.endswith(".json"):
                continue
            with open(os.path.join(fixture_dir, name)) as f:
                turn = json.load(f)
            required = turn.get("required_facts")
            titles = turns.get(name[:-5])
            if not required or not titles:
                continue
            rest = titles[1:]
            count = lambda first: sum(found(f, [first] + rest) for f in required)
            facts += len(required)
            rule += count(titles[0])
            source = f"{turn['prompt']} {turn['last_message']}".replace("\n", " ")
            best = max([count(w) for w in windows(source, CAP)], default=0)
            oracle += best
            either += max(best, count(titles[0]))
            s = first_sentence(turn["last_message"])
            sentence += count(s) if s else count(titles[0])
    share = lambda n: f"{n} of {facts} ({100 * n / max(facts, 1):.1f} %)"
    print(f"rule rows:       {share(rule)}")
    print(f"oracle window:   {share(oracle)}")
    print(f"oracle, either:  {share(either)}")
    print(f"first sentence:  {share(sentence)}")


if __name__ == "__main__":
    main()
