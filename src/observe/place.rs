//! Where in a structured file a change sits, when the file's outline cannot say: the key path
//! of a YAML line (`CreateCustomer.required` for a `- email` added under it) and the Terraform
//! address of an HCL block (`var.worker_instance_type`). A reader knows the setting by these
//! names; the file's path alone does not tell which of its hundred settings changed.

use super::event::FileEdit;

/// The key path (its last two keys) or block address of the first line `edit` changed.
pub(crate) fn of_edit(edit: &FileEdit) -> Option<String> {
    let lower = edit.path.to_ascii_lowercase();
    let yaml = lower.ends_with(".yaml") || lower.ends_with(".yml");
    let hcl = lower.ends_with(".tf") || lower.ends_with(".hcl");
    if !yaml && !hcl {
        return None;
    }
    let after = edit.after.as_deref()?;
    let lines: Vec<&str> = after.lines().collect();
    let at = changed_line(after, &edit.old_snippet, &edit.new_snippet)?;
    if yaml {
        yaml_path(&lines, at)
    } else {
        hcl_address(&lines, at)
    }
}

/// The index in `after` of the first line of `new` that `old` did not have.
fn changed_line(after: &str, old: &str, new: &str) -> Option<usize> {
    if new.trim().is_empty() {
        return None;
    }
    let start = after[..after.find(new)?].matches('\n').count();
    let old_lines: Vec<&str> = old.lines().map(str::trim).collect();
    let offset = new
        .lines()
        .position(|l| !l.trim().is_empty() && !old_lines.contains(&l.trim()))?;
    Some(start + offset)
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start().len()
}

/// The keys above line `at`, each less indented than the one below it.
fn yaml_path(lines: &[&str], at: usize) -> Option<String> {
    let mut depth = indent(lines.get(at)?);
    let mut keys: Vec<&str> = Vec::new();
    for line in lines[..at].iter().rev() {
        let text = line.trim();
        if text.is_empty() || text.starts_with('#') || indent(line) >= depth {
            continue;
        }
        // A list item's own key (`- name: app`) sits at the item's content indent: it is a
        // sibling of the keys below it (`image:`), not their parent; only the list is.
        let sibling = text
            .strip_prefix("- ")
            .is_some_and(|_| indent(line) + 2 >= depth);
        depth = indent(line);
        let item = text.trim_start_matches("- ");
        if let Some((key, _)) = item.split_once(':').filter(|_| !sibling) {
            keys.push(key.trim().trim_matches(['"', '\'']));
        }
        if depth == 0 {
            break;
        }
    }
    let named: Vec<&str> = keys.into_iter().take(2).rev().collect();
    (!named.is_empty() && named.iter().all(|k| !k.is_empty() && !k.contains(' ')))
        .then(|| named.join("."))
}

/// The Terraform address of the block around line `at` (`variable "x" {` → `var.x`,
/// `resource "aws_s3_bucket" "logs" {` → `aws_s3_bucket.logs`).
fn hcl_address(lines: &[&str], at: usize) -> Option<String> {
    let depth = indent(lines.get(at)?);
    let open = lines[..at]
        .iter()
        .rev()
        .find(|l| indent(l) < depth && l.trim_end().ends_with('{'))?;
    let words: Vec<&str> = open.split_whitespace().collect();
    let label = |i: usize| words.get(i).map(|w| w.trim_matches('"'));
    match *words.first()? {
        "variable" => Some(format!("var.{}", label(1)?)),
        "resource" => Some(format!("{}.{}", label(1)?, label(2)?)),
        "data" => Some(format!("data.{}.{}", label(1)?, label(2)?)),
        "module" => Some(format!("module.{}", label(1)?)),
        "output" => Some(format!("output.{}", label(1)?)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(path: &str, after: &str, old: &str, new: &str) -> FileEdit {
        FileEdit {
            path: path.into(),
            after: Some(after.into()),
            old_snippet: old.into(),
            new_snippet: new.into(),
            ..FileEdit::default()
        }
    }

    #[test]
    fn a_yaml_line_is_placed_by_the_keys_above_it() {
        let after = "components:\n  schemas:\n    CreateCustomer:\n      type: object\n      required:\n        - name\n        - email\n";
        let e = edit(
            "api/openapi.yaml",
            after,
            "      required:\n        - name\n",
            "      required:\n        - name\n        - email\n",
        );
        assert_eq!(of_edit(&e).as_deref(), Some("CreateCustomer.required"));
    }

    #[test]
    fn a_list_items_own_key_is_no_parent_of_its_siblings() {
        let after = "spec:\n  containers:\n    - name: app\n      image: acme/app:2.1\n      args: [\"--fast\"]\n";
        let e = edit(
            "deploy/app.yaml",
            after,
            "      image: acme/app:2.0\n",
            "      image: acme/app:2.1\n      args: [\"--fast\"]\n",
        );
        assert_eq!(of_edit(&e).as_deref(), Some("spec.containers"));
    }

    #[test]
    fn an_hcl_attribute_is_placed_by_its_block_address() {
        let after = "variable \"worker_instance_type\" {\n  type    = string\n  default = \"t3.large\"\n}\n";
        let e = edit(
            "infra/variables.tf",
            after,
            "  default = \"t3.small\"",
            "  default = \"t3.large\"",
        );
        assert_eq!(of_edit(&e).as_deref(), Some("var.worker_instance_type"));
        let res = "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"acme-logs\"\n}\n";
        let e = edit(
            "main.tf",
            res,
            "  bucket = \"old\"",
            "  bucket = \"acme-logs\"",
        );
        assert_eq!(of_edit(&e).as_deref(), Some("aws_s3_bucket.logs"));
        let code = edit("src/a.rs", "fn a() {\n  x\n}", "  y", "  x");
        assert_eq!(of_edit(&code), None, "only YAML and HCL");
    }
}
