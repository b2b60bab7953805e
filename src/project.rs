//! Project identity (claude-mem's project keys, worktrees included) and exclusion globs
//! (`excluded_projects`, matched as claude-mem matches them).
//!
//! The key is the basename of the git top level that contains the cwd, found by walking up to
//! the first `.git` (no `git` process: hooks must stay a few milliseconds). A linked worktree
//! (`.git` is a file pointing into `<parent>/.git/worktrees/<name>`) writes under
//! `parent/worktree` and reads both keys.

use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProjectKeys {
    /// The key new rows are written under.
    pub primary: String,
    /// Every key this checkout reads, primary last.
    pub all: Vec<String>,
    /// The checkout's top-level directory (the cwd itself outside git).
    pub root: PathBuf,
}

impl ProjectKeys {
    /// A single explicit key (`--project P`).
    pub(crate) fn named(name: &str) -> ProjectKeys {
        ProjectKeys {
            primary: name.to_string(),
            all: vec![name.to_string()],
            root: PathBuf::new(),
        }
    }

    #[cfg(test)] // only the tests here ask
    /// Case-insensitive membership, as every reader matches projects.
    pub(crate) fn contains(&self, project: &str) -> bool {
        self.all.iter().any(|k| k.eq_ignore_ascii_case(project))
    }
}

/// The project a command works on: the one `named`, else the one `dir` belongs to, else the
/// current directory's.
pub(crate) fn chosen(named: Option<&str>, dir: Option<&Path>) -> std::io::Result<ProjectKeys> {
    Ok(match (named, dir) {
        (Some(p), _) => ProjectKeys::named(p),
        (None, Some(dir)) => resolve(&std::path::absolute(dir)?),
        (None, None) => resolve(&std::env::current_dir()?),
    })
}

/// Resolves the project keys of a working directory.
pub(crate) fn resolve(cwd: &Path) -> ProjectKeys {
    let cwd = if cwd.as_os_str().is_empty() {
        return unknown(cwd);
    } else {
        crate::paths::expand_tilde(&cwd.to_string_lossy())
    };
    let (root, dot_git) = match find_git(&cwd) {
        Some(found) => found,
        None => {
            let name = basename(&cwd);
            return ProjectKeys {
                primary: name.clone(),
                all: vec![name],
                root: cwd,
            };
        }
    };
    let name = basename(&root);
    if dot_git.is_file()
        && let Some(parent) = worktree_parent(&dot_git)
    {
        let primary = format!("{parent}/{name}");
        return ProjectKeys {
            all: vec![parent, primary.clone()],
            primary,
            root,
        };
    }
    ProjectKeys {
        primary: name.clone(),
        all: vec![name],
        root,
    }
}

fn unknown(cwd: &Path) -> ProjectKeys {
    ProjectKeys {
        primary: "unknown-project".into(),
        all: vec!["unknown-project".into()],
        root: cwd.to_path_buf(),
    }
}

fn basename(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "unknown-project".into())
}

fn find_git(start: &Path) -> Option<(PathBuf, PathBuf)> {
    let mut dir = Some(start);
    while let Some(d) = dir {
        if d.as_os_str().is_empty() {
            break;
        }
        let candidate = d.join(".git");
        if candidate.exists() {
            return Some((d.to_path_buf(), candidate));
        }
        dir = d.parent();
    }
    None
}

/// For a worktree's `.git` file (`gitdir: /repo/.git/worktrees/wt`), the parent repo's basename.
/// Submodules (`gitdir: ../.git/modules/x`) are projects of their own and give `None`.
fn worktree_parent(dot_git_file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dot_git_file).ok()?;
    let gitdir = text.lines().find_map(|l| l.strip_prefix("gitdir:"))?.trim();
    let gitdir = if Path::new(gitdir).is_absolute() {
        PathBuf::from(gitdir)
    } else {
        dot_git_file.parent()?.join(gitdir)
    };
    let worktrees = gitdir.parent()?;
    if worktrees.file_name()? != "worktrees" {
        return None;
    }
    let git_dir = worktrees.parent()?;
    if git_dir.file_name()? != ".git" {
        return None;
    }
    Some(basename(git_dir.parent()?))
}

/// Whether a cwd matches one of the exclusion globs (full path or basename).
pub(crate) fn is_excluded(cwd: &Path, patterns: &[String]) -> bool {
    if patterns.is_empty() {
        return false;
    }
    let full = cwd.to_string_lossy();
    let base = cwd
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    patterns.iter().any(|p| {
        let p = p.trim();
        if p.is_empty() {
            return false;
        }
        let expanded = crate::paths::expand_tilde(p);
        let p = expanded.to_string_lossy();
        glob_match(&p, &full) || glob_match(&p, &base)
    })
}

/// Glob matching: `*` within one path segment, `**` across segments, `?` one character.
pub(crate) fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    glob_at(&p, &t)
}

fn glob_at(p: &[char], t: &[char]) -> bool {
    match p.first() {
        None => t.is_empty(),
        Some('*') if p.get(1) == Some(&'*') => {
            let mut rest = &p[2..];
            // `**/` also matches zero directories.
            if rest.first() == Some(&'/') && glob_at(&rest[1..], t) {
                return true;
            }
            while rest.first() == Some(&'*') {
                rest = &rest[1..];
            }
            (0..=t.len()).any(|i| glob_at(rest, &t[i..]))
        }
        Some('*') => {
            let rest = &p[1..];
            for i in 0..=t.len() {
                if glob_at(rest, &t[i..]) {
                    return true;
                }
                if i < t.len() && t[i] == '/' {
                    break;
                }
            }
            false
        }
        Some('?') => !t.is_empty() && t[0] != '/' && glob_at(&p[1..], &t[1..]),
        Some(c) => !t.is_empty() && t[0] == *c && glob_at(&p[1..], &t[1..]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs() {
        assert!(glob_match("secret-*", "secret-app"));
        assert!(!glob_match("secret-*", "my-secret-app"));
        assert!(glob_match("/home/*/work", "/home/ann/work"));
        assert!(!glob_match("/home/*/work", "/home/ann/x/work"));
        assert!(glob_match("/home/**/work", "/home/ann/x/work"));
        assert!(glob_match("/home/**/work", "/home/work"));
        assert!(glob_match("/tmp/**", "/tmp/a/b/c"));
        assert!(glob_match("proj?", "proj1"));
        assert!(!glob_match("proj?", "proj12"));
    }

    #[test]
    fn excluded_by_basename_or_path() {
        let pats = vec!["client-*".to_string(), "/srv/**".to_string()];
        assert!(is_excluded(Path::new("/home/a/client-acme"), &pats));
        assert!(is_excluded(Path::new("/srv/x/y"), &pats));
        assert!(!is_excluded(Path::new("/home/a/cmem"), &pats));
    }

    #[test]
    fn plain_dir_and_repo_and_worktree() {
        let tmp = tempfile::tempdir().unwrap();
        let plain = tmp.path().join("plain");
        std::fs::create_dir_all(&plain).unwrap();
        assert_eq!(resolve(&plain).all, vec!["plain"]);

        let repo = tmp.path().join("MyRepo");
        std::fs::create_dir_all(repo.join(".git/worktrees/feat")).unwrap();
        std::fs::create_dir_all(repo.join("src/deep")).unwrap();
        let keys = resolve(&repo.join("src/deep"));
        assert_eq!(keys.primary, "MyRepo");
        assert_eq!(keys.root, repo);

        let wt = tmp.path().join("feat-wt");
        std::fs::create_dir_all(wt.join("src")).unwrap();
        std::fs::write(
            wt.join(".git"),
            format!("gitdir: {}\n", repo.join(".git/worktrees/feat").display()),
        )
        .unwrap();
        let keys = resolve(&wt.join("src"));
        assert_eq!(keys.primary, "MyRepo/feat-wt");
        assert_eq!(keys.all, vec!["MyRepo", "MyRepo/feat-wt"]);
        assert!(keys.contains("myrepo"));

        let sub = repo.join("vendor/lib");
        std::fs::create_dir_all(&sub).unwrap();
        std::fs::write(sub.join(".git"), "gitdir: ../../.git/modules/lib\n").unwrap();
        assert_eq!(resolve(&sub).all, vec!["lib"]);
    }

    #[test]
    fn empty_and_root() {
        assert_eq!(resolve(Path::new("")).primary, "unknown-project");
        assert_eq!(resolve(Path::new("/")).primary, "unknown-project");
    }
}
