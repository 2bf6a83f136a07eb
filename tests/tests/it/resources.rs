//! Typed resource templates (`mcp_tools!`'s `resources()`): server-everything's templates
//! (protocol 2025-11-25) and the demo server's (both revisions) read through their generated
//! functions over stdio and Streamable HTTP, the URI made by RFC 6570 expansion of the typed
//! variables; the same read by hand agrees, and a server's refusal is a typed error.

use mcp_bindgen::{Protocol, ResourceContent, ServerConfig, Session};

use crate::common::{self, connect, limited};

mcp_bindgen::mcp_tools!("everything");
mcp_bindgen::mcp_tools!("demo");

/// The demo server's note (a path variable, an optional query one) and JSON forecast.
async fn demo_reads_templates_typed(session: Session, protocol: Protocol) {
    let client = demo::Client::new(session);
    let note = demo::resources::note::Args {
        topic: "rust & mcp".to_string(),
        lines: Some("2".to_string()),
    };
    assert_eq!(note.uri(), "demo://notes/rust%20%26%20mcp?lines=2");
    let read = client
        .resources()
        .note(&note)
        .await
        .unwrap_or_else(|e| panic!("{protocol:?}: {e}"));
    assert_eq!(
        read.text().as_deref(),
        Some("rust & mcp: line 1\nrust & mcp: line 2"),
        "{protocol:?}"
    );
    // The optional variable left out: left out of the URI too.
    let one = client
        .resources()
        .note(&demo::resources::note::Args {
            topic: "x".to_string(),
            lines: None,
        })
        .await
        .expect("a note without lines");
    assert_eq!(one.text().as_deref(), Some("x: line 1"));

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Forecast {
        city: String,
        celsius: f64,
    }
    let forecast = client
        .resources()
        .forecast(&demo::resources::forecast::Args {
            city: "Oslo".to_string(),
        })
        .await
        .expect("the forecast");
    assert_eq!(
        forecast.json::<Forecast>(),
        Ok(Forecast {
            city: "Oslo".to_string(),
            celsius: 21.5
        })
    );
    assert_eq!(
        demo::resources::forecast::MIME_TYPE,
        Some("application/json")
    );
    // A value the server refuses: its error, typed, naming the server and the request.
    let e = client
        .resources()
        .note(&demo::resources::note::Args {
            topic: "x".to_string(),
            lines: Some("0".to_string()),
        })
        .await
        .expect_err("lines=0 is refused");
    let text = e.to_string();
    assert!(
        text.contains("\"demo\"") && text.contains("lines must be 1 to 100"),
        "{text}"
    );
}

#[tokio::test]
async fn demo_templates_read_typed_over_stdio_on_both_revisions() {
    limited(async {
        for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
            let session = connect(&common::demo_config("demo").with_protocol(protocol)).await;
            demo_reads_templates_typed(session, protocol).await;
        }
    })
    .await;
}

#[tokio::test]
async fn demo_templates_read_typed_over_streamable_http_on_both_revisions() {
    limited(async {
        let (_guard, url) = common::start_demo_http();
        for protocol in [Protocol::V2025_11_25, Protocol::V2026_07_28] {
            let session =
                connect(&ServerConfig::http("demo", false, url.clone()).with_protocol(protocol))
                    .await;
            demo_reads_templates_typed(session, protocol).await;
        }
    })
    .await;
}

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
        let session = connect(&common::everything_http(port)).await;
        reads_templates_typed(session).await;
    })
    .await;
}

/// Static resources, recorded because the registry entry says `record_resources = true`:
/// each is a typed read by its URI, listed in `STATIC_URIS`, and stubbed on a `Fake` like a
/// template.
#[tokio::test]
async fn everything_static_resources_read_typed() {
    limited(async {
        let client = everything::Client::new(connect(&common::installed("everything")).await);
        assert!(
            everything::resources::STATIC_URIS
                .contains(&everything::resources::architecture_md::URI),
            "{:?}",
            everything::resources::STATIC_URIS
        );
        assert_eq!(
            everything::resources::architecture_md::URI,
            "demo://resource/static/document/architecture.md"
        );
        let read = client
            .resources()
            .architecture_md()
            .await
            .expect("typed read of a static resource");
        let [ResourceContent::Text { uri, text, .. }] = read.contents.as_slice() else {
            panic!("one text part expected: {read:?}");
        };
        assert_eq!(uri, everything::resources::architecture_md::URI);
        assert!(!text.is_empty());
        assert_eq!(
            everything::resources::architecture_md::MIME_TYPE,
            Some("text/markdown")
        );
        // The same read by hand.
        assert_eq!(
            client
                .session()
                .read(everything::resources::architecture_md::URI)
                .await
                .expect("read by hand"),
            read
        );
        let fake = everything::Fake::new().on_resource_architecture_md(|| {
            Ok(mcp_bindgen::ResourceContents::from_text(
                everything::resources::architecture_md::URI,
                "# fake",
            ))
        });
        let faked = fake.resources().architecture_md().await.expect("stubbed");
        assert_eq!(faked.text().as_deref(), Some("# fake"));
    })
    .await;
}
