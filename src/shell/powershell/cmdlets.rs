//! The cmdlets the analysis knows: their names, their aliases, their
//! parameters (for PowerShell's own binding: case-insensitive names, unique
//! prefixes, aliases, positions) and the canonical action each amounts to.
//!
//! The table is data, kept here rather than in the pack, because an action is
//! not a name: `Remove-Item -Recurse ~` becomes the object `rm -r ~` that every
//! rule already judges, which takes the binding rules below (a parameter given
//! by position, by a prefix, through splatting or pipeline input) that a list
//! of names in a policy cannot express. A rule that wants the cmdlet itself
//! finds it in `program_path` (see the module documentation).
//!
//! Names, aliases and parameters are those of PowerShell 7.4 and Windows
//! PowerShell 5.1 (learn.microsoft.com, each cmdlet's reference page, and
//! `about_Aliases` for the built-in aliases; `curl`, `wget`, `sc` are aliases
//! only in Windows PowerShell 5.1, and are taken as the cmdlet there and as
//! the program elsewhere, whichever is worse).

/// What a parameter takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    /// A switch: present or `-Name:$false`.
    Switch,
    /// A value.
    Value,
    /// A path with wildcards (`-Path`).
    Path,
    /// A path taken as written (`-LiteralPath`).
    Literal,
}

/// A parameter: name, aliases, what it takes, position.
#[derive(Debug, Clone, Copy)]
pub(super) struct Param {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub kind: Kind,
    pub position: Option<u8>,
}

const fn p(name: &'static str, kind: Kind, position: Option<u8>) -> Param {
    Param {
        name,
        aliases: &[],
        kind,
        position,
    }
}

const fn pa(
    name: &'static str,
    aliases: &'static [&'static str],
    kind: Kind,
    position: Option<u8>,
) -> Param {
    Param {
        name,
        aliases,
        kind,
        position,
    }
}

use Kind::{Literal, Path, Switch, Value};

/// The canonical action of a cmdlet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Action {
    /// `rm [-r] [-f]`.
    Delete,
    /// `cp [-r]`.
    Copy,
    /// `mv`.
    Move,
    /// `mv P dir(P)/NewName`.
    Rename,
    /// `cat`.
    Read,
    /// `grep PATTERN FILES`.
    Search,
    /// `xxd` (prints a file's bytes).
    Hex,
    /// `> FILE` (or `>>` with `-Append`; Add-Content appends).
    Write { append: bool },
    /// `truncate -s 0`.
    Clear,
    /// New-Item: a folder (`mkdir -p`), a file (`touch`, `>` with -Force or
    /// -Value), a link (`ln -s`).
    NewItem,
    /// `echo` (output, data only).
    Echo,
    /// `ls` (output: the items in the folder).
    List,
    /// `stat` (output: the item).
    Item,
    /// `test -e`.
    Test,
    /// `realpath` (output: the path).
    Resolve,
    /// Join-Path (output: the joined path).
    Join,
    /// Split-Path (output: the parent or the leaf).
    Split,
    /// Get-Location (output: the working folder).
    Location,
    /// Set-Location / Push-Location: moves later commands.
    SetLocation,
    /// Pop-Location.
    PopLocation,
    /// `curl URL [-o FILE]` (output: the download).
    Download,
    /// Runs code given as text (Invoke-Expression).
    Eval,
    /// Runs a script block (or a file) here or on another machine.
    InvokeCommand,
    /// Starts a program (Start-Process).
    StartProcess,
    /// Runs a script block per input item (ForEach-Object, Where-Object, jobs).
    PerItem,
    /// `shutdown -h now`.
    PowerOff,
    /// `reboot`.
    Reboot,
    /// `kill` / `pkill`.
    Kill,
    /// A scheduled job (`crontab -`).
    Schedule,
    /// A service that starts by itself (`systemctl enable NAME`); Stop-Service
    /// is `systemctl stop NAME`.
    Service,
    /// `systemctl stop NAME`.
    StopService,
    /// A registry value (`> /registry/…/NAME`).
    RegistryWrite,
    /// Format-Volume: `mkfs DEVICE`.
    Format,
    /// Clear-Disk: `wipefs -a DEVICE`.
    Wipe,
    /// Partition tables (`sfdisk DEVICE`).
    Partition,
    /// Sets a variable (Set-Variable, New-Variable).
    SetVariable,
}

/// A known cmdlet.
#[derive(Debug)]
pub(super) struct Cmdlet {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub params: &'static [Param],
    pub action: Action,
}

const fn c(
    name: &'static str,
    aliases: &'static [&'static str],
    params: &'static [Param],
    action: Action,
) -> Cmdlet {
    Cmdlet {
        name,
        aliases,
        params,
        action,
    }
}

/// The common parameters every advanced cmdlet has (`about_CommonParameters`),
/// with `-WhatIf` and `-Confirm`: they take part in prefix matching.
pub(super) const COMMON: &[Param] = &[
    pa("Verbose", &["vb"], Switch, None),
    pa("Debug", &["db"], Switch, None),
    pa("ErrorAction", &["ea"], Value, None),
    pa("WarningAction", &["wa"], Value, None),
    pa("InformationAction", &["infa"], Value, None),
    pa("ProgressAction", &["proga"], Value, None),
    pa("ErrorVariable", &["ev"], Value, None),
    pa("WarningVariable", &["wv"], Value, None),
    pa("InformationVariable", &["iv"], Value, None),
    pa("OutVariable", &["ov"], Value, None),
    pa("OutBuffer", &["ob"], Value, None),
    pa("PipelineVariable", &["pv"], Value, None),
    pa("WhatIf", &["wi"], Switch, None),
    pa("Confirm", &["cf"], Switch, None),
];

const PATHS: [Param; 2] = [
    p("Path", Path, Some(0)),
    pa("LiteralPath", &["PSPath", "LP"], Literal, None),
];

const FILTERS: [Param; 3] = [
    p("Filter", Value, None),
    p("Include", Value, None),
    p("Exclude", Value, None),
];

/// Every known cmdlet.
pub(super) const CMDLETS: &[Cmdlet] = &[
    c(
        "Remove-Item",
        &["ri", "rm", "rmdir", "del", "erase", "rd"],
        &[
            PATHS[0],
            PATHS[1],
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Recurse", Switch, None),
            p("Force", Switch, None),
            p("Credential", Value, None),
            p("Stream", Value, None),
        ],
        Action::Delete,
    ),
    c(
        "Copy-Item",
        &["cpi", "cp", "copy"],
        &[
            PATHS[0],
            PATHS[1],
            p("Destination", Path, Some(1)),
            p("Container", Switch, None),
            p("Recurse", Switch, None),
            p("Force", Switch, None),
            p("PassThru", Switch, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
            p("FromSession", Value, None),
            p("ToSession", Value, None),
        ],
        Action::Copy,
    ),
    c(
        "Move-Item",
        &["mi", "mv", "move"],
        &[
            PATHS[0],
            PATHS[1],
            p("Destination", Path, Some(1)),
            p("Force", Switch, None),
            p("PassThru", Switch, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
        ],
        Action::Move,
    ),
    c(
        "Rename-Item",
        &["rni", "ren"],
        &[
            PATHS[0],
            PATHS[1],
            p("NewName", Value, Some(1)),
            p("Force", Switch, None),
            p("PassThru", Switch, None),
            p("Credential", Value, None),
        ],
        Action::Rename,
    ),
    c(
        "Get-Content",
        &["gc", "cat", "type"],
        &[
            PATHS[0],
            PATHS[1],
            pa("TotalCount", &["First", "Head"], Value, None),
            pa("Tail", &["Last"], Value, None),
            p("ReadCount", Value, None),
            p("Raw", Switch, None),
            p("Encoding", Value, None),
            p("Wait", Switch, None),
            p("Delimiter", Value, None),
            p("AsByteStream", Switch, None),
            p("Stream", Value, None),
            p("Force", Switch, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
        ],
        Action::Read,
    ),
    c(
        "Import-Csv",
        &["ipcsv"],
        &[
            PATHS[0],
            PATHS[1],
            p("Delimiter", Value, Some(1)),
            p("Header", Value, None),
            p("Encoding", Value, None),
        ],
        Action::Read,
    ),
    c("Import-Clixml", &[], &[PATHS[0], PATHS[1]], Action::Read),
    c(
        "Import-PowerShellDataFile",
        &[],
        &[PATHS[0], PATHS[1]],
        Action::Read,
    ),
    c(
        "Select-String",
        &["sls"],
        &[
            p("Pattern", Value, Some(0)),
            p("Path", Path, Some(1)),
            pa("LiteralPath", &["PSPath", "LP"], Literal, None),
            p("InputObject", Value, None),
            p("SimpleMatch", Switch, None),
            p("CaseSensitive", Switch, None),
            p("Quiet", Switch, None),
            p("List", Switch, None),
            p("NoEmphasis", Switch, None),
            FILTERS[1],
            FILTERS[2],
            p("NotMatch", Switch, None),
            p("AllMatches", Switch, None),
            p("Encoding", Value, None),
            p("Context", Value, None),
            p("Raw", Switch, None),
        ],
        Action::Search,
    ),
    c(
        "Format-Hex",
        &["fhx"],
        &[
            PATHS[0],
            PATHS[1],
            p("InputObject", Value, None),
            p("Encoding", Value, None),
            p("Count", Value, None),
            p("Offset", Value, None),
            p("Raw", Switch, None),
        ],
        Action::Hex,
    ),
    c(
        "Set-Content",
        &["sc"],
        &[
            PATHS[0],
            PATHS[1],
            p("Value", Value, Some(1)),
            p("PassThru", Switch, None),
            p("Force", Switch, None),
            p("NoNewline", Switch, None),
            p("Encoding", Value, None),
            p("AsByteStream", Switch, None),
            p("Stream", Value, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
        ],
        Action::Write { append: false },
    ),
    c(
        "Add-Content",
        &["ac"],
        &[
            PATHS[0],
            PATHS[1],
            p("Value", Value, Some(1)),
            p("PassThru", Switch, None),
            p("Force", Switch, None),
            p("NoNewline", Switch, None),
            p("Encoding", Value, None),
            p("AsByteStream", Switch, None),
            p("Stream", Value, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
        ],
        Action::Write { append: true },
    ),
    c(
        "Out-File",
        &[],
        &[
            pa("FilePath", &["Path"], Path, Some(0)),
            pa("LiteralPath", &["PSPath", "LP"], Literal, None),
            p("Encoding", Value, Some(1)),
            p("Append", Switch, None),
            p("Force", Switch, None),
            pa("NoClobber", &["NoOverwrite"], Switch, None),
            p("Width", Value, None),
            p("NoNewline", Switch, None),
            p("InputObject", Value, None),
        ],
        Action::Write { append: false },
    ),
    c(
        "Tee-Object",
        &["tee"],
        &[
            p("FilePath", Path, Some(0)),
            pa("LiteralPath", &["PSPath", "LP"], Literal, None),
            p("Append", Switch, None),
            p("Encoding", Value, None),
            p("Variable", Value, None),
            p("InputObject", Value, None),
        ],
        Action::Write { append: false },
    ),
    c(
        "Export-Csv",
        &["epcsv"],
        &[
            PATHS[0],
            PATHS[1],
            p("Append", Switch, None),
            p("Force", Switch, None),
            p("NoClobber", Switch, None),
            p("NoTypeInformation", Switch, None),
            p("Delimiter", Value, Some(1)),
            p("Encoding", Value, None),
            p("InputObject", Value, None),
        ],
        Action::Write { append: false },
    ),
    c(
        "Export-Clixml",
        &[],
        &[
            PATHS[0],
            PATHS[1],
            p("Force", Switch, None),
            p("NoClobber", Switch, None),
            p("Depth", Value, None),
            p("Encoding", Value, None),
            p("InputObject", Value, None),
        ],
        Action::Write { append: false },
    ),
    // A file's content, a registry key's values, a variable's value: all
    // emptied, as Clear-Content empties a file.
    c(
        "Clear-Item",
        &["cli"],
        &[
            PATHS[0],
            PATHS[1],
            p("Force", Switch, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
        ],
        Action::Clear,
    ),
    c(
        "Clear-Content",
        &["clc"],
        &[
            PATHS[0],
            PATHS[1],
            p("Force", Switch, None),
            p("Stream", Value, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
        ],
        Action::Clear,
    ),
    c(
        "New-Item",
        &["ni"],
        &[
            p("Path", Path, Some(0)),
            p("Name", Value, None),
            pa("ItemType", &["Type"], Value, None),
            pa("Value", &["Target"], Value, None),
            p("Force", Switch, None),
            p("Credential", Value, None),
        ],
        Action::NewItem,
    ),
    c(
        "Write-Output",
        &["echo", "write"],
        &[
            p("InputObject", Value, Some(0)),
            p("NoEnumerate", Switch, None),
        ],
        Action::Echo,
    ),
    c(
        "Write-Host",
        &[],
        &[
            pa("Object", &["Msg", "Message"], Value, Some(0)),
            p("NoNewline", Switch, None),
            p("Separator", Value, None),
            p("ForegroundColor", Value, None),
            p("BackgroundColor", Value, None),
        ],
        Action::Echo,
    ),
    c(
        "Write-Verbose",
        &[],
        &[pa("Message", &["Msg"], Value, Some(0))],
        Action::Echo,
    ),
    c(
        "Write-Warning",
        &[],
        &[pa("Message", &["Msg"], Value, Some(0))],
        Action::Echo,
    ),
    c(
        "Write-Debug",
        &[],
        &[pa("Message", &["Msg"], Value, Some(0))],
        Action::Echo,
    ),
    c(
        "Write-Error",
        &[],
        &[
            pa("Message", &["Msg"], Value, Some(0)),
            p("Category", Value, None),
            p("ErrorId", Value, None),
            p("TargetObject", Value, None),
        ],
        Action::Echo,
    ),
    c(
        "Write-Information",
        &[],
        &[
            pa("MessageData", &["Msg", "Message"], Value, Some(0)),
            p("Tags", Value, Some(1)),
        ],
        Action::Echo,
    ),
    c(
        "Get-ChildItem",
        &["gci", "ls", "dir"],
        &[
            PATHS[0],
            PATHS[1],
            p("Filter", Value, Some(1)),
            FILTERS[1],
            FILTERS[2],
            pa("Recurse", &["s"], Switch, None),
            p("Depth", Value, None),
            p("Force", Switch, None),
            p("Name", Switch, None),
            pa("Attributes", &["af"], Value, None),
            pa("Directory", &["ad", "d"], Switch, None),
            pa("File", &["af"], Switch, None),
            pa("Hidden", &["ah", "h"], Switch, None),
            pa("ReadOnly", &["ar"], Switch, None),
            pa("System", &["as"], Switch, None),
            p("FollowSymlink", Switch, None),
        ],
        Action::List,
    ),
    c(
        "Get-Item",
        &["gi"],
        &[
            PATHS[0],
            PATHS[1],
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Force", Switch, None),
            p("Stream", Value, None),
        ],
        Action::Item,
    ),
    c(
        "Get-ItemProperty",
        &["gp"],
        &[
            PATHS[0],
            PATHS[1],
            pa("Name", &["PSProperty"], Value, Some(1)),
        ],
        Action::Item,
    ),
    c(
        "Test-Path",
        &[],
        &[
            PATHS[0],
            PATHS[1],
            p("PathType", Value, None),
            p("IsValid", Switch, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("OlderThan", Value, None),
            p("NewerThan", Value, None),
        ],
        Action::Test,
    ),
    c(
        "Resolve-Path",
        &["rvpa"],
        &[
            PATHS[0],
            PATHS[1],
            p("Relative", Switch, None),
            p("RelativeBasePath", Value, None),
            p("Force", Switch, None),
        ],
        Action::Resolve,
    ),
    c(
        "Convert-Path",
        &["cvpa"],
        &[PATHS[0], PATHS[1]],
        Action::Resolve,
    ),
    c(
        "Join-Path",
        &[],
        &[
            pa("Path", &["PSPath"], Value, Some(0)),
            p("ChildPath", Value, Some(1)),
            p("AdditionalChildPath", Value, Some(2)),
            p("Resolve", Switch, None),
        ],
        Action::Join,
    ),
    c(
        "Split-Path",
        &[],
        &[
            PATHS[0],
            PATHS[1],
            p("Parent", Switch, None),
            p("Leaf", Switch, None),
            p("LeafBase", Switch, None),
            p("Extension", Switch, None),
            p("Qualifier", Switch, None),
            p("NoQualifier", Switch, None),
            p("IsAbsolute", Switch, None),
            p("Resolve", Switch, None),
        ],
        Action::Split,
    ),
    c(
        "Get-Location",
        &["gl", "pwd"],
        &[
            p("PSProvider", Value, None),
            p("PSDrive", Value, None),
            p("Stack", Switch, None),
            p("StackName", Value, None),
        ],
        Action::Location,
    ),
    c(
        "Set-Location",
        &["sl", "cd", "chdir"],
        &[
            PATHS[0],
            PATHS[1],
            p("PassThru", Switch, None),
            p("StackName", Value, None),
        ],
        Action::SetLocation,
    ),
    c(
        "Push-Location",
        &["pushd"],
        &[
            PATHS[0],
            PATHS[1],
            p("PassThru", Switch, None),
            p("StackName", Value, None),
        ],
        Action::SetLocation,
    ),
    c(
        "Pop-Location",
        &["popd"],
        &[p("PassThru", Switch, None), p("StackName", Value, None)],
        Action::PopLocation,
    ),
    c(
        "Invoke-WebRequest",
        &["iwr", "curl", "wget"],
        &[
            p("Uri", Value, Some(0)),
            p("OutFile", Path, None),
            p("InFile", Path, None),
            p("Method", Value, None),
            p("Body", Value, None),
            p("Headers", Value, None),
            p("UseBasicParsing", Switch, None),
            p("Form", Value, None),
            p("ContentType", Value, None),
            p("Credential", Value, None),
            p("PassThru", Switch, None),
            p("TimeoutSec", Value, None),
            p("SkipCertificateCheck", Switch, None),
            p("UserAgent", Value, None),
            p("Proxy", Value, None),
            p("Resume", Switch, None),
            p("Authentication", Value, None),
            p("Token", Value, None),
        ],
        Action::Download,
    ),
    c(
        "Invoke-RestMethod",
        &["irm"],
        &[
            p("Uri", Value, Some(0)),
            p("OutFile", Path, None),
            p("InFile", Path, None),
            p("Method", Value, None),
            p("Body", Value, None),
            p("Headers", Value, None),
            p("UseBasicParsing", Switch, None),
            p("Form", Value, None),
            p("ContentType", Value, None),
            p("Credential", Value, None),
            p("PassThru", Switch, None),
            p("TimeoutSec", Value, None),
            p("SkipCertificateCheck", Switch, None),
            p("UserAgent", Value, None),
            p("Proxy", Value, None),
            p("Authentication", Value, None),
            p("Token", Value, None),
        ],
        Action::Download,
    ),
    c(
        "Start-BitsTransfer",
        &[],
        &[
            p("Source", Value, Some(0)),
            p("Destination", Path, Some(1)),
            p("Asynchronous", Switch, None),
            p("Priority", Value, None),
            p("TransferType", Value, None),
        ],
        Action::Download,
    ),
    c(
        "Invoke-Expression",
        &["iex"],
        &[p("Command", Value, Some(0))],
        Action::Eval,
    ),
    c(
        "Invoke-Command",
        &["icm"],
        &[
            p("ScriptBlock", Value, Some(0)),
            pa("FilePath", &["PSPath"], Path, None),
            pa("ComputerName", &["Cn"], Value, None),
            p("Session", Value, None),
            pa("ArgumentList", &["Args"], Value, None),
            p("InputObject", Value, None),
            p("AsJob", Switch, None),
            p("HideComputerName", Switch, None),
            p("NoNewScope", Switch, None),
            p("Credential", Value, None),
            p("JobName", Value, None),
            p("ThrottleLimit", Value, None),
            p("HostName", Value, None),
            p("UserName", Value, None),
            p("KeyFilePath", Value, None),
            p("SSHTransport", Switch, None),
            p("VMName", Value, None),
            p("ContainerId", Value, None),
            p("RunAsAdministrator", Switch, None),
            p("ConfigurationName", Value, None),
        ],
        Action::InvokeCommand,
    ),
    c(
        "Start-Process",
        &["saps", "start"],
        &[
            pa("FilePath", &["PSPath", "Path"], Value, Some(0)),
            pa("ArgumentList", &["Args"], Value, Some(1)),
            p("WorkingDirectory", Value, None),
            p("Verb", Value, None),
            p("Wait", Switch, None),
            p("NoNewWindow", Switch, None),
            p("PassThru", Switch, None),
            p("WindowStyle", Value, None),
            p("Credential", Value, None),
            p("LoadUserProfile", Switch, None),
            p("RedirectStandardError", Path, None),
            p("RedirectStandardInput", Path, None),
            p("RedirectStandardOutput", Path, None),
            p("UseNewEnvironment", Switch, None),
            p("Environment", Value, None),
        ],
        Action::StartProcess,
    ),
    c(
        "ForEach-Object",
        &["%", "foreach"],
        &[
            p("Process", Value, Some(0)),
            p("Begin", Value, None),
            p("End", Value, None),
            p("RemainingScripts", Value, None),
            p("MemberName", Value, None),
            p("ArgumentList", Value, None),
            p("Parallel", Value, None),
            p("ThrottleLimit", Value, None),
            p("TimeoutSeconds", Value, None),
            p("AsJob", Switch, None),
            p("InputObject", Value, None),
        ],
        Action::PerItem,
    ),
    c(
        "Where-Object",
        &["?", "where"],
        &[
            pa("FilterScript", &[], Value, Some(0)),
            p("Property", Value, None),
            p("Value", Value, Some(1)),
            p("InputObject", Value, None),
        ],
        Action::PerItem,
    ),
    c(
        "Start-Job",
        &["sajb"],
        &[
            p("ScriptBlock", Value, Some(0)),
            p("FilePath", Path, None),
            p("Name", Value, None),
            p("ArgumentList", Value, None),
            p("InitializationScript", Value, None),
            p("Credential", Value, None),
            p("RunAs32", Switch, None),
            p("InputObject", Value, None),
        ],
        Action::PerItem,
    ),
    // A dynamic module's script block runs when the module is made.
    c(
        "New-Module",
        &["nmo"],
        &[
            p("Name", Value, Some(0)),
            p("ScriptBlock", Value, Some(1)),
            p("Function", Value, None),
            p("Cmdlet", Value, None),
            p("ArgumentList", Value, None),
            p("ReturnResult", Switch, None),
            p("AsCustomObject", Switch, None),
        ],
        Action::PerItem,
    ),
    c(
        "Start-ThreadJob",
        &[],
        &[
            p("ScriptBlock", Value, Some(0)),
            p("FilePath", Path, None),
            p("Name", Value, None),
            p("ArgumentList", Value, None),
            p("InitializationScript", Value, None),
            p("ThrottleLimit", Value, None),
            p("InputObject", Value, None),
        ],
        Action::PerItem,
    ),
    c(
        "Stop-Computer",
        &[],
        &[
            pa(
                "ComputerName",
                &["CN", "__SERVER", "Server", "IPAddress"],
                Value,
                Some(0),
            ),
            p("Force", Switch, None),
            p("Credential", Value, None),
            p("AsJob", Switch, None),
            p("WsmanAuthentication", Value, None),
        ],
        Action::PowerOff,
    ),
    c(
        "Restart-Computer",
        &[],
        &[
            pa(
                "ComputerName",
                &["CN", "__SERVER", "Server", "IPAddress"],
                Value,
                Some(0),
            ),
            p("Force", Switch, None),
            p("Wait", Switch, None),
            p("Timeout", Value, None),
            p("For", Value, None),
            p("Delay", Value, None),
            p("Credential", Value, None),
            p("WsmanAuthentication", Value, None),
        ],
        Action::Reboot,
    ),
    c(
        "Stop-Process",
        &["spps", "kill"],
        &[
            p("Id", Value, Some(0)),
            pa("Name", &["ProcessName"], Value, None),
            p("InputObject", Value, None),
            p("Force", Switch, None),
            p("PassThru", Switch, None),
        ],
        Action::Kill,
    ),
    c(
        "Register-ScheduledTask",
        &[],
        &[
            p("TaskName", Value, Some(0)),
            p("TaskPath", Value, Some(1)),
            p("Action", Value, Some(2)),
            p("Trigger", Value, Some(3)),
            p("Settings", Value, Some(4)),
            p("User", Value, Some(5)),
            p("Password", Value, None),
            p("RunLevel", Value, None),
            p("Description", Value, None),
            p("Principal", Value, None),
            p("InputObject", Value, None),
            p("Xml", Value, None),
            p("Force", Switch, None),
            p("CimSession", Value, None),
            p("ThrottleLimit", Value, None),
            p("AsJob", Switch, None),
        ],
        Action::Schedule,
    ),
    c(
        "Set-ScheduledTask",
        &[],
        &[
            p("TaskName", Value, Some(0)),
            p("TaskPath", Value, Some(1)),
            p("Action", Value, None),
            p("Trigger", Value, None),
            p("Settings", Value, None),
            p("User", Value, None),
            p("Password", Value, None),
            p("Principal", Value, None),
            p("InputObject", Value, None),
        ],
        Action::Schedule,
    ),
    c(
        "Register-ScheduledJob",
        &[],
        &[
            p("Name", Value, Some(0)),
            p("ScriptBlock", Value, Some(1)),
            p("FilePath", Path, None),
            p("Trigger", Value, None),
            p("ArgumentList", Value, None),
            p("Credential", Value, None),
            p("InitializationScript", Value, None),
            p("RunAs32", Switch, None),
            p("ScheduledJobOption", Value, None),
            p("MaxResultCount", Value, None),
            p("RunNow", Switch, None),
            p("RunEvery", Value, None),
        ],
        Action::Schedule,
    ),
    c(
        "New-Service",
        &[],
        &[
            p("Name", Value, Some(0)),
            p("BinaryPathName", Value, Some(1)),
            p("DisplayName", Value, None),
            p("Description", Value, None),
            p("StartupType", Value, None),
            p("Credential", Value, None),
            p("DependsOn", Value, None),
            p("SecurityDescriptorSddl", Value, None),
        ],
        Action::Service,
    ),
    c(
        "Set-Service",
        &[],
        &[
            pa("Name", &["ServiceName", "SN"], Value, Some(0)),
            p("DisplayName", Value, None),
            p("Description", Value, None),
            p("StartupType", Value, None),
            p("Status", Value, None),
            p("InputObject", Value, None),
            p("Credential", Value, None),
            p("Force", Switch, None),
            p("PassThru", Switch, None),
            p("SecurityDescriptorSddl", Value, None),
        ],
        Action::Service,
    ),
    c(
        "Stop-Service",
        &["spsv"],
        &[
            pa("Name", &["ServiceName"], Value, Some(0)),
            p("DisplayName", Value, None),
            p("InputObject", Value, None),
            p("Force", Switch, None),
            p("NoWait", Switch, None),
            p("PassThru", Switch, None),
            FILTERS[1],
            FILTERS[2],
        ],
        Action::StopService,
    ),
    c(
        "Set-ItemProperty",
        &["sp"],
        &[
            PATHS[0],
            PATHS[1],
            pa("Name", &["PSProperty"], Value, Some(1)),
            p("Value", Value, Some(2)),
            p("Type", Value, None),
            p("InputObject", Value, None),
            p("PassThru", Switch, None),
            p("Force", Switch, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
        ],
        Action::RegistryWrite,
    ),
    c(
        "New-ItemProperty",
        &[],
        &[
            PATHS[0],
            PATHS[1],
            pa("Name", &["PSProperty"], Value, Some(1)),
            p("Value", Value, None),
            pa("PropertyType", &["Type"], Value, None),
            p("Force", Switch, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
        ],
        Action::RegistryWrite,
    ),
    // The rest of the item-property family: each changes the values of the
    // key it names (Copy and Move: of the destination's too).
    c(
        "Remove-ItemProperty",
        &["rp"],
        &[
            PATHS[0],
            PATHS[1],
            pa("Name", &["PSProperty"], Value, Some(1)),
            p("Force", Switch, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
        ],
        Action::RegistryWrite,
    ),
    c(
        "Clear-ItemProperty",
        &["clp"],
        &[
            PATHS[0],
            PATHS[1],
            pa("Name", &["PSProperty"], Value, Some(1)),
            p("PassThru", Switch, None),
            p("Force", Switch, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
        ],
        Action::RegistryWrite,
    ),
    c(
        "Rename-ItemProperty",
        &["rnp"],
        &[
            PATHS[0],
            PATHS[1],
            pa("Name", &["PSProperty"], Value, Some(1)),
            p("NewName", Value, Some(2)),
            p("PassThru", Switch, None),
            p("Force", Switch, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
        ],
        Action::RegistryWrite,
    ),
    c(
        "Copy-ItemProperty",
        &["cpp"],
        &[
            PATHS[0],
            PATHS[1],
            p("Destination", Path, Some(1)),
            pa("Name", &["PSProperty"], Value, Some(2)),
            p("PassThru", Switch, None),
            p("Force", Switch, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
        ],
        Action::RegistryWrite,
    ),
    c(
        "Move-ItemProperty",
        &["mp"],
        &[
            PATHS[0],
            PATHS[1],
            p("Destination", Path, Some(1)),
            pa("Name", &["PSProperty"], Value, Some(2)),
            p("PassThru", Switch, None),
            p("Force", Switch, None),
            FILTERS[0],
            FILTERS[1],
            FILTERS[2],
            p("Credential", Value, None),
        ],
        Action::RegistryWrite,
    ),
    c(
        "Format-Volume",
        &[],
        &[
            p("DriveLetter", Value, Some(0)),
            p("FileSystem", Value, None),
            p("NewFileSystemLabel", Value, None),
            p("FileSystemLabel", Value, None),
            p("Path", Value, None),
            p("ObjectId", Value, None),
            p("Partition", Value, None),
            p("InputObject", Value, None),
            p("Full", Switch, None),
            p("Force", Switch, None),
            p("Compress", Switch, None),
            p("AllocationUnitSize", Value, None),
            p("SetIntegrityStreams", Value, None),
            p("ShortFileNameSupport", Value, None),
            p("UseLargeFRS", Switch, None),
            p("DisableHeatGathering", Switch, None),
            p("IsDAX", Value, None),
            p("CimSession", Value, None),
            p("ThrottleLimit", Value, None),
            p("AsJob", Switch, None),
        ],
        Action::Format,
    ),
    c(
        "Clear-Disk",
        &[],
        &[
            pa("Number", &["DeviceId"], Value, Some(0)),
            p("UniqueId", Value, None),
            p("FriendlyName", Value, None),
            p("Path", Value, None),
            p("InputObject", Value, None),
            p("RemoveData", Switch, None),
            p("RemoveOEM", Switch, None),
            p("ZeroOutEntireDisk", Switch, None),
            p("PassThru", Switch, None),
            p("CimSession", Value, None),
            p("ThrottleLimit", Value, None),
            p("AsJob", Switch, None),
        ],
        Action::Wipe,
    ),
    c(
        "Initialize-Disk",
        &[],
        &[
            pa("Number", &["DeviceId"], Value, Some(0)),
            p("UniqueId", Value, None),
            p("FriendlyName", Value, None),
            p("Path", Value, None),
            p("InputObject", Value, None),
            p("PartitionStyle", Value, None),
            p("PassThru", Switch, None),
        ],
        Action::Partition,
    ),
    // Set-Disk: takes a disk offline (the system disk: the machine stops),
    // read-only, or changes its partition style or signature: a change to
    // the disk's own table, as Initialize-Disk.
    c(
        "Set-Disk",
        &[],
        &[
            pa("Number", &["DeviceId"], Value, Some(0)),
            p("UniqueId", Value, None),
            p("Path", Value, None),
            p("InputObject", Value, None),
            p("IsOffline", Value, None),
            p("IsReadOnly", Value, None),
            p("PartitionStyle", Value, None),
            p("Signature", Value, None),
            p("Guid", Value, None),
        ],
        Action::Partition,
    ),
    c(
        "Remove-Partition",
        &[],
        &[
            pa("DiskNumber", &["DiskId"], Value, Some(0)),
            p("PartitionNumber", Value, Some(1)),
            p("DriveLetter", Value, None),
            p("DiskId", Value, None),
            p("Offset", Value, None),
            p("InputObject", Value, None),
            p("PassThru", Switch, None),
        ],
        Action::Partition,
    ),
    c(
        "Resize-Partition",
        &[],
        &[
            pa("DiskNumber", &["DiskId"], Value, Some(0)),
            p("PartitionNumber", Value, Some(1)),
            p("DriveLetter", Value, None),
            p("Size", Value, None),
            p("InputObject", Value, None),
        ],
        Action::Partition,
    ),
    c(
        "Set-Variable",
        &["set", "sv"],
        &[
            p("Name", Value, Some(0)),
            p("Value", Value, Some(1)),
            p("Scope", Value, None),
            p("Option", Value, None),
            p("PassThru", Switch, None),
            p("Force", Switch, None),
            p("Visibility", Value, None),
            p("Description", Value, None),
            FILTERS[1],
            FILTERS[2],
        ],
        Action::SetVariable,
    ),
    c(
        "New-Variable",
        &["nv"],
        &[
            p("Name", Value, Some(0)),
            p("Value", Value, Some(1)),
            p("Scope", Value, None),
            p("Option", Value, None),
            p("PassThru", Switch, None),
            p("Force", Switch, None),
            p("Visibility", Value, None),
            p("Description", Value, None),
        ],
        Action::SetVariable,
    ),
];

/// Cmdlets and aliases that only look at data (their script-block arguments
/// are still read): output formatting, sorting, measuring, conversions,
/// process and service listings, dates.
pub(super) const DATA: &[&str] = &[
    "Select-Object",
    "select",
    "Sort-Object",
    "sort",
    "Measure-Object",
    "measure",
    "Group-Object",
    "group",
    "Format-Table",
    "ft",
    "Format-List",
    "fl",
    "Format-Wide",
    "fw",
    "Format-Custom",
    "fc",
    "Out-String",
    "Out-Host",
    "oh",
    "Out-Null",
    "Out-Default",
    "ConvertTo-Json",
    "ConvertFrom-Json",
    "ConvertTo-Csv",
    "ConvertFrom-Csv",
    "ConvertTo-Xml",
    "ConvertTo-Html",
    "ConvertFrom-StringData",
    "Get-Date",
    "Get-Process",
    "gps",
    "ps",
    "Get-Service",
    "gsv",
    "Get-Command",
    "gcm",
    "Get-Help",
    "help",
    "man",
    "Get-Member",
    "gm",
    "Get-Module",
    "gmo",
    "Get-Host",
    "Get-Variable",
    "gv",
    "Get-Alias",
    "gal",
    "Get-History",
    "h",
    "history",
    "ghy",
    "Get-Culture",
    "Get-Random",
    "Get-Unique",
    "gu",
    "Compare-Object",
    "compare",
    "diff",
    "Tee-Object:Variable",
    "Start-Sleep",
    "sleep",
    "Clear-Host",
    "cls",
    "clear",
    "Get-PSDrive",
    "gdr",
    "Get-Disk",
    "Get-Volume",
    "Get-Partition",
    "Get-NetIPAddress",
    "Get-NetAdapter",
    "Test-Connection",
    "Test-NetConnection",
    "Resolve-DnsName",
    "Get-Job",
    "gjb",
    "Receive-Job",
    "rcjb",
    "Wait-Job",
    "wjb",
    "Get-Error",
    "New-Guid",
    "Get-Uptime",
    "Get-ComputerInfo",
    "Get-TimeZone",
    "Get-ExecutionPolicy",
    "Get-FileHash",
    "Get-Acl",
    "Get-CimInstance",
    "Get-WmiObject",
    "gwmi",
    "Get-EventLog",
    "Get-WinEvent",
    "Get-PSReadLineOption",
    "Get-ScheduledTask",
    "Get-ItemPropertyValue",
    "gpv",
    "Get-ChildItem:Name",
    "Join-String",
    "Select-Xml",
    "Measure-Command",
    "Trace-Command",
    "Get-Counter",
    "Get-LocalUser",
    "Get-LocalGroup",
    "Get-NetTCPConnection",
    "Get-Clipboard",
    "Write-Progress",
    "Import-Module",
    "ipmo",
    "Add-Type",
    "Set-StrictMode",
    "Get-Verb",
    "Get-TypeData",
    "Get-FormatData",
    "New-Object",
    "New-TimeSpan",
    "Get-Credential",
    "ConvertTo-SecureString",
    "ConvertFrom-SecureString",
    "Read-Host",
    "Update-TypeData",
    "Set-PSReadLineOption",
    "Out-GridView",
    "ogv",
    "Wait-Process",
    "Get-WindowsOptionalFeature",
    "Get-AppxPackage",
    "Get-Package",
    "Find-Module",
    "Get-InstalledModule",
    "Get-PSRepository",
    "New-ScheduledTaskAction",
    "New-ScheduledTaskTrigger",
    "New-ScheduledTaskSettingsSet",
    "New-ScheduledTaskPrincipal",
    "Get-Content:Stream",
];

/// Find a cmdlet by name or alias (ASCII-case-insensitive, module prefix
/// dropped: `Microsoft.PowerShell.Management\Remove-Item`).
pub(super) fn find(name: &str) -> Option<&'static Cmdlet> {
    let name = name.rsplit('\\').next().unwrap_or(name);
    CMDLETS.iter().find(|c| {
        c.name.eq_ignore_ascii_case(name) || c.aliases.iter().any(|a| a.eq_ignore_ascii_case(name))
    })
}

/// Is this a data-only cmdlet or alias? Returns its full name.
pub(super) fn data(name: &str) -> Option<&'static str> {
    let name = name.rsplit('\\').next().unwrap_or(name);
    DATA.iter()
        .copied()
        .find(|d| !d.contains(':') && d.eq_ignore_ascii_case(name))
}

/// How PowerShell binds a parameter name a command was given: exact name or
/// alias first, else the parameters whose name or alias begins with it
/// (`about_Parameters`: "you can abbreviate a parameter name as long as the
/// abbreviation is unique"). More than one candidate is a binding error in
/// PowerShell (the command does not run); the analysis then takes every
/// candidate, which can only make it stricter about a command that would fail.
pub(super) fn bind<'a>(params: &'a [Param], given: &str) -> Vec<&'a Param> {
    let all = params.iter().chain(COMMON.iter());
    let exact: Vec<&Param> = all
        .clone()
        .filter(|p| {
            p.name.eq_ignore_ascii_case(given)
                || p.aliases.iter().any(|a| a.eq_ignore_ascii_case(given))
        })
        .collect();
    if !exact.is_empty() {
        return exact;
    }
    let g = given.to_ascii_lowercase();
    let mut out: Vec<&Param> = all
        .filter(|p| {
            p.name.to_ascii_lowercase().starts_with(&g)
                || p.aliases
                    .iter()
                    .any(|a| a.to_ascii_lowercase().starts_with(&g))
        })
        .collect();
    out.dedup_by(|a, b| a.name == b.name);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(v: Vec<&Param>) -> Vec<&'static str> {
        v.iter().map(|p| p.name).collect()
    }

    #[test]
    fn unique_prefixes_bind_and_ambiguous_ones_bind_every_candidate() {
        let ri = find("ri").unwrap();
        assert_eq!(ri.name, "Remove-Item");
        assert_eq!(names(bind(ri.params, "r")), ["Recurse"]);
        assert_eq!(names(bind(ri.params, "REC")), ["Recurse"]);
        assert_eq!(names(bind(ri.params, "fo")), ["Force"]);
        assert_eq!(names(bind(ri.params, "f")), ["Filter", "Force"]);
        assert_eq!(names(bind(ri.params, "lp")), ["LiteralPath"]);
        assert_eq!(names(bind(ri.params, "ea")), ["ErrorAction"]);
        assert!(bind(ri.params, "zz").is_empty());
    }

    #[test]
    fn names_and_aliases_ignore_case_and_module_prefixes() {
        assert_eq!(find("REMOVE-ITEM").unwrap().name, "Remove-Item");
        assert_eq!(
            find("Microsoft.PowerShell.Management\\Remove-Item")
                .unwrap()
                .name,
            "Remove-Item"
        );
        assert_eq!(find("IEX").unwrap().name, "Invoke-Expression");
        assert_eq!(find("%").unwrap().name, "ForEach-Object");
        assert!(find("git").is_none());
    }
}
