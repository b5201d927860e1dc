# Families of TestFusionSweep settings (CAIRN_FUSION_OUT JSON) cross-validated by conversation, by
# category, with every cell checked against lexical and against now: issue 19 items 1-2, engineer
# rank (bench/RESULTS.md "Ranking: the one-participant speaker lift re-tested, and gated feedback").
# Each fold picks, among a family's settings, the one with the largest sum of turn recall@1..50 and
# MRR on the other conversations and scores it on the one held out (as bench/rk-cv.py and
# TestFusionSweep do).
# Usage: python3 bench/rk-fam.py SWEEP.json... [-fam NAME=REGEX]... [-row NAME=REGEX]...
#   several sweeps' JSON are merged (the first's copy of a setting kept); -fam: the settings whose
#   key matches REGEX (re.search) as one family, cross-validated; -row: one setting in-sample (the
#   first key matching); -vs NAME=REGEX: one more setting the cells are checked against. Printed:
#   each fold's choice, the table by category, and per family and row the cells below lexical,
#   below now and below each -vs, in questions (points × questions / 100).
import json, re, sys
args = sys.argv[1:]
sw = {}
for f in [a for a in args if a.endswith('.json')]:
    for k, v in json.load(open(f)).items():
        sw.setdefault(k, v)
now = 'hybrid lex 1.00 vec 0.50 k 0 m false s 0.00 lean 0.50 by 4 ctx 0.30 dates 0.50'
ks = ['1', '5', '10', '25', '50']
def opt(flag):
    return [args[i + 1] for i, a in enumerate(args) if a == flag]
def obj(qs):
    return sum(sum(q['Scores']['TurnRecall'][c] for c in ks) + q['Scores']['MRR'] for q in qs) / max(len(qs), 1)
convs = sorted(set(q['Conv'] for q in sw['lexical']))
def short(k):
    return k.replace(now, 'now')
def cv(fam, label):
    out = []
    for c in convs:
        best = max(fam, key=lambda k: obj([q for q in sw[k] if q['Conv'] != c]))
        print(f'  {label}: held out {c} chose {short(best)}', file=sys.stderr)
        out += [q for q in sw[best] if q['Conv'] == c]
    return out
rows = [('lexical', sw['lexical'])]
if now in sw:
    rows.append(('now (dates 0.5)', sw[now]))
for spec in opt('-row'):
    name, rx = spec.split('=', 1)
    keys = sorted(k for k in sw if re.search(rx, k))
    if keys:
        rows.append((name + ' (in-sample)', sw[keys[0]]))
    else:
        print(f'no setting matches {rx!r}', file=sys.stderr)
for spec in opt('-fam'):
    name, rx = spec.split('=', 1)
    fam = sorted(k for k in sw if re.search(rx, k))
    print(f'family {name}: {len(fam)} settings: {[short(k) for k in fam]}', file=sys.stderr)
    if fam:
        rows.append((name + ', cross-validated', cv(fam, name)))
cats = [None, 'multi-hop', 'temporal', 'open-domain', 'single-hop']
def cells(qs):
    n = len(qs)
    return [sum(q['Scores']['TurnRecall'][k] for q in qs) / n * 100 for k in ks] + [sum(q['Scores']['MRR'] for q in qs) / n * 100]
def sel(qs, cat):
    return [q for q in qs if cat is None or q['Category'] == cat]
print('| category (questions) | setting | @1 | @5 | @10 | @25 | @50 | MRR |')
print('|---|---|---:|---:|---:|---:|---:|---:|')
for cat in cats:
    for i, (name, qs) in enumerate(rows):
        s = sel(qs, cat)
        label = f"{cat or 'all'} ({len(s)})" if i == 0 else ''
        print(f"| {label} | {name} | {' | '.join(f'{x:.1f}' for x in cells(s))} |")
names = ['@1', '@5', '@10', '@25', '@50', 'MRR']
refs = rows[:2]
for spec in opt('-vs'):
    name, rx = spec.split('=', 1)
    keys = sorted(k for k in sw if re.search(rx, k))
    if keys:
        refs.append((name, sw[keys[0]]))
print()
for name, qs in rows[1:]:
    for refname, ref in refs:
        if ref is qs:
            continue
        below = []
        for cat in cats:
            a, b = cells(sel(qs, cat)), cells(sel(ref, cat))
            n = len(sel(qs, cat))
            for j in range(6):
                if a[j] < b[j] - 1e-9:
                    below.append(f"{cat or 'all'} {names[j]} {b[j]:.1f}->{a[j]:.1f} ({(a[j] - b[j]) * n / 100:+.2f} q)")
        print(f"{name} below {refname}: {'; '.join(below) if below else 'none'}")
