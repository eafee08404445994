//! Walking a PowerShell script the way PowerShell runs it, and writing each
//! command as the canonical command line it amounts to, which the bash
//! analysis then reads (so both shells produce the same objects, judged by
//! the same rules).
//!
//! What is followed: variables and hashtables assigned in the script (and
//! splatted), the working folder (`Set-Location`, `Push-Location`, through
//! `&&`), functions called with their arguments, script blocks run by `&`,
//! `.`, `Invoke-Command`, `ForEach-Object`, jobs; what a pipeline element
//! hands the next (`Get-ChildItem P | Remove-Item`, `irm URL | iex`); code
//! given as text (`Invoke-Expression`, `[scriptblock]::Create`, `pwsh -c`,
//! `-EncodedCommand`, `cmd /c`), decoded where it is encoded. Anything that
//! cannot be known before it runs is unknown, and code that cannot be known is
//! `dynamic` (the pack asks).

use std::collections::HashMap;

use super::cmdlets::{self, Action, Cmdlet, Kind, Param};
use super::paths;
use super::syntax::{self, Arg, Chain, Command, Elem, Expr, Invoke, Part, Pipeline, Redir, Stmt};
use crate::shell::budget;
use crate::shell::command::{over_budget, perr, Code, ParseError, RedirectOp, SimpleCommand};
use crate::shell::value::{Piece, Sym, Value};

mod filter;
mod windows;

/// Most commands one script may produce, and most steps of the walk: past
/// them the script is refused (the pack asks), bounded time for any input.
const MAX_COMMANDS: usize = 4096;
const MAX_STEPS: usize = 200_000;
/// Deepest nesting of calls, blocks and re-parsed code.
const MAX_DEPTH: usize = 32;

/// A value in the script.
#[derive(Debug, Clone)]
pub(super) enum Val {
    /// A scalar (text, a path, a number).
    One(Value),
    /// An array.
    List(Vec<V>),
    /// A hashtable (keys lowercase).
    Hash(Vec<(String, V)>),
    /// A script block.
    Block(Vec<Stmt>),
}

/// Where a value came from, when that matters for what runs it.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum From {
    /// Nothing known.
    Plain,
    /// Downloaded from this address.
    Download(Value),
    /// Decoded from literal text (base64): the text.
    Decoded,
    /// Read from this file.
    File(Value),
    /// The items in (or below, with `recurse`) this folder, narrowed by a filter.
    Items {
        dir: Value,
        recurse: bool,
        filter: Option<Value>,
    },
    /// Every process (`Get-Process` without a filter).
    Processes,
    /// The processes of this name (`Get-Process -Name x`).
    Process(Value),
    /// The ids of the processes of this name (`(Get-Process x).Id`; `*`:
    /// every process's).
    ProcessId(Value),
    /// The process with this id (`[Diagnostics.Process]::GetProcessById(4)`,
    /// `Get-Process -Id 4`).
    Pid(Value),
    /// A file or folder the value's path names, as an object
    /// (`Get-Item P`): its methods act on it (`.Delete($true)`).
    Item,
    /// The services of this name (`Get-Service x`; `*` is every service).
    Service(Value),
    /// The instances of a WMI class (`Get-CimInstance Win32_Process -Filter …`),
    /// class lowercase.
    Wmi {
        class: String,
        filter: Option<String>,
    },
    /// Code that cannot be known before it runs.
    DynamicCode,
    /// An encoding (`[Text.Encoding]::Unicode`).
    Encoding(String),
    /// Bytes decoded from base64 (the bytes).
    Bytes(Vec<u8>),
    /// A secret's value: an environment variable's (its name, uppercase),
    /// or (`None`) the plain text of a stored credential (`Get-Secret
    /// -AsPlainText`, a `SecureString` or DPAPI blob turned back into text).
    /// Where it reaches the output, a file or the network, it is printed
    /// (`printenv NAME`, `secret-tool lookup`); a variable, a program's
    /// argument or an `Authorization` header uses it.
    Secret(Option<String>),
    /// A command being put together by `[PowerShell]::Create().AddCommand(…)`
    /// (its number in `Analyser::ps_commands`): its parameters are added
    /// one by one, and it runs at `.Invoke()`.
    PsCommand(usize),
    /// The whole environment (`Get-ChildItem env:`): printing it is `env`,
    /// searching it `env | grep …`, sending it `env | curl`.
    Environment,
    /// The objects a `Get-NOUN` cmdlet lists, with the words that chose
    /// them (`Get-ScheduledTask -TaskName *Defender*`, noun lowercase). A
    /// cmdlet of the same noun they reach, piped in or as `-InputObject`,
    /// acts on them as if given those words: `… | Disable-ScheduledTask` is
    /// `Disable-ScheduledTask -TaskName *Defender*` (a `Where-Object` between
    /// adds the names it compares with).
    Selection { noun: String, words: Vec<Value> },
}

/// A value and where it came from.
#[derive(Debug, Clone)]
pub(super) struct V {
    pub val: Val,
    pub from: From,
}

impl V {
    pub(super) fn one(v: Value) -> V {
        V {
            val: Val::One(v),
            from: From::Plain,
        }
    }

    fn text(t: &str) -> V {
        V::one(Value::text(t))
    }

    fn unknown(what: &str) -> V {
        V::one(Value::unknown(what))
    }

    fn with(mut self, from: From) -> V {
        self.from = from;
        self
    }

    /// As one scalar (an array's items joined by spaces, as `"$a"` does).
    fn scalar(&self) -> Value {
        match &self.val {
            Val::One(v) => v.clone(),
            Val::List(items) => {
                let mut out = Value::text("");
                for (i, it) in items.iter().enumerate() {
                    if i > 0 {
                        out = out.concat(&Value::text(" "));
                    }
                    out = out.concat(&it.scalar());
                }
                out
            }
            Val::Hash(_) => Value::text("System.Collections.Hashtable"),
            Val::Block(_) => Value::unknown("{ … }"),
        }
    }

    /// The items (an array's, or the one scalar).
    fn items(&self) -> Vec<Value> {
        match &self.val {
            Val::List(items) => items.iter().flat_map(V::items).collect(),
            _ => vec![self.scalar()],
        }
    }

    fn literal(&self) -> Option<String> {
        match &self.val {
            Val::One(v) => v.literal(),
            _ => None,
        }
    }

    /// Each item this may be, as one value of alternatives (`A, B`: `A` or
    /// `B`, where [`V::scalar`] joins them into one text `A B`).
    pub(super) fn any_item(&self) -> Value {
        self.items()
            .iter()
            .fold(Value::default(), |all, it| all.union(it))
    }
}

/// A word of a canonical command line.
#[derive(Debug, Clone)]
enum W {
    /// Shell syntax as written (`-r`, `|`, `--`).
    Raw(String),
    /// A value, quoted for the shell.
    Val(Value),
}

/// A braced variable name that is a file system path rather than a
/// variable (`${C:\x}`, `${\\srv\share\x}`, `${/x}`, `${./x}`, `${~/x}`):
/// PowerShell reads the file (its content is the value) and an assignment
/// writes it. Drive-qualified names of other providers (`${env:X}`,
/// `${function:f}`, `${variable:x}`) are variables.
fn is_file_variable(name: &str) -> bool {
    let b = name.as_bytes();
    let drive =
        b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && matches!(b[2], b'\\' | b'/');
    drive
        || name.starts_with(['/', '\\'])
        || [".", "..", "~"].iter().any(|p| {
            name.strip_prefix(p)
                .is_some_and(|r| r.starts_with(['/', '\\']))
        })
}

/// A cmdlet's name pattern rather than a path: wildcards among letters,
/// digits, `-` and `_` only (`*`, `web*`, `*sql*`).
fn name_wildcard(t: &str) -> bool {
    t.contains(['*', '?'])
        && t.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '*' | '?' | '-' | '_'))
}

fn raw(s: &str) -> W {
    W::Raw(s.to_string())
}

/// The analysis of one script.
pub(super) struct Analyser {
    vars: HashMap<String, V>,
    funcs: HashMap<String, (Vec<String>, Vec<Stmt>)>,
    cwd: Value,
    stack: Vec<Value>,
    pub out: Vec<SimpleCommand>,
    via: Vec<String>,
    /// Byte offset reported for the commands (the statement's, or the carrier's).
    offset: Option<usize>,
    fixed_offset: bool,
    depth: usize,
    steps: usize,
    /// Inside a branch or loop body: assignments may not happen.
    maybe: usize,
    /// Inside the body of a loop nothing ends (`while ($true)`, `for (;;)`):
    /// a process started there without waiting is started without end.
    forever: usize,
    /// Placeholders in canonical lines, by number.
    unknowns: Vec<Sym>,
    /// Functions being called (no recursion).
    calling: Vec<String>,
    /// Set by Set-Location: the folder it moves to when it succeeds.
    moved: Option<Value>,
    /// Inside an expression whose value is taken (an assignment, `$(…)`,
    /// `(…)`): a statement's output there is not printed.
    captured: usize,
    /// Inside the value of an assignment: what a command prints goes into
    /// the variable (`$t = gh auth token`, as bash's `T=$(gh auth token)`).
    assigning: usize,
    /// Aliases the script defines (`Set-Alias x Invoke-Expression`), lowercase.
    aliases: HashMap<String, String>,
    /// Files the script downloaded (or decoded) before, by lowercase file
    /// name: running one runs code nobody has read.
    downloaded: Vec<String>,
    /// Links the script made so far (`New-Item -ItemType SymbolicLink`,
    /// `mklink`), in order: later commands go through them, as bash's do
    /// through `ln -s` (`shell::command::made_by`).
    made: Vec<crate::shell::links::MadeLink>,
    /// Files the line wrote with text it knows (`Set-Content a.ps1 '…'`,
    /// `'…' > a.cmd`, or bash's `echo … > z.ps1` before `pwsh -File z.ps1`),
    /// by lowercase file name: running one runs that text.
    pub(super) scripts: Vec<(String, String)>,
    /// Files the line wrote the environment (or a secret) into, by
    /// lowercase file name: uploading one sends the environment.
    env_files: Vec<String>,
    /// Commands built with `AddCommand` (see [`From::PsCommand`]): the name,
    /// then each parameter (`Some(name)`) or argument (`None`) added.
    ps_commands: Vec<PsCall>,
}

/// A command built with `AddCommand`: its name, then each parameter
/// (`Some(name)`) or argument (`None`) added, in order.
type PsCall = (String, Vec<(Option<String>, V)>);

type R<T> = Result<T, ParseError>;

impl Analyser {
    pub(super) fn new(cwd: Value, via: Vec<String>, offset: Option<usize>) -> Analyser {
        Analyser {
            vars: HashMap::new(),
            funcs: HashMap::new(),
            cwd,
            stack: vec![],
            out: vec![],
            via,
            fixed_offset: offset.is_some(),
            offset,
            depth: 0,
            steps: 0,
            maybe: 0,
            forever: 0,
            unknowns: vec![],
            calling: vec![],
            moved: None,
            captured: 0,
            assigning: 0,
            aliases: HashMap::new(),
            downloaded: vec![],
            made: vec![],
            scripts: vec![],
            env_files: vec![],
            ps_commands: vec![],
        }
    }

    fn err(&self, msg: &str) -> ParseError {
        perr(format!("PowerShell: {msg}"), self.offset.unwrap_or(0))
    }

    fn step(&mut self) -> R<()> {
        self.steps += 1;
        if self.steps > MAX_STEPS || self.out.len() > MAX_COMMANDS {
            return Err(self.err("the script is larger than the analysis reads"));
        }
        budget::check().map_err(|o| over_budget(o, self.offset.unwrap_or(0)))
    }

    /// Run a script's text (top level or re-parsed code).
    pub(super) fn script(&mut self, text: &str) -> R<V> {
        let stmts = syntax::parse(text).map_err(|e| {
            if self.fixed_offset {
                perr(e.message, self.offset.unwrap_or(0))
            } else {
                e
            }
        })?;
        self.stmts(&stmts)
    }

    fn nested(&mut self, text: &str, label: &str) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("code nested too deeply"));
        }
        let stmts = syntax::parse(text).map_err(|e| perr(e.message, self.offset.unwrap_or(0)))?;
        let (fixed, via_len) = (self.fixed_offset, self.via.len());
        self.fixed_offset = true;
        self.via.push(label.to_string());
        let r = self.stmts(&stmts);
        self.via.truncate(via_len);
        self.fixed_offset = fixed;
        self.depth -= 1;
        r.map(|_| ())
    }

    fn stmts(&mut self, stmts: &[Stmt]) -> R<V> {
        let mut last = V::text("");
        for s in stmts {
            last = self.stmt(s)?;
        }
        Ok(last)
    }

    fn maybe_stmts(&mut self, stmts: &[Stmt]) -> R<V> {
        self.maybe += 1;
        let r = self.stmts(stmts);
        self.maybe -= 1;
        r
    }

    fn stmt(&mut self, s: &Stmt) -> R<V> {
        self.step()?;
        match s {
            Stmt::Chain(c) => {
                let v = self.chain(c)?;
                self.printed(&v, "output")?;
                Ok(v)
            }
            Stmt::Assign {
                target,
                append,
                value,
                ..
            } => {
                self.captured += 1;
                self.assigning += 1;
                let v = self.stmt(value);
                self.assigning -= 1;
                self.captured -= 1;
                let v = v?;
                self.assign(target, v, *append)?;
                Ok(V::text(""))
            }
            Stmt::If { conds, els } => {
                for (c, body) in conds {
                    self.chain(c)?;
                    self.maybe_stmts(body)?;
                }
                if let Some(b) = els {
                    self.maybe_stmts(b)?;
                }
                Ok(V::unknown("(if)"))
            }
            Stmt::Foreach { var, items, body } => {
                let items = self.chain(items)?;
                let item = item_of(&items);
                self.set_var(var, item);
                self.maybe_stmts(body)?;
                Ok(V::unknown("(foreach)"))
            }
            Stmt::Loop {
                heads,
                body,
                forever,
            } => {
                self.maybe += 1;
                for h in heads {
                    self.stmt(h)?;
                }
                self.maybe -= 1;
                self.forever += usize::from(*forever);
                let r = self.maybe_stmts(body);
                self.forever -= usize::from(*forever);
                r?;
                Ok(V::unknown("(loop)"))
            }
            Stmt::Switch { subject, arms } => {
                let subj = self.chain(subject)?;
                let saved = self.vars.get("_").cloned();
                self.vars.insert("_".into(), item_of(&subj));
                for a in arms {
                    self.maybe_stmts(a)?;
                }
                restore(&mut self.vars, "_", saved);
                Ok(V::unknown("(switch)"))
            }
            Stmt::Blocks(blocks) => {
                for (i, b) in blocks.iter().enumerate() {
                    if i == 0 {
                        self.stmts(b)?;
                    } else {
                        self.maybe_stmts(b)?;
                    }
                }
                Ok(V::text(""))
            }
            Stmt::Function { name, params, body } => {
                self.define(name, params, body)?;
                Ok(V::text(""))
            }
            Stmt::Flow(c) => match c {
                Some(c) => {
                    let v = self.chain(c)?;
                    self.printed(&v, "output")?;
                    Ok(v)
                }
                None => Ok(V::text("")),
            },
            Stmt::Param(_) => Ok(V::text("")),
        }
    }

    /// A statement's output: printed unless its value is taken.
    fn printed(&mut self, v: &V, label: &str) -> R<()> {
        if self.captured == 0 {
            self.reveal(v, label)?;
        }
        Ok(())
    }

    /// A value that reaches the output, a file or the network: a secret in
    /// it is printed (`printenv NAME`; `secret-tool lookup` for a stored
    /// credential's text, as the Linux keyring's client prints one).
    fn reveal(&mut self, v: &V, label: &str) -> R<()> {
        if let Val::List(items) = &v.val {
            for it in items.clone() {
                self.reveal(&it, label)?;
            }
        }
        match &v.from {
            From::Secret(Some(name)) => {
                let name = crate::shell::quote(name);
                self.emit(vec![raw("printenv"), W::Raw(name)], Some(label))
            }
            From::Secret(None) => self.emit(
                vec![
                    raw("secret-tool"),
                    raw("lookup"),
                    raw("powershell"),
                    raw("credential"),
                ],
                Some(label),
            ),
            // The whole environment printed or saved: bash's `env`.
            From::Environment => self.emit(vec![raw("env")], Some(label)),
            _ => Ok(()),
        }
    }

    fn chain(&mut self, c: &Chain) -> R<V> {
        let before = self.cwd.clone();
        let mut out = V::text("");
        let mut moved_to: Option<Value> = None;
        for (i, p) in c.pipelines.iter().enumerate() {
            if i > 0 {
                self.maybe += 1;
            }
            self.moved = None;
            out = self.pipeline(p)?;
            // `cd x && …`: what follows runs only where the move succeeded.
            if let (Some(new), Some(true)) = (self.moved.take(), c.and_next.get(i)) {
                self.cwd = new.clone();
                moved_to = Some(new);
            }
        }
        self.maybe -= c.pipelines.len().saturating_sub(1);
        if moved_to.is_some() {
            // After the chain, the move may have failed.
            self.cwd = self.cwd.clone().union(&before);
        }
        Ok(out)
    }

    fn pipeline(&mut self, p: &Pipeline) -> R<V> {
        if !self.fixed_offset {
            self.offset = Some(p.offset);
        }
        let mut input: Option<V> = None;
        let n = p.elems.len();
        for (i, e) in p.elems.iter().enumerate() {
            let last = i + 1 == n;
            let out = match e {
                Elem::Cmd(c) => self.command(c, input.as_ref(), last)?,
                Elem::Expr(x, redirects) => {
                    let v = self.expr(x)?;
                    if !redirects.is_empty() {
                        let mut words = vec![];
                        self.redirects_of(redirects, &mut words, Some(&v))?;
                        self.emit(words, None)?;
                    }
                    v
                }
            };
            input = Some(out);
        }
        Ok(input.unwrap_or_else(|| V::text("")))
    }

    fn assign(&mut self, target: &Expr, v: V, append: bool) -> R<()> {
        let name = match target {
            Expr::Var(n) => n.clone(),
            Expr::Unary(op, inner) if op.starts_with('[') => return self.assign(inner, v, append),
            // `$p.Path = …`, `$p['Recurse'] = $true`: a key of a hashtable
            // (splatted later, its keys are parameters).
            Expr::Member {
                target: t,
                name: key,
                args: None,
            } => {
                if key.eq_ignore_ascii_case("commandtext") {
                    // A database command's SQL (`$cmd.CommandText = 'DROP …'`,
                    // ADO.NET's `DbCommand`): what it runs.
                    self.sql_text(std::slice::from_ref(&v), &[], "DbCommand.CommandText")?;
                }
                return self.set_key(t, Some(key.to_ascii_lowercase()), v);
            }
            Expr::Index(t, k) => {
                let key = self.expr(k)?.literal().map(|k| k.to_ascii_lowercase());
                return self.set_key(t, key, v);
            }
            _ => return Ok(()),
        };
        // `$function:NAME = TEXT` / `${function:NAME} = { … }`: defines the
        // function NAME, its body the block or the text made into one
        // (about_Function_Provider); text nobody can read is code that runs
        // whenever NAME is called.
        if let Some(f) = name.to_ascii_lowercase().strip_prefix("function:") {
            let f = f
                .strip_prefix("global:")
                .or_else(|| f.strip_prefix("script:"))
                .or_else(|| f.strip_prefix("local:"))
                .unwrap_or(f)
                .to_string();
            let body = match &v.val {
                Val::Block(b) => Some(b.clone()),
                _ => v.literal().and_then(|t| syntax::parse(&t).ok()),
            };
            match body {
                Some(b) => {
                    let params = syntax::declared_params(&b);
                    self.define(&f, &params, &b)?;
                }
                None => self.eval_code(&v, &format!("$function:{f}"))?,
            }
            return Ok(());
        }
        // `${C:\x\f.txt} = TEXT`: writes the file (`+=` appends to it).
        if is_file_variable(&name) {
            let p = self.path1(&V::text(&name));
            let op = if append { ">>" } else { ">" };
            self.emit(
                vec![raw(op), W::Val(p.clone())],
                Some(&format!("${{{name}}}")),
            )?;
            self.wrote(&p, Some(&v), append);
            return Ok(());
        }
        // `$env:NAME = TEXT`: the programs this line starts are given it,
        // as `export NAME=TEXT` gives them.
        if let Some(var) = name
            .get(..4)
            .filter(|d| d.eq_ignore_ascii_case("env:"))
            .map(|_| &name[4..])
        {
            let old = self.var(&name);
            let word = Value::text(&format!("{var}=")).concat(&if append {
                old.scalar().concat(&v.scalar())
            } else {
                v.scalar()
            });
            self.emit(vec![raw("export"), W::Val(word)], Some("$env:"))?;
        }
        let v = if append {
            match self.vars.get(&name) {
                Some(old) => match (&old.val, &v.val) {
                    (Val::One(a), Val::One(b)) => V::one(a.concat(b)),
                    // `$p += @{ Recurse = $true }`: the tables merged.
                    (Val::Hash(a), Val::Hash(b)) => {
                        let mut h = a.clone();
                        for (k, x) in b {
                            h.retain(|(k2, _)| k2 != k);
                            h.push((k.clone(), x.clone()));
                        }
                        V {
                            val: Val::Hash(h),
                            from: From::Plain,
                        }
                    }
                    _ => V {
                        val: Val::List(vec![old.clone(), v]),
                        from: From::Plain,
                    },
                },
                None => v,
            }
        } else {
            v
        };
        self.set_var(&name, v);
        Ok(())
    }

    /// Set `key` of the hashtable held by the variable `target` (`None`: a
    /// key nobody can read, which makes the table unknown: splatted, any
    /// parameter may be in it). Other targets keep nothing.
    fn set_key(&mut self, target: &Expr, key: Option<String>, v: V) -> R<()> {
        let Expr::Var(n) = target else {
            return Ok(());
        };
        let Some(old) = self.vars.get(n.as_str()).cloned() else {
            return Ok(());
        };
        let Val::Hash(mut h) = old.val else {
            return Ok(());
        };
        let new = match key {
            Some(k) => {
                h.retain(|(k2, _)| *k2 != k);
                h.push((k, v));
                V {
                    val: Val::Hash(h),
                    from: old.from,
                }
            }
            None => V::unknown(&format!("${n}")),
        };
        self.set_var(&n.clone(), new);
        Ok(())
    }

    fn set_var(&mut self, name: &str, v: V) {
        let name = name
            .strip_prefix("global:")
            .or_else(|| name.strip_prefix("script:"))
            .or_else(|| name.strip_prefix("local:"))
            .unwrap_or(name);
        let v = if self.maybe > 0 {
            // A branch may not run: the old value (or nothing) stays possible.
            let old = self.vars.get(name).cloned().unwrap_or_else(|| V::text(""));
            match (&old.val, &v.val) {
                (Val::One(a), Val::One(b)) if old.from == From::Plain && v.from == From::Plain => {
                    V::one(a.clone().union(b))
                }
                _ => v,
            }
        } else {
            v
        };
        self.vars.insert(name.to_string(), v);
    }

    // ------------------------------------------------------------ values

    /// The value of `$name`, and what reading it does: a variable whose name
    /// is a file's path (`${C:\Users\me\.env}`, `${/etc/passwd}`,
    /// `${.\secrets.json}`, the FileSystem provider's variable syntax,
    /// about_Variables) reads that file, judged as `cat -- PATH`.
    fn var_read(&mut self, name: &str) -> R<V> {
        if is_file_variable(name) {
            let label = format!("${{{name}}}");
            return self.file_read(&[V::text(name)], &label, &label);
        }
        Ok(self.var(name))
    }

    fn var(&mut self, name: &str) -> V {
        let n = name
            .strip_prefix("global:")
            .or_else(|| name.strip_prefix("script:"))
            .or_else(|| name.strip_prefix("local:"))
            .or_else(|| name.strip_prefix("using:"))
            .unwrap_or(name);
        if let Some(v) = self.vars.get(n) {
            return v.clone();
        }
        if let Some(env) = n.strip_prefix("env:") {
            return match paths::env_var(env) {
                Some(s) => V::one(Value::one(s)),
                None => env_secret(env),
            };
        }
        match n {
            "home" => V::one(Value::one(Sym::piece(Piece::Home))),
            "pwd" => V::one(self.cwd.clone()),
            // This shell's own process: bash's `$$`.
            "pid" => V::unknown("$$"),
            "true" => V::text("True"),
            "false" => V::text("False"),
            "null" => V::text(""),
            "profile" => {
                let mut s = Sym::piece(Piece::Home);
                s.push(Piece::Text(
                    "/Documents/PowerShell/Microsoft.PowerShell_profile.ps1".into(),
                ));
                V::one(Value::one(s))
            }
            "pshome" => V::text("/c/Program Files/PowerShell/7"),
            "ofs" => V::text(" "),
            _ => V::unknown(&format!("${name}")),
        }
    }

    fn expr(&mut self, e: &Expr) -> R<V> {
        self.step()?;
        Ok(match e {
            Expr::Word(parts) => self.word(parts)?,
            Expr::Var(n) => self.var_read(n)?,
            Expr::Sub(stmts) => {
                self.captured += 1;
                let v = self.stmts(stmts);
                self.captured -= 1;
                v?
            }
            Expr::Paren(st) => {
                self.captured += 1;
                let v = self.stmt(st);
                self.captured -= 1;
                v?
            }
            Expr::Block(b) => {
                // Not run here: where it is run (`&`, Invoke-Command, a
                // parameter of a command) decides. A block handed to a
                // command the analysis does not know is read as code that runs.
                V {
                    val: Val::Block(b.clone()),
                    from: From::Plain,
                }
            }
            Expr::Array(items) => {
                let mut out = vec![];
                for it in items {
                    out.push(self.expr(it)?);
                }
                V {
                    val: Val::List(out),
                    from: From::Plain,
                }
            }
            Expr::Hash(entries) => {
                let mut out = vec![];
                for (k, v) in entries {
                    out.push((k.to_ascii_lowercase(), self.expr(v)?));
                }
                // A table holding a secret holds it: sent as a body, printed or
                // converted, the secret goes with it (`-Body @{ t = $env:TOKEN }`).
                let from = out
                    .iter()
                    .map(|(_, v)| &v.from)
                    .find(|f| matches!(f, From::Secret(_)))
                    .cloned()
                    .unwrap_or(From::Plain);
                V {
                    val: Val::Hash(out),
                    from,
                }
            }
            Expr::Num(n) => V::text(n),
            Expr::Type(t) => V::text(&format!("[{t}]")),
            Expr::Member { target, name, args } => self.member(target, name, args.as_deref())?,
            Expr::Index(t, i) => {
                let t = self.expr(t)?;
                self.expr(i)?;
                match t.from {
                    From::Download(_) | From::DynamicCode | From::Decoded => t,
                    _ => V::unknown("(an element)"),
                }
            }
            Expr::Binary(op, a, b) => {
                let x = self.expr(a)?;
                let y = self.expr(b)?;
                match op.as_str() {
                    "+" => match (&x.val, &y.val) {
                        (Val::One(p), Val::One(q)) => {
                            let from = match (&x.from, &y.from) {
                                (From::Plain, From::Plain) => From::Plain,
                                (f @ (From::Download(_) | From::DynamicCode), _)
                                | (_, f @ (From::Download(_) | From::DynamicCode)) => f.clone(),
                                (f @ From::Secret(_), _) | (_, f @ From::Secret(_)) => f.clone(),
                                _ => From::Plain,
                            };
                            V::one(p.concat(q)).with(from)
                        }
                        (Val::List(p), _) => {
                            let mut l = p.clone();
                            l.push(y.clone());
                            V {
                                val: Val::List(l),
                                from: From::Plain,
                            }
                        }
                        _ => V::unknown("(a sum)"),
                    },
                    "," => {
                        let mut l = match x.val {
                            Val::List(l) => l,
                            _ => vec![x],
                        };
                        l.push(y);
                        V {
                            val: Val::List(l),
                            from: From::Plain,
                        }
                    }
                    _ => {
                        // `-replace`, `-f`, `-join`, comparisons: text
                        // nobody knows; code built from a download stays so.
                        let from = match (&x.from, &y.from) {
                            (f @ (From::Download(_) | From::DynamicCode), _) => f.clone(),
                            // Text made from a secret (`-replace`, `-split`, `-f`,
                            // `-join`) is the secret; a comparison is a truth value.
                            (f @ From::Secret(_), _) | (_, f @ From::Secret(_))
                                if !is_comparison(op) =>
                            {
                                f.clone()
                            }
                            _ => From::Plain,
                        };
                        V::unknown(&format!("(-{op})")).with(from)
                    }
                }
            }
            Expr::Unary(op, inner) => {
                let v = self.expr(inner)?;
                if op.starts_with('[') {
                    let t = op.to_ascii_lowercase();
                    if t.contains("scriptblock") {
                        return Ok(self.script_block_from(&v));
                    }
                    if t == "[void]" || t.starts_with("[bool") {
                        return Ok(V::text(""));
                    }
                    return Ok(v);
                }
                match op.as_str() {
                    "join" => v,
                    _ => V::unknown(&format!("(-{op})")),
                }
            }
        })
    }

    /// `[scriptblock]::Create(text)` / `[scriptblock]text`.
    fn script_block_from(&mut self, v: &V) -> V {
        match v.literal() {
            Some(t) => match syntax::parse(&t) {
                Ok(b) => V {
                    val: Val::Block(b),
                    from: v.from.clone(),
                },
                Err(_) => V::unknown("(code)").with(From::DynamicCode),
            },
            None => V::unknown("(code)").with(match &v.from {
                From::Download(u) => From::Download(u.clone()),
                _ => From::DynamicCode,
            }),
        }
    }

    fn word(&mut self, parts: &[Part]) -> R<V> {
        let mut out = Value::text("");
        let mut from = From::Plain;
        for (i, p) in parts.iter().enumerate() {
            match p {
                Part::Text { text, quoted } => {
                    let mut s = Sym::default();
                    if !quoted && i == 0 {
                        if let Some(rest) = text
                            .strip_prefix('~')
                            .filter(|r| r.is_empty() || r.starts_with(['/', '\\']))
                        {
                            s.push(Piece::Home);
                            push_text(&mut s, rest, false);
                            out = out.concat(&Value::one(s));
                            continue;
                        }
                    }
                    push_text(&mut s, text, *quoted);
                    out = out.concat(&Value::one(s));
                }
                Part::Var(n) => {
                    // `$env:HOMEDRIVE$env:HOMEPATH`: the home folder.
                    if n == "env:homedrive"
                        && matches!(parts.get(i + 1), Some(Part::Var(m)) if m == "env:homepath")
                    {
                        out = out.concat(&Value::one(Sym::piece(Piece::Home)));
                        continue;
                    }
                    if n == "env:homepath"
                        && i > 0
                        && matches!(parts.get(i - 1), Some(Part::Var(m)) if m == "env:homedrive")
                    {
                        continue;
                    }
                    let v = self.var_read(n)?;
                    if !matches!(v.from, From::Plain) {
                        from = v.from.clone();
                    }
                    out = out.concat(&v.scalar());
                }
                Part::Sub(stmts) => {
                    self.captured += 1;
                    let v = self.stmts(stmts);
                    self.captured -= 1;
                    let v = v?;
                    if !matches!(v.from, From::Plain) {
                        from = v.from.clone();
                    }
                    out = out.concat(&v.scalar());
                }
            }
        }
        Ok(V::one(out).with(from))
    }

    fn member(&mut self, target: &Expr, name: &str, args: Option<&[Expr]>) -> R<V> {
        let mut argv = vec![];
        for a in args.unwrap_or_default() {
            argv.push(self.expr(a)?);
        }
        let lname = name.to_ascii_lowercase();
        if let Expr::Type(t) = target {
            return self.dotnet(t, &lname, &argv, args.is_some());
        }
        let t = self.expr(target)?;
        // A hashtable's keys set by its methods (`$p.Add('Path', '~')`),
        // splatted later as parameters.
        if let (Val::Hash(_), Some(_)) = (&t.val, args) {
            match (lname.as_str(), argv.as_slice()) {
                ("add" | "set_item", [k, v]) => {
                    self.set_key(
                        target,
                        k.literal().map(|k| k.to_ascii_lowercase()),
                        v.clone(),
                    )?;
                    return Ok(V::text(""));
                }
                ("remove", [k]) => {
                    if let (Expr::Var(n), Some(k), Val::Hash(mut h)) =
                        (target, k.literal(), t.val.clone())
                    {
                        h.retain(|(k2, _)| !k2.eq_ignore_ascii_case(&k));
                        self.set_var(
                            &n.clone(),
                            V {
                                val: Val::Hash(h),
                                from: t.from.clone(),
                            },
                        );
                    }
                    return Ok(V::text(""));
                }
                _ => {}
            }
        }
        // `[PowerShell]::Create().AddCommand(NAME).AddParameter(…)…`: the
        // command is put together here and runs at `.Invoke()`.
        if let (From::PsCommand(k), Some(_)) = (&t.from, args) {
            let k = *k;
            match lname.as_str() {
                "addcommand" | "addscript" | "addstatement" => {}
                "addparameter" => {
                    let name = argv.first().and_then(V::literal).unwrap_or_default();
                    let v = argv.get(1).cloned().unwrap_or_else(|| V::text("True"));
                    if let Some(c) = self.ps_commands.get_mut(k) {
                        c.1.push((Some(name), v));
                    }
                    return Ok(t);
                }
                "addparameters" => {
                    let items: Vec<(Option<String>, V)> = match argv.first().map(|v| &v.val) {
                        Some(Val::Hash(h)) => h
                            .iter()
                            .map(|(n, v)| (Some(n.clone()), v.clone()))
                            .collect(),
                        Some(Val::List(l)) => l.iter().map(|v| (None, v.clone())).collect(),
                        // Parameters nobody can read: as a splatted unknown table.
                        _ => vec![(None, V::unknown("(parameters)"))],
                    };
                    if let Some(c) = self.ps_commands.get_mut(k) {
                        c.1.extend(items);
                    }
                    return Ok(t);
                }
                "addargument" => {
                    let v = argv
                        .first()
                        .cloned()
                        .unwrap_or_else(|| V::unknown("(argument)"));
                    if let Some(c) = self.ps_commands.get_mut(k) {
                        c.1.push((None, v));
                    }
                    return Ok(t);
                }
                "invoke" | "invokeasync" | "begininvoke" => {
                    self.run_ps_command(k)?;
                    return Ok(V::unknown("(result)"));
                }
                _ => {}
            }
        }
        // A script block's own methods: the ones that run it (`Invoke`,
        // `InvokeReturnAsIs`, `InvokeWithContext`), `GetNewClosure` (the same
        // code); anything else handed the block may run it.
        if let Val::Block(b) = &t.val {
            let b = b.clone();
            match lname.as_str() {
                "getnewclosure" | "getsteppablepipeline" => return Ok(t),
                // (read below, as they always were)
                "invoke" | "invokereturnasis" => {}
                "tostring" | "ast" | "file" | "startposition" | "module" | "attributes"
                | "isfilter" | "isconfiguration" | "id" | "gettype" | "equals" | "gethashcode" => {}
                "invokewithcontext" => {
                    let rest = argv.get(2..).map(<[V]>::to_vec).unwrap_or_default();
                    return self.block(&b, ".InvokeWithContext()", None, rest, true);
                }
                _ if args.is_some() => {
                    return self.block(&b, &format!(".{name}()"), None, argv, true);
                }
                _ => {}
            }
        }
        // `.ForEach({ … })`, `.Where({ … })` (PowerShell's collection
        // methods): the block runs once per item, the item as `$_`.
        if matches!(lname.as_str(), "foreach" | "where") {
            if let Some(Val::Block(b)) = argv.first().map(|v| &v.val) {
                let b = b.clone();
                return self.block(&b, &format!(".{name}()"), Some(t), vec![], true);
            }
        }
        Ok(match lname.as_str() {
            "downloadstring" | "downloaddata" | "getstringasync" | "downloadstringtaskasync" => {
                let url = argv
                    .first()
                    .map(V::scalar)
                    .unwrap_or_else(|| Value::unknown("(url)"));
                self.emit(vec![raw("curl"), raw("-fsSL"), W::Val(url.clone())], None)?;
                V::unknown("(download)").with(From::Download(url))
            }
            "downloadfile" | "downloadfiletaskasync" => {
                let url = argv
                    .first()
                    .map(V::scalar)
                    .unwrap_or_else(|| Value::unknown("(url)"));
                let file = argv
                    .get(1)
                    .map(|v| self.path1(v))
                    .unwrap_or_else(|| Value::unknown("(file)"));
                self.download_to(file, url, None)?;
                V::text("")
            }
            "getstring" => match (&t.from, argv.first().map(|a| &a.from)) {
                (From::Encoding(enc), Some(From::Bytes(b))) => match decode(enc, b) {
                    Some(text) => V::text(&text).with(From::Decoded),
                    None => V::unknown("(decoded)").with(From::DynamicCode),
                },
                (_, Some(f @ From::Secret(_))) => V::unknown("(text)").with(f.clone()),
                _ => V::unknown("(text)"),
            },
            // A credential's password as text (`NetworkCredential.Password`).
            "getnetworkcredential" => V::unknown("(credential)").with(From::Secret(None)),
            "retrievepassword" => {
                // PasswordVault: fills the credential's Password to show it.
                self.reveal(
                    &V::unknown("(password)").with(From::Secret(None)),
                    "PasswordCredential.RetrievePassword",
                )?;
                V::unknown("(credential)").with(From::Secret(None))
            }
            "uploadfile" | "uploadfileasync" | "uploadfiletaskasync" => {
                let url = argv
                    .first()
                    .map_or_else(|| Value::unknown("(url)"), V::scalar);
                let file = argv
                    .last()
                    .filter(|_| argv.len() >= 2)
                    .map_or_else(|| Value::unknown("(file)"), |v| self.path1(v));
                self.emit(
                    vec![raw("curl"), raw("-T"), W::Val(file), W::Val(url)],
                    Some("WebClient.UploadFile"),
                )?;
                V::unknown("(response)")
            }
            "uploadstring"
            | "uploadstringasync"
            | "uploadstringtaskasync"
            | "uploaddata"
            | "uploadvalues" => {
                for v in &argv {
                    self.reveal(v, "WebClient.UploadString")?;
                }
                V::unknown("(response)")
            }
            "invoke" | "invokereturnasis" | "invokewithcontext" => match &t.val {
                Val::Block(b) => {
                    let b = b.clone();
                    self.block(&b, "Invoke()", None, argv, true)?
                }
                _ if matches!(t.from, From::DynamicCode | From::Download(_)) => {
                    self.eval_code(&t, "Invoke()")?;
                    V::unknown("(result)")
                }
                _ => V::unknown("(result)"),
            },
            // `$ExecutionContext.InvokeCommand`: code given as text.
            "invokescript" | "expandstring" => {
                // `InvokeScript(TEXT)`, or the overloads that take a script
                // block after a scope flag or a session state
                // (`InvokeScript($false, BLOCK, $null, $null)`).
                let code = argv
                    .iter()
                    .find(|v| {
                        matches!(v.val, Val::Block(_))
                            || matches!(v.from, From::DynamicCode | From::Download(_))
                    })
                    .or_else(|| argv.first())
                    .cloned()
                    .unwrap_or_else(|| V::unknown("(code)"));
                self.eval_code(&code, "InvokeCommand.InvokeScript")?;
                V::unknown("(result)")
            }
            "newscriptblock" => {
                let code = argv
                    .first()
                    .cloned()
                    .unwrap_or_else(|| V::unknown("(code)"));
                self.script_block_from(&code)
            }
            "fullname" | "path" | "providerpath" | "fullpath" | "content" | "tostring" | "trim"
            | "value" | "source" | "definition" => t,
            // `$PROFILE`'s four profiles (about_Profiles) and PSReadLine's
            // history file (`(Get-PSReadLineOption).HistorySavePath`): the
            // names are theirs alone.
            "currentusercurrenthost" | "currentuserallhosts" | "historysavepath" => {
                let tail = match lname.as_str() {
                    "currentusercurrenthost" => "/Documents/PowerShell/Microsoft.PowerShell_profile.ps1",
                    "currentuserallhosts" => "/Documents/PowerShell/profile.ps1",
                    _ => "/AppData/Roaming/Microsoft/Windows/PowerShell/PSReadLine/ConsoleHost_history.txt",
                };
                let mut s = Sym::piece(Piece::Home);
                s.push(Piece::Text(tail.into()));
                V::one(Value::one(s))
            }
            "createshortcut" => {
                // WScript.Shell's shortcut: saved where it is named (a
                // Startup folder makes it run at every logon).
                if let Some(p) = argv.first() {
                    let p = self.path1(p);
                    self.emit(vec![raw(">"), W::Val(p)], Some("CreateShortcut"))?;
                }
                V::unknown("(shortcut)")
            }
            // The agent's own shell's parent (`(Get-Process -Id $PID).Parent`):
            // the process that started it, bash's `$PPID`.
            "parent" if args.is_none() => match &t.from {
                From::Pid(p) if p.to_string() == "$$" => {
                    V::unknown("(parent)").with(From::Pid(Value::unknown("$PPID")))
                }
                _ => V::unknown("(parent)"),
            },
            "id" if args.is_none() => match &t.from {
                From::Process(n) => V::unknown("(.Id)").with(From::ProcessId(n.clone())),
                From::Processes => V::unknown("(.Id)").with(From::ProcessId(Value::text("*"))),
                From::Pid(p) => V::one(p.clone()),
                f @ From::Selection { .. } => V::unknown("(.Id)").with(f.clone()),
                _ => V::unknown("(.Id)"),
            },
            // A FileInfo / DirectoryInfo removed, moved, copied or opened to
            // write (`(Get-Item P).Delete($true)`, `.MoveTo(D)`, `.Create()`).
            m if args.is_some()
                && t.from == From::Item
                && self.item_method(&t, m, &argv)?.is_some() =>
            {
                V::text("")
            }
            // `[PowerShell]::Create().AddCommand(NAME)`: its parameters follow.
            "addcommand" if args.is_some() && argv.first().and_then(V::literal).is_some() => {
                let name = argv.first().and_then(V::literal).unwrap_or_default();
                self.ps_commands.push((name, vec![]));
                let v = V::unknown("(pipeline)").with(From::PsCommand(self.ps_commands.len() - 1));
                // `$ps.AddCommand(…)`: the object in `$ps` holds the command
                // (`$ps.AddParameter(…)`, `$ps.Invoke()` later).
                if let Some(n) = root_var(target) {
                    self.set_var(&n, v.clone());
                }
                v
            }
            // `[PowerShell]::Create().AddScript(CODE)`: the code runs at `.Invoke()`.
            "addscript" | "addcommand" if args.is_some() => {
                let code = argv
                    .first()
                    .cloned()
                    .unwrap_or_else(|| V::unknown("(code)"));
                self.eval_code(&code, "PowerShell.AddScript")?;
                V::unknown("(pipeline)")
            }
            m if args.is_some() && self.object_method(&t.from, m, &argv)? => V::unknown("(result)"),
            "alluserscurrenthost" => {
                V::text("/c/Program Files/PowerShell/7/Microsoft.PowerShell_profile.ps1")
            }
            "allusersallhosts" => V::text("/c/Program Files/PowerShell/7/profile.ps1"),
            _ if argv.iter().any(|v| matches!(v.val, Val::Block(_))) => {
                // A script block handed to a method this analysis does not
                // know (`$ps.AddScript({ … })`, an event handler): it may run.
                for v in &argv {
                    if let Val::Block(b) = &v.val {
                        let b = b.clone();
                        self.block(&b, &format!(".{name}()"), None, vec![], true)?;
                    }
                }
                V::unknown(&format!("(.{name})"))
            }
            // A name read from one of the objects a cmdlet listed stands for
            // those objects (`Get-Service WinDefend | % { Stop-Service -Name
            // $_.Name }` stops WinDefend; `Get-ScheduledTask -TaskPath X | % {
            // Disable-ScheduledTask -TaskName $_.TaskName }` disables X's).
            m if args.is_none() && self_named(&t.from, m) => match &t.from {
                From::Service(n) | From::Process(n) => V::one(n.clone()).with(t.from.clone()),
                _ => V::unknown(&format!("(.{name})")).with(t.from.clone()),
            },
            _ => {
                let from = match t.from {
                    From::Download(u) => From::Download(u),
                    From::DynamicCode => From::DynamicCode,
                    // A secret's text, cut or converted, is still the secret.
                    From::Secret(s)
                        if !matches!(lname.as_str(), "length" | "count" | "gettype" | "equals") =>
                    {
                        From::Secret(s)
                    }
                    From::Items { .. } if matches!(lname.as_str(), "name" | "basename") => {
                        From::Plain
                    }
                    _ => From::Plain,
                };
                V::unknown(&format!("(.{name})")).with(from)
            }
        })
    }

    /// Static members of .NET types that touch files, code or the network.
    fn dotnet(&mut self, ty: &str, m: &str, a: &[V], call: bool) -> R<V> {
        let t = ty.to_ascii_lowercase();
        let t = t.strip_prefix("system.").unwrap_or(&t);
        // `WriteAllTextAsync`, `CopyAsync`, `DeleteAsync`: the same action,
        // finished later.
        let m = match m.strip_suffix("async") {
            Some(base) if t.starts_with("io.") && !base.is_empty() => base,
            _ => m,
        };
        if let Some(v) = self.file_object(t, m, a)? {
            return Ok(v);
        }
        let arg = |i: usize| {
            a.get(i)
                .map(V::scalar)
                .unwrap_or_else(|| Value::unknown("(argument)"))
        };
        let truthy = |i: usize| a.get(i).and_then(V::literal).is_some_and(|s| is_true(&s));
        match (t, m) {
            ("io.directory", "delete") => {
                let p = a
                    .first()
                    .map(|v| self.path1(v))
                    .unwrap_or_else(|| Value::unknown("(path)"));
                let mut w = vec![raw("rm")];
                if truthy(1) {
                    w.push(raw("-r"));
                }
                w.extend([raw("-f"), raw("--"), W::Val(p)]);
                self.emit(w, Some("[IO.Directory]::Delete"))?;
            }
            ("io.file", "delete") => {
                let p = a
                    .first()
                    .map(|v| self.path1(v))
                    .unwrap_or_else(|| Value::unknown("(path)"));
                self.emit(
                    vec![raw("rm"), raw("-f"), raw("--"), W::Val(p)],
                    Some("[IO.File]::Delete"),
                )?;
            }
            // `[IO.File]::Open(P, 'Create')`: a mode that makes or cuts the
            // file writes it (`Append`, `OpenOrCreate` write into it).
            ("io.file", "open") if file_mode(a.get(1)).is_some() => {
                let p = a
                    .first()
                    .map(|v| self.path1(v))
                    .unwrap_or_else(|| Value::unknown("(path)"));
                let op = file_mode(a.get(1)).unwrap_or(">");
                self.emit(vec![raw(op), W::Val(p)], Some("[IO.File]::Open"))?;
            }
            (
                "io.file",
                "readalltext" | "readalllines" | "readallbytes" | "readlines" | "openread"
                | "opentext" | "open",
            ) => {
                return self.file_read(a, "[IO.File]::Read", "(file text)");
            }
            (
                "io.file",
                "writealltext" | "writealllines" | "writeallbytes" | "create" | "openwrite"
                | "appendalltext" | "appendalllines" | "appendtext" | "createtext",
            ) => {
                let p = a
                    .first()
                    .map(|v| self.path1(v))
                    .unwrap_or_else(|| Value::unknown("(path)"));
                let op = if m.starts_with("append") { ">>" } else { ">" };
                self.wrote(&p, a.get(1), m.starts_with("append"));
                self.emit(vec![raw(op), W::Val(p)], Some("[IO.File]::Write"))?;
            }
            ("io.file" | "io.directory", "copy" | "move" | "replace") => {
                let s = a
                    .first()
                    .map(|v| self.path1(v))
                    .unwrap_or_else(|| Value::unknown("(path)"));
                let d = a
                    .get(1)
                    .map(|v| self.path1(v))
                    .unwrap_or_else(|| Value::unknown("(path)"));
                let prog = if m == "copy" { "cp" } else { "mv" };
                self.emit(
                    vec![raw(prog), raw("-f"), raw("--"), W::Val(s), W::Val(d)],
                    None,
                )?;
            }
            (
                "io.directory",
                "getfiles"
                | "getdirectories"
                | "enumeratefiles"
                | "enumeratedirectories"
                | "getfilesystementries"
                | "enumeratefilesystementries",
            ) => {
                let p = a
                    .first()
                    .map(|v| self.path1(v))
                    .unwrap_or_else(|| Value::unknown("(path)"));
                return Ok(V::unknown("(items)").with(From::Items {
                    dir: p,
                    recurse: a.iter().any(|v| {
                        v.literal()
                            .is_some_and(|s| s.to_ascii_lowercase().contains("alldirectories"))
                    }),
                    filter: a.get(1).map(V::scalar),
                }));
            }
            ("environment", "getfolderpath") => {
                let name = a.first().and_then(V::literal).unwrap_or_default();
                return Ok(V::one(folder(&name)));
            }
            ("environment", "getenvironmentvariable") => {
                let name = a.first().and_then(V::literal).unwrap_or_default();
                return Ok(match paths::env_var(&name) {
                    Some(s) => V::one(Value::one(s)),
                    None if name.is_empty() => V::unknown("$env:(name)"),
                    None => env_secret(&name),
                });
            }
            ("environment", "getenvironmentvariables") => {
                return Ok(V::unknown("(environment)").with(From::Environment));
            }
            (
                "runtime.interopservices.marshal",
                "securestringtobstr"
                | "securestringtoglobalallocunicode"
                | "securestringtoglobalallocansi"
                | "securestringtocotaskmemunicode"
                | "securestringtocotaskmemansi",
            )
            | ("security.cryptography.protecteddata", "unprotect")
            | ("net.networkcredential", "new") => {
                // A SecureString, DPAPI blob or credential turned back into text.
                return Ok(V::unknown("(plain text)").with(From::Secret(None)));
            }
            ("runtime.interopservices.marshal", m) if m.starts_with("ptrtostring") => {
                return Ok(match a.first().map(|v| &v.from) {
                    Some(f @ From::Secret(_)) => V::unknown("(plain text)").with(f.clone()),
                    _ => V::unknown("(text)"),
                });
            }
            ("console", "writeline" | "write") => {
                for v in a {
                    self.reveal(v, "[Console]::WriteLine")?;
                }
            }
            ("environment", "setenvironmentvariable") => {
                // Any scope: the process's own reaches what it starts.
                if let (Some(n), Some(v)) = (a.first(), a.get(1)) {
                    let word = n.scalar().concat(&Value::text("=")).concat(&v.scalar());
                    self.emit(
                        vec![raw("export"), W::Val(word)],
                        Some("[Environment]::SetEnvironmentVariable"),
                    )?;
                }
                let name = a
                    .first()
                    .and_then(V::literal)
                    .unwrap_or_else(|| "(name)".into());
                let scope = a
                    .get(2)
                    .and_then(V::literal)
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                let hive = if scope.contains("machine") {
                    "hklm/system/currentcontrolset/control/session manager"
                } else {
                    "hkcu"
                };
                if scope.contains("user") || scope.contains("machine") {
                    let p = Value::text(&format!(
                        "/registry/{hive}/environment/{}",
                        name.to_ascii_lowercase()
                    ));
                    self.emit(
                        vec![raw(">"), W::Val(p)],
                        Some("[Environment]::SetEnvironmentVariable"),
                    )?;
                }
            }
            ("environment", "currentdirectory") if !call => return Ok(V::one(self.cwd.clone())),
            ("io.path", "gettemppath") => {
                return Ok(V::one(Value::one(Sym::piece(Piece::TempRoot))))
            }
            ("io.path", "combine" | "join") => {
                let mut out = arg(0);
                for v in a.iter().skip(1) {
                    out = out.concat(&Value::text("/")).concat(&v.scalar());
                }
                return Ok(V::one(out));
            }
            ("io.path", "getfullpath") => return Ok(V::one(arg(0))),
            ("convert", "frombase64string") => {
                return Ok(
                    match a.first().and_then(V::literal).and_then(|s| base64(&s)) {
                        Some(bytes) => V::unknown("(bytes)").with(From::Bytes(bytes)),
                        None => V::unknown("(bytes)").with(From::DynamicCode),
                    },
                );
            }
            // `[IO.FileMode]::Create`: the mode's name (see `file_mode`).
            ("io.filemode", mode) if !call => return Ok(V::text(mode)),
            ("text.encoding", enc) if !call => {
                return Ok(V::unknown("(encoding)").with(From::Encoding(enc.to_string())));
            }
            ("scriptblock" | "management.automation.scriptblock", "create") => {
                let v = a.first().cloned().unwrap_or_else(|| V::unknown("(code)"));
                return Ok(self.script_block_from(&v));
            }
            ("diagnostics.process", "start") => {
                self.started_without_waiting("[Diagnostics.Process]::Start");
                let name = a
                    .first()
                    .cloned()
                    .unwrap_or_else(|| V::unknown("(program)"));
                let args = a.get(1).map(split_arguments).unwrap_or_default();
                self.start(&name, args)?;
            }
            ("net.webclient", "new") => return Ok(V::unknown("(web client)")),
            ("diagnostics.process", "getprocesses") => {
                return Ok(V::unknown("(processes)").with(From::Processes))
            }
            ("diagnostics.process", "getprocessesbyname") => {
                return Ok(V::unknown("(processes)").with(From::Process(arg(0))))
            }
            ("diagnostics.process", "getprocessbyid") => {
                return Ok(V::unknown("(process)").with(From::Pid(arg(0))))
            }
            // Visual Basic's file system helpers, callable from PowerShell.
            ("microsoft.visualbasic.fileio.filesystem", "deletedirectory" | "deletefile") => {
                let p = a
                    .first()
                    .map(|v| self.path1(v))
                    .unwrap_or_else(|| Value::unknown("(path)"));
                let mut w = vec![raw("rm")];
                if m == "deletedirectory" {
                    w.push(raw("-r"));
                }
                w.extend([raw("-f"), raw("--"), W::Val(p)]);
                self.emit(w, Some("FileSystem.Delete"))?;
            }
            // A reader of a file (`New-Object IO.StreamReader(P)`): the file read.
            ("io.streamreader" | "io.filestream" | "io.binaryreader", "new") => {
                return self.file_read(a, "StreamReader", "(reader)");
            }
            _ => {}
        }
        Ok(V::unknown(&format!("[{ty}]::{m}")))
    }

    /// .NET's file objects made from a path: `FileInfo` / `DirectoryInfo`
    /// (`[IO.FileInfo]::new(P)`, `New-Object IO.FileInfo P`) are the item
    /// itself, whose methods act on it (see [`Self::item_method`]); a
    /// `StreamWriter`, or a `FileStream` opened to create, cut or append,
    /// writes the file. `None`: not one of these.
    pub(super) fn file_object(&mut self, t: &str, m: &str, a: &[V]) -> R<Option<V>> {
        let path = |s: &mut Self| {
            a.first()
                .map(|v| s.path1(v))
                .unwrap_or_else(|| Value::unknown("(path)"))
        };
        Ok(match (t, m) {
            ("io.fileinfo" | "io.directoryinfo", "new") => {
                Some(V::one(path(self)).with(From::Item))
            }
            ("io.streamwriter" | "io.binarywriter", "new") => {
                let p = path(self);
                let append = a.get(1).and_then(V::literal).is_some_and(|s| is_true(&s));
                let op = if append { ">>" } else { ">" };
                self.emit(vec![raw(op), W::Val(p)], Some("StreamWriter"))?;
                Some(V::unknown("(writer)"))
            }
            // A database command made with its SQL (`New-Object
            // System.Data.SqlClient.SqlCommand('DROP …', $conn)`, Npgsql's,
            // MySQL's, SQLite's, ODBC's): the SQL it runs.
            (t, "new")
                if t.ends_with("command")
                    && ["sql", "odbc", "oledb", "oracle", "db2"]
                        .iter()
                        .any(|d| t.contains(d)) =>
            {
                let q: Vec<V> = a.first().cloned().into_iter().collect();
                self.sql_text(&q, &[], "DbCommand")?;
                Some(V::unknown("(command)"))
            }
            ("io.filestream", "new") if file_mode(a.get(1)).is_some() => {
                let p = path(self);
                let op = file_mode(a.get(1)).unwrap_or(">");
                self.emit(vec![raw(op), W::Val(p)], Some("FileStream"))?;
                Some(V::unknown("(stream)"))
            }
            _ => None,
        })
    }

    /// A method of a file or folder object (`Get-Item P`, a listing's item,
    /// `[IO.FileInfo]::new(P)`): `Delete`, `MoveTo`, `CopyTo`, `Replace`, and
    /// the ones that open it to write (`Create`, `CreateText`, `OpenWrite`,
    /// `AppendText`, `Open` with a writing mode). `None`: not one of these.
    fn item_method(&mut self, item: &V, m: &str, a: &[V]) -> R<Option<V>> {
        let me = item.scalar();
        let arg = |s: &mut Self, i: usize| {
            a.get(i)
                .map(|v| s.path1(v))
                .unwrap_or_else(|| Value::unknown("(path)"))
        };
        let words = match m {
            "delete" => {
                let mut w = vec![raw("rm")];
                if a.first().and_then(V::literal).is_some_and(|a| is_true(&a)) {
                    w.push(raw("-r"));
                }
                w.extend([raw("-f"), raw("--"), W::Val(me)]);
                w
            }
            // `MoveTo(DEST)`, and `Replace(DEST, BACKUP)`: this file takes DEST's place.
            "moveto" | "replace" | "copyto" => vec![
                raw(if m == "copyto" { "cp" } else { "mv" }),
                raw("-f"),
                raw("--"),
                W::Val(me),
                W::Val(arg(self, 0)),
            ],
            "create" | "createtext" | "openwrite" => vec![raw(">"), W::Val(me)],
            "appendtext" => vec![raw(">>"), W::Val(me)],
            "open" if file_mode(a.first()).is_some() => {
                vec![raw(file_mode(a.first()).unwrap_or(">")), W::Val(me)]
            }
            _ => return Ok(None),
        };
        let label = match m {
            "delete" => "FileSystemInfo.Delete",
            "moveto" => "FileSystemInfo.MoveTo",
            "copyto" => "FileInfo.CopyTo",
            "replace" => "FileInfo.Replace",
            _ => "FileInfo.Open",
        };
        self.emit(words, Some(label))?;
        Ok(Some(V::text("")))
    }

    // ------------------------------------------------------------ commands

    fn command(&mut self, c: &Command, input: Option<&V>, last: bool) -> R<V> {
        let _ = last;
        if !self.fixed_offset {
            self.offset = Some(c.offset);
        }
        let name = self.expr(&c.name)?;
        if let Val::Block(b) = &name.val {
            let b = b.clone();
            let args = self.plain_args(&c.args)?;
            let label = if c.invoke == Invoke::Dot {
                ". {}"
            } else {
                "& {}"
            };
            let v = self.block(&b, label, input.cloned(), args, c.invoke != Invoke::Dot)?;
            self.command_redirects(&c.redirects)?;
            return Ok(v);
        }
        if matches!(name.from, From::Download(_) | From::DynamicCode) {
            // `& ([scriptblock]::Create((irm URL)))`: code nobody has read.
            self.eval_code(&name, "& {}")?;
            return Ok(V::unknown("(output)"));
        }
        let Some(text) = name.literal().or_else(|| known_program(&name.scalar())) else {
            // The program itself is only known at run time: code nobody
            // can read before it runs (`& $cmd`, `& (gcm i?x) $s`).
            self.runner("eval", Code::Dynamic, "& (a name known when it runs)")?;
            let mut words = vec![W::Val(name.scalar())];
            for a in self.plain_args(&c.args)? {
                words.extend(a.items().into_iter().map(W::Val));
            }
            self.redirects(&c.redirects, &mut words)?;
            self.emit(words, None)?;
            return Ok(V::unknown("(output)"));
        };
        let bare = matches!(&c.name, Expr::Word(_)) || c.invoke != Invoke::Plain;
        let text = match self.aliases.get(&text.to_ascii_lowercase()) {
            Some(target) => target.clone(),
            None => text,
        };
        let lower = text.to_ascii_lowercase();
        // A function defined earlier in the script.
        if bare && !lower.contains(['/', '\\']) {
            if let Some((params, body)) = self.funcs.get(&lower).cloned() {
                if !self.calling.contains(&lower) && self.calling.len() < MAX_DEPTH {
                    let args = self.plain_args(&c.args)?;
                    let named = self.named_args(&c.args)?;
                    let mut positional = self.positional_args(&c.args)?.into_iter();
                    let saved = self.vars.clone();
                    for p in &params {
                        // By name (any prefix, or a splatted table's key),
                        // else the next argument no name took.
                        let v = named
                            .iter()
                            .find(|(n, _)| {
                                p.to_ascii_lowercase().starts_with(&n.to_ascii_lowercase())
                            })
                            .map(|(_, v)| v.clone())
                            .or_else(|| positional.next())
                            .unwrap_or_else(|| V::text(""));
                        self.vars.insert(p.clone(), v);
                    }
                    self.vars.insert(
                        "args".into(),
                        V {
                            val: Val::List(args),
                            from: From::Plain,
                        },
                    );
                    if let Some(inp) = input {
                        self.vars.insert("input".into(), inp.clone());
                    }
                    self.calling.push(lower.clone());
                    let n = self.via.len();
                    self.via.push(text.clone());
                    let r = self.stmts(&body);
                    self.via.truncate(n);
                    self.calling.pop();
                    self.vars = saved;
                    r?;
                    return Ok(V::unknown("(output)"));
                }
                return Ok(V::unknown("(output)"));
            }
        }
        // A batch file this line wrote (`.\c.bat`): cmd runs its text.
        if (lower.ends_with(".cmd") || lower.ends_with(".bat")) && self.run_written(&text, &text)? {
            return Ok(V::unknown("(output)"));
        }
        // A script file, run or dot-sourced (`./x.ps1`, `. .\env.ps1`).
        if lower.ends_with(".ps1") || lower.ends_with(".psm1") {
            if self.run_written(&text, &text)? {
                return Ok(V::unknown("(output)"));
            }
            let code = if self.was_downloaded(&text) {
                Code::Dynamic
            } else {
                Code::File
            };
            self.runner("pwsh", code, &text)?;
            return Ok(V::unknown("(output)"));
        }
        if self.drive_item(&lower, c)? {
            return Ok(V::text(""));
        }
        let base = program_base(&text);
        if let Some(cmdlet) = cmdlets::find(&text).filter(|_| !text.contains(['/'])) {
            // Names that are a program too (`rm`, `curl`, `sc`): the alias
            // in Windows PowerShell, the program in PowerShell 7 on Linux
            // and macOS (or for `curl`, `wget`, `sc` everywhere but 5.1):
            // both readings count.
            let dual = DUAL.iter().any(|d| d.eq_ignore_ascii_case(&text));
            let out = self.cmdlet(cmdlet, c, input)?;
            if dual {
                self.native(&base, c, input)?;
            }
            return Ok(out);
        }
        if let Some(v) = self.windows_cmdlet(&lower, c, input)? {
            return Ok(v);
        }
        if let Some(full) = cmdlets::data(&text) {
            return self.data_cmdlet(full, c, input);
        }
        if let Some(v) = self.sql_cmdlet(&text, c)? {
            return Ok(v);
        }
        if looks_like_cmdlet(&text) {
            return self.data_cmdlet_unknown(&text, c, input);
        }
        self.native(&base, c, input)
    }

    /// Run a script block (`&`, `.`, Invoke-Command, a per-item block).
    fn block(
        &mut self,
        b: &[Stmt],
        label: &str,
        item: Option<V>,
        args: Vec<V>,
        child: bool,
    ) -> R<V> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.err("script blocks nested too deeply"));
        }
        let saved = child.then(|| self.vars.clone());
        if let Some(it) = item {
            let it = item_of(&it);
            self.vars.insert("_".into(), it.clone());
            self.vars.insert("psitem".into(), it);
        }
        let params = syntax::declared_params(b);
        for (i, p) in params.iter().enumerate() {
            self.vars.insert(
                p.clone(),
                args.get(i).cloned().unwrap_or_else(|| V::text("")),
            );
        }
        self.vars.insert(
            "args".into(),
            V {
                val: Val::List(args),
                from: From::Plain,
            },
        );
        let n = self.via.len();
        self.via.push(label.to_string());
        let r = self.stmts(b);
        self.via.truncate(n);
        if let Some(s) = saved {
            self.vars = s;
        }
        self.depth -= 1;
        r
    }

    /// A function defined (`function NAME { … }`, `$function:NAME = …`):
    /// kept for its calls, and its body reported as written too, its
    /// parameters unknown (`f()` in `via`, as for a bash function's
    /// definition).
    fn define(&mut self, name: &str, params: &[String], body: &[Stmt]) -> R<()> {
        self.funcs
            .insert(name.to_ascii_lowercase(), (params.to_vec(), body.to_vec()));
        let saved = self.vars.clone();
        for p in params {
            self.vars.insert(p.clone(), V::unknown(&format!("${p}")));
        }
        self.vars.insert("args".into(), V::unknown("$args"));
        let n = self.via.len();
        self.via.push(format!("{name}()"));
        let r = self.maybe_stmts(body);
        self.via.truncate(n);
        self.vars = saved;
        r.map(|_| ())
    }

    /// An item of the `function:` or `env:` drive set (`Set-Item
    /// function:NAME TEXT`, `New-Item -Path env: -Name NAME -Value TEXT`,
    /// `Set-Content Env:\NAME TEXT`): as `$function:NAME = TEXT` or
    /// `$env:NAME = TEXT`. `true` when this was one.
    fn drive_item(&mut self, lower: &str, c: &Command) -> R<bool> {
        if !matches!(
            lower,
            "set-item" | "si" | "new-item" | "ni" | "set-content" | "add-content" | "ac"
        ) {
            return Ok(false);
        }
        let (named, plain) = self.loose_args(&c.args)?;
        let get = |full: &str, pos: usize| {
            named
                .iter()
                .find(|(n, _)| !n.is_empty() && full.starts_with(n.as_str()))
                .map(|(_, v)| v.clone())
                .or_else(|| plain.get(pos).cloned())
        };
        let path = named
            .iter()
            .find(|(n, _)| {
                !n.is_empty()
                    && ("path".starts_with(n.as_str()) || "literalpath".starts_with(n.as_str()))
            })
            .map(|(_, v)| v.clone())
            .or_else(|| plain.first().cloned())
            .and_then(|v| v.literal());
        let Some((drive, rest)) = path.and_then(|p| {
            let l = p.to_ascii_lowercase();
            ["function:", "env:"].into_iter().find_map(|d| {
                l.strip_prefix(d).map(|r| {
                    let at = p.len() - r.len();
                    (d, p[at..].trim_start_matches(['/', '\\']).to_string())
                })
            })
        }) else {
            return Ok(false);
        };
        let name = if rest.is_empty() {
            named
                .iter()
                .find(|(n, _)| n == "name" || (n.len() >= 2 && "name".starts_with(n.as_str())))
                .and_then(|(_, v)| v.literal())
                .unwrap_or_default()
        } else {
            rest
        };
        let value_pos = usize::from(!named.iter().any(|(n, _)| "path".starts_with(n.as_str())));
        let value = get("value", value_pos).unwrap_or_else(|| V::text(""));
        let append = drive == "env:" && matches!(lower, "add-content" | "ac");
        let target = Expr::Var(format!("{drive}{name}"));
        self.assign(&target, value, append)?;
        Ok(true)
    }

    /// Run the command `AddCommand` put together (see [`From::PsCommand`]):
    /// as the same command written out, its parameters splatted, so it is
    /// bound as any other call of it (prefixes, aliases, positions).
    fn run_ps_command(&mut self, k: usize) -> R<()> {
        let Some((name, params)) = self.ps_commands.get(k).cloned() else {
            return Ok(());
        };
        let (mut named, mut positional) = (vec![], vec![]);
        for (n, v) in params {
            match n {
                Some(n) => named.push((n.to_ascii_lowercase(), v)),
                None => positional.push(v),
            }
        }
        let (hv, lv) = ("\u{E020}named", "\u{E020}positional");
        let saved = (self.vars.remove(hv), self.vars.remove(lv));
        self.vars.insert(
            hv.into(),
            V {
                val: Val::Hash(named),
                from: From::Plain,
            },
        );
        self.vars.insert(
            lv.into(),
            V {
                val: Val::List(positional),
                from: From::Plain,
            },
        );
        let c = Command {
            invoke: Invoke::Call,
            name: Expr::Word(vec![Part::Text {
                text: name,
                quoted: true,
            }]),
            args: vec![Arg::Splat(hv.into()), Arg::Splat(lv.into())],
            redirects: vec![],
            offset: self.offset.unwrap_or(0),
        };
        let r = self.command(&c, None, true);
        restore(&mut self.vars, hv, saved.0);
        restore(&mut self.vars, lv, saved.1);
        r.map(|_| ())
    }

    /// SQL handed to a database by PowerShell (a query cmdlet's `-Query`, a
    /// database command's `CommandText`): judged as the same text given to
    /// a SQL client (`sqlcmd -Q TEXT`, `sqlcmd -i FILE`), so the rules that
    /// judge SQL given to any client judge it.
    fn sql_text(&mut self, queries: &[V], files: &[V], label: &str) -> R<()> {
        if queries.is_empty() && files.is_empty() {
            return Ok(());
        }
        let mut w = vec![raw("sqlcmd")];
        for q in queries {
            for v in q.items() {
                w.extend([raw("-Q"), W::Val(v)]);
            }
        }
        for f in files {
            let f = self.path1(f);
            w.extend([raw("-i"), W::Val(f)]);
        }
        self.emit(w, Some(label))
    }

    /// A cmdlet that hands SQL to a database (`Invoke-Sqlcmd`, dbatools'
    /// `Invoke-DbaQuery`, `Invoke-SqliteQuery`, SimplySql's `Invoke-SqlUpdate`,
    /// `Invoke-MySqlQuery`): `Invoke-` and a noun that names SQL or a query.
    /// Its query parameters (`-Query`, `-Sql`, `-CommandText`, given by any
    /// prefix; `Invoke-Sqlcmd`'s first position) are SQL text; its file
    /// parameters (`-InputFile`, `-File`) name SQL read from a file.
    fn sql_cmdlet(&mut self, name: &str, c: &Command) -> R<Option<V>> {
        let lower = name.to_ascii_lowercase();
        let Some(noun) = lower.strip_prefix("invoke-") else {
            return Ok(None);
        };
        if !(noun.contains("sql") || noun.contains("query")) {
            return Ok(None);
        }
        let (mut queries, mut files) = (vec![], vec![]);
        let mut k = 0;
        while let Some(a) = c.args.get(k) {
            k += 1;
            match a {
                Arg::Param { name, value } => {
                    let n = name.to_ascii_lowercase();
                    let (v, next) = match value {
                        Some(e) => (Some(self.expr(e)?), false),
                        None => match c.args.get(k) {
                            Some(Arg::Value(e)) => {
                                k += 1;
                                (Some(self.expr(e)?), true)
                            }
                            _ => (None, false),
                        },
                    };
                    let Some(v) = v else { continue };
                    let is = |full: &str| full.starts_with(n.as_str());
                    if is("inputfile") || n == "file" || n == "i" || n == "path" {
                        files.push(v);
                    } else if is("query")
                        || n == "sql"
                        || n == "q"
                        || is("commandtext")
                        || is("statement")
                        || next
                    {
                        // (a word after a switch this analysis does not
                        // know may be the query, by position: read as one)
                        queries.push(v);
                    }
                }
                Arg::Value(e) => queries.push(self.expr(e)?),
                Arg::Splat(n) => match self.var(n).val {
                    Val::Hash(h) => {
                        for (key, v) in h {
                            if key.starts_with('q') || key == "sql" || key == "commandtext" {
                                queries.push(v);
                            } else if key == "inputfile" || key == "file" {
                                files.push(v);
                            }
                        }
                    }
                    Val::List(l) => queries.extend(l),
                    other => queries.push(V {
                        val: other,
                        from: From::Plain,
                    }),
                },
                Arg::Verbatim(_) | Arg::EndOfParams => {}
            }
        }
        self.sql_text(&queries, &files, name)?;
        Ok(Some(V::unknown("(rows)")))
    }

    fn plain_args(&mut self, args: &[Arg]) -> R<Vec<V>> {
        let mut out = vec![];
        for a in args {
            match a {
                Arg::Value(e) => out.push(self.expr(e)?),
                Arg::Param { name, value } => {
                    out.push(V::text(&format!("-{name}")));
                    if let Some(v) = value {
                        out.push(self.expr(v)?);
                    }
                }
                Arg::Splat(n) => {
                    let v = self.var_read(n)?;
                    match v.val {
                        Val::Hash(h) => {
                            for (k, v) in h {
                                out.push(V::text(&format!("-{k}")));
                                out.push(v);
                            }
                        }
                        Val::List(l) => out.extend(l),
                        _ => out.push(v),
                    }
                }
                Arg::Verbatim(t) => out.extend(self.verbatim(t)),
                Arg::EndOfParams => {}
            }
        }
        Ok(out)
    }

    /// The text after `--%` (the stop-parsing token): handed to the program
    /// as written but for `%NAME%`, which PowerShell expands (about_Parsing,
    /// "The stop-parsing token"); the program splits it into words as
    /// Windows' C runtime does (`git --% reset --hard` is `git reset --hard`).
    fn verbatim(&mut self, t: &str) -> Vec<V> {
        super::cmd::split_command_line(t)
            .iter()
            .map(|w| V::one(self.percent_vars(w)))
            .collect()
    }

    /// A word with `%NAME%` environment variables expanded: Windows' folders
    /// by name, a variable the script set, anything else unknown.
    fn percent_vars(&self, w: &str) -> Value {
        let mut out = Value::text("");
        let mut rest = w;
        while let Some(a) = rest.find('%') {
            let after = &rest[a + 1..];
            let Some(b) = after.find('%') else { break };
            let name = &after[..b];
            let plain = !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '(' | ')'));
            if !plain {
                out = out.concat(&Value::text(&rest[..=a]));
                rest = after;
                continue;
            }
            out = out.concat(&Value::text(&rest[..a]));
            let var = match paths::env_var(name) {
                Some(s) => Value::one(s),
                None => match self.vars.get(&format!("env:{}", name.to_ascii_lowercase())) {
                    Some(v) => v.scalar(),
                    // PowerShell leaves it for the program (cmd expands it itself).
                    None => Value::text(&format!("%{name}%")),
                },
            };
            out = out.concat(&var);
            rest = &after[b + 1..];
        }
        out.concat(&Value::text(rest))
    }

    /// The arguments of a function call no parameter name takes, in order:
    /// values, a splatted array's items, an unknown splat.
    fn positional_args(&mut self, args: &[Arg]) -> R<Vec<V>> {
        let mut out = vec![];
        let mut k = 0;
        while let Some(a) = args.get(k) {
            match a {
                Arg::Param { value: None, .. }
                    if matches!(args.get(k + 1), Some(Arg::Value(_))) =>
                {
                    k += 1;
                }
                Arg::Value(e) => out.push(self.expr(e)?),
                Arg::Splat(n) => match self.var(n).val {
                    Val::Hash(_) => {}
                    Val::List(l) => out.extend(l),
                    other => out.push(V {
                        val: other,
                        from: From::Plain,
                    }),
                },
                _ => {}
            }
            k += 1;
        }
        Ok(out)
    }

    fn named_args(&mut self, args: &[Arg]) -> R<Vec<(String, V)>> {
        let mut out = vec![];
        let mut k = 0;
        while let Some(a) = args.get(k) {
            // A splatted hashtable: its keys are parameter names.
            if let Arg::Splat(n) = a {
                if let Val::Hash(h) = self.var(n).val {
                    out.extend(h);
                }
            }
            if let Arg::Param { name, value } = a {
                let v = match value {
                    Some(v) => self.expr(v)?,
                    None => match args.get(k + 1) {
                        Some(Arg::Value(e)) => {
                            k += 1;
                            self.expr(e)?
                        }
                        _ => V::text("True"),
                    },
                };
                out.push((name.clone(), v));
            }
            k += 1;
        }
        Ok(out)
    }

    /// Bind a cmdlet's arguments the way PowerShell does.
    fn bind(&mut self, cmdlet: &Cmdlet, args: &[Arg]) -> R<Bound> {
        let mut b = Bound::default();
        let mut positional: Vec<V> = vec![];
        let mut end = false;
        let mut k = 0;
        while let Some(a) = args.get(k) {
            k += 1;
            match a {
                Arg::Param { name, value } if !end => {
                    let cands = cmdlets::bind(cmdlet.params, name);
                    if cands.is_empty() {
                        // No such parameter: PowerShell refuses the command.
                        b.unknown.push(name.clone());
                        continue;
                    }
                    let v = match value {
                        Some(v) => Some(self.expr(v)?),
                        None => None,
                    };
                    let all_switch = cands.iter().all(|p| p.kind == Kind::Switch);
                    let all_value = cands.iter().all(|p| p.kind != Kind::Switch);
                    let v = match v {
                        Some(v) => v,
                        None if all_switch || !all_value => V::text("True"),
                        None => match args.get(k) {
                            Some(Arg::Value(e)) => {
                                k += 1;
                                self.expr(e)?
                            }
                            Some(Arg::Splat(n)) => {
                                k += 1;
                                self.var(n)
                            }
                            _ => V::text(""),
                        },
                    };
                    for p in cands {
                        if p.kind == Kind::Switch || all_value {
                            b.named.push((p, v.clone()));
                        }
                    }
                }
                Arg::Param { name, value } => {
                    positional.push(V::text(&format!("-{name}")));
                    if let Some(v) = value {
                        positional.push(self.expr(v)?);
                    }
                }
                Arg::Value(e) => positional.push(self.expr(e)?),
                Arg::Splat(n) => match self.var(n).val {
                    Val::Hash(h) => {
                        for (key, v) in h {
                            for p in cmdlets::bind(cmdlet.params, &key) {
                                b.named.push((p, v.clone()));
                            }
                        }
                    }
                    Val::List(l) => {
                        // `@args` relays the caller's `-Name value` as
                        // parameters: an item spelled `-Name` that names one
                        // of the cmdlet's is taken as it (`-WhatIf` never: a
                        // text it may only be).
                        let mut items = l.into_iter().peekable();
                        while let Some(it) = items.next() {
                            let cands = it
                                .literal()
                                .and_then(|t| t.strip_prefix('-').map(str::to_string))
                                .filter(|n| {
                                    !n.is_empty() && !"whatif".starts_with(&n.to_ascii_lowercase())
                                })
                                .map(|n| cmdlets::bind(cmdlet.params, &n))
                                .unwrap_or_default();
                            if cands.is_empty() {
                                positional.push(it);
                                continue;
                            }
                            let v = if cands.iter().all(|p| p.kind == Kind::Switch) {
                                V::text("True")
                            } else {
                                items.next().unwrap_or_else(|| V::text(""))
                            };
                            for p in cands {
                                b.named.push((p, v.clone()));
                            }
                        }
                    }
                    other => {
                        let v = V {
                            val: other,
                            from: From::Plain,
                        };
                        if v.literal().is_none() {
                            // A table or array nobody can read: any parameter
                            // may be in it, the ones that reach furthest too.
                            for p in cmdlet
                                .params
                                .iter()
                                .filter(|p| matches!(p.name, "Recurse" | "Force"))
                            {
                                b.named.push((p, V::text("True")));
                            }
                        }
                        positional.push(v);
                    }
                },
                Arg::Verbatim(t) => positional.push(V::text(t)),
                Arg::EndOfParams => end = true,
            }
        }
        // Positional arguments fill the parameters with positions, in order,
        // that were not named.
        let mut slots: Vec<&'static Param> = cmdlet
            .params
            .iter()
            .filter(|p| p.position.is_some())
            .filter(|p| !b.named.iter().any(|(n, _)| n.name == p.name))
            .collect();
        slots.sort_by_key(|p| p.position);
        let mut slots = slots.into_iter();
        for v in positional {
            match slots.next() {
                Some(p) => b.named.push((p, v)),
                None => b.extra.push(v),
            }
        }
        Ok(b)
    }

    fn cmdlet(&mut self, cmdlet: &'static Cmdlet, c: &Command, input: Option<&V>) -> R<V> {
        let b = self.bind(cmdlet, &c.args)?;
        let label = Some(cmdlet.name);
        if b.switch("WhatIf") {
            return Ok(V::text(""));
        }
        if matches!(
            cmdlet.action,
            Action::Read | Action::Item | Action::List | Action::Hex
        ) {
            let p = b.get("Path").or_else(|| b.get("LiteralPath")).cloned();
            if let Some(v) = p.and_then(|p| self.env_drive(&p, cmdlet.name).transpose()) {
                let v = v?;
                // `dir env: > e.txt`: the file holds the environment.
                let mut words = vec![];
                self.redirects_of(&c.redirects, &mut words, Some(&v))?;
                if !words.is_empty() {
                    self.emit(words, label)?;
                }
                return Ok(v);
            }
        }
        // Script blocks handed to a parameter run (delay-bind blocks:
        // `Rename-Item -NewName { … }`).
        for (_, v) in &b.named {
            if let Val::Block(bl) = &v.val {
                if !matches!(cmdlet.action, Action::InvokeCommand | Action::PerItem) {
                    let bl = bl.clone();
                    self.block(
                        &bl,
                        &format!("{} {{}}", cmdlet.name),
                        input.cloned(),
                        vec![],
                        true,
                    )?;
                }
            }
        }
        let mut words: Vec<W> = vec![];
        let out = match cmdlet.action {
            Action::Delete => {
                let (paths, emptied) = self.item_path_args(&b);
                let recurse = b.switch("Recurse");
                let force = b.switch("Force");
                let filter = b.get("Filter").or_else(|| b.get("Include")).map(V::scalar);
                let mut flags = vec![];
                if recurse {
                    flags.push(raw("-r"));
                }
                if force {
                    flags.push(raw("-f"));
                }
                if paths.is_empty() {
                    self.path_input(input, "rm", flags.clone(), filter.clone(), &mut words);
                } else if let Some(f) = filter.clone() {
                    // `Remove-Item P -Include *.log -Recurse`: what matches, below P.
                    words.push(raw("find"));
                    words.extend(paths.into_iter().map(W::Val));
                    if !recurse {
                        words.extend([raw("-maxdepth"), raw("1")]);
                    }
                    words.extend([raw("-name"), W::Val(f), raw("-exec"), raw("rm")]);
                    words.extend(flags.iter().cloned());
                    words.extend([raw("{}"), raw("+")]);
                } else {
                    words.push(raw("rm"));
                    words.extend(flags.iter().cloned());
                    words.push(raw("--"));
                    words.extend(paths.into_iter().map(W::Val));
                }
                // `DIR/*` also takes DIR's dot names: what is left of DIR's
                // entries, each removed (see `item_path_args`); with a filter,
                // only the entries it names (`Remove-Item * -Include *.tmp`).
                for dir in emptied {
                    let only = filter.clone().map(|f| (f, recurse));
                    self.emptied(dir, &[raw("rm")], &flags, only, label)?;
                }
                V::text("")
            }
            Action::Copy | Action::Move => {
                let prog = if cmdlet.action == Action::Copy {
                    "cp"
                } else {
                    "mv"
                };
                let srcs;
                let dst = b.get("Destination").map(|v| self.path1(v));
                if cmdlet.action == Action::Copy {
                    srcs = whole_content(self.path_args(&b));
                } else {
                    // A move takes the items, not their text: `DIR/*`'s dot
                    // names are DIR's other entries moved (see `item_path_args`).
                    let emptied;
                    (srcs, emptied) = self.item_path_args(&b);
                    let to = dst.clone().unwrap_or_else(|| Value::text("."));
                    for dir in emptied {
                        self.emptied(
                            dir,
                            &[raw("mv"), raw("-t"), W::Val(to.clone())],
                            &[],
                            None,
                            label,
                        )?;
                    }
                }
                words.push(raw(prog));
                if cmdlet.action == Action::Copy && b.switch("Recurse") {
                    words.push(raw("-r"));
                }
                if b.switch("Force") {
                    words.push(raw("-f"));
                }
                words.push(raw("--"));
                if srcs.is_empty() {
                    words.insert(0, raw("xargs"));
                    if let Some(i) = input {
                        if let Some(dir) = items_dir(i) {
                            words = vec![
                                raw("find"),
                                W::Val(dir),
                                raw("-exec"),
                                raw(prog),
                                raw("-r"),
                                raw("{}"),
                            ];
                        }
                    }
                } else {
                    words.extend(srcs.into_iter().map(W::Val));
                }
                // Without a destination, the current folder.
                words.push(W::Val(dst.unwrap_or_else(|| Value::text("."))));
                if words.iter().any(|w| matches!(w, W::Raw(r) if r == "{}")) {
                    words.push(raw("+"));
                }
                V::text("")
            }
            Action::Rename => {
                let srcs = self.path_args(&b);
                if let (Some(src), Some(new)) = (srcs.first(), b.get("NewName")) {
                    let to = parent(src).concat(&new.scalar());
                    words.extend([raw("mv"), raw("--"), W::Val(src.clone()), W::Val(to)]);
                }
                V::text("")
            }
            Action::Read | Action::Hex => {
                let prog = if cmdlet.action == Action::Hex {
                    "xxd"
                } else {
                    "cat"
                };
                let paths = self.path_args(&b);
                if paths.is_empty() {
                    if cmdlet.action == Action::Hex && b.get("InputObject").is_some() {
                        return Ok(V::unknown("(hex)"));
                    }
                    self.path_input(input, prog, vec![], None, &mut words);
                    V::unknown("(file text)")
                } else {
                    words.extend([raw(prog), raw("--")]);
                    words.extend(paths.iter().cloned().map(W::Val));
                    V::unknown("(file text)").with(From::File(paths[0].clone()))
                }
            }
            Action::Search if input.is_some_and(|i| i.from == From::Environment) => {
                // Searching the environment (`gci env: | Select-String TOKEN`).
                let pattern = b.get("Pattern").map_or_else(|| Value::text(""), V::scalar);
                words.extend([
                    raw("env"),
                    raw("|"),
                    raw("grep"),
                    raw("-e"),
                    W::Val(pattern),
                ]);
                V::unknown("(lines)")
            }
            Action::Search => {
                let pattern = b
                    .get("Pattern")
                    .map(V::scalar)
                    .unwrap_or_else(|| Value::text(""));
                let paths = self.path_args(&b);
                words.extend([raw("grep"), raw("-e"), W::Val(pattern), raw("--")]);
                if paths.is_empty() {
                    if let Some(dir) = input.and_then(items_dir) {
                        words = vec![
                            raw("find"),
                            W::Val(dir),
                            raw("-type"),
                            raw("f"),
                            raw("-exec"),
                            raw("grep"),
                            raw("-e"),
                            W::Val(
                                b.get("Pattern")
                                    .map(V::scalar)
                                    .unwrap_or_else(|| Value::text("")),
                            ),
                            raw("{}"),
                            raw("+"),
                        ];
                    }
                } else {
                    words.extend(paths.into_iter().map(W::Val));
                }
                V::unknown("(matches)")
            }
            Action::Write { append } => {
                let append = append || b.switch("Append");
                // A secret written to a file is printed there.
                for v in [b.get("Value"), b.get("InputObject"), input]
                    .into_iter()
                    .flatten()
                {
                    let v = v.clone();
                    self.reveal(&v, cmdlet.name)?;
                }
                let mut paths = self.path_args(&b);
                if paths.is_empty() && matches!(cmdlet.name, "Set-Content" | "Add-Content") {
                    paths = piped_items(input);
                }
                let op = if append { ">>" } else { ">" };
                // Text only known when it runs, written to a file: running the
                // file later in the line runs code nobody has read (as bash's
                // `echo "$X" > x.sh; sh x.sh`).
                let unknown = [b.get("Value"), b.get("InputObject"), input]
                    .into_iter()
                    .flatten()
                    .any(|v| v.literal().is_none());
                let text = [b.get("Value"), b.get("InputObject"), input]
                    .into_iter()
                    .flatten()
                    .next()
                    .cloned();
                for p in paths {
                    if unknown {
                        self.note_download(&p);
                    }
                    self.wrote(&p, text.as_ref(), append);
                    words.extend([raw(op), W::Val(p)]);
                }
                match (b.get("Value"), input) {
                    (Some(v), _) => v.clone(),
                    (None, Some(i)) => i.clone(),
                    _ => V::text(""),
                }
            }
            Action::Clear => {
                let mut paths = self.path_args(&b);
                if paths.is_empty() {
                    paths = piped_items(input);
                }
                words.extend([raw("truncate"), raw("-s"), raw("0"), raw("--")]);
                words.extend(paths.into_iter().map(W::Val));
                V::text("")
            }
            Action::NewItem => {
                let mut paths = self.path_args(&b);
                if let Some(n) = b.get("Name") {
                    let n = n.scalar();
                    paths = if paths.is_empty() {
                        vec![n]
                    } else {
                        paths
                            .iter()
                            .map(|p| p.concat(&Value::text("/")).concat(&n))
                            .collect()
                    };
                }
                let ty = b
                    .get("ItemType")
                    .and_then(V::literal)
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                if ty.starts_with("dir") {
                    words.extend([raw("mkdir"), raw("-p"), raw("--")]);
                    words.extend(paths.into_iter().map(W::Val));
                } else if ty.contains("link") || ty.starts_with("junction") {
                    let target = b
                        .get("Value")
                        .map(|v| self.path1(v))
                        .unwrap_or_else(|| Value::unknown("(target)"));
                    // A hard link names the target from the working folder
                    // (`ln`); a junction stores it resolved from there
                    // (`ln -s -r`); a symbolic link as written (`ln -s`).
                    words.push(raw("ln"));
                    if ty.starts_with("junction") {
                        words.extend([raw("-s"), raw("-r")]);
                    } else if !ty.starts_with("hard") {
                        words.push(raw("-s"));
                    }
                    if b.switch("Force") {
                        words.push(raw("-f"));
                    }
                    words.extend([raw("--"), W::Val(target)]);
                    words.extend(paths.into_iter().map(W::Val));
                } else if b.switch("Force") || b.get("Value").is_some() {
                    for p in paths {
                        words.extend([raw(">"), W::Val(p)]);
                    }
                } else {
                    words.extend([raw("touch"), raw("--")]);
                    words.extend(paths.into_iter().map(W::Val));
                }
                V::unknown("(item)")
            }
            Action::Echo => {
                let mut vals: Vec<V> = b
                    .named
                    .iter()
                    .filter(|(p, _)| p.position == Some(0))
                    .map(|(_, v)| v.clone())
                    .collect();
                vals.extend(b.extra.iter().cloned());
                if cmdlet.name != "Write-Output" {
                    // Write-Host and the other streams print what they are given.
                    for v in &vals {
                        self.reveal(v, cmdlet.name)?;
                    }
                }
                words.push(raw("echo"));
                for v in &vals {
                    words.extend(v.items().into_iter().map(W::Val));
                }
                match vals.as_slice() {
                    [one] => one.clone(),
                    _ => V {
                        val: Val::List(vals),
                        from: From::Plain,
                    },
                }
            }
            Action::List => {
                let paths = self.path_args(&b);
                let dir = paths.first().cloned().unwrap_or_else(|| self.cwd.clone());
                words.extend([raw("ls"), raw("--")]);
                words.extend(paths.into_iter().map(W::Val));
                V::unknown("(items)").with(From::Items {
                    dir,
                    recurse: b.switch("Recurse"),
                    filter: b.get("Filter").or_else(|| b.get("Include")).map(V::scalar),
                })
            }
            Action::Item | Action::Test | Action::Resolve => {
                let paths = self.path_args(&b);
                let prog = match cmdlet.action {
                    Action::Test => "test",
                    Action::Resolve => "realpath",
                    _ => "stat",
                };
                if cmdlet.action == Action::Test {
                    words.extend([raw(prog), raw("-e")]);
                } else {
                    words.extend([raw(prog), raw("--")]);
                }
                words.extend(paths.iter().cloned().map(W::Val));
                match (cmdlet.action, paths.first()) {
                    (Action::Test, _) => V::unknown("(True or False)"),
                    (Action::Item, Some(p)) => V::one(p.clone()).with(From::Item),
                    (_, Some(p)) => V::one(p.clone()),
                    _ => V::unknown("(item)"),
                }
            }
            Action::Join => {
                let mut out = b
                    .get("Path")
                    .map(|v| self.path1(v))
                    .unwrap_or_else(|| self.cwd.clone());
                for key in ["ChildPath", "AdditionalChildPath"] {
                    if let Some(v) = b.get(key) {
                        for it in v.items() {
                            out = out
                                .concat(&Value::text("/"))
                                .concat(&path_value(&it, false));
                        }
                    }
                }
                for v in &b.extra {
                    out = out
                        .concat(&Value::text("/"))
                        .concat(&path_value(&v.scalar(), false));
                }
                V::one(out)
            }
            Action::Split => {
                let p = self
                    .path_args(&b)
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| Value::unknown("(path)"));
                if b.switch("Leaf") || b.switch("LeafBase") || b.switch("Extension") {
                    V::unknown("(name)")
                } else {
                    V::one(parent_dir(&p))
                }
            }
            Action::Location => V::one(self.cwd.clone()),
            Action::SetLocation => {
                let target = self.path_args(&b).into_iter().next();
                if let Some(t) = target {
                    let new = resolve(&self.cwd, &t);
                    if cmdlet.name == "Push-Location" {
                        self.stack.push(self.cwd.clone());
                    }
                    // A folder that is not there is an error that does not
                    // stop the script: later commands may run where it was.
                    self.cwd = new.clone().union(&self.cwd);
                    self.moved = Some(new);
                } else {
                    self.cwd = self.cwd.clone().union(&Value::one(Sym::piece(Piece::Home)));
                }
                V::text("")
            }
            Action::PopLocation => {
                self.cwd = self
                    .stack
                    .pop()
                    .unwrap_or_else(|| Value::unknown("(popd)"))
                    .union(&self.cwd);
                V::text("")
            }
            Action::Download => {
                // A secret in the address or the body is sent off the machine
                // (an `Authorization` header is how a token is used).
                for k in ["Uri", "Body", "Source"] {
                    if let Some(v) = b.get(k).cloned() {
                        self.reveal(&v, cmdlet.name)?;
                    }
                }
                // The whole environment as the body (`-Body (gci env: | Out-String)`): sent.
                if b.get("Body").is_some_and(|v| v.from == From::Environment) {
                    let url = b
                        .get("Uri")
                        .map_or_else(|| Value::unknown("(url)"), V::scalar);
                    self.uploads_env(url, cmdlet.name)?;
                }
                if let Some(i) = input {
                    self.reveal(i, cmdlet.name)?;
                    if i.from == From::Environment {
                        let url = b
                            .get("Uri")
                            .map_or_else(|| Value::unknown("(url)"), V::scalar);
                        self.uploads_env(url, cmdlet.name)?;
                    }
                }
                let url = b
                    .get("Uri")
                    .or_else(|| b.get("Source"))
                    .map(V::scalar)
                    .unwrap_or_else(|| Value::unknown("(url)"));
                words.extend([raw("curl"), raw("-fsSL")]);
                if let Some(f) = b.get("OutFile").or_else(|| b.get("Destination")) {
                    let f = self.path1(f);
                    self.note_download(&f);
                    words.extend([raw("-o"), W::Val(f)]);
                }
                if let Some(f) = b.get("InFile") {
                    let f = self.path1(f);
                    words.extend([raw("-T"), W::Val(f)]);
                }
                // `-Form @{ f = Get-Item P }`: a FileInfo in a form is the file
                // uploaded (about Invoke-WebRequest -Form), as `curl -F f=@P`.
                if let Some(Val::Hash(h)) = b.get("Form").map(|v| &v.val) {
                    for (k, v) in h {
                        for it in v.items() {
                            if v.from == From::Item {
                                let part = Value::text(&format!("{k}=@")).concat(&it);
                                words.extend([raw("-F"), W::Val(part)]);
                            }
                        }
                    }
                }
                words.push(W::Val(url.clone()));
                V::unknown("(download)").with(From::Download(url))
            }
            Action::Eval => {
                if let Some(text) = self.eval_source(c) {
                    self.runner("eval", Code::Inline, "Invoke-Expression")?;
                    self.nested(&text, "Invoke-Expression")?;
                } else {
                    let code = b
                        .get("Command")
                        .cloned()
                        .or_else(|| input.cloned())
                        .unwrap_or_else(|| V::text(""));
                    self.eval_code(&code, "Invoke-Expression")?;
                }
                V::unknown("(output)")
            }
            Action::InvokeCommand => {
                let args = b
                    .get("ArgumentList")
                    .map(|v| match &v.val {
                        Val::List(l) => l.clone(),
                        _ => vec![v.clone()],
                    })
                    .unwrap_or_default();
                if let Some(sb) = b.get("ScriptBlock") {
                    match &sb.val {
                        Val::Block(bl) => {
                            let bl = bl.clone();
                            self.block(&bl, "Invoke-Command", input.cloned(), args, true)?;
                        }
                        _ => self.eval_code(sb, "Invoke-Command")?,
                    }
                }
                if b.get("FilePath").is_some() {
                    self.runner("pwsh", Code::File, "Invoke-Command -FilePath")?;
                }
                V::unknown("(output)")
            }
            Action::StartProcess => {
                let name = b
                    .get("FilePath")
                    .cloned()
                    .unwrap_or_else(|| V::unknown("(program)"));
                let args = b
                    .get("ArgumentList")
                    .map(split_arguments)
                    .unwrap_or_default();
                if b.get("Wait").is_none() {
                    self.started_without_waiting(cmdlet.name);
                }
                self.start(&name, args)?;
                V::unknown("(process)")
            }
            Action::PerItem => {
                let item = input.cloned();
                if matches!(cmdlet.name, "Start-Job" | "Start-ThreadJob") {
                    self.started_without_waiting(cmdlet.name);
                }
                if cmdlet.name == "Where-Object"
                    && input.is_some_and(|i| i.from == From::Environment)
                {
                    // `gci env: | Where-Object Name -like '*KEY*'`: a search of
                    // the environment by what the filter names.
                    let mut w = vec![raw("env"), raw("|"), raw("grep")];
                    for v in b.named.iter().map(|(_, v)| v).chain(b.extra.iter()) {
                        if let Some(t) = v.literal() {
                            w.extend([raw("-e"), W::Val(Value::text(&t))]);
                        }
                    }
                    self.emit(w, Some(cmdlet.name))?;
                }
                let mut blocks = vec![];
                for (_, v) in &b.named {
                    if let Val::Block(bl) = &v.val {
                        blocks.push(bl.clone());
                    }
                }
                for v in &b.extra {
                    if let Val::Block(bl) = &v.val {
                        blocks.push(bl.clone());
                    }
                }
                for bl in blocks {
                    self.block(&bl, cmdlet.name, item.clone(), vec![], true)?;
                }
                for (p, v) in &b.named {
                    if (p.name.ends_with("Script") || p.name == "ScriptBlock")
                        && matches!(v.from, From::DynamicCode | From::Download(_))
                    {
                        let v = v.clone();
                        self.eval_code(&v, cmdlet.name)?;
                    }
                }
                if let Some(fp) = b.get("FilePath") {
                    let _ = fp;
                    self.runner("pwsh", Code::File, cmdlet.name)?;
                }
                // `Get-Service Win* | % Stop`: each item's method, by name
                // (about_ForEach-Object, -MemberName).
                if let (Some(i), "ForEach-Object") = (input, cmdlet.name) {
                    let member = b
                        .get("MemberName")
                        .or_else(|| b.get("Process").filter(|v| !matches!(v.val, Val::Block(_))));
                    if let Some(m) = member.and_then(V::literal) {
                        let from = i.from.clone();
                        self.object_method(&from, &m.to_ascii_lowercase(), &[])?;
                    }
                }
                match (cmdlet.name, input) {
                    ("Where-Object", Some(i)) => filtered(&b, i),
                    ("ForEach-Object", Some(i))
                        if b.get("MemberName").is_some()
                            || b.named.iter().any(|(p, v)| {
                                p.name == "Process" && !matches!(v.val, Val::Block(_))
                            }) =>
                    {
                        i.clone()
                    }
                    _ => V::unknown("(output)"),
                }
            }
            Action::PowerOff => {
                words.extend([raw("shutdown"), raw("-h"), raw("now")]);
                V::text("")
            }
            Action::Reboot => {
                words.push(raw("reboot"));
                V::text("")
            }
            Action::Kill => {
                let by_id = b.get("Id").map(|id| (id.from.clone(), id.items()));
                if let Some((From::ProcessId(n), _)) = &by_id {
                    // `-Id (Get-Process lsass).Id`: the processes of that name.
                    words.extend([raw("pkill"), raw("-x")]);
                    words.extend(process_names(n).into_iter().map(W::Val));
                } else if let Some((_, ids)) = by_id {
                    words.extend([raw("kill"), raw("-9")]);
                    words.extend(ids.iter().map(|p| W::Val(windows_pid(p))));
                } else if b.get("Name").is_some_and(|n| n.from == From::Processes) {
                    // `Get-Process | % { Stop-Process -Name $_.Name }`: every process.
                    words.extend([raw("kill"), raw("-9"), raw("-1")]);
                } else if let Some(n) = b.get("Name") {
                    words.extend([raw("pkill"), raw("-x")]);
                    for it in n.items() {
                        words.extend(process_names(&it).into_iter().map(W::Val));
                    }
                } else if let Some(i) = b.get("InputObject").or(input) {
                    if let From::Process(n) = &i.from {
                        words.extend([raw("pkill"), raw("-x")]);
                        words.extend(process_names(n).into_iter().map(W::Val));
                    } else if let From::Pid(p) = &i.from {
                        words.extend([raw("kill"), raw("-9"), W::Val(windows_pid(p))]);
                    } else if i.from == From::Processes {
                        words.extend([raw("kill"), raw("-9"), raw("-1")]);
                    } else {
                        words.extend([raw("xargs"), raw("kill"), raw("-9")]);
                    }
                }
                V::text("")
            }
            // A task's new trigger or settings (`Set-ScheduledTask -TaskName
            // X -Trigger …`) run the code it already had, later or sooner: no new
            // code is scheduled. A new action, user or task object is.
            Action::Schedule
                if cmdlet.name == "Set-ScheduledTask"
                    && !["Action", "User", "Password", "Principal", "InputObject"]
                        .iter()
                        .any(|p| b.get(p).is_some()) =>
            {
                V::text("")
            }
            Action::Schedule => {
                words.extend([raw("crontab"), raw("-")]);
                V::text("")
            }
            Action::Service | Action::StopService => {
                let name = b
                    .get("Name")
                    .map(V::any_item)
                    // the services piped in or given as objects (`-InputObject $svc`)
                    .or_else(|| match b.get("InputObject").or(input).map(|i| &i.from) {
                        Some(From::Service(n)) => Some(n.clone()),
                        _ => None,
                    })
                    .unwrap_or_else(|| Value::unknown("(service)"));
                let start = b
                    .get("StartupType")
                    .and_then(V::literal)
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                let status = b
                    .get("Status")
                    .and_then(V::literal)
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                let verb = if cmdlet.action == Action::StopService || status == "stopped" {
                    Some("stop")
                } else if start == "disabled" {
                    Some("disable")
                } else if cmdlet.name == "New-Service" {
                    // registers a new service, with a program the caller
                    // names: a unit file registered (`systemctl link`)
                    Some("link")
                } else if start.starts_with("automatic") {
                    Some("enable")
                } else {
                    None
                };
                if let Some(verb) = verb {
                    words.extend([raw("systemctl"), raw(verb)]);
                    words.extend(filter::service_names(&name).into_iter().map(W::Val));
                }
                V::text("")
            }
            Action::RegistryWrite => {
                let mut paths = self.path_args(&b);
                // The key piped in (`Get-Item HKLM:\Software\X | Remove-ItemProperty
                // -Name N`) binds to the path by its PSPath.
                if paths.is_empty() {
                    paths = piped_items(input);
                }
                // Copy-/Move-ItemProperty write the destination's values too.
                if let Some(d) = b.get("Destination").cloned() {
                    paths.push(self.path1(&d));
                }
                let name = b
                    .get("Name")
                    .and_then(V::literal)
                    .unwrap_or_else(|| "(value)".into())
                    .to_ascii_lowercase();
                for p in paths {
                    words.extend([
                        raw(">"),
                        W::Val(p.concat(&Value::text(&format!("/{name}")))),
                    ]);
                }
                V::text("")
            }
            Action::Format => {
                let dev = match b.get("DriveLetter").and_then(V::literal) {
                    Some(l) => Value::text(&format!(
                        "/dev/{}:",
                        l.trim_end_matches(':').to_ascii_uppercase()
                    )),
                    None => b
                        .get("Path")
                        .map(|v| self.path1(v))
                        .unwrap_or_else(|| Value::text("/dev/Volume")),
                };
                words.extend([raw("mkfs"), raw("--"), W::Val(dev)]);
                V::text("")
            }
            Action::Wipe | Action::Partition => {
                let dev = match b
                    .get("Number")
                    .or_else(|| b.get("DiskNumber"))
                    .and_then(V::literal)
                {
                    Some(n) => Value::text(&format!("/dev/PhysicalDrive{n}")),
                    None => Value::text("/dev/PhysicalDrive"),
                };
                if cmdlet.action == Action::Wipe {
                    words.extend([raw("wipefs"), raw("-a"), W::Val(dev)]);
                } else {
                    words.extend([raw("sfdisk"), W::Val(dev)]);
                }
                V::text("")
            }
            Action::SetVariable => {
                if let (Some(n), Some(v)) = (b.get("Name").and_then(V::literal), b.get("Value")) {
                    let v = v.clone();
                    self.set_var(&n.to_ascii_lowercase(), v);
                }
                V::text("")
            }
        };
        self.redirects_of(&c.redirects, &mut words, Some(&out))?;
        if !words.is_empty() {
            self.emit(words, label)?;
        }
        Ok(out)
    }

    /// A path cmdlet given its paths on the pipeline (`… | Remove-Item`).
    fn path_input(
        &mut self,
        input: Option<&V>,
        prog: &str,
        flags: Vec<W>,
        filter: Option<Value>,
        words: &mut Vec<W>,
    ) {
        let Some(i) = input else { return };
        {
            match &i.from {
                From::Items {
                    dir,
                    recurse,
                    filter: f,
                } => {
                    // Get-ChildItem lists what is in the folder, never the folder itself.
                    words.extend([raw("find"), W::Val(dir.clone()), raw("-mindepth"), raw("1")]);
                    if !recurse {
                        words.extend([raw("-maxdepth"), raw("1")]);
                    }
                    if let Some(f) = f.clone().or(filter) {
                        // Several names: `\( -name a -o -name b \)`.
                        let names: Vec<Value> = f.0.iter().map(|s| Value::one(s.clone())).collect();
                        if names.len() > 1 {
                            words.push(raw("\\("));
                            for (k, n) in names.into_iter().enumerate() {
                                if k > 0 {
                                    words.push(raw("-o"));
                                }
                                words.extend([raw("-name"), W::Val(n)]);
                            }
                            words.push(raw("\\)"));
                        } else {
                            words.extend([raw("-name"), W::Val(f)]);
                        }
                    }
                    words.extend([raw("-exec"), raw(prog)]);
                    words.extend(flags);
                    words.extend([raw("{}"), raw("+")]);
                }
                _ => match (&i.val, i.literal()) {
                    (Val::One(v), _) if !v.has_unknown() => {
                        words.push(raw(prog));
                        words.extend(flags);
                        words.push(raw("--"));
                        words.push(W::Val(path_value(v, true)));
                    }
                    (Val::List(_), _) if !i.scalar().has_unknown() => {
                        words.push(raw(prog));
                        words.extend(flags);
                        words.push(raw("--"));
                        words.extend(i.items().iter().map(|v| W::Val(path_value(v, true))));
                    }
                    _ => {
                        words.extend([raw("xargs"), raw(prog)]);
                        words.extend(flags);
                    }
                },
            }
        }
    }

    fn data_cmdlet(&mut self, full: &str, c: &Command, input: Option<&V>) -> R<V> {
        let args = self.plain_args(&c.args)?;
        // Quoted: an alias may be a bash keyword (`select`), which the
        // canonical line must not start.
        let mut words = vec![W::Raw(format!("'{full}'"))];
        for a in &args {
            match &a.val {
                Val::Block(b) => {
                    let b = b.clone();
                    self.block(&b, &format!("{full} {{}}"), input.cloned(), vec![], true)?;
                }
                Val::Hash(h) => {
                    // Calculated properties: `@{ n = 'x'; e = { … } }`.
                    for (_, v) in h.clone() {
                        if let Val::Block(b) = v.val {
                            self.block(&b, &format!("{full} {{}}"), input.cloned(), vec![], true)?;
                        }
                    }
                }
                _ => {
                    if let Some(t) = a.literal().filter(|t| t.starts_with('-') && t.len() > 1) {
                        words.push(W::Raw(crate::shell::quote(&t)));
                    }
                }
            }
        }
        self.redirects(&c.redirects, &mut words)?;
        self.emit(words, Some(full))?;
        let lower = full.to_ascii_lowercase();
        Ok(match (lower.as_str(), input) {
            ("get-process" | "gps" | "ps", _) if args.is_empty() => {
                V::unknown("(processes)").with(From::Processes)
            }
            // Formatting, sorting, converting a secret or the environment
            // prints it still; counting it, filtering it (some variables:
            // `Where-Object Name -like 'NODE*'`) or dropping it does not.
            // The variables' names only (`Select-Object Name`): no value shown.
            ("select-object" | "select", Some(i))
                if i.from == From::Environment && names_only(&args) =>
            {
                V::unknown("(names)")
            }
            (l, Some(i))
                if matches!(i.from, From::Secret(_) | From::Environment)
                    && !matches!(
                        l,
                        "measure-object"
                            | "measure"
                            | "where-object"
                            | "where"
                            | "?"
                            | "out-null"
                            | "get-member"
                            | "gm"
                            | "convertto-securestring"
                    ) =>
            {
                V::unknown("(output)").with(i.from.clone())
            }
            ("select-object" | "select", Some(i))
                if args.iter().any(|a| {
                    a.literal().is_some_and(|t| {
                        let t = t.to_ascii_lowercase();
                        ["-first", "-last", "-index", "-skip"]
                            .iter()
                            .any(|p| t.len() > 2 && p.starts_with(&t))
                    })
                }) =>
            {
                narrowed(i)
            }
            (
                "select-object" | "sort-object" | "out-string" | "tee-object" | "get-unique"
                | "format-list" | "format-table",
                Some(i),
            ) => i.clone(),
            _ => selection(full, &args).unwrap_or_else(|| V::unknown("(output)")),
        })
    }

    /// A `Verb-Noun` the analysis does not know: reported under its name, its
    /// arguments as operands (as an unknown program's are).
    fn data_cmdlet_unknown(&mut self, name: &str, c: &Command, input: Option<&V>) -> R<V> {
        let args = self.plain_args(&c.args)?;
        let mut words = vec![W::Raw(crate::shell::quote(name))];
        // The objects it acts on, piped in or given (`-InputObject $t`), as the
        // words that chose them.
        let noun = noun_of(name);
        for v in input.into_iter().chain(&args) {
            if let From::Selection { noun: n, words: w } = &v.from {
                if Some(n.as_str()) == noun.as_deref() {
                    words.extend(w.iter().cloned().map(W::Val));
                }
            }
        }
        for a in &args {
            match &a.val {
                Val::Block(b) => {
                    let b = b.clone();
                    self.block(&b, &format!("{name} {{}}"), input.cloned(), vec![], true)?;
                }
                // A wildcard with no dot and no separator (`Get-Printer *`,
                // `Get-VM web*`) is a name pattern the cmdlet matches itself:
                // PowerShell hands cmdlets their words unexpanded, and a
                // file the pattern could name in the folder is not read.
                _ if a.literal().is_some_and(|t| name_wildcard(&t)) => {
                    let t = a.literal().unwrap_or_default();
                    words.push(W::Val(Value::text(&t)));
                }
                _ => words.extend(a.items().into_iter().map(|v| W::Val(path_value(&v, false)))),
            }
        }
        self.redirects(&c.redirects, &mut words)?;
        self.emit(words, None)?;
        Ok(selection(name, &args).unwrap_or_else(|| V::unknown("(output)")))
    }

    /// Code given as a value: literal text is read as the code it is,
    /// decoded text too (and said to be decoded), a download or anything
    /// else nobody can read beforehand is dynamic.
    fn eval_code(&mut self, code: &V, label: &str) -> R<()> {
        match (&code.val, &code.from) {
            (Val::Block(b), _) => {
                let b = b.clone();
                self.block(&b, label, None, vec![], false)?;
            }
            (_, From::Download(url)) => {
                let url = url.clone();
                self.emit(
                    vec![
                        raw("curl"),
                        raw("-fsSL"),
                        W::Val(url),
                        raw("|"),
                        raw("pwsh"),
                    ],
                    Some(label),
                )?;
                self.runner("eval", Code::Dynamic, label)?;
            }
            // Text read from a file is code nobody has read here (`iex (gc x.txt)`,
            // as `eval "$(cat x)"`); a script run by its name is a file (`. ./x.ps1`).
            (_, From::File(_)) => self.runner("eval", Code::Dynamic, label)?,
            (_, from) => match code.literal() {
                Some(text) => {
                    let kind = if *from == From::Decoded {
                        Code::Decoded
                    } else {
                        Code::Inline
                    };
                    self.runner("eval", kind, label)?;
                    self.nested(&text, label)?;
                }
                None => self.runner("eval", Code::Dynamic, label)?,
            },
        }
        Ok(())
    }

    /// The code an expandable string given to `Invoke-Expression` is, when
    /// every value in it is known (`iex "Remove-Item -Recurse $HOME"` runs
    /// `Remove-Item -Recurse C:\Users\me`). PowerShell pastes the values into
    /// the text and reads the result: a literal value is pasted as it is (it
    /// may hold code: `$x = '; rm ~'`); a value known only by its shape (the
    /// home folder) is kept as a reference to the same variable, read in
    /// this scope, which names the same place. `None` when the string holds
    /// a value nobody knows or a sub-expression: that code is unknown.
    fn eval_source(&mut self, c: &Command) -> Option<String> {
        let mut given = c.args.iter().filter(|a| !matches!(a, Arg::EndOfParams));
        let parts = match given.next()? {
            Arg::Value(Expr::Word(p)) => p,
            Arg::Param { name, value } if is_command_param(name) => match value {
                Some(Expr::Word(p)) => p,
                None => match given.next()? {
                    Arg::Value(Expr::Word(p)) => p,
                    _ => return None,
                },
                Some(_) => return None,
            },
            _ => return None,
        };
        if given.next().is_some() || !parts.iter().any(|p| matches!(p, Part::Var(_))) {
            return None;
        }
        let mut text = String::new();
        for (i, p) in parts.iter().enumerate() {
            match p {
                Part::Text { text: t, .. } => text.push_str(t),
                Part::Var(n) => {
                    let home_pair = (n == "env:homedrive"
                        && matches!(parts.get(i + 1), Some(Part::Var(m)) if m == "env:homepath"))
                        || (n == "env:homepath"
                            && i > 0
                            && matches!(parts.get(i - 1), Some(Part::Var(m)) if m == "env:homedrive"));
                    if home_pair {
                        text.push_str(&format!("${{{n}}}"));
                        continue;
                    }
                    let v = self.var(n);
                    if !matches!(v.from, From::Plain) {
                        return None;
                    }
                    let value = v.scalar();
                    match value.literal() {
                        Some(t) => text.push_str(&t),
                        None if !value.has_unknown() => text.push_str(&format!("${{{n}}}")),
                        None => return None,
                    }
                }
                Part::Sub(_) => return None,
            }
        }
        Some(text)
    }

    /// A process (or job) started without waiting for it: inside a loop
    /// nothing ends, one more each time round, without end, as bash's `while
    /// true; do x & done`. Reported as a command started in the background
    /// that many times ([`SimpleCommand::background_jobs`]), which the rules
    /// about process floods judge for both shells.
    fn started_without_waiting(&mut self, label: &str) {
        if self.forever == 0 {
            return;
        }
        let mut sc = self.bare(label);
        sc.background_jobs = u64::MAX;
        self.out.push(sc);
    }

    /// A command with no words but its program, where this one runs.
    fn bare(&self, program: &str) -> SimpleCommand {
        let mut sc = SimpleCommand::with_values(
            program.to_string(),
            vec![],
            vec![],
            vec![],
            vec![],
            self.via.clone(),
            self.offset.unwrap_or(0),
        );
        sc.cwd = self.cwd.clone();
        sc
    }

    /// A command that runs code (`eval` for Invoke-Expression, `pwsh`), with
    /// where its code comes from.
    fn runner(&mut self, prog: &str, code: Code, label: &str) -> R<()> {
        let mut sc = self.bare(prog);
        sc.program_path = label.to_string();
        sc.code = Some(code);
        self.out.push(sc);
        Ok(())
    }

    /// A file written with `text` (appended when `append`): its text is
    /// remembered when known (a script run later in the line runs it), and
    /// a file the environment or a secret went into holds them.
    fn wrote(&mut self, path: &Value, text: Option<&V>, append: bool) {
        // The name is what matters (`$env:TEMP\x.ps1` is run as written).
        let Some(name) = value_file_name(path) else {
            return;
        };
        if text.is_some_and(|t| matches!(t.from, From::Environment | From::Secret(_))) {
            self.env_files.push(name.clone());
        }
        let known = text.map(|t| {
            t.items()
                .iter()
                .map(Value::literal)
                .collect::<Option<Vec<String>>>()
                .map(|l| l.join("\n"))
        });
        let old = self.scripts.iter().position(|(n, _)| *n == name);
        let before = match old {
            Some(k) => Some(self.scripts.remove(k).1),
            None => None,
        };
        if let Some(Some(t)) = known {
            let t = match before.filter(|_| append) {
                Some(b) => format!("{b}\n{t}"),
                None => t,
            };
            self.scripts.push((name, t));
        }
    }

    /// Running a file this line wrote with known text: that text runs, as
    /// the code it is (PowerShell's for `.ps1`, cmd's for `.cmd`/`.bat`);
    /// `true` when `path` is one.
    pub(super) fn run_written(&mut self, path: &str, label: &str) -> R<bool> {
        let name = file_name(path);
        let Some(text) = self
            .scripts
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| t.clone())
        else {
            return Ok(false);
        };
        let cmd = name.ends_with(".cmd") || name.ends_with(".bat");
        self.runner(if cmd { "cmd" } else { "pwsh" }, Code::Written, label)?;
        let n = self.via.len();
        self.via.push(format!("{label} (written)"));
        let r = if cmd {
            self.cmd_script(&text)
        } else {
            self.nested(&text, label)
        };
        self.via.truncate(n);
        r.map(|()| true)
    }

    /// A canonical upload (`curl -T FILE URL`, `-F f=@FILE`, `--data-binary
    /// @FILE`, however the line wrote it: Invoke-WebRequest -InFile,
    /// WebClient.UploadFile, curl.exe, mail attachments) of a file the
    /// environment was written into is the environment sent.
    fn env_upload(&mut self, words: &[W], label: Option<&str>) -> R<()> {
        if !matches!(words.first(), Some(W::Raw(p)) if p == "curl" || p == "wget") {
            return Ok(());
        }
        let mut url = None;
        let mut sent = false;
        for w in words {
            let W::Val(v) = w else { continue };
            if v.literal().is_some_and(|t| t.contains("://")) {
                url = Some(v.clone());
            } else if value_file_name(v).is_some_and(|n| self.env_files.contains(&n)) {
                sent = true;
            }
        }
        if sent {
            let url = url.unwrap_or_else(|| Value::unknown("(url)"));
            self.uploads_env(url, label.unwrap_or("curl"))?;
        }
        Ok(())
    }

    /// The environment sent to `url`: `env | curl --data-binary @- URL`.
    fn uploads_env(&mut self, url: Value, label: &str) -> R<()> {
        let words = vec![
            raw("env"),
            raw("|"),
            raw("curl"),
            raw("--data-binary"),
            raw("@-"),
            W::Val(url),
        ];
        self.emit(words, Some(label))
    }

    /// Start-Process / [Diagnostics.Process]::Start: the program with its arguments.
    fn start(&mut self, name: &V, args: Vec<V>) -> R<()> {
        let Some(n) = name.literal().or_else(|| known_program(&name.scalar())) else {
            self.runner(
                "eval",
                Code::Dynamic,
                "Start-Process (a name known when it runs)",
            )?;
            let mut words = vec![W::Val(name.scalar())];
            words.extend(args.iter().flat_map(V::items).map(W::Val));
            return self.emit(words, Some("Start-Process"));
        };
        let cmd = Command {
            invoke: Invoke::Call,
            name: Expr::Word(vec![Part::Text {
                text: n.clone(),
                quoted: true,
            }]),
            args: vec![],
            redirects: vec![],
            offset: self.offset.unwrap_or(0),
        };
        if n.to_ascii_lowercase().ends_with(".ps1") {
            let code = if self.was_downloaded(&n) {
                Code::Dynamic
            } else {
                Code::File
            };
            return self.runner("pwsh", code, "Start-Process");
        }
        let base = program_base(&n);
        if cmdlets::find(&n).is_some() && !DUAL.iter().any(|d| d.eq_ignore_ascii_case(&n)) {
            // Start-Process runs programs, not cmdlets.
            return Ok(());
        }
        self.native_with(&base, &cmd, args, None)?;
        Ok(())
    }

    fn native(&mut self, base: &str, c: &Command, input: Option<&V>) -> R<V> {
        let args = self.plain_args(&c.args)?;
        self.native_with(base, c, args, input)
    }

    /// A program that is a shell or runs code (`cmd /c`, `pwsh -c`), or has a
    /// canonical twin (`reg add`, `schtasks`, `taskkill`): what it amounts to
    /// (`None`: neither; the caller reads it as the command line it is).
    pub(super) fn native_twin(
        &mut self,
        base: &str,
        args: &[V],
        input: Option<&V>,
    ) -> R<Option<V>> {
        let lower = base.to_ascii_lowercase();
        let texts: Vec<Option<String>> = args.iter().map(V::literal).collect();
        let lit = |i: usize| {
            texts
                .get(i)
                .cloned()
                .flatten()
                .unwrap_or_default()
                .to_ascii_lowercase()
        };
        let has = |flag: &str| texts.iter().flatten().any(|t| t.eq_ignore_ascii_case(flag));
        if self.runs_downloaded(&lower, args) {
            self.runner(
                "pwsh",
                Code::Dynamic,
                "a file downloaded earlier in the line",
            )?;
        }
        if self.windows_program(&lower, args, &texts)? {
            return Ok(Some(V::unknown("(output)")));
        }
        match lower.as_str() {
            "cmd" => {
                let at = texts.iter().position(|t| {
                    t.as_deref().is_some_and(|t| {
                        let l = t.to_ascii_lowercase();
                        l == "/c" || l == "/k" || l == "/r"
                    })
                });
                let rest = match at {
                    Some(k) => args.get(k + 1..).unwrap_or_default().to_vec(),
                    None => {
                        // `cmd` reading its input.
                        if let Some(i) = input {
                            self.eval_cmd(i)?;
                        }
                        return Ok(Some(V::unknown("(output)")));
                    }
                };
                let mut text = Value::text("");
                for (i, a) in rest.iter().enumerate() {
                    if i > 0 {
                        text = text.concat(&Value::text(" "));
                    }
                    text = text.concat(&a.scalar());
                }
                self.runner(
                    "cmd",
                    if text.literal().is_some() {
                        Code::Inline
                    } else {
                        Code::Dynamic
                    },
                    "cmd /c",
                )?;
                if let Some(t) = text.literal() {
                    let n = self.via.len();
                    self.via.push("cmd /c".into());
                    let switches = texts[..at.unwrap_or(0)].iter().flatten();
                    let delayed = super::cmd::delayed(switches.map(String::as_str));
                    let r = self.cmd_script_with(&t, delayed);
                    self.via.truncate(n);
                    r?;
                }
                return Ok(Some(V::unknown("(output)")));
            }
            "pwsh" | "powershell" | "pwsh-preview" => {
                let words: Vec<String> = texts
                    .iter()
                    .map(|t| t.clone().unwrap_or_else(|| "\u{E013}".into()))
                    .collect();
                match super::cli(&lower, &words) {
                    super::Cli::Code(text) if !text.contains('\u{E013}') => {
                        self.runner(&lower, Code::Inline, &format!("{lower} -c"))?;
                        self.nested(&text, &format!("{lower} -c"))?;
                    }
                    // `-EncodedCommand` carries a command through quoting
                    // (about_Pwsh): read as inline code (see `from_bash`).
                    super::Cli::Decoded(Some(text)) => {
                        self.runner(&lower, Code::Inline, &format!("{lower} -EncodedCommand"))?;
                        self.nested(&text, &format!("{lower} -EncodedCommand"))?;
                    }
                    super::Cli::Stdin => match input {
                        Some(i) => self.eval_code(i, &lower)?,
                        None => self.runner(&lower, Code::Dynamic, &lower)?,
                    },
                    super::Cli::File => {
                        // `-File x.ps1` (or pwsh's first word): a script this line wrote runs its text.
                        let script = texts.iter().flatten().find(|t| {
                            let l = t.to_ascii_lowercase();
                            l.ends_with(".ps1") || l.ends_with(".psm1")
                        });
                        let written = match script {
                            Some(f) => self.run_written(&f.clone(), &format!("{lower} -File"))?,
                            None => false,
                        };
                        if !written {
                            self.runner(&lower, Code::File, &lower)?;
                        }
                    }
                    super::Cli::Info => {}
                    super::Cli::Interactive => {
                        if let Some(i) = input {
                            self.eval_code(i, &lower)?;
                        }
                    }
                    _ => self.runner(&lower, Code::Dynamic, &lower)?,
                }
                return Ok(Some(V::unknown("(output)")));
            }
            "reg" => {
                let key = texts.get(1).cloned().flatten().and_then(|k| {
                    // Through `cmd /c` the key is already a registry place.
                    paths::registry(&k).or_else(|| k.starts_with("/registry/").then_some(k))
                });
                let value = texts
                    .iter()
                    .position(|t| t.as_deref().is_some_and(|t| t.eq_ignore_ascii_case("/v")))
                    .and_then(|k| texts.get(k + 1).cloned().flatten());
                match (lit(0).as_str(), key) {
                    ("add" | "import" | "copy" | "restore" | "load", Some(k)) => {
                        let p = match value {
                            Some(v) => format!("{k}/{}", v.to_ascii_lowercase()),
                            None => k,
                        };
                        return self
                            .emit(vec![raw(">"), W::Val(Value::text(&p))], Some("reg"))
                            .map(|_| Some(V::text("")));
                    }
                    ("delete", Some(k)) => {
                        return self
                            .emit(
                                vec![
                                    raw("rm"),
                                    raw("-r"),
                                    raw("-f"),
                                    raw("--"),
                                    W::Val(Value::text(&k)),
                                ],
                                Some("reg"),
                            )
                            .map(|_| Some(V::text("")));
                    }
                    _ => {}
                }
            }
            // (`/change` schedules new code only with a new command or user:
            // `/tn X /st 03:30`, `/disable` run what the task already runs)
            "schtasks"
                if has("/create")
                    || (has("/change") && ["/tr", "/ru", "/rp", "/xml"].iter().any(|f| has(f))) =>
            {
                return self
                    .emit(vec![raw("crontab"), raw("-")], Some("schtasks"))
                    .map(|_| Some(V::text("")));
            }
            "sc" => {
                let verb = lit(0);
                let name = args
                    .get(1)
                    .map(V::scalar)
                    .unwrap_or_else(|| Value::unknown("(service)"));
                let auto = texts
                    .iter()
                    .flatten()
                    .any(|t| t.to_ascii_lowercase().contains("auto"));
                let v = match verb.as_str() {
                    // a new service, with a program the caller names
                    "create" => Some("link"),
                    "config" if auto => Some("enable"),
                    "config" if has("disabled") => Some("disable"),
                    "pause" => Some("stop"),
                    "stop" => Some("stop"),
                    "delete" => Some("disable"),
                    _ => None,
                };
                if let Some(v) = v {
                    return self
                        .emit(vec![raw("systemctl"), raw(v), W::Val(name)], Some("sc"))
                        .map(|_| Some(V::text("")));
                }
            }
            "setx" => {
                if let Some(n) = texts.first().cloned().flatten() {
                    let hive = if has("/m") {
                        "hklm/system/currentcontrolset/control/session manager"
                    } else {
                        "hkcu"
                    };
                    let p = format!("/registry/{hive}/environment/{}", n.to_ascii_lowercase());
                    return self
                        .emit(vec![raw(">"), W::Val(Value::text(&p))], Some("setx"))
                        .map(|_| Some(V::text("")));
                }
            }
            "taskkill" => {
                let mut words = vec![];
                for (k, t) in texts.iter().enumerate() {
                    let l = t.clone().unwrap_or_default().to_ascii_lowercase();
                    if l == "/pid" {
                        match args.get(k + 1) {
                            // `/pid (Get-Process lsass).Id`: that process.
                            Some(V {
                                from: From::ProcessId(n),
                                ..
                            }) => {
                                words.extend([raw("pkill"), raw("-x")]);
                                words.extend(process_names(n).into_iter().map(W::Val));
                            }
                            pid => words.extend([
                                raw("kill"),
                                raw("-9"),
                                W::Val(windows_pid(
                                    &pid.map(V::scalar)
                                        .unwrap_or_else(|| Value::unknown("(pid)")),
                                )),
                            ]),
                        }
                    } else if l == "/im" {
                        let n = args
                            .get(k + 1)
                            .map(V::scalar)
                            .unwrap_or_else(|| Value::unknown("(image)"));
                        words.extend([raw("pkill"), raw("-x")]);
                        words.extend(process_names(&n).into_iter().map(W::Val));
                    }
                    if !words.is_empty() {
                        self.emit(std::mem::take(&mut words), Some("taskkill"))?;
                    }
                }
                return Ok(Some(V::text("")));
            }
            "shutdown" if texts.iter().flatten().any(|t| t.starts_with('/')) => {
                if has("/a") || has("/?") {
                    return Ok(Some(V::text("")));
                }
                if has("/l") {
                    // Log off: every process of the session ends.
                    let words = vec![raw("loginctl"), raw("terminate-user"), raw("''")];
                    return self
                        .emit(words, Some("shutdown"))
                        .map(|_| Some(V::text("")));
                }
                let prog = if has("/r") || has("/g") {
                    "reboot"
                } else {
                    "shutdown"
                };
                return self
                    .emit(vec![raw(prog)], Some("shutdown"))
                    .map(|_| Some(V::text("")));
            }
            "robocopy" if args.len() >= 2 => {
                let src = path_value(&args[0].scalar(), false);
                let dst = path_value(&args[1].scalar(), false);
                let mirror = has("/mir") || has("/purge");
                let moves = has("/mov") || has("/move");
                let words = if moves {
                    vec![raw("mv"), raw("--"), W::Val(src), W::Val(dst)]
                } else if mirror {
                    vec![
                        raw("rsync"),
                        raw("-a"),
                        raw("--delete"),
                        raw("--"),
                        W::Val(src),
                        W::Val(dst),
                    ]
                } else {
                    vec![raw("cp"), raw("-r"), raw("--"), W::Val(src), W::Val(dst)]
                };
                return self
                    .emit(words, Some("robocopy"))
                    .map(|_| Some(V::text("")));
            }
            "format"
                if texts
                    .iter()
                    .flatten()
                    .any(|t| t.len() == 2 && t.ends_with(':')) =>
            {
                let drive = texts
                    .iter()
                    .flatten()
                    .find(|t| t.len() == 2 && t.ends_with(':'))
                    .cloned()
                    .unwrap_or_default();
                let dev = format!("/dev/{}", drive.to_ascii_uppercase());
                return self
                    .emit(
                        vec![raw("mkfs"), raw("--"), W::Val(Value::text(&dev))],
                        Some("format"),
                    )
                    .map(|_| Some(V::text("")));
            }
            "diskpart" if !has("/?") => {
                // A script piped in that only looks reads nothing else.
                if input
                    .and_then(V::literal)
                    .is_some_and(|s| diskpart_looks(&s))
                {
                    return Ok(Some(V::text("")));
                }
                return self
                    .emit(
                        vec![raw("sfdisk"), raw("/dev/PhysicalDrive")],
                        Some("diskpart"),
                    )
                    .map(|_| Some(V::text("")));
            }
            "wsl" | "wsl.exe" => {
                // `wsl [options] [--] COMMAND…`: COMMAND runs in Linux's shell.
                let mut k = 0;
                while let Some(t) = texts.get(k).cloned().flatten() {
                    let l = t.to_ascii_lowercase();
                    match l.as_str() {
                        "-d" | "--distribution" | "-u" | "--user" | "--cd" => k += 2,
                        "-e" | "--exec" | "--" => {
                            k += 1;
                            break;
                        }
                        _ if l.starts_with('-') => k += 1,
                        _ => break,
                    }
                }
                let rest: Vec<W> = args
                    .get(k..)
                    .unwrap_or_default()
                    .iter()
                    .flat_map(V::items)
                    .map(W::Val)
                    .collect();
                if !rest.is_empty() {
                    let mut words = vec![];
                    for w in rest {
                        words.push(w);
                    }
                    return self
                        .emit_words_as_line(words, "wsl")
                        .map(|_| Some(V::text("")));
                }
                return Ok(Some(V::text("")));
            }
            _ => {}
        }
        Ok(None)
    }

    /// A program: its twin ([`Self::native_twin`]), else the command line as written.
    fn native_with(&mut self, base: &str, c: &Command, args: Vec<V>, input: Option<&V>) -> R<V> {
        if let Some(v) = self.native_twin(base, &args, input)? {
            return Ok(v);
        }
        let lower = base.to_ascii_lowercase();
        // Any other program: its command line as written.
        let mut words = vec![W::Raw(crate::shell::quote(base))];
        for a in &args {
            match &a.val {
                Val::Block(b) => {
                    // A script block handed to a program is serialised as
                    // its text; nothing in it runs here.
                    let _ = b;
                    words.push(W::Val(Value::unknown("{ … }")));
                }
                _ => words.extend(a.items().into_iter().map(|v| W::Val(native_arg(&v)))),
            }
        }
        self.redirects(&c.redirects, &mut words)?;
        if let Some(i) = input {
            // Text piped into a shell or an interpreter is its code.
            if let Some(t) = i.literal() {
                if is_stdin_shell(&lower) && !t.is_empty() {
                    let mut w = vec![
                        raw("printf"),
                        raw("'%s\\n'"),
                        W::Val(Value::text(&t)),
                        raw("|"),
                    ];
                    w.extend(words);
                    self.emit(w, None)?;
                    return Ok(V::unknown("(output)"));
                }
            }
            if let From::Download(u) = &i.from {
                let mut w = vec![raw("curl"), raw("-fsSL"), W::Val(u.clone()), raw("|")];
                w.extend(words);
                self.emit(w, None)?;
                return Ok(V::unknown("(output)"));
            }
        }
        self.emit(words, None)?;
        Ok(V::unknown("(output)"))
    }

    /// `cmd` reading its input: the text piped in is its script.
    fn eval_cmd(&mut self, input: &V) -> R<()> {
        match input.literal() {
            Some(t) => {
                let n = self.via.len();
                self.via.push("| cmd".into());
                let r = self.cmd_script(&t);
                self.via.truncate(n);
                r
            }
            None => self.runner("cmd", Code::Dynamic, "| cmd"),
        }
    }

    /// A `cmd.exe` script: its built-ins as their canonical commands, other
    /// programs as named.
    pub(super) fn cmd_script(&mut self, text: &str) -> R<()> {
        self.cmd_script_with(text, false)
    }

    /// A `cmd.exe` script, `delayed` when cmd expands `!NAME!` (`/v:on`).
    pub(super) fn cmd_script_with(&mut self, text: &str, delayed: bool) -> R<()> {
        for words in super::cmd::commands(text, delayed) {
            self.step()?;
            let mut vals: Vec<V> = vec![];
            let mut redirects: Vec<W> = vec![];
            let mut pending: Option<String> = None;
            for w in &words {
                let mut v = Value::text("");
                let mut secret = None;
                for p in w {
                    let piece = match p {
                        super::cmd::Part::Text(t) => Value::text(t),
                        super::cmd::Part::Var(n) => match paths::env_var(n) {
                            Some(s) => Value::one(s),
                            None if n.eq_ignore_ascii_case("cd") => self.cwd.clone(),
                            None => match self.vars.get(&format!("env:{}", n.to_ascii_lowercase()))
                            {
                                Some(x) => x.scalar(),
                                None => {
                                    // An environment variable only known when it runs.
                                    if n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                                        secret = Some(n.to_ascii_uppercase());
                                    }
                                    Value::unknown(&format!("%{n}%"))
                                }
                            },
                        },
                    };
                    v = v.concat(&piece);
                }
                if let Some(op) = v
                    .literal()
                    .and_then(|t| t.strip_prefix('\u{E020}').map(String::from))
                {
                    pending = Some(op);
                    continue;
                }
                if let Some(op) = pending.take() {
                    if op.starts_with('>') || op == "<" {
                        redirects.extend([W::Raw(op), W::Val(path_value(&v, false))]);
                    }
                    continue;
                }
                vals.push(match secret {
                    Some(n) => V::one(v).with(From::Secret(Some(n))),
                    None => V::one(v),
                });
            }
            self.cmd_command(vals, redirects)?;
        }
        Ok(())
    }

    fn cmd_command(&mut self, mut vals: Vec<V>, redirects: Vec<W>) -> R<()> {
        // `@echo off`, `if …`, `for … do …`: find the command.
        while let Some(first) = vals.first().and_then(V::literal) {
            let l = first.trim_start_matches('@').to_ascii_lowercase();
            if l == "if" {
                vals.remove(0);
                let mut k = 0;
                let lit = |vals: &Vec<V>, k: usize| {
                    vals.get(k)
                        .and_then(V::literal)
                        .unwrap_or_default()
                        .to_ascii_lowercase()
                };
                if lit(&vals, k) == "/i" {
                    k += 1;
                }
                if lit(&vals, k) == "not" {
                    k += 1;
                }
                match lit(&vals, k).as_str() {
                    "exist" | "defined" | "errorlevel" | "cmdextversion" => k += 2,
                    _ => {
                        k += if lit(&vals, k + 1).starts_with(['=', 'e', 'n', 'l', 'g']) {
                            3
                        } else {
                            1
                        }
                    }
                }
                vals = vals.split_off(k.min(vals.len()));
                continue;
            }
            if l == "for" {
                match vals
                    .iter()
                    .position(|v| v.literal().is_some_and(|t| t.eq_ignore_ascii_case("do")))
                {
                    Some(k) => {
                        vals = vals.split_off(k + 1);
                        continue;
                    }
                    None => return Ok(()),
                }
            }
            if l.is_empty() || l == "else" {
                vals.remove(0);
                continue;
            }
            break;
        }
        let Some(name) = vals.first().map(V::scalar) else {
            return Ok(());
        };
        let Some(n) = name.literal() else {
            // A command whose name is only known when it runs (`%X% /s /q …`).
            self.runner("cmd", Code::Dynamic, "cmd (a name known when it runs)")?;
            let mut words = vec![W::Val(name)];
            words.extend(vals.iter().skip(1).flat_map(V::items).map(W::Val));
            words.extend(redirects);
            return self.emit(words, None);
        };
        let n = n.trim_start_matches('@').to_ascii_lowercase();
        let mut args: Vec<V> = vals.into_iter().skip(1).collect();
        // `RD/S/Q x`: cmd ends a built-in's name at a `/`, its switches follow.
        let n = match n.split_once('/') {
            Some((head, tail))
                if !head.is_empty() && head.chars().all(|c| c.is_ascii_alphabetic()) =>
            {
                let mut sw: Vec<V> = tail
                    .split('/')
                    .filter(|t| !t.is_empty())
                    .map(|t| V::text(&format!("/{t}")))
                    .collect();
                sw.append(&mut args);
                args = sw;
                head.to_string()
            }
            _ => n,
        };
        let switches: Vec<String> = args
            .iter()
            .filter_map(V::literal)
            .filter(|t| t.starts_with('/'))
            .map(|t| t.to_ascii_lowercase())
            .collect();
        let operands: Vec<Value> = args
            .iter()
            .filter(|v| {
                !v.literal()
                    .is_some_and(|t| t.starts_with('/') && t.len() <= 3)
            })
            .map(V::scalar)
            .collect();
        let has = |s: &str| {
            switches
                .iter()
                .any(|x| x == s || x.starts_with(&format!("{s}:")))
        };
        let mut words: Vec<W> = vec![];
        match n.as_str() {
            "rd" | "rmdir" => {
                words.push(raw("rm"));
                if has("/s") {
                    words.push(raw("-r"));
                }
                words.push(raw("--"));
                words.extend(operands.iter().map(|o| W::Val(path_value(o, false))));
            }
            "del" | "erase" => {
                words.extend([raw("rm"), raw("-f")]);
                if has("/s") {
                    words.push(raw("-r"));
                }
                words.push(raw("--"));
                // `*.*` is every name to cmd (the dot is optional): `*`.
                let every = |o: &Value| {
                    let mut o = o.clone();
                    for s in &mut o.0 {
                        if let Some(Piece::Text(t) | Piece::Glob(t)) = s.0.last_mut() {
                            if t.ends_with("*.*") {
                                t.truncate(t.len() - 2);
                            }
                        }
                    }
                    o
                };
                words.extend(operands.iter().map(|o| W::Val(path_value(&every(o), true))));
            }
            "copy" | "xcopy" | "move" if !operands.is_empty() => {
                let prog = if n == "move" { "mv" } else { "cp" };
                words.push(raw(prog));
                if n == "xcopy" {
                    words.push(raw("-r"));
                }
                words.push(raw("--"));
                words.extend(operands.iter().map(|o| W::Val(path_value(o, true))));
                if operands.len() == 1 {
                    words.push(raw("."));
                }
            }
            "ren" | "rename" if operands.len() == 2 => {
                let src = path_value(&operands[0], false);
                let to = parent(&src).concat(&operands[1]);
                words.extend([raw("mv"), raw("--"), W::Val(src), W::Val(to)]);
            }
            "mklink" if operands.len() == 2 => {
                // `mklink [/D | /H | /J] LINK TARGET`: as New-Item's links.
                words.push(raw("ln"));
                if has("/j") {
                    words.extend([raw("-s"), raw("-r")]);
                } else if !has("/h") {
                    words.push(raw("-s"));
                }
                words.extend([
                    raw("--"),
                    W::Val(path_value(&operands[1], false)),
                    W::Val(path_value(&operands[0], false)),
                ]);
            }
            "type" => {
                words.extend([raw("cat"), raw("--")]);
                words.extend(operands.iter().map(|o| W::Val(path_value(o, true))));
            }
            "echo" => {
                for a in &args {
                    self.reveal(a, "echo")?;
                }
                words.push(raw("echo"));
                words.extend(args.iter().map(|a| W::Val(a.scalar())));
            }
            "mkdir" | "md" => {
                words.extend([raw("mkdir"), raw("-p"), raw("--")]);
                words.extend(operands.iter().map(|o| W::Val(path_value(o, false))));
            }
            "dir" => {
                words.extend([raw("ls"), raw("--")]);
                words.extend(operands.iter().map(|o| W::Val(path_value(o, true))));
            }
            "cd" | "chdir" | "pushd" => {
                if let Some(t) = operands.first() {
                    let new = resolve(&self.cwd, &path_value(t, false));
                    if n == "pushd" {
                        self.stack.push(self.cwd.clone());
                    }
                    self.cwd = new.union(&self.cwd);
                }
                return Ok(());
            }
            "popd" => {
                self.cwd = self
                    .stack
                    .pop()
                    .unwrap_or_else(|| Value::unknown("(popd)"))
                    .union(&self.cwd);
                return Ok(());
            }
            "set" if args.is_empty() => {
                // `set` alone prints every environment variable: `env`.
                for w in redirects.chunks(2) {
                    if let [W::Raw(op), W::Val(p)] = w {
                        if op.ends_with('>') && !op.starts_with('2') {
                            self.wrote(
                                p,
                                Some(&V::unknown("(environment)").with(From::Environment)),
                                false,
                            );
                        }
                    }
                }
                words.push(raw("env"));
            }
            "set" | "setlocal" | "endlocal" | "cls" | "ver" | "title" | "exit" | "rem" | "::"
            | "goto" | "pause" | "color" | "prompt" | "shift" | "verify" | "vol" | "path" => {
                if n == "set" {
                    if let Some(t) = args.first().and_then(V::literal) {
                        if let Some((k, v)) = t.split_once('=') {
                            self.set_var(&format!("env:{}", k.to_ascii_lowercase()), V::text(v));
                        }
                    }
                }
                return Ok(());
            }
            "call" => {
                let target = args.first().and_then(V::literal).unwrap_or_default();
                if target.starts_with(':') {
                    return Ok(());
                }
                if target.to_ascii_lowercase().ends_with(".bat")
                    || target.to_ascii_lowercase().ends_with(".cmd")
                {
                    if self.run_written(&target, "call")? {
                        return Ok(());
                    }
                    return self.runner("cmd", Code::File, "call");
                }
                return self.cmd_command(args, redirects);
            }
            "start" => {
                // `start ["title"] [/b /wait /min …] program args`
                let rest: Vec<V> = args
                    .into_iter()
                    .skip_while(|a| {
                        a.literal()
                            .is_some_and(|t| t.starts_with('/') || t.is_empty())
                    })
                    .collect();
                return self.cmd_command(rest, redirects);
            }
            "format" => {
                let drive = operands
                    .first()
                    .and_then(Value::literal)
                    .unwrap_or_default();
                let dev = format!("/dev/{}", drive.to_ascii_uppercase());
                words.extend([raw("mkfs"), raw("--"), W::Val(Value::text(&dev))]);
            }
            "diskpart" if !has("/?") => {
                words.extend([raw("sfdisk"), raw("/dev/PhysicalDrive")]);
            }
            _ if (n.ends_with(".cmd") || n.ends_with(".bat")) && self.run_written(&n, "cmd")? => {
                return Ok(());
            }
            _ => {
                let base = program_base(&n);
                let fake = Command {
                    invoke: Invoke::Call,
                    name: Expr::Word(vec![]),
                    args: vec![],
                    redirects: vec![],
                    offset: self.offset.unwrap_or(0),
                };
                let args = args
                    .into_iter()
                    .map(|a| V::one(native_arg(&a.scalar())))
                    .collect();
                self.native_with(&base, &fake, args, None)?;
                if !redirects.is_empty() {
                    self.emit(redirects, None)?;
                }
                return Ok(());
            }
        }
        words.extend(redirects);
        self.emit(words, Some(&n))
    }

    fn emit_words_as_line(&mut self, words: Vec<W>, label: &str) -> R<()> {
        // Each value is one word of a Linux command line (`wsl rm -rf ~`).
        let mut out = vec![];
        for w in words {
            match w {
                W::Val(v) => match v.literal() {
                    Some(t) if is_shell_word(&t) => out.push(W::Raw(t)),
                    _ => out.push(W::Val(v)),
                },
                r => out.push(r),
            }
        }
        self.emit(out, Some(label))
    }

    fn command_redirects(&mut self, redirects: &[Redir]) -> R<()> {
        if redirects.is_empty() {
            return Ok(());
        }
        let mut words = vec![];
        self.redirects(redirects, &mut words)?;
        self.emit(words, None)
    }

    fn redirects(&mut self, redirects: &[Redir], words: &mut Vec<W>) -> R<()> {
        self.redirects_of(redirects, words, None)
    }

    /// Redirections of a statement whose output is `out` (when known): a
    /// file it writes with known text is remembered ([`Self::wrote`]).
    fn redirects_of(&mut self, redirects: &[Redir], words: &mut Vec<W>, out: Option<&V>) -> R<()> {
        for r in redirects {
            let t = self.expr(&r.target)?;
            let p = path_value(&t.scalar(), false);
            // `$null` is nothing.
            if p.literal().is_some_and(|s| s.is_empty()) {
                continue;
            }
            if matches!(r.fd, None | Some(1)) && r.op != RedirectOp::Read {
                self.wrote(&p, out, r.op == RedirectOp::Append);
            }
            let op = match (r.op, r.fd) {
                (RedirectOp::Append, Some(n)) => format!("{n}>>"),
                (RedirectOp::Append, None) => ">>".into(),
                (_, Some(n)) => format!("{n}>"),
                _ => ">".into(),
            };
            words.push(W::Raw(op));
            words.push(W::Val(p));
        }
        Ok(())
    }

    // ------------------------------------------------------------ paths

    /// The path parameters of a bound cmdlet (Path, LiteralPath, FilePath), as paths.
    fn path_args(&mut self, b: &Bound) -> Vec<Value> {
        self.path_args_with(b, &mut |_| false)
    }

    /// [`Self::path_args`], where `whole(path)` may take a pattern's dot
    /// names itself (returning `true`): then no `.*` twin is added.
    fn path_args_with(&mut self, b: &Bound, whole: &mut dyn FnMut(&Value) -> bool) -> Vec<Value> {
        let mut out = vec![];
        // A filter on a folder's every entry (`-Path DIR/* -Filter *.log`)
        // narrows them to the names it matches: `DIR/*.log`. Any other
        // pattern is judged as written (what both match is not one pattern).
        let filter = b
            .get("Filter")
            .or_else(|| b.get("Include"))
            .and_then(V::literal)
            .filter(|f| !f.is_empty() && !f.contains(['/', '\\', ',']));
        let narrowed = |it: &Value| -> Option<Value> {
            let f = filter.as_deref()?;
            let t = it.literal()?;
            let dir = t.strip_suffix("/*").or_else(|| t.strip_suffix("\\*"))?;
            Some(Value::text(&format!("{dir}/{f}")))
        };
        for (p, v) in &b.named {
            if matches!(p.kind, Kind::Path | Kind::Literal)
                && !matches!(
                    p.name,
                    "Destination"
                        | "OutFile"
                        | "InFile"
                        | "RedirectStandardError"
                        | "RedirectStandardInput"
                        | "RedirectStandardOutput"
                )
            {
                for it in v.items() {
                    let it = match p.kind {
                        Kind::Path => narrowed(&it).unwrap_or(it),
                        _ => it,
                    };
                    let pv = path_value(&it, p.kind == Kind::Path);
                    // PowerShell's wildcards match names that begin with a dot
                    // (a file or folder object, or its name, is that item: any
                    // one of a listing's, not a wildcard that names each).
                    if p.kind == Kind::Path && v.from != From::Item && !whole(&pv) {
                        if let Some(dot) = dotted(&pv) {
                            out.push(pv);
                            out.push(dot);
                            continue;
                        }
                    }
                    out.push(pv);
                }
            }
        }
        for v in &b.extra {
            if !matches!(v.val, Val::Block(_))
                && b.named
                    .iter()
                    .any(|(p, _)| matches!(p.kind, Kind::Path | Kind::Literal))
            {
                out.extend(v.items().iter().map(|it| path_value(it, true)));
            }
        }
        out
    }

    /// The paths of a cmdlet that acts on items as wholes (Remove-Item,
    /// Move-Item), and the folders whose every entry a `DIR/*` reaches.
    /// PowerShell's `*` also matches names that begin with a dot (bash's
    /// `dotglob`): for these cmdlets that is the rest of the folder's
    /// entries, removed or moved whole, judged as `find DIR/ -mindepth 1
    /// -maxdepth 1 -exec …` (what emptying a folder is in bash), not as a
    /// `DIR/.*` that names every hidden file (`.env`) the way a reader's
    /// pattern does. `Get-Content DIR/*` shows `.env`'s text, so a reader
    /// keeps the `.*` twin ([`Self::path_args`]); `Remove-Item DIR/*` deletes
    /// what `rm -rf DIR` would, and is judged where DIR lands.
    fn item_path_args(&mut self, b: &Bound) -> (Vec<Value>, Vec<Value>) {
        let mut emptied = vec![];
        let paths = self.path_args_with(b, &mut |pv: &Value| match bare_star_dir(pv) {
            Some(dir) => {
                emptied.push(dir);
                true
            }
            None => false,
        });
        (paths, emptied)
    }

    /// `find DIR/ -mindepth 1 -maxdepth 1 -exec PROG… FLAGS {} +`: every
    /// entry of DIR (the trailing `/` goes through a link, as PowerShell's
    /// listing does) handed to PROG. With `only` = (NAME, recurse), only the
    /// entries named NAME (`-name NAME`), at any depth when recurse.
    fn emptied(
        &mut self,
        dir: Value,
        prog: &[W],
        flags: &[W],
        only: Option<(Value, bool)>,
        label: Option<&str>,
    ) -> R<()> {
        let mut w = vec![raw("find"), W::Val(dir), raw("-mindepth"), raw("1")];
        let recurse = only.as_ref().is_some_and(|(_, r)| *r);
        if !recurse {
            w.extend([raw("-maxdepth"), raw("1")]);
        }
        if let Some((name, _)) = only {
            w.extend([raw("-name"), W::Val(name)]);
        }
        w.push(raw("-exec"));
        w.extend(prog.iter().cloned());
        w.extend(flags.iter().cloned());
        w.extend([raw("{}"), raw("+")]);
        self.emit(w, label)
    }

    fn path1(&mut self, v: &V) -> Value {
        path_value(&v.scalar(), false)
    }

    /// A download of `url` saved as `file` (`label` names the call): judged
    /// as `curl -fsSL -o FILE URL`, and the file remembered as downloaded.
    fn download_to(&mut self, file: Value, url: Value, label: Option<&str>) -> R<()> {
        self.note_download(&file);
        self.emit(
            vec![
                raw("curl"),
                raw("-fsSL"),
                raw("-o"),
                W::Val(file),
                W::Val(url),
            ],
            label,
        )
    }

    /// A .NET call (`label`) that reads the file its first argument names:
    /// judged as `cat -- P`; its value (`what`) carries the file it came from.
    fn file_read(&mut self, a: &[V], label: &str, what: &str) -> R<V> {
        let p = a
            .first()
            .map(|v| self.path1(v))
            .unwrap_or_else(|| Value::unknown("(path)"));
        self.emit(vec![raw("cat"), raw("--"), W::Val(p.clone())], Some(label))?;
        Ok(V::unknown(what).with(From::File(p)))
    }

    // ------------------------------------------------------------ emission

    /// Read a canonical command line with the bash analysis and keep its
    /// commands, as if PowerShell's had been them.
    fn emit(&mut self, words: Vec<W>, label: Option<&str>) -> R<()> {
        self.step()?;
        if !self.env_files.is_empty() {
            self.env_upload(&words, label)?;
        }
        // One line per combination of alternatives (capped).
        let mut lines: Vec<Vec<String>> = vec![vec![]];
        for w in &words {
            match w {
                W::Raw(r) => lines.iter_mut().for_each(|l| l.push(r.clone())),
                W::Val(v) => {
                    let alts: Vec<String> = v.0.iter().map(|s| self.bash_word(s)).collect();
                    let alts = if alts.is_empty() {
                        vec!["''".to_string()]
                    } else {
                        alts
                    };
                    let mut next = vec![];
                    for l in &lines {
                        for a in &alts {
                            if next.len() >= 16 {
                                break;
                            }
                            let mut l2 = l.clone();
                            l2.push(a.clone());
                            next.push(l2);
                        }
                    }
                    lines = next;
                }
            }
        }
        for l in lines {
            let text = l.join(" ");
            let cmds = crate::shell::command::parse(&text).map_err(|e| {
                perr(
                    format!(
                        "PowerShell: the canonical command `{text}` did not parse: {}",
                        e.message
                    ),
                    self.offset.unwrap_or(0),
                )
            })?;
            for mut sc in cmds {
                let top = sc.via.is_empty();
                self.restore(&mut sc);
                // Links made by earlier commands of the script come first.
                if !self.made.is_empty() {
                    let mut made = self.made.clone();
                    made.append(&mut sc.made);
                    sc.made = made;
                }
                let mut via = self.via.clone();
                via.append(&mut sc.via);
                sc.via = via;
                sc.offset = self.offset.unwrap_or(0);
                sc.cwd = rebase(&sc.cwd, &self.cwd);
                if top {
                    if let Some(l) = label {
                        sc.program_path = l.to_string();
                    }
                    if self.assigning > 0 && sc.output_to.is_empty() {
                        sc.output_to = vec![String::new()];
                    }
                }
                self.made.extend(crate::shell::command::made_by(&sc));
                self.out.push(sc);
            }
        }
        Ok(())
    }

    /// A value as one shell word: text quoted, patterns as patterns, the
    /// places the analysis knows by their names, anything else a placeholder
    /// put back after the line is read.
    fn bash_word(&mut self, s: &Sym) -> String {
        let mut w = String::new();
        for (i, p) in s.0.iter().enumerate() {
            match p {
                Piece::Text(t) => w.push_str(&crate::shell::quote(t)),
                Piece::Glob(g) => {
                    for ch in g.chars() {
                        if matches!(ch, '*' | '?' | '[' | ']' | '!')
                            || ch.is_ascii_alphanumeric()
                            || matches!(ch, '/' | '.' | '_' | '-')
                        {
                            w.push(ch);
                        } else {
                            w.push_str(&crate::shell::quote(&ch.to_string()));
                        }
                    }
                }
                Piece::Home => w.push_str("\"${HOME}\""),
                Piece::Start => w.push_str("\"${PWD}\""),
                Piece::Project => w.push_str("\"${CLAUDE_PROJECT_DIR}\""),
                Piece::TempRoot => w.push_str("\"${TMPDIR:-/tmp}\""),
                Piece::Env(n) if n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                    w.push_str(&format!("\"${{{n}}}\""));
                }
                Piece::HomeOf(u)
                    if i == 0
                        && u.chars()
                            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
                {
                    w.push('~');
                    w.push_str(u);
                }
                other => {
                    let n = self.unknowns.len();
                    self.unknowns.push(Sym(vec![other.clone()]));
                    w.push_str(&format!("\"${{__ps{n}}}\""));
                }
            }
        }
        if w.is_empty() {
            w.push_str("''");
        }
        w
    }

    /// Put the placeholders' values back.
    fn restore(&self, sc: &mut SimpleCommand) {
        if self.unknowns.is_empty() {
            return;
        }
        let fix_sym = |s: &Sym| -> Sym {
            let mut out = Sym::default();
            for p in &s.0 {
                match p {
                    Piece::Unknown(t) => match placeholder(t).and_then(|n| self.unknowns.get(n)) {
                        Some(orig) => out.extend(orig),
                        None => out.push(p.clone()),
                    },
                    p => out.push(p.clone()),
                }
            }
            out
        };
        let fix = |v: &Value| Value(v.0.iter().map(fix_sym).collect());
        let fix_text = |t: &str| -> String {
            let mut t = t.to_string();
            for (n, orig) in self.unknowns.iter().enumerate().rev() {
                let shown = orig.to_string();
                t = t
                    .replace(&format!("${{__ps{n}}}"), &shown)
                    .replace(&format!("$__ps{n}"), &shown);
            }
            t
        };
        sc.values = sc.values.iter().map(fix).collect();
        sc.operand_values = sc.operand_values.iter().map(fix).collect();
        sc.args = sc.args.iter().map(|a| fix_text(a)).collect();
        sc.operands = sc.operands.iter().map(|a| fix_text(a)).collect();
        sc.program_path = fix_text(&sc.program_path);
        for r in &mut sc.redirects {
            r.value = fix(&r.value);
            r.target = fix_text(&r.target);
        }
        sc.cwd = fix(&sc.cwd);
    }
}

/// Programs that are also aliases of cmdlets in Windows PowerShell 5.1.
const DUAL: &[&str] = &[
    "cat", "cp", "curl", "diff", "kill", "ls", "man", "mount", "mv", "ps", "rm", "rmdir", "sleep",
    "sort", "tee", "wget", "sc",
];

/// What a cmdlet's arguments bound to.
#[derive(Default)]
struct Bound {
    named: Vec<(&'static Param, V)>,
    extra: Vec<V>,
    unknown: Vec<String>,
}

impl Bound {
    fn get(&self, name: &str) -> Option<&V> {
        self.named
            .iter()
            .find(|(p, _)| p.name == name)
            .map(|(_, v)| v)
    }

    fn switch(&self, name: &str) -> bool {
        self.get(name).is_some_and(|v| match v.literal() {
            Some(t) => is_true(&t),
            None => true,
        })
    }
}

/// What a `Where-Object` keeps of its input (see [`filter`]): of every
/// process or service, the ones named, some that are none of Windows' own, or
/// every one when the filter is not shown to narrow; of processes or services
/// already named, those (a filter only narrows); of anything else, some.
fn filtered(b: &Bound, input: &V) -> V {
    let from = |f: From| V {
        val: input.val.clone(),
        from: f,
    };
    let names = |n: Vec<String>| {
        let mut v = Value::default();
        for t in n {
            v.add(Sym::text(&t));
        }
        v
    };
    let every_service = |n: &Value| n.literal().as_deref() == Some("*");
    match &input.from {
        From::Processes => match filter::kept(b, filter::Of::Processes) {
            filter::Kept::Named(n) => from(From::Process(names(n))),
            filter::Kept::Some => narrowed(input),
            filter::Kept::Every => input.clone(),
        },
        From::Service(n) if every_service(n) => match filter::kept(b, filter::Of::Services) {
            filter::Kept::Named(n) => from(From::Service(names(n))),
            filter::Kept::Some => narrowed(input),
            filter::Kept::Every => input.clone(),
        },
        From::Process(_) | From::Service(_) => input.clone(),
        // Objects kept by what they are compared with (`Where-Object TaskName
        // -like *Defender*`): the selection names those too
        // (a filter not shown to narrow, `-notlike`, `-ne`, a status, keeps the
        // selection as it was: it adds no name)
        From::Selection { noun, words } => match filter::kept(b, filter::Of::Objects) {
            filter::Kept::Named(n) => {
                let mut words = words.clone();
                words.extend(n.iter().map(|t| Value::text(t)));
                from(From::Selection {
                    noun: noun.clone(),
                    words,
                })
            }
            _ => input.clone(),
        },
        // Items kept by name (`Where-Object { $_.Name -in 'bin','obj' }`): those names.
        From::Items {
            dir,
            recurse,
            filter: None,
        } => match filter::kept(b, filter::Of::Processes) {
            filter::Kept::Named(n) => from(From::Items {
                dir: dir.clone(),
                recurse: *recurse,
                filter: Some(names(n)),
            }),
            _ => input.clone(),
        },
        _ => narrowed(input),
    }
}

/// Some of what a value holds (`Where-Object`, `Select-Object -First`):
/// every process or service becomes some of them, named only when it runs.
fn narrowed(v: &V) -> V {
    let some = || Value::unknown("(some of them)");
    let from = match &v.from {
        From::Processes | From::Process(_) => From::Process(some()),
        From::Service(_) => From::Service(some()),
        From::Wmi { class, .. } => From::Wmi {
            class: class.clone(),
            filter: Some(String::new()),
        },
        // Some variables (the filter is judged as a search of the environment).
        From::Environment => From::Plain,
        f => f.clone(),
    };
    V {
        val: v.val.clone(),
        from,
    }
}

/// An environment variable the event does not know: its value is only known
/// when the command runs, and printing it prints whatever it holds.
fn env_secret(name: &str) -> V {
    V::unknown(&format!("$env:{name}")).with(From::Secret(Some(name.to_ascii_uppercase())))
}

/// A comparison or logic operator: its result is a truth value.
fn is_comparison(op: &str) -> bool {
    let is = |o: &str| {
        matches!(
            o,
            "eq" | "ne"
                | "gt"
                | "ge"
                | "lt"
                | "le"
                | "like"
                | "notlike"
                | "match"
                | "notmatch"
                | "contains"
                | "notcontains"
                | "in"
                | "notin"
                | "is"
                | "isnot"
                | "and"
                | "or"
                | "xor"
                | "not"
        )
    };
    let op = op.trim_start_matches('-').to_ascii_lowercase();
    // `-ceq`, `-ilike`: the case-sensitive and -insensitive spellings.
    is(&op)
        || [op.strip_prefix('c'), op.strip_prefix('i')]
            .into_iter()
            .flatten()
            .any(is)
}

fn is_true(t: &str) -> bool {
    !matches!(
        t.to_ascii_lowercase().as_str(),
        "" | "false" | "0" | "$false"
    )
}

fn restore(vars: &mut HashMap<String, V>, name: &str, saved: Option<V>) {
    match saved {
        Some(v) => {
            vars.insert(name.to_string(), v);
        }
        None => {
            vars.remove(name);
        }
    }
}

/// The value one item of a collection may be (a `foreach` variable, `$_`).
/// An item of a folder's listing is a file or folder object (`$_.Delete()`
/// removes it): something in the folder; any one of its items when nothing
/// chose among them (`dir/*`, as `Get-ChildItem dir | Remove-Item` is
/// judged), something below it otherwise.
fn item_of(v: &V) -> V {
    match (&v.val, &v.from) {
        (_, From::Items { dir, filter, .. }) => {
            // A filter that names no letter or digit (`*`, `*.*`) chooses nothing.
            let every = filter.as_ref().is_none_or(|f| {
                f.0.iter().all(|s| {
                    s.literal()
                        .is_some_and(|t| !t.chars().any(char::is_alphanumeric))
                })
            });
            let mut s = Value::default();
            for d in &dir.0 {
                if every {
                    let mut every = d.clone();
                    every.push(Piece::Text("/".into()));
                    every.push(Piece::Glob("*".into()));
                    s.add(every);
                }
                let mut d = d.clone();
                d.push(Piece::Below);
                s.add(d);
            }
            V::one(s).with(From::Item)
        }
        (Val::List(items), from) => {
            let mut out = Value::default();
            for it in items {
                out = out.union(&it.scalar());
            }
            // one of the services or processes a cmdlet listed is still one of them
            match from {
                From::Service(_) | From::Process(_) | From::Processes | From::Selection { .. } => {
                    V::one(out).with(from.clone())
                }
                _ => V::one(out),
            }
        }
        _ => v.clone(),
    }
}

/// Does member `m` (lowercase) of an object from `from` name that object
/// (see [`filter::names_it`])? A process's `Id` is read apart, as its number.
fn self_named(from: &From, m: &str) -> bool {
    match from {
        From::Service(_) => filter::names_it(m, filter::Of::Services) && m != "displayname",
        From::Process(_) | From::Processes => filter::names_it(m, filter::Of::Processes),
        From::Selection { .. } => filter::names_it(m, filter::Of::Objects),
        _ => false,
    }
}

/// The variable a chain of members starts from (`$ps` of
/// `$ps.AddCommand(…).AddParameter(…)`).
fn root_var(e: &Expr) -> Option<String> {
    match e {
        Expr::Var(n) => Some(n.clone()),
        Expr::Member { target, .. } => root_var(target),
        _ => None,
    }
}

/// How a `FileMode` (`'Create'`, `[IO.FileMode]::Truncate`, a number) opens
/// a file: `>` when it makes or cuts it, `>>` when it writes into what is
/// there; `None` for a mode that only opens what exists (`Open`), or none.
fn file_mode(v: Option<&V>) -> Option<&'static str> {
    let t = v?.scalar().to_string().to_ascii_lowercase();
    let t = t
        .rsplit([':', '.'])
        .next()
        .unwrap_or(&t)
        .trim_matches(['\'', '"', ' ']);
    match t {
        "create" | "createnew" | "truncate" | "1" | "2" | "5" => Some(">"),
        "append" | "openorcreate" | "4" | "6" => Some(">>"),
        _ => None,
    }
}

/// The files and folders piped into a cmdlet whose `-Path`/`-LiteralPath`
/// take them by property name (`Get-ChildItem D | Clear-Content`: each
/// item's `PSPath`): any one of a listing's items, or the item itself.
/// Text piped in is a value (`'x' | Set-Content f`), no path.
fn piped_items(input: Option<&V>) -> Vec<Value> {
    match input {
        Some(i) if matches!(i.from, From::Items { .. } | From::Item) => {
            vec![path_value(&item_of(i).scalar(), true)]
        }
        _ => vec![],
    }
}

/// The folder whose items a value lists (`Get-ChildItem P`).
fn items_dir(v: &V) -> Option<Value> {
    match &v.from {
        From::Items { dir, .. } => Some(dir.clone()),
        _ => None,
    }
}

/// Marks a bash command line put into code it hands PowerShell (`pwsh -c
/// "… $HOME …"`): the places it expanded, whatever quotes PowerShell reads
/// around them.
pub(super) const MARK_HOME: char = '\u{E010}';
pub(super) const MARK_START: char = '\u{E011}';
pub(super) const MARK_PROJECT: char = '\u{E012}';

/// Text into pieces: quoted text is text; unquoted `*`, `?`, `[` are a pattern.
fn push_text(s: &mut Sym, t: &str, quoted: bool) {
    if t.contains([MARK_HOME, MARK_START, MARK_PROJECT]) {
        let mut rest = t;
        while let Some(k) = rest.find([MARK_HOME, MARK_START, MARK_PROJECT]) {
            push_text(s, &rest[..k], quoted);
            let c = rest[k..].chars().next().unwrap_or(MARK_HOME);
            s.push(match c {
                MARK_START => Piece::Start,
                MARK_PROJECT => Piece::Project,
                _ => Piece::Home,
            });
            rest = &rest[k + c.len_utf8()..];
        }
        push_text(s, rest, quoted);
        return;
    }
    if quoted || !t.contains(['*', '?', '[']) {
        s.push(Piece::Text(t.to_string()));
        return;
    }
    let mut buf = String::new();
    let mut glob = false;
    for ch in t.chars() {
        let g = matches!(ch, '*' | '?' | '[' | ']');
        if g != glob && !buf.is_empty() {
            s.push(if glob {
                Piece::Glob(std::mem::take(&mut buf))
            } else {
                Piece::Text(std::mem::take(&mut buf))
            });
        }
        glob = g;
        buf.push(ch);
    }
    if !buf.is_empty() {
        s.push(if glob {
            Piece::Glob(buf)
        } else {
            Piece::Text(buf)
        });
    }
}

/// A value as a path: Windows spellings made canonical; with `wildcards`,
/// `*`, `?`, `[` in text are a pattern (a cmdlet's `-Path` expands them
/// itself, quoted or not).
fn path_value(v: &Value, wildcards: bool) -> Value {
    Value(
        v.0.iter()
            .map(|s| {
                let s = paths::path_sym(s);
                if !wildcards {
                    return Sym(s
                        .0
                        .into_iter()
                        .map(|p| match p {
                            Piece::Glob(g) => Piece::Text(g),
                            p => p,
                        })
                        .collect());
                }
                let mut out = Sym::default();
                for p in s.0 {
                    match p {
                        Piece::Text(t) => push_text(&mut out, &t, false),
                        p => out.push(p),
                    }
                }
                out
            })
            .collect(),
    )
}

/// A native program's argument: Windows paths made canonical when the word
/// is one (`C:\x`, `.\x`, `~\x`, `src\x`).
fn native_arg(v: &Value) -> Value {
    Value(
        v.0.iter()
            .map(|s| match s.0.first() {
                Some(Piece::Text(t))
                    if paths::absolute(t).is_some()
                        || t.starts_with(".\\")
                        || t.starts_with("..\\")
                        || t.starts_with("~\\")
                        || (t.contains('\\')
                            && t.chars().all(|c| {
                                c.is_alphanumeric() || matches!(c, '\\' | '.' | '_' | '-')
                            })) =>
                {
                    let mut out = paths::path_sym(s);
                    if let Some(Piece::Text(t)) = out.0.first_mut() {
                        if let Some(rest) = t.strip_prefix("./") {
                            *t = format!("./{rest}");
                        }
                    }
                    out
                }
                Some(Piece::Home) => paths::path_sym(s),
                // A place inside a word (`"f=@$HOME\.ssh\id_rsa"` for curl -F,
                // `--key=$env:USERPROFILE\k`): the path from it on has
                // Windows separators.
                _ if s.0.iter().skip(1).any(is_place) => {
                    let mut out = Sym::default();
                    let mut after = false;
                    for p in &s.0 {
                        after |= is_place(p);
                        match p {
                            Piece::Text(t) if after => out.push(Piece::Text(t.replace('\\', "/"))),
                            p => out.push(p.clone()),
                        }
                    }
                    out
                }
                _ => s.clone(),
            })
            .collect(),
    )
}

/// Copy sources whose last component is `*` (`Copy-Item dist\* out`):
/// everything in the folder, dot names too, is the folder's content copied
/// (`cp -r dist/. out`), not a pattern that names each secret a folder may
/// hold. (The `.*` twin [`dotted`] adds is the same content, dropped.)
fn whole_content(srcs: Vec<Value>) -> Vec<Value> {
    let star = |s: &Sym, dot: bool| {
        let n = s.0.len();
        n >= 2
            && matches!(s.0.last(), Some(Piece::Glob(g)) if g == "*")
            && matches!(&s.0[n - 2], Piece::Text(t) if t.ends_with(if dot { "/." } else { "/" }))
    };
    let mut out = vec![];
    for v in srcs {
        let syms: Vec<Sym> =
            v.0.into_iter()
                .filter(|s| !star(s, true))
                .map(|mut s| {
                    if star(&s, false) {
                        s.0.pop();
                        s.push(Piece::Text(".".into()));
                    }
                    s
                })
                .collect();
        if !syms.is_empty() {
            out.push(Value(syms));
        }
    }
    out
}

/// A piece that stands for a folder of this machine (home, the working
/// folder, the project, the temp folder).
fn is_place(p: &Piece) -> bool {
    matches!(
        p,
        Piece::Home | Piece::Start | Piece::Project | Piece::TempRoot
    )
}

/// The same path with a `.` before a last component that starts with a
/// wildcard (`*` also matches `.env` in PowerShell).
fn dotted(v: &Value) -> Option<Value> {
    let mut changed = false;
    let out = Value(
        v.0.iter()
            .map(|s| {
                let mut s = s.clone();
                let n = s.0.len();
                if let Some(Piece::Glob(g)) = s.0.last() {
                    let prev_sep =
                        n < 2 || matches!(s.0.get(n - 2), Some(Piece::Text(t)) if t.ends_with('/'));
                    if prev_sep && g.starts_with(['*', '?', '[']) {
                        let g = format!(".{g}");
                        s.0.pop();
                        if let Some(Piece::Text(t)) = s.0.last_mut() {
                            t.push('.');
                            s.0.push(Piece::Glob(g[1..].to_string()));
                        } else {
                            s.0.push(Piece::Text(".".into()));
                            s.0.push(Piece::Glob(g[1..].to_string()));
                        }
                        changed = true;
                    }
                }
                s
            })
            .collect(),
    );
    changed.then_some(out)
}

/// The folder `v` names every entry of, when each of its spellings is
/// `DIR/*` (or a bare `*`: the working folder), with its trailing `/`.
fn bare_star_dir(v: &Value) -> Option<Value> {
    let mut out = Value::default();
    for s in &v.0 {
        let n = s.0.len();
        if !matches!(s.0.last(), Some(Piece::Glob(g)) if g == "*") {
            return None;
        }
        let mut d = s.clone();
        d.0.pop();
        match d.0.last() {
            None => d.push(Piece::Text("./".into())),
            Some(Piece::Text(t)) if t.ends_with('/') && n >= 2 => {}
            _ => return None,
        }
        out.add(d);
    }
    (!out.0.is_empty()).then_some(out)
}

/// The folder a path is in (for Rename-Item's new name), with a trailing `/`.
fn parent(v: &Value) -> Value {
    Value(
        v.0.iter()
            .map(|s| {
                let mut s = s.clone();
                let single = s.0.len() == 1;
                if let Some(Piece::Text(t)) = s.0.last_mut() {
                    match t.rfind('/') {
                        Some(k) => t.truncate(k + 1),
                        None if single => return Sym::default(),
                        None => t.clear(),
                    }
                } else {
                    // `$PWD`, `$HOME`: the folder above the one they name.
                    s.push(Piece::Text("/../".into()));
                }
                s
            })
            .collect(),
    )
}

fn parent_dir(v: &Value) -> Value {
    let p = parent(v);
    Value(
        p.0.into_iter()
            .map(|mut s| {
                if let Some(Piece::Text(t)) = s.0.last_mut() {
                    if t.len() > 1 && t.ends_with('/') {
                        t.pop();
                    }
                }
                s
            })
            .collect(),
    )
}

/// A folder moved to from `cwd`.
fn resolve(cwd: &Value, target: &Value) -> Value {
    let mut out = Value::default();
    for t in &target.0 {
        let absolute = match t.0.first() {
            Some(Piece::Text(x) | Piece::Glob(x)) => x.starts_with('/'),
            Some(Piece::Below) | None => false,
            Some(_) => true,
        };
        if absolute {
            out.add(t.clone());
        } else {
            for c in &cwd.0 {
                let mut s = c.clone();
                s.push(Piece::Text("/".into()));
                s.extend(t);
                out.add(s);
            }
        }
    }
    out
}

/// The directory reported for a command of a canonical line: the line's own
/// `cd`s on top of PowerShell's working folder.
fn rebase(cwd: &Value, base: &Value) -> Value {
    let mut out = Value::default();
    for s in &cwd.0 {
        match s.0.first() {
            Some(Piece::Start) => {
                for b in &base.0 {
                    let mut x = b.clone();
                    for p in s.0.iter().skip(1) {
                        x.push(p.clone());
                    }
                    out.add(x);
                }
            }
            _ => out.add(s.clone()),
        }
    }
    out
}

fn placeholder(t: &str) -> Option<usize> {
    let at = t.find("__ps")?;
    let digits: String = t[at + 4..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

fn is_shell_word(t: &str) -> bool {
    !t.is_empty()
        && t.chars().all(|c| {
            c.is_ascii_alphanumeric()
                || matches!(
                    c,
                    '-' | '_'
                        | '.'
                        | '/'
                        | '~'
                        | '*'
                        | '$'
                        | '{'
                        | '}'
                        | ','
                        | ':'
                        | '='
                        | '+'
                        | '@'
                )
        })
}

/// A program name: the file name without `.exe`, `.cmd`, `.bat`, `.com`.
fn program_base(t: &str) -> String {
    let b = t.rsplit(['/', '\\']).next().unwrap_or(t);
    let l = b.to_ascii_lowercase();
    for ext in [".exe", ".cmd", ".bat", ".com"] {
        if l.ends_with(ext) && l.len() > ext.len() {
            return b[..b.len() - ext.len()].to_string();
        }
    }
    b.to_string()
}

/// The noun of a `Verb-Noun` name, lowercase, without a module prefix.
fn noun_of(name: &str) -> Option<String> {
    let name = name.rsplit('\\').next().unwrap_or(name);
    let (_, noun) = name.split_once('-')?;
    (!noun.is_empty()).then(|| noun.to_ascii_lowercase())
}

/// What a `Get-NOUN` cmdlet outputs: its objects, chosen by its arguments'
/// values (see [`From::Selection`]). `None` for any other cmdlet.
fn selection(name: &str, args: &[V]) -> Option<V> {
    let short = name.rsplit('\\').next().unwrap_or(name);
    let (verb, _) = short.split_once('-')?;
    if !verb.eq_ignore_ascii_case("get") {
        return None;
    }
    let noun = noun_of(short)?;
    let words = args
        .iter()
        .filter(|a| !matches!(a.val, Val::Block(_) | Val::Hash(_)))
        .flat_map(V::items)
        .collect();
    Some(V::unknown("(objects)").with(From::Selection { noun, words }))
}

fn looks_like_cmdlet(t: &str) -> bool {
    let mut parts = t.splitn(2, '-');
    let (Some(verb), Some(noun)) = (parts.next(), parts.next()) else {
        return false;
    };
    verb.len() > 1
        && verb.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && verb.chars().all(|c| c.is_ascii_alphabetic())
        && !noun.is_empty()
        && noun.chars().all(|c| c.is_ascii_alphanumeric())
}

fn is_stdin_shell(p: &str) -> bool {
    matches!(
        p,
        "sh" | "bash" | "zsh" | "dash" | "python" | "python3" | "node" | "perl" | "ruby"
    )
}

/// A process name pattern as `pkill -x` reads it (`*` is every process;
/// Windows names ignore case, so they are lowercase).
fn process_pattern(v: &Value) -> Value {
    match v.literal() {
        Some(t) => {
            let t = t.to_ascii_lowercase();
            let t = t.trim_end_matches(".exe");
            Value::text(&t.replace('.', "\\.").replace('*', ".*").replace('?', "."))
        }
        None => v.clone(),
    }
}

/// The names Windows always runs (its own processes): a wildcard given to
/// `Stop-Process -Name`, `taskkill /im` or a WMI filter stands for each of
/// them it matches (`l*ass` is `lsass`), as it does when it runs.
const WINDOWS_PROCESSES: &[&str] = &[
    "system",
    "smss",
    "csrss",
    "wininit",
    "winlogon",
    "services",
    "lsass",
    "lsaiso",
    "svchost",
    "fontdrvhost",
    "dwm",
    "explorer",
    "spoolsv",
    "sihost",
    "taskhostw",
    "ctfmon",
    "conhost",
    "runtimebroker",
    "searchindexer",
    "msmpeng",
    "registry",
    "memcompression",
];

/// The `pkill -x` patterns of a process name (see [`process_pattern`]), and
/// for a wildcard, each of Windows' own processes it matches.
fn process_names(v: &Value) -> Vec<Value> {
    let mut out = vec![];
    for s in &v.0 {
        let one = Value::one(s.clone());
        if let Some(t) = one.literal() {
            let t = t.to_ascii_lowercase();
            let t = t.trim_end_matches(".exe");
            if t.contains(['*', '?', '[']) {
                out.extend(
                    WINDOWS_PROCESSES
                        .iter()
                        .filter(|n| wildcard(t, n))
                        .map(|n| Value::text(n)),
                );
            }
        }
        out.push(process_pattern(&one));
    }
    out
}

/// Does a PowerShell wildcard (`*`, `?`, `[…]` taken as any one character)
/// match this name? Both lowercase.
fn wildcard(pattern: &str, name: &str) -> bool {
    fn go(p: &[u8], n: &[u8]) -> bool {
        match p.first() {
            None => n.is_empty(),
            Some(b'*') => (0..=n.len()).any(|k| go(&p[1..], &n[k..])),
            Some(b'[') => {
                let close = p.iter().position(|c| *c == b']').unwrap_or(0);
                !n.is_empty() && go(&p[close + 1..], &n[1..])
            }
            Some(b'?') => !n.is_empty() && go(&p[1..], &n[1..]),
            Some(c) => n.first() == Some(c) && go(&p[1..], &n[1..]),
        }
    }
    go(pattern.as_bytes(), name.as_bytes())
}

/// A Windows process id as the canonical `kill` reads it: PID 4 is the
/// System process (the kernel's), which the machine cannot run without, as
/// init (PID 1) elsewhere.
/// A path's last name, lowercase (`.\\a.PS1` and `C:/x/a.ps1` are `a.ps1`).
pub(super) fn file_name(path: &str) -> String {
    path.rsplit(['/', '\\'])
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase()
}

/// Select-Object's properties name no value (`Name`, `Key`): only the
/// environment's names are shown.
fn names_only(args: &[V]) -> bool {
    let props: Vec<String> = args
        .iter()
        .flat_map(V::items)
        .filter_map(|v| v.literal())
        .flat_map(|t| {
            t.split(',')
                .map(str::to_ascii_lowercase)
                .collect::<Vec<_>>()
        })
        .filter(|t| !t.starts_with('-') && !t.is_empty() && t.parse::<i64>().is_err())
        .collect();
    !props.is_empty() && props.iter().all(|p| p == "name" || p == "key")
}

/// The name of the file a word names, lowercase, whatever folder it is in
/// (`$env:TEMP\e.txt` is `e.txt`); a curl form or data word names the file
/// after its `@` (`f=@e.txt;type=text/plain`).
fn value_file_name(v: &Value) -> Option<String> {
    let [one] = v.0.as_slice() else { return None };
    let (Piece::Text(t) | Piece::Glob(t)) = one.0.last()? else {
        return None;
    };
    let t = t.rsplit('@').next().unwrap_or(t);
    let t = t.split(';').next().unwrap_or(t);
    (!t.is_empty() && !t.ends_with(['/', '\\'])).then(|| file_name(t))
}

fn windows_pid(v: &Value) -> Value {
    match v.literal().as_deref().map(str::trim) {
        Some("4") => Value::text("1"),
        _ => v.clone(),
    }
}

/// ArgumentList: a list is the arguments; one text is split as Windows
/// splits a command line (spaces, double quotes); a text with places or
/// unknowns in it (`"/c rd /s /q $HOME"`) at its spaces, the rest kept whole.
fn split_arguments(v: &V) -> Vec<V> {
    match &v.val {
        Val::List(l) => l.clone(),
        _ => match v.literal() {
            Some(t) => super::cmd::split_command_line(&t)
                .into_iter()
                .map(|s| V::text(&s))
                .collect(),
            None => match v.scalar().0.as_slice() {
                [one]
                    if !one
                        .0
                        .iter()
                        .any(|p| matches!(p, Piece::Text(t) if t.contains('"'))) =>
                {
                    let mut out = vec![];
                    let mut word = Sym::default();
                    for p in &one.0 {
                        match p {
                            Piece::Text(t) => {
                                for (i, part) in t.split(' ').enumerate() {
                                    if i > 0 && !word.0.is_empty() {
                                        out.push(V::one(Value::one(std::mem::take(&mut word))));
                                    }
                                    if !part.is_empty() {
                                        word.push(Piece::Text(part.to_string()));
                                    }
                                }
                            }
                            other => word.push(other.clone()),
                        }
                    }
                    if !word.0.is_empty() {
                        out.push(V::one(Value::one(word)));
                    }
                    out.into_iter().map(|w| w.with(v.from.clone())).collect()
                }
                _ => vec![v.clone()],
            },
        },
    }
}

/// A program path whose folder is only known when it runs but whose name is
/// written (`& $env:JAVA_HOME\bin\java.exe`): the program is known by name.
fn known_program(v: &Value) -> Option<String> {
    let [one] = v.0.as_slice() else { return None };
    let Some(Piece::Text(t)) = one.0.last() else {
        return None;
    };
    let name = t.rsplit(['\\', '/']).next()?;
    (t.contains(['\\', '/']) && !name.is_empty() && !name.contains(['*', '?', '$']))
        .then(|| name.to_string())
}

/// `[Environment]::GetFolderPath(name)`.
fn folder(name: &str) -> Value {
    let home = |tail: &str| {
        let mut s = Sym::piece(Piece::Home);
        s.push(Piece::Text(tail.to_string()));
        Value::one(s)
    };
    match name.to_ascii_lowercase().as_str() {
        "userprofile" => Value::one(Sym::piece(Piece::Home)),
        "applicationdata" => home("/AppData/Roaming"),
        "localapplicationdata" => home("/AppData/Local"),
        "desktop" | "desktopdirectory" => home("/Desktop"),
        "mydocuments" | "personal" => home("/Documents"),
        "startup" => home("/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup"),
        "commonstartup" => {
            Value::text("/c/ProgramData/Microsoft/Windows/Start Menu/Programs/StartUp")
        }
        "windows" => Value::text("/c/Windows"),
        "system" | "systemx86" => Value::text("/c/Windows/System32"),
        "programfiles" => Value::text("/c/Program Files"),
        "programfilesx86" => Value::text("/c/Program Files (x86)"),
        "commonapplicationdata" => Value::text("/c/ProgramData"),
        _ => Value::unknown(&format!("(folder {name})")),
    }
}

/// Standard base64 (with or without padding).
pub(super) fn base64(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in s.chars() {
        let v = match c {
            'A'..='Z' => c as u32 - 'A' as u32,
            'a'..='z' => c as u32 - 'a' as u32 + 26,
            '0'..='9' => c as u32 - '0' as u32 + 52,
            '+' | '-' => 62,
            '/' | '_' => 63,
            '=' => break,
            c if c.is_whitespace() => continue,
            _ => return None,
        };
        acc = (acc << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// Bytes as text in an encoding (`Unicode` is UTF-16LE).
pub(super) fn decode(enc: &str, b: &[u8]) -> Option<String> {
    match enc {
        "unicode" => {
            let units: Vec<u16> = b
                .chunks(2)
                .map(|c| u16::from_le_bytes([c[0], *c.get(1).unwrap_or(&0)]))
                .collect();
            String::from_utf16(&units).ok()
        }
        "bigendianunicode" => {
            let units: Vec<u16> = b
                .chunks(2)
                .map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]))
                .collect();
            String::from_utf16(&units).ok()
        }
        _ => String::from_utf8(b.to_vec()).ok(),
    }
}

/// Does a diskpart script only look (`"list disk" | diskpart`)? Every line's
/// command is one that shows or selects: `list`, `detail`, `help`, `select`,
/// `filesystems`, `rem`, `exit`, written in full or shortened to three letters
/// or more, as diskpart accepts (Microsoft's diskpart command reference).
fn diskpart_looks(script: &str) -> bool {
    const LOOKS: &[&str] = &[
        "list",
        "detail",
        "help",
        "select",
        "filesystems",
        "rem",
        "exit",
    ];
    let mut any = false;
    for line in script.lines() {
        let Some(verb) = line.split_whitespace().next() else {
            continue;
        };
        let verb = verb.to_ascii_lowercase();
        let known =
            verb == "?" || verb.len() >= 3 && LOOKS.iter().any(|l| l.starts_with(verb.as_str()));
        if !known {
            return false;
        }
        any = true;
    }
    any
}

/// Is `name` (a parameter as written, without its `-`) Invoke-Expression's
/// `-Command`, abbreviated as PowerShell allows?
fn is_command_param(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    !n.is_empty() && "command".starts_with(&n)
}
