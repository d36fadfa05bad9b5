#!/usr/bin/env python3
"""GPU session for `ptxbench serve` (docs/serve.md): throughput through the service against
sequential `ptxbench eval`, quick-tier latency, and a crowded queue killed with SIGKILL mid-way.

Usage (GPU machine, repository root): bench/serve_session.py BIN_DIR OUT_DIR [--budget S]

Parts, each written to OUT_DIR/serve_session.json as it finishes:
  sequential  `ptxbench eval` on the TMA GEMM and attention forward experts, one after another
  service     the same kind of jobs (distinct sources, so every one compiles) through `serve`
              with compile ahead; evaluations per hour both ways
  quick       quick-tier jobs whose compile is cached: seconds from submit to result
  crowd       500 jobs (a few real ones, the rest failing to compile), the server SIGKILLed after
              a third are done, restarted on the same store; every job must get exactly one
              verdict and no child of the killed server may survive it
"""
import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

PORT = 8765
TOKEN = "serve-session-token-0123456789"
TMA = ("sm90/gemm/bf16-wgmma-tma", "kernels/reference/sm90_gemm_bf16_wgmma_tma.cu")
FWD = ("sm90/attention/fwd-bf16", "kernels/reference/sm90_attention_fwd_bf16.cu")


def request(method, path, body=None, timeout=30):
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{PORT}{path}", data=data, method=method)
    req.add_header("Authorization", f"Bearer {TOKEN}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


def source(path, nonce):
    with open(path) as f:
        return f.read() + f"\n// serve-session nonce {nonce}\n"


class Server:
    def __init__(self, exe, db, out, gpus="0", compile_threads=3):
        # the server's log stays open for the server's life; stop() closes it
        self.log = open(os.path.join(out, f"serve-{int(time.time() * 1000)}.log"), "w")  # noqa: SIM115
        self.proc = subprocess.Popen(
            [exe, "serve", "--port", str(PORT), "--db", db, "--token-file",
             os.path.join(out, "token.txt"), "--gpus", gpus, "--compile-threads",
             str(compile_threads), "--max-queue", "1000"],
            stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(300):
            try:
                if request("GET", "/v1/health", timeout=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise RuntimeError("serve did not answer /v1/health within 30 s")

    def stop(self, sig=signal.SIGTERM):
        self.proc.send_signal(sig)
        self.proc.wait(timeout=600)
        self.log.close()


def submit(task, code, tier="full", key=None):
    body = {"task": task, "code": code, "tier": tier}
    if key:
        body["idempotency_key"] = key
    status, answer = request("POST", "/v1/jobs", body)
    if status not in (200, 202):
        raise RuntimeError(f"submit answered {status}: {answer}")
    return answer["id"]


def wait_done(ids, deadline):
    results = {}
    while len(results) < len(ids) and time.time() < deadline:
        for i in ids:
            if i in results:
                continue
            status, answer = request("GET", f"/v1/jobs/{i}/result")
            if status == 200:
                results[i] = answer
        time.sleep(0.2)
    return results


def live_processes_named(pattern):
    ps = subprocess.run(["ps", "-eo", "pid,ppid,args"], capture_output=True, text=True,
                        check=False).stdout
    return [line for line in ps.splitlines()
            if pattern in line and "<defunct>" not in line and "ps -eo" not in line]


def prepare_session(bin_dir, out):
    """Creates `out`, moves to the repository root, sets PTXBench's environment (its tasks, the
    compile cache in out/cache, the CUDA and CUPTI libraries), writes the server's token file;
    returns the ptxbench executable in `bin_dir`."""
    os.makedirs(out, exist_ok=True)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.chdir(root)
    os.environ.update(PTXBENCH_HOME=root, PTXBENCH_TASKS_DIR=f"{root}/tasks",
                      PTXBENCH_CACHE_DIR=f"{out}/cache")
    os.environ["LD_LIBRARY_PATH"] = ("/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:"
                                     + os.environ.get("LD_LIBRARY_PATH", ""))
    with open(os.path.join(out, "token.txt"), "w") as f:
        f.write(TOKEN)
    return os.path.join(bin_dir, "ptxbench")


def main():
    bin_dir, out = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    budget = float(sys.argv[sys.argv.index("--budget") + 1]) if "--budget" in sys.argv else 480
    t_end = time.time() + budget
    exe = prepare_session(bin_dir, out)
    report = {"commit": os.environ.get("PTXB_COMMIT", "unknown")}

    def save():
        with open(os.path.join(out, "serve_session.json"), "w") as f:
            json.dump(report, f, indent=1)

    # sequential: one eval per expert, fresh compile each
    seq = []
    for n, (task, path) in enumerate([TMA, FWD]):
        src = os.path.join(out, f"seq{n}.cu")
        with open(src, "w") as f:
            f.write(source(path, f"seq{n}"))
        t0 = time.time()
        with open(f"{out}/seq{n}.txt", "w") as log:
            subprocess.run([exe, "eval", src, "--task", task, "--json-out", f"{out}/seq{n}.json"],
                           stdout=log, stderr=subprocess.STDOUT, check=False)
        with open(f"{out}/seq{n}.json") as f:
            v = json.load(f)
        seq.append({"task": task, "seconds": time.time() - t0, "outcome": v["outcome"]})
    report["sequential"] = seq
    save()

    # service: 3 TMA + 1 attention jobs, distinct sources, compiled ahead while the GPU judges
    server = Server(exe, f"{out}/service.db", out)
    jobs = [(TMA, f"svc{k}") for k in range(3)] + [(FWD, "svc3")]
    t0 = time.time()
    ids = [submit(task, source(path, nonce)) for (task, path), nonce in jobs]
    done = wait_done(ids, min(t_end, time.time() + 300))
    wall = time.time() - t0
    seq_equiv = 3 * seq[0]["seconds"] + seq[1]["seconds"]
    report["service"] = {
        "jobs": len(ids), "done": len(done), "wall_seconds": wall,
        "outcomes": [done[i]["verdict"]["outcome"] for i in ids if i in done],
        "evals_per_hour_service": 3600 * len(done) / wall,
        "evals_per_hour_sequential_same_mix": 3600 * len(ids) / seq_equiv,
        "metrics": request("GET", "/v1/metrics")[1]}
    save()

    # quick tier on cached compiles (the sources of the service part)
    quick = []
    for (task, path), nonce in [(TMA, "svc0"), (TMA, "svc1"), (TMA, "svc2"), (FWD, "svc3")]:
        if time.time() > t_end - 120:
            break
        t0 = time.time()
        i = submit(task, source(path, nonce), tier="quick")
        r = wait_done([i], time.time() + 60).get(i)
        quick.append({"task": task, "seconds_submit_to_result": time.time() - t0,
                      "outcome": r and r["verdict"]["outcome"], "tier": r and r["verdict"].get("tier"),
                      "compile_cached": r and r["verdict"].get("compile", {}).get("cached")})
    report["quick"] = quick
    server.stop()
    save()

    # crowd: 500 jobs, 8 real quick ones (cached compile), SIGKILL a third of the way, restart
    db = f"{out}/crowd.db"
    server = Server(exe, db, out, compile_threads=12)
    ids = []
    for k in range(500):
        if k % 60 == 0 and len([1 for x in ids if x[1]]) < 8:
            ids.append((submit(TMA[0], source(TMA[1], "svc0"), "quick", f"crowd{k}"), True))
        else:
            ids.append((submit(TMA[0], f"this is not CUDA {k}\n", "quick", f"crowd{k}"), False))
    t0 = time.time()
    while time.time() < t_end - 60:
        m = request("GET", "/v1/metrics")[1]
        if m["done"] >= 170:
            break
        time.sleep(0.2)
    killed_at = request("GET", "/v1/metrics")[1]
    server.stop(signal.SIGKILL)
    time.sleep(1.0)
    survivors = live_processes_named("ptxbench-worker") + live_processes_named("nvcc")
    server = Server(exe, db, out, compile_threads=12)
    done = wait_done([i for i, _ in ids], t_end - 5)
    after = request("GET", "/v1/metrics")[1]
    attempts = [request("GET", f"/v1/jobs/{i}")[1].get("attempts") for i, _ in ids]
    server.stop()
    real = [done[i]["verdict"]["outcome"] for i, r in ids if r and i in done]
    broken = [done[i]["verdict"]["outcome"] for i, r in ids if not r and i in done]
    report["crowd"] = {
        "submitted": len(ids), "done": len(done), "seconds": time.time() - t0,
        "metrics_when_killed": killed_at, "metrics_after": after,
        "survivors_of_kill": survivors,
        "real_outcomes": real, "broken_outcomes": sorted(set(broken)),
        "attempts_histogram": {str(a): attempts.count(a) for a in set(attempts)}}
    save()
    print(json.dumps({k: v for k, v in report.items() if k != "service"}, indent=1)[:4000])
    print(json.dumps({k: v for k, v in report["service"].items() if k != "metrics"}))


if __name__ == "__main__":
    main()
