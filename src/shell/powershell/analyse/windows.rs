//! Windows' own spellings of the canonical actions: WMI and CIM methods
//! (`Win32_OperatingSystem.Win32Shutdown`, `Win32_Process.Terminate`,
//! `Win32_Service.StopService`, `wmic … call`), processes and services taken
//! from `Get-Process`/`Get-Service` and stopped through their methods, `net
//! stop`, rundll32's power entry points, Defender's preferences, the
//! execution policy, stored credentials (`cmdkey /add`) and WMI event
//! subscriptions. Each is written as the canonical command it amounts to, so
//! the pack's rules judge it unchanged:
//!
//! - Defender's settings and exclusions, and the execution policy, live in
//!   the registry (`HKLM\SOFTWARE\Microsoft\Windows Defender\Exclusions\…`,
//!   `…\Real-Time Protection\…`; `…\PowerShell\1\ShellIds\Microsoft.PowerShell\
//!   ExecutionPolicy`): changing them is a write there;
//! - a credential stored with `cmdkey /add` is a file under
//!   `%APPDATA%\Microsoft\Credentials`: a write there;
//! - a WMI event subscription (`root\subscription`) runs a command when an
//!   event fires, at every boot: a scheduled job (`crontab -`).

use super::*;

/// A command's arguments read without its parameter table: `-Name value`
/// pairs (names lowercase) and the rest.
pub(super) type Loose = (Vec<(String, V)>, Vec<V>);

/// A switch among the arguments of a command the binding table does not know.
const SWITCHES: &[&str] = &[
    "force", "whatif", "confirm", "verbose", "debug", "passthru", "asjob", "list",
];

impl Analyser {
    /// Arguments of a command the binding table does not know: `-Name value`
    /// pairs (names lowercase; a common switch takes no value) and the rest.
    pub(super) fn loose_args(&mut self, args: &[Arg]) -> R<Loose> {
        let mut named = vec![];
        let mut plain = vec![];
        let mut k = 0;
        while let Some(a) = args.get(k) {
            match a {
                Arg::Param { name, value } => {
                    let l = name.to_ascii_lowercase();
                    let switch = SWITCHES.iter().any(|s| s.starts_with(&l));
                    let v = match value {
                        Some(v) => self.expr(v)?,
                        None if switch => V::text("True"),
                        None => match args.get(k + 1) {
                            Some(Arg::Value(e)) => {
                                k += 1;
                                self.expr(e)?
                            }
                            _ => V::text("True"),
                        },
                    };
                    named.push((l, v));
                }
                Arg::Value(e) => plain.push(self.expr(e)?),
                Arg::Splat(n) => match self.var(n).val {
                    Val::Hash(h) => named.extend(h),
                    Val::List(l) => plain.extend(l),
                    v => plain.push(V {
                        val: v,
                        from: From::Plain,
                    }),
                },
                Arg::Verbatim(t) => plain.push(V::text(t)),
                Arg::EndOfParams => {}
            }
            k += 1;
        }
        Ok((named, plain))
    }

    /// Windows cmdlets the binding table does not hold, by lowercase name:
    /// `Some(output)` when this is one of them.
    pub(super) fn windows_cmdlet(
        &mut self,
        lower: &str,
        c: &Command,
        input: Option<&V>,
    ) -> R<Option<V>> {
        let short = lower.rsplit('\\').next().unwrap_or(lower);
        let known = matches!(
            short,
            "get-process"
                | "gps"
                | "ps"
                | "get-service"
                | "gsv"
                | "get-ciminstance"
                | "gcim"
                | "get-wmiobject"
                | "gwmi"
                | "invoke-cimmethod"
                | "icim"
                | "invoke-wmimethod"
                | "iwmi"
                | "set-wmiinstance"
                | "swmi"
                | "new-ciminstance"
                | "add-mppreference"
                | "set-mppreference"
                | "set-executionpolicy"
                | "new-storedcredential"
                | "remove-service"
                | "suspend-service"
                | "get-secret"
                | "get-storedcredential"
                | "convertfrom-securestring"
                | "new-object"
                | "compress-archive"
                | "expand-archive"
                | "send-mailmessage"
                | "add-type"
                | "set-alias"
                | "sal"
                | "new-alias"
                | "nal"
                | "get-command"
                | "gcm"
                | "import-module"
                | "ipmo"
                | "remove-ciminstance"
                | "rcim"
                | "remove-wmiobject"
                | "rwmi"
                | "disable-computerrestore"
                | "disable-netadapter"
        );
        if !known {
            return Ok(None);
        }
        let (named, plain) = self.loose_args(&c.args)?;
        if named.iter().any(|(n, _)| n == "whatif" || n == "wi") {
            return Ok(Some(V::text("")));
        }
        let get = |names: &[&str]| {
            named
                .iter()
                .find(|(n, _)| names.iter().any(|m| m == n))
                .map(|(_, v)| v.clone())
        };
        let label = Some(short);
        match short {
            "get-process" | "gps" | "ps" => {
                let from = match get(&["name", "processname"]).or_else(|| plain.first().cloned()) {
                    _ if get(&["id", "pid"]).is_some() => {
                        From::Pid(get(&["id", "pid"]).map(|v| v.scalar()).unwrap_or_default())
                    }
                    Some(n) => From::Process(n.any_item()),
                    None if named.is_empty() => From::Processes,
                    None => From::Plain,
                };
                let full = cmdlets::data(short).unwrap_or("Get-Process");
                let v = self.data_cmdlet(full, c, input)?;
                return Ok(Some(v.with(from)));
            }
            "get-service" | "gsv" => {
                let name = get(&["name", "servicename"])
                    .or_else(|| plain.first().cloned())
                    .map_or_else(|| Value::text("*"), |v| v.any_item());
                let full = cmdlets::data(short).unwrap_or("Get-Service");
                let v = self.data_cmdlet(full, c, input)?;
                return Ok(Some(v.with(From::Service(name))));
            }
            "get-ciminstance" | "gcim" | "get-wmiobject" | "gwmi" => {
                let query = get(&["query"])
                    .and_then(|v| v.literal())
                    .unwrap_or_default();
                let class = get(&["classname", "class"])
                    .or_else(|| plain.first().cloned())
                    .and_then(|v| v.literal())
                    .or_else(|| query_class(&query))
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                let filter = get(&["filter"]).and_then(|v| v.literal()).or_else(|| {
                    query
                        .to_ascii_lowercase()
                        .find(" where ")
                        .map(|i| query[i + 7..].to_string())
                });
                let full = cmdlets::data(short).unwrap_or("Get-CimInstance");
                let v = self.data_cmdlet(full, c, input)?;
                return Ok(Some(v.with(From::Wmi { class, filter })));
            }
            "remove-ciminstance" | "rcim" | "remove-wmiobject" | "rwmi" => {
                // The instances piped in or given (`-InputObject`, `-Query`,
                // `-Class`/`-Path` for Remove-WmiObject) are deleted.
                let given = get(&["inputobject"]).or_else(|| input.cloned());
                let (class, filter) = match given.map(|v| v.from) {
                    Some(From::Wmi { class, filter }) => (class, filter),
                    _ => {
                        let query = get(&["query"]).and_then(|v| v.literal());
                        let class = get(&["class", "path"])
                            .and_then(|v| v.literal())
                            .map(|c| c.to_ascii_lowercase())
                            .or_else(|| query.as_deref().and_then(query_class))
                            .unwrap_or_default();
                        (
                            class,
                            query.as_deref().and_then(|q| {
                                let l = q.to_ascii_lowercase();
                                l.find(" where ").map(|i| q[i + 7..].to_string())
                            }),
                        )
                    }
                };
                self.wmi_method(&class, filter.as_deref(), "delete", &[])?;
                return Ok(Some(V::text("")));
            }
            // Turning System Restore off deletes the drive's restore points.
            "disable-computerrestore" => {
                self.shadows_deleted("Disable-ComputerRestore")?;
                return Ok(Some(V::text("")));
            }
            "disable-netadapter" => {
                let name = get(&["name", "ifalias", "interfacealias", "interfacedescription"])
                    .or_else(|| plain.first().cloned())
                    .map_or_else(|| Value::unknown("(adapter)"), |v| v.scalar());
                self.link_down(name, "Disable-NetAdapter")?;
                return Ok(Some(V::text("")));
            }
            "invoke-cimmethod" | "icim" | "invoke-wmimethod" | "iwmi" => {
                let from_input = get(&["inputobject"]).or_else(|| input.cloned());
                let (class, filter) = match from_input.map(|v| v.from) {
                    Some(From::Wmi { class, filter }) => (class, filter),
                    _ => {
                        // `-Query "SELECT * FROM Win32_OperatingSystem"`, `-Path
                        // "Win32_OperatingSystem=@"` / `"Win32_Process.Handle='4'"`
                        // name the class too.
                        let query = get(&["query"]).and_then(|v| v.literal());
                        let path = get(&["path"]).and_then(|v| v.literal());
                        let class = get(&["classname", "class"])
                            .and_then(|v| v.literal())
                            .map(|c| c.to_ascii_lowercase())
                            .or_else(|| query.as_deref().and_then(query_class))
                            .or_else(|| {
                                path.as_deref().and_then(|p| {
                                    let c = p.rsplit(':').next().unwrap_or(p);
                                    let c = c.split(['=', '.']).next().unwrap_or(c);
                                    (!c.is_empty()).then(|| c.to_ascii_lowercase())
                                })
                            })
                            .unwrap_or_default();
                        let filter = get(&["filter"]).and_then(|v| v.literal()).or_else(|| {
                            let q = query?;
                            let l = q.to_ascii_lowercase();
                            l.find(" where ").map(|i| q[i + 7..].to_string())
                        });
                        (class, filter)
                    }
                };
                let method = get(&["methodname", "name"])
                    .or_else(|| plain.first().cloned())
                    .and_then(|v| v.literal())
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                let args = match get(&["arguments", "argumentlist"]) {
                    Some(V {
                        val: Val::Hash(h), ..
                    }) => h.into_iter().map(|(_, v)| v).collect(),
                    Some(V {
                        val: Val::List(l), ..
                    }) => l,
                    Some(v) => vec![v],
                    None => vec![],
                };
                self.wmi_method(&class, filter.as_deref(), &method, &args)?;
                return Ok(Some(V::unknown("(result)")));
            }
            "set-wmiinstance" | "swmi" | "new-ciminstance" => {
                let ns = get(&["namespace"])
                    .and_then(|v| v.literal())
                    .unwrap_or_default();
                let class = get(&["class", "classname"])
                    .or_else(|| plain.first().cloned())
                    .and_then(|v| v.literal())
                    .unwrap_or_default();
                if subscription(&ns, &class) {
                    self.emit(vec![raw("crontab"), raw("-")], label)?;
                }
                return Ok(Some(V::unknown("(instance)")));
            }
            "add-mppreference" | "set-mppreference" => {
                for (n, v) in &named {
                    if let Some(place) = defender_setting(n, v) {
                        let p =
                            format!("/registry/hklm/software/microsoft/windows defender/{place}");
                        self.emit(vec![raw(">"), W::Val(Value::text(&p))], label)?;
                    }
                }
                return Ok(Some(V::text("")));
            }
            "set-executionpolicy" => {
                let policy = get(&["executionpolicy", "ep"])
                    .or_else(|| {
                        named
                            .iter()
                            .find(|(n, _)| n.len() > 1 && "executionpolicy".starts_with(n.as_str()))
                            .map(|(_, v)| v.clone())
                    })
                    .or_else(|| plain.first().cloned());
                let scope = named
                    .iter()
                    .find(|(n, _)| "scope".starts_with(n.as_str()))
                    .map(|(_, v)| v.clone())
                    .or_else(|| plain.get(1).cloned())
                    .and_then(|v| v.literal())
                    .unwrap_or_else(|| "LocalMachine".into())
                    .to_ascii_lowercase();
                // Bypass and Unrestricted run anything; Undefined and Default
                // drop a scope's setting (the next scope's may be looser);
                // RemoteSigned, the recommended policy for a user, loosens a
                // machine-wide AllSigned or Restricted for every user.
                let machine = matches!(scope.as_str(), "localmachine" | "machinepolicy");
                let weak = policy.and_then(|v| v.literal()).is_none_or(|p| {
                    match p.to_ascii_lowercase().as_str() {
                        "restricted" | "allsigned" => false,
                        "remotesigned" => machine,
                        _ => true,
                    }
                });
                let key = match scope.as_str() {
                    "process" => None,
                    "currentuser" => {
                        Some("hkcu/software/microsoft/powershell/1/shellids/microsoft.powershell")
                    }
                    "userpolicy" => Some("hkcu/software/policies/microsoft/windows/powershell"),
                    "machinepolicy" => Some("hklm/software/policies/microsoft/windows/powershell"),
                    _ => Some("hklm/software/microsoft/powershell/1/shellids/microsoft.powershell"),
                };
                if let (true, Some(k)) = (weak, key) {
                    let p = format!("/registry/{k}/executionpolicy");
                    self.emit(
                        vec![raw(">"), W::Val(Value::text(&p))],
                        Some("Set-ExecutionPolicy"),
                    )?;
                }
                return Ok(Some(V::text("")));
            }
            "new-storedcredential" => {
                let target = get(&["target"])
                    .and_then(|v| v.literal())
                    .unwrap_or_else(|| "credential".into());
                self.store_credential(&target, "New-StoredCredential")?;
                return Ok(Some(V::text("")));
            }
            "get-secret" | "get-storedcredential" | "convertfrom-securestring" => {
                // Plain text only when asked for (`-AsPlainText`, the
                // CredentialManager module's `-AsCredentialObject`, whose
                // Password is text); otherwise a SecureString or PSCredential,
                // shown as its type name.
                let plain = named.iter().any(|(n, _)| {
                    (n.len() >= 3 && "asplaintext".starts_with(n.as_str()))
                        || (n.len() >= 3 && "ascredentialobject".starts_with(n.as_str()))
                });
                return Ok(Some(if plain {
                    V::unknown("(plain text)").with(From::Secret(None))
                } else {
                    V::unknown("(secure string)")
                }));
            }
            "new-object" => {
                let ty = get(&["typename"])
                    .or_else(|| plain.first().cloned())
                    .and_then(|v| v.literal())
                    .unwrap_or_default()
                    .to_ascii_lowercase();
                if ty.ends_with("networkcredential") {
                    return Ok(Some(V::unknown("(credential)").with(From::Secret(None))));
                }
                let t = ty.strip_prefix("system.").unwrap_or(&ty);
                // The constructor's arguments: `-ArgumentList a, b` or the
                // words after the type (`New-Object IO.FileInfo P`,
                // `New-Object IO.StreamWriter(P, $true)`).
                let ctor: Vec<V> =
                    match get(&["argumentlist", "args"]).or_else(|| plain.get(1).cloned()) {
                        Some(V {
                            val: Val::List(l), ..
                        }) => l,
                        Some(v) => vec![v],
                        None => vec![],
                    };
                if let Some(v) = self.file_object(t, "new", &ctor)? {
                    return Ok(Some(v));
                }
                // A reader of a file (`New-Object IO.StreamReader(P)`): the file read.
                if matches!(t, "io.streamreader" | "io.filestream" | "io.binaryreader") {
                    let path = get(&["argumentlist", "args"])
                        .or_else(|| plain.get(1).cloned())
                        .and_then(|v| v.items().into_iter().next())
                        .map_or_else(|| Value::unknown("(path)"), |v| self.path1(&V::one(v)));
                    self.emit(
                        vec![raw("cat"), raw("--"), W::Val(path.clone())],
                        Some("StreamReader"),
                    )?;
                    return Ok(Some(V::unknown("(reader)").with(From::File(path))));
                }
                return Ok(None);
            }
            "compress-archive" => {
                let dest = get(&["destinationpath"])
                    .or_else(|| plain.get(1).cloned())
                    .map_or_else(|| Value::unknown("(archive)"), |v| self.path1(&v));
                let mut words = vec![raw("zip"), raw("-r"), W::Val(dest), raw("--")];
                if let Some(v) = get(&["path", "literalpath"]).or_else(|| plain.first().cloned()) {
                    for it in v.items() {
                        words.push(W::Val(self.path1(&V::one(it))));
                    }
                }
                self.emit(words, Some("Compress-Archive"))?;
                return Ok(Some(V::text("")));
            }
            "expand-archive" => {
                // Extracting writes the archive's files into the folder.
                let src = get(&["path", "literalpath"])
                    .or_else(|| plain.first().cloned())
                    .map_or_else(|| Value::unknown("(archive)"), |v| self.path1(&v));
                let dest = get(&["destinationpath"])
                    .or_else(|| plain.get(1).cloned())
                    .map(|v| self.path1(&v))
                    .unwrap_or_else(|| self.cwd.clone());
                // As `unzip`: the members read from the archive land there.
                self.emit(
                    vec![
                        raw("unzip"),
                        raw("-o"),
                        W::Val(src),
                        raw("-d"),
                        W::Val(dest),
                    ],
                    Some("Expand-Archive"),
                )?;
                return Ok(Some(V::text("")));
            }
            "send-mailmessage" => {
                let server =
                    get(&["smtpserver"]).map_or_else(|| Value::text("smtp"), |v| v.scalar());
                let url = Value::text("smtp://").concat(&server);
                if let Some(att) = get(&["attachments", "att", "attachment"]) {
                    for it in att.items() {
                        let f = self.path1(&V::one(it));
                        self.emit(
                            vec![raw("curl"), raw("-T"), W::Val(f), W::Val(url.clone())],
                            Some("Send-MailMessage"),
                        )?;
                    }
                }
                if let Some(body) = get(&["body"]) {
                    self.reveal(&body, "Send-MailMessage")?;
                }
                return Ok(Some(V::text("")));
            }
            "add-type" => {
                // C# (or VB) source compiled into the session: code the
                // analysis cannot read (`-TypeDefinition`, `-MemberDefinition`,
                // or the source as the first positional argument).
                let source = named.iter().any(|(n, _)| {
                    n.len() >= 2
                        && ["typedefinition", "memberdefinition", "source"]
                            .iter()
                            .any(|p| p.starts_with(n.as_str()))
                });
                let assembly = named.iter().any(|(n, _)| {
                    ["assemblyname", "path", "literalpath", "an"]
                        .iter()
                        .any(|p| p.starts_with(n.as_str()))
                });
                if source || (!assembly && !plain.is_empty()) {
                    self.runner("eval", Code::Dynamic, "Add-Type (inline source)")?;
                }
                return Ok(Some(V::text("")));
            }
            "set-alias" | "sal" | "new-alias" | "nal" => {
                let name = get(&["name", "n"])
                    .or_else(|| plain.first().cloned())
                    .and_then(|v| v.literal());
                let value = get(&["value", "v"])
                    .or_else(|| plain.get(1).cloned())
                    .and_then(|v| v.literal());
                if let Some(n) = name {
                    // An alias of a command only known when it runs runs unknown code.
                    let target = value.unwrap_or_else(|| "Invoke-Expression".into());
                    self.aliases.insert(n.to_ascii_lowercase(), target);
                }
                return Ok(Some(V::text("")));
            }
            "get-command" | "gcm" => {
                // The command it names: `& (Get-Command Invoke-Expression) $s`.
                let name = get(&["name"]).or_else(|| plain.first().cloned());
                return Ok(Some(match name.and_then(|v| v.literal()) {
                    Some(n) if !n.contains(['*', '?', '[']) => V::text(&n),
                    _ => V::unknown("(command)"),
                }));
            }
            "import-module" | "ipmo" => {
                let runs = plain
                    .iter()
                    .chain(get(&["name", "n"]).iter())
                    .filter_map(V::literal)
                    .any(|t| self.was_downloaded(&t));
                if runs {
                    self.runner("pwsh", Code::Dynamic, "Import-Module")?;
                }
                return Ok(Some(V::text("")));
            }
            "remove-service" | "suspend-service" => {
                let name = get(&["name"])
                    .or_else(|| plain.first().cloned())
                    .or_else(|| match input.map(|v| &v.from) {
                        Some(From::Service(n)) => Some(V::one(n.clone())),
                        _ => None,
                    })
                    .map_or_else(|| Value::unknown("(service)"), |v| v.scalar());
                let names = filter::service_names(&name);
                let mut w = vec![raw("systemctl"), raw("stop")];
                w.extend(names.iter().cloned().map(W::Val));
                self.emit(w, label)?;
                // Remove-Service also deletes the service's definition, its
                // key under the services key, as `sc delete` does.
                if short == "remove-service" {
                    let mut w = vec![raw("rm"), raw("-r")];
                    w.extend(names.iter().map(|n| {
                        W::Val(
                            Value::text("/registry/hklm/system/currentcontrolset/services/")
                                .concat(n),
                        )
                    }));
                    self.emit(w, label)?;
                }
                return Ok(Some(V::text("")));
            }
            _ => {}
        }
        Ok(None)
    }

    /// A path on the `Env:` drive (`Get-Content env:NAME`, `Get-ChildItem
    /// env:`, `ls env:*TOKEN*`): the variable's value, the whole environment,
    /// or a search of it by name. `None` for any other path.
    pub(super) fn env_drive(&mut self, p: &V, label: &str) -> R<Option<V>> {
        let Some(t) = p.literal() else {
            return Ok(None);
        };
        let Some(rest) = t
            .get(..4)
            .filter(|d| d.eq_ignore_ascii_case("env:"))
            .map(|_| t[4..].trim_start_matches(['\\', '/']))
        else {
            return Ok(None);
        };
        if rest.is_empty() || rest == "*" {
            return Ok(Some(V::unknown("(environment)").with(From::Environment)));
        }
        if rest.contains(['*', '?', '[']) {
            self.emit(
                vec![
                    raw("env"),
                    raw("|"),
                    raw("grep"),
                    raw("-i"),
                    raw("-e"),
                    W::Val(Value::text(rest)),
                ],
                Some(label),
            )?;
            return Ok(Some(V::unknown("(variables)")));
        }
        Ok(Some(env_secret(rest)))
    }

    /// A file a download (or a decode) wrote: running it later runs code
    /// nobody has read.
    pub(in crate::shell::powershell) fn note_download(&mut self, file: &Value) {
        for s in &file.0 {
            if let Some(Piece::Text(t)) = s.0.last() {
                self.downloaded.push(stem(t));
            }
        }
    }

    /// Is this the name of a file the script downloaded before?
    pub(in crate::shell::powershell) fn was_downloaded(&self, path: &str) -> bool {
        !self.downloaded.is_empty() && self.downloaded.contains(&stem(path))
    }

    /// A program that is, or that runs, a file downloaded earlier in the
    /// line (`.\a.exe`, `cmd /c a.bat`, `rundll32 a.dll,Run`, `powershell
    /// -File a.ps1`).
    pub(super) fn runs_downloaded(&self, program: &str, args: &[V]) -> bool {
        if self.downloaded.is_empty() {
            return false;
        }
        if self.was_downloaded(program) {
            return true;
        }
        let runner = matches!(
            program,
            "pwsh"
                | "powershell"
                | "cmd"
                | "rundll32"
                | "regsvr32"
                | "msiexec"
                | "cscript"
                | "wscript"
                | "mshta"
                | "installutil"
                | "regasm"
                | "regsvcs"
                | "start"
        );
        runner
            && args
                .iter()
                .flat_map(V::items)
                .filter_map(|v| v.literal())
                .any(|t| t.split(',').any(|part| self.was_downloaded(part)))
    }

    /// A WMI/CIM method of a class (`Win32Shutdown` of `Win32_OperatingSystem`, …).
    pub(super) fn wmi_method(
        &mut self,
        class: &str,
        filter: Option<&str>,
        method: &str,
        args: &[V],
    ) -> R<()> {
        let label = Some("WMI");
        let name = filter.and_then(filter_name);
        match (class, method) {
            ("win32_operatingsystem", "win32shutdown" | "win32shutdowntracker") => {
                // Flags (Win32Shutdown): 0 log off, 1 shut down, 2 reboot, 8 power off, +4 forced.
                let flags = args
                    .first()
                    .and_then(V::literal)
                    .and_then(|f| f.trim().parse::<i64>().ok());
                let words = match flags {
                    Some(f) if f & 2 != 0 => vec![raw("reboot")],
                    Some(f) if f & 9 == 0 => {
                        vec![raw("loginctl"), raw("terminate-user"), raw("''")]
                    }
                    _ => vec![raw("shutdown"), raw("-h"), raw("now")],
                };
                self.emit(words, label)
            }
            ("win32_operatingsystem", "shutdown") => {
                self.emit(vec![raw("shutdown"), raw("-h"), raw("now")], label)
            }
            ("win32_operatingsystem", "reboot") => self.emit(vec![raw("reboot")], label),
            ("win32_shadowcopy", "delete") => self.shadows_deleted("WMI"),
            ("win32_networkadapter", "disable") => {
                let n = name.map_or_else(|| Value::unknown("(adapter)"), |n| Value::text(&n));
                self.link_down(n, "WMI")
            }
            ("win32_process", "terminate") => match name {
                Some(n) => self.kill_named(&Value::text(&n), "WMI"),
                // Filtered by something else (`-Filter "ProcessId=…"`, `Where-Object`): some.
                None if filter.is_some() => Ok(()),
                None => self.emit(vec![raw("kill"), raw("-9"), raw("-1")], label),
            },
            ("win32_process", "create") => {
                let line = args
                    .first()
                    .cloned()
                    .unwrap_or_else(|| V::unknown("(command line)"));
                match line.literal() {
                    Some(t) => {
                        let words = super::super::cmd::split_command_line(&t);
                        let mut it = words.into_iter();
                        let prog = it.next().unwrap_or_default();
                        self.start(&V::text(&prog), it.map(|w| V::text(&w)).collect())
                    }
                    None => self.runner("cmd", Code::Dynamic, "Win32_Process.Create"),
                }
            }
            ("win32_service", "stopservice" | "pauseservice" | "delete") => {
                let n = match (name, filter) {
                    (Some(n), _) => Value::text(&n),
                    (None, Some(_)) => Value::unknown("(some services)"),
                    (None, None) => Value::text("*"),
                };
                self.emit(vec![raw("systemctl"), raw("stop"), W::Val(n)], label)
            }
            ("win32_service", "changestartmode")
                if args
                    .first()
                    .and_then(V::literal)
                    .is_none_or(|m| m.eq_ignore_ascii_case("disabled")) =>
            {
                let n = match (name, filter) {
                    (Some(n), _) => Value::text(&n),
                    (None, Some(_)) => Value::unknown("(some services)"),
                    (None, None) => Value::text("*"),
                };
                self.emit(vec![raw("systemctl"), raw("disable"), W::Val(n)], label)
            }
            _ => Ok(()),
        }
    }

    /// A method called on what `Get-Process`, `Get-Service` or a WMI query
    /// returned (`(Get-Process x).Kill()`, `(Get-Service x).Stop()`,
    /// `(gwmi Win32_OperatingSystem).Win32Shutdown(1)`): `true` when handled.
    pub(super) fn object_method(&mut self, from: &From, method: &str, args: &[V]) -> R<bool> {
        match (from, method) {
            (From::Processes, "kill") => {
                self.emit(
                    vec![raw("kill"), raw("-9"), raw("-1")],
                    Some("Process.Kill"),
                )?;
            }
            (From::Process(n), "kill" | "close" | "closemainwindow") => {
                self.kill_named(&n.clone(), "Process.Kill")?;
            }
            (From::Pid(p), "kill" | "close" | "closemainwindow") => {
                let p = windows_pid(p);
                self.emit(
                    vec![raw("kill"), raw("-9"), W::Val(p)],
                    Some("Process.Kill"),
                )?;
            }
            (From::Service(n), "stop" | "pause") => {
                let mut w = vec![raw("systemctl"), raw("stop")];
                w.extend(filter::service_names(n).into_iter().map(W::Val));
                self.emit(w, Some("Service.Stop"))?;
            }
            (From::Wmi { class, filter }, m) => {
                let (class, filter) = (class.clone(), filter.clone());
                self.wmi_method(&class, filter.as_deref(), m, args)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `pkill -x NAME` (the canonical kill by name; PID 4 is the System process).
    pub(super) fn kill_named(&mut self, n: &Value, label: &str) -> R<()> {
        let mut words = vec![raw("pkill"), raw("-x")];
        words.extend(process_names(n).into_iter().map(W::Val));
        self.emit(words, Some(label))
    }

    /// The machine's shadow copies deleted (System Restore points, the
    /// Volume Shadow Copy snapshots backups keep): `vssadmin delete shadows
    /// /all`, the line the pack's `destroy-recovery` rule names (the backup
    /// tools themselves, `vssadmin`, `wbadmin`, `bcdedit`, `reagentc`, are
    /// read as written: the rule ignores their letter case).
    pub(super) fn shadows_deleted(&mut self, label: &str) -> R<()> {
        let words = ["vssadmin", "delete", "shadows", "/all"].map(raw).to_vec();
        self.emit(words, Some(label))
    }

    /// A network adapter taken down (`Disable-NetAdapter`, `netsh interface
    /// set interface … disable`): `ip link set dev NAME down`.
    pub(super) fn link_down(&mut self, name: Value, label: &str) -> R<()> {
        let words = vec![
            raw("ip"),
            raw("link"),
            raw("set"),
            raw("dev"),
            W::Val(name),
            raw("down"),
        ];
        self.emit(words, Some(label))
    }

    /// A credential stored in Windows' Credential Manager (`cmdkey /add`):
    /// a file in `%APPDATA%\Microsoft\Credentials`.
    pub(super) fn store_credential(&mut self, target: &str, label: &str) -> R<()> {
        let mut s = Sym::piece(Piece::Home);
        let safe: String = target
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        s.push(Piece::Text(format!(
            "/AppData/Roaming/Microsoft/Credentials/{safe}"
        )));
        self.emit(vec![raw(">"), W::Val(Value::one(s))], Some(label))
    }

    /// Windows programs with a canonical twin (`net stop`, `wmic`, `rundll32`'s
    /// power entry points, `cmdkey /add`, `mofcomp`): `true` when handled.
    pub(super) fn windows_program(
        &mut self,
        lower: &str,
        args: &[V],
        texts: &[Option<String>],
    ) -> R<bool> {
        let lit = |i: usize| {
            texts
                .get(i)
                .cloned()
                .flatten()
                .unwrap_or_default()
                .to_ascii_lowercase()
        };
        match lower {
            "net" | "net1" if lit(0) == "stop" || lit(0) == "pause" => {
                let name = args
                    .get(1)
                    .map_or_else(|| Value::unknown("(service)"), V::scalar);
                self.emit(
                    vec![raw("systemctl"), raw("stop"), W::Val(name)],
                    Some("net stop"),
                )?;
            }
            "wmic" => self.wmic(texts)?,
            "taskkill"
                if texts
                    .iter()
                    .flatten()
                    .any(|t| t.eq_ignore_ascii_case("/fi")) =>
            {
                // `taskkill /fi "FILTER"`: every process the filters select.
                let filters: Vec<String> = texts
                    .windows(2)
                    .filter(|w| {
                        w[0].as_deref()
                            .is_some_and(|t| t.eq_ignore_ascii_case("/fi"))
                    })
                    .filter_map(|w| w[1].clone())
                    .collect();
                self.taskkill_filters(&filters)?;
                // `/im` and `/pid` given too are judged as well.
                return Ok(false);
            }
            "rundll32" => {
                // `powrprof.dll,SetSuspendState 0,1,0` is an array to PowerShell: its items.
                let all = args
                    .iter()
                    .flat_map(V::items)
                    .filter_map(|v| v.literal())
                    .map(|t| t.to_ascii_lowercase())
                    .collect::<Vec<_>>()
                    .join(",");
                if all.contains("setsuspendstate") {
                    self.emit(vec![raw("systemctl"), raw("suspend")], Some("rundll32"))?;
                } else if all.contains("lockworkstation") {
                    self.emit(vec![raw("loginctl"), raw("lock-session")], Some("rundll32"))?;
                } else if all.contains("exitwindowsex") {
                    self.emit(
                        vec![raw("shutdown"), raw("-h"), raw("now")],
                        Some("rundll32"),
                    )?;
                } else {
                    return Ok(false);
                }
            }
            // Logging the user off ends every process of the session.
            "logoff" if lit(0) != "/?" => {
                self.emit(
                    vec![raw("loginctl"), raw("terminate-user"), raw("''")],
                    Some("logoff"),
                )?;
            }
            // Disconnecting the session (Remote Desktop): the user is locked out of it.
            "tsdiscon" if lit(0) != "/?" => {
                self.emit(vec![raw("loginctl"), raw("lock-session")], Some("tsdiscon"))?;
            }
            "netsh" => {
                let ls: Vec<String> = texts
                    .iter()
                    .map(|t| t.clone().unwrap_or_default().to_ascii_lowercase())
                    .collect();
                // `netsh interface set interface NAME disable`, `… admin=disabled`,
                // `netsh wlan disconnect`: the machine's network taken down.
                let off = ls.iter().any(|t| {
                    let v = t.rsplit('=').next().unwrap_or(t);
                    v == "disable" || v == "disabled"
                });
                let interface = ls
                    .first()
                    .is_some_and(|t| "interface".starts_with(t.as_str()));
                if (interface && off) || (lit(0) == "wlan" && lit(1) == "disconnect") {
                    self.link_down(Value::unknown("(interface)"), "netsh")?;
                } else {
                    return Ok(false);
                }
            }
            "ipconfig"
                if texts.iter().flatten().any(|t| {
                    let l = t.to_ascii_lowercase();
                    l == "/release" || l == "/release6"
                }) =>
            {
                self.emit(vec![raw("dhclient"), raw("-r")], Some("ipconfig /release"))?;
            }
            "cmdkey" => {
                let target = texts.iter().flatten().find_map(|t| {
                    let l = t.to_ascii_lowercase();
                    ["/add:", "/generic:", "/smartcard:"]
                        .iter()
                        .find(|p| l.starts_with(*p))
                        .map(|p| t[p.len()..].to_string())
                });
                match target {
                    Some(t) => self.store_credential(&t, "cmdkey /add")?,
                    None => return Ok(false),
                }
            }
            "icacls" => {
                // `icacls PATH /grant Everyone:F [/t]`: everyone may write it (`chmod 777`).
                let ls: Vec<String> = texts
                    .iter()
                    .map(|t| t.clone().unwrap_or_default().to_ascii_lowercase())
                    .collect();
                let open = ls.windows(2).any(|w| {
                    w[0].starts_with("/grant")
                        && [
                            "everyone:",
                            "*s-1-1-0:",
                            "users:",
                            "*s-1-5-32-545:",
                            "authenticated users:",
                            "*s-1-5-11:",
                        ]
                        .iter()
                        .any(|who| w[1].starts_with(who))
                        && ["f", "m", "w"].iter().any(|r| {
                            w[1].ends_with(&format!(":{r}"))
                                || w[1].contains(&format!("){r}"))
                                || w[1].ends_with(&format!("({r})"))
                        })
                });
                let Some(path) = args.first().filter(|_| open) else {
                    return Ok(false);
                };
                let path = self.path1(path);
                let mut words = vec![raw("chmod")];
                if ls.iter().any(|t| t == "/t") {
                    words.push(raw("-R"));
                }
                words.extend([raw("777"), raw("--"), W::Val(path)]);
                self.emit(words, Some("icacls"))?;
            }
            "certutil" => {
                // `certutil -urlcache [-split] -f URL FILE`, `-decode IN OUT`.
                let ls: Vec<String> = texts
                    .iter()
                    .map(|t| t.clone().unwrap_or_default().to_ascii_lowercase())
                    .collect();
                let flag = |f: &str| ls.iter().any(|t| t == f || *t == f.replacen('-', "/", 1));
                let operands: Vec<&V> = args
                    .iter()
                    .zip(&ls)
                    .filter(|(_, t)| !(t.starts_with('-') || t.starts_with('/')))
                    .map(|(a, _)| a)
                    .collect();
                if flag("-urlcache") || flag("-verifyctl") {
                    let url = operands
                        .first()
                        .map_or_else(|| Value::unknown("(url)"), |v| v.scalar());
                    let mut words = vec![raw("curl"), raw("-fsSL")];
                    if let Some(f) = operands.get(1) {
                        let f = self.path1(f);
                        self.note_download(&f);
                        words.extend([raw("-o"), W::Val(f)]);
                    }
                    words.push(W::Val(url));
                    self.emit(words, Some("certutil"))?;
                } else if flag("-decode") || flag("-decodehex") {
                    if let Some(f) = operands.get(1) {
                        let f = self.path1(f);
                        self.note_download(&f);
                        self.emit(
                            vec![raw("base64"), raw("-d"), raw(">"), W::Val(f)],
                            Some("certutil -decode"),
                        )?;
                    }
                } else {
                    return Ok(false);
                }
            }
            "bitsadmin"
                if texts
                    .iter()
                    .flatten()
                    .any(|t| t.eq_ignore_ascii_case("/transfer")) =>
            {
                // `bitsadmin /transfer NAME [/download|/upload] [/priority P] URL FILE`.
                let url_at = (0..texts.len()).find(|&i| {
                    let l = lit(i);
                    l.starts_with("http://") || l.starts_with("https://") || l.starts_with("ftp://")
                });
                let Some(u) = url_at else { return Ok(false) };
                let url = args[u].scalar();
                let file = args
                    .get(u + 1)
                    .map_or_else(|| Value::unknown("(file)"), |v| self.path1(v));
                if texts
                    .iter()
                    .flatten()
                    .any(|t| t.eq_ignore_ascii_case("/upload"))
                {
                    self.emit(
                        vec![raw("curl"), raw("-T"), W::Val(file), W::Val(url)],
                        Some("bitsadmin"),
                    )?;
                } else {
                    self.download_to(file, url, Some("bitsadmin"))?;
                }
            }
            "msiexec" | "mshta" | "regsvr32" | "cscript" | "wscript" => {
                // A program that fetches what it runs from an address
                // (`msiexec /i URL`, `mshta URL`, `regsvr32 /i:URL scrobj.dll`),
                // or runs script text given inline (`mshta vbscript:…`).
                let words: Vec<String> = args
                    .iter()
                    .flat_map(V::items)
                    .filter_map(|v| v.literal())
                    .collect();
                let url = words.iter().find_map(|w| {
                    let l = w.to_ascii_lowercase();
                    let at = l
                        .find("http://")
                        .or_else(|| l.find("https://"))
                        .or_else(|| l.find("ftp://"))?;
                    Some(w[at..].to_string())
                });
                let inline = words.iter().any(|w| {
                    let l = w.to_ascii_lowercase();
                    l.starts_with("vbscript:")
                        || l.starts_with("javascript:")
                        || l.starts_with("about:")
                });
                match (url, inline) {
                    (Some(u), _) => self.emit(
                        vec![
                            raw("curl"),
                            raw("-fsSL"),
                            W::Val(Value::text(&u)),
                            raw("|"),
                            raw("pwsh"),
                        ],
                        Some(lower),
                    )?,
                    (None, true) => self.runner("eval", Code::Dynamic, lower)?,
                    _ => return Ok(false),
                }
            }
            "mofcomp"
                if !texts
                    .iter()
                    .flatten()
                    .any(|t| t == "/?" || t.eq_ignore_ascii_case("-check")) =>
            {
                // A MOF file registers WMI classes and instances: the event
                // subscriptions that run commands at every boot among them.
                self.emit(vec![raw("crontab"), raw("-")], Some("mofcomp"))?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// `taskkill /fi "IMAGENAME eq x"` is `pkill -x x`, `/fi "USERNAME eq u"`
    /// `pkill -u u`, `/fi "PID eq n"` `kill n`; a filter by window title,
    /// module or service names its processes; any other (`STATUS eq
    /// RUNNING`, `MEMUSAGE gt 0`) selects processes wholesale: every one.
    fn taskkill_filters(&mut self, filters: &[String]) -> R<()> {
        let mut narrow = false;
        for f in filters {
            let parts: Vec<&str> = f.split_whitespace().collect();
            let (key, op, value) = match parts.as_slice() {
                [k, o, rest @ ..] => (
                    k.to_ascii_lowercase(),
                    o.to_ascii_lowercase(),
                    rest.join(" "),
                ),
                _ => continue,
            };
            if op != "eq" {
                continue;
            }
            match key.as_str() {
                "imagename" => {
                    self.kill_named(&Value::text(&value), "taskkill")?;
                    narrow = true;
                }
                "pid" => {
                    let pid = windows_pid(&Value::text(&value));
                    self.emit(vec![raw("kill"), raw("-9"), W::Val(pid)], Some("taskkill"))?;
                    narrow = true;
                }
                "username" => {
                    self.emit(
                        vec![raw("pkill"), raw("-u"), W::Val(Value::text(&value))],
                        Some("taskkill"),
                    )?;
                    narrow = true;
                }
                "windowtitle" | "modules" | "services" => narrow = true,
                _ => {}
            }
        }
        if !narrow {
            self.emit(vec![raw("kill"), raw("-9"), raw("-1")], Some("taskkill"))?;
        }
        Ok(())
    }

    /// `wmic [/namespace:NS] ALIAS|path CLASS [where CLAUSE] call METHOD [ARGS] | delete | create …`.
    fn wmic(&mut self, texts: &[Option<String>]) -> R<()> {
        let words: Vec<String> = texts
            .iter()
            .map(|t| t.clone().unwrap_or_default())
            .collect();
        let mut ns = String::new();
        let mut k = 0;
        while let Some(w) = words.get(k).filter(|w| w.starts_with('/')) {
            if let Some(v) = w.to_ascii_lowercase().strip_prefix("/namespace:") {
                ns = v.to_string();
            }
            k += 1;
        }
        let alias = words
            .get(k)
            .map(|w| w.to_ascii_lowercase())
            .unwrap_or_default();
        let class = match alias.as_str() {
            "os" => "win32_operatingsystem".to_string(),
            "process" => "win32_process".to_string(),
            "service" => "win32_service".to_string(),
            "shadowcopy" => "win32_shadowcopy".to_string(),
            "nic" => "win32_networkadapter".to_string(),
            "path" | "class" => {
                k += 1;
                words
                    .get(k)
                    .map(|w| w.to_ascii_lowercase())
                    .unwrap_or_default()
            }
            other => other.to_string(),
        };
        k += 1;
        let mut filter = None;
        if words
            .get(k)
            .is_some_and(|w| w.eq_ignore_ascii_case("where"))
        {
            filter = words.get(k + 1).cloned();
            k += 2;
        } else if let Some(w) = words.get(k).filter(|w| {
            !matches!(
                w.to_ascii_lowercase().as_str(),
                "call" | "delete" | "create" | "get" | "list" | "set"
            )
        }) {
            // `wmic service NAME call …`, `wmic process NAME delete`
            filter = Some(format!("name='{w}'"));
            k += 1;
        }
        let verb = words
            .get(k)
            .map(|w| w.to_ascii_lowercase())
            .unwrap_or_default();
        if subscription(&ns, &class) && verb == "create" {
            return self.emit(vec![raw("crontab"), raw("-")], Some("wmic"));
        }
        let (method, rest) = match verb.as_str() {
            "call" => (
                words
                    .get(k + 1)
                    .map(|w| w.to_ascii_lowercase())
                    .unwrap_or_default(),
                words.get(k + 2..).unwrap_or_default().to_vec(),
            ),
            "delete" if class == "win32_process" => ("terminate".to_string(), vec![]),
            "delete" if class == "win32_service" || class == "win32_shadowcopy" => {
                ("delete".to_string(), vec![])
            }
            _ => return Ok(()),
        };
        let args: Vec<V> = rest.iter().map(|r| V::text(r.trim_matches(','))).collect();
        self.wmi_method(&class, filter.as_deref(), &method, &args)
    }
}

/// A file's name without its folders and extension, lowercase (`.\bin\a.exe` is `a`).
fn stem(path: &str) -> String {
    let name = path
        .rsplit(['\\', '/'])
        .next()
        .unwrap_or(path)
        .to_ascii_lowercase();
    match name.rsplit_once('.') {
        Some((s, _)) if !s.is_empty() => s.to_string(),
        _ => name,
    }
}

/// A WMI event subscription: an instance in `root\subscription`, or one of
/// its classes.
fn subscription(namespace: &str, class: &str) -> bool {
    let ns = namespace.to_ascii_lowercase();
    let class = class.to_ascii_lowercase();
    ns.contains("subscription")
        || matches!(
            class.as_str(),
            "__eventfilter"
                | "__filtertoconsumerbinding"
                | "commandlineeventconsumer"
                | "activescripteventconsumer"
        )
}

/// The class a WQL query reads (`SELECT * FROM Win32_Process WHERE …`).
fn query_class(q: &str) -> Option<String> {
    let l = q.to_ascii_lowercase();
    let i = l.find(" from ")?;
    l[i + 6..].split_whitespace().next().map(str::to_string)
}

/// The name a WQL filter selects (`Name='lsass.exe'`, `name = "WinRM"`).
fn filter_name(filter: &str) -> Option<String> {
    let l = filter.to_ascii_lowercase();
    let i = l.find("name")?;
    let rest = l[i + 4..].trim_start();
    let rest = rest
        .strip_prefix('=')
        .or_else(|| rest.strip_prefix("like"))?
        .trim_start();
    let Some(q) = rest.chars().next().filter(|c| *c == '\'' || *c == '"') else {
        // PowerShell removed the quotes (`wmic process where name='lsass.exe'`
        // is one argument `name=lsass.exe`): the name runs to a space.
        let name = rest.split_whitespace().next()?;
        return (!name.is_empty()).then(|| name.replace('%', "*"));
    };
    let body = &rest[1..];
    let end = body.find(q)?;
    Some(body[..end].replace('%', "*"))
}

/// The registry place a Defender preference writes, when it weakens the
/// protection (`-ExclusionPath`, `-ControlledFolderAccessAllowedApplications`,
/// `-DisableRealtimeMonitoring $true`,
/// `-EnableControlledFolderAccess Disabled`, a threat action `Allow`).
fn defender_setting(name: &str, v: &V) -> Option<String> {
    let value = v.literal().map(|t| t.to_ascii_lowercase());
    let off = value
        .as_deref()
        .is_none_or(|t| matches!(t, "false" | "0" | "disabled" | "auditmode" | "off"));
    let on = value.as_deref().is_none_or(|t| !matches!(t, "false" | "0"));
    // Every parameter of Add-/Set-MpPreference that starts `-Ex` is an
    // exclusion; so are the attack surface rules' exclusions and the
    // applications let past Controlled Folder Access.
    if name.starts_with("ex") || name.contains("exclusion") || name.contains("allowedapplication") {
        return Some(format!("exclusions/{name}"));
    }
    if name.starts_with("disable") && on {
        return Some(format!("real-time protection/{name}"));
    }
    if (name.starts_with("enable")
        || name == "puaprotection"
        || name.starts_with("maps")
        || name == "submitsamplesconsent")
        && off
    {
        return Some(format!("features/{name}"));
    }
    if name.contains("defaultaction") || name.contains("threatidaction") {
        let allow = value
            .as_deref()
            .is_none_or(|t| matches!(t, "allow" | "noaction" | "6" | "9" | "userdefined" | "8"));
        return allow.then(|| format!("threats/{name}"));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{filter_name, query_class, subscription};

    #[test]
    fn reads_wql_filters_and_queries() {
        assert_eq!(
            filter_name("Name='lsass.exe'").as_deref(),
            Some("lsass.exe")
        );
        assert_eq!(filter_name("name = \"WinRM\"").as_deref(), Some("winrm"));
        assert_eq!(filter_name("Name like 'svc%'").as_deref(), Some("svc*"));
        assert_eq!(filter_name("ProcessId=4"), None);
        assert_eq!(
            query_class("SELECT * FROM Win32_Process WHERE Name='x'").as_deref(),
            Some("win32_process")
        );
        assert!(subscription(r"root\subscription", "x"));
        assert!(subscription("", "CommandLineEventConsumer"));
        assert!(!subscription(r"root\cimv2", "Win32_Process"));
    }
}
