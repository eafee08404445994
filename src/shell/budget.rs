//! What the shell analysis may spend on one command.
//!
//! A few hundred bytes of shell can ask for gigabytes: a variable doubled forty
//! times (`x=a; x=$x$x; …`), an array doubled the same way, a function that
//! calls another four times, sixteen deep. bash would run out of memory too, but
//! hookrules must answer, within the client's deadline, and stay small under an
//! address-space limit (`ulimit -v`, where a failed allocation aborts the
//! process). So the analysis of one command works within a budget, and a
//! command that goes past it is *unparsable*: the policy's `unparsable_command`
//! answers (the built-in pack asks), never a command let through unread.
//!
//! The budget is measured where the cost is, not guessed from the syntax:
//!
//! - **memory**: what the analysing thread allocates, as the global allocator
//!   counts it ([`crate::os::arena::thread_usage`]): at most [`MAX_HELD`] more
//!   held at once, and [`MAX_SPENT`] allocated in all (copies of values that are
//!   freed again are work too). Checked at every command and every word the
//!   analysis expands ([`check`]), so whatever part of the analysis grows, it is
//!   caught;
//! - **one value** holds at most [`MAX_VALUE_BYTES`] of text, and one word
//!   expands to at most [`MAX_FIELDS`] fields, so no single step between two
//!   checks can allocate much: a value that would grow past them stops growing
//!   and the command is over budget.
//!
//! An ordinary command uses a small part of it: the largest command the
//! analysis reads (`compile::reach::MAX_SHELL_BYTES`, 256 KiB) of plain words
//! stays under the memory budget (see the tests in `tests/library/shell_robustness.rs`).
//!
//! The state is per thread (one analysis at a time per thread; a nested
//! analysis, such as the shell code an interpreter's inline code runs, shares
//! the outermost one's budget).

use std::cell::Cell;

use crate::os::arena;

/// The most text one value may hold (bytes): far beyond any path or argument,
/// reached by a value built to grow.
pub const MAX_VALUE_BYTES: usize = 1 << 20;
/// The most fields one word may expand to (brace expansion stops at 32 words).
pub const MAX_FIELDS: usize = 1 << 12;
/// The most memory the analysis of one command may hold at once, beyond what
/// the thread held when it started.
pub const MAX_HELD: usize = 96 << 20;
/// The most memory the analysis of one command may allocate in all.
pub const MAX_SPENT: usize = 1 << 30;

/// What one analysis may spend: [`Limits::COMMAND`] for a command line, a
/// smaller one for the scripts it runs from disk
/// (`shell::command::add_script_code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The most memory held at once beyond what the thread held at the start.
    pub held: usize,
    /// The most memory allocated in all.
    pub spent: usize,
    /// The latest time it may still run.
    pub deadline: Option<std::time::Instant>,
}

impl Limits {
    /// A command line's: [`MAX_HELD`], [`MAX_SPENT`], no clock (the memory
    /// bounds the work; the process' own deadline answers past it).
    pub const COMMAND: Limits = Limits {
        held: MAX_HELD,
        spent: MAX_SPENT,
        deadline: None,
    };
}

/// What went past the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Over {
    /// A value grew past [`MAX_VALUE_BYTES`].
    Value,
    /// A word expanded to more than [`MAX_FIELDS`] fields.
    Fields,
    /// The analysis held more than [`MAX_HELD`].
    Held,
    /// The analysis allocated more than [`MAX_SPENT`] in all.
    Spent,
    /// The analysis ran past its deadline.
    Time,
}

impl Over {
    /// What happened, for the unparsable reason.
    #[must_use]
    pub fn describe(self) -> String {
        match self {
            Over::Value => format!(
                "a value grows past {} KiB (a variable that doubles at each step?)",
                MAX_VALUE_BYTES >> 10
            ),
            Over::Fields => format!("a word expands to more than {MAX_FIELDS} words"),
            Over::Held => format!(
                "its analysis needs more than {} MiB of memory",
                MAX_HELD >> 20
            ),
            Over::Spent => format!(
                "its analysis needs more than {} MiB of work",
                MAX_SPENT >> 20
            ),
            Over::Time => "its analysis takes longer than its time budget".into(),
        }
    }
}

/// Where the outermost analysis started, and what went over first.
#[derive(Clone, Copy)]
struct Running {
    start: arena::Usage,
    limits: Limits,
    over: Option<Over>,
}

thread_local! {
    static RUNNING: Cell<Option<Running>> = const { Cell::new(None) };
}

/// An analysis in progress on this thread: the outermost one sets the budget
/// from the memory the thread holds now, and ends it when dropped.
#[must_use = "the budget lasts as long as the scope"]
pub struct Scope {
    outermost: bool,
}

/// Start an analysis (or join the one in progress).
pub fn scope() -> Scope {
    scope_within(Limits::COMMAND)
}

/// Start an analysis within `limits` (or join the one in progress, whose
/// limits stand).
pub fn scope_within(limits: Limits) -> Scope {
    let outermost = RUNNING.with(|r| {
        if r.get().is_some() {
            return false;
        }
        r.set(Some(Running {
            start: arena::thread_usage(),
            limits,
            over: None,
        }));
        true
    });
    Scope { outermost }
}

impl Drop for Scope {
    fn drop(&mut self) {
        if self.outermost {
            RUNNING.with(|r| r.set(None));
        }
    }
}

/// Record that the analysis went past the budget (the first cause is kept).
/// Outside an analysis, nothing happens.
pub fn exceed(what: Over) {
    RUNNING.with(|r| {
        if let Some(mut run) = r.get() {
            if run.over.is_none() {
                run.over = Some(what);
                r.set(Some(run));
            }
        }
    });
}

/// Is the analysis still within its budget? Checks the memory it holds and has
/// allocated so far, and the clock when it has a deadline.
///
/// # Errors
/// What went past the budget, first.
pub fn check() -> Result<(), Over> {
    let Some(run) = RUNNING.with(Cell::get) else {
        return Ok(());
    };
    if let Some(o) = run.over {
        return Err(o);
    }
    let now = arena::thread_usage();
    let over = if now.held.saturating_sub(run.start.held) > run.limits.held {
        Some(Over::Held)
    } else if now.spent.saturating_sub(run.start.spent) > run.limits.spent {
        Some(Over::Spent)
    } else if run
        .limits
        .deadline
        .is_some_and(|d| std::time::Instant::now() > d)
    {
        Some(Over::Time)
    } else {
        None
    };
    match over {
        Some(o) => {
            exceed(o);
            Err(o)
        }
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_cause_is_kept_until_the_outermost_scope_ends() {
        assert_eq!(check(), Ok(()), "no analysis: nothing to check");
        exceed(Over::Value);
        assert_eq!(check(), Ok(()), "outside an analysis nothing is recorded");
        {
            let _outer = scope();
            assert_eq!(check(), Ok(()));
            {
                let _inner = scope();
                exceed(Over::Fields);
            }
            exceed(Over::Value);
            assert_eq!(
                check(),
                Err(Over::Fields),
                "the inner scope shares the budget"
            );
        }
        let _next = scope();
        assert_eq!(check(), Ok(()), "a new analysis starts afresh");
    }

    #[test]
    fn memory_held_past_the_budget_is_over() {
        let _s = scope();
        let mut hold: Vec<Vec<u8>> = vec![];
        while check().is_ok() {
            hold.push(vec![1u8; 8 << 20]);
            assert!(
                hold.len() <= MAX_HELD / (8 << 20) + 1,
                "caught within one block"
            );
        }
        assert_eq!(check(), Err(Over::Held));
    }
}
