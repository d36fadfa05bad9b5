"""Tables of an evidence session (bench/evidence_session.sh OUT): per verdict the outcome, the
speedup per timed shape, the counted calls and mismatches, the non-target FLOP share; per library
profile the non-target share per shape. Usage: summarize_evidence_session.py OUT_DIR"""
import json
import pathlib
import sys

folder = pathlib.Path(sys.argv[1])


def load(path):
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


print("| verdict | outcome | speedups per timed shape | counted calls (mismatched) | "
      "max non-target FLOP share | evidence s (worker setup, of it controls / calls) | "
      "total worker s |")
print("|---|---|---|---|---|---|---|")
for path in sorted(folder.glob("*.json")):
    v = load(path)
    if not v or "outcome" not in v:
        continue
    speedups = " / ".join(f"{t['speedup']['median']:.3f}" for t in v.get("timing", [])
                          if "speedup" in t)
    match = v.get("counter_check", {}).get("match", {})
    counted = f"{match.get('calls_compared', '-')} ({match.get('calls_mismatched', '-')})"
    shares = [c.get("nontarget_flop_share") for c in v.get("evidence", {}).get("calls", [])]
    shares = [s for s in shares if s is not None]
    share = f"{max(shares):.4f}" if shares else "-"
    st = v.get("stage_seconds", {})
    ph = v.get("evidence", {}).get("worker_phases", {})
    inside = (f" ({ph.get('setup', 0):.1f} / {ph.get('setup.evidence_controls', 0):.1f} / "
              f"{ph.get('evidence', 0):.1f})" if ph else "")
    print(f"| {path.stem} | {v['outcome']} | {speedups or '-'} | {counted} | {share} | "
          f"{st.get('evidence', 0):.1f}{inside} | {st.get('worker', 0):.1f} |")

print()
print("| library profile | shape | non-target FLOP share | largest kernel source |")
print("|---|---|---|---|")
for path in sorted(folder.glob("library_*.json")):
    v = load(path)
    if not v:
        continue
    for s in v.get("shapes", []):
        shape = "x".join(str(x) for x in s["shape"].values())
        top = max(((src, f) for k in s["kernels"] for src, f in k["by_source"].items()),
                  key=lambda x: x[1], default=("-", 0))
        print(f"| {v['task']} | {shape} | {s['nontarget_share']:.5f} | {top[0]} |")

print()
print("| verdict | metric | max relative difference, timed call vs profiled call | "
      "distinct count groups |")
print("|---|---|---|---|")
for path in sorted(folder.glob("*.json")):
    v = load(path)
    if not v or "outcome" not in v or "counters" not in v:
        continue
    metrics = v["counters"].get("setup", {}).get("metrics", [])
    profiled = {json.dumps(c["shape"], sort_keys=True): c.get("counters", {})
                for c in v.get("evidence", {}).get("calls", [])}
    worst = {m: 0.0 for m in metrics}
    groups = 0
    for shape in v["counters"].get("shapes", []):
        want = profiled.get(json.dumps(shape["shape"], sort_keys=True))
        if want is None:
            continue
        for g in shape["groups"]:
            groups += 1
            for m, t in zip(metrics, g["values"]):
                n = want.get(m)
                if n is not None and max(abs(t), abs(n)) > 0:
                    worst[m] = max(worst[m], abs(t - n) / max(abs(t), abs(n)))
    for m in metrics:
        print(f"| {path.stem} | {m} | {worst[m]:.5f} | {groups} |")
