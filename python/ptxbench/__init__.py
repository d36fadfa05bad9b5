"""PTXBench from Python: clients of `ptxbench serve`, the local CLI as a fallback, code extraction
from a model's answer, and RL reward adapters (TRL GRPO, verl). docs/python.md."""

from .client import AsyncClient, Client, QueueFull, ServiceError
from .extract import extract_code
from .local import evaluate_local
from .rewards import compute_score, reward_of, trl_reward
from .verdict import Verdict

__all__ = [
    "AsyncClient",
    "Client",
    "QueueFull",
    "ServiceError",
    "Verdict",
    "compute_score",
    "evaluate",
    "evaluate_local",
    "extract_code",
    "reward_of",
    "trl_reward",
]


def evaluate(code: str, task: str, *, client: "Client | None" = None, tier: str = "full",
             timeout: float = 900.0) -> Verdict:
    """Judges `code` as `task`: through `client` (a running `ptxbench serve`) when given, else
    with the local `ptxbench` executable ($PTXBENCH_BIN, else `ptxbench` on PATH)."""
    if client is not None:
        return client.evaluate(code, task, tier=tier, timeout=timeout)
    return evaluate_local(code, task, tier=tier, timeout=timeout)
