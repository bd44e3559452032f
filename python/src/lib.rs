//! `rocesim._native`: the compiled core of the `rocesim` Python package. It loads and checks
//! scenarios with the library's config layer, runs them with the GIL released, hands the result
//! tables over as Arrow streams (the C stream interface, zero copy) and runs sweeps with the
//! library's sweep runner. The Python package (python/rocesim/) wraps it.

mod arrow_export;
mod progress;
mod scenario;
mod sweep;
mod values;

use pyo3::prelude::*;

pyo3::create_exception!(
    _native,
    NativeScenarioError,
    pyo3::exceptions::PyException,
    "A scenario or sweep that cannot be run: args = (message, [every finding])."
);

/// The module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add(
        "NativeScenarioError",
        m.py().get_type::<NativeScenarioError>(),
    )?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(scenario::check, m)?)?;
    m.add_function(wrap_pyfunction!(scenario::run, m)?)?;
    m.add_function(wrap_pyfunction!(values::override_text, m)?)?;
    m.add_function(wrap_pyfunction!(values::dict_to_toml, m)?)?;
    m.add_function(wrap_pyfunction!(values::apply_overrides, m)?)?;
    m.add_function(wrap_pyfunction!(sweep::run_one, m)?)?;
    m.add_class::<scenario::RunResult>()?;
    m.add_class::<arrow_export::ArrowTable>()?;
    m.add_class::<sweep::SweepPlan>()?;
    Ok(())
}
