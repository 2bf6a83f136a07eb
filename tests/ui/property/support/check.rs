//! Checks for the sampled pass file (`../sampled.rs`): each generated type against the
//! candidate instances `mcp-codegen/tests/it/property.rs` wrote for its schema. Only the
//! candidates that are valid for the schema (JSON Schema 2020-12, else draft-07) count.
#![allow(dead_code)]

use mcp_bindgen::__private::serde::Serialize;
use mcp_bindgen::__private::serde::de::DeserializeOwned;
use serde_json::Value;

/// What was exercised and what went wrong; [`Checks::finish`] asserts.
#[derive(Default)]
pub struct Checks {
    types: usize,
    typed: usize,
    typed_exercised: usize,
    instances: usize,
    failures: Vec<String>,
    notes: Vec<String>,
}

impl Checks {
    /// Arguments: a valid instance that deserializes into `T` serializes back to a valid
    /// instance, which deserializes again to the same JSON. `T` may be narrower than the
    /// schema (a valid instance that does not deserialize is a note, not a failure: what
    /// the user builds is still valid).
    pub fn args<T: Serialize + DeserializeOwned>(
        &mut self,
        tool: &str,
        typed: bool,
        schema: &str,
        candidates: &[&str],
    ) {
        self.run::<T>(tool, "arguments", typed, schema, candidates, false);
    }

    /// Results: as [`Checks::args`], and every valid instance must deserialize (the server
    /// may send any of them).
    pub fn output<T: Serialize + DeserializeOwned>(
        &mut self,
        tool: &str,
        schema: Option<&str>,
        candidates: &[&str],
    ) {
        let schema = schema.expect("the tool has an outputSchema");
        self.run::<T>(tool, "result", true, schema, candidates, true);
    }

    fn run<T: Serialize + DeserializeOwned>(
        &mut self,
        tool: &str,
        what: &str,
        typed: bool,
        schema: &str,
        candidates: &[&str],
        complete: bool,
    ) {
        let at = format!("{tool:?} ({what})");
        self.types += 1;
        self.typed += usize::from(typed);
        let schema: Value = serde_json::from_str(schema).expect("schema is JSON");
        // Draft-07 for what only it accepts (`"items": [..]` tuples).
        let validator = match jsonschema::draft202012::new(&schema) {
            Ok(v) => v,
            Err(e) => match jsonschema::draft7::new(&schema) {
                Ok(v) => v,
                Err(_) => {
                    self.notes.push(format!("{at}: schema does not build: {e}"));
                    return;
                }
            },
        };
        let mut exercised = 0;
        for text in candidates {
            let instance: Value = serde_json::from_str(text).expect("candidate is JSON");
            if !validator.is_valid(&instance) {
                continue;
            }
            let value: T = match serde_json::from_value(instance.clone()) {
                Ok(v) => v,
                Err(e) => {
                    let message = format!("{at}: valid {instance} does not deserialize: {e}");
                    if complete {
                        self.failures.push(message);
                    } else {
                        self.notes.push(message);
                    }
                    continue;
                }
            };
            exercised += 1;
            let back = serde_json::to_value(&value).expect("serializes");
            let errors: Vec<String> = validator
                .iter_errors(&back)
                .map(|e| e.to_string())
                .collect();
            if !errors.is_empty() {
                self.failures.push(format!(
                    "{at}: {instance} round-trips to the invalid {back}: {errors:?}"
                ));
                continue;
            }
            match serde_json::from_value::<T>(back.clone()) {
                Ok(again) => {
                    let again = serde_json::to_value(&again).expect("serializes");
                    if again != back {
                        self.failures
                            .push(format!("{at}: {back} round-trips to {again}"));
                    }
                }
                Err(e) => self
                    .failures
                    .push(format!("{at}: {back} does not deserialize again: {e}")),
            }
        }
        self.instances += exercised;
        if exercised == 0 {
            self.notes
                .push(format!("{at}: no valid candidate among {candidates:?}"));
        } else if typed {
            self.typed_exercised += 1;
        }
    }

    /// Prints the counts and notes; no failure, and most typed types exercised.
    pub fn finish(&self) {
        println!(
            "{} types ({} typed), {} typed ones exercised with {} valid instances",
            self.types, self.typed, self.typed_exercised, self.instances
        );
        for n in &self.notes {
            println!("  note: {n}");
        }
        assert!(
            self.failures.is_empty(),
            "{} failures:\n{}",
            self.failures.len(),
            self.failures.join("\n")
        );
        assert!(
            self.typed_exercised * 5 >= self.typed * 4,
            "fewer than 80% of the typed types were exercised:\n{}",
            self.notes.join("\n")
        );
    }
}

/// A value of any type, for the compile-only API checks (never called).
pub fn any<T>() -> T {
    unreachable!("compile-only")
}
