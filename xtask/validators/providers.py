"""The providers' own libraries as validators of mcp-bindgen's tool exports.

Usage: python providers.py VALIDATOR EXPORT.json...

VALIDATOR is one of:
  google-genai   google-genai's pydantic models (extra keys forbidden): every Gemini
                 definition as types.FunctionDeclaration, its `parameters` as types.Schema and
                 its `parametersJsonSchema` as types.JSONSchema, each keeping every key
  openai-agents  the OpenAI Python SDK's request types (ChatCompletionFunctionToolParam,
                 responses.FunctionToolParam) keeping every key, and the OpenAI Agents SDK's
                 ensure_strict_json_schema on every strict definition, which must leave it
                 unchanged
  anthropic      the Anthropic Python SDK's request type (ToolParam) keeping every key

First, each validator must refuse a few known-bad definitions (KNOWN_BAD), or nothing it
says counts. Each EXPORT.json is the output of `cargo mcp-bindgen tools --format F --out EXPORT.json`
({"format": F, "tools": [...], ...}); formats the validator does not cover are skipped.
Prints each refusal, then one line per check (how many definitions it took and how many it
refused); exits 1 when a definition is refused or no definition was checked.
"""

import copy
import json
import sys
from collections import Counter
from importlib.metadata import version

MAX_SHOWN = 30


def same(a, b):
    """Equal as JSON values (1 and 1.0 alike; bool never equal to int)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def first_difference(a, b, path=""):
    """Where two JSON values first differ, as a JSON pointer and what each side holds."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k not in b:
                return f"{path}/{k}: dropped"
            if k not in a:
                return f"{path}/{k}: added"
            d = first_difference(a[k], b[k], f"{path}/{k}")
            if d:
                return d
        return None
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{path}: {len(a)} items became {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            d = first_difference(x, y, f"{path}/{i}")
            if d:
                return d
        return None
    if not same(a, b):
        return f"{path}: {json.dumps(a)[:80]} became {json.dumps(b)[:80]}"
    return None


class Report:
    def __init__(self):
        self.checked = Counter()
        self.refused = Counter()
        self.errors = []

    def check(self, what, where, fn):
        self.checked[what] += 1
        try:
            problem = fn()
        except Exception as e:  # the validator's own refusal, whatever its class
            problem = f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"
            detail = str(e).splitlines()[1:3]
            if detail:
                problem += " | " + " ".join(line.strip() for line in detail)
        if problem:
            self.refused[what] += 1
            self.errors.append(f"{what}: {where}: {problem}")

    def finish(self, validator):
        # The refusals first: the counts end the output, where a log's tail shows them.
        for e in self.errors[:MAX_SHOWN]:
            print(f"  refused: {e}")
        if len(self.errors) > MAX_SHOWN:
            print(f"  … and {len(self.errors) - MAX_SHOWN} more")
        for what in sorted(self.checked):
            print(f"{validator}: {what}: {self.checked[what]} definitions checked, "
                  f"{self.refused[what]} refused")
        if not self.checked:
            print(f"{validator}: no definition checked")
            return 1
        return 1 if self.errors else 0


def keeps_everything(adapter_or_model, value, dump):
    """Validates `value`; the problem when validation drops or changes a key."""
    validated = adapter_or_model(value)
    back = dump(validated)
    return first_difference(value, back)


def google_genai(exports, report):
    from google.genai import types

    package = f"google-genai {version('google-genai')}"

    def dump(model):
        return model.model_dump(mode="json", by_alias=True, exclude_none=True)

    for path, export in exports:
        if export.get("format") != "gemini":
            continue
        for decl in export.get("tools", []):
            where = f"{path}: {decl.get('name')}"
            report.check(f"{package} types.FunctionDeclaration", where,
                         lambda: types.FunctionDeclaration.model_validate(decl) and None)
            if "parameters" in decl:
                report.check(f"{package} types.Schema (parameters)", where,
                             lambda: schema_difference(types, decl["parameters"]))
            if "parametersJsonSchema" in decl:
                report.check(f"{package} types.JSONSchema (parametersJsonSchema)", where,
                             lambda: keeps_everything(types.JSONSchema.model_validate,
                                                      decl["parametersJsonSchema"], dump))


def schema_difference(types, value):
    """types.Schema validation, then what its dump lost (type names compared without case)."""
    model = types.Schema.model_validate(value)
    back = model.model_dump(mode="json", by_alias=True, exclude_none=True)
    return first_difference(lowered_types(value), lowered_types(back))


def lowered_types(value):
    if isinstance(value, dict):
        return {k: (v.lower() if k == "type" and isinstance(v, str) else lowered_types(v))
                for k, v in value.items()}
    if isinstance(value, list):
        return [lowered_types(v) for v in value]
    return value


def openai_agents(exports, report):
    from pydantic import TypeAdapter
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.responses import FunctionToolParam
    from agents.strict_schema import ensure_strict_json_schema

    sdk = f"openai {version('openai')}"
    agents = f"openai-agents {version('openai-agents')}"
    chat = TypeAdapter(ChatCompletionFunctionToolParam)
    responses = TypeAdapter(FunctionToolParam)

    def strict_unchanged(parameters):
        after = ensure_strict_json_schema(copy.deepcopy(parameters))
        return first_difference(parameters, after)

    for path, export in exports:
        fmt = export.get("format")
        if fmt not in ("openai", "openai-strict", "openai-responses"):
            continue
        for tool in export.get("tools", []):
            if fmt == "openai-responses":
                function = tool
                request = (f"{sdk} responses.FunctionToolParam", responses)
            else:
                function = tool.get("function", {})
                request = (f"{sdk} chat.ChatCompletionFunctionToolParam", chat)
            where = f"{path}: {function.get('name')}"
            what, adapter = request
            report.check(what, where, lambda: keeps_everything(
                lambda v: adapter.validate_python(v, strict=True), tool, lambda v: v))
            if function.get("strict") is True:
                report.check(f"{agents} ensure_strict_json_schema ({fmt})", where,
                             lambda: strict_unchanged(function.get("parameters", {})))


def anthropic(exports, report):
    from pydantic import TypeAdapter
    from anthropic.types import ToolParam

    sdk = f"anthropic {version('anthropic')}"
    adapter = TypeAdapter(ToolParam)
    for path, export in exports:
        if export.get("format") != "anthropic":
            continue
        for tool in export.get("tools", []):
            where = f"{path}: {tool.get('name')}"
            report.check(f"{sdk} types.ToolParam", where, lambda: keeps_everything(
                lambda v: adapter.validate_python(v, strict=True), tool, lambda v: v))


VALIDATORS = {"google-genai": google_genai, "openai-agents": openai_agents,
              "anthropic": anthropic}

# Definitions each validator must refuse, one per check: a validator that takes them all
# could not fail, and its counts would prove nothing.
KNOWN_BAD = {
    "google-genai": [
        # a key FunctionDeclaration does not have
        {"format": "gemini", "tools": [{"name": "t", "strict": True}]},
        # `oneOf` is not a key of Gemini's Schema
        {"format": "gemini", "tools": [{"name": "t", "parameters": {
            "type": "OBJECT", "properties": {"a": {"oneOf": [{"type": "STRING"}]}}}}]},
        # `const` is outside the JSON Schema subset (google-genai's JSONSchema model)
        {"format": "gemini", "tools": [{"name": "t", "parametersJsonSchema": {
            "type": "object", "properties": {"a": {"const": 1}}}}]},
        # a null google-genai leaves out of the request
        {"format": "gemini", "tools": [{"name": "t", "parametersJsonSchema": {
            "type": "object", "properties": {"a": {"type": "string", "default": None}}}}]},
    ],
    "openai-agents": [
        # a key the request type does not have
        {"format": "openai", "tools": [{"type": "function", "function": {"name": "t"},
                                        "cache": True}]},
        # strict, but neither closed nor fully required: the Agents SDK rewrites it
        {"format": "openai-strict", "tools": [{"type": "function", "function": {
            "name": "t", "strict": True, "parameters": {
                "type": "object", "properties": {"a": {"type": "string"}}}}}]},
        # the Responses API's function tool without its `strict`
        {"format": "openai-responses", "tools": [{"type": "function", "name": "t",
                                                  "parameters": {"type": "object"}}]},
    ],
    "anthropic": [
        # no input_schema
        {"format": "anthropic", "tools": [{"name": "t"}]},
        # a key ToolParam does not have
        {"format": "anthropic", "tools": [{"name": "t", "input_schema": {"type": "object"},
                                           "parameters": {}}]},
    ],
}


def self_test(validator):
    """Each known-bad definition must be refused; the problem when one is taken."""
    for i, export in enumerate(KNOWN_BAD[validator]):
        report = Report()
        VALIDATORS[validator]([(f"known-bad #{i}", export)], report)
        if not report.errors:
            return (f"{validator}: the known-bad definition #{i} was taken "
                    f"({json.dumps(export)}): this validator cannot fail")
    return None


def main(argv):
    if len(argv) < 3 or argv[1] not in VALIDATORS:
        print(__doc__, file=sys.stderr)
        return 2
    exports = []
    for path in argv[2:]:
        with open(path, encoding="utf-8") as f:
            exports.append((path, json.load(f)))
    problem = self_test(argv[1])
    if problem:
        print(problem)
        return 1
    print(f"{argv[1]}: {len(KNOWN_BAD[argv[1]])} known-bad definitions refused (self-test)")
    report = Report()
    VALIDATORS[argv[1]](exports, report)
    return report.finish(argv[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
