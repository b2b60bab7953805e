//! Where things lead: the layer a row opens, and the layer an id typed after `:` jumps to.

use super::data::{Request, Target};
use super::layer::LayerKind;
use crate::model::Kind;
use crate::view::raw::tool_use_id;

/// A layer to push: its kind, its title, and the request that fills it.
pub(crate) type Destination = (LayerKind, String, Request);

/// Opening `target` on a `from` layer: a record opens its timeline from the index and its
/// detail elsewhere, a tool use its raw I/O, a work-state list its history.
pub(crate) fn open(from: LayerKind, target: &Target) -> Destination {
    match target.clone() {
        Target::Record(kind, id) if from == LayerKind::Index => (
            LayerKind::Timeline,
            format!("Timeline {}", kind.display_id(id)),
            Request::Timeline { kind, id },
        ),
        Target::Record(kind, id) => detail(kind, id),
        Target::ToolUse(id) => raw(id),
        Target::WorkList(project, list) => (
            LayerKind::WorkHistory,
            format!("History {list}"),
            Request::WorkHistory { project, list },
        ),
    }
}

fn detail(kind: Kind, id: i64) -> Destination {
    (
        LayerKind::Detail,
        format!("Detail {}", kind.display_id(id)),
        Request::Detail { kind, id },
    )
}

fn raw(id: i64) -> Destination {
    (
        LayerKind::Raw,
        format!("Raw {}", tool_use_id(id)),
        Request::Raw { id },
    )
}

/// `:` then an id: `123` (observation), `S12`, `P7`, `T5` (tool use); else what to type.
pub(crate) fn jump(text: &str) -> Result<Destination, String> {
    let t = text.trim();
    if let Some(rest) = t.strip_prefix('T').or_else(|| t.strip_prefix('t'))
        && let Ok(id) = rest.trim_start_matches('#').parse::<i64>()
    {
        return Ok(raw(id));
    }
    match Kind::parse_id(t) {
        Some((kind, id)) => Ok(detail(kind, id)),
        None => Err(format!(
            "{t:?} is not an id: use 123 (observation), S12 (summary), P7 (prompt) or T5 (tool use)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_lead_to_their_layers() {
        assert_eq!(jump(" T5 ").unwrap().0, LayerKind::Raw);
        assert_eq!(jump("t#5").unwrap().1, "Raw T5");
        assert_eq!(
            jump("S12").unwrap().2,
            Request::Detail {
                kind: Kind::Summary,
                id: 12
            }
        );
        assert!(jump("hello").unwrap_err().contains("is not an id"));
        let rec = Target::Record(Kind::Observation, 7);
        assert_eq!(open(LayerKind::Index, &rec).0, LayerKind::Timeline);
        assert_eq!(open(LayerKind::Timeline, &rec).0, LayerKind::Detail);
    }
}
