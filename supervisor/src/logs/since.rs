//! `--since TIME` of `cortex logs`: a moment as seconds since the Unix epoch.
//!
//! `2h`, `30m`, `45s`, `1d` (that long before now), `2026-07-14` and `2026-07-14 15:30[:10]`
//! (also with `T`; UTC, as the robot's clock and journalctl's `@` form need no time zone), or
//! `@1752500000`.

/// Seconds since the Unix epoch, now.
pub fn now_s() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs())
}

/// `text` as seconds since the epoch, or what is wrong with it.
pub fn parse(text: &str, now_s: u64) -> Result<u64, String> {
    let text = text.trim();
    let expected = "expected a duration ago (`2h`, `30m`, `1d`), a UTC date and time \
                    (`2026-07-14 15:30`) or `@SECONDS`";
    if let Some(seconds) = text.strip_prefix('@') {
        return seconds
            .parse()
            .map_err(|_| format!("`{seconds}` is not a number of seconds; {expected}"));
    }
    if let Some(unit) = text.chars().last().filter(char::is_ascii_alphabetic) {
        let number: u64 = text[..text.len() - 1]
            .parse()
            .map_err(|_| format!("not a duration; {expected}"))?;
        let scale = match unit {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            _ => return Err(format!("unknown unit `{unit}`; {expected}")),
        };
        return Ok(now_s.saturating_sub(number.saturating_mul(scale)));
    }
    let (date, time) = match text.split_once([' ', 'T']) {
        Some((date, time)) => (date, Some(time)),
        None => (text, None),
    };
    let numbers = |part: &str, separator: char, count: std::ops::RangeInclusive<usize>| {
        let values: Option<Vec<u64>> = part.split(separator).map(|v| v.parse().ok()).collect();
        values.filter(|values| count.contains(&values.len()))
    };
    let Some(ymd) = numbers(date, '-', 3..=3) else {
        return Err(expected.to_owned());
    };
    let hms = match time {
        Some(time) => numbers(time, ':', 2..=3).ok_or_else(|| expected.to_owned())?,
        None => vec![0, 0, 0],
    };
    let (year, month, day) = (ymd[0], ymd[1], ymd[2]);
    let (hour, minute, second) = (hms[0], hms[1], hms.get(2).copied().unwrap_or(0));
    if !(1970..=9999).contains(&year)
        || !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return Err(format!("`{text}` is not a valid date and time; {expected}"));
    }
    Ok(days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
}

/// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (year ≥ 1970).
fn days_from_civil(year: u64, month: u64, day: u64) -> u64 {
    // Years begin in March so that the leap day is the last day of a year.
    let year = if month <= 2 { year - 1 } else { year };
    let era = year / 400;
    let year_of_era = year - era * 400;
    let month_from_march = (month + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_dates_and_epoch_seconds() {
        let now = 1_800_000_000;
        assert_eq!(parse("2h", now), Ok(now - 7200));
        assert_eq!(parse("30m", now), Ok(now - 1800));
        assert_eq!(parse("1d", now), Ok(now - 86_400));
        assert_eq!(parse("@1752500000", now), Ok(1_752_500_000));
        assert_eq!(parse("1970-01-01", now), Ok(0));
        assert_eq!(parse("2000-03-01", now), Ok(951_868_800));
        assert_eq!(parse("2026-07-14 15:30", now), Ok(1_784_043_000));
        assert_eq!(parse("2026-07-14T15:30:10", now), Ok(1_784_043_010));
    }

    #[test]
    fn nonsense_is_refused_with_what_was_expected() {
        for text in [
            "",
            "yesterday",
            "2x",
            "2026-13-01",
            "2026-07-14 25:00",
            "@-1",
            "h",
        ] {
            let error = parse(text, 0).unwrap_err();
            assert!(error.contains("expected"), "{text}: {error}");
        }
    }
}
