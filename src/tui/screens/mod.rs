//! One file per screen; each is a pure function of the app state.

pub mod compare;
pub mod compare_detail;
pub mod dashboard;
pub mod diff;
pub mod help;
pub mod inspector;
pub mod matrix;
pub mod question;
pub mod schema;
pub mod scorecard;
pub mod taxonomy;
