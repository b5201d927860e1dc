# Tables of bench/RESULTS.md "Ranking: a speaker lift" and "Ranking: the speaker lift, its cost and
# its shape" from TestFusionSweep's JSON (CAIRN_FUSION_OUT): each family of settings (the date-lift
# base "now" plus the speaker settings of one shape) chosen by leave-one-conversation-out
# cross-validation on the sum of turn recall@1..50 and MRR, by category, and each cell's questions
# against lexical and against now (-diff).
# Usage: python3 bench/rk-cv.py SWEEP.json... [-all] [-diff SETTING]
#   (several sweeps' JSON are merged, the first's setting kept; -all: every speaker setting in-sample;
#   -diff SETTING: the questions whose turn recall at a cutoff SETTING loses against now or lexical,
#   SETTING as printed after "now ", e.g. "speaker 0.50 one")
import json, re, sys
args = sys.argv[1:]
sw = {}
for f in [a for a in args if a.endswith('.json')]:
    for k, v in json.load(open(f)).items():
        sw.setdefault(k, v)
base = 'hybrid lex 1.00 vec 0.50 k 0 m false s 0.00 lean 0.50 by 4 ctx 0.30 dates 0.50'
ks = ['1', '5', '10', '25', '50']
def obj(qs):
    return sum(sum(q['Scores']['TurnRecall'][c] for c in ks) + q['Scores']['MRR'] for q in qs) / max(len(qs), 1)
convs = sorted(set(q['Conv'] for q in sw[base]))
def cv(fam, label):
    out = []
    for c in convs:
        best = max(fam, key=lambda k: obj([q for q in sw[k] if q['Conv'] != c]))
        print(f'  {label}: held out {c} chose {best.replace(base, "now")}', file=sys.stderr)
        out += [q for q in sw[best] if q['Conv'] == c]
    return out
def shape(k):
    # the speaker setting's shape: (weight, by, one, cap, share) or None
    rest = k[len(base):]
    m = re.fullmatch(r' speaker ([\d.]+)(?: by (\d+))?( one)?(?: cap (\d+))?(?: share ([\d.]+))?', rest)
    if not k.startswith(base) or not m:
        return None
    return float(m[1]), int(m[2] or 0), bool(m[3]), int(m[4] or 0), float(m[5] or 0)
speakers = {k: shape(k) for k in sw if shape(k)}
def family(sel):
    return [base] + [k for k, s in speakers.items() if sel(*s)]
fams = [
    ('speaker 0.1-0.5, cross-validated', lambda w, by, one, cap, sh: w <= 0.5 and not (by or one or cap or sh)),
    ('speaker 0.1-0.5 when lexical unsure, cross-validated', lambda w, by, one, cap, sh: w <= 0.5 and by and not (one or cap or sh)),
    ('speaker 0.1-1, cross-validated', lambda w, by, one, cap, sh: not (by or one or cap or sh)),
    ('speaker when one participant named, cross-validated', lambda w, by, one, cap, sh: one and not (cap or sh)),
    ('speaker capped per session, cross-validated', lambda w, by, one, cap, sh: cap > 0),
    ('speaker by share, cross-validated', lambda w, by, one, cap, sh: sh > 0),
    ('every speaker shape, cross-validated', lambda w, by, one, cap, sh: True),
]
before = 'hybrid lex 1.00 vec 0.50 k 0 m false s 0.00 lean 0.50 by 4 ctx 0.30'
rows = [('lexical', sw.get('lexical')), ('ce521c9 (no date lift)', sw.get(before)), ('now (dates 0.5)', sw[base])]
seen = set()
for name, sel in fams:
    fam = family(sel)
    if len(fam) > 1 and tuple(fam) not in seen:
        seen.add(tuple(fam))
        rows.append((name, cv(fam, name)))
if '-all' in args:
    for k in sorted(speakers):
        rows.append((k.replace(base + ' ', '') + ' (in-sample)', sw[k]))
def row(qs):
    n = len(qs)
    return ' | '.join(f"{x:.1f}" for x in [sum(q['Scores']['TurnRecall'][k] for q in qs) / n * 100 for k in ks] + [sum(q['Scores']['MRR'] for q in qs) / n * 100])
print('| category (questions) | setting | @1 | @5 | @10 | @25 | @50 | MRR |')
print('|---|---|---:|---:|---:|---:|---:|---:|')
for cat in [None, 'multi-hop', 'temporal', 'open-domain', 'single-hop']:
    first = True
    for name, qs in rows:
        if qs is None:
            continue
        s = [q for q in qs if cat is None or q['Category'] == cat]
        print(f"| {(cat or 'all') + f' ({len(s)})' if first else ''} | {name} | {row(s)} |")
        first = False
if '-diff' in args:
    new = base + ' ' + args[args.index('-diff') + 1]
    for ref in ['lexical', base]:
        if ref not in sw:
            continue
        old = {(q['Conv'], q['Question']): q for q in sw[ref]}
        print(f'\nQuestions that lose against {ref.replace(base, "now")} (turn recall, old -> new):')
        for q in sw[new]:
            o = old[(q['Conv'], q['Question'])]
            lost = [f"@{k} {o['Scores']['TurnRecall'][k]:.2f}->{q['Scores']['TurnRecall'][k]:.2f}" for k in ks
                    if q['Scores']['TurnRecall'][k] < o['Scores']['TurnRecall'][k]]
            if lost and ref == base:
                print(f"  {q['Category']:<11} {q['Conv']} {q['Question']!r}: {', '.join(lost)}")
        if ref == 'lexical':
            print('  (per cell below: lexical cells are compared in the table)')
