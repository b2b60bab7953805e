//! Reading shell commands and their output: what kind of command it was, how it ended, and what
//! its counts say; the one line of output worth remembering is `recognise`'s.

use std::sync::LazyLock;

use super::ascii::AsciiRegex;

// Picking the line of output worth remembering is `recognise`'s job; its answers are part of
// what this module says of a command, so callers keep asking here.
pub(crate) use super::recognise::{
    diagnostic_list, error_line, exit_code, failing_tests, result_line, summary_line,
};

/// What a shell command does, as far as memory is concerned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CommandClass {
    /// Looks around without changing anything (`ls`, `cat`, `git status`, `grep`).
    Inspect,
    /// Tests, builds, lints, type checks: the commands whose pass/fail is the news.
    Check,
    /// Changes the project or its environment (`git commit`, `mv`, `npm install`).
    Mutate,
    Other,
}

/// `cd <dir> && cmd` → `cmd`; the part of a command worth showing.
pub(crate) fn strip_cd(command: &str) -> &str {
    let mut rest = command.trim();
    while let Some(after) = rest.strip_prefix("cd ") {
        match after.find("&&") {
            Some(i) => rest = after[i + 2..].trim_start(),
            None => break,
        }
    }
    rest
}

/// A command's text on one line exactly as it ran: a tab or line break becomes one space,
/// nothing is collapsed (`'    300'` stays `'    300'`).
fn exact(text: &str) -> String {
    text.trim()
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect()
}

/// A command for a title: its first line as it ran, at most `max` characters. A longer one is
/// shortened by whole words (a quoted argument counts as one), marked ` …`; only a first word
/// longer than `max` is given over length, for the caller to drop.
pub(crate) fn show_command(command: &str, max: usize) -> String {
    inside_ticks(command_words(command, max))
}

/// A command for the single backticks every title puts around it: a command holding
/// backticks itself (`` TZ=`cat .tz` cargo test ``) gets as many more and a space on each
/// side, so the span the title's backticks open closes after the command, not inside it.
fn inside_ticks(shown: String) -> String {
    if !shown.contains('`') {
        return shown;
    }
    // The fence the span needs, less the one backtick on each side the title adds.
    let fenced = super::draft::fence(&shown);
    fenced[1..fenced.len() - 1].to_string()
}

fn command_words(command: &str, max: usize) -> String {
    let cmd = strip_cd(command);
    let first = exact(cmd.lines().next().unwrap_or(""));
    let multi_line = cmd.trim().lines().nth(1).is_some();
    if crate::model::utf16_len(&first) <= max {
        return if multi_line {
            format!("{first} …")
        } else {
            first
        };
    }
    // Too long: the first command of the chain says what ran, if it fits.
    let head = first_segment(command);
    if crate::model::utf16_len(&head) + 2 <= max {
        return format!("{head} …");
    }
    let words = super::draft::words(&head, true);
    let fits = words
        .iter()
        .map(|&(_, end)| &head[..end])
        .take_while(|h| crate::model::utf16_len(h) + 2 <= max)
        .last();
    // At least the program, after whatever sets up how it runs (`timeout 60 cargo …`).
    let texts: Vec<&str> = words.iter().map(|&(s, e)| &head[s..e]).collect();
    let program = words
        .get(wrapper_words(&texts))
        .map(|&(_, end)| &head[..end]);
    // A prefix that ends before the program says only how it ran (`timeout 600 …`).
    let fits = fits.filter(|f| program.is_none_or(|p| f.len() >= p.len()));
    match fits.or(program) {
        Some(h) => format!("{h} …"),
        None => head,
    }
}

/// The forms a command is shown in, fullest first: whole words of it up to 40 and 24
/// columns, then the words that name the check (`npx tsc …`, `make build`), then only its
/// program (`npx …`); each form once.
pub(crate) fn command_forms(command: &str) -> Vec<String> {
    let mut forms: Vec<String> = Vec::new();
    for form in [
        show_command(command, 40),
        show_command(command, 24),
        command_name(command),
        show_command(command, 0),
    ] {
        if !forms.contains(&form) {
            forms.push(form);
        }
    }
    forms
}

/// The first words of a command that name the check it runs (`name_words`), as a prefix of
/// the command (`go build …`), or the whole first command when that is all of it.
pub(crate) fn command_name(command: &str) -> String {
    let head = first_segment(command);
    let words = super::draft::words(&head, true);
    let texts: Vec<&str> = words.iter().map(|&(s, e)| &head[s..e]).collect();
    let end = name_words(&texts)
        .checked_sub(1)
        .and_then(|i| words.get(i))
        .map_or(head.len(), |&(_, end)| end);
    // The name stands alone only when it is all that ran (`make build`, not the first of
    // `make build && make test`).
    inside_ticks(if end >= head.len() && head == exact(strip_cd(command)) {
        head
    } else {
        format!("{} …", &head[..end])
    })
}

/// Programs run through another (`npx tsc`, `bundle exec rspec`, `python -m pytest`): the
/// runner's words come before the program's name.
const RUNNERS: &[&[&str]] = &[
    &["npx"],
    &["bunx"],
    &["pnpx"],
    &["sudo"],
    &["time"],
    &["bundle", "exec"],
    &["poetry", "run"],
    &["uv", "run"],
    &["pipenv", "run"],
    &["hatch", "run"],
    &["pnpm", "exec"],
    &["pnpm", "dlx"],
    &["yarn", "dlx"],
    &["python", "-m"],
    &["python3", "-m"],
];

/// Programs whose first argument says what they do (`go test`, `make build`, `npm run lint`).
const WITH_SUBCOMMAND: &[&str] = &[
    "alembic",
    "artisan",
    "bazel",
    "bun",
    "cargo",
    "composer",
    "dbt",
    "deno",
    "docker",
    "dotnet",
    "flutter",
    "gh",
    "git",
    "go",
    "gradle",
    "gradlew",
    "helm",
    "kubectl",
    "make",
    "mix",
    "mvn",
    "mvnw",
    "npm",
    "php",
    "pnpm",
    "poetry",
    "pre-commit",
    "pulumi",
    "rails",
    "rake",
    "swift",
    "terraform",
    "tofu",
    "uv",
    "yarn",
];

/// How many of a command's first words name the check it runs: its runner, its program and,
/// for a program of subcommands, the subcommand (and the script `npm run` runs), so a title
/// with room for a few words says `npx tsc …` or `make build`, not `npx …` or `make …`.
/// `command_key` is coarser on purpose and no prefix of the command (it drops `VAR=…`
/// words): it pairs a failing run with the later passing run of the same check.
fn name_words(words: &[&str]) -> usize {
    let mut at = 0;
    loop {
        let from = at;
        at += wrapper_words(&words[at..]);
        while let Some(runner) = RUNNERS
            .iter()
            .find(|r| words.len() > at + r.len() && words[at..at + r.len()] == r[..])
        {
            at += runner.len();
        }
        if at == from {
            break;
        }
    }
    let program = |w: &str| w.rsplit('/').next().unwrap_or(w).to_string();
    let plain = |w: &str| {
        w.starts_with(|c: char| c.is_ascii_alphabetic())
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_:".contains(c))
    };
    let Some(first) = words.get(at) else {
        return words.len().min(1);
    };
    let mut end = at + 1;
    // `php artisan migrate`: a subcommand may itself take one; `npm run lint`: the script
    // `run` runs says what ran.
    let mut takes_one = WITH_SUBCOMMAND.contains(&program(first).as_str());
    while takes_one && let Some(sub) = words.get(end).filter(|w| plain(w)) {
        end += 1;
        takes_one = WITH_SUBCOMMAND.contains(sub) || *sub == "run";
    }
    end
}

/// How many of `words` only set up how the program after them runs: a variable
/// (`RUST_LOG=debug`), `env` with its own, `timeout` with its duration (`timeout 60 cargo test`),
/// `nice -n 10`, `nohup`, `stdbuf -oL`, `xvfb-run -a`. A title that names the check by them
/// says `timeout …`, not which check ran. Only a prefix that leaves a program counts.
fn wrapper_words(words: &[&str]) -> usize {
    let assignment = |w: &str| {
        w.split_once('=').is_some_and(|(name, _)| {
            name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let flag = |w: &str| w.starts_with('-') && w.len() > 1;
    let mut at = 0;
    while let Some(&w) = words.get(at) {
        let skip_flags = |mut i: usize, with_value: &[&str]| {
            while let Some(&f) = words.get(i).filter(|f| flag(f)) {
                i += if with_value.contains(&f) { 2 } else { 1 };
            }
            i
        };
        let next = match w {
            _ if assignment(w) => at + 1,
            "env" => {
                let mut i = skip_flags(at + 1, &["-u", "-C", "-S"]);
                while words.get(i).is_some_and(|a| assignment(a)) {
                    i += 1;
                }
                i
            }
            "timeout" => {
                let i = skip_flags(at + 1, &["-s", "-k", "--signal", "--kill-after"]);
                match words.get(i) {
                    Some(d) if d.starts_with(|c: char| c.is_ascii_digit()) => i + 1,
                    _ => break,
                }
            }
            "nice" => skip_flags(at + 1, &["-n", "--adjustment"]),
            "nohup" => at + 1,
            "stdbuf" | "xvfb-run" | "ionice" => skip_flags(at + 1, &["-c", "-n", "-s", "-e"]),
            _ => break,
        };
        if next >= words.len() {
            break;
        }
        at = next;
    }
    at
}

/// The first command of a chain or pipeline as it ran (`grep -q 'a|b' f || …` →
/// `grep -q 'a|b' f`): separators inside quotes do not count.
pub(crate) fn first_segment(command: &str) -> String {
    let cmd = strip_cd(command);
    exact(segments(cmd).first().copied().unwrap_or(cmd))
}

/// The commands of a chain or pipeline (`a && b | c; d`), split where the shell would split
/// them: an `&&`, `|` or `;` inside quotes (`git commit -m "x; npm install y"`) is text.
fn segments(cmd: &str) -> Vec<&str> {
    let bytes = cmd.as_bytes();
    let mut quote: Option<u8> = None;
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match quote {
            Some(q) if b == q => quote = None,
            Some(b'"') if b == b'\\' => i += 1,
            Some(_) => {}
            None => match b {
                b'\'' | b'"' if cmd[i + 1..].contains(b as char) => quote = Some(b),
                b'\\' => i += 1,
                b'&' if bytes.get(i + 1) == Some(&b'&') => {
                    cuts.push((i, i + 2));
                    i += 1;
                }
                b'|' if bytes.get(i + 1) == Some(&b'|') => {
                    cuts.push((i, i + 2));
                    i += 1;
                }
                b'|' | b';' | b'\n' => cuts.push((i, i + 1)),
                _ => {}
            },
        }
        i += 1;
    }
    let starts = std::iter::once(0).chain(cuts.iter().map(|&(_, end)| end));
    let ends = cuts
        .iter()
        .map(|&(at, _)| at)
        .chain(std::iter::once(cmd.len()));
    starts
        .zip(ends)
        .map(|(from, to)| cmd.get(from..to).unwrap_or(""))
        .collect()
}

/// Program and subcommand, used to pair a failing run with a later passing one
/// (`cargo test store::` and `cargo test` are the same check).
pub(crate) fn command_key(command: &str) -> String {
    let all: Vec<&str> = strip_cd(command).split_whitespace().collect();
    let words: Vec<&str> = all[wrapper_words(&all)..]
        .iter()
        .copied()
        .filter(|w| !w.contains('=') || w.starts_with('-'))
        .take(3)
        .collect();
    let take = match words.first().copied() {
        Some("npm" | "pnpm" | "yarn" | "bun") if words.get(1) == Some(&"run") => 3,
        Some(
            "cargo" | "go" | "npm" | "pnpm" | "yarn" | "bun" | "make" | "dotnet" | "mvn" | "gradle"
            | "./gradlew" | "mix" | "deno" | "uv" | "poetry" | "bundle" | "git",
        ) => 2,
        Some("python" | "python3") if words.get(1) == Some(&"-m") => 3,
        _ => 1,
    };
    words
        .iter()
        .take(take)
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

const INSPECT: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "less",
    "more",
    "find",
    "grep",
    "rg",
    "ag",
    "wc",
    "tree",
    "pwd",
    "which",
    "whereis",
    "file",
    "stat",
    "du",
    "df",
    "echo",
    "printf",
    "env",
    "printenv",
    "whoami",
    "date",
    "uname",
    "ps",
    "diff",
    "sed -n",
    "awk",
    "jq",
    "sort",
    "uniq",
    "cut",
    "nl",
    "realpath",
    "readlink",
    "type",
    "id",
    "hostname",
    "journalctl",
];
const INSPECT_SUB: &[&str] = &[
    "git status",
    "git log",
    "git diff",
    "git show",
    "git branch",
    "git remote",
    "git blame",
    "git rev-parse",
    "git ls-files",
    "cargo tree",
    "cargo metadata",
    "npm ls",
    "npm view",
    "pip show",
    "pip list",
    "pip freeze",
    "npm outdated",
    "git reflog",
    "git grep",
    "git describe",
    "go list",
    "terraform show",
    "terraform output",
    "docker ps",
    "docker images",
    "docker logs",
    "docker inspect",
    "helm status",
    "helm list",
    "helm get",
    "helm show",
    "systemctl status",
];
/// Read-only verbs of cluster and hosting CLIs, which take flags before the verb
/// (`kubectl -n shop get events`): the verb is their first word that is not a flag or a flag's
/// value.
const INSPECT_VERBS: &[(&str, &[&str])] = &[
    (
        "kubectl",
        &[
            "get",
            "describe",
            "logs",
            "diff",
            "top",
            "explain",
            "api-resources",
            "version",
        ],
    ),
    (
        "gh",
        &[
            "pr view",
            "pr list",
            "pr diff",
            "pr checks",
            "issue view",
            "issue list",
            "run view",
            "run list",
        ],
    ),
];
/// Linters named by their own program: a check when the command runs one first (after a
/// `chmod +x x.sh && shellcheck x.sh` the file's mode changed, and that is the outcome).
/// `pre-commit` checks only as `pre-commit run`.
const CHECK_PROGRAMS: &[&str] = &[
    "shellcheck",
    "actionlint",
    "hadolint",
    "yamllint",
    "golangci-lint",
    "stylelint",
    "pre-commit run",
];
/// Words of a command, after a check in its chain, that act on the world: the chain's outcome
/// is the action (`terraform validate && terraform apply`, `nginx -t && systemctl reload
/// nginx`), not the check before it.
const ACTIONS: &[&str] = &[
    "apply", "reload", "restart", "deploy", "push", "publish", "release", "install", "upgrade",
];
const CHECK_WORDS: &[&str] = &[
    "test",
    "tests",
    "check",
    "clippy",
    "lint",
    "build",
    "pytest",
    "jest",
    "vitest",
    "mocha",
    "tsc",
    "mypy",
    "ruff",
    "eslint",
    "rspec",
    "phpunit",
    "ctest",
    "bench",
    "vet",
    "fmt",
    "typecheck",
    "validate",
    "compile",
    "verify",
    "unittest",
    "tox",
    "nox",
];
const MUTATE: &[&str] = &[
    "mv", "cp", "rm", "mkdir", "touch", "chmod", "chown", "ln", "sed -i", "patch", "tee",
];
const MUTATE_SUB: &[&str] = &[
    "git commit",
    "git add",
    "git push",
    "git merge",
    "git rebase",
    "git checkout",
    "git switch",
    "git reset",
    "git stash",
    "git tag",
    "git rm",
    "git mv",
    "git revert",
    "git cherry-pick",
    "cargo add",
    "cargo remove",
    "cargo install",
    "cargo update",
    "npm install",
    "npm i",
    "npm ci",
    "npm uninstall",
    "pnpm add",
    "pnpm install",
    "pnpm i",
    "yarn add",
    "yarn install",
    "bundle install",
    "bundle add",
    "gem install",
    "composer install",
    "composer require",
    "dotnet add",
    "pip install",
    "pip3 install",
    "poetry install",
    "uv add",
    "uv pip",
    "poetry add",
    "go get",
    "go mod",
    "apt-get install",
    "brew install",
];

pub(crate) fn classify(command: &str) -> CommandClass {
    let cmd = strip_cd(command);
    // The first command of a pipeline or chain decides, except that a check anywhere in it
    // makes it a check (`cargo build && cargo test`).
    let lower = cmd.to_ascii_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let first = words.first().copied().unwrap_or("");
    let two = subcommand(command);
    let read_only_verb = INSPECT_SUB.contains(&two.as_str()) || inspect_verb(&words);
    let is_check = CHECK_PROGRAMS.contains(&first)
        || CHECK_PROGRAMS.contains(&two.as_str())
        || checks_in_chain(&words);
    if is_check
        && !read_only_verb
        && !matches!(first, "grep" | "rg" | "cat" | "echo" | "ls" | "find")
    {
        return CommandClass::Check;
    }
    if MUTATE_SUB.contains(&two.as_str())
        || MUTATE.contains(&first)
        || MUTATE.contains(&two.as_str())
    {
        return CommandClass::Mutate;
    }
    let looks = read_only_verb || INSPECT.contains(&first) || INSPECT.contains(&two.as_str());
    if looks && !writes(&words) {
        return CommandClass::Inspect;
    }
    CommandClass::Other
}

/// The commands of a chain (`a && b; c || d`), each as its words; a pipeline stays one.
fn chain<'a>(words: &'a [&'a str]) -> impl Iterator<Item = &'a [&'a str]> {
    words.split(|w| matches!(*w, "&&" | "||" | ";"))
}

/// Whether a command of the chain checks (tests, builds, lints: a check anywhere makes the
/// chain one, `cargo build && cargo test`) and no command after it acts on the world.
fn checks_in_chain(words: &[&str]) -> bool {
    let checks = |command: &[&str]| {
        command.iter().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_ascii_alphanumeric() && c != '-');
            CHECK_WORDS.contains(&w)
        }) || build_tool_check(command)
            || command.windows(2).any(|w| w == ["nginx", "-t"])
    };
    let commands: Vec<&[&str]> = chain(words).collect();
    let Some(at) = commands.iter().position(|c| checks(c)) else {
        return false;
    };
    !commands[at + 1..].iter().any(|c| {
        c.iter().any(|w| ACTIONS.contains(w)) || c.first().is_some_and(|w| MUTATE.contains(w))
    })
}

/// Whether a look-around command also writes a file or feeds another command
/// (`pip freeze > requirements.txt`, `kubectl get pods -o name | xargs kubectl delete`).
fn writes(words: &[&str]) -> bool {
    words.iter().enumerate().any(|(i, w)| {
        let into = |target: Option<&&str>| target.is_some_and(|t| *t != "/dev/null");
        match *w {
            ">" | ">>" => into(words.get(i + 1)),
            "xargs" | "tee" => true,
            w if w.starts_with('>') => w.trim_start_matches('>') != "/dev/null",
            _ => false,
        }
    })
}

/// Whether a Gradle or Maven command is a check: it runs a task that compiles, tests, lints
/// or checks (`./gradlew :app:compileDebugKotlin`, `testDebugUnitTest`, `lintRelease`).
fn build_tool_check(command: &[&str]) -> bool {
    let Some(program) = command.first().map(|w| w.rsplit('/').next().unwrap_or(w)) else {
        return false;
    };
    if !matches!(program, "gradle" | "gradlew" | "mvn" | "mvnw") {
        return false;
    }
    // The value of these flags is a task to leave out, a file or a module, never a task to run
    // (`-x test`, `-f tests/pom.xml`, `-pl test-utils`).
    const TAKES_VALUE: &[&str] = &[
        "-x",
        "--exclude-task",
        "-f",
        "--file",
        "-pl",
        "--projects",
        "-p",
        "--project-dir",
        "-s",
        "--settings",
        "-b",
        "--build-file",
    ];
    operands(&command[1..], TAKES_VALUE)
        .filter(|w| !w.contains(['/', '.']))
        .any(|w| {
            let task = w.rsplit(':').next().unwrap_or(w);
            ["compile", "test", "lint", "check"]
                .iter()
                .any(|verb| task.starts_with(verb))
        })
}

/// A command's arguments without its flags, and without the values of the flags in
/// `takes_value` (`-n shop`; `--namespace=shop` is one word).
fn operands<'a>(args: &'a [&'a str], takes_value: &'a [&str]) -> impl Iterator<Item = &'a str> {
    let mut args = args.iter().copied();
    std::iter::from_fn(move || {
        while let Some(w) = args.next() {
            if !w.starts_with('-') {
                return Some(w);
            }
            if takes_value.contains(&w) {
                args.next();
            }
        }
        None
    })
}

/// Whether a cluster or hosting CLI runs a read-only verb (`kubectl -n shop get events`).
fn inspect_verb(words: &[&str]) -> bool {
    let Some((_, verbs)) = INSPECT_VERBS
        .iter()
        .find(|(program, _)| words.first() == Some(program))
    else {
        return false;
    };
    // Flags, and the values of those that take one, come before the verb (the command is
    // lower-cased: gh's `-R` is `-r` here).
    const TAKES_VALUE: &[&str] = &[
        "-n",
        "--namespace",
        "--context",
        "--kubeconfig",
        "-r",
        "--repo",
    ];
    let verb: Vec<&str> = operands(&words[1..], TAKES_VALUE).take(2).collect();
    verbs.iter().any(|v| {
        let parts: Vec<&str> = v.split(' ').collect();
        verb.len() >= parts.len() && verb[..parts.len()] == parts[..]
    })
}

/// What a test, build or lint run prints when it failed, whatever its exit status was (a
/// `cargo test … || true` or `| tail` ends with 0): runner summaries, compiler errors,
/// tracebacks, package-manager errors and a non-zero exit code reported in the output.
static FAILED_OUTPUT: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(concat!(
        r"(?m)(?:^[ \t]*(?:",
        r"test result: FAILED|error(?:\[E[0-9]+\])?:|Traceback \(most recent call last\)",
        r"|npm ERR!|npm error |FAIL(?:[ \t]|$)|--- FAIL:|BUILD FAIL|\[ERROR\] |FAILURES?!",
        r"|make(?:\[[0-9]+\])?: \*\*\* .* Error [0-9]|Found [1-9][0-9]* errors?\b",
        r"|=+ .*\b[1-9][0-9]* (?:failed|errors?)\b",
        r"|(?:✖|✗|×) [1-9][0-9]* problems?",
        r")",
        r"|\berror TS[0-9]+:|\b[1-9][0-9]* (?:tests? )?(?:failed|failing|errors? during)\b",
        r"|\bFAILED\b(?:[ \t]*[:=]?[ \t]*0\b)?",
        r"|(?i:\bexit(?:ed with)?(?: code| status):?[ \t]+)([0-9]+))",
    ))
});

/// The package managers' own words for "nothing was installed" (`npm install … || true` exits
/// 0): npm's and pnpm's error codes; pip's, cargo's, yarn's, brew's and apt's error lines; a
/// solver's verdict.
static INSTALL_FAILED: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(concat!(
        r"(?m)^[ \t]*(?:npm ERR! code |npm error code |ERR_PNPM_|ERROR: |[Ee]rror: |error [A-Z]|E: ",
        r"|.*version solving failed|SolverProblemError)",
    ))
});

/// The package managers' own words for "installed" (pip's `Successfully installed …`, npm's
/// `added 3 packages`, uv's `Installed 2 packages`): pip prints its resolver's conflict warning
/// as an `ERROR:` line and still installs, so a success line outweighs an error line.
static INSTALL_SUCCEEDED: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(
        r"(?m)^[ \t]*(?:Successfully installed |(?:added|Installed) [0-9]+ packages?\b)",
    )
});

/// A command's program and subcommand (`npm install`), lowercase, after any `cd … &&`: the
/// unit `MUTATE_SUB` and `INSPECT_SUB` list.
fn subcommand(command: &str) -> String {
    let lower = strip_cd(command).to_ascii_lowercase();
    lower
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `command`, or any command of its chain (`python3 -m venv .venv &&
/// .venv/bin/pip install -r requirements.txt`), installs, removes or updates packages.
fn manages_packages(command: &str) -> bool {
    segments(command)
        .into_iter()
        .map(|part| {
            // A program run by its path (`.venv/bin/pip`) is that program.
            let part = part.trim();
            match part.split_once(' ') {
                Some((program, rest)) => {
                    format!("{} {rest}", program.rsplit('/').next().unwrap_or(program))
                }
                None => part.to_string(),
            }
        })
        .any(|part| {
            let two = subcommand(&part);
            MUTATE_SUB.contains(&two.as_str()) && !two.starts_with("git ")
        })
}

/// Whether `output` says the command failed: for checks (tests, builds, lints), whose output is
/// their verdict, and for package managers, whose errors say nothing was installed; what other
/// commands print (logs, files) says nothing of their own outcome.
pub(crate) fn output_failed(command: &str, output: &str) -> bool {
    if output.is_empty() {
        return false;
    }
    if classify(command) != CommandClass::Check {
        return manages_packages(command)
            && INSTALL_FAILED.is_match(output)
            && !INSTALL_SUCCEEDED.is_match(output);
    }
    if !may_say_failed(output) {
        return false;
    }
    FAILED_OUTPUT.captures_iter(output).any(|c| {
        let whole = c.first().copied().flatten().unwrap_or("");
        match c.get(1).copied().flatten() {
            // An exit code: failed unless it is 0.
            Some(code) => code.bytes().any(|b| b != b'0'),
            // `FAILED: 0` is a count of nothing.
            None => !(whole.starts_with("FAILED") && whole.ends_with('0')),
        }
    })
}

/// A cheap first look: can `output` match `FAILED_OUTPUT` at all? A passing run (`test
/// result: ok. 4 passed; 0 failed`) then never pays for compiling the pattern in the hook.
fn may_say_failed(output: &str) -> bool {
    const MARKS: &[&str] = &[
        "FAIL",
        "rror",
        "ERR",
        "Traceback",
        "xit ",
        "xited ",
        "*** ",
        "\u{2716}",
        "\u{2717}",
        "\u{d7}",
    ];
    if MARKS.iter().any(|m| output.contains(m)) {
        return true;
    }
    // `N failed`, `N tests failed`, `N failing` with N above 0.
    [" failed", " failing"].iter().any(|word| {
        output.match_indices(word).any(|(at, _)| {
            let before = output[..at]
                .trim_end_matches(" tests")
                .trim_end_matches(" test");
            let digits = before.len() - before.trim_end_matches(|c: char| c.is_ascii_digit()).len();
            before[before.len() - digits..].bytes().any(|b| b != b'0')
        })
    })
}

/// A non-zero exit code a check's output reports (`Exit code 2`, `exit status 1`).
pub(crate) fn output_exit_code(output: &str) -> Option<i64> {
    FAILED_OUTPUT
        .captures_iter(output)
        .filter_map(|c| c.get(1).copied().flatten()?.parse::<i64>().ok())
        .find(|&c| c != 0)
}

/// Criterion's verdicts that say something changed (`tokenize/long_line regressed
/// +23.118%`), with the benchmark named on the `time:` line above and the middle estimate of
/// its `change:` line.
pub(crate) fn bench_changes(output: &str) -> Option<String> {
    let lines: Vec<&str> = output.lines().map(str::trim).collect();
    let mut found = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let verdict = match *l {
            "Performance has regressed." => "regressed",
            "Performance has improved." => "improved",
            _ => continue,
        };
        let above = lines[..i].iter().rev().take(3);
        let name = above
            .clone()
            .find_map(|l| l.split_once(" time:").map(|(n, _)| n.trim()));
        let change = above
            .clone()
            .find_map(|l| l.strip_prefix("change: ["))
            .and_then(|c| c.split_whitespace().nth(1));
        if let Some(name) = name {
            found.push(
                format!("{name} {verdict} {}", change.unwrap_or(""))
                    .trim()
                    .to_string(),
            );
        }
    }
    (!found.is_empty()).then(|| found.join(", "))
}

static COUNT: LazyLock<AsciiRegex> = LazyLock::new(|| {
    AsciiRegex::new(r"\b[0-9]+ (?:passed|failed|failing|errors?|skipped|tests?|examples?)\b")
});

/// How many checks failed, as the runner's summary says it (`1 failure`, `2 failed`, `3 failing`),
/// from its last summary: a reader of a failing run wants to know whether one test or forty
/// are broken.
static FAILED_COUNT: LazyLock<AsciiRegex> =
    LazyLock::new(|| AsciiRegex::new(r"\b[1-9][0-9]* (?:failed|failures?|failing)\b"));

pub(crate) fn failed_count(output: &str) -> Option<String> {
    // A summary's count stands first on its line, after a label (`Tests:`, `Test Files`) or
    // after another count (`7 tests, 1 failure`); `webhook attempt 2 failed` is a log line.
    let summary = |before: &str| {
        let b = before.trim_end().to_ascii_lowercase();
        b.is_empty()
            || b.ends_with([',', ';', '|', ':', '='])
            || ["tests", "files", "suites", "examples", "specs"]
                .iter()
                .any(|l| b.ends_with(l))
    };
    output
        .lines()
        .rev()
        .find_map(|l| {
            let (count, end) = FAILED_COUNT.find(l)?;
            summary(&l[..end - count.len()]).then_some(count)
        })
        .map(str::to_string)
}

/// The counts of a summary line, for a title with no room for the whole line
/// (`test result: ok. 6 passed; 0 failed; 0 ignored; …` → `6 passed`): the counts that are
/// not zero, at most two.
pub(crate) fn counts(summary: &str) -> Option<String> {
    let found: Vec<&str> = COUNT
        .find_iter(summary)
        .filter(|c| !c.starts_with("0 "))
        .take(2)
        .collect();
    (!found.is_empty()).then(|| found.join(", "))
}

#[cfg(test)] // only the tests here ask
/// The diagnostics as one line: `SC2086 in scripts/deploy.sh, SC2164 in scripts/backup.sh`.
pub(crate) fn diagnostics(output: &str) -> Option<String> {
    super::recognise::one_line_list(&diagnostic_list(output))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn a_command_holding_backticks_closes_the_span_a_title_opens_around_it() {
        let shown = show_command("TZ=`cat .tz` cargo test", 40);
        assert_eq!(format!("`{shown}`"), "`` TZ=`cat .tz` cargo test ``");
        assert_eq!(show_command("cargo test", 40), "cargo test");
    }

    #[test]
    fn counts_keep_what_is_not_zero() {
        assert_eq!(
            counts("test result: ok. 6 passed; 0 failed; 0 ignored; finished in 0.01s").as_deref(),
            Some("6 passed")
        );
        assert_eq!(
            counts("Tests: 1 failed, 3 passed, 4 total").as_deref(),
            Some("1 failed, 3 passed")
        );
        assert_eq!(counts("all good"), None);
    }

    #[test]
    fn a_chained_install_is_an_install_and_pip_says_why_it_failed() {
        let cmd = "python3.12 -m venv .venv && .venv/bin/pip install -r requirements.txt 2>&1 | tail -n 12 || true";
        let out = "      Error: pg_config executable not found.\n  note: This error originates from a subprocess\nerror: metadata-generation-failed\n\n× Encountered error while generating package metadata.\n╰─> psycopg2";
        assert!(output_failed(cmd, out));
        // pip's `×` is no test runner's failing test (Jest's are indented under their file).
        assert!(failing_tests(out).is_empty());
        assert_eq!(
            error_line(out).as_deref(),
            Some("Error: pg_config executable not found.")
        );
        assert!(!output_failed("python3.12 -m venv .venv && ls", out));
        // A package command quoted in a message is no install.
        assert!(!output_failed(
            "git commit -m \"wip; npm install left-pad\"",
            "npm ERR! code E404"
        ));
        assert!(output_failed(
            "cd web; npm install left-pad",
            "npm ERR! code E404"
        ));
    }

    #[test]
    fn npm_conflicts_bisects_and_benchmarks_say_what_they_found() {
        let npm = "npm ERR! code ERESOLVE\nnpm ERR! Found: react@17.0.2\nnpm ERR! node_modules/react\nnpm ERR! Could not resolve dependency:\nnpm ERR! peer react@\"^18.2.0\" from react-datepicker@7.5.0";
        assert_eq!(
            error_line(npm).as_deref(),
            Some(
                "npm ERR! code ERESOLVE: found react@17.0.2, peer react@\"^18.2.0\" from react-datepicker@7.5.0"
            )
        );
        let bisect = "rows: 996 expected 1000\n9c41e7a3f0d2b8e15c7a46d9e0b1f2c3d4e5f6a7 is the first bad commit\ncommit 9c41e7a3f0d2\nAuthor: P <p@e.com>\nDate:   Tue Nov 17 14:02:55 2026 +0100\n\n    Switch CSV export to streaming writer\n\n lib/export/csv_stream.rb | 48 ++++----\n 1 file changed\nbisect found first bad commit";
        assert_eq!(
            result_line(bisect).as_deref(),
            Some(
                "first bad commit 9c41e7a \"Switch CSV export to streaming writer\" (lib/export/csv_stream.rb)"
            )
        );
        let table = format!(" id | rows\n  1 | 996\n{bisect}");
        assert_eq!(
            result_line(&table).as_deref(),
            Some(
                "first bad commit 9c41e7a \"Switch CSV export to streaming writer\" (lib/export/csv_stream.rb)"
            ),
            "the test's own table is no file of the commit"
        );
        let bench = "tokenize/short_line     time:   [182.31 ns 183.02 ns 183.80 ns]\n                        change: [-1.2% -0.6% +0.03%] (p = 0.07 > 0.05)\n                        No change in performance detected.\n--\ntokenize/long_line      time:   [41.872 us 42.105 us 42.361 us]\n                        change: [+22.415% +23.118% +23.804%] (p = 0.00 < 0.05)\n                        Performance has regressed.";
        assert_eq!(
            bench_changes(bench).as_deref(),
            Some("tokenize/long_line regressed +23.118%")
        );
        assert_eq!(bench_changes("test result: ok. 3 passed"), None);
    }

    #[test]
    fn a_query_plan_is_told_by_its_scan_and_time() {
        let out = "Limit  (cost=1..2 rows=50)\n  ->  Sort\n        ->  Seq Scan on orders  (cost=0.00..147851.55 rows=10884)\nPlanning Time: 0.142 ms\nExecution Time: 912.087 ms";
        assert_eq!(
            result_line(out).as_deref(),
            Some("Seq Scan on orders (Execution Time: 912.087 ms)")
        );
        let out = "CREATE INDEX\n  ->  Index Scan using orders_cid_idx on orders  (cost=0.56..52.91)\nExecution Time: 0.352 ms";
        assert_eq!(
            result_line(out).as_deref(),
            Some("Index Scan using orders_cid_idx on orders (Execution Time: 0.352 ms)")
        );
        assert_eq!(result_line("CREATE INDEX").as_deref(), Some("CREATE INDEX"));
    }

    #[test]
    fn vitest_names_the_failing_test_after_its_file() {
        let out = " FAIL  src/lib/money.test.ts > formatPrice > formats negative amounts\nAssertionError: x\n Test Files  1 failed (1)";
        assert_eq!(
            failing_tests(out),
            vec!["src/lib/money.test.ts > formatPrice > formats negative amounts".to_string()]
        );
    }

    #[test]
    fn failed_count_is_the_last_summary_count_of_failures() {
        assert_eq!(
            failed_count("Finished in 0.3 seconds\n7 tests, 1 failure").as_deref(),
            Some("1 failure")
        );
        // Vitest prints files, then tests: the tests' count is the last.
        assert_eq!(
            failed_count(" Test Files  1 failed (1)\n      Tests  2 failed | 3 passed (5)")
                .as_deref(),
            Some("2 failed")
        );
        assert_eq!(failed_count("9 examples, 0 failures"), None);
        // A count said in a log line is no summary's.
        assert_eq!(
            failed_count("      Tests  1 failed | 3 passed (4)\nnotify: webhook attempt 2 failed")
                .as_deref(),
            Some("1 failed")
        );
        assert_eq!(failed_count("upload retry 1 failed, retrying\ndone"), None);
        assert_eq!(
            failed_count("==== 1 failed, 3 passed in 0.21s ====").as_deref(),
            Some("1 failed")
        );
        assert_eq!(failed_count("  3 failing").as_deref(), Some("3 failing"));
        assert_eq!(
            failed_count("error[E0106]: missing lifetime specifier"),
            None
        );
    }

    #[test]
    fn classifies_commands() {
        assert_eq!(classify("cargo test store::"), CommandClass::Check);
        assert_eq!(classify("cd /w && npm run lint"), CommandClass::Check);
        assert_eq!(classify("git status"), CommandClass::Inspect);
        assert_eq!(classify("ls -la src"), CommandClass::Inspect);
        assert_eq!(classify("grep -rn test src"), CommandClass::Inspect);
        assert_eq!(classify("git commit -m 'x'"), CommandClass::Mutate);
        assert_eq!(classify("npm install left-pad"), CommandClass::Mutate);
        assert_eq!(classify("./deploy.sh"), CommandClass::Other);
        use CommandClass::{Check, Inspect, Mutate, Other};
        for (command, class) in [
            // Linters by their own name, config tests, Gradle tasks that compile or test.
            ("shellcheck scripts/backup-db.sh && echo clean", Check),
            ("actionlint .github/workflows/ci.yml", Check),
            ("pre-commit run --all-files", Check),
            (
                "cd infra/x && terraform init -backend=false && terraform validate",
                Check,
            ),
            (
                "docker run --rm -v $PWD/n.conf:/etc/nginx/nginx.conf:ro nginx nginx -t",
                Check,
            ),
            ("./gradlew compileKotlin", Check),
            ("./gradlew :app:compileDebugKotlin -q", Check),
            ("mvn -q test", Check),
            // A linter after a change of the file's mode: the mode is the outcome.
            ("chmod +x scripts/x.sh && shellcheck scripts/x.sh", Mutate),
            // Read-only verbs, flags first or not.
            (
                "kubectl -n shop get events --field-selector reason=Unhealthy",
                Inspect,
            ),
            (
                "kubectl diff -f deploy/checkout-api/deployment.yaml",
                Inspect,
            ),
            ("kubectl --context prod describe pod api-0", Inspect),
            ("gh pr view 812 --json title", Inspect),
            ("gh -R acme/shop pr view 812", Inspect),
            (
                "docker images acme/ledger --format '{{.Tag}} {{.Size}}'",
                Inspect,
            ),
            ("pip freeze | grep psycopg", Inspect),
            ("helm status pg", Inspect),
            // What changes a cluster or a repository, builds an artefact, or renders a chart
            // (whose output is often the finding) is neither.
            ("kubectl apply -f deploy/x.yaml", Other),
            ("kubectl -n shop delete pod api-0", Other),
            ("gh pr merge 812", Other),
            ("./gradlew assembleRelease", Other),
            ("./gradlew publish --info", Other),
            ("helm template pg deploy/helm/postgres", Other),
            // Review cases: a read-only verb is no check for a word in its arguments; a check
            // followed by an action is the action; a look-around that writes is no look-around.
            ("kubectl -n test get pods", Inspect),
            ("gh pr list --label lint", Inspect),
            ("journalctl -u api --since today", Inspect),
            (
                "./gradlew assembleDebug && ./gradlew testDebugUnitTest",
                Check,
            ),
            ("mvn -f tests/pom.xml deploy", Other),
            ("mvn -pl test-utils -am install", Other),
            ("terraform validate && terraform apply -auto-approve", Other),
            ("sudo nginx -t && sudo systemctl reload nginx", Other),
            ("pre-commit install", Other),
            ("pip freeze > requirements.txt", Other),
            ("kubectl get pods -o name | xargs kubectl delete", Other),
            ("ls src 2>/dev/null", Inspect),
            ("grep -w pool src/db.rs", Inspect),
            ("wc -w README.md", Inspect),
        ] {
            assert_eq!(classify(command), class, "{command}");
        }
    }

    #[test]
    fn keys_pair_narrow_and_wide_runs() {
        assert_eq!(command_key("cargo test store::"), "cargo test");
        assert_eq!(command_key("cd /x && cargo test"), "cargo test");
        assert_eq!(command_key("npm run test -- -u"), "npm run test");
        assert_eq!(command_key("pytest tests/a.py -k x"), "pytest");
        assert_eq!(
            command_key("timeout 60 cargo test --test pool"),
            "cargo test"
        );
        assert_eq!(command_key("RUST_LOG=debug cargo test"), "cargo test");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]
        /// Any output (any script, codes, paths, wrapper lines, line breaks): no panic, and
        /// what is said of it is one line.
        #[test]
        fn any_output_gives_one_line(
            out in "(?s)([A-Z]{1,3}[0-9]{3,4}|[a-z/._-]{0,12}\\.rs:[0-9]|make: \\*\\*\\* |> Task :t FAILED|\\[main 1a2b3c4\\] x|[ \n\t]|\u{e9}|\u{4e2d}|\u{1f600}|.){0,60}",
        ) {
            for said in [error_line(&out), diagnostics(&out)].into_iter().flatten() {
                proptest::prop_assert!(!said.contains('\n'));
            }
            let _ = failing_tests(&out);
        }
    }

    #[test]
    fn several_diagnostics_are_listed_and_wrapper_lines_skipped() {
        let shellcheck = "In scripts/deploy.sh line 42:\nrsync -az $H:/srv/\n ^--^ SC2086 (info): Double quote.\n\nIn scripts/backup.sh line 17:\ncd $D\n^--^ SC2164 (warning): Use cd || exit.\n\nmake: *** [Makefile:31: lint] Error 1";
        assert_eq!(
            error_line(shellcheck).unwrap(),
            "SC2086 in scripts/deploy.sh, SC2164 in scripts/backup.sh"
        );
        let tsc = "src/hooks/useOrders.ts(12,5): error TS2322: Type 'string' is not assignable to type 'OrderStatus'.";
        assert_eq!(
            error_line(tsc).unwrap(),
            tsc,
            "one diagnostic keeps its own line"
        );
        let clippy = "error: the loop variable `i` is only used to index `buf`\n --> src/frame.rs:3:14\n  = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#needless_range_loop";
        assert_eq!(
            diagnostics(clippy).as_deref(),
            Some("needless_range_loop in src/frame.rs"),
            "a Clippy lint is named by its link"
        );
        assert_eq!(
            error_line("npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE could not resolve\nnpm ERR! to accept an incorrect (and potentially broken) dependency resolution.").as_deref(),
            Some("npm ERR! code ERESOLVE"),
            "npm's error code, not its last advice"
        );
        let rspec = "Failures:\n\n  1) Subscription#renews_on renews on the last day of a short month\n     Failure/Error: expect(sub.renews_on).to eq(x)\n\n9 examples, 1 failure";
        assert_eq!(
            failing_tests(rspec),
            vec!["Subscription#renews_on renews on the last day of a short month"]
        );
        // As Clippy prints it: the place, the quoted code, then the lint's link.
        let clippy_full = "error: using `clone` on type `String` in `map`\n --> src/main.rs:6:16\n  |\n6 |     let name = args.get(1).map(|s| s.clone()).unwrap_or_default();\n  |                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ help: try: `args.get(1).cloned()`\n  |\n  = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#map_clone\n  = note: `-D clippy::map-clone` implied by `-D warnings`";
        assert_eq!(
            diagnostics(clippy_full).as_deref(),
            Some("map_clone in src/main.rs"),
            "the quoted code's `args.get` is no file"
        );
        let unplaced = "warning: x\n  = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#a_lint";
        assert_eq!(diagnostics(unplaced).as_deref(), Some("a_lint"));
        let gradle = "> Task :test FAILED\n\nInvoiceServiceTest > findInvoice times out FAILED\n    java.net.SocketTimeoutException at InvoiceServiceTest.kt:57\n\nFAILURE: Build failed with an exception.";
        assert_eq!(
            failing_tests(gradle),
            vec!["InvoiceServiceTest > findInvoice times out"]
        );
        assert_eq!(
            error_line("make: *** [Makefile:9: build] Error 2\ncc: fatal error: no input files")
                .unwrap(),
            "cc: fatal error: no input files"
        );
        assert_eq!(diagnostics("all 3 files checked, 0 problems"), None);
    }

    #[test]
    fn finds_the_line_that_matters() {
        let cargo = "running 2 tests\ntest a::b ... ok\ntest auth::refresh_window ... FAILED\n\ntest result: FAILED. 1 passed; 1 failed";
        assert_eq!(failing_tests(cargo), vec!["auth::refresh_window"]);
        assert_eq!(
            error_line(cargo).unwrap(),
            "test auth::refresh_window ... FAILED"
        );
        assert_eq!(
            result_line("running 2 tests\n\ntest result: ok. 2 passed; 0 failed; 0 ignored\n")
                .unwrap(),
            "test result: ok. 2 passed; 0 failed; 0 ignored"
        );
        assert_eq!(
            error_line("Exit code 1\nsrc/a.rs:3: error[E0425]: cannot find value `x`").unwrap(),
            "src/a.rs:3: error[E0425]: cannot find value `x`"
        );
        assert_eq!(
            failing_tests("FAILED tests/test_a.py::test_b - AssertionError: 1 != 2"),
            vec!["tests/test_a.py::test_b"]
        );
        assert_eq!(exit_code("Exit code 127\nsh: foo: not found"), Some(127));
    }

    #[test]
    fn a_command_is_named_by_its_runner_program_and_subcommand() {
        let cases = [
            ("npx tsc --noEmit", "npx tsc …"),
            ("make build", "make build"),
            ("go build ./... && go test ./internal/...", "go build …"),
            (
                "bundle exec rspec spec/models/user_spec.rb",
                "bundle exec rspec …",
            ),
            (
                "python -m pytest -q tests/test_api.py",
                "python -m pytest …",
            ),
            ("npm run lint -- --max-warnings 0", "npm run lint …"),
            ("php artisan migrate --force", "php artisan migrate …"),
            (
                "./gradlew test --tests InvoiceServiceTest",
                "./gradlew test …",
            ),
            ("cargo --locked test", "cargo …"), // a flag is no subcommand
            ("pytest tests/test_export.py", "pytest …"),
            ("shellcheck", "shellcheck"),
            ("cd web && npx tsc", "npx tsc"),
            ("make build\nmake test", "make build …"),
            ("make build && make test", "make build …"),
            ("cargo build && cargo test --workspace", "cargo build …"),
            // What only sets up how the check runs is not its name.
            (
                "timeout 60 cargo test --test pool_contention",
                "timeout 60 cargo test …",
            ),
            (
                "RUST_LOG=debug cargo test db::pool",
                "RUST_LOG=debug cargo test …",
            ),
            ("env -u HOME CI=1 npm test", "env -u HOME CI=1 npm test"),
            ("timeout -s KILL 5m npx jest", "timeout -s KILL 5m npx jest"),
            ("nice -n 10 make check", "nice -n 10 make check"),
            ("timeout 60", "timeout …"), // no program after it
            ("FOO=1", "FOO=1"),
        ];
        assert_eq!(
            show_command("timeout 600 ./scripts/run_integration_suite.sh --fast", 24),
            "timeout 600 ./scripts/run_integration_suite.sh …"
        );
        for (command, name) in cases {
            assert_eq!(command_name(command), name, "{command}");
            // A name is a prefix of the command: a title quotes no command it did not run.
            let shown = name.trim_end_matches(" …");
            assert!(strip_cd(command).starts_with(shown), "{command}");
        }
        assert_eq!(
            command_forms("npx tsc --noEmit -p tsconfig.build.json --pretty false"),
            vec!["npx tsc --noEmit -p …", "npx tsc …", "npx …"]
        );
        assert_eq!(
            command_forms("timeout 60 cargo test --test pool_contention"),
            vec![
                "timeout 60 cargo test --test …",
                "timeout 60 cargo test …",
                "timeout 60 cargo …"
            ]
        );
    }

    #[test]
    fn shows_commands_short() {
        assert_eq!(show_command("cd /a/b && cargo test", 40), "cargo test");
        assert_eq!(show_command("echo a\necho b", 40), "echo a …");
        assert_eq!(
            show_command(
                "grep -q '    300' src/auth.rs || { echo 'test auth ... FAILED' >&2; exit 1; }",
                30
            ),
            "grep -q '    300' …",
            "whole words only, inner whitespace kept"
        );
    }

    #[test]
    fn the_output_of_a_check_decides_its_outcome() {
        let failing = [
            (
                "cargo test || true",
                "running 1 test\ntest a ... FAILED\n\ntest result: FAILED. 0 passed; 1 failed",
            ),
            (
                "cargo build 2>&1 | tail",
                "error[E0425]: cannot find value `x` in this scope",
            ),
            (
                "cargo clippy",
                "error: could not compile `cmem` (lib) due to 1 previous error",
            ),
            (
                "python -m pytest -q",
                "F.\n=== 1 failed, 1 passed in 0.05s ===",
            ),
            (
                "pytest || true",
                "Traceback (most recent call last):\n  File \"a.py\", line 1",
            ),
            (
                "npm test",
                "npm ERR! Test failed.  See above for more details.",
            ),
            ("npx jest", "FAIL src/a.test.ts\n  x parses dates"),
            (
                "npx vitest run",
                " FAIL  src/a.test.ts > parses\nTests  1 failed | 3 passed",
            ),
            (
                "go test ./...",
                "--- FAIL: TestX (0.00s)\nFAIL\nexit status 1",
            ),
            (
                "make test; echo done",
                "make: *** [Makefile:3: test] Error 2",
            ),
            (
                "npx tsc --noEmit",
                "src/a.ts(3,5): error TS2322: Type 'string' is not assignable",
            ),
            ("npm run lint", "\u{2716} 2 problems (2 errors, 0 warnings)"),
            ("./gradlew build", "BUILD FAILED in 3s"),
            (
                "cargo test; echo Exit code $?",
                "test result: ok. 1 passed\nExit code 1",
            ),
        ];
        let failed_installs = [
            (
                "npm install --save-dev x@8 2>&1 || true",
                "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree",
            ),
            (
                "pip install requests==9.9",
                "ERROR: Could not find a version that satisfies the requirement requests==9.9",
            ),
            (
                "poetry add httpx@^9",
                "Because app depends on httpx (^9) which doesn't match any versions, version solving failed.",
            ),
            (
                "cargo add nosuchcrate",
                "error: the crate `nosuchcrate` could not be found",
            ),
            (
                "npm ci 2>&1 | tail -n 3",
                "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE could not resolve",
            ),
        ];
        for (cmd, out) in failing.into_iter().chain(failed_installs) {
            assert!(output_failed(cmd, out), "{cmd}: {out}");
        }
        let passing = [
            (
                "cargo test",
                "test result: ok. 4 passed; 0 failed; 0 ignored",
            ),
            ("pytest", "=== 3 passed in 0.01s ==="),
            ("npx jest", "Tests: 0 failed, 3 passed, 3 total"),
            ("go test ./...", "ok  \tpkg/a\t0.01s\nexit status 0"),
            ("ctest", "100% tests passed, 0 tests failed out of 10"),
            ("make check", "Summary: PASSED: 3, FAILED: 0"),
            // Only checks: what an inspection prints is not its outcome.
            ("grep -rn FAILED logs/", "logs/a.txt:3: test result: FAILED"),
            ("cat build.log", "error: could not compile"),
            // An install that went through, whatever warnings it printed.
            (
                "npm install",
                "npm WARN deprecated x@1\nadded 3 packages in 2s",
            ),
            // pip's resolver warns in an `ERROR:` line, and installs all the same.
            (
                "pip install 'httpx<0.28'",
                "ERROR: pip's dependency resolver does not currently take into account all the packages that are installed. This behaviour is the source of the following dependency conflicts.\nrespx 0.22.0 requires httpx>=0.28, but you have httpx 0.27.2 which is incompatible.\nSuccessfully installed httpx-0.27.2",
            ),
            // A package's install script may print an error and the install still succeed.
            (
                "npm install sharp",
                "Error: could not load the prebuilt binary, building from source\nadded 12 packages in 9s",
            ),
            // A commit's output is not a package manager's.
            (
                "git commit -m 'error: could not'",
                "[main 1a2b3c4] error: could not",
            ),
        ];
        for (cmd, out) in passing {
            assert!(!output_failed(cmd, out), "{cmd}: {out}");
        }
        assert_eq!(output_exit_code("FAIL\nexit status 2"), Some(2));
        assert!(!may_say_failed(
            "running 4 tests\n\ntest result: ok. 4 passed; 0 failed"
        ));
        assert!(may_say_failed("Tests: 10 failed, 3 passed"));
        assert_eq!(output_exit_code("Exit code 0"), None);
    }

    #[test]
    fn first_segments_respect_quotes() {
        assert_eq!(
            first_segment("grep -q 'a|b;c' src/x.rs || echo no"),
            "grep -q 'a|b;c' src/x.rs"
        );
        assert_eq!(
            first_segment("cd /w && echo \"x && y\" | wc"),
            "echo \"x && y\""
        );
        assert_eq!(
            show_command("cargo test --package cmem --lib observe::draft::tests", 30),
            "cargo test --package cmem \u{2026}"
        );
        assert_eq!(
            show_command("grep -q '    300' src/auth.rs", 8),
            "grep \u{2026}"
        );
        assert_eq!(
            show_command("averyveryverylongprogramname --flag", 8),
            "averyveryverylongprogramname \u{2026}",
            "a word too long is given whole, for the caller to drop"
        );
    }
}
