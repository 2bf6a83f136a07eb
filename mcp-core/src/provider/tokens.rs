//! Token counts of a tool list: what exporting it costs a model's context on every turn.
//!
//! The generator counts them at build time (with OpenAI's `o200k_base` encoding, over the
//! compact JSON text of the definition [`super::definition`] makes in [`Format::OpenAi`],
//! and of [`super::compact_definition`]'s) and writes them into the generated code
//! (`mcp_tools!(…, tokens)`); the type is here so the runtime can name it.

#[cfg(doc)]
use super::Format;

/// Tokens of one tool's (or a whole server's) OpenAI function definitions, in full and in
/// compact form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Tokens {
    /// The full definitions ([`super::definition`]).
    pub full: u32,
    /// The compact definitions ([`super::compact_definition`]).
    pub compact: u32,
}

impl Tokens {
    /// These counts.
    pub const fn new(full: u32, compact: u32) -> Self {
        Self { full, compact }
    }

    /// The sum of two counts (saturating).
    pub const fn plus(self, other: Tokens) -> Self {
        Self {
            full: self.full.saturating_add(other.full),
            compact: self.compact.saturating_add(other.compact),
        }
    }

    /// The sum of a list of counts (a server's total).
    pub const fn sum(list: &[Tokens]) -> Self {
        let mut total = Tokens::new(0, 0);
        let mut i = 0;
        while i < list.len() {
            total = total.plus(list[i]);
            i += 1;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_add_each_form() {
        let a = Tokens::new(10, 7);
        assert_eq!(Tokens::sum(&[a, a, Tokens::new(1, 1)]), Tokens::new(21, 15));
        assert_eq!(Tokens::new(u32::MAX, 0).plus(a), Tokens::new(u32::MAX, 7));
    }
}
