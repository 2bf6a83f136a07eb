//! Argument completion (`Session::complete`) against server-everything, over stdio and
//! Streamable HTTP: a prompt's arguments (the second narrowed by the first, passed as
//! context) and a resource template's variable; and a server without the `completions`
//! capability (the demo server, on both protocol revisions) answers nothing. The same
//! through the generated module: `prompts().complete(…::Argument::…)` and
//! `resources().complete(…::Variable::…)`, the argument names checked at compile time.

use mcp_bindgen::{CompletionRef, Protocol, Session};

use crate::common::{self, connect};

mcp_bindgen::mcp_tools!("everything");

/// The typed path: each argument an enum variant, the context too.
async fn completes_typed(session: Session) {
    use everything::prompts::completable_prompt::Argument;
    use everything::resources::dynamic_text_resource::Variable;
    let client = everything::Client::new(session);
    let s = client
        .prompts()
        .complete(Argument::Department, "S", &[])
        .await
        .expect("typed completion of department");
    assert_eq!(s.values, ["Sales", "Support"]);
    let names = client
        .prompts()
        .complete(Argument::Name, "", &[(Argument::Department, "Sales")])
        .await
        .expect("typed completion of name in Sales");
    assert_eq!(names.values, ["David", "Eve", "Frank"]);
    let id = client
        .resources()
        .complete(Variable::ResourceId, "7", &[])
        .await
        .expect("typed completion of resourceId");
    assert_eq!(id.values, ["7"]);
}

/// server-everything's prompt whose arguments complete.
const PROMPT: &str = "completable-prompt";
/// server-everything's template whose `resourceId` completes (a positive integer echoes).
const TEMPLATE: &str = "demo://resource/dynamic/text/{resourceId}";

async fn completes_prompts_and_templates(session: &Session) {
    assert!(session.server_info().has_completions);
    let prompt = CompletionRef::prompt(PROMPT);
    let departments = session
        .complete(&prompt, "department", "", &[])
        .await
        .expect("completion of department");
    assert_eq!(
        departments.values,
        ["Engineering", "Sales", "Marketing", "Support"]
    );
    let s = session
        .complete(&prompt, "department", "S", &[])
        .await
        .expect("completion of department from S");
    assert_eq!(s.values, ["Sales", "Support"]);
    // The second argument depends on the first, given as context.
    let names = session
        .complete(&prompt, "name", "", &[("department", "Sales")])
        .await
        .expect("completion of name in Sales");
    assert_eq!(names.values, ["David", "Eve", "Frank"]);
    let none = session
        .complete(&prompt, "name", "", &[])
        .await
        .expect("completion of name without a department");
    assert!(none.values.is_empty(), "{none:?}");

    let template = CompletionRef::resource_template(TEMPLATE);
    let id = session
        .complete(&template, "resourceId", "7", &[])
        .await
        .expect("completion of resourceId");
    assert_eq!(id.values, ["7"]);
    let bad = session
        .complete(&template, "resourceId", "x", &[])
        .await
        .expect("completion of a bad resourceId");
    assert!(bad.values.is_empty(), "{bad:?}");
}

#[tokio::test]
async fn everything_completes_over_stdio() {
    let session = connect(&common::installed("everything")).await;
    completes_prompts_and_templates(&session).await;
    completes_typed(session).await;
}

#[tokio::test]
async fn everything_completes_over_streamable_http() {
    let (_guard, port) = common::start_everything_http("streamableHttp");
    let session = connect(&common::everything_http(port)).await;
    completes_prompts_and_templates(&session).await;
    completes_typed(session).await;
}

#[tokio::test]
async fn a_server_without_completions_suggests_nothing_on_both_revisions() {
    for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
        let session = connect(&common::demo_config("demo").with_protocol(protocol)).await;
        assert!(!session.server_info().has_completions);
        let none = session
            .complete(&CompletionRef::prompt("anything"), "x", "", &[])
            .await
            .expect("no capability: no suggestions, no error");
        assert_eq!(none, mcp_bindgen::Completion::default());
    }
}
