# Routing by the kind of question, measured offline from TestFusionSweep's per-question JSON
# (CAIRN_FUSION_OUT): issue 19 items 1-2, engineer rank, session 12-04 (bench/RESULTS.md "Ranking:
# feedback by the kind of question, neighbours mixed into the vector key").
# Each question's lanes depend on it alone, so a search that picks its vector index by the question's
# kind returns, for each question, what the sweep over that index returned. Sweeps over different
# indexes (a copy with mixed vectors, TestNeighbourVectors CAIRN_NEIGHBOUR=mixprev) name their
# settings alike, so each file's keys get its tag.
# Usage: python3 bench/rk-route.py OUT.json -base REGEX FILE.json[=TAG]...
#   writes every setting of every file (key + ' ' + TAG when tagged; the first copy kept) and, for each
#   tagged setting, KEY + ' routed': the -base setting's result (the first key matching REGEX among the
#   untagged) for a question whose first word is "when", the tagged setting's for the others. Then run
#   bench/rk-fam.py OUT.json with families over the routed keys.
import json, re, sys
args = sys.argv[1:]
out_path = args[0]
base_rx = args[args.index('-base') + 1]
files = [a for i, a in enumerate(args[1:], 1) if args[i - 1] != '-base' and a != '-base']
merged, tagged = {}, []
for spec in files:
    path, _, tag = spec.partition('=')
    for k, v in json.load(open(path)).items():
        key = k if k == 'lexical' or not tag else k + ' ' + tag
        if key not in merged:
            merged[key] = v
            if tag and k != 'lexical':
                tagged.append(key)
base = sorted(k for k in merged if k not in tagged and re.search(base_rx, k))
if not base:
    sys.exit(f'no untagged setting matches {base_rx!r}')
base = merged[base[0]]
def asks_when(q):
    w = re.findall(r"[a-z0-9']+", q.lower())
    return bool(w) and w[0] == 'when'
for key in tagged:
    rows = []
    for b, t in zip(base, merged[key]):
        if (b['Conv'], b['Question']) != (t['Conv'], t['Question']):
            sys.exit(f'{key}: questions out of step with the base')
        rows.append(b if asks_when(b['Question']) else t)
    merged[key + ' routed'] = rows
json.dump(merged, open(out_path, 'w'))
print(f'{len(merged)} settings, {len(tagged)} routed', file=sys.stderr)
