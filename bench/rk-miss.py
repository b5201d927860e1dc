#!/usr/bin/env python3
"""Where the LoCoMo misses are: for every evidence turn of a question the
hybrid default misses at @10, what the turn looks like against the query.

Usage:
  python3 bench/rk-miss.py -data ../shared/data/locomo/locomo-dev.json \
      -hybrid DEF50.json [-deep LV100.json] [-setting REGEX] [-list N]

DEF50.json and LV100.json are TestFusionSweep's per-question JSON
(CAIRN_FUSION_OUT) written with CAIRN_FUSION_TURNS=1: DEF50 the default at
the eval's limit 50, LV100 (CAIRN_FUSION_VECTOR=1, CAIRN_FUSION_LIMIT=100)
the lexical and vector lanes alone 100 deep. -setting picks the hybrid
setting of DEF50 (the first hybrid one by default).

For each evidence turn not in the first 10 of its question it reads:
- its place in the hybrid list (11-25, 26-50, beyond), and in each lane
  alone at 100;
- the question's content words it holds (lower case, a crude stem, the
  conversation's two participants' names and common words left out), and
  those its previous and next turns hold;
- whether another turn of its session, or its neighbour (one turn either
  side), is in the first 10;
- whether it is spoken by the participant the question names.

The LoCoMo data is read for evaluation only; nothing of it is written
outside the output this prints.
"""
import argparse
import collections
import json
import re
import sys

STOP = set("""a an the and or but if of to in on at by for with from about as into over after before
between through during without within up down out off than then so such too very can could
will would shall should may might must do does did done doing have has had having be is are was
were been being am i you he she it we they me him her us them my your his its our their mine
yours hers ours theirs this that these those what which who whom whose when where why how all
any both each few more most other some no nor not only own same just also ever still yet there
here s t don now get got gets go goes going went make made like likely one two kind way ways
thing things something anything someone time times""".split())


def stem(w):
    w = w.lower()
    for suf in ("'s", "ies", "ing", "ed", "es", "s"):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            return w[: -len(suf)] + ("y" if suf == "ies" else "")
    return w


def words(text, drop):
    out = set()
    for w in re.findall(r"[A-Za-z][A-Za-z']*", text):
        lw = w.lower().rstrip("'")
        if lw.endswith("'s"):
            lw = lw[:-2]
        if lw in STOP or lw in drop or len(lw) < 3:
            continue
        out.add(stem(lw))
    return out


def load_turns(path):
    data = json.load(open(path))
    conv = {}
    for s in data:
        c = s["conversation"]
        names = {c["speaker_a"].lower(), c["speaker_b"].lower()}
        turns = {}
        order = []
        for k in sorted((k for k in c if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1])):
            n = int(k.split("_")[1])
            for i, t in enumerate(c[k]):
                text = (t.get("text") or "").strip()
                if t.get("blip_caption"):
                    text += " [shared an image: " + t["blip_caption"] + "]"
                tid = "D%d:%d" % (n, i + 1)
                turns[tid] = (t["speaker"], text)
                order.append(tid)
        conv[s["sample_id"]] = (names, turns, order)
    return conv


def pick(rows, regex, mode):
    for k, v in rows.items():
        if mode == "hybrid" and k.startswith("hybrid") and (regex is None or re.search(regex, k)):
            return k, v
        if k == mode:
            return k, v
    sys.exit("no setting %s (%s) in %s" % (mode, regex, list(rows)))


def bucket(r, cuts=(10, 25, 50, 100)):
    if r == 0:
        return ">%d" % cuts[-1]
    for c in cuts:
        if r <= c:
            return "<=%d" % c
    return ">%d" % cuts[-1]


def rank_of(turns, tid):
    try:
        return turns.index(tid) + 1
    except ValueError:
        return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-data", required=True)
    ap.add_argument("-hybrid", required=True)
    ap.add_argument("-deep")
    ap.add_argument("-setting")
    ap.add_argument("-list", type=int, default=0)
    a = ap.parse_args()
    conv = load_turns(a.data)
    _, hyb = pick(json.load(open(a.hybrid)), a.setting, "hybrid")
    lexq = vecq = None
    if a.deep:
        deep = json.load(open(a.deep))
        lexq = {(q["Conv"], q["Question"]): q for q in pick(deep, None, "lexical")[1]}
        vecq = {(q["Conv"], q["Question"]): q for q in pick(deep, None, "vector")[1]}
    rows = []
    for q in hyb:
        names, turns, order = conv[q["Conv"]]
        top10 = q.get("Turns", [])[:10]
        if not q.get("Turns") and any(q["Ranks"]):
            sys.exit("the hybrid JSON has no Turns: run the sweep with CAIRN_FUSION_TURNS=1")
        qw = words(q["Question"], names)
        named = [n for n in names if re.search(r"\b%s\b" % re.escape(n), q["Question"].lower())]
        for tid, r in zip(q["Evidence"], q["Ranks"]):
            if 0 < r <= 10:
                continue
            spk, text = turns[tid]
            sess = tid.split(":")[0]
            i = order.index(tid)
            prev = order[i - 1] if i > 0 and order[i - 1].split(":")[0] == sess else None
            nxt = order[i + 1] if i + 1 < len(order) and order[i + 1].split(":")[0] == sess else None
            tw = words(text, names)
            row = dict(conv=q["Conv"], cat=q["Category"], q=q["Question"], tid=tid, hyb=r,
                       nq=len(qw), hold=len(qw & tw), held=sorted(qw & tw), text=text, spk=spk,
                       prev_hold=len(qw & words(turns[prev][1], names)) if prev else 0,
                       next_hold=len(qw & words(turns[nxt][1], names)) if nxt else 0,
                       sess_in10=any(t.split(":")[0] == sess for t in top10),
                       nb_in10=any(t in top10 for t in (prev, nxt) if t),
                       named=len(named), by_named=len(named) == 1 and spk.lower() == named[0],
                       nev=len(q["Evidence"]), nsess=len({e.split(":")[0] for e in q["Evidence"]}),
                       tlen=len(text.split()))
            if lexq is not None:
                key = (q["Conv"], q["Question"])
                row["lex"] = rank_of(lexq[key].get("Turns") or [], tid) if key in lexq else 0
                row["vec"] = rank_of(vecq[key].get("Turns") or [], tid) if key in vecq else 0
            rows.append(row)
    total_ev = collections.Counter(q["Category"] for q in hyb for _ in q["Evidence"])
    print("questions %d, evidence turns %d, missed at @10: %d" % (len(hyb), sum(total_ev.values()), len(rows)))
    cats = ["multi-hop", "temporal", "open-domain", "single-hop"]

    def table(title, key, order_=None):
        print("\n### %s\n" % title)
        c = collections.defaultdict(collections.Counter)
        for r in rows:
            c[r["cat"]][key(r)] += 1
            c["all"][key(r)] += 1
        vals = order_ or sorted({key(r) for r in rows}, key=str)
        print("| category (missed turns / evidence turns) | " + " | ".join(str(v) for v in vals) + " |")
        print("|---|" + "---:|" * len(vals))
        for cat in cats + ["all"]:
            n = sum(c[cat].values())
            tot = sum(total_ev.values()) if cat == "all" else total_ev[cat]
            print("| %s (%d / %d) | " % (cat, n, tot) + " | ".join("%d" % c[cat][v] for v in vals) + " |")

    table("Place in the hybrid list (limit 50)", lambda r: bucket(r["hyb"], (25, 50)), ["<=25", "<=50", ">50"])
    if lexq is not None:
        table("Lexical lane alone, 100 deep", lambda r: bucket(r["lex"]), ["<=10", "<=25", "<=50", "<=100", ">100"])
        table("Vector lane alone, 100 deep", lambda r: bucket(r["vec"]), ["<=10", "<=25", "<=50", "<=100", ">100"])

        def lanes(r):
            l, v = 0 < r["lex"] <= 50, 0 < r["vec"] <= 50
            return "both" if l and v else "lex only" if l else "vec only" if v else "neither"
        table("In a lane's first 50", lanes, ["both", "lex only", "vec only", "neither"])

        def best(r):
            b = min(x for x in (r["lex"], r["vec"], 10**6) if x > 0)
            return bucket(0 if b == 10**6 else b)
        table("Better lane's place", best, ["<=10", "<=25", "<=50", "<=100", ">100"])
    table("Question words the turn holds", lambda r: min(r["hold"], 3), [0, 1, 2, 3])
    table("Turn holds none; its previous or next turn holds one", lambda r: "n/a" if r["hold"] else
          ("prev" if r["prev_hold"] else "next" if r["next_hold"] else "neither"), ["prev", "next", "neither", "n/a"])
    table("Its session has a turn in the first 10", lambda r: "yes" if r["sess_in10"] else "no", ["yes", "no"])
    table("A neighbour (one turn either side) in the first 10", lambda r: "yes" if r["nb_in10"] else "no", ["yes", "no"])
    table("The question names one participant; the turn is theirs", lambda r: "no name" if r["named"] == 0 else
          "two" if r["named"] > 1 else ("theirs" if r["by_named"] else "the other's"), ["theirs", "the other's", "two", "no name"])
    table("Evidence sessions of the question", lambda r: min(r["nsess"], 4), [1, 2, 3, 4])
    table("Turn length in words", lambda r: "<10" if r["tlen"] < 10 else "<25" if r["tlen"] < 25 else "<50" if r["tlen"] < 50 else ">=50",
          ["<10", "<25", "<50", ">=50"])
    if lexq is not None:
        def shape(r):
            reach = min(x for x in (r["lex"], r["vec"], 10**6) if x > 0)
            if reach <= 50:
                return "a lane has it (<=50)"
            if r["hold"]:
                return "holds a word, lanes miss"
            if r["prev_hold"] or r["next_hold"]:
                return "a neighbour holds a word"
            return "no word here or beside"
        table("Summary", shape, ["a lane has it (<=50)", "holds a word, lanes miss", "a neighbour holds a word", "no word here or beside"])
    for r in rows[: a.list]:
        print("\n- %s %s %s hyb %s lex %s vec %s hold %s %s\n  Q: %s\n  T (%s): %s" % (
            r["conv"], r["cat"], r["tid"], r["hyb"], r.get("lex"), r.get("vec"), r["hold"], r["held"], r["q"], r["spk"], r["text"][:300]))


if __name__ == "__main__":
    main()
