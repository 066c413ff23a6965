#!/usr/bin/env python3
"""The layout rules of docs/design/README.md, checked on the sources (a CTest test and a CI step).

- core/ never includes Qt; core/'s folders depend on each other in one direction only (the order
  of LAYERS below, a folder may include its own and lower folders); no include cycle between any
  two folders of core/, cli/ or widgets/;
- a private header (internal.h) is included only from its own folder (tests and benchmarks may
  reach in: they check and time the internals);
- widgets/models/ never includes the widgets around it; cli/ never includes net/ or widgets/;
- core/'s top level holds folders and CMakeLists.txt only.
Prints every violation as file:line: reason and exits 1 when there is one.
"""
import os, re, sys
from collections import defaultdict

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '..'))
LAYERS = ['util', 'model', 'tokens', 'analysis', 'formats', 'io', 'strategy', 'llm', 'strategies', 'workflow', 'cost', 'generator', 'sessions', 'report', 'redact']
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')
problems = []

def unit(path):
    """The folder an include edge is counted between: core/<layer>, widgets/<area>, cli, app."""
    parts = path.split('/')
    if parts[0] in ('core', 'widgets') and len(parts) > 2:
        return parts[0] + '/' + parts[1]
    return parts[0]

sources = []
for top in ('core', 'cli', 'widgets', 'app', 'tests', 'bench'):
    for d, _, files in os.walk(os.path.join(ROOT, top)):
        for f in files:
            if f.endswith(('.h', '.cpp')):
                sources.append(os.path.relpath(os.path.join(d, f), ROOT))

graph = defaultdict(set)
edge_where = {}
for src in sorted(sources):
    with open(os.path.join(ROOT, src), encoding='utf-8') as fh:
        for n, line in enumerate(fh, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            quote, inc = m.groups()
            if src.startswith('core/') and quote == '<' and re.match(r'Q[A-Za-z]|qt', inc):
                problems.append(f'{src}:{n}: core includes Qt ({inc})')
            if quote != '"' or '/' not in inc:
                continue
            if os.path.basename(inc) == 'internal.h' or inc.endswith('_internal.h'):
                if os.path.dirname(inc) != os.path.dirname(src) and not src.startswith(('tests/', 'bench/')):
                    problems.append(f'{src}:{n}: private header {inc} included from another folder')
            if src.startswith('widgets/models/') and inc.startswith('widgets/') and not inc.startswith('widgets/models/'):
                problems.append(f'{src}:{n}: an item model includes a widget header ({inc})')
            if src.startswith('core/') and not inc.startswith('core/'):
                problems.append(f'{src}:{n}: core includes {inc} from outside core')
            if src.startswith('cli/') and inc.startswith(('net/', 'widgets/')):
                problems.append(f'{src}:{n}: cli includes {inc} (the program registers what it needs)')
            a, b = unit(src), unit(inc)
            if a == b or src.startswith(('tests/', 'bench/')):
                continue
            graph[a].add(b)
            edge_where.setdefault((a, b), f'{src}:{n}')
            if a.startswith('core/') and b.startswith('core/'):
                la, lb = a.split('/')[1], b.split('/')[1]
                if la in LAYERS and lb in LAYERS and LAYERS.index(lb) > LAYERS.index(la):
                    problems.append(f'{src}:{n}: {la}/ includes the higher layer {lb}/ ({inc})')
                for layer in (la, lb):
                    if layer not in LAYERS:
                        problems.append(f'{src}:{n}: core/{layer}/ is not a known layer (scripts/check-layout.py)')

# Cycles between folders (Tarjan's strongly connected components).
index, low, stack, on, comps = {}, {}, [], set(), []
def visit(v):
    index[v] = low[v] = len(index); stack.append(v); on.add(v)
    for w in graph[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        comp = []
        while True:
            w = stack.pop(); on.discard(w); comp.append(w)
            if w == v:
                break
        if len(comp) > 1:
            comps.append(sorted(comp))
for v in list(graph):
    if v not in index:
        visit(v)
for comp in comps:
    edges = [f'{a} -> {b} ({edge_where[(a, b)]})' for a in comp for b in sorted(graph[a]) if b in comp]
    problems.append('include cycle between ' + ', '.join(comp) + ':\n    ' + '\n    '.join(edges))

top = [e for e in os.listdir(os.path.join(ROOT, 'core')) if os.path.isfile(os.path.join(ROOT, 'core', e))]
for f in sorted(set(top) - {'CMakeLists.txt'}):
    problems.append(f'core/{f}: a file at the top of core/ (it belongs in one of its folders)')

for p in sorted(set(problems)):
    print(p)
print(f'{len(sources)} sources, {sum(len(v) for v in graph.values())} folder dependencies, {len(set(problems))} problems',
      file=sys.stderr)
sys.exit(1 if problems else 0)
