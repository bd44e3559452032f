//! `--set key=value` command-line overrides, applied to the parsed TOML tree before checking.
//!
//! The key is a dotted path (`switch.lossless.headroom`); elements of arrays of tables are
//! addressed as `flow[0].size` or `flow.0.size`. Missing tables are created. The value is read
//! as a TOML value when it is one (`2048`, `true`, `[3, 4]`, `{ rate = "40Gbps" }`), otherwise
//! it is taken as a string (`dcqcn`, `20ms`, `30KB`).

use toml::{Table, Value};

/// One step of an override path.
#[derive(Debug, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

fn parse_path(key: &str) -> Result<Vec<Seg>, String> {
    let mut segs = Vec::new();
    for part in key.split('.') {
        let part = part.trim();
        let (name, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if name.is_empty() {
            if segs.is_empty() || rest.is_empty() {
                return Err(format!("empty key part in `{key}`"));
            }
        } else if !rest.is_empty() || name.parse::<usize>().is_err() {
            segs.push(Seg::Key(name.to_string()));
        } else {
            segs.push(Seg::Index(name.parse().unwrap_or(0)));
        }
        while !rest.is_empty() {
            let close = rest
                .find(']')
                .ok_or_else(|| format!("missing `]` in `{key}`"))?;
            let n: usize = rest[1..close]
                .trim()
                .parse()
                .map_err(|_| format!("`{}` is not an array index in `{key}`", &rest[1..close]))?;
            segs.push(Seg::Index(n));
            rest = &rest[close + 1..];
            if !rest.is_empty() && !rest.starts_with('[') {
                return Err(format!("unexpected `{rest}` in `{key}`"));
            }
        }
    }
    if segs.is_empty() {
        return Err("empty key".into());
    }
    // A numeric first segment is a key, not an index (the root is a table).
    if let Seg::Index(n) = segs[0] {
        segs[0] = Seg::Key(n.to_string());
    }
    Ok(segs)
}

/// The value of an override: a TOML value if the text is one, else the text as a string.
pub fn parse_value(text: &str) -> Value {
    let t = text.trim();
    // TOML reads `inf`/`nan` as floats; users mean the words (e.g. `size = "inf"`).
    if matches!(t, "inf" | "+inf" | "-inf" | "nan" | "+nan" | "-nan") {
        return Value::String(t.to_string());
    }
    match t.parse::<Value>() {
        Ok(v) => v,
        Err(_) => Value::String(t.to_string()),
    }
}

/// Apply one `key=value` override to `root`.
pub fn apply(root: &mut Table, spec: &str) -> Result<(), String> {
    let (key, value) = spec
        .split_once('=')
        .ok_or_else(|| format!("`{spec}` is not of the form key=value"))?;
    let key = key.trim();
    if key.is_empty() {
        return Err(format!("`{spec}` has an empty key"));
    }
    let segs = parse_path(key)?;
    let mut tree = Value::Table(std::mem::take(root));
    let set = set(&mut tree, &segs, parse_value(value));
    if let Value::Table(t) = tree {
        *root = t;
    }
    set
}

/// Set the element at `segs` of `tree` to `value`, creating missing tables.
fn set(tree: &mut Value, segs: &[Seg], value: Value) -> Result<(), String> {
    let (last, init) = segs.split_last().ok_or("empty key")?;
    let (mut cur, mut walked) = (tree, String::new());
    for seg in init {
        cur = step(cur, seg, &walked)?;
        walked = match seg {
            Seg::Key(k) => super::check::at(&walked, k),
            Seg::Index(i) => super::check::idx(&walked, *i),
        };
    }
    match (last, cur) {
        (Seg::Key(k), Value::Table(t)) => {
            t.insert(k.clone(), value);
        }
        (Seg::Index(i), Value::Array(a)) if *i < a.len() => a[*i] = value,
        (Seg::Index(i), Value::Array(a)) if *i == a.len() => a.push(value),
        (Seg::Index(i), Value::Array(a)) => {
            return Err(format!(
                "`{walked}` has {} elements; index {i} is out of range",
                a.len()
            ))
        }
        _ => return Err(format!("`{walked}` is not a table")),
    }
    Ok(())
}

/// One step down the tree, creating missing tables (and appending a table at index `len`).
fn step<'v>(cur: &'v mut Value, seg: &Seg, walked: &str) -> Result<&'v mut Value, String> {
    match (seg, cur) {
        (Seg::Key(k), Value::Table(t)) => Ok(t
            .entry(k.clone())
            .or_insert_with(|| Value::Table(Table::new()))),
        (Seg::Index(i), Value::Array(a)) => {
            let n = a.len();
            if *i == n {
                a.push(Value::Table(Table::new()));
            }
            a.get_mut(*i)
                .ok_or_else(|| format!("`{walked}` has {n} elements; index {i} is out of range"))
        }
        (Seg::Index(_), _) => Err(format!("`{walked}` is not an array")),
        (Seg::Key(_), _) => Err(format!("`{walked}` is not a table")),
    }
}
