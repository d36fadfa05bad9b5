"""Tests of build-data over fixture export lines written here, and over the real H200 export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptxbench_sft import build_data as bd
from ptxbench_sft.__main__ import main

SYSTEM = {"role": "system", "content": "You are an expert GPU kernel engineer."}
REAL_EXPORT = (Path(__file__).resolve().parents[2]
               / "bench/results/2026-11-29-h200-model-run/export.jsonl.gz")


def kernel(name: str, body: str = "") -> str:
    """A distinct kernel: the identifier stream differs per name, so shingles differ."""
    lines = [f"__global__ void {name}_k{i}(float* {name}_p{i}) {{ {name}_p{i}[{i}] = {i}; }}"
             for i in range(12)]
    return "\n".join(lines) + body


def answer(code: str) -> str:
    return f"Here it is.\n\n```cuda\n{code}\n```\n"


def evaluation(outcome: str = "passed", success: bool | None = None,
               targets: bool | None = None, audit: bool = False, family: str | None = None):
    ok = outcome == "passed"
    verdict = {"outcome": outcome, "audit": ["flag"] if audit else []}
    if family:
        verdict["family"] = family
    return {"outcome": outcome, "reason": outcome, "compiled": True, "correct": ok,
            "targets_executed": ok if targets is None else targets,
            "success": ok if success is None else success, "audit": audit,
            "speedups": [{"shape": "M=1", "hidden": False, "speedup": 0.5}], "verdict": verdict}


RUN = {"id": 1, "name": "run-a", "model": "teacher-x", "endpoint": "http://h:8000/v1",
       "prompt_version": "1", "ptxbench_version": "0.1.0", "created_at": "2026-11-29T00:00:00Z",
       "settings": {"turns": 2}, "environment": {"gpus": ["0, NVIDIA H200, 580, 1980 MHz"]}}


def attempt(task: str, code: str | None, ev, turn: int = 0, sample: int = 0,
            history: list[dict] | None = None, run: dict | None = None, status: str = "ok",
            feedback: str = ""):
    msgs = [SYSTEM, {"role": "user", "content": f"Task {task}: write the kernel."}]
    msgs += history or []
    return {"schema": 1, "run": run or RUN, "attempt_id": 0, "task": task, "sample": sample,
            "turn": turn, "status": status, "error": "",
            "request": {"model": "m", "messages": msgs}, "response": None,
            "response_text": answer(code) if code is not None else "no code",
            "reasoning": "", "code": code, "feedback": feedback,
            "usage": {"prompt_tokens": 0, "completion_tokens": 0}, "latency_s": 0.0,
            "retries": 0, "created_at": "2026-11-29T00:00:00Z", "evaluation": ev}


def repair_pair(task: str, bad: str, good: str, outcome: str = "incorrect", sample: int = 0):
    fb = f"PTXBench judged your previous answer:\n\nVerdict: {outcome}\n"
    first = attempt(task, bad, evaluation(outcome), sample=sample, feedback=fb)
    hist = [{"role": "assistant", "content": answer(bad)}, {"role": "user", "content": fb}]
    second = attempt(task, good, evaluation(), turn=1, sample=sample, history=hist)
    return [first, second]


def write_export(path: Path, attempts: list[dict]) -> Path:
    path.write_text("".join(json.dumps(a) + "\n" for a in attempts), encoding="utf-8")
    return path


def build(tmp_path: Path, attempts: list[dict], **kw) -> tuple[bd.Result, dict, Path]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    exp = write_export(tmp_path / "export.jsonl", attempts)
    opts = bd.Options(**kw)
    res = bd.build([exp], opts)
    out = tmp_path / "out"
    card = bd.write_outputs(res, opts, [str(exp)], out)
    return res, card, out


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line]


# --------------------------------------------------------------------------- extraction


def test_direct_and_repair_rows(tmp_path):
    atts = [attempt("sm90/gemm/a", kernel("a"), evaluation())]
    atts += repair_pair("sm90/gemm/b", kernel("bbad"), kernel("bgood"), outcome="compile_error")
    res, _card, out = build(tmp_path, atts)
    rows = read_jsonl(out / "train.jsonl")
    assert {r["kind"] for r in rows} == {"direct", "repair"}
    direct = next(r for r in rows if r["kind"] == "direct")
    assert direct["prompt"] == atts[0]["request"]["messages"]
    assert direct["completion"] == [{"role": "assistant", "content": atts[0]["response_text"]}]
    assert direct["feedback_class"] is None
    repair = next(r for r in rows if r["kind"] == "repair")
    # The prompt is the request exactly as the repair loop sent it: system, task, failed
    # attempt, feedback; the completion is only the fix.
    assert repair["prompt"] == atts[2]["request"]["messages"]
    assert [m["role"] for m in repair["prompt"]] == ["system", "user", "assistant", "user"]
    assert repair["prompt"][2]["content"] == atts[1]["response_text"]
    assert repair["prompt"][3]["content"] == atts[1]["feedback"]
    assert repair["completion"][0]["content"] == atts[2]["response_text"]
    assert repair["feedback_class"] == "compile_error"
    assert repair["family"] == "gemm" and repair["arch"] == "sm90"
    assert repair["source"]["model"] == "teacher-x" and repair["source"]["run"] == "run-a"
    assert repair["thinking_policy"] == bd.DEFAULT_THINKING_POLICY
    # The failed turn 0 is not a row.
    assert res.dropped["not_success"] == 1


def test_reasoning_and_template_arguments(tmp_path):
    plain = attempt("sm90/gemm/a", kernel("a"), evaluation())
    thought = attempt("sm90/gemm/b", kernel("b"), evaluation())
    thought["reasoning"] = "tile 128x128, K-loop of 64"
    sent = attempt("sm90/gemm/c", kernel("c"), evaluation())
    sent["request"]["chat_template_kwargs"] = {"enable_thinking": False, "preserve_thinking": True}
    _res, _card, out = build(tmp_path, [plain, thought, sent])
    rows = {r["task"]: r for r in read_jsonl(out / "train.jsonl")}
    # No reasoning: a non-thinking row, so the model does not learn empty think blocks.
    assert rows["sm90/gemm/a"]["chat_template_kwargs"] == {"preserve_thinking": False,
                                                          "enable_thinking": False}
    assert "reasoning_content" not in rows["sm90/gemm/a"]["completion"][0]
    # Reasoning from the server: trained on, as the completion's think block.
    assert rows["sm90/gemm/b"]["completion"][0]["reasoning_content"] == thought["reasoning"]
    assert rows["sm90/gemm/b"]["chat_template_kwargs"] == {"preserve_thinking": False}
    # What the request told the server wins over the defaults.
    assert rows["sm90/gemm/c"]["chat_template_kwargs"] == {"preserve_thinking": True,
                                                          "enable_thinking": False}


def test_reasoning_counts_towards_length():
    short = [{"role": "assistant", "content": "abcd"}]
    long = [{"role": "assistant", "content": "abcd", "reasoning_content": "x" * 40}]
    assert bd.estimate_tokens(long) == bd.estimate_tokens(short) + 10


def test_repair_needs_failed_previous_turn(tmp_path):
    good0 = attempt("sm90/gemm/a", kernel("a0"), evaluation())
    hist = [{"role": "assistant", "content": good0["response_text"]},
            {"role": "user", "content": "faster please"}]
    good1 = attempt("sm90/gemm/a", kernel("a1"), evaluation(), turn=1, history=hist)
    orphan = attempt("sm90/gemm/c", kernel("c1"), evaluation(), turn=1, history=hist)
    res, _card, out = build(tmp_path, [good0, good1, orphan])
    rows = read_jsonl(out / "train.jsonl")
    assert [r["kind"] for r in rows] == ["direct"]
    assert res.dropped["repair_previous_succeeded"] == 1
    assert res.dropped["repair_previous_missing"] == 1


# --------------------------------------------------------------------------- filters


def test_success_audit_targets_status_filters(tmp_path):
    atts = [
        attempt("sm90/gemm/ok", kernel("ok"), evaluation()),
        attempt("sm90/gemm/slow", kernel("slow"), evaluation("incorrect")),
        attempt("sm90/gemm/aud", kernel("aud"), evaluation(audit=True)),
        attempt("sm90/gemm/tgt", kernel("tgt"), evaluation(targets=False)),
        attempt("sm90/gemm/nj", kernel("nj"), None),
        attempt("sm90/gemm/nc", None, evaluation("no_code"), status="no_code"),
    ]
    res, _card, out = build(tmp_path, atts)
    assert [r["task"] for r in read_jsonl(out / "train.jsonl")] == ["sm90/gemm/ok"]
    assert res.dropped["not_success"] == 1
    assert res.dropped["audit_flag"] == 1
    assert res.dropped["targets_not_executed"] == 1
    assert res.dropped["not_judged"] == 1
    assert res.dropped["status_no_code"] == 1


def test_audit_flag_in_verdict_only(tmp_path):
    ev = evaluation()
    ev["verdict"]["audit"] = [{"kind": "suspicious"}]
    res, _card, out = build(tmp_path, [attempt("sm90/gemm/a", kernel("a"), ev)])
    assert read_jsonl(out / "train.jsonl") == []
    assert res.dropped["audit_flag"] == 1


@pytest.mark.parametrize("negatives", [False, True])
def test_cheats_excluded_optionally_negatives(tmp_path, negatives):
    cheat = evaluation("rejected_cheat", success=True, targets=True)
    atts = [attempt("sm90/gemm/a", kernel("a"), evaluation()),
            attempt("sm90/gemm/b", kernel("cheat"), cheat)]
    res, card, out = build(tmp_path, atts, negatives=negatives)
    assert [r["task"] for r in read_jsonl(out / "train.jsonl")] == ["sm90/gemm/a"]
    assert res.dropped["cheat"] == 1
    if negatives:
        neg = read_jsonl(out / "negatives.jsonl")
        assert len(neg) == 1 and neg[0]["label"] == "rejected_cheat"
        assert neg[0]["task"] == "sm90/gemm/b"
        assert card["rows"]["negatives"] == 1
    else:
        assert not (out / "negatives.jsonl").exists()


# --------------------------------------------------------------------------- dedup


def test_exact_dedup_ignores_comments_and_whitespace(tmp_path):
    code = kernel("a")
    variant = "// a comment\n/* block\ncomment */\n" + code.replace(" ", "  \n\t")
    atts = [attempt("sm90/gemm/a", code, evaluation()),
            attempt("sm90/gemm/a", variant, evaluation(), sample=1)]
    assert bd.code_hash(code) == bd.code_hash(variant)
    res, _card, out = build(tmp_path, atts, near_dup=2.0)
    assert len(read_jsonl(out / "train.jsonl")) == 1
    assert res.dropped["exact_dup"] == 1


def test_near_dedup_threshold(tmp_path):
    base = kernel("a")
    near = base + "\n__global__ void extra(float* q) { q[0] = 1; }"
    far = kernel("z")
    sim = bd.jaccard(bd.shingles(base), bd.shingles(near))
    assert 0.9 <= sim < 1.0
    assert bd.jaccard(bd.shingles(base), bd.shingles(far)) < 0.5
    atts = [attempt("sm90/gemm/a", c, evaluation(), sample=i)
            for i, c in enumerate([base, near, far])]
    res, _card, out = build(tmp_path, atts, near_dup=0.9)
    assert len(read_jsonl(out / "train.jsonl")) == 2
    assert res.dropped["near_dup"] == 1
    # A threshold above the similarity keeps all three.
    res2, _card, out2 = build(tmp_path / "b", atts, near_dup=min(1.0, sim + 0.001))
    assert len(read_jsonl(out2 / "train.jsonl")) == 3 and res2.dropped["near_dup"] == 0


def test_dedup_is_within_kind(tmp_path):
    # The fix of a repair equals a direct row's kernel: both kept (different prompts).
    atts = [attempt("sm90/gemm/a", kernel("a"), evaluation(), run={**RUN, "name": "ref"})]
    atts += repair_pair("sm90/gemm/a", kernel("bad"), kernel("a"))
    res, _card, out = build(tmp_path, atts)
    assert sorted(r["kind"] for r in read_jsonl(out / "train.jsonl")) == ["direct", "repair"]
    assert res.dropped["exact_dup"] == 0


# --------------------------------------------------------------------------- balance, split


def test_per_task_cap_round_robin_over_strata(tmp_path):
    atts = [attempt("sm90/gemm/a", kernel(f"d{i}"), evaluation(), sample=i) for i in range(5)]
    for i in range(3):
        atts += repair_pair("sm90/gemm/a", kernel(f"bad{i}"), kernel(f"fix{i}"), sample=10 + i)
    atts += [attempt("sm90/gemm/b", kernel("other"), evaluation())]
    res, _card, out = build(tmp_path, atts, per_task_cap=4)
    rows = read_jsonl(out / "train.jsonl")
    a_rows = [r for r in rows if r["task"] == "sm90/gemm/a"]
    assert len(a_rows) == 4
    assert sorted(r["kind"] for r in a_rows) == ["direct", "direct", "repair", "repair"]
    assert len([r for r in rows if r["task"] == "sm90/gemm/b"]) == 1
    assert res.dropped["per_task_cap"] == 4


def test_family_of_task_ids():
    assert bd.task_family("sm90/gemm/bf16-wgmma") == "gemm"
    assert bd.task_family("sm90/attention/fwd-bf16") == "attention_fwd"
    assert bd.task_family("sm100/attention/bwd-bf16") == "attention_bwd"
    assert bd.task_family("sm90/gemm/x", {"family": "custom"}) == "custom"
    assert bd.task_family("sm90/gemm/x", {"config": {"family": "cfg"}}) == "cfg"
    assert bd.task_arch("sm100/gemm/x") == "sm100"


def test_holdout_by_family(tmp_path):
    atts = [attempt("sm90/attention/bwd-bf16", kernel("bwd"), evaluation()),
            attempt("sm90/attention/fwd-bf16", kernel("fwd"), evaluation()),
            attempt("sm100/gemm/a", kernel("g"), evaluation())]
    _res, card, out = build(tmp_path, atts, holdout_families=frozenset({"attention_bwd"}))
    assert [r["task"] for r in read_jsonl(out / "holdout.jsonl")] == ["sm90/attention/bwd-bf16"]
    train = read_jsonl(out / "train.jsonl")
    assert {r["family"] for r in train} == {"attention_fwd", "gemm"}
    assert card["strata"]["train"]["arch"] == {"sm100": 1, "sm90": 1}


# --------------------------------------------------------------------------- length


def test_over_length_dropped_never_truncated(tmp_path):
    short = attempt("sm90/gemm/a", kernel("a"), evaluation())
    long = attempt("sm90/gemm/b", kernel("b", "\n" + "// pad\n" * 4000), evaluation())
    n_short = bd.estimate_tokens(short["request"]["messages"]
                                 + [{"role": "assistant", "content": short["response_text"]}])
    res, card, out = build(tmp_path, [short, long], max_tokens=n_short + 10)
    rows = read_jsonl(out / "train.jsonl")
    assert [r["task"] for r in rows] == ["sm90/gemm/a"]
    assert rows[0]["completion"][0]["content"] == short["response_text"]  # untouched
    assert rows[0]["num_tokens"] == n_short <= n_short + 10
    assert res.dropped["over_length"] == 1 and card["dropped"]["over_length"] == 1


def test_estimate_tokens_is_chars_over_four():
    msgs = [{"role": "user", "content": "x" * 9}, {"role": "assistant", "content": ""}]
    assert bd.estimate_tokens(msgs) == 3 + bd.MESSAGE_OVERHEAD_TOKENS * 2


# --------------------------------------------------------------------------- data card


def test_data_card_counts_equal_rows_written(tmp_path):
    atts = [attempt(f"sm90/gemm/t{i}", kernel(f"t{i}"), evaluation()) for i in range(3)]
    atts += [attempt("sm90/attention/bwd-bf16", kernel("bwd"), evaluation())]
    atts += repair_pair("sm90/gemm/t0", kernel("bad"), kernel("fix"), outcome="slow")
    atts += [attempt("sm90/gemm/t1", kernel("t1"), evaluation(), sample=1)]  # exact dup
    _res, card, out = build(tmp_path, atts, holdout_families=frozenset({"attention_bwd"}))
    on_disk = json.loads((out / "data_card.json").read_text())
    assert on_disk == json.loads(json.dumps(card))
    for split in ("train", "holdout"):
        rows = read_jsonl(out / f"{split}.jsonl")
        assert on_disk["rows"][split] == len(rows)
        for stratum, counts in on_disk["strata"][split].items():
            assert sum(counts.values()) == len(rows), stratum
        for r in rows:
            assert on_disk["strata"][split]["task"][r["task"]] >= 1
    assert on_disk["strata"]["train"]["kind"] == {"direct": 3, "repair": 1}
    assert on_disk["strata"]["train"]["feedback_class"] == {"none": 3, "slow": 1}
    assert on_disk["dropped"] == {"exact_dup": 1, "not_success": 1}
    assert on_disk["provenance"]["gpus"] == ["0, NVIDIA H200, 580, 1980 MHz"]
    assert on_disk["provenance"]["models"] == ["teacher-x"]
    assert on_disk["provenance"]["ptxbench_versions"] == ["0.1.0"]
    md = (out / "data_card.md").read_text()
    assert "train 4, holdout 1" in md and "NVIDIA H200" in md


def test_bad_schema_refused(tmp_path):
    a = attempt("sm90/gemm/a", kernel("a"), evaluation())
    a["schema"] = 2
    with pytest.raises(ValueError, match="schema"):
        list(bd.read_export(write_export(tmp_path / "e.jsonl", [a])))


# --------------------------------------------------------------------------- real export


@pytest.mark.skipif(not REAL_EXPORT.exists(), reason="real export not in this checkout")
def test_real_h200_export(tmp_path):
    out = tmp_path / "out"
    rc = main(["build-data", "--export", str(REAL_EXPORT), "--out", str(out)])
    assert rc == 0
    rows = read_jsonl(out / "train.jsonl")
    assert read_jsonl(out / "holdout.jsonl") == []
    direct = [r for r in rows if r["kind"] == "direct"]
    repair = [r for r in rows if r["kind"] == "repair"]
    assert sorted(r["task"] for r in direct) == [
        "sm90/attention/bwd-bf16", "sm90/attention/fwd-bf16",
        "sm90/gemm/bf16-wgmma", "sm90/gemm/bf16-wgmma-tma"]
    assert {r["source"]["model"] for r in direct} == {"reference"}
    assert len(repair) == 1
    rep = repair[0]
    assert rep["task"] == "sm90/gemm/bf16-wgmma-tma"
    assert rep["feedback_class"] == "incorrect"
    assert rep["source"] == {**rep["source"], "model": "replay", "run": "scripted-repair",
                             "turn": 1}
    assert [m["role"] for m in rep["prompt"]] == ["system", "user", "assistant", "user"]
    assert rep["prompt"][3]["content"].startswith("PTXBench judged your previous answer:")
    card = json.loads((out / "data_card.json").read_text())
    assert card["attempts_read"] == 6
    assert card["rows"] == {"train": 5, "holdout": 0, "negatives": 0}
    assert card["strata"]["train"]["kind"] == {"direct": 4, "repair": 1}
    assert card["strata"]["train"]["family"] == {"attention_bwd": 1, "attention_fwd": 1,
                                                 "gemm": 3}
    assert card["dropped"] == {"not_success": 1}  # the scripted failing turn 0
    assert card["provenance"]["ptxbench_versions"] == ["0.1.0"]
    assert any("H200" in g for g in card["provenance"]["gpus"])

    # Hold out attention_bwd: the row moves, the counts follow.
    out2 = tmp_path / "out2"
    main(["build-data", "--export", str(REAL_EXPORT), "--out", str(out2),
          "--holdout-families", "attention_bwd"])
    hold = read_jsonl(out2 / "holdout.jsonl")
    assert [r["task"] for r in hold] == ["sm90/attention/bwd-bf16"]
    assert json.loads((out2 / "data_card.json").read_text())["rows"]["train"] == 4
