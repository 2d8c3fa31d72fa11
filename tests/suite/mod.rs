//! The integration tests, one module per area.

mod architecture;
mod by_hand;
mod config_file;
mod grade_judges;
mod grade_rules;
mod llm_openai;
mod model_roundtrip;
mod prepare_cli;
mod replay_cli;
mod results_schema;
mod run_graded;
mod run_offline;
mod run_scripted;
mod sandbox_differential;
mod sandbox_hostile;
mod sandbox_kernel;
mod sandbox_warm;
mod trace_versions;
mod tui_app;
mod tui_by_hand;
mod tui_graph;
mod tui_loop;
mod tui_sizes;
mod tui_tmux;
mod tui_tmux_by_hand;
mod validate_cli;
