"""Evaluate a trained model: serve it behind an OpenAI-compatible server, run PTXBench on it.

``serve-eval --model DIR [--adapter DIR] -- run --tasks sm90 --samples 4 --turns 3 ...`` starts
the server on 127.0.0.1, waits until it answers ``GET /health``, runs ``ptxbench`` with the
arguments after ``--`` plus ``--model NAME --endpoint URL``, stops the server and returns
PTXBench's exit status. The server renders the chat template from the messages the PTXBench
client sends, as it did for the training rows (``build-data`` keeps those messages unchanged);
pass the rows' ``chat_template_kwargs`` to PTXBench with ``--extra-body``.

Servers: ``vllm`` (``vllm serve``; a LoRA adapter is served under the name, its base as
NAME-base) and ``transformers`` (``transformers serve``, no adapters: merge first). A server
that exits or is not ready within ``--startup-timeout`` is an error (exit 2) with the tail of
its log; the server never outlives this command.
"""

from __future__ import annotations

import argparse
import os
import shlex
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

from .errors import InputError

DEFAULT_PTXBENCH = Path(__file__).resolve().parents[2] / "build" / "release" / "ptxbench"
STOP_GRACE_S = 15
LOG_TAIL_LINES = 20


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_command(args: argparse.Namespace, port: int) -> tuple[list[str], str]:
    """The server's argv and the model name PTXBench must ask for."""
    if args.server_command:
        return shlex.split(args.server_command.format(model=args.model, port=port)), args.name
    if args.server == "transformers":
        if args.adapter:
            raise InputError("--server transformers serves no LoRA adapters: merge the adapter "
                             "into the model first, or use --server vllm")
        # transformers serve names the model by its path (or hub id).
        return ["transformers", "serve", args.model, "--host", "127.0.0.1", "--port", str(port),
                "--device", args.device], args.model
    cmd = ["vllm", "serve", args.model, "--host", "127.0.0.1", "--port", str(port),
           "--served-model-name", f"{args.name}-base" if args.adapter else args.name]
    if args.adapter:
        cmd += ["--enable-lora", "--lora-modules", f"{args.name}={args.adapter}",
                "--max-lora-rank", str(args.max_lora_rank)]
    return cmd + shlex.split(args.server_args), args.name


def log_tail(path: Path) -> str:
    lines = path.read_text(errors="replace").splitlines()
    return "\n".join(lines[-LOG_TAIL_LINES:])


def wait_until_ready(server: subprocess.Popen, url: str, timeout_s: float, log: Path) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise InputError(f"the server exited with status {server.returncode} before it was "
                             f"ready; last lines of its log ({log}):\n{log_tail(log)}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            pass
        time.sleep(0.5)
    raise InputError(f"the server did not answer {url} within {timeout_s:.0f} s; last lines of "
                     f"its log ({log}):\n{log_tail(log)}")


def stop(server: subprocess.Popen) -> None:
    """SIGTERM to the server's process group, SIGKILL after a grace period."""
    if server.poll() is not None:
        return
    os.killpg(server.pid, signal.SIGTERM)
    try:
        server.wait(STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()


def serve_and_run(args: argparse.Namespace) -> int:
    ptxbench_args = list(args.ptxbench_args)
    if ptxbench_args[:1] == ["--"]:
        ptxbench_args = ptxbench_args[1:]
    if not ptxbench_args or ptxbench_args[0] not in ("run", "generate"):
        raise InputError("after --, give the ptxbench command: run or generate, and its options")
    if not Path(args.ptxbench).is_file():
        raise InputError(f"{args.ptxbench}: no ptxbench binary (build it, or pass --ptxbench)")
    port = args.port or free_port()
    cmd, name = server_command(args, port)
    log = Path(args.server_log or tempfile.mkstemp(prefix="ptxbench-server-", suffix=".log")[1])
    print(f"serve-eval: starting {shlex.join(cmd)} (log {log})", flush=True)
    with log.open("wb") as out:
        try:
            server = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT,
                                      stdin=subprocess.DEVNULL, start_new_session=True)
        except FileNotFoundError as e:
            raise InputError(f"cannot start the server: {e}") from e
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_ready(server, f"{base}/health", args.startup_timeout, log)
        run = [args.ptxbench, *ptxbench_args, "--model", name, "--endpoint", f"{base}/v1"]
        print(f"serve-eval: {shlex.join(run)}", flush=True)
        return subprocess.call(run)
    finally:
        stop(server)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", required=True, help="model directory or hub id to serve")
    p.add_argument("--adapter", help="LoRA adapter directory (vllm only)")
    p.add_argument("--name", default="ptxbench-sft", help="served model name (vllm)")
    p.add_argument("--server", choices=("vllm", "transformers"), default="vllm")
    p.add_argument("--server-args", default="", help="extra arguments for vllm serve")
    p.add_argument("--server-command", default="",
                   help="replaces the server command line; {model} and {port} are filled in")
    p.add_argument("--server-log", help="the server's log file (default: a temporary file)")
    p.add_argument("--device", default="auto", help="transformers serve --device")
    p.add_argument("--max-lora-rank", type=int, default=256)
    p.add_argument("--port", type=int, default=0, help="default: a free port")
    p.add_argument("--startup-timeout", type=float, default=900.0, metavar="S")
    p.add_argument("--ptxbench", default=str(DEFAULT_PTXBENCH), help="the ptxbench binary")
    p.add_argument("ptxbench_args", nargs=argparse.REMAINDER,
                   help="-- run|generate OPTIONS (without --model/--endpoint)")


def run_cli(args: argparse.Namespace) -> int:
    return serve_and_run(args)
