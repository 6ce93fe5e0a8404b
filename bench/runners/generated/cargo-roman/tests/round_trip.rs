use roman::{from_roman, to_roman};

#[test]
fn round_trip_sample() {
    for n in [1, 2, 3, 14, 40, 99, 444, 1666, 2024, 3888] {
        assert_eq!(from_roman(&to_roman(n).unwrap()), Some(n), "{n}");
    }
}

#[test]
fn empty_is_not_a_number() {
    assert_eq!(from_roman(""), None);
}
