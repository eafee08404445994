//! Calls whose function or module is named at run time (issue 30, cause 2):
//! `getattr(os, NAME)(…)`, `vars(os)[NAME](…)`, `require(NAME)`,
//! `mod[NAME](…)`, Ruby's `send(NAME, …)`, PHP's `$f(…)` and
//! `call_user_func(NAME, …)`, Perl's `&{NAME}(…)` and `->can(NAME)`.
//!
//! One principle for every language the scan reads: the name is evaluated as
//! any other value of the code. A literal name (`getattr(os, 'sys'+'tem')`)
//! is judged as the call it names, with the arguments the call is given; a
//! name nobody can know before the code runs (`getattr(os, sys.argv[1])`) is
//! unknown code. A computed value that is only data (`getattr(cfg, key)`
//! read, `obj[key]` printed, a string formatted) is not a call and stays
//! quiet, and so does a call of the code's own objects by a computed name
//! (`getattr(self, 'do_' + cmd)()`, `handlers[k]()`), whose functions the
//! code itself defines; what counts as another's is data per language
//! ([`namespace`]).

use super::{call, eval, expr_start, is_ident, matching, split_args, table, Effect, Lang};
use crate::shell::value::{Piece, Value};

/// A way a language names at run time the function a call runs.
#[derive(Clone, Copy)]
enum Form {
    /// `getattr(R, N)`, `R.method(N)`, `R->can(N)`: the receiver's function
    /// named by argument `name`; it runs when the value is called, in place
    /// (`getattr(R, N)(A…)`) or through a name it is bound to.
    Lookup { receiver: Receiver, name: usize },
    /// `R.send(N, A…)`, `call_user_func(N, A…)`, `methodcaller(N, A…)`:
    /// runs the function named by the first argument with the others
    /// (`list`: given as one array, `call_user_func_array`).
    Invoke { list: bool },
    /// `array_map(F, A)`, `array_walk(A, F)`, Python's `map(F, A)`:
    /// runs the function given as argument `callable` (by its name, PHP's
    /// callable strings, or as a reference, `os.remove`) on
    /// what the other arguments hold, judged as that function called with
    /// them. A function the code writes itself (a lambda, its own name) is
    /// not one of the table's and adds nothing.
    Map { callable: usize },
    /// `__import__(N)`, `importlib.import_module(N)`, `require(N)`: a module
    /// the code loads by a name. Calls on it are judged by their names; a
    /// name nothing of which is known is unknown code.
    Module,
}

/// Whose function a lookup finds.
#[derive(Clone, Copy, PartialEq)]
enum Receiver {
    /// The first argument's (`getattr(R, N)`): unknown code only when it is
    /// a namespace (a module, the builtins), not the code's own object.
    FirstArg,
    /// Any object's: every Ruby object reaches `Kernel`'s private functions
    /// through `send` and `method`, every Perl package's `can` its subs.
    Any,
}

/// Per language: the callee names (the last component of a dotted name)
/// that name a function or module at run time, and how.
fn forms(lang: Lang) -> &'static [(&'static str, Form)] {
    use Form::*;
    const ANY_FIRST: Form = Lookup {
        receiver: Receiver::Any,
        name: 0,
    };
    match lang {
        Lang::Python => &[
            ("map", Map { callable: 0 }),
            ("filter", Map { callable: 0 }),
            (
                "getattr",
                Lookup {
                    receiver: Receiver::FirstArg,
                    name: 1,
                },
            ),
            ("methodcaller", Invoke { list: false }),
            ("__import__", Module),
            ("import_module", Module),
        ],
        Lang::Ruby => &[
            ("send", Invoke { list: false }),
            ("public_send", Invoke { list: false }),
            ("__send__", Invoke { list: false }),
            ("method", ANY_FIRST),
            ("public_method", ANY_FIRST),
            ("instance_method", ANY_FIRST),
            ("require", Module),
        ],
        Lang::Js => &[("require", Module), ("import", Module)],
        Lang::Php => &[
            ("call_user_func", Invoke { list: false }),
            ("call_user_func_array", Invoke { list: true }),
            ("forward_static_call", Invoke { list: false }),
            ("forward_static_call_array", Invoke { list: true }),
            ("array_map", Map { callable: 0 }),
            ("array_walk", Map { callable: 1 }),
            ("array_walk_recursive", Map { callable: 1 }),
            ("array_filter", Map { callable: 1 }),
            ("register_shutdown_function", Invoke { list: false }),
        ],
        Lang::Perl => &[("can", ANY_FIRST)],
        _ => &[],
    }
}

/// Is `expr` (a receiver) a namespace whose functions the code did not
/// write: a module it imports or loads, the builtins, the globals? `modules`
/// are the names the code binds to modules.
fn namespace(lang: Lang, expr: &str, modules: &[String]) -> bool {
    let e: String = expr.chars().filter(|c| !c.is_whitespace()).collect();
    let head = e.split(['.', '[', '(']).next().unwrap_or_default();
    match lang {
        // `vars(os)`, `os.__dict__`, `globals()`, `sys.modules[…]`, `__import__(…)`.
        Lang::Python => {
            modules.iter().any(|m| *m == head)
                || [
                    "__builtins__",
                    "builtins",
                    "vars",
                    "globals",
                    "locals",
                    "__import__",
                ]
                .contains(&head)
                || e.ends_with(".__dict__")
                || e.starts_with("sys.modules")
                || e.contains("import_module(")
        }
        // `require('fs')`, a name bound to a module, `process`, `globalThis`.
        Lang::Js => {
            modules.iter().any(|m| *m == head)
                || [
                    "require",
                    "import",
                    "process",
                    "globalThis",
                    "global",
                    "window",
                    "self",
                    "Deno",
                    "Bun",
                    "Reflect",
                ]
                .contains(&head)
        }
        _ => true,
    }
}

/// The names `code` binds to modules: Python's `import M`, `import M as N`,
/// `from P import M`, `N = __import__(…)`; JavaScript's `N = require(…)`,
/// `import N from …`, `import * as N from …`.
fn module_names(lang: Lang, masked: &str) -> Vec<String> {
    let mut out = Vec::new();
    for stmt in masked.split([';', '\n']) {
        let words: Vec<&str> = stmt
            .split(|c: char| !(is_ident(c) || c == '$' || c == '.'))
            .filter(|w| !w.is_empty())
            .collect();
        let imported = match lang {
            Lang::Python => words.iter().position(|w| *w == "import"),
            Lang::Js if words.first() == Some(&"import") => Some(0),
            _ => None,
        };
        if let Some(at) = imported {
            let mut it = words[at + 1..].iter().peekable();
            while let Some(w) = it.next() {
                if lang == Lang::Js && *w == "from" {
                    break;
                }
                if matches!(*w, "from" | "as" | "type") || it.peek() == Some(&&"as") {
                    continue;
                }
                out.push(w.split('.').next().unwrap_or(w).to_string());
            }
        }
        // `N = require(…)`, `N = __import__(…)`, `N = importlib.import_module(…)`.
        if let Some((lhs, rhs)) = stmt.split_once('=') {
            let rhs = rhs.trim_start();
            let loads = [
                "require(",
                "__import__(",
                "importlib.import_module(",
                "import_module(",
            ]
            .iter()
            .any(|l| rhs.starts_with(l) || rhs.starts_with(&format!("await {l}")));
            let name = lhs.split_whitespace().last().unwrap_or_default();
            if loads && !name.is_empty() && name.chars().all(is_ident) {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// The function name a value names: its literal text, or a Ruby symbol
/// (`:rm_rf`), the last component of a qualified name (`CORE::GLOBAL::unlink`,
/// `os.system`). `None` when it cannot be known before the code runs.
fn function_name(lang: Lang, expr: &str) -> Option<String> {
    let e = expr.trim();
    let text = match e.strip_prefix(':') {
        // `:rm_rf`, `:+`
        Some(sym)
            if lang == Lang::Ruby
                && !sym.is_empty()
                && !sym.starts_with(['"', '\''])
                && !sym.contains(char::is_whitespace) =>
        {
            sym.to_string()
        }
        Some(sym) if lang == Lang::Ruby => eval(lang, sym).literal()?,
        _ => eval(lang, e).literal()?,
    };
    let last = text
        .rsplit(['.', ':', '>', '\\'])
        .next()
        .unwrap_or_default();
    Some(last.trim().to_string())
}

/// The function a reference names (`os.remove`, `require('fs').unlinkSync`,
/// `File.method(:delete)`): the name after its last `.` or `:`, when it is
/// one identifier; `None` for anything else (a lambda, a call's result).
fn referenced(expr: &str) -> Option<String> {
    let e = expr.trim().trim_start_matches('&');
    let e = e
        .strip_suffix(')')
        .and_then(|x| x.rsplit_once("method(:"))
        .map_or(e, |(_, name)| name);
    let last = e.rsplit(['.', ':']).next()?.trim();
    (!last.is_empty() && last.chars().all(is_ident)).then(|| last.to_string())
}

/// Is nothing of a value known (`sys.argv[1]`, `$x`), not even a part
/// (`'./plugins/' + name` is a file of the project's, as `'./x'` is)?
fn wholly_unknown(v: &Value) -> bool {
    v.0.iter().all(|s| {
        s.0.iter()
            .all(|p| matches!(p, Piece::Unknown(_)) || matches!(p, Piece::Text(t) if t.is_empty()))
    })
}

/// Is a module name computed at run time unknown code? JavaScript's
/// `require`/`import` load any file a name reaches (`'./plugins/' + f`
/// with `f = '../../tmp/x'`): unknown unless every part is known but the
/// code's own folder (`path.join(__dirname, 'lib')`). Python's and Ruby's
/// look names up among the packages (`'my_pkg.' + name` stays in the
/// package): unknown when nothing of the name is known.
fn unknown_module(lang: Lang, v: &Value) -> bool {
    match lang {
        Lang::Js => v.0.iter().any(|s| {
            s.0.iter().any(|p| match p {
                Piece::Unknown(t) => !OWN_FOLDER.contains(&t.trim()),
                Piece::Glob(_) | Piece::Below | Piece::Contained(_) => true,
                _ => false,
            })
        }),
        _ => wholly_unknown(v),
    }
}

/// How JavaScript names the folder of the code itself.
const OWN_FOLDER: &[&str] = &[
    "__dirname",
    "import.meta.dirname",
    "path.dirname(__filename)",
];

/// What running the function named `name` with `args` does: the call it
/// names, when the language's table knows it.
fn named(lang: Lang, name: &str, args: &[String], out: &mut Vec<Effect>) {
    if let Some((n, kind)) = table(lang).iter().find(|(n, _)| *n == name) {
        call(lang, n, *kind, args, None, out);
    }
}

/// Can a name computed at run time only be a Ruby setter (`"#{attr}="`,
/// `:"#{k}="`, the metaprogramming idiom for assigning attributes from
/// data)? A name ending in `=` (not a comparison, `==`) is an attribute
/// writer: no function of `Kernel`, `Process`, `IO` or `FileUtils` that runs
/// or deletes is spelled so.
fn setter_only(lang: Lang, expr: &str) -> bool {
    if lang != Lang::Ruby {
        return false;
    }
    let e = expr.trim();
    let v = eval(lang, e.strip_prefix(':').unwrap_or(e));
    !v.0.is_empty()
        && v.0.iter().all(|s| match s.0.last() {
            Some(Piece::Text(t)) => {
                let head = t.trim_end_matches('=');
                t.len() - head.len() == 1 && !head.ends_with(['!', '<', '>'])
            }
            _ => false,
        })
}

/// What running the function named by `name` (an expression) with `args`
/// does: the named call, or unknown code when the name cannot be known
/// (and is not only a setter's).
fn run_named(lang: Lang, name: &str, args: &[String], out: &mut Vec<Effect>) {
    match function_name(lang, name) {
        Some(f) => named(lang, &f, args, out),
        None if setter_only(lang, name) => {}
        None => out.push(Effect::Dynamic),
    }
}

/// The arguments of a call whose callee ends just before `at` (`(A…)`,
/// Ruby's `.call(A…)` and `.(A…)`, Perl's `->(A…)`), and the index after
/// them. `None` when the value is not called there.
fn called_at(src: &[char], masked: &[char], at: usize) -> Option<(Vec<String>, usize)> {
    let mut a = at;
    while masked.get(a) == Some(&' ') {
        a += 1;
    }
    let rest: String = masked[a..(a + 6).min(masked.len())].iter().collect();
    for lead in [".call", "->", ".", ""] {
        if rest.starts_with(lead) && masked.get(a + lead.len()) == Some(&'(') {
            let open = a + lead.len();
            let close = matching(src, open)?;
            let inner: String = src[open + 1..close].iter().collect();
            return Some((split_args(&inner), close + 1));
        }
    }
    None
}

/// The expression that ends just before `end` in `masked` (a name, a dotted
/// chain, with its calls and subscripts: `vars(os)`, `require('fs')`,
/// `sys.modules[n]`), from `src`.
fn expr_before(src: &[char], masked: &[char], end: usize) -> String {
    expr_start(masked, end, &['.', '$']).map_or_else(String::new, |i| src[i..end].iter().collect())
}

/// The name a statement starting before `at` binds the value at `at` to
/// (`f = getattr(…)`, `my $f = P->can(…)`), when that name is called later
/// in the code (`f(…)`, `f.call(…)`, `$f->(…)`): the arguments of its
/// first call.
fn bound_and_called(src: &[char], masked: &[char], at: usize) -> Option<Vec<String>> {
    let before: String = masked[..at].iter().collect();
    let stmt = before.rsplit([';', '\n']).next().unwrap_or_default();
    let lhs = stmt.trim_end().strip_suffix('=')?;
    if lhs.ends_with(['=', '!', '<', '>']) {
        return None;
    }
    let name: Vec<char> = lhs.split_whitespace().last()?.chars().collect();
    if !name.iter().all(|c| is_ident(*c) || *c == '$') {
        return None;
    }
    (at..masked.len().saturating_sub(name.len())).find_map(|k| {
        let here = masked[k..k + name.len()] == name[..];
        let word = here
            && !(k > 0 && (is_ident(masked[k - 1]) || masked[k - 1] == '$'))
            && !masked.get(k + name.len()).is_some_and(|c| is_ident(*c));
        word.then(|| called_at(src, masked, k + name.len()))
            .flatten()
            .map(|(args, _)| args)
    })
}

/// What the calls by a run-time name in `src` (its `masked` text: literals
/// and comments blanked) do.
pub(super) fn effects(lang: Lang, src: &[char], masked: &[char], out: &mut Vec<Effect>) {
    let text: String = masked.iter().collect();
    let code: String = src.iter().collect();
    let assigns = super::assignments(lang, &code);
    let modules = module_names(lang, &text);
    let forms = forms(lang);
    let mut k = 0;
    while k < src.len() {
        let c = masked[k];
        // `R[N](A…)`: a subscript of a namespace, called.
        if c == '[' && matches!(lang, Lang::Python | Lang::Js) {
            if let Some(close) = matching(src, k) {
                let receiver = expr_before(src, masked, k);
                if let Some((args, _)) = called_at(src, masked, close + 1) {
                    if !receiver.is_empty() && namespace(lang, &receiver, &modules) {
                        let name: String = src[k + 1..close].iter().collect();
                        run_named(lang, &name, &args, out);
                    }
                }
            }
            k += 1;
            continue;
        }
        // PHP's `$f(A…)`, `$a[1](A…)`: a variable's value names the function.
        if c == '$' && lang == Lang::Php && masked.get(k + 1) != Some(&'$') {
            let mut e = k + 1;
            while e < src.len() && is_ident(masked[e]) {
                e += 1;
            }
            let var: String = src[k..e].iter().collect();
            let mut end = e;
            while masked.get(end) == Some(&'[') {
                match matching(src, end) {
                    Some(close) => end = close + 1,
                    None => break,
                }
            }
            if e > k + 1 && masked.get(end) == Some(&'(') {
                if let Some((args, next)) = called_at(src, masked, end) {
                    php_variable_call(&var, end > e, &args, &assigns, out);
                    k = next;
                    continue;
                }
            }
            k = e.max(k + 1);
            continue;
        }
        // Perl's `&{E}(A…)`, `&$f(A…)`, `$f->(A…)`.
        if lang == Lang::Perl
            && (c == '&' || c == '$')
            && perl_code_ref(src, masked, k, &assigns, out)
        {
            k += 1;
            continue;
        }
        if !is_ident(c) || (k > 0 && (is_ident(masked[k - 1]) || masked[k - 1] == '$')) {
            k += 1;
            continue;
        }
        let mut e = k;
        while e < src.len() && is_ident(masked[e]) {
            e += 1;
        }
        let word: String = src[k..e].iter().collect();
        let Some((_, form)) = forms.iter().find(|(n, _)| *n == word) else {
            k = e;
            continue;
        };
        let mut a = e;
        while masked.get(a) == Some(&' ') {
            a += 1;
        }
        // Ruby's and Perl's methods may go without parentheses (`send :x, y`).
        let (args, after) = if masked.get(a) == Some(&'(') {
            let Some(close) = matching(src, a) else {
                out.push(Effect::Dynamic);
                return;
            };
            let inner: String = src[a + 1..close].iter().collect();
            (split_args(&inner), close + 1)
        } else if lang == Lang::Ruby && a > e && masked.get(a).is_some_and(|c| *c != '=') {
            let end = (a..src.len())
                .find(|i| matches!(masked[*i], ';' | '\n' | ')' | '}'))
                .unwrap_or(src.len());
            let inner: String = src[a..end].iter().collect();
            (split_args(&inner), end)
        } else {
            k = e;
            continue;
        };
        match *form {
            Form::Module => {
                if let Some(first) = args.first() {
                    let v = eval(lang, first);
                    if v.literal().is_none() && unknown_module(lang, &v) {
                        out.push(Effect::Dynamic);
                    }
                }
            }
            Form::Invoke { list } => {
                if let Some((name, rest)) = args.split_first() {
                    let rest: Vec<String> = match (list, rest.first()) {
                        (true, Some(arr)) => {
                            let t = arr.trim();
                            let inner = t
                                .strip_prefix('[')
                                .and_then(|r| r.strip_suffix(']'))
                                .or_else(|| {
                                    t.strip_prefix("array(").and_then(|r| r.strip_suffix(')'))
                                });
                            match inner {
                                Some(i) => split_args(i),
                                None => vec![t.to_string()],
                            }
                        }
                        _ => rest.to_vec(),
                    };
                    run_named(lang, name, &rest, out);
                }
            }
            Form::Map { callable } => {
                if let Some(f) = args.get(callable) {
                    let rest: Vec<String> = args
                        .iter()
                        .enumerate()
                        .filter(|(i, _)| *i != callable)
                        .map(|(_, a)| a.clone())
                        .collect();
                    let name = function_name(lang, f).or_else(|| referenced(f));
                    if let Some(name) = name {
                        named(lang, &name, &rest, out);
                    }
                }
            }
            Form::Lookup { receiver, name } => {
                let (recv, name_expr) = match receiver {
                    Receiver::FirstArg => (args.first().cloned(), args.get(name)),
                    Receiver::Any => (None, args.get(name)),
                };
                let Some(name_expr) = name_expr else {
                    k = after;
                    continue;
                };
                let theirs = recv.is_none_or(|r| namespace(lang, &r, &modules));
                match called_at(src, masked, after) {
                    Some((call_args, _)) => match function_name(lang, name_expr) {
                        Some(f) => named(lang, &f, &call_args, out),
                        None if theirs && !setter_only(lang, name_expr) => {
                            out.push(Effect::Dynamic)
                        }
                        None => {}
                    },
                    None => match bound_and_called(src, masked, k_start(masked, k)) {
                        // Ruby's `N = method(:F)` is bound by name (see `bound_names`).
                        Some(_) if lang == Lang::Ruby && name_expr.trim().starts_with(':') => {}
                        Some(call_args) => match function_name(lang, name_expr) {
                            Some(f) => named(lang, &f, &call_args, out),
                            None if theirs && !setter_only(lang, name_expr) => {
                                out.push(Effect::Dynamic)
                            }
                            None => {}
                        },
                        None => {}
                    },
                }
            }
        }
        k = after;
    }
}

/// Where the expression holding the word at `k` starts (`os.getattr` →
/// `os`, `Kernel.method` → `Kernel`), for finding what it is bound to.
fn k_start(masked: &[char], k: usize) -> usize {
    let mut i = k;
    while i > 0 && (is_ident(masked[i - 1]) || matches!(masked[i - 1], '.' | ':' | '>' | '-')) {
        if masked[i - 1] == '>' && !(i > 1 && masked[i - 2] == '-') {
            break;
        }
        if masked[i - 1] == '-' && masked.get(i) != Some(&'>') {
            break;
        }
        i -= 1;
    }
    i
}

/// PHP's `$f(A…)`: the function the variable's value names (its
/// assignments in the code); a closure
/// (`$f = function (…) {…}`, `fn(…) =>`) is the code's own; an element
/// (`$argv[1](…)`) or a value nobody knows is unknown code.
fn php_variable_call(
    var: &str,
    element: bool,
    args: &[String],
    assigns: &[(String, String)],
    out: &mut Vec<Effect>,
) {
    if element {
        out.push(Effect::Dynamic);
        return;
    }
    let mut rhs = assigns.iter().filter(|(n, _)| n == var).map(|(_, r)| r);
    let closure = |r: &String| {
        let r = r.trim_start().trim_start_matches("static ").trim_start();
        r.starts_with("function") || r.starts_with("fn ") || r.starts_with("fn(")
    };
    if rhs.clone().next().is_some() && rhs.all(closure) {
        return;
    }
    match super::bound_value(Lang::Php, var).and_then(|v| v.literal()) {
        Some(f) => named(Lang::Php, f.rsplit('\\').next().unwrap_or(&f), args, out),
        None => out.push(Effect::Dynamic),
    }
}

/// Perl's code references called at `k`: `&{E}(A…)` / `&{E}` (E a name
/// or a value), `&$f(A…)`, `$f->(A…)`. Reports what they run and says
/// whether `k` starts one.
fn perl_code_ref(
    src: &[char],
    masked: &[char],
    k: usize,
    assigns: &[(String, String)],
    out: &mut Vec<Effect>,
) -> bool {
    let next = masked.get(k + 1).copied();
    // `&{E}`
    if masked[k] == '&' && next == Some('{') && !(k > 0 && masked[k - 1] == '&') {
        let Some(close) = matching(src, k + 1) else {
            return false;
        };
        let inner: String = src[k + 2..close].iter().collect();
        let args = called_at(src, masked, close + 1)
            .map(|(a, _)| a)
            .unwrap_or_default();
        let inner = inner
            .trim()
            .trim_start_matches('\\')
            .trim_start_matches('&');
        match function_name(Lang::Perl, inner) {
            Some(f) => named(Lang::Perl, &f, &args, out),
            None => out.push(Effect::Dynamic),
        }
        return true;
    }
    // `&$f(…)`, `$f->(…)`
    let var_start = if masked[k] == '&' && next == Some('$') {
        k + 1
    } else if masked[k] == '$' && !(k > 0 && masked[k - 1] == '&') {
        k
    } else {
        return false;
    };
    let mut e = var_start + 1;
    while e < src.len() && is_ident(masked[e]) {
        e += 1;
    }
    if e == var_start + 1 {
        return false;
    }
    // `$obj->$name(A…)`: a method named by a variable's value.
    if var_start == k && k >= 2 && masked[k - 2..k] == ['-', '>'] && masked.get(e) == Some(&'(') {
        let Some((args, _)) = called_at(src, masked, e) else {
            return false;
        };
        let var: String = src[var_start..e].iter().collect();
        run_named(Lang::Perl, &var, &args, out);
        return true;
    }
    let called = if var_start == k + 1 {
        called_at(src, masked, e).filter(|_| masked.get(e) == Some(&'('))
    } else if masked.get(e..e + 2) == Some(&['-', '>']) && masked.get(e + 2) == Some(&'(') {
        called_at(src, masked, e)
    } else {
        None
    };
    let Some((args, _)) = called else {
        return false;
    };
    let var: String = src[var_start..e].iter().collect();
    let rhs: Vec<&String> = assigns
        .iter()
        .filter(|(n, _)| *n == var)
        .map(|(_, r)| r)
        .collect();
    for r in &rhs {
        let r = r.trim();
        if r.starts_with("sub") || r.starts_with("\\&") || r.contains("->can(") {
            // The code's own sub, a named reference or a lookup: judged
            // where it is bound (see `bound_names` and `can`).
            continue;
        }
        match function_name(Lang::Perl, r) {
            Some(f) => named(Lang::Perl, &f, &args, out),
            None => out.push(Effect::Dynamic),
        }
    }
    if rhs.is_empty() {
        // A reference the code was handed (`$ARGV[0]`, a parameter).
        out.push(Effect::Dynamic);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::super::{scan, shell_text};
    use super::*;

    /// What a call by a run-time name amounts to.
    #[derive(Debug, PartialEq)]
    enum Seen {
        /// The shell text it runs.
        Runs(&'static str),
        /// The path it deletes.
        Deletes(&'static str),
        /// Code nobody can read beforehand.
        Unknown,
        /// Nothing the scan reports.
        Quiet,
    }

    /// (language, code, what it amounts to): each form with a literal name,
    /// a computed one, and the look-alikes that are data or the code's own.
    const CASES: &[(Lang, &str, Seen)] = &[
        // Python
        (
            Lang::Python,
            "import os; getattr(os, 'sys' + 'tem')('rm -rf /x')",
            Seen::Runs("rm -rf /x"),
        ),
        (
            Lang::Python,
            "import os as o; g = getattr(o, 'system'); g('ls /x')",
            Seen::Runs("ls /x"),
        ),
        (
            Lang::Python,
            "import os, sys; getattr(os, sys.argv[2])('/x')",
            Seen::Unknown,
        ),
        (
            Lang::Python,
            "import os; vars(os)['sys' 'tem']",
            Seen::Quiet,
        ),
        (
            Lang::Python,
            "import posix; posix.__dict__['unlink']('/x')",
            Seen::Deletes("/x"),
        ),
        (Lang::Python, "globals()[name]('/x')", Seen::Unknown),
        (
            Lang::Python,
            "import operator; operator.methodcaller('system', 'ls /y')",
            Seen::Runs("ls /y"),
        ),
        (
            Lang::Python,
            "import importlib; importlib.import_module(name)",
            Seen::Unknown,
        ),
        (
            Lang::Python,
            "importlib.import_module('my_pkg.' + name).main()",
            Seen::Quiet,
        ),
        (
            Lang::Python,
            "getattr(self, 'cmd_' + name)(args)",
            Seen::Quiet,
        ),
        (
            Lang::Python,
            "import json; getattr(json, 'dumps')({})",
            Seen::Quiet,
        ),
        (
            Lang::Python,
            "import logging; getattr(logging, level.upper())",
            Seen::Quiet,
        ),
        (
            Lang::Python,
            "table = {'a': len}; table[k]('x')",
            Seen::Quiet,
        ),
        // JavaScript
        (
            Lang::Js,
            "require('child_' + 'process')['exec' + 'Sync']('ls /z')",
            Seen::Runs("ls /z"),
        ),
        (
            Lang::Js,
            "const cp = require('child_process'); cp[op]('ls')",
            Seen::Unknown,
        ),
        (
            Lang::Js,
            "import * as fsx from 'fs'; fsx[op]('/x')",
            Seen::Unknown,
        ),
        (Lang::Js, "process[name]()", Seen::Unknown),
        (Lang::Js, "require(process.argv[2])", Seen::Unknown),
        (Lang::Js, "require('./plugins/' + name)", Seen::Unknown),
        (
            Lang::Js,
            "const f = x; require(`./plugins/${f}`)",
            Seen::Unknown,
        ),
        (
            Lang::Js,
            "require(path.join(__dirname, name))",
            Seen::Unknown,
        ),
        (Lang::Js, "import(dir + '/mod.js')", Seen::Unknown),
        (
            Lang::Js,
            "const n = 'os'; console.log(require(n).platform())",
            Seen::Quiet,
        ),
        (
            Lang::Js,
            "require(path.join(__dirname, 'lib'))",
            Seen::Quiet,
        ),
        (
            Lang::Js,
            "console[level]('hi'); handlers[k](req)",
            Seen::Quiet,
        ),
        // Ruby
        (
            Lang::Ruby,
            "Kernel.send(:system, 'ls /r')",
            Seen::Runs("ls /r"),
        ),
        (
            Lang::Ruby,
            "Object.new.__send__('sys' + 'tem', 'ls /s')",
            Seen::Runs("ls /s"),
        ),
        (
            Lang::Ruby,
            "FileUtils.public_send(:rm_rf, '/t')",
            Seen::Deletes("/t"),
        ),
        (Lang::Ruby, "Kernel.send(ARGV[1], 'x')", Seen::Unknown),
        // a setter named from data: an attribute writer, no command
        (
            Lang::Ruby,
            "h.each { |k, v| o.send(\"#{k}=\", v) }",
            Seen::Quiet,
        ),
        (Lang::Ruby, "o.public_send(:\"#{k}=\", 1)", Seen::Quiet),
        (
            Lang::Ruby,
            "m = o.method(\"#{k}=\"); m.call(1)",
            Seen::Quiet,
        ),
        (Lang::Ruby, "Kernel.send(\"#{m}\", 'x')", Seen::Unknown),
        (Lang::Ruby, "Kernel.send(\"#{m}=x\", 'x')", Seen::Unknown),
        (Lang::Ruby, "Kernel.send(\"#{m}tem\", 'x')", Seen::Unknown),
        (
            Lang::Ruby,
            "m = Kernel.method(ARGV[1]); m.call('x')",
            Seen::Unknown,
        ),
        (
            Lang::Ruby,
            "Kernel.method('sys' + 'tem').call('ls /u')",
            Seen::Runs("ls /u"),
        ),
        (
            Lang::Ruby,
            "puts [1, 2].send(:sum); f = 3.method(:+); f.call(1)",
            Seen::Quiet,
        ),
        // PHP
        (
            Lang::Php,
            "$f = 'shell_' . 'exec'; $f('ls /p');",
            Seen::Runs("ls /p"),
        ),
        (
            Lang::Php,
            "call_user_func_array('system', ['ls /q']);",
            Seen::Runs("ls /q"),
        ),
        (Lang::Php, "$_GET['f']('x'); ", Seen::Unknown),
        (Lang::Php, "call_user_func($name, 'x');", Seen::Unknown),
        (
            Lang::Php,
            "$f = function ($x) { return $x; }; echo $f(1);",
            Seen::Quiet,
        ),
        (Lang::Php, "$a = ['k' => 1]; echo $a['k'];", Seen::Quiet),
        // Perl
        (Lang::Perl, "&{'sys' . 'tem'}('ls /v')", Seen::Runs("ls /v")),
        (
            Lang::Perl,
            "my $n = 'unlink'; &$n('/w')",
            Seen::Deletes("/w"),
        ),
        (
            Lang::Perl,
            "my $f = main->can($ARGV[0]); $f->('x')",
            Seen::Unknown,
        ),
        (Lang::Perl, "&{$ARGV[0]}()", Seen::Unknown),
        (
            Lang::Perl,
            "my $f = sub { 2 * shift }; print $f->(3); print POSIX->can('floor') ? 1 : 0",
            Seen::Quiet,
        ),
    ];

    fn seen(e: &Effect) -> Option<String> {
        match e {
            Effect::Shell(s) => Some(format!("runs {}", shell_text(s))),
            Effect::Delete { path, .. } => Some(format!("deletes {path}")),
            Effect::Dynamic => Some("unknown".into()),
            _ => None,
        }
    }

    #[test]
    fn calls_by_a_run_time_name() {
        for (lang, code, want) in CASES {
            let got: Vec<String> = scan(*lang, code).iter().filter_map(seen).collect();
            let want = match want {
                Seen::Runs(t) => vec![format!("runs {t}")],
                Seen::Deletes(p) => vec![format!("deletes {p}")],
                Seen::Unknown => vec!["unknown".to_string()],
                Seen::Quiet => Vec::new(),
            };
            assert_eq!(got, want, "{lang:?}: {code}");
        }
    }
}
