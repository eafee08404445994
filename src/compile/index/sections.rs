//! Cutting a policy file into the text of each `[[rule]]` (with its sub-tables
//! such as `[[rule.effects]]`) and everything else (the prelude: `[policy]`,
//! `[lists]`, `[conditions]`, `[facts.*]`, `[[override]]`). Table headers are
//! found with the TOML parser's own event stream, so a `[[rule]]` inside a
//! multi-line string is never mistaken for one.

use std::ops::Range;

use toml_parser::parser::{parse_document, EventReceiver};
use toml_parser::{ErrorSink, Source, Span};

/// Where the rules and the prelude are in a policy's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sections {
    /// Byte ranges that are not inside a rule, in order.
    pub prelude: Vec<Range<usize>>,
    /// Each rule's byte range, from its `[[rule]]` header to the next table that
    /// is not one of its sub-tables.
    pub rules: Vec<Range<usize>>,
}

#[derive(Default)]
struct Headers {
    /// (start of header, array table?, keys so far)
    found: Vec<(usize, bool, Vec<String>)>,
    open: bool,
}

impl Headers {
    fn key_text<'a>(&self, text: &'a str, span: Span) -> &'a str {
        text.get(span.start()..span.end())
            .unwrap_or("")
            .trim_matches(|c| c == '"' || c == '\'')
    }
}

struct Receiver<'t> {
    text: &'t str,
    headers: Headers,
}

impl EventReceiver for Receiver<'_> {
    fn std_table_open(&mut self, span: Span, _error: &mut dyn ErrorSink) {
        self.headers.found.push((span.start(), false, vec![]));
        self.headers.open = true;
    }
    fn std_table_close(&mut self, _span: Span, _error: &mut dyn ErrorSink) {
        self.headers.open = false;
    }
    fn array_table_open(&mut self, span: Span, _error: &mut dyn ErrorSink) {
        self.headers.found.push((span.start(), true, vec![]));
        self.headers.open = true;
    }
    fn array_table_close(&mut self, _span: Span, _error: &mut dyn ErrorSink) {
        self.headers.open = false;
    }
    fn simple_key(
        &mut self,
        span: Span,
        _kind: Option<toml_parser::decoder::Encoding>,
        _error: &mut dyn ErrorSink,
    ) {
        if self.headers.open {
            let k = self.headers.key_text(self.text, span).to_string();
            if let Some(h) = self.headers.found.last_mut() {
                h.2.push(k);
            }
        }
    }
}

/// Find the sections of a policy text (which must already parse).
pub fn split(text: &str) -> Sections {
    let tokens = Source::new(text).lex().into_vec();
    let mut r = Receiver {
        text,
        headers: Headers::default(),
    };
    let mut errors: Vec<toml_parser::ParseError> = vec![];
    parse_document(&tokens, &mut r, &mut errors);
    let headers = r.headers.found;
    let mut prelude = vec![];
    let mut rules: Vec<Range<usize>> = vec![];
    let mut pos = 0;
    let mut in_rule = false;
    for (i, (start, array, keys)) in headers.iter().enumerate() {
        let end = headers.get(i + 1).map(|h| h.0).unwrap_or(text.len());
        let section = *start..end;
        let is_rule_header = *array && keys.len() == 1 && keys[0] == "rule";
        let is_rule_sub = keys.len() > 1 && keys[0] == "rule";
        if i == 0 && *start > 0 {
            prelude.push(0..*start);
        }
        if is_rule_header {
            rules.push(section);
            in_rule = true;
        } else if is_rule_sub && in_rule {
            if let Some(last) = rules.last_mut() {
                last.end = section.end;
            }
        } else {
            in_rule = false;
            prelude.push(section);
        }
        pos = end;
    }
    if headers.is_empty() {
        prelude.push(0..text.len());
    } else if pos < text.len() {
        prelude.push(pos..text.len());
    }
    Sections { prelude, rules }
}
