//! async-openai's types (feature `async-openai`; its `chat-completion-types` and
//! `response-types`, no HTTP client): what a [`Toolbox`] exports, in the request types, and
//! a model's tool calls dispatched into the replies.
//!
//! ```no_run
//! # async fn run(toolbox: mcp_bindgen::toolbox::Toolbox,
//! #     response: async_openai::types::chat::CreateChatCompletionResponse)
//! #     -> Result<(), mcp_bindgen::Error> {
//! use async_openai::types::chat::ChatCompletionRequestMessage;
//!
//! let tools = toolbox.async_openai_chat_tools()?; // CreateChatCompletionRequest::tools
//! # let _ = tools;
//! // The model answered with tool calls: each runs through the toolbox (validation, hooks,
//! // truncation); the replies go into the next request's messages.
//! let calls = response.choices[0].message.tool_calls.clone().unwrap_or_default();
//! let replies: Vec<ChatCompletionRequestMessage> =
//!     toolbox.async_openai_chat_replies(&calls).await;
//! # let _ = replies;
//! # Ok(())
//! # }
//! ```

use ::async_openai::types::chat::{
    ChatCompletionMessageToolCall, ChatCompletionMessageToolCalls, ChatCompletionRequestMessage,
    ChatCompletionRequestToolMessage, ChatCompletionRequestToolMessageContent, ChatCompletionTools,
};
use ::async_openai::types::responses::{
    FunctionCallOutput, FunctionCallOutputItemParam, FunctionToolCall, Tool,
};
use serde_json::Value;

use crate::error::{Error, ErrorKind};
use crate::toolbox::provider::Format;
use crate::toolbox::{Dispatch, Toolbox};

/// A definition as async-openai's type (its `serde` form is the API's).
fn parse<T: serde::de::DeserializeOwned>(what: &str, definition: Value) -> Result<T, Error> {
    let name = definition
        .get("name")
        .or_else(|| definition.pointer("/function/name"))
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_string();
    serde_json::from_value(definition).map_err(|e| {
        Error::toolbox(
            ErrorKind::Decode,
            format!("async-openai's {what} does not take the definition of {name}: {e}"),
        )
    })
}

impl Toolbox {
    /// The chat completions `tools` ([`ChatCompletionTools::Function`]): each tool's strict
    /// definition where OpenAI's strict mode can express it, else its plain one
    /// ([`Toolbox::openai_export`] with `strict`), for this toolbox (an agent's: its tools).
    pub fn async_openai_chat_tools(&self) -> Result<Vec<ChatCompletionTools>, Error> {
        self.openai_export(true)
            .tools
            .into_iter()
            .map(|d| parse("ChatCompletionTools", d))
            .collect()
    }

    /// The Responses API `tools` ([`Tool::Function`]), as [`Format::OpenAiResponses`]
    /// exports them.
    pub fn async_openai_response_tools(&self) -> Result<Vec<Tool>, Error> {
        self.export(Format::OpenAiResponses)
            .tools
            .into_iter()
            .map(|d| parse("responses::Tool", d))
            .collect()
    }

    /// Dispatches one chat completions tool call ([`Toolbox::call`]): the [`Dispatch`] and
    /// the `tool` message that answers it (its text: the result, or `Error: …` for a failure
    /// the model can read).
    pub async fn async_openai_chat_call(
        &self,
        call: &ChatCompletionMessageToolCall,
    ) -> (Dispatch, ChatCompletionRequestToolMessage) {
        let dispatch = self
            .call(&call.function.name, &call.function.arguments)
            .await;
        let reply = ChatCompletionRequestToolMessage {
            content: ChatCompletionRequestToolMessageContent::Text(dispatch.text.clone()),
            tool_call_id: call.id.clone(),
        };
        (dispatch, reply)
    }

    /// The reply messages of an assistant message's `tool_calls`, in order, one per call:
    /// each function call dispatched; a custom tool call (not a toolbox tool) answered with
    /// an error the model reads.
    pub async fn async_openai_chat_replies(
        &self,
        calls: &[ChatCompletionMessageToolCalls],
    ) -> Vec<ChatCompletionRequestMessage> {
        let mut replies = Vec::with_capacity(calls.len());
        for call in calls {
            let reply = match call {
                ChatCompletionMessageToolCalls::Function(call) => {
                    self.async_openai_chat_call(call).await.1
                }
                ChatCompletionMessageToolCalls::Custom(custom) => {
                    ChatCompletionRequestToolMessage {
                        content: ChatCompletionRequestToolMessageContent::Text(format!(
                            "Error: \"{}\" is a custom tool, not one of this toolbox's functions",
                            custom.custom_tool.name
                        )),
                        tool_call_id: custom.id.clone(),
                    }
                }
            };
            replies.push(ChatCompletionRequestMessage::Tool(reply));
        }
        replies
    }

    /// Dispatches one Responses API `function_call` item: the [`Dispatch`] and the
    /// `function_call_output` item that answers it (for the next request's `input`, as
    /// `Item::FunctionCallOutput`).
    pub async fn async_openai_function_call(
        &self,
        call: &FunctionToolCall,
    ) -> (Dispatch, FunctionCallOutputItemParam) {
        let dispatch = self.call(&call.name, &call.arguments).await;
        let reply = FunctionCallOutputItemParam {
            call_id: Some(call.call_id.clone()),
            output: FunctionCallOutput::Text(dispatch.text.clone()),
            id: None,
            status: None,
            name: None,
            namespace: None,
            caller: None,
        };
        (dispatch, reply)
    }
}
