//! Why evaluating a rule failed, typed: a fact, a template (with its policy
//! file and line), a pattern list, a selector, an argument refused. `run`'s
//! fail-closed reason, `explain`'s trace and `hookrules test`'s failure output
//! all render the same value (see [`super::RuleFailure`]).

use crate::compile::patterns::PatternError;
use crate::compile::templates::TemplateError;

use super::facts::FactError;

/// Why a condition or a rendering failed.
#[derive(Debug, Clone)]
pub enum EvalError {
    /// A fact could not be computed (a `command` fact's timeout is
    /// [`FactError::Timeout`]).
    Fact {
        /// The fact's name.
        fact: String,
        /// Why.
        cause: FactError,
    },
    /// A fact whose templates name itself, directly or through other facts.
    FactCycle {
        /// The fact's name.
        fact: String,
    },
    /// A fact the policy does not define.
    UnknownFact {
        /// The name used.
        fact: String,
    },
    /// A template did not render.
    Template(TemplateError),
    /// A pattern list did not compile.
    Pattern(PatternError),
    /// A JSONPath selector failed on the event.
    JsonPath(jsonpath_rust::parser::errors::JsonPathError),
    /// An argument template rendered to an option: event data must not be
    /// able to smuggle one into a command.
    OptionArgument {
        /// The argument's template.
        template: String,
        /// What it rendered to.
        rendered: String,
    },
    /// An argument rendered with a NUL byte.
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

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalError::Fact { fact, cause } => write!(f, "fact `{fact}`: {cause}"),
            EvalError::FactCycle { fact } => write!(f, "fact `{fact}` depends on itself"),
            EvalError::UnknownFact { fact } => write!(f, "unknown fact `{fact}`"),
            EvalError::Template(e) => write!(f, "{e}"),
            EvalError::Pattern(e) => write!(f, "{e}"),
            EvalError::JsonPath(e) => write!(f, "JSONPath: {e}"),
            EvalError::OptionArgument { template, rendered } => write!(
                f,
                "argument `{template}` rendered to `{rendered}`, which starts with `-`: refusing to pass event data as an option"
            ),
            EvalError::NulArgument => f.write_str("argument contains a NUL byte"),
        }
    }
}

impl std::error::Error for EvalError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EvalError::Fact { cause, .. } => Some(cause),
            EvalError::Template(e) => Some(e),
            EvalError::Pattern(e) => Some(e),
            EvalError::JsonPath(e) => Some(e),
            _ => None,
        }
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
