//! Synthetic memory for tests and benchmarks (`cmem dev generate`; the demo is scripted sessions
//! replayed through the hooks, `src/demo/`): realistic observations, summaries,
//! prompts, tool uses and work state across projects, reproducible from a seed.

use anyhow::Result;
use rusqlite::{Connection, params};
use serde_json::json;

use crate::model::{CONCEPTS, ObsType, ObservationBody, SummaryBody};
use crate::store::observations::{self, NewObservation};
use crate::store::summaries::{self, NewSummary};
use crate::store::work_state;

/// SplitMix64: tiny, fast and good enough for reproducible fixtures.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.next_u64() as usize % items.len()]
    }

    pub fn pick_str<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.next_u64() as usize % items.len()]
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.range(1, 100) <= percent
    }
}

struct ProjectShape {
    name: &'static str,
    files: &'static [(&'static str, &'static [&'static str])],
    commands: &'static [&'static str],
    topics: &'static [&'static str],
}

const PROJECTS: &[ProjectShape] = &[
    ProjectShape {
        name: "acme-api",
        files: &[
            (
                "src/auth/token.rs",
                &["refresh_window", "verify_signature", "TokenClaims"],
            ),
            ("src/db/pool.rs", &["acquire", "release", "PoolConfig"]),
            ("src/http/routes.rs", &["checkout", "list_orders", "router"]),
            (
                "src/billing/invoice.rs",
                &["render_invoice", "InvoiceLine", "apply_tax"],
            ),
            ("migrations/0007_orders.sql", &["orders", "order_items"]),
        ],
        commands: &[
            "cargo test auth::",
            "cargo test db::pool",
            "cargo clippy -- -D warnings",
            "sqlx migrate run",
        ],
        topics: &[
            "token refresh",
            "connection pooling",
            "checkout latency",
            "invoice tax rounding",
        ],
    },
    ProjectShape {
        name: "orbit-web",
        files: &[
            (
                "src/components/Checkout.tsx",
                &["Checkout", "PaymentForm", "useSubmit"],
            ),
            (
                "src/hooks/useCart.ts",
                &["useCart", "mergeLines", "CartState"],
            ),
            ("src/api/client.ts", &["request", "withRetry", "ApiError"]),
            ("src/styles/theme.css", &[".btn-primary", ":root"]),
            ("vite.config.ts", &["defineConfig"]),
        ],
        commands: &[
            "npm test -- useCart",
            "npx tsc --noEmit",
            "npm run lint",
            "npx vitest run api",
        ],
        topics: &["cart merging", "retry policy", "dark theme", "bundle size"],
    },
    ProjectShape {
        name: "cmem",
        files: &[
            ("src/store/mod.rs", &["open_with", "migrate", "Store"]),
            (
                "src/hook/capture.rs",
                &["build", "is_own_memory_tool", "Skip"],
            ),
            ("src/view/budget.rs", &["fit_index", "Step"]),
            ("src/privacy.rs", &["redact", "strip_tags", "clean_json"]),
            ("tests/hook_fail_open.rs", &["invalid_corpus"]),
        ],
        commands: &[
            "cargo test store::",
            "cargo test --test hook_fail_open",
            "cargo clippy --all-targets",
            "scripts/bench.py post-tool-use",
        ],
        topics: &[
            "WAL checkpoints",
            "fail-open hooks",
            "the context budget",
            "secret redaction",
        ],
    },
];

const PROMPTS: &[&str] = &[
    "Fix the failing test in {file}",
    "Why is {topic} slow? Investigate {file}",
    "Add {topic} support to {symbol}",
    "Refactor {symbol} in {file}, it has grown too big",
    "Review {file} for security problems",
    "Decide how we should handle {topic}",
];

fn fill(template: &str, file: &str, symbol: &str, topic: &str) -> String {
    template
        .replace("{file}", file)
        .replace("{symbol}", symbol)
        .replace("{topic}", topic)
}

/// One generated observation with the raw tool use it came from.
fn observation(
    rng: &mut Rng,
    p: &ProjectShape,
    wide: Option<&mut Wide>,
    at: i64,
) -> (
    NewObservation,
    serde_json::Value,
    serde_json::Value,
    &'static str,
) {
    let (file, symbols) = *rng.pick(p.files);
    let symbol = *rng.pick(symbols);
    let topic = *rng.pick(p.topics);
    let command = *rng.pick(p.commands);
    // A wide vocabulary draws names from its own generator, so the narrow data set (golden files,
    // property tests) stays exactly what it was.
    let (file, symbol, topic) = match wide {
        Some(w) => w.names(),
        None => (file.to_string(), symbol.to_string(), topic.to_string()),
    };
    let (file, symbol, topic) = (file.as_str(), symbol.as_str(), topic.as_str());
    let t = *rng.pick(&[
        ObsType::Discovery,
        ObsType::Discovery,
        ObsType::Change,
        ObsType::Change,
        ObsType::Bugfix,
        ObsType::Feature,
        ObsType::Refactor,
        ObsType::Decision,
        ObsType::SecurityNote,
        ObsType::SecurityAlert,
        ObsType::Sensitive,
    ]);
    let lines = rng.range(2, 60);
    let (title, narrative, tool, input, response) = match t {
        ObsType::Bugfix => (
            format!("Fixed failing `{command}` after editing {file} ({symbol})"),
            format!(
                "`{command}` failed because {symbol} mishandled {topic}. The fix changes {lines} lines in {file}; the test passes now."
            ),
            "Bash",
            json!({"command": command}),
            json!({"stdout": format!("test {symbol} ... ok\n\ntest result: ok. 12 passed; 0 failed"), "stderr": ""}),
        ),
        ObsType::Feature => (
            format!("Added {topic} to {symbol} in {file}"),
            format!(
                "{symbol} now supports {topic}. {lines} new lines in {file}, covered by a new test."
            ),
            "Edit",
            json!({"file_path": file, "old_string": format!("fn {symbol}() {{\n    todo!()\n}}"), "new_string": format!("fn {symbol}() {{\n    // {topic}\n    run()\n}}")}),
            json!({"filePath": file, "structuredPatch": [{"oldStart": 10, "oldLines": 3, "newStart": 10, "newLines": 4}]}),
        ),
        ObsType::Refactor => (
            format!("Split {symbol} out of {file} to simplify {topic}"),
            format!(
                "{symbol} had grown to handle {topic} inline; it now lives in its own function with the same behaviour."
            ),
            "Edit",
            json!({"file_path": file, "old_string": format!("// {symbol} inline"), "new_string": format!("{symbol}(ctx)")}),
            json!({"filePath": file}),
        ),
        ObsType::Change => (
            format!("Changed {symbol} in {file} ({lines} lines)"),
            format!("Adjusted {symbol} for {topic}; callers are unchanged."),
            "Edit",
            json!({"file_path": file, "old_string": "let limit = 30;", "new_string": "let limit = 300;"}),
            json!({"filePath": file}),
        ),
        ObsType::Decision => (
            format!("Chose to keep {topic} in {symbol} rather than a new module"),
            format!(
                "Keeping {topic} next to {symbol} avoids a second code path; revisit if {file} passes 800 lines."
            ),
            "Read",
            json!({"file_path": file}),
            json!({"type": "text", "file": {"filePath": file, "content": format!("pub fn {symbol}() {{}}\n"), "numLines": lines}}),
        ),
        ObsType::SecurityAlert => (
            format!("{symbol} in {file} trusts unvalidated input"),
            format!(
                "{symbol} passes request data straight into {topic} handling without a length check."
            ),
            "Grep",
            json!({"pattern": symbol, "path": file}),
            json!({"numFiles": 1, "filenames": [file]}),
        ),
        ObsType::SecurityNote => (
            format!("{file} checks signatures before {topic}"),
            format!("{symbol} rejects unsigned payloads before any {topic} work happens."),
            "Read",
            json!({"file_path": file}),
            json!({"type": "text", "file": {"filePath": file, "content": format!("fn {symbol}(sig: &str) -> bool {{ !sig.is_empty() }}\n"), "numLines": lines}}),
        ),
        ObsType::Sensitive => (
            format!("{symbol} calls the internal staging endpoint for {topic}"),
            format!(
                "The staging host used by {symbol} is internal; do not paste it into public issues."
            ),
            "Read",
            json!({"file_path": file}),
            json!({"type": "text", "file": {"filePath": file, "content": "const STAGING = \"internal\";\n", "numLines": 1}}),
        ),
        ObsType::Discovery => (
            format!("Read {file}: {symbol} handles {topic}"),
            format!(
                "{symbol} in {file} is where {topic} happens; it is called from the request path."
            ),
            "Read",
            json!({"file_path": file}),
            json!({"type": "text", "file": {"filePath": file, "content": format!("// {topic}\npub fn {symbol}() {{}}\n"), "numLines": lines}}),
        ),
    };
    let modified = t.changes_code();
    let concept_count = rng.range(1, 3) as usize;
    let mut concepts: Vec<String> = Vec::new();
    while concepts.len() < concept_count {
        let c = rng.pick(&CONCEPTS).to_string();
        if !concepts.contains(&c) {
            concepts.push(c);
        }
    }
    let obs = NewObservation {
        session_id: None,
        project: p.name.to_string(),
        body: ObservationBody {
            obs_type: t.id().to_string(),
            title: Some(title),
            subtitle: Some(format!(
                "{} {symbol} in {file}.",
                if modified { "Changed" } else { "Looked at" }
            )),
            narrative: Some(narrative),
            facts: vec![
                format!("{symbol} is defined in {file}"),
                format!("{topic} is handled by {symbol}"),
                format!("`{command}` exercises {file}"),
            ],
            concepts,
            files_read: if modified {
                vec![]
            } else {
                vec![file.to_string()]
            },
            files_modified: if modified {
                vec![file.to_string()]
            } else {
                vec![]
            },
        },
        prompt_number: None,
        discovery_tokens: rng.range(400, 18_000) as i64,
        created_at: at,
        source: "synthetic".into(),
    };
    (obs, input, response, tool)
}

/// A large project's vocabulary: hundreds of files, symbols and topics, so that a two-word
/// query matches a realistic handful of records instead of a quarter of them.
pub(crate) struct Wide {
    rng: Rng,
}

const DIRS: &[&str] = &[
    "src/api",
    "src/auth",
    "src/billing",
    "src/cart",
    "src/checkout",
    "src/db",
    "src/email",
    "src/export",
    "src/flags",
    "src/http",
    "src/images",
    "src/inventory",
    "src/jobs",
    "src/mail",
    "src/orders",
    "src/payments",
    "src/reports",
    "src/search",
    "src/session",
    "src/users",
    "web/components",
    "web/hooks",
    "web/pages",
    "lib/util",
];
const NOUNS: &[&str] = &[
    "pool",
    "token",
    "window",
    "invoice",
    "tax",
    "cart",
    "order",
    "router",
    "signature",
    "endpoint",
    "queue",
    "cache",
    "session",
    "cookie",
    "upload",
    "image",
    "report",
    "export",
    "coupon",
    "price",
    "stock",
    "user",
    "account",
    "webhook",
    "payment",
    "refund",
    "schema",
    "migration",
    "index",
    "query",
    "batch",
    "retry",
    "timeout",
    "limit",
    "config",
    "flag",
    "theme",
    "layout",
    "button",
    "form",
    "modal",
    "table",
    "chart",
    "filter",
    "sort",
    "page",
    "cursor",
    "stream",
    "socket",
    "channel",
];
const VERBS: &[&str] = &[
    "load", "save", "parse", "render", "validate", "apply", "compute", "fetch", "send", "build",
    "merge", "split", "verify", "refresh", "release", "acquire", "encode", "decode", "format",
    "resolve",
];
const QUALITIES: &[&str] = &[
    "checkout",
    "latency",
    "rounding",
    "staging",
    "failing",
    "flaky",
    "slow",
    "stale",
    "missing",
    "duplicate",
    "concurrent",
    "partial",
    "expired",
    "invalid",
    "large",
    "nested",
    "legacy",
    "async",
    "cold",
    "broken",
    "refactor",
    "verification",
    "test",
    "leak",
    "race",
];

impl Wide {
    pub(crate) fn new(seed: u64) -> Wide {
        Wide {
            rng: Rng::new(seed ^ 0x005E_ED0F_C0DE),
        }
    }

    /// A file, a symbol in it, and a topic.
    fn names(&mut self) -> (String, String, String) {
        let r = &mut self.rng;
        let ext = *r.pick(&[".rs", ".ts", ".tsx", ".py", ".go"]);
        let file = format!(
            "{}/{}_{}{ext}",
            r.pick_str(DIRS),
            r.pick_str(NOUNS),
            r.pick_str(NOUNS)
        );
        let symbol = format!("{}_{}", r.pick_str(VERBS), r.pick_str(NOUNS));
        let topic = format!("{} {}", r.pick_str(QUALITIES), r.pick_str(NOUNS));
        (file, symbol, topic)
    }
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub observations: usize,
    pub seed: u64,
    pub end_ms: i64,
    /// Spread of the data, ending at `end_ms`.
    pub days: i64,
    /// Restrict to these built-in project shapes (empty: all three).
    pub projects: Vec<String>,
    /// Draw names from a large vocabulary (benchmarks); the default keeps the small one.
    pub wide: bool,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Generated {
    pub sessions: usize,
    pub prompts: usize,
    pub observations: usize,
    pub summaries: usize,
    pub tool_uses: usize,
    pub work_state_entries: usize,
}

/// Writes a synthetic memory into `conn` (one transaction).
pub fn generate(conn: &mut Connection, plan: &Plan) -> Result<Generated> {
    let mut rng = Rng::new(plan.seed);
    let mut wide = plan.wide.then(|| Wide::new(plan.seed));
    let shapes: Vec<&ProjectShape> = PROJECTS
        .iter()
        .filter(|p| plan.projects.is_empty() || plan.projects.iter().any(|n| n == p.name))
        .collect();
    anyhow::ensure!(
        !shapes.is_empty(),
        "no known project among {:?} (known: acme-api, orbit-web, cmem)",
        plan.projects
    );
    let tx = conn.transaction()?;
    let mut g = Generated::default();
    let span = plan.days.max(1) * 86_400_000;
    let start = plan.end_ms - span;
    let per_session = 8usize;
    let sessions = plan.observations.div_ceil(per_session).max(1);
    let step = span / sessions as i64;
    let mut made = 0usize;
    for s in 0..sessions {
        let p = shapes[s % shapes.len()];
        let session_start = start + step * s as i64 + rng.range(0, (step / 4).max(1) as u64) as i64;
        let csid = format!("synthetic-{}-{s}", plan.seed);
        tx.execute(
            "INSERT INTO sessions (content_session_id, project, cwd, started_at_epoch, completed_at_epoch, status, prompt_counter)
             VALUES (?1, ?2, ?3, ?4, ?5, 'completed', 0)",
            params![csid, p.name, format!("/home/dev/{}", p.name), session_start, session_start + step / 2],
        )?;
        let session_id = tx.last_insert_rowid();
        g.sessions += 1;
        let in_session = per_session.min(plan.observations - made);
        let turns = (in_session.div_ceil(4)).max(1);
        let mut at = session_start;
        for turn in 0..turns {
            let (file, symbols) = *rng.pick(p.files);
            let template = rng.pick_str(PROMPTS);
            let (symbol, topic) = (rng.pick_str(symbols), rng.pick_str(p.topics));
            let (file, symbol, topic) = match wide.as_mut() {
                Some(w) => w.names(),
                None => (file.to_string(), symbol.to_string(), topic.to_string()),
            };
            let prompt = fill(template, &file, &symbol, &topic);
            tx.execute(
                "INSERT INTO user_prompts (session_id, content_session_id, prompt_number, prompt_text, created_at_epoch, ended_at_epoch, observed_at_epoch)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5 + 600000, ?5 + 600000)",
                params![session_id, csid, turn as i64 + 1, prompt, at],
            )?;
            g.prompts += 1;
            let obs_in_turn = (in_session - turn * 4).min(4);
            let mut files_read = Vec::new();
            let mut files_edited = Vec::new();
            let mut work = 0;
            for _ in 0..obs_in_turn {
                at += rng.range(20_000, 400_000) as i64;
                let (mut o, input, response, tool) = observation(&mut rng, p, wide.as_mut(), at);
                o.session_id = Some(session_id);
                o.prompt_number = Some(turn as i64 + 1);
                work += o.discovery_tokens;
                files_read.extend(o.body.files_read.clone());
                files_edited.extend(o.body.files_modified.clone());
                if let Some(id) = observations::insert(&tx, &o)? {
                    made += 1;
                    g.observations += 1;
                    let tool_use_id = format!("toolu_syn_{}_{id}", plan.seed);
                    tx.execute(
                        "INSERT INTO tool_uses (tool_use_id, content_session_id, session_id, project, tool_name, tool_input,
                             tool_response, input_bytes, response_bytes, cwd, prompt_number, observation_id, content_hash, created_at_epoch)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
                        params![
                            tool_use_id, csid, session_id, p.name, tool, input.to_string(), response.to_string(),
                            input.to_string().len() as i64, response.to_string().len() as i64,
                            format!("/home/dev/{}", p.name), turn as i64 + 1, id, format!("{:016x}", rng.next_u64()), at - 1000
                        ],
                    )?;
                    g.tool_uses += 1;
                }
            }
            files_read.dedup();
            files_edited.dedup();
            at += rng.range(30_000, 300_000) as i64;
            summaries::insert(
                &tx,
                &NewSummary {
                    session_id: Some(session_id),
                    project: p.name.into(),
                    body: SummaryBody {
                        request: Some(prompt.clone()),
                        investigated: (!files_read.is_empty())
                            .then(|| format!("Read {}", files_read.join(", "))),
                        learned: Some({
                            let narrow_topic = rng.pick_str(p.topics);
                            format!(
                                "{file} is where {} is decided",
                                if wide.is_some() {
                                    topic.as_str()
                                } else {
                                    narrow_topic
                                }
                            )
                        }),
                        completed: (!files_edited.is_empty())
                            .then(|| format!("Edited {}; tests pass", files_edited.join(", "))),
                        next_steps: rng.chance(60).then(|| {
                            format!(
                                "Run `{}` on CI and watch {}",
                                rng.pick(p.commands),
                                rng.pick(p.topics)
                            )
                        }),
                        notes: None,
                        files_read,
                        files_edited,
                    },
                    prompt_number: Some(turn as i64 + 1),
                    discovery_tokens: work,
                    created_at: at,
                    source: "synthetic".into(),
                },
            )?;
            g.summaries += 1;
        }
        tx.execute(
            "UPDATE sessions SET prompt_counter = ?2, user_prompt = (SELECT prompt_text FROM user_prompts WHERE session_id = ?1 AND prompt_number = 1) WHERE id = ?1",
            params![session_id, turns as i64],
        )?;
        if made >= plan.observations {
            break;
        }
    }
    // Work state: one list per project with tasks in every status, plus a closed list.
    for p in &shapes {
        let base = plan.end_ms - 3 * 3_600_000;
        let list = format!("{}-next", p.topics[0].replace(' ', "-"));
        let statuses = ["doing", "todo", "todo", "done", "dropped"];
        for (i, status) in statuses.iter().enumerate() {
            let (file, symbols) = p.files[i % p.files.len()];
            let fields = json!({"task": format!("{} in {file}", symbols[0]), "status": status});
            work_state::append(
                &tx,
                p.name,
                &list,
                &object(fields),
                base + i as i64 * 600_000,
                "synthetic",
            )?;
            g.work_state_entries += 1;
        }
        let state =
            json!({"branch": format!("feat/{}", p.topics[1].replace(' ', "-")), "phase": "review"});
        work_state::append(
            &tx,
            p.name,
            &list,
            &object(state),
            base + 3_600_000,
            "synthetic",
        )?;
        let done = json!({"status": "done"});
        work_state::append(&tx, p.name, "release-1.0", &object(done), base, "synthetic")?;
        g.work_state_entries += 2;
    }
    tx.commit()?;
    Ok(g)
}

/// A `json!({...})` literal as the map it is.
fn object(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    match value {
        serde_json::Value::Object(map) => map,
        _ => serde_json::Map::new(),
    }
}
