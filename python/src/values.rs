//! Python values as TOML values: scenario dictionaries, `Scenario.set` values and sweep grids.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toml::Value;

/// The TOML value of a Python value: `str`, `bool`, `int`, `float`, lists or tuples of values,
/// dicts with string keys. `where_` names the value in the error for anything else.
pub fn to_toml(obj: &Bound<'_, PyAny>, where_: &str) -> PyResult<Value> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Boolean(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        let v: i64 = obj.extract().map_err(|_| {
            PyTypeError::new_err(format!("{where_}: integer {obj} does not fit in 64 bits"))
        })?;
        return Ok(Value::Integer(v));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Value::Float(obj.extract()?));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_str()?.to_string()));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return Ok(Value::Table(table(d, where_)?));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let items = obj
            .try_iter()?
            .enumerate()
            .map(|(i, o)| to_toml(&o?, &format!("{where_}[{i}]")))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(Value::Array(items));
    }
    // numpy scalars and the like: their int or float value.
    if let Ok(v) = obj.extract::<i64>() {
        return Ok(Value::Integer(v));
    }
    if let Ok(v) = obj.extract::<f64>() {
        return Ok(Value::Float(v));
    }
    let ty = obj.get_type().name()?;
    Err(PyTypeError::new_err(format!(
        "{where_}: a {ty} is not a scenario value (use str, int, float, bool, list or dict)"
    )))
}

/// The TOML table of a dict with string keys.
fn table(d: &Bound<'_, PyDict>, where_: &str) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    for (k, v) in d.iter() {
        let key: String = k
            .extract()
            .map_err(|_| PyTypeError::new_err(format!("{where_}: key {k} is not a string")))?;
        let path = if where_.is_empty() {
            key.clone()
        } else {
            format!("{where_}.{key}")
        };
        if v.is_none() {
            continue;
        }
        t.insert(key, to_toml(&v, &path)?);
    }
    Ok(t)
}

/// The text of `key=value` for `--set`: a `str` is taken as the command line takes it (TOML
/// when it parses as TOML, else a string: `"dcqcn"`, `"20ms"`), anything else in TOML syntax.
#[pyfunction]
pub fn override_text(key: &str, value: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = value.cast::<PyString>() {
        return Ok(format!("{key}={}", s.to_str()?));
    }
    Ok(format!("{key}={}", to_toml(value, key)?))
}

/// A scenario dict as TOML text.
#[pyfunction]
pub fn dict_to_toml(d: &Bound<'_, PyDict>) -> PyResult<String> {
    let t = table(d, "")?;
    toml::to_string(&t).map_err(|e| PyTypeError::new_err(format!("cannot write TOML: {e}")))
}

/// `text` with `overrides` applied, as TOML text (for writing a scenario with its overrides
/// into a file). Fails with the first bad override.
#[pyfunction]
pub fn apply_overrides(text: &str, overrides: Vec<String>) -> PyResult<String> {
    let mut root: toml::Table = text
        .parse()
        .map_err(|e: toml::de::Error| PyTypeError::new_err(e.message().to_string()))?;
    for o in &overrides {
        rocesim::config::overrides::apply(&mut root, o).map_err(PyTypeError::new_err)?;
    }
    toml::to_string(&root).map_err(|e| PyTypeError::new_err(format!("cannot write TOML: {e}")))
}
