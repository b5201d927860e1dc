# Tables of bench/RESULTS.md "Ranking: a speaker lift" from TestFusionSweep's JSON (CAIRN_FUSION_OUT):
# each family (now, now + speaker always, now + speaker when the lexical lane is unsure) chosen by
# leave-one-conversation-out cross-validation on the sum of turn recall@1..50 and MRR, by category.
# Usage: python3 bench/rk-cv.py SWEEP.json...  (several sweeps' JSON are merged, the first's setting kept)
import json,sys
sw={}
for f in [a for a in sys.argv[1:] if a.endswith('.json')]:
    for k,v in json.load(open(f)).items(): sw.setdefault(k,v)
base='hybrid lex 1.00 vec 0.50 k 0 m false s 0.00 lean 0.50 by 4 ctx 0.30 dates 0.50'
ks=['1','5','10','25','50']
def obj(qs):
    return sum(sum(q['Scores']['TurnRecall'][c] for c in ks)+q['Scores']['MRR'] for q in qs)/max(len(qs),1)
convs=sorted(set(q['Conv'] for q in sw[base]))
def cv(fam,label):
    out=[]
    for c in convs:
        best=max(fam,key=lambda k: obj([q for q in sw[k] if q['Conv']!=c]))
        print(f'  {label}: held out {c} chose {best.replace(base,"now")}',file=sys.stderr)
        out+=[q for q in sw[best] if q['Conv']==c]
    return out
def family(wide, by):
    out=[base]
    for k in sw:
        rest=k[len(base):]
        if not k.startswith(base+' speaker'): continue
        w=float(rest.split()[1])
        if (' by ' in rest)==by and (wide or w<=0.5): out.append(k)
    return out
before='hybrid lex 1.00 vec 0.50 k 0 m false s 0.00 lean 0.50 by 4 ctx 0.30'
rows=[('lexical',sw.get('lexical')),('ce521c9 (no date lift)',sw.get(before)),('now (dates 0.5)',sw[base])]
rows.append(('speaker 0.1-0.5, cross-validated',cv(family(False,False),'speaker')))
rows.append(('speaker 0.1-0.5 when lexical unsure, cross-validated',cv(family(False,True),'unsure')))
wide=family(True,False)
if len(wide)>len(family(False,False)):
    rows.append(('speaker 0.1-1, cross-validated',cv(wide,'speaker wide')))
    rows.append(('speaker 0.1-1 when unsure (any kind), cross-validated',cv(family(True,True),'unsure wide')))
if '-all' in sys.argv[1:]:
    for k in sorted(set(family(True,False)+family(True,True))-{base}):
        rows.append((k.replace(base+' ','')+' (in-sample)',sw[k]))
def row(qs):
    n=len(qs); return ' | '.join(f"{x:.1f}" for x in [sum(q['Scores']['TurnRecall'][k] for q in qs)/n*100 for k in ks]+[sum(q['Scores']['MRR'] for q in qs)/n*100])
print('| category (questions) | setting | @1 | @5 | @10 | @25 | @50 | MRR |')
print('|---|---|---:|---:|---:|---:|---:|---:|')
for cat in [None,'multi-hop','temporal','open-domain','single-hop']:
    first=True
    for name,qs in rows:
        if qs is None: continue
        s=[q for q in qs if cat is None or q['Category']==cat]
        print(f"| {(cat or 'all')+f' ({len(s)})' if first else ''} | {name} | {row(s)} |")
        first=False
