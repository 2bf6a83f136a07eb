//! Tool results as text for a model: content blocks joined, long results cut in the middle.

/// What the toolbox cut from the middle of a long result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Truncation {
    /// Length of the full text, in bytes.
    pub original_bytes: usize,
    /// Bytes kept from the start.
    pub head_bytes: usize,
    /// Bytes kept from the end.
    pub tail_bytes: usize,
    /// Bytes removed.
    pub cut_bytes: usize,
}

fn floor_boundary(s: &str, i: usize) -> usize {
    mcp_bindgen_core::schema::prefix_bytes(s, i).len()
}

fn ceil_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

fn note(cut: usize, total: usize) -> String {
    format!("\n[… {cut} of {total} bytes cut …]\n")
}

/// Returns `text` unchanged when it is at most `max_bytes` long; otherwise its first two
/// thirds and last third of the budget around a note saying how much was cut, the whole
/// never longer than `max_bytes` (cuts fall on character boundaries). A budget too small for
/// the note keeps only the head.
pub(crate) fn truncate_middle(text: &str, max_bytes: usize) -> (String, Option<Truncation>) {
    let total = text.len();
    if total <= max_bytes {
        return (text.to_string(), None);
    }
    // The note's length depends on the number it prints; a bound with `total` is enough.
    let note_len = note(total, total).len();
    if max_bytes <= note_len + 2 {
        let head = floor_boundary(text, max_bytes);
        let t = Truncation {
            original_bytes: total,
            head_bytes: head,
            tail_bytes: 0,
            cut_bytes: total - head,
        };
        return (text[..head].to_string(), Some(t));
    }
    let budget = max_bytes - note_len;
    let head = floor_boundary(text, budget * 2 / 3);
    let tail_start = ceil_boundary(text, total - (budget - head));
    let cut = tail_start - head;
    let mut out = String::with_capacity(max_bytes);
    out.push_str(&text[..head]);
    out.push_str(&note(cut, total));
    out.push_str(&text[tail_start..]);
    let t = Truncation {
        original_bytes: total,
        head_bytes: head,
        tail_bytes: total - tail_start,
        cut_bytes: cut,
    };
    (out, Some(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boundary() {
        let s = "a".repeat(1000);
        assert_eq!(truncate_middle(&s, 1000), (s.clone(), None));
        let s1 = format!("{s}b");
        let (out, t) = truncate_middle(&s1, 1000);
        let t = t.unwrap();
        assert!(out.len() <= 1000, "{}", out.len());
        assert!(out.ends_with('b'));
        assert!(out.contains(&format!("[… {} of 1001 bytes cut …]", t.cut_bytes)));
        assert_eq!(t.head_bytes + t.tail_bytes + t.cut_bytes, 1001);
    }

    #[test]
    fn multibyte_and_tiny_budgets() {
        let s = "é".repeat(500);
        let (out, t) = truncate_middle(&s, 301);
        assert!(out.len() <= 301 && t.is_some());
        let (out, _) = truncate_middle(&s, 5);
        assert_eq!(out, "éé");
    }
}
