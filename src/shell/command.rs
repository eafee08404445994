//! TEMPORARY stand-in with the final API; replaced by the full parser.
#![allow(missing_docs)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    pub program: String,
    pub program_path: String,
    pub args: Vec<String>,
    pub flags: Vec<String>,
    pub operands: Vec<String>,
    pub redirects: Vec<Redirect>,
    pub assignments: Vec<(String, String)>,
    pub via: Vec<String>,
}
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectOp {
    Write,
    Append,
    Read,
    ReadWrite,
}
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub op: RedirectOp,
    pub fd: Option<u32>,
    pub target: String,
}
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    pub offset: usize,
}
impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at {}", self.message, self.offset)
    }
}
pub fn parse(script: &str) -> Result<Vec<SimpleCommand>, ParseError> {
    let mut out = vec![];
    for part in script.split([';', '&', '|', '\n']) {
        let words: Vec<String> = part
            .split_whitespace()
            .map(|w| w.replace(['"', '\''], ""))
            .collect();
        let Some((p, args)) = words.split_first() else {
            continue;
        };
        let mut flags = vec![];
        let mut operands = vec![];
        for a in args {
            if let Some(s) = a.strip_prefix("--") {
                flags.push(format!("--{s}"));
            } else if let Some(s) = a.strip_prefix('-').filter(|s| !s.is_empty()) {
                flags.extend(s.chars().map(|c| format!("-{c}")));
            } else {
                operands.push(a.clone());
            }
        }
        out.push(SimpleCommand {
            program: p.rsplit('/').next().unwrap_or(p).to_string(),
            program_path: p.clone(),
            args: args.to_vec(),
            flags,
            operands,
            redirects: vec![],
            assignments: vec![],
            via: vec![],
        });
    }
    Ok(out)
}
