//! Entry points of generated code that are not plain session calls.

use serde::Serialize;

use crate::error::{Error, Result};
use crate::output::ToolOutput;
use crate::session::{CallOptions, Session};

impl Session {
    /// Calls a tool and turns a tool-level error (`isError: true`) into [`Error::Tool`]; the
    /// call path of generated functions for tools without a typed `outputSchema`.
    pub async fn call_checked<A: Serialize + ?Sized>(
        &self,
        tool: &str,
        args: &A,
        options: CallOptions,
    ) -> Result<ToolOutput> {
        let output = self.call_with(tool, args, options).await?;
        if output.is_error {
            Err(Error::Tool {
                server: self.alias().to_string(),
                tool: tool.to_string(),
                output,
            })
        } else {
            Ok(output)
        }
    }
}
