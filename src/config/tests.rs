use std::path::Path;
use std::time::Duration;

use clap::Parser;

use super::*;
use crate::cli::{Cli, CliCommand};
use crate::domain::StructuredOutput;
use crate::llm::{
    ANTHROPIC_API_KEY_ENV, ANTHROPIC_BASE_URL, ANTHROPIC_MODEL, DEFAULT_API_KEY_ENV, DEFAULT_BASE_URL, DEFAULT_MODEL,
    HttpSettings,
};

/// The builder, whose settings the single-model tests read.
const B: LlmRole = LlmRole::DagBuild;

const EXAMPLE: &str = r#"
theme = "light"

[llm]
provider = "openai"
model = "gpt-4o-mini"
base_url = "http://127.0.0.1:11434/v1"
api_key_env = "MY_LLM_KEY"
timeout_secs = 120
stall_timeout_secs = 2.5
retries = 2

[run]
questions = 12
max_iterations = 4
concurrency = 6
review_concurrency = 1
node_timeout_secs = 20

[prices."gpt-4o-mini"]
input_per_mtok = 0.2
output_per_mtok = 0.8

[prices."my-local-model"]
input_per_mtok = 0
output_per_mtok = 0
"#;

pub(super) fn parse(text: &str) -> Result<Config, ConfigError> {
    Config::parse(text, Path::new("/home/u/.config/eval-dag/config.toml"))
}

/// `run` arguments from `flags`, with the environment-backed ones cleared so
/// the test's own environment cannot leak in.
pub(super) fn args(flags: &[&str]) -> RunArgs {
    let cli = Cli::try_parse_from(["eval-dag", "run", "data"].iter().chain(flags)).unwrap();
    let CliCommand::Run(mut args) = cli.command else { unreachable!() };
    let given = |flag: &str| flags.contains(&flag);
    if !given("--llm") {
        args.llm = None;
    }
    if !given("--model") {
        args.roles.model = None;
    }
    if !given("--base-url") {
        args.roles.base_url = None;
    }
    *args
}

#[test]
fn every_setting_of_the_example_file_is_read() {
    let config = parse(EXAMPLE).unwrap();
    assert_eq!(config.theme.as_deref(), Some("light"));
    assert_eq!(config.llm.provider, Some(ProviderKind::Openai));
    assert_eq!(config.llm.timeout_secs, Some(Duration::from_secs(120)));
    assert_eq!(config.llm.stall_timeout_secs, Some(Duration::from_millis(2500)));
    assert_eq!(config.run.review_concurrency, Some(1));
    assert_eq!(config.node_timeout(None), Some(Duration::from_secs(20)));
    assert_eq!(config.node_timeout(Some(2.5)), Some(Duration::from_millis(2500)), "the flag wins");
    assert_eq!(Config::default().node_timeout(None), None, "left to the dataset's size");
    assert_eq!(config.prices["my-local-model"].input_per_mtok, 0.0);
    assert_eq!(
        config.prices["my-local-model"].cached_input_per_mtok, None,
        "absent: cached tokens cost the input rate"
    );
    let cached = parse("[prices.m]\ninput_per_mtok = 1\noutput_per_mtok = 2\ncached_input_per_mtok = 0.25\n").unwrap();
    assert_eq!(cached.prices["m"].cached_input_per_mtok, Some(0.25));
    assert_eq!(parse("").unwrap(), Config::default());
}

#[test]
fn flags_beat_the_file_and_the_file_beats_the_defaults() {
    let config = parse(EXAMPLE).unwrap();
    let key = |name: &str| (name == "MY_LLM_KEY").then(|| "secret".to_string());
    let from_file = config.resolve(&args(&[]), key).unwrap();
    let openai = from_file.role(B).openai.as_ref().unwrap();
    assert_eq!((openai.model.as_str(), openai.base_url.as_str()), ("gpt-4o-mini", "http://127.0.0.1:11434/v1"));
    assert_eq!(openai.api_key.as_deref(), Some("secret"), "the key comes from the variable the file names");
    assert!(!format!("{from_file:?}").contains("secret"), "the key never shows in debug output");
    assert_eq!(
        (openai.timeout, openai.stall_timeout, openai.max_retries),
        (Duration::from_secs(120), Duration::from_millis(2500), 2)
    );
    assert_eq!(
        (from_file.questions, from_file.max_iterations, from_file.concurrency, from_file.review_concurrency),
        (12, 4, 6, 1)
    );
    assert_eq!(openai.prices.len(), 2);

    let flags = ["--model", "flag-model", "--questions", "3", "--concurrency", "2", "--review-concurrency", "0"];
    let from_flags = config.resolve(&args(&flags), key).unwrap();
    assert_eq!(from_flags.role(B).openai.as_ref().unwrap().model, "flag-model");
    assert_eq!((from_flags.questions, from_flags.max_iterations, from_flags.concurrency), (3, 4, 2));
    assert_eq!(from_flags.review_concurrency, 0);

    let offline = config.resolve(&args(&["--llm", "offline"]), key).unwrap();
    assert_eq!((offline.role(B).provider, offline.role(B).openai.clone()), (ProviderKind::Offline, None));

    let defaults = Config::default().resolve(&args(&[]), |_| None).unwrap();
    assert_eq!(defaults.role(B).provider, ProviderKind::Offline, "no key and no provider: offline");
    assert_eq!(
        (defaults.questions, defaults.max_iterations, defaults.concurrency, defaults.review_concurrency),
        (10, 3, 10, 0)
    );
    let with_key = Config::default().resolve(&args(&[]), |n| (n == "OPENAI_API_KEY").then(|| "k".into())).unwrap();
    assert_eq!(with_key.role(B).openai.clone().unwrap().model, DEFAULT_MODEL, "a key in OPENAI_API_KEY selects openai");
}

#[test]
fn the_theme_variable_beats_the_file_which_beats_dark() {
    let config = parse(EXAMPLE).unwrap();
    assert_eq!(config.theme(Some("mine".into())), "mine");
    assert_eq!(config.theme(None), "light");
    assert_eq!(config.theme(Some(String::new())), "light", "an empty variable is unset");
    assert_eq!(Config::default().theme(None), "dark");
}

#[test]
fn openai_without_a_key_or_a_local_server_is_refused_naming_the_variable() {
    let config = parse("[llm]\nprovider = \"openai\"\napi_key_env = \"MY_LLM_KEY\"\n").unwrap();
    let err = config.resolve(&args(&[]), |_| None).unwrap_err().to_string();
    assert!(err.contains("needs MY_LLM_KEY"), "{err}");
}

#[test]
fn a_syntax_error_names_the_file_and_line() {
    let err = parse("theme = \"dark\"\n\n[llm\nmodel = \"x\"\n").unwrap_err();
    assert!(err.location.starts_with("/home/u/.config/eval-dag/config.toml:3:"), "{err}");
    assert!(!err.to_string().contains('\n'), "{err}");
}

#[test]
fn an_unknown_key_suggests_the_closest_known_one() {
    let err = parse("[llm]\nmodle = \"x\"\n").unwrap_err();
    assert!(err.location.ends_with("config.toml:2:1"), "{err}");
    assert_eq!(err.message, "unknown key `modle`; did you mean `model`?");
    let err = parse("[run]\nquestion = 3\n").unwrap_err();
    assert_eq!(err.message, "unknown key `question`; did you mean `questions`?");
    let err = parse("[prices.m]\ninput_per_mtok = 1\noutput_per_mtk = 2\n").unwrap_err();
    assert_eq!(err.message, "unknown key `output_per_mtk`; did you mean `output_per_mtok`?");
    let err = parse("zzz = 1\n").unwrap_err();
    assert!(err.message.starts_with("unknown key `zzz`; the keys here are theme, llm, roles, run, prices"), "{err}");
}

#[test]
fn a_key_in_the_file_is_refused_with_what_to_do_instead() {
    let err = parse("[llm]\napi_key = \"sk-123\"\n").unwrap_err();
    assert!(err.location.ends_with(":2:1"), "{err}");
    assert!(err.message.contains("api_key_env") && !err.to_string().contains("sk-123"), "{err}");
}

#[test]
fn out_of_range_values_are_refused_at_their_line() {
    for (text, line, wanted) in [
        ("[run]\nquestions = 0\n", 2, "out of range 1..=10000"),
        ("[run]\n\nconcurrency = 5000\n", 3, "out of range 1..=1000"),
        ("[llm]\ntimeout_secs = -1\n", 2, "seconds"),
        ("[run]\nnode_timeout_secs = 0\n", 2, "seconds"),
        ("[llm]\nprovider = \"claude\"\n", 2, "openai"),
        ("[prices.m]\ninput_per_mtok = -1\noutput_per_mtok = 1\n", 2, "at least 0"),
        ("[prices.m]\ninput_per_mtok = 1\n", 1, "output_per_mtok"),
    ] {
        let err = parse(text).unwrap_err();
        assert!(err.location.contains(&format!("config.toml:{line}:")), "{text}: {err}");
        assert!(err.message.contains(wanted), "{text}: {err}");
    }
}

#[test]
fn an_explicit_file_must_exist_and_the_default_one_may_not() {
    let err = Config::load(Some(Path::new("/nonexistent/eval-dag.toml"))).unwrap_err();
    assert!(err.to_string().starts_with("config /nonexistent/eval-dag.toml: cannot read it"), "{err}");
}

#[test]
fn the_guide_example_is_a_valid_config_with_the_built_in_defaults() {
    let section = include_str!("../../docs/src/configuration.md");
    let start = section.find("```toml\n").expect("a toml example") + "```toml\n".len();
    let example = &section[start..start + section[start..].find("```").unwrap()];
    let config = parse(example).unwrap();
    assert_eq!(config.review.reviewer.as_ref().map(ToString::to_string).as_deref(), Some("ana"));
    assert!(parse("[review]\nreviewer = \"../x\"\n").is_err(), "a reviewer name that is a path is refused");
    let resolved = config.resolve(&args(&[]), |n| (n == DEFAULT_API_KEY_ENV).then(|| "k".into())).unwrap();
    let defaults = Config::default().resolve(&args(&[]), |n| (n == DEFAULT_API_KEY_ENV).then(|| "k".into())).unwrap();
    let built_in_price = |r: &RunConfig| {
        let client = crate::llm::OpenAiClient::new(r.role(B).openai.clone().unwrap()).unwrap();
        crate::llm::LlmClient::cost_usd(
            &client,
            crate::domain::TokenUsage {
                prompt_tokens: 1000,
                completion_tokens: 1000,
                cached_tokens: 0,
                ..Default::default()
            },
        )
    };
    assert_eq!(built_in_price(&resolved), built_in_price(&defaults), "the example's price is the built-in one");
    let mut without_prices = resolved.clone();
    for role in without_prices.roles.values_mut() {
        role.openai.as_mut().unwrap().prices.clear();
    }
    assert_eq!(without_prices, defaults, "the example shows the defaults");
}

#[test]
fn structured_outputs_default_to_schema_per_role_and_the_flag_beats_the_file() {
    use StructuredOutput::{Json, Off, Schema};
    let key = |name: &str| (name == DEFAULT_API_KEY_ENV).then(|| "k".to_string());
    let structured = |file: &str, flags: &[&str], role: LlmRole| {
        parse(file).unwrap().resolve(&args(flags), key).unwrap().role(role).openai.clone().unwrap().structured
    };
    assert_eq!(structured("", &[], B), Schema);
    assert_eq!(structured("[llm]\njson_mode = true\n", &[], B), Json, "json_mode is structured = json");
    assert_eq!(structured("[llm]\njson_mode = false\n", &[], B), Off);
    assert_eq!(structured("", &["--json-mode"], B), Json);
    assert_eq!(structured("", &["--structured", "off"], B), Off);
    let file = "[llm]\nstructured = \"json\"\n[roles.critic]\nstructured = \"off\"\n";
    assert_eq!((structured(file, &[], B), structured(file, &[], LlmRole::LayerReview)), (Json, Off), "per role");
    assert_eq!(structured(file, &["--structured", "schema"], LlmRole::LayerReview), Schema, "the flag beats the file");
    let err = parse("[llm]\nstructured = \"yes\"\n").unwrap_err().to_string();
    assert!(err.starts_with("config /home/u/.config/eval-dag/config.toml:2:"), "{err}");
    let err = parse("[llm]\njson_mode = \"yes\"\n").unwrap_err().to_string();
    assert!(err.starts_with("config /home/u/.config/eval-dag/config.toml:2:"), "{err}");
    let clash = Cli::try_parse_from(["eval-dag", "run", "d", "--json-mode", "--structured", "off"]);
    assert!(clash.is_err(), "--json-mode is --structured json: not both");
    for command in [["eval-dag", "recritic", "r"], ["eval-dag", "replay", "t"], ["eval-dag", "grade", "g"]] {
        let cli = Cli::try_parse_from(command.into_iter().chain(["--structured", "json"])).unwrap();
        let level = match cli.command {
            crate::cli::CliCommand::Recritic(a) => a.structured,
            crate::cli::CliCommand::Replay(a) => a.structured,
            crate::cli::CliCommand::Grade(a) => a.structured,
            _ => None,
        };
        assert_eq!(level, Some(Json), "{command:?} takes --structured like run");
    }
}

#[test]
fn batches_are_asked_per_role_or_for_every_role_and_the_window_and_cancel_wait_by_flag() {
    let key = |name: &str| (name == DEFAULT_API_KEY_ENV).then(|| "k".to_string());
    let resolved = |file: &str, flags: &[&str]| parse(file).unwrap().resolve(&args(flags), key).unwrap();
    let batched = |config: &RunConfig| LlmRole::ALL.into_iter().filter(|r| config.role(*r).batch).collect::<Vec<_>>();
    assert!(batched(&resolved("", &[])).is_empty(), "live by default");
    assert_eq!(batched(&resolved("[roles.critic]\nbatch = true\n", &[])), vec![LlmRole::LayerReview]);
    assert_eq!(batched(&resolved("[llm]\nbatch = true\n", &[])).len(), LlmRole::ALL.len());
    let flagged = resolved("", &["--batch", "--batch-window", "2.5"]);
    assert_eq!((batched(&flagged).len(), flagged.batch_window), (LlmRole::ALL.len(), Duration::from_millis(2500)));
    assert_eq!(resolved("", &[]).batch_window, crate::llm::DEFAULT_BATCH_WINDOW);
    assert!(Cli::try_parse_from(["eval-dag", "run", "d", "--batch-window", "0"]).is_err(), "a window above 0");
    let waits = |file: &str, flags: &[&str]| resolved(file, flags).batch_cancel_wait;
    assert_eq!(waits("", &[]), crate::llm::DEFAULT_BATCH_CANCEL_WAIT);
    assert_eq!(waits("[llm]\nbatch_cancel_wait = 30\n", &[]), Duration::from_secs(30));
    assert_eq!(waits("[llm]\nbatch_cancel_wait = 30\n", &["--batch-cancel-wait", "5"]), Duration::from_secs(5));
    assert!(parse("[llm]\nbatch_cancel_wait = -1\n").is_err(), "a wait above 0");
}

#[test]
fn local_base_urls_with_or_without_v1_and_slashes_reach_v1() {
    let base = |url: &str| Config::default().resolve(&args(&["--llm", "openai", "--base-url", url]), |_| None).unwrap();
    for url in ["http://host:11434", "http://host:11434/", "http://host:11434/v1", "http://host:11434/v1/"] {
        assert_eq!(base(url).role(B).openai.clone().unwrap().base_url, "http://host:11434/v1", "{url}");
    }
    let err =
        Config::default().resolve(&args(&["--llm", "openai", "--base-url", "https://api.openai.com/v1/"]), |_| None);
    assert!(
        err.unwrap_err().to_string().contains("needs OPENAI_API_KEY"),
        "OpenAI's own URL with a slash needs the key"
    );
}

#[test]
fn the_anthropic_provider_reads_its_key_max_tokens_and_base_url() {
    let file = "[llm]\nprovider = \"anthropic\"\nmax_tokens = 8000\nretries = 1\n";
    let key = |name: &str| (name == ANTHROPIC_API_KEY_ENV).then(|| "sk-ant".to_string());
    let resolved = parse(file).unwrap().resolve(&args(&[]), key).unwrap();
    assert_eq!((resolved.role(B).provider, resolved.role(B).openai.is_none()), (ProviderKind::Anthropic, true));
    let settings = resolved.role(B).anthropic.clone().unwrap();
    assert_eq!(
        (settings.api_key.as_deref(), settings.api_key_env.as_deref()),
        (Some("sk-ant"), Some(ANTHROPIC_API_KEY_ENV))
    );
    assert_eq!((settings.model.as_str(), settings.max_tokens, settings.max_retries), (ANTHROPIC_MODEL, Some(8000), 1));
    assert_eq!(settings.base_url, ANTHROPIC_BASE_URL);
    assert!(!format!("{settings:?}").contains("sk-ant"), "Debug hides the key");

    let proxy = Config::default()
        .resolve(&args(&["--llm", "anthropic", "--base-url", "http://127.0.0.1:9/v1/"]), |_| None)
        .unwrap();
    assert_eq!(proxy.role(B).anthropic.as_ref().unwrap().base_url, "http://127.0.0.1:9", "a local server needs no key");
    let own = parse("[llm]\napi_key_env = \"CLAUDE_KEY\"\n").unwrap().resolve(&args(&["--llm", "anthropic"]), |_| None);
    assert!(own.unwrap_err().to_string().contains("needs CLAUDE_KEY"), "the configured variable is named");
    assert!(parse("[llm]\nmax_tokens = 0\n").is_err());
    assert!(parse("[roles.critic]\nmax_tokens = 0\n").is_err());
    let critic = parse("[roles.critic]\nprovider = \"anthropic\"\ntemperature = 0.2\n").unwrap();
    let critic = critic.resolve(&args(&[]), key).unwrap();
    let settings = critic.role(LlmRole::LayerReview).anthropic.clone().unwrap();
    assert_eq!((settings.temperature, critic.role(B).provider), (Some(0.2), ProviderKind::Offline), "only the critic");
}

const ROLES: &str = r#"
[llm]
provider = "openai"
model = "base-model"
base_url = "http://127.0.0.1:9000/v1"
temperature = 0.5

[roles.critic]
model = "critic-model"
base_url = "http://127.0.0.1:9001"
api_key_env = "CRITIC_KEY"
max_tokens = 800
json_mode = true

[roles.judge]
provider = "offline"
"#;

fn openai(config: &RunConfig, role: LlmRole) -> HttpSettings {
    config.role(role).openai.clone().unwrap()
}

#[test]
fn each_role_falls_back_to_llm_field_by_field() {
    let key = |name: &str| (name == "CRITIC_KEY").then(|| "critic-secret".to_string());
    let config = parse(ROLES).unwrap().resolve(&args(&[]), key).unwrap();
    let critic = openai(&config, LlmRole::LayerReview);
    assert_eq!((critic.model.as_str(), critic.base_url.as_str()), ("critic-model", "http://127.0.0.1:9001/v1"));
    assert_eq!(
        (critic.api_key.as_deref(), critic.max_tokens, critic.structured),
        (Some("critic-secret"), Some(800), StructuredOutput::Json)
    );
    assert_eq!(critic.temperature, Some(0.5), "not set for the critic: [llm]'s");
    for role in [LlmRole::QuestionGeneration, LlmRole::DagBuild, LlmRole::Narrative] {
        let settings = openai(&config, role);
        assert_eq!((settings.model.as_str(), settings.base_url.as_str()), ("base-model", "http://127.0.0.1:9000/v1"));
        assert_eq!(
            (settings.api_key, settings.max_tokens, settings.structured),
            (None, None, StructuredOutput::Schema),
            "{role:?}"
        );
    }
    assert_eq!(
        config.role(LlmRole::Judge),
        &RoleConfig { provider: ProviderKind::Offline, openai: None, anthropic: None, batch: false }
    );
}

#[test]
fn a_role_flag_beats_the_roles_section_which_beats_the_flag_for_every_role() {
    let flags = ["--model", "all-model", "--critic-model", "flag-critic", "--judge-base-url", "http://j:1/v1"];
    let config = parse(ROLES).unwrap().resolve(&args(&flags), |_| None).unwrap();
    assert_eq!(openai(&config, LlmRole::LayerReview).model, "flag-critic");
    assert_eq!(openai(&config, LlmRole::LayerReview).base_url, "http://127.0.0.1:9001/v1", "no base-url flag");
    assert_eq!(openai(&config, LlmRole::DagBuild).model, "all-model");
    let all_only = parse(ROLES).unwrap().resolve(&args(&["--model", "all-model"]), |_| None).unwrap();
    assert_eq!(openai(&all_only, LlmRole::LayerReview).model, "critic-model", "[roles.critic] beats --model");
    let with_llm = parse(ROLES).unwrap().resolve(&args(&["--llm", "openai", "--builder-model", "b"]), |_| None);
    let with_llm = with_llm.unwrap();
    // Before the roles' precedence changed, `--llm` set every role's provider,
    // [roles.judge]'s `offline` included. Now a [roles.<name>] that names its
    // provider is not touched by the flags for every role: the judge stays offline.
    assert_eq!(with_llm.role(LlmRole::Judge).provider, ProviderKind::Offline, "[roles.judge] names its provider");
    assert_eq!(openai(&with_llm, LlmRole::DagBuild).model, "b");
    assert_eq!(openai(&with_llm, LlmRole::LayerReview).model, "critic-model");
}

/// `[roles.critic]` naming anthropic, its model and its server.
const ANTHROPIC_CRITIC: &str = r#"
[roles.critic]
provider = "anthropic"
model = "claude-critic"
base_url = "http://127.0.0.1:9100"
"#;

#[test]
fn the_flags_for_every_role_leave_a_role_whose_section_names_its_provider_alone() {
    // The reported case: `--llm openai --model gpt-4o --base-url URL` sent the
    // critic's calls to the builder's server.
    let flags = ["--llm", "openai", "--model", "gpt-4o", "--base-url", "http://127.0.0.1:9200/v1"];
    let config = parse(ANTHROPIC_CRITIC).unwrap().resolve(&args(&flags), |_| None).unwrap();
    let critic = config.role(LlmRole::LayerReview);
    let anthropic = critic.anthropic.as_ref().unwrap();
    assert_eq!(
        (critic.provider, anthropic.model.as_str(), anthropic.base_url.as_str()),
        (ProviderKind::Anthropic, "claude-critic", "http://127.0.0.1:9100")
    );
    for role in LlmRole::ALL.into_iter().filter(|r| *r != LlmRole::LayerReview) {
        let settings = openai(&config, role);
        assert_eq!((settings.model.as_str(), settings.base_url.as_str()), ("gpt-4o", "http://127.0.0.1:9200/v1"));
    }
    // Its own flag still wins.
    let own = [&flags[..], &["--critic-model", "claude-own"]].concat();
    let config = parse(ANTHROPIC_CRITIC).unwrap().resolve(&args(&own), |_| None).unwrap();
    assert_eq!(config.role(LlmRole::LayerReview).anthropic.as_ref().unwrap().model, "claude-own");
    // `--llm offline` runs without a model, for every role.
    let offline = parse(ANTHROPIC_CRITIC).unwrap().resolve(&args(&["--llm", "offline"]), |_| None).unwrap();
    assert!(offline.roles.values().all(|role| role.provider == ProviderKind::Offline), "{offline:?}");
}

#[test]
fn a_section_without_a_provider_takes_the_flags_provider_and_keeps_its_own_fields() {
    let file = "[roles.critic]\nmodel = \"file-critic\"\n";
    let flags = ["--llm", "openai", "--model", "all", "--base-url", "http://127.0.0.1:9300/v1"];
    let config = parse(file).unwrap().resolve(&args(&flags), |_| None).unwrap();
    let critic = openai(&config, LlmRole::LayerReview);
    assert_eq!((critic.model.as_str(), critic.base_url.as_str()), ("file-critic", "http://127.0.0.1:9300/v1"));
}

#[test]
fn llm_model_and_server_serve_only_roles_of_its_provider() {
    let file = "[llm]\nprovider = \"openai\"\nmodel = \"gpt-x\"\nbase_url = \"http://127.0.0.1:9400/v1\"\n\
                [roles.critic]\nprovider = \"anthropic\"\n";
    let key = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| "a".to_string());
    let config = parse(file).unwrap().resolve(&args(&[]), key).unwrap();
    let critic = config.role(LlmRole::LayerReview).anthropic.clone().unwrap();
    assert_eq!((critic.model.as_str(), critic.base_url.as_str()), (ANTHROPIC_MODEL, ANTHROPIC_BASE_URL));
    assert_eq!(openai(&config, B).model, "gpt-x");
}

#[test]
fn every_role_resolves_by_the_same_layers() {
    // Written over the role list, so a role added to it is held to the same order.
    let section =
        |role: LlmRole| format!("[roles.{}]\nmodel = \"{}-file\"\n", role.setting_name(), role.setting_name());
    let file: String = LlmRole::ALL.into_iter().map(section).collect();
    let file = format!("[llm]\nprovider = \"openai\"\nbase_url = \"http://127.0.0.1:9500/v1\"\n{file}");
    let config = parse(&file).unwrap();
    let resolved = config.resolve(&args(&["--model", "all"]), |_| None).unwrap();
    for role in LlmRole::ALL {
        assert_eq!(openai(&resolved, role).model, format!("{}-file", role.setting_name()), "{role:?}");
    }
    let bare = Config::default()
        .resolve(&args(&["--llm", "openai", "--base-url", "http://h:1/v1", "--model", "all"]), |_| None);
    for role in LlmRole::ALL {
        assert_eq!(openai(bare.as_ref().unwrap(), role).model, "all", "{role:?}: the flags below no section");
    }
}

#[test]
fn a_replays_recorded_roles_sit_just_below_the_roles_own_flag() {
    use crate::domain::{Provider, RoleModel, RoleModels};
    let played: RoleModels = [(
        LlmRole::LayerReview,
        RoleModel {
            provider: Provider::from(ProviderKind::Openai),
            model: "recorded-critic".into(),
            base_url: Some("http://127.0.0.1:9600/v1".into()),
        },
    )]
    .into();
    let file = parse("[roles.critic]\nmodel = \"file-critic\"\n").unwrap();
    let flags = args(&["--model", "all", "--base-url", "http://127.0.0.1:9700/v1"]).roles;
    let configs = file.recorded_role_configs(&played, &flags, Some(ProviderKind::Openai), |_| None).unwrap();
    let critic = configs[&LlmRole::LayerReview].openai.clone().unwrap();
    assert_eq!((critic.model.as_str(), critic.base_url.as_str()), ("recorded-critic", "http://127.0.0.1:9600/v1"));
    assert_eq!(configs[&B].openai.clone().unwrap().model, "all", "a role the run did not record");
    let own = args(&["--critic-model", "own-critic"]).roles;
    let key = |name: &str| (name == "OPENAI_API_KEY").then(|| "k".to_string());
    let configs = file.recorded_role_configs(&played, &own, Some(ProviderKind::Openai), key).unwrap();
    assert_eq!(configs[&LlmRole::LayerReview].openai.clone().unwrap().model, "own-critic");
    // A record without a server: the flags for every role fill it in, for the recorded provider only.
    let mut serverless = played.clone();
    serverless.values_mut().for_each(|role| role.base_url = None);
    let configs = file.recorded_role_configs(&serverless, &flags, Some(ProviderKind::Openai), |_| None).unwrap();
    let critic = configs[&LlmRole::LayerReview].openai.clone().unwrap();
    assert_eq!((critic.model.as_str(), critic.base_url.as_str()), ("recorded-critic", "http://127.0.0.1:9700/v1"));
    let anthropic = file.recorded_role_configs(&serverless, &flags, Some(ProviderKind::Anthropic), key).unwrap();
    let critic = anthropic[&LlmRole::LayerReview].openai.clone().unwrap();
    assert_eq!(critic.base_url, DEFAULT_BASE_URL, "an anthropic flag's server is not an openai role's");
}

#[test]
fn an_unknown_role_or_role_field_is_one_line_with_file_and_line() {
    let err = parse("[roles.critc]\nmodel = \"m\"\n").unwrap_err().to_string();
    assert!(err.starts_with("config /home/u/.config/eval-dag/config.toml:1:"), "{err}");
    assert!(err.contains("unknown key `critc`; did you mean `critic`?"), "{err}");
    let err = parse("[roles.critic]\nmodel = \"m\"\ntemprature = 1\n").unwrap_err().to_string();
    assert!(err.starts_with("config /home/u/.config/eval-dag/config.toml:3:"), "{err}");
    assert!(err.contains("did you mean `temperature`?") && !err.contains('\n'), "{err}");
    let err = Config::default().resolve(&args(&[]), |_| None);
    assert!(err.is_ok(), "no key anywhere: offline for every role");
    let err = parse("[roles.critic]\nprovider = \"openai\"\n").unwrap().resolve(&args(&[]), |_| None).unwrap_err();
    assert!(err.to_string().contains("needs OPENAI_API_KEY ([roles.critic])"), "{err}");
}

#[test]
fn each_provider_reads_its_own_base_url_variable_below_the_flags() {
    let env = |name: &str| match name {
        "OPENAI_API_KEY" => Some("k".to_string()),
        "ANTHROPIC_API_KEY" => Some("a".to_string()),
        "OPENAI_BASE_URL" => Some("http://127.0.0.1:7001/v1".to_string()),
        "ANTHROPIC_BASE_URL" => Some("http://127.0.0.1:7002".to_string()),
        _ => None,
    };
    let file = "[llm]\nbase_url = \"http://127.0.0.1:7000/v1\"\n[roles.critic]\nprovider = \"anthropic\"\n";
    let config = parse(file).unwrap().resolve(&args(&[]), env).unwrap();
    assert_eq!(config.role(B).openai.as_ref().unwrap().base_url, "http://127.0.0.1:7001/v1", "env over file");
    let critic = config.role(LlmRole::LayerReview);
    assert_eq!(critic.anthropic.as_ref().unwrap().base_url, "http://127.0.0.1:7002", "never OPENAI_BASE_URL");
    let flagged = parse(file).unwrap().resolve(&args(&["--critic-base-url", "http://127.0.0.1:7003"]), env).unwrap();
    let critic = flagged.role(LlmRole::LayerReview);
    assert_eq!(critic.anthropic.as_ref().unwrap().base_url, "http://127.0.0.1:7003", "the flag first");
}

#[test]
fn the_baseline_role_plays_as_the_builder_unless_its_own_section_or_flags_say_otherwise() {
    let builder_flags = ["--builder-model", "flag-builder"];
    let config = parse(ROLES).unwrap().resolve(&args(&builder_flags), |_| None).unwrap();
    assert_eq!(config.role(LlmRole::Baseline), config.role(LlmRole::DagBuild), "the builder's resolved settings");
    let own = parse(&format!("{ROLES}\n[roles.baseline]\nmodel = \"direct\"\n")).unwrap();
    let config = own.resolve(&args(&builder_flags), |_| None).unwrap();
    assert_eq!(openai(&config, LlmRole::Baseline).model, "direct");
    assert_eq!(openai(&config, LlmRole::Baseline).base_url, "http://127.0.0.1:9000/v1", "[llm]'s server");
    let flag = ["--baseline-model", "flag-baseline", "--baseline-base-url", "http://b:2/v1"];
    let config = parse(ROLES).unwrap().resolve(&args(&flag), |_| None).unwrap();
    let baseline = openai(&config, LlmRole::Baseline);
    assert_eq!((baseline.model.as_str(), baseline.base_url.as_str()), ("flag-baseline", "http://b:2/v1"));
    assert_eq!(openai(&config, LlmRole::DagBuild).model, "base-model", "the builder keeps its own");
}
