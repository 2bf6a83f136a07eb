"""Python MCP SDK contender of `cargo xtask bench` (driven by the `mcp-bench` binary).

usage: python python_client.py SERVER LARGE_PAYLOAD_JSON

Starts SERVER with `--pipes` through the official SDK's `stdio_client`, initializes a
`ClientSession`, prints `ready`, then answers one command per stdin line:

  small N        N sequential `add` calls; prints the elapsed nanoseconds
  large N        N sequential `echo_structured` calls with the payload file; prints nanoseconds
  quit           closes the session and exits

Every result is checked (the sum, the echoed record count), so a broken call fails loudly.
"""

import json
import os
import sys
import time

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client


def reply(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


async def main() -> int:
    server, payload_path = sys.argv[1], sys.argv[2]
    with open(payload_path, encoding="utf-8") as f:
        large = json.load(f)
    expected_count = len(large["payload"])
    params = StdioServerParameters(command=server, args=["--pipes"], env=dict(os.environ))
    with open(os.devnull, "w", encoding="utf-8") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                reply("ready")
                while True:
                    line = await anyio.to_thread.run_sync(sys.stdin.readline)
                    words = line.split()
                    if not words or words[0] == "quit":
                        return 0
                    kind, n = words[0], int(words[1])
                    if kind == "small":
                        started = time.perf_counter_ns()
                        for i in range(n):
                            r = await session.call_tool("add", {"a": float(i), "b": 0.5})
                            if r.is_error:
                                raise RuntimeError(f"add failed: {r}")
                        elapsed = time.perf_counter_ns() - started
                        text = r.content[0].text
                        if float(text) != float(n - 1) + 0.5:
                            raise RuntimeError(f"add returned {text!r}")
                    elif kind == "large":
                        started = time.perf_counter_ns()
                        for _ in range(n):
                            r = await session.call_tool("echo_structured", large)
                            if r.is_error:
                                raise RuntimeError(f"echo_structured failed: {r}")
                        elapsed = time.perf_counter_ns() - started
                        count = r.structured_content["count"]
                        if count != expected_count:
                            raise RuntimeError(f"echo_structured echoed {count} records")
                    else:
                        raise RuntimeError(f"unknown command {line!r}")
                    reply(str(elapsed))


if __name__ == "__main__":
    sys.exit(anyio.run(main))
