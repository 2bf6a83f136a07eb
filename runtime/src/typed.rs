//! What generated code hands the runtime: one [`TypedTool`] per tool, the definitions
//! `mcp_tools!` fixed at compile time, with round trips through the generated types.

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// One tool of a typed server: everything `mcp_tools!` fixes at compile time about the
/// tool (name, schemas, OpenAI definitions) plus round trips through the generated types
/// ([`normalize_as`]). The macro emits one per tool module as `<tool>::TOOL` (a `const`),
/// and the whole list per server as `TYPED_TOOLS`:
///
/// ```no_run
/// # async fn run(registry: mcp_bindgen::Registry) -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_bindgen::toolbox::{Toolbox, TypedTool};
///
/// mcp_bindgen::mcp_tools!("demo");
///
/// const DEMO: &[TypedTool] = demo::TYPED_TOOLS;
/// assert_eq!(demo::echo::TOOL.name, "echo");
/// let toolbox = Toolbox::builder(&registry).add_typed("demo", DEMO).connect().await?;
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy)]
pub struct TypedTool {
    /// The tool's name on the server.
    pub name: &'static str,
    /// The tool's description.
    pub description: Option<&'static str>,
    /// The tool's `title`, when it has one.
    pub title: Option<&'static str>,
    /// The tool's `annotations` (JSON text), when it has them.
    pub annotations: Option<&'static str>,
    /// The tool's `inputSchema` (JSON text).
    pub input_schema: &'static str,
    /// The tool's `outputSchema` (JSON text), when it has one.
    pub output_schema: Option<&'static str>,
    /// The tool's OpenAI function name (`mcp_<alias>_<tool>`, sanitized, at most 64
    /// characters), as [`openai_function`](Self::openai_function) names it.
    pub openai_name: &'static str,
    /// Why the arguments are untyped JSON (the generated `Args` is `serde_json::Value`),
    /// if they are.
    pub untyped_args_reason: Option<&'static str>,
    /// The arguments as the generated `Args` type carries them: deserialized into it and
    /// serialized back, so what is sent is what the types say. `Err` says what is wrong
    /// (a `serde_json` message naming the field). `None` when the tool's arguments are
    /// untyped JSON (its schema could not be typed); they are checked against the schema.
    pub normalize: Option<Normalize>,
    /// The same round trip through the generated `Output` type, when the tool's structured
    /// result is typed.
    pub normalize_output: Option<Normalize>,
}

impl TypedTool {
    /// A tool with no description and no output schema whose arguments and result are
    /// untyped JSON; the `const` builders below fill in the rest (generated `TOOL`s are
    /// written this way: `TypedTool::new(name, openai_name, schema).typed_args::<Args>()`).
    pub const fn new(
        name: &'static str,
        openai_name: &'static str,
        input_schema: &'static str,
    ) -> Self {
        Self {
            name,
            description: None,
            title: None,
            annotations: None,
            input_schema,
            output_schema: None,
            openai_name,
            untyped_args_reason: None,
            normalize: None,
            normalize_output: None,
        }
    }

    /// With this description.
    pub const fn described(mut self, description: &'static str) -> Self {
        self.description = Some(description);
        self
    }

    /// With this `title`.
    pub const fn titled(mut self, title: &'static str) -> Self {
        self.title = Some(title);
        self
    }

    /// With these `annotations` (JSON text).
    pub const fn annotated(mut self, annotations: &'static str) -> Self {
        self.annotations = Some(annotations);
        self
    }

    /// With this `outputSchema` (JSON text).
    pub const fn output_schema(mut self, output_schema: &'static str) -> Self {
        self.output_schema = Some(output_schema);
        self
    }

    /// Arguments typed by `A` ([`normalize_as`]).
    pub const fn typed_args<A: DeserializeOwned + Serialize>(mut self) -> Self {
        self.normalize = Some(normalize_as::<A>);
        self
    }

    /// A tool without arguments ([`normalize_no_args`]).
    pub const fn no_args(mut self) -> Self {
        self.normalize = Some(normalize_no_args);
        self
    }

    /// Arguments left untyped JSON, for this reason.
    pub const fn untyped_args(mut self, reason: &'static str) -> Self {
        self.untyped_args_reason = Some(reason);
        self
    }

    /// A structured result typed by `O` ([`normalize_as`]).
    pub const fn typed_output<O: DeserializeOwned + Serialize>(mut self) -> Self {
        self.normalize_output = Some(normalize_as::<O>);
        self
    }

    /// The input schema as JSON (`{}` if the text were not JSON, which the macro rules out).
    pub(crate) fn input_schema_json(&self) -> Value {
        serde_json::from_str(self.input_schema)
            .unwrap_or_else(|_| Value::Object(Default::default()))
    }

    /// The MCP definition the tool was reviewed as (its fixture entry without the fields
    /// neither a model nor a call reads: `name`, `title`, `description`, `annotations`,
    /// `inputSchema`, `outputSchema`).
    pub fn definition(&self) -> Value {
        let parse = |text: &str| serde_json::from_str::<Value>(text).ok();
        let mut tool = serde_json::Map::new();
        tool.insert("name".into(), Value::from(self.name));
        if let Some(t) = self.title {
            tool.insert("title".into(), Value::from(t));
        }
        if let Some(d) = self.description {
            tool.insert("description".into(), Value::from(d));
        }
        if let Some(a) = self.annotations.and_then(parse) {
            tool.insert("annotations".into(), a);
        }
        tool.insert("inputSchema".into(), self.input_schema_json());
        if let Some(o) = self.output_schema.and_then(parse) {
            tool.insert("outputSchema".into(), o);
        }
        Value::Object(tool)
    }

    /// The tool's fingerprint ([`mcp_bindgen_core::fingerprint`]): the digest of what a model
    /// reads and the digest of its schemas, as reviewed.
    pub fn fingerprint(&self) -> mcp_bindgen_core::fingerprint::Fingerprint {
        mcp_bindgen_core::fingerprint::Fingerprint::of(&self.definition())
    }

    /// The non-strict OpenAI function definition, `{"type": "function", "function": {"name":
    /// openai_name, "description", "parameters"}}`, derived from
    /// [`input_schema`](Self::input_schema) by the rules the toolbox exports with (so the
    /// schema text is compiled in once, not three times).
    pub fn openai_function(&self) -> Value {
        mcp_bindgen_core::provider::openai::function_definition(
            self.openai_name,
            self.description,
            &self.input_schema_json(),
        )
    }

    /// The strict (`"strict": true`) OpenAI function definition, or why the schema allows
    /// none.
    pub fn openai_function_strict(&self) -> Result<Value, String> {
        mcp_bindgen_core::provider::openai::strict_function_definition(
            self.openai_name,
            self.description,
            &self.input_schema_json(),
        )
    }
}

/// A round trip through a generated type ([`TypedTool::normalize`]): the value as the type
/// carries it, or what is wrong with it.
pub type Normalize = fn(&Value) -> Result<Value, String>;

/// A [`TypedTool::normalize`]: deserializes `value` into `T` and serializes it back.
pub fn normalize_as<T: DeserializeOwned + Serialize>(value: &Value) -> Result<Value, String> {
    let typed = T::deserialize(value).map_err(|e| e.to_string())?;
    serde_json::to_value(&typed).map_err(|e| format!("cannot serialize the arguments back: {e}"))
}

/// A [`TypedTool::normalize`] for tools without parameters: any object (or nothing) is
/// accepted and `{}` is sent.
pub fn normalize_no_args(arguments: &Value) -> Result<Value, String> {
    if arguments.is_object() || arguments.is_null() {
        Ok(Value::Object(serde_json::Map::new()))
    } else {
        Err("this tool takes no arguments; send {}".into())
    }
}

/// The error of a generated type's `FromStr` and `TryFrom` conversions (a string that is not
/// one of an enum's values, a value a newtype's constraints refuse), for every generated
/// type.
pub struct ConversionError(std::borrow::Cow<'static, str>);

impl std::error::Error for ConversionError {}

impl std::fmt::Display for ConversionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::fmt::Debug for ConversionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl From<&'static str> for ConversionError {
    fn from(value: &'static str) -> Self {
        Self(value.into())
    }
}

impl From<String> for ConversionError {
    fn from(value: String) -> Self {
        Self(value.into())
    }
}
