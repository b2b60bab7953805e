//! Every weight of the search policy, with the reason for its value. Change one only as
//! "Making a ranking change" in CONTRIBUTING.md says: on the tuning and development sets, then
//! once on the held-out sets (the sweeps are in docs/search-ranking.md).
//!
//! The weights of the words' own ranking sit with its SQL in the store, where the FTS5 queries
//! use them: the column weights (`store::search::table`), `COVER_BOOST`, `RANK_WINDOW` and
//! `COUNTED_MATCHES` (`store::search`), BM25's k1 and b (`store::rank`), and the script means'
//! `SCRIPT_MEAN_WEIGHT` (`store::vector_cache`).

pub(crate) struct Weights {
    /// How many of the best hits bring their session's summary along: the best one, whose
    /// session is the piece of work the query is most likely about.
    pub summary_pull: usize,
    /// Where a pulled summary ranks: just below the best record of its session.
    pub summary_share: f64,
    /// How much more a record that answers (a bugfix's cause, a decision, a discovery) counts
    /// for a question-shaped query: a question asks for a reason, a choice or a finding, while a
    /// summary or a change tells what was done in words a question often shares. The middle of
    /// the range where the tuning set's questions did best.
    pub answer_weight: f64,
    /// Ranks are fused from this many lexical and this many semantic candidates.
    pub fusion_pool: usize,
    /// Reciprocal rank fusion's constant: how fast a candidate's weight falls with its rank.
    /// Small: the first few ranks of each list matter most (tuned on the tuning set only).
    pub fusion_k: f64,
    /// The weight of the lexical and of the semantic ranking in the fusion. The multilingual
    /// encoder ranks the right record first often enough to lead where the words find only
    /// decoys, but a query's exact words still say more than its nearest meaning: its first
    /// record counts a little less than the lexical first.
    pub lexical_weight: f64,
    pub semantic_weight: f64,
    /// The semantic weight of a record in another script than the query's: the words cannot
    /// find it at all (a Chinese question shares no word with the English record that answers
    /// it), so its meaning speaks for it alone.
    pub other_script_weight: f64,
    /// How much of the semantic shares of the best other records of a record's session a
    /// record gets (`with_session_meaning`), and how many of them count. Summing every other
    /// record's share (tuning sets only; Chinese tuning / English tuning / development):
    /// 0 → 0.909 / 0.871 / 0.926; 0.15 → 0.924 / 0.871 / 0.926; 0.3 → 0.939 / 0.868 / 0.926;
    /// 0.4-0.6 → 0.924 / 0.868 / 0.923-0.926 (a Chinese question's English record and its
    /// summary, both near it in meaning, now outrank a Chinese record holding some of its
    /// words). The best two only: 0.2 → 0.939 / 0.871, 0.3 → 0.939 / 0.876, 0.35 → 0.939 /
    /// 0.868, 0.4 → 0.924 / 0.868, development 0.926 throughout (the sum lost a query whose
    /// answer stood first by words and meaning to a long session about the same dashboard);
    /// the best one only, 0.5-1.0: at most 0.932 / 0.876 / 0.921.
    pub session_meaning: f64,
    /// How many of a session's other records lend a record their meaning (see
    /// `session_meaning`): the best two.
    pub session_witnesses: usize,
    /// Records whose centred cosine (`store::vectors::nearest`) is below this are no semantic
    /// candidates: every text has some nearest neighbour, and a query of unknown words must
    /// still find nothing. 0 is a record of average likeness to the query. It does not keep
    /// every unrelated query out ("banana smoothie recipe" reaches 0.21 in the tuning store).
    pub min_similarity: f64,
    /// The same for a record in another script than the query's, whose share of the fusion
    /// grows from nothing here to all of it at `min_similarity` (`other_script_trust`). Of the
    /// Chinese-query development set's 19 misses at a floor of 0.2 for every record, 10 found
    /// nothing at all: the right English record was among the nearest, below the floor. A hard
    /// floor of 0.15 found two of them but let English decoys past a Chinese paraphrase's
    /// answer (Chinese tuning 0.939 → 0.902). The ramp's start, swept on the tuning sets
    /// (Chinese tuning / Chinese-query development recall@3; English sets hold no other
    /// script): 0.1 → 0.924 / 0.710, 0.12 → 0.924 / 0.694, 0.14-0.16 → 0.939 / 0.726, none
    /// (0.2) → 0.939 / 0.694.
    pub other_script_floor: f64,
    /// The same for a query none of whose words any record holds (`Plan::knows_a_word`), for
    /// records in its own script: on the demo, unrelated queries reach 0.21-0.23 there and a
    /// misspelt identifier (`refresh_windw`) 0.26-0.33 on the records that name it.
    pub min_similarity_alone: f64,
    /// Auto mode's details (`work`): how many of the ranking's first records, when of the best
    /// hit's session, come before its summary. The runner-up is there by its words and its
    /// session, the summary by its session alone (none was worse; 2 to 5 did the same).
    pub ranked_first: usize,
    /// At most this many terms name a thing rather than describe the work, and ask for the
    /// observation that holds it (keyword queries are 1-3 words; the value is not sensitive).
    pub few_words: usize,
}

pub(crate) const WEIGHTS: Weights = Weights {
    summary_pull: 1,
    summary_share: 0.9,
    answer_weight: 1.15,
    fusion_pool: 50,
    fusion_k: 5.0,
    lexical_weight: 1.0,
    semantic_weight: 0.8,
    other_script_weight: 1.5,
    session_meaning: 0.3,
    session_witnesses: 2,
    min_similarity: 0.2,
    min_similarity_alone: 0.25,
    other_script_floor: 0.15,
    ranked_first: 2,
    few_words: 3,
};
