//! The async-openai adapter (feature `async-openai`) against the demo server: the exports in
//! async-openai's request types, losslessly; a model's tool calls as OpenAI sends them
//! (chat completions and Responses), parsed by async-openai, dispatched through the toolbox
//! into the replies async-openai sends back.

use crate::common;

use common::limited;

use async_openai::types::chat::{
    ChatCompletionRequestMessage, ChatCompletionTools, CreateChatCompletionResponse,
};
use async_openai::types::responses::{Item, OutputItem, Response, Tool};
use mcp_bindgen::ErrorKind;
use mcp_bindgen::toolbox::Toolbox;
use mcp_bindgen::toolbox::provider::Format;
use serde_json::{Value, json};

async fn toolbox() -> Toolbox {
    Toolbox::from_servers(vec![common::demo_config("demo")])
        .env(common::lookup)
        .fixtures_dir(common::root().join("fixtures"))
        .connect()
        .await
        .expect("connect")
}

#[tokio::test]
async fn chat_completions_round_trip_through_async_openai() {
    limited(async {
        let tb = toolbox().await;
        // The exports as async-openai's request type, every key kept.
        let tools = tb
            .async_openai_chat_tools()
            .expect("async-openai takes every tool");
        let exported = tb.openai_export(true).tools;
        assert_eq!(tools.len(), exported.len());
        assert!(tools.len() >= 8, "{}", tools.len());
        for (tool, definition) in tools.iter().zip(&exported) {
            assert!(matches!(tool, ChatCompletionTools::Function(_)));
            assert_eq!(&serde_json::to_value(tool).expect("encode"), definition);
        }

        // An assistant message with two tool calls, as the API sends it.
        let response: CreateChatCompletionResponse = serde_json::from_value(json!({
            "id": "chatcmpl-9",
            "object": "chat.completion",
            "created": 1_764_000_000,
            "model": "gpt-5-2026-08-01",
            "choices": [{
                "index": 0,
                "finish_reason": "tool_calls",
                "logprobs": null,
                "message": {
                    "role": "assistant",
                    "content": null,
                    "refusal": null,
                    "tool_calls": [
                        {"id": "call_add", "type": "function",
                         "function": {"name": "mcp_demo_add", "arguments": "{\"a\":2,\"b\":40}"}},
                        {"id": "call_bad", "type": "function",
                         "function": {"name": "mcp_demo_add", "arguments": "{\"a\":\"two\"}"}}
                    ]
                }
            }],
            "usage": {"prompt_tokens": 80, "completion_tokens": 40, "total_tokens": 120}
        }))
        .expect("async-openai parses the response");
        let calls = response.choices[0]
            .message
            .tool_calls
            .clone()
            .expect("tool calls");
        let replies = tb.async_openai_chat_replies(&calls).await;
        assert_eq!(replies.len(), 2);
        let sent: Vec<Value> = replies
            .iter()
            .map(|m| serde_json::to_value(m).expect("encode"))
            .collect();
        assert_eq!(sent[0]["role"], "tool");
        assert_eq!(sent[0]["tool_call_id"], "call_add");
        assert!(
            sent[0]["content"]
                .as_str()
                .is_some_and(|t| t.contains("42")),
            "{}",
            sent[0]
        );
        // A call with wrong arguments: an answer the model can read, never a crash.
        assert_eq!(sent[1]["tool_call_id"], "call_bad");
        assert!(
            sent[1]["content"]
                .as_str()
                .is_some_and(|t| t.starts_with("Error: invalid arguments for mcp_demo_add")),
            "{}",
            sent[1]
        );
        assert!(matches!(replies[0], ChatCompletionRequestMessage::Tool(_)));
        let (dispatch, _) = tb
            .async_openai_chat_call(match &calls[1] {
                async_openai::types::chat::ChatCompletionMessageToolCalls::Function(f) => f,
                other => panic!("{other:?}"),
            })
            .await;
        assert_eq!(dispatch.error_kind(), Some(ErrorKind::InvalidArguments));
    })
    .await;
}

#[tokio::test]
async fn responses_round_trip_through_async_openai() {
    limited(async {
        let tb = toolbox().await;
        let tools = tb
            .async_openai_response_tools()
            .expect("async-openai takes every tool");
        let exported = tb.export(Format::OpenAiResponses).tools;
        assert_eq!(tools.len(), exported.len());
        for (tool, definition) in tools.iter().zip(&exported) {
            assert!(matches!(tool, Tool::Function(_)));
            assert_eq!(&serde_json::to_value(tool).expect("encode"), definition);
        }

        // A response whose output is a function call, as the API sends it.
        let response: Response = serde_json::from_value(json!({
            "id": "resp_1",
            "object": "response",
            "created_at": 1_764_000_000,
            "status": "completed",
            "model": "gpt-5-2026-08-01",
            "output": [{
                "type": "function_call",
                "id": "fc_1",
                "call_id": "call_weather",
                "name": "mcp_demo_get_weather",
                "arguments": "{\"city\":\"Lisbon\",\"days\":1}",
                "status": "completed"
            }],
            "parallel_tool_calls": true,
            "tool_choice": "auto",
            "tools": [],
            "usage": {
                "input_tokens": 90, "output_tokens": 20, "total_tokens": 110,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0}
            }
        }))
        .expect("async-openai parses the response");
        let OutputItem::FunctionCall(call) = &response.output[0] else {
            panic!("{:?}", response.output[0]);
        };
        let (dispatch, reply) = tb.async_openai_function_call(call).await;
        assert!(dispatch.is_ok(), "{}", dispatch.text);
        let item = serde_json::to_value(Item::FunctionCallOutput(reply)).expect("encode");
        assert_eq!(item["type"], "function_call_output");
        assert_eq!(item["call_id"], "call_weather");
        assert!(
            item["output"]
                .as_str()
                .is_some_and(|t| t.contains("Lisbon")),
            "{item}"
        );
    })
    .await;
}
