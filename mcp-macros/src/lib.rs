//! The `mcp_tools!` proc macro. Use it through `mcp-runtime`, which re-exports it together
//! with everything the generated code needs.
#![deny(missing_docs)]

use proc_macro::TokenStream;

/// Generates a typed module for the MCP server whose snapshot is `fixtures/<alias>.json`.
#[proc_macro]
pub fn mcp_tools(input: TokenStream) -> TokenStream {
    let input = proc_macro2::TokenStream::from(input);
    quote::quote_spanned! {proc_macro2::Span::call_site()=>
        ::core::compile_error!("mcp_tools! is not implemented yet");
        const _: &str = stringify!(#input);
    }
    .into()
}
