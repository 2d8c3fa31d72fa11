//! Template sets (minijinja): templates built into the binary, each replaced
//! by a file of the same name in a user directory. The prompts and the HTML
//! report load theirs through a [`TemplateSet`]; every template is compiled when
//! its set loads, so a broken one is a clear error before any work starts.
//!
//! A `TemplateSet` embeds its built-in templates with `include_str!`. A file of the
//! same name in a user directory replaces one: the directory an environment
//! variable names, else `<config dir>/eval-dag/<directory>/`. Every template is
//! compiled when the set loads. The prompts and the HTML report each load theirs
//! through it.

use std::path::{Path, PathBuf};

use minijinja::Environment;

/// A template could not be read or compiled.
#[derive(Debug, thiserror::Error)]
#[error("{set} template {path}: {message}")]
pub struct TemplateError {
    /// Which set it belongs to ("prompt", "report").
    pub set: &'static str,
    /// Where the template came from.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

/// A set of built-in templates and where a user's replacements live.
#[derive(Debug, Clone, Copy)]
pub struct TemplateSet {
    /// What the set is for, in error messages ("prompt", "report").
    pub set: &'static str,
    /// Its directory in the repository and under the user's config directory.
    pub directory: &'static str,
    /// The environment variable naming a directory of replacements instead.
    pub env_var: &'static str,
    /// (file name, source) of every built-in template.
    pub built_in: &'static [(&'static str, &'static str)],
}

impl TemplateSet {
    /// Where user templates are looked up: the directory in the set's
    /// environment variable, else `<config dir>/eval-dag/<directory>/`.
    pub fn override_dir(&self) -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os(self.env_var) {
            return Some(PathBuf::from(dir));
        }
        directories::ProjectDirs::from("", "", "eval-dag").map(|d| d.config_dir().join(self.directory))
    }

    /// Adds every built-in template to `env`, each replaced by a same-named
    /// file in `dir` when one is there.
    pub fn load_into(&self, env: &mut Environment<'static>, dir: Option<&Path>) -> Result<(), TemplateError> {
        for &(name, built_in) in self.built_in {
            let user = dir.map(|d| d.join(name)).filter(|p| p.is_file());
            let (origin, source) = match &user {
                Some(path) => {
                    let source = std::fs::read_to_string(path).map_err(|err| TemplateError {
                        set: self.set,
                        path: path.display().to_string(),
                        message: err.to_string(),
                    })?;
                    (path.display().to_string(), source)
                }
                None => (format!("{}/{name} (built in)", self.directory), built_in.to_string()),
            };
            env.add_template_owned(name, source).map_err(|err| TemplateError {
                set: self.set,
                path: origin,
                message: err.to_string(),
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SET: TemplateSet = TemplateSet {
        set: "demo",
        directory: "demo",
        env_var: "EVAL_DAG_DEMO_TEMPLATES_UNSET",
        built_in: &[("a.j2", "built-in {{ x }}"), ("b.j2", "b")],
    };

    #[test]
    fn a_user_file_replaces_its_built_in_and_a_broken_one_names_its_path() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.j2"), "mine {{ x }}").unwrap();
        let mut env = Environment::new();
        SET.load_into(&mut env, Some(dir.path())).unwrap();
        let render =
            |env: &Environment, name: &str| env.get_template(name).unwrap().render(minijinja::context! { x => 1 });
        assert_eq!(render(&env, "a.j2").unwrap(), "mine 1");
        assert_eq!(render(&env, "b.j2").unwrap(), "b", "the others stay built in");
        std::fs::write(dir.path().join("b.j2"), "{% if %}").unwrap();
        let err = SET.load_into(&mut Environment::new(), Some(dir.path())).unwrap_err().to_string();
        assert!(err.starts_with(&format!("demo template {}", dir.path().join("b.j2").display())), "{err}");
    }
}
