//! The demo server's resource templates: a text one with a path variable and an optional
//! query variable, and a JSON one, so typed template reads are tested on both protocol
//! revisions (server-everything speaks only the older one).

use rmcp::{
    ErrorData,
    model::{ReadResourceResult, ResourceContents, ResourceTemplate},
};

/// `demo://notes/{topic}{?lines}`: `lines` lines about `topic` (1 when left out).
pub const NOTE: &str = "demo://notes/{topic}{?lines}";
/// `demo://forecast/{city}`: a JSON forecast for `city`.
pub const FORECAST: &str = "demo://forecast/{city}";

/// What `resources/templates/list` answers.
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(NOTE, "note")
            .with_description(
                "Lines of a note about {topic}; {lines} says how many (1 when left out).",
            )
            .with_mime_type("text/plain"),
        ResourceTemplate::new(FORECAST, "forecast")
            .with_description(
                "The forecast for {city}, as JSON: {\"city\": string, \"celsius\": number}.",
            )
            .with_mime_type("application/json"),
    ]
}

/// The lines added to notes (by the fault tool `append_note`), by topic.
#[derive(Default)]
pub struct Notes(std::sync::Mutex<std::collections::HashMap<String, Vec<String>>>);

impl Notes {
    /// Adds `line` at the end of the note about `topic`.
    pub fn append(&self, topic: &str, line: String) {
        if let Ok(mut notes) = self.0.lock() {
            notes.entry(topic.to_string()).or_default().push(line);
        }
    }

    fn added(&self, topic: &str) -> Vec<String> {
        self.0
            .lock()
            .ok()
            .and_then(|notes| notes.get(topic).cloned())
            .unwrap_or_default()
    }
}

/// The topic of a note's URI (`demo://notes/{topic}{?lines}`), decoded.
pub fn note_topic(uri: &str) -> Option<String> {
    let rest = uri.strip_prefix("demo://notes/")?;
    decode(rest.split_once('?').map_or(rest, |(topic, _)| topic))
}

/// Answers `resources/read` of a URI one of the templates makes; a note ends with the lines
/// `append_note` added to it.
pub fn read(uri: &str, notes: &Notes) -> Result<ReadResourceResult, ErrorData> {
    let not_found = || {
        ErrorData::resource_not_found(
            format!("no resource at {uri}: expected {NOTE} or {FORECAST}"),
            None,
        )
    };
    if let Some(rest) = uri.strip_prefix("demo://notes/") {
        let (topic, query) = rest.split_once('?').unwrap_or((rest, ""));
        let topic = decode(topic).ok_or_else(not_found)?;
        let lines = match query.strip_prefix("lines=") {
            Some(n) => n
                .parse::<u32>()
                .ok()
                .filter(|n| (1..=100).contains(n))
                .ok_or_else(|| {
                    ErrorData::invalid_params(format!("lines must be 1 to 100, not {n}"), None)
                })?,
            None if query.is_empty() => 1,
            None => return Err(not_found()),
        };
        let text = (1..=lines)
            .map(|i| format!("{topic}: line {i}"))
            .chain(notes.added(&topic))
            .collect::<Vec<_>>()
            .join("\n");
        return Ok(ReadResourceResult::new(vec![ResourceContents::text(
            text, uri,
        )]));
    }
    if let Some(city) = uri.strip_prefix("demo://forecast/") {
        let city = decode(city).ok_or_else(not_found)?;
        let body = serde_json::json!({ "city": city, "celsius": 21.5 }).to_string();
        let mut contents = ResourceContents::text(body, uri);
        if let ResourceContents::TextResourceContents { mime_type, .. } = &mut contents {
            *mime_type = Some("application/json".into());
        }
        return Ok(ReadResourceResult::new(vec![contents]));
    }
    Err(not_found())
}

/// Percent-decodes a URI part (`None` when it is not valid UTF-8 or a `%` is malformed).
fn decode(part: &str) -> Option<String> {
    let bytes = part.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = part.get(i + 1..i + 3)?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}
