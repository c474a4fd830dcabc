"""The peer of the gateway in the benchmark: a fastmcp-tasks server on Redis.

It serves `start_mining` as a task tool (the client opts in per request, as with the gateway)
whose body stays running without using the CPU, like a mining run parked on its task queue.

    python fastmcp_tasks_server.py PORT REDIS_URL
"""

import asyncio
import sys

from fastmcp import FastMCP
from fastmcp.utilities.tasks import TaskConfig
from fastmcp_tasks import TasksExtension

port = int(sys.argv[1])
redis_url = sys.argv[2]

mcp = FastMCP("fastmcp-tasks-peer")
# Concurrency above the number of running tasks the benchmark holds, so every one is "working".
mcp.add_extension(TasksExtension(url=redis_url, name="bench-peer", concurrency=2000))


@mcp.tool(task=TaskConfig(mode="optional"))
async def start_mining(difficulty: int, blocks: int, data: str = "") -> dict:
    """Runs far longer than any measurement, then answers like a finished chain."""
    await asyncio.sleep(3600)
    return {"difficulty": difficulty, "blocks": blocks, "data": data}


if __name__ == "__main__":
    mcp.run(transport="http", host="127.0.0.1", port=port, path="/mcp", show_banner=False)
