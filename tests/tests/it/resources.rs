//! Typed resource templates (`mcp_tools!`'s `resources()`): server-everything's templates
//! read through their generated functions over stdio and Streamable HTTP, the URI made by
//! RFC 6570 expansion of the typed variables; and the same read by hand agrees.

use mcp_bindgen::{ResourceContent, ServerConfig, Session};

use crate::common::{self, connect, limited};

mcp_bindgen::mcp_tools!("everything");

async fn reads_templates_typed(session: Session) {
    let client = everything::Client::new(session);
    let text_args = everything::resources::dynamic_text_resource::Args {
        resource_id: "7".to_string(),
    };
    assert_eq!(text_args.uri(), "demo://resource/dynamic/text/7");
    let text = client
        .resources()
        .dynamic_text_resource(&text_args)
        .await
        .expect("typed read of the text template");
    let [
        ResourceContent::Text {
            uri, text: body, ..
        },
    ] = text.contents.as_slice()
    else {
        panic!("one text part expected: {text:?}");
    };
    assert_eq!(uri, "demo://resource/dynamic/text/7");
    assert!(body.contains('7'), "{body}");
    assert_eq!(text.text().as_deref(), Some(body.as_str()));
    // The same read by hand: the typed function adds nothing but the URI.
    let by_hand = client
        .session()
        .read("demo://resource/dynamic/text/7")
        .await
        .expect("read by hand");
    assert_eq!(by_hand, text);

    let blob = client
        .resources()
        .dynamic_blob_resource(&everything::resources::dynamic_blob_resource::Args {
            resource_id: "3".to_string(),
        })
        .await
        .expect("typed read of the blob template");
    let [ResourceContent::Blob { uri, blob, .. }] = blob.contents.as_slice() else {
        panic!("one blob part expected: {blob:?}");
    };
    assert_eq!(uri, "demo://resource/dynamic/blob/3");
    assert!(!blob.is_empty());
    assert_eq!(
        everything::resources::TEMPLATES,
        [
            everything::resources::dynamic_blob_resource::URI_TEMPLATE,
            everything::resources::dynamic_text_resource::URI_TEMPLATE
        ]
    );
    assert_eq!(
        everything::resources::dynamic_text_resource::MIME_TYPE,
        Some("text/plain")
    );
}

#[tokio::test]
async fn everything_templates_read_typed_over_stdio() {
    limited(async {
        reads_templates_typed(connect(&common::installed("everything")).await).await;
    })
    .await;
}

#[tokio::test]
async fn everything_templates_read_typed_over_streamable_http() {
    limited(async {
        let (_guard, port) = common::start_everything_http("streamableHttp");
        let session = connect(&ServerConfig::http(
            "everything-http",
            false,
            format!("http://127.0.0.1:{port}/mcp"),
        ))
        .await;
        reads_templates_typed(session).await;
    })
    .await;
}
