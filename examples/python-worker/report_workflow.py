"""The yearly report as a Python workflow: the gateway's workflow contract through temporal_mcp_contract."""

from temporalio import workflow

from temporal_mcp_contract import McpTool, tool_error


@workflow.defn(name="pyBuildReport")
class PyBuildReport:
    @workflow.run
    async def run(self, args: dict) -> dict:
        # The progress query and input signal; publishes progress to the memo (progressForm: published).
        tool = McpTool()
        for month in range(1, 13):
            tool.report(message=f"Month {month} of 12", progress=month - 1, total=12)
            await workflow.sleep(1)  # stands in for an activity doing the work
        tool.report(message="Waiting for approval")
        # An elicitation's answer: {"action", "content"?} (ask returns None only with a timeout).
        answer = await tool.ask("publish", {
            "method": "elicitation/create",
            "params": {"mode": "form", "message": f"Publish the {args['year']} report?",
                       "requestedSchema": {"type": "object",
                                           "properties": {"ok": {"type": "boolean"}},
                                           "required": ["ok"]}},
        })
        if answer is None or answer.get("action") != "accept" or (answer.get("content") or {}).get("ok") is not True:
            raise tool_error("Not published")
        return {"url": f"https://reports.example/{args['year']}"}
