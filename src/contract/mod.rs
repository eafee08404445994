//! The hook contract, as the client defines it: which events exist, what each
//! can decide and where its matcher looks ([`events`]), what each event, tool input
//! and tool response holds ([`fields`]), the event one hook call receives on stdin
//! ([`event`]), the other agents whose envelopes become that event ([`hosts`]),
//! and which project an event belongs to ([`project`]).
//! Static knowledge that every stage reads;
//! it imports no stage.

pub mod event;
pub mod events;
pub mod fields;
pub mod hosts;
pub mod places;
pub mod project;
pub mod stand_in;

pub use event::Event;
