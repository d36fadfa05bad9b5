"""The Ray runner on a local multi-node Ray cluster (ray.cluster_utils): a head node with CPUs
for the static stage, a second node with one (declared) GPU for the judge, real `ptxbench serve`
processes inside the actors. Without a real GPU a submission that passes the static stage is
judged `unavailable` by the judge's service: the test checks that it went there."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
from pathlib import Path

import pytest
import ray
from ray.cluster_utils import Cluster

from ptxbench.batch_store import BatchStore, InputError, read_submissions
from ptxbench.ray_cluster import _runtime_env, main, run_batch

ROOT = Path(__file__).resolve().parents[2]
EXE = ROOT / "build" / "release" / "ptxbench"
TASK = "sm90/gemm/bf16-wgmma"
BROKEN = "this is not CUDA @@@\n"
UID_BASE = 61920  # sandbox users of these tests only (the service sweeps its user at start)

pytestmark = pytest.mark.skipif(not EXE.exists(), reason=f"no {EXE}: build first")


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    saved = os.environ.get("PTXBENCH_CACHE_DIR")
    os.environ["PTXBENCH_CACHE_DIR"] = str(tmp_path_factory.mktemp("cache"))  # reaches the actors
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 2})
    c.add_node(num_cpus=1, num_gpus=1)
    ray.init(address=c.address, runtime_env=_runtime_env())
    yield c
    ray.shutdown()
    c.shutdown()
    if saved is None:
        os.environ.pop("PTXBENCH_CACHE_DIR", None)
    else:
        os.environ["PTXBENCH_CACHE_DIR"] = saved


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def live_serves() -> list[str]:
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=False)
    return [line for line in ps.stdout.splitlines()
            if f"{EXE} serve" in line and "ptxbench-ray-" in line]


def test_static_failures_stay_on_cpu_the_rest_reaches_the_gpu_judge_and_a_rerun_resumes(
        cluster, tmp_path):
    expert = (ROOT / "kernels" / "reference" / "sm90_gemm_bf16_wgmma.cu").read_text()
    subs = read_submissions(write_jsonl(tmp_path / "in.jsonl", [
        {"id": "broken-1", "task": TASK, "code": BROKEN},
        {"id": "broken-2", "task": TASK, "code": BROKEN + "// two\n", "tier": "quick"},
        {"id": "expert", "task": TASK, "code": expert, "tier": "quick"},
    ]))
    store = BatchStore(tmp_path / "out.db")
    summary = run_batch(subs, store, exe=str(EXE), static_actors=2, judges=1, judge_gpus=1,
                        uid_base=UID_BASE, timeout=600)
    assert summary["judged"] == 3
    gpu_node = [n["NodeID"] for n in ray.nodes() if n["Resources"].get("GPU")][0]
    rows = {r[0]: r[1:] for r in store.db.execute(
        "SELECT id, outcome, stage, node, tier, feedback FROM evaluations")}
    assert rows["broken-1"][:2] == ("compile_error", "static")
    assert rows["broken-2"][:2] == ("compile_error", "static") and rows["broken-2"][3] == "quick"
    assert "compile" in rows["broken-1"][4]  # the service's feedback text came along
    outcome, stage, node, tier, _ = rows["expert"]
    assert stage == "gpu" and node == gpu_node and tier == "quick"
    assert outcome in ("unavailable", "passed")  # a real GPU judges it; none: no suitable GPU
    assert not live_serves(), "every actor's ptxbench serve is stopped at the end"

    again = run_batch(subs, store, exe=str(EXE), static_actors=1, judges=1, uid_base=UID_BASE)
    assert again["judged"] == 0  # resumed: every id already has its verdict
    (runs,) = store.db.execute("SELECT COUNT(*) FROM batch_runs").fetchone()
    assert runs == 2


def test_a_missing_executable_is_stored_as_unavailable_with_the_reason(cluster, tmp_path):
    subs = read_submissions(write_jsonl(tmp_path / "in.jsonl", [
        {"id": "a", "task": TASK, "code": BROKEN}, {"id": "b", "task": TASK, "code": BROKEN}]))
    store = BatchStore(tmp_path / "out.db")
    summary = run_batch(subs, store, exe=str(tmp_path / "no-such-ptxbench"), static_actors=1,
                        judges=0, uid_base=UID_BASE)
    assert summary["judged"] == 2
    reasons = [r[0] for r in store.db.execute(
        "SELECT reason FROM evaluations WHERE outcome = 'unavailable' AND stage = 'error'")]
    assert len(reasons) == 2 and all("no-such-ptxbench" in r for r in reasons), reasons


def test_a_bad_submissions_file_is_refused_whole_before_anything_runs(tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    rows = [json.dumps({"id": "x", "task": TASK, "code": "c"}), "not json",
            json.dumps({"id": "x", "task": TASK, "code": "c"}),
            json.dumps({"id": "y", "task": "sm90/none", "code": "c"}),
            json.dumps({"id": "z", "task": TASK})]
    bad.write_text("\n".join(rows) + "\n")
    assert main([str(bad), "--db", str(tmp_path / "out.db"), "--bin", str(EXE)]) == 2
    err = capsys.readouterr().err
    for expected in ("bad.jsonl:2: not JSON", "bad.jsonl:3: id 'x' repeated",
                     "bad.jsonl:4: unknown task 'sm90/none'", "bad.jsonl:5: missing or "
                     "non-string code"):
        assert expected in err, err
    assert sqlite3.connect(tmp_path / "out.db").execute(
        "SELECT name FROM sqlite_master WHERE name = 'evaluations'").fetchone() is None


def test_an_id_stored_with_other_code_is_refused(tmp_path):
    store = BatchStore(tmp_path / "out.db")
    (first,) = read_submissions(write_jsonl(tmp_path / "a.jsonl",
                                            [{"id": "k", "task": TASK, "code": "one"}]))
    store.put(first, verdict={"outcome": "compile_error", "reason": "r"}, feedback="",
              stage="static", node="n", seconds=1.0)
    (second,) = read_submissions(write_jsonl(tmp_path / "b.jsonl",
                                             [{"id": "k", "task": TASK, "code": "two"}]))
    with pytest.raises(InputError, match="other task, tier or code"):
        store.to_judge([second], retry_unavailable=False)
    assert store.to_judge([first], retry_unavailable=False) == []
