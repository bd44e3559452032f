//! The value types of scenario keys (times, sizes, rates, bounded integers, choices, ...):
//! each checks a TOML value, names the problem in words, and describes itself for the docs
//! and the JSON Schema.

use serde_json::json;
use toml::Value;

use super::check::{idx, Ctx};
use super::declare::{Leaf, SubTable, TypeDoc};
use crate::fabric::params::Headroom;
use crate::units::{Bytes, Rate, Time};

/// Declare a value type: `name -> Out, "doc name", schema, |ctx, value, key| body`.
macro_rules! leaf {
    ($(#[doc = $d:literal])* $name:ident -> $out:ty, $tyname:expr, $schema:expr,
     |$c:ident, $v:ident, $k:ident| $body:expr) => {
        $(#[doc = $d])*
        pub struct $name;
        impl SubTable for $name {}
        impl Leaf for $name {
            type Out = $out;
            fn read($c: &mut Ctx, $v: &Value, $k: &str) -> Option<$out> {
                $body
            }
            fn doc() -> TypeDoc {
                TypeDoc { name: $tyname.into(), schema: $schema }
            }
        }
    };
}

/// Declare a choice among fixed words; `later` ones are known but "not supported yet". With
/// `-> Out { "word" => value, ... }` a word reads as its value, else as the word itself.
macro_rules! choice {
    ($(#[doc = $d:literal])* $name:ident [$($w:literal),*] later [$($l:literal),*]) => {
        $crate::config::leaf::choice!($(#[doc = $d])* $name -> &'static str
            { $($w => $w),* } later [$($l),*]);
    };
    ($(#[doc = $d:literal])* $name:ident -> $out:ty { $($w:literal => $val:expr),* }
     later [$($l:literal),*]) => {
        $(#[doc = $d])*
        pub struct $name;
        impl $crate::config::declare::SubTable for $name {}
        impl $crate::config::declare::Leaf for $name {
            type Out = $out;
            fn read(c: &mut $crate::config::check::Ctx, v: &toml::Value, k: &str) -> Option<$out> {
                match c.supported(v, k, &[$($w),*], &[$($l),*])? {
                    $($w => Some($val),)*
                    _ => None,
                }
            }
            fn doc() -> $crate::config::declare::TypeDoc {
                let words: Vec<String> = [$($w),*].iter().map(|w| format!("`\"{w}\"`")).collect();
                $crate::config::declare::TypeDoc {
                    name: words.join(" \\| "),
                    schema: serde_json::json!({ "enum": [$($w),*] }),
                }
            }
        }
    };
    ($(#[doc = $d:literal])* $name:ident -> $out:ty { $($w:literal => $val:expr),* $(,)? }) => {
        $crate::config::leaf::choice!($(#[doc = $d])* $name -> $out { $($w => $val),* } later []);
    };
}
pub(crate) use choice;
pub(crate) use leaf;

fn string_schema(title: &str) -> serde_json::Value {
    json!({ "type": "string", "title": title })
}

fn size_schema() -> serde_json::Value {
    json!({ "title": "size", "anyOf": [
        { "type": "string", "pattern": "^\\s*[0-9.]+\\s*(B|K|KB|kB|M|MB|G|GB|KiB|MiB|GiB)?\\s*$" },
        { "type": "integer", "minimum": 0 } ] })
}

fn word_or(word: &str, s: serde_json::Value) -> serde_json::Value {
    json!({ "anyOf": [ { "const": word }, s ] })
}

leaf!(/// A time with a unit (`"1us"`); a bare number is an error.
TimeV -> Time, "time", string_schema("time"), |c, v, k| match v {
    Value::String(s) => Time::parse(s).map_err(|e| c.err(k, format!("invalid time: {e}"))).ok(),
    _ => {
        c.expected(k, "a time like \"1us\"", v);
        None
    }
});
leaf!(/// A time above zero.
PosTime -> Time, "time > 0", string_schema("time"), |c, v, k| {
    let t = TimeV::read(c, v, k)?;
    if t == Time::ZERO {
        c.err(k, "must be positive");
        return None;
    }
    Some(t)
});
leaf!(/// A time or `"off"` (→ `None`).
TimeOff -> Option<Time>, "time \\| `\"off\"`", word_or("off", string_schema("time")),
|c, v, k| match v {
    Value::String(s) if s == "off" => Some(None),
    Value::Boolean(false) => Some(None),
    Value::String(_) => TimeV::read(c, v, k).map(Some),
    _ => {
        c.expected(k, "a time like \"1us\" or \"off\"", v);
        None
    }
});
leaf!(/// A time or `"auto"` (→ `None`).
TimeAuto -> Option<Time>, "time \\| `\"auto\"`", word_or("auto", string_schema("time")),
|c, v, k| match v {
    Value::String(s) if s == "auto" => Some(None),
    Value::String(_) => TimeV::read(c, v, k).map(Some),
    _ => {
        c.expected(k, "a time like \"12us\" or \"auto\"", v);
        None
    }
});
/// The largest size a key accepts: 1 PiB (2^50 bytes), beyond any buffer, memory or message.
pub const MAX_SIZE: u64 = 1 << 50;

/// `b` when it is at most [`MAX_SIZE`], else an error at `k`.
fn bounded(c: &mut Ctx, k: &str, b: Bytes) -> Option<Bytes> {
    if b.0 > MAX_SIZE {
        c.err(
            k,
            format!("{} is above the largest size accepted (1 PiB)", b.written()),
        );
        return None;
    }
    Some(b)
}

leaf!(/// A size: a string with a unit (`"2KB"`, `"2KiB"`) or integer bytes; at most 1 PiB.
Size -> Bytes, "size", size_schema(), |c, v, k| {
    let b = size_unbounded(c, v, k)?;
    bounded(c, k, b)
});

/// A size as written, without the 1 PiB bound (flow sizes say more about it).
fn size_unbounded(c: &mut Ctx, v: &Value, k: &str) -> Option<Bytes> {
    match v {
        Value::String(s) => Bytes::parse(s)
            .map_err(|e| c.err(k, format!("invalid size: {e}")))
            .ok(),
        Value::Integer(i) if *i >= 0 => Some(Bytes(*i as u64)),
        Value::Integer(i) => {
            c.err(k, format!("a size cannot be negative, found {i}"));
            None
        }
        _ => {
            c.expected(k, "a size like \"2KB\" or a number of bytes", v);
            None
        }
    }
}
leaf!(/// A rate with a unit (`"40Gbps"`).
RateV -> Rate, "rate", string_schema("rate"), |c, v, k| match v {
    Value::String(s) => Rate::parse(s).map_err(|e| c.err(k, format!("invalid rate: {e}"))).ok(),
    _ => {
        c.expected(k, "a rate like \"40Gbps\"", v);
        None
    }
});
leaf!(/// A rate or `"line"` (→ `None`).
RateLine -> Option<Rate>, "`\"line\"` \\| rate", word_or("line", string_schema("rate")),
|c, v, k| match v {
    Value::String(s) if s == "line" => Some(None),
    _ => RateV::read(c, v, k).map(Some),
});
leaf!(/// `true` or `false`.
    Bool -> bool, "bool", json!({ "type": "boolean" }), |c, v, k| c.boolean(v, k));
leaf!(/// A string.
    Str -> String, "string", json!({ "type": "string" }), |c, v, k| c.string(v, k));
leaf!(/// Any table (accepted, not interpreted).
    AnyTable -> (), "table", json!({ "type": "object" }), |c, v, k| c.table(v, k).map(|_| ()));
leaf!(/// A number (integer or float).
Num -> f64, "number", json!({ "type": "number" }), |c, v, k| match v {
    Value::Float(f) if f.is_finite() => Some(*f),
    Value::Float(f) => {
        c.err(k, format!("expected a finite number, found {f}"));
        None
    }
    Value::Integer(i) => Some(*i as f64),
    _ => {
        c.expected(k, "a number", v);
        None
    }
});
leaf!(/// A probability in [0, 1].
Prob -> f64, "number in [0, 1]", json!({ "type": "number", "minimum": 0, "maximum": 1 }),
|c, v, k| {
    let p = Num::read(c, v, k)?;
    if !(0.0..=1.0).contains(&p) {
        c.err(k, format!("{p} is outside [0, 1]"));
        return None;
    }
    Some(p)
});
leaf!(/// A gain in (0, 1].
Gain -> f64, "number in (0, 1]",
json!({ "type": "number", "exclusiveMinimum": 0, "maximum": 1 }),
|c, v, k| {
    let x = Num::read(c, v, k)?;
    if !(x > 0.0 && x <= 1.0) {
        c.err(k, format!("{x} is outside (0, 1]"));
        return None;
    }
    Some(x)
});
leaf!(/// A DSCP value, 0–63.
Dscp -> u8, "DSCP", json!({ "type": "integer", "minimum": 0, "maximum": 63 }),
|c, v, k| match v {
    Value::Integer(i) if *i > 63 => {
        c.err(k, format!("DSCP {i} is above 63"));
        None
    }
    _ => c.int(v, k, 0, 63).map(|x| x as u8),
});
leaf!(/// A traffic class, queue or priority, 0–7.
Tc -> u8, "TC", json!({ "type": "integer", "minimum": 0, "maximum": 7 }),
|c, v, k| match v {
    Value::Integer(i) if *i > 7 => {
        c.err(k, format!("traffic class {i} is above 7"));
        None
    }
    _ => c.int(v, k, 0, 7).map(|x| x as u8),
});
leaf!(/// A list of traffic classes, read as a bitmask.
TcList -> u8, "list of TCs",
json!({ "type": "array", "items": { "type": "integer", "minimum": 0, "maximum": 7 } }),
|c, v, k| {
    let Value::Array(a) = v else {
        c.expected(k, "a list of traffic classes like [3, 4]", v);
        return None;
    };
    let tcs: Vec<Option<u8>> =
        a.iter().enumerate().map(|(i, x)| Tc::read(c, x, &idx(k, i))).collect();
    tcs.into_iter().try_fold(0u8, |m, t| Some(m | 1 << t?))
});

/// An integer in `LO..=HI`.
pub struct Int<const LO: i64, const HI: i64>;
impl<const LO: i64, const HI: i64> SubTable for Int<LO, HI> {}
impl<const LO: i64, const HI: i64> Leaf for Int<LO, HI> {
    type Out = i64;
    fn read(c: &mut Ctx, v: &Value, k: &str) -> Option<i64> {
        c.int(v, k, LO, HI)
    }
    fn doc() -> TypeDoc {
        let name = match (LO, HI) {
            (lo, hi) if hi >= i64::from(u32::MAX) => format!("integer ≥ {lo}"),
            (lo, hi) if lo < 0 => format!("integer −{}..{hi}", -lo),
            (lo, hi) => format!("integer {lo}–{hi}"),
        };
        TypeDoc {
            name,
            schema: json!({ "type": "integer", "minimum": LO, "maximum": HI }),
        }
    }
}

/// A non-negative integer as large as `i64` allows.
pub type Count = Int<0, { i64::MAX }>;
/// A positive integer that fits in `u32`.
pub type Pos32 = Int<1, { u32::MAX as i64 }>;

leaf!(/// `"auto"`, a size (fixed bytes), or a float (that multiple of auto).
HeadroomV -> Headroom, "`\"auto\"` \\| size \\| float",
json!({ "anyOf": [ { "const": "auto" }, size_schema(), { "type": "number" } ] }),
|c, v, k| match v {
    Value::String(s) if s == "auto" => Some(Headroom::Auto),
    Value::String(_) | Value::Integer(_) => Size::read(c, v, k).map(Headroom::Fixed),
    Value::Float(f) if f.is_finite() && *f > 0.0 && *f <= 100.0 => Some(Headroom::AutoScaled(*f)),
    Value::Float(f) => {
        c.err(k, format!("a headroom multiple of auto must be above 0 and at most 100, found {f}"));
        None
    }
    _ => {
        c.expected(k, "\"auto\", a size like \"40KB\", or a multiple of auto like 0.5", v);
        None
    }
});

leaf!(/// A cable length: `"5m"`, `"2km"`, `"30cm"` or a number of metres.
Length -> f64, "length", json!({ "anyOf": [ string_schema("length"), { "type": "number" } ] }),
|c, v, k| {
    let m = match v {
        Value::Integer(_) | Value::Float(_) => Num::read(c, v, k)?,
        Value::String(s) => metres(c, s.trim(), k)?,
        _ => {
            c.expected(k, "a length like \"5m\"", v);
            return None;
        }
    };
    if !(0.0..=1e7).contains(&m) {
        c.err(k, format!("cable length {m} m is out of range"));
        return None;
    }
    Some(m)
});

fn metres(c: &mut Ctx, s: &str, k: &str) -> Option<f64> {
    parse_metres(s).map_err(|e| c.err(k, e)).ok()
}

/// A cable length such as `"5m"`, `"0.3km"` or `"150cm"`, in metres (also SONiC's
/// `CABLE_LENGTH` values).
pub fn parse_metres(s: &str) -> Result<f64, String> {
    let s = s.trim();
    let (num, scale) = if let Some(n) = s.strip_suffix("km") {
        (n, 1000.0)
    } else if let Some(n) = s.strip_suffix("cm") {
        (n, 0.01)
    } else if let Some(n) = s.strip_suffix('m') {
        (n, 1.0)
    } else {
        return Err(format!(
            "invalid length `{s}`: write e.g. \"5m\" (m, km, cm)"
        ));
    };
    match num.trim().parse::<f64>() {
        Ok(x) if x.is_finite() => Ok(x * scale),
        _ => Err(format!("invalid length `{s}`: write e.g. \"5m\"")),
    }
}

leaf!(/// A flow size: `"inf"` (→ `None`, long-lived) or a size above zero.
FlowSize -> Option<u64>, "`\"inf\"` \\| size > 0, at most 1PiB", word_or("inf", size_schema()),
|c, v, k| match v {
    Value::String(s) if s == "inf" => Some(None),
    _ => match size_unbounded(c, v, k)? {
        b if b.0 == 0 => {
            c.err(k, "a flow size must be positive (or \"inf\")");
            None
        }
        b if b.0 > MAX_FLOW_SIZE => {
            c.err(k, format!("{} is above the largest flow size, 1PiB; a flow that never ends is \"inf\"", b.written()));
            None
        }
        b => Some(Some(b.0)),
    },
});

/// The largest finite flow: 1 PiB (2^50 bytes), 90 simulated days at 1 Tb/s.
pub const MAX_FLOW_SIZE: u64 = 1 << 50;

/// A fraction as a float, or as an mlx5 10-bit fixed-point integer 0–1023. `OPEN`: the float
/// must be above 0; `KEEP`: the integer n is the weight the old value keeps,
/// (1024 − n)/1024 (`dce_tcp_g`), else n/1024 (`initial_alpha_value`).
pub struct Mlx5<const OPEN: bool, const KEEP: bool>;
impl<const OPEN: bool, const KEEP: bool> SubTable for Mlx5<OPEN, KEEP> {}
impl<const OPEN: bool, const KEEP: bool> Leaf for Mlx5<OPEN, KEEP> {
    type Out = f64;
    fn read(c: &mut Ctx, v: &Value, k: &str) -> Option<f64> {
        match v {
            Value::Float(f) => {
                let ok = f.is_finite() && *f <= 1.0 && if OPEN { *f > 0.0 } else { *f >= 0.0 };
                if !ok {
                    let range = if OPEN { "(0, 1]" } else { "[0, 1]" };
                    c.err(k, format!("{f} is outside {range} (a float is the fraction itself; an integer 0..=1023 is mlx5 fixed point)"));
                    return None;
                }
                Some(*f)
            }
            Value::Integer(i) if (0..=1023).contains(i) => {
                Some(if KEEP { (1024 - i) as f64 } else { *i as f64 } / 1024.0)
            }
            Value::Integer(i) => {
                c.err(k, format!("{i} is out of range: an integer is mlx5 10-bit fixed point (0..=1023); write a float such as 1.0 for the fraction itself"));
                None
            }
            _ => {
                c.expected(
                    k,
                    "a fraction (float) or an mlx5 fixed-point integer 0..=1023",
                    v,
                );
                None
            }
        }
    }
    fn doc() -> TypeDoc {
        let range = if OPEN { "(0, 1]" } else { "[0, 1]" };
        TypeDoc {
            name: format!("float in {range}, or integer 0–1023"),
            schema: json!({ "anyOf": [ { "type": "number", "maximum": 1, "minimum": 0 },
                                       { "type": "integer", "minimum": 0, "maximum": 1023 } ] }),
        }
    }
}

leaf!(/// A time above zero, or `"auto"` (→ `None`).
PosTimeAuto -> Option<Time>, "time > 0 \\| `\"auto\"`", word_or("auto", string_schema("time")),
|c, v, k| match TimeAuto::read(c, v, k)? {
    Some(Time::ZERO) => {
        c.err(k, "must be positive");
        None
    }
    t => Some(t),
});
leaf!(/// `"rocev2"` (82 bytes) or the bytes a NIC's header stack adds to each data frame on the
/// wire, at least the 20 of preamble and inter-frame gap (which are never buffered).
FrameOverheadV -> crate::packet::FrameOverhead, "`\"rocev2\"` \\| integer 20–1000",
word_or("rocev2", json!({ "type": "integer", "minimum": 20, "maximum": 1000 })),
|c, v, k| match v {
    Value::String(s) if s == "rocev2" => Some(crate::packet::FrameOverhead::ROCEV2),
    Value::Integer(_) => c.int(v, k, 20, 1000).map(|n| crate::packet::FrameOverhead(n as u32)),
    _ => {
        c.expected(k, "\"rocev2\" or a byte count from 20 to 1000", v);
        None
    }
});

leaf!(/// A size above zero, or `"auto"` (→ `None`).
SizeAuto -> Option<Bytes>, "size > 0 \\| `\"auto\"`", word_or("auto", size_schema()),
|c, v, k| match v {
    Value::String(s) if s == "auto" => Some(None),
    _ => match Size::read(c, v, k)? {
        b if b.0 == 0 => {
            c.err(k, "must be positive (or \"auto\")");
            None
        }
        b => Some(Some(b)),
    },
});
leaf!(/// A size above zero, or `"off"` (→ `None`).
SizeOff -> Option<u64>, "size > 0 \\| `\"off\"`", word_or("off", size_schema()),
|c, v, k| match v {
    Value::String(s) if s == "off" => Some(None),
    Value::Boolean(false) => Some(None),
    _ => match Size::read(c, v, k)? {
        b if b.0 == 0 => {
            c.err(k, "must be positive (or \"off\")");
            None
        }
        b => Some(Some(b.0)),
    },
});

leaf!(/// One file path, or a list of them (read and merged in order).
Paths -> Vec<String>, "path \\| [path, ...]",
json!({ "anyOf": [ { "type": "string" }, { "type": "array", "items": { "type": "string" } } ] }),
|c, v, k| match v {
    Value::String(s) => Some(vec![s.clone()]),
    Value::Array(a) if !a.is_empty() => a
        .iter()
        .enumerate()
        .map(|(i, x)| c.string(x, &super::check::idx(k, i)))
        .collect(),
    _ => {
        c.expected(k, "a file path or a non-empty list of paths", v);
        None
    }
});
