"""Lists the gateway's tools and calls start_mining with the Python MCP SDK.

    pip install mcp
    MCP_TOKEN=<token> python client.py    # MCP_URL: default http://127.0.0.1:3000/mcp
"""

import asyncio
import os

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

URL = os.environ.get("MCP_URL") or "http://127.0.0.1:3000/mcp"


async def main() -> None:
    token = os.environ.get("MCP_TOKEN")
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    # A call may hold its answer up to the wait budget (20 s): a read timeout well above it.
    async with httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http:
        async with Client(streamable_http_client(URL, http_client=http)) as client:
            tools = await client.list_tools()
            print("tools:", ", ".join(tool.name for tool in tools.tools))
            result = await client.call_tool("start_mining", {"difficulty": 8, "blocks": 2})
            # Inline when done within the budget; else a handle: poll get_mining_result with its workflow_id.
            print(result.structured_content)


if __name__ == "__main__":
    asyncio.run(main())
