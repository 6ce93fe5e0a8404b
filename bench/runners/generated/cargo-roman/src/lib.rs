//! Roman numerals, both ways.

const TABLE: [(u32, &str); 13] = [
    (1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"),
    (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"),
];

/// Writes a number from 1 to 3999 in Roman numerals.
///
/// ```
/// assert_eq!(roman::to_roman(1994).as_deref(), Some("MCMXCIV"));
/// ```
pub fn to_roman(mut n: u32) -> Option<String> {
    if n == 0 || n > 3999 {
        return None;
    }
    let mut out = String::new();
    for (value, digits) in TABLE {
        while n >= value {
            out.push_str(digits);
            n -= value;
        }
    }
    Some(out)
}

/// Reads Roman numerals back; `None` for anything that is not one written canonically.
///
/// ```
/// assert_eq!(roman::from_roman("XLII"), Some(42));
/// ```
pub fn from_roman(text: &str) -> Option<u32> {
    let mut rest = text;
    let mut total = 0;
    for (value, digits) in TABLE {
        while let Some(tail) = rest.strip_prefix(digits) {
            total += value;
            rest = tail;
        }
    }
    if !rest.is_empty() || total == 0 {
        return None;
    }
    (to_roman(total).as_deref() == Some(text)).then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_numbers() {
        assert_eq!(to_roman(1).as_deref(), Some("I"));
        assert_eq!(to_roman(4).as_deref(), Some("IV"));
        assert_eq!(to_roman(9).as_deref(), Some("IX"));
    }

    #[test]
    fn largest() {
        assert_eq!(to_roman(3999).as_deref(), Some("MMMCMXCIX"));
    }

    #[test]
    fn out_of_range() {
        assert_eq!(to_roman(0), None);
        assert_eq!(to_roman(4000), None);
    }

    #[test]
    #[ignore = "slow: every number"]
    fn round_trip_all() {
        for n in 1..4000 {
            assert_eq!(from_roman(&to_roman(n).unwrap()), Some(n));
        }
    }

    mod parsing {
        use super::super::*;

        #[test]
        fn reads_subtractive_pairs() {
            assert_eq!(from_roman("MCMXCIV"), Some(1994));
        }

        #[test]
        fn refuses_non_canonical() {
            assert_eq!(from_roman("IIII"), None);
            assert_eq!(from_roman("VX"), None);
        }
    }
}
