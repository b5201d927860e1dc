#!/usr/bin/env python3
"""Blind hand-judging of lexical against hybrid search on any corpus.

Three steps, each a subcommand; files live in one work folder (--dir):

  run    QUERIES  searches every query (one a line) in each mode with
                  `cairn search --json --limit K`, keeps the raw answers in
                  runs.json.
  blind           writes blind.tsv (the distinct hits of each query, shuffled
                  with a fixed seed, no mode in it) and blind.txt (each hit's
                  indexed text, read with `cairn get`, to judge from). Copy
                  blind.tsv to judged.tsv and fill its rel (1 or 0) and reason
                  columns by reading blind.txt.
  join            joins judged.tsv back to the modes: per query, the rank of
                  the first relevant hit in each mode, and in total the queries
                  with a relevant top-1 and top-K hit.

The cairn binary and CAIRN_HOME come from --cairn and the environment.
--cairn NAME=BINARY, given more than once, runs each build in each mode
(systems named NAME/MODE, in the order given) over the same CAIRN_HOME,
and blind pools the hits of every build, so the judge cannot tell which
build found a hit: two builds of one index, before and after a ranking
change, judged in one pool. `blind` reads the texts with the first build.
No corpus text is kept in the repository: the work folder holds it.
"""

import argparse
import json
import os
import random
import subprocess
import sys

MODES = ("lexical", "hybrid")


def cairn(args, binary):
    out = subprocess.run([binary] + args, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("cairn %s: %s" % (" ".join(args), out.stderr.strip()))
    return out.stdout


def hit_key(h):
    return "%s:%d-%d" % (h["path"], h["startLine"], h["endLine"])


def builds(a):
    """The builds of --cairn: [(name, binary)]; one unnamed build is ("", BINARY)."""
    out = []
    for c in a.cairn or ["cairn"]:
        name, sep, binary = c.partition("=")
        out.append((name, binary) if sep else ("", c))
    return out


def systems(a):
    """The (system, binary, mode) searched: MODE alone for one unnamed build, else NAME/MODE."""
    bs = builds(a)
    if len(bs) == 1 and not bs[0][0]:
        return [(m, bs[0][1], m) for m in MODES]
    return [("%s/%s" % (n, m), b, m) for n, b in bs for m in MODES]


def cmd_run(a):
    with open(a.queries) as f:
        queries = [q.strip() for q in f if q.strip() and not q.startswith("#")]
    runs = []
    names = [s for s, _, _ in systems(a)]
    for i, q in enumerate(queries, 1):
        row = {"qid": i, "query": q}
        for s, binary, m in systems(a):
            js = json.loads(cairn(["search", q, "--mode", m, "--json", "--limit", str(a.limit)], binary))
            row[s] = [hit_key(h) for h in js.get("results", [])]
        runs.append(row)
    with open(os.path.join(a.dir, "runs.json"), "w") as f:
        json.dump({"limit": a.limit, "systems": names, "runs": runs}, f, indent=1)
    print("%d queries searched by %s" % (len(runs), ", ".join(names)))


def run_systems(data):
    return data.get("systems", list(MODES))


def cmd_blind(a):
    with open(os.path.join(a.dir, "runs.json")) as f:
        data = json.load(f)
    runs, names = data["runs"], run_systems(data)
    binary = builds(a)[0][1]
    rng = random.Random(a.seed)
    rows = []
    for r in runs:
        hits = sorted({k for m in names for k in r[m]})
        rng.shuffle(hits)
        rows += [(r["qid"], r["query"], k) for k in hits]
    with open(os.path.join(a.dir, "blind.tsv"), "w") as tsv, open(os.path.join(a.dir, "blind.txt"), "w") as txt:
        tsv.write("qid\thit\trel\treason\n")
        for qid, q, k in rows:
            tsv.write("%d\t%s\t\t\n" % (qid, k))
            path, rng_ = k.rsplit(":", 1)
            start, end = (int(x) for x in rng_.split("-"))
            js = json.loads(cairn(["get", path, "--from", str(start), "--lines", str(end - start + 1), "--json"], binary))
            text = js.get("text") or js.get("content") or json.dumps(js)
            txt.write("=== q%d: %s\n--- %s\n%s\n\n" % (qid, q, k, text))
    print("%d distinct hits in blind.tsv" % len(rows))


def cmd_join(a):
    with open(os.path.join(a.dir, "runs.json")) as f:
        data = json.load(f)
    judged = {}
    with open(os.path.join(a.dir, "judged.tsv")) as f:
        next(f)
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 3 or parts[2] not in ("0", "1"):
                sys.exit("judged.tsv: unjudged or malformed row: %r" % line)
            judged[(int(parts[0]), parts[1])] = parts[2] == "1"
    k = data["limit"]
    names = run_systems(data)
    top1 = dict.fromkeys(names, 0)
    topk = dict.fromkeys(names, 0)
    nrel = dict.fromkeys(names, 0)
    print("qid\t" + "\t".join("%s first-rel/rel/hits" % m for m in names) + "\tquery")
    for r in data["runs"]:
        cells = []
        for m in names:
            ranks = [i for i, h in enumerate(r[m], 1) if judged[(r["qid"], h)]]
            first = ranks[0] if ranks else None
            cells.append("%s/%d/%d" % (first or "-", len(ranks), len(r[m])))
            nrel[m] += len(ranks)
            top1[m] += first == 1
            topk[m] += first is not None
        print("%d\t%s\t%s" % (r["qid"], "\t".join(cells), r["query"]))
    n = len(data["runs"])
    for m in names:
        print("%s: relevant top-1 %d/%d, top-%d %d/%d, relevant hits %d" % (m, top1[m], n, k, topk[m], n, nrel[m]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", default=".", help="work folder (runs.json, blind.*, judged.tsv)")
    p.add_argument("--cairn", action="append", help="cairn binary, or NAME=BINARY, more than once for several builds (default cairn)")
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run")
    r.add_argument("queries")
    r.add_argument("--limit", type=int, default=3)
    b = sub.add_parser("blind")
    b.add_argument("--seed", type=int, default=1204)
    sub.add_parser("join")
    a = p.parse_args()
    {"run": cmd_run, "blind": cmd_blind, "join": cmd_join}[a.cmd](a)


if __name__ == "__main__":
    main()
