//! Paths a benchmark names — a question's `dataset`, an importer's table,
//! context and task files — kept inside the benchmark's folder. Benchmarks
//! are downloaded from strangers: their files must not choose what is read
//! on the disk. A path is canonicalised (symlinks followed, `..` resolved)
//! and then checked against the canonicalised folder, so an absolute path,
//! a `..` that climbs out and a symlink that leads out are all refused.

use std::path::{Path, PathBuf};

use super::file_names::{DATA_FILE, METADATA_FILE};

/// A path a benchmark names that leads outside its folder.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{} leads to {}, outside the benchmark folder {}", named.display(), resolved.display(), root.display())]
pub struct OutsideBenchmark {
    /// The path as the benchmark names it (joined to where it is read from).
    pub named: PathBuf,
    /// Where it leads once symlinks and `..` are resolved.
    pub resolved: PathBuf,
    /// The benchmark's folder, canonicalised.
    pub root: PathBuf,
}

/// A benchmark's folder, canonicalised: the paths its files name must lead
/// inside it, unless the user allows them out (`--allow-outside-datasets`).
#[derive(Debug, Clone, PartialEq)]
pub struct BenchmarkRoot {
    /// The folder, canonicalised when it exists.
    dir: PathBuf,
    /// Whether paths may lead outside `dir`.
    anywhere: bool,
}

impl BenchmarkRoot {
    /// The folder `dir`, canonicalised (as given, made absolute, when it
    /// cannot be: then nothing that exists is inside it); paths must stay in it.
    pub fn new(dir: &Path) -> Self {
        let dir = dir.canonicalize().or_else(|_| std::path::absolute(dir)).unwrap_or_else(|_| dir.to_path_buf());
        Self { dir, anywhere: false }
    }

    /// The same folder, with paths allowed out of it when `allow` is true.
    pub fn allowing_outside(self, allow: bool) -> Self {
        Self { anywhere: allow, ..self }
    }

    /// The folder, canonicalised.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// `path` (as given: relative to the current directory) canonicalised,
    /// when it leads inside the folder or leads out by permission; `Ok(None)`
    /// when it does not exist (nothing there to read, so nothing to refuse).
    pub fn resolve(&self, path: &Path) -> Result<Option<PathBuf>, OutsideBenchmark> {
        let Ok(resolved) = path.canonicalize() else { return Ok(None) };
        if self.anywhere || resolved.starts_with(&self.dir) {
            Ok(Some(resolved))
        } else {
            Err(OutsideBenchmark { named: path.to_path_buf(), resolved, root: self.dir.clone() })
        }
    }

    /// Check the dataset directory `dir` and its `data.json` and
    /// `metadata.json`: each, symlinks followed, must lead inside the folder.
    pub fn check_dataset(&self, dir: &Path) -> Result<(), OutsideBenchmark> {
        self.resolve(dir)?;
        for file in [DATA_FILE, METADATA_FILE] {
            self.resolve(&dir.join(file))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;
    use crate::dataset::DatasetError;

    /// A benchmark folder with one dataset inside and a secret beside it.
    fn layout() -> (tempfile::TempDir, PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let bench = tmp.path().join("bench");
        let inside = bench.join("datasets/inside");
        fs::create_dir_all(&inside).unwrap();
        fs::write(inside.join("data.json"), "{}").unwrap();
        fs::write(inside.join("metadata.json"), "{}").unwrap();
        let secret = tmp.path().join("secretdir");
        fs::create_dir_all(&secret).unwrap();
        fs::write(secret.join("data.json"), "{}").unwrap();
        fs::write(secret.join("metadata.json"), "{}").unwrap();
        (tmp, bench)
    }

    #[test]
    fn a_dataset_inside_the_folder_passes() {
        let (_tmp, bench) = layout();
        let root = BenchmarkRoot::new(&bench);
        assert_eq!(root.check_dataset(&bench.join("datasets/inside")), Ok(()));
        assert_eq!(root.check_dataset(&bench.join("datasets/../datasets/inside")), Ok(()), "a .. that stays in");
        assert_eq!(root.check_dataset(&bench.join("datasets/missing")), Ok(()), "nothing there to read");
    }

    #[test]
    fn a_climb_out_an_absolute_path_and_a_symlink_out_are_refused() {
        let (tmp, bench) = layout();
        let root = BenchmarkRoot::new(&bench);
        let secret = tmp.path().join("secretdir").canonicalize().unwrap();
        let refused = |dir: &Path| root.check_dataset(dir).map_err(|err| err.resolved);
        assert_eq!(refused(&bench.join("datasets/../../secretdir")), Err(secret.clone()));
        assert_eq!(refused(&secret), Err(secret.clone()));
        std::os::unix::fs::symlink(&secret, bench.join("datasets/linked")).unwrap();
        assert_eq!(refused(&bench.join("datasets/linked")), Err(secret.clone()));
        let err = root.check_dataset(&bench.join("datasets/linked")).unwrap_err().to_string();
        assert!(err.contains("outside the benchmark folder") && !err.contains('\n'), "{err}");
        assert_eq!(root.clone().allowing_outside(true).check_dataset(&bench.join("datasets/linked")), Ok(()));
    }

    #[test]
    fn a_data_file_linked_out_of_a_dataset_inside_is_refused() {
        let (tmp, bench) = layout();
        let dir = bench.join("datasets/inside");
        fs::remove_file(dir.join("data.json")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("secretdir/data.json"), dir.join("data.json")).unwrap();
        let err = BenchmarkRoot::new(&bench).check_dataset(&dir).unwrap_err();
        assert_eq!(err.resolved, tmp.path().join("secretdir/data.json").canonicalize().unwrap());
        assert!(matches!(BenchmarkRoot::new(&bench).load(&dir), Err(DatasetError::Outside(_))));
    }
}
