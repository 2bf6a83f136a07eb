//! The generator's integration tests, in one binary: token budgets, the GitHub corpus,
//! the goldens and the property test. `support` reads the GitHub corpus.

mod budget;
mod github_corpus;
mod goldens;
mod property;
mod support;
