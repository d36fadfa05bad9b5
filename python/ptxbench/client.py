"""Clients of `ptxbench serve` (docs/serve.md): submit a job, wait for its verdict. Standard
library only (urllib); the asyncio client runs the same calls in worker threads."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
from typing import Any

from .verdict import Verdict


class ServiceError(RuntimeError):
    """The service answered with an error status (4xx/5xx) or could not be reached."""

    def __init__(self, status: int, message: str):
        super().__init__(f"ptxbench serve: {status}: {message}")
        self.status = status
        self.message = message


class QueueFull(ServiceError):
    """429: the service's queue is full; retry after `retry_after` seconds."""

    def __init__(self, message: str, retry_after: float):
        super().__init__(429, message)
        self.retry_after = retry_after


class Client:
    """One service at `url` (e.g. "http://127.0.0.1:8765") with its API token. Thread-safe."""

    def __init__(self, url: str, token: str, *, request_timeout: float = 30.0):
        self.url = url.rstrip("/")
        self.token = token
        self.request_timeout = request_timeout

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None
              ) -> tuple[int, dict[str, Any]]:
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.url + path, data=data, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, timeout=self.request_timeout) as resp:
                return resp.status, json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as e:
            text = e.read().decode(errors="replace")
            try:
                message = json.loads(text).get("error", text)
            except ValueError:
                message = text
            if e.code == 429:
                raise QueueFull(message, float(e.headers.get("Retry-After") or 1)) from None
            raise ServiceError(e.code, message) from None
        except urllib.error.URLError as e:
            raise ServiceError(0, f"cannot reach {self.url}: {e.reason}") from None

    def health(self) -> dict[str, Any]:
        return self._call("GET", "/v1/health")[1]

    def metrics(self) -> dict[str, Any]:
        return self._call("GET", "/v1/metrics")[1]

    def submit(self, task: str, code: str, *, tier: str = "full",
               idempotency_key: str | None = None) -> int:
        """Queues a job; its id. Raises QueueFull (429) or ServiceError."""
        body: dict[str, Any] = {"task": task, "code": code, "tier": tier}
        if idempotency_key:
            body["idempotency_key"] = idempotency_key
        return int(self._call("POST", "/v1/jobs", body)[1]["id"])

    def status(self, job_id: int) -> dict[str, Any]:
        return self._call("GET", f"/v1/jobs/{job_id}")[1]

    def result(self, job_id: int, *, timeout: float = 900.0, poll: float = 0.5) -> Verdict:
        """Waits for the job's verdict; TimeoutError after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            status, body = self._call("GET", f"/v1/jobs/{job_id}/result")
            if status == 200:
                return Verdict.from_json(body["verdict"], body.get("feedback", ""))
            if time.monotonic() > deadline:
                raise TimeoutError(f"job {job_id} not judged within {timeout} s")
            time.sleep(poll)

    def evaluate(self, code: str, task: str, *, tier: str = "full", timeout: float = 900.0,
                 idempotency_key: str | None = None) -> Verdict:
        """Submits (waiting out a full queue until `timeout`) and waits for the verdict."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                job = self.submit(task, code, tier=tier, idempotency_key=idempotency_key)
                break
            except QueueFull as full:
                if time.monotonic() + full.retry_after > deadline:
                    raise
                time.sleep(full.retry_after)
        return self.result(job, timeout=max(1.0, deadline - time.monotonic()))


class AsyncClient:
    """The asyncio face of Client: the same calls, each in a worker thread."""

    def __init__(self, url: str, token: str, *, request_timeout: float = 30.0):
        self._client = Client(url, token, request_timeout=request_timeout)

    async def submit(self, task: str, code: str, *, tier: str = "full",
                     idempotency_key: str | None = None) -> int:
        return await asyncio.to_thread(self._client.submit, task, code, tier=tier,
                                       idempotency_key=idempotency_key)

    async def result(self, job_id: int, *, timeout: float = 900.0) -> Verdict:
        return await asyncio.to_thread(self._client.result, job_id, timeout=timeout)

    async def evaluate(self, code: str, task: str, *, tier: str = "full",
                       timeout: float = 900.0) -> Verdict:
        return await asyncio.to_thread(self._client.evaluate, code, task, tier=tier,
                                       timeout=timeout)
