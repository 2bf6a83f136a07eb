//! The fast path: the types of the schema shapes most tools have, written as text without
//! typify, `syn` or token trees.
//!
//! After normalization, most tool schemas are an object of plain properties: strings,
//! numbers, integers, booleans, string enums, arrays of those, nested objects of the same
//! and objects that name no property (maps of JSON values). For exactly those shapes this
//! module writes the code [`super::typed`] produces through typify and its rewrites, byte
//! for byte once formatted: the same type names, field order, derives, documentation,
//! `serde_struct!` / `string_enum!` calls and `Args::new`, with the normalizer's
//! placeholders restored. Any other shape (a `$ref`, a union, a required property that
//! accepts `null`, an optional array or map that does not, a name typify would pick twice,
//! a key this module does not know) returns `None` and takes typify's path.
//!
//! The two paths are compared on every corpus by the tests: [`super::Options::with_typify_only`]
//! turns this path off, and an expansion with it must equal one without it.
//!
//! typify 0.8's rules reproduced here (see `typify_impl::{structs, convert, type_entry}`):
//! * types come out sorted by name; a struct's fields sorted by Rust name;
//! * a property's Rust name is `sanitize(name, snake)`, with `rename` when it differs;
//! * a nested type is named `sanitize("{container}_{snake(property)}", Pascal)`, an array's
//!   items `sanitize("{array type name}Item", Pascal)`;
//! * a type without a description is documented as `` `Name` ``; a nested object's
//!   description documents its struct, not the field (docs are then written one
//!   `#[doc = " line"]` per line, as [`crate::tokens::separate_docs`] writes typify's);
//! * an optional property is `Option<T>` with `skip_serializing_if = "Option::is_none"`; a
//!   struct whose properties are all optional derives `Default`;
//! * `additionalProperties: false` is `deny_unknown_fields` (arguments only).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use heck::ToSnakeCase;
use serde_json::{Map, Value};

use crate::naming::typify_sanitize;
use crate::normalize::Normalized;
use crate::tokens::{separated_lines, string_lit};

/// The module of one normalized schema (`Args` or, `lenient`, `Output`), or `None` when
/// its shape needs typify.
pub(super) fn module(n: &Normalized, lenient: bool) -> Option<String> {
    if !n.defs.is_empty() || !n.replacements.is_empty() || !n.nullable_optional.is_empty() {
        return None;
    }
    let root_name = if lenient { "Output" } else { "Args" };
    let mut w = Writer {
        types: BTreeMap::new(),
        literals: &n.literals,
        lenient,
    };
    let root = n.root.as_object()?;
    let fields = w.object(root, root_name)?;
    let mut out = String::with_capacity(w.types.values().map(String::len).sum::<usize>() + 512);
    for text in w.types.values() {
        out.push_str(text);
    }
    if !lenient {
        let taken = |name: &str| w.types.contains_key(name);
        constructor(&mut out, root_name, root, &fields, &taken)?;
    }
    Some(out)
}

/// One field of a struct.
struct Field<'a> {
    /// The Rust name.
    ident: String,
    /// The property's key in the normalized schema.
    key: &'a str,
    /// The JSON name (the key, unless it is a placeholder of the normalizer).
    wire: &'a str,
    /// The Rust type without the `Option` of an optional field.
    ty: String,
    required: bool,
    doc: Option<&'a str>,
}

/// Where a property's own type (a string enum, an object) would be named from; the name is
/// only computed for those.
enum SubName<'a> {
    /// A property of the struct `container`.
    Property {
        container: &'a str,
        property: &'a str,
    },
    /// The items of an array.
    Items(&'a SubName<'a>),
}

impl SubName<'_> {
    /// typify's name: `{container}_{snake(property)}` or `{array's name}Item`, sanitized.
    fn type_name(&self) -> String {
        match self {
            SubName::Property {
                container,
                property,
            } => typify_sanitize(&format!("{container}_{}", property.to_snake_case()), true),
            SubName::Items(of) => typify_sanitize(&format!("{}Item", of.type_name()), true),
        }
    }
}

/// The types written so far, by name (typify's output order).
struct Writer<'n> {
    types: BTreeMap<String, String>,
    /// The normalizer's placeholders (property names, enum values) → the server's strings.
    literals: &'n BTreeMap<String, String>,
    lenient: bool,
}

/// typify's type for an object that names no property, rewritten to the runtime's paths.
const JSON_MAP: &str = "::mcp_bindgen::__private::serde_json::Map<String, ::mcp_bindgen::__private::serde_json::Value>";

/// The keys a property schema of this path may have.
const KNOWN_KEYS: &[&str] = &[
    "type",
    "description",
    "enum",
    "items",
    "properties",
    "required",
    "additionalProperties",
    "minimum",
];

impl<'n> Writer<'n> {
    /// The server's string for a key or value of the normalized schema.
    fn original<'a>(&self, text: &'a str) -> &'a str
    where
        'n: 'a,
    {
        self.literals.get(text).map_or(text, String::as_str)
    }

    /// Claims a type name: `None` if typify would name two types alike (it would merge
    /// them: typify's path decides).
    fn claim(&mut self, name: &str) -> Option<()> {
        if self.types.contains_key(name) {
            return None;
        }
        self.types.insert(name.to_string(), String::new());
        Some(())
    }

    /// A struct for an object schema with properties; returns its fields.
    fn object<'a>(&mut self, obj: &'a Map<String, Value>, name: &str) -> Option<Vec<Field<'a>>>
    where
        'n: 'a,
    {
        if obj.keys().any(|k| {
            !matches!(
                k.as_str(),
                "type" | "description" | "properties" | "required" | "additionalProperties"
            )
        }) || obj.get("type").and_then(Value::as_str) != Some("object")
        {
            return None;
        }
        let deny_unknown_fields = match obj.get("additionalProperties") {
            None => false,
            Some(Value::Bool(false)) => true,
            Some(_) => return None,
        };
        let props = obj.get("properties")?.as_object()?;
        if props.is_empty() {
            return None;
        }
        let required: Vec<&str> = match obj.get("required") {
            None => Vec::new(),
            Some(Value::Array(list)) => list
                .iter()
                .map(|r| r.as_str().filter(|r| props.contains_key(*r)))
                .collect::<Option<_>>()?,
            Some(_) => return None,
        };
        let doc = description(obj)?;
        self.claim(name)?;

        let mut fields = Vec::with_capacity(props.len());
        for (wire, schema) in props {
            let schema = schema.as_object()?;
            let sub = SubName::Property {
                container: name,
                property: wire,
            };
            let (ty, nullable) = self.property(schema, &sub)?;
            let required = required.contains(&wire.as_str());
            // A required property that accepts `null` is decoded with `deserialize_with`;
            // an optional array or map that does not is a `Vec` or map defaulting to empty.
            if (nullable && required)
                || (!nullable && !required && (ty.starts_with("Vec<") || ty == JSON_MAP))
            {
                return None;
            }
            // typify gives a nested struct's description to the struct only.
            let is_struct =
                schema.get("type").and_then(Value::as_str) == Some("object") && ty != JSON_MAP;
            fields.push(Field {
                ident: typify_sanitize(wire, false),
                key: wire,
                wire: self.original(wire),
                ty,
                required,
                doc: if is_struct {
                    None
                } else {
                    description(schema)?
                },
            });
        }
        fields.sort_by(|a, b| a.ident.cmp(&b.ident));
        if fields.windows(2).any(|w| w[0].ident == w[1].ident) {
            return None;
        }

        let mut text = String::with_capacity(256 + 128 * fields.len());
        doc_attr(&mut text, doc.unwrap_or(&format!("`{name}`")));
        let default = if fields.iter().any(|f| f.required) {
            ""
        } else {
            " Default,"
        };
        let _ = write!(
            text,
            "#[derive(Clone, Debug,{default} PartialEq)] pub struct {name} {{ "
        );
        for f in &fields {
            if let Some(d) = f.doc {
                doc_attr(&mut text, d);
            }
            if f.required {
                let _ = write!(text, "pub {}: {}, ", f.ident, f.ty);
            } else {
                let _ = write!(text, "pub {}: Option<{}>, ", f.ident, f.ty);
            }
        }
        let _ = write!(
            text,
            "}} ::mcp_bindgen::__private::serde_struct!({name} {{ "
        );
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            let _ = write!(text, "{} = ", f.ident);
            string_lit(&mut text, f.wire);
            if !f.required {
                text.push_str(" skip_if(Option::is_none)");
            }
        }
        text.push_str(" }");
        if deny_unknown_fields && !self.lenient {
            text.push_str(" deny_unknown_fields");
        }
        text.push_str("); ");
        self.types.insert(name.to_string(), text);
        Some(fields)
    }

    /// The Rust type of a property schema (a new type for an enum or an object, named
    /// `sub`), and whether it accepts `null`.
    fn property(
        &mut self,
        schema: &Map<String, Value>,
        sub: &SubName<'_>,
    ) -> Option<(String, bool)> {
        if schema.keys().any(|k| !KNOWN_KEYS.contains(&k.as_str())) {
            return None;
        }
        let (kind, nullable) = match schema.get("type")? {
            Value::String(t) => (t.as_str(), false),
            Value::Array(types) => match types.as_slice() {
                [Value::String(t), Value::String(null)] if null == "null" && t != "null" => {
                    (t.as_str(), true)
                }
                _ => return None,
            },
            _ => return None,
        };
        let only = |allowed: &[&str]| {
            schema
                .keys()
                .all(|k| k == "type" || k == "description" || allowed.contains(&k.as_str()))
        };
        let ty = match kind {
            "string" if schema.contains_key("enum") && only(&["enum"]) => {
                self.string_enum(schema, &sub.type_name())?
            }
            "string" if only(&[]) => "String".to_string(),
            "number" if only(&[]) => "f64".to_string(),
            "boolean" if only(&[]) => "bool".to_string(),
            "integer" if only(&[]) => "i64".to_string(),
            "integer" if only(&["minimum"]) && schema.get("minimum")?.as_u64() == Some(0) => {
                "u64".to_string()
            }
            "array" if only(&["items"]) => {
                let items = schema.get("items")?.as_object()?;
                let (item, item_nullable) = self.property(items, &SubName::Items(sub))?;
                if item_nullable {
                    return None;
                }
                format!("Vec<{item}>")
            }
            // No property named and none ruled out: typify's map of JSON values.
            "object"
                if only(&["properties"])
                    && schema
                        .get("properties")
                        .is_none_or(|p| p.as_object().is_some_and(Map::is_empty)) =>
            {
                JSON_MAP.to_string()
            }
            "object" => {
                let name = sub.type_name();
                self.object(schema, &name)?;
                name
            }
            _ => return None,
        };
        Some((ty, nullable))
    }

    /// A string enum's type and its `string_enum!` call; returns the type's name.
    fn string_enum(&mut self, schema: &Map<String, Value>, name: &str) -> Option<String> {
        let values: Vec<&str> = schema
            .get("enum")?
            .as_array()?
            .iter()
            .map(Value::as_str)
            .collect::<Option<_>>()?;
        if values.is_empty() {
            return None;
        }
        let variants: Vec<String> = values.iter().map(|v| typify_sanitize(v, true)).collect();
        let mut sorted: Vec<&String> = variants.iter().collect();
        sorted.sort();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            return None;
        }
        let doc = description(schema)?;
        self.claim(name)?;
        let mut text = String::with_capacity(128 + 32 * values.len());
        doc_attr(&mut text, doc.unwrap_or(&format!("`{name}`")));
        let _ = write!(
            text,
            "#[derive(Clone, Copy, Debug, Eq, Hash, Ord, PartialEq, PartialOrd)] pub enum {name} {{ "
        );
        for v in &variants {
            let _ = write!(text, "{v}, ");
        }
        let _ = write!(text, "}} ::mcp_bindgen::__private::string_enum!({name} {{ ");
        for (i, (v, value)) in variants.iter().zip(&values).enumerate() {
            if i > 0 {
                text.push_str(", ");
            }
            let _ = write!(text, "{v} = ");
            string_lit(&mut text, self.original(value));
        }
        text.push_str(" }); ");
        self.types.insert(name.to_string(), text);
        Some(name.to_string())
    }
}

/// A schema's `description`: `Some(None)` without one, `None` when it is not a string.
fn description(obj: &Map<String, Value>) -> Option<Option<&str>> {
    match obj.get("description") {
        None => Some(None),
        Some(Value::String(d)) => Some(Some(d)),
        Some(_) => None,
    }
}

/// `impl Args { pub fn new(required…) -> Self }` when some field is required: parameters
/// in the schema's `required` order, `String` ones as `impl Into<String>`, the optional
/// fields `Default::default()`. When two required fields share a type, they are named
/// instead ([`required_struct`]).
fn constructor(
    out: &mut String,
    name: &str,
    root: &Map<String, Value>,
    fields: &[Field<'_>],
    taken: &dyn Fn(&str) -> bool,
) -> Option<()> {
    let mut params: Vec<&Field<'_>> = Vec::new();
    if let Some(Value::Array(required)) = root.get("required") {
        for r in required {
            let r = r.as_str()?;
            if let Some(f) = fields.iter().find(|f| f.key == r && f.required)
                && !params.iter().any(|p| std::ptr::eq(*p, f))
            {
                params.push(f);
            }
        }
    }
    if params.is_empty() {
        return Some(());
    }
    let names: Vec<String> = params.iter().map(|p| format!("`{}`", p.wire)).collect();
    if params
        .iter()
        .enumerate()
        .any(|(i, a)| params[..i].iter().any(|b| a.ty == b.ty))
    {
        // Without optional fields the struct literal names every argument already.
        if params.len() == fields.len() {
            return Some(());
        }
        return required_struct(out, name, fields, &params, &names, taken);
    }
    let _ = write!(out, "impl {name} {{ ");
    doc_attr(
        out,
        &format!(
            "The required arguments ({}); every optional one left out. Set others with \
             `{name} {{ field: Some(…), ..{name}::new(…) }}`.",
            names.join(", ")
        ),
    );
    out.push_str("pub fn new(");
    for (i, p) in params.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        if p.ty == "String" {
            let _ = write!(out, "{}: impl Into<String>", p.ident);
        } else {
            let _ = write!(out, "{}: {}", p.ident, p.ty);
        }
    }
    out.push_str(") -> Self { Self { ");
    let mut first = true;
    let mut sep = |out: &mut String| {
        if !first {
            out.push_str(", ");
        }
        first = false;
    };
    for f in fields.iter().filter(|f| !f.required) {
        sep(out);
        let _ = write!(out, "{}: Default::default()", f.ident);
    }
    for p in &params {
        sep(out);
        if p.ty == "String" {
            let _ = write!(out, "{0}: {0}.into()", p.ident);
        } else {
            out.push_str(&p.ident);
        }
    }
    out.push_str(" } } } ");
    Some(())
}

/// The constructor when two required fields share a type (`owner` and `repo`, both strings):
/// by position, swapping them would compile silently, so they are named instead — a struct
/// `Required` (another free name when a schema type took that one) holding the required
/// fields, and `new(required: Required)`.
fn required_struct(
    out: &mut String,
    name: &str,
    fields: &[Field<'_>],
    params: &[&Field<'_>],
    names: &[String],
    taken: &dyn Fn(&str) -> bool,
) -> Option<()> {
    let required = ["Required", "RequiredArgs", "ArgsRequired"]
        .into_iter()
        .find(|n| !taken(n) && *n != name)?;
    doc_attr(
        out,
        &format!(
            "The required arguments of [`{name}`] ({}), by name: several share a type, so none \
             is taken by position. `{name}::new({required} {{ … }})`.",
            names.join(", ")
        ),
    );
    let _ = write!(out, "#[derive(Clone, Debug)] pub struct {required} {{ ");
    for p in params {
        if let Some(d) = p.doc {
            doc_attr(out, d);
        }
        let _ = write!(out, "pub {}: {}, ", p.ident, p.ty);
    }
    let _ = write!(out, "}} impl {name} {{ ");
    doc_attr(
        out,
        &format!(
            "The required arguments, by name; every optional one left out. Set others with \
             `{name} {{ field: Some(…), ..{name}::new({required} {{ … }}) }}`."
        ),
    );
    let _ = write!(out, "pub fn new(required: {required}) -> Self {{ Self {{ ");
    let mut first = true;
    for f in fields {
        if !first {
            out.push_str(", ");
        }
        first = false;
        if params.iter().any(|p| std::ptr::eq(*p, f)) {
            let _ = write!(out, "{0}: required.{0}", f.ident);
        } else {
            let _ = write!(out, "{}: Default::default()", f.ident);
        }
    }
    out.push_str(" } } } ");
    Some(())
}

/// `#[doc = " line"] ` per line of `text` (see [`separated_lines`]).
fn doc_attr(out: &mut String, text: &str) {
    for line in separated_lines(text) {
        out.push_str("#[doc = ");
        string_lit(out, &line);
        out.push_str("] ");
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use serde_json::{Value, json};

    use crate::fixture::Fixture;
    use crate::normalize::{Request, Role, normalize};

    /// The formatted form of a module's code (what `cargo xtask expand` prints).
    fn pretty(code: &str) -> String {
        match syn::parse_file(code) {
            Ok(file) => prettyplease::unparse(&file),
            Err(e) => format!("does not parse: {e}\n{code}"),
        }
    }

    /// `Some(the two formatted modules)` when the direct path writes this schema.
    fn both(schema: &Value, role: Role, description: &str) -> Option<(String, String)> {
        let request = Request {
            description: Some(description.to_string()),
            ..Request::default()
        };
        let n = normalize(schema, role, &request).ok()?;
        if n.no_args || n.free_form {
            return None;
        }
        let lenient = role == Role::Output;
        let direct = super::module(&n, lenient)?;
        let typify = super::super::typed::typed_module(&n, lenient, false)
            .unwrap_or_else(|e| format!("typify's path fails: {e}"));
        Some((pretty(&direct), pretty(&typify)))
    }

    /// The lines around the first line where `ours` and `theirs` differ.
    fn first_difference(ours: &str, theirs: &str) -> String {
        let (a, b): (Vec<&str>, Vec<&str>) = (ours.lines().collect(), theirs.lines().collect());
        let at = a
            .iter()
            .zip(&b)
            .position(|(x, y)| x != y)
            .unwrap_or(a.len().min(b.len()));
        let from = at.saturating_sub(3);
        format!(
            "--- direct (from line {from})\n{}\n--- typify\n{}",
            a[from..(at + 4).min(a.len())].join("\n"),
            b[from..(at + 4).min(b.len())].join("\n")
        )
    }

    /// Every fixture file of the repository's corpora.
    fn corpus_files() -> Vec<PathBuf> {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut files = Vec::new();
        for dir in [
            "fixtures",
            "tests/corpus/real-servers",
            "tests/ui/fixtures",
            "mcp-codegen/tests/fixtures",
        ] {
            // Of the UI tests' fixtures, the property test's sample (the rest are made to fail).
            let only_samples = dir == "tests/ui/fixtures";
            let entries = std::fs::read_dir(root.join(dir)).expect("corpus directory");
            for entry in entries.flatten() {
                let path = entry.path();
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                if name.ends_with(".json")
                    && !name.ends_with(".options.json")
                    && (!only_samples || name.starts_with("sample_"))
                {
                    files.push(path);
                }
            }
        }
        files.sort();
        files
    }

    /// Compares the two paths on every tool of `tools`; returns (schemas written directly,
    /// schemas in all).
    fn check(
        label: &str,
        tools: &[crate::fixture::Tool],
        mismatches: &mut Vec<String>,
    ) -> (usize, usize) {
        let (mut direct, mut all) = (0, 0);
        for tool in tools {
            let description = match tool.description.as_deref() {
                Some(d) if !d.trim().is_empty() => crate::tokens::safe_doc(d),
                _ => format!("Arguments of the tool `{}`.", tool.name),
            };
            let output_doc = format!("Structured result of the tool `{}`.", tool.name);
            let mut schemas = vec![(&tool.input_schema, Role::Input, description)];
            if let Some(o) = &tool.output_schema {
                schemas.push((o, Role::Output, output_doc));
            }
            for (schema, role, doc) in schemas {
                all += 1;
                if let Some((ours, theirs)) = both(schema, role, &doc) {
                    direct += 1;
                    if ours != theirs {
                        mismatches.push(format!(
                            "{label}: tool {:?} ({role:?})\n{}",
                            tool.name,
                            first_difference(&ours, &theirs)
                        ));
                    }
                }
            }
        }
        (direct, all)
    }

    /// Fails with the first of `mismatches`, if any.
    fn assert_none(mismatches: &[String]) {
        assert!(
            mismatches.is_empty(),
            "{} schemas differ; the first:\n{}",
            mismatches.len(),
            mismatches[0]
        );
    }

    #[test]
    fn the_direct_path_writes_what_typify_writes_on_every_corpus() {
        let mut mismatches = Vec::new();
        let (mut direct, mut all) = (0, 0);
        for file in corpus_files() {
            let Ok(fixture) = Fixture::load(&file) else {
                continue;
            };
            let (d, a) = check(&file.display().to_string(), &fixture.tools, &mut mismatches);
            direct += d;
            all += a;
        }
        eprintln!("repository corpora: {direct} of {all} schemas written directly");
        assert_none(&mismatches);
        assert!(
            direct * 2 > all,
            "only {direct} of {all} schemas took the direct path"
        );
    }

    #[test]
    fn the_direct_path_writes_most_of_the_github_corpus() {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/corpus/github-official/tools.json");
        let tools = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{} is part of the repository: {e}", path.display()));
        let tools: Value = serde_json::from_slice(&tools).expect("JSON");
        let doc = json!({ "tools": tools });
        let fixture = Fixture::from_slice(doc.to_string().as_bytes(), &path).expect("fixture");
        let mut mismatches = Vec::new();
        let (direct, all) = check("github", &fixture.tools, &mut mismatches);
        eprintln!("GitHub corpus: {direct} of {all} schemas written directly");
        assert_none(&mismatches);
        assert!(
            direct * 10 >= all * 8,
            "only {direct} of {all} schemas took the direct path"
        );
    }

    /// Schemas on which the property test (`the_direct_path_matches_typify`) once found the
    /// two paths apart.
    #[test]
    fn found_differences_stay_fixed() {
        let cases = [
            json!({"properties": {"a": {"allOf": [{"items": {"type": "number"}, "type": "array"}]}}, "type": "object"}),
        ];
        for schema in cases {
            for role in [Role::Input, Role::Output] {
                if let Some((ours, theirs)) = both(&schema, role, "Docs.") {
                    assert!(
                        ours == theirs,
                        "{schema} ({role:?})\n{}",
                        first_difference(&ours, &theirs)
                    );
                }
            }
        }
    }
}
