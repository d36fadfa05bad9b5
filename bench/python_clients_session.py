#!/usr/bin/env python3
"""GPU session for the Python package (docs/python.md): N concurrent asyncio clients
(ptxbench.AsyncClient) against one `ptxbench serve`, each judging one submission: every hostile
file of tests/adversarial/*.cu (its `ptxbench-expect` outcome, judged by the full tier there) and
copies of the experts (distinct sources) up to N. For each: outcome, the reward of
ptxbench.reward_of, and the reward the documented table gives the expected outcome.

Usage (GPU machine, repository root): bench/python_clients_session.py BIN_DIR OUT_DIR
    [--clients 64] [--tier quick] [--budget S]
Writes OUT_DIR/python_clients.json; prints a table last.
"""
import asyncio
import json
import os
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
import serve_session  # noqa: E402  (the Server wrapper and settings of the serve session)

from ptxbench import AsyncClient, Verdict, reward_of  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
EXPERTS = [
    ("sm90/gemm/bf16-wgmma-tma", "kernels/reference/sm90_gemm_bf16_wgmma_tma.cu"),
    ("sm90/gemm/bf16-wgmma", "kernels/reference/sm90_gemm_bf16_wgmma.cu"),
    ("sm90/gemm_bias_gelu/bf16-wgmma-tma", "kernels/reference/sm90_gemm_bias_gelu_bf16_wgmma_tma.cu"),
    ("sm90/gemm/fp8-e4m3", "kernels/reference/sm90_gemm_fp8_e4m3.cu"),
    ("sm90/attention/fwd-bf16", "kernels/reference/sm90_attention_fwd_bf16.cu"),
]
EXPECT = re.compile(r"ptxbench-expect:\s*task=(\S+)\s+outcome=(\S+)")


def hostile_files():
    for path in sorted((ROOT / "tests" / "adversarial").glob("*.cu")):
        m = EXPECT.search(path.read_text())
        if m:
            yield path.name, m.group(1), m.group(2), path.read_text()


def expected_reward(outcome):
    """The documented reward of an outcome (docs/python.md), None where it needs a speedup."""
    if outcome == "passed":
        return None
    return reward_of(Verdict(outcome, "", "full", [], True))


async def judge_one(client, row, tier, timeout):
    start = time.monotonic()
    try:
        v = await client.evaluate(row["code"], row["task"], tier=tier, timeout=timeout)
        row.update(outcome=v.outcome, reward=reward_of(v), reason=v.reason[:200],
                   speedup=v.geomean_speedup)
    except Exception as e:  # noqa: BLE001 - recorded as the row's error
        row.update(outcome="client_error", reward=None, reason=f"{type(e).__name__}: {e}"[:200])
    row["seconds"] = time.monotonic() - start
    del row["code"]
    return row


async def main_async(url, token, rows, tier, timeout):
    client = AsyncClient(url, token)
    return await asyncio.gather(*(judge_one(client, r, tier, timeout) for r in rows))


def main():
    bin_dir, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    clients = int(sys.argv[sys.argv.index("--clients") + 1]) if "--clients" in sys.argv else 64
    tier = sys.argv[sys.argv.index("--tier") + 1] if "--tier" in sys.argv else "quick"
    budget = float(sys.argv[sys.argv.index("--budget") + 1]) if "--budget" in sys.argv else 480
    os.makedirs(out, exist_ok=True)
    os.chdir(ROOT)
    os.environ.update(PTXBENCH_HOME=str(ROOT), PTXBENCH_TASKS_DIR=f"{ROOT}/tasks",
                      PTXBENCH_CACHE_DIR=f"{out}/cache")
    os.environ["LD_LIBRARY_PATH"] = ("/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:"
                                     + os.environ.get("LD_LIBRARY_PATH", ""))
    with open(os.path.join(out, "token.txt"), "w") as f:
        f.write(serve_session.TOKEN)
    rows = [{"name": n, "task": t, "expected": o, "code": c} for n, t, o, c in hostile_files()]
    k = 0
    while len(rows) < clients:
        task, path = EXPERTS[k % len(EXPERTS)]
        code = (ROOT / path).read_text() + f"\n// python-clients nonce {k}\n"
        rows.append({"name": f"expert_{Path(path).stem}_{k}", "task": task,
                     "expected": "passed", "code": code})
        k += 1
    rows = rows[:clients]
    server = serve_session.Server(os.path.join(bin_dir, "ptxbench"), f"{out}/jobs.db", out,
                                  compile_threads=8)
    start = time.monotonic()
    try:
        results = asyncio.run(main_async(f"http://127.0.0.1:{serve_session.PORT}",
                                         serve_session.TOKEN, rows, tier, budget))
        metrics = serve_session.request("GET", "/v1/metrics")[1]
    finally:
        server.stop()
    wall = time.monotonic() - start
    for r in results:
        r["documented_reward_of_expected"] = expected_reward(r["expected"])
        r["as_expected"] = r["outcome"] == r["expected"]
    report = {"commit": os.environ.get("PTXB_COMMIT", "unknown"), "clients": len(rows),
              "tier": tier, "wall_seconds": wall, "metrics": metrics, "rows": results}
    with open(os.path.join(out, "python_clients.json"), "w") as f:
        json.dump(report, f, indent=1)
    for r in results:
        print(f"{r['name'][:34]:34s} {r['expected'][:22]:22s} {r['outcome'][:22]:22s} "
              f"reward {r['reward']} (documented {r['documented_reward_of_expected']}) "
              f"{r['seconds']:.0f} s")
    print(f"{len(rows)} clients, {wall:.0f} s, "
          f"{sum(r['as_expected'] for r in results)}/{len(rows)} outcomes as expected")


if __name__ == "__main__":
    main()
