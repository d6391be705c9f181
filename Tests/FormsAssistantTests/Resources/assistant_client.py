"""A real MCP client (the official Python SDK from PyPI) driving `formsctl mcp` over stdio.

Usage: assistant_client.py FORMSCTL STORE

It lists the tools, reads create_form's input schema, drafts an SF 30 with one mistake (an
acquisition id that breaks the pattern), gets the diagnostic, fixes it, applies it, and prints
one JSON line: {"id": ..., "diagnostic": ..., "tools": [...]}. Any step that does not go as
expected exits 1 with the reason.
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def fail(message):
    print(message, file=sys.stderr)
    sys.exit(1)


def field(model, snake, camel):
    """A result's member: the SDK spells it in snake case from 2.0, in camel case before."""
    return getattr(model, snake) if hasattr(model, snake) else getattr(model, camel)


def answer(result):
    text = "".join(item.text for item in result.content if getattr(item, "type", "") == "text")
    return json.loads(text)


async def main(formsctl, store):
    server = StdioServerParameters(command=formsctl, args=["mcp", "--store", store])
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            tools = (await session.list_tools()).tools
            names = [tool.name for tool in tools]
            create = next((tool for tool in tools if tool.name == "create_form"), None)
            if create is None:
                fail(f"no create_form tool among {names}")
            schema = field(create, "input_schema", "inputSchema")
            form_types = schema["properties"]["document"]["properties"]["form_type"]["enum"]
            if "SF30" not in form_types:
                fail(f"the input schema's form_type enum lacks SF30: {form_types}")
            draft = {
                "form_type": "SF30",
                "form_number": "SF 30",
                "acquisition_id": "ACQ-26-1",
                "fields": {"modification_number": "P00001", "effective_date": "2026-12-01"},
            }
            checked = answer(await session.call_tool("check_form", {"document": draft}))
            if checked["valid"] or not checked["diagnostics"]:
                fail(f"check_form found nothing wrong with a bad draft: {checked}")
            diagnostic = checked["diagnostics"][0]
            if diagnostic["pointer"] != "/acquisition_id":
                fail(f"the diagnostic is not about /acquisition_id: {diagnostic}")
            refused = await session.call_tool("create_form", {"document": draft, "apply": True})
            if not field(refused, "is_error", "isError"):
                fail("create_form applied a draft that check_form found invalid")
            draft["acquisition_id"] = "ACQ-2026-003"
            dry = answer(await session.call_tool("create_form", {"document": draft}))
            if dry["applied"] or dry["diagnostics"]:
                fail(f"the dry run of the fixed draft: {dry}")
            done = await session.call_tool("create_form", {"document": draft, "apply": True})
            if field(done, "is_error", "isError"):
                fail(f"create_form refused the fixed draft: {answer(done)}")
            created = answer(done)
            print(json.dumps({"id": created["id"], "diagnostic": diagnostic, "tools": names}))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        fail("usage: assistant_client.py FORMSCTL STORE")
    asyncio.run(main(sys.argv[1], sys.argv[2]))
