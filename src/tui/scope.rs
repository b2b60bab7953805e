//! Which projects the browser shows: the project it opened on, that project with its worktrees
//! (`parent/worktree` keys), or every project.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    Project,
    Group,
    All,
}

impl Scope {
    pub(crate) fn label(self) -> &'static str {
        match self {
            Scope::Project => "project",
            Scope::Group => "worktree group",
            Scope::All => "all projects",
        }
    }

    /// The scope `S` moves to.
    pub(crate) fn next(self) -> Scope {
        match self {
            Scope::Project => Scope::Group,
            Scope::Group => Scope::All,
            Scope::All => Scope::Project,
        }
    }

    /// The project keys of this scope (empty = every project): `keys` are the project's own,
    /// `known` every project in the database.
    pub(crate) fn keys(self, project: &str, keys: &[String], known: &[String]) -> Vec<String> {
        match self {
            Scope::Project => keys.to_vec(),
            Scope::All => Vec::new(),
            Scope::Group => {
                let base = project.split('/').next().unwrap_or(project).to_lowercase();
                let mut keys = keys.to_vec();
                for p in known {
                    let l = p.to_lowercase();
                    if (l == base || l.starts_with(&format!("{base}/")))
                        && !keys.iter().any(|k| k.eq_ignore_ascii_case(p))
                    {
                        keys.push(p.clone());
                    }
                }
                keys
            }
        }
    }

    /// What the index is called in this scope.
    pub(crate) fn title(self, project: &str) -> String {
        match self {
            Scope::All => "all projects".into(),
            Scope::Project => project.to_string(),
            Scope::Group => format!("{project} + worktrees"),
        }
    }
}
