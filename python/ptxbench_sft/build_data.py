"""Build SFT rows (direct and repair) from PTXBench attempt exports (schema 1).

Pipeline (see docs/sft.md): read exports -> extract direct/repair candidates and filter on the
judge's verdict (cheats optionally kept as labelled negatives) -> drop over-length rows (never
truncated) -> exact dedup -> near dedup -> per-task cap -> hold-out split by task family ->
write train.jsonl, holdout.jsonl, data_card.json, data_card.md.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .errors import InputError

EXPORT_SCHEMA = 1
DEFAULT_MAX_TOKENS = 32768
DEFAULT_NEAR_DUP = 0.9
SHINGLE_SIZE = 5
# The chars/4 estimate: ceil(characters / 4) per message plus this many tokens of chat-template
# framing per message (<|im_start|>role\n ... <|im_end|>\n).
CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD_TOKENS = 4
# Thinking policy shared with the evaluation client: earlier assistant turns are replayed without
# their reasoning (the Qwen3.x template default, preserve_thinking=false).
DEFAULT_THINKING_POLICY = "history_without_thinking"
CHEAT_OUTCOME = "rejected_cheat"


# --------------------------------------------------------------------------- reading


def _check_attempt(obj: Any, where: str) -> dict[str, Any]:
    """``obj`` when it has the export fields this pipeline reads, else InputError naming the
    first one that is missing or of the wrong type."""
    if not isinstance(obj, dict):
        raise InputError(f"{where}: an attempt must be a JSON object")
    if obj.get("schema") != EXPORT_SCHEMA:
        raise InputError(f"{where}: export schema {obj.get('schema')!r}, expected {EXPORT_SCHEMA}")
    run, request = obj.get("run"), obj.get("request")
    checks = [
        (isinstance(run, dict) and isinstance(run.get("name"), str), "'run' needs a string 'name'"),
        (isinstance(obj.get("task"), str) and obj["task"], "'task' must be a non-empty string"),
        (type(obj.get("sample")) is int, "'sample' must be an integer"),
        (type(obj.get("turn")) is int, "'turn' must be an integer"),
        (isinstance(request, dict) and isinstance(request.get("messages"), list),
         "'request' needs a 'messages' list"),
        (obj.get("evaluation") is None or isinstance(obj["evaluation"], dict),
         "'evaluation' must be an object or null"),
        (all(obj.get(k) is None or isinstance(obj[k], str) for k in ("response_text", "reasoning")),
         "'response_text' and 'reasoning' must be strings or null"),
    ]
    for ok, message in checks:
        if not ok:
            raise InputError(f"{where}: {message}")
    for i, m in enumerate(request["messages"]):
        if not (isinstance(m, dict) and isinstance(m.get("role"), str)
                and isinstance(m.get("content"), str)):
            raise InputError(f"{where}: request message {i} needs string 'role' and 'content'")
    return obj


def read_export(path: str | Path) -> Iterator[dict[str, Any]]:
    """Yield the attempt objects of one export file (``.jsonl`` or ``.jsonl.gz``); InputError
    for a missing or unreadable file and for a line that is not an attempt of this schema."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"export file not found: {path}")
    opener = gzip.open if path.suffix == ".gz" else open
    lineno = 0
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputError(f"{path}:{lineno}: not JSON ({e.msg})") from e
                yield _check_attempt(obj, f"{path}:{lineno}")
    except (OSError, EOFError, UnicodeDecodeError) as e:
        raise InputError(f"{path}:{lineno + 1}: cannot read the export "
                         f"({type(e).__name__}: {' '.join(str(e).split())})") from e


# --------------------------------------------------------------------------- task metadata


def task_arch(task: str) -> str:
    return task.split("/", 1)[0]


def task_family(task: str, verdict: dict[str, Any] | None = None) -> str:
    """The task's family as the judge recorded it: the verdict's ``family`` (every verdict since
    the family registry carries it). Records judged before that have none; for them only, the
    family is read off the task id (``sm90/gemm/x`` -> ``gemm``, ``sm90/attention/fwd-bf16`` ->
    ``attention_fwd``)."""
    if verdict:
        for holder in (verdict, verdict.get("config") or {}):
            fam = holder.get("family") if isinstance(holder, dict) else None
            if isinstance(fam, str) and fam:
                return fam
    parts = task.split("/")
    if len(parts) < 2:
        return parts[0]
    family = parts[1]
    if family == "attention" and len(parts) > 2:
        direction = parts[2].split("-", 1)[0]
        family = f"attention_{direction}"
    return family


# --------------------------------------------------------------------------- code normalisation

_COMMENT_RE = re.compile(r"//[^\n]*|/\*.*?\*/", re.S)
_TOKEN_RE = re.compile(r"[A-Za-z_][A-Za-z_0-9]*|\d[\w.]*|\S")
_FENCE_RE = re.compile(r"```[A-Za-z0-9_+-]*\n(.*?)```", re.S)


def completion_code(attempt: dict[str, Any]) -> str:
    code = attempt.get("code")
    if isinstance(code, str) and code:
        return code
    text = attempt.get("response_text") or ""
    blocks = _FENCE_RE.findall(text)
    return max(blocks, key=len) if blocks else text


def strip_comments(code: str) -> str:
    return _COMMENT_RE.sub(" ", code)


def normalized_code(code: str) -> str:
    """Comments and all whitespace removed."""
    return re.sub(r"\s+", "", strip_comments(code))


def code_hash(code: str) -> str:
    return hashlib.sha256(normalized_code(code).encode("utf-8")).hexdigest()


def shingles(code: str, k: int = SHINGLE_SIZE) -> frozenset[int]:
    toks = _TOKEN_RE.findall(strip_comments(code))
    if len(toks) < k:
        return frozenset([hash(tuple(toks))]) if toks else frozenset()
    return frozenset(hash(tuple(toks[i:i + k])) for i in range(len(toks) - k + 1))


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    if not a and not b:
        return 1.0
    return len(a & b) / len(a | b)


# --------------------------------------------------------------------------- token counting

TokenCounter = Callable[[list[dict[str, Any]]], int]


def message_text(m: dict[str, Any]) -> str:
    """The text of a message that costs tokens: its content and its reasoning, if any."""
    return (m.get("reasoning_content") or "") + (m.get("content") or "")


def estimate_tokens(messages: list[dict[str, Any]]) -> int:
    """Documented fallback: ceil(chars/4) per message + 4 tokens of template framing each."""
    return sum(math.ceil(len(message_text(m)) / CHARS_PER_TOKEN) + MESSAGE_OVERHEAD_TOKENS
               for m in messages)


def tokenizer_counter(path: str) -> TokenCounter:
    """Token counter from a tokenizer: a ``tokenizer.json`` file (``tokenizers`` library) or a
    directory loadable by ``transformers.AutoTokenizer`` (its chat template is applied when it
    has one). Imported lazily: only this option needs those libraries."""
    p = Path(path)
    if p.is_file():
        from tokenizers import Tokenizer

        tok = Tokenizer.from_file(str(p))

        def count_file(messages: list[dict[str, Any]]) -> int:
            return sum(len(tok.encode(message_text(m)).ids) + MESSAGE_OVERHEAD_TOKENS
                       for m in messages)

        return count_file
    from transformers import AutoTokenizer

    hf = AutoTokenizer.from_pretrained(str(p))

    def count_dir(messages: list[dict[str, Any]]) -> int:
        if getattr(hf, "chat_template", None):
            return len(hf.apply_chat_template(messages, tokenize=True))
        return sum(len(hf.encode(message_text(m), add_special_tokens=False))
                   + MESSAGE_OVERHEAD_TOKENS for m in messages)

    return count_dir


# --------------------------------------------------------------------------- candidates


@dataclass
class Options:
    holdout_families: frozenset[str] = frozenset()
    per_task_cap: int | None = None
    max_tokens: int = DEFAULT_MAX_TOKENS
    near_dup: float = DEFAULT_NEAR_DUP
    negatives: bool = False
    thinking_policy: str = DEFAULT_THINKING_POLICY
    token_counter: TokenCounter = estimate_tokens
    tokenizer_name: str = "chars/4 estimate"


@dataclass
class Result:
    train: list[dict[str, Any]] = field(default_factory=list)
    holdout: list[dict[str, Any]] = field(default_factory=list)
    negatives: list[dict[str, Any]] = field(default_factory=list)
    dropped: Counter = field(default_factory=Counter)
    attempts_read: int = 0
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)


def _key(a: dict[str, Any]) -> tuple[str, str, int, int]:
    return (a["run"]["name"], a["task"], int(a["sample"]), int(a["turn"]))


def verdict_ok(ev: dict[str, Any] | None) -> str | None:
    """None when the evaluation qualifies as a target, else the drop reason."""
    if ev is None:
        return "not_judged"
    if ev.get("outcome") == CHEAT_OUTCOME:
        return "cheat"
    if not ev.get("success"):
        return "not_success"
    if not ev.get("targets_executed"):
        return "targets_not_executed"
    verdict = ev.get("verdict") or {}
    if ev.get("audit") or verdict.get("audit"):
        return "audit_flag"
    return None


def _speedup_geomean(ev: dict[str, Any]) -> float | None:
    vals = []
    for s in ev.get("speedups") or []:
        v = s.get("speedup")
        if isinstance(v, (int, float)) and v > 0 and math.isfinite(v):
            vals.append(float(v))
    if not vals:
        return None
    return math.exp(sum(math.log(v) for v in vals) / len(vals))


def completion_and_template_kwargs(a: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The completion message and the chat-template arguments of a row.

    Template arguments start from what the request sent the server (``chat_template_kwargs``,
    e.g. set through ``ptxbench run --extra-body``), with ``preserve_thinking`` false unless
    sent: earlier assistant turns are replayed without reasoning, the template default. The
    server's reasoning, when it returned any, becomes the completion's ``reasoning_content``
    (rendered as the think block and trained on). An answer without reasoning is a non-thinking
    row: ``enable_thinking`` false, so the template pre-fills an empty think block in the prompt
    and the model is not taught to answer thinking-mode prompts with an empty one."""
    completion: dict[str, Any] = {"role": "assistant", "content": a.get("response_text") or ""}
    sent = a["request"].get("chat_template_kwargs")
    kwargs: dict[str, Any] = {"preserve_thinking": False}
    kwargs.update(sent if isinstance(sent, dict) else {})
    reasoning = a.get("reasoning") or ""
    if reasoning:
        completion["reasoning_content"] = reasoning
    else:
        kwargs["enable_thinking"] = False
    return completion, kwargs


def make_row(a: dict[str, Any], kind: str, feedback_class: str | None,
             thinking_policy: str) -> dict[str, Any]:
    ev = a.get("evaluation") or {}
    verdict = ev.get("verdict") or {}
    run = a["run"]
    messages = [{"role": m["role"], "content": m["content"]} for m in a["request"]["messages"]]
    completion, kwargs = completion_and_template_kwargs(a)
    return {
        "prompt": messages,
        "completion": [completion],
        "task": a["task"],
        "family": task_family(a["task"], verdict),
        "arch": task_arch(a["task"]),
        "kind": kind,
        "feedback_class": feedback_class,
        "outcome": ev.get("outcome"),
        "speedup_geomean": _speedup_geomean(ev),
        "thinking_policy": thinking_policy,
        "chat_template_kwargs": kwargs,
        "source": {
            "run": run.get("name"),
            "model": run.get("model"),
            "endpoint": run.get("endpoint"),
            "prompt_version": run.get("prompt_version"),
            "ptxbench_version": run.get("ptxbench_version"),
            "attempt_id": a.get("attempt_id"),
            "sample": a.get("sample"),
            "turn": a.get("turn"),
        },
    }


def _is_direct_prompt(messages: list[dict[str, Any]]) -> bool:
    roles = [m.get("role") for m in messages]
    return roles in (["system", "user"], ["user"])


def _is_repair_prompt(messages: list[dict[str, Any]]) -> bool:
    roles = [m.get("role") for m in messages]
    return len(roles) >= 3 and roles[-1] == "user" and roles[-2] == "assistant"


def extract(attempts: Iterable[dict[str, Any]], opts: Options,
            result: Result) -> list[tuple[dict[str, Any], str]]:
    """Candidate rows (row, code) from the attempts; drops counted in ``result.dropped``."""
    attempts = list(attempts)
    by_key = {_key(a): a for a in attempts}
    out: list[tuple[dict[str, Any], str]] = []
    for a in attempts:
        result.attempts_read += 1
        run = a["run"]
        result.runs.setdefault(run["name"], run)
        ev = a.get("evaluation")
        turn = int(a["turn"])
        messages = (a.get("request") or {}).get("messages") or []
        if ev is not None and ev.get("outcome") == CHEAT_OUTCOME:
            result.dropped["cheat"] += 1
            if opts.negatives:
                row = make_row(a, "direct" if turn == 0 else "repair", None, opts.thinking_policy)
                row["label"] = CHEAT_OUTCOME
                row["reason"] = ev.get("reason")
                result.negatives.append(row)
            continue
        if a.get("status") != "ok":
            result.dropped[f"status_{a.get('status')}"] += 1
            continue
        reason = verdict_ok(ev)
        if reason:
            result.dropped[reason] += 1
            continue
        if turn == 0:
            if not _is_direct_prompt(messages):
                result.dropped["unexpected_prompt_shape"] += 1
                continue
            out.append((make_row(a, "direct", None, opts.thinking_policy), completion_code(a)))
            continue
        prev = by_key.get((run["name"], a["task"], int(a["sample"]), turn - 1))
        if prev is None:
            result.dropped["repair_previous_missing"] += 1
            continue
        prev_ev = prev.get("evaluation")
        if prev_ev is not None and prev_ev.get("success"):
            result.dropped["repair_previous_succeeded"] += 1
            continue
        if not _is_repair_prompt(messages):
            result.dropped["unexpected_prompt_shape"] += 1
            continue
        fclass = prev_ev.get("outcome") if prev_ev else (prev.get("status") or "not_judged")
        out.append((make_row(a, "repair", fclass, opts.thinking_policy), completion_code(a)))
    return out


# --------------------------------------------------------------------------- selection


def _order(item: tuple[dict[str, Any], str]) -> tuple:
    row, code = item
    src = row["source"]
    # Shortest correct completion first (ConCuR: concise traces train better), then stable ids.
    return (row["kind"], row["task"], len(row["completion"][0]["content"]), str(src["run"]),
            src["sample"] or 0, src["turn"] or 0)


def select(cands: list[tuple[dict[str, Any], str]], opts: Options, result: Result) -> None:
    kept: list[tuple[dict[str, Any], str]] = []
    for row, code in cands:
        n = opts.token_counter(row["prompt"] + row["completion"])
        if n > opts.max_tokens:
            result.dropped["over_length"] += 1
            continue
        row["num_tokens"] = n
        kept.append((row, code))
    kept.sort(key=_order)

    # Exact dedup, within a kind: a repair row whose fix equals a direct row's kernel is still a
    # distinct example (its prompt holds the failed attempt and the feedback).
    seen: set[tuple[str, str]] = set()
    exact: list[tuple[dict[str, Any], str, frozenset[int]]] = []
    for row, code in kept:
        h = (row["kind"], code_hash(code))
        if h in seen:
            result.dropped["exact_dup"] += 1
            continue
        seen.add(h)
        row["code_sha256"] = h[1]
        exact.append((row, code, shingles(code)))

    # Near dedup, greedy, within a kind: keep a row unless it is >= threshold similar to a kept one.
    near: list[dict[str, Any]] = []
    kept_sh: dict[str, list[frozenset[int]]] = {}
    for row, _code, sh in exact:
        pool = kept_sh.setdefault(row["kind"], [])
        if opts.near_dup <= 1.0 and any(jaccard(sh, other) >= opts.near_dup for other in pool):
            result.dropped["near_dup"] += 1
            continue
        pool.append(sh)
        near.append(row)

    # Per-task cap, round-robin over (kind, feedback class) strata so repair rows are not starved.
    capped: list[dict[str, Any]] = []
    by_task: dict[str, list[dict[str, Any]]] = {}
    for row in near:
        by_task.setdefault(row["task"], []).append(row)
    for task in sorted(by_task):
        rows = by_task[task]
        if opts.per_task_cap is None or len(rows) <= opts.per_task_cap:
            capped.extend(rows)
            continue
        strata: dict[tuple, list[dict[str, Any]]] = {}
        for r in rows:
            strata.setdefault((r["kind"], r["feedback_class"] or ""), []).append(r)
        queues = [strata[k] for k in sorted(strata)]
        chosen: list[dict[str, Any]] = []
        i = 0
        while len(chosen) < opts.per_task_cap:
            q = queues[i % len(queues)]
            if q:
                chosen.append(q.pop(0))
            i += 1
        capped.extend(chosen)
        result.dropped["per_task_cap"] += len(rows) - len(chosen)

    for row in capped:
        (result.holdout if row["family"] in opts.holdout_families else result.train).append(row)


def build(exports: Iterable[str | Path], opts: Options) -> Result:
    result = Result()
    attempts: list[dict[str, Any]] = []
    for path in exports:
        attempts.extend(read_export(path))
    select(extract(attempts, opts, result), opts, result)
    return result


# --------------------------------------------------------------------------- data card


def _strata(rows: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    def count(f: Callable[[dict[str, Any]], Any]) -> dict[str, int]:
        return dict(sorted(Counter(str(f(r)) for r in rows).items()))

    return {
        "task": count(lambda r: r["task"]),
        "family": count(lambda r: r["family"]),
        "arch": count(lambda r: r["arch"]),
        "kind": count(lambda r: r["kind"]),
        "feedback_class": count(lambda r: r["feedback_class"] or "none"),
        "model": count(lambda r: r["source"]["model"]),
    }


def data_card(result: Result, opts: Options, exports: list[str]) -> dict[str, Any]:
    runs = []
    for name, run in sorted(result.runs.items()):
        env = run.get("environment") or {}
        runs.append({
            "name": name,
            "model": run.get("model"),
            "endpoint": run.get("endpoint"),
            "prompt_version": run.get("prompt_version"),
            "ptxbench_version": run.get("ptxbench_version"),
            "created_at": run.get("created_at"),
            "gpus": env.get("gpus"),
            "settings": run.get("settings"),
        })
    return {
        "exports": [str(p) for p in exports],
        "attempts_read": result.attempts_read,
        "rows": {"train": len(result.train), "holdout": len(result.holdout),
                 "negatives": len(result.negatives)},
        "strata": {"train": _strata(result.train), "holdout": _strata(result.holdout)},
        "dropped": dict(sorted(result.dropped.items())),
        "options": {
            "holdout_families": sorted(opts.holdout_families),
            "per_task_cap": opts.per_task_cap,
            "max_tokens": opts.max_tokens,
            "near_dup": opts.near_dup,
            "shingle_size": SHINGLE_SIZE,
            "negatives": opts.negatives,
            "tokenizer": opts.tokenizer_name,
            "thinking_policy": opts.thinking_policy,
        },
        "provenance": {
            "models": sorted({str(r.get("model")) for r in runs}),
            "ptxbench_versions": sorted({str(r.get("ptxbench_version")) for r in runs}),
            "gpus": sorted({g for r in runs for g in (r.get("gpus") or [])}),
            "runs": runs,
        },
    }


def card_markdown(card: dict[str, Any]) -> str:
    lines = ["# PTXBench SFT data card", ""]
    rows = card["rows"]
    lines += [f"- attempts read: {card['attempts_read']}",
              f"- rows: train {rows['train']}, holdout {rows['holdout']}, "
              f"negatives {rows['negatives']}",
              f"- PTXBench versions: {', '.join(card['provenance']['ptxbench_versions'])}",
              f"- GPUs: {'; '.join(card['provenance']['gpus']) or 'unknown'}",
              f"- models (teachers): {', '.join(card['provenance']['models'])}",
              f"- tokenizer: {card['options']['tokenizer']}, max tokens "
              f"{card['options']['max_tokens']} (over-length rows dropped, never truncated)",
              f"- thinking policy: {card['options']['thinking_policy']}", ""]
    for split in ("train", "holdout"):
        lines += [f"## {split}", ""]
        for name, counts in card["strata"][split].items():
            body = ", ".join(f"{k}: {v}" for k, v in counts.items()) or "(none)"
            lines.append(f"- {name}: {body}")
        lines.append("")
    lines += ["## dropped", ""]
    lines += [f"- {k}: {v}" for k, v in card["dropped"].items()] or ["- (none)"]
    lines += ["", "## runs", ""]
    for r in card["provenance"]["runs"]:
        lines.append(f"- {r['name']}: model {r['model']}, endpoint {r['endpoint'] or '(offline)'}, "
                     f"prompt v{r['prompt_version']}, ptxbench {r['ptxbench_version']}, "
                     f"created {r['created_at']}")
    return "\n".join(lines) + "\n"


def _write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n")


def write_outputs(result: Result, opts: Options, exports: list[str], out: str | Path) -> dict:
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    _write_jsonl(out / "train.jsonl", result.train)
    _write_jsonl(out / "holdout.jsonl", result.holdout)
    if opts.negatives:
        _write_jsonl(out / "negatives.jsonl", result.negatives)
    card = data_card(result, opts, exports)
    (out / "data_card.json").write_text(json.dumps(card, indent=2, sort_keys=True) + "\n",
                                        encoding="utf-8")
    (out / "data_card.md").write_text(card_markdown(card), encoding="utf-8")
    return card


# --------------------------------------------------------------------------- CLI


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--export", nargs="+", required=True, metavar="FILE",
                   help="ptxbench export files (.jsonl or .jsonl.gz)")
    p.add_argument("--out", required=True, metavar="DIR")
    p.add_argument("--holdout-families", nargs="*", default=[], metavar="FAMILY",
                   help="task families written to holdout.jsonl (e.g. attention_bwd)")
    p.add_argument("--per-task-cap", type=int, default=None, metavar="N")
    p.add_argument("--max-tokens", type=int, default=DEFAULT_MAX_TOKENS, metavar="N",
                   help="rows longer than this (prompt + completion) are dropped")
    p.add_argument("--near-dup", type=float, default=DEFAULT_NEAR_DUP, metavar="J",
                   help="token-shingle Jaccard threshold; > 1 disables near dedup")
    p.add_argument("--negatives", action="store_true",
                   help="write cheats (rejected_cheat) to negatives.jsonl, labelled")
    p.add_argument("--tokenizer", default=None, metavar="PATH",
                   help="tokenizer.json or a transformers tokenizer directory; "
                        "default: chars/4 estimate")
    p.add_argument("--thinking-policy", default=DEFAULT_THINKING_POLICY)


def run_cli(args: argparse.Namespace) -> int:
    counter, name = estimate_tokens, "chars/4 estimate"
    if args.tokenizer:
        counter, name = tokenizer_counter(args.tokenizer), args.tokenizer
    families = frozenset(f for item in args.holdout_families for f in item.split(",") if f)
    opts = Options(holdout_families=families, per_task_cap=args.per_task_cap,
                   max_tokens=args.max_tokens, near_dup=args.near_dup, negatives=args.negatives,
                   thinking_policy=args.thinking_policy, token_counter=counter,
                   tokenizer_name=name)
    result = build(args.export, opts)
    card = write_outputs(result, opts, args.export, args.out)
    print(json.dumps({"rows": card["rows"], "dropped": card["dropped"]}, sort_keys=True))
    return 0
