"""The coverage report as one self-contained HTML page: no network, no external assets.

The report's JSON is embedded; the summary charts are inline SVG drawn here; a little vanilla
JavaScript sorts, filters and searches the table and expands a row to its prims and tests.
"""
from __future__ import annotations

import html
import json

# chart segments: traced and assumed prims apart (an assumed row has no traced sample behind it)
STATUS_COLOURS = {"prims": "#2e7d32", "assumed": "#a5d6a7", "partial": "#f9a825", "missing": "#c62828"}


def _bar_chart(title, groups) -> str:
    """Horizontal stacked bars: groups is [(label, {status: count})]."""
    width, bar_h, label_w = 560, 16, 150
    total_max = max((sum(c.get(s, 0) for s in STATUS_COLOURS) for _, c in groups), default=1) or 1
    rows = []
    for i, (label, counts) in enumerate(groups):
        y, x = 24 + i * (bar_h + 6), label_w
        rows.append(f'<text x="{label_w - 6}" y="{y + 12}" text-anchor="end">{html.escape(label)}</text>')
        for status, colour in STATUS_COLOURS.items():
            n = counts.get(status, 0)
            w = (width - label_w - 60) * n / total_max
            if n:
                rows.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{bar_h}" fill="{colour}">'
                            f'<title>{html.escape(label)}: {n} {status}</title></rect>')
            x += w
        total = sum(counts.get(s, 0) for s in STATUS_COLOURS)
        rows.append(f'<text x="{x + 4:.1f}" y="{y + 12}">{counts.get("prims", 0) + counts.get("assumed", 0)}/{total}</text>')
    height = 30 + len(groups) * (bar_h + 6)
    return (f'<figure><figcaption>{html.escape(title)}</figcaption><svg role="img" width="{width}" '
            f'height="{height}" font-size="11">{"".join(rows)}</svg></figure>')


PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>primkit op coverage (torch __VERSION__)</title>
<style>
body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.4em} figure{display:inline-block;margin:0 2em 1em 0;vertical-align:top}
figcaption{font-weight:600;margin-bottom:4px} .legend span{margin-right:1em}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
#controls{margin:1em 0;display:flex;gap:.8em;flex-wrap:wrap;align-items:center}
table{border-collapse:collapse;width:100%} th,td{padding:3px 6px;border-bottom:1px solid #eee;text-align:left}
th{cursor:pointer;background:#f5f5f5;position:sticky;top:0} th[data-dir=asc]::after{content:" \\25B2"}
th[data-dir=desc]::after{content:" \\25BC"} tr.op{cursor:pointer} tr.op:hover{background:#fafafa}
.s-prims{color:#2e7d32}.s-bookkeeping{color:#777} .small{font-size:12px} h2{font-size:1.1em}
table.small{width:auto;margin-bottom:1em}.s-partial{color:#b28704}.s-missing{color:#c62828} code{font-size:12px}
tr.detail td{background:#fbfbfb;font-size:12px} .tag{background:#eee;border-radius:3px;padding:0 4px;margin-right:3px}
</style></head><body>
<h1>primkit op coverage <small>(torch __VERSION__)</small></h1>
<p id="summary">__SUMMARY__</p>
<div class="legend"><span><i style="background:#2e7d32"></i>prims (traced)</span><span><i style="background:#a5d6a7"></i>prims (assumed: no traced sample)</span><span><i style="background:#f9a825"></i>partial</span><span><i style="background:#c62828"></i>missing</span></div>
__CHARTS__
__BLOCKERS__
__PROGRAMS__
<div id="controls">
 <input id="search" type="search" placeholder="search op name" aria-label="search op name">
 <label>status <select id="f-status"><option value="">any</option><option>prims</option><option>partial</option><option>missing</option><option>bookkeeping</option></select></label>
 <label>seen <select id="f-seen"><option value="">any</option><option>traced</option><option>assumed</option></select></label>
 <label>family <select id="f-family"><option value="">any</option>__FAMILIES__</select></label>
 <label>tag <select id="f-tag"><option value="">any</option>__TAGS__</select></label>
 <label><input id="f-tested" type="checkbox"> tested only</label>
 <span id="shown-count"></span>
</div>
<table id="ops"><thead><tr>
 <th data-key="name">overload</th><th data-key="status">status</th><th data-key="seen">seen</th><th data-key="family">family</th>
 <th data-key="nprims">prims</th><th data-key="nopinfo">OpInfo</th><th data-key="tests">tests</th><th data-key="tags">tags</th>
</tr></thead><tbody></tbody></table>
<script id="report-data" type="application/json">__DATA__</script>
<script>
"use strict";
const REPORT = JSON.parse(document.getElementById("report-data").textContent);
const OPS = REPORT.ops.map((op, i) => Object.assign({}, op, {
  index: i, seen: op.traced ? "traced" : "assumed", nprims: op.prims.length, nopinfo: op.opinfo.length, family: op.family || "",
  testsum: Object.values(op.tests || {}).reduce((a, t) => a + (t.passed || 0), 0)}));
const tbody = document.querySelector("#ops tbody");
let sortKey = "name", sortDir = 1;
const esc = s => String(s).replace(/[&<>"]/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;"}[c]));
function testsText(op) {
  const t = Object.values(op.tests || {}); if (!t.length) return "";
  const sum = k => t.reduce((a, x) => a + (x[k] || 0), 0);
  return `${sum("passed")} pass / ${sum("failed")} fail / ${sum("xfailed")} xfail`;
}
function matches(op) {
  const q = document.getElementById("search").value.trim().toLowerCase();
  const st = document.getElementById("f-status").value, fam = document.getElementById("f-family").value;
  const tag = document.getElementById("f-tag").value, tested = document.getElementById("f-tested").checked;
  const seen = document.getElementById("f-seen").value;
  return (!q || op.name.toLowerCase().includes(q)) && (!st || op.status === st) && (!fam || op.family === fam)
    && (!seen || op.seen === seen)
    && (!tag || op.tags.includes(tag)) && (!tested || op.opinfo.length > 0);
}
function detail(op) {
  const tests = Object.entries(op.tests || {}).map(([k, t]) =>
    `${esc(k)}: ${t.passed || 0} passed, ${t.failed || 0} failed, ${t.xfailed || 0} xfailed, ${t.skipped || 0} skipped`).join("<br>");
  const b = op.blocks ? `<b>blocks:</b> ${op.blocks.core ? "core ATen; " : ""}programs: ${op.blocks.programs.map(esc).join(", ") || "none"}; ops whose traces reach it: ${op.blocks.ops.length}<br>` : "";
  return `<td colspan="8">${b}<b>prims:</b> ${op.prims.map(p => `<code>${esc(p)}</code>`).join(" ") || "(none traced)"}<br>` +
    (op.missing.length ? `<b>missing:</b> ${op.missing.map(p => `<code>${esc(p)}</code>`).join(" ")}<br>` : "") +
    `<b>OpInfo:</b> ${op.opinfo.map(esc).join(", ") || "(none)"}${op.samples ? ` (${op.samples} samples)` : ""}<br>` +
    `<b>tests:</b> ${tests || "(not run: use --run-tests)"}</td>`;
}
function render() {
  const key = sortKey, dir = sortDir;
  const rows = OPS.filter(matches).sort((a, b) => {
    const x = key === "tests" ? a.testsum : a[key], y = key === "tests" ? b.testsum : b[key];
    const c = Array.isArray(x) ? x.join(" ").localeCompare(y.join(" ")) : (typeof x === "number" ? x - y : String(x).localeCompare(String(y)));
    return c * dir || a.index - b.index;
  });
  const out = [];
  for (const op of rows) {
    out.push(`<tr class="op" data-index="${op.index}" data-name="${esc(op.name)}" data-status="${op.status}">` +
      `<td><code>${esc(op.name)}</code></td><td class="s-${op.status}">${op.status}</td><td>${op.seen}</td><td>${esc(op.family)}</td>` +
      `<td>${op.nprims}</td><td>${op.nopinfo}</td><td>${testsText(op)}</td>` +
      `<td>${op.tags.map(t => `<span class="tag">${esc(t)}</span>`).join("")}</td></tr>`);
  }
  tbody.innerHTML = out.join("");
  document.getElementById("shown-count").textContent = `${rows.length} of ${OPS.length} overloads shown`;
}
tbody.addEventListener("click", e => {
  const tr = e.target.closest("tr.op"); if (!tr) return;
  const next = tr.nextElementSibling;
  if (next && next.classList.contains("detail")) { next.remove(); return; }
  const d = document.createElement("tr"); d.className = "detail"; d.innerHTML = detail(OPS[+tr.dataset.index]);
  tr.after(d);
});
document.querySelectorAll("#ops th").forEach(th => th.addEventListener("click", () => {
  sortDir = sortKey === th.dataset.key ? -sortDir : 1; sortKey = th.dataset.key;
  document.querySelectorAll("#ops th").forEach(h => h.removeAttribute("data-dir"));
  th.dataset.dir = sortDir > 0 ? "asc" : "desc"; render();
}));
for (const id of ["search", "f-status", "f-seen", "f-family", "f-tag", "f-tested"])
  document.getElementById(id).addEventListener("input", render);
render();
</script></body></html>
"""


def to_html(report) -> str:
    s = report["summary"]
    families = sorted(s["per_family"])
    charts = _bar_chart("Coverage by family (a missing op counts in its operator's family)",
                        [(f, s["per_family"][f]) for f in families])
    charts += _bar_chart("Coverage by tag (all overloads)", [(t, c) for t, c in s["per_tag"].items()])
    status = s["status"]
    summary = (f"{s['catalog_prims']} prims, {s['opinfo_entries']} OpInfo entries. {s['overloads']} ATen overloads: "
               f"{status.get('prims', 0)} decompose to prims ({s['reach_prims_tested']} tested, "
               f"{s.get('reach_prims_traced', '?')} seen in a traced sample), "
               f"{status.get('partial', 0)} partially, {status.get('missing', 0)} missing. "
               f"{s['operators_reaching_prims']} operators reach prims. Core ATen: {s['core']['prims']} / "
               f"{s['core']['total']}.")
    summary += f" {s.get('assumed', 0)} of the prims rows are assumed (no traced sample); " \
               f"{status.get('bookkeeping', 0)} SymInt bookkeeping overloads are not counted."
    if s.get("target"):
        t = s["target"]
        summary += (f" Target set of {len(t['prims'])} prims: {t['reaching']} overloads reach it; the prims outside it "
                    f"that block most: " + ", ".join(f"{p} ({n})" for p, n in list(t.get("blocking_prims", {}).items())[:8]) + ".")
    data = json.dumps(report, separators=(",", ":")).replace("</", "<\\/")
    blockers, programs = _blockers_table(report), _programs_table(report)
    option = lambda v: f"<option>{html.escape(v)}</option>"  # noqa: E731
    return (PAGE.replace("__VERSION__", html.escape(report["torch_version"])).replace("__SUMMARY__", html.escape(summary))
            .replace("__CHARTS__", charts).replace("__FAMILIES__", "".join(option(f) for f in families))
            .replace("__TAGS__", "".join(option(t) for t in s["per_tag"]))
            .replace("__BLOCKERS__", blockers).replace("__PROGRAMS__", programs).replace("__DATA__", data))


def _blockers_table(report) -> str:
    rows = {r["name"]: r for r in report["ops"]}
    names = report["summary"].get("top_blockers", [])
    if not names:
        return ""
    body = "".join(
        f"<tr><td><code>{html.escape(n)}</code></td><td class='s-{rows[n]['status']}'>{rows[n]['status']}</td>"
        f"<td>{'core' if rows[n]['blocks']['core'] else ''}</td><td>{html.escape(', '.join(rows[n]['blocks']['programs']))}</td>"
        f"<td>{len(rows[n]['blocks']['ops'])}</td></tr>" for n in names)
    return ("<h2>What to build next</h2><table id='blockers' class='small'><thead><tr><th>overload</th><th>status</th>"
            "<th>core</th><th>programs it blocks</th><th>ops it blocks</th></tr></thead><tbody>" + body + "</tbody></table>")


def _programs_table(report) -> str:
    programs = report.get("programs") or []
    if not programs:
        return ""
    body = []
    for p in programs:
        blocked = [html.escape(m) for m in p["missing_ops"]] + sorted(
            {html.escape(f"primkit::{m['prim']} ({m['aten']})") for m in p["missing_prims"]})
        body.append(f"<tr><td>{html.escape(p['name'])}</td><td class='s-{'prims' if p['status'] == 'prims' else 'missing'}'>"
                    f"{p['status']}</td><td>{len(p['prims'])}</td><td>{sum(p['kept'].values())}</td>"
                    f"<td>{', '.join(blocked) or html.escape(p['error'] or '')}</td></tr>")
    return ("<h2>Programs (test zoo, inference)</h2><table id='programs' class='small'><thead><tr><th>program</th>"
            "<th>status</th><th>prims</th><th>kept</th><th>blocked by</th></tr></thead><tbody>" + "".join(body) +
            "</tbody></table>")
