//! A query's Chinese, Japanese and Korean runs: the filler words a question is built of (什么,
//! 怎么, 为什么, 吗 …), dropped as English stop words are, and whether the query asks.

/// Words that carry no meaning in a query, dropped wherever they stand in a run: question
/// words, pronouns, "that time", "remember". Longest first, so `怎么办` goes before `怎么`.
const QUERY_FILLER: &[&str] = &[
    "为什么",
    "怎么办",
    "怎么样",
    "有没有",
    "是不是",
    "能不能",
    "会不会",
    "要不要",
    "还记得",
    "什么",
    "怎么",
    "怎样",
    "如何",
    "为何",
    "哪里",
    "哪个",
    "哪些",
    "请问",
    "帮我",
    "我们",
    "你们",
    "他们",
    "咱们",
    "之前",
    "上次",
    "那次",
    "时候",
    "当时",
    "记得",
    "一下",
    "这个",
    "那个",
    "这些",
    "那些",
    "这里",
    "那里",
    "吗",
    "呢",
    "吧",
    "啊",
    "呀",
    "嘛",
];

/// Characters that end a sentence's thought and are dropped at the end of a piece (`修复了`).
const TRAILING_PARTICLES: &[char] = &['了', '的', '么'];

/// The pieces of a query's CJK run that carry its meaning: the run without its filler words,
/// cut where they stood, trailing particles dropped.
pub(crate) fn meaningful_pieces(run: &str) -> Vec<String> {
    let mut pieces = vec![run.to_string()];
    for filler in QUERY_FILLER {
        pieces = pieces
            .iter()
            .flat_map(|p| p.split(filler).map(str::to_string).collect::<Vec<_>>())
            .filter(|p| !p.is_empty())
            .collect();
    }
    pieces
        .into_iter()
        .map(|p| {
            let trimmed = p.trim_end_matches(TRAILING_PARTICLES);
            if trimmed.is_empty() {
                p
            } else {
                trimmed.to_string()
            }
        })
        .collect()
}

/// Whether a Chinese query is shaped as a question: a full-width question mark, a question
/// particle at its end, or a question word anywhere (Chinese asks in place, not up front).
pub(crate) fn asks_a_question(text: &str) -> bool {
    const ASKING: &[&str] = &[
        "为什么",
        "为何",
        "怎么",
        "怎样",
        "如何",
        "是否",
        "有没有",
        "是不是",
        "能不能",
        "会不会",
        "哪里",
        "哪个",
        "什么",
    ];
    let text = text.trim_end();
    text.ends_with('？')
        || text.ends_with('吗')
        || text.ends_with('呢')
        || ASKING.iter().any(|w| text.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chinese_questions_are_told_by_their_form() {
        assert!(asks_a_question("连接池为什么会耗尽"));
        assert!(asks_a_question("重复提交会扣两次钱吗"));
        assert!(asks_a_question("幂等键过期时间是多久？"));
        assert!(!asks_a_question("连接池耗尽"));
    }

    #[test]
    fn query_filler_goes_and_splits_the_run() {
        assert_eq!(
            meaningful_pieces("连接池为什么会耗尽"),
            vec!["连接池", "会耗尽"]
        );
        assert_eq!(meaningful_pieces("上次怎么修复的"), vec!["修复"]);
        assert_eq!(
            meaningful_pieces("幂等键有没有过期时间吗"),
            vec!["幂等键", "过期时间"]
        );
        // Only filler: nothing meaningful is left.
        assert!(meaningful_pieces("什么吗").is_empty());
        // Words that merely contain a particle character stay whole.
        assert_eq!(meaningful_pieces("会话过期"), vec!["会话过期"]);
    }
}
