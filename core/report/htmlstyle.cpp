// SPDX-License-Identifier: MIT
// The report's inline style sheet: light by default, dark under prefers-color-scheme: dark. The
// chart colours are the GUI's (priority classes as widgets/models/prioritycolors.h; series colours
// as the usage chart), so that a report looks like the window it comes from.
#include "core/report/htmlstyle.h"

namespace cl::report {

std::string_view reportCss()
{
    return R"css(
:root {
  color-scheme: light dark;
  --bg: #ffffff; --fg: #1d1f23; --muted: #5f6672; --line: #d5d9e0; --panel: #f5f7fa; --accent: #1f6fd1;
  --measured: #1f6fd1; --estimated: #e8710a; --compaction: #c5221f; --window: #7d8590; --grid: #e4e7ec;
  --ok: #1e8e3e; --bad: #c5221f;
  --p-sacred: #7d4bbe; --p-critical: #d73232; --p-high: #f08c28; --p-medium: #ebcd46; --p-low: #8cb9e6;
  --p-lowest: #c8cbd0; --p-excluded: #e6e6e6;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #17191d; --fg: #e6e8eb; --muted: #9aa3ad; --line: #353a42; --panel: #20242a; --accent: #6aa6f0;
    --measured: #6aa6f0; --estimated: #f29d4b; --compaction: #f06b66; --window: #8b949e; --grid: #2b3038;
    --ok: #5cc878; --bad: #f06b66;
    --p-sacred: #af82eb; --p-critical: #eb5f5f; --p-high: #f09b46; --p-medium: #d7c355; --p-low: #558cc8;
    --p-lowest: #5f646e; --p-excluded: #3c3c3c;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 4px 0 2px; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 18px 0 6px; }
p.sub, .muted { color: var(--muted); }
p.sub { margin: 0 0 10px; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 8px; margin: 8px 0; }
.card { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 6px 10px; }
.card .v { font-size: 18px; font-weight: 600; }
.card .k { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0 10px; font-size: 13px; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.unchanged td { color: var(--muted); }
.ok { color: var(--ok); } .bad { color: var(--bad); }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; font-size: 12px; color: var(--muted); margin: 4px 0; }
.sw { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
.ln { display: inline-block; width: 18px; height: 0; border-top: 3px solid; margin-right: 4px; vertical-align: 3px; }
svg.chart { display: block; }
svg.map { height: 36px; border: 1px solid var(--line); }
svg.bar { height: 32px; border: 1px solid var(--line); }
svg text { font: 11px system-ui, "DejaVu Sans", sans-serif; fill: var(--muted); }
.plot { fill: var(--bg); stroke: var(--line); }
.grid { stroke: var(--grid); stroke-width: 1; }
.series-measured, .series-estimated { fill: none; stroke-width: 2.5; stroke-linejoin: round; }
.series-measured { stroke: var(--measured); } .dot-measured { fill: var(--measured); }
.series-estimated { stroke: var(--estimated); } .dot-estimated { fill: var(--estimated); }
.compaction { stroke: var(--compaction); stroke-width: 2; stroke-dasharray: 6 4; }
.window-line { stroke: var(--window); stroke-width: 1.5; stroke-dasharray: 2 3; }
.cut { stroke: var(--fg); stroke-width: 2.5; }
.ln.measured { border-color: var(--measured); } .ln.estimated { border-color: var(--estimated); }
.ln.compaction { border-top-style: dashed; border-color: var(--compaction); }
.ln.window { border-top-style: dotted; border-color: var(--window); }
.p-sacred { fill: var(--p-sacred); background: var(--p-sacred); }
.p-critical { fill: var(--p-critical); background: var(--p-critical); }
.p-high { fill: var(--p-high); background: var(--p-high); }
.p-medium { fill: var(--p-medium); background: var(--p-medium); }
.p-low { fill: var(--p-low); background: var(--p-low); }
.p-lowest { fill: var(--p-lowest); background: var(--p-lowest); }
.p-excluded { fill: var(--p-excluded); background: var(--p-excluded); }
.k0 { fill: #4e79a7; background: #4e79a7; } .k1 { fill: #f28e2b; background: #f28e2b; }
.k2 { fill: #59a14f; background: #59a14f; } .k3 { fill: #e15759; background: #e15759; }
.k4 { fill: #76b7b2; background: #76b7b2; } .k5 { fill: #edc948; background: #edc948; }
.k6 { fill: #b07aa1; background: #b07aa1; } .k7 { fill: #ff9da7; background: #ff9da7; }
.k8 { fill: #9c755f; background: #9c755f; } .k9 { fill: #bab0ac; background: #bab0ac; }
.k10 { fill: #86bcb6; background: #86bcb6; } .k11 { fill: #d37295; background: #d37295; }
.sp-free { fill: var(--panel); background: var(--panel); }
.sp-reserved { fill: var(--grid); background: var(--grid); }
.facts { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.facts ul { margin: 4px 0; padding-left: 18px; }
.kind { font-size: 11px; color: var(--muted); border: 1px solid var(--line); border-radius: 3px; padding: 0 4px; margin-right: 4px; }
pre { background: var(--panel); border: 1px solid var(--line); border-radius: 4px; padding: 8px; white-space: pre-wrap;
  word-break: break-word; max-height: 360px; overflow: auto; font-size: 12px; }
details > summary { cursor: pointer; color: var(--accent); }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
)css";
}

} // namespace cl::report
