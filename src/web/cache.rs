//! Conditional requests (RFC 9110 §13): whether a client's copy is still current.
//!
//! `If-None-Match` is a list of entity tags, each strong (`"7"`) or weak (`W/"7"`), or `*`;
//! it is compared weakly, as a `GET` must be. Without it, `If-Modified-Since` is compared
//! to the last change, to the second. It knows nothing of what is being served.

use std::time::{Duration, SystemTime};

use axum::http::{HeaderMap, header};

/// Whether `If-None-Match` in `headers` matches the entity tag `etag` (quoted, as sent).
fn none_match(value: &str, etag: &str) -> bool {
    let ours = opaque(etag);
    value
        .split(',')
        .map(str::trim)
        .any(|tag| tag == "*" || (!tag.is_empty() && opaque(tag) == ours))
}

/// An entity tag without its weakness marker.
fn opaque(tag: &str) -> &str {
    tag.trim().strip_prefix("W/").unwrap_or(tag.trim())
}

/// Whether a `GET` with these headers may be answered `304 Not Modified`: the resource has
/// entity tag `etag` and last changed at `modified`.
pub fn not_modified(headers: &HeaderMap, etag: &str, modified: SystemTime) -> bool {
    let inm: Vec<&str> = headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    if !inm.is_empty() {
        return inm.iter().any(|v| none_match(v, etag));
    }
    let Some(since) = headers
        .get(header::IF_MODIFIED_SINCE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| httpdate::parse_http_date(v).ok())
    else {
        return false;
    };
    // HTTP dates have whole seconds: compare the change's second.
    let modified_s = modified
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let since_s = since
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or(Duration::ZERO)
        .as_secs();
    modified_s <= since_s
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    fn with(name: header::HeaderName, value: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(name, HeaderValue::from_str(value).expect("value"));
        h
    }

    #[test]
    fn if_none_match_takes_lists_weak_tags_and_a_star() {
        let t = SystemTime::now();
        for matching in [r#""7""#, r#"W/"7""#, r#""1", "7""#, "*", r#" "3" ,W/"7" "#] {
            assert!(
                not_modified(&with(header::IF_NONE_MATCH, matching), r#""7""#, t),
                "{matching}"
            );
        }
        for other in [r#""8""#, r#""1", W/"2""#, r#""77""#, ""] {
            assert!(
                !not_modified(&with(header::IF_NONE_MATCH, other), r#""7""#, t),
                "{other}"
            );
        }
    }

    #[test]
    fn if_modified_since_is_compared_to_the_second_and_only_without_if_none_match() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(784_111_777_500);
        let same = httpdate::fmt_http_date(t);
        assert!(not_modified(
            &with(header::IF_MODIFIED_SINCE, &same),
            r#""7""#,
            t
        ));
        let before = httpdate::fmt_http_date(t - Duration::from_secs(1));
        assert!(!not_modified(
            &with(header::IF_MODIFIED_SINCE, &before),
            r#""7""#,
            t
        ));
        assert!(!not_modified(
            &with(header::IF_MODIFIED_SINCE, "yesterday"),
            r#""7""#,
            t
        ));
        let mut both = with(header::IF_MODIFIED_SINCE, &same);
        both.insert(header::IF_NONE_MATCH, HeaderValue::from_static(r#""6""#));
        assert!(!not_modified(&both, r#""7""#, t));
    }
}
