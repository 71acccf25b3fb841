"""Talk to `citegate mcp` with the official MCP Python SDK (`mcp` on PyPI): list the tools, call
each with good and bad input, print one JSON object of what came back for tests/mcp.rs to check.

    python3 tests/mcp/client.py CITEGATE_BINARY REPO_DIR
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

GROUNDED = {
    "summary": "The TTL is 30 seconds.",
    "citations": [{"path": "src/cache.rs", "startLine": 2, "endLine": 2,
                   "quote": "pub const TTL_SECONDS: u64 = 30;"}],
}
INVENTED = {
    "summary": "The TTL is 30 seconds.",
    "citations": [{"path": "src/ttl.rs", "startLine": 2, "endLine": 2, "quote": "TTL"}],
}
RETRIEVED = [{"path": "src/cache.rs", "start_line": 1, "end_line": 7}]


async def call(session, name, arguments):
    result = await session.call_tool(name, arguments)
    text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    try:
        body = json.loads(text)
    except ValueError:
        body = text
    return {"error": bool(result.is_error), "body": body}


async def main(binary, repo):
    params = StdioServerParameters(command=binary, args=["mcp", "--repo", repo])
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            listed = await session.list_tools()
            out["tools"] = sorted(t.name for t in listed.tools)
            out["tool_list_json"] = json.dumps([t.model_dump(exclude_none=True) for t in listed.tools])
            out["grounded"] = await call(session, "check_answer", {"answer": GROUNDED, "retrieved": RETRIEVED})
            out["invented"] = await call(session, "check_answer", {"answer": INVENTED, "retrieved": RETRIEVED})
            out["broken_answer"] = await call(session, "check_answer", {"answer": "{not json", "retrieved": RETRIEVED})
            out["bad_payload"] = await call(session, "check_answer", {"answer": GROUNDED, "retrieved": [{"x": 1}]})
            out["cite_lines"] = await call(session, "cite", {"path": "src/cache.rs", "start_line": 2, "end_line": 2})
            out["cite_quote"] = await call(session, "cite", {"quote": "pub fn ttl() -> u64 {"})
            out["cite_outside"] = await call(session, "cite", {"path": "../../etc/passwd", "start_line": 1})
            out["cite_past_end"] = await call(session, "cite", {"path": "src/cache.rs", "start_line": 90})
            out["docs"] = await call(session, "check_docs", {"paths": ["docs"]})
            out["doc_text"] = await call(session, "check_docs", {"path": "docs/new.md",
                                                                 "text": "The TTL: src/cache.rs:40.\n"})
            out["docs_outside"] = await call(session, "check_docs", {"paths": ["/etc"]})
            out["retrieve"] = await call(session, "retrieve", {"question": "how long is the cache TTL", "k": 2})
            out["retrieve_empty"] = await call(session, "retrieve", {"question": "  "})
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
