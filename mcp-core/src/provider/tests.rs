use serde_json::{Value, json};

use super::*;

fn anthropic(schema: Value) -> (Value, Option<String>) {
    let (d, f) = definition(Format::Anthropic, "mcp_s_t", Some("Does t."), &schema);
    check(Format::Anthropic, &d).unwrap_or_else(|e| panic!("{e}: {d}"));
    (d, f)
}

fn gemini(schema: Value) -> (Value, Option<String>) {
    let (d, f) = definition(Format::Gemini, "mcp_s_t", Some("Does t."), &schema);
    check(Format::Gemini, &d).unwrap_or_else(|e| panic!("{e}: {d}"));
    (d, f)
}

#[test]
fn formats_parse_and_print() {
    for f in Format::ALL {
        assert_eq!(f.as_str().parse::<Format>(), Ok(f));
    }
    let e = "claude".parse::<Format>().unwrap_err();
    assert!(
        e.contains("openai, openai-strict, openai-responses, anthropic or gemini"),
        "{e}"
    );
}

#[test]
fn the_responses_api_takes_flat_functions_with_strict_always_written() {
    let fits =
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]});
    let (d, f) = definition(Format::OpenAiResponses, "mcp_s_t", Some("Search."), &fits);
    assert_eq!(f, None);
    assert_eq!(
        d,
        json!({"type": "function", "name": "mcp_s_t", "description": "Search.", "strict": true,
               "parameters": {"type": "object", "properties": {"q": {"type": "string"}},
                              "required": ["q"], "additionalProperties": false}})
    );
    check(Format::OpenAiResponses, &d).expect("valid");
    // A free-form object cannot be strict: `strict: false` said out loud, with the reason.
    let open = json!({"type": "object", "properties": {"meta": {"type": "object"}}});
    let (d, f) = definition(Format::OpenAiResponses, "mcp_s_t", None, &open);
    assert_eq!(d["strict"], json!(false));
    assert!(f.is_some());
    check(Format::OpenAiResponses, &d).expect("valid");
    // Without `strict` the Responses API would read it as true.
    let mut bad = d.clone();
    bad.as_object_mut().map(|m| m.remove("strict"));
    assert!(check(Format::OpenAiResponses, &bad).is_err());
    // The chat-completions nesting is not the Responses form.
    let (chat, _) = definition(Format::OpenAi, "mcp_s_t", None, &fits);
    assert!(check(Format::OpenAiResponses, &chat).is_err());
}

#[test]
fn anthropic_passes_the_schema_through() {
    let schema = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "type": "object",
        "properties": {"q": {"type": "string", "format": "uri"}, "n": {"anyOf": [{"type": "integer"}, {"type": "null"}]}},
        "required": ["q"],
        "$defs": {"X": {"type": "string"}}
    });
    let (d, f) = anthropic(schema.clone());
    assert_eq!(f, None);
    assert_eq!(d["name"], "mcp_s_t");
    assert_eq!(d["description"], "Does t.");
    let mut expected = schema;
    expected.as_object_mut().unwrap().remove("$schema");
    assert_eq!(d["input_schema"], expected);
    // No arguments: an object schema with no properties.
    let (d, _) = anthropic(json!({}));
    assert_eq!(
        d["input_schema"],
        json!({"type": "object", "properties": {}})
    );
}

#[test]
fn anthropic_merges_root_combinators() {
    let (d, f) = anthropic(json!({
        "type": "object",
        "properties": {"owner": {"type": "string"}},
        "required": ["owner"],
        "oneOf": [
            {"properties": {"issue": {"type": "integer"}}, "required": ["issue"]},
            {"properties": {"pr": {"type": "integer"}}, "required": ["pr"]}
        ]
    }));
    let s = &d["input_schema"];
    assert_eq!(s["required"], json!(["owner"]));
    assert!(s["properties"]["issue"].is_object() && s["properties"]["pr"].is_object());
    assert!(
        d["description"]
            .as_str()
            .unwrap()
            .ends_with("Arguments: exactly one of these sets: (issue) or (pr).")
    );
    assert!(
        f.unwrap()
            .contains("root oneOf (2 alternatives) was merged")
    );
    // allOf of objects merges without loss.
    let (d, f) = anthropic(json!({"allOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"$ref": "#/$defs/B"}
    ], "$defs": {"B": {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}}}));
    assert_eq!(f, None);
    assert_eq!(d["input_schema"]["required"], json!(["a", "b"]));
    assert_eq!(d["input_schema"]["properties"]["b"]["type"], "integer");
}

#[test]
fn anthropic_translates_old_drafts() {
    let (d, _) = anthropic(json!({"type": "object", "properties": {
        "a": {"type": "string", "required": true},
        "b": {"type": "number", "minimum": 0, "exclusiveMinimum": true},
        "c": {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]},
        "d": {"type": "any"}
    }}));
    let s = &d["input_schema"];
    assert_eq!(s["required"], json!(["a"]));
    assert!(s["properties"]["a"].get("required").is_none());
    assert_eq!(
        s["properties"]["b"],
        json!({"type": "number", "exclusiveMinimum": 0})
    );
    assert_eq!(s["properties"]["c"]["prefixItems"][1]["type"], "integer");
    assert_eq!(s["properties"]["d"], json!({}));
}

#[test]
fn gemini_converts_to_the_schema_subset() {
    let (d, f) = gemini(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "title": "Args",
        "additionalProperties": false,
        "properties": {
            "repo": {"$ref": "#/$defs/Repo"},
            "state": {"type": "string", "enum": ["open", "closed"], "default": "open"},
            "limit": {"type": ["integer", "null"], "minimum": 1, "exclusiveMaximum": 100},
            "labels": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "when": {"type": "string", "format": "date-time"},
            "url": {"type": "string", "format": "uri", "description": "Where"},
            "id": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
            "mode": {"const": "fast"},
            "level": {"type": "integer", "enum": [1, 2, 3]}
        },
        "required": ["repo", "missing"],
        "$defs": {"Repo": {"type": "object", "properties": {"owner": {"type": "string"}}, "required": ["owner"]}}
    }));
    assert_eq!(f, None);
    let p = &d["parameters"];
    assert_eq!(p["type"], "OBJECT");
    assert_eq!(p["required"], json!(["repo"]));
    assert!(p.get("title").is_none() && p.get("additionalProperties").is_none());
    let props = &p["properties"];
    assert_eq!(
        props["repo"],
        json!({"type": "OBJECT", "properties": {"owner": {"type": "STRING"}}, "required": ["owner"]})
    );
    assert_eq!(
        props["state"],
        json!({"type": "STRING", "enum": ["open", "closed"], "description": "Default: \"open\"."})
    );
    assert_eq!(
        props["limit"],
        json!({"type": "INTEGER", "minimum": 1, "nullable": true, "description": "Less than 100."})
    );
    assert_eq!(props["labels"]["items"], json!({"type": "STRING"}));
    assert_eq!(props["when"]["format"], "date-time");
    assert_eq!(
        props["url"],
        json!({"type": "STRING", "description": "Where. Format: uri."})
    );
    assert_eq!(
        props["id"],
        json!({"anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]})
    );
    assert_eq!(props["mode"], json!({"type": "STRING", "enum": ["fast"]}));
    assert_eq!(
        props["level"],
        json!({"type": "INTEGER", "description": "One of: 1, 2, 3."})
    );
    // No arguments: no parameters at all.
    let (d, f) = gemini(json!({"type": "object", "properties": {}}));
    assert_eq!(
        (d, f),
        (json!({"name": "mcp_s_t", "description": "Does t."}), None)
    );
}

#[test]
fn gemini_falls_back_with_the_reason() {
    for (schema, needle) in [
        (
            json!({"type": "object", "properties": {"env": {"type": "object", "additionalProperties": {"type": "string"}}}}),
            "/properties/env: an object without declared properties",
        ),
        (
            json!({"type": "object", "properties": {"value": {}}}),
            "/properties/value: a value of any JSON type",
        ),
        (
            json!({"type": "object", "properties": {"list": {"type": "array"}}}),
            "/properties/list: an array without an item schema",
        ),
        (
            json!({"$defs": {"N": {"type": "object", "properties": {"next": {"$ref": "#/$defs/N"}}}},
                   "type": "object", "properties": {"head": {"$ref": "#/$defs/N"}}}),
            "recursive $ref",
        ),
        (
            json!({"type": "object", "properties": {"x": {"not": {"type": "string"}}}}),
            "`not` cannot be expressed",
        ),
    ] {
        let (d, f) = gemini(schema.clone());
        let reason = f.unwrap_or_else(|| panic!("no fallback for {schema}"));
        assert!(reason.contains(needle), "{reason}");
        assert!(d.get("parameters").is_none());
        assert_eq!(d["parametersJsonSchema"]["type"], "object");
        if needle.contains("`not`") {
            // Outside the subset google-genai's JSONSchema model takes: dropped (wider).
            assert_eq!(d["parametersJsonSchema"]["properties"], json!({"x": {}}));
            assert!(reason.contains("`not` dropped"), "{reason}");
        } else {
            assert_eq!(
                d["parametersJsonSchema"]["properties"],
                schema["properties"]
            );
        }
    }
}

#[test]
fn gemini_json_schema_keeps_to_the_subset_google_genai_takes() {
    let schema = json!({"type": "object", "properties": {
        "kind": {"const": "a"},
        "n": {"type": "number", "exclusiveMinimum": 0, "multipleOf": 0.5},
        "keys": {"type": "object", "propertyNames": {"pattern": "^[a-z]+$"}, "additionalProperties": {"type": "string"}},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer"}], "items": false},
        "any": {},
        "x": {"type": "string", "examples": ["e"], "x-internal": true},
        "maybe": {"type": ["string", "null"], "default": null},
        "free": {"type": "array", "prefixItems": []},
        "none": {"type": "array", "prefixItems": [], "items": false}
    }});
    let (d, reason) = definition(Format::Gemini, "mcp_s_t", None, &schema);
    check(Format::Gemini, &d).unwrap_or_else(|e| panic!("{e}"));
    let p = &d["parametersJsonSchema"]["properties"];
    assert_eq!(p["kind"], json!({"enum": ["a"]}));
    assert_eq!(p["n"]["minimum"], json!(0));
    assert!(
        p["n"]["description"]
            .as_str()
            .unwrap_or("")
            .contains("greater than 0")
    );
    assert!(p["keys"].get("propertyNames").is_none());
    assert_eq!(
        p["pair"]["items"],
        json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
    );
    assert_eq!(p["x"], json!({"type": "string"}));
    // google-genai leaves a null out of the request (found by its JSONSchema model).
    assert!(p["maybe"].get("default").is_none(), "{}", p["maybe"]);
    // No positions: any array, or (nothing after them) only the empty one.
    assert_eq!(p["free"], json!({"type": "array"}));
    assert_eq!(p["none"], json!({"type": "array", "maxItems": 0}));
    let reason = reason.unwrap_or_default();
    assert!(reason.contains("subset Gemini takes"), "{reason}");
    let refused = json!({"name": "t", "parametersJsonSchema":
        {"type": "object", "properties": {"k": {"const": 1}}}});
    let e = check(Format::Gemini, &refused).unwrap_err();
    assert!(e.contains("/properties/k/const"), "{e}");
    // Booleans where google-genai's JSONSchema takes only objects (found by its model on
    // the property sample): widened, never a boolean left in those places.
    let booleans = json!({"type": "object", "additionalProperties": false, "properties": {
        "never": false,
        "any": true,
        "list": {"type": "array", "items": {"anyOf": [{"type": "string"}, true, false]}},
        "empty": {"type": "array", "items": false},
        "free": {"type": "array", "items": true},
        "node": {"$ref": "#/$defs/X"},
        "pair": {"type": "array", "prefixItems": [{"type": "string"}, false]}
    }, "$defs": {"X": {"type": "object", "properties": {"v": {"anyOf": [false]}}}, "Y": false}});
    let (d, _) = definition(Format::Gemini, "mcp_s_t", None, &booleans);
    check(Format::Gemini, &d).unwrap_or_else(|e| panic!("{e}"));
    let s = &d["parametersJsonSchema"];
    let p = &s["properties"];
    assert!(p.get("never").is_none(), "{s}");
    assert_eq!(s["additionalProperties"], json!(false), "{s}");
    assert_eq!(p["any"], json!({}));
    assert_eq!(p["list"]["items"]["anyOf"], json!([{"type": "string"}, {}]));
    assert_eq!(p["empty"], json!({"type": "array", "maxItems": 0}));
    assert_eq!(p["free"], json!({"type": "array"}));
    assert_eq!(p["pair"]["items"]["anyOf"], json!([{"type": "string"}]));
    assert_eq!(s["$defs"]["X"]["properties"]["v"], json!({}));
    assert_eq!(s["$defs"]["Y"], json!({}));
    let refused = json!({"name": "t", "parametersJsonSchema":
        {"type": "object", "properties": {"k": true}}});
    let e = check(Format::Gemini, &refused).unwrap_err();
    assert!(e.contains("/properties/k (true"), "{e}");
    let null = json!({"name": "t", "parametersJsonSchema":
        {"type": "object", "properties": {"k": {"type": "string", "default": null}}}});
    let e = check(Format::Gemini, &null).unwrap_err();
    assert!(e.contains("/properties/k/default (null)"), "{e}");
}

#[test]
fn checks_refuse_what_providers_refuse() {
    let bad_gemini = [
        json!({"name": "1abc"}),
        json!({"name": "a.b"}),
        json!({"name": "t", "parameters": {"type": "OBJECT", "properties": {}}}),
        json!({"name": "t", "parameters": {"type": "OBJECT", "properties": {"a": {"type": "string"}}}}),
        json!({"name": "t", "parameters": {"type": "OBJECT", "properties": {"a": {"type": "ARRAY"}}}}),
        json!({"name": "t", "parameters": {"type": "OBJECT", "properties": {"a": {"type": "INTEGER", "enum": [1]}}}}),
        json!({"name": "t", "parameters": {"type": "OBJECT", "properties": {"a": {"type": "STRING", "const": "x"}}}}),
        json!({"name": "t", "parameters": {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}, "required": ["b"]}}),
        json!({"name": "t", "parameters": {"type": "OBJECT", "properties": {"a": {"type": "STRING"}}}, "parametersJsonSchema": {"type": "object"}}),
    ];
    for d in bad_gemini {
        assert!(check(Format::Gemini, &d).is_err(), "{d}");
    }
    let bad_anthropic = [
        json!({"name": "t", "input_schema": {"type": "object", "anyOf": []}}),
        json!({"name": "t", "input_schema": {"type": "string"}}),
        json!({"name": "a:b", "input_schema": {"type": "object"}}),
        json!({"name": "t", "parameters": {"type": "object"}}),
    ];
    for d in bad_anthropic {
        assert!(check(Format::Anthropic, &d).is_err(), "{d}");
    }
}

#[test]
fn a_root_that_is_not_an_object_is_exported_as_no_arguments_with_the_reason() {
    // MCP arguments are an object; a server that declares another root type is broken.
    let schema = json!({"type": "string"});
    for format in Format::ALL {
        let (d, f) = definition(format, "mcp_s_t", None, &schema);
        check(format, &d).unwrap_or_else(|e| panic!("{format}: {e}: {d}"));
        if format == Format::OpenAi {
            assert_eq!(
                d["function"]["parameters"],
                json!({"type": "object", "properties": {}})
            );
        }
        // Every format says so, the plain OpenAI one included.
        let reason = f.unwrap_or_else(|| panic!("{format}: no reason"));
        assert!(
            reason.contains("not an object schema (type \"string\")"),
            "{reason}"
        );
    }
}

#[test]
fn refs_that_lead_nowhere_are_removed_with_the_reason() {
    let schema = json!({"type": "object", "properties": {
        "a": {"$ref": "#/$defs/Missing", "description": "A."},
        "b": {"$ref": "https://example.com/other.json"}
    }});
    let (d, f) = anthropic(schema.clone());
    assert_eq!(
        d["input_schema"]["properties"]["a"],
        json!({"description": "A."})
    );
    assert_eq!(d["input_schema"]["properties"]["b"], json!({}));
    let reason = f.expect("reason");
    assert!(
        reason.contains("\"#/$defs/Missing\", \"https://example.com/other.json\" leads nowhere"),
        "{reason}"
    );
    let (d, f) = gemini(schema);
    assert!(
        !d["parametersJsonSchema"].to_string().contains("$ref"),
        "{d}"
    );
    assert!(f.expect("reason").contains("leads nowhere"));
}

/// The parameters of every OpenAI format (the plain ones where strict cannot be).
fn openai_parameters(format: Format, d: &Value) -> &Value {
    match format {
        Format::OpenAiResponses => &d["parameters"],
        _ => &d["function"]["parameters"],
    }
}

const OPENAI: [Format; 3] = [
    Format::OpenAi,
    Format::OpenAiStrict,
    Format::OpenAiResponses,
];

#[test]
fn an_any_value_record_is_written_as_additional_properties_true() {
    // zod's `z.record(z.any())`: OpenAI answers "schema must have a 'type' key" and the run
    // completes with no tool call (chattermate #303).
    let schema = json!({"type": "object", "properties": {
        "meta": {"type": "object", "additionalProperties": {}},
        "tags": {"type": "array", "items": {"type": "object", "additionalProperties": {"description": "any"}}}
    }});
    for format in OPENAI {
        let (d, _) = definition(format, "mcp_s_t", None, &schema);
        check(format, &d).unwrap_or_else(|e| panic!("{format}: {e}"));
        let p = openai_parameters(format, &d);
        assert_eq!(
            p["properties"]["meta"]["additionalProperties"],
            json!(true),
            "{format}: {p}"
        );
        assert_eq!(
            p["properties"]["tags"]["items"]["additionalProperties"],
            json!(true),
            "{format}: {p}"
        );
    }
    let refused = json!({"type": "function", "function": {"name": "t", "parameters":
        {"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {}}}}}});
    let e = check(Format::OpenAi, &refused).unwrap_err();
    assert!(
        e.contains("chattermate #303") && e.contains("/properties/m"),
        "{e}"
    );
}

#[test]
fn one_of_reaches_no_openai_export() {
    // The Responses API refuses `oneOf` anywhere even without `strict`, and one such tool
    // fails the whole request (oh-my-pi #920). A free-form `extra` keeps it non-strict.
    let schema = json!({"type": "object", "properties": {
        "extra": {"type": "object"},
        "target": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "shape": {"oneOf": [
            {"type": "object", "properties": {"kind": {"const": "a"}, "x": {"type": "number"}}, "required": ["kind"]},
            {"type": "object", "properties": {"kind": {"const": "b"}}, "required": ["kind"]}
        ]},
        "loose": {"oneOf": [{"type": "object", "properties": {"a": {"type": "string"}}}, {"type": "object"}]}
    }});
    for format in OPENAI {
        let (d, reason) = definition(format, "mcp_s_t", None, &schema);
        check(format, &d).unwrap_or_else(|e| panic!("{format}: {e}"));
        assert!(!d.to_string().contains("oneOf"), "{format}: {d}");
        // Disjoint by type and by discriminator: equivalent; the open objects may overlap.
        let reason = reason.unwrap_or_default();
        assert!(
            reason.contains("1 `oneOf` written as `anyOf` whose branches may match one value"),
            "{format}: {reason}"
        );
    }
    let refused = json!({"type": "function", "name": "t", "strict": false, "parameters":
        {"type": "object", "properties": {"a": {"oneOf": [{"type": "string"}]}}}});
    let e = check(Format::OpenAiResponses, &refused).unwrap_err();
    assert!(e.contains("oh-my-pi #920"), "{e}");
}

#[test]
fn no_root_combinator_enum_or_not_reaches_an_openai_export() {
    // Function parameters must be an object schema (langchainjs #9804).
    let roots = [
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
            "anyOf": [{"required": ["a"]}, {"required": ["b"]}]}),
        json!({"oneOf": [
            {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
            {"type": "object", "properties": {"b": {"type": "integer"}}, "required": ["b"]}]}),
        json!({"allOf": [{"type": "object", "properties": {"a": {"type": "string"}}}]}),
        json!({"type": "object", "properties": {}, "enum": [{}]}),
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "not": {"required": ["a"]}}),
    ];
    for schema in roots {
        for format in OPENAI {
            let (d, _) = definition(format, "mcp_s_t", None, &schema);
            check(format, &d).unwrap_or_else(|e| panic!("{format}: {e}: {schema}"));
            let p = openai_parameters(format, &d);
            for k in ["oneOf", "anyOf", "allOf", "enum", "not"] {
                assert!(p.get(k).is_none(), "{format}: root `{k}` in {p}");
            }
        }
    }
    let refused = json!({"type": "function", "function": {"name": "t", "parameters":
        {"type": "object", "anyOf": [{"required": ["a"]}]}}});
    let e = check(Format::OpenAi, &refused).unwrap_err();
    assert!(e.contains("langchainjs #9804"), "{e}");
}
