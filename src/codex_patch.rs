//! Codex's `apply_patch` format (`*** Begin Patch`, `*** Update File:`, `@@` hunks of ` `, `-`
//! and `+` lines, `*** Add File:`, …) read as the file edits it makes: what the history import
//! and the Codex hook adapter store as `Edit` and `Write` tool uses.

pub(crate) enum Edit {
    Update {
        path: String,
        old: String,
        new: String,
    },
    Add {
        path: String,
        content: String,
    },
}

/// The edits an `apply_patch` patch makes, its relative paths under `cwd`: one `Update` per hunk (`@@` chunk) of each updated
/// file, one `Add` per added file; deletions and moves are left to the generic record.
pub(crate) fn edits(patch: &str, cwd: Option<&str>) -> Vec<Edit> {
    let absolute = |p: &str| -> String {
        let p = p.trim();
        match cwd {
            Some(dir) if !p.starts_with('/') => format!("{}/{p}", dir.trim_end_matches('/')),
            _ => p.to_string(),
        }
    };
    let mut edits = Vec::new();
    // (path, old lines, new lines) of the hunk being read, or the added file's lines.
    let mut update: Option<(String, Vec<&str>, Vec<&str>)> = None;
    let mut add: Option<(String, Vec<&str>)> = None;
    fn flush_update(update: &mut Option<(String, Vec<&str>, Vec<&str>)>, edits: &mut Vec<Edit>) {
        let Some((path, old, new)) = update.as_mut() else {
            return;
        };
        // The hunk's context lines around the change are not part of it: an edit names what
        // changed, as a person's Edit of those lines would.
        let same_head = old
            .iter()
            .zip(new.iter())
            .take_while(|(a, b)| a == b)
            .count();
        let same_tail = old[same_head..]
            .iter()
            .rev()
            .zip(new[same_head..].iter().rev())
            .take_while(|(a, b)| a == b)
            .count();
        let (o, n) = (
            &old[same_head..old.len() - same_tail],
            &new[same_head..new.len() - same_tail],
        );
        if !o.is_empty() || !n.is_empty() {
            edits.push(Edit::Update {
                path: path.clone(),
                old: o.join("\n"),
                new: n.join("\n"),
            });
        }
        old.clear();
        new.clear();
    }
    fn flush_add(add: &mut Option<(String, Vec<&str>)>, edits: &mut Vec<Edit>) {
        if let Some((path, lines)) = add.take() {
            let mut content = lines.join("\n");
            content.push('\n');
            edits.push(Edit::Add { path, content });
        }
    }
    for line in patch.lines() {
        let marker = line.trim();
        if let Some(path) = marker.strip_prefix("*** Update File: ") {
            flush_update(&mut update, &mut edits);
            flush_add(&mut add, &mut edits);
            update = Some((absolute(path), Vec::new(), Vec::new()));
        } else if let Some(path) = marker.strip_prefix("*** Add File: ") {
            flush_update(&mut update, &mut edits);
            update = None;
            flush_add(&mut add, &mut edits);
            add = Some((absolute(path), Vec::new()));
        } else if marker.starts_with("*** ") {
            // Begin/End Patch, Delete File, Move to, End of File.
            if !marker.starts_with("*** End of File") {
                flush_update(&mut update, &mut edits);
                if !marker.starts_with("*** Move to: ") {
                    update = None;
                }
                flush_add(&mut add, &mut edits);
            }
        } else if let Some((_, lines)) = add.as_mut() {
            lines.push(line.strip_prefix('+').unwrap_or(line));
        } else if update.is_some() {
            if line.starts_with("@@") {
                flush_update(&mut update, &mut edits);
            } else if let Some((_, old, new)) = update.as_mut() {
                if let Some(l) = line.strip_prefix('-') {
                    old.push(l);
                } else if let Some(l) = line.strip_prefix('+') {
                    new.push(l);
                } else {
                    let l = line.strip_prefix(' ').unwrap_or(line);
                    old.push(l);
                    new.push(l);
                }
            }
        }
    }
    flush_update(&mut update, &mut edits);
    flush_add(&mut add, &mut edits);
    edits
}

/// The `n`th edit of call `call_id` as the tool use Claude Code would have made of it: its id
/// (the call's own for the first, `call_id#2`, … after), tool name, input and response.
pub(crate) fn tool_use(
    call_id: &str,
    n: usize,
    edit: Edit,
) -> (String, &'static str, serde_json::Value, serde_json::Value) {
    use serde_json::json;
    let id = if n == 0 {
        call_id.to_string()
    } else {
        format!("{call_id}#{}", n + 1)
    };
    match edit {
        Edit::Update { path, old, new } => (
            id,
            "Edit",
            json!({"file_path": path, "old_string": old, "new_string": new}),
            json!({"filePath": path, "oldString": old, "newString": new}),
        ),
        Edit::Add { path, content } => (
            id,
            "Write",
            json!({"file_path": path, "content": content}),
            json!({"type": "create", "filePath": path}),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_becomes_one_edit_per_hunk_and_a_write_per_added_file() {
        let patch = "*** Begin Patch\n*** Update File: src/pool.py\n@@ def create_pool(dsn: str) -> Pool:\n     return Pool(\n-        max_size=10,\n+        max_size=50,\n     )\n@@\n-POOL_SIZE = 5\n+POOL_SIZE = 20\n*** Add File: tests/test_v.py\n+def test_v():\n+    assert True\n*** Delete File: old.py\n*** End Patch";
        let edits = edits(patch, Some("/w"));
        assert_eq!(edits.len(), 3);
        match &edits[0] {
            Edit::Update { path, old, new } => {
                assert_eq!(path, "/w/src/pool.py");
                assert_eq!(old, "        max_size=10,");
                assert_eq!(new, "        max_size=50,");
            }
            Edit::Add { .. } => panic!("an update expected"),
        }
        match &edits[1] {
            Edit::Update { old, new, .. } => {
                assert_eq!(
                    (old.as_str(), new.as_str()),
                    ("POOL_SIZE = 5", "POOL_SIZE = 20")
                );
            }
            Edit::Add { .. } => panic!("an update expected"),
        }
        match &edits[2] {
            Edit::Add { path, content } => {
                assert_eq!(path, "/w/tests/test_v.py");
                assert_eq!(content, "def test_v():\n    assert True\n");
            }
            Edit::Update { .. } => panic!("an add expected"),
        }
    }
}
