//! Project files read as a tree of values (`serde_json::Value`): JSON with
//! comments (`deno.jsonc`), TOML (`mise.toml`, `pyproject.toml`) and the
//! block YAML task files are written in (`Taskfile.yml`,
//! `.pre-commit-config.yaml`), so that a runner's entries are found the same
//! way whatever the file's syntax.
//!
//! The YAML reader is a subset, bounded and forgiving: block mappings and
//! sequences by indentation, plain, single- and double-quoted scalars, block
//! scalars (`|`, `>`), one-line flow sequences and mappings, comments.
//! Anchors, aliases, tags and multi-line flow collections are not followed:
//! what the reader does not know is kept as text or left out, never an error
//! (a runner that cannot read the file runs nothing from it either way).

use serde_json::{Map, Value};

/// Lines of YAML read per file.
const MAX_LINES: usize = 4096;
/// Nesting of YAML collections read.
const MAX_DEPTH: usize = 32;

/// The tree of a file by its name's ending: `.json`/`.jsonc` (comments and
/// trailing commas allowed), `.toml`, `.yml`/`.yaml`; `None` when it does not
/// parse.
pub(super) fn parse(name: &str, text: &str) -> Option<Value> {
    if name.ends_with(".toml") {
        let t: toml::Table = text.parse().ok()?;
        serde_json::to_value(t).ok()
    } else if name.ends_with(".yml") || name.ends_with(".yaml") {
        Some(yaml(text))
    } else if [".js", ".cjs", ".mjs"].iter().any(|e| name.ends_with(e)) {
        js_export(text)
    } else {
        serde_json::from_str(&strip_json_comments(text)).ok()
    }
}

/// The object a JavaScript config file exports (`module.exports = {…}`,
/// `export default {…}`), when it is written as a literal: keys, strings,
/// numbers, booleans, arrays and objects as JSON has them; any other
/// expression (`process.env.X`, `path.join(…)`, a function) is text only the
/// run knows (a `{{ … }}` template). `None` for a file that computes its
/// export.
fn js_export(text: &str) -> Option<Value> {
    let start = ["module.exports", "export default"]
        .iter()
        .filter_map(|k| text.find(k).map(|at| at + k.len()))
        .min()?;
    let rest = text[start..].trim_start();
    let rest = rest.strip_prefix('=').unwrap_or(rest).trim_start();
    let chars: Vec<char> = rest.chars().collect();
    let mut js = Js {
        chars,
        at: 0,
        depth: 0,
    };
    let v = js.value()?;
    v.is_object().then_some(v)
}

/// A reader of JavaScript literals (see [`js_export`]).
struct Js {
    chars: Vec<char>,
    at: usize,
    depth: usize,
}

impl Js {
    /// Skip blanks and comments.
    fn blank(&mut self) {
        loop {
            while self.chars.get(self.at).is_some_and(|c| c.is_whitespace()) {
                self.at += 1;
            }
            match self.chars.get(self.at..self.at + 2) {
                Some(['/', '/']) => {
                    while self.chars.get(self.at).is_some_and(|c| *c != '\n') {
                        self.at += 1;
                    }
                }
                Some(['/', '*']) => {
                    self.at += 2;
                    while self.at < self.chars.len()
                        && self.chars.get(self.at..self.at + 2) != Some(&['*', '/'])
                    {
                        self.at += 1;
                    }
                    self.at += 2;
                }
                _ => return,
            }
        }
    }

    fn value(&mut self) -> Option<Value> {
        self.blank();
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return None;
        }
        let v = match self.chars.get(self.at)? {
            '{' => self.object(),
            '[' => self.array(),
            '"' | '\'' | '`' => self.string().map(Value::String),
            _ => Some(self.expression()),
        };
        self.depth -= 1;
        v
    }

    fn object(&mut self) -> Option<Value> {
        self.at += 1;
        let mut map = Map::new();
        loop {
            self.blank();
            match self.chars.get(self.at)? {
                '}' => {
                    self.at += 1;
                    return Some(Value::Object(map));
                }
                ',' => self.at += 1,
                '"' | '\'' => {
                    let k = self.string()?;
                    self.entry(k, &mut map)?;
                }
                c if c.is_alphanumeric() || matches!(c, '_' | '$') => {
                    let s = self.at;
                    while self
                        .chars
                        .get(self.at)
                        .is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '$'))
                    {
                        self.at += 1;
                    }
                    let k: String = self.chars[s..self.at].iter().collect();
                    self.entry(k, &mut map)?;
                }
                // `...spread`, `[computed]: v`, methods: not a literal.
                _ => return None,
            }
        }
    }

    /// `: VALUE` after a key (a shorthand `{ name }` is the run's value).
    fn entry(&mut self, key: String, map: &mut Map<String, Value>) -> Option<()> {
        self.blank();
        let v = if self.chars.get(self.at) == Some(&':') {
            self.at += 1;
            self.value()?
        } else {
            Value::String(format!("{{{{ {key} }}}}"))
        };
        map.insert(key, v);
        Some(())
    }

    fn array(&mut self) -> Option<Value> {
        self.at += 1;
        let mut items = Vec::new();
        loop {
            self.blank();
            match self.chars.get(self.at)? {
                ']' => {
                    self.at += 1;
                    return Some(Value::Array(items));
                }
                ',' => self.at += 1,
                _ => items.push(self.value()?),
            }
        }
    }

    /// A string literal (a template's `${…}` is the run's text).
    fn string(&mut self) -> Option<String> {
        let q = *self.chars.get(self.at)?;
        self.at += 1;
        let mut out = String::new();
        loop {
            let c = *self.chars.get(self.at)?;
            self.at += 1;
            match c {
                c if c == q => return Some(out),
                '\\' => {
                    let n = *self.chars.get(self.at)?;
                    self.at += 1;
                    out.push(match n {
                        'n' => '\n',
                        't' => '\t',
                        n => n,
                    });
                }
                '$' if q == '`' && self.chars.get(self.at) == Some(&'{') => {
                    let mut depth = 0usize;
                    while let Some(c) = self.chars.get(self.at) {
                        self.at += 1;
                        match c {
                            '{' => depth += 1,
                            '}' => {
                                depth -= 1;
                                if depth == 0 {
                                    break;
                                }
                            }
                            _ => {}
                        }
                    }
                    out.push_str("{{ … }}");
                }
                c => out.push(c),
            }
        }
    }

    /// Anything else up to the next `,`, `}` or `]` at its own level: a
    /// number, a boolean, `null`, or an expression only the run knows.
    fn expression(&mut self) -> Value {
        let s = self.at;
        let mut depth = 0i32;
        while let Some(c) = self.chars.get(self.at) {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' if depth == 0 => break,
                ')' | ']' | '}' => depth -= 1,
                ',' | ';' if depth == 0 => break,
                '"' | '\'' | '`' => {
                    if self.string().is_none() {
                        break;
                    }
                    continue;
                }
                _ => {}
            }
            self.at += 1;
        }
        let text: String = self.chars[s..self.at].iter().collect();
        let text = text.trim();
        match text {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            "null" | "undefined" => Value::Null,
            t => match t.parse::<serde_json::Number>() {
                Ok(n) => Value::Number(n),
                Err(_) => Value::String(format!("{{{{ {t} }}}}")),
            },
        }
    }
}

/// The value at a dotted key (`tool.pdm.scripts`).
pub(super) fn at<'v>(tree: &'v Value, key: &str) -> Option<&'v Value> {
    key.split('.').try_fold(tree, |v, k| v.get(k))
}

/// JSONC as JSON: `//` and `/* */` comments outside strings blanked, and
/// commas before a closing bracket dropped.
fn strip_json_comments(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' {
            out.push(c);
            i += 1;
            while i < chars.len() {
                out.push(chars[i]);
                if chars[i] == '\\' {
                    if let Some(n) = chars.get(i + 1) {
                        out.push(*n);
                    }
                    i += 2;
                    continue;
                }
                i += 1;
                if chars[i - 1] == '"' {
                    break;
                }
            }
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
            out.push(' ');
            continue;
        }
        out.push(c);
        i += 1;
    }
    drop_trailing_commas(&out)
}

/// JSON text with the commas before a closing bracket (outside strings)
/// dropped.
fn drop_trailing_commas(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.get(i + 1) {
                    out.push(*n);
                }
                i += 1;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if c != ','
            || !matches!(
                chars[i + 1..].iter().find(|c| !c.is_whitespace()),
                Some('}' | ']')
            )
        {
            out.push(c);
        }
        i += 1;
    }
    out
}

/// One meaningful YAML line: its indentation and text (comments dropped).
struct Line {
    indent: usize,
    text: String,
    /// The line as written after the indentation (for block scalars).
    raw: String,
}

fn yaml(text: &str) -> Value {
    let lines: Vec<&str> = text.lines().take(MAX_LINES).collect();
    let mut r = Reader { lines, at: 0 };
    r.skip_blank();
    let indent = r.peek().map_or(0, |l| l.indent);
    r.node(indent, 0).unwrap_or(Value::Null)
}

struct Reader<'t> {
    lines: Vec<&'t str>,
    at: usize,
}

impl Reader<'_> {
    fn line(&self, k: usize) -> Option<Line> {
        let raw = *self.lines.get(k)?;
        let trimmed = raw.trim_start_matches(' ');
        let indent = raw.len() - trimmed.len();
        Some(Line {
            indent,
            text: strip_comment(trimmed).trim_end().to_string(),
            raw: trimmed.to_string(),
        })
    }

    fn skip_blank(&mut self) {
        while let Some(l) = self.line(self.at) {
            let t = l.text.trim();
            if t.is_empty() || t == "---" || t.starts_with('%') {
                self.at += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&mut self) -> Option<Line> {
        self.skip_blank();
        self.line(self.at)
    }

    /// The collection whose lines start at `indent`.
    fn node(&mut self, indent: usize, depth: usize) -> Option<Value> {
        let first = self.peek()?;
        if first.indent != indent || depth > MAX_DEPTH {
            return None;
        }
        if first.text == "-" || first.text.starts_with("- ") {
            Some(self.sequence(indent, depth))
        } else {
            Some(self.mapping(indent, depth))
        }
    }

    fn sequence(&mut self, indent: usize, depth: usize) -> Value {
        let mut items = Vec::new();
        while let Some(l) = self.peek() {
            if l.indent > indent {
                // A line the reader does not place: skipped.
                self.at += 1;
                continue;
            }
            if l.indent < indent || !(l.text == "-" || l.text.starts_with("- ")) {
                break;
            }
            let rest = l.text[1..].trim_start().to_string();
            self.at += 1;
            if rest.is_empty() {
                let child = self.peek().filter(|c| c.indent > indent).map(|c| c.indent);
                items.push(match child {
                    Some(ci) => self.node(ci, depth + 1).unwrap_or(Value::Null),
                    None => Value::Null,
                });
                continue;
            }
            // `- key: value` starts a mapping whose other keys line up with
            // `key`.
            let inner = indent + (l.text.len() - l.text[1..].trim_start().len());
            if key_of(&rest).is_some() && !rest.starts_with(['"', '\'', '{', '[']) {
                // `entry` reads the item's line as its first key.
                self.at -= 1;
                let mut map = Map::new();
                self.entry(&rest, inner, depth, &mut map);
                if self.peek().is_some_and(|c| c.indent == inner) {
                    if let Value::Object(more) = self.mapping(inner, depth + 1) {
                        map.extend(more);
                    }
                }
                items.push(Value::Object(map));
                continue;
            }
            items.push(self.scalar_or_block(&rest, indent, depth));
        }
        Value::Array(items)
    }

    fn mapping(&mut self, indent: usize, depth: usize) -> Value {
        let mut map = Map::new();
        while let Some(l) = self.peek() {
            if l.indent > indent {
                self.at += 1;
                continue;
            }
            if l.indent < indent || l.text.starts_with("- ") || l.text == "-" {
                break;
            }
            if key_of(&l.text).is_none() {
                // Not a key: the mapping ends (text the reader does not know).
                self.at += 1;
                continue;
            }
            let text = l.text.clone();
            self.entry(&text, indent, depth, &mut map);
        }
        Value::Object(map)
    }

    /// One `key: value` at the current line (consumed), and its block.
    fn entry(&mut self, text: &str, indent: usize, depth: usize, map: &mut Map<String, Value>) {
        self.at += 1;
        let Some((key, rest)) = key_of(text) else {
            return;
        };
        let value = if rest.is_empty() {
            match self.peek() {
                // A sequence may sit at the key's own indentation.
                Some(c) if c.indent > indent || (c.indent == indent && c.text.starts_with('-')) => {
                    let ci = c.indent;
                    self.node(ci, depth + 1).unwrap_or(Value::Null)
                }
                _ => Value::Null,
            }
        } else {
            self.scalar_or_block(rest, indent, depth)
        };
        map.insert(key, value);
    }

    /// A scalar, a flow collection, or a block scalar's lines (`|`, `>`).
    fn scalar_or_block(&mut self, text: &str, indent: usize, _depth: usize) -> Value {
        let t = text.trim();
        if t.starts_with('|') || t.starts_with('>') {
            let folded = t.starts_with('>');
            let mut body: Vec<String> = Vec::new();
            let mut block_indent = None;
            while let Some(raw) = self.lines.get(self.at) {
                let trimmed = raw.trim_start_matches(' ');
                let ind = raw.len() - trimmed.len();
                if trimmed.trim().is_empty() {
                    body.push(String::new());
                    self.at += 1;
                    continue;
                }
                if ind <= indent {
                    break;
                }
                let bi = *block_indent.get_or_insert(ind);
                if ind < bi {
                    break;
                }
                body.push(raw.get(bi..).unwrap_or("").to_string());
                self.at += 1;
            }
            while body.last().is_some_and(String::is_empty) {
                body.pop();
            }
            let sep = if folded { " " } else { "\n" };
            return Value::String(body.join(sep));
        }
        // A plain scalar may go on over more-indented lines.
        let mut s = t.to_string();
        if !t.starts_with(['"', '\'', '[', '{']) {
            while let Some(l) = self.line(self.at) {
                if l.indent <= indent || l.text.trim().is_empty() || key_of(&l.text).is_some() {
                    break;
                }
                s.push(' ');
                s.push_str(l.raw.trim());
                self.at += 1;
            }
        }
        flow(&s)
    }
}

/// `key: rest` (the key unquoted); `None` when the text is no mapping entry.
fn key_of(text: &str) -> Option<(String, &str)> {
    let (key, rest) = if let Some(q) = text.strip_prefix('"') {
        let end = q.find('"')?;
        (q[..end].to_string(), q[end + 1..].strip_prefix(':')?)
    } else if let Some(q) = text.strip_prefix('\'') {
        let end = q.find('\'')?;
        (q[..end].to_string(), q[end + 1..].strip_prefix(':')?)
    } else {
        let at = text
            .find(": ")
            .or_else(|| text.strip_suffix(':').map(|k| k.len()))?;
        let key = &text[..at];
        if key.is_empty() || key.starts_with(['[', '{', '-', '|', '>']) {
            return None;
        }
        (key.trim().to_string(), &text[at + 1..])
    };
    if !rest.is_empty() && !rest.starts_with(' ') {
        return None;
    }
    Some((key, rest.trim()))
}

/// A comment (` #…`, or a line that is one) outside quotes, dropped.
fn strip_comment(s: &str) -> &str {
    let mut quote = None;
    let mut prev = ' ';
    for (i, c) in s.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if (c == '"' || c == '\'')
                && (i == 0 || matches!(prev, ' ' | ':' | '-' | '[' | ',')) =>
            {
                quote = Some(c);
            }
            None if c == '#' && (i == 0 || prev == ' ' || prev == '\t') => return &s[..i],
            None => {}
        }
        prev = c;
    }
    s
}

/// A one-line scalar or flow collection.
fn flow(s: &str) -> Value {
    let s = s.trim();
    if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        return Value::Array(split_flow(inner).iter().map(|i| flow(i)).collect());
    }
    if let Some(inner) = s.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
        let mut map = Map::new();
        for item in split_flow(inner) {
            match key_of(&item)
                .or_else(|| item.split_once(':').map(|(k, v)| (k.trim().to_string(), v)))
            {
                Some((k, v)) => {
                    map.insert(unquote(&k), flow(v));
                }
                None => {
                    map.insert(unquote(&item), Value::Null);
                }
            }
        }
        return Value::Object(map);
    }
    Value::String(unquote(s))
}

/// The items of a flow collection's inside, split at top-level commas.
fn split_flow(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut level = 0usize;
    let mut quote = None;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None => match c {
                '"' | '\'' => quote = Some(c),
                '[' | '{' => level += 1,
                ']' | '}' => level = level.saturating_sub(1),
                ',' if level == 0 => {
                    out.push(std::mem::take(&mut cur).trim().to_string());
                    continue;
                }
                _ => {}
            },
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// A scalar's text: quotes removed (`''` in single quotes, escapes in double).
fn unquote(s: &str) -> String {
    let s = s.trim();
    if s.len() >= 2 && s.starts_with('\'') && s.ends_with('\'') {
        return s[1..s.len() - 1].replace("''", "'");
    }
    if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
        let mut out = String::new();
        let mut chars = s[1..s.len() - 1].chars();
        while let Some(c) = chars.next() {
            if c == '\\' {
                match chars.next() {
                    Some('n') => out.push('\n'),
                    Some('t') => out.push('\t'),
                    Some(o) => out.push(o),
                    None => {}
                }
            } else {
                out.push(c);
            }
        }
        return out;
    }
    s.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// (a JavaScript config file, the tree it exports: `None` when it
    /// computes its export)
    const JS_EXPORTS: &[(&str, Option<&str>)] = &[
        (
            "// pm2\nmodule.exports = {\n  apps: [{ name: 'a', script: \"x.js\", n: 2, on: true, },],\n};\n",
            Some(r#"{"apps": [{"name": "a", "script": "x.js", "n": 2, "on": true}]}"#),
        ),
        (
            "export default { url: 'http://x/y', env: { A: process.env.A || 'b' }, t: `a${b}c` /* c */ }",
            Some(r#"{"url": "http://x/y", "env": {"A": "{{ process.env.A || 'b' }}"}, "t": "a{{ … }}c"}"#),
        ),
        ("module.exports = makeConfig({ apps: [] });", None),
        ("module.exports = { ...base, apps: [] };", None),
        ("const x = 1;", None),
    ];

    #[test]
    fn javascript_config_files_read_as_literals() {
        for (text, want) in JS_EXPORTS {
            let want: Option<Value> = want.map(|w| serde_json::from_str(w).unwrap());
            assert_eq!(js_export(text), want, "{text}");
        }
    }

    #[test]
    fn block_yaml_as_task_files_write_it() {
        let text = "version: '3'\n\nvars:\n  OUT: build # the folder\ntasks:\n  default:\n    deps: [gen]\n    cmds:\n      - echo \"a # b\"\n      - cmd: rm -rf {{.OUT}}\n        silent: true\n      - task: gen\n  gen:\n    cmds:\n    - |\n      echo one\n      echo two\n    - >-\n      go run\n      ./cmd\n  short: echo hi\n";
        let v = yaml(text);
        assert_eq!(
            v,
            json!({
                "version": "3",
                "vars": {"OUT": "build"},
                "tasks": {
                    "default": {
                        "deps": ["gen"],
                        "cmds": ["echo \"a # b\"", {"cmd": "rm -rf {{.OUT}}", "silent": "true"}, {"task": "gen"}]
                    },
                    "gen": {"cmds": ["echo one\necho two", "go run ./cmd"]},
                    "short": "echo hi"
                }
            })
        );
    }

    #[test]
    fn pre_commit_configuration() {
        let text = "repos:\n- repo: https://github.com/psf/black\n  rev: 24.1.0\n  hooks:\n  - id: black\n- repo: local\n  hooks:\n    - id: clean\n      name: clean\n      entry: rm -rf ~\n      language: system\n      pass_filenames: false\n";
        let v = yaml(text);
        assert_eq!(v["repos"][1]["repo"], "local");
        assert_eq!(v["repos"][1]["hooks"][0]["entry"], "rm -rf ~");
        assert_eq!(v["repos"][1]["hooks"][0]["language"], "system");
        assert_eq!(v["repos"][0]["hooks"][0]["id"], "black");
    }

    #[test]
    fn json_with_comments() {
        let v = parse(
            "deno.jsonc",
            "{\n  // tasks\n  \"tasks\": { \"a\": \"echo // not a comment\", /* x */ },\n}\n",
        );
        assert_eq!(v, Some(json!({"tasks": {"a": "echo // not a comment"}})));
        assert_eq!(parse("x.json", "{"), None);
    }
}
