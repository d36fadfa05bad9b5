"""Evaluations spread over a Ray cluster (docs/python.md, "Many GPUs: Ray"):

    python -m ptxbench.ray_cluster SUBMISSIONS.jsonl --db results.db [--address auto]

Two kinds of actor, each wrapping a `ptxbench serve` of its own on its node (a private job store,
a random token, a port the OS picks, a sandbox user of its own):
- static actors (1 CPU each): the service with the GPU hidden (CUDA_VISIBLE_DEVICES=""), so a
  job gets compile, static evidence and the import check only; a failure there is the verdict;
- judges (1 GPU each by default): the service on the actor's GPU, the whole pipeline (sandboxed
  worker, Nsight Compute evidence, timing against the library) for what passed the static stage.
The driver alone writes the SQLite store (batch_store.py): one row per submission id, once. A
judge or static actor that dies is not used again and its submission is retried once elsewhere;
what cannot be judged is stored as `unavailable` with the reason (stage 'error'), never dropped.

Every node needs the `ptxbench` executable at the path given (--bin) with its tasks; the
`ptxbench` Python package travels with the job (Ray runtime_env), as do the PTXBENCH_* settings
of the driver's environment.
"""

from __future__ import annotations

import argparse
import collections
import ctypes
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

try:
    import ray
except ImportError as e:  # pragma: no cover - the message is the point
    raise ImportError("ptxbench.ray_cluster needs Ray (pip install 'ray>=2.50')") from e

from .batch_store import BatchStore, InputError, Submission, read_submissions
from .client import Client
from .local import ptxbench_executable

# ptxbench's reason for a verdict whose static stage passed where no GPU is visible
# (src/eval/worker_fold.cpp): the submission still needs a judge.
STATIC_ONLY_REASON = "no suitable GPU: static stage only"
DEFAULT_UID_BASE = 63000  # sandbox users: judges base+i, static actors base+500+i


def _die_with_parent() -> None:
    """In the child before exec: SIGTERM when the actor process that started it dies."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class ServeProcess:
    """One `ptxbench serve` for one actor; started again when it has died."""

    def __init__(self, exe: str, env: dict[str, str], workdir: Path):
        self.exe, self.env, self.workdir = exe, env, workdir
        self.token = env["PTXBENCH_SERVE_TOKEN"]
        self.proc: subprocess.Popen | None = None
        self.url = ""

    def client(self) -> Client:
        if self.proc is None or self.proc.poll() is not None:
            self._start()
        return Client(self.url, self.token)

    def _start(self) -> None:
        log = self.workdir / f"serve-{time.time_ns()}.log"
        with open(log, "w") as out:
            self.proc = subprocess.Popen(
                [self.exe, "serve", "--port", "0", "--db", str(self.workdir / "jobs.db"),
                 "--gpus", "0", "--compile-threads", "1"],
                stdout=out, stderr=subprocess.STDOUT, env=self.env, preexec_fn=_die_with_parent)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            first = log.read_text().split("\n", 1)[0]
            if first.startswith("serving on http://"):
                self.url = first.split()[2]
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.close()
        raise RuntimeError(f"ptxbench serve did not start: {log.read_text()[-2000:]}")

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=600)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        self.proc = None


class ServeActor:
    """A Ray actor judging one submission at a time through its own `ptxbench serve`."""

    def __init__(self, exe: str, sandbox_uid: int, hide_gpu: bool, timeout: float):
        self.node = ray.get_runtime_context().get_node_id()
        if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
            raise FileNotFoundError(f"no ptxbench executable {exe} on node {self.node}")
        self.timeout = timeout
        self.workdir = Path(tempfile.mkdtemp(prefix="ptxbench-ray-"))
        env = dict(os.environ, PTXBENCH_SERVE_TOKEN=secrets.token_hex(16),
                   PTXBENCH_SANDBOX_UID=str(sandbox_uid))
        if hide_gpu:
            env["CUDA_VISIBLE_DEVICES"] = ""
        self.serve = ServeProcess(exe, env, self.workdir)
        self.serve.client()  # started now: a node that cannot run it fails at creation

    def judge(self, submission: dict[str, str]) -> dict[str, Any]:
        start = time.monotonic()
        v = self.serve.client().evaluate(submission["code"], submission["task"],
                                         tier=submission["tier"], timeout=self.timeout)
        return {"verdict": v.raw, "feedback": v.feedback, "node": self.node,
                "seconds": time.monotonic() - start}

    def close(self) -> None:
        self.serve.close()
        shutil.rmtree(self.workdir, ignore_errors=True)


def needs_gpu(verdict: dict[str, Any]) -> bool:
    """The static stage passed and only the GPU stages are left."""
    return (verdict.get("outcome") == "unavailable"
            and str(verdict.get("reason", "")).startswith(STATIC_ONLY_REASON))


def known_tasks(exe: str) -> set[str]:
    out = subprocess.run([exe, "tasks", "--json"], capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise InputError(f"{exe} tasks --json failed: {out.stderr[-500:]}")
    return {t["id"] for t in json.loads(out.stdout)}


def _runtime_env() -> dict[str, Any]:
    import ptxbench

    env = {k: v for k, v in os.environ.items()
           if k.startswith("PTXBENCH_") and k != "PTXBENCH_SERVE_TOKEN"}
    return {"py_modules": [ptxbench], "env_vars": env}


def _cause(e: BaseException) -> str:
    """The innermost exception line of a Ray error (its text holds the remote traceback)."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(e))
    causes = [line.strip() for line in text.splitlines()
              if re.match(r"\s*[A-Za-z_.]*(Error|Exception): ", line)]
    first = text.splitlines()[0] if text else type(e).__name__
    return (causes[-1] if causes else first)[:300]


class _Pool:
    """Idle actors of one kind; a dead one leaves for good."""

    def __init__(self, kind: str, actors: list[Any]):
        self.kind, self.idle, self.alive, self.last_error = kind, list(actors), len(actors), ""


def run_batch(submissions: list[Submission], store: BatchStore, *, exe: str,
              static_actors: int, judges: int, judge_gpus: float = 1.0,
              retry_unavailable: bool = False, timeout: float = 900.0,
              uid_base: int = DEFAULT_UID_BASE, log=print) -> dict[str, Any]:
    """Judges every submission not yet in `store` on the connected Ray cluster; a summary."""
    todo = store.to_judge(submissions, retry_unavailable=retry_unavailable)
    cluster = {"nodes": len([n for n in ray.nodes() if n.get("Alive")]),
               "resources": ray.cluster_resources(), "exe": exe,
               "static_actors": static_actors, "judges": judges}
    run = store.begin_run(len(todo), cluster)
    started = time.monotonic()
    remote = ray.remote(ServeActor)
    statics = _Pool("static", [remote.options(num_cpus=1).remote(
        exe, uid_base + 500 + i, True, timeout) for i in range(static_actors)])
    gpus = _Pool("judge", [remote.options(num_cpus=1, num_gpus=judge_gpus).remote(
        exe, uid_base + i, False, timeout) for i in range(judges)])
    queues = {"static": collections.deque(todo), "judge": collections.deque()}
    pools = {"static": statics, "judge": gpus}
    inflight: dict[Any, tuple[_Pool, Any, Submission]] = {}
    retried: set[tuple[str, str]] = set()
    done = 0

    def store_error(s: Submission, reason: str) -> None:
        store.put(s, verdict={"outcome": "unavailable", "reason": reason}, feedback="",
                  stage="error", node="", seconds=0.0)

    while any(queues.values()) or inflight:
        for kind, queue in queues.items():
            pool = pools[kind]
            while queue and pool.idle:
                actor, s = pool.idle.pop(), queue.popleft()
                inflight[actor.judge.remote(s.as_dict())] = (pool, actor, s)
            if queue and pool.alive == 0:  # nothing left to run them
                while queue:
                    s = queue.popleft()
                    store_error(s, f"no {kind} actor left ({pool.last_error or 'none started'})")
                    done += 1
        if not inflight:
            continue
        ref = ray.wait(list(inflight), num_returns=1)[0][0]
        pool, actor, s = inflight.pop(ref)
        try:
            r = ray.get(ref)
        except ray.exceptions.RayActorError as e:  # the actor died or never started
            pool.alive -= 1
            pool.last_error = _cause(e)
            if (pool.kind, s.id) not in retried:
                retried.add((pool.kind, s.id))
                queues[pool.kind].appendleft(s)
            else:
                store_error(s, f"{pool.kind} actor died twice: {pool.last_error}")
                done += 1
            continue
        except ray.exceptions.RayTaskError as e:  # judge() raised (service error, timeout)
            pool.idle.append(actor)
            store_error(s, f"{pool.kind}: {_cause(e)}")
            done += 1
            continue
        pool.idle.append(actor)
        if pool.kind == "static" and judges > 0 and needs_gpu(r["verdict"]):
            queues["judge"].append(s)
            continue
        store.put(s, verdict=r["verdict"], feedback=r["feedback"],
                  stage="gpu" if pool.kind == "judge" else "static", node=r["node"],
                  seconds=r["seconds"])
        done += 1
        log(f"[{done}/{len(todo)}] {s.id}: {r['verdict'].get('outcome')} ({pool.kind})")
    for pool in (statics, gpus):
        for actor in pool.idle:
            try:
                ray.get(actor.close.remote(), timeout=660)
            except Exception:  # noqa: BLE001 - closing is best effort; the actor is killed next
                pass
            ray.kill(actor)
    store.end_run(run, done)
    return {"judged": done, "seconds": time.monotonic() - started, "outcomes": store.outcomes()}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ptxbench.ray_cluster", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("submissions", help="JSON Lines: {id, task, code[, tier]} per line")
    p.add_argument("--db", required=True, help="the SQLite store (created, or resumed)")
    p.add_argument("--address", default=None, help="Ray cluster ('auto', ray://...); default: "
                   "$RAY_ADDRESS, else a local Ray")
    p.add_argument("--bin", default=None, help="ptxbench executable, the same path on every node "
                   "(default: $PTXBENCH_BIN, else ptxbench on PATH)")
    p.add_argument("--tier", default="full", choices=["full", "quick"],
                   help="for lines without their own")
    p.add_argument("--judges", type=int, default=None,
                   help="GPU actors (default: the cluster's GPUs / --judge-gpus)")
    p.add_argument("--judge-gpus", type=float, default=1.0, help="GPUs per judge (default 1)")
    p.add_argument("--static-actors", type=int, default=None,
                   help="CPU actors for the static stage (default: CPUs left by the judges, "
                        "at most 16)")
    p.add_argument("--retry-unavailable", action="store_true",
                   help="judge again the ids stored as unavailable")
    p.add_argument("--timeout", type=float, default=900.0, help="seconds per evaluation")
    p.add_argument("--sandbox-uid-base", type=int, default=DEFAULT_UID_BASE)
    a = p.parse_args(argv)
    try:
        exe = os.path.abspath(a.bin or ptxbench_executable())
        subs = read_submissions(a.submissions, default_tier=a.tier, known_tasks=known_tasks(exe))
        store = BatchStore(a.db)
    except (InputError, FileNotFoundError) as e:
        print(f"ptxbench.ray_cluster: {e}", file=sys.stderr)
        return 2
    ray.init(address=a.address, runtime_env=_runtime_env())
    resources = ray.cluster_resources()
    judges = a.judges if a.judges is not None else int(resources.get("GPU", 0) // a.judge_gpus)
    statics = a.static_actors if a.static_actors is not None else max(
        1, min(16, int(resources.get("CPU", 1)) - judges))
    try:
        summary = run_batch(subs, store, exe=exe, static_actors=statics, judges=judges,
                            judge_gpus=a.judge_gpus, retry_unavailable=a.retry_unavailable,
                            timeout=a.timeout, uid_base=a.sandbox_uid_base)
    except InputError as e:
        print(f"ptxbench.ray_cluster: {e}", file=sys.stderr)
        return 2
    finally:
        store.close()
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
