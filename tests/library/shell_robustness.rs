//! No panics, no hangs, bounded work on garbage and adversarial input.

use hookrules::shell::command::{parse, MAX_DEPTH};
use hookrules::shell::path::{is_within, normalize};
use std::time::{Duration, Instant};

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Shell-significant fragments, so random strings hit interesting paths.
const PIECES: &[&str] = &[
    " ",
    "\n",
    "\t",
    ";",
    "&",
    "|",
    "&&",
    "||",
    "(",
    ")",
    "{",
    "}",
    "<",
    ">",
    ">>",
    "<<",
    "<<-",
    "<<<",
    "2>&1",
    "&>",
    "'",
    "\"",
    "\\",
    "`",
    "$",
    "$(",
    "$((",
    "${",
    "$'",
    "#",
    "=",
    "a=(",
    "*",
    "~",
    "-rf",
    "--",
    "rm",
    "sudo",
    "bash -c ",
    "eval ",
    "env -S ",
    "xargs ",
    "find . -exec ",
    "\\;",
    "if ",
    "then ",
    "fi",
    "for x in ",
    "do ",
    "done",
    "case ",
    " in ",
    "esac",
    ";;",
    "EOF",
    "\nEOF\n",
    "[[",
    "]]",
    "((",
    "))",
    "function ",
    "f()",
    "!",
    "time ",
    "echo ",
    "| sh",
    "\\\n",
    "é",
    "\u{0}",
    "\r",
    "{}",
    "+",
    "-c",
    "x",
];

fn random_script(rng: &mut XorShift, len: usize) -> String {
    let mut s = String::new();
    for _ in 0..len {
        if rng.below(8) == 0 {
            // a random char, any plane
            let c = char::from_u32(rng.next() as u32 % 0x11_0000).unwrap_or('?');
            s.push(c);
        } else {
            s.push_str(PIECES[rng.below(PIECES.len())]);
        }
    }
    s
}

/// Runs `f` and, with SHOW_TIMES set, prints how long it took. No timing is
/// asserted here (speed belongs to benchmarks); a hang shows as a test that
/// never ends, and the fuzz targets look for slow inputs.
fn timed(what: &str, _budget: Duration, f: impl FnOnce()) {
    let t = Instant::now();
    f();
    let took = t.elapsed();
    if std::env::var_os("SHOW_TIMES").is_some() {
        eprintln!("{took:>12.3?}  {what:?}");
    }
}

#[test]
fn random_scripts_never_panic() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let mut ok = 0;
    timed("5000 random scripts", Duration::from_secs(60), || {
        for i in 0..5000 {
            let s = random_script(&mut rng, 1 + i % 60);
            if parse(&s).is_ok() {
                ok += 1;
            }
            let _ = normalize(&s, "/w", Some("/h"));
        }
    });
    // Sanity: the generator produces some valid scripts too.
    assert!(ok > 50, "only {ok} random scripts parsed");
}

#[test]
fn random_bytes_never_panic() {
    let mut rng = XorShift(0xDEAD_BEEF);
    for i in 0..3000 {
        let bytes: Vec<u8> = (0..i % 200).map(|_| rng.next() as u8).collect();
        let s = String::from_utf8_lossy(&bytes);
        let _ = parse(&s);
        let _ = normalize(&s, &s, Some(&s));
    }
}

/// Longer fuzzing run: `FUZZ_ITERS=1000000 cargo test -- --ignored long_fuzz`.
#[test]
#[ignore]
fn long_fuzz() {
    let iters: usize = std::env::var("FUZZ_ITERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let seed = std::env::var("FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mut rng = XorShift(seed);
    for i in 0..iters {
        let s = random_script(&mut rng, 1 + i % 120);
        let _ = parse(&s);
    }
}

#[test]
fn mutated_valid_scripts_never_panic() {
    let seeds = [
        "sudo bash -c \"cd / && rm -rf *\"",
        "cat <<EOF | bash\nrm -rf /\nEOF\n",
        "for f in $(ls); do rm \"$f\"; done",
        "case $x in a|b) rm -rf /;; *) echo;; esac",
        ":(){ :|:& };:",
        "find / -name x -exec rm -rf {} \\;",
        "echo \"${x:-$(rm y)}\" `ls` $((1+2)) <(a) >(b) $'\\x41'",
        "env -S 'FOO=1 rm -rf /' && timeout 10 sudo rm -rf /",
    ];
    let mut rng = XorShift(42);
    for _ in 0..4000 {
        let mut s: Vec<char> = seeds[rng.below(seeds.len())].chars().collect();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(s.len() + 1);
            match rng.below(3) {
                0 if at < s.len() => {
                    s.remove(at);
                }
                1 => {
                    let p: Vec<char> = PIECES[rng.below(PIECES.len())].chars().collect();
                    s.splice(at..at, p);
                }
                _ => {
                    let c = char::from_u32(rng.next() as u32 % 0x80).unwrap_or(' ');
                    s.insert(at, c);
                }
            }
        }
        let s: String = s.into_iter().collect();
        let _ = parse(&s);
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let n = 5000;
    let cases = [
        format!("{}ls{}", "$(".repeat(n), ")".repeat(n)),
        format!("{}ls{}", "echo \"$(".repeat(n), ")\"".repeat(n)),
        format!("{}ls{}", "( ".repeat(n), " )".repeat(n)),
        format!("{}ls{}", "{ ".repeat(n), "; }".repeat(n)),
        format!("{}ls{}", "if x; then ".repeat(n), "; fi".repeat(n)),
        format!("echo {}x{}", "${a:-".repeat(n), "}".repeat(n)),
        format!("echo {}1{}", "$((".repeat(n), "))".repeat(n)),
        format!("{}x{}", "a=(".repeat(n), ")".repeat(n)),
        format!("{}ls", "eval ".repeat(n)),
        format!("{}ls", "sudo ".repeat(n)),
        format!("{}ls", "env -S ".repeat(n)),
        format!("{}ls", "bash -c ".repeat(n)),
        format!("{}ls", "f() ".repeat(n)),
        "$(".repeat(n),
        "`".repeat(n),
        "\\`".repeat(n),
        "((".repeat(n),
        "<(".repeat(n),
        "[[ ".repeat(n),
    ];
    for s in &cases {
        timed(&s[..20.min(s.len())], Duration::from_secs(10), || {
            let _ = parse(s);
        });
    }
    assert!(parse(&cases[0]).is_err());
    assert!(parse(&cases[2]).is_err());
}

#[test]
fn megabyte_inputs_are_linear() {
    const MB: usize = 1 << 20;
    let rep = |unit: &str| unit.repeat(MB / unit.len());
    let cases = [
        rep("a;"),
        rep("rm -rf / && "),
        rep("echo $(ls) "),
        rep("x"),
        rep("'"),
        rep("\""),
        rep("$'"),
        rep("-"),
        format!("rm -{}", "rf".repeat(MB / 2)),
        format!("echo '{}'", "a".repeat(MB)),
        format!("cat <<EOF\n{}\nEOF", "line $(x)\n".repeat(MB / 10)),
        format!("bash <<EOF\n{}EOF", "ls\n".repeat(MB / 3)),
        format!("echo '{}' | bash", "ls;".repeat(MB / 3)),
        format!(
            "printf '{}%s' {} | sh",
            "ls;".repeat(MB / 6),
            "a ".repeat(MB / 4)
        ),
        format!("{{ {} }} > out", "a;".repeat(MB / 2)),
        format!("bash -c '{}'", "bash -c ls;".repeat(MB / 11)),
        format!("eval {}", "eval ls; ".repeat(MB / 9)),
        rep("$((("),
        rep("((a) "),
        rep("${"),
        rep("\\\n"),
        rep("# c\n"),
        rep("a | "),
        format!("{}EOF", "cat <<EOF\n".repeat(MB / 10)),
        format!("find . {}", "-exec rm {} ; ".repeat(MB / 14)),
        format!("env {}rm", "-S '-S x' ".repeat(MB / 10)),
        rep("é"),
    ];
    for s in &cases {
        timed(&s[..30.min(s.len())], Duration::from_secs(20), || {
            let _ = parse(s);
        });
    }
    // Tens of thousands of commands fit the analysis' memory budget; half a
    // million do not, and are an error of their own kind (the policy's
    // unparsable answer), not an abort.
    let many = "a;".repeat(MB / 32);
    assert_eq!(parse(&many).map(|c| c.len()).ok(), Some(MB / 32));
    let big = rep("a;");
    assert_eq!(
        parse(&big).map(|c| c.len()).map_err(|e| e.kind),
        Err(hookrules::shell::command::ParseErrorKind::OverBudget)
    );
    let path = "a/../".repeat(MB / 5);
    timed("big path", Duration::from_secs(5), || {
        let n = normalize(&path, "/w", None).unwrap();
        assert_eq!(n, "/w");
        assert!(is_within(&n, "/w"));
    });
}

/// Random mixes of every nesting construct at exactly the depth limit parse
/// (no stack overflow on the stack `hookrules run` has, os::stack::MIN); one
/// level more is an error.
#[test]
fn mixed_nesting_at_the_limit() {
    std::thread::Builder::new()
        .stack_size(hookrules::os::stack::MIN)
        .spawn(mixed_nesting)
        .unwrap()
        .join()
        .unwrap();
}

/// The same mixes on a thread with a sixty-fourth of that stack: an error where
/// the stack runs short, never an overflow (a sixty-fourth, not an eighth: the
/// test build is optimised, its frames are smaller, and at an eighth of the
/// stack the deepest mix no longer runs short).
#[test]
fn deep_nesting_on_a_small_stack_is_an_error() {
    let (s, _) = mixed_script(&mut XorShift(11), MAX_DEPTH);
    let deepest = std::thread::Builder::new()
        .stack_size(hookrules::os::stack::MIN / 64)
        .spawn(move || parse(&s).map(|_| ()))
        .unwrap()
        .join()
        .unwrap();
    assert!(deepest.is_err());
}

/// Nesting levels a script can be built of: (opening, closing).
const LEVELS: &[(&str, &str)] = &[
    // (a space after `$(` so that `$( (` is not read as `$((`)
    ("echo $( ", ")"),
    ("echo \"$( ", ")\""),
    ("( ", " )"),
    ("{ ", "; }"),
    ("if true; then ", "; fi"),
    ("while true; do ", "; done"),
    ("for i in 1; do ", "; done"),
    ("case x in x) ", ";; esac"),
    ("cat <( ", ")"),
    ("echo ${a:-$( ", ")}"),
    ("f() { ", "; }"),
];

/// A random mix of [`LEVELS`] around `rm x`, `depth` levels deep (`${…$(`
/// costs two); and its depth, one short of `depth` when the last pick did not fit.
fn mixed_script(rng: &mut XorShift, depth: usize) -> (String, usize) {
    let (mut open, mut close, mut used) = (String::new(), String::new(), 0);
    while used < depth {
        let p = rng.below(LEVELS.len());
        let cost = if p == 9 { 2 } else { 1 };
        if used + cost > depth {
            continue;
        }
        used += cost;
        open.push_str(LEVELS[p].0);
        close.insert_str(0, LEVELS[p].1);
    }
    (format!("{open}rm x{close}"), used)
}

fn mixed_nesting() {
    let mut rng = XorShift(7);
    for _ in 0..12 {
        let (s, used) = mixed_script(&mut rng, MAX_DEPTH);
        assert_eq!(used, MAX_DEPTH);
        let cs = parse(&s).unwrap_or_else(|e| panic!("{s:?}: {e}"));
        assert!(cs.iter().any(|c| c.program == "rm"), "{s:?}");
        let deeper = format!("( {s} )");
        assert!(parse(&deeper).is_err(), "{deeper:?}");
    }
    // the heaviest per level: re-parsed strings, 16 deep at most
    let wrap = |s: &str| format!("sh -c \"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""));
    let mut s = "rm x".to_string();
    for _ in 0..16 {
        s = wrap(&s);
    }
    let cs = parse(&s).unwrap();
    assert_eq!(cs.last().map(|c| c.via.len()), Some(16));
    assert!(parse(&wrap(&s)).is_err());
}
