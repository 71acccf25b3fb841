"""Talk to `citegate mcp` with the official MCP Python SDK (`mcp` on PyPI): initialize, list the
tools, call each with good and bad input, print one JSON object of what came back for
tests/it/mcp.rs to check.

    python3 tests/mcp/client.py CITEGATE_BINARY REPO_DIR [CALLS_JSON]

CALLS_JSON, when given, replaces the default calls: `{"NAME": {"tool": T, "arguments": {...}}}`,
or `{"NAME": {"tool": T, "cli": ["key=value", ...]}}` to fill the arguments from strings by the
listed input schema, as the MCP Inspector's command line does (`--tool-arg key=value`).
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.shared import exceptions

# `MCPError` since the SDK's 2.0, `McpError` before.
McpError = getattr(exceptions, "MCPError", None) or getattr(exceptions, "McpError")
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


def calls(tool, arguments):
    return {"tool": tool, "arguments": arguments}


DEFAULT = {
    "grounded": calls("check_answer", {"answer": GROUNDED, "retrieved": RETRIEVED}),
    "invented": calls("check_answer", {"answer": INVENTED, "retrieved": RETRIEVED}),
    "broken_answer": calls("check_answer", {"answer": "{not json", "retrieved": RETRIEVED}),
    "bad_payload": calls("check_answer", {"answer": GROUNDED, "retrieved": [{"x": 1}]}),
    "cite_lines": calls("cite", {"path": "src/cache.rs", "start_line": 2, "end_line": 2}),
    "cite_quote": calls("cite", {"quote": "pub fn ttl() -> u64 {"}),
    "cite_outside": calls("cite", {"path": "../../etc/passwd", "start_line": 1}),
    "cite_past_end": calls("cite", {"path": "src/cache.rs", "start_line": 90}),
    "docs": calls("check_docs", {"paths": ["docs"]}),
    "doc_text": calls("check_docs", {"path": "docs/new.md", "text": "The TTL: src/cache.rs:40.\n"}),
    "docs_outside": calls("check_docs", {"paths": ["/etc"]}),
    "retrieve": calls("retrieve", {"question": "how long is the cache TTL", "k": 2}),
    "retrieve_empty": calls("retrieve", {"question": "  "}),
}


def from_strings(pairs, schema):
    """Arguments from `key=value` strings, each converted by its property's `type` as the MCP
    Inspector's command line converts them: a type that is not one string (`["integer", "null"]`)
    leaves the value a string."""
    properties = schema.get("properties", {})
    out = {}
    for pair in pairs:
        key, value = pair.split("=", 1)
        kind = properties.get(key, {}).get("type")
        if kind in ("integer", "number"):
            value = int(value) if kind == "integer" else float(value)
        elif kind == "boolean":
            value = value == "true"
        elif kind in ("object", "array"):
            value = json.loads(value)
        out[key] = value
    return out


async def call(session, name, arguments):
    try:
        result = await session.call_tool(name, arguments)
    except McpError as e:
        # Arguments the server cannot read: a JSON-RPC error, not a tool result.
        return {"error": True, "protocol": True, "body": e.error.message, "arguments": arguments}
    text = "".join(c.text for c in result.content if getattr(c, "type", "") == "text")
    try:
        body = json.loads(text)
    except ValueError:
        body = text
    return {"error": bool(result.is_error), "body": body, "arguments": arguments}


async def main(binary, repo, script):
    params = StdioServerParameters(command=binary, args=["mcp", "--repo", repo])
    out = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            out["server_info"] = init.server_info.model_dump(exclude_none=True, by_alias=True)
            out["instructions"] = init.instructions
            listed = await session.list_tools()
            out["tools"] = sorted(t.name for t in listed.tools)
            out["tool_list_json"] = json.dumps([t.model_dump(exclude_none=True) for t in listed.tools])
            schemas = {t.name: t.input_schema for t in listed.tools}
            out["schemas"] = schemas
            for name, c in script.items():
                arguments = c.get("arguments")
                if arguments is None:
                    arguments = from_strings(c["cli"], schemas[c["tool"]])
                out[name] = await call(session, c["tool"], arguments)
    print(json.dumps(out))


if __name__ == "__main__":
    script = DEFAULT
    if len(sys.argv) > 3:
        with open(sys.argv[3], encoding="utf-8") as f:
            script = json.load(f)
    asyncio.run(main(sys.argv[1], sys.argv[2], script))
