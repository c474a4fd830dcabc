"""The yearly report as a Python workflow: the gateway's workflow contract with the temporalio SDK."""

from temporalio import workflow
from temporalio.common import SearchAttributeKey
from temporalio.exceptions import ApplicationError

TASK_STATUS = SearchAttributeKey.for_keyword("McpTaskStatus")


@workflow.defn(name="pyBuildReport")
class PyBuildReport:
    def __init__(self) -> None:
        self._status: dict = {"message": "Starting"}
        self._requests: dict = {}
        self._answers: dict = {}

    @workflow.query(name="mcp.progress")
    def progress(self) -> dict:
        return {**self._status, "inputRequests": dict(self._requests)}

    def _publish(self) -> None:
        # With progressForm: published: the same answer where one describe reads it.
        workflow.upsert_memo({"mcp.progress": self.progress()})
        if workflow.info().typed_search_attributes.get(TASK_STATUS) is not None:
            status = "input_required" if self._requests else "working"
            workflow.upsert_search_attributes([TASK_STATUS.value_set(status)])

    @workflow.signal(name="mcp.input")
    def input(self, responses: dict) -> None:
        for key, answer in responses.items():
            if key in self._requests:  # answers to unknown or answered keys are ignored
                del self._requests[key]
                self._answers[key] = answer
        self._publish()

    @workflow.run
    async def run(self, args: dict) -> dict:
        for month in range(1, 13):
            self._status = {"message": f"Month {month} of 12", "progress": month - 1, "total": 12}
            self._publish()
            await workflow.sleep(1)
        self._status = {"message": "Waiting for approval"}
        self._requests["publish-1"] = {
            "method": "elicitation/create",
            "params": {"mode": "form", "message": f"Publish the {args['year']} report?",
                       "requestedSchema": {"type": "object",
                                           "properties": {"ok": {"type": "boolean"}},
                                           "required": ["ok"]}},
        }
        self._publish()
        await workflow.wait_condition(lambda: "publish-1" in self._answers)
        answer = self._answers["publish-1"]
        if answer.get("action") != "accept" or (answer.get("content") or {}).get("ok") is not True:
            raise ApplicationError("Not published", type="McpToolError", non_retryable=True)
        return {"url": f"https://reports.example/{args['year']}"}
