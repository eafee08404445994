//! Org scale (issue 29), through the real binary: provenance with every
//! decision, unguarded tool use, export over OpenTelemetry, the managed layer.

mod audit;
mod export;
mod managed;
mod provenance;
mod sandbox;
mod unguarded;
