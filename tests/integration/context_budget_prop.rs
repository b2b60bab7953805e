//! Property: whatever the memory holds, the session-start context fits the host's limit in
//! UTF-16 units, keeps whole items only, and always has its header, an observation row when
//! there are observations, and the footer when the economics say there is something to gain.

use cmem::model::work_state::{Entry, fold};
use cmem::model::{Observation, ObservationBody, Summary, SummaryBody, utf16_len};
use cmem::synth::Rng;
use cmem::text::{clip, one_line};
use cmem::view::context::session_start;
use cmem::view::doc::BlockKind;
use cmem::view::index::{IndexInput, IndexOptions, MAX_TITLE};
use cmem::view::time::Tz;
use proptest::prelude::*;

/// Text that stresses UTF-16 counting: CJK, astral emoji, combining marks, RTL, controls.
const MIXED: &[&str] = &[
    "fix ",
    "the ",
    "pool ",
    "接口",
    "測試",
    "🦀",
    "😀",
    "e\u{301}",
    "ا",
    "\u{200d}",
    "𝕏",
    "\n",
    "\t",
    "\"",
    "\\",
    "<private>",
    "{",
    "ß",
    "ǅ",
    "🇩🇪",
];

/// Text nearly all beyond the Basic Multilingual Plane: two UTF-16 units a character.
const ASTRAL: &[&str] = &["𠮷", "😀", "🦀", "𝕏", "🇩🇪", "👩\u{200d}💻", "𠮷野家", " "];

/// The random source and the pieces text is made of.
struct Gen {
    rng: Rng,
    pieces: &'static [&'static str],
}

impl std::ops::Deref for Gen {
    type Target = Rng;
    fn deref(&self) -> &Rng {
        &self.rng
    }
}

impl std::ops::DerefMut for Gen {
    fn deref_mut(&mut self) -> &mut Rng {
        &mut self.rng
    }
}

/// At least `len` bytes of text made of the generator's pieces.
fn text(rng: &mut Gen, len: usize) -> String {
    let pieces = rng.pieces;
    // Random pieces up to 512 bytes, then that chunk repeated: long texts stay cheap to build.
    let mut chunk = String::new();
    while chunk.len() < len.min(512) {
        chunk.push_str(rng.pick_str(pieces));
    }
    if chunk.len() >= len {
        return chunk;
    }
    chunk.repeat(len / chunk.len().max(1) + 1)
}

fn sized(rng: &mut Gen) -> usize {
    match rng.range(0, 99) {
        0..=79 => rng.range(0, 80) as usize,
        80..=94 => rng.range(80, 2_000) as usize,
        95..=98 => 5_000,
        _ => 100_000,
    }
}

fn observations(rng: &mut Gen, n: usize, now: i64) -> Vec<Observation> {
    let mut t = now;
    (0..n)
        .map(|i| {
            t -= rng.range(0, 3 * 3_600_000) as i64;
            let facts: Vec<String> = (0..rng.range(0, 3)).map(|_| text(rng, 40)).collect();
            Observation {
                id: (n - i) as i64,
                project: "p".into(),
                facts_json: serde_json::to_string(&facts).unwrap(),
                body: ObservationBody {
                    obs_type: rng
                        .pick(&["bugfix", "feature", "discovery", "change", "weird-type"])
                        .to_string(),
                    title: rng.chance(95).then(|| {
                        let n = sized(rng).min(5_000);
                        text(rng, n)
                    }),
                    subtitle: rng.chance(50).then(|| text(rng, 60)),
                    narrative: rng.chance(80).then(|| {
                        let n = sized(rng);
                        text(rng, n)
                    }),
                    facts,
                    concepts: vec![],
                    files_read: vec![],
                    files_modified: vec![],
                },
                prompt_number: None,
                discovery_tokens: rng.range(0, 20_000) as i64,
                created_at: t,
                session_id: None,
                source: "prop".into(),
                host: None,
            }
        })
        .collect()
}

fn summaries(rng: &mut Gen, n: usize, now: i64) -> Vec<Summary> {
    let mut t = now;
    (0..n)
        .map(|i| {
            t -= rng.range(0, 6 * 3_600_000) as i64;
            let field = |rng: &mut Gen| {
                rng.chance(70).then(|| {
                    let n = sized(rng);
                    text(rng, n)
                })
            };
            Summary {
                id: (n - i) as i64,
                project: "p".into(),
                body: SummaryBody {
                    request: field(rng),
                    investigated: field(rng),
                    learned: field(rng),
                    completed: field(rng),
                    next_steps: field(rng),
                    notes: None,
                    files_read: vec![],
                    files_edited: vec![],
                },
                prompt_number: None,
                discovery_tokens: 0,
                created_at: t,
                session_id: None,
            }
        })
        .collect()
}

fn work_entries(rng: &mut Gen, n: usize, now: i64) -> Vec<Entry> {
    (0..n)
        .map(|i| {
            let mut fields = serde_json::Map::new();
            if rng.chance(80) {
                let n = sized(rng).min(300);
                fields.insert("task".into(), text(rng, n).into());
                fields.insert(
                    "status".into(),
                    rng.pick(&["todo", "doing", "done", "dropped"])
                        .to_string()
                        .into(),
                );
            } else {
                fields.insert("note".into(), text(rng, 50).into());
            }
            Entry {
                id: i as i64,
                project: "p".into(),
                list_name: format!("list-{}", rng.range(0, 3)),
                fields,
                created_at: now - rng.range(0, 86_400_000) as i64,
                seq: None,
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, .. ProptestConfig::default() })]

    #[test]
    fn context_always_fits_and_keeps_whole_items(
        seed in any::<u64>(),
        n_obs in prop_oneof![4 => 0usize..60, 1 => 0usize..5_000],
        n_sums in 0usize..25,
        n_work in prop_oneof![3 => 0usize..10, 1 => 0usize..400],
        limit in 6_000usize..=10_000,
        obs_limit in 1usize..200,
        sessions in 0usize..20,
        full_count in 0usize..12,
        flags in any::<[bool; 6]>(),
        project_len in 1usize..300,
        astral in proptest::bool::weighted(0.25),
    ) {
        let now = 1_791_791_100_000;
        let mut rng = Gen { rng: Rng::new(seed), pieces: if astral { ASTRAL } else { MIXED } };
        let obs = observations(&mut rng, n_obs, now);
        let sums = summaries(&mut rng, n_sums, now);
        let lists = fold(&work_entries(&mut rng, n_work, now));
        let project = text(&mut rng, project_len);
        let tz = Tz::utc();
        let mode = cmem::model::mode::code();
        let input = IndexInput { project: &project, now_ms: now, tz: &tz, observations: &obs, summaries: &sums, mode: &mode, filter: None, marks: &cmem::view::since::Marks::none() };
        let options = IndexOptions {
            observations: obs_limit,
            sessions,
            full_count,
            full_field: if flags[0] { "facts" } else { "narrative" }.into(),
            show_read_tokens: flags[1],
            show_work_tokens: flags[2],
            show_savings_amount: flags[3],
            show_savings_percent: flags[4],
            show_last_summary: flags[5],
            show_last_message: flags[5],
            ..IndexOptions::default()
        };
        let ctx = session_start(&lists, &input, &options, Some(limit));
        let text = &ctx.text;

        // Counted by the standard library, as the host counts: a character beyond the BMP is
        // two units.
        let units = text.encode_utf16().count();
        prop_assert!(units <= limit, "{units} > {limit}");
        prop_assert_eq!(utf16_len(text), units);
        prop_assert!(!ctx.over_budget);
        prop_assert!(text.starts_with("# Work state: your to-do lists and working state\n"));
        prop_assert!(text.contains("\n\n# ["), "index header missing");
        prop_assert!(text.contains("] recent context, "));

        // Every observation row that is there is whole: id, time, symbol and the full title.
        let shown: Vec<i64> = ctx.index.blocks.iter().filter_map(|b| match b.kind {
            BlockKind::Observation(id) | BlockKind::FullObservation(id) => Some(id),
            _ => None,
        }).collect();
        if !obs.is_empty() {
            prop_assert!(!shown.is_empty(), "no observation row although {} exist", obs.len());
        }
        for id in &shown {
            let o = obs.iter().find(|o| o.id == *id).unwrap();
            let title = o.title.as_deref().map(one_line).unwrap_or_default();
            let title = if title.is_empty() { "Untitled".to_string() } else { clip(&title, MAX_TITLE) };
            prop_assert!(text.contains(&title), "row of {id} lost its title");
        }
        // Whole blocks only: the text is exactly the concatenation of the documents.
        let rebuilt = format!("{}\n\n{}", ctx.work_state.to_plain(), ctx.index.to_plain());
        prop_assert_eq!(&rebuilt, text);
        // The newest observations are the ones kept.
        let mut kept = shown.clone();
        kept.sort_unstable_by(|a, b| b.cmp(a));
        let newest: Vec<i64> = obs.iter().take(kept.len()).map(|o| o.id).collect();
        prop_assert_eq!(kept, newest);

        // The footer when economics apply to what is shown.
        let shown_obs: Vec<&Observation> = obs.iter().filter(|o| shown.contains(&o.id)).collect();
        let work: i64 = shown_obs.iter().map(|o| o.discovery_tokens).sum();
        let read: i64 = shown_obs.iter().map(|o| cmem::view::index::read_tokens(o)).sum();
        let economics = flags[1] || flags[2] || flags[3] || flags[4];
        let has_footer = text.contains("tokens of past work via get_observations([IDs]) or mem_search.");
        prop_assert_eq!(has_footer, economics && work > 0 && work - read > 0);
    }
}

/// Hundreds of observations written entirely beyond the BMP: the host counts each character
/// as two units, and so must the budget, or the context would overflow the limit by nearly half.
#[test]
fn a_context_written_beyond_the_bmp_fits_in_utf16_units() {
    let now = 1_791_791_100_000;
    let mut rng = Gen {
        rng: Rng::new(7),
        pieces: &["𠮷", "😀", "𝕏", "🦀"],
    };
    let obs = observations(&mut rng, 400, now);
    let sums = summaries(&mut rng, 10, now);
    let tz = Tz::utc();
    let mode = cmem::model::mode::code();
    let input = IndexInput {
        project: "p",
        now_ms: now,
        tz: &tz,
        observations: &obs,
        summaries: &sums,
        mode: &mode,
        filter: None,
        marks: &cmem::view::since::Marks::none(),
    };
    let options = IndexOptions {
        observations: 400,
        ..IndexOptions::default()
    };
    let limit = cmem::view::budget::HOST_LIMIT;
    let ctx = session_start(&[], &input, &options, Some(limit));
    let units = ctx.text.encode_utf16().count();
    let astral = ctx.text.chars().filter(|c| c.len_utf16() == 2).count();
    assert!(units <= limit, "{units} > {limit}");
    assert!(!ctx.over_budget);
    // The text is mostly astral characters, and the budget had to cut to fit them.
    assert!(astral * 2 > limit / 2, "only {astral} astral characters");
    assert!(!ctx.steps.is_empty());
    // Not stand-ins: the titles of the rows shown, whole.
    for b in &ctx.index.blocks {
        if let BlockKind::Observation(id) = b.kind {
            let o = obs.iter().find(|o| o.id == id).unwrap();
            let title = one_line(o.title.as_deref().unwrap_or_default());
            if !title.is_empty() {
                assert!(
                    ctx.text.contains(&clip(&title, MAX_TITLE)),
                    "{id} lost its title"
                );
            }
        }
    }
    assert!(!ctx.text.contains('•'));
}
