"""The MCP tool contract of temporal-mcp-gateway for Temporal Python workflows.

Plain JSON over Temporal's own query, signal, memo and failure (docs/catalog.md, "The workflow
contract"); this module is the Python twin of the TypeScript `temporal-mcp-gateway/workflow`.
Workflow code only: every call below belongs inside a workflow's run.
"""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any, Callable, Optional

from temporalio import workflow
from temporalio.common import SearchAttributeKey
from temporalio.exceptions import ApplicationError

__all__ = [
    "ARTIFACT_REFERENCE_TYPE",
    "INPUT_SIGNAL",
    "PROGRESS_MEMO",
    "PROGRESS_QUERY",
    "TASK_STATUS_ATTRIBUTE",
    "TOOL_ERROR_TYPE",
    "McpTool",
    "tool_error",
]

PROGRESS_QUERY = "mcp.progress"
"""Query (no arguments) answering the progress: message, progress, total, inputRequests, pollAfterMs."""
PROGRESS_MEMO = "mcp.progress"
"""Memo key the progress is published under (a catalog entry's `progressForm: published`)."""
INPUT_SIGNAL = "mcp.input"
"""Signal (one argument: {key: answer}) carrying the answers to input requests."""
TOOL_ERROR_TYPE = "McpToolError"
"""Application failure type of a tool-level error: the task completes with isError."""
TASK_STATUS_ATTRIBUTE = "McpTaskStatus"
"""Keyword search attribute: `working`, or `input_required` while the run waits for a person."""
ARTIFACT_REFERENCE_TYPE = "mcp_artifact"
"""The `type` of an artifact reference (docs/artifacts.md)."""

# A larger answer is not published (the gateway asks the query): it stays under the memo limit.
_MAX_PUBLISHED_CHARS = 32_000
_TASK_STATUS = SearchAttributeKey.for_keyword(TASK_STATUS_ATTRIBUTE)


class McpTool:
    """The contract for one run: construct it at the start of the workflow's run.

    It registers the progress query and the input signal, and publishes the same answer to the
    run's memo (and McpTaskStatus, when the run was started with it) whenever it changes.
    `extra` adds fields of the workflow's own to every progress answer.
    """

    def __init__(self, extra: Optional[Callable[[], dict[str, Any]]] = None) -> None:
        self._extra = extra
        self._status: dict[str, Any] = {}
        self._requests: dict[str, dict[str, Any]] = {}
        self._answers: dict[str, dict[str, Any]] = {}
        self._issued = 0
        self._published: Optional[str] = None
        self._task_status: Optional[str] = None
        self._with_status = workflow.info().typed_search_attributes.get(_TASK_STATUS) is not None
        workflow.set_query_handler(PROGRESS_QUERY, self.progress)
        workflow.set_signal_handler(INPUT_SIGNAL, self._receive)

    def progress(self) -> dict[str, Any]:
        """The progress answer, as the query gives it."""
        return {**(self._extra() if self._extra else {}), **self._status, "inputRequests": dict(self._requests)}

    def report(
        self,
        message: Optional[str] = None,
        progress: Optional[float] = None,
        total: Optional[float] = None,
        poll_after_ms: Optional[int] = None,
    ) -> None:
        """Updates the progress answer (the fields given) and publishes it."""
        update = {"message": message, "progress": progress, "total": total, "pollAfterMs": poll_after_ms}
        self._status.update({key: value for key, value in update.items() if value is not None})
        self._publish()

    async def ask(
        self, prefix: str, request: dict[str, Any], timeout: Optional[timedelta] = None
    ) -> Optional[dict[str, Any]]:
        """Asks for input (an elicitation, sampling or roots request) under a fresh key, `<prefix>-<n>`.

        Waits for the answer, at most `timeout` when given: returns it, or None when the time ran
        out (the request is then withdrawn).
        """
        self._issued += 1
        key = f"{prefix}-{self._issued}"
        self._requests[key] = request
        self._publish()
        try:
            await workflow.wait_condition(lambda: key in self._answers, timeout=timeout)
        except asyncio.TimeoutError:
            self._requests.pop(key, None)
            self._publish()
            return None
        return self._answers[key]

    def _receive(self, responses: dict[str, Any]) -> None:
        # Answers to unknown or already answered keys are ignored.
        taken = False
        for key, answer in responses.items():
            if key in self._requests and isinstance(answer, dict):
                del self._requests[key]
                self._answers[key] = answer
                taken = True
        if taken:
            self._publish()

    def _publish(self) -> None:
        answer = self.progress()
        text = json.dumps(answer, sort_keys=True)
        if text != self._published:
            self._published = text
            workflow.upsert_memo({PROGRESS_MEMO: answer if len(text) <= _MAX_PUBLISHED_CHARS else None})
        status = "input_required" if self._requests else "working"
        if self._with_status and status != self._task_status:
            self._task_status = status
            workflow.upsert_search_attributes([_TASK_STATUS.value_set(status)])


def tool_error(message: str) -> ApplicationError:
    """A tool-level error to raise: the task completes with isError and this message."""
    return ApplicationError(message, type=TOOL_ERROR_TYPE, non_retryable=True)
