"""Runs pyBuildReport on the task queue `python-reports` (the one catalog.yaml names).

    python worker.py    # TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE as for the gateway
"""

import asyncio
import os

from temporalio.client import Client
from temporalio.worker import Worker

from report_workflow import PyBuildReport

TASK_QUEUE = "python-reports"


async def main() -> None:
    address = os.environ.get("TEMPORAL_ADDRESS") or "localhost:7233"
    namespace = os.environ.get("TEMPORAL_NAMESPACE") or "default"
    client = await Client.connect(address, namespace=namespace)
    worker = Worker(client, task_queue=TASK_QUEUE, workflows=[PyBuildReport])
    print(f"python worker: polling task queue {TASK_QUEUE!r} at {address}", flush=True)
    await worker.run()  # until Ctrl-C


if __name__ == "__main__":
    asyncio.run(main())
