//! Stage 6: the client's side of the contract: what each event accepts, and the
//! answer hookrules prints.

pub mod events;
pub mod output;
