//! Which processes or services a `Where-Object` keeps, read from its script
//! block (`{ $_.Name -in 'csrss','lsass' }`, `{ ($_.Name -like 'w*') -and
//! ($_.Id -ne $PID) }`) or its simplified form (`Where-Object Name -like
//! Win*`).
//!
//! A filter narrows only where it can be shown to: to a few items named
//! (compared by name with `-eq`, `-like`, `-in`, `-contains`, a plain
//! `-match`), or to some items that are none of Windows' own (by a process
//! id, or a program path outside Windows' folders). Any other filter
//! (`-ne`, `-notlike`, `-not`, a status, a number, anything unread) may keep
//! every item, so for a rule about every process or service it is every one:
//! everything but the agent's own shell (`$_.Id -ne $PID`) is everything.
//!
//! PowerShell's precedence (about_Operator_Precedence): `,` binds tighter
//! than the comparison operators, which bind tighter than `-and`, `-or` and
//! `-xor` (equal among themselves, left to right). The parser reads binary
//! operators left to right, so an expression is flattened here and grouped
//! again by that order.

use super::*;

/// What the filtered items are: their names are compared as such.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Of {
    Processes,
    Services,
    /// Any cmdlet's objects (`Get-ScheduledTask`): a comparison of a name-like
    /// property with `-eq`, `-like`, `-in`, `-contains` or `-match` keeps the
    /// ones it names (`{ $_.TaskName -like '*Defender*' }`).
    Objects,
}

/// What a filter keeps.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Kept {
    /// The items whose name matches one of these PowerShell wildcards.
    Named(Vec<String>),
    /// Some items, none of them Windows' own.
    Some,
    /// Not shown to narrow: every item, as far as a rule about every item goes.
    Every,
}

/// What the bound `Where-Object` keeps of processes, services or other objects.
pub(super) fn kept(b: &Bound, of: Of) -> Kept {
    let Some(filter) = b.get("FilterScript") else {
        return Kept::Every;
    };
    if let Val::Block(stmts) = &filter.val {
        let [Stmt::Chain(c)] = stmts.as_slice() else {
            return Kept::Every;
        };
        let [p] = c.pipelines.as_slice() else {
            return Kept::Every;
        };
        let [Elem::Expr(e, _)] = p.elems.as_slice() else {
            return Kept::Every;
        };
        return expression(e, of);
    }
    // The simplified form: `Where-Object Name -EQ lsass` (the property is
    // the first argument, the operator a switch, the value `-Value`).
    let (Some(prop), [op]) = (filter.literal(), b.unknown.as_slice()) else {
        return Kept::Every;
    };
    let values: Option<Vec<String>> = b
        .get("Value")
        .map(|v| v.items().iter().map(Value::literal).collect())
        .unwrap_or(None);
    let Some(values) = values else {
        return Kept::Every;
    };
    let prop = prop.to_ascii_lowercase();
    let op = op.trim_start_matches('-').to_ascii_lowercase();
    let Some(op) = comparison(&op) else {
        return Kept::Every;
    };
    // `Where-Object Name -In a, b`; for `-Contains` the property holds the
    // collection, which no property here is.
    if op == "contains" || op == "notcontains" {
        return Kept::Every;
    }
    by_property(&prop, op, &values, of)
}

/// The comparison operator without its case prefix (`ilike` is `like`);
/// `-replace` and `-split` make values, they compare nothing.
fn comparison(op: &str) -> Option<&'static str> {
    crate::shell::powershell::syntax::comparison_operator(op)
        .filter(|o| !matches!(*o, "replace" | "split"))
}

/// What a filter expression keeps.
fn expression(e: &Expr, of: Of) -> Kept {
    let (mut operands, mut ops) = (vec![], vec![]);
    flat(e, &mut operands, &mut ops);
    // Split at the logical operators; each piece is one comparison.
    let mut kept: Option<Kept> = None;
    let mut joined: Option<&str> = None;
    let (mut piece, mut piece_ops) = (vec![operands[0]], vec![]);
    for (k, op) in ops.iter().enumerate() {
        if matches!(*op, "and" | "or" | "xor") {
            let this = comparison_of(&piece, &piece_ops, of);
            kept = Some(combine(kept, joined, this));
            joined = Some(op);
            piece = vec![operands[k + 1]];
            piece_ops.clear();
        } else {
            piece_ops.push(*op);
            piece.push(operands[k + 1]);
        }
    }
    let this = comparison_of(&piece, &piece_ops, of);
    combine(kept, joined, this)
}

/// `a op b op c` read left to right into its operands and operators.
fn flat<'e>(e: &'e Expr, operands: &mut Vec<&'e Expr>, ops: &mut Vec<&'e str>) {
    match e {
        Expr::Binary(op, l, r) => {
            flat(l, operands, ops);
            ops.push(op);
            operands.push(r);
        }
        e => operands.push(e),
    }
}

/// Two filters joined by a logical operator.
fn combine(left: Option<Kept>, op: Option<&str>, right: Kept) -> Kept {
    let Some(left) = left else {
        return right;
    };
    match (op, left, right) {
        (Some("or"), Kept::Named(mut a), Kept::Named(b)) => {
            a.extend(b);
            Kept::Named(a)
        }
        (Some("or"), Kept::Named(a), Kept::Some) | (Some("or"), Kept::Some, Kept::Named(a)) => {
            Kept::Named(a)
        }
        (Some("or"), Kept::Some, Kept::Some) => Kept::Some,
        // Both must hold: the narrower side bounds what is kept.
        (Some("and"), Kept::Every, k) | (Some("and"), k, Kept::Every) => k,
        (Some("and"), Kept::Some, _) | (Some("and"), _, Kept::Some) => Kept::Some,
        (Some("and"), Kept::Named(a), Kept::Named(b)) => {
            // Either side bounds it; a side without wildcards names fewer.
            let plain = |n: &[String]| n.iter().all(|t| !t.contains(['*', '?', '[']));
            Kept::Named(if plain(&a) || !plain(&b) { a } else { b })
        }
        _ => Kept::Every,
    }
}

/// One comparison (`$_.Name -in 'a', 'b'`), or a parenthesised filter.
fn comparison_of(operands: &[&Expr], ops: &[&str], of: Of) -> Kept {
    if let ([one], []) = (operands, ops) {
        return match one {
            Expr::Paren(s) => match s.as_ref() {
                Stmt::Chain(c) => match c.pipelines.as_slice() {
                    [p] => match p.elems.as_slice() {
                        [Elem::Expr(e, _)] => expression(e, of),
                        _ => Kept::Every,
                    },
                    _ => Kept::Every,
                },
                _ => Kept::Every,
            },
            _ => Kept::Every,
        };
    }
    // Group the comma-joined operands into lists: `'a','b' -contains $_.Name`.
    let mut terms: Vec<Vec<&Expr>> = vec![vec![operands[0]]];
    let mut cmp = vec![];
    for (k, op) in ops.iter().enumerate() {
        if *op == "," {
            if let Some(t) = terms.last_mut() {
                t.push(operands[k + 1]);
            }
        } else {
            cmp.push(*op);
            terms.push(vec![operands[k + 1]]);
        }
    }
    let ([left, right], [op]) = (terms.as_slice(), cmp.as_slice()) else {
        return Kept::Every;
    };
    let Some(op) = comparison(op) else {
        return Kept::Every;
    };
    // The property is on the left, but for `-contains` (and a value first).
    let (prop, value) = match (property(left), property(right)) {
        (Some(p), None) if op != "contains" && op != "notcontains" => (p, right),
        (None, Some(p)) if op != "in" && op != "notin" => (p, left),
        _ => return Kept::Every,
    };
    let Some(values) = texts(value) else {
        return Kept::Every;
    };
    by_property(&prop, op, &values, of)
}

/// `$_.Name`, `$PSItem.MainModule.FileName`: the property, lowercase.
fn property(term: &[&Expr]) -> Option<String> {
    fn path(e: &Expr) -> Option<String> {
        match e {
            Expr::Member {
                target,
                name,
                args: None,
            } => match target.as_ref() {
                Expr::Var(v) if v.eq_ignore_ascii_case("_") || v.eq_ignore_ascii_case("psitem") => {
                    Some(name.to_ascii_lowercase())
                }
                t => path(t).map(|p| format!("{p}.{}", name.to_ascii_lowercase())),
            },
            _ => None,
        }
    }
    match term {
        [one] => path(one),
        _ => None,
    }
}

/// The texts a value term holds (`'a'`, `'a','b'`, `@('a','b')`, `"$PWD\*"`
/// with `$PWD` as the marker `\u{E000}pwd`), or `None` when any is not known.
fn texts(term: &[&Expr]) -> Option<Vec<String>> {
    let mut out = vec![];
    for e in term {
        match e {
            Expr::Array(items) => {
                for i in items {
                    out.extend(texts(&[i])?);
                }
            }
            Expr::Sub(stmts) => {
                let [Stmt::Chain(c)] = stmts.as_slice() else {
                    return None;
                };
                let [p] = c.pipelines.as_slice() else {
                    return None;
                };
                let [Elem::Expr(inner, _)] = p.elems.as_slice() else {
                    return None;
                };
                let (mut operands, mut ops) = (vec![], vec![]);
                flat(inner, &mut operands, &mut ops);
                if ops.iter().any(|o| *o != ",") {
                    return None;
                }
                out.extend(texts(&operands)?);
            }
            Expr::Num(n) => out.push(n.clone()),
            Expr::Word(parts) => {
                let mut t = String::new();
                for p in parts {
                    match p {
                        Part::Text { text, .. } => t.push_str(text),
                        Part::Var(v) if v.eq_ignore_ascii_case("pwd") => t.push_str(PWD),
                        _ => return None,
                    }
                }
                out.push(t);
            }
            Expr::Var(v) if v.eq_ignore_ascii_case("pwd") => out.push(PWD.into()),
            _ => return None,
        }
    }
    Some(out)
}

/// `$PWD` inside a compared text: the working folder, none of Windows' own.
const PWD: &str = "\u{E000}pwd";

/// Does this property (lowercase) name the object it belongs to? A service
/// by its name or display name, a process by its name, any cmdlet's object
/// by a name-like property (`TaskName`, `TaskPath`, `DisplayName`, `Id`;
/// `State` names none). What a filter on it keeps, and what the property
/// read from one of the objects stands for (`$_.Name`).
pub(super) fn names_it(prop: &str, of: Of) -> bool {
    match of {
        Of::Services => matches!(prop, "name" | "servicename" | "displayname"),
        Of::Processes => matches!(prop, "name" | "processname"),
        Of::Objects => prop.ends_with("name") || prop.ends_with("path") || prop == "id",
    }
}

/// What a comparison of this property keeps.
fn by_property(prop: &str, op: &str, values: &[String], of: Of) -> Kept {
    if names_it(prop, of) {
        return match op {
            "eq" | "like" | "in" | "contains" => Kept::Named(values.to_vec()),
            "match" => values
                .iter()
                .map(|v| regex_names(v))
                .collect::<Option<Vec<Vec<String>>>>()
                .map_or(Kept::Every, |n| Kept::Named(n.concat())),
            _ => Kept::Every,
        };
    }
    let keeps_one = matches!(op, "eq" | "like" | "match" | "in" | "contains");
    match prop {
        // Ids: a few processes, unless one is the System process (4) or the
        // idle one (0). The agent's own (`$PID`) is no text, so every one.
        "id" | "processid" if of == Of::Processes && keeps_one => {
            let few = values
                .iter()
                .all(|v| v.parse::<u32>().is_ok_and(|n| n != 0 && n != 4));
            if few {
                Kept::Some
            } else {
                Kept::Every
            }
        }
        "path" | "mainmodule.filename" | "commandline" | "binarypathname" | "pathname"
            if keeps_one && values.iter().all(|v| outside_windows(v)) =>
        {
            Kept::Some
        }
        _ => Kept::Every,
    }
}

/// The names a `-match` pattern keeps as wildcards: `lsass` is `*lsass*`,
/// `^(lsass|csrss)$` is `lsass` and `csrss`. `None` for any other pattern.
fn regex_names(pattern: &str) -> Option<Vec<String>> {
    let (start, rest) = match pattern.strip_prefix('^') {
        Some(r) => (true, r),
        None => (false, pattern),
    };
    let (end, rest) = match rest.strip_suffix('$') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let rest = rest
        .strip_prefix('(')
        .and_then(|r| r.strip_suffix(')'))
        .unwrap_or(rest);
    let plain = |n: &str| {
        !n.is_empty()
            && n.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    };
    rest.split('|')
        .map(|n| {
            plain(n).then(|| {
                format!(
                    "{}{n}{}",
                    if start { "" } else { "*" },
                    if end { "" } else { "*" }
                )
            })
        })
        .collect()
}

/// Does this path pattern name a place outside Windows' own folders: some
/// folder besides a drive, none of Windows', Program Files, ProgramData
/// (`$PWD\*`, `*\myproj\*`)?
fn outside_windows(pattern: &str) -> bool {
    let lower = pattern.to_ascii_lowercase();
    let parts: Vec<&str> = lower
        .split(['\\', '/'])
        .map(|p| p.trim_matches(['*', '?']))
        .filter(|p| {
            let drive = p.len() == 2 && p.ends_with(':');
            !p.is_empty() && !drive
        })
        .collect();
    let windows = |p: &str| {
        p.contains("windows")
            || p.contains("system32")
            || p.contains("syswow64")
            || p.starts_with("program")
            || p.contains("microsoft")
    };
    parts.iter().any(|p| p.len() >= 2 || *p == PWD) && !parts.iter().any(|p| windows(p))
}

/// Windows' own services (their service names), for a wildcard given to
/// `Get-Service`, `Stop-Service` or a filter (`Win*` is WinDefend, WinRM,
/// Winmgmt, …): as with processes, the pattern stands for each it matches.
const WINDOWS_SERVICES: &[&str] = &[
    "AppInfo",
    "AppXSvc",
    "AudioEndpointBuilder",
    "Audiosrv",
    "BFE",
    "BITS",
    "BrokerInfrastructure",
    "CoreMessagingRegistrar",
    "CryptSvc",
    "DcomLaunch",
    "Dhcp",
    "DispBrokerDesktopSvc",
    "Dnscache",
    "DPS",
    "EventLog",
    "EventSystem",
    "FontCache",
    "gpsvc",
    "iphlpsvc",
    "KeyIso",
    "LanmanServer",
    "LanmanWorkstation",
    "LSM",
    "mpssvc",
    "msiserver",
    "Netlogon",
    "Netman",
    "netprofm",
    "NlaSvc",
    "nsi",
    "PlugPlay",
    "Power",
    "ProfSvc",
    "RpcEptMapper",
    "RpcSs",
    "SamSs",
    "Schedule",
    "SecurityHealthService",
    "Sense",
    "SENS",
    "ShellHWDetection",
    "Spooler",
    "ssh-agent",
    "sshd",
    "StateRepository",
    "StorSvc",
    "SysMain",
    "SystemEventsBroker",
    "TermService",
    "Themes",
    "TimeBrokerSvc",
    "TokenBroker",
    "TrustedInstaller",
    "UmRdpService",
    "UserManager",
    "UsoSvc",
    "VaultSvc",
    "W32Time",
    "WaaSMedicSvc",
    "Wcmsvc",
    "WdBoot",
    "WdFilter",
    "WdNisSvc",
    "WerSvc",
    "WinDefend",
    "WinHttpAutoProxySvc",
    "Winmgmt",
    "WinRM",
    "WlanSvc",
    "WpnService",
    "wscsvc",
    "WSearch",
    "wuauserv",
];

/// The display names of Windows' own services that matter to the machine
/// (`Get-Service | Where-Object DisplayName -like 'Windows Defender*'`).
const WINDOWS_SERVICE_DISPLAY_NAMES: &[&str] = &[
    "Background Intelligent Transfer Service",
    "Base Filtering Engine",
    "Cryptographic Services",
    "DHCP Client",
    "DNS Client",
    "Microsoft Defender Antivirus Service",
    "Microsoft Defender Antivirus Network Inspection Service",
    "Netlogon",
    "Network List Service",
    "Network Location Awareness",
    "Network Store Interface Service",
    "OpenSSH Authentication Agent",
    "OpenSSH SSH Server",
    "Print Spooler",
    "Remote Desktop Services",
    "Remote Desktop Services UserMode Port Redirector",
    "Remote Procedure Call (RPC)",
    "Remote Procedure Call (RPC) Locator",
    "Security Accounts Manager",
    "Security Center",
    "Server",
    "Task Scheduler",
    "User Profile Service",
    "Windows Defender Antivirus Service",
    "Windows Defender Firewall",
    "Windows Event Log",
    "Windows Firewall",
    "Windows Management Instrumentation",
    "Windows Remote Management (WS-Management)",
    "Windows Search",
    "Windows Security Service",
    "Windows Update",
    "Workstation",
];

/// A service name as `systemctl` operands: itself, and for a wildcard each of
/// Windows' own services it matches, by name or display name.
pub(super) fn service_names(v: &Value) -> Vec<Value> {
    let mut out = vec![v.clone()];
    for s in &v.0 {
        if let Some(t) = Value::one(s.clone()).literal() {
            let t = t.to_ascii_lowercase();
            if t.contains(['*', '?', '[']) {
                out.extend(
                    WINDOWS_SERVICES
                        .iter()
                        .chain(WINDOWS_SERVICE_DISPLAY_NAMES)
                        .filter(|n| wildcard(&t, &n.to_ascii_lowercase()))
                        .map(|n| Value::text(n)),
                );
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(src: &str, services: bool) -> Kept {
        let stmts = syntax::parse(src).expect("parses");
        let [Stmt::Chain(c)] = stmts.as_slice() else {
            panic!("one chain: {src}")
        };
        let [Elem::Expr(e, _)] = c.pipelines[0].elems.as_slice() else {
            panic!("an expression: {src}")
        };
        expression(
            e,
            if services {
                Of::Services
            } else {
                Of::Processes
            },
        )
    }

    #[test]
    fn filters_narrow_only_where_shown() {
        let named = |n: &[&str]| Kept::Named(n.iter().map(|s| (*s).to_string()).collect());
        for (src, services, want) in [
            ("$_.Name -eq 'lsass'", false, named(&["lsass"])),
            (
                "$_.Name -in 'csrss','lsass'",
                false,
                named(&["csrss", "lsass"]),
            ),
            (
                "'lsass','wininit' -contains $_.Name",
                false,
                named(&["lsass", "wininit"]),
            ),
            ("$_.Name -in @('a', 'b')", false, named(&["a", "b"])),
            (
                "$_.Name -like 'w*' -and $_.Id -ne $PID",
                false,
                named(&["w*"]),
            ),
            (
                "($_.ProcessName -eq 'lsass') -or ($_.ProcessName -eq 'node')",
                false,
                named(&["lsass", "node"]),
            ),
            (
                "$_.Name -match '^(lsass|csrss)$'",
                false,
                named(&["lsass", "csrss"]),
            ),
            ("$_.Name -cmatch 'sql'", true, named(&["*sql*"])),
            (
                "$_.DisplayName -like 'Windows Defender*'",
                true,
                named(&["Windows Defender*"]),
            ),
            ("$_.Id -ne $PID", false, Kept::Every),
            ("$_.Name -ne 'node'", false, Kept::Every),
            ("-not ($_.Name -eq 'node')", false, Kept::Every),
            ("$_.Status -eq 'Running'", true, Kept::Every),
            ("$_.CPU -gt 100", false, Kept::Every),
            ("$_.Name -match 'a.*b'", false, Kept::Every),
            ("$_.Name -eq 'node' -or $_.CPU -gt 1", false, Kept::Every),
            ("$_.Id -eq 1234", false, Kept::Some),
            ("$_.Id -eq 4", false, Kept::Every),
            ("$_.Path -like \"$PWD\\*\"", false, Kept::Some),
            ("$_.Path -like '*\\myproj\\*'", false, Kept::Some),
            ("$_.Path -like 'C:\\Windows\\*'", false, Kept::Every),
            ("$_.Path -like 'C:\\*'", false, Kept::Every),
            (
                "$_.Name -eq 'node' -and $_.Path -like \"$PWD*\"",
                false,
                Kept::Some,
            ),
        ] {
            assert_eq!(block(src, services), want, "{src}");
        }
    }

    #[test]
    fn wildcard_services_stand_for_windows_own() {
        let names: Vec<String> = service_names(&Value::text("Win*"))
            .iter()
            .filter_map(Value::literal)
            .collect();
        assert!(names.contains(&"WinDefend".to_string()) && names.contains(&"Win*".to_string()));
        assert_eq!(service_names(&Value::text("MyApp")).len(), 1);
    }
}
