//! "Is this hook handler hookrules?": one answer for every host's hook file,
//! used by `init` and `uninstall` (which handlers to replace or remove),
//! `doctor` (where hookrules is wired, and with which program), `check`
//! (which hosts a project runs hookrules for) and the plugin's quiet check.
//!
//! A handler runs hookrules when it is a command handler (its `type` is
//! `command`; a host whose handlers carry no type, Cursor's, may leave it
//! out) whose command starts hookrules with `run` as its first argument:
//!
//! - exec form: `command` is the program, `args[0]` is `run`;
//! - shell form: the first shell word of the command (a quoted word may hold
//!   spaces) is the program, the next word is `run`.
//!
//! The program is hookrules when its base name is `hookrules`,
//! `hookrules.exe` or `hookrules-launch` (the Claude Code plugin's launcher),
//! or when it is the path `init` installed. The command is read from the key
//! each host's shape uses: `command`, Copilot CLI's `bash` / `powershell`, VS
//! Code's per-system `linux` / `osx` / `windows`.

use serde_json::Value;

use super::adapter::HandlerShape;
use super::Host;

/// The keys a handler's command may be under, in the order they are read.
pub const COMMAND_KEYS: &[&str] = &["command", "bash", "powershell", "linux", "osx", "windows"];

/// Base names of programs that are hookrules.
const PROGRAMS: &[&str] = &["hookrules", "hookrules.exe", "hookrules-launch"];

impl Host {
    /// The program of a handler of this host's hook file that runs hookrules
    /// (as written, quotes removed), or `None` when it does not. `installed`:
    /// the program `init` writes, which counts whatever its name.
    pub fn hookrules_program(self, handler: &Value, installed: Option<&str>) -> Option<String> {
        let o = handler.as_object()?;
        // Claude Code (installed by `init` itself, no install spec) types them.
        let typed = self
            .adapter()
            .install
            .as_ref()
            .is_none_or(|i| i.handler != HandlerShape::Bare);
        match o.get("type").and_then(Value::as_str) {
            Some("command") => {}
            None if !typed && o.get("type").is_none() => {}
            _ => return None,
        }
        let ours = |program: &str| {
            let base = program.rsplit(['/', '\\']).next().unwrap_or(program);
            PROGRAMS.contains(&base) || installed == Some(program)
        };
        let command = COMMAND_KEYS
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str))?;
        let runs = match o.get("args") {
            Some(Value::Array(a)) => {
                (a.first().and_then(Value::as_str) == Some("run")).then_some(command)
            }
            Some(_) => None,
            None => {
                let (program, rest) = first_word(command.trim_start());
                (rest.split_whitespace().next() == Some("run")).then_some(program)
            }
        };
        runs.filter(|p| ours(p)).map(str::to_string)
    }

    /// Does this handler of this host's hook file run hookrules?
    pub fn runs_hookrules(self, handler: &Value, installed: Option<&str>) -> bool {
        self.hookrules_program(handler, installed).is_some()
    }

    /// Does this entry of an event's list (a handler, or a group of them,
    /// `{matcher, hooks: [...]}`) hold a handler that runs hookrules?
    pub fn entry_runs_hookrules(self, entry: &Value, installed: Option<&str>) -> bool {
        match entry.get("hooks").and_then(Value::as_array) {
            Some(inner) => inner.iter().any(|h| self.runs_hookrules(h, installed)),
            None => self.runs_hookrules(entry, installed),
        }
    }
}

/// The first shell word (a leading quoted word may hold spaces) and the rest.
fn first_word(s: &str) -> (&str, &str) {
    if let Some(q) = s.chars().next().filter(|c| *c == '"' || *c == '\'') {
        if let Some(end) = s[1..].find(q) {
            return (&s[1..1 + end], &s[2 + end..]);
        }
    }
    match s.find(char::is_whitespace) {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::Host;
    use serde_json::json;

    /// Handlers as each host's file holds them, and whether they run hookrules.
    #[test]
    fn one_rule_for_every_hosts_handlers() {
        let yes = [
            (
                Host::Claude,
                json!({"type": "command", "command": "hookrules run"}),
            ),
            (
                Host::Claude,
                json!({"type": "command", "command": "'/opt/my tools/hookrules' run --no-builtin"}),
            ),
            (
                Host::Claude,
                json!({"type": "command", "command": "/usr/bin/hookrules", "args": ["run"]}),
            ),
            (
                Host::Claude,
                json!({"type": "command",
                    "command": "\"${CLAUDE_PLUGIN_ROOT}/bin/hookrules-launch\" run --via plugin"}),
            ),
            (
                Host::Codex,
                json!({"type": "command", "command": "hookrules.exe run --host codex"}),
            ),
            (
                Host::Cursor,
                json!({"command": "hookrules run --host cursor"}),
            ),
            (
                Host::Copilot,
                json!({"type": "command", "bash": "hookrules run --host copilot --event x",
                    "powershell": "hookrules run --host copilot --event x"}),
            ),
            (
                Host::VsCode,
                json!({"type": "command", "linux": "/home/u/bin/hookrules run"}),
            ),
        ];
        for (host, h) in &yes {
            assert!(host.runs_hookrules(h, None), "{host:?} {h}");
        }
        assert_eq!(
            Host::Claude.hookrules_program(&yes[1].1, None).as_deref(),
            Some("/opt/my tools/hookrules")
        );
        let no = [
            // Not a command handler, or no type where the host needs one.
            (
                Host::Claude,
                json!({"type": "prompt", "command": "hookrules run"}),
            ),
            (Host::Claude, json!({"command": "hookrules run"})),
            (
                Host::Cursor,
                json!({"type": "prompt", "command": "hookrules run"}),
            ),
            // Another program, or hookrules not running `run`.
            (
                Host::Claude,
                json!({"type": "command", "command": "myhookrules run"}),
            ),
            (
                Host::Claude,
                json!({"type": "command", "command": "hookrules check"}),
            ),
            (
                Host::Claude,
                json!({"type": "command", "command": "hookrules --x run"}),
            ),
            (
                Host::Claude,
                json!({"type": "command", "command": "hookrules", "args": ["check", "run"]}),
            ),
            (
                Host::Claude,
                json!({"type": "command", "command": "echo hookrules run"}),
            ),
            (Host::Codex, json!("hookrules run")),
        ];
        for (host, h) in &no {
            assert!(!host.runs_hookrules(h, None), "{host:?} {h}");
        }
        // The program init installed counts whatever its name.
        let mine = json!({"type": "command", "command": "/opt/hr/bin/hr run"});
        assert!(!Host::Claude.runs_hookrules(&mine, None));
        assert!(Host::Claude.runs_hookrules(&mine, Some("/opt/hr/bin/hr")));
        // A group holds one.
        let group =
            json!({"matcher": "*", "hooks": [{"type": "command", "command": "x"}, yes[0].1]});
        assert!(Host::Claude.entry_runs_hookrules(&group, None));
    }
}
