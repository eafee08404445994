//! Applying one test to the values a selector picked.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use super::{Ctx, EvalError};
use crate::compile::patterns::{self, PatternError};
use crate::compile::test_kinds;
use crate::policy::syntax::{normalized, Quantifier};
use crate::shell::command::options::{self, Found, Slot};
use crate::shell::command::uploads;
use crate::shell::command::{
    acts_on_name, destroys_operands, in_place, is_link_text, program_is, Facts, Listing, Outputs,
    RedirectOp, SimpleCommand,
};
use crate::shell::links::MadeLink;
use crate::shell::reach::{self, Classes, Target};
use crate::shell::value::Value as ShellValue;
use crate::validate::model::{
    ClassTest, CommandTest, Op, PathSelector, ProgramOptions, Selector, Test,
};

/// What a selector picked.
pub enum Selected {
    /// JSON values (fields, JSONPath results, facts).
    Values(Vec<Value>),
    /// Simple commands of a shell string.
    Commands(Arc<Vec<SimpleCommand>>),
    /// Normalised absolute paths, with where they lie.
    Paths(Vec<Target>),
    /// The shell string did not parse.
    Unparsable(String),
}

/// Callback for a `command.when` condition over a command (its object).
pub type Nested<'n> = dyn FnMut(&CommandTest, &SimpleCommand, &mut BTreeMap<String, String>) -> Result<bool, EvalError>
    + 'n;

/// Apply a test. Returns the result and, when tracing, what it saw.
pub fn apply(
    t: &Test,
    sel: &Selected,
    ctx: &Ctx,
    captures: &mut BTreeMap<String, String>,
    tracing: bool,
    nested: &mut Nested<'_>,
) -> Result<(bool, String), EvalError> {
    match sel {
        Selected::Unparsable(e) => Ok((false, format!("unparsable command: {e}"))),
        Selected::Commands(cmds) => on_commands(t, cmds, ctx, captures, tracing, nested),
        Selected::Paths(paths) => on_paths(t, paths, ctx, captures, tracing),
        Selected::Values(values) => on_values(t, values, captures, tracing),
    }
}

/// Whether the results of the selected values pass, under the test's quantifier.
fn quantify(t: &Test, results: &[bool]) -> bool {
    match t.quantifier {
        Quantifier::Any => results.iter().any(|b| *b),
        Quantifier::All => !results.is_empty() && results.iter().all(|b| *b),
    }
}

/// A `command = { … }` test of the simple commands of a shell line.
fn on_commands(
    t: &Test,
    cmds: &[SimpleCommand],
    ctx: &Ctx,
    captures: &mut BTreeMap<String, String>,
    tracing: bool,
    nested: &mut Nested<'_>,
) -> Result<(bool, String), EvalError> {
    let Op::Command(ct) = &t.op else {
        return Ok((false, String::new()));
    };
    let mut results = vec![];
    let mut misses = vec![];
    for c in cmds.iter() {
        let miss = command_matches(ct, c, ctx, captures, nested)?;
        results.push(miss.is_none());
        misses.push(miss);
    }
    // A command whose program is right but which fails a later part came
    // close: say which part.
    let saw = if tracing {
        cmds.iter()
            .zip(&misses)
            .map(|(c, miss)| match miss {
                Some(part) if *part != "program" => {
                    format!("{} (program ✓, {part} ✗)", describe_command(c))
                }
                _ => describe_command(c),
            })
            .collect::<Vec<_>>()
            .join(" ; ")
    } else {
        String::new()
    };
    Ok((
        quantify(t, &results),
        if saw.is_empty() {
            "(no commands)".into()
        } else {
            saw
        },
    ))
}

/// A test of normalised paths (`exists`, `class`, `glob`, or a text test of
/// their spellings).
fn on_paths(
    t: &Test,
    paths: &[Target],
    ctx: &Ctx,
    captures: &mut BTreeMap<String, String>,
    tracing: bool,
) -> Result<(bool, String), EvalError> {
    let saw = if tracing {
        let shown: Vec<String> = paths
            .iter()
            .map(|p| {
                let through = match &p.spelled {
                    Some(s) => format!("{} → ", s.path),
                    None => String::new(),
                };
                if matches!(t.op, Op::Class(_)) {
                    format!("{through}{} ({})", p.path, p.classes.names().join(", "))
                } else {
                    format!("{through}{}", p.path)
                }
            })
            .collect();
        format!("{shown:?}")
    } else {
        String::new()
    };
    if let Op::Exists(b) = t.op {
        return Ok((paths.is_empty() != b, saw));
    }
    if let Op::Class(ct) = &t.op {
        let mut results = vec![];
        // A private key and a credential written in a settings file are known
        // by the file's content, read only when asked.
        let by_content = ct.any.by_content() || ct.none.by_content();
        for p in paths {
            let classes = match by_content {
                true => reach::with_content(p),
                false => p.classes,
            };
            let ok = ct.passes(classes);
            if ok {
                capture_target(captures, p, ct, &ctx.reach);
            }
            results.push(ok);
        }
        return Ok((quantify(t, &results), saw));
    }
    let results = paths
        .iter()
        .map(|target| {
            // A list of names matches the path where it lands or as
            // spelled, each judged whole (an exclusion of one form
            // does not excuse the other).
            if let Op::Glob(globs) = &t.op {
                for form in target.forms() {
                    let texts: Vec<String> = path_views(&form.path, ctx)
                        .iter()
                        .map(|v| normalized(v, &t.normalize))
                        .collect();
                    let globs = patterns::for_place(globs, &form.path);
                    let hit = match &form.pattern {
                        Some(marked) => {
                            patterns::globs_name(globs, &texts, &path_views(marked, ctx))?
                        }
                        None => patterns::globs_match(globs, &literal_names(texts))?,
                    };
                    if hit {
                        return Ok(true);
                    }
                }
                return Ok(false);
            }
            let texts: Vec<String> = target
                .forms()
                .flat_map(|f| path_views(&f.path, ctx))
                .map(|v| normalized(&v, &t.normalize))
                .collect();
            text_test(t, &texts, &Value::String(target.path.clone()), captures)
        })
        .collect::<Result<Vec<bool>, EvalError>>()?;
    if paths.is_empty() {
        return Ok((t.op.passes_on_nothing(), saw));
    }
    Ok((quantify(t, &results), saw))
}

/// A test of JSON values (fields, JSONPath results, facts).
fn on_values(
    t: &Test,
    values: &[Value],
    captures: &mut BTreeMap<String, String>,
    tracing: bool,
) -> Result<(bool, String), EvalError> {
    // `quantifier = "all"` over one array means every element.
    let exploded: Vec<Value>;
    let values: &[Value] = match values {
        [Value::Array(items)] if t.quantifier == Quantifier::All => {
            exploded = items.clone();
            &exploded
        }
        _ => values,
    };
    let saw = if tracing {
        if values.is_empty() {
            "(absent)".to_string()
        } else {
            values
                .iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        }
    } else {
        String::new()
    };
    if let Op::Exists(b) = t.op {
        return Ok((values.iter().any(|v| !v.is_null()) == b, saw));
    }
    if values.is_empty() {
        return Ok((t.op.passes_on_nothing(), saw));
    }
    let results = values
        .iter()
        .map(|v| {
            let mut raw = vec![];
            texts(v, &mut raw);
            let texts: Vec<String> = raw.iter().map(|s| normalized(s, &t.normalize)).collect();
            text_test(t, &texts, v, captures)
        })
        .collect::<Result<Vec<bool>, EvalError>>()?;
    Ok((quantify(t, &results), saw))
}

/// One value (given as its texts) against a non-command test.
fn text_test(
    t: &Test,
    texts: &[String],
    value: &Value,
    captures: &mut BTreeMap<String, String>,
) -> Result<bool, EvalError> {
    Ok(test_kinds::passes(
        &t.op,
        &t.normalize,
        texts,
        value,
        captures,
    )?)
}

pub use crate::validate::model::texts;

/// A path a tool names (`file_path`, `path`), or a word of a command
/// (`command.when`'s `operands.1`, through the links the command made
/// before, `made`), normalised, with its classes; its links followed unless
/// `resolve_symlinks = false`, the last one only when `follow_last`.
pub fn tool_path(
    p: &str,
    ctx: &Ctx,
    resolve_symlinks: bool,
    follow_last: bool,
    made: &[MadeLink],
) -> Target {
    // Answered once per event ([`Located`]): a file tool's path is judged by
    // each rule's test of it (eleven on a harmless Write).
    let key = (p.to_string(), resolve_symlinks, follow_last);
    let answered = |seen: &Answers| {
        seen.tools
            .get(&key)
            .and_then(|found| found.iter().find(|(m, _)| m == made))
            .map(|(_, target)| target.clone())
    };
    if let Some(target) = ctx.located.find(answered) {
        return target;
    }
    let how = reach::Use {
        resolve: resolve_symlinks,
        follow_last,
        made,
    };
    let target = reach::tool_target(p, &ctx.reach, how);
    ctx.located
        .lock()
        .tools
        .entry(key)
        .or_default()
        .push((made.to_vec(), target.clone()));
    target
}

/// Where a shell value may point, seen from the directory `cwd`, for command
/// `c`: through the links it made before, its last component followed unless
/// `by_name` (`rm`, `mv` act on a link itself). Answered once per event for
/// each question ([`Located`]).
fn shell_targets(
    v: &ShellValue,
    c: &SimpleCommand,
    ctx: &Ctx,
    resolve_symlinks: bool,
    by_name: bool,
) -> Vec<Target> {
    let key = (v.clone(), c.cwd.clone(), resolve_symlinks, by_name);
    let answered = |seen: &Answers| {
        seen.shell
            .get(&key)
            .and_then(|found| found.iter().find(|(made, _)| *made == c.made))
            .map(|(_, targets)| targets.clone())
    };
    if let Some(targets) = ctx.located.find(answered) {
        return targets;
    }
    let how = reach::Use {
        resolve: resolve_symlinks,
        follow_last: !by_name,
        made: &c.made,
    };
    let targets = reach::targets_for(v, &c.cwd, &ctx.reach, how);
    ctx.located
        .lock()
        .shell
        .entry(key)
        .or_default()
        .push((c.made.clone(), targets.clone()));
    targets
}

/// The places shell values and tools' paths were found to point at during
/// one event: shell values by (value, the command's folder, links resolved,
/// acted on by name), tools' paths by (path, links resolved, last link
/// followed), each with the links made before: the prefilter and the tests
/// ask where the same operands and paths land (several selectors and rules
/// each), and each answer follows links and checks every guarded place (tens
/// of thousands of instructions per path). The event's context is made once
/// per event and not changed, so an answer stays right for the event.
///
/// A context that judges fewer classes ([`Ctx::judging`]) also takes the
/// answers of those that judge more (`wider`): a path's classes there hold
/// the ones it judges, and its place and texts are the same.
#[derive(Debug, Clone, Default)]
pub struct Located {
    answers: Arc<Mutex<Answers>>,
    wider: Vec<Arc<Mutex<Answers>>>,
}

/// [`Located`]'s answers.
#[derive(Debug, Default)]
struct Answers {
    shell: HashMap<(ShellValue, ShellValue, bool, bool), AfterLinks<Vec<Target>>>,
    tools: HashMap<(String, bool, bool), AfterLinks<Target>>,
}

/// Answers by the links made before.
type AfterLinks<T> = Vec<(Vec<MadeLink>, T)>;

impl Located {
    fn lock(&self) -> std::sync::MutexGuard<'_, Answers> {
        lock(&self.answers)
    }

    /// The first answer `answered` finds, in these answers, then in the
    /// wider ones.
    fn find<T>(&self, answered: impl Fn(&Answers) -> Option<T>) -> Option<T> {
        std::iter::once(&self.answers)
            .chain(&self.wider)
            .find_map(|a| answered(&lock(a)))
    }

    /// New answers of their own that also take these ones (and their wider
    /// ones).
    fn narrower(&self) -> Located {
        Located {
            answers: Arc::default(),
            wider: std::iter::once(&self.answers)
                .chain(&self.wider)
                .cloned()
                .collect(),
        }
    }
}

fn lock(answers: &Mutex<Answers>) -> std::sync::MutexGuard<'_, Answers> {
    // A panic elsewhere while it was held leaves only finished answers.
    answers.lock().unwrap_or_else(|e| e.into_inner())
}

/// Most entries of a tree judged one by one (see `listed_targets`).
const MAX_TREE_JUDGED: usize = 256;

/// Where the names a patch or archive lists land (`git apply fix.patch`,
/// `tar -xf a.tar -C d`), read from the file on disk; `None` when the file is
/// not one known place or its names cannot be read (`shell::contents`).
fn listed_targets(
    l: &Listing,
    c: &SimpleCommand,
    ctx: &Ctx,
    ps: &PathSelector,
) -> Option<Vec<Target>> {
    let files = shell_targets(&l.file, c, ctx, true, false);
    let [file] = files.as_slice() else {
        return None;
    };
    if file.pattern.is_some() || file.classes.has(reach::Class::Unknown) {
        return None;
    }
    let path = std::path::Path::new(&file.path);
    let mut out = Vec::new();
    let names = if l.kind == crate::shell::contents::Kind::Tree {
        // A tree read in part: the names read, and unknown names below where
        // it lands (what counts when nothing could be read).
        let tree = crate::shell::contents::tree(path)?;
        if !tree.complete {
            let below = l.unknown_below();
            out.extend(shell_targets(&below, c, ctx, ps.resolve_symlinks, false));
        }
        // Judged one by one (through links) are only the entries whose
        // landing could be protected by its spelling, and those below an
        // entry that lands on a link already there, at most
        // `MAX_TREE_JUDGED`; past that, the unknown names below where the
        // tree lands count: a tree of thousands of files stays within the
        // deadline.
        let roots = shell_targets(&l.into, c, ctx, ps.resolve_symlinks, false);
        let env = &ctx.reach;
        let known = roots
            .iter()
            .all(|r| r.path.starts_with('/') && r.pattern.is_none());
        let landings: Vec<(String, reach::Landing)> = roots
            .iter()
            .map(|r| {
                let root = r.path.trim_end_matches('/').to_string();
                let test = reach::Landing::new(&root, env);
                (root, test)
            })
            .collect();
        // Whether a top-level entry lands on a link already there, asked
        // once per entry and folder (the tree's names repeat their tops).
        let mut top_is_link: Vec<HashMap<String, bool>> = vec![HashMap::new(); landings.len()];
        // A copy of a configuration file in effect (the project copied
        // whole to a backup) adds no hook that does not already run: it is
        // judged only where it lands on a place guarded where it is, or
        // through a link.
        let source = file.path.trim_end_matches('/');
        // A configuration file in effect, by its name in the source or by
        // where that name really is (`homelink/.claude/settings.json`, a
        // link in the project to the home folder, is the user's own).
        let in_effect = |name: &str| {
            let path = format!("{source}/{name}");
            reach::is_config_in_effect(&path, env)
                || std::fs::canonicalize(&path).is_ok_and(|real| {
                    real.to_str()
                        .is_some_and(|real| reach::is_config_in_effect(real, env))
                })
        };
        let mut keep = |name: &str| {
            if name == "." || !known {
                return true;
            }
            let top = name.split('/').next().unwrap_or(name);
            landings
                .iter()
                .zip(top_is_link.iter_mut())
                .any(|((root, test), links)| {
                    let mut via_link = || match links.get(top) {
                        Some(&is) => is,
                        None => {
                            let is = env.links.is_link(&format!("{root}/{top}"));
                            links.insert(top.to_string(), is);
                            is
                        }
                    };
                    if !test.may_reach_guard(name) {
                        return via_link();
                    }
                    test.reaches_own_guard(name) || !in_effect(name) || via_link()
                })
        };
        let mut kept: Vec<String> = Vec::new();
        for name in tree.names {
            if !keep(&name) {
                continue;
            }
            if kept.len() >= MAX_TREE_JUDGED {
                if tree.complete {
                    out.extend(shell_targets(
                        &l.unknown_below(),
                        c,
                        ctx,
                        ps.resolve_symlinks,
                        false,
                    ));
                }
                break;
            }
            kept.push(name);
        }
        kept
    } else {
        crate::shell::contents::names(path, l.kind)?
    };
    let renaming = l.renaming();
    for name in names {
        let name = match &renaming {
            Some(t) => t.apply(&name),
            None => name,
        };
        out.extend(shell_targets(
            &l.member(&name),
            c,
            ctx,
            ps.resolve_symlinks,
            false,
        ));
    }
    Some(out)
}

/// Record which target made a class test pass (`captures.target`,
/// `captures.target_class`), unless an earlier test did.
fn capture_target(
    captures: &mut BTreeMap<String, String>,
    t: &Target,
    ct: &ClassTest,
    env: &reach::Env,
) {
    if captures.contains_key("target") {
        return;
    }
    captures.insert("target".into(), t.path.clone());
    if let Some(s) = &t.spelled {
        captures.insert("target_spelled".into(), s.path.clone());
    }
    if t.classes.meets(reach::GUARDS) {
        let what = t.forms().find_map(|f| {
            let text = f.pattern.as_deref().unwrap_or(&f.path);
            reach::guarded_by(text, env)
        });
        if let Some(g) = what {
            captures.insert("target_guard".into(), g.what.to_string());
        }
    }
    if let Some(name) = ct.which(t.classes) {
        captures
            .entry("target_class".into())
            .or_insert_with(|| name.to_string());
    }
}

/// Does a target match a glob list: its path, or, for a shell pattern, a name
/// it can match (`patterns::globs_name`)?
fn target_glob(
    globs: &crate::validate::model::Globs,
    t: &Target,
    ctx: &Ctx,
) -> Result<bool, PatternError> {
    for form in t.forms() {
        let texts = path_views(&form.path, ctx);
        let globs = patterns::for_place(globs, &form.path);
        let hit = match &form.pattern {
            Some(marked) => patterns::globs_name(globs, &texts, &path_views(marked, ctx))?,
            None => patterns::globs_match(globs, &literal_names(texts))?,
        };
        if hit {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The texts of a path that is no pattern, for a list of globs: a `*` or `?`
/// in it is a character of a name (`rm '*'`, `rm \*` delete a file named
/// `*`), so it is written as a character no list entry spells. A wildcard of
/// the list still matches it (`~/*` matches `~/*` the file); an escaped one
/// (`'$PROJECT_DIR/\*'`) names the pattern text and matches only a pattern.
fn literal_names(texts: Vec<String>) -> Vec<String> {
    let name_char = crate::shell::glob::NAME_WILDCARD.to_string();
    texts
        .into_iter()
        .map(|t| match t.contains(['*', '?']) {
            true => t.replace(['*', '?'], &name_char),
            false => t,
        })
        .collect()
}

/// A path and its symbolic forms: `~/...` under `$HOME`, `$PROJECT_DIR/...` in the project.
pub fn path_views(abs: &str, ctx: &Ctx) -> Vec<String> {
    let mut v = vec![abs.to_string()];
    let mut rel = |base: &str, name: &str| {
        if base.is_empty() || base == "/" {
            return;
        }
        match crate::shell::place::below(abs, base) {
            Some("") => v.push(name.to_string()),
            Some(rest) => v.push(format!("{name}{rest}")),
            None => {}
        }
    };
    if let Some(h) = ctx.home.as_deref() {
        rel(h.trim_end_matches('/'), "~");
    }
    let project = ctx.project_dir.display().to_string();
    rel(project.trim_end_matches('/'), "$PROJECT_DIR");
    v
}

/// The paths a list of commands touches, as the selector asks, resolved from
/// the directory each command runs in. Redirections always count (the shell
/// performs them, whatever the program); operands of `skip_programs` do not.
pub fn paths_from_commands(cmds: &[SimpleCommand], ps: &PathSelector, ctx: &Ctx) -> Vec<Target> {
    paths_from_commands_with(cmds, ps, ctx, &Facts::new(cmds.len()))
}

/// [`paths_from_commands`], with what each command writes asked of `facts`
/// (made for `cmds`).
fn paths_from_commands_with(
    cmds: &[SimpleCommand],
    ps: &PathSelector,
    ctx: &Ctx,
    facts: &Facts,
) -> Vec<Target> {
    let mut out = vec![];
    for (at, c) in cmds.iter().enumerate() {
        if ps.writes {
            let skipped = ps.skip_programs.iter().any(|p| program_is(&c.program, p));
            for w in facts.writes(at, c).iter() {
                if ps.replaces && w.keeps {
                    continue;
                }
                let redirect = c.redirects.iter().any(|r| r.value == w.value);
                if skipped && !redirect {
                    continue;
                }
                if w.listed
                    .as_ref()
                    .is_some_and(|l| l.unless_folder && is_folder(&l.into, c, ctx))
                {
                    continue;
                }
                if let Some(listed) = w
                    .listed
                    .as_ref()
                    .and_then(|l| listed_targets(l, c, ctx, ps))
                {
                    out.extend(listed);
                    continue;
                }
                for t in shell_targets(&w.value, c, ctx, ps.resolve_symlinks, w.by_name) {
                    if w.below {
                        out.extend(reach::below(&t, &ctx.reach));
                    }
                    if w.below && w.through_links {
                        out.extend(reach::linked_below(&t, &ctx.reach));
                    }
                    out.push(t);
                }
            }
            continue;
        }
        // What the program reads on standard input, when a table says it uses
        // it (`kubeseal < secret.yaml` seals it).
        let stdin_used = uses_stdin(c, &ps.skip_options);
        for r in &c.redirects {
            if stdin_used && r.op == RedirectOp::Read && r.fd.is_none_or(|fd| fd == 0) {
                continue;
            }
            let reads = matches!(r.op, RedirectOp::Read | RedirectOp::ReadWrite);
            let writes = r.op != RedirectOp::Read;
            let wanted = if ps.reads_only {
                reads
            } else {
                writes || ps.written_by.is_none()
            };
            if wanted && !r.target.is_empty() {
                out.extend(shell_targets(&r.value, c, ctx, ps.resolve_symlinks, false));
            }
        }
        if ps.skip_programs.iter().any(|p| program_is(&c.program, p)) {
            continue;
        }
        let only_written = ps.written_by.is_some() || !ps.written_through.is_empty();
        let operands_count = match &ps.written_by {
            Some(list) => list.iter().any(|p| program_is(&c.program, p)),
            None => !only_written,
        };
        // Files written through arguments (`sort -o F`, `cp`'s destination,
        // `dd of=F`) count like output redirections.
        let mut written = if only_written || ps.reads_only {
            facts.outputs(at, c).into_owned()
        } else {
            Outputs::default()
        };
        // The places of the selector's `written_through` table too.
        let through = places(c, &ps.written_through);
        for (w, t) in written.operand.iter_mut().zip(&through.operand) {
            *w |= *t;
        }
        written.glued.extend(through.glued);
        // The files an in-place editor changes (`sed -i.bak … F`, `perl -pi
        // … F`, `gawk -i inplace … F`) are written too; for `reads_only` they
        // stay read (their content is what the edit works on).
        if only_written && in_place(c) {
            for (i, _) in c.target_operands() {
                if let Some(w) = written.operand.get_mut(i) {
                    *w = true;
                }
            }
        }
        if only_written {
            for v in &written.glued {
                out.extend(shell_targets(v, c, ctx, ps.resolve_symlinks, false));
            }
            // Folders the command fills (`aria2c -d DIR`, `tar -x -C DIR`).
            for w in facts.filled(at, c).iter() {
                match w
                    .listed
                    .as_ref()
                    .and_then(|l| listed_targets(l, c, ctx, ps))
                {
                    Some(listed) => out.extend(listed),
                    None => out.extend(shell_targets(&w.value, c, ctx, ps.resolve_symlinks, false)),
                }
            }
        }
        // The values of options that take a file to use (`scp -i KEY`), and
        // a file handed straight to a command that uses what it reads (`cat
        // TOKEN | docker login --password-stdin`).
        let used = skipped_places(c, &ps.skip_options).operand;
        // What a command removes or wipes (`rm`, `shred`, `truncate`) it
        // does not read.
        let handed_over = ps.reads_only
            && (destroys_operands(c) || hands_to_user(c, cmds.get(at + 1), &ps.skip_options));
        let text = crate::shell::command::shell_text_operands(c);
        for (i, (o, v)) in c.operands.iter().zip(&c.operand_values).enumerate() {
            if handed_over || used.get(i).copied().unwrap_or(false) || text.contains(&i) {
                continue;
            }
            let is_output = written.operand.get(i).copied().unwrap_or(false);
            let counts = if ps.reads_only {
                !is_output
            } else {
                operands_count || (only_written && is_output)
            };
            if counts && !o.is_empty() && !is_link_text(c, i) {
                let by_name = acts_on_name(c, i);
                let targets = shell_targets(v, c, ctx, ps.resolve_symlinks, by_name);
                if ps.reads_only && targets.iter().all(|t| names_no_local_file(o, t)) {
                    continue;
                }
                out.extend(targets);
            }
        }
        // Files a request sends, named inside an argument (`curl -F f=@F`,
        // `--data-binary @F`, `wget --post-file=F`): read where they land.
        if !only_written {
            for v in uploads(c) {
                out.extend(shell_targets(&v, c, ctx, ps.resolve_symlinks, false));
            }
        }
        if operands_count && c.operands_from_input {
            out.push(Target::plain(
                "(operands read from input)".into(),
                Classes::of(&[reach::Class::Unknown]),
            ));
        }
    }
    out
}

/// Is `v` (every place it may be) a folder on disk now? A tree moved or
/// copied there lands inside it (`mv x.ts /tmp/`: `/tmp/x.ts`), not as it.
fn is_folder(v: &ShellValue, c: &SimpleCommand, ctx: &Ctx) -> bool {
    let places = shell_targets(v, c, ctx, true, false);
    !places.is_empty()
        && places.iter().all(|t| {
            t.pattern.is_none()
                && t.path.starts_with('/')
                && !t.classes.has(reach::Class::Unknown)
                && std::path::Path::new(&t.path).is_dir()
        })
}

/// The places a table of options (`skip_options`, `written_through`) names in
/// `c`, from the entries for its program (none: nothing found).
fn places(c: &SimpleCommand, table: &[ProgramOptions]) -> Found {
    places_of(c, table, false)
}

/// [`places`], from the entries that hold for `c`; `named_only`: leave out
/// the lines for any program (`*`).
fn places_of(c: &SimpleCommand, table: &[ProgramOptions], named_only: bool) -> Found {
    let slots: Vec<Slot<'_>> = table
        .iter()
        .filter(|p| !(named_only && p.program == "*") && entry_applies(p, c))
        .flat_map(|p| p.options.iter().filter_map(|o| Slot::parse(o)))
        .collect();
    if slots.is_empty() {
        return Found {
            operand: vec![false; c.operands.len()],
            glued: vec![],
        };
    }
    options::find(c, &slots)
}

/// The places a table of places left out (`skip_options`) names in `c`. A
/// line for any program (`"* --token-file"`) says what programs do with an
/// option, which a shell or an interpreter running a script does not tell:
/// the script decides (`python3 show.py --token-file ~/.token` may print
/// it), so such lines do not leave its operands out. A line naming the
/// interpreter itself (`"node --env-file"`) still does.
fn skipped_places(c: &SimpleCommand, table: &[ProgramOptions]) -> Found {
    places_of(c, table, crate::shell::command::runs_code(c))
}

/// Does a table entry hold for `c`: its program, its subcommand (one of the
/// alternatives), the options it must have and must lack, the most operands
/// it may have?
fn entry_applies(p: &ProgramOptions, c: &SimpleCommand) -> bool {
    p.applies_to(&c.program)
        && p.max_operands.is_none_or(|n| c.operands.len() <= n)
        && (p.subcommand.is_empty()
            || p.subcommands()
                .iter()
                .any(|s| crate::shell::command::subcommand_matches(c, s)))
        && p.with.iter().all(|o| options::meets(c, o))
        && !p.without.iter().any(|o| options::meets(c, o))
        && (p.only.is_empty() || {
            // The required options are allowed too (without their value: `-c`
            // of `+-c=read-keys`).
            let required = p
                .with
                .iter()
                .map(|o| match o.get(1..).and_then(|r| r.find('=')) {
                    Some(at) => &o[..at + 1],
                    None => o.as_str(),
                });
            let allowed: Vec<&str> = p.only.iter().map(String::as_str).chain(required).collect();
            options::options_only(c, &allowed)
        })
}

/// Is `c` a `cat` of one file whose output is the standard input of the next
/// command, `next`, which a table says uses what it reads there (`cat TOKEN |
/// docker login --password-stdin`): the files are handed over, not printed.
fn hands_to_user(
    c: &SimpleCommand,
    next: Option<&SimpleCommand>,
    table: &[ProgramOptions],
) -> bool {
    let Some(next) = next else {
        return false;
    };
    program_is(&c.program, "cat")
        && c.flags.is_empty()
        && c.operands.len() == 1
        && c.output_in.is_none()
        && c.output_to.len() == 1
        && c.output_to.first().is_some_and(|p| *p == next.program)
        && uses_stdin(next, table)
}

/// Does a table give `c` standard input as a place it uses (`"kubeseal <"`)?
fn uses_stdin(c: &SimpleCommand, table: &[ProgramOptions]) -> bool {
    table
        .iter()
        .any(|p| p.options.iter().any(|o| o == "<") && entry_applies(p, c))
}

/// An operand that is a URL (`https://host/x.key`, `oci://…`), where the
/// folder its scheme would name (`https:`) does not exist: no program can open
/// it as a file, so it reads nothing from the disk. A `file:` URL, and a URL
/// whose path climbs (`..`), are judged as paths.
fn names_no_local_file(operand: &str, t: &Target) -> bool {
    let Some((scheme, rest)) = operand.split_once("://") else {
        return false;
    };
    let is_scheme = scheme.len() > 1
        && scheme.starts_with(|ch: char| ch.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || matches!(ch, '+' | '-' | '.'));
    if !is_scheme || scheme.eq_ignore_ascii_case("file") {
        return false;
    }
    if rest.is_empty() || rest.split('/').any(|part| part == ".." || part == ".") {
        return false;
    }
    let folder = format!("/{scheme}:");
    match t.path.find(&format!("{folder}/")) {
        Some(at) => !std::path::Path::new(&t.path[..at + folder.len()]).exists(),
        None => false,
    }
}

/// The prefilter sees the paths a command names or a field holds as the
/// tests do: every form ([`path_views`]) of each path [`paths_from_commands`]
/// or [`field_paths`] picks, and the classes a `class` test judges (where
/// each path lands).
impl crate::compile::reach::CommandPaths for Ctx {
    fn paths_seen(
        &self,
        commands: &[SimpleCommand],
        facts: &Facts,
        selector: &PathSelector,
        wanted: Classes,
    ) -> crate::compile::reach::PathsSeen {
        let ctx = self.judging(wanted);
        seen(
            &paths_from_commands_with(commands, selector, ctx, facts),
            ctx,
            wanted.by_content(),
        )
    }

    fn field_paths_seen(
        &self,
        value: &Value,
        selector: &PathSelector,
        wanted: Classes,
    ) -> crate::compile::reach::PathsSeen {
        // All classes: the rules of a file tool judge its path in the
        // common case, and take these answers (a twin's answers would be
        // made again: +21k instructions on a harmless Read, callgrind).
        seen(
            &field_paths(value, selector, self),
            self,
            wanted.by_content(),
        )
    }
}

impl Ctx {
    /// The context that judges the classes `wanted`: this one, or when they
    /// leave some classes of place out, its twin that judges only what they
    /// need ([`reach::Judged`]), made once per event with answers of its own
    /// ([`Located`]). The paths and their texts are the same; only the
    /// classes `wanted` does not hold may be left out.
    pub(crate) fn judging(&self, wanted: Classes) -> &Ctx {
        let judged = reach::Judged::wanting(wanted);
        let twin = match judged {
            reach::Judged::All => return self,
            reach::Judged::Key => &self.twins.0[0],
            reach::Judged::Unplaced => &self.twins.0[1],
        };
        twin.get_or_init(|| {
            // The key's twin, when made, judges more than the twin without
            // classes of place: its answers serve that one too.
            let wider = match judged {
                reach::Judged::Unplaced => self.twins.0[0].get().map(|t| &t.located),
                _ => None,
            };
            let mut twin = self.clone();
            twin.reach.judged = judged;
            twin.located = wider.unwrap_or(&self.located).narrower();
            Box::new(twin)
        })
    }
}

/// [`Ctx::judging`]'s twins, each made when first asked. A copy of a
/// context starts without them (it makes its own from what it holds).
#[derive(Default)]
pub struct Twins([std::sync::OnceLock<Box<Ctx>>; 2]);

impl Clone for Twins {
    fn clone(&self) -> Twins {
        Twins::default()
    }
}

impl std::fmt::Debug for Twins {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Twins")
    }
}

/// What a test sees of these paths.
fn seen(targets: &[Target], ctx: &Ctx, content: bool) -> crate::compile::reach::PathsSeen {
    let classes = targets.iter().fold(Classes::default(), |all, t| {
        all.union(match content {
            true => reach::with_content(t),
            false => t.classes,
        })
    });
    // A shell pattern (`.e*`) is judged by the names it can match
    // (`patterns::globs_name`), which need not hold a list's literal.
    let pattern = targets
        .iter()
        .flat_map(Target::forms)
        .any(|t| t.pattern.is_some());
    let texts = (!pattern).then(|| {
        targets
            .iter()
            .flat_map(Target::forms)
            .flat_map(|t| path_views(&t.path, ctx))
            .collect()
    });
    crate::compile::reach::PathsSeen { texts, classes }
}

/// The paths a `paths` selector picks from an event field (`paths =
/// "tool_input.file_path"`): where each of its texts lands, as a tool
/// opens it.
pub fn field_paths(value: &Value, ps: &PathSelector, ctx: &Ctx) -> Vec<Target> {
    let mut found: Vec<String> = vec![];
    texts(value, &mut found);
    found
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| tool_path(p, ctx, ps.resolve_symlinks, true, &[]))
        .collect()
}

/// Where target operand `i` (value `v`) of `c` lands, and, when `c`
/// recurses following every link it meets (`find -L … -delete`, `chown -R
/// -L`), where the links below it lead.
fn operand_targets(v: &ShellValue, i: usize, c: &SimpleCommand, ctx: &Ctx) -> Vec<Target> {
    let mut out = shell_targets(v, c, ctx, true, acts_on_name(c, i));
    if crate::shell::command::follows_links_below(c) {
        let linked: Vec<Target> = out
            .iter()
            .flat_map(|t| reach::linked_below(t, &ctx.reach))
            .collect();
        out.extend(linked);
    }
    out
}

/// Does a simple command pass a command test? `Ok(None)`: it does;
/// `Ok(Some(part))`: the first part of the test it fails (`program`,
/// `flags_all`, ...), which `explain` shows for commands that came close.
fn command_matches(
    ct: &CommandTest,
    c: &SimpleCommand,
    ctx: &Ctx,
    captures: &mut BTreeMap<String, String>,
    nested: &mut Nested<'_>,
) -> Result<Option<&'static str>, EvalError> {
    if !ct.program.is_empty() && !ct.program.iter().any(|p| program_is(&c.program, p)) {
        return Ok(Some("program"));
    }
    if ct.program_unknown.is_some_and(|b| b != c.program_unknown) {
        return Ok(Some("program_unknown"));
    }
    if !ct.code.is_empty() && !c.code.is_some_and(|k| ct.code.contains(&k)) {
        return Ok(Some("code"));
    }
    if !crate::shell::command::subcommand_matches(c, &ct.subcommand) {
        return Ok(Some("subcommand"));
    }
    if let Some(part) = ct.words.fails(c) {
        return Ok(Some(part));
    }
    // Operands at the test's `skip_options` places are no targets.
    let skipped = match ct.skip_options.is_empty() {
        true => vec![],
        false => skipped_places(c, &ct.skip_options).operand,
    };
    let targets = || {
        c.target_operands()
            .filter(|(i, _)| !skipped.get(*i).copied().unwrap_or(false))
    };
    if let Some(globs) = &ct.target_glob {
        // A list of names reads no class of place: without a `target_class`
        // (which judges the same operands whole), they are not judged
        // ([`Ctx::judging`]).
        let judging = match ct.target_class {
            None => ctx.judging(Classes::default()),
            Some(_) => ctx,
        };
        let mut hit = false;
        'operands: for (i, v) in targets() {
            for t in operand_targets(v, i, c, judging) {
                if target_glob(globs, &t, ctx)? {
                    hit = true;
                    break 'operands;
                }
            }
        }
        if !hit {
            return Ok(Some("target_glob"));
        }
    }
    if let Some(cls) = &ct.target_class {
        let judging = ctx.judging(cls.any.union(cls.none));
        let mut found: Option<Target> = None;
        'find: for (i, v) in targets() {
            for t in operand_targets(v, i, c, judging) {
                if cls.passes(t.classes) {
                    found = Some(t);
                    break 'find;
                }
            }
        }
        if found.is_none() && c.operands_from_input {
            let t = Target::plain(
                "(operands read from input)".into(),
                Classes::of(&[reach::Class::Unknown]),
            );
            if cls.passes(t.classes) {
                found = Some(t);
            }
        }
        match found {
            Some(t) => capture_target(captures, &t, cls, &ctx.reach),
            None => return Ok(Some("target_class")),
        }
    }
    if let Some(r) = &ct.arg_matches {
        if !patterns::regexes_may_match(r, &c.args) {
            return Ok(Some("arg_matches"));
        }
        let set = patterns::regex_set(r)?;
        if !c.args.iter().any(|a| set.is_match(a)) {
            return Ok(Some("arg_matches"));
        }
    }
    if ct.when.is_some() && !nested(ct, c, captures)? {
        return Ok(Some("when"));
    }
    Ok(None)
}

pub fn describe_command(c: &SimpleCommand) -> String {
    let mut s = String::new();
    if !c.via.is_empty() {
        s.push_str(&format!("[via {}] ", c.via.join(" > ")));
    }
    s.push_str(&c.program);
    for a in &c.args {
        s.push(' ');
        s.push_str(a);
    }
    s
}

/// A one-line description of a test, for traces.
pub fn describe(t: &Test) -> String {
    let from_command = matches!(&t.selector, Selector::Paths(p) if p.from_command);
    let sel = format!(
        "{} {}{}",
        t.selector.kind().trace_words(),
        t.selector_text,
        if from_command { " (from command)" } else { "" }
    );
    let norm = if t.normalize.is_empty() {
        String::new()
    } else {
        format!(" normalized {:?}", t.normalize).to_lowercase()
    };
    let op = test_kinds::describe(&t.op);
    format!("{sel}{norm} {op}")
}
