//! Shortening a tool's description to a client's cap without losing what the model needs:
//! the sentences past the cap that speak of one argument move into that argument's own
//! description, where a model reads them when it fills the argument in.

use serde_json::{Map, Value};

/// A description shortened by [`shorten_description`].
#[derive(Debug, Clone, PartialEq)]
pub struct Shortened {
    /// The description: whole sentences, at most the cap's characters (a first sentence
    /// longer than the cap is cut at a word, `…` marking the cut).
    pub description: String,
    /// The input schema, with each moved sentence appended to the description of the
    /// argument it names (only descriptions change: the values it accepts are the same).
    pub input_schema: Value,
    /// The arguments that received sentences, in the order of their first sentence.
    pub moved_to: Vec<String>,
    /// Characters of the sentences that named no argument, and so were dropped.
    pub dropped_chars: usize,
}

/// `description` shortened to at most `max` characters at a sentence boundary, the
/// sentences past it that name an argument (one of the root's `properties`, as a word or in
/// backticks) moved into that argument's description (the first one named); `None` when
/// the description is within `max`.
pub fn shorten_description(
    description: &str,
    input_schema: &Value,
    max: usize,
) -> Option<Shortened> {
    if description.chars().count() <= max {
        return None;
    }
    let sentences = sentences(description);
    let mut kept = String::new();
    let mut rest = sentences.as_slice();
    while let Some((first, tail)) = rest.split_first() {
        let candidate = format!("{kept}{first}");
        if candidate.trim_end().chars().count() > max {
            break;
        }
        kept = candidate;
        rest = tail;
    }
    let mut kept = kept.trim_end().to_string();
    if kept.is_empty() {
        // One sentence longer than the cap: cut at the last word that fits.
        kept = cut_at_word(description, max);
    }
    let names: Vec<String> = input_schema
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default();
    let mut schema = input_schema.clone();
    let mut moved_to: Vec<String> = Vec::new();
    let mut dropped_chars = 0;
    for sentence in rest {
        let sentence = sentence.trim();
        if sentence.is_empty() {
            continue;
        }
        let named = names
            .iter()
            .filter_map(|n| mention(sentence, n).map(|at| (at, n)))
            .min_by_key(|(at, _)| *at)
            .map(|(_, n)| n.clone());
        match named.and_then(|n| property_mut(&mut schema, &n).map(|p| (n, p))) {
            Some((name, property)) => {
                let text = match property.get("description").and_then(Value::as_str) {
                    Some(d) if d.contains(sentence) => None,
                    Some(d) if !d.trim().is_empty() => Some(format!("{} {sentence}", d.trim_end())),
                    _ => Some(sentence.to_string()),
                };
                if let Some(text) = text {
                    property.insert("description".into(), Value::String(text));
                }
                if !moved_to.contains(&name) {
                    moved_to.push(name);
                }
            }
            None => dropped_chars += sentence.chars().count(),
        }
    }
    Some(Shortened {
        description: kept,
        input_schema: schema,
        moved_to,
        dropped_chars,
    })
}

/// The argument's schema object (a `true` schema becomes `{}` to carry a description).
fn property_mut<'a>(schema: &'a mut Value, name: &str) -> Option<&'a mut Map<String, Value>> {
    let slot = schema.get_mut("properties")?.get_mut(name)?;
    if slot == &Value::Bool(true) {
        *slot = Value::Object(Map::new());
    }
    slot.as_object_mut()
}

/// The sentences of `text`, each with the whitespace after it: a sentence ends at `.`, `!`
/// or `?` before whitespace, and at every line break (list items, paragraphs).
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        current.push(c);
        let end = match c {
            '\n' => true,
            '.' | '!' | '?' => chars.peek().is_none_or(|n| n.is_whitespace()),
            _ => false,
        };
        if end {
            while let Some(&n) = chars.peek() {
                if !n.is_whitespace() {
                    break;
                }
                current.push(n);
                chars.next();
            }
            out.push(std::mem::take(&mut current));
        }
    }
    if !current.is_empty() {
        out.push(current);
    }
    out
}

/// Where `sentence` names `name` as a whole word (the characters around it are not part
/// of an identifier), by byte offset.
fn mention(sentence: &str, name: &str) -> Option<usize> {
    if name.chars().count() < 2 {
        return None;
    }
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    sentence.match_indices(name).map(|(at, _)| at).find(|&at| {
        let before = sentence[..at].chars().next_back();
        let after = sentence[at + name.len()..].chars().next();
        before.is_none_or(|c| !ident(c)) && after.is_none_or(|c| !ident(c))
    })
}

/// `text` cut to at most `max` characters at a word boundary, `…` marking the cut.
fn cut_at_word(text: &str, max: usize) -> String {
    let budget = max.saturating_sub(1);
    let end = text
        .char_indices()
        .nth(budget)
        .map_or(text.len(), |(i, _)| i);
    let head = &text[..end];
    let head = match head.rfind(char::is_whitespace) {
        Some(space) if space > 0 => &head[..space],
        _ => head,
    };
    format!("{}…", head.trim_end())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::shorten_description;

    #[test]
    fn within_the_cap_nothing_changes() {
        assert_eq!(shorten_description("Adds.", &json!({}), 10), None);
    }

    #[test]
    fn sentences_past_the_cap_move_to_the_argument_they_name() {
        let schema = json!({"type": "object", "properties": {
            "query": {"type": "string"},
            "region": {"type": "string", "description": "Where."},
            "sort": {"enum": ["newest", "oldest"]},
            "free": true
        }});
        let description = "Searches the catalogue. It is fast.\n\
            Pass `region` to narrow the search. The sort order is newest or oldest: set sort.\n\
            Nothing else matters here. Any free text goes to free.";
        let s = shorten_description(description, &schema, 40).expect("over the cap");
        assert_eq!(s.description, "Searches the catalogue. It is fast.");
        assert_eq!(
            s.input_schema["properties"]["region"]["description"],
            "Where. Pass `region` to narrow the search."
        );
        assert_eq!(
            s.input_schema["properties"]["sort"]["description"],
            "The sort order is newest or oldest: set sort."
        );
        assert_eq!(
            s.input_schema["properties"]["free"]["description"],
            "Any free text goes to free."
        );
        assert_eq!(s.moved_to, ["region", "sort", "free"]);
        assert_eq!(s.dropped_chars, "Nothing else matters here.".len());
        // Only descriptions changed.
        assert_eq!(
            s.input_schema["properties"]["sort"]["enum"],
            json!(["newest", "oldest"])
        );
        assert!(
            s.input_schema["properties"]["query"]
                .get("description")
                .is_none()
        );
    }

    #[test]
    fn a_word_inside_another_is_no_mention_and_moving_twice_adds_nothing() {
        let schema = json!({"properties": {"id": {"description": "Ident. Use the id of a user."}}});
        let description = "Looks a user up by identity. Use the id of a user.";
        let s = shorten_description(description, &schema, 30).expect("over the cap");
        assert_eq!(s.description, "Looks a user up by identity.");
        assert_eq!(
            s.input_schema["properties"]["id"]["description"],
            "Ident. Use the id of a user."
        );
        assert_eq!(s.moved_to, ["id"]);
    }

    #[test]
    fn a_first_sentence_past_the_cap_is_cut_at_a_word() {
        let s = shorten_description("one two three four five six", &json!({}), 12)
            .expect("over the cap");
        assert_eq!(s.description, "one two…");
        assert!(s.description.chars().count() <= 12);
    }
}
