"""Text/markdown tables, SVG figures and the machine-readable summary."""

import html
import json
import math
import os

from decan_abi import COLOURS, SAT_VARIANTS  # noqa: E402


def human_bytes(b):
    if b is None:
        return "-"
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if b >= div:
            v = b / div
            return ("%d%s" % (v, unit)) if v == int(v) else ("%.1f%s" % (v, unit))
    return "%dB" % b


def fmt(v, digits=2):
    if v is None:
        return "-"
    if isinstance(v, float):
        return "%.*f" % (digits, v)
    return str(v)


def table(headers, rows):
    """A markdown table (also readable as plain text)."""
    # A "|" inside a cell would split it: markdown tables cannot hold one.
    cells = [[str(c).replace("|", "/") for c in r] for r in rows]
    headers = [h.replace("|", "/") for h in headers]
    widths = [max([len(h)] + [len(r[i]) for r in cells]) for i, h in enumerate(headers)]
    line = lambda r: "| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |"
    out = [line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in cells]
    return "\n".join(out)


def saturation_table(points):
    rows = []
    for p in points:
        loop = (p.get("decan") or {}).get("loop")
        sat = (loop or {}).get("saturation", {})
        ref = ((loop or {}).get("variants") or {}).get("REF", {})
        diag = (loop or {}).get("diagnosis") or []
        diag_text = "; ".join(d if isinstance(d, str) else
                              str(d.get("kind") or d.get("summary") or d.get("text") or d)
                              for d in diag)
        err = (p.get("decan") or {}).get("error")
        rows.append([p["codelet"], human_bytes(p["ws_bytes"]), p.get("regime") or "~",
                     p["n"], p.get("reps", "-"),
                     (loop or {}).get("id") or "-",
                     fmt(ref.get("cpi_median")), fmt(ref.get("stability"), 3)]
                    + [fmt(sat.get(v)) for v in SAT_VARIANTS]
                    + [(diag_text or err or "-")[:90]])
    return table(["codelet", "ws", "regime", "N", "reps", "loop", "REF cyc/it",
                  "stab"] + SAT_VARIANTS + ["diagnosis"], rows)


def expectation_table(rows, only_disagreements=True):
    sel = [r for r in rows if r["status"] != "agree"] if only_disagreements else rows
    return table(["codelet", "ws", "regime", "expected", "status", "measured", "why"],
                 [[r["codelet"], human_bytes(r["ws_bytes"]), r["regime"], r["check"],
                   r["status"], r["value"] or "-", r["why"][:70]] for r in sel])


def _pct(e):
    return ("%+.0f%%" % (100 * e)) if e is not None else "-"


def mca_table(rows):
    return table(["codelet", "ws", "variant", "instrs", "mca core cyc/it",
                  "measured core cyc/it", "error", "measured - probe", "error", "note"],
                 [[r["codelet"], human_bytes(r["ws_bytes"]), r["variant"],
                   fmt(r["instructions"]), fmt(r["predicted_core"]),
                   fmt(r["measured_core"]),
                   _pct(r["error"]) if r["error"] is not None else "-",
                   fmt(r.get("net_core")), _pct(r.get("net_error")),
                   (r.get("note") or "")[:45]] for r in rows])


def mca_error_summary(rows):
    out = []
    for v in ["REF"] + SAT_VARIANTS:
        line = [v]
        for key in ("error", "net_error"):
            e = sorted(abs(r[key]) for r in rows if r["variant"] == v and r.get(key) is not None
                       and not r.get("below_resolution"))
            if not e:
                line += [0, "-", "-"]
                continue
            line += [len(e), "%.0f%%" % (100 * e[len(e) // 2]),
                     "%d/%d" % (sum(x <= 0.15 for x in e), len(e))]
        out.append(line)
    return table(["variant", "points", "median abs error", "within 15%",
                  "points (probe removed)", "median abs error", "within 15%"], out)


def overhead_table(builds):
    rows = []
    total = {"plain": {}, "decan": {}}
    for b in builds.values():
        for kind in total:
            for k in ("compile_s", "text_bytes"):
                v = b.get(kind, {}).get(k)
                if v is not None:
                    total[kind][k] = total[kind].get(k, 0) + v
    items = sorted(builds.items()) + [("(suite)", total)]
    for name, b in items:
        pl, dc = b.get("plain", {}), b.get("decan", {})
        ratio = lambda a, c: ("%.2fx" % (c / a)) if a and c else "-"
        rows.append([name, fmt(pl.get("compile_s"), 3), fmt(dc.get("compile_s"), 3),
                     ratio(pl.get("compile_s"), dc.get("compile_s")),
                     fmt(pl.get("text_bytes")), fmt(dc.get("text_bytes")),
                     ratio(pl.get("text_bytes"), dc.get("text_bytes")),
                     fmt(dc.get("decan_section_bytes")), fmt(dc.get("scratch_bss_bytes")),
                     (dc.get("error") or pl.get("error") or dc.get("note") or "")[:60]])
    return table(["codelet", "compile plain s", "compile decan s", "ratio",
                  ".text plain", ".text decan", "ratio", "decan tables", "DL1 scratch (bss)",
                  "note"], rows)


def sweep_svg(name, points, caches, path):
    """Saturation of every variant against working-set size (thesis Figures
    4.1-4.5 style), with the cache sizes marked."""
    pts = [p for p in points if p["codelet"] == name]
    W, H, L, R, T, B = 600, 340, 60, 140, 30, 50
    xs = [math.log2(p["ws_bytes"]) for p in pts] or [10, 20]
    x0, x1 = min(xs + [math.log2(caches[1])]) - 0.5, max(xs + [math.log2(caches[3])]) + 0.5
    y0, y1 = 0.0, 1.2
    X = lambda v: L + (v - x0) / (x1 - x0) * (W - L - R)
    Y = lambda v: T + (1 - (min(max(v, y0), y1) - y0) / (y1 - y0)) * (H - T - B)
    o = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="11">' % (W, H),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="18" font-size="13">%s: saturation vs working set</text>'
         % (L, html.escape(name))]
    for yv in (0, 0.2, 0.4, 0.6, 0.8, 1.0, 1.2):
        o.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/>'
                 % (L, W - R, Y(yv), Y(yv)))
        o.append('<text x="%d" y="%.1f" text-anchor="end">%.1f</text>' % (L - 5, Y(yv) + 4, yv))
    for lvl, size in sorted(caches.items()):
        xv = math.log2(size)
        if x0 <= xv <= x1:
            o.append('<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#999" '
                     'stroke-dasharray="4,3"/>' % (X(xv), X(xv), T, H - B))
            o.append('<text x="%.1f" y="%d" text-anchor="middle">L%d</text>'
                     % (X(xv), T + 10, lvl))
    last = None
    for p in sorted(pts, key=lambda p: p["ws_bytes"]):
        xv = X(math.log2(p["ws_bytes"]))
        if last is not None and xv - last < 30:
            continue  # labels would overlap
        last = xv
        o.append('<text x="%.1f" y="%d" text-anchor="middle">%s</text>'
                 % (xv, H - B + 16, human_bytes(p["ws_bytes"])))
    o.append('<text x="%d" y="%d" text-anchor="middle">working set (bytes, log scale)</text>'
             % ((L + W - R) / 2, H - 12))
    o.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="black" '
             'stroke-dasharray="2,2"/>' % (L, W - R, Y(1), Y(1)))
    for i, v in enumerate(SAT_VARIANTS):
        series = []
        for p in sorted(pts, key=lambda p: p["ws_bytes"]):
            loop = (p.get("decan") or {}).get("loop") or {}
            s = (loop.get("saturation") or {}).get(v)
            if isinstance(s, (int, float)):
                series.append((X(math.log2(p["ws_bytes"])), Y(s)))
        if series:
            o.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                     % (COLOURS[v], " ".join("%.1f,%.1f" % s for s in series)))
            for sx, sy in series:
                o.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (sx, sy, COLOURS[v]))
        o.append('<rect x="%d" y="%d" width="12" height="3" fill="%s"/>'
                 % (W - R + 10, T + 14 * i + 4, COLOURS[v]))
        o.append('<text x="%d" y="%d">Sat(%s)%s</text>' % (W - R + 26, T + 14 * i + 9, v,
                                                           "" if series else " n/a"))
    o.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(o) + "\n")


def write_summary(path, summary):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(summary, f, indent=1, sort_keys=True, default=str)
    os.replace(tmp, path)
