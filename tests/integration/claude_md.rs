//! The per-file index (`cmem context --by-file`) and `cmem claude-md`, on the demo data set,
//! byte for byte. `UPDATE_GOLDEN=1` rewrites the expected files after an intended change.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::Env;

fn golden(name: &str, actual: &str) {
    common::context_golden(name, actual);
}

/// Builds the demo database and returns its data dir.
fn demo(env: &Env) -> PathBuf {
    env.build_demo(None)
}

fn cmem(env: &Env, data: &Path, cwd: &Path, args: &[&str]) -> String {
    let out = env
        .cmd()
        .env("CMEM_DATA_DIR", data)
        .env("CMEM_CONTEXT_TIMEZONE", "UTC")
        .current_dir(cwd)
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// A git checkout named like a demo project, with the directory `sub` in it.
fn checkout(env: &Env, name: &str, sub: &str) -> PathBuf {
    let root = env.root().join(name);
    std::fs::create_dir_all(root.join(sub)).unwrap();
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(&root)
        .status()
        .unwrap();
    assert!(ok.success());
    root
}

#[test]
fn by_file_table_of_the_demo_project_and_of_one_directory() {
    let env = Env::new();
    let data = demo(&env);
    let whole = cmem(
        &env,
        &data,
        &env.project(),
        &[
            "context",
            "--project",
            "acme-api",
            "--by-file",
            "--limit",
            "20",
        ],
    );
    assert!(
        whole.contains("| ID | Time | T | Title | Tokens |"),
        "{whole}"
    );
    assert!(whole.contains("Stats: 15 obs ("), "{whole}");
    golden("by-file-demo", &whole);

    let root = checkout(&env, "acme-api", "src/db");
    let db_dir = cmem(&env, &data, &root, &["context", "--by-file", "src/db"]);
    assert!(db_dir.contains("memory by file: src/db/"), "{db_dir}");
    // Only files under src/db, each row newest first.
    let groups: Vec<&str> = db_dir.lines().filter(|l| l.starts_with("**")).collect();
    assert!(
        !groups.is_empty() && groups.iter().all(|g| g.starts_with("**src/db/")),
        "{groups:?}"
    );
    let ids: Vec<i64> = db_dir
        .lines()
        .skip_while(|l| *l != "**src/db/pool.rs**")
        .skip(3)
        .take_while(|l| l.starts_with("| #"))
        .map(|l| l[3..].split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(
        ids.len() > 3 && ids.windows(2).all(|w| w[0] > w[1]),
        "{ids:?}"
    );
    golden("by-file-demo-src-db", &db_dir);
}

#[test]
fn claude_md_touches_only_its_section_and_is_idempotent() {
    let env = Env::new();
    let data = demo(&env);
    let root = checkout(&env, "acme-api", "src/db");
    let dir = root.join("src/db");
    let file = dir.join("CLAUDE.md");

    // No file: skipped unless --create.
    let out = cmem(&env, &data, &root, &["claude-md", "src/db"]);
    assert!(out.contains("skipped"), "{out}");
    assert!(!file.exists());

    let before = "# Pool notes\r\n\nKeep the pool at 20.  \n\n";
    let old_section = "<cmem-context>\nstale table\n</cmem-context>";
    let after = "\n\n## Mine again\ntrailing text, no newline";
    std::fs::write(&file, format!("{before}{old_section}{after}")).unwrap();

    // --dry-run: a diff, nothing written.
    let diff = cmem(&env, &data, &root, &["claude-md", "--dry-run", "src/db"]);
    assert!(
        diff.contains("-stale table") && diff.contains("+| ID | Time | T | Title | Tokens |"),
        "{diff}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        format!("{before}{old_section}{after}")
    );

    let out = cmem(&env, &data, &root, &["claude-md", "src/db"]);
    assert!(out.contains("updated"), "{out}");
    let written = std::fs::read_to_string(&file).unwrap();
    assert!(written.starts_with(before), "bytes before the markers kept");
    assert!(written.ends_with(after), "bytes after the markers kept");
    let section = &written[before.len()..written.len() - after.len()];
    let table = cmem(&env, &data, &root, &["context", "--by-file", "src/db"]);
    assert!(
        section.contains(table.trim_end()),
        "the section is the --by-file table"
    );
    golden("claude-md-src-db", &written);

    // A second run changes nothing.
    let out = cmem(&env, &data, &root, &["claude-md", "src/db"]);
    assert!(out.contains("unchanged"), "{out}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), written);

    // --create on a directory without CLAUDE.md.
    std::fs::create_dir_all(root.join("migrations")).unwrap();
    let out = cmem(&env, &data, &root, &["claude-md", "--create", "migrations"]);
    assert!(out.contains("created"), "{out}");
    let created = std::fs::read_to_string(root.join("migrations/CLAUDE.md")).unwrap();
    assert!(created.starts_with("<cmem-context>\n") && created.ends_with("</cmem-context>\n"));
    assert!(
        created.contains("**migrations/0008_refresh_tokens.sql**"),
        "{created}"
    );
}
