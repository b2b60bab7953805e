//! The vectors of one database, kept in memory by a process that searches it again and again
//! (the MCP server, the TUI): reading 100,000 vectors from SQLite costs more than comparing them.
//!
//! Entries are kept per project, each column in one buffer (every vector's values in one buffer
//! of `dims` values each): a search scoped to a project reads only that project's memory, in
//! order, and leaves the loops to SIMD. Past `SHORTLIST_FROM` vectors a search compares the
//! query with every vector's signs first and only the closest share in full.

use anyhow::Result;
use rusqlite::{Connection, params};

use super::steps::mark;
use crate::embed::vector::{dot_values, scaled};
use crate::embed::{Encoder, Vector};

/// From this many vectors on, a search compares the query with every vector's signs first and
/// only the closest share of them in full. Comparing every vector in full reads all of them
/// (384 bytes each: 58 MB at 150,000 records, 5 ms, as fast as memory delivers them); their
/// signs are an eighth of that. Below, the full comparison is cheap enough and exact.
const SHORTLIST_FROM: usize = 50_000;
/// The share of the vectors compared in full after the signs: one in `SHORTLIST_SHARE`, and at
/// least `SHORTLIST_MIN`. Its recall against the full comparison is measured by `cmem dev
/// vector-recall` on real vectors (docs/search-ranking.md): 1 in 25 kept 0.988 of the ten
/// nearest.
const SHORTLIST_SHARE: usize = 25;
const SHORTLIST_MIN: usize = 1_000;

/// How many vectors a search of `n` compares in full after their signs, or `None` for all:
/// `forced` is a share to use at any size, with no minimum but `limit` (`cmem dev
/// vector-recall`).
pub(crate) fn shortlist_size(n: usize, limit: usize, forced: Option<usize>) -> Option<usize> {
    let (share, least) = match forced {
        Some(share) => (share, limit),
        None if n >= SHORTLIST_FROM => (SHORTLIST_SHARE, SHORTLIST_MIN),
        None => return None,
    };
    Some((n / share.max(1)).max(least).max(limit))
}

/// One bit a value, set where it is positive, 64 to a word.
pub(crate) fn sign_bits(values: &[f32]) -> Vec<u64> {
    values
        .chunks(64)
        .map(|chunk| {
            chunk
                .iter()
                .enumerate()
                .fold(0u64, |bits, (i, v)| bits | (u64::from(*v > 0.0) << i))
        })
        .collect()
}

/// The entries of one project.
#[derive(Default)]
struct Part {
    kinds: Vec<u8>,
    ids: Vec<i64>,
    scales: Vec<f32>,
    /// 1 for a record mostly in a CJK script.
    scripts: Vec<u8>,
    /// Each entry's length once its script's mean is taken from it.
    norms: Vec<f32>,
    /// The signs of each entry's values once its script's mean is taken from them
    /// (`sign_bits`), `words` to an entry.
    signs: Vec<u64>,
    values: Vec<i8>,
}

/// A scored entry: kind code, record id, centred cosine, script.
pub(crate) type Scored = (u8, i64, f32, u8);

/// What a search asks of the cache.
pub(crate) struct Ask<'a> {
    /// The query's unit vector and whether it is mostly CJK.
    pub query: &'a [f32],
    pub query_cjk: bool,
    /// Wanted kind codes (0 observation, 1 summary, 2 prompt).
    pub kinds: [bool; 3],
    /// Project keys; empty: all.
    pub projects: &'a [String],
    pub limit: usize,
    /// A forced shortlist share (`shortlist_size`).
    pub shortlist: Option<usize>,
}

pub(crate) struct Cache {
    db: String,
    model: String,
    /// `vector_deletions` when the entries were read: any deletion since means a full reread.
    deletions: i64,
    /// The largest record id read, per kind.
    newest: [i64; 3],
    /// Values per vector: the model's dimensions.
    dims: usize,
    /// Words of signs per vector.
    words: usize,
    /// The mean vector of each script (0: other, 1: CJK), as of `centred_at` entries.
    means: [Vec<f32>; 2],
    centred_at: usize,
    /// By project id.
    parts: Vec<Part>,
    /// Each project read, lower-cased as project keys compare, once.
    project_names: Vec<String>,
    project_ids: std::collections::HashMap<String, u32>,
}

/// Runs `f` on the cache in `slot` (the face's, `store::meaning::Semantic::vectors`), made
/// anew for another database or model and brought up to date first.
pub(crate) fn with<T>(
    conn: &Connection,
    model: &Encoder,
    slot: &std::sync::Mutex<Option<Cache>>,
    f: impl FnOnce(&Cache) -> T,
) -> Result<T> {
    let mut cache = slot.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let key = conn.path().unwrap_or_default().to_string();
    let deletions: i64 = conn.query_row("SELECT n FROM vector_deletions", [], |r| r.get(0))?;
    let fresh = match cache.as_mut() {
        Some(c) if c.db == key && c.deletions == deletions && c.model == model.id() => c,
        _ => cache.insert(Cache::new(key, model, deletions)),
    };
    fresh.read_new(conn, model.id())?;
    fresh.centre();
    mark("vector cache check and read");
    Ok(f(fresh))
}

impl Cache {
    fn new(db: String, model: &Encoder, deletions: i64) -> Cache {
        Cache {
            db,
            model: model.id().to_string(),
            deletions,
            newest: [0; 3],
            dims: model.dims(),
            words: model.dims().div_ceil(64),
            means: [Vec::new(), Vec::new()],
            centred_at: 0,
            parts: Vec::new(),
            project_names: Vec::new(),
            project_ids: std::collections::HashMap::new(),
        }
    }

    fn len(&self) -> usize {
        self.parts.iter().map(|p| p.ids.len()).sum()
    }

    /// `values` cut or padded with zeros to `dims`: a vector of another length compares as
    /// before (a dot product over the shorter length), in a buffer of equal strides.
    fn fit(&self, values: &[i8]) -> Vec<i8> {
        let mut fitted = values[..values.len().min(self.dims)].to_vec();
        fitted.resize(self.dims, 0);
        fitted
    }

    fn project_id(&mut self, project: &str) -> u32 {
        let key = project.to_lowercase();
        if let Some(id) = self.project_ids.get(&key) {
            return *id;
        }
        let id = self.project_names.len() as u32;
        self.project_names.push(key.clone());
        self.project_ids.insert(key, id);
        self.parts.push(Part::default());
        id
    }

    /// Brings the script means and each entry's centred length and signs up to date: anew when
    /// the entries grew by a tenth since (the means of thousands of texts hardly move with a
    /// few more), otherwise only those of the new entries.
    fn centre(&mut self) {
        let d = self.dims.max(1);
        let n = self.len();
        if self.means[0].is_empty() || n > self.centred_at + self.centred_at / 10 {
            self.means = script_means(&self.parts, d);
            self.centred_at = n;
            for part in &mut self.parts {
                part.norms.clear();
                part.signs.clear();
            }
        }
        for part in &mut self.parts {
            let from = part.norms.len();
            let entries = part.values[from * d..]
                .chunks_exact(d)
                .zip(&part.scales[from..])
                .zip(&part.scripts[from..]);
            for ((values, scale), script) in entries {
                let mean = &self.means[usize::from(*script)];
                let centred: Vec<f32> = values
                    .iter()
                    .zip(mean)
                    .map(|(v, m)| f32::from(*v) * scale - m)
                    .collect();
                let sq: f32 = centred.iter().map(|c| c * c).sum();
                part.norms.push(sq.sqrt().max(1e-6));
                let mut signs = sign_bits(&centred);
                signs.resize(self.words, 0);
                part.signs.extend(signs);
            }
        }
    }

    /// Reads the vectors added since the last read.
    fn read_new(&mut self, conn: &Connection, model_id: &str) -> Result<()> {
        let mut stmt = conn.prepare_cached(
            "SELECT record_id, project, vector, script FROM record_vectors
             WHERE kind = ?1 AND record_id > ?2 AND model = ?3 ORDER BY record_id",
        )?;
        for kind in 0..3u8 {
            let mut rows = stmt.query(params![
                i64::from(kind),
                self.newest[kind as usize],
                model_id
            ])?;
            while let Some(row) = rows.next()? {
                let id: i64 = row.get(0)?;
                self.newest[kind as usize] = self.newest[kind as usize].max(id);
                let bytes = row.get_ref(2)?.as_blob().unwrap_or_default();
                let Some((scale, values)) = bytes.split_at_checked(4) else {
                    continue; // no vector (as `Vector::from_bytes` reads one)
                };
                let project = self.project_id(row.get_ref(1)?.as_str()?) as usize;
                let script = u8::from(row.get::<_, i64>(3)? == 1);
                let dims = self.dims;
                let Some(part) = self.parts.get_mut(project) else {
                    continue; // `project_id` made it
                };
                part.kinds.push(kind);
                part.ids.push(id);
                part.scales
                    .push(f32::from_le_bytes(scale.try_into().unwrap_or([0, 0, 0, 0])));
                part.scripts.push(script);
                // Cut or padded to `dims`, as `fit` does.
                let start = part.values.len();
                part.values
                    .extend(values.iter().take(dims).map(|b| *b as i8));
                part.values.resize(start + dims, 0);
            }
        }
        Ok(())
    }

    /// The `ask.limit` wanted entries nearest to the query, unordered, with their centred
    /// cosine (`vectors::nearest`).
    pub(crate) fn nearest(&self, ask: &Ask) -> Vec<Scored> {
        // The query less the mean of its script, as every record is (`centre`).
        let centred: Vec<f32> = ask
            .query
            .iter()
            .zip(
                self.means[usize::from(ask.query_cjk)]
                    .iter()
                    .chain(std::iter::repeat(&0.0)),
            )
            .map(|(q, m)| q - m)
            .collect();
        let query = Vector::quantise(&centred);
        let query_values = self.fit(&query.values);
        let query_norm = centred.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-6);
        // The query's product with each script's mean, subtracted from its product with a
        // record.
        let query_dot_means = [0, 1].map(|s| {
            centred
                .iter()
                .zip(&self.means[s])
                .map(|(q, m)| q * m)
                .sum::<f32>()
        });
        let wanted: Vec<String> = ask.projects.iter().map(|p| p.to_lowercase()).collect();
        let parts: Vec<&Part> = self
            .parts
            .iter()
            .zip(&self.project_names)
            .filter(|(_, name)| wanted.is_empty() || wanted.contains(name))
            .map(|(part, _)| part)
            .collect();
        let d = self.dims.max(1);
        let score = |part: &Part, i: usize| -> Scored {
            let dot = scaled(
                dot_values(&part.values[i * d..(i + 1) * d], &query_values),
                part.scales[i],
                query.scale,
            );
            let script = part.scripts[i];
            let score = (dot - query_dot_means[usize::from(script)]) / (query_norm * part.norms[i]);
            (part.kinds[i], part.ids[i], score, script)
        };
        let n: usize = parts.iter().map(|p| p.ids.len()).sum();
        let mut scored: Vec<Scored> = match shortlist_size(n, ask.limit, ask.shortlist) {
            Some(keep) => {
                let shortlist = self.shortlist(&parts, &sign_bits(&centred), keep, ask.kinds);
                mark("vector signs");
                shortlist
                    .into_iter()
                    .map(|(p, i)| score(parts[p], i))
                    .collect()
            }
            None => parts
                .iter()
                .flat_map(|part| {
                    (0..part.ids.len())
                        .filter(|i| ask.kinds[usize::from(part.kinds[*i])])
                        .map(|i| score(part, i))
                })
                .collect(),
        };
        mark("vector scan");
        let by_score =
            |a: &Scored, b: &Scored| b.2.partial_cmp(&a.2).unwrap_or(std::cmp::Ordering::Equal);
        if scored.len() > ask.limit && ask.limit > 0 {
            scored.select_nth_unstable_by(ask.limit - 1, by_score);
            scored.truncate(ask.limit);
        }
        scored
    }

    /// The `keep` entries of the wanted kinds whose signs differ least from `query`'s, as
    /// (index in `parts`, index in the part). The distances are counted by value (there are
    /// only `dims + 1` of them) to find the one the shortlist ends at: sorting or selecting
    /// among a million pairs would cost more than all the comparing.
    fn shortlist(
        &self,
        parts: &[&Part],
        query: &[u64],
        keep: usize,
        kinds: [bool; 3],
    ) -> Vec<(usize, usize)> {
        let words = self.words.max(1);
        let unwanted = u16::MAX;
        let mut counts = vec![0usize; words * 64 + 1];
        let distances: Vec<Vec<u16>> = parts
            .iter()
            .map(|part| {
                let mut distances = match <[u64; 6]>::try_from(query) {
                    // 384 dimensions, the built-in model's: a loop the compiler unrolls.
                    Ok(query) => distances_to::<6>(&part.signs, &query),
                    Err(_) => part
                        .signs
                        .chunks_exact(words)
                        .map(|signs| {
                            signs
                                .iter()
                                .zip(query)
                                .map(|(a, b)| (a ^ b).count_ones() as u16)
                                .sum::<u16>()
                        })
                        .collect(),
                };
                for (d, kind) in distances.iter_mut().zip(&part.kinds) {
                    if kinds[usize::from(*kind)] {
                        counts[usize::from(*d)] += 1;
                    } else {
                        *d = unwanted;
                    }
                }
                distances
            })
            .collect();
        // The smallest distance at which `keep` entries are reached; those at it are taken in
        // order until the shortlist is full.
        let mut total = 0;
        let mut last = counts.len();
        for (d, n) in counts.iter().enumerate() {
            total += n;
            if total >= keep {
                last = d;
                break;
            }
        }
        let below = total - counts.get(last).copied().unwrap_or(0);
        let mut room_at_last = keep.saturating_sub(below);
        let mut chosen = Vec::with_capacity(keep);
        for (p, distances) in distances.iter().enumerate() {
            for (i, d) in distances.iter().enumerate() {
                let d = usize::from(*d);
                if d < last {
                    chosen.push((p, i));
                } else if d == last && room_at_last > 0 {
                    chosen.push((p, i));
                    room_at_last -= 1;
                }
            }
        }
        chosen
    }
}

/// The number of differing signs between `query` and each entry of `signs` (`W` words each).
/// With the CPU's population count instruction (checked once per process, cached by std) the
/// same code is compiled for it: the baseline x86-64 target counts bits with a dozen
/// instructions a word, twice as slow over a million entries.
fn distances_to<const W: usize>(signs: &[u64], query: &[u64; W]) -> Vec<u16> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has the instruction, checked just above.
        return unsafe { distances_popcnt(signs, query) };
    }
    distances_plain(signs, query)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn distances_popcnt<const W: usize>(signs: &[u64], query: &[u64; W]) -> Vec<u16> {
    distances_plain(signs, query)
}

#[inline(always)]
fn distances_plain<const W: usize>(signs: &[u64], query: &[u64; W]) -> Vec<u16> {
    let (entries, _) = signs.as_chunks::<W>();
    entries
        .iter()
        .map(|entry| {
            let mut d = 0u32;
            for w in 0..W {
                d += (entry[w] ^ query[w]).count_ones();
            }
            d as u16
        })
        .collect()
}

/// How many records of a script its mean needs to be its own: with fewer, it leans on the mean
/// of all records (one English note in a Chinese store must not be centred onto itself).
const SCRIPT_MEAN_WEIGHT: f32 = 20.0;

/// The mean vector of each script, each drawn toward the mean of all by `SCRIPT_MEAN_WEIGHT`.
fn script_means(parts: &[Part], d: usize) -> [Vec<f32>; 2] {
    let mut sums = [vec![0.0f32; d], vec![0.0f32; d]];
    let mut counts = [0usize; 2];
    for part in parts {
        let rows = part
            .values
            .chunks_exact(d)
            .zip(&part.scales)
            .zip(&part.scripts);
        for ((row, scale), script) in rows {
            let s = usize::from(*script);
            counts[s] += 1;
            for (sum, v) in sums[s].iter_mut().zip(row) {
                *sum += f32::from(*v) * scale;
            }
        }
    }
    let all_count = (counts[0] + counts[1]).max(1) as f32;
    let all: Vec<f32> = (0..d)
        .map(|i| (sums[0][i] + sums[1][i]) / all_count)
        .collect();
    [0, 1].map(|s| {
        let n = counts[s] as f32;
        (0..d)
            .map(|i| (sums[s][i] + SCRIPT_MEAN_WEIGHT * all[i]) / (n + SCRIPT_MEAN_WEIGHT))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shortlist_grows_with_the_store_and_signs_are_bits() {
        assert_eq!(shortlist_size(SHORTLIST_FROM - 1, 50, None), None);
        assert_eq!(
            shortlist_size(1_000_000, 50, None),
            Some(1_000_000 / SHORTLIST_SHARE)
        );
        assert_eq!(
            shortlist_size(SHORTLIST_FROM, 50, None),
            Some(SHORTLIST_FROM / SHORTLIST_SHARE)
        );
        assert_eq!(shortlist_size(100, 20, Some(50)), Some(20));
        assert_eq!(sign_bits(&[1.0, -1.0, 0.5]), vec![0b101]);
        assert_eq!(sign_bits(&[1.0; 65]), vec![u64::MAX, 1]);
    }
}
