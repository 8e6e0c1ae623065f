//! The fenced code blocks of a Markdown file, and the commands inside them.
//!
//! Only what `tests/readme.rs` needs: blocks opened and closed by a line of three or more
//! backticks (indentation allowed, so blocks inside list items count), their info string's
//! first word as the language, and their lines.

/// One fenced block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The info string's first word, lower case (`sh`, `text`, `json`; empty when none).
    pub lang: String,
    /// The 1-based line number of the block's first content line.
    pub line: usize,
    /// The content lines, with the fence's own indentation removed.
    pub lines: Vec<String>,
}

impl Block {
    /// The content as one text.
    pub fn text(&self) -> String {
        self.lines.join("\n")
    }
}

/// Every fenced block of `markdown`, in order. An unclosed block runs to the end of the file.
pub fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(String, usize, Block)> = None;
    for (i, line) in markdown.lines().enumerate() {
        let indent = line.len() - line.trim_start().len();
        let trimmed = line.trim_start();
        let ticks = trimmed.chars().take_while(|&c| c == '`').count();
        match &mut open {
            Some((fence, _, _)) if ticks >= fence.len() && trimmed.trim_end() == "`".repeat(ticks) => {
                let (_, _, block) = open.take().expect("a block is open");
                out.push(block);
            }
            Some((_, fence_indent, block)) => {
                let strip = line.len() - line.trim_start().len();
                block.lines.push(line[strip.min(*fence_indent)..].to_string());
            }
            None if ticks >= 3 => {
                let info = &trimmed[ticks..];
                let lang = info.split_whitespace().next().unwrap_or_default().to_ascii_lowercase();
                let block = Block { lang, line: i + 2, lines: Vec::new() };
                open = Some(("`".repeat(ticks), indent, block));
            }
            None => {}
        }
    }
    if let Some((_, _, block)) = open {
        out.push(block);
    }
    out
}

/// A command found in a block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The 1-based line of the README where the command starts.
    pub line: usize,
    /// The command, continuation lines joined with a space.
    pub text: String,
    /// The output shown under it, for commands of a transcript; `None` for a script line.
    pub shown: Option<Vec<String>>,
}

/// Whether a block is a transcript: some line starts with `$ `.
pub fn is_transcript(block: &Block) -> bool {
    block.lines.iter().any(|l| l.starts_with("$ "))
}

/// A transcript's commands (`$ ` lines, continued while a line ends in `\`) with the lines
/// shown after each, up to the next `$ ` line (trailing blank lines dropped). Lines before the
/// first `$ ` are not part of any command.
pub fn transcript_commands(block: &Block) -> Vec<Command> {
    let mut out: Vec<Command> = Vec::new();
    let mut lines = block.lines.iter().enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        if let Some(command) = line.strip_prefix("$ ") {
            let mut text = command.to_string();
            while text.ends_with('\\') {
                let Some((_, next)) = lines.next() else { break };
                text.pop();
                text.push_str(next.strip_prefix("> ").unwrap_or(next));
            }
            out.push(Command { line: block.line + i, text, shown: Some(Vec::new()) });
        } else if let Some(Command { shown: Some(shown), .. }) = out.last_mut() {
            shown.push(line.clone());
        }
    }
    for command in &mut out {
        if let Some(shown) = &mut command.shown {
            while shown.last().is_some_and(|l| l.trim().is_empty()) {
                shown.pop();
            }
        }
    }
    out
}

/// A shell script's commands: every line that is not blank or a `#` comment, continued while
/// it ends in `\`.
pub fn script_commands(block: &Block) -> Vec<Command> {
    let mut out = Vec::new();
    let mut lines = block.lines.iter().enumerate();
    while let Some((i, line)) = lines.next() {
        let trimmed = line.trim();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let mut text = trimmed.to_string();
        while text.ends_with('\\') {
            let Some((_, next)) = lines.next() else { break };
            text.pop();
            text.push_str(next.trim());
        }
        out.push(Command { line: block.line + i, text, shown: None });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# Title\n\
        ```sh\n\
        # a comment\n\
        groundcheck verify fixtures/ \\\n  --format json\n\
        \n\
        ```\n\
        text\n\
        - item:\n\
        \x20 ```text\n\
        \x20 $ groundcheck resolve --path '$.a' x.json\n\
        \x20 [\n\
        \x20   {\"path\": \"$['a']\", \"value\": 1}\n\
        \x20 ]\n\
        \x20 $ true\n\
        \n\
        \x20 ```\n\
        ````json\n\
        {\"a\": \"```\"}\n\
        ````\n";

    #[test]
    fn blocks_keep_their_language_lines_and_place() {
        let found = blocks(SAMPLE);
        let langs: Vec<&str> = found.iter().map(|b| b.lang.as_str()).collect();
        assert_eq!(langs, ["sh", "text", "json"]);
        assert_eq!(found[0].line, 3);
        assert_eq!(found[1].lines[2], "  {\"path\": \"$['a']\", \"value\": 1}");
        assert_eq!(found[2].text(), "{\"a\": \"```\"}");
    }

    #[test]
    fn scripts_skip_comments_and_join_continuations() {
        let found = blocks(SAMPLE);
        assert!(!is_transcript(&found[0]));
        let commands = script_commands(&found[0]);
        assert_eq!(commands.len(), 1);
        assert_eq!(commands[0].line, 4);
        assert_eq!(commands[0].text, "groundcheck verify fixtures/ --format json");
        assert_eq!(commands[0].shown, None);
    }

    #[test]
    fn transcripts_pair_each_command_with_its_shown_output() {
        let found = blocks(SAMPLE);
        assert!(is_transcript(&found[1]));
        let commands = transcript_commands(&found[1]);
        assert_eq!(commands.len(), 2);
        assert_eq!(commands[0].line, 11);
        assert_eq!(commands[0].text, "groundcheck resolve --path '$.a' x.json");
        let shown = commands[0].shown.as_deref().expect("shown output");
        assert_eq!(shown, ["[", "  {\"path\": \"$['a']\", \"value\": 1}", "]"]);
        assert_eq!(commands[1].shown.as_deref(), Some(&[][..]));
    }
}
