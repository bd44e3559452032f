//! Physical units used throughout the simulator.
//!
//! Simulated time is an integer number of picoseconds ([`Time`]); sizes are bytes ([`Bytes`]);
//! link speeds are bits per second ([`Rate`]). The newtypes keep the arithmetic honest
//! (a `Time` is never added to a `Bytes`) and the parsers accept the strings users write in
//! scenario files: `"40Gbps"`, `"40G"`, `"1us"`, `"2KB"` (1000 B), `"2KiB"` (1024 B).

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// Simulated time in picoseconds. `u64` picoseconds cover about 213 days.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

impl Time {
    /// Time zero: the start of the simulation.
    pub const ZERO: Time = Time(0);
    /// A time later than any simulation reaches; used as "never".
    pub const NEVER: Time = Time(u64::MAX);
    /// `n` picoseconds.
    pub const fn from_ps(n: u64) -> Time {
        Time(n)
    }
    /// `n` nanoseconds.
    pub const fn from_ns(n: u64) -> Time {
        Time(n * 1_000)
    }
    /// `n` microseconds.
    pub const fn from_us(n: u64) -> Time {
        Time(n * 1_000_000)
    }
    /// `n` milliseconds.
    pub const fn from_ms(n: u64) -> Time {
        Time(n * 1_000_000_000)
    }
    /// Picoseconds.
    pub const fn ps(self) -> u64 {
        self.0
    }
    /// Whole nanoseconds (truncated).
    pub const fn ns(self) -> u64 {
        self.0 / 1_000
    }
    /// Seconds as a float, for reports.
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 * 1e-12
    }
    /// Saturating addition: [`Time::NEVER`] when the sum overflows.
    pub fn saturating_add(self, other: Time) -> Time {
        Time(self.0.saturating_add(other.0))
    }
    /// Saturating subtraction: zero when `other` is later.
    pub fn saturating_sub(self, other: Time) -> Time {
        Time(self.0.saturating_sub(other.0))
    }
    /// Parse `"1us"`, `"55us"`, `"200ms"`, `"10ns"`, `"3ps"`, `"1s"`; a bare number is an error
    /// (times always need a unit).
    pub fn parse(s: &str) -> Result<Time, String> {
        let (num, unit) = split_number(s)?;
        let scale: f64 = match unit {
            "ps" => 1.0,
            "ns" => 1e3,
            "us" | "µs" => 1e6,
            "ms" => 1e9,
            "s" => 1e12,
            "" => {
                return Err(format!(
                    "`{s}` has no unit; write e.g. \"{s}us\" (ps, ns, us, ms, s)"
                ))
            }
            _ => {
                return Err(format!(
                    "`{s}`: unknown time unit `{unit}` (use ps, ns, us, ms, s)"
                ))
            }
        };
        to_u64(num * scale, s).map(Time)
    }
}

impl Add for Time {
    type Output = Time;
    fn add(self, o: Time) -> Time {
        Time(self.0 + o.0)
    }
}
impl AddAssign for Time {
    fn add_assign(&mut self, o: Time) {
        self.0 += o.0;
    }
}
impl Sub for Time {
    type Output = Time;
    fn sub(self, o: Time) -> Time {
        Time(self.0 - o.0)
    }
}
impl SubAssign for Time {
    fn sub_assign(&mut self, o: Time) {
        self.0 -= o.0;
    }
}
impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        if ps % 1_000_000_000 == 0 && ps > 0 {
            write!(f, "{}ms", ps / 1_000_000_000)
        } else if ps % 1_000_000 == 0 && ps > 0 {
            write!(f, "{}us", ps / 1_000_000)
        } else if ps % 1_000 == 0 {
            write!(f, "{}ns", ps / 1_000)
        } else {
            write!(f, "{ps}ps")
        }
    }
}

/// A number of bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bytes(pub u64);

impl Bytes {
    /// Zero bytes.
    pub const ZERO: Bytes = Bytes(0);
    /// The count as a user would write it: `200KB`, `2KiB`, `12MB`, or `1106B`.
    pub fn written(self) -> String {
        let n = self.0;
        if n == 0 {
            return "0B".into();
        }
        for (div, unit) in [(1_000_000_000, "GB"), (1_000_000, "MB"), (1_000, "KB")] {
            if n.checked_rem(div) == Some(0) {
                return format!("{}{unit}", n / div);
            }
        }
        for (div, unit) in [(1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")] {
            if n.checked_rem(div) == Some(0) {
                return format!("{}{unit}", n / div);
            }
        }
        format!("{n}B")
    }
    /// The count.
    pub const fn get(self) -> u64 {
        self.0
    }
    /// Parse `"2KB"` (2000), `"2KiB"` (2048), `"12MB"`, `"1GiB"`, `"1500B"` or a plain `"1500"`.
    pub fn parse(s: &str) -> Result<Bytes, String> {
        let (num, unit) = split_number(s)?;
        let scale: f64 = match unit {
            "" | "B" => 1.0,
            "KB" | "kB" | "K" => 1e3,
            "MB" | "M" => 1e6,
            "GB" | "G" => 1e9,
            "KiB" => 1024.0,
            "MiB" => 1024.0 * 1024.0,
            "GiB" => 1024.0 * 1024.0 * 1024.0,
            _ => {
                return Err(format!(
                    "`{s}`: unknown size unit `{unit}` (use B, KB, MB, GB, KiB, MiB, GiB)"
                ))
            }
        };
        to_u64(num * scale, s).map(Bytes)
    }
}

impl Add for Bytes {
    type Output = Bytes;
    fn add(self, o: Bytes) -> Bytes {
        Bytes(self.0 + o.0)
    }
}
impl Sub for Bytes {
    type Output = Bytes;
    fn sub(self, o: Bytes) -> Bytes {
        Bytes(self.0 - o.0)
    }
}
impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}B", self.0)
    }
}

/// A data rate in bits per second.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    /// `n` Gb/s.
    pub const fn gbps(n: u64) -> Rate {
        Rate(n * 1_000_000_000)
    }
    /// `n` Mb/s.
    pub const fn mbps(n: u64) -> Rate {
        Rate(n * 1_000_000)
    }
    /// Bits per second.
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Gb/s as a float, for reports.
    pub fn gbps_f64(self) -> f64 {
        self.0 as f64 * 1e-9
    }
    /// Time to serialize `bytes` at this rate, rounded up to a whole picosecond.
    ///
    /// Exact integer arithmetic: `ceil(bytes × 8 × 10^12 / rate)`.
    #[inline]
    pub fn tx_time(self, bytes: u64) -> Time {
        debug_assert!(self.0 > 0);
        const PS_BITS: u64 = 8 * 1_000_000_000_000;
        if bytes <= u64::MAX / PS_BITS {
            // Frames and pause quanta: exact in 64 bits (up to 2.3 MB).
            return Time((bytes * PS_BITS).div_ceil(self.0));
        }
        let num = bytes as u128 * PS_BITS as u128;
        Time(num.div_ceil(self.0 as u128) as u64)
    }
    /// Picoseconds per byte when that is a whole number (100G: 80, 40G: 200, 25G: 320), so
    /// that serialization is a multiplication; `None` otherwise.
    pub fn ps_per_byte(self) -> Option<u64> {
        let ps = 8 * 1_000_000_000_000u64;
        (self.0 > 0 && ps % self.0 == 0).then(|| ps / self.0)
    }
    /// Bytes sent at this rate in `t` (truncated).
    pub fn bytes_in(self, t: Time) -> u64 {
        (self.0 as u128 * t.0 as u128 / 8 / 1_000_000_000_000u128) as u64
    }
    /// Parse `"40Gbps"`, `"40G"`, `"100Gb/s"`, `"500Mbps"`, `"1Tbps"`, `"10Kbps"`, `"1000bps"`.
    pub fn parse(s: &str) -> Result<Rate, String> {
        let (num, unit) = split_number(s)?;
        let scale: f64 = match unit {
            "bps" => 1.0,
            "K" | "Kbps" | "kbps" | "Kb/s" => 1e3,
            "M" | "Mbps" | "Mb/s" => 1e6,
            "G" | "Gbps" | "Gb/s" => 1e9,
            "T" | "Tbps" | "Tb/s" => 1e12,
            "" => return Err(format!("`{s}` has no unit; write e.g. \"{s}Gbps\"")),
            _ => {
                return Err(format!(
                    "`{s}`: unknown rate unit `{unit}` (use bps, Kbps, Mbps, Gbps, Tbps)"
                ))
            }
        };
        let r = to_u64(num * scale, s)?;
        if r == 0 {
            return Err(format!("`{s}`: a rate must be positive"));
        }
        Ok(Rate(r))
    }
}

impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 % 1_000_000_000 == 0 {
            write!(f, "{}Gbps", self.0 / 1_000_000_000)
        } else if self.0 % 1_000_000 == 0 {
            write!(f, "{}Mbps", self.0 / 1_000_000)
        } else {
            write!(f, "{}bps", self.0)
        }
    }
}

fn split_number(s: &str) -> Result<(f64, &str), String> {
    let t = s.trim();
    let end = t
        .char_indices()
        .find(|&(_, c)| !(c.is_ascii_digit() || c == '.' || c == '_'))
        .map(|(i, _)| i)
        .unwrap_or(t.len());
    let (n, u) = t.split_at(end);
    if n.is_empty() {
        return Err(format!("`{s}` does not start with a number"));
    }
    let n: f64 = n
        .replace('_', "")
        .parse()
        .map_err(|_| format!("`{s}`: `{n}` is not a number"))?;
    Ok((n, u.trim()))
}

fn to_u64(v: f64, s: &str) -> Result<u64, String> {
    if !v.is_finite() || v < 0.0 || v > u64::MAX as f64 {
        return Err(format!("`{s}` is out of range"));
    }
    let r = v.round();
    if (v - r).abs() > 1e-6 * v.max(1.0) {
        return Err(format!("`{s}` is not a whole number of the base unit"));
    }
    Ok(r as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_as_written() {
        assert_eq!(Bytes(200_000).written(), "200KB");
        assert_eq!(Bytes(2048).written(), "2KiB");
        assert_eq!(Bytes(1106).written(), "1106B");
    }

    #[test]
    fn parses_times() {
        assert_eq!(Time::parse("1us").unwrap(), Time(1_000_000));
        assert_eq!(Time::parse("55us").unwrap(), Time::from_us(55));
        assert_eq!(Time::parse("200ms").unwrap(), Time::from_ms(200));
        assert_eq!(Time::parse("0.5us").unwrap(), Time::from_ns(500));
        assert!(Time::parse("10").is_err());
        assert!(Time::parse("10 parsecs").is_err());
        assert!(Time::parse("us").is_err());
    }

    #[test]
    fn parses_sizes_decimal_and_binary() {
        assert_eq!(Bytes::parse("2KB").unwrap(), Bytes(2000));
        assert_eq!(Bytes::parse("2KiB").unwrap(), Bytes(2048));
        assert_eq!(Bytes::parse("12MB").unwrap(), Bytes(12_000_000));
        assert_eq!(Bytes::parse("1500").unwrap(), Bytes(1500));
        assert!(Bytes::parse("2 parsecs").is_err());
    }

    #[test]
    fn parses_rates() {
        assert_eq!(Rate::parse("40Gbps").unwrap(), Rate::gbps(40));
        assert_eq!(Rate::parse("40G").unwrap(), Rate::gbps(40));
        assert_eq!(Rate::parse("100Gb/s").unwrap(), Rate::gbps(100));
        assert!(Rate::parse("0Gbps").is_err());
        assert!(Rate::parse("40").is_err());
    }

    #[test]
    fn serialization_time_is_exact() {
        // 1106 bytes at 40 Gb/s = 8848 bits / 40e9 = 221.2 ns.
        assert_eq!(Rate::gbps(40).tx_time(1106), Time(221_200));
        // 84-byte PFC frame at 100G = 6.72 ns.
        assert_eq!(Rate::gbps(100).tx_time(84), Time(6_720));
        // The 64-bit and 128-bit paths agree at the boundary and beyond.
        assert_eq!(Rate::gbps(100).tx_time(10_000_000), Time(800_000_000));
        assert_eq!(Rate(3).tx_time(1), Time(2_666_666_666_667));
        assert_eq!(Rate::gbps(100).ps_per_byte(), Some(80));
        assert_eq!(Rate::gbps(40).ps_per_byte(), Some(200));
        assert_eq!(Rate(3).ps_per_byte(), None);
    }
}
