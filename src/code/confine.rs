//! Keeping the smart tools inside the workspace: both the workspace root and the requested
//! path are resolved to their real paths (symlinks followed), and the file must lie inside.
//! That confinement is for the agent's tools; a person's command line reads whatever the
//! user can (`Reach::Anywhere`).

use std::fmt;
use std::path::{Component, Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PathError {
    Empty,
    /// The path (or the target of a symlink on it) lies outside the workspace.
    Outside {
        given: String,
        root: PathBuf,
    },
    NotFound {
        given: String,
    },
    NotAFile {
        given: String,
    },
    /// The workspace root itself cannot be resolved.
    BadRoot {
        root: PathBuf,
        why: String,
    },
}

impl fmt::Display for PathError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PathError::Empty => write!(f, "No path given."),
            PathError::Outside { given, root } => write!(
                f,
                "Refused: \"{given}\" is outside the workspace {}. cmem's code tools only read files inside the directory they were started in (symlinks are followed before checking); use a path inside it.",
                root.display()
            ),
            PathError::NotFound { given } => write!(f, "File not found: \"{given}\"."),
            PathError::NotAFile { given } => write!(f, "\"{given}\" is not a regular file."),
            PathError::BadRoot { root, why } => write!(
                f,
                "The workspace {} cannot be resolved ({why}).",
                root.display()
            ),
        }
    }
}

impl std::error::Error for PathError {}

/// A path inside the workspace: its real location and how to show it (relative to the root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Confined {
    pub real: PathBuf,
    pub display: String,
}

/// Which paths a caller may read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// Only inside the workspace (the agent's MCP tools).
    Workspace,
    /// Any path the user can read (the person's CLI); paths inside the workspace are still
    /// shown relative to it.
    Anywhere,
}

/// Resolves `given` as `reach` allows.
pub(crate) fn resolve(root: &Path, given: &str, reach: Reach) -> Result<Confined, PathError> {
    match reach {
        Reach::Workspace => confine(root, given),
        Reach::Anywhere => match confine(root, given) {
            Err(PathError::Outside { .. }) => {
                let candidate = root.join(given);
                let real = candidate.canonicalize().map_err(|_| PathError::NotFound {
                    given: given.to_string(),
                })?;
                Ok(Confined {
                    real,
                    display: given.to_string(),
                })
            }
            other => other,
        },
    }
}

/// A regular file `reach` allows.
pub(crate) fn resolve_file(root: &Path, given: &str, reach: Reach) -> Result<Confined, PathError> {
    let c = resolve(root, given, reach)?;
    if !c.real.is_file() {
        return Err(PathError::NotAFile {
            given: given.to_string(),
        });
    }
    Ok(c)
}

/// Resolves `given` (relative to `root`, or absolute) and checks it lies inside `root`.
pub(crate) fn confine(root: &Path, given: &str) -> Result<Confined, PathError> {
    if given.trim().is_empty() {
        return Err(PathError::Empty);
    }
    let root_real = root.canonicalize().map_err(|e| PathError::BadRoot {
        root: root.to_path_buf(),
        why: e.to_string(),
    })?;
    let candidate = if Path::new(given).is_absolute() {
        PathBuf::from(given)
    } else {
        root.join(given)
    };
    let outside = || PathError::Outside {
        given: given.to_string(),
        root: root_real.clone(),
    };
    let real = match candidate.canonicalize() {
        Ok(real) => real,
        Err(_) => {
            // Say "outside" rather than "not found" when the path escapes on its face.
            let lexical = normalize(&candidate);
            if !lexical.starts_with(&root_real) && !lexical.starts_with(normalize(root)) {
                return Err(outside());
            }
            return Err(PathError::NotFound {
                given: given.to_string(),
            });
        }
    };
    if !real.starts_with(&root_real) {
        return Err(outside());
    }
    let display = real
        .strip_prefix(&root_real)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(Confined {
        real,
        display: if display.is_empty() {
            ".".into()
        } else {
            display
        },
    })
}

#[cfg(test)] // only the tests here ask
/// A confined regular file.
pub(crate) fn confine_file(root: &Path, given: &str) -> Result<Confined, PathError> {
    resolve_file(root, given, Reach::Workspace)
}

/// `a/./b/../c` → `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_outside_and_symlinks() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "fn a() {}").unwrap();
        std::fs::write(tmp.path().join("secret.rs"), "fn s() {}").unwrap();

        let ok = confine_file(&root, "src/a.rs").unwrap();
        assert_eq!(ok.display, "src/a.rs");
        let abs = root.join("src/a.rs");
        assert_eq!(
            confine_file(&root, abs.to_str().unwrap()).unwrap().display,
            "src/a.rs"
        );
        assert_eq!(
            confine_file(&root, "src/../src/a.rs").unwrap().display,
            "src/a.rs"
        );

        for bad in ["../secret.rs", "src/../../secret.rs", "../nope.rs"] {
            assert!(
                matches!(confine(&root, bad), Err(PathError::Outside { .. })),
                "{bad}: {:?}",
                confine(&root, bad)
            );
        }
        let abs_out = tmp.path().join("secret.rs");
        assert!(matches!(
            confine(&root, abs_out.to_str().unwrap()),
            Err(PathError::Outside { .. })
        ));

        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(tmp.path().join("secret.rs"), root.join("link.rs")).unwrap();
            std::os::unix::fs::symlink(root.join("src/a.rs"), root.join("inner.rs")).unwrap();
            let err = confine_file(&root, "link.rs").unwrap_err();
            assert!(matches!(err, PathError::Outside { .. }), "{err}");
            assert!(err.to_string().contains("outside the workspace"));
            assert_eq!(confine_file(&root, "inner.rs").unwrap().display, "src/a.rs");
        }
        assert!(matches!(
            confine(&root, "src/missing.rs"),
            Err(PathError::NotFound { .. })
        ));
        assert!(matches!(
            confine_file(&root, "src"),
            Err(PathError::NotAFile { .. })
        ));
    }

    #[test]
    fn anywhere_reads_outside_and_still_shows_inside_paths_relative() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("ws");
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.rs"), "fn a() {}").unwrap();
        std::fs::write(tmp.path().join("other.rs"), "fn o() {}").unwrap();
        let out = resolve_file(&root, "../other.rs", Reach::Anywhere).unwrap();
        assert_eq!(out.display, "../other.rs");
        assert_eq!(
            out.real,
            tmp.path().join("other.rs").canonicalize().unwrap()
        );
        let inside = root.join("src/a.rs");
        let got = resolve_file(&root, inside.to_str().unwrap(), Reach::Anywhere).unwrap();
        assert_eq!(got.display, "src/a.rs");
        assert!(matches!(
            resolve_file(&root, "../missing.rs", Reach::Anywhere),
            Err(PathError::NotFound { .. })
        ));
        assert!(matches!(
            resolve_file(&root, "../other.rs", Reach::Workspace),
            Err(PathError::Outside { .. })
        ));
    }
}
