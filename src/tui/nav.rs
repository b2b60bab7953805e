//! Where an id typed after `:` jumps to. (Where a row leads is its layer's `open`.)

use super::layers::Component;
use super::layers::detail::Detail;
use super::layers::raw::Raw;
use crate::model::Kind;

/// `:` then an id: `123` (observation), `S12`, `P7`, `T5` (tool use); else what to type.
pub(crate) fn jump(text: &str) -> Result<Component, String> {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix('T').or_else(|| t.strip_prefix('t'))
        && let Ok(id) = rest.trim_start_matches('#').parse::<i64>()
    {
        return Ok(Raw { id }.into());
    }
    match Kind::parse_id(t) {
        Some((kind, id)) => Ok(Detail::new(kind, id).into()),
        None => Err(format!(
            "{t:?} is not an id: use 123 (observation), S12 (summary), P7 (prompt) or T5 (tool use)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::layers::page::Target;
    use crate::tui::layers::{Behaviour, LayerKind, index::Index, open};

    #[test]
    fn ids_lead_to_their_layers() {
        assert_eq!(jump(" T5 ").unwrap().kind(), LayerKind::Raw);
        assert_eq!(jump("t#5").unwrap().behaviour().title(), "Raw T5");
        assert_eq!(
            jump("S12").unwrap(),
            Component::Detail(Detail::new(Kind::Summary, 12))
        );
        assert!(jump("hello").unwrap_err().contains("is not an id"));
        let rec = Target::Record(Kind::Observation, 7);
        let index = Index::new("acme".into(), Default::default());
        assert_eq!(index.open(&rec).kind(), LayerKind::Timeline);
        assert_eq!(open(&rec).kind(), LayerKind::Detail);
    }
}
