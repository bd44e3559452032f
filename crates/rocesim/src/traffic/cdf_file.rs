//! CDF files in the formats simulators ship (VALIDATION.md §9, shared/workloads/README.md):
//!
//! - HPCC (`traffic_gen/*.txt`): `size_bytes cdf_percent` per line, the last at 100;
//!   sampled interpolated.
//! - Homa (HomaSim `sizeDistributions/*.txt`): a first line holding only the mean size, then
//!   `size cdf_fraction` lines; sampled as steps.
//! - pFabric / ns-2 `EmpiricalRandomVariable` (pHost `CDF_*.txt`): `packets 1 cdf_fraction`,
//!   packets of [`PFABRIC_PACKET_BYTES`]; sampled interpolated.
//! - Two columns with fractions (`size_bytes cdf_fraction`, e.g. the Opera CSVs); sampled
//!   interpolated.
//!
//! Columns are separated by blanks or commas; blank lines and lines starting with `#` are
//! skipped. The format is told by the first line: one column is Homa, three are pFabric, two are
//! HPCC when the last CDF value is above 1 (percent) and fractions otherwise.

use std::path::Path;

use super::cdf::{Cdf, Sampling};

/// Bytes per packet of pFabric-format files (the 1460 B MSS convention of pFabric and pHost).
pub const PFABRIC_PACKET_BYTES: f64 = 1460.0;

/// The layout of a CDF file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CdfFormat {
    /// `size_bytes cdf_percent` (HPCC `traffic_gen`).
    Hpcc,
    /// Mean on the first line, then `size cdf_fraction` (HomaSim).
    Homa,
    /// `packets 1 cdf_fraction` (pFabric, pHost, ns-2).
    Pfabric,
    /// `size_bytes cdf_fraction` (two columns, fractions).
    Fraction,
}

impl CdfFormat {
    /// The sampling semantics the format's simulator uses.
    pub fn sampling(self) -> Sampling {
        match self {
            CdfFormat::Homa => Sampling::Step,
            _ => Sampling::Interpolated,
        }
    }
}

/// A parsed CDF file.
#[derive(Clone, Debug, PartialEq)]
pub struct CdfFile {
    /// The points in bytes and percent, with the format's sampling semantics.
    pub cdf: Cdf,
    /// The detected layout.
    pub format: CdfFormat,
    /// The mean a Homa file states on its first line (in the file's size unit).
    pub header_mean: Option<f64>,
}

/// Parse the text of a CDF file; errors name `file` and the line.
pub fn parse_cdf(text: &str, file: &str) -> Result<CdfFile, String> {
    let mut lines = data_lines(text).peekable();
    let Some((first_line, first)) = lines.peek().cloned() else {
        return Err(format!("{file} holds no CDF points"));
    };
    let mut header_mean = None;
    let format = match first.len() {
        1 => {
            header_mean = Some(number(file, first[0], first_line, "the mean")?);
            lines.next();
            CdfFormat::Homa
        }
        2 => CdfFormat::Hpcc, // or Fraction, decided below
        3 => CdfFormat::Pfabric,
        k => {
            return Err(format!(
                "{file} line {first_line}: expected 1 column (a Homa mean), 2 (size cdf) or 3 \
                 (pFabric: packets 1 cdf), found {k}"
            ))
        }
    };
    let raw = raw_points(lines, format, file)?;
    let Some(&(last_line, _, last_y)) = raw.last() else {
        return Err(format!("{file} holds no CDF points"));
    };
    let format = match format {
        CdfFormat::Hpcc if last_y <= 1.0 + 1e-9 => CdfFormat::Fraction,
        f => f,
    };
    let mut points = scaled_points(&raw, format, file)?;
    let last = points.last().map_or(0.0, |p| p.1);
    if last < 99.99 {
        return Err(format!(
            "{file} line {last_line}: the CDF ends at {} % but must reach 100 % (the file holds \
             only part of the distribution)",
            last
        ));
    }
    if let Some(p) = points.last_mut() {
        p.1 = 100.0;
    }
    Ok(CdfFile {
        cdf: Cdf {
            points,
            sampling: format.sampling(),
        },
        format,
        header_mean,
    })
}

/// The lines holding data, numbered from 1, split into columns (blanks or commas); blank lines,
/// `#` comments and a byte-order mark are skipped.
fn data_lines(text: &str) -> impl Iterator<Item = (usize, Vec<&str>)> {
    text.lines()
        .enumerate()
        .map(|(n, l)| (n + 1, l.trim().trim_start_matches('\u{feff}')))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .map(|(n, l)| {
            let cols: Vec<&str> = l
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|c| !c.is_empty())
                .collect();
            (n, cols)
        })
}

/// A non-negative finite number in column text `s` of line `n`; the error names `what`.
fn number(file: &str, s: &str, n: usize, what: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!(
            "{file} line {n}: {what} `{s}` is not a non-negative number"
        )),
    }
}

/// The (line, size, CDF value) of every point line, in the file's units; every line must have
/// the format's number of columns.
fn raw_points<'a>(
    lines: impl Iterator<Item = (usize, Vec<&'a str>)>,
    format: CdfFormat,
    file: &str,
) -> Result<Vec<(usize, f64, f64)>, String> {
    let ncols = if format == CdfFormat::Pfabric { 3 } else { 2 };
    let mut raw = Vec::new();
    for (n, cols) in lines {
        if cols.len() != ncols {
            return Err(format!(
                "{file} line {n}: expected {ncols} columns, found {}",
                cols.len()
            ));
        }
        let x = number(file, cols[0], n, "size")?;
        let y = number(file, cols[ncols - 1], n, "CDF value")?;
        raw.push((n, x, y));
    }
    Ok(raw)
}

/// The points in bytes and percent (capped at 100); sizes and CDF values must not decrease and
/// values must not exceed 100 %. Errors give the values in the file's units.
fn scaled_points(
    raw: &[(usize, f64, f64)],
    format: CdfFormat,
    file: &str,
) -> Result<Vec<(f64, f64)>, String> {
    let (x_scale, y_scale) = match format {
        CdfFormat::Hpcc => (1.0, 1.0),
        CdfFormat::Pfabric => (PFABRIC_PACKET_BYTES, 100.0),
        CdfFormat::Homa | CdfFormat::Fraction => (1.0, 100.0),
    };
    let mut points = Vec::with_capacity(raw.len());
    let mut prev: Option<(f64, f64)> = None;
    for &(n, x, y) in raw {
        let (x, y) = (x * x_scale, y * y_scale);
        if y > 100.0 + 1e-6 {
            let unit = if y_scale == 1.0 { " %" } else { "" };
            return Err(format!(
                "{file} line {n}: CDF value {}{unit} is above {}{unit}",
                y / y_scale,
                100.0 / y_scale
            ));
        }
        if let Some((px, py)) = prev {
            if x < px {
                return Err(format!(
                    "{file} line {n}: sizes must not decrease (found {} after {})",
                    x / x_scale,
                    px / x_scale
                ));
            }
            if y < py {
                return Err(format!(
                    "{file} line {n}: CDF values must not decrease (found {} after {})",
                    y / y_scale,
                    py / y_scale
                ));
            }
        }
        prev = Some((x, y));
        points.push((x, y.min(100.0)));
    }
    Ok(points)
}

/// Read and parse a CDF file; errors name the file (as `path` displays) and the line.
pub fn read_cdf(path: &Path) -> Result<CdfFile, String> {
    let name = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("cannot read CDF file `{name}`: {e}"))?;
    parse_cdf(&text, &name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::rng::{stream, StreamKind};
    use rand::RngExt;
    use std::path::PathBuf;

    /// The shared workload files, when present (they are not part of the product).
    fn workloads() -> Option<PathBuf> {
        let d = PathBuf::from("/work/shared/workloads");
        if d.is_dir() {
            Some(d)
        } else {
            eprintln!("skipped: {} is absent", d.display());
            None
        }
    }

    #[test]
    fn detects_the_formats() {
        let h = parse_cdf("0 0\n100 50\n\n300 100\n", "h.txt").unwrap();
        assert_eq!(h.format, CdfFormat::Hpcc);
        assert_eq!(h.cdf.sampling, Sampling::Interpolated);
        assert_eq!(
            h.cdf.points,
            vec![(0.0, 0.0), (100.0, 50.0), (300.0, 100.0)]
        );
        let m = parse_cdf("150\n100 0.5\n200 1.0\n", "m.txt").unwrap();
        assert_eq!(m.format, CdfFormat::Homa);
        assert_eq!(m.header_mean, Some(150.0));
        assert_eq!(m.cdf.sampling, Sampling::Step);
        assert_eq!(m.cdf.mean(), 150.0);
        let p = parse_cdf("1 1 0\n1 1 0.5\n3 1 1\n", "p.txt").unwrap();
        assert_eq!(p.format, CdfFormat::Pfabric);
        assert_eq!(p.cdf.points[2], (4380.0, 100.0));
        assert_eq!(p.cdf.mean(), (1460.0 * 0.5 + 2920.0 * 0.5));
        let f = parse_cdf("# comment\n4000,0\n8000,1\n", "o.csv").unwrap();
        assert_eq!(f.format, CdfFormat::Fraction);
        assert_eq!(f.cdf.mean(), 6000.0);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let e = |t: &str| parse_cdf(t, "x.txt").unwrap_err();
        assert_eq!(
            e("0 0\n10 abc\n"),
            "x.txt line 2: CDF value `abc` is not a non-negative number"
        );
        assert_eq!(
            e("0 0\n10 50\n5 100\n"),
            "x.txt line 3: sizes must not decrease (found 5 after 10)"
        );
        assert_eq!(
            e("0 0\n10 50\n20 40\n30 100\n"),
            "x.txt line 3: CDF values must not decrease (found 40 after 50)"
        );
        assert_eq!(
            e("0 0\n10 50 1 2\n"),
            "x.txt line 2: expected 2 columns, found 4"
        );
        assert!(e("100\n1 0.2\n2 0.47\n").starts_with("x.txt line 3: the CDF ends at 47 %"));
        assert_eq!(e("\n\n"), "x.txt holds no CDF points");
        assert!(e("0 0\n10 120\n").contains("line 2: CDF value 120 % is above 100 %"));
        assert!(e("1 2 3 4\n").starts_with("x.txt line 1: expected 1 column"));
    }

    #[test]
    fn w3_step_draws_reproduce_the_homa_header_means() {
        // VALIDATION.md §9 W3: step-semantics draws from the homa_* files reproduce each file's
        // header mean within ±1 %. The memcached file holds only the head of its distribution
        // (VALIDATION.md §9), so it is rejected rather than sampled.
        let Some(dir) = workloads() else { return };
        let mut n = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if !name.starts_with("homa_") {
                continue;
            }
            if name == "homa_FacebookKeyValueMsgSizeDist.txt" {
                assert!(read_cdf(&path).unwrap_err().contains("must reach 100 %"));
                continue;
            }
            let f = read_cdf(&path).unwrap();
            assert_eq!(f.format, CdfFormat::Homa, "{name}");
            let header = f.header_mean.unwrap();
            // The exact step mean of the points.
            let exact = f.cdf.mean();
            assert!(
                (exact / header - 1.0).abs() < 0.01,
                "{name}: {exact} vs {header}"
            );
            // 10^6 draws, stratified (draw i is uniform in [i, i + 1) / 10^6): plain draws of
            // the Google RPC tails have a 2 % standard error at this count.
            let mut rng = stream(3, StreamKind::Workload, n);
            let draws = 1_000_000;
            let mean = (0..draws)
                .map(|i| {
                    f.cdf
                        .sample((i as f64 + rng.random::<f64>()) / draws as f64)
                })
                .sum::<f64>()
                / draws as f64;
            eprintln!("{name}: header {header}, sampled {mean:.1}");
            assert!(
                (mean / header - 1.0).abs() < 0.01,
                "{name}: {mean} vs {header}"
            );
            n += 1;
        }
        assert!(n >= 7, "only {n} homa files");
    }

    #[test]
    fn builtins_match_their_source_files() {
        let Some(dir) = workloads() else { return };
        for (name, file, format) in [
            (
                "websearch",
                "hpcc_WebSearch_distribution.txt",
                CdfFormat::Hpcc,
            ),
            ("datamining", "phost_CDF_datamining.txt", CdfFormat::Pfabric),
            ("fb_hadoop", "hpcc_FbHdp_distribution.txt", CdfFormat::Hpcc),
            (
                "fb_webserver",
                "homa_Facebook_WebServerDist_IntraCluster.txt",
                CdfFormat::Homa,
            ),
            (
                "fb_cachefollower",
                "homa_Facebook_CacheFollowerDist_IntraCluster.txt",
                CdfFormat::Homa,
            ),
            ("alistorage", "hpcc_AliStorage2019.txt", CdfFormat::Hpcc),
            ("googlerpc", "hpcc_GoogleRPC2008.txt", CdfFormat::Hpcc),
        ] {
            let f = read_cdf(&dir.join(file)).unwrap();
            assert_eq!(f.format, format, "{file}");
            let b = Cdf::builtin(name).unwrap();
            assert_eq!(b.sampling, f.cdf.sampling, "{name}");
            assert_eq!(b.points.len(), f.cdf.points.len(), "{name}");
            let (mb, mf) = (b.mean(), f.cdf.mean());
            eprintln!("{name}: built-in mean {mb:.1}, {file} {mf:.1}");
            assert!((mb / mf - 1.0).abs() < 0.01, "{name}: {mb} vs {mf}");
            for (p, q) in b.points.iter().zip(&f.cdf.points) {
                assert!(
                    (p.0 - q.0).abs() <= 1e-9 * q.0.max(1.0) && (p.1 - q.1).abs() < 1e-9,
                    "{name}: {p:?} vs {q:?}"
                );
            }
        }
    }
}
