//! Why evaluating a rule failed, typed: a fact, a template (with its policy
//! file and line), a pattern list, a selector, an argument refused. `run`'s
//! fail-closed reason, `explain`'s trace and `hookrules test`'s failure output
//! all render the same value (see [`super::RuleFailure`]).

use crate::compile::patterns::PatternError;
use crate::compile::templates::TemplateError;

use super::facts::FactError;

/// Why a condition or a rendering failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EvalError {
    /// A fact could not be computed (a `command` fact's timeout is
    /// [`FactError::Timeout`]).
    #[error("fact `{fact}`: {cause}")]
    Fact {
        /// The fact's name.
        fact: String,
        /// Why.
        #[source]
        cause: FactError,
    },
    /// A fact whose templates name itself, directly or through other facts.
    #[error("fact `{fact}` depends on itself")]
    FactCycle {
        /// The fact's name.
        fact: String,
    },
    /// A fact the policy does not define.
    #[error("unknown fact `{fact}`")]
    UnknownFact {
        /// The name used.
        fact: String,
    },
    /// A template did not render.
    #[error("{0}")]
    Template(#[source] TemplateError),
    /// A pattern list did not compile.
    #[error("{0}")]
    Pattern(#[source] PatternError),
    /// A JSONPath selector failed on the event.
    #[error("JSONPath: {0}")]
    JsonPath(#[source] jsonpath_rust::parser::errors::JsonPathError),
    /// An argument template rendered to an option: event data must not be
    /// able to smuggle one into a command.
    #[error("argument `{template}` rendered to `{rendered}`, which starts with `-`: refusing to pass event data as an option")]
    OptionArgument {
        /// The argument's template.
        template: String,
        /// What it rendered to.
        rendered: String,
    },
    /// An argument rendered with a NUL byte.
    #[error("argument contains a NUL byte")]
    NulArgument,
}

impl EvalError {
    /// Did a `command` fact need to run where commands are not run (`check`)?
    pub fn is_not_run(&self) -> bool {
        matches!(
            self,
            EvalError::Fact {
                cause: FactError::NotRun,
                ..
            }
        )
    }

    /// Did a `command` fact time out?
    pub fn is_timeout(&self) -> bool {
        matches!(
            self,
            EvalError::Fact {
                cause: FactError::Timeout { .. },
                ..
            }
        )
    }
}

impl From<TemplateError> for EvalError {
    fn from(e: TemplateError) -> Self {
        EvalError::Template(e)
    }
}

impl From<PatternError> for EvalError {
    fn from(e: PatternError) -> Self {
        EvalError::Pattern(e)
    }
}
