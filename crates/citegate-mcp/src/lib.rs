//! `citegate mcp`: the gate, the audit, citing and retrieval as Model Context Protocol tools over
//! stdio (`rmcp`), for coding agents to check their citations before an answer leaves or a doc
//! is committed. Four read-only tools with short descriptions; every input is validated (an
//! error result, never a crash), paths outside the repository are refused, inputs and replies
//! are bounded (`bound`), nothing is written (the retrieval index is kept in memory). The same
//! engine and settings (`.citegate.yaml`) as the commands.

mod bound;
mod tools;

use std::path::PathBuf;
use std::sync::Arc;

use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{Implementation, ServerCapabilities, ServerInfo};
use rmcp::{tool, tool_handler, tool_router, ServerHandler, ServiceExt};
use serde::de::DeserializeOwned;
use serde_json::Value;

use bound::Args;
pub use bound::{MAX_INPUT_BYTES, MAX_REPLY_BYTES};
pub use citegate_engine::retrieve::quote::{MAX_PLACES, MIN_QUOTE_CHARS};
pub use tools::{CheckAnswer, CheckDocs, Cite, Retrieve};

/// The server: the repository it answers about (its tools are `Self::tool_router()`), and the
/// retrieval index it keeps in memory between calls.
#[derive(Clone)]
pub struct Server {
    root: PathBuf,
    index: Arc<tools::HeldIndex>,
}

#[tool_router]
impl Server {
    pub fn new(root: PathBuf) -> Server {
        Server {
            root,
            index: Arc::default(),
        }
    }

    /// Call `tool` with `arguments` in process, as a client's call reaches it: the arguments
    /// read as the tool's input, then the tool run; an error result's text is bounded as a reply
    /// is. (What the fuzz property test drives.)
    pub fn call(&self, tool: &str, arguments: Value) -> Result<String, String> {
        // As the MCP library reads them (`Parameters<Args<T>>`), with its message.
        fn read<T: DeserializeOwned>(arguments: Value) -> Result<T, String> {
            serde_json::from_value(arguments)
                .map(|Args(p)| p)
                .map_err(|e| format!("failed to deserialize parameters: {e}"))
        }
        let root = &self.root;
        let out = match tool {
            "check_answer" => read(arguments).and_then(|p| tools::check_answer(root, p)),
            "check_docs" => read(arguments).and_then(|p| tools::check_docs(root, p)),
            "cite" => read(arguments).and_then(|p| tools::cite(root, p)),
            "retrieve" => read(arguments).and_then(|p| tools::retrieve(root, &self.index, p)),
            _ => Err(format!("no tool `{tool}`")),
        };
        out.map_err(bound::error)
    }

    #[tool(
        description = "Gate an answer (`answer`, or its text as `answer_json`): passed, or the violations and the refusal to return instead. Same verdict as `citegate gate`."
    )]
    async fn check_answer(
        &self,
        Parameters(Args(p)): Parameters<Args<CheckAnswer>>,
    ) -> Result<String, String> {
        tools::check_answer(&self.root, p).map_err(bound::error)
    }

    #[tool(
        description = "Audit docs (paths, or one doc's text with its path): findings, as `citegate audit` reports them. A fix gives the citation it writes and its edit: the bytes [byteStart, byteEnd) of the doc, also as 1-based line/column (columns count Unicode code points), become `replacement`; `citegate fix` applies the safe ones. Findings that do not count (in .citegate-baseline.json, suppressed by a `citegate-ignore` comment, waived in .citegate.yaml) are listed apart under `suppressed`, each with its `suppression` (kind baselined, suppressed or waived; reason; a waiver's until): they fail nothing."
    )]
    async fn check_docs(
        &self,
        Parameters(Args(p)): Parameters<Args<CheckDocs>>,
    ) -> Result<String, String> {
        tools::check_docs(&self.root, p).map_err(bound::error)
    }

    #[tool(
        description = "Cite exactly: a path and lines give the exact text, the citation and its permalink; a quote (3 characters or more) gives where it occurs: none, one or several (the first 100)."
    )]
    async fn cite(&self, Parameters(Args(p)): Parameters<Args<Cite>>) -> Result<String, String> {
        tools::cite(&self.root, p).map_err(bound::error)
    }

    #[tool(
        description = "The code chunks that best match a question, ranked as `citegate retrieve` does."
    )]
    async fn retrieve(
        &self,
        Parameters(Args(p)): Parameters<Args<Retrieve>>,
    ) -> Result<String, String> {
        tools::retrieve(&self.root, &self.index, p).map_err(bound::error)
    }
}

#[tool_handler]
impl ServerHandler for Server {
    /// Who answers (citegate and its version, not the MCP library's name), its tools, and how to
    /// use them.
    fn get_info(&self) -> ServerInfo {
        let capabilities = ServerCapabilities::builder().enable_tools().build();
        ServerInfo::new(capabilities)
            .with_server_info(Implementation::new("citegate", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }
}

/// What the client may show its model about the server as a whole.
const INSTRUCTIONS: &str = "Check code citations (path:line) against the repository before an \
answer leaves or a doc is committed: `check_answer` gates an answer, `check_docs` audits docs, \
`cite` gives exact lines and their citation, `retrieve` finds code for a question.";

/// Serve MCP on standard input and output until the client closes it.
pub fn serve(root: PathBuf) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let service = Server::new(root)
            .serve(rmcp::transport::io::stdio())
            .await
            .map_err(std::io::Error::other)?;
        service.waiting().await.map_err(std::io::Error::other)?;
        Ok(())
    })
}
