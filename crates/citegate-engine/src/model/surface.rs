//! Which front end a run serves, so that help names the caller's own words: a command line user
//! passes `--retrieved FILE`, an agent over MCP the tool parameter `retrieved`. Only wording
//! depends on it; no verdict does.

/// The front end a run answers through.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Surface {
    /// The command line (`citegate gate`, `audit`, …): help names flags.
    #[default]
    Cli,
    /// `citegate mcp`: help names tool parameters.
    Mcp,
}
