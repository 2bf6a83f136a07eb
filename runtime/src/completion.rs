//! Argument completion (`completion/complete`): what a server suggests for a prompt's
//! argument or a resource template's variable, as a user types it.

use serde_json::{Map, Value, json};

/// What is being completed: a prompt (by name) or a resource template (by its URI
/// template).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionRef {
    /// A prompt's argument: `ref/prompt` with the prompt's name.
    Prompt(String),
    /// A resource template's variable: `ref/resource` with the template's URI template
    /// (`test://static/resource/{id}`).
    ResourceTemplate(String),
}

impl CompletionRef {
    /// A prompt's argument.
    pub fn prompt(name: impl Into<String>) -> Self {
        CompletionRef::Prompt(name.into())
    }

    /// A resource template's variable.
    pub fn resource_template(uri_template: impl Into<String>) -> Self {
        CompletionRef::ResourceTemplate(uri_template.into())
    }

    /// For messages: `prompt "team"`, `resource template "test://{id}"`.
    pub(crate) fn describe(&self) -> String {
        match self {
            CompletionRef::Prompt(name) => format!("prompt \"{name}\""),
            CompletionRef::ResourceTemplate(uri) => format!("resource template \"{uri}\""),
        }
    }
}

/// One argument a server may complete, as a generated module types it: each prompt's
/// `Argument` enum and each resource template's `Variable` enum implement this, so a
/// misspelled argument is a compile error (see [`Session::complete_argument`]).
///
/// [`Session::complete_argument`]: crate::Session::complete_argument
pub trait CompletionArgument: Copy {
    /// The prompt or resource template the argument belongs to.
    fn reference(self) -> CompletionRef;
    /// The argument's (or variable's) name on the wire.
    fn name(self) -> &'static str;
}

/// The server's suggestions for one argument.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Completion {
    /// The values, best first (at most 100, as the protocol allows).
    pub values: Vec<String>,
    /// How many values there are in all, when the server says.
    pub total: Option<u32>,
    /// Whether there are more than `values` holds.
    pub has_more: bool,
}

/// The `completion/complete` request's params.
pub(crate) fn params(
    reference: &CompletionRef,
    argument: &str,
    value: &str,
    context: &[(&str, &str)],
) -> Value {
    let reference = match reference {
        CompletionRef::Prompt(name) => json!({ "type": "ref/prompt", "name": name }),
        CompletionRef::ResourceTemplate(uri) => json!({ "type": "ref/resource", "uri": uri }),
    };
    let mut params = json!({
        "ref": reference,
        "argument": { "name": argument, "value": value },
    });
    if !context.is_empty() {
        let arguments: Map<String, Value> = context
            .iter()
            .map(|(k, v)| ((*k).to_string(), Value::String((*v).to_string())))
            .collect();
        params["context"] = json!({ "arguments": arguments });
    }
    params
}

/// The suggestions in a `completion/complete` result; `None` when it has no `completion`
/// object with a `values` list of strings.
pub(crate) fn from_result(result: &Value) -> Option<Completion> {
    let completion = result.get("completion")?;
    let values = completion
        .get("values")?
        .as_array()?
        .iter()
        .map(|v| v.as_str().map(str::to_string))
        .collect::<Option<Vec<String>>>()?;
    Some(Completion {
        values,
        total: completion
            .get("total")
            .and_then(Value::as_u64)
            .and_then(|t| u32::try_from(t).ok()),
        has_more: completion
            .get("hasMore")
            .and_then(Value::as_bool)
            .unwrap_or(false),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_name_the_reference_the_argument_and_the_context() {
        let p = params(
            &CompletionRef::prompt("team"),
            "name",
            "A",
            &[("department", "Engineering")],
        );
        assert_eq!(
            p,
            json!({
                "ref": { "type": "ref/prompt", "name": "team" },
                "argument": { "name": "name", "value": "A" },
                "context": { "arguments": { "department": "Engineering" } },
            })
        );
        let p = params(&CompletionRef::resource_template("t://{id}"), "id", "", &[]);
        assert_eq!(
            p["ref"],
            json!({ "type": "ref/resource", "uri": "t://{id}" })
        );
        assert!(p.get("context").is_none());
    }

    #[test]
    fn results_are_read_and_bad_ones_refused() {
        let r = json!({ "completion": { "values": ["a", "b"], "total": 7, "hasMore": true } });
        let c = from_result(&r).unwrap();
        assert_eq!(c.values, ["a", "b"]);
        assert_eq!((c.total, c.has_more), (Some(7), true));
        let bare = from_result(&json!({ "completion": { "values": [] } })).unwrap();
        assert_eq!(bare, Completion::default());
        assert_eq!(
            from_result(&json!({ "completion": { "values": [1] } })),
            None
        );
        assert_eq!(from_result(&json!({})), None);
    }
}
